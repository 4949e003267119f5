/* dict.c -- PAL dictionary objects (Dictionary, RecordDescriptor, FieldDescriptor,
 * BindInfo and the iterators) over an EDL dictionary, and their compilation
 * into decode ops and a key table for the readers. */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pal/pal-internal.h"

/* Integer keys below this bound get a direct table (the common case: small
 * record type ids); others are searched. */
#define PAL_DIRECT_MAX 65536

const pal_recdesc pal_no_recdesc;

uint8_t pal_type_class(pal_type t)
{
    switch (t) {
    case PAL_INT8: case PAL_INT16: case PAL_INT32: case PAL_INT64:
        return PAL_TC_SIGNED;
    case PAL_UINT8: case PAL_UINT16: case PAL_UINT32: case PAL_UINT64:
        return PAL_TC_UNSIGNED;
    case PAL_FLOAT32: case PAL_FLOAT64:
        return PAL_TC_FLOAT;
    case PAL_STRING:
        return PAL_TC_STRING;
    case PAL_ARRAY:
        return 0;
    }
    return 0;
}

static uint64_t type_max(pal_type t)
{
    switch (t) {
    case PAL_INT8: return INT8_MAX;
    case PAL_INT16: return INT16_MAX;
    case PAL_INT32: return INT32_MAX;
    case PAL_INT64: return INT64_MAX;
    case PAL_UINT8: return UINT8_MAX;
    case PAL_UINT16: return UINT16_MAX;
    case PAL_UINT32: return UINT32_MAX;
    default: return UINT64_MAX;
    }
}

/* The op for one field, or PAL_OP_BAD when a binary record cannot hold it. */
static pal_op compile_field(const pal_fielddesc *f, int be)
{
    pal_op op;
    memset(&op, 0, sizeof op);
    op.code = PAL_OP_BAD;
    op.slot = (uint32_t)f->index;
    op.limit = type_max(f->type);
    /* FIXED ops are named by the byte order in the file: the loads assemble
     * the value byte by byte, which compilers turn into a plain (or swapped)
     * load, so the host's order never matters. */
    switch (f->encoding) {
    case EDL_ENC_ULEB:
        if (f->tclass == PAL_TC_UNSIGNED)
            op.code = PAL_OP_ULEB;
        break;
    case EDL_ENC_SLEB:
        if (f->tclass == PAL_TC_SIGNED)
            op.code = PAL_OP_SLEB;
        break;
    case EDL_ENC_TDELTA:
        if (f->type == PAL_UINT64)
            op.code = PAL_OP_TDELTA;
        break;
    case EDL_ENC_LSTRING:
        if (f->type == PAL_STRING)
            op.code = PAL_OP_LSTRING;
        break;
    case EDL_ENC_FIXED:
        switch (f->type) {
        case PAL_UINT8: op.code = PAL_OP_U8; break;
        case PAL_INT8: op.code = PAL_OP_I8; break;
        case PAL_UINT16: op.code = be ? PAL_OP_U16B : PAL_OP_U16L; break;
        case PAL_INT16: op.code = be ? PAL_OP_I16B : PAL_OP_I16L; break;
        case PAL_UINT32: op.code = be ? PAL_OP_U32B : PAL_OP_U32L; break;
        case PAL_INT32: op.code = be ? PAL_OP_I32B : PAL_OP_I32L; break;
        case PAL_UINT64: case PAL_INT64: op.code = be ? PAL_OP_U64B : PAL_OP_U64L; break;
        case PAL_FLOAT32: op.code = be ? PAL_OP_F32B : PAL_OP_F32L; break;
        case PAL_FLOAT64: op.code = be ? PAL_OP_F64B : PAL_OP_F64L; break;
        default: break;
        }
        break;
    default:
        break;
    }
    return op;
}

static void free_barrs(pal_recdesc *r);

static void free_recdesc(pal_recdesc *r)
{
    if (!r)
        return;
    free(r->conds);
    free(r->targets);
    free_barrs(r);
    free(r->fields);
    free(r->ops);
    free(r);
}

static long find_field_index(const pal_recdesc *r, const char *name)
{
    return pal_field_lookup(r, name);
}

static pal_status compile_meaning(pal_dict *d, pal_recdesc *r);
static pal_status compile_targets(pal_dict *d);

static pal_status make_recdesc(pal_dict *d, size_t index, pal_recdesc **out)
{
    const edl_record *er = edl_dict_record(d->ed, index);
    pal_recdesc *r = calloc(1, sizeof *r);
    if (!r)
        return PAL_ENOMEM;
    r->dict = d;
    r->er = er;
    r->name = edl_record_name(er);
    r->description = edl_record_description(er);
    r->index = index;
    r->nfields = edl_record_field_count(er);
    r->fields = calloc(r->nfields ? r->nfields : 1, sizeof *r->fields);
    if (!r->fields) {
        free(r);
        return PAL_ENOMEM;
    }
    for (size_t i = 0; i < r->nfields; i++) {
        const edl_field *ef = edl_record_field(er, i);
        pal_fielddesc *f = &r->fields[i];
        f->rec = r;
        f->name = edl_field_name(ef);
        if (!f->name)
            f->name = "";
        f->name2 = (uint16_t)((unsigned char)f->name[0] |
                              (f->name[0] ? (unsigned char)f->name[1] << 8 : 0));
        f->unit = edl_field_unit(ef);
        f->description = edl_field_description(ef);
        f->index = i;
        f->type = (pal_type)edl_field_type(ef);
        f->tclass = pal_type_class(f->type);
        f->encoding = edl_field_encoding(ef);
        if (!f->unit)
            f->unit = "";
        if (!f->description)
            f->description = "";
    }
    pal_status st = compile_meaning(d, r);
    if (st != PAL_OK) {
        free_recdesc(r);
        return st;
    }
    r->time_unsigned = r->time_fi >= 0 && r->fields[r->time_fi].tclass == PAL_TC_UNSIGNED;
    if (r->process_fi >= 0 || r->thread_fi >= 0)
        d->role_fields = 1;
    if (!r->description)
        r->description = "";
    r->usable = 1;
    *out = r;
    return PAL_OK;
}

