/* an-profile.c -- the analysis of the profile and the call tree: calls,
 * inclusive, exclusive and longest time and bytes of every region per lane
 * (summed over lanes at the end, in lane order) and of every call path
 * (summed in exact ns, so that any order of lanes gives the same sums).
 * The manager keeps the stack of open frames (views/filter.c); a frame
 * closes here with its leave. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "views/an.h"

static vw_stat *lane_rstat(lane *l, long region)
{
    vw_stat *s = vw_grow_index(l->rstat, &l->nrstat, (size_t)region, sizeof *s, 16);
    if (s == NULL)
        return NULL;
    l->rstat = s;
    return &l->rstat[region];
}

/* a frame closes at at->t: its lane's share and its call path's */
static int event(vw_run *r, const pal_event *e, const vw_at *at)
{
    if (e->kind != PAL_EV_LEAVE || at->fr == NULL)
        return 0;
    const frame *fr = at->fr;
    lane *l = &r->lanes[at->lane];
    double dur = at->t - fr->start;
    if (dur < 0)
        dur = 0;
    double excl = dur - fr->child;
    if (excl < 0)
        excl = 0;
    /* inclusive time counts the outermost instance of a region only: a
     * recursive function's inner calls are inside it already */
    double incl = fr->outer ? dur : 0;
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
        int64_t dn = at->t_ns - fr->start_ns;
        if (dn < 0)
            dn = 0;
        int64_t xn = dn - fr->child_ns;
        r->nodes[fr->node].calls++;
        r->ninf[fr->node].incl += dn;
        r->ninf[fr->node].excl += xn > 0 ? xn : 0;
    }
    return 0;
}

static int merge(vw_run *r, const vw_run *from, const vw_maps *m)
{
    for (size_t i = 1; i < from->nnodes; i++) {
        long j = m->node[i];
        r->nodes[j].calls += from->nodes[i].calls;
        r->ninf[j].incl += from->ninf[i].incl;
        r->ninf[j].excl += from->ninf[i].excl;
    }
    for (size_t i = 0; i < from->nlanes; i++) {
        const lane *fl = &from->lanes[i];
        lane *l = &r->lanes[m->lane[i]];
        for (size_t g = 0; g < fl->nrstat && g < from->nregions; g++) {
            vw_stat *s = lane_rstat(l, m->region[g]);
            if (s == NULL)
                return -1;
            *s = fl->rstat[g];
        }
    }
    return 0;
}

/* every lane's share of every region, in the regions' final order */
static int renumber(vw_run *r, const vw_maps *m)
{
    if (m->region == NULL)
        return 0;
    for (size_t i = 0; i < r->nlanes; i++) {
        lane *l = &r->lanes[i];
        if (lane_rstat(l, r->nregions ? (long)r->nregions - 1 : 0) == NULL)
            return -1;
        vw_stat *s = calloc(l->nrstat ? l->nrstat : 1, sizeof *s);
        if (s == NULL)
            return -1;
        for (size_t g = 0; g < r->nregions; g++)
            s[m->region[g]] = l->rstat[g];
        free(l->rstat);
        l->rstat = s;
    }
    return 0;
}

static int finish(vw_run *r)
{
    for (size_t i = 0; i < r->nlanes; i++) {
        lane *l = &r->lanes[i];
        if (lane_rstat(l, r->nregions ? (long)r->nregions - 1 : 0) == NULL)
            return -1;
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
    for (size_t i = 0; i < r->nnodes; i++) {
        r->nodes[i].incl = (double)r->ninf[i].incl / 1e9;
        r->nodes[i].excl = (double)r->ninf[i].excl / 1e9;
    }
    return 0;
}

static void release(vw_run *r)
{
    for (size_t i = 0; i < r->nlanes; i++)
        free(r->lanes[i].rstat);
}

/* per call path its sums; per lane its share of each region */
static int pack(const vw_run *r, vw_pack *b)
{
    for (size_t i = 1; i < r->nnodes; i++) {
        vw_put_u64(b, r->nodes[i].calls);
        vw_put_i64(b, r->ninf[i].incl);
        vw_put_i64(b, r->ninf[i].excl);
    }
    for (size_t i = 0; i < r->nlanes; i++) {
        const lane *l = &r->lanes[i];
        size_t n = l->nrstat < r->nregions ? l->nrstat : r->nregions;
        vw_put_u64(b, n);
        for (size_t g = 0; g < n; g++) {
            const vw_stat *s = &l->rstat[g];
            vw_put_u64(b, s->calls);
            vw_put_f64(b, s->total);
            vw_put_f64(b, s->excl);
            vw_put_f64(b, s->max);
            vw_put_f64(b, s->bytes);
        }
    }
    return 0;
}

static int unpack(vw_run *r, vw_unpack *u)
{
    for (size_t i = 1; i < r->nnodes; i++) {
        r->nodes[i].calls = vw_get_u64(u);
        r->ninf[i].incl = vw_get_i64(u);
        r->ninf[i].excl = vw_get_i64(u);
    }
    for (size_t i = 0; i < r->nlanes && !u->bad; i++) {
        size_t n = vw_get_count(u, 5 * 8);
        if (n > r->nregions)
            return -1;
        for (size_t g = 0; g < n && !u->bad; g++) {
            vw_stat *s = lane_rstat(&r->lanes[i], (long)g);
            if (s == NULL)
                return -1;
            s->calls = vw_get_u64(u);
            s->total = vw_get_f64(u);
            s->excl = vw_get_f64(u);
            s->max = vw_get_f64(u);
            s->bytes = vw_get_f64(u);
        }
    }
    return u->bad ? -1 : 0;
}

const vw_analysis vw_an_profile = {"profile", NULL, NULL, event, NULL, merge, renumber, finish,
                                   release, pack, unpack, NULL};
