/* print.c -- a dictionary back to EDL source (libedl; edlc --print): the
 * header, the shape tables its arrays use, the records and the bind
 * descriptor, in the canonical layout doc/edl.md shows. Compiling the text
 * gives the same dictionary, byte for byte, for every dictionary edlc makes. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "edl/edl.h"

typedef struct text {
    char *p;
    size_t len, cap;
    int failed;
} text;

static void put(text *t, const char *s, size_t n)
{
    if (t->failed)
        return;
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 4096;
        while (cap < t->len + n + 1)
            cap *= 2;
        char *np = realloc(t->p, cap);
        if (!np) {
            t->failed = 1;
            return;
        }
        t->p = np;
        t->cap = cap;
    }
    memcpy(t->p + t->len, s, n);
    t->len += n;
    t->p[t->len] = 0;
}

static void puts_(text *t, const char *s)
{
    put(t, s, strlen(s));
}

static void printf_(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void printf_(text *t, const char *fmt, ...)
{
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n < 0) {
        t->failed = 1;
    } else if ((size_t)n < sizeof buf) {
        put(t, buf, (size_t)n);
    } else {
        char *big = malloc((size_t)n + 1);
        if (!big) {
            t->failed = 1;
            return;
        }
        va_start(ap, fmt);
        vsnprintf(big, (size_t)n + 1, fmt, ap);
        va_end(ap);
        put(t, big, (size_t)n);
        free(big);
    }
}

/* A string literal that the EDL scanner reads back as s. */
static void quoted(text *t, const char *s)
{
    puts_(t, "\"");
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': puts_(t, "\\\""); break;
        case '\\': puts_(t, "\\\\"); break;
        case '\n': puts_(t, "\\n"); break;
        case '\t': puts_(t, "\\t"); break;
        case '\r': puts_(t, "\\r"); break;
        default:
            if (*p < 0x20 || *p == 0x7f)
                printf_(t, "\\x%02x", *p);
            else
                put(t, (const char *)p, 1);
        }
    }
    puts_(t, "\"");
}

static const char *unit_or_null(const char *s)
{
    return s && *s ? s : NULL;
}

/* " REFERS TO record.field PER PROCESS" (or GLOBAL). */
static void print_ref(text *t, edl_ref r)
{
    if (r.record)
        printf_(t, " REFERS TO %s.%s %s", r.record, r.field,
                r.flags & EDL_REF_GLOBAL ? "GLOBAL" : "PER PROCESS");
}

static void print_header(text *t, const edl_dict *d)
{
    int ascii = edl_dict_repr(d) == EDL_REPR_ASCII;
    puts_(t, "HEADER IS\nBEGIN\n");
    printf_(t, "    NAME IS %s;\n", edl_dict_name(d));
    puts_(t, "    VERSION IS ");
    quoted(t, edl_dict_version(d));
    puts_(t, ";\n");
    if (ascii) {
        unsigned fl = edl_dict_ascii_flags(d);
        puts_(t, "    REPRESENTATION IS ASCII;\n    SEPARATORS IS ");
        quoted(t, edl_dict_separators(d));
        puts_(t, fl & EDL_ASCII_MERGE ? ";\n" : " SINGLE;\n");
        if (*edl_dict_comment(d)) {
            puts_(t, "    COMMENT IS ");
            quoted(t, edl_dict_comment(d));
            puts_(t, fl & EDL_ASCII_TRAILING_COMMENT ? " ANYWHERE;\n" : ";\n");
        } else {
            puts_(t, "    COMMENT IS NONE;\n");
        }
        if (edl_dict_quote(d)) {
            char q[2] = {edl_dict_quote(d), 0};
            puts_(t, "    QUOTE IS ");
            quoted(t, q);
            puts_(t, fl & EDL_ASCII_QUOTE_DOUBLED ? " DOUBLED;\n" : ";\n");
        } else {
            puts_(t, "    QUOTE IS NONE;\n");
        }
        printf_(t, "    BLANKLINES IS %s;\n", fl & EDL_ASCII_BLANK_ERROR ? "ERROR" : "SKIP");
        if (edl_dict_skip_lines(d))
            printf_(t, "    SKIPLINES IS %u;\n", edl_dict_skip_lines(d));
    } else {
        printf_(t, "    REPRESENTATION IS BINARY;\n    BYTEORDER IS %s;\n    FRAMING IS %s;\n",
                edl_dict_byte_order(d) == 'B' ? "BIG" : "LITTLE",
                edl_dict_framing(d) == EDL_FRAMING_RAW ? "RAW" : "ECL");
    }
    if (*edl_dict_time_field(d)) {
        printf_(t, "    TIMESTAMP IS %s UNIT ", edl_dict_time_field(d));
        quoted(t, edl_dict_time_unit(d));
        if (*edl_dict_time_fraction_field(d)) {
            printf_(t, " + %s UNIT ", edl_dict_time_fraction_field(d));
            quoted(t, edl_dict_time_fraction_unit(d));
        }
        puts_(t, ";\n");
    }
    int container = !ascii && edl_dict_framing(d) == EDL_FRAMING_ECL;
    const char *roles[2] = {edl_dict_process_field(d), edl_dict_thread_field(d)};
    for (int i = 0; i < 2; i++) {
        const char *kw = i ? "THREAD" : "PROCESS";
        if (!*roles[i] && !container)
            continue;
        printf_(t, "    %s IS %s", kw, *roles[i] ? roles[i] : "CONTAINER");
        print_ref(t, edl_dict_designation_ref(d, i ? EDL_FROLE_THREAD : EDL_FROLE_PROCESS));
        puts_(t, ";\n");
    }
    puts_(t, "END;\n");
}

