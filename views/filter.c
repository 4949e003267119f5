/* filter.c -- the filter manager: reads every record through PAL, classifies
 * it with the mapping layer and feeds the filters: process state (busy,
 * overhead, idle per lane over time bins), call trees and region statistics
 * (tolerant of unbalanced enter/leave), and message matching. Memory depends
 * on the number of lanes, regions, call paths and unmatched messages, not on
 * the trace length: time is kept in a fixed number of bins whose width
 * doubles when the run outgrows them. */
#include <config.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "views/vw.h"

#define NBINS 1024
#define MSG_SAMPLE 4096

/* ---------------- a small uint64 -> long hash map ---------------- */
typedef struct hmap {
    uint64_t *keys;
    long *vals;
    size_t cap, n;
} hmap;

static uint64_t mix(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ULL;
    k ^= k >> 33;
    return k;
}

static long hget(const hmap *h, uint64_t key)
{
    if (h->cap == 0)
        return -1;
    for (size_t i = mix(key) & (h->cap - 1);; i = (i + 1) & (h->cap - 1)) {
        if (h->vals[i] < 0)
            return -1;
        if (h->keys[i] == key)
            return h->vals[i];
    }
}

static int hput(hmap *h, uint64_t key, long val)
{
    if ((h->n + 1) * 2 > h->cap) {
        size_t ncap = h->cap ? h->cap * 2 : 64;
        uint64_t *nk = malloc(ncap * sizeof *nk);
        long *nv = malloc(ncap * sizeof *nv);
        if (!nk || !nv) {
            free(nk);
            free(nv);
            return -1;
        }
        for (size_t i = 0; i < ncap; i++)
            nv[i] = -1;
        for (size_t i = 0; i < h->cap; i++)
            if (h->vals[i] >= 0) {
                size_t j = mix(h->keys[i]) & (ncap - 1);
                while (nv[j] >= 0)
                    j = (j + 1) & (ncap - 1);
                nk[j] = h->keys[i];
                nv[j] = h->vals[i];
            }
        free(h->keys);
        free(h->vals);
        h->keys = nk;
        h->vals = nv;
        h->cap = ncap;
    }
    size_t i = mix(key) & (h->cap - 1);
    while (h->vals[i] >= 0 && h->keys[i] != key)
        i = (i + 1) & (h->cap - 1);
    if (h->vals[i] < 0)
        h->n++;
    h->keys[i] = key;
    h->vals[i] = val;
    return 0;
}

static void hfree(hmap *h)
{
    free(h->keys);
    free(h->vals);
}

static uint64_t strhash(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
    return h;
}

#define GROW(arr, n, cap)                                                               \
    ((n) < (cap) ? 0                                                                   \
                 : ((cap) = (cap) ? (cap) * 2 : 16,                                      \
                    ((arr) = realloc_or_free((arr), (cap) * sizeof *(arr))) ? 0 : -1))

static void *realloc_or_free(void *p, size_t n)
{
    void *q = realloc(p, n);
    if (q == NULL)
        free(p);
    return q;
}

/* ---------------- run state ---------------- */
typedef struct frame {
    long region, node;
    double start, child;
    int role;
    unsigned flags;
    int64_t peer, tag, comm;
    uint64_t bytes;
} frame;

typedef struct lane {
    vw_lane pub;
    frame *stack;
    size_t depth, cap;
    double *bins;
    vw_stat *rstat;
    size_t nrstat;
    double last;
    int started;
} lane;

typedef struct pending {  /* an unmatched send or receive */
    double t;
    uint64_t bytes;
    size_t lane;
} pending;

typedef struct queue {
    uint64_t k1, k2;      /* (src,dst) and (tag,comm) */
    int side;             /* 0: sends waiting, 1: receives waiting */
    pending *q;
    size_t head, n, cap;
} queue;

typedef struct comminfo {   /* a communicator of one process */
    uint64_t group;         /* hash of its world ranks: equal on every member */
    uint32_t size;
    uint32_t *world;        /* communicator rank -> world rank, NULL if unknown */
} comminfo;

typedef struct cinst {      /* one collective instance being assembled */
    uint32_t seen;
    double min_start, max_start;
} cinst;

typedef struct cqueue {     /* the pending instances of one collective on one group */
    uint64_t key;
    long region;
    uint32_t size;
    uint64_t base;          /* sequence number of q[head] */
    cinst *q;
    size_t head, n, cap;
} cqueue;

struct vw_run {
    vw_facts f;
    comminfo *comms;
    size_t ncomms, commcap;
    hmap comm_by_id;        /* (process<<32|comm) -> comms index */
    cqueue *cqs;
    size_t ncqs, cqcap;
    hmap cq_of, coll_seq;
    const vw_sink *sink;
    double base_ticks, tps;
    int have_base;
    double width;
    double *util;
    lane *lanes;
    size_t nlanes, lanecap;
    hmap lane_of;
    vw_region *regions;
    size_t nregions, regcap;
    hmap region_by_name, region_by_id;
    char **names;     /* owned strings */
    size_t nnames, namecap;
    vw_node *nodes;
    size_t nnodes, nodecap;
    hmap node_by_key;
    hmap thread_names;    /* (process<<32|stream) -> index into names */
    queue *queues;
    size_t nqueues, qcap;
    hmap queue_of;
    hmap comm_of;         /* (src<<32|dst) -> index */
    uint64_t *c_count;
    double *c_bytes;
    uint32_t *c_src, *c_dst;
    size_t nc, ccap;
    vw_msg *msgs;
    size_t nmsgs;
    uint64_t rng, flow_id;
    uint32_t *ranks;
    uint64_t *mcount;
    double *mbytes, *rwait;
    char first_trace[4096];
    char dict_name[128];
};

