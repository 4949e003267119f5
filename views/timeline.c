/* timeline.c -- the timeline summary (timeline.h): per row and time bucket
 * the dominant region by exclusive time, frame counts, the longest slices,
 * markers and counter tracks; written as JSON for the report. */
#include <config.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "views/escape.h"
#include "views/records.h"
#include "views/timeline.h"

#define NB 4096           /* finest buckets per row */
#define COARSE 4          /* the coarse level merges this many buckets */
#define MAX_SLICES 20000  /* longest slices kept whole */
#define MAX_WSLICES 12000 /* of those, with a window (--from/--to): the window's */
#define MAX_MARKERS 2000
#define MAX_COUNTERS 64
#define MAX_CELLS 262144  /* fine buckets over all rows in the report */
#define MAX_GCELLS 131072 /* fine buckets over the groups of one kind */
#define MAX_COLLS 4096    /* collective instances kept whole (the longest) */
#define MAX_ROWS 64       /* more rows than this: ranks are grouped in blocks */
#define GMAP 32           /* regions counted exactly per group bucket */
#define MAXD 8            /* call-stack levels kept per row (deeper: the last) */
#define MAX_LEVELS 512    /* level arrays over all rows (64 kB each) */
#define NP 1024           /* profile buckets (each NB / NP fine buckets) */
#define PROF_CELLS 32768  /* profile buckets x regions in the report */

typedef struct bucket {   /* two candidates (space-saving) and a frame count */
    uint16_t r[2];        /* region index + 1, 0 = none */
    float w[2];           /* seconds */
    uint32_t n;
} bucket;

/* One region's share of one profile bucket, summed over rows: exact, so a
 * window made of whole buckets has the profile `pal-view --from --to` gives. */
typedef struct pcell {
    double incl, excl;    /* seconds inside the bucket: outermost instances, exclusive */
    uint32_t begun;       /* instances that began in the bucket */
    uint32_t open;        /* instances open at the bucket's start (began before it) */
} pcell;

/* The exact profile of the window --from/--to, per region. */
typedef struct wstat {
    uint64_t calls;
    double incl, excl;
} wstat;

typedef struct row {
    uint32_t process, stream;
    bucket *b;
    bucket *lv[MAXD];     /* per call-stack depth: the region open there (inclusive) */
    unsigned maxdepth;    /* deepest frame seen + 1 */
    long *stack;
    size_t depth, cap;
    double last;
} row;

typedef struct slice {
    uint32_t row;
    uint32_t depth;
    long region;
    double start, end;
    uint64_t bytes;
    int64_t peer, tag, comm, root, request;
} slice;

typedef struct marker {
    uint32_t row;
    double t;
    char *text;
} marker;

typedef struct coll {
    long region;
    uint32_t members, size, lo, hi, late;
    int64_t comm, root;
    uint64_t bytes;
    double first, last, end;
} coll;

typedef struct counter {
    char *name;
    char unit[32];
    uint32_t process;
    float *mn, *mx;
    double *last, *tl;    /* per bucket: the last sample and its time */
    uint32_t *n;
    int decreased;        /* some sample was below the one before: a gauge */
    double prev;
} counter;

struct vw_timeline {
    double width;
    row *rows;
    size_t nrows, rowcap;
    long *row_of;         /* open addressing on (process, stream) */
    uint64_t *row_key;
    size_t hcap;
    unsigned char *idle;  /* per region: R_IDLE, R_IO */
    size_t nidle;
    int io_rec;           /* the record being read has the role io: its frame is I/O */
    uint32_t io_process, io_stream;
    long io_depth;        /* the depth of the frame it opened (enter, call), -1 none */
    slice *heap;          /* min-heap by duration (MAX_SLICES; with a window, the
                             slices outside it: the first MAX_SLICES - MAX_WSLICES) */
    size_t nheap;
    slice *wheap;         /* with a window: the slices in it (min-heap, the rest of heap) */
    size_t nwheap;
    uint64_t wseen;       /* slices seen in the window */
    uint64_t slices;      /* frames closed */
    marker *markers;
    size_t nmarkers;
    uint64_t markers_seen;
    counter *counters;
    size_t ncounters;
    uint64_t samples;
    coll *colls;          /* min-heap by span (last exit - first entry) */
    size_t ncolls;
    uint64_t colls_seen;
    uint32_t *cbegun;     /* per bucket: collective instances begun */
    float *cspread;       /* per bucket: their largest entry spread */
    vw_records *rec;
    vw_sink next_a, next_b;   /* tee */
    size_t nlevels;       /* level arrays allocated (at most MAX_LEVELS) */
    pcell **prof;         /* per region: NP buckets of NB / NP * width seconds, or NULL */
    size_t nprof;
    int windowed;         /* a window [wa, wb) was set: its exact profile in win */
    double wa, wb;
    wstat *win;
    size_t nwin;
    struct links *links;  /* call -> device work, by role correlation */
};
static void links_destroy(struct links *k);

static const vw_timeline *current;
const vw_timeline *vw_timeline_current(void) { return current; }
void vw_timeline_set_current(const vw_timeline *t) { current = t; }

vw_timeline *vw_timeline_create(void)
{
    vw_timeline *t = calloc(1, sizeof *t);
    if (t == NULL)
        return NULL;
    t->width = 1e-6;
    t->heap = malloc(MAX_SLICES * sizeof *t->heap);
    t->markers = malloc(MAX_MARKERS * sizeof *t->markers);
    t->counters = calloc(MAX_COUNTERS, sizeof *t->counters);
    t->rec = vw_records_create();
    t->colls = malloc(MAX_COLLS * sizeof *t->colls);
    t->cbegun = calloc(NB, sizeof *t->cbegun);
    t->cspread = calloc(NB, sizeof *t->cspread);
    if (!t->heap || !t->markers || !t->counters || !t->rec || !t->colls || !t->cbegun ||
        !t->cspread) {
        vw_timeline_destroy(t);
        return NULL;
    }
    return t;
}

void vw_timeline_destroy(vw_timeline *t)
{
    if (t == NULL)
        return;
    if (current == t)
        current = NULL;
    for (size_t i = 0; i < t->nrows; i++) {
        free(t->rows[i].b);
        free(t->rows[i].stack);
        for (int d = 0; d < MAXD; d++)
            free(t->rows[i].lv[d]);
    }
    links_destroy(t->links);
    free(t->rows);
    free(t->row_of);
    free(t->row_key);
    free(t->idle);
    free(t->heap);
    for (size_t i = 0; i < t->nmarkers; i++)
        free(t->markers[i].text);
    free(t->markers);
    for (size_t i = 0; t->counters && i < t->ncounters; i++) {
        counter *c = &t->counters[i];
        free(c->name);
        free(c->mn);
        free(c->mx);
        free(c->last);
        free(c->tl);
        free(c->n);
    }
    free(t->counters);
    for (size_t i = 0; i < t->nprof; i++)
        free(t->prof[i]);
    free(t->prof);
    free(t->win);
    free(t->colls);
    free(t->cbegun);
    free(t->cspread);
    vw_records_destroy(t->rec);
    free(t);
}

/* ---------------- buckets ---------------- */
static void bucket_add(bucket *b, long region, float w)
{
    uint16_t r = region + 1 > 65535 ? 65535 : (uint16_t)(region + 1);
    for (int k = 0; k < 2; k++)
        if (b->r[k] == r) {
            b->w[k] += w;
            return;
        }
    for (int k = 0; k < 2; k++)
        if (b->r[k] == 0) {
            b->r[k] = r;
            b->w[k] = w;
            return;
        }
    int m = b->w[0] <= b->w[1] ? 0 : 1;   /* replace the smaller, keep its weight */
    b->r[m] = r;
    b->w[m] += w;
}

static void bucket_merge(bucket *into, const bucket *a, const bucket *b)
{
    bucket m = {{0, 0}, {0, 0}, a->n + b->n};
    for (int k = 0; k < 2; k++) {
        if (a->r[k])
            bucket_add(&m, a->r[k] - 1, a->w[k]);
        if (b->r[k])
            bucket_add(&m, b->r[k] - 1, b->w[k]);
    }
    *into = m;
}

static long bucket_top(const bucket *b, float *w)
{
    int k = b->w[0] >= b->w[1] ? 0 : 1;
    if (b->r[k] == 0)
        k = 1 - k;
    if (w)
        *w = b->r[k] ? b->w[k] : 0;
    return (long)b->r[k] - 1;
}

