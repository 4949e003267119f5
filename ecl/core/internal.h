/* internal.h -- ECL basic layer: state shared by the files of ecl/core only
 * (buf.c: thread buffers, chunk.c: chunk encoding and writes, trace.c: the file
 * and the writer thread, defs.c: definitions). Not for other layers. */
#ifndef ECL_CORE_INTERNAL_H
#define ECL_CORE_INTERNAL_H

#include "ecl/core/core.h"

#include <pthread.h>
#include <semaphore.h>

/* Buffer states. A buffer moves FREE -> FILLING (its thread records into it)
 * -> QUEUED (handed off) [-> COMPRESSING (a compressor reads it) -> HANDING
 * (the compressor stores its result) -> COMPRESSED] -> WRITING (taken by the
 * writer, or by a crash handler) -> FREE. The writer may take a buffer from
 * QUEUED, COMPRESSING or COMPRESSED; every such transition is a CAS of the
 * state word (state and generation, buf.c), so exactly one party writes a
 * buffer. */
enum { ECL_BUF_FREE = 0, ECL_BUF_FILLING, ECL_BUF_QUEUED, ECL_BUF_WRITING, ECL_BUF_COMPRESSING,
       ECL_BUF_HANDING, ECL_BUF_COMPRESSED };

struct ecl_buf_thread;

typedef struct ecl_buf {
    uint8_t *data;
    struct ecl_buf_thread *owner;
    struct ecl_buf *handed_next; /* link in ecl_T.handed, then in the writer's queue */
    uint64_t sg;                 /* state (low 8 bits) and generation (buf.c) */
    uint8_t *zout;               /* the compressed payload (COMPRESSED), or NULL */
    uint32_t zlen;               /* its bytes */
    uint8_t zmethod;             /* ECC_COMP_*: NONE = store the raw bytes */
    uint32_t off;                /* the chunk's payload starts at data + off: the
                                    bytes before were written while FILLING
                                    (ecl_buf_flush_all) */
    uint32_t done_count;         /* records in those bytes */
    uint32_t len;                /* payload bytes (set when queued) */
    uint32_t count;              /* records */
    uint64_t seq;                /* chunk sequence within the stream */
    uint64_t first_time, last_time;
} ecl_buf;

typedef struct ecl_buf_thread {
    ecl_buf_hot hot;             /* first: ecl_buf_self points here */
    struct ecl_buf_thread *next; /* registry (push-only list, never freed while open) */
    uint32_t stream;
    uint64_t tid;
    int busy;                    /* held by the owner's slow path or a foreign flush */
    int urgent;                  /* the thread waits for its buffers: write them as
                                    they are, compressed or not */
    uint64_t writer_pass;        /* writer only: the pass that held back its buffers */
    int alive;                   /* 0 after the thread exited */
    int virt;                    /* a location that is no thread (ecl_buf_location_open):
                                    records at given times, no flush records */
    int cur;                     /* index of the FILLING buffer, -1 if none */
    unsigned nbuf;
    ecl_buf bufs[ECL_BUF_COUNT_MAX];
    uint64_t cur_first;          /* first_time of the FILLING buffer's unwritten part */
    uint64_t next_seq;           /* sequence of the next chunk handed off */
    uint64_t write_seq;          /* next sequence to go into the file (writer order) */
    uint64_t lost;               /* dropped since the last `lost` record */
    int flush_pending;           /* a flush record waits for a buffer */
    uint64_t flush_t0, flush_t1, flush_bytes;
    uint64_t flush_wait;         /* of them, ticks spent waiting for a free buffer
                                    (the flush record's `wait`; >= 1 if it waited) */
} ecl_buf_thread;

/* Trace states. */
enum {
    ECL_T_NONE = 0,              /* never opened */
    ECL_T_OPEN,                  /* recording (or paused) */
    ECL_T_CLOSING,               /* ecl_trace_close runs */
    ECL_T_DONE,                  /* closed */
    ECL_T_FAILED,                /* a write failed: stopped, nothing more written */
    ECL_T_CRASHED                /* a fatal signal flushed the buffers */
};

typedef struct ecl_index_entry {
    uint64_t offset, first_time, last_time;
    uint32_t process, stream, record_count;
    uint8_t kind;
} ecl_index_entry;

