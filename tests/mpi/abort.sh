#!/bin/sh
# abort.sh -- rank 1 calls MPI_Abort; Open MPI kills the others. Every trace
# stays readable, rank 1's is complete (MPI_Abort closes it), and ecl-merge
# merges what is there and says which ranks are incomplete.
. "$top_srcdir/tests/mpi/common.sh"

# Open MPI sends SIGTERM, then SIGKILL a second later (odls_base_sigkill_timeout);
# 4 busy-polling ranks on 2 loaded cores do not always run their handler within
# that second, so the test allows 5 s: it checks that ECL's SIGTERM flush keeps
# the killed ranks' buffered records (doc/mpi.md, "Crashes").
OMPI_MCA_odls_base_sigkill_timeout=5
export OMPI_MCA_odls_base_sigkill_timeout
run_fails 4 "$top_builddir/tests/mpi/abort"
# The others were killed with SIGTERM: ECL wrote their buffers on the way.
for r in 0 1 2 3; do
    [ -f "$tmp/trace.$r.ecl" ] || fail "no trace of rank $r"
    check --readable --count mpi_init=1 --count mpi_allreduce=20 "$tmp/trace.$r.ecl"
done
check --count mpi_abort=1 --count mpi_allreduce=20 --has 'mpi_abort errorcode=3' \
    "$tmp/trace.1.ecl"
[ -e "$tmp/trace.ecl" ] && fail "merged although the run aborted"
"$merge" -n 4 -o "$tmp/merged.ecl" "$tmp"/trace.[0-3].ecl > "$tmp/merge.out" 2>&1
st=$?
cat "$tmp/merge.out"
[ $st -eq 2 ] || fail "ecl-merge exit status $st, expected 2 (merged with problems)"
grep -Eq "was not closed|ended with signal" "$tmp/merge.out" ||
    fail "ecl-merge does not report the killed ranks"
grep -q "trace.1.ecl (rank 1): the trace was not closed" "$tmp/merge.out" &&
    fail "rank 1's trace was closed by MPI_Abort"
check --ranks 4 --readable --has 'mpi_abort process=1 errorcode=3' \
    --count mpi_allreduce=80 --each mpi_init=1 "$tmp/merged.ecl"
echo "PASS"
