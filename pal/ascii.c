/* ascii.c -- the ascii (line) reader: turns a text trace into records using
 * nothing but the dictionary (doc/dictionary-format.md, "Ascii representation"
 * and "Variable parts"). Streaming: the file is read in large blocks into one
 * buffer; a line is tokenised in place (quotes removed, escapes resolved,
 * tokens NUL-terminated), its key looked up in a hash table built from the bind
 * descriptor, and its tokens converted into the record's values. No memory is
 * allocated per line; buffers only grow to the longest line / largest record. */
#include <config.h>

#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pal/pal-internal.h"

#define ASCII_BLOCK (1u << 20)       /* bytes read at a time */
#define MAX_FORMAT_COMPONENTS 64     /* printf-like item formats */

/* How one scalar (field or component) is converted. */
typedef struct acomp {
    pal_type type;
    uint8_t tclass;
    int64_t min;          /* signed */
    uint64_t max;         /* signed and unsigned */
} acomp;

typedef struct ashape {
    char *token;          /* "" for the fixed shape */
    size_t toklen;
    uint32_t ncomp;
    acomp *comps;
    pal_type *types;
    uint8_t *tclasses;
} ashape;

typedef struct afield {
    acomp c;              /* scalars */
    const char *name;
    int optional, array;
    int32_t count_fi, shape_fi;   /* -1: rest of record / fixed shape */
    uint32_t nshapes;
    ashape *shapes;
    int format;
    /* the last printf-like format seen, and its components */
    char fmt_text[128];
    int fmt_valid;
    ashape fmt;
} afield;

typedef struct arec {
    const pal_recdesc *rd;
    uint32_t nf;
    afield *f;
    int32_t time_fi, frac_fi, process_fi, thread_fi;
} arec;

typedef struct akey {
    uint64_t h1, h2;
    const char *s1, *s2;   /* string keys: the bind text */
    size_t n1, n2;
    int has2;
    int32_t rec;           /* -1: empty slot */
} akey;

typedef struct atok {
    char *s;
    uint32_t n;
    uint32_t col;
} atok;

struct pal_ascii {
    const pal_dict *d;
    int fd;
    /* syntax */
    uint8_t sep[256];
    int merge, trailing_comment, blank_error, doubled;
    char quote;
    const char *comment;
    size_t comlen;
    unsigned skip_lines;
    /* keys */
    unsigned key_count, key_index[2];
    int key_string[2];
    akey *table;
    size_t tmask;
    int32_t default_rec;
    /* records */
    arec *recs;
    size_t nrecs;
    double time_ns_per_unit, frac_ns_per_unit;
    /* buffer: file bytes [boff, boff + blen) in buf; next line at bpos */
    char *buf;
    size_t bcap, blen, bpos;
    uint64_t boff;
    int eof;
    uint64_t line;          /* number of the last line taken */
    /* per line */
    atok *toks;
    size_t ntoks, captoks;
    pal_value *vals;
    uint32_t *lens;
    pal_arr *arrs;
    uint32_t *tix;          /* token index of each scalar field of the line */
    size_t nvals;
    pal_value *ivals;
    uint32_t *ilens;
    size_t nitems, capitems;
    /* the error of the last bad line */
    char *msg;
    size_t msglen;
    uint32_t col;
};

/* ---------------------------------------------------------------- setup */

static void set_comp(acomp *c, pal_type t)
{
    c->type = t;
    c->tclass = pal_type_class(t);
    c->min = 0;
    switch (t) {
    case PAL_INT8: c->min = INT8_MIN; c->max = INT8_MAX; break;
    case PAL_INT16: c->min = INT16_MIN; c->max = INT16_MAX; break;
    case PAL_INT32: c->min = INT32_MIN; c->max = INT32_MAX; break;
    case PAL_INT64: c->min = INT64_MIN; c->max = INT64_MAX; break;
    case PAL_UINT8: c->max = UINT8_MAX; break;
    case PAL_UINT16: c->max = UINT16_MAX; break;
    case PAL_UINT32: c->max = UINT32_MAX; break;
    default: c->max = UINT64_MAX; break;
    }
}

static int shape_set(ashape *s, const char *token, const edl_component *c, size_t n)
{
    s->token = strdup(token ? token : "");
    s->toklen = s->token ? strlen(s->token) : 0;
    s->ncomp = (uint32_t)n;
    s->comps = calloc(n ? n : 1, sizeof *s->comps);
    s->types = calloc(n ? n : 1, sizeof *s->types);
    s->tclasses = calloc(n ? n : 1, sizeof *s->tclasses);
    if (!s->token || !s->comps || !s->types || !s->tclasses)
        return -1;
    for (size_t i = 0; i < n; i++) {
        set_comp(&s->comps[i], (pal_type)c[i].type);
        s->types[i] = s->comps[i].type;
        s->tclasses[i] = s->comps[i].tclass;
    }
    return 0;
}

