#!/bin/sh
# merge-damage.sh -- damage in a run file (ecl-merge's default form) costs at
# most what it names, and is said (exit status 2, doc/tools.md): a damaged
# byte in the run header, in an index entry's location, clock model or stream
# table costs nothing (the copy at the end, or the member's own clock
# measurements); the same entry damaged in both copies costs that member
# only; an index too large for the room before the members goes after them,
# and reads and mends the same. A per-rank trace missing at merge time is named and the rest merged;
# inputs none of which can be read are named.
set -u
: "${top_srcdir:?}" "${top_builddir:?}"
mk=$top_builddir/tests/mpi/mktraces
merge=$top_builddir/ecl/tools/ecl-merge
paldump=$top_builddir/pal/pal-dump
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ecl-merge-damage.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fail() {
    echo "FAIL: $*"
    exit 1
}
# flip FILE OFFSET: the byte at OFFSET xor 0x5a
flip() {
    b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
    printf "\\$(printf %o $((b ^ 90)))" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}
u64() {
    od -An -tu8 -j "$2" -N8 "$1" | tr -d ' '
}
# check NAME EXPECTED_DUMP PATTERN: reads $tmp/d.ecl; exit 2, PATTERN said
check() {
    "$paldump" --raw-time "$tmp/d.ecl" > "$tmp/out" 2> "$tmp/err"
    st=$?
    cat "$tmp/err"
    [ $st -eq 2 ] || fail "$1: pal-dump exit status $st, expected 2"
    grep -q "$3" "$tmp/err" || fail "$1: not said ('$3')"
    cmp -s "$tmp/out" "$2" || { diff "$2" "$tmp/out" | head; fail "$1: other records than expected"; }
    echo "$1: said, cost as expected"
}

"$mk" drift "$tmp" || fail "mktraces drift"
"$merge" -q -o "$tmp/m.ecl" "$tmp/trace.0.ecl" "$tmp/trace.1.ecl" || fail "ecl-merge"
"$paldump" --raw-time "$tmp/m.ecl" > "$tmp/ref" || fail "the run file does not read cleanly"
# progress (on a terminal by default; asked for here)
"$merge" --progress -o "$tmp/p.ecl" "$tmp/trace.0.ecl" "$tmp/trace.1.ecl" 2> "$tmp/err" ||
    fail "ecl-merge --progress"
grep -q "ecl-merge: reading the traces: 100 % (2 of 2 files)" "$tmp/err" &&
    grep -q "ecl-merge: copying the traces: 100 % " "$tmp/err" || { cat "$tmp/err"; fail "no progress shown"; }
cmp -s "$tmp/p.ecl" "$tmp/m.ecl" || fail "two merges of the same traces differ"
grep -q ' p1 ' "$tmp/ref" && grep -q ' p0 ' "$tmp/ref" || fail "records of both ranks expected"
grep -v ' p1 ' "$tmp/ref" > "$tmp/ref0"
ix=$(u64 "$tmp/m.ecl" 64)
ixcopy=$(u64 "$tmp/m.ecl" 80)
[ "$ix" = 192 ] || fail "index at byte $ix, expected 192"
e1=$((ix + 128))            # index entry of member 1 (rank 1)
e1c=$((ixcopy + 128))

cp "$tmp/m.ecl" "$tmp/d.ecl"; flip "$tmp/d.ecl" 30
check "run header" "$tmp/ref" "run header damaged.*its copy at byte"

cp "$tmp/m.ecl" "$tmp/d.ecl"; flip "$tmp/d.ecl" $((e1 + 12))
check "location of entry 1" "$tmp/ref" "location of index entry 1 damaged; its copy was used"

cp "$tmp/m.ecl" "$tmp/d.ecl"; flip "$tmp/d.ecl" $((e1c + 70))
check "clock model in the copy" "$tmp/ref" "clock model of index entry 1 damaged; the original was used"

cp "$tmp/m.ecl" "$tmp/d.ecl"; flip "$tmp/d.ecl" $((e1 + 70)); flip "$tmp/d.ecl" $((e1c + 70))
check "clock model, both copies" "$tmp/ref" "clock model of member 1 ('trace.1.ecl', rank 1) is damaged in both copies of the index; computed again from its clock measurements: offset and drift corrected"

st1=$(u64 "$tmp/m.ecl" $((e1 + 32)))
cp "$tmp/m.ecl" "$tmp/d.ecl"; flip "$tmp/d.ecl" $((ix + st1 + 20)); flip "$tmp/d.ecl" $((ixcopy + st1 + 20))
check "stream table, both copies" "$tmp/ref" "stream table damaged in both copies"

