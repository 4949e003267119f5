/* resolve.c -- the resolve pass of the EDL compiler: binds every name in the
 * syntax tree to what it names (header items, records, fields, shapes, types)
 * and reports duplicates and unknown names, with a suggestion when one is close. */
#include "config.h"

#include <string.h>

#include "edl/compiler.h"
#include "edl/roles.h"

/* ---- shared helpers ---- */

const char *const edl_type_names[] = {"int8",   "int16",   "int32",   "int64",
                                      "uint8",  "uint16",  "uint32",  "uint64",
                                      "float32", "float64", "string",  NULL};

edl_type edl_type_by_name(const char *name)
{
    for (size_t i = 0; edl_type_names[i]; i++)
        if (strcmp(edl_type_names[i], name) == 0)
            return (edl_type)(EDL_INT8 + i);
    return (edl_type)0;
}

int edl_type_is_signed(edl_type t) { return t >= EDL_INT8 && t <= EDL_INT64; }
int edl_type_is_integer(edl_type t) { return t >= EDL_INT8 && t <= EDL_UINT64; }
int edl_type_is_numeric(edl_type t) { return t >= EDL_INT8 && t <= EDL_FLOAT64; }

edl_encoding edl_default_encoding(const edl_cc *cc, edl_type t)
{
    if (cc->hv.ascii)
        return EDL_ENC_TEXT;
    return t == EDL_STRING ? EDL_ENC_LSTRING : EDL_ENC_FIXED;
}

const char *edl_hdr_text(const edl_cc *cc, hdr_kind k, const char *dflt)
{
    const ast_hdr *h = cc->hv.item[k];
    return h && h->value.text ? h->value.text : dflt;
}

hdr_word edl_hdr_word(const edl_cc *cc, hdr_kind k, hdr_word dflt)
{
    const ast_hdr *h = cc->hv.item[k];
    return h && h->word != W_UNSET ? h->word : dflt;
}

const char *edl_hdr_keyword(hdr_kind k)
{
    static const char *const names[HDR_COUNT] = {
        "NAME",       "VERSION",   "REPRESENTATION", "BYTEORDER", "FRAMING",
        "SEPARATORS", "COMMENT",   "QUOTE",          "BLANKLINES", "SKIPLINES",
        "TIMESTAMP",  "PROCESS",   "THREAD"};
    return (unsigned)k < HDR_COUNT ? names[k] : "?";
}

const char *edl_word_name(hdr_word w)
{
    static const char *const names[] = {
        "", "BINARY", "ASCII", "LITTLE", "BIG", "NATIVE", "ECL", "RAW", "LINES", "MERGED",
        "SINGLE", "ANYWHERE", "BACKSLASH", "DOUBLED", "SKIP", "ERROR", "CONTAINER", "NONE"};
    return (unsigned)w <= W_NONE ? names[w] : "?";
}

/* ---- the pass ---- */

static void resolve_header(edl_cc *cc)
{
    const ast_header *first = cc->ast.headers;
    if (!first) {
        edl_error(cc, edl_noloc(), "missing HEADER block (HEADER IS BEGIN ... END;)");
        return;
    }
    for (const ast_header *h = first->next; h; h = h->next) {
        edl_error(cc, h->loc, "a trace descriptor has one HEADER block");
        edl_note(cc, first->loc, "the first one is here");
    }
    for (const ast_hdr *it = first->items; it; it = it->next) {
        const ast_hdr *prev = cc->hv.item[it->kind];
        if (prev) {
            edl_error(cc, it->loc, "%s given twice in the header", edl_hdr_keyword(it->kind));
            edl_note(cc, prev->loc, "first given here");
            continue;
        }
        cc->hv.item[it->kind] = it;
    }
    cc->hv.ascii = edl_hdr_word(cc, HDR_REPRESENTATION, W_UNSET) == W_ASCII;
}

static void resolve_type(edl_cc *cc, ast_type *t)
{
    if (!t->name.text)
        return;
    t->type = edl_type_by_name(t->name.text);
    if (t->type)
        return;
    /* C's names, which people type by habit. */
    static const char *const c_names[][2] = {
        {"char", "int8"},      {"short", "int16"},    {"int", "int32"},
        {"long", "int64"},     {"unsigned", "uint32"}, {"float", "float32"},
        {"double", "float64"}, {"str", "string"},     {"text", "string"}};
    const char *s = NULL;
    for (size_t i = 0; i < sizeof c_names / sizeof c_names[0]; i++)
        if (strcmp(t->name.text, c_names[i][0]) == 0)
            s = c_names[i][1];
    if (!s)
        s = edl_suggest(t->name.text, edl_type_names,
                        sizeof edl_type_names / sizeof edl_type_names[0] - 1);
    if (s)
        edl_error(cc, t->name.loc, "unknown type '%s'; did you mean '%s'?", t->name.text, s);
    else
        edl_error(cc, t->name.loc, "unknown type '%s'", t->name.text);
}

