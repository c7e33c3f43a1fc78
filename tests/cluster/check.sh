#!/usr/bin/env bash
# tests/cluster/check.sh GPUIMG: the Slurm job array and the Kubernetes
# Indexed Job of examples/cluster/, run as their schedulers would run them,
# write together what one `gpuimg batch` writes, byte for byte, with no file
# twice and none missing; a wrong index or a missing variable is refused
# with a clear message; a requeued task resumes. No scheduler is needed:
#
# - Slurm: slurmd runs a copy of the job file from its spool with bash, in
#   the submit directory, with the submitter's environment and
#   SLURM_ARRAY_JOB_ID/TASK_ID/TASK_MIN/TASK_MAX/TASK_COUNT/TASK_STEP; the
#   array's bounds are read from the file's own #SBATCH --array line.
# - Kubernetes: the kubelet runs the container's command + args with the
#   manifest's env, JOB_COMPLETION_INDEX and HOSTNAME; the command is read
#   from the YAML (tests/cluster/manifest.py, standard library only). Only
#   what is site-specific is replaced: the volumes' paths (IN, OUT), the
#   ConfigMap's path (GPUIMG_SHARD_SH, a copy of the same script) and the
#   steps; gpuimg is found on PATH, as in the image.
#
# Nothing depends on timing: inputs are dated 2001, so --skip-existing's
# "output newer than input" holds whatever the clock's resolution.
set -euo pipefail

