#!/usr/bin/python3
"""Write deterministic damaged variants of the clean JPEGs in this folder.

    /usr/bin/python3 make_damaged.py            # damaged files from clean_*.jpg
    /usr/bin/python3 make_damaged.py --sources  # first remake clean_*.jpg

The clean sources are committed (so the damaged files do not depend on the
encoder at hand); --sources remakes them from ../../samples/*.png with Pillow
(crop and resize only) and the libjpeg encoder in mksrc.c, because Pillow 9.4
cannot write restart intervals.  Build that first:
    gcc -O2 mksrc.c -ljpeg -o /tmp/mksrc      (or set MKSRC=path)

Only the standard library is used for the damage itself: every edit is a
byte-level splice at a position computed from the file's own marker layout,
and the only randomness is random.Random with a fixed seed per file.
"""

import glob
import io
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLES = os.path.join(HERE, "..", "..", "samples")

EOI = b"\xff\xd9"

# name: (sample, width, height, gray, quality, h, v, progressive,
#        restart MCUs, restart rows)
SOURCES = {
    "420": ("chelsea", 160, 120, False, 75, 2, 2, 0, 0, 0),
    "422": ("coffee", 160, 120, False, 75, 2, 1, 0, 0, 0),
    "444": ("astronaut", 128, 96, False, 75, 1, 1, 0, 0, 0),
    "gray": ("camera", 160, 120, True, 75, 1, 1, 0, 0, 0),
    # 192x128 in 16x16 MCUs: 12x8 MCUs, a restart every 4 MCUs = 24 intervals
    "dri": ("chelsea", 192, 128, False, 75, 2, 2, 0, 4, 0),
    # 4:2:2 with a restart every MCU row: 10 rows of 10 MCUs
    "drirow": ("coffee", 160, 80, False, 75, 2, 1, 0, 0, 1),
    "prog": ("astronaut", 160, 120, False, 75, 2, 2, 1, 0, 0),
    # odd size: partial MCUs on the right and at the bottom
    "odd": ("coffee", 131, 77, False, 75, 2, 2, 0, 0, 0),
}


