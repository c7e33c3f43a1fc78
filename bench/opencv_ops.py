#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""OpenCV's equivalent of each gpuimg operation on one image, in one
process, as a user's script would call it (cv2 from Debian, every thread
it is given): the median of N timed calls after one untimed call, in
milliseconds, as LABEL median min max. The image is read once, outside
the timing. Usage: opencv_ops.py IMAGE N [THREADS]"""
import statistics
import sys
import time

import cv2
import numpy as np

path, n = sys.argv[1], int(sys.argv[2])
if len(sys.argv) > 3:
    cv2.setNumThreads(int(sys.argv[3]))
img = cv2.imread(path, cv2.IMREAD_UNCHANGED)
B = cv2.BORDER_REFLECT_101
k5 = np.outer([1, 4, 6, 4, 1], [1, 4, 6, 4, 1]).astype(np.float32) / 256  # gaussian5


def sobel_magnitude(a):
    gx = cv2.Sobel(a, cv2.CV_32F, 1, 0, ksize=3, borderType=B)
    gy = cv2.Sobel(a, cv2.CV_32F, 0, 1, ksize=3, borderType=B)
    return cv2.convertScaleAbs(cv2.magnitude(gx, gy))


def histogram(a):
    return [cv2.calcHist([a], [c], None, [256], [0, 256]) for c in range(a.shape[2])]


def stats(a):
    mean, std = cv2.meanStdDev(a)
    return mean, std, [cv2.minMaxLoc(a[:, :, c]) for c in range(a.shape[2])]


imgf = img.astype(np.float32)  # for the call in float32, gpuimg's arithmetic


def float_blur(a):
    return cv2.GaussianBlur(imgf, (13, 13), 2.0, borderType=B)


ops = [
    ("blur sigma=2 (GaussianBlur 13x13)", lambda a: cv2.GaussianBlur(a, (13, 13), 2.0, borderType=B)),
    ("blur sigma=2 in float32 (the same call)", float_blur),
    ("box radius=7 (blur 15x15)", lambda a: cv2.blur(a, (15, 15), borderType=B)),
    ("convolve 5x5 (filter2D)", lambda a: cv2.filter2D(a, -1, k5, borderType=B)),
    ("sobel (Sobel x, y, magnitude)", sobel_magnitude),
    ("rotate 90 (rotate)", lambda a: cv2.rotate(a, cv2.ROTATE_90_CLOCKWISE)),
    ("flip h (flip)", lambda a: cv2.flip(a, 1)),
    ("histogram (calcHist x3)", histogram),
    ("stats (meanStdDev, minMaxLoc x3)", stats),
]
for label, f in ops:
    f(img)
    ms = []
    for _ in range(n):
        t0 = time.perf_counter()
        f(img)
        ms.append((time.perf_counter() - t0) * 1e3)
    print(f"opencv {label:34s} {statistics.median(ms):8.1f} {min(ms):8.1f} {max(ms):8.1f}",
          flush=True)
