#!/bin/sh
# papi.sh -- PAPI events as counters (ECL_COUNTERS=papi:EVENT or PAPI_...):
# where PAPI can count PAPI_TOT_INS, its samples are recorded (monotonic per
# thread) and pal-view gives work.c's regions non-zero deltas; where it
# cannot (a virtual machine without a PMU, or libecl built without PAPI),
# one message says so and the run goes on with the perf_event counters, and
# the test counts as skipped (PAPI's counting was not checked), saying why.
# An event PAPI does not know is always said and left out.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/auto/common.sh"
PALVIEW="$B/views/pal-view"
cd "$WORK" || exit 99
$CC -g -O0 -finstrument-functions "$S/work.c" -o work || fail "cannot build work"
run_traced "papi" env ECL_COUNTERS=task-clock,papi:PAPI_TOT_INS,papi:ECL_NO_SUCH_EVENT \
    ECL_COUNTER_PERIOD=0 $ECLRUN ./work
if grep -q "software counter 'task-clock' is not available" "$WORK/err"; then
    skip "perf_event_open is not allowed here: $(head -1 "$WORK/err")"
fi
[ -s "$WORK/out" ] || fail "the program wrote nothing"
expect "message for the unknown event" \
    "$(grep -c "^ecl: PAPI event 'ECL_NO_SUCH_EVENT' cannot be counted on this machine (.*); left out$" "$WORK/err")" 1
"$PALDUMP" --type counter_int "$TRACE" > samples || fail "pal-dump"
[ "$(grep -c 'counter="task-clock"' samples)" -gt 10 ] || fail "no task-clock samples"
expect "samples of the unknown event" "$(grep -c 'ECL_NO_SUCH_EVENT' samples)" 0
n=$(grep -c 'counter="PAPI_TOT_INS"' samples)
if grep -q "^ecl: PAPI event 'PAPI_TOT_INS' cannot be counted on this machine (.*); left out$" "$WORK/err"; then
    expect "PAPI_TOT_INS messages" "$(grep -c "PAPI_TOT_INS" "$WORK/err")" 1
    expect "PAPI_TOT_INS samples (not available, said so)" "$n" 0
    papi_none=$(grep PAPI_TOT_INS "$WORK/err")
else
    [ "$n" -gt 10 ] || { cat "$WORK/err"; fail "PAPI_TOT_INS: $n samples"; }
    awk '$5 == "counter=\"PAPI_TOT_INS\"" { v = $6; sub(/value=/, "", v); v += 0
        if (v < last[$3]) bad = 1; last[$3] = v } END { exit bad }' samples \
        || fail "PAPI_TOT_INS decreases"
    "$PALVIEW" --export csv "$TRACE" > work.csv || fail "pal-view"
    awk -F, '$1 == "counter" && $5 == "PAPI_TOT_INS" { e[$4] = $8; i[$4] = $7 } END {
        printf "PAPI_TOT_INS per region: work_a %d, work_b %d\n", i["work_a"], i["work_b"]
        exit !(e["work_a"] > 0 && e["work_b"] > 0 && i["work_a"] >= e["work_a"]) }' work.csv \
        || fail "PAPI_TOT_INS per region"
fi
other=$(grep -v "^ecl: PAPI event '.*' cannot be counted on this machine (.*); left out$" "$WORK/err" |
        grep -v "^ecl: hardware counter")
[ -z "$other" ] || fail "unexpected messages: $other"
# the fallback was right, but nothing PAPI counted was checked
[ -z "${papi_none:-}" ] || skip "PAPI counts nothing here ($papi_none): only the fallback was checked"
exit 0
