#!/bin/sh
# ecl-dict.sh -- edl/formats/ecl.edl compiles to exactly the dictionary ECL
# embeds in its traces: run examples/threads, cut the dictionary out of the
# file header (dict_offset and dict_length at bytes 128 and 132, flags at 160:
# bit 1 = zlib-compressed, see doc/trace-format.md) and compare it byte for
# byte with `edlc ecl.edl`.
. "$top_srcdir/tests/edl/common.sh"

threads=$top_builddir/examples/threads/threads
if [ ! -x "$threads" ]; then
    echo "SKIP: $threads is not built"
    exit 77
fi
(cd "$TMP" && ECL_DIR="$TMP" ECL_PREFIX=t "$threads" 2 20 >/dev/null) || { echo "FAIL: threads failed"; exit 1; }
trace=$(ls "$TMP"/t.*.ecl 2>/dev/null | head -n 1)
[ -n "$trace" ] || { echo "FAIL: no trace written"; exit 1; }
u32() { od -An -tu4 -j "$1" -N 4 "$trace" | tr -d ' '; }
off=$(u32 128)
len=$(u32 132)
flags=$(u32 160)
dd if="$trace" of="$TMP/embedded.raw" bs=1 skip="$off" count="$len" 2>/dev/null
if [ $((flags & 2)) -ne 0 ]; then
    # an RFC 1950 stream (automake needs perl, so it is there)
    perl -MCompress::Zlib -e 'undef $/; my $d = uncompress(<STDIN>); defined $d or exit 1;
        print $d' <"$TMP/embedded.raw" >"$TMP/embedded.bin" || failed "the dictionary does not inflate"
else
    mv "$TMP/embedded.raw" "$TMP/embedded.bin"
fi
"$EDLC" "$FORMATS/ecl.edl" -o "$TMP/ecl.bin" || failed "ecl.edl does not compile"
if cmp "$TMP/embedded.bin" "$TMP/ecl.bin"; then
    echo "ok: ecl.edl = the dictionary in $(basename "$trace") ($len bytes)"
else
    failed "ecl.edl differs from ECL's embedded dictionary"
    echo "--- ECL's dictionary, printed:"; "$EDLC" --print "$TMP/embedded.bin"
fi
# edlc --print reads the dictionary straight from a trace, too.
"$EDLC" --print "$trace" >"$TMP/a.edl" && "$EDLC" --print "$TMP/ecl.bin" >"$TMP/b.edl" &&
    cmp -s "$TMP/a.edl" "$TMP/b.edl" || failed "--print of the trace differs"
exit $fail
