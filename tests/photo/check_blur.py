#!/usr/bin/python3
"""Check `gpuimg blur` on a real photograph against an independent float64
NumPy/SciPy reference of SPEC §3 (no gpuimg code is used here).

usage: check_blur.py GPUIMG_BIN PHOTO.png WORKDIR

Runs   GPUIMG_BIN --backend cpu --time blur PHOTO.png WORKDIR/blurred.png
and compares the result with the reference:
  weights w(k) = exp(-k^2 / (2 sigma^2)), k = -6..6, sigma = 2, normalized;
  separable, rows then columns, intermediate kept in float64;
  border reflect101 (dcb|abcd|cba) = scipy.ndimage mode='mirror';
  stored value clamp(floor(v + 0.5), 0, 255).
Passes (exit 0) when no value differs by more than 1 and at most 0.1 % of the
values differ by 1.  Also checks that `GPUIMG_BIN compare PHOTO PHOTO` exits 0
and `GPUIMG_BIN compare PHOTO WORKDIR/blurred.png` exits 1.
Exit 1 on any failed check, 2 on a usage or setup error.
"""
import os
import resource
import subprocess
import sys
import time

try:
    import numpy as np
    from scipy import ndimage
    from PIL import Image
except ImportError as e:  # pragma: no cover
    sys.exit("check_blur.py: error: %s; needs Debian's python3-numpy, "
             "python3-scipy and python3-pil (run with /usr/bin/python3)" % e)

SIGMA = 2.0
RADIUS = 6                      # max(1, ceil(3 * sigma))
MAX_OFF_BY_ONE_FRACTION = 0.001  # 0.1 % of values


def reference_weights(sigma=SIGMA, radius=RADIUS):
    k = np.arange(-radius, radius + 1, dtype=np.float64)
    w = np.exp(-(k * k) / (2.0 * sigma * sigma))
    return w / w.sum()


def reference_blur_channel(plane_u8, w):
    """float64 separable Gaussian of one HxW uint8 plane; returns
    (rounded uint8 plane, unrounded float64 plane)."""
    a = plane_u8.astype(np.float64)
    # rows first (along x, axis 1), then columns (along y, axis 0);
    # correlate1d applies the weights as written (symmetric here anyway).
    t = ndimage.correlate1d(a, w, axis=1, mode="mirror", output=np.float64)
    del a
    v = ndimage.correlate1d(t, w, axis=0, mode="mirror", output=np.float64)
    del t
    r = np.clip(np.floor(v + 0.5), 0, 255).astype(np.uint8)
    return r, v


def self_test():
    """Check the scipy-based reference against a direct evaluation of the SPEC
    formula with an explicit reflect101 index map, on small random planes
    (sides below, at and above the radius, where the mirror repeats)."""
    def r101(i, n):
        if n == 1:
            return 0
        p = 2 * (n - 1)
        i %= p
        return i if i < n else p - i
    w = reference_weights()
    rng = np.random.default_rng(12345)
    worst = 0.0
    for h, wd in ((1, 1), (1, 5), (3, 2), (7, 13), (20, 17)):
        a = rng.integers(0, 256, size=(h, wd)).astype(np.float64)
        rows = np.array([[sum(w[j] * a[y, r101(x + j - RADIUS, wd)] for j in range(2 * RADIUS + 1))
                          for x in range(wd)] for y in range(h)])
        direct = np.array([[sum(w[j] * rows[r101(y + j - RADIUS, h), x] for j in range(2 * RADIUS + 1))
                            for x in range(wd)] for y in range(h)])
        _, v = reference_blur_channel(a.astype(np.uint8), w)
        worst = max(worst, float(np.abs(v - direct).max()))
    if worst > 1e-9:
        raise SystemExit("check_blur.py: error: reference self-test failed (%.3g)" % worst)
    print("reference self-test (scipy vs direct reflect101 sums): max |diff| %.1e" % worst)


def run(cmd):
    print("$ " + " ".join(cmd), flush=True)
    t0 = time.perf_counter()
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    dt = time.perf_counter() - t0
    out = p.stdout.decode("utf-8", "replace")
    err = p.stderr.decode("utf-8", "replace")
    if out.strip():
        print("  stdout:\n" + "".join("    " + l + "\n" for l in out.rstrip("\n").split("\n")), end="")
    if err.strip():
        print("  stderr:\n" + "".join("    " + l + "\n" for l in err.rstrip("\n").split("\n")), end="")
    print("  exit code %d, wall time %.3f s" % (p.returncode, dt), flush=True)
    return p.returncode, dt


def load(path):
    im = Image.open(path)
    im.load()
    a = np.asarray(im)
    if a.dtype != np.uint8:
        raise SystemExit("check_blur.py: error: %s is not 8-bit (mode %s)" % (path, im.mode))
    if a.ndim == 2:
        a = a[:, :, None]
    return im.mode, a


