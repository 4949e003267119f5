/* synth.c -- predicted runs written as traces (doc/diagnosis.md, "The
 * predicted run as a trace"): pal-view --what-if SPEC -o FILE writes the
 * run with the times the what-if replay gives it. The replay hands over,
 * lane by lane (rank, thread), the points of its time map -- recorded time
 * -> predicted time at each lane's start, at the start and end of each
 * stretch outside MPI calls and of each MPI call -- and every record is
 * written again, through libpal's writer, at its time mapped so: exact at
 * those points, interpolated linearly between two of them (inside an MPI
 * call: at the same fraction of the call's predicted duration), shifted
 * as the nearest point before the first or after the last one. */
#include <config.h>

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "views/escape.h"
#include "views/synth.h"
#include "views/vw.h"
#include "views/waits.h"

typedef struct {
    int64_t rec;
    double pred;
} knot;

typedef struct {
    uint32_t process, stream;
    knot *k;
    size_t n, cap;
} lmap;

typedef struct {
    lmap *l;
    size_t n, cap, last;
    int oom;
} maps;

static lmap *map_find(maps *m, uint32_t process, uint32_t stream, int add)
{
    if (m->last < m->n && m->l[m->last].process == process && m->l[m->last].stream == stream)
        return &m->l[m->last];
    for (size_t i = 0; i < m->n; i++)
        if (m->l[i].process == process && m->l[i].stream == stream)
            return &m->l[m->last = i];
    if (!add)
        return NULL;
    if (m->n == m->cap) {
        size_t nc = m->cap ? 2 * m->cap : 16;
        lmap *q = realloc(m->l, nc * sizeof *q);
        if (!q)
            return NULL;
        m->l = q;
        m->cap = nc;
    }
    memset(&m->l[m->n], 0, sizeof *m->l);
    m->l[m->n].process = process;
    m->l[m->n].stream = stream;
    return &m->l[m->last = m->n++];
}

/* the replay's output hook (vw_what_if.retime) */
static void on_knot(void *ctx, uint32_t process, uint32_t stream, int64_t rec, double pred)
{
    maps *m = ctx;
    lmap *l = map_find(m, process, stream, 1);
    if (!l) {
        m->oom = 1;
        return;
    }
    if (l->n == l->cap) {
        size_t nc = l->cap ? 2 * l->cap : 64;
        knot *q = realloc(l->k, nc * sizeof *q);
        if (!q) {
            m->oom = 1;
            return;
        }
        l->k = q;
        l->cap = nc;
    }
    l->k[l->n++] = (knot){ rec, pred };
}

static int by_rec(const void *a, const void *b)
{
    const knot *x = a, *y = b;
    if (x->rec != y->rec)
        return x->rec < y->rec ? -1 : 1;
    return (x->pred > y->pred) - (x->pred < y->pred);
}

/* t (recorded, ns) on lane l -> predicted ns */
static double map_time(const lmap *l, int64_t t)
{
    if (!l || l->n == 0)
        return (double)t;
    const knot *k = l->k;
    if (t <= k[0].rec)
        return k[0].pred + (double)(t - k[0].rec);
    /* the last point at or before t */
    size_t lo = 0, hi = l->n;
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (k[mid].rec <= t)
            lo = mid;
        else
            hi = mid;
    }
    if (lo + 1 == l->n || k[lo].rec == t)
        return k[lo].pred + (double)(t - k[lo].rec);
    const knot *a = &k[lo], *b = &k[lo + 1];
    return a->pred + (b->pred - a->pred) * (double)(t - a->rec) / (double)(b->rec - a->rec);
}

static int64_t ns_of(double x)
{
    return x <= 0 ? 0 : (int64_t)llround(x);
}

static void maps_free(maps *m)
{
    for (size_t i = 0; i < m->n; i++)
        free(m->l[i].k);
    free(m->l);
}

/* the lane a record's time is mapped by: its own, else a lane of its
 * process (definitions written on a stream of their own), else none */
static const lmap *lane_of(maps *m, uint32_t process, uint32_t stream)
{
    const lmap *l = map_find(m, process, stream, 0);
    if (l)
        return l;
    const lmap *best = NULL;
    for (size_t i = 0; i < m->n; i++)
        if (m->l[i].process == process && (!best || m->l[i].stream < best->stream))
            best = &m->l[i];
    return best;
}