static void halve_counter(counter *c)
{
    for (size_t i = 0; i < NB / 2; i++) {
        size_t a = 2 * i, b = 2 * i + 1;
        float mn = c->n[a] ? c->mn[a] : c->mn[b], mx = c->n[a] ? c->mx[a] : c->mx[b];
        if (c->n[b]) {
            if (c->mn[b] < mn)
                mn = c->mn[b];
            if (c->mx[b] > mx)
                mx = c->mx[b];
        }
        c->mn[i] = mn;
        c->mx[i] = mx;
        c->last[i] = c->n[b] ? c->last[b] : c->last[a];
        c->tl[i] = c->n[b] ? c->tl[b] : c->tl[a];
        c->n[i] = c->n[a] + c->n[b];
    }
    memset(c->n + NB / 2, 0, NB / 2 * sizeof *c->n);
}

static void cover(vw_timeline *t, double end)
{
    while (end >= t->width * NB) {
        for (size_t i = 0; i < t->nrows; i++)
            for (int d = -1; d < MAXD; d++) {
                bucket *b = d < 0 ? t->rows[i].b : t->rows[i].lv[d];
                if (b == NULL)
                    continue;
                for (size_t k = 0; k < NB / 2; k++)
                    bucket_merge(&b[k], &b[2 * k], &b[2 * k + 1]);
                memset(b + NB / 2, 0, NB / 2 * sizeof *b);
            }
        for (size_t i = 0; i < t->ncounters; i++)
            halve_counter(&t->counters[i]);
        for (size_t k = 0; k < NB / 2; k++) {
            t->cbegun[k] = t->cbegun[2 * k] + t->cbegun[2 * k + 1];
            float a = t->cspread[2 * k], b = t->cspread[2 * k + 1];
            t->cspread[k] = a > b ? a : b;
        }
        for (size_t r = 0; r < t->nprof; r++) {
            pcell *p = t->prof[r];
            if (p == NULL)
                continue;
            for (size_t k = 0; k < NP / 2; k++) {
                pcell a = p[2 * k], b = p[2 * k + 1];
                p[k] = (pcell){a.incl + b.incl, a.excl + b.excl, a.begun + b.begun, a.open};
            }
            memset(p + NP / 2, 0, NP / 2 * sizeof *p);
        }
        memset(t->cbegun + NB / 2, 0, NB / 2 * sizeof *t->cbegun);
        memset(t->cspread + NB / 2, 0, NB / 2 * sizeof *t->cspread);
        t->width *= 2;
    }
}

/* ---------------- exact profile buckets and the window ---------------- */
static double pwidth(const vw_timeline *t) { return t->width * (NB / NP); }

/* the profile bucket of time x: i * pw <= x < (i + 1) * pw, as the page and
 * `pal-view --from` compute these products */
static size_t pbucket(const vw_timeline *t, double x)
{
    double pw = pwidth(t);
    if (!(x > 0))
        return 0;
    size_t i = (size_t)(x / pw);
    while (i > 0 && x < (double)i * pw)
        i--;
    while (x >= (double)(i + 1) * pw)
        i++;
    return i < NP ? i : NP - 1;
}

static pcell *prof_of(vw_timeline *t, long region)
{
    if (region < 0)
        return NULL;
    if ((size_t)region >= t->nprof) {
        size_t n = t->nprof ? t->nprof : 64;
        while (n <= (size_t)region)
            n *= 2;
        pcell **x = realloc(t->prof, n * sizeof *x);
        if (x == NULL)
            return NULL;
        memset(x + t->nprof, 0, (n - t->nprof) * sizeof *x);
        t->prof = x;
        t->nprof = n;
    }
    if (t->prof[region] == NULL)
        t->prof[region] = calloc(NP, sizeof **t->prof);
    return t->prof[region];
}

static wstat *win_of(vw_timeline *t, long region)
{
    if (!t->windowed || region < 0)
        return NULL;
    if ((size_t)region >= t->nwin) {
        size_t n = t->nwin ? t->nwin : 64;
        while (n <= (size_t)region)
            n *= 2;
        wstat *x = realloc(t->win, n * sizeof *x);
        if (x == NULL)
            return NULL;
        memset(x + t->nwin, 0, (n - t->nwin) * sizeof *x);
        t->win = x;
        t->nwin = n;
    }
    return &t->win[region];
}

/* adds [a, b) to the profile buckets' incl (excl: 0) or excl (1) */
static void prof_add(vw_timeline *t, pcell *p, double a, double b, int excl)
{
    if (p == NULL || !(b > a))
        return;
    double pw = pwidth(t);
    for (size_t i = pbucket(t, a); a < b && i < NP; i++) {
        double end = i + 1 < NP ? (double)(i + 1) * pw : b;
        double piece = (b < end ? b : end) - a;
        if (excl)
            p[i].excl += piece;
        else
            p[i].incl += piece;
        a = end;
    }
}

/* the part of [a, b) inside the window */
static double in_window(const vw_timeline *t, double a, double b)
{
    double x = a > t->wa ? a : t->wa, y = b < t->wb ? b : t->wb;
    return y > x ? y - x : 0;
}

/* [a, b) to bucket array b of region (no cover: the caller did it) */
static void spread(const vw_timeline *t, bucket *bk, long region, double a, double b)
{
    if (a < 0)
        a = 0;
    size_t i = (size_t)(a / t->width);
    while (a < b && i < NB) {
        double end = (double)(i + 1) * t->width;
        double piece = (b < end ? b : end) - a;
        bucket_add(&bk[i], region, (float)piece);
        a = end;
        i++;
    }
}

static void attribute(vw_timeline *t, row *w, long region, double a, double b)
{
    if (a < 0)
        a = 0;
    if (!(b > a) || region < 0)
        return;
    cover(t, b);
    prof_add(t, prof_of(t, region), a, b, 1);
    wstat *ws = win_of(t, region);
    if (ws)
        ws->excl += in_window(t, a, b);
    size_t i = (size_t)(a / t->width);
    while (a < b && i < NB) {
        double end = (double)(i + 1) * t->width;
        double piece = (b < end ? b : end) - a;
        bucket_add(&w->b[i], region, (float)piece);
        a = end;
        i++;
    }
}

/* ---------------- rows ---------------- */
static uint64_t mix(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return k;
}

static long row_find(const vw_timeline *t, uint32_t process, uint32_t stream)
{
    if (t->hcap == 0)
        return -1;
    uint64_t key = (uint64_t)process << 32 | stream;
    for (size_t i = mix(key) & (t->hcap - 1);; i = (i + 1) & (t->hcap - 1)) {
        if (t->row_of[i] < 0)
            return -1;
        if (t->row_key[i] == key)
            return t->row_of[i];
    }
}

static int hash_put(vw_timeline *t, uint64_t key, long v)
{
    size_t i = mix(key) & (t->hcap - 1);
    while (t->row_of[i] >= 0)
        i = (i + 1) & (t->hcap - 1);
    t->row_of[i] = v;
    t->row_key[i] = key;
    return 0;
}

static row *row_get(vw_timeline *t, uint32_t process, uint32_t stream)
{
    long i = row_find(t, process, stream);
    if (i >= 0)
        return &t->rows[i];
    if ((t->nrows + 1) * 2 > t->hcap) {
        size_t ncap = t->hcap ? t->hcap * 2 : 64;
        long *o = malloc(ncap * sizeof *o);
        uint64_t *k = malloc(ncap * sizeof *k);
        if (!o || !k) {
            free(o);
            free(k);
            return NULL;
        }
        free(t->row_of);
        free(t->row_key);
        t->row_of = o;
        t->row_key = k;
        t->hcap = ncap;
        for (size_t j = 0; j < ncap; j++)
            o[j] = -1;
        for (size_t j = 0; j < t->nrows; j++)
            hash_put(t, (uint64_t)t->rows[j].process << 32 | t->rows[j].stream, (long)j);
    }
    if (t->nrows == t->rowcap) {
        size_t n = t->rowcap ? t->rowcap * 2 : 16;
        row *r = realloc(t->rows, n * sizeof *r);
        if (r == NULL)
            return NULL;
        t->rows = r;
        t->rowcap = n;
    }
    row *w = &t->rows[t->nrows];
    memset(w, 0, sizeof *w);
    w->process = process;
    w->stream = stream;
    w->b = calloc(NB, sizeof *w->b);
    if (w->b == NULL)
        return NULL;
    hash_put(t, (uint64_t)process << 32 | stream, (long)t->nrows);
    t->nrows++;
    return w;
}

/* ---------------- the longest slices and collectives ---------------- */

