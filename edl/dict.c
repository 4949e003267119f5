/* dict.c -- EDL dictionary model: building and reading trace descriptors in
 * memory. The binary form lives in dict_codec.c. */
#include "config.h"

#include "edl/dict_impl.h"
#include "edl/roles.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *dup_or_empty(const char *s)
{
    return strdup(s ? s : "");
}

edl_status edl_set_string(char **slot, const char *s)
{
    char *copy = dup_or_empty(s);
    if (!copy)
        return EDL_ENOMEM;
    free(*slot);
    *slot = copy;
    return EDL_OK;
}

/* Names are identifiers so that they can be written back as EDL unquoted. */
static int valid_name(const char *s)
{
    if (!s || !*s)
        return 0;
    if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_'))
        return 0;
    for (s++; *s; s++)
        if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') ||
              (*s >= '0' && *s <= '9') || *s == '_'))
            return 0;
    return 1;
}

static int type_is_signed(edl_type t) { return t >= EDL_INT8 && t <= EDL_INT64; }
static int type_is_unsigned(edl_type t) { return t >= EDL_UINT8 && t <= EDL_UINT64; }

/* Which encodings can carry which types (doc/dictionary-format.md). */
static int encoding_fits(edl_type t, edl_encoding e)
{
    if (t < EDL_INT8 || t > EDL_STRING)
        return 0;
    switch (e) {
    case EDL_ENC_FIXED: return t != EDL_STRING;
    case EDL_ENC_ULEB: return type_is_unsigned(t);
    case EDL_ENC_SLEB: return type_is_signed(t);
    case EDL_ENC_TDELTA: return t == EDL_UINT64;
    case EDL_ENC_LSTRING: return t == EDL_STRING;
    case EDL_ENC_TEXT: return 1;
    case EDL_ENC_NONE: return 0;   /* array fields only, never through here */
    }
    return 0;
}

edl_status edl_dict_create(const char *name, const char *version, edl_repr repr, edl_dict **out)
{
    if (!out)
        return EDL_EINVAL;
    *out = NULL;
    if (!valid_name(name) || (repr != EDL_REPR_BINARY && repr != EDL_REPR_ASCII))
        return EDL_EINVAL;
    edl_dict *d = calloc(1, sizeof *d);
    if (!d)
        return EDL_ENOMEM;
    d->repr = repr;
    d->byte_order = repr == EDL_REPR_BINARY ? 'L' : 0;
    d->framing = repr == EDL_REPR_BINARY ? EDL_FRAMING_ECL : EDL_FRAMING_LINES;
    d->key_index[0] = d->key_index[1] = EDL_NO_KEY;
    d->ascii_flags = repr == EDL_REPR_ASCII ? EDL_ASCII_MERGE : 0;
    d->quote = repr == EDL_REPR_ASCII ? '"' : 0;
    d->default_record = -1;
    if (edl_set_string(&d->name, name) || edl_set_string(&d->version, version) ||
        edl_set_string(&d->time_fraction_field, "") ||
        edl_set_string(&d->time_fraction_unit, "") ||
        edl_set_string(&d->separators, repr == EDL_REPR_ASCII ? " \t" : "") ||
        edl_set_string(&d->comment, "") || edl_set_string(&d->time_field, "") ||
        edl_set_string(&d->time_unit, "") || edl_set_string(&d->process_field, "") ||
        edl_set_string(&d->thread_field, "")) {
        edl_dict_destroy(d);
        return EDL_ENOMEM;
    }
    *out = d;
    return EDL_OK;
}

static void array_free(struct edl_array *a)
{
    if (!a)
        return;
    for (size_t i = 0; i < a->nshapes; i++) {
        for (size_t j = 0; j < a->shapes[i].ncomps; j++)
            free((char *)a->shapes[i].comps[j].name);
        free(a->shapes[i].comps);
        free(a->shapes[i].token);
    }
    free(a->shapes);
    free(a->shape_name);
    free(a);
}

static void ref_clear(struct edl_ref_impl *r)
{
    free(r->record);
    free(r->field);
    memset(r, 0, sizeof *r);
}

static void roles_free(struct edl_role_entry *roles, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(roles[i].when_value);
    free(roles);
}

static void field_free(edl_field *f)
{
    if (!f)
        return;
    ref_clear(&f->ref);
    array_free(f->array);
    free(f->name);
    free(f->unit);
    free(f->description);
    free(f);
}

static void record_free(edl_record *r)
{
    if (!r)
        return;
    for (size_t i = 0; i < r->nfields; i++)
        field_free(r->fields[i]);
    free(r->fields);
    edl_nameidx_free(&r->by_name);
    roles_free(r->roles, r->nroles);
    free(r->region);
    free(r->operation);
    free(r->name);
    free(r->description);
    free(r);
}

void edl_dict_destroy(edl_dict *d)
{
    if (!d)
        return;
    for (size_t i = 0; i < d->nrecords; i++)
        record_free(d->records[i]);
    free(d->records);
    edl_nameidx_free(&d->by_name);
    for (size_t i = 0; i < d->nbinds; i++) {
        free(d->binds[i].key1);
        free(d->binds[i].key2);
    }
    free(d->binds);
    free(d->name);
    free(d->version);
    free(d->separators);
    free(d->comment);
    free(d->time_field);
    free(d->time_unit);
    free(d->process_field);
    free(d->thread_field);
    free(d->time_fraction_field);
    free(d->time_fraction_unit);
    ref_clear(&d->process_ref);
    ref_clear(&d->thread_ref);
    free(d);
}

edl_status edl_dict_set_binary(edl_dict *d, char byte_order, edl_framing framing)
{
    if (!d || d->repr != EDL_REPR_BINARY || (byte_order != 'L' && byte_order != 'B') ||
        (framing != EDL_FRAMING_ECL && framing != EDL_FRAMING_RAW))
        return EDL_EINVAL;
    d->byte_order = byte_order;
    d->framing = framing;
    return EDL_OK;
}

edl_status edl_dict_set_ascii(edl_dict *d, const char *separators, const char *comment)
{
    if (!d || d->repr != EDL_REPR_ASCII || !separators || !*separators ||
        strchr(separators, '\n') || (d->quote && strchr(separators, d->quote)))
        return EDL_EINVAL;
    if (edl_set_string(&d->separators, separators) || edl_set_string(&d->comment, comment))
        return EDL_ENOMEM;
    return EDL_OK;
}

