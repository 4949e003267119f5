/* compile.c -- the EDL compiler's driver (libedl): the public entry points,
 * the arena every pass allocates from, symbol maps and diagnostics. The passes
 * run in order parse, resolve, check, layout, emit; each stops the compile
 * when it found errors, but reports all it can find first. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "edl/compiler.h"
#include "edl/nameidx.h"

#define MAX_ERRORS 50

/* ---- arena ---- */

typedef struct arena_block {
    struct arena_block *next;
    size_t used, size;
    max_align_t data[];
} arena_block;

struct edl_arena {
    arena_block *blocks;
};

void *edl_alloc(edl_cc *cc, size_t n)
{
    const size_t align = sizeof(max_align_t);
    n = (n + align - 1) / align * align;
    if (n == 0)
        n = align;
    edl_arena *a = cc->arena;
    arena_block *b = a->blocks;
    if (!b || b->size - b->used < n) {
        size_t size = n > 16384 ? n : 16384;
        b = malloc(sizeof *b + size);
        if (!b)
            longjmp(cc->oom, 1);
        b->size = size;
        b->used = 0;
        b->next = a->blocks;
        a->blocks = b;
    }
    void *p = (char *)b->data + b->used;
    b->used += n;
    memset(p, 0, n);
    return p;
}

char *edl_strndup(edl_cc *cc, const char *s, size_t n)
{
    char *p = edl_alloc(cc, n + 1);
    memcpy(p, s, n);
    p[n] = 0;
    return p;
}

char *edl_strdup(edl_cc *cc, const char *s)
{
    return edl_strndup(cc, s, strlen(s));
}

char *edl_sprintf(edl_cc *cc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    char *p = edl_alloc(cc, (size_t)n + 1);
    va_start(ap, fmt);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return p;
}

void edl_arena_destroy(edl_arena *a)
{
    if (!a)
        return;
    for (arena_block *b = a->blocks, *next; b; b = next) {
        next = b->next;
        free(b);
    }
    free(a);
}

/* ---- lists and maps ---- */

struct ast_link {
    struct ast_link *next;
};

ast_list edl_list_append(ast_list l, void *node)
{
    struct ast_link *n = node;
    if (!n)
        return l;
    n->next = NULL;
    if (l.tail)
        ((struct ast_link *)l.tail)->next = n;
    else
        l.head = n;
    l.tail = n;
    return l;
}

