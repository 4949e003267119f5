#!/bin/sh
# diskfull.sh -- the stress program under a file size limit: ECL must print
# the clear error naming the file, keep the program running, and leave a trace
# that reads back cleanly up to the last whole chunk (each thread's records a
# prefix of its pattern, no damaged chunk, at most a truncated tail). And when
# not even the file header fits, no file is left behind, and ECL says so.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/ecl/common.sh"

# ulimit -f counts 512-byte blocks in some shells and 1024-byte ones in others:
# either way the limit (about 100-200 KB) is far below the ~13 MB trace.
status=0
( ulimit -f 200 && ECL_COMPRESS=none ECL_BUFFER_SIZE=16K exec "$STRESS" 8 200000 ) \
    > "$WORK/out" 2> "$WORK/err" || status=$?
cat "$WORK/err"
[ "$status" -eq 0 ] || fail "stress exited with status $status under a file size limit"
trace=$(trace_file)
one_message "^ecl: cannot write trace '$trace': File too large (wrote [0-9]* of [0-9]* bytes at offset [0-9]*); tracing stopped, trace readable up to the last complete chunk$" \
    "no clear write error message"
size=$(wc -c < "$trace")
[ "$size" -le 204800 ] || fail "trace is $size bytes, beyond the limit"
"$CHECK" --partial --stress 8 200000 --expect region_def=16 "$trace" > "$WORK/check.out" \
    || { cat "$WORK/check.out"; fail "the cut trace does not read back cleanly"; }
cat "$WORK/check.out"

# A limit below the header's size (about 1.7 KB) stands for a disk that is
# already full. (Not 0: the limit also applies to stderr, redirected to a
# file here, and the message must fit.) ecl_init fails, so stress exits 1.
rm -f "$WORK"/*.ecl
status=0
( ulimit -f 1 && exec "$STRESS" 2 1000 ) > "$WORK/out" 2> "$WORK/err" || status=$?
cat "$WORK/err"
[ "$status" -eq 1 ] || fail "stress exited with status $status when the trace could not be created"
one_message "^ecl: cannot write trace '$WORK/trace\.[0-9]*\.ecl': File too large (wrote [0-9]* of [0-9]* bytes at offset 0); the file was removed; tracing disabled$" \
    "no clear message that the trace file could not be written and was removed"
set -- "$WORK"/*.ecl
[ -e "$1" ] && fail "a trace file was left behind: $*"
echo "header does not fit: no file left behind: ok"
exit 0