static char *own(vw_run *r, const char *s, size_t n)
{
    if (GROW(r->names, r->nnames, r->namecap))
        return NULL;
    char *c = malloc(n + 1);
    if (c == NULL)
        return NULL;
    memcpy(c, s, n);
    c[n] = '\0';
    r->names[r->nnames++] = c;
    return c;
}

/* ---------------- time bins ---------------- */
static void halve(double *b)
{
    for (size_t i = 0; i < NBINS / 2; i++)
        for (int s = 0; s < VW_NSTATES; s++)
            b[i * VW_NSTATES + s] = b[2 * i * VW_NSTATES + s] + b[(2 * i + 1) * VW_NSTATES + s];
    memset(b + NBINS / 2 * VW_NSTATES, 0, NBINS / 2 * VW_NSTATES * sizeof *b);
}

static void cover(vw_run *r, double t)
{
    while (t >= r->width * NBINS) {
        halve(r->util);
        for (size_t i = 0; i < r->nlanes; i++)
            halve(r->lanes[i].bins);
        r->width *= 2;
    }
}

static void add_interval(vw_run *r, lane *l, int state, double a, double b)
{
    if (a < 0)
        a = 0;
    if (!(b > a))
        return;
    cover(r, b);
    size_t i = (size_t)(a / r->width);
    while (a < b && i < NBINS) {
        double end = (double)(i + 1) * r->width;
        double piece = (b < end ? b : end) - a;
        r->util[i * VW_NSTATES + state] += piece;
        l->bins[i * VW_NSTATES + state] += piece;
        a = end;
        i++;
    }
}

/* ---------------- lanes, regions, nodes ---------------- */
static long lane_get(vw_run *r, uint32_t process, uint32_t stream)
{
    uint64_t key = (uint64_t)process << 32 | stream;
    long i = hget(&r->lane_of, key);
    if (i >= 0)
        return i;
    if (GROW(r->lanes, r->nlanes, r->lanecap))
        return -1;
    lane *l = &r->lanes[r->nlanes];
    memset(l, 0, sizeof *l);
    l->pub.process = process;
    l->pub.stream = stream;
    l->pub.name = "";
    l->bins = calloc(NBINS * VW_NSTATES, sizeof *l->bins);
    if (l->bins == NULL || hput(&r->lane_of, key, (long)r->nlanes))
        return -1;
    return (long)r->nlanes++;
}

static long region_named(vw_run *r, const char *name, size_t len, int kind)
{
    uint64_t h = strhash(name, len) ^ (uint64_t)kind;
    for (;; h++) {
        long i = hget(&r->region_by_name, h);
        if (i < 0)
            break;
        if (strlen(r->regions[i].name) == len && memcmp(r->regions[i].name, name, len) == 0)
            return i;
    }
    if (GROW(r->regions, r->nregions, r->regcap))
        return -1;
    char *c = own(r, name, len);
    if (c == NULL)
        return -1;
    vw_region *g = &r->regions[r->nregions];
    memset(g, 0, sizeof *g);
    g->name = c;
    g->kind = kind;
    if (hput(&r->region_by_name, h, (long)r->nregions))
        return -1;
    return (long)r->nregions++;
}

static long region_of_id(vw_run *r, uint32_t process, uint64_t id, const char *prefix)
{
    uint64_t key = (uint64_t)process << 40 ^ id;
    long i = hget(&r->region_by_id, key);
    if (i >= 0)
        return i;
    char buf[64];
    int n = snprintf(buf, sizeof buf, "%.40s%llu", prefix ? prefix : "region#",
                     (unsigned long long)id);
    i = region_named(r, buf, (size_t)n, VW_REGION_USER);
    if (i >= 0)
        hput(&r->region_by_id, key, i);
    return i;
}

static long node_get(vw_run *r, long parent, long region)
{
    uint64_t key = (uint64_t)(parent + 1) << 32 | (uint64_t)(region + 1);
    long i = hget(&r->node_by_key, key);
    if (i >= 0)
        return i;
    if (GROW(r->nodes, r->nnodes, r->nodecap))
        return -1;
    vw_node *n = &r->nodes[r->nnodes];
    memset(n, 0, sizeof *n);
    n->region = region;
    n->parent = parent;
    n->first_child = n->next_sibling = -1;
    if (parent >= 0) {
        /* append to keep children in first-seen order */
        long *p = &r->nodes[parent].first_child;
        while (*p >= 0)
            p = &r->nodes[*p].next_sibling;
        *p = (long)r->nnodes;
    }
    if (hput(&r->node_by_key, key, (long)r->nnodes))
        return -1;
    return (long)r->nnodes++;
}

static vw_stat *lane_rstat(lane *l, long region)
{
    if ((size_t)region >= l->nrstat) {
        size_t n = l->nrstat ? l->nrstat : 16;
        while (n <= (size_t)region)
            n *= 2;
        vw_stat *s = realloc(l->rstat, n * sizeof *s);
        if (s == NULL)
            return NULL;
        memset(s + l->nrstat, 0, (n - l->nrstat) * sizeof *s);
        l->rstat = s;
        l->nrstat = n;
    }
    return &l->rstat[region];
}