static int valid_unit(const char *u)
{
    static const char *const units[] = {"", "ticks", "ns", "us", "ms", "s"};
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strcmp(u, units[i]) == 0)
            return 1;
    return 0;
}

edl_status edl_dict_set_roles(edl_dict *d, const char *time_field, const char *time_unit,
                              const char *process_field, const char *thread_field)
{
    if (!d)
        return EDL_EINVAL;
    if ((time_field && *time_field && !valid_name(time_field)) ||
        (process_field && *process_field && !valid_name(process_field)) ||
        (thread_field && *thread_field && !valid_name(thread_field)) ||
        !valid_unit(time_unit ? time_unit : ""))
        return EDL_EINVAL;
    if (edl_set_string(&d->time_field, time_field) || edl_set_string(&d->time_unit, time_unit) ||
        edl_set_string(&d->process_field, process_field) ||
        edl_set_string(&d->thread_field, thread_field))
        return EDL_ENOMEM;
    return EDL_OK;
}

edl_status edl_dict_set_key(edl_dict *d, unsigned key_count, unsigned index0, unsigned index1)
{
    if (!d || key_count > 2)
        return EDL_EINVAL;
    if (key_count >= 1 && index0 >= EDL_NO_KEY)
        return EDL_EINVAL;
    if (key_count == 2 && (index1 >= EDL_NO_KEY || index1 == index0))
        return EDL_EINVAL;
    d->key_count = key_count;
    d->key_index[0] = key_count >= 1 ? index0 : EDL_NO_KEY;
    d->key_index[1] = key_count == 2 ? index1 : EDL_NO_KEY;
    return EDL_OK;
}

edl_status edl_dict_add_record(edl_dict *d, const char *name, const char *description,
                               edl_record **out)
{
    if (out)
        *out = NULL;
    if (!d || !valid_name(name))
        return EDL_EINVAL;
    if (edl_dict_find_record(d, name))
        return EDL_EEXIST;
    if (d->nrecords == d->rcap) {
        size_t cap = d->rcap ? d->rcap * 2 : 16;
        edl_record **n = realloc(d->records, cap * sizeof *n);
        if (!n)
            return EDL_ENOMEM;
        d->records = n;
        d->rcap = cap;
    }
    edl_record *r = calloc(1, sizeof *r);
    if (!r || !(r->name = strdup(name)) || !(r->description = dup_or_empty(description)) ||
        !(r->region = strdup("")) || !(r->operation = strdup("")) ||
        edl_nameidx_put(&d->by_name, r->name, d->nrecords) != 0) {
        record_free(r);
        return EDL_ENOMEM;
    }
    r->index = d->nrecords;
    r->dict = d;
    d->records[d->nrecords++] = r;
    if (out)
        *out = r;
    return EDL_OK;
}

/* Room for one more field pointer. */
static edl_status grow_fields(edl_record *r)
{
    if (r->nfields < r->cap)
        return EDL_OK;
    size_t cap = r->cap ? r->cap * 2 : 8;
    edl_field **n = realloc(r->fields, cap * sizeof *n);
    if (!n)
        return EDL_ENOMEM;
    r->fields = n;
    r->cap = cap;
    return EDL_OK;
}

/* Rules on where a new field may go (doc/dictionary-format.md, "Variable parts"):
 * nothing after a rest-of-record array, and after an optional field only
 * optional fields and arrays. */
static int may_append(const edl_record *r, int optional, int array)
{
    if (r->nfields == 0)
        return 1;
    const edl_field *last = r->fields[r->nfields - 1];
    if (last->array && last->array->count_field == EDL_NO_FIELD)
        return 0;
    return optional || array || r->noptional == 0;
}

/* Appends a made field (room reserved by grow_fields): the one place fields
 * join a record, so that its name index and counts stay true. */
static edl_status append_field(edl_record *r, edl_field *f)
{
    if (edl_nameidx_put(&r->by_name, f->name, r->nfields) != 0)
        return EDL_ENOMEM;
    r->noptional += (f->flags & EDL_FIELD_OPTIONAL) != 0;
    r->fields[r->nfields++] = f;
    return EDL_OK;
}

static edl_field *new_field(edl_record *r, const char *name, edl_type type, edl_encoding enc,
                            unsigned flags, const char *unit, const char *description)
{
    edl_field *f = calloc(1, sizeof *f);
    if (!f || !(f->name = strdup(name)) || !(f->unit = dup_or_empty(unit)) ||
        !(f->description = dup_or_empty(description))) {
        field_free(f);
        return NULL;
    }
    f->type = type;
    f->enc = enc;
    f->flags = (uint16_t)flags;
    f->index = r->nfields;
    return f;
}

edl_status edl_record_add_field_ex(edl_record *r, const char *name, edl_type type,
                                   edl_encoding enc, unsigned flags, const char *unit,
                                   const char *description)
{
    if (!r || !valid_name(name) || !encoding_fits(type, enc) || (flags & ~EDL_FIELD_OPTIONAL))
        return EDL_EINVAL;
    if ((flags & EDL_FIELD_OPTIONAL) && r->dict->repr != EDL_REPR_ASCII)
        return EDL_EINVAL;
    if (!may_append(r, (flags & EDL_FIELD_OPTIONAL) != 0, 0))
        return EDL_EINVAL;
    if (edl_record_find_field(r, name) >= 0)
        return EDL_EEXIST;
    if (grow_fields(r))
        return EDL_ENOMEM;
    edl_field *f = new_field(r, name, type, enc, flags, unit, description);
    if (!f)
        return EDL_ENOMEM;
    edl_status st = append_field(r, f);
    if (st != EDL_OK)
        field_free(f);
    return st;
}

edl_status edl_record_add_field(edl_record *r, const char *name, edl_type type, edl_encoding enc,
                                const char *unit, const char *description)
{
    return edl_record_add_field_ex(r, name, type, enc, 0, unit, description);
}

static int type_is_integer(edl_type t) { return type_is_signed(t) || type_is_unsigned(t); }

/* Index of the scalar field that may serve as count (integer) or shape
 * selector (integer or string), or EDL_NO_FIELD when it cannot. */
