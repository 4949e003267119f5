/* install-app.c -- the program the install tests (install.sh,
 * install-default.sh) build as a user would, `mpicc app.c -lecl`: rank 0
 * sends one int to rank 1 inside an ECL region "exchange". */
#include <mpi.h>
#include <ecl.h>
int main(int argc, char **argv)
{
    int rank, v = 42;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    ECL_ENTER("exchange");
    if (rank == 0)
        MPI_Send(&v, 1, MPI_INT, 1, 7, MPI_COMM_WORLD);
    else if (rank == 1)
        MPI_Recv(&v, 1, MPI_INT, 0, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    ECL_LEAVE("exchange");
    MPI_Finalize();
    return v != 42;
}