/* ---- shape tables: one SHAPE per distinct table, named as in the dictionary ---- */

typedef struct shape_use {
    const edl_field *field;   /* first array that uses the table */
    char *name;               /* printed name */
} shape_use;

static int same_shapes(const edl_field *a, const edl_field *b)
{
    if (edl_field_shape_flags(a) != edl_field_shape_flags(b) ||
        edl_field_shape_count(a) != edl_field_shape_count(b))
        return 0;
    for (size_t s = 0; s < edl_field_shape_count(a); s++) {
        size_t n = edl_field_component_count(a, s);
        if (strcmp(edl_field_shape_token(a, s), edl_field_shape_token(b, s)) ||
            n != edl_field_component_count(b, s))
            return 0;
        for (size_t c = 0; c < n; c++) {
            edl_component x = edl_field_component(a, s, c), y = edl_field_component(b, s, c);
            if (strcmp(x.name, y.name) || x.type != y.type || x.enc != y.enc)
                return 0;
        }
    }
    return 1;
}

static void print_type(text *t, edl_type type, edl_encoding enc, int ascii)
{
    puts_(t, edl_type_name(type));
    if (!ascii || enc != EDL_ENC_TEXT)
        printf_(t, " %s", edl_encoding_name(enc));
}

static void print_items(text *t, const edl_field *f, size_t s, int ascii)
{
    size_t n = edl_field_component_count(f, s);
    edl_component c0 = edl_field_component(f, s, 0);
    if (n == 1 && !*c0.name) {
        print_type(t, c0.type, c0.enc, ascii);
        return;
    }
    puts_(t, "(");
    for (size_t i = 0; i < n; i++) {
        edl_component c = edl_field_component(f, s, i);
        if (i)
            puts_(t, ", ");
        if (*c.name)
            printf_(t, "%s IS ", c.name);
        print_type(t, c.type, c.enc, ascii);
    }
    puts_(t, ")");
}

