/* record.c -- Record access: typed getters by field name and by handle, and
 * text formatting of a field. Values were decoded into an array when the
 * record was read, so every getter is an array lookup plus a type check. */
#include <config.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pal/pal-internal.h"

uint64_t pal_value_as_u64(pal_value v, uint8_t tclass)
{
    switch (tclass) {
    case PAL_TC_UNSIGNED:
        return v.u;
    case PAL_TC_SIGNED:
        return v.i < 0 ? 0 : (uint64_t)v.i;
    case PAL_TC_FLOAT:
        /* 2^64 as a double; NaN fails both tests */
        return v.f >= 0 && v.f < 18446744073709551616.0 ? (uint64_t)v.f : 0;
    default:
        return 0;
    }
}

/* ---- conversions shared by every access path ---- */

static inline pal_status vconv_i64(pal_value v, uint8_t tc, int64_t *out)
{
    switch (tc) {
    case PAL_TC_SIGNED:
        *out = v.i;
        return PAL_OK;
    case PAL_TC_UNSIGNED:
        if (v.u > (uint64_t)INT64_MAX)
            return PAL_ERANGE;
        *out = (int64_t)v.u;
        return PAL_OK;
    default:
        return PAL_ETYPE;
    }
}

static inline pal_status vconv_u64(pal_value v, uint8_t tc, uint64_t *out)
{
    if (PAL_LIKELY(tc == PAL_TC_UNSIGNED)) {
        *out = v.u;
        return PAL_OK;
    }
    switch (tc) {
    case PAL_TC_SIGNED:
        if (v.i < 0)
            return PAL_ERANGE;
        *out = (uint64_t)v.i;
        return PAL_OK;
    default:
        return PAL_ETYPE;
    }
}

static inline pal_status vconv_f64(pal_value v, uint8_t tc, double *out)
{
    switch (tc) {
    case PAL_TC_FLOAT:
        *out = v.f;
        return PAL_OK;
    case PAL_TC_SIGNED:
        *out = (double)v.i;
        return PAL_OK;
    case PAL_TC_UNSIGNED:
        *out = (double)v.u;
        return PAL_OK;
    default:
        return PAL_ETYPE;
    }
}

static inline pal_status vconv_str(pal_value v, uint32_t len, uint8_t tc, const char **s,
                                   size_t *lenp)
{
    if (tc != PAL_TC_STRING)
        return PAL_ETYPE;
    *s = (const char *)v.s;
    if (lenp)
        *lenp = len;
    return PAL_OK;
}

/* An OPTIONAL field missing from an ascii line is no field of this record. */
#define ABSENT(rec, fi) PAL_UNLIKELY((rec)->lens[fi] == PAL_ABSENT)

static inline pal_status conv_i64(const pal_record *rec, size_t fi, uint8_t tc, int64_t *out)
{
    if (ABSENT(rec, fi))
        return PAL_ENOFIELD;
    return vconv_i64(rec->vals[fi], tc, out);
}

static inline pal_status conv_u64(const pal_record *rec, size_t fi, uint8_t tc, uint64_t *out)
{
    if (ABSENT(rec, fi))
        return PAL_ENOFIELD;
    return vconv_u64(rec->vals[fi], tc, out);
}

static inline pal_status conv_f64(const pal_record *rec, size_t fi, uint8_t tc, double *out)
{
    if (ABSENT(rec, fi))
        return PAL_ENOFIELD;
    return vconv_f64(rec->vals[fi], tc, out);
}

static inline pal_status conv_str(const pal_record *rec, size_t fi, uint8_t tc, const char **s,
                                  size_t *len)
{
    if (ABSENT(rec, fi))
        return PAL_ENOFIELD;
    return vconv_str(rec->vals[fi], rec->lens[fi], tc, s, len);
}

/* The array of field fi, or NULL (ETYPE: not an array). */
static inline const pal_arr *arr_of(const pal_record *rec, size_t fi)
{
    if (rec->desc->fields[fi].type != PAL_ARRAY || !rec->arrs)
        return NULL;
    return &rec->arrs[fi];
}