static void swap_bytes(unsigned char *a, unsigned char *b, size_t size)
{
    unsigned char t[128];
    if (size <= sizeof t) {   /* the items kept (slices, collectives): whole copies */
        memcpy(t, a, size);
        memcpy(a, b, size);
        memcpy(b, t, size);
        return;
    }
    for (size_t k = 0; k < size; k++) {
        unsigned char x = a[k];
        a[k] = b[k];
        b[k] = x;
    }
}

/* Keeps the cap items of largest key among those offered, in a min-heap of
 * *n items of size bytes at base (the smallest kept at the root): item goes
 * in while there is room, then when its key beats the smallest. */
static inline void keep_largest(void *base, size_t *n, size_t cap, size_t size,
                                const void *item, double (*key)(const void *))
{
    unsigned char *h = base;
    size_t i;
    if (*n < cap) {
        i = (*n)++;
        memcpy(h + i * size, item, size);
        for (size_t up; i > 0 && key(h + (up = (i - 1) / 2) * size) > key(h + i * size); i = up)
            swap_bytes(h + up * size, h + i * size, size);
        return;
    }
    if (!(key(item) > key(h)))
        return;
    memcpy(h, item, size);
    for (i = 0;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < *n && key(h + l * size) < key(h + m * size))
            m = l;
        if (l + 1 < *n && key(h + (l + 1) * size) < key(h + m * size))
            m = l + 1;
        if (m == i)
            return;
        swap_bytes(h + i * size, h + m * size, size);
        i = m;
    }
}

static double slice_dur(const void *p)
{
    const slice *s = p;
    return s->end - s->start;
}

/* Keeps the longest slices; with a window, those that overlap it in a
 * store of their own, so that zooming into the window shows all of them
 * when they fit (a window of one iteration of a long run) */
static void keep_slice(vw_timeline *t, const slice *s)
{
    if (t->windowed && (s->end > t->wa || s->start >= t->wa) && s->start < t->wb) {
        t->wseen++;
        keep_largest(t->wheap, &t->nwheap, MAX_WSLICES, sizeof *s, s, slice_dur);
    } else {
        keep_largest(t->heap, &t->nheap, t->windowed ? MAX_SLICES - MAX_WSLICES : MAX_SLICES,
                     sizeof *s, s, slice_dur);
    }
}

/* ---------------- events ---------------- */
/* what region's frames were seen to be: blocked (idle), I/O (role io) */
#define R_IDLE 1u
#define R_IO 2u
static void region_mark(vw_timeline *t, long region, unsigned bits)
{
    if (region < 0)
        return;
    if ((size_t)region >= t->nidle) {
        size_t n = t->nidle ? t->nidle : 64;
        while (n <= (size_t)region)
            n *= 2;
        unsigned char *x = realloc(t->idle, n);
        if (x == NULL)
            return;
        memset(x + t->nidle, 0, n - t->nidle);
        t->idle = x;
        t->nidle = n;
    }
    t->idle[region] |= (unsigned char)bits;
}

static void on_frame(void *ctx, const vw_frame_ev *e)
{
    vw_timeline *t = ctx;
    row *w = row_get(t, e->process, e->stream);
    if (w == NULL)
        return;
    size_t d = e->depth;
    if (e->end < 0) {   /* opens: the time since the last change was the parent's */
        if (w->depth > d)
            w->depth = d;
        attribute(t, w, w->depth ? w->stack[w->depth - 1] : -1, w->last, e->start);
        if (e->start > w->last)
            w->last = e->start;
        if (w->depth == w->cap) {
            size_t n = w->cap ? w->cap * 2 : 16;
            long *s = realloc(w->stack, n * sizeof *s);
            if (s == NULL)
                return;
            w->stack = s;
            w->cap = n;
        }
        w->stack[w->depth++] = e->region;
        if (t->io_rec && e->process == t->io_process && e->stream == t->io_stream) {
            region_mark(t, e->region, R_IO);
            t->io_depth = (long)d;
        }
        cover(t, e->start);
        size_t i = (size_t)(e->start > 0 ? e->start / t->width : 0);
        if (i < NB)
            w->b[i].n++;
        pcell *p = prof_of(t, e->region);
        if (p)
            p[pbucket(t, e->start)].begun++;
        wstat *ws = win_of(t, e->region);
        if (ws && e->start >= t->wa && e->start < t->wb)
            ws->calls++;
        return;
    }
    /* closes: the time since the last change was this frame's */
    attribute(t, w, e->region, w->last, e->end);
    if (e->end > w->last)
        w->last = e->end;
    if (w->depth > d)
        w->depth = d;
    cover(t, e->end);
    /* the call-stack level of its depth (the deepest level takes deeper
     * frames too): the region open there, inclusive */
    unsigned lvd = d < MAXD ? (unsigned)d : MAXD - 1;
    if (d + 1 > w->maxdepth)
        w->maxdepth = (unsigned)d + 1;
    if (w->lv[lvd] == NULL && t->nlevels < MAX_LEVELS &&
        (w->lv[lvd] = calloc(NB, sizeof *w->lv[lvd])) != NULL)
        t->nlevels++;
    if (w->lv[lvd] && e->end > e->start)
        spread(t, w->lv[lvd], e->region, e->start, e->end);
    /* the profile: an outermost instance (no ancestor of its region open on
     * the row) adds its time inclusively; an instance open across a bucket's
     * start counts there as open */
    int outer = 1;
    for (size_t k = 0; k < w->depth && k < d && outer; k++)
        outer = w->stack[k] != e->region;
    pcell *p = prof_of(t, e->region);
    if (p) {
        double a = e->start > 0 ? e->start : 0;
        if (outer)
            prof_add(t, p, a, e->end, 0);
        double pw = pwidth(t);
        for (size_t k = pbucket(t, a) + 1; k < NP && (double)k * pw < e->end; k++)
            if ((double)k * pw > e->start)
                p[k].open++;
    }
    wstat *ws = win_of(t, e->region);
    if (ws) {
        if (e->start < t->wa && e->end > t->wa)
            ws->calls++;
        if (outer)
            ws->incl += in_window(t, e->start, e->end);
    }
    /* the frame an io record closes: the one it opened (a call), else (a
     * leave) those it closes; not the frames closed after it at the end */
    int io = t->io_rec && e->process == t->io_process && e->stream == t->io_stream &&
             (t->io_depth < 0 || t->io_depth == (long)d);
    region_mark(t, e->region, (e->idle ? R_IDLE : 0) | (io ? R_IO : 0));
    t->slices++;
    slice s = {(uint32_t)(w - t->rows), e->depth, e->region, e->start, e->end,
               e->bytes, e->peer, e->tag, e->comm, e->root, e->request};
    keep_slice(t, &s);
}

/* ---------------- collective instances ---------------- */

/* how long a collective instance took, first entry to last exit */
static double coll_span(const void *p)
{
    const coll *c = p;
    return c->end - c->first;
}

static void on_coll(void *ctx, const vw_coll_ev *e)
{
    vw_timeline *t = ctx;
    coll c = {e->region, e->members, e->size, e->lo, e->hi, e->late, e->comm, e->root,
              e->bytes, e->first < 0 ? 0 : e->first, e->last, e->end};
    t->colls_seen++;
    cover(t, c.end > c.first ? c.end : c.first);
    size_t b = (size_t)(c.first / t->width);
    if (b < NB) {
        t->cbegun[b]++;
        if ((float)(c.last - c.first) > t->cspread[b])
            t->cspread[b] = (float)(c.last - c.first);
    }
    keep_largest(t->colls, &t->ncolls, MAX_COLLS, sizeof c, &c, coll_span);
}

static counter *counter_get(vw_timeline *t, uint32_t process, const char *name, size_t len)
{
    for (size_t i = 0; i < t->ncounters; i++)
        if (t->counters[i].process == process && strlen(t->counters[i].name) == len &&
            memcmp(t->counters[i].name, name, len) == 0)
            return &t->counters[i];
    if (t->ncounters == MAX_COUNTERS)
        return NULL;
    counter *c = &t->counters[t->ncounters];
    c->name = malloc(len + 1);
    c->mn = calloc(NB, sizeof *c->mn);
    c->mx = calloc(NB, sizeof *c->mx);
    c->last = calloc(NB, sizeof *c->last);
    c->tl = calloc(NB, sizeof *c->tl);
    c->n = calloc(NB, sizeof *c->n);
    t->ncounters++;   /* freed by destroy even when incomplete */
    if (!c->name || !c->mn || !c->mx || !c->last || !c->tl || !c->n)
        return NULL;
    memcpy(c->name, name, len);
    c->name[len] = '\0';
    c->process = process;
    return c;
}

