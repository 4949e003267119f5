/* ecl.h -- ECL interface layer: the only header an instrumented program includes.
 *
 * Tracing starts at ecl_init() or automatically at the first call of any other
 * function here, and ends at ecl_finalize() or automatically at exit. Each
 * process writes one self-describing trace file, "$ECL_DIR/$ECL_PREFIX.<rank or
 * pid>.ecl" (see doc/configuration.md), readable with pal-dump.
 *
 * All functions are thread-safe. The recording functions (ecl_enter, ecl_leave,
 * ecl_marker, ecl_counter_*, ecl_record) never lock or allocate; they return
 * nothing and cost a few nanoseconds. Definitions (ecl_region, ecl_counter,
 * ecl_type_register) take a lock and are meant to be called once per name.
 *
 * Ownership: strings passed in are copied; ecl_trace_path() is borrowed. */
#ifndef ECL_H
#define ECL_H

/* The version of ECL (the package) this header belongs to, for code that
 * must build against several: ECL_VERSION_NUMBER is MAJOR*10000 + MINOR*100
 * + PATCH. tests/build/version.sh checks them against configure.ac. */
#define ECL_VERSION_MAJOR 0
#define ECL_VERSION_MINOR 1
#define ECL_VERSION_PATCH 0
#define ECL_VERSION_STRING "0.1.0"
#define ECL_VERSION_NUMBER (ECL_VERSION_MAJOR * 10000 + ECL_VERSION_MINOR * 100 + ECL_VERSION_PATCH)

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(ECL_BUILDING) && defined(__GNUC__)
#define ECL_API __attribute__((visibility("default")))
#else
#define ECL_API
#endif

typedef enum ecl_status {
    ECL_OK = 0,
    ECL_ENOMEM,      /* out of memory */
    ECL_EINVAL,      /* bad argument: NULL or empty name, bad field type, too many fields */
    ECL_EIO,         /* the trace file cannot be created or written (message on stderr) */
    ECL_ECONFIG,     /* an ECL_* setting cannot be carried out (ECL_FILTER unreadable;
                        message on stderr); a bad value is said and its default used */
    ECL_EEXIST,      /* a record type of that name exists with other fields */
    ECL_ESTATE       /* not possible in this state (e.g. tracing already finalized) */
} ecl_status;

/* Starts tracing (idempotent). Reads the ECL_* environment. */
ECL_API ecl_status ecl_init(void);
/* Flushes every buffer, writes the index and closes the trace (idempotent).
 * Recording calls after it are ignored. */
ECL_API ecl_status ecl_finalize(void);
/* Writes the calling thread's buffer now (normally not needed). */
ECL_API ecl_status ecl_flush(void);
/* Path of this process's trace file, or NULL before init. */
ECL_API const char *ecl_trace_path(void);

/* ---- regions: enter/leave pairs, ids from names ---- */
typedef uint32_t ecl_region;
/* The same name always gives the same id. Returns 0 on error (0 is never valid). */
ECL_API ecl_region ecl_region_define(const char *name);
ECL_API void ecl_enter(ecl_region region);
ECL_API void ecl_leave(ecl_region region);

/* Regions by name, with no define first. ecl_enter_name/ecl_leave_name look
 * the name up in a table read without a lock (a hash of the name, about as
 * much as a strlen and a compare more than ecl_enter); the first use of a name
 * defines it. An empty or NULL name records nothing. */
ECL_API void ecl_enter_name(const char *name);
ECL_API void ecl_leave_name(const char *name);
/* The id of name, cached in *site: the first call defines the region and
 * stores its id there, later calls return it. What ECL_ENTER/ECL_LEAVE use. */
ECL_API ecl_region ecl_region_cached(ecl_region *site, const char *name);

/* ECL_ENTER("solve") ... ECL_LEAVE("solve"): each call site keeps the id in
 * a static variable of its own, so after its first run a site costs what
 * ecl_enter does. name must be the same string at every run of the site. */
#if defined(__GNUC__) || defined(__clang__)
#define ECL_SITE_ID_(name)                                                           \
    __extension__({                                                                \
        static ecl_region ecl_site_;                                               \
        ecl_region ecl_id_ = __atomic_load_n(&ecl_site_, __ATOMIC_RELAXED);         \
        ecl_id_ != 0 ? ecl_id_ : ecl_region_cached(&ecl_site_, (name));              \
    })
#define ECL_ENTER(name) ecl_enter(ECL_SITE_ID_(name))
#define ECL_LEAVE(name) ecl_leave(ECL_SITE_ID_(name))
#else
#define ECL_ENTER(name) ecl_enter_name(name)
#define ECL_LEAVE(name) ecl_leave_name(name)
#endif

/* ---- markers ---- */
/* Records a text (NULL records ""). A record must fit one buffer: text longer
 * than ECL_BUFFER_SIZE - 160 bytes (1 MiB - 160 by default) is cut to that
 * length, and the record's `length` field keeps the full length, so a reader
 * sees the cut. */
ECL_API void ecl_marker(const char *text);

/* ---- counters: name -> int64 or double samples ---- */
typedef enum ecl_counter_kind { ECL_COUNTER_INT = 0, ECL_COUNTER_FLOAT = 1 } ecl_counter_kind;
typedef uint32_t ecl_counter;
/* unit may be NULL. Returns 0 on error (0 is never valid). */
ECL_API ecl_counter ecl_counter_define(const char *name, const char *unit, ecl_counter_kind kind);
ECL_API void ecl_counter_int(ecl_counter counter, int64_t value);
ECL_API void ecl_counter_float(ecl_counter counter, double value);

/* ---- user-defined record types ---- */
typedef enum ecl_field_type {
    ECL_FIELD_INT32 = 1, ECL_FIELD_INT64, ECL_FIELD_UINT32, ECL_FIELD_UINT64,
    ECL_FIELD_FLOAT64, ECL_FIELD_STRING
} ecl_field_type;

typedef struct ecl_field {
    const char *name;          /* [A-Za-z_][A-Za-z0-9_]*, not "type" or "time" */
    ecl_field_type type;
    const char *unit;          /* may be NULL */
    const char *description;   /* may be NULL */
} ecl_field;

/* One value per field, in field order; the member read is the field's type. */
typedef union ecl_value {
    int64_t i;                 /* INT32, INT64 */
    uint64_t u;                /* UINT32, UINT64 */
    double f;                  /* FLOAT64 */
    const char *s;             /* STRING (NULL records "") */
} ecl_value;

#define ECL_MAX_FIELDS 32
typedef uint32_t ecl_type;

/* Registers a record type whose records carry a timestamp and these fields; it
 * joins the trace's dictionary. Registering the same name with the same fields
 * again returns the same id. */
ECL_API ecl_status ecl_type_register(const char *name, const ecl_field *fields, size_t nfields,
                                     ecl_type *out);
/* Records one event of a registered type; values has one entry per field. */
ECL_API void ecl_record(ecl_type type, const ecl_value *values);

/* ---- pause/resume: while paused, recording calls are ignored (process-wide) ---- */
ECL_API void ecl_pause(void);
ECL_API void ecl_resume(void);

ECL_API const char *ecl_status_string(ecl_status s);

#ifdef __cplusplus
}
#endif
#endif /* ECL_H */
