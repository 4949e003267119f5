#!/bin/sh
# marker.sh -- a marker text longer than a buffer allows (ECL_BUFFER_SIZE -
# 160 bytes) is cut to that length, and the record's `length` field keeps the
# full length, so the cut is visible; a short text is whole, with its length.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/ecl/common.sh"

ECL_BUFFER_SIZE=4K "$B/tests/ecl/marker" 10000 > "$WORK/out" 2>&1 \
    || { cat "$WORK/out"; fail "marker: exit status $?"; }
"$B/pal/pal-dump" -f csv -t marker "$(trace_file)" > "$WORK/markers.csv" || fail "pal-dump failed"
# csv rows: record,time,process,stream,type,field,value
got=$(awk -F, '$6 == "text" { printf "%d ", length($7) } $6 == "length" { printf "%s ", $7 }' "$WORK/markers.csv")
[ "$got" = "3936 10000 5 5 " ] || fail "text and length fields are '$got', expected '3936 10000 5 5 '"
echo "marker of 10000 bytes: cut at 3936 and flagged; short marker whole: ok"
exit 0
