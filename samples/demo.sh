#!/bin/sh
# SPDX-License-Identifier: MIT
# Shows gpuimg's main commands on the bundled samples. Writes into a folder
# (default demo-out/); run from the repository root after `make`.
set -eu
G=${GPUIMG:-build/gpuimg}
OUT=${1:-demo-out}
mkdir -p "$OUT"
set -x
"$G" -q blur samples/astronaut.png "$OUT/astronaut-blur.png" --sigma 3
"$G" -q box samples/coffee.png "$OUT/coffee-box.png" --radius 4 --border replicate
"$G" -q convolve samples/chelsea.png "$OUT/chelsea-sharpen.png" --kernel sharpen
"$G" -q convolve samples/chelsea.png "$OUT/chelsea-motion.png" --kernel samples/kernels/motion9.txt --normalize
"$G" -q convolve samples/camera.png "$OUT/camera-ridges.png" --kernel samples/kernels/ridge7x3.txt --abs
"$G" -q sobel samples/camera.png "$OUT/camera-edges.png"
"$G" -q rotate samples/chelsea.png "$OUT/chelsea-rot90.jpg" --angle 90
"$G" -q flip samples/coffee.png "$OUT/coffee-mirror.png" --axis h
"$G" -q grayscale samples/astronaut.png "$OUT/astronaut-gray.png"
"$G" -q equalize samples/camera.png "$OUT/camera-equalized.png"
"$G" -q run samples/coffee.png "$OUT/coffee-pipeline.png" blur:sigma=1.5 transpose invert
"$G" -q histogram samples/coffee.png --plot "$OUT/coffee-histogram.png" > "$OUT/coffee-histogram.tsv"
"$G" -q stats samples/coffee.png
# exit 1 (differs beyond tolerance) is expected here: the diff paints pixels off by more than 24 red
"$G" -q compare samples/astronaut.png "$OUT/astronaut-blur.png" --fuzz 24 --diff "$OUT/astronaut-diff.png" || true
