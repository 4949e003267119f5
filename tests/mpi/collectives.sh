#!/bin/sh
# collectives.sh -- every collective, blocking and nonblocking, with its root
# (world rank) and the bytes each process sends and receives (10 ints = 40
# bytes a piece, 4 ranks, root 1).
. "$top_srcdir/tests/mpi/common.sh"

run 4 "$ex/collectives"
per_rank_files 4
set -- --ranks 4 --order --each mpi_wait=17 --each mpi_allreduce=2
for c in barrier bcast gather gatherv scatter scatterv allgather allgatherv alltoall \
         alltoallv alltoallw reduce reduce_scatter reduce_scatter_block scan exscan; do
    set -- "$@" --each "mpi_$c=1" --each "mpi_i$c=1"
done
check "$@" --each mpi_iallreduce=1 \
    --has-n 17 'mpi_complete process=2 kind=2' \
    --has 'mpi_bcast process=1 root=1 sent=40 recvd=0' \
    --has 'mpi_bcast process=0 root=1 sent=0 recvd=40' \
    --has 'mpi_ibcast process=3 root=1 sent=0 recvd=40' \
    --has 'mpi_gather process=1 root=1 sent=40 recvd=160' \
    --has 'mpi_gather process=2 root=1 sent=40 recvd=0' \
    --has 'mpi_igatherv process=1 sent=40 recvd=160' \
    --has 'mpi_scatter process=1 sent=160 recvd=40' \
    --has 'mpi_scatterv process=0 sent=0 recvd=40' \
    --has 'mpi_allgather process=0 sent=40 recvd=160' \
    --has 'mpi_iallgatherv process=3 sent=40 recvd=160' \
    --has 'mpi_alltoall process=2 sent=160 recvd=160' \
    --has 'mpi_alltoallv process=2 sent=160 recvd=160' \
    --has 'mpi_ialltoallw process=2 sent=160 recvd=160' \
    --has 'mpi_reduce process=1 root=1 sent=40 recvd=40' \
    --has 'mpi_reduce process=0 root=1 sent=40 recvd=0' \
    --has-n 8 'mpi_allreduce sent=40 recvd=40' \
    --has 'mpi_reduce_scatter process=0 sent=160 recvd=40' \
    --has 'mpi_ireduce_scatter_block process=0 sent=160 recvd=40' \
    --has 'mpi_exscan process=3 sent=40 recvd=40' \
    --has-n 0 'mpi_barrier comm=1' \
    "$tmp/trace.ecl"
echo "PASS"
