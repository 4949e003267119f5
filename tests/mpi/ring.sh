#!/bin/sh
# ring.sh -- the blocking ring linked with -lecl: per-rank traces, the merge
# at MPI_Finalize, exact counts, matched messages, world ranks, pal-dump's
# view; ECL_MERGE=0, ECL_ENABLE=0 and a bad ECL_MERGE.
. "$top_srcdir/tests/mpi/common.sh"

run 4 "$ex/ring" 10
per_rank_files 4
check --ranks 4 --order --match \
    --count mpi_send=40 --count mpi_recv=40 \
    --each mpi_send=10 --each mpi_recv=10 --each mpi_barrier=1 \
    --each mpi_init=1 --each mpi_finalize=1 --each mpi_clock=2 --each mpi_comm=2 \
    --has 'mpi_send process=0 peer=1 tag=0 bytes=4 comm=0' \
    --has 'mpi_recv process=0 peer=3 tag=9 bytes=40' \
    --has 'mpi_send process=3 peer=0 tag=9 bytes=40' \
    --has-n 0 'mpi_recv peer=-2' \
    "$tmp/trace.ecl"
# each rank's own file holds its records
check --count mpi_send=10 --count mpi_recv=10 --count mpi_clock=2 "$tmp/trace.2.ecl"

# pal-dump shows the call with its arguments and its begin (time - duration)
line=$("$paldump" -t mpi_send -p 2 -n 1 "$tmp/trace.ecl")
echo "$line"
echo "$line" | grep -q '^[0-9]*\.[0-9]\{9\} p2 s1 mpi_send .*duration=[0-9][0-9]* comm=0 peer=3 tag=0 bytes=4$' ||
    fail "pal-dump does not show the send"

# ECL_MERGE=0: per-rank traces only; ecl-merge merges them to the same counts
rm -f "$tmp"/*.ecl
ECL_MERGE=0 run 4 "$ex/ring" 10
[ -e "$tmp/trace.ecl" ] && fail "ECL_MERGE=0 merged"
"$merge" "$tmp"/trace.0.ecl "$tmp"/trace.1.ecl "$tmp"/trace.2.ecl "$tmp"/trace.3.ecl ||
    fail "ecl-merge"
check --ranks 4 --match --order --count mpi_send=40 --each mpi_recv=10 "$tmp/trace.ecl"

# ECL_ENABLE=0: the wrappers pass every call through, nothing is written
rm -f "$tmp"/*.ecl
ECL_ENABLE=0 run 4 "$ex/ring" 3
ls "$tmp"/*.ecl 2>/dev/null && fail "traced with ECL_ENABLE=0"

# a bad value is said once for the run and the default used: merged
rm -f "$tmp"/*.ecl
ECL_MERGE=maybe run 4 "$ex/ring" 3
n=$(grep -c "^ecl: ECL_MERGE='maybe' is not valid: .*; ignored, the default is used" "$tmp/out")
[ "$n" -eq 1 ] || fail "ECL_MERGE=maybe: $n messages, not one"
check --ranks 4 --match "$tmp/trace.ecl"
echo "PASS"
