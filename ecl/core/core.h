/* core.h -- ECL basic layer: per-thread record buffers, record encoding, the
 * chunk writer and the trace file (doc/trace-format.md). Used by the interface
 * layer (ecl/api) and the MPI profiling layer; includes only ecl/sys below it.
 *
 * Recording a record is: ecl_buf_begin (bounds check, clock read, type and
 * time delta), ecl_buf_put_* for the fields, ecl_buf_commit. That path never
 * locks, allocates or makes a system call; a full buffer goes to the writer
 * thread through the out-of-line slow path. Callers check ecl_buf_active first.
 *
 * Functions returning ecl_core_status write a message to stderr on EIO and
 * ECONFIG-like failures; the interface layer maps the codes to ecl_status. */
#ifndef ECL_CORE_H
#define ECL_CORE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "container/container.h"
#include "ecl/sys/sys.h"
#include "edl/edl.h"

#define ECL_LIKELY(x) __builtin_expect(!!(x), 1)
#define ECL_UNLIKELY(x) __builtin_expect(!!(x), 0)

typedef enum ecl_core_status {
    ECL_CORE_OK = 0,
    ECL_CORE_ENOMEM,
    ECL_CORE_EINVAL,
    ECL_CORE_EIO,
    ECL_CORE_ECONFIG,
    ECL_CORE_EEXIST,
    ECL_CORE_ESTATE
} ecl_core_status;

/* Record type ids of the native dictionary (doc/trace-format.md). */
enum {
    ECL_REC_REGION_DEF = 1,
    ECL_REC_ENTER = 2,
    ECL_REC_LEAVE = 3,
    ECL_REC_MARKER = 4,
    ECL_REC_COUNTER_DEF = 5,
    ECL_REC_COUNTER_INT = 6,
    ECL_REC_COUNTER_FLOAT = 7,
    ECL_REC_THREAD_DEF = 8,
    ECL_REC_FLUSH = 9,
    ECL_REC_LOST = 10,
    ECL_REC_PAUSE = 11,
    ECL_REC_RESUME = 12,
    ECL_REC_CLOCK_SYNC = 13,
    ECL_REC_RESERVED_FIRST = 14,   /* 14..1023: ECL layers (MPI) via ecl_trace_type_define */
    ECL_REC_RESERVED_LAST = ECC_TYPE_USER_FIRST - 1,
    ECL_REC_USER_FIRST = ECC_TYPE_USER_FIRST,  /* user types */
    ECL_REC_TYPE_LIMIT = 4096      /* ids are below this (so a type id is at most 2 ULEB bytes) */
};

/* Largest header of any record: type (2 ULEB bytes) + time delta (10). */
#define ECL_BUF_HEADER_MAX 12
/* Room every fixed-size native record fits in (header + two 10-byte values). */
#define ECL_BUF_SMALL 32
/* Bytes kept free at the start of every buffer for the flush/lost records. */
#define ECL_BUF_RESERVE 128
#define ECL_BUF_COUNT_MAX 16
/* Most compressor threads of a process (ECL_COMPRESS_THREADS). */
#define ECL_COMPRESSORS_MAX 256

/* ---------------- configuration ---------------- */
enum { ECL_COMPRESS_NONE = 0, ECL_COMPRESS_ZLIB = 1, ECL_COMPRESS_ZSTD = 2 };

typedef struct ecl_trace_config {
    char dir[1024];
    char prefix[256];
    size_t buffer_size;          /* bytes per buffer, >= 4096 */
    unsigned buffer_count;       /* buffers per thread, 1..ECL_BUF_COUNT_MAX */
    int compress;                /* ECL_COMPRESS_* */
    int compress_level;          /* 0 = the method's default (zlib 1, zstd 1) */
    unsigned compress_threads;   /* most compressor threads: 0 = the cores this
                                    process may run on */
    int compress_normal;         /* 1: compressors run at the program's priority;
                                    0: at the lowest (idle cores only) */
    ecl_sys_clock_source clock;
    int drop_when_full;          /* 0 = block (lossless), 1 = drop and count */
    int verbose;
} ecl_trace_config;

/* Defaults as documented in doc/configuration.md. */
void ecl_trace_config_default(ecl_trace_config *cfg);
/* 1 if this build can write chunks compressed with method (ECL_COMPRESS_*). */
int ecl_trace_have_compress(int method);

