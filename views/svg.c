/* svg.c -- the picture views, each one complete SVG document with labelled
 * axes (round 1-2-5 ticks, units), row labels and a legend. Time is
 * aggregated into the filter's bins (or the timeline summary's buckets) and
 * consecutive equal pixels are merged, so the element count is bounded by
 * the picture size, not by the trace. Every string goes through
 * views/escape.c. */
#include <config.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "views/escape.h"
#include "views/timeline.h"
#include "views/vw.h"

static const char *const state_color[VW_NSTATES] = {"#2e9e44", "#e0b000", "#d03a2f"};
static const char *const state_name[VW_NSTATES] = {"busy", "overhead", "idle"};

#define PW 900  /* plot width */
#define X0 90   /* left margin: row labels */
#define WIDTH (X0 + PW + 30)
#define MAX_ARROWS 400   /* message arrows in the space-time picture: a sample that
                          * shows where messages go without hiding the rows */

/* the picture's header: its title, and what damage the trace had (in
 * red, under the title: every picture of a damaged trace says so) */
static void head(FILE *out, const vw_facts *f, int w, int h, const char *title)
{
    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                 "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                 "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"11\">\n"
                 "<title>",
            w, h, w, h);
    vw_xml_escape(out, title);
    fprintf(out, "</title>\n<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n"
                 "<text x=\"10\" y=\"16\" font-size=\"13\" font-weight=\"bold\">",
            w, h);
    vw_xml_escape(out, title);
    fputs("</text>\n", out);
    char note[1024], clip[1024];
    if (f && vw_damage_note(f, note, sizeof note)) {
        vw_utf8_clip(clip, sizeof clip, note, (size_t)(w - 20) / 5);
        fputs("<text class=\"damage\" x=\"10\" y=\"30\" font-size=\"10\" fill=\"#b0180e\">", out);
        vw_xml_escape(out, clip);
        fputs("<title>", out);
        vw_xml_escape(out, note);
        fputs("</title></text>\n", out);
    }
}

static int tail(FILE *out)
{
    fputs("</svg>\n", out);
    return ferror(out) ? -1 : 0;
}

/* number of bins that hold the run */
static size_t used_bins(const vw_facts *f)
{
    size_t n = f->bin_width > 0 ? (size_t)ceil(f->duration / f->bin_width) : 1;
    if (n < 1)
        n = 1;
    if (n > f->nbins)
        n = f->nbins;
    return n;
}

static void state_legend(FILE *out, int x, int y)
{
    for (int s = 0; s < VW_NSTATES; s++)
        fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>"
                     "<text x=\"%d\" y=\"%d\">%s</text>\n",
                x + s * 90, y, state_color[s], x + s * 90 + 14, y + 9, state_name[s]);
}

/* a round step (1, 2 or 5 times a power of ten) for about n ticks over span */
static double nice_step(double span, int n)
{
    if (!(span > 0))
        return 1;
    double raw = span / (n > 0 ? n : 1), p = pow(10, floor(log10(raw))), m = raw / p;
    return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

/* the time unit for a step: factor and name */
static double time_unit(double step, const char **name)
{
    if (step >= 1)
        return *name = "s", 1;
    if (step >= 1e-3)
        return *name = "ms", 1e3;
    if (step >= 1e-6)
        return *name = "\xC2\xB5s", 1e6;
    return *name = "ns", 1e9;
}

/* a numeric axis along x from x0 (value a) to x0+w (value b) at y, with
 * round ticks; labels scaled by factor, the last one kept inside */
static void x_axis(FILE *out, int x0, int y, int w, double a, double b, double step,
                   double factor, const char *title)
{
    fprintf(out, "<g class=\"axis\"><line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
                 "stroke=\"#444\"/>\n",
            x0, y, x0 + w, y);
    int dec = (int)fmax(0, -floor(log10(step * factor) + 1e-9));
    for (double v = ceil(a / step - 1e-9) * step; v <= b + step * 1e-9; v += step) {
        if (fabs(v) < step * 1e-6)
            v = 0;   /* no "-0" */
        double x = x0 + (b > a ? (v - a) / (b - a) : 0) * w;
        const char *anchor = x > x0 + w - 25 ? "end" : x < x0 + 10 ? "start" : "middle";
        fprintf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#444\"/>"
                     "<text x=\"%.1f\" y=\"%d\" text-anchor=\"%s\">%.*f</text>\n",
                x, y, x, y + 4, x, y + 15, anchor, dec, v * factor);
    }
    fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">", x0 + w / 2, y + 29);
    vw_xml_escape(out, title);
    fputs("</text></g>\n", out);
}

