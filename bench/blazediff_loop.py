#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""blazediff (PyPI, Rust with SIMD and its own PNG codec) over the pairs of
two folders, as a CI script would call it: `--threshold 0.1 --antialiasing`
each pair, in one Python loop or a process pool (--pool N: one worker per
core, the fastest way to run it on a many-core machine). Prints the number
of pairs that differ, for a check against gpuimg's count.
Usage: blazediff_loop.py GOLDENS RENDERS [--pool N] [--plain]"""
import os
import sys
from multiprocessing import Pool

import blazediff

PLAIN = "--plain" in sys.argv


def one(pair):
    a, b = pair
    if PLAIN:
        r = blazediff.compare(a, b)
    else:
        r = blazediff.compare(a, b, threshold=0.1, antialiasing=True)
    return 0 if r.match_result else 1


def main():
    goldens, renders = sys.argv[1], sys.argv[2]
    pool = int(sys.argv[sys.argv.index("--pool") + 1]) if "--pool" in sys.argv else 0
    pairs = [(os.path.join(goldens, f), os.path.join(renders, f))
             for f in sorted(os.listdir(goldens)) if f.endswith(".png")]
    if pool > 1:
        with Pool(pool) as p:
            differ = sum(p.map(one, pairs, chunksize=4))
    else:
        differ = sum(one(x) for x in pairs)
    print("blazediff: %d of %d pairs differ" % (differ, len(pairs)))


if __name__ == "__main__":
    main()
