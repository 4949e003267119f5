/* events.c -- the semantic layer under every analysis: the vocabulary of
 * collective operations and one-sided kinds (one X-macro table, pal.h), the
 * member lists of communicators, and the one message matcher with its one
 * key (doc/pal.md, "Messages: the matcher"). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pal/pal.h"
#include "pal/reader-internal.h"   /* pal_reader_borrowed: a share's borrowed definitions */

/* *arr (of *cap elements of elem bytes) grown to hold n, doubling from
 * first; -1 (*arr untouched) when memory runs out. arr is the address of
 * the array's pointer. */
static int grow(void *arr, size_t *cap, size_t n, size_t elem, size_t first)
{
    if (n <= *cap)
        return 0;
    size_t ncap = *cap ? *cap : first;
    while (ncap < n)
        ncap *= 2;
    void *p = realloc(*(void **)arr, ncap * elem);
    if (p == NULL)
        return -1;
    *(void **)arr = p;
    *cap = ncap;
    return 0;
}

/* ---------------- vocabulary ---------------- */
static const char *const coll_names[] = {
#define X(id, name, otf2_op, otf2_role) name,
    PAL_COLLECTIVE_OPS(X)
#undef X
};

const char *pal_coll_op_name(pal_coll_op op)
{
    return (unsigned)op < PAL_COLL_OP_COUNT ? coll_names[op] : NULL;
}

pal_coll_op pal_coll_op_by_name(const char *name)
{
    for (unsigned i = 0; name && i < PAL_COLL_OP_COUNT; i++)
        if (strcmp(coll_names[i], name) == 0)
            return (pal_coll_op)i;
    return PAL_COLL_OP_NONE;
}

static const char *const rma_names[] = {
#define X(id, name, role, otf2) name,
    PAL_RMA_KINDS(X)
#undef X
};
static const pal_record_role rma_roles[] = {
#define X(id, name, role, otf2) PAL_ROLE_##role,
    PAL_RMA_KINDS(X)
#undef X
};

const char *pal_rma_kind_name(pal_rma_kind k)
{
    return (unsigned)k < PAL_RMA_KIND_COUNT ? rma_names[k] : NULL;
}

pal_record_role pal_rma_kind_role(pal_rma_kind k)
{
    return (unsigned)k < PAL_RMA_KIND_COUNT ? rma_roles[k] : PAL_ROLE_NONE;
}

pal_rma_kind pal_rma_kind_of_role(pal_record_role role)
{
    for (unsigned i = 0; i < PAL_RMA_KIND_COUNT; i++)
        if (rma_roles[i] == role)
            return (pal_rma_kind)i;
    return PAL_RMA_KIND_NONE;
}

/* ---------------- member lists ---------------- */
pal_status pal_members_parse(const char *s, size_t len, uint32_t *out, size_t max, size_t *n)
{
    if ((s == NULL && len) || n == NULL)
        return PAL_EINVAL;
    size_t k = 0;
    const char *p = s, *end = s + len;
    *n = 0;
    while (p < end) {
        while (p < end && *p == ' ')
            p++;
        if (p >= end)
            break;
        uint64_t a = 0, b;
        int digits = 0;
        while (p < end && *p >= '0' && *p <= '9' && a <= UINT32_MAX)
            a = a * 10 + (uint64_t)(*p++ - '0'), digits++;
        b = a;
        if (digits && p < end && *p == '-') {
            p++;
            b = 0;
            digits = 0;
            while (p < end && *p >= '0' && *p <= '9' && b <= UINT32_MAX)
                b = b * 10 + (uint64_t)(*p++ - '0'), digits++;
        }
        if (!digits || b < a || b > UINT32_MAX || (p < end && *p != ' '))
            return PAL_EFORMAT;
        if (out == NULL) {   /* counting only */
            k += (size_t)(b - a + 1);
            continue;
        }
        for (uint64_t r = a; r <= b; r++) {
            if (k >= max)
                return PAL_ERANGE;
            out[k++] = (uint32_t)r;
        }
    }
    *n = k;
    return PAL_OK;
}

/* ---------------- hashing ---------------- */
static uint64_t mix(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ULL;
    k ^= k >> 33;
    return k;
}

/* the hash of a group: its world ranks in communicator-rank order */
static uint64_t group_hash(const uint32_t *w, size_t n)
{
    uint64_t h = 1469598103934665603ULL ^ mix(n + 1);
    for (size_t i = 0; i < n; i++)
        h = mix(h ^ w[i]) + 0x9e3779b97f4a7c15ULL;
    return h;
}

/* ---------------- communicators ---------------- */
typedef struct commdef {
    uint64_t key;           /* (process << 32 | id), process PAL_MATCH_ANY_PROCESS: global */
    uint64_t context;       /* equal on every member */
    uint32_t size;
    int used;
} commdef;

/* ---------------- queues ---------------- */
typedef struct mkey {
    uint32_t src, dst;
    int64_t tag;
    uint64_t context;
} mkey;

typedef struct mqueue {
    mkey k;
    int used;
    int side;               /* of the ends waiting */
    pal_msg_end *q;
    size_t head, n, cap;
} mqueue;

typedef struct untimed_end {    /* a receive that completed unseen */
    uint32_t src, dst;
    int any_src, any_tag;
    int64_t tag;
    uint64_t context;
    pal_msg_end end;
} untimed_end;

/* The matcher keeps the queues and contexts that posts found lately in
 * small caches in front of its tables (a run's messages reuse few keys). */
#define QCACHE 256
#define CCACHE 64
typedef struct ccent {
    uint64_t key;               /* (process << 32 | id) as pal_matcher_context looks it up */
    unsigned global;            /* PAL_MATCH_GLOBAL_COMM */
    int used;
    uint64_t context;
} ccent;

struct pal_matcher {
    commdef *comms;
    size_t ccap, ncomms;
    mqueue *qs;
    size_t qcap, nqs;
    mqueue *qcache[QCACHE];     /* by qc_slot; cleared when the queues move */
    ccent ccache[CCACHE];       /* by key; cleared at each definition */
    uint64_t waiting[2];
    untimed_end *un;               /* kept apart until pal_matcher_settle */
    size_t nun, uncap;
};

#define GLOBAL_PROCESS UINT32_MAX

pal_status pal_matcher_create(pal_matcher **out)
{
    if (out == NULL)
        return PAL_EINVAL;
    *out = calloc(1, sizeof **out);
    return *out ? PAL_OK : PAL_ENOMEM;
}

void pal_matcher_destroy(pal_matcher *m)
{
    if (m == NULL)
        return;
    for (size_t i = 0; i < m->qcap; i++)
        free(m->qs[i].q);
    free(m->qs);
    free(m->comms);
    free(m->un);
    free(m);
}

static commdef *comm_slot(commdef *t, size_t cap, uint64_t key)
{
    for (size_t i = mix(key) & (cap - 1);; i = (i + 1) & (cap - 1))
        if (!t[i].used || t[i].key == key)
            return &t[i];
}

static int comm_grow(pal_matcher *m)
{
    if ((m->ncomms + 1) * 2 <= m->ccap)
        return 0;
    size_t ncap = m->ccap ? m->ccap * 2 : 64;
    commdef *t = calloc(ncap, sizeof *t);
    if (t == NULL)
        return -1;
    for (size_t i = 0; i < m->ccap; i++)
        if (m->comms[i].used)
            *comm_slot(t, ncap, m->comms[i].key) = m->comms[i];
    free(m->comms);
    m->comms = t;
    m->ccap = ncap;
    return 0;
}

static pal_status comm_put(pal_matcher *m, uint64_t key, uint64_t context, uint32_t size,
                           int keep)
{
    if (comm_grow(m))
        return PAL_ENOMEM;
    commdef *c = comm_slot(m->comms, m->ccap, key);
    if (c->used && keep)
        return PAL_OK;
    memset(m->ccache, 0, sizeof m->ccache);   /* a context may change */
    if (!c->used)
        m->ncomms++;
    *c = (commdef){key, context, size, 1};
    return PAL_OK;
}

static pal_status define_group(pal_matcher *m, uint32_t process, int64_t id, uint64_t group,
                               uint32_t size)
{
    if (m == NULL || id < 0 || size == 0)
        return PAL_EINVAL;
    /* bit 63 tells a defined communicator's context from an undefined id */
    uint64_t context = group | UINT64_C(1) << 63;
    pal_status st = comm_put(m, (uint64_t)process << 32 | (uint32_t)id, context, size, 0);
    /* the first definition of an id also answers for uses whose ids are
     * the same on every process (PAL_MATCH_GLOBAL_COMM) */
    if (st == PAL_OK)
        st = comm_put(m, (uint64_t)GLOBAL_PROCESS << 32 | (uint32_t)id, context, size, 1);
    return st;
}

pal_status pal_matcher_define_comm(pal_matcher *m, uint32_t process, int64_t id,
                                   const uint32_t *members, size_t n, const uint32_t *remote,
                                   size_t nremote)
{
    if (m == NULL || (members == NULL && n) || (remote == NULL && nremote) || n == 0 ||
        n > UINT32_MAX)
        return PAL_EINVAL;
    uint64_t g = group_hash(members, n);
    if (nremote)   /* an intercommunicator: the same on both sides */
        g ^= group_hash(remote, nremote);
    /* its collectives are called by both groups */
    if (nremote > UINT32_MAX - n)
        return PAL_EINVAL;
    return define_group(m, process, id, g, (uint32_t)(n + nremote));
}

/* the group of a member list as text: its world ranks when they parse to
 * size of them, else the text itself */
static uint64_t text_group(const char *s, size_t len, size_t size)
{
    uint32_t *w = malloc((size ? size : 1) * sizeof *w);
    size_t n = 0;
    uint64_t g;
    if (w && pal_members_parse(s, len, w, size, &n) == PAL_OK && n == size) {
        g = group_hash(w, n);
    } else {
        g = 1469598103934665603ULL;
        for (size_t i = 0; i < len; i++)
            g = (g ^ (unsigned char)s[i]) * 1099511628211ULL;
        g = mix(g ^ size);
    }
    free(w);
    return g;
}

