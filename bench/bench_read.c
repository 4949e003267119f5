/* bench_read.c -- tables (c) and (d): how fast PAL reads a native trace on one
 * core (iterate only, a field by name, the same field through a handle), and
 * the peak memory of writing and of reading that trace.
 *
 * Each run writes the 10 M-record enter/leave trace once per compression
 * method (ECL's default, then the others) and once more with the default
 * written by 16 threads (16 streams, read in time order), each in a child
 * process, and reads
 * every trace in every access mode, each read in a child too, so that every
 * row's peak RSS (wait4 ru_maxrss, the kernel's VmHWM) belongs to that phase
 * alone. The runs repeat BENCH_REPS times (default 7), every configuration
 * once per run. Prints tables; never fails on time. */
#include <config.h>

#include "bench/bench_common.h"
#include "bench/bench_pal.h"
#include "bench/bench_work.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const mode_names[3] = { "iterate", "name", "handle" };
static const char *const mode_labels[3] = {
    "iterate only (pal_reader_next)",
    "region by name (pal_record_get_u64)",
    "region by handle (pal_record_u64)",
};

#define MAX_REPS 64

/* ---------------- child ---------------- */

/* CPU time of this process in seconds: on a shared machine, what a pass
 * cost its core, where the wall clock also counts the time it waited. */
