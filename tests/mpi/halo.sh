#!/bin/sh
# halo.sh -- Isend/Irecv/Waitall, persistent requests, and the ECL API
# (regions, a marker, user types registered in rank-dependent order) in one
# trace.
. "$top_srcdir/tests/mpi/common.sh"

run 4 "$ex/halo" 10
per_rank_files 4
check --ranks 4 --order --match \
    --each mpi_irecv=20 --each mpi_isend=20 --each mpi_waitall=20 \
    --each mpi_recv_init=2 --each mpi_send_init=2 --each mpi_startall=10 --each mpi_started=40 \
    --each mpi_request_free=4 --each mpi_allreduce=1 --each mpi_complete=80 \
    --each enter=40 --each leave=40 --each marker=1 --each region_def=2 \
    --each halo_iteration=20 --each halo_norm=1 \
    --has 'mpi_isend process=1 peer=2 tag=1 bytes=8' \
    --has 'mpi_irecv process=1 peer=0 tag=1 bytes=8' \
    --has 'mpi_complete process=1 kind=1 peer=0 tag=1 bytes=8' \
    --has 'mpi_started process=2 kind=0 peer=3 tag=3 bytes=64' \
    --has 'mpi_complete process=3 kind=1 peer=2 tag=3 bytes=64 flags=2' \
    --has 'halo_iteration process=1 iteration=9 phase=2' \
    --has 'halo_iteration process=2 iteration=9 phase=2' \
    "$tmp/trace.ecl"
echo "PASS"
