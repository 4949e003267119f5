/* intercomm.c -- intercommunicators: the even and odd halves of world joined
 * by MPI_Intercomm_create, then duplicated, split, created from a group and
 * duplicated without blocking; point-to-point and a rooted collective
 * (MPI_ROOT) across them; merged back into an intracommunicator, from which
 * MPI_Comm_create_group makes one more. Prints " No Errors" (the convention
 * of MPI test suites) when every value arrived.
 *
 *   mpirun -np 4 ./intercomm        (an even number of ranks >= 4)
 * Halves: world 0 2 ... (local rank = world rank / 2) and 1 3 ...; their
 * leaders are world 0 and 1. Across the intercommunicator the even leader
 * sends tag 20 + r to rank r of the odd half, and broadcasts as MPI_ROOT. */
#include <mpi.h>
#include <stdio.h>

#define MTEST_PROG "intercomm"
#include "mtest.h"

/* leader of the even half to every odd process, over ic */
static void leader_to_odd(MPI_Comm ic, int color, int lr, int tag)
{
    int rsize, x;
    MPI_Comm_remote_size(ic, &rsize);
    if (color == 0 && lr == 0) {
        for (int r = 0; r < rsize; r++) {
            x = tag + r;
            MPI_Send(&x, 1, MPI_INT, r, tag + r, ic);
        }
    } else if (color == 1) {
        MPI_Recv(&x, 1, MPI_INT, 0, tag + lr, ic, MPI_STATUS_IGNORE);
        expect(x, tag + lr, "message across the intercommunicator");
    }
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 4 || size % 2) {
        if (rank == 0)
            fprintf(stderr, "intercomm: needs an even number of ranks, at least 4\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int color = rank % 2, lr, flag = 0;
    MPI_Comm half, inter, dup, split, created, idup, merged, sub;
    MPI_Comm_split(MPI_COMM_WORLD, color, rank, &half);
    MPI_Comm_rank(half, &lr);
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - color, 10, &inter);
    MPI_Comm_test_inter(inter, &flag);
    expect(flag, 1, "MPI_Intercomm_create makes an intercommunicator");

    /* communicators made from the intercommunicator are intercommunicators */
    MPI_Comm_dup(inter, &dup);
    MPI_Comm_split(inter, 0, lr, &split);
    MPI_Group g;
    MPI_Comm_group(inter, &g);
    MPI_Comm_create(inter, g, &created);
    MPI_Group_free(&g);
    MPI_Request rq;
    MPI_Comm_idup(inter, &idup, &rq);
    MPI_Wait(&rq, MPI_STATUS_IGNORE);
    MPI_Comm cs[4] = { dup, split, created, idup };
    for (int i = 0; i < 4; i++) {
        MPI_Comm_test_inter(cs[i], &flag);
        expect(flag, 1, "a communicator made from an intercommunicator is one");
        leader_to_odd(cs[i], color, lr, 30 + 10 * i);
    }
    leader_to_odd(inter, color, lr, 20);

    /* rooted collective: the even leader is the root of the odd half */
    int v = color == 0 && lr == 0 ? 77 : -1;
    int root = color == 1 ? 0 : lr == 0 ? MPI_ROOT : MPI_PROC_NULL;
    MPI_Bcast(&v, 1, MPI_INT, root, inter);
    if (color == 1)
        expect(v, 77, "MPI_Bcast across the intercommunicator");

    /* merged: evens first (high = 0), then odds */
    MPI_Intercomm_merge(inter, color, &merged);
    int mr, sum = 0;
    MPI_Comm_rank(merged, &mr);
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, merged);
    expect(sum, size * (size - 1) / 2, "MPI_Allreduce over the merged communicator");
    /* the first two of merged (world 0 and 2) make a communicator of their own */
    MPI_Group mg, fg;
    MPI_Comm_group(merged, &mg);
    int two[2] = { 0, 1 };
    MPI_Group_incl(mg, 2, two, &fg);
    if (mr < 2) {
        MPI_Comm_create_group(merged, fg, 5, &sub);
        int x = mr == 0 ? 99 : 0;
        MPI_Bcast(&x, 1, MPI_INT, 0, sub);
        expect(x, 99, "MPI_Bcast over MPI_Comm_create_group's communicator");
        MPI_Comm_free(&sub);
    }
    MPI_Group_free(&fg);
    MPI_Group_free(&mg);

    MPI_Comm_free(&merged);
    for (int i = 0; i < 4; i++)
        MPI_Comm_free(&cs[i]);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&half);
    return mtest_finish();
}