static size_t ref_field(const edl_record *r, const char *name, int shape)
{
    long i = edl_record_find_field(r, name);
    if (i < 0 || i >= 0xFFFF)
        return EDL_NO_FIELD;
    edl_type t = r->fields[i]->type;
    if (!type_is_integer(t) && !(shape && t == EDL_STRING))
        return EDL_NO_FIELD;
    return (size_t)i;
}

/* Copies items into shape s; EDL_EINVAL when a component is bad. */
static edl_status set_shape(struct edl_shape *s, const char *token, const edl_component *items,
                            size_t n)
{
    memset(s, 0, sizeof *s);
    if (!items || n == 0 || n >= 0xFFFF)
        return EDL_EINVAL;
    for (size_t i = 0; i < n; i++) {
        const char *nm = items[i].name ? items[i].name : "";
        if ((*nm && !valid_name(nm)) || items[i].type == EDL_ARRAY ||
            !encoding_fits(items[i].type, items[i].enc))
            return EDL_EINVAL;
        for (size_t j = 0; *nm && j < i; j++)
            if (items[j].name && strcmp(items[j].name, nm) == 0)
                return EDL_EINVAL;
    }
    if (!(s->token = dup_or_empty(token)) || !(s->comps = calloc(n, sizeof *s->comps)))
        return EDL_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        s->comps[i] = items[i];
        if (!(s->comps[i].name = dup_or_empty(items[i].name)))
            return EDL_ENOMEM;
        s->ncomps = i + 1;
    }
    return EDL_OK;
}

static void shape_clear(struct edl_shape *s)
{
    for (size_t j = 0; j < s->ncomps; j++)
        free((char *)s->comps[j].name);
    free(s->comps);
    free(s->token);
    memset(s, 0, sizeof *s);
}

static edl_status shape_append(struct edl_array *a, const char *token, const edl_component *items,
                               size_t n)
{
    if (a->nshapes == a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 4;
        if (cap >= 0xFFFF)
            return EDL_EINVAL;
        struct edl_shape *ns = realloc(a->shapes, cap * sizeof *ns);
        if (!ns)
            return EDL_ENOMEM;
        a->shapes = ns;
        a->cap = cap;
    }
    edl_status st = set_shape(&a->shapes[a->nshapes], token, items, n);
    if (st != EDL_OK) {
        shape_clear(&a->shapes[a->nshapes]);
        return st;
    }
    a->nshapes++;
    return EDL_OK;
}

/* Common part of the two array constructors. */
static edl_status add_array(edl_record *r, const char *name, const char *count_field,
                            const char *shape_field, const char *shape_name, unsigned shape_flags,
                            const char *unit, const char *description, edl_field **out)
{
    *out = NULL;
    if (!r || !valid_name(name) || (shape_flags & ~EDL_SHAPE_FORMAT) ||
        (shape_name && *shape_name && !valid_name(shape_name)))
        return EDL_EINVAL;
    int ascii = r->dict->repr == EDL_REPR_ASCII;
    if ((!count_field || shape_field) && !ascii)
        return EDL_EINVAL;
    size_t count = EDL_NO_FIELD, shape = EDL_NO_FIELD;
    if (count_field && (count = ref_field(r, count_field, 0)) == EDL_NO_FIELD)
        return EDL_EINVAL;
    if (shape_field && (shape = ref_field(r, shape_field, 1)) == EDL_NO_FIELD)
        return EDL_EINVAL;
    if (!may_append(r, 0, 1))
        return EDL_EINVAL;
    if (edl_record_find_field(r, name) >= 0)
        return EDL_EEXIST;
    if (grow_fields(r))
        return EDL_ENOMEM;
    edl_field *f = new_field(r, name, EDL_ARRAY, EDL_ENC_NONE, EDL_FIELD_ARRAY, unit, description);
    if (!f)
        return EDL_ENOMEM;
    if (!(f->array = calloc(1, sizeof *f->array)) ||
        !(f->array->shape_name = dup_or_empty(shape_field ? shape_name : ""))) {
        field_free(f);
        return EDL_ENOMEM;
    }
    f->array->count_field = count;
    f->array->shape_field = shape;
    f->array->shape_flags = shape_field ? shape_flags : 0;
    *out = f;
    return EDL_OK;
}

edl_status edl_record_add_array(edl_record *r, const char *name, const char *count_field,
                                const edl_component *items, size_t nitems, const char *unit,
                                const char *description)
{
    edl_field *f;
    edl_status st = add_array(r, name, count_field, NULL, NULL, 0, unit, description, &f);
    if (st == EDL_OK && ((st = shape_append(f->array, "", items, nitems)) != EDL_OK ||
                         (st = append_field(r, f)) != EDL_OK))
        field_free(f);
    return st;
}

edl_status edl_record_add_shaped_array(edl_record *r, const char *name, const char *count_field,
                                       const char *shape_field, const char *shape_name,
                                       unsigned shape_flags, const char *unit,
                                       const char *description)
{
    edl_field *f;
    if (!shape_field)
        return EDL_EINVAL;
    edl_status st = add_array(r, name, count_field, shape_field, shape_name, shape_flags, unit,
                              description, &f);
    if (st == EDL_OK && (st = append_field(r, f)) != EDL_OK)
        field_free(f);
    return st;
}

edl_status edl_record_add_shape(edl_record *r, const char *token, const edl_component *items,
                                size_t nitems)
{
    if (!r || !token || r->nfields == 0)
        return EDL_EINVAL;
    edl_field *f = r->fields[r->nfields - 1];
    if (!f->array || f->array->shape_field == EDL_NO_FIELD)
        return EDL_EINVAL;
    if (edl_field_find_shape(f, token) >= 0)
        return EDL_EEXIST;
    return shape_append(f->array, token, items, nitems);
}

