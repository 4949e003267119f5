#!/bin/sh
# nomem.sh -- a thread whose trace buffers cannot be allocated loses its
# records, and the loss is not silent: ECL says so once on stderr (naming the
# trace and the reason), the program runs on, and the trace counts every
# dropped record in `lost` records on the threads' streams; pal-dump,
# pal-view (and its OTF2 export) and ecl-merge exit with status 2 on it.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/ecl/common.sh"

# 256 MiB buffers cannot be allocated under a 300 MB address-space limit,
# while the program itself (4 threads) fits. A sanitizer build reserves far
# more address space than that and cannot start under the limit; its
# allocator is told to fail allocations above 128 MiB instead.
LIMIT=300000
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}allocator_may_return_null=1:max_allocation_size_mb=128"
export ASAN_OPTIONS
if { ( ulimit -v $LIMIT && ECL_ENABLE=0 exec "$STRESS" 1 0 ) > /dev/null 2>&1; } 2> /dev/null; then
    limit="ulimit -v $LIMIT"
else
    limit=":"
fi
THREADS=4 PAIRS=10000
status=0
( $limit && ECL_BUFFER_SIZE=256M exec "$STRESS" $THREADS $PAIRS ) > "$WORK/out" 2> "$WORK/err" \
    || status=$?
cat "$WORK/err"
[ "$status" -eq 0 ] || fail "stress exited with status $status without memory for buffers"
trace=$(trace_file)
one_message "^ecl: trace '$trace': cannot allocate a trace buffer of 268435456 bytes for thread [0-9]*: .*; its records are dropped and counted as lost" \
    "no message about the failed allocation"
# each thread: its "thread k" marker, PAIRS enter/leave pairs, a sample per 1000 pairs
lost=$((THREADS * (1 + 2 * PAIRS + PAIRS / 1000)))
"$CHECK" --expect-lost $lost --expect lost=$THREADS --expect thread_def=$THREADS \
    --expect enter=0 --expect marker=0 "$trace" > "$WORK/check.out" \
    || { cat "$WORK/check.out"; fail "the dropped records are not counted in the trace"; }
cat "$WORK/check.out"
# every tool says the trace is partial: exit status 2 (doc/tools.md)
for t in "pal/pal-dump --count" "views/pal-view" "ecl/tools/ecl-merge -q -o $WORK/m.ecl"; do
    # shellcheck disable=SC2086
    $B/$t "$trace" > /dev/null 2>&1
    st=$?
    [ $st -eq 2 ] || fail "$t on a trace with $lost records lost: exit status $st, expected 2"
done
if "$B/views/pal-view" --export otf2 -o "$WORK/probe" "$trace" > /dev/null 2>&1; [ $? -ne 1 ]; then
    "$B/views/pal-view" --export otf2 -o "$WORK/otf2" "$trace" > /dev/null 2>&1
    st=$?
    [ $st -eq 2 ] || fail "pal-view --export otf2 with records lost: exit status $st, expected 2"
fi
echo "pal-dump, pal-view, ecl-merge: exit status 2 (records lost)"
exit 0
