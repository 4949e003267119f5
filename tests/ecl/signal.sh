#!/bin/sh
# signal.sh -- a crash must not cost the trace: after SIGSEGV, SIGTERM,
# abort() or exit() without ecl_finalize, every record made before is in the
# trace, from both threads (one of them still running), and the program still
# dies of its signal. Also pause/resume.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/ecl/common.sh"
SIG="$B/tests/ecl/signal"
N=5000

crash() {
    mode=$1 want=$2
    rm -f "$WORK"/*.ecl
    status=0
    "$SIG" "$mode" $N > "$WORK/out" 2> "$WORK/err" || status=$?
    if [ "$status" -eq 77 ]; then
        echo "$mode: not applicable here ($(cat "$WORK/out"))"
        return 0
    fi
    [ "$status" -eq "$want" ] || { cat "$WORK/err"; fail "$mode: exit status $status, expected $want"; }
    "$CHECK" --expect enter=$((2 * N)) --expect leave=$((2 * N)) --expect marker=1 \
        --expect region_def=1 --expect thread_def=2 "$(trace_file)" > "$WORK/check.out" \
        || { cat "$WORK/check.out"; fail "$mode: trace incomplete"; }
    echo "$mode: ok (status $status)"
}
crash segv 139
crash term 143
crash abort 134
crash exit 0

rm -f "$WORK"/*.ecl
"$SIG" pause 1000 > "$WORK/out" 2>&1 || fail "pause: exit status $?"
"$CHECK" --expect enter=2000 --expect leave=2000 --expect pause=1 --expect resume=1 \
    --expect clock_sync=2 "$(trace_file)" > "$WORK/check.out" \
    || { cat "$WORK/check.out"; fail "pause/resume"; }
echo "pause: ok"
exit 0
