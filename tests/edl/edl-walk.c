/* edl-walk.c -- a small reference reader for the tests of the EDL compiler:
 * walks an ascii trace (or a raw binary record stream) with nothing but a
 * dictionary, following doc/dictionary-format.md to the letter, and counts the
 * records of each type. It shows that a shipped descriptor really describes
 * its samples; PAL's readers are the real thing.
 *
 *   edl-walk [--dump] [--max-errors N] DESCRIPTOR.edl|DICT.bin TRACE
 *
 * Prints "RECORD COUNT" per record type that occurs, then "unknown N" and
 * "errors N"; with --dump, every record too. Exit 0 when every record was
 * recognised and well formed, 1 otherwise, 2 on usage or I/O errors. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "edl/edl.h"

typedef struct token {
    const char *text;   /* unquoted, NUL-terminated */
} token;

typedef struct walker {
    const edl_dict *d;
    const char *path;
    unsigned long line;
    size_t *counts;
    size_t unknown, errors, max_errors;
    int dump;
    int key_is_string[2];
} walker;

static void bad(walker *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#include <stdarg.h>
static void bad(walker *w, const char *fmt, ...)
{
    w->errors++;
    if (w->errors > w->max_errors)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s:%lu: ", w->path, w->line);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* ---- ascii values (doc/dictionary-format.md, "Ascii representation") ---- */

static int parse_int(const char *s, int is_signed, edl_type t, int64_t *out)
{
    const char *p = s;
    int neg = 0;
    if (*p == '-' || *p == '+')
        neg = *p++ == '-';
    if (*p < '0' || *p > '9')
        return 0;
    uint64_t v = 0;
    for (; *p; p++) {
        if (*p < '0' || *p > '9')
            return 0;
        if (v > (UINT64_MAX - (uint64_t)(*p - '0')) / 10)
            return 0;
        v = v * 10 + (uint64_t)(*p - '0');
    }
    static const uint64_t max[] = {0, 0x7f, 0x7fff, 0x7fffffff, 0x7fffffffffffffffULL,
                                   0xff, 0xffff, 0xffffffff, UINT64_MAX};
    if (neg && v && !is_signed)
        return 0;
    if (neg ? v > max[t] + 1 : v > max[t])
        return 0;
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return 1;
}

static int parse_float(const char *s, double *out)
{
    /* [+-] digits [. digits] [e [+-] digits], at least one digit before e */
    const char *p = s;
    if (*p == '+' || *p == '-')
        p++;
    int digits = 0;
    while (*p >= '0' && *p <= '9')
        p++, digits++;
    if (*p == '.')
        for (p++; *p >= '0' && *p <= '9'; p++)
            digits++;
    if (!digits)
        return 0;
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (*p < '0' || *p > '9')
            return 0;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    if (*p)
        return 0;
    *out = strtod(s, NULL);
    return 1;
}

static int check_value(walker *w, const char *what, edl_type t, const char *tok, FILE *dump)
{
    int64_t iv;
    double fv;
    switch (t) {
    case EDL_INT8: case EDL_INT16: case EDL_INT32: case EDL_INT64:
    case EDL_UINT8: case EDL_UINT16: case EDL_UINT32: case EDL_UINT64:
        if (!parse_int(tok, t <= EDL_INT64, t, &iv)) {
            bad(w, "%s: expected %s, got '%s'", what, edl_type_name(t), tok);
            return 0;
        }
        break;
    case EDL_FLOAT32: case EDL_FLOAT64:
        if (!parse_float(tok, &fv)) {
            bad(w, "%s: expected %s, got '%s'", what, edl_type_name(t), tok);
            return 0;
        }
        break;
    default:
        break;
    }
    if (dump)
        fprintf(dump, "%s", tok);
    return 1;
}

/* ---- ascii lines ---- */

static int is_sep(const edl_dict *d, char c)
{
    return c && strchr(edl_dict_separators(d), c) != NULL;
}

static int blank_char(const edl_dict *d, char c)
{
    return c == ' ' || c == '\t' || ((edl_dict_ascii_flags(d) & EDL_ASCII_MERGE) && is_sep(d, c));
}

static void push(token **toks, size_t *n, size_t *cap, const char *text)
{
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 16;
        *toks = realloc(*toks, *cap * sizeof **toks);
        if (!*toks)
            exit(2);
    }
    (*toks)[(*n)++].text = text;
}

/* Splits line (modified in place) into tokens; -1 on a malformed line. */
static int tokenize(walker *w, char *line, token **toks, size_t *n, size_t *cap)
{
    const edl_dict *d = w->d;
    unsigned fl = edl_dict_ascii_flags(d);
    int merge = (fl & EDL_ASCII_MERGE) != 0;
    char quote = edl_dict_quote(d);
    const char *com = edl_dict_comment(d);
    size_t comlen = strlen(com);
    char *p = line;
    *n = 0;
    for (;;) {
        /* the start of a token */
        while (*p && (merge ? is_sep(d, *p) : (*p == ' ' || *p == '\t') && !is_sep(d, *p)))
            p++;
        if (merge && !*p)
            return 0;
        if ((fl & EDL_ASCII_TRAILING_COMMENT) && comlen && strncmp(p, com, comlen) == 0)
            return 0;
        char *start = p, *o = p;
        if (quote && *p == quote) {
            for (p++;;) {
                if (!*p) {
                    bad(w, "unterminated quoted token");
                    return -1;
                }
                if (*p == quote && (fl & EDL_ASCII_QUOTE_DOUBLED) && p[1] == quote) {
                    *o++ = quote;
                    p += 2;
                } else if (*p == quote) {
                    p++;
                    break;
                } else if (!(fl & EDL_ASCII_QUOTE_DOUBLED) && *p == '\\' && p[1]) {
                    *o++ = p[1];
                    p += 2;
                } else {
                    *o++ = *p++;
                }
            }
            while (!merge && (*p == ' ' || *p == '\t') && !is_sep(d, *p))
                p++;
            if (*p && !is_sep(d, *p)) {
                bad(w, "text after a closing quote");
                return -1;
            }
        } else {
            while (*p && !is_sep(d, *p))
                *o++ = *p++;
            while (!merge && o > start && (o[-1] == ' ' || o[-1] == '\t'))
                o--;
        }
        int at_end = *p == 0;
        if (!at_end)
            p++;   /* one separator */
        *o = 0;
        push(toks, n, cap, start);
        if (at_end)
            return 0;
    }
}

static const char *canon_key(walker *w, int k, const char *tok, char *buf, size_t len)
{
    if (w->key_is_string[k])
        return tok;
    int64_t v;
    if (!parse_int(tok, 1, EDL_INT64, &v))
        return NULL;
    snprintf(buf, len, "%lld", (long long)v);
    return buf;
}

static void walk_ascii_record(walker *w, const edl_record *r, const token *t, size_t n)
{
    size_t nf = edl_record_field_count(r), i = 0;
    const char **value = calloc(nf ? nf : 1, sizeof *value);
    FILE *dump = w->dump ? stdout : NULL;
    int ok = 1;
    if (dump)
        fprintf(dump, "%s", edl_record_name(r));
    for (size_t f = 0; f < nf && ok; f++) {
        const edl_field *fd = edl_record_field(r, f);
        const char *name = edl_field_name(fd);
        if (edl_field_type(fd) != EDL_ARRAY) {
            if (i >= n) {
                if (edl_field_flags(fd) & EDL_FIELD_OPTIONAL)
                    continue;
                bad(w, "field '%s': missing", name);
                ok = 0;
                break;
            }
            if (dump)
                fprintf(dump, " %s=", name);
            value[f] = t[i].text;
            ok = check_value(w, name, edl_field_type(fd), t[i++].text, dump);
            continue;
        }
        /* an array: its count, then its item shape */
        size_t cf = edl_field_count_field(fd), sf = edl_field_shape_field(fd);
        long long count = -1;
        if (cf != EDL_NO_FIELD) {
            int64_t v = 0;
            if (value[cf] && !parse_int(value[cf], 1, EDL_INT64, &v))
                v = -1;
            if (v < 0) {
                bad(w, "array '%s': bad count", name);
                ok = 0;
                break;
            }
            count = v;
        }
        edl_component fmt[64], *comps = fmt;
        size_t k = 0;
        if (sf == EDL_NO_FIELD) {
            k = edl_field_component_count(fd, 0);
            if (k > 64)
                k = 64;
            for (size_t c = 0; c < k; c++)
                fmt[c] = edl_field_component(fd, 0, c);
        } else if (count != 0 || (cf == EDL_NO_FIELD && i < n)) {
            const char *tok = value[sf];
            long s = tok ? edl_field_find_shape(fd, tok) : -1;
            if (s >= 0) {
                k = edl_field_component_count(fd, (size_t)s);
                if (k > 64)
                    k = 64;
                for (size_t c = 0; c < k; c++)
                    fmt[c] = edl_field_component(fd, (size_t)s, c);
            } else if (tok && (edl_field_shape_flags(fd) & EDL_SHAPE_FORMAT)) {
                long m = edl_format_components(tok, fmt, 64);
                if (m < 0 || m > 64) {
                    bad(w, "array '%s': bad item format '%s'", name, tok);
                    ok = 0;
                    break;
                }
                k = (size_t)m;
            } else {
                bad(w, "array '%s': no item shape for '%s'", name, tok ? tok : "(absent)");
                ok = 0;
                break;
            }
        }
        if (count < 0) {   /* rest of the record */
            if (k == 0 || (n - i) % k) {
                bad(w, "array '%s': %zu tokens left is not a whole number of items", name,
                    n - i);
                ok = 0;
                break;
            }
            count = (long long)((n - i) / k);
        }
        if ((unsigned long long)count * k > n - i) {
            bad(w, "array '%s': %lld items of %zu tokens, but %zu tokens left", name, count, k,
                n - i);
            ok = 0;
            break;
        }
        if (dump)
            fprintf(dump, " %s=[", name);
        for (long long it = 0; it < count && ok; it++)
            for (size_t c = 0; c < k && ok; c++) {
                if (dump && (it || c))
                    fputc(c ? ',' : ' ', dump);
                ok = check_value(w, name, comps[c].type, t[i++].text, dump);
            }
        if (dump)
            fputc(']', dump);
    }
    if (ok && i < n) {
        bad(w, "%zu tokens left over after record '%s'", n - i, edl_record_name(r));
        ok = 0;
    }
    if (dump)
        fputc('\n', dump);
    if (ok)
        w->counts[edl_record_index(r)]++;
    free(value);
}

static int walk_ascii(walker *w, FILE *f)
{
    const edl_dict *d = w->d;
    char *line = NULL;
    size_t lcap = 0, cap = 0, n;
    token *toks = NULL;
    unsigned skip = edl_dict_skip_lines(d);
    const char *com = edl_dict_comment(d);
    size_t comlen = strlen(com);
    unsigned kc = edl_dict_key_count(d);
    ssize_t len;
    while ((len = getline(&line, &lcap, f)) >= 0) {
        w->line++;
        if (len && line[len - 1] == '\n')
            line[--len] = 0;
        if (len && line[len - 1] == '\r')
            line[--len] = 0;
        if (w->line <= skip)
            continue;
        char *p = line;
        while (*p && blank_char(d, *p))
            p++;
        if (!*p) {
            if (edl_dict_ascii_flags(d) & EDL_ASCII_BLANK_ERROR)
                bad(w, "blank line");
            continue;
        }
        if (comlen && strncmp(p, com, comlen) == 0)
            continue;
        if (tokenize(w, line, &toks, &n, &cap) < 0)
            continue;
        const char *key[2] = {NULL, NULL};
        char buf[2][32];
        int keys_ok = 1;
        for (unsigned k = 0; k < kc; k++) {
            unsigned idx = edl_dict_key_index(d, k);
            if (idx >= n) {
                keys_ok = 0;
                break;
            }
            key[k] = canon_key(w, (int)k, toks[idx].text, buf[k], sizeof buf[k]);
            if (!key[k])
                keys_ok = 0;
        }
        long rec = keys_ok ? edl_dict_lookup(d, key[0], key[1]) : edl_dict_default_record(d);
        if (rec < 0) {
            w->unknown++;
            if (w->unknown <= w->max_errors)
                fprintf(stderr, "%s:%lu: unknown record\n", w->path, w->line);
            continue;
        }
        walk_ascii_record(w, edl_dict_record(d, (size_t)rec), toks, n);
    }
    free(line);
    free(toks);
    return 0;
}

/* ---- raw binary records ---- */

typedef struct bin {
    const unsigned char *p;
    size_t len, pos;
    int be, failed;
    uint64_t last_time;
} bin;

static uint64_t get_uleb(bin *b)
{
    uint64_t v = 0;
    for (int shift = 0; shift < 70; shift += 7) {
        if (b->pos >= b->len) {
            b->failed = 1;
            return 0;
        }
        unsigned char c = b->p[b->pos++];
        if (shift == 63 && (c & 0x7e)) {
            b->failed = 1;
            return 0;
        }
        v |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80))
            return v;
    }
    b->failed = 1;
    return 0;
}

