/* bench_merge.c -- tables (h), (i) and (i2): ecl-merge on synthetic per-rank
 * traces, and reading them.
 *
 *   (h) throughput: input bytes per second of `ecl-merge -o OUT IN...` next to
 *       `cat IN... > OUT` of the same files, both on the traces' filesystem
 *       (tmpfs when available), as a ratio taken within each run, at 4, 64,
 *       512 and 4096 ranks (the same records in all). ecl-merge's default
 *       form is the run file (format 3); ECL_MERGE_PROG may name a script
 *       that adds --format=2 to time the re-encoding merge.
 *   (i) peak memory: ecl-merge's peak RSS from 4 to 4096 ranks, with R and
 *       4 R records per rank, as KiB per rank above the program's own.
 *  (h2) compression: `ecl-merge --compress=zstd` (the raw chunks compressed
 *       while copying, no record decoded) next to the copying merge of (h):
 *       time ratio within each run and the sizes of both outputs.
 *  (i2) reading: PAL reading the per-rank files of every set above (as a
 *       run) next to reading their merged trace, each a whole process (open,
 *       every record, close), back to back in each run: time, ratio per run
 *       and peak RSS.
 *
 * The per-rank traces are real ECL traces written by the capture library's
 * basic layer: one forked child per rank opens its own trace
 * (ecl_trace_open), takes its rank and the run id (ecl_trace_set_identity) and records a mix of
 * nested regions, a counter and a message-like user record, then closes.
 * They are generated once per size; the merges then run round-robin,
 * BENCH_REPS times (default 7). ecl-merge is ECL_MERGE_PROG (set by make
 * bench), else bench/ecl-merge beside this program (the same program built
 * without a libtool wrapper script). Prints tables;
 * never fails on time. */
#include <config.h>

#include "bench/bench_common.h"
#include "bench/bench_pal.h"
#include "ecl/api/config.h"
#include "ecl/core/core.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_REPS 64

/* ---------------- synthetic per-rank traces ---------------- */

/* Record types counted back, in this order (doc/trace-format.md names the
 * native ones; "msg" is defined by the generator). */
enum { K_ENTER, K_LEAVE, K_COUNTER, K_MSG, NKINDS };
static const char *const kind_names[NKINDS] = { "enter", "leave", "counter_int", "msg" };

/* Records per rank: enter/leave of main around `steps` iterations of
 *   enter step, enter compute, leave compute, enter exchange, msg, counter,
 *   leave exchange, leave step   (8 records, nesting depth 3). */
static uint64_t steps_for(uint64_t records)
{
    return records > 10 ? (records - 2) / 8 : 1;
}

/* The records per rank the mix writes when asked for about n. */
static uint64_t mix_records(uint64_t n)
{
    return 2 + 8 * steps_for(n);
}

static void expected_counts(int ranks, uint64_t records, uint64_t out[NKINDS])
{
    uint64_t s = steps_for(records);
    out[K_ENTER] = out[K_LEAVE] = (uint64_t)ranks * (1 + 3 * s);
    out[K_COUNTER] = out[K_MSG] = (uint64_t)ranks * s;
}

