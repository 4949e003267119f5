/* html.c -- one self-contained HTML report (no network, no external script;
 * well-formed XML as well, so strict parsers read it): the interactive
 * timeline (drawn by views/report.js from the timeline summary of
 * views/timeline.c), the ParaGraph animator (play, pause, step, replay,
 * speed over trace time: utilization, space-time, communication, clock), the
 * SVG pictures inline and the profile as sortable tables and as text.
 * Data are embedded per time bucket (bounded), never per record. */
#include <config.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "views/escape.h"
#include "views/timeline.h"
#include "views/vw.h"
#include "views/waits.h"

extern const char vw_report_js[];   /* views/report.js, generated report-js.c */

static void inline_svg(const vw_view *v, const vw_facts *f, FILE *out)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    if (m == NULL)
        return;
    int rc = v->svg(f, m);
    fclose(m);
    if (rc == 0 && buf) {
        const char *s = strstr(buf, "<svg");
        fprintf(out, "<figure id=\"view-%s\">", v->name);
        fputs(s ? s : "", out);
        fputs("</figure>\n", out);
    }
    free(buf);
}

static void td_num(FILE *out, double v, const char *fmt)
{
    fprintf(out, "<td data-v=\"%.17g\">", v);
    fprintf(out, fmt, v);
    fputs("</td>", out);
}

/* the regions and MPI functions as one sortable table */
static void region_table(const vw_facts *f, FILE *out)
{
    double lane_time = 0;
    for (size_t i = 0; i < f->nlanes; i++)
        lane_time += f->lanes[i].last - f->lanes[i].first;
    fputs("<table class=\"sortable\" id=\"profile-table\"><thead><tr><th>name</th><th>kind</th>"
          "<th>calls</th><th>total s</th><th>excl s</th><th>mean s</th><th>max s</th>"
          "<th>share %</th><th>imbalance</th><th>bytes</th></tr></thead><tbody>\n",
          out);
    for (size_t i = 0; i < f->nregions; i++) {
        const vw_region *g = &f->regions[i];
        if (g->all.calls == 0)
            continue;
        fputs("<tr><td>", out);
        vw_xml_escape(out, g->name);
        fprintf(out, "</td><td>%s</td>", g->kind == VW_REGION_MPI      ? "MPI"
                                         : g->kind == VW_REGION_USER   ? "user"
                                         : g->kind == VW_REGION_DEVICE ? "GPU"
                                                                       : "set-up");
        td_num(out, (double)g->all.calls, "%.0f");
        td_num(out, g->all.total, "%.6f");
        td_num(out, g->all.excl, "%.6f");
        td_num(out, g->all.total / (double)g->all.calls, "%.9f");
        td_num(out, g->all.max, "%.9f");
        td_num(out, lane_time > 0 ? 100 * g->all.total / lane_time : 0, "%.2f");
        td_num(out, vw_rank_imbalance(f, i, NULL), "%.2f");
        td_num(out, g->all.bytes, "%.0f");
        fputs("</tr>\n", out);
    }
    fputs("</tbody></table>\n", out);
    if (f->ncounters == 0)
        return;
    /* counters per region: deltas between enter and leave */
    fputs("<table class=\"sortable\" id=\"counter-table\"><thead><tr><th>region</th>"
          "<th>counter</th><th>calls</th><th>inclusive</th><th>exclusive</th><th>per call</th>"
          "</tr></thead><tbody>\n",
          out);
    for (size_t i = 0; i < f->nregions; i++)
        for (size_t c = 0; c < f->ncounters; c++) {
            const vw_cstat *s = &f->region_counters[i * f->ncounters + c];
            if (s->calls == 0)
                continue;
            fputs("<tr><td>", out);
            vw_xml_escape(out, f->regions[i].name);
            fputs("</td><td>", out);
            vw_xml_escape(out, f->counter_names[c]);
            fputs("</td>", out);
            td_num(out, (double)s->calls, "%.0f");
            td_num(out, s->incl, "%.0f");
            td_num(out, s->excl, "%.0f");
            td_num(out, s->incl / (double)s->calls, "%.1f");
            fputs("</tr>\n", out);
        }
    fputs("</tbody></table>\n", out);
}