/* Compiles the key prefix (fields 0..key_last) from the first record that
 * has them all; every record must then agree with it. */
static pal_status compile_prefix(pal_dict *d)
{
    if (d->prefix_done || d->key_count == 0 || !d->binary)
        return PAL_OK;
    for (size_t i = 0; i < d->nrecs; i++) {
        const pal_recdesc *r = d->recs[i];
        if (r->nfields <= d->key_last)
            continue;
        pal_op *ops = calloc(d->key_last + 1, sizeof *ops);
        if (!ops)
            return PAL_ENOMEM;
        int ok = 1;
        for (unsigned k = 0; k <= d->key_last; k++) {
            ops[k] = compile_field(&r->fields[k], d->file_be);
            if (ops[k].code == PAL_OP_BAD)
                ok = 0;
        }
        if (!ok) {
            free(ops);
            continue;
        }
        d->prefix = ops;
        d->prefix_rec = r;
        d->nprefix = d->key_last + 1;
        d->prefix_done = 1;
        d->prefix_uleb = d->key_count == 1 && d->nprefix == 1 && ops[0].code == PAL_OP_ULEB;
        d->key_class = r->fields[d->key_index[0]].tclass;
        d->key2_class = d->key_count > 1 ? r->fields[d->key_index[1]].tclass : 0;
        return PAL_OK;
    }
    return PAL_OK;
}

static void free_barrs(pal_recdesc *r)
{
    for (size_t i = 0; r->barrs && i < r->nfields; i++) {
        free(r->barrs[i].ops);
        free(r->barrs[i].types);
        free(r->barrs[i].tclass);
    }
    free(r->barrs);
    r->barrs = NULL;
}

/* The component ops of binary array field fi (a count field and one shape). */
static pal_status compile_array(pal_dict *d, pal_recdesc *r, size_t fi)
{
    const edl_field *ef = edl_record_field(r->er, fi);
    if (!r->barrs) {
        r->barrs = calloc(r->nfields, sizeof *r->barrs);
        if (!r->barrs)
            return PAL_ENOMEM;
        for (size_t i = 0; i < r->nfields; i++)
            r->barrs[i].count_fi = -1;
    }
    size_t cf = edl_field_count_field(ef);
    if (cf == EDL_NO_FIELD || edl_field_shape_field(ef) != EDL_NO_FIELD ||
        edl_field_shape_count(ef) != 1)
        return PAL_OK;          /* not readable from a binary record */
    struct pal_barr *b = &r->barrs[fi];
    size_t nc = edl_field_component_count(ef, 0);
    b->ops = calloc(nc ? nc : 1, sizeof *b->ops);
    b->types = calloc(nc ? nc : 1, sizeof *b->types);
    b->tclass = calloc(nc ? nc : 1, sizeof *b->tclass);
    if (!b->ops || !b->types || !b->tclass)
        return PAL_ENOMEM;
    for (size_t j = 0; j < nc; j++) {
        edl_component c = edl_field_component(ef, 0, j);
        pal_fielddesc tmp;
        memset(&tmp, 0, sizeof tmp);
        tmp.type = (pal_type)c.type;
        tmp.tclass = pal_type_class(tmp.type);
        tmp.encoding = c.enc;
        b->ops[j] = compile_field(&tmp, d->file_be);
        b->ops[j].slot = 0;
        if (b->ops[j].code == PAL_OP_BAD || b->ops[j].code == PAL_OP_TDELTA)
            return PAL_OK;
        b->types[j] = tmp.type;
        b->tclass[j] = tmp.tclass;
    }
    b->ncomp = (uint32_t)nc;
    b->count_fi = (int32_t)cf;
    return PAL_OK;
}

