/* filter.c -- the filter manager: reads every record through PAL, finds
 * what it means through the dictionary's roles alone (no record or field
 * name is known here) and feeds the filters: process state (busy,
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

/* arr (of *n elements of elem bytes) grown to hold index i, the new elements
 * zeroed; NULL (arr untouched) when memory runs out. */
static void *grow_index(void *arr, size_t *n, size_t i, size_t elem, size_t first)
{
    if (i < *n)
        return arr;
    size_t m = *n ? *n : first;
    while (m <= i)
        m *= 2;
    unsigned char *p = realloc(arr, m * elem);
    if (p == NULL)
        return NULL;
    memset(p + *n * elem, 0, (m - *n) * elem);
    *n = m;
    return p;
}

static void *realloc_or_free(void *p, size_t n)
{
    void *q = realloc(p, n);
    if (q == NULL)
        free(p);
    return q;
}

/* ---------------- run state ---------------- */
/* Frame and record-type flags. */
#define F_COMM 1u       /* time inside is communication (busy unless idle) */
#define F_IDLE 2u       /* time inside is waiting */
#define F_COLL 4u       /* a collective: instances grouped across ranks */
#define F_SETUP 8u      /* the process's start or end (MPI_Init, MPI_Finalize) */
#define F_RECV 16u      /* the frame receives a message when it closes */
#define F_DEVICE 32u    /* time inside is a device's (role device: GPU kernels, copies) */

typedef struct frame {
    long region, node;
    double start, child;
    unsigned flags;     /* F_* */
    int outer;          /* no other instance of its region is open on the lane */
    int64_t peer, tag, comm;
    int64_t root;       /* a collective's root (field role root), -1: none */
    int64_t request;    /* field role request, -1: none */
    uint64_t bytes;
} frame;

/* Counters per region. ECL samples a thread's counters just after the enter
 * or leave that is the boundary, so a boundary's values are those of the
 * first samples that follow it on the lane: enters and leaves wait in a
 * queue (cev) until the next samples arrive, then replay on a stack of their
 * own (cfr) with the values now current. Boundaries with no sample of their
 * own (ECL_COUNTER_PERIOD) take the next samples' values. */
typedef struct cev {
    long region, node;  /* region < 0: a leave */
    int outer;
} cev;

typedef struct cfr {
    long region, node;
    int outer;
} cfr;

typedef struct clane {
    double *val;        /* current value per counter */
    unsigned char *seen;
    size_t nval;
    int fresh;          /* samples arrived since the last queued boundary */
    cev *q;
    size_t nq, qcap;
    cfr *stk;
    size_t depth, scap;
    double *sv;         /* per cfr: start[stride], child[stride] */
    size_t svcap, stride;
} clane;

typedef struct lane {
    vw_lane pub;
    frame *stack;
    size_t depth, cap;
    double *bins;
    double *setup;      /* NBINS seconds of the process's start and end (F_SETUP) */
    vw_stat *rstat;
    size_t nrstat;
    uint32_t *active;   /* open instances per region */
    size_t nactive;
    clane c;
    double last;
    int started;
    unsigned name_gen;  /* definitions seen when its name was last looked up */
} lane;

typedef struct cinst {      /* one collective instance being assembled */
    uint32_t seen;
    double min_start, max_start, max_end;
    uint32_t lo, hi, late;  /* lowest and highest process, the last to enter */
    int64_t comm, root;     /* the first member's communicator id; root (-1: none) */
    uint64_t bytes;         /* summed over the members */
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
    pal_matcher *match;     /* messages, and the contexts of communicators */
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
    /* counters per region */
    size_t ncnt, cntcap;
    const char **cnames;
    unsigned char *cgauge;  /* per counter: decreased on a lane, a level, no deltas */
    size_t ngauge;
    hmap cnt_by_name, cnt_by_id;
    hmap cacc_of;           /* (lane, region, counter) -> cacc index */
    vw_lane_cstat *cacc;
    size_t ncacc, cacccap;
    hmap cnode_of;          /* (node, counter) -> cnode index */
    struct cnode { long node; size_t c; vw_cstat s; } *cnode;
    size_t ncnode, cnodecap;
    vw_cstat *region_cs, *node_cs;
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
/* b holds NBINS bins of w values each: merge neighbours into the first half */
static void halve(double *b, int w)
{
    for (size_t i = 0; i < NBINS / 2; i++)
        for (int s = 0; s < w; s++)
            b[i * w + s] = b[2 * i * w + s] + b[(2 * i + 1) * w + s];
    memset(b + NBINS / 2 * w, 0, NBINS / 2 * w * sizeof *b);
}

static void cover(vw_run *r, double t)
{
    while (t >= r->width * NBINS) {
        halve(r->util, VW_NSTATES);
        for (size_t i = 0; i < r->nlanes; i++) {
            halve(r->lanes[i].bins, VW_NSTATES);
            halve(r->lanes[i].setup, 1);
        }
        r->width *= 2;
    }
}

/* state VW_NSTATES: the process's start or end, kept apart from the states */
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
        if (state == VW_NSTATES) {
            l->setup[i] += piece;
        } else {
            r->util[i * VW_NSTATES + state] += piece;
            l->bins[i * VW_NSTATES + state] += piece;
        }
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
    l->setup = calloc(NBINS, sizeof *l->setup);
    if (l->bins == NULL || l->setup == NULL || hput(&r->lane_of, key, (long)r->nlanes))
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
    vw_stat *s = grow_index(l->rstat, &l->nrstat, (size_t)region, sizeof *s, 16);
    if (s == NULL)
        return NULL;
    l->rstat = s;
    return &l->rstat[region];
}

/* ---------------- communicators and collectives ---------------- */
/* Communicator ids are per process (ECL's), unless the reference of the
 * field that uses them is GLOBAL (OTF2's): such a use carries COMM_GLOBAL,
 * and the matcher looks it up among global ids (PAL_MATCH_GLOBAL_COMM). */
#define COMM_GLOBAL (UINT64_C(1) << 62)

/* A communicator's id as the matcher takes it. */
static unsigned comm_flags(int64_t comm)
{
    return comm >= 0 && ((uint64_t)comm & COMM_GLOBAL) ? PAL_MATCH_GLOBAL_COMM : 0;
}

