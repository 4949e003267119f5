/* events.c -- the semantic layer under every analysis: the vocabulary of
 * collective operations and one-sided kinds (one X-macro table, pal.h), the
 * member lists of communicators, and the one message matcher with its one
 * key (doc/pal.md, "Messages: the matcher"). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "pal/pal.h"

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
typedef struct comm {
    uint64_t key;           /* (process << 32 | id), process PAL_MATCH_ANY_PROCESS: global */
    uint64_t context;       /* equal on every member */
    uint32_t size;
    int used;
} comm;

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

struct pal_matcher {
    comm *comms;
    size_t ccap, ncomms;
    mqueue *qs;
    size_t qcap, nqs;
    uint64_t waiting[2];
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
    free(m);
}

static comm *comm_slot(comm *t, size_t cap, uint64_t key)
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
    comm *t = calloc(ncap, sizeof *t);
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
    comm *c = comm_slot(m->comms, m->ccap, key);
    if (c->used && keep)
        return PAL_OK;
    if (!c->used)
        m->ncomms++;
    *c = (comm){key, context, size, 1};
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
    return define_group(m, process, id, g, (uint32_t)n);
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
    if (rlen) {   /* an intercommunicator: the same on both sides */
        size_t rn = 0;
        if (pal_members_parse(remote, rlen, NULL, 0, &rn) != PAL_OK || rn > PAL_MATCH_MAX_MEMBERS)
            rn = 0;
        g ^= text_group(remote, rlen, rn);
    }
    return define_group(m, process, id, g, (uint32_t)size);
}

pal_status pal_matcher_context(const pal_matcher *m, uint32_t process, int64_t id,
                               unsigned flags, uint64_t *context, uint32_t *size)
{
    if (m == NULL || context == NULL)
        return PAL_EINVAL;
    if (flags & PAL_MATCH_GLOBAL_COMM)
        process = GLOBAL_PROCESS;
    if (id >= 0 && m->ccap) {
        const comm *c = comm_slot(m->comms, m->ccap, (uint64_t)process << 32 | (uint32_t)id);
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

pal_status pal_matcher_post(pal_matcher *m, int side, int64_t peer, int64_t tag,
                            int64_t comm_id, unsigned flags, const pal_msg_end *end,
                            pal_msg_end *partner)
{
    if (end == NULL || partner == NULL)
        return PAL_EINVAL;
    pal_msg_key key;
    pal_status st = pal_matcher_key(m, side, end->process, peer, tag, comm_id, flags, &key);
    if (st != PAL_OK)
        return st;
    mkey k = {key.src, key.dst, key.tag, key.context};
    mqueue *q = q_get(m, &k);
    if (q == NULL)
        return PAL_ENOMEM;
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
    if (q->n == q->cap) {
        size_t ncap = q->cap ? q->cap * 2 : 4;
        pal_msg_end *nq = realloc(q->q, ncap * sizeof *nq);
        if (nq == NULL)
            return PAL_ENOMEM;
        q->q = nq;
        q->cap = ncap;
    }
    q->side = side;
    q->q[q->n++] = *end;
    m->waiting[side]++;
    return PAL_END;
}

void pal_matcher_waiting(const pal_matcher *m, uint64_t *sends, uint64_t *recvs)
{
    if (sends)
        *sends = m ? m->waiting[PAL_MATCH_SEND] : 0;
    if (recvs)
        *recvs = m ? m->waiting[PAL_MATCH_RECV] : 0;
}
