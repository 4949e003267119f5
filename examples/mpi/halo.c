/* halo.c -- 1-D halo exchange on a periodic domain: each iteration posts
 * MPI_Irecv/MPI_Isend to both neighbours and completes them with
 * MPI_Waitall; a second phase does the same with persistent requests
 * (MPI_Send_init, MPI_Recv_init, MPI_Startall). The program also uses the ECL
 * API -- regions, a marker and a user record type -- so one trace holds both.
 *
 *   mpirun -np 4 ./halo [ITERATIONS]
 * Per rank and phase: ITERATIONS x (2 receives + 2 sends + 1 waitall). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "ecl.h"

#define N 256                    /* interior points per rank */

static void relax(double *u, double *v)
{
    for (int i = 1; i <= N; i++)
        v[i] = 0.5 * u[i] + 0.25 * (u[i - 1] + u[i + 1]);
    for (int i = 1; i <= N; i++)
        u[i] = v[i];
}

int main(int argc, char **argv)
{
    int rank, size, iters = argc > 1 ? atoi(argv[1]) : 10;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int left = (rank + size - 1) % size, right = (rank + 1) % size;
    double u[N + 2], v[N + 2];
    for (int i = 0; i < N + 2; i++)
        u[i] = rank;

    ecl_region exchange = ecl_region_define("exchange");
    ecl_region compute = ecl_region_define("compute");
    /* Two user record types, registered in an order that depends on the
     * rank: ecl-merge maps them by name. */
    ecl_type t_iter, t_norm;
    ecl_field f_iter[] = { { "iteration", ECL_FIELD_INT32, NULL, NULL },
                           { "phase", ECL_FIELD_INT32, NULL, NULL } };
    ecl_field f_norm[] = { { "norm", ECL_FIELD_FLOAT64, NULL, "sum of the interior" } };
    if (rank % 2 == 0) {
        ecl_type_register("halo_iteration", f_iter, 2, &t_iter);
        ecl_type_register("halo_norm", f_norm, 1, &t_norm);
    } else {
        ecl_type_register("halo_norm", f_norm, 1, &t_norm);
        ecl_type_register("halo_iteration", f_iter, 2, &t_iter);
    }
    ecl_marker("halo: start");

    MPI_Request req[4];
    for (int it = 0; it < iters; it++) {
        ecl_value val[2] = { { .i = it }, { .i = 1 } };
        ecl_record(t_iter, val);
        ecl_enter(exchange);
        MPI_Irecv(&u[0], 1, MPI_DOUBLE, left, 1, MPI_COMM_WORLD, &req[0]);
        MPI_Irecv(&u[N + 1], 1, MPI_DOUBLE, right, 2, MPI_COMM_WORLD, &req[1]);
        MPI_Isend(&u[N], 1, MPI_DOUBLE, right, 1, MPI_COMM_WORLD, &req[2]);
        MPI_Isend(&u[1], 1, MPI_DOUBLE, left, 2, MPI_COMM_WORLD, &req[3]);
        MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
        ecl_leave(exchange);
        ecl_enter(compute);
        relax(u, v);
        ecl_leave(compute);
    }

    /* phase 2: the same exchange with persistent requests, 8 values each */
    double sl[8], sr[8], rl[8], rr[8];
    MPI_Recv_init(rl, 8, MPI_DOUBLE, left, 3, MPI_COMM_WORLD, &req[0]);
    MPI_Recv_init(rr, 8, MPI_DOUBLE, right, 4, MPI_COMM_WORLD, &req[1]);
    MPI_Send_init(sr, 8, MPI_DOUBLE, right, 3, MPI_COMM_WORLD, &req[2]);
    MPI_Send_init(sl, 8, MPI_DOUBLE, left, 4, MPI_COMM_WORLD, &req[3]);
    for (int it = 0; it < iters; it++) {
        ecl_value val[2] = { { .i = it }, { .i = 2 } };
        ecl_record(t_iter, val);
        for (int k = 0; k < 8; k++)
            sl[k] = sr[k] = u[1 + k];
        ecl_enter(exchange);
        MPI_Startall(4, req);
        MPI_Waitall(4, req, MPI_STATUSES_IGNORE);
        ecl_leave(exchange);
        ecl_enter(compute);
        u[0] = rl[0];
        u[N + 1] = rr[0];
        relax(u, v);
        ecl_leave(compute);
    }
    for (int k = 0; k < 4; k++)
        MPI_Request_free(&req[k]);

    double local = 0, total = 0;
    for (int i = 1; i <= N; i++)
        local += u[i];
    MPI_Allreduce(&local, &total, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    ecl_value nv = { .f = total };
    ecl_record(t_norm, &nv);
    if (rank == 0)
        printf("halo: %d iterations on %d ranks, sum %.6g\n", iters, size, total);
    MPI_Finalize();
    return 0;
}
