/* bench_ascii.c -- table (g): PAL's ascii reader on PICL text, and
 * edl_compile_file for every shipped descriptor. One process, no children.
 *
 * A round compiles every descriptor once and reads the 3.8 MB PICL sample
 * (the file given as the first argument, else $BENCH_PICL, else
 * ../shared/data/picl/mpicl_lab5...ttf beside the source tree) once through the binary dictionary of edl/formats/picl.edl,
 * reading the time (pal_record_time_ns) and the event field by handle of
 * every record. The rounds repeat (BENCH_REPS, default 15; at least 7), so
 * the configurations interleave; the table shows min and median. Without the
 * sample the reading rows say so. Prints a table; never fails on time. */
#include <config.h>

#include "bench/bench_common.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "edl/edl.h"
#include "pal/pal.h"

#ifndef BENCH_SRCDIR
#define BENCH_SRCDIR "."
#endif

#define NFORMATS 3
#define MAX_ROUNDS 1000

static const char *const formats[NFORMATS] = { "ecl", "picl", "picl1" };

/* Compiles path once; seconds, or NAN on failure (message on stderr). */
static double compile_once(const char *path)
{
    edl_dict *d = NULL;
    double t0 = bench_now_ns();
    if (edl_compile_file(path, NULL, NULL, &d) != EDL_OK) {
        fprintf(stderr, "bench_ascii: cannot compile %s\n", path);
        return NAN;
    }
    double t = (bench_now_ns() - t0) / 1e9;
    edl_dict_destroy(d);
    return t;
}

/* Writes the binary dictionary of picl.edl, so that reads measure reading only. */
static int write_dict(const char *edl, const char *out)
{
    edl_dict *d = NULL;
    unsigned char *b = NULL;
    size_t n;
    FILE *f = NULL;
    int ok = edl_compile_file(edl, NULL, NULL, &d) == EDL_OK &&
             edl_dict_encode(d, &b, &n) == EDL_OK && (f = fopen(out, "wb")) != NULL &&
             fwrite(b, 1, n, f) == n;
    if (f && fclose(f) != 0)
        ok = 0;
    free(b);
    edl_dict_destroy(d);
    if (!ok)
        fprintf(stderr, "bench_ascii: cannot write %s: %s\n", out, strerror(errno));
    return ok ? 0 : -1;
}

typedef struct pass {
    double sec;
    uint64_t records, damaged;
    int64_t sum;
} pass;

/* One pass over the trace, open to close. Returns 0 or -1 (message on stderr). */
static int read_once(const char *trace, const char *dict, pass *p)
{
    pal_reader *r = NULL;
    const pal_record *rec;
    const pal_handle *hev;
    double t0 = bench_now_ns();
    if (pal_reader_open(trace, dict, &r) != PAL_OK ||
        pal_reader_handle(r, "event", &hev) != PAL_OK) {
        fprintf(stderr, "bench_ascii: %s: %s\n", trace, r ? pal_reader_error(r) : pal_last_error());
        pal_reader_close(r);
        return -1;
    }
    while (pal_reader_next(r, &rec) == PAL_OK) {
        int64_t ev = 0;
        pal_record_i64(rec, hev, &ev);
        p->sum += ev + pal_record_time_ns(rec);
        p->records++;
    }
    pal_reader_stats st;
    pal_reader_get_stats(r, &st);
    p->damaged += st.damaged;
    pal_reader_close(r);
    p->sec = (bench_now_ns() - t0) / 1e9;
    return 0;
}

int main(int argc, char **argv)
{
    const char *trace = argc > 1 ? argv[1] : getenv("BENCH_PICL");
    if (!trace || !trace[0])
        trace = BENCH_SRCDIR "/../shared/data/picl/mpicl_lab5.sasha.83605.trace.ttf";
    static double compile_s[NFORMATS][MAX_ROUNDS], read_s[MAX_ROUNDS];
    char edl[NFORMATS][1024], dictbin[4200], tmp[4096];
    const char *e = getenv("BENCH_REPS");
    int rounds = e ? atoi(e) : 15;
    if (rounds < BENCH_RUNS_DEFAULT)
        rounds = BENCH_RUNS_DEFAULT;
    if (rounds > MAX_ROUNDS)
        rounds = MAX_ROUNDS;
    setvbuf(stdout, NULL, _IOLBF, 0);

    for (int f = 0; f < NFORMATS; f++)
        snprintf(edl[f], sizeof edl[f], "%s/edl/formats/%s.edl", BENCH_SRCDIR, formats[f]);
    struct stat sb;
    int have_trace = stat(trace, &sb) == 0;
    bench_mkdtemp("ascii", tmp, sizeof tmp);
    snprintf(dictbin, sizeof dictbin, "%s/picl.bin", tmp);
    if (have_trace && write_dict(edl[1], dictbin) != 0)
        return 1;

    pass total = { 0 };
    for (int r = 0; r < rounds; r++) {
        for (int f = 0; f < NFORMATS; f++)
            compile_s[f][r] = compile_once(edl[f]);
        read_s[r] = NAN;
        if (have_trace) {
            pass p = { 0 };
            if (read_once(trace, dictbin, &p) != 0)
                return 1;
            read_s[r] = p.sec;
            total.records += p.records;
            total.damaged += p.damaged;
            total.sum += p.sum;
        }
    }
    bench_rmtree(tmp);

    bench_table_header("(g) PAL ascii reader (PICL text) and EDL compile, one core",
                       "one process; only the compiled PICL dictionary is written there");
    printf("%d rounds; a round compiles every descriptor once and reads the PICL sample once\n"
           "(open to close, time and event field by handle). Min and median over the rounds.\n\n",
           rounds);
    printf("%-36s %9s %9s\n", "edl_compile_file, ms", "min", "median");
    for (int f = 0; f < NFORMATS; f++) {
        char label[64];
        snprintf(label, sizeof label, "edl/formats/%s.edl", formats[f]);
        printf("%-36s", label);
        bench_cells_min_median(compile_s[f], rounds, 9, 3, 1e3);
        printf("\n");
    }
    printf("\n");
    if (!have_trace) {
        printf("PICL reading: n/a -- no PICL sample at %s\n"
               "(set BENCH_PICL to a PICL .trf/.ttf file, or give it as the first argument)\n",
               trace);
        return 0;
    }
    /* rates per pass, so that min is the slowest pass */
    static double mbs[MAX_ROUNDS], mrecs[MAX_ROUNDS];
    double recs = (double)total.records / rounds;
    for (int r = 0; r < rounds; r++) {
        mbs[r] = (double)sb.st_size / read_s[r] / 1e6;
        mrecs[r] = recs / read_s[r] / 1e6;
    }
    printf("%-36s %19s %19s %9s\n", "PICL reading", "MB/s of text", "Mrec/s", "damaged");
    printf("%-36s %9s %9s %9s %9s\n", "", "min", "median", "min", "median");
    printf("%-36s", "picl.edl dictionary, one pass");
    bench_cells_min_median(mbs, rounds, 9, 1, 1);
    bench_cells_min_median(mrecs, rounds, 9, 2, 1);
    printf(" %9" PRIu64 "\n", total.damaged);
    printf("(%s, %.1f MB, %.0f records read back per pass; damaged = bad lines PAL\n"
           "reported over all passes; checksum of the values read %" PRId64 ")\n", trace,
           (double)sb.st_size / 1e6, recs, total.sum);
    return 0;
}
