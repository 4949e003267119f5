/* matched.c -- receives the layer must pair with their sends although the
 * receive names no source: matched probes (MPI_Mprobe/MPI_Mrecv and
 * MPI_Improbe/MPI_Imrecv with MPI_ANY_SOURCE and MPI_ANY_TAG), a receive
 * released with MPI_Request_free before it completes, a buffered send
 * (MPI_Buffer_attach/_detach) and a generalized request. Prints " No Errors"
 * when every value arrived.
 *
 *   mpirun -np 4 ./matched          (any number of ranks >= 3)
 * Ranks r > 0 send tag r (value 10 r) and tag 100 + r (value 10 r + 1) to 0;
 * rank 2 sends tag 50 to rank 1, whose receive is freed; the last rank
 * buffers a send of tag 60 to rank 1. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#define MTEST_PROG "matched"
#include "mtest.h"

static int query_fn(void *extra, MPI_Status *st)
{
    (void)extra;
    MPI_Status_set_elements(st, MPI_BYTE, 0);
    MPI_Status_set_cancelled(st, 0);
    st->MPI_SOURCE = MPI_UNDEFINED;
    st->MPI_TAG = MPI_UNDEFINED;
    return MPI_SUCCESS;
}

static int free_fn(void *extra)
{
    (void)extra;
    return MPI_SUCCESS;
}

static int cancel_fn(void *extra, int complete)
{
    (void)extra;
    (void)complete;
    return MPI_SUCCESS;
}

int main(int argc, char **argv)
{
    int rank, size, x;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 3)
        MPI_Abort(MPI_COMM_WORLD, 1);

    if (rank == 0) {
        /* blocking matched probes */
        for (int i = 1; i < size; i++) {
            MPI_Message m;
            MPI_Status st, st2;
            MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &m, &st);
            expect(st.MPI_TAG, st.MPI_SOURCE, "tag of the probed message");
            MPI_Mrecv(&x, 1, MPI_INT, &m, &st2);
            expect(x, 10 * st.MPI_SOURCE, "value received with MPI_Mrecv");
            expect(st2.MPI_SOURCE, st.MPI_SOURCE, "source of MPI_Mrecv");
        }
        MPI_Barrier(MPI_COMM_WORLD);    /* the second round after the first */
        /* nonblocking ones */
        for (int got = 0; got < size - 1;) {
            MPI_Message m;
            MPI_Status st;
            int flag = 0;
            MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &m, &st);
            if (!flag)
                continue;
            MPI_Request r;
            MPI_Imrecv(&x, 1, MPI_INT, &m, &r);
            MPI_Wait(&r, &st);
            expect(x, 10 * (st.MPI_TAG - 100) + 1, "value received with MPI_Imrecv");
            got++;
        }
    } else {
        x = 10 * rank;
        MPI_Send(&x, 1, MPI_INT, 0, rank, MPI_COMM_WORLD);
        MPI_Barrier(MPI_COMM_WORLD);
        x = 10 * rank + 1;
        MPI_Send(&x, 1, MPI_INT, 0, 100 + rank, MPI_COMM_WORLD);
    }

    /* a receive freed before it completes: it still takes the message */
    static int freed = -1;
    if (rank == 1) {
        MPI_Request r;
        MPI_Irecv(&freed, 1, MPI_INT, 2, 50, MPI_COMM_WORLD, &r);
        MPI_Request_free(&r);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 2) {
        x = 50;
        MPI_Ssend(&x, 1, MPI_INT, 1, 50, MPI_COMM_WORLD);
    }

    /* a buffered send */
    if (rank == size - 1) {
        int bsize = MPI_BSEND_OVERHEAD + (int)sizeof(int);
        char *buf = malloc((size_t)bsize);
        void *back;
        MPI_Buffer_attach(buf, bsize);
        x = 60;
        MPI_Bsend(&x, 1, MPI_INT, 1, 60, MPI_COMM_WORLD);
        MPI_Buffer_detach(&back, &bsize);
        free(buf);
    } else if (rank == 1) {
        MPI_Recv(&x, 1, MPI_INT, size - 1, 60, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        expect(x, 60, "buffered message");
    }

    /* a generalized request, completed at once */
    MPI_Request g;
    MPI_Grequest_start(query_fn, free_fn, cancel_fn, NULL, &g);
    MPI_Grequest_complete(g);
    MPI_Wait(&g, MPI_STATUS_IGNORE);

    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 1)
        expect(freed, 50, "the message of the freed receive");
    return mtest_finish();
}
