/* registry.c -- views found by name, plugins from shared objects, and view
 * groups configured in the seed's Fig. 13 form:
 *     group: abstract_view: concrete_view
 * one per line ('#' starts a comment). */
#include <config.h>

#include <ctype.h>
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include "views/vw.h"

#define MAXVIEWS 64
static const vw_view *views[MAXVIEWS];
static size_t nviews;

void vw_registry_init(void)
{
    static const vw_view *const builtin[] = {&vw_view_profile,  &vw_view_utilization,
                                             &vw_view_util_total, &vw_view_timeline,
                                             &vw_view_calltree, &vw_view_comm,
                                             &vw_view_clock, &vw_view_suggest_filter};
    nviews = 0;
    for (size_t i = 0; i < sizeof builtin / sizeof builtin[0]; i++)
        vw_registry_add(builtin[i]);
}

int vw_registry_add(const vw_view *v)
{
    if (v == NULL || v->abi != VW_ABI_VERSION || v->name == NULL || nviews >= MAXVIEWS)
        return -1;
    for (size_t i = 0; i < nviews; i++)
        if (strcmp(views[i]->name, v->name) == 0) {
            views[i] = v;   /* a plugin may replace a built-in view */
            return 0;
        }
    views[nviews++] = v;
    return 0;
}

const vw_view *vw_registry_find(const char *name)
{
    for (size_t i = 0; i < nviews; i++)
        if (strcmp(views[i]->name, name) == 0)
            return views[i];
    return NULL;
}

size_t vw_registry_count(void) { return nviews; }
const vw_view *vw_registry_get(size_t i) { return i < nviews ? views[i] : NULL; }

int vw_plugin_load(const char *path, char *err, size_t errlen)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        snprintf(err, errlen, "%s", dlerror());
        return -1;
    }
    union { void *p; vw_plugin_fn fn; } u;
    u.p = dlsym(h, "vw_plugin_views");
    if (u.p == NULL) {
        snprintf(err, errlen, "%s: no vw_plugin_views", path);
        dlclose(h);
        return -1;
    }
    const vw_view *const *list = u.fn();
    int n = 0;
    for (; list && *list; list++, n++)
        if (vw_registry_add(*list)) {
            snprintf(err, errlen, "%s: view %d rejected (ABI %d, expected %d)", path, n,
                     (*list)->abi, VW_ABI_VERSION);
            return -1;   /* the handle stays open: views already added point into it */
        }
    if (n == 0) {
        snprintf(err, errlen, "%s: no views", path);
        return -1;
    }
    return 0;   /* never dlclose: the registry points into the object */
}

const char vw_default_config[] =
    "# pal-view view groups: group: abstract_view: concrete_view\n"
    "Performance: profile: profile\n"
    "Performance: call_tree: calltree\n"
    "Utilization: utilization_over_time: utilization\n"
    "Utilization: utilization_accumulated: utilization-total\n"
    "Communication: space_time: timeline\n"
    "Communication: comm_matrix: comm\n"
    "Animation: clock: clock\n";

static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *e = s + strlen(s);
    while (e > s && isspace((unsigned char)e[-1]))
        *--e = '\0';
    return s;
}

int vw_config_parse(const char *text, vw_config *c, char *err, size_t errlen)
{
    memset(c, 0, sizeof *c);
    size_t cap = 0, lineno = 0;
    const char *p = text;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        char line[512];
        lineno++;
        if (len >= sizeof line) {
            snprintf(err, errlen, "line %zu: too long", lineno);
            vw_config_free(c);
            return -1;
        }
        memcpy(line, p, len);
        line[len] = '\0';
        p += len + (nl ? 1 : 0);
        char *hash = strchr(line, '#');
        if (hash)
            *hash = '\0';
        char *s = trim(line);
        if (*s == '\0')
            continue;
        char *a = strchr(s, ':'), *b = a ? strchr(a + 1, ':') : NULL;
        if (a == NULL || b == NULL || strchr(b + 1, ':')) {
            snprintf(err, errlen, "line %zu: expected 'group: abstract_view: concrete_view'",
                     lineno);
            vw_config_free(c);
            return -1;
        }
        *a = *b = '\0';
        char *g = trim(s), *ab = trim(a + 1), *co = trim(b + 1);
        if (!*g || !*ab || !*co || strlen(g) >= 64 || strlen(ab) >= 64 || strlen(co) >= 64) {
            snprintf(err, errlen, "line %zu: empty or too long name", lineno);
            vw_config_free(c);
            return -1;
        }
        if (c->n == cap) {
            cap = cap ? cap * 2 : 16;
            vw_group_entry *e = realloc(c->e, cap * sizeof *e);
            if (e == NULL) {
                vw_config_free(c);
                snprintf(err, errlen, "out of memory");
                return -1;
            }
            c->e = e;
        }
        snprintf(c->e[c->n].group, 64, "%s", g);
        snprintf(c->e[c->n].abstract, 64, "%s", ab);
        snprintf(c->e[c->n].concrete, 64, "%s", co);
        c->n++;
    }
    return 0;
}

int vw_config_load(const char *path, vw_config *c, char *err, size_t errlen)
{
    FILE *f = fopen(path, "r");
    if (f == NULL) {
        snprintf(err, errlen, "%s: cannot open", path);
        return -1;
    }
    char *buf = NULL;
    size_t len = 0, cap = 0;
    char tmp[4096];
    size_t k;
    while ((k = fread(tmp, 1, sizeof tmp, f)) > 0) {
        if (len + k + 1 > cap) {
            cap = (len + k + 1) * 2;
            char *nb = realloc(buf, cap);
            if (nb == NULL) {
                free(buf);
                fclose(f);
                return -1;
            }
            buf = nb;
        }
        memcpy(buf + len, tmp, k);
        len += k;
    }
    fclose(f);
    if (buf == NULL)
        buf = calloc(1, 1);
    if (buf == NULL)
        return -1;
    buf[len] = '\0';
    int rc = vw_config_parse(buf, c, err, errlen);
    free(buf);
    return rc;
}

void vw_config_free(vw_config *c)
{
    free(c->e);
    c->e = NULL;
    c->n = 0;
}
