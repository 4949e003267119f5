#!/bin/sh
# fairness.sh -- the writer thread serves every thread within a bounded time
# (tests/ecl/fairness.c: one thread recording flat out, three at a modest
# rate). zlib makes the writer slower than the fast thread, and 16 small
# buffers per thread let that thread keep many full buffers waiting: the
# setting in which a writer that serves one thread at a time starves the rest.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/ecl/common.sh"

ECL_COMPRESS=zlib ECL_BUFFER_SIZE=16K ECL_BUFFER_COUNT=16 "$B/tests/ecl/fairness" \
    > "$WORK/out" 2>&1 || { cat "$WORK/out"; fail "a thread's records waited too long"; }
cat "$WORK/out"
exit 0
