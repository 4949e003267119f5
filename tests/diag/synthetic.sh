#!/bin/sh
# synthetic.sh -- pal-view --waits on a run written by
# tests/views/many-ranks.awk (100 ranks, 6 steps, described by
# tests/views/many-ranks.edl, a description that names no collective
# operation: MPI_Allreduce is known by its region's name). Its times are
# exact (microseconds), so the waits are exact too, computed here from the
# generator's formulas: per step s and rank r, with j = (7r + 13s) % 50,
#   MPI_Waitall starts at j + 10, its receive's send (rank r-1's MPI_Isend)
#     at j(r-1) + 3: Late Sender max(0, j(r-1) - j(r) - 7) us
#   MPI_Allreduce starts at 220 + j + 10 (r % 9): Wait at NxN, the last
#     start - own start, summed over the ranks
#   MPI_Bcast: every rank starts at 840: no Late Broadcast.
# Replayed as recorded (--what-if scale:work=1), the run is the measured
# run exactly. No MPI needed.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
pv="$top_builddir/views/pal-view"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ecl-diag-synth.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
N=100
S=6
awk -v N=$N -v S=$S -f "$top_srcdir/tests/views/many-ranks.awk" | sort -n -s -k1,1 > "$tmp/run.trace" ||
    exit 99
"$pv" -d "$top_srcdir/tests/views/many-ranks.edl" --waits=csv "$tmp/run.trace" > "$tmp/waits.csv" ||
    fail "pal-view --waits=csv"
expect=$(awk -v N=$N -v S=$S 'BEGIN {
    for (s = 0; s < S; s++) {
        mx = -1
        for (r = 0; r < N; r++) {
            j[r] = (r * 7 + s * 13) % 50; a[r] = 220 + j[r] + (r % 9) * 10
            if (a[r] > mx) mx = a[r]
        }
        for (r = 0; r < N; r++) {
            l = (r + N - 1) % N; w = j[l] - j[r] - 7
            if (w > 0) ls += w
            nxn += mx - a[r]
        }
    }
    printf "%.6f %.6f\n", ls / 1e6, nxn / 1e6 }')
sum() {
    awk -F, -v p="$1" '$1 == "wait" && $2 == p { s += $6 } END { printf "%.6f\n", s }' "$tmp/waits.csv"
}
echo "expected late_sender, wait_nxn: $expect"
got="$(sum late_sender) $(sum wait_nxn)"
echo "pal-view:                      $got"
[ "$got" = "$expect" ] || fail "pal-view --waits gives $got, the generator's formulas $expect"
[ "$(sum late_broadcast)" = 0.000000 ] || fail "a Late Broadcast where every rank starts together"
# every Wait at NxN is an MPI_Allreduce's, on thread 0
awk -F, '$1 == "wait" && $2 == "wait_nxn" && ($5 != "MPI_Allreduce" || $4 != 0) { bad = 1 }
    END { exit bad }' "$tmp/waits.csv" || fail "a Wait at NxN not on MPI_Allreduce of thread 0"
"$pv" -d "$top_srcdir/tests/views/many-ranks.edl" --what-if scale:work=1 "$tmp/run.trace" > "$tmp/whatif.txt" ||
    fail "pal-view --what-if"
cat "$tmp/whatif.txt" | head -5
m=$(awk '/^  measured / { print $2 }' "$tmp/whatif.txt")
r=$(awk '/^  replayed as recorded / { print $4 }' "$tmp/whatif.txt")
[ -n "$m" ] && [ "$m" = "$r" ] || fail "replayed as recorded $r s, measured $m s"
# the same in CSV and JSON (--what-if with --waits=csv|json)
"$pv" -d "$top_srcdir/tests/views/many-ranks.edl" --what-if scale:work=1 --waits=csv "$tmp/run.trace" \
    > "$tmp/whatif.csv" || fail "pal-view --what-if --waits=csv"
c=$(awk -F, '$1 == "run" { printf "%.6f\n", $4 }' "$tmp/whatif.csv")
[ "$c" = "$m" ] || fail "--what-if CSV: measured $c s, text $m s"
[ "$(grep -c '^lane,' "$tmp/whatif.csv")" = 110 ] || fail "--what-if CSV: not one row per rank and thread (110)"
if command -v python3 >/dev/null; then
    "$pv" -d "$top_srcdir/tests/views/many-ranks.edl" --what-if scale:work=1 --waits=json "$tmp/run.trace" \
        > "$tmp/whatif.json" || fail "pal-view --what-if --waits=json"
    j=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("%.6f %d" % (d["measured"], len(d["lanes"])))' \
        "$tmp/whatif.json") || fail "--what-if JSON does not parse"
    [ "$j" = "$m 110" ] || fail "--what-if JSON: $j, expected $m 110"
fi
echo "PASS"
