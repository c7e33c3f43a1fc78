#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the fuzz harnesses' seed corpora (tests/fuzz/corpus/NAME/): small
files of every format and layout each harness reads, written here by hand
with the standard library alone (PNG through zlib; BMP, TGA, GIF, PSD and
PNM byte by byte). JPEG seeds come from the program itself, given as the
first argument (JPEG writing needs a codec: the seeds need not be
independent of gpuimg, only varied). The seeds of fuzz_tiff, fuzz_webp and
fuzz_metadata are other writers' files: make_seeds_public.py, which this
runs last, makes them with Pillow, tifffile, tiffcp, cwebp, webpmux,
img2webp and ExifTool (see there for what to install). Run from the
checkout's root:

    python3 tests/fuzz/make_seeds.py build/gpuimg
"""
import os
import struct
import subprocess
import sys
import tempfile
import zlib

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus")


def put(harness, name, data):
    d = os.path.join(ROOT, harness)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def pixels(w, h, c, seed=1):
    out = bytearray()
    x = seed
    for i in range(w * h * c):
        x = (x * 1103515245 + 12345) & 0x7FFFFFFF
        out.append(((i * 37) ^ (x >> 16)) & 0xFF)
    return bytes(out)


def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png(w, h, color, depth, rows, interlace=0, extra=b""):
    ihdr = struct.pack(">IIBBBBB", w, h, depth, color, 0, 0, interlace)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + extra +
            chunk(b"IDAT", zlib.compress(rows, 6)) + chunk(b"IEND", b""))


def png_rows(w, h, bits_per_pixel, seed, filters=(0, 1, 2, 3, 4)):
    stride = (w * bits_per_pixel + 7) // 8
    raw = pixels(stride, h, 1, seed)
    return b"".join(bytes([filters[y % len(filters)]]) + raw[y * stride:(y + 1) * stride]
                    for y in range(h))


def adam7_rows(w, h, bpp_bytes, seed):
    passes = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2),
              (0, 1, 1, 2)]
    out = b""
    for x0, y0, dx, dy in passes:
        pw, ph = (w - x0 + dx - 1) // dx, (h - y0 + dy - 1) // dy
        if pw > 0 and ph > 0:
            out += png_rows(pw, ph, 8 * bpp_bytes, seed + x0 + y0, (0, 1))
    return out


def pngs():
    cases = [("gray8", 0, 8, 1), ("rgb8", 2, 8, 3), ("ga8", 4, 8, 2), ("rgba8", 6, 8, 4),
             ("rgb16", 2, 16, 6), ("gray1", 0, 1, None), ("gray4", 0, 4, None)]
    out = {}
    for name, color, depth, nbytes in cases:
        bits = nbytes * 8 if nbytes else depth
        out[name] = png(13, 7, color, depth, png_rows(13, 7, bits, len(out)))
    plte = chunk(b"PLTE", pixels(16, 1, 3, 5)) + chunk(b"tRNS", b"\x00\x80\xff")
    out["palette4"] = png(9, 5, 3, 4, png_rows(9, 5, 4, 9), extra=plte)
    out["adam7"] = png(11, 9, 2, 8, adam7_rows(11, 9, 3, 3), interlace=1)
    return out


def bmp(w, h, bpp, palette=b"", compress=0, masks=b""):
    stride = (w * bpp + 31) // 32 * 4
    data = pixels(stride, h, 1, bpp)
    if bpp <= 8:  # indices within the palette
        n = len(palette) // 4
        data = bytes(v % n for v in data)
    offset = 14 + 40 + len(masks) + len(palette)
    info = struct.pack("<IiiHHIIiiII", 40, w, h, 1, bpp, compress, len(data), 2835, 2835,
                       len(palette) // 4, 0)
    head = b"BM" + struct.pack("<IHHI", offset + len(data), 0, 0, offset)
    return head + info + masks + palette + data


def tga(w, h, kind, bits, cmap=b"", rle=False):
    entry = 24 if cmap else 0
    head = struct.pack("<BBBHHBHHHHBB", 0, 1 if cmap else 0, kind + (8 if rle else 0), 0,
                       len(cmap) // 3, entry, 0, 0, w, h, bits, 0x20)
    n = w * h * (bits // 8)
    body = pixels(n, 1, 1, bits)
    if cmap:
        body = bytes(v % (len(cmap) // 3) for v in body)
    if rle:  # raw packets of up to 128 pixels
        px, out, step = bits // 8, b"", 128
        for i in range(0, w * h, step):
            k = min(step, w * h - i)
            out += bytes([k - 1]) + body[i * px:(i + k) * px]
        body = out
    return head + cmap + body


def gif(w, h):
    # 4 colours, LZW with a clear code before every second index, so every
    # code stays 3 bits wide (the "uncompressed GIF" trick)
    codes, bits = [], []
    idx = pixels(w * h, 1, 1, 3)
    for i, v in enumerate(idx):
        if i % 2 == 0:
            codes.append(4)
        codes.append(v % 4)
    codes.append(5)
    for c in codes:
        bits.extend((c >> k) & 1 for k in range(3))
    data = bytearray()
    for i in range(0, len(bits), 8):
        data.append(sum(b << k for k, b in enumerate(bits[i:i + 8])))
    blocks = b"".join(bytes([len(data[i:i + 255])]) + data[i:i + 255]
                      for i in range(0, len(data), 255))
    return (b"GIF89a" + struct.pack("<HHBBB", w, h, 0x81, 0, 0) + pixels(4, 1, 3, 2) +
            b"," + struct.pack("<HHHHB", 0, 0, w, h, 0) + b"\x02" + blocks + b"\x00;")


def psd(w, h, channels, rle):
    head = b"8BPS" + struct.pack(">H6xHIIHH", 1, channels, h, w, 8, 3)
    head += struct.pack(">III", 0, 0, 0)
    planes = pixels(w * h, channels, 1, 4)
    if not rle:
        return head + struct.pack(">H", 0) + planes
    counts, body = b"", b""
    for row in range(h * channels):
        line = planes[row * w:(row + 1) * w]
        enc = bytes([w - 1]) + line  # one literal run per row (w <= 128)
        counts += struct.pack(">H", len(enc))
        body += enc
    return head + struct.pack(">H", 1) + counts + body


def pnms():
    return {
        "p5.pgm": b"P5\n# comment\r9 4\n255\n" + pixels(9, 4, 1),
        "p6.ppm": b"P6 5 3 255\n" + pixels(5, 3, 3),
        "p6_16.ppm": b"P6\n3 2\n65535\n" + pixels(3, 2, 6),
        "p5_15.pgm": b"P5 4 2 15\n" + bytes(v % 16 for v in pixels(4, 2, 1)),
        "p2.pgm": b"P2\n3 2\n255\n0 17 255\n# c\n3 4 5\n",
        "p3.ppm": b"P3 2 1 65535 0 1 2 65535 300 7\n",
    }


def exif_block(orientation):
    """A little-endian EXIF: IFD0 with Orientation and Make."""
    ifd = struct.pack("<H", 2)
    ifd += struct.pack("<HHII", 0x010F, 2, 7, 38)
    ifd += struct.pack("<HHIHH", 0x0112, 3, 1, orientation, 0)
    ifd += struct.pack("<I", 0)
    return b"II*\x00" + struct.pack("<I", 8) + ifd + b"gpuimg\x00"


ICC = bytes(132)  # a bare header is enough for the parsers: they never read its tags
XMP = b'<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF/></x:xmpmeta>'


def tiff_with_exif():
    """A 4x2 gray TIFF with an EXIF IFD (DateTimeOriginal, ExposureTime),
    little-endian, made byte by byte as tests/check_metadata.c makes it."""
    b = bytearray(512)
    b[0:8] = b"II*\x00\x08\x00\x00\x00"
    ifd0 = [(256, 3, 1, 4), (257, 3, 1, 2), (258, 3, 1, 8), (259, 3, 1, 1), (262, 3, 1, 1),
            (273, 4, 1, 300), (277, 3, 1, 1), (278, 3, 1, 2), (279, 4, 1, 8),
            (34665, 4, 1, 134)]
    b[8:10] = struct.pack("<H", len(ifd0))
    for i, e in enumerate(ifd0):
        b[10 + 12 * i:22 + 12 * i] = struct.pack("<HHII", *e)
    exif = [(33434, 5, 1, 250), (36867, 2, 20, 260)]
    b[134:136] = struct.pack("<H", len(exif))
    for i, e in enumerate(exif):
        b[136 + 12 * i:148 + 12 * i] = struct.pack("<HHII", *e)
    b[250:258] = struct.pack("<II", 1, 250)
    b[260:280] = b"2026:11:24 10:00:00\x00"
    b[300:308] = bytes(30 * i for i in range(8))
    return bytes(b[:308])


def with_metadata_png():
    """A PNG whose orientation (6), profile and XMP the metadata reader sees."""
    extra = (chunk(b"iCCP", b"ICC Profile\x00\x00" + zlib.compress(ICC)) +
             chunk(b"eXIf", exif_block(6)) +
             chunk(b"iTXt", b"XML:com.adobe.xmp\x00\x00\x00\x00\x00" + XMP))
    return png(5, 3, 2, 8, png_rows(5, 3, 24, 5, (0,)), extra=extra)


def with_metadata_jpeg(jpeg):
    """The JPEG with APP1 Exif (orientation 8), APP1 XMP and a profile in two
    APP2 chunks after its SOI."""
    def seg(marker, body):
        return b"\xff" + bytes([marker]) + struct.pack(">H", len(body) + 2) + body
    icc = b"ICC_PROFILE\x00"
    segs = (seg(0xE1, b"Exif\x00\x00" + exif_block(8)) +
            seg(0xE1, b"http://ns.adobe.com/xap/1.0/\x00" + XMP) +
            seg(0xE2, icc + b"\x01\x02" + ICC[:70]) + seg(0xE2, icc + b"\x02\x02" + ICC[70:]))
    return jpeg[:2] + segs + jpeg[2:]


def main():
    gpuimg = sys.argv[1] if len(sys.argv) > 1 else "build/gpuimg"
    load = {}
    for name, data in pngs().items():
        load[name + ".png"] = data
        put("png", name + ".png", data)
    grays = bytes(range(0, 256, 16)) * 4
    load["pal8.bmp"] = bmp(7, 5, 8, palette=grays)
    load["pal4.bmp"] = bmp(9, 3, 4, palette=grays)
    load["pal1.bmp"] = bmp(17, 2, 1, palette=b"\x00\x00\x00\x00\xff\xff\xff\x00")
    load["rgb24.bmp"] = bmp(5, 4, 24)
    load["bitfields32.bmp"] = bmp(3, 3, 32, compress=3,
                                  masks=struct.pack("<III", 0xFF0000, 0xFF00, 0xFF))
    load["rgb.tga"] = tga(6, 4, 2, 24)
    load["rgba_rle.tga"] = tga(7, 3, 2, 32, rle=True)
    load["gray.tga"] = tga(5, 5, 3, 8)
    load["mapped.tga"] = tga(4, 4, 1, 8, cmap=pixels(5, 1, 3, 8))
    load["tiny.gif"] = gif(6, 5)
    load["raw.psd"] = psd(5, 3, 3, False)
    load["rle4.psd"] = psd(6, 2, 4, True)
    load.update(pnms())
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "src.png")
        with open(src, "wb") as f:
            f.write(png(24, 17, 2, 8, png_rows(24, 17, 24, 11, (0,))))
        for name, args in [("q50.jpg", ["--jpeg-quality", "50"]),
                           ("q95.jpg", ["--jpeg-quality", "95"]),
                           ("gray.jpg", ["grayscale"]),
                           ("lossy.webp", ["--jpeg-quality", "60"]),
                           ("lossless.webp", ["--webp-lossless"])]:
            out = os.path.join(tmp, name)
            subprocess.run([gpuimg, "run", src, out, "--backend", "cpu", "--quiet"] + args,
                           check=True)
            with open(out, "rb") as f:
                load[name] = f.read()
            if name.endswith(".jpg"):
                put("jpeg_bands", name, load[name])
    golden = os.path.join(os.path.dirname(ROOT), "..", "golden", "formats")
    for name in ("camera.tif", "camera16.tif", "rgba_lzw.tif"):  # TIFF seeds: Pillow's
        with open(os.path.join(golden, name), "rb") as f:
            load[name] = f.read()
    load["exif.tif"] = tiff_with_exif()
    load["meta.png"] = with_metadata_png()
    load["meta.jpg"] = with_metadata_jpeg(load["q95.jpg"])
    for name, data in load.items():
        put("load", name, data)
        put("info", name, data)
    for i, (w, h, c, level) in enumerate([(1, 1, 1, 0), (17, 3, 3, 6), (40, 40, 4, 9),
                                          (95, 2, 2, 1), (9, 5, 7, 6), (30, 2, 6, 3)]):
        put("png_write", "case%d" % i, bytes([w - 1, h - 1, c - 1, level]) + pixels(64, 1, 1, i))
    kdir = os.path.join(os.path.dirname(ROOT), "..", "golden", "kernels")
    for name in sorted(os.listdir(kdir)):
        if name != "big_63x63.txt":
            with open(os.path.join(kdir, name), "rb") as f:
                put("kernel", name, f.read())
    put("kernel", "commas.txt", b"# a comment\n1, 2, 1\r\n2,4,2 # row\n1 2 1\n")
    steps = ["blur", "blur:sigma=2.5,radius=4,border=wrap", "box:radius=3",
             "convolve:kernel=sharpen,normalize,scale=0.5,bias=-1e1,abs,flip",
             "sobel:border=constant", "rotate:angle=270", "flip:axis=v", "transpose",
             "grayscale", "invert", "equalize", "gamma:gamma=2.2",
             "resize:size=640x480,fit=pad,background=1,2,3,4,filter=cubic,alpha=independent",
             "resize:width=100", "resize:scale=0.5,filter=area", "crop:rect=1,2,3,4",
             "crop:size=3x4,gravity=southeast", "thumbnail:size=224x224,crop,upsize",
             "thumbnail:size=1024,no-shrink-on-load", "unsharp:sigma=1.5,amount=2,threshold=3"]
    for i, s in enumerate(steps):
        put("steps", "step%02d" % i, s.encode())
    argvs = [["blur", "in.png", "out.png", "--sigma", "2"],
             ["--backend", "cpu", "run", "a.png", "b.jpg", "blur:sigma=1", "rotate:angle=90"],
             ["batch", "in", "out", "invert", "--jobs", "2", "--shard", "1/3", "--recursive"],
             ["compare", "a.png", "b.png", "--max-differing", "0.5%", "--fuzz", "3", "--json"],
             ["histogram", "a.png", "--csv", "--plot", "p.png"], ["stats", "-", "--json"],
             ["convolve", "a", "b", "--kernel", "emboss", "--scale", "2"], ["info"],
             ["--help"], ["box", "--help"], ["--threads", "4", "--max-pixels", "100", "sobel",
                                             "x.png", "y.png", "--border", "reflect"]]
    for i, a in enumerate(argvs):
        put("cli", "argv%02d" % i, b"\0".join(x.encode() for x in a))
    public = os.path.join(os.path.dirname(os.path.abspath(__file__)), "make_seeds_public.py")
    subprocess.run([sys.executable, public], check=True)


if __name__ == "__main__":
    main()
