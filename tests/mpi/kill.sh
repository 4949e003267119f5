#!/bin/sh
# kill.sh -- rank 2 dies by SIGKILL: its chunks written before stay readable,
# the others' traces too, and ecl-merge reports what is missing.
. "$top_srcdir/tests/mpi/common.sh"

ECL_BUFFER_SIZE=4K run_fails 4 "$top_builddir/tests/mpi/killed"
for r in 0 1 2 3; do
    [ -f "$tmp/trace.$r.ecl" ] || fail "no trace of rank $r"
    check --readable "$tmp/trace.$r.ecl"
done
check --readable --count mpi_sendrecv=300 --count mpi_init=1 "$tmp/trace.2.ecl"
"$merge" -o "$tmp/merged.ecl" "$tmp"/trace.[0-3].ecl > "$tmp/merge.out" 2>&1
st=$?
cat "$tmp/merge.out"
[ $st -eq 2 ] || fail "ecl-merge exit status $st, expected 2"
grep -q "trace.2.ecl (rank 2): the trace was not closed" "$tmp/merge.out" ||
    fail "ecl-merge does not report rank 2"
check --ranks 4 --readable --order --has-n 300 'mpi_sendrecv process=2' "$tmp/merged.ecl"
# a rank without a file at all
"$merge" -n 4 -o "$tmp/merged3.ecl" "$tmp"/trace.0.ecl "$tmp"/trace.1.ecl "$tmp"/trace.3.ecl \
    > "$tmp/merge.out" 2>&1
st=$?
cat "$tmp/merge.out"
[ $st -eq 2 ] || fail "ecl-merge exit status $st with a rank missing, expected 2"
grep -q "rank 2: no trace among the inputs" "$tmp/merge.out" || fail "missing rank 2 not reported"
echo "PASS"
