#!/bin/bash
# SPDX-License-Identifier: MIT
# Issue 25's GPU table, on the GPU machine (16 cores, H100), in one run:
# 400 JPEG photographs of 4000x3000 (100 made by bench/make_photos.py, each
# linked under 4 names, as bench/batch_bench.sh does), whole-process wall
# time (median, min, max of N runs after an untimed one; bench/measure.py,
# with peak RSS), JPEG quality 90:
#  1. thumbnails to fit inside 1024x1024: `gpuimg --backend cuda batch ...
#     thumbnail:size=1024`, a pyvips pool of one process per core
#     (bench/vips_thumbnail.py), the OpenCV pool (bench/opencv_thumbnail.py)
#     and torchvision on the GPU (bench/torchvision_thumbnail.py: nvJPEG
#     decode in batches of 20, antialiased resize, nvJPEG encode);
#  2. the same 400 to exactly 224x224 (cover, centre crop; what an ML data
#     loader wants): `thumbnail:size=224x224,crop` against the same peers
#     with --cover 224.
# Then each peer's time over gpuimg's (targets: the faster pool >= 3,
# torchvision >= 10) and the outputs' sizes and PSNR against gpuimg's.
# A peer whose Python modules are missing is skipped with a SKIP line.
# Usage: bench/thumbnail_device.sh DIR [N]   (N timed runs, default 3)
#   DIR holds gpuimg (the static build) and photo.png (4000x3000,
#   tests/photo/fetch_photo.sh). The peers come from PyPI wheels (carried:
#   the machine has no network): pyvips-binary, opencv-python-headless,
#   torch and torchvision, importable by python3 (which needs Pillow and
#   numpy in any case, for bench/make_photos.py).
#   NPHOTOS (default 100, linked 4 times) and PHOTO_WH ("W H": crop the
#   photographs to that size) only serve to check the script on small files.
set -uo pipefail
DIR=${1:?usage: thumbnail_device.sh DIR [N]}
N=${2:-3}
G=$(cd "$DIR" && pwd)/gpuimg
here=$(cd "$(dirname "$0")" && pwd)
MEASURE=$here/measure.py
W=${TMPDIR:-/tmp}/thumbdevice
NP=$(nproc)
NPH=${NPHOTOS:-100}
rm -rf $W && mkdir -p $W
# shellcheck source=bench/thumbnail_common.sh
source "$here/thumbnail_common.sh"
[ -x "$G" ] || { echo "thumbnail_device.sh: $G: no gpuimg in $DIR" >&2; exit 2; }
[ -f "$DIR/photo.png" ] || { echo "thumbnail_device.sh: $DIR/photo.png missing" >&2; exit 2; }

echo "=== $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1 || echo no nvidia-smi)," \
    "nproc $NP; gpuimg: $("$G" --version | head -1)"
"$G" info 2>&1 | grep -i -E "cuda|jpeg" | head -3
# Which peers can run here: each check prints the versions, or why not.
have() { # NAME PYTHON-CODE: runs the code; on failure prints SKIP NAME
    local v
    if v=$(python3 -c "$2" 2>&1); then
        echo "peer $1: $v"
        return 0
    fi
    echo "SKIP $1: $(echo "$v" | tail -1)"
    return 1
}
VIPS=0 CV=0 TV=0
have "pyvips pool" "import pyvips; print('libvips %d.%d.%d' % tuple(pyvips.version(i) for i in range(3)))" && VIPS=1
have "opencv pool" "import cv2; print('OpenCV', cv2.__version__)" && CV=1
have "torchvision" "import torch, torchvision
from torchvision.io import decode_jpeg, encode_jpeg
from torchvision.transforms.v2.functional import resize, center_crop
assert torch.cuda.is_available(), 'torch sees no CUDA device'
print('torch', torch.__version__, 'torchvision', torchvision.__version__, 'CUDA', torch.version.cuda)" && TV=1

python3 "$here/make_photos.py" "$DIR/photo.png" $W/jpg $NPH jpg ${PHOTO_WH:-}
mkdir -p $W/jpg400 && for k in 0 1 2 3; do for f in $W/jpg/*.jpg; do
    ln "$f" "$W/jpg400/$k-$(basename "$f")"; done; done  # hard links: batch reads no symbolic link
echo "$(ls $W/jpg400 | wc -l) inputs, $(du -sh $W/jpg | cut -f1) in $NPH files"
cat /proc/loadavg

run_all() { # SUFFIX GPUIMG-STEP PEER-ARGS...
    local s=$1 step=$2
    shift 2
    timed "gpuimg-$s" $W/g-$s "$G" -q --backend ${BACKEND:-auto} batch $W/jpg400 $W/g-$s "$step" \
        --format jpg --jpeg-quality 90
    if [ $VIPS = 1 ]; then
        timed "pyvips$NP-$s" $W/v-$s python3 "$here/vips_thumbnail.py" $W/jpg400 $W/v-$s $NP "$@"
    else echo "SKIP pyvips$NP-$s"; fi
    if [ $CV = 1 ]; then
        timed "opencv$NP-$s" $W/o-$s python3 "$here/opencv_thumbnail.py" $W/jpg400 $W/o-$s $NP "$@"
    else echo "SKIP opencv$NP-$s"; fi
    if [ $TV = 1 ]; then
        timed "torchvision-$s" $W/t-$s python3 "$here/torchvision_thumbnail.py" $W/jpg400 $W/t-$s "$@"
    else echo "SKIP torchvision-$s"; fi
}
ratios() { # SUFFIX
    local s=$1 best
    best=$(faster "pyvips$NP-$s" "opencv$NP-$s")
    ratio "$s: the faster pool (${best:-none}) / gpuimg (>= 3)" "$best" "gpuimg-$s"
    ratio "$s: pyvips pool / gpuimg" "pyvips$NP-$s" "gpuimg-$s"
    ratio "$s: opencv pool / gpuimg" "opencv$NP-$s" "gpuimg-$s"
    ratio "$s: torchvision / gpuimg (>= 10)" "torchvision-$s" "gpuimg-$s"
}

echo "=== 1. fit inside 1024 (s: median min max; peak MiB)"
run_all fit1024 thumbnail:size=1024 --size 1024
echo "=== 2. cover 224x224, centre crop"
run_all cover224 thumbnail:size=224x224,crop --cover 224
echo "=== each peer's time over gpuimg's"
ratios fit1024
ratios cover224
echo "=== outputs (PSNR against gpuimg's)"
outputs $W/g-fit1024 $W/v-fit1024 $W/o-fit1024 $W/t-fit1024
outputs $W/g-cover224 $W/v-cover224 $W/o-cover224 $W/t-cover224
