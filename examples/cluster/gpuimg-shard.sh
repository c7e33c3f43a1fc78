#!/usr/bin/env bash
# Prints this task's `--shard K/N` argument ("K/N") for `gpuimg batch`, from
# the scheduler's own variables, so that the Slurm job file and the
# Kubernetes manifest share one mapping (examples/cluster/README.md):
#
#   Slurm job array:        K = (SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN)
#                               / SLURM_ARRAY_TASK_STEP (1 if unset)
#                           N = SLURM_ARRAY_TASK_COUNT
#   Kubernetes Indexed Job: K = JOB_COMPLETION_INDEX
#                           N = GPUIMG_SHARD_COUNT (the manifest keeps it
#                               equal to spec.completions: a Pod cannot
#                               read its Job's completions)
#
# Anything else (no array, a missing or non-numeric variable, K >= N, an
# array that is a list rather than a range) is an error on stderr and exit
# status 2, before gpuimg starts: a wrong K/N would silently skip or repeat
# files, which no later check would notice.
set -euo pipefail

die() {
    echo "gpuimg-shard: $*" >&2
    exit 2
}

# Non-negative decimal integer, no sign, no leading zeros beyond "0" (bash
# arithmetic would read 010 as octal).
need_int() {
    local name=$1 value=${!1-}
    [[ -n $value ]] || die "$name is not set${2:+ ($2)}"
    [[ $value =~ ^(0|[1-9][0-9]{0,8})$ ]] || die "$name='$value' is not a non-negative integer"
}

if [[ -n ${SLURM_ARRAY_TASK_ID-} ]]; then
    hint="set by Slurm in a job array: sbatch --array=0-3"
    need_int SLURM_ARRAY_TASK_ID "$hint"
    need_int SLURM_ARRAY_TASK_MIN "$hint"
    need_int SLURM_ARRAY_TASK_COUNT "$hint"
    [[ -n ${SLURM_ARRAY_TASK_STEP-} ]] || SLURM_ARRAY_TASK_STEP=1
    need_int SLURM_ARRAY_TASK_STEP
    step=$SLURM_ARRAY_TASK_STEP
    ((step >= 1)) || die "SLURM_ARRAY_TASK_STEP=0"
    # shellcheck disable=SC2153 # checked by need_int above
    id=$SLURM_ARRAY_TASK_ID min=$SLURM_ARRAY_TASK_MIN n=$SLURM_ARRAY_TASK_COUNT
    # A list such as --array=1,5,6 has ids that are not MIN + K*STEP, so
    # ID-MIN would leave holes and go past N: only ranges are accepted.
    if [[ -n ${SLURM_ARRAY_TASK_MAX-} ]]; then
        need_int SLURM_ARRAY_TASK_MAX
        ((SLURM_ARRAY_TASK_MAX - min == (n - 1) * step)) ||
            die "the array is not one range (MIN=$min MAX=$SLURM_ARRAY_TASK_MAX STEP=$step COUNT=$n): use --array=0-$((n - 1))"
    fi
    ((id >= min)) || die "SLURM_ARRAY_TASK_ID=$id is below SLURM_ARRAY_TASK_MIN=$min"
    (((id - min) % step == 0)) || die "SLURM_ARRAY_TASK_ID=$id is not MIN=$min plus a multiple of STEP=$step"
    k=$(((id - min) / step))
    source="SLURM_ARRAY_TASK_ID=$id"
elif [[ -n ${JOB_COMPLETION_INDEX-} ]]; then
    need_int JOB_COMPLETION_INDEX
    need_int GPUIMG_SHARD_COUNT "the manifest's env, equal to spec.completions"
    k=$JOB_COMPLETION_INDEX n=$GPUIMG_SHARD_COUNT
    source="JOB_COMPLETION_INDEX=$k"
else
    die "neither SLURM_ARRAY_TASK_ID (a Slurm job array task) nor JOB_COMPLETION_INDEX (a Kubernetes Indexed Job pod) is set: not run by a scheduler as an array"
fi

((n >= 1)) || die "the shard count N is 0"
((k < n)) || die "$source gives shard K=$k but there are only N=$n shards (0 <= K < N)"
echo "$k/$n"
