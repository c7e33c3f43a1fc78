#!/bin/sh
# SPDX-License-Identifier: MIT
# nvjpeg.h for a CUDA Toolkit that lacks it (the development machines and
# CI): PyPI's nvidia-nvjpeg wheel, NVIDIA's own redistribution of nvJPEG,
# unpacked into the build folder. Only the header is kept: gpuimg loads
# libnvjpeg at run time (kernels/nvjpeg_api.cu), so nothing of the wheel is
# linked or vendored.
#   tools/fetch_nvjpeg_header.sh WHEEL_SPEC DEST   (DEST/include/nvjpeg.h)
set -eu
spec=$1
dest=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! python3 -m pip download --quiet --no-deps --dest "$tmp" "$spec" >"$tmp/log" 2>&1; then
    cat "$tmp/log" >&2
    echo "fetch_nvjpeg_header.sh: cannot download $spec from PyPI (for nvjpeg.h, which this" \
        "CUDA Toolkit lacks); install the toolkit's nvJPEG or build with NVCC= " >&2
    exit 1
fi
mkdir -p "$dest/include"
python3 - "$tmp" "$dest/include" <<'PY'
import glob, sys, zipfile
wheel = glob.glob(sys.argv[1] + "/*.whl")[0]
with zipfile.ZipFile(wheel) as z:
    names = [n for n in z.namelist() if n.endswith("/include/nvjpeg.h")]
    if not names:
        sys.exit("fetch_nvjpeg_header.sh: no include/nvjpeg.h in " + wheel)
    with open(sys.argv[2] + "/nvjpeg.h.tmp", "wb") as out:
        out.write(z.read(names[0]))
PY
mv "$dest/include/nvjpeg.h.tmp" "$dest/include/nvjpeg.h"
echo "nvjpeg.h from $spec"
