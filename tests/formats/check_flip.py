#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""FLIP (SPEC section 7, `compare --flip`) against NVIDIA's own
implementation, PyPI's flip-evaluator (`flip_evaluator.evaluate(ref, test,
"LDR")`, the default 67 pixels per degree), on the same pixels.

    /usr/bin/python3 tests/formats/check_flip.py build/gpuimg [WORKDIR]

flip-evaluator's wheel carries no test images (its repository's are
1920x1080), so the pairs are small ones of ours (at most 256x192, to stay
fast) and synthetic ones: noise, blur, edges shifted by a pixel, a colour
change, a gray JPEG round trip, RGBA composited over white (as gpuimg
does; flip-evaluator takes RGB), 16-bit gray, and an ignored rectangle
(gpuimg gives b a's values there and averages over the other pixels; the
reference is computed the same way from flip-evaluator's map).

gpuimg's mean must be within 1e-4 of flip-evaluator's (its returned mean, a
float sum), p95 and p99 within 1e-3 of the weighted percentiles of
flip-evaluator's map as its tool defines them (FLIPPooling's
getPercentile(p, weighted=true): the first value of the sorted map whose
running float sum exceeds p times the total). Runs on GPUIMG_BACKEND (cpu
by default). Prints PASS/FAIL lines; exit 1 on a failure; SKIP without
flip-evaluator.
"""
import io
import json
import os
import subprocess
import sys
import tempfile

import numpy as np
from PIL import Image, ImageFilter

try:
    import flip_evaluator as flip
except ImportError:
    print("SKIP: FLIP cross-check (no flip-evaluator: pip install flip-evaluator)")
    sys.exit(0)

GPUIMG = os.path.abspath(sys.argv[1])
WORK = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp(prefix="gpuimg-flip-")
os.makedirs(WORK, exist_ok=True)
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
BACKEND = os.environ.get("GPUIMG_BACKEND", "cpu")
failed = []


def path(name):
    return os.path.join(WORK, name)


def gpuimg_flip(a, b, *extra):
    """The `flip` object of gpuimg compare's JSON record."""
    env = dict(os.environ, GPUIMG_BACKEND=BACKEND)
    r = subprocess.run((GPUIMG, "compare", a, b, "--flip", "--json") + extra, env=env,
                       capture_output=True, text=True)
    if r.returncode not in (0, 1):
        raise RuntimeError("gpuimg compare %s %s: exit %d: %s" % (a, b, r.returncode, r.stderr))
    return json.loads(r.stdout)["flip"]


def as_float(img):
    """An image as flip-evaluator takes it: H x W x 3 float32 in [0, 1],
    each value v / 255 (or / 65535) in float32, as its own loader makes
    them; gray replicated; alpha composited over white, c a + (1 - a), in
    float32 as gpuimg does."""
    arr = np.asarray(img)
    top = np.float32(65535 if arr.dtype == np.uint16 or img.mode.startswith("I") else 255)
    v = arr.astype(np.float32) / top
    if v.ndim == 2:
        v = np.stack([v] * 3, axis=-1)
    if v.shape[2] == 2:
        v = np.concatenate([np.stack([v[..., 0]] * 3, axis=-1), v[..., 1:2]], axis=-1)
    if v.shape[2] == 4:
        a = v[..., 3:4]
        v = v[..., :3] * a + (np.float32(1) - a)
    return np.ascontiguousarray(v, dtype=np.float32)


def weighted_percentile(values, p):
    """FLIPPooling::getPercentile(p, true): float32 running sums."""
    total = np.cumsum(values, dtype=np.float32)[-1]  # in the map's order, as update() adds
    s = np.sort(values)
    run = np.cumsum(s, dtype=np.float32)  # sequential, as the tool's loop
    over = np.nonzero(run > np.float32(p) * total)[0]
    return float(s[over[0]]) if len(over) else 0.0


def reference(a_img, b_img, ignore=None):
    ra, rb = as_float(a_img), as_float(b_img)
    if ignore is not None:  # gpuimg's rule: b takes a's values where ignored
        x, y, w, h = ignore
        rb = rb.copy()
        rb[y:y + h, x:x + w] = ra[y:y + h, x:x + w]
    m, mean, _ = flip.evaluate(ra, rb, "LDR", applyMagma=False)
    m = np.asarray(m, dtype=np.float32).reshape(ra.shape[0], ra.shape[1])
    keep = np.ones(m.shape, bool)
    if ignore is not None:
        keep[y:y + h, x:x + w] = False
        mean = float(np.mean(m[keep], dtype=np.float64))
    vals = m[keep].ravel()
    return float(mean), weighted_percentile(vals, 0.95), weighted_percentile(vals, 0.99)


def check(name, a_img, b_img, ignore=None):
    a_path, b_path = path(name + "_a.png"), path(name + "_b.png")
    a_img.save(a_path)
    b_img.save(b_path)
    extra = ("--ignore", "%d,%d,%d,%d" % ignore) if ignore else ()
    got = gpuimg_flip(a_path, b_path, *extra)
    mean, p95, p99 = reference(Image.open(a_path), Image.open(b_path), ignore)
    line = "%s %dx%d: mean %.6f (flip-evaluator %.6f) p95 %.6f (%.6f) p99 %.6f (%.6f); " \
        "|diff| %.1e %.1e %.1e" % (
            name, a_img.width, a_img.height, got["mean"], mean, got["p95"], p95, got["p99"], p99,
            abs(got["mean"] - mean), abs(got["p95"] - p95), abs(got["p99"] - p99))
    if abs(got["mean"] - mean) <= 1e-4 and abs(got["p95"] - p95) <= 1e-3 and \
            abs(got["p99"] - p99) <= 1e-3:
        print("PASS flip " + line)
    else:
        print("FAIL flip " + line)
        failed.append(name)


def sample(name, box):
    with Image.open(os.path.join(ROOT, "samples", name)) as im:
        return im.convert("RGB").crop(box)


def main():
    rng = np.random.default_rng(28)
    # a photograph against its blur
    astro = sample("astronaut.png", (100, 50, 356, 242))
    check("astronaut_blur", astro, astro.filter(ImageFilter.GaussianBlur(1.5)))
    # a photograph with noise (sigma 8 levels)
    coffee = sample("coffee.png", (150, 100, 310, 220))
    noisy = np.clip(np.asarray(coffee, np.float64) + rng.normal(0, 8, (120, 160, 3)), 0, 255)
    check("coffee_noise", coffee, Image.fromarray(noisy.round().astype(np.uint8)))
    # synthetic edges (bars and a box) shifted right by one pixel
    edges = np.full((96, 128, 3), 240, np.uint8)
    for k in range(6):
        edges[10 + 12 * k:16 + 12 * k, 8:60] = (20 * k, 40, 200 - 30 * k)
    edges[20:80, 80:120] = (10, 10, 10)
    shifted = np.roll(edges, 1, axis=1)
    check("edges_shift1", Image.fromarray(edges), Image.fromarray(shifted))
    # a colour change of a UI screenshot (the compare goldens)
    with Image.open(os.path.join(ROOT, "tests/golden/inputs/ui_96x64_rgb.png")) as a, \
            Image.open(os.path.join(ROOT, "tests/golden/inputs/ui_96x64_rgb_recolor.png")) as b:
        check("ui_recolor", a.convert("RGB"), b.convert("RGB"))
    # gray: a JPEG round trip at quality 30
    camera = Image.open(os.path.join(ROOT, "samples/camera.png")).convert("L").crop((0, 0, 200, 150))
    buf = io.BytesIO()
    camera.save(buf, "JPEG", quality=30)
    check("camera_gray_jpeg30", camera, Image.open(io.BytesIO(buf.getvalue())).convert("L"))
    # RGBA: half-transparent shapes, composited over white on both sides
    with Image.open(os.path.join(ROOT, "tests/golden/inputs/ui_96x64_rgba.png")) as a, \
            Image.open(os.path.join(ROOT, "tests/golden/inputs/ui_96x64_rgba_b.png")) as b:
        check("ui_rgba", a.convert("RGBA"), b.convert("RGBA"))
    # 16-bit gray: a smooth ramp against it with a faint bump
    yy, xx = np.mgrid[0:90, 0:120]
    ramp = (xx * 500 + yy * 60).astype(np.uint16)
    bump = ramp + (3000 * np.exp(-((xx - 60) ** 2 + (yy - 45) ** 2) / 200.0)).astype(np.uint16)
    check("ramp16_bump", Image.fromarray(ramp), Image.fromarray(bump))
    # an ignored rectangle over a changed clock, and a change elsewhere
    clock = np.asarray(astro).copy()
    clock[20:40, 200:250] = 255 - clock[20:40, 200:250]
    clock[150:160, 30:60] = (200, 30, 30)
    check("astronaut_ignored", astro, Image.fromarray(clock), ignore=(195, 15, 60, 30))
    if failed:
        print("FAIL: %d FLIP pair(s): %s" % (len(failed), ", ".join(failed)))
        sys.exit(1)


main()
