/* lateness.c -- MPI programs with injected, exactly known waits, one
 * pattern per mode, for pal-view --waits (tests/diag/waits.sh). D is the
 * unit delay in ms (argv[2], default 20); n ranks (n even, n >= 4 where a
 * mode says so). What each mode injects, in units of D:
 *
 *   late-sender    phase k = 1..n-1: rank k sleeps k*D, then sends to rank
 *                  0, which waits in MPI_Recv (then the same again with
 *                  MPI_Irecv before and MPI_Wait after the phase's
 *                  barrier): Late Sender = n(n-1)/2 on MPI_Recv and on
 *                  MPI_Wait, rank 0
 *   late-receiver  pairs (2i, 2i+1): 2i sends with MPI_Ssend at once,
 *                  2i+1 sleeps (i+1)*D before its MPI_Recv: Late Receiver =
 *                  sum (i+1) over the pairs on MPI_Ssend, Late Sender 0
 *   barrier        rank r sleeps r*D before MPI_Barrier: Wait at Barrier =
 *                  sum (n-1-r) = n(n-1)/2
 *   nxn            the same before MPI_Allreduce, MPI_Allgather and
 *                  MPI_Alltoall: Wait at NxN = n(n-1)/2 on each
 *   bcast          root 1 sleeps D before MPI_Bcast; root 2 sleeps 2D
 *                  before MPI_Scatter: Late Broadcast = (n-1) + 2(n-1)
 *   reduce         root 0 enters MPI_Reduce at once, rank r > 0 sleeps r*D:
 *                  Early Reduce = 1 (the first sender); root n-1 of
 *                  MPI_Gather, rank r < n-1 sleeps (r+1)*D: 1 more
 *   nbc            nonblocking collectives, each completed at once by the
 *                  call named: rank r sleeps r*D before MPI_Iallreduce
 *                  (MPI_Wait) and before MPI_Iallgather (MPI_Waitall): Wait
 *                  at NxN = n(n-1)/2 on each completion call; the same
 *                  before MPI_Ibarrier (MPI_Wait): Wait at Barrier =
 *                  n(n-1)/2; root 1 sleeps D before MPI_Ibcast (MPI_Wait):
 *                  Late Broadcast = n-1; root 0 of MPI_Ireduce
 *                  (MPI_Waitall), rank r > 0 sleeps r*D: Early Reduce = 1
 *   rma            one-sided synchronisation on a window over the ranks:
 *                  rank r puts to rank r+1, sleeps r*D and calls
 *                  MPI_Win_fence: Wait at Fence = n(n-1)/2; ranks 1..n-1
 *                  start an access epoch to rank 0 (MPI_Win_start, MPI_Put,
 *                  MPI_Win_complete) at once, rank 0 sleeps D before
 *                  MPI_Win_post: Late Post = n-1 (in MPI_Win_start or
 *                  MPI_Win_complete, as the MPI library blocks); then rank 0
 *                  posts at once and waits (MPI_Win_wait), rank r > 0
 *                  sleeps r*D in its epoch before MPI_Win_complete: Early
 *                  Wait = n-1
 *   lock           passive target locks on a window of rank 0: rank 0 locks
 *                  it exclusively, the others request an exclusive lock
 *                  at once and put, rank 0 sleeps D before it unlocks:
 *                  Lock Contention = n-1 (in MPI_Win_lock or
 *                  MPI_Win_unlock, as the MPI library blocks); then the
 *                  same with shared locks, which do not contend
 *   wintest        the rma mode's second epoch, rank 0 polling MPI_Win_test
 *                  until its exposure epoch completes instead of waiting in
 *                  MPI_Win_wait: Early Wait = n-1 (first test to completing)
 *   chain          a dependency chain: rank 0 works 2D in region "crit" and
 *                  sends to rank 1, which meanwhile worked D/2 in region
 *                  "side", receives, works 2D in "crit", sends to rank 2,
 *                  ...; then a barrier: the critical path runs through every
 *                  rank's "crit" (2nD) and no "side"
 * Phases are separated by a collective of another pattern (MPI_Barrier,
 * or MPI_Allreduce in the barrier mode), whose waits are not the mode's
 * (nbc: MPI_Scan, which has no pattern).
 *
 * A loaded machine oversleeps, so the delays injected are measured too: just
 * before each call of a pattern, each rank appends to lateness.RANK.times
 * "PATTERN CALL#INSTANCE ROLE RANK SECONDS" (ROLE: send or recv for
 * messages, root or member for collectives; SECONDS: CLOCK_REALTIME), from
 * which tests/diag/waits.sh computes the waits that the program really
 * injected, independently of the trace. Every delay is slept inside the
 * ECL region "delay" (the direct cause of each wait), and its measured
 * length noted as "delay delay#0 slept RANK SECONDS" (the load imbalance;
 * the chain's regions "crit" and "side" likewise). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ecl.h"

static double unit_ms = 20;

static FILE *times;
static int me;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* notes that this rank enters call (pattern, call#instance) in role now */
static void mark(const char *pattern, const char *call, int instance, const char *role)
{
    fprintf(times, "%s %s#%d %s %d %.9f\n", pattern, call, instance, role, me, now());
}

