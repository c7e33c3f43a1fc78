#!/bin/bash
# SPDX-License-Identifier: MIT
# Golden-image comparison against blazediff (issue 28), whole process, side
# by side in one run on the same files (bench/wall.py: median, min, max of
# N runs after one untimed run):
#  1. 100 pairs of 1280x720 screenshot-like PNGs (bench/make_screens.py)
#     with --threshold 0.1 --antialiasing: one `gpuimg compare DIR DIR`
#     against blazediff 6 called once per pair in one Python loop;
#  2. the same with the renders written again by Pillow at level 1 (no
#     pair byte-identical, so every one is decoded), and both with
#     --max-shift 2 (the group shift rule's cost);
#  3. the 100 goldens against byte-identical copies;
#  4. one pair of 8K photographs (bench/make_8k_pair.py), the same options.
# Run it with nothing else on the machine.
# Usage: bench/compare_blazediff.sh GPUIMG [N]
set -euo pipefail
G=${1:?usage: compare_blazediff.sh GPUIMG [N]}
N=${2:-5}
PY=${PYTHON:-/usr/bin/python3}
BPY=${BLAZEDIFF_PYTHON:-python3} # the Python that has PyPI's blazediff
here=$(cd "$(dirname "$0")" && pwd)
W=${TMPDIR:-/tmp}/comparebench
mkdir -p "$W"
wall() { "$PY" "$here/wall.py" "$@"; }
[ -d "$W/screens" ] || "$PY" "$here/make_screens.py" "$W/screens" 100
if [ ! -f "$W/b8k.png" ]; then
    [ -f "$W/photo.png" ] || bash "$here/../tests/photo/fetch_photo.sh" "$W/photo.png"
    "$PY" "$here/make_8k_pair.py" "$W/photo.png" "$W/a8k.png" "$W/b8k.png"
fi
S=$W/screens
# the renders written again by another PNG writer setting (Pillow, level 1):
# the same pixels, no byte-identical file, so every pair is decoded
[ -d "$S/renders_re" ] || "$PY" - "$S" <<'PYEOF'
import os, sys
from PIL import Image
d = sys.argv[1]
os.makedirs(d + "/renders_re", exist_ok=True)
for f in sorted(os.listdir(d + "/renders")):
    Image.open(d + "/renders/" + f).save(d + "/renders_re/" + f, compress_level=1)
PYEOF
rm -rf "$W/ident" && mkdir -p "$W/ident/a" "$W/ident/b"
cp "$S"/goldens/*.png "$W/ident/a/" && cp "$S"/goldens/*.png "$W/ident/b/"
mkdir -p "$W/one_a" "$W/one_b"
ln -sf "$W/a8k.png" "$W/one_a/p.png"
ln -sf "$W/b8k.png" "$W/one_b/p.png"
echo "=== machine: $(nproc) cores; blazediff $("$BPY" -c 'import importlib.metadata as m; print(m.version("blazediff"))')"
echo "=== label median min max (s)"
O="--threshold 0.1 --antialiasing"
wall "gpuimg 100 pairs t0.1 aa" "$N" bash -c "'$G' -q compare $S/goldens $S/renders $O >/dev/null; true"
wall "blazediff loop 100 pairs t0.1 aa" "$N" "$BPY" "$here/blazediff_loop.py" "$S/goldens" "$S/renders"
wall "gpuimg 100 re-encoded t0.1 aa" "$N" bash -c "'$G' -q compare $S/goldens $S/renders_re $O >/dev/null; true"
wall "blazediff loop 100 re-encoded" "$N" "$BPY" "$here/blazediff_loop.py" "$S/goldens" "$S/renders_re"
wall "gpuimg 100 re-encoded t0.1 aa shift2" "$N" bash -c "'$G' -q compare $S/goldens $S/renders_re $O --max-shift 2 >/dev/null; true"
wall "gpuimg 100 pairs t0.1 aa shift2" "$N" bash -c "'$G' -q compare $S/goldens $S/renders $O --max-shift 2 >/dev/null; true"
wall "gpuimg 100 byte-identical pairs" "$N" bash -c "'$G' -q compare $W/ident/a $W/ident/b $O >/dev/null; true"
wall "blazediff 100 byte-identical" "$N" "$BPY" "$here/blazediff_loop.py" "$W/ident/a" "$W/ident/b"
wall "gpuimg 8K pair t0.1 aa" "$N" bash -c "'$G' -q compare $W/a8k.png $W/b8k.png $O >/dev/null; true"
wall "blazediff 8K pair t0.1 aa" "$N" "$BPY" "$here/blazediff_loop.py" "$W/one_a" "$W/one_b"
echo "=== counts"
"$G" -q compare "$S/goldens" "$S/renders" $O | tail -1 || true
"$BPY" "$here/blazediff_loop.py" "$S/goldens" "$S/renders"
"$G" compare "$W/a8k.png" "$W/b8k.png" $O | sed -n 2p || true
"$BPY" -c "import blazediff; print('blazediff 8K:', blazediff.compare('$W/a8k.png', '$W/b8k.png', threshold=0.1, antialiasing=True))"