static void time_axis(FILE *out, int x0, int y, int w, double dur)
{
    double step = nice_step(dur, 8);
    const char *u;
    double k = time_unit(step, &u);
    char title[32];
    snprintf(title, sizeof title, "time (%s)", u);
    x_axis(out, x0, y, w, 0, dur > 0 ? dur : 1, step, k, title);
}

/* a row label at the left margin */
static void row_label(FILE *out, int y, const vw_lane *l, int many_threads)
{
    char buf[64], lab[96];
    if (many_threads)
        snprintf(buf, sizeof buf, "%u.%u %s", l->process, l->stream, l->name);
    else
        snprintf(buf, sizeof buf, "rank %u %s", l->process, l->name);
    vw_utf8_clip(lab, sizeof lab, buf, 14);
    fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">", X0 - 4, y);
    vw_xml_escape(out, lab);
    fputs("</text>\n", out);
}

static int many_threads(const vw_facts *f) { return f->nlanes > f->nranks; }

static void y_title(FILE *out, int x, int y, const char *t)
{
    fprintf(out, "<text transform=\"translate(%d %d) rotate(-90)\" text-anchor=\"middle\">", x,
            y);
    vw_xml_escape(out, t);
    fputs("</text>\n", out);
}

/* utilization over time: stacked areas of the share of threads in each state */
static int util_svg(const vw_facts *f, FILE *out)
{
    int top = 40, ph = 180, H = top + ph + 70;
    size_t n = used_bins(f);
    head(out, f, WIDTH, H, "Utilization over time");
    double lanes = f->nlanes ? (double)f->nlanes : 1;
    for (int s = VW_NSTATES - 1; s >= 0; s--) {
        /* stacked: states 0..s */
        fprintf(out, "<path class=\"util-%s\" fill=\"%s\" d=\"M%d %d", state_name[s],
                state_color[s], X0, top + ph);
        double prev_y = -1;
        for (size_t b = 0; b < n; b++) {
            double v = 0;
            for (int k = 0; k <= s; k++)
                v += f->util[b * VW_NSTATES + k];
            double share = v / (f->bin_width * lanes);
            if (share > 1)
                share = 1;
            double x1 = X0 + (double)PW * (double)b / (double)n;
            double y = floor((top + ph - share * ph) * 10 + 0.5) / 10;
            if (y != prev_y)
                fprintf(out, " L%.1f %.1f L%.1f %.1f", x1, prev_y < 0 ? (double)(top + ph) : prev_y,
                        x1, y);
            prev_y = y;
        }
        if (prev_y >= 0)
            fprintf(out, " L%d %.1f", X0 + PW, prev_y);
        fprintf(out, " L%d %d Z\"/>\n", X0 + PW, top + ph);
    }
    fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
                 "stroke=\"#444\"/>\n",
            X0, top, PW, ph);
    for (int p = 0; p <= 100; p += 25)
        fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%d %%</text>\n", X0 - 4,
                top + ph - p * ph / 100 + 4, p);
    y_title(out, 22, top + ph / 2, "share of threads");
    time_axis(out, X0, top + ph, PW, f->duration);
    state_legend(out, X0, H - 14);
    return tail(out);
}

