#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Issue 29's GPU decode figure: the JPEG files of IN_DIR, all read into
memory first, decoded onto the GPU in batches of BATCH and handed to
PyTorch through DLPack (gpuimg.decode, then torch.from_dlpack on each),
against torchvision's decode_jpeg(device="cuda") in the same batches on
the same bytes; one untimed batch warms each, then R timed rounds (median,
min); images/s of each, and a check that the two decodes agree.
Usage: python_decode.py IN_DIR [BATCH] [R]"""
import os
import statistics
import sys
import time

import numpy as np
import torch
from torchvision.io import decode_jpeg

import gpuimg

IN = sys.argv[1]
BATCH = int(sys.argv[2]) if len(sys.argv) > 2 else 32
R = int(sys.argv[3]) if len(sys.argv) > 3 else 3
names = sorted(n for n in os.listdir(IN) if n.lower().endswith((".jpg", ".jpeg")))
data = []
for n in names:
    with open(os.path.join(IN, n), "rb") as f:
        data.append(f.read())
tdata = [torch.frombuffer(bytearray(d), dtype=torch.uint8) for d in data]


def run_gpuimg():
    out = []
    for i in range(0, len(data), BATCH):
        out.extend(torch.from_dlpack(x) for x in gpuimg.decode(data[i:i + BATCH]))
    torch.cuda.synchronize()
    return out


def run_torchvision():
    out = []
    for i in range(0, len(tdata), BATCH):
        out.extend(decode_jpeg(tdata[i:i + BATCH], device="cuda"))
    torch.cuda.synchronize()
    return out


def timed(fn):
    fn()  # warm: handles, states, the memory pools
    times = []
    for _ in range(R):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
        del out
    return statistics.median(times), min(times)


g = timed(run_gpuimg)
t = timed(run_torchvision)
print(f"{len(names)} JPEGs, batches of {BATCH}, {R} rounds (median, min):")
print(f"  gpuimg.decode + torch.from_dlpack: {g[0]:.3f} s, {g[1]:.3f} s = "
      f"{len(names) / g[0]:.0f} images/s")
print(f"  torchvision decode_jpeg(cuda):     {t[0]:.3f} s, {t[1]:.3f} s = "
      f"{len(names) / t[0]:.0f} images/s")
print(f"  ratio (gpuimg images/s over torchvision's): {t[0] / g[0]:.2f}")
a = torch.from_dlpack(gpuimg.decode(data[:1])[0])
b = decode_jpeg(tdata[:1], device="cuda")[0]
d = (a.int() - b.int()).abs()
print(f"  first image: shapes {tuple(a.shape)} {tuple(b.shape)}, max |gpuimg - torchvision| "
      f"{int(d.max())}, mean {float(d.float().mean()):.4f}")
