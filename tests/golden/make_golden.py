#!/usr/bin/python3
"""Regenerate gpuimg's golden-image test data (tests/golden/).

An independent float64 NumPy/SciPy implementation of SPEC.md section 3.  It
never calls gpuimg.  Run with Debian's interpreter (python3-numpy,
python3-scipy, python3-skimage, python3-pil):

    /usr/bin/python3 tests/golden/make_golden.py

Everything is deterministic (fixed seeds, fixed crops of skimage.data images);
running it again rewrites inputs/, kernels/, expected/ and manifest.tsv with
the same bytes.

manifest.tsv: one case per line, TAB-separated
    id  input  step  expected  tol
paths relative to tests/golden/; `step` is gpuimg's STEP syntax; tol is
    exact  every value (or every JSON number) identical
    near   no value differs by more than 1, at most 0.1% of values differ by 1
    float  JSON numbers equal to a relative/absolute tolerance (compare,
           stats: integers are exact; stats' stddev may differ from a double
           sqrt(sumsq/N - mean^2) in the last few bits, so compare floats
           with a relative tolerance of about 1e-12 for stats, 1e-9 for
           compare)
"""

import json
import math
import os
import shutil
import sys
from decimal import Decimal, getcontext
from fractions import Fraction

import numpy as np
import scipy.ndimage as ndi
from PIL import Image
import skimage
import skimage.data
from skimage.metrics import structural_similarity

HERE = os.path.dirname(os.path.abspath(__file__))
DIRS = ("inputs", "kernels", "expected", "formats")
BORDERS = ("reflect101", "reflect", "replicate", "wrap", "constant")
SCIPY_MODE = {"reflect101": "mirror", "reflect": "reflect",
              "replicate": "nearest", "wrap": "wrap", "constant": "constant"}

getcontext().prec = 60


# ----------------------------------------------------------------------------
# PNG I/O
# ----------------------------------------------------------------------------

MODES = {1: "L", 2: "LA", 3: "RGB", 4: "RGBA"}


def as_hwc(a):
    a = np.asarray(a)
    if a.ndim == 2:
        a = a[:, :, None]
    return a


def write_png(rel, img):
    img = as_hwc(img)
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[2] in MODES
    c = img.shape[2]
    pil = Image.fromarray(img[:, :, 0] if c == 1 else img, MODES[c])
    path = os.path.join(HERE, rel)
    pil.save(path, optimize=True)
    back = read_png(rel)
    assert back.shape == img.shape and np.array_equal(back, img), rel
    return rel


def read_png(rel):
    with Image.open(os.path.join(HERE, rel)) as im:
        assert im.mode in MODES.values(), (rel, im.mode)
        return as_hwc(np.array(im))


def write_json(rel, obj):
    with open(os.path.join(HERE, rel), "w") as f:
        f.write(json.dumps(obj) + "\n")
    return rel


# ----------------------------------------------------------------------------
# SPEC section 3: arithmetic
# ----------------------------------------------------------------------------

def round_store(v):
    """clamp(floor(v + 0.5), 0, 255) as uint8."""
    return np.clip(np.floor(v + 0.5), 0, 255).astype(np.uint8)


def bmap(idx, n, mode):
    """Map integer indices (any offset) into [0, n); the value n stands for
    'outside, reads 0' (constant mode).  A side of length 1 maps every index
    to 0 in the mapping modes."""
    idx = np.asarray(idx, dtype=np.int64)
    if mode == "constant":
        return np.where((idx < 0) | (idx >= n), n, idx)
    if n == 1:
        return np.zeros_like(idx)
    if mode == "replicate":
        return np.clip(idx, 0, n - 1)
    if mode == "wrap":
        return np.mod(idx, n)
    if mode == "reflect101":        # dcb|abcd|cba, period 2n-2
        p = 2 * n - 2
        m = np.mod(idx, p)
        return np.where(m >= n, p - m, m)
    if mode == "reflect":           # cba|abcd|dcb, period 2n
        p = 2 * n
        m = np.mod(idx, p)
        return np.where(m >= n, p - 1 - m, m)
    raise ValueError(mode)


def extend(img):
    """float64 HxWxC image with one extra zero row and column (index H / W),
    the target of bmap's 'outside' index in constant mode."""
    h, w, c = img.shape
    e = np.zeros((h + 1, w + 1, c), dtype=np.float64)
    e[:h, :w] = img
    return e


def correlate2d(img, K, mode):
    """out(y,x) = sum_i sum_j K[i][j] * in(y+i-cy, x+j-cx), float64, HxWxC."""
    img = as_hwc(img).astype(np.float64)
    K = np.asarray(K, dtype=np.float64)
    h, w, _ = img.shape
    kh, kw = K.shape
    cy, cx = kh // 2, kw // 2
    rows = bmap(np.arange(-cy, h + cy), h, mode)
    cols = bmap(np.arange(-cx, w + cx), w, mode)
    pad = extend(img)[rows][:, cols]
    acc = np.zeros(img.shape, dtype=np.float64)
    for i in range(kh):
        for j in range(kw):
            if K[i, j] != 0.0:
                acc += K[i, j] * pad[i:i + h, j:j + w]
    return acc


def correlate_sep(img, wv, wh, mode):
    """Separable correlation: horizontal pass with wh, then vertical with wv,
    float64 intermediate (never rounded)."""
    img = as_hwc(img).astype(np.float64)
    h, w, c = img.shape
    rh, rv = len(wh) // 2, len(wv) // 2
    cols = bmap(np.arange(-rh, w + rh), w, mode)
    e = np.concatenate([img, np.zeros((h, 1, c))], axis=1)[:, cols]
    tmp = np.zeros(img.shape)
    for k, wk in enumerate(wh):
        tmp += wk * e[:, k:k + w]
    rows = bmap(np.arange(-rv, h + rv), h, mode)
    e = np.concatenate([tmp, np.zeros((1, w, c))], axis=0)[rows]
    out = np.zeros(img.shape)
    for k, wk in enumerate(wv):
        out += wk * e[k:k + h]
    return out


def blur_params(sigma=None, radius=None):
    if sigma is not None:
        assert 0 < sigma <= 200                # the range of --sigma
    if radius is not None:
        assert 1 <= radius <= 1000             # the range of --radius
    if sigma is None and radius is None:
        sigma = 2.0
    if radius is None:
        radius = max(1, math.ceil(3.0 * sigma))
    elif sigma is None:
        sigma = radius / 3.0                   # may exceed 200 (R > 600): derived
    return float(sigma), int(radius)


def gauss_weights(sigma, radius):
    k = np.arange(-radius, radius + 1, dtype=np.float64)
    w = np.exp(-k * k / (2.0 * sigma * sigma))
    return w / w.sum()


def op_blur_f(img, sigma=None, radius=None, border="reflect101"):
    s, r = blur_params(sigma, radius)
    w = gauss_weights(s, r)
    return correlate_sep(img, w, w, border)


def op_box_f(img, radius, border="reflect101"):
    w = np.ones(2 * radius + 1)
    return correlate_sep(img, w, w, border) / float((2 * radius + 1) ** 2)


NAMED = {
    "identity": [[0, 0, 0], [0, 1, 0], [0, 0, 0]],
    "box3": (np.ones((3, 3)) / 9.0).tolist(),
    "gaussian3": (np.array([[1, 2, 1], [2, 4, 2], [1, 2, 1]]) / 16.0).tolist(),
    "gaussian5": (np.outer([1, 4, 6, 4, 1], [1, 4, 6, 4, 1]) / 256.0).tolist(),
    "sharpen": [[0, -1, 0], [-1, 5, -1], [0, -1, 0]],
    "laplacian": [[0, 1, 0], [1, -4, 1], [0, 1, 0]],
    "edge": [[-1, -1, -1], [-1, 8, -1], [-1, -1, -1]],
    "emboss": [[-2, -1, 0], [-1, 1, 1], [0, 1, 2]],
    "sobel-x": [[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]],
    "sobel-y": [[-1, -2, -1], [0, 0, 0], [1, 2, 1]],
    "prewitt-x": [[-1, 0, 1], [-1, 0, 1], [-1, 0, 1]],
    "prewitt-y": [[-1, -1, -1], [0, 0, 0], [1, 1, 1]],
}


def parse_kernel_file(rel):
    """Our own reader of SPEC's kernel text (used to read back what we wrote)."""
    rows = []
    with open(os.path.join(HERE, rel)) as f:
        for line in f:
            line = line.split("#", 1)[0].replace(",", " ").split()
            if line:
                rows.append([float(t) for t in line])
    assert rows and all(len(r) == len(rows[0]) for r in rows), rel
    assert len(rows) % 2 == 1 and len(rows[0]) % 2 == 1, rel
    return np.array(rows, dtype=np.float64)


def get_kernel(name):
    if name in NAMED:
        return np.array(NAMED[name], dtype=np.float64)
    return parse_kernel_file(name)


def conv_scale(K, normalize, scale):
    s = 1.0 if scale is None else float(scale)
    if normalize and K.sum() != 0.0:
        s = 1.0 / K.sum()
    return s


def op_convolve_f(img, kernel, normalize=False, scale=None, bias=None,
                  abs_=False, flip=False, border="reflect101"):
    K = get_kernel(kernel)
    if flip:
        K = K[::-1, ::-1]
    s = conv_scale(K, normalize, scale)
    v = correlate2d(img, K, border) * s + (0.0 if bias is None else float(bias))
    return np.abs(v) if abs_ else v


