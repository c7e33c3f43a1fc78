#!/bin/bash
# SPDX-License-Identifier: MIT
# Golden-image comparison (issue 13): gpuimg compare against ImageMagick's
# `compare -metric AE` and OpenImageIO's `idiff`, each looped over the pairs
# the way a CI script would, on the same files, in one run:
#  1. 100 pairs of 1280x720 screenshot-like PNGs (bench/make_screens.py:
#     84 identical, 10 drawn at a sub-pixel offset, a few with a recoloured
#     panel or a changed footer): one `gpuimg compare DIR DIR` against the
#     anchors' loops;
#  2. one pair of 8K photographs (PNG level 6): the photograph of
#     tests/photo/README resized to 7680x4320, and the same with a block
#     recoloured and 1% of its pixels moved by up to 3 levels;
#  3. that pair with --max-shift 2 --antialiasing against gpuimg's plain run.
# Figures: median, min and max wall seconds of N runs (bench/wall.py) after
# one untimed run. Run it with nothing else on the machine.
# Usage: bench/compare_bench.sh GPUIMG PHOTO_JPG [N] [-- GPUIMG_ARGS...]
#   (PHOTO_JPG: Kleiber_by_Lukas_Baubkus.jpg, see tests/photo/README)
set -euo pipefail
G=${1:?usage: compare_bench.sh GPUIMG PHOTO_JPG [N]}
PHOTO=${2:?usage: compare_bench.sh GPUIMG PHOTO_JPG [N]}
N=${3:-5}
shift $(( $# < 3 ? $# : 3 ))
[ "${1:-}" = -- ] && shift
EXTRA=("$@")
PY=${PYTHON:-/usr/bin/python3}
W=${TMPDIR:-/tmp}/comparebench
mkdir -p $W
here=$(cd "$(dirname "$0")" && pwd)
wall() { "$PY" "$here/wall.py" "$@"; }
echo "=== machine: $(nproc) cores; $(compare -version | head -1 | cut -d' ' -f2-3); $(idiff --help 2>&1 | sed -n 2p)"
[ -d $W/screens ] || "$PY" "$here/make_screens.py" $W/screens 100
[ -f $W/b8k.png ] || "$PY" "$here/make_8k_pair.py" "$PHOTO" $W/a8k.png $W/b8k.png
S=$W/screens
cat > $W/im_loop.sh <<'SH'
#!/bin/bash
# what a CI script does with ImageMagick: one compare per pair
fail=0
for f in "$1"/*.png; do
  compare -metric AE "$f" "$2/$(basename "$f")" null: 2>/dev/null || fail=1
done
exit $fail
SH
cat > $W/idiff_loop.sh <<'SH'
#!/bin/bash
fail=0
for f in "$1"/*.png; do
  idiff -q "$f" "$2/$(basename "$f")" >/dev/null 2>&1 || fail=1
done
exit $fail
SH
chmod +x $W/im_loop.sh $W/idiff_loop.sh
ok() { "$@" || true; } # a comparison that finds differences exits 1
echo "=== 1. 100 pairs of 1280x720 PNG (label median min max, s)"
wall "gpuimg compare DIR DIR" $N bash -c "'$G' ${EXTRA[*]:-} -q compare $S/goldens $S/renders >/dev/null; true"
wall "gpuimg --threshold 0.1 --antialiasing" $N bash -c "'$G' ${EXTRA[*]:-} -q compare $S/goldens $S/renders --threshold 0.1 --antialiasing >/dev/null; true"
wall "imagemagick compare -metric AE loop" $N bash -c "$W/im_loop.sh $S/goldens $S/renders; true"
wall "idiff loop" $N bash -c "$W/idiff_loop.sh $S/goldens $S/renders; true"
echo "=== 2. one 8K pair (PNG)"
wall "gpuimg compare" $N bash -c "'$G' ${EXTRA[*]:-} -q compare $W/a8k.png $W/b8k.png >/dev/null; true"
wall "gpuimg compare --max-shift 2 --antialiasing" $N bash -c "'$G' ${EXTRA[*]:-} -q compare $W/a8k.png $W/b8k.png --max-shift 2 --antialiasing >/dev/null; true"
wall "gpuimg compare --ssim" $N bash -c "'$G' ${EXTRA[*]:-} -q compare $W/a8k.png $W/b8k.png --ssim >/dev/null; true"
wall "imagemagick compare -metric AE" $N bash -c "compare -metric AE $W/a8k.png $W/b8k.png null: 2>/dev/null; true"
wall "idiff" $N bash -c "idiff $W/a8k.png $W/b8k.png >/dev/null 2>&1; true"
echo "=== figures"
"$G" ${EXTRA[@]+"${EXTRA[@]}"} compare $W/a8k.png $W/b8k.png --max-shift 2 --antialiasing | head -3 || true
"$G" ${EXTRA[@]+"${EXTRA[@]}"} -q compare $S/goldens $S/renders | tail -1 || true
