#!/bin/bash
# SPDX-License-Identifier: MIT
# The batch benchmark of issue 4, on the GPU machine: 100 PNG and 100 JPEG
# photographs of 4000x3000, blur:sigma=2, in images/s: gpuimg batch, its
# codec-only baseline (no step), and OpenCV with a 16-process pool; peak
# memory at 100 and 400 images. Then >= 200 small images through batch,
# each compared with `gpuimg run` on the same file.
# Usage: bench/batch_bench.sh DIR (DIR holds gpuimg and photo.png).
set -uo pipefail
DIR=${1:?usage: batch_bench.sh DIR}
G=$DIR/gpuimg
W=/tmp/batchbench
rm -rf $W && mkdir -p $W
M="python3 bench/measure.py"
echo "=== making the photographs (nproc $(nproc))"
python3 bench/make_photos.py "$DIR/photo.png" $W/png 100 png
python3 bench/make_photos.py "$DIR/photo.png" $W/jpg 100 jpg
mkdir -p $W/jpg400 && for k in 0 1 2 3; do for f in $W/jpg/*.jpg; do
    ln "$f" "$W/jpg400/$k-$(basename "$f")"; done; done  # hard links: batch reads no symbolic link
du -sh $W/png $W/jpg

echo "=== runs: label wall_s peak_rss_mib exit"
for fmt in png jpg; do
    $M "gpuimg-blur-$fmt" $G -q batch $W/$fmt $W/out-g-$fmt blur:sigma=2
    $M "gpuimg-codec-only-$fmt" $G -q batch $W/$fmt $W/out-c-$fmt
    $M "opencv16-blur-$fmt" python3 bench/opencv_batch.py $W/$fmt $W/out-o-$fmt 16
    $M "opencv16-codec-only-$fmt" python3 bench/opencv_batch.py $W/$fmt $W/out-oc-$fmt 16 --no-blur
done
$M "gpuimg-blur-jpg-400" $G -q batch $W/jpg400 $W/out-g-jpg400 blur:sigma=2
"$G" batch $W/png $W/out-g-png blur:sigma=2 --skip-existing 2>&1 | tail -1

echo "=== 240 images: batch against gpuimg run, file by file"
python3 bench/make_photos.py "$DIR/photo.png" $W/small 120 png 640 480
python3 bench/make_photos.py "$DIR/photo.png" $W/small 120 jpg 640 480
n=$(ls $W/small | wc -l)
"$G" batch $W/small $W/small-batch blur:sigma=2 rotate:angle=90 2>&1 | tail -1
mkdir -p $W/small-run
ls $W/small | xargs -P 16 -I{} "$G" -q run $W/small/{} $W/small-run/{} blur:sigma=2 rotate:angle=90
same=0; for f in $(ls $W/small); do cmp -s $W/small-batch/$f $W/small-run/$f && same=$((same+1)); done
echo "identical outputs: $same of $n"
