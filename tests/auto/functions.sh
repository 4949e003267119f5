#!/bin/sh
# functions.sh -- compiler instrumentation (-finstrument-functions): a
# program not linked with ECL, run under ecl-run, records every call of
# fib(20) (21891 enter and 21891 leave of "fib"), with names and source
# lines resolved, a shared library's function named; a filter file leaves
# out exactly the functions it excludes; the depth and call limits leave out
# calls and count them in `suppressed` records; the same program linked with
# libecl-core records the same; a bad filter file stops tracing with a
# message naming the file and line, and so does a filter file that is a FIFO
# or a device (read without blocking: the program runs).
. "${top_srcdir:-$(dirname "$0")/../..}/tests/auto/common.sh"
cd "$WORK" || exit 99
$CC -g -O0 -fPIC -shared -finstrument-functions "$S/autolib.c" -o libautolib.so \
    || fail "cannot build the shared library"
$CC -g -O0 -finstrument-functions "$S/fib.c" -o fib -L. -lautolib -Wl,-rpath,"$WORK" \
    || fail "cannot build fib"

check_all() {   # check_all LABEL: every function of fib.c and autolib.c, exact
    expect "$1: enter fib" "$(count "$TRACE" enter 'region="fib"')" 21891
    expect "$1: leave fib" "$(count "$TRACE" leave 'region="fib"')" 21891
    expect "$1: enter main" "$(count "$TRACE" enter 'region="main"')" 1
    expect "$1: leave autolib_square" "$(count "$TRACE" leave 'region="autolib_square"')" 5
}

run_traced "ecl-run" $ECLRUN ./fib
check_all "ecl-run"
expect "ecl-run: enter skip_me" "$(count "$TRACE" enter 'region="skip_me"')" 3
"$PALDUMP" --type region_source "$TRACE" > sources
grep -q "region=\"fib\" file=\"$S/fib.c\" line=10 module=\"$WORK/fib\"" sources &&
grep -q "region=\"autolib_square\" file=\"$S/autolib.c\" line=6 module=\"$WORK/libautolib.so\"" sources \
    || { cat sources; fail "fib's or autolib_square's file, line or module is not named"; }
echo "ecl-run: fib.c:10 and libautolib.so's autolib.c:7 named"

# a filter: skip_me out by name, everything else exact
cat > filter.txt <<'EOT'
# leave out what is not worth a record
exclude function skip_*   # by a glob on the name
include function skip_none
EOT
run_traced "filter" env ECL_FILTER=filter.txt $ECLRUN ./fib
check_all "filter"
expect "filter: enter skip_me" "$(count "$TRACE" enter 'region="skip_me"')" 0
expect "filter: records naming skip_me" "$("$PALDUMP" "$TRACE" | grep -c skip_me)" 0

# a filter on the source file: everything but main from fib.c out, the
# shared library's function kept; the last matching rule decides
cat > filter2.txt <<'EOT'
EXCLUDE file */fib.c
include function "main"
EOT
run_traced "file filter" env ECL_FILTER=filter2.txt $ECLRUN ./fib
expect "file filter: enter fib" "$(count "$TRACE" enter 'region="fib"')" 0
expect "file filter: enter main" "$(count "$TRACE" enter 'region="main"')" 1
expect "file filter: enter autolib_square" "$(count "$TRACE" enter 'region="autolib_square"')" 5

# the depth limit: fib(20) is 21 deep below main; with a limit of 6 the
# calls deeper are left out, and counted
run_traced "depth" env ECL_FUNC_DEPTH=6 $ECLRUN ./fib
rec=$(count "$TRACE" enter 'region="fib"')
supp=$("$PALDUMP" --type suppressed "$TRACE" | sed -n 's/.*region="fib" reason=1 count=\([0-9]*\)$/\1/p')
[ -n "$supp" ] && [ "$rec" -lt 21891 ] || fail "depth: $rec fib calls recorded, suppressed '$supp'"
expect "depth: recorded + suppressed fib" $((rec + supp)) 21891
expect "depth: leave fib" "$(count "$TRACE" leave 'region="fib"')" "$rec"

# the call limit: 100 calls of each function recorded, the rest counted
run_traced "max calls" env ECL_FUNC_MAX_CALLS=100 $ECLRUN ./fib
expect "max calls: enter fib" "$(count "$TRACE" enter 'region="fib"')" 100
expect "max calls: leave fib" "$(count "$TRACE" leave 'region="fib"')" 100
expect "max calls: suppressed fib" "$(count "$TRACE" suppressed 'region="fib" reason=2 count=21791')" 1

# linked with ECL instead of preloaded
$CC -g -O0 -finstrument-functions "$S/fib.c" -o fib-linked -L. -lautolib -L"$B/ecl/.libs" \
    -lecl-core -Wl,-rpath,"$WORK" -Wl,-rpath,"$B/ecl/.libs" || fail "cannot build fib-linked"
run_traced "linked" ./fib-linked
check_all "linked"

# a bad filter file: one message with file, line and column; no trace
printf 'exclude function fib\ninclude fnction main\n' > bad.txt
rm -f "$WORK"/*.ecl
ECL_FILTER=bad.txt $ECLRUN ./fib > out 2> err || fail "bad filter: the program failed"
one_message "^ecl: bad.txt:2:9: expected 'function' or 'file', found 'fnction'; tracing disabled" \
    "bad filter: no or another message: $(cat err)"
[ -z "$(ls "$WORK"/*.ecl 2>/dev/null)" ] || fail "bad filter: a trace was left"
echo "bad filter: $(cat err)"

# a filter file that is a FIFO with no writer (it would block the program
# at start for ever) or a device (it would never end): refused at once with
# a message, the program runs untraced
mkfifo fifo.txt || exit 99
for f in fifo.txt /dev/zero; do
    rm -f "$WORK"/*.ecl
    ECL_FILTER=$f timeout 60 $ECLRUN ./fib > out 2> err
    st=$?
    [ $st -eq 0 ] || fail "filter $f: the program failed or hung (exit status $st): $(cat err)"
    case $f in fifo.txt) kind="a FIFO" ;; *) kind="a device" ;; esac
    one_message "^ecl: cannot read filter file '$f' (ECL_FILTER): it is $kind, not a regular file; tracing disabled" \
        "filter $f: no or another message: $(cat err)"
    [ -z "$(ls "$WORK"/*.ecl 2>/dev/null)" ] || fail "filter $f: a trace was left"
    echo "filter $f: $(cat err)"
done
exit 0
