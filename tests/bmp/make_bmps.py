#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the BMP and GIF test files of the bmp_gif suite (tests/check_bmp_gif.c)
into tests/bmp/: BMP Suite's kinds of good BMP (palettes of 1, 2, 4 and 8
bits with INFO, OS/2 and V5 headers, RLE8 and RLE4 with their escapes,
16-bit 5-5-5 and bit fields, 24 bits, 32 bits with padding, with alpha
masks and with "fake alpha", top-down, a palette before direct colour,
V3, V4 and V5 headers), good GIFs (LZW whose table fills, interlaced,
transparent with a frame smaller than the screen), and damaged files of
both formats.

Each good file's expected pixels go beside it as a PNG, from the values this
script chose (never from gpuimg's output); cases.tsv lists every file, its
expected PNG and channels, or, for a damaged one, a piece of the error
message. Standard library only (PNG through zlib). Run from anywhere:

    python3 tests/bmp/make_bmps.py
"""
import os
import struct
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
CASES = []  # rows of cases.tsv


def put(name, data):
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(data)


def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png(pixels):
    """pixels: rows of tuples (RGB or RGBA), top row first."""
    h, w, c = len(pixels), len(pixels[0]), len(pixels[0][0])
    raw = b"".join(b"\x00" + bytes(v for px in row for v in px) for row in pixels)
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2 if c == 3 else 6, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(raw, 9)) +
            chunk(b"IEND", b""))


def good(name, data, expected):
    put(name, data)
    exp = name.rsplit(".", 1)[0] + "_expected.png"
    put(exp, png(expected))
    CASES.append(f"good\t{name}\t{exp}\t{len(expected[0][0])}")


def bad(name, data, needle):
    put(name, data)
    CASES.append(f"bad\t{name}\t{needle}")


def scale(v, bits):
    """A field of `bits` bits to 8: round(v * 255 / max), halves up."""
    m = (1 << bits) - 1
    return (2 * v * 255 + m) // (2 * m)


# --- BMP -------------------------------------------------------------------

SRGB = 0x73524742  # 'sRGB', V4/V5's colour space


def info_header(size, w, h, bpp, compression=0, colours=0, masks=(0, 0, 0, 0), image_size=0):
    """An info header of `size` bytes: 16 (OS/2 v2, short), 40, 52, 56, 64
    (OS/2 v2), 108 (V4) or 124 (V5)."""
    if size == 16:
        return struct.pack("<IiiHH", 16, w, h, 1, bpp)
    head = struct.pack("<IiiHHIIiiII", size, w, h, 1, bpp, compression, image_size, 2835, 2835,
                       colours, 0)
    if size == 64:
        return head + bytes(24)
    if size >= 52:
        head += struct.pack("<III", *masks[:3])
    if size >= 56:
        head += struct.pack("<I", masks[3])
    if size >= 108:
        head += struct.pack("<I", SRGB) + bytes(36 + 12)
    if size >= 124:
        head += struct.pack("<IIII", 4, 0, 0, 0)  # LCS_GM_IMAGES, no profile
    assert len(head) == size, (size, len(head))
    return head


def core_header(w, h, bpp):
    return struct.pack("<IHHHH", 12, w, h, 1, bpp)


def bmp(header, data, palette=b"", masks=b"", gap=b""):
    offset = 14 + len(header) + len(masks) + len(palette) + len(gap)
    return (b"BM" + struct.pack("<IHHI", offset + len(data), 0, 0, offset) + header + masks +
            palette + gap + data)


def pack_rows(rows, bpp, top_down=False):
    """rows: top row first, of raw values (indices, 16/32-bit words, or
    (r, g, b) at 24 bits); stored bottom-up unless top_down, each padded
    to 4 bytes."""
    out = b""
    for row in (rows if top_down else rows[::-1]):
        if bpp <= 8:
            bits = "".join(format(v, f"0{bpp}b") for v in row)
            bits += "0" * (-len(bits) % 8)
            line = bytes(int(bits[i:i + 8], 2) for i in range(0, len(bits), 8))
        elif bpp == 16:
            line = b"".join(struct.pack("<H", v) for v in row)
        elif bpp == 24:
            line = b"".join(bytes((b, g, r)) for r, g, b in row)
        else:
            line = b"".join(struct.pack("<I", v) for v in row)
        out += line + bytes(-len(line) % 4)
    return out


def palette_colours(n):
    """n distinct, unlike colours (never gray, so a swapped channel shows)."""
    return [((37 * i + 11) % 256, (91 * i + 200) % 256, (151 * i + 60) % 256) for i in range(n)]


def pal_bytes(colours, entry=4):
    return b"".join(bytes((b, g, r)) + bytes(entry - 3) for r, g, b in colours)


def index_rows(w, h, n):
    return [[(x * 3 + y * 5 + x * y) % n for x in range(w)] for y in range(h)]


def expect_indexed(rows, colours):
    return [[colours[i] for i in row] for row in rows]


def palette_cases():
    for bpp, (w, h) in ((1, (13, 6)), (2, (13, 6)), (4, (13, 6)), (8, (127, 64))):
        n = 1 << bpp
        cols = palette_colours(n)
        rows = index_rows(w, h, n)
        exp = expect_indexed(rows, cols)
        good(f"pal{bpp}.bmp", bmp(info_header(40, w, h, bpp), pack_rows(rows, bpp), pal_bytes(cols)),
             exp)
        if bpp != 2:  # OS/2 v1: 16-bit sides, 3-byte entries, always 2^bpp of them
            good(f"pal{bpp}_core.bmp",
                 bmp(core_header(w, h, bpp), pack_rows(rows, bpp), pal_bytes(cols, 3)), exp)
    # fewer colours than the depth holds (biClrUsed), OS/2 v2 headers, V5,
    # top-down, and a gap between the palette and the pixels
    w, h = 13, 6
    cols = palette_colours(12)
    rows = index_rows(w, h, 12)
    exp = expect_indexed(rows, cols)
    good("pal4_used12.bmp",
         bmp(info_header(40, w, h, 4, colours=12), pack_rows(rows, 4), pal_bytes(cols)), exp)
    cols = palette_colours(256)
    rows = index_rows(w, h, 256)
    exp = expect_indexed(rows, cols)
    good("pal8_os2v2_16.bmp", bmp(info_header(16, w, h, 8), pack_rows(rows, 8), pal_bytes(cols)),
         exp)
    good("pal8_os2v2_64.bmp", bmp(info_header(64, w, h, 8), pack_rows(rows, 8), pal_bytes(cols)),
         exp)
    good("pal8_v5.bmp", bmp(info_header(124, w, h, 8), pack_rows(rows, 8), pal_bytes(cols)), exp)
    good("pal8_topdown.bmp",
         bmp(info_header(40, w, -h, 8), pack_rows(rows, 8, top_down=True), pal_bytes(cols)), exp)
    good("pal8_gap.bmp",
         bmp(info_header(40, w, h, 8), pack_rows(rows, 8), pal_bytes(cols), gap=b"\xee" * 10), exp)


class Rle:
    """An RLE8 or RLE4 stream and the image it paints, built together from
    the same operations: bottom row first, as the stream runs. Pixels no
    operation paints stay None (black in the expected image)."""

    def __init__(self, w, h, bpp):
        self.w, self.h, self.bpp = w, h, bpp
        self.grid = [[None] * w for _ in range(h)]  # grid[0]: the bottom row
        self.x = self.y = 0
        self.data = b""

    def paint(self, v):
        self.grid[self.y][self.x] = v
        self.x += 1

    def run(self, n, a, b=None):
        """n pixels of a (RLE8), or alternating a, b (RLE4)."""
        if self.bpp == 8:
            self.data += bytes((n, a))
            for _ in range(n):
                self.paint(a)
        else:
            self.data += bytes((n, a << 4 | b))
            for i in range(n):
                self.paint(a if i % 2 == 0 else b)

    def literal(self, values):
        n = len(values)
        if self.bpp == 8:
            body = bytes(values)
        else:
            vs = list(values) + [0] * (n % 2)
            body = bytes(vs[i] << 4 | vs[i + 1] for i in range(0, len(vs), 2))
        body += bytes(len(body) % 2)  # to a 16-bit word
        self.data += bytes((0, n)) + body
        for v in values:
            self.paint(v)

    def eol(self):
        self.data += b"\x00\x00"
        self.x, self.y = 0, self.y + 1

    def delta(self, dx, dy):
        self.data += bytes((0, 2, dx, dy))
        self.x, self.y = self.x + dx, self.y + dy

    def eob(self):
        self.data += b"\x00\x01"

    def expected(self, colours):
        black = (0, 0, 0)
        return [[black if v is None else colours[v] for v in row] for row in self.grid[::-1]]


def rle_cases():
    w, h = 13, 6
    cols = palette_colours(16)
    r = Rle(w, h, 8)
    r.run(5, 1), r.literal([7, 8, 9]), r.run(5, 2), r.eol()  # odd literal: padded
    r.literal([3, 4, 5, 6]), r.eol()  # the rest of the row is skipped
    r.run(2, 3), r.delta(3, 1), r.run(8, 4), r.eol()  # a delta to the next row
    r.literal(list(range(13))), r.eol()
    r.run(13, 15), r.eob()
    comp = info_header(40, w, h, 8, compression=1, colours=16, image_size=len(r.data))
    good("rle8.bmp", bmp(comp, r.data, pal_bytes(cols)), r.expected(cols))
    # and one that stops early with end-of-bitmap: the rows above stay unset
    e = Rle(w, h, 8)
    e.run(13, 6), e.eol(), e.run(4, 9), e.delta(2, 2), e.run(3, 10), e.eob()
    comp = info_header(40, w, h, 8, compression=1, colours=16, image_size=len(e.data))
    good("rle8_eob.bmp", bmp(comp, e.data, pal_bytes(cols)), e.expected(cols))

    r = Rle(w, h, 4)
    r.run(5, 1, 2), r.literal([7, 8, 9]), r.run(5, 3, 3), r.eol()
    r.literal([3, 4, 5, 6, 10]), r.eol()
    r.run(2, 3, 12), r.delta(2, 1), r.run(9, 14, 0), r.eol()
    r.literal(list(range(13))), r.eol()
    r.run(13, 15, 11), r.eob()
    comp = info_header(40, w, h, 4, compression=2, colours=16, image_size=len(r.data))
    good("rle4.bmp", bmp(comp, r.data, pal_bytes(cols)), r.expected(cols))
    return cols


def direct_cases():
    w, h = 13, 6
    # 16 bits, BI_RGB: 5-5-5
    f = [[((x * 7 + y) % 32, (x + y * 5) % 32, (x * y + 3) % 32) for x in range(w)]
         for y in range(h)]
    words = [[r << 10 | g << 5 | b for r, g, b in row] for row in f]
    exp = [[tuple(scale(v, 5) for v in px) for px in row] for row in f]
    good("rgb16_555.bmp", bmp(info_header(40, w, h, 16), pack_rows(words, 16)), exp)
    # 5-6-5 bit fields after a 40-byte header, then with a palette before the pixels
    f = [[((x * 7 + y) % 32, (x * 5 + y * 9) % 64, (x * y + 3) % 32) for x in range(w)]
         for y in range(h)]
    words = [[r << 11 | g << 5 | b for r, g, b in row] for row in f]
    exp = [[(scale(r, 5), scale(g, 6), scale(b, 5)) for r, g, b in row] for row in f]
    masks = struct.pack("<III", 0xF800, 0x07E0, 0x001F)
    good("rgb16_565.bmp",
         bmp(info_header(40, w, h, 16, compression=3), pack_rows(words, 16), masks=masks), exp)
    good("rgb16_565_pal.bmp",
         bmp(info_header(40, w, h, 16, compression=3, colours=8), pack_rows(words, 16),
             pal_bytes(palette_colours(8)), masks=masks), exp)
    # 4-4-4-4 with alpha, in a V5 header
    f = [[((x + y) % 16, (x * 3) % 16, (y * 5) % 16, (x * y) % 16) for x in range(w)]
         for y in range(h)]
    words = [[a << 12 | r << 8 | g << 4 | b for r, g, b, a in row] for row in f]
    exp = [[tuple(scale(v, 4) for v in px) for px in row] for row in f]
    good("rgba16_4444.bmp",
         bmp(info_header(124, w, h, 16, compression=3, masks=(0xF00, 0xF0, 0xF, 0xF000)),
             pack_rows(words, 16)), exp)

    # 24 bits: odd width (padding), top-down, and with a palette before the pixels
    w24, h24 = 31, 17
    rgb = [[((x * 8 + y) % 256, (y * 15 + x) % 256, (x * y * 3) % 256) for x in range(w24)]
           for y in range(h24)]
    rgb[0][0], rgb[0][1] = (0, 0, 0), (255, 255, 255)
    good("rgb24.bmp", bmp(info_header(40, w24, h24, 24), pack_rows(rgb, 24)), rgb)
    good("rgb24_topdown.bmp",
         bmp(info_header(40, w24, -h24, 24), pack_rows(rgb, 24, top_down=True)), rgb)
    good("rgb24_pal.bmp",
         bmp(info_header(40, w24, h24, 24, colours=16), pack_rows(rgb, 24),
             pal_bytes(palette_colours(16))), rgb)

    # 32 bits, BI_RGB: the fourth byte is padding, 0x7f here; "fake alpha":
    # it holds anything, 0 in most pixels (read as alpha, most would vanish)
    rgb = [[((x * 19 + y) % 256, (y * 40 + x) % 256, (x * y * 7) % 256) for x in range(w)]
           for y in range(h)]
    plain = [[0x7F << 24 | r << 16 | g << 8 | b for r, g, b in row] for row in rgb]
    good("rgb32.bmp", bmp(info_header(40, w, h, 32), pack_rows(plain, 32)), rgb)
    fake = [[((x * y) % 3 * 0x7F) << 24 | r << 16 | g << 8 | b for x, (r, g, b) in enumerate(row)]
            for y, row in enumerate(rgb)]
    good("rgb32_fakealpha.bmp", bmp(info_header(40, w, h, 32), pack_rows(fake, 32)), rgb)
    good("rgb32_v5_topdown.bmp",
         bmp(info_header(124, w, -h, 32), pack_rows(plain, 32, top_down=True)), rgb)
    # bit fields without alpha: in a 52-byte (V2) header, in other places
    swapped = [[0x55 << 24 | b << 16 | g << 8 | r for r, g, b in row] for row in rgb]
    good("rgb32_h52.bmp",
         bmp(info_header(52, w, h, 32, compression=3, masks=(0xFF, 0xFF00, 0xFF0000, 0)),
             pack_rows(swapped, 32)), rgb)
    good("rgb32_bf.bmp",
         bmp(info_header(40, w, h, 32, compression=3), pack_rows(swapped, 32),
             masks=struct.pack("<III", 0xFF, 0xFF00, 0xFF0000)), rgb)

    # with alpha: a V4 header's masks, a 56-byte (V3) header, BI_ALPHABITFIELDS
    rgba = [[(r, g, b, (x * 40 + y * 13) % 256) for x, (r, g, b) in enumerate(row)]
            for y, row in enumerate(rgb)]
    rgba[1][1] = rgba[1][1][:3] + (0,)
    words = [[a << 24 | r << 16 | g << 8 | b for r, g, b, a in row] for row in rgba]
    am = (0xFF0000, 0xFF00, 0xFF, 0xFF000000)
    good("rgba32_v4.bmp", bmp(info_header(108, w, h, 32, compression=3, masks=am),
                              pack_rows(words, 32)), rgba)
    good("rgba32_h56.bmp", bmp(info_header(56, w, h, 32, compression=3, masks=am),
                               pack_rows(words, 32)), rgba)
    good("rgba32_abf.bmp", bmp(info_header(40, w, h, 32, compression=6), pack_rows(words, 32),
                               masks=struct.pack("<IIII", *am)), rgba)
    # an alpha mask every pixel leaves at 0: opaque
    zero = [[r << 16 | g << 8 | b for r, g, b in row] for row in rgb]
    good("rgba32_zeroalpha.bmp", bmp(info_header(124, w, h, 32, compression=3, masks=am),
                                     pack_rows(zero, 32)), [[px + (255,) for px in row]
                                                            for row in rgb])
    # 10-10-10-2: every field scaled to 8 bits
    f = [[((x * 97 + y * 31) % 1024, (x * 13 + y * 211) % 1024, (x * y * 41) % 1024, (x + y) % 4)
          for x in range(w)] for y in range(h)]
    words = [[a << 30 | r << 20 | g << 10 | b for r, g, b, a in row] for row in f]
    exp = [[(scale(r, 10), scale(g, 10), scale(b, 10), scale(a, 2)) for r, g, b, a in row]
           for row in f]
    good("rgba32_1010102.bmp",
         bmp(info_header(124, w, h, 32, compression=3,
                         masks=(0x3FF00000, 0xFFC00, 0x3FF, 0xC0000000)), pack_rows(words, 32)),
         exp)


def header_with(data, at, fmt, *values):
    b = bytearray(data)
    struct.pack_into(fmt, b, at, *values)
    return bytes(b)


def bad_bmps(cols):
    w, h = 13, 6
    rgb = [[(x, y, x + y) for x in range(w)] for y in range(h)]
    ok24 = bmp(info_header(40, w, h, 24), pack_rows(rgb, 24))
    bad("bad_truncated.bmp", ok24[:-7], "truncated BMP")
    bad("bad_short.bmp", ok24[:30], "truncated BMP")
    bad("bad_offset_past_end.bmp", header_with(ok24, 10, "<I", 5000), "truncated BMP")
    bad("bad_offset_in_header.bmp", header_with(ok24, 10, "<I", 20), "offset")
    bad("bad_depth.bmp", header_with(ok24, 28, "<H", 7), "bad bit depth")
    bad("bad_header_size.bmp", header_with(ok24, 14, "<I", 41), "header size")
    bad("bad_width_negative.bmp", header_with(ok24, 18, "<i", -13), "bad size")
    bad("bad_huge_tiny.bmp", header_with(header_with(ok24, 18, "<i", 30000), 22, "<i", 30000),
        "truncated BMP")
    bad("bad_huge_sides.bmp", header_with(ok24, 18, "<i", 70000), "65535")
    bad("bad_bitfields.bmp",
        bmp(info_header(40, w, h, 32, compression=3), bytes(4 * w * h),
            masks=struct.pack("<III", 0xF0F0, 0xFF00, 0xFF)), "bad bit fields")
    bad("bad_rle_24.bmp", header_with(ok24, 30, "<I", 1), "compression")
    # JPEG inside a BMP (bit depth 0): not read, and said so
    bad("bad_jpeg_inside.bmp", header_with(header_with(ok24, 28, "<H", 0), 30, "<I", 4),
        "BMP compression 4 is not read")
    rows = index_rows(w, h, 16)
    bad("bad_index.bmp",
        bmp(info_header(40, w, h, 8, colours=16), pack_rows(rows, 8)[:-4] + b"\x20\x00\x00\x00",
            pal_bytes(cols)), "palette index past the palette")

    def rle8(stream, height=h, name=None, needle=None):
        head = info_header(40, w, height, 8, compression=1, colours=16, image_size=len(stream))
        bad(name, bmp(head, stream, pal_bytes(cols)), needle)

    rle8(b"\x0e\x01\x00\x01", name="bad_rle8_overrun.bmp", needle="RLE run past the row")
    rle8(b"\x00\x0e" + bytes(14) + b"\x00\x01", name="bad_rle8_literal_overrun.bmp",
         needle="RLE run past the row")
    rle8(b"\x05\x01\x00\x02\x09\x00\x00\x01", name="bad_rle8_delta_out.bmp",
         needle="RLE delta past the image")
    rle8(b"\x0d\x01\x00\x00\x0d\x02\x00\x00", name="bad_rle8_truncated.bmp",
         needle="truncated BMP")
    rle8(b"\x0d\x01\x00\x00\x00\x05\x01\x02", name="bad_rle8_literal_cut.bmp",
         needle="truncated BMP")
    rle8(b"\x0d\x01" + b"\x00\x00" * 7 + b"\x00\x01", name="bad_rle8_past_top.bmp",
         needle="last row")
    rle8(b"\x03\x11\x00\x01", name="bad_rle8_index.bmp", needle="palette index past the palette")
    head = info_header(40, w, -h, 8, compression=1, colours=16, image_size=4)
    bad("bad_rle_topdown.bmp", bmp(head, b"\x0d\x01\x00\x01", pal_bytes(cols)), "top-down RLE")
    head = info_header(40, w, h, 4, compression=2, colours=16, image_size=6)
    bad("bad_rle4_literal_cut.bmp", bmp(head, b"\x00\x07\x12\x34", pal_bytes(cols)),
        "truncated BMP")
    # a tiny RLE file claiming a huge image, its stream cut: refused before
    # any memory is asked for
    head = info_header(40, 30000, 30000, 8, compression=1, colours=16, image_size=4)
    bad("bad_rle8_huge_tiny.bmp", bmp(head, b"\xff\x01\xff\x01", pal_bytes(cols)),
        "truncated BMP")


# --- GIF -------------------------------------------------------------------

def lzw(indices, min_code, full="clear"):
    """GIF's LZW: codes with the widths a decoder reads them at (its table
    one entry behind the encoder's), from a clear code to the end code;
    when the table is full, a clear code (full="clear") or codes without
    new entries ("defer")."""
    clear, end = 1 << min_code, (1 << min_code) + 1
    out = []  # (code, width)
    dec_avail, first = end + 1, True

    def emit(code):
        nonlocal dec_avail, first
        out.append((code, min(12, dec_avail.bit_length())))
        if code in (clear, end):
            return
        if not first and dec_avail < 4096:
            dec_avail += 1
        first = False

    def reset():
        nonlocal dec_avail, first
        dec_avail, first = end + 1, True
        return {(i,): i for i in range(clear)}, end + 1

    emit(clear)
    table, nxt = reset()
    w = ()
    for k in indices:
        wk = w + (k,)
        if wk in table:
            w = wk
            continue
        emit(table[w])
        if nxt < 4096:
            table[wk] = nxt
            nxt += 1
        elif full == "clear":
            emit(clear)
            table, nxt = reset()
        w = (k,)
    if w:
        emit(table[w])
    emit(end)
    return out


def pack_codes(codes):
    acc = bits = 0
    data = bytearray()
    for code, width in codes:
        acc |= code << bits
        bits += width
        while bits >= 8:
            data.append(acc & 0xFF)
            acc >>= 8
            bits -= 8
    if bits:
        data.append(acc)
    return bytes(data)


def sub_blocks(data):
    return b"".join(bytes([len(data[i:i + 255])]) + data[i:i + 255]
                    for i in range(0, len(data), 255)) + b"\x00"


def gif(sw, sh, frame, global_cols=None, local_cols=None, transparent=None, interlaced=False,
        min_code=None, codes=None, blocks=None, background=0):
    """frame: (left, top, rows of indices, top row first)."""
    left, top, rows = frame
    fw, fh = len(rows[0]), len(rows)
    def table_bits(cols):
        return max(1, (len(cols) - 1).bit_length()) if cols else 0

    gbits, lbits = table_bits(global_cols), table_bits(local_cols)
    min_code = min_code or max(2, lbits or gbits)
    out = b"GIF89a" + struct.pack("<HHBBB", sw, sh, (0x80 | (gbits - 1)) if gbits else 0,
                                  background, 0)
    if global_cols:
        out += b"".join(bytes(c) for c in global_cols)
    out += b"!\xfe" + sub_blocks(b"made by make_bmps.py")  # a comment to skip
    if transparent is not None:
        out += b"!\xf9\x04\x01\x00\x00" + bytes([transparent]) + b"\x00"
    flags = (0x40 if interlaced else 0) | ((0x80 | (lbits - 1)) if lbits else 0)
    out += b"," + struct.pack("<HHHHB", left, top, fw, fh, flags)
    if local_cols:
        out += b"".join(bytes(c) for c in local_cols)
    if codes is None:
        order = rows
        if interlaced:
            order = [rows[y] for start, step in ((0, 8), (4, 8), (2, 4), (1, 2))
                     for y in range(start, fh, step)]
        codes = lzw([v for row in order for v in row], min_code)
    data = pack_codes(codes)
    out += bytes([min_code]) + (blocks(data) if blocks else sub_blocks(data))
    return out + b";"


def expect_gif(sw, sh, frame, cols, transparent=None, outside=(0, 0, 0, 0)):
    left, top, rows = frame
    img = [[outside] * sw for _ in range(sh)]
    for y, row in enumerate(rows):
        for x, v in enumerate(row):
            visible = v != transparent and v < len(cols)
            img[top + y][left + x] = tuple(cols[v]) + (255,) if visible else (0, 0, 0, 0)
    return img


def gif_cases():
    # 80 x 60 of 256 colours, scrambled: the table fills and is cleared, or
    # (deferred clear) used full
    cols = palette_colours(256)
    w, h = 80, 60
    rows = [[(x * 7 + y * 13 + (x * y * 29) % 11) % 256 for x in range(w)] for y in range(h)]
    good("gif_clear.gif", gif(w, h, (0, 0, rows), global_cols=cols),
         expect_gif(w, h, (0, 0, rows), cols))
    codes = lzw([v for row in rows for v in row], 8, full="defer")
    good("gif_deferred.gif", gif(w, h, (0, 0, rows), global_cols=cols, codes=codes),
         expect_gif(w, h, (0, 0, rows), cols))
    # interlaced, 13 x 11 (every pass has rows), 4 colours
    cols4 = palette_colours(4)
    rows = index_rows(13, 11, 4)
    good("gif_interlaced.gif", gif(13, 11, (0, 0, rows), global_cols=cols4, interlaced=True),
         expect_gif(13, 11, (0, 0, rows), cols4))
    # a 9 x 5 frame at (3, 2) of a 15 x 8 screen, its own colour table, a
    # transparent index
    cols8 = palette_colours(8)
    rows = index_rows(9, 5, 8)
    frame = (3, 2, rows)
    good("gif_transparent.gif",
         gif(15, 8, frame, global_cols=cols4, local_cols=cols8, transparent=5),
         expect_gif(15, 8, frame, cols8, transparent=5))
    # the same with a background index: the screen outside the frame is
    # that global colour, opaque (as stb_image read it, red and blue no
    # longer swapped); the frame's transparent pixels stay transparent
    good("gif_background.gif",
         gif(15, 8, frame, global_cols=cols4, local_cols=cols8, transparent=5, background=2),
         expect_gif(15, 8, frame, cols8, transparent=5, outside=tuple(cols4[2]) + (255,)))
    return cols4


def bad_gifs(cols4):
    w, h = 13, 6
    rows = index_rows(w, h, 4)
    full = [v for row in rows for v in row]

    def ended(indices):
        return lzw(indices, 2)

    # the LZW data ends (end code) 5 pixels short of the last row's end
    bad("bad_gif_row_short.gif", gif(w, h, (0, 0, rows), global_cols=cols4,
                                      codes=ended(full[:-5])), "truncated GIF")
    # ... and a whole row short
    bad("bad_gif_rows_short.gif", gif(w, h, (0, 0, rows), global_cols=cols4,
                                       codes=ended(full[:-w])), "truncated GIF")
    # an interlaced frame whose last pass is missing
    order = [rows[y] for s, st in ((0, 8), (4, 8), (2, 4), (1, 2)) for y in range(s, h, st)]
    flat = [v for row in order for v in row]
    bad("bad_gif_interlaced_short.gif",
        gif(w, h, (0, 0, rows), global_cols=cols4, interlaced=True, codes=ended(flat[:-2 * w])),
        "truncated GIF")
    # the sub-blocks end (a zero-length block) halfway through the data
    bad("bad_gif_blocks_short.gif",
        gif(w, h, (0, 0, rows), global_cols=cols4, blocks=lambda d: sub_blocks(d[:len(d) // 2])),
        "truncated GIF")
    # the file ends inside the data
    ok = gif(w, h, (0, 0, rows), global_cols=cols4)
    bad("bad_gif_file_cut.gif", ok[:len(ok) - 8], "truncated GIF")
    # no image descriptor: header, colour table, trailer
    bad("bad_gif_no_image.gif",
        b"GIF89a" + struct.pack("<HHBBB", w, h, 0x81, 0, 0) + b"".join(bytes(c) for c in cols4) +
        b";", "no image")
    cut = ok.index(b",")
    assert ok[cut - 1] == 0  # after the comment's last sub-block: the descriptor
    bad("bad_gif_no_descriptor.gif", ok[:cut], "truncated GIF")
    # a code past the table
    bad("bad_gif_code.gif", gif(w, h, (0, 0, rows), global_cols=cols4,
                                codes=[(4, 3), (1, 3), (7, 3), (5, 3)]), "bad LZW code")
    bad("bad_gif_outside.gif", gif(w, h, (3, 0, rows), global_cols=cols4), "outside the screen")


def main():
    for name in os.listdir(HERE):
        if name.endswith((".bmp", ".gif", ".png")):
            os.remove(os.path.join(HERE, name))
    palette_cases()
    cols = rle_cases()
    direct_cases()
    cols4 = gif_cases()
    bad_bmps(cols)
    bad_gifs(cols4)
    with open(os.path.join(HERE, "cases.tsv"), "w") as f:
        f.write("# kind\tfile\texpected PNG and channels, or a piece of the error message"
                " (written by make_bmps.py)\n")
        f.write("\n".join(CASES) + "\n")


if __name__ == "__main__":
    main()