static double cpu_sec(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* --read PATH MODE: one pass, open to close. */
static int child_read(const char *path, const char *mode_name)
{
    int mode = -1;
    for (int m = 0; m < 3; m++)
        if (strcmp(mode_name, mode_names[m]) == 0)
            mode = m;
    if (mode < 0)
        return 2;
    uint64_t records = 0, hits = 0, sum = 0;
    char err[512];
    double t0 = bench_now_ns(), c0 = cpu_sec();
    if (bench_pal_read(path, (bench_read_mode)mode, &records, &hits, &sum, err, sizeof err) != 0) {
        fprintf(stderr, "bench_read: %s: %s\n", path, err);
        return 1;
    }
    double c1 = cpu_sec();
    printf("sec=%.6f\ncpu=%.6f\nrecords=%llu\nhits=%llu\nsum=%llu\n", (bench_now_ns() - t0) / 1e9,
           c1 - c0, (unsigned long long)records, (unsigned long long)hits, (unsigned long long)sum);
    return 0;
}

/* ---------------- parent ---------------- */

typedef struct trace_run {
    const char *compress;      /* the method, as ECL names it */
    int is_default;            /* written with ECL_COMPRESS unset */
    int threads;               /* written by this many threads (streams) */
    int failed;                /* a write failed: no more runs */
    char path[4096];           /* this run's trace ("" when the write failed) */
    double bytes[MAX_REPS], events[MAX_REPS], write_s[MAX_REPS], write_mib[MAX_REPS];
    double rate[3][MAX_REPS], cpurate[3][MAX_REPS], mbs[3][MAX_REPS], records[3][MAX_REPS], read_mib[3][MAX_REPS];
    double hits_short;         /* enter/leave read back by handle in a short run, else -1 */
    double events_short;
    char settings[512];        /* ECL's own account of its buffers (ECL_VERBOSE) */
} trace_run;

static void write_trace(trace_run *t, uint64_t n, int rep, const char *tmp)
{
    char dir[4200];
    t->path[0] = '\0';
    t->bytes[rep] = t->events[rep] = t->write_s[rep] = t->write_mib[rep] = NAN;
    if (t->failed)
        return;
    snprintf(dir, sizeof dir, "%s/%s-%dt-%d", tmp, t->compress, t->threads, rep);
    bench_child c;
    uint64_t per = n / (uint64_t)t->threads & ~(uint64_t)1;   /* per thread, whole pairs */
    /* no read-back: the peak RSS is the writer's alone */
    if (bench_ecl_spawn("enter_leave", t->threads, per, 0, t->is_default ? NULL : t->compress,
                        dir, &c) != 0 ||
        bench_kv_str(c.out, "trace", t->path, sizeof t->path) != 0) {
        fprintf(stderr, "bench_read: writing the %s trace failed (status %d):\n%s", t->compress,
                c.status, c.out);
        t->failed = 1;
        t->path[0] = '\0';
        return;
    }
    if (!t->settings[0])
        bench_ecl_settings(c.out, t->settings, sizeof t->settings);
    t->bytes[rep] = bench_kv(c.out, "bytes");
    t->events[rep] = bench_kv(c.out, "events");
    /* ns is open -> close per event and thread */
    t->write_s[rep] = bench_kv(c.out, "ns") * (double)per / 1e9;
    t->write_mib[rep] = bench_mib(c.maxrss_kib);
}

static void read_trace(trace_run *t, int mode, int rep)
{
    char *argv[] = { (char *)bench_self(), "--read", t->path, (char *)mode_names[mode], NULL };
    bench_child c;
    t->rate[mode][rep] = t->cpurate[mode][rep] = t->mbs[mode][rep] = NAN;
    t->records[mode][rep] = NAN;
    t->read_mib[mode][rep] = NAN;
    if (!t->path[0] || bench_spawn(argv, NULL, BENCH_OUT_CAPTURE, &c) != 0)
        return;
    double sec = bench_kv(c.out, "sec"), records = bench_kv(c.out, "records");
    t->records[mode][rep] = records;
    t->rate[mode][rep] = records / sec;
    t->cpurate[mode][rep] = records / bench_kv(c.out, "cpu");
    t->mbs[mode][rep] = t->bytes[rep] / sec;
    t->read_mib[mode][rep] = bench_mib(c.maxrss_kib);
    /* region_def records carry a region too, so hits may exceed events */
    double hits = bench_kv(c.out, "hits");
    if (mode == 2 && hits < t->events[rep]) {
        t->hits_short = hits;
        t->events_short = t->events[rep];
    }
}

/* The largest value (peak memory: the worst run counts). */
static double max_of(const double *v, int reps)
{
    double m = NAN;
    for (int i = 0; i < reps; i++)
        if (!isnan(v[i]) && (isnan(m) || v[i] > m))
            m = v[i];
    return m;
}

static void print_tables(trace_run *runs, int nruns, uint64_t n, int reps, long noop_kib,
                         const char *dflt)
{
    char note[512];
    snprintf(note, sizeof note, "trace: %llu enter/leave records written by ECL (1 thread, "
             "or 16 threads: 16 streams read in time order); read back from memory (tmpfs "
             "or page cache)\nECL's default compression (ECL_COMPRESS unset): %s",
             (unsigned long long)n, dflt);
    bench_table_header("(c) PAL read throughput, one core", note);
    printf("%d runs, interleaved: each run writes every trace afresh, then reads each in "
           "every mode,\none pass per process from open to close. Min and median over the runs; "
           "the records\ncolumn is what the pass read back. MB/s counts trace-file bytes "
           "(compressed bytes\nwhen compressed). Mrec/CPU-s: records per second of the "
           "pass's CPU time (its\nown core's work, what the targets mean on a shared "
           "machine).\n\n", reps);
    printf("%-14s %-36s %15s %15s %15s %10s\n", "", "", "Mrec/s", "Mrec/CPU-s", "MB/s", "");
    printf("%-14s %-36s %7s %7s %7s %7s %7s %7s %10s\n", "trace", "access", "min", "median",
           "min", "median", "min", "median", "records");
    for (int i = 0; i < nruns; i++) {
        trace_run *t = &runs[i];
        char name[32];
        snprintf(name, sizeof name, "%s%s", t->compress, t->is_default ? " (default)" : "");
        for (int m = 0; m < 3; m++) {
            double mn, md;
            printf("%-14s %-36s", m == 0 ? name : m == 1 && t->threads > 1 ? "16 threads" : "",
                   mode_labels[m]);
            bench_cells_min_median(t->rate[m], reps, 7, 1, 1e-6);
            bench_cells_min_median(t->cpurate[m], reps, 7, 1, 1e-6);
            bench_cells_min_median(t->mbs[m], reps, 7, 1, 1e-6);
            bench_min_median(t->records[m], reps, &mn, &md);
            bench_cell(md, 10, 0);
            if (m == 0 && t->threads > 1)
                printf("   target >= 60 Mrec/s\n");
            else if (m == 2 && t->threads == 1)
                printf("   target >= 200 Mrec/s\n");
            else
                printf("\n");
        }
        if (t->failed)
            printf("               note: writing this trace failed (message on stderr)\n");
        if (t->hits_short >= 0)
            printf("               note: a run read back only %.0f enter/leave records, %.0f "
                   "were written\n", t->hits_short, t->events_short);
    }

    const char *bufsize = getenv("ECL_BUFFER_SIZE"), *bufcount = getenv("ECL_BUFFER_COUNT");
    char settings[1400];
    int k = snprintf(settings, sizeof settings, "buffer settings: ECL_BUFFER_SIZE=%s, "
                     "ECL_BUFFER_COUNT=%s",
                     bufsize && bufsize[0] ? bufsize : "(default)",
                     bufcount && bufcount[0] ? bufcount : "(default)");
    for (int i = 0; i < nruns; i++)
        if (runs[i].settings[0] && k > 0 && (size_t)k < sizeof settings)
            k += snprintf(settings + k, sizeof settings - (size_t)k, "\nECL says (%s): %s",
                          runs[i].compress, runs[i].settings);
    bench_table_header("(d) peak resident memory (VmHWM of the process)", settings);
    printf("The same runs as (c): peak MiB is the largest over the %d runs; time s (open to "
           "close)\nmin and median.\n\n", reps);
    printf("%-52s %9s %9s %8s %8s\n", "process", "peak MiB", "file MB", "time s", "");
    printf("%-52s %9s %9s %8s %8s\n", "", "", "", "min", "median");
    printf("%-52s", "empty bench process (baseline)");
    bench_cell(noop_kib >= 0 ? bench_mib(noop_kib) : NAN, 9, 1);
    printf("\n");
    for (int i = 0; i < nruns; i++) {
        trace_run *t = &runs[i];
        char label[128];
        double mn, md;
        snprintf(label, sizeof label, "ECL writes %llu records, %s%s%s", (unsigned long long)n,
                 t->compress, t->is_default ? " (default)" : "",
                 t->threads > 1 ? ", 16 thr" : "");
        printf("%-52s", label);
        bench_cell(max_of(t->write_mib, reps), 9, 1);
        bench_min_median(t->bytes, reps, &mn, &md);
        bench_cell(md / 1e6, 9, 1);
        bench_cells_min_median(t->write_s, reps, 8, 2, 1);
        printf("\n");
    }
    for (int i = 0; i < nruns; i++) {
        trace_run *t = &runs[i];
        for (int m = 0; m < 3; m++) {
            char label[128];
            double mn, md;
            snprintf(label, sizeof label, "PAL reads it (%s), %s%s", mode_names[m], t->compress,
                     t->threads > 1 ? ", 16 thr" : "");
            printf("%-52s", label);
            bench_cell(max_of(t->read_mib[m], reps), 9, 1);
            bench_min_median(t->bytes, reps, &mn, &md);
            bench_cell(md / 1e6, 9, 1);
            double sec[MAX_REPS];
            for (int r = 0; r < reps; r++)
                sec[r] = t->records[m][r] / t->rate[m][r];
            bench_cells_min_median(sec, reps, 8, 2, 1);
            printf("\n");
        }
    }
}

int main(int argc, char **argv)
{
    int rc = bench_ecl_child_main(argc, argv);
    if (rc >= 0)
        return rc;
    if (argc == 4 && strcmp(argv[1], "--read") == 0)
        return child_read(argv[2], argv[3]);
    if (argc == 2 && strcmp(argv[1], "--noop") == 0)
        return 0;
    if (argc != 1) {
        fprintf(stderr, "usage: bench_read   (environment: BENCH_SCALE, BENCH_REPS, "
                        "BENCH_KEEP_TRACES, ECL_*)\n");
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    uint64_t n = bench_scaled(10000000) & ~(uint64_t)1;
    int reps = bench_reps();
    if (reps > MAX_REPS)
        reps = MAX_REPS;
    char tmp[4096], dflt[32];
    bench_mkdtemp("read", tmp, sizeof tmp);
    bench_ecl_default_compression(tmp, dflt, sizeof dflt);

    /* ECL's default first (written with ECL_COMPRESS unset), then none and
     * zlib where they are not the default, then the default by 16 threads. */
    trace_run runs[4];
    int nruns = 0;
    runs[nruns++] = (trace_run){ .compress = dflt, .is_default = 1, .threads = 1,
                                 .hits_short = -1 };
    static const char *const others[2] = { "none", "zlib" };
    for (int i = 0; i < 2; i++)
        if (strcmp(dflt, others[i]) != 0)
            runs[nruns++] = (trace_run){ .compress = others[i], .threads = 1, .hits_short = -1 };
    runs[nruns++] = (trace_run){ .compress = dflt, .is_default = 1, .threads = 16,
                                 .hits_short = -1 };

    fprintf(stderr, "bench_read: %d runs of writing and reading %d traces of %llu records...\n",
            reps, nruns, (unsigned long long)n);
    for (int rep = 0; rep < reps; rep++) {
        for (int i = 0; i < nruns; i++)
            write_trace(&runs[i], n, rep, tmp);
        for (int i = 0; i < nruns; i++)
            for (int m = 0; m < 3; m++)
                read_trace(&runs[i], m, rep);
        for (int i = 0; i < nruns; i++) {
            char dir[4200];
            snprintf(dir, sizeof dir, "%s/%s-%dt-%d", tmp, runs[i].compress, runs[i].threads,
                     rep);
            bench_rmtree(dir);
        }
    }
    char *noop_argv[] = { (char *)bench_self(), "--noop", NULL };
    bench_child c;
    long noop_kib = bench_spawn(noop_argv, NULL, BENCH_OUT_CAPTURE, &c) == 0 ? c.maxrss_kib : -1;

    print_tables(runs, nruns, n, reps, noop_kib, dflt);
    bench_rmtree(tmp);
    return 0;
}
