/* requests.c -- ECL MPI profiling layer: requests. What a nonblocking or
 * persistent call created (kind, peer, tag, communicator, bytes) is kept in a
 * lock-free table keyed by the request handle, so that the Wait and Test
 * wrappers can write one mpi_complete record per completed request with the
 * actual source, tag and size of a receive from its status, and Start can
 * write mpi_started. Any thread may complete a request another created.
 *
 * The table: open addressing over a fixed array; a slot's key moves
 * EMPTY -> BUSY -> handle -> BUSY -> TOMB -> BUSY -> handle ... by CAS, so
 * one thread at a time fills or empties a slot; readers copy a slot and check
 * its key again. A key lives within PROBE slots of its hash; a request that
 * finds no free slot there is not tracked (its completion is recorded with
 * kind "unknown") and counted. Slots never return to EMPTY, so a lookup of a
 * missing handle costs at most PROBE loads. */
#include <config.h>

#include "ecl/mpi/mpi-internal.h"

#include <stdlib.h>

#define REQ_BITS 14
#define REQ_SLOTS (1u << REQ_BITS)
#define REQ_PROBE 64

enum { KEY_EMPTY = 0, KEY_BUSY = 1, KEY_TOMB = 2 };

typedef struct req_info {
    uint64_t id;
    const ecl_mpi_comm *ci;      /* to translate a receive's source; may be NULL */
    int64_t peer, tag;
    uint64_t bytes;
    uint32_t comm;
    uint8_t kind, persistent, cancelled;
    uint8_t active;              /* persistent: started and not yet completed */
    MPI_Comm newcomm;            /* kind COMM: the communicator MPI_Comm_idup makes */
} req_info;

typedef struct req_slot {
    uintptr_t key;
    req_info info;
} req_slot;

static req_slot req_tab[REQ_SLOTS];
static uint64_t req_next = 1;
static uint64_t req_untracked;

static size_t req_hash(uintptr_t k)
{
    return (size_t)(((uint64_t)k >> 3) * 0x9E3779B97F4A7C15ull >> (64 - REQ_BITS));
}

static int req_insert(uintptr_t key, const req_info *ri)
{
    size_t h = req_hash(key);
    for (size_t i = 0; i < REQ_PROBE; i++) {
        req_slot *s = &req_tab[(h + i) & (REQ_SLOTS - 1)];
        uintptr_t k = __atomic_load_n(&s->key, __ATOMIC_RELAXED);
        if ((k == KEY_EMPTY || k == KEY_TOMB) &&
            __atomic_compare_exchange_n(&s->key, &k, KEY_BUSY, 0, __ATOMIC_ACQUIRE,
                                        __ATOMIC_RELAXED)) {
            s->info = *ri;
            __atomic_store_n(&s->key, key, __ATOMIC_RELEASE);
            return 1;
        }
    }
    __atomic_fetch_add(&req_untracked, 1, __ATOMIC_RELAXED);
    return 0;
}

/* Copies the entry of key into *out; 1 if found. */
static int req_find(uintptr_t key, req_info *out)
{
    size_t h = req_hash(key);
    for (size_t i = 0; i < REQ_PROBE; i++) {
        req_slot *s = &req_tab[(h + i) & (REQ_SLOTS - 1)];
        uintptr_t k = __atomic_load_n(&s->key, __ATOMIC_ACQUIRE);
        if (k == key) {
            *out = s->info;
            /* the copy is good if the slot still holds this key */
            if (__atomic_load_n(&s->key, __ATOMIC_ACQUIRE) == key)
                return 1;
        } else if (k == KEY_EMPTY) {
            return 0;
        }
    }
    return 0;
}

/* Removes key's entry if its id is id (the handle may already belong to a
 * new request created by another thread). Returns 1 if removed. */