static void resolve_comps(edl_cc *cc, ast_comp *c)
{
    for (; c; c = c->next)
        resolve_type(cc, &c->type);
}

/* Candidates for "did you mean" among the keys of a map. */
static const char *suggest_in(edl_cc *cc, const edl_map *m, const char *word)
{
    if (!m->n)
        return NULL;
    const char **cands = edl_alloc(cc, m->n * sizeof *cands);
    size_t n = 0;
    for (size_t i = 0; i < m->cap; i++)
        if (m->keys[i])
            cands[n++] = m->keys[i];
    return edl_suggest(word, cands, n);
}

static void unknown(edl_cc *cc, edl_loc loc, const char *what, const char *name,
                    const char *suggestion, const char *where)
{
    if (suggestion)
        edl_error(cc, loc, "%s '%s'%s; did you mean '%s'?", what, name, where, suggestion);
    else
        edl_error(cc, loc, "%s '%s'%s", what, name, where);
}

/* The field of r that an array refers to, which must come before it. */
static ast_field *field_ref(edl_cc *cc, ast_record *r, const ast_field *f, const ast_name *ref,
                            const char *role)
{
    ast_field *g = edl_map_get(&r->by_name, ref->text);
    if (!g) {
        unknown(cc, ref->loc, "unknown field", ref->text,
                suggest_in(cc, &r->by_name, ref->text),
                edl_sprintf(cc, " in record '%s'", r->name.text));
        return NULL;
    }
    if (g->index >= f->index) {
        edl_error(cc, ref->loc, "%s field '%s' must come before array '%s'", role, ref->text,
                  f->name.text);
        edl_note(cc, g->name.loc, "'%s' is declared here", ref->text);
        return NULL;
    }
    return g;
}

static void resolve_attrs(edl_cc *cc, ast_field *f)
{
    const ast_attr *seen[ATTR_COUNT] = {NULL};
    static const char *const names[ATTR_COUNT] = {"UNIT", "DESCRIPTION", "OPTIONAL", "ROLE",
                                                  "REFERS TO"};
    for (const ast_attr *a = f->attrs; a; a = a->next) {
        if (seen[a->kind]) {
            edl_error(cc, a->value.loc, "%s given twice for field '%s'", names[a->kind],
                      f->name.text);
            continue;
        }
        seen[a->kind] = a;
        switch (a->kind) {
        case ATTR_UNIT: f->unit = a->value; break;
        case ATTR_DESCRIPTION: f->desc = a->value; break;
        case ATTR_OPTIONAL:
            f->optional = 1;
            f->optional_loc = a->value.loc;
            break;
        case ATTR_ROLE: f->role_name = a->value; break;
        case ATTR_REFERS: f->ref = a->ref; break;
        case ATTR_COUNT: break;
        }
    }
}

/* ---- roles and references ---- */

/* The closest of the NULL-terminated names to word, or NULL. */
static const char *suggest_from(const char *word, const char *const *names)
{
    size_t n = 0;
    while (names[n])
        n++;
    return edl_suggest(word, names, n);
}

static edl_field_role field_role(edl_cc *cc, const ast_name *n)
{
    edl_field_role fr = edl_field_role_by_name(n->text);
    if (fr)
        return fr;
    if (edl_record_role_by_name(n->text))
        edl_error(cc, n->loc, "'%s' is a record role (ROLE IS %s; in the record's body), not a "
                              "field role", n->text, n->text);
    else
        unknown(cc, n->loc, "unknown field role", n->text,
                suggest_from(n->text, edl_field_role_names), "");
    return EDL_FROLE_NONE;
}

static void record_roles(edl_cc *cc, ast_record *r)
{
    for (ast_role_stmt *st = r->roles; st; st = st->next) {
        for (ast_role_name *n = st->names; n; n = n->next) {
            n->role = edl_record_role_by_name(n->name.text);
            if (n->role)
                continue;
            if (edl_field_role_by_name(n->name.text))
                edl_error(cc, n->name.loc, "'%s' is a field role (FIELD ... ROLE %s;), not a "
                                           "record role", n->name.text, n->name.text);
            else
                unknown(cc, n->name.loc, "unknown record role", n->name.text,
                        suggest_from(n->name.text, edl_record_role_names), "");
        }
        if (!st->when_field.text)
            continue;
        st->when = edl_map_get(&r->by_name, st->when_field.text);
        if (!st->when)
            unknown(cc, st->when_field.loc, "unknown field", st->when_field.text,
                    suggest_in(cc, &r->by_name, st->when_field.text),
                    edl_sprintf(cc, " in record '%s'", r->name.text));
    }
    for (const ast_region *g = r->regions ? r->regions->next : NULL; g; g = g->next) {
        edl_error(cc, g->loc, "REGION given twice in record '%s'", r->name.text);
        edl_note(cc, r->regions->loc, "first given here");
    }
    for (const ast_region *g = r->operations ? r->operations->next : NULL; g; g = g->next) {
        edl_error(cc, g->loc, "OPERATION given twice in record '%s'", r->name.text);
        edl_note(cc, r->operations->loc, "first given here");
    }
}

