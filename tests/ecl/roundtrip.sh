#!/bin/sh
# roundtrip.sh -- ECL traces read back through PAL: the threads example and
# the 8-thread stress program (1,000,000 events per thread, small buffers),
# with zlib, zstd and no compression (the default: every chunk stored raw);
# zstd with a pool of compressor threads, whose waits the trace counts;
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
    # shellcheck disable=SC2086
    "$CHECK" --stress "$threads" "$pairs" $counts \
        --expect marker="$threads" --expect region_def=16 \
        --expect thread_def="$threads" --expect clock_sync=2 ${raw:-} \
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
    zstd=
else
    run_stress 4 100000 ECL_COMPRESS=zstd ECL_BUFFER_SIZE=8K
    zstd=zstd
fi

# The compressor pool and the waits. stress_waits THREADS PAIRS SETTINGS...:
# the trace reads back whole (exact counts, per-stream time and chunk order),
# and its `flush` records with a nonzero `wait` are exactly the waits for a
# free buffer ECL counted (its ECL_VERBOSE summary). Prints the pool's size.
stress_waits() {
    threads=$1 pairs=$2; shift 2
    rm -f "$WORK"/*.ecl
    env ECL_VERBOSE=1 "$@" "$STRESS" "$threads" "$pairs" > "$WORK/stress.out" 2> "$WORK/stress.err" \
        || { cat "$WORK/stress.err"; fail "stress failed ($*)"; }
    summary=$(grep '^ecl: trace .* waits for a free buffer$' "$WORK/stress.err") \
        || { cat "$WORK/stress.err"; fail "no ECL_VERBOSE summary ($*)"; }
    waits=$(echo "$summary" | sed 's/.*, \([0-9][0-9]*\) waits for a free buffer$/\1/')
    writers=$(echo "$summary" | sed 's/.*, \([0-9][0-9]*\) compressor threads*, .*/\1/')
    zchunks=$(echo "$summary" | sed 's/.*, \([0-9][0-9]*\) of [0-9]* records chunks compressed, .*/\1/')
    rchunks=$(echo "$summary" | sed 's/.*, [0-9]* of \([0-9][0-9]*\) records chunks compressed, .*/\1/')
    samples=$((threads * (pairs / 1000)))
    "$CHECK" --stress "$threads" "$pairs" --expect enter=$((threads * pairs)) \
        --expect leave=$((threads * pairs)) --expect sample=$samples --expect lost=0 \
        --expect marker="$threads" --expect region_def=16 --expect thread_def="$threads" \
        --expect clock_sync=2 --expect-waits "$waits" "$(trace_file)" > "$WORK/check.out" \
        || { cat "$WORK/check.out"; fail "stress trace ($*): records or waits wrong"; }
    echo "stress $threads x $pairs ($*): $waits waits, each in the trace; $writers compressor threads; $zchunks of $rchunks chunks compressed: ok"
}
if [ -n "$zstd" ]; then
    # one slow compressor for 4 threads: they must wait, and every wait is counted
    stress_waits 4 50000 ECL_COMPRESS=zstd ECL_COMPRESS_LEVEL=19 ECL_COMPRESS_THREADS=1 \
        ECL_BUFFER_SIZE=8K
    [ "$waits" -gt 0 ] || fail "one zstd -19 compressor for 4 threads: no wait, so the count was not tested"
    [ "$writers" -eq 1 ] || fail "ECL_COMPRESS_THREADS=1 started $writers compressor threads"
    # the pool grows with the work, to at most ECL_COMPRESS_THREADS (at the
    # program's priority, so that the compressors surely run and take work)
    stress_waits 8 50000 ECL_COMPRESS=zstd ECL_COMPRESS_LEVEL=19 ECL_COMPRESS_THREADS=3 \
        ECL_COMPRESS_PRIORITY=normal ECL_BUFFER_SIZE=8K
    [ "$writers" -ge 2 ] && [ "$writers" -le 3 ] \
        || fail "8 threads, zstd -19, ECL_COMPRESS_THREADS=3: $writers compressor threads, expected 2 or 3"
    # compressors at the program's priority: they get cores, so chunks are
    # compressed (threads that take buffers back get the rest raw)
    stress_waits 8 100000 ECL_COMPRESS=zstd ECL_COMPRESS_PRIORITY=normal ECL_BUFFER_SIZE=16K
    [ "$zchunks" -gt 0 ] || fail "ECL_COMPRESS_PRIORITY=normal: no chunk compressed"
    # the default pool, as a user runs it
    stress_waits 8 100000 ECL_COMPRESS=zstd ECL_BUFFER_SIZE=16K
fi

# drop mode with one small buffer per thread: records made while the writer
# holds a thread's only buffer are dropped, and every drop must be counted.
# Drops do happen (each of the ~150 hand-overs per thread leaves the thread
# without a buffer for at least one record), so the run asserts them: the
# `lost` records add up to what ECL counted (its ECL_VERBOSE summary), and
# every gap in a thread's pattern equals the next lost count (--allow-lost).
rm -f "$WORK"/*.ecl
env ECL_ON_FULL=drop ECL_BUFFER_COUNT=1 ECL_BUFFER_SIZE=4K ECL_VERBOSE=1 "$STRESS" 8 100000 \
    > "$WORK/stress.out" 2> "$WORK/stress.err" || { cat "$WORK/stress.err"; fail "stress failed (drop mode)"; }
dropped=$(sed -n 's/^ecl: trace .*, \([0-9][0-9]*\) lost, [0-9]* waits for a free buffer$/\1/p' "$WORK/stress.err")
[ -n "$dropped" ] || { cat "$WORK/stress.err"; fail "drop mode: ECL_VERBOSE printed no summary"; }
[ "$dropped" -gt 0 ] || fail "drop mode: nothing was dropped, so the accounting was not tested"
"$CHECK" --stress 8 100000 --allow-lost --expect-lost "$dropped" --expect marker=8 \
    --expect region_def=16 --expect thread_def=8 --expect clock_sync=2 "$(trace_file)" \
    > "$WORK/check.out" || { cat "$WORK/check.out"; fail "drop mode: drops not accounted for"; }
echo "drop mode: $dropped records dropped, each counted in the trace: ok"
exit 0
