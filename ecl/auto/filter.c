/* filter.c -- ECL automatic instrumentation: filter files, which say which
 * compiler-instrumented functions are recorded (doc/instrumentation.md,
 * "Filter files"). A rule is
 *
 *     include|exclude  function|file  PATTERN...
 *
 * with shell globs (fnmatch: * ? [...]); a pattern with blanks is quoted
 * "like this" (\" and \\ inside). # starts a comment. For each function the
 * last rule that matches decides; a function no rule matches is recorded.
 * The decision is made once per function (func.c), never per call. */
#include <config.h>

#include "ecl/auto/auto.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct rule {
    int include;                 /* 1 include, 0 exclude */
    int on_file;                 /* 1: matches the source file, 0: the function name */
    char *pattern;
} rule;

struct ecl_auto_filter {
    rule *rules;
    size_t n, cap;
};

void ecl_auto_filter_destroy(ecl_auto_filter *f)
{
    if (f == NULL)
        return;
    for (size_t i = 0; i < f->n; i++)
        free(f->rules[i].pattern);
    free(f->rules);
    free(f);
}

static int add_rule(ecl_auto_filter *f, int include, int on_file, const char *p, size_t len)
{
    if (f->n == f->cap) {
        size_t cap = f->cap ? 2 * f->cap : 16;
        rule *r = realloc(f->rules, cap * sizeof *r);
        if (r == NULL)
            return -1;
        f->rules = r;
        f->cap = cap;
    }
    char *s = malloc(len + 1);
    if (s == NULL)
        return -1;
    memcpy(s, p, len);
    s[len] = '\0';
    f->rules[f->n++] = (rule){ include, on_file, s };
    return 0;
}

/* One word of a line: [s, e). */
static int word_is(const char *s, const char *e, const char *w)
{
    return (size_t)(e - s) == strlen(w) && strncmp(s, w, (size_t)(e - s)) == 0;
}

#define ERR(col, ...)                                                              \
    do {                                                                           \
        int k_ = snprintf(err, errlen, "%s:%u:%u: ", name, lineno, (unsigned)(col)); \
        if (k_ >= 0 && (size_t)k_ < errlen)                                         \
            snprintf(err + k_, errlen - (size_t)k_, __VA_ARGS__);                   \
        goto fail;                                                                 \
    } while (0)

int ecl_auto_filter_parse(const char *name, const char *text, ecl_auto_filter **out, char *err,
                          size_t errlen)
{
    ecl_auto_filter *f = calloc(1, sizeof *f);
    char *pat = malloc(strlen(text) + 1);
    unsigned lineno = 0;
    if (f == NULL || pat == NULL) {
        snprintf(err, errlen, "%s: out of memory", name);
        goto fail;
    }
    for (const char *line = text; *line != '\0';) {
        const char *end = strchr(line, '\n');
        if (end == NULL)
            end = line + strlen(line);
        lineno++;
        const char *p = line;
#define SKIP_BLANKS() while (p < end && (*p == ' ' || *p == '\t' || *p == '\r')) p++
#define WORD_END(q) while (q < end && *q != ' ' && *q != '\t' && *q != '\r' && *q != '#') q++
        SKIP_BLANKS();
        if (p < end && *p != '#') {
            const char *w = p;
            WORD_END(p);
            int include;
            if (word_is(w, p, "include") || word_is(w, p, "INCLUDE"))
                include = 1;
            else if (word_is(w, p, "exclude") || word_is(w, p, "EXCLUDE"))
                include = 0;
            else
                ERR(w - line + 1, "expected 'include' or 'exclude', found '%.*s'",
                    (int)(p - w), w);
            SKIP_BLANKS();
            const char *k = p;
            WORD_END(p);
            int on_file;
            if (word_is(k, p, "function") || word_is(k, p, "FUNCTION"))
                on_file = 0;
            else if (word_is(k, p, "file") || word_is(k, p, "FILE"))
                on_file = 1;
            else if (k == p)
                ERR(k - line + 1, "expected 'function' or 'file' after '%s'",
                    include ? "include" : "exclude");
            else
                ERR(k - line + 1, "expected 'function' or 'file', found '%.*s'", (int)(p - k), k);
            int npat = 0;
            for (;;) {
                SKIP_BLANKS();
                if (p == end || *p == '#')
                    break;
                size_t len = 0;
                if (*p == '"') {
                    const char *q0 = p++;
                    while (p < end && *p != '"') {
                        if (*p == '\\' && p + 1 < end)
                            p++;
                        pat[len++] = *p++;
                    }
                    if (p == end)
                        ERR(q0 - line + 1, "unterminated quoted pattern");
                    p++;
                } else {
                    const char *q = p;
                    WORD_END(p);
                    memcpy(pat, q, (size_t)(p - q));
                    len = (size_t)(p - q);
                }
                if (len == 0)
                    ERR(p - line, "empty pattern");
                if (add_rule(f, include, on_file, pat, len) != 0) {
                    snprintf(err, errlen, "%s: out of memory", name);
                    goto fail;
                }
                npat++;
            }
            if (npat == 0)
                ERR(p - line + 1, "expected at least one pattern after '%s %s'",
                    include ? "include" : "exclude", on_file ? "file" : "function");
        }
#undef SKIP_BLANKS
#undef WORD_END
        line = *end == '\n' ? end + 1 : end;
    }
    free(pat);
    *out = f;
    return 0;
fail:
    free(pat);
    ecl_auto_filter_destroy(f);
    return -1;
}

int ecl_auto_filter_load(const char *path, ecl_auto_filter **out, char *err, size_t errlen)
{
    char *text;
    size_t len;
    /* 1 MiB: a filter file holds rules, a few lines each */
    if (ecl_sys_read_config(path, "filter file", "ECL_FILTER", (size_t)1 << 20, &text, &len, err,
                            errlen) != 0)
        return -1;
    int r = ecl_auto_filter_parse(path, text, out, err, errlen);
    free(text);
    return r;
}

int ecl_auto_filter_includes(const ecl_auto_filter *f, const char *name, const char *file)
{
    for (size_t i = f->n; i-- > 0;) {
        const rule *r = &f->rules[i];
        const char *s = r->on_file ? file : name;
        if (s[0] != '\0' && fnmatch(r->pattern, s, 0) == 0)
            return r->include;
    }
    return 1;
}
