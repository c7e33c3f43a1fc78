#!/bin/bash
# SPDX-License-Identifier: MIT
# `make test-dist`: the tarball `make dist` wrote, as a CI runner gets it.
# - its files: the program, the man page, the completion, the README and a
#   copyright file for every library licences/README names;
# - ldd: nothing but the C library's family (libc, libm, libpthread, libdl,
#   ld-linux, linux-vdso), and no symbol newer than GLIBC_2.35 (Ubuntu
#   22.04's glibc; Debian 12 has 2.36, Ubuntu 24.04 2.39);
# - the README's CI example in a root that holds the unpacked tarball,
#   the images and the host's ld-linux, libc and libm alone (no shell, no
#   other library: a library the program needed beyond those could not be
#   found), run through chroot (as root, as CI is; else `unshare -r`, a
#   user namespace; else ld-linux --library-path ROOT's libraries, which
#   reads no other folder): compare goldens/ actual/ with --junit and
#   --report, its exit code, the JUnit file parsed, the report written; a
#   passing run's exit 0; a HEIC (a format this build lacks) refused with
#   exit 3 and the reason; `info` naming what the build lacks.
# Prints PASS/FAIL lines and exits 1 on a failure.
# Usage: tests/dist/check.sh dist/gpuimg-VERSION-linux-x86_64.tar.gz
set -euo pipefail
cd "$(dirname "$0")/../.."
tarball=${1:?usage: check.sh TARBALL}
name=$(basename "$tarball" .tar.gz)
work=$(mktemp -d "${TMPDIR:-/tmp}/gpuimg-dist-XXXXXX")
trap 'rm -rf "$work"' EXIT
failed=0 passed=0
pass() { echo "PASS: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }

root=$work/root
mkdir -p "$root/opt"
tar -xzf "$tarball" -C "$root/opt"
top=$root/opt/$name
bin=$top/bin/gpuimg

# ---- the files
missing=
for f in bin/gpuimg share/man/man1/gpuimg.1 share/bash-completion/completions/gpuimg \
    README.md licenses/README; do
    [ -e "$top/$f" ] || missing="$missing $f"
done
for pkg in $(awk 'NF == 2 && $1 ~ /\.a$/ {print $2}' "$top/licenses/README" 2>/dev/null); do
    [ -s "$top/licenses/$pkg.copyright" ] || missing="$missing licenses/$pkg.copyright"
done
grep -q 'libpng' "$top/licenses/README" 2>/dev/null || missing="$missing (libpng in licenses/README)"
if [ -z "$missing" ]; then pass "tarball holds the program, man page, completion, README, licences"
else fail "tarball lacks:$missing"; fi

# ---- ldd and the glibc symbols
libs=$(ldd "$bin" 2>&1 || true)
others=$(printf '%s\n' "$libs" | awk '{print $1}' | grep -v -E \
    '^(linux-vdso\.so\.1|/lib64/ld-linux-x86-64\.so\.2|ld-linux-x86-64\.so\.2|lib(c|m|pthread|dl)\.so\.[0-9]+|not|statically)$' ||
    true)
if [ -z "$others" ]; then pass "ldd: the C library's family alone"
else fail "ldd: other libraries: $(printf "%s " $others)"; fi
newest=$(objdump -T "$bin" | grep -o 'GLIBC_[0-9][0-9.]*' | sed 's/GLIBC_//' | sort -uV | tail -n1)
if printf '%s\n' "$newest" 2.35 | sort -V -C; then pass "newest glibc symbol GLIBC_$newest <= GLIBC_2.35"
else fail "a glibc symbol GLIBC_$newest is newer than Ubuntu 22.04's 2.35"; fi

# ---- the clean root: the C library's files, the tarball, the images
interp=$(readlink -f /lib64/ld-linux-x86-64.so.2)
mkdir -p "$root/lib64" "$root/lib/x86_64-linux-gnu" "$root/tmp"
cp "$interp" "$root/lib64/ld-linux-x86-64.so.2"
for l in libc.so.6 libm.so.6; do
    cp "$(readlink -f "/lib/x86_64-linux-gnu/$l")" "$root/lib/x86_64-linux-gnu/$l"
done
g=tests/golden/inputs
mkdir -p "$root/ci/goldens" "$root/ci/actual"
cp $g/ui_96x64_rgb.png "$root/ci/goldens/same.png"
cp $g/ui_96x64_rgb.png "$root/ci/actual/same.png"
# TIFF and WebP, through the libraries linked in (written outside the root)
"$bin" -q run $g/ui_96x64_rgba.png "$root/ci/goldens/icon.webp" --lossless
cp "$root/ci/goldens/icon.webp" "$root/ci/actual/icon.webp"
"$bin" -q run $g/ui_96x64_rgb.png "$root/ci/goldens/shot.tiff"
"$bin" -q run $g/ui_96x64_rgb.png "$root/ci/actual/shot.tiff" --png-level 1
cp $g/ui_96x64_rgb.png "$root/ci/goldens/recolor.png" # fails
cp $g/ui_96x64_rgb_recolor.png "$root/ci/actual/recolor.png"
printf '\0\0\0\x18ftypheic\0\0\0\0mif1heic' >"$root/ci/photo.heic"

# runs the program inside the root (chosen by what this machine allows,
# not by whether the program runs: that is the test)
if [ "$(id -u)" = 0 ]; then
    how="chroot"
    inroot() { chroot "$root" "/opt/$name/bin/gpuimg" "$@"; }
elif unshare -r true 2>/dev/null; then
    how="unshare -r chroot"
    inroot() { unshare -r chroot "$root" "/opt/$name/bin/gpuimg" "$@"; }
else
    # weaker: ld.so still searches its default folders after these, so
    # only the ldd check above catches a library beyond the C library's
    how="ld-linux --library-path (no chroot here)"
    inroot() {
        "$root/lib64/ld-linux-x86-64.so.2" --inhibit-cache --library-path "$root/lib/x86_64-linux-gnu" \
            "$bin" "$@"
    }
    root_paths=1 # the paths below are the root's
fi
p() { if [ -n "${root_paths:-}" ]; then echo "$root$1"; else echo "$1"; fi; }
echo "clean root: $how"

# ---- the README's CI example: goldens/ and actual/ hold same.png,
# icon.webp and shot.tiff alike and recolor.png changed (--github where this gpuimg has it)
github=
if "$bin" compare --help 2>&1 | grep -q -- '--github'; then github=--github; fi
set +e
inroot compare "$(p /ci/goldens)" "$(p /ci/actual)" --threshold 0.1 --antialiasing --max-shift 2 \
    --junit "$(p /ci/gpuimg.xml)" --report "$(p /ci/report)" $github >"$work/out" 2>&1
rc=$?
set -e
if [ $rc = 1 ] && grep -q 'recolor.png' "$work/out"; then pass "compare in the root: exit 1, recolor.png failed"
else fail "compare in the root: exit $rc: $(cat "$work/out")"; fi
if /usr/bin/python3 - "$root/ci/gpuimg.xml" 2>/dev/null <<'EOF'; then
# the JUnit file parses, with a case for each of the 4 pairs and recolor.png's alone failed
import sys, xml.etree.ElementTree as ET
cases = ET.parse(sys.argv[1]).getroot().iter("testcase")
failed = sorted(c.get("name", "") for c in cases if c.find("failure") is not None)
total = len(list(ET.parse(sys.argv[1]).getroot().iter("testcase")))
sys.exit(0 if total == 4 and len(failed) == 1 and "recolor" in failed[0] else 1)
EOF
    pass "JUnit file parses: 4 cases, recolor.png failed"
else fail "JUnit file: $(head -c 600 "$root/ci/gpuimg.xml" 2>&1)"; fi
if [ -s "$root/ci/report/index.html" ] && grep -q 'recolor' "$root/ci/report/index.html"; then
    pass "report written"
else fail "report: no index.html naming recolor.png"; fi
rm -f "$root/ci/actual/recolor.png" "$root/ci/goldens/recolor.png"
if inroot compare "$(p /ci/goldens)" "$(p /ci/actual)" --threshold 0.1 --antialiasing --max-shift 2 \
    --junit "$(p /ci/pass.xml)" >"$work/out" 2>&1; then pass "compare in the root: exit 0 when every pair passes"
else fail "compare of passing pairs: $(cat "$work/out")"; fi

# ---- what this build lacks, said
set +e
inroot info "$(p /ci/photo.heic)" >"$work/out" 2>&1
rc=$?
set -e
if [ $rc = 3 ] && grep -q 'no HEIF support' "$work/out"; then pass "a HEIC: exit 3, no HEIF support said"
else fail "a HEIC: exit $rc: $(cat "$work/out")"; fi
if inroot info 2>&1 | grep -q 'not in this build: libheif.*libjxl.*LittleCMS'; then
    pass "info names the libraries this build lacks"
else fail "info: $(inroot info 2>&1)"; fi

echo "test-dist: $passed passed, $failed failed"
[ $failed = 0 ]
