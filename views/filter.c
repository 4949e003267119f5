/* filter.c -- the filter manager of pal-view: reads the trace through the
 * event layer (pal_events: what records mean, names, matched messages and
 * collective instances, doc/pal.md "Events"; no role is read here), keeps
 * what every analysis shares -- lanes, regions, call paths and counters by
 * name, numbered where first seen, and each thread's stack of open frames
 * -- and feeds the analyses (views/an-*.c, views/an.h) through their
 * operations tables. With -j, each thread reads a share of a run's files
 * into its own partial result, and the partial results are merged. Memory
 * depends on the number of lanes, regions, call paths and unmatched
 * messages, not on the trace length. */
#include <config.h>

#include <math.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>

#include "views/an.h"
#include "views/escape.h"

/* in this order: each sees an event after the ones before it */
static const vw_analysis *const analyses[] = {&vw_an_collectives, &vw_an_profile,
                                              &vw_an_utilization, &vw_an_counters,
                                              &vw_an_messages, &vw_an_waits};
#define NANALYSES (sizeof analyses / sizeof analyses[0])
#define ON(r, a) (((r)->on >> (a)) & 1u)
/* the analyses a new run runs (vw_run_need; bit a: the a-th); until set,
 * those that run by default */
static unsigned need_on;
static int need_set;

/* Whether the a-th analysis runs by default: all but the wait states, which
 * keep every call and run only when an output asks for them. */
static int by_default(size_t a)
{
    return analyses[a] != &vw_an_waits;
}

void vw_run_need(const vw_analysis *const *need, size_t n, int defaults)
{
    need_on = 0;
    for (size_t a = 0; a < NANALYSES; a++) {
        int on = analyses[a] == &vw_an_messages || (defaults && by_default(a));
        for (size_t i = 0; i < n && !on; i++)
            on = need[i] == analyses[a];
        need_on |= (unsigned)on << a;
    }
    need_set = 1;
}

int vw_run_paired(vw_run *r, const pal_msg_end *send, const pal_msg_end *recv)
{
    for (size_t a = 0; a < NANALYSES; a++)
        if (ON(r, a) && analyses[a]->paired && analyses[a]->paired(r, send, recv))
            return -1;
    return 0;
}

/* ---------------- a small uint64 -> long hash map ---------------- */
uint64_t vw_mix(uint64_t k)
{
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53ULL;
    k ^= k >> 33;
    return k;
}

long vw_hget(const hmap *h, uint64_t key)
{
    if (h->cap == 0)
        return -1;
    for (size_t i = vw_mix(key) & (h->cap - 1);; i = (i + 1) & (h->cap - 1)) {
        if (h->vals[i] < 0)
            return -1;
        if (h->keys[i] == key)
            return h->vals[i];
    }
}

int vw_hput(hmap *h, uint64_t key, long val)
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
                size_t j = vw_mix(h->keys[i]) & (ncap - 1);
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
    size_t i = vw_mix(key) & (h->cap - 1);
    while (h->vals[i] >= 0 && h->keys[i] != key)
        i = (i + 1) & (h->cap - 1);
    if (h->vals[i] < 0)
        h->n++;
    h->keys[i] = key;
    h->vals[i] = val;
    return 0;
}

void vw_hfree(hmap *h)
{
    free(h->keys);
    free(h->vals);
}

uint64_t vw_strhash(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
    return h;
}

/* arr (of *n elements of elem bytes) grown to hold index i, the new elements
 * zeroed; NULL (arr untouched) when memory runs out. */
void *vw_grow_index(void *arr, size_t *n, size_t i, size_t elem, size_t first)
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

void *vw_realloc_or_free(void *p, size_t n)
{
    void *q = realloc(p, n);
    if (q == NULL)
        free(p);
    return q;
}

int vw_okey_cmp(const okey *a, const okey *b)
{
    if (a->t != b->t)
        return a->t < b->t ? -1 : 1;
    if (a->process != b->process)
        return a->process < b->process ? -1 : 1;
    if (a->stream != b->stream)
        return a->stream < b->stream ? -1 : 1;
    return a->seq < b->seq ? -1 : a->seq > b->seq;
}

char *vw_own(vw_run *r, const char *s, size_t n)
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

/* ---------------- lanes, regions, nodes ---------------- */
long vw_lane_get(vw_run *r, uint32_t process, uint32_t stream)
{
    uint64_t key = (uint64_t)process << 32 | stream;
    long i = vw_hget(&r->lane_of, key);
    if (i >= 0)
        return i;
    if (GROW(r->lanes, r->nlanes, r->lanecap))
        return -1;
    lane *l = &r->lanes[r->nlanes];
    memset(l, 0, sizeof *l);
    l->pub.process = process;
    l->pub.stream = stream;
    l->pub.name = "";
    l->width = 1e-6;   /* its bins are made as it touches them (views/an-utilization.c) */
    if (vw_hput(&r->lane_of, key, (long)r->nlanes))
        return -1;
    return (long)r->nlanes++;
}

/* the region (name, kind), made when first seen at key k */
long vw_region_get(vw_run *r, const char *name, size_t len, int kind, const okey *k)
{
    uint64_t h = vw_strhash(name, len) ^ (uint64_t)kind;
    for (;; h++) {
        long i = vw_hget(&r->region_by_name, h);
        if (i < 0)
            break;
        if (r->regions[i].kind == kind && strlen(r->regions[i].name) == len &&
            memcmp(r->regions[i].name, name, len) == 0) {
            if (vw_okey_cmp(k, &r->rinf[i].first) < 0)
                r->rinf[i].first = *k;
            return i;
        }
    }
    if (GROW(r->regions, r->nregions, r->regcap) ||
        (r->nregions >= r->rinfcap &&
         (r->rinf = vw_realloc_or_free(r->rinf, (r->rinfcap = r->regcap) * sizeof *r->rinf)) == NULL))
        return -1;
    char *c = vw_own(r, name, len);
    if (c == NULL)
        return -1;
    vw_region *g = &r->regions[r->nregions];
    memset(g, 0, sizeof *g);
    g->name = c;
    g->kind = kind;
    r->rinf[r->nregions] = (rinfo){*k, 0, 0};
    if (vw_hput(&r->region_by_name, h, (long)r->nregions))
        return -1;
    return (long)r->nregions++;
}

long vw_region_named(vw_run *r, const char *name, size_t len, int kind)
{
    return vw_region_get(r, name, len, kind, &r->cur);
}

