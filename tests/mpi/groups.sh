#!/bin/sh
# groups.sh -- ECL_MPI_GROUPS switches event groups off: with p2p and io
# only, no collective, one-sided or communicator record is written, yet the
# communicators made meanwhile still get agreed ids (sends over them match);
# a bad value is said once and the default (all groups) used.
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
# a bad value (ECL_MPI_GROUPS=env used to stop tracing on every rank) is said
# once for the run, not once per rank, and every group is recorded
for bad in p2p,bogus env; do
    rm -f "$tmp"/trace*.ecl
    ECL_MPI_GROUPS=$bad run 4 "$ex/split"
    n=$(grep -c "^ecl: ECL_MPI_GROUPS='$bad' is not valid: .*; ignored, the default is used" "$tmp/out")
    [ "$n" -eq 1 ] || fail "ECL_MPI_GROUPS=$bad: $n messages, not one"
    check --ranks 4 --order --match "$tmp/trace.ecl"
    for type in mpi_comm_split mpi_bcast mpi_sendrecv; do
        c=$("$paldump" -c -t $type "$tmp/trace.ecl" | awk -v t=$type '$1 == t { print $2 }')
        [ "${c:-0}" -gt 0 ] || fail "ECL_MPI_GROUPS=$bad: no $type record (default: all groups)"
    done
done
echo "PASS"
