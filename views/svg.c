/* svg.c -- the picture views, each one complete SVG document. Time is
 * aggregated into the filter's bins and consecutive equal pixels are merged,
 * so the element count is bounded by the picture size, not by the trace. */
#include <config.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "views/escape.h"
#include "views/vw.h"

static const char *const state_color[VW_NSTATES] = {"#2e9e44", "#e0b000", "#d03a2f"};
static const char *const state_name[VW_NSTATES] = {"busy", "overhead", "idle"};

static void head(FILE *out, int w, int h, const char *title)
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

static void legend(FILE *out, int x, int y)
{
    for (int s = 0; s < VW_NSTATES; s++)
        fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/>"
                     "<text x=\"%d\" y=\"%d\">%s</text>\n",
                x + s * 90, y, state_color[s], x + s * 90 + 14, y + 9, state_name[s]);
}

static void time_axis(FILE *out, int x0, int y, int w, double dur)
{
    fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#444\"/>\n", x0, y,
            x0 + w, y);
    for (int k = 0; k <= 4; k++)
        fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">%.4g s</text>\n",
                x0 + w * k / 4, y + 13, dur * k / 4);
}

#define PW 900  /* plot width */
#define X0 60

/* utilization over time: stacked areas of the share of threads in each state */
static int util_svg(const vw_facts *f, FILE *out)
{
    int H = 260, top = 40, ph = 180;
    size_t n = used_bins(f);
    head(out, X0 + PW + 20, H, "Utilization over time");
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
            /* one step per change of height, in whole tenths of a pixel */
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
    fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">100%%</text>"
                 "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">0%%</text>\n",
            X0 - 4, top + 8, X0 - 4, top + ph);
    time_axis(out, X0, top + ph, PW, f->duration);
    legend(out, X0, H - 24);
    return tail(out);
}

/* accumulated utilization: one bar per thread */
static int util_total_svg(const vw_facts *f, FILE *out)
{
    size_t n = f->nlanes;
    int bh = n > 64 ? 4 : n > 16 ? 10 : 18;
    int H = 60 + (int)n * bh + 30;
    head(out, X0 + PW + 20, H, "Utilization accumulated per thread");
    for (size_t i = 0; i < n; i++) {
        const vw_lane *l = &f->lanes[i];
        double tot = l->state[0] + l->state[1] + l->state[2];
        double x = X0;
        int y = 36 + (int)i * bh;
        for (int s = 0; s < VW_NSTATES; s++) {
            double w = tot > 0 ? PW * l->state[s] / tot : 0;
            if (w > 0)
                fprintf(out, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
                             "fill=\"%s\"/>\n",
                        x, y, w, bh - 1, state_color[s]);
            x += w;
        }
        if (bh >= 10)
            fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%u.%u</text>\n", X0 - 4,
                    y + bh - 3, l->process, l->stream);
    }
    legend(out, X0, H - 20);
    return tail(out);
}

/* space-time diagram: one row per thread, each pixel column coloured by the
 * state that dominates it, with a bounded sample of message arrows */
static int timeline_svg(const vw_facts *f, FILE *out)
{
    size_t n = f->nlanes, nb = used_bins(f);
    int rh = n > 128 ? 3 : n > 32 ? 6 : n > 8 ? 12 : 20;
    int top = 36, H = top + (int)n * rh + 50;
    head(out, X0 + PW + 20, H, "Space-time diagram");
    for (size_t i = 0; i < n; i++) {
        const vw_lane *l = &f->lanes[i];
        int y = top + (int)i * rh;
        int prev = -1;
        size_t run = 0;
        for (size_t b = 0; b <= nb; b++) {
            int c = -1;
            if (b < nb) {
                const double *x = &l->bins[b * VW_NSTATES];
                double tot = x[0] + x[1] + x[2];
                if (tot > 0.05 * f->bin_width) {
                    c = 0;
                    for (int s = 1; s < VW_NSTATES; s++)
                        if (x[s] > x[c])
                            c = s;
                }
            }
            if (b == nb || c != prev) {
                if (prev >= 0) {
                    double x1 = X0 + (double)PW * (double)run / (double)nb;
                    double x2 = X0 + (double)PW * (double)b / (double)nb;
                    fprintf(out, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
                                 "fill=\"%s\"/>\n",
                            x1, y, x2 - x1, rh - 1, state_color[prev]);
                }
                prev = c;
                run = b;
            }
        }
        if (rh >= 10)
            fprintf(out, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">%u.%u</text>\n", X0 - 4,
                    y + rh - 3, l->process, l->stream);
    }
    size_t shown = f->nmsgs < 1000 ? f->nmsgs : 1000;
    if (shown)
        fputs("<g stroke=\"#1b4f9c\" stroke-width=\"0.8\" opacity=\"0.7\">\n", out);
    for (size_t i = 0; i < shown; i++) {
        const vw_msg *m = &f->msgs[i];
        double d = f->duration > 0 ? f->duration : 1;
        fprintf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>\n",
                X0 + PW * m->t_send / d, top + (int)m->src_lane * rh + rh / 2,
                X0 + PW * m->t_recv / d, top + (int)m->dst_lane * rh + rh / 2);
    }
    if (shown)
        fputs("</g>\n", out);
    time_axis(out, X0, top + (int)n * rh + 2, PW, f->duration);
    legend(out, X0, H - 18);
    return tail(out);
}

