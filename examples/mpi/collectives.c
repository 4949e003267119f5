/* collectives.c -- every MPI-3.1 collective once, blocking then
 * nonblocking (each completed with MPI_Wait), rooted ones at root 1, plus an
 * MPI_IN_PLACE reduction. Counts are COUNT ints per process (per pair for the
 * all-to-all ones), so the bytes in the trace are predictable.
 *
 *   mpirun -np 4 ./collectives
 * Per rank: one record of each of the 34 collectives, 17 waits. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define COUNT 10

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm comm = MPI_COMM_WORLD;
    const int root = 1 % size;
    int n = COUNT * size;
    int *s = malloc(sizeof(int) * (size_t)n), *r = malloc(sizeof(int) * (size_t)n);
    int *counts = malloc(sizeof(int) * (size_t)size), *displs = malloc(sizeof(int) * (size_t)size);
    int *rcounts = malloc(sizeof(int) * (size_t)size);
    MPI_Datatype *types = malloc(sizeof(MPI_Datatype) * (size_t)size);
    if (!s || !r || !counts || !displs || !rcounts || !types)
        MPI_Abort(comm, 1);
    for (int i = 0; i < n; i++)
        s[i] = rank * 1000 + i;
    for (int i = 0; i < size; i++) {
        counts[i] = COUNT;
        displs[i] = COUNT * i;
        rcounts[i] = COUNT;
        types[i] = MPI_INT;
    }

    for (int nb = 0; nb < 2; nb++) {
        MPI_Request q = MPI_REQUEST_NULL;
#define RUN(blocking, nonblocking)                          \
        do {                                                \
            if (!nb) {                                      \
                blocking;                                   \
            } else {                                        \
                nonblocking;                                \
                MPI_Wait(&q, MPI_STATUS_IGNORE);            \
            }                                               \
        } while (0)
        RUN(MPI_Barrier(comm), MPI_Ibarrier(comm, &q));
        RUN(MPI_Bcast(s, COUNT, MPI_INT, root, comm),
            MPI_Ibcast(s, COUNT, MPI_INT, root, comm, &q));
        RUN(MPI_Gather(s, COUNT, MPI_INT, r, COUNT, MPI_INT, root, comm),
            MPI_Igather(s, COUNT, MPI_INT, r, COUNT, MPI_INT, root, comm, &q));
        RUN(MPI_Gatherv(s, COUNT, MPI_INT, r, counts, displs, MPI_INT, root, comm),
            MPI_Igatherv(s, COUNT, MPI_INT, r, counts, displs, MPI_INT, root, comm, &q));
        RUN(MPI_Scatter(s, COUNT, MPI_INT, r, COUNT, MPI_INT, root, comm),
            MPI_Iscatter(s, COUNT, MPI_INT, r, COUNT, MPI_INT, root, comm, &q));
        RUN(MPI_Scatterv(s, counts, displs, MPI_INT, r, COUNT, MPI_INT, root, comm),
            MPI_Iscatterv(s, counts, displs, MPI_INT, r, COUNT, MPI_INT, root, comm, &q));
        RUN(MPI_Allgather(s, COUNT, MPI_INT, r, COUNT, MPI_INT, comm),
            MPI_Iallgather(s, COUNT, MPI_INT, r, COUNT, MPI_INT, comm, &q));
        RUN(MPI_Allgatherv(s, COUNT, MPI_INT, r, counts, displs, MPI_INT, comm),
            MPI_Iallgatherv(s, COUNT, MPI_INT, r, counts, displs, MPI_INT, comm, &q));
        RUN(MPI_Alltoall(s, COUNT, MPI_INT, r, COUNT, MPI_INT, comm),
            MPI_Ialltoall(s, COUNT, MPI_INT, r, COUNT, MPI_INT, comm, &q));
        RUN(MPI_Alltoallv(s, counts, displs, MPI_INT, r, counts, displs, MPI_INT, comm),
            MPI_Ialltoallv(s, counts, displs, MPI_INT, r, counts, displs, MPI_INT, comm, &q));
        int bdispls[64];
        for (int i = 0; i < size && i < 64; i++)
            bdispls[i] = displs[i] * (int)sizeof(int);
        RUN(MPI_Alltoallw(s, counts, bdispls, types, r, counts, bdispls, types, comm),
            MPI_Ialltoallw(s, counts, bdispls, types, r, counts, bdispls, types, comm, &q));
        RUN(MPI_Reduce(s, r, COUNT, MPI_INT, MPI_SUM, root, comm),
            MPI_Ireduce(s, r, COUNT, MPI_INT, MPI_SUM, root, comm, &q));
        RUN(MPI_Allreduce(s, r, COUNT, MPI_INT, MPI_MAX, comm),
            MPI_Iallreduce(s, r, COUNT, MPI_INT, MPI_MAX, comm, &q));
        RUN(MPI_Reduce_scatter(s, r, rcounts, MPI_INT, MPI_SUM, comm),
            MPI_Ireduce_scatter(s, r, rcounts, MPI_INT, MPI_SUM, comm, &q));
        RUN(MPI_Reduce_scatter_block(s, r, COUNT, MPI_INT, MPI_SUM, comm),
            MPI_Ireduce_scatter_block(s, r, COUNT, MPI_INT, MPI_SUM, comm, &q));
        RUN(MPI_Scan(s, r, COUNT, MPI_INT, MPI_SUM, comm),
            MPI_Iscan(s, r, COUNT, MPI_INT, MPI_SUM, comm, &q));
        RUN(MPI_Exscan(s, r, COUNT, MPI_INT, MPI_SUM, comm),
            MPI_Iexscan(s, r, COUNT, MPI_INT, MPI_SUM, comm, &q));
    }
    /* in place: nothing is sent from a separate buffer */
    for (int i = 0; i < COUNT; i++)
        r[i] = rank;
    MPI_Allreduce(MPI_IN_PLACE, r, COUNT, MPI_INT, MPI_SUM, comm);
    if (rank == 0)
        printf("collectives: sum of ranks %d on %d ranks\n", r[0], size);
    free(s);
    free(r);
    free(counts);
    free(displs);
    free(rcounts);
    free(types);
    MPI_Finalize();
    return 0;
}