static void shape_free(ashape *s)
{
    free(s->token);
    free(s->comps);
    free(s->types);
    free(s->tclasses);
}

static uint64_t hash_bytes(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
    return h;
}

static uint64_t mix(uint64_t a, uint64_t b, int has2)
{
    uint64_t h = a * 0x9E3779B97F4A7C15ULL ^ (b + (uint64_t)has2 * 0x632BE59BD9B4E019ULL);
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ULL;
    return h ^ (h >> 32);
}

/* Integer token to int64 by the number syntax; 0 if it is not one. */
static int parse_i64(const char *s, size_t n, int64_t *out)
{
    size_t i = 0;
    int neg = 0;
    if (n && (s[0] == '-' || s[0] == '+'))
        neg = s[i++] == '-';
    if (i == n)
        return 0;
    uint64_t v = 0;
    if (PAL_LIKELY(n - i <= 18)) {
        /* up to 18 digits cannot overflow: no test per digit */
        for (; i < n; i++) {
            unsigned dg = (unsigned)(unsigned char)s[i] - '0';
            if (dg > 9)
                return 0;
            v = v * 10 + dg;
        }
        *out = neg ? -(int64_t)v : (int64_t)v;
        return 1;
    }
    for (; i < n; i++) {
        unsigned dg = (unsigned)(unsigned char)s[i] - '0';
        if (dg > 9 || v > (UINT64_MAX - dg) / 10)
            return 0;
        v = v * 10 + dg;
    }
    if (neg ? v > (uint64_t)INT64_MAX + 1 : v > (uint64_t)INT64_MAX)
        return 0;
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return 1;
}

static void key_words(const pal_ascii *a, int k, const char *s, size_t n, uint64_t *h, int *ok)
{
    int64_t v;
    *ok = 1;
    if (a->key_string[k]) {
        *h = hash_bytes(s, n);
    } else if (parse_i64(s, n, &v)) {
        *h = (uint64_t)v;
    } else {
        *ok = 0;
        *h = 0;
    }
}

static int key_eq(const akey *e, uint64_t h1, const char *s1, size_t n1, uint64_t h2,
                  const char *s2, size_t n2, int has2, const int *str)
{
    if (e->has2 != has2 || e->h1 != h1 || (has2 && e->h2 != h2))
        return 0;
    if (str[0] && (e->n1 != n1 || memcmp(e->s1, s1, n1) != 0))
        return 0;
    if (has2 && str[1] && (e->n2 != n2 || memcmp(e->s2, s2, n2) != 0))
        return 0;
    return 1;
}

static int32_t key_find(const pal_ascii *a, uint64_t h1, const char *s1, size_t n1, uint64_t h2,
                        const char *s2, size_t n2, int has2)
{
    if (!a->table)
        return -1;
    for (size_t i = mix(h1, has2 ? h2 : 0, has2) & a->tmask;; i = (i + 1) & a->tmask) {
        const akey *e = &a->table[i];
        if (e->rec < 0)
            return -1;
        if (key_eq(e, h1, s1, n1, h2, s2, n2, has2, a->key_string))
            return e->rec;
    }
}

static pal_status build_keys(pal_ascii *a)
{
    const edl_dict *ed = a->d->ed;
    size_t nb = edl_dict_bind_count(ed);
    a->key_count = edl_dict_key_count(ed);
    a->default_rec = (int32_t)edl_dict_default_record(ed);
    if (a->key_count == 0 && a->default_rec < 0 && a->nrecs)
        a->default_rec = 0;
    for (unsigned k = 0; k < a->key_count && k < 2; k++) {
        a->key_index[k] = edl_dict_key_index(ed, k);
        /* integer versus string: from any record bound (they agree) */
        a->key_string[k] = 0;
        for (size_t i = 0; i < a->nrecs; i++) {
            const pal_recdesc *rd = a->recs[i].rd;
            if (a->key_index[k] < rd->nfields) {
                a->key_string[k] = rd->fields[a->key_index[k]].tclass == PAL_TC_STRING;
                break;
            }
        }
    }
    if (a->key_count == 0 || nb == 0)
        return PAL_OK;
    size_t cap = 16;
    while (cap < nb * 2)
        cap *= 2;
    a->table = calloc(cap, sizeof *a->table);
    if (!a->table)
        return PAL_ENOMEM;
    a->tmask = cap - 1;
    for (size_t i = 0; i < cap; i++)
        a->table[i].rec = -1;
    for (size_t i = 0; i < nb; i++) {
        edl_bind b = edl_dict_bind(ed, i);
        akey e;
        int ok1, ok2 = 1;
        memset(&e, 0, sizeof e);
        if (!b.key1 || b.record >= a->nrecs)
            continue;
        e.s1 = b.key1;
        e.n1 = strlen(b.key1);
        key_words(a, 0, e.s1, e.n1, &e.h1, &ok1);
        if (b.key2 && a->key_count > 1) {
            e.s2 = b.key2;
            e.n2 = strlen(b.key2);
            e.has2 = 1;
            key_words(a, 1, e.s2, e.n2, &e.h2, &ok2);
        } else if (b.key2) {
            continue;
        }
        if (!ok1 || !ok2)
            continue;       /* a key no token can match */
        e.rec = (int32_t)b.record;
        if (key_find(a, e.h1, e.s1, e.n1, e.h2, e.s2, e.n2, e.has2) >= 0)
            continue;
        size_t j = mix(e.h1, e.has2 ? e.h2 : 0, e.has2) & a->tmask;
        while (a->table[j].rec >= 0)
            j = (j + 1) & a->tmask;
        a->table[j] = e;
    }
    return PAL_OK;
}

