#!/bin/bash
# SPDX-License-Identifier: MIT
# Issue 14 on the GPU machine: the suite on the CUDA backend (8 and 16 bits,
# premultiplied alpha, equalize --luma), compute-sanitizer memcheck and
# racecheck, `make bench` with its 16-bit rows, and the photographs of the
# done-when read back by independent readers (Pillow, OpenCV).
# Usage: bench/depth_device.sh DIR PART, PART one of suite, sanitize, bench,
# photos. DIR (devrun) holds gpuimg, check_gpuimg, libgpuimg.a and the
# archives `prepare` copied (run here: bench/depth_device.sh devrun prepare).
set -u
DIR=${1:-devrun}
PART=${2:-suite}
if [ "$PART" = prepare ]; then # on the development machine, after make static
    mkdir -p $DIR
    A=/usr/lib/x86_64-linux-gnu
    cp build-static/gpuimg build-static/check_gpuimg build-static/libgpuimg.a $DIR/
    strip $DIR/gpuimg $DIR/check_gpuimg
    : > $DIR/archives
    for a in libgpuimg.a libtiff.a libturbojpeg.a libwebpmux.a libwebp.a libsharpyuv.a libLerc.a \
        libjbig.a libzstd.a liblzma.a libdeflate.a libstb.a libpng16.a libz.a; do
        [ $a = libgpuimg.a ] || { [ -f $A/$a ] && cp $A/$a $DIR/; }
        [ -f $DIR/$a ] && echo $a >> $DIR/archives
    done
    du -sh $DIR
    exit 0
fi
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
exec > >(tee -a $OUT/run_$PART.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
N=$PWD/$DIR/gpuimg
export GPUIMG_BIN=$N GPUIMG_GOLDEN=$PWD/tests/golden
SAN=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
case $PART in
suite)
    ( time GPUIMG_BACKEND=cuda timeout 500 $DIR/check_gpuimg ) > $OUT/suite_cuda.log 2>&1
    echo "suite cuda rc=$?" >> $OUT/suite_cuda.log
    grep -E "^(backend|CUDA|SKIP)|%: Checks|:[FE]:|rc=|^real" $OUT/suite_cuda.log | head -40
    ;;
sanitize)
    for suite in ${SUITES:-cuda golden metadata buffers compare}; do
        GPUIMG_BACKEND=cuda CK_RUN_SUITE=$suite timeout ${LIMIT:-200} "$SAN" --tool memcheck \
            --error-exitcode 9 $DIR/check_gpuimg > $OUT/memcheck_$suite.log 2>&1
        echo "memcheck $suite rc=$?" >> $OUT/memcheck_$suite.log
        grep -E "%: Checks|ERROR SUMMARY|rc=" $OUT/memcheck_$suite.log
    done
    for suite in ${RACE:-cuda}; do
        GPUIMG_BACKEND=cuda CK_RUN_SUITE=$suite timeout ${LIMIT:-200} "$SAN" --tool racecheck \
            --error-exitcode 9 $DIR/check_gpuimg > $OUT/racecheck_$suite.log 2>&1
        echo "racecheck $suite rc=$?" >> $OUT/racecheck_$suite.log
        grep -E "%: Checks|RACECHECK SUMMARY|rc=" $OUT/racecheck_$suite.log
    done
    ;;
bench)
    # the photograph the A/B runs of bench/NOTES.md used (mirror-tiled to 8K by the bench)
    cp samples/coffee.png $DIR/photo.png
    OUT=$OUT bash bench/device_bench.sh $DIR
    ;;
photos)
    W=/tmp/ph; rm -rf $W; mkdir -p $W/in
    python3 - $W <<'PY'
import sys, numpy as np, cv2
from PIL import Image, ImageCms
w = sys.argv[1]
# a phone-style JPEG: stored sideways with EXIF Orientation 6 and an sRGB profile
im = Image.fromarray((np.indices((48, 64)).sum(0) * 2 % 256).astype(np.uint8)).convert("RGB")
icc = ImageCms.ImageCmsProfile(ImageCms.createProfile("sRGB")).tobytes()
ex = Image.Exif(); ex[0x0112] = 6; ex[0x010F] = "gpuimg test"
im.save(w + "/phone.jpg", exif=ex, icc_profile=icc, quality=92)
# a 16-bit RGB scan as TIFF and PNG (OpenCV writes both at 16 bits)
rng = np.random.default_rng(3)
scan = (rng.random((301, 403, 3)) * 65535).astype(np.uint16)
cv2.imwrite(w + "/in/scan16.tif", scan)
cv2.imwrite(w + "/in/scan16.png", scan)
PY
    $N --backend cuda blur $W/phone.jpg $W/phone_blur.jpg
    $N --backend cuda run $W/in/scan16.tif $W/scan16_run.tif blur:sigma=2 equalize:luma=1
    $N --backend cuda run $W/in/scan16.png $W/scan16_run.png blur:sigma=2 invert
    $N --backend cuda -q batch $W/in $W/out blur:sigma=2
    $N --backend cuda run $W/in/scan16.png $W/scan16_blur.png blur:sigma=2
    python3 - $W <<'PY'
import sys, numpy as np, cv2
from PIL import Image
w = sys.argv[1]
for f in ("phone.jpg", "phone_blur.jpg"):
    im = Image.open(f"{w}/{f}"); e = im.getexif()
    print(f, im.size, im.mode, "orient", e.get(0x0112), "make", e.get(0x010F),
          "icc", len(im.info.get("icc_profile") or b""))
for f in ("in/scan16.tif", "in/scan16.png", "scan16_run.tif", "scan16_run.png",
          "out/scan16.tif", "out/scan16.png"):
    a = cv2.imread(f"{w}/{f}", cv2.IMREAD_UNCHANGED)
    print(f, a.dtype, a.shape, "values", len(np.unique(a)), "max", a.max())
same = np.array_equal(cv2.imread(f"{w}/out/scan16.png", -1), cv2.imread(f"{w}/scan16_blur.png", -1))
print("batch scan16.png == run blur:", same)
PY
    ;;
esac
exit 0