/* accumulated utilization: one bar per thread */
static int util_total_svg(const vw_facts *f, FILE *out)
{
    size_t n = f->nlanes;
    int bh = n > 64 ? 4 : n > 16 ? 10 : 18;
    int top = 36, H = top + (int)n * bh + 60;
    head(out, f, WIDTH, H, "Utilization accumulated per thread");
    for (size_t i = 0; i < n; i++) {
        const vw_lane *l = &f->lanes[i];
        double tot = l->state[0] + l->state[1] + l->state[2];
        double x = X0;
        int y = top + (int)i * bh;
        for (int s = 0; s < VW_NSTATES; s++) {
            double w = tot > 0 ? PW * l->state[s] / tot : 0;
            if (w > 0)
                fprintf(out, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
                             "fill=\"%s\"><title>%s %.1f %%</title></rect>\n",
                        x, y, w, bh - 1, state_color[s], state_name[s], 100 * l->state[s] / tot);
            x += w;
        }
        if (bh >= 10)
            row_label(out, y + bh - 3, l, many_threads(f));
    }
    x_axis(out, X0, top + (int)n * bh + 2, PW, 0, 100, 10, 1, "share of the thread's time (%)");
    state_legend(out, X0, H - 14);
    return tail(out);
}

/* the legend of region colours, one line (or more) per colour family as in
 * the report: the family's name, then its regions that take most time
 * first, at most LEG_PER_FAM of them and how many more. out NULL: only
 * measures; returns the y below it. */
#define LEG_PER_FAM 12
static const char *const fam_name[VW_NFAM] = {
    "MPI waits (blocking)", "MPI collectives", "MPI communication",
    "other waits (OpenMP barriers, joins, locks)", "I/O", "user code",
    "set-up (process start and end)"};
static const vw_facts *by_total_f;
static int by_total(const void *a, const void *b)
{
    double x = by_total_f->regions[*(const size_t *)a].all.excl,
           y = by_total_f->regions[*(const size_t *)b].all.excl;
    if (x != y)
        return x < y ? 1 : -1;
    return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

static int region_legend(FILE *out, const vw_facts *f, const vw_timeline *tl, int y)
{
    size_t *idx = malloc((f->nregions + 1) * sizeof *idx), n = 0;
    if (idx == NULL)
        return y;
    for (size_t i = 0; i < f->nregions; i++)
        if (f->regions[i].all.calls)
            idx[n++] = i;
    by_total_f = f;
    qsort(idx, n, sizeof *idx, by_total);
    size_t per[VW_NFAM] = {0}, cap = 0;
    for (size_t k = 0; k < n; k++)
        per[vw_region_family(f, tl, idx[k])]++;
    for (int fam = 0; fam < VW_NFAM; fam++)
        if (per[fam] && strlen(fam_name[fam]) > cap)
            cap = strlen(fam_name[fam]);
    /* the items in a column after the longest caption shown (about 7 px a
     * bold character) */
    int x1 = 10 + (int)(7.0 * (double)cap) + 12;
    for (int fam = 0; fam < VW_NFAM; fam++) {
        size_t infam = per[fam], shown = 0;
        if (infam == 0)
            continue;
        if (out) {
            fprintf(out, "<text class=\"family\" x=\"%d\" y=\"%d\" font-weight=\"bold\">", 10,
                    y + 9);
            vw_xml_escape(out, fam_name[fam]);
            fputs("</text>\n", out);
        }
        int x = x1;
        for (size_t k = 0; k < n && shown < LEG_PER_FAM; k++) {
            if (vw_region_family(f, tl, idx[k]) != fam)
                continue;
            const vw_region *g = &f->regions[idx[k]];
            char col[8], lab[64];
            vw_region_color(f, tl, idx[k], col);
            vw_utf8_clip(lab, sizeof lab, g->name, 20);
            if (x + 140 > WIDTH) {
                x = x1;
                y += 15;
            }
            if (out) {
                fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>"
                             "<text x=\"%d\" y=\"%d\">",
                        x, y, col, x + 14, y + 9);
                vw_xml_escape(out, lab);
                fputs("</text>\n", out);
            }
            x += 140;
            shown++;
        }
        if (infam > shown) {
            if (x + 100 > WIDTH) {
                x = x1;
                y += 15;
            }
            if (out)
                fprintf(out, "<text x=\"%d\" y=\"%d\">(and %zu more)</text>\n", x, y + 9,
                        infam - shown);
        }
        y += 15;
    }
    free(idx);
    return y;
}

