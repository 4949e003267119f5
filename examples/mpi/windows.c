/* windows.c -- one-sided communication beyond fences and locks:
 * post/start/complete/wait epochs (and MPI_Win_test), a dynamic window with
 * attached memory, a shared-memory window (MPI_Win_shared_query,
 * MPI_Win_sync) and request-based operations (MPI_Rput, MPI_Rget,
 * MPI_Raccumulate, MPI_Rget_accumulate). Prints " No Errors" when every value
 * arrived.
 *
 *   mpirun -np 4 ./windows          (any number of ranks >= 2) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define MTEST_PROG "windows"
#include "mtest.h"

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2)
        MPI_Abort(MPI_COMM_WORLD, 1);

    /* PSCW, twice: rank 0 exposes its window to the others, which put
     * their rank into slot rank; the first epoch ends with MPI_Win_wait,
     * the second with MPI_Win_test */
    int *slots = calloc((size_t)size, sizeof *slots);
    MPI_Win w;
    MPI_Win_create(slots, (MPI_Aint)(size * sizeof(int)), sizeof(int), MPI_INFO_NULL,
                   MPI_COMM_WORLD, &w);
    MPI_Group wg, g;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    if (rank == 0) {
        int range[1][3] = { { 1, size - 1, 1 } };
        MPI_Group_range_incl(wg, 1, range, &g);
    } else {
        int zero = 0;
        MPI_Group_incl(wg, 1, &zero, &g);
    }
    for (int round = 0; round < 2; round++) {
        if (rank == 0) {
            MPI_Win_post(g, 0, w);
            if (round == 0) {
                MPI_Win_wait(w);
            } else {
                int done = 0;
                while (!done)
                    MPI_Win_test(w, &done);
            }
            for (int r = 1; r < size; r++)
                expect(slots[r], r * (round + 1), "PSCW put");
        } else {
            int v = rank * (round + 1);
            MPI_Win_start(g, 0, w);
            MPI_Put(&v, 1, MPI_INT, 0, rank, 1, MPI_INT, w);
            MPI_Win_complete(w);
        }
    }
    MPI_Group_free(&g);
    MPI_Group_free(&wg);
    MPI_Win_free(&w);

    /* dynamic window: each rank attaches one int and puts its rank into its
     * right neighbour's */
    int slot = -1, right = (rank + 1) % size, left = (rank + size - 1) % size;
    MPI_Win dw;
    MPI_Win_create_dynamic(MPI_INFO_NULL, MPI_COMM_WORLD, &dw);
    MPI_Win_attach(dw, &slot, sizeof slot);
    MPI_Aint mine, *addr = malloc((size_t)size * sizeof *addr);
    MPI_Get_address(&slot, &mine);
    MPI_Allgather(&mine, 1, MPI_AINT, addr, 1, MPI_AINT, MPI_COMM_WORLD);
    MPI_Win_lock_all(0, dw);
    MPI_Put(&rank, 1, MPI_INT, right, addr[right], 1, MPI_INT, dw);
    MPI_Win_flush(right, dw);
    MPI_Win_unlock_all(dw);
    MPI_Barrier(MPI_COMM_WORLD);
    expect(slot, left, "put into attached memory");
    MPI_Win_detach(dw, &slot);
    MPI_Win_free(&dw);
    free(addr);

    /* shared memory among the ranks of a node */
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int nr, ns, *base, *first, du;
    MPI_Aint sz;
    MPI_Comm_rank(node, &nr);
    MPI_Comm_size(node, &ns);
    MPI_Win sw;
    MPI_Win_allocate_shared(sizeof(int), sizeof(int), MPI_INFO_NULL, node, &base, &sw);
    MPI_Win_shared_query(sw, 0, &sz, &du, &first);
    MPI_Win_lock_all(0, sw);
    *base = 100 + nr;
    MPI_Win_sync(sw);
    MPI_Barrier(node);
    MPI_Win_sync(sw);
    expect(first[ns - 1], 100 + ns - 1, "shared memory of the node's last rank");
    MPI_Win_unlock_all(sw);
    MPI_Win_free(&sw);
    MPI_Comm_free(&node);

    /* request-based operations in a passive epoch; each rank owns 4 ints:
     * [0] put by its left neighbour, [1] read by it, [2] sum, [3] sum */
    int *mem;
    MPI_Win rw;
    MPI_Win_allocate(4 * sizeof(int), sizeof(int), MPI_INFO_NULL, MPI_COMM_WORLD, &mem, &rw);
    MPI_Win_lock(MPI_LOCK_EXCLUSIVE, rank, 0, rw);
    mem[0] = -1;
    mem[1] = 1000 + rank;
    mem[2] = mem[3] = 0;
    MPI_Win_unlock(rank, rw);
    MPI_Barrier(MPI_COMM_WORLD);
    int got = 0, one = 1, old = 0;
    MPI_Request rq[4];
    MPI_Win_lock_all(0, rw);
    MPI_Rput(&rank, 1, MPI_INT, right, 0, 1, MPI_INT, rw, &rq[0]);
    MPI_Rget(&got, 1, MPI_INT, right, 1, 1, MPI_INT, rw, &rq[1]);
    MPI_Raccumulate(&one, 1, MPI_INT, 0, 2, 1, MPI_INT, MPI_SUM, rw, &rq[2]);
    MPI_Rget_accumulate(&one, 1, MPI_INT, &old, 1, MPI_INT, 0, 3, 1, MPI_INT, MPI_SUM, rw,
                        &rq[3]);
    MPI_Waitall(4, rq, MPI_STATUSES_IGNORE);
    MPI_Win_flush_local_all(rw);
    MPI_Win_unlock_all(rw);
    MPI_Barrier(MPI_COMM_WORLD);
    expect(got, 1000 + right, "MPI_Rget");
    MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, rw);
    expect(mem[0], left, "MPI_Rput");
    if (rank == 0) {
        expect(mem[2], size, "MPI_Raccumulate");
        expect(mem[3], size, "MPI_Rget_accumulate");
    }
    MPI_Win_unlock(rank, rw);
    MPI_Win_free(&rw);
    free(slots);

    return mtest_finish();
}
