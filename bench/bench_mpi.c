/* bench_mpi.c -- table (f): what the MPI profiling layer costs, plain and
 * traced side by side in the same runs.
 *
 *   (f1) the null MPI call MPI_Test(&MPI_REQUEST_NULL): PMPI_Test (plain),
 *        MPI_Test with tracing paused (the wrapper's pass-through) and traced;
 *        two back-to-back clock reads for scale. One rank; one mpirun per
 *        configuration (ECL's default compression, the others) and run, the
 *        configurations interleaved; added = traced - plain within each run.
 *   (f2) ping-pong one-way latency, 0 B and 1 KiB, 2 ranks: PMPI_Send/Recv
 *        (plain) and MPI_Send/Recv (traced) in alternating rounds of one run,
 *        R = 100 (T_traced - T_plain) / T_plain per pair of rounds.
 *
 * The driver (no arguments) starts `mpirun` runs of this program in child
 * modes and prints the tables; environment: MPIRUN (from make bench),
 * BENCH_SCALE, BENCH_REPS (default 7). ecl-merge is measured by bench_merge,
 * which needs no MPI. Never fails on time. */
#include <config.h>

#include "bench/bench_common.h"
#include "ecl/ecl.h"

#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define HAVE_RDTSC 1
#endif

/* ---------------- child modes (under mpirun) ---------------- */

static double per_call(int which, uint64_t n)
{
    MPI_Request r = MPI_REQUEST_NULL;
    int flag = 0;
    double t0 = bench_now_ns();
    switch (which) {
    case 0:
        for (uint64_t i = 0; i < n; i++) {
            PMPI_Test(&r, &flag, MPI_STATUS_IGNORE);
            BENCH_BARRIER();
        }
        break;
    case 1:
        for (uint64_t i = 0; i < n; i++) {
            MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
            BENCH_BARRIER();
        }
        break;
    default: {
#ifdef HAVE_RDTSC
        uint64_t s = 0;
        for (uint64_t i = 0; i < n; i++) {
            uint64_t a = __rdtsc();
            s += __rdtsc() - a;
            BENCH_BARRIER();
        }
        BENCH_KEEP(s);
#else
        return NAN;
#endif
    }
    }
    BENCH_KEEP(flag);
    return (bench_now_ns() - t0) / (double)n;
}

#define HOT_SEGMENTS 300
#define HOT_CALLS 5000

/* One run: a warm-up, then one round of each loop, in this order. Then the
 * call alone: 300 segments of 5,000 calls of plain, traced and the clock
 * pair in turn, the fastest segment of each (what a loaded machine adds,
 * preemption and a busy core, stays out of it). */
static int child_null(uint64_t n)
{
    MPI_Init(NULL, NULL);
    per_call(0, n / 10);
    per_call(1, n / 10);
    double plain = per_call(0, n);
    double traced = per_call(1, n);
    ecl_pause();
    double paused = per_call(1, n);
    ecl_resume();
    double clk = per_call(2, n);
    double hot[3] = { INFINITY, INFINITY, INFINITY };
    for (int s = 0; s < HOT_SEGMENTS; s++)
        for (int k = 0; k < 3; k++)
            hot[k] = fmin(hot[k], per_call(k, HOT_CALLS));
    printf("plain=%.3f\ntraced=%.3f\npaused=%.3f\nclock2=%.3f\n", plain, traced, paused, clk);
    printf("plain_hot=%.3f\ntraced_hot=%.3f\nclock2_hot=%.3f\n", hot[0], hot[1], hot[2]);
    MPI_Finalize();
    return 0;
}

