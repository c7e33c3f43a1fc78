#!/bin/bash
# SPDX-License-Identifier: MIT
# The shared libraries a static build (make static) still needs and the GPU
# machine lacks: libheif, libjxl and LittleCMS, which Debian 12 ships
# without static archives, and their own (libde265, x265, aom, dav1d,
# brotli, highway, numa), copied into DIR/lib for LD_LIBRARY_PATH there.
# The C and C++ runtimes and zlib are the machine's own (glibc 2.39 there,
# newer than Debian 12's 2.36, which these were built against).
# Usage: bench/device_libs.sh BINARY DIR
set -euo pipefail
BIN=${1:?usage: device_libs.sh BINARY DIR}
DIR=${2:?usage: device_libs.sh BINARY DIR}
mkdir -p "$DIR/lib"
ldd "$BIN" | awk '/=> \// {print $3}' | while read -r lib; do
    case $(basename "$lib") in
    libc.so.*|libm.so.*|libstdc++.so.*|libgcc_s.so.*|libz.so.*|libpthread.so.*|libdl.so.*|librt.so.*|ld-linux*) ;;
    *) cp -L "$lib" "$DIR/lib/" ;;
    esac
done
du -sh "$DIR/lib"
