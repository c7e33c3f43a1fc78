#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""OpenCV doing what `gpuimg blur IN OUT` does, as one process: imread,
GaussianBlur (13 taps, sigma 2, reflect101: SPEC's blur), imwrite at
gpuimg's default settings (PNG level 6, JPEG quality 90), or with
--opencv-defaults at OpenCV's own (PNG level 1, JPEG 95).
Usage: opencv_blur.py IN OUT [--opencv-defaults]"""
import sys

import cv2

src, dst = sys.argv[1], sys.argv[2]
img = cv2.imread(src, cv2.IMREAD_UNCHANGED)
if img is None:
    sys.exit(1)
img = cv2.GaussianBlur(img, (13, 13), 2.0, borderType=cv2.BORDER_REFLECT_101)
if "--opencv-defaults" in sys.argv:
    params = []
elif dst.endswith(".png"):
    params = [cv2.IMWRITE_PNG_COMPRESSION, 6]
else:
    params = [cv2.IMWRITE_JPEG_QUALITY, 90]
sys.exit(0 if cv2.imwrite(dst, img, params) else 1)
