#!/bin/sh
# profile.sh -- pal-view's profile of compiler-instrumented programs:
# fib(20) is recursive: its calls are counted at every depth (21891) and its
# inclusive time once (the outermost instance), so it is no longer than main
# nor the run; counters per region from known samples (regcount.c): exact,
# a counter that decreases left out, counters that start while regions are
# open, recursion; from perf_event (ECL_COUNTERS, software counters): work.c's
# two functions get non-zero task-clock deltas, inclusive >= exclusive, the
# exclusive deltas of all regions add up to main's inclusive, which is the
# thread's task-clock from its first to its last sample, give or take the
# samples outside main.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/auto/common.sh"
PALVIEW="$B/views/pal-view"
cd "$WORK" || exit 99
$CC -g -O0 -finstrument-functions "$S/fib.c" "$S/autolib.c" -o fib || fail "cannot build fib"
run_traced "fib" $ECLRUN ./fib
"$PALVIEW" --export csv "$TRACE" > fib.csv || fail "pal-view --export csv fib"
"$PALVIEW" "$TRACE" > fib.txt || fail "pal-view fib"
expect "fib calls" "$(awk -F, '$1 == "region" && $4 == "fib" { print $6 }' fib.csv)" 21891
awk -F, '$1 == "region" { t[$4] = $7 } END {
    printf "fib inclusive %.6f s, main %.6f s\n", t["fib"], t["main"]
    exit !(t["fib"] > 0 && t["fib"] <= t["main"]) }' fib.csv \
    || fail "fib's inclusive time is not within main's"
run=$(awk '/^  records/ { for (i = 1; i <= NF; i++) if ($i == "run") print $(i + 1) }' fib.txt)
share=$(awk '$1 == "fib" { print $7 }' fib.txt)
awk -v s="$share" 'BEGIN { exit !(s + 0 <= 100) }' || fail "fib's share is $share%"
echo "fib share $share% of a $run s run"

# counters per region, exact: tests/auto/regcount writes known samples
rm -f "$WORK"/*.ecl
ECL_DIR="$WORK" "$B/tests/auto/regcount" || fail "regcount: exit status"
TRACE=$(trace_file)
"$PALVIEW" --export csv "$TRACE" | grep '^counter,' | sort > got.csv || fail "pal-view regcount"
{
    echo "counter,0,1,a,work,1,100,40,,"
    echo "counter,0,1,b,work,1,40,40,,"
    echo "counter,0,1,rec,work,2,20,20,,"
    for i in 0 1 2 3 4 5 6; do
        echo "counter,0,1,a,late$i,1,$((15 + 2 * i)),$((11 + i)),,"
        echo "counter,0,1,b,late$i,1,$((4 + i)),$((4 + i)),,"
        echo "counter,0,1,rec,late$i,2,0,0,,"
    done
} | sort > want.csv
diff want.csv got.csv || fail "regcount: counters per region differ (- expected, + pal-view)"
echo "regcount: 24 counters per region exact; the level left out"
"$PALVIEW" --view calltree "$TRACE" > tree.txt || fail "pal-view --view calltree"
grep -q "^    rec  calls=1 .* work=20/15 " tree.txt && grep -q "^      rec  calls=1 .* work=5/5 " tree.txt \
    || { cat tree.txt; fail "regcount: the call tree's counters"; }
echo "regcount: call tree nodes rec 20/15 and rec/rec 5/5"

$CC -g -O0 -finstrument-functions "$S/work.c" -o work || fail "cannot build work"
run_traced "work" env ECL_COUNTERS=task-clock,instructions ECL_COUNTER_PERIOD=0 $ECLRUN ./work
if grep -q "software counter 'task-clock' is not available" "$WORK/err"; then
    skip "perf_event_open is not allowed here: $(head -1 "$WORK/err")"
fi
"$PALVIEW" --export csv "$TRACE" > work.csv || fail "pal-view --export csv work"
"$PALVIEW" "$TRACE" > work.txt || fail "pal-view work"
grep -q "^Counters per region" work.txt || { cat work.txt; fail "no counters table"; }
expect "work_a calls with task-clock" \
    "$(awk -F, '$1 == "counter" && $4 == "work_a" && $5 == "task-clock" { print $6 }' work.csv)" 4
expect "work_b calls with task-clock" \
    "$(awk -F, '$1 == "counter" && $4 == "work_b" && $5 == "task-clock" { print $6 }' work.csv)" 8
# the thread's task-clock from its first to its last sample
total=$("$PALDUMP" --type counter_int "$TRACE" | awk '$5 == "counter=\"task-clock\"" {
    v = $6; sub(/value=/, "", v); if (!n++) first = v; last = v } END { print last - first }')
for c in task-clock instructions; do
    if [ "$c" = instructions ] && grep -q "counter 'instructions' is not available" "$WORK/err"; then
        echo "instructions: not available here (said so)"
        continue
    fi
    awk -F, -v c="$c" -v total="$total" '$1 == "counter" && $5 == c {
        incl[$4] = $7; excl[$4] = $8; sum += $8
        if ($8 + 0 > $7 + 0) { print $4 ": exclusive " $8 " > inclusive " $7; bad = 1 } }
    END {
        if (!(excl["work_a"] > 0 && excl["work_b"] > 0)) { print c ": zero in a region"; bad = 1 }
        if (sum != incl["main"]) { print c ": exclusive sum " sum " != main " incl["main"]; bad = 1 }
        # work_a: 2n iterations + n/4 in work_b, 4 times; work_b n + n/4 ... both grow
        if (!(incl["work_a"] > excl["work_a"])) { print c ": work_a has no child share"; bad = 1 }
        if (c == "task-clock" && !(incl["main"] <= total && incl["main"] > 0.5 * total)) {
            print c ": main " incl["main"] " vs the thread total " total; bad = 1 }
        printf "%s: work_a %d/%d, work_b %d/%d, main %d/%d (incl/excl), thread %d\n", c,
            incl["work_a"], excl["work_a"], incl["work_b"], excl["work_b"], incl["main"],
            excl["main"], total
        exit bad }' work.csv || fail "$c per region"
done
exit 0
