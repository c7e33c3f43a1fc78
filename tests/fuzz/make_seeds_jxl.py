#!/usr/bin/python3
"""Writes fuzz_jxl's seeds into tests/fuzz/corpus/jxl/ with libjxl's cjxl.

Usage: make_seeds_jxl.py [OUT_DIR]

Needs cjxl (libjxl-tools), Pillow and numpy in /usr/bin/python3, and
ExifTool for the XMP of the JPEG seed.  Each seed is a few hundred bytes to a
few KB: every layout the reader meets (bare codestream and container, VarDCT
and modular, 8/16 bits, gray to RGBA, progressive, a stored ICC profile, a
JPEG transcoded with its orientation, Brotli "brob" Exif box, XMP box and
jbrd, an animation the reader refuses).
"""

import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
from PIL import Image


def cjxl(src, out, *flags):
    subprocess.run(["cjxl", src, out, "--quiet"] + list(flags), check=True,
                   capture_output=True)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "corpus", "jxl")
    os.makedirs(out, exist_ok=True)
    tmp = tempfile.mkdtemp()
    try:
        y, x = np.mgrid[0:12, 0:16]
        rgb = np.stack([x * 15, y * 20, (x + y) * 9], -1).astype(np.uint8)
        rgba = np.dstack([rgb, (x * 16 + 8).astype(np.uint8)])
        Image.fromarray(rgb).save(os.path.join(tmp, "rgb.png"))
        Image.fromarray(rgba).save(os.path.join(tmp, "rgba.png"))
        Image.fromarray(rgba[:, :, [0, 3]], "LA").save(os.path.join(tmp, "la.png"))
        with open(os.path.join(tmp, "gray16.pgm"), "wb") as f:  # Pillow writes no 16-bit PGM
            f.write(b"P5\n16 12\n65535\n" + ((x * 4000 + y * 97) % 65536).astype(">u2").tobytes())
        # a profile libjxl keeps as ICC (check_jxl.py's, not sRGB-equivalent)
        spec = importlib.util.spec_from_file_location(
            "check_jxl", os.path.join(here, "..", "formats", "check_jxl.py"))
        check_jxl = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(check_jxl)
        Image.fromarray(rgb).save(os.path.join(tmp, "icc.png"),
                                  icc_profile=check_jxl.make_icc("seed RGB"))
        exif = Image.Exif()
        exif[0x0112], exif[0x010F] = 6, "SeedMake"
        jpg = os.path.join(tmp, "o6.jpg")
        Image.fromarray(rgb).save(jpg, quality=80, exif=exif.tobytes())
        if shutil.which("exiftool"):
            subprocess.run(["exiftool", "-q", "-overwrite_original", "-XMP-dc:Title=seed", jpg],
                           check=True)
        frames = [Image.fromarray(rgb), Image.fromarray(255 - rgb)]
        frames[0].save(os.path.join(tmp, "anim.gif"), save_all=True, append_images=frames[1:],
                       duration=100, loop=0)

        cjxl(os.path.join(tmp, "rgb.png"), os.path.join(out, "cjxl_d0_rgb.jxl"), "-d", "0")
        cjxl(os.path.join(tmp, "rgb.png"), os.path.join(out, "cjxl_d1_rgb_container.jxl"),
             "-d", "1", "--container=1")
        cjxl(os.path.join(tmp, "rgba.png"), os.path.join(out, "cjxl_d1_rgba.jxl"), "-d", "1")
        cjxl(os.path.join(tmp, "rgba.png"), os.path.join(out, "cjxl_d0_rgba_e1.jxl"), "-d", "0",
             "-e", "1")
        cjxl(os.path.join(tmp, "la.png"), os.path.join(out, "cjxl_d0_gray_alpha.jxl"), "-d", "0")
        cjxl(os.path.join(tmp, "gray16.pgm"), os.path.join(out, "cjxl_d0_gray16.jxl"), "-d", "0")
        cjxl(os.path.join(tmp, "rgb.png"), os.path.join(out, "cjxl_d2_progressive.jxl"),
             "-d", "2", "-p")
        cjxl(os.path.join(tmp, "rgb.png"), os.path.join(out, "cjxl_d1_modular.jxl"),
             "-d", "1", "-m", "1")
        cjxl(os.path.join(tmp, "icc.png"), os.path.join(out, "cjxl_d0_icc.jxl"), "-d", "0")
        cjxl(jpg, os.path.join(out, "cjxl_jpeg_o6_exif_xmp.jxl"), "--lossless_jpeg=1")
        cjxl(os.path.join(tmp, "anim.gif"), os.path.join(out, "cjxl_animated.jxl"), "-d", "0")
    finally:
        shutil.rmtree(tmp)
    for name in sorted(os.listdir(out)):
        print("%6d %s" % (os.path.getsize(os.path.join(out, name)), name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
