/* bench_record.c -- tables (a) and (b): what one recorded event costs, in ns
 * and in bytes on disk, next to the costs it is made of (a clock read, a
 * 16-byte store into a thread-local buffer).
 *
 * Every run is a fresh child process (this program re-executed): an ECL run
 * (--child) is timed from before ecl_init to after ecl_finalize and its trace
 * is read back to count the events that arrived; the floor it is compared
 * with (cycle-counter read + 16-byte store, or the clock read ECL used) runs
 * in a process of its own (--floor) for the same wall time, right before or
 * right after it, so that both sides see the same machine for as long; the
 * ratio is taken per pair. The configurations run round-robin, BENCH_REPS
 * times (default 7). Prints tables;
 * never fails on time. */
#include <config.h>

#include "bench/bench_common.h"
#include "bench/bench_work.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if (defined(__x86_64__) || defined(__i386__)) && defined(HAVE_X86INTRIN_H)
#include <x86intrin.h>
#define BENCH_HAVE_TSC 1
#else
#define BENCH_HAVE_TSC 0
#endif

/* ---------------- baseline loops (run in the child) ---------------- */

#if BENCH_HAVE_TSC
static uint64_t loop_rdtsc(uint64_t n, int tid, void *arg)
{
    uint64_t acc = 0;
    (void)tid;
    (void)arg;
    for (uint64_t i = 0; i < n; i++)
        acc += __rdtsc();
    return acc;
}

static uint64_t loop_rdtscp(uint64_t n, int tid, void *arg)
{
    uint64_t acc = 0;
    unsigned aux;
    (void)tid;
    (void)arg;
    for (uint64_t i = 0; i < n; i++)
        acc += __rdtscp(&aux);
    return acc + aux;
}
#endif

static uint64_t loop_clock_gettime(uint64_t n, int tid, void *arg)
{
    uint64_t acc = 0;
    struct timespec ts;
    (void)tid;
    (void)arg;
    for (uint64_t i = 0; i < n; i++) {
        clock_gettime(CLOCK_MONOTONIC, &ts);
        acc += (uint64_t)ts.tv_nsec;
    }
    return acc;
}

/* A tracer's buffer reduced to its essence: a thread-local write position in a
 * 1 MiB per-thread buffer that wraps instead of being flushed. The compiler
 * barrier after each event keeps the compiler from merging or dropping stores,
 * as an opaque recording call would. */
#define STORE_BUF_BYTES (1u << 20)

typedef struct tls_buf {
    uint64_t *pos, *end, *base;
} tls_buf;

static __thread tls_buf tb;
/* Frees a thread's buffer when the thread ends. */
static pthread_key_t tb_key;
static pthread_once_t tb_once = PTHREAD_ONCE_INIT;

static void tb_key_create(void)
{
    pthread_key_create(&tb_key, free);
}

static void tls_buf_init(void)
{
    if (tb.base)
        return;
    pthread_once(&tb_once, tb_key_create);
    tb.base = aligned_alloc(64, STORE_BUF_BYTES);
    if (!tb.base || pthread_setspecific(tb_key, tb.base) != 0) {
        fprintf(stderr, "bench: out of memory\n");
        exit(1);
    }
    memset(tb.base, 0, STORE_BUF_BYTES);
    tb.pos = tb.base;
    tb.end = tb.base + STORE_BUF_BYTES / sizeof *tb.base;
}

static inline void store16(uint64_t a, uint64_t b)
{
    uint64_t *p = tb.pos;
    if (__builtin_expect(p == tb.end, 0))
        p = tb.base;
    p[0] = a;
    p[1] = b;
    tb.pos = p + 2;
    BENCH_BARRIER();
}

static uint64_t loop_store16(uint64_t n, int tid, void *arg)
{
    (void)tid;
    (void)arg;
    tls_buf_init();
    for (uint64_t i = 0; i < n; i++)
        store16(i, i & 3);
    return (uint64_t)(uintptr_t)tb.pos;
}