/* Call stacks as sub-rows (as the report's timeline) when there are at
 * most this many threads; more: one row per thread, its innermost region. */
#define NESTED_MAX_LANES 32

/* one row of 2-pixel columns from y, height h: each column coloured by the
 * region that holds most of it -- at call-stack level `level`, or the
 * innermost one (level < 0) -- consecutive equal columns merged; each box
 * has its region's name as its title, and as a label when it fits */
static void region_row(FILE *out, const vw_facts *f, const vw_timeline *tl, const vw_lane *l,
                       int level, int y, int h)
{
    int cols = PW / 2;
    double d = f->duration > 0 ? f->duration : 1;
    long prev = -2;
    int run = 0;
    for (int c = 0; c <= cols; c++) {
        long id = -1;
        if (c < cols) {
            double a = d * c / cols, b = d * (c + 1) / cols;
            id = level < 0 ? vw_timeline_dominant(tl, l->process, l->stream, a, b, NULL)
                           : vw_timeline_level_region(tl, l->process, l->stream,
                                                      (unsigned)level, a, b);
        }
        if (c < cols && id == prev)
            continue;
        if (prev >= 0) {
            double x1 = X0 + (double)PW * run / cols, x2 = X0 + (double)PW * c / cols;
            const char *name = f->regions[prev].name;
            char col[8];
            vw_region_color(f, tl, (size_t)prev, col);
            fprintf(out, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\">"
                         "<title>",
                    x1, y, x2 - x1, h - 1, col);
            vw_xml_escape(out, name);
            fputs("</title></rect>\n", out);
            if (x2 - x1 >= 40 && h >= 10) {   /* the name, cut with an ellipsis to fit */
                char lab[256];
                vw_utf8_clip(lab, sizeof lab, name, (size_t)((x2 - x1 - 6) / 5.6));
                fprintf(out, "<text class=\"label\" x=\"%.1f\" y=\"%d\" font-size=\"9\" "
                             "fill=\"white\">",
                        x1 + 3, y + h / 2 + 3);
                vw_xml_escape(out, lab);
                fputs("</text>\n", out);
            }
        }
        prev = id;
        run = c;
    }
}

/* the deepest call-stack level of a thread with a region at time x (where
 * a message leaves or arrives: the MPI call is the innermost frame), 0 for
 * none */
static unsigned level_at(const vw_timeline *tl, const vw_lane *l, unsigned nlev, double x,
                         double eps)
{
    for (unsigned k = nlev; k-- > 1;)
        if (vw_timeline_level_region(tl, l->process, l->stream, k, x, x + eps) >= 0)
            return k;
    return 0;
}

/* space-time diagram: a row per thread, its call stack as sub-rows (one per
 * depth, the region open there per pixel column; with many threads, or
 * without a timeline summary, one row of the innermost region or of the
 * states), with a uniform sample of message arrows */
static int timeline_svg(const vw_facts *f, FILE *out)
{
    const vw_timeline *tl = vw_timeline_current();
    size_t n = f->nlanes, nb = used_bins(f);
    int nested = tl && n <= NESTED_MAX_LANES;
    /* per lane: its sub-rows and its first sub-row's index */
    unsigned *nsub = malloc((n + 1) * sizeof *nsub);
    int *first = malloc((n + 1) * sizeof *first);
    if (nsub == NULL || first == NULL) {
        free(nsub);
        free(first);
        return -1;
    }
    int total = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned k = nested ? vw_timeline_levels(tl, f->lanes[i].process, f->lanes[i].stream) : 1;
        nsub[i] = k ? k : 1;
        first[i] = total;
        total += (int)nsub[i];
    }
    int rh = nested ? (total > 96 ? 7 : total > 48 ? 10 : 14)
                    : n > 128 ? 3 : n > 32 ? 6 : n > 8 ? 12 : 20;
    int top = 36, gap = nested ? 3 : 0;   /* a gap between threads' stacks */
    int rowsh = total * rh + (int)n * gap;
    int legh = tl ? region_legend(NULL, f, tl, 0) : 15;
    int H = top + rowsh + 50 + legh + 20;
    head(out, f, WIDTH, H, "Space-time diagram");
    fputs("<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" "
          "markerWidth=\"6\" markerHeight=\"6\" orient=\"auto\"><path d=\"M0 0 L10 5 L0 10 z\" "
          "fill=\"#1b4f9c\"/></marker></defs>\n",
          out);
    double d = f->duration > 0 ? f->duration : 1;
