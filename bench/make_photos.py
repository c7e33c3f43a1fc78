#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Derives N distinct photographs from one, differing by mirror, flip and
exposure (and, with WIDTH HEIGHT, by crop position), and writes them as PNG
(level 6) or JPEG (quality 90).
Usage: make_photos.py SRC OUT_DIR N png|jpg [WIDTH HEIGHT]"""
import os
import sys
from multiprocessing import Pool

from PIL import Image, ImageEnhance, ImageOps

SRC, OUT, N, FMT = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
SIZE = (int(sys.argv[5]), int(sys.argv[6])) if len(sys.argv) > 6 else None


def one(i):
    im = Image.open(SRC).convert("RGB")
    if SIZE:  # a crop at a position that depends on i
        x = (i * 97) % max(1, im.width - SIZE[0])
        y = (i * 53) % max(1, im.height - SIZE[1])
        im = im.crop((x, y, x + SIZE[0], y + SIZE[1]))
    if i % 2:
        im = ImageOps.mirror(im)
    if i % 4 >= 2:
        im = ImageOps.flip(im)
    im = ImageEnhance.Brightness(im).enhance(0.8 + 0.4 * ((i * 37) % 100) / 100)
    path = os.path.join(OUT, f"photo{i:04d}.{FMT}")
    if FMT == "png":
        im.save(path, compress_level=6)
    else:
        im.save(path, quality=90)


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    with Pool(os.cpu_count()) as pool:
        pool.map(one, range(N))
