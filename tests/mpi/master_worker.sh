#!/bin/sh
# master_worker.sh -- MPI_ANY_SOURCE / MPI_ANY_TAG: the trace has the actual
# source, tag and size of every message (from the status).
. "$top_srcdir/tests/mpi/common.sh"

run 4 "$ex/master_worker" 20
per_rank_files 4
check --ranks 4 --order --match \
    --count mpi_send=43 --count mpi_recv=43 --count mpi_probe=20 \
    --has-n 23 'mpi_send process=0' --has-n 20 'mpi_recv process=0' \
    --has-n 20 'mpi_probe process=0' \
    --has-n 3 'mpi_send process=0 tag=2 bytes=0' \
    --has-n 0 'mpi_recv tag=-1' --has-n 0 'mpi_recv peer=-2' --has-n 0 'mpi_probe peer=-2' \
    --has 'mpi_recv process=0 tag=100 bytes=4' --has 'mpi_recv process=0 tag=102 bytes=12' \
    --has 'mpi_probe process=0 tag=101 bytes=8' \
    "$tmp/trace.ecl"
echo "PASS"
