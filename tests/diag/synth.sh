#!/bin/sh
# synth.sh -- predicted runs written as traces (doc/diagnosis.md, "The
# predicted run as a trace"), on runs written by scaling.awk (no MPI
# needed):
# - pal-view --what-if SPEC -o pred.ecl: the trace read back is the
#   prediction: replayed as recorded, its length and every rank's time are
#   what --what-if printed (to the microsecond); its profile has the
#   scaled region's time scaled and the others' unchanged, and its run
#   length differs from the prediction as the input's does from its
#   measured length; with ideal, MPI_Allreduce takes no time and no rank
#   waits in it; records keep their order per rank and thread;
# - pal-view --predict 64 -o p64.ecl from the runs at 2, 4, 8 and 16: a
#   64-rank trace whose calls per region are the predicted calls per rank
#   x 64, whose time per region is within 5 % of the predicted time per
#   rank x 64, whose replay is within 5 % of the predicted run length and
#   of a real run at 64 (scaling.awk's), time in order on every stream,
#   the world of 64 ranks; a process count that is no multiple of the
#   largest run's is refused;
# - the writer's API (tests/diag/synth_writer.c): records put out of order,
#   by name and by field descriptor, read back in time order; its errors;
# - an output that cannot be written is refused with a message naming it,
#   and nothing is left behind; a FIFO or a device is refused unless
#   --through (then written into: a device).
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
pv="$top_builddir/views/pal-view"
dump="$top_builddir/pal/pal-dump"
edl="$top_srcdir/tests/diag/scaling.edl"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ecl-diag-synth.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
for P in 2 4 8 16; do
    awk -v P=$P -f "$top_srcdir/tests/diag/scaling.awk" | sort -n -s -k1,1 > "$tmp/run$P.trace" || exit 99
done

# field N of the line of --what-if's text output that starts with $2
whatif_line() { awk -v k="$2" 'index($0, "  " k) == 1 { sub("^  " k " *", ""); print $1; exit }' "$1"; }
# the profile's "run X s" and a region's total_s
prof_run() { sed -n 's/.* run \([0-9.]*\) s,.*/\1/p' "$1"; }
prof_total() { awk -v r="$2" '$1 == r { print $3; exit }' "$1"; }
near() {   # near A B TOL
    awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(a != "" && b != "" && d <= t) }'
}