/* Finds or adds the table of f; returns its printed name. */
static const char *shape_name_for(shape_use **uses, size_t *n, const edl_field *f, int *fresh)
{
    *fresh = 0;
    const char *want = *edl_field_shape_name(f) ? edl_field_shape_name(f) : "shape";
    for (size_t i = 0; i < *n; i++)
        if (same_shapes((*uses)[i].field, f) &&
            strcmp(edl_field_shape_name((*uses)[i].field), edl_field_shape_name(f)) == 0)
            return (*uses)[i].name;
    /* A new table: its own name unless that is taken (then name_2, name_3 ...). */
    size_t cap = strlen(want) + 16;
    char *buf = malloc(cap);
    if (!buf)
        return NULL;
    snprintf(buf, cap, "%s", want);
    for (unsigned k = 2;; k++) {
        int taken = 0;
        for (size_t i = 0; i < *n && !taken; i++)
            taken = strcmp((*uses)[i].name, buf) == 0;
        if (!taken)
            break;
        snprintf(buf, cap, "%s_%u", want, k);
    }
    shape_use *nu = realloc(*uses, (*n + 1) * sizeof *nu);
    if (!nu) {
        free(buf);
        return NULL;
    }
    *uses = nu;
    nu[*n].field = f;
    nu[*n].name = buf;
    *fresh = 1;
    return nu[(*n)++].name;
}

static void print_shape(text *t, const char *name, const edl_field *f, int ascii)
{
    printf_(t, "\nSHAPE %s IS\nBEGIN\n", name);
    for (size_t s = 0; s < edl_field_shape_count(f); s++) {
        puts_(t, "    ");
        quoted(t, edl_field_shape_token(f, s));
        puts_(t, " IS ");
        print_items(t, f, s, ascii);
        puts_(t, ";\n");
    }
    if (edl_field_shape_flags(f) & EDL_SHAPE_FORMAT)
        puts_(t, "    DEFAULT IS FORMAT;\n");
    puts_(t, "END;\n");
}

static void print_field(text *t, const edl_record *r, const edl_field *f, int ascii,
                        const char *shape, int width)
{
    printf_(t, "    FIELD %-*s IS ", width, edl_field_name(f));
    if (edl_field_type(f) == EDL_ARRAY) {
        size_t cf = edl_field_count_field(f);
        printf_(t, "ARRAY [%s] OF ",
                cf == EDL_NO_FIELD ? "REST" : edl_field_name(edl_record_field(r, cf)));
        if (edl_field_shape_field(f) == EDL_NO_FIELD)
            print_items(t, f, 0, ascii);
        else
            printf_(t, "%s BY %s", shape,
                    edl_field_name(edl_record_field(r, edl_field_shape_field(f))));
    } else {
        print_type(t, edl_field_type(f), edl_field_encoding(f), ascii);
        if (edl_field_flags(f) & EDL_FIELD_OPTIONAL)
            puts_(t, " OPTIONAL");
    }
    if (unit_or_null(edl_field_unit(f))) {
        puts_(t, " UNIT ");
        quoted(t, edl_field_unit(f));
    }
    if (edl_field_role_of(f))
        printf_(t, " ROLE %s", edl_field_role_name(edl_field_role_of(f)));
    print_ref(t, edl_field_ref_of(f));
    if (*edl_field_description(f)) {
        puts_(t, " DESCRIPTION ");
        quoted(t, edl_field_description(f));
    }
    puts_(t, ";\n");
}

/* ROLE IS ...; for the roles every record has, one statement per
 * conditional role, then REGION IS. */
static void print_roles(text *t, const edl_record *r)
{
    size_t n = edl_record_role_count(r);
    int any = 0;
    for (size_t i = 0; i < n; i++) {
        edl_role ro = edl_record_role_at(r, i);
        if (ro.when_field)
            continue;
        puts_(t, any ? ", " : "    ROLE IS ");
        puts_(t, edl_record_role_name(ro.role));
        any = 1;
    }
    if (any)
        puts_(t, ";\n");
    for (size_t i = 0; i < n; i++) {
        edl_role ro = edl_record_role_at(r, i);
        if (!ro.when_field)
            continue;
        printf_(t, "    ROLE IS %s WHEN %s IS ", edl_record_role_name(ro.role), ro.when_field);
        quoted(t, ro.when_value);
        puts_(t, ";\n");
    }
    if (*edl_record_region(r)) {
        puts_(t, "    REGION IS ");
        quoted(t, edl_record_region(r));
        puts_(t, ";\n");
    }
    if (*edl_record_operation(r)) {
        puts_(t, "    OPERATION IS ");
        quoted(t, edl_record_operation(r));
        puts_(t, ";\n");
    }
}