/* ---------------- communicators and collectives ---------------- */
static void comm_def(vw_run *r, uint32_t process, int64_t comm, int64_t size, const char *s,
                     size_t len)
{
    if (comm < 0 || size <= 0 || size > (1 << 24))
        return;
    if (GROW(r->comms, r->ncomms, r->commcap))
        return;
    comminfo *c = &r->comms[r->ncomms];
    c->group = strhash(s, len) ^ (uint64_t)size;
    c->size = (uint32_t)size;
    c->world = malloc((size_t)size * sizeof *c->world);
    size_t n = 0;
    const char *p = s, *end = s + len;
    while (c->world && p < end) {
        while (p < end && *p == ' ')
            p++;
        if (p >= end)
            break;
        unsigned long a = 0, b;
        int digits = 0;
        while (p < end && *p >= '0' && *p <= '9')
            a = a * 10 + (unsigned long)(*p++ - '0'), digits++;
        b = a;
        if (p < end && *p == '-') {
            p++;
            b = 0;
            while (p < end && *p >= '0' && *p <= '9')
                b = b * 10 + (unsigned long)(*p++ - '0'), digits++;
        }
        if (!digits || b < a || (p < end && *p != ' ')) {
            n = 0;
            break;
        }
        for (unsigned long k = a; k <= b && n < (size_t)size; k++)
            c->world[n++] = (uint32_t)k;
    }
    if (n != (size_t)size) {
        free(c->world);
        c->world = NULL;
    }
    if (hput(&r->comm_by_id, (uint64_t)process << 32 | (uint32_t)comm, (long)r->ncomms)) {
        free(c->world);
        return;
    }
    r->ncomms++;
}

static const comminfo *comm_find(const vw_run *r, uint32_t process, int64_t comm)
{
    if (comm < 0)
        return NULL;
    long i = hget(&r->comm_by_id, (uint64_t)process << 32 | (uint32_t)comm);
    return i >= 0 ? &r->comms[i] : NULL;
}

static void coll_done(vw_run *r, long region, const cinst *c)
{
    vw_region *g = &r->regions[region];
    double spread = c->max_start - c->min_start;
    g->instances++;
    g->spread_sum += spread;
    if (spread > g->spread_max)
        g->spread_max = spread;
}

/* The k-th call of a collective by a process on a communicator is the k-th
 * instance of it on that communicator's group. */
static void coll_add(vw_run *r, uint32_t process, int64_t comm, long region, double start)
{
    const comminfo *ci = comm_find(r, process, comm);
    uint64_t group = ci ? ci->group : mix((uint64_t)comm + 1);
    uint64_t key = group ^ mix((uint64_t)region + 7);
    uint64_t skey = mix(key) ^ process;
    long seq = hget(&r->coll_seq, skey);
    seq = seq < 0 ? 0 : seq;
    if (hput(&r->coll_seq, skey, seq + 1))
        return;
    cqueue *q = NULL;
    for (uint64_t h = key;; h++) {
        long i = hget(&r->cq_of, h);
        if (i < 0)
            break;
        if (r->cqs[i].key == key) {
            q = &r->cqs[i];
            break;
        }
    }
    if (q == NULL) {
        if (GROW(r->cqs, r->ncqs, r->cqcap))
            return;
        uint64_t h = key;
        while (hget(&r->cq_of, h) >= 0)
            h++;
        q = &r->cqs[r->ncqs];
        memset(q, 0, sizeof *q);
        q->key = key;
        q->region = region;
        q->size = ci ? ci->size : 0;
        if (hput(&r->cq_of, h, (long)r->ncqs))
            return;
        r->ncqs++;
    }
    if ((uint64_t)seq < q->base)
        return;   /* its instance was completed without it: cannot happen with sizes */
    size_t idx = q->head + (size_t)((uint64_t)seq - q->base);
    while (q->n <= idx) {
        if (q->head > 0 && q->head * 2 >= q->n) {
            memmove(q->q, q->q + q->head, (q->n - q->head) * sizeof *q->q);
            q->n -= q->head;
            idx -= q->head;
            q->head = 0;
        }
        if (GROW(q->q, q->n, q->cap)) {
            q->n = q->head = q->cap = 0;
            return;
        }
        q->q[q->n++] = (cinst){0, 0, 0};
    }
    cinst *c = &q->q[idx];
    if (c->seen == 0 || start < c->min_start)
        c->min_start = start;
    if (c->seen == 0 || start > c->max_start)
        c->max_start = start;
    c->seen++;
    while (q->size && q->head < q->n && q->q[q->head].seen >= q->size) {
        coll_done(r, q->region, &q->q[q->head]);
        q->head++;
        q->base++;
    }
    if (q->head == q->n)
        q->head = q->n = 0;
}

/* ---------------- messages ---------------- */
static void comm_add(vw_run *r, uint32_t src, uint32_t dst, uint64_t bytes)
{
    uint64_t key = (uint64_t)src << 32 | dst;
    long i = hget(&r->comm_of, key);
    if (i < 0) {
        if (GROW(r->c_count, r->nc, r->ccap) < 0)
            return;
        size_t cap = r->ccap;
        double *b = realloc(r->c_bytes, cap * sizeof *b);
        uint32_t *s = b ? realloc(r->c_src, cap * sizeof *s) : NULL;
        if (b)
            r->c_bytes = b;
        if (s)
            r->c_src = s;
        uint32_t *d = s ? realloc(r->c_dst, cap * sizeof *d) : NULL;
        if (d == NULL)
            return;
        r->c_dst = d;
        i = (long)r->nc++;
        r->c_count[i] = 0;
        r->c_bytes[i] = 0;
        r->c_src[i] = src;
        r->c_dst[i] = dst;
        hput(&r->comm_of, key, i);
    }
    r->c_count[i]++;
    r->c_bytes[i] += (double)bytes;
}

