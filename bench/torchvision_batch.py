#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""torchvision's GPU JPEG pipeline doing what `gpuimg batch IN OUT
blur:sigma=2` does to a folder of JPEGs, as a PyTorch user would write it:
files read on the CPU, decode_jpeg(device="cuda") a batch at a time,
gaussian_blur (13 taps, sigma 2, reflect: SPEC's reflect101) on the GPU,
encode_jpeg on the GPU at quality 90, files written.
Usage: torchvision_batch.py IN_DIR OUT_DIR [BATCH]"""
import os
import sys

import torch
from torchvision.io import decode_jpeg, encode_jpeg, read_file, write_file
from torchvision.transforms.v2.functional import gaussian_blur

IN, OUT = sys.argv[1], sys.argv[2]
BATCH = int(sys.argv[3]) if len(sys.argv) > 3 else 32
os.makedirs(OUT, exist_ok=True)
names = sorted(n for n in os.listdir(IN) if n.lower().endswith((".jpg", ".jpeg")))
for i in range(0, len(names), BATCH):
    chunk = names[i:i + BATCH]
    images = decode_jpeg([read_file(os.path.join(IN, n)) for n in chunk], device="cuda")
    blurred = [gaussian_blur(img, kernel_size=[13, 13], sigma=[2.0, 2.0]) for img in images]
    for n, data in zip(chunk, encode_jpeg(blurred, quality=90)):
        write_file(os.path.join(OUT, n), data.cpu())
torch.cuda.synchronize()
