#!/bin/bash
# SPDX-License-Identifier: MIT
# Issue 6's figures on the GPU machine, in one run:
#  1. codec_bench on an 8K photograph (the 4000x3000 photograph resized to
#     7680x4320 with Pillow, saved as PNG level 6 and JPEG quality 90);
#  2. OpenCV's codecs on the same files, in process;
#  3. whole-process wall time, median of 5: `gpuimg blur` against OpenCV's
#     imread + GaussianBlur + imwrite (bench/opencv_blur.py), PNG and JPEG;
#  4. the batch benchmark: 100 PNG and 100 JPEG photographs of 4000x3000,
#     blur:sigma=2, gpuimg batch against an OpenCV 16-process pool (PNG
#     once each, half a minute a run; JPEG median of 3).
# Usage: bench/codec_device.sh DIR [codecs|batch] (DIR holds gpuimg,
# codec_bench, photo.png); with no second argument, both parts.
set -uo pipefail
DIR=${1:?usage: codec_device.sh DIR [codecs|batch]}
PART=${2:-all}
G=$DIR/gpuimg
W=/tmp/codecbench
rm -rf $W && mkdir -p $W
echo "=== machine: $(nproc) cores; $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null)"
python3 - "$DIR/photo.png" $W <<'PY'
import sys
from PIL import Image
im = Image.open(sys.argv[1]).convert("RGB").resize((7680, 4320), Image.LANCZOS)
im.save(sys.argv[2] + "/photo8k.png", compress_level=6)
im.save(sys.argv[2] + "/photo8k.jpg", quality=90)
PY
ls -l $W

if [ "$PART" != batch ]; then
echo "=== 1. codec_bench"
$DIR/codec_bench $W/photo8k.png $W/photo8k.jpg
echo "=== 2. OpenCV codecs"
python3 bench/opencv_codecs.py $W/photo8k.png $W/photo8k.jpg

echo "=== 3. whole process, 8K: label median min max (s)"
$G --time blur $W/photo8k.png $W/g.png
$G --time blur $W/photo8k.jpg $W/g.jpg
python3 bench/wall.py "gpuimg blur png" 5 $G blur $W/photo8k.png $W/g.png
python3 bench/wall.py "opencv blur png (level 6)" 5 python3 bench/opencv_blur.py $W/photo8k.png $W/o.png
python3 bench/wall.py "opencv blur png (its defaults)" 5 python3 bench/opencv_blur.py $W/photo8k.png $W/od.png --opencv-defaults
python3 bench/wall.py "gpuimg blur png --png-level 1" 5 $G --png-level 1 blur $W/photo8k.png $W/g1.png
python3 bench/wall.py "gpuimg blur jpg" 5 $G blur $W/photo8k.jpg $W/g.jpg
python3 bench/wall.py "opencv blur jpg (q90)" 5 python3 bench/opencv_blur.py $W/photo8k.jpg $W/o.jpg
ls -l $W/g.png $W/o.png $W/od.png $W/g1.png $W/g.jpg $W/o.jpg
$G compare $W/g.png $W/o.png | head -3
fi
[ "$PART" = codecs ] && exit 0

echo "=== 4. batch: 100 PNG + 100 JPEG of 4000x3000, blur:sigma=2"
python3 bench/make_photos.py "$DIR/photo.png" $W/png 100 png
python3 bench/make_photos.py "$DIR/photo.png" $W/jpg 100 jpg
echo "PNG, once each: label wall_s peak_rss_mib exit (images/s = 100 / wall_s)"
python3 bench/measure.py "gpuimg-batch-png" $G -q batch $W/png $W/out-g-png blur:sigma=2
python3 bench/measure.py "opencv16-png" python3 bench/opencv_batch.py $W/png $W/out-o-png 16
echo "JPEG, a second each: label median min max of 3 (s), after one untimed run"
python3 bench/wall.py "gpuimg-batch-jpg" 3 $G -q batch $W/jpg $W/out-g-jpg blur:sigma=2
python3 bench/wall.py "opencv16-jpg" 3 python3 bench/opencv_batch.py $W/jpg $W/out-o-jpg 16
