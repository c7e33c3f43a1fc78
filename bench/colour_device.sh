#!/bin/bash
# SPDX-License-Identifier: MIT
# Issue 27 on the GPU machine. DIR (devrun) holds pack.tar.xz (a static
# build's gpuimg, check_gpuimg and colour_bench, stripped, and lib/ from
# bench/device_libs.sh) and photo.jpg; PHONE (optional) a folder of phone
# photographs (tests/formats/check_phone_folder.py's, made here).
#   kernel:  colour_bench on 8K against the copy (sRGB <-> P3, 8 and 16 bits)
#   suite:   the whole suite on CUDA (every op's example, goldens, colour)
#   agree:   a 4000x3000 P3 photograph to sRGB on CUDA against the CPU, 8
#            and 16 bits, and odd sizes with alpha and gray; whole-process
#            times of both
#   sanitize: compute-sanitizer memcheck and racecheck over colour on CUDA
#   phone:   batch PHONE thumbnail:size=1600 colour:to=srgb --format jpg on
#            both backends, the outputs compared, copied to $OUT
# Usage: bench/colour_device.sh DIR PART...
set -uo pipefail
DIR=${1:?usage: colour_device.sh DIR PART...}
shift
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
D=/tmp/gpuimg27
[ -x $D/gpuimg ] || { mkdir -p $D && tar -C $D -xJf "$DIR/pack.tar.xz"; }
export LD_LIBRARY_PATH=$D/lib
G=$D/gpuimg
W=/tmp/c27; mkdir -p $W
echo "=== $(nvidia-smi --query-gpu=name --format=csv,noheader | tr '\n' ' '), nproc $(nproc)"
cmp_line() { # A B: max diff and share differing, from compare --json
    $G compare "$1" "$2" --json | python3 -c 'import json,sys; r=json.load(sys.stdin); print("max_diff %s, differing %.4f%% of pixels, psnr %s" % (r["max_diff"], r["differing_pct"], r.get("psnr")))'
}
for PART in "$@"; do
case $PART in
kernel)
    $D/colour_bench "$DIR/photo.jpg" 2>&1 | tee $OUT/colour_bench.txt ;;
suite)
    GPUIMG_BIN=$G GPUIMG_GOLDEN=$PWD/tests/golden GPUIMG_BACKEND=cuda CK_FORK=no \
        $D/check_gpuimg > $OUT/suite_cuda.txt 2>&1
    echo "suite rc=$?"; grep -E "^[0-9]+%|SKIP|colour table|:F:|:E:" $OUT/suite_cuda.txt | head -30 ;;
agree)
    $G -q --backend cpu colour "$DIR/photo.jpg" $W/p3.png --to display-p3
    $G -q --backend cpu --depth 16 colour "$DIR/photo.jpg" $W/p3_16.png --to display-p3
    for be in cpu cuda; do
        $G -q --backend $be colour $W/p3.png $W/s_$be.png --to srgb
        $G -q --backend $be colour $W/p3_16.png $W/s16_$be.png --to srgb --intent relative
    done
    echo "P3 -> sRGB 8 bits, cuda vs cpu: $(cmp_line $W/s_cpu.png $W/s_cuda.png)"
    echo "P3 -> sRGB 16 bits, cuda vs cpu: $(cmp_line $W/s16_cpu.png $W/s16_cuda.png)"
    $G -q crop $W/p3.png $W/odd.png --rect 3,5,1237,771
    $G -q run $W/odd.png $W/odd_gray.png grayscale
    for be in cpu cuda; do
        $G -q --backend $be colour $W/odd.png $W/odd_$be.png --to srgb
        $G -q --backend $be colour $W/odd_gray.png $W/oddg_$be.png --to srgb
    done
    echo "odd 1237x771: $(cmp_line $W/odd_cpu.png $W/odd_cuda.png); gray: $(cmp_line $W/oddg_cpu.png $W/oddg_cuda.png)"
    echo "=== whole process, 4000x3000 P3 JPEG -> sRGB JPEG (label median min max s)"
    $G -q --backend cpu run $W/p3.png $W/p3.jpg
    for k in 1 2; do for be in cpu cuda; do
        python3 bench/wall.py colour-jpg-$be 5 $G -q --backend $be colour $W/p3.jpg $W/o_$be.jpg --to srgb
    done; done
    $G --time --backend cuda colour $W/p3.jpg $W/o_t.jpg --to srgb 2>&1 | tail -2 ;;
sanitize)
    for tool in memcheck racecheck; do
        compute-sanitizer --tool $tool --error-exitcode 9 $G -q --backend cuda colour $W/odd.png $W/san_$tool.png --to srgb > $OUT/san_$tool.txt 2>&1
        echo "$tool colour 8-bit odd: rc=$? $(tail -1 $OUT/san_$tool.txt)"
    done
    compute-sanitizer --tool memcheck --error-exitcode 9 $G -q --backend cuda colour $W/p3_16.png $W/san16.png --to srgb > $OUT/san16.txt 2>&1
    echo "memcheck colour 16-bit 4000x3000: rc=$? $(tail -1 $OUT/san16.txt)" ;;
phone)
    P=${PHONE:?PHONE=folder}
    for be in cpu cuda; do
        rm -rf $W/web_$be
        /usr/bin/time -f "$be: %e s, %M KB" $G --backend $be batch "$P" $W/web_$be thumbnail:size=1600 colour:to=srgb --format jpg 2>&1 | tail -4
    done
    for f in $W/web_cpu/*.jpg; do b=$(basename "$f"); echo "$b: $(cmp_line "$f" "$W/web_cuda/$b")"; done
    mkdir -p $OUT/web && cp $W/web_cuda/*.jpg $OUT/web/ 2>/dev/null; ls $OUT/web ;;
esac
done
