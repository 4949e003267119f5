#!/bin/sh
# golden.sh -- the compiler's golden tests.
#   accept/NAME.edl  compiles; `edlc --print` gives exactly NAME.print, its
#                    diagnostics (warnings) exactly NAME.err or nothing, and
#                    the round trip edl -> bin -> print -> bin is identical.
#   reject/NAME.edl  fails with exit status 1, writes no output file, and
#                    prints exactly the diagnostics in NAME.expected.
# EDL_REGEN=1 rewrites the expected files from the current compiler (then
# read the diff before committing it).
. "$top_srcdir/tests/edl/common.sh"

n=0
for f in "$SRC"/accept/*.edl; do
    name=$(basename "$f" .edl)
    n=$((n + 1))
    (cd "$SRC/accept" && "$EDLC" --print "$name.edl") >"$TMP/out" 2>"$TMP/err"
    rc=$?
    if [ -n "${EDL_REGEN:-}" ]; then
        cp "$TMP/out" "$SRC/accept/$name.print"
        if [ -s "$TMP/err" ]; then cp "$TMP/err" "$SRC/accept/$name.err"; else rm -f "$SRC/accept/$name.err"; fi
    fi
    [ $rc -eq 0 ] || { failed "accept/$name.edl: exit status $rc"; cat "$TMP/err"; continue; }
    diff -u "$SRC/accept/$name.print" "$TMP/out" || failed "accept/$name.edl: --print differs"
    if [ -f "$SRC/accept/$name.err" ]; then
        diff -u "$SRC/accept/$name.err" "$TMP/err" || failed "accept/$name.edl: diagnostics differ"
    elif [ -s "$TMP/err" ]; then
        failed "accept/$name.edl: unexpected diagnostics"; cat "$TMP/err"
    fi
    round_trip "$f"
done
echo "accept: $n cases"

n=0
for f in "$SRC"/reject/*.edl; do
    name=$(basename "$f" .edl)
    n=$((n + 1))
    rm -f "$TMP/out.bin"
    (cd "$SRC/reject" && "$EDLC" "$name.edl" -o "$TMP/out.bin") >"$TMP/out" 2>"$TMP/err"
    rc=$?
    [ -n "${EDL_REGEN:-}" ] && cp "$TMP/err" "$SRC/reject/$name.expected"
    [ $rc -eq 1 ] || failed "reject/$name.edl: exit status $rc, expected 1"
    [ -e "$TMP/out.bin" ] && failed "reject/$name.edl: an output file was left behind"
    ls "$TMP"/out.bin.tmp.* >/dev/null 2>&1 && failed "reject/$name.edl: a temporary file was left behind"
    diff -u "$SRC/reject/$name.expected" "$TMP/err" || failed "reject/$name.edl: diagnostics differ"
done
echo "reject: $n cases"
[ $n -ge 30 ] || failed "only $n reject cases (want at least 30)"
exit $fail
