#!/bin/bash
# SPDX-License-Identifier: MIT
# `make test-install`: installs into a temporary DESTDIR, then, using only
# what was installed: builds examples/ with pkg-config and runs them against
# the installed program's output; checks that the man page names every
# command, operation and option the program's --help lists, and that
# docs/reference.md documents them and every format; and that the
# bash completion completes commands, options and step names. Removes the
# folder at the end.
set -euo pipefail
cd "$(dirname "$0")/../.."
dest=$(mktemp -d "${TMPDIR:-/tmp}/gpuimg-install-XXXXXX")
trap 'rm -rf "$dest"' EXIT
prefix=/usr/local
make -s install DESTDIR="$dest" PREFIX=$prefix >/dev/null
root=$dest$prefix
fail() { echo "test-install: $*" >&2; exit 1; }
for f in bin/gpuimg include/gpuimg.h lib/libgpuimg.a lib/libgpuimg.so lib/pkgconfig/gpuimg.pc \
         share/man/man1/gpuimg.1 share/bash-completion/completions/gpuimg; do
    [ -e "$root/$f" ] || fail "$f was not installed"
done

# examples/, built against the installed tree alone
export PKG_CONFIG_PATH=$root/lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$dest
flags=$(pkg-config --cflags --libs gpuimg)
case $flags in *"-I$root/include"*) ;; *) fail "pkg-config --cflags: $flags" ;; esac
for src in examples/*.c; do
    exe=$dest/$(basename "$src" .c)
    cc -std=c11 -Wall -Wextra -Werror "$src" -o "$exe" $flags
    # and against the static library: its dependencies from --static
    cc -std=c11 -Wall -Wextra -Werror "$src" -o "$exe-static" $(pkg-config --cflags gpuimg) \
        "$root/lib/libgpuimg.a" $(pkg-config --static --libs gpuimg | sed 's/-lgpuimg\b//')
done
# the shared library: its soname carries MAJOR.MINOR, the links resolve,
# and it exports the public gpuimg_ names alone
version=$(sed -n 's/^#define GPUIMG_VERSION "\(.*\)"/\1/p' include/gpuimg.h)
soname=libgpuimg.so.${version%.*}
[ -f "$root/lib/libgpuimg.so.$version" ] || fail "lib/libgpuimg.so.$version was not installed"
[ "$(readlink "$root/lib/libgpuimg.so")" = "$soname" ] || fail "lib/libgpuimg.so does not link to $soname"
readelf -d "$root/lib/libgpuimg.so.$version" | grep -q "SONAME.*\[$soname\]" ||
    fail "libgpuimg.so.$version: soname is not $soname"
others=$(nm -D --defined-only "$root/lib/libgpuimg.so.$version" | awk '{print $3}' | grep -v '^gpuimg_[a-z]' || true)
[ -z "$others" ] || fail "libgpuimg.so exports more than gpuimg_ names: $(echo $others | head -c 200)"
nm -D --defined-only "$root/lib/libgpuimg.so.$version" | grep -q ' gpuimg_run$' || fail "libgpuimg.so lacks gpuimg_run"
readelf -d "$dest/blur_file" | grep -q "NEEDED.*\[$soname\]" || fail "examples/blur_file is not linked to $soname"
LD_LIBRARY_PATH=$root/lib "$dest/blur_file" samples/chelsea.png "$dest/a.png" blur:sigma=2 | grep -q "done" ||
    fail "examples/blur_file failed"
"$dest/blur_file-static" samples/chelsea.png "$dest/s.png" blur:sigma=2 | grep -q "done" ||
    fail "examples/blur_file (static) failed"
"$root/bin/gpuimg" -q blur samples/chelsea.png "$dest/b.png" --sigma 2
"$root/bin/gpuimg" -q compare "$dest/a.png" "$dest/b.png" >/dev/null ||
    fail "examples/blur_file and gpuimg blur wrote different images"
cmp -s "$dest/a.png" "$dest/s.png" || fail "the shared and static libraries wrote different files"

# the man page names every command, operation and option of --help
man=$root/share/man/man1/gpuimg.1
gpuimg=$root/bin/gpuimg
commands=$("$gpuimg" --help | awk '/^  [a-z]+ /{print $1}')
[ -n "$commands" ] || fail "no command in gpuimg --help"
for c in $commands; do
    grep -q "\\\\fB$c\\\\fR" "$man" || fail "the man page lacks the command $c"
    for o in $("$gpuimg" "$c" --help | grep -o -- '--[a-z][a-z0-9-]*' | sort -u); do
        grep -q -- "$(sed 's/-/\\\\-/g' <<<"$o")" "$man" || fail "the man page lacks $c's $o"
    done
done
for o in $("$gpuimg" --help | grep -o -- '--[a-z][a-z0-9-]*' | sort -u); do
    grep -q -- "$(sed 's/-/\\\\-/g' <<<"$o")" "$man" || fail "the man page lacks $o"
done

# docs/reference.md names every operation, option, command, format and exit
# code the installed program lists (tests/docs/check_reference.sh)
bash tests/docs/check_reference.sh "$gpuimg" docs/reference.md ||
    fail "docs/reference.md lacks what the program lists (above)"

# the completion: commands, options, step names
complete_line() { # words... -> COMPREPLY, one per line
    bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _gpuimg;
             printf "%s\n" "${COMPREPLY[@]}"' _ "$root/share/bash-completion/completions/gpuimg" "$@"
}
complete_line "$gpuimg" bl | grep -qx blur || fail "completion: 'gpuimg bl'"
complete_line "$gpuimg" blur --si | grep -qx -- --sigma || fail "completion: 'blur --si'"
complete_line "$gpuimg" --ba | grep -qx -- --backend || fail "completion: '--ba'"
complete_line "$gpuimg" run a.png b.png ro | grep -qx rotate || fail "completion: step names"
echo "test-install: 1 passed, 0 failed"
