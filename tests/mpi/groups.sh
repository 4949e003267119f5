#!/bin/sh
# groups.sh -- ECL_MPI_GROUPS switches event groups off: with p2p and io
# only, no collective, one-sided or communicator record is written, yet the
# communicators made meanwhile still get agreed ids (sends over them match);
# a bad value stops tracing with a message.
. "$top_srcdir/tests/mpi/common.sh"

ECL_MPI_GROUPS=p2p,io run 4 "$ex/split"
per_rank_files 4
check --ranks 4 --order --match \
    --count mpi_comm_split=0 --count mpi_cart_create=0 --count mpi_bcast=0 \
    --count mpi_allreduce=0 --count mpi_barrier=0 --count mpi_comm_free=0 \
    --each mpi_sendrecv=1 --has 'mpi_send process=2 peer=0 tag=7' \
    --has-n 0 'mpi_send comm=4294967295' \
    "$tmp/trace.ecl"
# the halves' communicators are still defined, with agreed ids
"$paldump" -t mpi_comm -p 0 "$tmp/trace.ecl" | grep -q 'size=2 inter=0 ranks="2 0"' ||
    fail "the even half is not defined when the comm group is off"
rm -f "$tmp"/trace*.ecl
ECL_MPI_GROUPS=p2p,bogus run 4 "$ex/ring"
grep -q "ECL_MPI_GROUPS='p2p,bogus' is not valid" "$tmp/out" || fail "no message for a bad ECL_MPI_GROUPS"
[ ! -e "$tmp/trace.0.ecl" ] || fail "a bad ECL_MPI_GROUPS still traced"
echo "PASS"