/* the node (parent, region); children are put in order at the end */
long vw_node_at(vw_run *r, long parent, long region, const okey *k)
{
    uint64_t key = (uint64_t)(parent + 1) << 32 | (uint64_t)(region + 1);
    long i = vw_hget(&r->node_by_key, key);
    if (i >= 0) {
        if (vw_okey_cmp(k, &r->ninf[i].first) < 0)
            r->ninf[i].first = *k;
        return i;
    }
    if (GROW(r->nodes, r->nnodes, r->nodecap) ||
        (r->nnodes >= r->ninfcap &&
         (r->ninf = vw_realloc_or_free(r->ninf, (r->ninfcap = r->nodecap) * sizeof *r->ninf)) == NULL))
        return -1;
    vw_node *n = &r->nodes[r->nnodes];
    memset(n, 0, sizeof *n);
    n->region = region;
    n->parent = parent;
    n->first_child = n->next_sibling = -1;
    r->ninf[r->nnodes] = (ninfo){*k, 0, 0};
    if (vw_hput(&r->node_by_key, key, (long)r->nnodes))
        return -1;
    return (long)r->nnodes++;
}

/* the index of a counter by name, made when first seen at key k */
long vw_counter_get(vw_run *r, const char *name, size_t len, const okey *k)
{
    uint64_t h = vw_strhash(name, len);
    for (;; h++) {
        long i = vw_hget(&r->cnt_by_name, h);
        if (i < 0)
            break;
        if (strlen(r->cnames[i]) == len && memcmp(r->cnames[i], name, len) == 0) {
            if (vw_okey_cmp(k, &r->cfirst[i]) < 0)
                r->cfirst[i] = *k;
            return i;
        }
    }
    const char *c = vw_own(r, name, len);
    if (c == NULL || GROW(r->cnames, r->ncnt, r->cntcap) ||
        (r->ncnt >= r->cfirstcap &&
         (r->cfirst = vw_realloc_or_free(r->cfirst, (r->cfirstcap = r->cntcap) * sizeof *r->cfirst)) ==
             NULL) ||
        vw_hput(&r->cnt_by_name, h, (long)r->ncnt))
        return -1;
    r->cfirst[r->ncnt] = *k;
    r->cnames[r->ncnt++] = c;
    return (long)r->ncnt - 1;
}

int64_t vw_comm_shown(int64_t comm, unsigned flags)
{
    return comm >= 0 && (flags & PAL_MATCH_GLOBAL_COMM)
               ? (int64_t)((uint64_t)(uint32_t)comm | COMM_GLOBAL)
               : comm;
}

double vw_ns_sec(const vw_run *r, int64_t ns)
{
    return ((double)ns - r->base_ticks * (1e9 / r->tps)) / 1e9;
}

int vw_region_kind(unsigned flags)
{
    return (flags & PAL_EVF_SETUP)           ? VW_REGION_SETUP
           : (flags & PAL_EVF_COMMUNICATION) ? VW_REGION_MPI
           : (flags & PAL_EVF_DEVICE)        ? VW_REGION_DEVICE
                                             : VW_REGION_USER;
}


double vw_tsec(const vw_run *r, int64_t ns)
{
    if (r->rec == NULL)
        return vw_ns_sec(r, ns);
    if (ns == r->rec_ns)
        return r->rec_sec;
    return r->rec_sec - (double)(r->rec_ns - ns) / 1e9;
}

/* ---------------- dispatch ---------------- */
static int each_event(vw_run *r, const pal_event *e, const vw_at *at)
{
    for (size_t a = 0; a < NANALYSES; a++)
        if (ON(r, a) && analyses[a]->event && analyses[a]->event(r, e, at))
            return -1;
    return 0;
}

/* ---------------- frames ---------------- */
#define FRAME_FLAGS (PAL_EVF_COMMUNICATION | PAL_EVF_IDLE | PAL_EVF_COLLECTIVE | PAL_EVF_SETUP)

static int push(vw_run *r, const pal_event *e, size_t li, long region, double start)
{
    lane *l = &r->lanes[li];
    if (GROW(l->stack, l->depth, l->cap))
        return -1;
    long parent = l->depth ? l->stack[l->depth - 1].node : 0;
    frame *fr = &l->stack[l->depth++];
    memset(fr, 0, sizeof *fr);
    fr->region = region;
    fr->node = vw_node_at(r, parent, region, &r->cur);
    fr->start = start;
    fr->start_ns = e->time;
    fr->flags = e->flags & FRAME_FLAGS;
    uint32_t *act = vw_grow_index(l->active, &l->nactive, (size_t)region, sizeof *act, 16);
    if (act == NULL || fr->node < 0)
        return -1;
    l->active = act;
    fr->outer = act[region]++ == 0;
    vw_at at = {(long)li, fr, start, e->time};
    if (each_event(r, e, &at))
        return -1;
    if (r->sink && r->sink->frame) {
        vw_frame_ev v = {l->pub.process, l->pub.stream, region, r->regions[region].name,
                         r->regions[region].kind, 0, (unsigned)(l->depth - 1), start, -1, 0,
                         -1, 0, 0, -1, -1};
        r->sink->frame(r->sink->ctx, &v);
    }
    return 0;
}

/* the frame on top of lane li closes at end; e is its leave (what the
 * enter and the leave said) */
static int pop(vw_run *r, const pal_event *e, size_t li, double end, int64_t end_ns)
{
    lane *l = &r->lanes[li];
    frame fr = l->stack[--l->depth];
    l->active[fr.region]--;
    vw_at at = {(long)li, &fr, end, end_ns};
    if (each_event(r, e, &at))
        return -1;
    const vw_region *g = &r->regions[fr.region];
    if (r->sink && r->sink->slice)
        r->sink->slice(r->sink->ctx, li, l->pub.process, l->pub.stream, g->name, g->kind,
                       fr.start, end);
    if (r->sink && r->sink->frame) {
        vw_frame_ev v = {l->pub.process, l->pub.stream, fr.region, g->name, g->kind,
                         (fr.flags & PAL_EVF_IDLE) != 0, (unsigned)l->depth, fr.start,
                         end < fr.start ? fr.start : end, e->bytes, e->peer, e->tag,
                         vw_comm_shown(e->comm, e->comm_flags), e->root, e->request};
        r->sink->frame(r->sink->ctx, &v);
    }
    if (l->depth) {
        l->stack[l->depth - 1].child += (end > fr.start ? end - fr.start : 0);
        l->stack[l->depth - 1].child_ns += end_ns > fr.start_ns ? end_ns - fr.start_ns : 0;
    }
    return 0;
}