#if BENCH_HAVE_TSC
static uint64_t loop_rdtsc_store16(uint64_t n, int tid, void *arg)
{
    (void)tid;
    (void)arg;
    tls_buf_init();
    for (uint64_t i = 0; i < n; i++)
        store16(__rdtsc(), i & 3);
    return (uint64_t)(uintptr_t)tb.pos;
}
#endif

/* The floor loops of a run; NULL where the platform lacks the instruction. */
static bench_loop_fn floor_loop(const char *kind)
{
#if BENCH_HAVE_TSC
    if (strcmp(kind, "rdtsc") == 0)
        return loop_rdtsc;
    if (strcmp(kind, "rdtscp") == 0)
        return loop_rdtscp;
    if (strcmp(kind, "rdtsc_store16") == 0)
        return loop_rdtsc_store16;
#endif
    if (strcmp(kind, "clock_gettime") == 0)
        return loop_clock_gettime;
    if (strcmp(kind, "store16") == 0)
        return loop_store16;
    return NULL;
}

/* ns per event of one floor loop: a warm-up round of n/10, then one round. */
static double floor_ns(const char *kind, int nthreads, uint64_t n)
{
    bench_loop_fn loop = floor_loop(kind);
    return loop ? bench_run_threads(nthreads, 1, n, loop, NULL) : NAN;
}

static const char *const baseline_kinds[] = { "rdtsc", "rdtscp", "clock_gettime", "store16",
                                              "rdtsc_store16" };
#define NBASE (sizeof baseline_kinds / sizeof baseline_kinds[0])

/* --baseline THREADS N: every floor loop once, "KIND=ns" lines. */
static int child_baseline(int nthreads, uint64_t n)
{
    for (size_t i = 0; i < NBASE; i++)
        printf("%s=%.4f\n", baseline_kinds[i], floor_ns(baseline_kinds[i], nthreads, n));
    return 0;
}

/* --floor KIND THREADS WALL_MS: the floor loop KIND in THREADS threads,
 * released together, each recording until WALL_MS of wall time have passed
 * since the release (checked every FLOOR_CHUNK events), so that the process
 * runs as long as the ECL run it is paired with. Prints "floor=NS", the mean
 * over threads of each thread's elapsed time / its events. */
#define FLOOR_CHUNK 65536

typedef struct floor_run {
    pthread_barrier_t go;
    bench_loop_fn loop;
    double wall_ns;
    double ns[64];
} floor_run;

typedef struct floor_arg {
    floor_run *run;
    int tid;
} floor_arg;

static void *floor_thread(void *p)
{
    floor_arg *a = p;
    floor_run *run = a->run;
    uint64_t events = 0;
    pthread_barrier_wait(&run->go);
    double t0 = bench_now_ns(), end = t0 + run->wall_ns, t;
    do {
        BENCH_KEEP(run->loop(FLOOR_CHUNK, a->tid, NULL));
        events += FLOOR_CHUNK;
    } while ((t = bench_now_ns()) < end);
    run->ns[a->tid] = (t - t0) / (double)events;
    return NULL;
}

static int child_floor(const char *kind, int nthreads, double wall_ms)
{
    floor_run run = { .loop = floor_loop(kind), .wall_ns = wall_ms * 1e6 };
    pthread_t th[64];
    floor_arg args[64];
    if (!run.loop) {
        printf("floor=nan\n");
        return 0;
    }
    if (nthreads < 1 || nthreads > 64 || !(wall_ms > 0)) {
        fprintf(stderr, "bench_record: --floor %s %d %g: expected 1 to 64 threads and a "
                        "positive time in ms\n", kind, nthreads, wall_ms);
        return 2;
    }
    pthread_barrier_init(&run.go, NULL, (unsigned)nthreads);
    for (int t = 0; t < nthreads; t++) {
        args[t] = (floor_arg){ &run, t };
        if (pthread_create(&th[t], NULL, floor_thread, &args[t]) != 0) {
            fprintf(stderr, "bench_record: cannot create thread\n");
            return 1;
        }
    }
    double sum = 0;
    for (int t = 0; t < nthreads; t++) {
        pthread_join(th[t], NULL);
        sum += run.ns[t];
    }
    pthread_barrier_destroy(&run.go);
    printf("floor=%.4f\n", sum / nthreads);
    return 0;
}

