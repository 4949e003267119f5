#!/bin/sh
# fileptr.sh -- shared and ordered file pointers, nonblocking collective and
# independent I/O, split collectives and the calls on a file's state are
# recorded with the bytes they moved; every I/O request completes.
. "$top_srcdir/tests/mpi/common.sh"

run 4 "$ex/fileptr"
no_errors
per_rank_files 4
[ ! -e "$tmp/fileptr.dat" ] || fail "MPI_File_delete did not delete the file"
check --ranks 4 --order --match \
    --each mpi_file_set_view=1 --each mpi_file_set_size=1 --each mpi_file_preallocate=1 \
    --each mpi_file_write_ordered=1 --each mpi_file_read_ordered=1 --each mpi_file_seek_shared=6 \
    --each mpi_file_write_shared=1 --each mpi_file_iread_shared=1 --each mpi_file_iwrite_shared=1 \
    --each mpi_file_iwrite_at_all=1 --each mpi_file_iread_at_all=1 --each mpi_file_iwrite_at=1 \
    --each mpi_file_iread_at=1 --each mpi_file_iread_all=1 --each mpi_file_iwrite_all=1 \
    --each mpi_file_write_at_all_begin=1 --each mpi_file_write_at_all_end=1 \
    --each mpi_file_read_at_all_begin=1 --each mpi_file_read_at_all_end=1 \
    --each mpi_file_read_all_begin=1 --each mpi_file_read_all_end=1 \
    --each mpi_file_write_all_begin=1 --each mpi_file_write_all_end=1 \
    --each mpi_file_read_ordered_begin=1 --each mpi_file_read_ordered_end=1 \
    --each mpi_file_write_ordered_begin=1 --each mpi_file_write_ordered_end=1 \
    --each mpi_file_sync=6 --each mpi_file_get_group=1 --each mpi_file_set_atomicity=1 \
    --count mpi_file_delete=1 --has 'mpi_file_delete process=0' \
    --has-n 4 'mpi_file_read_ordered bytes=4' --has-n 4 'mpi_file_read_at_all_end bytes=4' \
    --has-n 32 'mpi_complete kind=3 flags=0' --has-n 28 'mpi_complete kind=3 bytes=4' \
    --same mpi_file_set_view.file \
    "$tmp/trace.ecl"
echo "PASS"