static int req_remove(uintptr_t key, uint64_t id)
{
    size_t h = req_hash(key);
    for (size_t i = 0; i < REQ_PROBE; i++) {
        req_slot *s = &req_tab[(h + i) & (REQ_SLOTS - 1)];
        uintptr_t k = __atomic_load_n(&s->key, __ATOMIC_ACQUIRE);
        if (k == key && __atomic_compare_exchange_n(&s->key, &k, KEY_BUSY, 0, __ATOMIC_ACQUIRE,
                                                    __ATOMIC_RELAXED)) {
            if (s->info.id == id) {
                __atomic_store_n(&s->key, KEY_TOMB, __ATOMIC_RELEASE);
                return 1;
            }
            __atomic_store_n(&s->key, key, __ATOMIC_RELEASE);
        } else if (k == KEY_EMPTY) {
            return 0;
        }
    }
    return 0;
}

enum { MARK_CANCELLED, MARK_ACTIVE, MARK_INACTIVE };

/* Sets a flag of key's entry if its id is id. */
static void req_mark(uintptr_t key, uint64_t id, int what)
{
    size_t h = req_hash(key);
    for (size_t i = 0; i < REQ_PROBE; i++) {
        req_slot *s = &req_tab[(h + i) & (REQ_SLOTS - 1)];
        uintptr_t k = __atomic_load_n(&s->key, __ATOMIC_ACQUIRE);
        if (k == key && __atomic_compare_exchange_n(&s->key, &k, KEY_BUSY, 0, __ATOMIC_ACQUIRE,
                                                    __ATOMIC_RELAXED)) {
            if (s->info.id == id) {
                if (what == MARK_CANCELLED)
                    s->info.cancelled = 1;
                else
                    s->info.active = what == MARK_ACTIVE;
            }
            __atomic_store_n(&s->key, key, __ATOMIC_RELEASE);
            return;
        }
        if (k == KEY_EMPTY)
            return;
    }
}

#ifdef OPEN_MPI
/* Open MPI hands out this one completed request for every operation that
 * finished within the call that started it (many at a time may be "pending"
 * under the same handle), so handles alone cannot tell them apart. */
extern char ompi_request_empty __attribute__((weak));
#define SHARED_DONE(r) ((void *)(r) == (void *)&ompi_request_empty && &ompi_request_empty != NULL)
#else
#define SHARED_DONE(r) 0
#endif

static void write_req(uint32_t type, uint64_t id, unsigned kind, int64_t peer, int64_t tag,
                      uint64_t comm, uint64_t bytes, uint64_t flags);

/* A new entry under key (a request's or a message's handle): ri filled but
 * for its id. shared: the handle is the library's shared completed request
 * (not entered; *immediate set, as for ecl_mpi_req_new). */
static uint64_t req_create(uintptr_t key, int shared, req_info *ri, int *immediate)
{
    ri->id = __atomic_fetch_add(&req_next, 1, __ATOMIC_RELAXED);
    ri->cancelled = 0;
    ri->active = 0;
    *immediate = shared && !ri->persistent;
    if (!*immediate)
        req_insert(key, ri);
    return ri->id;
}

uint64_t ecl_mpi_req_new(MPI_Request r, int kind, int persistent, const ecl_mpi_comm *ci,
                         int64_t peer, int64_t tag, uint64_t bytes, int *immediate)
{
    req_info ri = { .ci = ci, .peer = peer, .tag = tag, .bytes = bytes,
                    .comm = ci != NULL ? ci->id : 0, .kind = (uint8_t)kind,
                    .persistent = (uint8_t)persistent };
    *immediate = 0;
    if (r == MPI_REQUEST_NULL)
        return 0;
    return req_create((uintptr_t)r, SHARED_DONE(r), &ri, immediate);
}

/* The entry's comm is the new communicator's id: mpi_complete names it. */
uint64_t ecl_mpi_req_idup(MPI_Request r, const ecl_mpi_comm *parent, MPI_Comm newcomm,
                          uint32_t newid)
{
    int imm = 0;
    req_info ri = { .ci = parent, .peer = -1, .comm = newid, .kind = ECL_MPI_KIND_COMM,
                    .newcomm = newcomm };
    if (r == MPI_REQUEST_NULL)
        return 0;
    uint64_t id = req_create((uintptr_t)r, SHARED_DONE(r), &ri, &imm);
    if (imm) {
        /* done within the call */
        ecl_mpi_comm_dup_done(parent, newcomm, newid);
        write_req(ECL_MPI_REC_COMPLETE, id, ECL_MPI_KIND_COMM, -1, 0, newid, 0,
                  ECL_MPI_DONE_IMMEDIATE);
    }
    return id;
}

