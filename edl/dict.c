/* dict.c -- EDL dictionary model: building and reading trace descriptors in
 * memory. The binary form lives in dict_codec.c. */
#include "config.h"

#include "edl/dict_impl.h"

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
    if (edl_set_string(&d->name, name) || edl_set_string(&d->version, version) ||
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

static void field_free(edl_field *f)
{
    if (!f)
        return;
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
    if (!d || d->repr != EDL_REPR_ASCII || !separators || !*separators)
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
    if (!r || !(r->name = strdup(name)) || !(r->description = dup_or_empty(description))) {
        record_free(r);
        return EDL_ENOMEM;
    }
    r->index = d->nrecords;
    d->records[d->nrecords++] = r;
    if (out)
        *out = r;
    return EDL_OK;
}

edl_status edl_record_add_field(edl_record *r, const char *name, edl_type type, edl_encoding enc,
                                const char *unit, const char *description)
{
    if (!r || !valid_name(name) || !encoding_fits(type, enc))
        return EDL_EINVAL;
    if (edl_record_find_field(r, name) >= 0)
        return EDL_EEXIST;
    if (r->nfields == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 8;
        edl_field **n = realloc(r->fields, cap * sizeof *n);
        if (!n)
            return EDL_ENOMEM;
        r->fields = n;
        r->cap = cap;
    }
    edl_field *f = calloc(1, sizeof *f);
    if (!f || !(f->name = strdup(name)) || !(f->unit = dup_or_empty(unit)) ||
        !(f->description = dup_or_empty(description))) {
        field_free(f);
        return EDL_ENOMEM;
    }
    f->type = type;
    f->enc = enc;
    f->index = r->nfields;
    r->fields[r->nfields++] = f;
    return EDL_OK;
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
    for (size_t i = 0; i < d->nrecords; i++)
        if (strcmp(d->records[i]->name, name) == 0)
            return d->records[i];
    return NULL;
}

size_t edl_dict_bind_count(const edl_dict *d) { return d ? d->nbinds : 0; }

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
    for (size_t i = 0; i < r->nfields; i++)
        if (strcmp(r->fields[i]->name, name) == 0)
            return (long)i;
    return -1;
}

const char *edl_field_name(const edl_field *f) { return f ? f->name : ""; }
edl_type edl_field_type(const edl_field *f) { return f ? f->type : EDL_INT8; }
edl_encoding edl_field_encoding(const edl_field *f) { return f ? f->enc : EDL_ENC_FIXED; }
const char *edl_field_unit(const edl_field *f) { return f ? f->unit : ""; }
const char *edl_field_description(const edl_field *f) { return f ? f->description : ""; }

const char *edl_type_name(edl_type t)
{
    static const char *const names[] = {"?", "int8", "int16", "int32", "int64", "uint8",
                                        "uint16", "uint32", "uint64", "float32", "float64",
                                        "string"};
    return (unsigned)t <= EDL_STRING ? names[t] : "?";
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
    }
    return "unknown status";
}
