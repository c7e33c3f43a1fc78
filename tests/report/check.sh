#!/bin/bash
# SPDX-License-Identifier: MIT
# `make test-report`: the HTML report of `compare --report` in a real
# browser. Builds two folders of goldens with a pair of every failing
# status, writes the report, and has headless Chromium load it from file://:
# every failing pair must be on the page, every image it shows must load
# (the page's own script counts them into data-images-loaded and
# data-images-broken on <body>; a script error leaves them unset), and the
# page must name nothing outside its folder (its Content-Security-Policy
# forbids any request besides its own images, and no http(s) address may
# appear). The zoom: a 4x9 change in a 960x640 render has its 4x view of
# the counted pixels' box (the box's size, the images drawn at 4x), a size
# mismatch is drawn at one scale, and index.html#zoom=0 opens the overlay at
# the scale that fits. A screenshot of a report of that change is taken
# (GPUIMG_REPORT_SCREENSHOT=docs/compare_report_zoom.png keeps it: the
# README's). Without Chromium (CI installs it) it says SKIP and passes.
set -euo pipefail
cd "$(dirname "$0")/../.."
# run as a GitHub Actions step may be: no annotations, no job summary
unset GITHUB_ACTIONS GITHUB_STEP_SUMMARY
bin=$(realpath "${GPUIMG_BIN:-build/gpuimg}")
browser=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$browser" ]; then
    echo "SKIP: no chromium; the report is not checked in a browser"
    exit 0
fi
dir=$(mktemp -d "${TMPDIR:-/tmp}/gpuimg-report-XXXXXX")
trap 'rm -rf "$dir"' EXIT
fail() { echo "test-report: $*" >&2; exit 1; }
g=tests/golden/inputs
mkdir -p "$dir/exp/sub" "$dir/act/sub"
cp $g/ui_96x64_rgb.png "$dir/exp/same.png";          cp $g/ui_96x64_rgb.png "$dir/act/same.png"
cp $g/ui_96x64_rgb.png "$dir/exp/aa.png";            cp $g/ui_96x64_rgb_aa.png "$dir/act/aa.png"
cp $g/ui_96x64_rgb.png "$dir/exp/sub/recolor.png";   cp $g/ui_96x64_rgb_recolor.png "$dir/act/sub/recolor.png"
cp $g/ui_96x64_rgb.png "$dir/exp/masked.png";        cp $g/ui_96x64_rgb_vanish.png "$dir/act/masked.png"
cp $g/ui_96x64_mask.png "$dir/exp/masked.mask.png"
cp $g/ui_96x64_rgb.png "$dir/exp/gone.png"
cp $g/ui_96x64_rgb.png "$dir/act/extra.png"
cp $g/ui_96x64_rgb.png "$dir/exp/size.png";          cp $g/camera_64x48_gray.png "$dir/act/size.png"
cp $g/ui_96x64_rgb.png "$dir/exp/bad.png";           printf 'junk' > "$dir/act/bad.png"
# a 960x640 render (the UI at 10x) and the same with a 4x9 mark at 644,440 beside a bar:
# drawn at a third of its size it is a speck, in the 4x view a bar
"$bin" resize $g/ui_96x64_rgb.png "$dir/big.ppm" --scale 10 --filter nearest
[ "$(head -1 "$dir/big.ppm")" = P6 ] || fail "resize wrote no binary PPM"
header=$(head -3 "$dir/big.ppm" | wc -c) # P6, the size, 255: no comments
cp "$dir/big.ppm" "$dir/mark.ppm"
for y in $(seq 440 448); do
    printf '\x20%.0s' $(seq 12) |
        dd of="$dir/mark.ppm" bs=1 seek=$((header + (y * 960 + 644) * 3)) conv=notrunc status=none
done
"$bin" run "$dir/big.ppm" "$dir/exp/glyph.png"
"$bin" run "$dir/mark.ppm" "$dir/act/glyph.png"
# hostile: a name with bytes that are not UTF-8, a newline and an escape
# sequence (a failed pair), and a link to a file outside (an error pair,
# never shown)
odd=$(printf 'odd\377\n\033[31m.png')
cp $g/ui_96x64_rgb.png "$dir/exp/$odd";              cp $g/ui_96x64_rgb_recolor.png "$dir/act/$odd"
printf 'GPUIMG_REPORT_SECRET\n' > "$dir/secret"
ln -s "$dir/secret" "$dir/act/leak.png"
rc=0
"$bin" compare "$dir/exp" "$dir/act" --recursive --threshold 0.1 --antialiasing \
    --report "$dir/report" > "$dir/out.txt" || rc=$?
[ $rc = 3 ] || fail "exit $rc, expected 3 (a pair is unreadable)"
page=$dir/report/index.html
grep -qiE 'https?://' "$page" && fail "the page names an address outside its folder"
grep -rq GPUIMG_REPORT_SECRET "$dir/report" && fail "a linked file's bytes reached the report"
grep -q '^error leak.png: .*a symbolic link' "$dir/out.txt" || fail "the link is not an error pair"
grep -q '^failed glyph.png: differing 36 pixels' "$dir/out.txt" || fail "glyph.png: $(cat "$dir/out.txt")"
# #zoom=0: once loaded, the page opens its first zoomable image
"$browser" --headless --no-sandbox --disable-gpu --virtual-time-budget=10000 \
    --window-size=800,600 --dump-dom "file://$page#zoom=0" > "$dir/dom.html" 2> "$dir/browser.log" ||
    fail "chromium failed: $(tail -3 "$dir/browser.log")"