def op_sobel_f(img, border="reflect101"):
    gx = correlate2d(img, NAMED["sobel-x"], border)
    gy = correlate2d(img, NAMED["sobel-y"], border)
    return np.sqrt(gx * gx + gy * gy)


def op_transpose(img):
    return np.ascontiguousarray(np.transpose(as_hwc(img), (1, 0, 2)))


def op_rotate(img, angle):
    img = as_hwc(img)
    k = {90: -1, 180: 2, 270: 1}[angle]          # clockwise quarter turns
    return np.ascontiguousarray(np.rot90(img, k=k, axes=(0, 1)))


def op_flip(img, axis):
    img = as_hwc(img)
    return np.ascontiguousarray(img[:, ::-1] if axis == "h" else img[::-1])


def op_grayscale(img):
    img = as_hwc(img)
    c = img.shape[2]
    if c <= 2:
        return img.copy()
    r, g, b = (img[:, :, i].astype(np.int64) for i in range(3))
    y = ((299 * r + 587 * g + 114 * b + 500) // 1000).astype(np.uint8)
    if c == 3:
        return y[:, :, None]
    return np.stack([y, img[:, :, 3]], axis=2)


def color_channels(c):
    return {1: [0], 2: [0], 3: [0, 1, 2], 4: [0, 1, 2]}[c]


def op_invert(img):
    out = as_hwc(img).copy()
    for ch in color_channels(out.shape[2]):
        out[:, :, ch] = 255 - out[:, :, ch]
    return out


def op_equalize(img):
    out = as_hwc(img).copy()
    n = out.shape[0] * out.shape[1]
    for ch in color_channels(out.shape[2]):
        plane = out[:, :, ch]
        hist = np.bincount(plane.ravel(), minlength=256).astype(np.int64)
        cdf = np.cumsum(hist)
        v0 = int(np.nonzero(hist)[0][0])
        den = n - int(cdf[v0])
        if den == 0:
            continue                          # one-value channel: unchanged
        lut = np.zeros(256, dtype=np.int64)
        for v in range(256):
            num = int(cdf[v]) - int(cdf[v0])
            if v >= v0:                       # exact round-half-up
                lut[v] = (2 * num * 255 + den) // (2 * den)
        assert lut.max() <= 255 and lut.min() >= 0
        out[:, :, ch] = lut[plane].astype(np.uint8)
    return out


def op_histogram(img):
    img = as_hwc(img)
    c = img.shape[2]
    counts = [np.bincount(img[:, :, i].ravel(), minlength=256).astype(int).tolist()
              for i in range(c)]
    assert all(sum(cnt) == img.shape[0] * img.shape[1] for cnt in counts)
    return {"channels": c, "counts": counts}


def op_stats(img):
    img = as_hwc(img)
    c = img.shape[2]
    n = img.shape[0] * img.shape[1]
    res = {"channels": c, "min": [], "max": [], "mean": [], "stddev": [],
           "median": []}
    for i in range(c):
        p = [int(v) for v in img[:, :, i].ravel()]
        s = sum(p)
        ss = sum(v * v for v in p)
        res["min"].append(min(p))
        res["max"].append(max(p))
        res["mean"].append(s / n)                      # correctly rounded
        d = n * ss - s * s                             # n^2 * variance, exact
        assert d >= 0
        res["stddev"].append(float(Decimal(d).sqrt() / Decimal(n)))
        cdf = np.cumsum(np.bincount(np.array(p), minlength=256))
        half = -(-n // 2)
        res["median"].append(int(np.nonzero(cdf >= half)[0][0]))
    return res


# -- compare ------------------------------------------------------------------

def widen(a, b):
    a, b = as_hwc(a), as_hwc(b)
    ca, cb = a.shape[2], b.shape[2]
    color = ca >= 3 or cb >= 3
    alpha = ca in (2, 4) or cb in (2, 4)

    def one(x):
        c = x.shape[2]
        base = x[:, :, :3] if c >= 3 else x[:, :, :1]
        if color and base.shape[2] == 1:
            base = np.repeat(base, 3, axis=2)
        if alpha:
            al = x[:, :, c - 1:c] if c in (2, 4) else np.full(x.shape[:2] + (1,), 255, np.uint8)
            base = np.concatenate([base, al], axis=2)
        return base
    return one(a), one(b)


def ssim_own(a, b):
    """SPEC's SSIM written out: Gaussian sigma 1.5 radius 5, reflect borders,
    population (co)variances, mean over pixels >= 5 from every edge, then
    over channels."""
    S = ssim_map(a, b)[5:-5, 5:-5]
    return float(np.mean([S[:, :, ch].mean() for ch in range(S.shape[2])]))


def op_compare(a, b, fuzz=0):
    a, b = widen(a, b)
    assert a.shape == b.shape
    d = np.abs(a.astype(np.int64) - b.astype(np.int64))
    nval = d.size
    sd = int(d.sum())
    sd2 = int((d * d).sum())
    mse = sd2 / nval
    res = {
        "max_diff": int(d.max()),
        "differing": int(np.count_nonzero((d > fuzz).any(axis=2))),
        "mae": sd / nval,
        "rmse": math.sqrt(mse),
        "psnr": None if sd2 == 0 else 10.0 * math.log10(255.0 * 255.0 / mse),
        "ssim": None,
    }
    h, w, c = a.shape
    if h >= 11 and w >= 11:
        af, bf = a.astype(np.float64), b.astype(np.float64)
        if c == 1:
            sk = structural_similarity(af[:, :, 0], bf[:, :, 0], gaussian_weights=True,
                                       sigma=1.5, use_sample_covariance=False,
                                       data_range=255)
        else:
            sk = structural_similarity(af, bf, gaussian_weights=True, sigma=1.5,
                                       use_sample_covariance=False, data_range=255,
                                       channel_axis=-1)
        own = ssim_own(a, b)
        assert abs(sk - own) <= 1e-9, ("ssim mismatch", sk, own)
        res["ssim"] = float(sk)
    return res


# -- golden-image rules (SPEC section 7), written from pixelmatch 5.x's
# description and SPEC's text, in float64 as JavaScript computes them.

def rgba_of(img):
    """A widened image as float64 RGBA: gray repeated, alpha 255 when absent."""
    x = as_hwc(img).astype(np.float64)
    h, w, c = x.shape
    opaque = np.full((h, w, 1), 255.0)
    if c == 1:
        return np.concatenate([x, x, x, opaque], axis=2)
    if c == 2:
        return np.concatenate([x[:, :, :1]] * 3 + [x[:, :, 1:2]], axis=2)
    if c == 3:
        return np.concatenate([x, opaque], axis=2)
    return x


def over_white(p):
    a = p[..., 3:4] / 255
    return 255 + (p[..., :3] - 255) * a


def yiq(p):
    r, g, b = p[..., 0], p[..., 1], p[..., 2]
    return (r * 0.29889531 + g * 0.58662247 + b * 0.11448223,
            r * 0.59597799 - g * 0.2741761 - b * 0.32180189,
            r * 0.21147017 - g * 0.52261711 + b * 0.31114694)


def yiq_delta(pa, pb):
    """0.5053 dY^2 + 0.299 dI^2 + 0.1957 dQ^2 of RGBA pixels blended over white."""
    ya, ia, qa = yiq(over_white(pa))
    yb, ib, qb = yiq(over_white(pb))
    y, i, q = ya - yb, ia - ib, qa - qb
    d = 0.5053 * y * y + 0.299 * i * i + 0.1957 * q * q
    return np.where(np.all(pa == pb, axis=-1), 0.0, d)


class Rule:
    def __init__(self, fuzz, threshold):
        self.fuzz, self.threshold = fuzz, threshold

    def differ(self, ra, rb, pa, pb):
        """ra, rb: widened bytes (..., c); pa, pb: their RGBA floats."""
        if self.threshold > 0:
            return yiq_delta(pa, pb) > 35215 * self.threshold * self.threshold
        return (np.abs(ra.astype(np.int64) - rb.astype(np.int64)) > self.fuzz).any(axis=-1)


def brightness(p, q):
    if np.array_equal(p, q):
        return 0.0
    return float(yiq(over_white(p))[0] - yiq(over_white(q))[0])


def has_many_siblings(img, x1, y1):
    h, w = img.shape[:2]
    x0, y0, x2, y2 = max(x1 - 1, 0), max(y1 - 1, 0), min(x1 + 1, w - 1), min(y1 + 1, h - 1)
    zeroes = 1 if (x1 == x0 or x1 == x2 or y1 == y0 or y1 == y2) else 0
    for x in range(x0, x2 + 1):
        for y in range(y0, y2 + 1):
            if (x, y) == (x1, y1):
                continue
            if np.array_equal(img[y1, x1], img[y, x]):
                zeroes += 1
            if zeroes > 2:
                return True
    return False


def antialiased(img, x1, y1, img2):
    """pixelmatch's detector on RGBA float images."""
    h, w = img.shape[:2]
    x0, y0, x2, y2 = max(x1 - 1, 0), max(y1 - 1, 0), min(x1 + 1, w - 1), min(y1 + 1, h - 1)
    zeroes = 1 if (x1 == x0 or x1 == x2 or y1 == y0 or y1 == y2) else 0
    lo = hi = 0.0
    lo_at = hi_at = None
    for x in range(x0, x2 + 1):          # columns outer, rows inner, as pixelmatch
        for y in range(y0, y2 + 1):
            if (x, y) == (x1, y1):
                continue
            delta = brightness(img[y1, x1], img[y, x])
            if delta == 0:
                zeroes += 1
                if zeroes > 2:
                    return False
            elif delta < lo:
                lo, lo_at = delta, (x, y)
            elif delta > hi:
                hi, hi_at = delta, (x, y)
    if lo == 0 or hi == 0:
        return False
    return ((has_many_siblings(img, *lo_at) and has_many_siblings(img2, *lo_at)) or
            (has_many_siblings(img, *hi_at) and has_many_siblings(img2, *hi_at)))


def matches_within(rule, ra, pa, rb, pb, x, y, n):
    """ra's pixel (x, y) matches some pixel of rb within n (Chebyshev)."""
    h, w = ra.shape[:2]
    ys, xs = slice(max(y - n, 0), min(y + n, h - 1) + 1), slice(max(x - n, 0), min(x + n, w - 1) + 1)
    win_r, win_p = rb[ys, xs], pb[ys, xs]
    me_r = np.broadcast_to(ra[y, x], win_r.shape)
    me_p = np.broadcast_to(pa[y, x], win_p.shape)
    return bool((~rule.differ(me_r, win_r, me_p, win_p)).any())


def ssim_map(a, b):
    """The SSIM map of every pixel (reflect borders), per channel."""
    w = gauss_weights(1.5, 5)
    C1 = (0.01 * 255) ** 2
    C2 = (0.03 * 255) ** 2
    x = as_hwc(a).astype(np.float64)
    y = as_hwc(b).astype(np.float64)

    def f(z):
        return correlate_sep(z, w, w, "reflect")
    ux, uy = f(x), f(y)
    vx = f(x * x) - ux * ux
    vy = f(y * y) - uy * uy
    vxy = f(x * y) - ux * uy
    return ((2 * ux * uy + C1) * (2 * vxy + C2)) / ((ux * ux + uy * uy + C1) * (vx + vy + C2))


def op_compare_rules(a, b, fuzz=0, threshold=0.0, aa=False, shift=0, ignore=(), mask=None,
                     ssim=False):
    """SPEC section 7: the counts, figures and diff picture of one pair."""
    a, b = widen(a, b)
    h, w, c = a.shape
    ignored = np.zeros((h, w), bool)
    for (x, y, rw, rh) in ignore:
        ignored[max(y, 0):max(min(y + rh, h), 0), max(x, 0):max(min(x + rw, w), 0)] = True
    if mask is not None:
        ignored |= as_hwc(mask)[:, :, 0] == 0
    pa, pb = rgba_of(a), rgba_of(b)
    rule = Rule(fuzz, threshold)
    d = np.abs(a.astype(np.int64) - b.astype(np.int64))
    pmax = d.max(axis=2)
    comp = ~ignored
    differ = comp & (pmax > 0) & rule.differ(a, b, pa, pb)
    counted = np.zeros((h, w), bool)
    forgiven = np.zeros((h, w), bool)
    for y, x in zip(*np.nonzero(differ)):
        if aa and (antialiased(pa, x, y, pb) or antialiased(pb, x, y, pa)):
            forgiven[y, x] = True
        elif shift and (matches_within(rule, a, pa, b, pb, x, y, shift) and
                        matches_within(rule, b, pb, a, pa, x, y, shift)):
            forgiven[y, x] = True
        else:
            counted[y, x] = True
    n = int(comp.sum())
    dc = d[comp]
    s1, s2 = int(dc.sum()), int((dc * dc).sum())
    nval = n * c
    res = {
        "max_diff": int(dc.max()) if n else 0,
        "differing": int(counted.sum()),
        "forgiven": int(forgiven.sum()),
        "ignored": int(ignored.sum()),
        "mae": s1 / nval if nval else 0.0,
        "rmse": math.sqrt(s2 / nval) if nval else 0.0,
        "psnr": None if s2 == 0 else 10.0 * math.log10(255.0 * 255.0 / (s2 / nval)),
        "ssim": None,
        "identical": bool((d == 0).all()),
        "bbox": None,
    }
    if counted.any():
        ys, xs = np.nonzero(counted)
        res["bbox"] = [int(xs.min()), int(ys.min()), int(xs.max() - xs.min() + 1),
                       int(ys.max() - ys.min() + 1)]
    inner = np.zeros((h, w), bool)
    if h >= 11 and w >= 11:
        inner[5:h - 5, 5:w - 5] = True
    inner &= comp
    if ssim and inner.any():
        S = ssim_map(a, b)
        res["ssim"] = float(np.mean([S[:, :, ch][inner].mean() for ch in range(c)]))
    luma = op_grayscale(a)[:, :, 0].astype(np.int64) if c >= 3 else a[:, :, 0].astype(np.int64)
    g = (85 + (luma + 1) // 3).astype(np.uint8)
    pic = np.stack([g, g, g], axis=2)
    pic[counted] = (255, 0, 0)
    pic[forgiven] = (255, 255, 0)
    pic[ignored] = (0, 0, 128)
    return res, pic


# ----------------------------------------------------------------------------
# float32 emulation (diagnostic only: how many values a plain 32-bit float
# implementation would round differently from the float64 golden)
# ----------------------------------------------------------------------------

F32 = np.float32


def pad_f32(img, ry, rx, mode):
    img = as_hwc(img).astype(F32)
    h, w, c = img.shape
    e = np.zeros((h + 1, w + 1, c), dtype=F32)
    e[:h, :w] = img
    rows = bmap(np.arange(-ry, h + ry), h, mode)
    cols = bmap(np.arange(-rx, w + rx), w, mode)
    return e[rows][:, cols]


def corr2d_f32(img, K, mode):
    K = np.asarray(K, dtype=F32)
    h, w = as_hwc(img).shape[:2]
    kh, kw = K.shape
    pad = pad_f32(img, kh // 2, kw // 2, mode)
    acc = np.zeros((h, w, pad.shape[2]), dtype=F32)
    for i in range(kh):
        for j in range(kw):
            acc = acc + K[i, j] * pad[i:i + h, j:j + w]
    return acc


def sep_f32(img, w, mode, post_scale=None):
    w = np.asarray(w, dtype=F32)
    r = len(w) // 2
    img = as_hwc(img).astype(F32)
    h, wd, c = img.shape
    pad = pad_f32(img, 0, r, mode)
    tmp = np.zeros((h, wd, c), dtype=F32)
    for k in range(len(w)):
        tmp = tmp + w[k] * pad[:, k:k + wd]
    pad = pad_f32(tmp, r, 0, mode)
    out = np.zeros((h, wd, c), dtype=F32)
    for k in range(len(w)):
        out = out + w[k] * pad[k:k + h]
    if post_scale is not None:
        out = out * F32(post_scale)
    return out


def emulate_f32(op, img, p):
    border = p.get("border", "reflect101")
    if op == "blur":
        s, r = blur_params(p.get("sigma"), p.get("radius"))
        s = F32(s)
        k = np.arange(-r, r + 1).astype(F32)
        w = np.exp(-k * k / (F32(2) * s * s)).astype(F32)
        w = (w / w.sum(dtype=F32)).astype(F32)
        v = sep_f32(img, w, border)
    elif op == "box":
        r = p["radius"]
        v = sep_f32(img, np.ones(2 * r + 1), border, 1.0 / (2 * r + 1) ** 2)
    elif op == "convolve":
        K = get_kernel(p["kernel"])
        if p.get("flip"):
            K = K[::-1, ::-1]
        s = conv_scale(K, p.get("normalize"), p.get("scale"))
        v = corr2d_f32(img, K, border) * F32(s) + F32(p.get("bias") or 0.0)
        if p.get("abs"):
            v = np.abs(v)
    elif op == "sobel":
        gx = corr2d_f32(img, NAMED["sobel-x"], border)
        gy = corr2d_f32(img, NAMED["sobel-y"], border)
        v = np.sqrt(gx * gx + gy * gy)
    else:
        raise ValueError(op)
    return np.clip(np.floor(v + F32(0.5)), 0, 255).astype(np.uint8)


# ----------------------------------------------------------------------------
# Inputs and kernels
# ----------------------------------------------------------------------------

INPUTS = {}


def add_input(name, arr):
    arr = as_hwc(np.asarray(arr, dtype=np.uint8))
    h, w = arr.shape[:2]
    assert "%dx%d" % (w, h) in name, (name, arr.shape)
    rel = write_png("inputs/%s.png" % name, arr)
    INPUTS[name] = (rel, read_png(rel))


def make_inputs():
    rng = np.random.default_rng(20240601)

    chelsea = skimage.data.chelsea()                  # 300 x 451 x 3
    photo = chelsea[60:191, 120:377]                   # 131 rows x 257 cols
    add_input("photo_257x131_rgb", photo)

    noisy = photo.astype(np.int64).copy()
    h, w = photo.shape[:2]
    sel = rng.random((h, w)) < 0.04
    noise = rng.integers(-3, 4, size=(h, w, 3))
    noisy[sel] += noise[sel]
    add_input("photo_257x131_rgb_noisy", np.clip(noisy, 0, 255))

    astro = skimage.data.astronaut()[100:164, 180:276]  # 64 x 96 x 3
    yy, xx = np.mgrid[0:64, 0:96]
    alpha = np.clip(np.round(255.0 - 1.6 * xx - 1.2 * yy) + rng.integers(-6, 7, (64, 96)), 0, 255)
    alpha[:4, :4] = 255
    alpha[-3:, -5:] = 0
    add_input("photo_96x64_rgba", np.concatenate([astro, alpha[:, :, None]], axis=2))
    add_input("photo_96x64_rgb", astro)

    cam = skimage.data.camera()[100:148, 200:264]      # 48 x 64
    add_input("camera_64x48_gray", cam)
    add_input("camera_64x48_rgb", np.stack([cam, cam, cam], axis=2))
    cn = cam.astype(np.int64)
    rng2 = np.random.default_rng(4242)
    sel = rng2.random(cn.shape) < 0.20
    cn[sel] += rng2.integers(-6, 7, cn.shape)[sel]
    add_input("camera_64x48_gray_noisy", np.clip(cn, 0, 255))
    c = cam.astype(np.int64)
    tint = np.stack([np.clip(c + 3, 0, 255), c, np.clip(c - c // 16, 0, 255)], axis=2)
    add_input("camera_64x48_rgb_tint", tint)

    add_input("rand_31x29_rgb", rng.integers(0, 256, (29, 31, 3)))
    ga = rng.integers(0, 256, (29, 31, 2))
    add_input("rand_31x29_ga", ga)
    g = ga[:, :, 0].copy()
    sel = rng.random(g.shape) < 0.10
    g[sel] = np.clip(g[sel] + rng.integers(-5, 6, g.shape)[sel], 0, 255)
    add_input("rand_31x29_gray", g)

    i = np.arange(64)
    add_input("grad_1x64_gray", np.round(255.0 * (i / 63.0) ** 1.7).reshape(64, 1))
    rgb = np.stack([4 * i, 255 - 4 * i, np.round(127 + 127 * np.sin(i / 5.0))], axis=1)
    add_input("grad_64x1_rgb", rgb.reshape(1, 64, 3))
    add_input("px_1x1_rgba", np.array([[[200, 101, 37, 181]]]))
    add_input("uniform_16x16_gray", np.full((16, 16), 77))
    add_input("rand_7x5_rgba", rng.integers(0, 256, (5, 7, 4)))

    make_ui_inputs()

    a12 = rng.integers(0, 256, (12, 12, 3))
    add_input("rand_12x12_rgb", a12)
    add_input("rand_12x12_rgb_b", np.clip(a12 + rng.integers(-20, 21, a12.shape), 0, 255))
    a10 = rng.integers(0, 256, (10, 10, 3))
    add_input("rand_10x10_rgb", a10)
    add_input("rand_10x10_rgb_b", np.clip(a10 + rng.integers(-20, 21, a10.shape), 0, 255))


def render_ui(sub=(0.0, 0.0), shift=(0, 0), recolor=False, vanish=False, alpha=False):
    """A 96x64 screenshot-like picture, rendered by 4x4 supersampling: a
    thin anti-aliased diagonal line and a row of text-like bars (both moved
    by the sub-pixel offset sub), a flat button and a small dark square
    (all moved by the whole-pixel shift); recolor paints the button another
    colour, vanish leaves the square out, alpha adds an alpha ramp."""
    h, w, ss = 64, 96, 4
    yy, xx = np.mgrid[0:h * ss, 0:w * ss]
    cx, cy = (xx + 0.5) / ss - shift[0], (yy + 0.5) / ss - shift[1]
    img = np.full((h * ss, w * ss, 3), 255.0)

    def paint(inside, color):
        img[inside] = color
    sx, sy = cx - sub[0], cy - sub[1]
    # the line from (5, 50) to (60, 10), 1.2 wide
    px, py, dx, dy = 5.0, 50.0, 55.0, -40.0
    t = np.clip(((sx - px) * dx + (sy - py) * dy) / (dx * dx + dy * dy), 0, 1)
    paint(np.hypot(sx - px - t * dx, sy - py - t * dy) <= 0.6, (20, 20, 20))
    for k in range(6):  # text-like bars
        paint((sx >= 30 + 6 * k) & (sx < 33.5 + 6 * k) & (sy >= 40) & (sy < 47.3), (40, 40, 40))
    paint((cx >= 62) & (cx < 90) & (cy >= 8) & (cy < 20),
          (200, 60, 30) if recolor else (30, 90, 200))
    if not vanish:
        paint((cx >= 70) & (cx < 76) & (cy >= 40) & (cy < 46), (10, 10, 10))
    out = np.round(img.reshape(h, ss, w, ss, 3).mean(axis=(1, 3))).astype(np.uint8)
    if alpha:
        a = np.clip(np.round(np.linspace(255, 0, w))[None, :].repeat(h, 0), 0, 255)
        out = np.concatenate([out, a[:, :, None].astype(np.uint8)], axis=2)
    return out


ORIENTED = []


def make_oriented():
    """The same picture stored under EXIF orientations 1-8, as PNG (eXIf),
    JPEG (APP1) and lossless WebP (EXIF chunk), each with the upright pixels Pillow's exif_transpose
    makes of it (expected/upright_*.png): what gpuimg must see on reading."""
    from PIL import ImageOps
    base = INPUTS["photo_96x64_rgb"][1]
    up = Image.fromarray(base[:, :57])  # 57 x 64: odd, not square
    # the stored pixels: the inverse of each orientation's transform
    stored = {1: lambda im: im, 2: lambda im: ImageOps.mirror(im),
              3: lambda im: im.rotate(180), 4: lambda im: ImageOps.flip(im),
              5: lambda im: im.transpose(Image.TRANSPOSE),
              6: lambda im: im.rotate(90, expand=True),
              7: lambda im: im.transpose(Image.TRANSVERSE),
              8: lambda im: im.rotate(-90, expand=True)}
    for o in range(1, 9):
        im = stored[o](up)
        exif = Image.Exif()
        exif[0x0112] = o
        for ext in ("png", "jpg", "webp"):
            rel = "inputs/oriented_%d.%s" % (o, ext)
            path = os.path.join(HERE, rel)
            if ext == "png":
                im.save(path, exif=exif.tobytes())
            elif ext == "webp":
                im.save(path, lossless=True, exact=True, exif=exif.tobytes())
            else:
                im.save(path, quality=95, exif=exif.tobytes())
            with Image.open(path) as back:
                assert back.getexif().get(0x0112) == o, (rel, o)
                upright = ImageOps.exif_transpose(back).convert("RGB")
            if ext != "jpg":  # lossless: exactly the picture it was made from
                assert np.array_equal(np.asarray(upright), np.asarray(up)), rel
            exp = write_png("expected/upright_%d_%s.png" % (o, ext), np.asarray(upright))
            ORIENTED.append((rel, exp, "jpeg" if ext == "jpg" else "exact"))
    with open(os.path.join(HERE, "expected/oriented.tsv"), "w") as f:
        f.write("# file\tupright pixels (Pillow %s exif_transpose)\ttol\n" % Image.__version__)
        for row in ORIENTED:
            f.write("\t".join(row) + "\n")


def make_ui_inputs():
    add_input("ui_96x64_rgb", render_ui())
    add_input("ui_96x64_rgb_aa", render_ui(sub=(0.35, 0.2)))
    add_input("ui_96x64_rgb_shift1", render_ui(shift=(1, 0)))
    add_input("ui_96x64_rgb_shift2", render_ui(shift=(2, 1)))
    add_input("ui_96x64_rgb_recolor", render_ui(recolor=True))
    add_input("ui_96x64_rgb_vanish", render_ui(shift=(1, 0), vanish=True))
    m = np.full((64, 96), 255)
    m[:, -10:] = 0   # masks at the edges
    m[-4:, :] = 0
    m[10:14, 64:70] = 0
    add_input("ui_96x64_mask", m)
    ra = render_ui(alpha=True)
    add_input("ui_96x64_rgba", ra)
    rb = ra.copy()
    rb[:, 80:, :3] = 0            # colour under alpha 0..40: blended over white, barely visible
    rb[20:30, 10:20, 3] = 128     # half-transparent patch: visible
    add_input("ui_96x64_rgba_b", rb)


KERNELS = {}


def add_kernel(name, text):
    rel = "kernels/%s.txt" % name
    with open(os.path.join(HERE, rel), "w") as f:
        f.write(text)
    KERNELS[name] = rel
    return rel


def fmt_num(x):
    x = float(x)
    return str(int(x)) if x == int(x) else repr(x)


def make_kernels():
    rng = np.random.default_rng(777)
    # 5 columns x 3 rows, asymmetric, dyadic weights (exact in float32 too)
    add_kernel("asym_5x3",
               "# asymmetric 5x3 kernel: 5 columns, 3 rows (SPEC 3 syntax)\n"
               "0.125, 0.25, 0,  -0.0625, 0.5\n"
               "0  0.375  0.25, 0.125 -0.25   # centre row\n"
               "-0.125,0, 0.0625 0.1875 0\n")
    add_kernel("one_1x1", "# 1x1 kernel\n0.5\n")
    k75 = rng.integers(-3, 6, size=(5, 7))
    k75[2, 3] = 10                           # sum 25, odd: normalize never ties
    add_kernel("k_7x5", "# 7 columns x 5 rows, integer weights\n" +
               "".join(" ".join("%d" % v for v in row) + "\n" for row in k75))
    k37 = (rng.integers(-4, 9, size=(7, 3)) / 16.0)
    add_kernel("k_3x7", "# 3 columns x 7 rows, weights in sixteenths\n" +
               "".join(", ".join(fmt_num(v) for v in row) + "\n" for row in k37))
    k63 = rng.integers(0, 10, size=(63, 63))
    if k63.sum() % 2 == 0:                  # odd sum: no exact .5 after normalize
        k63[31, 31] += 1
    add_kernel("big_63x63", "# 63x63 kernel, seeded random integer weights 0..9 (sum odd); use normalize=1\n" +
               "".join(" ".join("%d" % v for v in row) + "\n" for row in k63))
    # read back and check shapes / asymmetry
    K = parse_kernel_file(KERNELS["asym_5x3"])
    assert K.shape == (3, 5) and not np.array_equal(K, K[::-1, ::-1])
    assert parse_kernel_file(KERNELS["one_1x1"]).shape == (1, 1)
    assert parse_kernel_file(KERNELS["k_7x5"]).shape == (5, 7)
    assert parse_kernel_file(KERNELS["k_7x5"]).sum() == 25
    assert parse_kernel_file(KERNELS["big_63x63"]).sum() % 2 == 1
    assert parse_kernel_file(KERNELS["k_3x7"]).shape == (7, 3)
    assert parse_kernel_file(KERNELS["big_63x63"]).shape == (63, 63)


# ----------------------------------------------------------------------------
# Cases
# ----------------------------------------------------------------------------

CASES = []          # (id, input_rel, step, expected_rel, tol)
F32_REPORT = []     # (id, n_values, n_diff_by_1, max_diff)
IDS = set()

NEAR_OPS = ("blur", "box", "convolve", "sobel")
KEY_ORDER = ("sigma", "radius", "kernel", "normalize", "scale", "bias", "abs",
             "flip", "angle", "axis", "with", "fuzz", "threshold", "aa", "shift", "ignore",
             "mask", "ssim", "border")


def is_dyadic(x, maxbits=20):
    f = Fraction(float(x))
    return f.denominator & (f.denominator - 1) == 0 and f.denominator <= 2 ** maxbits


def check_robust(cid, op, p, v):
    """Guard the goldens against values that a correct 32-bit implementation
    could round either way.  Exact .5 ties are allowed only where every weight,
    scale and bias is dyadic (so float32 computes them exactly too, and
    floor(v + 0.5) must round them up); other values must keep away from .5:
    none within 1e-3 on images of under 1000 values (where 'near' allows no
    difference at all), no more than the 0.1% allowance within 1e-4
    elsewhere."""
    inr = (v > -0.5) & (v < 255.5)
    dist = np.abs(v - np.floor(v) - 0.5)
    ties = int(np.count_nonzero(inr & (dist == 0)))
    if ties:
        assert op == "convolve", (cid, ties)
        K = get_kernel(p["kernel"])
        s = conv_scale(K, p.get("normalize"), p.get("scale"))
        assert all(is_dyadic(k) for k in K.ravel()) and is_dyadic(s) and \
            is_dyadic(p.get("bias") or 0), (cid, "non-dyadic exact ties", ties)
    n = v.size
    if n < 1000:
        close = int(np.count_nonzero(inr & (dist > 0) & (dist < 1e-3)))
        assert close == 0, (cid, "values within 1e-3 of a rounding boundary", close)
    else:
        close = int(np.count_nonzero(inr & (dist > 0) & (dist < 1e-4)))
        assert close <= (n // 1000), (cid, "too many values near a rounding boundary", close)


def step_text(op, p):
    if not p:
        return op
    parts = []
    for k in KEY_ORDER:
        if k in p:
            v = p[k]
            if isinstance(v, bool):
                v = int(v)
            parts.append("%s=%s" % (k, v))
    assert len(parts) == len(p), p
    return op + ":" + ",".join(parts)


def case(cid, inp, op, **p):
    assert cid not in IDS and all(ch in "abcdefghijklmnopqrstuvwxyz0123456789_" for ch in cid), cid
    IDS.add(cid)
    rel, img = INPUTS[inp]
    step = step_text(op, p)
    tol = "exact"
    if op in NEAR_OPS:
        tol = "near"
        border = p.get("border", "reflect101")
        if op == "blur":
            v = op_blur_f(img, p.get("sigma"), p.get("radius"), border)
        elif op == "box":
            v = op_box_f(img, p["radius"], border)
        elif op == "convolve":
            v = op_convolve_f(img, p["kernel"], p.get("normalize", False), p.get("scale"),
                              p.get("bias"), p.get("abs", False), p.get("flip", False), border)
        else:
            v = op_sobel_f(img, border)
        check_robust(cid, op, p, v)
        out = round_store(v)
        emu = emulate_f32(op, img, p)
        dd = np.abs(emu.astype(int) - out.astype(int))
        F32_REPORT.append((cid, out.size, int(np.count_nonzero(dd == 1)), int(dd.max())))
        exp = write_png("expected/%s.png" % cid, out)
    elif op in ("transpose", "rotate", "flip", "grayscale", "invert", "equalize"):
        if op == "transpose":
            out = op_transpose(img)
        elif op == "rotate":
            out = op_rotate(img, p["angle"])
        elif op == "flip":
            out = op_flip(img, p["axis"])
        elif op == "grayscale":
            out = op_grayscale(img)
        elif op == "invert":
            out = op_invert(img)
        else:
            out = op_equalize(img)
        exp = write_png("expected/%s.png" % cid, out)
    elif op == "histogram":
        exp = write_json("expected/%s.json" % cid, op_histogram(img))
    elif op == "stats":
        # 'float': min/max/median and mean (= sum/N, correctly rounded) are
        # exact, but stddev is written as the correctly rounded sqrt of the
        # exact variance, and the usual double formulas
        # (sqrt(sumsq/N - mean*mean)) differ from it in the last bits
        tol = "float"
        exp = write_json("expected/%s.json" % cid, op_stats(img))
    elif op == "compare" and set(p) <= {"with", "fuzz"}:
        tol = "float"
        other = read_png(p["with"])
        exp = write_json("expected/%s.json" % cid, op_compare(img, other, p.get("fuzz", 0)))
    elif op == "compare":  # SPEC section 7's rules: counts, figures and the diff picture
        tol = "float"
        other = read_png(p["with"])
        mask = read_png(p["mask"]) if "mask" in p else None
        ign = [tuple(int(v) for v in r.split("_")) for r in p["ignore"].split(";")] \
            if "ignore" in p else []
        res, pic = op_compare_rules(img, other, p.get("fuzz", 0), p.get("threshold", 0.0),
                                    bool(p.get("aa", 0)), p.get("shift", 0), ign, mask,
                                    bool(p.get("ssim", 0)))
        res["diff"] = write_png("expected/%s_diff.png" % cid, pic)
        exp = write_json("expected/%s.json" % cid, res)
    else:
        raise ValueError(op)
    CASES.append((cid, rel, step, exp, tol))
    return exp


def inp_rel(name):
    return INPUTS[name][0]


def make_cases():
    short = {"reflect101": "r101", "reflect": "refl", "replicate": "repl",
             "wrap": "wrap", "constant": "const"}

    # -- border-mode sweeps: blur, box, convolve, sobel x 5 borders x 5 images
    sweeps = [
        ("photo", "photo_257x131_rgb",
         dict(blur=dict(sigma=2), box=dict(radius=2),
              convolve=dict(kernel=KERNELS["asym_5x3"]))),
        ("ga", "rand_31x29_ga",
         dict(blur=dict(radius=100), box=dict(radius=50),
              convolve=dict(kernel="sharpen"))),
        ("col", "grad_1x64_gray",
         dict(blur=dict(sigma=2.5), box=dict(radius=4),
              convolve=dict(kernel=KERNELS["k_3x7"]))),
        ("row", "grad_64x1_rgb",
         dict(blur=dict(radius=70), box=dict(radius=3),
              convolve=dict(kernel=KERNELS["k_7x5"], normalize=True))),
        ("px", "px_1x1_rgba",
         dict(blur=dict(sigma=1), box=dict(radius=1),
              convolve=dict(kernel="gaussian3"))),
    ]
    for tag, inp, ops in sweeps:
        for op in ("blur", "box", "convolve", "sobel"):
            for b in BORDERS:
                p = dict(ops.get(op, {}))
                if not (tag == "photo" and b == "reflect101"):
                    p["border"] = b             # photo + reflect101: the default
                case("%s_%s_%s" % (op, tag, short[b]), inp, op, **p)

    # -- blur extras
    case("blur_default_photo96", "photo_96x64_rgba", "blur")
    case("blur_s0_5_rand", "rand_31x29_rgb", "blur", sigma=0.5)
    case("blur_s1_5_rand", "rand_31x29_rgb", "blur", sigma=1.5)
    case("blur_s8_camera", "camera_64x48_gray", "blur", sigma=8)
    case("blur_s8_photo96_wrap", "photo_96x64_rgba", "blur", sigma=8, border="wrap")
    case("blur_s200_r5_rand", "rand_31x29_rgb", "blur", sigma=200, radius=5)
    case("blur_s2_r3_photo96", "photo_96x64_rgba", "blur", sigma=2, radius=3)
    case("blur_s0_5_r4_camera_refl", "camera_64x48_gray", "blur", sigma=0.5, radius=4,
         border="reflect")
    case("blur_r1_camera", "camera_64x48_gray", "blur", radius=1)
    case("blur_r100_rand_rgb", "rand_31x29_rgb", "blur", radius=100)
    case("blur_r1000_7x5", "rand_7x5_rgba", "blur", radius=1000)
    case("blur_s200_r1000_7x5_wrap", "rand_7x5_rgba", "blur", sigma=200, radius=1000,
         border="wrap")
    case("blur_s200_r1000_7x5_refl", "rand_7x5_rgba", "blur", sigma=200, radius=1000,
         border="reflect")
    case("blur_s200_r1000_7x5_const", "rand_7x5_rgba", "blur", sigma=200, radius=1000,
         border="constant")
    case("blur_r600_7x5_repl", "rand_7x5_rgba", "blur", radius=600, border="replicate")
    case("blur_s2_uniform", "uniform_16x16_gray", "blur", sigma=2)
    case("blur_s2_uniform_const", "uniform_16x16_gray", "blur", sigma=2, border="constant")

    # -- box extras
    case("box_r1_camera", "camera_64x48_gray", "box", radius=1)
    case("box_r7_photo96", "photo_96x64_rgba", "box", radius=7)
    case("box_r50_rand_rgb_repl", "rand_31x29_rgb", "box", radius=50, border="replicate")
    case("box_r1000_7x5", "rand_7x5_rgba", "box", radius=1000)
    case("box_r1000_7x5_const", "rand_7x5_rgba", "box", radius=1000, border="constant")
    case("box_r3_uniform", "uniform_16x16_gray", "box", radius=3)

    # -- convolve: every named kernel
    for name in NAMED:
        case("conv_%s_rand" % name.replace("-", "_"), "rand_31x29_rgb", "convolve", kernel=name)
    for name in ("identity", "box3", "gaussian5", "sharpen", "emboss"):
        case("conv_%s_camera" % name.replace("-", "_"), "camera_64x48_gray", "convolve",
             kernel=name)
    case("conv_gaussian5_photo96", "photo_96x64_rgba", "convolve", kernel="gaussian5")
    # abs
    for name in ("sobel-x", "sobel-y", "prewitt-x", "prewitt-y", "laplacian", "edge"):
        case("conv_%s_abs_camera" % name.replace("-", "_"), "camera_64x48_gray", "convolve",
             kernel=name, abs=True)
    case("conv_sobel_x_abs_photo", "photo_257x131_rgb", "convolve", kernel="sobel-x", abs=True)
    # scale / bias
    case("conv_emboss_bias128_camera", "camera_64x48_gray", "convolve", kernel="emboss", bias=128)
    case("conv_edge_scale_bias_rand", "rand_31x29_rgb", "convolve", kernel="edge",
         scale=0.25, bias=100.5)
    case("conv_laplacian_bias128_camera", "camera_64x48_gray", "convolve", kernel="laplacian",
         bias=128)
    case("conv_sobel_x_scale_bias_abs_ga", "rand_31x29_ga", "convolve", kernel="sobel-x",
         scale=0.125, bias=-20, abs=True)
    case("conv_identity_scale_neg_bias", "photo_96x64_rgba", "convolve", kernel="identity",
         scale=-1, bias=255)
    # normalize
    case("conv_k7x5_norm_camera", "camera_64x48_gray", "convolve", kernel=KERNELS["k_7x5"],
         normalize=True)
    case("conv_k7x5_scale_camera", "camera_64x48_gray", "convolve", kernel=KERNELS["k_7x5"],
         scale=0.03125)
    case("conv_laplacian_norm_bias128_camera", "camera_64x48_gray", "convolve",
         kernel="laplacian", normalize=True, bias=128)      # sum 0: no-op
    case("conv_sharpen_norm_rand", "rand_31x29_rgb", "convolve", kernel="sharpen",
         normalize=True)                                     # sum 1
    case("conv_box3_norm_rand", "rand_31x29_rgb", "convolve", kernel="box3", normalize=True)
    case("conv_norm_scale_ignored", "camera_64x48_gray", "convolve", kernel=KERNELS["k_3x7"],
         normalize=True, scale=3)
    # flip
    case("conv_asym_flip_photo", "photo_257x131_rgb", "convolve", kernel=KERNELS["asym_5x3"],
         flip=True)
    case("conv_asym_rand", "rand_31x29_rgb", "convolve", kernel=KERNELS["asym_5x3"])
    case("conv_asym_flip_rand", "rand_31x29_rgb", "convolve", kernel=KERNELS["asym_5x3"],
         flip=True)
    case("conv_asym_flip_wrap_ga", "rand_31x29_ga", "convolve", kernel=KERNELS["asym_5x3"],
         flip=True, border="wrap")
    case("conv_emboss_flip_camera", "camera_64x48_gray", "convolve", kernel="emboss", flip=True)
    case("conv_k3x7_flip_refl_rand", "rand_31x29_rgb", "convolve", kernel=KERNELS["k_3x7"],
         flip=True, border="reflect")
    a = read_png("expected/conv_asym_rand.png")
    b = read_png("expected/conv_asym_flip_rand.png")
    assert not np.array_equal(a, b), "flip=1 must differ from flip=0"
    # big and tiny kernels
    case("conv_big63_photo96", "photo_96x64_rgba", "convolve", kernel=KERNELS["big_63x63"],
         normalize=True)
    case("conv_big63_rand_wrap", "rand_31x29_rgb", "convolve", kernel=KERNELS["big_63x63"],
         normalize=True, border="wrap")
    case("conv_big63_ga_const", "rand_31x29_ga", "convolve", kernel=KERNELS["big_63x63"],
         normalize=True, border="constant")
    case("conv_big63_px_r101", "px_1x1_rgba", "convolve", kernel=KERNELS["big_63x63"],
         normalize=True)
    case("conv_one_1x1_rand", "rand_31x29_rgb", "convolve", kernel=KERNELS["one_1x1"])
    case("conv_one_1x1_px_const", "px_1x1_rgba", "convolve", kernel=KERNELS["one_1x1"],
         border="constant")
    case("conv_one_1x1_bias_camera", "camera_64x48_gray", "convolve", kernel=KERNELS["one_1x1"],
         bias=64)
    case("conv_k7x5_norm_7x5_r101", "rand_7x5_rgba", "convolve", kernel=KERNELS["k_7x5"],
         normalize=True)

    # -- sobel extras
    case("sobel_camera", "camera_64x48_gray", "sobel")
    case("sobel_photo96", "photo_96x64_rgba", "sobel")
    case("sobel_rand_rgb", "rand_31x29_rgb", "sobel")
    case("sobel_uniform", "uniform_16x16_gray", "sobel")
    case("sobel_uniform_const", "uniform_16x16_gray", "sobel", border="constant")
    case("sobel_7x5_wrap", "rand_7x5_rgba", "sobel", border="wrap")

    # -- geometry
    geo_inputs = [("rgb", "photo_257x131_rgb"), ("rgba", "photo_96x64_rgba"),
                  ("gray", "camera_64x48_gray"), ("col", "grad_1x64_gray"),
                  ("row", "grad_64x1_rgb"), ("px", "px_1x1_rgba"),
                  ("ga", "rand_31x29_ga"), ("r7x5", "rand_7x5_rgba")]
    for tag, inp in geo_inputs:
        case("transpose_%s" % tag, inp, "transpose")
        for ang in (90, 180, 270):
            case("rotate%d_%s" % (ang, tag), inp, "rotate", angle=ang)
        for ax in ("h", "v"):
            case("flip%s_%s" % (ax, tag), inp, "flip", axis=ax)

    # -- value ops
    for tag, inp in [("rgb", "photo_257x131_rgb"), ("rgba", "photo_96x64_rgba"),
                     ("gray", "camera_64x48_gray"), ("ga", "rand_31x29_ga"),
                     ("rand_rgb", "rand_31x29_rgb"), ("px", "px_1x1_rgba"),
                     ("row", "grad_64x1_rgb"), ("r7x5", "rand_7x5_rgba")]:
        case("grayscale_%s" % tag, inp, "grayscale")
    for tag, inp in [("rgb", "rand_31x29_rgb"), ("rgba", "photo_96x64_rgba"),
                     ("ga", "rand_31x29_ga"), ("gray", "camera_64x48_gray"),
                     ("px", "px_1x1_rgba")]:
        case("invert_%s" % tag, inp, "invert")
    for tag, inp in [("rgb", "photo_257x131_rgb"), ("rgba", "photo_96x64_rgba"),
                     ("gray", "camera_64x48_gray"), ("uniform", "uniform_16x16_gray"),
                     ("ga", "rand_31x29_ga"), ("col", "grad_1x64_gray"),
                     ("px", "px_1x1_rgba"), ("r7x5", "rand_7x5_rgba")]:
        case("equalize_%s" % tag, inp, "equalize")

    # -- histogram and stats on every input
    for name in INPUTS:
        case("histogram_%s" % name, name, "histogram")
        case("stats_%s" % name, name, "stats")

    # -- compare
    case("compare_identical", "photo_257x131_rgb", "compare", **{"with": inp_rel("photo_257x131_rgb")})
    case("compare_noisy_f0", "photo_257x131_rgb", "compare",
         **{"with": inp_rel("photo_257x131_rgb_noisy"), "fuzz": 0})
    case("compare_noisy_f2", "photo_257x131_rgb", "compare",
         **{"with": inp_rel("photo_257x131_rgb_noisy"), "fuzz": 2})
    case("compare_noisy_rev_f3", "photo_257x131_rgb_noisy", "compare",
         **{"with": inp_rel("photo_257x131_rgb"), "fuzz": 3})
    case("compare_gray_vs_rgb_same", "camera_64x48_gray", "compare",
         **{"with": inp_rel("camera_64x48_rgb")})
    case("compare_gray_vs_rgb_tint", "camera_64x48_gray", "compare",
         **{"with": inp_rel("camera_64x48_rgb_tint")})
    case("compare_rgb_tint_vs_gray", "camera_64x48_rgb_tint", "compare",
         **{"with": inp_rel("camera_64x48_gray"), "fuzz": 1})
    case("compare_rgba_vs_rgb", "photo_96x64_rgba", "compare",
         **{"with": inp_rel("photo_96x64_rgb")})
    case("compare_ga_vs_gray", "rand_31x29_ga", "compare",
         **{"with": inp_rel("rand_31x29_gray")})
    case("compare_gray_vs_ga", "rand_31x29_gray", "compare",
         **{"with": inp_rel("rand_31x29_ga")})
    case("compare_gray_vs_gray", "camera_64x48_gray", "compare",
         **{"with": inp_rel("camera_64x48_gray_noisy"), "fuzz": 4})

    # -- compare's rules (SPEC section 7): pixel rule, anti-aliasing, shift, ignored pixels
    def cmp(cid, a, b, **p):
        case(cid, a, "compare", **dict({"with": inp_rel(b)}, **p))
    cmp("cmp_ui_aa_f0", "ui_96x64_rgb", "ui_96x64_rgb_aa")
    cmp("cmp_ui_aa_t01", "ui_96x64_rgb", "ui_96x64_rgb_aa", threshold=0.1)
    cmp("cmp_ui_aa_t01_aa", "ui_96x64_rgb", "ui_96x64_rgb_aa", threshold=0.1, aa=1)
    cmp("cmp_ui_aa_f2_aa", "ui_96x64_rgb", "ui_96x64_rgb_aa", fuzz=2, aa=1)
    cmp("cmp_ui_aa_rev_aa_s1", "ui_96x64_rgb_aa", "ui_96x64_rgb", threshold=0.1, aa=1, shift=1)
    cmp("cmp_ui_shift1_s1", "ui_96x64_rgb", "ui_96x64_rgb_shift1", shift=1)
    cmp("cmp_ui_shift2_s1", "ui_96x64_rgb", "ui_96x64_rgb_shift2", shift=1)
    cmp("cmp_ui_shift2_s2", "ui_96x64_rgb", "ui_96x64_rgb_shift2", shift=2, ssim=1)
    cmp("cmp_ui_vanish_s2", "ui_96x64_rgb", "ui_96x64_rgb_vanish", shift=2)
    cmp("cmp_ui_recolor_t005_ign", "ui_96x64_rgb", "ui_96x64_rgb_recolor", threshold=0.05,
        ignore="70_5_30_9;-5_-5_20_10", ssim=1)
    cmp("cmp_ui_recolor_mask", "ui_96x64_rgb", "ui_96x64_rgb_recolor",
        mask=inp_rel("ui_96x64_mask"), ssim=1)
    cmp("cmp_ui_shift1_mask_s1", "ui_96x64_rgb_shift1", "ui_96x64_rgb",
        mask=inp_rel("ui_96x64_mask"), shift=1, aa=1)
    cmp("cmp_rgba_t01", "ui_96x64_rgba", "ui_96x64_rgba_b", threshold=0.1, ssim=1)
    cmp("cmp_rgba_f0", "ui_96x64_rgba", "ui_96x64_rgba_b", aa=1)
    cmp("cmp_rgb_vs_rgba_t02", "ui_96x64_rgb", "ui_96x64_rgba", threshold=0.2, shift=1)
    case("compare_10x10", "rand_10x10_rgb", "compare", **{"with": inp_rel("rand_10x10_rgb_b")})
    case("compare_12x12", "rand_12x12_rgb", "compare", **{"with": inp_rel("rand_12x12_rgb_b")})
    case("compare_12x12_f10", "rand_12x12_rgb", "compare",
         **{"with": inp_rel("rand_12x12_rgb_b"), "fuzz": 10})
    case("compare_1x1_identical", "px_1x1_rgba", "compare", **{"with": inp_rel("px_1x1_rgba")})


# ----------------------------------------------------------------------------
# Self-checks against SciPy / NumPy
# ----------------------------------------------------------------------------

def self_checks():
    # 1. border mapping: the SPEC table, and numpy.pad for small widths
    abcd = np.arange(4)
    expect = {"reflect101": [3, 2, 1, 0, 1, 2, 3, 2, 1, 0],
              "reflect": [2, 1, 0, 0, 1, 2, 3, 3, 2, 1],
              "replicate": [0, 0, 0, 0, 1, 2, 3, 3, 3, 3],
              "wrap": [1, 2, 3, 0, 1, 2, 3, 0, 1, 2],
              "constant": [4, 4, 4, 0, 1, 2, 3, 4, 4, 4]}
    for m, e in expect.items():
        assert bmap(np.arange(-3, 7), 4, m).tolist() == e, m
    npmode = {"reflect101": "reflect", "reflect": "symmetric", "replicate": "edge",
              "wrap": "wrap", "constant": "constant"}
    for n in range(2, 9):
        x = np.arange(1, n + 1)
        for r in range(0, n - 1):
            for m in BORDERS:
                ours = np.append(x, 0)[bmap(np.arange(-r, n + r), n, m)]
                assert np.array_equal(ours, np.pad(x, r, mode=npmode[m])), (n, r, m)
    for m in BORDERS[:4]:
        assert np.all(bmap(np.arange(-2000, 2000), 1, m) == 0)
    # periodicity for huge offsets
    for n in (2, 3, 7, 31):
        for m, p in (("reflect101", 2 * n - 2), ("reflect", 2 * n), ("wrap", n)):
            i = np.arange(-5000, 5000)
            assert np.array_equal(bmap(i, n, m), bmap(i + 7 * p, n, m))

    # 2. blur / box / convolve vs scipy.ndimage, radius < side, before rounding
    rng = np.random.default_rng(5)
    img = rng.integers(0, 256, (29, 31, 3)).astype(np.float64)
    for m in BORDERS:
        sm = SCIPY_MODE[m]
        for sigma, radius in ((2, None), (0.5, None), (None, 5), (3, 9)):
            s, r = blur_params(sigma, radius)
            w = gauss_weights(s, r)
            ref = ndi.correlate1d(ndi.correlate1d(img, w, axis=1, mode=sm, cval=0.0),
                                  w, axis=0, mode=sm, cval=0.0)
            assert np.max(np.abs(ref - op_blur_f(img, sigma, radius, m))) < 1e-9, (m, sigma)
        for r in (1, 3, 7):
            ref = ndi.correlate(img, np.ones((2 * r + 1, 2 * r + 1, 1)) / (2 * r + 1) ** 2,
                                mode=sm, cval=0.0)
            assert np.max(np.abs(ref - op_box_f(img, r, m))) < 1e-9, (m, r)
        for K in list(NAMED.values()) + [rng.normal(size=(3, 5)), rng.normal(size=(7, 3)),
                                         rng.normal(size=(5, 7)), rng.normal(size=(1, 1))]:
            K = np.asarray(K, dtype=np.float64)
            ref = ndi.correlate(img, K[:, :, None], mode=sm, cval=0.0)
            assert np.max(np.abs(ref - correlate2d(img, K, m))) < 1e-9, (m, K.shape)
            ref = ndi.convolve(img, K[:, :, None], mode=sm, cval=0.0)
            assert np.max(np.abs(ref - correlate2d(img, K[::-1, ::-1], m))) < 1e-9
        gx = ndi.correlate(img, np.array(NAMED["sobel-x"], float)[:, :, None], mode=sm)
        gy = ndi.correlate(img, np.array(NAMED["sobel-y"], float)[:, :, None], mode=sm)
        assert np.max(np.abs(np.hypot(gx, gy) - op_sobel_f(img, m))) < 1e-9
    # large radius, mapping modes: a tiled explicit sum agrees with the separable code
    small = rng.integers(0, 256, (3, 2, 1)).astype(np.float64)
    for m in BORDERS:
        s, r = blur_params(None, 9)
        w = gauss_weights(s, r)
        ref = np.zeros(small.shape)
        for y in range(3):
            for x in range(2):
                for i in range(-r, r + 1):
                    for j in range(-r, r + 1):
                        yy, xx = int(bmap(y + i, 3, m)), int(bmap(x + j, 2, m))
                        val = 0.0 if (yy == 3 or xx == 2) else small[yy, xx, 0]
                        ref[y, x, 0] += w[i + r] * w[j + r] * val
        assert np.max(np.abs(ref - op_blur_f(small, None, 9, m))) < 1e-9
        assert np.max(np.abs(ref - correlate2d(small, np.outer(w, w), m))) < 1e-9

    # radii far beyond the image (and sides of 1).  References: SciPy's 1-D
    # filters (scipy 1.10 extends a line periodically in every mode) and a
    # brute-force window sum over numpy.pad (which agrees with bmap here).
    # Not ndimage.correlate: its 2-D path gets mode='reflect' wrong when the
    # kernel is much larger than the image (scipy 1.10.1).
    def pad_ref(im, K, m):
        kh, kw = K.shape
        out = np.zeros(im.shape)
        for ch in range(im.shape[2]):
            P = np.pad(im[:, :, ch], ((kh // 2, kh // 2), (kw // 2, kw // 2)), mode=npmode[m])
            for y in range(im.shape[0]):
                for x in range(im.shape[1]):
                    out[y, x, ch] = np.sum(K * P[y:y + kh, x:x + kw])
        return out
    x = np.arange(1, 6)
    for m in BORDERS:
        for r in (7, 13, 40):
            assert np.array_equal(np.append(x, 0)[bmap(np.arange(-r, 5 + r), 5, m)],
                                  np.pad(x, r, mode=npmode[m]))
    for shape in ((29, 31, 2), (5, 7, 1), (1, 64, 1), (64, 1, 3), (1, 1, 4), (2, 3, 1)):
        im = rng.integers(0, 256, shape).astype(np.float64)
        for m in BORDERS:
            sm = SCIPY_MODE[m]
            for r in (1, 5, 100, 1000):
                w = gauss_weights(r / 3.0, r)
                ref = ndi.correlate1d(ndi.correlate1d(im, w, axis=1, mode=sm), w, axis=0, mode=sm)
                assert np.max(np.abs(ref - op_blur_f(im, None, r, m))) < 1e-9, (shape, m, r)
            ref = ndi.uniform_filter1d(ndi.uniform_filter1d(im, 101, axis=1, mode=sm),
                                       101, axis=0, mode=sm)
            assert np.max(np.abs(ref - op_box_f(im, 50, m))) < 1e-9, (shape, m)
            if shape[0] * shape[1] <= 64:
                K = rng.normal(size=(63, 63))
                assert np.max(np.abs(pad_ref(im, K, m) - correlate2d(im, K, m))) < 1e-9
                K = np.ones((101, 101)) / 101 ** 2
                assert np.max(np.abs(pad_ref(im, K, m) - op_box_f(im, 50, m))) < 1e-9

    # 3. geometry conventions
    t = np.arange(6, dtype=np.uint8).reshape(2, 3)            # 3 wide, 2 high
    assert op_rotate(t, 90)[:, :, 0].tolist() == [[3, 0], [4, 1], [5, 2]]
    assert op_rotate(t, 270)[:, :, 0].tolist() == [[2, 5], [1, 4], [0, 3]]
    assert op_transpose(t)[:, :, 0].tolist() == [[0, 3], [1, 4], [2, 5]]
    assert op_flip(t, "h")[:, :, 0].tolist() == [[2, 1, 0], [5, 4, 3]]
    assert op_flip(t, "v")[:, :, 0].tolist() == [[3, 4, 5], [0, 1, 2]]

    # 4. grayscale integer formula == exact rational round-half-up
    for r_, g_, b_ in rng.integers(0, 256, (2000, 3)).tolist() + [[1, 1, 3], [255, 255, 255]]:
        y = Fraction(299 * r_ + 587 * g_ + 114 * b_, 1000)
        want = math.floor(y + Fraction(1, 2))
        got = op_grayscale(np.array([[[r_, g_, b_]]], np.uint8))[0, 0, 0]
        assert want == got

    # 5. SSIM: own vs skimage on random data of several layouts
    for c in (1, 2, 3, 4):
        a = rng.integers(0, 256, (17, 23, c)).astype(np.uint8)
        b = np.clip(a.astype(int) + rng.integers(-30, 31, a.shape), 0, 255).astype(np.uint8)
        sk = structural_similarity(a.astype(float), b.astype(float), gaussian_weights=True,
                                   sigma=1.5, use_sample_covariance=False, data_range=255,
                                   channel_axis=-1)
        assert abs(sk - ssim_own(a, b)) < 1e-9


# ----------------------------------------------------------------------------

# ----------------------------------------------------------------------------
# Read formats: files written by other encoders (Pillow, and a PSD built by
# hand), each with the pixels Pillow decodes from it, for gpuimg's readers.
# ----------------------------------------------------------------------------

FORMATS = []


def psd_bytes(img):
    """A minimal uncompressed RGB PSD: header, empty sections, planar composite."""
    h, w, c = img.shape
    out = bytearray(b"8BPS")
    out += (1).to_bytes(2, "big") + bytes(6) + c.to_bytes(2, "big")
    out += h.to_bytes(4, "big") + w.to_bytes(4, "big") + (8).to_bytes(2, "big")
    out += (3).to_bytes(2, "big")  # RGB colour mode
    out += bytes(4) * 3  # colour mode data, image resources, layers: empty
    out += (0).to_bytes(2, "big")  # raw composite
    for k in range(c):
        out += img[:, :, k].tobytes()
    return bytes(out)


def make_formats():
    photo = read_png("inputs/photo_96x64_rgb.png")
    gray = read_png("inputs/camera_64x48_gray.png")
    rgba = read_png("inputs/rand_7x5_rgba.png")
    d = os.path.join(HERE, "formats")

    def add(name, tol, save):
        path = os.path.join(d, name)
        save(path)
        decoded = np.asarray(Image.open(path).convert("RGBA"))
        if name.endswith(".psd"):  # Pillow reads the composite of our raw PSD
            decoded = np.concatenate([photo, np.full(photo.shape[:2] + (1,), 255, np.uint8)], 2)
        write_png("formats/%s.png" % name.replace(".", "_"), decoded)
        FORMATS.append(("formats/" + name, "formats/%s.png" % name.replace(".", "_"), tol))

    add("photo.bmp", "exact", lambda p: Image.fromarray(photo).save(p))
    add("photo.tga", "exact", lambda p: Image.fromarray(photo).save(p))
    add("photo_rle.tga", "exact", lambda p: Image.fromarray(photo).save(p, compression="tga_rle"))
    add("rgba.tga", "exact", lambda p: Image.fromarray(rgba, "RGBA").save(p))
    add("photo.ppm", "exact", lambda p: Image.fromarray(photo).save(p))
    add("camera.pgm", "exact", lambda p: Image.fromarray(gray[:, :, 0]).save(p))
    add("photo.gif", "exact", lambda p: Image.fromarray(photo).save(p))
    add("photo.psd", "exact", lambda p: open(p, "wb").write(psd_bytes(photo)))
    # TIFF: every compression SPEC names, gray, RGBA, and 16 bits (reduced
    # to 8 with rounding until the pipeline carries 16: the expected pixels
    # are written here, not by Pillow, whose 16-bit conversion clips)
    for comp, tag in (("raw", ""), ("tiff_lzw", "_lzw"), ("tiff_adobe_deflate", "_deflate"),
                      ("packbits", "_packbits")):
        add("photo%s.tif" % tag, "exact",
            lambda p, comp=comp: Image.fromarray(photo).save(p, compression=comp))
    add("camera.tif", "exact", lambda p: Image.fromarray(gray[:, :, 0]).save(p))
    add("rgba_lzw.tif", "exact",
        lambda p: Image.fromarray(rgba, "RGBA").save(p, compression="tiff_lzw"))
    g16 = (gray[:, :, 0].astype(np.uint32) * 257 + np.arange(64)[None, :] * 3).astype(np.uint16)
    Image.fromarray(g16, "I;16").save(os.path.join(d, "camera16.tif"))
    write_png("formats/camera16_tif.png",
              ((g16.astype(np.uint32) * 255 + 32767) // 65535).astype(np.uint8))
    FORMATS.append(("formats/camera16.tif", "formats/camera16_tif.png", "exact"))
    # JPEG decoders may round the inverse DCT and upsampling differently.
    add("photo.jpg", "jpeg", lambda p: Image.fromarray(photo).save(p, quality=90))
    assert np.array_equal(np.asarray(Image.open(os.path.join(d, "photo.psd")).convert("RGB")), photo)
    with open(os.path.join(d, "formats.tsv"), "w") as f:
        f.write("# file\texpected\ttol   (exact: identical after widening; jpeg: max 12, "
                "mean 1.5; Pillow %s)\n" % Image.__version__)
        for row in FORMATS:
            f.write("\t".join(row) + "\n")


def main():
    for d in DIRS:
        p = os.path.join(HERE, d)
        if os.path.isdir(p):
            shutil.rmtree(p)
        os.makedirs(p)
    self_checks()
    make_inputs()
    make_kernels()
    make_cases()
    make_oriented()
    make_formats()

    with open(os.path.join(HERE, "manifest.tsv"), "w") as f:
        f.write("# id\tinput\tstep\texpected\ttol   (generated by make_golden.py; "
                "paths relative to tests/golden/; numpy %s scipy %s skimage %s)\n"
                % (np.__version__, __import__("scipy").__version__, skimage.__version__))
        for row in CASES:
            assert all("\t" not in x and "\n" not in x for x in row)
            f.write("\t".join(row) + "\n")

    # float32 diagnostic: a plain 32-bit implementation must pass 'near'
    bad = []
    for cid, n, n1, mx in F32_REPORT:
        if mx > 1 or n1 > 0.001 * n:
            bad.append((cid, n, n1, mx))
    if bad:
        for b in bad:
            print("WARNING: float32 emulation outside 'near':", b, file=sys.stderr)
    if "-v" in sys.argv:
        for r in F32_REPORT:
            if r[2]:
                print("f32 diff", r)

    total = 0
    nfiles = 0
    for root, _, files in os.walk(HERE):
        if "__pycache__" in root:
            continue
        for fn in files:
            total += os.path.getsize(os.path.join(root, fn))
            nfiles += 1
    ops = {}
    for row in CASES:
        op = row[2].split(":")[0]
        ops[op] = ops.get(op, 0) + 1
    print("golden: %d cases (%s), %d files, %d bytes; float32 emulation: %d of %d near cases "
          "differ by 1 somewhere, %d outside 'near'"
          % (len(CASES), " ".join("%s=%d" % kv for kv in ops.items()), nfiles, total,
             sum(1 for r in F32_REPORT if r[2]), len(F32_REPORT), len(bad)))


if __name__ == "__main__":
    main()