cp "$tmp/m.ecl" "$tmp/d.ecl"; flip "$tmp/d.ecl" $((e1 + 9)); flip "$tmp/d.ecl" $((e1c + 9))
check "location, both copies" "$tmp/ref0" "index entry 1 damaged in both copies: where its trace lies is not known"
grep -q "rank 1: no trace in the merged trace" "$tmp/err" || fail "the missing rank is not named"

# an index larger than the room the merge keeps before the members (ranks
# of 2,000 chunks each): after the last member, both copies; the run file
# reads as the re-encoding merge of the same traces, and damage to one copy
# of an entry costs nothing
mkdir "$tmp/ch"
"$mk" chunky "$tmp/ch" || fail "mktraces chunky"
"$merge" -q -o "$tmp/ch/m.ecl" "$tmp/ch/trace.0.ecl" "$tmp/ch/trace.1.ecl" || fail "ecl-merge (chunky)"
"$merge" -q --format=2 -o "$tmp/ch/m2.ecl" "$tmp/ch/trace.0.ecl" "$tmp/ch/trace.1.ecl" ||
    fail "ecl-merge --format=2 (chunky)"
"$paldump" --raw-time "$tmp/ch/m2.ecl" > "$tmp/ch/ref" || fail "chunky: format 2 does not read"
[ "$(wc -l < "$tmp/ch/ref")" = 4004 ] || fail "chunky: $(wc -l < "$tmp/ch/ref") records, expected 4004"
cix=$(u64 "$tmp/ch/m.ecl" 64)
cixcopy=$(u64 "$tmp/ch/m.ecl" 80)
m1=$(u64 "$tmp/ch/m.ecl" $((cix + 128 + 8)))
[ "$cix" -gt "$m1" ] && [ "$cixcopy" -gt "$cix" ] ||
    fail "chunky: index at byte $cix, its copy at $cixcopy: not after the members (member 1 at $m1)"
"$top_builddir/tests/pal/merge_index" "$tmp/ch/m.ecl" > "$tmp/ch/ix" || {
    cat "$tmp/ch/ix"; fail "chunky: the index does not name the chunks"; }
cp "$tmp/ch/m.ecl" "$tmp/d.ecl"
"$paldump" --raw-time "$tmp/d.ecl" > "$tmp/out" 2> "$tmp/err" && [ ! -s "$tmp/err" ] ||
    { cat "$tmp/err"; fail "chunky: the run file does not read cleanly"; }
cmp -s "$tmp/out" "$tmp/ch/ref" || fail "chunky: the run file reads otherwise than format 2"
flip "$tmp/d.ecl" $((cix + 128 + 12))
check "chunky, location of entry 1" "$tmp/ch/ref" "location of index entry 1 damaged; its copy was used"
echo "chunky: index after the members (byte $cix), read as format 2"

# a per-rank trace missing at merge time: named, the rest merged (exit 2)
"$merge" -o "$tmp/m2.ecl" "$tmp/trace.0.ecl" "$tmp/gone.1.ecl" > "$tmp/err" 2>&1
st=$?
cat "$tmp/err"
[ $st -eq 2 ] || fail "a missing input: ecl-merge exit status $st, expected 2"
grep -q "cannot open trace '$tmp/gone.1.ecl': No such file" "$tmp/err" || fail "the missing input is not named"
"$paldump" --raw-time "$tmp/m2.ecl" > "$tmp/out" 2> "$tmp/err"
grep -q "rank 1: no trace in the merged trace" "$tmp/err" || fail "reading: rank 1 not named missing"
# (its time 0 is rank 0's start now: the same records, other times)
[ "$(wc -l < "$tmp/out")" = "$(wc -l < "$tmp/ref0")" ] && ! grep -q ' p1 ' "$tmp/out" ||
    fail "the merge of rank 0 alone reads otherwise"

# none of the inputs can be read: each named, exit 1, nothing written
"$merge" -o "$tmp/m3.ecl" "$tmp/a.0.ecl" "$tmp/a.1.ecl" > "$tmp/err" 2>&1
st=$?
cat "$tmp/err"
[ $st -eq 1 ] || fail "no input: exit status $st, expected 1"
grep -q "none of the 2 files can be read: cannot open trace '$tmp/a.0.ecl': No such file or directory; cannot open trace '$tmp/a.1.ecl'" "$tmp/err" ||
    fail "no input: the files are not named"
[ -e "$tmp/m3.ecl" ] && fail "no input: an output was written"
echo "PASS"
