/* posixio.c -- POSIX I/O beside MPI: every rank writes its own file with
 * write(), syncs and closes it, opens it again, reads it back with read()
 * to the end and once more with pread(), checks what it read, closes and
 * removes it. Traced with ECL_GROUPS=all (or io), every call is an io_call
 * record; the OTF2 export writes them as IoOperation events.
 *
 *   ECL_GROUPS=all mpirun -np 4 ./posixio [DIR]
 * Per rank, on DIR/posixio.RANK (DIR default "."): 1 open and 8 writes of
 * 4 KiB, 1 fsync, 1 close; 1 open, 9 reads (8 of 4 KiB, 1 of 0 at the end),
 * 1 pread of 4 KiB, 1 close: 32 KiB written, 36 KiB read. */
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define BLOCK 4096
#define BLOCKS 8

int main(int argc, char **argv)
{
    int rank;
    char path[4096];
    static unsigned char out[BLOCK], in[BLOCK];
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    snprintf(path, sizeof path, "%s/posixio.%d", argc > 1 ? argv[1] : ".", rank);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0) {
        perror(path);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (int b = 0; b < BLOCKS; b++) {
        memset(out, (rank * BLOCKS + b) & 0xff, sizeof out);
        if (write(fd, out, sizeof out) != (ssize_t)sizeof out) {
            perror(path);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
    }
    fsync(fd);
    close(fd);
    MPI_Barrier(MPI_COMM_WORLD);
    fd = open(path, O_RDONLY);
    if (fd < 0) {
        perror(path);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int bad = 0;
    ssize_t n;
    for (int b = 0; (n = read(fd, in, sizeof in)) > 0; b++)
        bad |= n != (ssize_t)sizeof in || in[0] != ((rank * BLOCKS + b) & 0xff);
    bad |= pread(fd, in, sizeof in, BLOCK) != (ssize_t)sizeof in ||
           in[BLOCK - 1] != ((rank * BLOCKS + 1) & 0xff);
    close(fd);
    unlink(path);
    if (bad)
        fprintf(stderr, "posixio: rank %d read back other data than it wrote\n", rank);
    MPI_Finalize();
    return bad;
}
