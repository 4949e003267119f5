/* hotspots.c -- a third-party view for pal-view, in one C file against
 * views/view.h: the regions with the most exclusive time, as text and as an
 * SVG bar chart. Build it as a shared object and load it:
 *
 *   cc -shared -fPIC -I PREFIX/include -o hotspots.so hotspots.c
 *   pal-view --plugin ./hotspots.so --view hotspots trace.ecl
 */
#include <stdlib.h>
#include <string.h>

#include "views/view.h"

#define TOP 10

static const vw_facts *g_f;
static int by_excl(const void *a, const void *b)
{
    double x = g_f->regions[*(const size_t *)a].all.excl;
    double y = g_f->regions[*(const size_t *)b].all.excl;
    if (x != y)
        return x < y ? 1 : -1;
    return strcmp(g_f->regions[*(const size_t *)a].name, g_f->regions[*(const size_t *)b].name);
}

/* indexes of regions with calls, by exclusive time; caller frees */
static size_t *ranked(const vw_facts *f, size_t *n)
{
    size_t *idx = malloc((f->nregions + 1) * sizeof *idx);
    *n = 0;
    if (idx == NULL)
        return NULL;
    for (size_t i = 0; i < f->nregions; i++)
        if (f->regions[i].all.calls)
            idx[(*n)++] = i;
    g_f = f;
    qsort(idx, *n, sizeof *idx, by_excl);
    return idx;
}

static int hot_text(const vw_facts *f, FILE *out)
{
    size_t n;
    size_t *idx = ranked(f, &n);
    if (idx == NULL)
        return -1;
    fprintf(out, "Hotspots (exclusive time)\n");
    for (size_t i = 0; i < n && i < TOP; i++) {
        const vw_region *g = &f->regions[idx[i]];
        fprintf(out, "  %2zu. %-28s calls=%llu\n", i + 1, g->name,
                (unsigned long long)g->all.calls);
    }
    free(idx);
    return 0;
}

static int hot_svg(const vw_facts *f, FILE *out)
{
    size_t n;
    size_t *idx = ranked(f, &n);
    if (idx == NULL)
        return -1;
    size_t k = n < TOP ? n : TOP;
    double mx = k ? f->regions[idx[0]].all.excl : 0;
    fprintf(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                 "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"600\" height=\"%zu\" "
                 "font-family=\"sans-serif\" font-size=\"11\">\n"
                 "<text x=\"10\" y=\"16\" font-weight=\"bold\">Hotspots</text>\n",
            40 + k * 20);
    for (size_t i = 0; i < k; i++) {
        const vw_region *g = &f->regions[idx[i]];
        double w = mx > 0 ? 400 * g->all.excl / mx : 0;
        fprintf(out, "<rect x=\"180\" y=\"%zu\" width=\"%.1f\" height=\"16\" fill=\"#8a5bd0\"/>"
                     "<text x=\"175\" y=\"%zu\" text-anchor=\"end\">",
                28 + i * 20, w, 40 + i * 20);
        for (const char *s = g->name; *s; s++) {   /* XML-escape the region name */
            if (*s == '<') fputs("&lt;", out);
            else if (*s == '>') fputs("&gt;", out);
            else if (*s == '&') fputs("&amp;", out);
            else fputc(*s, out);
        }
        fputs("</text>\n", out);
    }
    fputs("</svg>\n", out);
    free(idx);
    return 0;
}

static const vw_view hotspots = {VW_ABI_VERSION, "hotspots",
                                 "regions with the most exclusive time (example plugin)",
                                 hot_text, hot_svg};
static const vw_view *const list[] = {&hotspots, NULL};

VW_PLUGIN_EXPORT const vw_view *const *vw_plugin_views(void);
VW_PLUGIN_EXPORT const vw_view *const *vw_plugin_views(void) { return list; }
