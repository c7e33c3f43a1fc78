#!/bin/bash
# SPDX-License-Identifier: MIT
# Issue 29's 2-core figures, side by side in one run (nothing else on the
# machine):
#  1. gpuimg.compare over the 100 pairs of 1280x720 of bench/make_screens.py,
#     one Python loop (bench/gpuimg_loop.py), against blazediff's loop
#     (bench/blazediff_loop.py), `threshold 0.1, antialiasing` both, as the
#     plain renders and as renders written again by Pillow (no pair
#     byte-identical); whole process, bench/wall.py (median, min, max of N);
#  2. gpuimg.run(array, "blur:sigma=2") on a 4000x3000 photograph against
#     the C call gpuimg_run on the same image (bench/run_call.c), medians of
#     20 calls in one process each, the CPU backend.
# Usage: bench/python_bench.sh VENV_PYTHON BUILD [N]
#   VENV_PYTHON: a Python with gpuimg installed (make test-python's
#   BUILD/venv/bin/python) and blazediff (PyPI); BUILD: the build folder
#   (its libgpuimg.so links bench/run_call.c).
set -euo pipefail
VPY=${1:?usage: python_bench.sh VENV_PYTHON BUILD [N]}
B=${2:?usage: python_bench.sh VENV_PYTHON BUILD [N]}
N=${3:-5}
PY=${PYTHON:-/usr/bin/python3}
here=$(cd "$(dirname "$0")" && pwd)
W=${TMPDIR:-/tmp}/comparebench
mkdir -p "$W"
[ -d "$W/screens" ] || "$PY" "$here/make_screens.py" "$W/screens" 100
S=$W/screens
[ -d "$S/renders_re" ] || "$PY" - "$S" <<'PYEOF'
import os, sys
from PIL import Image
d = sys.argv[1]
os.makedirs(d + "/renders_re", exist_ok=True)
for f in sorted(os.listdir(d + "/renders")):
    Image.open(d + "/renders/" + f).save(d + "/renders_re/" + f, compress_level=1)
PYEOF
[ -f "$W/photo.png" ] || bash "$here/../tests/photo/fetch_photo.sh" "$W/photo.png"
cc -O2 -std=c11 -Wall -Wextra -Werror -I"$here/../include" -o "$W/run_call" "$here/run_call.c" \
    -L"$B" -l:libgpuimg.so.0.1 -Wl,-rpath,"$(cd "$B" && pwd)"
wall() { "$PY" "$here/wall.py" "$@"; }
echo "=== machine: $(nproc) cores; blazediff $("$VPY" -c 'import importlib.metadata as m; print(m.version("blazediff"))')"
echo "=== label median min max (s)"
export GPUIMG_BACKEND=cpu
wall "gpuimg.compare loop 100 pairs" "$N" "$VPY" "$here/gpuimg_loop.py" "$S/goldens" "$S/renders"
wall "blazediff loop 100 pairs" "$N" "$VPY" "$here/blazediff_loop.py" "$S/goldens" "$S/renders"
wall "gpuimg.compare loop 100 re-encoded" "$N" "$VPY" "$here/gpuimg_loop.py" "$S/goldens" "$S/renders_re"
wall "blazediff loop 100 re-encoded" "$N" "$VPY" "$here/blazediff_loop.py" "$S/goldens" "$S/renders_re"
echo "=== counts"
"$VPY" "$here/gpuimg_loop.py" "$S/goldens" "$S/renders"
"$VPY" "$here/blazediff_loop.py" "$S/goldens" "$S/renders"
echo "=== gpuimg.run against the C call, 4000x3000, CPU backend: 7 alternations of 20 calls"
# this machine's timings wander by 20% from one process to the next: the
# two alternate, and the medians of their medians are compared
c=() p=()
for i in 1 2 3 4 5 6 7; do
    c+=("$("$W/run_call" "$W/photo.png" blur:sigma=2 20 cpu | sed 's/.*median \([0-9.]*\) ms.*/\1/')")
    p+=("$("$VPY" "$here/python_run.py" "$W/photo.png" blur:sigma=2 20 cpu | sed 's/.*median \([0-9.]*\) ms.*/\1/')")
done
echo "C medians (ms):      ${c[*]}"
echo "Python medians (ms): ${p[*]}"
"$PY" -c "import statistics as s, sys; c=[float(x) for x in sys.argv[1].split()]; p=[float(x) for x in sys.argv[2].split()]; print(f'median of medians: C {s.median(c):.1f} ms, Python {s.median(p):.1f} ms, Python/C {s.median(p)/s.median(c):.3f}')" "${c[*]}" "${p[*]}"
