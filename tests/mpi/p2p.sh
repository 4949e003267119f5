#!/bin/sh
# p2p.sh -- every send mode, MPI_Sendrecv(_replace), MPI_Iprobe, the Wait and
# Test variants (MPI_Test on the null request too), a cancelled receive and a
# freed send request.
. "$top_srcdir/tests/mpi/common.sh"

run 4 "$ex/p2p"
per_rank_files 4
check --ranks 4 --order --match \
    --count mpi_ssend=2 --count mpi_bsend=2 --count mpi_rsend=2 --count mpi_issend=2 \
    --count mpi_ibsend=2 --count mpi_irsend=2 --count mpi_sendrecv_replace=2 \
    --count mpi_sendrecv=2 --count mpi_send=2 --count mpi_isend=8 --count mpi_request_free=2 \
    --count mpi_waitany=4 --count mpi_cancel=2 --count mpi_testany=2 --count mpi_irecv=16 \
    --has-n 4 'mpi_recv process=1' \
    --has 'mpi_ssend process=0 peer=1 tag=1 bytes=2' --has 'mpi_bsend process=2 peer=3 tag=2 bytes=4' \
    --has 'mpi_rsend process=0 peer=1 tag=3 bytes=8' \
    --has 'mpi_sendrecv_replace process=0 peer=1 tag=8 bytes=256 source=1 recvtag=9 recvbytes=256' \
    --has 'mpi_iprobe process=1 peer=0 tag=7 flag=1 bytes=128' \
    --has 'mpi_complete process=3 kind=1 peer=2 tag=11 bytes=2048' \
    --has 'mpi_complete process=1 kind=1 peer=-1 tag=99 flags=1' \
    --has 'mpi_waitsome process=1' --has 'mpi_testsome process=3' \
    --has 'mpi_testall process=0 count=3 flag=1' --has 'mpi_test process=1 flag=1' \
    --has 'mpi_test process=1 request=0 flag=1' --has 'mpi_test process=3 request=0 flag=1' \
    "$tmp/trace.ecl"
echo "PASS"