static void sleep_in(const char *region, double units)
{
    double ns = units * unit_ms * 1e6;
    struct timespec ts = {(time_t)(ns / 1e9), (long)(ns - (double)(time_t)(ns / 1e9) * 1e9)};
    ecl_enter_name(region);
    double t0 = now();
    while (nanosleep(&ts, &ts) != 0)
        ;
    fprintf(times, "%s %s#0 slept %d %.9f\n", region, region, me, now() - t0);
    ecl_leave_name(region);
}

static void sleep_units(double units)
{
    sleep_in("delay", units);
}

int main(int argc, char **argv)
{
    int rank, n;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    MPI_Comm w = MPI_COMM_WORLD;
    const char *mode = argc > 1 ? argv[1] : "";
    if (argc > 2)
        unit_ms = atof(argv[2]);
    int x = rank, y = 0, one = 1;
    char name[64];
    me = rank;
    snprintf(name, sizeof name, "lateness.%d.times", rank);
    if ((times = fopen(name, "w")) == NULL)
        MPI_Abort(w, 2);
    int *all = calloc((size_t)n, sizeof *all);
    if (all == NULL || n < 2 || unit_ms <= 0)
        MPI_Abort(w, 2);
    if (strcmp(mode, "late-sender") == 0) {
        for (int k = 1; k < n; k++) {
            MPI_Barrier(w);
            if (rank == k) {
                sleep_units(k);
                mark("late_sender", "MPI_Recv", k, "send");
                MPI_Send(&x, 1, MPI_INT, 0, k, w);
            } else if (rank == 0) {
                mark("late_sender", "MPI_Recv", k, "recv");
                MPI_Recv(&y, 1, MPI_INT, k, k, w, MPI_STATUS_IGNORE);
            }
        }
        for (int k = 1; k < n; k++) {
            MPI_Request q = MPI_REQUEST_NULL;
            if (rank == 0)
                MPI_Irecv(&y, 1, MPI_INT, k, 100 + k, w, &q);
            MPI_Barrier(w);
            if (rank == k) {
                sleep_units(k);
                mark("late_sender", "MPI_Wait", k, "send");
                MPI_Send(&x, 1, MPI_INT, 0, 100 + k, w);
            } else if (rank == 0) {
                mark("late_sender", "MPI_Wait", k, "recv");
                MPI_Wait(&q, MPI_STATUS_IGNORE);
            }
        }
    } else if (strcmp(mode, "late-receiver") == 0) {
        if (n % 2)
            MPI_Abort(w, 2);
        MPI_Barrier(w);
        if (rank % 2 == 0) {
            mark("late_receiver", "MPI_Ssend", rank / 2, "send");
            MPI_Ssend(&x, 1, MPI_INT, rank + 1, 7, w);
        } else {
            sleep_units(rank / 2 + 1);
            mark("late_receiver", "MPI_Ssend", rank / 2, "recv");
            MPI_Recv(&y, 1, MPI_INT, rank - 1, 7, w, MPI_STATUS_IGNORE);
        }
    } else if (strcmp(mode, "barrier") == 0) {
        MPI_Allreduce(&one, &y, 1, MPI_INT, MPI_SUM, w);
        sleep_units(rank);
        mark("wait_barrier", "MPI_Barrier", 0, "member");
        MPI_Barrier(w);
    } else if (strcmp(mode, "nxn") == 0) {
        MPI_Barrier(w);
        sleep_units(rank);
        mark("wait_nxn", "MPI_Allreduce", 0, "member");
        MPI_Allreduce(&one, &y, 1, MPI_INT, MPI_SUM, w);
        MPI_Barrier(w);
        sleep_units(rank);
        mark("wait_nxn", "MPI_Allgather", 0, "member");
        MPI_Allgather(&x, 1, MPI_INT, all, 1, MPI_INT, w);
        MPI_Barrier(w);
        sleep_units(rank);
        mark("wait_nxn", "MPI_Alltoall", 0, "member");
        MPI_Alltoall(all, 1, MPI_INT, all, 1, MPI_INT, w);
    } else if (strcmp(mode, "bcast") == 0) {
        MPI_Barrier(w);
        if (rank == 1)
            sleep_units(1);
        mark("late_broadcast", "MPI_Bcast", 0, rank == 1 ? "root" : "member");
        MPI_Bcast(&x, 1, MPI_INT, 1, w);
        MPI_Barrier(w);
        if (rank == 2)
            sleep_units(2);
        mark("late_broadcast", "MPI_Scatter", 0, rank == 2 ? "root" : "member");
        MPI_Scatter(all, 1, MPI_INT, &y, 1, MPI_INT, 2, w);
    } else if (strcmp(mode, "reduce") == 0) {
        MPI_Barrier(w);
        if (rank > 0)
            sleep_units(rank);
        mark("early_reduce", "MPI_Reduce", 0, rank == 0 ? "root" : "member");
        MPI_Reduce(&one, &y, 1, MPI_INT, MPI_SUM, 0, w);
        MPI_Barrier(w);
        if (rank < n - 1)
            sleep_units(rank + 1);
        mark("early_reduce", "MPI_Gather", 0, rank == n - 1 ? "root" : "member");
        MPI_Gather(&x, 1, MPI_INT, all, 1, MPI_INT, n - 1, w);
    } else if (strcmp(mode, "nbc") == 0) {
        MPI_Request q;
        int z;   /* phases apart: MPI_Scan, a collective of no pattern */
        MPI_Scan(&one, &z, 1, MPI_INT, MPI_SUM, w);
        sleep_units(rank);
        mark("wait_nxn", "MPI_Wait", 0, "member");
        MPI_Iallreduce(&one, &y, 1, MPI_INT, MPI_SUM, w, &q);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        MPI_Scan(&one, &z, 1, MPI_INT, MPI_SUM, w);
        sleep_units(rank);
        mark("wait_nxn", "MPI_Waitall", 0, "member");
        MPI_Iallgather(&x, 1, MPI_INT, all, 1, MPI_INT, w, &q);
        MPI_Waitall(1, &q, MPI_STATUSES_IGNORE);
        MPI_Scan(&one, &z, 1, MPI_INT, MPI_SUM, w);
        sleep_units(rank);
        mark("wait_barrier", "MPI_Wait", 0, "member");
        MPI_Ibarrier(w, &q);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        MPI_Scan(&one, &z, 1, MPI_INT, MPI_SUM, w);
        if (rank == 1)
            sleep_units(1);
        mark("late_broadcast", "MPI_Wait", 0, rank == 1 ? "root" : "member");
        MPI_Ibcast(&x, 1, MPI_INT, 1, w, &q);
        MPI_Wait(&q, MPI_STATUS_IGNORE);
        MPI_Scan(&one, &z, 1, MPI_INT, MPI_SUM, w);
        if (rank > 0)
            sleep_units(rank);
        mark("early_reduce", "MPI_Waitall", 0, rank == 0 ? "root" : "member");
        MPI_Ireduce(&one, &y, 1, MPI_INT, MPI_SUM, 0, w, &q);
        MPI_Waitall(1, &q, MPI_STATUSES_IGNORE);
    } else if (strcmp(mode, "rma") == 0) {
        int buf[2] = {0, 0};
        MPI_Win win;
        MPI_Group wg, g0, others;
        int zero = 0;
        MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, w, &win);
        MPI_Comm_group(w, &wg);
        MPI_Group_incl(wg, 1, &zero, &g0);
        MPI_Group_excl(wg, 1, &zero, &others);
        MPI_Win_fence(0, win);
        MPI_Barrier(w);
        MPI_Put(&x, 1, MPI_INT, (rank + 1) % n, 0, 1, MPI_INT, win);
        sleep_units(rank);
        mark("wait_fence", "MPI_Win_fence", 0, "member");
        MPI_Win_fence(0, win);
        /* both epochs note both patterns: a loaded machine makes late
         * posts and early waits where none was injected */
        for (int k = 0; k < 2; k++) {
            MPI_Barrier(w);
            if (rank == 0) {
                if (k == 0)
                    sleep_units(1);
                mark("late_post", "any", k, "root");
                MPI_Win_post(others, 0, win);
                mark("early_wait", "MPI_Win_wait", k, "root");
                MPI_Win_wait(win);
            } else {
                mark("late_post", "any", k, "member");
                MPI_Win_start(g0, 0, win);
                MPI_Put(&x, 1, MPI_INT, 0, 1, 1, MPI_INT, win);
                if (k == 1)
                    sleep_units(rank);
                mark("early_wait", "MPI_Win_wait", k, "member");
                MPI_Win_complete(win);
            }
        }
        MPI_Group_free(&g0);
        MPI_Group_free(&others);
        MPI_Group_free(&wg);
        MPI_Win_free(&win);
    } else if (strcmp(mode, "wintest") == 0) {
        int buf = 0, zero = 0, flag = 0, tests = 0;
        MPI_Win win;
        MPI_Group wg, g0, others;
        MPI_Win_create(&buf, sizeof buf, sizeof(int), MPI_INFO_NULL, w, &win);
        MPI_Comm_group(w, &wg);
        MPI_Group_incl(wg, 1, &zero, &g0);
        MPI_Group_excl(wg, 1, &zero, &others);
        MPI_Barrier(w);
        if (rank == 0) {
            MPI_Win_post(others, 0, win);
            mark("early_wait", "MPI_Win_test", 0, "root");
            while (!flag) {
                MPI_Win_test(win, &flag);
                tests++;
            }
        } else {
            MPI_Win_start(g0, 0, win);
            MPI_Put(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
            sleep_units(rank);
            mark("early_wait", "MPI_Win_test", 0, "member");
            MPI_Win_complete(win);
        }
        MPI_Barrier(w);
        if (rank == 0 && tests < 2)
            fprintf(stderr, "lateness: wintest: the epoch completed at the first test\n");
        MPI_Group_free(&g0);
        MPI_Group_free(&others);
        MPI_Group_free(&wg);
        MPI_Win_free(&win);
    } else if (strcmp(mode, "lock") == 0) {
        int buf[2] = {0, 0};
        MPI_Win win;
        MPI_Win_create(buf, sizeof buf, sizeof(int), MPI_INFO_NULL, w, &win);
        for (int k = 0; k < 2; k++) {
            int type = k == 0 ? MPI_LOCK_EXCLUSIVE : MPI_LOCK_SHARED;
            MPI_Barrier(w);
            if (rank == 0) {
                MPI_Win_lock(type, 0, 0, win);
                MPI_Put(&x, 1, MPI_INT, 0, 0, 1, MPI_INT, win);
                MPI_Win_flush(0, win);   /* the lock is held, not only requested */
                MPI_Barrier(w);
                sleep_units(1);
                if (k == 0)
                    mark("lock_contention", "any", k, "root");
                MPI_Win_unlock(0, win);
            } else {
                MPI_Barrier(w);
                if (k == 0)
                    mark("lock_contention", "any", k, "member");
                MPI_Win_lock(type, 0, 0, win);
                MPI_Get(&y, 1, MPI_INT, 0, 1, 1, MPI_INT, win);
                MPI_Win_unlock(0, win);
            }
        }
        MPI_Barrier(w);
        MPI_Win_free(&win);
    } else if (strcmp(mode, "chain") == 0) {
        MPI_Barrier(w);
        if (rank > 0) {
            sleep_in("side", 0.5);
            MPI_Recv(&y, 1, MPI_INT, rank - 1, 3, w, MPI_STATUS_IGNORE);
        }
        sleep_in("crit", 2);
        if (rank < n - 1)
            MPI_Send(&x, 1, MPI_INT, rank + 1, 3, w);
        MPI_Barrier(w);
    } else {
        if (rank == 0)
            fprintf(stderr, "lateness: unknown mode '%s'\n", mode);
        MPI_Abort(w, 2);
    }
    if (fclose(times))
        MPI_Abort(w, 2);
    free(all);
    MPI_Finalize();
    return 0;
}
