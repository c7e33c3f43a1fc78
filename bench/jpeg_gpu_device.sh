#!/bin/bash
# SPDX-License-Identifier: MIT
# Issue 16 on the GPU machine. PART suite: the whole suite on the CUDA
# backend (the nvjpeg suite's PSNR lines kept); sanitize: compute-sanitizer
# memcheck over the nvjpeg suite and over a batch of JPEGs; bench: the
# table (bench/jpeg_gpu_bench.sh). DIR (devrun) holds gpuimg, check_gpuimg
# and photo.png. Usage: bench/jpeg_gpu_device.sh DIR PART...
set -u
DIR=${1:-devrun}
shift
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
export GPUIMG_BIN=$PWD/$DIR/gpuimg GPUIMG_GOLDEN=$PWD/tests/golden
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for PART in "$@"; do
case $PART in
suite)
    ( time GPUIMG_BACKEND=cuda timeout 500 $DIR/check_gpuimg ) > $OUT/suite_cuda.log 2>&1
    echo "suite cuda rc=$?" >> $OUT/suite_cuda.log
    grep -E "^(backend|CUDA|SKIP|nvjpeg)|%: Checks|:[FE]:|rc=|^real" $OUT/suite_cuda.log | head -80
    ;;
sanitize)
    GPUIMG_BACKEND=cuda CK_RUN_SUITE=nvjpeg timeout ${LIMIT:-300} "$SAN" --tool memcheck \
        --error-exitcode 9 $DIR/check_gpuimg > $OUT/memcheck_nvjpeg.log 2>&1
    echo "memcheck nvjpeg rc=$?" >> $OUT/memcheck_nvjpeg.log
    grep -E "%: Checks|ERROR SUMMARY|rc=|:[FE]:" $OUT/memcheck_nvjpeg.log
    W=/tmp/mc; rm -rf $W; mkdir -p $W
    python3 bench/make_photos.py $DIR/photo.png $W/in 12 jpg 1280 720
    timeout ${LIMIT:-300} "$SAN" --tool memcheck --error-exitcode 9 $DIR/gpuimg -q batch $W/in \
        $W/out blur:sigma=2 rotate:angle=90 > $OUT/memcheck_batch.log 2>&1
    echo "memcheck batch rc=$? outputs $(ls $W/out | wc -l)" >> $OUT/memcheck_batch.log
    grep -E "ERROR SUMMARY|rc=" $OUT/memcheck_batch.log
    ;;
bench)
    bash bench/jpeg_gpu_bench.sh $DIR 2>&1 | tee $OUT/bench.log
    ;;
esac
done
