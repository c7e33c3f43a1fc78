#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""OpenCV doing what `gpuimg batch IN OUT thumbnail:size=1024 --format jpg
--jpeg-quality 90` does (or, with --cover N, `thumbnail:size=NxN,crop`),
with a pool of processes, as libvips' thumbnail does it: shrink on load
(imread with IMREAD_REDUCED_COLOR_2/4/8, libjpeg's DCT scaling) by the
largest factor that still leaves a reduction of at least 2 for the resize
(libvips' rule, so that the block shrink never sets the final sharpness),
else a full IMREAD_COLOR; then INTER_AREA to the size the original
dimensions give (fit inside NxN, or cover NxN and cut the centre), never
larger than the input; written as JPEG quality 90.
Usage: opencv_thumbnail.py IN_DIR OUT_DIR PROCESSES [--size N | --cover N]"""
import os
import struct
import sys
from multiprocessing import Pool

import cv2

IN, OUT, PROCS = sys.argv[1], sys.argv[2], int(sys.argv[3])
COVER = "--cover" in sys.argv
BOX = int(sys.argv[sys.argv.index("--cover" if COVER else "--size") + 1]) \
    if ("--cover" in sys.argv or "--size" in sys.argv) else 1024
REDUCED = {2: cv2.IMREAD_REDUCED_COLOR_2, 4: cv2.IMREAD_REDUCED_COLOR_4,
           8: cv2.IMREAD_REDUCED_COLOR_8}


def jpeg_size(path):
    """Width and height from the JPEG's SOF marker (the shrink factor must
    be known before decoding; a header read, as libvips does, not a decode)."""
    with open(path, "rb") as f:
        if f.read(2) != b"\xff\xd8":
            return None
        while True:
            b = f.read(1)
            if not b:
                return None
            if b != b"\xff":
                continue
            marker = f.read(1)
            while marker == b"\xff":  # fill bytes
                marker = f.read(1)
            m = marker[0] if marker else 0
            if m in (0xD8, 0x01) or 0xD0 <= m <= 0xD7:  # no length field
                continue
            length = struct.unpack(">H", f.read(2))[0]
            if 0xC0 <= m <= 0xCF and m not in (0xC4, 0xC8, 0xCC):  # SOFn
                h, w = struct.unpack(">xHH", f.read(5))
                return w, h
            f.seek(length - 2, 1)


def one(name):
    src = os.path.join(IN, name)
    size = jpeg_size(src)
    if size is None:
        return 1
    w, h = size
    # The box is square, so an EXIF rotation (which imread applies) changes
    # neither the scale nor the shrink factor.
    scale = (max if COVER else min)(BOX / w, BOX / h)
    scale = min(scale, 1.0)  # never larger than the input, as gpuimg
    tw, th = max(1, round(w * scale)), max(1, round(h * scale))
    shrink = 1 / scale
    factor = next((k for k in (8, 4, 2) if shrink / k >= 2), 1)
    img = cv2.imread(src, REDUCED[factor] if factor > 1 else cv2.IMREAD_COLOR)
    if img is None:
        return 1
    if w != h and (img.shape[1] > img.shape[0]) != (w > h):  # EXIF-rotated
        tw, th = th, tw
    if (img.shape[1], img.shape[0]) != (tw, th):
        img = cv2.resize(img, (tw, th), interpolation=cv2.INTER_AREA)
    if COVER:  # the centre NxN (or less, for a small input)
        cw, ch = min(BOX, tw), min(BOX, th)
        x, y = (tw - cw) // 2, (th - ch) // 2
        img = img[y:y + ch, x:x + cw]
    out = os.path.join(OUT, os.path.splitext(name)[0] + ".jpg")
    return 0 if cv2.imwrite(out, img, [cv2.IMWRITE_JPEG_QUALITY, 90]) else 1


if __name__ == "__main__":
    cv2.setNumThreads(1)  # one image per process, as the pool spreads them
    os.makedirs(OUT, exist_ok=True)
    names = sorted(n for n in os.listdir(IN) if n.lower().endswith((".jpg", ".jpeg")))
    with Pool(PROCS) as pool:
        failed = sum(pool.map(one, names, chunksize=1))
    sys.exit(1 if failed else 0)
