#!/bin/bash
# SPDX-License-Identifier: MIT
# `make dist`'s packing: BINARY (built by the Makefile's dist rule) into
# TARBALL (and its SHA-256 sum into TARBALL.sha256) with the man page, the bash completion, a short README
# (docs/dist-README.md) and the copyright file of each static ARCHIVE linked
# into it, found through the Debian package that installed the archive
# (its -dev package's doc folder, or another package built from the same
# source where the -dev package links its doc folder away or ships none).
# Usage: tools/dist.sh BINARY VERSION TARBALL ARCHIVE...
set -euo pipefail
bin=${1:?usage: dist.sh BINARY VERSION TARBALL ARCHIVE...}
version=${2:?}
tarball=${3:?}
shift 3
name=$(basename "$tarball" .tar.gz)
stage=$(mktemp -d "${TMPDIR:-/tmp}/gpuimg-dist-XXXXXX")
trap 'rm -rf "$stage"' EXIT
top=$stage/$name

install -D -m 755 "$bin" "$top/bin/gpuimg"
install -D -m 644 docs/gpuimg.1 "$top/share/man/man1/gpuimg.1"
install -D -m 644 docs/gpuimg.bash "$top/share/bash-completion/completions/gpuimg"
sed "s/@VERSION@/$version/g" docs/dist-README.md >"$top/README.md"
mkdir -p "$top/licenses"

# The copyright file of the package that installed archive $1, into
# licenses/ as PACKAGE.copyright (and a NOTICE beside it, which Apache-2.0
# code such as Lerc asks to be passed on).
notice() {
    local archive=$1 pkg src doc cand
    pkg=$(dpkg -S "$(readlink -f "$archive")" 2>/dev/null | head -n1 | cut -d: -f1) ||
        pkg=
    [ -n "$pkg" ] || { echo "dist.sh: no Debian package owns $archive" >&2; exit 1; }
    doc=
    if [ -f "/usr/share/doc/$pkg/copyright" ]; then
        doc=/usr/share/doc/$pkg
    else
        src=$(dpkg-query -W -f='${source:Package}' "$pkg")
        for cand in $(dpkg-query -W -f='${Package} ${source:Package}\n' |
            awk -v s="$src" '$2 == s {print $1}'); do
            if [ -f "/usr/share/doc/$cand/copyright" ]; then
                doc=/usr/share/doc/$cand
                break
            fi
        done
    fi
    [ -n "$doc" ] || { echo "dist.sh: no copyright file for $pkg ($archive)" >&2; exit 1; }
    local out
    out=$(basename "$(readlink -f "$doc")")
    cp -L "$doc/copyright" "$top/licenses/$out.copyright"
    if [ -f "$doc/NOTICE" ]; then cp -L "$doc/NOTICE" "$top/licenses/$out.NOTICE"; fi
    printf '%s\t%s\n' "$(basename "$archive")" "$out" >>"$stage/archives"
}
for a in "$@"; do notice "$a"; done
{
    echo "The libraries linked statically into bin/gpuimg, and the Debian package"
    echo "whose copyright file (PACKAGE.copyright here) gives each one's licence:"
    echo
    sort -u "$stage/archives" | awk -F'\t' '{printf "  %-18s %s\n", $1, $2}'
    echo
    echo "gpuimg itself: MIT (the SPDX-License-Identifier line of every source)."
    echo "Linked shared: the C library (glibc: libc, libm, libpthread, libdl),"
    echo "the system's own."
} >"$top/licenses/README"

mkdir -p "$(dirname "$tarball")"
# one owner and mode, no timestamps of the build machine's users
tar -C "$stage" --owner=0 --group=0 --numeric-owner -czf "$tarball.tmp" "$name"
mv "$tarball.tmp" "$tarball"
# beside it, for `sha256sum -c` in the folder a runner downloads both to
(cd "$(dirname "$tarball")" && sha256sum "$(basename "$tarball")" >"$(basename "$tarball").sha256")
echo "dist: $tarball ($(du -h "$tarball" | cut -f1)) and $tarball.sha256"