edl_status edl_record_copy_field(edl_record *r, const edl_field *f)
{
    if (!f->array)
        return edl_record_add_field_ex(r, f->name, f->type, f->enc, f->flags, f->unit,
                                       f->description);
    const struct edl_array *a = f->array;
    if ((a->count_field != EDL_NO_FIELD && a->count_field >= r->nfields) ||
        (a->shape_field != EDL_NO_FIELD && a->shape_field >= r->nfields))
        return EDL_EINVAL;
    const char *count = a->count_field == EDL_NO_FIELD ? NULL : r->fields[a->count_field]->name;
    edl_status st;
    if (a->shape_field == EDL_NO_FIELD) {
        if (a->nshapes != 1)
            return EDL_EINVAL;
        return edl_record_add_array(r, f->name, count, a->shapes[0].comps, a->shapes[0].ncomps,
                                    f->unit, f->description);
    }
    st = edl_record_add_shaped_array(r, f->name, count, r->fields[a->shape_field]->name,
                                     a->shape_name, a->shape_flags, f->unit, f->description);
    for (size_t i = 0; st == EDL_OK && i < a->nshapes; i++)
        st = edl_record_add_shape(r, a->shapes[i].token, a->shapes[i].comps, a->shapes[i].ncomps);
    return st;
}

int edl_refs_equal(const struct edl_ref_impl *a, const struct edl_ref_impl *b)
{
    if (!a->record || !b->record)
        return !a->record == !b->record;
    return strcmp(a->record, b->record) == 0 && strcmp(a->field, b->field) == 0 &&
           a->flags == b->flags;
}

int edl_fields_equal(const edl_field *x, const edl_field *y)
{
    if (strcmp(x->name, y->name) || x->type != y->type || x->enc != y->enc ||
        x->flags != y->flags || strcmp(x->unit, y->unit) || strcmp(x->description, y->description) ||
        !x->array != !y->array || x->role != y->role || !edl_refs_equal(&x->ref, &y->ref))
        return 0;
    if (!x->array)
        return 1;
    const struct edl_array *a = x->array, *b = y->array;
    if (a->count_field != b->count_field || a->shape_field != b->shape_field ||
        a->shape_flags != b->shape_flags || strcmp(a->shape_name, b->shape_name) ||
        a->nshapes != b->nshapes)
        return 0;
    for (size_t i = 0; i < a->nshapes; i++) {
        const struct edl_shape *s = &a->shapes[i], *t = &b->shapes[i];
        if (strcmp(s->token, t->token) || s->ncomps != t->ncomps)
            return 0;
        for (size_t j = 0; j < s->ncomps; j++)
            if (strcmp(s->comps[j].name, t->comps[j].name) || s->comps[j].type != t->comps[j].type ||
                s->comps[j].enc != t->comps[j].enc)
                return 0;
    }
    return 1;
}

long edl_find_bind(const edl_dict *d, const char *key1, const char *key2)
{
    for (size_t i = 0; i < d->nbinds; i++) {
        const struct edl_bind_entry *b = &d->binds[i];
        if (strcmp(b->key1, key1) != 0)
            continue;
        if ((!b->key2 && !key2) || (b->key2 && key2 && strcmp(b->key2, key2) == 0))
            return (long)i;
    }
    return -1;
}

edl_status edl_dict_add_bind(edl_dict *d, const char *key1, const char *key2,
                             const char *record_name)
{
    if (!d || !key1 || !record_name)
        return EDL_EINVAL;
    const edl_record *r = edl_dict_find_record(d, record_name);
    if (!r)
        return EDL_ENOENT;
    if (edl_find_bind(d, key1, key2) >= 0)
        return EDL_EEXIST;
    if (d->nbinds == d->bcap) {
        size_t cap = d->bcap ? d->bcap * 2 : 16;
        struct edl_bind_entry *n = realloc(d->binds, cap * sizeof *n);
        if (!n)
            return EDL_ENOMEM;
        d->binds = n;
        d->bcap = cap;
    }
    struct edl_bind_entry *b = &d->binds[d->nbinds];
    b->key1 = strdup(key1);
    b->key2 = key2 ? strdup(key2) : NULL;
    if (!b->key1 || (key2 && !b->key2)) {
        free(b->key1);
        free(b->key2);
        return EDL_ENOMEM;
    }
    b->record = r->index;
    d->nbinds++;
    return EDL_OK;
}

edl_status edl_dict_set_ascii_syntax(edl_dict *d, unsigned flags, char quote, unsigned skip_lines)
{
    if (!d || d->repr != EDL_REPR_ASCII || (flags & ~0x0Fu) || skip_lines > 0xFFFF)
        return EDL_EINVAL;
    if (quote && ((unsigned char)quote < 0x21 || (unsigned char)quote > 0x7E ||
                  strchr(d->separators, quote)))
        return EDL_EINVAL;
    if (!quote && (flags & EDL_ASCII_QUOTE_DOUBLED))
        return EDL_EINVAL;
    d->ascii_flags = flags;
    d->quote = quote;
    d->skip_lines = skip_lines;
    return EDL_OK;
}

edl_status edl_dict_set_default_record(edl_dict *d, const char *record_name)
{
    if (!d)
        return EDL_EINVAL;
    if (!record_name) {
        d->default_record = -1;
        return EDL_OK;
    }
    const edl_record *r = edl_dict_find_record(d, record_name);
    if (!r)
        return EDL_ENOENT;
    d->default_record = (long)r->index;
    return EDL_OK;
}

edl_status edl_dict_set_time_fraction(edl_dict *d, const char *field, const char *unit)
{
    if (!d)
        return EDL_EINVAL;
    if (!field || !*field)
        field = unit = "";
    else if (!valid_name(field) || !unit || !*unit || !valid_unit(unit))
        return EDL_EINVAL;
    if (edl_set_string(&d->time_fraction_field, field) ||
        edl_set_string(&d->time_fraction_unit, unit))
        return EDL_ENOMEM;
    return EDL_OK;
}

/* ---- meaning (1.2) ---- */

static int valid_ref(const edl_ref *ref)
{
    return valid_name(ref->record) && valid_name(ref->field) && !(ref->flags & ~EDL_REF_GLOBAL);
}

static edl_status ref_set(struct edl_ref_impl *slot, const edl_ref *ref)
{
    struct edl_ref_impl n = {NULL, NULL, 0};
    if (ref && ref->record) {
        n.record = strdup(ref->record);
        n.field = strdup(ref->field);
        n.flags = ref->flags;
        if (!n.record || !n.field) {
            ref_clear(&n);
            return EDL_ENOMEM;
        }
    }
    ref_clear(slot);
    *slot = n;
    return EDL_OK;
}

/* Whether value is a value field f can hold, as the model stores it (integer
 * fields: canonical decimal text). */
