/* an-counters.c -- the analysis of counters per region: each counter's
 * deltas over the calls of a region and of a call path (vw_cstat), per
 * lane and summed. ECL samples a thread's counters just after the enter
 * or leave that is the boundary, so a boundary's values are those of the
 * first samples that follow it on the lane: enters and leaves wait in a
 * queue (cev) until the next samples arrive, then replay on a stack of
 * their own (cfr) with the values now current. Boundaries with no sample
 * of their own (ECL_COUNTER_PERIOD) take the next samples' values. A
 * lane's stack starts with its first sample. A counter that decreases on a
 * thread is a level (a gauge): its deltas mean nothing and it is left out. */
#include <config.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "views/an.h"

static vw_cstat *cacc_get(vw_run *r, size_t li, long region, size_t c)
{
    uint64_t key = (uint64_t)li << 44 ^ (uint64_t)region << 16 ^ (uint64_t)c;
    long i = vw_hget(&r->cacc_of, key);
    if (i >= 0)
        return &r->cacc[i].s;
    if (GROW(r->cacc, r->ncacc, r->cacccap) || vw_hput(&r->cacc_of, key, (long)r->ncacc))
        return NULL;
    r->cacc[r->ncacc] = (vw_lane_cstat){li, (size_t)region, c, {0, 0, 0}};
    return &r->cacc[r->ncacc++].s;
}