static inline pal_status conv_count(const pal_record *rec, size_t fi, uint8_t tc, size_t *out)
{
    (void)tc;
    const pal_arr *a = arr_of(rec, fi);
    if (!a)
        return PAL_ETYPE;
    *out = a->count;
    return PAL_OK;
}

static inline pal_status conv_ncomp(const pal_record *rec, size_t fi, uint8_t tc, size_t *out)
{
    (void)tc;
    const pal_arr *a = arr_of(rec, fi);
    if (!a)
        return PAL_ETYPE;
    *out = a->ncomp;
    return PAL_OK;
}

/* Item i, component j of array field fi: checks, then the value conversion. */
#define ITEM(rec, fi, i, j, conv, ...)                                          \
    do {                                                                        \
        const pal_arr *a_ = arr_of(rec, fi);                                    \
        if (!a_)                                                                \
            return PAL_ETYPE;                                                   \
        if ((i) >= a_->count || (j) >= a_->ncomp)                               \
            return PAL_ERANGE;                                                  \
        size_t k_ = (size_t)(i) * a_->ncomp + (j);                              \
        return conv(a_->v[k_], __VA_ARGS__);                                    \
    } while (0)

static inline pal_status item_i64(const pal_record *rec, size_t fi, uint8_t tc, size_t i,
                                  size_t j, int64_t *out)
{
    (void)tc;
    ITEM(rec, fi, i, j, vconv_i64, a_->tclass[j], out);
}

static inline pal_status item_u64(const pal_record *rec, size_t fi, uint8_t tc, size_t i,
                                  size_t j, uint64_t *out)
{
    (void)tc;
    ITEM(rec, fi, i, j, vconv_u64, a_->tclass[j], out);
}

static inline pal_status item_f64(const pal_record *rec, size_t fi, uint8_t tc, size_t i,
                                  size_t j, double *out)
{
    (void)tc;
    ITEM(rec, fi, i, j, vconv_f64, a_->tclass[j], out);
}

static inline pal_status item_str(const pal_record *rec, size_t fi, uint8_t tc, size_t i,
                                  size_t j, const char **out, size_t *len)
{
    (void)tc;
    ITEM(rec, fi, i, j, vconv_str, a_->len[k_], a_->tclass[j], out, len);
}

/* ---- by name ---- */

#define BY_NAME(conv, ...)                                                      \
    do {                                                                        \
        PAL_REQUIRE(rec && field && out, PAL_EINVAL);                           \
        long i_ = pal_field_lookup(rec->desc, field);                           \
        if (i_ < 0)                                                             \
            return PAL_ENOFIELD;                                                \
        return conv(rec, (size_t)i_, rec->desc->fields[i_].tclass, __VA_ARGS__); \
    } while (0)

pal_status pal_record_get_i64(const pal_record *rec, const char *field, int64_t *out)
{
    BY_NAME(conv_i64, out);
}

pal_status pal_record_get_u64(const pal_record *rec, const char *field, uint64_t *out)
{
    BY_NAME(conv_u64, out);
}

pal_status pal_record_get_f64(const pal_record *rec, const char *field, double *out)
{
    BY_NAME(conv_f64, out);
}

pal_status pal_record_get_str(const pal_record *rec, const char *field, const char **out,
                              size_t *len)
{
    BY_NAME(conv_str, out, len);
}

/* ---- by handle: slot table indexed by record descriptor ---- */

/* The field h names in rec's type (field -1: none). A role handle has no
 * slots: the record's descriptor knows its field of each role. */
PAL_INLINE struct pal_slot handle_slot(const pal_record *rec, const pal_handle *h)
{
    struct pal_slot s = {-1, 0};
    if (PAL_UNLIKELY(h->role != PAL_FROLE_NONE)) {
        int32_t fi = rec->desc->role_fi[h->role];
        if (fi >= 0) {
            s.field = fi;
            s.tclass = rec->desc->fields[fi].tclass;
        }
        return s;
    }
    size_t ri = rec->desc->index;
    if (PAL_LIKELY(ri < h->nslots))
        s = h->slots[ri];
    return s;
}