/* ---------------- links: a call and the device work it started ----------------
 * From roles alone: a call (role call, with a duration) and a record with
 * role device of the same process with the same value of their fields of
 * role correlation are linked, from the call's start to the device work's
 * start (a CUDA launch and its kernel). Either may come first in the trace.
 * The first MAX_LINKS are kept for the page; all are counted. */
#define MAX_LINKS 20000
typedef struct lend {
    uint64_t key;           /* 0: free */
    uint32_t row;
    double start;
} lend;
typedef struct ltype {
    int known;
    const char *corr;       /* the field with role correlation, or NULL */
} ltype;
typedef struct links {
    lend *side[2];          /* 0 calls, 1 device work, waiting for the other */
    size_t cap[2], used[2];
    ltype *types;
    size_t ntypes;
    double (*kept)[4];      /* call row, device row, call start, work start */
    size_t nkept;
    uint64_t n;
} links;

static void links_destroy(links *k)
{
    if (k == NULL)
        return;
    free(k->side[0]);
    free(k->side[1]);
    free(k->types);
    free(k->kept);
    free(k);
}

static lend *lend_find(links *k, int side, uint64_t key)
{
    if (k->cap[side] == 0)
        return NULL;
    size_t m = k->cap[side] - 1, i = (size_t)(key * 0x9E3779B97F4A7C15ull) & m;
    for (; k->side[side][i].key; i = (i + 1) & m)
        if (k->side[side][i].key == key)
            return &k->side[side][i];
    return NULL;
}

static void lend_put(links *k, int side, uint64_t key, uint32_t r, double start)
{
    if (2 * (k->used[side] + 1) > k->cap[side]) {
        size_t n = k->cap[side] ? 2 * k->cap[side] : 1024;
        lend *e = calloc(n, sizeof *e), *old = k->side[side];
        if (e == NULL)
            return;
        for (size_t i = 0; i < k->cap[side]; i++)
            if (old[i].key) {
                size_t j = (size_t)(old[i].key * 0x9E3779B97F4A7C15ull) & (n - 1);
                while (e[j].key)
                    j = (j + 1) & (n - 1);
                e[j] = old[i];
            }
        free(old);
        k->side[side] = e;
        k->cap[side] = n;
    }
    size_t m = k->cap[side] - 1, i = (size_t)(key * 0x9E3779B97F4A7C15ull) & m;
    while (k->side[side][i].key && k->side[side][i].key != key)
        i = (i + 1) & m;
    k->used[side] += k->side[side][i].key == 0;
    k->side[side][i] = (lend){ key, r, start };
}

static void link_record(vw_timeline *t, const pal_record *rec, double time)
{
    const pal_recdesc *d = pal_record_desc(rec);
    size_t ti = pal_recdesc_index(d);
    links *k = t->links;
    if (k == NULL && (k = t->links = calloc(1, sizeof *k)) == NULL)
        return;
    if (ti >= k->ntypes) {
        size_t n = ti + 32;
        ltype *y = realloc(k->types, n * sizeof *y);
        if (y == NULL)
            return;
        memset(y + k->ntypes, 0, (n - k->ntypes) * sizeof *y);
        k->types = y;
        k->ntypes = n;
    }
    ltype *y = &k->types[ti];
    if (!y->known) {
        y->known = 1;
        const pal_fielddesc *c = pal_recdesc_role_field(d, PAL_FROLE_CORRELATION);
        y->corr = c && pal_recdesc_has_role(d, PAL_ROLE_CALL) &&
                          pal_recdesc_role_field(d, PAL_FROLE_DURATION)
                      ? pal_field_name(c) : NULL;
    }
    int64_t corr, ns;
    if (y->corr == NULL || pal_record_get_i64(rec, y->corr, &corr) != PAL_OK ||
        pal_record_duration_ns(rec, &ns) != PAL_OK)
        return;
    uint32_t process = pal_record_process(rec);
    row *w = row_get(t, process, pal_record_stream(rec));
    if (w == NULL)
        return;
    uint64_t key = ((uint64_t)process << 32 | (uint32_t)corr) | 1ull << 63;
    int side = pal_record_has_role(rec, PAL_ROLE_DEVICE) ? 1 : 0;
    double start = time - (double)ns * 1e-9;
    lend *o = lend_find(k, !side, key);
    if (o == NULL || o->row == UINT32_MAX) {
        lend_put(k, side, key, (uint32_t)(w - t->rows), start);
        return;
    }
    k->n++;
    if (k->nkept < MAX_LINKS) {
        if (k->kept == NULL && (k->kept = malloc(MAX_LINKS * sizeof *k->kept)) == NULL)
            return;
        double *l = k->kept[k->nkept++];
        l[0] = side ? o->row : (double)(w - t->rows);
        l[1] = side ? (double)(w - t->rows) : o->row;
        l[2] = side ? o->start : start;
        l[3] = side ? start : o->start;
    }
    o->row = UINT32_MAX;    /* linked (a correlation links one call and one work) */
}

static void on_record(void *ctx, const pal_record *rec, double time)
{
    vw_timeline *t = ctx;
    /* the frames this record opens and closes (the filter tells them after
     * the record) are I/O when it has the role io (doc/edl.md) */
    t->io_rec = pal_record_has_role(rec, PAL_ROLE_IO) == 1;
    t->io_process = pal_record_process(rec);
    t->io_stream = pal_record_stream(rec);
    t->io_depth = -1;
    link_record(t, rec, time < 0 ? 0 : time);
    vw_rec_meaning m;
    vw_records_feed(t->rec, rec, &m);
    if (m.what == VW_REC_OTHER)
        return;
    uint32_t process = pal_record_process(rec), stream = pal_record_stream(rec);
    if (time < 0)
        time = 0;
    if (m.what == VW_REC_MARKER) {
        t->markers_seen++;
        row *w = row_get(t, process, stream);
        if (w == NULL || t->nmarkers == MAX_MARKERS)
            return;
        marker *k = &t->markers[t->nmarkers];
        k->text = malloc(m.len + 1);
        if (k->text == NULL)
            return;
        memcpy(k->text, m.name, m.len);
        k->text[m.len] = '\0';
        k->row = (uint32_t)(w - t->rows);
        k->t = time;
        t->nmarkers++;
        return;
    }
    t->samples++;
    counter *c = counter_get(t, process, m.name, m.len);
    if (c == NULL)
        return;
    cover(t, time);
    size_t i = (size_t)(time / t->width);
    if (i >= NB)
        i = NB - 1;
    float v = (float)m.value;
    if (c->n[i] == 0 || v < c->mn[i])
        c->mn[i] = v;
    if (c->n[i] == 0 || v > c->mx[i])
        c->mx[i] = v;
    c->last[i] = m.value;
    c->tl[i] = time;
    c->n[i]++;
    if (c->unit[0] == '\0' && m.unit[0])
        snprintf(c->unit, sizeof c->unit, "%s", m.unit);
    if (c->prev > m.value)   /* the first sample compares with 0: counts start there */
        c->decreased = 1;
    c->prev = m.value;
}

void vw_timeline_sink(vw_timeline *t, vw_sink *s)
{
    memset(s, 0, sizeof *s);
    s->ctx = t;
    s->frame = on_frame;
    s->record = on_record;
    s->collective = on_coll;
}

/* ---------------- tee ---------------- */
#define TEE(call, ...)                                                                  \
    do {                                                                                \
        const vw_sink_pair *x = ctx;                                                             \
        if (x->a.call)                                                                  \
            x->a.call(x->a.ctx, __VA_ARGS__);                                           \
        if (x->b.call)                                                                  \
            x->b.call(x->b.ctx, __VA_ARGS__);                                           \
    } while (0)

static void tee_slice(void *ctx, size_t lane, uint32_t p, uint32_t s, const char *name, int kind,
                      double a, double b)
{
    TEE(slice, lane, p, s, name, kind, a, b);
}
static void tee_flow(void *ctx, const vw_msg *m, uint64_t id, uint32_t sp, uint32_t ss,
                     uint32_t dp, uint32_t ds)
{
    TEE(flow, m, id, sp, ss, dp, ds);
}
static void tee_marker(void *ctx, uint32_t p, uint32_t s, const char *text, size_t len, double t)
{
    TEE(marker, p, s, text, len, t);
}
static void tee_record(void *ctx, const pal_record *rec, double t) { TEE(record, rec, t); }
static void tee_frame(void *ctx, const vw_frame_ev *e) { TEE(frame, e); }
static void tee_coll(void *ctx, const vw_coll_ev *e) { TEE(collective, e); }

