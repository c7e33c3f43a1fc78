# SPDX-License-Identifier: MIT
# shellcheck shell=bash
# Shared by bench/thumbnail_cpu.sh and bench/thumbnail_device.sh (sourced,
# not run). Needs W (a scratch folder), N (timed runs) and MEASURE (the
# path of bench/measure.py) set.
declare -A T # LABEL -> median wall seconds, for the ratios

# timed LABEL OUTDIR CMD...: one untimed run (it must exit 0; it also warms
# the page cache and, on the GPU machine, the driver), then N runs of
# bench/measure.py (whole-process wall time and peak RSS); OUTDIR is emptied
# before each run, outside the timing. Prints LABEL median min max (s) and
# the largest peak RSS (MiB); a failed command prints FAILED and its error.
timed() {
    local label=$1 out=$2 rc w m med lo hi walls=() peak=0
    shift 2
    rm -rf "$out" && mkdir -p "$out"
    "$@" > /dev/null 2> "$W/err"
    rc=$?
    if [ $rc -ne 0 ]; then
        printf "%-36s FAILED (exit %d): %s\n" "$label" $rc "$(head -c 300 "$W/err" | tr '\n' ' ')"
        return
    fi
    for _ in $(seq "$N"); do
        rm -rf "$out" && mkdir -p "$out"
        read -r _ w m rc < <(python3 "$MEASURE" x "$@")
        if [ "$rc" != 0 ]; then
            printf "%-36s FAILED (exit %s) in a timed run\n" "$label" "$rc"
            return
        fi
        walls+=("$w")
        [ "$m" -gt "$peak" ] && peak=$m
    done
    read -r med lo hi < <(printf '%s\n' "${walls[@]}" | sort -g |
        awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)], v[1], v[NR]}')
    T[$label]=$med
    printf "%-36s %7.2f %7.2f %7.2f %7.0f\n" "$label" "$med" "$lo" "$hi" "$peak"
}

# ratio TEXT A B: prints TEXT and T[A]/T[B], or n/a when either is missing.
ratio() {
    local a=${T[$2]:-} b=${T[$3]:-}
    if [ -n "$a" ] && [ -n "$b" ]; then
        printf "%-60s %6.2f\n" "$1" "$(awk "BEGIN {print $a / $b}")"
    else
        printf "%-60s %6s\n" "$1" "n/a"
    fi
}

# faster LABEL...: the label of the smallest median among those measured.
faster() {
    local best='' l
    for l in "$@"; do
        [ -n "${T[$l]:-}" ] || continue
        if [ -z "$best" ] || awk "BEGIN {exit !(${T[$l]} < ${T[$best]})}"; then best=$l; fi
    done
    echo "$best"
}

# outputs REF DIR...: how many files each output folder holds, and for the
# first file of REF its size in each folder and PSNR against REF's (or the
# first folder's that has files, when REF has none) (the
# implementations should agree to JPEG's and their filters' differences).
outputs() {
    python3 - "$@" << 'PY'
import os, sys
import numpy as np
from PIL import Image
dirs = sys.argv[1:]
# the reference: REF, or the first folder that has outputs when REF has none
ref = next((d for d in dirs if os.path.isdir(d) and os.listdir(d)), dirs[0])
names = sorted(os.listdir(ref)) if os.path.isdir(ref) else []
first = names[0] if names else None
a = np.asarray(Image.open(os.path.join(ref, first)).convert("RGB"), float) if first else None
for d in dirs:
    if not os.path.isdir(d):
        print(f"{d}: missing"); continue
    line = f"{d}: {len(os.listdir(d))} files"
    p = os.path.join(d, first) if first else ""
    if first and os.path.exists(p):
        b = np.asarray(Image.open(p).convert("RGB"), float)
        line += f", {first} {b.shape[1]}x{b.shape[0]}"
        if d != ref and b.shape == a.shape:
            mse = np.mean((a - b) ** 2)
            line += ", PSNR vs %s %.1f dB" % (os.path.basename(ref), 10 * np.log10(255 ** 2 / mse) if mse else float("inf"))
    print(line)
PY
}
