#!/bin/sh
# killed.sh -- a process killed (SIGKILL) before any thread wrote a chunk:
# its trace holds the header and definitions only, and the reader says that
# every record it made is lost -- not "(0 threads)" as if nothing were
# missing -- and pal-dump exits with status 2.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/ecl/common.sh"

# one thread, 64 MiB buffers: killed as soon as its trace exists, long
# before the first buffer is full (about 1 s of recording)
ECL_BUFFER_SIZE=64M "$STRESS" 1 1000000000 > /dev/null 2>&1 &
pid=$!
n=0
while [ -z "$(ls "$WORK"/*.ecl 2>/dev/null)" ] && [ $n -lt 200 ]; do
    sleep 0.05
    n=$((n + 1))
done
kill -KILL $pid
wait $pid 2>/dev/null
trace=$(trace_file)
"$B/pal/pal-dump" --count "$trace" > "$WORK/out" 2> "$WORK/err"
status=$?
cat "$WORK/err"
grep -q "^enter " "$WORK/out" && { echo "SKIP: a chunk was written before the kill"; exit 77; }
[ $status -eq 2 ] || fail "pal-dump on a killed trace: exit status $status, expected 2"
grep -q "not closed .* and no thread wrote a chunk: every record it made is lost" "$WORK/err" ||
    fail "no message that every record is lost: $(cat "$WORK/err")"
grep -q "(0 threads)" "$WORK/err" && fail "the message counts 0 threads"
exit 0