void vw_sink_tee(vw_sink *out, vw_sink_pair *pair, const vw_sink *a, const vw_sink *b)
{
    memset(out, 0, sizeof *out);
    memset(pair, 0, sizeof *pair);
    if (a)
        pair->a = *a;
    if (b)
        pair->b = *b;
    out->ctx = pair;
    out->slice = tee_slice;
    out->flow = tee_flow;
    out->marker = tee_marker;
    out->record = tee_record;
    out->frame = tee_frame;
    out->collective = tee_coll;
}

/* ---------------- queries ---------------- */
/* the dominant region of buckets [a, b) seconds of array bk, -1 for none */
static long bucket_range_top(const vw_timeline *t, const bucket *bk, double a, double b,
                             float *w)
{
    if (a < 0)
        a = 0;
    size_t lo = (size_t)(a / t->width), hi = (size_t)ceil(b / t->width);
    if (hi > NB)
        hi = NB;
    if (hi <= lo)
        hi = lo + 1 <= NB ? lo + 1 : NB;
    bucket m = {{0, 0}, {0, 0}, 0};
    for (size_t k = lo; k < hi; k++)
        bucket_merge(&m, &m, &bk[k]);
    return bucket_top(&m, w);
}

/* the levels a row shows: as many as its deepest frame needs, up to the
 * first level that could not be allocated (the JSON's "dl" too) */
static unsigned row_levels(const row *w)
{
    unsigned n = 0;
    while (n < MAXD && n < w->maxdepth && w->lv[n])
        n++;
    return n;
}

long vw_timeline_dominant(const vw_timeline *t, uint32_t process, uint32_t stream, double a,
                          double b, double *share)
{
    long i = row_find(t, process, stream);
    if (share)
        *share = 0;
    if (i < 0 || !(b > a))
        return -1;
    float wt;
    long r = bucket_range_top(t, t->rows[i].b, a, b, &wt);
    if (share)
        *share = wt / (b - a);
    return r;
}

unsigned vw_timeline_levels(const vw_timeline *t, uint32_t process, uint32_t stream)
{
    long i = row_find(t, process, stream);
    return i < 0 ? 0 : row_levels(&t->rows[i]);
}

long vw_timeline_level_region(const vw_timeline *t, uint32_t process, uint32_t stream,
                              unsigned level, double a, double b)
{
    long i = row_find(t, process, stream);
    if (i < 0 || !(b > a) || level >= row_levels(&t->rows[i]))
        return -1;
    return bucket_range_top(t, t->rows[i].lv[level], a, b, NULL);
}

int vw_timeline_region_idle(const vw_timeline *t, size_t region)
{
    return region < t->nidle && (t->idle[region] & R_IDLE);
}

int vw_timeline_region_io(const vw_timeline *t, size_t region)
{
    return region < t->nidle && (t->idle[region] & R_IO);
}

size_t vw_timeline_counter_tracks(const vw_timeline *t) { return t->ncounters; }
uint64_t vw_timeline_marker_count(const vw_timeline *t) { return t->markers_seen; }

/* ---------------- message samples ---------------- */
static const vw_msg *by_send_msgs;
static int by_send(const void *a, const void *b)
{
    const vw_msg *x = &by_send_msgs[*(const size_t *)a], *y = &by_send_msgs[*(const size_t *)b];
    if (x->t_send != y->t_send)
        return x->t_send < y->t_send ? -1 : 1;
    return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

size_t vw_msg_sample(const vw_facts *f, size_t max, size_t *idx)
{
    size_t n = f->nmsgs;
    if (max == 0 || n == 0)
        return 0;
    size_t *all = malloc(n * sizeof *all);
    size_t k = n < max ? n : max;
    if (all == NULL) {   /* no memory: every (n / k)-th slot, still spread */
        for (size_t i = 0; i < k; i++)
            idx[i] = i * n / k;
    } else {
        /* the first k of a Fisher-Yates shuffle with a fixed seed */
        uint64_t rng = 0x9e3779b97f4a7c15ULL;
        for (size_t i = 0; i < n; i++)
            all[i] = i;
        for (size_t i = 0; i < k; i++) {
            rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
            size_t j = i + (size_t)((rng >> 11) % (n - i));
            size_t x = all[i];
            all[i] = all[j];
            all[j] = x;
        }
        memcpy(idx, all, k * sizeof *idx);
        free(all);
    }
    by_send_msgs = f->msgs;
    qsort(idx, k, sizeof *idx, by_send);
    return k;
}

/* ---------------- colours ---------------- */
static void hsl(double h, double s, double l, char out[8])
{
    double c = (1 - fabs(2 * l - 1)) * s, hp = fmod(h, 360) / 60;
    double x = c * (1 - fabs(fmod(hp, 2) - 1)), r = 0, g = 0, b = 0;
    if (hp < 1) r = c, g = x;
    else if (hp < 2) r = x, g = c;
    else if (hp < 3) g = c, b = x;
    else if (hp < 4) g = x, b = c;
    else if (hp < 5) r = x, b = c;
    else r = c, b = x;
    double m = l - c / 2;
    snprintf(out, 8, "#%02x%02x%02x", (int)lround((r + m) * 255), (int)lround((g + m) * 255),
             (int)lround((b + m) * 255));
}

int vw_region_family(const vw_facts *f, const vw_timeline *t, size_t i)
{
    const vw_region *g = &f->regions[i];
    int idle = t && vw_timeline_region_idle(t, i);
    if (g->kind == VW_REGION_SETUP)
        return VW_FAM_SETUP;
    if (g->kind == VW_REGION_MPI)
        return g->instances ? VW_FAM_COLL : idle ? VW_FAM_MPI_WAIT : VW_FAM_MPI;
    if (idle)
        return VW_FAM_WAIT;
    /* I/O: a region whose records have the role io (ECL's io_call records:
     * open and close too, that move no bytes), or one that is not MPI but
     * moves bytes (any description's calls with a field of role bytes) */
    if ((t && vw_timeline_region_io(t, i)) || g->all.bytes > 0)
        return VW_FAM_IO;
    return VW_FAM_USER;
}

void vw_region_color(const vw_facts *f, const vw_timeline *t, size_t i, char out[8])
{
    /* each family a palette of distinct shades; the name's hash picks one,
     * so a region has the same colour in every picture and every run */
    static const char *const pal[][8] = {
        {"#b2182b", "#e34a33", "#7f0000", "#f768a1", "#d7301f", "#990000", "#fc8d59", "#c51b7d"},
        {"#6a3d9a", "#9e9ac8", "#54278f", "#807dba", "#ae017e", "#3f007d", "#b15928", "#dd3497"},
        {"#e6550d", "#fdae6b", "#d94801", "#f16913", "#a63603", "#ff9933", "#cc6600", "#fd8d3c"},
        {"#8c6d31", "#bd9e39", "#b8860b", "#e7ba52", "#996633", "#7f6000", "#c9a227", "#d4b86a"},
        {"#08519c", "#2171b5", "#4292c6", "#084594", "#6baed6", "#1f4e79", "#3a6ea5", "#5b9bd5"},
    };
    const char *name = f->regions[i].name;
    uint32_t h = 2166136261u;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        h = (h ^ *p) * 16777619u;
    double u = (double)(h % 1000) / 1000, v = (double)(h / 1000 % 3);
    int fam = vw_region_family(f, t, i);
    if (fam == VW_FAM_SETUP)
        hsl(210 * u, 0.08, 0.55 + 0.08 * v, out);                   /* greys */
    else if (fam == VW_FAM_USER)
        hsl(75 + 95 * u, 0.45 + 0.1 * v, 0.38 + 0.1 * v, out);      /* yellow-greens .. teals */
    else
        snprintf(out, 8, "%s", pal[fam][h / 7 % 8]);
}

/* ---------------- JSON ---------------- */
static size_t used(const vw_timeline *t, const vw_facts *f)
{
    size_t n = (size_t)ceil(f->duration / t->width);
    return n < 1 ? 1 : n > NB ? NB : n;
}

/* run-length pairs [value, run, ...] of v[0..n) */
static void rle_longs(FILE *out, const long *v, size_t n)
{
    fputc('[', out);
    size_t items = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j < n && v[j] == v[i])
            j++;
        fprintf(out, "%s%ld,%zu", items++ ? "," : "", v[i], j - i);
        i = j;
    }
    fputc(']', out);
}

/* One row of a level, per k of the n buckets: the dominant region + 1 (0:
 * none) into v; returns how many. */
static size_t level_row(const bucket *b, size_t n, size_t k, long *v)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i += k) {
        bucket m = {{0, 0}, {0, 0}, 0};
        for (size_t j = i; j < i + k && j < n; j++)
            bucket_merge(&m, &m, &b[j]);
        v[o++] = bucket_top(&m, NULL) + 1;
    }
    return o;
}