#define LANE_Y(i) (top + first[i] * rh + (int)(i) * gap)
    for (size_t i = 0; i < n; i++) {
        const vw_lane *l = &f->lanes[i];
        int y = LANE_Y(i);
        fprintf(out, "<g class=\"lane\" data-rank=\"%u\" data-thread=\"%u\" data-levels=\"%u\">\n",
                l->process, l->stream, nested ? nsub[i] : 0);
        if (nested) {
            for (unsigned k = 0; k < nsub[i]; k++) {
                fprintf(out, "<g class=\"level\" data-depth=\"%u\">\n", k);
                region_row(out, f, tl, l, (int)k, y + (int)k * rh, rh);
                fputs("</g>\n", out);
            }
        } else if (tl) {
            region_row(out, f, tl, l, -1, y, rh);
        } else {   /* no summary: the state that dominates each bin */
            long prev = -2;
            int run = 0, ncols = (int)nb;
            for (int c = 0; c <= ncols; c++) {
                long id = -1;
                if (c < ncols) {
                    const double *x = &l->bins[(size_t)c * VW_NSTATES];
                    if (x[0] + x[1] + x[2] > 0.05 * f->bin_width) {
                        id = 0;
                        for (int s = 1; s < VW_NSTATES; s++)
                            if (x[s] > x[id])
                                id = s;
                    }
                }
                if (c < ncols && id == prev)
                    continue;
                if (prev >= 0) {
                    double x1 = X0 + (double)PW * run / ncols, x2 = X0 + (double)PW * c / ncols;
                    fprintf(out, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
                                 "fill=\"%s\"/>\n",
                            x1, y, x2 - x1, rh - 1, state_color[prev]);
                }
                prev = id;
                run = c;
            }
        }
        if (rh >= 10)
            row_label(out, y + (rh < 14 ? rh - 2 : rh - 4), l, many_threads(f));
        fputs("</g>\n", out);
    }
    /* a uniform sample of the kept messages (doc/views.md), in send order,
     * from the sub-row of the call that sends to the one that receives */
    size_t *mi = malloc((f->nmsgs + 1) * sizeof *mi);
    size_t shown = mi ? vw_msg_sample(f, MAX_ARROWS, mi) : 0;
    if (shown)
        fputs("<g stroke=\"#1b4f9c\" stroke-width=\"0.6\" opacity=\"0.6\" "
              "marker-end=\"url(#arrow)\">\n", out);
    double eps = d / (PW / 2);
    for (size_t i = 0; i < shown; i++) {
        const vw_msg *m = &f->msgs[mi[i]];
        size_t a = m->src_lane, b = m->dst_lane;
        unsigned ka = nested ? level_at(tl, &f->lanes[a], nsub[a], m->t_send, eps) : 0;
        unsigned kb = nested ? level_at(tl, &f->lanes[b], nsub[b], m->t_recv - eps, eps) : 0;
        fprintf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>\n",
                X0 + PW * m->t_send / d, LANE_Y(a) + (int)ka * rh + rh / 2,
                X0 + PW * m->t_recv / d, LANE_Y(b) + (int)kb * rh + rh / 2);
    }
#undef LANE_Y
    free(mi);
    if (shown)
        fputs("</g>\n", out);
    int ly = top + rowsh + 2;
    time_axis(out, X0, ly, PW, f->duration);
    ly += 40;
    if (tl) {
        ly = region_legend(out, f, tl, ly);
    } else {
        state_legend(out, X0, ly);
        ly += 15;
    }
    if (shown && shown < f->matched)
        fprintf(out, "<text x=\"%d\" y=\"%d\">arrows: messages, send start to receive end "
                     "(a uniform sample of %zu of %llu matched)</text>\n",
                X0, ly + 9, shown, (unsigned long long)f->matched);
    else if (shown)
        fprintf(out, "<text x=\"%d\" y=\"%d\">arrows: all %zu messages, send start to "
                     "receive end</text>\n",
                X0, ly + 9, shown);
    free(nsub);
    free(first);
    return tail(out);
}

