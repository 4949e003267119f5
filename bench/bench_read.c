/* bench_read.c -- tables (c) and (d): how fast PAL reads a native trace on one
 * core (iterate only, a field by name, the same field through a handle), and
 * the peak memory of writing and of reading that trace.
 *
 * The 10 M-record trace is written first by ECL (uncompressed and zlib), each
 * in a child process; each read runs in a child too, so that every row's peak
 * RSS (wait4 ru_maxrss, the kernel's VmHWM) belongs to that phase alone.
 * Prints tables; never fails on time. */
#include <config.h>

#include "bench/bench_common.h"
#include "bench/bench_work.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const mode_names[3] = { "iterate", "name", "handle" };
static const char *const mode_labels[3] = {
    "iterate only (pal_reader_next)",
    "region by name (pal_record_get_u64)",
    "region by handle (pal_record_u64)",
};

/* ---------------- children ---------------- */

static int child_write(uint64_t n)
{
    bench_ecl_work w;
    int rc = bench_ecl_setup(&w);
    if (rc != 0)
        return rc;
    double t0 = bench_now_ns();
    uint64_t keep = bench_loop_enter_leave(n, 0, &w);
    double t1 = bench_now_ns();
    BENCH_KEEP(keep);
    ecl_status st = ecl_finalize();
    double t2 = bench_now_ns();
    if (st != ECL_OK) {
        fprintf(stderr, "bench_read: ecl_finalize: %s\n", ecl_status_string(st));
        return 1;
    }
    char path[4096] = "";
    const char *dir = getenv("ECL_DIR");
    if (!dir || bench_find_file(dir, ".ecl", path, sizeof path) != 0) {
        fprintf(stderr, "bench_read: no trace file under ECL_DIR\n");
        return 1;
    }
    printf("ns=%.4f\ntotal_s=%.6f\nevents=%llu\ntrace=%s\n", (t1 - t0) / (double)n,
           (t2 - t0) / 1e9, (unsigned long long)bench_ecl_events(), path);
    return 0;
}

static int child_read(const char *path, const char *mode_name, int reps)
{
    int mode = -1;
    for (int m = 0; m < 3; m++)
        if (strcmp(mode_name, mode_names[m]) == 0)
            mode = m;
    if (mode < 0)
        return 2;
    double *sec = calloc((size_t)reps, sizeof *sec);
    uint64_t records = 0, hits = 0, sum = 0;
    char err[512];
    for (int r = 0; r < reps; r++) {
        double t0 = bench_now_ns();
        if (bench_pal_read(path, (bench_read_mode)mode, &records, &hits, &sum, err,
                           sizeof err) != 0) {
            fprintf(stderr, "bench_read: %s: %s\n", path, err);
            return 1;
        }
        sec[r] = (bench_now_ns() - t0) / 1e9;
    }
    printf("sec=%.6f\nrecords=%llu\nhits=%llu\nsum=%llu\n", bench_median(sec, reps),
           (unsigned long long)records, (unsigned long long)hits, (unsigned long long)sum);
    free(sec);
    return 0;
}

/* ---------------- parent ---------------- */

typedef struct trace_run {
    const char *compress;
    int ok;
    char path[4096];
    double bytes, events, write_ns, write_total_s;
    long write_rss_kib;
    double sec[3], records[3], hits[3];
    long read_rss_kib[3];
    char settings[512];        /* ECL's own account of its buffers (ECL_VERBOSE) */
} trace_run;

/* ECL_VERBOSE=1 makes ecl_init say "ecl: tracing to 'PATH' (clock ..., N buffers
 * of B bytes per thread; ...)"; the parenthesis is copied into buf. */
static void ecl_settings(const char *out, char *buf, size_t len)
{
    const char *p = strstr(out, "ecl: tracing to '");
    buf[0] = '\0';
    if (!p || !(p = strstr(p, "' (")))
        return;
    p += 3;
    size_t n = strcspn(p, "\n");
    if (n > 0 && p[n - 1] == ')')
        n--;
    snprintf(buf, len, "%.*s", (int)n, p);
}

static void write_trace(trace_run *t, uint64_t n, const char *tmp)
{
    char nbuf[32], dir[4200], env_dir[4300], env_comp[64];
    char *env[] = { env_dir, "ECL_PREFIX=bench", env_comp, "ECL_VERBOSE=1", NULL };
    char *argv[] = { (char *)bench_self(), "--write", nbuf, NULL };
    snprintf(nbuf, sizeof nbuf, "%llu", (unsigned long long)n);
    snprintf(dir, sizeof dir, "%s/%s", tmp, t->compress);
    snprintf(env_dir, sizeof env_dir, "ECL_DIR=%s", dir);
    snprintf(env_comp, sizeof env_comp, "ECL_COMPRESS=%s", t->compress);
    bench_child c;
    if (bench_spawn(argv, env, BENCH_OUT_CAPTURE_ALL, &c) != 0) {
        fprintf(stderr, "bench_read: writing the %s trace failed (status %d):\n%s", t->compress,
                c.status, c.out);
        return;
    }
    ecl_settings(c.out, t->settings, sizeof t->settings);
    if (bench_kv_str(c.out, "trace", t->path, sizeof t->path) != 0)
        return;
    t->ok = 1;
    t->bytes = (double)bench_path_bytes(t->path);
    t->events = bench_kv(c.out, "events");
    t->write_ns = bench_kv(c.out, "ns");
    t->write_total_s = bench_kv(c.out, "total_s");
    t->write_rss_kib = c.maxrss_kib;
}