static double unit_ns(const char *u)
{
    if (!u || !strcmp(u, "ns") || !strcmp(u, "ticks"))
        return 1;
    if (!strcmp(u, "us"))
        return 1e3;
    if (!strcmp(u, "ms"))
        return 1e6;
    if (!strcmp(u, "s"))
        return 1e9;
    return 1;
}

static pal_status build_recs(pal_ascii *a)
{
    const pal_dict *d = a->d;
    const edl_dict *ed = d->ed;
    a->nrecs = d->nrecs;
    a->recs = calloc(a->nrecs ? a->nrecs : 1, sizeof *a->recs);
    if (!a->recs)
        return PAL_ENOMEM;
    const char *frac = edl_dict_time_fraction_field(ed);
    for (size_t r = 0; r < a->nrecs; r++) {
        arec *ar = &a->recs[r];
        const pal_recdesc *rd = d->recs[r];
        ar->rd = rd;
        ar->nf = (uint32_t)rd->nfields;
        ar->time_fi = rd->time_fi;
        ar->process_fi = rd->process_fi;
        ar->thread_fi = rd->thread_fi;
        ar->frac_fi = frac && *frac ? (int32_t)pal_field_lookup(rd, frac) : -1;
        ar->f = calloc(ar->nf ? ar->nf : 1, sizeof *ar->f);
        if (!ar->f)
            return PAL_ENOMEM;
        for (uint32_t i = 0; i < ar->nf; i++) {
            const edl_field *ef = edl_record_field(rd->er, i);
            afield *f = &ar->f[i];
            f->name = rd->fields[i].name;
            f->optional = (edl_field_flags(ef) & EDL_FIELD_OPTIONAL) != 0;
            if (edl_field_type(ef) != EDL_ARRAY) {
                set_comp(&f->c, (pal_type)edl_field_type(ef));
                continue;
            }
            f->array = 1;
            size_t cf = edl_field_count_field(ef), sf = edl_field_shape_field(ef);
            f->count_fi = cf == EDL_NO_FIELD ? -1 : (int32_t)cf;
            f->shape_fi = sf == EDL_NO_FIELD ? -1 : (int32_t)sf;
            f->format = (edl_field_shape_flags(ef) & EDL_SHAPE_FORMAT) != 0;
            size_t ns = edl_field_shape_count(ef);
            f->shapes = calloc(ns ? ns : 1, sizeof *f->shapes);
            if (!f->shapes)
                return PAL_ENOMEM;
            for (size_t s = 0; s < ns; s++) {
                size_t nc = edl_field_component_count(ef, s);
                edl_component *c = calloc(nc ? nc : 1, sizeof *c);
                if (!c)
                    return PAL_ENOMEM;
                for (size_t j = 0; j < nc; j++)
                    c[j] = edl_field_component(ef, s, j);
                f->nshapes++;
                int rc = shape_set(&f->shapes[s], edl_field_shape_token(ef, s), c, nc);
                free(c);
                if (rc)
                    return PAL_ENOMEM;
            }
        }
    }
    a->time_ns_per_unit = unit_ns(edl_dict_time_unit(ed));
    a->frac_ns_per_unit = unit_ns(edl_dict_time_fraction_unit(ed));
    return PAL_OK;
}

void pal_ascii_close(pal_ascii *a)
{
    if (!a)
        return;
    for (size_t r = 0; a->recs && r < a->nrecs; r++) {
        arec *ar = &a->recs[r];
        for (uint32_t i = 0; ar->f && i < ar->nf; i++) {
            for (uint32_t s = 0; s < ar->f[i].nshapes; s++)
                shape_free(&ar->f[i].shapes[s]);
            free(ar->f[i].shapes);
            shape_free(&ar->f[i].fmt);
        }
        free(ar->f);
    }
    free(a->recs);
    free(a->table);
    free(a->buf);
    free(a->toks);
    free(a->vals);
    free(a->lens);
    free(a->arrs);
    free(a->tix);
    free(a->ivals);
    free(a->ilens);
    free(a);
}

