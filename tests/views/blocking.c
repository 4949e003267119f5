/* blocking.c -- an MPI program (4 ranks) whose ranks wait in blocking
 * point-to-point calls for known times, for the process states of pal-view
 * (tests/views/blocking.sh). D is the unit delay in ms (argv[1], default 20).
 *
 *   rank 0  MPI_Send of 8 MiB to rank 1 (too large to go eagerly: it waits
 *           for the receive), then MPI_Ssend of one int to rank 1: waits
 *           about 3D in each, while rank 1 sleeps 3D before each receive
 *   rank 1  sleeps 3D, MPI_Recv (8 MiB), sleeps 3D, MPI_Recv (one int)
 *   rank 2  MPI_Recv of one int from rank 3: waits about D
 *   rank 3  polls with MPI_Iprobe for D (communication that does not
 *           block: not waiting), then MPI_Send of one int to rank 2
 *
 * No collective follows (the ranks end in MPI_Finalize, which is in no
 * state), so the ranks that wait most are rank 0 (about 6D), then rank 2
 * (about D). Each rank writes to blocking.RANK.slept the seconds it slept
 * (a loaded machine oversleeps). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double nap(double ms)
{
    double t0 = now();
    struct timespec ts = {(time_t)(ms / 1e3), (long)((ms - (double)(time_t)(ms / 1e3) * 1e3) * 1e6)};
    while (nanosleep(&ts, &ts) != 0)
        ;
    return now() - t0;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    double d = argc > 1 ? atof(argv[1]) : 20;
    int me, n;
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    if (n != 4 || !(d > 0)) {
        if (me == 0)
            fprintf(stderr, "blocking: needs 4 ranks and a delay > 0 ms\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    enum { BIG = 8 << 20 };
    char *big = calloc(BIG, 1);
    if (big == NULL)
        MPI_Abort(MPI_COMM_WORLD, 2);
    int one = 1;
    double slept = 0;
    MPI_Barrier(MPI_COMM_WORLD);   /* everyone starts together */
    switch (me) {
    case 0:
        MPI_Send(big, BIG, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
        MPI_Ssend(&one, 1, MPI_INT, 1, 2, MPI_COMM_WORLD);
        break;
    case 1:
        slept += nap(3 * d);
        MPI_Recv(big, BIG, MPI_CHAR, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        slept += nap(3 * d);
        MPI_Recv(&one, 1, MPI_INT, 0, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        break;
    case 2:
        MPI_Recv(&one, 1, MPI_INT, 3, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        break;
    case 3: {
        double t0 = now();
        int flag;
        while (now() - t0 < d / 1e3)
            MPI_Iprobe(2, 4, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
        MPI_Send(&one, 1, MPI_INT, 2, 3, MPI_COMM_WORLD);
        break;
    }
    }
    char path[64];
    snprintf(path, sizeof path, "blocking.%d.slept", me);
    FILE *f = fopen(path, "w");
    if (f == NULL || fprintf(f, "%.9f\n", slept) < 0 || fclose(f) != 0)
        MPI_Abort(MPI_COMM_WORLD, 2);
    free(big);
    MPI_Finalize();
    return 0;
}
