/* edl.h -- EDL dictionary model: trace descriptors in memory and in their
 * binary form (doc/dictionary-format.md). Used by ECL to describe the traces it
 * writes, by PAL to read any described trace, and by edlc.
 *
 * Ownership: edl_dict_create/edl_dict_decode give a dictionary that the caller
 * frees with edl_dict_destroy (NULL accepted). Record and field pointers are
 * borrowed: valid while their dictionary lives. Strings passed in are copied. */
#ifndef EDL_H
#define EDL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(EDL_BUILDING) && defined(__GNUC__)
#define EDL_API __attribute__((visibility("default")))
#else
#define EDL_API
#endif

#define EDL_DICT_MAGIC "EDLDICT"   /* 8 bytes with the NUL */
#define EDL_DICT_VERSION_MAJOR 1
#define EDL_DICT_VERSION_MINOR 0
#define EDL_NO_KEY 0xFF

typedef enum edl_status {
    EDL_OK = 0,
    EDL_ENOMEM,     /* out of memory */
    EDL_EINVAL,     /* bad argument (NULL, empty or invalid name, bad code) */
    EDL_EEXIST,     /* duplicate record, field or bind key */
    EDL_ENOENT,     /* unknown record in a bind */
    EDL_EFORMAT,    /* binary dictionary malformed (magic, version, bounds) */
    EDL_ECRC        /* binary dictionary checksum mismatch */
} edl_status;

typedef enum edl_repr { EDL_REPR_BINARY = 1, EDL_REPR_ASCII = 2 } edl_repr;
typedef enum edl_framing {
    EDL_FRAMING_ECL = 1,     /* chunked container of doc/trace-format.md */
    EDL_FRAMING_RAW = 2,     /* binary records back to back */
    EDL_FRAMING_LINES = 3    /* ascii: one record per line */
} edl_framing;

typedef enum edl_type {
    EDL_INT8 = 1, EDL_INT16, EDL_INT32, EDL_INT64,
    EDL_UINT8, EDL_UINT16, EDL_UINT32, EDL_UINT64,
    EDL_FLOAT32, EDL_FLOAT64, EDL_STRING
} edl_type;

typedef enum edl_encoding {
    EDL_ENC_FIXED = 1, EDL_ENC_ULEB, EDL_ENC_SLEB, EDL_ENC_TDELTA,
    EDL_ENC_LSTRING, EDL_ENC_TEXT
} edl_encoding;

typedef struct edl_dict edl_dict;
typedef struct edl_record edl_record;
typedef struct edl_field edl_field;

/* A bind entry: key1[/key2] -> record. key2 is NULL when absent. */
typedef struct edl_bind {
    const char *key1;
    const char *key2;
    size_t record;          /* index into the dictionary's records */
} edl_bind;

/* ---- building ---- */
EDL_API edl_status edl_dict_create(const char *name, const char *version,
                                   edl_repr repr, edl_dict **out);
EDL_API void edl_dict_destroy(edl_dict *d);
/* byte_order 'L' or 'B' (binary only); framing as above. */
EDL_API edl_status edl_dict_set_binary(edl_dict *d, char byte_order, edl_framing framing);
/* separators: token separator characters; comment: comment-line prefix ("" none). */
EDL_API edl_status edl_dict_set_ascii(edl_dict *d, const char *separators, const char *comment);
/* Designations: timestamp field name and its unit ("ticks","ns","us","ms","s"),
 * process and thread field names ("" = from the container). */
EDL_API edl_status edl_dict_set_roles(edl_dict *d, const char *time_field, const char *time_unit,
                                      const char *process_field, const char *thread_field);
/* key_count 0 (DEFAULT), 1 or 2; unused indices are EDL_NO_KEY. */
EDL_API edl_status edl_dict_set_key(edl_dict *d, unsigned key_count, unsigned index0, unsigned index1);
/* Appends a record descriptor; *out (may be NULL) is borrowed. EDL_EEXIST on a duplicate name. */
EDL_API edl_status edl_dict_add_record(edl_dict *d, const char *name, const char *description,
                                       edl_record **out);
