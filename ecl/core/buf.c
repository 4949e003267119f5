/* buf.c -- ECL basic layer: per-thread buffers. The fast path is inline in
 * core.h; this file is the slow path (first event of a thread, full buffer,
 * explicit flush, thread exit, exec) and the hand-over to the writer thread,
 * which writes handed-off buffers in hand-off order.
 *
 * Ownership: a thread's FILLING buffer and its hot fields are written only by
 * that thread. Everyone else (the writer, ecl_trace_close, exec, a crash
 * handler) touches QUEUED buffers through a state CAS, or takes a snapshot of
 * the FILLING buffer up to the last committed record without changing the
 * owner's pointers (a foreign write to pos/end could race with a record in
 * flight). */
#include <config.h>

#include "ecl/core/internal.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* The state of a thread that has no buffer: empty, so every record takes the
 * slow path, which registers the thread. */
static ecl_buf_hot no_buffer;

__thread ecl_buf_hot *ecl_buf_self __attribute__((tls_model("initial-exec"))) = &no_buffer;
__thread int ecl_buf_in_tool __attribute__((tls_model("initial-exec")));
int ecl_buf_active;
int ecl_buf_fast;
static int boundaries_on;       /* a layer sees every region boundary */

/* Async-signal-safe (a crash handler turns recording off). */
void ecl_buf_set_active(int on)
{
    int fast = on && ecl_sys_clock_kind == ECL_SYS_CLOCK_TSC &&
               !__atomic_load_n(&boundaries_on, __ATOMIC_ACQUIRE);
    if (!fast)
        __atomic_store_n(&ecl_buf_fast, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&ecl_buf_active, on, __ATOMIC_RELEASE);
    if (fast)
        __atomic_store_n(&ecl_buf_fast, 1, __ATOMIC_RELEASE);
}

void ecl_buf_boundaries_on(void)
{
    __atomic_store_n(&boundaries_on, 1, __ATOMIC_RELEASE);
    ecl_buf_set_active(__atomic_load_n(&ecl_buf_active, __ATOMIC_ACQUIRE));
}
size_t ecl_buf_record_max;

static ecl_buf_thread *self_thread(void)
{
    return ecl_buf_self == &no_buffer ? NULL : (ecl_buf_thread *)ecl_buf_self;
}

void ecl_buf_reset_self(void)
{
    ecl_buf_self = &no_buffer;
}

static void busy_lock(ecl_buf_thread *t)
{
    while (__atomic_exchange_n(&t->busy, 1, __ATOMIC_ACQUIRE))
        sched_yield();
}

static int busy_try(ecl_buf_thread *t)
{
    return __atomic_exchange_n(&t->busy, 1, __ATOMIC_ACQUIRE) == 0;
}

static void busy_unlock(ecl_buf_thread *t)
{
    __atomic_store_n(&t->busy, 0, __ATOMIC_RELEASE);
}

static int trace_state(void)
{
    return __atomic_load_n(&ecl_T.state, __ATOMIC_ACQUIRE);
}

void ecl_buf_notify_free(void)
{
    pthread_mutex_lock(&ecl_T.free_lock);
    pthread_cond_broadcast(&ecl_T.free_cond);
    pthread_mutex_unlock(&ecl_T.free_lock);
}

/* Waits for a change of buffer states, at most 50 ms (a missed wake-up only
 * costs time, never correctness: every caller loops and re-checks). */
static void wait_for_writer(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_nsec += 50000000;
    if (ts.tv_nsec >= 1000000000) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000;
    }
    pthread_mutex_lock(&ecl_T.free_lock);
    pthread_cond_timedwait(&ecl_T.free_cond, &ecl_T.free_lock, &ts);
    pthread_mutex_unlock(&ecl_T.free_lock);
}

/* ---------------- buffer states ----------------
 * A buffer's state word holds its state (low 8 bits) and a generation, one
 * more each time the buffer is handed off. Every transition out of QUEUED,
 * COMPRESSING or COMPRESSED is a compare-and-swap of the whole word, so a
 * compressor whose buffer was taken from it meanwhile (written raw, then
 * refilled and handed off again) cannot mistake the new hand-off for its
 * own. */
#define ST_MASK 0xffu

static int bstate(const ecl_buf *b)
{
    return (int)(__atomic_load_n(&b->sg, __ATOMIC_ACQUIRE) & ST_MASK);
}

/* Sets the state, keeping the generation: by the party that owns the
 * buffer in its current state (FILLING: the thread; WRITING: the writer). */
static void bset(ecl_buf *b, int st)
{
    uint64_t v = __atomic_load_n(&b->sg, __ATOMIC_RELAXED);
    __atomic_store_n(&b->sg, (v & ~(uint64_t)ST_MASK) | (unsigned)st, __ATOMIC_RELEASE);
}

/* FILLING -> QUEUED, a new generation. */
static void bqueue(ecl_buf *b)
{
    uint64_t v = __atomic_load_n(&b->sg, __ATOMIC_RELAXED);
    __atomic_store_n(&b->sg, ((v >> 8) + 1) << 8 | ECL_BUF_QUEUED, __ATOMIC_RELEASE);
}

/* The state word v (as loaded) -> state `to`, same generation, if nobody
 * changed it meanwhile. */
