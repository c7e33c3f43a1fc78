#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Whole-process wall time of a command: N runs (after one untimed run
that warms the page cache), printed as LABEL median min max (seconds).
Usage: wall.py LABEL N CMD..."""
import statistics
import subprocess
import sys
import time

label, n, cmd = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
times = []
for _ in range(n):
    t0 = time.monotonic()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, check=True)
    times.append(time.monotonic() - t0)
print(f"{label:34s} {statistics.median(times):7.3f} {min(times):7.3f} {max(times):7.3f}",
      flush=True)
