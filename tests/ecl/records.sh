#!/bin/sh
# records.sh -- user records (numbers only, and with a string) and regions
# come back exactly as recorded (tests/ecl/records): with the cycle counter,
# where enter/leave and records of numbers take ECL's shortest path, and with
# CLOCK_MONOTONIC, where everything takes the general path; 4K buffers, so
# that records cross many buffer hand-overs; and with counters sampled at
# region boundaries, which turns the shortest path off.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/ecl/common.sh"

run() {
    rm -f "$WORK"/*.ecl
    env "$@" "$B/tests/ecl/records" 20000 > "$WORK/out" 2>&1 || { cat "$WORK/out"; fail "records ($*)"; }
    echo "$* : $(cat "$WORK/out")"
}
run ECL_BUFFER_SIZE=4K
run ECL_BUFFER_SIZE=4K ECL_CLOCK=monotonic
run ECL_BUFFER_SIZE=4K ECL_COMPRESS=zstd
run ECL_BUFFER_SIZE=4K ECL_COUNTERS=task-clock ECL_COUNTER_PERIOD=0
exit 0