def make_sources():
    """Remake clean_<name>.jpg from the samples (Pillow + mksrc)."""
    from PIL import Image  # only needed here

    mksrc = os.environ.get("MKSRC", "/tmp/mksrc")
    for name, (sample, w, h, gray, q, hs, vs, prog, rmcu, rrow) in SOURCES.items():
        im = Image.open(os.path.join(SAMPLES, sample + ".png"))
        im = im.convert("L" if gray else "RGB")
        # Centre crop to the target aspect ratio, then a plain resize.
        sw, sh = im.size
        if sw * h > sh * w:
            cw = sh * w // h
            im = im.crop(((sw - cw) // 2, 0, (sw - cw) // 2 + cw, sh))
        else:
            ch = sw * h // w
            im = im.crop((0, (sh - ch) // 2, sw, (sh - ch) // 2 + ch))
        im = im.resize((w, h), Image.LANCZOS)
        pnm = io.BytesIO()
        im.save(pnm, "PPM")  # P5 for L, P6 for RGB
        args = [mksrc, str(q), str(hs), str(vs), str(prog), str(rmcu), str(rrow)]
        jpg = subprocess.run(args, input=pnm.getvalue(), stdout=subprocess.PIPE,
                             check=True).stdout
        with open(os.path.join(HERE, "clean_%s.jpg" % name), "wb") as f:
            f.write(jpg)


def segments(data):
    """Walk the marker structure of a clean JPEG.

    Returns (markers, scans): markers is a list of (offset, code, length)
    for every marker segment before EOI (length includes the 2 length bytes,
    0 for markers without one); scans a list of (start, end) byte ranges
    of entropy-coded data, one per SOS, with RST markers inside the range.
    """
    markers, scans = [], []
    p = 2  # after SOI
    while p < len(data):
        assert data[p] == 0xFF, "not a marker at %d" % p
        code = data[p + 1]
        if code == 0xD9:
            markers.append((p, code, 0))
            break
        length = (data[p + 2] << 8) | data[p + 3]
        markers.append((p, code, length))
        p += 2 + length
        if code == 0xDA:
            start = p
            # Entropy data runs to the first marker other than FF00 / RSTn.
            while True:
                if data[p] == 0xFF and data[p + 1] != 0 and not 0xD0 <= data[p + 1] <= 0xD7:
                    break
                p += 1
            scans.append((start, p))
    return markers, scans


def rst_markers(data, start, end):
    """Offsets of the RSTn markers inside one scan's entropy data."""
    return [i for i in range(start, end - 1)
            if data[i] == 0xFF and 0xD0 <= data[i + 1] <= 0xD7]


def safe(data, p):
    """Move p forward to a spot that is not inside a marker or a stuffed
    FF00 pair, so that a splice there only damages entropy bits."""
    while data[p - 1] == 0xFF or data[p] == 0xFF:
        p += 1
    return p


def main_scan(data):
    """The largest scan (the only one for a sequential file)."""
    _, scans = segments(data)
    return max(scans, key=lambda s: s[1] - s[0])


def at(data, frac):
    """A safe position frac of the way through the main scan."""
    s, e = main_scan(data)
    return safe(data, s + int((e - s) * frac))


def eoi_pos(data):
    assert data.endswith(EOI)
    return len(data) - 2


def no_ff(bs):
    """Entropy-looking bytes: an FF would start a marker, so avoid it."""
    return bytes(b if b != 0xFF else 0xFE for b in bs)


# --- damage kinds: each takes the clean bytes and returns damaged bytes ---

def cut_eoi(frac):
    """(a) file cut inside the entropy data, then EOI appended."""
    def f(d):
        _, scans = segments(d)
        s, e = scans[0][0], eoi_pos(d)  # all entropy data, all scans
        return d[:safe(d, s + int((e - s) * frac))] + EOI
    return f


def cut_last2(d):
    """(a) the last 2 entropy bytes before EOI removed, EOI kept."""
    p = eoi_pos(d)
    return d[:p - 2] + EOI


def cut_noeoi(frac):
    """(b) file cut inside the entropy data, nothing appended."""
    def f(d):
        _, scans = segments(d)
        s, e = scans[0][0], eoi_pos(d)
        return d[:safe(d, s + int((e - s) * frac))]
    return f


def cut_noeoi_only(d):
    """(b) only the EOI marker missing."""
    return d[:eoi_pos(d)]


def overwrite(kind, n=16):
    """(c) a run of n bytes in the middle of the main scan overwritten."""
    def f(d, seed):
        p = at(d, 0.5)
        if kind == "zero":
            run = bytes(n)
        elif kind == "ff00":
            run = b"\xff\x00" * (n // 2)
        else:
            rng = random.Random(seed)
            run = no_ff(rng.getrandbits(8) for _ in range(n))
        q = safe(d, p + n)  # do not leave half a stuffed pair behind
        return d[:p] + run + d[q:]
    return f


def bitflip(frac, bit):
    """(d) one bit flipped, avoiding bytes that are or become 0xFF."""
    def f(d):
        p = at(d, frac)
        while d[p] ^ (1 << bit) == 0xFF or d[p] == 0xFF or d[p - 1] == 0xFF:
            p += 1
        return d[:p] + bytes([d[p] ^ (1 << bit)]) + d[p + 1:]
    return f


def insert_before_eoi(extra):
    """(e), (h) bytes inserted just before the final EOI."""
    def f(d):
        p = eoi_pos(d)
        return d[:p] + extra + d[p:]
    return f


def dup_before_eoi(n):
    """(h) n bytes of the scan's own entropy data appended before EOI."""
    def f(d):
        s, _ = main_scan(d)
        p = eoi_pos(d)
        return d[:p] + no_ff(d[s:s + n]) + d[p:]
    return f


def rst_edit(kind, which=0.5):
    """(f) a restart marker removed, renumbered, or two swapped."""
    def f(d):
        s, e = main_scan(d)
        rs = rst_markers(d, s, e)
        i = int(len(rs) * which)
        p = rs[i]
        if kind == "drop":
            return d[:p] + d[p + 2:]
        if kind == "renum":  # RSTn -> RST(n+2)
            return d[:p + 1] + bytes([0xD0 + (d[p + 1] - 0xD0 + 2) % 8]) + d[p + 2:]
        if kind == "swap":  # swap the numbers of two successive markers
            q = rs[i + 1]
            b = bytearray(d)
            b[p + 1], b[q + 1] = d[q + 1], d[p + 1]
            return bytes(b)
        if kind == "all0":  # every marker RST0
            b = bytearray(d)
            for r in rs:
                b[r + 1] = 0xD0
            return bytes(b)
        raise ValueError(kind)
    return f


def rst_short(n, which=0.5):
    """(g) a restart interval cut short: n bytes removed before an RST.
    n = 0 means the whole interval's data is removed."""
    def f(d):
        s, e = main_scan(d)
        rs = rst_markers(d, s, e)
        i = int(len(rs) * which)
        p = rs[i]
        if n == 0:
            q = rs[i - 1] + 2  # start of this interval's data
        else:
            q = p - n
            while d[q - 1] == 0xFF:  # keep stuffed pairs whole
                q -= 1
        return d[:q] + d[p:]
    return f


def rst_short_last(n):
    """(g) the last interval cut short: n bytes removed before EOI."""
    def f(d):
        p = eoi_pos(d)
        q = p - n
        while d[q - 1] == 0xFF:
            q -= 1
        return d[:q] + d[p:]
    return f


def first_marker(d, code):
    markers, _ = segments(d)
    return next(m for m in markers if m[1] == code)


def dht_count(delta, length_index):
    """(i) one of the 16 code-length counts of the first DHT changed."""
    def f(d):
        p, _, _ = first_marker(d, 0xC4)
        i = p + 5 + length_index  # FF C4 Lh Ll Tc/Th counts[16]
        return d[:i] + bytes([(d[i] + delta) & 0xFF]) + d[i + 1:]
    return f


def dht_symbol(d):
    """(i) one symbol of the first DHT changed (code table still valid)."""
    p, _, _ = first_marker(d, 0xC4)
    i = p + 5 + 16 + 1  # second symbol value
    return d[:i] + bytes([d[i] ^ 0x01]) + d[i + 1:]


def sos_field(field, value):
    """(i) a field of the (first) SOS header changed."""
    def f(d):
        p, _, _ = first_marker(d, 0xDA)
        ns = d[p + 4]
        if field == "table":  # first component's DC/AC tables -> 3/3
            i = p + 6
        elif field == "ss":
            i = p + 5 + 2 * ns
        elif field == "se":
            i = p + 5 + 2 * ns + 1
        elif field == "ahal":
            i = p + 5 + 2 * ns + 2
        elif field == "comp":  # first component id -> unknown id
            i = p + 5
        return d[:i] + bytes([value]) + d[i + 1:]
    return f


def soi_mid(d):
    """(j) a second SOI in the middle of the scan."""
    p = at(d, 0.5)
    return d[:p] + b"\xff\xd8" + d[p:]


def soi_twice(d):
    """(j) SOI repeated at the start."""
    return b"\xff\xd8" + d


def eoi_mid(d):
    """An EOI in the middle of the scan (the rest of the file follows)."""
    p = at(d, 0.5)
    return d[:p] + EOI + d[p:]


# name pattern -> (function, sources); {s} is the source name.  Functions
# that take a seed get one derived from the output name (stable across runs).
KINDS = [
    ("cut10_{s}", cut_eoi(0.10), ["420", "422", "444", "gray", "dri", "drirow", "prog", "odd"]),
    ("cut50_{s}", cut_eoi(0.50), ["420", "422", "444", "gray", "dri", "drirow", "prog", "odd"]),
    ("cut90_{s}", cut_eoi(0.90), ["420", "422", "444", "gray", "dri", "drirow", "prog", "odd"]),
    ("cut99_{s}", cut_eoi(0.99), ["420", "dri", "prog"]),
    ("cutlast2_{s}", cut_last2, ["420", "422", "444", "gray", "dri", "drirow", "prog", "odd"]),
    ("noeoi50_{s}", cut_noeoi(0.50), ["420", "gray", "dri", "prog"]),
    ("noeoi90_{s}", cut_noeoi(0.90), ["420", "444", "drirow", "prog"]),
    ("noeoionly_{s}", cut_noeoi_only, ["420", "prog"]),
    ("zero16_{s}", overwrite("zero"), ["420", "422", "gray", "dri", "prog"]),
    ("ff00run_{s}", overwrite("ff00"), ["420", "444", "dri", "prog"]),
    ("rand16_{s}", overwrite("rand"), ["420", "422", "gray", "dri", "prog"]),
    ("flip10b0_{s}", bitflip(0.10, 0), ["420", "gray", "prog"]),
    ("flip50b3_{s}", bitflip(0.50, 3), ["420", "444", "gray", "dri", "prog"]),
    ("flip90b7_{s}", bitflip(0.90, 7), ["420", "422", "gray", "dri", "prog", "odd"]),
    ("extra_{s}", insert_before_eoi(b"GARBAGE!"), ["420", "gray", "dri", "prog"]),
    # libjpeg-turbo's bit buffer reads ahead, so a few trailing bytes after
    # the last MCU are swallowed silently; how many depends on where the last
    # code ends.  These map that boundary (some are ok, some refused).
    ("extra1_{s}", insert_before_eoi(b"\x00"), ["420", "dri"]),
    ("extra2_{s}", insert_before_eoi(b"\x55" * 2), ["gray", "prog"]),
    ("extra4_{s}", insert_before_eoi(b"\x55" * 4), ["420", "dri"]),
    ("extra5_{s}", insert_before_eoi(b"\x55" * 5), ["420"]),
    ("extra6_{s}", insert_before_eoi(b"\x55" * 6), ["420"]),
    ("ff00eoi_{s}", insert_before_eoi(b"\xff\x00"), ["420", "prog"]),
    ("fill_ff_{s}", insert_before_eoi(b"\xff\xff\xff"), ["420"]),  # fill bytes: legal
    ("dup8_{s}", dup_before_eoi(8), ["420", "444", "dri", "drirow", "prog"]),
    ("rstdrop_{s}", rst_edit("drop"), ["dri", "drirow"]),
    ("rstdropfirst_{s}", rst_edit("drop", 0.0), ["dri"]),
    ("rstrenum_{s}", rst_edit("renum"), ["dri", "drirow"]),
    ("rstswap_{s}", rst_edit("swap"), ["dri", "drirow"]),
    ("rstall0_{s}", rst_edit("all0"), ["dri"]),
    ("rstshort1_{s}", rst_short(1), ["dri", "drirow"]),
    ("rstshort8_{s}", rst_short(8), ["dri", "drirow"]),
    ("rstempty_{s}", rst_short(0), ["dri", "drirow"]),
    ("rstlastshort4_{s}", rst_short_last(4), ["dri", "drirow"]),
    ("dhtup_{s}", dht_count(+1, 3), ["420", "gray", "prog"]),
    ("dhtdown_{s}", dht_count(-1, 1), ["420", "gray"]),
    ("dhtsym_{s}", dht_symbol, ["420", "gray"]),
    ("sostable_{s}", sos_field("table", 0x33), ["420"]),
    ("soscomp_{s}", sos_field("comp", 9), ["420"]),
    ("sosss_{s}", sos_field("ss", 1), ["420", "gray"]),
    ("sosse_{s}", sos_field("se", 40), ["420"]),
    ("sosahal_{s}", sos_field("ahal", 0x01), ["444"]),
    ("soimid_{s}", soi_mid, ["420", "prog", "dri"]),
    ("soitwice_{s}", soi_twice, ["gray"]),
    ("eoimid_{s}", eoi_mid, ["420", "prog"]),
]


def main():
    if "--sources" in sys.argv[1:]:
        make_sources()
    # Remove earlier outputs so a renamed kind leaves nothing stale.
    for old in glob.glob(os.path.join(HERE, "*.jpg")):
        if not os.path.basename(old).startswith("clean_"):
            os.remove(old)
    clean = {}
    for name in SOURCES:
        with open(os.path.join(HERE, "clean_%s.jpg" % name), "rb") as f:
            clean[name] = f.read()
    n = 0
    for pattern, fn, sources in KINDS:
        for s in sources:
            out = pattern.format(s=s) + ".jpg"
            if fn.__code__.co_argcount == 2:
                # Seed from the name, not hash() (randomised per process).
                data = fn(clean[s], sum(out.encode()) * 7919)
            else:
                data = fn(clean[s])
            assert data != clean[s], out
            with open(os.path.join(HERE, out), "wb") as f:
                f.write(data)
            n += 1
    print("wrote %d damaged files from %d sources" % (n, len(clean)))


if __name__ == "__main__":
    main()