pal_status pal_matcher_define_text(pal_matcher *m, uint32_t process, int64_t id, int64_t size,
                                   const char *members, size_t len, const char *remote,
                                   size_t rlen)
{
    if (m == NULL || (members == NULL && len) || (remote == NULL && rlen) || id < 0 ||
        size <= 0 || size > PAL_MATCH_MAX_MEMBERS)
        return PAL_EINVAL;
    uint64_t g = text_group(members, len, (size_t)size);
    size_t rn = 0;
    if (rlen) {   /* an intercommunicator: the same on both sides */
        if (pal_members_parse(remote, rlen, NULL, 0, &rn) != PAL_OK || rn > PAL_MATCH_MAX_MEMBERS)
            rn = 0;
        g ^= text_group(remote, rlen, rn);
    }
    /* its collectives are called by both groups */
    return define_group(m, process, id, g, (uint32_t)((size_t)size + rn));
}

pal_status pal_matcher_context(const pal_matcher *m, uint32_t process, int64_t id,
                               unsigned flags, uint64_t *context, uint32_t *size)
{
    if (m == NULL || context == NULL)
        return PAL_EINVAL;
    if (flags & PAL_MATCH_GLOBAL_COMM)
        process = GLOBAL_PROCESS;
    if (id >= 0 && m->ccap) {
        const commdef *c = comm_slot(m->comms, m->ccap, (uint64_t)process << 32 | (uint32_t)id);
        if (c->used) {
            *context = c->context;
            if (size)
                *size = c->size;
            return PAL_OK;
        }
    }
    /* undefined: the id itself, in the namespace of its process unless
     * global ids; ids of one process match only that process's (an id the
     * sender and receiver share, as ECL's agreed ones and PICL's absent 0) */
    *context = (uint64_t)(uint32_t)id | (flags & PAL_MATCH_GLOBAL_COMM ? UINT64_C(1) << 32 : 0);
    if (size)
        *size = 0;
    return PAL_EUNDEF;
}

static uint64_t key_hash(const mkey *k)
{
    return mix((uint64_t)k->src << 32 ^ k->dst) ^ mix((uint64_t)k->tag ^ mix(k->context));
}

static mqueue *q_slot(mqueue *t, size_t cap, const mkey *k)
{
    for (size_t i = key_hash(k) & (cap - 1);; i = (i + 1) & (cap - 1))
        if (!t[i].used || (t[i].k.src == k->src && t[i].k.dst == k->dst &&
                           t[i].k.tag == k->tag && t[i].k.context == k->context))
            return &t[i];
}

static mqueue *q_get(pal_matcher *m, const mkey *k)
{
    if ((m->nqs + 1) * 2 > m->qcap) {
        size_t ncap = m->qcap ? m->qcap * 2 : 64;
        mqueue *t = calloc(ncap, sizeof *t);
        if (t == NULL)
            return NULL;
        for (size_t i = 0; i < m->qcap; i++)
            if (m->qs[i].used)
                *q_slot(t, ncap, &m->qs[i].k) = m->qs[i];
        free(m->qs);
        m->qs = t;
        m->qcap = ncap;
        memset(m->qcache, 0, sizeof m->qcache);   /* the queues moved */
    }
    mqueue *q = q_slot(m->qs, m->qcap, k);
    if (!q->used) {
        memset(q, 0, sizeof *q);
        q->k = *k;
        q->used = 1;
        m->nqs++;
    }
    return q;
}

pal_status pal_matcher_key(const pal_matcher *m, int side, uint32_t process, int64_t peer,
                           int64_t tag, int64_t comm_id, unsigned flags, pal_msg_key *key)
{
    if (m == NULL || key == NULL || (side != PAL_MATCH_SEND && side != PAL_MATCH_RECV) ||
        peer < 0 || peer > UINT32_MAX)
        return PAL_EINVAL;
    key->src = side == PAL_MATCH_SEND ? process : (uint32_t)peer;
    key->dst = side == PAL_MATCH_SEND ? (uint32_t)peer : process;
    key->tag = tag < 0 ? 0 : tag;
    pal_status st = pal_matcher_context(m, process, comm_id, flags, &key->context, NULL);
    return st == PAL_EUNDEF ? PAL_OK : st;
}

static inline size_t qc_slot(const mkey *k)
{
    uint64_t h = ((uint64_t)k->src << 32 | k->dst) * 0x9e3779b97f4a7c15ULL ^
                 (uint64_t)k->tag * 0xc2b2ae3d27d4eb4fULL ^ k->context * 0x165667b19e3779f9ULL;
    return (size_t)(h >> 56) & (QCACHE - 1);
}

/* pal_matcher_context of a post, through the cache */
static uint64_t post_context(pal_matcher *m, uint32_t process, int64_t id, unsigned flags)
{
    uint64_t context;
    if (id < 0) {   /* never looked up */
        pal_matcher_context(m, process, id, flags, &context, NULL);
        return context;
    }
    unsigned global = flags & PAL_MATCH_GLOBAL_COMM;
    uint64_t key = (uint64_t)(global ? GLOBAL_PROCESS : process) << 32 | (uint32_t)id;
    /* both halves mixed: the ids of a run are few and small, its processes many */
    uint32_t h = ((uint32_t)(key >> 32) * 0x9E3779B1u ^ (uint32_t)key) * 0x85EBCA77u;
    ccent *c = &m->ccache[(h >> 26) & (CCACHE - 1)];
    if (c->used && c->key == key && c->global == global)
        return c->context;
    pal_matcher_context(m, process, id, flags, &context, NULL);
    *c = (ccent){key, global, 1, context};
    return context;
}

pal_status pal_matcher_post(pal_matcher *m, int side, int64_t peer, int64_t tag,
                            int64_t comm_id, unsigned flags, const pal_msg_end *end,
                            pal_msg_end *partner)
{
    if (m == NULL || end == NULL || partner == NULL ||
        (side != PAL_MATCH_SEND && side != PAL_MATCH_RECV) || peer < 0 || peer > UINT32_MAX)
        return PAL_EINVAL;
    /* the key, as pal_matcher_key makes it */
    mkey k = {side == PAL_MATCH_SEND ? end->process : (uint32_t)peer,
              side == PAL_MATCH_SEND ? (uint32_t)peer : end->process, tag < 0 ? 0 : tag,
              post_context(m, end->process, comm_id, flags)};
    size_t slot = qc_slot(&k);
    mqueue *q = m->qcache[slot];
    if (q == NULL || q->k.src != k.src || q->k.dst != k.dst || q->k.tag != k.tag ||
        q->k.context != k.context) {
        if ((q = q_get(m, &k)) == NULL)
            return PAL_ENOMEM;
        m->qcache[slot] = q;   /* after q_get, which may have cleared the cache */
    }
    if (q->n > q->head && q->side != side) {
        *partner = q->q[q->head++];
        m->waiting[q->side]--;
        if (q->head == q->n)
            q->head = q->n = 0;
        return PAL_OK;
    }
    if (q->n == q->head)
        q->head = q->n = 0;
    if (q->head > 0 && q->head * 2 >= q->n) {
        memmove(q->q, q->q + q->head, (q->n - q->head) * sizeof *q->q);
        q->n -= q->head;
        q->head = 0;
    }
    if (grow(&q->q, &q->cap, q->n + 1, sizeof *q->q, 4))
        return PAL_ENOMEM;
    q->side = side;
    q->q[q->n++] = *end;
    m->waiting[side]++;
    return PAL_END;
}

pal_status pal_matcher_post_untimed(pal_matcher *m, int64_t peer, int64_t tag,
                                    int64_t comm_id, unsigned flags, const pal_msg_end *end)
{
    if (m == NULL || end == NULL || peer > UINT32_MAX ||
        (peer < 0 && peer != PAL_MATCH_ANY_SOURCE))
        return PAL_EINVAL;
    untimed_end u = {peer < 0 ? 0 : (uint32_t)peer, end->process, peer < 0, tag < 0, tag, 0, *end};
    pal_status st = pal_matcher_context(m, end->process, comm_id, flags, &u.context, NULL);
    if (st != PAL_OK && st != PAL_EUNDEF)
        return st;
    if (grow(&m->un, &m->uncap, m->nun + 1, sizeof *m->un, 16))
        return PAL_ENOMEM;
    m->un[m->nun++] = u;
    return PAL_OK;
}

/* whether send queue a's first end comes before b's: the earlier time, then
 * the lower source and tag (an order the hash table does not give) */
static int sends_before(const mqueue *a, const mqueue *b)
{
    double ta = a->q[a->head].time, tb = b->q[b->head].time;
    if (ta != tb)
        return ta < tb;
    return a->k.src != b->k.src ? a->k.src < b->k.src : a->k.tag < b->k.tag;
}

uint64_t pal_matcher_settle(pal_matcher *m, pal_matcher_pair_fn fn, void *ctx)
{
    if (m == NULL || m->nun == 0)
        return 0;
    /* the keys with sends waiting, once (few at the end of a run) */
    mqueue **sq = NULL;
    size_t nsq = 0, sqcap = 0;
    for (size_t i = 0; i < m->qcap; i++) {
        mqueue *q = &m->qs[i];
        if (!q->used || q->side != PAL_MATCH_SEND || q->n == q->head)
            continue;
        if (grow(&sq, &sqcap, nsq + 1, sizeof *sq, 64))
            break;   /* no memory: the keys found so far */
        sq[nsq++] = q;
    }
    uint64_t taken = 0;
    for (size_t j = 0; j < m->nun; j++) {
        const untimed_end *u = &m->un[j];
        mqueue *best = NULL;
        for (size_t i = 0; i < nsq; i++) {
            mqueue *q = sq[i];
            if (q->n == q->head || q->k.dst != u->dst || q->k.context != u->context ||
                (!u->any_src && q->k.src != u->src) || (!u->any_tag && q->k.tag != u->tag))
                continue;
            if (best == NULL || sends_before(q, best))
                best = q;
        }
        if (best == NULL)
            continue;
        pal_msg_end send = best->q[best->head++];
        m->waiting[PAL_MATCH_SEND]--;
        taken++;
        if (fn) {
            pal_msg_key key = {best->k.src, best->k.dst, best->k.tag, best->k.context};
            fn(ctx, &key, &send, &u->end);
        }
    }
    for (size_t i = 0; i < nsq; i++)
        if (sq[i]->head == sq[i]->n)
            sq[i]->head = sq[i]->n = 0;
    free(sq);
    m->nun = 0;
    return taken;
}

void pal_matcher_foreach_waiting(const pal_matcher *m, pal_matcher_end_fn fn, void *ctx)
{
    if (m == NULL || fn == NULL)
        return;
    for (size_t i = 0; i < m->qcap; i++) {
        const mqueue *q = &m->qs[i];
        if (!q->used)
            continue;
        pal_msg_key key = {q->k.src, q->k.dst, q->k.tag, q->k.context};
        for (size_t j = q->head; j < q->n; j++)
            fn(ctx, &key, q->side, &q->q[j]);
    }
}

