#!/bin/sh
# threads.sh -- under ecl-run, with no relink: every thread a program
# creates has one thread_begin (naming its parent, the main thread's stream)
# and one thread_end, each join is a waiting region; with the sync group,
# contended mutex locks are waiting regions too, entered and left alike.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/auto/common.sh"
cd "$WORK" || exit 99
$CC -g -O0 -pthread "$S/threads.c" -o threads || fail "cannot build threads"

run_traced "threads" $ECLRUN ./threads
main=$("$PALDUMP" --type thread_def "$TRACE" | sed -n 's/.* stream=1 tid=[0-9]* name=//p')
expect "thread_begin with parent $main" "$(count "$TRACE" thread_begin "parent=$main")" 8
expect "thread_begin" "$(count "$TRACE" thread_begin)" 8
expect "thread_end" "$(count "$TRACE" thread_end)" 8
"$PALDUMP" --type thread_begin "$TRACE" | awk '{ print $3 }' | sort | uniq -d > dup
[ -s dup ] && fail "a stream has two thread_begin records: $(cat dup)"
expect "join waits" "$(count "$TRACE" wait_enter 'region="pthread_join"')" 8
expect "join waits left" "$(count "$TRACE" wait_leave 'region="pthread_join"')" 8
expect "lock waits (sync group off)" "$(count "$TRACE" wait_enter 'region="pthread_mutex_lock"')" 0

run_traced "sync" env ECL_GROUPS=threads,sync $ECLRUN ./threads
grep -q '^160000$' "$WORK/out" || fail "sync: the program's result is wrong"
locks=$(count "$TRACE" wait_enter 'region="pthread_mutex_lock"')
expect "sync: lock waits left as entered" "$(count "$TRACE" wait_leave 'region="pthread_mutex_lock"')" "$locks"
echo "sync: $locks contended locks recorded"

run_traced "threads off" env ECL_GROUPS=none $ECLRUN ./threads
expect "threads off: thread_begin" "$(count "$TRACE" thread_begin)" 0
exit 0
