#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""libvips (through pyvips; with PyPI's pyvips-binary, libvips 8.18) doing
what `gpuimg blur IN OUT` does, as one process: gaussblur sigma 2 with
min_ampl 0.011 (13 taps, SPEC's radius 6; libvips' default, 0.2, gives 7)
in float precision (gpuimg's arithmetic; --integer: libvips' own default
for 8-bit images), saved at gpuimg's settings: JPEG Q 90, PNG level 6 with
every filter (gpuimg picks a filter per row, as libpng's "all" does).
Usage: vips_blur.py IN OUT [--integer]"""
import sys

import pyvips

src, dst = sys.argv[1], sys.argv[2]
precision = "integer" if "--integer" in sys.argv else "float"
img = pyvips.Image.new_from_file(src, access="sequential")
out = img.gaussblur(2, min_ampl=0.011, precision=precision).cast(img.format)
if dst.endswith(".png"):
    out.pngsave(dst, compression=6, filter="all")
else:
    out.jpegsave(dst, Q=90)
