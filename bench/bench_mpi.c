/* bench_mpi.c -- table (f): what the MPI profiling layer costs, plain and
 * traced side by side in the same runs, and how fast ecl-merge merges.
 *
 *   (f1) the null MPI call MPI_Test(&MPI_REQUEST_NULL): PMPI_Test (plain),
 *        MPI_Test with tracing paused (the wrapper's pass-through) and traced;
 *        two back-to-back clock reads for scale. One rank.
 *   (f2) ping-pong one-way latency, 0 B and 1 KiB, 2 ranks: PMPI_Send/Recv
 *        (plain) and MPI_Send/Recv (traced) in alternating rounds of one run,
 *        R = 100 (T_traced - T_plain) / T_plain.
 *   (f3) ecl-merge on 4 ranks x N records (each rank makes N traced MPI_Test
 *        calls): records/s and peak RSS, for two N (memory independent of N).
 *
 * The driver (no arguments) starts `mpirun` runs of this program in child
 * modes and prints the tables; environment: MPIRUN, ECL_MERGE_PROG (from
 * make bench), BENCH_SCALE, BENCH_REPS. Never fails on time. */
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

static int child_null(uint64_t n, int reps)
{
    MPI_Init(NULL, NULL);
    double plain[32], traced[32], paused[32], clk[32];
    if (reps > 32)
        reps = 32;
    per_call(0, n / 10);
    per_call(1, n / 10);
    for (int k = 0; k < reps; k++) {
        plain[k] = per_call(0, n);
        traced[k] = per_call(1, n);
        ecl_pause();
        paused[k] = per_call(1, n);
        ecl_resume();
        clk[k] = per_call(2, n);
    }
    printf("plain=%.3f\ntraced=%.3f\npaused=%.3f\nclock2=%.3f\n", bench_median(plain, reps),
           bench_median(traced, reps), bench_median(paused, reps), bench_median(clk, reps));
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
    if (reps > 32)
        reps = 32;
    static const int sizes[2] = { 0, 1024 };
    for (int s = 0; s < 2; s++) {
        double p[32], t[32];
        pingpong(rank, 0, sizes[s], iters / 10, buf);
        pingpong(rank, 1, sizes[s], iters / 10, buf);
        for (int k = 0; k < reps; k++) {
            p[k] = pingpong(rank, 0, sizes[s], iters, buf);
            t[k] = pingpong(rank, 1, sizes[s], iters, buf);
        }
        if (rank == 0)
            printf("plain_%d=%.4f\ntraced_%d=%.4f\n", sizes[s], bench_median(p, reps), sizes[s],
                   bench_median(t, reps));
    }
    MPI_Finalize();
    return 0;
}

static int child_gen(uint64_t n)
{
    MPI_Request r = MPI_REQUEST_NULL;
    int flag;
    MPI_Init(NULL, NULL);
    for (uint64_t i = 0; i < n; i++)
        MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
    MPI_Finalize();
    return 0;
}

/* ---------------- the driver ---------------- */

static const char *mpirun(void)
{
    const char *m = getenv("MPIRUN");
    return m != NULL && *m ? m : "mpirun";
}

static int run_mpi(int np, const char *mode, uint64_t n, int reps, const char *dir,
                   const char *extra_env, bench_child *c, int out)
{
    char snp[16], sn[32], sr[16], edir[4200];
    snprintf(snp, sizeof snp, "%d", np);
    snprintf(sn, sizeof sn, "%llu", (unsigned long long)n);
    snprintf(sr, sizeof sr, "%d", reps);
    snprintf(edir, sizeof edir, "ECL_DIR=%s", dir);
    /* --oversubscribe only when needed: it makes Open MPI yield while polling,
     * which would put scheduler latency into the ping-pong */
    char *argv[] = { (char *)mpirun(), (char *)"-np", snp, (char *)bench_self(), (char *)mode,
                     sn, sr, NULL, NULL };
    if (np > 2) {
        memmove(argv + 2, argv + 1, 7 * sizeof argv[0]);
        argv[1] = (char *)"--oversubscribe";
    }
    char *env[] = { edir, (char *)"ECL_MERGE=0", (char *)"OMPI_ALLOW_RUN_AS_ROOT=1",
                    (char *)"OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1", (char *)extra_env, NULL };
    return bench_spawn(argv, env, out, c);
}

