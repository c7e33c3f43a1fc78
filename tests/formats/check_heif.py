#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""HEIC and AVIF (src/io/heif.c) against libheif's own tools and exiftool.

usage: check_heif.py GPUIMG

- Files made by heif-enc (lossless and lossy) read by gpuimg give exactly
  heif-convert's pixels: both are libheif, so any difference is gpuimg's.
  Their PSNR against the source PNG is then heif-convert's own; it is
  checked against a floor measured on this image (see FLOORS).
- Files gpuimg writes read by heif-convert: --lossless exactly the source
  (RGB and RGBA); lossy, heif-convert's pixels equal gpuimg's own reading of
  the file, whose PSNR is heif-enc's at the same quality.
- Metadata: a JPEG with EXIF (Make, Model, DateTimeOriginal, GPS), an ICC
  profile and XMP (made with Pillow and exiftool) through gpuimg to .heic
  and .avif, and back from .heic to .jpg and .png: exiftool reads the same
  values, the same profile description, and Pillow the same profile bytes.
- Gray stays one channel both ways (monochrome, 4:0:0).
- `info --json` says heif-info's size.

Images are 96x64, so x265 and aom take well under a second each; the whole
script runs in a few seconds. Prints PASS/FAIL lines, exits 1 on a failure,
SKIP when libheif's tools or exiftool are missing.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np
from PIL import Image, ImageCms

GPUIMG = os.path.abspath(sys.argv[1]) if len(sys.argv) > 1 else "build/gpuimg"
W, H = 96, 64

# Lossy thresholds. gpuimg's reading of a heif-enc file must equal
# heif-convert's exactly, so its PSNR to the source is heif-convert's own;
# the floor below that is only a sanity bound: with libheif 1.15.1 (x265
# 3.5, aom 3.6) heif-enc -q 80 of this image gives 34.3 dB (HEIC) and
# 33.0 dB (AVIF), limited by the image's noise (sigma 6); 30 dB leaves room
# for another encoder build, and a real fault (channel order, depth, a
# shifted row) costs far more. gpuimg --jpeg-quality 80 drives the same
# encoder with the same settings, so its file must come within 0.5 dB of
# heif-enc -q 80's (measured: equal, 34.3 and 33.0 dB, files of the same
# size). heif-enc's lossless (-L -p chroma=444) is not exact in 1.15: its
# HEVC path ignores the identity matrix asked for, so its planes are BT.601
# YCbCr rounded at 8 bits (53.4 dB here, values off by 1 at most): 50 dB.
FLOOR_LOSSY = 30.0
FLOOR_ENC_LOSSLESS = 50.0
SAME_ENCODER_DB = 0.5

failures = 0


def report(ok, what):
    global failures
    print(("PASS: " if ok else "FAIL: ") + what)
    if not ok:
        failures += 1