/* --child KIND THREADS N: one ECL run (open -> close, read back). Also prints
 * wall_ms, its open -> close time (the length of the floor process paired with
 * it), and clock_read_kind, the floor loop of the clock ECL used. */
static int child_ecl(const char *kind, int nthreads, uint64_t n)
{
    bench_ecl_result res;
    int rc = bench_ecl_run(kind, nthreads, n, 1, &res);
    if (rc != 0)
        return rc;
    bench_ecl_print(&res);
    const char *clock_kind = strcmp(res.clock, "tsc") == 0 ? "rdtsc" : "clock_gettime";
    printf("wall_ms=%.4f\nclock_read_kind=%s\n",
           res.ns * ((double)res.read_back / nthreads) / 1e6, clock_kind);
    return 0;
}

#if BENCH_HAVE_TSC
#define HOT_SEGMENTS 300
#define HOT_EVENTS 5000

/* --hot KIND [THREADS]: the recording path alone, in cycle-counter ticks per
 * event, on THREADS threads (default 1) at once: each alternates 300
 * segments of 5,000 events of KIND (ecl_enter/ecl_leave, or the 4-field user
 * record, its values restarting every segment) with 300 segments of as many
 * events of the floor loop table (a) pairs KIND with (rdtsc + 16-byte store,
 * or rdtsc), and keeps each side's fastest segment; the threads' fastest are
 * averaged. The fastest segment leaves out what a loaded machine adds
 * (preemption, a busy core, ECL's writer thread at a buffer hand-off), and
 * also what table (a) includes on purpose (start, hand-offs, flushes, the
 * close). For changes to the hot path, whose effect on a shared machine is
 * smaller than what moves table (a)'s medians. Needs ECL's clock to be the
 * cycle counter. */
typedef struct hot_thread {
    pthread_t id;
    bench_loop_fn ecl_loop, floor;
    bench_ecl_work *w;
    pthread_barrier_t *go;
    double best_ecl, best_floor;
} hot_thread;

static void *hot_run(void *p)
{
    hot_thread *h = p;
    h->best_ecl = h->best_floor = INFINITY;
    pthread_barrier_wait(h->go);
    for (int s = 0; s < HOT_SEGMENTS; s++) {
        uint64_t t0 = __rdtsc();
        BENCH_KEEP(h->ecl_loop(HOT_EVENTS, 0, h->w));
        uint64_t t1 = __rdtsc();
        BENCH_KEEP(h->floor(HOT_EVENTS, 0, NULL));
        uint64_t t2 = __rdtsc();
        h->best_ecl = fmin(h->best_ecl, (double)(t1 - t0) / HOT_EVENTS);
        h->best_floor = fmin(h->best_floor, (double)(t2 - t1) / HOT_EVENTS);
    }
    return NULL;
}

static int child_hot(const char *kind, int nthreads)
{
    int el = strcmp(kind, "enter_leave") == 0;
    if ((!el && strcmp(kind, "record") != 0) || nthreads < 1 || nthreads > 64) {
        fprintf(stderr, "bench_record: --hot %s %d: expected enter_leave or record, and 1 to "
                        "64 threads\n", kind, nthreads);
        return 2;
    }
    const char *clk = getenv("ECL_CLOCK");
    if (clk != NULL && strcmp(clk, "tsc") != 0) {
        fprintf(stderr, "bench_record: --hot compares with the cycle counter; ECL_CLOCK=%s is "
                        "another clock\n", clk);
        return BENCH_EXIT_UNSUPPORTED;
    }
    bench_ecl_work w;
    int rc = bench_ecl_setup(&w);
    if (rc != 0)
        return rc;
    hot_thread h[64];
    pthread_barrier_t go;
    pthread_barrier_init(&go, NULL, (unsigned)nthreads);
    for (int i = 0; i < nthreads; i++) {
        h[i] = (hot_thread){ .ecl_loop = el ? bench_loop_enter_leave : bench_loop_record,
                             .floor = el ? loop_rdtsc_store16 : loop_rdtsc, .w = &w, .go = &go };
        if (pthread_create(&h[i].id, NULL, hot_run, &h[i]) != 0) {
            fprintf(stderr, "bench_record: cannot create thread\n");
            exit(1);    /* the others wait at the barrier for good */
        }
    }
    double e = 0, f = 0;
    for (int i = 0; i < nthreads; i++) {
        pthread_join(h[i].id, NULL);
        e += h[i].best_ecl / nthreads;
        f += h[i].best_floor / nthreads;
    }
    pthread_barrier_destroy(&go);
    ecl_finalize();
    printf("ecl_ticks=%.3f\nfloor_ticks=%.3f\nratio=%.4f\n", e, f, e / f);
    return 0;
}
#endif