uint64_t ecl_mpi_req_id(MPI_Request r)
{
    req_info ri;
    if (r == MPI_REQUEST_NULL || !req_find((uintptr_t)r, &ri))
        return 0;
    return ri.id;
}

uint64_t ecl_mpi_req_cancelled(MPI_Request r)
{
    req_info ri;
    if (r == MPI_REQUEST_NULL || !req_find((uintptr_t)r, &ri))
        return 0;
    req_mark((uintptr_t)r, ri.id, MARK_CANCELLED);
    return ri.id;
}

/* ---------------- matched messages ---------------- */

/* Messages share the request table (a message handle is never a live
 * request's) and the id counter. */
uint64_t ecl_mpi_msg_new(MPI_Message m, const ecl_mpi_comm *ci, int64_t peer, int64_t tag,
                         uint64_t bytes)
{
    int imm = 0;
    req_info ri = { .ci = ci, .peer = peer, .tag = tag, .bytes = bytes,
                    .comm = ci != NULL ? ci->id : 0, .kind = ECL_MPI_KIND_MESSAGE };
    if (m == MPI_MESSAGE_NULL || m == MPI_MESSAGE_NO_PROC)
        return 0;
    return req_create((uintptr_t)m, 0, &ri, &imm);
}

static const ecl_mpi_comm no_comm = { .id = UINT32_MAX };

void ecl_mpi_msg_take(MPI_Message m, ecl_mpi_msg *out)
{
    req_info ri;
    uintptr_t key = (uintptr_t)m;
    out->id = 0;
    out->ci = &no_comm;
    out->peer = m == MPI_MESSAGE_NO_PROC ? ECL_MPI_PEER_NULL : ECL_MPI_PEER_UNKNOWN;
    out->tag = -1;
    out->bytes = 0;
    if (m == MPI_MESSAGE_NULL || m == MPI_MESSAGE_NO_PROC || !req_find(key, &ri) ||
        ri.kind != ECL_MPI_KIND_MESSAGE)
        return;
    req_remove(key, ri.id);
    out->id = ri.id;
    out->ci = ri.ci != NULL ? ri.ci : &no_comm;
    out->peer = ri.peer;
    out->tag = ri.tag;
    out->bytes = ri.bytes;
}

/* ---------------- records ---------------- */

/* One call record: duration, then the fields (u: ULEB, s: SLEB). Inline: it is
 * most of the cost of the cheap calls (MPI_Test on a null request). */
static inline __attribute__((always_inline)) void record_call(uint32_t type, uint64_t t0, uint64_t a, int64_t b, uint64_t c, int n)
{
    ecl_buf_hot *t;
    uint64_t now;
    uint8_t *p = ecl_buf_begin(type, ECL_BUF_HEADER_MAX + 40, &t, &now);
    if (ECL_UNLIKELY(p == NULL))
        return;
    p = ecl_buf_put_uleb(p, now - t0);
    if (n >= 1)
        p = ecl_buf_put_uleb(p, a);
    if (n >= 2)
        p = type == ECL_MPI_REC_WAITANY || type == ECL_MPI_REC_TESTANY ||
                    type == ECL_MPI_REC_WAITSOME || type == ECL_MPI_REC_TESTSOME
                ? ecl_buf_put_sleb(p, b)
                : ecl_buf_put_uleb(p, (uint64_t)b);
    if (n >= 3)
        p = ecl_buf_put_uleb(p, c);
    ecl_buf_commit(t, p, now);
}

/* A request slot as the completion wrappers see it. */
typedef struct req_seen {
    MPI_Request h;
    int known;
    int shared;                  /* the shared completed request: nothing to record */
    req_info ri;
} req_seen;

static void seen_fill(req_seen *s, MPI_Request h)
{
    s->h = h;
    s->shared = h != MPI_REQUEST_NULL && SHARED_DONE(h);
    s->known = h != MPI_REQUEST_NULL && !s->shared && req_find((uintptr_t)h, &s->ri);
}