void *edl_map_get(const edl_map *m, const char *key)
{
    if (!m->cap)
        return NULL;
    for (size_t i = edl_name_hash(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        if (!m->keys[i])
            return NULL;
        if (strcmp(m->keys[i], key) == 0)
            return m->vals[i];
    }
}

void edl_map_put(edl_cc *cc, edl_map *m, const char *key, void *val)
{
    if (2 * (m->n + 1) > m->cap) {
        edl_map old = *m;
        m->cap = old.cap ? old.cap * 2 : 16;
        m->keys = edl_alloc(cc, m->cap * sizeof *m->keys);
        m->vals = edl_alloc(cc, m->cap * sizeof *m->vals);
        m->n = 0;
        for (size_t i = 0; i < old.cap; i++)
            if (old.keys[i])
                edl_map_put(cc, m, old.keys[i], old.vals[i]);
    }
    size_t i = edl_name_hash(key) & (m->cap - 1);
    while (m->keys[i] && strcmp(m->keys[i], key) != 0)
        i = (i + 1) & (m->cap - 1);
    if (!m->keys[i])
        m->n++;
    m->keys[i] = key;
    m->vals[i] = val;
}

/* ---- diagnostics ---- */

edl_loc edl_noloc(void)
{
    edl_loc l = {0, 0, 0, 0};
    return l;
}

static void index_lines(edl_cc *cc)
{
    size_t n = 1;
    for (size_t i = 0; i < cc->len; i++)
        n += cc->src[i] == '\n';
    cc->line_start = edl_alloc(cc, (n + 1) * sizeof *cc->line_start);
    cc->line_start[0] = 0;
    cc->nlines = 1;
    for (size_t i = 0; i < cc->len; i++)
        if (cc->src[i] == '\n')
            cc->line_start[cc->nlines++] = i + 1;
    cc->line_start[cc->nlines] = cc->len + 1;
}

static void default_sink(void *ctx, const edl_diagnostic *d)
{
    (void)ctx;
    char *s = edl_diagnostic_format(d);
    if (s)
        fputs(s, stderr);
    free(s);
}

/* A diagnostic waiting to be emitted; a note belongs to the error or
 * warning before it and travels with it when sorting. */
struct edl_pending {
    edl_severity sev;
    edl_loc loc;
    char *msg;
    size_t group, seq;
};

static void emit_one(edl_cc *cc, const struct edl_pending *p)
{
    edl_diagnostic d;
    memset(&d, 0, sizeof d);
    d.severity = p->sev;
    d.file = cc->file;
    d.message = p->msg;
    edl_loc loc = p->loc;
    if (loc.first_line > 0) {
        if (!cc->line_start)
            index_lines(cc);
        size_t ln = (size_t)loc.first_line;
        if (ln <= cc->nlines) {
            size_t b = cc->line_start[ln - 1], e = cc->line_start[ln] - 1;
            if (e > cc->len)
                e = cc->len;
            if (e > b && cc->src[e - 1] == '\r')
                e--;
            d.line = (unsigned)loc.first_line;
            d.column = (unsigned)(loc.first_column > 0 ? loc.first_column : 1);
            unsigned last = loc.last_line == loc.first_line && loc.last_column >= loc.first_column
                                ? (unsigned)loc.last_column
                                : (unsigned)(e - b);
            d.length = last >= d.column ? last - d.column + 1 : 1;
            d.source_line = edl_strndup(cc, cc->src + b, e - b);
        }
    }
    if (cc->fn)
        cc->fn(cc->fn_ctx, &d);
    else
        default_sink(NULL, &d);
}

static long place(const edl_loc *l)
{
    return l->first_line > 0 ? (long)l->first_line * 65536 + (l->first_column & 0xffff)
                             : 0x7fffffffL;
}

static int by_place(const struct edl_pending *x, const struct edl_pending *y, const edl_cc *cc)
{
    long px = place(&cc->pending[x->group].loc), py = place(&cc->pending[y->group].loc);
    if (px != py)
        return px < py ? -1 : 1;
    if (x->group != y->group)
        return x->group < y->group ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void edl_flush_diagnostics(edl_cc *cc)
{
    size_t n = cc->npending;
    if (!n)
        return;
    /* Insertion sort keeps it simple and stable; there are at most ~100. */
    struct edl_pending *v = edl_alloc(cc, n * sizeof *v);
    memcpy(v, cc->pending, n * sizeof *v);
    for (size_t i = 1; i < n; i++) {
        struct edl_pending t = v[i];
        size_t j = i;
        while (j > 0 && by_place(&v[j - 1], &t, cc) > 0) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = t;
    }
    for (size_t i = 0; i < n; i++)
        emit_one(cc, &v[i]);
    cc->npending = 0;
}

static void report(edl_cc *cc, edl_severity sev, edl_loc loc, const char *fmt, va_list ap)
{
    if (cc->too_many)
        return;
    if (sev == EDL_SEV_ERROR && ++cc->errors > MAX_ERRORS) {
        cc->too_many = 1;
        loc = edl_noloc();
        fmt = "too many errors; stopping";
    } else if (sev == EDL_SEV_WARNING) {
        cc->warnings++;
    }
    if (cc->npending == cc->pending_cap) {
        size_t cap = cc->pending_cap ? cc->pending_cap * 2 : 32;
        struct edl_pending *np = edl_alloc(cc, cap * sizeof *np);
        if (cc->npending)
            memcpy(np, cc->pending, cc->npending * sizeof *np);
        cc->pending = np;
        cc->pending_cap = cap;
    }
    struct edl_pending *p = &cc->pending[cc->npending];
    char msg[1024];
    vsnprintf(msg, sizeof msg, fmt, ap);
    p->sev = sev;
    p->loc = loc;
    p->msg = edl_strdup(cc, msg);
    p->seq = cc->npending;
    p->group = sev == EDL_SEV_NOTE && cc->npending ? cc->pending[cc->npending - 1].group
                                                   : cc->npending;
    cc->npending++;
}

void edl_error(edl_cc *cc, edl_loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report(cc, EDL_SEV_ERROR, loc, fmt, ap);
    va_end(ap);
}

void edl_warning(edl_cc *cc, edl_loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report(cc, EDL_SEV_WARNING, loc, fmt, ap);
    va_end(ap);
}

void edl_note(edl_cc *cc, edl_loc loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    report(cc, EDL_SEV_NOTE, loc, fmt, ap);
    va_end(ap);
}

char *edl_diagnostic_format(const edl_diagnostic *d)
{
    if (!d)
        return NULL;
    static const char *const sev[] = {"error", "error", "warning", "note"};
    const char *what = (unsigned)d->severity <= EDL_SEV_NOTE ? sev[d->severity] : "error";
    const char *file = d->file ? d->file : "<input>";
    const char *msg = d->message ? d->message : "";
    size_t cap = strlen(file) + strlen(msg) + 64;
    if (d->line && d->source_line)
        cap += 2 * strlen(d->source_line) + d->column + d->length + 8;
    char *out = malloc(cap), *o = out;
    if (!out)
        return NULL;
    if (d->line)
        o += snprintf(o, cap, "%s:%u:%u: %s: %s\n", file, d->line, d->column, what, msg);
    else
        o += snprintf(o, cap, "%s: %s: %s\n", file, what, msg);
    if (d->line && d->source_line) {
        size_t n = strlen(d->source_line);
        memcpy(o, d->source_line, n);
        o += n;
        *o++ = '\n';
        /* The caret line keeps the source's tabs so it lines up in a terminal. */
        for (unsigned c = 1; c < d->column; c++)
            *o++ = c - 1 < n && d->source_line[c - 1] == '\t' ? '\t' : ' ';
        *o++ = '^';
        for (unsigned c = 1; c < d->length; c++)
            *o++ = '~';
        *o++ = '\n';
        *o = 0;
    }
    return out;
}

/* Edit distance counting a swap of neighbours as one edit (optimal string
 * alignment), for "did you mean": 'unit64' is one edit from 'uint64'. */
static size_t distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64)
        return (size_t)-1;
    static const size_t W = 65;
    size_t m[65 * 65];
    for (size_t i = 0; i <= la; i++)
        m[i * W] = i;
    for (size_t j = 0; j <= lb; j++)
        m[j] = j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            size_t best = m[(i - 1) * W + j - 1] + (a[i - 1] != b[j - 1]);
            if (m[(i - 1) * W + j] + 1 < best)
                best = m[(i - 1) * W + j] + 1;
            if (m[i * W + j - 1] + 1 < best)
                best = m[i * W + j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                m[(i - 2) * W + j - 2] + 1 < best)
                best = m[(i - 2) * W + j - 2] + 1;
            m[i * W + j] = best;
        }
    return m[la * W + lb];
}