/* ---------------- the tables (run in the parent) ---------------- */

#define MAX_REPS 64
#define MAX_ECL 8

typedef struct base_row {
    const char *label;
    double ns[2][MAX_REPS];            /* [threads-1][run] */
} base_row;

static base_row base_rows[NBASE] = {
    { "clock read: rdtsc (__rdtsc)", { { 0 } } },
    { "clock read: rdtscp (__rdtscp)", { { 0 } } },
    { "clock read: clock_gettime(CLOCK_MONOTONIC)", { { 0 } } },
    { "16-byte store into a thread-local buffer", { { 0 } } },
    { "rdtsc + 16-byte store (a tracer's floor)", { { 0 } } },
};

typedef struct ecl_row {
    const char *kind;                  /* enter_leave | record */
    const char *compress;              /* the method, as ECL names it */
    int is_default;                    /* run with ECL_COMPRESS unset */
    int unsupported;                   /* this build lacks the method */
    int failed;                        /* a run failed (message on stderr) */
    double ns[2][MAX_REPS], ratio[2][MAX_REPS];
    double floor[2][MAX_REPS];         /* ns/event of the floor process paired with each run */
    double last_wall_ms[2];            /* open -> close of the last run, for the next floor */
    double waits[2][MAX_REPS];         /* times a thread waited for a free buffer, per run */
    double init_ms[MAX_REPS], fini_ms[MAX_REPS], bytes_per_event[MAX_REPS];
    uint64_t short_runs;               /* runs that read back fewer events than written */
    uint64_t written, read_back;       /* of the last short run */
    char clock[32], clock_read_kind[32];
    double tps;
} ecl_row;

static ecl_row ecl_rows[MAX_ECL];
static size_t necl;

static void run_baseline(int threads, uint64_t n, int rep)
{
    char tbuf[8], nbuf[32];
    char *argv[] = { (char *)bench_self(), "--baseline", tbuf, nbuf, NULL };
    snprintf(tbuf, sizeof tbuf, "%d", threads);
    snprintf(nbuf, sizeof nbuf, "%llu", (unsigned long long)n);
    bench_child c;
    int ok = bench_spawn(argv, NULL, BENCH_OUT_CAPTURE, &c) == 0;
    for (size_t i = 0; i < NBASE; i++)
        base_rows[i].ns[threads - 1][rep] = ok ? bench_kv(c.out, baseline_kinds[i]) : NAN;
}

/* The floor an ECL row is compared with: the cycle counter + a 16-byte store
 * for enter/leave, one read of the clock ECL used for a user record. */
static const char *row_floor_kind(const ecl_row *r)
{
    if (strcmp(r->kind, "enter_leave") == 0)
        return "rdtsc_store16";
    return r->clock_read_kind[0] ? r->clock_read_kind : "rdtsc";
}

/* One floor process (--floor) of wall_ms of wall time: its ns per event. */
static double run_floor(const char *kind, int threads, double wall_ms)
{
    char tbuf[8], wbuf[32];
    char *argv[] = { (char *)bench_self(), "--floor", (char *)kind, tbuf, wbuf, NULL };
    snprintf(tbuf, sizeof tbuf, "%d", threads);
    snprintf(wbuf, sizeof wbuf, "%.3f", wall_ms);
    bench_child c;
    if (bench_spawn(argv, NULL, BENCH_OUT_CAPTURE, &c) != 0) {
        fprintf(stderr, "bench_record: floor %s (%d threads) failed with status %d\n", kind,
                threads, c.status);
        return NAN;
    }
    return bench_kv(c.out, "floor");
}

