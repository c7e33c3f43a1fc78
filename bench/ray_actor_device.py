#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What one GPU actor of a Ray Data pipeline does, without Ray (which the
GPU machine cannot install): gpuimg.ray.Steps(STEP, backend="cuda",
workers=W)() called on batches of BATCH rows of file bytes, as
map_batches calls it, over the files of IN_DIR; one untimed batch first
(the actor's start), then R timed rounds (median, min) with the files read
inside the timing (Ray's read tasks would read them). Prints files/s, and
checks every output against OUT_DIR (a `gpuimg batch` of the same files and
step) byte for byte.
Usage: ray_actor_device.py IN_DIR OUT_DIR STEP [BATCH] [W] [R]"""
import os
import statistics
import sys
import time

import numpy as np

import gpuimg.ray

IN, OUT, STEP = sys.argv[1], sys.argv[2], sys.argv[3]
BATCH = int(sys.argv[4]) if len(sys.argv) > 4 else 64
W = int(sys.argv[5]) if len(sys.argv) > 5 else os.cpu_count()
R = int(sys.argv[6]) if len(sys.argv) > 6 else 3
paths = [os.path.join(IN, n) for n in sorted(os.listdir(IN))
         if n.lower().endswith(tuple("." + e for e in gpuimg.ray.EXTENSIONS))]
actor = gpuimg.ray.Steps(STEP, backend="cuda", workers=W)()


def batches():
    for i in range(0, len(paths), BATCH):
        chunk = paths[i:i + BATCH]
        data = []
        for p in chunk:
            with open(p, "rb") as f:
                data.append(f.read())
        yield {"bytes": np.array(data + [None], dtype=object)[:-1], "path": np.array(chunk)}


actor(next(batches()))  # the actor's start: contexts, CUDA, nvJPEG
times, outputs = [], None
for _ in range(R):
    t0 = time.perf_counter()
    outputs = [actor(b) for b in batches()]
    times.append(time.perf_counter() - t0)
med = statistics.median(times)
print(f"one actor, Steps({STEP!r}), {W} workers, batches of {BATCH}: {len(paths)} files in "
      f"{med:.3f} s median ({min(times):.3f} min) = {len(paths) / med:.0f} files/s")
same = errors = 0
for out in outputs:
    for p, data, err in zip(out["path"], out["bytes"], out["error"]):
        errors += err is not None
        with open(os.path.join(OUT, os.path.basename(p)), "rb") as f:
            same += data is not None and bytes(data) == f.read()
print(f"  {same} of {len(paths)} outputs equal gpuimg batch's byte for byte; {errors} errors")
