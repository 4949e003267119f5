#!/bin/sh
# merge.sh -- ecl-merge on made-up traces with known clocks (no MPI needed):
# offset and drift corrected to the nanosecond, user types merged by name when
# ranks registered them in different orders; a trace without clock
# measurements is merged with a warning that says by how much receives precede
# their sends; damage and inputs that are not traces are reported.
set -u
: "${top_srcdir:?}" "${top_builddir:?}"
mk=$top_builddir/tests/mpi/mktraces
merge=$top_builddir/ecl/tools/ecl-merge
tmp=$(mktemp -d "${TMPDIR:-/tmp}/ecl-merge-test.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT
fail() {
    echo "FAIL: $*"
    exit 1
}

mkdir "$tmp/a" "$tmp/b"
"$mk" drift "$tmp/a" || fail "mktraces drift"
"$merge" -v "$tmp/a/trace.0.ecl" "$tmp/a/trace.1.ecl" > "$tmp/out" 2>&1
st=$?
cat "$tmp/out"
[ $st -eq 0 ] || fail "ecl-merge exit status $st"
grep -q "rank 1): clock: offset and drift corrected" "$tmp/out" || fail "drift not corrected"
"$mk" verify "$tmp/a/trace.ecl" || fail "merged clocks or types are wrong"

# no clock measurements: wall clock only, rank 1 is 1 ms off
"$mk" nosync "$tmp/b" || fail "mktraces nosync"
# (the re-encoding merge pairs sends with receives; the default one does not decode)
"$merge" --format=2 -o "$tmp/b/m.ecl" "$tmp/b/trace.0.ecl" "$tmp/b/trace.1.ecl" > "$tmp/out" 2>&1
st=$?
cat "$tmp/out"
[ $st -eq 2 ] || fail "ecl-merge exit status $st, expected 2"
grep -q "no clock measurement" "$tmp/out" || fail "the missing measurement is not reported"
grep -q "1 of 1 receives complete before their send begins, by up to 998.000 us" "$tmp/out" ||
    fail "the clock error is not reported with its size"
[ -s "$tmp/b/m.ecl" ] || fail "nothing merged"

# a rank the run had but no file for
"$merge" -n 3 -o "$tmp/a/m3.ecl" "$tmp/a/trace.0.ecl" "$tmp/a/trace.1.ecl" > "$tmp/out" 2>&1
st=$?
cat "$tmp/out"
[ $st -eq 2 ] && grep -q "rank 2: no trace among the inputs" "$tmp/out" || fail "missing rank"

# a damaged input: bytes overwritten in rank 1's records (before its index)
cp "$tmp/a/trace.1.ecl" "$tmp/a/bad.ecl"
size=$(wc -c < "$tmp/a/bad.ecl")
printf XXXX | dd of="$tmp/a/bad.ecl" bs=1 seek=$((size - 230)) conv=notrunc 2>/dev/null
"$merge" -o "$tmp/a/m4.ecl" "$tmp/a/trace.0.ecl" "$tmp/a/bad.ecl" > "$tmp/out" 2>&1
st=$?
cat "$tmp/out"
[ $st -eq 2 ] && grep -q "bad.ecl: byte" "$tmp/out" || fail "damage not reported"

# not a trace, a merged trace, the output among the inputs
echo "hello" > "$tmp/a/text.ecl"
"$merge" -o "$tmp/a/m5.ecl" "$tmp/a/text.ecl" > "$tmp/out" 2>&1
[ $? -eq 1 ] && grep -q "bad magic" "$tmp/out" || fail "a text file was not refused"
"$merge" -o "$tmp/a/m6.ecl" "$tmp/a/trace.ecl" > "$tmp/out" 2>&1
[ $? -eq 1 ] && grep -q "merged trace already" "$tmp/out" || fail "a merged trace was not refused"
"$merge" -o "$tmp/a/trace.0.ecl" "$tmp/a/trace.0.ecl" > "$tmp/out" 2>&1
[ $? -eq 1 ] || fail "the output may not be an input"
echo "PASS"
