/* ring.c -- blocking ring: a token travels ROUNDS times around all ranks with
 * MPI_Send/MPI_Recv, growing by one int per round. Plain MPI (no ECL call):
 * the tests trace it both linked with -lecl and unmodified under ecl-run.
 *
 *   mpirun -np 4 ./ring [ROUNDS]
 * Per rank: ROUNDS sends, ROUNDS receives, one barrier. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size, rounds = argc > 1 ? atoi(argv[1]) : 10;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int *token = calloc((size_t)rounds + 1, sizeof *token);
    if (token == NULL)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (int r = 0; r < rounds; r++) {
        int n = r + 1;                  /* ints in this round's message */
        if (rank == 0) {
            token[r] = r;
            MPI_Send(token, n, MPI_INT, next, r, MPI_COMM_WORLD);
            MPI_Recv(token, n, MPI_INT, prev, r, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Status st;
            MPI_Recv(token, n, MPI_INT, prev, r, MPI_COMM_WORLD, &st);
            MPI_Send(token, n, MPI_INT, next, r, MPI_COMM_WORLD);
        }
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("ring: %d rounds over %d ranks\n", rounds, size);
    free(token);
    MPI_Finalize();
    return 0;
}
