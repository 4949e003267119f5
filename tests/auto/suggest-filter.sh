#!/bin/sh
# suggest-filter.sh -- pal-view --suggest-filter sizes a filter as
# scorep-score does: on fib(20) traced with compiler instrumentation (21891
# calls of fib, 3 of skip_me, 5 of autolib_square), it suggests exactly
# `exclude function "fib"` with the 43782 records that saves, and the file
# it prints, given back as ECL_FILTER, records no call of fib while the
# other functions stay; the trace shrinks by those 43782 records (and fib's
# definitions). At finalize, a trace of at least ECL_FUNC_NOTE records with
# instrumented functions gets one note saying how to size a filter.
. "${top_srcdir:-$(dirname "$0")/../..}/tests/auto/common.sh"
PALVIEW="$B/views/pal-view"
cd "$WORK" || exit 99
$CC -g -O0 -fPIC -shared -finstrument-functions "$S/autolib.c" -o libautolib.so \
    || fail "cannot build the shared library"
$CC -g -O0 -finstrument-functions "$S/fib.c" -o fib -L. -lautolib -Wl,-rpath,"$WORK" \
    || fail "cannot build fib"
run_traced "unfiltered" $ECLRUN ./fib
[ -s "$WORK/err" ] && { cat "$WORK/err"; fail "a note under the default ECL_FUNC_NOTE (10000000 records)"; }
# the note at finalize when the trace holds at least ECL_FUNC_NOTE records
run_traced "note" env ECL_FUNC_NOTE=40000 $ECLRUN ./fib
cat "$WORK/err"
expect "notes" "$(grep -c '^ecl: note: [0-9]* records with [0-9]* instrumented functions; to size a filter, run `pal-view --suggest-filter TRACE > app.filter`' "$WORK/err")" 1
run_traced "no note" env ECL_FUNC_NOTE=0 $ECLRUN ./fib
[ -s "$WORK/err" ] && { cat "$WORK/err"; fail "a note with ECL_FUNC_NOTE=0"; }
before=$("$PALDUMP" --count "$TRACE" | awk '$1 == "total" {print $2}')
# fib's definitions (its name, its source line) go too; the estimate counts
# the calls' enter and leave records
defs=$("$PALDUMP" "$TRACE" | awk '$4 ~ /^region_/ && / (name|region)="fib"/ { n++ } END { print n + 0 }')
"$PALVIEW" --suggest-filter "$TRACE" > fib.filter || fail "pal-view --suggest-filter"
cat fib.filter
expect "exclude rules" "$(grep -c '^exclude function ' fib.filter)" 1
grep -q '^exclude function "fib"   # 21891 calls, ' fib.filter || fail "fib is not the rule"
grep -q "^# leaving them out saves about 43782 of $before records" fib.filter \
    || fail "the estimate is not 43782 of $before records"
run_traced "filtered" env ECL_FILTER="$WORK/fib.filter" $ECLRUN ./fib
[ -s "$WORK/err" ] && { cat "$WORK/err"; fail "the suggested filter file is not accepted as it is"; }
expect "filtered: enter fib" "$(count "$TRACE" enter 'region="fib"')" 0
expect "filtered: enter skip_me" "$(count "$TRACE" enter 'region="skip_me"')" 3
expect "filtered: enter autolib_square" "$(count "$TRACE" enter 'region="autolib_square"')" 5
after=$("$PALDUMP" --count "$TRACE" | awk '$1 == "total" {print $2}')
expect "records saved (43782 and $defs definitions)" "$((before - after))" $((43782 + defs))
# a trace with nothing to filter says so
"$PALVIEW" --suggest-filter "$TRACE" > none.filter || fail "pal-view --suggest-filter (filtered)"
grep -q '^# none: no function floods this trace' none.filter || { cat none.filter; fail "no 'none'"; }
expect "rules for the filtered trace" "$(grep -c '^exclude' none.filter)" 0
echo PASS
