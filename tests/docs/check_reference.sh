#!/bin/bash
# SPDX-License-Identifier: MIT
# docs/reference.md against the program, as tests/install/check.sh holds the
# man page to --help. Every operation of the op table (`gpuimg run --help`
# lists them), every command of `gpuimg --help`, each one's options and step
# keys, every global option, every format that --format or batch names and
# every exit code of `gpuimg --help` must appear in reference.md, each in its
# own section. The lists are read from the program, which reads them from its
# tables, so a new operation, option or format fails here until it is
# documented. Needs no GPU. `make test` runs it (through tests/install/check.sh).
#
# usage: tests/docs/check_reference.sh GPUIMG [REFERENCE.md]
set -euo pipefail
gpuimg=${1:?usage: check_reference.sh GPUIMG [REFERENCE.md]}
ref=${2:-$(dirname "$0")/../../docs/reference.md}
[ -r "$ref" ] || { echo "check_reference: cannot read $ref" >&2; exit 1; }
failures=0
lacks() {
    echo "check_reference: $(basename "$ref") lacks $*" >&2
    failures=$((failures + 1))
}

# section LEVEL TITLE: the lines under the heading "<LEVEL #s> TITLE", up to
# the next heading of that level or above (headings inside ``` blocks are
# text, not headings).
section() {
    awk -v level="$1" -v title="$2" '
        /^```/ { fence = !fence }
        !fence && /^#+ / {
            n = length($1)
            if (on && n <= level) exit
            if (n == level && substr($0, n + 2) == title) { on = 1; next }
        }
        on' "$ref"
}

# has TEXT OPTION: OPTION appears whole in TEXT (--max-diff is not found in
# --max-differing, -v not in -V or --verbose).
has() {
    grep -qE -- "(^|[^A-Za-z0-9-])$2([^A-Za-z0-9-]|\$)" <<<"$1"
}

help=$("$gpuimg" --help)

# global options: everything of --help's "global options" block
globals=$(sed -n '/^global options/,/^exit codes/p' <<<"$help" |
    grep -oE -- '(^|[ ,])--?[A-Za-z][a-z0-9-]*' | sed 's/^[ ,]*//' | sort -u)
[ -n "$globals" ] || { echo "check_reference: no global option in gpuimg --help" >&2; exit 1; }
global_text=$(section 2 "Global options")
[ -n "$global_text" ] || lacks "a section '## Global options'"
nglobal=0
for o in $globals; do
    nglobal=$((nglobal + 1))
    has "$global_text" "$o" || lacks "the global option $o (in '## Global options')"
done

# commands and operations, each with its options and step keys
# (every operation is also a command of --help; `run --help`'s list only
# tells which are operations)
ops=$("$gpuimg" run --help | sed -n 's/^operations: //p')
commands=$(awk '/^  [a-z]+ /{print $1}' <<<"$help")
[ -n "$commands" ] || { echo "check_reference: no command in gpuimg --help" >&2; exit 1; }
nops=0
ncommands=0
noptions=0
for c in $(printf '%s\n' $ops $commands | sort -u); do
    case " $ops " in *" $c "*) nops=$((nops + 1)) ;; *) ncommands=$((ncommands + 1)) ;; esac
    text=$(section 3 "$c")
    if [ -z "$text" ]; then
        lacks "a section '### $c'"
        continue
    fi
    chelp=$("$gpuimg" "$c" --help)
    keys=$(sed -n "s/^as a pipeline step[^:]*: $c://p" <<<"$chelp" | tr ',' '\n' |
        sed -n 's/^\([a-z][a-z0-9-]*\)=.*/--\1/p')
    for o in $( (grep -oE -- '--[a-z][a-z0-9-]*' <<<"$chelp"; printf '%s\n' $keys) | sort -u); do
        grep -qx -- "$o" <<<"$globals" && continue # checked above, in its own section
        noptions=$((noptions + 1))
        has "$text" "$o" || lacks "$c's option $o (in '### $c')"
    done
done

# formats: every list of extensions ("png, jpg, ...") that the --format
# error, --help and batch --help print (written ones, and batch's inputs,
# read-only ones included), each as `.ext` under "## Formats"
ext_lists() { tr '\n' ' ' | grep -oE '([a-z0-9]{2,5}, )+[a-z0-9]{2,5}' | grep -w png || true; }
written=$( ("$gpuimg" --format '?' info 2>&1 || true) | ext_lists)
listed=$( (echo "$help"; "$gpuimg" batch --help) | ext_lists)
[ -n "$written" ] || { echo "check_reference: no format list in the --format error" >&2; exit 1; }
format_text=$(section 2 "Formats")
[ -n "$format_text" ] || lacks "a section '## Formats'"
nformats=0
for e in $(printf '%s\n' $written $listed | tr -d ',' | sort -u); do
    nformats=$((nformats + 1))
    grep -qF -- "\`.$e\`" <<<"$format_text" || lacks "the format .$e (as \`.$e\` in '## Formats')"
done

# exit codes: each number of --help's "exit codes" as a row of the table
codes=$(sed -n '/^exit codes/,$p' <<<"$help" | grep -oE '(^|[ :,])[0-9]+ [a-z]' | grep -oE '[0-9]+' |
    sort -un)
code_text=$(section 3 "Exit codes")
ncodes=0
for n in $codes; do
    ncodes=$((ncodes + 1))
    grep -qF -- "| \`$n\` |" <<<"$code_text" || lacks "the exit code $n (in '### Exit codes')"
done

if [ "$failures" -gt 0 ]; then
    echo "check_reference: $failures missing from $ref" >&2
    exit 1
fi
echo "check_reference: $nops operations, $ncommands other commands, $noptions command options," \
    "$nglobal global options, $nformats formats, $ncodes exit codes: all in $(basename "$ref")"
