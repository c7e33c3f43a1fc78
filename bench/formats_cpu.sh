#!/bin/bash
# SPDX-License-Identifier: MIT
# Issue 27's format figures on this (2-core) machine, whole process, median
# of 5 (bench/wall.py), side by side in one run:
#   decode: one 12-megapixel HEIC, AVIF and JXL (4000x3000, made from
#           PHOTO by heif-enc and cjxl at their defaults) to a raw output:
#           gpuimg to PPM against heif-convert to Y4M (its cheapest: no RGB
#           conversion, no compression) and to PNG, and djxl to PPM
#   thumbs: a folder of 40 such HEICs (and 40 AVIFs, 40 JXLs: 10 distinct
#           crops, each linked 4 times) to 1024-pixel JPEG thumbnails:
#           gpuimg batch against vipsthumbnail (libvips 8.14, the same
#           libheif and libjxl), which shrinks on load where it can
# Usage: bench/formats_cpu.sh GPUIMG PHOTO [WORKDIR]
set -euo pipefail
G=$(realpath "${1:?usage: formats_cpu.sh GPUIMG PHOTO [WORKDIR]}")
PHOTO=$(realpath "${2:?photo}")
W=${3:-/tmp/formats_bench}
mkdir -p "$W"
T() { python3 "$(dirname "$0")/wall.py" "$@"; }
if [ ! -f "$W/one.heic" ]; then
    "$G" -q run "$PHOTO" "$W/one.png"
    heif-enc -q 50 "$W/one.png" -o "$W/one.heic" >/dev/null
    heif-enc -A -q 50 "$W/one.png" -o "$W/one.avif" >/dev/null
    cjxl -q 90 "$W/one.png" "$W/one.jxl" 2>/dev/null
    mkdir -p "$W/heic" "$W/avif" "$W/jxl"
    for k in $(seq 0 9); do # 10 crops of 3600x2700, shifted
        "$G" -q crop "$W/one.png" "$W/c$k.png" --rect $((k * 40)),$((k * 30)),3600,2700
        heif-enc -q 50 "$W/c$k.png" -o "$W/heic/c$k.heic" >/dev/null
        heif-enc -A -q 50 "$W/c$k.png" -o "$W/avif/c$k.avif" >/dev/null
        cjxl -q 90 "$W/c$k.png" "$W/jxl/c$k.jxl" 2>/dev/null
        for f in heic avif jxl; do
            for n in 1 2 3; do ln -f "$W/$f/c$k.$f" "$W/$f/c$k-$n.$f"; done
        done
    done
fi
echo "=== $(nproc) cores; label median min max (s)"
for f in heic avif; do
    T "gpuimg $f->ppm" 5 "$G" -q run "$W/one.$f" "$W/out_$f.ppm"
    T "heif-convert $f->y4m" 5 heif-convert "$W/one.$f" "$W/out_$f.y4m"
    T "heif-convert $f->png" 3 heif-convert "$W/one.$f" "$W/out_$f.png"
done
T "gpuimg jxl->ppm" 5 "$G" -q run "$W/one.jxl" "$W/out_jxl.ppm"
T "djxl jxl->ppm" 5 djxl "$W/one.jxl" "$W/out_djxl.ppm"
for f in heic avif jxl; do
    T "gpuimg batch 40 $f thumbnail 1024" 3 sh -c "rm -rf $W/t_g_$f && exec $G -q batch $W/$f $W/t_g_$f thumbnail:size=1024 --format jpg"
    T "vipsthumbnail 40 $f 1024" 3 sh -c "rm -rf $W/t_v_$f && mkdir $W/t_v_$f && exec vipsthumbnail -s 1024 -o $W/t_v_$f/%s.jpg $W/$f/*.$f"
done