static int when_value_ok(const edl_field *f, const char *value)
{
    if (!value)
        return 0;
    if (f->type == EDL_STRING)
        return 1;
    char canon[32];
    int range;
    return edl_canon_int(value, f->type, canon, sizeof canon, &range) &&
           strcmp(canon, value) == 0;
}

/* The rules of doc/edl.md, "Roles", on the roles of r and the fields' roles
 * (froles[i] for field i). */
static int roles_ok(const edl_record *r, const edl_meaning *m, const edl_field_role *froles)
{
    edl_record_role primary = EDL_ROLE_NONE;
    uint64_t seen = 0;
    for (size_t i = 0; i < m->nroles; i++) {
        const edl_role *ro = &m->roles[i];
        int prim = edl_role_is_primary(ro->role);
        if (!prim && !edl_role_is_qualifier(ro->role))
            return 0;
        if (seen & (UINT64_C(1) << ro->role))
            return 0;
        seen |= UINT64_C(1) << ro->role;
        if (prim) {
            if (primary || ro->when_field)
                return 0;
            primary = ro->role;
        }
        if (ro->when_field) {
            long w = edl_record_find_field(r, ro->when_field);
            if (w < 0)
                return 0;
            const edl_field *f = r->fields[w];
            if (f->array || (f->flags & EDL_FIELD_OPTIONAL) ||
                (!type_is_integer(f->type) && f->type != EDL_STRING) ||
                !when_value_ok(f, ro->when_value))
                return 0;
        }
    }
    if (m->nroles && !primary)
        return 0;
    int has[EDL_FROLE_LIMIT] = {0};
    for (size_t i = 0; i < r->nfields; i++)
        has[froles[i]] = 1;
    for (size_t i = 0; i < m->nroles; i++) {
        edl_record_role ro = m->roles[i].role;
        if (ro != primary && !edl_role_qualifies(primary, ro))
            return 0;
        edl_role_need need = edl_role_needs(ro);
        if (need.any[0] && !has[need.any[0]] && !(need.any[1] && has[need.any[1]]))
            return 0;
    }
    if (primary == EDL_ROLE_MESSAGE &&
        !(seen & (UINT64_C(1) << EDL_ROLE_SEND | UINT64_C(1) << EDL_ROLE_RECV)))
        return 0;   /* a message is sent or received */
    int region = m->region && *m->region;
    if (region && !edl_role_has_region(primary))
        return 0;
    if (edl_role_has_region(primary) && region == has[EDL_FROLE_REGION])
        return 0;   /* a region: from a field or REGION, exactly one */
    if (m->operation && *m->operation &&
        (!(seen & UINT64_C(1) << EDL_ROLE_COLLECTIVE) || !edl_operation_known(m->operation)))
        return 0;   /* an operation is a collective's, one of the list */
    return 1;
}

edl_status edl_record_set_meaning(edl_record *r, const edl_meaning *m)
{
    static const edl_meaning none;
    if (!r)
        return EDL_EINVAL;
    if (!m)
        m = &none;
    if ((m->nroles && !m->roles) || (m->nfields && !m->fields) || m->nroles > 255)
        return EDL_EINVAL;
    edl_field_role *froles = calloc(r->nfields ? r->nfields : 1, sizeof *froles);
    const edl_ref **refs = calloc(r->nfields ? r->nfields : 1, sizeof *refs);
    unsigned char *given = calloc(r->nfields ? r->nfields : 1, 1);
    struct edl_role_entry *roles = calloc(m->nroles ? m->nroles : 1, sizeof *roles);
    char *region = dup_or_empty(m->region), *operation = dup_or_empty(m->operation);
    edl_status st = EDL_ENOMEM;
    size_t nroles = 0;
    if (!froles || !refs || !given || !roles || !region || !operation)
        goto done;
    st = EDL_EINVAL;
    int used[EDL_FROLE_LIMIT] = {0};
    for (size_t i = 0; i < m->nfields; i++) {
        const edl_field_meaning *fm = &m->fields[i];
        long fi = edl_record_find_field(r, fm->field);
        if (fi < 0 || given[fi])
            goto done;
        given[fi] = 1;
        const edl_field *f = r->fields[fi];
        if (fm->role != EDL_FROLE_NONE) {
            if (fm->role >= EDL_FROLE_LIMIT || f->array || used[fm->role] ||
                edl_field_role_type_need(fm->role, f->type) ||
                (edl_field_role_is_designation(fm->role) && (f->flags & EDL_FIELD_OPTIONAL)))
                goto done;
            used[fm->role] = 1;
            froles[fi] = fm->role;
        }
        if (fm->ref.record) {
            if (!valid_ref(&fm->ref) || f->array || !type_is_integer(f->type))
                goto done;
            refs[fi] = &fm->ref;
        }
    }
    if (!roles_ok(r, m, froles))
        goto done;
    st = EDL_ENOMEM;
    for (; nroles < m->nroles; nroles++) {
        const edl_role *ro = &m->roles[nroles];
        roles[nroles].role = ro->role;
        roles[nroles].when_field =
            ro->when_field ? (size_t)edl_record_find_field(r, ro->when_field) : EDL_NO_FIELD;
        if (!(roles[nroles].when_value = dup_or_empty(ro->when_field ? ro->when_value : "")))
            goto done;
    }
    /* Kept sorted by code, so that the order roles are given in does not
     * change the encoding. */
    for (size_t i = 1; i < nroles; i++)
        for (size_t j = i; j > 0 && roles[j - 1].role > roles[j].role; j--) {
            struct edl_role_entry t = roles[j];
            roles[j] = roles[j - 1];
            roles[j - 1] = t;
        }
    /* Everything checked and allocated but the references: commit. */
    struct edl_ref_impl *nrefs = calloc(r->nfields ? r->nfields : 1, sizeof *nrefs);
    if (!nrefs)
        goto done;
    for (size_t i = 0; i < r->nfields; i++)
        if (refs[i] && ref_set(&nrefs[i], refs[i]) != EDL_OK) {
            for (size_t j = 0; j < r->nfields; j++)
                ref_clear(&nrefs[j]);
            free(nrefs);
            goto done;
        }
    for (size_t i = 0; i < r->nfields; i++) {
        ref_clear(&r->fields[i]->ref);
        r->fields[i]->ref = nrefs[i];
        r->fields[i]->role = froles[i];
    }
    free(nrefs);
    roles_free(r->roles, r->nroles);
    r->roles = roles;
    r->nroles = nroles;
    roles = NULL;
    nroles = 0;
    free(r->region);
    r->region = region;
    region = NULL;
    free(r->operation);
    r->operation = operation;
    operation = NULL;
    st = EDL_OK;
done:
    roles_free(roles, nroles);
    free(region);
    free(operation);
    free(given);
    free(refs);
    free(froles);
    return st;
}