#define BY_HANDLE(conv, ...)                                                    \
    do {                                                                        \
        PAL_REQUIRE(rec && h && out, PAL_EINVAL);                               \
        struct pal_slot s_ = handle_slot(rec, h);                               \
        if (s_.field < 0)                                                       \
            return PAL_ENOFIELD;                                                \
        return conv(rec, (size_t)s_.field, s_.tclass, __VA_ARGS__);             \
    } while (0)

pal_status pal_record_i64(const pal_record *rec, const pal_handle *h, int64_t *out)
{
    BY_HANDLE(conv_i64, out);
}

static PAL_NOINLINE pal_status u64_slow(const pal_record *rec, const pal_handle *h,
                                         uint64_t *out)
{
    BY_HANDLE(conv_u64, out);
}

pal_status pal_record_u64(const pal_record *rec, const pal_handle *h, uint64_t *out)
{
    /* The usual case in a few instructions: an unsigned field. Everything
     * else, misuse (NULL) included, is the general path's. */
    if (PAL_LIKELY(rec != NULL) && PAL_LIKELY(h != NULL) && PAL_LIKELY(out != NULL)) {
        size_t ri = rec->desc->index;
        if (PAL_LIKELY(ri < h->nslots)) {
            int32_t fi = h->uslots[ri];
            if (PAL_LIKELY(fi >= 0)) {
                *out = rec->vals[fi].u;
                return PAL_OK;
            }
        }
    }
    return u64_slow(rec, h, out);
}

pal_status pal_record_f64(const pal_record *rec, const pal_handle *h, double *out)
{
    BY_HANDLE(conv_f64, out);
}

pal_status pal_record_str(const pal_record *rec, const pal_handle *h, const char **out,
                          size_t *len)
{
    BY_HANDLE(conv_str, out, len);
}

/* ---- arrays ---- */

pal_status pal_record_get_count(const pal_record *rec, const char *field, size_t *out)
{
    BY_NAME(conv_count, out);
}

pal_status pal_record_count(const pal_record *rec, const pal_handle *h, size_t *out)
{
    BY_HANDLE(conv_count, out);
}

pal_status pal_record_get_components(const pal_record *rec, const char *field, size_t *out)
{
    BY_NAME(conv_ncomp, out);
}

pal_status pal_record_get_item_i64(const pal_record *rec, const char *field, size_t item,
                                   size_t comp, int64_t *out)
{
    BY_NAME(item_i64, item, comp, out);
}

pal_status pal_record_get_item_u64(const pal_record *rec, const char *field, size_t item,
                                   size_t comp, uint64_t *out)
{
    BY_NAME(item_u64, item, comp, out);
}

pal_status pal_record_get_item_f64(const pal_record *rec, const char *field, size_t item,
                                   size_t comp, double *out)
{
    BY_NAME(item_f64, item, comp, out);
}

pal_status pal_record_get_item_str(const pal_record *rec, const char *field, size_t item,
                                   size_t comp, const char **out, size_t *len)
{
    BY_NAME(item_str, item, comp, out, len);
}

pal_status pal_record_item_i64(const pal_record *rec, const pal_handle *h, size_t item,
                               size_t comp, int64_t *out)
{
    BY_HANDLE(item_i64, item, comp, out);
}

pal_status pal_record_item_u64(const pal_record *rec, const pal_handle *h, size_t item,
                               size_t comp, uint64_t *out)
{
    BY_HANDLE(item_u64, item, comp, out);
}

pal_status pal_record_item_f64(const pal_record *rec, const pal_handle *h, size_t item,
                               size_t comp, double *out)
{
    BY_HANDLE(item_f64, item, comp, out);
}

pal_status pal_record_item_str(const pal_record *rec, const pal_handle *h, size_t item,
                               size_t comp, const char **out, size_t *len)
{
    BY_HANDLE(item_str, item, comp, out, len);
}

pal_type pal_record_item_type(const pal_record *rec, size_t field, size_t comp)
{
    PAL_REQUIRE(rec, (pal_type)0);
    if (field >= rec->desc->nfields)
        return (pal_type)0;
    const pal_arr *a = arr_of(rec, field);
    if (!a || comp >= a->ncomp || !a->types)
        return (pal_type)0;
    return a->types[comp];
}

