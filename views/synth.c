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

/* a repeated call (--predict -o): its record's start and end, copies */
typedef struct {
    int64_t start, end;
    long copies;
} rep;

typedef struct {
    uint32_t process, stream;
    knot *k;
    size_t n, cap;
    /* --predict -o, while the map is made: the factors of the frames open,
     * the last time and its predicted time, per region the copies owed
     * and made; the repeated calls in order, and the next one */
    double *fs;
    size_t depth, fcap;
    int64_t tl;
    double T;
    int have;
    double *acc;
    long *done;
    rep *reps;
    size_t nreps, rcap, next;
} lmap;

typedef struct {
    lmap *l;
    size_t n, cap, last;
    int oom;
} maps;

/* room for item n of the array *p of *cap items of size bytes: 0, or -1 */
static int push(void **p, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return 0;
    size_t nc = *cap ? 2 * *cap : 16;
    void *q = realloc(*p, nc * size);
    if (!q)
        return -1;
    *p = q;
    *cap = nc;
    return 0;
}

static lmap *map_find(maps *m, uint32_t process, uint32_t stream, int add)
{
    if (m->last < m->n && m->l[m->last].process == process && m->l[m->last].stream == stream)
        return &m->l[m->last];
    for (size_t i = 0; i < m->n; i++)
        if (m->l[i].process == process && m->l[i].stream == stream)
            return &m->l[m->last = i];
    if (!add || push((void **)&m->l, &m->cap, m->n, sizeof *m->l))
        return NULL;
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
    if (push((void **)&l->k, &l->cap, l->n, sizeof *l->k)) {
        m->oom = 1;
        return;
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
    if (t < k[0].rec)
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

/* the same, but at a point where the map jumps (a call repeated: room
 * made before it), the value before the jump: for a time that ends
 * something (a leave, a call's end) */
static double map_left(const lmap *l, int64_t t)
{
    if (!l || l->n == 0)
        return (double)t;
    size_t lo = 0, hi = l->n;   /* the first point at or after t */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (l->k[mid].rec < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < l->n && l->k[lo].rec == t)
        return l->k[lo].pred;
    return map_time(l, t);
}

static int64_t ns_of(double x)
{
    return x <= 0 ? 0 : (int64_t)llround(x);
}

static void maps_free(maps *m)
{
    for (size_t i = 0; i < m->n; i++) {
        free(m->l[i].k);
        free(m->l[i].fs);
        free(m->l[i].acc);
        free(m->l[i].done);
        free(m->l[i].reps);
    }
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

/* ---- pal-view --predict NP RUN... -o FILE ---- */

static long region_index(const vw_prediction *pr, const char *name, size_t len)
{
    for (size_t i = 0; i < pr->n; i++)
        if (strlen(pr->r[i].name) == len && memcmp(pr->r[i].name, name, len) == 0)
            return (long)i;
    return -1;
}


/* Pass 1, over the template run's events: each lane's time map under the
 * models -- time in region R (innermost) scaled by R's predicted time per
 * rank over the template's (by its mean per call for a call repeated),
 * time outside every region by the rest's -- and the calls repeated: a
 * call of a region whose calls per rank change, recorded as one record
 * with its duration and no MPI call, gets copies by the ratio (carried
 * over from call to call), room made for them before it. */
static int predict_maps(const char *path, const char *dict, const vw_prediction *pr, maps *m)
{
    pal_reader *rd = NULL;
    if (pal_reader_open_run(&path, 1, dict, 0, &rd) != PAL_OK) {
        fprintf(stderr, "pal-view: %s\n", pal_last_error());
        return -1;
    }
    pal_reader_set_diag(rd, NULL, NULL);
    pal_events *ev = NULL;
    if (pal_events_create(rd, &ev) != PAL_OK) {
        pal_reader_close(rd);
        fprintf(stderr, "pal-view: --predict -o: out of memory\n");
        return -1;
    }
    size_t nr = pr->n ? pr->n : 1;
    double frest = pr->rest_at > 0 ? pr->rest / pr->rest_at : 1;
    const pal_event *e;
    pal_status st;
    int rc = 0;
    while (rc == 0 && (st = pal_events_next(ev, &e)) == PAL_OK) {
        if (e->kind != PAL_EV_ENTER && e->kind != PAL_EV_LEAVE)
            continue;
        lmap *l = map_find(m, e->process, e->stream, 1);
        if (!l || (!l->acc && (!(l->acc = calloc(nr, sizeof *l->acc)) ||
                               !(l->done = calloc(nr, sizeof *l->done))))) {
            rc = -1;
            break;
        }
        int64_t t = e->time;
        if (!l->have) {
            l->tl = t;
            l->T = (double)t;
            l->have = 1;
        }
        if (t < l->tl)
            t = l->tl;
        l->T += (double)(t - l->tl) * (l->depth ? l->fs[l->depth - 1] : frest);
        l->tl = t;
        on_knot(m, e->process, e->stream, t, l->T);
        if (e->kind == PAL_EV_LEAVE) {
            if (e->depth < l->depth)
                l->depth = e->depth;
            continue;
        }
        if (l->depth > e->depth)
            l->depth = e->depth;
        long ri = region_index(pr, e->name ? e->name : "?", e->name ? e->name_len : 1);
        double f = 1;
        if (ri >= 0) {
            const vw_pred_region *r = &pr->r[ri];
            double k = r->calls_at > 0 ? r->calls / r->calls_at : 1;
            const pal_fielddesc *df =
                e->record ? pal_recdesc_role_field(pal_record_desc(e->record), PAL_FROLE_DURATION)
                          : NULL;
            int64_t end = e->record ? pal_record_time_ns(e->record) : t;
            if (df && end >= t && fabs(k - 1) > 1e-9 &&
                !(e->flags & (PAL_EVF_COMMUNICATION | PAL_EVF_COLLECTIVE | PAL_EVF_SETUP))) {
                f = r->mean_at > 0 ? r->mean / r->mean_at : 1;
                l->acc[ri] += k;
                long n = lround(l->acc[ri]) - l->done[ri];
                if (n < 0)
                    n = 0;
                l->done[ri] += n;
                if (push((void **)&l->reps, &l->rcap, l->nreps, sizeof *l->reps)) {
                    rc = -1;
                    break;
                }
                l->reps[l->nreps++] = (rep){ t, end, n };
                if (n == 0)
                    f = 0;   /* the call is not there */
                else
                    l->T += (double)(n - 1) * (double)(end - t) * f;
                on_knot(m, e->process, e->stream, t, l->T);
            } else {
                double was = r->calls_at * r->mean_at;
                f = was > 0 ? r->calls * r->mean / was : 1;
            }
        }
        if (push((void **)&l->fs, &l->fcap, l->depth, sizeof *l->fs)) {
            rc = -1;
            break;
        }
        l->fs[l->depth++] = f;
    }
    if (rc || m->oom) {
        fprintf(stderr, "pal-view: --predict -o: out of memory\n");
        rc = -1;
    } else if (st != PAL_END) {
        fprintf(stderr, "pal-view: %s: %s\n", path, pal_reader_error(rd));
        rc = -1;
    }
    pal_events_destroy(ev);
    pal_reader_close(rd);
    return rc;
}

/* members as text ("0-3,8") with every rank moved by by */
static int shift_members(const char *s, size_t len, int64_t by, char *out, size_t size)
{
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        if (s[i] >= '0' && s[i] <= '9') {
            int64_t v = 0;
            while (i < len && s[i] >= '0' && s[i] <= '9')
                v = v * 10 + (s[i++] - '0');
            int w = snprintf(out + o, size - o, "%" PRId64, v + by);
            if (w < 0 || (size_t)w >= size - o)
                return -1;
            o += (size_t)w;
        } else {
            if (o + 1 >= size)
                return -1;
            out[o++] = s[i++];
        }
    }
    out[o] = '\0';
    return 0;
}

/* the groups defined so far (pass 2): a process's communicator id, and
 * whether it is the world (a group of p, made the np ranks) */
typedef struct {
    uint32_t process;
    int64_t comm;
    int world;
} group;

/* Pass 2, once per block b of p ranks: the template's records as ranks
 * b p + rank, at their times mapped, repeated calls repeated, peers moved
 * by b p, the world (a group of p) made the np ranks, the members of other
 * groups (local and remote) moved by b p, and so the roots of their
 * collectives. */
static int predict_block(const char *path, const char *dict, maps *m, int64_t b, int64_t p,
                         int64_t np, const pal_dict *like, pal_trace_writer *w)
{
    pal_reader *rd = NULL;
    if (pal_reader_open_run(&path, 1, dict, 0, &rd) != PAL_OK) {
        fprintf(stderr, "pal-view: %s\n", pal_last_error());
        return -1;
    }
    pal_reader_set_diag(rd, NULL, NULL);
    for (size_t i = 0; i < m->n; i++)
        m->l[i].next = 0;
    static const pal_field_role peers[] = { PAL_FROLE_PEER, PAL_FROLE_DEST, PAL_FROLE_SOURCE };
    group *gs = NULL;
    size_t ng = 0, gcap = 0;
    int rc = 0;
    const pal_record *rec;
    pal_status st;
    char members[2][4096];   /* local and remote: copied at put */
    while ((st = pal_reader_next(rd, &rec)) == PAL_OK) {
        uint32_t pr = pal_record_process(rec), sq = pal_record_stream(rec);
        lmap *l = map_find(m, pr, sq, 0);
        const lmap *ml = l ? l : lane_of(m, pr, sq);
        /* the writer's types are those of the first reader's dictionary */
        const pal_recdesc *type = pal_dict_find_record(like, pal_recdesc_name(pal_record_desc(rec)));
        if (!type) {
            st = PAL_EINVAL;
            goto out;
        }
        int64_t t = pal_record_time_ns(rec), d = 0;
        const pal_fielddesc *df = pal_recdesc_role_field(type, PAL_FROLE_DURATION);
        int hasd = df && pal_record_duration_ns(rec, &d) == PAL_OK;
        long copies = 1;
        double end, dur = 0;
        if (hasd) {
            end = map_left(ml, t);
            dur = end - map_time(ml, t - d);
            if (dur < 0)
                dur = 0;
            if (l && l->next < l->nreps && l->reps[l->next].end == t &&
                l->reps[l->next].start == t - d)
                copies = l->reps[l->next++].copies;
        } else {
            end = pal_record_has_role(rec, PAL_ROLE_LEAVE) == 1 ? map_left(ml, t) : map_time(ml, t);
        }
        for (long c = 0; c < copies; c++) {
            double at = end - (double)(copies - 1 - c) * dur;
            if ((st = pal_trace_writer_begin(w, type, ns_of(at), (uint32_t)(b * p + pr), sq)) !=
                    PAL_OK ||
                (st = pal_trace_writer_copy(w, rec)) != PAL_OK)
                goto out;
            if (hasd)
                st = pal_field_type(df) == PAL_FLOAT32 || pal_field_type(df) == PAL_FLOAT64
                         ? pal_trace_writer_field_f64(w, df, (double)ns_of(dur))
                         : pal_trace_writer_field_i64(w, df, ns_of(dur));
            for (size_t k = 0; st == PAL_OK && b && k < sizeof peers / sizeof *peers; k++) {
                const pal_fielddesc *f = pal_recdesc_role_field(type, peers[k]);
                int64_t v;
                if (f && pal_record_get_i64(rec, pal_field_name(f), &v) == PAL_OK && v >= 0)
                    st = pal_trace_writer_field_i64(w, f, v + b * p);
            }
            const pal_fielddesc *fs = pal_recdesc_role_field(type, PAL_FROLE_SIZE),
                                *fc = pal_recdesc_role_field(type, PAL_FROLE_COMMUNICATOR),
                                *fr = pal_recdesc_role_field(type, PAL_FROLE_ROOT);
            int64_t size = -1, cid = -1, root;
            int world = 0;
            if (fc && pal_record_get_i64(rec, pal_field_name(fc), &cid) != PAL_OK)
                fc = NULL;
            if (st == PAL_OK && fs && pal_record_get_i64(rec, pal_field_name(fs), &size) == PAL_OK) {
                world = size == p;
                if (world)
                    st = pal_trace_writer_field_i64(w, fs, np);
                if (fc && c == 0) {   /* a definition: remember whether it is the world */
                    if (push((void **)&gs, &gcap, ng, sizeof *gs)) {
                        st = PAL_ENOMEM;
                        goto out;
                    }
                    gs[ng++] = (group){ pr, cid, world };
                }
            } else if (fc) {
                world = 1;   /* a group not defined: taken as the world */
                for (size_t g = ng; g-- > 0;)
                    if (gs[g].process == pr && gs[g].comm == cid) {
                        world = gs[g].world;
                        break;
                    }
            } else {
                world = 1;   /* no communicator: the world */
            }
            /* a collective's root (a world rank) moves with its group's members */
            if (st == PAL_OK && fr && fc && !world && b &&
                pal_record_get_i64(rec, pal_field_name(fr), &root) == PAL_OK && root >= 0)
                st = pal_trace_writer_field_i64(w, fr, root + b * p);
            static const pal_field_role groups[] = { PAL_FROLE_MEMBERS,
                                                     PAL_FROLE_REMOTE_MEMBERS };
            for (size_t k = 0; st == PAL_OK && k < 2; k++) {
                const pal_fielddesc *fm = pal_recdesc_role_field(type, groups[k]);
                const char *ms;
                size_t mlen;
                if (!fm || pal_record_get_str(rec, pal_field_name(fm), &ms, &mlen) != PAL_OK)
                    continue;
                if (k == 0 && size == p)
                    snprintf(members[k], sizeof members[k], "0-%" PRId64, np - 1);
                else if (shift_members(ms, mlen, b * p, members[k], sizeof members[k]) != 0) {
                    fprintf(stderr, "pal-view: --predict -o: %s: a group's members too long\n",
                            path);
                    rc = -1;
                    goto out;
                }
                st = pal_trace_writer_field_str(w, fm, members[k], strlen(members[k]));
            }
            if (st == PAL_OK)
                st = pal_trace_writer_put(w);
            if (st != PAL_OK)
                goto out;
        }
    }
out:
    if (rc == 0 && st != PAL_END) {
        if (pal_reader_error(rd) && *pal_reader_error(rd))
            fprintf(stderr, "pal-view: %s: %s\n", path, pal_reader_error(rd));
        else
            fprintf(stderr, "pal-view: --predict -o: a record cannot be written (%s)\n",
                    pal_status_string(st));
        rc = -1;
    }
    free(gs);
    pal_reader_close(rd);
    return rc;
}

int vw_synth_predict(double np, const char *const *runs, size_t n, const char *dict, int form,
                     const char *output, unsigned out_flags, FILE *out)
{
    vw_prediction pr;
    if (vw_predict_keep(np, runs, n, dict, form, out, &pr) != 0) {
        vw_prediction_free(&pr);
        return -1;
    }
    int64_t p = (int64_t)pr.p, N = (int64_t)np;
    if ((double)N != np || N < p || N % p != 0) {
        fprintf(stderr, "pal-view: --predict %g -o: the ranks synthesized are copies of the "
                "largest run's %" PRId64 ": give a multiple of %" PRId64 "\n", np, p, p);
        vw_prediction_free(&pr);
        return -1;
    }
    maps m;
    memset(&m, 0, sizeof m);
    const char *path = runs[pr.template_run];
    int rc = predict_maps(path, dict, &pr, &m);
    for (size_t i = 0; rc == 0 && i < m.n; i++)
        qsort(m.l[i].k, m.l[i].n, sizeof *m.l[i].k, by_rec);
    pal_reader *rd = NULL;
    pal_trace_writer *w = NULL;
    if (rc == 0 && pal_reader_open_run(&path, 1, dict, 0, &rd) != PAL_OK) {
        fprintf(stderr, "pal-view: %s\n", pal_last_error());
        rc = -1;
    }
    if (rc == 0) {
        pal_reader_set_diag(rd, NULL, NULL);
        /* the dictionary: the template's, complete after a pass over it */
        const pal_record *rec;
        pal_status st;
        while ((st = pal_reader_next(rd, &rec)) == PAL_OK)
            ;
        if (pal_trace_writer_create(output, pal_reader_dict(rd), out_flags, &w) != PAL_OK) {
            fprintf(stderr, "pal-view: %s\n", pal_last_error());
            rc = -1;
        }
    }
    for (int64_t b = 0; rc == 0 && b < N / p; b++)
        rc = predict_block(path, dict, &m, b, p, N, pal_reader_dict(rd), w);
    if (rc == 0) {
        char err[1024];
        if (pal_trace_writer_close(w, err, sizeof err) != PAL_OK) {
            fprintf(stderr, "pal-view: %s\n", err);
            rc = -1;
        }
    } else {
        pal_trace_writer_abort(w);
    }
    pal_reader_close(rd);
    maps_free(&m);
    vw_prediction_free(&pr);
    return rc;
}
