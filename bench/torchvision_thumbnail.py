#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""torchvision's GPU JPEG pipeline doing what `gpuimg batch IN OUT
thumbnail:size=1024 --format jpg --jpeg-quality 90` does (or, with --cover
N, `thumbnail:size=NxN,crop`), as a PyTorch user would write it: files
read on the CPU, decode_jpeg(device="cuda") a batch at a time, resize with
antialias=True (bilinear) to fit inside NxN (--cover: to cover NxN, then
center_crop NxN), never larger than the input, encode_jpeg on the GPU at
quality 90, files written. Timed as a whole process, start-up included.
Usage: torchvision_thumbnail.py IN_DIR OUT_DIR [--size N | --cover N] [--batch B]"""
import os
import sys

import torch
from torchvision.io import decode_jpeg, encode_jpeg, read_file, write_file
from torchvision.transforms.v2.functional import center_crop, resize

IN, OUT = sys.argv[1], sys.argv[2]
COVER = "--cover" in sys.argv
BOX = int(sys.argv[sys.argv.index("--cover" if COVER else "--size") + 1]) \
    if ("--cover" in sys.argv or "--size" in sys.argv) else 1024
BATCH = int(sys.argv[sys.argv.index("--batch") + 1]) if "--batch" in sys.argv else 20


def thumbnail(img):
    """img: C x H x W uint8 on the GPU; the same rounding of the size as
    bench/opencv_thumbnail.py (round(side * scale))."""
    h, w = img.shape[-2:]
    scale = min((max if COVER else min)(BOX / w, BOX / h), 1.0)
    th, tw = max(1, round(h * scale)), max(1, round(w * scale))
    if (th, tw) != (h, w):
        img = resize(img, [th, tw], antialias=True)
    if COVER:
        img = center_crop(img, [min(BOX, th), min(BOX, tw)])
    return img.contiguous()


os.makedirs(OUT, exist_ok=True)
names = sorted(n for n in os.listdir(IN) if n.lower().endswith((".jpg", ".jpeg")))
for i in range(0, len(names), BATCH):
    chunk = names[i:i + BATCH]
    images = decode_jpeg([read_file(os.path.join(IN, n)) for n in chunk], device="cuda")
    small = [thumbnail(img) for img in images]
    for n, data in zip(chunk, encode_jpeg(small, quality=90)):
        write_file(os.path.join(OUT, os.path.splitext(n)[0] + ".jpg"), data.cpu())
torch.cuda.synchronize()
