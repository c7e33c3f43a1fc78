#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Colour (SPEC section 2) against LittleCMS's own programs: tificc and
jpgicc (Debian's liblcms2-utils) on the same pixels, profiles and intent.

    /usr/bin/python3 tests/formats/check_colour.py build/gpuimg [WORKDIR]

- CMYK TIFF and CMYK JPEG (Adobe's inverted values, as Pillow and Photoshop
  write them) with a real CMYK profile (Ghostscript's "Artifex CMYK SWOP",
  Debian's libgs-common) read as RGB: within 1 of tificc on the same CMYK
  values; the JPEG's output against jpgicc's (a JPEG, so a PSNR); no CMYK
  profile left on the RGB pixels; without a profile, the naive inversion.
- `colour` from Display P3 (gpuimg's profile) and Adobe RGB (Debian's
  icc-profiles-free) to sRGB, and from sRGB to Display P3 and to
  icc-profiles-free's sRGB.icc, both intents: within 1 of tificc, the
  target's profile carried.
- With GPUIMG_BACKEND=cuda (the GPU machine), every `colour` output also
  against the CPU backend's: within 1 in at most 1% of values (SPEC).
Prints PASS/FAIL/INFO lines; exit 1 on a failure. SKIP without the tools.
"""
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
from PIL import Image

GPUIMG = os.path.abspath(sys.argv[1])
WORK = sys.argv[2] if len(sys.argv) > 2 else tempfile.mkdtemp(prefix="gpuimg-colour-")
HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLES = os.path.join(HERE, "..", "..", "samples")
CMYK_ICC = "/usr/share/color/icc/ghostscript/default_cmyk.icc"
ADOBE_ICC = "/usr/share/color/icc/compatibleWithAdobeRGB1998.icc"
SRGB_ICC = "/usr/share/color/icc/sRGB.icc"
BACKEND = os.environ.get("GPUIMG_BACKEND", "cpu")
failed = []


def tool(*args):
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def gpuimg(*args, backend=None):
    env = dict(os.environ, GPUIMG_BACKEND=backend or BACKEND)
    r = subprocess.run((GPUIMG,) + args, env=env, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("gpuimg %s: exit %d: %s" % (" ".join(args), r.returncode, r.stderr))


def pixels(path):
    with Image.open(path) as im:
        return np.asarray(im.convert("RGB") if im.mode not in ("RGB", "I;16") else im).astype(np.int64)


def path(name):
    return os.path.join(WORK, name)


def judge(name, ok, text):
    print("%s %s: %s" % ("PASS" if ok else "FAIL", name, text))
    if not ok:
        failed.append(name)


def within(name, got, want, most=1, share=1.0):
    d = np.abs(got - want)
    off = float(np.count_nonzero(d)) / d.size
    judge(name, d.max() <= most and off <= share,
          "max diff %d, %.3f%% of values differ" % (d.max(), 100 * off))


def psnr(a, b):
    mse = np.mean((a.astype(np.float64) - b) ** 2)
    return 99.0 if mse == 0 else 10 * np.log10(255.0 ** 2 / mse)


def exif_tag(p, tag):
    r = subprocess.run(["exiftool", "-s3", "-" + tag, p], capture_output=True, text=True)
    return r.stdout.strip()


def photo(w=320, h=240):
    """A photograph (samples/chelsea.png, cropped) and its saturated
    corner: a P3 image holds colours sRGB does not."""
    with Image.open(os.path.join(SAMPLES, "chelsea.png")) as im:
        a = np.asarray(im.convert("RGB"))[:h, :w].copy()
    y, x = np.mgrid[0:h // 4, 0:w // 4]
    a[:h // 4, :w // 4, 0] = (x * 255 // max(1, w // 4 - 1)).astype(np.uint8)
    a[:h // 4, :w // 4, 1] = (y * 255 // max(1, h // 4 - 1)).astype(np.uint8)
    a[:h // 4, :w // 4, 2] = 255 - a[:h // 4, :w // 4, 0]
    return a


def against_cpu(name, out, *args):
    """On CUDA: the same command on the CPU backend, within SPEC's allowance."""
    if BACKEND != "cuda":
        return
    cpu = out.replace(".", "_cpu.", 1)
    gpuimg(*[cpu if a == out else a for a in args], backend="cpu")
    within(name + " (cuda against cpu)", pixels(out), pixels(cpu), 1, 0.01)


def cmyk_checks():
    icc = open(CMYK_ICC, "rb").read()
    rng = np.random.default_rng(5)
    y, x = np.mgrid[0:180, 0:240]
    cmyk = np.stack([x * 255 // 239, y * 255 // 179, (x + y) % 256,
                     rng.integers(0, 90, (180, 240))], -1).astype(np.uint8)
    Image.fromarray(cmyk, "CMYK").save(path("cmyk.tif"), icc_profile=icc)
    Image.fromarray(cmyk, "CMYK").save(path("cmyk.jpg"), quality=95, icc_profile=icc)
    Image.fromarray(cmyk, "CMYK").save(path("cmyk_plain.jpg"), quality=95)

    # TIFF: gpuimg reads it as RGB; tificc converts the same file
    gpuimg("run", path("cmyk.tif"), path("cmyk_gpuimg.tif"))
    tool("tificc", "-t0", path("cmyk.tif"), path("cmyk_tificc.tif"))
    within("CMYK TIFF against tificc", pixels(path("cmyk_gpuimg.tif")),
           pixels(path("cmyk_tificc.tif")))
    judge("CMYK TIFF: no CMYK profile on the RGB output",
          exif_tag(path("cmyk_gpuimg.tif"), "ColorSpaceData") != "CMYK",
          "ColorSpaceData %r" % exif_tag(path("cmyk_gpuimg.tif"), "ColorSpaceData"))

    # JPEG: the CMYK values libjpeg decodes (Pillow reads Adobe's inverted
    # ones as plain CMYK), through tificc, against gpuimg's reading
    with Image.open(path("cmyk.jpg")) as im:
        decoded = np.asarray(im)
    Image.fromarray(decoded, "CMYK").save(path("cmyk_decoded.tif"), icc_profile=icc)
    tool("tificc", "-t0", path("cmyk_decoded.tif"), path("cmyk_decoded_tificc.tif"))
    gpuimg("run", path("cmyk.jpg"), path("cmyk_jpg_gpuimg.png"))
    within("CMYK JPEG (Adobe, inverted) against tificc on its decoded values",
           pixels(path("cmyk_jpg_gpuimg.png")), pixels(path("cmyk_decoded_tificc.tif")))
    # jpgicc writes a JPEG: the same conversion, then its own encoding
    tool("jpgicc", "-q", "100", path("cmyk.jpg"), path("cmyk_jpgicc.jpg"))
    p = psnr(pixels(path("cmyk_jpg_gpuimg.png")), pixels(path("cmyk_jpgicc.jpg")))
    judge("CMYK JPEG against jpgicc's JPEG (quality 100)", p >= 45, "PSNR %.1f dB (>= 45)" % p)
    gpuimg("run", path("cmyk.jpg"), path("cmyk_gpuimg.jpg"))
    judge("CMYK JPEG: no CMYK profile on the RGB JPEG",
          exif_tag(path("cmyk_gpuimg.jpg"), "ColorSpaceData") != "CMYK",
          "ColorSpaceData %r" % exif_tag(path("cmyk_gpuimg.jpg"), "ColorSpaceData"))

    # no profile: the naive inversion of the decoded values
    with Image.open(path("cmyk_plain.jpg")) as im:
        c = np.asarray(im).astype(np.int64)
    k = 255 - c[:, :, 3:4]
    naive = ((255 - c[:, :, :3]) * k + 127) // 255
    gpuimg("run", path("cmyk_plain.jpg"), path("cmyk_plain.png"))
    within("CMYK JPEG without a profile: the naive inversion", pixels(path("cmyk_plain.png")),
           naive, most=0)


def colour_checks():
    a = photo()
    Image.fromarray(a).save(path("srgb.tif"))
    # gpuimg's Display P3 profile, taken from its own output
    gpuimg("colour", path("srgb.tif"), path("p3_made.png"), "--to", "display-p3")
    with Image.open(path("p3_made.png")) as im:
        p3_icc = im.info["icc_profile"]
    open(path("display_p3.icc"), "wb").write(p3_icc)
    judge("colour --to display-p3 carries Display P3",
          exif_tag(path("p3_made.png"), "ProfileDescription") == "Display P3",
          exif_tag(path("p3_made.png"), "ProfileDescription"))
    adobe = open(ADOBE_ICC, "rb").read()
    # the same photograph's values taken as P3 and as Adobe RGB (wide
    # gamuts: its saturated corner lies outside sRGB)
    Image.fromarray(a).save(path("p3.tif"), tiffinfo={34675: p3_icc})
    Image.fromarray(a).save(path("adobe.tif"), tiffinfo={34675: adobe})
    cases = [("Display P3 to sRGB", "p3.tif", "srgb", []),
             ("Adobe RGB to sRGB", "adobe.tif", "srgb", []),
             ("Adobe RGB to sRGB.icc (icc-profiles-free)", "adobe.tif", SRGB_ICC, ["-o", SRGB_ICC]),
             ("sRGB to Display P3", "srgb.tif", "display-p3", ["-o", path("display_p3.icc")])]
    for what, src, to, out_profile in cases:
        for intent, name in ((0, "perceptual"), (1, "relative")):
            mine = path("%s_%s_%s.tif" % (src[:-4], os.path.basename(to)[:8], name))
            ref = mine.replace(".tif", "_tificc.tif")
            args = ("colour", path(src), mine, "--to", to, "--intent", name)
            gpuimg(*args)
            tool("tificc", "-t%d" % intent, *out_profile, path(src), ref)
            within("colour %s, %s, against tificc" % (what, name), pixels(mine), pixels(ref))
            against_cpu("colour %s, %s" % (what, name), mine, *args)
    desc = exif_tag(path("adobe_sRGB.icc_relative.tif"), "ProfileDescription")
    judge("colour --to sRGB.icc carries that profile", "sRGB" in desc, repr(desc))
    # a step among others: batch's web export
    os.makedirs(path("web_in"), exist_ok=True)
    shutil.copy(path("p3.tif"), path("web_in/p3.tif"))
    gpuimg("batch", path("web_in"), path("web_out"), "thumbnail:size=100", "colour:to=srgb",
           "--format", "jpg")
    judge("batch thumbnail + colour:to=srgb writes sRGB",
          exif_tag(path("web_out/p3.jpg"), "ProfileDescription").startswith("sRGB"),
          exif_tag(path("web_out/p3.jpg"), "ProfileDescription"))


def main():
    for t in ("tificc", "jpgicc", "exiftool"):
        if not shutil.which(t):
            print("SKIP: colour cross-check (no %s: install-deps.sh installs it)" % t)
            return 0
    for p in (CMYK_ICC, ADOBE_ICC, SRGB_ICC):
        if not os.path.exists(p):
            print("SKIP: colour cross-check (no %s: install-deps.sh installs it)" % p)
            return 0
    os.makedirs(WORK, exist_ok=True)
    cmyk_checks()
    colour_checks()
    print("colour cross-check: %d failed (work in %s)" % (len(failed), WORK))
    if not failed and len(sys.argv) <= 2:
        shutil.rmtree(WORK)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