/* Appends a field; unit/description may be NULL. EDL_EINVAL when the encoding
 * does not fit the type (see doc), EDL_EEXIST on a duplicate name. */
EDL_API edl_status edl_record_add_field(edl_record *r, const char *name, edl_type type,
                                        edl_encoding enc, const char *unit,
                                        const char *description);
/* key2 may be NULL. EDL_ENOENT for an unknown record, EDL_EEXIST for a key already bound. */
EDL_API edl_status edl_dict_add_bind(edl_dict *d, const char *key1, const char *key2,
                                     const char *record_name);

/* ---- binary form ---- */
/* Encodes into a malloc'd buffer the caller frees. Deterministic. */
EDL_API edl_status edl_dict_encode(const edl_dict *d, unsigned char **buf, size_t *len);
/* Decodes len bytes. On failure, err (if not NULL) receives a message naming the
 * byte offset and the reason, e.g. "bad magic at byte 0". */
EDL_API edl_status edl_dict_decode(const void *buf, size_t len, edl_dict **out,
                                   char *err, size_t errlen);
/* Adds to d every record (and its binds) of src that d lacks, by name. A record
 * present in both must be identical: EDL_EEXIST otherwise. */
EDL_API edl_status edl_dict_merge(edl_dict *d, const edl_dict *src);
/* Deep equality (what encoding compares). */
EDL_API int edl_dict_equal(const edl_dict *a, const edl_dict *b);

/* ---- access ---- */
EDL_API const char *edl_dict_name(const edl_dict *d);
EDL_API const char *edl_dict_version(const edl_dict *d);
EDL_API edl_repr edl_dict_repr(const edl_dict *d);
EDL_API char edl_dict_byte_order(const edl_dict *d);
EDL_API edl_framing edl_dict_framing(const edl_dict *d);
EDL_API const char *edl_dict_separators(const edl_dict *d);
EDL_API const char *edl_dict_comment(const edl_dict *d);
EDL_API const char *edl_dict_time_field(const edl_dict *d);
EDL_API const char *edl_dict_time_unit(const edl_dict *d);
EDL_API const char *edl_dict_process_field(const edl_dict *d);
EDL_API const char *edl_dict_thread_field(const edl_dict *d);
EDL_API unsigned edl_dict_key_count(const edl_dict *d);
EDL_API unsigned edl_dict_key_index(const edl_dict *d, unsigned which);
EDL_API size_t edl_dict_record_count(const edl_dict *d);
EDL_API const edl_record *edl_dict_record(const edl_dict *d, size_t i);
EDL_API const edl_record *edl_dict_find_record(const edl_dict *d, const char *name);
EDL_API size_t edl_dict_bind_count(const edl_dict *d);
EDL_API edl_bind edl_dict_bind(const edl_dict *d, size_t i);

EDL_API const char *edl_record_name(const edl_record *r);
EDL_API const char *edl_record_description(const edl_record *r);
EDL_API size_t edl_record_index(const edl_record *r);
EDL_API size_t edl_record_field_count(const edl_record *r);
EDL_API const edl_field *edl_record_field(const edl_record *r, size_t i);
/* Returns the index of the named field, or -1. */
EDL_API long edl_record_find_field(const edl_record *r, const char *name);

EDL_API const char *edl_field_name(const edl_field *f);
EDL_API edl_type edl_field_type(const edl_field *f);
EDL_API edl_encoding edl_field_encoding(const edl_field *f);
EDL_API const char *edl_field_unit(const edl_field *f);
EDL_API const char *edl_field_description(const edl_field *f);

/* Names of codes ("uint32", "ULEB"); "?" for an unknown code. */
EDL_API const char *edl_type_name(edl_type t);
EDL_API const char *edl_encoding_name(edl_encoding e);
EDL_API const char *edl_status_string(edl_status s);

#ifdef __cplusplus
}
#endif
#endif /* EDL_H */