static void write_req(uint32_t type, uint64_t id, unsigned kind, int64_t peer, int64_t tag,
                      uint64_t comm, uint64_t bytes, uint64_t flags)
{
    ecl_buf_hot *t;
    uint64_t now;
    uint8_t *p = ecl_buf_begin(type, ECL_MPI_REC_COMPLETE_NEED, &t, &now);
    if (ECL_UNLIKELY(p == NULL))
        return;
    p = ecl_buf_put_uleb(p, id);
    p = ecl_buf_put_uleb(p, kind);
    p = ecl_buf_put_sleb(p, peer);
    p = ecl_buf_put_sleb(p, tag);
    p = ecl_buf_put_uleb(p, comm);
    p = ecl_buf_put_uleb(p, bytes);
    if (type == ECL_MPI_REC_COMPLETE)
        p = ecl_buf_put_uleb(p, flags);
    ecl_buf_commit(t, p, now);
}

void ecl_mpi_req_immediate(uint64_t id, int kind, const ecl_mpi_comm *ci, int64_t peer,
                           int64_t tag, uint64_t bytes)
{
    write_req(ECL_MPI_REC_COMPLETE, id, (unsigned)kind, peer, tag, ci != NULL ? ci->id : 0, bytes,
              ECL_MPI_DONE_IMMEDIATE);
}

/* mpi_complete (request kind peer tag comm bytes flags) or mpi_started
 * (without flags). */
static void record_req(uint32_t type, const req_seen *s, const MPI_Status *st, int ok,
                       uint64_t flags)
{
    uint64_t id = 0, comm = 0, bytes = 0;
    int64_t peer = ECL_MPI_PEER_UNKNOWN, tag = -1;
    unsigned kind = ECL_MPI_KIND_UNKNOWN;
    if (s->known) {
        const req_info *ri = &s->ri;
        id = ri->id;
        kind = ri->kind;
        peer = ri->peer;
        tag = ri->tag;
        comm = ri->comm;
        bytes = ri->bytes;
        if (ri->persistent)
            flags |= ECL_MPI_DONE_PERSISTENT;
        if (type == ECL_MPI_REC_COMPLETE && st != NULL) {
            if (ri->cancelled) {
                int c = 0;
                PMPI_Test_cancelled(st, &c);
                if (c)
                    flags |= ECL_MPI_DONE_CANCELLED;
            }
            if (kind == ECL_MPI_KIND_RECV && !(flags & ECL_MPI_DONE_CANCELLED)) {
                peer = ri->ci != NULL ? ecl_mpi_peer(ri->ci, st->MPI_SOURCE)
                                      : ECL_MPI_PEER_UNKNOWN;
                tag = st->MPI_SOURCE == MPI_PROC_NULL ? tag : st->MPI_TAG;
                bytes = ecl_mpi_status_bytes(st);
            } else if (kind == ECL_MPI_KIND_RECV) {
                peer = ECL_MPI_PEER_NULL;   /* cancelled: no message was received */
            } else if (kind == ECL_MPI_KIND_IO) {
                bytes = ecl_mpi_status_bytes(st);
            }
        }
    }
    if (!ok)
        flags |= ECL_MPI_DONE_ERROR;
    write_req(type, id, kind, peer, tag, comm, bytes, flags);
}

/* A request completed (its status is st): record it and drop it from the
 * table unless it is persistent. */
static void completed(const req_seen *s, const MPI_Status *st, int ok)
{
    if (s->h == MPI_REQUEST_NULL || s->shared)
        return;
    if (s->known && !s->ri.persistent)
        req_remove((uintptr_t)s->h, s->ri.id);
    else if (s->known)
        req_mark((uintptr_t)s->h, s->ri.id, MARK_INACTIVE);
    if (s->known && s->ri.kind == ECL_MPI_KIND_COMM && ok)
        ecl_mpi_comm_dup_done(s->ri.ci, s->ri.newcomm, s->ri.comm);
    record_req(ECL_MPI_REC_COMPLETE, s, st, ok, 0);
}