void pal_matcher_waiting(const pal_matcher *m, uint64_t *sends, uint64_t *recvs)
{
    if (sends)
        *sends = m ? m->waiting[PAL_MATCH_SEND] : 0;
    if (recvs)
        *recvs = m ? m->waiting[PAL_MATCH_RECV] : 0;
}

/* ---------------- typed events ---------------- */
enum { H_REGION, H_PEER, H_DEST, H_SOURCE, H_TAG, H_RECV_TAG, H_COMM, H_BYTES_SENT,
       H_BYTES_RECEIVED, H_BYTES, H_TEXT, H_COUNT, H_SIZE, H_MEMBERS, H_REMOTE, H_COUNTER,
       H_VALUE, H_ROOT, H_WINDOW, H_REQUEST, H_N };
/* What a record type means, from its roles, computed once per type. send,
 * recv, untimed, rma_how: 0 no, 1 every record, 2 the record's field says. */
typedef struct rkind {
    int known;
    pal_record_role prim;
    unsigned flags;             /* PAL_EVF_COMMUNICATION, _IDLE, _COLLECTIVE, _SETUP */
    int send, recv, untimed;
    int both;                   /* sends and receives: its receive's tag is recv_tag */
    int bytes, args;            /* has a bytes role; has bytes, tag or communicator */
    int comm_global;            /* its communicator ids are global (OTF2's) */
    int comm_def;               /* defines a communicator and its members */
    const char *region;         /* REGION IS, or the description of a setup span; NULL: a field */
    const char *idname;         /* the region field's name, for ids without a name */
    int has_ref;                /* its region field refers to a definition */
    pal_coll_op op;
    int any_rma;
    int rma_how[PAL_RMA_KIND_COUNT];
    const char *iregion;        /* region, interned */
    size_t iregion_len;
    uint32_t index;             /* the record type's */
    /* the type's field of each role H_* (-1 none) and its type class: what
     * a role handle finds in a record of this type, without the call */
    int32_t fi[H_N];
    uint8_t tc[H_N];
    /* send, recv, untimed when a field says (how 2): the one integer field
     * and value that gives the role; field -1: several conditions or a
     * text, pal_record_has_role decides */
    struct kcond { int32_t field; uint64_t value; } cond[3];
    int time_ns;                /* binary, with a time field in ns: the time is rec->time */
    int quiet;                  /* its records give no event (with the options): Q_* */
} rkind;

enum { Q_NO, Q_LANE, Q_NOTHING };   /* the thread was alive then; not even that (metadata) */
static const pal_field_role hrole[H_N] = {
    PAL_FROLE_REGION, PAL_FROLE_PEER, PAL_FROLE_DEST, PAL_FROLE_SOURCE, PAL_FROLE_TAG,
    PAL_FROLE_RECV_TAG, PAL_FROLE_COMMUNICATOR, PAL_FROLE_BYTES_SENT,
    PAL_FROLE_BYTES_RECEIVED, PAL_FROLE_BYTES, PAL_FROLE_TEXT, PAL_FROLE_COUNT, PAL_FROLE_SIZE,
    PAL_FROLE_MEMBERS, PAL_FROLE_REMOTE_MEMBERS, PAL_FROLE_COUNTER, PAL_FROLE_VALUE,
    PAL_FROLE_ROOT, PAL_FROLE_WINDOW, PAL_FROLE_REQUEST};

static const pal_record_role primaries[] = {
    PAL_ROLE_ENTER, PAL_ROLE_LEAVE, PAL_ROLE_CALL, PAL_ROLE_OVERHEAD, PAL_ROLE_MARKER,
    PAL_ROLE_COUNTER, PAL_ROLE_DEFINITION, PAL_ROLE_METADATA, PAL_ROLE_LOST,
    PAL_ROLE_PROCESS_BEGIN, PAL_ROLE_PROCESS_END, PAL_ROLE_THREAD_BEGIN, PAL_ROLE_THREAD_END,
    PAL_ROLE_STATE, PAL_ROLE_PAUSE, PAL_ROLE_RESUME, PAL_ROLE_REQUEST_COMPLETE,
    PAL_ROLE_REQUEST_START, PAL_ROLE_MESSAGE};

typedef struct frame {
    const char *name;           /* owned by the names store */
    size_t len;
    unsigned flags;
    int recv;                   /* receives when it closes */
    int64_t start, peer, tag, comm, root;
    int64_t request;            /* its request, -1 if none; a collective's > 0: nonblocking */
    unsigned comm_flags;
    uint64_t bytes;
    pal_coll_op op;
} frame;

/* A nonblocking collective's part, from its call until its request
 * completes; its place in the instances is fixed at the call (MPI orders
 * collectives by their start). */
typedef struct nbpart {
    uint32_t process, stream;
    uint64_t request;
    long seq;
    frame fr;
} nbpart;

typedef struct lane {
    uint32_t process, stream;
    int used;
    frame *stk;
    size_t depth, cap;
    int64_t last;
    uint64_t nrec;              /* records of the thread so far */
} lane;

typedef struct cinst {          /* one collective instance being assembled */
    pal_coll_instance c;
} cinst;

typedef struct cqueue {         /* the pending instances of one collective on one context */
    uint64_t context;
    const char *name;
    size_t len;
    uint32_t size;
    unsigned comm_flags;        /* of the first member's communicator */
    unsigned flags;             /* the first member's frame's (PAL_EVF_*) */
    int used;
    uint64_t base;              /* sequence number of q[head] */
    cinst *q;
    size_t head, n, cap;
} cqueue;

typedef struct seqent {         /* calls of a collective by a process on a context */
    uint64_t context, name_hash;
    uint32_t process;
    int used;
    uint64_t n;
} seqent;

struct pal_events {
    pal_reader *rd;
    pal_names *names;
    pal_matcher *m;
    const pal_handle *h[H_N];
    rkind *k;
    size_t nk;
    lane *lanes;                /* hash by (process, stream) */
    size_t lcap, nlanes;
#define LCACHE 64
    lane *lcache[LCACHE];       /* lanes found lately, by lcache_slot */
    uint64_t *lorder;           /* (process, stream) of the lanes in the order first seen */
    struct cqkey { uint64_t context; const char *name; } *cqorder;   /* likewise */
    size_t lordcap, cqordcap;
    cqueue *cqs;                /* hash by (context, name) */
    size_t cqcap, ncqs;
    seqent *seq;
    size_t seqcap, nseq;
    nbpart *nb;                 /* nonblocking collectives not yet complete */
    size_t nnb, nbcap;
    char **strs;                /* owned names (regions), interned */
    size_t nstrs, strcap;
    char **istr;                /* intern table of strs */
    size_t icap;
    struct idname {             /* (record type, process, id) -> region name, since the */
        uint32_t type, process; /* last definition */
        int64_t id;
        const char *name;
        size_t len;
    } *idc;
    size_t idcap, nid;
    pal_event blank;            /* what an event holds before its kind fills it */
    pal_event none;             /* the NONE event of a record of no other event
                                 * (PAL_EVENTS_EVERY_RECORD) */
    size_t evsize;              /* sizeof blank (see emit) */
    pal_event *out;             /* the events of the current record */
    unsigned char *shape;       /* of each of out's events (SH_*) */
    size_t nout, outcap, next;
    int ended, started, settle_failed;
    int regions;                /* regions are events (not PAL_EVENTS_MESSAGES) */
    int fm_known, frames_matter;   /* see frames_matter */
    unsigned options;           /* PAL_EVENTS_* */
    char idbuf[96];
};

static inline size_t lcache_slot(uint32_t process, uint32_t stream)
{
    return (size_t)(((process * 0x9E3779B1u) ^ stream) * 0x85EBCA77u >> 26) & (LCACHE - 1);
}

static uint64_t strhash(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
    return h;
}

/* An interned copy of a name: one pointer per distinct name, valid while
 * the events object lives. */
static const char *intern(pal_events *e, const char *s, size_t len)
{
    if ((e->nstrs + 1) * 2 > e->icap) {
        size_t ncap = e->icap ? e->icap * 2 : 256;
        char **t = calloc(ncap, sizeof *t);
        if (t == NULL)
            return NULL;
        for (size_t i = 0; i < e->icap; i++)
            if (e->istr[i]) {
                size_t j = strhash(e->istr[i], strlen(e->istr[i])) & (ncap - 1);
                while (t[j])
                    j = (j + 1) & (ncap - 1);
                t[j] = e->istr[i];
            }
        free(e->istr);
        e->istr = t;
        e->icap = ncap;
    }
    size_t j = strhash(s, len) & (e->icap - 1);
    for (; e->istr[j]; j = (j + 1) & (e->icap - 1))
        if (strlen(e->istr[j]) == len && memcmp(e->istr[j], s, len) == 0)
            return e->istr[j];
    char *c = malloc(len + 1);
    if (c == NULL)
        return NULL;
    memcpy(c, s, len);
    c[len] = '\0';
    e->istr[j] = c;
    e->nstrs++;
    return c;
}

/* The integer in the field of role h of rec (of type k), as pal_record_i64
 * through a role handle reads it: dflt when the type has no such field,
 * the record lacks it, or it holds no integer that fits. */
static inline int64_t geti(const pal_record *rec, const rkind *k, int h, int64_t dflt)
{
    int32_t fi = k->fi[h];
    if (fi < 0 || PAL_UNLIKELY(rec->lens[fi] == PAL_ABSENT))
        return dflt;
    pal_value v = rec->vals[fi];
    if (k->tc[h] == PAL_TC_SIGNED)
        return v.i;
    return k->tc[h] == PAL_TC_UNSIGNED && v.u <= (uint64_t)INT64_MAX ? (int64_t)v.u : dflt;
}

static inline uint64_t getbytes(const pal_record *rec, const rkind *k, int h)
{
    int64_t v = geti(rec, k, h, 0);
    return v > 0 ? (uint64_t)v : 0;
}

static int on(const pal_record *rec, int how, pal_record_role role)
{
    return how == 1 || (how == 2 && pal_record_has_role(rec, role));
}

/* Whether rec (of type k) sends, receives (C_RECV) or completed unseen
 * (C_UNTIMED): pal_record_has_role, with a type's one integer condition
 * tested here. */
enum { C_SEND, C_RECV, C_UNTIMED };
static const pal_record_role cond_role[3] = {PAL_ROLE_SEND, PAL_ROLE_RECV, PAL_ROLE_UNTIMED};