const char *edl_suggest(const char *word, const char *const *candidates, size_t n)
{
    const char *best = NULL;
    size_t bestd = (size_t)-1, len = strlen(word);
    size_t limit = len <= 3 ? 1 : len <= 6 ? 2 : 3;
    for (size_t i = 0; i < n; i++) {
        if (!candidates[i])
            continue;
        size_t d = distance(word, candidates[i]);
        if (d <= limit && d < bestd) {
            bestd = d;
            best = candidates[i];
        }
    }
    return best;
}

/* ---- the public entry points ---- */

static edl_status run(edl_cc *cc, edl_dict **out)
{
    if (setjmp(cc->oom)) {
        /* Out of memory somewhere in a pass: free what that pass held. The
         * diagnostics gathered so far are dropped: showing them could need
         * memory too. */
        edl_parse_abort(cc);
        edl_dict_destroy(cc->dict);
        cc->dict = NULL;
        return EDL_ENOMEM;
    }
    if (!edl_parse(cc) || cc->errors)
        return EDL_ECOMPILE;
    edl_resolve(cc);
    edl_check(cc);
    if (cc->errors)
        return EDL_ECOMPILE;
    edl_layout(cc);
    edl_emit(cc);
    if (cc->errors || !cc->dict) {
        edl_dict_destroy(cc->dict);
        cc->dict = NULL;
        return EDL_ECOMPILE;
    }
    *out = cc->dict;
    cc->dict = NULL;
    return EDL_OK;
}

