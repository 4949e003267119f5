/* split.c -- communicators: split into even and odd ranks (keys reverse the
 * order), duplicate, create from a group, a periodic Cartesian ring and its
 * sub-communicator, an intercommunicator between the halves and its merge.
 * Every message is addressed by a rank of the communicator it uses; the
 * trace records world ranks.
 *
 *   mpirun -np 4 ./split            (needs an even number of ranks >= 4)
 * In the halves (world 0,2 and 1,3, local rank 0 = the higher world rank),
 * local rank 0 sends to local rank 1: world 2 -> 0 and 3 -> 1. Over the
 * intercommunicator, the even leader (world 2) sends to the odd leader
 * (world 3). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 4 || size % 2) {
        if (rank == 0)
            fprintf(stderr, "split: needs an even number of ranks, at least 4\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int color = rank % 2, x = rank, y = 0;

    /* halves, ordered by descending world rank */
    MPI_Comm half, dup, first, cart, line, inter, merged;
    MPI_Comm_split(MPI_COMM_WORLD, color, -rank, &half);
    int hr, hs;
    MPI_Comm_rank(half, &hr);
    MPI_Comm_size(half, &hs);
    if (hr == 0)
        MPI_Send(&x, 1, MPI_INT, 1, 7, half);
    else if (hr == 1)
        MPI_Recv(&y, 1, MPI_INT, 0, 7, half, MPI_STATUS_IGNORE);
    MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, half);

    MPI_Comm_dup(half, &dup);
    MPI_Barrier(dup);

    /* the first half of world, from a group; the others get MPI_COMM_NULL */
    MPI_Group wg, fg;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    int range[1][3] = { { 0, size / 2 - 1, 1 } };
    MPI_Group_range_incl(wg, 1, range, &fg);
    MPI_Comm_create(MPI_COMM_WORLD, fg, &first);
    if (first != MPI_COMM_NULL)
        MPI_Bcast(&x, 1, MPI_INT, 0, first);

    /* a periodic ring: shift by one */
    int dims[1] = { size }, periods[1] = { 1 }, src, dst, remain[1] = { 1 };
    MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, 0, &cart);
    MPI_Cart_shift(cart, 0, 1, &src, &dst);
    MPI_Sendrecv(&x, 1, MPI_INT, dst, 9, &y, 1, MPI_INT, src, 9, cart, MPI_STATUS_IGNORE);
    MPI_Cart_sub(cart, remain, &line);
    MPI_Barrier(line);

    /* halves talk through an intercommunicator: leaders are world 2 and 3 */
    int remote_leader = color == 0 ? size - 1 : size - 2;
    MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, remote_leader, 11, &inter);
    if (color == 0 && hr == 0)
        MPI_Send(&x, 1, MPI_INT, 0, 12, inter);
    else if (color == 1 && hr == 0)
        MPI_Recv(&y, 1, MPI_INT, 0, 12, inter, MPI_STATUS_IGNORE);
    MPI_Intercomm_merge(inter, color, &merged);
    MPI_Barrier(merged);

    MPI_Comm_free(&merged);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&line);
    MPI_Comm_free(&cart);
    if (first != MPI_COMM_NULL)
        MPI_Comm_free(&first);
    MPI_Group_free(&fg);
    MPI_Group_free(&wg);
    MPI_Comm_free(&dup);
    MPI_Comm_free(&half);
    if (rank == 0)
        printf("split: %d ranks in halves of %d\n", size, hs);
    MPI_Finalize();
    return 0;
}
