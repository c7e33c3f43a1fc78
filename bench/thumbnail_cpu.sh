#!/bin/bash
# SPDX-License-Identifier: MIT
# Issue 25's CPU table, on the 2-core development machine (CPU backend), in
# one run (run it with nothing else on the machine): thumbnails to fit
# inside 1024x1024, JPEG quality 90, whole-process wall time (median, min,
# max of N runs after an untimed one; bench/measure.py, with peak RSS):
#  1. a batch of 40 JPEG photographs of 4000x3000 (bench/make_photos.py):
#     Debian's vipsthumbnail (libvips 8.14; one process over the 40, its
#     own threads), an OpenCV pool of one process per core
#     (bench/opencv_thumbnail.py: shrink on load as libvips does, INTER_AREA)
#     and `gpuimg --backend cpu batch ... thumbnail:size=1024`;
#  2. one such photograph: vipsthumbnail against `gpuimg --backend cpu
#     thumbnail in.jpg out.jpg --size 1024`.
# Then gpuimg's time over the faster peer's (target: at most 0.8), and the
# outputs' sizes and PSNR against vipsthumbnail's.
# Usage: bench/thumbnail_cpu.sh DIR [N]   (N timed runs, default 3)
#   DIR holds gpuimg (a CPU build does: make BUILD=DIR NVCC= DIR/gpuimg) and
#   photo.png, the 4000x3000 photograph of tests/photo
#   (bash tests/photo/fetch_photo.sh DIR/photo.png).
# Needs, installed beforehand (the script installs nothing):
#   apt-get install -y libvips-tools      (vipsthumbnail 8.14, Debian 12)
#   python3 -m pip install opencv-python-headless   (into the python3 on
#   PATH, which also needs Pillow and numpy: bench/make_photos.py)
set -uo pipefail
DIR=${1:?usage: thumbnail_cpu.sh DIR [N]}
N=${2:-3}
G=$(cd "$DIR" && pwd)/gpuimg
here=$(cd "$(dirname "$0")" && pwd)
MEASURE=$here/measure.py
W=${TMPDIR:-/tmp}/thumbcpu
NP=$(nproc)
mkdir -p $W
# shellcheck source=bench/thumbnail_common.sh
source "$here/thumbnail_common.sh"
die() { echo "thumbnail_cpu.sh: $*" >&2; exit 2; }
[ -x "$G" ] || die "$G: no gpuimg in $DIR"
[ -f "$DIR/photo.png" ] || die "$DIR/photo.png missing: bash tests/photo/fetch_photo.sh $DIR/photo.png"
command -v vipsthumbnail > /dev/null || die "no vipsthumbnail: apt-get install -y libvips-tools"
python3 -c "import cv2" 2> /dev/null || die "python3 has no cv2: python3 -m pip install opencv-python-headless"

echo "=== machine: $NP cores, $(lscpu | sed -n 's/^Model name: *//p'); vipsthumbnail $(vipsthumbnail --version);" \
    "OpenCV $(python3 -c 'import cv2; print(cv2.__version__)')"
echo "=== gpuimg: $("$G" --version | head -1)"

# The photographs are made once (kept in $W between runs of the script).
# NPHOTOS (default 40) only serves to check the script on a few files.
NPH=${NPHOTOS:-40}
P=$W/jpg$NPH
[ -d $P ] || python3 "$here/make_photos.py" "$DIR/photo.png" $P $NPH jpg
cp $P/photo0000.jpg $W/one.jpg
du -sh $P

echo "=== 1. $NPH JPEG photographs -> fit inside 1024, q90 (s: median min max; peak MiB)"
timed "vipsthumbnail" $W/vt vipsthumbnail -s 1024 -o "$W/vt/%s.jpg[Q=90]" $P/*.jpg
timed "opencv pool of $NP" $W/ot python3 "$here/opencv_thumbnail.py" $P $W/ot $NP --size 1024
timed "gpuimg --backend cpu batch" $W/gt "$G" -q --backend cpu batch $P $W/gt \
    thumbnail:size=1024 --format jpg --jpeg-quality 90

echo "=== 2. one photograph -> fit inside 1024, q90"
timed "vipsthumbnail one" $W/v1 vipsthumbnail $W/one.jpg -s 1024 -o "$W/v1/one.jpg[Q=90]"
timed "gpuimg --backend cpu thumbnail" $W/g1 "$G" -q --backend cpu thumbnail $W/one.jpg \
    $W/g1/one.jpg --size 1024

echo "=== gpuimg's time over the faster peer's (target <= 0.8)"
best=$(faster "vipsthumbnail" "opencv pool of $NP")
ratio "batch of $NPH: gpuimg / the faster peer (${best:-none})" "gpuimg --backend cpu batch" "$best"
ratio "batch of $NPH: gpuimg / vipsthumbnail" "gpuimg --backend cpu batch" "vipsthumbnail"
ratio "batch of $NPH: gpuimg / opencv pool of $NP" "gpuimg --backend cpu batch" "opencv pool of $NP"
ratio "one photograph: gpuimg / vipsthumbnail" "gpuimg --backend cpu thumbnail" "vipsthumbnail one"

echo "=== outputs"
outputs $W/vt $W/ot $W/gt
outputs $W/v1 $W/g1