/* Reads one value; returns it as unsigned bits (signed types sign-extended). */
static uint64_t get_value(bin *b, edl_type t, edl_encoding e)
{
    static const unsigned width[] = {0, 1, 2, 4, 8, 1, 2, 4, 8, 4, 8, 0};
    switch (e) {
    case EDL_ENC_FIXED: {
        unsigned w = width[t];
        if (b->len - b->pos < w) {
            b->failed = 1;
            return 0;
        }
        uint64_t v = 0;
        for (unsigned i = 0; i < w; i++)
            v |= (uint64_t)b->p[b->pos + (b->be ? w - 1 - i : i)] << (8 * i);
        b->pos += w;
        if (t <= EDL_INT64 && w < 8 && (v >> (8 * w - 1)) & 1)
            v |= ~0ULL << (8 * w);
        return v;
    }
    case EDL_ENC_ULEB: return get_uleb(b);
    case EDL_ENC_SLEB: {
        uint64_t z = get_uleb(b);
        return (z >> 1) ^ (0 - (z & 1));
    }
    case EDL_ENC_TDELTA:
        b->last_time += get_uleb(b);
        return b->last_time;
    case EDL_ENC_LSTRING: {
        uint64_t n = get_uleb(b);
        if (b->failed || n > b->len - b->pos) {
            b->failed = 1;
            return 0;
        }
        b->pos += n;
        return n;
    }
    default:
        b->failed = 1;
        return 0;
    }
}

