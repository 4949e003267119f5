#!/bin/sh
# threads.sh -- MPI_THREAD_MULTIPLE: four threads per rank calling MPI at
# once; each thread is a stream of its own and every message is matched.
. "$top_srcdir/tests/mpi/common.sh"

run 4 "$ex/threads"
per_rank_files 4
check --ranks 4 --order --match --streams 6 \
    --each mpi_send=100 --each mpi_recv=100 --each mpi_init_thread=1 --each mpi_barrier=1 \
    --each enter=4 --each leave=4 \
    --has 'mpi_init_thread process=0 required=3 provided=3' \
    --has-n 25 'mpi_send process=1 peer=0 tag=2' \
    "$tmp/trace.ecl"
echo "PASS"