static void anim_json(const vw_facts *f, FILE *out, size_t nb)
{
    fprintf(out, "{\"duration\":%.9g,\"width\":%.9g,\"nbins\":%zu,\"util\":[", f->duration,
            f->bin_width, nb);
    for (size_t i = 0; i < nb * VW_NSTATES; i++)
        fprintf(out, "%s%.4g", i ? "," : "", f->util[i]);
    fputs("],\"ranks\":[", out);
    for (size_t i = 0; i < f->nranks; i++)
        fprintf(out, "%s%u", i ? "," : "", f->ranks[i]);
    fputs("],\"lanes\":[", out);
    for (size_t i = 0; i < f->nlanes; i++) {
        const vw_lane *l = &f->lanes[i];
        fprintf(out, "%s{\"p\":%u,\"t\":%u,\"r\":%zu,\"s\":\"", i ? "," : "", l->process,
                l->stream, l->rank_index);
        for (size_t b = 0; b < nb; b++) {
            const double *x = &l->bins[b * VW_NSTATES];
            int c = 3;
            if (x[0] + x[1] + x[2] > 0.05 * f->bin_width) {
                c = 0;
                for (int s = 1; s < VW_NSTATES; s++)
                    if (x[s] > x[c])
                        c = s;
            }
            fputc('0' + c, out);
        }
        fputs("\"}", out);
    }
    /* the animator draws the timeline's messages (tl.msgs) */
    fputs("]}", out);
}

/* the rank x function heat map's data: the regions that take most time
 * (columns, at most 40 and at most 65,536 cells), and per thread and
 * region its calls, inclusive and exclusive seconds -- the CSV's region
 * rows, printed as the CSV prints them */
