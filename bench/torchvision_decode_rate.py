#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The ceiling gpuimg's batch is held to (issue 26): nvJPEG's batched
decode, as torchvision drives it, on the same files. All files are read
into memory first, one batch decodes to warm the decoder, then every file
is decoded in batches of BATCH (device="cuda", synchronized), and encoded
back at quality 90; prints images/s of each.
Usage: torchvision_decode_rate.py IN_DIR [BATCH]"""
import os
import sys
import time

import torch
from torchvision.io import decode_jpeg, encode_jpeg, read_file

IN = sys.argv[1]
BATCH = int(sys.argv[2]) if len(sys.argv) > 2 else 32
names = sorted(n for n in os.listdir(IN) if n.lower().endswith((".jpg", ".jpeg")))
data = [read_file(os.path.join(IN, n)) for n in names]
decode_jpeg(data[:BATCH], device="cuda")  # warm: handles, states, buffers
torch.cuda.synchronize()
t0 = time.monotonic()
images = []
for i in range(0, len(data), BATCH):
    images.extend(decode_jpeg(data[i:i + BATCH], device="cuda"))
torch.cuda.synchronize()
dec = time.monotonic() - t0
encode_jpeg(images[:BATCH], quality=90)
torch.cuda.synchronize()
t0 = time.monotonic()
for i in range(0, len(images), BATCH):
    encode_jpeg(images[i:i + BATCH], quality=90)
torch.cuda.synchronize()
enc = time.monotonic() - t0
print(f"torchvision nvJPEG, {len(names)} files, batches of {BATCH}: decode "
      f"{len(names) / dec:.0f} images/s, encode q90 {len(names) / enc:.0f} images/s")
