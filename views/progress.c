/* progress.c -- progress on a terminal (progress.h). */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "views/progress.h"

struct vw_progress {
    char what[128];
    uint64_t total, records, file_bytes;
    double start, shown;
    int drawn;
};

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

vw_progress *vw_progress_start(const char *what, uint64_t total_bytes)
{
    if (!isatty(2))
        return NULL;
    vw_progress *p = calloc(1, sizeof *p);
    if (p == NULL)
        return NULL;
    snprintf(p->what, sizeof p->what, "%s", what);
    p->total = total_bytes;
    p->start = p->shown = now();
    return p;
}

static void draw(vw_progress *p, double t)
{
    double el = t - p->start;
    char pct[16] = "";
    if (p->total && p->file_bytes)
        snprintf(pct, sizeof pct, " %3.0f%%",
                 100.0 * (double)(p->file_bytes > p->total ? p->total : p->file_bytes) /
                     (double)p->total);
    fprintf(stderr, "\r\033[Kpal-view: %s:%s %llu records, %.1f s (%.2f M records/s)", p->what,
            pct, (unsigned long long)p->records, el, el > 0 ? p->records / el / 1e6 : 0.0);
    fflush(stderr);
    p->shown = t;
    p->drawn = 1;
}

void vw_progress_update(vw_progress *p, uint64_t records, uint64_t bytes)
{
    if (p == NULL)
        return;
    p->records = records;
    if (bytes)
        p->file_bytes = bytes;
    double t = now();
    if (t - p->shown >= 0.2)
        draw(p, t);
}

void vw_progress_phase(vw_progress *p, const char *what)
{
    if (p == NULL)
        return;
    fprintf(stderr, "\r\033[Kpal-view: %s (%.1f s)", what, now() - p->start);
    fflush(stderr);
    p->drawn = 1;
}

void vw_progress_end(vw_progress *p)
{
    if (p == NULL)
        return;
    if (p->drawn)
        fputs("\r\033[K", stderr);
    free(p);
}

/* every 4096 records; the byte position (for one input file) is the
 * offset of the chunk or line reached */
static void on_record(void *ctx, const pal_record *rec, double t)
{
    vw_progress *p = ctx;
    (void)t;
    if ((++p->records & 4095) != 0)
        return;
    vw_progress_update(p, p->records, pal_record_offset(rec));
}

void vw_progress_sink(vw_progress *p, vw_sink *s)
{
    memset(s, 0, sizeof *s);
    if (p == NULL)
        return;
    s->ctx = p;
    s->record = on_record;
}