def run(*args, env=None):
    """Runs a command; its stdout, or None (the failure reported)."""
    p = subprocess.run(list(args), capture_output=True, text=True, env=env)
    if p.returncode != 0:
        report(False, "%s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr.strip()))
        return None
    return p.stdout


def pixels(path):
    return np.asarray(Image.open(path)).astype(np.int64)


def psnr(a, b):
    mse = float(np.mean((a - b) ** 2))
    return float("inf") if mse == 0 else 10 * np.log10(255.0 ** 2 / mse)


def source(tmp):
    """A smooth gradient with texture and an edge: what photographs hold."""
    y, x = np.mgrid[0:H, 0:W]
    rng = np.random.default_rng(27)
    rgb = np.stack([x * 2.5, y * 3.5, 128 + 60 * np.sin(x / 7.0) * np.cos(y / 5.0)], -1)
    rgb += rng.normal(0, 6, rgb.shape)
    rgb[20:40, 30:60] = [230, 40, 40]
    rgb = np.clip(np.rint(rgb), 0, 255).astype(np.uint8)
    alpha = np.clip(x * 3 + y, 0, 255).astype(np.uint8)
    Image.fromarray(rgb).save(os.path.join(tmp, "src.png"))
    Image.fromarray(np.dstack([rgb, alpha])).save(os.path.join(tmp, "srca.png"))


def heif_size(path):
    out = run("heif-info", path) or ""
    m = re.search(r"image: (\d+)x(\d+)", out)
    return (int(m.group(1)), int(m.group(2))) if m else None


def info_agrees(path):
    out = run(GPUIMG, "info", path, "--json")
    if out is None:
        return
    j = json.loads(out)
    j = j[0] if isinstance(j, list) else j.get("files", [j])[0] if "files" in j else j
    got = (j.get("width"), j.get("height"))
    want = heif_size(path)
    report(got == want, "info --json %s: %s, heif-info %s" % (os.path.basename(path), got, want))


def read_by_both(tmp, path, name):
    """gpuimg's and heif-convert's pixels of path (equal, or FAIL)."""
    ours, theirs = os.path.join(tmp, name + ".gpuimg.png"), os.path.join(tmp, name + ".hc.png")
    if run(GPUIMG, "run", path, ours) is None or run("heif-convert", path, theirs) is None:
        return None
    a, b = pixels(ours), pixels(theirs)
    same = a.shape == b.shape and np.array_equal(a, b)
    report(same, "%s: gpuimg reads heif-convert's pixels exactly (%s)" % (name, a.shape))
    return a if same else None


def check_pixels(tmp):
    src, srca = pixels(os.path.join(tmp, "src.png")), pixels(os.path.join(tmp, "srca.png"))
    for ext in ("heic", "avif"):
        # heif-enc's files, read by gpuimg
        enc_psnr = None
        for mode, args in (("enc-lossy", ["-q", "80"]), ("enc-lossless", ["-L", "-p", "chroma=444"])):
            path = os.path.join(tmp, "%s.%s" % (mode, ext))
            if run("heif-enc", *args, os.path.join(tmp, "src.png"), "-o", path) is None:
                continue
            a = read_by_both(tmp, path, "%s.%s" % (mode, ext))
            if a is not None:
                p = psnr(a, src)
                floor = FLOOR_LOSSY if mode == "enc-lossy" else FLOOR_ENC_LOSSLESS
                enc_psnr = p if mode == "enc-lossy" else enc_psnr
                report(p >= floor, "%s.%s: PSNR %.2f dB to the source (floor %.1f)"
                       % (mode, ext, p, floor))
            info_agrees(path)
        # gpuimg's files, read by heif-convert
        for name, png, want in (("rgb", "src.png", src), ("rgba", "srca.png", srca)):
            path = os.path.join(tmp, "lossless-%s.%s" % (name, ext))
            if run(GPUIMG, "--lossless", "run", os.path.join(tmp, png), path) is None:
                continue
            back = os.path.join(tmp, "lossless-%s.%s.png" % (name, ext))
            if run("heif-convert", path, back) is not None:
                b = pixels(back)
                report(b.shape == want.shape and np.array_equal(b, want),
                       "gpuimg --lossless %s.%s: heif-convert reads the source exactly" % (name, ext))
        path = os.path.join(tmp, "lossy.%s" % ext)
        if run(GPUIMG, "--jpeg-quality", "80", "run", os.path.join(tmp, "src.png"), path) is not None:
            a = read_by_both(tmp, path, "lossy.%s" % ext)
            if a is not None and enc_psnr is not None:
                p = psnr(a, src)
                report(p >= FLOOR_LOSSY and p >= enc_psnr - SAME_ENCODER_DB,
                       "gpuimg --jpeg-quality 80 .%s: PSNR %.2f dB, heif-enc -q 80's %.2f"
                       % (ext, p, enc_psnr))
            info_agrees(path)


def check_gray(tmp):
    """Gray stays gray: heif-enc's monochrome file is read as one channel,
    heif-convert's R (=G=B); gpuimg's gray --lossless file is heif-convert's
    R, G and B exactly."""
    src = pixels(os.path.join(tmp, "src.png"))
    gray = src[..., 1].astype(np.uint8)
    png = os.path.join(tmp, "gray.png")
    Image.fromarray(gray).save(png)
    for ext in ("heic", "avif"):
        path = os.path.join(tmp, "gray-enc." + ext)
        hc = os.path.join(tmp, "gray-enc.%s.hc.png" % ext)
        ours = os.path.join(tmp, "gray-enc.%s.gpuimg.png" % ext)
        if (run("heif-enc", "-q", "80", png, "-o", path) is None or run("heif-convert", path, hc) is None
                or run(GPUIMG, "run", path, ours) is None):
            continue
        a, b = pixels(ours), pixels(hc)
        report(a.ndim == 2 and b.ndim == 3 and np.array_equal(a, b[..., 0])
               and np.array_equal(b[..., 0], b[..., 2]),
               "heif-enc gray .%s: gpuimg reads one channel, heif-convert's R=G=B" % ext)
        path = os.path.join(tmp, "gray-lossless." + ext)
        hc = os.path.join(tmp, "gray-lossless.%s.hc.png" % ext)
        if run(GPUIMG, "--lossless", "run", png, path) is None or run("heif-convert", path, hc) is None:
            continue
        b = pixels(hc)
        b = b if b.ndim == 2 else b[..., 0] if np.array_equal(b[..., 0], b[..., 2]) else None
        report(b is not None and np.array_equal(b, gray),
               "gpuimg --lossless gray .%s: heif-convert reads the source exactly" % ext)


TAGS = ["Make", "Model", "DateTimeOriginal", "GPSLatitude", "GPSLongitude", "ProfileDescription",
        "Title"]


def exif_of(path):
    out = run("exiftool", "-j", "-n", *["-" + t for t in TAGS], path)
    return json.loads(out)[0] if out else {}


def check_metadata(tmp):
    jpg = os.path.join(tmp, "meta.jpg")
    icc = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
    Image.open(os.path.join(tmp, "src.png")).save(jpg, quality=95, icc_profile=icc)
    if run("exiftool", "-q", "-overwrite_original", "-Make=GpuimgCam", "-Model=HEIF Test 27",
           "-DateTimeOriginal=2026:11:27 20:05:00", "-GPSLatitude=48.8566",
           "-GPSLatitudeRef=N", "-GPSLongitude=2.3522", "-GPSLongitudeRef=E",
           "-XMP-dc:Title=gpuimg heif check", jpg) is None:
        return
    want = exif_of(jpg)
    report(all(t in want for t in TAGS), "the JPEG made carries %s" % ", ".join(TAGS))
    for ext in ("heic", "avif"):
        out = os.path.join(tmp, "meta." + ext)
        if run(GPUIMG, "run", jpg, out) is None:
            continue
        got = exif_of(out)
        diff = [t for t in TAGS if got.get(t) != want.get(t)]
        report(not diff, "JPEG -> .%s: exiftool reads %s back%s"
               % (ext, ", ".join(TAGS), "" if not diff else " (differ: %s: %s vs %s)"
                  % (diff, [got.get(t) for t in diff], [want.get(t) for t in diff])))
    heic = os.path.join(tmp, "meta.heic")
    for ext in ("jpg", "png"):
        out = os.path.join(tmp, "back." + ext)
        if not os.path.exists(heic) or run(GPUIMG, "run", heic, out) is None:
            continue
        got = exif_of(out)
        diff = [t for t in TAGS if got.get(t) != want.get(t)]
        report(not diff, ".heic -> .%s: exiftool reads them back%s" % (ext, "" if not diff else
                                                                       " (differ: %s)" % diff))
        im = Image.open(out)
        exif = im.getexif()
        report(im.info.get("icc_profile") == icc and exif.get(0x010F) == "GpuimgCam"
               and exif.get(0x0110) == "HEIF Test 27",
               ".heic -> .%s: Pillow reads the same ICC bytes, Make and Model" % ext)


def main():
    for tool in ("heif-enc", "heif-convert", "heif-info", "exiftool"):
        if not shutil.which(tool):
            print("SKIP: HEIF cross-check (no %s; install-deps.sh installs it)" % tool)
            return 0
    with tempfile.TemporaryDirectory() as tmp:
        source(tmp)
        check_pixels(tmp)
        check_gray(tmp)
        check_metadata(tmp)
    print("heif cross-check: %s" % ("%d failed" % failures if failures else "all passed"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
