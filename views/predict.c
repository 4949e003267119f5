/* predict.c -- pal-view --predict NP RUN...: runs of one program at several
 * process counts -> per region, how its calls per rank and its mean
 * exclusive time per call grow with the process count p (one model of a
 * small family each, chosen by leave-one-out error, after Extra-P) -> the
 * region's time per rank, and the run's length, predicted at NP (doc/views.md,
 * "Prediction from small runs"). */
#include <config.h>

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "views/escape.h"
#include "views/synth.h"
#include "views/vw.h"
#include "views/waits.h"

#define MAX_RUNS 64

/* the model family: y = a + b f(p) */
enum { M_CONST, M_LOG, M_SQRT, M_LIN, M_PLOG, M_SQ, M_INV, M_COUNT };
static const char *const model_name[M_COUNT] = {"c", "log2(p)", "sqrt(p)", "p", "p*log2(p)",
                                                "p^2", "1/p"};

static double term(int m, double p)
{
    switch (m) {
    case M_LOG: return log2(p);
    case M_SQRT: return sqrt(p);
    case M_LIN: return p;
    case M_PLOG: return p * log2(p);
    case M_SQ: return p * p;
    case M_INV: return 1 / p;
    default: return 0;
    }
}

/* least squares a + b f(p) over the points but skip (-1: none) */
static void fit(int m, const double *p, const double *y, size_t n, size_t skip, double *a,
                double *b)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0, k = 0;
    for (size_t i = 0; i < n; i++) {
        if (i == skip)
            continue;
        double x = term(m, p[i]);
        sx += x, sy += y[i], sxx += x * x, sxy += x * y[i], k++;
    }
    *a = k ? sy / k : 0;
    *b = 0;
    double d = k * sxx - sx * sx;
    if (m != M_CONST && k >= 2 && fabs(d) > 1e-300) {
        *b = (k * sxy - sx * sy) / d;
        *a = (sy - *b * sx) / k;
    }
}

/* the model with the least error: mean relative error left one out (3 or
 * more points), else of the fit itself; *err that error */
static int choose(const double *p, const double *y, size_t n, double *a, double *b, double *err)
{
    int best = M_CONST;
    double be = INFINITY;
    for (int m = 0; m < M_COUNT; m++) {
        double e = 0, fa, fb;
        for (size_t i = 0; i < n; i++) {
            fit(m, p, y, n, n >= 3 ? i : (size_t)-1, &fa, &fb);
            double q = fa + fb * term(m, p[i]);
            e += fabs(q - y[i]) / (fabs(y[i]) > 1e-9 ? fabs(y[i]) : 1e-9);   /* ns, or counts */
        }
        e /= n ? (double)n : 1;
        if (e < be - 1e-9) {   /* a simpler model (earlier) wins a tie */
            be = e;
            best = m;
        }
    }
    fit(best, p, y, n, (size_t)-1, a, b);
    *err = be;
    return best;
}

typedef struct {
    char *name;
    size_t len;
    double calls[MAX_RUNS], excl[MAX_RUNS];   /* summed over the ranks */
} region;

typedef struct {
    const char *name;
    size_t len;
    int64_t start, child;
} frame;

typedef struct {
    uint32_t process, stream;
    frame *f;
    size_t depth, cap;
} lane;

typedef struct {
    region *r;
    size_t n, cap;
    lane *l;
    size_t nl, lcap;
} state;

static region *region_of(state *s, const char *name, size_t len)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->r[i].len == len && memcmp(s->r[i].name, name, len) == 0)
            return &s->r[i];
    if (s->n == s->cap) {
        size_t nc = s->cap ? s->cap * 2 : 32;
        region *q = realloc(s->r, nc * sizeof *q);
        if (q == NULL)
            return NULL;
        s->r = q;
        s->cap = nc;
    }
    region *r = &s->r[s->n];
    memset(r, 0, sizeof *r);
    if ((r->name = malloc(len + 1)) == NULL)
        return NULL;
    memcpy(r->name, name, len);
    r->name[len] = 0;
    r->len = len;
    s->n++;
    return r;
}

