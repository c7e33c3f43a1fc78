#!/bin/bash
# SPDX-License-Identifier: MIT
# Golden-image comparison on the GPU machine (issue 28): 1,000 pairs of
# 1920x1080 screenshot-like PNGs (bench/make_screens.py: every 10th render
# at a sub-pixel offset, every 25th with a panel recoloured, every 50th with
# its footer changed), the renders re-encoded by OpenCV's PNG writer so that
# no pair is byte-identical; `gpuimg compare --threshold 0.1 --antialiasing`
# against blazediff in a process pool of one worker per core, whole
# process, side by side (bench/wall.py).
# Usage: bench/compare_device.sh GPUIMG OUT_DIR [N] [-- GPUIMG_ARGS...]
set -euo pipefail
G=${1:?usage}
W=${2:?usage}
N=${3:-3}
shift $(( $# < 3 ? $# : 3 ))
[ "${1:-}" = -- ] && shift
EXTRA=("$@")
here=$(cd "$(dirname "$0")" && pwd)
PY=${PYTHON:-python3}
mkdir -p "$W"
if [ ! -d "$W/screens/renders_cv" ]; then
    "$PY" "$here/make_screens.py" "$W/screens" 1000 1920 1080
    "$PY" - "$W/screens" <<'PYEOF'
import os, sys
from multiprocessing import Pool
import cv2
d = sys.argv[1]
os.makedirs(d + "/renders_cv", exist_ok=True)
def one(f):
    img = cv2.imread(d + "/renders/" + f, cv2.IMREAD_UNCHANGED)
    cv2.imwrite(d + "/renders_cv/" + f, img, [cv2.IMWRITE_PNG_COMPRESSION, 3])
with Pool() as p:
    p.map(one, sorted(os.listdir(d + "/renders")))
PYEOF
fi
S=$W/screens
O="--threshold 0.1 --antialiasing"
echo "=== $(nproc) cores; label median min max (s)"
"$PY" "$here/wall.py" "gpuimg 1000 pairs ${EXTRA[*]:-}" "$N" bash -c "'$G' ${EXTRA[*]:-} -q compare $S/goldens $S/renders_cv $O >/dev/null; true"
"$PY" "$here/wall.py" "blazediff pool $(nproc)" "$N" "$PY" "$here/blazediff_loop.py" "$S/goldens" "$S/renders_cv" --pool "$(nproc)"
echo "=== counts"
"$G" ${EXTRA[@]+"${EXTRA[@]}"} -q compare "$S/goldens" "$S/renders_cv" $O | tail -1 || true
"$PY" "$here/blazediff_loop.py" "$S/goldens" "$S/renders_cv" --pool "$(nproc)"