/* The field a reference names; NULL (reported) when there is none. */
static ast_field *ref_target(edl_cc *cc, const ast_ref *ref)
{
    ast_record *t = edl_map_get(&cc->records, ref->record.text);
    if (!t) {
        unknown(cc, ref->record.loc, "reference to unknown record", ref->record.text,
                suggest_in(cc, &cc->records, ref->record.text), "");
        return NULL;
    }
    ast_field *f = edl_map_get(&t->by_name, ref->field.text);
    if (!f)
        unknown(cc, ref->field.loc, "reference to unknown field", ref->field.text,
                suggest_in(cc, &t->by_name, ref->field.text),
                edl_sprintf(cc, " of record '%s'", t->name.text));
    return f;
}

static void resolve_meaning(edl_cc *cc)
{
    for (hdr_kind k = HDR_PROCESS; k <= HDR_THREAD; k++) {
        ast_hdr *h = (ast_hdr *)cc->hv.item[k];
        if (h && h->ref.record.text)
            h->ref_field = ref_target(cc, &h->ref);
    }
    for (ast_record *r = cc->ast.records; r; r = r->next) {
        if (r->dup)
            continue;
        record_roles(cc, r);
        for (ast_field *f = r->fields; f; f = f->next) {
            if (f->role_name.text)
                f->role = field_role(cc, &f->role_name);
            if (f->ref.record.text)
                f->ref_field = ref_target(cc, &f->ref);
        }
    }
}

static void resolve_record(edl_cc *cc, ast_record *r)
{
    size_t i = 0;
    for (ast_field *f = r->fields; f; f = f->next) {
        f->record = r;
        f->index = i++;
        ast_field *prev = edl_map_get(&r->by_name, f->name.text);
        if (prev) {
            edl_error(cc, f->name.loc, "duplicate field '%s' in record '%s'", f->name.text,
                      r->name.text);
            edl_note(cc, prev->name.loc, "first declared here");
        } else {
            edl_map_put(cc, &r->by_name, f->name.text, f);
        }
    }
    r->nfields = i;
    for (ast_field *f = r->fields; f; f = f->next) {
        resolve_attrs(cc, f);
        if (!f->is_array) {
            resolve_type(cc, &f->type);
            continue;
        }
        if (f->count.text)
            f->count_field = field_ref(cc, r, f, &f->count, "count");
        resolve_comps(cc, f->comps);
        if (f->shape_ref.text) {
            f->shape = edl_map_get(&cc->shapes, f->shape_ref.text);
            if (f->shape)
                f->shape->used = 1;
            else
                unknown(cc, f->shape_ref.loc, "unknown shape", f->shape_ref.text,
                        suggest_in(cc, &cc->shapes, f->shape_ref.text), "");
            f->shape_field = field_ref(cc, r, f, &f->shape_by, "shape");
        }
    }
}

static void resolve_bind(edl_cc *cc)
{
    ast_bind *first = cc->ast.binds;
    if (!first) {
        edl_error(cc, edl_noloc(), "missing bind descriptor (BIND IS KEYFIELD INDEX IS ...; "
                                   "BEGIN ... END;)");
        return;
    }
    cc->bind = first;
    for (const ast_bind *b = first->next; b; b = b->next) {
        edl_error(cc, b->loc, "a trace descriptor has one bind descriptor");
        edl_note(cc, first->loc, "the first one is here");
    }
    for (ast_bind_entry *e = first->entries; e; e = e->next) {
        if (!e->record.text)
            continue;
        e->rec = edl_map_get(&cc->records, e->record.text);
        if (e->rec)
            e->rec->bound = 1;
        else
            unknown(cc, e->record.loc, "unknown record", e->record.text,
                    suggest_in(cc, &cc->records, e->record.text), " in the bind descriptor");
    }
}

void edl_resolve(edl_cc *cc)
{
    resolve_header(cc);
    for (ast_shape *s = cc->ast.shapes; s; s = s->next) {
        const ast_shape *prev = edl_map_get(&cc->shapes, s->name.text);
        if (prev) {
            edl_error(cc, s->name.loc, "duplicate shape '%s'", s->name.text);
            edl_note(cc, prev->name.loc, "first defined here");
        } else {
            edl_map_put(cc, &cc->shapes, s->name.text, s);
        }
        for (ast_shape_entry *e = s->entries; e; e = e->next)
            resolve_comps(cc, e->comps);
    }
    for (ast_record *r = cc->ast.records; r; r = r->next) {
        const ast_record *prev = edl_map_get(&cc->records, r->name.text);
        if (prev) {
            edl_error(cc, r->name.loc, "duplicate record '%s'", r->name.text);
            edl_note(cc, prev->name.loc, "first defined here");
            r->dup = 1;
        } else {
            edl_map_put(cc, &cc->records, r->name.text, r);
        }
    }
    for (ast_record *r = cc->ast.records; r; r = r->next)
        resolve_record(cc, r);
    resolve_meaning(cc);
    resolve_bind(cc);
}
