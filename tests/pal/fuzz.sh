#!/bin/sh
# fuzz.sh -- runs the ascii reader fuzz target for a bounded time (20 s by
# default, PAL_FUZZ_SECONDS to change) from the committed seed corpus
# (tests/pal/fuzz-corpus: first byte 0 PICL, 1 old PICL, 2 the tutorial's
# CSV-like log, 3 toymp, 4 the roles_ascii golden case; +128 strict). Built
# only with ./configure --enable-fuzz CC=clang; skipped otherwise.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
fuzzer=$top_builddir/tests/pal/fuzz_ascii
if [ ! -x "$fuzzer" ]; then
    echo "SKIP: the fuzz target is built by ./configure --enable-fuzz CC=clang"
    exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pal-fuzz.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/corpus"
"$fuzzer" -max_total_time="${PAL_FUZZ_SECONDS:-20}" -timeout=10 -rss_limit_mb=2048 \
    -max_len=4096 -artifact_prefix="$tmp/" "$tmp/corpus" "$top_srcdir/tests/pal/fuzz-corpus" \
    2>"$tmp/log"
rc=$?
tail -n 3 "$tmp/log"
if [ $rc -ne 0 ]; then
    echo "FAIL: the fuzzer found a problem (exit status $rc)"
    grep -A 30 "ERROR\|==.*==" "$tmp/log" | head -60
    mkdir -p "$top_builddir/tests/pal/fuzz-artifacts"
    for a in "$tmp"/crash-* "$tmp"/leak-* "$tmp"/timeout-* "$tmp"/oom-* "$tmp"/slow-unit-*; do
        [ -f "$a" ] || continue
        cp "$a" "$top_builddir/tests/pal/fuzz-artifacts/"
        echo "--- $a (kept in tests/pal/fuzz-artifacts):"
        od -c "$a" | head -20
    done
    exit 1
fi
exit 0
