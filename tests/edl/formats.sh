#!/bin/sh
# formats.sh -- every shipped descriptor (edl/formats) and every tutorial
# descriptor compiles without a diagnostic, and round-trips: edl -> bin ->
# print -> bin gives identical bytes.
. "$top_srcdir/tests/edl/common.sh"

for f in "$FORMATS"/*.edl "$SRC"/tutorial/*.edl; do
    "$EDLC" --check "$f" 2>"$TMP/err" || failed "$f does not compile"
    [ -s "$TMP/err" ] && { failed "$f: diagnostics"; cat "$TMP/err"; }
    round_trip "$f"
    echo "ok: $(basename "$f")"
done
# The default output name replaces .edl by .bin.
cp "$FORMATS/picl.edl" "$TMP/x.edl"
"$EDLC" "$TMP/x.edl" && [ -f "$TMP/x.bin" ] || failed "default output name"
# --print reads a dictionary or a source; both print the same.
"$EDLC" --print "$FORMATS/picl.edl" >"$TMP/a.edl" && "$EDLC" --print "$TMP/x.bin" >"$TMP/b.edl" &&
    cmp -s "$TMP/a.edl" "$TMP/b.edl" || failed "--print of source and of dictionary differ"
exit $fail
