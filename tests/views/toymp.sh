#!/bin/sh
# toymp.sh -- a format no tool has code for: the log of examples/toymp's
# simulated ring (4 ranks, 3 rounds; the same on every machine), described
# only by edl/formats/toymp.edl, gets the full profile (regions named through
# the description's references, communication calls, matched messages, a
# collective) and every picture, all golden (tests/views/golden/toymp/).
# A description whose records have no region roles is refused with a
# message naming the role it lacks, exit status 1, nothing drawn.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
pv="$top_builddir/views/pal-view"
check="$top_builddir/tests/views/vwcheck"
golden="$top_srcdir/tests/views/golden/toymp"
edl="$top_srcdir/edl/formats/toymp.edl"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pal-view-toymp.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

sh "$top_srcdir/examples/toymp/toymp-ring" 4 3 > "$tmp/ring.log" || exit 99
"$pv" -d "$edl" "$tmp/ring.log" > "$tmp/profile.txt" || bad "pal-view exit status $?"
# what the log holds, read back: 12 sends and receives matched, the region
# names rank r gave with `def`, one barrier instance over the 4 ranks
grep -q '^Messages: 12 sends, 12 receives, 12 matched$' "$tmp/profile.txt" || bad "messages"
grep -q '^  compute  *12 ' "$tmp/profile.txt" || bad "region 'compute' (by reference)"
grep -q '^  barrier  *1 ' "$tmp/profile.txt" || bad "barrier instance"
sed -i "s|$tmp/||" "$tmp/profile.txt"
mkdir -p "$tmp/svg"
"$pv" -d "$edl" --svg "$tmp/svg" "$tmp/ring.log" || bad "svg"
cp "$tmp/profile.txt" "$tmp/svg/profile.txt"
[ "$(ls "$tmp/svg"/*.svg | wc -l)" = 6 ] || bad "expected 6 SVG views"
for f in "$tmp"/svg/*; do
    name=$(basename "$f")
    case $name in *.svg) "$check" xml "$f" > /dev/null || bad "$name not well-formed" ;; esac
    if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
        mkdir -p "$golden"
        cp "$f" "$golden/$name"
    elif ! cmp -s "$golden/$name" "$f"; then
        diff -u "$golden/$name" "$f" | head -20
        bad "$name differs from golden"
    fi
done

# the same log under a description without region roles: refused, by role
sed '/ROLE IS enter;/d; /ROLE IS leave;/d; s/ROLE IS call, \(.*\);/ROLE IS message, \1;/; /REGION IS/d; /OPERATION IS/d; s/ROLE region //; s/ ROLE duration//' \
    "$edl" | sed 's/ROLE IS message, collective, communication, idle;//; s/, communication//; s/, idle//' \
    > "$tmp/noregions.edl"
"$pv" -d "$tmp/noregions.edl" "$tmp/ring.log" > "$tmp/out" 2> "$tmp/err"
st=$?
[ $st = 1 ] || { cat "$tmp/err"; bad "no region roles: exit status $st, expected 1"; }
grep -q "no record has role 'enter' or 'call'" "$tmp/err" || { cat "$tmp/err"; bad "message naming the role"; }
[ -s "$tmp/out" ] && bad "a profile was printed without regions"
exit $fail
