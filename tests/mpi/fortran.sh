#!/bin/sh
# fortran.sh -- a Fortran program (the mpi module) traced linked with -lecl
# and unmodified under ecl-run: ECL's Fortran wrappers see its calls (matched
# probes, MPI_Comm_idup and groups included: handles of every kind converted),
# and both ways give the same calls.
. "$top_srcdir/tests/mpi/common.sh"

if [ "${ECL_TEST_HAVE_MPIF90:-no}" != yes ]; then
    echo "SKIP: no mpif90: the Fortran example was not built"
    exit 77
fi
run 4 "$ex/fring"
per_rank_files 4
check --ranks 4 --order --match \
    --each mpi_init=1 --count mpi_send=23 --each mpi_recv=5 --each mpi_isend=2 \
    --each mpi_irecv=2 --each mpi_waitall=1 --each mpi_complete=5 --each mpi_allreduce=1 \
    --each mpi_bcast=1 --each mpi_barrier=2 --each mpi_finalize=1 \
    --count mpi_mprobe=3 --count mpi_mrecv=3 --has 'mpi_mrecv process=0 peer=2 tag=202 bytes=4' \
    --each mpi_comm_idup=1 --same mpi_comm_idup.newcomm --has-n 4 'mpi_complete kind=6' \
    --each mpi_comm_group=1 --each mpi_group_incl=1 --each mpi_group_free=2 \
    --has 'mpi_send process=0 peer=1 tag=1 bytes=4' --has 'mpi_recv process=0 peer=3 tag=5 bytes=20' \
    --has 'mpi_complete process=2 kind=1 peer=1 tag=100 bytes=4' \
    --has 'mpi_allreduce process=3 sent=4 recvd=4' \
    --canon "$tmp/linked.txt" "$tmp/trace.ecl"
rm -f "$tmp"/*.ecl
run 4 "$eclrun" "$ex/fring-plain"
check --ranks 4 --match --canon "$tmp/preloaded.txt" "$tmp/trace.ecl"
diff "$tmp/linked.txt" "$tmp/preloaded.txt" || fail "-lecl and ecl-run traces differ"
echo "PASS"
