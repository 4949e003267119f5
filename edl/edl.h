/* edl.h -- EDL dictionary model: trace descriptors in memory and in their
 * binary form (doc/dictionary-format.md), and the EDL compiler that builds them
 * from source (doc/edl.md). Used by ECL to describe the traces it writes, by
 * PAL to read any described trace, and by edlc. The model is libedl-dict; the
 * compiler (edl_compile_*, edl_dict_print) is libedl, which includes it.
 *
 * Ownership: edl_dict_create/edl_dict_decode give a dictionary that the caller
 * frees with edl_dict_destroy (NULL accepted). Record and field pointers are
 * borrowed: valid while their dictionary lives. Strings passed in are copied. */
#ifndef EDL_H
#define EDL_H

/* The version of ECL (the package) this header belongs to, for code that
 * must build against several: EDL_VERSION_NUMBER is MAJOR*10000 + MINOR*100
 * + PATCH. tests/build/version.sh checks them against configure.ac. */
#define EDL_VERSION_MAJOR 0
#define EDL_VERSION_MINOR 1
#define EDL_VERSION_PATCH 0
#define EDL_VERSION_STRING "0.1.0"
#define EDL_VERSION_NUMBER (EDL_VERSION_MAJOR * 10000 + EDL_VERSION_MINOR * 100 + EDL_VERSION_PATCH)

#include <stddef.h>
#include <stdint.h>

#include "edl-roles.h"

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
/* Highest minor version understood. The encoder writes the lowest minor that
 * holds what a dictionary uses: 0 without anything added in 1.1 (variable
 * parts, ascii syntax, default record, split timestamp), 1.2 (roles and
 * references), 1.3 (one-sided roles, the window role, OPERATION) or 1.4 (the
 * device and correlation roles), so older dictionaries keep their bytes. */
#define EDL_DICT_VERSION_MINOR 5
#define EDL_NO_KEY 0xFF
#define EDL_NO_FIELD ((size_t)-1)   /* no count field (rest of record) / no shape field */

typedef enum edl_status {
    EDL_OK = 0,
    EDL_ENOMEM,     /* out of memory */
    EDL_EINVAL,     /* bad argument (NULL, empty or invalid name, bad code) */
    EDL_EEXIST,     /* duplicate record, field or bind key */
    EDL_ENOENT,     /* unknown record in a bind or a reference */
    EDL_EFORMAT,    /* binary dictionary malformed (magic, version, bounds) */
    EDL_ECRC,       /* binary dictionary checksum mismatch */
    EDL_ECOMPILE,   /* EDL source has errors (reported through the diagnostics sink) */
    EDL_EIO         /* cannot read or write a file */
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
    EDL_FLOAT32, EDL_FLOAT64, EDL_STRING,
    EDL_ARRAY       /* a variable part: items of components (edl_record_add_array) */
} edl_type;

typedef enum edl_encoding {
    EDL_ENC_NONE = 0,   /* array fields only: their components carry encodings */
    EDL_ENC_FIXED = 1, EDL_ENC_ULEB, EDL_ENC_SLEB, EDL_ENC_TDELTA,
    EDL_ENC_LSTRING, EDL_ENC_TEXT
} edl_encoding;

/* Field flags (doc/dictionary-format.md, "Variable parts"). */
#define EDL_FIELD_OPTIONAL 0x0001u  /* ascii: may be missing at the end of a line */
#define EDL_FIELD_ARRAY    0x0002u  /* type is EDL_ARRAY; count and item shapes follow */

/* Ascii syntax flags (edl_dict_set_ascii_syntax). */
#define EDL_ASCII_MERGE            0x01u /* a run of separators is one boundary; leading
                                          * and trailing separators are ignored */
#define EDL_ASCII_TRAILING_COMMENT 0x02u /* the comment prefix also starts a comment after
                                          * tokens, outside quotes */
#define EDL_ASCII_BLANK_ERROR      0x04u /* a blank line is an error (default: skipped) */
#define EDL_ASCII_QUOTE_DOUBLED    0x08u /* inside quotes a doubled quote is one quote
                                          * (default: backslash escapes) */

/* Shape flags of an array (edl_record_add_shaped_array). */
#define EDL_SHAPE_FORMAT 0x01u      /* a shape token matching no entry is a printf-like
                                     * format: one component per conversion */

/* ---- meaning (doc/edl.md, "Roles"; doc/dictionary-format.md, 1.2) ----
 * What a record is, what its fields are, and which definition record names an
 * id, so that tools find meaning in the description, never in record names. */

/* Record roles and field roles: codes and names from the one list of
 * edl-roles.h (what each means is said there). */
