#!/bin/bash
# SPDX-License-Identifier: MIT
# Every harness of a fuzz build at once, each on a core of its own, for
# SECONDS each: `make fuzz-run` takes them one after another (CI's minute
# each), this is for long runs on a machine with a core per harness (the
# GPU machine has 16; see shared/DEVICE.md: build with `make fuzz STATIC=1
# FUZZ_BUILD=build-fuzz-static` to carry the harnesses there).
#
# Usage: tests/fuzz/fuzz_parallel.sh BUILD SECONDS CORPUS [TARGET...]
# Each harness grows CORPUS/NAME from its seeds in tests/fuzz/corpus/NAME
# (a CORPUS of an earlier run resumes it); its log is CORPUS/fuzz_NAME.log
# and a finding's input CORPUS/artifacts/NAME-*. Prints each harness's
# executions and coverage; exits 1 at any finding.
set -uo pipefail
BUILD=${1:?usage: fuzz_parallel.sh BUILD SECONDS CORPUS [TARGET...]}
SECONDS_EACH=${2:?seconds}
CORPUS=${3:?corpus folder}
shift 3
cd "$(dirname "$0")/../.."
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    for f in "$BUILD"/fuzz_*; do
        [ -x "$f" ] && [ "${f%.d}" = "$f" ] && targets+=("${f##*/fuzz_}")
    done
fi
if [ ${#targets[@]} -eq 0 ]; then
    echo "fuzz_parallel.sh: no harness in $BUILD" >&2
    exit 2
fi
mkdir -p "$CORPUS/artifacts"
pids=()
for t in "${targets[@]}"; do
    mkdir -p "$CORPUS/$t"
    "$BUILD/fuzz_$t" -max_total_time="$SECONDS_EACH" -timeout=30 -rss_limit_mb=4096 \
        -close_fd_mask=3 -print_final_stats=1 -artifact_prefix="$CORPUS/artifacts/$t-" \
        "$CORPUS/$t" "tests/fuzz/corpus/$t" > "$CORPUS/fuzz_$t.log" 2>&1 &
    pids+=($!)
done
status=0
for i in "${!targets[@]}"; do
    t=${targets[$i]}
    if wait "${pids[$i]}"; then
        runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$CORPUS/fuzz_$t.log")
        cov=$(grep -Eo "cov: [0-9]+ ft: [0-9]+" "$CORPUS/fuzz_$t.log" | tail -1)
        secs=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$CORPUS/fuzz_$t.log")
        echo "fuzz_$t: clean, $runs runs in ${secs:-?} s, $cov, corpus $(ls "$CORPUS/$t" | wc -l)"
    else
        echo "fuzz_$t: FINDING (log $CORPUS/fuzz_$t.log)"
        tail -30 "$CORPUS/fuzz_$t.log"
        status=1
    fi
done
exit $status
