#!/bin/bash
# SPDX-License-Identifier: MIT
# Issue 15: the CPU backend beside libvips, OpenCV and ImageMagick, side by
# side on one machine, in one run (run it with nothing else on the machine):
#  1. blur sigma=2 of a 4000x3000 photograph, whole process, JPEG -> JPEG q90
#     and PNG -> PNG level 6 (every filter): gpuimg --backend cpu against
#     libvips 8.18 (PyPI's pyvips-binary, bench/vips_blur.py), the
#     distribution's libvips (`vips gaussblur`), both at 13 taps
#     (min_ampl 0.011) in float and in libvips' own integer precision, and
#     OpenCV (bench/opencv_blur.py); peak memory beside each;
#  2. each operation alone, the --time kernels stage of the command line
#     on one thread and on every core;
#  3. each operation in one process (bench/cpu_ops.c) beside OpenCV's
#     equivalent call on the same image (bench/opencv_ops.py), every core;
#  4. a batch of 40 such JPEGs, blur sigma=2: gpuimg batch against an
#     OpenCV pool of one process per core and GNU parallel running `vips`;
#  5. compare of two 8K PNGs against ImageMagick's `compare -metric PSNR`.
# Figures: median, min and max of N runs after one untimed run
# (bench/wall.py: seconds; stage_ms.py, cpu_ops, opencv_ops.py: ms).
# Usage: bench/cpu_bench.sh BUILD PHOTO_PNG [N]
#   BUILD holds gpuimg and cpu_ops (make BUILD=... BUILD/gpuimg BUILD/cpu_ops);
#   PHOTO_PNG: the 4000x3000 photograph of tests/photo (fetch_photo.sh).
set -euo pipefail
B=${1:?usage: cpu_bench.sh BUILD PHOTO_PNG [N]}
PHOTO=${2:?usage: cpu_bench.sh BUILD PHOTO_PNG [N]}
N=${3:-5}
G=$(cd "$B" && pwd)/gpuimg
PY=/usr/bin/python3 # Debian's: cv2, numpy, Pillow
VPY=python3         # PyPI's pyvips-binary
here=$(cd "$(dirname "$0")" && pwd)
W=${TMPDIR:-/tmp}/cpubench
mkdir -p $W
wall() { "$PY" "$here/wall.py" "$@"; }
stage() { "$PY" "$here/stage_ms.py" "$@"; }
rss() { # LABEL CMD...: peak resident memory of one run, MiB
    local l=$1; shift
    /usr/bin/time -f "%M" -o $W/rss "$@" > /dev/null 2>&1 || true
    printf "%-34s %8.1f MiB\n" "$l" "$(($(cat $W/rss) / 1024)).$(($(cat $W/rss) % 1024 * 10 / 1024))"
}
cores=$(nproc)
echo "=== machine: $cores cores, $(lscpu | sed -n 's/^Model name: *//p'); $(vips --version);" \
    "libvips $($VPY -c 'import pyvips; print("%d.%d.%d" % tuple(pyvips.version(i) for i in range(3)))')" \
    "(pyvips-binary); OpenCV $($PY -c 'import cv2; print(cv2.__version__)');" \
    "$(compare -version | head -1 | cut -d' ' -f2-3)"
echo "=== gpuimg: $("$G" --version | head -1); $("$G" --backend cpu info | sed -n 's/^ *cpu *available: //p')"

cp "$PHOTO" $W/photo.png
"$PY" -c "from PIL import Image; Image.open('$W/photo.png').save('$W/photo.jpg', quality=90)"
[ -f $W/photo8k_b.png ] || "$PY" "$here/make_8k_pair.py" "$PHOTO" $W/photo8k_a.png $W/photo8k_b.png
[ -d $W/jpg40 ] || { mkdir -p $W/jpg40 && "$PY" "$here/make_photos.py" $W/photo.png $W/jpg40 40 jpg; }
decoded=$((4000 * 3000 * 3))
echo "decoded image: $decoded bytes ($((decoded / 1048576)) MiB)"

