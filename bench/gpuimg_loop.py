#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""gpuimg's Python binding over the pairs of two folders, the way
bench/blazediff_loop.py calls blazediff: gpuimg.compare(golden, render,
threshold=0.1, antialiasing=True) for each pair in one Python loop (issue
29's target: no slower than blazediff's loop). Prints the number of pairs
that differ, for a check against blazediff's count.
Usage: gpuimg_loop.py GOLDENS RENDERS"""
import os
import sys

import gpuimg


def main():
    goldens, renders = sys.argv[1], sys.argv[2]
    differ = total = 0
    for f in sorted(os.listdir(goldens)):
        if f.endswith(".png"):
            r = gpuimg.compare(os.path.join(goldens, f), os.path.join(renders, f),
                               threshold=0.1, antialiasing=True)
            differ += not r.passed
            total += 1
    print("gpuimg.compare: %d of %d pairs differ" % (differ, total))


if __name__ == "__main__":
    main()