static double pingpong(int rank, int traced, int bytes, uint64_t iters, char *buf)
{
    int peer = 1 - rank;
    PMPI_Barrier(MPI_COMM_WORLD);
    double t0 = bench_now_ns();
    for (uint64_t i = 0; i < iters; i++) {
        if (rank == 0) {
            if (traced) {
                MPI_Send(buf, bytes, MPI_CHAR, peer, 0, MPI_COMM_WORLD);
                MPI_Recv(buf, bytes, MPI_CHAR, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else {
                PMPI_Send(buf, bytes, MPI_CHAR, peer, 0, MPI_COMM_WORLD);
                PMPI_Recv(buf, bytes, MPI_CHAR, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            }
        } else {
            if (traced) {
                MPI_Recv(buf, bytes, MPI_CHAR, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                MPI_Send(buf, bytes, MPI_CHAR, peer, 0, MPI_COMM_WORLD);
            } else {
                PMPI_Recv(buf, bytes, MPI_CHAR, peer, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                PMPI_Send(buf, bytes, MPI_CHAR, peer, 0, MPI_COMM_WORLD);
            }
        }
    }
    return (bench_now_ns() - t0) / (2.0 * (double)iters);
}

#define MAX_REPS 64

/* Plain and traced rounds alternate; rank 0 prints every round's one-way
 * latency (plain_SIZE_K, traced_SIZE_K). */
static int child_pingpong(uint64_t iters, int reps)
{
    int rank, size;
    static char buf[1024];
    MPI_Init(NULL, NULL);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        if (rank == 0)
            fprintf(stderr, "bench_mpi: the ping-pong needs 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    if (reps > MAX_REPS)
        reps = MAX_REPS;
    static const int sizes[2] = { 0, 1024 };
    for (int s = 0; s < 2; s++) {
        pingpong(rank, 0, sizes[s], iters / 10, buf);
        pingpong(rank, 1, sizes[s], iters / 10, buf);
        for (int k = 0; k < reps; k++) {
            double p = pingpong(rank, 0, sizes[s], iters, buf);
            double t = pingpong(rank, 1, sizes[s], iters, buf);
            if (rank == 0)
                printf("plain_%d_%d=%.4f\ntraced_%d_%d=%.4f\n", sizes[s], k, p, sizes[s], k, t);
        }
    }
    MPI_Finalize();
    return 0;
}

/* ---------------- the driver ---------------- */

static const char *mpirun(void)
{
    const char *m = getenv("MPIRUN");
    return m != NULL && *m ? m : "mpirun";
}

/* mpirun -np NP this-program MODE N REPS, with ECL_DIR=dir, no automatic
 * merge, and the extra environment entries env (NULL-terminated, at most 4;
 * "NAME" alone unsets). */
static int run_mpi(int np, const char *mode, uint64_t n, int reps, const char *dir,
                   char *const *env, bench_child *c, int out)
{
    char snp[16], sn[32], sr[16], edir[4200];
    snprintf(snp, sizeof snp, "%d", np);
    snprintf(sn, sizeof sn, "%llu", (unsigned long long)n);
    snprintf(sr, sizeof sr, "%d", reps);
    snprintf(edir, sizeof edir, "ECL_DIR=%s", dir);
    /* no --oversubscribe: with it Open MPI yields while polling, which would
     * put scheduler latency into the ping-pong (1 and 2 ranks fit 2 cores) */
    char *argv[] = { (char *)mpirun(), (char *)"-np", snp, (char *)bench_self(), (char *)mode,
                     sn, sr, NULL };
    char *all[10] = { edir, (char *)"ECL_MERGE=0", (char *)"OMPI_ALLOW_RUN_AS_ROOT=1",
                      (char *)"OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1", NULL };
    for (int i = 0, k = 4; env && env[i] && k < 9; i++)
        all[k++] = env[i];
    return bench_spawn(argv, all, out, c);
}

/* What Debian offers as an MPI profiler peer (mpiP, Score-P), from the local
 * package index: the names found, or why there are none. */
static void peer_packages(char *buf, size_t len)
{
    char tool[4096];
    if (!bench_which("apt-cache", tool, sizeof tool)) {
        snprintf(buf, len, "apt-cache not found: cannot ask the package index");
        return;
    }
    char *argv[] = { tool, (char *)"search", (char *)"--names-only",
                     (char *)"^(mpip|libmpip.*|mpip-.*|scorep.*|score-p.*)$", NULL };
    bench_child c;
    if (bench_spawn(argv, NULL, BENCH_OUT_CAPTURE, &c) != 0) {
        snprintf(buf, len, "'apt-cache search' failed (status %d)", c.status);
        return;
    }
    size_t k = strcspn(c.out, "\n");
    if (k == 0)
        snprintf(buf, len, "apt-cache search --names-only '%s'\n  finds nothing in this "
                 "machine's package index", argv[3]);
    else
        snprintf(buf, len, "the package index lists '%.*s'%s, but this benchmark has no "
                 "recipe to run it", (int)k, c.out, c.out[k] && c.out[k + 1] ? " and more" : "");
}

#define MAX_CONF 4

typedef struct null_conf {
    const char *compress;      /* NULL: ECL_COMPRESS unset (ECL's default) */
    const char *groups;        /* ECL_MPI_GROUPS, or NULL */
    char method[32];           /* what ECL says it used */
    int failed;
    double plain[MAX_REPS], traced[MAX_REPS], paused[MAX_REPS], clock2[MAX_REPS];
    double added[MAX_REPS], paused_added[MAX_REPS];
    double added_hot[MAX_REPS], clock2_hot[MAX_REPS];  /* fastest segments */
} null_conf;

static void table_calls(void)
{
    uint64_t n = bench_scaled(2000000);
    int reps = bench_reps();
    if (reps > MAX_REPS)
        reps = MAX_REPS;
    /* ECL's default first; then the methods that differ from it */
    static null_conf conf[MAX_CONF];
    static const char *const methods[2] = { "none", "zlib" };
    /* the last configuration switches MPI_Test's event group (p2p) off: the
     * wrapper then passes straight through */
    int nconf = 2;
    conf[0] = (null_conf){ .compress = NULL };
    conf[1] = (null_conf){ .compress = NULL, .groups = "coll,rma,io,comm" };
    fprintf(stderr, "bench_mpi: %d runs of the null call...\n", reps);
    for (int rep = 0; rep < reps; rep++) {
        for (int k = 0; k < nconf; k++) {
            null_conf *f = &conf[k];
            char dir[4096], env_comp[64], env_groups[96];
            char *env[] = { env_comp, (char *)"ECL_VERBOSE=1", env_groups, NULL };
            f->plain[rep] = f->traced[rep] = f->paused[rep] = f->clock2[rep] = NAN;
            f->added[rep] = f->paused_added[rep] = f->added_hot[rep] = f->clock2_hot[rep] = NAN;
            if (f->failed)
                continue;
            if (f->compress)
                snprintf(env_comp, sizeof env_comp, "ECL_COMPRESS=%s", f->compress);
            else
                snprintf(env_comp, sizeof env_comp, "ECL_COMPRESS");
            if (f->groups)
                snprintf(env_groups, sizeof env_groups, "ECL_MPI_GROUPS=%s", f->groups);
            else
                snprintf(env_groups, sizeof env_groups, "ECL_MPI_GROUPS");
            bench_child c;
            bench_mkdtemp("mpi-null", dir, sizeof dir);
            if (run_mpi(1, "--null", n, 1, dir, env, &c, BENCH_OUT_CAPTURE_ALL) != 0) {
                fprintf(stderr, "bench_mpi: the null-call run (ECL_COMPRESS=%s) failed "
                        "(status %d):\n%s", f->compress ? f->compress : "unset", c.status, c.out);
                f->failed = 1;
                bench_rmtree(dir);
                continue;
            }
            bench_rmtree(dir);
            f->plain[rep] = bench_kv(c.out, "plain");
            f->traced[rep] = bench_kv(c.out, "traced");
            f->paused[rep] = bench_kv(c.out, "paused");
            f->clock2[rep] = bench_kv(c.out, "clock2");
            f->added[rep] = f->traced[rep] - f->plain[rep];
            f->paused_added[rep] = f->paused[rep] - f->plain[rep];
            f->added_hot[rep] = bench_kv(c.out, "traced_hot") - bench_kv(c.out, "plain_hot");
            f->clock2_hot[rep] = bench_kv(c.out, "clock2_hot");
            if (!f->method[0])
                bench_ecl_compression(c.out, f->method, sizeof f->method);
            if (rep == 0 && k == 0)
                for (int m = 0; m < 2; m++)
                    if (strcmp(conf[0].method, methods[m]) != 0 && nconf < MAX_CONF)
                        conf[nconf++] = (null_conf){ .compress = methods[m] };
        }
    }

    char note[256];
    snprintf(note, sizeof note, "ECL's default clock; ECL's default compression "
             "(ECL_COMPRESS unset): %s", conf[0].method[0] ? conf[0].method : "unknown");
    bench_table_header("(f1) the null MPI call MPI_Test(&MPI_REQUEST_NULL), 1 rank", note);
    printf("%d runs, one mpirun per configuration and run, the configurations interleaved.\n"
           "A run: a warm-up, then %llu calls each of plain, traced, paused, and the clock\n"
           "pair, in that order. added = row - plain within the same run. Min and median over\n"
           "the runs, ns per call. Each traced call writes one record (duration, request,\n"
           "flag); ECL's writer thread writes full buffers beside it.\n\n", reps,
           (unsigned long long)n);
    printf("%-54s %17s %17s\n", "", "ns/call", "added");
    printf("%-54s %8s %8s %8s %8s\n", "call", "min", "median", "min", "median");
    printf("%-54s", "PMPI_Test (plain, no wrapper)");
    bench_cells_min_median(conf[0].plain, reps, 8, 1, 1);
    printf("\n%-54s", "MPI_Test, tracing paused (the wrapper passes through)");
    bench_cells_min_median(conf[0].paused, reps, 8, 1, 1);
    bench_cells_min_median(conf[0].paused_added, reps, 8, 1, 1);
    printf("\n");
    for (int k = 0; k < nconf; k++) {
        null_conf *f = &conf[k];
        char label[128];
        if (f->groups) {
            printf("%-54s", "MPI_Test, its group off (ECL_MPI_GROUPS without p2p)");
            bench_cells_min_median(f->traced, reps, 8, 1, 1);
            bench_cells_min_median(f->added, reps, 8, 1, 1);
            printf("   target added <= 5 ns\n");
            continue;
        }
        if (f->compress)
            snprintf(label, sizeof label, "MPI_Test traced, ECL_COMPRESS=%s", f->compress);
        else
            snprintf(label, sizeof label, "MPI_Test traced, default (%s)",
                     f->method[0] ? f->method : "unknown");
        printf("%-54s", label);
        bench_cells_min_median(f->traced, reps, 8, 1, 1);
        bench_cells_min_median(f->added, reps, 8, 1, 1);
        printf(k == 0 ? "   target added <= 25 ns (quiet machine)\n" : "\n");
    }
    printf("%-54s", "two back-to-back cycle-counter reads (the floor)");
    bench_cells_min_median(conf[0].clock2, reps, 8, 1, 1);
    printf("\n");
    printf("\nThe call alone: per run, the fastest of %d segments of %d calls of each of\n"
           "plain, traced (ECL's default) and the clock pair, in turn; added = traced - plain.\n"
           "Min and median over the runs, ns per call.\n\n", HOT_SEGMENTS, HOT_CALLS);
    printf("%-54s %8s %8s\n", "", "min", "median");
    printf("%-54s", "MPI_Test traced, added, fastest segments");
    bench_cells_min_median(conf[0].added_hot, reps, 8, 1, 1);
    printf("   target added <= 25 ns\n%-54s", "two back-to-back cycle-counter reads, fastest segment");
    bench_cells_min_median(conf[0].clock2_hot, reps, 8, 1, 1);
    printf("\n");
    for (int k = 0; k < nconf; k++)
        if (conf[k].failed)
            printf("note: the runs with ECL_COMPRESS=%s failed (message on stderr)\n",
                   conf[k].compress ? conf[k].compress : "unset");
    char why[512];
    peer_packages(why, sizeof why);
    printf("\n%-54s %8s   target <= 0.2\n", "ECL added / mpiP -k 0 added, same run", "n/a");
    printf("  not measured: there is no mpiP (nor Score-P) to run. The project takes Debian\n"
           "  packages only, and Debian has none: %s.\n\n", why);
}

static void table_pingpong(void)
{
    uint64_t iters = bench_scaled(20000);
    int reps = bench_reps();
    if (reps > MAX_REPS)
        reps = MAX_REPS;
    char dir[4096];
    bench_mkdtemp("mpi-pingpong", dir, sizeof dir);
    bench_child c;
    fprintf(stderr, "bench_mpi: ping-pong...\n");
    char *env[] = { (char *)"ECL_COMPRESS", NULL };
    int rc = run_mpi(2, "--pingpong", iters, reps, dir, env, &c, BENCH_OUT_CAPTURE);
    bench_rmtree(dir);
    bench_table_header("(f2) ping-pong one-way latency, 2 ranks, plain vs traced in one run",
                       "wall clock; ECL's default configuration (ECL_COMPRESS unset)");
    printf("%d pairs of rounds of %llu round trips; plain = PMPI_Send/PMPI_Recv, traced =\n"
           "MPI_Send/MPI_Recv through ECL; the rounds alternate. R %% = 100 (traced - plain) /\n"
           "plain within each pair. Min and median over the pairs.\n\n", reps,
           (unsigned long long)iters);
    if (rc != 0) {
        printf("n/a: the run failed (status %d)\n\n", c.status);
        return;
    }
    printf("%-10s %17s %17s %17s\n", "", "plain us", "traced us", "R %");
    printf("%-10s %8s %8s %8s %8s %8s %8s\n", "message", "min", "median", "min", "median", "min",
           "median");
    static const int sizes[2] = { 0, 1024 };
    for (int s = 0; s < 2; s++) {
        double p[MAX_REPS], t[MAX_REPS], r[MAX_REPS];
        for (int k = 0; k < reps; k++) {
            char kp[48], kt[48];
            snprintf(kp, sizeof kp, "plain_%d_%d", sizes[s], k);
            snprintf(kt, sizeof kt, "traced_%d_%d", sizes[s], k);
            p[k] = bench_kv(c.out, kp) / 1e3;
            t[k] = bench_kv(c.out, kt) / 1e3;
            r[k] = 100 * (t[k] - p[k]) / p[k];
        }
        printf("%-10s", sizes[s] ? "1 KiB" : "0 B");
        bench_cells_min_median(p, reps, 8, 3, 1);
        bench_cells_min_median(t, reps, 8, 3, 1);
        bench_cells_min_median(r, reps, 8, 1, 1);
        printf("\n");
    }
    printf("\n");
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "--null") == 0)
        return child_null(strtoull(argv[2], NULL, 10));
    if (argc == 4 && strcmp(argv[1], "--pingpong") == 0)
        return child_pingpong(strtoull(argv[2], NULL, 10), atoi(argv[3]));
    if (argc != 1) {
        fprintf(stderr, "usage: bench_mpi   (environment: MPIRUN, BENCH_SCALE, BENCH_REPS)\n");
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    table_calls();
    table_pingpong();
    return 0;
}
