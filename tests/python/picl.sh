#!/bin/sh
# picl.sh -- the Python module on foreign (PICL) traces read with their EDL
# description: the PICL 2.0 sample with edl/formats/picl.edl as source and
# compiled (edlc), and the PICL 1 ring, each checked record by record and
# column by column against pal-dump (tests/python/check.py): float times in
# seconds, OPTIONAL fields missing (None / NaN), arrays of (int, float) items.
set -u
. "$(dirname "$0")/lib.sh"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/py-picl.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0
samples="$top_srcdir/tests/edl/samples"
formats="$top_srcdir/edl/formats"
"$PY" "$check" "$dump" --dict "$formats/picl.edl" --type stat_time --type isend_begin \
    "$samples/mpicl_test.excerpt.ttf" || fail=1
"$top_builddir/edl/edlc" "$formats/picl.edl" -o "$tmp/picl.bin" || { echo "FAIL: edlc"; exit 1; }
"$PY" "$check" "$dump" --dict "$tmp/picl.bin" --type bcast_begin "$samples/mpicl_lab5.excerpt.ttf" || fail=1
"$PY" "$check" "$dump" --dict "$formats/picl1.edl" "$samples/ring4.picl1" || fail=1
exit $fail