static inline int has(const pal_record *rec, const rkind *k, int which)
{
    int how = which == C_SEND ? k->send : which == C_RECV ? k->recv : k->untimed;
    if (how != 2)
        return how;
    const struct kcond *c = &k->cond[which];
    if (c->field >= 0)
        return rec->lens[c->field] != PAL_ABSENT && rec->vals[c->field].u == c->value;
    return pal_record_has_role(rec, cond_role[which]);
}

/* The time in ns of rec (of type k): pal_record_time_ns, its usual case
 * (binary records with times in ns) here. */
static inline int64_t time_ns(const rkind *k, const pal_record *rec)
{
    if (PAL_LIKELY(k->time_ns))
        return rec->time > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)rec->time;
    return pal_record_time_ns(rec);
}

/* What the fields and conditions of type d say, once (see rkind). */
static void kind_fields(rkind *k, const pal_recdesc *d)
{
    k->time_ns = d->dict->binary && d->time_fi >= 0 && d->dict->ns_per_tick == 1;
    for (int h = 0; h < H_N; h++) {
        k->fi[h] = d->role_fi[hrole[h]];
        k->tc[h] = k->fi[h] >= 0 ? d->fields[k->fi[h]].tclass : 0;
    }
    for (int w = 0; w < 3; w++) {
        const struct pal_rcond *one = NULL;
        int n = 0;
        for (size_t c = 0; c < d->nconds; c++)
            if (d->conds[c].role == cond_role[w]) {
                one = &d->conds[c];
                n++;
            }
        k->cond[w].field = -1;
        if (n == 1 && one->field >= 0 && d->fields[one->field].tclass != PAL_TC_STRING) {
            k->cond[w].field = one->field;
            k->cond[w].value = one->value;
        }
    }
}

static const rkind *classify_new(pal_events *e, const pal_recdesc *d);

/* What records of type d mean (NULL: no memory). */
static inline const rkind *classify(pal_events *e, const pal_recdesc *d)
{
    size_t i = d->index;
    if (PAL_LIKELY(i < e->nk) && PAL_LIKELY(e->k[i].known))
        return &e->k[i];
    return classify_new(e, d);
}

/* PAL_EVENTS_MESSAGES keeps the frames of enter and leave records for the
 * messages they give: a receive when an enter's frame closes, a leave's
 * own send or receive when its enter was seen. Whether any type of the
 * dictionary (complete once the reader is open) gives them, decided once:
 * when none does, the frames are not kept. */
static int frames_matter(pal_events *e, const pal_dict *d)
{
    if (e->fm_known)
        return e->frames_matter;
    e->fm_known = 1;
    for (size_t i = 0; i < d->nrecs; i++) {
        const pal_recdesc *r = d->recs[i];
        if ((pal_recdesc_has_role(r, PAL_ROLE_ENTER) || pal_recdesc_has_role(r, PAL_ROLE_LEAVE)) &&
            (pal_recdesc_has_role(r, PAL_ROLE_SEND) || pal_recdesc_has_role(r, PAL_ROLE_RECV) ||
             pal_recdesc_has_role(r, PAL_ROLE_UNTIMED)))
            e->frames_matter = 1;
    }
    return e->frames_matter;
}

static const rkind *classify_new(pal_events *e, const pal_recdesc *d)
{
    size_t i = pal_recdesc_index(d);
    if (i >= e->nk) {
        size_t n = e->nk ? e->nk : 64;
        while (n <= i)
            n *= 2;
        rkind *k = realloc(e->k, n * sizeof *k);
        if (k == NULL)
            return NULL;
        memset(k + e->nk, 0, (n - e->nk) * sizeof *k);
        e->k = k;
        e->nk = n;
    }
    rkind *k = &e->k[i];
    if (k->known)
        return k;
    k->known = 1;
    for (size_t j = 0; j < sizeof primaries / sizeof primaries[0]; j++)
        if (pal_recdesc_has_role(d, primaries[j])) {
            k->prim = primaries[j];
            break;
        }
    k->send = pal_recdesc_has_role(d, PAL_ROLE_SEND);
    k->recv = pal_recdesc_has_role(d, PAL_ROLE_RECV);
    k->untimed = pal_recdesc_has_role(d, PAL_ROLE_UNTIMED);
    k->both = k->send == 1 && k->recv == 1;
    k->bytes = pal_recdesc_role_field(d, PAL_FROLE_BYTES_SENT) ||
               pal_recdesc_role_field(d, PAL_FROLE_BYTES_RECEIVED) ||
               pal_recdesc_role_field(d, PAL_FROLE_BYTES);
    const pal_fielddesc *cf = pal_recdesc_role_field(d, PAL_FROLE_COMMUNICATOR);
    k->args = k->bytes || pal_recdesc_role_field(d, PAL_FROLE_TAG) || cf;
    int global = 0;
    k->comm_global = cf && pal_field_reference(cf, NULL, NULL, &global) == PAL_OK && global;
    if (pal_recdesc_has_role(d, PAL_ROLE_COMMUNICATION))
        k->flags |= PAL_EVF_COMMUNICATION;
    if (pal_recdesc_has_role(d, PAL_ROLE_IDLE))
        k->flags |= PAL_EVF_IDLE;
    if (pal_recdesc_has_role(d, PAL_ROLE_COLLECTIVE))
        k->flags |= PAL_EVF_COLLECTIVE;
    if (pal_recdesc_has_role(d, PAL_ROLE_DEVICE))
        k->flags |= PAL_EVF_DEVICE;
    k->op = pal_coll_op_by_name(pal_recdesc_operation(d));
    for (int r = 0; r < PAL_RMA_KIND_COUNT; r++)
        k->any_rma |= k->rma_how[r] = pal_recdesc_has_role(d, pal_rma_kind_role((pal_rma_kind)r));
    k->index = (uint32_t)i;
    kind_fields(k, d);
    /* a type new to the reader may have roles no earlier type had */
    for (int h = 0; h < H_N; h++)
        if (e->h[h] == NULL)
            pal_reader_role_handle(e->rd, hrole[h], &e->h[h]);
    const pal_fielddesc *rf = pal_recdesc_role_field(d, PAL_FROLE_REGION);
    if ((k->prim == PAL_ROLE_PROCESS_BEGIN || k->prim == PAL_ROLE_PROCESS_END) &&
        pal_recdesc_role_field(d, PAL_FROLE_DURATION)) {
        /* a process's start or end that takes time: a span named by its
         * region field when that refers to a definition (an OTF2 archive's
         * MPI_Init), else by what the description says of the record */
        const char *nm = pal_recdesc_description(d);
        k->flags = PAL_EVF_SETUP;
        if (rf && pal_field_reference(rf, NULL, NULL, NULL) == PAL_OK) {
            k->has_ref = 1;
            k->idname = pal_field_name(rf);
        } else {
            k->region = nm && nm[0] ? nm : pal_recdesc_name(d);
        }
    } else if (k->prim == PAL_ROLE_ENTER || k->prim == PAL_ROLE_LEAVE ||
               k->prim == PAL_ROLE_CALL) {
        const char *nm = pal_recdesc_region(d);
        if (nm && nm[0])
            k->region = nm;
        else if (rf) {
            k->has_ref = pal_field_reference(rf, NULL, NULL, NULL) == PAL_OK;
            k->idname = pal_field_name(rf);
        } else {
            k->prim = PAL_ROLE_NONE;   /* no region: the model refuses it; be safe */
        }
        if (k->prim == PAL_ROLE_CALL && !pal_recdesc_role_field(d, PAL_FROLE_DURATION))
            k->prim = PAL_ROLE_NONE;
    }
    if (k->prim == PAL_ROLE_DEFINITION && cf && pal_recdesc_role_field(d, PAL_FROLE_MEMBERS))
        k->comm_def = 1;
    if (k->prim == PAL_ROLE_OVERHEAD && !pal_recdesc_role_field(d, PAL_FROLE_DURATION))
        k->prim = PAL_ROLE_NONE;
    /* what feed does with such a record, decided here once */
    int setup = (k->prim == PAL_ROLE_PROCESS_BEGIN || k->prim == PAL_ROLE_PROCESS_END) &&
                (k->flags & PAL_EVF_SETUP);
    if (k->prim == PAL_ROLE_NONE || k->prim == PAL_ROLE_STATE)
        k->quiet = Q_LANE;
    else if (k->prim == PAL_ROLE_METADATA)
        k->quiet = Q_NOTHING;
    else if (!e->regions && !k->send && !k->recv && (k->prim == PAL_ROLE_CALL || setup))
        k->quiet = Q_LANE;   /* PAL_EVENTS_MESSAGES: a call that neither sends nor receives */
    else if (!e->regions && (k->prim == PAL_ROLE_ENTER || k->prim == PAL_ROLE_LEAVE) &&
             !frames_matter(e, d->dict))
        k->quiet = Q_LANE;   /* ... and an enter or leave when no frame can give a message */
    if (k->region && (k->iregion = intern(e, k->region, k->iregion_len = strlen(k->region))) ==
                         NULL) {
        k->known = 0;
        return NULL;
    }
    return k;
}

/* where (type, process, id) goes in the table of resolved region ids */
static size_t idc_hash(uint32_t type, uint32_t process, int64_t id)
{
    uint64_t h = ((uint64_t)type << 32 | process) * 0x9e3779b97f4a7c15ULL ^
                 (uint64_t)id * 0xc2b2ae3d27d4eb4fULL;
    return (size_t)(h ^ h >> 31);
}

/* The region an enter, leave or call record names (its length in *len):
 * by text, by a name field, by an id resolved through its reference, else
 * FIELD#ID. */
