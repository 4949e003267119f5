#!/bin/sh
# report.sh -- the wait-state table of the HTML report (pal-view --html;
# views/waits.c, views/html.c, views/report.js) on a 4-rank MPI run with
# injected Late Sender waits (tests/diag/lateness.c): the page is
# well-formed XML; the table has one row per wait row of --waits=csv with
# the same seconds and instances; each row's longest instance (the time
# the timeline jumps to) is no longer than its total, starts inside the
# run, and for MPI_Recv on rank 0 is the longest wait the program
# injected (nominally rank n-1's delay), within 2 % + 1 ms; the script connects the
# table to the timeline.
. "$top_srcdir/tests/mpi/common.sh"
pv=$top_builddir/views/pal-view
D=25
run 4 "$top_builddir/tests/diag/lateness" late-sender $D
"$pv" --waits=csv "$tmp/trace.ecl" > "$tmp/waits.csv" || fail "pal-view --waits=csv"
"$pv" --html "$tmp/r.html" "$tmp/trace.ecl" || fail "pal-view --html"
if command -v python3 >/dev/null; then
    python3 -c 'import sys, xml.dom.minidom; xml.dom.minidom.parse(sys.argv[1])' "$tmp/r.html" ||
        fail "the report is not well-formed XML"
fi
grep -q '<table class="sortable" id="waits-table">' "$tmp/r.html" || fail "no wait-state table"
grep -q "getElementById('waits-table')" "$tmp/r.html" || fail "the script does not connect the table"
# the table's rows: at len rank | pattern | rank | thread | call path | seconds | instances | longest | at
sed -n '/id="waits-table"/,/<\/table>/p' "$tmp/r.html" | grep '^<tr data-at=' |
    sed 's/<tr data-at="\([^"]*\)" data-len="\([^"]*\)" data-rank="\([^"]*\)">/\1 \2 \3 /; s/<td[^>]*>//g; s/<\/td>/|/g; s/<\/tr>//' \
    > "$tmp/rows"
cat "$tmp/rows"
n=$(wc -l < "$tmp/rows")
w=$(awk -F, 'NR > 1 && $1 == "wait"' "$tmp/waits.csv" | wc -l)
[ "$n" = "$w" ] && [ "$n" -gt 0 ] || fail "the table has $n rows, --waits=csv $w wait rows"
dur=$(awk '/ranks, .* threads, / { for (i = 1; i <= NF; i++) if ($(i + 1) == "s</p>") print $i }' "$tmp/r.html" | head -1)
awk -F'|' -v dur="${dur:-1e9}" '{ split($1, a, " "); if (a[2] > $5 + 1e-6 || a[1] < 0 || a[1] > dur) bad = 1 } END { exit bad }' \
    "$tmp/rows" || fail "a row's longest instance is longer than its total or outside the run"
# totals: the table's and the CSV's, per pattern title
t=$(awk -F'|' '{ s += $5 } END { printf "%.6f\n", s }' "$tmp/rows")
c=$(awk -F, 'NR > 1 && $1 == "wait" { s += $6 } END { printf "%.6f\n", s }' "$tmp/waits.csv")
awk -v t="$t" -v c="$c" 'BEGIN { d = t - c; if (d < 0) d = -d; exit !(d <= 1e-5) }' ||
    fail "the table's seconds add up to $t, the CSV's to $c"
# the longest Late Sender in MPI_Recv on rank 0: the longest the program
# injected (nominally the last phase's, rank n-1's delay)
g=$(awk -F'|' '{ split($1, a, " ") } $1 ~ /Late Sender$/ && $4 == "MPI_Recv" && a[3] == 0 { print a[2] }' "$tmp/rows")
e=$(cat "$tmp"/lateness.*.times | awk '$1 == "late_sender" && $2 ~ /^MPI_Recv#/ {
        if ($3 == "send") s[$2] = $5; else r[$2] = $5 }
    END { for (k in s) if (s[k] - r[k] > m) m = s[k] - r[k]; printf "%.9f\n", m }')
echo "longest Late Sender in MPI_Recv: table $g s, injected $e s"
[ -n "$g" ] && awk -v g="$g" -v e="$e" 'BEGIN { d = g - e; if (d < 0) d = -d; exit !(d <= 0.02 * e + 0.001) }' ||
    fail "the longest Late Sender in MPI_Recv is $g s, the program injected $e s"
echo PASS