static queue *queue_get(vw_run *r, uint32_t src, uint32_t dst, int64_t tag, int64_t comm)
{
    uint64_t k1 = (uint64_t)src << 32 | dst, k2 = (uint64_t)tag << 32 ^ (uint64_t)comm;
    uint64_t h = mix(k1) ^ k2;
    for (;; h++) {
        long i = hget(&r->queue_of, h);
        if (i < 0)
            break;
        if (r->queues[i].k1 == k1 && r->queues[i].k2 == k2)
            return &r->queues[i];
    }
    if (GROW(r->queues, r->nqueues, r->qcap))
        return NULL;
    queue *q = &r->queues[r->nqueues];
    memset(q, 0, sizeof *q);
    q->k1 = k1;
    q->k2 = k2;
    if (hput(&r->queue_of, h, (long)r->nqueues))
        return NULL;
    r->nqueues++;
    return q;
}

static void matched(vw_run *r, size_t slane, double ts, size_t dlane, double tr, uint64_t bytes)
{
    vw_msg m = {0, 0, slane, dlane, ts, tr, bytes};
    r->f.matched++;
    double lat = tr - ts;
    r->f.latency_sum += lat;
    if (lat > r->f.latency_max)
        r->f.latency_max = lat;
    uint64_t id = ++r->flow_id;
    if (r->sink && r->sink->flow)
        r->sink->flow(r->sink->ctx, &m, id, r->lanes[slane].pub.process,
                      r->lanes[slane].pub.stream, r->lanes[dlane].pub.process,
                      r->lanes[dlane].pub.stream);
    if (r->nmsgs < MSG_SAMPLE) {
        r->msgs[r->nmsgs++] = m;
    } else {   /* reservoir sample, deterministic */
        r->rng = r->rng * 6364136223846793005ULL + 1442695040888963407ULL;
        uint64_t j = (r->rng >> 11) % r->f.matched;
        if (j < MSG_SAMPLE)
            r->msgs[j] = m;
    }
}

/* side 0: a send from lane's process to peer; side 1: a receive from peer. */
static void message(vw_run *r, size_t li, int side, int64_t peer, int64_t tag, int64_t comm,
                    double t, uint64_t bytes)
{
    if (peer < 0)
        return;
    r->f.has_messages = 1;
    uint32_t me = r->lanes[li].pub.process;
    /* peers are world ranks (doc/mpi.md); communicator ids are per process, so
     * the matching key uses the communicator's group, equal on both sides */
    const comminfo *ci = comm_find(r, me, comm);
    if (ci)
        comm = (int64_t)(ci->group & 0x7fffffffffffffffULL);
    uint32_t src = side == 0 ? me : (uint32_t)peer, dst = side == 0 ? (uint32_t)peer : me;
    if (side == 0) {
        r->f.sends++;
        comm_add(r, src, dst, bytes);
    } else {
        r->f.recvs++;
    }
    queue *q = queue_get(r, src, dst, tag < 0 ? 0 : tag, comm);
    if (q == NULL)
        return;
    if (q->n > q->head && q->side != side) {
        pending p = q->q[q->head++];
        if (side == 0)
            matched(r, li, t, p.lane, p.t, bytes);
        else
            matched(r, p.lane, p.t, li, t, p.bytes);
        if (q->head == q->n)
            q->head = q->n = 0;
        return;
    }
    if (q->n == q->head)
        q->head = q->n = 0;
    q->side = side;
    if (q->head > 0 && q->head * 2 >= q->n) {
        memmove(q->q, q->q + q->head, (q->n - q->head) * sizeof *q->q);
        q->n -= q->head;
        q->head = 0;
    }
    if (GROW(q->q, q->n, q->cap)) {
        q->n = q->head = q->cap = 0;
        return;
    }
    q->q[q->n++] = (pending){t, bytes, li};
}

/* ---------------- frames ---------------- */
static void close_frame(vw_run *r, size_t li, frame *fr, double end)
{
    lane *l = &r->lanes[li];
    double dur = end - fr->start;
    if (dur < 0)
        dur = 0;
    double excl = dur - fr->child;
    if (excl < 0)
        excl = 0;
    vw_region *g = &r->regions[fr->region];
    g->all.calls++;
    g->all.total += dur;
    g->all.excl += excl;
    g->all.bytes += (double)fr->bytes;
    if (dur > g->all.max)
        g->all.max = dur;
    vw_stat *s = lane_rstat(l, fr->region);
    if (s) {
        s->calls++;
        s->total += dur;
        s->excl += excl;
        s->bytes += (double)fr->bytes;
        if (dur > s->max)
            s->max = dur;
    }
    if (fr->node >= 0) {
        vw_node *n = &r->nodes[fr->node];
        n->calls++;
        n->incl += dur;
        n->excl += excl;
    }
    if (fr->flags & VW_F_MPI)
        add_interval(r, l, (fr->flags & VW_F_IDLE) ? VW_IDLE : VW_OVERHEAD, fr->start, end);
    if (fr->flags & VW_F_COLL)
        coll_add(r, l->pub.process, fr->comm, fr->region, fr->start);
    if (fr->role == VW_ROLE_RECV)
        message(r, li, 1, fr->peer, fr->tag, fr->comm, end, fr->bytes);
    if (r->sink && r->sink->slice)
        r->sink->slice(r->sink->ctx, li, l->pub.process, l->pub.stream, g->name, g->kind,
                       fr->start, end);
    if (r->sink && r->sink->frame) {
        vw_frame_ev e = {l->pub.process, l->pub.stream, fr->region, g->name, g->kind,
                         (fr->flags & VW_F_IDLE) != 0, (unsigned)l->depth, fr->start,
                         end < fr->start ? fr->start : end, fr->bytes, fr->peer, fr->tag};
        r->sink->frame(r->sink->ctx, &e);
    }
}