static vw_cstat *cnode_get(vw_run *r, long node, size_t c)
{
    uint64_t key = (uint64_t)node << 16 ^ (uint64_t)c;
    long i = vw_hget(&r->cnode_of, key);
    if (i >= 0)
        return &r->cnode[i].s;
    if (GROW(r->cnode, r->ncnode, r->cnodecap) || vw_hput(&r->cnode_of, key, (long)r->ncnode))
        return NULL;
    r->cnode[r->ncnode] = (struct cnode){node, c, {0, 0, 0}};
    return &r->cnode[r->ncnode++].s;
}

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
    double *val = vw_grow_index(c->val, &n, cidx, sizeof *val, 8);
    if (val == NULL)
        return -1;
    c->val = val;
    n = c->nval;
    unsigned char *seen = vw_grow_index(c->seen, &n, cidx, 1, 8);
    if (seen == NULL)
        return -1;
    c->seen = seen;
    c->nval = n;
    if (c->seen[cidx] && v < c->val[cidx]) {   /* a level (gauge), not a count */
        unsigned char *g = vw_grow_index(r->cgauge, &r->ngauge, cidx, 1, 8);
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

static int event(vw_run *r, const pal_event *e, const vw_at *at)
{
    switch (e->kind) {
    case PAL_EV_ENTER:
        return cl_event(r, (size_t)at->lane, at->fr->region, at->fr->node, at->fr->outer);
    case PAL_EV_LEAVE:
        return at->fr ? cl_event(r, (size_t)at->lane, -1, -1, 0) : 0;
    case PAL_EV_COUNTER: {
        r->f.counters++;
        if (isnan(e->value))
            return 0;   /* a sample without a value */
        long li = vw_lane_get(r, e->process, e->stream);
        long c = li < 0 ? -1 : vw_counter_get(r, e->name, e->name_len, &r->cur);
        return c < 0 || cl_sample(r, (size_t)li, (size_t)c, e->value) ? -1 : 0;
    }
    default:
        return 0;
    }
}

/* the boundaries still waiting for samples */
static int share_end(vw_run *r)
{
    for (size_t i = 0; i < r->nlanes; i++)
        if (cl_flush(r, i))
            return -1;
    return 0;
}

static int merge(vw_run *r, const vw_run *from, const vw_maps *m)
{
    r->f.counters += from->f.counters;
    for (size_t i = 0; i < from->ncnt; i++)
        if (i < from->ngauge && from->cgauge[i]) {
            unsigned char *g = vw_grow_index(r->cgauge, &r->ngauge, (size_t)m->counter[i], 1, 8);
            if (g == NULL)
                return -1;
            r->cgauge = g;
            g[m->counter[i]] = 1;
        }
    for (size_t i = 0; i < from->ncacc; i++) {
        const vw_lane_cstat *a = &from->cacc[i];
        vw_cstat *d = cacc_get(r, (size_t)m->lane[a->lane], m->region[a->region],
                               (size_t)m->counter[a->counter]);
        if (d == NULL)
            return -1;
        d->calls += a->s.calls;
        d->incl += a->s.incl;
        d->excl += a->s.excl;
    }
    for (size_t i = 0; i < from->ncnode; i++) {
        vw_cstat *d = cnode_get(r, m->node[from->cnode[i].node], (size_t)m->counter[from->cnode[i].c]);
        if (d == NULL)
            return -1;
        d->calls += from->cnode[i].s.calls;
        d->incl += from->cnode[i].s.incl;
        d->excl += from->cnode[i].s.excl;
    }
    return 0;
}

static int renumber(vw_run *r, const vw_maps *m)
{
    for (size_t i = 0; i < r->ncacc; i++) {
        if (m->region)
            r->cacc[i].region = (size_t)m->region[r->cacc[i].region];
        if (m->counter)
            r->cacc[i].counter = (size_t)m->counter[r->cacc[i].counter];
        if (m->lane)
            r->cacc[i].lane = (size_t)m->lane[r->cacc[i].lane];
    }
    for (size_t i = 0; i < r->ncnode; i++) {
        if (m->node)
            r->cnode[i].node = m->node[r->cnode[i].node];
        if (m->counter)
            r->cnode[i].c = (size_t)m->counter[r->cnode[i].c];
    }
    if (m->counter) {
        unsigned char *g = calloc(r->ncnt + 1, 1);
        if (g == NULL)
            return -1;
        for (size_t c = 0; c < r->ncnt; c++)
            g[m->counter[c]] = c < r->ngauge && r->cgauge[c];
        free(r->cgauge);
        r->cgauge = g;
        r->ngauge = r->ncnt;
    }
    return 0;
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

/* counters per region and node, dense, for the counts only (a counter
 * that decreased on a thread is a level: its deltas mean nothing) */
static int finish(vw_run *r)
{
    if (r->ncacc > 1)
        qsort(r->cacc, r->ncacc, sizeof *r->cacc, cmp_cacc);
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
    return 0;
}

static void release(vw_run *r)
{
    for (size_t i = 0; i < r->nlanes; i++) {
        free(r->lanes[i].c.val);
        free(r->lanes[i].c.seen);
        free(r->lanes[i].c.q);
        free(r->lanes[i].c.stk);
        free(r->lanes[i].c.sv);
    }
    free(r->cgauge);
    vw_hfree(&r->cacc_of);
    free(r->cacc);
    vw_hfree(&r->cnode_of);
    free(r->cnode);
    free(r->region_cs);
    free(r->node_cs);
}

/* the samples counted, the levels, the sums per (lane, region, counter)
 * and per (call path, counter) */
static int pack(const vw_run *r, vw_pack *b)
{
    vw_put_u64(b, r->f.counters);
    vw_put_u64(b, r->ncnt);
    for (size_t c = 0; c < r->ncnt; c++)
        vw_put_u64(b, c < r->ngauge && r->cgauge[c]);
    vw_put_u64(b, r->ncacc);
    for (size_t i = 0; i < r->ncacc; i++) {
        const vw_lane_cstat *a = &r->cacc[i];
        vw_put_u64(b, a->lane);
        vw_put_u64(b, a->region);
        vw_put_u64(b, a->counter);
        vw_put_u64(b, a->s.calls);
        vw_put_f64(b, a->s.incl);
        vw_put_f64(b, a->s.excl);
    }
    vw_put_u64(b, r->ncnode);
    for (size_t i = 0; i < r->ncnode; i++) {
        vw_put_u64(b, (uint64_t)r->cnode[i].node);
        vw_put_u64(b, r->cnode[i].c);
        vw_put_u64(b, r->cnode[i].s.calls);
        vw_put_f64(b, r->cnode[i].s.incl);
        vw_put_f64(b, r->cnode[i].s.excl);
    }
    return 0;
}

static int unpack(vw_run *r, vw_unpack *u)
{
    r->f.counters = vw_get_u64(u);
    if (vw_get_u64(u) != r->ncnt)
        return -1;
    for (size_t c = 0; c < r->ncnt; c++)
        if (vw_get_u64(u)) {
            unsigned char *g = vw_grow_index(r->cgauge, &r->ngauge, c, 1, 8);
            if (g == NULL)
                return -1;
            r->cgauge = g;
            g[c] = 1;
        }
    size_t n = vw_get_count(u, 6 * 8);
    for (size_t i = 0; i < n && !u->bad; i++) {
        size_t li = vw_get_index(u, r->nlanes);
        long region = (long)vw_get_index(u, r->nregions);
        size_t c = vw_get_index(u, r->ncnt);
        vw_cstat *d = u->bad ? NULL : cacc_get(r, li, region, c);
        if (d == NULL)
            return -1;
        d->calls = vw_get_u64(u);
        d->incl = vw_get_f64(u);
        d->excl = vw_get_f64(u);
    }
    n = vw_get_count(u, 5 * 8);
    for (size_t i = 0; i < n && !u->bad; i++) {
        long node = (long)vw_get_index(u, r->nnodes);
        size_t c = vw_get_index(u, r->ncnt);
        vw_cstat *d = u->bad ? NULL : cnode_get(r, node, c);
        if (d == NULL)
            return -1;
        d->calls = vw_get_u64(u);
        d->incl = vw_get_f64(u);
        d->excl = vw_get_f64(u);
    }
    return u->bad ? -1 : 0;
}

const vw_analysis vw_an_counters = {"counters", NULL, NULL, event, share_end, merge, renumber,
                                    finish, release, pack, unpack, NULL};
