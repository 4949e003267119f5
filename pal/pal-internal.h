/* pal-internal.h -- PAL's private objects, shared by the files of pal/ (and by
 * the unit tests, which include it to reach the decoder). Not installed.
 *
 * A pal_dict wraps an edl_dict and adds what reading needs: per record
 * descriptor a compiled list of decode ops, and a key table that maps the
 * decoded key field(s) to a record descriptor. Everything a reader knows about
 * the record layout comes from here; PAL has no knowledge of any one format. */
#ifndef PAL_INTERNAL_H
#define PAL_INTERNAL_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#include "edl/edl.h"
#include "pal/pal.h"

#if defined(__GNUC__)
#define PAL_LIKELY(x) __builtin_expect(!!(x), 1)
#define PAL_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define PAL_INLINE static inline __attribute__((always_inline))
#define PAL_NOINLINE __attribute__((noinline))
#define PAL_UNUSED __attribute__((unused))
#define PAL_PRINTF(a, b) __attribute__((format(printf, a, b)))
/* t += x for uint64_t t; true if it wrapped */
#define PAL_ADD_OVERFLOW(t, x) __builtin_add_overflow((t), (x), &(t))
#else
#define PAL_LIKELY(x) (x)
#define PAL_UNLIKELY(x) (x)
#define PAL_INLINE static inline
#define PAL_NOINLINE
#define PAL_UNUSED
#define PAL_PRINTF(a, b)
#define PAL_ADD_OVERFLOW(t, x) (((t) += (x)) < (x))
#endif

/* API misuse (NULL where the contract forbids it): an assertion in debug builds,
 * an error return in release builds (NDEBUG), never a crash on user data. */
