#!/bin/sh
# tutorial.sh -- the EDL files of doc/edl.md's tutorial are the ones under
# tests/edl/tutorial (which formats.sh compiles and samples.sh walks): each
# block that follows a line "<!-- tutorial: NAME -->" in the document must be
# that file, byte for byte.
. "$top_srcdir/tests/edl/common.sh"

doc=$top_srcdir/doc/edl.md
n=0
for name in $(sed -n 's/^<!-- tutorial: \([A-Za-z0-9_.]*\) -->$/\1/p' "$doc"); do
    n=$((n + 1))
    awk -v want="<!-- tutorial: $name -->" '
        $0 == want { found = 1; next }
        found && /^```/ { if (inside) exit; inside = 1; next }
        found && inside { print }' "$doc" >"$TMP/$name"
    if cmp -s "$TMP/$name" "$SRC/tutorial/$name"; then
        echo "ok: $name"
    else
        failed "doc/edl.md's $name differs from tests/edl/tutorial/$name"
        diff -u "$SRC/tutorial/$name" "$TMP/$name"
    fi
    case $name in
    *.edl) "$EDLC" --check "$TMP/$name" || failed "$name from doc/edl.md does not compile" ;;
    esac
done
[ $n -ge 2 ] || failed "doc/edl.md has $n tutorial files (want the CSV log and the binary stream)"
exit $fail