#define EDL_ROLE_ENUM_(name, code, text) EDL_ROLE_##name = code,
typedef enum edl_record_role {
    EDL_ROLE_NONE = 0,
    EDL_RECORD_ROLE_LIST(EDL_ROLE_ENUM_)
    EDL_ROLE_LIMIT = 64          /* every code is below this */
} edl_record_role;
#undef EDL_ROLE_ENUM_

#define EDL_FROLE_ENUM_(name, code, text) EDL_FROLE_##name = code,
typedef enum edl_field_role {
    EDL_FROLE_NONE = 0,
    EDL_FIELD_ROLE_LIST(EDL_FROLE_ENUM_)
    EDL_FROLE_LIMIT
} edl_field_role;
#undef EDL_FROLE_ENUM_

#define EDL_REF_GLOBAL 0x01u     /* ids are unique in the trace (default: per process) */

/* A record role, for every record of the type (when_field NULL) or only for
 * records whose field when_field holds when_value (an integer field compares
 * the canonical decimal text, e.g. "1", "-3"; a string field the text). */
typedef struct edl_role {
    edl_record_role role;
    const char *when_field;
    const char *when_value;
} edl_role;

/* A reference: the value is the id that field `field` of definition record
 * `record` defines; that record's field with role name names it. record NULL:
 * none. */
typedef struct edl_ref {
    const char *record;
    const char *field;
    unsigned flags;              /* EDL_REF_GLOBAL */
} edl_ref;

typedef struct edl_field_meaning {
    const char *field;           /* a field of the record */
    edl_field_role role;         /* EDL_FROLE_NONE: none */
    edl_ref ref;
} edl_field_meaning;

/* The whole meaning of a record descriptor. */
typedef struct edl_meaning {
    const edl_role *roles;
    size_t nroles;
    const char *region;          /* the region enter/leave/call records name when
                                  * no field has role region; NULL or "": none */
    const edl_field_meaning *fields;
    size_t nfields;
    const char *operation;       /* 1.3: the operation of a collective ("bcast", one
                                  * of edl_collective_operation); NULL or "": none */
} edl_meaning;

/* One component of an array item: name ("" when unnamed), type, encoding. */
typedef struct edl_component {
    const char *name;
    edl_type type;
    edl_encoding enc;
} edl_component;

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

/* ---- building: 1.1 additions (doc/dictionary-format.md) ---- */
/* Ascii syntax: EDL_ASCII_* flags, the quote character (0 = none; not a
 * separator, not a newline) and the number of lines skipped at the start of a
 * file. EDL_EINVAL for a binary dictionary or a bad value. */
EDL_API edl_status edl_dict_set_ascii_syntax(edl_dict *d, unsigned flags, char quote,
                                             unsigned skip_lines);
/* The record for physical records that match no bind entry (NULL = none:
 * such records are unknown). With key_count 0 it is every record's descriptor. */
EDL_API edl_status edl_dict_set_default_record(edl_dict *d, const char *record_name);
/* A timestamp in two fields: time = time_field in time_unit + field in unit
 * (e.g. seconds and microseconds). field NULL or "" clears it. */
EDL_API edl_status edl_dict_set_time_fraction(edl_dict *d, const char *field, const char *unit);
/* Appends a scalar field with flags (0 or EDL_FIELD_OPTIONAL; optional fields
 * are ascii only, and every field after an optional one is optional or an array). */
EDL_API edl_status edl_record_add_field_ex(edl_record *r, const char *name, edl_type type,
                                           edl_encoding enc, unsigned flags, const char *unit,
                                           const char *description);
/* Appends an array of items that all have the shape items[0..nitems). count_field
 * names an earlier integer field that holds the number of items; NULL means the
 * rest of the record (ascii only; nothing may follow such an array). */
EDL_API edl_status edl_record_add_array(edl_record *r, const char *name, const char *count_field,
                                        const edl_component *items, size_t nitems,
                                        const char *unit, const char *description);
/* Appends an array whose item shape is chosen, record by record, by the token of
 * the earlier field shape_field (ascii only): the entries added next with
 * edl_record_add_shape, then a printf-like format if shape_flags has
 * EDL_SHAPE_FORMAT. shape_name names the shape table ("" allowed). */
EDL_API edl_status edl_record_add_shaped_array(edl_record *r, const char *name,
                                               const char *count_field, const char *shape_field,
                                               const char *shape_name, unsigned shape_flags,
                                               const char *unit, const char *description);
/* Adds the entry token -> items to the shaped array that is r's last field.
 * EDL_EEXIST for a token already there, EDL_EINVAL otherwise. */
EDL_API edl_status edl_record_add_shape(edl_record *r, const char *token,
                                        const edl_component *items, size_t nitems);