/* One ECL process; 0 when it ran (r->ns, ... and r->last_wall_ms set). */
static int run_ecl_once(ecl_row *r, int threads, uint64_t n, int rep, const char *tmp)
{
    char nbuf[32], tbuf[8], dir[4200], env_dir[4300], env_comp[64];
    char *env[] = { env_dir, "ECL_PREFIX=bench", env_comp, NULL };
    char *argv[] = { (char *)bench_self(), "--child", (char *)r->kind, tbuf, nbuf, NULL };
    snprintf(nbuf, sizeof nbuf, "%llu", (unsigned long long)n);
    snprintf(tbuf, sizeof tbuf, "%d", threads);
    snprintf(dir, sizeof dir, "%s/%s-%s-%dt-%d", tmp, r->kind, r->compress, threads, rep);
    snprintf(env_dir, sizeof env_dir, "ECL_DIR=%s", dir);
    if (r->is_default)
        snprintf(env_comp, sizeof env_comp, "ECL_COMPRESS");   /* unset: ECL's default */
    else
        snprintf(env_comp, sizeof env_comp, "ECL_COMPRESS=%s", r->compress);

    bench_child c;
    if (bench_spawn(argv, env, BENCH_OUT_CAPTURE, &c) != 0) {
        if (c.status == BENCH_EXIT_UNSUPPORTED) {
            r->unsupported = 1;
        } else {
            fprintf(stderr, "bench_record: %s (%s, %d threads) failed with status %d\n",
                    r->kind, r->compress, threads, c.status);
            r->failed = 1;
        }
        bench_rmtree(dir);
        return -1;
    }
    double written = bench_kv(c.out, "events"), read_back = bench_kv(c.out, "read_back");
    r->ns[threads - 1][rep] = bench_kv(c.out, "ns");
    r->waits[threads - 1][rep] = bench_kv(c.out, "waits");
    r->last_wall_ms[threads - 1] = bench_kv(c.out, "wall_ms");
    if (read_back < written) {
        r->short_runs++;
        r->written = (uint64_t)written;
        r->read_back = (uint64_t)read_back;
    }
    if (threads == 1) {
        r->init_ms[rep] = bench_kv(c.out, "init_ms");
        r->fini_ms[rep] = bench_kv(c.out, "fini_ms");
        r->bytes_per_event[rep] = read_back > 0 ? bench_kv(c.out, "bytes") / read_back : NAN;
    }
    if (!r->clock[0]) {
        bench_kv_str(c.out, "clock", r->clock, sizeof r->clock);
        bench_kv_str(c.out, "clock_read_kind", r->clock_read_kind, sizeof r->clock_read_kind);
        r->tps = bench_kv(c.out, "tps");
    }
    bench_rmtree(dir);
    return 0;
}

/* One pair of run rep: the ECL process and a floor process of the same wall
 * time, each alone on the machine. Even runs go ECL first (the floor lasts as
 * long as that run); odd runs floor first (as long as the row's previous run),
 * so that neither side always follows the other. The ratio is the pair's. */
static void run_ecl(ecl_row *r, int threads, uint64_t n, int rep, const char *tmp)
{
    double *prev = &r->last_wall_ms[threads - 1];
    r->ns[threads - 1][rep] = r->ratio[threads - 1][rep] = r->floor[threads - 1][rep] = NAN;
    r->waits[threads - 1][rep] = NAN;
    if (threads == 1)
        r->init_ms[rep] = r->fini_ms[rep] = r->bytes_per_event[rep] = NAN;
    if (r->unsupported || r->failed)
        return;
    double floor = NAN;
    if (rep % 2 == 1 && *prev > 0) {
        floor = run_floor(row_floor_kind(r), threads, *prev);
        if (run_ecl_once(r, threads, n, rep, tmp) != 0)
            return;
    } else {
        if (run_ecl_once(r, threads, n, rep, tmp) != 0)
            return;
        if (*prev > 0)
            floor = run_floor(row_floor_kind(r), threads, *prev);
    }
    r->floor[threads - 1][rep] = floor;
    r->ratio[threads - 1][rep] = r->ns[threads - 1][rep] / floor;
}