uint64_t ecl_mpi_req_freed(MPI_Request r)
{
    req_seen s;
    seen_fill(&s, r);
    if (!s.known)
        return 0;
    req_remove((uintptr_t)r, s.ri.id);
    /* MPI completes an active request freed so without telling: a receive's
     * message and a send's transfer happen, when is unknown */
    if (!s.ri.persistent || s.ri.active)
        record_req(ECL_MPI_REC_COMPLETE, &s, NULL, 1, ECL_MPI_DONE_UNKNOWN);
    return s.ri.id;
}

/* Whether request i of an array call completed, given the call's result. */
static int done_in(int rc, const MPI_Status *st)
{
    return rc == MPI_SUCCESS || (rc == MPI_ERR_IN_STATUS && st->MPI_ERROR != MPI_ERR_PENDING);
}

/* Per-call scratch for the array calls: on the stack up to SMALL requests,
 * else from the heap (only calls on more than SMALL requests allocate). */
#define SMALL 32

typedef struct scratch {
    req_seen seen_small[SMALL];
    MPI_Status st_small[SMALL];
    req_seen *seen;
    MPI_Status *st;
} scratch;

static int scratch_init(scratch *sc, int n, int need_status)
{
    sc->seen = sc->seen_small;
    sc->st = sc->st_small;
    if (n > SMALL) {
        sc->seen = malloc((size_t)n * sizeof *sc->seen);
        sc->st = need_status ? malloc((size_t)n * sizeof *sc->st) : NULL;
        if (sc->seen == NULL || (need_status && sc->st == NULL)) {
            free(sc->seen);
            free(sc->st);
            return -1;
        }
    }
    return 0;
}

static void scratch_fini(scratch *sc)
{
    if (sc->seen != sc->seen_small)
        free(sc->seen);
    if (sc->st != sc->st_small)
        free(sc->st);
}

/* ---------------- Wait ---------------- */

ECL_MPI_API int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    if (ECL_MPI_PASS(ECL_MPI_G_P2P))
        return PMPI_Wait(request, status);
    req_seen s;
    seen_fill(&s, *request);
    MPI_Status mine, *st = status == MPI_STATUS_IGNORE ? &mine : status;
    uint64_t t0 = ecl_mpi_begin();
    int rc = PMPI_Wait(request, st);
    ecl_mpi_end();
    record_call(ECL_MPI_REC_WAIT, t0, s.known ? s.ri.id : 0, 0, 0, 1);
    completed(&s, st, rc == MPI_SUCCESS);
    return rc;
}

/* MPI_Test on a request that is not the null one: out of line, so that the
 * null request (a polling loop's common case) does not pay for this frame. */
static int __attribute__((noinline)) test_request(MPI_Request *request, int *flag,
                                                  MPI_Status *status)
{
    MPI_Request h = *request;
    req_seen s;
    seen_fill(&s, h);
    MPI_Status mine, *st = status == MPI_STATUS_IGNORE ? &mine : status;
    uint64_t t0 = ecl_mpi_begin();
    int rc = PMPI_Test(request, flag, st);
    ecl_mpi_end();
    record_call(ECL_MPI_REC_TEST, t0, s.known ? s.ri.id : 0, *flag != 0, 0, 2);
    if (*flag)
        completed(&s, st, rc == MPI_SUCCESS);
    return rc;
}

ECL_MPI_API int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    if (ECL_MPI_PASS(ECL_MPI_G_P2P))
        return PMPI_Test(request, flag, status);
    if (*request != MPI_REQUEST_NULL)
        return test_request(request, flag, status);
    /* the null request: nothing to look up or complete */
    uint64_t t0 = ecl_mpi_begin();
    int rc = PMPI_Test(request, flag, status);
    ecl_mpi_end();
    record_call(ECL_MPI_REC_TEST, t0, 0, *flag != 0, 0, 2);
    return rc;
}

