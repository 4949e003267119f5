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

/* ---- conversions shared by both access paths ---- */

static inline pal_status conv_i64(const pal_record *rec, size_t fi, uint8_t tc, int64_t *out)
{
    pal_value v = rec->vals[fi];
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

static inline pal_status conv_u64(const pal_record *rec, size_t fi, uint8_t tc, uint64_t *out)
{
    pal_value v = rec->vals[fi];
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

static inline pal_status conv_f64(const pal_record *rec, size_t fi, uint8_t tc, double *out)
{
    pal_value v = rec->vals[fi];
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

static inline pal_status conv_str(const pal_record *rec, size_t fi, uint8_t tc, const char **s,
                                  size_t *len)
{
    if (tc != PAL_TC_STRING)
        return PAL_ETYPE;
    *s = (const char *)rec->vals[fi].s;
    if (len)
        *len = rec->lens[fi];
    return PAL_OK;
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

#define BY_HANDLE(conv, ...)                                                    \
    do {                                                                        \
        PAL_REQUIRE(rec && h && out, PAL_EINVAL);                               \
        size_t ri_ = rec->desc->index;                                          \
        if (PAL_UNLIKELY(ri_ >= h->nslots))                                     \
            return PAL_ENOFIELD;                                                \
        struct pal_slot s_ = h->slots[ri_];                                     \
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

/* ---- roles ---- */

const pal_recdesc *pal_record_desc(const pal_record *rec)
{
    PAL_REQUIRE(rec, NULL);
    return rec->desc;
}

uint64_t pal_record_time(const pal_record *rec)
{
    PAL_REQUIRE(rec, 0);
    return rec->time;
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

size_t pal_record_format(const pal_record *rec, size_t i, char *buf, size_t size)
{
    PAL_REQUIRE(rec && (buf || !size), 0);
    if (i >= rec->desc->nfields) {
        if (size)
            buf[0] = '\0';
        return 0;
    }
    const pal_fielddesc *f = &rec->desc->fields[i];
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