body=$(grep -o '<body[^>]*>' "$dir/dom.html" || true)
loaded=$(sed -n 's/.*data-images-loaded="\([0-9]*\)".*/\1/p' <<< "$body")
broken=$(sed -n 's/.*data-images-broken="\([0-9]*\)".*/\1/p' <<< "$body")
[ -n "$loaded" ] || fail "the page's script did not run (no data-images-loaded): $body"
[ "$broken" = 0 ] || fail "$broken images did not load"
# failed pairs show expected, actual, diff and the wipe's two, and the 4x
# view's three crops (8 each); size 2; missing 1; new 1; error none
failed=$(grep -c '^failed ' "$dir/out.txt")
want=$((8 * failed + 2 + 1 + 1))
[ "$loaded" = "$want" ] || fail "$loaded images loaded, expected $want"
for pair in "failed: aa.png" "failed: sub/recolor.png" "failed: masked.png" "size: size.png" \
            "missing: gone.png" "new: extra.png" "error: bad.png" "error: leak.png"; do
    grep -qF "$pair" "$dir/dom.html" || fail "the rendered page lacks '$pair'"
done
# the 4x view of glyph.png: its box is the mark's 4x9 and 8 pixels around
# (20x25, 80x100 at 4x), its crops the whole 960x640 drawn at 4x, moved to
# the box's corner (636,432)
section=$(tr '\n' ' ' < "$dir/dom.html" | grep -o '<section class="pair failed"><h2>failed: glyph.png.*' |
          sed 's,</section>.*,,')
[ -n "$section" ] || fail "no section for glyph.png"
grep -qF 'box 644,440 4x9' <<< "$section" || fail "glyph.png: the box is not 644,440 4x9"
crops=$(grep -o '<div class="box" style="width:80px;height:100px"><img class="z" [^>]*>' <<< "$section" || true)
[ "$(grep -c . <<< "$crops")" = 3 ] || fail "glyph.png: not three 80x100 crops: $section"
n=$(grep -c 'data-x="636" data-y="432" style="width:3840px;height:2560px;left:-2544px;top:-1728px" data-shown="3840x2560"' <<< "$crops" || true)
[ "$n" = 3 ] || fail "glyph.png: the crops are not drawn at 4x at the box: $crops"
# expected and actual of the mark at one scale (960 wide to 320: 1/3), and
# of size.png (96x64 and 64x48: both at 3x)
for shown in 320x213 288x192 192x144; do
    grep -q "data-shown=\"$shown\"" "$dir/dom.html" || fail "no image drawn at $shown"
done
grep -q "<section class=\"pair size\"><h2>size: size.png</h2>.*data-shown=\"288x192\".*data-shown=\"192x144\"" \
    <(tr '\n' ' ' < "$dir/dom.html" | sed 's,</section>,&\n,g') || fail "size.png's images are not at one scale"
# the overlay: open on aa.png's expected (96 wide) at 8x, the largest
# whole scale within the 800-pixel window
zoom=$(grep -o '<div id="zoom"[^>]*>' "$dir/dom.html")
grep -q 'class="open"' <<< "$zoom" && grep -q 'data-scale="8"' <<< "$zoom" ||
    fail "#zoom=0 did not open the overlay at 8x: $zoom"
grep -q '<div class="view"><img alt="" src="file://[^"]*/images/aa_png-[0-9a-f]*-expected.png" style="width: 768px;">' "$dir/dom.html" ||
    fail "the overlay does not show aa.png's expected at 768 pixels: $(grep -o '<div class="view">.\{0,200\}' "$dir/dom.html")"
# the screenshot: a report of the mark alone, the 4x view in sight
# (folders named as a project's would be: the page shows their names)
mkdir -p "$dir/shot/goldens" "$dir/shot/renders"
cp "$dir/exp/glyph.png" "$dir/shot/goldens/settings.png"; cp "$dir/act/glyph.png" "$dir/shot/renders/settings.png"
cp $g/ui_96x64_rgb.png "$dir/shot/goldens/home.png";      cp $g/ui_96x64_rgb.png "$dir/shot/renders/home.png"
(cd "$dir/shot" && "$bin" compare goldens renders --threshold 0.1 --antialiasing --report report) \
    > /dev/null && fail "the marked pair passed"
"$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --virtual-time-budget=10000 \
    --window-size=1000,700 --screenshot="$dir/shot.png" "file://$dir/shot/report/index.html" \
    >> "$dir/browser.log" 2>&1 || fail "chromium's screenshot failed: $(tail -3 "$dir/browser.log")"
size=$(od -An -tu1 -j16 -N8 "$dir/shot.png" | awk '{print $3 * 256 + $4 "x" $7 * 256 + $8}') # PNG's IHDR
[ "$size" = 1000x700 ] || fail "the screenshot is $size, not 1000x700"
if [ -n "${GPUIMG_REPORT_SCREENSHOT:-}" ]; then
    "$bin" run "$dir/shot.png" "$GPUIMG_REPORT_SCREENSHOT"
    echo "test-report: screenshot in $GPUIMG_REPORT_SCREENSHOT"
fi
echo "test-report: 1 passed, 0 failed ($loaded images loaded in $(basename "$browser"))"
