#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The Python side of bench/run_call.c: gpuimg.run(array, STEP) on the same
image, loaded as a NumPy array, N times after one untimed run; prints the
median and minimum in milliseconds.
Usage: python_run.py IMAGE STEP N [backend]"""
import sys
import time

import gpuimg

path, step, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
backend = sys.argv[4] if len(sys.argv) > 4 else None
ctx = gpuimg.Context(backend or "auto")
img = ctx.load(path)
ms = []
for i in range(-1, n):
    t0 = time.perf_counter()
    out = ctx.run(img, step)
    if i >= 0:
        ms.append((time.perf_counter() - t0) * 1e3)
    del out
ms.sort()
print(f"Python gpuimg.run {step}: median {ms[n // 2]:.1f} ms, min {ms[0]:.1f} ms ({n} runs)")
