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
#include <pthread.h>
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
/* Where a thing was first seen: the record's time, thread and place in the
 * thread. Regions, call paths and counters are numbered in this order at
 * the end, so that the partial results of shares merge into the numbering
 * one reader gives (the reader's order, ties by process and thread). */
typedef struct okey {
    int64_t t;
    uint32_t process, stream;
    uint64_t seq;
} okey;

static int okey_cmp(const okey *a, const okey *b)
{
    if (a->t != b->t)
        return a->t < b->t ? -1 : 1;
    if (a->process != b->process)
        return a->process < b->process ? -1 : 1;
    if (a->stream != b->stream)
        return a->stream < b->stream ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* An open frame as the statistics keep it; what its enter and leave said
 * comes with the leave event (pal_event). Flags are the event's
 * (PAL_EVF_COMMUNICATION, _IDLE, _COLLECTIVE, _SETUP). */
typedef struct frame {
    long region, node;
    double start, child;
    int64_t start_ns, child_ns;
    unsigned flags;
    int outer;          /* no other instance of its region is open on the lane */
} frame;

/* Counters per region. ECL samples a thread's counters just after the enter
 * or leave that is the boundary, so a boundary's values are those of the
 * first samples that follow it on the lane: enters and leaves wait in a
 * queue (cev) until the next samples arrive, then replay on a stack of their
 * own (cfr) with the values now current. Boundaries with no sample of their
 * own (ECL_COUNTER_PERIOD) take the next samples' values. A lane's stack
 * starts with its first sample. */
typedef struct cev {
    long region, node;  /* region < 0: a leave */
    int outer;
} cev;

typedef struct cfr {
    long region, node;
    int outer;
} cfr;

typedef struct clane {
    int started;        /* the lane had a sample */
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

/* A lane: everything in it depends on its own events only (its bins have
 * their own width), so that a lane read by any share comes out the same. */
typedef struct lane {
    vw_lane pub;
    frame *stack;
    size_t depth, cap;
    double width;       /* of its bins, seconds */
    double *bins;
    double *setup;      /* NBINS seconds of the process's start and end */
    vw_stat *rstat;
    size_t nrstat;
    uint32_t *active;   /* open instances per region */
    size_t nactive;
    clane c;
    double last;
    int started;
    uint64_t nrec;      /* records of the lane so far */
    unsigned name_gen;  /* definitions seen when its name was last looked up */
} lane;

/* per region, besides its public statistics */
typedef struct rinfo {
    okey first;
    int64_t spread_sum, spread_max;   /* collectives, ns */
} rinfo;

/* per call-tree node: times summed over lanes in exact ns */
typedef struct ninfo {
    okey first;
    int64_t incl, excl;
} ninfo;

/* a matched message: in the sample while at most MSG_SAMPLE, else a
 * bottom-k sample by hash (the same messages whatever order they match in) */
typedef struct ment {
    okey k;             /* the later end: when the one matcher paired them */
    uint64_t h;
    uint32_t sp, ss, dp, ds;    /* process and stream of each end */
    int64_t ts, tr;
    uint64_t bytes;
} ment;

/* an end the share's matcher left waiting: its partner may be in another share */
typedef struct wend {
    pal_msg_key key;
    int side;
    pal_msg_end end;
} wend;

/* a collective instance not complete in the share (or of unknown size) */
typedef struct cpend {
    uint64_t context, seq;
    long region;
    pal_coll_instance c;
} cpend;

struct vw_run {
    vw_facts f;
    const vw_sink *sink;
    pal_events *ev;         /* the event layer (names) while reading */
    double base_ticks, tps;
    int have_base;
    /* the record being read: its time in ns and in seconds, where it is */
    const pal_record *rec;
    int64_t rec_ns;
    double rec_sec;
    okey cur;
    unsigned gen;           /* definitions seen: lanes without a name look again */
    int partial;            /* the reader said damage or a partial trace */
    int share;              /* a share of several: keep what other shares complete */
    int oom;                /* keep_end ran out of memory */
    double width;
    double *util;
    lane *lanes;
    size_t nlanes, lanecap;
    hmap lane_of;
    vw_region *regions;
    rinfo *rinf;
    size_t nregions, regcap, rinfcap;
    hmap region_by_name;
    char **names;     /* owned strings */
    size_t nnames, namecap;
    vw_node *nodes;
    ninfo *ninf;
    size_t nnodes, nodecap, ninfcap;
    hmap node_by_key;
    hmap comm_of;         /* (src<<32|dst) -> index */
    uint64_t *c_count;
    double *c_bytes;
    uint32_t *c_src, *c_dst;
    size_t nc, ccap;
    ment *ms;             /* the message sample */
    size_t nms;
    int64_t lat_sum, lat_max;   /* ns */
    vw_msg *msgs;
    size_t nmsgs;
    wend *w;
    size_t nw, wcap;
    cpend *cp;
    size_t ncp, cpcap;
    uint32_t *ranks;
    uint64_t *mcount;
    double *mbytes, *rwait;
    char first_trace[4096];
    char dict_name[128];
    /* counters per region */
    size_t ncnt, cntcap;
    const char **cnames;
    okey *cfirst;
    size_t cfirstcap;
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

/* the lane's bins widened until they hold t (or width w) */
static void cover(lane *l, double t, double w)
{
    while (t >= l->width * NBINS || l->width < w) {
        halve(l->bins, VW_NSTATES);
        halve(l->setup, 1);
        l->width *= 2;
    }
}

/* state VW_NSTATES: the process's start or end, kept apart from the states */
static void add_interval(lane *l, int state, double a, double b)
{
    if (a < 0)
        a = 0;
    if (!(b > a))
        return;
    cover(l, b, 0);
    size_t i = (size_t)(a / l->width);
    while (a < b && i < NBINS) {
        double end = (double)(i + 1) * l->width;
        double piece = (b < end ? b : end) - a;
        if (state == VW_NSTATES)
            l->setup[i] += piece;
        else
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
    l->width = 1e-6;
    l->bins = calloc(NBINS * VW_NSTATES, sizeof *l->bins);
    l->setup = calloc(NBINS, sizeof *l->setup);
    if (l->bins == NULL || l->setup == NULL || hput(&r->lane_of, key, (long)r->nlanes))
        return -1;
    return (long)r->nlanes++;
}

/* the region (name, kind), made when first seen at key k */
static long region_get(vw_run *r, const char *name, size_t len, int kind, const okey *k)
{
    uint64_t h = strhash(name, len) ^ (uint64_t)kind;
    for (;; h++) {
        long i = hget(&r->region_by_name, h);
        if (i < 0)
            break;
        if (r->regions[i].kind == kind && strlen(r->regions[i].name) == len &&
            memcmp(r->regions[i].name, name, len) == 0) {
            if (okey_cmp(k, &r->rinf[i].first) < 0)
                r->rinf[i].first = *k;
            return i;
        }
    }
    if (GROW(r->regions, r->nregions, r->regcap) ||
        (r->nregions >= r->rinfcap &&
         (r->rinf = realloc_or_free(r->rinf, (r->rinfcap = r->regcap) * sizeof *r->rinf)) == NULL))
        return -1;
    char *c = own(r, name, len);
    if (c == NULL)
        return -1;
    vw_region *g = &r->regions[r->nregions];
    memset(g, 0, sizeof *g);
    g->name = c;
    g->kind = kind;
    r->rinf[r->nregions] = (rinfo){*k, 0, 0};
    if (hput(&r->region_by_name, h, (long)r->nregions))
        return -1;
    return (long)r->nregions++;
}

static long region_named(vw_run *r, const char *name, size_t len, int kind)
{
    return region_get(r, name, len, kind, &r->cur);
}

/* the node (parent, region); children are put in order at the end */
static long node_at(vw_run *r, long parent, long region, const okey *k)
{
    uint64_t key = (uint64_t)(parent + 1) << 32 | (uint64_t)(region + 1);
    long i = hget(&r->node_by_key, key);
    if (i >= 0) {
        if (okey_cmp(k, &r->ninf[i].first) < 0)
            r->ninf[i].first = *k;
        return i;
    }
    if (GROW(r->nodes, r->nnodes, r->nodecap) ||
        (r->nnodes >= r->ninfcap &&
         (r->ninf = realloc_or_free(r->ninf, (r->ninfcap = r->nodecap) * sizeof *r->ninf)) == NULL))
        return -1;
    vw_node *n = &r->nodes[r->nnodes];
    memset(n, 0, sizeof *n);
    n->region = region;
    n->parent = parent;
    n->first_child = n->next_sibling = -1;
    r->ninf[r->nnodes] = (ninfo){*k, 0, 0};
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

static double ns_sec(const vw_run *r, int64_t ns)
{
    return ((double)ns - r->base_ticks * (1e9 / r->tps)) / 1e9;
}

static int region_kind(unsigned flags)
{
    return (flags & PAL_EVF_SETUP)           ? VW_REGION_SETUP
           : (flags & PAL_EVF_COMMUNICATION) ? VW_REGION_MPI
                                             : VW_REGION_USER;
}

/* a collective instance, complete */
static void coll_count(vw_run *r, long region, const pal_coll_instance *c)
{
    vw_region *g = &r->regions[region];
    rinfo *ri = &r->rinf[region];
    int64_t spread = c->max_start - c->min_start;
    g->instances++;
    ri->spread_sum += spread;
    if (spread > ri->spread_max)
        ri->spread_max = spread;
    if (r->sink && r->sink->collective) {
        vw_coll_ev v = {region, g->name, c->members, c->size, c->lo, c->hi, c->late,
                        comm_shown(c->comm, c->comm_flags), c->root, c->bytes,
                        ns_sec(r, c->min_start), ns_sec(r, c->max_start), ns_sec(r, c->max_end)};
        r->sink->collective(r->sink->ctx, &v);
    }
}

/* an instance the event layer assembled: counted when complete; one not
 * complete (in a share, or of unknown size) waits for the end, where
 * the shares' parts of it are one */
static int coll_done(vw_run *r, const pal_event *e)
{
    long region = region_named(r, e->name, e->name_len, region_kind(e->flags));
    if (region < 0)
        return -1;
    if (e->coll.size && e->coll.members >= e->coll.size) {
        coll_count(r, region, &e->coll);
        return 0;
    }
    if (GROW(r->cp, r->ncp, r->cpcap))
        return -1;
    r->cp[r->ncp++] = (cpend){e->coll.context, e->coll.seq, region, e->coll};
    return 0;
}

/* the parts of one instance: b into a */
static void coll_join(pal_coll_instance *a, const pal_coll_instance *b)
{
    if (b->min_start < a->min_start)
        a->min_start = b->min_start;
    if (b->max_start > a->max_start) {
        a->max_start = b->max_start;
        a->late = b->late;
    }
    if (b->max_end > a->max_end)
        a->max_end = b->max_end;
    if (b->lo < a->lo)
        a->lo = b->lo;
    if (b->hi > a->hi)
        a->hi = b->hi;
    if (a->root < 0)
        a->root = b->root;
    if (a->size == 0)
        a->size = b->size;
    a->bytes += b->bytes;
    a->members += b->members;
}

/* ---------------- messages ---------------- */
static void comm_add(vw_run *r, uint32_t src, uint32_t dst, uint64_t count, double bytes)
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
    r->c_count[i] += count;
    r->c_bytes[i] += bytes;
}

/* the sample's heap (once full): the largest hash on top */
static void ms_sift(ment *a, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < n && a[l].h > a[m].h)
            m = l;
        if (l + 1 < n && a[l + 1].h > a[m].h)
            m = l + 1;
        if (m == i)
            return;
        ment t = a[i];
        a[i] = a[m];
        a[m] = t;
        i = m;
    }
}

static void ms_add(vw_run *r, const ment *m)
{
    if (r->nms < MSG_SAMPLE) {
        r->ms[r->nms++] = *m;
        if (r->nms == MSG_SAMPLE)
            for (size_t i = MSG_SAMPLE / 2; i-- > 0;)
                ms_sift(r->ms, MSG_SAMPLE, i);
    } else if (m->h < r->ms[0].h) {
        r->ms[0] = *m;
        ms_sift(r->ms, MSG_SAMPLE, 0);
    }
}

/* the key of an end: its time, thread and the record's place in the thread */
static okey end_key(const pal_msg_end *e)
{
    return (okey){(int64_t)e->time, e->process, e->stream, e->user};
}

/* a matched message: ends with times in ns */
static void matched(vw_run *r, const pal_msg_end *s, const pal_msg_end *d, uint64_t bytes)
{
    int64_t ts = (int64_t)s->time, tr = (int64_t)d->time;
    r->f.matched++;
    int64_t lat = tr - ts;
    r->lat_sum += lat;
    if (lat > r->lat_max)
        r->lat_max = lat;
    okey ks = end_key(s), kd = end_key(d);
    ment m = {okey_cmp(&ks, &kd) > 0 ? ks : kd, 0, s->process, s->stream, d->process,
              d->stream, ts, tr, bytes};
    m.h = mix(mix((uint64_t)s->process << 32 ^ s->stream ^ mix((uint64_t)ts)) ^
              ((uint64_t)d->process << 32 ^ d->stream) ^ mix((uint64_t)tr ^ s->user));
    ms_add(r, &m);
    if (r->sink && r->sink->flow) {
        long sl = lane_get(r, s->process, s->stream), dl = lane_get(r, d->process, d->stream);
        vw_msg v = {0, 0, (size_t)sl, (size_t)dl, ns_sec(r, ts), ns_sec(r, tr), bytes};
        r->sink->flow(r->sink->ctx, &v, r->f.matched, s->process, s->stream, d->process,
                      d->stream);
    }
}

/* A send or a receive (the event layer gives only those with a peer), and
 * a message the one matcher paired (doc/pal.md, "Messages: the matcher"). */
static int message(vw_run *r, const pal_event *e)
{
    r->f.has_messages = 1;
    if (e->kind == PAL_EV_SEND) {
        r->f.sends++;
        comm_add(r, e->process, (uint32_t)e->peer, 1, (double)e->bytes);
    } else if (e->kind == PAL_EV_RECV) {
        r->f.recvs++;
    } else {
        matched(r, &e->send, &e->recv, e->bytes);
    }
    return 0;
}

/* ---------------- frames ---------------- */
/* The frame on top of lane li closes at end; e is its leave (what the
 * enter and the leave said). */
static void close_frame(vw_run *r, size_t li, frame *fr, double end, int64_t end_ns,
                        const pal_event *e)
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
    vw_stat *s = lane_rstat(l, fr->region);
    if (s) {
        s->calls++;
        s->total += incl;
        s->excl += excl;
        s->bytes += (double)e->bytes;
        if (dur > s->max)
            s->max = dur;
    }
    if (fr->node >= 0) {   /* summed over lanes: in ns, exact in any order */
        int64_t dn = end_ns - fr->start_ns;
        if (dn < 0)
            dn = 0;
        int64_t xn = dn - fr->child_ns;
        r->nodes[fr->node].calls++;
        r->ninf[fr->node].incl += dn;
        r->ninf[fr->node].excl += xn > 0 ? xn : 0;
    }
    /* overhead is the tool's own time only (records of role overhead):
     * communication that does not wait (MPI_Isend, MPI_Iprobe) is busy */
    if (fr->flags & PAL_EVF_SETUP)
        add_interval(l, VW_NSTATES, fr->start, end);
    else if (fr->flags & PAL_EVF_IDLE)
        add_interval(l, VW_IDLE, fr->start, end);
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
    clane *c = &r->lanes[li].c;
    if (!c->started)
        return 0;
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
    if (!c->started) {   /* the lane's first sample: its open frames start the stack */
        lane *l = &r->lanes[li];
        c->started = 1;
        for (size_t d = 0; d < l->depth; d++)
            if (cl_event(r, li, l->stack[d].region, l->stack[d].node, l->stack[d].outer))
                return -1;
    }
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

/* the index of a counter by name, made when first seen at key k */
static long counter_get(vw_run *r, const char *name, size_t len, const okey *k)
{
    uint64_t h = strhash(name, len);
    for (;; h++) {
        long i = hget(&r->cnt_by_name, h);
        if (i < 0)
            break;
        if (strlen(r->cnames[i]) == len && memcmp(r->cnames[i], name, len) == 0) {
            if (okey_cmp(k, &r->cfirst[i]) < 0)
                r->cfirst[i] = *k;
            return i;
        }
    }
    const char *c = own(r, name, len);
    if (c == NULL || GROW(r->cnames, r->ncnt, r->cntcap) ||
        (r->ncnt >= r->cfirstcap &&
         (r->cfirst = realloc_or_free(r->cfirst, (r->cfirstcap = r->cntcap) * sizeof *r->cfirst)) ==
             NULL) ||
        hput(&r->cnt_by_name, h, (long)r->ncnt))
        return -1;
    r->cfirst[r->ncnt] = *k;
    r->cnames[r->ncnt++] = c;
    return (long)r->ncnt - 1;
}

static frame *push(vw_run *r, lane *l, long region, double start, int64_t start_ns,
                   unsigned flags)
{
    if (GROW(l->stack, l->depth, l->cap))
        return NULL;
    long parent = l->depth ? l->stack[l->depth - 1].node : 0;
    frame *fr = &l->stack[l->depth++];
    memset(fr, 0, sizeof *fr);
    fr->region = region;
    fr->node = node_at(r, parent, region, &r->cur);
    fr->start = start;
    fr->start_ns = start_ns;
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

static int pop(vw_run *r, size_t li, double end, int64_t end_ns, const pal_event *e)
{
    lane *l = &r->lanes[li];
    frame fr = l->stack[--l->depth];
    close_frame(r, li, &fr, end, end_ns, e);
    if (l->depth) {
        l->stack[l->depth - 1].child += (end > fr.start ? end - fr.start : 0);
        l->stack[l->depth - 1].child_ns += end_ns > fr.start_ns ? end_ns - fr.start_ns : 0;
    }
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
        return ns_sec(r, ns);
    if (ns == r->rec_ns)
        return r->rec_sec;
    return r->rec_sec - (double)(r->rec_ns - ns) / 1e9;
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
    r->cur = (okey){r->rec_ns, e->process, e->stream, 0};
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
    r->cur.seq = l->nrec++;
    if (!l->started) {
        l->started = 1;
        l->pub.first = t;
        l->last = t;
    }
    if (t > l->last) {
        add_interval(l, VW_BUSY, l->last, t);   /* alive; busy = alive - others later */
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
            add_interval(l, VW_BUSY, start, l->pub.first);
            l->pub.first = start;
        }
        long g = region_named(r, e->name, e->name_len, region_kind(e->flags));
        if (g < 0 || push(r, l, g, start, e->time, e->flags & FRAME_FLAGS) == NULL)
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
        return pop(r, (size_t)li, e->record ? tsec(r, e->time) : l->last, e->time, e);
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
        add_interval(l, VW_OVERHEAD, t, end);
        if (end > l->last) {
            add_interval(l, VW_BUSY, l->last, end);
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
        long c = counter_get(r, e->name, e->name_len, &r->cur);
        return c < 0 || cl_sample(r, (size_t)li, (size_t)c, e->value) ? -1 : 0;
    }
    case PAL_EV_LOST:
        r->f.lost += e->count;
        return 0;
    default:
        return 0;
    }
}

/* ---------------- a share's end, and merging shares ---------------- */
/* Each share of a run (pal_reader_set_share) is read into its own vw_run;
 * what one share cannot finish alone -- messages whose ends are in two
 * shares, collective instances with members in several -- waits in it, and
 * merging two partial results finishes what they complete together. Sums
 * across lanes are made at the end in lane order, or in exact ns, so the
 * merged result is the one a single reader gives. */

static void keep_end(void *ctx, const pal_msg_key *key, int side, const pal_msg_end *end)
{
    vw_run *r = ctx;
    if (GROW(r->w, r->nw, r->wcap)) {
        r->oom = 1;
        return;
    }
    r->w[r->nw++] = (wend){*key, side, *end};
}

/* after the last event of a share: the counter boundaries still waiting for
 * samples, and (of one share of several) the message ends still waiting */
static int share_end(vw_run *r)
{
    for (size_t i = 0; i < r->nlanes; i++)
        if (cl_flush(r, i))
            return -1;
    if (r->share)
        pal_matcher_foreach_waiting(pal_events_matcher(r->ev), keep_end, r);
    return r->oom ? -1 : 0;
}

static int cmp_wend(const void *a, const void *b)
{
    const wend *x = a, *y = b;
    if (x->key.src != y->key.src)
        return x->key.src < y->key.src ? -1 : 1;
    if (x->key.dst != y->key.dst)
        return x->key.dst < y->key.dst ? -1 : 1;
    if (x->key.tag != y->key.tag)
        return x->key.tag < y->key.tag ? -1 : 1;
    if (x->key.context != y->key.context)
        return x->key.context < y->key.context ? -1 : 1;
    if (x->side != y->side)
        return x->side < y->side ? -1 : 1;
    okey kx = end_key(&x->end), ky = end_key(&y->end);
    return okey_cmp(&kx, &ky);
}

/* the waiting ends of both shares: in each key, the i-th send is the i-th
 * receive's (the matcher's first-in first-out, doc/pal.md) */
static void pair_ends(vw_run *r)
{
    if (r->nw > 1)
        qsort(r->w, r->nw, sizeof *r->w, cmp_wend);
    size_t out = 0;
    for (size_t i = 0; i < r->nw;) {
        size_t j = i, m;
        while (j < r->nw && r->w[j].key.src == r->w[i].key.src &&
               r->w[j].key.dst == r->w[i].key.dst && r->w[j].key.tag == r->w[i].key.tag &&
               r->w[j].key.context == r->w[i].key.context)
            j++;
        for (m = i; m < j && r->w[m].side == PAL_MATCH_SEND; m++)
            ;
        size_t ns = m - i, nr = j - m, np = ns < nr ? ns : nr;
        for (size_t k = 0; k < np; k++)
            matched(r, &r->w[i + k].end, &r->w[m + k].end, r->w[i + k].end.bytes);
        for (size_t k = i + np; k < m; k++)
            r->w[out++] = r->w[k];
        for (size_t k = m + np; k < j; k++)
            r->w[out++] = r->w[k];
        i = j;
    }
    r->nw = out;
}

/* from's partial result into r's */
static int run_merge(vw_run *r, const vw_run *from)
{
    long *rmap = malloc((from->nregions + 1) * sizeof *rmap);
    long *nmap = malloc((from->nnodes + 1) * sizeof *nmap);
    long *cmap = malloc((from->ncnt + 1) * sizeof *cmap);
    long *lmap = malloc((from->nlanes + 1) * sizeof *lmap);
    int rc = -1;
    if (!rmap || !nmap || !cmap || !lmap)
        goto out;
    for (size_t i = 0; i < from->nregions; i++) {
        const vw_region *g = &from->regions[i];
        long j = rmap[i] = region_get(r, g->name, strlen(g->name), g->kind, &from->rinf[i].first);
        if (j < 0)
            goto out;
        r->regions[j].instances += g->instances;
        r->rinf[j].spread_sum += from->rinf[i].spread_sum;
        if (from->rinf[i].spread_max > r->rinf[j].spread_max)
            r->rinf[j].spread_max = from->rinf[i].spread_max;
    }
    for (size_t i = 0; i < from->ncnt; i++) {
        if ((cmap[i] = counter_get(r, from->cnames[i], strlen(from->cnames[i]),
                                   &from->cfirst[i])) < 0)
            goto out;
        if (i < from->ngauge && from->cgauge[i]) {
            unsigned char *g = grow_index(r->cgauge, &r->ngauge, (size_t)cmap[i], 1, 8);
            if (g == NULL)
                goto out;
            r->cgauge = g;
            g[cmap[i]] = 1;
        }
    }
    nmap[0] = 0;   /* the root; a node's parent comes before it */
    for (size_t i = 1; i < from->nnodes; i++) {
        const vw_node *n = &from->nodes[i];
        long j = nmap[i] = node_at(r, nmap[n->parent], rmap[n->region], &from->ninf[i].first);
        if (j < 0)
            goto out;
        r->nodes[j].calls += n->calls;
        r->ninf[j].incl += from->ninf[i].incl;
        r->ninf[j].excl += from->ninf[i].excl;
    }
    for (size_t i = 0; i < from->nlanes; i++) {
        const lane *fl = &from->lanes[i];
        long j = lmap[i] = lane_get(r, fl->pub.process, fl->pub.stream);
        if (j < 0)
            goto out;
        lane *l = &r->lanes[j];
        if (l->started)   /* a thread in two shares: cannot be */
            goto out;
        l->pub.first = fl->pub.first;
        l->pub.name = fl->pub.name[0] ? own(r, fl->pub.name, strlen(fl->pub.name)) : "";
        if (l->pub.name == NULL)
            goto out;
        l->width = fl->width;
        memcpy(l->bins, fl->bins, NBINS * VW_NSTATES * sizeof *l->bins);
        memcpy(l->setup, fl->setup, NBINS * sizeof *l->setup);
        l->last = fl->last;
        l->started = fl->started;
        l->nrec = fl->nrec;
        for (size_t g = 0; g < fl->nrstat && g < from->nregions; g++) {
            vw_stat *s = lane_rstat(l, rmap[g]);
            if (s == NULL)
                goto out;
            *s = fl->rstat[g];
        }
    }
    for (size_t i = 0; i < from->nc; i++)
        comm_add(r, from->c_src[i], from->c_dst[i], from->c_count[i], from->c_bytes[i]);
    for (size_t i = 0; i < from->ncacc; i++) {
        const vw_lane_cstat *a = &from->cacc[i];
        vw_cstat *d = cacc_get(r, (size_t)lmap[a->lane], rmap[a->region], (size_t)cmap[a->counter]);
        if (d == NULL)
            goto out;
        d->calls += a->s.calls;
        d->incl += a->s.incl;
        d->excl += a->s.excl;
    }
    for (size_t i = 0; i < from->ncnode; i++) {
        vw_cstat *d = cnode_get(r, nmap[from->cnode[i].node], (size_t)cmap[from->cnode[i].c]);
        if (d == NULL)
            goto out;
        d->calls += from->cnode[i].s.calls;
        d->incl += from->cnode[i].s.incl;
        d->excl += from->cnode[i].s.excl;
    }
    for (size_t i = 0; i < from->ncp; i++) {
        if (GROW(r->cp, r->ncp, r->cpcap))
            goto out;
        r->cp[r->ncp] = from->cp[i];
        r->cp[r->ncp++].region = rmap[from->cp[i].region];
    }
    /* messages: counts, the sample, then what the two complete together */
    r->f.has_messages |= from->f.has_messages;
    r->f.sends += from->f.sends;
    r->f.recvs += from->f.recvs;
    r->f.matched += from->f.matched;
    r->lat_sum += from->lat_sum;
    if (from->lat_max > r->lat_max)
        r->lat_max = from->lat_max;
    for (size_t i = 0; i < from->nms; i++)
        ms_add(r, &from->ms[i]);
    for (size_t i = 0; i < from->nw; i++) {
        if (GROW(r->w, r->nw, r->wcap))
            goto out;
        r->w[r->nw++] = from->w[i];
    }
    pair_ends(r);
    r->f.records += from->f.records;
    r->f.markers += from->f.markers;
    r->f.counters += from->f.counters;
    r->f.lost += from->f.lost;
    r->f.unmatched_leaves += from->f.unmatched_leaves;
    r->f.open_at_end += from->f.open_at_end;
    r->f.damaged += from->f.damaged;
    r->f.bytes_skipped += from->f.bytes_skipped;
    r->f.chunks_missing += from->f.chunks_missing;
    r->f.truncated += from->f.truncated;
    r->f.not_closed += from->f.not_closed;
    r->f.signaled += from->f.signaled;
    if (from->f.ranks_missing > r->f.ranks_missing)   /* each share knows the run's */
        r->f.ranks_missing = from->f.ranks_missing;
    r->partial |= from->partial;
    rc = 0;
out:
    free(rmap);
    free(nmap);
    free(cmap);
    free(lmap);
    return rc;
}

/* ---------------- the end: numbering and sums ---------------- */
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

/* the lane of (process, stream) once lanes are sorted */
static size_t lane_index(const vw_run *r, uint32_t process, uint32_t stream)
{
    size_t lo = 0, hi = r->nlanes;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        const vw_lane *l = &r->lanes[mid].pub;
        if (l->process < process || (l->process == process && l->stream < stream))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < r->nlanes ? lo : 0;
}

/* lanes in (process, stream) order; counter shares follow */
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
    for (size_t i = 0; i < r->ncacc; i++)
        r->cacc[i].lane = newpos[r->cacc[i].lane];
    free(newpos);
    return 0;
}

/* a permutation of n things by their first-seen keys: order[k] = old index */
static const okey *perm_keys;
static size_t perm_stride;
static int cmp_perm(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    int c = okey_cmp((const okey *)((const char *)perm_keys + x * perm_stride),
                     (const okey *)((const char *)perm_keys + y * perm_stride));
    return c ? c : (x > y) - (x < y);
}

/* newpos[old] for n things sorted by the okey at keys + i * stride; thing 0
 * stays first when keep0 (the call tree's root). NULL when out of memory. */
static size_t *first_seen_order(const void *keys, size_t stride, size_t n, int keep0)
{
    size_t *order = malloc((n + 1) * sizeof *order), *newpos = malloc((n + 1) * sizeof *newpos);
    if (order == NULL || newpos == NULL) {
        free(order);
        free(newpos);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        order[i] = i;
    size_t k0 = keep0 && n ? 1 : 0;
    perm_keys = keys;   /* qsort has no context argument; finish runs on one thread */
    perm_stride = stride;
    if (n > k0 + 1)
        qsort(order + k0, n - k0, sizeof *order, cmp_perm);
    for (size_t i = 0; i < n; i++)
        newpos[order[i]] = i;
    free(order);
    return newpos;
}

static int cmp_cacc(const void *a, const void *b)
{
    const vw_lane_cstat *x = a, *y = b;
    if (x->lane != y->lane)
        return x->lane < y->lane ? -1 : 1;
    if (x->region != y->region)
        return x->region < y->region ? -1 : 1;
    return x->counter < y->counter ? -1 : x->counter > y->counter;
}

static int cmp_ment(const void *a, const void *b)
{
    return okey_cmp(&((const ment *)a)->k, &((const ment *)b)->k);
}

/* collective instances still in parts: the parts of one instance (its
 * communicator's context, collective and number) joined, then counted */
static int coll_finish(vw_run *r)
{
    hmap at;
    memset(&at, 0, sizeof at);
    for (size_t i = 0; i < r->ncp; i++) {
        cpend *p = &r->cp[i];
        uint64_t key = mix(p->context ^ mix(p->seq) ^ mix((uint64_t)p->region + 1));
        long j;
        for (;; key++) {
            j = hget(&at, key);
            if (j < 0 || (r->cp[j].context == p->context && r->cp[j].seq == p->seq &&
                          r->cp[j].region == p->region))
                break;
        }
        if (j >= 0) {
            coll_join(&r->cp[j].c, &p->c);
            p->region = -1;   /* joined */
        } else if (hput(&at, key, (long)i)) {
            hfree(&at);
            return -1;
        }
    }
    hfree(&at);
    for (size_t i = 0; i < r->ncp; i++)
        if (r->cp[i].region >= 0)
            coll_count(r, r->cp[i].region, &r->cp[i].c);
    r->ncp = 0;
    return 0;
}

static int finish(vw_run *r)
{
    double end = 0;
    for (size_t i = 0; i < r->nlanes; i++)
        if (r->lanes[i].last > end)
            end = r->lanes[i].last;
    if (coll_finish(r))
        return -1;
    /* regions, call paths and counters numbered in the order first seen */
    size_t *rpos = first_seen_order(r->rinf, sizeof *r->rinf, r->nregions, 0);
    if (r->nnodes)
        r->ninf[0].first = (okey){INT64_MIN, 0, 0, 0};
    size_t *npos = first_seen_order(r->ninf, sizeof *r->ninf, r->nnodes, 1);
    size_t *cpos = first_seen_order(r->cfirst, sizeof *r->cfirst, r->ncnt, 0);
    vw_region *regions = malloc((r->nregions + 1) * sizeof *regions);
    rinfo *rinf = malloc((r->nregions + 1) * sizeof *rinf);
    vw_node *nodes = malloc((r->nnodes + 1) * sizeof *nodes);
    ninfo *ninf = malloc((r->nnodes + 1) * sizeof *ninf);
    long *lastc = malloc((r->nnodes + 1) * sizeof *lastc);
    const char **cnames = malloc((r->ncnt + 1) * sizeof *cnames);
    unsigned char *gauge = calloc(r->ncnt + 1, 1);
    int bad = !rpos || !npos || !cpos || !regions || !rinf || !nodes || !ninf || !lastc ||
              !cnames || !gauge;
    for (size_t i = 0; !bad && i < r->nlanes; i++) {   /* every lane's share of every region */
        lane *l = &r->lanes[i];
        if (lane_rstat(l, r->nregions ? (long)r->nregions - 1 : 0) == NULL) {
            bad = 1;
            break;
        }
        vw_stat *s = malloc((l->nrstat ? l->nrstat : 1) * sizeof *s);
        if (s == NULL) {
            bad = 1;
            break;
        }
        memset(s, 0, l->nrstat * sizeof *s);
        for (size_t g = 0; g < r->nregions; g++)
            s[rpos[g]] = l->rstat[g];
        free(l->rstat);
        l->rstat = s;
    }
    if (bad) {
        free(rpos), free(npos), free(cpos), free(regions), free(rinf), free(nodes), free(ninf);
        free(lastc), free(cnames), free(gauge);
        return -1;
    }
    for (size_t g = 0; g < r->nregions; g++) {
        regions[rpos[g]] = r->regions[g];
        rinf[rpos[g]] = r->rinf[g];
    }
    memcpy(r->regions, regions, r->nregions * sizeof *regions);
    memcpy(r->rinf, rinf, r->nregions * sizeof *rinf);
    for (size_t i = 0; i < r->nnodes; i++) {
        vw_node n = r->nodes[i];
        n.region = n.region >= 0 ? (long)rpos[n.region] : -1;
        n.parent = n.parent >= 0 ? (long)npos[n.parent] : -1;
        n.first_child = n.next_sibling = -1;
        nodes[npos[i]] = n;
        ninf[npos[i]] = r->ninf[i];
    }
    for (size_t i = 0; i < r->nnodes; i++) {   /* children in the order first seen */
        lastc[i] = -1;
        nodes[i].incl = (double)ninf[i].incl / 1e9;
        nodes[i].excl = (double)ninf[i].excl / 1e9;
        if (i == 0)
            continue;
        long p = nodes[i].parent;
        if (lastc[p] < 0)
            nodes[p].first_child = (long)i;
        else
            nodes[lastc[p]].next_sibling = (long)i;
        lastc[p] = (long)i;
    }
    memcpy(r->nodes, nodes, r->nnodes * sizeof *nodes);
    memcpy(r->ninf, ninf, r->nnodes * sizeof *ninf);
    for (size_t c = 0; c < r->ncnt; c++) {
        cnames[cpos[c]] = r->cnames[c];
        gauge[cpos[c]] = c < r->ngauge && r->cgauge[c];
    }
    memcpy(r->cnames, cnames, r->ncnt * sizeof *cnames);
    free(r->cgauge);
    r->cgauge = gauge;
    r->ngauge = r->ncnt;
    for (size_t i = 0; i < r->ncacc; i++) {
        r->cacc[i].region = rpos[r->cacc[i].region];
        r->cacc[i].counter = cpos[r->cacc[i].counter];
    }
    for (size_t i = 0; i < r->ncnode; i++) {
        r->cnode[i].node = (long)npos[r->cnode[i].node];
        r->cnode[i].c = cpos[r->cnode[i].c];
    }
    free(rpos), free(npos), free(cpos), free(regions), free(rinf), free(nodes), free(ninf);
    free(lastc), free(cnames);
    if (sort_lanes(r))
        return -1;
    if (r->ncacc > 1)
        qsort(r->cacc, r->ncacc, sizeof *r->cacc, cmp_cacc);
    /* the lanes' bins at one width; busy = alive - overhead - idle, per bin */
    double width = 1e-6;
    for (size_t i = 0; i < r->nlanes; i++)
        if (r->lanes[i].width > width)
            width = r->lanes[i].width;
    r->width = width;
    for (size_t i = 0; i < r->nlanes; i++) {
        lane *l = &r->lanes[i];
        cover(l, 0, width);
        l->pub.last = l->last;
        for (size_t b = 0; b < NBINS; b++) {
            double *x = &l->bins[b * VW_NSTATES];
            double u = x[VW_BUSY] - x[VW_OVERHEAD] - x[VW_IDLE] - l->setup[b];
            x[VW_BUSY] = u > 0 ? u : 0;
            for (int s = 0; s < VW_NSTATES; s++) {
                l->pub.state[s] += x[s];
                r->util[b * VW_NSTATES + s] += x[s];
            }
        }
        l->pub.bins = l->bins;
        l->pub.rstat = l->rstat;
        for (size_t g = 0; g < r->nregions; g++) {   /* summed over lanes, in lane order */
            const vw_stat *s = &l->rstat[g];
            vw_stat *a = &r->regions[g].all;
            a->calls += s->calls;
            a->total += s->total;
            a->excl += s->excl;
            a->bytes += s->bytes;
            if (s->max > a->max)
                a->max = s->max;
        }
    }
    for (size_t g = 0; g < r->nregions; g++) {
        r->regions[g].spread_sum = (double)r->rinf[g].spread_sum / 1e9;
        r->regions[g].spread_max = (double)r->rinf[g].spread_max / 1e9;
    }
    r->f.latency_sum = (double)r->lat_sum / 1e9;
    r->f.latency_max = (double)r->lat_max / 1e9;
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
    /* the message sample, in the order the messages matched */
    if (r->nms > 1)
        qsort(r->ms, r->nms, sizeof *r->ms, cmp_ment);
    for (size_t i = 0; i < r->nms; i++) {
        const ment *m = &r->ms[i];
        size_t sl = lane_index(r, m->sp, m->ss), dl = lane_index(r, m->dp, m->ds);
        r->msgs[i] = (vw_msg){r->lanes[sl].pub.rank_index, r->lanes[dl].pub.rank_index, sl, dl,
                              ns_sec(r, m->ts), ns_sec(r, m->tr), m->bytes};
    }
    r->nmsgs = r->nms;
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

/* ---------------- reading ---------------- */
static vw_run *run_new(const vw_sink *sink)
{
    vw_run *r = calloc(1, sizeof *r);
    if (r == NULL)
        return NULL;
    r->sink = sink;
    r->width = 1e-6;
    r->tps = 1e9;
    r->util = calloc(NBINS * VW_NSTATES, sizeof *r->util);
    r->msgs = malloc(MSG_SAMPLE * sizeof *r->msgs);
    r->ms = malloc(MSG_SAMPLE * sizeof *r->ms);
    okey root = {INT64_MIN, 0, 0, 0};
    if (!r->util || !r->msgs || !r->ms || node_at(r, -1, -1, &root) != 0) {   /* the call tree's root */
        vw_run_free(r);
        return NULL;
    }
    return r;
}

/* one trace, or the per-rank traces of a run read as one stream: share k
 * of nshares of its streams into r. 0, or -1 (said on stderr). */
static int read_share(vw_run *r, const char *const *paths, size_t n, const char *dict_path,
                      unsigned k, unsigned nshares)
{
    pal_reader *rd = NULL;
    pal_status st = pal_reader_open_run(paths, n, dict_path, 0, &rd);
    if (st != PAL_OK) {
        fprintf(stderr, "pal-view: %s\n", pal_last_error());
        return -1;
    }
    pal_reader_set_diag(rd, quiet_diag, NULL);
    if (nshares > 1 && pal_reader_set_share(rd, k, nshares) != PAL_OK) {
        fprintf(stderr, "pal-view: %s: cannot read share %u of %u\n", paths[0], k, nshares);
        pal_reader_close(rd);
        return -1;
    }
    pal_trace_info info;
    memset(&info, 0, sizeof info);
    pal_reader_info(rd, &info);
    r->tps = info.ticks_per_second > 0 ? info.ticks_per_second : 1e9;
    const pal_dict *d = pal_reader_dict(rd);
    snprintf(r->first_trace, sizeof r->first_trace, "%s", paths[0]);
    snprintf(r->dict_name, sizeof r->dict_name, "%s", d ? pal_dict_name(d) : "");
    r->f.trace = r->first_trace;
    r->f.dict = r->dict_name;
    if (!r->have_base && info.start_time > 0) {
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
        fprintf(stderr, "pal-view: %s\n", st == PAL_ENOMEM ? "out of memory" : pal_reader_error(rd));
        rc = -1;
    }
    if (rc == 0 && share_end(r)) {
        fprintf(stderr, "pal-view: %s: out of memory\n", paths[0]);
        rc = -1;
    }
    if (rc == 0 && k == 0)
        rc = needs(pal_reader_dict(rd), paths[0]);
    pal_events_destroy(r->ev);
    r->ev = NULL;
    /* damage, or a partial trace: the views are drawn, the exit status says it */
    pal_reader_stats rs;
    pal_reader_get_stats(rd, &rs);
    r->partial = pal_stats_partial(&rs) || r->f.lost > 0;   /* lost: records say so too */
    r->f.damaged = rs.damaged;   /* the views say so (vw_damage_note) */
    r->f.bytes_skipped = rs.bytes_skipped;
    r->f.chunks_missing = rs.chunks_missing;
    r->f.truncated = (uint32_t)rs.truncated;
    r->f.not_closed = rs.not_closed;
    r->f.signaled = rs.signaled;
    r->f.ranks_missing = rs.ranks_missing;
    pal_reader_close(rd);
    return rc;
}

/* the time the run starts, as one reader of it says: its start time, else
 * its first record's (each share needs the same) */
static int run_base(vw_run *r, const char *const *paths, size_t n, const char *dict_path,
                    unsigned *files)
{
    pal_reader *rd = NULL;
    if (pal_reader_open_run(paths, n, dict_path, 0, &rd) != PAL_OK) {
        fprintf(stderr, "pal-view: %s\n", pal_last_error());
        return -1;
    }
    pal_reader_set_diag(rd, NULL, NULL);
    pal_trace_info info;
    memset(&info, 0, sizeof info);
    pal_reader_info(rd, &info);
    pal_reader_stats rs;
    pal_reader_get_stats(rd, &rs);
    *files = rs.files;
    const pal_record *rec;
    if (info.start_time > 0) {
        r->base_ticks = (double)info.start_time;
        r->have_base = 1;
    } else if (pal_reader_next(rd, &rec) == PAL_OK) {
        r->base_ticks = (double)pal_record_time(rec);
        r->have_base = 1;
    }
    pal_reader_close(rd);
    return 0;
}

typedef struct share_job {
    const char *const *paths;
    size_t n;
    const char *dict;
    unsigned k, nshares;
    vw_run *r;
    int rc;
} share_job;

static void *share_main(void *arg)
{
    share_job *j = arg;
    j->rc = read_share(j->r, j->paths, j->n, j->dict, j->k, j->nshares);
    return NULL;
}

int vw_run_traces_jobs(const char *const *paths, size_t n, const char *dict_path,
                       const vw_sink *sink, unsigned jobs, vw_run **out)
{
    *out = NULL;
    vw_run *r = run_new(sink);
    if (r == NULL)
        return -1;
    *out = r;
    if (jobs <= 1) {
        if (read_share(r, paths, n, dict_path, 0, 1) || finish(r))
            return -1;
        return r->partial;
    }
    /* shares of the run's files in threads, merged in share order; the
     * threads of one file are read together (the definitions that name
     * their regions may be in any of them) */
    unsigned files = 0;
    if (run_base(r, paths, n, dict_path, &files))
        return -1;
    if (files < jobs)
        jobs = files;
    if (jobs <= 1) {
        if (read_share(r, paths, n, dict_path, 0, 1) || finish(r))
            return -1;
        return r->partial;
    }
    r->share = 1;
    share_job *job = calloc(jobs, sizeof *job);
    pthread_t *th = calloc(jobs, sizeof *th);
    int rc = job && th ? 0 : -1;
    unsigned started = 0;
    for (unsigned k = 0; rc == 0 && k < jobs; k++) {
        job[k] = (share_job){paths, n, dict_path, k, jobs, k ? run_new(NULL) : r, -1};
        if (job[k].r == NULL)
            rc = -1;
        else {
            job[k].r->share = 1;
            job[k].r->base_ticks = r->base_ticks;
            job[k].r->have_base = r->have_base;
        }
    }
    for (unsigned k = 0; rc == 0 && k < jobs; k++, started++)
        if (pthread_create(&th[k], NULL, share_main, &job[k]) != 0) {
            fprintf(stderr, "pal-view: cannot start a thread for share %u of %u\n", k, jobs);
            rc = -1;
            break;
        }
    for (unsigned k = 0; k < started; k++) {
        pthread_join(th[k], NULL);
        if (job[k].rc)
            rc = -1;
    }
    for (unsigned k = 1; rc == 0 && k < jobs; k++)
        if (run_merge(r, job[k].r)) {
            fprintf(stderr, "pal-view: out of memory merging share %u of %u\n", k, jobs);
            rc = -1;
        }
    for (unsigned k = 1; job && k < jobs; k++)
        vw_run_free(job[k].r);
    free(job);
    free(th);
    if (rc || finish(r))
        return -1;
    return r->partial;
}

int vw_run_traces(const char *const *paths, size_t n, const char *dict_path,
                  const vw_sink *sink, vw_run **out)
{
    return vw_run_traces_jobs(paths, n, dict_path, sink, 1, out);
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
    pal_events_destroy(r->ev);
    free(r->cnames);
    free(r->cfirst);
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
    free(r->rinf);
    free(r->nodes);
    free(r->ninf);
    hfree(&r->lane_of);
    hfree(&r->region_by_name);
    hfree(&r->node_by_key);
    hfree(&r->comm_of);
    free(r->c_count);
    free(r->c_bytes);
    free(r->c_src);
    free(r->c_dst);
    free(r->msgs);
    free(r->ms);
    free(r->w);
    free(r->cp);
    free(r->ranks);
    free(r->mcount);
    free(r->mbytes);
    free(r->rwait);
    free(r->util);
    free(r);
}