/* " min median" for 1 and 2 threads. */
static void cells_min_median(double v[2][MAX_REPS], int reps)
{
    for (int t = 0; t < 2; t++) {
        bench_cells_min_median(v[t], reps, 8, 2, 1);
        printf("  ");
    }
}

static void ecl_label(const ecl_row *r, const char *what, char *buf, size_t len)
{
    snprintf(buf, len, "%s, %s%s", what, r->compress, r->is_default ? " (default)" : "");
}

static const char *kind_label(const char *kind)
{
    return strcmp(kind, "enter_leave") == 0 ? "ECL enter/leave (pair/2)" : "ECL 4-field record";
}

/* Compressed against raw: each compressed row's ns/event over the `none`
 * row's of the same kind, threads and round (the two ran back to back), and
 * how often the recording threads waited for a free buffer. */
static void print_compression(int reps)
{
    printf("\nCompression against raw, per round: ns/event of a compressed row / ns/event of "
           "the none\nrow of the same kind and threads in the same round (run back to back); "
           "min and median\nover the %d rounds. waits: times a recording thread waited for a "
           "free buffer, from\nthe trace's flush records, median per run.\n", reps);
    printf("%-46s %18s  %18s  %17s\n", "", "1 thread", "2 threads", "waits per run");
    printf("%-46s %8s %8s    %8s %8s    %8s %8s\n", "row / none", "min", "median", "min",
           "median", "1 thr", "2 thr");
    for (size_t i = 0; i < necl; i++) {
        ecl_row *r = &ecl_rows[i], *raw = NULL;
        if (strcmp(r->compress, "none") == 0 || r->unsupported)
            continue;
        for (size_t j = 0; j < necl && !raw; j++)
            if (strcmp(ecl_rows[j].kind, r->kind) == 0 &&
                strcmp(ecl_rows[j].compress, "none") == 0)
                raw = &ecl_rows[j];
        if (raw == NULL)
            continue;
        double q[2][MAX_REPS];
        for (int t = 0; t < 2; t++)
            for (int k = 0; k < reps; k++)
                q[t][k] = r->ns[t][k] / raw->ns[t][k];
        char what[160], label[200];
        snprintf(what, sizeof what, "%s / none",
                 strcmp(r->kind, "enter_leave") == 0 ? "enter/leave" : "record");
        ecl_label(r, what, label, sizeof label);
        printf("%-46s", label);
        cells_min_median(q, reps);
        for (int t = 0; t < 2; t++) {
            double mn, md;
            bench_min_median(r->waits[t], reps, &mn, &md);
            bench_cell(md, 8, 0);
        }
        if (strcmp(r->compress, "zstd") == 0)
            printf("   target <= 1.3 (2 threads)");
        printf("\n");
    }
}