static struct edl_ref_impl *designation_slot(edl_dict *d, edl_field_role which)
{
    return which == EDL_FROLE_PROCESS ? &d->process_ref
         : which == EDL_FROLE_THREAD ? &d->thread_ref : NULL;
}

edl_status edl_dict_set_designation_ref(edl_dict *d, edl_field_role which, const edl_ref *ref)
{
    struct edl_ref_impl *slot = d ? designation_slot(d, which) : NULL;
    if (!slot || (ref && ref->record && !valid_ref(ref)))
        return EDL_EINVAL;
    return ref_set(slot, ref);
}

/* The meaning of src as the setter takes it; the arrays are malloc'd. */
edl_status edl_record_meaning_of(const edl_record *src, edl_meaning *m, edl_role **roles,
                             edl_field_meaning **fields)
{
    memset(m, 0, sizeof *m);
    *roles = calloc(src->nroles ? src->nroles : 1, sizeof **roles);
    *fields = calloc(src->nfields ? src->nfields : 1, sizeof **fields);
    if (!*roles || !*fields)
        return EDL_ENOMEM;
    for (size_t i = 0; i < src->nroles; i++)
        (*roles)[i] = edl_record_role_at(src, i);
    for (size_t i = 0; i < src->nfields; i++) {
        const edl_field *f = src->fields[i];
        if (f->role == EDL_FROLE_NONE && !f->ref.record)
            continue;
        edl_field_meaning *fm = &(*fields)[m->nfields++];
        fm->field = f->name;
        fm->role = f->role;
        fm->ref = edl_field_ref_of(f);
    }
    m->roles = *roles;
    m->nroles = src->nroles;
    m->region = src->region;
    m->operation = src->operation;
    m->fields = *fields;
    return EDL_OK;
}

edl_status edl_record_copy_meaning(edl_record *r, const edl_record *src)
{
    if (!r || !src)
        return EDL_EINVAL;
    edl_meaning m;
    edl_role *roles = NULL;
    edl_field_meaning *fields = NULL;
    edl_status st = edl_record_meaning_of(src, &m, &roles, &fields);
    if (st == EDL_OK)
        st = edl_record_set_meaning(r, &m);
    free(roles);
    free(fields);
    return st;
}

edl_status edl_dict_copy_record(edl_dict *d, const edl_record *src, edl_record **out)
{
    if (out)
        *out = NULL;
    if (!d || !src)
        return EDL_EINVAL;
    edl_record *r;
    edl_status st = edl_dict_add_record(d, src->name, src->description, &r);
    for (size_t j = 0; st == EDL_OK && j < src->nfields; j++)
        st = edl_record_copy_field(r, src->fields[j]);
    if (st == EDL_OK)
        st = edl_record_copy_meaning(r, src);
    if (st != EDL_OK) {
        if (r && d->nrecords && d->records[d->nrecords - 1] == r) {
            d->nrecords--;
            record_free(r);
            edl_nameidx_clear(&d->by_name);      /* rare: index the others again */
            for (size_t i = 0; i < d->nrecords; i++)
                (void)edl_nameidx_put(&d->by_name, d->records[i]->name, i);
        }
        return st;
    }
    if (out)
        *out = r;
    return EDL_OK;
}

int edl_records_equal(const edl_record *a, const edl_record *b)
{
    if (strcmp(a->name, b->name) || strcmp(a->description, b->description) ||
        a->nfields != b->nfields || a->nroles != b->nroles || strcmp(a->region, b->region) ||
        strcmp(a->operation, b->operation))
        return 0;
    for (size_t i = 0; i < a->nfields; i++)
        if (!edl_fields_equal(a->fields[i], b->fields[i]))
            return 0;
    for (size_t i = 0; i < a->nroles; i++)
        if (a->roles[i].role != b->roles[i].role ||
            a->roles[i].when_field != b->roles[i].when_field ||
            strcmp(a->roles[i].when_value, b->roles[i].when_value))
            return 0;
    return 1;
}

int edl_dict_needs_1_2(const edl_dict *d)
{
    if (d->process_ref.record || d->thread_ref.record)
        return 1;
    for (size_t i = 0; i < d->nrecords; i++) {
        const edl_record *r = d->records[i];
        if (r->nroles || *r->region)
            return 1;
        for (size_t j = 0; j < r->nfields; j++)
            if (r->fields[j]->role || r->fields[j]->ref.record)
                return 1;
    }
    return 0;
}

/* Whether a record of d has a role, or a field a role, of a tail. */
static int uses_roles(const edl_dict *d, int (*role)(edl_record_role),
                      int (*field_role)(edl_field_role))
{
    for (size_t i = 0; i < d->nrecords; i++) {
        const edl_record *r = d->records[i];
        for (size_t k = 0; k < r->nroles; k++)
            if (role(r->roles[k].role))
                return 1;
        for (size_t j = 0; j < r->nfields; j++)
            if (field_role(r->fields[j]->role))
                return 1;
    }
    return 0;
}

int edl_dict_needs_1_5(const edl_dict *d)
{
    return uses_roles(d, edl_role_is_1_5, edl_field_role_is_1_5);
}

int edl_dict_needs_1_4(const edl_dict *d)
{
    return uses_roles(d, edl_role_is_1_4, edl_field_role_is_1_4);
}

int edl_dict_needs_1_3(const edl_dict *d)
{
    for (size_t i = 0; i < d->nrecords; i++)
        if (*d->records[i]->operation)
            return 1;
    return uses_roles(d, edl_role_is_1_3, edl_field_role_is_1_3);
}

/* Why ref is wrong in d, or NULL. A record d does not hold is no error: a
 * dictionary chunk adds types to a trace's dictionary piece by piece, and
 * may refer to a definition an earlier piece holds. */