static const char *region_of(pal_events *e, const rkind *k, const pal_record *rec, size_t *len)
{
    if (k->iregion) {
        *len = k->iregion_len;
        return k->iregion;
    }
    const char *s;
    int32_t fi = k->fi[H_REGION];
    if (fi >= 0 && k->tc[H_REGION] == PAL_TC_STRING && rec->lens[fi] != PAL_ABSENT) {
        s = (const char *)rec->vals[fi].s;
        const char *name = intern(e, s, rec->lens[fi]);
        /* the name's length as a C string's, a NUL inside it included */
        *len = name && memchr(s, 0, rec->lens[fi]) ? strlen(name) : rec->lens[fi];
        return name;
    }
    /* an id: resolved once per (type, process, id) until the next definition */
    int64_t id = geti(rec, k, H_REGION, -1);
    uint32_t process = rec->process;
    if ((e->nid + 1) * 2 > e->idcap) {
        size_t ncap = e->idcap ? e->idcap * 2 : 256;
        struct idname *t = calloc(ncap, sizeof *t);
        if (t == NULL)
            return NULL;
        for (size_t i = 0; i < e->idcap; i++)
            if (e->idc[i].name) {
                const struct idname *o = &e->idc[i];
                size_t j = idc_hash(o->type, o->process, o->id) & (ncap - 1);
                while (t[j].name)
                    j = (j + 1) & (ncap - 1);
                t[j] = *o;
            }
        free(e->idc);
        e->idc = t;
        e->idcap = ncap;
    }
    size_t j = idc_hash(k->index, process, id) & (e->idcap - 1);
    for (; e->idc[j].name; j = (j + 1) & (e->idcap - 1))
        if (e->idc[j].type == k->index && e->idc[j].process == process && e->idc[j].id == id) {
            *len = e->idc[j].len;
            return e->idc[j].name;
        }
    const char *name;
    if (k->has_ref && pal_names_handle(e->names, rec, e->h[H_REGION], &s, len) == PAL_OK) {
        name = intern(e, s, *len);
        if (name && memchr(s, 0, *len))   /* as a C string, as above */
            *len = strlen(name);
    } else {
        int n = snprintf(e->idbuf, sizeof e->idbuf, "%.40s#%lld",
                         k->idname ? k->idname : "region", (long long)id);
        *len = (size_t)n;
        name = intern(e, e->idbuf, *len);
    }
    if (name) {
        e->idc[j] = (struct idname){k->index, process, id, name, *len};
        e->nid++;
    }
    return name;
}

/* What the events in e->out hold besides the fields every event sets
 * (kind, record, process, stream, time, flags): SH_ANY, anything, else
 * the blank event with only the fields of a shape set -- SH_END: peer,
 * tag, comm, comm_flags, bytes (SEND, RECV, UNTIMED_RECV); SH_MESSAGE:
 * those, send and recv. An event of a shape put where one of these shapes
 * was is made by setting its fields, without the copy of the whole blank
 * event (most events with PAL_EVENTS_MESSAGES are sends and receives). */
enum { SH_ANY, SH_END, SH_MESSAGE };

static pal_event *emit_as(pal_events *e, int shape, pal_event_kind kind, const pal_record *rec,
                          const lane *l, int64_t t)
{
    if (e->nout == e->outcap) {
        size_t cap = e->outcap;
        if (grow(&e->out, &cap, e->nout + 1, sizeof *e->out, 16))
            return NULL;
        unsigned char *sh = realloc(e->shape, cap);
        if (sh == NULL)
            return NULL;   /* (out stays larger: harmless) */
        memset(sh + e->outcap, SH_ANY, cap - e->outcap);
        e->shape = sh;
        e->outcap = cap;
    }
    size_t i = e->nout++;
    pal_event *v = &e->out[i];
    int was = e->shape[i];
    if (was == SH_ANY || shape == SH_ANY) {
        /* the size is a field, not a constant: the C library's vector copy,
         * not the string instruction a compiler makes of a constant size,
         * whose start-up costs more than the copy at this size */
        memcpy(v, &e->blank, e->evsize);
    } else if (was == SH_MESSAGE && shape == SH_END) {   /* its ends back to blank */
        v->send = v->recv = e->blank.send;
    }
    e->shape[i] = (unsigned char)shape;
    v->kind = kind;
    v->flags = 0;
    v->record = rec;
    v->process = l ? l->process : rec ? rec->process : 0;
    v->stream = l ? l->stream : rec ? rec->stream : 0;
    v->time = t;
    return v;
}

static pal_event *emit(pal_events *e, pal_event_kind kind, const pal_record *rec,
                       const lane *l, int64_t t)
{
    return emit_as(e, SH_ANY, kind, rec, l, t);
}

static lane *lane_find(pal_events *e, uint32_t process, uint32_t stream);

/* The lane of (process, stream), made when new; NULL when memory runs
 * out. The lanes a merged run interleaves are found in a small cache. */
static inline lane *lane_get(pal_events *e, uint32_t process, uint32_t stream)
{
    lane *l = e->lcache[lcache_slot(process, stream)];
    if (PAL_LIKELY(l != NULL) && l->process == process && l->stream == stream)
        return l;
    return lane_find(e, process, stream);
}

static lane *lane_find(pal_events *e, uint32_t process, uint32_t stream)
{
    uint64_t key = (uint64_t)process << 32 | stream;
    if ((e->nlanes + 1) * 2 > e->lcap) {
        size_t ncap = e->lcap ? e->lcap * 2 : 64;
        lane *t = calloc(ncap, sizeof *t);
        if (t == NULL)
            return NULL;
        for (size_t i = 0; i < e->lcap; i++)
            if (e->lanes[i].used) {
                uint64_t k2 = (uint64_t)e->lanes[i].process << 32 | e->lanes[i].stream;
                size_t j = mix(k2) & (ncap - 1);
                while (t[j].used)
                    j = (j + 1) & (ncap - 1);
                t[j] = e->lanes[i];
            }
        free(e->lanes);
        e->lanes = t;
        e->lcap = ncap;
        memset(e->lcache, 0, sizeof e->lcache);   /* the lanes moved */
    }
    size_t j = mix(key) & (e->lcap - 1);
    for (; e->lanes[j].used; j = (j + 1) & (e->lcap - 1))
        if (e->lanes[j].process == process && e->lanes[j].stream == stream)
            return e->lcache[lcache_slot(process, stream)] = &e->lanes[j];
    if (grow(&e->lorder, &e->lordcap, e->nlanes + 1, sizeof *e->lorder, 64))
        return NULL;
    e->lorder[e->nlanes] = key;
    lane *l = e->lcache[lcache_slot(process, stream)] = &e->lanes[j];
    memset(l, 0, sizeof *l);
    l->used = 1;
    l->process = process;
    l->stream = stream;
    l->last = INT64_MIN;
    e->nlanes++;
    return l;
}

/* rec, at t, is one more record of its lane (its thread), which was alive
 * then; NULL when memory runs out. */
PAL_INLINE lane *lane_seen(pal_events *e, uint32_t process, const pal_record *rec, int64_t t)
{
    lane *l = lane_get(e, process, rec->stream);
    if (l == NULL)
        return NULL;
    l->nrec++;
    if (t > l->last)
        l->last = t;
    return l;
}

static int64_t peer_of(const rkind *k, const pal_record *rec, int side)
{
    return geti(rec, k, side ? H_SOURCE : H_DEST, geti(rec, k, H_PEER, -1));
}

static int64_t tag_of(const rkind *k, const pal_record *rec, int side)
{
    if (side == PAL_MATCH_RECV && k->both)
        return geti(rec, k, H_RECV_TAG, geti(rec, k, H_TAG, 0));
    return geti(rec, k, H_TAG, 0);
}

static uint64_t bytes_of(const rkind *k, const pal_record *rec, int side)
{
    int h = side ? H_BYTES_RECEIVED : H_BYTES_SENT;
    /* INT64_MIN stands for a field that does not read as an integer */
    int64_t v = geti(rec, k, h, INT64_MIN);
    if (v != INT64_MIN)
        return v > 0 ? (uint64_t)v : 0;
    return getbytes(rec, k, H_BYTES);
}

static uint64_t all_bytes(const rkind *k, const pal_record *rec)
{
    return getbytes(rec, k, H_BYTES_SENT) + getbytes(rec, k, H_BYTES_RECEIVED) +
           getbytes(rec, k, H_BYTES);
}

/* A send or receive end at t: its event, and the message when the matcher
 * pairs it. Unresolved peers (a wildcard never resolved) give no event. */
static int message(pal_events *e, const pal_record *rec, const lane *l, int side, int64_t peer,
                   int64_t tag, int64_t comm, unsigned cflags, int64_t t, uint64_t bytes)
{
    if (peer < 0)
        return 0;
    pal_event *v = emit_as(e, SH_END, side == PAL_MATCH_SEND ? PAL_EV_SEND : PAL_EV_RECV, rec, l,
                           t);
    if (v == NULL)
        return -1;
    v->peer = peer;
    v->tag = tag;
    v->comm = comm;
    v->comm_flags = cflags;
    v->bytes = bytes;
    pal_msg_end end = {l->process, l->stream, (double)t, bytes, l->nrec - 1}, p;
    pal_status st = pal_matcher_post(e->m, side, peer, tag, comm, cflags, &end, &p);
    if (st == PAL_ENOMEM)
        return -1;
    if (st != PAL_OK)
        return 0;
    v = emit_as(e, SH_MESSAGE, PAL_EV_MESSAGE, rec, l, t);
    if (v == NULL)
        return -1;
    v->send = side == PAL_MATCH_SEND ? end : p;
    v->recv = side == PAL_MATCH_SEND ? p : end;
    v->peer = side == PAL_MATCH_SEND ? peer : (int64_t)p.process;
    v->tag = tag;
    v->comm = comm;
    v->comm_flags = cflags;
    v->bytes = v->send.bytes;
    return 0;
}

static void record_message(pal_events *e, const rkind *k, const pal_record *rec, const lane *l,
                           int side, int64_t t, int *rc)
{
    int64_t c = geti(rec, k, H_COMM, 0);
    if (message(e, rec, l, side, peer_of(k, rec, side), tag_of(k, rec, side), c,
                k->comm_global ? PAL_MATCH_GLOBAL_COMM : 0, t, bytes_of(k, rec, side)))
        *rc = -1;
}

/* A receive that completed unseen (role untimed): its event, and the
 * matcher keeps it for pal_matcher_settle. */
static int untimed_recv(pal_events *e, const rkind *k, const pal_record *rec, const lane *l,
                        int64_t t)
{
    pal_event *v = emit_as(e, SH_END, PAL_EV_UNTIMED_RECV, rec, l, t);
    if (v == NULL)
        return -1;
    v->peer = peer_of(k, rec, PAL_MATCH_RECV);
    v->tag = tag_of(k, rec, PAL_MATCH_RECV);
    v->comm = geti(rec, k, H_COMM, 0);
    v->comm_flags = k->comm_global ? PAL_MATCH_GLOBAL_COMM : 0;
    v->bytes = bytes_of(k, rec, PAL_MATCH_RECV);
    pal_msg_end end = {l->process, l->stream, (double)t, v->bytes, l->nrec - 1};
    return pal_matcher_post_untimed(e->m, v->peer, v->tag, v->comm, v->comm_flags, &end) ==
                   PAL_ENOMEM ? -1 : 0;
}

