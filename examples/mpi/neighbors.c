/* neighbors.c -- neighbourhood collectives (blocking and nonblocking, every
 * form) on a periodic 2-d Cartesian communicator and on a distributed-graph
 * ring, a nonblocking duplication (MPI_Comm_idup), communicators made with
 * MPI_Comm_dup_with_info and MPI_Comm_split_type, and group algebra. Prints
 * " No Errors" when every value arrived.
 *
 *   mpirun -np 4 ./neighbors        (4 ranks)
 * The Cartesian communicator is a periodic ring of 4 in dimension 0 and a
 * dimension of size 1 without period, whose neighbours are MPI_PROC_NULL:
 * each collective moves 4 blocks, 2 of them to and from no process. */
#include <mpi.h>
#include <stdio.h>

#define MTEST_PROG "neighbors"
#include "mtest.h"

/* what a block from neighbour nb holds: v, or the initial -7 when there is
 * no neighbour */
static int nbv(int nb, int v)
{
    return nb == MPI_PROC_NULL ? -7 : v;
}

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 4) {
        if (rank == 0)
            fprintf(stderr, "neighbors: needs 4 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int dims[2] = { 4, 1 }, periods[2] = { 1, 0 }, cr;
    MPI_Comm cart;
    MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, 0, &cart);
    MPI_Comm_rank(cart, &cr);
    /* the 4 neighbours in MPI's order: -dim0, +dim0, -dim1, +dim1 */
    int nb[4];
    MPI_Cart_shift(cart, 0, 1, &nb[0], &nb[1]);
    MPI_Cart_shift(cart, 1, 1, &nb[2], &nb[3]);

    int in[4] = { -7, -7, -7, -7 }, out[4], counts[4] = { 1, 1, 1, 1 }, displs[4] = { 0, 1, 2, 3 };
    MPI_Aint bdispls[4] = { 0, sizeof(int), 2 * sizeof(int), 3 * sizeof(int) };
    MPI_Datatype types[4] = { MPI_INT, MPI_INT, MPI_INT, MPI_INT };
    MPI_Neighbor_allgather(&cr, 1, MPI_INT, in, 1, MPI_INT, cart);
    for (int k = 0; k < 4; k++)
        expect(in[k], nbv(nb[k], nb[k]), "MPI_Neighbor_allgather");
    MPI_Neighbor_allgatherv(&cr, 1, MPI_INT, in, counts, displs, MPI_INT, cart);
    for (int k = 0; k < 4; k++)
        expect(in[k], nbv(nb[k], nb[k]), "MPI_Neighbor_allgatherv");
    /* block k goes to neighbour k, which receives it as block k ^ 1 */
    for (int k = 0; k < 4; k++)
        out[k] = 10 * cr + k;
    MPI_Neighbor_alltoall(out, 1, MPI_INT, in, 1, MPI_INT, cart);
    for (int k = 0; k < 4; k++)
        expect(in[k], nbv(nb[k], 10 * nb[k] + (k ^ 1)), "MPI_Neighbor_alltoall");
    MPI_Neighbor_alltoallv(out, counts, displs, MPI_INT, in, counts, displs, MPI_INT, cart);
    for (int k = 0; k < 4; k++)
        expect(in[k], nbv(nb[k], 10 * nb[k] + (k ^ 1)), "MPI_Neighbor_alltoallv");
    MPI_Neighbor_alltoallw(out, counts, bdispls, types, in, counts, bdispls, types, cart);
    for (int k = 0; k < 4; k++)
        expect(in[k], nbv(nb[k], 10 * nb[k] + (k ^ 1)), "MPI_Neighbor_alltoallw");
    MPI_Request rq[5];
    int in2[5][4] = { { -7, -7, -7, -7 }, { -7, -7, -7, -7 }, { -7, -7, -7, -7 },
                      { -7, -7, -7, -7 }, { -7, -7, -7, -7 } };
    MPI_Ineighbor_allgather(&cr, 1, MPI_INT, in2[0], 1, MPI_INT, cart, &rq[0]);
    MPI_Ineighbor_allgatherv(&cr, 1, MPI_INT, in2[1], counts, displs, MPI_INT, cart, &rq[1]);
    MPI_Ineighbor_alltoall(out, 1, MPI_INT, in2[2], 1, MPI_INT, cart, &rq[2]);
    MPI_Ineighbor_alltoallv(out, counts, displs, MPI_INT, in2[3], counts, displs, MPI_INT, cart,
                            &rq[3]);
    MPI_Ineighbor_alltoallw(out, counts, bdispls, types, in2[4], counts, bdispls, types, cart,
                            &rq[4]);
    MPI_Waitall(5, rq, MPI_STATUSES_IGNORE);
    for (int k = 0; k < 4; k++) {
        expect(in2[0][k], nbv(nb[k], nb[k]), "MPI_Ineighbor_allgather");
        expect(in2[4][k], nbv(nb[k], 10 * nb[k] + (k ^ 1)), "MPI_Ineighbor_alltoallw");
    }

    /* a directed ring as a distributed graph: one neighbour each way */
    int src = (rank + size - 1) % size, dst = (rank + 1) % size, x = -1, w = 1;
    MPI_Comm ring;
    MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 1, &src, &w, 1, &dst, &w, MPI_INFO_NULL, 0,
                                   &ring);
    MPI_Neighbor_alltoall(&rank, 1, MPI_INT, &x, 1, MPI_INT, ring);
    expect(x, src, "MPI_Neighbor_alltoall on the ring");

    /* duplicates */
    MPI_Comm idup, wdup, node;
    MPI_Request r;
    MPI_Comm_idup(cart, &idup, &r);
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    MPI_Comm_dup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, &wdup);
    MPI_Comm_split_type(wdup, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int sum = 0;
    MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, idup);
    expect(sum, 6, "MPI_Allreduce over the MPI_Comm_idup communicator");
    if (rank == 0)
        MPI_Send(&rank, 1, MPI_INT, 1, 3, idup);
    else if (rank == 1)
        MPI_Recv(&x, 1, MPI_INT, 0, 3, idup, MPI_STATUS_IGNORE);

    /* groups: {0,1} and {1,2} from world's */
    MPI_Group wg, a, b, u, i, d, e;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    int r01[2] = { 0, 1 }, range[1][3] = { { 0, 0, 1 } };
    MPI_Group_incl(wg, 2, r01, &a);
    int r3[1] = { 3 };
    MPI_Group_excl(wg, 1, r3, &e);
    MPI_Group_range_excl(e, 1, range, &b);
    MPI_Group_union(a, b, &u);
    MPI_Group_intersection(a, b, &i);
    MPI_Group_difference(a, b, &d);
    int su, si, sd;
    MPI_Group_size(u, &su);
    MPI_Group_size(i, &si);
    MPI_Group_size(d, &sd);
    expect(su * 100 + si * 10 + sd, 311, "group sizes of union, intersection, difference");
    MPI_Group gs[7] = { wg, a, b, u, i, d, e };
    for (int k = 0; k < 7; k++)
        MPI_Group_free(&gs[k]);

    MPI_Comm_free(&node);
    MPI_Comm_free(&wdup);
    MPI_Comm_free(&idup);
    MPI_Comm_free(&ring);
    MPI_Comm_free(&cart);
    return mtest_finish();
}