static uint64_t xorshift(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

static void rec_u(uint32_t type, uint64_t v)
{
    if (ecl_buf_is_active())
        ecl_buf_record_u(type, v);
}

static void rec_counter(uint32_t id, int64_t v)
{
    ecl_buf_hot *t;
    uint64_t now;
    uint8_t *p;
    if (!ecl_buf_is_active() || !(p = ecl_buf_begin(ECL_REC_COUNTER_INT, ECL_BUF_SMALL, &t, &now)))
        return;
    p = ecl_buf_put_uleb(p, id);
    p = ecl_buf_put_sleb(p, v);
    ecl_buf_commit(t, p, now);
}

static void rec_msg(uint32_t type, const uint64_t v[4])
{
    ecl_buf_hot *t;
    uint64_t now;
    uint8_t *p;
    if (!ecl_buf_is_active() || !(p = ecl_buf_begin(type, ECL_BUF_HEADER_MAX + 4 * 10, &t, &now)))
        return;
    for (int i = 0; i < 4; i++)
        p = ecl_buf_put_uleb(p, v[i]);
    ecl_buf_commit(t, p, now);
}

/* In the forked child: writes dir/r<rank>/trace.<rank>.ecl through the
 * capture library, then moves it to dir/trace.<rank>.ecl. (Each rank starts
 * in a directory of its own because ECL names a trace by pid until it knows
 * the rank, and a pid may equal another child's rank.) Returns 0 or 1. */
static int gen_rank(const char *dir, int rank, int size, uint64_t records)
{
    ecl_api_config cfg;
    char err[8500] = "";
    if (ecl_api_config_from_env(&cfg, err, sizeof err) != 0) {
        fprintf(stderr, "bench_merge: %s\n", err);
        return 1;
    }
    /* Without ECL_CLOCK, the monotonic clock: the cycle counter would cost
     * every one of up to 4096 processes ECL's 10 ms calibration. */
    if (!getenv("ECL_CLOCK"))
        cfg.trace.clock = ECL_SYS_CLOCK_MONOTONIC;
    snprintf(cfg.trace.dir, sizeof cfg.trace.dir, "%.1000s/r%d", dir, rank);
    snprintf(cfg.trace.prefix, sizeof cfg.trace.prefix, "trace");
    cfg.trace.verbose = 0;
    if (mkdir(cfg.trace.dir, 0777) != 0) {
        fprintf(stderr, "bench_merge: cannot create %s: %s\n", cfg.trace.dir, strerror(errno));
        return 1;
    }
    if (ecl_trace_open(&cfg.trace, err, sizeof err) != ECL_CORE_OK) {
        fprintf(stderr, "bench_merge: rank %d: %s\n", rank, err);
        return 1;
    }
    /* the ranks of one run share a run id, as MPI_Init gives them */
    static const uint8_t run_id[ECC_RUN_ID] = { 'b', 'e', 'n', 'c', 'h', '-', 'm', 'e', 'r', 'g',
                                                'e' };
    if (ecl_trace_set_identity(rank, size, run_id) != ECL_CORE_OK) {
        fprintf(stderr, "bench_merge: rank %d: ecl_trace_set_identity failed\n", rank);
        return 1;
    }
    static const ecl_trace_field fields[4] = {
        { "peer", EDL_UINT32, EDL_ENC_ULEB, NULL, "rank of the other side" },
        { "tag", EDL_UINT32, EDL_ENC_ULEB, NULL, "message tag" },
        { "bytes", EDL_UINT64, EDL_ENC_ULEB, "B", "message size" },
        { "comm", EDL_UINT32, EDL_ENC_ULEB, NULL, "communicator" },
    };
    uint32_t r_main = ecl_trace_region("main"), r_step = ecl_trace_region("step");
    uint32_t r_compute = ecl_trace_region("compute"), r_exchange = ecl_trace_region("exchange");
    uint32_t c_sent = ecl_trace_counter("bytes_sent", "B", 0), msg = 0;
    if (!r_main || !r_step || !r_compute || !r_exchange || !c_sent ||
        ecl_trace_type_define(0, "msg", "a message-like user record", fields, 4, &msg) !=
            ECL_CORE_OK) {
        fprintf(stderr, "bench_merge: rank %d: cannot define regions and types\n", rank);
        return 1;
    }
    uint64_t x = 0x9e3779b97f4a7c15ull ^ (uint64_t)(rank + 1) * 0xbf58476d1ce4e5b9ull;
    int64_t sent = 0;
    rec_u(ECL_REC_ENTER, r_main);
    for (uint64_t s = 0, steps = steps_for(records); s < steps; s++) {
        uint64_t r = xorshift(&x);
        uint64_t m[4] = { (r >> 8) % (uint64_t)size, r & 15, 8u << ((r >> 4) % 14), 1 };
        rec_u(ECL_REC_ENTER, r_step);
        rec_u(ECL_REC_ENTER, r_compute);
        rec_u(ECL_REC_LEAVE, r_compute);
        rec_u(ECL_REC_ENTER, r_exchange);
        rec_msg(msg, m);
        sent += (int64_t)m[2];
        rec_counter(c_sent, sent);
        rec_u(ECL_REC_LEAVE, r_exchange);
        rec_u(ECL_REC_LEAVE, r_step);
    }
    rec_u(ECL_REC_LEAVE, r_main);
    if (ecl_trace_close() != ECL_CORE_OK) {
        fprintf(stderr, "bench_merge: rank %d: closing its trace failed\n", rank);
        return 1;
    }
    char to[4300];
    snprintf(to, sizeof to, "%.4096s/trace.%d.ecl", dir, rank);
    if (rename(ecl_trace_file_path(), to) != 0 || rmdir(cfg.trace.dir) != 0) {
        fprintf(stderr, "bench_merge: rank %d: cannot move its trace to %s: %s\n", rank, to,
                strerror(errno));
        return 1;
    }
    return 0;
}

typedef struct trace_set {
    int ranks;
    uint64_t records;          /* per rank (mix_records) */
    char dir[4200];
    char **argv;               /* bench_rss REPORT ecl-merge -o OUT IN... NULL */
    char out[4300], report[4300];
    uint64_t bytes;            /* input bytes */
    double gen_s;
    int ok;                    /* generated */
    int dead;                  /* a merge failed: no more runs */
    char why[1024];            /* first failure or warning */
    int checked;               /* the output was read back once */
    uint64_t read_back[NKINDS], expect[NKINDS];
    double merge_s[MAX_REPS], cat_s[MAX_REPS], peak_kib[MAX_REPS];
    /* (h2): --compress=zstd; output sizes of both merges (first run) */
    double z_s[MAX_REPS];
    uint64_t copy_bytes, z_bytes;
    int z_dead;
    /* (i2): the first merged output, kept; reading it and the per-rank files */
    char kept[4300];
    int have_kept;
    double rd_run_s[MAX_REPS], rd_mrg_s[MAX_REPS], rd_run_kib[MAX_REPS], rd_mrg_kib[MAX_REPS];
} trace_set;

/* argv slots of trace_set: bench_rss REPORT then the command */
enum { A_RSS, A_REPORT, A_PROG, A_OPT, A_OUT, A_IN };

/* Forks one child per rank, at most `par` at a time. */
static void gen_set(trace_set *t, const char *tmp, const char *rss, const char *merge, int par)
{
    snprintf(t->dir, sizeof t->dir, "%s/r%d-n%llu", tmp, t->ranks,
             (unsigned long long)t->records);
    snprintf(t->out, sizeof t->out, "%s/merged.ecl", t->dir);
    snprintf(t->kept, sizeof t->kept, "%s/merged-r%d-n%llu.ecl", tmp, t->ranks,
             (unsigned long long)t->records);
    snprintf(t->report, sizeof t->report, "%s/rss.txt", t->dir);
    expected_counts(t->ranks, t->records, t->expect);
    if (mkdir(t->dir, 0777) != 0) {
        snprintf(t->why, sizeof t->why, "cannot create %.300s: %s", t->dir, strerror(errno));
        return;
    }
    double t0 = bench_now_ns();
    int running = 0, failed = 0;
    fflush(NULL);
    for (int r = 0; r < t->ranks || running > 0;) {
        if (r < t->ranks && running < par) {
            pid_t pid = fork();
            if (pid == 0)
                _exit(gen_rank(t->dir, r, t->ranks, t->records));
            if (pid < 0) {
                failed += t->ranks - r;   /* these never start */
                break;
            }
            running++;
            r++;
            continue;
        }
        int st;
        if (wait(&st) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        running--;
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
            failed++;
    }
    while (running > 0 && wait(NULL) > 0)
        running--;
    t->gen_s = (bench_now_ns() - t0) / 1e9;
    if (failed) {
        snprintf(t->why, sizeof t->why, "%d of %d ranks could not write their trace", failed,
                 t->ranks);
        return;
    }
    t->argv = calloc((size_t)t->ranks + A_IN + 1, sizeof *t->argv);
    if (!t->argv) {
        fprintf(stderr, "bench_merge: out of memory\n");
        exit(1);
    }
    t->argv[A_RSS] = (char *)rss;
    t->argv[A_REPORT] = t->report;
    t->argv[A_PROG] = (char *)merge;
    t->argv[A_OPT] = "-o";
    t->argv[A_OUT] = t->out;
    for (int r = 0; r < t->ranks; r++) {
        char path[4300];
        snprintf(path, sizeof path, "%s/trace.%d.ecl", t->dir, r);
        t->argv[A_IN + r] = strdup(path);
        if (!t->argv[A_IN + r]) {
            fprintf(stderr, "bench_merge: out of memory\n");
            exit(1);
        }
        t->bytes += bench_path_bytes(path);
    }
    t->ok = 1;
}

static void free_set(trace_set *t)
{
    if (!t->argv)
        return;
    for (int r = 0; r < t->ranks; r++)
        free(t->argv[A_IN + r]);
    free(t->argv);
    t->argv = NULL;
}

/* ---------------- runs ---------------- */

typedef struct limits {
    uint64_t as_bytes;
    unsigned cpu_s;
    rlim_t nofile_hard;
} limits;

/* Runs argv (bench_rss REPORT PROG ...) with the options o; the result is
 * what bench_rss reported: *status, *wall_s, *kib (NAN when absent). */
static void run_measured(char **argv, const bench_spawn_opts *o, bench_child *c, int *status,
                         double *wall_s, double *kib)
{
    char rep[256] = "";
    remove(argv[A_REPORT]);
    bench_spawn_with(argv, NULL, o, c);
    FILE *f = fopen(argv[A_REPORT], "r");
    if (f) {
        size_t n = fread(rep, 1, sizeof rep - 1, f);
        rep[n] = '\0';
        fclose(f);
    }
    remove(argv[A_REPORT]);
    double st = bench_kv(rep, "rss_status");
    *status = isnan(st) ? c->status : (int)st;
    *wall_s = bench_kv(rep, "rss_wall_ns") / 1e9;
    *kib = bench_kv(rep, "rss_kib");
}

/* One merge of t: wall time, peak RSS; the first successful output is read
 * back (in a child, so that this process stays small) and counted. */
static void run_merge(trace_set *t, int rep, const limits *lim)
{
    t->merge_s[rep] = t->peak_kib[rep] = NAN;
    if (!t->ok || t->dead)
        return;
    bench_spawn_opts o = { .out_mode = BENCH_OUT_CAPTURE_ALL, .raise_nofile = 1,
                           .as_limit = lim->as_bytes, .cpu_limit_s = lim->cpu_s };
    bench_child c;
    int status;
    double wall_s, kib;
    remove(t->out);
    run_measured(t->argv, &o, &c, &status, &wall_s, &kib);
    /* 0: merged; 2: merged with something reported (kept as a note) */
    if (status != 0 && status != 2) {
        const char *why = status == 128 + SIGXCPU ? "killed at the CPU-time limit"
                          : status == 128 + SIGKILL ? "killed (out of memory?)"
                                                    : "failed";
        snprintf(t->why, sizeof t->why, "ecl-merge %s (status %d; peak %.0f MiB): %.300s", why,
                 status, kib / 1024, c.out);
        t->dead = 1;
        remove(t->out);
        return;
    }
    if (status == 2 && !t->why[0])
        snprintf(t->why, sizeof t->why, "ecl-merge exit status 2 (merged, something reported): "
                 "%.300s", c.out);
    t->merge_s[rep] = wall_s;
    t->peak_kib[rep] = kib;
    if (!t->checked) {
        char *argv[] = { (char *)bench_self(), "--count", t->out, NULL };
        t->checked = 1;
        if (bench_spawn(argv, NULL, BENCH_OUT_CAPTURE_ALL, &c) != 0)
            snprintf(t->why, sizeof t->why, "reading the merged trace back: %.300s", c.out);
        for (int k = 0; k < NKINDS; k++) {
            double v = bench_kv(c.out, kind_names[k]);
            t->read_back[k] = isnan(v) ? 0 : (uint64_t)v;
        }
        /* kept for (i2), outside the per-rank files' directory */
        t->have_kept = rename(t->out, t->kept) == 0;
    }
    remove(t->out);
}

/* (h2): one `ecl-merge -z zstd -o OUT IN...` of t, right after the copying
 * merge: wall time, and the output's size (first run). */
static void run_merge_z(trace_set *t, int rep, const limits *lim)
{
    t->z_s[rep] = NAN;
    if (!t->ok || t->dead || t->z_dead)
        return;
    char **argv = calloc((size_t)t->ranks + A_IN + 3, sizeof *argv);
    if (!argv) {
        t->z_dead = 1;
        return;
    }
    char z[] = "-z", zstd[] = "zstd";
    memcpy(argv, t->argv, A_OPT * sizeof *argv);          /* bench_rss REPORT ecl-merge */
    argv[A_OPT] = z;
    argv[A_OPT + 1] = zstd;
    memcpy(argv + A_OPT + 2, t->argv + A_OPT, ((size_t)t->ranks + 2) * sizeof *argv);
    bench_spawn_opts o = { .out_mode = BENCH_OUT_CAPTURE_ALL, .raise_nofile = 1,
                           .as_limit = lim->as_bytes, .cpu_limit_s = lim->cpu_s };
    bench_child c;
    int status;
    double wall_s, kib;
    remove(t->out);
    run_measured(argv, &o, &c, &status, &wall_s, &kib);
    free(argv);
    if (status != 0 && status != 2) {
        t->z_dead = 1;                   /* the table says n/a */
        remove(t->out);
        return;
    }
    t->z_s[rep] = wall_s;
    if (!t->z_bytes) {
        t->z_bytes = bench_path_bytes(t->out);
        t->copy_bytes = t->have_kept ? bench_path_bytes(t->kept) : 0;
    }
    remove(t->out);
}

/* (i2): one read of path (the per-rank directory or the merged trace) by a
 * child: `bench_rss REPORT bench_merge --count PATH`. */
static void run_read(trace_set *t, const char *path, double *s, double *kib)
{
    *s = *kib = NAN;
    if (!t->ok || !t->have_kept)
        return;
    char *argv[] = { t->argv[A_RSS], t->report, (char *)bench_self(), "--count", (char *)path,
                     NULL };
    bench_spawn_opts o = { .out_mode = BENCH_OUT_NULL };
    bench_child c;
    int status;
    double wall_s, k;
    run_measured(argv, &o, &c, &status, &wall_s, &k);
    if (status == 0) {
        *s = wall_s;
        *kib = k;
    }
}

/* cat IN... > OUT through bench_rss, like the merge. */
static void run_cat(trace_set *t, int rep)
{
    t->cat_s[rep] = NAN;
    if (!t->ok)
        return;
    /* bench_rss REPORT cat IN... : the slots before A_IN, shifted */
    char *save[3] = { t->argv[A_PROG], t->argv[A_OPT], t->argv[A_OUT] };
    char cat[] = "cat";
    t->argv[A_OUT - 2] = t->argv[A_RSS];
    t->argv[A_OUT - 1] = t->argv[A_REPORT];
    t->argv[A_OUT] = cat;
    bench_spawn_opts o = { .out_mode = BENCH_OUT_FILE, .out_path = t->out, .raise_nofile = 1 };
    bench_child c;
    int status;
    double wall_s, kib;
    remove(t->out);
    run_measured(t->argv + A_OUT - 2, &o, &c, &status, &wall_s, &kib);
    if (status == 0)
        t->cat_s[rep] = wall_s;
    t->argv[A_PROG] = save[0];
    t->argv[A_OPT] = save[1];
    t->argv[A_OUT] = save[2];
    remove(t->out);
}

/* --count PATH: the records of the counted kinds, "NAME=count" lines. */
static int child_count(const char *path)
{
    uint64_t counts[NKINDS];
    char err[512];
    if (bench_pal_count(path, kind_names, NKINDS, counts, err, sizeof err) != 0) {
        fprintf(stderr, "%s: %s\n", path, err);
        return 1;
    }
    for (int k = 0; k < NKINDS; k++)
        printf("%s=%llu\n", kind_names[k], (unsigned long long)counts[k]);
    return 0;
}

/* ---------------- tables ---------------- */

static uint64_t sum_counts(const uint64_t v[NKINDS])
{
    uint64_t s = 0;
    for (int k = 0; k < NKINDS; k++)
        s += v[k];
    return s;
}

static int counts_match(const trace_set *t)
{
    for (int k = 0; k < NKINDS; k++)
        if (t->read_back[k] != t->expect[k])
            return 0;
    return 1;
}

static void set_notes(const trace_set *t)
{
    if (!t->ok)
        printf("note: %d ranks x %llu: no input: %s\n", t->ranks,
               (unsigned long long)t->records, t->why);
    else if (t->why[0])
        printf("note: %d ranks x %llu: %s\n", t->ranks, (unsigned long long)t->records, t->why);
    if (t->ok && t->checked && !counts_match(t))
        printf("note: %d ranks x %llu: the merged trace holds %llu enter, %llu leave, %llu "
               "counter, %llu msg records; %llu, %llu, %llu, %llu were written\n", t->ranks,
               (unsigned long long)t->records, (unsigned long long)t->read_back[K_ENTER],
               (unsigned long long)t->read_back[K_LEAVE],
               (unsigned long long)t->read_back[K_COUNTER],
               (unsigned long long)t->read_back[K_MSG], (unsigned long long)t->expect[K_ENTER],
               (unsigned long long)t->expect[K_LEAVE], (unsigned long long)t->expect[K_COUNTER],
               (unsigned long long)t->expect[K_MSG]);
}

static void input_note(char *buf, size_t len, const char *merge, const char *method,
                       double gen_s, int gen_ranks)
{
    snprintf(buf, len,
             "ecl-merge: %s\nper-rank traces: ECL's capture library configured by the ECL_* "
             "environment over its\ndefaults (compression %s%s), monotonic clock unless "
             "ECL_CLOCK is set; generated\nonce per size (%d ranks in %.1f s in all), then reused",
             merge, method, getenv("ECL_COMPRESS") ? ", from ECL_COMPRESS" : ": ECL's default",
             gen_ranks, gen_s);
}

static void table_throughput(trace_set *sets, int nsets, int reps, const char *note)
{
    bench_table_header("(h) ecl-merge throughput next to cat, same input bytes", note);
    printf("%d runs; in each, `cat IN... > OUT` and `ecl-merge -o OUT IN...` run back to back "
           "on\nthe same files (OUT on the same filesystem, removed before each run); MB/s = "
           "input\nbytes / wall time of the process; merge/cat = the ratio within each run. Min "
           "and\nmedian over the runs. records: the merged trace read back with PAL (enter, "
           "leave,\ncounter, msg), first run.\n\n", reps);
    printf("%-6s %9s %8s %17s %17s %17s %12s\n", "", "", "", "cat MB/s", "ecl-merge MB/s",
           "merge / cat", "");
    printf("%-6s %9s %8s %8s %8s %8s %8s %8s %8s %12s\n", "ranks", "rec/rank", "in MB", "min",
           "median", "min", "median", "min", "median", "records");
    for (int i = 0; i < nsets; i++) {
        trace_set *t = &sets[i];
        double cat[MAX_REPS], mrg[MAX_REPS], ratio[MAX_REPS];
        for (int r = 0; r < reps; r++) {
            cat[r] = (double)t->bytes / t->cat_s[r] / 1e6;
            mrg[r] = (double)t->bytes / t->merge_s[r] / 1e6;
            ratio[r] = mrg[r] / cat[r];
        }
        printf("%-6d %9llu", t->ranks, (unsigned long long)t->records);
        bench_cell(t->ok ? (double)t->bytes / 1e6 : NAN, 8, 1);
        bench_cells_min_median(cat, reps, 8, 0, 1);
        bench_cells_min_median(mrg, reps, 8, 1, 1);
        bench_cells_min_median(ratio, reps, 8, 3, 1);
        bench_cell(t->checked ? (double)sum_counts(t->read_back) : NAN, 12, 0);
        printf("   target >= 0.5\n");
    }
    for (int i = 0; i < nsets; i++)
        set_notes(&sets[i]);
    printf("\n");
}

static void table_compress(trace_set *sets, int nsets, int reps, const char *note)
{
    bench_table_header("(h2) ecl-merge --compress=zstd next to the copying merge", note);
    printf("%d runs; in each, `ecl-merge -z zstd -o OUT IN...` right after the copying merge "
           "of (h)\non the same files: the records chunks the ranks wrote raw are compressed "
           "on the way\n(no record decoded; up to 8 threads, as many as the cores this process "
           "may use).\nzstd/copy = the ratio of the two wall times within each run; sizes of "
           "the outputs\n(the copy pads members over 64 KiB to 4096 bytes and keeps room for the "
           "index;\nthe compressed one pads to 8). Min and median.\n\n", reps);
    printf("%-6s %9s %8s %17s %17s %9s %9s %7s\n", "", "", "", "zstd s", "zstd / copy",
           "copy MB", "zstd MB", "smaller");
    printf("%-6s %9s %8s %8s %8s %8s %8s\n", "ranks", "rec/rank", "in MB", "min", "median",
           "min", "median");
    for (int i = 0; i < nsets; i++) {
        trace_set *t = &sets[i];
        double ratio[MAX_REPS];
        for (int r = 0; r < reps; r++)
            ratio[r] = t->z_s[r] / t->merge_s[r];
        printf("%-6d %9llu", t->ranks, (unsigned long long)t->records);
        bench_cell(t->ok ? (double)t->bytes / 1e6 : NAN, 8, 1);
        bench_cells_min_median(t->z_s, reps, 8, 3, 1);
        bench_cells_min_median(ratio, reps, 8, 2, 1);
        bench_cell(t->copy_bytes ? (double)t->copy_bytes / 1e6 : NAN, 9, 1);
        bench_cell(t->z_bytes ? (double)t->z_bytes / 1e6 : NAN, 9, 1);
        bench_cell(t->copy_bytes && t->z_bytes ? (double)t->copy_bytes / (double)t->z_bytes
                                               : NAN, 7, 2);
        printf("%s\n", t->z_dead ? "   (--compress failed)" : "");
    }
    printf("\n");
}

static double max_of(const double *v, int n)
{
    double m = NAN;
    for (int i = 0; i < n; i++)
        if (!isnan(v[i]) && (isnan(m) || v[i] > m))
            m = v[i];
    return m;
}

static void table_read(trace_set *tput, int ntput, trace_set *mem, int nmem, int reps,
                       const char *note)
{
    bench_table_header("(i2) PAL reading the per-rank files next to their merged trace", note);
    printf("%d runs; in each, for every set of traces, a process reads the per-rank files as a "
           "run\n(pal_reader_open on their directory), then one reads the merged trace "
           "(pal_reader_open),\neach open, every record (counted by type), close. run/merged = "
           "the ratio of the\ntwo times within each run; peak RSS: the largest over the runs. "
           "Min and median.\n\n", reps);
    printf("%-6s %9s %17s %17s %17s %17s\n", "", "", "per-rank files s", "merged s",
           "run / merged", "peak MiB");
    printf("%-6s %9s %8s %8s %8s %8s %8s %8s %8s %8s\n", "ranks", "rec/rank", "min", "median",
           "min", "median", "min", "median", "files", "merged");
    for (int i = 0; i < ntput + nmem; i++) {
        trace_set *t = i < ntput ? &tput[i] : &mem[i - ntput];
        double ratio[MAX_REPS];
        for (int r = 0; r < reps; r++)
            ratio[r] = t->rd_run_s[r] / t->rd_mrg_s[r];
        printf("%-6d %9llu", t->ranks, (unsigned long long)t->records);
        bench_cells_min_median(t->rd_run_s, reps, 8, 3, 1);
        bench_cells_min_median(t->rd_mrg_s, reps, 8, 3, 1);
        bench_cells_min_median(ratio, reps, 8, 2, 1);
        bench_cell(max_of(t->rd_run_kib, reps) / 1024, 8, 1);
        bench_cell(max_of(t->rd_mrg_kib, reps) / 1024, 8, 1);
        printf("   target <= 1.2, <= 2x memory (4096 ranks)\n");
    }
    printf("\n");
}

static void table_memory(trace_set *sets, int nsets, int reps, const double *base_kib,
                         const char *note, const limits *lim, int max_ranks)
{
    bench_table_header("(i) ecl-merge peak memory per rank", note);
    double bmin, bmed;
    bench_min_median(base_kib, reps, &bmin, &bmed);
    printf("%d runs, every size once per run. peak = ecl-merge's peak RSS (wait4 ru_maxrss);\n"
           "KiB/rank = (peak - base) / ranks, base = the peak of `ecl-merge --help` in the same\n"
           "run (median %.0f KiB: the program and its libraries). 4x: the same ranks with four\n"
           "times the records per rank; +KiB/rank = its median KiB/rank minus the 1x one (0 when\n"
           "memory does not depend on the record count). Min and median over the runs.\n",
           reps, bmed);
    char nofile[32] = "unlimited";
    if (lim->nofile_hard != RLIM_INFINITY)
        snprintf(nofile, sizeof nofile, "%llu", (unsigned long long)lim->nofile_hard);
    char as[32] = "inherited", cpu[32] = "inherited";
    if (lim->as_bytes)
        snprintf(as, sizeof as, "%.0f MiB", (double)lim->as_bytes / (1 << 20));
    if (lim->cpu_s)
        snprintf(cpu, sizeof cpu, "%u s", lim->cpu_s);
    printf("Limits for ecl-merge: RLIMIT_NOFILE raised to its hard limit %s%s; RLIMIT_AS %s;\n"
           "RLIMIT_CPU %s (BENCH_MERGE_MEM_MIB, BENCH_MERGE_CPU_S; 0: inherited). A size that\n"
           "fails is not run again.\n\n", nofile,
           lim->nofile_hard != RLIM_INFINITY && lim->nofile_hard < (rlim_t)max_ranks + 16
               ? " (below ranks + 16: ecl-merge must open its inputs lazily)" : "", as, cpu);
    printf("%-6s %9s %8s %17s %17s %9s %8s %12s\n", "", "", "", "peak MiB", "KiB/rank",
           "+KiB/rank", "time s", "");
    printf("%-6s %9s %8s %8s %8s %8s %8s %9s %8s %12s\n", "ranks", "rec/rank", "in MB", "min",
           "median", "min", "median", "(4x-1x)", "median", "records");
    double prev_med = NAN;
    for (int i = 0; i < nsets; i++) {
        trace_set *t = &sets[i];
        double mib[MAX_REPS], per[MAX_REPS], mn, md;
        for (int r = 0; r < reps; r++) {
            mib[r] = t->peak_kib[r] / 1024;
            per[r] = (t->peak_kib[r] - base_kib[r]) / t->ranks;
        }
        printf("%-6d %9llu", t->ranks, (unsigned long long)t->records);
        bench_cell(t->ok ? (double)t->bytes / 1e6 : NAN, 8, 1);
        bench_cells_min_median(mib, reps, 8, 1, 1);
        bench_cells_min_median(per, reps, 8, 1, 1);
        bench_min_median(per, reps, &mn, &md);
        /* sets come in pairs: 1x, then 4x of the same ranks */
        if (i % 2 == 1)
            bench_cell(md - prev_med, 9, 1);
        else
            printf(" %9s", "");
        prev_med = md;
        bench_min_median(t->merge_s, reps, &mn, &md);
        bench_cell(md, 8, 2);
        bench_cell(t->checked ? (double)sum_counts(t->read_back) : NAN, 12, 0);
        printf("   target <= 256\n");
    }
    for (int i = 0; i < nsets; i++)
        set_notes(&sets[i]);
    printf("\n");
}

/* A non-negative number from the environment, or dflt. */
static double env_num(const char *name, double dflt)
{
    const char *e = getenv(name);
    double v = e && e[0] ? strtod(e, NULL) : dflt;
    return v >= 0 ? v : dflt;
}

/* bench_merge --gen DIR RANKS RECORDS: writes the synthetic traces of RANKS
 * ranks with about RECORDS records each and merges them into
 * DIR/rRANKS-nRECORDS/merged.ecl (for bench/views.sh, table (k)). */
static int gen_merged(const char *dir, int ranks, uint64_t records)
{
    char mbuf[4096];
    const char *merge = getenv("ECL_MERGE_PROG");
    merge = merge && *merge ? bench_which(merge, mbuf, sizeof mbuf)
                            : bench_sibling("../ecl/tools/ecl-merge", mbuf, sizeof mbuf);
    if (merge == NULL || ranks < 1) {
        fprintf(stderr, "bench_merge --gen: no ecl-merge or no ranks\n");
        return 1;
    }
    trace_set t;
    memset(&t, 0, sizeof t);
    t.ranks = ranks;
    t.records = mix_records(records);
    gen_set(&t, dir, "bench_rss", merge, 2);
    if (!t.ok) {
        fprintf(stderr, "bench_merge --gen: %s\n", t.why);
        return 1;
    }
    pid_t pid = fork();
    if (pid == 0) {
        execv(merge, t.argv + A_PROG);
        _exit(127);
    }
    int st = 1;
    if (pid < 0 || waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "bench_merge --gen: ecl-merge failed\n");
        return 1;
    }
    for (int r = 0; r < ranks; r++)
        remove(t.argv[A_IN + r]);
    printf("%s\n", t.out);
    free_set(&t);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--count") == 0)
        return child_count(argv[2]);
    if (argc == 5 && strcmp(argv[1], "--gen") == 0)
        return gen_merged(argv[2], atoi(argv[3]), strtoull(argv[4], NULL, 10));
    if (argc != 1) {
        fprintf(stderr, "usage: bench_merge   (environment: ECL_MERGE_PROG, BENCH_SCALE, "
                "BENCH_REPS, BENCH_MERGE_MAX_RANKS, BENCH_MERGE_MEM_MIB, BENCH_MERGE_CPU_S, "
                "BENCH_KEEP_TRACES, ECL_*)\n");
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    const char *merge = getenv("ECL_MERGE_PROG");
    char mbuf[4096];
    if (merge == NULL || *merge == '\0')
        merge = bench_sibling("ecl-merge", mbuf, sizeof mbuf);
    else
        merge = bench_which(merge, mbuf, sizeof mbuf);
    char rbuf[4096];
    const char *rss = bench_sibling("bench_rss", rbuf, sizeof rbuf);
    if (merge == NULL || rss == NULL) {
        const char *e = getenv("ECL_MERGE_PROG");
        char why[4200];
        if (merge == NULL)
            snprintf(why, sizeof why, "no ecl-merge to run (%s%s)",
                     e && *e ? "not executable: ECL_MERGE_PROG=" : "set ECL_MERGE_PROG to its path",
                     e && *e ? e : "");
        else
            snprintf(why, sizeof why, "bench_rss is not built beside bench_merge (make bench "
                     "builds it)");
        bench_table_header("(h) ecl-merge throughput next to cat, same input bytes", NULL);
        printf("n/a: %s\n", why);
        bench_table_header("(i) ecl-merge peak memory per rank", NULL);
        printf("n/a: %s\n", why);
        return 0;
    }
    int reps = bench_reps();
    if (reps > MAX_REPS)
        reps = MAX_REPS;
    limits lim = { .as_bytes = (uint64_t)(env_num("BENCH_MERGE_MEM_MIB", 4096) * (1 << 20)),
                   .cpu_s = (unsigned)env_num("BENCH_MERGE_CPU_S", 120) };
    struct rlimit rl;
    lim.nofile_hard = getrlimit(RLIMIT_NOFILE, &rl) == 0 ? rl.rlim_max : 0;
    int max_ranks = (int)env_num("BENCH_MERGE_MAX_RANKS", 4096);
    if (max_ranks < 4)
        max_ranks = 4;
    /* generating is CPU-bound (fork, ECL's start and close): one child per core */
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int par = cores > 0 ? (int)cores : 1;

    /* (h): the same records in all at two rank counts; (i): R and 4 R per rank */
    uint64_t big = bench_scaled(1000000), small = bench_scaled(1000000) / 2000;
    if (small < 10)
        small = 10;            /* one step of the mix */
    static const int mem_ranks[4] = { 4, 64, 512, 4096 };
    trace_set tput[4] = { { .ranks = 4, .records = mix_records(big) },
                          { .ranks = 64, .records = mix_records(big / 16) },
                          { .ranks = 512, .records = mix_records(big / 128) },
                          { .ranks = 4096, .records = mix_records(big / 1024) } };
    int ntput = max_ranks >= 4096 ? 4 : max_ranks >= 512 ? 3 : 2;
    trace_set mem[8];
    int nmem = 0;
    for (int i = 0; i < 4; i++)
        if (mem_ranks[i] <= max_ranks) {
            mem[nmem++] = (trace_set){ .ranks = mem_ranks[i], .records = mix_records(small) };
            mem[nmem++] = (trace_set){ .ranks = mem_ranks[i],
                                       .records = mix_records(4 * small) };
        }

    /* what every rank will use: the ECL_* environment over ECL's defaults */
    ecl_api_config cfg;
    char tmp[4096], err[8500];
    if (ecl_api_config_from_env(&cfg, err, sizeof err) != 0) {
        fprintf(stderr, "bench_merge: %s\n", err);
        return 1;
    }
    static const char *const methods[3] = { "none", "zlib", "zstd" };
    const char *method = cfg.trace.compress >= 0 && cfg.trace.compress < 3
                             ? methods[cfg.trace.compress] : "unknown";
    bench_mkdtemp("merge", tmp, sizeof tmp);
    fprintf(stderr, "bench_merge: writing the per-rank traces...\n");
    double gen_s = 0;
    int gen_ranks = 0;
    for (int i = 0; i < ntput; i++) {
        gen_set(&tput[i], tmp, rss, merge, par);
        gen_s += tput[i].gen_s;
        gen_ranks += tput[i].ranks;
    }
    for (int i = 0; i < nmem; i++) {
        gen_set(&mem[i], tmp, rss, merge, par);
        gen_s += mem[i].gen_s;
        gen_ranks += mem[i].ranks;
    }

    fprintf(stderr, "bench_merge: %d runs of cat and ecl-merge...\n", reps);
    double base_kib[MAX_REPS];
    char base_report[4200];
    snprintf(base_report, sizeof base_report, "%s/base-rss.txt", tmp);
    char *help[] = { (char *)rss, base_report, (char *)merge, "--help", NULL };
    bench_spawn_opts help_opts = { .out_mode = BENCH_OUT_NULL };
    for (int rep = 0; rep < reps; rep++) {
        for (int i = 0; i < ntput; i++) {
            run_cat(&tput[i], rep);
            run_merge(&tput[i], rep, &lim);
            run_merge_z(&tput[i], rep, &lim);
        }
        bench_child c;
        int status;
        double wall_s;
        run_measured(help, &help_opts, &c, &status, &wall_s, &base_kib[rep]);
        if (status != 0)
            base_kib[rep] = NAN;
        for (int i = 0; i < nmem; i++)
            run_merge(&mem[i], rep, &lim);
        /* (i2): per-rank files, then their merge, back to back */
        for (int i = 0; i < ntput + nmem; i++) {
            trace_set *t = i < ntput ? &tput[i] : &mem[i - ntput];
            run_read(t, t->dir, &t->rd_run_s[rep], &t->rd_run_kib[rep]);
            run_read(t, t->kept, &t->rd_mrg_s[rep], &t->rd_mrg_kib[rep]);
        }
    }

    char note[1024];
    input_note(note, sizeof note, merge, method, gen_s, gen_ranks);
    table_throughput(tput, ntput, reps, note);
    table_compress(tput, ntput, reps, note);
    table_memory(mem, nmem, reps, base_kib, note, &lim, max_ranks);
    table_read(tput, ntput, mem, nmem, reps, note);
    bench_rmtree(tmp);
    for (int i = 0; i < ntput + nmem; i++)
        free_set(i < ntput ? &tput[i] : &mem[i - ntput]);
    for (int i = ntput; i < 4; i++)
        free_set(&tput[i]);
    return 0;
}