/* PAL_EVENTS_SETTLE: an untimed receive and the send it took, a MESSAGE at
 * the receive's record's time. */
static void settled(void *ctx, const pal_msg_key *key, const pal_msg_end *send,
                    const pal_msg_end *recv)
{
    pal_events *e = ctx;
    pal_event *v = emit_as(e, SH_MESSAGE, PAL_EV_MESSAGE, NULL, NULL, (int64_t)recv->time);
    if (v == NULL) {
        e->settle_failed = 1;
        return;
    }
    v->process = recv->process;
    v->stream = recv->stream;
    v->flags = PAL_EVF_UNTIMED;
    v->send = *send;
    v->recv = *recv;
    v->peer = send->process;
    v->tag = key->tag;
    v->comm = 0;   /* the send's key says the context */
    v->comm_flags = 0;
    v->bytes = send->bytes;
}

/* ---------------- collective instances ---------------- */
static cqueue *cq_get(pal_events *e, uint64_t context, const char *name, uint32_t size,
                      unsigned comm_flags, unsigned flags)
{
    uint64_t key = context ^ mix((uint64_t)(uintptr_t)name);
    if ((e->ncqs + 1) * 2 > e->cqcap) {
        size_t ncap = e->cqcap ? e->cqcap * 2 : 64;
        cqueue *t = calloc(ncap, sizeof *t);
        if (t == NULL)
            return NULL;
        for (size_t i = 0; i < e->cqcap; i++)
            if (e->cqs[i].used) {
                uint64_t k2 = e->cqs[i].context ^ mix((uint64_t)(uintptr_t)e->cqs[i].name);
                size_t j = mix(k2) & (ncap - 1);
                while (t[j].used)
                    j = (j + 1) & (ncap - 1);
                t[j] = e->cqs[i];
            }
        free(e->cqs);
        e->cqs = t;
        e->cqcap = ncap;
    }
    size_t j = mix(key) & (e->cqcap - 1);
    for (; e->cqs[j].used; j = (j + 1) & (e->cqcap - 1))
        if (e->cqs[j].context == context && e->cqs[j].name == name)
            return &e->cqs[j];
    if (grow(&e->cqorder, &e->cqordcap, e->ncqs + 1, sizeof *e->cqorder, 64))
        return NULL;
    e->cqorder[e->ncqs] = (struct cqkey){context, name};
    cqueue *q = &e->cqs[j];
    memset(q, 0, sizeof *q);
    q->comm_flags = comm_flags;
    q->flags = flags;
    q->used = 1;
    q->context = context;
    q->name = name;
    q->len = strlen(name);
    q->size = size;
    e->ncqs++;
    return q;
}

/* the k-th call of a collective by a process on a context */
static long seq_next(pal_events *e, uint64_t context, const char *name, uint32_t process)
{
    uint64_t nh = (uint64_t)(uintptr_t)name;
    if ((e->nseq + 1) * 2 > e->seqcap) {
        size_t ncap = e->seqcap ? e->seqcap * 2 : 64;
        seqent *t = calloc(ncap, sizeof *t);
        if (t == NULL)
            return -1;
        for (size_t i = 0; i < e->seqcap; i++)
            if (e->seq[i].used) {
                const seqent *s = &e->seq[i];
                size_t j = mix(s->context ^ mix(s->name_hash) ^ s->process) & (ncap - 1);
                while (t[j].used)
                    j = (j + 1) & (ncap - 1);
                t[j] = *s;
            }
        free(e->seq);
        e->seq = t;
        e->seqcap = ncap;
    }
    size_t j = mix(context ^ mix(nh) ^ process) & (e->seqcap - 1);
    for (; e->seq[j].used; j = (j + 1) & (e->seqcap - 1))
        if (e->seq[j].context == context && e->seq[j].name_hash == nh &&
            e->seq[j].process == process)
            return (long)e->seq[j].n++;
    e->seq[j] = (seqent){context, nh, process, 1, 1};
    e->nseq++;
    return 0;
}

static int coll_done(pal_events *e, const cqueue *q, const pal_coll_instance *c, int64_t t)
{
    pal_event *v = emit(e, PAL_EV_COLL_INSTANCE, NULL, NULL, t);
    if (v == NULL)
        return -1;
    v->process = c->late;
    v->name = q->name;
    v->name_len = q->len;
    v->coll = *c;
    v->coll.size = q->size;
    v->coll.comm_flags = q->comm_flags;
    v->flags = q->flags;
    v->comm_flags = q->comm_flags;
    v->op = c->op;
    v->comm = c->comm;
    v->root = c->root;
    v->bytes = c->bytes;
    return 0;
}

/* One member's part of a collective (a frame closing at end): its event,
 * and the instance when its last member arrives. The k-th call of a
 * collective by a process on a communicator is the k-th instance of it on
 * that communicator's context. */
static int coll_add(pal_events *e, const pal_record *rec, const lane *l, const frame *fr,
                    int64_t end, long seq, unsigned flags)
{
    pal_event *v = emit(e, PAL_EV_COLLECTIVE, rec, l, end);
    if (v == NULL)
        return -1;
    v->name = fr->name;
    v->name_len = fr->len;
    v->start = fr->start;
    v->comm = fr->comm;
    v->comm_flags = fr->comm_flags;
    v->root = fr->root;
    v->bytes = fr->bytes;
    v->op = fr->op;
    v->flags = fr->flags | flags;
    uint64_t context;
    uint32_t size = 0;
    pal_matcher_context(e->m, l->process, fr->comm, fr->comm_flags, &context, &size);
    if (seq < 0)
        seq = seq_next(e, context, fr->name, l->process);
    cqueue *q = seq < 0 ? NULL : cq_get(e, context, fr->name, size, fr->comm_flags, fr->flags);
    if (q == NULL)
        return -1;
    if ((uint64_t)seq < q->base)
        return 0;
    size_t idx = q->head + (size_t)((uint64_t)seq - q->base);
    while (q->n <= idx) {
        if (q->head > 0 && q->head * 2 >= q->n) {
            memmove(q->q, q->q + q->head, (q->n - q->head) * sizeof *q->q);
            q->n -= q->head;
            idx -= q->head;
            q->head = 0;
        }
        if (grow(&q->q, &q->cap, q->n + 1, sizeof *q->q, 8))
            return -1;
        memset(&q->q[q->n++], 0, sizeof *q->q);
    }
    pal_coll_instance *c = &q->q[idx].c;
    if (c->members == 0) {
        c->context = context;
        c->seq = (uint64_t)seq;
        c->lo = c->hi = c->late = l->process;
        c->comm = fr->comm;
        c->root = -1;
        c->op = fr->op;
        c->min_start = c->max_start = fr->start;
        c->max_end = end;
    }
    if (fr->start < c->min_start)
        c->min_start = fr->start;
    if (fr->start > c->max_start) {
        c->max_start = fr->start;
        c->late = l->process;
    }
    if (end > c->max_end)
        c->max_end = end;
    if (l->process < c->lo)
        c->lo = l->process;
    if (l->process > c->hi)
        c->hi = l->process;
    if (fr->root >= 0)
        c->root = fr->root;
    c->bytes += fr->bytes;
    c->members++;
    while (q->size && q->head < q->n && q->q[q->head].c.members >= q->size) {
        if (coll_done(e, q, &q->q[q->head].c, end))
            return -1;
        q->head++;
        q->base++;
    }
    if (q->head == q->n)
        q->head = q->n = 0;
    return 0;
}

/* ---------------- frames ---------------- */
static frame *push(pal_events *e, const pal_record *rec, lane *l, const rkind *k,
                   const char *name, size_t len, int64_t start)
{
    if (grow(&l->stk, &l->cap, l->depth + 1, sizeof *l->stk, 16))
        return NULL;
    frame *fr = &l->stk[l->depth++];
    memset(fr, 0, sizeof *fr);
    fr->name = name;
    fr->len = len;
    fr->flags = k->flags;
    fr->start = start;
    fr->peer = fr->root = fr->request = -1;
    fr->op = k->op;
    if (!e->regions)
        return fr;
    pal_event *v = emit(e, PAL_EV_ENTER, rec, l, start);
    if (v == NULL)
        return NULL;
    v->name = fr->name;
    v->name_len = fr->len;
    v->flags = fr->flags;
    v->depth = (unsigned)(l->depth - 1);
    return fr;
}

/* A nonblocking collective was called (frame fr, closing): its part waits
 * for its request's completion, numbered now among its collective's calls. */
static int nb_started(pal_events *e, const lane *l, const frame *fr)
{
    if (grow(&e->nb, &e->nbcap, e->nnb + 1, sizeof *e->nb, 16))
        return -1;
    uint64_t context;
    uint32_t size = 0;
    pal_matcher_context(e->m, l->process, fr->comm, fr->comm_flags, &context, &size);
    long seq = seq_next(e, context, fr->name, l->process);
    if (seq < 0)
        return -1;
    e->nb[e->nnb++] = (nbpart){l->process, l->stream, (uint64_t)fr->request, seq, *fr};
    return 0;
}

/* request of process completed at t (on lane l): the part of the
 * nonblocking collective it belongs to, if any (the latest with that id:
 * ids are not reused while active) */
static int nb_completed(pal_events *e, const pal_record *rec, const lane *l, uint64_t request,
                        int64_t t)
{
    for (size_t i = e->nnb; i-- > 0;)
        if (e->nb[i].process == l->process && e->nb[i].request == request) {
            nbpart p = e->nb[i];
            e->nb[i] = e->nb[--e->nnb];
            return coll_add(e, rec, l, &p.fr, t < p.fr.start ? p.fr.start : t, p.seq,
                            PAL_EVF_NONBLOCKING);
        }
    return 0;
}

/* the frame on top of l closes at end: its collective part, its receive,
 * and its leave */