for spec in scale:work=0.5 ideal 'scale:setup=3,scale:work=0.25'; do
    rm -f "$tmp/pred.ecl"
    "$pv" -d "$edl" --what-if "$spec" -o "$tmp/pred.ecl" "$tmp/run8.trace" > "$tmp/wi.txt" ||
        fail "$spec: pal-view --what-if -o"
    [ -s "$tmp/pred.ecl" ] || fail "$spec: no trace written"
    "$pv" --what-if net "$tmp/pred.ecl" > "$tmp/back.txt" || fail "$spec: the written trace cannot be replayed"
    pred=$(whatif_line "$tmp/wi.txt" predicted)
    meas=$(whatif_line "$tmp/back.txt" measured)
    rep=$(whatif_line "$tmp/back.txt" "replayed as recorded")
    echo "$spec: predicted $pred s; the trace written measures $meas s, replays as $rep s"
    near "$pred" "$meas" 0.000001 || fail "$spec: predicted $pred s, the trace written measures $meas s"
    near "$pred" "$rep" 0.000001 || fail "$spec: predicted $pred s, the trace written replays as $rep s"
    # every rank: predicted (column 4) = the written trace's recorded (column 3)
    awk '/^ +rank thread/ { on = 1; next } on && NF == 4 { print $1, $2, $4 }' "$tmp/wi.txt" | sort > "$tmp/a"
    awk '/^ +rank thread/ { on = 1; next } on && NF == 4 { print $1, $2, $3 }' "$tmp/back.txt" | sort > "$tmp/b"
    [ "$(wc -l < "$tmp/a")" -eq 8 ] || fail "$spec: not 8 ranks in the prediction"
    cmp -s "$tmp/a" "$tmp/b" || { diff "$tmp/a" "$tmp/b"; fail "$spec: per-rank times of the written trace differ from the prediction"; }
    # the profile: run length shifted as the input's, regions as the model says
    "$pv" -d "$edl" "$tmp/run8.trace" > "$tmp/p0.txt" || fail "profile of run8"
    "$pv" "$tmp/pred.ecl" > "$tmp/p1.txt" || fail "$spec: profile of the written trace"
    m0=$(whatif_line "$tmp/wi.txt" measured)
    r0=$(prof_run "$tmp/p0.txt")
    r1=$(prof_run "$tmp/p1.txt")
    d=$(awk -v a="$r0" -v b="$m0" 'BEGIN { printf "%.6f", a - b }')
    near "$r1" "$(awk -v p="$pred" -v d="$d" 'BEGIN { print p + d }')" 0.000001 ||
        fail "$spec: the written trace's profile says run $r1 s, the prediction $pred s (+ $d s before the first call)"
    case $spec in
    scale:work=0.5) fw=0.5 fs=1 fa=1 ;;
    ideal) fw=1 fs=1 fa=0 ;;
    *) fw=0.25 fs=3 fa=1 ;;
    esac
    for rf in "work $fw" "setup $fs" "MPI_Allreduce $fa"; do
        set -- $rf
        a=$(prof_total "$tmp/p0.txt" "$1")
        b=$(prof_total "$tmp/p1.txt" "$1")
        near "$b" "$(awk -v a="$a" -v f="$2" 'BEGIN { print a * f }')" 0.000002 ||
            fail "$spec: $1 takes $b s in the written trace, $a s x $2 expected"
    done
    # the same records, in order per rank and thread, times never going back
    "$dump" -d "$edl" "$tmp/run8.trace" | awk '{ print $2, $3, $4 }' | sort -s -k1,2 > "$tmp/d0"
    "$dump" "$tmp/pred.ecl" > "$tmp/d1full" || fail "$spec: pal-dump of the written trace"
    awk '{ print $2, $3, $4 }' "$tmp/d1full" | sort -s -k1,2 > "$tmp/d1"
    cmp -s "$tmp/d0" "$tmp/d1" || fail "$spec: the written trace's records differ from the input's (type, rank, thread, order)"
    awk '{ k = $2 " " $3; if (k in last && $1 < last[k]) { print "time goes back: " $0; bad = 1 } last[k] = $1 }
         END { exit bad }' "$tmp/d1full" || fail "$spec: time goes back on a stream"
done
# ideal: no rank waits in MPI_Allreduce any more
"$pv" -d "$edl" --what-if ideal -o "$tmp/ideal.ecl" "$tmp/run16.trace" > /dev/null || fail "ideal on run16"
"$pv" --waits=csv "$tmp/ideal.ecl" > "$tmp/w.csv" || fail "--waits on the ideal trace"
awk -F, '$1 == "pattern" && $3 + 0 > 0 { print; bad = 1 } END { exit bad }' "$tmp/w.csv" ||
    fail "the ideal trace still has waits"
# --predict 64 -o: a run of 64 ranks synthesized from the runs at 2 to 16
# processes (copies of the 16-rank run, times and counts from the models)
awk -v P=64 -f "$top_srcdir/tests/diag/scaling.awk" | sort -n -s -k1,1 > "$tmp/run64.trace" || exit 99
"$pv" -d "$edl" --predict 64 -o "$tmp/p64.ecl" "$tmp/run2.trace" "$tmp/run4.trace" \
    "$tmp/run8.trace" "$tmp/run16.trace" > "$tmp/pred.txt" || fail "--predict 64 -o"
