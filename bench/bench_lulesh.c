/* bench_lulesh.c -- a synthetic MPI program with the shape of a LULESH 2.0
 * run traced with compiler-instrumented functions: the same call tree
 * (LagrangeLeapFrog -> LagrangeNodal / LagrangeElements -> ... down to seven
 * levels), recorded through the ECL API's enter/leave as
 * -finstrument-functions would with a filter; per iteration an
 * MPI_Allreduce of the time step (TimeIncrement) and three halo exchanges
 * (forces, positions/velocities, gradients: MPI_Irecv and MPI_Isend to every
 * neighbour of a 2x2x2 block of ranks -- faces, edges and corners -- then
 * MPI_Waitall), a little arithmetic in every leaf.
 *
 *   mpirun -np 8 bench/bench_lulesh [-r RECORDS] [-i ITERATIONS] [-w WORK]
 *
 * RECORDS (default 48000000, as LULESH with 8 ranks and filtered
 * functions): the records the run should write in all, over all ranks;
 * the leaves' repeat count is chosen for it. ITERATIONS: default 1000.
 * WORK: arithmetic per leaf call (default 200 dependent multiply-adds). It prints the
 * records it meant to write; bench/report.sh counts those read back. No
 * pass/fail: it is the input of the report benchmark (bench/README.md). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ecl.h"

#define MAXNB 26
static int nnb, nb[MAXNB];          /* neighbour ranks */
static int reps = 1, work = 200;    /* leaf repeats, work per leaf */
static double sink = 1.0;
static unsigned long long calls;    /* enter/leave pairs recorded by this rank */

#define R(name) static ecl_region name##_id
#define ID(name) (name##_id ? name##_id : (name##_id = ecl_region_define(#name)))
#define CALL(name, ...)        \
    do {                       \
        ecl_enter(ID(name));   \
        calls++;               \
        __VA_ARGS__;           \
        ecl_leave(ID(name));   \
    } while (0)

static void spin(void)
{
    double x = sink;
    for (int i = 0; i < work; i++)
        x = x * 0.999999 + 1e-9;
    sink = x;
}
/* a leaf repeated: one call per element block */
#define LEAF(name) R(name); static void name(void) { for (int k = 0; k < reps; k++) CALL(name, spin()); }

LEAF(CalcElemShapeFunctionDerivatives)
LEAF(SumElemFaceNormal)
LEAF(CalcElemVolumeDerivative)
LEAF(CalcElemFBHourglassForce)
LEAF(CalcKinematicsForElems)
LEAF(CalcMonotonicQRegionForElems)
LEAF(CalcPressureForElems)
LEAF(CalcSoundSpeedForElems)
LEAF(CalcCourantConstraintForElems)
LEAF(CalcHydroConstraintForElems)
R(InitStressTermsForElems); R(IntegrateStressForElems); R(CalcHourglassControlForElems);
R(CalcFBHourglassForceForElems); R(CalcVolumeForceForElems); R(CalcForceForNodes);
R(CalcAccelerationForNodes); R(ApplyAccelerationBoundaryConditionsForNodes);
R(CalcVelocityForNodes); R(CalcPositionForNodes); R(LagrangeNodal); R(CalcLagrangeElements);
R(CalcMonotonicQGradientsForElems); R(CalcMonotonicQForElems); R(CalcQForElems);
R(CalcEnergyForElems); R(EvalEOSForElems); R(ApplyMaterialPropertiesForElems);
R(UpdateVolumesForElems); R(LagrangeElements); R(CalcTimeConstraintsForElems);
R(LagrangeLeapFrog); R(TimeIncrement); R(CommRecv); R(CommSend); R(CommSBN);
R(CommSyncPosVel); R(CommMonoQ);

static double rbuf[MAXNB][64], sbuf[MAXNB][64];
static MPI_Request req[2 * MAXNB];

static void comm_recv(int tag, int n)
{
    CALL(CommRecv, for (int i = 0; i < nnb; i++)
         MPI_Irecv(rbuf[i], n, MPI_DOUBLE, nb[i], tag, MPI_COMM_WORLD, &req[i]));
}
static void comm_send(int tag, int n)
{
    CALL(CommSend, for (int i = 0; i < nnb; i++) {
        sbuf[i][0] = sink;
        MPI_Isend(sbuf[i], n, MPI_DOUBLE, nb[i], tag, MPI_COMM_WORLD, &req[nnb + i]);
    });
}
static void comm_wait(void) { MPI_Waitall(2 * nnb, req, MPI_STATUSES_IGNORE); }