static void read_trace(trace_run *t, int mode, int reps)
{
    char rbuf[16];
    char *argv[] = { (char *)bench_self(), "--read", t->path, (char *)mode_names[mode], rbuf,
                     NULL };
    snprintf(rbuf, sizeof rbuf, "%d", reps);
    bench_child c;
    t->sec[mode] = t->records[mode] = t->hits[mode] = NAN;
    t->read_rss_kib[mode] = -1;
    if (!t->ok || bench_spawn(argv, NULL, BENCH_OUT_CAPTURE, &c) != 0)
        return;
    t->sec[mode] = bench_kv(c.out, "sec");
    t->records[mode] = bench_kv(c.out, "records");
    t->hits[mode] = bench_kv(c.out, "hits");
    t->read_rss_kib[mode] = c.maxrss_kib;
}

static void print_tables(trace_run *runs, int nruns, uint64_t n, int reps, long noop_kib)
{
    char note[256];
    snprintf(note, sizeof note, "trace: %llu enter/leave records written by ECL (1 thread); "
             "read back from memory (tmpfs or page cache)", (unsigned long long)n);
    bench_table_header("(c) PAL read throughput, one core", note);
    printf("Median of %d passes; each pass opens the trace and reads every record.\n"
           "MB/s counts trace-file bytes (compressed bytes for zlib).\n\n", reps);
    printf("%-6s %-37s %9s %9s %8s %12s\n", "trace", "access", "Mrec/s", "MB/s", "ns/rec",
           "records");
    for (int i = 0; i < nruns; i++) {
        trace_run *t = &runs[i];
        for (int m = 0; m < 3; m++) {
            double s = t->sec[m];
            printf("%-6s %-37s", m == 0 ? t->compress : "", mode_labels[m]);
            bench_cell(t->records[m] / s / 1e6, 9, 1);
            bench_cell(t->bytes / s / 1e6, 9, 1);
            bench_cell(s * 1e9 / t->records[m], 8, 2);
            bench_cell(t->records[m], 12, 0);
            printf(m == 2 ? "   target >= 100 Mrec/s\n" : "\n");
        }
        /* region_def records carry a region too, so hits may exceed events. */
        if (t->ok && t->hits[2] < t->events)
            printf("       note: only %.0f enter/leave records read back, %.0f were written\n",
                   t->hits[2], t->events);
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
    printf("%-52s %10s %9s %9s\n", "process", "peak MiB", "file MB", "time s");
    printf("%-52s", "empty bench process (baseline)");
    bench_cell(noop_kib >= 0 ? bench_mib(noop_kib) : NAN, 10, 1);
    printf("\n");
    for (int i = 0; i < nruns; i++) {
        trace_run *t = &runs[i];
        char label[128];
        snprintf(label, sizeof label, "ECL writes %llu records, ECL_COMPRESS=%s",
                 (unsigned long long)n, t->compress);
        printf("%-52s", label);
        bench_cell(t->ok ? bench_mib(t->write_rss_kib) : NAN, 10, 1);
        bench_cell(t->ok ? t->bytes / 1e6 : NAN, 9, 1);
        bench_cell(t->ok ? t->write_total_s : NAN, 9, 2);
        printf("\n");
    }
    for (int i = 0; i < nruns; i++) {
        trace_run *t = &runs[i];
        for (int m = 0; m < 3; m++) {
            char label[128];
            snprintf(label, sizeof label, "PAL reads it (%s), %s", mode_names[m], t->compress);
            printf("%-52s", label);
            bench_cell(t->read_rss_kib[m] >= 0 ? bench_mib(t->read_rss_kib[m]) : NAN, 10, 1);
            bench_cell(t->ok ? t->bytes / 1e6 : NAN, 9, 1);
            bench_cell(t->sec[m], 9, 2);
            printf("\n");
        }
    }
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--write") == 0)
        return child_write(strtoull(argv[2], NULL, 10));
    if (argc == 5 && strcmp(argv[1], "--read") == 0)
        return child_read(argv[2], argv[3], atoi(argv[4]));
    if (argc == 2 && strcmp(argv[1], "--noop") == 0)
        return 0;
    if (argc != 1) {
        fprintf(stderr, "usage: bench_read   (environment: BENCH_SCALE, BENCH_REPS, "
                        "BENCH_KEEP_TRACES, ECL_*)\n");
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    uint64_t n = bench_scaled(10000000) & ~(uint64_t)1;
    int reps = bench_reps(5);
    char tmp[4096];
    bench_mkdtemp("read", tmp, sizeof tmp);

    fprintf(stderr, "bench_read: writing and reading a %llu-record trace...\n",
            (unsigned long long)n);
    trace_run runs[2] = { { .compress = "none" }, { .compress = "zlib" } };
    for (int i = 0; i < 2; i++) {
        write_trace(&runs[i], n, tmp);
        for (int m = 0; m < 3; m++)
            read_trace(&runs[i], m, reps);
    }
    char *noop_argv[] = { (char *)bench_self(), "--noop", NULL };
    bench_child c;
    long noop_kib = bench_spawn(noop_argv, NULL, BENCH_OUT_CAPTURE, &c) == 0 ? c.maxrss_kib : -1;

    print_tables(runs, 2, n, reps, noop_kib);
    bench_rmtree(tmp);
    return 0;
}
