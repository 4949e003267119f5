#!/bin/sh
# roundtrip.sh -- ECL traces read back through PAL: the threads example and
# the 8-thread stress program (1,000,000 events per thread, small buffers),
# with zlib, zstd and no compression (the default: every chunk stored raw);
# and the drop mode, whose every drop must be counted by a `lost` record.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/ecl/common.sh"

# threads example: exact counts from its own "expect" lines
run_threads() {
    rm -f "$WORK"/*.ecl
    env "$@" "$THREADS" 4 1000 > "$WORK/threads.out" || fail "threads failed ($*)"
    grep -q "trace in $WORK/trace\.[0-9]*\.ecl" "$WORK/threads.out" || fail "threads: no trace path printed"
    exp=$(sed -n 's/^expect /--expect /p' "$WORK/threads.out")
    # shellcheck disable=SC2086
    "$CHECK" $exp "$(trace_file)" > "$WORK/check.out" || { cat "$WORK/check.out"; fail "threads trace ($*)"; }
    echo "threads ($*): ok"
}
run_threads ECL_COMPRESS=zlib ECL_BUFFER_SIZE=8K
run_threads ECL_COMPRESS=none ECL_BUFFER_SIZE=8K
run_threads ECL_COMPRESS=none ECL_CLOCK=monotonic

run_stress() {
    threads=$1 pairs=$2; shift 2
    rm -f "$WORK"/*.ecl
    env "$@" "$STRESS" "$threads" "$pairs" > "$WORK/stress.out" 2> "$WORK/stress.err" || { cat "$WORK/stress.err"; fail "stress failed ($*)"; }
    [ -s "$WORK/stress.err" ] && { cat "$WORK/stress.err"; fail "stress printed errors ($*)"; }
    samples=$((threads * (pairs / 1000)))
    counts="--expect enter=$((threads * pairs)) --expect leave=$((threads * pairs)) --expect sample=$samples --expect lost=0"
    [ -n "$lostok" ] && counts=""    # exact accounting by the pattern check instead
    # shellcheck disable=SC2086
    "$CHECK" --stress "$threads" "$pairs" $counts \
        --expect marker="$threads" --expect region_def=16 \
        --expect thread_def="$threads" --expect clock_sync=2 ${lostok:+--allow-lost} ${raw:-} \
        "$(trace_file)" > "$WORK/check.out" || { cat "$WORK/check.out"; fail "stress trace ($*)"; }
    grep "records" "$WORK/check.out"
    echo "stress $threads x $pairs ($*): ok"
}
run_stress 8 500000 ECL_COMPRESS=zlib ECL_BUFFER_SIZE=16K
# the default: recording threads never wait for a compressor, chunks are raw
raw=--raw
run_stress 4 100000 ECL_BUFFER_SIZE=16K
raw=
run_stress 8 100000 ECL_COMPRESS=none ECL_BUFFER_SIZE=4K ECL_BUFFER_COUNT=3
if "$STRESS" 1 0 >/dev/null 2>&1 && ECL_COMPRESS=zstd "$STRESS" 1 0 2>&1 | grep -q "without zstd"; then
    echo "zstd: not built in, skipped"
else
    run_stress 4 100000 ECL_COMPRESS=zstd ECL_BUFFER_SIZE=8K
fi

# drop mode with one buffer per thread: records are dropped while the writer
# works, and check_roundtrip verifies each gap equals the next lost count.
lostok=1 run_stress 8 100000 ECL_ON_FULL=drop ECL_BUFFER_COUNT=1 ECL_BUFFER_SIZE=4K
grep -q "^  lost " "$WORK/check.out" || echo "(no drops happened this run)"
exit 0
