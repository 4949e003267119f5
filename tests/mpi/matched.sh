#!/bin/sh
# matched.sh -- receives that name no source are paired with their sends:
# MPI_Mprobe/MPI_Mrecv and MPI_Improbe/MPI_Imrecv with MPI_ANY_SOURCE (the
# merged trace read back pairs every send); a receive freed with
# MPI_Request_free is recorded as "completion unknown" and its send is not
# left unmatched (neither by the merge nor by the check); buffered sends and
# generalized requests.
. "$top_srcdir/tests/mpi/common.sh"

run 4 "$ex/matched"
no_errors
per_rank_files 4
grep -q 'sends without a receive' "$tmp/out" && fail "the merge left sends without a receive"
check --ranks 4 --order --match --unknown 1 \
    --count mpi_mprobe=3 --count mpi_mrecv=3 --count mpi_imrecv=3 \
    --has 'mpi_improbe process=0 flag=1' \
    --has 'mpi_mprobe process=0 peer=2 tag=2 bytes=4' \
    --has 'mpi_mrecv process=0 peer=1 tag=1 bytes=4' \
    --has 'mpi_mrecv process=0 peer=3 tag=3 bytes=4' \
    --has 'mpi_imrecv process=0 peer=2 tag=102 bytes=4' \
    --has 'mpi_complete process=0 kind=1 peer=3 tag=103 bytes=4 flags=0' \
    --has-n 1 'mpi_complete process=1 kind=1 peer=2 tag=50 flags=16' \
    --has 'mpi_request_free process=1' \
    --count mpi_buffer_attach=1 --has 'mpi_buffer_detach process=3' \
    --has 'mpi_bsend process=3 peer=1 tag=60' \
    --each mpi_grequest_start=1 --each mpi_grequest_complete=1 --has-n 4 'mpi_complete kind=7' \
    "$tmp/trace.ecl"
# ecl-merge --format=2 (the merge that decodes and pairs messages) says what
# became of the freed receive's send
"$merge" --format=2 -v -o "$tmp/again.ecl" "$tmp"/trace.?.ecl 2> "$tmp/merge.out" || { cat "$tmp/merge.out"; fail "ecl-merge"; }
grep -q '1 sends went to receives freed with MPI_Request_free' "$tmp/merge.out" ||
    { cat "$tmp/merge.out"; fail "ecl-merge does not report the receive of unknown completion"; }
echo "PASS"
