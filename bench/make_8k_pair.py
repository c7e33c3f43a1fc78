#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The 8K pair the comparison benchmarks use: the photograph resized to
7680x4320 (A), and A with 1% of its pixels moved by up to 3 levels and a
300x100 block inverted (B), both PNG level 6.
Usage: make_8k_pair.py PHOTO A.png B.png"""
import sys

import numpy as np
from PIL import Image

photo, out_a, out_b = sys.argv[1], sys.argv[2], sys.argv[3]
im = Image.open(photo).convert("RGB").resize((7680, 4320), Image.LANCZOS)
im.save(out_a, compress_level=6)
a = np.asarray(im).astype(np.int16)
rng = np.random.default_rng(7)
sel = rng.random(a.shape[:2]) < 0.01
a[sel] += rng.integers(-3, 4, (int(sel.sum()), 3)).astype(np.int16)
a[2000:2100, 3000:3300] = 255 - a[2000:2100, 3000:3300]
Image.fromarray(np.clip(a, 0, 255).astype(np.uint8)).save(out_b, compress_level=6)
