#!/bin/bash
# SPDX-License-Identifier: MIT
# The GPU machine's checks, in one run (see shared/DEVICE.md): the whole
# suite on the CUDA backend, compute-sanitizer memcheck and racecheck over
# the CUDA suites, and blur of a 4000x3000 photograph on both backends.
# Usage: tests/gpu/device_check.sh DIR  (DIR holds gpuimg, check_gpuimg and
# photo.png; logs go to $OUT when set, else DIR).
set -uo pipefail
DIR=${1:?usage: device_check.sh DIR}
LOGS=${OUT:-$DIR}
export GPUIMG_BIN=$DIR/gpuimg GPUIMG_GOLDEN=$PWD/tests/golden
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
status=0
step() { echo; echo "=== $*"; }

step device
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
"$DIR/gpuimg" info

step "the suite on the CUDA backend"
GPUIMG_BACKEND=cuda timeout 300 "$DIR/check_gpuimg" > "$LOGS/suite_cuda.log" 2>&1 || status=1
grep -E "^(backend|CUDA|SKIP)|%: Checks" "$LOGS/suite_cuda.log"
grep -E ":[FE]:" "$LOGS/suite_cuda.log" | head -20

for tool in memcheck racecheck; do
    step "compute-sanitizer --tool $tool (suites cuda and golden, CUDA backend)"
    for suite in cuda golden; do
        GPUIMG_BACKEND=cuda CK_RUN_SUITE=$suite timeout 400 "$SAN" --tool $tool \
            --error-exitcode 9 "$DIR/check_gpuimg" > "$LOGS/${tool}_$suite.log" 2>&1 || status=1
        grep -E "%: Checks|ERROR SUMMARY|RACECHECK SUMMARY|Error:" "$LOGS/${tool}_$suite.log" | head -8
    done
done

step "blur on a 4000x3000 photograph, CUDA against CPU"
for b in cuda cpu; do
    "$DIR/gpuimg" --backend $b --time blur "$DIR/photo.png" "/tmp/blur_$b.png" || status=1
done
"$DIR/gpuimg" compare /tmp/blur_cuda.png /tmp/blur_cpu.png --max-diff 1 --max-differing 0.1% \
    || status=1
exit $status
