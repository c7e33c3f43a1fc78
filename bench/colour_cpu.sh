#!/bin/bash
# SPDX-License-Identifier: MIT
# Issue 27's CPU figures for colour: a 4000x3000 Display P3 photograph to
# sRGB, whole process, median of 5, side by side with LittleCMS's own
# tificc (TIFF in, TIFF out) and jpgicc (JPEG in, JPEG out at quality 90),
# the same pixels, profile and intent. gpuimg's TIFF is Deflate and
# tificc's uncompressed, so the TIFF pair is also timed with gpuimg writing
# PPM (the conversion and the read alone), and --time gives the kernels
# stage (the transform on every core) against tificc's whole run.
# Usage: bench/colour_cpu.sh build/gpuimg PHOTO.png [WORKDIR]
set -euo pipefail
G=$(realpath "${1:?usage: colour_cpu.sh GPUIMG PHOTO [WORKDIR]}")
PHOTO=${2:?photo}
W=${3:-/tmp/colour_bench}
mkdir -p "$W"
T() { python3 bench/wall.py "$@"; }
if [ ! -f "$W/p3.tif" ]; then
    "$G" -q --backend cpu colour "$PHOTO" "$W/p3.png" --to display-p3
    "$G" -q run "$W/p3.png" "$W/p3.ppm"
    /usr/bin/python3 - "$W" <<'PY'
import sys
from PIL import Image
w = sys.argv[1]
with Image.open(w + "/p3.png") as im:
    icc = im.info["icc_profile"]
    im.save(w + "/p3.tif", tiffinfo={34675: icc})
    im.save(w + "/p3.jpg", quality=90, icc_profile=icc)
PY
fi
echo "=== $(nproc) cores; $(identify -format '%wx%h' "$W/p3.tif" 2>/dev/null || echo 4000x3000) Display P3 -> sRGB, perceptual"
echo "=== label median min max (s)"
for k in 1 2; do
    T tificc 5 tificc -t0 "$W/p3.tif" "$W/out_tificc.tif"
    T gpuimg-tif 5 "$G" -q --backend cpu colour "$W/p3.tif" "$W/out_gpuimg.tif" --to srgb
    T gpuimg-tif2ppm 5 "$G" -q --backend cpu colour "$W/p3.tif" "$W/out_gpuimg.ppm" --to srgb
    T jpgicc 5 jpgicc -t0 -q 90 "$W/p3.jpg" "$W/out_jpgicc.jpg"
    T gpuimg-jpg 5 "$G" -q --backend cpu colour "$W/p3.jpg" "$W/out_gpuimg.jpg" --to srgb
    T gpuimg-jpg-1thread 5 "$G" -q --backend cpu --threads 1 colour "$W/p3.jpg" "$W/out_gpuimg1.jpg" --to srgb
done
echo "=== stages (--time), TIFF in:"
"$G" --backend cpu --time colour "$W/p3.tif" "$W/out_t.ppm" --to srgb 2>&1 | tail -2
"$G" --backend cpu --threads 1 --time colour "$W/p3.tif" "$W/out_t1.ppm" --to srgb 2>&1 | tail -2