static void print_tables(uint64_t n_el, uint64_t n_rec, uint64_t n_base, int reps,
                         const char *dflt)
{
    const ecl_row *first = NULL;
    for (size_t i = 0; i < necl && !first; i++)
        if (ecl_rows[i].clock[0])
            first = &ecl_rows[i];
    char note[512];
    if (!first)
        snprintf(note, sizeof note, "ECL clock: unknown (no ECL run succeeded)");
    else if (strcmp(first->clock, "tsc") == 0)
        snprintf(note, sizeof note, "ECL clock: tsc (rdtsc, calibrated at %.3f GHz)",
                 first->tps / 1e9);
    else
        snprintf(note, sizeof note, "ECL clock: %s", first->clock);
    size_t k = strlen(note);
    snprintf(note + k, sizeof note - k,
             "\nECL's default compression (ECL_COMPRESS unset): %s; rows marked (default) "
             "ran with ECL_COMPRESS unset", dflt);

    bench_table_header("(a) recording cost, open -> close: ns per event, per thread", note);
    printf("%d runs of every configuration, interleaved round-robin; min and median over the "
           "runs.\nAn ECL run is a fresh process timed from before ecl_init to after "
           "ecl_finalize (what\nthe user pays), divided by the events read back from its trace "
           "per thread: %llu\nenter/leave or %llu records per thread. Floor rows: %llu events per "
           "run after a warm-up.\ninit and finalize: median ms of the 1-thread runs (included in "
           "ns/event).\n\n", reps, (unsigned long long)n_el, (unsigned long long)n_rec,
           (unsigned long long)n_base);
    printf("%-46s %18s  %18s  %8s %8s\n", "", "1 thread", "2 threads", "init", "finalize");
    printf("%-46s %8s %8s    %8s %8s    %8s %8s\n", "operation", "min", "median", "min",
           "median", "ms", "ms");
    for (size_t i = 0; i < NBASE; i++) {
        printf("%-46s", base_rows[i].label);
        cells_min_median(base_rows[i].ns, reps);
        printf("\n");
    }
    for (size_t i = 0; i < necl; i++) {
        ecl_row *r = &ecl_rows[i];
        char label[128];
        ecl_label(r, kind_label(r->kind), label, sizeof label);
        printf("%-46s", label);
        cells_min_median(r->ns, reps);
        double mn, md;
        bench_min_median(r->init_ms, reps, &mn, &md);
        bench_cell(md, 8, 2);
        bench_min_median(r->fini_ms, reps, &mn, &md);
        bench_cell(md, 8, 2);
        printf("\n");
    }

    printf("\nRatios per pair: every ECL run above is paired with a floor process of the "
           "same wall\ntime (its open -> close time), run right before or after it (alternately) "
           "and alone;\nthe ratio is taken within the pair, then min and median over the %d "
           "pairs. The floor\nrows give that floor's own ns/event (min, median over the pairs).\n",
           reps);
    printf("%-46s %18s  %18s\n", "", "1 thread", "2 threads");
    printf("%-46s %8s %8s    %8s %8s\n", "ECL row: floor ns/event, then ratio", "min", "median",
           "min", "median");
    for (size_t i = 0; i < necl; i++) {
        ecl_row *r = &ecl_rows[i];
        int el = strcmp(r->kind, "enter_leave") == 0;
        const char *fname = el ? "(rdtsc + store)"
                                : (strcmp(r->clock_read_kind, "clock_gettime") == 0
                                       ? "clock read" : "rdtsc");
        char what[160], label[200];
        snprintf(what, sizeof what, "  floor %s", fname);
        ecl_label(r, what, label, sizeof label);
        printf("%-46s", label);
        cells_min_median(r->floor, reps);
        printf("\n");
        snprintf(what, sizeof what, "%s / %s", el ? "enter/leave" : "record", fname);
        ecl_label(r, what, label, sizeof label);
        printf("%-46s", label);
        cells_min_median(r->ratio, reps);
        if (r->is_default)
            printf(el ? "   target <= 1.2" : "   target <= 2");
        printf("\n");
    }
    print_compression(reps);
    for (size_t i = 0; i < necl; i++) {
        ecl_row *r = &ecl_rows[i];
        char label[128];
        ecl_label(r, kind_label(r->kind), label, sizeof label);
        if (r->unsupported)
            printf("note: %s: n/a, this build's ECL has no ECL_COMPRESS=%s\n", label,
                   r->compress);
        else if (r->failed)
            printf("note: %s: n/a, a run failed (its message is on stderr)\n", label);
        if (r->short_runs)
            printf("note: %s: %llu run(s) read back fewer events than written (last: %llu of "
                   "%llu)\n", label, (unsigned long long)r->short_runs,
                   (unsigned long long)r->read_back, (unsigned long long)r->written);
    }
#if !BENCH_HAVE_TSC
    printf("note: no cycle counter on this platform: the rdtsc rows and the enter/leave "
           "ratios are n/a\n");
#endif

    bench_table_header("(b) trace size: bytes per event on disk", note);
    printf("Trace file size / events read back from it, 1-thread runs of (a): %llu "
           "enter/leave\nevents or %llu records plus the header and definitions; median over "
           "the %d runs.\n\n", (unsigned long long)n_el, (unsigned long long)n_rec, reps);
    printf("%-50s %10s\n", "stream, compression", "B/event");
    for (size_t i = 0; i < necl; i++) {
        ecl_row *r = &ecl_rows[i];
        char label[128];
        ecl_label(r, strcmp(r->kind, "enter_leave") == 0 ? "enter/leave (1 uint32 region)"
                                                         : "user record (i64, f64, u32, u64)",
                  label, sizeof label);
        double mn, md;
        bench_min_median(r->bytes_per_event, reps, &mn, &md);
        printf("%-50s", label);
        bench_cell(md, 10, 2);
        if (strcmp(r->kind, "enter_leave") == 0 && strcmp(r->compress, "none") == 0)
            printf("   target <= 6");
        printf(r->unsupported ? "   (this build refuses it)\n" : "\n");
    }
}