/* ---- building: meaning (1.2) ---- */
/* Sets the whole meaning of r (replacing any it had; NULL or an empty meaning
 * clears it). Checked as a whole: EDL_EINVAL when a role, a field or a value
 * is unknown or does not fit (doc/edl.md, "What edlc checks", roles), r is
 * unchanged then. References are checked when the dictionary is encoded (the
 * definition record may be added later, or live in another piece of the
 * trace's dictionary). */
EDL_API edl_status edl_record_set_meaning(edl_record *r, const edl_meaning *m);
/* A reference from the PROCESS or THREAD designation (which may be the
 * container's): which is EDL_FROLE_PROCESS or EDL_FROLE_THREAD; ref NULL or
 * ref->record NULL clears it. */
EDL_API edl_status edl_dict_set_designation_ref(edl_dict *d, edl_field_role which,
                                                const edl_ref *ref);
/* Gives r the meaning of src, a record descriptor (of any dictionary) with
 * the fields the meaning names: EDL_EINVAL when r lacks them or they do not
 * fit, as for edl_record_set_meaning. */
EDL_API edl_status edl_record_copy_meaning(edl_record *r, const edl_record *src);
/* Adds a copy of src (from any dictionary) to d: fields, shapes and meaning.
 * EDL_EEXIST when d has a record of that name, EDL_EINVAL when a field does
 * not fit d's representation; *out (may be NULL) is borrowed. */
EDL_API edl_status edl_dict_copy_record(edl_dict *d, const edl_record *src, edl_record **out);

/* ---- binary form ---- */
/* Encodes into a malloc'd buffer the caller frees. Deterministic. EDL_ENOENT
 * when a reference names a record of the dictionary that is not a definition,
 * or a field that record lacks or that is not a required integer (a record the
 * dictionary does not hold is allowed: dictionaries grow by pieces);
 * EDL_ENOMEM. */
EDL_API edl_status edl_dict_encode(const edl_dict *d, unsigned char **buf, size_t *len);
/* Decodes len bytes. On failure, err (if not NULL) receives a message naming the
 * byte offset and the reason, e.g. "bad magic at byte 0". */
EDL_API edl_status edl_dict_decode(const void *buf, size_t len, edl_dict **out,
                                   char *err, size_t errlen);
/* Adds to d every record (and its binds) of src that d lacks, by name, with
 * its meaning, and src's designation references when d has none. A record
 * present in both must be identical (meaning included), and so must
 * designation references both have: EDL_EEXIST otherwise. */
EDL_API edl_status edl_dict_merge(edl_dict *d, const edl_dict *src);
/* Deep equality (what encoding compares; references need not resolve). */
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
EDL_API unsigned edl_dict_ascii_flags(const edl_dict *d);
EDL_API char edl_dict_quote(const edl_dict *d);               /* 0 = no quoting */
EDL_API unsigned edl_dict_skip_lines(const edl_dict *d);
EDL_API long edl_dict_default_record(const edl_dict *d);      /* record index, or -1 */
EDL_API const char *edl_dict_time_fraction_field(const edl_dict *d);   /* "" = none */
EDL_API const char *edl_dict_time_fraction_unit(const edl_dict *d);
/* The record a physical record with these key tokens is: exact key pair, then
 * primary key with any secondary (a one-key entry), then the default record.
 * key2 may be NULL. Keys compare as text; a reader that parses integer keys
 * compares the canonical decimal form (doc/dictionary-format.md). -1 = unknown. */
EDL_API long edl_dict_lookup(const edl_dict *d, const char *key1, const char *key2);

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
EDL_API unsigned edl_field_flags(const edl_field *f);
/* Arrays (EDL_NO_FIELD / 0 / "" for other fields): */
EDL_API size_t edl_field_count_field(const edl_field *f);   /* EDL_NO_FIELD = rest of record */
EDL_API size_t edl_field_shape_field(const edl_field *f);   /* EDL_NO_FIELD = one fixed shape */
EDL_API const char *edl_field_shape_name(const edl_field *f);
EDL_API unsigned edl_field_shape_flags(const edl_field *f);
EDL_API size_t edl_field_shape_count(const edl_field *f);
EDL_API const char *edl_field_shape_token(const edl_field *f, size_t shape); /* "" when fixed */
EDL_API size_t edl_field_component_count(const edl_field *f, size_t shape);
EDL_API edl_component edl_field_component(const edl_field *f, size_t shape, size_t i);
/* Index of the shape entry whose token is token, or -1 (then, with
 * EDL_SHAPE_FORMAT, token is a printf-like format). */
EDL_API long edl_field_find_shape(const edl_field *f, const char *token);
/* Components of one item described by a printf-like format ("%d%lf"): writes
 * up to max of them to out (names "") and returns how many the format has, or
 * -1 when it has none or a conversion that is not one of d i u o x X f F e E g
 * G a A s c (with optional flags, width, precision and length modifiers). */
