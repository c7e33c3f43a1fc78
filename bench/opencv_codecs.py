#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""OpenCV's codecs on the files codec_bench reads, timed in process
(median of 5; encoding to memory with imencode). Usage:
opencv_codecs.py IN.png IN.jpg"""
import statistics
import sys
import time

import cv2


def ms(fn, reps=5):
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


png, jpg = sys.argv[1], sys.argv[2]
img = cv2.imread(png, cv2.IMREAD_UNCHANGED)
jimg = cv2.imread(jpg, cv2.IMREAD_UNCHANGED)
print(f"OpenCV {cv2.__version__}, {cv2.getNumThreads()} threads")
print(f"PNG decode (imread)                 {ms(lambda: cv2.imread(png, cv2.IMREAD_UNCHANGED)):10.1f}")
for level in (6, 1):
    size = len(cv2.imencode(".png", img, [cv2.IMWRITE_PNG_COMPRESSION, level])[1])
    t = ms(lambda: cv2.imencode(".png", img, [cv2.IMWRITE_PNG_COMPRESSION, level]), 1)
    print(f"PNG encode level {level} (imencode)       {t:10.1f} {size:12d}")
t = ms(lambda: cv2.imencode(".png", img), 3)
print(f"PNG encode, OpenCV's defaults       {t:10.1f} {len(cv2.imencode('.png', img)[1]):12d}")
print(f"JPEG decode (imread)                {ms(lambda: cv2.imread(jpg, cv2.IMREAD_UNCHANGED)):10.1f}")
size = len(cv2.imencode(".jpg", jimg, [cv2.IMWRITE_JPEG_QUALITY, 90])[1])
t = ms(lambda: cv2.imencode(".jpg", jimg, [cv2.IMWRITE_JPEG_QUALITY, 90]))
print(f"JPEG encode q90 (imencode)          {t:10.1f} {size:12d}")