#define PAL_REQUIRE(cond, ret)                                                  \
    do {                                                                        \
        if (PAL_UNLIKELY(!(cond))) {                                            \
            assert(!"PAL API misuse: " #cond);                                  \
            return ret;                                                         \
        }                                                                       \
    } while (0)

/* One decoded field value. Integers are stored widened (signed types sign
 * extended into i), floats as double, strings as a pointer into the chunk
 * buffer with the length kept beside the values array. */
typedef union pal_value {
    uint64_t u;
    int64_t i;
    double f;
    const unsigned char *s;
} pal_value;

/* Decode ops: one per field, chosen at dictionary compile time so that the
 * per-record loop is a switch over small integers with no table lookups. */
enum pal_opcode {
    PAL_OP_ULEB = 1,     /* limit = type maximum */
    PAL_OP_SLEB,         /* limit = type maximum; minimum is -limit-1 */
    PAL_OP_TDELTA,
    PAL_OP_LSTRING,
    PAL_OP_U8, PAL_OP_I8,
    PAL_OP_U16L, PAL_OP_U16B, PAL_OP_I16L, PAL_OP_I16B,
    PAL_OP_U32L, PAL_OP_U32B, PAL_OP_I32L, PAL_OP_I32B,
    PAL_OP_U64L, PAL_OP_U64B,     /* int64 too: same bits */
    PAL_OP_F32L, PAL_OP_F32B, PAL_OP_F64L, PAL_OP_F64B,
    PAL_OP_BAD           /* an encoding a binary record cannot hold (TEXT, or a bad pair) */
};

typedef struct pal_op {
    uint8_t code;
    uint8_t pad[3];
    uint32_t slot;       /* field index = index into the values array */
    uint64_t limit;
} pal_op;

enum { PAL_LK_ULEB = 1, PAL_LK_SLEB, PAL_LK_TDELTA };

/* Record kernels of the reader (pal_recdesc.shape), for a key of one ULEB
 * field (field 0). */
enum {
    PAL_SH_CHECKED = 0,  /* the fully checked decoder (unusable records: it says why) */
    PAL_SH_OPS,          /* the op list, bounds-checked */
    PAL_SH_LEB,          /* the LEB kernel */
    PAL_SH_T,            /* the time field as a TDELTA, then nothing, */
    PAL_SH_TU,           /* ...one ULEB field, */
    PAL_SH_TUU,          /* ...two ULEB fields, */
    PAL_SH_TUN           /* ...nuleb ULEB fields */
};

/* Type classes, for the getters. */
enum { PAL_TC_SIGNED = 1, PAL_TC_UNSIGNED, PAL_TC_FLOAT, PAL_TC_STRING };

/* A reference to a definition (REFERS TO record.field): the names, and
 * `slot`, which identifies the pair in a pal_names table whatever dictionary
 * the record comes from (a hash of the two names). */
struct pal_ref {
    const char *record, *field;     /* record NULL: no reference */
    int global;
    uint64_t slot;
};

struct pal_fielddesc {
    const pal_recdesc *rec;
    const char *name, *unit, *description;
    size_t index;
    pal_type type;
    uint8_t tclass;
    uint16_t name2;                  /* name[0] | name[1] << 8, for pal_field_lookup */
    uint8_t from_ticks;              /* a run's: ns, converted from a field in ticks */
    edl_encoding encoding;
    pal_field_role role;             /* designations included */
    struct pal_ref ref;
};

/* A role a record has when field `field` holds a value. */
struct pal_rcond {
    pal_record_role role;
    int32_t field;
    uint64_t value;                  /* integer fields: the value's bits */
    const char *text;                /* string fields */
    size_t len;
};

/* Records of a type define ids that references point to: the id in field
 * key, its name in field name (-1: none), under slot; scopes: bit 0 per
 * process, bit 1 global. */
struct pal_target {
    int32_t key, name;
    uint64_t slot;
    unsigned scopes;
};

struct pal_recdesc {
    const pal_dict *dict;
    const edl_record *er;
    const char *name, *description;
    size_t index;
    size_t nfields;
    pal_fielddesc *fields;
    /* Ops for the fields after the key prefix (fields 0..key_last are decoded by
     * the dictionary's prefix ops before the record is known). */
    pal_op *ops;
    uint32_t nops;
    int32_t time_fi, process_fi, thread_fi;    /* -1: none */
    int time_unsigned;               /* the time field is an unsigned integer */
    /* LEB kernel: every field after the key is ULEB, SLEB or TDELTA (at most
     * 15 of them) and the time field, if any, is one of the TDELTAs. Such
     * records -- the bulk of compact formats -- are decoded by a tight loop
     * over leb_kinds (4 bits per field, PAL_LK_*, low first). */
    int leb;
    uint64_t leb_kinds;
    /* The reader's kernel for this record when the key is one ULEB field
     * (PAL_SH_*), and for the LEB kernels the smallest bound of the ULEB
     * values and zigzagged SLEB values: a value of two bytes or more above it
     * sends the record to the fully checked decoder, which has the exact
     * per-field bounds (one byte, below 128, fits every type). */
    uint8_t shape;
    uint8_t nuleb;                   /* PAL_SH_T*: ULEB fields after the TDELTA */
    uint64_t leb_lim;
    /* 0 when the record cannot be decoded (key prefix differs from the first
     * record's, or a field has an encoding binary records cannot hold);
     * why says what, for the reports. */
    int usable;
    const char *why;
    /* Binary arrays (raw streams), by field index; NULL when the record has
     * none. Such records are read field by field (pal_decode_arrays). */
    struct pal_barr *barrs;
    /* Meaning: the roles every record has (bit per role code), those that
     * depend on a field, the field of each field role (-1: none), the
     * region given as text, and what the type defines for references. */
    uint64_t roles, roles_when;
    struct pal_rcond *conds;
    size_t nconds;
    int32_t role_fi[PAL_FROLE_LIMIT];
    const char *region;
    const char *operation;      /* OPERATION IS (a collective's); "" none */
    struct pal_target *targets;
    size_t ntargets;
    /* A run's record: its fields converted from ticks to ns (from_ticks), as
     * a mask of the first 64 fields; ticks_more: some beyond them. */
    uint64_t ticks_mask;
    int ticks_more;
};

/* A binary array field: its count field and the op of each component (slot 0). */
struct pal_barr {
    int32_t count_fi;                /* -1: not an array */
    uint32_t ncomp;
    pal_op *ops;
    pal_type *types;
    uint8_t *tclass;
};

struct pal_bindinfo {
    const pal_dict *dict;
};

/* A bind entry resolved against the key field type: integer keys parsed from
 * their decimal text, string keys compared as bytes. */
typedef struct pal_key {
    uint64_t k1, k2;                 /* integer / float bits */
    const char *s1, *s2;             /* string keys (the bind text) */
    size_t n1, n2;
    int has_k2;
    const pal_recdesc *rec;
} pal_key;

struct pal_dict {
    edl_dict *ed;
    pal_recdesc **recs;              /* pointers: descriptors never move */
    size_t nrecs, caprecs;
    struct pal_bindinfo bind;
    size_t max_fields;
    int binary;                      /* representation binary */
    int file_be;                     /* FIXED fields are big-endian */
    /* key */
    unsigned key_count, key_index[2], key_last;
    int key_class;                   /* type class of the primary key field */
    int key2_class;
    const pal_recdesc *prefix_rec;   /* the record the prefix was taken from */
    pal_op *prefix;                  /* ops for fields 0..key_last */
    uint32_t nprefix;
    int prefix_done;
    /* The prefix is one ULEB key field (the usual layout): decoded and
     * looked up without the generic op loop. */
    int prefix_uleb;
    /* Some record has a process or thread field (else both come from the
     * container for every record). */
    int role_fields;
    /* primary-key-only integer keys below this bound map straight to a record */
    const pal_recdesc **direct;
    size_t ndirect;
    /* The reader's table for a ULEB key's first byte: bytes below 128 (keys
     * of one byte) bound to a record map to it, every other byte to
     * pal_no_recdesc, so that it is indexed without tests. */
    const pal_recdesc *byte_key[256];
    pal_key *keys;                   /* every usable bind entry */
    const pal_recdesc *default_rec;  /* for records no bind entry matches; NULL = unknown */
    size_t nkeys;
    size_t nbinds_seen;              /* edl bind entries already compiled */
    /* set by the reader: ns per unit of pal_record.time (binary formats) */
    double ns_per_tick;
    /* ns per unit of the time field's unit, 0 for "ticks" (binary: the
     * reader's ns_per_tick knows the rate) */
    double unit_ns;
    /* references of the PROCESS and THREAD designations */
    struct pal_ref process_ref, thread_ref;
};

/* lens[i] of an OPTIONAL field missing from an ascii line. */
#define PAL_ABSENT UINT32_MAX

/* An array field of a record (ascii reader): count items of ncomp components,
 * item i component j at v[i * ncomp + j] (len: string lengths), with the type
 * (class) of each component. */
typedef struct pal_arr {
    uint32_t count, ncomp, first;
    const pal_value *v;
    const uint32_t *len;
    const uint8_t *tclass;
    const pal_type *types;
} pal_arr;

/* The record a reader hands out; lives in the reader. */
struct pal_record {
    const pal_recdesc *desc;
    const pal_value *vals;
    const uint32_t *lens;
    uint64_t time;
    uint64_t offset;
    uint32_t process, stream;
    /* a record of a run (ECL files read together): its bytes in the chunk's
     * window (valid while the record is), for copying it without
     * re-encoding; NULL otherwise */
    const unsigned char *raw;
    uint32_t rawlen;
    const pal_arr *arrs;             /* by field index; NULL when the record has no arrays */
    uint64_t line;                   /* ascii: 1-based line number; 0 otherwise */
    int64_t time_ns;                 /* ascii: the time in ns (pal_record_time_ns) */
};

struct pal_handle {
    struct pal_handle *next;
    pal_field_role role;             /* a role handle (no slots): the field with this role */
    char *name;
    struct pal_slot { int32_t field; uint8_t tclass; } *slots;   /* by record index */
    int32_t *uslots;                 /* the same, -1 unless the field is unsigned */
    size_t nslots;
};

/* Index of the field called name in r, -1 if none: the first two bytes
 * compared at once, the rest (names are short) byte by byte. */
PAL_INLINE long pal_field_lookup(const pal_recdesc *r, const char *name)
{
    if (PAL_UNLIKELY(!name || !name[0]))
        return -1;
    const uint16_t k = (uint16_t)((unsigned char)name[0] | (unsigned char)name[1] << 8);
    const pal_fielddesc *f = r->fields;
    for (size_t i = 0, n = r->nfields; i < n; i++) {
        if (PAL_LIKELY(f[i].name2 != k))
            continue;
        if (!name[1])
            return (long)i;
        const char *a = f[i].name + 2, *b = name + 2;
        while (*a && *a == *b) {
            a++;
            b++;
        }
        if (*a == *b)
            return (long)i;
    }
    return -1;
}

/* ---- dict.c ---- */
/* Stands for "no record" in pal_dict.byte_key (shape PAL_SH_CHECKED). */
extern const pal_recdesc pal_no_recdesc;
/* Wraps ed (taking ownership, also on failure). */
pal_status pal_dict_wrap(edl_dict *ed, pal_dict **out, char *err, size_t errlen);
/* Brings the pal_dict up to date after records or binds were added to d->ed. */
pal_status pal_dict_sync(pal_dict *d, char *err, size_t errlen);
/* Slow path of the key lookup: vals holds the decoded key prefix. */
const pal_recdesc *pal_dict_lookup(const pal_dict *d, const pal_value *vals, const uint32_t *lens);
uint8_t pal_type_class(pal_type t);
/* A new binary dictionary of ECL framing in this machine's byte order, its
 * key a ULEB type number first, its time (ns), process and thread fields
 * named t, p and h, and what designates a process and a thread taken from
 * like (doc/edl.md, "Roles"): the start of every dictionary libpal writes
 * (the merged run's, the trace writer's). NULL when out of memory. */
edl_dict *pal_binary_dict_new(const char *name, const char *version, const edl_dict *like,
                              const char *t, const char *p, const char *h);

/* ---- ascii.c ---- */
typedef struct pal_ascii pal_ascii;
pal_status pal_ascii_open(pal_ascii **out, const pal_dict *d, int fd);
void pal_ascii_close(pal_ascii *a);
/* The next record of the line file into rec: 1 ok, 0 end of file, -1 a bad
 * line (msg says why; *line and *col where), -2 read error (msg). */
int pal_ascii_next(pal_ascii *a, pal_record *rec, char *msg, size_t msglen, uint64_t *line,
                   uint32_t *col);

/* ---- status.c ---- */
void pal_set_last_error(const char *fmt, ...) PAL_PRINTF(1, 2);
void pal_clear_last_error(void);

/* ---- record.c ---- */
/* Value of a field as uint64 for roles (time/process/stream). */
uint64_t pal_value_as_u64(pal_value v, uint8_t tclass);

#endif /* PAL_INTERNAL_H */
