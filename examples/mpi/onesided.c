/* onesided.c -- one-sided communication: a window over a local array with
 * fences around MPI_Put, MPI_Get and MPI_Accumulate; a second window from
 * MPI_Win_allocate with passive-target epochs (lock/unlock, lock_all, flushes)
 * and the atomics (MPI_Fetch_and_op, MPI_Compare_and_swap,
 * MPI_Get_accumulate).
 *
 *   mpirun -np 4 ./onesided
 * Targets: MPI_Put to rank+1, MPI_Get from rank-1, MPI_Accumulate and the
 * atomics to rank 0, locks on rank+1. */
#include <mpi.h>
#include <stdio.h>

#define N 16

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int next = (rank + 1) % size, prev = (rank + size - 1) % size;
    int local[N], got[N], mine[N];
    for (int i = 0; i < N; i++) {
        local[i] = 0;
        mine[i] = rank;
    }

    MPI_Win win;
    MPI_Win_create(local, sizeof local, sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &win);
    MPI_Win_fence(0, win);
    MPI_Put(mine, N, MPI_INT, next, 0, N, MPI_INT, win);
    MPI_Win_fence(0, win);
    MPI_Get(got, N, MPI_INT, prev, 0, N, MPI_INT, win);
    MPI_Win_fence(0, win);
    MPI_Accumulate(mine, 1, MPI_INT, 0, 0, 1, MPI_INT, MPI_SUM, win);
    MPI_Win_fence(0, win);
    MPI_Win_free(&win);

    int *base;
    MPI_Win w2;
    MPI_Win_allocate(N * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &base, &w2);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, w2);
    for (int i = 0; i < N; i++)
        base[i] = 0;
    MPI_Win_unlock(rank, w2);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock(MPI_LOCK_SHARED, next, 0, w2);
    MPI_Put(mine, 2, MPI_INT, next, 1, 2, MPI_INT, w2);
    MPI_Win_flush(next, w2);
    MPI_Win_unlock(next, w2);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_lock_all(0, w2);
    int one = 1, old = 0, cmp = 0, swap = rank + 1, res = 0;
    MPI_Fetch_and_op(&one, &old, MPI_INT, 0, 0, MPI_SUM, w2);
    MPI_Win_flush_local(0, w2);
    MPI_Compare_and_swap(&swap, &cmp, &res, MPI_INT, 0, 5, w2);
    MPI_Get_accumulate(&one, 1, MPI_INT, &res, 1, MPI_INT, 0, 6, 1, MPI_INT, MPI_SUM, w2);
    MPI_Win_flush_all(w2);
    MPI_Win_unlock_all(w2);
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Win_free(&w2);
    if (rank == 0)
        printf("onesided: got %d from rank %d\n", got[0], prev);
    MPI_Finalize();
    return 0;
}