/* ---------------- events ---------------- */
/* A record as read (the first event of each record): its time, where it
 * is, the exports' record sink, and the thread it keeps alive. */
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
    long li = vw_lane_get(r, e->process, e->stream);
    if (li < 0)
        return -1;
    lane *l = &r->lanes[li];
    r->cur.seq = l->nrec++;
    for (size_t a = 0; a < NANALYSES; a++)
        if (ON(r, a) && analyses[a]->record && analyses[a]->record(r, l, t))
            return -1;
    const char *s;
    size_t len;
    if (l->pub.name[0] == '\0' && l->name_gen != r->gen) {
        l->name_gen = r->gen;
        if (pal_names_thread(pal_events_names(r->ev), rec, &s, &len) == PAL_OK && len > 0) {
            const char *c = vw_own(r, s, len);
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
    r->rec = e->record;   /* NULL: what the end of the trace makes (vw_tsec) */
    long li;
    vw_at none = {-1, NULL, 0, 0};
    switch (e->kind) {
    case PAL_EV_DEFINITION:
        r->gen++;
        return 0;
    case PAL_EV_ENTER: {
        if ((li = vw_lane_get(r, e->process, e->stream)) < 0)
            return -1;
        long g = vw_region_named(r, e->name, e->name_len, vw_region_kind(e->flags));
        return g < 0 ? -1 : push(r, e, (size_t)li, g, vw_tsec(r, e->time));
    }
    case PAL_EV_LEAVE: {
        if (e->flags & PAL_EVF_ORPHAN) {   /* a leave without its enter: count, ignore */
            r->f.unmatched_leaves++;
            if (vw_region_named(r, e->name, e->name_len, vw_region_kind(e->flags)) < 0)
                return -1;
            return each_event(r, e, &none);
        }
        if ((li = vw_lane_get(r, e->process, e->stream)) < 0 || r->lanes[li].depth == 0)
            return -1;
        lane *l = &r->lanes[li];
        if (e->record == NULL)
            r->f.open_at_end++;   /* closed at the lane's last time */
        else if (e->flags & PAL_EVF_UNMATCHED)
            r->f.unmatched_leaves++;   /* left with an outer frame */
        return pop(r, e, (size_t)li, e->record ? vw_tsec(r, e->time) : l->last, e->time);
    }
    case PAL_EV_MARKER:
        r->f.markers++;
        if (r->sink && r->sink->marker && e->name)
            r->sink->marker(r->sink->ctx, e->process, e->stream, e->name, e->name_len,
                            vw_tsec(r, e->time));
        return 0;
    case PAL_EV_LOST:
        r->f.lost += e->count;
        return 0;
    default:
        return each_event(r, e, &none);
    }
}

/* ---------------- a share's end, and merging shares ---------------- */
/* Each share of a run (pal_reader_set_share) is read into its own vw_run;
 * what one share cannot finish alone -- messages whose ends are in two
 * shares, collective instances with members in several -- waits in it, and
 * merging two partial results finishes what they complete together. Sums
 * across lanes are made at the end in lane order, or in exact ns, so the
 * merged result is the one a single reader gives. */
static int share_end(vw_run *r)
{
    for (size_t a = 0; a < NANALYSES; a++)
        if (ON(r, a) && analyses[a]->end && analyses[a]->end(r))
            return -1;
    return 0;
}

/* from's partial result into r's: the shared keys, then each analysis */
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
        if ((rmap[i] = vw_region_get(r, g->name, strlen(g->name), g->kind, &from->rinf[i].first)) < 0)
            goto out;
    }
    for (size_t i = 0; i < from->ncnt; i++)
        if ((cmap[i] = vw_counter_get(r, from->cnames[i], strlen(from->cnames[i]),
                                      &from->cfirst[i])) < 0)
            goto out;
    nmap[0] = 0;   /* the root; a node's parent comes before it */
    for (size_t i = 1; i < from->nnodes; i++) {
        const vw_node *n = &from->nodes[i];
        if ((nmap[i] = vw_node_at(r, nmap[n->parent], rmap[n->region], &from->ninf[i].first)) < 0)
            goto out;
    }
    for (size_t i = 0; i < from->nlanes; i++) {
        const lane *fl = &from->lanes[i];
        size_t before = r->nlanes;
        long j = lmap[i] = vw_lane_get(r, fl->pub.process, fl->pub.stream);
        if (j < 0 || r->nlanes == before)   /* a thread in two shares: cannot be */
            goto out;
        lane *l = &r->lanes[j];
        l->pub.name = fl->pub.name[0] ? vw_own(r, fl->pub.name, strlen(fl->pub.name)) : "";
        if (l->pub.name == NULL)
            goto out;
        l->nrec = fl->nrec;
    }
    vw_maps m = {rmap, nmap, cmap, lmap};
    for (size_t a = 0; a < NANALYSES; a++)
        if (ON(r, a) && analyses[a]->merge && analyses[a]->merge(r, from, &m))
            goto out;
    r->f.records += from->f.records;
    r->f.markers += from->f.markers;
    r->f.lost += from->f.lost;
    r->f.unmatched_leaves += from->f.unmatched_leaves;
    r->f.open_at_end += from->f.open_at_end;
    /* damage: what the share found past what every share's reader saw at open */
    const pal_reader_stats *o = &from->at_open;
    r->f.damaged += from->f.damaged - o->damaged;
    r->f.bytes_skipped += from->f.bytes_skipped - o->bytes_skipped;
    r->f.chunks_missing += from->f.chunks_missing - o->chunks_missing;
    r->f.truncated += from->f.truncated - (uint32_t)o->truncated;
    r->f.not_closed += from->f.not_closed - o->not_closed;
    r->f.signaled += from->f.signaled - o->signaled;
    r->f.ranks_missing += from->f.ranks_missing - o->ranks_missing;
    r->partial |= from->partial;
    rc = 0;
out:
    free(rmap);
    free(nmap);
    free(cmap);
    free(lmap);
    return rc;
}

/* ---------------- the end: numbering, ranks, the facts ---------------- */
static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

size_t vw_rank_index(const vw_run *r, uint32_t p)
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
size_t vw_lane_index(const vw_run *r, uint32_t process, uint32_t stream)
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