ECL_MPI_API int MPI_Waitall(int count, MPI_Request array_of_requests[],
                            MPI_Status array_of_statuses[])
{
    scratch sc;
    int ignore = array_of_statuses == MPI_STATUSES_IGNORE;
    if (ECL_MPI_PASS(ECL_MPI_G_P2P) || count < 0 || scratch_init(&sc, count, ignore) != 0)
        return PMPI_Waitall(count, array_of_requests, array_of_statuses);
    MPI_Status *st = ignore ? sc.st : array_of_statuses;
    for (int i = 0; i < count; i++)
        seen_fill(&sc.seen[i], array_of_requests[i]);
    uint64_t t0 = ecl_mpi_begin();
    int rc = PMPI_Waitall(count, array_of_requests, st);
    ecl_mpi_end();
    record_call(ECL_MPI_REC_WAITALL, t0, (uint64_t)count, 0, 0, 1);
    for (int i = 0; i < count; i++)
        if (done_in(rc, &st[i]))
            completed(&sc.seen[i], &st[i], rc == MPI_SUCCESS || st[i].MPI_ERROR == MPI_SUCCESS);
    scratch_fini(&sc);
    return rc;
}

ECL_MPI_API int MPI_Testall(int count, MPI_Request array_of_requests[], int *flag,
                            MPI_Status array_of_statuses[])
{
    scratch sc;
    int ignore = array_of_statuses == MPI_STATUSES_IGNORE;
    if (ECL_MPI_PASS(ECL_MPI_G_P2P) || count < 0 || scratch_init(&sc, count, ignore) != 0)
        return PMPI_Testall(count, array_of_requests, flag, array_of_statuses);
    MPI_Status *st = ignore ? sc.st : array_of_statuses;
    for (int i = 0; i < count; i++)
        seen_fill(&sc.seen[i], array_of_requests[i]);
    uint64_t t0 = ecl_mpi_begin();
    int rc = PMPI_Testall(count, array_of_requests, flag, st);
    ecl_mpi_end();
    record_call(ECL_MPI_REC_TESTALL, t0, (uint64_t)count, *flag != 0, 0, 2);
    for (int i = 0; *flag && i < count; i++)
        if (done_in(rc, &st[i]))
            completed(&sc.seen[i], &st[i], rc == MPI_SUCCESS || st[i].MPI_ERROR == MPI_SUCCESS);
    scratch_fini(&sc);
    return rc;
}

ECL_MPI_API int MPI_Waitany(int count, MPI_Request array_of_requests[], int *index,
                            MPI_Status *status)
{
    scratch sc;
    if (ECL_MPI_PASS(ECL_MPI_G_P2P) || count < 0 || scratch_init(&sc, count, 0) != 0)
        return PMPI_Waitany(count, array_of_requests, index, status);
    MPI_Status mine, *st = status == MPI_STATUS_IGNORE ? &mine : status;
    for (int i = 0; i < count; i++)
        seen_fill(&sc.seen[i], array_of_requests[i]);
    uint64_t t0 = ecl_mpi_begin();
    int rc = PMPI_Waitany(count, array_of_requests, index, st);
    ecl_mpi_end();
    int k = *index;
    record_call(ECL_MPI_REC_WAITANY, t0, (uint64_t)count, k == MPI_UNDEFINED ? -1 : k, 0, 2);
    if (k != MPI_UNDEFINED && k >= 0 && k < count)
        completed(&sc.seen[k], st, rc == MPI_SUCCESS);
    scratch_fini(&sc);
    return rc;
}

ECL_MPI_API int MPI_Testany(int count, MPI_Request array_of_requests[], int *index, int *flag,
                            MPI_Status *status)
{
    scratch sc;
    if (ECL_MPI_PASS(ECL_MPI_G_P2P) || count < 0 || scratch_init(&sc, count, 0) != 0)
        return PMPI_Testany(count, array_of_requests, index, flag, status);
    MPI_Status mine, *st = status == MPI_STATUS_IGNORE ? &mine : status;
    for (int i = 0; i < count; i++)
        seen_fill(&sc.seen[i], array_of_requests[i]);
    uint64_t t0 = ecl_mpi_begin();
    int rc = PMPI_Testany(count, array_of_requests, index, flag, st);
    ecl_mpi_end();
    int k = *index;
    record_call(ECL_MPI_REC_TESTANY, t0, (uint64_t)count, k == MPI_UNDEFINED ? -1 : k,
                *flag != 0, 3);
    if (*flag && k != MPI_UNDEFINED && k >= 0 && k < count)
        completed(&sc.seen[k], st, rc == MPI_SUCCESS);
    scratch_fini(&sc);
    return rc;
}