static void table_calls(void)
{
    uint64_t n = bench_scaled(2000000);
    int reps = bench_reps(5);
    char dir[4096];
    bench_table_header("(f1) the null MPI call MPI_Test(&MPI_REQUEST_NULL), 1 rank",
                       "ECL's default clock (cycle counter)");
    printf("Median of %d rounds of %llu calls; ns per call. Each traced call writes one\n"
           "record (duration, request, flag); ECL's writer thread writes full buffers\n"
           "beside it (ECL_COMPRESS=none, the default) or compresses them first (zlib),\n"
           "on this machine's other core.\n", reps, (unsigned long long)n);
    printf("%-56s %9s %9s\n", "call", "ns/call", "added");
    static const char *const comp[2] = { "ECL_COMPRESS=none", "ECL_COMPRESS=zlib" };
    for (int k = 0; k < 2; k++) {
        bench_child c;
        char label[128];
        bench_mkdtemp("mpi-null", dir, sizeof dir);
        if (run_mpi(1, "--null", n, reps, dir, comp[k], &c, BENCH_OUT_CAPTURE) != 0) {
            printf("n/a: the run with %s failed (status %d)\n", comp[k], c.status);
            bench_rmtree(dir);
            continue;
        }
        double plain = bench_kv(c.out, "plain"), traced = bench_kv(c.out, "traced");
        if (k == 0) {
            printf("%-56s", "PMPI_Test (plain, no wrapper)");
            bench_cell(plain, 9, 1);
            printf("\n%-56s", "MPI_Test, tracing paused (the wrapper passes through)");
            bench_cell(bench_kv(c.out, "paused"), 9, 1);
            bench_cell(bench_kv(c.out, "paused") - plain, 9, 1);
            printf("\n");
        }
        snprintf(label, sizeof label, "MPI_Test traced, %s%s", comp[k], k == 0 ? " (default)" : "");
        printf("%-56s", label);
        bench_cell(traced, 9, 1);
        bench_cell(traced - plain, 9, 1);
        printf("   target added <= 25 ns\n");
        if (k == 0) {
            printf("%-56s", "two back-to-back cycle-counter reads (the floor)");
            bench_cell(bench_kv(c.out, "clock2"), 9, 1);
            printf("\n");
        }
        bench_rmtree(dir);
    }
    printf("\n");
}

static void table_pingpong(void)
{
    uint64_t iters = bench_scaled(20000);
    int reps = bench_reps(5);
    char dir[4096];
    bench_mkdtemp("mpi-pingpong", dir, sizeof dir);
    bench_child c;
    bench_table_header("(f2) ping-pong one-way latency, 2 ranks, plain vs traced in one run",
                       "wall clock");
    printf("Median of %d rounds of %llu round trips each way; plain = PMPI_Send/PMPI_Recv,\n"
           "traced = MPI_Send/MPI_Recv through ECL; rounds alternate.\n", reps,
           (unsigned long long)iters);
    if (run_mpi(2, "--pingpong", iters, reps, dir, NULL, &c, BENCH_OUT_CAPTURE) != 0) {
        printf("n/a: the run failed (status %d)\n\n", c.status);
        bench_rmtree(dir);
        return;
    }
    printf("%-10s %12s %12s %10s\n", "message", "plain us", "traced us", "R %");
    static const int sizes[2] = { 0, 1024 };
    for (int s = 0; s < 2; s++) {
        char kp[32], kt[32];
        snprintf(kp, sizeof kp, "plain_%d", sizes[s]);
        snprintf(kt, sizeof kt, "traced_%d", sizes[s]);
        double p = bench_kv(c.out, kp), t = bench_kv(c.out, kt);
        printf("%-10s", sizes[s] ? "1 KiB" : "0 B");
        bench_cell(p / 1e3, 12, 3);
        bench_cell(t / 1e3, 12, 3);
        bench_cell(100 * (t - p) / p, 10, 1);
        printf("\n");
    }
    printf("\n");
    bench_rmtree(dir);
}

