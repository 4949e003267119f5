/* io.c -- MPI-IO: every rank writes its block of a shared file at an
 * explicit offset (independently and collectively), reads it back, and
 * writes and reads through its individual file pointer, blocking and
 * nonblocking. The file is FILE (default io.dat), removed at the end.
 *
 *   mpirun -np 4 ./io [FILE]
 * Per rank: 1 open, 1 close, 2 x 4 KiB written and read at offsets, 1 KiB
 * written and read with write/read and iwrite/iread. */
#include <mpi.h>
#include <stdio.h>

#define BLOCK 1024               /* ints per rank: 4 KiB */
#define SMALL 256

int main(int argc, char **argv)
{
    int rank, size;
    const char *path = argc > 1 ? argv[1] : "io.dat";
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    static int out[BLOCK], in[BLOCK];
    for (int i = 0; i < BLOCK; i++)
        out[i] = rank * BLOCK + i;
    MPI_File fh;
    if (MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE | MPI_MODE_RDWR | MPI_MODE_DELETE_ON_CLOSE,
                      MPI_INFO_NULL, &fh) != MPI_SUCCESS)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Offset off = (MPI_Offset)rank * BLOCK * (MPI_Offset)sizeof(int);
    MPI_File_write_at(fh, off, out, BLOCK, MPI_INT, MPI_STATUS_IGNORE);
    MPI_File_read_at(fh, off, in, BLOCK, MPI_INT, MPI_STATUS_IGNORE);
    MPI_Offset off2 = off + (MPI_Offset)size * BLOCK * (MPI_Offset)sizeof(int);
    MPI_File_write_at_all(fh, off2, out, BLOCK, MPI_INT, MPI_STATUS_IGNORE);
    MPI_File_read_at_all(fh, off2, in, BLOCK, MPI_INT, MPI_STATUS_IGNORE);
    /* the individual file pointer, in a region of its own */
    MPI_Offset off3 = 2 * (MPI_Offset)size * BLOCK * (MPI_Offset)sizeof(int) +
                      (MPI_Offset)rank * 2 * SMALL * (MPI_Offset)sizeof(int);
    MPI_Status st;
    MPI_Request q;
    MPI_File_seek(fh, off3, MPI_SEEK_SET);
    MPI_File_write(fh, out, SMALL, MPI_INT, &st);
    MPI_File_iwrite(fh, out, SMALL, MPI_INT, &q);
    MPI_Wait(&q, &st);
    MPI_File_seek(fh, off3, MPI_SEEK_SET);
    MPI_File_read(fh, in, SMALL, MPI_INT, &st);
    MPI_File_iread(fh, in, SMALL, MPI_INT, &q);
    MPI_Wait(&q, MPI_STATUS_IGNORE);
    MPI_File_write_all(fh, out, 0, MPI_INT, MPI_STATUS_IGNORE);
    MPI_File_read_all(fh, in, 0, MPI_INT, MPI_STATUS_IGNORE);
    MPI_File_close(&fh);
    if (rank == 0)
        printf("io: %d ranks wrote and read back %d bytes each\n", size,
               (int)(2 * BLOCK * sizeof(int) + 2 * SMALL * sizeof(int)));
    MPI_Finalize();
    return 0;
}
