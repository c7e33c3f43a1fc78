#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Runs a command; prints its wall time and peak resident memory (of the
process and its children), as: LABEL wall_s rss_mib exit_code."""
import resource
import subprocess
import sys
import time

label, cmd = sys.argv[1], sys.argv[2:]
t0 = time.monotonic()
rc = subprocess.call(cmd, stdout=subprocess.DEVNULL)
wall = time.monotonic() - t0
rss_kib = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(f"{label} {wall:.2f} {rss_kib / 1024:.0f} {rc}", flush=True)
