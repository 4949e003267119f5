/* bench_ascii.c -- table (g): PAL's ascii reader on PICL text. Parses the
 * 3.8 MB PICL sample (../shared/data/picl/mpicl_lab5...ttf, or the file given
 * as the first argument) BENCH_REPS times (default 100) in one process through
 * edl/formats/picl.edl, reading the time (pal_record_time_ns) and the event
 * field by handle of every record, and prints MB/s of trace text and records/s
 * per core. Also times edl_compile_file for every shipped descriptor (the
 * median of 50 compiles). Prints a table; never fails on time. */
#include <config.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "edl/edl.h"
#include "pal/pal.h"

#ifndef BENCH_SRCDIR
#define BENCH_SRCDIR "."
#endif

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    const char *trace = argc > 1 ? argv[1]
        : BENCH_SRCDIR "/../shared/data/picl/mpicl_lab5.sasha.83605.trace.ttf";
    const char *formats[] = {"ecl", "picl", "picl1"};
    char edl[1024], dictbin[256];
    int reps = getenv("BENCH_REPS") ? atoi(getenv("BENCH_REPS")) : 100;
    if (reps < 1)
        reps = 1;

    printf("\n(g) PAL ascii reader: PICL text through edl/formats/picl.edl\n");
    printf("%-28s %12s\n", "descriptor", "edl_compile_file (ms, median of 50)");
    for (size_t f = 0; f < sizeof formats / sizeof *formats; f++) {
        double t[50];
        snprintf(edl, sizeof edl, "%s/edl/formats/%s.edl", BENCH_SRCDIR, formats[f]);
        for (int i = 0; i < 50; i++) {
            edl_dict *d = NULL;
            double t0 = now();
            if (edl_compile_file(edl, NULL, NULL, &d) != EDL_OK) {
                fprintf(stderr, "bench_ascii: cannot compile %s\n", edl);
                return 1;
            }
            t[i] = now() - t0;
            edl_dict_destroy(d);
        }
        qsort(t, 50, sizeof *t, cmp_double);
        printf("%-28s %12.3f\n", formats[f], t[25] * 1e3);
    }

    struct stat sb;
    if (stat(trace, &sb) != 0) {
        printf("(skipped: no PICL sample at %s)\n", trace);
        return 0;
    }
    /* the binary dictionary, so that the reads measure reading only */
    snprintf(edl, sizeof edl, "%s/edl/formats/picl.edl", BENCH_SRCDIR);
    snprintf(dictbin, sizeof dictbin, "/tmp/bench-ascii-%ld.bin", (long)getpid());
    {
        edl_dict *d = NULL;
        unsigned char *b;
        size_t n;
        FILE *f;
        if (edl_compile_file(edl, NULL, NULL, &d) != EDL_OK || edl_dict_encode(d, &b, &n) != EDL_OK ||
            !(f = fopen(dictbin, "wb")) || fwrite(b, 1, n, f) != n) {
            fprintf(stderr, "bench_ascii: cannot write %s\n", dictbin);
            return 1;
        }
        fclose(f);
        free(b);
        edl_dict_destroy(d);
    }
    uint64_t records = 0, damaged = 0;
    int64_t sum = 0;
    double best = 1e30, total = 0;
    for (int rep = 0; rep < reps; rep++) {
        pal_reader *r;
        const pal_record *rec;
        const pal_handle *hev;
        double t0 = now();
        if (pal_reader_open(trace, dictbin, &r) != PAL_OK ||
            pal_reader_handle(r, "event", &hev) != PAL_OK) {
            fprintf(stderr, "bench_ascii: %s\n", pal_last_error());
            return 1;
        }
        while (pal_reader_next(r, &rec) == PAL_OK) {
            int64_t ev = 0;
            pal_record_i64(rec, hev, &ev);
            sum += ev + pal_record_time_ns(rec);
            records++;
        }
        pal_reader_stats st;
        pal_reader_get_stats(r, &st);
        damaged += st.damaged;
        pal_reader_close(r);
        double dt = now() - t0;
        total += dt;
        if (dt < best)
            best = dt;
    }
    unlink(dictbin);
    double mb = (double)sb.st_size * reps / 1e6;
    printf("%-28s %12s %12s %14s %10s\n", "trace", "MB read", "MB/s", "records/s", "damaged");
    printf("%-28s %12.1f %12.1f %14.0f %10" PRIu64 "\n", "PICL (mean)", mb, mb / total,
           (double)records / total, damaged);
    printf("%-28s %12.1f %12.1f %14.0f\n", "PICL (best pass)", (double)sb.st_size / 1e6,
           (double)sb.st_size / 1e6 / best, (double)records / reps / best);
    printf("(%d passes over %s, %.1f MB; time and event read by handle; checksum %" PRId64 ")\n",
           reps, trace, (double)sb.st_size / 1e6, sum);
    return 0;
}
