#!/bin/sh
# progress.sh -- the merge at MPI_Finalize shows its progress when asked
# (doc/configuration.md, ECL_PROGRESS): ECL_PROGRESS=1 with rank 0's standard
# error a pipe (as under any launcher) shows the reading and copying phases
# to 100 %; ECL_PROGRESS=0 and, unset, a pipe show none; ecl-run run on a
# terminal (script(1) gives it one) sets ECL_PROGRESS=1 for the ranks.
. "$top_srcdir/tests/mpi/common.sh"

prog() {   # prog FILE: the progress lines of FILE, \r-separated, one per line
    tr '\r' '\n' < "$1" | grep '^ecl: merging the traces:'
}

ECL_PROGRESS=1 run 4 "$ex/ring" 3
prog "$tmp/out" > "$tmp/p" || fail "ECL_PROGRESS=1: no progress shown"
grep -q 'reading 100 % (4 of 4 files)' "$tmp/p" || fail "ECL_PROGRESS=1: reading never reached 4 of 4 files"
grep -q 'copying 100 %' "$tmp/p" || fail "ECL_PROGRESS=1: copying never reached 100 %"
check --ranks 4 --match "$tmp/trace.ecl" > /dev/null

ECL_PROGRESS=0 run 4 "$ex/ring" 3
prog "$tmp/out" && fail "ECL_PROGRESS=0 showed progress"
run 4 "$ex/ring" 3
prog "$tmp/out" && fail "progress shown on a pipe with ECL_PROGRESS unset"

if command -v script >/dev/null 2>&1; then
    (cd "$tmp" && ECL_DIR=$tmp ASAN_OPTIONS=$mpi_asan timeout 120 script -qec \
        "'$eclrun' '$MPIRUN' --oversubscribe -np 4 '$ex/ring-plain' 3" /dev/null) > "$tmp/out" 2>&1 ||
        { cat "$tmp/out"; fail "ecl-run on a terminal failed"; }
    prog "$tmp/out" | grep -q 'reading 100 %' || { cat "$tmp/out"; fail "ecl-run on a terminal: no progress"; }
else
    echo "script(1) not found: ecl-run on a terminal not checked"
fi
exit 0
