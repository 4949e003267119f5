#!/bin/sh
# counters.sh -- perf_event counters (ECL_COUNTERS): the software counters
# (task-clock, page-faults, context-switches) are sampled on every thread's
# stream, non-zero at the end and never decreasing; hardware counters are
# recorded where the machine has them, and where it has not, one message
# says so and the software ones are still recorded.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/auto/common.sh"
cd "$WORK" || exit 99
$CC -g -O0 -finstrument-functions "$S/fib.c" "$S/autolib.c" -o fib || fail "cannot build fib"
rm -f "$WORK"/*.ecl
ECL_COUNTERS=default ECL_COUNTER_PERIOD=0 $ECLRUN ./fib > out 2> err || { cat err; fail "exit status"; }
TRACE=$(trace_file)
if grep -q "perf_event_open: Permission denied\|perf_event_open: Operation not permitted" err &&
   grep -q "software counter 'task-clock'" err; then
    skip "perf_event_open is not allowed here (kernel.perf_event_paranoid): $(head -1 err)"
fi
"$PALDUMP" --type counter_int "$TRACE" > samples
for c in task-clock page-faults context-switches; do
    n=$(grep -c "counter=\"$c\"" samples)
    [ "$n" -gt 100 ] || fail "$c: $n samples"
    awk -v c="counter=\"$c\"" '$5 == c { v = $6; sub(/value=/, "", v); v += 0
        if (v < last[$3]) { print "decreases on " $3 ": " last[$3] " then " v; bad = 1 }
        last[$3] = v } END { exit bad }' samples || fail "$c is not monotonic"
    echo "$c: $n samples, monotonic"
done
last=$(awk '$5 == "counter=\"task-clock\"" { v = $6 } END { sub(/value=/, "", v); print v + 0 }' samples)
[ "$last" -gt 0 ] || fail "task-clock ends at 0"
echo "task-clock at the end: $last ns"
for c in cycles instructions cache-misses; do
    if grep -q "hardware counter '$c' is not available on this machine" err; then
        expect "$c (not available, said so)" "$(grep -c "counter=\"$c\"" samples)" 0
    else
        n=$(grep -c "counter=\"$c\"" samples)
        [ "$n" -gt 100 ] || fail "$c: available but $n samples"
        echo "$c: $n samples"
    fi
done
grep -v "hardware counter '.*' is not available on this machine (perf_event_open: .*); recording the software counters only" err > other
[ -s other ] && { cat other; fail "unexpected messages"; }

# a counter ECL does not know: said once, and the default (no counters) used
rm -f "$WORK"/*.ecl
ECL_COUNTERS=cycles,bogus $ECLRUN ./fib > out 2> err || fail "bogus counter: exit status"
grep -q "^ecl: ECL_COUNTERS='cycles,bogus' is not valid: unknown counter 'bogus'.*; ignored, the default (none) is used" err \
    || { cat err; fail "bogus counter: no message"; }
[ "$(grep -c '^ecl: ' err)" -eq 1 ] || { cat err; fail "bogus counter: not one message"; }
t=$(ls "$WORK"/*.ecl) || fail "bogus counter: no trace"
n=$("$PALDUMP" -c -t counter_int "$t" | awk '$1 == "counter_int" { print $2 }')
[ "${n:-0}" -eq 0 ] || fail "bogus counter: $n counter samples, not none"
echo "unknown counter: said, traced without counters"
exit 0