pal_status pal_ascii_open(pal_ascii **out, const pal_dict *d, int fd)
{
    pal_ascii *a = calloc(1, sizeof *a);
    *out = NULL;
    if (!a)
        return PAL_ENOMEM;
    a->d = d;
    a->fd = fd;
    const edl_dict *ed = d->ed;
    for (const char *s = edl_dict_separators(ed); s && *s; s++)
        a->sep[(unsigned char)*s] = 1;
    unsigned fl = edl_dict_ascii_flags(ed);
    a->merge = (fl & EDL_ASCII_MERGE) != 0;
    a->trailing_comment = (fl & EDL_ASCII_TRAILING_COMMENT) != 0;
    a->blank_error = (fl & EDL_ASCII_BLANK_ERROR) != 0;
    a->doubled = (fl & EDL_ASCII_QUOTE_DOUBLED) != 0;
    a->quote = edl_dict_quote(ed);
    a->comment = edl_dict_comment(ed);
    if (!a->comment)
        a->comment = "";
    a->comlen = strlen(a->comment);
    a->skip_lines = edl_dict_skip_lines(ed);
    a->nvals = d->max_fields ? d->max_fields : 1;
    a->vals = calloc(a->nvals, sizeof *a->vals);
    a->lens = calloc(a->nvals, sizeof *a->lens);
    a->arrs = calloc(a->nvals, sizeof *a->arrs);
    a->tix = calloc(a->nvals, sizeof *a->tix);
    a->bcap = ASCII_BLOCK;
    a->buf = malloc(a->bcap + 1);
    a->captoks = 64;
    a->toks = malloc(a->captoks * sizeof *a->toks);
    a->capitems = 256;
    a->ivals = malloc(a->capitems * sizeof *a->ivals);
    a->ilens = malloc(a->capitems * sizeof *a->ilens);
    pal_status st = PAL_ENOMEM;
    if (!a->vals || !a->lens || !a->arrs || !a->tix || !a->buf || !a->toks || !a->ivals || !a->ilens ||
        (st = build_recs(a)) != PAL_OK || (st = build_keys(a)) != PAL_OK) {
        pal_ascii_close(a);
        return st;
    }
    *out = a;
    return PAL_OK;
}

/* ---------------------------------------------------------------- lines */

/* The next line in [*s, *s + *n) (without \n and a \r before it); its file
 * offset in *off. 0 at the end of file, -1 on a read error (errno). */
static int next_line(pal_ascii *a, char **s, size_t *n, uint64_t *off)
{
    for (;;) {
        char *p = a->buf + a->bpos;
        size_t avail = a->blen - a->bpos;
        char *nl = avail ? memchr(p, '\n', avail) : NULL;
        if (nl || (a->eof && avail)) {
            size_t len = nl ? (size_t)(nl - p) : avail;
            *s = p;
            *off = a->boff + a->bpos;
            a->bpos += nl ? len + 1 : len;
            if (len && p[len - 1] == '\r')
                len--;
            *n = len;
            p[len] = '\0';    /* the \n, the \r, or the slack byte after the data */
            a->line++;
            return 1;
        }
        if (a->eof)
            return 0;
        /* keep the partial line, read more behind it */
        if (a->bpos) {
            memmove(a->buf, p, avail);
            a->boff += a->bpos;
            a->blen = avail;
            a->bpos = 0;
        }
        if (a->blen == a->bcap) {
            size_t cap = a->bcap * 2;
            char *nb = realloc(a->buf, cap + 1);
            if (!nb) {
                errno = ENOMEM;
                return -1;
            }
            a->buf = nb;
            a->bcap = cap;
        }
        ssize_t k;
        do
            k = read(a->fd, a->buf + a->blen, a->bcap - a->blen);
        while (k < 0 && errno == EINTR);
        if (k < 0)
            return -1;
        if (k == 0)
            a->eof = 1;
        a->blen += (size_t)k;
    }
}

static void PAL_PRINTF(3, 4) bad(pal_ascii *a, uint32_t col, const char *fmt, ...)
{
    va_list ap;
    a->col = col;
    va_start(ap, fmt);
    vsnprintf(a->msg, a->msglen, fmt, ap);
    va_end(ap);
}

/* Quotes a token for a message: at most 40 bytes. */
static const char *shown(const atok *t, char *buf, size_t size)
{
    size_t n = t->n < 40 ? t->n : 40;
    if (n >= size)
        n = size - 1;
    memcpy(buf, t->s, n);
    buf[n] = '\0';
    if (t->n > n && n >= 3)
        memcpy(buf + n - 3, "...", 3);
    return buf;
}

static int push_tok(pal_ascii *a, char *s, size_t n, uint32_t col)
{
    if (PAL_UNLIKELY(a->ntoks == a->captoks)) {
        size_t cap = a->captoks * 2;
        atok *t = realloc(a->toks, cap * sizeof *t);
        if (!t)
            return -1;
        a->toks = t;
        a->captoks = cap;
    }
    atok *t = &a->toks[a->ntoks++];
    t->s = s;
    t->n = (uint32_t)n;
    t->col = col;
    return 0;
}

