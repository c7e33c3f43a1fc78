#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""OpenCV doing what `gpuimg batch IN OUT blur:sigma=2` does, with a pool of
processes: imread, GaussianBlur (13 taps, sigma 2, reflect101: SPEC's blur),
imwrite in the input's format at gpuimg's default settings (PNG level 6,
JPEG quality 90). Usage: opencv_batch.py IN_DIR OUT_DIR PROCESSES [--no-blur]"""
import os
import sys
from multiprocessing import Pool

import cv2

IN, OUT, PROCS = sys.argv[1], sys.argv[2], int(sys.argv[3])
BLUR = "--no-blur" not in sys.argv


def one(name):
    img = cv2.imread(os.path.join(IN, name), cv2.IMREAD_UNCHANGED)
    if img is None:
        return 1
    if BLUR:
        img = cv2.GaussianBlur(img, (13, 13), 2.0, borderType=cv2.BORDER_REFLECT_101)
    params = ([cv2.IMWRITE_PNG_COMPRESSION, 6] if name.endswith(".png")
              else [cv2.IMWRITE_JPEG_QUALITY, 90])
    return 0 if cv2.imwrite(os.path.join(OUT, name), img, params) else 1


if __name__ == "__main__":
    cv2.setNumThreads(1)  # one image per process, as the pool spreads them
    os.makedirs(OUT, exist_ok=True)
    names = sorted(n for n in os.listdir(IN) if n.endswith((".png", ".jpg")))
    with Pool(PROCS) as pool:
        failed = sum(pool.map(one, names, chunksize=1))
    sys.exit(1 if failed else 0)
