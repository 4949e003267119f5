#!/bin/sh
# fuzz.sh -- runs the EDL parser fuzz target for a bounded time (20 s by
# default, EDL_FUZZ_SECONDS to change) from the committed seed corpus. Built
# only with ./configure --enable-fuzz CC=clang; skipped otherwise.
. "$top_srcdir/tests/edl/common.sh"

fuzzer=$top_builddir/tests/edl/fuzz_edl
if [ ! -x "$fuzzer" ]; then
    echo "SKIP: the fuzz target is built by ./configure --enable-fuzz CC=clang"
    exit 77
fi
mkdir "$TMP/corpus"
"$fuzzer" -max_total_time="${EDL_FUZZ_SECONDS:-20}" -timeout=10 -rss_limit_mb=2048 \
    -artifact_prefix="$TMP/" "$TMP/corpus" "$SRC/fuzz-corpus" 2>"$TMP/log"
rc=$?
tail -n 3 "$TMP/log"
if [ $rc -ne 0 ]; then
    failed "the fuzzer found a problem (exit status $rc)"
    grep -A 30 "ERROR\|==.*==" "$TMP/log" | head -60
    for a in "$TMP"/crash-* "$TMP"/leak-* "$TMP"/timeout-* "$TMP"/oom-*; do
        [ -f "$a" ] && { echo "--- $a:"; od -c "$a" | head -20; }
    done
fi
exit $fail
