#!/bin/sh
# onesided.sh -- windows, fences, locks, flushes and RMA calls with their
# targets as world ranks and their bytes.
. "$top_srcdir/tests/mpi/common.sh"

run 4 "$ex/onesided"
per_rank_files 4
check --ranks 4 --order \
    --each mpi_win_create=1 --each mpi_win_allocate=1 --each mpi_win_free=2 \
    --each mpi_win_fence=4 --each mpi_put=2 --each mpi_get=1 --each mpi_accumulate=1 \
    --each mpi_win_lock=2 --each mpi_win_unlock=2 --each mpi_win_flush=1 \
    --each mpi_win_lock_all=1 --each mpi_win_unlock_all=1 --each mpi_fetch_and_op=1 \
    --each mpi_compare_and_swap=1 --each mpi_get_accumulate=1 --each mpi_win_flush_all=1 \
    --each mpi_win_flush_local=1 \
    --has 'mpi_put process=0 peer=1 bytes=64 disp=0' --has 'mpi_put process=3 peer=0 bytes=8 disp=1' \
    --has 'mpi_get process=0 peer=3 bytes=64' --has 'mpi_accumulate process=2 peer=0 bytes=4' \
    --has 'mpi_win_lock process=1 peer=2' --has 'mpi_win_unlock process=1 peer=2' \
    --has 'mpi_fetch_and_op process=3 peer=0 bytes=4' \
    --has 'mpi_compare_and_swap process=2 peer=0 bytes=4 disp=5' \
    --has 'mpi_get_accumulate process=1 peer=0 bytes=4 result_bytes=4' \
    --has 'mpi_win_create process=0 size=64' \
    --same mpi_win_create.win --same mpi_win_allocate.win --same mpi_win_create.comm \
    "$tmp/trace.ecl"
echo "PASS"
