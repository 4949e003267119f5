/* dict_codec.c -- the binary form of an EDL dictionary (doc/dictionary-format.md):
 * deterministic encoding, bounds-checked decoding, merging and comparison. */
#include "config.h"

#include "edl/dict_impl.h"
#include "edl/roles.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define HEADER_SIZE 24
#define MAX_STRING (1u << 24)
/* Reference flags in the 1.2 tail. */
#define REF_PRESENT 0x01u
#define REF_GLOBAL 0x02u

/* ---- encoding: a growable little-endian byte buffer ---- */
typedef struct outbuf {
    unsigned char *p;
    size_t len, cap;
    int failed;
} outbuf;

static void out_bytes(outbuf *o, const void *src, size_t n)
{
    if (o->failed)
        return;
    if (o->len + n > o->cap) {
        size_t cap = o->cap ? o->cap : 256;
        while (cap < o->len + n)
            cap *= 2;
        unsigned char *np = realloc(o->p, cap);
        if (!np) {
            o->failed = 1;
            return;
        }
        o->p = np;
        o->cap = cap;
    }
    memcpy(o->p + o->len, src, n);
    o->len += n;
}

static void out_u8(outbuf *o, unsigned v)
{
    unsigned char b = (unsigned char)v;
    out_bytes(o, &b, 1);
}

static void out_u16(outbuf *o, unsigned v)
{
    unsigned char b[2] = {(unsigned char)v, (unsigned char)(v >> 8)};
    out_bytes(o, b, 2);
}

static void out_u32(outbuf *o, uint32_t v)
{
    unsigned char b[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 24)};
    out_bytes(o, b, 4);
}

