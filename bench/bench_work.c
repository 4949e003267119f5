/* bench_work.c -- ECL workloads shared by the bench/ programs (see
 * bench_work.h). */
#include <config.h>

#include "bench/bench_work.h"
#include "bench/bench_common.h"
#include "bench/bench_pal.h"
#include "pal/pal.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t events_recorded;   /* added once per round, atomically */

uint64_t bench_ecl_events(void)
{
    return __atomic_load_n(&events_recorded, __ATOMIC_RELAXED);
}

int bench_ecl_setup(bench_ecl_work *w)
{
    static const char *const names[4] = { "bench_a", "bench_b", "bench_c", "bench_d" };
    static const ecl_field fields[4] = {
        { "step", ECL_FIELD_INT64, NULL, "loop index" },
        { "value", ECL_FIELD_FLOAT64, NULL, "half the loop index" },
        { "slot", ECL_FIELD_UINT32, NULL, "loop index mod 1024" },
        { "bytes", ECL_FIELD_UINT64, "B", "64 times the loop index" },
    };
    ecl_status st = ecl_init();
    if (st != ECL_OK) {
        fprintf(stderr, "bench: ecl_init: %s\n", ecl_status_string(st));
        return st == ECL_ECONFIG ? BENCH_EXIT_UNSUPPORTED : 1;
    }
    for (int i = 0; i < 4; i++) {
        w->regions[i] = ecl_region_define(names[i]);
        if (!w->regions[i]) {
            fprintf(stderr, "bench: ecl_region_define(%s) failed\n", names[i]);
            return 1;
        }
    }
    st = ecl_type_register("bench_record", fields, 4, &w->record_type);
    if (st != ECL_OK) {
        fprintf(stderr, "bench: ecl_type_register: %s\n", ecl_status_string(st));
        return 1;
    }
    return 0;
}

uint64_t bench_loop_enter_leave(uint64_t n, int tid, void *arg)
{
    const bench_ecl_work *w = arg;
    uint64_t pairs = n / 2;
    (void)tid;
    for (uint64_t i = 0; i < pairs; i++) {
        ecl_region r = w->regions[i & 3];
        ecl_enter(r);
        ecl_leave(r);
    }
    __atomic_add_fetch(&events_recorded, 2 * pairs, __ATOMIC_RELAXED);
    return pairs;
}

uint64_t bench_loop_record(uint64_t n, int tid, void *arg)
{
    const bench_ecl_work *w = arg;
    ecl_value v[4];
    (void)tid;
    for (uint64_t i = 0; i < n; i++) {
        v[0].i = (int64_t)i;
        v[1].f = (double)i * 0.5;
        v[2].u = i & 1023u;
        v[3].u = i << 6;
        ecl_record(w->record_type, v);
    }
    __atomic_add_fetch(&events_recorded, n, __ATOMIC_RELAXED);
    return n;
}

static const char *clock_name(int source)
{
    switch (source) {
    case 1: return "monotonic";
    case 2: return "tsc";
    case 3: return "realtime";
    default: return "unknown";
    }
}

/* The threads of one run: created before ecl_init, released together by the
 * barrier once tracing is set up, each recording n events. */
typedef struct ecl_run {
    pthread_barrier_t go;
    bench_loop_fn loop;
    bench_ecl_work w;
    uint64_t n;
    int skip;                  /* setup failed: leave without recording */
} ecl_run;

static void *ecl_run_thread(void *p)
{
    ecl_run *run = p;
    pthread_barrier_wait(&run->go);
    if (!run->skip)
        BENCH_KEEP(run->loop(run->n, 0, &run->w));
    return NULL;
}