/* Splits the line [line, line + n) (NUL at line[n]) into tokens, in place.
 * 1 ok, 0 blank or comment, -1 bad (message set), -2 out of memory. */
static int tokenize(pal_ascii *a, char *line, size_t n)
{
    const uint8_t *sep = a->sep;
    char *p = line, *end = line + n;
    char q = a->quote;
    a->ntoks = 0;
    /* blank and comment lines */
    char *f = line;
    while (f < end && (*f == ' ' || *f == '\t' || (a->merge && sep[(unsigned char)*f])))
        f++;
    if (f == end) {
        if (a->blank_error) {
            bad(a, 1, "blank line");
            return -1;
        }
        return 0;
    }
    if (a->comlen && (size_t)(end - f) >= a->comlen && memcmp(f, a->comment, a->comlen) == 0)
        return 0;
    for (;;) {
        if (a->merge) {
            while (p < end && sep[(unsigned char)*p])
                p++;
            if (p == end)
                return 1;
        } else {
            while (p < end && (*p == ' ' || *p == '\t') && !sep[(unsigned char)*p])
                p++;
        }
        if (a->trailing_comment && a->comlen && (size_t)(end - p) >= a->comlen &&
            memcmp(p, a->comment, a->comlen) == 0)
            return 1;
        char *start = p, *o;
        uint32_t col = (uint32_t)(p - line) + 1;
        if (q && p < end && *p == q) {
            o = start;
            p++;
            for (;;) {
                if (p == end) {
                    bad(a, col, "unterminated quoted token");
                    return -1;
                }
                if (*p == q) {
                    if (a->doubled && p + 1 < end && p[1] == q) {
                        *o++ = q;
                        p += 2;
                        continue;
                    }
                    p++;
                    break;
                }
                if (!a->doubled && *p == '\\' && p + 1 < end) {
                    *o++ = p[1];
                    p += 2;
                    continue;
                }
                *o++ = *p++;
            }
            while (!a->merge && p < end && (*p == ' ' || *p == '\t') && !sep[(unsigned char)*p])
                p++;
            if (p < end && !sep[(unsigned char)*p]) {
                bad(a, (uint32_t)(p - line) + 1, "text after a closing quote");
                return -1;
            }
        } else {
            while (p < end && !sep[(unsigned char)*p])
                p++;
            o = p;
            while (!a->merge && o > start && (o[-1] == ' ' || o[-1] == '\t'))
                o--;
        }
        int at_end = p == end;
        if (!at_end)
            p++;             /* one separator */
        *o = '\0';
        if (push_tok(a, start, (size_t)(o - start), col))
            return -2;
        if (at_end)
            return 1;
    }
}

/* ---------------------------------------------------------------- values */

static const double pow10_tab[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
                                   1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
                                   1e20, 1e21, 1e22};

/* A float token by the number syntax (NUL-terminated); 0 if it is not one. */
static int parse_f64(const char *s, size_t n, double *out)
{
    const char *p = s, *e = s + n;
    int neg = 0;
    if (p < e && (*p == '+' || *p == '-'))
        neg = *p++ == '-';
    uint64_t m = 0;
    int digits = 0, sig = 0, frac = 0, exact = 1;
    for (; p < e && (unsigned)(*p - '0') <= 9; p++, digits++) {
        if (sig < 19) {
            m = m * 10 + (uint64_t)(*p - '0');
            sig += m != 0;
        } else {
            exact = 0;
        }
    }
    if (p < e && *p == '.') {
        for (p++; p < e && (unsigned)(*p - '0') <= 9; p++, digits++) {
            if (sig < 19) {
                m = m * 10 + (uint64_t)(*p - '0');
                sig += m != 0;
                frac++;
            } else {
                exact = 0;
            }
        }
    }
    if (!digits)
        return 0;
    if (p < e && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < e && (*p == '+' || *p == '-'))
            p++;
        if (p == e || (unsigned)(*p - '0') > 9)
            return 0;
        while (p < e && (unsigned)(*p - '0') <= 9)
            p++;
        exact = 0;
    }
    if (p != e)
        return 0;
    if (exact && m < ((uint64_t)1 << 53) && frac <= 22) {
        double v = (double)m / pow10_tab[frac];     /* both exact: correctly rounded */
        *out = neg ? -v : v;
        return 1;
    }
    *out = strtod(s, NULL);
    return 1;
}

enum { CV_OK = 0, CV_SYNTAX, CV_RANGE };