int main(int argc, char **argv)
{
    int rc = bench_ecl_child_main(argc, argv);
    if (rc >= 0)
        return rc;
    if (argc == 5 && strcmp(argv[1], "--child") == 0)
        return child_ecl(argv[2], atoi(argv[3]), strtoull(argv[4], NULL, 10));
    if (argc == 5 && strcmp(argv[1], "--floor") == 0)
        return child_floor(argv[2], atoi(argv[3]), strtod(argv[4], NULL));
    if (argc == 4 && strcmp(argv[1], "--baseline") == 0)
        return child_baseline(atoi(argv[2]), strtoull(argv[3], NULL, 10));
#if BENCH_HAVE_TSC
    if ((argc == 3 || argc == 4) && strcmp(argv[1], "--hot") == 0)
        return child_hot(argv[2], argc == 4 ? atoi(argv[3]) : 1);
#endif
    if (argc != 1) {
        fprintf(stderr, "usage: bench_record   (environment: BENCH_SCALE, BENCH_REPS, "
                        "BENCH_KEEP_TRACES, ECL_*)\n");
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    uint64_t n_el = bench_scaled(6000000) & ~(uint64_t)1;   /* even: whole pairs */
    /* A user record costs several enter/leaves and ~7 times the bytes: a
     * quarter of the events keeps every run well above the fixed costs. */
    uint64_t n_rec = n_el / 4;
    uint64_t n_base = bench_scaled(2000000);
    int reps = bench_reps();
    if (reps > MAX_REPS)
        reps = MAX_REPS;
    char tmp[4096], dflt[32];
    bench_mkdtemp("record", tmp, sizeof tmp);
    bench_ecl_default_compression(tmp, dflt, sizeof dflt);

    /* Rows: every method; the default one runs with ECL_COMPRESS unset, and an
     * unrecognised default gets a row of its own. */
    static const char *const kinds[2] = { "enter_leave", "record" };
    static const char *const methods[3] = { "none", "zlib", "zstd" };
    int known = 0;
    for (int m = 0; m < 3; m++)
        known |= strcmp(dflt, methods[m]) == 0;
    for (int k = 0; k < 2; k++) {
        if (!known)
            ecl_rows[necl++] = (ecl_row){ .kind = kinds[k], .compress = "unknown",
                                          .is_default = 1 };
        for (int m = 0; m < 3; m++) {
            ecl_rows[necl++] = (ecl_row){ .kind = kinds[k], .compress = methods[m],
                                          .is_default = strcmp(dflt, methods[m]) == 0 };
#ifndef HAVE_ZSTD
            /* ECL without zstd takes ECL_COMPRESS=zstd as a bad value: said,
             * and traced with the default, which is not what the row measures */
            if (strcmp(methods[m], "zstd") == 0)
                ecl_rows[necl - 1].unsupported = 1;
#endif
        }
    }

    fprintf(stderr, "bench_record: %d runs of %zu configurations x 1 and 2 threads...\n", reps,
            necl + 1);
    for (int rep = 0; rep < reps; rep++)
        for (int t = 1; t <= 2; t++) {
            run_baseline(t, n_base, rep);
            for (size_t i = 0; i < necl; i++)
                run_ecl(&ecl_rows[i], t,
                        strcmp(ecl_rows[i].kind, "record") == 0 ? n_rec : n_el, rep, tmp);
        }
    print_tables(n_el, n_rec, n_base, reps, dflt);
    bench_rmtree(tmp);
    return 0;
}