/* ---------------- trace life cycle ---------------- */
/* Creates the trace file "<dir>/<prefix>.<pid>.ecl" (or, if that exists,
 * "<dir>/<prefix>.<pid>.<k>.ecl" with the first free k from 1: an existing
 * file is never replaced), writes its header and the first clock_sync,
 * starts the writer thread, installs the crash hooks and turns recording on.
 * err receives a message on failure; a file created before the failure is
 * removed (and err says so).
 * ECL_CORE_EIO: the file cannot be created or its header written;
 * ECL_CORE_ECONFIG: the clock is not available; ECL_CORE_ENOMEM;
 * ECL_CORE_ESTATE: already open or finished. */
ecl_core_status ecl_trace_open(const ecl_trace_config *cfg, char *err, size_t errlen);
/* Flushes every thread, writes clock_sync, the index and the footer, closes the
 * file. Idempotent; recording stays off afterwards. */
ecl_core_status ecl_trace_close(void);
/* 1 while the trace file is open for writing (also while paused). */
int ecl_trace_is_open(void);
/* 1 once the trace was closed (or stopped by a write error). */
int ecl_trace_is_done(void);
/* Path of the trace file, or NULL before open. Borrowed. */
const char *ecl_trace_file_path(void);

/* Sets the MPI world rank and size once known (the MPI layer calls it after
 * MPI_Init): rewrites the header's rank, size and header_crc in place, renames
 * the file from "<prefix>.<pid>.ecl" to "<prefix>.<rank>.ecl", and stamps the
 * rank into the process field of every later chunk.
 * ECL_CORE_EINVAL: rank < 0 or size <= rank; ECL_CORE_ESTATE: not open;
 * ECL_CORE_EIO: the rewrite or rename failed (message on stderr; the trace
 * stays valid under its old name). */
ecl_core_status ecl_trace_set_rank(int32_t rank, int32_t size);
/* The same, also setting the run id (ECC_RUN_ID bytes every process of the
 * run shares; NULL keeps the random one chosen at open), which lets a merge
 * refuse traces of different runs. */
ecl_core_status ecl_trace_set_identity(int32_t rank, int32_t size,
                                       const uint8_t run_id[ECC_RUN_ID]);
/* The run id in the header (zeros before open). */
void ecl_trace_run_id(uint8_t out[ECC_RUN_ID]);

/* Called before exec replaces the process image: writes every thread's
 * buffered records to the file and returns when they are there. Tracing goes
 * on (in case exec fails); the file is left without index and footer. Records
 * other threads make meanwhile are lost if exec succeeds. No-op unless the
 * trace is open in this process (not in a forked or vforked child). */
void ecl_trace_before_exec(void);
/* The exec after ecl_trace_before_exec failed: tracing goes on. */
void ecl_trace_exec_failed(void);

/* Pause/resume (process-wide). Pause records `pause` on the calling thread,
 * then turns recording off; resume turns it on and records `resume`. */
void ecl_trace_pause(void);
void ecl_trace_resume(void);
int ecl_trace_is_paused(void);

/* ---------------- definitions (stream 0, written synchronously) ---------------- */
/* Same name -> same id; ids start at 1. 0 on error (message on stderr if EIO). */
uint32_t ecl_trace_region(const char *name);
/* kind: 0 = int64, 1 = float64. Same name -> same id (the first unit/kind win). */
uint32_t ecl_trace_counter(const char *name, const char *unit, int kind);
/* Kind (0/1) of a defined counter, or -1 if the id is unknown. */
int ecl_trace_counter_kind(uint32_t id);

/* A field of a record type defined at run time. It follows the `type` and
 * `time` fields every record has. Encodings allowed: ULEB (unsigned), SLEB
 * (signed), FIXED (numbers), LSTRING (string). */
typedef struct ecl_trace_field {
    const char *name;
    edl_type type;
    edl_encoding encoding;
    const char *unit;            /* may be NULL */
    const char *description;     /* may be NULL */
} ecl_trace_field;

/* Defines a record type: it is added to the trace dictionary and a kind-2
 * dictionary chunk is written before this returns, so records of the type may
 * follow at once. id: a fixed id in 14..1023 (the ECL layers' reserved range),
 * or 0 for the next user id (1024, 1025, ...). Defining the same name with the
 * same fields again gives the same id.
 * ECL_CORE_EINVAL: bad name, field or id; ECL_CORE_EEXIST: the name (or the
 * fixed id) is taken by another definition; ECL_CORE_ENOMEM; ECL_CORE_EIO;
 * ECL_CORE_ESTATE: the trace is not open. */
ecl_core_status ecl_trace_type_define(uint32_t id, const char *name, const char *description,
                                      const ecl_trace_field *fields, size_t nfields,
                                      uint32_t *out);