static int convert(const acomp *c, const atok *t, pal_value *v, uint32_t *len)
{
    switch (c->tclass) {
    case PAL_TC_SIGNED: {
        int64_t x;
        if (!parse_i64(t->s, t->n, &x)) {
            /* a valid integer that overflows int64 is a range problem */
            size_t i = t->n && (t->s[0] == '-' || t->s[0] == '+');
            if (i == t->n)
                return CV_SYNTAX;
            for (; i < t->n; i++)
                if ((unsigned)(t->s[i] - '0') > 9)
                    return CV_SYNTAX;
            return CV_RANGE;
        }
        if (x < c->min || (x > 0 && (uint64_t)x > c->max))
            return CV_RANGE;
        v->i = x;
        return CV_OK;
    }
    case PAL_TC_UNSIGNED: {
        const char *s = t->s;
        size_t n = t->n, i = 0;
        int neg = 0;
        if (n && (s[0] == '-' || s[0] == '+'))
            neg = s[i++] == '-';
        if (i == n)
            return CV_SYNTAX;
        uint64_t x = 0;
        int over = 0;
        for (; i < n; i++) {
            unsigned dg = (unsigned)(unsigned char)s[i] - '0';
            if (dg > 9)
                return CV_SYNTAX;
            if (x > (UINT64_MAX - dg) / 10)
                over = 1;
            else
                x = x * 10 + dg;
        }
        if (over || x > c->max || (neg && x))
            return CV_RANGE;
        v->u = x;
        return CV_OK;
    }
    case PAL_TC_FLOAT: {
        double x;
        if (!parse_f64(t->s, t->n, &x))
            return CV_SYNTAX;
        if (c->type == PAL_FLOAT32) {
            if (x > FLT_MAX || x < -FLT_MAX)
                return CV_RANGE;        /* (a conversion to float would be undefined) */
            x = (double)(float)x;
        }
        v->f = x;
        return CV_OK;
    }
    default:
        v->s = (const unsigned char *)t->s;
        *len = t->n;
        return CV_OK;
    }
}

static int conv_report(pal_ascii *a, int rc, const char *what, const acomp *c, const atok *t)
{
    char sh[48];
    if (rc == CV_SYNTAX)
        bad(a, t->col, "%s: expected %s, got '%s'", what,
            edl_type_name((edl_type)c->type), shown(t, sh, sizeof sh));
    else
        bad(a, t->col, "%s: value '%s' out of range for %s", what, shown(t, sh, sizeof sh),
            edl_type_name((edl_type)c->type));
    return -1;
}

static int grow_items(pal_ascii *a, size_t need)
{
    if (need <= a->capitems)
        return 0;
    size_t cap = a->capitems * 2;
    while (cap < need)
        cap *= 2;
    pal_value *v = realloc(a->ivals, cap * sizeof *v);
    if (!v)
        return -1;
    a->ivals = v;
    uint32_t *l = realloc(a->ilens, cap * sizeof *l);
    if (!l)
        return -1;
    a->ilens = l;
    a->capitems = cap;
    return 0;
}

/* The item shape of array f in this line; NULL when it has none (message set). */
static const ashape *item_shape(pal_ascii *a, afield *f, const atok *shape_tok)
{
    if (f->shape_fi < 0)
        return &f->shapes[0];
    if (!shape_tok) {
        bad(a, 0, "array '%s': no item shape (field absent)", f->name);
        return NULL;
    }
    for (uint32_t s = 0; s < f->nshapes; s++)
        if (f->shapes[s].toklen == shape_tok->n &&
            memcmp(f->shapes[s].token, shape_tok->s, shape_tok->n) == 0)
            return &f->shapes[s];
    char sh[48];
    if (f->format) {
        if (f->fmt_valid && strlen(f->fmt_text) == shape_tok->n &&
            memcmp(f->fmt_text, shape_tok->s, shape_tok->n) == 0)
            return &f->fmt;
        edl_component c[MAX_FORMAT_COMPONENTS];
        long m = edl_format_components(shape_tok->s, c, MAX_FORMAT_COMPONENTS);
        if (m < 0 || m > MAX_FORMAT_COMPONENTS) {
            bad(a, shape_tok->col, "array '%s': bad item format '%s'", f->name,
                shown(shape_tok, sh, sizeof sh));
            return NULL;
        }
        shape_free(&f->fmt);
        memset(&f->fmt, 0, sizeof f->fmt);
        f->fmt_valid = 0;
        if (shape_set(&f->fmt, "", c, (size_t)m)) {
            bad(a, shape_tok->col, "out of memory");
            return NULL;
        }
        if (shape_tok->n < sizeof f->fmt_text) {
            memcpy(f->fmt_text, shape_tok->s, shape_tok->n);
            f->fmt_text[shape_tok->n] = '\0';
            f->fmt_valid = 1;
        }
        return &f->fmt;
    }
    bad(a, shape_tok->col, "array '%s': no item shape for '%s'", f->name,
        shown(shape_tok, sh, sizeof sh));
    return NULL;
}

