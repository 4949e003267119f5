/* records.c -- counter samples and markers through roles (records.h). */
#include <config.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "views/records.h"

typedef struct rtype {     /* what a record type means, found once */
    int known, counter, marker, has_id;
    const char *value, *text, *id;   /* field names */
    const char *defname, *defunit;   /* a definition's fields of roles name and unit */
    const char *vunit;               /* the value field's unit */
    size_t id_field;
} rtype;

#define MAX_UNITS 256
struct vw_records {
    pal_names *names;
    char *uname[MAX_UNITS], *unit[MAX_UNITS];   /* units the definitions give, by name */
    size_t nunits;
    rtype *rt;
    size_t nrt;
    char idname[48];
};

vw_records *vw_records_create(void)
{
    vw_records *r = calloc(1, sizeof *r);
    if (r == NULL || pal_names_create(&r->names) != PAL_OK) {
        free(r);
        return NULL;
    }
    return r;
}

void vw_records_destroy(vw_records *r)
{
    if (r == NULL)
        return;
    pal_names_destroy(r->names);
    for (size_t i = 0; i < r->nunits; i++) {
        free(r->uname[i]);
        free(r->unit[i]);
    }
    free(r->rt);
    free(r);
}

static const rtype *rtype_of(vw_records *r, const pal_recdesc *d)
{
    size_t i = pal_recdesc_index(d);
    if (i >= r->nrt) {
        size_t n = r->nrt ? r->nrt : 32;
        while (n <= i)
            n *= 2;
        rtype *t = realloc(r->rt, n * sizeof *t);
        if (t == NULL)
            return NULL;
        memset(t + r->nrt, 0, (n - r->nrt) * sizeof *t);
        r->rt = t;
        r->nrt = n;
    }
    rtype *t = &r->rt[i];
    if (!t->known) {
        t->known = 1;
        const pal_fielddesc *v = pal_recdesc_role_field(d, PAL_FROLE_VALUE);
        const pal_fielddesc *x = pal_recdesc_role_field(d, PAL_FROLE_TEXT);
        const pal_fielddesc *id = pal_recdesc_role_field(d, PAL_FROLE_COUNTER);
        t->counter = pal_recdesc_has_role(d, PAL_ROLE_COUNTER) && v != NULL;
        t->marker = pal_recdesc_has_role(d, PAL_ROLE_MARKER) != 0;
        t->value = v ? pal_field_name(v) : NULL;
        t->text = x ? pal_field_name(x) : NULL;
        t->has_id = id != NULL;
        t->id = id ? pal_field_name(id) : NULL;
        t->id_field = id ? pal_field_index(id) : 0;
        t->vunit = v ? pal_field_unit(v) : "";
        const pal_fielddesc *dn = pal_recdesc_role_field(d, PAL_FROLE_NAME);
        const pal_fielddesc *du = pal_recdesc_role_field(d, PAL_FROLE_UNIT);
        if (pal_recdesc_has_role(d, PAL_ROLE_DEFINITION) && dn && du) {
            t->defname = pal_field_name(dn);
            t->defunit = pal_field_name(du);
        }
    }
    return t;
}

/* a definition with a name and a unit (a counter's): remembered by name */
static void remember_unit(vw_records *r, const rtype *t, const pal_record *rec)
{
    const char *n, *u;
    size_t nl, ul;
    if (pal_record_get_str(rec, t->defname, &n, &nl) != PAL_OK ||
        pal_record_get_str(rec, t->defunit, &u, &ul) != PAL_OK || ul == 0)
        return;
    for (size_t i = 0; i < r->nunits; i++)
        if (strlen(r->uname[i]) == nl && memcmp(r->uname[i], n, nl) == 0)
            return;
    if (r->nunits == MAX_UNITS)
        return;
    char *a = strndup(n, nl), *b = strndup(u, ul);
    if (a == NULL || b == NULL) {
        free(a);
        free(b);
        return;
    }
    r->uname[r->nunits] = a;
    r->unit[r->nunits++] = b;
}

static const char *unit_of(const vw_records *r, const rtype *t, const char *name, size_t len)
{
    for (size_t i = 0; i < r->nunits; i++)
        if (strlen(r->uname[i]) == len && memcmp(r->uname[i], name, len) == 0)
            return r->unit[i];
    return t->vunit ? t->vunit : "";
}

void vw_records_feed(vw_records *r, const pal_record *rec, vw_rec_meaning *m)
{
    memset(m, 0, sizeof *m);
    m->unit = "";
    pal_names_add(r->names, rec);
    const rtype *t = rtype_of(r, pal_record_desc(rec));
    if (t == NULL)
        return;
    if (t->defname)
        remember_unit(r, t, rec);
    if (t->counter && pal_record_has_role(rec, PAL_ROLE_COUNTER)) {
        if (pal_record_get_f64(rec, t->value, &m->value) != PAL_OK || !isfinite(m->value))
            return;   /* no usable value: not drawn, not exported */
        if (!t->has_id ||
            pal_names_field(r->names, rec, t->id_field, &m->name, &m->len) != PAL_OK) {
            int64_t id = -1;
            if (t->has_id)
                pal_record_get_i64(rec, t->id, &id);
            m->len = (size_t)snprintf(r->idname, sizeof r->idname, "counter#%lld",
                                      (long long)id);
            m->name = r->idname;
        }
        m->what = VW_REC_COUNTER;
        m->unit = unit_of(r, t, m->name, m->len);
    } else if (t->marker && pal_record_has_role(rec, PAL_ROLE_MARKER)) {
        m->name = "marker";
        m->len = 6;
        if (t->text)
            pal_record_get_str(rec, t->text, &m->name, &m->len);
        m->what = VW_REC_MARKER;
    }
}