/* a node's counter deltas, ", NAME incl/excl" each (xml: names escaped) */
static void node_counters(const vw_facts *f, FILE *out, long node, int xml)
{
    for (size_t k = 0; k < f->ncounters; k++) {
        const vw_cstat *s = &f->node_counters[(size_t)node * f->ncounters + k];
        if (s->calls == 0)
            continue;
        fputs(xml ? "; " : " ", out);
        if (xml)
            vw_xml_escape(out, f->counter_names[k]);
        else
            vw_term_text(out, f->counter_names[k], 0);
        fprintf(out, xml ? " %.0f incl, %.0f excl" : "=%.0f/%.0f", s->incl, s->excl);
    }
}

/* call tree as an icicle: x = inclusive time, y = depth */
static void icicle(const vw_facts *f, FILE *out, long node, double x, int depth, double scale)
{
    int y = 40 + depth * 18;
    for (long c = f->nodes[node].first_child; c >= 0; c = f->nodes[c].next_sibling) {
        const vw_node *n = &f->nodes[c];
        double cw = n->incl * scale;
        if (cw >= 0.5 && depth < 40) {
            const vw_region *g = &f->regions[n->region];
            char col[8];
            vw_region_color(f, vw_timeline_current(), (size_t)n->region, col);
            fprintf(out, "<g><title>");
            vw_xml_escape(out, g->name);
            fprintf(out, ": %llu calls, %.6f s incl, %.6f s excl", (unsigned long long)n->calls,
                    n->incl, n->excl);
            node_counters(f, out, c, 1);
            fprintf(out, "</title><rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"17\" "
                         "fill=\"%s\" stroke=\"white\"/>",
                    x, y, cw, col);
            if (cw > 14) {   /* the name, cut with an ellipsis to fit */
                char lab[256];
                vw_utf8_clip(lab, sizeof lab, g->name, (size_t)((cw - 6) / 6.2));
                fprintf(out, "<text x=\"%.1f\" y=\"%d\" fill=\"white\">", x + 3, y + 12);
                vw_xml_escape(out, lab);
                fputs("</text>", out);
            }
            fputs("</g>\n", out);
            icicle(f, out, c, x, depth + 1, scale);
        }
        x += cw;
    }
}

static int depth_of(const vw_facts *f, long node, int d)
{
    int m = d;
    for (long c = f->nodes[node].first_child; c >= 0 && d < 40; c = f->nodes[c].next_sibling) {
        int k = depth_of(f, c, d + 1);
        if (k > m)
            m = k;
    }
    return m;
}

static int calltree_svg(const vw_facts *f, FILE *out)
{
    double total = 0;
    for (long c = f->nnodes ? f->nodes[0].first_child : -1; c >= 0; c = f->nodes[c].next_sibling)
        total += f->nodes[c].incl;
    int depth = f->nnodes ? depth_of(f, 0, 0) : 0;
    int H = 40 + depth * 18 + 50;
    head(out, f, WIDTH, H, "Call tree (width = inclusive time, merged over threads)");
    y_title(out, 22, 40 + depth * 9, "call depth");
    if (total > 0)
        icicle(f, out, 0, X0, 0, PW / total);
    double step = nice_step(total, 8);
    const char *u;
    double k = time_unit(step, &u);
    char title[48];
    snprintf(title, sizeof title, "inclusive time summed over threads (%s)", u);
    x_axis(out, X0, 40 + depth * 18 + 2, PW, 0, total > 0 ? total : 1, step, k, title);
    return tail(out);
}

