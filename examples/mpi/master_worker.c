/* master_worker.c -- rank 0 hands out TASKS tasks; workers answer with a
 * result whose tag and size depend on the task. The master takes results in
 * whatever order they come: MPI_Probe with MPI_ANY_SOURCE and MPI_ANY_TAG,
 * then a receive of the probed size from the probed source and tag.
 *
 *   mpirun -np 4 ./master_worker [TASKS]
 * Totals: master TASKS+size-1 sends, TASKS probes and receives; the workers
 * together TASKS sends and TASKS+size-1 receives (MPI_ANY_TAG). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

enum { TAG_TASK = 1, TAG_STOP = 2, TAG_RESULT = 100 };

int main(int argc, char **argv)
{
    int rank, size, tasks = argc > 1 ? atoi(argv[1]) : 20;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        fprintf(stderr, "master_worker: needs at least 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int buf[8];
    if (rank == 0) {
        int next = 0, done = 0;
        long sum = 0;
        for (int w = 1; w < size; w++) {
            if (next < tasks) {
                MPI_Send(&next, 1, MPI_INT, w, TAG_TASK, MPI_COMM_WORLD);
                next++;
            } else {
                MPI_Send(NULL, 0, MPI_INT, w, TAG_STOP, MPI_COMM_WORLD);
            }
        }
        while (done < tasks) {
            MPI_Status st;
            int n;
            MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            MPI_Get_count(&st, MPI_INT, &n);
            MPI_Recv(buf, n, MPI_INT, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            sum += buf[0];
            done++;
            if (next < tasks) {
                MPI_Send(&next, 1, MPI_INT, st.MPI_SOURCE, TAG_TASK, MPI_COMM_WORLD);
                next++;
            } else {
                MPI_Send(NULL, 0, MPI_INT, st.MPI_SOURCE, TAG_STOP, MPI_COMM_WORLD);
            }
        }
        printf("master_worker: %d tasks, %d workers, sum %ld\n", tasks, size - 1, sum);
    } else {
        for (;;) {
            MPI_Status st;
            int task;
            MPI_Recv(&task, 1, MPI_INT, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
            if (st.MPI_TAG == TAG_STOP)
                break;
            int n = task % 4 + 1;      /* result: n ints, tag by task */
            for (int i = 0; i < n; i++)
                buf[i] = task * task;
            MPI_Send(buf, n, MPI_INT, 0, TAG_RESULT + task % 3, MPI_COMM_WORLD);
        }
    }
    MPI_Finalize();
    return 0;
}
