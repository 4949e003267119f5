#!/bin/sh
# predict.sh -- pal-view --predict on runs written by scaling.awk at 2, 4,
# 8 and 16 processes, whose per-call times follow known laws ("work":
# 64000/p us per call, 10 calls per rank; MPI_Allreduce: 100 log2(p) us,
# 10 calls; "setup": 50 us, p calls per rank): the models chosen are those
# laws, and at 64 processes each region's time per rank and the run's
# length are within 5 % of those of a run at 64 processes (measured by
# --what-if's replay of it). --waits=csv and --waits=json give the same
# models and numbers, and so does pal.predict in Python (when the module is
# built), whose out= writes the synthesized run as -o does. Bad arguments
# are refused with a message. No MPI needed.
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
# the same prediction as CSV and JSON (and from Python): same models, same
# seconds (text to its 9 decimals)
runs="$tmp/run2.trace $tmp/run4.trace $tmp/run8.trace $tmp/run16.trace"
"$pv" -d "$edl" --predict 64 --waits=csv $runs > "$tmp/pred.csv" || fail "--predict --waits=csv"
"$pv" -d "$edl" --predict 64 --waits=json $runs > "$tmp/pred.json" || fail "--predict --waits=json"
cat "$tmp/pred.csv"
for r in setup work MPI_Allreduce; do
    t=$(awk -v r=$r '$1 == r { print $2, $3, $6 }' "$tmp/pred.txt")
    c=$(awk -F, -v r=$r '$1 == "region" && $2 == r { printf "%s %s %.9f\n", $3, $4, $7 }' "$tmp/pred.csv")
    [ "$t" = "$c" ] || fail "$r: text says '$t', CSV '$c'"
done
l=$(awk -F, '$1 == "length" { printf "%.9f\n", $7 }' "$tmp/pred.csv")
[ "$l" = "$pred" ] || fail "CSV run length $l, text $pred"
if command -v python3 >/dev/null; then
    python3 - "$tmp/pred.json" "$tmp/pred.csv" <<'PY' || fail "the JSON says other than the CSV"
import csv, json, sys
j = json.load(open(sys.argv[1]))
rows = {r["region"]: r for r in csv.DictReader(open(sys.argv[2])) if r["table"] == "region"}
assert j["processes"] == 64 and [r["processes"] for r in j["runs"]] == [2, 4, 8, 16]
assert len(j["regions"]) == len(rows)
for g in j["regions"]:
    c = rows[g["region"]]
    assert (g["calls_model"], g["mean_model"]) == (c["calls_model"], c["mean_model"]), g
    assert abs(g["time_per_rank_s"] - float(c["time_per_rank_s"])) < 1e-9, g
PY
fi
if [ -e "$top_builddir/python/pal.so" ]; then
    (
    # a sanitizer build's module needs its runtimes first (as tests/python/lib.sh)
    if [ -n "${ECL_TEST_SAN_PRELOAD:-}" ]; then
        LD_PRELOAD="$ECL_TEST_SAN_PRELOAD${LD_PRELOAD:+ $LD_PRELOAD}"
        ASAN_OPTIONS="detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
        export LD_PRELOAD ASAN_OPTIONS
    fi
    "$pv" -d "$edl" --predict 64 -o "$tmp/synth.ecl" $runs > /dev/null || fail "--predict 64 -o"
    PYTHONPATH="$top_builddir/python${PYTHONPATH:+:$PYTHONPATH}" ${ECL_TEST_PY:-python3} - \
        "$tmp/pred.json" "$edl" "$tmp/synth.ecl" $runs <<'PY'
import json, os, sys
import pal
want = json.load(open(sys.argv[1]))
got = pal.predict(64, sys.argv[4:], dictionary=sys.argv[2])
assert got == want, (got, want)
# out=: the run synthesized, as pal-view --predict -o writes it
out = sys.argv[3] + ".py"
got = pal.predict(64, sys.argv[4:], dictionary=sys.argv[2], out=out)
assert got == want, (got, want)
assert open(out, "rb").read() == open(sys.argv[3], "rb").read(), "out= differs from -o"
try:
    pal.predict(40, sys.argv[4:], dictionary=sys.argv[2], out=out + "40")
except pal.Error:
    assert not os.path.exists(out + "40")
else:
    raise AssertionError("pal.predict(40, out=) from a 16-rank run did not raise")
try:
    pal.predict(64, sys.argv[3:4], dictionary=sys.argv[2])
except pal.Error:
    pass
else:
    raise AssertionError("pal.predict with one run did not raise")
PY
    ) || fail "pal.predict differs from pal-view --predict"
fi
# refusals
"$pv" -d "$edl" --predict 64 "$tmp/run2.trace" 2>"$tmp/err" && fail "--predict with one run accepted"
grep -q "pal-view: --predict: give 2 to" "$tmp/err" || fail "no message for one run"
"$pv" -d "$edl" --predict 64 "$tmp/run2.trace" "$tmp/run2.trace" 2>"$tmp/err" &&
    fail "--predict with two runs of 2 processes accepted"
grep -q "both have 2 processes" "$tmp/err" || fail "no message for two runs of one size"
"$pv" -d "$edl" --predict x "$tmp/run2.trace" "$tmp/run4.trace" 2>"$tmp/err" && fail "--predict x accepted"
grep -q "pal-view: --predict: expected a process count, got 'x'" "$tmp/err" || fail "no message for --predict x"
echo "PASS"
