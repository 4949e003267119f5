#!/bin/sh
# picl.sh -- the same views on a PICL trace (ASCII, read by PAL with the
# dictionary compiled from edl/formats/picl.edl): the excerpt of a real MPICL
# run in tests/edl/samples. Golden profile structure (functions, calls, bytes,
# messages) and golden SVG views, Chrome JSON valid, HTML written.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
pv="$top_builddir/views/pal-view"
edlc="$top_builddir/edl/edlc"
check="$top_builddir/tests/views/vwcheck"
golden="$top_srcdir/tests/views/golden"
sample="$top_srcdir/tests/edl/samples/mpicl_test.excerpt.ttf"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pal-view-picl.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }

"$edlc" -o "$tmp/picl.dict" "$top_srcdir/edl/formats/picl.edl" || exit 99
"$pv" -d "$tmp/picl.dict" "$sample" >"$tmp/p" 2>"$tmp/err"
st=$?
if [ $st != 0 ] && grep -q 'not supported' "$tmp/err"; then
    echo "SKIP: PAL cannot read ASCII traces yet: $(cat "$tmp/err")"
    exit 77
fi
[ $st = 0 ] || { cat "$tmp/err"; bad "pal-view -d exit status $st"; }
awk '/^$/ {on=0}
     /^  records/ {sub(/ run .*/, ""); print; next}
     /^  markers/ {print; next}
     /^(MPI functions|Regions)/ {on=1; print; next}
     on && NF >= 8 && $1 != "name" {print "  " $1, $2, (NF >= 9 ? $NF : "")}
     /^Messages/ {print}
     /^  latency/ {print}' "$tmp/p" >"$tmp/p.norm"
if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
    cp "$tmp/p.norm" "$golden/picl-excerpt.txt"
elif ! diff -u "$golden/picl-excerpt.txt" "$tmp/p.norm"; then
    bad "profile differs from golden"
fi
"$pv" -d "$tmp/picl.dict" --export chrome "$sample" >"$tmp/c.json" || bad "chrome export"
"$check" json "$tmp/c.json" >/dev/null || bad "chrome JSON invalid"
"$pv" -d "$tmp/picl.dict" --svg "$tmp/svg" --html "$tmp/r.html" "$sample" || bad "svg/html"
# the SVG views of a fixed trace are golden too
mkdir -p "$golden/picl-svg"
for f in "$tmp"/svg/*.svg; do
    "$check" xml "$f" >/dev/null || bad "$f not well-formed"
    name=$(basename "$f")
    if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
        cp "$f" "$golden/picl-svg/$name"
    elif ! cmp -s "$golden/picl-svg/$name" "$f"; then
        diff -u "$golden/picl-svg/$name" "$f" | head -20
        bad "$name differs from golden"
    fi
done
[ "$(ls "$tmp/svg" | wc -l)" = 6 ] || bad "expected 6 SVG views" 
[ -s "$tmp/r.html" ] || bad "no html"
exit $fail
