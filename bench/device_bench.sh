#!/bin/bash
# SPDX-License-Identifier: MIT
# `make bench` where the GPU machine lacks the build's dependencies (stb,
# Check): links the bench against archives built elsewhere and carried in
# DIR (libgpuimg.a, libstb.a, libpng16.a, libz.a), with NPP from the local
# CUDA; falls back to a bench without NPP if that does not build. Then the
# start-up figures: whole-process wall time of compare and blur on small
# images, both backends. Usage: bench/device_bench.sh DIR (DIR also holds
# gpuimg and photo.png); the JSON goes to $OUT or DIR.
set -uo pipefail
DIR=${1:?usage: device_bench.sh DIR}
LOGS=${OUT:-$DIR}
CUDA=/usr/local/cuda
NVCC=$CUDA/bin/nvcc
SRC="bench/bench.cu bench/npp.cu"
FLAGS="-std=c++17 -O3 -gencode arch=compute_90,code=sm_90 -Iinclude -Isrc -Ikernels -Ibench"
ARCHIVES="$DIR/libgpuimg.a $DIR/libstb.a $DIR/libpng16.a $DIR/libz.a -lm"
# DIR/archives: the static archives to link, in order, one per line (names
# in DIR), where the library needs more than the ones above (libtiff,
# libwebp and theirs: bench/depth_device.sh's prepare step writes it)
[ -f "$DIR/archives" ] && ARCHIVES="$(sed "s|^|$DIR/|" "$DIR/archives" | tr '\n' ' ') -lstdc++ -lm -lpthread"
NPP="-L$CUDA/lib64 -lnppc -lnppial -lnppicc -lnppidei -lnppif -lnppig -lnppim -lnppist -lnppisu -lnppitc -Xlinker -rpath=$CUDA/lib64"
if ! $NVCC $FLAGS -o /tmp/bench $SRC $ARCHIVES $NPP 2> /tmp/npp_build.log; then
    echo "=== the bench with NPP did not build; without NPP:"
    head -40 /tmp/npp_build.log
    $NVCC $FLAGS -DBENCH_NO_NPP -o /tmp/bench $SRC $ARCHIVES || exit 1
fi
echo "=== make bench"
/tmp/bench "$DIR/photo.png" "$LOGS/bench.json"

echo "=== start-up: whole-process wall time, median of 5 (ms)"
python3 - "$DIR/gpuimg" "$DIR/photo.png" <<'PY'
import statistics, subprocess, sys, time
from PIL import Image
g, photo = sys.argv[1], sys.argv[2]
im = Image.open(photo).convert("RGB")
for side in (256, 1024):
    for name, box in (("a", (0, 0)), ("b", (7, 5))):
        im.crop((box[0], box[1], box[0] + side, box[1] + side)).save(f"/tmp/s{side}{name}.png")
def wall(cmd):
    t = []
    for _ in range(5):
        t0 = time.monotonic(); subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        t.append((time.monotonic() - t0) * 1000)
    return statistics.median(t)
print(f"{'command':34} {'cpu':>8} {'cuda':>8}")
for side in (256, 1024):
    for op in ("compare", "blur"):
        args = [f"/tmp/s{side}a.png", f"/tmp/s{side}b.png" if op == "compare" else "/tmp/out.png"]
        row = [wall([g, "-q", "--backend", b, op] + args) for b in ("cpu", "cuda")]
        print(f"{op + ' ' + str(side) + 'x' + str(side):34} {row[0]:8.1f} {row[1]:8.1f}")
PY
