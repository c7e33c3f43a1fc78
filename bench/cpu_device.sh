#!/bin/bash
# SPDX-License-Identifier: MIT
# Issue 15 on the GPU machine: the suite on the CUDA backend (unchanged by
# the CPU work), memcheck over the cuda suite, the threads suite on its 16
# cores, and the CPU backend's per-operation times on one thread and on
# every core there (bench/cpu_ops.c: the calibration of `auto`, each op's cost in src/ops/),
# with the backend `auto` then takes for a 12-megapixel blur.
# Usage: bench/cpu_device.sh DIR. DIR (devrun) holds what
# `bench/depth_device.sh devrun prepare` copies, cpu_ops and photo.jpg.
set -u
DIR=${1:-devrun}
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
exec > >(tee -a $OUT/run.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc
export GPUIMG_BIN=$PWD/$DIR/gpuimg GPUIMG_GOLDEN=$PWD/tests/golden
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
echo "=== the suite on CUDA"
( time GPUIMG_BACKEND=cuda timeout 300 $DIR/check_gpuimg ) > $OUT/suite_cuda.log 2>&1
echo "rc=$?" >> $OUT/suite_cuda.log
grep -E "^(backend|CUDA|SKIP)|%: Checks|:[FE]:|rc=|^real" $OUT/suite_cuda.log | head -30
for s in ${MEMCHECK:-cuda buffers golden}; do # the host buffers are mapped memory now
    echo "=== memcheck, $s suite"
    GPUIMG_BACKEND=cuda CK_RUN_SUITE=$s CK_FORK=no timeout 200 "$SAN" --tool memcheck \
        --error-exitcode 9 $DIR/check_gpuimg > $OUT/memcheck_$s.log 2>&1
    echo "rc=$?" >> $OUT/memcheck_$s.log
    grep -E "%: Checks|ERROR SUMMARY|rc=" $OUT/memcheck_$s.log
done
echo "=== the threads suite and the CPU suites, 16 cores"
for s in threads golden batch; do
    CK_RUN_SUITE=$s GPUIMG_BACKEND=cpu timeout 200 $DIR/check_gpuimg 2>&1 | grep -E "%: Checks|:[FE]:"
done
echo "=== CPU backend per operation (ms: median min max), 1 thread and every core"
$DIR/cpu_ops $DIR/photo.jpg 1 5
$DIR/cpu_ops $DIR/photo.jpg 0 5
echo "=== auto on a 4000x3000 blur (the estimate: CPU under 0.4 s)"
for op in "blur --sigma 2" "blur --radius 60" "convolve --kernel gaussian5"; do
    /usr/bin/time -f "%e s" $DIR/gpuimg -v --time $op $DIR/photo.jpg /tmp/auto.jpg 2>&1 |
        grep -E "backend|time:|^[0-9.]+ s" | tr '\n' ' '
    echo
done