cat "$tmp/pred.txt"
"$pv" "$tmp/p64.ecl" > "$tmp/p64.txt" || fail "profile of the synthesized run"
sed -n 2p "$tmp/p64.txt"
grep -q " ranks 64, " "$tmp/p64.txt" || fail "the synthesized run has not 64 ranks"
for r in setup work MPI_Allreduce; do
    # predicted calls per rank and time per rank; the trace's calls and total over 64
    set -- $(awk -v r=$r '$1 == r { print $4, $6; exit }' "$tmp/pred.txt") \
        $(awk -v r=$r '$1 == r { print $2, $3; exit }' "$tmp/p64.txt")
    echo "$r: predicted $1 calls and $2 s per rank; the synthesized run has $3 calls, $4 s"
    [ $# -eq 4 ] || fail "$r: not in the prediction or the synthesized run's profile"
    near "$3" "$(awk -v c="$1" 'BEGIN { printf "%d", c * 64 + 0.5 }')" 0 ||
        fail "$r: $3 calls in the synthesized run, $1 per rank predicted"
    near "$4" "$(awk -v t="$2" 'BEGIN { print t * 64 }')" "$(awk -v t="$2" 'BEGIN { print t * 64 * 0.05 }')" ||
        fail "$r: $4 s in the synthesized run, $2 s per rank predicted (5 %)"
done
"$pv" --what-if net "$tmp/p64.ecl" > "$tmp/p64w.txt" || fail "--what-if on the synthesized run"
"$pv" -d "$edl" --what-if net "$tmp/run64.trace" > "$tmp/r64w.txt" || fail "--what-if on run64"
sl=$(whatif_line "$tmp/p64w.txt" predicted)
pl=$(awk '/^Run length: predicted/ { print $4 }' "$tmp/pred.txt")
rl=$(whatif_line "$tmp/r64w.txt" measured)
echo "run length at 64: predicted $pl s, the synthesized run replays in $sl s, a run at 64 measures $rl s"
near "$sl" "$pl" "$(awk -v t="$pl" 'BEGIN { print t * 0.05 }')" || fail "the synthesized run replays in $sl s, predicted $pl s"
near "$sl" "$rl" "$(awk -v t="$rl" 'BEGIN { print t * 0.05 }')" || fail "the synthesized run replays in $sl s, a run at 64 measures $rl s"
"$dump" "$tmp/p64.ecl" | awk '{ k = $2 " " $3; if (k in last && $1 < last[k]) { print "time goes back: " $0; bad = 1 } last[k] = $1 }
     END { exit bad }' || fail "the synthesized run: time goes back on a stream"
"$dump" "$tmp/p64.ecl" | grep -q 'p63 s0 comm .*size=64 members="0-63"' || fail "the world is not 64 ranks"
"$pv" -d "$edl" --predict 40 -o "$tmp/p40.ecl" "$tmp/run2.trace" "$tmp/run16.trace" > /dev/null 2> "$tmp/err" &&
    fail "--predict 40 -o from a 16-rank run accepted"
grep -q "give a multiple of 16" "$tmp/err" || { cat "$tmp/err"; fail "no message for --predict 40 -o"; }
[ ! -e "$tmp/p40.ecl" ] || fail "--predict 40 -o left a file"
# the writer itself (pal/pal.h): records put out of order read back in order
"$top_builddir/tests/diag/synth_writer" "$edl" "$tmp/w.ecl" || fail "tests/diag/synth_writer"
# refusals: a directory that does not exist, a FIFO (unless --through)
"$pv" -d "$edl" --what-if ideal -o "$tmp/no/such/dir/p.ecl" "$tmp/run2.trace" > /dev/null 2> "$tmp/err" &&
    fail "an output in a missing directory accepted"
grep -q "pal-view: .*$tmp/no/such/dir/p.ecl" "$tmp/err" || { cat "$tmp/err"; fail "no message naming the output"; }
[ ! -e "$tmp/no" ] || fail "something was left behind"
ls "$tmp" | grep -q '\.tmp\.' && fail "a temporary file was left behind"
if mkfifo "$tmp/fifo" 2>/dev/null; then
    "$pv" -d "$edl" --what-if ideal -o "$tmp/fifo" "$tmp/run2.trace" > /dev/null 2> "$tmp/err" &&
        fail "a FIFO accepted as the output without --through"
    grep -q "$tmp/fifo" "$tmp/err" || { cat "$tmp/err"; fail "no message naming the FIFO"; }
fi
# a device is written into with --through (the file is written at offsets:
# not into a FIFO or a pipe)
"$pv" -d "$edl" --what-if ideal -o /dev/null "$tmp/run2.trace" > /dev/null 2> "$tmp/err" &&
    fail "a device accepted as the output without --through"
grep -q "/dev/null" "$tmp/err" || { cat "$tmp/err"; fail "no message naming the device"; }
"$pv" -d "$edl" --through --what-if ideal -o /dev/null "$tmp/run2.trace" > /dev/null ||
    fail "--through -o /dev/null"
"$pv" -d "$edl" --waits -o "$tmp/x.ecl" "$tmp/run2.trace" 2> "$tmp/err" && fail "--waits -o without --what-if accepted"
grep -q "goes with --what-if" "$tmp/err" || fail "no message for --waits -o"
echo PASS