static void lagrange_nodal(void)
{
    CALL(LagrangeNodal, {
        CALL(CalcForceForNodes, {
            comm_recv(1, 24);
            CALL(CalcVolumeForceForElems, {
                CALL(InitStressTermsForElems, spin());
                CALL(IntegrateStressForElems, {
                    CalcElemShapeFunctionDerivatives();
                    SumElemFaceNormal();
                });
                CALL(CalcHourglassControlForElems, {
                    CalcElemVolumeDerivative();
                    CALL(CalcFBHourglassForceForElems, CalcElemFBHourglassForce());
                });
            });
            comm_send(1, 24);
            CALL(CommSBN, comm_wait());
        });
        CALL(CalcAccelerationForNodes, spin());
        CALL(ApplyAccelerationBoundaryConditionsForNodes, spin());
        CALL(CalcVelocityForNodes, spin());
        CALL(CalcPositionForNodes, spin());
        comm_recv(2, 48);
        comm_send(2, 48);
        CALL(CommSyncPosVel, comm_wait());
    });
}

static void lagrange_elements(void)
{
    CALL(LagrangeElements, {
        CALL(CalcLagrangeElements, CalcKinematicsForElems());
        CALL(CalcQForElems, {
            comm_recv(3, 16);
            CALL(CalcMonotonicQGradientsForElems, spin());
            comm_send(3, 16);
            CALL(CommMonoQ, comm_wait());
            CALL(CalcMonotonicQForElems, CalcMonotonicQRegionForElems());
        });
        CALL(ApplyMaterialPropertiesForElems, CALL(EvalEOSForElems, {
            CALL(CalcEnergyForElems, {
                CalcPressureForElems();
                CalcPressureForElems();
                CalcPressureForElems();
            });
            CalcSoundSpeedForElems();
        }));
        CALL(UpdateVolumesForElems, spin());
    });
}

static void iteration(void)
{
    CALL(TimeIncrement, {
        double dt = sink, g;
        MPI_Allreduce(&dt, &g, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
        sink = g > 0 ? g : 1.0;
    });
    CALL(LagrangeLeapFrog, {
        lagrange_nodal();
        lagrange_elements();
        CALL(CalcTimeConstraintsForElems, {
            CalcCourantConstraintForElems();
            CalcHydroConstraintForElems();
        });
    });
}

/* the neighbours of rank r in a px x py x pz block (faces, edges, corners) */
static void neighbours(int r, int px, int py, int pz)
{
    int x = r % px, y = r / px % py, z = r / (px * py);
    for (int dz = -1; dz <= 1; dz++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                int a = x + dx, b = y + dy, c = z + dz;
                if ((dx || dy || dz) && a >= 0 && a < px && b >= 0 && b < py && c >= 0 && c < pz)
                    nb[nnb++] = a + px * (b + py * c);
            }
}

int main(int argc, char **argv)
{
    double records = 48e6;
    int iters = 1000, opt;
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    while ((opt = getopt(argc, argv, "r:i:w:")) != -1) {
        if (opt == 'r')
            records = atof(optarg);
        else if (opt == 'i')
            iters = atoi(optarg);
        else if (opt == 'w')
            work = atoi(optarg);
        else {
            if (rank == 0)
                fprintf(stderr, "usage: bench_lulesh [-r RECORDS] [-i ITERATIONS] [-w WORK]\n");
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    if (iters < 1 || records < 1 || work < 0) {
        if (rank == 0)
            fprintf(stderr, "bench_lulesh: -r, -i must be positive, -w not negative\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int dims[3] = {0, 0, 0};
    MPI_Dims_create(size, 3, dims);
    neighbours(rank, dims[0], dims[1], dims[2]);
    /* per iteration and rank: 32 fixed calls and 12 leaf calls x reps
     * (an enter and a leave record each); 3 exchanges of nnb Irecv + nnb
     * Isend + 1 Waitall (a record per MPI call) and a completion record per
     * request; 1 Allreduce */
    double fixed = 2.0 * 32 + 3 * (4.0 * nnb + 1) + 1, per_rep = 2.0 * 12;
    double want = records / size / iters;
    reps = want > fixed + per_rep ? (int)((want - fixed) / per_rep + 0.5) : 1;
    double meant = (fixed + per_rep * reps) * iters * size;
    if (rank == 0)
        printf("bench_lulesh: %d ranks (%dx%dx%d), %d iterations, %d leaf repeats, "
               "about %.0f records meant\n",
               size, dims[0], dims[1], dims[2], iters, reps, meant);
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    for (int it = 0; it < iters; it++)
        iteration();
    MPI_Barrier(MPI_COMM_WORLD);
    double t1 = MPI_Wtime();
    unsigned long long all = 0;
    MPI_Reduce(&calls, &all, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("bench_lulesh: %.3f s, %llu region calls (%.0f)\n", t1 - t0, all, sink);
    MPI_Finalize();
    return 0;
}