typedef struct ecl_trace_state {
    int state;
    int paused;
    ecl_trace_config cfg;
    int fd;
    char path[2][4096];          /* path_cur points at one: the other is for a rename */
    const char *path_cur;
    uint64_t file_end;           /* next free offset; chunks reserve with fetch-add */
    uint8_t *header;             /* the whole file header, kept to recompute its CRC */
    size_t header_len;
    uint8_t *header_copy;        /* pad chunk + header copy chunk, right after it */
    size_t header_copy_len;
    uint32_t process;            /* chunk process field: rank or 0xFFFFFFFF */
    uint32_t pid;                /* of the process that opened the trace */

    pthread_mutex_t def_lock;    /* definitions, dictionary, stream 0, index */
    edl_dict *dict;
    uint64_t seq0;               /* stream 0 chunk sequence */
    ecl_index_entry *index;
    size_t index_len, index_cap;
    int index_broken;            /* an entry could not be stored: write no index */

    /* Every buffer handed off and not yet taken by a writer, newest first:
     * owners push (lock-free) and post writer_wake. */
    ecl_buf *handed;
    /* The writer thread and the compressor pool (buf.c). */
    pthread_mutex_t queue_lock;  /* queue_*, compressors, compressors_idle */
    ecl_buf *queue_head, *queue_tail;   /* taken from `handed`, oldest first */
    pthread_t writer;
    pthread_t compressor[ECL_COMPRESSORS_MAX];
    unsigned compressors;        /* started */
    unsigned compressors_idle;   /* waiting for work */
    unsigned compressors_max;    /* most compressors: ECL_COMPRESS_THREADS or the cores;
                                    0 without compression */
    uint64_t writer_passes;      /* writer only */
    int writer_running;
    int writer_stop;
    sem_t compress_wake;
    sem_t writer_wake;
    pthread_mutex_t free_lock;   /* waiting for a free buffer / for a write */
    pthread_cond_t free_cond;

    ecl_buf_thread *threads;     /* registry head */
    uint32_t next_stream;
    pthread_key_t thread_key;
    int thread_key_ok;
    pthread_mutex_t pool_lock;   /* spare buffer memory of exited threads */
    uint8_t **pool;
    size_t pool_len, pool_cap;

    int fail_reported;
    int nomem_reported;          /* "cannot allocate" said once */
    uint64_t lost_nostream;      /* records of threads without a stream (no memory) */
    /* statistics (atomics) */
    uint64_t st_records, st_chunks, st_raw, st_lost, st_waits;
    uint64_t st_rchunks;         /* records chunks of thread streams written */
    uint64_t st_zchunks;         /* of them, stored compressed */
    uint64_t st_lost_unbuffered; /* of st_lost: records of threads that got no buffer */
} ecl_trace_state;

extern ecl_trace_state ecl_T;

/* ---- chunk.c ---- */
typedef struct ecl_chunk_info {
    uint8_t kind;                /* 1 records, 2 dictionary, 3 index */
    uint8_t compression;
    uint32_t stored_length, raw_length;
    uint32_t process, stream, record_count;
    uint64_t sequence, first_time, last_time;
} ecl_chunk_info;

/* Reserves file space and writes one chunk. in_signal: from a crash handler
 * (no message formatting, no index entry). On a write error the trace is
 * marked failed (message once) and ECL_CORE_EIO returned. */
ecl_core_status ecl_chunk_write(const ecl_chunk_info *ci, const void *payload, int in_signal);
/* The same for a definition (stream 0, dictionary): the chunk, a pad chunk
 * and a copy flagged ECC_CFLAG_COPY, so one damaged spot never costs a
 * definition (doc/trace-format.md, "Redundant definitions"). */
ecl_core_status ecl_chunk_write_twice(const ecl_chunk_info *ci, const void *payload);
/* Walks records in [p, p+len) from time base; stops before the first record
 * that is incomplete or undecodable. Returns the bytes of complete records and
 * sets *count and *last. Async-signal-safe. */
size_t ecl_chunk_scan(const uint8_t *p, size_t len, uint64_t base, uint32_t *count,
                      uint64_t *last);

/* ---- trace.c ---- */
/* Reports a failed write once and stops tracing. */
void ecl_trace_fail(const char *msg);
void ecl_trace_index_add(const ecl_index_entry *e);
void ecl_trace_wake_writer(void);
/* Writes a single-record chunk on stream 0 (caller holds def_lock). */
ecl_core_status ecl_trace_write_def(const uint8_t *rec, size_t len, uint64_t time);

/* ---- buf.c ---- */
/* Starts the writer thread and, with compression, the first compressor
 * (0, or an errno value). */
int ecl_buf_writers_start(void);
/* Lets the writer write every buffer handed off so far and joins it; the
 * compressors end on their own. */
void ecl_buf_writers_stop(void);
/* Close/crash: take every thread's current buffer (foreign threads re-checked
 * with ecl_chunk_scan). in_signal: write directly, uncompressed. */
void ecl_buf_collect_all(int in_signal);
void ecl_buf_notify_free(void);
/* Before exec: writes every thread's handed-off and buffered records (and
 * the lost counts of threads without a buffer) to the file and returns when
 * they are there. Recording goes on (the exec may fail); a thread's FILLING
 * buffer stays its own, only the part written is not written again. Records
 * made meanwhile by other threads stay buffered. */
void ecl_buf_flush_all(void);
/* Close, after the writer stopped: writes the flush/lost records of threads
 * that were still dropping or never had a buffer (one small chunk per such
 * thread), and on stream 0 a lost record for threads that could not even get
 * a stream (lost_nostream). */
void ecl_buf_write_pending(void);
void ecl_buf_thread_exit(void *arg);
void ecl_buf_reset_self(void);

/* ---- defs.c ---- */
ecl_core_status ecl_defs_init(char *err, size_t errlen);
void ecl_defs_fini(void);

#endif /* ECL_CORE_INTERNAL_H */