/* A diagnostic about the whole file (no line), to fn or stderr. */
static void whole_file_error(const char *file, edl_diag_fn fn, void *ctx, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void whole_file_error(const char *file, edl_diag_fn fn, void *ctx, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    edl_diagnostic d;
    memset(&d, 0, sizeof d);
    d.severity = EDL_SEV_ERROR;
    d.file = file;
    d.message = msg;
    if (fn)
        fn(ctx, &d);
    else
        default_sink(NULL, &d);
}

edl_status edl_compile_string(const char *name, const char *text, size_t len, edl_diag_fn fn,
                              void *ctx, edl_dict **out)
{
    if (!out)
        return EDL_EINVAL;
    *out = NULL;
    if (!text && len)
        return EDL_EINVAL;
    if (len > EDL_SOURCE_MAX) {
        whole_file_error(name ? name : "<input>", fn, ctx,
                         "larger than %zu MiB: not an EDL source (the compiler's limit, "
                         "EDL_SOURCE_MAX)", EDL_SOURCE_MAX >> 20);
        return EDL_ECOMPILE;
    }
    edl_cc *cc = calloc(1, sizeof *cc);
    edl_arena *arena = calloc(1, sizeof *arena);
    if (!cc || !arena) {
        free(cc);
        free(arena);
        return EDL_ENOMEM;
    }
    cc->arena = arena;
    cc->file = name ? name : "<input>";
    cc->src = text ? text : "";
    cc->len = len;
    cc->fn = fn;
    cc->fn_ctx = ctx;
    edl_status st = run(cc, out);
    if (st != EDL_ENOMEM && !setjmp(cc->oom))
        edl_flush_diagnostics(cc);
    edl_arena_destroy(cc->arena);
    free(cc);
    return st;
}

edl_status edl_compile_file(const char *path, edl_diag_fn fn, void *ctx, edl_dict **out)
{
    if (!out || !path)
        return EDL_EINVAL;
    *out = NULL;
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t len = 0, cap = 0;
    int failed = !f;
    while (f && !failed && len <= EDL_SOURCE_MAX) {     /* one byte over: refused */
        if (len == cap) {
            cap = cap ? cap * 2 : 65536;
            char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(f);
                return EDL_ENOMEM;
            }
            buf = nb;
        }
        size_t n = fread(buf + len, 1, cap - len, f);
        len += n;
        if (n == 0) {
            failed = ferror(f) != 0;
            break;
        }
    }
    if (f)
        fclose(f);
    if (failed) {
        whole_file_error(path, fn, ctx, "cannot read file: %s", strerror(errno));
        free(buf);
        return EDL_EIO;
    }
    edl_status st = edl_compile_string(path, buf, len, fn, ctx, out);
    free(buf);
    return st;
}
