#!/bin/sh
# tools-cli.sh -- every tool follows the one convention (doc/tools.md):
# --help and --version exit 0, a usage error exits 1; and every tool's output
# file (-o, --html, --svg) refuses a FIFO or a symbolic link in its place
# (exit 1, a message saying what it is) unless --through is given, and never
# leaves a partial file when it cannot write. Done in a temporary directory,
# never on /dev.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
b=$top_builddir
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ecl-tools-cli.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

dump=$b/pal/pal-dump view=$b/views/pal-view merge=$b/ecl/tools/ecl-merge edlc=$b/edl/edlc
run=$b/ecl/tools/ecl-run
for t in "$dump" "$view" "$merge" "$edlc" "$run"; do
    n=$(basename "$t")
    "$t" --help >/dev/null 2>&1 || bad "$n --help: exit status $?"
    "$t" --version >"$tmp/v" 2>&1 || bad "$n --version: exit status $?"
    grep -q "^$n" "$tmp/v" || bad "$n --version does not name the tool: $(cat "$tmp/v")"
    grep -q "[0-9][0-9]*\.[0-9][0-9]*\.[0-9]" "$tmp/v" && ! grep -q "@" "$tmp/v" ||
        bad "$n --version gives no version: $(cat "$tmp/v")"
    "$t" --no-such-option >/dev/null 2>&1
    st=$?
    [ $st -eq 1 ] || bad "$n with a bad option: exit status $st, expected 1"
done

# a trace to work on: two "ranks" of one run
ECL_DIR=$tmp/run ECL_BUFFER_SIZE=8K "$b/examples/threads/threads" 2 5 >/dev/null || exit 99
trace=$(ls "$tmp"/run/trace.*.ecl | head -n 1)

mkfifo "$tmp/fifo" || exit 99
echo "keep me" >"$tmp/target"
ln -s "$tmp/target" "$tmp/link"

# refuses: exit 1, the kind named, the special file untouched
refuses() {
    what=$1 out=$2 kind=$3
    shift 3
    "$@" >"$tmp/out" 2>"$tmp/err"
    st=$?
    [ $st -eq 1 ] || bad "$what into $out: exit status $st, expected 1"
    grep -q "$kind" "$tmp/err" || bad "$what into $out: message lacks '$kind': $(cat "$tmp/err")"
}
refuses ecl-merge fifo "a FIFO" "$merge" -q -o "$tmp/fifo" "$trace"
refuses ecl-merge link "a symbolic link" "$merge" -q -o "$tmp/link" "$trace"
refuses edlc fifo "a FIFO" "$edlc" -o "$tmp/fifo" "$top_srcdir/edl/formats/picl.edl"
refuses edlc link "a symbolic link" "$edlc" -o "$tmp/link" "$top_srcdir/edl/formats/picl.edl"
refuses pal-view fifo "a FIFO" "$view" --html "$tmp/fifo" "$trace"
refuses pal-view link "a symbolic link" "$view" --html "$tmp/link" "$trace"
[ -p "$tmp/fifo" ] || bad "the FIFO was replaced"
[ -L "$tmp/link" ] && [ "$(cat "$tmp/target")" = "keep me" ] || bad "the link or its target changed"

# --through writes through the link (into its target)
"$edlc" --through -o "$tmp/link" "$top_srcdir/edl/formats/picl.edl" || bad "edlc --through: $?"
[ -L "$tmp/link" ] && [ "$(head -c 7 "$tmp/target")" = "EDLDICT" ] ||
    bad "edlc --through did not write into the link's target"
"$view" --through --html "$tmp/link" "$trace" || bad "pal-view --through: $?"
grep -q "<html" "$tmp/target" || bad "pal-view --through did not write into the link's target"

# nothing partial is left: an output in a directory that cannot take it
mkdir "$tmp/ro" && chmod 555 "$tmp/ro"
if [ "$(id -u)" != 0 ]; then
    "$merge" -q -o "$tmp/ro/m.ecl" "$trace" >/dev/null 2>&1 && bad "wrote into a read-only directory"
fi
ls "$tmp"/*.tmp.* >/dev/null 2>&1 && bad "a temporary output was left behind: $(ls "$tmp"/*.tmp.*)"

[ $fail -eq 0 ] && echo "tools-cli: all checks passed"
exit $fail
