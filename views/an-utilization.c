/* an-utilization.c -- the analysis of process state: each lane's time as
 * busy, overhead (the tracing tool's own, records of role overhead) or idle
 * (inside idle regions: blocking communication), and the process's start
 * and end in none, over NBINS time bins. A lane's bins widen on their own
 * as its time grows (doubling), so a lane comes out the same whichever
 * share read it; at the end every lane is brought to the widest, and busy
 * = alive - overhead - idle - start and end, per bin. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "views/an.h"

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
        if (l->setup)
            halve(l->setup, 1);
        l->width *= 2;
    }
}

/* the lane's bins of start and end, made at its first (a lane without
 * any, most of a run's 4,096 ranks' threads, costs none: 8 KiB each) */
static int setup_bins(lane *l)
{
    if (!l->setup)
        l->setup = calloc(NBINS, sizeof *l->setup);
    return l->setup ? 0 : -1;
}

/* state VW_NSTATES: the process's start or end, kept apart from the states */
static int add_interval(lane *l, int state, double a, double b)
{
    if (a < 0)
        a = 0;
    if (!(b > a))
        return 0;
    if (state == VW_NSTATES && setup_bins(l) != 0)
        return -1;
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
    return 0;
}


/* a thread's record at t: the thread is alive from its first record */
static int record(vw_run *r, lane *l, double t)
{
    (void)r;
    if (!l->started) {
        l->started = 1;
        l->pub.first = t;
        l->last = t;
    }
    if (t > l->last) {
        add_interval(l, VW_BUSY, l->last, t);   /* alive; busy = alive - others later */
        l->last = t;
    }
    return 0;
}

static int event(vw_run *r, const pal_event *e, const vw_at *at)
{
    switch (e->kind) {
    case PAL_EV_ENTER: {
        lane *l = &r->lanes[at->lane];
        if (at->t < l->pub.first) {   /* a call that began before the lane's first record */
            add_interval(l, VW_BUSY, at->t, l->pub.first);
            l->pub.first = at->t;
        }
        return 0;
    }
    case PAL_EV_LEAVE:
        if (at->fr == NULL)
            return 0;
        /* overhead is the tool's own time only (records of role overhead):
         * communication that does not wait (MPI_Isend, MPI_Iprobe) is busy */
        if (at->fr->flags & PAL_EVF_SETUP)
            return add_interval(&r->lanes[at->lane], VW_NSTATES, at->fr->start, at->t);
        else if (at->fr->flags & PAL_EVF_IDLE)
            add_interval(&r->lanes[at->lane], VW_IDLE, at->fr->start, at->t);
        return 0;
    case PAL_EV_OVERHEAD: {
        long li = vw_lane_get(r, e->process, e->stream);
        if (li < 0)
            return -1;
        lane *l = &r->lanes[li];
        double t = vw_tsec(r, e->time), end = vw_tsec(r, e->time + e->duration);
        add_interval(l, VW_OVERHEAD, t, end);
        if (end > l->last) {
            add_interval(l, VW_BUSY, l->last, end);
            l->last = end;
        }
        return 0;
    }
    default:
        return 0;
    }
}

static int merge(vw_run *r, const vw_run *from, const vw_maps *m)
{
    for (size_t i = 0; i < from->nlanes; i++) {
        const lane *fl = &from->lanes[i];
        lane *l = &r->lanes[m->lane[i]];
        l->pub.first = fl->pub.first;
        l->width = fl->width;
        memcpy(l->bins, fl->bins, NBINS * VW_NSTATES * sizeof *l->bins);
        if (fl->setup) {
            if (setup_bins(l) != 0)
                return -1;
            memcpy(l->setup, fl->setup, NBINS * sizeof *l->setup);
        } else {
            free(l->setup);
            l->setup = NULL;
        }
        l->last = fl->last;
        l->started = fl->started;
    }
    return 0;
}

static int begin(vw_run *r)
{
    r->width = 1e-6;
    r->util = calloc(NBINS * VW_NSTATES, sizeof *r->util);
    return r->util ? 0 : -1;
}

/* the lanes' bins at one width; busy = alive - overhead - idle, per bin;
 * the time each rank waited */
static int finish(vw_run *r)
{
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
            double u = x[VW_BUSY] - x[VW_OVERHEAD] - x[VW_IDLE];
            if (l->setup)       /* (none: 0, which subtracts to the same) */
                u -= l->setup[b];
            x[VW_BUSY] = u > 0 ? u : 0;
            for (int s = 0; s < VW_NSTATES; s++) {
                l->pub.state[s] += x[s];
                r->util[b * VW_NSTATES + s] += x[s];
            }
        }
        l->pub.bins = l->bins;
    }
    r->rwait = calloc(r->f.nranks ? r->f.nranks : 1, sizeof *r->rwait);
    if (r->rwait == NULL)
        return -1;
    for (size_t i = 0; i < r->nlanes; i++)
        r->rwait[r->lanes[i].pub.rank_index] += r->lanes[i].pub.state[VW_IDLE];
    r->f.nbins = NBINS;
    r->f.bin_width = r->width;
    r->f.util = r->util;
    r->f.rank_wait = r->rwait;
    return 0;
}

static void release(vw_run *r)
{
    for (size_t i = 0; i < r->nlanes; i++) {
        free(r->lanes[i].bins);
        free(r->lanes[i].setup);
    }
    free(r->util);
    free(r->rwait);
}

/* per lane its bins (mostly 0: sent as runs) and times */
static int pack(const vw_run *r, vw_pack *b)
{
    for (size_t i = 0; i < r->nlanes; i++) {
        const lane *l = &r->lanes[i];
        vw_put_f64(b, l->pub.first);
        vw_put_f64(b, l->width);
        vw_put_f64(b, l->last);
        vw_put_u64(b, (uint64_t)l->started);
        vw_put_f64s(b, l->bins, NBINS * VW_NSTATES);
        vw_put_u64(b, l->setup != NULL);
        if (l->setup)
            vw_put_f64s(b, l->setup, NBINS);
    }
    return 0;
}

static int unpack(vw_run *r, vw_unpack *u)
{
    for (size_t i = 0; i < r->nlanes && !u->bad; i++) {
        lane *l = &r->lanes[i];
        l->pub.first = vw_get_f64(u);
        l->width = vw_get_f64(u);
        l->last = vw_get_f64(u);
        l->started = vw_get_u64(u) != 0;
        vw_get_f64s(u, l->bins, NBINS * VW_NSTATES);
        if (vw_get_u64(u) != 0) {
            if (setup_bins(l) != 0)
                return -1;
            vw_get_f64s(u, l->setup, NBINS);
        }
    }
    return u->bad ? -1 : 0;
}

const vw_analysis vw_an_utilization = {"utilization", begin, record, event, NULL, merge, NULL,
                                       finish, release, pack, unpack};