/* Consumes the tokens of one line as record ar. 0 ok, -1 bad (message set). */
static int fill(pal_ascii *a, const arec *ar, uint32_t end_col)
{
    const atok *t = a->toks;
    size_t n = a->ntoks, i = 0;
    size_t nitems = 0;
    for (uint32_t fi = 0; fi < ar->nf; fi++) {
        afield *f = &ar->f[fi];
        if (!f->array) {
            if (i >= n) {
                if (f->optional) {
                    a->lens[fi] = PAL_ABSENT;
                    continue;
                }
                bad(a, end_col, "field '%s': missing", f->name);
                return -1;
            }
            int rc = convert(&f->c, &t[i], &a->vals[fi], &a->lens[fi]);
            if (PAL_UNLIKELY(rc != CV_OK)) {
                char what[160];
                snprintf(what, sizeof what, "field '%s'", f->name);
                return conv_report(a, rc, what, &f->c, &t[i]);
            }
            if (f->c.tclass != PAL_TC_STRING)
                a->lens[fi] = 0;
            a->tix[fi] = (uint32_t)i;
            i++;
            continue;
        }
        /* an array: the count, the shape, the items */
        int64_t count = -1;
        if (f->count_fi >= 0) {
            const afield *cf = &ar->f[f->count_fi];
            if (a->lens[f->count_fi] == PAL_ABSENT) {
                count = 0;
            } else if (cf->c.tclass == PAL_TC_UNSIGNED) {
                count = a->vals[f->count_fi].u > (uint64_t)INT64_MAX
                            ? -1 : (int64_t)a->vals[f->count_fi].u;
            } else {
                count = a->vals[f->count_fi].i;
            }
            if (count < 0) {
                bad(a, end_col, "array '%s': negative count %" PRId64, f->name, count);
                return -1;
            }
        }
        const ashape *sh = NULL;
        if (count != 0 || f->count_fi < 0) {
            const atok *stok = NULL;
            if (f->shape_fi >= 0 && a->lens[f->shape_fi] != PAL_ABSENT) {
                stok = &t[a->tix[f->shape_fi]];
            }
            if (count < 0 && f->shape_fi >= 0 && i == n)
                count = 0;      /* rest of the record, nothing left: no shape needed */
            else if (!(sh = item_shape(a, f, stok))) {
                if (!a->col)
                    a->col = end_col;
                return -1;
            }
        }
        uint32_t k = sh ? sh->ncomp : 0;
        if (count < 0) {
            if (k == 0 || (n - i) % k) {
                bad(a, i < n ? t[i].col : end_col,
                    "array '%s': %zu tokens left is not a whole number of items", f->name,
                    n - i);
                return -1;
            }
            count = (int64_t)((n - i) / k);
        }
        if (k && (uint64_t)count > (n - i) / k) {     /* count * k > n - i, without overflow */
            bad(a, end_col, "array '%s': %" PRId64 " items of %" PRIu32 " tokens, but %zu "
                "tokens left", f->name, count, k, n - i);
            return -1;
        }
        size_t m = (size_t)count * k;
        if (grow_items(a, nitems + m)) {
            bad(a, 0, "out of memory");
            return -1;
        }
        pal_arr *arr = &a->arrs[fi];
        arr->count = (uint32_t)count;
        arr->ncomp = k;
        arr->first = (uint32_t)nitems;
        arr->tclass = sh ? sh->tclasses : NULL;
        arr->types = sh ? sh->types : NULL;
        for (size_t it = 0; it < m; it++) {
            const acomp *c = &sh->comps[it % k];
            pal_value *v = &a->ivals[nitems + it];
            uint32_t *l = &a->ilens[nitems + it];
            int rc = convert(c, &t[i + it], v, l);
            if (PAL_UNLIKELY(rc != CV_OK)) {
                char what[200];
                snprintf(what, sizeof what, "field '%s' item %zu", f->name, it / k);
                return conv_report(a, rc, what, c, &t[i + it]);
            }
        }
        a->vals[fi].u = (uint64_t)count;
        a->lens[fi] = 0;
        nitems += m;
        i += m;
    }
    if (i < n) {
        char sh[48];
        bad(a, t[i].col, "%zu tokens left over after record '%s' (from '%s')", n - i,
            ar->rd->name, shown(&t[i], sh, sizeof sh));
        return -1;
    }
    /* pointers into the item storage, now that it has stopped moving */
    for (uint32_t fi = 0; fi < ar->nf; fi++)
        if (ar->f[fi].array) {
            a->arrs[fi].v = a->ivals + a->arrs[fi].first;
            a->arrs[fi].len = a->ilens + a->arrs[fi].first;
        }
    return 0;
}

static int64_t to_ns(pal_value v, uint8_t tc, double per_unit)
{
    double x;
    if (tc == PAL_TC_SIGNED) {
        if (per_unit == 1)
            return v.i;
        x = (double)v.i * per_unit;
    } else if (tc == PAL_TC_UNSIGNED) {
        if (per_unit == 1 && v.u <= (uint64_t)INT64_MAX)
            return (int64_t)v.u;
        x = (double)v.u * per_unit;
    } else if (tc == PAL_TC_FLOAT) {
        x = v.f * per_unit;
    } else {
        return 0;
    }
    if (!(x > -9.2e18 && x < 9.2e18))
        return x > 0 ? INT64_MAX : x < 0 ? INT64_MIN : 0;
    return (int64_t)llrint(x);
}