static int pop(pal_events *e, const pal_record *rec, lane *l, int64_t end, unsigned flags)
{
    const frame *top = &l->stk[--l->depth];
    if (!e->regions) {   /* PAL_EVENTS_MESSAGES: its receive alone */
        return top->recv && message(e, rec, l, PAL_MATCH_RECV, top->peer, top->tag, top->comm,
                                    top->comm_flags, end, top->bytes)
                   ? -1 : 0;
    }
    frame fr = *top;
    if ((fr.flags & PAL_EVF_COLLECTIVE) && fr.request > 0 && rec != NULL) {
        if (nb_started(e, l, &fr))
            return -1;
    } else if ((fr.flags & PAL_EVF_COLLECTIVE) && coll_add(e, rec, l, &fr, end, -1, 0)) {
        return -1;
    }
    if (fr.recv && message(e, rec, l, PAL_MATCH_RECV, fr.peer, fr.tag, fr.comm, fr.comm_flags,
                           end, fr.bytes))
        return -1;
    pal_event *v = emit(e, PAL_EV_LEAVE, rec, l, end < fr.start ? fr.start : end);
    if (v == NULL)
        return -1;
    v->name = fr.name;
    v->name_len = fr.len;
    v->flags = fr.flags | flags;
    v->depth = (unsigned)l->depth;
    v->start = fr.start;
    v->peer = fr.peer;
    v->tag = fr.tag;
    v->comm = fr.comm;
    v->comm_flags = fr.comm_flags;
    v->root = fr.root;
    v->bytes = fr.bytes;
    v->op = fr.op;
    v->request = fr.request;
    return 0;
}

static void frame_args(const pal_events *e, const rkind *k, const pal_record *rec, frame *fr)
{
    if (k->flags & PAL_EVF_COLLECTIVE) {
        fr->root = geti(rec, k, H_ROOT, -1);
        fr->request = geti(rec, k, H_REQUEST, -1);
    }
    if (k->args) {
        fr->tag = geti(rec, k, H_TAG, 0);
        fr->comm = geti(rec, k, H_COMM, 0);
        fr->comm_flags = k->comm_global ? PAL_MATCH_GLOBAL_COMM : 0;
        fr->bytes = all_bytes(k, rec);
        /* the other end, for the views: the destination of a send, else the source */
        fr->peer = peer_of(k, rec, has(rec, k, C_SEND) ? PAL_MATCH_SEND : PAL_MATCH_RECV);
        fr->request = geti(rec, k, H_REQUEST, -1);
    }
}

/* The frame of a region record (an enter, or a call at its start): its name,
 * pushed at t, with its arguments. NULL on failure. */
static frame *open_frame(pal_events *e, const rkind *k, const pal_record *rec, lane *l,
                         int64_t t)
{
    size_t nlen;
    const char *name = region_of(e, k, rec, &nlen);
    frame *fr = name ? push(e, rec, l, k, name, nlen, t) : NULL;
    if (fr != NULL)
        frame_args(e, k, rec, fr);
    return fr;
}

static int rma_some(pal_events *e, const rkind *k, const pal_record *rec, const lane *l,
                    int64_t t)
{
    for (int r = 0; r < PAL_RMA_KIND_COUNT; r++)
        if (on(rec, k->rma_how[r], pal_rma_kind_role((pal_rma_kind)r))) {
            pal_event *v = emit(e, PAL_EV_RMA, rec, l, t);
            if (v == NULL)
                return -1;
            v->rma = (pal_rma_kind)r;
            v->window = geti(rec, k, H_WINDOW, -1);
            v->peer = peer_of(k, rec, 0);
            v->comm = geti(rec, k, H_COMM, -1);
            v->comm_flags = k->comm_global ? PAL_MATCH_GLOBAL_COMM : 0;
            v->bytes = all_bytes(k, rec);
        }
    return 0;
}

/* The one-sided operations of rec (of type k) at t: RMA events. */
static inline int rma_events(pal_events *e, const rkind *k, const pal_record *rec,
                             const lane *l, int64_t t)
{
    return k->any_rma && e->regions ? rma_some(e, k, rec, l, t) : 0;
}

/* A definition: its names and communicator learned, its event made. */
static pal_event *define(pal_events *e, const rkind *k, const pal_record *rec)
{
    const char *s;
    size_t len;
    /* only definitions define names (a reference's target is one); an id
     * may have its name now */
    if (pal_names_add(e->names, rec) != PAL_OK)
        return NULL;
    if (e->nid) {
        memset(e->idc, 0, e->idcap * sizeof *e->idc);
        e->nid = 0;
    }
    if (k->comm_def && pal_record_str(rec, e->h[H_MEMBERS], &s, &len) == PAL_OK) {
        const char *rs = "";
        size_t rl = 0;
        if (e->h[H_REMOTE] && pal_record_str(rec, e->h[H_REMOTE], &rs, &rl) != PAL_OK)
            rs = "", rl = 0;
        if (pal_matcher_define_text(e->m, rec->process, geti(rec, k, H_COMM, -1),
                                    geti(rec, k, H_SIZE, 0), s, len, rs, rl) == PAL_ENOMEM)
            return NULL;
    }
    return emit(e, PAL_EV_DEFINITION, rec, NULL, time_ns(k, rec));
}

/* A record of a definitions stream another share owns (pal_reader_set_share):
 * a definition is learned and said as BORROWED, anything else is its
 * owner's alone. */
static int borrowed(pal_events *e, const pal_record *rec)
{
    const rkind *k = classify(e, rec->desc);
    if (k == NULL)
        return -1;
    if (k->prim != PAL_ROLE_DEFINITION)
        return 0;
    pal_event *v = define(e, k, rec);
    if (v == NULL)
        return -1;
    v->flags |= PAL_EVF_BORROWED;
    return 0;
}

/* The events of one record (of type k), in e->out. */
static int feed(pal_events *e, const rkind *k, const pal_record *rec, int64_t t)
{
    uint32_t process = rec->process;
    const char *s;
    size_t len;
    int rc = 0;
    pal_event *v;
    if (k->prim == PAL_ROLE_DEFINITION)
        return define(e, k, rec) ? 0 : -1;
    if (k->prim == PAL_ROLE_METADATA)
        return 0;
    if (k->prim == PAL_ROLE_NONE || k->prim == PAL_ROLE_STATE) {
        /* no event, but the thread was alive then */
        return lane_seen(e, process, rec, t) ? 0 : -1;
    }
    if ((k->prim == PAL_ROLE_PROCESS_BEGIN || k->prim == PAL_ROLE_PROCESS_END) &&
        !(k->flags & PAL_EVF_SETUP))
        return emit(e, k->prim == PAL_ROLE_PROCESS_BEGIN ? PAL_EV_PROCESS_BEGIN
                                                         : PAL_EV_PROCESS_END,
                    rec, NULL, t)
                   ? 0
                   : -1;
    lane *l = lane_seen(e, process, rec, t);
    if (l == NULL)
        return -1;
    switch (k->prim) {
    case PAL_ROLE_ENTER: {
        if (open_frame(e, k, rec, l, t) == NULL)
            return -1;
        if (has(rec, k, C_SEND))
            record_message(e, k, rec, l, PAL_MATCH_SEND, t, &rc);
        if (has(rec, k, C_RECV) && has(rec, k, C_UNTIMED)) {
            if (untimed_recv(e, k, rec, l, t))
                return -1;
        } else if (has(rec, k, C_RECV)) {
            /* received when the frame closes; the leave may say from whom */
            l->stk[l->depth - 1].recv = 1;
            l->stk[l->depth - 1].peer = peer_of(k, rec, PAL_MATCH_RECV);
            l->stk[l->depth - 1].tag = tag_of(k, rec, PAL_MATCH_RECV);
        }
        if (rma_events(e, k, rec, l, t))
            return -1;
        break;
    }
    case PAL_ROLE_LEAVE: {
        size_t nlen;
        const char *name = region_of(e, k, rec, &nlen);
        if (name == NULL)
            return -1;
        size_t dp = l->depth;
        while (dp > 0 && l->stk[dp - 1].name != name)
            dp--;
        if (dp == 0) {   /* a leave without its enter */
            if (!e->regions)
                break;
            v = emit(e, PAL_EV_LEAVE, rec, l, t);
            if (v == NULL)
                return -1;
            v->name = name;
            v->name_len = nlen;
            v->flags = k->flags | PAL_EVF_UNMATCHED | PAL_EVF_ORPHAN;
            v->start = t;
            break;
        }
        frame *fr = &l->stk[dp - 1];
        if (fr->flags & PAL_EVF_COLLECTIVE) {   /* the exit may say the root */
            int64_t root = geti(rec, k, H_ROOT, -1);
            if (root >= 0)
                fr->root = root;
        }
        if (k->bytes)
            fr->bytes = all_bytes(k, rec);   /* the exit may carry the data */
        if (k->args) {   /* ... and the communicator (an OTF2 CollectiveEnd's) */
            int64_t c = geti(rec, k, H_COMM, -1);
            if (c >= 0) {
                fr->comm = c;
                fr->comm_flags = k->comm_global ? PAL_MATCH_GLOBAL_COMM : 0;
            }
        }
        if (fr->op == PAL_COLL_OP_NONE)
            fr->op = k->op;
        if (fr->recv) {   /* any source: the actual one may come with the exit */
            int64_t p = peer_of(k, rec, PAL_MATCH_RECV);
            if (p >= 0)
                fr->peer = p;
            int64_t tag = geti(rec, k, H_TAG, -1);
            if (tag >= 0)
                fr->tag = tag;
        }
        if (has(rec, k, C_SEND))
            record_message(e, k, rec, l, PAL_MATCH_SEND, t, &rc);
        if (has(rec, k, C_RECV) && !fr->recv) {
            if (!has(rec, k, C_UNTIMED))
                record_message(e, k, rec, l, PAL_MATCH_RECV, t, &rc);
            else if (untimed_recv(e, k, rec, l, t))
                return -1;
        }
        if (rma_events(e, k, rec, l, t))
            return -1;
        while (l->depth >= dp)   /* frames above the match left without a leave */
            if (pop(e, rec, l, t, l->depth > dp ? PAL_EVF_UNMATCHED : 0))
                return -1;
        break;
    }
    case PAL_ROLE_CALL:
    case PAL_ROLE_PROCESS_BEGIN:
    case PAL_ROLE_PROCESS_END: {
        /* PAL_EVENTS_MESSAGES: its messages alone, no region */
        int region = e->regions;
        if (!region && !k->send && !k->recv)
            break;
        int64_t ns = 0;
        pal_record_duration_ns(rec, &ns);
        int64_t start = t - ns;
        if (region && open_frame(e, k, rec, l, start) == NULL)
            return -1;
        int untimed = has(rec, k, C_UNTIMED);
        if (has(rec, k, C_SEND) && !untimed)
            record_message(e, k, rec, l, PAL_MATCH_SEND, start, &rc);
        if (has(rec, k, C_RECV) && !untimed)
            record_message(e, k, rec, l, PAL_MATCH_RECV, t, &rc);
        else if (has(rec, k, C_RECV) && untimed_recv(e, k, rec, l, t))
            return -1;
        if (region && (rma_events(e, k, rec, l, start) || pop(e, rec, l, t, 0)))
            return -1;
        break;
    }
    case PAL_ROLE_OVERHEAD: {
        int64_t ns = 0;
        pal_record_duration_ns(rec, &ns);
        if ((v = emit(e, PAL_EV_OVERHEAD, rec, l, t)) == NULL)
            return -1;
        v->duration = ns;
        if (t + ns > l->last)
            l->last = t + ns;
        break;
    }
    case PAL_ROLE_REQUEST_COMPLETE:
    case PAL_ROLE_REQUEST_START:
    case PAL_ROLE_MESSAGE:
        /* a message sent or received at this instant; one whose completion
         * was not seen (untimed) is no end: a receive is kept apart */
        if (k->prim == PAL_ROLE_REQUEST_COMPLETE && e->nnb) {
            int64_t q = geti(rec, k, H_REQUEST, 0);
            if (q > 0 && nb_completed(e, rec, l, (uint64_t)q, t))
                return -1;
        }
        if (has(rec, k, C_UNTIMED)) {
            if (has(rec, k, C_RECV) && untimed_recv(e, k, rec, l, t))
                return -1;
            break;
        }
        if (has(rec, k, C_SEND))
            record_message(e, k, rec, l, PAL_MATCH_SEND, t, &rc);
        if (has(rec, k, C_RECV))
            record_message(e, k, rec, l, PAL_MATCH_RECV, t, &rc);
        break;
    case PAL_ROLE_MARKER:
        if ((v = emit(e, PAL_EV_MARKER, rec, l, t)) == NULL)
            return -1;
        if (e->h[H_TEXT] && pal_record_str(rec, e->h[H_TEXT], &s, &len) == PAL_OK) {
            v->name = s;
            v->name_len = len;
        }
        break;
    case PAL_ROLE_COUNTER: {
        double val;
        if (e->h[H_VALUE] == NULL || pal_record_f64(rec, e->h[H_VALUE], &val) != PAL_OK)
            val = NAN;   /* a sample that says no value: counted, not used */
        if ((v = emit(e, PAL_EV_COUNTER, rec, l, t)) == NULL)
            return -1;
        v->value = val;
        if (e->h[H_COUNTER] == NULL) {
            v->name = "counter";
            v->name_len = 7;
        } else if (pal_record_str(rec, e->h[H_COUNTER], &s, &len) == PAL_OK ||
                   pal_names_handle(e->names, rec, e->h[H_COUNTER], &s, &len) == PAL_OK) {
            v->name = s;
            v->name_len = len;
        } else {
            int n = snprintf(e->idbuf, sizeof e->idbuf, "counter#%lld",
                             (long long)geti(rec, k, H_COUNTER, -1));
            v->name = e->idbuf;
            v->name_len = (size_t)n;
        }
        break;
    }
    case PAL_ROLE_LOST:
        if ((v = emit(e, PAL_EV_LOST, rec, l, t)) == NULL)
            return -1;
        v->count = (uint64_t)geti(rec, k, H_COUNT, 1);
        break;
    case PAL_ROLE_THREAD_BEGIN:
    case PAL_ROLE_THREAD_END:
    case PAL_ROLE_PAUSE:
    case PAL_ROLE_RESUME:
        if (!emit(e, k->prim == PAL_ROLE_THREAD_BEGIN ? PAL_EV_THREAD_BEGIN
                     : k->prim == PAL_ROLE_THREAD_END ? PAL_EV_THREAD_END
                     : k->prim == PAL_ROLE_PAUSE      ? PAL_EV_PAUSE
                                                      : PAL_EV_RESUME,
                  rec, l, t))
            return -1;
        break;
    default:
        break;
    }
    return rc;
}

