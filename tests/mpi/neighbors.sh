#!/bin/sh
# neighbors.sh -- neighbourhood collectives on a Cartesian communicator and a
# distributed graph record the bytes of their neighbours (4 blocks on the
# 2-d Cartesian one, 1 on the ring); MPI_Comm_idup's communicator gets the
# same id on every member, announced by the call and named by its
# completion; group creation is recorded with world ranks.
. "$top_srcdir/tests/mpi/common.sh"

run 4 "$ex/neighbors"
no_errors
per_rank_files 4
check --ranks 4 --order --match \
    --each mpi_neighbor_allgather=1 --each mpi_neighbor_allgatherv=1 \
    --each mpi_neighbor_alltoall=2 --each mpi_neighbor_alltoallv=1 --each mpi_neighbor_alltoallw=1 \
    --each mpi_ineighbor_allgather=1 --each mpi_ineighbor_allgatherv=1 \
    --each mpi_ineighbor_alltoall=1 --each mpi_ineighbor_alltoallv=1 \
    --each mpi_ineighbor_alltoallw=1 --has-n 20 'mpi_complete kind=2' \
    --has-n 4 'mpi_neighbor_allgather sent=16 recvd=16' \
    --has-n 4 'mpi_neighbor_alltoallw sent=16 recvd=16' \
    --has-n 4 'mpi_ineighbor_alltoallv sent=16 recvd=16' \
    --has-n 4 'mpi_neighbor_alltoall sent=4 recvd=4' \
    --each mpi_comm_idup=1 --same mpi_comm_idup.newcomm --has-n 4 'mpi_complete kind=6' \
    --each mpi_comm_dup_with_info=1 --same mpi_comm_dup_with_info.newcomm \
    --each mpi_comm_split_type=1 --each mpi_dist_graph_create_adjacent=1 \
    --has 'mpi_send process=0 peer=1 tag=3' \
    --each mpi_comm_group=1 --each mpi_group_incl=1 --each mpi_group_excl=1 \
    --each mpi_group_range_excl=1 --each mpi_group_union=1 --each mpi_group_intersection=1 \
    --each mpi_group_difference=1 --each mpi_group_free=7 \
    "$tmp/trace.ecl"
# the idup's communicator is the one the send names
idup=$("$paldump" -t mpi_comm_idup -p 0 "$tmp/trace.ecl" | sed 's/.*newcomm=\([0-9]*\).*/\1/')
"$paldump" -t mpi_send -p 0 "$tmp/trace.ecl" | grep -q "comm=$idup " ||
    fail "the send over MPI_Comm_idup's communicator does not name id $idup"
"$paldump" -t mpi_group -p 3 "$tmp/trace.ecl" | grep -q 'size=2 ranks="1-2"' ||
    fail "no definition of the group of world ranks 1-2"
echo "PASS"