static lane *lane_of(state *s, uint32_t process, uint32_t stream)
{
    for (size_t i = 0; i < s->nl; i++)
        if (s->l[i].process == process && s->l[i].stream == stream)
            return &s->l[i];
    if (s->nl == s->lcap) {
        size_t nc = s->lcap ? s->lcap * 2 : 16;
        lane *q = realloc(s->l, nc * sizeof *q);
        if (q == NULL)
            return NULL;
        s->l = q;
        s->lcap = nc;
    }
    memset(&s->l[s->nl], 0, sizeof *s->l);
    s->l[s->nl].process = process;
    s->l[s->nl].stream = stream;
    return &s->l[s->nl++];
}

static int by_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* reads run k: calls and exclusive time per region, its ranks, its length */
static int read_run(state *s, const char *path, const char *dict, size_t k, double *ranks,
                    double *length)
{
    pal_reader *rd = NULL;
    if (pal_reader_open_run(&path, 1, dict, 0, &rd) != PAL_OK) {
        fprintf(stderr, "pal-view: %s\n", pal_last_error());
        return -1;
    }
    pal_events *ev = NULL;
    if (pal_events_create(rd, &ev) != PAL_OK) {
        pal_reader_close(rd);
        fprintf(stderr, "pal-view: --predict: out of memory\n");
        return -1;
    }
    for (size_t i = 0; i < s->nl; i++)
        free(s->l[i].f);
    s->nl = 0;
    int64_t t0 = INT64_MAX, t1 = INT64_MIN;
    const pal_event *e;
    pal_status st;
    int rc = 0;
    while (rc == 0 && (st = pal_events_next(ev, &e)) == PAL_OK) {
        if (e->kind != PAL_EV_ENTER && e->kind != PAL_EV_LEAVE)
            continue;
        if (e->time < t0)
            t0 = e->time;
        if (e->time > t1)
            t1 = e->time;
        lane *l = lane_of(s, e->process, e->stream);
        if (l == NULL) {
            rc = -1;
            break;
        }
        if (e->kind == PAL_EV_ENTER) {
            if (l->depth > e->depth)
                l->depth = e->depth;
            if (l->depth == l->cap) {
                size_t nc = l->cap ? l->cap * 2 : 16;
                frame *q = realloc(l->f, nc * sizeof *q);
                if (q == NULL) {
                    rc = -1;
                    break;
                }
                l->f = q;
                l->cap = nc;
            }
            l->f[l->depth++] = (frame){e->name ? e->name : "?", e->name ? e->name_len : 1,
                                       e->time, 0};
        } else if (e->depth < l->depth) {
            frame *f = &l->f[e->depth];
            int64_t incl = e->time - f->start;
            region *r = region_of(s, f->name, f->len);
            if (r == NULL) {
                rc = -1;
                break;
            }
            r->calls[k] += 1;
            r->excl[k] += (double)(incl - f->child) * 1e-9;
            if (e->depth > 0)
                l->f[e->depth - 1].child += incl;
            l->depth = e->depth;
        }
    }
    if (rc)
        fprintf(stderr, "pal-view: --predict: out of memory\n");
    else if (st != PAL_END) {
        fprintf(stderr, "pal-view: %s: %s\n", path, pal_reader_error(rd));
        rc = -1;
    }
    uint32_t *pr = malloc((s->nl + 1) * sizeof *pr);
    size_t np = 0;
    if (pr) {
        for (size_t i = 0; i < s->nl; i++)
            pr[i] = s->l[i].process;
        qsort(pr, s->nl, sizeof *pr, by_u32);
        for (size_t i = 0; i < s->nl; i++)
            if (i == 0 || pr[i] != pr[i - 1])
                np++;
        free(pr);
    }
    *ranks = (double)np;
    *length = t1 > t0 ? (double)(t1 - t0) * 1e-9 : 0;
    pal_events_destroy(ev);
    pal_reader_close(rd);
    return rc;
}

