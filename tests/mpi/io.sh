#!/bin/sh
# io.sh -- MPI-IO reads and writes with the bytes they moved.
. "$top_srcdir/tests/mpi/common.sh"

run 4 "$ex/io" "$tmp/io.dat"
per_rank_files 4
check --ranks 4 --order \
    --each mpi_file_open=1 --each mpi_file_close=1 --each mpi_file_write_at=1 \
    --each mpi_file_read_at=1 --each mpi_file_write_at_all=1 --each mpi_file_read_at_all=1 \
    --each mpi_file_write=1 --each mpi_file_read=1 --each mpi_file_iwrite=1 \
    --each mpi_file_iread=1 --each mpi_file_write_all=1 --each mpi_file_read_all=1 \
    --each mpi_wait=2 \
    --has-n 4 'mpi_file_write_at bytes=4096' --has-n 4 'mpi_file_read_at_all bytes=4096' \
    --has 'mpi_file_write_at process=1 offset=4096' \
    --has-n 4 'mpi_file_write bytes=1024' --has-n 4 'mpi_file_read bytes=1024' \
    --has-n 8 'mpi_complete kind=3 bytes=1024' --has-n 4 'mpi_file_write_all bytes=0' \
    --same mpi_file_open.file --same mpi_file_close.file \
    "$tmp/trace.ecl"
"$paldump" -t mpi_file_open -p 0 "$tmp/trace.ecl" | grep -q "name=\"$tmp/io.dat\"" ||
    fail "the file name is not in the trace"
echo "PASS"
