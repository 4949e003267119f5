# common.sh -- sourced by the tests/edl shell tests: paths, a scratch
# directory removed on exit, and failure bookkeeping. `make check` exports
# top_srcdir and top_builddir (absolute); set them by hand to run a test alone.
: "${top_srcdir:?run through make check, or set top_srcdir}"
: "${top_builddir:?run through make check, or set top_builddir}"
EDLC=$top_builddir/edl/edlc
WALK=$top_builddir/tests/edl/edl-walk
SRC=$top_srcdir/tests/edl
FORMATS=$top_srcdir/edl/formats
TMP=$(mktemp -d "${TMPDIR:-/tmp}/edltest.XXXXXX") || exit 99
trap 'rm -rf "$TMP"' EXIT
fail=0

failed()
{
    echo "FAIL: $*"
    fail=1
}

# round_trip FILE.edl: edl -> bin -> print -> bin must give identical bytes.
round_trip()
{
    "$EDLC" "$1" -o "$TMP/rt1.bin" 2>"$TMP/rt.err" || { failed "$1 does not compile"; cat "$TMP/rt.err"; return; }
    "$EDLC" --print "$TMP/rt1.bin" >"$TMP/rt.edl" || { failed "$1: --print failed"; return; }
    "$EDLC" "$TMP/rt.edl" -o "$TMP/rt2.bin" 2>"$TMP/rt.err" || { failed "$1: printed EDL does not compile"; cat "$TMP/rt.err"; return; }
    cmp -s "$TMP/rt1.bin" "$TMP/rt2.bin" || failed "$1: round trip changed the dictionary"
}