static void print_bind(text *t, const edl_dict *d)
{
    unsigned kc = edl_dict_key_count(d);
    puts_(t, "\nBIND IS\nKEYFIELD INDEX IS ");
    if (kc == 0)
        puts_(t, "DEFAULT");
    else if (kc == 1)
        printf_(t, "%u", edl_dict_key_index(d, 0));
    else
        printf_(t, "(%u, %u)", edl_dict_key_index(d, 0), edl_dict_key_index(d, 1));
    puts_(t, ";\nBEGIN\n");
    for (size_t i = 0; i < edl_dict_bind_count(d); i++) {
        edl_bind b = edl_dict_bind(d, i);
        puts_(t, "    ");
        if (b.key2) {
            puts_(t, "<");
            quoted(t, b.key1);
            puts_(t, ":");
            quoted(t, b.key2);
            puts_(t, ">");
        } else if (kc == 2) {
            puts_(t, "<");
            quoted(t, b.key1);
            puts_(t, ">");
        } else {
            quoted(t, b.key1);
        }
        puts_(t, " IS ");
        quoted(t, edl_record_name(edl_dict_record(d, b.record)));
        puts_(t, ";\n");
    }
    long def = edl_dict_default_record(d);
    if (def >= 0) {
        puts_(t, "    DEFAULT IS ");
        quoted(t, edl_record_name(edl_dict_record(d, (size_t)def)));
        puts_(t, ";\n");
    }
    puts_(t, "END;\n");
}

edl_status edl_dict_print(const edl_dict *d, char **out, size_t *len)
{
    if (!d || !out)
        return EDL_EINVAL;
    *out = NULL;
    text t = {0};
    int ascii = edl_dict_repr(d) == EDL_REPR_ASCII;
    print_header(&t, d);

    /* Shape tables first, in order of first use; remember each array's. */
    size_t nrec = edl_dict_record_count(d), nuses = 0, total = 0;
    for (size_t i = 0; i < nrec; i++)
        total += edl_record_field_count(edl_dict_record(d, i));
    const char **names = calloc(total ? total : 1, sizeof *names);
    shape_use *uses = NULL;
    if (!names)
        t.failed = 1;
    for (size_t i = 0, k = 0; i < nrec && !t.failed; i++) {
        const edl_record *r = edl_dict_record(d, i);
        for (size_t j = 0; j < edl_record_field_count(r); j++, k++) {
            const edl_field *f = edl_record_field(r, j);
            if (edl_field_type(f) != EDL_ARRAY || edl_field_shape_field(f) == EDL_NO_FIELD)
                continue;
            int fresh;
            names[k] = shape_name_for(&uses, &nuses, f, &fresh);
            if (!names[k])
                t.failed = 1;
            else if (fresh)
                print_shape(&t, names[k], f, ascii);
        }
    }
    for (size_t i = 0, k = 0; i < nrec && !t.failed; i++) {
        const edl_record *r = edl_dict_record(d, i);
        printf_(&t, "\nRECORD %s", edl_record_name(r));
        if (*edl_record_description(r)) {
            puts_(&t, " DESCRIPTION ");
            quoted(&t, edl_record_description(r));
        }
        puts_(&t, " IS\nBEGIN\n");
        print_roles(&t, r);
        /* Names padded to the longest (up to a point), as a person would. */
        int width = 0;
        for (size_t j = 0; j < edl_record_field_count(r); j++) {
            size_t w = strlen(edl_field_name(edl_record_field(r, j)));
            if (w > (size_t)width && w <= 24)
                width = (int)w;
        }
        for (size_t j = 0; j < edl_record_field_count(r); j++, k++)
            print_field(&t, r, edl_record_field(r, j), ascii, names[k], width);
        puts_(&t, "END;\n");
    }
    print_bind(&t, d);
    for (size_t i = 0; i < nuses; i++)
        free(uses[i].name);
    free(uses);
    free(names);
    if (t.failed) {
        free(t.p);
        return EDL_ENOMEM;
    }
    *out = t.p;
    if (len)
        *len = t.len;
    return EDL_OK;
}