/* ---------------------------------------------------------------- next */

int pal_ascii_next(pal_ascii *a, pal_record *rec, char *msg, size_t msglen, uint64_t *line,
                   uint32_t *col)
{
    a->msg = msg;
    a->msglen = msglen;
    for (;;) {
        char *s;
        size_t n;
        uint64_t off;
        int rc = next_line(a, &s, &n, &off);
        if (rc <= 0) {
            if (rc < 0)
                snprintf(msg, msglen, "read error: %s", strerror(errno));
            return rc < 0 ? -2 : 0;
        }
        if (a->line <= a->skip_lines)
            continue;
        a->col = 0;
        *line = a->line;
        *col = 0;
        rec->offset = off;
        rec->line = a->line;
        rc = tokenize(a, s, n);
        if (rc == 0)
            continue;
        if (rc < 0) {
            if (rc == -2)
                snprintf(msg, msglen, "out of memory");
            *col = a->col;
            return -1;
        }
        /* the key */
        int32_t ri;
        if (a->key_count == 0) {
            ri = a->default_rec;
        } else {
            const atok *k1 = a->key_index[0] < a->ntoks ? &a->toks[a->key_index[0]] : NULL;
            const atok *k2 = a->key_count > 1 && a->key_index[1] < a->ntoks
                                 ? &a->toks[a->key_index[1]] : NULL;
            uint64_t h1 = 0, h2 = 0;
            int ok1 = 0, ok2 = 0;
            ri = -1;
            if (k1)
                key_words(a, 0, k1->s, k1->n, &h1, &ok1);
            if (k2)
                key_words(a, 1, k2->s, k2->n, &h2, &ok2);
            if (ok1 && ok2)
                ri = key_find(a, h1, k1->s, k1->n, h2, k2->s, k2->n, 1);
            if (ri < 0 && ok1)
                ri = key_find(a, h1, k1->s, k1->n, 0, NULL, 0, 0);
            if (ri < 0)
                ri = a->default_rec;
        }
        if (ri < 0) {
            char sh[48], sh2[48];
            const atok *k1 = a->key_index[0] < a->ntoks ? &a->toks[a->key_index[0]] : NULL;
            const atok *k2 = a->key_count > 1 && a->key_index[1] < a->ntoks
                                 ? &a->toks[a->key_index[1]] : NULL;
            if (k2)
                snprintf(msg, msglen, "unknown record: key '%s' '%s' matches no bind entry",
                         shown(k1, sh, sizeof sh), shown(k2, sh2, sizeof sh2));
            else if (k1)
                snprintf(msg, msglen, "unknown record: key '%s' matches no bind entry",
                         shown(k1, sh, sizeof sh));
            else
                snprintf(msg, msglen, "unknown record: the line has no key field (%zu tokens)",
                         a->ntoks);
            *col = k1 ? k1->col : 1;
            return -1;
        }
        const arec *ar = &a->recs[ri];
        if (fill(a, ar, (uint32_t)n + 1) != 0) {
            char tmp[600];
            snprintf(tmp, sizeof tmp, "record '%s': %s", ar->rd->name, msg);
            snprintf(msg, msglen, "%s", tmp);
            *col = a->col ? a->col : 1;
            return -1;
        }
        rec->desc = ar->rd;
        rec->vals = a->vals;
        rec->lens = a->lens;
        rec->arrs = a->arrs;
        int64_t tns = 0;
        int has_time = 0;
        if (ar->time_fi >= 0 && a->lens[ar->time_fi] != PAL_ABSENT) {
            tns = to_ns(a->vals[ar->time_fi], ar->rd->fields[ar->time_fi].tclass,
                        a->time_ns_per_unit);
            has_time = 1;
        }
        if (ar->frac_fi >= 0 && a->lens[ar->frac_fi] != PAL_ABSENT) {
            int64_t frac = to_ns(a->vals[ar->frac_fi], ar->rd->fields[ar->frac_fi].tclass,
                                 a->frac_ns_per_unit);
            if (frac > 0 && tns > INT64_MAX - frac)      /* saturate, never wrap */
                tns = INT64_MAX;
            else if (frac < 0 && tns < INT64_MIN - frac)
                tns = INT64_MIN;
            else
                tns += frac;
            has_time = 1;
        }
        rec->time_ns = tns;
        rec->time = has_time && tns > 0 ? (uint64_t)tns : 0;
        rec->process = ar->process_fi >= 0 && a->lens[ar->process_fi] != PAL_ABSENT
            ? (uint32_t)pal_value_as_u64(a->vals[ar->process_fi],
                                         ar->rd->fields[ar->process_fi].tclass) : 0;
        rec->stream = ar->thread_fi >= 0 && a->lens[ar->thread_fi] != PAL_ABSENT
            ? (uint32_t)pal_value_as_u64(a->vals[ar->thread_fi],
                                         ar->rd->fields[ar->thread_fi].tclass) : 0;
        return 1;
    }
}