static int bswap(ecl_buf *b, uint64_t v, int to)
{
    return __atomic_compare_exchange_n(&b->sg, &v, (v & ~(uint64_t)ST_MASK) | (unsigned)to, 0,
                                       __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

/* Takes a handed-off buffer to write it (state -> WRITING) if its state is
 * one of those in mask (bits 1 << state). */
static int btake(ecl_buf *b, unsigned mask)
{
    uint64_t v = __atomic_load_n(&b->sg, __ATOMIC_ACQUIRE);
    return (mask >> (v & ST_MASK) & 1) && bswap(b, v, ECL_BUF_WRITING);
}

#define M(s) (1u << (s))
/* Handed off and not being written: what a crash handler, a write error or
 * a thread that needs its buffer back may take (the raw bytes are intact). */
#define TAKEABLE (M(ECL_BUF_QUEUED) | M(ECL_BUF_COMPRESSING) | M(ECL_BUF_COMPRESSED))

/* ---------------- registration ---------------- */

/* A spare buffer of an exited thread, or NULL. */
static uint8_t *pool_get(void)
{
    uint8_t *p = NULL;
    pthread_mutex_lock(&ecl_T.pool_lock);
    if (ecl_T.pool_len > 0)
        p = ecl_T.pool[--ecl_T.pool_len];
    pthread_mutex_unlock(&ecl_T.pool_lock);
    return p;
}

static void pool_put(uint8_t *p)
{
    pthread_mutex_lock(&ecl_T.pool_lock);
    if (ecl_T.pool_len == ecl_T.pool_cap) {
        size_t cap = ecl_T.pool_cap ? 2 * ecl_T.pool_cap : 16;
        uint8_t **np = realloc(ecl_T.pool, cap * sizeof *np);
        if (np == NULL) {
            pthread_mutex_unlock(&ecl_T.pool_lock);
            return;                  /* kept by its dead thread: a leak, not a crash */
        }
        ecl_T.pool = np;
        ecl_T.pool_cap = cap;
    }
    ecl_T.pool[ecl_T.pool_len++] = p;
    pthread_mutex_unlock(&ecl_T.pool_lock);
}

/* Makes a FREE buffer the FILLING one. Owner only, busy held. */
static int take_free(ecl_buf_thread *t)
{
    for (unsigned i = 0; i < t->nbuf; i++) {
        ecl_buf *b = &t->bufs[i];
        if (bstate(b) != ECL_BUF_FREE)
            continue;
        bset(b, ECL_BUF_FILLING);
        b->off = 0;
        b->done_count = 0;
        t->cur = (int)i;
        t->cur_first = t->hot.last;
        t->hot.count = 0;
        t->hot.end = b->data + ecl_T.cfg.buffer_size;
        __atomic_store_n(&t->hot.pos, b->data, __ATOMIC_RELEASE);
        return 1;
    }
    return 0;
}

static void thread_name_record(ecl_buf_thread *t, uint64_t now, const char *given)
{
    char name[64];
    uint8_t rec[128];
    if (given != NULL)
        snprintf(name, sizeof name, "%s", given);
    else
        ecl_sys_thread_name(name, sizeof name);
    size_t n = strlen(name);
    uint8_t *p = rec;
    *p++ = ECL_REC_THREAD_DEF;
    *p++ = 0;                        /* time delta: the chunk's first_time is now */
    p = ecl_buf_put_uleb(p, t->stream);
    p = ecl_buf_put_uleb(p, t->tid);
    p = ecl_buf_put_str(p, name, n);
    ecl_trace_write_def(rec, (size_t)(p - rec), now);
}

/* Says once per process that records are being dropped for lack of memory. */
static void report_no_memory(uint64_t tid, const char *what, int err)
{
    if (__atomic_exchange_n(&ecl_T.nomem_reported, 1, __ATOMIC_ACQ_REL))
        return;
    char line[4600];
    const char *path = ecl_trace_file_path();
    snprintf(line, sizeof line,
             "ecl: trace '%s': cannot allocate %s for thread %llu: %s; its records are "
             "dropped and counted as lost (a smaller ECL_BUFFER_SIZE or ECL_BUFFER_COUNT "
             "needs less memory)\n",
             path ? path : "?", what, (unsigned long long)tid, strerror(err));
    ecl_sys_stderr(line);
}

/* At most this much of a thread's buffers is made resident before records
 * fill it (all of the default 2 x 1 MiB): with ECL_BUFFER_SIZE=1G, a thread
 * that records little must not take gigabytes (or wake the OOM killer). */
#define PREFAULT_MAX ((size_t)4 << 20)

static void add_buffer(ecl_buf_thread *t, uint8_t *p)
{
    ecl_buf *b = &t->bufs[t->nbuf];
    b->data = p;
    b->owner = t;
    b->sg = ECL_BUF_FREE;
    /* release: a foreign flush that sees the count sees the buffer */
    __atomic_store_n(&t->nbuf, t->nbuf + 1, __ATOMIC_RELEASE);
}

/* Gives t up to ECL_BUFFER_COUNT buffers (owner only, or before t is
 * published); returns how many it has. A thread left with none drops its
 * records and counts them. Spare buffers of exited threads come first;
 * the missing ones are allocated in one block, its first PREFAULT_MAX bytes
 * pre-faulted (of huge pages where the system allows), so that filling
 * them costs no page fault per 4 KiB; without memory for that block, one
 * buffer at a time. Buffer
 * memory is never freed while the process lives. */
static unsigned alloc_buffers(ecl_buf_thread *t)
{
    int err = 0;
    size_t size = ecl_T.cfg.buffer_size;
    unsigned want = ecl_T.cfg.buffer_count;
    uint8_t *p;
    while (t->nbuf < want && (p = pool_get()) != NULL)
        add_buffer(t, p);
    size_t nblock = want - t->nbuf, used = 0;
    uint8_t *block = nblock > 0 && size <= SIZE_MAX / nblock
                         ? ecl_sys_alloc_prefaulted(nblock * size, PREFAULT_MAX)
                         : NULL;
    while (t->nbuf < want) {
        errno = 0;
        p = block != NULL ? block + size * used++ : malloc(size);
        if (p == NULL) {
            err = errno ? errno : ENOMEM;
            break;
        }
        add_buffer(t, p);
    }
    if (t->nbuf == 0) {
        char what[64];
        snprintf(what, sizeof what, "a trace buffer of %zu bytes", ecl_T.cfg.buffer_size);
        report_no_memory(t->tid, what, err);
    }
    return t->nbuf;
}

/* Registers the calling thread, or (name != NULL) a location that is no
 * thread: named name, system thread id tid, its records starting at base. */
static ecl_buf_thread *register_stream(const char *name, uint64_t tid, uint64_t base)
{
    ecl_buf_thread *t = calloc(1, sizeof *t);
    if (t == NULL) {
        /* No stream to count them on: counted process-wide, written on
         * stream 0 at close (ecl_buf_write_pending). */
        __atomic_fetch_add(&ecl_T.lost_nostream, 1, __ATOMIC_RELAXED);
        __atomic_fetch_add(&ecl_T.st_lost, 1, __ATOMIC_RELAXED);
        __atomic_fetch_add(&ecl_T.st_lost_unbuffered, 1, __ATOMIC_RELAXED);
        report_no_memory(ecl_sys_thread_id(), "the trace state", ENOMEM);
        return NULL;
    }
    t->tid = name != NULL ? tid : ecl_sys_thread_id();
    t->virt = name != NULL;
    t->alive = 1;
    t->cur = -1;
    alloc_buffers(t);

    /* Stream ids follow the order of first events; the thread_def goes to the
     * file (stream 0) before any chunk of this stream can. */
    pthread_mutex_lock(&ecl_T.def_lock);
    if (trace_state() != ECL_T_OPEN) {
        pthread_mutex_unlock(&ecl_T.def_lock);
        for (unsigned i = 0; i < t->nbuf; i++)
            pool_put(t->bufs[i].data);
        free(t);
        return NULL;
    }
    t->stream = ++ecl_T.next_stream;
    uint64_t now = ecl_sys_clock_now();
    t->hot.last = name != NULL && base < now ? base : now;
    thread_name_record(t, now, name);
    ecl_buf_thread *head = __atomic_load_n(&ecl_T.threads, __ATOMIC_ACQUIRE);
    do {
        t->next = head;
    } while (!__atomic_compare_exchange_n(&ecl_T.threads, &head, t, 1, __ATOMIC_RELEASE,
                                          __ATOMIC_ACQUIRE));
    pthread_mutex_unlock(&ecl_T.def_lock);

    if (name != NULL) {
        take_free(t);
        return t;
    }
    if (ecl_T.thread_key_ok)
        pthread_setspecific(ecl_T.thread_key, t);
    take_free(t);
    ecl_buf_self = &t->hot;
    return t;
}

static ecl_buf_thread *register_thread(void)
{
    return register_stream(NULL, 0, 0);
}

ecl_buf_location *ecl_buf_location_open(const char *name, uint64_t tid, uint64_t base)
{
    if (name == NULL || trace_state() != ECL_T_OPEN)
        return NULL;
    ecl_buf_in_tool++;
    ecl_buf_thread *t = register_stream(name, tid, base);
    ecl_buf_in_tool--;
    return (ecl_buf_location *)t;
}

ecl_buf_hot *ecl_buf_location_enter(ecl_buf_location *loc)
{
    ecl_buf_hot *prev = ecl_buf_self;
    ecl_buf_self = &((ecl_buf_thread *)loc)->hot;
    return prev;
}

void ecl_buf_location_leave(ecl_buf_hot *prev)
{
    ecl_buf_self = prev;
}

uint32_t ecl_buf_location_stream(const ecl_buf_location *loc)
{
    return ((const ecl_buf_thread *)loc)->stream;
}

/* ---------------- hand-over ---------------- */

/* Start of the FILLING buffer's part not yet written. */
static uint8_t *filling_start(const ecl_buf_thread *t)
{
    const ecl_buf *b = &t->bufs[t->cur];
    return b->data + b->off;
}

/* Queues the FILLING buffer. foreign: called from another thread (close or
 * crash) — the counters are re-derived from the committed bytes because the
 * owner may be between two stores of a record. */
static void handoff(ecl_buf_thread *t, int foreign)
{
    if (t->cur < 0)
        return;
    ecl_buf *b = &t->bufs[t->cur];
    uint8_t *start = filling_start(t);
    uint8_t *pos = __atomic_load_n(&t->hot.pos, __ATOMIC_ACQUIRE);
    size_t len = (size_t)(pos - start);
    uint32_t count = t->hot.count - b->done_count;
    uint64_t last = t->hot.last;
    if (foreign)
        len = ecl_chunk_scan(start, len, t->cur_first, &count, &last);
    if (count == 0 && foreign)
        return;                      /* nothing to write: the owner keeps filling it */
    t->cur = -1;
    if (!foreign) {
        t->hot.end = NULL;
        __atomic_store_n(&t->hot.pos, NULL, __ATOMIC_RELEASE);
    }
    if (count == 0) {                /* empty, or all written by ecl_buf_flush_all */
        bset(b, ECL_BUF_FREE);
        return;
    }
    b->len = (uint32_t)len;
    b->count = count;
    b->first_time = t->cur_first;
    b->last_time = last;
    b->seq = t->next_seq++;
    bqueue(b);
    /* Onto the writer's list; the release publishes the buffer's fields. */
    ecl_buf *head = __atomic_load_n(&ecl_T.handed, __ATOMIC_RELAXED);
    do {
        b->handed_next = head;
    } while (!__atomic_compare_exchange_n(&ecl_T.handed, &head, b, 1, __ATOMIC_RELEASE,
                                          __ATOMIC_RELAXED));
}

/* Writes a record at an explicit time at the start of a fresh buffer (flush
 * and lost records): nvals ULEB fields from v. Owner only; fits because of
 * ECL_BUF_RESERVE. */
static void put_uvals(ecl_buf_thread *t, uint32_t type, uint64_t time, const uint64_t *v,
                      int nvals)
{
    uint8_t *p = t->hot.pos;
    if (time < t->hot.last)
        time = t->hot.last;
    *p++ = (uint8_t)type;
    p = ecl_buf_put_uleb(p, time - t->hot.last);
    for (int i = 0; i < nvals; i++)
        p = ecl_buf_put_uleb(p, v[i]);
    ecl_buf_commit(&t->hot, p, time);
}

/* Records the pending flush and lost records into the fresh buffer. */
static void put_pending(ecl_buf_thread *t)
{
    if (t->flush_pending) {
        uint64_t v[3] = { t->flush_t1 - t->flush_t0, t->flush_bytes, t->flush_wait };
        put_uvals(t, ECL_REC_FLUSH, t->flush_t0, v, 3);
        t->flush_pending = 0;
        t->flush_wait = 0;
    }
    if (t->lost > 0) {
        put_uvals(t, ECL_REC_LOST, t->virt ? t->hot.last : ecl_sys_clock_now(), &t->lost, 1);
        t->lost = 0;
    }
}

static void write_taken(ecl_buf *b, int compressed, ecc_zctx *z);
static void queue_take_handed(void);

/* Takes b, which follows prev (NULL: b is the head), out of the queue of
 * handed-off buffers; under queue_lock. */
static void queue_unlink(ecl_buf *prev, ecl_buf *b)
{
    if (prev != NULL)
        prev->handed_next = b->handed_next;
    else
        ecl_T.queue_head = b->handed_next;
    if (ecl_T.queue_tail == b)
        ecl_T.queue_tail = prev;
}

/* A thread out of buffers writes its oldest handed-off buffer itself, as it
 * is (compressed if a compressor finished it), rather than wait for the
 * writer thread to be scheduled: when every earlier chunk of its stream is
 * in the file and nobody writes this one yet. 1 if it freed a buffer. */
static int write_own(ecl_buf_thread *t)
{
    ecl_buf *b = NULL;
    for (unsigned i = 0; i < t->nbuf; i++) {
        ecl_buf *c = &t->bufs[i];
        if ((TAKEABLE >> bstate(c) & 1) && (b == NULL || c->seq < b->seq))
            b = c;
    }
    if (b == NULL || __atomic_load_n(&t->write_seq, __ATOMIC_ACQUIRE) != b->seq)
        return 0;
    /* Out of the writer's queue first: its link is reused when the buffer
     * is handed off again. A takeable buffer is always in the queue. */
    pthread_mutex_lock(&ecl_T.queue_lock);
    queue_take_handed();
    ecl_buf *prev = NULL, *q = ecl_T.queue_head;
    while (q != NULL && q != b) {
        prev = q;
        q = q->handed_next;
    }
    uint64_t v = __atomic_load_n(&b->sg, __ATOMIC_ACQUIRE);
    int st = (int)(v & ST_MASK);
    int ok = q == b && (TAKEABLE >> st & 1) && bswap(b, v, ECL_BUF_WRITING);
    if (ok)
        queue_unlink(prev, b);
    pthread_mutex_unlock(&ecl_T.queue_lock);
    if (ok) {
        write_taken(b, st == ECL_BUF_COMPRESSED, NULL);
        ecl_trace_wake_writer();     /* the writer may write the next one now */
    }
    return ok;
}

/* A thread without buffers tries again to allocate them after this many
 * dropped records (an allocation that fails costs system calls). */
#define RETRY_ALLOC_EVERY 4096

/* Gets a FREE buffer: waits for the writer (lossless) unless dropping or
 * without buffers (out of memory). */
static int acquire(ecl_buf_thread *t)
{
    uint64_t w0 = 0;
    int ok;
    if (t->nbuf == 0 && (t->lost % RETRY_ALLOC_EVERY != 0 || alloc_buffers(t) == 0))
        return 0;
    for (;;) {
        if ((ok = take_free(t)) != 0)
            break;
        if (ecl_T.cfg.drop_when_full || trace_state() != ECL_T_OPEN)
            break;
        /* No free buffer: a wait, whether the thread writes a buffer itself
         * or blocks until the writer has written one. */
        if (w0 == 0) {
            w0 = ecl_sys_clock_now() | 1;    /* nonzero: "waiting" */
            __atomic_fetch_add(&ecl_T.st_waits, 1, __ATOMIC_RELAXED);
        }
        if (write_own(t))
            continue;
        /* the writer writes this thread's buffers now, compressed or not */
        __atomic_store_n(&t->urgent, 1, __ATOMIC_RELEASE);
        ecl_trace_wake_writer();
        wait_for_writer();
    }
    __atomic_store_n(&t->urgent, 0, __ATOMIC_RELEASE);
    if (w0 != 0) {
        /* Every wait goes into the trace as the `wait` of a flush record
         * (at least 1 tick), so that counting flush records with a nonzero
         * wait gives st_waits. A location's flush record has no duration:
         * its records carry times of the past. */
        uint64_t w1 = ecl_sys_clock_now();
        t->flush_wait += w1 > w0 ? w1 - w0 : 1;
        if (!t->flush_pending) {
            t->flush_pending = 1;
            t->flush_t0 = t->virt ? t->hot.last : w0;
            t->flush_t1 = t->virt ? t->flush_t0 : 0;   /* 0: the caller sets the end */
            t->flush_bytes = 0;
        }
    }
    return ok;
}

ecl_buf_hot *ecl_buf_slow(size_t need)
{
    if (!__atomic_load_n(&ecl_buf_active, __ATOMIC_RELAXED) || need > ecl_buf_record_max)
        return NULL;
    ecl_buf_thread *t = self_thread();
    if (t == NULL) {
        if (ecl_buf_in_tool)
            return NULL;
        ecl_buf_in_tool++;
        t = register_thread();
        ecl_buf_in_tool--;
        if (t == NULL)
            return NULL;
        if ((size_t)((uintptr_t)t->hot.end - (uintptr_t)t->hot.pos) >= need)
            return &t->hot;
    }

    ecl_buf_in_tool++;
    busy_lock(t);
    ecl_buf_hot *ret = NULL;
    if (trace_state() != ECL_T_OPEN)
        goto out;
    if (t->cur >= 0) {
        if ((size_t)((uintptr_t)t->hot.end - (uintptr_t)t->hot.pos) >= need) {
            ret = &t->hot;
            goto out;
        }
        t->flush_t0 = ecl_sys_clock_now();
        t->flush_bytes = (uint64_t)(t->hot.pos - filling_start(t));
        handoff(t, 0);
        ecl_trace_wake_writer();
        /* A location's records carry times of the past: a flush record at
         * now would push the next ones to now. */
        t->flush_pending = !t->virt;
        t->flush_t1 = 0;
    }
    if (!acquire(t)) {
        if (t->flush_pending && t->flush_t1 == 0)
            t->flush_t1 = ecl_sys_clock_now();
        t->lost++;
        __atomic_fetch_add(&ecl_T.st_lost, 1, __ATOMIC_RELAXED);
        if (t->nbuf == 0)        /* it got no buffer memory (of the lost, counted apart) */
            __atomic_fetch_add(&ecl_T.st_lost_unbuffered, 1, __ATOMIC_RELAXED);
        goto out;
    }
    if (t->flush_pending && t->flush_t1 == 0)
        t->flush_t1 = ecl_sys_clock_now();
    put_pending(t);
    ret = &t->hot;
out:
    busy_unlock(t);
    ecl_buf_in_tool--;
    return ret;
}

/* Waits until every chunk handed off by t is in the file (or writing stopped). */
static void wait_written(ecl_buf_thread *t)
{
    if (__atomic_load_n(&t->write_seq, __ATOMIC_ACQUIRE) >= t->next_seq)
        return;
    __atomic_store_n(&t->urgent, 1, __ATOMIC_RELEASE);  /* no waiting for compressors */
    ecl_trace_wake_writer();
    while (__atomic_load_n(&t->write_seq, __ATOMIC_ACQUIRE) < t->next_seq &&
           trace_state() == ECL_T_OPEN && __atomic_load_n(&ecl_T.writer_running, __ATOMIC_ACQUIRE))
        wait_for_writer();
    __atomic_store_n(&t->urgent, 0, __ATOMIC_RELEASE);
}

ecl_core_status ecl_buf_flush(void)
{
    ecl_buf_thread *t = self_thread();
    if (trace_state() != ECL_T_OPEN)
        return ECL_CORE_ESTATE;
    if (t == NULL || t->cur < 0 || t->hot.count == 0)
        return ECL_CORE_OK;
    ecl_buf_in_tool++;
    busy_lock(t);
    if (t->cur < 0 || trace_state() != ECL_T_OPEN) {
        busy_unlock(t);              /* a close took the buffer meanwhile */
        ecl_buf_in_tool--;
        return trace_state() == ECL_T_OPEN ? ECL_CORE_OK : ECL_CORE_ESTATE;
    }
    t->flush_t0 = ecl_sys_clock_now();
    t->flush_bytes = (uint64_t)(t->hot.pos - filling_start(t));
    handoff(t, 0);
    busy_unlock(t);
    ecl_trace_wake_writer();
    wait_written(t);
    busy_lock(t);
    t->flush_t1 = ecl_sys_clock_now();
    t->flush_pending = 1;
    if (t->cur < 0 && trace_state() == ECL_T_OPEN && acquire(t))
        put_pending(t);
    busy_unlock(t);
    ecl_buf_in_tool--;
    return trace_state() == ECL_T_OPEN ? ECL_CORE_OK : ECL_CORE_EIO;
}

/* ---------------- the writer's side ---------------- */

/* Writes records of t's stream as one chunk, stored as they are (the close,
 * crash and exec paths; async-signal-safe then if in_signal). */
static void write_chunk(ecl_buf_thread *t, const uint8_t *data, uint32_t len, uint32_t count,
                        uint64_t seq, uint64_t first, uint64_t last, int in_signal)
{
    ecl_chunk_info ci;
    memset(&ci, 0, sizeof ci);
    ci.kind = ECC_KIND_RECORDS;
    ci.compression = ECC_COMP_NONE;
    ci.stored_length = ci.raw_length = len;
    ci.process = __atomic_load_n(&ecl_T.process, __ATOMIC_RELAXED);
    ci.stream = t->stream;
    ci.record_count = count;
    ci.sequence = seq;
    ci.first_time = first;
    ci.last_time = last;
    ecl_chunk_write(&ci, data, in_signal);
}

/* ---------------- the writer and the compressors ----------------
 * One writer thread writes every handed-off buffer; with compression, a pool
 * of compressor threads compresses them first. Compressors run at the
 * lowest scheduling priority (SCHED_IDLE): they use only cores nobody else
 * wants, so they never take a core from the program. A buffer whose thread
 * needs it back (it has no free buffer left) is written as it is,
 * compressed or not, by the thread itself (write_own) or by the writer: a
 * compressor still busy with it loses it and drops its work. So recording
 * waits only for a write, never for a compressor; with no idle core, chunks
 * are stored raw.
 *
 * The queue holds the buffers handed off and not yet taken by the writer,
 * in hand-off order. The writer goes through it in that order and writes a
 * buffer when it is compressed, when compression is off, when its thread
 * needs it, or at close, and only when every earlier chunk of its stream is
 * in the file (t->write_seq); a buffer it cannot write yet holds back the
 * later buffers of its thread only, so each stream's chunks reach the file
 * in sequence order and no thread waits for another's compression.
 * Compressors take the oldest buffer nobody compresses yet; when they are
 * all busy and work is left, one more starts, up to compressors_max. */

static void *writer_main(void *arg);
static void *compressor_main(void *arg);

static int compressing(void)
{
    return ecl_T.cfg.compress != ECL_COMPRESS_NONE;
}

/* Starts one more compressor; queue_lock held. 0 or an errno value. */
static int compressor_spawn(void)
{
    if (ecl_T.compressors >= ecl_T.compressors_max)
        return EAGAIN;
    int e = pthread_create(&ecl_T.compressor[ecl_T.compressors], NULL, compressor_main, NULL);
    if (e == 0)
        ecl_T.compressors++;
    return e;
}

/* Moves the handed-off list (newest first) to the queue's tail, oldest
 * first; queue_lock held. */
static void queue_take_handed(void)
{
    ecl_buf *b = __atomic_exchange_n(&ecl_T.handed, NULL, __ATOMIC_ACQUIRE), *oldest = NULL;
    if (b == NULL)
        return;
    ecl_buf *newest = b;
    while (b != NULL) {
        ecl_buf *next = b->handed_next;
        b->handed_next = oldest;
        oldest = b;
        b = next;
    }
    if (ecl_T.queue_tail != NULL)
        ecl_T.queue_tail->handed_next = oldest;
    else
        ecl_T.queue_head = oldest;
    ecl_T.queue_tail = newest;
    newest->handed_next = NULL;
}

/* Writes a buffer taken (WRITING) by the writer: its compressed bytes when
 * a compressor finished it and compress is set, else its raw bytes
 * compressed now with z (at close) or as they are (z NULL). Then frees it. */
static void write_taken(ecl_buf *b, int compressed, ecc_zctx *z)
{
    ecl_buf_thread *t = b->owner;
    int s = trace_state();
    if (s == ECL_T_OPEN || s == ECL_T_CLOSING) {
        ecl_chunk_info ci;
        const uint8_t *out = b->data + b->off;
        memset(&ci, 0, sizeof ci);
        ci.kind = ECC_KIND_RECORDS;
        ci.raw_length = ci.stored_length = b->len;
        if (compressed && b->zmethod != ECC_COMP_NONE) {
            out = b->zout;
            ci.stored_length = b->zlen;
            ci.compression = b->zmethod;
        } else if (z != NULL) {
            ci.stored_length = (uint32_t)ecc_compress(z, b->data + b->off, b->len, &out,
                                                      &ci.compression);
        }
        ci.process = __atomic_load_n(&ecl_T.process, __ATOMIC_RELAXED);
        ci.stream = t->stream;
        ci.record_count = b->count;
        ci.sequence = b->seq;
        ci.first_time = b->first_time;
        ci.last_time = b->last_time;
        ecl_chunk_write(&ci, out, 0);
    }
    /* else the trace failed: the buffer is dropped so nobody blocks on it */
    __atomic_store_n(&t->write_seq, b->seq + 1, __ATOMIC_RELEASE);
    bset(b, ECL_BUF_FREE);
    ecl_buf_notify_free();
}

/* One pass of the writer over the queue: writes every buffer it may write
 * now, in queue order. stop: at close. Returns how many it wrote. */
static unsigned writer_pass(int stop, ecc_zctx *z)
{
    unsigned done = 0;
    uint64_t pass = ++ecl_T.writer_passes;
    pthread_mutex_lock(&ecl_T.queue_lock);
    queue_take_handed();
    ecl_buf *prev = NULL, *b = ecl_T.queue_head;
    while (b != NULL) {
        ecl_buf_thread *t = b->owner;
        int s = trace_state();
        if (s == ECL_T_CRASHED)
            break;                   /* the crash handler writes them */
        if (t->writer_pass == pass) {
            prev = b;                /* an earlier buffer of t waits */
            b = b->handed_next;
            continue;
        }
        uint64_t v = __atomic_load_n(&b->sg, __ATOMIC_ACQUIRE);
        int st = (int)(v & ST_MASK), take = 0, compressed = 0;
        ecc_zctx *zz = NULL;
        if (__atomic_load_n(&t->write_seq, __ATOMIC_ACQUIRE) != b->seq) {
            /* its thread still writes an earlier chunk itself (write_own) */
        } else if (st == ECL_BUF_COMPRESSED) {
            take = bswap(b, v, ECL_BUF_WRITING);
            compressed = 1;
        } else if (st == ECL_BUF_QUEUED || st == ECL_BUF_COMPRESSING) {
            int urgent = __atomic_load_n(&t->urgent, __ATOMIC_ACQUIRE);
            int failed = s != ECL_T_OPEN && s != ECL_T_CLOSING;
            int alone = ecl_T.compressors == 0;    /* no compressor could start */
            /* Written now: without compression; when its thread waits for it;
             * after a write error (dropped); at close (finalize does not wait
             * for compressors either). Without any compressor the writer
             * compresses itself, as one writer thread did before the pool. */
            int now = !compressing() || urgent || failed || alone || stop;
            if (now && (take = bswap(b, v, ECL_BUF_WRITING)) != 0 && alone && !urgent)
                zz = z;
        }
        if (!take) {
            t->writer_pass = pass;   /* later buffers of t wait for this one */
            prev = b;
            b = b->handed_next;
            continue;
        }
        /* Unlinked under the lock (write_own unlinks too, under the lock). */
        queue_unlink(prev, b);
        pthread_mutex_unlock(&ecl_T.queue_lock);
        write_taken(b, compressed, zz);
        done++;
        pthread_mutex_lock(&ecl_T.queue_lock);
        queue_take_handed();
        /* From the head again: a thread may have taken its own buffers out
         * of the queue meanwhile (write_own), prev among them. Threads held
         * back in this pass are passed over at once. */
        prev = NULL;
        b = ecl_T.queue_head;
    }
    pthread_mutex_unlock(&ecl_T.queue_lock);
    return done;
}

static int queue_empty(void)
{
    pthread_mutex_lock(&ecl_T.queue_lock);
    queue_take_handed();
    int empty = ecl_T.queue_head == NULL;
    pthread_mutex_unlock(&ecl_T.queue_lock);
    return empty;
}

/* The start of ECL's own threads: no signals (the program's handlers run
 * elsewhere), and whatever they call passes ECL's wrappers untraced. */
static void tool_thread(void)
{
    ecl_sys_block_signals();
    ecl_buf_in_tool = 1;
}

static void *writer_main(void *arg)
{
    (void)arg;
    tool_thread();
    /* For the buffers it compresses itself when no compressor could be
     * started. Without a context (no memory) they are stored raw. */
    ecc_zctx *z = compressing() ? ecc_zctx_create(ecl_T.cfg.compress, ecl_T.cfg.compress_level,
                                                  ecl_T.cfg.buffer_size)
                                : NULL;
    for (;;) {
        int stop = __atomic_load_n(&ecl_T.writer_stop, __ATOMIC_ACQUIRE);
        if (writer_pass(stop, z) > 0)
            continue;
        if (trace_state() == ECL_T_CRASHED || (stop && queue_empty()))
            break;
        if (stop) {
            ecl_sys_sleep_ns(100000);    /* a compressor is storing its result */
            continue;
        }
        while (sem_wait(&ecl_T.writer_wake) != 0 && errno == EINTR)
            ;
    }
    ecc_zctx_destroy(z);
    return NULL;
}

/* The oldest queued buffer nobody compresses, now COMPRESSING (its
 * state word in *word, its bytes in *data and *len), or NULL. Starts another compressor when this
 * one takes work and none is left idle. */
static ecl_buf *compressor_next(uint64_t *word, const uint8_t **data, uint32_t *len)
{
    ecl_buf *found = NULL;
    pthread_mutex_lock(&ecl_T.queue_lock);
    queue_take_handed();
    for (ecl_buf *b = ecl_T.queue_head; b != NULL && found == NULL; b = b->handed_next) {
        uint64_t v = __atomic_load_n(&b->sg, __ATOMIC_ACQUIRE);
        if ((v & ST_MASK) == ECL_BUF_QUEUED && bswap(b, v, ECL_BUF_COMPRESSING)) {
            found = b;
            *word = (v & ~(uint64_t)ST_MASK) | ECL_BUF_COMPRESSING;
            /* read now: once the buffer is taken from the compressor, its
             * thread may reuse or give back the memory (never freed while
             * the trace is open, so reading it stays harmless) */
            *data = b->data + b->off;
            *len = b->len;
        }
    }
    if (found != NULL && ecl_T.compressors_idle == 0 &&
        !__atomic_load_n(&ecl_T.writer_stop, __ATOMIC_ACQUIRE))
        compressor_spawn();      /* failing is no error: the running ones go on */
    pthread_mutex_unlock(&ecl_T.queue_lock);
    return found;
}

static void *compressor_main(void *arg)
{
    (void)arg;
    tool_thread();
    if (!ecl_T.cfg.compress_normal)
        ecl_sys_thread_idle_priority();  /* refused: it competes like any thread */
    ecc_zctx *z = ecc_zctx_create(ecl_T.cfg.compress, ecl_T.cfg.compress_level,
                                  ecl_T.cfg.buffer_size);
    /* a compressed chunk is smaller than its buffer (else it is stored raw) */
    size_t cap = ecl_T.cfg.buffer_size;
    for (;;) {
        uint64_t word;
        const uint8_t *data;
        uint32_t len;
        ecl_buf *b = z != NULL ? compressor_next(&word, &data, &len) : NULL;
        if (b == NULL) {
            if (z == NULL || __atomic_load_n(&ecl_T.writer_stop, __ATOMIC_ACQUIRE) ||
                trace_state() == ECL_T_CRASHED)
                break;
            pthread_mutex_lock(&ecl_T.queue_lock);
            ecl_T.compressors_idle++;
            pthread_mutex_unlock(&ecl_T.queue_lock);
            while (sem_wait(&ecl_T.compress_wake) != 0 && errno == EINTR)
                ;
            pthread_mutex_lock(&ecl_T.queue_lock);
            ecl_T.compressors_idle--;
            pthread_mutex_unlock(&ecl_T.queue_lock);
            continue;
        }
        /* The bytes may be taken from us and reused meanwhile (the thread
         * needed its buffer): then the result is dropped below. */
        const uint8_t *out;
        uint8_t method;
        size_t n = ecc_compress(z, data, len, &out, &method);
        if (!bswap(b, word, ECL_BUF_HANDING))
            continue;                /* taken: the writer wrote it raw */
        if (method != ECC_COMP_NONE && b->zout == NULL)
            b->zout = malloc(cap);
        if (b->zout == NULL || method == ECC_COMP_NONE || n >= cap) {
            b->zmethod = ECC_COMP_NONE;
        } else {
            memcpy(b->zout, out, n);
            b->zlen = (uint32_t)n;
            b->zmethod = method;
        }
        bset(b, ECL_BUF_COMPRESSED);
        sem_post(&ecl_T.writer_wake);
    }
    ecc_zctx_destroy(z);
    return NULL;
}

int ecl_buf_writers_start(void)
{
    unsigned max = ecl_T.cfg.compress_threads;
    if (max == 0)
        max = ecl_sys_cpu_count();
    ecl_T.compressors_max = !compressing() ? 0 : max > ECL_COMPRESSORS_MAX ? ECL_COMPRESSORS_MAX : max;
    ecl_T.compressors = ecl_T.compressors_idle = 0;
    ecl_T.writer_stop = 0;
    if (sem_init(&ecl_T.compress_wake, 0, 0) != 0)
        return errno;
    __atomic_store_n(&ecl_T.writer_running, 1, __ATOMIC_RELEASE);
    int e = pthread_create(&ecl_T.writer, NULL, writer_main, NULL);
    if (e != 0) {
        __atomic_store_n(&ecl_T.writer_running, 0, __ATOMIC_RELEASE);
        return e;
    }
    pthread_mutex_lock(&ecl_T.queue_lock);
    if (compressing())
        compressor_spawn();      /* none: the writer compresses (as one thread did) */
    pthread_mutex_unlock(&ecl_T.queue_lock);
    return 0;
}

void ecl_buf_writers_stop(void)
{
    __atomic_store_n(&ecl_T.writer_stop, 1, __ATOMIC_RELEASE);
    /* No compressor starts once stop is seen under the lock; each one
     * finishes what it holds and ends when nothing is queued. */
    pthread_mutex_lock(&ecl_T.queue_lock);
    unsigned n = ecl_T.compressors;
    pthread_mutex_unlock(&ecl_T.queue_lock);
    for (unsigned i = 0; i < n; i++)
        sem_post(&ecl_T.compress_wake);
    sem_post(&ecl_T.writer_wake);
    pthread_join(ecl_T.writer, NULL);
    /* Not joined: a compressor starved of cores (SCHED_IDLE) may take long
     * to finish the buffer it holds, and finalize must not wait for it.
     * The writer took every buffer from the compressors, so what they
     * finish is dropped; they touch only ECL's static state, their own
     * context and buffer memory, none of which is ever freed, and end. */
    for (unsigned i = 0; i < n; i++)
        pthread_detach(ecl_T.compressor[i]);
    /* compress_wake stays: a late ecl_trace_wake_writer may still post it */
    __atomic_store_n(&ecl_T.writer_running, 0, __ATOMIC_RELEASE);
}


/* Writes the committed records of t's FILLING buffer that are not in the
 * file yet as one chunk, without touching the owner's pointers (a record may
 * be in flight): the owner goes on filling the buffer and later hands off
 * only what follows. Caller holds busy. */
static void write_filling(ecl_buf_thread *t, int in_signal)
{
    if (t->cur < 0)
        return;
    ecl_buf *b = &t->bufs[t->cur];
    uint8_t *start = filling_start(t), *pos = __atomic_load_n(&t->hot.pos, __ATOMIC_ACQUIRE);
    uint32_t count;
    uint64_t last;
    size_t len = ecl_chunk_scan(start, (size_t)(pos - start), t->cur_first, &count, &last);
    if (count == 0)
        return;
    write_chunk(t, start, (uint32_t)len, count, t->next_seq++, t->cur_first, last, in_signal);
    b->off += (uint32_t)len;
    b->done_count += count;
    t->cur_first = last;
    __atomic_store_n(&t->write_seq, t->next_seq, __ATOMIC_RELEASE);
}

static void crash_collect(ecl_buf_thread *t)
{
    /* Let the chunks the writer is writing land first (bounded: the writer
     * may itself be stuck), so that the stream stays in order. */
    for (int spin = 0; spin < 500; spin++) {
        int writing = 0;
        for (unsigned i = 0; i < t->nbuf; i++) {
            int st = bstate(&t->bufs[i]);
            writing |= st == ECL_BUF_WRITING || st == ECL_BUF_HANDING;
        }
        if (!writing)
            break;
        ecl_sys_sleep_ns(1000000);
    }
    /* Then every handed-off buffer, oldest first, as it is (raw). */
    for (;;) {
        ecl_buf *b = NULL;
        for (unsigned i = 0; i < t->nbuf; i++) {
            ecl_buf *c = &t->bufs[i];
            if ((TAKEABLE >> bstate(c) & 1) && (b == NULL || c->seq < b->seq))
                b = c;
        }
        if (b == NULL)
            break;
        if (!btake(b, TAKEABLE))
            continue;
        write_chunk(t, b->data + b->off, b->len, b->count, b->seq, b->first_time, b->last_time,
                    1);
        __atomic_store_n(&t->write_seq, b->seq + 1, __ATOMIC_RELEASE);
        bset(b, ECL_BUF_FREE);
    }
    /* The FILLING buffer, unless the interrupted code is this thread's own
     * slow path (busy held: its pointers may be half updated). */
    if (!busy_try(t))
        return;
    write_filling(t, 1);
    /* busy stays held: nothing may touch this thread's buffers any more. */
}

void ecl_buf_collect_all(int in_signal)
{
    for (ecl_buf_thread *t = __atomic_load_n(&ecl_T.threads, __ATOMIC_ACQUIRE); t != NULL;
         t = t->next) {
        if (!__atomic_load_n(&t->alive, __ATOMIC_ACQUIRE))
            continue;                /* an exited thread flushed itself */
        if (in_signal) {
            crash_collect(t);
            continue;
        }
        busy_lock(t);
        handoff(t, t != self_thread());
        busy_unlock(t);
    }
    if (!in_signal)
        ecl_trace_wake_writer();
}

/* pthread key destructor: the thread's last records go to the file before
 * its buffers return to the pool for threads created later. */
void ecl_buf_thread_exit(void *arg)
{
    ecl_buf_thread *t = arg;
    if (t == NULL)
        return;
    ecl_buf_in_tool++;
    busy_lock(t);
    int open = trace_state() == ECL_T_OPEN;
    if (open)
        handoff(t, 0);
    busy_unlock(t);
    if (open) {
        ecl_trace_wake_writer();
        wait_written(t);
        /* Records dropped at the end still have to be counted in the trace. */
        if (t->lost > 0 || t->flush_pending) {
            busy_lock(t);
            if (trace_state() == ECL_T_OPEN && take_free(t)) {
                put_pending(t);
                handoff(t, 0);
            }
            busy_unlock(t);
            ecl_trace_wake_writer();
            wait_written(t);
        }
    }
    int all_free = 1;
    for (unsigned i = 0; i < t->nbuf; i++)
        all_free &= bstate(&t->bufs[i]) == ECL_BUF_FREE;
    busy_lock(t);
    __atomic_store_n(&t->alive, 0, __ATOMIC_RELEASE);
    if (all_free && open && trace_state() == ECL_T_OPEN) {
        for (unsigned i = 0; i < t->nbuf; i++) {
            pool_put(t->bufs[i].data);
            t->bufs[i].data = NULL;
        }
        t->nbuf = 0;
    }
    busy_unlock(t);
    ecl_buf_self = &no_buffer;
    ecl_buf_in_tool--;
}

/* Writes t's pending flush and lost records (of a thread without a buffer)
 * as one small chunk. Caller holds busy. */
static void write_pending(ecl_buf_thread *t)
{
    uint8_t rec[64], *p = rec;
    if (t->lost == 0 && !t->flush_pending)
        return;
    uint64_t first = t->hot.last, time = first;
    if (t->flush_pending) {
        uint64_t t1 = t->flush_t1 ? t->flush_t1 : t->flush_t0;
        time = t->flush_t0 > first ? t->flush_t0 : first;
        *p++ = ECL_REC_FLUSH;
        p = ecl_buf_put_uleb(p, time - first);
        p = ecl_buf_put_uleb(p, t1 - t->flush_t0);
        p = ecl_buf_put_uleb(p, t->flush_bytes);
        p = ecl_buf_put_uleb(p, t->flush_wait);
    }
    uint32_t count = t->flush_pending ? 1 : 0;
    if (t->lost > 0) {
        uint64_t now = ecl_sys_clock_now();
        if (now < time)
            now = time;
        *p++ = ECL_REC_LOST;
        p = ecl_buf_put_uleb(p, now - time);
        p = ecl_buf_put_uleb(p, t->lost);
        time = now;
        count++;
    }
    t->lost = 0;
    t->flush_pending = 0;
    t->flush_wait = 0;
    write_chunk(t, rec, (uint32_t)(p - rec), count, t->next_seq++, first, time, 0);
    __atomic_store_n(&t->write_seq, t->next_seq, __ATOMIC_RELEASE);
}

void ecl_buf_write_pending(void)
{
    for (ecl_buf_thread *t = __atomic_load_n(&ecl_T.threads, __ATOMIC_ACQUIRE); t != NULL;
         t = t->next) {
        busy_lock(t);
        write_pending(t);
        busy_unlock(t);
    }
    uint64_t n = __atomic_exchange_n(&ecl_T.lost_nostream, 0, __ATOMIC_ACQ_REL);
    if (n > 0) {
        uint8_t rec[16], *p = rec;
        *p++ = ECL_REC_LOST;
        *p++ = 0;                    /* time delta: the chunk's first_time is now */
        p = ecl_buf_put_uleb(p, n);
        pthread_mutex_lock(&ecl_T.def_lock);
        ecl_trace_write_def(rec, (size_t)(p - rec), ecl_sys_clock_now());
        pthread_mutex_unlock(&ecl_T.def_lock);
    }
}

void ecl_buf_flush_all(void)
{
    ecl_buf_in_tool++;
    for (ecl_buf_thread *t = __atomic_load_n(&ecl_T.threads, __ATOMIC_ACQUIRE); t != NULL;
         t = t->next) {
        busy_lock(t);
        /* Its handed-off buffers first, so that the stream stays in order;
         * holding busy, the owner cannot hand off more meanwhile. */
        ecl_trace_wake_writer();
        wait_written(t);
        if (trace_state() == ECL_T_OPEN) {
            write_filling(t, 0);
            if (t->cur < 0)
                write_pending(t);    /* no buffer (dropping, exited): its count so far */
        }
        busy_unlock(t);
    }
    ecl_buf_in_tool--;
}

uint32_t ecl_buf_stream_self(void)
{
    ecl_buf_thread *t = self_thread();
    if (t == NULL && ecl_buf_slow(ECL_BUF_SMALL) != NULL)
        t = self_thread();
    return t != NULL ? t->stream : 0;
}