echo "=== 1. blur sigma=2, 4000x3000, whole process (s: median min max)"
for f in jpg png; do
    wall "gpuimg --backend cpu $f" $N "$G" --backend cpu blur $W/photo.$f $W/g.$f --sigma 2
    wall "libvips 8.18 float $f" $N $VPY "$here/vips_blur.py" $W/photo.$f $W/v18f.$f
    wall "libvips 8.18 integer $f" $N $VPY "$here/vips_blur.py" $W/photo.$f $W/v18i.$f --integer
    if [ $f = jpg ]; then sv="[Q=90]"; else sv="[compression=6,filter=all]"; fi
    wall "vips $(vips --version | cut -d- -f2) float $f" $N vips gaussblur $W/photo.$f "$W/v14f.$f$sv" 2 \
        --min-ampl 0.011 --precision float
    wall "vips $(vips --version | cut -d- -f2) integer $f" $N vips gaussblur $W/photo.$f "$W/v14i.$f$sv" 2 \
        --min-ampl 0.011
    wall "opencv $f" $N "$PY" "$here/opencv_blur.py" $W/photo.$f $W/o.$f
done
echo "--- peak memory of one run"
for f in jpg png; do
    rss "gpuimg --backend cpu $f" "$G" --backend cpu blur $W/photo.$f $W/g.$f --sigma 2
    rss "libvips 8.18 integer $f" $VPY "$here/vips_blur.py" $W/photo.$f $W/v18i.$f --integer
    rss "opencv $f" "$PY" "$here/opencv_blur.py" $W/photo.$f $W/o.$f
done

echo "=== 2. the operation alone: --time kernels, ms (median min max), JPEG in, PPM out"
for op in "blur --sigma 2" "box --radius 7" "convolve --kernel gaussian5" "sobel"; do
    for t in 1 $cores; do
        stage "${op%% *} threads $t" $N kernels "$G" --backend cpu --threads $t $op \
            $W/photo.jpg $W/x.ppm
    done
done
for t in 1 $cores; do
    stage "compare --ssim threads $t" $N kernels "$G" --backend cpu --threads $t compare --ssim \
        $W/photo.jpg $W/v18f.jpg
done

echo "=== 3. in one process, every core: gpuimg (bench/cpu_ops.c) and OpenCV (ms)"
"$B/cpu_ops" $W/photo.jpg 0 $N
"$PY" "$here/opencv_ops.py" $W/photo.jpg $N $cores
echo "--- and on one thread"
"$B/cpu_ops" $W/photo.jpg 1 $N
"$PY" "$here/opencv_ops.py" $W/photo.jpg $N 1

echo "=== 4. batch of 40 JPEG photographs, blur sigma=2 (s)"
wall "gpuimg batch --backend cpu" $N bash -c "rm -rf $W/bo; '$G' -q --backend cpu batch $W/jpg40 $W/bo blur:sigma=2"
wall "opencv pool of $cores processes" $N bash -c "rm -rf $W/oo; '$PY' '$here/opencv_batch.py' $W/jpg40 $W/oo $cores"
mkdir -p $W/vo
wall "GNU parallel -j$cores vips gaussblur" $N bash -c "ls $W/jpg40 | parallel -j$cores vips gaussblur $W/jpg40/{} '$W/vo/{}[Q=90]' 2 --min-ampl 0.011"
rss "gpuimg batch peak" bash -c "rm -rf $W/bo; '$G' -q --backend cpu batch $W/jpg40 $W/bo blur:sigma=2"

echo "=== 5. compare two 8K PNGs (s)"
wall "gpuimg compare --backend cpu" $N bash -c "'$G' --backend cpu compare $W/photo8k_a.png $W/photo8k_b.png > /dev/null; true"
wall "gpuimg compare --ssim --backend cpu" $N bash -c "'$G' --backend cpu compare --ssim $W/photo8k_a.png $W/photo8k_b.png > /dev/null; true"
wall "imagemagick compare -metric PSNR" $N bash -c "compare -metric PSNR $W/photo8k_a.png $W/photo8k_b.png null: 2>/dev/null; true"