int pal_record_present(const pal_record *rec, size_t field)
{
    PAL_REQUIRE(rec, 0);
    return field < rec->desc->nfields && rec->lens[field] != PAL_ABSENT;
}

uint64_t pal_record_line(const pal_record *rec)
{
    PAL_REQUIRE(rec, 0);
    return rec->line;
}

int64_t pal_record_time_ns(const pal_record *rec)
{
    PAL_REQUIRE(rec, 0);
    const pal_dict *d = rec->desc->dict;
    if (!d->binary)
        return rec->time_ns;
    if (rec->desc->time_fi < 0)
        return 0;
    if (d->ns_per_tick == 1)
        return rec->time > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)rec->time;
    double x = (double)rec->time * d->ns_per_tick;
    return x < 9.2e18 ? (int64_t)(x + 0.5) : INT64_MAX;
}

/* ---- meaning ---- */

int pal_record_has_role(const pal_record *rec, pal_record_role role)
{
    PAL_REQUIRE(rec, 0);
    const pal_recdesc *d = rec->desc;
    if (role <= PAL_ROLE_NONE || role >= PAL_ROLE_LIMIT)
        return 0;
    uint64_t bit = UINT64_C(1) << role;
    if (PAL_LIKELY(d->roles & bit))
        return 1;
    if (!(d->roles_when & bit))
        return 0;
    for (size_t i = 0; i < d->nconds; i++) {
        const struct pal_rcond *c = &d->conds[i];
        if (c->role != role || c->field < 0 || rec->lens[c->field] == PAL_ABSENT)
            continue;
        pal_value v = rec->vals[c->field];
        if (d->fields[c->field].tclass == PAL_TC_STRING
                ? rec->lens[c->field] == c->len && memcmp(v.s, c->text, c->len) == 0
                : v.u == c->value)
            return 1;
    }
    return 0;
}

pal_status pal_record_duration_ns(const pal_record *rec, int64_t *ns)
{
    PAL_REQUIRE(rec && ns, PAL_EINVAL);
    const pal_recdesc *r = rec->desc;
    int32_t fi = r->role_fi[PAL_FROLE_DURATION];
    double v;
    if (fi < 0 || conv_f64(rec, (size_t)fi, r->fields[fi].tclass, &v) != PAL_OK)
        return PAL_ENOFIELD;
    /* binary: the reader's rate for the time field; ascii: times are in ns,
     * durations in the time field's unit ("ticks" taken as ns) */
    const pal_dict *d = r->dict;
    double per = d->binary ? d->ns_per_tick : d->unit_ns ? d->unit_ns : 1;
    double x = v * per;
    if (!(x > -9.2e18 && x < 9.2e18))
        return PAL_ERANGE;
    *ns = (int64_t)(x < 0 ? x - 0.5 : x + 0.5);
    return PAL_OK;
}

/* ---- designated fields ---- */

const pal_recdesc *pal_record_desc(const pal_record *rec)
{
    PAL_REQUIRE(rec, NULL);
    return rec->desc;
}

uint64_t pal_record_time(const pal_record *rec)
{
    PAL_REQUIRE(rec, 0);
    /* (rec->time of a record without a time field is the running time of
     * its stream: what it is ordered by) */
    return rec->desc->time_fi >= 0 ? rec->time : 0;
}

uint32_t pal_record_process(const pal_record *rec)
{
    PAL_REQUIRE(rec, 0);
    return rec->process;
}

uint32_t pal_record_stream(const pal_record *rec)
{
    PAL_REQUIRE(rec, 0);
    return rec->stream;
}

uint64_t pal_record_offset(const pal_record *rec)
{
    PAL_REQUIRE(rec, 0);
    return rec->offset;
}

/* Shortest text that reads back as the same value, so that dumps are exact
 * and still readable ("0.1", not "0.10000000000000001"). */
