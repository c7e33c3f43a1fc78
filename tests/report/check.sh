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
# appear). Without Chromium (CI installs it) it says SKIP and passes.
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${GPUIMG_BIN:-build/gpuimg}
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
"$browser" --headless --no-sandbox --disable-gpu --virtual-time-budget=10000 \
    --dump-dom "file://$page" > "$dir/dom.html" 2> "$dir/browser.log" ||
    fail "chromium failed: $(tail -3 "$dir/browser.log")"
body=$(grep -o '<body[^>]*>' "$dir/dom.html" || true)
loaded=$(sed -n 's/.*data-images-loaded="\([0-9]*\)".*/\1/p' <<< "$body")
broken=$(sed -n 's/.*data-images-broken="\([0-9]*\)".*/\1/p' <<< "$body")
[ -n "$loaded" ] || fail "the page's script did not run (no data-images-loaded): $body"
[ "$broken" = 0 ] || fail "$broken images did not load"
# failed pairs show expected, actual, diff and the wipe's two (5 each);
# size 2; missing 1; new 1; error none
failed=$(grep -c '^failed ' "$dir/out.txt")
want=$((5 * failed + 2 + 1 + 1))
[ "$loaded" = "$want" ] || fail "$loaded images loaded, expected $want"
for pair in "failed: aa.png" "failed: sub/recolor.png" "failed: masked.png" "size: size.png" \
            "missing: gone.png" "new: extra.png" "error: bad.png" "error: leak.png"; do
    grep -qF "$pair" "$dir/dom.html" || fail "the rendered page lacks '$pair'"
done
echo "test-report: 1 passed, 0 failed ($loaded images loaded in $(basename "$browser"))"
