#!/bin/bash
# SPDX-License-Identifier: MIT
# Issue 16's table, on the GPU machine, one run: 400 JPEG photographs of
# 4000x3000 through blur:sigma=2 (gpuimg batch with nvJPEG, and with
# --jpeg-codec cpu; the OpenCV 16-process pool; torchvision's GPU
# pipeline), one 8K JPEG through `gpuimg blur` against OpenCV (median of 5
# whole processes; auto, and CUDA with and without nvJPEG), 100 PNG
# photographs at level 6 (gpuimg batch, the OpenCV pool), and peak memory
# at 100, 400 and 800 JPEGs.
# Usage: bench/jpeg_gpu_bench.sh DIR (DIR holds gpuimg and photo.png).
set -uo pipefail
DIR=${1:?usage: jpeg_gpu_bench.sh DIR}
G=$DIR/gpuimg
W=/tmp/jpegbench
rm -rf $W && mkdir -p $W
M="python3 bench/measure.py"
echo "=== $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader), nproc $(nproc)"
"$G" info 2>&1 | grep -i -E "cuda|jpeg" | head -3
python3 bench/make_photos.py "$DIR/photo.png" $W/jpg400 400 jpg
mkdir -p $W/jpg100 $W/jpg800 && ls $W/jpg400 | head -100 | xargs -I{} ln $W/jpg400/{} $W/jpg100/{}
for k in a b; do ls $W/jpg400 | xargs -I{} ln $W/jpg400/{} $W/jpg800/$k{}; done
python3 bench/make_photos.py "$DIR/photo.png" $W/png 100 png
python3 bench/make_8k_pair.py "$DIR/photo.png" $W/8k.png $W/8k_b.png
python3 -c "from PIL import Image; Image.open('$W/8k.png').save('$W/8k.jpg', quality=90)"
du -sh $W/jpg400 $W/png $W/8k.jpg
cat /proc/loadavg

echo "=== runs: label wall_s peak_rss_mib exit"
$M gpuimg-nvjpeg-jpg400 $G -q batch $W/jpg400 $W/o1 blur:sigma=2
$M gpuimg-cpucodec-jpg400 $G -q --jpeg-codec cpu batch $W/jpg400 $W/o2 blur:sigma=2
$M opencv16-jpg400 python3 bench/opencv_batch.py $W/jpg400 $W/o3 16
$M torchvision-jpg400 python3 bench/torchvision_batch.py $W/jpg400 $W/o4
$M gpuimg-nvjpeg-jpg100 $G -q batch $W/jpg100 $W/o5 blur:sigma=2
$M gpuimg-nvjpeg-jpg400-again $G -q batch $W/jpg400 $W/o6 blur:sigma=2
$M gpuimg-nvjpeg-jpg800 $G -q batch $W/jpg800 $W/o8 blur:sigma=2
"$G" --time batch $W/jpg400 $W/o7 blur:sigma=2 2>&1 | tail -4
$M gpuimg-png100 $G -q batch $W/png $W/p1 blur:sigma=2
$M opencv16-png100 python3 bench/opencv_batch.py $W/png $W/p2 16

echo "=== one 8K JPEG: label median min max (s), 5 runs after a warm one"
python3 bench/wall.py gpuimg-blur-8k-auto 5 $G -q blur $W/8k.jpg $W/8k_a.jpg
python3 bench/wall.py gpuimg-blur-8k-cuda-nvjpeg 5 $G -q --backend cuda blur $W/8k.jpg $W/8k_g.jpg
python3 bench/wall.py gpuimg-blur-8k-cuda-cpucodec 5 $G -q --backend cuda --jpeg-codec cpu blur $W/8k.jpg $W/8k_c.jpg
python3 bench/wall.py opencv-blur-8k 5 python3 bench/opencv_blur.py $W/8k.jpg $W/8k_o.jpg
"$G" --time blur $W/8k.jpg $W/8k_a.jpg 2>&1 | tail -1
"$G" --time --backend cuda blur $W/8k.jpg $W/8k_g.jpg 2>&1 | tail -1

echo "=== the outputs, read back: gpuimg (nvJPEG) against OpenCV's, PSNR"
python3 - $W <<'PY'
import sys, cv2, numpy as np
w = sys.argv[1]
def psnr(a, b):
    return 10 * np.log10(255.0 ** 2 / np.mean((a.astype(float) - b.astype(float)) ** 2))
for name in ["photo0000.jpg", "photo0399.jpg"]:
    g, o, c = (cv2.imread(f"{w}/{d}/{name}") for d in ("o1", "o3", "o2"))
    print(name, "nvJPEG vs OpenCV %.1f dB, cpu codec vs OpenCV %.1f dB" % (psnr(g, o), psnr(c, o)))
g, o = cv2.imread(f"{w}/8k_g.jpg"), cv2.imread(f"{w}/8k_o.jpg")
print("8k nvJPEG vs OpenCV %.1f dB" % psnr(g, o))
PY
ls $W/o1 | wc -l