static frame *push(vw_run *r, lane *l, long region, double start)
{
    if (GROW(l->stack, l->depth, l->cap))
        return NULL;
    long parent = l->depth ? l->stack[l->depth - 1].node : 0;
    frame *fr = &l->stack[l->depth++];
    memset(fr, 0, sizeof *fr);
    fr->region = region;
    fr->node = node_get(r, parent, region);
    fr->start = start;
    fr->peer = -1;
    if (r->sink && r->sink->frame) {
        vw_frame_ev e = {l->pub.process, l->pub.stream, region, r->regions[region].name,
                         r->regions[region].kind, 0, (unsigned)(l->depth - 1), start, -1, 0,
                         -1, 0};
        r->sink->frame(r->sink->ctx, &e);
    }
    return fr;
}

static void pop(vw_run *r, size_t li, double end)
{
    lane *l = &r->lanes[li];
    frame fr = l->stack[--l->depth];
    close_frame(r, li, &fr, end);
    if (l->depth)
        l->stack[l->depth - 1].child += (end > fr.start ? end - fr.start : 0);
}

/* ---------------- one record ---------------- */
static int64_t geti(const pal_record *rec, const pal_handle *h, int64_t dflt);

/* a byte count: absent or negative (unknown) is 0 */
static uint64_t getbytes(const pal_record *rec, const pal_handle *h)
{
    int64_t v;
    if (h && pal_record_i64(rec, h, &v) == PAL_OK && v > 0)
        return (uint64_t)v;
    return 0;
}

static int64_t geti(const pal_record *rec, const pal_handle *h, int64_t dflt)
{
    int64_t v;
    if (h && pal_record_i64(rec, h, &v) == PAL_OK)
        return v;
    return dflt;
}

typedef struct handles {
    const pal_handle *region, *name, *duration, *peer, *dest, *source, *bytes, *recvbytes, *tag,
        *comm, *stream, *text, *kind, *size, *ranks;
    const char *region_prefix;
} handles;

static const pal_handle *handle(pal_reader *rd, const char *name)
{
    const pal_handle *h = NULL;
    if (name == NULL || pal_reader_handle(rd, name, &h) != PAL_OK)
        return NULL;
    return h;
}

