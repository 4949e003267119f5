/* bench_work.c -- ECL workloads and PAL read loops shared by the bench/
 * programs (see bench_work.h). */
#include <config.h>

#include "bench/bench_work.h"
#include "bench/bench_common.h"

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

int bench_ecl_child(const char *kind, int nthreads, int reps, uint64_t n)
{
    bench_ecl_work w;
    bench_loop_fn loop;
    if (strcmp(kind, "enter_leave") == 0)
        loop = bench_loop_enter_leave;
    else if (strcmp(kind, "record") == 0)
        loop = bench_loop_record;
    else {
        fprintf(stderr, "bench: unknown workload '%s'\n", kind);
        return 1;
    }
    int rc = bench_ecl_setup(&w);
    if (rc != 0)
        return rc;

    double ns = bench_run_threads(nthreads, reps, n, loop, &w);

    char path[4096] = "";
    const char *p = ecl_trace_path();
    if (p)
        snprintf(path, sizeof path, "%s", p);
    ecl_status st = ecl_finalize();
    if (st != ECL_OK) {
        fprintf(stderr, "bench: ecl_finalize: %s\n", ecl_status_string(st));
        return 1;
    }
    /* The file is looked up again: a writer may rename it when it closes. */
    const char *dir = getenv("ECL_DIR");
    if (dir)
        bench_find_file(dir, ".ecl", path, sizeof path);

    const char *clock = "unknown";
    double tps = 0;
    pal_reader *r = NULL;
    if (path[0] && pal_reader_open(path, NULL, &r) == PAL_OK) {
        pal_trace_info info;
        if (pal_reader_info(r, &info) == PAL_OK) {
            clock = clock_name(info.clock_source);
            tps = info.ticks_per_second;
        }
    }
    pal_reader_close(r);

    printf("ns=%.4f\nevents=%llu\ntrace=%s\nclock=%s\ntps=%.0f\n", ns,
           (unsigned long long)bench_ecl_events(), path, clock, tps);
    return 0;
}

int bench_pal_read(const char *path, bench_read_mode mode, uint64_t *records, uint64_t *hits,
                   uint64_t *sum, char *err, size_t errlen)
{
    pal_reader *r = NULL;
    const pal_record *rec;
    const pal_handle *h = NULL;
    uint64_t nrec = 0, nhit = 0, acc = 0, v;
    pal_status st = pal_reader_open(path, NULL, &r);
    if (st != PAL_OK) {
        snprintf(err, errlen, "%s", r ? pal_reader_error(r) : pal_last_error());
        pal_reader_close(r);
        return -1;
    }
    if (mode == BENCH_READ_HANDLE && (st = pal_reader_handle(r, "region", &h)) != PAL_OK) {
        snprintf(err, errlen, "pal_reader_handle(region): %s", pal_status_string(st));
        pal_reader_close(r);
        return -1;
    }
    switch (mode) {
    case BENCH_READ_ITERATE:
        while ((st = pal_reader_next(r, &rec)) == PAL_OK) {
            BENCH_KEEP(rec);
            nrec++;
        }
        break;
    case BENCH_READ_NAME:
        while ((st = pal_reader_next(r, &rec)) == PAL_OK) {
            nrec++;
            if (pal_record_get_u64(rec, "region", &v) == PAL_OK) {
                nhit++;
                acc += v;
            }
        }
        break;
    case BENCH_READ_HANDLE:
        while ((st = pal_reader_next(r, &rec)) == PAL_OK) {
            nrec++;
            if (pal_record_u64(rec, h, &v) == PAL_OK) {
                nhit++;
                acc += v;
            }
        }
        break;
    }
    if (st != PAL_END) {
        snprintf(err, errlen, "after %llu records: %s", (unsigned long long)nrec,
                 pal_reader_error(r)[0] ? pal_reader_error(r) : pal_status_string(st));
        pal_reader_close(r);
        return -1;
    }
    pal_reader_close(r);
    *records = nrec;
    *hits = nhit;
    *sum = acc;
    return 0;
}
