#!/bin/bash
# SPDX-License-Identifier: MIT
# `make bench`, an earlier build against this one, in turn, on the GPU
# machine (bench/NOTES.md, "16 bits"). DIR (devrun) holds this build as
# bench/depth_device.sh's prepare step leaves it, and DIR/old the earlier
# one: DIR/old/libgpuimg.a (its `make static`) and DIR/old/tree (its
# include/, src/*.h, src/cpu/*.h, kernels/*.h, kernels/*.cuh and bench/
# sources). Both link the same archives, with NPP from /usr/local/cuda.
# Usage: bench/ab_device.sh [DIR] [IMAGE] (default devrun, samples/coffee.png).
set -u
DIR=${1:-devrun}
IMAGE=${2:-samples/coffee.png}
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
CUDA=/usr/local/cuda
FLAGS="-std=c++17 -O3 -gencode arch=compute_90,code=sm_90 -Iinclude -Isrc -Ikernels -Ibench"
NPP="-L$CUDA/lib64 -lnppc -lnppial -lnppicc -lnppidei -lnppif -lnppig -lnppim -lnppist -lnppisu -lnppitc -Xlinker -rpath=$CUDA/lib64"
R=$PWD/$DIR
ARCH="$(grep -v libgpuimg.a $R/archives | sed "s|^|$R/|" | tr '\n' ' ') -lstdc++ -lm -lpthread"
$CUDA/bin/nvcc $FLAGS -o /tmp/bench_new bench/bench.cu bench/npp.cu $R/libgpuimg.a $ARCH $NPP || exit 1
(cd $R/old/tree && $CUDA/bin/nvcc $FLAGS -o /tmp/bench_old bench/bench.cu bench/npp.cu \
    $R/old/libgpuimg.a $ARCH $NPP) || exit 1
for i in 1 2; do
    echo "=== old ($i)"; /tmp/bench_old $IMAGE $OUT/old$i.json
    echo "=== new ($i)"; /tmp/bench_new $IMAGE $OUT/new$i.json
done
