#!/bin/sh
# pal-view.sh -- pal-view on the trace of tests/views/vwprog (a deterministic
# ECL program with nested and deliberately unbalanced regions on 3 threads):
# golden text (times removed: they vary), the CSV export, the Chrome JSON
# export (valid JSON, one slice per enter), every SVG view well-formed, the
# HTML report self-contained, view-group configs, and the example plugin.
# UPDATE_GOLDEN=1 rewrites the golden files instead of comparing.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
pv="$top_builddir/views/pal-view"
prog="$top_builddir/tests/views/vwprog"
check="$top_builddir/tests/views/vwcheck"
plugin="$top_builddir/examples/view-plugin/.libs/hotspots.so"
golden="$top_srcdir/tests/views/golden"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pal-view-test.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fail=0

ECL_DIR="$tmp" ECL_PREFIX=vw "$prog" || exit 99
trace=$(ls "$tmp"/vw.*.ecl 2>/dev/null | head -1)
[ -n "$trace" ] || { echo "no trace written"; exit 99; }

bad() { echo "FAIL: $*"; fail=1; }

# compare NAME FILE: FILE vs golden/NAME
compare() {
    if [ "${UPDATE_GOLDEN:-0}" = 1 ]; then
        cp "$2" "$golden/$1"
    elif ! diff -u "$golden/$1" "$2"; then
        bad "$1 differs from golden"
    fi
}

# profile: structure and counts (times vary)
"$pv" "$trace" >"$tmp/profile" || bad "pal-view exit status"
{
    sed -n 's/^  records [0-9]*, \(ranks [0-9]*, threads [0-9]*\),.*/\1/p' "$tmp/profile"
    grep '^  markers' "$tmp/profile"
    echo Regions
    awk '/^Regions/ {on=1; next} on && NF >= 8 && $1 != "name" {print "  " $1, $2}' \
        "$tmp/profile" | LC_ALL=C sort
} >"$tmp/profile.norm"
compare profile.txt "$tmp/profile.norm"

# call tree text, times removed
"$pv" --view calltree "$trace" >"$tmp/calltree" || bad "calltree exit status"
# each node as its full path (sibling order follows the file's chunk order)
sed 's/ incl=[0-9.]* excl=[0-9.]*//' "$tmp/calltree" |
    awk 'NR == 1 {print; next}
         {match($0, /^ */); d = RLENGTH / 2; p[d] = $1; path = p[1];
          for (i = 2; i <= d; i++) path = path "/" p[i]; print path, $2}' |
    LC_ALL=C sort >"$tmp/calltree.norm"
compare calltree.txt "$tmp/calltree.norm"

# CSV: region rows, counts only, in a fixed order (worker streams may swap)
"$pv" --export csv "$trace" >"$tmp/csv" || bad "csv exit status"
head -1 "$tmp/csv" | grep -q '^table,rank,thread,name,kind,calls,' || bad "csv header"
awk -F, '$1 == "region" {print $4 "," $5 "," $6}' "$tmp/csv" | LC_ALL=C sort >"$tmp/csv.norm"
compare csv.txt "$tmp/csv.norm"
[ "$(grep -c '^state,' "$tmp/csv")" = 9 ] || bad "csv: expected 3 state rows per thread"

# Chrome JSON: valid, one complete slice per enter (36 regions and the 2
# pthread_join waits the threads group records by default), 3 markers, names
"$pv" --export chrome "$trace" >"$tmp/trace.json" || bad "chrome exit status"
counts=$("$check" json "$tmp/trace.json") || bad "chrome JSON invalid"
enters=$(awk '/^Regions/ {on=1; next} on && NF >= 8 && $1 != "name" {n += $2} END {print n}' \
    "$tmp/profile")
[ "$enters" = 38 ] || bad "profile: $enters calls, expected 38"
case "$counts" in
"X=38 s=0 f=0 i=3 M="*) ;;
*) bad "chrome counts: $counts" ;;
esac

