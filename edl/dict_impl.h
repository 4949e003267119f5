/* dict_impl.h -- internal layout of the EDL dictionary model, shared by the
 * files of edl/ only (dict.c builds and reads it, dict_codec.c encodes it). */
#ifndef EDL_DICT_IMPL_H
#define EDL_DICT_IMPL_H

#include "edl/edl.h"

struct edl_field {
    char *name;
    edl_type type;
    edl_encoding enc;
    uint16_t flags;
    char *unit;           /* never NULL: "" when absent */
    char *description;    /* never NULL */
    size_t index;
};

struct edl_record {
    char *name;
    char *description;
    size_t index;
    edl_field **fields;   /* pointers, so borrowed fields never move */
    size_t nfields, cap;
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
    struct edl_bind_entry *binds;
    size_t nbinds, bcap;
};

/* Index of the bind entry with these keys (key2 NULL = one key), or -1. */
long edl_find_bind(const edl_dict *d, const char *key1, const char *key2);

/* Replaces *slot with a copy of s (NULL -> ""). */
edl_status edl_set_string(char **slot, const char *s);

#endif /* EDL_DICT_IMPL_H */
