#!/bin/sh
# iowait.sh -- time in I/O from the record role io (doc/edl.md, "Roles"):
# a program blocks in read on a pipe that a thread feeds after known delays
# (iowait.c); traced with ECL_GROUPS=io, pal-view --waits shows that time as
# the pattern io on the main thread's call path "read": as many instances as
# reads, and the seconds the program measured around its reads within 2 %
# plus 1 ms. The feeding thread's writes are I/O too, and short.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/auto/common.sh"
cd "$WORK" || exit 99
$CC -g -O0 -pthread "$S/iowait.c" -o iowait || fail "cannot build iowait"
run_traced "iowait" env ECL_GROUPS=io $ECLRUN ./iowait
measured=$(awk '/^read waited / { print $3 }' "$WORK/out")
[ -n "$measured" ] || fail "the program printed no measured wait"
"$B/views/pal-view" --waits=csv "$TRACE" > waits.csv || fail "pal-view --waits=csv"
grep '^wait,io,' waits.csv
# the main thread's reads: its lane is the one with the read call path
got=$(awk -F, '$1 == "wait" && $2 == "io" && $5 == "read" { s += $6; n += $7 }
               END { printf "%.9f %d\n", s, n }' waits.csv)
set -- $got
expect "io waits in read" "$2" 3
awk -v g="$1" -v m="$measured" 'BEGIN {
        m *= 1e-9; d = g - m; if (d < 0) d = -d
        printf "time in I/O: %.6f s, measured by the program %.6f s\n", g, m
        exit !(d <= 0.02 * m + 0.001) }' || fail "time in I/O $1 s is not the measured $measured ns"
# about the 240 ms of delays the feeder injected: less by as much as the main
# thread is late to its first read (40 ms would be a loaded machine indeed)
awk -v g="$1" 'BEGIN { exit !(g >= 0.2) }' || fail "time in I/O $1 s, of 0.24 s injected"
writes=$(awk -F, '$1 == "wait" && $2 == "io" && $5 == "write" { n += $7 } END { print n + 0 }' waits.csv)
expect "io waits in write" "$writes" 3
exit 0
