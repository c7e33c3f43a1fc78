#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Issue 27's folder of phone photographs through the web export, made with
other tools than gpuimg (heif-enc, Pillow, exiftool), checked with exiftool
and Pillow:

    batch photos/ web/ thumbnail:size=N colour:to=srgb --format jpg

photos/ holds a HEIC and an AVIF (heif-enc from a JPEG with a Display P3
profile and an iPhone's EXIF: Make, Model, DateTimeOriginal, GPS), a P3
JPEG stored sideways with EXIF Orientation 6, a CMYK JPEG with a CMYK
profile, a PNG screenshot (sRGB chunk), a 16-bit TIFF scan with an Adobe
RGB profile, and notes.txt. Every image comes out named, upright, sRGB
(its profile "sRGB built-in", no CMYK one), within the box, with the
camera's EXIF where it had one; notes.txt is named in the summary.

    /usr/bin/python3 tests/formats/check_phone_folder.py build/gpuimg [WORKDIR] [SIZE] [PHOTO]

PHOTO (default samples/coffee.png) is the scene every file holds; with a
4000x3000 photograph and SIZE 1600 it is issue 27's own run.

GPUIMG_BACKEND picks the backend (make test-formats: cpu; on the GPU
machine: cuda). Prints PASS/FAIL lines; exit 1 on a failure; SKIP without
heif-enc or exiftool.
"""
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
from PIL import Image

GPUIMG = os.path.abspath(sys.argv[1])
WORK = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp(prefix="gpuimg-phone-")
SIZE = int(sys.argv[3]) if len(sys.argv) > 3 else 160
HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLES = os.path.join(HERE, "..", "..", "samples")
PHOTO = os.path.abspath(sys.argv[4]) if len(sys.argv) > 4 else os.path.join(SAMPLES, "coffee.png")
CMYK_ICC = "/usr/share/color/icc/ghostscript/default_cmyk.icc"
ADOBE_ICC = "/usr/share/color/icc/compatibleWithAdobeRGB1998.icc"
CAMERA = ["-Make=Apple", "-Model=iPhone 15 Pro", "-DateTimeOriginal=2026:11:20 10:11:12",
          "-GPSLatitude=48.8566", "-GPSLatitudeRef=N", "-GPSLongitude=2.3522",
          "-GPSLongitudeRef=E"]
failed = []


def run(*args, **kw):
    return subprocess.run(args, check=True, capture_output=True, text=True, **kw)


def judge(name, ok, text):
    print("%s %s: %s" % ("PASS" if ok else "FAIL", name, text))
    if not ok:
        failed.append(name)


def tags(path, *names):
    out = run("exiftool", "-s", "-s", *["-" + n for n in names], path).stdout
    return dict(line.split(": ", 1) for line in out.splitlines() if ": " in line)


def make_folder(photos, source, p3_icc):
    os.makedirs(photos)
    big = Image.open(source).convert("RGB")
    w, h = big.size
    # the phone's own: P3 JPEG with the camera's EXIF, then HEIC and AVIF of it
    cam = os.path.join(WORK, "camera.jpg")
    big.save(cam, quality=92, icc_profile=p3_icc)
    run("exiftool", "-q", "-overwrite_original", *CAMERA, cam)
    run("heif-enc", "-q", "70", cam, "-o", os.path.join(photos, "IMG_0001.HEIC"))
    run("heif-enc", "-A", "-q", "70", cam, "-o", os.path.join(photos, "IMG_0002.avif"))
    # stored sideways: the pixels turned a quarter anticlockwise, Orientation 6
    side = os.path.join(photos, "IMG_0003.jpg")
    big.transpose(Image.Transpose.ROTATE_90).save(side, quality=92, icc_profile=p3_icc)
    run("exiftool", "-q", "-overwrite_original", *CAMERA, "-Orientation#=6", side)
    # a print shop's CMYK
    cmyk = os.path.join(photos, "flyer_cmyk.jpg")
    big.convert("CMYK").save(cmyk, quality=92, icc_profile=open(CMYK_ICC, "rb").read())
    # a screenshot: PNG with an sRGB chunk
    shot = Image.fromarray(np.asarray(big)[: h // 2, : w // 2])
    shot.save(os.path.join(photos, "Screenshot 2026-11-20.png"), srgb=True)
    # a 16-bit scan in Adobe RGB (Pillow writes no 16-bit RGB TIFF: gpuimg
    # widens the photograph, exiftool gives it the profile and no EXIF)
    scan = os.path.join(photos, "scan_16bit.tif")
    run(GPUIMG, "--quiet", "--strip", "--depth", "16", "run", source, scan)
    run("exiftool", "-q", "-overwrite_original", "-icc_profile<=" + ADOBE_ICC, scan)
    with open(os.path.join(photos, "notes.txt"), "w") as f:
        f.write("not an image\n")
    return w, h


def main():
    for t in ("heif-enc", "exiftool"):
        if not shutil.which(t):
            print("SKIP: phone folder (no %s: install-deps.sh installs it)" % t)
            return 0
    os.makedirs(WORK, exist_ok=True)
    photos, web = os.path.join(WORK, "photos"), os.path.join(WORK, "web")
    shutil.rmtree(photos, ignore_errors=True)
    shutil.rmtree(web, ignore_errors=True)
    # gpuimg's Display P3 profile (its own output's), as a phone embeds one
    run(GPUIMG, "--quiet", "colour", os.path.join(SAMPLES, "coffee.png"),
        os.path.join(WORK, "p3.png"), "--to", "display-p3")
    with Image.open(os.path.join(WORK, "p3.png")) as im:
        p3_icc = im.info["icc_profile"]
    w, h = make_folder(photos, PHOTO, p3_icc)
    r = subprocess.run([GPUIMG, "batch", photos, web, "thumbnail:size=%d" % SIZE,
                        "colour:to=srgb", "--format", "jpg"], capture_output=True, text=True)
    judge("batch exits 0", r.returncode == 0, "exit %d: %s" % (r.returncode, r.stderr.strip()))
    judge("the summary names notes.txt", "notes.txt" in r.stderr, r.stderr.strip().splitlines()[-1]
          if r.stderr.strip() else "no summary")
    for name in sorted(os.listdir(photos)):
        if name == "notes.txt":
            continue
        out = os.path.join(web, os.path.splitext(name)[0] + ".jpg")
        if not os.path.exists(out):
            judge(name, False, "no output %s" % out)
            continue
        with Image.open(out) as im:
            ow, oh = im.size
        t = tags(out, "ProfileDescription", "ColorSpaceData", "Make", "Model",
                 "DateTimeOriginal", "GPSLatitude", "Orientation")
        upright = (ow >= oh) == (w >= h)  # every file holds the same landscape scene
        judge(name + ": upright, within the box", upright and max(ow, oh) <= SIZE,
              "%dx%d" % (ow, oh))
        judge(name + ": sRGB", t.get("ProfileDescription", "").startswith("sRGB") and
              t.get("ColorSpaceData") == "RGB", "%r %r" % (t.get("ProfileDescription"),
                                                         t.get("ColorSpaceData")))
        if name.startswith("IMG_"):
            judge(name + ": the camera's EXIF", t.get("Make") == "Apple" and
                  t.get("Model") == "iPhone 15 Pro" and
                  t.get("DateTimeOriginal") == "2026:11:20 10:11:12" and
                  "48 deg 51" in t.get("GPSLatitude", "") and
                  t.get("Orientation", "Horizontal (normal)") == "Horizontal (normal)",
                  "%r" % t)
    print("phone folder: %d failed (work in %s)" % (len(failed), WORK))
    if not failed and len(sys.argv) <= 2:
        shutil.rmtree(WORK)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
