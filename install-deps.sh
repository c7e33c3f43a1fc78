#!/bin/sh
# SPDX-License-Identifier: MIT
# Installs gpuimg's build and test dependencies from Debian's packages (used
# by the README's quick start and by .ci/run). Uses sudo when not root.
set -eu
# pkg-config: the Makefile takes each library's flags from its .pc file.
# clang, libclang-rt-dev (libFuzzer) and valgrind are for the tests only,
# as are the formats' own tools the round trips are checked against
# (libheif-examples, libjxl-tools, liblcms2-utils), exiftool and the ICC
# profiles of icc-profiles-free and libgs-common (Ghostscript's CMYK one).
# python3-dev (Python.h) and python3-venv: `pip install ./python` into a
# virtual environment with Debian's python3.
PKGS="build-essential pkg-config libstb-dev libpng-dev zlib1g-dev libturbojpeg0-dev libjpeg-dev libwebp-dev libtiff-dev libdeflate-dev libheif-dev libjxl-dev liblcms2-dev check libsubunit-dev clang libclang-rt-dev valgrind python3-numpy python3-pil python3-pip python3-dev python3-venv libheif-examples libjxl-tools liblcms2-utils libimage-exiftool-perl icc-profiles-free libgs-common"
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq $PKGS >/dev/null
echo "installed: $PKGS"
# PyPI packages the cross-checks compare against (tests/formats/): NVIDIA's
# FLIP (flip-evaluator) for `compare --flip`. Into the user's site of the
# system python3 the checks run under (Debian marks its python3 externally
# managed, hence --break-system-packages; nothing of Debian's is replaced).
PIP_PKGS="flip-evaluator"
/usr/bin/python3 -m pip install --quiet --user --break-system-packages $PIP_PKGS
echo "installed (pip): $PIP_PKGS"