static int64_t comm_id(int64_t comm)
{
    return comm >= 0 ? (int64_t)((uint64_t)comm & ~COMM_GLOBAL) : comm;
}

static void coll_done(vw_run *r, long region, const cinst *c, uint32_t size)
{
    vw_region *g = &r->regions[region];
    double spread = c->max_start - c->min_start;
    g->instances++;
    g->spread_sum += spread;
    if (spread > g->spread_max)
        g->spread_max = spread;
    if (r->sink && r->sink->collective) {
        vw_coll_ev e = {region, g->name, c->seen, size, c->lo, c->hi, c->late, c->comm,
                        c->root, c->bytes, c->min_start, c->max_start, c->max_end};
        r->sink->collective(r->sink->ctx, &e);
    }
}

/* The k-th call of a collective by a process on a communicator is the k-th
 * instance of it on that communicator's group. */
static void coll_add(vw_run *r, uint32_t process, const frame *fr, double end)
{
    int64_t comm = fr->comm;
    long region = fr->region;
    double start = fr->start;
    uint64_t group = 0;
    uint32_t size = 0;
    if (pal_matcher_context(r->match, process, comm_id(comm), comm_flags(comm), &group, &size) !=
        PAL_OK)
        group = mix((uint64_t)comm + 1);
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
        q->size = size;
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
        q->q[q->n++] = (cinst){0};
    }
    cinst *c = &q->q[idx];
    if (c->seen == 0) {
        c->lo = c->hi = process;
        c->comm = comm;
        c->root = -1;
    }
    if (c->seen == 0 || start < c->min_start)
        c->min_start = start;
    if (c->seen == 0 || start > c->max_start) {
        c->max_start = start;
        c->late = process;
    }
    if (c->seen == 0 || end > c->max_end)
        c->max_end = end;
    if (process < c->lo)
        c->lo = process;
    if (process > c->hi)
        c->hi = process;
    if (fr->root >= 0)
        c->root = fr->root;
    c->bytes += fr->bytes;
    c->seen++;
    while (q->size && q->head < q->n && q->q[q->head].seen >= q->size) {
        coll_done(r, q->region, &q->q[q->head], q->size);
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

/* side 0: a send from lane's process to peer; side 1: a receive from peer.
 * The one matcher pairs them (doc/pal.md, "Messages: the matcher"). */
static void message(vw_run *r, size_t li, int side, int64_t peer, int64_t tag, int64_t comm,
                    double t, uint64_t bytes)
{
    if (peer < 0)
        return;
    r->f.has_messages = 1;
    uint32_t me = r->lanes[li].pub.process;
    if (side == 0) {
        r->f.sends++;
        comm_add(r, me, (uint32_t)peer, bytes);
    } else {
        r->f.recvs++;
    }
    pal_msg_end end = {me, r->lanes[li].pub.stream, t, bytes, li}, p;
    if (pal_matcher_post(r->match, side ? PAL_MATCH_RECV : PAL_MATCH_SEND, peer, tag,
                         comm_id(comm), comm_flags(comm), &end, &p) != PAL_OK)
        return;
    if (side == 0)
        matched(r, li, t, (size_t)p.user, p.time, bytes);
    else
        matched(r, (size_t)p.user, p.time, li, t, p.bytes);
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
    /* inclusive time counts the outermost instance of a region only: a
     * recursive function's inner calls are inside it already */
    double incl = fr->outer ? dur : 0;
    l->active[fr->region]--;
    g->all.calls++;
    g->all.total += incl;
    g->all.excl += excl;
    g->all.bytes += (double)fr->bytes;
    if (dur > g->all.max)
        g->all.max = dur;
    vw_stat *s = lane_rstat(l, fr->region);
    if (s) {
        s->calls++;
        s->total += incl;
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
    /* overhead is the tool's own time only (records of role overhead):
     * communication that does not wait (MPI_Isend, MPI_Iprobe) is busy */
    if (fr->flags & F_SETUP)
        add_interval(r, l, VW_NSTATES, fr->start, end);
    else if (fr->flags & F_IDLE)
        add_interval(r, l, VW_IDLE, fr->start, end);
    if (fr->flags & F_COLL)
        coll_add(r, l->pub.process, fr, end);
    if (fr->flags & F_RECV)
        message(r, li, 1, fr->peer, fr->tag, fr->comm, end, fr->bytes);
    if (r->sink && r->sink->slice)
        r->sink->slice(r->sink->ctx, li, l->pub.process, l->pub.stream, g->name, g->kind,
                       fr->start, end);
    if (r->sink && r->sink->frame) {
        vw_frame_ev e = {l->pub.process, l->pub.stream, fr->region, g->name, g->kind,
                         (fr->flags & F_IDLE) != 0, (unsigned)l->depth, fr->start,
                         end < fr->start ? fr->start : end, fr->bytes, fr->peer, fr->tag,
                         fr->comm, fr->root, fr->request};
        r->sink->frame(r->sink->ctx, &e);
    }
}

/* ---------------- counters per region ---------------- */
static vw_cstat *cacc_get(vw_run *r, size_t li, long region, size_t c)
{
    uint64_t key = (uint64_t)li << 44 ^ (uint64_t)region << 16 ^ (uint64_t)c;
    long i = hget(&r->cacc_of, key);
    if (i >= 0)
        return &r->cacc[i].s;
    if (GROW(r->cacc, r->ncacc, r->cacccap) || hput(&r->cacc_of, key, (long)r->ncacc))
        return NULL;
    r->cacc[r->ncacc] = (vw_lane_cstat){li, (size_t)region, c, {0, 0, 0}};
    return &r->cacc[r->ncacc++].s;
}

static vw_cstat *cnode_get(vw_run *r, long node, size_t c)
{
    uint64_t key = (uint64_t)node << 16 ^ (uint64_t)c;
    long i = hget(&r->cnode_of, key);
    if (i >= 0)
        return &r->cnode[i].s;
    if (GROW(r->cnode, r->ncnode, r->cnodecap) || hput(&r->cnode_of, key, (long)r->ncnode))
        return NULL;
    r->cnode[r->ncnode] = (struct cnode){node, c, {0, 0, 0}};
    return &r->cnode[r->ncnode++].s;
}

/* the lane's counter stack holds r->ncnt counters per frame */
static int cl_stride(vw_run *r, clane *c)
{
    size_t nc = r->ncnt;
    if (c->stride < nc) {   /* a new counter: relayout, its starts unknown */
        size_t ns = nc + 4;
        double *sv = malloc((c->depth + 1) * 2 * ns * sizeof *sv);
        if (sv == NULL)
            return -1;
        for (size_t i = 0; i <= c->depth; i++)
            for (size_t k = 0; k < ns; k++) {
                int old = k < c->stride && i < c->depth;
                sv[i * 2 * ns + k] = old ? c->sv[i * 2 * c->stride + k] : NAN;
                sv[i * 2 * ns + ns + k] = old ? c->sv[i * 2 * c->stride + c->stride + k] : 0;
            }
        free(c->sv);
        c->sv = sv;
        c->svcap = (c->depth + 1) * 2 * ns;
        c->stride = ns;
    }
    return 0;
}

/* room for depth+1 frames of r->ncnt counters on the lane's counter stack */
static int cl_room(vw_run *r, clane *c)
{
    if (cl_stride(r, c))
        return -1;
    size_t need = (c->depth + 1) * 2 * c->stride;
    if (need > c->svcap) {
        size_t cap = c->svcap ? c->svcap * 2 : need * 4;
        while (cap < need)
            cap *= 2;
        double *sv = realloc(c->sv, cap * sizeof *sv);
        if (sv == NULL)
            return -1;
        c->sv = sv;
        c->svcap = cap;
    }
    return GROW(c->stk, c->depth, c->scap);
}

/* the queued boundaries of a lane, replayed with the values now current */
static int cl_flush(vw_run *r, size_t li)
{
    clane *c = &r->lanes[li].c;
    for (size_t e = 0; e < c->nq; e++) {
        const cev *ev = &c->q[e];
        if (ev->region >= 0) {
            if (cl_room(r, c))
                return -1;
            double *st = &c->sv[c->depth * 2 * c->stride];
            for (size_t k = 0; k < c->stride; k++) {
                st[k] = k < c->nval && c->seen[k] ? c->val[k] : NAN;
                st[c->stride + k] = 0;
            }
            c->stk[c->depth++] = (cfr){ev->region, ev->node, ev->outer};
            continue;
        }
        if (c->depth == 0)
            continue;
        const cfr *fr = &c->stk[--c->depth];
        const double *st = &c->sv[c->depth * 2 * c->stride];
        double *up = c->depth ? &c->sv[(c->depth - 1) * 2 * c->stride + c->stride] : NULL;
        for (size_t k = 0; k < c->nval && k < c->stride; k++) {
            if (!c->seen[k] || isnan(st[k]))
                continue;
            double incl = c->val[k] - st[k], excl = incl - st[c->stride + k];
            vw_cstat *a = cacc_get(r, li, fr->region, k);
            vw_cstat *n = fr->node >= 0 ? cnode_get(r, fr->node, k) : NULL;
            if (a == NULL || (fr->node >= 0 && n == NULL))
                return -1;
            a->calls++;
            a->excl += excl;
            if (fr->outer)
                a->incl += incl;
            if (n) {
                n->calls++;
                n->incl += incl;
                n->excl += excl;
            }
            if (up)
                up[k] += incl;
        }
    }
    c->nq = 0;
    c->fresh = 0;
    return 0;
}

/* an enter (region >= 0) or a leave (region < 0) at a boundary of lane li */
static int cl_event(vw_run *r, size_t li, long region, long node, int outer)
{
    if (r->ncnt == 0)
        return 0;
    clane *c = &r->lanes[li].c;
    if ((c->fresh || c->nq >= 65536) && cl_flush(r, li))
        return -1;
    if (GROW(c->q, c->nq, c->qcap))
        return -1;
    c->q[c->nq++] = (cev){region, node, outer};
    return 0;
}

/* a sample of counter cidx on lane li */
static int cl_sample(vw_run *r, size_t li, size_t cidx, double v)
{
    clane *c = &r->lanes[li].c;
    size_t n = c->nval;
    double *val = grow_index(c->val, &n, cidx, sizeof *val, 8);
    if (val == NULL)
        return -1;
    c->val = val;
    n = c->nval;
    unsigned char *seen = grow_index(c->seen, &n, cidx, 1, 8);
    if (seen == NULL)
        return -1;
    c->seen = seen;
    c->nval = n;
    if (c->seen[cidx] && v < c->val[cidx]) {   /* a level (gauge), not a count */
        unsigned char *g = grow_index(r->cgauge, &r->ngauge, cidx, 1, 8);
        if (g == NULL)
            return -1;
        r->cgauge = g;
        g[cidx] = 1;
    }
    if (!c->seen[cidx]) {   /* first seen: frames open before start here */
        c->seen[cidx] = 1;
        if (cl_stride(r, c))
            return -1;
        for (size_t d = 0; d < c->depth; d++)
            if (isnan(c->sv[d * 2 * c->stride + cidx]))
                c->sv[d * 2 * c->stride + cidx] = v;
    }
    c->val[cidx] = v;
    c->fresh = 1;
    return 0;
}

/* the index of a counter by name; the run's first counter starts the
 * counter stacks with every lane's open frames (their starts unknown) */
static long counter_named(vw_run *r, const char *name, size_t len)
{
    uint64_t h = strhash(name, len);
    for (;; h++) {
        long i = hget(&r->cnt_by_name, h);
        if (i < 0)
            break;
        if (strlen(r->cnames[i]) == len && memcmp(r->cnames[i], name, len) == 0)
            return i;
    }
    const char *c = own(r, name, len);
    if (c == NULL || GROW(r->cnames, r->ncnt, r->cntcap) ||
        hput(&r->cnt_by_name, h, (long)r->ncnt))
        return -1;
    r->cnames[r->ncnt++] = c;
    if (r->ncnt == 1)
        for (size_t i = 0; i < r->nlanes; i++) {
            lane *l = &r->lanes[i];
            for (size_t d = 0; d < l->depth; d++)
                if (cl_event(r, i, l->stack[d].region, l->stack[d].node, l->stack[d].outer))
                    return -1;
        }
    return (long)r->ncnt - 1;
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
    fr->root = -1;
    fr->request = -1;
    uint32_t *act = grow_index(l->active, &l->nactive, (size_t)region, sizeof *act, 16);
    if (act == NULL)
        return NULL;
    l->active = act;
    fr->outer = act[region]++ == 0;
    if (cl_event(r, (size_t)(l - r->lanes), region, fr->node, fr->outer))
        return NULL;
    if (r->sink && r->sink->frame) {
        vw_frame_ev e = {l->pub.process, l->pub.stream, region, r->regions[region].name,
                         r->regions[region].kind, 0, (unsigned)(l->depth - 1), start, -1, 0,
                         -1, 0, 0, -1, -1};
        r->sink->frame(r->sink->ctx, &e);
    }
    return fr;
}

static int pop(vw_run *r, size_t li, double end)
{
    lane *l = &r->lanes[li];
    frame fr = l->stack[--l->depth];
    close_frame(r, li, &fr, end);
    if (l->depth)
        l->stack[l->depth - 1].child += (end > fr.start ? end - fr.start : 0);
    return cl_event(r, li, -1, -1, 0);
}

/* ---------------- what records mean: their roles ---------------- */

/* What a record type means to the filters, from its roles (computed once per
 * type). send, recv, untimed: 0 no, 1 every record, 2 the record's field
 * says (ROLE IS recv WHEN kind IS "1"). */
typedef struct kind {
    int known;
    pal_record_role prim;
    unsigned flags;
    int send, recv, untimed;
    long region;            /* the region it names by text (REGION IS), -1: a field */
    int comm_def;           /* a definition of a communicator and its members */
    int both;               /* sends and receives: its tag is the sent one */
    int bytes;              /* has a field with role bytes_sent, bytes_received or bytes */
    int args;               /* has bytes, a tag or a communicator (worth reading) */
    int comm_global;        /* its communicator ids are the same on every process */
    uint64_t refkey;        /* which definitions its region ids refer to */
    const char *idname;     /* the region field's name, for ids without a name */
} kind;

static const pal_record_role primaries[] = {
    PAL_ROLE_ENTER, PAL_ROLE_LEAVE, PAL_ROLE_CALL, PAL_ROLE_OVERHEAD, PAL_ROLE_MARKER,
    PAL_ROLE_COUNTER, PAL_ROLE_DEFINITION, PAL_ROLE_METADATA, PAL_ROLE_LOST,
    PAL_ROLE_PROCESS_BEGIN, PAL_ROLE_PROCESS_END, PAL_ROLE_THREAD_BEGIN, PAL_ROLE_THREAD_END,
    PAL_ROLE_STATE, PAL_ROLE_PAUSE, PAL_ROLE_RESUME, PAL_ROLE_REQUEST_COMPLETE,
    PAL_ROLE_REQUEST_START, PAL_ROLE_MESSAGE};

/* The field roles the filters read, through one handle each. */
enum { H_REGION, H_PEER, H_DEST, H_SOURCE, H_TAG, H_RECV_TAG, H_COMM, H_BYTES_SENT,
       H_BYTES_RECEIVED, H_BYTES, H_TEXT, H_COUNT, H_SIZE, H_MEMBERS, H_REMOTE, H_COUNTER,
       H_VALUE, H_ROOT, H_REQUEST, H_N };
static const pal_field_role hrole[H_N] = {
    PAL_FROLE_REGION, PAL_FROLE_PEER, PAL_FROLE_DEST, PAL_FROLE_SOURCE, PAL_FROLE_TAG,
    PAL_FROLE_RECV_TAG, PAL_FROLE_COMMUNICATOR, PAL_FROLE_BYTES_SENT,
    PAL_FROLE_BYTES_RECEIVED, PAL_FROLE_BYTES, PAL_FROLE_TEXT, PAL_FROLE_COUNT, PAL_FROLE_SIZE,
    PAL_FROLE_MEMBERS, PAL_FROLE_REMOTE_MEMBERS, PAL_FROLE_COUNTER, PAL_FROLE_VALUE,
    PAL_FROLE_ROOT, PAL_FROLE_REQUEST};

typedef struct meaning {
    pal_reader *rd;
    pal_names *names;
    const pal_handle *h[H_N];
    kind *k;
    size_t nk;
    unsigned gen;           /* definitions seen: lanes without a name look again */
} meaning;

static int64_t geti(const pal_record *rec, const pal_handle *h, int64_t dflt)
{
    int64_t v;
    if (h && pal_record_i64(rec, h, &v) == PAL_OK)
        return v;
    return dflt;
}

/* a byte count: absent or negative (unknown) is 0 */
static uint64_t getbytes(const pal_record *rec, const pal_handle *h)
{
    int64_t v;
    if (h && pal_record_i64(rec, h, &v) == PAL_OK && v > 0)
        return (uint64_t)v;
    return 0;
}

static int says_bytes(const pal_recdesc *d)
{
    return pal_recdesc_role_field(d, PAL_FROLE_BYTES_SENT) ||
           pal_recdesc_role_field(d, PAL_FROLE_BYTES_RECEIVED) ||
           pal_recdesc_role_field(d, PAL_FROLE_BYTES);
}

/* every byte a record says it moves */
static uint64_t all_bytes(const meaning *M, const pal_record *rec)
{
    return getbytes(rec, M->h[H_BYTES_SENT]) + getbytes(rec, M->h[H_BYTES_RECEIVED]) +
           getbytes(rec, M->h[H_BYTES]);
}

static int role_of(const pal_recdesc *d, pal_record_role role)
{
    return pal_recdesc_has_role(d, role);
}

/* The region kind of a record type's flags. */
static int region_kind(unsigned flags)
{
    return (flags & F_SETUP)    ? VW_REGION_SETUP
           : (flags & F_COMM)   ? VW_REGION_MPI
           : (flags & F_DEVICE) ? VW_REGION_DEVICE
                                : VW_REGION_USER;
}

static const kind *classify(vw_run *r, meaning *M, const pal_recdesc *d)
{
    size_t i = pal_recdesc_index(d);
    kind *all = grow_index(M->k, &M->nk, i, sizeof *all, 64);
    if (all == NULL)
        return NULL;
    M->k = all;
    kind *k = &M->k[i];
    if (k->known)
        return k;
    k->known = 1;
    k->region = -1;
    for (size_t j = 0; j < sizeof primaries / sizeof primaries[0]; j++)
        if (role_of(d, primaries[j])) {
            k->prim = primaries[j];
            break;
        }
    k->send = role_of(d, PAL_ROLE_SEND);
    k->recv = role_of(d, PAL_ROLE_RECV);
    k->untimed = role_of(d, PAL_ROLE_UNTIMED);
    k->both = k->send == 1 && k->recv == 1;
    k->bytes = says_bytes(d);
    const pal_fielddesc *cf = pal_recdesc_role_field(d, PAL_FROLE_COMMUNICATOR);
    k->args = k->bytes || pal_recdesc_role_field(d, PAL_FROLE_TAG) || cf;
    int global = 0;
    k->comm_global = cf && pal_field_reference(cf, NULL, NULL, &global) == PAL_OK && global;
    if (role_of(d, PAL_ROLE_COMMUNICATION))
        k->flags |= F_COMM;
    if (role_of(d, PAL_ROLE_IDLE))
        k->flags |= F_IDLE;
    if (role_of(d, PAL_ROLE_COLLECTIVE))
        k->flags |= F_COLL;
    if (role_of(d, PAL_ROLE_DEVICE))
        k->flags |= F_DEVICE;
    /* a type new to the reader may have roles no earlier type had */
    for (int h = 0; h < H_N; h++)
        if (M->h[h] == NULL)
            pal_reader_role_handle(M->rd, hrole[h], &M->h[h]);
    const pal_fielddesc *rf = pal_recdesc_role_field(d, PAL_FROLE_REGION);
    int kindof = region_kind(k->flags);
    if ((k->prim == PAL_ROLE_PROCESS_BEGIN || k->prim == PAL_ROLE_PROCESS_END) &&
        pal_recdesc_role_field(d, PAL_FROLE_DURATION)) {
        /* a process's start or end that takes time: a span named by its
         * region field (an OTF2 archive's MPI_Init), else by what the
         * description says of the record */
        const char *nm = pal_recdesc_description(d);
        if (nm == NULL || nm[0] == '\0')
            nm = pal_recdesc_name(d);
        k->flags = F_SETUP;
        const char *rr = NULL, *rfld = NULL;
        if (rf && pal_field_reference(rf, &rr, &rfld, NULL) == PAL_OK) {
            k->refkey = strhash(rr, strlen(rr)) ^ mix(strhash(rfld, strlen(rfld)));
            k->idname = pal_field_name(rf);
        } else {
            k->region = region_named(r, nm, strlen(nm), VW_REGION_SETUP);
        }
    } else if (k->prim == PAL_ROLE_ENTER || k->prim == PAL_ROLE_LEAVE ||
               k->prim == PAL_ROLE_CALL) {
        const char *nm = pal_recdesc_region(d);
        if (nm && nm[0])
            k->region = region_named(r, nm, strlen(nm), kindof);
        else if (rf) {
            const char *rr = NULL, *rfld = NULL;
            if (pal_field_reference(rf, &rr, &rfld, NULL) == PAL_OK)
                k->refkey = strhash(rr, strlen(rr)) ^ mix(strhash(rfld, strlen(rfld)));
            k->idname = pal_field_name(rf);
        } else {
            k->prim = PAL_ROLE_NONE;   /* no region: the model refuses it; be safe */
        }
        if (k->prim == PAL_ROLE_CALL && !pal_recdesc_role_field(d, PAL_FROLE_DURATION))
            k->prim = PAL_ROLE_NONE;
    }
    if (k->prim == PAL_ROLE_DEFINITION && pal_recdesc_role_field(d, PAL_FROLE_COMMUNICATOR) &&
        pal_recdesc_role_field(d, PAL_FROLE_MEMBERS))
        k->comm_def = 1;
    if (k->prim == PAL_ROLE_OVERHEAD && !pal_recdesc_role_field(d, PAL_FROLE_DURATION))
        k->prim = PAL_ROLE_NONE;
    return k;
}

/* The region an enter, leave or call record names: by text, by a name
 * field, or by an id -- resolved through its reference to the definition
 * that names it, else shown as FIELD#ID. */
static long region_of(vw_run *r, meaning *M, const kind *k, const pal_record *rec,
                      uint32_t process)
{
    if (k->region >= 0)
        return k->region;
    const char *s;
    size_t len;
    int kindof = region_kind(k->flags);
    if (pal_record_str(rec, M->h[H_REGION], &s, &len) == PAL_OK)
        return region_named(r, s, len, kindof);
    int64_t id = geti(rec, M->h[H_REGION], -1);
    uint64_t key = mix((uint64_t)process << 40 ^ (uint64_t)id) ^ k->refkey;
    long g = hget(&r->region_by_id, key);
    if (g >= 0)
        return g;
    if (k->refkey && pal_names_handle(M->names, rec, M->h[H_REGION], &s, &len) == PAL_OK) {
        g = region_named(r, s, len, kindof);
    } else {
        char buf[96];
        int n = snprintf(buf, sizeof buf, "%.40s#%lld", k->idname ? k->idname : "region",
                         (long long)id);
        g = region_named(r, buf, (size_t)n, kindof);
    }
    if (g >= 0 && hput(&r->region_by_id, key, g))
        return -1;
    return g;
}

/* The counter a counter record samples: by a name field, or by an id
 * resolved through its reference to the definition that names it, else
 * shown as FIELD#ID. */
static long counter_of(vw_run *r, meaning *M, const pal_record *rec, uint32_t process)
{
    const char *s;
    size_t len;
    if (M->h[H_COUNTER] == NULL)
        return counter_named(r, "counter", 7);
    if (pal_record_str(rec, M->h[H_COUNTER], &s, &len) == PAL_OK)
        return counter_named(r, s, len);
    int64_t id = geti(rec, M->h[H_COUNTER], -1);
    uint64_t key = (uint64_t)process << 40 ^ (uint64_t)id;
    long c = hget(&r->cnt_by_id, key);
    if (c >= 0)
        return c;
    if (pal_names_handle(M->names, rec, M->h[H_COUNTER], &s, &len) == PAL_OK) {
        c = counter_named(r, s, len);
    } else {
        char buf[64];
        int n = snprintf(buf, sizeof buf, "counter#%lld", (long long)id);
        c = counter_named(r, buf, (size_t)n);
    }
    if (c >= 0 && hput(&r->cnt_by_id, key, c))
        return -1;
    return c;
}

/* side 0: the record sends (to dest, or peer), side 1: it receives (from
 * source, or peer). */
static int64_t peer_of(const meaning *M, const pal_record *rec, int side)
{
    return geti(rec, M->h[side ? H_SOURCE : H_DEST], geti(rec, M->h[H_PEER], -1));
}

static int64_t tag_of(const meaning *M, const kind *k, const pal_record *rec, int side)
{
    if (side == 1 && k->both)
        return geti(rec, M->h[H_RECV_TAG], geti(rec, M->h[H_TAG], 0));
    return geti(rec, M->h[H_TAG], 0);
}

static uint64_t bytes_of(const meaning *M, const pal_record *rec, int side)
{
    const pal_handle *h = M->h[side ? H_BYTES_RECEIVED : H_BYTES_SENT];
    int64_t v;
    if (h && pal_record_i64(rec, h, &v) == PAL_OK)
        return v > 0 ? (uint64_t)v : 0;
    return getbytes(rec, M->h[H_BYTES]);
}

static int on(const pal_record *rec, int how, pal_record_role role)
{
    return how == 1 || (how == 2 && pal_record_has_role(rec, role));
}

/* The record's communicator, marked COMM_GLOBAL when its reference says the
 * ids are global (an OTF2 archive's); dflt when it has none. */
static int64_t comm_of(const meaning *M, const kind *k, const pal_record *rec, int64_t dflt)
{
    int64_t c = geti(rec, M->h[H_COMM], dflt);
    return c >= 0 && k->comm_global ? (int64_t)((uint64_t)(uint32_t)c | COMM_GLOBAL) : c;
}

static void record_message(vw_run *r, meaning *M, const kind *k, const pal_record *rec,
                           size_t li, int side, double t)
{
    message(r, li, side, peer_of(M, rec, side), tag_of(M, k, rec, side), comm_of(M, k, rec, 0),
            t, bytes_of(M, rec, side));
}

static int feed(vw_run *r, meaning *M, const pal_record *rec)
{
    const pal_recdesc *d = pal_record_desc(rec);
    const kind *k = classify(r, M, d);
    if (k == NULL)
        return -1;
    /* only definitions define names (a reference's target is one) */
    if (k->prim == PAL_ROLE_DEFINITION && pal_names_add(M->names, rec) != PAL_OK)
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
    switch (k->prim) {
    case PAL_ROLE_DEFINITION:
        M->gen++;
        hfree(&r->region_by_id);   /* an id may have its name now */
        memset(&r->region_by_id, 0, sizeof r->region_by_id);
        hfree(&r->cnt_by_id);
        memset(&r->cnt_by_id, 0, sizeof r->cnt_by_id);
        if (k->comm_def && pal_record_str(rec, M->h[H_MEMBERS], &s, &len) == PAL_OK) {
            const char *rs = "";
            size_t rl = 0;
            if (M->h[H_REMOTE] && pal_record_str(rec, M->h[H_REMOTE], &rs, &rl) != PAL_OK)
                rs = "", rl = 0;
            /* a definition the matcher refuses (no members) leaves the id undefined */
            if (pal_matcher_define_text(r->match, process, geti(rec, M->h[H_COMM], -1),
                                        geti(rec, M->h[H_SIZE], 0), s, len, rs, rl) == PAL_ENOMEM)
                return -1;
        }
        return 0;
    case PAL_ROLE_METADATA:
        return 0;
    case PAL_ROLE_PROCESS_BEGIN:
    case PAL_ROLE_PROCESS_END:
        if (!(k->flags & F_SETUP))
            return 0;   /* at an instant: says when, not what the thread does */
        break;
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
    if (l->pub.name[0] == '\0' && l->name_gen != M->gen) {
        l->name_gen = M->gen;
        if (pal_names_thread(M->names, rec, &s, &len) == PAL_OK && len > 0) {
            const char *c = own(r, s, len);
            if (c)
                l->pub.name = c;
        }
    }
    switch (k->prim) {
    case PAL_ROLE_ENTER: {
        long g = region_of(r, M, k, rec, process);
        if (g < 0)
            return -1;
        frame *fr = push(r, l, g, t);
        if (fr == NULL)
            return -1;
        fr->flags = k->flags;
        if (k->flags & F_COLL)
            fr->root = geti(rec, M->h[H_ROOT], -1);
        if (k->args) {
            fr->tag = geti(rec, M->h[H_TAG], 0);
            fr->comm = comm_of(M, k, rec, 0);
            fr->bytes = all_bytes(M, rec);
            fr->peer = peer_of(M, rec, !on(rec, k->send, PAL_ROLE_SEND));   /* for the views */
            fr->request = geti(rec, M->h[H_REQUEST], -1);
        }
        if (on(rec, k->send, PAL_ROLE_SEND))
            record_message(r, M, k, rec, (size_t)li, 0, t);
        if (on(rec, k->recv, PAL_ROLE_RECV) && !on(rec, k->untimed, PAL_ROLE_UNTIMED)) {
            /* received when the frame closes; the leave may say from whom */
            fr->flags |= F_RECV;
            fr->peer = peer_of(M, rec, 1);
            fr->tag = tag_of(M, k, rec, 1);
        }
        break;
    }
    case PAL_ROLE_LEAVE: {
        long g = region_of(r, M, k, rec, process);
        if (g < 0)
            return -1;
        size_t dp = l->depth;
        while (dp > 0 && l->stack[dp - 1].region != g)
            dp--;
        if (dp == 0) {   /* a leave without its enter: count, ignore */
            r->f.unmatched_leaves++;
            break;
        }
        frame *fr = &l->stack[dp - 1];
        if (fr->flags & F_COLL) {   /* the exit may say the root */
            int64_t root = geti(rec, M->h[H_ROOT], -1);
            if (root >= 0)
                fr->root = root;
        }
        if (k->bytes)
            fr->bytes = all_bytes(M, rec);   /* the exit may carry the data */
        if (k->args) {   /* ... and the communicator (an OTF2 CollectiveEnd's) */
            int64_t c = comm_of(M, k, rec, -1);
            if (c >= 0)
                fr->comm = c;
        }
        if (fr->flags & F_RECV) {   /* any source: the actual one may come with the exit */
            int64_t p = peer_of(M, rec, 1);
            if (p >= 0)
                fr->peer = p;
            int64_t tag = geti(rec, M->h[H_TAG], -1);
            if (tag >= 0)
                fr->tag = tag;
        }
        if (on(rec, k->send, PAL_ROLE_SEND))
            record_message(r, M, k, rec, (size_t)li, 0, t);
        if (on(rec, k->recv, PAL_ROLE_RECV) && !(fr->flags & F_RECV) &&
            !on(rec, k->untimed, PAL_ROLE_UNTIMED))
            record_message(r, M, k, rec, (size_t)li, 1, t);
        while (l->depth >= dp) {   /* frames above the match left without a leave */
            if (l->depth > dp)
                r->f.unmatched_leaves++;
            if (pop(r, (size_t)li, t))
                return -1;
        }
        break;
    }
    case PAL_ROLE_CALL:
    case PAL_ROLE_PROCESS_BEGIN:
    case PAL_ROLE_PROCESS_END: {
        int64_t ns = 0;
        pal_record_duration_ns(rec, &ns);
        double start = t - (double)ns / 1e9;
        if (start < l->pub.first) {   /* the call began before the lane's first record */
            add_interval(r, l, VW_BUSY, start, l->pub.first);
            l->pub.first = start;
        }
        long g = region_of(r, M, k, rec, process);
        if (g < 0)
            return -1;
        frame *fr = push(r, l, g, start);
        if (fr == NULL)
            return -1;
        fr->flags = k->flags;
        if (k->flags & F_COLL)
            fr->root = geti(rec, M->h[H_ROOT], -1);
        if (k->args) {
            fr->bytes = all_bytes(M, rec);
            fr->tag = geti(rec, M->h[H_TAG], 0);
            fr->comm = comm_of(M, k, rec, 0);
            fr->peer = peer_of(M, rec, !on(rec, k->send, PAL_ROLE_SEND));   /* for the views */
            fr->request = geti(rec, M->h[H_REQUEST], -1);
        }
        int untimed = on(rec, k->untimed, PAL_ROLE_UNTIMED);
        if (on(rec, k->send, PAL_ROLE_SEND) && !untimed)
            record_message(r, M, k, rec, (size_t)li, 0, start);
        if (on(rec, k->recv, PAL_ROLE_RECV) && !untimed)
            record_message(r, M, k, rec, (size_t)li, 1, t);
        if (pop(r, (size_t)li, t))
            return -1;
        break;
    }
    case PAL_ROLE_OVERHEAD: {
        int64_t ns = 0;
        pal_record_duration_ns(rec, &ns);
        double end = t + (double)ns / 1e9;
        add_interval(r, l, VW_OVERHEAD, t, end);
        if (end > l->last) {
            add_interval(r, l, VW_BUSY, l->last, end);
            l->last = end;
        }
        break;
    }
    case PAL_ROLE_REQUEST_COMPLETE:
    case PAL_ROLE_REQUEST_START:
    case PAL_ROLE_MESSAGE:
        /* a message sent or received at this instant (a nonblocking receive
         * completes, a persistent send starts); one whose completion was
         * not seen (untimed) is left out */
        if (on(rec, k->untimed, PAL_ROLE_UNTIMED))
            break;
        if (on(rec, k->send, PAL_ROLE_SEND))
            record_message(r, M, k, rec, (size_t)li, 0, t);
        if (on(rec, k->recv, PAL_ROLE_RECV))
            record_message(r, M, k, rec, (size_t)li, 1, t);
        break;
    case PAL_ROLE_MARKER:
        r->f.markers++;
        if (r->sink && r->sink->marker && M->h[H_TEXT] &&
            pal_record_str(rec, M->h[H_TEXT], &s, &len) == PAL_OK)
            r->sink->marker(r->sink->ctx, process, stream, s, len, t);
        break;
    case PAL_ROLE_COUNTER: {
        r->f.counters++;
        double v;
        if (M->h[H_VALUE] == NULL || pal_record_f64(rec, M->h[H_VALUE], &v) != PAL_OK)
            break;
        long c = counter_of(r, M, rec, process);
        if (c < 0 || cl_sample(r, (size_t)li, (size_t)c, v))
            return -1;
        break;
    }
    case PAL_ROLE_LOST:
        r->f.lost += (uint64_t)geti(rec, M->h[H_COUNT], 1);
        break;
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
    for (size_t i = 0; i < r->ncacc; i++)
        r->cacc[i].lane = newpos[r->cacc[i].lane];
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
            if (pop(r, i, r->lanes[i].last))
                return -1;
        }
    for (size_t i = 0; i < r->nlanes; i++)   /* the boundaries still waiting for samples */
        if (cl_flush(r, i))
            return -1;
    for (size_t i = 0; i < r->ncqs; i++)   /* incomplete instances count as seen */
        for (size_t k = r->cqs[i].head; k < r->cqs[i].n; k++)
            if (r->cqs[i].q[k].seen)
                coll_done(r, r->cqs[i].region, &r->cqs[i].q[k], r->cqs[i].size);
    if (sort_lanes(r))
        return -1;
    /* busy = alive - overhead - idle, per bin */
    for (size_t i = 0; i < r->nlanes; i++) {
        lane *l = &r->lanes[i];
        l->pub.last = l->last;
        for (size_t b = 0; b < NBINS; b++) {
            double *x = &l->bins[b * VW_NSTATES];
            double u = x[VW_BUSY] - x[VW_OVERHEAD] - x[VW_IDLE] - l->setup[b];
            r->util[b * VW_NSTATES + VW_BUSY] -= x[VW_BUSY] - (u > 0 ? u : 0);
            x[VW_BUSY] = u > 0 ? u : 0;
            for (int s = 0; s < VW_NSTATES; s++)
                l->pub.state[s] += x[s];
        }
        l->pub.bins = l->bins;
        if (lane_rstat(l, r->nregions ? (long)r->nregions - 1 : 0) == NULL)
            return -1;
        l->pub.rstat = l->rstat;
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
    /* counters per region and node, dense, for the counts only (a counter
     * that decreased on a thread is a level: its deltas mean nothing) */
    size_t C = 0, *cmap = malloc((r->ncnt + 1) * sizeof *cmap);
    if (cmap == NULL)
        return -1;
    for (size_t c = 0; c < r->ncnt; c++) {
        cmap[c] = (size_t)-1;
        if (c >= r->ngauge || !r->cgauge[c]) {
            r->cnames[C] = r->cnames[c];
            cmap[c] = C++;
        }
    }
    size_t nacc = 0;   /* the lanes' shares, public: levels left out */
    for (size_t i = 0; i < r->ncacc; i++)
        if (cmap[r->cacc[i].counter] != (size_t)-1) {
            r->cacc[nacc] = r->cacc[i];
            r->cacc[nacc++].counter = cmap[r->cacc[i].counter];
        }
    r->ncacc = nacc;
    if (C) {
        r->region_cs = calloc((r->nregions ? r->nregions : 1) * C, sizeof *r->region_cs);
        r->node_cs = calloc((r->nnodes ? r->nnodes : 1) * C, sizeof *r->node_cs);
        if (!r->region_cs || !r->node_cs) {
            free(cmap);
            return -1;
        }
        for (size_t i = 0; i < r->ncacc; i++) {
            vw_lane_cstat *a = &r->cacc[i];
            vw_cstat *d = &r->region_cs[a->region * C + a->counter];
            d->calls += a->s.calls;
            d->incl += a->s.incl;
            d->excl += a->s.excl;
        }
        for (size_t i = 0; i < r->ncnode; i++)
            if (cmap[r->cnode[i].c] != (size_t)-1)
                r->node_cs[(size_t)r->cnode[i].node * C + cmap[r->cnode[i].c]] = r->cnode[i].s;
        r->f.ncounters = C;
        r->f.counter_names = r->cnames;
        r->f.region_counters = r->region_cs;
        r->f.node_counters = r->node_cs;
        r->f.nlane_counters = r->ncacc;
        r->f.lane_counters = r->cacc;
    }
    free(cmap);
    /* lanes as a public array */
    vw_lane *pub = malloc((r->nlanes ? r->nlanes : 1) * sizeof *pub);
    if (pub == NULL)
        return -1;
    for (size_t i = 0; i < r->nlanes; i++)
        pub[i] = r->lanes[i].pub;
    r->f.lanes = pub;
    return 0;
}

/* The views draw regions: a description whose records enter none (no role
 * enter or call), or never leave what they enter, gets a message naming the
 * missing role instead of an empty picture. */
static int needs(const pal_dict *d, const char *trace)
{
    if (!pal_dict_find_role(d, PAL_ROLE_ENTER, NULL) && !pal_dict_find_role(d, PAL_ROLE_CALL, NULL)) {
        fprintf(stderr,
                "pal-view: %s: no record has role 'enter' or 'call': the views need regions "
                "entered (dictionary '%s'; doc/edl.md, \"Roles\")\n",
                trace, pal_dict_name(d));
        return -1;
    }
    if (pal_dict_find_role(d, PAL_ROLE_ENTER, NULL) && !pal_dict_find_role(d, PAL_ROLE_LEAVE, NULL)) {
        fprintf(stderr,
                "pal-view: %s: no record has role 'leave': the regions entered are never left "
                "(dictionary '%s'; doc/edl.md, \"Roles\")\n",
                trace, pal_dict_name(d));
        return -1;
    }
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
    if (!r->util || !r->msgs || pal_matcher_create(&r->match) != PAL_OK)
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
        meaning M;
        memset(&M, 0, sizeof M);
        M.rd = rd;
        if (pal_names_create(&M.names) != PAL_OK) {
            pal_reader_close(rd);
            return -1;
        }
        for (int h = 0; h < H_N; h++)
            pal_reader_role_handle(rd, hrole[h], &M.h[h]);
        const pal_record *rec;
        int rc = 0;
        while ((st = pal_reader_next(rd, &rec)) == PAL_OK)
            if ((rc = feed(r, &M, rec)) != 0)
                break;
        if (rc == 0 && st != PAL_END) {
            fprintf(stderr, "pal-view: %s\n", pal_reader_error(rd));
            rc = -1;
        }
        if (rc == 0)
            rc = needs(pal_reader_dict(rd), paths[0]);
        free(M.k);
        pal_names_destroy(M.names);
        /* damage, or a partial trace: the views are drawn, the exit status says it */
        pal_reader_stats rs;
        pal_reader_get_stats(rd, &rs);
        partial = pal_stats_partial(&rs) || r->f.lost > 0;   /* lost: records say so too */
        r->f.damaged = rs.damaged;   /* the views say so (vw_damage_note) */
        r->f.bytes_skipped = rs.bytes_skipped;
        r->f.chunks_missing = rs.chunks_missing;
        r->f.truncated = (uint32_t)rs.truncated;
        r->f.not_closed = rs.not_closed;
        r->f.signaled = rs.signaled;
        r->f.ranks_missing = rs.ranks_missing;
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
        free(r->lanes[i].setup);
        free(r->lanes[i].rstat);
        free(r->lanes[i].active);
        free(r->lanes[i].c.val);
        free(r->lanes[i].c.seen);
        free(r->lanes[i].c.q);
        free(r->lanes[i].c.stk);
        free(r->lanes[i].c.sv);
    }
    free(r->cnames);
    free(r->cgauge);
    hfree(&r->cnt_by_name);
    hfree(&r->cnt_by_id);
    hfree(&r->cacc_of);
    free(r->cacc);
    hfree(&r->cnode_of);
    free(r->cnode);
    free(r->region_cs);
    free(r->node_cs);
    free(r->lanes);
    free((void *)r->f.lanes);
    for (size_t i = 0; i < r->nnames; i++)
        free(r->names[i]);
    free(r->names);
    free(r->regions);
    free(r->nodes);
    hfree(&r->lane_of);
    hfree(&r->region_by_name);
    hfree(&r->region_by_id);
    hfree(&r->node_by_key);
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
    pal_matcher_destroy(r->match);
    for (size_t i = 0; i < r->ncqs; i++)
        free(r->cqs[i].q);
    free(r->cqs);
    hfree(&r->cq_of);
    hfree(&r->coll_seq);
    free(r);
}
