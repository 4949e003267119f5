/* an-collectives.c -- the analysis of collective instances: how many of each
 * collective, and how far apart their members entered (the spread: last
 * entry - first entry). The event layer assembles the instances; one not
 * complete where it was read (a share of the run, or of unknown size)
 * waits for the end, where the parts of one instance from every share are
 * joined by its communicator's context, collective and number. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "views/an.h"

/* a complete instance: counted, and given to the sink */
static void count(vw_run *r, long region, const pal_coll_instance *c)
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
                        vw_comm_shown(c->comm, c->comm_flags), c->root, c->bytes,
                        vw_ns_sec(r, c->min_start), vw_ns_sec(r, c->max_start),
                        vw_ns_sec(r, c->max_end)};
        r->sink->collective(r->sink->ctx, &v);
    }
}

static int event(vw_run *r, const pal_event *e, const vw_at *at)
{
    (void)at;
    if (e->kind != PAL_EV_COLL_INSTANCE)
        return 0;
    long region = vw_region_named(r, e->name, e->name_len, vw_region_kind(e->flags));
    if (region < 0)
        return -1;
    if (e->coll.size && e->coll.members >= e->coll.size) {
        count(r, region, &e->coll);
        return 0;
    }
    if (GROW(r->cp, r->ncp, r->cpcap))
        return -1;
    r->cp[r->ncp++] = (cpend){e->coll.context, e->coll.seq, region, e->coll};
    return 0;
}

/* the parts of one instance: b into a */
static void join(pal_coll_instance *a, const pal_coll_instance *b)
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

static int merge(vw_run *r, const vw_run *from, const vw_maps *m)
{
    for (size_t i = 0; i < from->nregions; i++) {
        long j = m->region[i];
        r->regions[j].instances += from->regions[i].instances;
        r->rinf[j].spread_sum += from->rinf[i].spread_sum;
        if (from->rinf[i].spread_max > r->rinf[j].spread_max)
            r->rinf[j].spread_max = from->rinf[i].spread_max;
    }
    for (size_t i = 0; i < from->ncp; i++) {
        if (GROW(r->cp, r->ncp, r->cpcap))
            return -1;
        r->cp[r->ncp] = from->cp[i];
        r->cp[r->ncp++].region = m->region[from->cp[i].region];
    }
    return 0;
}

static int renumber(vw_run *r, const vw_maps *m)
{
    for (size_t i = 0; m->region && i < r->ncp; i++)
        r->cp[i].region = m->region[r->cp[i].region];
    return 0;
}

/* the instances still in parts: the parts of one instance joined (in the
 * order their first parts came), then counted */
static int finish(vw_run *r)
{
    hmap at;
    memset(&at, 0, sizeof at);
    for (size_t i = 0; i < r->ncp; i++) {
        cpend *p = &r->cp[i];
        uint64_t key = vw_mix(p->context ^ vw_mix(p->seq) ^ vw_mix((uint64_t)p->region + 1));
        long j;
        for (;; key++) {
            j = vw_hget(&at, key);
            if (j < 0 || (r->cp[j].context == p->context && r->cp[j].seq == p->seq &&
                          r->cp[j].region == p->region))
                break;
        }
        if (j >= 0) {
            join(&r->cp[j].c, &p->c);
            p->region = -1;   /* joined */
        } else if (vw_hput(&at, key, (long)i)) {
            vw_hfree(&at);
            return -1;
        }
    }
    vw_hfree(&at);
    for (size_t i = 0; i < r->ncp; i++)
        if (r->cp[i].region >= 0)
            count(r, r->cp[i].region, &r->cp[i].c);
    r->ncp = 0;
    for (size_t g = 0; g < r->nregions; g++) {
        r->regions[g].spread_sum = (double)r->rinf[g].spread_sum / 1e9;
        r->regions[g].spread_max = (double)r->rinf[g].spread_max / 1e9;
    }
    return 0;
}

static void release(vw_run *r)
{
    free(r->cp);
}

/* per region its counts; the instances in parts */
static int pack(const vw_run *r, vw_pack *b)
{
    for (size_t g = 0; g < r->nregions; g++) {
        vw_put_u64(b, r->regions[g].instances);
        vw_put_i64(b, r->rinf[g].spread_sum);
        vw_put_i64(b, r->rinf[g].spread_max);
    }
    vw_put_u64(b, r->ncp);
    for (size_t i = 0; i < r->ncp; i++) {
        const cpend *p = &r->cp[i];
        const pal_coll_instance *c = &p->c;
        vw_put_u64(b, p->context);
        vw_put_u64(b, p->seq);
        vw_put_u64(b, (uint64_t)p->region);
        const uint64_t v[] = {c->members, c->size, c->lo, c->hi, c->late, (uint64_t)c->comm,
                              (uint64_t)c->root, c->bytes, (uint64_t)c->op,
                              (uint64_t)c->min_start, (uint64_t)c->max_start,
                              (uint64_t)c->max_end, c->comm_flags, c->context, c->seq};
        for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
            vw_put_u64(b, v[k]);
    }
    return 0;
}

static int unpack(vw_run *r, vw_unpack *u)
{
    for (size_t g = 0; g < r->nregions; g++) {
        r->regions[g].instances = vw_get_u64(u);
        r->rinf[g].spread_sum = vw_get_i64(u);
        r->rinf[g].spread_max = vw_get_i64(u);
    }
    size_t n = vw_get_count(u, 18 * 8);
    for (size_t i = 0; i < n && !u->bad; i++) {
        if (GROW(r->cp, r->ncp, r->cpcap))
            return -1;
        cpend *p = &r->cp[r->ncp++];
        pal_coll_instance *c = &p->c;
        memset(p, 0, sizeof *p);
        p->context = vw_get_u64(u);
        p->seq = vw_get_u64(u);
        p->region = (long)vw_get_index(u, r->nregions);
        c->members = (uint32_t)vw_get_u64(u);
        c->size = (uint32_t)vw_get_u64(u);
        c->lo = (uint32_t)vw_get_u64(u);
        c->hi = (uint32_t)vw_get_u64(u);
        c->late = (uint32_t)vw_get_u64(u);
        c->comm = vw_get_i64(u);
        c->root = vw_get_i64(u);
        c->bytes = vw_get_u64(u);
        c->op = (pal_coll_op)vw_get_u64(u);
        c->min_start = vw_get_i64(u);
        c->max_start = vw_get_i64(u);
        c->max_end = vw_get_i64(u);
        c->comm_flags = (unsigned)vw_get_u64(u);
        c->context = vw_get_u64(u);
        c->seq = vw_get_u64(u);
    }
    return u->bad ? -1 : 0;
}

const vw_analysis vw_an_collectives = {"collectives", NULL, NULL, event, NULL, merge,
                                       renumber, finish, release, pack, unpack, NULL};