/* lanes in (process, stream) order: *out[old] = new */
static int sort_lanes(vw_run *r, long **out)
{
    size_t n = r->nlanes;
    long *newpos = malloc((n ? n : 1) * sizeof *newpos);
    if (newpos == NULL)
        return -1;
    for (size_t i = 0; i < n; i++)
        r->lanes[i].pub.rank_index = i;   /* remember the old index */
    if (n > 1)
        qsort(r->lanes, n, sizeof *r->lanes, cmp_lane);
    for (size_t i = 0; i < n; i++)
        newpos[r->lanes[i].pub.rank_index] = (long)i;
    *out = newpos;
    return 0;
}

/* a permutation of n things by their first-seen keys: order[k] = old index */
static const okey *perm_keys;
static size_t perm_stride;
static int cmp_perm(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    int c = vw_okey_cmp((const okey *)((const char *)perm_keys + x * perm_stride),
                     (const okey *)((const char *)perm_keys + y * perm_stride));
    return c ? c : (x > y) - (x < y);
}

/* newpos[old] for n things sorted by the okey at keys + i * stride; thing 0
 * stays first when keep0 (the call tree's root). NULL when out of memory. */
static long *first_seen_order(const void *keys, size_t stride, size_t n, int keep0)
{
    size_t *order = malloc((n + 1) * sizeof *order);
    long *newpos = malloc((n + 1) * sizeof *newpos);
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
        newpos[order[i]] = (long)i;
    free(order);
    return newpos;
}

