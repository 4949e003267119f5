#!/bin/sh
# fuzz.sh -- runs PAL's fuzz targets for a bounded time each (20 s by
# default, PAL_FUZZ_SECONDS to change) from their committed seed corpora:
#   fuzz_ascii   tests/pal/fuzz-corpus (first byte 0 PICL, 1 old PICL, 2 the
#                tutorial's CSV-like log, 3 toymp, 4 the roles_ascii
#                golden case; +128 strict)
#   fuzz_binary  tests/pal/fuzz-corpus-binary (ECL traces: read alone, as a
#                run, merged, strict; the refusals of a run: different runs,
#                the same rank twice, another format; see fuzz_binary.c)
#   fuzz_otf2    tests/pal/fuzz-corpus-otf2 (OTF2 archives, file by file;
#                built only when libotf2 is found)
# Built only with ./configure --enable-fuzz CC=clang; skipped otherwise.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
if [ ! -x "$top_builddir/tests/pal/fuzz_ascii" ]; then
    echo "SKIP: the fuzz targets are built by ./configure --enable-fuzz CC=clang"
    exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pal-fuzz.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
status=0
for target in fuzz_ascii:fuzz-corpus:4096 fuzz_binary:fuzz-corpus-binary:16384 \
        fuzz_otf2:fuzz-corpus-otf2:4096; do
    fuzzer=$top_builddir/tests/pal/${target%%:*}
    if [ ! -x "$fuzzer" ]; then
        echo "== ${target%%:*}: not built (no libotf2)"
        continue
    fi
    rest=${target#*:}
    corpus=${rest%%:*}
    maxlen=${rest#*:}
    rm -rf "$tmp/corpus"
    mkdir "$tmp/corpus"
    echo "== ${target%%:*}"
    # libotf2 (not PAL) allocates the sizes a damaged archive gives it and
    # leaks on some: its allocations may fail (it checks them), and its own
    # leaks are suppressed (tests/pal/fuzz-otf2.supp)
    supp= nullok=
    if [ "${target%%:*}" = fuzz_otf2 ]; then
        supp="suppressions=$top_srcdir/tests/pal/fuzz-otf2.supp:"
        nullok="allocator_may_return_null=1:"
    fi
    LSAN_OPTIONS="$supp${LSAN_OPTIONS:-}" ASAN_OPTIONS="$nullok${ASAN_OPTIONS:-}" \
    "$fuzzer" -max_total_time="${PAL_FUZZ_SECONDS:-20}" -timeout=10 -rss_limit_mb=2048 \
        -max_len="$maxlen" -artifact_prefix="$tmp/" "$tmp/corpus" "$top_srcdir/tests/pal/$corpus" \
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
        status=1
    fi
done
exit $status
