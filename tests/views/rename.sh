#!/bin/sh
# rename.sh -- the views know no record or field name: every record
# descriptor and every field of edl/formats/picl.edl is renamed (zz_NAME,
# consistently: bind entries, array counts, shape selectors, designations,
# references), the description compiled with edlc, and pal-view's profile of
# the PICL samples is the same, number for number, as with the original
# names. Region names that come from a field's name (event#3) follow the
# renaming and are mapped back before comparing.
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=.}"
pv="$top_builddir/views/pal-view"
edlc="$top_builddir/edl/edlc"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/pal-view-rename.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

edl=$top_srcdir/edl/formats/picl.edl
# the names: words after RECORD and FIELD
names=$(awk '{ for (i = 1; i < NF; i++) if ($i == "RECORD" || $i == "FIELD") print $(i + 1) }' "$edl" |
        sort -u)
[ "$(echo "$names" | wc -l)" -ge 40 ] || fail "too few names found in picl.edl: $names"
# every identifier that is one of them becomes zz_NAME, and every string
# that is a record's name (bind entries); role names (after ROLE, ROLE IS),
# other strings (REGION, UNIT, DESCRIPTION) and comments stay
records=$(awk '{ for (i = 1; i < NF; i++) if ($i == "RECORD") print $(i + 1) }' "$edl" | sort -u)
awk -v names="$names" -v records="$records" '
    BEGIN {
        n = split(names, a, "\n"); for (i = 1; i <= n; i++) is[a[i]] = 1
        n = split(records, a, "\n"); for (i = 1; i <= n; i++) rec[a[i]] = 1
    }
    /^[ \t]*--/ { print; next }
    {
        out = ""; s = $0; skip = 0
        while (match(s, /"[^"]*"|[A-Za-z_][A-Za-z0-9_]*|--.*|;/)) {
            w = substr(s, RSTART, RLENGTH)
            out = out substr(s, 1, RSTART - 1)
            s = substr(s, RSTART + RLENGTH)
            if (w ~ /^--/) { out = out w; continue }
            if (w ~ /^"/) {
                out = out ((substr(w, 2, length(w) - 2) in rec) ? "\"zz_" substr(w, 2) : w)
                continue
            }
            if (w == ";") { skip = 0; out = out w; continue }
            if (w == "ROLE") { skip = 1; out = out w; continue }
            if (skip == 1 && w == "IS") { skip = 2; out = out w; continue }
            if (skip == 2 && w == "WHEN") { skip = 0; out = out w; continue }
            if (skip == 1 && w in is) { skip = 0; out = out w; continue }
            if (skip == 1 && w ~ /^[a-z]/) { skip = 0; out = out w; continue }
            if (skip == 2) { out = out w; continue }
            out = out ((w in is) ? "zz_" w : w)
        }
        print out s
    }' "$edl" > "$tmp/renamed.edl"
# the rename really renamed: no RECORD or FIELD keeps its name
left=$(awk '{ for (i = 1; i < NF; i++) if (($i == "RECORD" || $i == "FIELD") && $(i + 1) !~ /^zz_/) print $(i + 1) }' \
        "$tmp/renamed.edl")
[ -z "$left" ] || fail "not renamed: $left"
"$edlc" -o "$tmp/orig.dict" "$edl" || fail "edlc picl.edl"
"$edlc" -o "$tmp/renamed.dict" "$tmp/renamed.edl" || fail "edlc of the renamed picl.edl"

n=0
for sample in "$top_srcdir"/tests/edl/samples/mpicl_test.excerpt.ttf \
              "$top_srcdir"/tests/edl/samples/mpicl_lab5.excerpt.ttf \
              /work/shared/data/picl/mpicl_test.sasha.40543.trace.ttf; do
    [ -r "$sample" ] || continue
    "$pv" -d "$tmp/orig.dict" "$sample" > "$tmp/a" || fail "pal-view $sample"
    "$pv" -d "$tmp/renamed.dict" "$sample" > "$tmp/b" || fail "pal-view (renamed) $sample"
    grep -q '^MPI functions' "$tmp/a" || fail "$sample: no MPI functions in the profile"
    grep -q '^Messages: [1-9]' "$tmp/a" || fail "$sample: no messages in the profile"
    tr -s " " < "$tmp/a" > "$tmp/a2"
    sed 's/zz_//g' "$tmp/b" | tr -s " " > "$tmp/b2"
    diff -u "$tmp/a2" "$tmp/b2" || fail "$sample: the profile differs after renaming"
    n=$((n + 1))
done
[ $n -ge 2 ] || fail "only $n PICL samples"
echo "rename: $(echo "$names" | wc -l) names renamed, $n samples give the same profile"
