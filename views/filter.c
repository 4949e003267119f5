/* filter.c -- the filter manager: reads the trace through the event layer
 * (pal_events: what records mean, names, matched messages and collective
 * instances, doc/pal.md "Events"; no role is read here) and derives the
 * facts: process state (busy, overhead, idle per lane over time bins), call
 * trees and region statistics (tolerant of unbalanced enter/leave),
 * messages and counters per region. Memory depends on the number of lanes,
 * regions, call paths and unmatched messages, not on the trace length:
 * time is kept in a fixed number of bins whose width doubles when the run
 * outgrows them. */
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
/* An open frame as the statistics keep it; what its enter and leave said
 * comes with the leave event (pal_event). Flags are the event's
 * (PAL_EVF_COMMUNICATION, _IDLE, _COLLECTIVE, _SETUP). */
typedef struct frame {
    long region, node;
    double start, child;
    unsigned flags;
    int outer;          /* no other instance of its region is open on the lane */
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

struct vw_run {
    vw_facts f;
    const vw_sink *sink;
    pal_events *ev;         /* the event layer (names) while reading */
    double base_ticks, tps;
    int have_base;
    /* the record being read: its time in ns and in seconds */
    const pal_record *rec;
    int64_t rec_ns;
    double rec_sec;
    unsigned gen;           /* definitions seen: lanes without a name look again */
    double width;
    double *util;
    lane *lanes;
    size_t nlanes, lanecap;
    hmap lane_of;
    vw_region *regions;
    size_t nregions, regcap;
    hmap region_by_name;
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
    hmap cnt_by_name;
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

/* ---------------- collectives ---------------- */
/* A communicator id as the views show it: marked COMM_GLOBAL when the ids
 * are the same on every process (an OTF2 archive's). */
#define COMM_GLOBAL (UINT64_C(1) << 62)

static int64_t comm_shown(int64_t comm, unsigned flags)
{
    return comm >= 0 && (flags & PAL_MATCH_GLOBAL_COMM)
               ? (int64_t)((uint64_t)(uint32_t)comm | COMM_GLOBAL)
               : comm;
}

static double tsec(const vw_run *r, int64_t ns);
static long region_named(vw_run *r, const char *name, size_t len, int kind);

/* a collective instance (the event layer assembled it) */
static int coll_done(vw_run *r, const pal_event *e)
{
    const pal_coll_instance *c = &e->coll;
    long region = region_named(r, e->name, e->name_len, VW_REGION_MPI);
    if (region < 0)
        return -1;
    vw_region *g = &r->regions[region];
    double first = tsec(r, c->min_start), last = tsec(r, c->max_start);
    double spread = last - first;
    g->instances++;
    g->spread_sum += spread;
    if (spread > g->spread_max)
        g->spread_max = spread;
    if (r->sink && r->sink->collective) {
        vw_coll_ev v = {region, g->name, c->members, c->size, c->lo, c->hi, c->late,
                        comm_shown(c->comm, c->comm_flags), c->root, c->bytes, first, last,
                        tsec(r, c->max_end)};
        r->sink->collective(r->sink->ctx, &v);
    }
    return 0;
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

static long lane_get(vw_run *r, uint32_t process, uint32_t stream);

/* A send or a receive (the event layer gives only those with a peer), and
 * a message the one matcher paired (doc/pal.md, "Messages: the matcher"). */
static int message(vw_run *r, const pal_event *e)
{
    r->f.has_messages = 1;
    if (e->kind == PAL_EV_SEND) {
        r->f.sends++;
        comm_add(r, e->process, (uint32_t)e->peer, e->bytes);
        return 0;
    }
    if (e->kind == PAL_EV_RECV) {
        r->f.recvs++;
        return 0;
    }
    long sl = lane_get(r, e->send.process, e->send.stream);
    long dl = lane_get(r, e->recv.process, e->recv.stream);
    if (sl < 0 || dl < 0)
        return -1;
    matched(r, (size_t)sl, tsec(r, (int64_t)e->send.time), (size_t)dl,
            tsec(r, (int64_t)e->recv.time), e->bytes);
    return 0;
}

/* ---------------- frames ---------------- */
/* The frame on top of lane li closes at end; e is its leave (what the
 * enter and the leave said). */
static void close_frame(vw_run *r, size_t li, frame *fr, double end, const pal_event *e)
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
    g->all.bytes += (double)e->bytes;
    if (dur > g->all.max)
        g->all.max = dur;
    vw_stat *s = lane_rstat(l, fr->region);
    if (s) {
        s->calls++;
        s->total += incl;
        s->excl += excl;
        s->bytes += (double)e->bytes;
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
    if (fr->flags & PAL_EVF_SETUP)
        add_interval(r, l, VW_NSTATES, fr->start, end);
    else if (fr->flags & PAL_EVF_IDLE)
        add_interval(r, l, VW_IDLE, fr->start, end);
    if (r->sink && r->sink->slice)
        r->sink->slice(r->sink->ctx, li, l->pub.process, l->pub.stream, g->name, g->kind,
                       fr->start, end);
    if (r->sink && r->sink->frame) {
        vw_frame_ev v = {l->pub.process, l->pub.stream, fr->region, g->name, g->kind,
                         (fr->flags & PAL_EVF_IDLE) != 0, (unsigned)l->depth, fr->start,
                         end < fr->start ? fr->start : end, e->bytes, e->peer, e->tag,
                         comm_shown(e->comm, e->comm_flags), e->root, e->request};
        r->sink->frame(r->sink->ctx, &v);
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

static frame *push(vw_run *r, lane *l, long region, double start, unsigned flags)
{
    if (GROW(l->stack, l->depth, l->cap))
        return NULL;
    long parent = l->depth ? l->stack[l->depth - 1].node : 0;
    frame *fr = &l->stack[l->depth++];
    memset(fr, 0, sizeof *fr);
    fr->region = region;
    fr->node = node_get(r, parent, region);
    fr->start = start;
    fr->flags = flags;
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

static int pop(vw_run *r, size_t li, double end, const pal_event *e)
{
    lane *l = &r->lanes[li];
    frame fr = l->stack[--l->depth];
    close_frame(r, li, &fr, end, e);
    if (l->depth)
        l->stack[l->depth - 1].child += (end > fr.start ? end - fr.start : 0);
    return cl_event(r, li, -1, -1, 0);
}

/* ---------------- events ---------------- */
/* What records mean comes from the event layer (pal_events, doc/pal.md,
 * "Events"): the role classification, names, message matching and
 * collective instances are its; here they become statistics. */

/* an event's time in seconds from the start: the current record's as the
 * record's ticks give it, a time relative to it (a call's start, an
 * overhead's end) from there, any other (what the end of the trace
 * closes) from the start */
static double tsec(const vw_run *r, int64_t ns)
{
    if (r->rec == NULL)
        return ((double)ns - r->base_ticks * (1e9 / r->tps)) / 1e9;
    if (ns == r->rec_ns)
        return r->rec_sec;
    return r->rec_sec - (double)(r->rec_ns - ns) / 1e9;
}

/* the kind of region a frame's flags make */
static int region_kind(unsigned flags)
{
    return (flags & PAL_EVF_SETUP)           ? VW_REGION_SETUP
           : (flags & PAL_EVF_COMMUNICATION) ? VW_REGION_MPI
                                             : VW_REGION_USER;
}

#define FRAME_FLAGS (PAL_EVF_COMMUNICATION | PAL_EVF_IDLE | PAL_EVF_COLLECTIVE | PAL_EVF_SETUP)

/* A record as read (the first event of each record): the lane it keeps
 * alive, its time, the exports' record sink. */
static int on_record(vw_run *r, const pal_event *e)
{
    const pal_record *rec = e->record;
    uint64_t ticks = pal_record_time(rec);
    r->f.records++;
    if (!r->have_base) {
        r->base_ticks = (double)ticks;
        r->have_base = 1;
    }
    r->rec = rec;
    r->rec_ns = pal_record_time_ns(rec);
    r->rec_sec = ((double)ticks - r->base_ticks) / r->tps;
    double t = r->rec_sec;
    if (r->sink && r->sink->record)
        r->sink->record(r->sink->ctx, rec, t);
    /* definitions, metadata and the process's instants say when, not what
     * a thread does */
    if (e->kind == PAL_EV_DEFINITION || e->kind == PAL_EV_PROCESS_BEGIN ||
        e->kind == PAL_EV_PROCESS_END || (e->flags & PAL_EVF_METADATA))
        return 0;
    long li = lane_get(r, e->process, e->stream);
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
    const char *s;
    size_t len;
    if (l->pub.name[0] == '\0' && l->name_gen != r->gen) {
        l->name_gen = r->gen;
        if (pal_names_thread(pal_events_names(r->ev), rec, &s, &len) == PAL_OK && len > 0) {
            const char *c = own(r, s, len);
            if (c)
                l->pub.name = c;
        }
    }
    return 0;
}

static int on_event(vw_run *r, const pal_event *e)
{
    if ((e->flags & PAL_EVF_RECORD) && on_record(r, e))
        return -1;
    r->rec = e->record;   /* NULL: what the end of the trace makes (tsec) */
    long li;
    switch (e->kind) {
    case PAL_EV_DEFINITION:
        r->gen++;
        return 0;
    case PAL_EV_ENTER: {
        if ((li = lane_get(r, e->process, e->stream)) < 0)
            return -1;
        lane *l = &r->lanes[li];
        double start = tsec(r, e->time);
        if (start < l->pub.first) {   /* a call that began before the lane's first record */
            add_interval(r, l, VW_BUSY, start, l->pub.first);
            l->pub.first = start;
        }
        long g = region_named(r, e->name, e->name_len, region_kind(e->flags));
        if (g < 0 || push(r, l, g, start, e->flags & FRAME_FLAGS) == NULL)
            return -1;
        return 0;
    }
    case PAL_EV_LEAVE: {
        if (e->flags & PAL_EVF_ORPHAN) {   /* a leave without its enter: count, ignore */
            r->f.unmatched_leaves++;
            return region_named(r, e->name, e->name_len, region_kind(e->flags)) < 0 ? -1 : 0;
        }
        if ((li = lane_get(r, e->process, e->stream)) < 0 || r->lanes[li].depth == 0)
            return -1;
        lane *l = &r->lanes[li];
        if (e->record == NULL)
            r->f.open_at_end++;   /* closed at the lane's last time */
        else if (e->flags & PAL_EVF_UNMATCHED)
            r->f.unmatched_leaves++;   /* left with an outer frame */
        return pop(r, (size_t)li, e->record ? tsec(r, e->time) : l->last, e);
    }
    case PAL_EV_SEND:
    case PAL_EV_RECV:
    case PAL_EV_MESSAGE:
        return message(r, e);
    case PAL_EV_COLL_INSTANCE:
        return coll_done(r, e);
    case PAL_EV_OVERHEAD: {
        if ((li = lane_get(r, e->process, e->stream)) < 0)
            return -1;
        lane *l = &r->lanes[li];
        double t = tsec(r, e->time), end = tsec(r, e->time + e->duration);
        add_interval(r, l, VW_OVERHEAD, t, end);
        if (end > l->last) {
            add_interval(r, l, VW_BUSY, l->last, end);
            l->last = end;
        }
        return 0;
    }
    case PAL_EV_MARKER:
        r->f.markers++;
        if (r->sink && r->sink->marker && e->name)
            r->sink->marker(r->sink->ctx, e->process, e->stream, e->name, e->name_len,
                            tsec(r, e->time));
        return 0;
    case PAL_EV_COUNTER: {
        r->f.counters++;
        if (isnan(e->value))
            return 0;   /* a sample without a value */
        if ((li = lane_get(r, e->process, e->stream)) < 0)
            return -1;
        long c = counter_named(r, e->name, e->name_len);
        return c < 0 || cl_sample(r, (size_t)li, (size_t)c, e->value) ? -1 : 0;
    }
    case PAL_EV_LOST:
        r->f.lost += e->count;
        return 0;
    default:
        return 0;
    }
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
    /* (what was still open closed at its lane's last time, and incomplete
     * collective instances came out with their members seen: the event
     * layer's end) */
    for (size_t i = 0; i < r->nlanes; i++)   /* the boundaries still waiting for samples */
        if (cl_flush(r, i))
            return -1;
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
        int rc = 0;
        if (pal_events_create(rd, &r->ev) != PAL_OK ||
            pal_events_set_options(r->ev, PAL_EVENTS_EVERY_RECORD) != PAL_OK) {
            fprintf(stderr, "pal-view: %s: out of memory\n", paths[0]);
            rc = -1;
        }
        const pal_event *e;
        while (rc == 0 && (st = pal_events_next(r->ev, &e)) == PAL_OK)
            rc = on_event(r, e);
        r->rec = NULL;
        if (rc == 0 && st != PAL_END) {
            fprintf(stderr, "pal-view: %s\n",
                    st == PAL_ENOMEM ? "out of memory" : pal_reader_error(rd));
            rc = -1;
        }
        if (rc == 0)
            rc = needs(pal_reader_dict(rd), paths[0]);
        pal_events_destroy(r->ev);
        r->ev = NULL;
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
    free(r);
}
