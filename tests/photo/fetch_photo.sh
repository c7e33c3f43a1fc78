#!/bin/bash
# Fetch a real 4000x3000 RGB photograph for tests/photo/check_blur.py.
#
# Source: Debian 12 package lomiri-wallpapers-20.04 (section main, 11 MB),
#   /usr/share/backgrounds/Kleiber_by_Lukas_Baubkus.jpg
#   6028x3391 JPEG, a nuthatch on a tree trunk (camera photograph),
#   Copyright 2021 Lukas Baubkus, licence CC-BY-SA-3.0
#   (see /usr/share/doc/lomiri-wallpapers-20.04/copyright in the package).
# The package is only downloaded (apt-get download) and unpacked into a
# temporary folder with dpkg-deb -x; nothing is installed.
# The image is centre-cropped to 4:3 (4521.33x3391) and resized to 4000x3000
# with Pillow's LANCZOS filter, then written as an 8-bit RGB PNG.
#
# Usage (from the repository root):
#   bash tests/photo/fetch_photo.sh [OUT.png]     (default build/photo_4000x3000.png)
# Needs: Debian 12 with `apt-get update` done, /usr/bin/python3 and python3-pil.
set -euo pipefail

OUT="${1:-build/photo_4000x3000.png}"
PKG="lomiri-wallpapers-20.04"
FILE="usr/share/backgrounds/Kleiber_by_Lukas_Baubkus.jpg"
# sha256 of the JPEG in lomiri-wallpapers-20.04 20.04.0-2 (Debian 12); a
# different value only gives a warning (a newer package may re-encode it).
SRC_SHA256="6572410c09f4492c74ccadde133565a14c0161617d5917d4c820c66d65a44ba7"
WIDTH=4000
HEIGHT=3000
PY=/usr/bin/python3

die() { echo "fetch_photo.sh: error: $*" >&2; exit 1; }

# ---- prerequisites -------------------------------------------------------
command -v apt-get >/dev/null 2>&1 || die "apt-get not found (this script needs Debian 12)"
command -v apt-cache >/dev/null 2>&1 || die "apt-cache not found (this script needs Debian 12)"
command -v dpkg-deb >/dev/null 2>&1 || die "dpkg-deb not found (this script needs Debian 12)"
command -v sha256sum >/dev/null 2>&1 || die "sha256sum not found (coreutils)"
[ -x "$PY" ] || die "$PY not found: apt-get install python3 python3-pil"
"$PY" -c 'import PIL.Image' 2>/dev/null \
    || die "Pillow is not importable by $PY: apt-get install python3-pil"

CANDIDATE="$(apt-cache policy "$PKG" 2>/dev/null | awk '/Candidate:/ {print $2}')"
if [ -z "$CANDIDATE" ] || [ "$CANDIDATE" = "(none)" ]; then
    die "package $PKG is not known to apt: run 'apt-get update' (Debian 12 'bookworm' main must be in the apt sources)"
fi

OUT_DIR="$(dirname -- "$OUT")"
mkdir -p -- "$OUT_DIR" || die "cannot create folder $OUT_DIR"
OUT_ABS="$(cd -- "$OUT_DIR" && pwd)/$(basename -- "$OUT")"

TMP="$(mktemp -d "${TMPDIR:-/tmp}/fetch_photo.XXXXXX")"
trap 'rm -rf -- "$TMP"' EXIT

# ---- download and unpack (not install) ---------------------------------
echo "fetch_photo.sh: downloading $PKG $CANDIDATE (apt-get download; not installed)" >&2
# apt-get download writes into the current folder and checks the .deb
# against the signed archive index.  Run as root, apt warns that the download
# is "performed unsandboxed" (_apt cannot write to the private temp folder);
# that warning is harmless.
mkdir "$TMP/deb"
( cd "$TMP/deb" && apt-get download -q "$PKG=$CANDIDATE" ) >&2 \
    || die "apt-get download $PKG=$CANDIDATE failed (network? apt sources?)"
DEB="$(ls "$TMP"/deb/*.deb 2>/dev/null | head -n1 || true)"
[ -n "$DEB" ] || die "apt-get download produced no .deb"
echo "fetch_photo.sh: $(basename -- "$DEB"), $(stat -c %s "$DEB") bytes" >&2

mkdir "$TMP/root"
dpkg-deb -x "$DEB" "$TMP/root" || die "dpkg-deb -x $DEB failed"
SRC="$TMP/root/$FILE"
[ -f "$SRC" ] || die "$FILE is not in $(basename -- "$DEB")"

SUM="$(sha256sum "$SRC" | awk '{print $1}')"
if [ "$SUM" != "$SRC_SHA256" ]; then
    echo "fetch_photo.sh: warning: $FILE has sha256 $SUM, expected $SRC_SHA256 (package changed?); continuing" >&2
fi
if [ -f "$TMP/root/usr/share/doc/$PKG/copyright" ]; then
    LIC="$(grep -A2 "Kleiber_by_Lukas_Baubkus.jpg" "$TMP/root/usr/share/doc/$PKG/copyright" \
           | awk -F': ' '/^License:/ {print $2; exit}')"
    echo "fetch_photo.sh: licence of $(basename -- "$FILE") per debian/copyright: ${LIC:-unknown}" >&2
fi

# ---- crop/resize to exactly WIDTHxHEIGHT RGB, write PNG -----------------
"$PY" - "$SRC" "$OUT_ABS" "$WIDTH" "$HEIGHT" <<'EOF'
import os, sys
from PIL import Image, ImageOps

src, out, W, H = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
im = Image.open(src)
im = ImageOps.exif_transpose(im)          # honour an EXIF orientation, if any
im = im.convert("RGB")
w, h = im.size
print(f"fetch_photo.sh: source {os.path.basename(src)}: {w}x{h} {im.mode}", file=sys.stderr)
if w < W or h < H:
    # This photo is large enough; only a changed package could get here.
    sys.exit(f"fetch_photo.sh: error: source is {w}x{h}, smaller than {W}x{H}")
# Centre crop to the target aspect (fractional box, so the aspect is exact),
# then LANCZOS resample down to WxH.
if w * H > h * W:                          # too wide: trim left and right
    cw, ch = h * W / H, float(h)
else:                                      # too tall: trim top and bottom
    cw, ch = float(w), w * H / W
left, top = (w - cw) / 2.0, (h - ch) / 2.0
box = (left, top, left + cw, top + ch)
if (w, h) == (W, H):
    res = im
else:
    res = im.resize((W, H), Image.LANCZOS, box=box)
print("fetch_photo.sh: centre crop box (%.2f, %.2f, %.2f, %.2f) -> %dx%d LANCZOS"
      % (box + (W, H)), file=sys.stderr)
assert res.size == (W, H) and res.mode == "RGB"
tmp = out + ".tmp.png"
res.save(tmp, format="PNG", optimize=False, compress_level=6)
chk = Image.open(tmp)
assert chk.size == (W, H) and chk.mode == "RGB", (chk.size, chk.mode)
os.replace(tmp, out)
EOF

echo "fetch_photo.sh: wrote $OUT (${WIDTH}x${HEIGHT} RGB 8-bit PNG, sha256 $(sha256sum "$OUT_ABS" | awk '{print $1}'))" >&2
