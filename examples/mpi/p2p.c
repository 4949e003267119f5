/* p2p.c -- the point-to-point calls the other examples do not use: the
 * synchronous, buffered and ready send modes (blocking and nonblocking),
 * MPI_Sendrecv_replace, MPI_Iprobe, the Wait/Test variants (any, some, all),
 * a cancelled receive and a freed send request. Ranks work in pairs
 * (0-1, 2-3, ...); the lower rank of a pair sends.
 *
 *   mpirun -np 4 ./p2p              (needs an even number of ranks)
 * Per pair: the lower rank sends 12 messages (tags 1-8 and 10-12 of 2^tag
 * bytes, tag 13 of 13 bytes), the upper one 1 (tag 9, 256 bytes); a 13th
 * receive (tag 99) is cancelled. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size % 2) {
        if (rank == 0)
            fprintf(stderr, "p2p: needs an even number of ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Comm w = MPI_COMM_WORLD;
    int partner = rank ^ 1, lower = rank < partner;
    static char buf[16][4096], in[16][4096];
    int bufsize = 16 * 4200 + MPI_BSEND_OVERHEAD * 4;
    void *bsend = malloc((size_t)bufsize);
    MPI_Buffer_attach(bsend, bufsize);
    MPI_Request q[4];
    MPI_Status st[4];
    int idx, outc, flag, ind[4];
#define LEN(tag) (1 << (tag))

    if (lower) {
        MPI_Ssend(buf[1], LEN(1), MPI_CHAR, partner, 1, w);
        MPI_Bsend(buf[2], LEN(2), MPI_CHAR, partner, 2, w);
        MPI_Barrier(w);                      /* partner has posted tag 3 */
        MPI_Rsend(buf[3], LEN(3), MPI_CHAR, partner, 3, w);
        MPI_Issend(buf[4], LEN(4), MPI_CHAR, partner, 4, w, &q[0]);
        MPI_Ibsend(buf[5], LEN(5), MPI_CHAR, partner, 5, w, &q[1]);
        MPI_Waitany(2, q, &idx, &st[0]);
        MPI_Waitany(2, q, &idx, &st[0]);
        MPI_Barrier(w);                      /* partner has posted tag 6 */
        MPI_Irsend(buf[6], LEN(6), MPI_CHAR, partner, 6, w, &q[0]);
        MPI_Wait(&q[0], MPI_STATUS_IGNORE);
        MPI_Send(buf[7], LEN(7), MPI_CHAR, partner, 7, w);
        MPI_Sendrecv_replace(buf[8], LEN(8), MPI_CHAR, partner, 8, partner, 9, w, &st[0]);
        for (int t = 10; t <= 12; t++)
            MPI_Isend(buf[t], LEN(t), MPI_CHAR, partner, t, w, &q[t - 10]);
        MPI_Testall(3, q, &flag, MPI_STATUSES_IGNORE);
        while (!flag)
            MPI_Testall(3, q, &flag, MPI_STATUSES_IGNORE);
        /* a send request freed while active: the message still arrives */
        MPI_Request fr;
        MPI_Isend(buf[13], 13, MPI_CHAR, partner, 13, w, &fr);
        MPI_Request_free(&fr);
        MPI_Barrier(w);
    } else {
        MPI_Recv(in[1], LEN(1), MPI_CHAR, partner, 1, w, MPI_STATUS_IGNORE);
        MPI_Recv(in[2], LEN(2), MPI_CHAR, partner, 2, w, MPI_STATUS_IGNORE);
        MPI_Irecv(in[3], LEN(3), MPI_CHAR, partner, 3, w, &q[0]);
        MPI_Barrier(w);
        MPI_Wait(&q[0], &st[0]);
        MPI_Irecv(in[4], LEN(4), MPI_CHAR, partner, 4, w, &q[0]);
        MPI_Irecv(in[5], LEN(5), MPI_CHAR, partner, 5, w, &q[1]);
        int done = 0;
        while (done < 2) {
            MPI_Testsome(2, q, &outc, ind, st);
            if (outc != MPI_UNDEFINED)
                done += outc;
        }
        MPI_Irecv(in[6], LEN(6), MPI_CHAR, partner, 6, w, &q[0]);
        MPI_Barrier(w);
        flag = 0;
        while (!flag)
            MPI_Test(&q[0], &flag, MPI_STATUS_IGNORE);
        /* the null request the completed one became: the flag is set at once */
        flag = 0;
        MPI_Test(&q[0], &flag, MPI_STATUS_IGNORE);
        flag = 0;
        while (!flag)
            MPI_Iprobe(partner, 7, w, &flag, &st[0]);
        MPI_Recv(in[7], LEN(7), MPI_CHAR, partner, 7, w, MPI_STATUS_IGNORE);
        MPI_Sendrecv(buf[9], LEN(8), MPI_CHAR, partner, 9, in[8], LEN(8), MPI_CHAR, partner, 8, w,
                     MPI_STATUS_IGNORE);
        for (int t = 10; t <= 12; t++)
            MPI_Irecv(in[t], LEN(t), MPI_CHAR, MPI_ANY_SOURCE, t, w, &q[t - 10]);
        done = 0;
        while (done < 3) {
            MPI_Waitsome(3, q, &outc, ind, MPI_STATUSES_IGNORE);
            done += outc;
        }
        MPI_Recv(in[13], 13, MPI_CHAR, partner, 13, w, MPI_STATUS_IGNORE);
        /* a receive nobody sends to, cancelled */
        MPI_Irecv(in[14], 1, MPI_CHAR, partner, 99, w, &q[0]);
        MPI_Cancel(&q[0]);
        MPI_Testany(1, q, &idx, &flag, &st[0]);
        if (!flag)
            MPI_Wait(&q[0], &st[0]);
        MPI_Barrier(w);
    }
    MPI_Buffer_detach(&bsend, &bufsize);
    free(bsend);
    if (rank == 0)
        printf("p2p: %d pairs\n", size / 2);
    MPI_Finalize();
    return 0;
}
