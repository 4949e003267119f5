/* readspeed.c -- reads a trace and sums one field through a handle, printing
 * records per second. A measuring aid, not a test (never pass/fail on time):
 *   readspeed TRACE [FIELD|-] [REPEAT] [name]
 * ("-": no field access; "name": the field by name, pal_record_get_u64,
 * instead of through a handle) */
#include <config.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pal/pal.h"

/* CPU time of this process: less disturbed by other jobs on a shared machine
 * than the wall clock (both are printed). */
static double cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: readspeed TRACE [FIELD|-] [REPEAT] [name]\n");
        return 2;
    }
    const char *field = argc > 2 ? argv[2] : "id";
    int repeat = argc > 3 ? atoi(argv[3]) : 3;
    int by_name = argc > 4 && strcmp(argv[4], "name") == 0;
    double best = 0;
    for (int k = 0; k < repeat; k++) {
        pal_reader *r;
        const pal_handle *h;
        const pal_record *rec;
        if (pal_reader_open(argv[1], NULL, &r) != PAL_OK) {
            fprintf(stderr, "%s\n", pal_last_error());
            return 1;
        }
        if (strcmp(field, "-") == 0)
            h = NULL;       /* records only: measures the reader without a getter */
        else if (pal_reader_handle(r, field, &h) != PAL_OK) {
            fprintf(stderr, "no field %s\n", field);
            return 1;
        }
        uint64_t sum = 0, n = 0, tsum = 0, v;
        double t0 = now(), c0 = cpu();
        while (pal_reader_next(r, &rec) == PAL_OK) {
            if (by_name) {
                if (pal_record_get_u64(rec, field, &v) == PAL_OK)
                    sum += v;
            } else if (h && pal_record_u64(rec, h, &v) == PAL_OK) {
                sum += v;
            }
            tsum += pal_record_time(rec);
            n++;
        }
        double dt = now() - t0, dc = cpu() - c0;
        double rate = n / dc;
        if (rate > best)
            best = rate;
        printf("%" PRIu64 " records in %.3f s (%.3f s CPU): %.1f M records/s per CPU second "
               "(sum %" PRIu64 ", time sum %" PRIu64 ")\n", n, dt, dc, rate / 1e6, sum, tsum);
        pal_reader_close(r);
    }
    printf("best: %.1f M records/s\n", best / 1e6);
    return 0;
}
