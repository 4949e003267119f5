#!/bin/sh
# share.sh -- pal_reader_set_share (tests/pal/test_pal_share) on a trace of
# several threads (tests/views/vwprog's, one file: shares by stream) and,
# with MPI, on a 4-rank run of examples/mpi/ring read as per-rank files (by
# file for up to 4 shares, by stream beyond), as its merged trace and, with
# OTF2, as an archive (one stream).
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
t="$top_builddir/tests/pal/test_pal_share"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/share.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0
ECL_DIR="$tmp" ECL_PREFIX=vw "$top_builddir/tests/views/vwprog" >/dev/null 2>&1 || exit 99
trace=$(ls "$tmp"/vw.*.ecl 2>/dev/null | head -1)
[ -n "$trace" ] || { echo "vwprog wrote no trace"; exit 99; }
"$t" "$trace" || fail=1
ring="$(cd "$top_builddir" && pwd)/examples/mpi/ring"
if [ "${ECL_TEST_HAVE_MPI:-no}" = yes ] && [ -x "$ring" ]; then
    OMPI_ALLOW_RUN_AS_ROOT=1
    OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
    export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
    for v in $(env | sed -n 's/^\(ECL_[A-Za-z0-9_]*\)=.*/\1/p'); do
        case $v in ECL_TEST_*) ;; *) unset "$v" ;; esac
    done
    mkdir "$tmp/ring"
    (cd "$tmp/ring" && ECL_DIR="$tmp/ring" ASAN_OPTIONS="detect_leaks=0:verify_asan_link_order=0" \
        timeout 120 "${ECL_TEST_MPIRUN:-mpirun}" --oversubscribe -np 4 "$ring" 10) \
        >"$tmp/out" 2>&1 || { cat "$tmp/out"; echo "mpirun failed"; exit 99; }
    "$t" "$tmp/ring"/trace.[0-9]*.ecl || fail=1
    "$t" "$tmp/ring/trace.ecl" || fail=1
    # a trace of one stream (an OTF2 archive): share 0 holds it all
    if [ "${ECL_TEST_HAVE_OTF2:-no}" = yes ]; then
        "$top_builddir/views/pal-view" --export otf2 -o "$tmp/ring.otf2" "$tmp/ring/trace.ecl" \
            >/dev/null 2>&1 || { echo "FAIL: pal-view --export otf2"; fail=1; }
        "$t" "$tmp/ring.otf2/traces.otf2" || fail=1
    fi
else
    echo "note: ECL was configured without MPI: no run read in shares"
fi
exit $fail
