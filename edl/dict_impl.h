/* dict_impl.h -- internal layout of the EDL dictionary model, shared by the
 * files of edl/ only (dict.c builds and reads it, dict_codec.c encodes it). */
#ifndef EDL_DICT_IMPL_H
#define EDL_DICT_IMPL_H

#include "edl/edl.h"
#include "edl/nameidx.h"

/* One item shape of an array: the token that selects it ("" when fixed) and
 * its components (names owned, never NULL). */
struct edl_shape {
    char *token;
    edl_component *comps;
    size_t ncomps;
};

/* The variable part of an array field (EDL_FIELD_ARRAY). */
struct edl_array {
    size_t count_field;   /* index in the record, EDL_NO_FIELD = rest of record */
    size_t shape_field;   /* index in the record, EDL_NO_FIELD = one fixed shape */
    char *shape_name;     /* never NULL */
    unsigned shape_flags; /* EDL_SHAPE_FORMAT */
    struct edl_shape *shapes;
    size_t nshapes, cap;
};

/* A reference (1.2): record NULL = none. */
struct edl_ref_impl {
    char *record, *field;
    unsigned flags;       /* EDL_REF_GLOBAL */
};

struct edl_field {
    char *name;
    edl_type type;
    edl_encoding enc;
    uint16_t flags;
    char *unit;           /* never NULL: "" when absent */
    char *description;    /* never NULL */
    size_t index;
    struct edl_array *array;  /* non-NULL iff flags has EDL_FIELD_ARRAY */
    edl_field_role role;      /* 1.2 */
    struct edl_ref_impl ref;
};

/* A record role (1.2), conditional when when_field is not EDL_NO_FIELD. */
struct edl_role_entry {
    edl_record_role role;
    size_t when_field;
    char *when_value;     /* never NULL: "" when unconditional */
};

struct edl_record {
    char *name;
    char *description;
    size_t index;
    edl_field **fields;   /* pointers, so borrowed fields never move */
    size_t nfields, cap;
    edl_nameidx by_name;  /* field name -> index */
    size_t noptional;     /* fields with EDL_FIELD_OPTIONAL */
    const edl_dict *dict; /* owner: field rules depend on the representation */
    struct edl_role_entry *roles;   /* 1.2 */
    size_t nroles;
    char *region;         /* never NULL */
    char *operation;      /* 1.3; never NULL */
};

struct edl_bind_entry {
    char *key1;
    char *key2;           /* NULL when the entry has one key */
    size_t record;
};

struct edl_dict {
    char *name, *version;
    edl_repr repr;
    char byte_order;      /* 'L'/'B' for binary, 0 for ascii */
    edl_framing framing;
    char *separators, *comment;
    char *time_field, *time_unit, *process_field, *thread_field;
    unsigned key_count;
    unsigned key_index[2];
    edl_record **records; /* pointers, so borrowed records never move */
    size_t nrecords, rcap;
    edl_nameidx by_name;  /* record name -> index */
    struct edl_bind_entry *binds;
    size_t nbinds, bcap;
    /* 1.1 */
    unsigned ascii_flags;   /* EDL_ASCII_* */
    char quote;             /* 0 = none */
    unsigned skip_lines;
    long default_record;    /* -1 = none */
    char *time_fraction_field, *time_fraction_unit;
    /* 1.2: references of the PROCESS and THREAD designations */
    struct edl_ref_impl process_ref, thread_ref;
};

/* Index of the bind entry with these keys (key2 NULL = one key), or -1. */
long edl_find_bind(const edl_dict *d, const char *key1, const char *key2);

/* Replaces *slot with a copy of s (NULL -> ""). */
edl_status edl_set_string(char **slot, const char *s);

/* 1 when the dictionary needs format 1.1 (anything beyond 1.0 is in use). */
int edl_dict_needs_1_1(const edl_dict *d);
/* 1 when it needs format 1.2 (a role, a region or a reference). */
int edl_dict_needs_1_2(const edl_dict *d);
/* The meaning of src as edl_record_set_meaning takes it (strings borrowed
 * from src); *roles and *fields are malloc'd, with room for every field. */
edl_status edl_record_meaning_of(const edl_record *src, edl_meaning *m, edl_role **roles,
                                 edl_field_meaning **fields);
/* 1 when it needs format 1.3 (a role of 1.3 or an operation). */
int edl_dict_needs_1_3(const edl_dict *d);
int edl_dict_needs_1_4(const edl_dict *d);
int edl_dict_needs_1_5(const edl_dict *d);
/* Whether every reference of d to a record d holds names a definition and a
 * required integer field of it; when not, why (with the referring record and
 * field) in err. */
int edl_dict_refs_ok(const edl_dict *d, char *err, size_t errlen);

/* Copies field f (scalar or array, with its shapes) to the end of r. */
edl_status edl_record_copy_field(edl_record *r, const edl_field *f);

/* Deep equality of two fields / records, as the encoding sees them. */
int edl_fields_equal(const edl_field *a, const edl_field *b);
int edl_records_equal(const edl_record *a, const edl_record *b);
int edl_refs_equal(const struct edl_ref_impl *a, const struct edl_ref_impl *b);

#endif /* EDL_DICT_IMPL_H */
