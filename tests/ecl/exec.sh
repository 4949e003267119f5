#!/bin/sh
# exec.sh -- exec without fork must not lose the buffered records: every exec
# function writes every thread's buffers first (tests/ecl/exectest.c), with
# ECL linked in and with ECL preloaded (as ecl-run does); an image exec'ed in
# the same pid gets a trace of its own instead of truncating the first; an
# exec that fails leaves tracing on with nothing lost or doubled. The trace
# left by an exec says so (header flag EXEC): pal-dump reads it whole, exit
# 0, saying the program was replaced -- not that it was killed.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/ecl/common.sh"
N=3000
# In sanitizer builds the preloaded library comes before the sanitizer runtime.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
export ASAN_OPTIONS

path_of() { sed -n 's/^exectest: trace in //p' "$1"; }

# The records made before exec: N pairs from each of two threads, a marker.
check_before() {
    "$CHECK" --expect enter=$((2 * N)) --expect leave=$((2 * N)) --expect marker=1 \
        --expect thread_def=2 "$1" > "$WORK/check.out" \
        || { cat "$WORK/check.out"; fail "$2: records made before exec are missing"; }
}

run() {   # run LABEL PROGRAM ARG... ; output in $WORK/out
    label=$1; shift
    rm -f "$WORK"/*.ecl
    status=0
    "$@" > "$WORK/out" 2> "$WORK/err" || status=$?
    [ "$status" -eq 0 ] || { cat "$WORK/err"; fail "$label: exit status $status"; }
    [ -s "$WORK/err" ] && { cat "$WORK/err"; fail "$label: messages on stderr"; }
    trace=$(path_of "$WORK/out" | sed -n 1p)
    [ -f "$trace" ] || fail "$label: no trace '$trace'"
}

EXECTEST="$B/tests/ecl/exectest"
PRELOAD="env LD_PRELOAD=$B/ecl/.libs/libecl-core.so $B/tests/ecl/exectest-preload"
for f in execve execv execvp execvpe execl execlp execle fexecve; do
    run "$f" "$EXECTEST" $f $N
    check_before "$trace" "$f"
    # the reader says why the trace ends there, and that nothing is missing
    "$B/pal/pal-dump" --count "$trace" > /dev/null 2> "$WORK/dump.err"
    st=$?
    [ $st -eq 0 ] || { cat "$WORK/dump.err"; fail "$f: pal-dump exit status $st, expected 0"; }
    grep -q "replaced its program by exec; every buffer was written first, so nothing is missing" \
        "$WORK/dump.err" || fail "$f: pal-dump does not say the trace ends at exec: $(cat "$WORK/dump.err")"
    grep -q "killed" "$WORK/dump.err" && fail "$f: pal-dump says the process was killed"
    echo "$f: ok"
done
run "execv, preloaded" $PRELOAD execv $N
check_before "$trace" "execv, preloaded"
echo "execv, preloaded: ok"

# an image exec'ed in the same pid traces into <prefix>.<pid>.1.ecl
for how in linked preloaded; do
    if [ $how = linked ]; then prog=$EXECTEST; else prog=$PRELOAD; fi
    run "self ($how)" $prog self $N
    [ "$(path_of "$WORK/out" | wc -l)" -eq 2 ] || { cat "$WORK/out"; fail "self ($how): the new image did not trace"; }
    first=$(path_of "$WORK/out" | sed -n 1p) second=$(path_of "$WORK/out" | sed -n 2p)
    [ "$second" = "${first%.ecl}.1.ecl" ] || fail "self ($how): the new image traced into '$second'"
    check_before "$first" "self ($how)"
    "$CHECK" --expect enter=$N --expect leave=$N --expect marker=1 --expect thread_def=1 \
        "$second" > "$WORK/check.out" || { cat "$WORK/check.out"; fail "self ($how): the new image's trace"; }
    echo "self ($how): ok"
done

# a failed exec: tracing goes on; every record once
run fail "$EXECTEST" fail $N
"$CHECK" --expect enter=$((4 * N)) --expect leave=$((4 * N)) --expect marker=1 \
    --expect thread_def=2 --expect clock_sync=2 "$trace" > "$WORK/check.out" \
    || { cat "$WORK/check.out"; fail "after a failed exec, records are lost or doubled"; }
"$B/pal/pal-dump" --count "$trace" > /dev/null 2> "$WORK/dump.err" ||
    { cat "$WORK/dump.err"; fail "after a failed exec: pal-dump exit status $?"; }
grep -q "exec" "$WORK/dump.err" && fail "after a failed exec, the trace still says exec"
echo "fail: ok"

exit 0