/* Waitsome and Testsome: same shape. */
static int some(int test, int incount, MPI_Request reqs[], int *outcount, int indices[],
                MPI_Status statuses[])
{
    scratch sc;
    int ignore = statuses == MPI_STATUSES_IGNORE;
    if (ECL_MPI_PASS(ECL_MPI_G_P2P) || incount < 0 || scratch_init(&sc, incount, ignore) != 0)
        return test ? PMPI_Testsome(incount, reqs, outcount, indices, statuses)
                    : PMPI_Waitsome(incount, reqs, outcount, indices, statuses);
    MPI_Status *st = ignore ? sc.st : statuses;
    for (int i = 0; i < incount; i++)
        seen_fill(&sc.seen[i], reqs[i]);
    uint64_t t0 = ecl_mpi_begin();
    int rc = test ? PMPI_Testsome(incount, reqs, outcount, indices, st)
                  : PMPI_Waitsome(incount, reqs, outcount, indices, st);
    ecl_mpi_end();
    int n = *outcount;
    record_call(test ? ECL_MPI_REC_TESTSOME : ECL_MPI_REC_WAITSOME, t0, (uint64_t)incount,
                n == MPI_UNDEFINED ? -1 : n, 0, 2);
    for (int j = 0; n != MPI_UNDEFINED && j < n; j++) {
        int i = indices[j];
        if (i >= 0 && i < incount && done_in(rc, &st[j]))
            completed(&sc.seen[i], &st[j], rc == MPI_SUCCESS || st[j].MPI_ERROR == MPI_SUCCESS);
    }
    scratch_fini(&sc);
    return rc;
}

ECL_MPI_API int MPI_Waitsome(int incount, MPI_Request array_of_requests[], int *outcount,
                             int array_of_indices[], MPI_Status array_of_statuses[])
{
    return some(0, incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
}

ECL_MPI_API int MPI_Testsome(int incount, MPI_Request array_of_requests[], int *outcount,
                             int array_of_indices[], MPI_Status array_of_statuses[])
{
    return some(1, incount, array_of_requests, outcount, array_of_indices, array_of_statuses);
}

/* ---------------- Start ---------------- */

/* mpi_started is written before the call, at the moment the operation
 * begins, so that a persistent send "begins" no later than its receive
 * completes. */
ECL_MPI_API int MPI_Start(MPI_Request *request)
{
    if (ECL_MPI_PASS(ECL_MPI_G_P2P))
        return PMPI_Start(request);
    req_seen s;
    seen_fill(&s, *request);
    if (s.h != MPI_REQUEST_NULL && !s.shared)
        record_req(ECL_MPI_REC_STARTED, &s, NULL, 1, 0);
    if (s.known)
        req_mark((uintptr_t)s.h, s.ri.id, MARK_ACTIVE);
    uint64_t t0 = ecl_mpi_begin();
    int rc = PMPI_Start(request);
    ecl_mpi_end();
    record_call(ECL_MPI_REC_START, t0, s.known ? s.ri.id : 0, 0, 0, 1);
    return rc;
}

ECL_MPI_API int MPI_Startall(int count, MPI_Request array_of_requests[])
{
    if (ECL_MPI_PASS(ECL_MPI_G_P2P) || count < 0)
        return PMPI_Startall(count, array_of_requests);
    for (int i = 0; i < count; i++) {
        req_seen s;
        seen_fill(&s, array_of_requests[i]);
        if (s.h != MPI_REQUEST_NULL && !s.shared)
            record_req(ECL_MPI_REC_STARTED, &s, NULL, 1, 0);
        if (s.known)
            req_mark((uintptr_t)s.h, s.ri.id, MARK_ACTIVE);
    }
    uint64_t t0 = ecl_mpi_begin();
    int rc = PMPI_Startall(count, array_of_requests);
    ecl_mpi_end();
    record_call(ECL_MPI_REC_STARTALL, t0, (uint64_t)count, 0, 0, 1);
    return rc;
}