static int calltree_text_node(const vw_facts *f, FILE *out, long node, int depth)
{
    for (long c = f->nodes[node].first_child; c >= 0; c = f->nodes[c].next_sibling) {
        const vw_node *n = &f->nodes[c];
        fprintf(out, "%*s", 2 * depth, "");
        vw_term_text(out, f->regions[n->region].name, 0);
        fprintf(out, "  calls=%llu incl=%.6f excl=%.6f", (unsigned long long)n->calls, n->incl,
                n->excl);
        node_counters(f, out, c, 0);   /* counter=incl/excl */
        fputc('\n', out);
        calltree_text_node(f, out, c, depth + 1);
    }
    return 0;
}

static int calltree_text(const vw_facts *f, FILE *out)
{
    fputs("Call tree (merged over threads)\n", out);
    return f->nnodes ? calltree_text_node(f, out, 0, 1) : 0;
}

static void heat(double k, char out[24])
{
    snprintf(out, 24, "rgb(255,%d,%d)", (int)(230 - 200 * k), (int)(200 - 180 * k));
}

/* communication matrix: heatmap of bytes (log scale), sender rows; without
 * point-to-point messages, the bytes each rank moved in collectives */
static int comm_svg(const vw_facts *f, FILE *out)
{
    size_t R = f->nranks;
    int cell = R > 128 ? 3 : R > 32 ? 6 : R > 16 ? 12 : 28;
    int side = (int)R * cell, top = 60, left = 90;
    int W = left + side + 150, H = top + side + 60;
    if (W < 520)
        W = 520;
    double mx = 0;
    for (size_t i = 0; i < R * R; i++)
        if (f->comm_bytes[i] > mx)
            mx = f->comm_bytes[i];
    if (!f->has_messages || (mx == 0 && R)) {
        /* collective traffic per rank */
        double *per = calloc(R ? R : 1, sizeof *per), cmax = 0;
        if (per == NULL)
            return -1;
        for (size_t i = 0; i < f->nlanes; i++)
            for (size_t g = 0; g < f->nregions; g++)
                if (f->regions[g].instances)
                    per[f->lanes[i].rank_index] += f->lanes[i].rstat[g].bytes;
        for (size_t i = 0; i < R; i++)
            if (per[i] > cmax)
                cmax = per[i];
        int bh = R > 64 ? 4 : R > 16 ? 10 : 18, h = top + (int)R * bh + 60;
        head(out, f, WIDTH, h, "Communication: no point-to-point messages; bytes in collectives "
                            "per rank");
        for (size_t i = 0; i < R && cmax > 0; i++) {
            double w = PW * per[i] / cmax;
            fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"#e08a2f\">"
                         "<title>rank %u: %.0f bytes in collectives</title></rect>\n",
                    X0, top + (int)i * bh, w, bh - 1, f->ranks[i], per[i]);
            if (bh >= 10)
                fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">rank %u</text>\n",
                        X0 - 4, top + (int)i * bh + bh - 3, f->ranks[i]);
        }
        if (cmax > 0) {
            double step = nice_step(cmax, 6);
            x_axis(out, X0, top + (int)R * bh + 2, PW, 0, cmax, step, 1, "bytes");
        } else {
            fprintf(out, "<text x=\"%d\" y=\"%d\">no messages and no collective bytes in this "
                         "trace</text>\n",
                    X0, top + 10);
        }
        free(per);
        return tail(out);
    }
    head(out, f, W, H, "Communication matrix (bytes, sender row)");
    fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#f4f4f4\" "
                 "stroke=\"#888\"/>\n",
            left, top, side, side);
    for (size_t a = 0; a < R; a++)
        for (size_t b = 0; b < R; b++) {
            uint64_t c = f->comm_count[a * R + b];
            if (c == 0)
                continue;
            double v = f->comm_bytes[a * R + b];
            char col[24];
            heat(mx > 1 ? log1p(v) / log1p(mx) : 1, col);
            fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"%s\">"
                         "<title>%u to %u: %llu messages, %.0f bytes</title></rect>\n",
                    left + (int)b * cell, top + (int)a * cell, cell, cell, col, f->ranks[a],
                    f->ranks[b], (unsigned long long)c, v);
            if (cell >= 28)
                fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" font-size=\"8\">"
                             "%llu</text>\n",
                        left + (int)b * cell + cell / 2, top + (int)a * cell + cell / 2 + 3,
                        (unsigned long long)c);
        }
    size_t every = cell >= 12 ? 1 : (size_t)(12 / cell + 1);
    for (size_t i = 0; i < R; i += every) {
        fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%u</text>\n", left - 4,
                top + (int)i * cell + cell / 2 + 4, f->ranks[i]);
        fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%u</text>\n",
                left + (int)i * cell + cell / 2, top - 4, f->ranks[i]);
    }
    fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">receiver rank</text>\n",
            left + side / 2, top - 18);
    y_title(out, 40, top + side / 2, "sender rank");
    /* colour scale */
    int sx = left + side + 20;
    fputs("<defs><linearGradient id=\"heat\" x1=\"0\" y1=\"1\" x2=\"0\" y2=\"0\">", out);
    for (int k = 0; k <= 4; k++) {
        char col[24];
        heat(k / 4.0, col);
        fprintf(out, "<stop offset=\"%d%%\" stop-color=\"%s\"/>", k * 25, col);
    }
    fputs("</linearGradient></defs>\n", out);
    fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"%d\" fill=\"url(#heat)\" "
                 "stroke=\"#888\"/>\n"
                 "<text x=\"%d\" y=\"%d\">%.0f B</text><text x=\"%d\" y=\"%d\">1 B</text>\n"
                 "<text x=\"%d\" y=\"%d\">bytes, log scale</text>\n",
            sx, top, side, sx + 18, top + 10, mx, sx + 18, top + side, sx, top + side + 16);
    fprintf(out, "<text x=\"%d\" y=\"%d\">%llu messages matched; counts in cells%s</text>\n",
            left, top + side + 34, (unsigned long long)f->matched,
            cell >= 28 ? "" : " are in the tooltips");
    return tail(out);
}