# SVG: the default groups give six pictures, all well-formed
"$pv" --svg "$tmp/svg" "$trace" || bad "svg exit status"
n=0
for f in "$tmp"/svg/*.svg; do
    n=$((n + 1))
    "$check" xml "$f" >/dev/null || bad "$f not well-formed"
    if command -v xmllint >/dev/null 2>&1; then
        xmllint --noout "$f" || bad "xmllint: $f"
    fi
done
[ "$n" = 6 ] || bad "svg: $n files, expected 6"
grep -q '<title>solve:' "$tmp/svg/calltree.svg" || bad "calltree.svg lacks solve"
[ "$(grep -c '<path class="util-' "$tmp/svg/utilization.svg")" = 3 ] || bad "utilization paths"

# view-group config (Fig. 13 form): only the views it names
printf '# test\nMine: pictures: timeline\nMine: tree:calltree\n' >"$tmp/views.conf"
"$pv" -c "$tmp/views.conf" --svg "$tmp/svg2" "$trace" || bad "-c exit status"
[ "$(ls "$tmp/svg2" | tr '\n' ' ')" = "calltree.svg timeline.svg " ] || bad "-c views: $(ls "$tmp/svg2")"
"$pv" -c "$tmp/views.conf" --list >"$tmp/list" || bad "--list exit status"
grep -q '^  Mine: tree: calltree$' "$tmp/list" || bad "--list groups"
printf 'no colon here\n' >"$tmp/bad.conf"
"$pv" -c "$tmp/bad.conf" "$trace" >/dev/null 2>"$tmp/err"
[ $? = 1 ] || bad "bad config: exit status"
grep -q 'line 1' "$tmp/err" || bad "bad config: message"
"$pv" --view nosuch "$trace" >/dev/null 2>&1
[ $? = 1 ] || bad "unknown view: exit status"
[ "$("$pv" --list | wc -l)" -ge 7 ] || bad "--list"

# HTML: one self-contained file with the animator and the data
"$pv" --html "$tmp/r.html" "$trace" || bad "html exit status"
for s in 'id="play"' 'id="pause"' 'id="step"' 'id="replay"' 'id="speed"' 'id="data"'; do
    grep -q "$s" "$tmp/r.html" || bad "html lacks $s"
done
if grep -Eq '<script[^>]* src=|<link |https?://[a-z]' "$tmp/r.html" |
   grep -v 'www.w3.org/2000/svg' >/dev/null; then
    :
fi
grep -Eo '(src=|href=|url\()"?https?://[^" )]*' "$tmp/r.html" | grep -q . && bad "html refers to the network"
grep -q '<script[^>]* src=' "$tmp/r.html" && bad "html loads an external script"

# the example plugin
if [ -f "$plugin" ]; then
    "$pv" --plugin "$plugin" --list | grep -q '^hotspots ' || bad "plugin not listed"
    "$pv" --plugin "$plugin" --view hotspots "$trace" >"$tmp/hot" || bad "plugin view status"
    sed 's/^ *[0-9]*\. //' "$tmp/hot" | LC_ALL=C sort >"$tmp/hot.norm"
    compare hotspots.txt "$tmp/hot.norm"
    "$pv" --plugin "$plugin" --view hotspots --svg "$tmp/svg3" "$trace" || bad "plugin svg"
    "$check" xml "$tmp/svg3/hotspots.svg" >/dev/null || bad "plugin svg not well-formed"
    "$pv" --plugin "$tmp/nonexistent.so" --list >/dev/null 2>&1
    [ $? = 1 ] || bad "missing plugin: exit status"
else
    bad "plugin $plugin not built"
fi

# a cut trace (no complete chunk): reported, no crash, views still drawn
head -c 200 "$trace" >"$tmp/cut.ecl"
"$pv" --svg "$tmp/svgcut" --html "$tmp/cut.html" --view timeline --view utilization \
    "$tmp/cut.ecl" >/dev/null 2>"$tmp/err"
st=$?
[ $st -le 1 ] || bad "cut trace: exit status $st"
"$pv" "$tmp/cut.ecl" >/dev/null 2>&1
[ $? -le 1 ] || bad "cut trace: profile crashed"

# a missing trace is an error with a message
"$pv" "$tmp/none.ecl" >/dev/null 2>"$tmp/err"
[ $? = 1 ] && grep -q none.ecl "$tmp/err" || bad "missing trace"

# --from/--to: the text profile becomes the window's (from 0 past the end:
# the whole run's calls); the SVG pictures and the CSV refuse a window
"$pv" --from 0 --to 1e6 "$trace" >"$tmp/window" || bad "--from/--to exit status"
head -1 "$tmp/window" | grep -q '^Window profile of ' || bad "--from/--to: no window profile"
wcalls=$(awk 'NR > 5 && NF == 5 { s += $3 } END { print s + 0 }' "$tmp/window")
pcalls=$("$pv" --export csv "$trace" | awk -F, '$1 == "region" { s += $6 } END { print s + 0 }')
[ "$wcalls" = "$pcalls" ] && [ "$wcalls" -gt 0 ] || bad "--from 0 --to 1e6: $wcalls calls, the run has $pcalls"
for o in "--svg $tmp/wsvg" "--export csv"; do
    # shellcheck disable=SC2086
    "$pv" --from 0.001 $o "$trace" >/dev/null 2>"$tmp/err"
    [ $? = 1 ] && grep -q 'from/--to' "$tmp/err" || bad "--from with $o: not refused"
done
"$pv" --from 2 --to 1 "$trace" >/dev/null 2>&1
[ $? = 1 ] || bad "--to before --from: not refused"

exit $fail