/* Builds r's ops and decides whether r is usable. */
static pal_status compile_record(pal_dict *d, pal_recdesc *r)
{
    if (!d->binary)
        return PAL_OK;
    size_t first = d->key_count ? d->key_last + 1 : 0;
    free(r->ops);
    free_barrs(r);
    r->ops = NULL;
    r->nops = 0;
    r->usable = 1;
    r->why = NULL;
    if (d->key_count == 0 && r->nfields == 0) {
        r->usable = 0;
        r->why = "record descriptor has no fields";
    }
    if (d->key_count) {
        if (r->nfields < first) {
            r->usable = 0;
            r->why = "record descriptor lacks the key field";
            return PAL_OK;
        }
        if (!d->prefix_done) {
            r->usable = 0;
            r->why = "no record descriptor defines a readable key field";
            return PAL_OK;
        }
        /* Fields up to the key are decoded before the record is known, so
         * they must be laid out alike in every record. */
        for (size_t k = 0; k < first; k++) {
            const pal_fielddesc *want = &d->prefix_rec->fields[k];
            if (r->fields[k].type != want->type || r->fields[k].encoding != want->encoding) {
                r->usable = 0;
                r->why = "record descriptor's key fields differ from the others'";
                return PAL_OK;
            }
        }
    }
    if (r->nfields > first) {
        r->ops = calloc(r->nfields - first, sizeof *r->ops);
        if (!r->ops)
            return PAL_ENOMEM;
    }
    for (size_t i = first; i < r->nfields; i++) {
        pal_op op = compile_field(&r->fields[i], d->file_be);
        if (r->fields[i].type == PAL_ARRAY) {
            pal_status st = compile_array(d, r, i);
            if (st != PAL_OK)
                return st;
            if (r->usable) {
                r->usable = 0;
                r->why = "a record with an array is read from raw streams only";
            }
        } else if (op.code == PAL_OP_BAD && r->usable) {
            r->usable = 0;
            r->why = "a field's encoding cannot be read from a binary record";
        }
        r->ops[r->nops++] = op;
    }
    /* The LEB kernel (see pal-internal.h). */
    r->leb = r->usable && r->nops <= 15;
    r->leb_kinds = 0;
    for (uint32_t j = 0; j < r->nops && r->leb; j++) {
        uint64_t kind = r->ops[j].code == PAL_OP_ULEB ? PAL_LK_ULEB
                      : r->ops[j].code == PAL_OP_SLEB ? PAL_LK_SLEB
                      : r->ops[j].code == PAL_OP_TDELTA ? PAL_LK_TDELTA : 0;
        if (!kind)
            r->leb = 0;
        r->leb_kinds |= kind << (4 * j);
    }
    /* ...with at most one TDELTA, which then is the time field if there is one,
     * so that the record's time is the running sum itself */
    int ntd = 0;
    for (uint32_t j = 0; j < r->nops; j++)
        ntd += r->ops[j].code == PAL_OP_TDELTA;
    if (ntd > 1 || (r->time_fi >= 0 && (r->time_fi < (int32_t)first ||
                                        r->ops[r->time_fi - (int32_t)first].code != PAL_OP_TDELTA)))
        r->leb = 0;
    /* The reader's kernel (pal-internal.h); they assume the key is field 0. */
    r->shape = PAL_SH_CHECKED;
    r->nuleb = 0;
    r->leb_lim = UINT64_MAX;
    if (!r->usable || first != 1)
        return PAL_OK;
    r->shape = PAL_SH_OPS;
    if (!r->leb)
        return PAL_OK;
    r->shape = PAL_SH_LEB;
    for (uint32_t j = 0; j < r->nops; j++) {
        uint64_t lim = r->ops[j].limit;
        if (r->ops[j].code == PAL_OP_SLEB)
            lim = 2 * lim + 1;              /* zigzagged */
        if (r->ops[j].code != PAL_OP_TDELTA && lim < r->leb_lim)
            r->leb_lim = lim;
    }
    /* (their kernels test two-byte values against no limit) */
    int tu = r->nops >= 1 && r->ops[0].code == PAL_OP_TDELTA && r->time_fi == 1 &&
             r->leb_lim >= 16383;
    for (uint32_t j = 1; j < r->nops && tu; j++)
        tu = r->ops[j].code == PAL_OP_ULEB;
    if (tu) {
        r->nuleb = (uint8_t)(r->nops - 1);
        r->shape = r->nuleb == 0 ? PAL_SH_T : r->nuleb == 1 ? PAL_SH_TU
                 : r->nuleb == 2 ? PAL_SH_TUU : PAL_SH_TUN;
    }
    return PAL_OK;
}

/* Parses bind text for a key of this type class; 0 when it cannot match. */
static int parse_key(const char *text, int tclass, uint64_t *out, size_t *len)
{
    char *end;
    errno = 0;
    *len = strlen(text);
    switch (tclass) {
    case PAL_TC_UNSIGNED: {
        if (!*text || *text == '-' || *text == '+' || *text == ' ')
            return 0;
        unsigned long long v = strtoull(text, &end, 10);
        if (errno || *end)
            return 0;
        *out = v;
        return 1;
    }
    case PAL_TC_SIGNED: {
        if (!*text || *text == ' ')
            return 0;
        long long v = strtoll(text, &end, 10);
        if (errno || *end)
            return 0;
        *out = (uint64_t)(int64_t)v;
        return 1;
    }
    case PAL_TC_FLOAT: {
        if (!*text)
            return 0;
        double v = strtod(text, &end);
        if (*end)
            return 0;
        memcpy(out, &v, sizeof v);
        return 1;
    }
    case PAL_TC_STRING:
        *out = 0;
        return 1;
    }
    return 0;
}

