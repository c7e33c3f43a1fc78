#!/bin/bash
# Issue 12, item 2 (host buffers pinned once, no staging), on the GPU
# machine: `--time` and whole-process wall time of `blur` on an 8K PNG,
# the previous build (DIR/old/gpuimg) against this one (DIR/gpuimg), A/B in
# turn; the JPEG batch (100 of 4000x3000) wall time and peak memory, old
# and new; the suite on the CUDA backend; memcheck over the cuda, buffers
# and golden suites. DIR also holds check_gpuimg and kleiber.jpg (the
# photograph of tests/photo/README, as the .deb ships it).
# Usage: bench/host_buffers_device.sh DIR [time|suite] (default both).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
DIR=${1:-devrun}
PART=${2:-all}
exec > >(tee $OUT/run.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc
N=$PWD/$DIR/gpuimg; O=$PWD/$DIR/old/gpuimg
W=/tmp/w; mkdir -p $W
if [ ! -f $W/photo8k.png ]; then
python3 - $DIR/kleiber.jpg $W <<'PY'
import sys
from PIL import Image
im = Image.open(sys.argv[1]).convert("RGB")
im.resize((7680, 4320), Image.LANCZOS).save(sys.argv[2] + "/photo8k.png", compress_level=6)
w, h = im.size; cw = h * 4 // 3; x = (w - cw) // 2
im.crop((x, 0, x + cw, h)).resize((4000, 3000), Image.LANCZOS).save(sys.argv[2] + "/photo.png")
PY
python3 bench/make_photos.py $W/photo.png $W/jpg 100 jpg
fi
ls -l $W/photo8k.png
if [ "$PART" = all ] || [ "$PART" = time ]; then
echo "=== --time, blur, 8K PNG, cuda (old, new, in turn)"
for i in 1 2 3; do
  echo -n "old: "; $O --backend cuda --time blur $W/photo8k.png $W/o.png 2>&1 | tail -1
  echo -n "new: "; $N --backend cuda --time blur $W/photo8k.png $W/n.png 2>&1 | tail -1
done
cmp $W/o.png $W/n.png && echo "old and new outputs: identical files"
echo "=== --time, grayscale and rotate, 8K PNG, new"
$N --backend cuda --time run $W/photo8k.png $W/g.png grayscale 2>&1 | tail -1
$N --backend cuda --time run $W/photo8k.png $W/r.png rotate:angle=90 2>&1 | tail -1
echo "=== whole process, blur 8K PNG: label median min max (s), 5 runs each, A/B twice"
for i in 1 2; do
  python3 bench/wall.py "old blur 8K png" 5 $O --backend cuda blur $W/photo8k.png $W/o.png
  python3 bench/wall.py "new blur 8K png" 5 $N --backend cuda blur $W/photo8k.png $W/n.png
done
echo "=== batch: 100 JPEG 4000x3000, blur:sigma=2 (label wall_s peak_rss_mib rc), A/B twice"
for i in 1 2; do
  rm -rf $W/bo $W/bn
  python3 bench/measure.py "old batch jpg" $O -q batch $W/jpg $W/bo blur:sigma=2
  python3 bench/measure.py "new batch jpg" $N -q batch $W/jpg $W/bn blur:sigma=2
done
n=0; for f in $W/bo/*.jpg; do cmp -s $f $W/bn/$(basename $f) || n=$((n+1)); done; echo "batch outputs differing old/new: $n of 100"
$N --time -q batch $W/jpg $W/bt blur:sigma=2 2>&1 | tail -2
fi
if [ "$PART" = all ] || [ "$PART" = suite ]; then
export GPUIMG_BIN=$N GPUIMG_GOLDEN=$PWD/tests/golden
( time GPUIMG_BACKEND=cuda timeout 300 $DIR/check_gpuimg ) > $OUT/suite_cuda.log 2>&1
echo "suite cuda rc=$?" >> $OUT/suite_cuda.log
grep -E "^(backend|CUDA|SKIP)|%: Checks|:[FE]:|rc=|^real" $OUT/suite_cuda.log | head -30
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
for suite in ${SUITES:-cuda buffers golden}; do
    GPUIMG_BACKEND=cuda CK_RUN_SUITE=$suite timeout 250 "$SAN" --tool memcheck --error-exitcode 9 \
        $DIR/check_gpuimg > $OUT/memcheck_$suite.log 2>&1
    echo "memcheck $suite rc=$?" >> $OUT/memcheck_$suite.log
    grep -E "%: Checks|ERROR SUMMARY|rc=" $OUT/memcheck_$suite.log
done
fi
exit 0
