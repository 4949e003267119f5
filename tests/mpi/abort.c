/* abort.c -- rank 1 calls MPI_Abort in the middle of a run while the others
 * wait in a receive that never completes; Open MPI then kills them. Before
 * that every rank did some traffic. The test checks what survives. */
#include <mpi.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int rank, size, x = 0;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int i = 0; i < 20; i++)
        MPI_Allreduce(&rank, &x, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 1) {
        usleep(100000);
        MPI_Abort(MPI_COMM_WORLD, 3);
    }
    MPI_Recv(&x, 1, MPI_INT, MPI_ANY_SOURCE, 42, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}