/* frames begun per k buckets into v; returns how many */
static size_t count_row(const bucket *b, size_t n, size_t k, long *v)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i += k) {
        uint64_t c = 0;
        for (size_t j = i; j < i + k && j < n; j++)
            c += b[j].n;
        v[o++] = (long)c;
    }
    return o;
}

/* ",\"r\":[...]": per output bucket (k fine ones) the rate of a cumulative
 * counter, per second: on each process, (last sample - the last sample of
 * its previous bucket with samples) / (the time between them); [min, max,
 * mean] over the processes, null where none has a rate */
static void counter_rates(FILE *out, const vw_timeline *t, const char *name, size_t from,
                          size_t n, size_t k, size_t nf)
{
    size_t np = t->ncounters - from;
    double *pv = malloc(np * sizeof *pv), *pt = malloc(np * sizeof *pt);
    char *have = calloc(np, 1);
    fputs(",\"r\":[", out);
    for (size_t o = 0; pv && pt && have && o < nf; o++) {
        double mn = 0, mx = 0, sum = 0;
        size_t m = 0;
        for (size_t j = from; j < t->ncounters; j++) {
            const counter *d = &t->counters[j];
            if (d->n == NULL || strcmp(d->name, name) != 0)
                continue;
            long lastb = -1;
            for (size_t b = o * k; b < o * k + k && b < n; b++)
                if (d->n[b])
                    lastb = (long)b;
            if (lastb < 0)
                continue;
            size_t q = j - from;
            double v = d->last[lastb], tt = d->tl[lastb];
            if (have[q] && tt > pt[q]) {
                double r = (v - pv[q]) / (tt - pt[q]);
                if (m == 0 || r < mn)
                    mn = r;
                if (m == 0 || r > mx)
                    mx = r;
                sum += r;
                m++;
            }
            have[q] = 1;
            pv[q] = v;
            pt[q] = tt;
        }
        if (o)
            fputc(',', out);
        if (m)
            fprintf(out, "[%.9g,%.9g,%.9g]", mn, mx, sum / (double)m);
        else
            fputs("null", out);
    }
    fputc(']', out);
    free(pv);
    free(pt);
    free(have);
}

/* ---------------- groups: a rank's threads, blocks of ranks ---------------- */
typedef struct gacc {     /* exact weights of up to GMAP regions */
    uint16_t r[GMAP];
    float w[GMAP];
    int n;
} gacc;

static void gacc_add(gacc *a, uint16_t r, float w)
{
    for (int i = 0; i < a->n; i++)
        if (a->r[i] == r) {
            a->w[i] += w;
            return;
        }
    if (a->n < GMAP) {
        a->r[a->n] = r;
        a->w[a->n++] = w;
        return;
    }
    int m = 0;   /* full: replace the smallest, keep its weight (space-saving) */
    for (int i = 1; i < GMAP; i++)
        if (a->w[i] < a->w[m])
            m = i;
    a->r[m] = r;
    a->w[m] += w;
}

/* A group's summary over its member rows rs: per output bucket (k fine
 * buckets of n), the region with the most exclusive time over the members
 * (lv, region + 1, 0 = none) and the frames begun (cnt); exact up to GMAP
 * regions per bucket (each member row brings its two candidates). */
static void group_level(const vw_timeline *t, const long *rs, size_t nr, size_t n, size_t k,
                        long *lv, long *cnt)
{
    for (size_t o = 0, i = 0; i < n; o++, i += k) {
        gacc a;
        a.n = 0;
        long c = 0;
        for (size_t m = 0; m < nr; m++) {
            const bucket *b = t->rows[rs[m]].b;
            for (size_t j = i; j < i + k && j < n; j++) {
                for (int q = 0; q < 2; q++)
                    if (b[j].r[q])
                        gacc_add(&a, b[j].r[q], b[j].w[q]);
                c += b[j].n;
            }
        }
        int top = -1;
        for (int q = 0; q < a.n; q++)
            if (top < 0 || a.w[q] > a.w[top])
                top = q;
        lv[o] = top < 0 ? 0 : a.r[top];
        if (cnt)
            cnt[o] = c;
    }
}

/* one group: lanes [a, b) of the facts, as JSON; budget: its fine buckets */
static int group_json(FILE *out, const vw_timeline *t, const vw_facts *f, const char *kind,
                      const char *name, size_t a, size_t b, size_t n, size_t budget, int first)
{
    long *rs = malloc((b - a + 1) * sizeof *rs);
    if (budget < 1)
        budget = 1;
    size_t k = (n + budget - 1) / budget;
    if (k < 1)
        k = 1;
    size_t nf = (n + k - 1) / k, nc = (n + k * COARSE - 1) / (k * COARSE);
    long *lv = malloc((nf + 1) * sizeof *lv), *cnt = malloc((nf + 1) * sizeof *cnt);
    if (!rs || !lv || !cnt) {
        free(rs);
        free(lv);
        free(cnt);
        return -1;
    }
    size_t nr = 0;
    for (size_t i = a; i < b; i++) {
        long r = row_find(t, f->lanes[i].process, f->lanes[i].stream);
        if (r >= 0)
            rs[nr++] = r;
    }
    fprintf(out, "%s{\"kind\":\"%s\",\"name\":", first ? "" : ",", kind);
    vw_json_string(out, name);
    fprintf(out, ",\"a\":%zu,\"b\":%zu,\"width\":%.9g,\"nb\":%zu,\"lv0\":", a, b,
            t->width * (double)k, nf);
    group_level(t, rs, nr, n, k * COARSE, lv, NULL);
    rle_longs(out, lv, nc);
    fputs(",\"lv1\":", out);
    group_level(t, rs, nr, n, k, lv, cnt);
    rle_longs(out, lv, nf);
    fputs(",\"counts\":", out);
    rle_longs(out, cnt, nf);
    fputc('}', out);
    free(rs);
    free(lv);
    free(cnt);
    return 0;
}

/* The groups: every rank with several threads (when there are several
 * ranks), and blocks of consecutive ranks when more than MAX_ROWS ranks
 * would not fit (a power of two ranks per block, at most 32 blocks). */
static int groups_json(FILE *out, const vw_timeline *t, const vw_facts *f, size_t n)
{
    size_t nranks = 0, multi = 0;
    for (size_t i = 0; i < f->nlanes;) {
        size_t j = i;
        while (j < f->nlanes && f->lanes[j].process == f->lanes[i].process)
            j++;
        nranks++;
        multi += j - i > 1;
        i = j;
    }
    size_t block = 0;
    if (nranks > MAX_ROWS) {
        block = 1;
        while (block * 32 < nranks)
            block *= 2;
    }
    fprintf(out, "\"block\":%zu,\"groups\":[", block);
    int first = 1;
    char name[96];
    if (block) {
        size_t nblocks = (nranks + block - 1) / block;
        size_t i = 0;
        for (size_t g = 0; g < nblocks; g++) {
            size_t a = i, ranks = 0;
            uint32_t p0 = f->lanes[a].process, p1 = p0;
            while (i < f->nlanes && ranks < block) {
                p1 = f->lanes[i].process;
                while (i < f->nlanes && f->lanes[i].process == p1)
                    i++;
                ranks++;
            }
            snprintf(name, sizeof name, "ranks %u\u2013%u", p0, p1);
            if (group_json(out, t, f, "block", name, a, i, n, MAX_GCELLS / nblocks, first))
                return -1;
            first = 0;
        }
    }
    if (nranks > 1 && multi) {
        for (size_t i = 0; i < f->nlanes;) {
            size_t j = i;
            while (j < f->nlanes && f->lanes[j].process == f->lanes[i].process)
                j++;
            if (j - i > 1) {
                snprintf(name, sizeof name, "rank %u (%zu threads)", f->lanes[i].process, j - i);
                if (group_json(out, t, f, "rank", name, i, j, n, MAX_GCELLS / multi, first))
                    return -1;
                first = 0;
            }
            i = j;
        }
    }
    fputc(']', out);
    return 0;
}

static int cmp_slice(const void *a, const void *b)
{
    const slice *x = a, *y = b;
    if (x->depth != y->depth)
        return x->depth < y->depth ? -1 : 1;
    return x->start < y->start ? -1 : x->start > y->start;
}

static int cmp_coll(const void *a, const void *b)
{
    const coll *x = a, *y = b;
    return x->first < y->first ? -1 : x->first > y->first;
}