/* Writes every record of the run at paths to output at its time mapped by
 * m, its duration (role duration: a call recorded at its end) the mapped
 * end less the mapped start. 0, or -1 after a message. */
static int write_retimed(const char *const *paths, size_t n, const char *dict, maps *m,
                         const char *output, unsigned out_flags)
{
    pal_reader *rd = NULL;
    if (pal_reader_open_run(paths, n, dict, 0, &rd) != PAL_OK) {
        fprintf(stderr, "pal-view: %s\n", pal_last_error());
        return -1;
    }
    pal_reader_set_diag(rd, NULL, NULL);   /* said once already, by the replay */
    pal_trace_writer *w = NULL;
    if (pal_trace_writer_create(output, pal_reader_dict(rd), out_flags, &w) != PAL_OK) {
        fprintf(stderr, "pal-view: %s\n", pal_last_error());
        pal_reader_close(rd);
        return -1;
    }
    const pal_record *rec;
    pal_status st;
    while ((st = pal_reader_next(rd, &rec)) == PAL_OK) {
        uint32_t p = pal_record_process(rec), q = pal_record_stream(rec);
        const lmap *l = lane_of(m, p, q);
        int64_t t = pal_record_time_ns(rec), d;
        double end = map_time(l, t);
        const pal_recdesc *type = pal_record_desc(rec);
        if ((st = pal_trace_writer_begin(w, type, ns_of(end), p, q)) != PAL_OK ||
            (st = pal_trace_writer_copy(w, rec)) != PAL_OK)
            break;
        const pal_fielddesc *df = pal_recdesc_role_field(type, PAL_FROLE_DURATION);
        if (df && pal_record_duration_ns(rec, &d) == PAL_OK) {
            int64_t nd = ns_of(end) - ns_of(map_time(l, t - d));
            st = pal_field_type(df) == PAL_FLOAT32 || pal_field_type(df) == PAL_FLOAT64
                     ? pal_trace_writer_field_f64(w, df, (double)nd)
                 : nd < 0 ? PAL_OK
                          : pal_trace_writer_field_i64(w, df, nd);
            if (st != PAL_OK)
                break;
        }
        if ((st = pal_trace_writer_put(w)) != PAL_OK)
            break;
    }
    if (st != PAL_END) {
        if (st == PAL_ENOMEM)
            fprintf(stderr, "pal-view: %s: out of memory\n", output);
        else if (pal_reader_error(rd) && *pal_reader_error(rd))
            fprintf(stderr, "pal-view: %s: %s\n", paths[0], pal_reader_error(rd));
        else
            fprintf(stderr, "pal-view: %s: a record cannot be written (%s)\n", output,
                    pal_status_string(st));
        pal_trace_writer_abort(w);
        pal_reader_close(rd);
        return -1;
    }
    char err[1024];
    int rc = 0;
    if (pal_trace_writer_close(w, err, sizeof err) != PAL_OK) {
        fprintf(stderr, "pal-view: %s\n", err);
        rc = -1;
    }
    pal_reader_close(rd);
    return rc;
}

int vw_synth_what_if(const char *const *paths, size_t n, const char *dict, int form,
                     const vw_what_if *what_if, const char *output, unsigned out_flags, FILE *out)
{
    maps m;
    memset(&m, 0, sizeof m);
    vw_what_if wi = *what_if;
    wi.retime = on_knot;
    wi.retime_ctx = &m;
    int rc = vw_waits_run(paths, n, dict, form, &wi, out);
    if (rc < 0) {
        maps_free(&m);
        return rc;
    }
    if (m.oom) {
        fprintf(stderr, "pal-view: --what-if -o: out of memory\n");
        maps_free(&m);
        return -1;
    }
    for (size_t i = 0; i < m.n; i++)
        qsort(m.l[i].k, m.l[i].n, sizeof *m.l[i].k, by_rec);
    int wrc = write_retimed(paths, n, dict, &m, output, out_flags);
    maps_free(&m);
    return wrc < 0 ? -1 : rc;
}
