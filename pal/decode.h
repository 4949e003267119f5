/* decode.h -- PAL's record decoder: LEB128 and fixed-width primitives and the
 * op-list interpreter that turns the bytes of one binary record into a values
 * array. Header-only so that the reader's hot loop inlines it (and so that the
 * unit tests can reach the primitives without exporting them).
 *
 * LEB128 is the container codec's (container/container.h), whose result
 * codes are PAL_DEC_*.
 *
 * Decoding verifies bounds, LEB length and value ranges and reports the first
 * problem. The reader decodes every record this way, in one pass (its kernels
 * in reader.c do the common layouts, and send anything unusual here). */
#ifndef PAL_DECODE_H
#define PAL_DECODE_H

#include <string.h>

#include "container/container.h"
#include "pal/pal-internal.h"

enum {
    PAL_DEC_OK = ECC_LEB_OK,
    PAL_DEC_SHORT = ECC_LEB_SHORT,  /* the record runs past the end of the bytes */
    PAL_DEC_BAD = ECC_LEB_BAD       /* a value is invalid: LEB over 64 bits, out of range, unknown key */
};

/* Where and why a decode failed. */
typedef struct pal_decerr {
    int code;
    const char *why;            /* static text */
    long field;                 /* field index, -1 if not about one field */
    const pal_recdesc *rec;     /* NULL while the record is not known yet */
} pal_decerr;

/* ---- primitives ---- */

PAL_INLINE uint64_t pal_load_le(const unsigned char *p, unsigned w)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < w; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

PAL_INLINE uint64_t pal_load_be(const unsigned char *p, unsigned w)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < w; i++)
        v = (v << 8) | p[i];
    return v;
}

PAL_INLINE double pal_f32_bits(uint64_t bits)
{
    uint32_t b = (uint32_t)bits;
    float f;
    memcpy(&f, &b, sizeof f);
    return (double)f;
}

