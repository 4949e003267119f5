/* threads.c -- MPI_THREAD_MULTIPLE: THREADS threads per rank exchange
 * MESSAGES messages each with the same thread of the partner rank (rank^1),
 * concurrently, thread t using tag t; every thread also marks its work as an
 * ECL region. Each thread is a stream of its own in the trace.
 *
 *   mpirun -np 4 ./threads          (needs an even number of ranks)
 * Per rank: THREADS x MESSAGES sends and as many receives. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>

#include "ecl.h"

#define THREADS 4
#define MESSAGES 25

static int rank, partner;
static ecl_region work;

static void *run(void *arg)
{
    int t = (int)(long)arg;
    long x = rank, y = 0;
    ecl_enter(work);
    for (int i = 0; i < MESSAGES; i++) {
        if (rank < partner) {
            MPI_Send(&x, 1, MPI_LONG, partner, t, MPI_COMM_WORLD);
            MPI_Recv(&y, 1, MPI_LONG, partner, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&y, 1, MPI_LONG, partner, t, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&x, 1, MPI_LONG, partner, t, MPI_COMM_WORLD);
        }
    }
    ecl_leave(work);
    return NULL;
}

int main(int argc, char **argv)
{
    int provided, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (provided < MPI_THREAD_MULTIPLE || size % 2) {
        if (rank == 0)
            fprintf(stderr, "threads: needs MPI_THREAD_MULTIPLE and an even number of ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    partner = rank ^ 1;
    work = ecl_region_define("thread_work");
    pthread_t th[THREADS];
    for (long t = 0; t < THREADS; t++)
        pthread_create(&th[t], NULL, run, (void *)t);
    for (int t = 0; t < THREADS; t++)
        pthread_join(th[t], NULL);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0)
        printf("threads: %d threads x %d messages per rank\n", THREADS, MESSAGES);
    MPI_Finalize();
    return 0;
}