/* call tree as an icicle: x = inclusive time, y = depth */
static void icicle(const vw_facts *f, FILE *out, long node, double x, double w, int depth,
                   double scale)
{
    int y = 36 + depth * 18;
    for (long c = f->nodes[node].first_child; c >= 0; c = f->nodes[c].next_sibling) {
        const vw_node *n = &f->nodes[c];
        double cw = n->incl * scale;
        if (cw >= 0.5 && depth < 40) {
            const vw_region *g = &f->regions[n->region];
            fprintf(out, "<g><title>");
            vw_xml_escape(out, g->name);
            fprintf(out, ": %llu calls, %.6f s incl, %.6f s excl</title>"
                         "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"17\" fill=\"%s\" "
                         "stroke=\"white\"/>",
                    (unsigned long long)n->calls, n->incl, n->excl, x, y, cw,
                    g->kind == VW_REGION_MPI ? "#e08a2f" : "#5b8bd0");
            if (cw > 60) {
                fprintf(out, "<text x=\"%.1f\" y=\"%d\" fill=\"white\">", x + 3, y + 12);
                vw_xml_escape(out, g->name);
                fputs("</text>", out);
            }
            fputs("</g>\n", out);
            icicle(f, out, c, x, cw, depth + 1, scale);
        }
        x += cw;
    }
    (void)w;
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
    head(out, X0 + PW + 20, 60 + depth * 18, "Call tree (width = inclusive time)");
    if (total > 0)
        icicle(f, out, 0, X0, PW, 0, PW / total);
    return tail(out);
}

static int calltree_text_node(const vw_facts *f, FILE *out, long node, int depth)
{
    for (long c = f->nodes[node].first_child; c >= 0; c = f->nodes[c].next_sibling) {
        const vw_node *n = &f->nodes[c];
        fprintf(out, "%*s%s  calls=%llu incl=%.6f excl=%.6f\n", 2 * depth, "",
                f->regions[n->region].name, (unsigned long long)n->calls, n->incl, n->excl);
        calltree_text_node(f, out, c, depth + 1);
    }
    return 0;
}

static int calltree_text(const vw_facts *f, FILE *out)
{
    fputs("Call tree (merged over threads)\n", out);
    return f->nnodes ? calltree_text_node(f, out, 0, 1) : 0;
}

/* communication matrix: heatmap of bytes, log scale */
static int comm_svg(const vw_facts *f, FILE *out)
{
    size_t R = f->nranks;
    int cell = R > 128 ? 3 : R > 32 ? 6 : R > 16 ? 10 : 28;
    int side = (int)R * cell;
    head(out, X0 + side + 40, 60 + side + 30, "Communication matrix (bytes, sender row)");
    double mx = 0;
    for (size_t i = 0; i < R * R; i++)
        if (f->comm_bytes[i] > mx)
            mx = f->comm_bytes[i];
    fprintf(out, "<rect x=\"%d\" y=\"40\" width=\"%d\" height=\"%d\" fill=\"#f4f4f4\" "
                 "stroke=\"#888\"/>\n",
            X0, side, side);
    for (size_t a = 0; a < R; a++)
        for (size_t b = 0; b < R; b++) {
            uint64_t c = f->comm_count[a * R + b];
            if (c == 0)
                continue;
            double v = f->comm_bytes[a * R + b];
            double k = mx > 1 ? log1p(v) / log1p(mx) : 1;
            int red = 255, g = (int)(230 - 200 * k), bl = (int)(200 - 180 * k);
            fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
                         "fill=\"rgb(%d,%d,%d)\"><title>%u to %u: %llu messages, %.0f bytes"
                         "</title></rect>\n",
                    X0 + (int)b * cell, 40 + (int)a * cell, cell, cell, red, g, bl, f->ranks[a],
                    f->ranks[b], (unsigned long long)c, v);
        }
    if (R == 0 || !f->has_messages)
        fprintf(out, "<text x=\"%d\" y=\"60\">no messages in this trace</text>\n", X0);
    return tail(out);
}

/* clock: the run's duration on a dial (one turn = the run) */
static int clock_svg(const vw_facts *f, FILE *out)
{
    head(out, 240, 250, "Clock");
    fputs("<circle cx=\"120\" cy=\"130\" r=\"90\" fill=\"none\" stroke=\"#333\" "
          "stroke-width=\"3\"/>\n", out);
    for (int k = 0; k < 12; k++) {
        double a = k * 3.14159265358979 / 6;
        fprintf(out, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333\"/>\n",
                120 + 80 * sin(a), 130 - 80 * cos(a), 120 + 90 * sin(a), 130 - 90 * cos(a));
    }
    fputs("<line id=\"hand\" x1=\"120\" y1=\"130\" x2=\"120\" y2=\"50\" stroke=\"#d03a2f\" "
          "stroke-width=\"3\"/>\n", out);
    fprintf(out, "<text x=\"120\" y=\"240\" text-anchor=\"middle\">%.6f s</text>\n", f->duration);
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