static pal_status compile_binds(pal_dict *d)
{
    size_t n = edl_dict_bind_count(d->ed);
    free(d->keys);
    free(d->direct);
    d->keys = NULL;
    d->direct = NULL;
    d->nkeys = d->ndirect = 0;
    d->nbinds_seen = n;
    for (size_t k = 0; k < 256; k++)
        d->byte_key[k] = &pal_no_recdesc;
    long def = edl_dict_default_record(d->ed);
    d->default_rec = def >= 0 && (size_t)def < d->nrecs ? d->recs[def] : NULL;
    if (!d->binary || d->key_count == 0 || !d->prefix_done || n == 0)
        return PAL_OK;
    d->keys = calloc(n, sizeof *d->keys);
    if (!d->keys)
        return PAL_ENOMEM;
    size_t maxdirect = 0;
    int direct_ok = d->key_count == 1 &&
                    (d->key_class == PAL_TC_UNSIGNED || d->key_class == PAL_TC_SIGNED);
    for (size_t i = 0; i < n; i++) {
        edl_bind b = edl_dict_bind(d->ed, i);
        pal_key k;
        memset(&k, 0, sizeof k);
        if (b.record >= d->nrecs || !b.key1)
            continue;
        k.rec = d->recs[b.record];
        if (!parse_key(b.key1, d->key_class, &k.k1, &k.n1))
            continue;
        k.s1 = b.key1;
        if (b.key2) {
            if (d->key_count < 2 || !parse_key(b.key2, d->key2_class, &k.k2, &k.n2))
                continue;
            k.s2 = b.key2;
            k.has_k2 = 1;
        }
        if (direct_ok && !k.has_k2 && k.k1 < PAL_DIRECT_MAX && k.k1 + 1 > maxdirect)
            maxdirect = (size_t)k.k1 + 1;
        d->keys[d->nkeys++] = k;
    }
    if (maxdirect) {
        d->direct = calloc(maxdirect, sizeof *d->direct);
        if (!d->direct)
            return PAL_ENOMEM;
        d->ndirect = maxdirect;
        for (size_t i = 0; i < d->nkeys; i++)
            if (!d->keys[i].has_k2 && d->keys[i].k1 < maxdirect)
                d->direct[d->keys[i].k1] = d->keys[i].rec;
        for (size_t k = 0; k < maxdirect && k < 128; k++)
            if (d->direct[k])
                d->byte_key[k] = d->direct[k];
    }
    return PAL_OK;
}

static int key_equal(int tclass, uint64_t want, const char *ws, size_t wn, pal_value v,
                     uint32_t len)
{
    if (tclass == PAL_TC_STRING)
        return wn == len && memcmp(ws, v.s, wn) == 0;
    return want == v.u;
}

const pal_recdesc *pal_dict_lookup(const pal_dict *d, const pal_value *vals, const uint32_t *lens)
{
    if (d->key_count == 0)
        return d->default_rec ? d->default_rec : d->nrecs ? d->recs[0] : NULL;
    unsigned k0 = d->key_index[0], k1 = d->key_index[1];
    const pal_recdesc *one = NULL;
    for (size_t i = 0; i < d->nkeys; i++) {
        const pal_key *k = &d->keys[i];
        if (!key_equal(d->key_class, k->k1, k->s1, k->n1, vals[k0], lens[k0]))
            continue;
        if (!k->has_k2) {
            if (d->key_count == 1)
                return k->rec;
            one = k->rec;       /* <key1> alone: used when no <key1:key2> matches */
        } else if (key_equal(d->key2_class, k->k2, k->s2, k->n2, vals[k1], lens[k1])) {
            return k->rec;
        }
    }
    return one ? one : d->default_rec;
}

pal_status pal_dict_sync(pal_dict *d, char *err, size_t errlen)
{
    size_t n = edl_dict_record_count(d->ed);
    size_t old = d->nrecs;
    pal_status st;
    if (n > d->caprecs) {
        size_t cap = d->caprecs ? d->caprecs * 2 : 16;
        while (cap < n)
            cap *= 2;
        pal_recdesc **nr = realloc(d->recs, cap * sizeof *nr);
        if (!nr)
            goto nomem;
        d->recs = nr;
        d->caprecs = cap;
    }
    for (size_t i = old; i < n; i++) {
        if ((st = make_recdesc(d, i, &d->recs[i])) != PAL_OK)
            goto nomem;
        d->nrecs = i + 1;
        if (d->recs[i]->nfields > d->max_fields)
            d->max_fields = d->recs[i]->nfields;
    }
    int had_prefix = d->prefix_done;
    if ((st = compile_prefix(d)) != PAL_OK)
        goto nomem;
    /* A prefix found only now makes earlier records decodable too. */
    for (size_t i = had_prefix != d->prefix_done ? 0 : old; i < n; i++)
        if ((st = compile_record(d, d->recs[i])) != PAL_OK)
            goto nomem;
    if (n != old || d->nbinds_seen != edl_dict_bind_count(d->ed) || had_prefix != d->prefix_done ||
        !d->keys)
        if ((st = compile_binds(d)) != PAL_OK)
            goto nomem;
    /* (cheap, and a merged dictionary chunk may bring new references) */
    if ((st = compile_targets(d)) != PAL_OK)
        goto nomem;
    return PAL_OK;
nomem:
    if (err)
        snprintf(err, errlen, "out of memory");
    return PAL_ENOMEM;
}