int bench_ecl_run(const char *kind, int nthreads, uint64_t n, int read_back,
                  bench_ecl_result *res)
{
    static const char *const el_names[2] = { "enter", "leave" };
    static const char *const rec_names[1] = { "bench_record" };
    ecl_run run = { .n = n };
    const char *const *names;
    size_t nnames;
    pthread_t th[64];
    memset(res, 0, sizeof *res);
    res->clock = "unknown";
    if (strcmp(kind, "enter_leave") == 0) {
        run.loop = bench_loop_enter_leave;
        names = el_names;
        nnames = 2;
    } else if (strcmp(kind, "record") == 0) {
        run.loop = bench_loop_record;
        names = rec_names;
        nnames = 1;
    } else {
        fprintf(stderr, "bench: unknown workload '%s'\n", kind);
        return 1;
    }
    if (nthreads < 1 || nthreads > 64) {
        fprintf(stderr, "bench: %d threads: expected 1 to 64\n", nthreads);
        return 1;
    }
    pthread_barrier_init(&run.go, NULL, (unsigned)nthreads + 1);
    for (int t = 0; t < nthreads; t++)
        if (pthread_create(&th[t], NULL, ecl_run_thread, &run) != 0) {
            fprintf(stderr, "bench: cannot create thread\n");
            exit(1);
        }

    double t0 = bench_now_ns();
    int rc = bench_ecl_setup(&run.w);
    double t1 = bench_now_ns();
    run.skip = rc != 0;
    pthread_barrier_wait(&run.go);
    for (int t = 0; t < nthreads; t++)
        pthread_join(th[t], NULL);
    pthread_barrier_destroy(&run.go);
    if (rc != 0)
        return rc;
    double t2 = bench_now_ns();
    char path[4096] = "";
    const char *p = ecl_trace_path();
    if (p)
        snprintf(path, sizeof path, "%s", p);
    ecl_status st = ecl_finalize();
    double t3 = bench_now_ns();
    if (st != ECL_OK) {
        fprintf(stderr, "bench: ecl_finalize: %s\n", ecl_status_string(st));
        return 1;
    }
    /* The file is looked up again: a writer may rename it when it closes. */
    const char *dir = getenv("ECL_DIR");
    if (dir)
        bench_find_file(dir, ".ecl", path, sizeof path);
    snprintf(res->trace, sizeof res->trace, "%s", path);
    res->bytes = path[0] ? bench_path_bytes(path) : 0;
    res->written = bench_ecl_events();
    res->init_ms = (t1 - t0) / 1e6;
    res->fini_ms = (t3 - t2) / 1e6;
    res->loop_ns = (t2 - t1) / (double)n;
    res->ns = (t3 - t0) / (double)n;
    if (!read_back)
        return 0;

    uint64_t counts[2] = { 0, 0 };
    char err[512];
    if (bench_pal_count_waits(path, names, nnames, counts, &res->waits, err, sizeof err) != 0) {
        fprintf(stderr, "bench: reading back '%s': %s\n", path, err);
        return 1;
    }
    res->read_back = counts[0] + counts[1];
    res->ns = res->read_back ? (t3 - t0) / ((double)res->read_back / nthreads) : NAN;
    pal_reader *r = NULL;
    if (pal_reader_open(path, NULL, &r) == PAL_OK) {
        pal_trace_info info;
        if (pal_reader_info(r, &info) == PAL_OK) {
            res->clock = clock_name(info.clock_source);
            res->tps = info.ticks_per_second;
        }
    }
    pal_reader_close(r);
    return 0;
}

void bench_ecl_print(const bench_ecl_result *res)
{
    printf("ns=%.4f\nloop_ns=%.4f\ninit_ms=%.4f\nfini_ms=%.4f\nevents=%llu\nread_back=%llu\n"
           "bytes=%llu\nwaits=%llu\ntrace=%s\nclock=%s\ntps=%.0f\n",
           res->ns, res->loop_ns, res->init_ms, res->fini_ms, (unsigned long long)res->written,
           (unsigned long long)res->read_back, (unsigned long long)res->bytes,
           (unsigned long long)res->waits, res->trace, res->clock, res->tps);
}

int bench_ecl_child_main(int argc, char **argv)
{
    if (argc != 6 || strcmp(argv[1], "--ecl-run") != 0)
        return -1;
    bench_ecl_result res;
    int rc = bench_ecl_run(argv[2], atoi(argv[3]), strtoull(argv[4], NULL, 10), atoi(argv[5]),
                           &res);
    if (rc == 0)
        bench_ecl_print(&res);
    return rc;
}

int bench_ecl_spawn(const char *kind, int nthreads, uint64_t n, int read_back,
                    const char *compress, const char *dir, bench_child *c)
{
    char sthreads[16], sn[32], srb[8], env_dir[4200], env_comp[64];
    snprintf(sthreads, sizeof sthreads, "%d", nthreads);
    snprintf(sn, sizeof sn, "%llu", (unsigned long long)n);
    snprintf(srb, sizeof srb, "%d", read_back);
    snprintf(env_dir, sizeof env_dir, "ECL_DIR=%s", dir);
    if (compress)
        snprintf(env_comp, sizeof env_comp, "ECL_COMPRESS=%s", compress);
    else
        snprintf(env_comp, sizeof env_comp, "ECL_COMPRESS");
    char *env[] = { env_dir, "ECL_PREFIX=bench", "ECL_VERBOSE=1", env_comp, NULL };
    char *argv[] = { (char *)bench_self(), "--ecl-run", (char *)kind, sthreads, sn, srb, NULL };
    return bench_spawn(argv, env, BENCH_OUT_CAPTURE_ALL, c);
}

void bench_ecl_default_compression(const char *tmp, char *buf, size_t len)
{
    char dir[4200];
    bench_child c;
    snprintf(dir, sizeof dir, "%s/probe-default", tmp);
    snprintf(buf, len, "unknown");
    if (bench_ecl_spawn("enter_leave", 1, 2, 0, NULL, dir, &c) == 0)
        bench_ecl_compression(c.out, buf, len);
    bench_rmtree(dir);
}