def main(argv):
    if len(argv) != 4:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    gpuimg, photo, workdir = argv[1], argv[2], argv[3]
    if not (os.path.isfile(gpuimg) and os.access(gpuimg, os.X_OK)):
        print("check_blur.py: error: %s is not an executable file (run make?)" % gpuimg, file=sys.stderr)
        return 2
    if not os.path.isfile(photo):
        print("check_blur.py: error: %s not found (run tests/photo/fetch_photo.sh)" % photo, file=sys.stderr)
        return 2
    os.makedirs(workdir, exist_ok=True)
    blurred = os.path.join(workdir, "blurred.png")
    failures = []

    # ---- gpuimg blur (CPU backend) --------------------------------------
    if os.path.exists(blurred):
        os.remove(blurred)
    rc, blur_wall = run([gpuimg, "--backend", "cpu", "--time", "blur", photo, blurred])
    if rc != 0 or not os.path.isfile(blurred):
        print("FAIL: gpuimg blur exited %d" % rc)
        return 1

    # ---- load, reference, compare ---------------------------------------
    mode_in, src = load(photo)
    mode_out, got = load(blurred)
    h, w, c = src.shape
    print("input  %s: %dx%d %s (%d channels)" % (photo, w, h, mode_in, c))
    print("output %s: %dx%d %s" % (blurred, got.shape[1], got.shape[0], mode_out))
    if got.shape != src.shape or mode_out != mode_in:
        print("FAIL: output shape/mode %s %s differs from input %s %s"
              % (got.shape, mode_out, src.shape, mode_in))
        return 1

    self_test()
    wts = reference_weights()
    print("reference: float64, sigma=%g radius=%d reflect101 (scipy mode='mirror'), "
          "weights %s" % (SIGMA, RADIUS, np.array2string(wts, precision=6, max_line_width=200)))
    t0 = time.perf_counter()
    total = h * w * c
    max_diff = 0
    off1 = 0
    off_more = 0
    off1_border = 0
    worst_tie = 0.0       # the largest |frac(v) - 0.5| among off-by-one values
    border = np.zeros((h, w), dtype=bool)
    border[:RADIUS, :] = border[-RADIUS:, :] = True
    border[:, :RADIUS] = border[:, -RADIUS:] = True
    examples = []
    for ch in range(c):
        ref, v = reference_blur_channel(src[:, :, ch], wts)
        d = np.abs(got[:, :, ch].astype(np.int16) - ref.astype(np.int16))
        m = int(d.max())
        n1 = int(np.count_nonzero(d == 1))
        nm = int(np.count_nonzero(d > 1))
        nb = int(np.count_nonzero((d == 1) & border))
        if n1:
            frac = v[d == 1] - np.floor(v[d == 1])
            worst_tie = max(worst_tie, float(np.abs(frac - 0.5).max()))
        if nm and len(examples) < 5:
            ys, xs = np.nonzero(d > 1)
            for y, x in list(zip(ys, xs))[:5 - len(examples)]:
                examples.append("  (x=%d, y=%d, ch=%d): gpuimg %d, reference %d (%.4f)"
                                % (x, y, ch, got[y, x, ch], ref[y, x], v[y, x]))
        print("  channel %d: max |diff| %d, off by 1: %d (%.5f %%), off by >1: %d, "
              "off by 1 within %d px of an edge: %d"
              % (ch, m, n1, 100.0 * n1 / (h * w), nm, RADIUS, nb))
        max_diff = max(max_diff, m)
        off1 += n1
        off_more += nm
        off1_border += nb
        del ref, v, d
    ref_time = time.perf_counter() - t0

    print()
    print("values compared:           %d (%dx%dx%d)" % (total, w, h, c))
    print("max abs difference:        %d" % max_diff)
    print("values off by 1:           %d (%.5f %% of values; limit %.3f %%)"
          % (off1, 100.0 * off1 / total, 100.0 * MAX_OFF_BY_ONE_FRACTION))
    print("values off by more than 1: %d" % off_more)
    print("off by 1 near an edge:     %d" % off1_border)
    if off1:
        print("off-by-one values lie within %.2e of a rounding tie k+0.5 "
              "(float32 vs float64 rounding when this is tiny)" % worst_tie)
    for e in examples:
        print(e)
    print("gpuimg blur wall time:     %.3f s (whole process, --backend cpu)" % blur_wall)
    print("reference compute time:    %.3f s (float64, numpy/scipy; peak RSS of this "
          "script %.0f MiB)" % (ref_time, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0))
    if max_diff > 1:
        failures.append("max abs difference %d > 1" % max_diff)
    if off1 > MAX_OFF_BY_ONE_FRACTION * total:
        failures.append("%d values off by 1 > 0.1 %% of %d" % (off1, total))

    # ---- gpuimg compare --------------------------------------------------
    print()
    rc_same, _ = run([gpuimg, "compare", photo, photo])
    if rc_same != 0:
        failures.append("compare PHOTO PHOTO exited %d, expected 0" % rc_same)
    rc_diff, _ = run([gpuimg, "compare", photo, blurred])
    if rc_diff != 1:
        failures.append("compare PHOTO blurred exited %d, expected 1" % rc_diff)
    print("compare exit codes: identical %d (expected 0), photo vs blurred %d (expected 1)"
          % (rc_same, rc_diff))

    print()
    if failures:
        for f in failures:
            print("FAIL: " + f)
        return 1
    print("PASS: gpuimg blur matches the float64 reference (max |diff| %d, %d off by 1 = %.5f %%)"
          % (max_diff, off1, 100.0 * off1 / total))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