/* The same with the type's meaning (doc/edl.md, "Roles"): its record roles,
 * region, and field roles and references, naming the fields above (the model
 * checks it now: ECL_CORE_EINVAL when it breaks a rule; references are
 * checked when a trace dictionary is written). NULL: none. Copied. A
 * re-definition must have the same meaning too. */
ecl_core_status ecl_trace_type_define_meaning(uint32_t id, const char *name,
                                              const char *description,
                                              const ecl_trace_field *fields, size_t nfields,
                                              const edl_meaning *meaning, uint32_t *out);
/* A fixed record type of an ECL layer (ecl/auto, ecl/gpu), as a table row:
 * fields, record roles and field meanings. */
typedef struct ecl_trace_type_spec {
    uint32_t id;
    const char *name;
    const char *description;
    ecl_trace_field fields[10];
    size_t nfields;
    edl_role roles[2];
    size_t nroles;
    edl_field_meaning meaning[8];     /* GPU copies: 7 */
    size_t nmeaning;
} ecl_trace_type_spec;
/* Defines the n types of a layer's table with their meaning. Each that
 * cannot be defined is said on standard error, the message ending in
 * `consequence` ("" for none); returns how many failed. */
size_t ecl_trace_types_define(const ecl_trace_type_spec *t, size_t n, const char *consequence);
/* Layout of a defined type's extra fields, one letter each: 'u' ULEB, 's' SLEB,
 * '1' '2' '4' '8' FIXED of that width, 'l' LSTRING; NULL if the id is unknown.
 * Async-signal-safe (used to re-check buffers while crashing). */
const char *ecl_trace_layout(uint32_t type);

/* Writes one record of a defined type (ids 14.. only) as a definition: a
 * single-record chunk of stream 0, in the file before this returns, like
 * region_def. fields holds the record's encoded fields (after `type` and
 * `time`); its time is the clock now. For process-wide records a reader must
 * find without decoding the thread streams (the MPI layer's clock offsets
 * and communicators). ECL_CORE_EINVAL: unknown or native type;
 * ECL_CORE_ESTATE: the trace is not open; ECL_CORE_ENOMEM; ECL_CORE_EIO. */
ecl_core_status ecl_trace_write_definition(uint32_t type, const uint8_t *fields, size_t len);

/* ---------------- recording ---------------- */
/* The hot part of a thread's state. pos == end means "take the slow path"
 * (no buffer yet, dropping, or tracing off). */
typedef struct ecl_buf_hot {
    uint8_t *pos;                /* next free byte of the current buffer */
    uint8_t *end;                /* end of the current buffer */
    uint64_t last;               /* time of the last record: the TDELTA base */
    uint32_t count;              /* records in the current buffer */
} ecl_buf_hot;

extern __thread ecl_buf_hot *ecl_buf_self __attribute__((tls_model("initial-exec")));
/* Nonzero while records are taken: trace open, not paused, no write error. */
extern int ecl_buf_active;
/* Largest record (bytes) that fits a buffer; longer strings get truncated. */
extern size_t ecl_buf_record_max;
/* Recursion guard for layers that intercept calls ECL itself makes (MPI):
 * nonzero while the calling thread is inside ECL. */
extern __thread int ecl_buf_in_tool __attribute__((tls_model("initial-exec")));

static inline int ecl_buf_is_active(void)
{
    return ECL_LIKELY(__atomic_load_n(&ecl_buf_active, __ATOMIC_RELAXED) != 0);
}

/* Nonzero while the shortest recording path may be taken (ecl_buf_fast_u):
 * records are taken, the clock is the cycle counter, and no layer asked to
 * see every region boundary. */
extern int ecl_buf_fast;
/* Turns recording on or off (ecl_buf_active, and ecl_buf_fast with it).
 * Async-signal-safe. */
void ecl_buf_set_active(int on);
/* A layer that must run at every region boundary (ecl/auto's counter
 * sampling) turns the shortest path off for good: its callers then take
 * their general path, which calls the layer. */
void ecl_buf_boundaries_on(void);

/* Slow path: registers the thread or hands the full buffer to the writer so
 * that need bytes fit. NULL: the record is not taken (tracing off, or dropped
 * and counted with ECL_ON_FULL=drop). */
ecl_buf_hot *ecl_buf_slow(size_t need) __attribute__((noinline));

/* Field encoders: the container codec's (container/container.h). */
static inline uint8_t *ecl_buf_put_uleb(uint8_t *p, uint64_t v)
{
    return ecc_put_uleb(p, v);
}

