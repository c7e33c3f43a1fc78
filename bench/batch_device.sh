#!/bin/bash
# SPDX-License-Identifier: MIT
# Issue 26 on the GPU machine: `batch` against its anchors and its ceiling,
# one run, the same files. PART probe: gpuimg's batch of 100 and 400
# photographs with --time and a timeline (GPUIMG_TRACE), nvJPEG's batched
# decode rate through torchvision on the same files, one 8K PNG on each
# backend. PART table: the table (OpenCV 16-process pool,
# torchvision's GPU pipeline, 100/400/2000 photographs, PNG, peak memory).
# DIR (devrun) holds gpuimg and photo.jpg.
# Usage: bench/batch_device.sh DIR PART...
set -uo pipefail
DIR=${1:?usage: batch_device.sh DIR PART...}
shift
G=$PWD/$DIR/gpuimg
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
W=/tmp/b26
M="python3 bench/measure.py"
photos() { # N FMT [W H]: $W/$2$1, made once
    [ -d $W/$2$1 ] || python3 bench/make_photos.py $DIR/photo.jpg $W/$2$1 "$@"
}
echo "=== $(nvidia-smi --query-gpu=name --format=csv,noheader | tr '\n' ' '), nproc $(nproc)"
mkdir -p $W
photos 400 jpg
mkdir -p $W/jpg100 && ls $W/jpg400 | head -100 | xargs -I{} ln -f $W/jpg400/{} $W/jpg100/{}
for PART in "$@"; do
case $PART in
probe)
    for n in 100 400; do
        GPUIMG_TRACE=$OUT/trace_jpg$n.json $G --time batch $W/jpg$n $W/o$n blur:sigma=2 2>&1 | tail -3
        rm -rf $W/o$n
    done
    $M gpuimg-jpg400 $G -q batch $W/jpg400 $W/o400 blur:sigma=2
    rm -rf $W/o400
    python3 bench/torchvision_decode_rate.py $W/jpg400 32
    python3 bench/torchvision_decode_rate.py $W/jpg400 8
    if command -v nsys > /dev/null; then # the device's side: API calls and kernels
        timeout 200 nsys profile -o $W/nsys400 -t cuda,osrt --force-overwrite true \
            $G -q batch $W/jpg400 $W/o400n blur:sigma=2 > /dev/null 2>&1
        timeout 200 nsys stats -q --report cuda_api_sum,cuda_gpu_kern_sum $W/nsys400.nsys-rep \
            2>&1 | head -60 > $OUT/nsys400.txt
        rm -rf $W/o400n
    fi
    [ -f $W/8k.png ] || python3 bench/make_8k_pair.py $DIR/photo.jpg $W/8k.png $W/8k_b.png
    for be in cpu cuda; do
        GPUIMG_TRACE=$OUT/trace_8k_$be.json $G --time --backend $be blur $W/8k.png $W/8k_$be.png 2>&1 | tail -1
        python3 bench/wall.py 8k-png-$be 3 $G -q --backend $be blur $W/8k.png $W/8k_$be.png
    done
    ;;
devices) # every GPU against the first alone, and the timeline of each
    for n in 100 400; do
        for d in 0 all; do
            GPUIMG_TRACE=$OUT/trace_jpg${n}_dev$d.json $G --time batch --devices $d $W/jpg$n \
                $W/od blur:sigma=2 2>&1 | tail -2
            rm -rf $W/od
        done
    done
    photos 120 jpg 2000 1500
    for d in 0 all 0 all; do
        $M jpg120-2000x1500-dev$d $G -q batch --devices $d $W/jpg120 $W/od blur:sigma=2
        rm -rf $W/od
    done
    ;;
esac
done