/* The end of the trace: frames still open close at their lane's last time;
 * collective instances not complete come out with the members seen. Both
 * in the order their lanes and instances were first seen, so that what a
 * consumer sums comes out the same whatever the hash tables hold. */
static int finish(pal_events *e)
{
    for (size_t i = 0; i < e->nlanes; i++) {
        lane *l = lane_get(e, (uint32_t)(e->lorder[i] >> 32), (uint32_t)e->lorder[i]);
        while (l && l->depth)
            if (pop(e, NULL, l, l->last, PAL_EVF_UNMATCHED))
                return -1;
    }
    /* nonblocking collectives whose completion was not seen: as far as known */
    for (size_t i = 0; i < e->nnb; i++) {
        lane *l = lane_get(e, e->nb[i].process, e->nb[i].stream);
        if (l == NULL || coll_add(e, NULL, l, &e->nb[i].fr, l->last, e->nb[i].seq,
                                  PAL_EVF_NONBLOCKING | PAL_EVF_UNMATCHED))
            return -1;
    }
    e->nnb = 0;
    for (size_t i = 0; i < e->ncqs; i++) {
        cqueue *q = cq_get(e, e->cqorder[i].context, e->cqorder[i].name, 0, 0, 0);
        for (size_t j = q->head; j < q->n; j++)
            if (q->q[j].c.members && coll_done(e, q, &q->q[j].c, q->q[j].c.max_end))
                return -1;
        q->head = q->n = 0;
    }
    /* untimed receives take the sends left over, once every end is in */
    if (e->options & PAL_EVENTS_SETTLE) {
        pal_matcher_settle(e->m, settled, e);
        if (e->settle_failed)
            return -1;
    }
    return 0;
}

pal_status pal_events_create(pal_reader *r, pal_events **out)
{
    if (out == NULL)
        return PAL_EINVAL;
    *out = NULL;
    if (r == NULL)
        return PAL_EINVAL;
    pal_events *e = calloc(1, sizeof *e);
    if (e == NULL || pal_names_create(&e->names) != PAL_OK ||
        pal_matcher_create(&e->m) != PAL_OK) {
        pal_events_destroy(e);
        return PAL_ENOMEM;
    }
    e->rd = r;
    e->blank.peer = e->blank.root = e->blank.window = e->blank.request = -1;
    e->blank.op = PAL_COLL_OP_NONE;
    e->blank.rma = PAL_RMA_KIND_NONE;
    e->evsize = sizeof e->blank;
    e->none = e->blank;
    e->none.kind = PAL_EV_NONE;
    e->regions = 1;
    pal_reader_lend_definitions(r);   /* a share's threads need their names */
    for (int h = 0; h < H_N; h++)
        pal_reader_role_handle(r, hrole[h], &e->h[h]);
    *out = e;
    return PAL_OK;
}

void pal_events_destroy(pal_events *e)
{
    if (e == NULL)
        return;
    for (size_t i = 0; i < e->lcap; i++)
        free(e->lanes[i].stk);
    free(e->lanes);
    free(e->lorder);
    free(e->cqorder);
    for (size_t i = 0; i < e->cqcap; i++)
        free(e->cqs[i].q);
    free(e->cqs);
    free(e->seq);
    free(e->nb);
    for (size_t i = 0; i < e->icap; i++)
        free(e->istr[i]);
    free(e->istr);
    free(e->idc);
    free(e->k);
    free(e->out);
    free(e->shape);
    pal_names_destroy(e->names);
    pal_matcher_destroy(e->m);
    free(e);
}

pal_status pal_events_set_options(pal_events *e, unsigned options)
{
    if (e == NULL ||
        (options & ~(PAL_EVENTS_EVERY_RECORD | PAL_EVENTS_SETTLE | PAL_EVENTS_MESSAGES)) ||
        e->started)
        return PAL_EINVAL;
    e->options = options;
    e->regions = !(options & PAL_EVENTS_MESSAGES);
    return PAL_OK;
}


/* pal_events_next when the events of the last record are all out: the
 * next record's (or the end's). */
static PAL_NOINLINE pal_status next_read(pal_events *e, const pal_event **out)
{
    e->started = 1;
    while (e->next >= e->nout) {
        e->nout = e->next = 0;
        if (e->ended)
            return PAL_END;
        const pal_record *rec;
        pal_status st = pal_reader_next(e->rd, &rec);
        if (st == PAL_END) {
            e->ended = 1;
            if (finish(e))
                return PAL_ENOMEM;
            continue;
        }
        if (st != PAL_OK)
            return st;
        if (pal_reader_borrowed(e->rd)) {
            if (borrowed(e, rec)) {
                e->nout = 0;
                return PAL_ENOMEM;
            }
            continue;
        }
        const rkind *k = classify(e, rec->desc);
        if (k == NULL) {
            e->nout = 0;
            return PAL_ENOMEM;
        }
        int64_t t = time_ns(k, rec);
        if (k->quiet) {   /* no event: the thread was alive then, or a metadata record */
            if (k->quiet == Q_LANE && lane_seen(e, rec->process, rec, t) == NULL)
                return PAL_ENOMEM;
        } else if (feed(e, k, rec, t)) {
            e->nout = 0;
            return PAL_ENOMEM;
        }
        if (!(e->options & PAL_EVENTS_EVERY_RECORD))
            continue;
        if (e->nout == 0) {   /* a record of no event: its NONE, ready made */
            pal_event *v = &e->none;
            v->record = rec;
            v->process = rec->process;
            v->stream = rec->stream;
            v->time = t;
            v->flags = PAL_EVF_RECORD | (k->prim == PAL_ROLE_METADATA ? PAL_EVF_METADATA : 0);
            *out = v;
            return PAL_OK;
        }
        e->out[0].flags |= PAL_EVF_RECORD;   /* its first event says the record */
    }
    *out = &e->out[e->next++];
    return PAL_OK;
}

pal_status pal_events_next(pal_events *e, const pal_event **out)
{
    if (e == NULL || out == NULL)
        return PAL_EINVAL;
    if (e->next < e->nout) {   /* the current record's next event */
        *out = &e->out[e->next++];
        return PAL_OK;
    }
    return next_read(e, out);
}

const pal_names *pal_events_names(const pal_events *e)
{
    return e ? e->names : NULL;
}

const pal_matcher *pal_events_matcher(const pal_events *e)
{
    return e ? e->m : NULL;
}

const char *pal_event_kind_name(pal_event_kind k)
{
    static const char *const n[] = {
#define X(id, name) name,
        PAL_EVENT_KINDS(X)
#undef X
    };
    return (unsigned)k < sizeof n / sizeof n[0] ? n[k] : NULL;
}