/* ---------------- the window profile ---------------- */
void vw_timeline_window(vw_timeline *t, double from, double to)
{
    t->windowed = 1;
    t->wa = from;
    t->wb = to < 0 ? INFINITY : to;
    t->wheap = t->heap + (MAX_SLICES - MAX_WSLICES);
    t->nheap = t->nwheap = 0;   /* called before reading */
}

static const wstat *by_wincl_w;
static int by_wincl(const void *a, const void *b)
{
    const wstat *x = &by_wincl_w[*(const size_t *)a], *y = &by_wincl_w[*(const size_t *)b];
    if (x->incl != y->incl)
        return x->incl < y->incl ? 1 : -1;
    return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

/* the regions with calls in the window, by inclusive time; returns how many */
static size_t window_regions(const vw_timeline *t, const vw_facts *f, size_t *idx)
{
    size_t n = 0;
    for (size_t i = 0; i < f->nregions && i < t->nwin; i++)
        if (t->win[i].calls)
            idx[n++] = i;
    by_wincl_w = t->win;
    qsort(idx, n, sizeof *idx, by_wincl);
    return n;
}

int vw_timeline_window_text(const vw_timeline *t, const vw_facts *f, FILE *out)
{
    size_t *idx = malloc((f->nregions + 1) * sizeof *idx);
    if (idx == NULL)
        return -1;
    size_t n = t->windowed ? window_regions(t, f, idx) : 0;
    double b = isinf(t->wb) ? f->duration : t->wb;
    fprintf(out, "Window profile of %s: %.9f s to %.9f s (%.9f s)\n", f->trace, t->wa, b,
            b > t->wa ? b - t->wa : 0);
    char note[1024];
    if (vw_damage_note(f, note, sizeof note))
        fprintf(out, "  %s\n", note);
    fputs("  calls: instances that began in the window or were open at its start;\n"
          "  total_s: their time inside it (outermost instances); excl_s: minus their children\n\n",
          out);
    fprintf(out, "  %-32s %-6s %10s %16s %16s\n", "name", "kind", "calls", "total_s", "excl_s");
    for (size_t k = 0; k < n; k++) {
        const vw_region *g = &f->regions[idx[k]];
        const wstat *w = &t->win[idx[k]];
        char name[160];
        vw_utf8_clip(name, sizeof name, g->name, 32);
        fprintf(out, "  %-32s %-6s %10llu %16.9f %16.9f\n", name,
                g->kind == VW_REGION_MPI      ? "MPI"
                : g->kind == VW_REGION_USER   ? "user"
                : g->kind == VW_REGION_DEVICE ? "GPU"
                                              : "set-up",
                (unsigned long long)w->calls, w->incl, w->excl);
    }
    if (n == 0)
        fputs("  (no call in the window)\n", out);
    free(idx);
    return ferror(out) ? -1 : 0;
}

/* "prof": the exact per-bucket sums (pcell) per region, buckets merged so
 * that regions x buckets stay within PROF_CELLS; "wprof": the exact profile
 * of the window --from/--to when one was given */
static void prof_json(const vw_timeline *t, const vw_facts *f, FILE *out)
{
    double pw = pwidth(t);
    size_t np = pbucket(t, f->duration) + 1, nr = 0;
    for (size_t i = 0; i < f->nregions && i < t->nprof; i++)
        nr += t->prof[i] != NULL;
    size_t k = 1;
    while (nr * ((np + k - 1) / k) > PROF_CELLS && k < NP)
        k *= 2;
    size_t m = (np + k - 1) / k;
    long *v = malloc((m + 1) * sizeof *v);
    fprintf(out, ",\"prof\":{\"width\":%.17g,\"nb\":%zu,\"r\":[", pw * (double)k, v ? m : 0);
    for (size_t i = 0, items = 0; v && i < f->nregions && i < t->nprof; i++) {
        const pcell *p = t->prof[i];
        if (p == NULL)
            continue;
        fprintf(out, "%s{\"r\":%zu,\"c\":", items++ ? "," : "", i);
        for (size_t o = 0; o < m; o++) {
            v[o] = 0;
            for (size_t j = o * k; j < o * k + k && j < NP; j++)
                v[o] += p[j].begun;
        }
        rle_longs(out, v, m);
        fputs(",\"o\":", out);
        for (size_t o = 0; o < m; o++)
            v[o] = p[o * k].open;
        rle_longs(out, v, m);
        for (int x = 0; x < 2; x++) {
            fputs(x ? ",\"x\":[" : ",\"i\":[", out);
            for (size_t o = 0; o < m; o++) {
                double sum = 0;
                for (size_t j = o * k; j < o * k + k && j < NP; j++)
                    sum += x ? p[j].excl : p[j].incl;
                if (sum == 0)
                    fprintf(out, "%s0", o ? "," : "");
                else
                    fprintf(out, "%s%.12g", o ? "," : "", sum);
            }
            fputc(']', out);
        }
        fputc('}', out);
    }
    fputs("]}", out);
    free(v);
    if (!t->windowed)
        return;
    fprintf(out, ",\"window\":[%.17g,%.17g],\"wprof\":[", t->wa,
            isinf(t->wb) ? f->duration : t->wb);
    size_t *idx = malloc((f->nregions + 1) * sizeof *idx);
    size_t n = idx ? window_regions(t, f, idx) : 0;
    for (size_t j = 0; j < n; j++) {
        const wstat *w = &t->win[idx[j]];
        fprintf(out, "%s[%zu,%llu,%.12g,%.12g]", j ? "," : "", idx[j],
                (unsigned long long)w->calls, w->incl, w->excl);
    }
    free(idx);
    fputc(']', out);
}

int vw_timeline_json(const vw_timeline *t, const vw_facts *f, FILE *out)
{
    size_t n = used(t, f);
    /* the fine level holds at most about MAX_CELLS buckets over all rows
     * (many rows: k buckets merged), so the page stays small */
    size_t k = (n * (f->nlanes ? f->nlanes : 1) + MAX_CELLS - 1) / MAX_CELLS;
    if (k < 1)
        k = 1;
    size_t nf = (n + k - 1) / k, items = 0;
    fprintf(out, "{\"dur\":%.9g,\"width\":%.9g,\"nb\":%zu,\"coarse\":%d,\"rows\":[",
            f->duration, t->width * (double)k, nf, COARSE);
    long *map = malloc((t->nrows + 1) * sizeof *map);   /* timeline row -> facts lane */
    if (map == NULL)
        return -1;
    for (size_t i = 0; i < t->nrows; i++)
        map[i] = -1;
    for (size_t i = 0; i < f->nlanes; i++) {
        const vw_lane *l = &f->lanes[i];
        long r = row_find(t, l->process, l->stream);
        if (r >= 0)
            map[r] = (long)i;
        fprintf(out, "%s{\"p\":%u,\"t\":%u,\"name\":", i ? "," : "", l->process, l->stream);
        vw_json_string(out, l->name);
        fputc('}', out);
    }
    fputs("],\"regions\":[", out);
    for (size_t i = 0; i < f->nregions; i++) {
        const vw_region *g = &f->regions[i];
        char col[8];
        int idle = vw_timeline_region_idle(t, i);
        vw_region_color(f, t, i, col);
        fprintf(out, "%s{\"n\":", i ? "," : "");
        vw_json_string(out, g->name);
        fprintf(out, ",\"k\":%d,\"i\":%d,\"f\":%d,\"c\":\"%s\"}", g->kind, idle,
                vw_region_family(f, t, i), col);
    }
    long *v = malloc((nf + 1) * sizeof *v);   /* one row of a level */
    if (v == NULL) {
        free(map);
        return -1;
    }
    for (int lv = 0; lv < 3; lv++) {
        fprintf(out, "],\"%s\":[", lv == 2 ? "counts" : lv ? "lv1" : "lv0");
        for (size_t i = 0; i < f->nlanes; i++) {
            const vw_lane *l = &f->lanes[i];
            long r = row_find(t, l->process, l->stream);
            if (i)
                fputc(',', out);
            if (r < 0)
                fprintf(out, "[0,%zu]", lv ? nf : (nf + COARSE - 1) / COARSE);
            else if (lv == 2)
                rle_longs(out, v, count_row(t->rows[r].b, n, k, v));
            else
                rle_longs(out, v, level_row(t->rows[r].b, n, lv ? k : k * COARSE, v));
        }
    }
    /* per thread, its call-stack levels: per bucket the region open at
     * each depth (the last level: that depth and deeper); buckets merged
     * (kd) so that all levels of all rows hold at most MAX_CELLS */
    size_t nlv = 0, kd = k;
    for (size_t i = 0; i < f->nlanes; i++) {
        long r = row_find(t, f->lanes[i].process, f->lanes[i].stream);
        const row *w = r >= 0 ? &t->rows[r] : NULL;
        nlv += w ? row_levels(w) : 0;
    }
    while (nlv * ((n + kd - 1) / kd) > MAX_CELLS)
        kd *= 2;
    fprintf(out, "],\"dlw\":%.9g,\"dlnb\":%zu,\"dl\":[", t->width * (double)kd,
            (n + kd - 1) / kd);
    for (size_t i = 0; i < f->nlanes; i++) {
        const vw_lane *l = &f->lanes[i];
        long r = row_find(t, l->process, l->stream);
        fputs(i ? ",[" : "[", out);
        const row *w = r >= 0 ? &t->rows[r] : NULL;
        unsigned nl = w ? row_levels(w) : 0;
        for (unsigned d = 0; d < nl; d++) {
            if (d)
                fputc(',', out);
            rle_longs(out, v, level_row(w->lv[d], n, kd, v));
        }
        fputc(']', out);
    }
    free(v);
    fputs("],", out);
    if (groups_json(out, t, f, n)) {
        free(map);
        return -1;
    }
    /* collective instances: the longest kept, in time order; per fine
     * bucket, how many began there and their largest entry spread */
    qsort(t->colls, t->ncolls, sizeof *t->colls, cmp_coll);
    fprintf(out, ",\"ncolls\":%llu,\"colls\":[", (unsigned long long)t->colls_seen);
    for (size_t i = 0; i < t->ncolls; i++) {
        const coll *c = &t->colls[i];
        fprintf(out, "%s[%ld,%u,%u,%.9g,%.9g,%.9g,%u,%u,%lld,%lld,%llu,%u]", i ? "," : "",
                c->region, c->lo, c->hi, c->first, c->last, c->end, c->members, c->size,
                (long long)c->comm, (long long)c->root, (unsigned long long)c->bytes, c->late);
    }
    fputs("],\"ctrack\":[", out);
    items = 0;
    for (size_t o = 0; o < nf; o++) {
        uint64_t c = 0;
        float sp = 0;
        for (size_t b = o * k; b < o * k + k && b < n; b++) {
            c += t->cbegun[b];
            if (t->cspread[b] > sp)
                sp = t->cspread[b];
        }
        if (c)
            fprintf(out, "%s[%zu,%llu,%.6g]", items++ ? "," : "", o, (unsigned long long)c, sp);
    }
    /* slices by depth, then start (the page draws outer ones first; this
     * is the last use of the heap) */
    int complete = t->slices - t->wseen <= t->nheap && t->wseen <= t->nwheap;
    size_t ns = t->nheap;
    if (t->windowed) {   /* the window's slices (kept whole when they fit) after the others */
        memmove(t->heap + ns, t->wheap, t->nwheap * sizeof *t->heap);
        ns += t->nwheap;
        fprintf(out, "],\"wslices\":[%.9g,%.9g,%s,%llu", t->wa, isinf(t->wb) ? f->duration : t->wb,
                t->wseen <= MAX_WSLICES ? "true" : "false", (unsigned long long)t->wseen);
    }
    qsort(t->heap, ns, sizeof *t->heap, cmp_slice);
    fprintf(out, "],\"nslices\":%llu,\"complete\":%s,\"slices\":[",
            (unsigned long long)t->slices, complete ? "true" : "false");
    items = 0;
    for (size_t i = 0; i < ns; i++) {
        const slice *s = &t->heap[i];
        if (map[s->row] < 0)
            continue;
        /* times to the nanosecond (the trace's times are whole ns) */
        fprintf(out, "%s[%ld,%ld,%u,%.9f,%.9f,%llu,%lld,%lld,%lld,%lld,%lld]",
                items++ ? "," : "", map[s->row], s->region, s->depth, s->start, s->end,
                (unsigned long long)s->bytes, (long long)s->peer, (long long)s->tag,
                (long long)s->comm, (long long)s->root, (long long)s->request);
    }
    /* the messages kept (a uniform sample of the matched ones when there
     * are more), in order of send time */
    fprintf(out, "],\"nmatched\":%llu,\"msgs\":[", (unsigned long long)f->matched);
    size_t *mi = malloc((f->nmsgs + 1) * sizeof *mi);
    size_t nm = mi ? vw_msg_sample(f, f->nmsgs, mi) : 0;
    for (size_t i = 0; i < nm; i++) {
        const vw_msg *m = &f->msgs[mi[i]];
        fprintf(out, "%s[%zu,%zu,%.9g,%.9g,%llu]", i ? "," : "", m->src_lane, m->dst_lane,
                m->t_send, m->t_recv, (unsigned long long)m->bytes);
    }
    free(mi);
    /* calls linked to the device work they started (role correlation) */
    const links *lk = t->links;
    fprintf(out, "],\"nlinks\":%llu,\"links\":[", lk ? (unsigned long long)lk->n : 0ull);
    items = 0;
    for (size_t i = 0; lk && i < lk->nkept; i++) {
        const double *l = lk->kept[i];
        if (map[(size_t)l[0]] < 0 || map[(size_t)l[1]] < 0)
            continue;
        fprintf(out, "%s[%ld,%ld,%.9f,%.9f]", items++ ? "," : "", map[(size_t)l[0]],
                map[(size_t)l[1]], l[2], l[3]);
    }
    fprintf(out, "],\"nmarkers\":%llu,\"markers\":[", (unsigned long long)t->markers_seen);
    items = 0;
    for (size_t i = 0; i < t->nmarkers; i++) {
        const marker *mk = &t->markers[i];
        if (map[mk->row] < 0)
            continue;
        fprintf(out, "%s[%ld,%.9g,", items++ ? "," : "", map[mk->row], mk->t);
        vw_json_string(out, mk->text);
        fputc(']', out);
    }
    /* counter tracks, one per name: the processes' tracks merged (band:
     * min and max over them; line: the mean of their last values) */
    fprintf(out, "],\"nsamples\":%llu,\"counters\":[", (unsigned long long)t->samples);
    items = 0;
    for (size_t i = 0; i < t->ncounters; i++) {
        const counter *c = &t->counters[i];
        int seen = 0;
        for (size_t j = 0; j < i && !seen; j++)
            seen = strcmp(t->counters[j].name, c->name) == 0;
        if (seen || c->n == NULL)
            continue;
        size_t np = 0;
        for (size_t j = i; j < t->ncounters; j++)
            np += t->counters[j].n && strcmp(t->counters[j].name, c->name) == 0;
        int cum = 1;   /* every process's samples never decrease: a count, drawn as a rate */
        for (size_t j = i; j < t->ncounters; j++)
            if (t->counters[j].n && strcmp(t->counters[j].name, c->name) == 0 &&
                t->counters[j].decreased)
                cum = 0;
        fprintf(out, "%s{\"name\":", items++ ? "," : "");
        vw_json_string(out, c->name);
        fputs(",\"unit\":", out);
        vw_json_string(out, c->unit);
        fprintf(out, ",\"cum\":%d,\"p\":%u,\"np\":%zu", cum, c->process, np);
        if (cum)
            counter_rates(out, t, c->name, i, n, k, nf);
        fputs(",\"v\":[", out);
        for (size_t o = 0; o < nf; o++) {
            float mn = 0, mx = 0;
            double sum = 0;
            size_t m = 0;
            for (size_t j = i; j < t->ncounters; j++) {
                const counter *d = &t->counters[j];
                if (d->n == NULL || strcmp(d->name, c->name) != 0)
                    continue;
                size_t lastb = 0;
                int any = 0;
                for (size_t b = o * k; b < o * k + k && b < n; b++) {
                    if (d->n[b] == 0)
                        continue;
                    if ((m == 0 && !any) || d->mn[b] < mn)
                        mn = d->mn[b];
                    if ((m == 0 && !any) || d->mx[b] > mx)
                        mx = d->mx[b];
                    any = 1;
                    lastb = b;
                }
                if (any) {
                    sum += d->last[lastb];
                    m++;
                }
            }
            if (o)
                fputc(',', out);
            if (m)
                fprintf(out, "[%.7g,%.7g,%.7g]", mn, mx, sum / (double)m);
            else
                fputs("null", out);
        }
        fputs("]}", out);
    }
    fputc(']', out);
    prof_json(t, f, out);
    char note[1024];
    if (vw_damage_note(f, note, sizeof note)) {
        fputs(",\"damage\":", out);
        vw_json_string(out, note);
    }
    fputc('}', out);
    free(map);
    return ferror(out) ? -1 : 0;
}