static size_t format_float(double v, int is32, char *buf, size_t size)
{
    char tmp[64];
    int n = 0;
    for (int prec = is32 ? 6 : 15; prec <= (is32 ? 9 : 17); prec++) {
        n = snprintf(tmp, sizeof tmp, "%.*g", prec, v);
        if (v != v || (is32 ? (double)strtof(tmp, NULL) == v : strtod(tmp, NULL) == v))
            break;
    }
    if (size) {
        size_t c = (size_t)n < size - 1 ? (size_t)n : size - 1;
        memcpy(buf, tmp, c);
        buf[c] = '\0';
    }
    return (size_t)n;
}

/* One scalar value as text into buf (size may be 0); the length it needs. */
static size_t format_value(pal_value v, uint32_t len, uint8_t tc, pal_type t, char *buf,
                           size_t size)
{
    switch (tc) {
    case PAL_TC_SIGNED:
        return (size_t)snprintf(buf, size, "%" PRId64, v.i);
    case PAL_TC_UNSIGNED:
        return (size_t)snprintf(buf, size, "%" PRIu64, v.u);
    case PAL_TC_FLOAT:
        return format_float(v.f, t == PAL_FLOAT32, buf, size);
    default:
        if (size) {
            size_t c = len < size - 1 ? len : size - 1;
            if (c)
                memcpy(buf, v.s, c);
            buf[c] = '\0';
        }
        return len;
    }
}

/* "[1,2,3]", or with items of several components "[(1,0.5),(2,1.5)]". */
static size_t format_array(const pal_record *rec, size_t fi, char *buf, size_t size)
{
    const pal_arr *a = rec->arrs ? &rec->arrs[fi] : NULL;
    size_t n = 0;
#define PUT(ch)                                                                 \
    do {                                                                        \
        if (n + 1 < size)                                                       \
            buf[n] = (ch);                                                      \
        n++;                                                                    \
    } while (0)
    PUT('[');
    for (uint32_t i = 0; a && i < a->count; i++) {
        if (i)
            PUT(',');
        if (a->ncomp > 1)
            PUT('(');
        for (uint32_t j = 0; j < a->ncomp; j++) {
            if (j)
                PUT(',');
            size_t k = (size_t)i * a->ncomp + j;
            if (a->tclass[j] == PAL_TC_STRING) {
                /* strings quoted, \" and \\ escaped, so that items stay apart */
                PUT('"');
                for (uint32_t c = 0; c < a->len[k]; c++) {
                    char ch = (char)a->v[k].s[c];
                    if (ch == '"' || ch == '\\')
                        PUT('\\');
                    PUT(ch);
                }
                PUT('"');
                continue;
            }
            char *at = n < size ? buf + n : NULL;
            n += format_value(a->v[k], a->len[k], a->tclass[j], a->types[j], at,
                              at ? size - n : 0);
        }
        if (a->ncomp > 1)
            PUT(')');
    }
    PUT(']');
#undef PUT
    if (size)
        buf[n < size ? n : size - 1] = '\0';
    return n;
}

size_t pal_record_format(const pal_record *rec, size_t i, char *buf, size_t size)
{
    PAL_REQUIRE(rec && (buf || !size), 0);
    if (i >= rec->desc->nfields) {
        if (size)
            buf[0] = '\0';
        return 0;
    }
    const pal_fielddesc *f = &rec->desc->fields[i];
    if (rec->lens[i] == PAL_ABSENT) {
        if (size)
            buf[0] = '\0';
        return 0;
    }
    if (f->type == PAL_ARRAY)
        return format_array(rec, i, buf, size);
    pal_value v = rec->vals[i];
    switch (f->tclass) {
    case PAL_TC_SIGNED:
        return (size_t)snprintf(buf, size, "%" PRId64, v.i);
    case PAL_TC_UNSIGNED:
        return (size_t)snprintf(buf, size, "%" PRIu64, v.u);
    case PAL_TC_FLOAT:
        return format_float(v.f, f->type == PAL_FLOAT32, buf, size);
    default: {
        size_t n = rec->lens[i];
        if (size) {
            size_t c = n < size - 1 ? n : size - 1;
            if (c)
                memcpy(buf, v.s, c);
            buf[c] = '\0';
        }
        return n;
    }
    }
}
