#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""One stage of `gpuimg --time` (the operation alone: "kernels"), the
median of N runs after one untimed run, printed as LABEL median min max
(milliseconds). Usage: stage_ms.py LABEL N STAGE GPUIMG ARGS..."""
import re
import statistics
import subprocess
import sys

label, n, stage, cmd = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
cmd = [cmd[0], "--time"] + cmd[1:]


def once():
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if p.returncode not in (0, 1):  # compare exits 1 when the pair differs
        sys.exit(f"{label}: exit {p.returncode}: {p.stderr.strip()}")
    m = re.search(r"\b" + re.escape(stage) + r" ([0-9.]+) ms", p.stderr)
    if not m:
        sys.exit(f"{label}: no '{stage}' stage in: {p.stderr.strip()}")
    return float(m.group(1))


once()
ms = [once() for _ in range(n)]
print(f"{label:34s} {statistics.median(ms):8.1f} {min(ms):8.1f} {max(ms):8.1f}", flush=True)
