#!/bin/sh
# windows.sh -- post/start/complete/wait epochs (and MPI_Win_test), dynamic
# windows with attached memory, shared-memory windows and request-based RMA
# are recorded, with targets as world ranks and every request completed.
. "$top_srcdir/tests/mpi/common.sh"

run 4 "$ex/windows"
no_errors
per_rank_files 4
check --ranks 4 --order --match \
    --count mpi_win_post=2 --count mpi_win_start=6 --count mpi_win_complete=6 \
    --count mpi_win_wait=1 --has 'mpi_win_test process=0 flag=1' \
    --has-n 1 'mpi_put process=0' --has-n 3 'mpi_put process=1' --has 'mpi_put process=2 peer=0 bytes=4' \
    --each mpi_win_create_dynamic=1 --each mpi_win_attach=1 --each mpi_win_detach=1 \
    --has 'mpi_put process=3 peer=0 bytes=4' --has 'mpi_win_flush process=1 peer=2' \
    --each mpi_win_allocate_shared=1 --each mpi_win_shared_query=1 --each mpi_win_sync=2 \
    --has 'mpi_win_shared_query process=2 peer=0 size=4 disp_unit=4' \
    --each mpi_rput=1 --each mpi_rget=1 --each mpi_raccumulate=1 --each mpi_rget_accumulate=1 \
    --has 'mpi_rput process=3 peer=0 bytes=4' --has 'mpi_raccumulate process=3 peer=0 bytes=4' \
    --has-n 16 'mpi_complete kind=5 flags=0' --each mpi_win_flush_local_all=1 \
    --each mpi_win_free=4 \
    --same mpi_win_create_dynamic.win --same mpi_win_allocate_shared.win \
    "$tmp/trace.ecl"
# the post/start groups are defined with their world ranks
"$paldump" -t mpi_group -p 0 "$tmp/trace.ecl" | grep -q 'size=3 ranks="1-3"' ||
    fail "rank 0's post group (world 1-3) is not defined"
echo "PASS"