static int walk_binary(walker *w, const unsigned char *p, size_t len)
{
    const edl_dict *d = w->d;
    bin b = {p, len, 0, edl_dict_byte_order(d) == 'B', 0, 0};
    unsigned kc = edl_dict_key_count(d);
    const edl_record *proto = NULL;   /* any bound record: key fields read alike */
    if (edl_dict_bind_count(d))
        proto = edl_dict_record(d, edl_dict_bind(d, 0).record);
    while (b.pos < b.len) {
        w->line++;   /* record number */
        size_t start = b.pos;
        uint64_t saved_time = b.last_time;
        long rec;
        if (kc && proto) {
            char key[2][32];
            unsigned last = edl_dict_key_index(d, 0);
            if (kc == 2 && edl_dict_key_index(d, 1) > last)
                last = edl_dict_key_index(d, 1);
            for (unsigned i = 0; i <= last; i++) {
                const edl_field *f = edl_record_field(proto, i);
                uint64_t v = get_value(&b, edl_field_type(f), edl_field_encoding(f));
                for (unsigned k = 0; k < kc; k++) {
                    if (edl_dict_key_index(d, k) != i)
                        continue;
                    if (edl_field_type(f) <= EDL_INT64)
                        snprintf(key[k], sizeof key[k], "%lld", (long long)v);
                    else
                        snprintf(key[k], sizeof key[k], "%llu", (unsigned long long)v);
                }
            }
            rec = b.failed ? -1 : edl_dict_lookup(d, key[0], kc == 2 ? key[1] : NULL);
        } else {
            rec = edl_dict_lookup(d, NULL, NULL);
        }
        if (b.failed || rec < 0) {
            w->unknown += !b.failed;
            bad(w, b.failed ? "truncated record at byte %zu" : "unknown record at byte %zu", start);
            return 1;   /* no record length: cannot resynchronise */
        }
        const edl_record *r = edl_dict_record(d, (size_t)rec);
        b.pos = start;
        b.last_time = saved_time;
        size_t nf = edl_record_field_count(r);
        uint64_t *vals = calloc(nf ? nf : 1, sizeof *vals);
        if (w->dump)
            printf("%s", edl_record_name(r));
        for (size_t i = 0; i < nf && !b.failed; i++) {
            const edl_field *f = edl_record_field(r, i);
            if (edl_field_type(f) != EDL_ARRAY) {
                vals[i] = get_value(&b, edl_field_type(f), edl_field_encoding(f));
                if (w->dump)
                    printf(edl_field_type(f) <= EDL_INT64 ? " %s=%lld" : " %s=%llu",
                           edl_field_name(f), (long long)vals[i]);
                continue;
            }
            uint64_t count = vals[edl_field_count_field(f)];
            size_t k = edl_field_component_count(f, 0);
            if (w->dump)
                printf(" %s=[%llu items]", edl_field_name(f), (unsigned long long)count);
            for (uint64_t it = 0; it < count && !b.failed; it++)
                for (size_t c = 0; c < k; c++) {
                    edl_component comp = edl_field_component(f, 0, c);
                    get_value(&b, comp.type, comp.enc);
                }
        }
        if (w->dump)
            putchar('\n');
        free(vals);
        if (b.failed) {
            bad(w, "truncated record '%s' at byte %zu", edl_record_name(r), start);
            return 1;
        }
        w->counts[rec]++;
    }
    return 0;
}