static const char *ref_problem(const edl_dict *d, const struct edl_ref_impl *ref)
{
    const edl_record *t = edl_dict_find_record(d, ref->record);
    if (!t)
        return NULL;
    if (edl_record_has_role(t, EDL_ROLE_DEFINITION) != 1)
        return "names a record that is not a definition";
    long fi = edl_record_find_field(t, ref->field);
    if (fi < 0)
        return "names no field of that record";
    const edl_field *f = t->fields[fi];
    if (f->array || !type_is_integer(f->type) || (f->flags & EDL_FIELD_OPTIONAL))
        return "names a field that is not a required integer";
    return NULL;
}

int edl_dict_refs_ok(const edl_dict *d, char *err, size_t errlen)
{
    const struct edl_ref_impl *dr[2] = {&d->process_ref, &d->thread_ref};
    for (int k = 0; k < 2; k++) {
        const char *why = dr[k]->record ? ref_problem(d, dr[k]) : NULL;
        if (why) {
            if (err && errlen)
                snprintf(err, errlen, "the %s designation's reference to %s.%s %s",
                         k ? "thread" : "process", dr[k]->record, dr[k]->field, why);
            return 0;
        }
    }
    for (size_t i = 0; i < d->nrecords; i++)
        for (size_t j = 0; j < d->records[i]->nfields; j++) {
            const edl_field *f = d->records[i]->fields[j];
            const char *why = f->ref.record ? ref_problem(d, &f->ref) : NULL;
            if (why) {
                if (err && errlen)
                    snprintf(err, errlen, "field '%s' of record '%s': reference to %s.%s %s",
                             f->name, d->records[i]->name, f->ref.record, f->ref.field, why);
                return 0;
            }
        }
    return 1;
}

size_t edl_record_role_count(const edl_record *r) { return r ? r->nroles : 0; }

edl_role edl_record_role_at(const edl_record *r, size_t i)
{
    edl_role ro = {EDL_ROLE_NONE, NULL, NULL};
    if (r && i < r->nroles) {
        ro.role = r->roles[i].role;
        if (r->roles[i].when_field != EDL_NO_FIELD) {
            ro.when_field = r->fields[r->roles[i].when_field]->name;
            ro.when_value = r->roles[i].when_value;
        }
    }
    return ro;
}

int edl_record_has_role(const edl_record *r, edl_record_role role)
{
    for (size_t i = 0; r && i < r->nroles; i++)
        if (r->roles[i].role == role)
            return r->roles[i].when_field == EDL_NO_FIELD ? 1 : 2;
    return 0;
}

const char *edl_record_region(const edl_record *r) { return r ? r->region : ""; }
const char *edl_record_operation(const edl_record *r) { return r ? r->operation : ""; }
edl_field_role edl_field_role_of(const edl_field *f) { return f ? f->role : EDL_FROLE_NONE; }

static edl_ref ref_view(const struct edl_ref_impl *r)
{
    edl_ref v = {r->record, r->field, r->flags};
    return v;
}

edl_ref edl_field_ref_of(const edl_field *f)
{
    static const struct edl_ref_impl none;
    return ref_view(f ? &f->ref : &none);
}

edl_ref edl_dict_designation_ref(const edl_dict *d, edl_field_role which)
{
    static const struct edl_ref_impl none;
    const struct edl_ref_impl *slot = d ? designation_slot((edl_dict *)d, which) : NULL;
    return ref_view(slot ? slot : &none);
}

int edl_dict_needs_1_1(const edl_dict *d)
{
    if (d->ascii_flags || d->quote || d->skip_lines || d->default_record >= 0 ||
        *d->time_fraction_field)
        return 1;
    for (size_t i = 0; i < d->nrecords; i++)
        for (size_t j = 0; j < d->records[i]->nfields; j++)
            if (d->records[i]->fields[j]->flags)
                return 1;
    return 0;
}

long edl_dict_lookup(const edl_dict *d, const char *key1, const char *key2)
{
    if (!d)
        return -1;
    if (d->key_count == 0)
        return d->default_record >= 0 ? d->default_record : d->nrecords ? 0 : -1;
    if (!key1)
        return d->default_record;
    long b = -1;
    if (d->key_count == 2 && key2)
        b = edl_find_bind(d, key1, key2);
    if (b < 0)
        b = edl_find_bind(d, key1, NULL);
    return b >= 0 ? (long)d->binds[b].record : d->default_record;
}

/* ---- access ---- */
const char *edl_dict_name(const edl_dict *d) { return d ? d->name : ""; }
const char *edl_dict_version(const edl_dict *d) { return d ? d->version : ""; }
edl_repr edl_dict_repr(const edl_dict *d) { return d ? d->repr : EDL_REPR_BINARY; }
char edl_dict_byte_order(const edl_dict *d) { return d ? d->byte_order : 0; }
edl_framing edl_dict_framing(const edl_dict *d) { return d ? d->framing : EDL_FRAMING_ECL; }
const char *edl_dict_separators(const edl_dict *d) { return d ? d->separators : ""; }
const char *edl_dict_comment(const edl_dict *d) { return d ? d->comment : ""; }
const char *edl_dict_time_field(const edl_dict *d) { return d ? d->time_field : ""; }
const char *edl_dict_time_unit(const edl_dict *d) { return d ? d->time_unit : ""; }
const char *edl_dict_process_field(const edl_dict *d) { return d ? d->process_field : ""; }
const char *edl_dict_thread_field(const edl_dict *d) { return d ? d->thread_field : ""; }
unsigned edl_dict_key_count(const edl_dict *d) { return d ? d->key_count : 0; }

unsigned edl_dict_key_index(const edl_dict *d, unsigned which)
{
    return d && which < 2 ? d->key_index[which] : EDL_NO_KEY;
}

size_t edl_dict_record_count(const edl_dict *d) { return d ? d->nrecords : 0; }

const edl_record *edl_dict_record(const edl_dict *d, size_t i)
{
    return d && i < d->nrecords ? d->records[i] : NULL;
}

const edl_record *edl_dict_find_record(const edl_dict *d, const char *name)
{
    if (!d || !name)
        return NULL;
    long i = edl_nameidx_get(&d->by_name, name);
    return i >= 0 ? d->records[i] : NULL;
}

