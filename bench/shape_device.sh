#!/bin/bash
# SPDX-License-Identifier: MIT
# Issue 24 on the GPU machine: `make bench` before and after the
# restructuring, in one call on one GPU: the bench of the tree at BASE
# (DIR/base.tar.xz: its bench/, include/, src/, kernels/ and libgpuimg.a,
# made here with `git archive`) and the bench of this tree (DIR/libgpuimg.a
# and the archives bench/depth_device.sh's prepare step copied), run in
# turns, ROUNDS times each, then the table: each operation's median
# milliseconds before and after, the ratio, and the spread of the rounds.
# Usage: OUT=/tmp/o bash bench/shape_device.sh DIR [ROUNDS]
set -uo pipefail
DIR=${1:-devrun}
ROUNDS=${2:-3}
OUT=${OUT:-/tmp/out}
mkdir -p $OUT
exec > >(tee -a $OUT/shape_bench.log) 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
CUDA=/usr/local/cuda
NVCC=$CUDA/bin/nvcc
FLAGS="-std=c++17 -O3 -gencode arch=compute_90,code=sm_90 -Iinclude -Isrc -Ikernels -Ibench"
DEPS="$(sed "s|^|$PWD/$DIR/|" "$DIR/archives" | grep -v libgpuimg.a | tr '\n' ' ') -lstdc++ -lm -lpthread"
NPP="-L$CUDA/lib64 -lnppc -lnppial -lnppicc -lnppidei -lnppif -lnppig -lnppim -lnppist -lnppisu -lnppitc -Xlinker -rpath=$CUDA/lib64"
rm -rf /tmp/base && mkdir -p /tmp/base && tar -xJf $DIR/base.tar.xz -C /tmp/base
$NVCC $FLAGS -o /tmp/bench_new bench/bench.cu bench/npp.cu $PWD/$DIR/libgpuimg.a $DEPS $NPP ||
    exit 1
(cd /tmp/base && $NVCC $FLAGS -o /tmp/bench_base bench/bench.cu bench/npp.cu /tmp/base/libgpuimg.a \
    $DEPS $NPP) || exit 1
cp samples/coffee.png /tmp/photo.png
for r in $(seq 1 $ROUNDS); do
    for which in base new; do
        echo "=== $which, round $r"
        /tmp/bench_$which /tmp/photo.png $OUT/${which}_$r.json > $OUT/${which}_$r.txt 2>&1 ||
            { tail -5 $OUT/${which}_$r.txt; exit 1; }
        head -3 $OUT/${which}_$r.txt
    done
done
python3 - $OUT $ROUNDS <<'PY'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
def load(which):
    runs = [json.load(open(f"{out}/{which}_{r}.json")) for r in range(1, rounds + 1)]
    ms = {}
    for run in runs:
        for o in run["ops"]:
            ms.setdefault(f'{o["op"]}{" 16" if o["depth"] == 16 else ""}', []).append(o["ms"])
    ms["(copy)"] = [run["copy_ms"] for run in runs]
    return ms
base, new = load("base"), load("new")
print(f"{'op':26} {'before ms':>10} {'after ms':>10} {'after/before':>13} {'spread before':>14} {'spread after':>13}")
worst = 0
for op in base:
    if op not in new:
        print(f"{op:26} {statistics.median(base[op]):10.3f} {'-':>10}")
        continue
    b, a = statistics.median(base[op]), statistics.median(new[op])
    sb = (max(base[op]) - min(base[op])) / b * 100
    sa = (max(new[op]) - min(new[op])) / a * 100
    ratio = a / b
    worst = max(worst, ratio)
    print(f"{op:26} {b:10.3f} {a:10.3f} {ratio:13.3f} {sb:13.1f}% {sa:12.1f}%")
for op in new:
    if op not in base:
        print(f"{op:26} {'-':>10} {statistics.median(new[op]):10.3f}   (new row)")
print(f"largest after/before: {worst:.3f}")
PY