static int by_total_desc(const void *a, const void *b, void *fp)
{
    const vw_facts *f = fp;
    double x = f->regions[*(const size_t *)a].all.total, y = f->regions[*(const size_t *)b].all.total;
    if (x != y)
        return x < y ? 1 : -1;
    return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

static void heat_json(const vw_facts *f, FILE *out)
{
    size_t *idx = malloc((f->nregions + 1) * sizeof *idx), n = 0;
    if (idx == NULL) {
        fputs("{\"cols\":[],\"v\":[]}", out);
        return;
    }
    for (size_t i = 0; i < f->nregions; i++)
        if (f->regions[i].all.calls)
            idx[n++] = i;
    qsort_r(idx, n, sizeof *idx, by_total_desc, (void *)f);
    size_t maxc = 65536 / (f->nlanes ? f->nlanes : 1);
    if (maxc > 40)
        maxc = 40;
    if (maxc < 1)
        maxc = 1;
    if (n > maxc)
        n = maxc;
    fputs("{\"cols\":[", out);
    for (size_t j = 0; j < n; j++)
        fprintf(out, "%s%zu", j ? "," : "", idx[j]);
    fputs("],\"v\":[", out);
    size_t items = 0;
    for (size_t i = 0; i < f->nlanes; i++)
        for (size_t j = 0; j < n; j++) {
            const vw_stat *st = &f->lanes[i].rstat[idx[j]];
            if (st->calls)
                fprintf(out, "%s[%zu,%zu,%llu,%.9f,%.9f]", items++ ? "," : "", i, j,
                        (unsigned long long)st->calls, st->total, st->excl);
        }
    fputs("]}", out);
    free(idx);
}

static const char style[] =
    "body{font-family:sans-serif;margin:16px;color:#222}canvas{border:1px solid #ccc;"
    "display:block;margin:4px 0 8px}figure{margin:8px 0}pre{background:#f6f6f6;padding:8px;"
    "overflow:auto}table{border-collapse:collapse;font-size:12px;margin:6px 0}"
    "td,th{border:1px solid #ddd;padding:2px 6px;text-align:right}td:first-child,"
    "th:first-child{text-align:left}th{background:#f0f0f0}th[data-dir=desc]::after{content:' \\25bc'}"
    "th[data-dir=asc]::after{content:' \\25b2'}.sw{display:inline-block;width:10px;height:10px;"
    "margin-right:4px;vertical-align:middle}.lg{margin-right:10px;white-space:nowrap;"
    "font-size:12px}#tl-legend div,#tl-legend details{margin:2px 0}#tl-legend{max-height:220px;"
    "overflow:auto}#tl-info{min-height:60px;background:#fafafa;"
    "border:1px solid #eee;padding:4px;font-size:12px}.hint{color:#777;font-size:12px}"
    "table.fields th{text-align:left}.damage{background:#fde8e6;border:1px solid #d03a2f;"
    "color:#8a1c12;padding:6px;font-weight:bold}";

int vw_html_report(const vw_facts *f, FILE *out)
{
    size_t nb = f->bin_width > 0 ? (size_t)ceil(f->duration / f->bin_width) : 1;
    if (nb < 1)
        nb = 1;
    if (nb > f->nbins)
        nb = f->nbins;
    vw_timeline *own = NULL;
    const vw_timeline *tl = vw_timeline_current();
    if (tl == NULL && (tl = own = vw_timeline_create()) == NULL)
        return -1;
    fputs("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"/>\n<title>pal-view: ", out);
    vw_xml_escape(out, f->trace);
    fprintf(out, "</title>\n<style>%s</style>\n</head><body data-cursor=\"0\">\n"
                 "<h1>pal-view report</h1>\n<p>",
            style);
    vw_xml_escape(out, f->trace);
    fprintf(out, " &#8212; %llu records, %zu ranks, %zu threads, %.6f s</p>\n",
            (unsigned long long)f->records, f->nranks, f->nlanes, f->duration);
    char note[1024];
    if (vw_damage_note(f, note, sizeof note)) {   /* before anything drawn from it */
        fputs("<p id=\"damage\" class=\"damage\">", out);
        vw_xml_escape(out, note);
        fputs("</p>\n", out);
    }
    fputs("<h2>Timeline</h2>\n<div><button id=\"tl-reset\">reset</button> <button id=\"tl-in\">"
          "zoom in</button> <button id=\"tl-out\">zoom out</button> <button id=\"tl-left\">"
          "&#9664;</button> <button id=\"tl-right\">&#9654;</button> <button id=\"tl-expand\">"
          "expand all</button> <button id=\"tl-collapse\">collapse all</button> <button "
          "id=\"tl-stacks\">call stacks</button> <input id=\"tl-search\" size=\"14\" "
          "placeholder=\"search a name\"/><button id=\"tl-prev\">&#9650;</button><button "
          "id=\"tl-next\">&#9660;</button> <span id=\"tl-found\" class=\"hint\"></span> "
          "<label><input type=\"checkbox\" "
          "id=\"tl-msgs\" checked=\"checked\"/>messages</label> <span id=\"tl-msgs-note\" "
          "class=\"hint\"></span> <span "
          "id=\"tl-range\"></span><br/><span id=\"tl-colls\"></span><br/><span class=\"hint\">"
          "wheel: zoom &#183; drag: select a window (zoom to it, its profile below) &#183; "
          "shift+wheel or left/right keys: pan &#183; hover or click: fields &#183; click a "
          "group&#8217;s label (&#9656;), or up/down and Enter: open or close it; e / c: expand "
          "or collapse all; click a thread&#8217;s label or &#8220;call stacks&#8221;: its call "
          "stack as a sub-row per depth, or one row</span></div>\n<canvas id=\"tl\" width=\"1100\" height=\"100\"></canvas>\n"
          "<div id=\"tl-legend\"></div>\n<div id=\"tl-info\">click a slice for its fields</div>\n"
          "<h3>Profile of the window</h3><div id=\"tl-profile\"></div>\n"
          "<h2>Imbalance: threads &#215; regions</h2>\n<div>colour: <select id=\"heat-metric\">"
          "<option value=\"3\">inclusive seconds</option><option value=\"4\">exclusive "
          "seconds</option><option value=\"2\">calls</option></select> <span class=\"hint\">"
          "each column scaled to its largest cell (white: 0); the regions with the most time; "
          "hover a cell for its values, click it to show that thread in the timeline</span></div>\n"
          "<canvas id=\"heatmap\" width=\"1100\" height=\"100\"></canvas>\n<div id=\"heat-info\" "
          "class=\"hint\">&#160;</div>\n",
          out);
    fputs("<h2>Animator</h2>\n<div id=\"animator\"><button id=\"play\">play</button> "
          "<button id=\"pause\">pause</button> <button id=\"step\">step</button> <button "
          "id=\"replay\">replay</button> speed <input id=\"speed\" type=\"range\" min=\"0.25\" "
          "max=\"8\" step=\"0.25\" value=\"1\"/> time <span id=\"time\">0</span></div>\n"
          "<h3>Utilization (share of threads busy, overhead, idle)</h3>"
          "<canvas id=\"util\" width=\"1100\" height=\"190\"></canvas>\n"
          "<h3>Space-time (states, messages received so far<span class=\"msg-sample\"></span>)</h3>",
          out);
    int th = (int)f->nlanes * (f->nlanes > 64 ? 3 : 14);
    fprintf(out, "<canvas id=\"stl\" width=\"1100\" height=\"%d\"></canvas>\n",
            (th < 20 ? 20 : th) + 32);
    fputs("<h3>Communication (bytes received so far<span class=\"msg-sample\"></span>)</h3>"
          "<canvas id=\"cm\" width=\"460\" height=\"400\"></canvas>\n",
          out);
    inline_svg(&vw_view_clock, f, out);
    /* the data and the script before the pictures and the profile, so the
     * timeline is drawn (and the page first painted) without waiting for
     * them to be parsed; the script finishes once the document is loaded */
    fputs("<script type=\"application/json\" id=\"data\">{\"anim\":", out);
    anim_json(f, out, nb);
    fputs(",\"heat\":", out);
    heat_json(f, out);
    fputs(",\"tl\":", out);
    int rc = vw_timeline_json(tl, f, out);
    vw_timeline_destroy(own);
    fputs("}</script>\n<script>/*<![CDATA[*/\n", out);
    fputs(vw_report_js, out);
    fputs("/*]]>*/</script>\n", out);
    fputs("<h2>Pictures</h2>\n", out);
    inline_svg(&vw_view_utilization, f, out);
    inline_svg(&vw_view_util_total, f, out);
    inline_svg(&vw_view_timeline, f, out);
    inline_svg(&vw_view_calltree, f, out);
    inline_svg(&vw_view_comm, f, out);
    fputs("<h2>Profile</h2>\n", out);
    region_table(f, out);
    fputs("<pre id=\"profile-text\">", out);
    {
        char *buf = NULL;
        size_t len = 0;
        FILE *m = open_memstream(&buf, &len);
        if (m) {
            vw_view_profile.text(f, m);
            fclose(m);
            if (buf)
                vw_xml_escape(out, buf);
            free(buf);
        }
    }
    fputs("</pre>\n", out);
    /* the wait states: a section of their own (views/waits.c), whose rows
     * report.js's wait-state block connects to the timeline */
    vw_waits_html(out);
    fputs("</body></html>\n", out);
    return rc || ferror(out) ? -1 : 0;
}