static void table_merge(void)
{
    const char *merge = getenv("ECL_MERGE_PROG");
    char mbuf[4096];
    if (merge == NULL || *merge == '\0')
        merge = bench_sibling("../ecl/mpi/ecl-merge", mbuf, sizeof mbuf);
    bench_table_header("(f3) ecl-merge: 4 ranks x N records (traced MPI_Test calls)",
                       "wall clock");
    if (merge == NULL) {
        printf("n/a: ecl-merge not found (set ECL_MERGE_PROG)\n\n");
        return;
    }
    printf("%-12s %12s %9s %11s %10s %9s\n", "N per rank", "records", "time s", "Mrec/s",
           "peak MiB", "in MB");
    const uint64_t ns[2] = { bench_scaled(1000000), bench_scaled(5000000) };
    for (int k = 0; k < 2; k++) {
        char dir[4096], out[4200], in[4][4200];
        bench_mkdtemp("mpi-merge", dir, sizeof dir);
        bench_child c;
        if (run_mpi(4, "--gen", ns[k], 1, dir, NULL, &c, BENCH_OUT_NULL) != 0) {
            printf("%-12llu n/a: the traced run failed (status %d)\n",
                   (unsigned long long)ns[k], c.status);
            bench_rmtree(dir);
            continue;
        }
        uint64_t bytes = 0;
        for (int r = 0; r < 4; r++) {
            snprintf(in[r], sizeof in[r], "%s/trace.%d.ecl", dir, r);
            bytes += bench_path_bytes(in[r]);
        }
        snprintf(out, sizeof out, "%s/trace.ecl", dir);
        char *argv[] = { (char *)merge, (char *)"-o", out, in[0], in[1], in[2], in[3], NULL };
        bench_spawn(argv, NULL, BENCH_OUT_CAPTURE_ALL, &c);
        unsigned long long recs = 0;
        const char *p = strstr(c.out, "': ");
        if (c.status != 0 || p == NULL || sscanf(p + 3, "%llu records", &recs) != 1) {
            printf("%-12llu n/a: ecl-merge failed (status %d): %s\n", (unsigned long long)ns[k],
                   c.status, c.out);
        } else {
            printf("%-12llu %12llu", (unsigned long long)ns[k], recs);
            bench_cell(c.wall_ns / 1e9, 9, 2);
            bench_cell((double)recs / (c.wall_ns / 1e9) / 1e6, 11, 1);
            bench_cell(bench_mib(c.maxrss_kib), 10, 1);
            bench_cell((double)bytes / 1e6, 9, 1);
            printf(k == 1 ? "   target >= 20 Mrec/s\n" : "\n");
        }
        bench_rmtree(dir);
    }
    printf("Peak RSS is the ecl-merge process's; the same for both N when memory does not\n"
           "grow with trace length.\n\n");
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "--null") == 0)
        return child_null(strtoull(argv[2], NULL, 10), atoi(argv[3]));
    if (argc == 4 && strcmp(argv[1], "--pingpong") == 0)
        return child_pingpong(strtoull(argv[2], NULL, 10), atoi(argv[3]));
    if (argc == 4 && strcmp(argv[1], "--gen") == 0)
        return child_gen(strtoull(argv[2], NULL, 10));
    if (argc != 1) {
        fprintf(stderr, "usage: bench_mpi   (environment: MPIRUN, ECL_MERGE_PROG, BENCH_SCALE, "
                "BENCH_REPS)\n");
        return 2;
    }
    table_calls();
    table_pingpong();
    table_merge();
    return 0;
}
