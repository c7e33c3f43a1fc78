#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""libvips (through pyvips; PyPI's pyvips-binary) doing what `gpuimg batch
IN OUT thumbnail:size=1024 --format jpg --jpeg-quality 90` does (or, with
--cover N, `thumbnail:size=NxN,crop`), with a pool of processes:
pyvips.Image.thumbnail(path, N) (shrink on load, then libvips' own resize;
--cover: height N too and crop="centre"), written as JPEG Q 90.
Each process runs libvips on one thread (VIPS_CONCURRENCY=1 unless set:
the pool already has one image per core) with the operation cache off
(the 400 inputs are 100 files under 4 names each; no run may reuse one).
Usage: vips_thumbnail.py IN_DIR OUT_DIR PROCESSES [--size N | --cover N]"""
import os
import sys
from multiprocessing import Pool

os.environ.setdefault("VIPS_CONCURRENCY", "1")  # read when libvips starts
import pyvips  # noqa: E402  (after the environment is set)

IN, OUT, PROCS = sys.argv[1], sys.argv[2], int(sys.argv[3])
COVER = "--cover" in sys.argv
BOX = int(sys.argv[sys.argv.index("--cover" if COVER else "--size") + 1]) \
    if ("--cover" in sys.argv or "--size" in sys.argv) else 1024


def one(name):
    try:
        if COVER:
            img = pyvips.Image.thumbnail(os.path.join(IN, name), BOX, height=BOX,
                                         crop="centre")
        else:  # fit inside BOX x BOX: width BOX, height BOX too (not unbounded)
            img = pyvips.Image.thumbnail(os.path.join(IN, name), BOX, height=BOX)
        img.write_to_file(os.path.join(OUT, os.path.splitext(name)[0] + ".jpg"), Q=90)
        return 0
    except pyvips.Error as e:
        print(f"vips_thumbnail.py: {name}: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    pyvips.cache_set_max(0)
    os.makedirs(OUT, exist_ok=True)
    names = sorted(n for n in os.listdir(IN) if n.lower().endswith((".jpg", ".jpeg")))
    with Pool(PROCS) as pool:
        failed = sum(pool.map(one, names, chunksize=1))
    sys.exit(1 if failed else 0)