/* clock: the run's duration on a dial (one turn = the run) */
static int clock_svg(const vw_facts *f, FILE *out)
{
    head(out, f, 240, 250, "Clock");
    fputs("<circle cx=\"120\" cy=\"130\" r=\"90\" fill=\"none\" stroke=\"#333\" "
          "stroke-width=\"3\"/>\n", out);
    for (int k = 0; k < 12; k++) {
        double a = k * 3.14159265358979 / 6;
        fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>\n",
                120 + 80 * sin(a), 130 - 80 * cos(a), 120 + 90 * sin(a), 130 - 90 * cos(a));
    }
    fputs("<line id=\"hand\" x1=\"120\" y1=\"130\" x2=\"120\" y2=\"50\" stroke=\"#d03a2f\" "
          "stroke-width=\"3\"/>\n", out);
    fprintf(out, "<text x=\"120\" y=\"240\" text-anchor=\"middle\">one turn = the run, %.6f s"
                 "</text>\n",
            f->duration);
    return tail(out);
}

static int clock_text(const vw_facts *f, FILE *out)
{
    fprintf(out, "run time %.9f s over %zu threads of %zu ranks\n", f->duration, f->nlanes,
            f->nranks);
    return 0;
}

const vw_view vw_view_utilization = {VW_ABI_VERSION, "utilization",
                                     "share of threads busy/overhead/idle over time", NULL,
                                     util_svg};
const vw_view vw_view_util_total = {VW_ABI_VERSION, "utilization-total",
                                    "busy/overhead/idle accumulated per thread", NULL,
                                    util_total_svg};
const vw_view vw_view_timeline = {VW_ABI_VERSION, "timeline",
                                  "space-time diagram per rank and thread with messages", NULL,
                                  timeline_svg};
const vw_view vw_view_calltree = {VW_ABI_VERSION, "calltree",
                                  "call tree with inclusive/exclusive time and counts",
                                  calltree_text, calltree_svg};
const vw_view vw_view_comm = {VW_ABI_VERSION, "comm",
                              "communication matrix heatmap (bytes and counts)", NULL, comm_svg};
const vw_view vw_view_clock = {VW_ABI_VERSION, "clock", "the run's clock", clock_text,
                               clock_svg};