EDL_API long edl_format_components(const char *format, edl_component *out, size_t max);

/* Meaning (EDL_ROLE_NONE / EDL_FROLE_NONE / "" / record NULL when none). */
EDL_API size_t edl_record_role_count(const edl_record *r);
EDL_API edl_role edl_record_role_at(const edl_record *r, size_t i);
/* 1: every record of the type has the role; 2: records whose field has the
 * role's value; 0: none. */
EDL_API int edl_record_has_role(const edl_record *r, edl_record_role role);
EDL_API const char *edl_record_region(const edl_record *r);
/* The collective operation of r ("bcast"; "" none: OPERATION IS, 1.3). */
EDL_API const char *edl_record_operation(const edl_record *r);
/* The i-th operation OPERATION IS may name ("barrier", "bcast", ...; doc/edl.md,
 * "Collective operations"); NULL past the last. */
EDL_API const char *edl_collective_operation(size_t i);
EDL_API edl_field_role edl_field_role_of(const edl_field *f);   /* as given, not designations */
EDL_API edl_ref edl_field_ref_of(const edl_field *f);
EDL_API edl_ref edl_dict_designation_ref(const edl_dict *d, edl_field_role which);
/* Role names as EDL writes them ("enter", "bytes_sent"); NULL for an unknown
 * code. The reverse: EDL_ROLE_NONE / EDL_FROLE_NONE for an unknown name. */
EDL_API const char *edl_record_role_name(edl_record_role role);
EDL_API const char *edl_field_role_name(edl_field_role role);
EDL_API edl_record_role edl_record_role_by_name(const char *name);
EDL_API edl_field_role edl_field_role_by_name(const char *name);

/* Names of codes ("uint32", "ULEB"); "?" for an unknown code. */
EDL_API const char *edl_type_name(edl_type t);
EDL_API const char *edl_encoding_name(edl_encoding e);
EDL_API const char *edl_status_string(edl_status s);

/* ---- the EDL compiler (libedl; doc/edl.md) ---- */
typedef enum edl_severity { EDL_SEV_ERROR = 1, EDL_SEV_WARNING, EDL_SEV_NOTE } edl_severity;

/* One diagnostic. Strings are borrowed for the duration of the callback. */
typedef struct edl_diagnostic {
    edl_severity severity;
    const char *file;          /* source name as given */
    unsigned line, column;     /* 1-based; 0 when the message is about the whole file */
    unsigned length;           /* columns to underline (>= 1 when line > 0) */
    const char *message;       /* without "error: " and without a newline */
    const char *source_line;   /* text of that line, without its newline; NULL when line = 0 */
} edl_diagnostic;

/* Receives every diagnostic of a compile, in source order (a note right after
 * the error or warning it explains; whole-file ones last). NULL sink: each is
 * written to stderr as edl_diagnostic_format renders it. */
typedef void (*edl_diag_fn)(void *ctx, const edl_diagnostic *d);

/* The largest EDL source the compiler takes, and the largest input edlc
 * reads (a source or a dictionary): 16 MiB, where real descriptions take a
 * few KiB. A larger one is refused with a diagnostic (EDL_ECOMPILE), so that
 * a wrong file (/dev/zero, a trace) cannot exhaust memory. */
#define EDL_SOURCE_MAX ((size_t)16 << 20)

/* Compiles an EDL source into a dictionary. Returns EDL_OK (*out set; warnings
 * may have been reported), EDL_ECOMPILE (errors reported -- a source over
 * EDL_SOURCE_MAX among them --, *out NULL), EDL_EIO (file unreadable,
 * reported), EDL_ENOMEM or EDL_EINVAL (NULL out or path). */
EDL_API edl_status edl_compile_file(const char *path, edl_diag_fn fn, void *ctx, edl_dict **out);
/* Same for len bytes of text named name in diagnostics. */
EDL_API edl_status edl_compile_string(const char *name, const char *text, size_t len,
                                      edl_diag_fn fn, void *ctx, edl_dict **out);
/* "file:line:col: error: message\n<source line>\n<caret>\n" into a malloc'd
 * string the caller frees (NULL when out of memory). */
EDL_API char *edl_diagnostic_format(const edl_diagnostic *d);
/* A dictionary as EDL source, into a malloc'd NUL-terminated string the caller
 * frees (*len, if not NULL, gets its length). Compiling the text gives an
 * identical dictionary for every dictionary edlc or ECL makes; one built
 * through this API that breaks a rule of the language (doc/edl.md) prints but
 * does not compile back. EDL_EINVAL (NULL argument) or EDL_ENOMEM. */
EDL_API edl_status edl_dict_print(const edl_dict *d, char **text, size_t *len);

#ifdef __cplusplus
}
#endif
#endif /* EDL_H */
