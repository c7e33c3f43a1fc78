#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the seed corpora of fuzz_tiff, fuzz_webp and fuzz_metadata
(tests/fuzz/corpus/{tiff,webp,metadata}/) with public generators, so that
the seeds are other writers' files, not gpuimg's own: Pillow and tifffile
(pip install Pillow tifffile numpy), libtiff's tiffcp, libwebp's cwebp,
webpmux and img2webp, and ExifTool (Debian: libtiff-tools, webp,
libimage-exiftool-perl). Each seed's name starts with the generator that
made it (pil_, tf_, tiffcp_, cwebp_, webpmux_, img2webp_, exiftool_);
those whose name has "_moved" are a generator's file with its chunks put
in another order by this script (WebP's EXIF and XMP before the
bitstream, where webpmux puts them after), "_split" a Pillow JPEG whose
profile this script cut into two APP2 segments. make_seeds.py runs it;
alone, from the checkout's root:

    python3 tests/fuzz/make_seeds_public.py
"""
import hashlib
import io
import os
import shutil
import struct
import subprocess
import tempfile

import numpy
import tifffile
from PIL import Image, ImageCms, PngImagePlugin

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")
HARNESSES = ("tiff", "webp", "metadata")
LIMIT = 20000  # bytes a seed may have


def put(harness, name, data):
    assert len(data) <= LIMIT, (harness, name, len(data))
    with open(os.path.join(ROOT, harness, name), "wb") as f:
        f.write(data)


def run(*args):
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def pattern(h, w, c, dtype=numpy.uint8, seed=1):
    """Gradients and a little noise: every value different enough that a
    turned, flipped or mixed-up image shows."""
    y, x, k = numpy.mgrid[0:h, 0:w, 0:c]
    rng = numpy.random.default_rng(seed)
    top = numpy.iinfo(dtype).max
    v = (x * 37 + y * 11 + k * 71) % 256 + rng.integers(0, 8, size=(h, w, c))
    v = v * (top // 255) if top > 255 else v % 256
    a = v.astype(dtype)
    return a[:, :, 0] if c == 1 else a


def pil(mode, w=23, h=17, seed=1):
    c = {"L": 1, "LA": 2, "RGB": 3, "RGBA": 4, "CMYK": 4}[mode]
    a = pattern(h, w, c, seed=seed)
    if mode in ("LA", "RGBA"):  # a real alpha: opaque, transparent and between
        a[..., -1] = (numpy.arange(w) * 255 // (w - 1))[None, :]
    return Image.fromarray(a, mode)


def pil_bytes(img, fmt, **kw):
    b = io.BytesIO()
    img.save(b, fmt, **kw)
    return b.getvalue()


def lcms_profile(space):
    """LittleCMS's built-in profile (through Pillow), its creation date set
    to a fixed one and its MD5 profile ID made again, so that the seeds
    are the same from one run to the next."""
    icc = bytearray(ImageCms.ImageCmsProfile(ImageCms.createProfile(space)).tobytes())
    icc[24:36] = struct.pack(">6H", 2026, 1, 1, 0, 0, 0)
    if any(icc[84:100]):
        zeroed = bytearray(icc)
        zeroed[44:48], zeroed[64:68], zeroed[84:100] = bytes(4), bytes(4), bytes(16)
        icc[84:100] = hashlib.md5(zeroed).digest()
    return bytes(icc)


SRGB = lcms_profile("sRGB")  # v4, mluc description
LAB = lcms_profile("LAB")  # v2, desc description
XYZ = lcms_profile("XYZ")


def exiftool_exif(tmp, name, *tags):
    """A bare EXIF block (TIFF structure, "II*\\0" or "MM\\0*") made from
    nothing by ExifTool."""
    out = os.path.join(tmp, name + ".exif")
    run("exiftool", "-q", "-o", out, *tags)
    return read(out)


def exiftool_xmp(tmp, name, *tags):
    out = os.path.join(tmp, name + ".xmp")
    run("exiftool", "-q", "-o", out, *tags)
    return read(out)


def ifd0_tags(o, order):
    return ["-ExifByteOrder=" + order, "-Orientation#=%d" % o, "-Make=gpuimg seeds",
            "-Model=Model %d" % o, "-Software=ExifTool", "-ModifyDate=2026:01:0%d 10:20:30" % o]


GPS = ["-GPSLatitude=48.8584", "-GPSLatitudeRef=N", "-GPSLongitude=2.2945",
       "-GPSLongitudeRef=E", "-GPSAltitude=35", "-GPSTimeStamp=12:34:56"]
EXIF_IFD = ["-DateTimeOriginal=2026:01:02 03:04:05", "-ExposureTime=1/125", "-FNumber=2.8",
            "-ISO=200", "-UserComment=seed", "-FocalLength=35"]


def tiffs(tmp):
    out = {}
    # Pillow: strips, each mode and compression it writes
    for name, mode, comp in [("gray8_lzw", "L", "tiff_lzw"), ("la_packbits", "LA", "packbits"),
                             ("rgb_raw", "RGB", None), ("rgba_lzw", "RGBA", "tiff_lzw"),
                             ("cmyk_deflate", "CMYK", "tiff_adobe_deflate"),
                             ("rgb_deflate", "RGB", "tiff_adobe_deflate")]:
        out["pil_%s.tif" % name] = pil_bytes(pil(mode), "TIFF", compression=comp)
    g16 = Image.fromarray(pattern(17, 23, 1, numpy.uint16))  # mode I;16
    out["pil_gray16_deflate.tif"] = pil_bytes(g16, "TIFF", compression="tiff_adobe_deflate")
    out["pil_palette_lzw.tif"] = pil_bytes(pil("RGB").quantize(16), "TIFF",
                                           compression="tiff_lzw")
    out["pil_bilevel_g4.tif"] = pil_bytes(pil("L").convert("1"), "TIFF", compression="group4")
    out["pil_rgb_jpeg.tif"] = pil_bytes(pil("RGB", 32, 24), "TIFF", compression="jpeg",
                                          quality=80)
    for o in range(2, 9):  # the Orientation tag, each value
        out["pil_orient%d.tif" % o] = pil_bytes(pil("RGB", 7, 5, seed=o), "TIFF",
                                                tiffinfo={274: o})
    out["pil_icc_srgb.tif"] = pil_bytes(pil("RGB"), "TIFF", icc_profile=SRGB,
                                        compression="tiff_lzw")
    # tifffile: byte orders, tiles (the image not a whole number of them),
    # separate planes, 16 bits, MinIsWhite, float, gray+alpha, several pages
    def tf(name, data, **kw):
        b = io.BytesIO()
        tifffile.imwrite(b, data, **kw)
        out["tf_%s.tif" % name] = b.getvalue()
    tf("rgb8_be", pattern(13, 11, 3), byteorder=">", photometric="rgb")
    tf("rgb16_be_zlib", pattern(13, 11, 3, numpy.uint16), byteorder=">", photometric="rgb",
       compression="zlib", predictor=True)
    tf("gray16_le_tiles", pattern(37, 29, 1, numpy.uint16), byteorder="<",
       photometric="minisblack", tile=(16, 16), compression="zlib")
    tf("rgb8_be_tiles_48x16", pattern(21, 53, 3), byteorder=">", photometric="rgb",
       tile=(16, 48))
    tf("rgba8_tiles", pattern(19, 17, 4), photometric="rgb", tile=(16, 16),
       extrasamples=["unassalpha"], compression="zlib")
    tf("rgb8_planar", pattern(9, 14, 3), photometric="rgb", planarconfig="separate",
       byteorder=">")
    tf("ga16", pattern(9, 10, 2, numpy.uint16), photometric="minisblack",
       extrasamples=["unassalpha"])
    tf("miniswhite", pattern(8, 12, 1), photometric="miniswhite")
    tf("float32", pattern(6, 7, 1, numpy.uint16).astype(numpy.float32) / 65535,
       photometric="minisblack")
    tf("rgb8_rows3", pattern(11, 9, 3), photometric="rgb", rowsperstrip=3)
    xmp = exiftool_xmp(tmp, "tf", "-XMP-dc:Title=tifffile seed", "-XMP-tiff:Orientation#=6")
    tf("orient6_xmp", pattern(5, 7, 3), photometric="rgb",
       extratags=[(274, "H", 1, 6, True), (700, "B", len(xmp), xmp, True)])
    b = io.BytesIO()
    with tifffile.TiffWriter(b) as t:
        t.write(pattern(6, 8, 3), photometric="rgb")
        t.write(pattern(9, 4, 1), photometric="minisblack")
    out["tf_two_pages.tif"] = b.getvalue()
    # tiffcp: its compressions, predictors, byte orders, tiles and planes
    rgb = os.path.join(tmp, "base_rgb.tif")
    rgba = os.path.join(tmp, "base_rgba.tif")
    gray = os.path.join(tmp, "base_gray.tif")
    pil("RGB", 33, 21).save(rgb)
    pil("RGBA", 33, 21).save(rgba)
    pil("L", 33, 21).save(gray)
    for name, src, args in [("rgb_lzw_pred", rgb, ["-c", "lzw:2"]),
                            ("rgb_zip_pred_be", rgb, ["-B", "-c", "zip:2"]),
                            ("rgba_packbits_tiles", rgba, ["-c", "packbits", "-t", "-w", "32",
                                                           "-l", "16"]),
                            ("rgb_jpeg_ycbcr", rgb, ["-c", "jpeg:50"]),
                            ("rgb_jpeg_tiles", rgb, ["-c", "jpeg:60", "-t", "-w", "16", "-l",
                                                     "16"]),
                            ("rgba_separate_zip", rgba, ["-p", "separate", "-c", "zip"]),
                            ("gray_lzw_be_tiles", gray, ["-B", "-c", "lzw", "-t", "-w", "16",
                                                         "-l", "32"]),
                            ("gray_strips4", gray, ["-c", "none", "-r", "4"])]:
        dst = os.path.join(tmp, "tiffcp_%s.tif" % name)
        run("tiffcp", *args, src, dst)
        out["tiffcp_%s.tif" % name] = read(dst)
    dst = os.path.join(tmp, "multi.tif")
    run("tiffcp", "-c", "lzw", gray, rgb, dst)
    out["tiffcp_two_pages.tif"] = read(dst)
    # ExifTool: an EXIF IFD (and GPS IFD) in either byte order, XMP
    for name, src in [("exif_ifd_le", rgb), ("exif_gps_be", os.path.join(
            tmp, "tiffcp_rgb_zip_pred_be.tif"))]:
        dst = os.path.join(tmp, "exiftool_%s.tif" % name)
        tags = EXIF_IFD + (GPS if "gps" in name else []) + ["-Orientation#=8"]
        run("exiftool", "-q", "-o", dst, *tags, src)
        out["exiftool_%s.tif" % name] = read(dst)
    dst = os.path.join(tmp, "exiftool_xmp_icc.tif")
    run("exiftool", "-q", "-o", dst, "-XMP-dc:Title=seed", "-XMP-dc:Creator=ExifTool",
        "-ICC_Profile<=" + os.path.join(tmp, "lab.icc"), gray)
    out["exiftool_xmp_icc.tif"] = read(dst)
    return out


def riff_chunks(data):
    pos, chunks = 12, []
    while pos + 8 <= len(data):
        n = struct.unpack("<I", data[pos + 4:pos + 8])[0]
        chunks.append(data[pos:pos + 8 + n + (n & 1)])
        pos += 8 + n + (n & 1)
    return chunks


def riff(chunks):
    body = b"WEBP" + b"".join(chunks)
    return b"RIFF" + struct.pack("<I", len(body)) + body


def webps(tmp):
    out = {}
    rgb, rgba, gray = (os.path.join(tmp, n + ".png") for n in ("rgb", "rgba", "gray"))
    pil("RGB", 24, 17).save(rgb)
    pil("RGBA", 24, 17).save(rgba)
    pil("L", 24, 17).save(gray)
    for name, src, args in [("lossy_q50", rgb, ["-q", "50"]),
                            ("lossy_q90_m6_sharp", rgb, ["-q", "90", "-m", "6", "-sharp_yuv"]),
                            ("lossless", rgb, ["-lossless"]),
                            ("lossless_alpha_z9", rgba, ["-lossless", "-z", "9"]),
                            ("lossy_alpha", rgba, ["-q", "70"]),
                            ("lossy_alpha_filtered", rgba, ["-q", "70", "-alpha_q", "50",
                                                            "-alpha_filter", "best"]),
                            ("near_lossless", rgba, ["-near_lossless", "60"]),
                            ("lossless_exact", rgba, ["-lossless", "-exact"]),
                            ("lossy_gray", gray, ["-q", "80"]),
                            ("lossy_segments", rgb, ["-q", "40", "-segments", "1", "-f", "0",
                                                     "-sns", "0"])]:
        dst = os.path.join(tmp, "cwebp_%s.webp" % name)
        run("cwebp", "-quiet", *args, src, "-o", dst)
        out["cwebp_%s.webp" % name] = read(dst)
    exif6 = exiftool_exif(tmp, "w6", *ifd0_tags(6, "II"))
    exif8 = exiftool_exif(tmp, "w8", *ifd0_tags(8, "MM"), *GPS)
    exif3 = exiftool_exif(tmp, "w3", *ifd0_tags(3, "II"))
    exif5 = exiftool_exif(tmp, "w5", *ifd0_tags(5, "MM"))
    xmp = exiftool_xmp(tmp, "w", "-XMP-dc:Title=webp seed", "-XMP-dc:Creator=webpmux")
    files = {"icc": os.path.join(tmp, "srgb.icc"), "xmp": os.path.join(tmp, "w.xmp")}
    for name, data in [("exif6", exif6), ("exif8", exif8), ("exif3", exif3), ("exif5", exif5),
                       ("exif6_prefixed", b"Exif\0\0" + exif6)]:
        files[name] = os.path.join(tmp, name + ".bin")
        with open(files[name], "wb") as f:
            f.write(data)

    def mux(name, src, *sets):
        cur = os.path.join(tmp, "cwebp_%s.webp" % src)
        for i, (kind, what) in enumerate(sets):
            dst = os.path.join(tmp, "mux_%s_%d.webp" % (name, i))
            run("webpmux", "-set", kind, files[what], cur, "-o", dst)
            cur = dst
        out["webpmux_%s.webp" % name] = read(cur)
        return out["webpmux_%s.webp" % name]
    mux("lossy_icc", "lossy_q50", ("icc", "icc"))
    mux("lossless_exif6", "lossless", ("exif", "exif6"))
    mux("alpha_icc_exif8_xmp", "lossy_alpha", ("icc", "icc"), ("exif", "exif8"),
        ("xmp", "xmp"))
    mux("exif_prefixed", "lossy_q90_m6_sharp", ("exif", "exif6_prefixed"))
    mux("lossless_alpha_exif3", "lossless_alpha_z9", ("exif", "exif3"))
    both = mux("lossless_exif5_xmp", "lossless", ("exif", "exif5"), ("xmp", "xmp"))
    # the same chunks, EXIF and XMP before the bitstream (VP8X first still)
    chunks = riff_chunks(both)
    meta = [c for c in chunks if c[:4] in (b"EXIF", b"XMP ")]
    rest = [c for c in chunks if c[:4] not in (b"EXIF", b"XMP ")]
    out["webpmux_lossless_exif5_xmp_moved.webp"] = riff(rest[:1] + meta + rest[1:])
    # img2webp: an animation (two frames; only still WebPs are read)
    dst = os.path.join(tmp, "anim.webp")
    run("img2webp", "-loop", "0", "-lossy", "-q", "50", "-d", "100", rgb, "-d", "100", rgba,
        "-o", dst)
    out["img2webp_animated.webp"] = read(dst)
    dst = os.path.join(tmp, "anim_ll.webp")
    run("img2webp", "-lossless", rgba, gray, "-o", dst)
    out["img2webp_animated_lossless.webp"] = read(dst)
    # Pillow's own WebP writer with its metadata
    out["pil_lossless_exif_icc.webp"] = pil_bytes(pil("RGBA", 16, 9), "WEBP", lossless=True,
                                                  exif=exif8, icc_profile=SRGB)
    out["pil_lossy_xmp.webp"] = pil_bytes(pil("RGB", 16, 9), "WEBP", quality=60, xmp=xmp)
    return out


def jpeg_segments(jpeg):
    """SOI, then each marker segment up to SOS, then the rest."""
    pos, segs = 2, []
    while jpeg[pos + 1] != 0xDA:
        n = struct.unpack(">H", jpeg[pos + 2:pos + 4])[0]
        segs.append(jpeg[pos:pos + 2 + n])
        pos += 2 + n
    return segs, jpeg[pos:]


def split_icc(jpeg):
    """A Pillow JPEG whose one APP2 ICC_PROFILE segment is cut into two,
    numbered 2 of 2 then 1 of 2 (readers take them in any order)."""
    segs, rest = jpeg_segments(jpeg)
    out = []
    for s in segs:
        if s[1] == 0xE2 and s[4:16] == b"ICC_PROFILE\0":
            icc = s[18:]
            half = len(icc) // 2
            for seq, part in ((2, icc[half:]), (1, icc[:half])):
                body = b"ICC_PROFILE\0" + bytes([seq, 2]) + part
                out.append(b"\xff\xe2" + struct.pack(">H", len(body) + 2) + body)
        else:
            out.append(s)
    return b"\xff\xd8" + b"".join(out) + rest


# The data of PNG's colour chunks: sRGB's gamma (1/2.2) and chromaticities
# (cHRM, x and y times 100000: white, red, green, blue), perceptual sRGB,
# and cICP's BT.2020 primaries, PQ, RGB, full range.
COLOUR_CHUNKS = {
    "gAMA": struct.pack(">I", 45455),
    "cHRM": struct.pack(">8I", 31270, 32900, 64000, 33000, 30000, 60000, 15000, 6000),
    "sRGB": b"\0",
    "cICP": bytes([9, 16, 0, 1]),
}


def colour_chunks(*types):
    info = PngImagePlugin.PngInfo()
    for t in types:
        info.add(t.encode(), COLOUR_CHUNKS[t])
    return info


def metadata(tmp, webp):
    out = {}
    # bare EXIF blocks (ExifTool, from nothing): each orientation, both
    # byte orders, IFD0's Make/Model/Software/DateTime, an EXIF IFD, a GPS IFD
    for o in range(1, 9):
        order = "II" if o % 2 else "MM"
        extra = (EXIF_IFD if o in (2, 5) else []) + (GPS if o in (3, 6) else [])
        out["exiftool_orient%d_%s.exif" % (o, order.lower())] = exiftool_exif(
            tmp, "m%d" % o, *ifd0_tags(o, order), *extra)
    out["exiftool_no_orientation.exif"] = exiftool_exif(
        tmp, "none", "-ExifByteOrder=MM", "-Make=gpuimg seeds", "-Artist=ExifTool", *EXIF_IFD)
    e = Image.Exif()  # Pillow's own EXIF writer ("Exif\0\0" and its TIFF structure)
    e[0x0112], e[0x010F], e[0x0110], e[0x0131], e[0x0132] = (
        7, "Pillow", "seed", "Pillow", "2026:02:03 04:05:06")
    out["pil_orient7_prefixed.exif"] = e.tobytes()
    out["pil_orient7.exif"] = e.tobytes()[6:]
    # ICC profiles (Pillow's LittleCMS): v4 sRGB (mluc), v2 Lab (desc), XYZ
    out["pil_srgb_v4.icc"], out["pil_lab_v2.icc"], out["pil_xyz.icc"] = SRGB, LAB, XYZ
    # XMP packets (ExifTool)
    out["exiftool_dc.xmp"] = exiftool_xmp(tmp, "dc", "-XMP-dc:Title=seed",
                                          "-XMP-dc:Creator=ExifTool", "-XMP-dc:Subject=a,b")
    out["exiftool_tiff_exif.xmp"] = exiftool_xmp(tmp, "te", "-XMP-tiff:Orientation#=6",
                                                 "-XMP-exif:DateTimeOriginal=2026:01:02 03:04",
                                                 "-XMP-tiff:Make=gpuimg seeds")
    # files carrying them: Pillow's PNG (eXIf, iCCP, iTXt plain and
    # compressed) and JPEG (APP1 Exif and XMP, APP2 ICC), ExifTool's
    # edits of a JPEG, webpmux's WebPs
    exif6 = out["exiftool_orient6_mm.exif"]
    xmp = out["exiftool_dc.xmp"]
    info = PngImagePlugin.PngInfo()
    info.add_itxt("XML:com.adobe.xmp", xmp.decode(), zip=False)
    out["pil_meta.png"] = pil_bytes(pil("RGB", 6, 4), "PNG", exif=exif6, icc_profile=SRGB,
                                    pnginfo=info)
    info = PngImagePlugin.PngInfo()
    info.add_itxt("XML:com.adobe.xmp", xmp.decode(), zip=True)
    out["pil_meta_zip_xmp.png"] = pil_bytes(pil("RGBA", 5, 3), "PNG",
                                            exif=out["exiftool_orient3_ii.exif"],
                                            icc_profile=LAB, pnginfo=info)
    # PNG's colour chunks besides iCCP (gAMA, cHRM, sRGB, cICP), which
    # Pillow writes as given: sRGB's own values; a gray one with cICP; and
    # an sRGB beside an iCCP (which the specification forbids, the profile
    # winning)
    out["pil_colour_gama_chrm.png"] = pil_bytes(pil("RGB", 6, 4), "PNG",
                                                pnginfo=colour_chunks("gAMA", "cHRM"))
    out["pil_colour_gray_cicp_srgb.png"] = pil_bytes(
        pil("L", 5, 3), "PNG", pnginfo=colour_chunks("cICP", "sRGB", "gAMA"))
    out["pil_colour_icc_srgb.png"] = pil_bytes(pil("RGBA", 4, 4), "PNG", icc_profile=SRGB,
                                               pnginfo=colour_chunks("sRGB", "cHRM"))
    jpeg = pil_bytes(pil("RGB", 8, 8), "JPEG", quality=50,
                     exif=b"Exif\0\0" + out["exiftool_orient8_mm.exif"], icc_profile=SRGB,
                     xmp=xmp)
    out["pil_meta.jpg"] = jpeg
    out["pil_meta_icc_split.jpg"] = split_icc(jpeg)
    src = os.path.join(tmp, "plain.jpg")
    with open(src, "wb") as f:
        f.write(pil_bytes(pil("L", 8, 8), "JPEG", quality=50))
    dst = os.path.join(tmp, "exiftool.jpg")
    run("exiftool", "-q", "-o", dst, *ifd0_tags(5, "II"), *GPS, "-XMP-dc:Title=ExifTool",
        "-ICC_Profile<=" + os.path.join(tmp, "xyz.icc"), src)
    out["exiftool_meta.jpg"] = read(dst)
    for name in ("webpmux_alpha_icc_exif8_xmp.webp", "webpmux_exif_prefixed.webp",
                 "webpmux_lossless_exif5_xmp_moved.webp"):
        out[name] = webp[name]
    return out


def main():
    for h in HARNESSES:
        d = os.path.join(ROOT, h)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
    with tempfile.TemporaryDirectory() as tmp:
        for name, data in (("srgb", SRGB), ("lab", LAB), ("xyz", XYZ)):
            with open(os.path.join(tmp, name + ".icc"), "wb") as f:
                f.write(data)
        for name, data in tiffs(tmp).items():
            put("tiff", name, data)
        webp = webps(tmp)
        for name, data in webp.items():
            put("webp", name, data)
        for name, data in metadata(tmp, webp).items():
            put("metadata", name, data)


if __name__ == "__main__":
    main()
