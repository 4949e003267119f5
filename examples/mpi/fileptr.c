/* fileptr.c -- MPI-IO beyond explicit offsets and individual file pointers:
 * a file view, the shared file pointer (ordered and unordered, blocking and
 * nonblocking), nonblocking collective and independent I/O, split
 * collectives, size, preallocation, sync, the file's group and deletion.
 * Prints " No Errors" when everything read back is what was written.
 *
 *   mpirun -np 4 ./fileptr [FILE]   (any number of ranks; default
 *                                   fileptr.dat in the current directory)
 * With the view of ints, the file is: [0, n) ordered writes (rank r writes
 * r), [n, 2n) shared-pointer writes, [2n, 3n) nonblocking collective,
 * [3n, 4n) nonblocking independent, [4n, 5n) split collective. */
#include <mpi.h>
#include <stdio.h>

#define MTEST_PROG "fileptr"
#include "mtest.h"

int main(int argc, char **argv)
{
    int rank, size, x;
    const char *path = argc > 1 ? argv[1] : "fileptr.dat";
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_File fh;
    MPI_Status st;
    MPI_Request r;
    if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR, MPI_INFO_NULL,
                      &fh) != MPI_SUCCESS) {
        fprintf(stderr, "fileptr: cannot open '%s'\n", path);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_File_set_size(fh, 0);
    MPI_File_preallocate(fh, (MPI_Offset)(5 * size * sizeof(int)));
    MPI_File_set_view(fh, 0, MPI_INT, MPI_INT, "native", MPI_INFO_NULL);

    /* ordered: rank order */
    MPI_File_write_ordered(fh, &rank, 1, MPI_INT, &st);
    MPI_File_seek_shared(fh, 0, MPI_SEEK_SET);
    MPI_File_read_ordered(fh, &x, 1, MPI_INT, &st);
    expect(x, rank, "MPI_File_read_ordered");

    /* the shared pointer, any order: every value once */
    MPI_File_seek_shared(fh, size, MPI_SEEK_SET);
    x = 100 + rank;
    MPI_File_write_shared(fh, &x, 1, MPI_INT, &st);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    MPI_File_seek_shared(fh, size, MPI_SEEK_SET);
    MPI_File_iread_shared(fh, &x, 1, MPI_INT, &r);
    MPI_Wait(&r, &st);
    int seen = 0, all = 0;
    if (x >= 100 && x < 100 + size)
        seen = 1 << (x - 100);
    MPI_Allreduce(&seen, &all, 1, MPI_INT, MPI_BOR, MPI_COMM_WORLD);
    expect(all, (1 << size) - 1, "values read through the shared pointer");
    MPI_File_seek_shared(fh, 0, MPI_SEEK_END);
    MPI_File_iwrite_shared(fh, &x, 0, MPI_INT, &r);
    MPI_Wait(&r, &st);

    /* nonblocking collective and independent */
    x = 200 + rank;
    MPI_File_iwrite_at_all(fh, 2 * size + rank, &x, 1, MPI_INT, &r);
    MPI_Wait(&r, &st);
    x = 300 + rank;
    MPI_File_iwrite_at(fh, 3 * size + rank, &x, 1, MPI_INT, &r);
    MPI_Wait(&r, &st);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    MPI_File_iread_at_all(fh, 2 * size + rank, &x, 1, MPI_INT, &r);
    MPI_Wait(&r, &st);
    expect(x, 200 + rank, "MPI_File_iread_at_all");
    MPI_File_iread_at(fh, 3 * size + rank, &x, 1, MPI_INT, &r);
    MPI_Wait(&r, &st);
    expect(x, 300 + rank, "MPI_File_iread_at");
    MPI_File_seek(fh, 3 * size + rank, MPI_SEEK_SET);
    MPI_File_iread_all(fh, &x, 1, MPI_INT, &r);
    MPI_Wait(&r, &st);
    expect(x, 300 + rank, "MPI_File_iread_all");
    MPI_File_seek(fh, 3 * size + rank, MPI_SEEK_SET);
    MPI_File_iwrite_all(fh, &x, 1, MPI_INT, &r);
    MPI_Wait(&r, &st);

    /* split collectives */
    x = 400 + rank;
    MPI_File_write_at_all_begin(fh, 4 * size + rank, &x, 1, MPI_INT);
    MPI_File_write_at_all_end(fh, &x, &st);
    MPI_File_sync(fh);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_File_sync(fh);
    MPI_File_read_at_all_begin(fh, 4 * size + rank, &x, 1, MPI_INT);
    MPI_File_read_at_all_end(fh, &x, &st);
    expect(x, 400 + rank, "MPI_File_read_at_all_begin/_end");
    MPI_File_seek(fh, 4 * size + rank, MPI_SEEK_SET);
    MPI_File_read_all_begin(fh, &x, 1, MPI_INT);
    MPI_File_read_all_end(fh, &x, &st);
    expect(x, 400 + rank, "MPI_File_read_all_begin/_end");
    MPI_File_seek(fh, 4 * size + rank, MPI_SEEK_SET);
    MPI_File_write_all_begin(fh, &x, 1, MPI_INT);
    MPI_File_write_all_end(fh, &x, &st);
    MPI_File_seek_shared(fh, 0, MPI_SEEK_SET);
    MPI_File_read_ordered_begin(fh, &x, 1, MPI_INT);
    MPI_File_read_ordered_end(fh, &x, &st);
    expect(x, rank, "MPI_File_read_ordered_begin/_end");
    MPI_File_seek_shared(fh, 0, MPI_SEEK_SET);
    MPI_File_write_ordered_begin(fh, &x, 1, MPI_INT);
    MPI_File_write_ordered_end(fh, &x, &st);

    MPI_Group g;
    int gs;
    MPI_File_get_group(fh, &g);
    MPI_Group_size(g, &gs);
    expect(gs, size, "size of the file's group");
    MPI_Group_free(&g);
    MPI_File_set_atomicity(fh, 1);
    MPI_File_close(&fh);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        MPI_File_delete(path, MPI_INFO_NULL);

    return mtest_finish();
}