static inline uint8_t *ecl_buf_put_sleb(uint8_t *p, int64_t v)
{
    return ecc_put_sleb(p, v);
}

/* FIXED fields use the host byte order, which the dictionary declares. */
static inline uint8_t *ecl_buf_put_f64(uint8_t *p, double v)
{
    memcpy(p, &v, sizeof v);
    return p + sizeof v;
}

static inline uint8_t *ecl_buf_put_str(uint8_t *p, const char *s, size_t n)
{
    p = ecc_put_uleb(p, n);
    memcpy(p, s, n);
    return p + n;
}

/* Starts a record of type with at most need bytes in total (header included;
 * need <= ecl_buf_record_max). Writes type and time; returns the position for
 * the fields, or NULL if the record is not taken. *tp and *now are for commit. */
static inline uint8_t *ecl_buf_begin(uint32_t type, size_t need, ecl_buf_hot **tp, uint64_t *now)
{
    ecl_buf_hot *t = ecl_buf_self;
    if (ECL_UNLIKELY((size_t)(t->end - t->pos) < need)) {
        t = ecl_buf_slow(need);
        if (t == NULL)
            return NULL;
    }
    uint64_t tnow = ecl_sys_clock_now();
    uint64_t delta = tnow - t->last;
    /* A clock that steps back (another core's counter, a VM migration) must
     * not break per-stream time order: clamp the delta at 0. */
    if (ECL_UNLIKELY((int64_t)delta < 0)) {
        delta = 0;
        tnow = t->last;
    }
    uint8_t *p = t->pos;
    if (ECL_LIKELY(type < 0x80))
        *p++ = (uint8_t)type;
    else
        p = ecl_buf_put_uleb(p, type);
    p = ecl_buf_put_uleb(p, delta);
    *tp = t;
    *now = tnow;
    return p;
}

/* Ends the record started by ecl_buf_begin; p is just past its last field.
 * The release store publishes the bytes to a crash-time flush. */
static inline void ecl_buf_commit(ecl_buf_hot *t, uint8_t *p, uint64_t now)
{
    t->last = now;
    t->count++;
    __atomic_store_n(&t->pos, p, __ATOMIC_RELEASE);
}

/* A record with one ULEB field (enter, leave): the hot path of the API. */
static inline void ecl_buf_record_u(uint32_t type, uint64_t v)
{
    ecl_buf_hot *t;
    uint64_t now;
    uint8_t *p = ecl_buf_begin(type, ECL_BUF_SMALL, &t, &now);
    if (ECL_UNLIKELY(p == NULL))
        return;
    p = ecl_buf_put_uleb(p, v);
    ecl_buf_commit(t, p, now);
}

/* The shortest path for a record of a one-byte type id (< 0x80) with one
 * ULEB field: no call, one flag, the cycle counter read inline. Returns 0
 * without recording when that path does not apply (ecl_buf_fast off, the
 * buffer full, the counter stepped back): the caller then takes its general
 * path (ecl_buf_record_u and whatever else it does per record). */
static inline int ecl_buf_fast_u(uint32_t type, uint64_t v)
{
#if ECL_SYS_HAVE_TSC
    ecl_buf_hot *t = ecl_buf_self;
    uint8_t *p = t->pos;
    if (ECL_UNLIKELY(!__atomic_load_n(&ecl_buf_fast, __ATOMIC_RELAXED) ||
                     (size_t)(t->end - p) < ECL_BUF_SMALL))
        return 0;
    uint64_t now = __rdtsc(), delta = now - t->last;
    if (ECL_UNLIKELY((int64_t)delta < 0))
        return 0;
    *p++ = (uint8_t)type;
    p = ecl_buf_put_uleb(p, delta);
    p = ecl_buf_put_uleb(p, v);
    ecl_buf_commit(t, p, now);
    return 1;
#else
    (void)type;
    (void)v;
    return 0;
#endif
}

/* The same at a given time (a location's records, ecl_buf_location_*): a
 * time before the stream's last one is raised to it. */
static inline uint8_t *ecl_buf_begin_at(uint32_t type, size_t need, uint64_t tnow,
                                        ecl_buf_hot **tp, uint64_t *now)
{
    ecl_buf_hot *t = ecl_buf_self;
    if (ECL_UNLIKELY((size_t)(t->end - t->pos) < need)) {
        t = ecl_buf_slow(need);
        if (t == NULL)
            return NULL;
    }
    if (ECL_UNLIKELY(tnow < t->last))
        tnow = t->last;
    uint8_t *p = t->pos;
    if (ECL_LIKELY(type < 0x80))
        *p++ = (uint8_t)type;
    else
        p = ecl_buf_put_uleb(p, type);
    p = ecl_buf_put_uleb(p, tnow - t->last);
    *tp = t;
    *now = tnow;
    return p;
}