pal_status pal_dict_wrap(edl_dict *ed, pal_dict **out, char *err, size_t errlen)
{
    pal_dict *d = calloc(1, sizeof *d);
    pal_status st;
    *out = NULL;
    if (!d) {
        edl_dict_destroy(ed);
        if (err)
            snprintf(err, errlen, "out of memory");
        return PAL_ENOMEM;
    }
    d->ed = ed;
    d->bind.dict = d;
    for (size_t k = 0; k < 256; k++)
        d->byte_key[k] = &pal_no_recdesc;
    d->binary = edl_dict_repr(ed) == EDL_REPR_BINARY;
    static const struct { const char *unit; double ns; } units[] = {
        {"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strcmp(edl_dict_time_unit(ed), units[i].unit) == 0)
            d->unit_ns = units[i].ns;
    d->file_be = d->binary && edl_dict_byte_order(ed) == 'B';
    d->key_count = edl_dict_key_count(ed);
    if (d->key_count > 2) {
        if (err)
            snprintf(err, errlen, "dictionary has %u key fields (at most 2)", d->key_count);
        pal_dict_destroy(d);
        return PAL_EFORMAT;
    }
    for (unsigned k = 0; k < d->key_count; k++) {
        d->key_index[k] = edl_dict_key_index(ed, k);
        if (d->key_index[k] > d->key_last)
            d->key_last = d->key_index[k];
    }
    if ((st = pal_dict_sync(d, err, errlen)) != PAL_OK) {
        pal_dict_destroy(d);
        return st;
    }
    *out = d;
    return PAL_OK;
}

/* The first error of an EDL compile, for pal_last_error ("file:line:col:
 * error: message"). */
struct first_diag {
    char text[512];
};

static void keep_first(void *ctx, const edl_diagnostic *dg)
{
    struct first_diag *fd = ctx;
    if (fd->text[0] || dg->severity != EDL_SEV_ERROR)
        return;
    if (dg->line)
        snprintf(fd->text, sizeof fd->text, "%s:%u:%u: error: %s", dg->file, dg->line,
                 dg->column, dg->message);
    else
        snprintf(fd->text, sizeof fd->text, "%s: error: %s", dg->file, dg->message);
}

pal_status pal_dict_load(const char *path, pal_dict **out)
{
    PAL_REQUIRE(out, PAL_EINVAL);
    *out = NULL;
    PAL_REQUIRE(path, PAL_EINVAL);
    pal_status st = PAL_OK;
    unsigned char *buf = NULL;
    size_t len = 0, cap = 0;
    char err[256] = "";
    edl_dict *ed = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) {
        pal_set_last_error("cannot load dictionary '%s': %s", path, strerror(errno));
        return PAL_EIO;
    }
    for (;;) {
        if (len == cap) {
            /* Dictionaries are small; refuse absurd files rather than eat memory. */
            if (cap >= ((size_t)1 << 26)) {
                pal_set_last_error("cannot load dictionary '%s': file larger than 64 MiB", path);
                st = PAL_EFORMAT;
                goto out;
            }
            cap = cap ? cap * 2 : 4096;
            unsigned char *nb = realloc(buf, cap);
            if (!nb) {
                pal_set_last_error("cannot load dictionary '%s': out of memory", path);
                st = PAL_ENOMEM;
                goto out;
            }
            buf = nb;
        }
        size_t got = fread(buf + len, 1, cap - len, f);
        len += got;
        if (got == 0) {
            if (ferror(f)) {
                pal_set_last_error("cannot load dictionary '%s': read error", path);
                st = PAL_EIO;
                goto out;
            }
            break;
        }
    }
    edl_status es;
    if (len < 8 || memcmp(buf, EDL_DICT_MAGIC, 8) != 0) {
        /* not the binary form: an EDL source, compiled here */
        struct first_diag fd;
        memset(&fd, 0, sizeof fd);
        es = edl_compile_string(path, (const char *)buf, len, keep_first, &fd, &ed);
        if (es != EDL_OK) {
            pal_set_last_error("cannot load dictionary '%s': %s", path,
                               fd.text[0] ? fd.text : edl_status_string(es));
            st = es == EDL_ENOMEM ? PAL_ENOMEM : PAL_EFORMAT;
            goto out;
        }
    } else {
        es = edl_dict_decode(buf, len, &ed, err, sizeof err);
    }
    if (es != EDL_OK) {
        pal_set_last_error("cannot load dictionary '%s': %s", path,
                           *err ? err : edl_status_string(es));
        st = es == EDL_ENOMEM ? PAL_ENOMEM : PAL_EFORMAT;
        goto out;
    }
    st = pal_dict_wrap(ed, out, err, sizeof err);
    if (st != PAL_OK)
        pal_set_last_error("cannot load dictionary '%s': %s", path, err);
    else
        pal_clear_last_error();
out:
    fclose(f);
    free(buf);
    return st;
}

void pal_dict_destroy(pal_dict *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->nrecs; i++)
        free_recdesc(d->recs[i]);
    free(d->recs);
    free(d->prefix);
    free(d->direct);
    free(d->keys);
    edl_dict_destroy(d->ed);
    free(d);
}

/* ---- Dictionary accessors ---- */

const char *pal_dict_name(const pal_dict *d)
{
    PAL_REQUIRE(d, "");
    return edl_dict_name(d->ed);
}

const char *pal_dict_version(const pal_dict *d)
{
    PAL_REQUIRE(d, "");
    return edl_dict_version(d->ed);
}

const char *pal_dict_representation(const pal_dict *d)
{
    PAL_REQUIRE(d, "");
    return edl_dict_repr(d->ed) == EDL_REPR_ASCII ? "ascii" : "binary";
}

const char *pal_dict_time_field(const pal_dict *d)
{
    PAL_REQUIRE(d, "");
    const char *s = edl_dict_time_field(d->ed);
    return s ? s : "";
}

const char *pal_dict_time_unit(const pal_dict *d)
{
    PAL_REQUIRE(d, "");
    const char *s = edl_dict_time_unit(d->ed);
    return s ? s : "";
}

