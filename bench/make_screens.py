#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Screenshot-like PNG pairs for the golden-image benchmark: N pages of
WIDTH x HEIGHT with flat panels, rows of text-like glyphs and anti-aliased
shapes (4x4 supersampled), written to OUT/goldens and OUT/renders. Most
renders equal their golden; every 10th is drawn at a sub-pixel offset (the
anti-aliasing noise of another renderer); every 25th has one panel
recoloured (a real change); every 50th has a footer line of text changed.
Usage: make_screens.py OUT N [WIDTH HEIGHT]"""
import os
import sys
from multiprocessing import Pool

import numpy as np
from PIL import Image

OUT, N = sys.argv[1], int(sys.argv[2])
W, H = (int(sys.argv[3]), int(sys.argv[4])) if len(sys.argv) > 4 else (1280, 720)


def page(seed, sub=0.0, recolor=False, footer=0):
    rng = np.random.default_rng(seed)
    img = Image.new("RGB", (W, H), (246, 247, 249))
    a = np.asarray(img, dtype=np.float64).copy()
    ss = 4
    # flat panels (whole-pixel edges)
    panels = []
    for k in range(6):
        x, y = int(rng.integers(0, W - 300)), int(rng.integers(60, H - 200))
        w, h = int(rng.integers(120, 300)), int(rng.integers(40, 160))
        c = rng.integers(30, 230, 3).astype(np.float64)
        if recolor and k == 0:
            c = 255 - c
        a[y:y + h, x:x + w] = c
        panels.append((x, y, w, h))
    # text rows: glyph bars with sub-pixel edges, rendered supersampled
    def glyphs(x0, y0, count, seed2, shade):
        r2 = np.random.default_rng(seed2)
        gw, gh = 8 * count + 8, 14
        yy, xx = np.mgrid[0:gh * ss, 0:gw * ss]
        cx, cy = (xx + 0.5) / ss - sub, (yy + 0.5) / ss - sub * 0.7
        ink = np.zeros(xx.shape, bool)
        for i in range(count):
            left = 4 + 8 * i + r2.uniform(0, 1.5)
            width = r2.uniform(2.2, 5.5)
            top = 2 + r2.uniform(0, 3)
            ink |= (cx >= left) & (cx < left + width) & (cy >= top) & (cy < 12.3)
        cov = ink.reshape(gh, ss, gw, ss).mean(axis=(1, 3))[:, :, None]
        region = a[y0:y0 + gh, x0:x0 + gw]
        if region.shape[:2] == cov.shape[:2]:
            a[y0:y0 + gh, x0:x0 + gw] = region * (1 - cov) + shade * cov
    for row in range(12):
        glyphs(40, 40 + 50 * row, int(rng.integers(20, 60)), seed * 100 + row, 30.0)
    glyphs(40, H - 30, 30, seed * 100 + 99 + footer, 90.0)  # the footer line
    # an anti-aliased circle
    cx0, cy0, r = W - 200 + sub, 120 + sub, 60
    y0, x0 = int(cy0 - r - 2), int(cx0 - r - 2)
    yy, xx = np.mgrid[0:(2 * r + 4) * ss, 0:(2 * r + 4) * ss]
    d = np.hypot(x0 + (xx + 0.5) / ss - cx0, y0 + (yy + 0.5) / ss - cy0)
    cov = (d <= r).reshape(2 * r + 4, ss, 2 * r + 4, ss).mean(axis=(1, 3))[:, :, None]
    reg = a[y0:y0 + 2 * r + 4, x0:x0 + 2 * r + 4]
    a[y0:y0 + 2 * r + 4, x0:x0 + 2 * r + 4] = reg * (1 - cov) + np.array([220, 80, 60]) * cov
    return Image.fromarray(np.clip(np.round(a), 0, 255).astype(np.uint8))


def one(i):
    name = "screen%04d.png" % i
    page(i).save(os.path.join(OUT, "goldens", name), compress_level=6)
    render = page(i, sub=0.3 if i % 10 == 3 else 0.0, recolor=i % 25 == 7,
                  footer=1 if i % 50 == 11 else 0)
    render.save(os.path.join(OUT, "renders", name), compress_level=6)


if __name__ == "__main__":
    os.makedirs(os.path.join(OUT, "goldens"), exist_ok=True)
    os.makedirs(os.path.join(OUT, "renders"), exist_ok=True)
    with Pool(os.cpu_count()) as pool:
        pool.map(one, range(N))