size_t edl_dict_bind_count(const edl_dict *d) { return d ? d->nbinds : 0; }
unsigned edl_dict_ascii_flags(const edl_dict *d) { return d ? d->ascii_flags : 0; }
char edl_dict_quote(const edl_dict *d) { return d ? d->quote : 0; }
unsigned edl_dict_skip_lines(const edl_dict *d) { return d ? d->skip_lines : 0; }
long edl_dict_default_record(const edl_dict *d) { return d ? d->default_record : -1; }
const char *edl_dict_time_fraction_field(const edl_dict *d)
{
    return d ? d->time_fraction_field : "";
}
const char *edl_dict_time_fraction_unit(const edl_dict *d)
{
    return d ? d->time_fraction_unit : "";
}

edl_bind edl_dict_bind(const edl_dict *d, size_t i)
{
    edl_bind b = {NULL, NULL, 0};
    if (d && i < d->nbinds) {
        b.key1 = d->binds[i].key1;
        b.key2 = d->binds[i].key2;
        b.record = d->binds[i].record;
    }
    return b;
}

const char *edl_record_name(const edl_record *r) { return r ? r->name : ""; }
const char *edl_record_description(const edl_record *r) { return r ? r->description : ""; }
size_t edl_record_index(const edl_record *r) { return r ? r->index : 0; }
size_t edl_record_field_count(const edl_record *r) { return r ? r->nfields : 0; }

const edl_field *edl_record_field(const edl_record *r, size_t i)
{
    return r && i < r->nfields ? r->fields[i] : NULL;
}

long edl_record_find_field(const edl_record *r, const char *name)
{
    if (!r || !name)
        return -1;
    return edl_nameidx_get(&r->by_name, name);
}

const char *edl_field_name(const edl_field *f) { return f ? f->name : ""; }
edl_type edl_field_type(const edl_field *f) { return f ? f->type : EDL_INT8; }
edl_encoding edl_field_encoding(const edl_field *f) { return f ? f->enc : EDL_ENC_FIXED; }
const char *edl_field_unit(const edl_field *f) { return f ? f->unit : ""; }
const char *edl_field_description(const edl_field *f) { return f ? f->description : ""; }
unsigned edl_field_flags(const edl_field *f) { return f ? f->flags : 0; }

size_t edl_field_count_field(const edl_field *f)
{
    return f && f->array ? f->array->count_field : EDL_NO_FIELD;
}

size_t edl_field_shape_field(const edl_field *f)
{
    return f && f->array ? f->array->shape_field : EDL_NO_FIELD;
}

const char *edl_field_shape_name(const edl_field *f)
{
    return f && f->array ? f->array->shape_name : "";
}

unsigned edl_field_shape_flags(const edl_field *f)
{
    return f && f->array ? f->array->shape_flags : 0;
}

size_t edl_field_shape_count(const edl_field *f)
{
    return f && f->array ? f->array->nshapes : 0;
}

const char *edl_field_shape_token(const edl_field *f, size_t shape)
{
    return f && f->array && shape < f->array->nshapes ? f->array->shapes[shape].token : "";
}

size_t edl_field_component_count(const edl_field *f, size_t shape)
{
    return f && f->array && shape < f->array->nshapes ? f->array->shapes[shape].ncomps : 0;
}

edl_component edl_field_component(const edl_field *f, size_t shape, size_t i)
{
    edl_component c = {"", EDL_INT64, EDL_ENC_NONE};
    if (f && f->array && shape < f->array->nshapes && i < f->array->shapes[shape].ncomps)
        c = f->array->shapes[shape].comps[i];
    return c;
}

long edl_field_find_shape(const edl_field *f, const char *token)
{
    if (!f || !f->array || !token)
        return -1;
    for (size_t i = 0; i < f->array->nshapes; i++)
        if (strcmp(f->array->shapes[i].token, token) == 0)
            return (long)i;
    return -1;
}

/* printf-like item formats: "%d%lf" is an item of an integer and a float.
 * Characters other than conversions are ignored: in a trace each value is a
 * token of its own. */
long edl_format_components(const char *format, edl_component *out, size_t max)
{
    if (!format)
        return -1;
    long n = 0;
    for (const char *p = format; *p; p++) {
        if (*p != '%')
            continue;
        p++;
        if (*p == '%')
            continue;
        while (*p && strchr("-+ #0", *p))
            p++;
        while ((*p >= '0' && *p <= '9') || *p == '.')
            p++;
        while (*p && strchr("hlLqjzt", *p))
            p++;
        edl_type t;
        switch (*p) {
        case 'd': case 'i': t = EDL_INT64; break;
        case 'u': case 'o': case 'x': case 'X': t = EDL_UINT64; break;
        case 'f': case 'F': case 'e': case 'E': case 'g': case 'G': case 'a': case 'A':
            t = EDL_FLOAT64;
            break;
        case 's': case 'c': t = EDL_STRING; break;
        default: return -1;
        }
        if ((size_t)n < max && out) {
            out[n].name = "";
            out[n].type = t;
            out[n].enc = EDL_ENC_TEXT;
        }
        n++;
    }
    return n > 0 ? n : -1;
}

const char *edl_type_name(edl_type t)
{
    static const char *const names[] = {"?", "int8", "int16", "int32", "int64", "uint8",
                                        "uint16", "uint32", "uint64", "float32", "float64",
                                        "string", "array"};
    return (unsigned)t <= EDL_ARRAY ? names[t] : "?";
}

const char *edl_encoding_name(edl_encoding e)
{
    static const char *const names[] = {"?", "FIXED", "ULEB", "SLEB", "TDELTA", "LSTRING", "TEXT"};
    return (unsigned)e <= EDL_ENC_TEXT ? names[e] : "?";
}

const char *edl_status_string(edl_status s)
{
    switch (s) {
    case EDL_OK: return "success";
    case EDL_ENOMEM: return "out of memory";
    case EDL_EINVAL: return "invalid argument";
    case EDL_EEXIST: return "already defined";
    case EDL_ENOENT: return "no such record";
    case EDL_EFORMAT: return "malformed dictionary";
    case EDL_ECRC: return "dictionary checksum mismatch";
    case EDL_ECOMPILE: return "EDL source has errors";
    case EDL_EIO: return "input/output error";
    }
    return "unknown status";
}