size_t pal_dict_record_count(const pal_dict *d)
{
    PAL_REQUIRE(d, 0);
    return d->nrecs;
}

const pal_recdesc *pal_dict_record(const pal_dict *d, size_t i)
{
    PAL_REQUIRE(d, NULL);
    return i < d->nrecs ? d->recs[i] : NULL;
}

const pal_recdesc *pal_dict_find_record(const pal_dict *d, const char *name)
{
    PAL_REQUIRE(d && name, NULL);
    for (size_t i = 0; i < d->nrecs; i++)
        if (strcmp(d->recs[i]->name, name) == 0)
            return d->recs[i];
    return NULL;
}

const pal_bindinfo *pal_dict_bindinfo(const pal_dict *d)
{
    PAL_REQUIRE(d, NULL);
    return &d->bind;
}

void pal_dict_records(const pal_dict *d, pal_recdesc_iter *it)
{
    PAL_REQUIRE(it, );
    it->dict = d;
    it->next = 0;
}

const pal_recdesc *pal_recdesc_next(pal_recdesc_iter *it)
{
    PAL_REQUIRE(it, NULL);
    if (!it->dict || it->next >= it->dict->nrecs)
        return NULL;
    return it->dict->recs[it->next++];
}

/* ---- RecordDescriptor ---- */

const char *pal_recdesc_name(const pal_recdesc *r)
{
    PAL_REQUIRE(r, "");
    return r->name;
}

const char *pal_recdesc_description(const pal_recdesc *r)
{
    PAL_REQUIRE(r, "");
    return r->description;
}

size_t pal_recdesc_index(const pal_recdesc *r)
{
    PAL_REQUIRE(r, 0);
    return r->index;
}

size_t pal_recdesc_field_count(const pal_recdesc *r)
{
    PAL_REQUIRE(r, 0);
    return r->nfields;
}

const pal_fielddesc *pal_recdesc_field(const pal_recdesc *r, size_t i)
{
    PAL_REQUIRE(r, NULL);
    return i < r->nfields ? &r->fields[i] : NULL;
}

const pal_fielddesc *pal_recdesc_find_field(const pal_recdesc *r, const char *name)
{
    PAL_REQUIRE(r && name, NULL);
    long i = find_field_index(r, name);
    return i < 0 ? NULL : &r->fields[i];
}

void pal_recdesc_fields(const pal_recdesc *r, pal_field_iter *it)
{
    PAL_REQUIRE(it, );
    it->rec = r;
    it->next = 0;
}

const pal_fielddesc *pal_field_next(pal_field_iter *it)
{
    PAL_REQUIRE(it, NULL);
    if (!it->rec || it->next >= it->rec->nfields)
        return NULL;
    return &it->rec->fields[it->next++];
}

/* ---- FieldDescriptor ---- */

const char *pal_field_name(const pal_fielddesc *f)
{
    PAL_REQUIRE(f, "");
    return f->name;
}

pal_type pal_field_type(const pal_fielddesc *f)
{
    PAL_REQUIRE(f, (pal_type)0);
    return f->type;
}

const char *pal_field_type_name(const pal_fielddesc *f)
{
    PAL_REQUIRE(f, "");
    return edl_type_name((edl_type)f->type);
}

const char *pal_field_encoding(const pal_fielddesc *f)
{
    PAL_REQUIRE(f, "");
    return edl_encoding_name(f->encoding);
}

const char *pal_field_unit(const pal_fielddesc *f)
{
    PAL_REQUIRE(f, "");
    return f->unit;
}

const char *pal_field_description(const pal_fielddesc *f)
{
    PAL_REQUIRE(f, "");
    return f->description;
}

size_t pal_field_index(const pal_fielddesc *f)
{
    PAL_REQUIRE(f, 0);
    return f->index;
}

/* ---- meaning ---- */

/* The role codes of pal.h are the dictionary's: both headers expand the
 * list of edl-roles.h. */