/* ---- main ---- */

static void on_diag(void *ctx, const edl_diagnostic *dg)
{
    (void)ctx;
    char *s = edl_diagnostic_format(dg);
    if (s)
        fputs(s, stderr);
    free(s);
}

int main(int argc, char **argv)
{
    walker w;
    memset(&w, 0, sizeof w);
    w.max_errors = 10;
    int i = 1;
    for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
        if (strcmp(argv[i], "--dump") == 0)
            w.dump = 1;
        else if (strcmp(argv[i], "--max-errors") == 0 && i + 1 < argc)
            w.max_errors = strtoul(argv[++i], NULL, 10);
        else
            break;
    }
    if (argc - i != 2) {
        fprintf(stderr, "usage: edl-walk [--dump] [--max-errors N] DESCRIPTOR TRACE\n");
        return 2;
    }
    edl_dict *d = NULL;
    const char *dp = argv[i];
    size_t dl = strlen(dp);
    if (dl > 4 && strcmp(dp + dl - 4, ".edl") == 0) {
        if (edl_compile_file(dp, on_diag, NULL, &d) != EDL_OK)
            return 2;
    } else {
        FILE *f = fopen(dp, "rb");
        static unsigned char buf[1 << 20];
        size_t n = f ? fread(buf, 1, sizeof buf, f) : 0;
        char err[256];
        if (f)
            fclose(f);
        if (edl_dict_decode(buf, n, &d, err, sizeof err) != EDL_OK) {
            fprintf(stderr, "edl-walk: %s: %s\n", dp, err);
            return 2;
        }
    }
    w.d = d;
    w.path = argv[i + 1];
    w.counts = calloc(edl_dict_record_count(d) + 1, sizeof *w.counts);
    /* The kind of each key: every bound record agrees (the compiler checks it). */
    for (unsigned k = 0; k < edl_dict_key_count(d) && edl_dict_bind_count(d); k++) {
        const edl_record *r = edl_dict_record(d, edl_dict_bind(d, 0).record);
        w.key_is_string[k] =
            edl_field_type(edl_record_field(r, edl_dict_key_index(d, k))) == EDL_STRING;
    }
    FILE *f = fopen(w.path, "rb");
    if (!f) {
        fprintf(stderr, "edl-walk: cannot open '%s': %s\n", w.path, strerror(errno));
        return 2;
    }
    if (edl_dict_repr(d) == EDL_REPR_ASCII) {
        walk_ascii(&w, f);
    } else {
        size_t cap = 1 << 16, len = 0, got;
        unsigned char *p = malloc(cap);
        while (p && (got = fread(p + len, 1, cap - len, f)) > 0)
            if ((len += got) == cap)
                p = realloc(p, cap *= 2);
        if (!p)
            return 2;
        walk_binary(&w, p, len);
        free(p);
    }
    fclose(f);
    for (size_t r = 0; r < edl_dict_record_count(d); r++)
        if (w.counts[r])
            printf("%s %zu\n", edl_record_name(edl_dict_record(d, r)), w.counts[r]);
    printf("unknown %zu\nerrors %zu\n", w.unknown, w.errors);
    free(w.counts);
    edl_dict_destroy(d);
    return w.errors || w.unknown ? 1 : 0;
}