PAL_INLINE double pal_f64_bits(uint64_t bits)
{
    double f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

/* ---- op interpreter ---- */

#define PAL_DEC_FAIL(c, w)                                                      \
    do {                                                                        \
        if (err) {                                                              \
            err->code = (c);                                                    \
            err->why = (w);                                                     \
            err->field = (long)op->slot;                                        \
        }                                                                       \
        return (c);                                                             \
    } while (0)

#define PAL_DEC_NEED(n)                                                         \
    do {                                                                        \
        if (PAL_UNLIKELY((size_t)(end - p) < (size_t)(n)))                     \
            PAL_DEC_FAIL(PAL_DEC_SHORT, "record runs past the end of the data"); \
    } while (0)

#define PAL_DEC_FIXED(w, load, expr)                                            \
    do {                                                                        \
        PAL_DEC_NEED(w);                                                        \
        uint64_t x_ = load(p, w);                                               \
        p += (w);                                                               \
        expr;                                                                   \
    } while (0)

PAL_INLINE int pal_run_ops(const pal_op *op, const pal_op *oend, const unsigned char **pp,
                           const unsigned char *end, uint64_t *tsum, pal_value *vals,
                           uint32_t *lens, pal_decerr *err)
{
    const unsigned char *p = *pp;
    uint64_t t = *tsum;       /* a local: stores to vals cannot alias it */
    for (; op < oend; op++) {
        pal_value *v = &vals[op->slot];
        uint64_t x;
        unsigned code = op->code;
        /* The LEB family first, with plain branches: it is what compact
         * formats are made of, and a predicted branch beats a jump table. */
        if (PAL_LIKELY(code <= PAL_OP_TDELTA)) {
            int rc = ecc_get_uleb(&p, end, &x);
            if (PAL_UNLIKELY(rc))
                PAL_DEC_FAIL(rc, rc == PAL_DEC_SHORT ? "record runs past the end of the data"
                                                     : "LEB128 value over 64 bits");
            if (code == PAL_OP_ULEB) {
                if (PAL_UNLIKELY(x > op->limit))
                    PAL_DEC_FAIL(PAL_DEC_BAD, "value does not fit the field type");
                v->u = x;
            } else if (code == PAL_OP_TDELTA) {
                if (PAL_UNLIKELY(t + x < t))
                    PAL_DEC_FAIL(PAL_DEC_BAD, "time overflows 64 bits");
                t += x;
                v->u = t;
            } else {
                int64_t s = ecc_unzigzag(x);
                if (PAL_UNLIKELY(s > (int64_t)op->limit || s < -(int64_t)op->limit - 1))
                    PAL_DEC_FAIL(PAL_DEC_BAD, "value does not fit the field type");
                v->i = s;
            }
            continue;
        }
        switch (code) {
        case PAL_OP_LSTRING: {
            int rc = ecc_get_uleb(&p, end, &x);
            if (PAL_UNLIKELY(rc))
                PAL_DEC_FAIL(rc, rc == PAL_DEC_SHORT ? "record runs past the end of the data"
                                                     : "LEB128 value over 64 bits");
            if (PAL_UNLIKELY(x > UINT32_MAX))
                PAL_DEC_FAIL(PAL_DEC_BAD, "string longer than 4 GiB");
            PAL_DEC_NEED(x);
            v->s = p;
            lens[op->slot] = (uint32_t)x;
            p += x;
            break;
        }
        case PAL_OP_U8:   PAL_DEC_FIXED(1, pal_load_le, v->u = x_); break;
        case PAL_OP_I8:   PAL_DEC_FIXED(1, pal_load_le, v->i = (int8_t)x_); break;
        case PAL_OP_U16L: PAL_DEC_FIXED(2, pal_load_le, v->u = x_); break;
        case PAL_OP_U16B: PAL_DEC_FIXED(2, pal_load_be, v->u = x_); break;
        case PAL_OP_I16L: PAL_DEC_FIXED(2, pal_load_le, v->i = (int16_t)x_); break;
        case PAL_OP_I16B: PAL_DEC_FIXED(2, pal_load_be, v->i = (int16_t)x_); break;
        case PAL_OP_U32L: PAL_DEC_FIXED(4, pal_load_le, v->u = x_); break;
        case PAL_OP_U32B: PAL_DEC_FIXED(4, pal_load_be, v->u = x_); break;
        case PAL_OP_I32L: PAL_DEC_FIXED(4, pal_load_le, v->i = (int32_t)x_); break;
        case PAL_OP_I32B: PAL_DEC_FIXED(4, pal_load_be, v->i = (int32_t)x_); break;
        case PAL_OP_U64L: PAL_DEC_FIXED(8, pal_load_le, v->u = x_); break;
        case PAL_OP_U64B: PAL_DEC_FIXED(8, pal_load_be, v->u = x_); break;
        case PAL_OP_F32L: PAL_DEC_FIXED(4, pal_load_le, v->f = pal_f32_bits(x_)); break;
        case PAL_OP_F32B: PAL_DEC_FIXED(4, pal_load_be, v->f = pal_f32_bits(x_)); break;
        case PAL_OP_F64L: PAL_DEC_FIXED(8, pal_load_le, v->f = pal_f64_bits(x_)); break;
        case PAL_OP_F64B: PAL_DEC_FIXED(8, pal_load_be, v->f = pal_f64_bits(x_)); break;
        default:
            /* PAL_OP_BAD: records holding it are marked unusable */
            PAL_DEC_FAIL(PAL_DEC_BAD, "field encoding not readable in a binary record");
        }
    }
    *pp = p;
    *tsum = t;
    return PAL_DEC_OK;
}

/* Record for the key prefix already decoded in vals. */
PAL_INLINE const pal_recdesc *pal_key_lookup(const pal_dict *d, const pal_value *vals,
                                             const uint32_t *lens)
{
    if (PAL_LIKELY(d->key_count == 1)) {
        uint64_t k = vals[d->key_index[0]].u;
        if (PAL_LIKELY(k < d->ndirect && d->direct[k]))
            return d->direct[k];
    } else if (d->key_count == 0) {
        return d->default_rec ? d->default_rec : d->nrecs ? d->recs[0] : NULL;
    }
    return pal_dict_lookup(d, vals, lens);
}

/* Decodes one record at *pp, verifying that the record is known and usable;
 * err says what failed. */
PAL_INLINE int pal_decode_record(const pal_dict *d, const unsigned char **pp,
                                 const unsigned char *end, uint64_t *tsum, pal_value *vals,
                                 uint32_t *lens, const pal_recdesc **rdout, pal_decerr *err)
{
    const pal_recdesc *rd;
    int rc;
    if (err)
        err->rec = NULL;
    if (PAL_LIKELY(d->prefix_uleb)) {
        /* the key straight from the bytes: no op loop, no reload from vals */
        const pal_op *op = d->prefix;
        uint64_t k;
        rc = pal_run_ops(op, op + 1, pp, end, tsum, vals, lens, err);
        if (PAL_UNLIKELY(rc))
            return rc;
        k = vals[op->slot].u;
        rd = PAL_LIKELY(k < d->ndirect) ? d->direct[k] : NULL;
        if (PAL_UNLIKELY(!rd))
            rd = pal_dict_lookup(d, vals, lens);
    } else {
        if (d->nprefix) {
            rc = pal_run_ops(d->prefix, d->prefix + d->nprefix, pp, end, tsum, vals, lens, err);
            if (PAL_UNLIKELY(rc))
                return rc;
        }
        rd = pal_key_lookup(d, vals, lens);
    }
    if (PAL_UNLIKELY(!rd || !rd->usable)) {
        if (err) {
            err->code = PAL_DEC_BAD;
            err->why = rd ? rd->why : d->key_count ? "unknown record key"
                                                   : "the dictionary has no record descriptor";
            err->field = -1;
            err->rec = rd;
        }
        return PAL_DEC_BAD;
    }
    if (err)
        err->rec = rd;
    rc = pal_run_ops(rd->ops, rd->ops + rd->nops, pp, end, tsum, vals, lens, err);
    if (PAL_UNLIKELY(rc))
        return rc;
    *rdout = rd;
    return PAL_DEC_OK;
}

/* The designated time of a decoded record. */
PAL_INLINE uint64_t pal_record_time_of(const pal_recdesc *rd, const pal_value *vals)
{
    if (PAL_UNLIKELY(rd->time_fi < 0))
        return 0;
    if (PAL_LIKELY(rd->time_unsigned))
        return vals[rd->time_fi].u;
    return pal_value_as_u64(vals[rd->time_fi], rd->fields[rd->time_fi].tclass);
}

#endif /* PAL_DECODE_H */