static void put_u32_at(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

static void out_str(outbuf *o, const char *s)
{
    size_t n = strlen(s);
    if (n >= MAX_STRING) {
        o->failed = 1;
        return;
    }
    out_u32(o, (uint32_t)n);
    out_bytes(o, s, n);
}

/* The 1.1 extension of an array field, after its description. */
static void out_array(outbuf *o, const struct edl_array *a)
{
    out_u16(o, a->count_field == EDL_NO_FIELD ? 0xFFFF : (unsigned)a->count_field);
    out_u16(o, a->shape_field == EDL_NO_FIELD ? 0xFFFF : (unsigned)a->shape_field);
    out_str(o, a->shape_name);
    out_u8(o, a->shape_flags);
    out_u8(o, 0);
    out_u16(o, (unsigned)a->nshapes);
    for (size_t i = 0; i < a->nshapes; i++) {
        out_str(o, a->shapes[i].token);
        out_u16(o, (unsigned)a->shapes[i].ncomps);
        for (size_t j = 0; j < a->shapes[i].ncomps; j++) {
            out_str(o, a->shapes[i].comps[j].name);
            out_u8(o, a->shapes[i].comps[j].type);
            out_u8(o, a->shapes[i].comps[j].enc);
        }
    }
}

static void out_ref(outbuf *o, const struct edl_ref_impl *r)
{
    out_u8(o, (r->record ? REF_PRESENT : 0) | (r->flags & EDL_REF_GLOBAL ? REF_GLOBAL : 0));
    out_str(o, r->record ? r->record : "");
    out_str(o, r->record ? r->field : "");
}

/* A record role: code, reserved, condition field and value. */
static void out_role(outbuf *o, const struct edl_role_entry *ro)
{
    out_u8(o, ro->role);
    out_u8(o, 0);
    out_u16(o, ro->when_field == EDL_NO_FIELD ? 0xFFFF : (unsigned)ro->when_field);
    out_str(o, ro->when_value);
}

/* Which tail holds a role: 2 (the 1.2 tail), 3, 4 or 5. */
static int role_tail(edl_record_role r)
{
    return edl_role_is_1_5(r) ? 5 : edl_role_is_1_4(r) ? 4 : edl_role_is_1_3(r) ? 3 : 2;
}

static int field_role_tail(edl_field_role r)
{
    return edl_field_role_is_1_5(r)   ? 5
           : edl_field_role_is_1_4(r) ? 4
           : edl_field_role_is_1_3(r) ? 3
                                      : 2;
}

/* A field's role as the 1.2 tail carries it: 0 for a role of a later tail. */
static unsigned role_1_2(const edl_field *f)
{
    return field_role_tail(f->role) != 2 ? 0 : f->role;
}

/* The 1.2 tail: the designations' references, then each record's meaning. */
static void out_meaning(outbuf *o, const edl_dict *d)
{
    out_ref(o, &d->process_ref);
    out_ref(o, &d->thread_ref);
    out_u32(o, (uint32_t)d->nrecords);
    for (size_t i = 0; i < d->nrecords; i++) {
        const edl_record *r = d->records[i];
        size_t nr = 0;
        for (size_t k = 0; k < r->nroles; k++)
            nr += role_tail(r->roles[k].role) == 2;
        out_u8(o, (unsigned)nr);
        for (size_t k = 0; k < r->nroles; k++) {
            if (role_tail(r->roles[k].role) == 2)
                out_role(o, &r->roles[k]);  /* (the others: in a later tail) */
        }
        out_str(o, r->region);
        size_t n = 0;
        for (size_t j = 0; j < r->nfields; j++)
            n += role_1_2(r->fields[j]) || r->fields[j]->ref.record;
        out_u16(o, (unsigned)n);
        for (size_t j = 0; j < r->nfields; j++) {
            const edl_field *f = r->fields[j];
            if (!role_1_2(f) && !f->ref.record)
                continue;
            out_u16(o, (unsigned)j);
            out_u8(o, role_1_2(f));
            out_ref(o, &f->ref);
        }
    }
}

/* The 1.3 tail (tail 3): each record's roles of 1.3, operation and fields'
 * roles of 1.3 (a 1.2 reader, which stops before it, sees the record without
 * them); the 1.4 and 1.5 tails (4, 5) the same for the roles of 1.4 and
 * 1.5, without an operation. */
static void out_meaning_tail(outbuf *o, const edl_dict *d, int tail)
{
    out_u32(o, (uint32_t)d->nrecords);
    for (size_t i = 0; i < d->nrecords; i++) {
        const edl_record *r = d->records[i];
        size_t nr = 0, nf = 0;
        for (size_t k = 0; k < r->nroles; k++)
            nr += role_tail(r->roles[k].role) == tail;
        out_u8(o, (unsigned)nr);
        for (size_t k = 0; k < r->nroles; k++) {
            if (role_tail(r->roles[k].role) == tail)
                out_role(o, &r->roles[k]);
        }
        if (tail == 3)
            out_str(o, r->operation);
        for (size_t j = 0; j < r->nfields; j++)
            nf += field_role_tail(r->fields[j]->role) == tail;
        out_u16(o, (unsigned)nf);
        for (size_t j = 0; j < r->nfields; j++)
            if (field_role_tail(r->fields[j]->role) == tail) {
                out_u16(o, (unsigned)j);
                out_u8(o, r->fields[j]->role);
            }
    }
}

/* The encoding; equality compares it for dictionaries whose references are
 * not complete yet, so only edl_dict_encode checks them. */
static edl_status encode(const edl_dict *d, unsigned char **buf, size_t *len)
{
    *buf = NULL;
    *len = 0;
    outbuf o = {0};
    int v15 = edl_dict_needs_1_5(d);
    int v14 = v15 || edl_dict_needs_1_4(d);
    int v13 = v14 || edl_dict_needs_1_3(d);
    int v12 = v13 || edl_dict_needs_1_2(d);
    int v11 = v12 || edl_dict_needs_1_1(d);
    out_bytes(&o, EDL_DICT_MAGIC, 8);
    out_u16(&o, EDL_DICT_VERSION_MAJOR);
    out_u16(&o, v15 ? 5 : v14 ? 4 : v13 ? 3 : v12 ? 2 : v11 ? 1 : 0);
    out_u32(&o, 0);     /* total length, patched below */
    out_u32(&o, 0);     /* CRC, patched below */
    out_u32(&o, 0);     /* reserved */
    out_str(&o, d->name);
    out_str(&o, d->version);
    out_u8(&o, d->repr);
    out_u8(&o, (unsigned char)d->byte_order);
    out_u8(&o, d->framing);
    out_u8(&o, 0);
    out_str(&o, d->separators);
    out_str(&o, d->comment);
    out_str(&o, d->time_field);
    out_str(&o, d->time_unit);
    out_str(&o, d->process_field);
    out_str(&o, d->thread_field);
    out_u8(&o, d->key_count);
    out_u8(&o, d->key_index[0]);
    out_u8(&o, d->key_index[1]);
    out_u8(&o, 0);
    out_u32(&o, (uint32_t)d->nrecords);
    for (size_t i = 0; i < d->nrecords; i++) {
        const edl_record *r = d->records[i];
        out_str(&o, r->name);
        out_str(&o, r->description);
        out_u32(&o, (uint32_t)r->nfields);
        for (size_t j = 0; j < r->nfields; j++) {
            const edl_field *f = r->fields[j];
            out_str(&o, f->name);
            out_u8(&o, f->type);
            out_u8(&o, f->enc);
            out_u16(&o, f->flags);
            out_str(&o, f->unit);
            out_str(&o, f->description);
            if (f->array)
                out_array(&o, f->array);
        }
    }
    out_u32(&o, (uint32_t)d->nbinds);
    for (size_t i = 0; i < d->nbinds; i++) {
        const struct edl_bind_entry *b = &d->binds[i];
        out_str(&o, b->key1);
        out_u8(&o, b->key2 != NULL);
        out_str(&o, b->key2 ? b->key2 : "");
        out_u32(&o, (uint32_t)b->record);
    }
    if (v11) {
        out_u8(&o, d->ascii_flags);
        out_u8(&o, (unsigned char)d->quote);
        out_u16(&o, d->skip_lines);
        out_u32(&o, d->default_record < 0 ? UINT32_MAX : (uint32_t)d->default_record);
        out_str(&o, d->time_fraction_field);
        out_str(&o, d->time_fraction_unit);
    }
    if (v12)
        out_meaning(&o, d);
    if (v13)
        out_meaning_tail(&o, d, 3);
    if (v14)
        out_meaning_tail(&o, d, 4);
    if (v15)
        out_meaning_tail(&o, d, 5);
    if (o.failed || o.len > UINT32_MAX) {
        free(o.p);
        return EDL_ENOMEM;
    }
    put_u32_at(o.p + 12, (uint32_t)o.len);
    put_u32_at(o.p + 16, (uint32_t)crc32(0L, o.p, (uInt)o.len));
    *buf = o.p;
    *len = o.len;
    return EDL_OK;
}

edl_status edl_dict_encode(const edl_dict *d, unsigned char **buf, size_t *len)
{
    if (!d || !buf || !len)
        return EDL_EINVAL;
    *buf = NULL;
    *len = 0;
    if (!edl_dict_refs_ok(d, NULL, 0))
        return EDL_ENOENT;
    return encode(d, buf, len);
}

/* ---- decoding: every read is bounds-checked and errors carry the offset ---- */
typedef struct inbuf {
    const unsigned char *p;
    size_t len, pos;
    char *err;
    size_t errlen;
    int failed;
} inbuf;

static void fail(inbuf *in, size_t at, const char *fmt, ...)
{
    if (in->failed)
        return;
    in->failed = 1;
    if (in->err && in->errlen) {
        char what[200];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(what, sizeof what, fmt, ap);
        va_end(ap);
        snprintf(in->err, in->errlen, "%s at byte %zu", what, at);
    }
}

static int need(inbuf *in, size_t n, const char *what)
{
    if (in->failed)
        return 0;
    if (in->len - in->pos < n) {
        fail(in, in->pos, "dictionary truncated reading %s", what);
        return 0;
    }
    return 1;
}

static unsigned in_u8(inbuf *in, const char *what)
{
    if (!need(in, 1, what))
        return 0;
    return in->p[in->pos++];
}

static unsigned in_u16(inbuf *in, const char *what)
{
    if (!need(in, 2, what))
        return 0;
    unsigned v = in->p[in->pos] | (unsigned)in->p[in->pos + 1] << 8;
    in->pos += 2;
    return v;
}

static uint32_t get_u32_at(const unsigned char *p)
{
    return p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint32_t in_u32(inbuf *in, const char *what)
{
    if (!need(in, 4, what))
        return 0;
    uint32_t v = get_u32_at(in->p + in->pos);
    in->pos += 4;
    return v;
}

/* Returns a malloc'd NUL-terminated copy, or NULL on failure (in->failed set). */
static char *in_str(inbuf *in, const char *what)
{
    size_t at = in->pos;
    uint32_t n = in_u32(in, what);
    if (in->failed)
        return NULL;
    if (n >= MAX_STRING || in->len - in->pos < n) {
        fail(in, at, "bad length %u of %s", (unsigned)n, what);
        return NULL;
    }
    if (memchr(in->p + in->pos, 0, n)) {
        fail(in, at, "NUL byte inside %s", what);
        return NULL;
    }
    char *s = malloc((size_t)n + 1);
    if (!s) {
        fail(in, at, "out of memory");
        return NULL;
    }
    memcpy(s, in->p + in->pos, n);
    s[n] = 0;
    in->pos += n;
    return s;
}

/* Reads one item shape's components into a malloc'd array (names malloc'd). */
static edl_component *in_components(inbuf *in, size_t *n)
{
    *n = in_u16(in, "component count");
    if (in->failed)
        return NULL;
    edl_component *c = calloc(*n ? *n : 1, sizeof *c);
    if (!c) {
        fail(in, in->pos, "out of memory");
        return NULL;
    }
    for (size_t i = 0; i < *n && !in->failed; i++) {
        c[i].name = in_str(in, "component name");
        c[i].type = (edl_type)in_u8(in, "component type");
        c[i].enc = (edl_encoding)in_u8(in, "component encoding");
    }
    return c;
}

static void free_components(edl_component *c, size_t n)
{
    for (size_t i = 0; c && i < n; i++)
        free((char *)c[i].name);
    free(c);
}

/* The 1.1 extension of an array field (after its description), added to r. */
static void in_array(inbuf *in, edl_record *r, const char *name, const char *unit,
                     const char *desc, size_t at)
{
    unsigned count = in_u16(in, "count field"), shape = in_u16(in, "shape field");
    char *shape_name = in_str(in, "shape name");
    unsigned shape_flags = in_u8(in, "shape flags");
    in_u8(in, "reserved");
    unsigned nshapes = in_u16(in, "shape count");
    size_t nf = edl_record_field_count(r);
    const char *cname = NULL, *sname = NULL;
    if (!in->failed && ((count != 0xFFFF && count >= nf) || (shape != 0xFFFF && shape >= nf)))
        fail(in, at, "array '%s' refers to a field that does not precede it", name);
    if (!in->failed && count != 0xFFFF)
        cname = edl_field_name(edl_record_field(r, count));
    if (!in->failed && shape != 0xFFFF)
        sname = edl_field_name(edl_record_field(r, shape));
    int fixed = shape == 0xFFFF;
    if (!in->failed && !fixed &&
        edl_record_add_shaped_array(r, name, cname, sname, shape_name, shape_flags, unit, desc))
        fail(in, at, "bad array '%s'", name);
    if (!in->failed && fixed && (nshapes != 1 || *shape_name || shape_flags))
        fail(in, at, "bad fixed shape of array '%s'", name);
    for (unsigned i = 0; i < nshapes && !in->failed; i++) {
        size_t sat = in->pos, nc = 0;
        char *token = in_str(in, "shape token");
        edl_component *c = in_components(in, &nc);
        if (!in->failed && fixed && *token)
            fail(in, sat, "bad fixed shape of array '%s'", name);
        if (!in->failed && fixed && edl_record_add_array(r, name, cname, c, nc, unit, desc))
            fail(in, at, "bad array '%s'", name);
        if (!in->failed && !fixed && edl_record_add_shape(r, token, c, nc))
            fail(in, sat, "bad or duplicate shape '%s' of array '%s'", token, name);
        free(token);
        free_components(c, nc);
    }
    free(shape_name);
}

/* One reference of the 1.2 tail; ref->record NULL when absent. The strings
 * are malloc'd (freed by the caller, present or not). */
static void in_ref(inbuf *in, edl_ref *ref)
{
    size_t at = in->pos;
    unsigned flags = in_u8(in, "reference flags");
    char *rec = in_str(in, "reference record"), *field = in_str(in, "reference field");
    ref->record = rec;
    ref->field = field;
    ref->flags = flags & REF_GLOBAL ? EDL_REF_GLOBAL : 0;
    if (in->failed)
        return;
    if ((flags & ~(REF_PRESENT | REF_GLOBAL)) ||
        (!(flags & REF_PRESENT) && (flags || *rec || *field)))
        fail(in, at, "bad reference flags 0x%x", flags);
}

static void free_ref(edl_ref *ref)
{
    free((char *)ref->record);
    free((char *)ref->field);
}

/* The meaning of record r, into the model through edl_record_set_meaning, so
 * that a decoded dictionary obeys its rules. */
static void in_record_meaning(inbuf *in, edl_record *r)
{
    size_t at = in->pos;
    size_t nroles = in_u8(in, "role count");
    edl_role *roles = calloc(nroles ? nroles : 1, sizeof *roles);
    edl_field_meaning *fms = NULL;
    size_t nfm = 0;
    char *region = NULL;
    if (!roles) {
        fail(in, at, "out of memory");
        return;
    }
    size_t nf = edl_record_field_count(r);
    for (size_t k = 0; k < nroles && !in->failed; k++) {
        size_t rat = in->pos;
        roles[k].role = (edl_record_role)in_u8(in, "role");
        in_u8(in, "reserved");
        unsigned when = in_u16(in, "role condition field");
        roles[k].when_value = in_str(in, "role condition value");
        if (!in->failed && when != 0xFFFF && when >= nf)
            fail(in, rat, "role condition names field %u of %zu", when, nf);
        if (!in->failed && when != 0xFFFF)
            roles[k].when_field = edl_field_name(edl_record_field(r, when));
        else if (!in->failed && *roles[k].when_value)
            fail(in, rat, "a condition value without a condition field");
    }
    region = in_str(in, "region");
    unsigned n = in_u16(in, "field role count");
    if (!in->failed && n > nf)
        fail(in, at, "%u field roles for %zu fields", n, nf);
    if (!in->failed && !(fms = calloc(n ? n : 1, sizeof *fms)))
        fail(in, at, "out of memory");
    long last = -1;
    for (; nfm < n && !in->failed; nfm++) {
        size_t fat = in->pos;
        unsigned fi = in_u16(in, "field index");
        fms[nfm].role = (edl_field_role)in_u8(in, "field role");
        in_ref(in, &fms[nfm].ref);
        if (!in->failed && (fi >= nf || (long)fi <= last))
            fail(in, fat, "field role entry for field %u out of order or range", fi);
        if (!in->failed && !fms[nfm].role && !fms[nfm].ref.record)
            fail(in, fat, "empty field role entry");
        if (!in->failed && !*fms[nfm].ref.record) {
            free_ref(&fms[nfm].ref);
            fms[nfm].ref.record = fms[nfm].ref.field = NULL;
        }
        if (!in->failed)
            fms[nfm].field = edl_field_name(edl_record_field(r, fi));
        last = fi;
    }
    if (!in->failed) {
        edl_meaning m = {roles, nroles, region, fms, nfm, NULL};
        if (edl_record_set_meaning(r, &m) != EDL_OK)
            fail(in, at, "bad roles of record '%s'", edl_record_name(r));
    }
    for (size_t k = 0; k < nroles; k++)
        free((char *)roles[k].when_value);
    for (size_t k = 0; k < nfm; k++)
        free_ref(&fms[k].ref);
    free(fms);
    free(roles);
    free(region);
}

static void in_meaning(inbuf *in, edl_dict *d)
{
    for (int k = 0; k < 2 && !in->failed; k++) {
        size_t at = in->pos;
        edl_ref ref = {NULL, NULL, 0};
        in_ref(in, &ref);
        int present = !in->failed && *ref.record;
        if (present && edl_dict_set_designation_ref(d, k ? EDL_FROLE_THREAD : EDL_FROLE_PROCESS,
                                                    &ref) != EDL_OK)
            fail(in, at, "bad %s designation reference", k ? "thread" : "process");
        free_ref(&ref);
    }
    size_t at = in->pos;
    uint32_t n = in_u32(in, "meaning record count");
    if (!in->failed && n != d->nrecords)
        fail(in, at, "meaning for %u records, the dictionary has %zu", (unsigned)n, d->nrecords);
    for (uint32_t i = 0; i < n && !in->failed; i++)
        in_record_meaning(in, d->records[i]);
    char why[200];
    if (!in->failed && !edl_dict_refs_ok(d, why, sizeof why))
        fail(in, at, "%s", why);
}

/* The additions of tail 3 (1.3), 4 (1.4) or 5 (1.5) to record r's meaning, merged
 * with what the earlier tails gave it and set as a whole (so the rules hold
 * for the merged meaning). */
static void in_record_meaning_tail(inbuf *in, edl_record *r, int tail)
{
    size_t at = in->pos, nf = edl_record_field_count(r);
    edl_meaning m;
    edl_role *roles = NULL;
    edl_field_meaning *fms = NULL;
    char *op = NULL, *vals[256] = {NULL};
    size_t nnew = in_u8(in, "tail role count");
    if (in->failed)
        return;
    if (edl_record_meaning_of(r, &m, &roles, &fms) != EDL_OK) {
        fail(in, at, "out of memory");
        goto done;
    }
    edl_role *all = realloc(roles, (m.nroles + nnew + 1) * sizeof *all);
    if (!all) {
        fail(in, at, "out of memory");
        goto done;
    }
    roles = all;
    m.roles = roles;
    for (size_t k = 0; k < nnew && !in->failed; k++) {
        size_t rat = in->pos;
        edl_role *ro = &roles[m.nroles];
        memset(ro, 0, sizeof *ro);
        ro->role = (edl_record_role)in_u8(in, "role");
        in_u8(in, "reserved");
        unsigned when = in_u16(in, "role condition field");
        ro->when_value = vals[k] = in_str(in, "role condition value");
        if (!in->failed && role_tail(ro->role) != tail)
            fail(in, rat, "role %u in the 1.%d tail", (unsigned)ro->role, tail);
        if (!in->failed && when != 0xFFFF && when >= nf)
            fail(in, rat, "role condition names field %u of %zu", when, nf);
        if (!in->failed && when != 0xFFFF)
            ro->when_field = edl_field_name(edl_record_field(r, when));
        else if (!in->failed && *ro->when_value)
            fail(in, rat, "a condition value without a condition field");
        m.nroles++;
    }
    if (tail == 3) {
        op = in_str(in, "operation");
        m.operation = op;
    }
    unsigned n = in_u16(in, "tail field role count");
    long last = -1;
    for (unsigned k = 0; k < n && !in->failed; k++) {
        size_t fat = in->pos;
        unsigned fi = in_u16(in, "field index");
        edl_field_role fr = (edl_field_role)in_u8(in, "field role");
        if (!in->failed && (fi >= nf || (long)fi <= last))
            fail(in, fat, "1.%d field role entry for field %u out of order or range", tail, fi);
        if (!in->failed && field_role_tail(fr) != tail)
            fail(in, fat, "field role %u in the 1.%d tail", (unsigned)fr, tail);
        last = fi;
        if (in->failed)
            break;
        const char *name = edl_field_name(edl_record_field(r, fi));
        size_t j = 0;
        while (j < m.nfields && strcmp(fms[j].field, name) != 0)
            j++;
        if (j < m.nfields && fms[j].role)
            fail(in, fat, "field %u has a role in an earlier tail", fi);
        else if (j == m.nfields) {  /* fms has room for every field */
            memset(&fms[j], 0, sizeof fms[j]);
            fms[j].field = name;
            m.nfields++;
        }
        fms[j].role = fr;
    }
    if (!in->failed && (nnew || (op && *op) || n) && edl_record_set_meaning(r, &m) != EDL_OK)
        fail(in, at, "bad roles of record '%s'", edl_record_name(r));
done:
    for (size_t k = 0; k < nnew; k++)
        free(vals[k]);
    free(op);
    free(roles);
    free(fms);
}

static void in_meaning_tail(inbuf *in, edl_dict *d, int tail)
{
    size_t at = in->pos;
    uint32_t n = in_u32(in, "tail record count");
    if (!in->failed && n != d->nrecords)
        fail(in, at, "1.%d meaning for %u records, the dictionary has %zu", tail, (unsigned)n,
             d->nrecords);
    for (uint32_t i = 0; i < n && !in->failed; i++)
        in_record_meaning_tail(in, d->records[i], tail);
}

static edl_status decode_body(inbuf *in, unsigned minor, edl_dict **out)
{
    edl_dict *d = NULL;
    edl_status st = EDL_EFORMAT;
    char *name = in_str(in, "name");
    char *version = in_str(in, "version");
    size_t at = in->pos;
    unsigned repr = in_u8(in, "representation");
    unsigned order = in_u8(in, "byte order");
    unsigned framing = in_u8(in, "framing");
    in_u8(in, "reserved");
    if (in->failed)
        goto done;
    if (edl_dict_create(name, version, (edl_repr)repr, &d) != EDL_OK) {
        fail(in, at, "bad dictionary name or representation %u", repr);
        goto done;
    }
    if (repr == EDL_REPR_BINARY && edl_dict_set_binary(d, (char)order, (edl_framing)framing)) {
        fail(in, at + 1, "bad byte order or framing");
        goto done;
    }
    if (repr == EDL_REPR_ASCII && (order != 0 || framing != EDL_FRAMING_LINES)) {
        fail(in, at + 1, "bad byte order or framing for ascii");
        goto done;
    }
    /* Ascii syntax is in the 1.1 tail; a 1.0 dictionary has none of it. */
    if (repr == EDL_REPR_ASCII)
        edl_dict_set_ascii_syntax(d, 0, 0, 0);
    at = in->pos;
    char *sep = in_str(in, "separators"), *com = in_str(in, "comment");
    if (!in->failed && repr == EDL_REPR_ASCII && edl_dict_set_ascii(d, sep, com))
        fail(in, at, "bad ascii separators");
    if (!in->failed && repr == EDL_REPR_BINARY && (*sep || *com))
        fail(in, at, "separators given for a binary representation");
    free(sep);
    free(com);
    at = in->pos;
    char *tf = in_str(in, "time field"), *tu = in_str(in, "time unit");
    char *pf = in_str(in, "process field"), *thf = in_str(in, "thread field");
    if (!in->failed && edl_dict_set_roles(d, tf, tu, pf, thf))
        fail(in, at, "bad role designation");
    free(tf);
    free(tu);
    free(pf);
    free(thf);
    at = in->pos;
    unsigned kc = in_u8(in, "key count"), k0 = in_u8(in, "key index"),
             k1 = in_u8(in, "key index");
    in_u8(in, "reserved");
    if (!in->failed && edl_dict_set_key(d, kc, k0, k1))
        fail(in, at, "bad key specification");
    if (!in->failed && ((kc < 1 && k0 != EDL_NO_KEY) || (kc < 2 && k1 != EDL_NO_KEY)))
        fail(in, at, "bad key specification");
    uint32_t nrec = in_u32(in, "record count");
    for (uint32_t i = 0; i < nrec && !in->failed; i++) {
        edl_record *r = NULL;
        at = in->pos;
        char *rn = in_str(in, "record name"), *rd = in_str(in, "record description");
        if (!in->failed && edl_dict_add_record(d, rn, rd, &r))
            fail(in, at, "bad or duplicate record name '%s'", rn);
        free(rn);
        free(rd);
        uint32_t nf = in_u32(in, "field count");
        for (uint32_t j = 0; j < nf && !in->failed; j++) {
            at = in->pos;
            char *fnm = in_str(in, "field name");
            unsigned type = in_u8(in, "field type"), enc = in_u8(in, "field encoding");
            unsigned flags = in_u16(in, "field flags");
            char *fu = in_str(in, "field unit"), *fd = in_str(in, "field description");
            unsigned known = minor >= 1 ? EDL_FIELD_OPTIONAL | EDL_FIELD_ARRAY : 0;
            if (!in->failed && (flags & ~known))
                fail(in, at, "unknown field flags 0x%x", flags);
            if (!in->failed && !(flags & EDL_FIELD_ARRAY) &&
                edl_record_add_field_ex(r, fnm, (edl_type)type, (edl_encoding)enc, flags, fu, fd))
                fail(in, at, "bad field '%s' (type %u, encoding %u)", fnm, type, enc);
            if (!in->failed && (flags & EDL_FIELD_ARRAY) &&
                (flags != EDL_FIELD_ARRAY || type != EDL_ARRAY || enc != EDL_ENC_NONE))
                fail(in, at, "bad array field '%s' (type %u, encoding %u)", fnm, type, enc);
            if (!in->failed && (flags & EDL_FIELD_ARRAY))
                in_array(in, r, fnm, fu, fd, at);
            free(fnm);
            free(fu);
            free(fd);
        }
    }
    uint32_t nb = in_u32(in, "bind count");
    for (uint32_t i = 0; i < nb && !in->failed; i++) {
        at = in->pos;
        char *k1s = in_str(in, "bind key");
        unsigned has2 = in_u8(in, "bind flag");
        char *k2s = in_str(in, "bind key");
        uint32_t rec = in_u32(in, "bind record");
        if (!in->failed && (has2 > 1 || rec >= d->nrecords))
            fail(in, at, "bad bind entry");
        if (!in->failed &&
            edl_dict_add_bind(d, k1s, has2 ? k2s : NULL, d->records[rec]->name))
            fail(in, at, "duplicate bind key '%s'", k1s);
        free(k1s);
        free(k2s);
    }
    if (minor >= 1 && !in->failed) {
        at = in->pos;
        unsigned aflags = in_u8(in, "ascii flags"), quote = in_u8(in, "quote");
        unsigned skip = in_u16(in, "skip lines");
        if (!in->failed && repr == EDL_REPR_ASCII &&
            edl_dict_set_ascii_syntax(d, aflags, (char)quote, skip))
            fail(in, at, "bad ascii syntax");
        if (!in->failed && repr != EDL_REPR_ASCII && (aflags || quote || skip))
            fail(in, at, "ascii syntax given for a binary representation");
        at = in->pos;
        uint32_t def = in_u32(in, "default record");
        if (!in->failed && def != UINT32_MAX &&
            (def >= d->nrecords || edl_dict_set_default_record(d, d->records[def]->name)))
            fail(in, at, "bad default record %u", (unsigned)def);
        at = in->pos;
        char *ff = in_str(in, "time fraction field"), *fu = in_str(in, "time fraction unit");
        if (!in->failed && (edl_dict_set_time_fraction(d, ff, fu) || (!*ff && *fu)))
            fail(in, at, "bad time fraction designation");
        free(ff);
        free(fu);
    }
    if (minor >= 2 && !in->failed)
        in_meaning(in, d);
    if (minor >= 3 && !in->failed)
        in_meaning_tail(in, d, 3);
    if (minor >= 4 && !in->failed)
        in_meaning_tail(in, d, 4);
    if (minor >= 5 && !in->failed)
        in_meaning_tail(in, d, 5);
    /* A newer minor version appends after what this reader knows: skip it. */
    if (!in->failed && in->pos != in->len && minor <= EDL_DICT_VERSION_MINOR)
        fail(in, in->pos, "%zu unexpected bytes after the dictionary", in->len - in->pos);
    if (!in->failed) {
        *out = d;
        d = NULL;
        st = EDL_OK;
    }
done:
    free(name);
    free(version);
    edl_dict_destroy(d);
    return st;
}

edl_status edl_dict_decode(const void *buf, size_t len, edl_dict **out, char *err, size_t errlen)
{
    inbuf in = {buf, len, 0, err, errlen, 0};
    if (err && errlen)
        err[0] = 0;
    if (!out || (!buf && len))
        return EDL_EINVAL;
    *out = NULL;
    const unsigned char *p = buf;
    if (len < HEADER_SIZE || memcmp(p, EDL_DICT_MAGIC, 8) != 0) {
        fail(&in, 0, len < HEADER_SIZE ? "dictionary too short (%zu bytes)" : "bad magic", len);
        return EDL_EFORMAT;
    }
    unsigned major = p[8] | (unsigned)p[9] << 8;
    if (major != EDL_DICT_VERSION_MAJOR) {
        fail(&in, 8, "unsupported dictionary version %u", major);
        return EDL_EFORMAT;
    }
    uint32_t total = get_u32_at(p + 12);
    if (total < HEADER_SIZE || total > len) {
        fail(&in, 12, "bad dictionary length %u (have %zu bytes)", (unsigned)total, len);
        return EDL_EFORMAT;
    }
    unsigned char zero[4] = {0, 0, 0, 0};
    uLong crc = crc32(0L, p, 16);
    crc = crc32(crc, zero, 4);
    crc = crc32(crc, p + 20, total - 20);
    if ((uint32_t)crc != get_u32_at(p + 16)) {
        fail(&in, 16, "dictionary checksum mismatch");
        return EDL_ECRC;
    }
    in.len = total;
    in.pos = HEADER_SIZE;
    return decode_body(&in, p[10] | (unsigned)p[11] << 8, out);
}

/* ---- merge and equality ---- */

edl_status edl_dict_merge(edl_dict *d, const edl_dict *src)
{
    if (!d || !src)
        return EDL_EINVAL;
    /* Check everything first so that a failed merge leaves d unchanged. */
    for (size_t i = 0; i < src->nrecords; i++) {
        const edl_record *mine = edl_dict_find_record(d, src->records[i]->name);
        if (mine && !edl_records_equal(mine, src->records[i]))
            return EDL_EEXIST;
    }
    if ((d->process_ref.record && src->process_ref.record &&
         !edl_refs_equal(&d->process_ref, &src->process_ref)) ||
        (d->thread_ref.record && src->thread_ref.record &&
         !edl_refs_equal(&d->thread_ref, &src->thread_ref)))
        return EDL_EEXIST;
    for (size_t i = 0; i < src->nbinds; i++) {
        const struct edl_bind_entry *b = &src->binds[i];
        long at = edl_find_bind(d, b->key1, b->key2);
        if (at >= 0 && strcmp(d->records[d->binds[at].record]->name,
                              src->records[b->record]->name) != 0)
            return EDL_EEXIST;
    }
    for (size_t i = 0; i < src->nrecords; i++) {
        const edl_record *s = src->records[i];
        if (edl_dict_find_record(d, s->name))
            continue;
        edl_status st = edl_dict_copy_record(d, s, NULL);
        if (st != EDL_OK)
            return st;
    }
    for (int k = 0; k < 2; k++) {
        edl_field_role which = k ? EDL_FROLE_THREAD : EDL_FROLE_PROCESS;
        edl_ref mine = edl_dict_designation_ref(d, which), theirs =
            edl_dict_designation_ref(src, which);
        edl_status st;
        if (!mine.record && theirs.record &&
            (st = edl_dict_set_designation_ref(d, which, &theirs)) != EDL_OK)
            return st;
    }
    for (size_t i = 0; i < src->nbinds; i++) {
        const struct edl_bind_entry *b = &src->binds[i];
        if (edl_find_bind(d, b->key1, b->key2) >= 0)
            continue;
        edl_status st = edl_dict_add_bind(d, b->key1, b->key2, src->records[b->record]->name);
        if (st != EDL_OK)
            return st;
    }
    return EDL_OK;
}

int edl_dict_equal(const edl_dict *a, const edl_dict *b)
{
    unsigned char *pa = NULL, *pb = NULL;
    size_t la = 0, lb = 0;
    int eq = a && b && encode(a, &pa, &la) == EDL_OK && encode(b, &pb, &lb) == EDL_OK &&
             la == lb && memcmp(pa, pb, la) == 0;
    free(pa);
    free(pb);
    return eq;
}