static int finish(vw_run *r)
{
    double end = 0;
    for (size_t i = 0; i < r->nlanes; i++)
        if (r->lanes[i].last > end)
            end = r->lanes[i].last;
    /* regions, call paths and counters numbered in the order first seen,
     * lanes by process and thread */
    if (r->nnodes)
        r->ninf[0].first = (okey){INT64_MIN, 0, 0, 0};
    long *rpos = first_seen_order(r->rinf, sizeof *r->rinf, r->nregions, 0);
    long *npos = first_seen_order(r->ninf, sizeof *r->ninf, r->nnodes, 1);
    long *cpos = first_seen_order(r->cfirst, sizeof *r->cfirst, r->ncnt, 0);
    long *lpos = NULL;
    vw_region *regions = malloc((r->nregions + 1) * sizeof *regions);
    rinfo *rinf = malloc((r->nregions + 1) * sizeof *rinf);
    vw_node *nodes = malloc((r->nnodes + 1) * sizeof *nodes);
    ninfo *ninf = malloc((r->nnodes + 1) * sizeof *ninf);
    long *lastc = malloc((r->nnodes + 1) * sizeof *lastc);
    const char **cnames = malloc((r->ncnt + 1) * sizeof *cnames);
    okey *cfirst = malloc((r->ncnt + 1) * sizeof *cfirst);
    int rc = -1;
    if (!rpos || !npos || !cpos || !regions || !rinf || !nodes || !ninf || !lastc || !cnames ||
        !cfirst || sort_lanes(r, &lpos))
        goto out;
    for (size_t g = 0; g < r->nregions; g++) {
        regions[rpos[g]] = r->regions[g];
        rinf[rpos[g]] = r->rinf[g];
    }
    if (r->nregions) {   /* (none: no arrays) */
        memcpy(r->regions, regions, r->nregions * sizeof *regions);
        memcpy(r->rinf, rinf, r->nregions * sizeof *rinf);
    }
    for (size_t i = 0; i < r->nnodes; i++) {
        vw_node n = r->nodes[i];
        n.region = n.region >= 0 ? rpos[n.region] : -1;
        n.parent = n.parent >= 0 ? npos[n.parent] : -1;
        n.first_child = n.next_sibling = -1;
        nodes[npos[i]] = n;
        ninf[npos[i]] = r->ninf[i];
    }
    for (size_t i = 1; i < r->nnodes; i++)   /* children in the order first seen */
        lastc[i] = -1;
    if (r->nnodes)
        lastc[0] = -1;
    for (size_t i = 1; i < r->nnodes; i++) {
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
        cfirst[cpos[c]] = r->cfirst[c];
    }
    if (r->ncnt) {
        memcpy(r->cnames, cnames, r->ncnt * sizeof *cnames);
        memcpy(r->cfirst, cfirst, r->ncnt * sizeof *cfirst);
    }
    vw_maps m = {rpos, npos, cpos, lpos};
    for (size_t a = 0; a < NANALYSES; a++)
        if (ON(r, a) && analyses[a]->renumber && analyses[a]->renumber(r, &m))
            goto out;
    /* ranks: processes of lanes and of message ends */
    size_t cap = r->nlanes + 2 * r->nc + 1, n = 0;
    r->ranks = malloc(cap * sizeof *r->ranks);
    if (r->ranks == NULL)
        goto out;
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
        r->lanes[i].pub.rank_index = vw_rank_index(r, r->lanes[i].pub.process);
    for (size_t a = 0; a < NANALYSES; a++)
        if (ON(r, a) && analyses[a]->finish && analyses[a]->finish(r))
            goto out;
    r->f.duration = end;
    r->f.nlanes = r->nlanes;
    r->f.regions = r->regions;
    r->f.nregions = r->nregions;
    r->f.nodes = r->nodes;
    r->f.nnodes = r->nnodes;
    /* lanes as a public array */
    vw_lane *pub = malloc((r->nlanes ? r->nlanes : 1) * sizeof *pub);
    if (pub == NULL)
        goto out;
    for (size_t i = 0; i < r->nlanes; i++)
        pub[i] = r->lanes[i].pub;
    r->f.lanes = pub;
    rc = 0;
out:
    free(rpos), free(npos), free(cpos), free(lpos), free(regions), free(rinf), free(nodes);
    free(ninf), free(lastc), free(cnames), free(cfirst);
    return rc;
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

/* the reader's messages: said at once, or (ctx: a share of several) kept
 * to be said once after the shares are read */
static void quiet_diag(void *ctx, const char *msg)
{
    vw_run *r = ctx;
    char *c = r == NULL || GROW(r->diag, r->ndiag, r->diagcap) ? NULL : strdup(msg);
    if (c == NULL)
        vw_reader_diag(NULL, msg);
    else
        r->diag[r->ndiag++] = c;
}

static void no_diag(void *ctx, const char *msg)
{
    (void)ctx;
    (void)msg;
}

/* the shares' messages, in share order, each once */
static void say_diag(vw_run *const *runs, unsigned n)
{
    for (unsigned k = 0; k < n; k++)
        for (size_t i = 0; runs[k] && i < runs[k]->ndiag; i++) {
            int seen = 0;
            for (unsigned j = 0; j <= k && !seen; j++)
                for (size_t m = 0; runs[j] && m < (j == k ? i : runs[j]->ndiag) && !seen; m++)
                    seen = strcmp(runs[j]->diag[m], runs[k]->diag[i]) == 0;
            if (!seen)
                vw_reader_diag(NULL, runs[k]->diag[i]);
        }
}

/* ---------------- reading ---------------- */
static vw_run *run_new(const vw_sink *sink)
{
    vw_run *r = calloc(1, sizeof *r);
    if (r == NULL)
        return NULL;
    r->sink = sink;
    r->tps = 1e9;
    okey root = {INT64_MIN, 0, 0, 0};
    int rc = vw_node_at(r, -1, -1, &root) != 0;   /* the call tree's root */
    if (!need_set)
        vw_run_need(NULL, 0, 1);
    r->on = need_on;
    for (size_t a = 0; rc == 0 && a < NANALYSES; a++)
        rc = ON(r, a) && analyses[a]->begin && analyses[a]->begin(r);
    if (rc) {
        vw_run_free(r);
        return NULL;
    }
    return r;
}

/* one trace, or the per-rank traces of a run read as one stream: share k
 * of nshares of its streams into r. 0, or -1 (said on stderr). */
static int read_share(vw_run *r, pal_reader *rd, const char *const *paths, size_t n,
                      const char *dict_path, unsigned k, unsigned nshares)
{
    pal_status st;
    if (rd == NULL && (st = pal_reader_open_run(paths, n, dict_path, 0, &rd)) != PAL_OK) {
        fprintf(stderr, "pal-view: %s\n", pal_last_error());
        return -1;
    }
    pal_reader_set_diag(rd, quiet_diag, nshares > 1 ? r : NULL);
    if (nshares > 1 && pal_reader_set_share(rd, k, nshares) != PAL_OK) {
        fprintf(stderr, "pal-view: %s: cannot read share %u of %u\n", paths[0], k, nshares);
        pal_reader_close(rd);
        return -1;
    }
    pal_reader_get_stats(rd, &r->at_open);
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

/* the run's files and threads, and the time the run starts as one reader of it says:
 * its start time, else its first record's (each share needs the same; not
 * read when !first: r->have_base is 0 then); *out: the reader, not read yet
 * (share 0's), or NULL */
static int run_base(vw_run *r, const char *const *paths, size_t n, const char *dict_path,
                    int first, unsigned *files, unsigned *streams, pal_reader **out)
{
    pal_reader *rd = NULL;
    *out = NULL;
    if (pal_reader_open_run(paths, n, dict_path, 0, &rd) != PAL_OK) {
        fprintf(stderr, "pal-view: %s\n", pal_last_error());
        return -1;
    }
    pal_trace_info info;
    memset(&info, 0, sizeof info);
    pal_reader_info(rd, &info);
    pal_reader_stats rs;
    pal_reader_get_stats(rd, &rs);
    *files = rs.files;
    *streams = rs.streams;
    const pal_record *rec;
    if (info.start_time > 0) {
        r->base_ticks = (double)info.start_time;
        r->have_base = 1;
        *out = rd;
        return 0;
    }
    pal_reader_set_diag(rd, no_diag, NULL);   /* the shares say it */
    if (first && pal_reader_next(rd, &rec) == PAL_OK) {
        r->base_ticks = (double)pal_record_time(rec);
        r->have_base = 1;
    }
    pal_reader_close(rd);
    return 0;
}

/* Shares started before the run's start time is known (several files:
 * it is the run's first record) open their readers meanwhile, then wait to
 * be told how many shares there are: go, with jobs (0: none, quit). */
typedef struct share_go {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int go;
    unsigned jobs;
} share_go;

typedef struct share_job {
    const char *const *paths;
    size_t n;
    const char *dict;
    unsigned k, nshares;
    vw_run *r;
    int rc;
    pal_reader *rd;             /* opened already, or NULL */
    share_go *early;            /* started early, or NULL */
} share_job;

static void *share_main(void *arg)
{
    share_job *j = arg;
    if (j->early) {
        share_go *g = j->early;
        /* a failed open is tried again, and said, if the share is read */
        if (pal_reader_open_run(j->paths, j->n, j->dict, 0, &j->rd) != PAL_OK)
            j->rd = NULL;
        pthread_mutex_lock(&g->mu);
        while (!g->go)
            pthread_cond_wait(&g->cv, &g->mu);
        j->nshares = g->jobs;
        pthread_mutex_unlock(&g->mu);
        if (j->k >= j->nshares) {
            pal_reader_close(j->rd);
            j->rd = NULL;
            j->rc = 0;
            return NULL;
        }
    }
    j->rc = read_share(j->r, j->rd, j->paths, j->n, j->dict, j->k, j->nshares);
    j->rd = NULL;   /* read_share closes it */
    return NULL;
}

/* The shares a run of files holding streams (threads) is read in by up
 * to want readers: by file when there are as many files, else by thread. */
static unsigned share_count(unsigned files, unsigned streams, unsigned want)
{
    unsigned n = want;
    if (files < want)
        n = streams > files ? (streams < want ? streams : want) : files;
    return n ? n : 1;
}

unsigned vw_readers_fit(unsigned want, unsigned files)
{
    struct rlimit rl;
    if (want <= 1 || files == 0 || getrlimit(RLIMIT_NOFILE, &rl) != 0 ||
        rl.rlim_cur == RLIM_INFINITY)
        return want;
    if ((rlim_t)want * files + 32 > rl.rlim_cur && rl.rlim_cur < rl.rlim_max) {
        rlim_t need = (rlim_t)want * files + 32;
        rl.rlim_cur = rl.rlim_max != RLIM_INFINITY && need > rl.rlim_max ? rl.rlim_max : need;
        setrlimit(RLIMIT_NOFILE, &rl);
        getrlimit(RLIMIT_NOFILE, &rl);
    }
    rlim_t fit = rl.rlim_cur > 32 ? (rl.rlim_cur - 32) / files : 0;
    return fit < want ? (fit ? (unsigned)fit : 1) : want;
}

/* Whether every path is a file (not a directory, whose files are many). */
static int all_files(const char *const *paths, size_t n)
{
    struct stat sb;
    for (size_t i = 0; i < n; i++)
        if (stat(paths[i], &sb) != 0 || !S_ISREG(sb.st_mode))
            return 0;
    return 1;
}

/* Tells the early shares how many shares there are (0: none) and waits
 * for those that quit. */
static void early_go(share_go *g, share_job *job, pthread_t *th, unsigned early, unsigned jobs)
{
    pthread_mutex_lock(&g->mu);
    g->go = 1;
    g->jobs = jobs;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
    for (unsigned k = jobs; k < early; k++) {
        pthread_join(th[k], NULL);
        if (job[k].r != NULL && k > 0)
            vw_run_free(job[k].r);
        job[k].r = NULL;
    }
}

int vw_run_traces_jobs(const char *const *paths, size_t n, const char *dict_path,
                       const vw_sink *sink, unsigned jobs, vw_run **out)
{
    *out = NULL;
    vw_run *r = run_new(sink);
    if (r == NULL)
        return -1;
    *out = r;
    r->f.shares = 1;
    if (jobs <= 1) {
        if (read_share(r, NULL, paths, n, dict_path, 0, 1) || finish(r))
            return -1;
        return r->partial;
    }
    /* shares of the run's files in threads, merged in share order: by file
     * when there are as many files as threads, else by thread (each share
     * reads the definitions of the files whose threads it reads). A run of
     * several files starts at its first record, which one reader finds
     * first (run_base): the shares open their readers meanwhile. */
    share_go g = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0 };
    unsigned early = 0, cap = jobs;
    if (n > 1 && all_files(paths, n)) {
        early = vw_readers_fit((jobs < n ? jobs : (unsigned)n) + 1, (unsigned)n) - 1;
        if (early < 2)
            early = 0;
    }
    share_job *job = calloc(cap, sizeof *job);
    pthread_t *th = calloc(cap, sizeof *th);
    if (!job || !th) {
        free(job);
        free(th);
        fprintf(stderr, "pal-view: out of memory\n");
        return -1;
    }
    int rc = 0;
    unsigned started = 0;   /* threads started: 0..started-1 */
    for (unsigned k = 0; k < early; k++) {
        job[k] = (share_job){paths, n, dict_path, k, 0, k ? run_new(NULL) : r, -1, NULL, &g};
        if (job[k].r == NULL || pthread_create(&th[k], NULL, share_main, &job[k]) != 0) {
            if (k > 0)
                vw_run_free(job[k].r);
            job[k].r = NULL;
            break;
        }
        started++;
    }
    early = started;
    unsigned files = 0, streams = 0;
    pal_reader *rd0 = NULL;   /* share 0's, when it could be opened without reading */
    if (run_base(r, paths, n, dict_path, 1, &files, &streams, &rd0)) {
        early_go(&g, job, th, early, 0);
        free(job);
        free(th);
        return -1;
    }
    jobs = share_count(files, streams, jobs);
    /* every share's reader opens every file of the run (its headers) and
     * keeps up to half the descriptor limit open: as many shares as the
     * limit holds */
    jobs = vw_readers_fit(jobs, files);
    if (jobs <= 1) {
        early_go(&g, job, th, early, 0);
        free(job);
        free(th);
        if (read_share(r, rd0, paths, n, dict_path, 0, 1) || finish(r))
            return -1;
        return r->partial;
    }
    if (jobs > cap)
        jobs = cap;
    r->share = 1;
    r->f.shares = jobs;
    for (unsigned k = early; k < jobs; k++) {
        job[k] = (share_job){paths, n, dict_path, k, jobs, k ? run_new(NULL) : r, -1,
                             k ? NULL : rd0, NULL};
        if (k == 0)
            rd0 = NULL;   /* share 0's now */
        if (job[k].r == NULL)
            rc = -1;
    }
    for (unsigned k = 0; k < jobs && k < early; k++)
        job[k].nshares = jobs;
    for (unsigned k = 0; k < jobs; k++)
        if (job[k].r) {
            job[k].r->share = 1;
            job[k].r->base_ticks = r->base_ticks;
            job[k].r->have_base = r->have_base;
        }
    pal_reader_close(rd0);   /* (early: share 0 opened its own) */
    early_go(&g, job, th, early, rc ? 0 : jobs);
    started = rc ? 0 : early < jobs ? early : jobs;
    for (unsigned k = started; rc == 0 && k < jobs; k++, started++)
        if (pthread_create(&th[k], NULL, share_main, &job[k]) != 0) {
            fprintf(stderr, "pal-view: cannot start a thread for share %u of %u\n", k, jobs);
            rc = -1;
            break;
        }
    for (unsigned k = started; k < jobs; k++)   /* not started: its reader */
        pal_reader_close(job[k].rd);
    vw_run **runs = calloc(jobs, sizeof *runs);
    for (unsigned k = 0; k < started; k++) {
        pthread_join(th[k], NULL);
        if (job[k].rc)
            rc = -1;
        if (runs)
            runs[k] = job[k].r;
    }
    if (runs)
        say_diag(runs, started);
    free(runs);
    for (unsigned k = 1; rc == 0 && k < jobs; k++)
        if (run_merge(r, job[k].r)) {
            fprintf(stderr, "pal-view: out of memory merging share %u of %u\n", k, jobs);
            rc = -1;
        }
    for (unsigned k = 1; k < jobs; k++)
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
    for (size_t a = 0; a < NANALYSES; a++)
        if (analyses[a]->release)
            analyses[a]->release(r);
    for (size_t i = 0; i < r->nlanes; i++) {
        free(r->lanes[i].stack);
        free(r->lanes[i].active);
    }
    pal_events_destroy(r->ev);
    for (size_t i = 0; i < r->ndiag; i++)
        free(r->diag[i]);
    free(r->diag);
    free(r->cnames);
    free(r->cfirst);
    vw_hfree(&r->cnt_by_name);
    free(r->lanes);
    free((void *)r->f.lanes);
    for (size_t i = 0; i < r->nnames; i++)
        free(r->names[i]);
    free(r->names);
    free(r->regions);
    free(r->rinf);
    free(r->nodes);
    free(r->ninf);
    vw_hfree(&r->lane_of);
    vw_hfree(&r->region_by_name);
    vw_hfree(&r->node_by_key);
    free(r->ranks);
    free(r);
}

/* ---------------- shares read by processes (pal-view --mpi) ----------------
 * A share's partial result crosses to another process as bytes
 * (views/pack.h): the manager's counts, damage and messages, its lanes,
 * regions, call paths and counters in their index order, then each
 * analysis's own (an.h, pack and unpack). Unpacking makes them again in
 * the same order, so that the indexes the analyses packed hold, and
 * run_merge takes the unpacked run as a share read here. */
#define PACK_MAGIC UINT64_C(0x31776976776c6170)   /* "palvwiw1", little-endian */

void vw_put_okey(vw_pack *b, const okey *k)
{
    vw_put_i64(b, k->t);
    vw_put_u64(b, k->process);
    vw_put_u64(b, k->stream);
    vw_put_u64(b, k->seq);
}

okey vw_get_okey(vw_unpack *u)
{
    okey k;
    k.t = vw_get_i64(u);
    k.process = (uint32_t)vw_get_index(u, (size_t)UINT32_MAX + 1);
    k.stream = (uint32_t)vw_get_index(u, (size_t)UINT32_MAX + 1);
    k.seq = vw_get_u64(u);
    return k;
}

const char *vw_run_unpackable(void)
{
    for (size_t a = 0; a < NANALYSES; a++)
        if (analyses[a]->pack == NULL || analyses[a]->unpack == NULL)
            return analyses[a]->name;
    return NULL;
}

int vw_run_pack(const vw_run *r, vw_pack *b)
{
    if (vw_run_unpackable())
        return -1;
    vw_put_u64(b, PACK_MAGIC);
    vw_put_u64(b, NANALYSES);
    vw_put_u64(b, r->on);
    vw_put_f64(b, r->base_ticks);
    vw_put_u64(b, (uint64_t)r->have_base);
    vw_put_f64(b, r->tps);
    vw_put_u64(b, (uint64_t)r->partial);
    vw_put_u64(b, (uint64_t)r->share);
    const vw_facts *f = &r->f;
    const uint64_t counts[] = {f->records, f->markers, f->lost, f->unmatched_leaves,
                               f->open_at_end, f->damaged, f->bytes_skipped, f->chunks_missing,
                               f->truncated, f->not_closed, f->signaled, f->ranks_missing};
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
        vw_put_u64(b, counts[i]);
    const pal_reader_stats *o = &r->at_open;
    const uint64_t open[] = {o->damaged, o->bytes_skipped, o->chunks_missing,
                             (uint64_t)o->truncated, o->not_closed, o->signaled,
                             o->ranks_missing};
    for (size_t i = 0; i < sizeof open / sizeof open[0]; i++)
        vw_put_u64(b, open[i]);
    vw_put_u64(b, r->ndiag);
    for (size_t i = 0; i < r->ndiag; i++)
        vw_put_str(b, r->diag[i]);
    vw_put_u64(b, r->nregions);
    for (size_t i = 0; i < r->nregions; i++) {
        vw_put_str(b, r->regions[i].name);
        vw_put_i64(b, r->regions[i].kind);
        vw_put_okey(b, &r->rinf[i].first);
    }
    vw_put_u64(b, r->ncnt);
    for (size_t i = 0; i < r->ncnt; i++) {
        vw_put_str(b, r->cnames[i]);
        vw_put_okey(b, &r->cfirst[i]);
    }
    vw_put_u64(b, r->nnodes);
    for (size_t i = 1; i < r->nnodes; i++) {   /* the root is every run's node 0 */
        vw_put_u64(b, (uint64_t)r->nodes[i].parent);
        vw_put_u64(b, (uint64_t)r->nodes[i].region);
        vw_put_okey(b, &r->ninf[i].first);
    }
    vw_put_u64(b, r->nlanes);
    for (size_t i = 0; i < r->nlanes; i++) {
        vw_put_u64(b, r->lanes[i].pub.process);
        vw_put_u64(b, r->lanes[i].pub.stream);
        vw_put_str(b, r->lanes[i].pub.name);
        vw_put_u64(b, r->lanes[i].nrec);
    }
    for (size_t a = 0; a < NANALYSES; a++) {
        vw_put_str(b, analyses[a]->name);
        if (ON(r, a) && analyses[a]->pack(r, b))
            return -1;
    }
    return b->oom ? -1 : 0;
}

int vw_run_unpack(const void *p, size_t n, vw_run **out)
{
    vw_unpack u = {p, n, 0, 0};
    vw_run *r = *out = NULL;
    size_t len;
    const char *s;
    if (vw_run_unpackable() || vw_get_u64(&u) != PACK_MAGIC || vw_get_u64(&u) != NANALYSES ||
        (r = run_new(NULL)) == NULL)
        return -1;
    if (vw_get_u64(&u) != r->on)   /* the parts of other analyses than this process runs */
        goto bad;
    r->base_ticks = vw_get_f64(&u);
    r->have_base = vw_get_u64(&u) != 0;
    r->tps = vw_get_f64(&u);
    r->partial = vw_get_u64(&u) != 0;
    r->share = vw_get_u64(&u) != 0;
    vw_facts *f = &r->f;
    f->records = vw_get_u64(&u);
    f->markers = vw_get_u64(&u);
    f->lost = vw_get_u64(&u);
    f->unmatched_leaves = vw_get_u64(&u);
    f->open_at_end = vw_get_u64(&u);
    f->damaged = vw_get_u64(&u);
    f->bytes_skipped = vw_get_u64(&u);
    f->chunks_missing = vw_get_u64(&u);
    f->truncated = (uint32_t)vw_get_u64(&u);
    f->not_closed = (uint32_t)vw_get_u64(&u);
    f->signaled = (uint32_t)vw_get_u64(&u);
    f->ranks_missing = (uint32_t)vw_get_u64(&u);
    pal_reader_stats *o = &r->at_open;
    o->damaged = vw_get_u64(&u);
    o->bytes_skipped = vw_get_u64(&u);
    o->chunks_missing = vw_get_u64(&u);
    o->truncated = (int)vw_get_u64(&u);
    o->not_closed = (uint32_t)vw_get_u64(&u);
    o->signaled = (uint32_t)vw_get_u64(&u);
    o->ranks_missing = (uint32_t)vw_get_u64(&u);
    size_t cnt = vw_get_count(&u, 8);
    for (size_t i = 0; i < cnt && !u.bad; i++) {
        s = vw_get_bytes(&u, &len);
        char *c = u.bad || GROW(r->diag, r->ndiag, r->diagcap) ? NULL : strndup(s, len);
        if (c == NULL)
            goto bad;
        r->diag[r->ndiag++] = c;
    }
    cnt = vw_get_count(&u, 6 * 8);
    for (size_t i = 0; i < cnt && !u.bad; i++) {
        s = vw_get_bytes(&u, &len);
        int kind = (int)vw_get_i64(&u);
        okey k = vw_get_okey(&u);
        if (u.bad || vw_region_get(r, s, len, kind, &k) != (long)i)
            goto bad;
    }
    cnt = vw_get_count(&u, 5 * 8);
    for (size_t i = 0; i < cnt && !u.bad; i++) {
        s = vw_get_bytes(&u, &len);
        okey k = vw_get_okey(&u);
        if (u.bad || vw_counter_get(r, s, len, &k) != (long)i)
            goto bad;
    }
    cnt = vw_get_count(&u, 6 * 8);
    if (cnt == 0)
        goto bad;
    for (size_t i = 1; i < cnt && !u.bad; i++) {
        long parent = (long)vw_get_index(&u, i);
        long region = (long)vw_get_index(&u, r->nregions);
        okey k = vw_get_okey(&u);
        if (u.bad || vw_node_at(r, parent, region, &k) != (long)i)
            goto bad;
    }
    cnt = vw_get_count(&u, 4 * 8);
    for (size_t i = 0; i < cnt && !u.bad; i++) {
        uint32_t process = (uint32_t)vw_get_index(&u, (size_t)UINT32_MAX + 1);
        uint32_t stream = (uint32_t)vw_get_index(&u, (size_t)UINT32_MAX + 1);
        s = vw_get_bytes(&u, &len);
        uint64_t nrec = vw_get_u64(&u);
        if (u.bad || vw_lane_get(r, process, stream) != (long)i)
            goto bad;
        lane *l = &r->lanes[i];
        l->nrec = nrec;
        if (len && (l->pub.name = vw_own(r, s, len)) == NULL)
            goto bad;
    }
    for (size_t a = 0; a < NANALYSES && !u.bad; a++) {
        s = vw_get_bytes(&u, &len);
        if (u.bad || len != strlen(analyses[a]->name) || memcmp(s, analyses[a]->name, len) ||
            (ON(r, a) && analyses[a]->unpack(r, &u)))
            goto bad;
    }
    if (u.bad || u.at != u.n)
        goto bad;
    *out = r;
    return 0;
bad:
    vw_run_free(r);
    return -1;
}

int vw_run_base(const char *const *paths, size_t n, const char *dict_path, int first,
                vw_base *b)
{
    vw_run *r = calloc(1, sizeof *r);
    pal_reader *rd = NULL;
    memset(b, 0, sizeof *b);
    if (r == NULL) {
        fprintf(stderr, "pal-view: out of memory\n");
        return -1;
    }
    int rc = run_base(r, paths, n, dict_path, first, &b->files, &b->streams, &rd);
    pal_reader_close(rd);
    b->ticks = r->base_ticks;
    b->have = r->have_base;
    free(r);
    return rc;
}

int vw_share_first(const char *const *paths, size_t n, const char *dict_path, unsigned k,
                   unsigned nshares, uint64_t *ticks)
{
    pal_reader *rd = NULL;
    const pal_record *rec;
    if (pal_reader_open_run(paths, n, dict_path, 0, &rd) != PAL_OK)
        return -1;   /* (the share's reading says why) */
    pal_reader_set_diag(rd, no_diag, NULL);
    int rc = 1;
    if (nshares <= 1 || pal_reader_set_share(rd, k, nshares) == PAL_OK) {
        if (pal_reader_next(rd, &rec) == PAL_OK) {
            *ticks = pal_record_time(rec);
            rc = 0;
        }
    } else {
        rc = -1;
    }
    pal_reader_close(rd);
    return rc;
}

void vw_base_first(vw_base *b, uint64_t ticks)
{
    if (!b->have) {
        b->ticks = (double)ticks;   /* as on_record takes a first record's */
        b->have = 1;
    }
}

unsigned vw_share_count(const vw_base *b, unsigned want)
{
    return share_count(b->files, b->streams, want);   /* as vw_run_traces_jobs splits */
}

vw_run *vw_share_new(const vw_base *b, unsigned nshares)
{
    vw_run *r = run_new(NULL);
    if (r) {
        r->share = nshares > 1;
        r->base_ticks = b->ticks;
        r->have_base = b->have;
    }
    return r;
}

int vw_share_read(vw_run *r, const char *const *paths, size_t n, const char *dict_path,
                  unsigned k, unsigned nshares)
{
    return read_share(r, NULL, paths, n, dict_path, k, nshares);
}

int vw_shares_read(vw_run *r, const vw_base *b, const char *const *paths, size_t n,
                   const char *dict_path, unsigned first, unsigned count, unsigned nshares)
{
    if (count <= 1)
        return count ? read_share(r, NULL, paths, n, dict_path, first, nshares) : 0;
    share_job *job = calloc(count, sizeof *job);
    pthread_t *th = calloc(count, sizeof *th);
    int rc = job && th ? 0 : -1;
    unsigned started = 0;
    for (unsigned k = 0; rc == 0 && k < count; k++) {
        job[k] = (share_job){paths, n, dict_path, first + k, nshares,
                             k ? vw_share_new(b, nshares) : r, -1, NULL, NULL};
        if (job[k].r == NULL)
            rc = -1;
    }
    for (unsigned k = 0; rc == 0 && k < count; k++, started++)
        if (pthread_create(&th[k], NULL, share_main, &job[k]) != 0) {
            fprintf(stderr, "pal-view: cannot start a thread for share %u of %u\n", first + k,
                    nshares);
            rc = -1;
        }
    for (unsigned k = 0; k < started; k++) {
        pthread_join(th[k], NULL);
        if (job[k].rc)
            rc = -1;
    }
    for (unsigned k = 1; rc == 0 && k < count; k++)
        if (vw_run_absorb(r, job[k].r)) {
            fprintf(stderr, "pal-view: out of memory merging share %u of %u\n", first + k,
                    nshares);
            rc = -1;
        }
    for (unsigned k = 1; job && k < count; k++)
        vw_run_free(job[k].r);
    free(job);
    free(th);
    return rc;
}

int vw_run_absorb(vw_run *r, const vw_run *from)
{
    if (run_merge(r, from))
        return -1;
    for (size_t i = 0; i < from->ndiag; i++) {
        char *c = GROW(r->diag, r->ndiag, r->diagcap) ? NULL : strdup(from->diag[i]);
        if (c == NULL)
            return -1;
        r->diag[r->ndiag++] = c;
    }
    return 0;
}

int vw_run_close(vw_run *r)
{
    say_diag(&r, 1);
    if (finish(r))
        return -1;
    return r->partial;
}