/* ---------------- locations that are no thread ----------------
 * A GPU stream, an SM: a stream of its own in the trace (a thread_def names
 * it, with tid as its system thread id), whose records carry given times
 * (ecl_buf_begin_at). Its records are written by whichever thread holds it:
 * ecl_buf_location_enter makes it the calling thread's stream until
 * ecl_buf_location_leave(the value it returned); one thread at a time (the
 * caller serialises). Its records start at base (clock ticks): earlier times
 * are raised to it. NULL when the trace is not open or out of memory. Never
 * freed; written at close like every thread's. */
typedef struct ecl_buf_location ecl_buf_location;
ecl_buf_location *ecl_buf_location_open(const char *name, uint64_t tid, uint64_t base);
ecl_buf_hot *ecl_buf_location_enter(ecl_buf_location *loc);
void ecl_buf_location_leave(ecl_buf_hot *prev);
/* The location's stream id (its thread_def's). */
uint32_t ecl_buf_location_stream(const ecl_buf_location *loc);

/* Hands the calling thread's buffer to the writer and waits until it is in
 * the file; records a flush record for the time spent. */
ecl_core_status ecl_buf_flush(void);

/* The calling thread's stream id, registering the thread (its thread_def)
 * if it has recorded nothing yet; 0 when tracing is off. */
uint32_t ecl_buf_stream_self(void);

/* ---------------- a map read without locks (map.c) ---------------- */
/* 64-bit keys (never 0) to pointers. Readers (ecl_map_get) take no lock and
 * may run while one writer adds (ecl_map_put, serialised by the caller);
 * entries are never removed; an entry's value may be replaced. A zeroed
 * ecl_map is empty. */
typedef struct ecl_map_entry {
    uint64_t key;
    void *value;
} ecl_map_entry;

typedef struct ecl_map_table {
    size_t mask, used;
    struct ecl_map_table *older;  /* replaced tables, kept for readers inside */
    ecl_map_entry e[];
} ecl_map_table;

typedef struct ecl_map {
    ecl_map_table *table;
} ecl_map;

/* 0, or -1 when out of memory or key is 0 (the map is unchanged). */
int ecl_map_put(ecl_map *m, uint64_t key, void *value);
/* Frees every table; no reader may be inside. */
void ecl_map_destroy(ecl_map *m);

static inline size_t ecl_map_slot(uint64_t key)
{
    return (size_t)((key * 0x9E3779B97F4A7C15ull) >> 32);
}

/* A key for a string: its 64-bit FNV-1a hash (never 0). Strings with the
 * same hash share a key: callers keep a list per key and compare. */
uint64_t ecl_map_key_str(const char *s);

/* The value for key, or NULL (inline: the function table's hot path). */
static inline void *ecl_map_get(const ecl_map *m, uint64_t key)
{
    const ecl_map_table *t = __atomic_load_n(&m->table, __ATOMIC_ACQUIRE);
    if (ECL_UNLIKELY(t == NULL))
        return NULL;
    for (size_t i = ecl_map_slot(key) & t->mask;; i = (i + 1) & t->mask) {
        uint64_t k = __atomic_load_n(&t->e[i].key, __ATOMIC_ACQUIRE);
        if (ECL_LIKELY(k == key))
            return __atomic_load_n(&t->e[i].value, __ATOMIC_ACQUIRE);
        if (k == 0)
            return NULL;
    }
}

/* ---------------- statistics (for ECL_VERBOSE and tests) ---------------- */
typedef struct ecl_trace_stats {
    uint64_t records;            /* records in chunks written */
    uint64_t chunks;             /* chunks written (all kinds) */
    uint64_t bytes;              /* file size */
    uint64_t raw_bytes;          /* record payload before compression */
    uint64_t lost;               /* records dropped (ECL_ON_FULL=drop) */
    uint64_t waits;              /* times a thread waited for a free buffer */
    uint32_t streams;            /* thread streams */
    uint32_t compressors;        /* compressor threads started (the pool's size) */
    uint64_t rchunks;            /* records chunks (thread streams) written */
    uint64_t zchunks;            /* of them, stored compressed */
} ecl_trace_stats;
void ecl_trace_get_stats(ecl_trace_stats *st);

#endif /* ECL_CORE_H */
