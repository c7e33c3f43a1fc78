#!/bin/bash
# SPDX-License-Identifier: MIT
# Issue 26 on the GPU machine: `batch` against its anchors and its ceiling,
# the same files, one run. DIR (devrun) holds gpuimg and photo.jpg.
#   table:   100/400/2000 photographs of 4000x3000, blur:sigma=2, against
#            the OpenCV 16-process pool and torchvision's GPU pipeline;
#            nvJPEG's batched decode rate (torchvision) on the same files;
#            one 8K PNG on each backend; 100 PNG photographs at level 6;
#            peak memory; a timeline of the 400 (GPUIMG_TRACE).
#   devices: every GPU against the first alone, 400 of 4000x3000 and 120
#            of 2000x1500, twice each, and their timelines.
#   checks:  the whole suite on CUDA; compute-sanitizer memcheck over a
#            batch (photographs, a cut JPEG, a restart-interval one, a
#            progressive one) and over the cuda and nvjpeg suites. DIR also
#            holds check_gpuimg. (Issue 26's final runs: table, then checks,
#            on one GPU; devices on two.)
# Usage: bench/batch_device.sh DIR PART...
set -uo pipefail
DIR=${1:?usage: batch_device.sh DIR PART...}
shift
G=$PWD/$DIR/gpuimg
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
W=/tmp/b26
M="python3 bench/measure.py"
photos() { # NAME N FMT [W H]: $W/NAME, made once
    local name=$1; shift
    [ -d $W/$name ] || python3 bench/make_photos.py $DIR/photo.jpg $W/$name "$@"
}
links() { # NAME FROM COPIES: hard links (batch reads no symbolic link)
    [ -d $W/$1 ] && return
    mkdir -p $W/$1
    for k in $(seq 1 $3); do for f in $W/$2/*; do ln "$f" "$W/$1/$k-$(basename "$f")"; done; done
}
echo "=== $(nvidia-smi --query-gpu=name --format=csv,noheader | tr '\n' ' '), nproc $(nproc)"
mkdir -p $W
photos jpg400 400 jpg
[ -d $W/jpg100 ] || { mkdir -p $W/jpg100; ls $W/jpg400 | head -100 | xargs -I{} ln $W/jpg400/{} $W/jpg100/{}; }
for PART in "$@"; do
case $PART in
table)
    [ -f $W/8k.png ] || python3 bench/make_8k_pair.py $DIR/photo.jpg $W/8k.png $W/8k_b.png
    for be in cpu cuda cpu cuda; do
        python3 bench/wall.py 8k-png-$be 3 $G -q --backend $be blur $W/8k.png $W/8k_$be.png
    done
    GPUIMG_TRACE=$OUT/trace_8k_cuda.json $G --time --backend cuda blur $W/8k.png $W/8k_g.png 2>&1 | tail -1
    python3 bench/wall.py 8k-png-auto 3 $G -q blur $W/8k.png $W/8k_a.png
    links jpg2000 jpg400 5
    photos png100 100 png
    echo "=== runs: label wall_s peak_rss_mib exit"
    for n in 100 400 2000; do
        $M gpuimg-jpg$n $G -q batch $W/jpg$n $W/o blur:sigma=2; rm -rf $W/o
        $M opencv16-jpg$n python3 bench/opencv_batch.py $W/jpg$n $W/o 16; rm -rf $W/o
    done
    $M torchvision-jpg400 python3 bench/torchvision_batch.py $W/jpg400 $W/o; rm -rf $W/o
    $M torchvision-jpg100 python3 bench/torchvision_batch.py $W/jpg100 $W/o; rm -rf $W/o
    $M gpuimg-jpg400-again $G -q batch $W/jpg400 $W/o blur:sigma=2; rm -rf $W/o
    $M gpuimg-jpg100-again $G -q batch $W/jpg100 $W/o blur:sigma=2; rm -rf $W/o
    GPUIMG_TRACE=$OUT/trace_jpg400.json $G --time batch $W/jpg400 $W/o blur:sigma=2 2>&1 | tail -2
    rm -rf $W/o
    python3 bench/torchvision_decode_rate.py $W/jpg400 32
    $M gpuimg-png100 $G -q batch $W/png100 $W/o blur:sigma=2; rm -rf $W/o
    $M opencv16-png100 python3 bench/opencv_batch.py $W/png100 $W/o 16; rm -rf $W/o
    ;;
devices)
    photos jpg120 120 jpg 2000 1500
    echo "=== runs: label wall_s peak_rss_mib exit"
    for d in 0 all 0 all; do
        $M jpg400-dev$d $G -q batch --devices $d $W/jpg400 $W/o blur:sigma=2; rm -rf $W/o
        $M jpg120-2000x1500-dev$d $G -q batch --devices $d $W/jpg120 $W/o blur:sigma=2; rm -rf $W/o
    done
    for d in 0 all; do
        GPUIMG_TRACE=$OUT/trace400_dev$d.json $G --time batch --devices $d $W/jpg400 $W/o \
            blur:sigma=2 2>&1 | tail -2
        rm -rf $W/o
        GPUIMG_TRACE=$OUT/trace120_dev$d.json $G --time batch --devices $d $W/jpg120 $W/o \
            blur:sigma=2 2>&1 | tail -2
        rm -rf $W/o
    done
    ;;
checks)
    export GPUIMG_BIN=$G GPUIMG_GOLDEN=$PWD/tests/golden
    SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
    ( time GPUIMG_BACKEND=cuda timeout 300 $DIR/check_gpuimg ) > $OUT/suite_cuda.log 2>&1
    echo "suite cuda rc=$?" >> $OUT/suite_cuda.log
    grep -E "^(backend|SKIP)|%: Checks|:[FE]:|rc=|^real|damaged corpus" $OUT/suite_cuda.log
    M=/tmp/mc; rm -rf $M; mkdir -p $M
    python3 bench/make_photos.py $DIR/photo.jpg $M/in 20 jpg 1280 720
    cp tests/jpeg_damaged/cut50_420.jpg tests/jpeg_damaged/clean_dri.jpg \
        tests/jpeg_damaged/clean_prog.jpg $M/in/
    timeout 120 "$SAN" --tool memcheck --error-exitcode 9 $G -q batch $M/in $M/out \
        blur:sigma=2 rotate:angle=90 > $OUT/memcheck_batch.log 2>&1
    echo "memcheck batch rc=$? (1: the cut file) outputs $(ls $M/out | wc -l)" >> $OUT/memcheck_batch.log
    grep -E "ERROR SUMMARY|rc=" $OUT/memcheck_batch.log
    for su in cuda nvjpeg; do
        GPUIMG_BACKEND=cuda CK_FORK=no CK_RUN_SUITE=$su timeout 600 "$SAN" --tool memcheck \
            --error-exitcode 9 $DIR/check_gpuimg > $OUT/memcheck_$su.log 2>&1
        echo "memcheck $su rc=$?" >> $OUT/memcheck_$su.log
        grep -E "%: Checks|ERROR SUMMARY|rc=|:[FE]:" $OUT/memcheck_$su.log
    done
    ;;
esac
done
