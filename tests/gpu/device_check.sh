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
    for suite in ${SUITES:-cuda golden}; do
        GPUIMG_BACKEND=cuda CK_RUN_SUITE=$suite timeout 400 "$SAN" --tool $tool \
            --error-exitcode 9 "$DIR/check_gpuimg" > "$LOGS/${tool}_$suite.log" 2>&1 || status=1
        grep -E "%: Checks|ERROR SUMMARY|RACECHECK SUMMARY|Error:" "$LOGS/${tool}_$suite.log" | head -8
    done
done

step "first timings: 8K RGB (7680x4320), CUDA backend, --time stages in ms"
python3 -c "from PIL import Image; Image.open('$DIR/photo.png').resize((7680, 4320), Image.LANCZOS).save('/tmp/8k.png', compress_level=1)"
printf '0 0 0 0 0 0 0 0 0 0 0 0 0 0 0\n%.0s' {1..15} > /tmp/k15.txt
for s in blur:sigma=2 blur:sigma=8 box:radius=5 convolve:kernel=gaussian5 \
         convolve:kernel=/tmp/k15.txt sobel transpose rotate:angle=90 flip:axis=h grayscale \
         invert equalize; do
    CUDA_MODULE_LOADING=EAGER "$DIR/gpuimg" -q --backend cuda --time --format bmp \
        run /tmp/8k.png - "$s" 2>&1 >/dev/null | sed "s|^gpuimg: time:|$s:|"
done
for cmd in histogram stats; do
    CUDA_MODULE_LOADING=EAGER "$DIR/gpuimg" -q --backend cuda --time $cmd /tmp/8k.png 2>&1 \
        >/dev/null | sed "s|^gpuimg: time:|$cmd:|"
done
CUDA_MODULE_LOADING=EAGER "$DIR/gpuimg" -q --backend cuda --time compare /tmp/8k.png /tmp/8k.png \
    2>&1 >/dev/null | sed "s|^gpuimg: time:|compare:|"

step "blur on a 4000x3000 photograph, CUDA against CPU"
for b in cuda cpu; do
    "$DIR/gpuimg" --backend $b --time blur "$DIR/photo.png" "/tmp/blur_$b.png" || status=1
done
"$DIR/gpuimg" compare /tmp/blur_cuda.png /tmp/blur_cpu.png --max-diff 1 --max-differing 0.1% \
    || status=1
exit $status