void vw_prediction_free(vw_prediction *pr)
{
    for (size_t i = 0; i < pr->n; i++)
        free(pr->r[i].name);
    free(pr->r);
    memset(pr, 0, sizeof *pr);
}

int vw_predict_run(double np, const char *const *runs, size_t n, const char *dict, int form,
                   FILE *out)
{
    return vw_predict_keep(np, runs, n, dict, form, out, NULL);
}

int vw_predict_keep(double np, const char *const *runs, size_t n, const char *dict, int form,
                    FILE *out, vw_prediction *keep)
{
    if (keep)
        memset(keep, 0, sizeof *keep);
    if (n < 2 || n > MAX_RUNS) {
        fprintf(stderr, "pal-view: --predict: give 2 to %d runs at different process counts\n",
                MAX_RUNS);
        return -1;
    }
    state s;
    memset(&s, 0, sizeof s);
    double p[MAX_RUNS], len[MAX_RUNS];   /* processes and length of each run */
    int rc = 0;
    for (size_t k = 0; k < n && rc == 0; k++) {
        rc = read_run(&s, runs[k], dict, k, &p[k], &len[k]);
        if (rc == 0 && p[k] < 1) {
            fprintf(stderr, "pal-view: --predict: %s: no rank has a region\n", runs[k]);
            rc = -1;
        }
        for (size_t j = 0; rc == 0 && j < k; j++)
            if (p[j] == p[k]) {
                fprintf(stderr, "pal-view: --predict: %s and %s both have %g processes\n",
                        runs[j], runs[k], p[k]);
                rc = -1;
            }
    }
    int text = form == VW_WAITS_TEXT, csv = form == VW_WAITS_CSV;
    size_t tk = 0;   /* the run with the most processes: a synthesized trace's template */
    for (size_t k = 1; rc == 0 && k < n; k++)
        if (p[k] > p[tk])
            tk = k;
    if (rc == 0 && keep) {
        keep->np = np;
        keep->template_run = tk;
        keep->p = p[tk];
        if (s.n && (keep->r = calloc(s.n, sizeof *keep->r)) == NULL) {
            fprintf(stderr, "pal-view: --predict: out of memory\n");
            rc = -1;
        }
    }
    if (rc == 0) {
        double a, b, err, total = 0, terr = 0;
        if (text) {
            fprintf(out, "Prediction at %g processes from %zu runs (", np, n);
            for (size_t k = 0; k < n; k++)
                fprintf(out, "%s%g", k ? ", " : "", p[k]);
            fputs(" processes)\n", out);
            fprintf(out, "  %-24s %-10s %-10s %12s %14s %14s %8s\n", "region", "calls", "mean",
                    "calls/rank", "mean_s", "time/rank_s", "error");
        } else if (csv) {
            fputs("table,region,calls_model,mean_model,calls_per_rank,mean_s,time_per_rank_s,"
                  "error\n",
                  out);
            for (size_t k = 0; k < n; k++)
                fprintf(out, "run,,,,%.9g,,%.9f,\n", p[k], len[k]);
        } else {
            fprintf(out, "{\"processes\":%.9g,\"runs\":[", np);
            for (size_t k = 0; k < n; k++)
                fprintf(out, "%s{\"processes\":%.9g,\"length\":%.9f}", k ? "," : "", p[k], len[k]);
            fputs("],\n\"regions\":[", out);
        }
        for (size_t i = 0; i < s.n; i++) {
            region *r = &s.r[i];
            double calls[MAX_RUNS], mean[MAX_RUNS];
            for (size_t k = 0; k < n; k++) {
                calls[k] = r->calls[k] / p[k];
                mean[k] = r->calls[k] > 0 ? r->excl[k] / r->calls[k] : 0;
            }
            double ce, me;
            int mc = choose(p, calls, n, &a, &b, &ce);
            double pc = a + b * term(mc, np);
            int mm = choose(p, mean, n, &a, &b, &me);
            double pm = a + b * term(mm, np);
            if (pc < 0)
                pc = 0;
            if (pm < 0)
                pm = 0;
            double e = ce + me;
            if (keep) {
                vw_pred_region *kr = &keep->r[keep->n];
                if ((kr->name = strdup(r->name)) != NULL) {
                    kr->calls = pc;
                    kr->mean = pm;
                    kr->calls_at = calls[tk];
                    kr->mean_at = mean[tk];
                    keep->n++;
                }
            }
            total += pc * pm;
            terr += pc * pm * e;
            if (text) {
                fputs("  ", out);
                vw_term_text(out, r->name, 24);   /* a name from the trace */
                fprintf(out, " %-10s %-10s %12.3f %14.9f %14.9f %7.2f%%\n", model_name[mc],
                        model_name[mm], pc, pm, pc * pm, 100 * e);
            } else if (csv) {
                fputs("region,", out);
                vw_csv_name(out, r->name);
                fprintf(out, ",%s,%s,%.9g,%.12g,%.12g,%.6f\n", model_name[mc], model_name[mm], pc,
                        pm, pc * pm, e);
            } else {
                fprintf(out, "%s\n{\"region\":", i ? "," : "");
                vw_json_string(out, r->name);
                fprintf(out,
                        ",\"calls_model\":\"%s\",\"mean_model\":\"%s\",\"calls_per_rank\":%.9g,"
                        "\"mean_s\":%.12g,\"time_per_rank_s\":%.12g,\"error\":%.6f}",
                        model_name[mc], model_name[mm], pc, pm, pc * pm, e);
            }
        }
        if (text)
            fprintf(out, "  %-24s %-10s %-10s %12s %14s %14.9f %7.2f%%\n", "(all regions)", "",
                    "", "", "", total, total > 0 ? 100 * terr / total : 0);
        /* the run: the regions' time per rank plus the rest of each run's
         * length (time outside every region), modelled alike */
        double rest[MAX_RUNS];
        for (size_t k = 0; k < n; k++) {
            double in = 0;
            for (size_t i = 0; i < s.n; i++)
                in += s.r[i].excl[k] / p[k];
            rest[k] = len[k] - in;
        }
        int ml = choose(p, rest, n, &a, &b, &err);
        double pr = a + b * term(ml, np);
        if (pr < 0)
            pr = 0;
        if (keep) {
            keep->rest = pr;
            keep->rest_at = rest[tk];
            if (keep->n < s.n) {
                fprintf(stderr, "pal-view: --predict: out of memory\n");
                rc = -1;
            }
        }
        if (text) {
            fprintf(out, "Run length: predicted %.9f s (the regions per rank, and %.9f s outside "
                    "them: model %s, error %.2f%%)\n",
                    total + pr, pr, model_name[ml], 100 * err);
            fputs("models: y = a + b f(p), f one of c, log2(p), sqrt(p), p, p*log2(p), p^2, "
                  "1/p, chosen by the mean relative error of each run predicted from the "
                  "others; error: that error (calls + mean)\n",
                  out);
        } else if (csv) {
            fprintf(out, "total,,,,,,%.12g,%.6f\nlength,,%s,,,,%.12g,%.6f\noutside,,%s,,,,%.12g,%.6f\n",
                    total, total > 0 ? terr / total : 0, model_name[ml], total + pr, err,
                    model_name[ml], pr, err);
        } else {
            fprintf(out,
                    "],\n\"total\":{\"time_per_rank_s\":%.12g,\"error\":%.6f},"
                    "\"length\":{\"predicted\":%.12g,\"outside\":%.12g,\"outside_model\":\"%s\","
                    "\"outside_error\":%.6f}}\n",
                    total, total > 0 ? terr / total : 0, total + pr, pr, model_name[ml], err);
        }
    }
    for (size_t i = 0; i < s.n; i++)
        free(s.r[i].name);
    for (size_t i = 0; i < s.nl; i++)
        free(s.l[i].f);
    free(s.r);
    free(s.l);
    return rc;
}