/* Identifies record.field in name tables across dictionaries (FNV-1a). */
static uint64_t ref_slot(const char *record, const char *field)
{
    uint64_t h = 14695981039346656037ULL;
    for (const char *p = record; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ULL;
    h = (h ^ 0xFF) * 1099511628211ULL;   /* a byte no name has: "a"+"bc" != "ab"+"c" */
    for (const char *p = field; *p; p++)
        h = (h ^ (unsigned char)*p) * 1099511628211ULL;
    return h;
}

static struct pal_ref make_ref(edl_ref e)
{
    struct pal_ref r = {NULL, NULL, 0, 0};
    if (e.record) {
        r.record = e.record;
        r.field = e.field;
        r.global = (e.flags & EDL_REF_GLOBAL) != 0;
        r.slot = ref_slot(e.record, e.field);
    }
    return r;
}

/* Roles, field roles, region and references of r, from its EDL record; the
 * time, process and thread fields are the fields with those roles, else the
 * fields the header names. */
static pal_status compile_meaning(pal_dict *d, pal_recdesc *r)
{
    const edl_record *er = r->er;
    for (size_t k = 0; k < PAL_FROLE_LIMIT; k++)
        r->role_fi[k] = -1;
    for (size_t i = 0; i < r->nfields; i++) {
        pal_fielddesc *f = &r->fields[i];
        const edl_field *ef = edl_record_field(er, i);
        f->role = (pal_field_role)edl_field_role_of(ef);
        f->ref = make_ref(edl_field_ref_of(ef));
        if (f->role)
            r->role_fi[f->role] = (int32_t)i;
    }
    static const pal_field_role designated[3] = {PAL_FROLE_TIMESTAMP, PAL_FROLE_PROCESS,
                                                 PAL_FROLE_THREAD};
    const char *names[3] = {edl_dict_time_field(d->ed), edl_dict_process_field(d->ed),
                            edl_dict_thread_field(d->ed)};
    for (int k = 0; k < 3; k++) {
        long fi = find_field_index(r, names[k]);
        if (r->role_fi[designated[k]] < 0 && fi >= 0 && r->fields[fi].role == PAL_FROLE_NONE) {
            r->role_fi[designated[k]] = (int32_t)fi;
            r->fields[fi].role = designated[k];
        }
    }
    r->time_fi = r->role_fi[PAL_FROLE_TIMESTAMP];
    r->process_fi = r->role_fi[PAL_FROLE_PROCESS];
    r->thread_fi = r->role_fi[PAL_FROLE_THREAD];
    r->region = edl_record_region(er);
    r->operation = edl_record_operation(er);
    size_t n = edl_record_role_count(er);
    for (size_t k = 0; k < n; k++)
        if (edl_record_role_at(er, k).when_field)
            r->nconds++;
    if (r->nconds && !(r->conds = calloc(r->nconds, sizeof *r->conds)))
        return PAL_ENOMEM;
    size_t c = 0;
    for (size_t k = 0; k < n; k++) {
        edl_role ro = edl_record_role_at(er, k);
        uint64_t bit = UINT64_C(1) << ro.role;
        if (!ro.when_field) {
            r->roles |= bit;
            continue;
        }
        r->roles_when |= bit;
        struct pal_rcond *rc = &r->conds[c++];
        rc->role = (pal_record_role)ro.role;
        rc->field = (int32_t)find_field_index(r, ro.when_field);
        rc->text = ro.when_value;
        rc->len = strlen(ro.when_value);
        size_t unused;
        if (rc->field >= 0 && r->fields[rc->field].tclass != PAL_TC_STRING)
            parse_key(ro.when_value, r->fields[rc->field].tclass, &rc->value, &unused);
    }
    return PAL_OK;
}

/* Adds (key, slot) to the targets of t. */
static pal_status add_target(pal_recdesc *t, const struct pal_ref *ref)
{
    long key = find_field_index(t, ref->field);
    if (key < 0)
        return PAL_OK;   /* the model refuses such dictionaries; nothing to name */
    unsigned scope = ref->global ? 2u : 1u;
    for (size_t i = 0; i < t->ntargets; i++)
        if (t->targets[i].slot == ref->slot) {
            t->targets[i].scopes |= scope;
            return PAL_OK;
        }
    struct pal_target *nt = realloc(t->targets, (t->ntargets + 1) * sizeof *nt);
    if (!nt)
        return PAL_ENOMEM;
    t->targets = nt;
    nt[t->ntargets].key = (int32_t)key;
    nt[t->ntargets].name = t->role_fi[PAL_FROLE_NAME];
    nt[t->ntargets].slot = ref->slot;
    nt[t->ntargets].scopes = scope;
    t->ntargets++;
    return PAL_OK;
}

/* Which record types define what references point to; redone when the
 * dictionary grows (a new type may refer to an old one). */
static pal_status compile_targets(pal_dict *d)
{
    for (size_t i = 0; i < d->nrecs; i++) {
        free(d->recs[i]->targets);
        d->recs[i]->targets = NULL;
        d->recs[i]->ntargets = 0;
    }
    d->process_ref = make_ref(edl_dict_designation_ref(d->ed, EDL_FROLE_PROCESS));
    d->thread_ref = make_ref(edl_dict_designation_ref(d->ed, EDL_FROLE_THREAD));
    const struct pal_ref *dref[2] = {&d->process_ref, &d->thread_ref};
    pal_status st = PAL_OK;
    for (int k = 0; k < 2 && st == PAL_OK; k++) {
        pal_recdesc *t = dref[k]->record ? (pal_recdesc *)pal_dict_find_record(d, dref[k]->record)
                                         : NULL;
        if (t)
            st = add_target(t, dref[k]);
    }
    for (size_t i = 0; i < d->nrecs && st == PAL_OK; i++)
        for (size_t j = 0; j < d->recs[i]->nfields && st == PAL_OK; j++) {
            const struct pal_ref *ref = &d->recs[i]->fields[j].ref;
            pal_recdesc *t = ref->record ? (pal_recdesc *)pal_dict_find_record(d, ref->record)
                                         : NULL;
            if (t)
                st = add_target(t, ref);
        }
    return st;
}

const char *pal_record_role_name(pal_record_role role)
{
    return edl_record_role_name((edl_record_role)role);
}

pal_record_role pal_record_role_by_name(const char *name)
{
    return (pal_record_role)edl_record_role_by_name(name);
}

const char *pal_field_role_name(pal_field_role role)
{
    return edl_field_role_name((edl_field_role)role);
}

pal_field_role pal_field_role_by_name(const char *name)
{
    return (pal_field_role)edl_field_role_by_name(name);
}

int pal_recdesc_has_role(const pal_recdesc *r, pal_record_role role)
{
    PAL_REQUIRE(r, 0);
    if (role <= PAL_ROLE_NONE || role >= PAL_ROLE_LIMIT)
        return 0;
    uint64_t bit = UINT64_C(1) << role;
    return r->roles & bit ? 1 : r->roles_when & bit ? 2 : 0;
}

const pal_recdesc *pal_dict_find_role(const pal_dict *d, pal_record_role role,
                                      const pal_recdesc *after)
{
    PAL_REQUIRE(d, NULL);
    for (size_t i = after ? after->index + 1 : 0; i < d->nrecs; i++)
        if (pal_recdesc_has_role(d->recs[i], role))
            return d->recs[i];
    return NULL;
}

const char *pal_recdesc_region(const pal_recdesc *r)
{
    PAL_REQUIRE(r, "");
    return r->region ? r->region : "";
}

const char *pal_recdesc_operation(const pal_recdesc *r)
{
    PAL_REQUIRE(r, "");
    return r->operation ? r->operation : "";
}

const pal_fielddesc *pal_recdesc_role_field(const pal_recdesc *r, pal_field_role role)
{
    PAL_REQUIRE(r, NULL);
    if (role <= PAL_FROLE_NONE || role >= PAL_FROLE_LIMIT || r->role_fi[role] < 0)
        return NULL;
    return &r->fields[r->role_fi[role]];
}

pal_field_role pal_field_role_of(const pal_fielddesc *f)
{
    PAL_REQUIRE(f, PAL_FROLE_NONE);
    return f->role;
}

pal_status pal_field_reference(const pal_fielddesc *f, const char **record, const char **field,
                               int *global)
{
    PAL_REQUIRE(f, PAL_EINVAL);
    if (!f->ref.record)
        return PAL_ENOFIELD;
    if (record)
        *record = f->ref.record;
    if (field)
        *field = f->ref.field;
    if (global)
        *global = f->ref.global;
    return PAL_OK;
}

/* One handle per field role, shared by every reader: the field is found
 * through the record's descriptor (pal_recdesc.role_fi). */
#define RH(name, code, text) [PAL_FROLE_##name] = {NULL, PAL_FROLE_##name, NULL, NULL, NULL, 0},
static const struct pal_handle role_handles[PAL_FROLE_LIMIT] = {EDL_FIELD_ROLE_LIST(RH)};
#undef RH

pal_status pal_reader_role_handle(pal_reader *r, pal_field_role role, const pal_handle **out)
{
    PAL_REQUIRE(out, PAL_EINVAL);
    *out = NULL;
    PAL_REQUIRE(r, PAL_EINVAL);
    if (role <= PAL_FROLE_NONE || role >= PAL_FROLE_LIMIT)
        return PAL_EINVAL;
    const pal_dict *d = pal_reader_dict(r);
    for (size_t i = 0; i < d->nrecs; i++)
        if (d->recs[i]->role_fi[role] >= 0) {
            *out = &role_handles[role];
            return PAL_OK;
        }
    return PAL_ENOFIELD;
}

/* ---- BindInfo ---- */

unsigned pal_bindinfo_key_count(const pal_bindinfo *b)
{
    PAL_REQUIRE(b, 0);
    return b->dict->key_count;
}

unsigned pal_bindinfo_key_index(const pal_bindinfo *b, unsigned which)
{
    PAL_REQUIRE(b, EDL_NO_KEY);
    return which < b->dict->key_count ? b->dict->key_index[which] : EDL_NO_KEY;
}

size_t pal_bindinfo_count(const pal_bindinfo *b)
{
    PAL_REQUIRE(b, 0);
    return edl_dict_bind_count(b->dict->ed);
}

pal_status pal_bindinfo_entry(const pal_bindinfo *b, size_t i, const char **key1,
                              const char **key2, const pal_recdesc **rec)
{
    PAL_REQUIRE(b, PAL_EINVAL);
    const pal_dict *d = b->dict;
    if (i >= edl_dict_bind_count(d->ed))
        return PAL_EINVAL;
    edl_bind e = edl_dict_bind(d->ed, i);
    if (key1)
        *key1 = e.key1;
    if (key2)
        *key2 = e.key2;
    if (rec)
        *rec = e.record < d->nrecs ? d->recs[e.record] : NULL;
    return PAL_OK;
}

edl_dict *pal_binary_dict_new(const char *name, const char *version, const edl_dict *like,
                              const char *t, const char *p, const char *h)
{
    edl_dict *d = NULL;
    uint16_t probe = 1;
    char bo = *(const uint8_t *)&probe == 0 ? 'B' : 'L';
    edl_ref pref = edl_dict_designation_ref(like, EDL_FROLE_PROCESS);
    edl_ref tref = edl_dict_designation_ref(like, EDL_FROLE_THREAD);
    if (edl_dict_create(name, version, EDL_REPR_BINARY, &d) != EDL_OK ||
        edl_dict_set_binary(d, bo, EDL_FRAMING_ECL) != EDL_OK ||
        edl_dict_set_roles(d, t, "ns", p, h) != EDL_OK ||
        edl_dict_set_key(d, 1, 0, EDL_NO_KEY) != EDL_OK ||
        edl_dict_set_designation_ref(d, EDL_FROLE_PROCESS, &pref) != EDL_OK ||
        edl_dict_set_designation_ref(d, EDL_FROLE_THREAD, &tref) != EDL_OK) {
        edl_dict_destroy(d);
        return NULL;
    }
    return d;
}
