#!/bin/sh
# progress.sh -- pal-view says what it is doing on standard error only when
# that is a terminal: silent into a file or pipe (stderr empty, the outputs
# identical), and on a terminal (script(1) gives one) progress lines that
# are erased at the end. Skips the terminal half without script(1).
set -u
: "${top_builddir:=.}"
pv="$top_builddir/views/pal-view"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pal-view-prog.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
ECL_DIR="$tmp" ECL_PREFIX=vw "$top_builddir/tests/views/vwprog" || exit 99
trace=$(ls "$tmp"/vw.*.ecl | head -1)
"$pv" --html "$tmp/a.html" --export chrome -o "$tmp/a.json" "$trace" 2>"$tmp/err" || bad "status"
[ -s "$tmp/err" ] && bad "stderr not empty without a terminal: $(cat "$tmp/err")"
"$pv" "$trace" 2>"$tmp/err2" >"$tmp/prof" || bad "profile status"
[ -s "$tmp/err2" ] && bad "profile: stderr not empty"
if ! command -v script >/dev/null 2>&1; then
    [ $fail = 0 ] || exit 1
    echo "SKIP: script(1) not found: the terminal half is not tested"; exit 77
fi
script -qc "'$pv' --html '$tmp/b.html' --export chrome -o '$tmp/b.json' '$trace'" /dev/null \
    >"$tmp/tty" 2>&1 || bad "status on a terminal"
grep -q 'pal-view: writing' "$tmp/tty" || bad "no progress on a terminal: $(od -c "$tmp/tty" | head -3)"
# the last thing on the line is the erase, so the prompt comes back clean
tail -c 4 "$tmp/tty" | od -An -c | grep -q '033   \[   K' || bad "progress line not erased"
cmp -s "$tmp/a.json" "$tmp/b.json" || bad "the export differs on a terminal"
exit $fail