[[ $# -eq 1 ]] || {
    echo "usage: $0 GPUIMG" >&2
    exit 2
}
G=$(realpath "$1")
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
SBATCH=$ROOT/examples/cluster/slurm/gpuimg-batch.sbatch
YAML=$ROOT/examples/cluster/k8s/gpuimg-indexed-job.yaml
SHARD_SH=$ROOT/examples/cluster/gpuimg-shard.sh
MANIFEST_PY=$ROOT/tests/cluster/manifest.py
PY=${PYTHON:-python3}
# Steps that change every pixel and every size, and encoders of every kind.
STEPS="blur:sigma=1.5 thumbnail:size=40"
read -r -a steps <<<"$STEPS"
export GPUIMG_BACKEND=cpu

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() {
    echo "FAIL: cluster: $*" >&2
    exit 1
}
refusals=0

# --- Inputs: the four samples in eight written formats (32 images), and a
# file that is not an image (ignored by every shard alike).
mkdir -p "$T/in" "$T/log"
for f in png jpg bmp tga ppm pgm webp tif; do
    "$G" batch "$ROOT/samples" "$T/mk" thumbnail:size=64 --format "$f" 2>"$T/log/mk.log" ||
        fail "making the $f inputs: $(cat "$T/log/mk.log")"
    mv "$T"/mk/* "$T/in/"
done
echo "not an image" >"$T/in/notes.txt"
touch -d 2001-01-01T00:00:00Z "$T"/in/*
total=$(find "$T/in" -type f ! -name notes.txt | wc -l)
[[ $total -eq 32 ]] || fail "expected 32 inputs, made $total"

# --- The reference: one plain batch over the whole folder.
"$G" batch "$T/in" "$T/ref" "${steps[@]}" 2>"$T/log/ref.log" || fail "reference batch: $(cat "$T/log/ref.log")"
[[ $(find "$T/ref" -type f | wc -l) -eq $total ]] || fail "the reference batch wrote $(find "$T/ref" -type f | wc -l) files, not $total"

# check_union N SHARD_DIR...: every file of the shards equals the reference's
# (cmp), none is in two shards, none of the reference's is missing, and shard
# k (in the order given) holds as many files as sorted indexes i < total
# with i mod N = k. Prints the problems and returns 1 on any.
check_union() {
    local n=$1 k=0 dir rel bad=0
    shift
    local -A owner=()
    for dir in "$@"; do
        local count=0 want=$(((total - k + n - 1) / n))
        [[ $k -lt $n ]] || want=0
        while IFS= read -r -d '' rel; do
            count=$((count + 1))
            if [[ -n ${owner[$rel]-} ]]; then
                echo "  $rel is in two shards (${owner[$rel]} and $k)"
                bad=1
            fi
            owner[$rel]=$k
            if [[ ! -f $T/ref/$rel ]]; then
                echo "  $rel (shard $k) is not an output of the one batch"
                bad=1
            elif ! cmp -s "$dir/$rel" "$T/ref/$rel"; then
                echo "  $rel (shard $k) differs from the one batch's"
                bad=1
            fi
        done < <(cd "$dir" && find . -type f -printf '%P\0')
        if [[ $count -ne $want ]]; then
            echo "  shard $k wrote $count files, not $want (sorted index mod $n = $k)"
            bad=1
        fi
        k=$((k + 1))
    done
    while IFS= read -r -d '' rel; do
        if [[ -z ${owner[$rel]-} ]]; then
            echo "  $rel is in no shard"
            bad=1
        fi
    done < <(cd "$T/ref" && find . -type f -printf '%P\0')
    return $bad
}

# expect_refusal WHAT PATTERN OUT_DIR COMMAND...: the command must exit
# non-zero, say PATTERN on stderr, and write nothing to OUT_DIR.
expect_refusal() {
    local what=$1 pattern=$2 out=$3 rc=0
    shift 3
    "$@" >"$T/log/refusal.log" 2>&1 || rc=$?
    [[ $rc -ne 0 ]] || fail "$what: accepted (exit 0); it must be refused"
    grep -q -- "$pattern" "$T/log/refusal.log" ||
        fail "$what: exit $rc without the message '$pattern': $(cat "$T/log/refusal.log")"
    [[ ! -e $out ]] || fail "$what: refused, yet it created $out"
    refusals=$((refusals + 1))
}

# --- Slurm. The array's bounds come from the file's #SBATCH --array line.
array=$(sed -n 's/^#SBATCH --array=\([0-9]*-[0-9]*\)\(%[0-9]*\)\{0,1\}[[:space:]]*$/\1/p' "$SBATCH")
[[ $array =~ ^([0-9]+)-([0-9]+)$ ]] || fail "no '#SBATCH --array=MIN-MAX' line in $SBATCH"
smin=${BASH_REMATCH[1]} smax=${BASH_REMATCH[2]}
n=$((smax - smin + 1))
[[ $n -eq 4 ]] || fail "the job array has $n tasks, the test expects 4"
grep -q '^#SBATCH --gres=gpu:1$' "$SBATCH" || fail "no '#SBATCH --gres=gpu:1' in $SBATCH"
grep -q '^#SBATCH --output=.*%A_%a' "$SBATCH" || fail "no '#SBATCH --output' with %A_%a in $SBATCH"
# slurmd's copy: the job must not find its helper through its own path.
mkdir -p "$T/spool/job4242" "$T/submit"
cp "$SBATCH" "$T/spool/job4242/slurm_script"

# split_changes ARG...: sets `assigns` to the VAR=VALUE arguments and
# `unsets` to "-u NAME" for each "-u NAME" pair (GNU env takes -u only
# before its assignments, so a second env applies them).
split_changes() {
    assigns=() unsets=()
    while (($#)); do
        if [[ $1 == -u ]]; then
            unsets+=(-u "$2")
            shift 2
        else
            assigns+=("$1")
            shift
        fi
    done
}

# slurm_task ID MIN MAX COUNT OUT [VAR=VALUE | -u VAR]...: one array task as
# slurmd starts it (the submitting environment: IN, OUT, STEPS, GPUIMG
# exported), with the given changes.
slurm_task() {
    local id=$1 min=$2 max=$3 count=$4 out=$5 assigns unsets
    shift 5
    split_changes "$@"
    (cd "$ROOT" && env -i PATH="$PATH" HOME="$T/submit" GPUIMG_BACKEND=cpu \
        SLURM_SUBMIT_DIR="$ROOT" SLURM_JOB_ID="4243$id" SLURM_ARRAY_JOB_ID=4242 \
        SLURM_ARRAY_TASK_ID="$id" SLURM_ARRAY_TASK_MIN="$min" SLURM_ARRAY_TASK_MAX="$max" \
        SLURM_ARRAY_TASK_COUNT="$count" SLURM_ARRAY_TASK_STEP=1 SLURM_CPUS_PER_TASK=2 \
        IN="$T/in" OUT="$out" STEPS="$STEPS" GPUIMG="$G" "${assigns[@]}" \
        env "${unsets[@]}" bash "$T/spool/job4242/slurm_script")
}
for ((id = smin; id <= smax; id++)); do
    slurm_task "$id" "$smin" "$smax" "$n" "$T/slurm/$id" >"$T/log/slurm_$id.log" 2>&1 ||
        fail "Slurm task $id: exit $?: $(cat "$T/log/slurm_$id.log")"
    grep -q "shard $((id - smin))/$n of" "$T/log/slurm_$id.log" || fail "Slurm task $id did not say shard $((id - smin))/$n"
done
slurm_dirs=()
for ((id = smin; id <= smax; id++)); do slurm_dirs+=("$T/slurm/$id"); done
check_union "$n" "${slurm_dirs[@]}" >"$T/log/union.log" || fail "Slurm array's union:
$(cat "$T/log/union.log")"

# A requeued task starts again from the top: it must skip all its files, and
# redo only one whose output was lost.
task=$((smin + 1))
slurm_task "$task" "$smin" "$smax" "$n" "$T/slurm/$task" >"$T/log/requeue.log" 2>&1 || fail "requeued task: $(cat "$T/log/requeue.log")"
grep -q "0 processed, 0 failed, 8 skipped of 8" "$T/log/requeue.log" || fail "requeued task did not skip its 8 files: $(cat "$T/log/requeue.log")"
lost=$(cd "$T/slurm/$task" && find . -type f -printf '%P\n' | sort | head -n 1)
rm "$T/slurm/$task/$lost"
slurm_task "$task" "$smin" "$smax" "$n" "$T/slurm/$task" >"$T/log/requeue.log" 2>&1 || fail "requeued task: $(cat "$T/log/requeue.log")"
grep -q "1 processed, 0 failed, 7 skipped of 8" "$T/log/requeue.log" || fail "requeued task did not redo only $lost: $(cat "$T/log/requeue.log")"
check_union "$n" "${slurm_dirs[@]}" >"$T/log/union.log" || fail "Slurm array's union after the requeues:
$(cat "$T/log/union.log")"

# The mapping for arrays that do not start at 0 or step by 1 (sbatch
# --array=10-13, --array=1-7:2), with no gpuimg run.
for spec in "10 13 1" "1 7 2"; do
    read -r lo hi step <<<"$spec"
    k=0
    for ((id = lo; id <= hi; id += step)); do
        got=$(env -i PATH="$PATH" SLURM_ARRAY_TASK_ID="$id" SLURM_ARRAY_TASK_MIN="$lo" SLURM_ARRAY_TASK_MAX="$hi" \
            SLURM_ARRAY_TASK_COUNT=4 SLURM_ARRAY_TASK_STEP="$step" bash "$SHARD_SH") || fail "gpuimg-shard.sh for task $id of $lo-$hi:$step"
        [[ $got == "$k/4" ]] || fail "task $id of --array=$lo-$hi:$step mapped to $got, not $k/4"
        k=$((k + 1))
    done
done

# --- Kubernetes. The manifest is consistent (completions = the count the
# pods are given, Indexed, a GPU each, per-index retries, mounted paths).
"$PY" "$MANIFEST_PY" check "$YAML" 2>"$T/log/manifest.log" || fail "$(cat "$T/log/manifest.log")"
mapfile -d '' -t kargv < <("$PY" "$MANIFEST_PY" argv "$YAML")
mapfile -d '' -t kenv < <("$PY" "$MANIFEST_PY" env "$YAML")
[[ ${#kargv[@]} -gt 0 && ${#kenv[@]} -gt 0 ]] || fail "no container command or env read from $YAML"
kn=
for e in "${kenv[@]}"; do [[ $e != GPUIMG_SHARD_COUNT=* ]] || kn=${e#*=}; done
[[ $kn -eq 4 ]] || fail "the Job has $kn completions, the test expects 4"
mkdir -p "$T/bin" "$T/configmap"
ln -s "$G" "$T/bin/gpuimg"
cp "$SHARD_SH" "$T/configmap/gpuimg-shard.sh" # kubectl create configmap --from-file

# k8s_pod OUT [VAR=VALUE | -u VAR]...: the container's command with the
# manifest's env, the site's paths and steps, then the given changes (the
# scheduler's JOB_COMPLETION_INDEX, or a test's).
k8s_pod() {
    local out=$1 assigns unsets
    shift
    split_changes "$@"
    (cd "$T/submit" && env -i PATH="$T/bin:$PATH" HOME=/root GPUIMG_BACKEND=cpu "${kenv[@]}" \
        IN="$T/in" OUT="$out" STEPS="$STEPS" GPUIMG_SHARD_SH="$T/configmap/gpuimg-shard.sh" \
        "${assigns[@]}" env "${unsets[@]}" "${kargv[@]}")
}
k8s_dirs=()
for ((k = 0; k < kn; k++)); do
    k8s_pod "$T/k8s/$k" JOB_COMPLETION_INDEX=$k HOSTNAME="gpuimg-batch-$k-x7k2p" >"$T/log/k8s_$k.log" 2>&1 ||
        fail "Kubernetes pod $k: exit $?: $(cat "$T/log/k8s_$k.log")"
    grep -q "shard $k/$kn of" "$T/log/k8s_$k.log" || fail "Kubernetes pod $k did not say shard $k/$kn"
    k8s_dirs+=("$T/k8s/$k")
done
check_union "$kn" "${k8s_dirs[@]}" >"$T/log/union.log" || fail "Kubernetes Indexed Job's union:
$(cat "$T/log/union.log")"
# A retried index (backoffLimitPerIndex) resumes too.
k8s_pod "$T/k8s/2" JOB_COMPLETION_INDEX=2 HOSTNAME=gpuimg-batch-2-q9w4m >"$T/log/retry.log" 2>&1 || fail "retried pod: $(cat "$T/log/retry.log")"
grep -q "0 processed, 0 failed, 8 skipped of 8" "$T/log/retry.log" || fail "retried pod did not skip its 8 files: $(cat "$T/log/retry.log")"

# --- Refusals: clear messages, nothing written.
no=$T/never
expect_refusal "the sbatch file outside an array" "SLURM_ARRAY_TASK_ID is not set" "$no" \
    env -i PATH="$PATH" SLURM_SUBMIT_DIR="$ROOT" IN="$T/in" OUT="$no" GPUIMG="$G" bash "$SBATCH"
expect_refusal "a Slurm task past the array (K >= N)" "K=4 but there are only N=4 shards" "$no" \
    slurm_task 4 0 3 4 "$no"
expect_refusal "a Slurm task without SLURM_ARRAY_TASK_COUNT" "SLURM_ARRAY_TASK_COUNT is not set" "$no" \
    slurm_task 1 0 3 4 "$no" -u SLURM_ARRAY_TASK_COUNT
expect_refusal "a Slurm array that is a list (--array=0,2,5)" "the array is not one range" "$no" \
    slurm_task 2 0 5 3 "$no"
expect_refusal "a Slurm task with a non-numeric id" "is not a non-negative integer" "$no" \
    slurm_task 1x 0 3 4 "$no"
expect_refusal "the sbatch file without its shard script" "submit from the gpuimg checkout's root" "$no" \
    slurm_task 1 0 3 4 "$no" SLURM_SUBMIT_DIR="$T/submit"
expect_refusal "a pod with JOB_COMPLETION_INDEX past completions (K >= N)" "K=4 but there are only N=4 shards" "$no" \
    k8s_pod "$no" JOB_COMPLETION_INDEX=4
expect_refusal "a pod without JOB_COMPLETION_INDEX" "neither SLURM_ARRAY_TASK_ID" "$no" \
    k8s_pod "$no"
expect_refusal "a pod without GPUIMG_SHARD_COUNT" "GPUIMG_SHARD_COUNT is not set" "$no" \
    k8s_pod "$no" JOB_COMPLETION_INDEX=0 -u GPUIMG_SHARD_COUNT
expect_refusal "a pod with GPUIMG_SHARD_COUNT=0" "the shard count N is 0" "$no" \
    k8s_pod "$no" JOB_COMPLETION_INDEX=0 GPUIMG_SHARD_COUNT=0

# --- The checks can fail: each broken case below must be caught.
# A manifest whose count differs from completions.
sed 's/^\(              value: \)"4"$/\1"3"/' "$YAML" >"$T/bad.yaml"
! cmp -s "$YAML" "$T/bad.yaml" || fail "could not make a manifest with GPUIMG_SHARD_COUNT 3"
expect_refusal "a manifest with GPUIMG_SHARD_COUNT 3 and completions 4" "differs from completions" "$no" \
    "$PY" "$MANIFEST_PY" check "$T/bad.yaml"
# Pods run with that mismatch (counted as 5 while 4 pods run): files missing.
for ((k = 0; k < kn; k++)); do
    k8s_pod "$T/k8s5/$k" JOB_COMPLETION_INDEX=$k GPUIMG_SHARD_COUNT=5 >/dev/null 2>&1 || fail "pod $k with count 5"
done
expect_refusal "4 pods told of 5 shards" "is in no shard" "$no" \
    check_union "$kn" "$T/k8s5/0" "$T/k8s5/1" "$T/k8s5/2" "$T/k8s5/3"
# One shard given twice (and one left out).
expect_refusal "a shard counted twice" "is in two shards" "$no" \
    check_union "$n" "${slurm_dirs[0]}" "${slurm_dirs[0]}" "${slurm_dirs[2]}" "${slurm_dirs[3]}"
# One output changed by a byte.
cp -r "$T/k8s" "$T/k8s_bad"
victim=$(cd "$T/k8s_bad/3" && find . -type f -printf '%P\n' | sort | tail -n 1)
printf '\x01' | dd of="$T/k8s_bad/3/$victim" bs=1 seek=40 conv=notrunc status=none
expect_refusal "an output one byte off" "differs from the one batch's" "$no" \
    check_union "$kn" "$T/k8s_bad/0" "$T/k8s_bad/1" "$T/k8s_bad/2" "$T/k8s_bad/3"

echo "PASS: cluster: $total images; Slurm array ($n tasks) and Kubernetes Indexed Job ($kn pods) each wrote one batch's files byte for byte, none twice, none missing; a requeued Slurm task and a retried pod skipped their 8, a lost output was redone; $refusals wrong setups refused"