static int feed(vw_run *r, vw_map *map, const handles *H, const pal_record *rec)
{
    const vw_sem *sem = vw_map_classify(map, pal_record_desc(rec));
    if (sem == NULL)
        return -1;
    uint64_t ticks = pal_record_time(rec);
    uint32_t process = pal_record_process(rec);
    uint32_t stream = pal_record_stream(rec);
    r->f.records++;
    if (!r->have_base) {
        r->base_ticks = (double)ticks;
        r->have_base = 1;
    }
    double t = ((double)ticks - r->base_ticks) / r->tps;
    if (r->sink && r->sink->record)
        r->sink->record(r->sink->ctx, rec, t);
    const char *s;
    size_t len;
    switch (sem->ev) {
    case VW_EV_DEF:
        return 0;
    case VW_EV_REGION_DEF: {
        int64_t id = geti(rec, H->region, -1);
        if (id < 0 || H->name == NULL || pal_record_str(rec, H->name, &s, &len) != PAL_OK)
            return 0;
        long g = region_named(r, s, len, VW_REGION_USER);
        if (g >= 0)
            hput(&r->region_by_id, (uint64_t)process << 40 ^ (uint64_t)id, g);
        return 0;
    }
    case VW_EV_THREAD_DEF: {
        int64_t st = geti(rec, H->stream, -1);
        if (st < 0 || H->name == NULL || pal_record_str(rec, H->name, &s, &len) != PAL_OK)
            return 0;
        if (own(r, s, len))
            hput(&r->thread_names, (uint64_t)process << 32 | (uint32_t)st, (long)r->nnames - 1);
        return 0;
    }
    case VW_EV_COMM_DEF:
        if (H->ranks && pal_record_str(rec, H->ranks, &s, &len) == PAL_OK) {
            comm_def(r, process, geti(rec, H->comm, -1), geti(rec, H->size, 0), s, len);
            const char *rs;
            size_t rl;
            /* an intercommunicator: the same key on both sides (local ^ remote) */
            if (pal_record_get_str(rec, "remote", &rs, &rl) == PAL_OK && rl > 0 &&
                hget(&r->comm_by_id, (uint64_t)process << 32 |
                                         (uint32_t)geti(rec, H->comm, -1)) == (long)r->ncomms - 1)
                r->comms[r->ncomms - 1].group = strhash(s, len) ^ strhash(rs, rl);
        }
        return 0;
    default:
        break;
    }
    long li = lane_get(r, process, stream);
    if (li < 0)
        return -1;
    lane *l = &r->lanes[li];
    if (!l->started) {
        l->started = 1;
        l->pub.first = t;
        l->last = t;
    }
    if (t > l->last) {
        add_interval(r, l, VW_BUSY, l->last, t);   /* alive; busy = alive - others later */
        l->last = t;
    }
    switch (sem->ev) {
    case VW_EV_ENTER: {
        long g;
        if (sem->flags & VW_F_STEM)
            g = region_named(r, sem->stem, strlen(sem->stem),
                             (sem->flags & VW_F_MPI) ? VW_REGION_MPI : VW_REGION_USER);
        else
            g = region_of_id(r, process, (uint64_t)geti(rec, H->region, 0), H->region_prefix);
        if (g < 0)
            return -1;
        frame *fr = push(r, l, g, t);
        if (fr == NULL)
            return -1;
        fr->flags = sem->flags;
        fr->role = sem->role;
        fr->tag = geti(rec, H->tag, 0);
        fr->comm = geti(rec, H->comm, 0);
        fr->bytes = getbytes(rec, H->bytes);
        if (sem->role == VW_ROLE_SEND) {
            int64_t peer = geti(rec, H->dest, geti(rec, H->peer, -1));
            message(r, (size_t)li, 0, peer, fr->tag, fr->comm, t, fr->bytes);
        } else if (sem->role == VW_ROLE_RECV) {
            fr->peer = geti(rec, H->source, geti(rec, H->peer, -1));
        }
        break;
    }
    case VW_EV_LEAVE: {
        long g;
        if (sem->flags & VW_F_STEM)
            g = region_named(r, sem->stem, strlen(sem->stem),
                             (sem->flags & VW_F_MPI) ? VW_REGION_MPI : VW_REGION_USER);
        else
            g = region_of_id(r, process, (uint64_t)geti(rec, H->region, 0), H->region_prefix);
        size_t d = l->depth;
        while (d > 0 && l->stack[d - 1].region != g)
            d--;
        if (d == 0) {   /* a leave without its enter: count, ignore */
            r->f.unmatched_leaves++;
            break;
        }
        if (l->stack[d - 1].role == VW_ROLE_RECV) {  /* the exit may carry the data */
            frame *fr = &l->stack[d - 1];
            int64_t b = geti(rec, H->bytes, -1);
            if (b >= 0)
                fr->bytes = (uint64_t)b;
            if (fr->peer < 0)   /* any source: the actual one comes with the exit */
                fr->peer = geti(rec, H->source, geti(rec, H->peer, -1));
            int64_t tag = geti(rec, H->tag, -1);
            if (tag >= 0)
                fr->tag = tag;
        }
        while (l->depth >= d) {   /* frames above the match left without a leave */
            if (l->depth > d)
                r->f.unmatched_leaves++;
            pop(r, (size_t)li, t);
        }
        break;
    }
    case VW_EV_CALL: {
        int64_t dur = geti(rec, H->duration, 0);
        double start = t - (double)dur / r->tps;
        if (start < l->pub.first) {   /* the call began before the lane's first record */
            add_interval(r, l, VW_BUSY, start, l->pub.first);
            l->pub.first = start;
        }
        long g = region_named(r, sem->stem, strlen(sem->stem), VW_REGION_MPI);
        if (g < 0)
            return -1;
        frame *fr = push(r, l, g, start);
        if (fr == NULL)
            return -1;
        fr->flags = sem->flags;
        fr->bytes = getbytes(rec, H->bytes);
        fr->tag = geti(rec, H->tag, 0);
        fr->comm = geti(rec, H->comm, 0);
        if (sem->role == VW_ROLE_SEND || sem->role == VW_ROLE_SENDRECV)
            message(r, (size_t)li, 0, geti(rec, H->peer, -1), fr->tag, fr->comm, start,
                    fr->bytes);
        if (sem->role == VW_ROLE_RECV)
            message(r, (size_t)li, 1, geti(rec, H->peer, -1), fr->tag, fr->comm, t, fr->bytes);
        if (sem->role == VW_ROLE_SENDRECV) {
            uint64_t rb = getbytes(rec, H->recvbytes);
            int64_t rtag = 0;
            pal_record_get_i64(rec, "recvtag", &rtag);
            message(r, (size_t)li, 1, geti(rec, H->source, -1), rtag, fr->comm, t, rb);
            fr->bytes += rb;
        }
        pop(r, (size_t)li, t);
        break;
    }
    case VW_EV_OVERHEAD: {
        int64_t dur = geti(rec, H->duration, 0);
        double end = t + (double)dur / r->tps;
        add_interval(r, l, VW_OVERHEAD, t, end);
        if (end > l->last) {
            add_interval(r, l, VW_BUSY, l->last, end);
            l->last = end;
        }
        break;
    }
    case VW_EV_COMPLETE: {
        /* a nonblocking receive completes (kind 1), a persistent send starts (kind 0) */
        int recv = sem->role == VW_ROLE_RECV;
        if (geti(rec, H->kind, -1) != (recv ? 1 : 0))
            break;
        message(r, (size_t)li, recv ? 1 : 0, geti(rec, H->peer, -1), geti(rec, H->tag, 0),
                geti(rec, H->comm, 0), t, getbytes(rec, H->bytes));
        break;
    }
    case VW_EV_MARKER:
        r->f.markers++;
        if (r->sink && r->sink->marker && H->text &&
            pal_record_str(rec, H->text, &s, &len) == PAL_OK)
            r->sink->marker(r->sink->ctx, process, stream, s, len, t);
        break;
    case VW_EV_COUNTER:
        r->f.counters++;
        break;
    case VW_EV_LOST: {
        int64_t c = 1;
        pal_record_get_i64(rec, "count", &c);
        r->f.lost += (uint64_t)c;
        break;
    }
    default:
        break;
    }
    return 0;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static size_t rank_index(const vw_run *r, uint32_t p)
{
    size_t lo = 0, hi = r->f.nranks;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (r->ranks[mid] < p)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static int cmp_lane(const void *a, const void *b)
{
    const lane *x = a, *y = b;
    if (x->pub.process != y->pub.process)
        return x->pub.process < y->pub.process ? -1 : 1;
    return x->pub.stream < y->pub.stream ? -1 : x->pub.stream > y->pub.stream;
}

/* lanes in (process, stream) order; message lane indexes follow */
static int sort_lanes(vw_run *r)
{
    size_t n = r->nlanes;
    size_t *newpos = malloc((n ? n : 1) * sizeof *newpos);
    if (newpos == NULL)
        return -1;
    for (size_t i = 0; i < n; i++)
        r->lanes[i].pub.rank_index = i;   /* remember the old index */
    if (n > 1)
        qsort(r->lanes, n, sizeof *r->lanes, cmp_lane);
    for (size_t i = 0; i < n; i++)
        newpos[r->lanes[i].pub.rank_index] = i;
    for (size_t i = 0; i < r->nmsgs; i++) {
        r->msgs[i].src_lane = newpos[r->msgs[i].src_lane];
        r->msgs[i].dst_lane = newpos[r->msgs[i].dst_lane];
    }
    free(newpos);
    return 0;
}

static int finish(vw_run *r)
{
    double end = 0;
    for (size_t i = 0; i < r->nlanes; i++)
        if (r->lanes[i].last > end)
            end = r->lanes[i].last;
    /* close what is still open at the lane's last time */
    for (size_t i = 0; i < r->nlanes; i++)
        while (r->lanes[i].depth) {
            r->f.open_at_end++;
            pop(r, i, r->lanes[i].last);
        }
    for (size_t i = 0; i < r->ncqs; i++)   /* incomplete instances count as seen */
        for (size_t k = r->cqs[i].head; k < r->cqs[i].n; k++)
            if (r->cqs[i].q[k].seen)
                coll_done(r, r->cqs[i].region, &r->cqs[i].q[k]);
    if (sort_lanes(r))
        return -1;
    /* busy = alive - overhead - idle, per bin */
    for (size_t i = 0; i < r->nlanes; i++) {
        lane *l = &r->lanes[i];
        l->pub.last = l->last;
        for (size_t b = 0; b < NBINS; b++) {
            double *x = &l->bins[b * VW_NSTATES];
            double u = x[VW_BUSY] - x[VW_OVERHEAD] - x[VW_IDLE];
            r->util[b * VW_NSTATES + VW_BUSY] -= x[VW_BUSY] - (u > 0 ? u : 0);
            x[VW_BUSY] = u > 0 ? u : 0;
            for (int s = 0; s < VW_NSTATES; s++)
                l->pub.state[s] += x[s];
        }
        l->pub.bins = l->bins;
        if (lane_rstat(l, r->nregions ? (long)r->nregions - 1 : 0) == NULL)
            return -1;
        l->pub.rstat = l->rstat;
        long nm = hget(&r->thread_names, (uint64_t)l->pub.process << 32 | l->pub.stream);
        if (nm >= 0)
            l->pub.name = r->names[nm];
    }
    /* ranks: processes of lanes and of message ends */
    size_t cap = r->nlanes + 2 * r->nc + 1, n = 0;
    r->ranks = malloc(cap * sizeof *r->ranks);
    if (r->ranks == NULL)
        return -1;
    for (size_t i = 0; i < r->nlanes; i++)
        r->ranks[n++] = r->lanes[i].pub.process;
    for (size_t i = 0; i < r->nc; i++) {
        r->ranks[n++] = r->c_src[i];
        r->ranks[n++] = r->c_dst[i];
    }
    qsort(r->ranks, n, sizeof *r->ranks, cmp_u32);
    size_t u = 0;
    for (size_t i = 0; i < n; i++)
        if (u == 0 || r->ranks[u - 1] != r->ranks[i])
            r->ranks[u++] = r->ranks[i];
    r->f.nranks = u;
    r->f.ranks = r->ranks;
    for (size_t i = 0; i < r->nlanes; i++)
        r->lanes[i].pub.rank_index = rank_index(r, r->lanes[i].pub.process);
    size_t R = u ? u : 1;
    r->mcount = calloc(R * R, sizeof *r->mcount);
    r->mbytes = calloc(R * R, sizeof *r->mbytes);
    r->rwait = calloc(R, sizeof *r->rwait);
    if (!r->mcount || !r->mbytes || !r->rwait)
        return -1;
    for (size_t i = 0; i < r->nc; i++) {
        size_t a = rank_index(r, r->c_src[i]), b = rank_index(r, r->c_dst[i]);
        r->mcount[a * R + b] += r->c_count[i];
        r->mbytes[a * R + b] += r->c_bytes[i];
    }
    for (size_t i = 0; i < r->nlanes; i++)
        r->rwait[r->lanes[i].pub.rank_index] += r->lanes[i].pub.state[VW_IDLE];
    for (size_t i = 0; i < r->nmsgs; i++) {
        r->msgs[i].src = r->lanes[r->msgs[i].src_lane].pub.rank_index;
        r->msgs[i].dst = r->lanes[r->msgs[i].dst_lane].pub.rank_index;
    }
    r->f.duration = end;
    r->f.nbins = NBINS;
    r->f.bin_width = r->width;
    r->f.util = r->util;
    r->f.nlanes = r->nlanes;
    r->f.regions = r->regions;
    r->f.nregions = r->nregions;
    r->f.nodes = r->nodes;
    r->f.nnodes = r->nnodes;
    r->f.comm_count = r->mcount;
    r->f.comm_bytes = r->mbytes;
    r->f.rank_wait = r->rwait;
    r->f.msgs = r->msgs;
    r->f.nmsgs = r->nmsgs;
    /* lanes as a public array */
    vw_lane *pub = malloc((r->nlanes ? r->nlanes : 1) * sizeof *pub);
    if (pub == NULL)
        return -1;
    for (size_t i = 0; i < r->nlanes; i++)
        pub[i] = r->lanes[i].pub;
    r->f.lanes = pub;
    return 0;
}

static void quiet_diag(void *ctx, const char *msg)
{
    (void)ctx;
    fprintf(stderr, "pal-view: %s\n", msg);    /* the message names its file */
}

int vw_run_traces(const char *const *paths, size_t n, const char *dict_path,
                  const vw_sink *sink, vw_run **out)
{
    *out = NULL;
    vw_run *r = calloc(1, sizeof *r);
    if (r == NULL)
        return -1;
    *out = r;
    r->sink = sink;
    r->width = 1e-6;
    r->rng = 42;
    r->util = calloc(NBINS * VW_NSTATES, sizeof *r->util);
    r->msgs = malloc(MSG_SAMPLE * sizeof *r->msgs);
    if (!r->util || !r->msgs)
        return -1;
    /* the root of the call tree */
    if (node_get(r, -1, -1) != 0)
        return -1;
    /* one trace, or the per-rank traces of a run read as one stream */
    int partial = 0;
    {
        pal_reader *rd = NULL;
        pal_status st = pal_reader_open_run(paths, n, dict_path, 0, &rd);
        if (st != PAL_OK) {
            fprintf(stderr, "pal-view: %s\n", pal_last_error());
            return -1;
        }
        pal_reader_set_diag(rd, quiet_diag, NULL);
        pal_trace_info info;
        memset(&info, 0, sizeof info);
        pal_reader_info(rd, &info);
        r->tps = info.ticks_per_second > 0 ? info.ticks_per_second : 1e9;
        const pal_dict *d = pal_reader_dict(rd);
        snprintf(r->first_trace, sizeof r->first_trace, "%s", paths[0]);
        snprintf(r->dict_name, sizeof r->dict_name, "%s", d ? pal_dict_name(d) : "");
        r->f.trace = r->first_trace;
        r->f.dict = r->dict_name;
        if (info.start_time > 0) {
            r->base_ticks = (double)info.start_time;
            r->have_base = 1;
        }
        vw_map *map = vw_map_new(d);
        if (map == NULL) {
            pal_reader_close(rd);
            return -1;
        }
        const vw_fields *F = vw_map_fields(map);
        handles H = {handle(rd, F->region), handle(rd, F->name), handle(rd, F->duration),
                     handle(rd, F->peer), handle(rd, F->dest), handle(rd, F->source),
                     handle(rd, F->bytes), handle(rd, F->recvbytes), handle(rd, F->tag),
                     handle(rd, F->comm), handle(rd, F->stream), handle(rd, F->text),
                     handle(rd, F->kind), handle(rd, F->size), handle(rd, F->ranks),
                     F->region_prefix};
        const pal_record *rec;
        int rc = 0;
        while ((st = pal_reader_next(rd, &rec)) == PAL_OK)
            if ((rc = feed(r, map, &H, rec)) != 0)
                break;
        if (rc == 0 && st != PAL_END) {
            fprintf(stderr, "pal-view: %s\n", pal_reader_error(rd));
            rc = -1;
        }
        /* damage, or a partial trace: the views are drawn, the exit status says it */
        pal_reader_stats rs;
        pal_reader_get_stats(rd, &rs);
        partial = rs.damaged || rs.truncated || rs.not_closed || rs.signaled ||
                  rs.chunks_missing || rs.ranks_missing;
        vw_map_free(map);
        pal_reader_close(rd);
        if (rc)
            return -1;
    }
    if (finish(r))
        return -1;
    return partial;
}

const vw_facts *vw_run_facts(const vw_run *r) { return &r->f; }

void vw_run_free(vw_run *r)
{
    if (r == NULL)
        return;
    for (size_t i = 0; i < r->nlanes; i++) {
        free(r->lanes[i].stack);
        free(r->lanes[i].bins);
        free(r->lanes[i].rstat);
    }
    free(r->lanes);
    free((void *)r->f.lanes);
    for (size_t i = 0; i < r->nnames; i++)
        free(r->names[i]);
    free(r->names);
    free(r->regions);
    free(r->nodes);
    for (size_t i = 0; i < r->nqueues; i++)
        free(r->queues[i].q);
    free(r->queues);
    hfree(&r->lane_of);
    hfree(&r->region_by_name);
    hfree(&r->region_by_id);
    hfree(&r->node_by_key);
    hfree(&r->thread_names);
    hfree(&r->queue_of);
    hfree(&r->comm_of);
    free(r->c_count);
    free(r->c_bytes);
    free(r->c_src);
    free(r->c_dst);
    free(r->msgs);
    free(r->ranks);
    free(r->mcount);
    free(r->mbytes);
    free(r->rwait);
    free(r->util);
    for (size_t i = 0; i < r->ncomms; i++)
        free(r->comms[i].world);
    free(r->comms);
    hfree(&r->comm_by_id);
    for (size_t i = 0; i < r->ncqs; i++)
        free(r->cqs[i].q);
    free(r->cqs);
    hfree(&r->cq_of);
    hfree(&r->coll_seq);
    free(r);
}
