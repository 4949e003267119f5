/* killed.c -- rank 2 kills itself with SIGKILL after exchanging messages
 * (with a small ECL_BUFFER_SIZE its earlier chunks are in the file); the
 * others are then killed by the launcher while they wait. */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

#include "ecl.h"

int main(int argc, char **argv)
{
    int rank, size, x = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 0; i < 300; i++) {
        int to = (rank + 1) % size, from = (rank + size - 1) % size;
        MPI_Sendrecv(&rank, 1, MPI_INT, to, i, &x, 1, MPI_INT, from, i, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE);
    }
    if (rank == 2) {
        ecl_flush();             /* what it did so far is in the file */
        MPI_Barrier(MPI_COMM_SELF);
        raise(SIGKILL);
    }
    MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 4242, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
