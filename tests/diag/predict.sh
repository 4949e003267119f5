#!/bin/sh
# predict.sh -- pal-view --predict on runs written by scaling.awk at 2, 4,
# 8 and 16 processes, whose per-call times follow known laws ("work":
# 64000/p us per call, 10 calls per rank; MPI_Allreduce: 100 log2(p) us,
# 10 calls; "setup": 50 us, p calls per rank): the models chosen are those
# laws, and at 64 processes each region's time per rank and the run's
# length are within 5 % of those of a run at 64 processes (measured by
# --what-if's replay of it). Bad arguments are refused with a message.
# No MPI needed.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
pv="$top_builddir/views/pal-view"
edl="$top_srcdir/tests/diag/scaling.edl"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ecl-diag-predict.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
for P in 2 4 8 16 64; do
    awk -v P=$P -f "$top_srcdir/tests/diag/scaling.awk" | sort -n -s -k1,1 > "$tmp/run$P.trace" || exit 99
done
"$pv" -d "$edl" --predict 64 "$tmp/run2.trace" "$tmp/run4.trace" "$tmp/run8.trace" \
    "$tmp/run16.trace" > "$tmp/pred.txt" || fail "pal-view --predict"
cat "$tmp/pred.txt"
# region CALLS_MODEL MEAN_MODEL EXPECTED_TIME_PER_RANK_S
check() {
    line=$(awk -v r="$1" '$1 == r' "$tmp/pred.txt")
    [ -n "$line" ] || fail "no prediction for $1"
    set -- $1 $2 $3 $4 $line
    [ "$6" = "$2" ] || fail "$1: calls model $6, expected $2"
    [ "$7" = "$3" ] || fail "$1: mean model $7, expected $3"
    awk -v g="${10}" -v e="$4" 'BEGIN { d = g - e; if (d < 0) d = -d; exit !(d <= 0.05 * e) }' ||
        fail "$1: predicted ${10} s per rank at 64 processes, a run at 64 has $4 s"
}
check setup p c 0.0032
check work c 1/p 0.010
check MPI_Allreduce c 'log2(p)' 0.006
"$pv" -d "$edl" --what-if scale:none=1 "$tmp/run64.trace" > "$tmp/run64.txt" || fail "--what-if on run64"
real=$(awk '/^  measured / { print $2 }' "$tmp/run64.txt")
pred=$(awk '/^Run length: predicted/ { print $4 }' "$tmp/pred.txt")
echo "run length at 64: predicted $pred s, a run at 64 measured $real s"
awk -v g="$pred" -v e="$real" 'BEGIN { d = g - e; if (d < 0) d = -d; exit !(e > 0 && d <= 0.05 * e) }' ||
    fail "run length predicted $pred s, measured $real s"
# refusals
"$pv" -d "$edl" --predict 64 "$tmp/run2.trace" 2>"$tmp/err" && fail "--predict with one run accepted"
grep -q "pal-view: --predict: give 2 to" "$tmp/err" || fail "no message for one run"
"$pv" -d "$edl" --predict 64 "$tmp/run2.trace" "$tmp/run2.trace" 2>"$tmp/err" &&
    fail "--predict with two runs of 2 processes accepted"
grep -q "both have 2 processes" "$tmp/err" || fail "no message for two runs of one size"
"$pv" -d "$edl" --predict x "$tmp/run2.trace" "$tmp/run4.trace" 2>"$tmp/err" && fail "--predict x accepted"
grep -q "pal-view: --predict: expected a process count, got 'x'" "$tmp/err" || fail "no message for --predict x"
echo "PASS"
