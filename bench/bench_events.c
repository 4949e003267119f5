/* bench_events.c -- what the event layer costs a record: a trace or run
 * read as records alone (pal_reader_next), then as the events of each
 * consumer's options: the views' (PAL_EVENTS_EVERY_RECORD), the merge's
 * check on a run file (PAL_EVENTS_MESSAGES and _SETTLE) and format 2's
 * (all three). Every configuration opens, reads and closes the trace in
 * this process, BENCH_REPS times (default 7) round-robin; the table shows
 * the CPU time per record, min and median, and what was read back
 * (records, messages), which must be the same in every run.
 *
 *   bench_events [-d DICT] TRACE...   (a trace, or the per-rank traces of a run) */
#include <config.h>

#include "bench/bench_common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pal/pal.h"

#define MAX_REPS 64

static double cpu_sec(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct config {
    const char *name;
    int events;                 /* 0: records only */
    unsigned options;
} config;

static const config configs[] = {
    {"records only (pal_reader_next)", 0, 0},
    {"events, no option", 1, 0},
    {"events, EVERY_RECORD (pal-view)", 1, PAL_EVENTS_EVERY_RECORD},
    {"events, MESSAGES | SETTLE (ecl-merge --check)", 1, PAL_EVENTS_MESSAGES | PAL_EVENTS_SETTLE},
    {"events, all three (ecl-merge --format=2)", 1,
     PAL_EVENTS_EVERY_RECORD | PAL_EVENTS_MESSAGES | PAL_EVENTS_SETTLE},
};
#define NCONF (sizeof configs / sizeof configs[0])

/* One read: CPU seconds, or a negative number when it could not run. */
static double one(const config *c, const char *const *paths, size_t n, const char *dict,
                  uint64_t *records, uint64_t *messages)
{
    double t0 = cpu_sec();
    pal_reader *r = NULL;
    if (pal_reader_open_run(paths, n, dict, 0, &r) != PAL_OK) {
        fprintf(stderr, "bench_events: %s\n", pal_last_error());
        return -1;
    }
    pal_reader_set_diag(r, NULL, NULL);
    *records = *messages = 0;
    pal_status st;
    if (!c->events) {
        const pal_record *rec;
        while ((st = pal_reader_next(r, &rec)) == PAL_OK)
            ++*records;
    } else {
        pal_events *e = NULL;
        if (pal_events_create(r, &e) != PAL_OK || pal_events_set_options(e, c->options)) {
            fprintf(stderr, "bench_events: cannot read events: out of memory\n");
            pal_events_destroy(e);
            pal_reader_close(r);
            return -1;
        }
        const pal_event *v;
        while ((st = pal_events_next(e, &v)) == PAL_OK) {
            *records += (v->flags & PAL_EVF_RECORD) != 0;
            *messages += v->kind == PAL_EV_MESSAGE;
        }
        pal_events_destroy(e);
    }
    if (st != PAL_END)
        fprintf(stderr, "bench_events: %s: %s\n", paths[0], pal_status_string(st));
    pal_reader_close(r);
    return st == PAL_END ? cpu_sec() - t0 : -1;
}

int main(int argc, char **argv)
{
    const char *dict = NULL;
    int i = 1;
    if (argc > 2 && strcmp(argv[1], "-d") == 0) {
        dict = argv[2];
        i = 3;
    }
    if (i >= argc) {
        fprintf(stderr, "usage: bench_events [-d DICT] TRACE...\n");
        return 2;
    }
    const char *const *paths = (const char *const *)argv + i;
    size_t n = (size_t)(argc - i);
    int reps = bench_reps();
    if (reps > MAX_REPS)
        reps = MAX_REPS;
    double t[NCONF][MAX_REPS];
    uint64_t recs[NCONF], msgs[NCONF], total = 0;
    for (int rep = 0; rep < reps; rep++)
        for (size_t c = 0; c < NCONF; c++) {
            uint64_t nr, nm;
            t[c][rep] = one(&configs[c], paths, n, dict, &nr, &nm);
            if (t[c][rep] < 0)
                return 1;
            if (c == 0)
                total = nr;
            recs[c] = nr;
            msgs[c] = nm;
        }
    char title[512];
    snprintf(title, sizeof title, "event layer: CPU ns per record of %llu records (%s%s), "
             "%d runs each, interleaved", (unsigned long long)total, paths[0],
             n > 1 ? " ..." : "", reps);
    bench_table_header(title, "clock: this process's CPU time (CLOCK_PROCESS_CPUTIME_ID); "
                              "the input is read, nothing is written");
    printf("  %-58s %9s %9s %11s %9s\n", "read as", "min", "median", "records", "messages");
    for (size_t c = 0; c < NCONF; c++) {
        double per = total ? 1e9 / (double)total : 0, mn, md;
        bench_min_median(t[c], reps, &mn, &md);
        printf("  %-58s %9.1f %9.1f %11llu %9llu\n", configs[c].name, mn * per, md * per,
               (unsigned long long)(configs[c].events ? recs[c] : total),
               (unsigned long long)msgs[c]);
    }
    return 0;
}
