/* an-utilization.c -- the analysis of process state: each lane's time as
 * busy, overhead (the tracing tool's own, records of role overhead) or idle
 * (inside idle regions: blocking communication), and the process's start
 * and end in none, over NBINS time bins. A lane's bins widen on their own
 * as its time grows (doubling), so a lane comes out the same whichever
 * share read it; at the end every lane is brought to the widest, and busy
 * = alive - overhead - idle - start and end, per bin. Under pal-view --mpi
 * with no output that draws bins, each process does that end for its own
 * lanes at the run's width and drops their bins (vw_lanes_settle). */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "views/an.h"

/* A lane holds only the span of bins it touched (lane.lo, lane.nb, an.h):
 * every other bin is 0, as a bin never added to is, so the sums below
 * meet the same numbers in the same order as over all NBINS bins and give
 * the same bits (x + 0 is x for every x these sums hold). */

static int want_full = 1;
void vw_lane_bins_want(int on) { want_full = on != 0; }

/* room for bcap >= n bins in bins (and setup) */
static int room(lane *l, size_t n)
{
    if (n <= l->bcap)
        return 0;
    size_t cap = l->bcap ? (size_t)l->bcap * 2 : 4;
    while (cap < n)
        cap *= 2;
    if (cap > NBINS)
        cap = NBINS;
    double *b = realloc(l->bins, cap * VW_NSTATES * sizeof *b);
    if (b == NULL)
        return -1;
    l->bins = b;
    if (l->setup) {
        double *s = realloc(l->setup, cap * sizeof *s);
        if (s == NULL)
            return -1;
        l->setup = s;
    }
    l->bcap = (uint32_t)cap;
    return 0;
}

/* the span widened to hold bin i (< NBINS), the new bins 0 */
static int touch(lane *l, size_t i)
{
    if (l->nb && i >= l->lo && i < (size_t)l->lo + l->nb)
        return 0;
    size_t lo = l->nb && l->lo < i ? l->lo : i;
    size_t hi = l->nb && (size_t)l->lo + l->nb > i + 1 ? (size_t)l->lo + l->nb : i + 1;
    if (room(l, hi - lo))
        return -1;
    size_t front = l->nb ? l->lo - lo : 0, old = l->nb;
    if (front) {   /* before the first bin held: those held move up */
        memmove(l->bins + front * VW_NSTATES, l->bins, old * VW_NSTATES * sizeof *l->bins);
        if (l->setup)
            memmove(l->setup + front, l->setup, old * sizeof *l->setup);
    }
    memset(l->bins, 0, front * VW_NSTATES * sizeof *l->bins);
    memset(l->bins + (front + old) * VW_NSTATES, 0,
           (hi - lo - front - old) * VW_NSTATES * sizeof *l->bins);
    if (l->setup) {
        memset(l->setup, 0, front * sizeof *l->setup);
        memset(l->setup + front + old, 0, (hi - lo - front - old) * sizeof *l->setup);
    }
    l->lo = (uint32_t)lo;
    l->nb = (uint32_t)(hi - lo);
    return 0;
}

/* value s (of w per bin) of bin i of the array a that holds the span */
static double at(const lane *l, const double *a, int w, size_t i, int s)
{
    return i >= l->lo && i < (size_t)l->lo + l->nb ? a[(i - l->lo) * (size_t)w + (size_t)s] : 0;
}

/* a (w values per bin, the lane's span) with neighbours merged: bin j of
 * the new width is bins 2j and 2j + 1; written in place from the front
 * (bin j lands at or before where 2j was read) */
static void halve(const lane *l, double *a, int w, size_t nlo, size_t nhi)
{
    for (size_t j = nlo; j < nhi; j++)
        for (int s = 0; s < w; s++) {
            double v = at(l, a, w, 2 * j, s) + at(l, a, w, 2 * j + 1, s);
            a[(j - nlo) * (size_t)w + (size_t)s] = v;
        }
}

/* the lane's bins widened until they hold t (or width w) */
static void cover(lane *l, double t, double w)
{
    while (t >= l->width * NBINS || l->width < w) {
        if (l->nb) {
            size_t nlo = l->lo / 2, nhi = ((size_t)l->lo + l->nb - 1) / 2 + 1;
            halve(l, l->bins, VW_NSTATES, nlo, nhi);
            if (l->setup)
                halve(l, l->setup, 1, nlo, nhi);
            l->lo = (uint32_t)nlo;
            l->nb = (uint32_t)(nhi - nlo);
        }
        l->width *= 2;
    }
}

/* the lane's bins of start and end, made at its first (a lane without
 * any, most of a run's 4,096 ranks' threads, costs none) */
static int setup_bins(lane *l)
{
    if (!l->setup)
        l->setup = calloc(l->bcap ? l->bcap : 1, sizeof *l->setup);
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
        if (touch(l, i))
            return -1;
        double end = (double)(i + 1) * l->width;
        double piece = (b < end ? b : end) - a;
        if (state == VW_NSTATES)
            l->setup[i - l->lo] += piece;
        else
            l->bins[(i - l->lo) * VW_NSTATES + state] += piece;
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
        if (add_interval(l, VW_BUSY, l->last, t))   /* alive; busy = alive - others later */
            return -1;
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
            if (add_interval(l, VW_BUSY, at->t, l->pub.first))
                return -1;
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
            return add_interval(&r->lanes[at->lane], VW_IDLE, at->fr->start, at->t);
        return 0;
    case PAL_EV_OVERHEAD: {
        long li = vw_lane_get(r, e->process, e->stream);
        if (li < 0)
            return -1;
        lane *l = &r->lanes[li];
        double t = vw_tsec(r, e->time), end = vw_tsec(r, e->time + e->duration);
        if (add_interval(l, VW_OVERHEAD, t, end))
            return -1;
        if (end > l->last) {
            if (add_interval(l, VW_BUSY, l->last, end))
                return -1;
            l->last = end;
        }
        return 0;
    }
    default:
        return 0;
    }
}

/* the span of bins of fl copied into l (a lane new to this run) */
static int copy_bins(lane *l, const lane *fl)
{
    free(l->bins);
    free(l->setup);
    l->bins = l->setup = NULL;
    l->lo = fl->lo;
    l->nb = l->bcap = 0;
    if ((fl->nb && (l->bins = malloc((size_t)fl->nb * VW_NSTATES * sizeof *l->bins)) == NULL) ||
        (fl->setup && (l->setup = malloc((fl->nb ? fl->nb : 1) * sizeof *l->setup)) == NULL))
        return -1;
    l->nb = l->bcap = fl->nb;
    if (fl->nb)
        memcpy(l->bins, fl->bins, (size_t)fl->nb * VW_NSTATES * sizeof *l->bins);
    if (fl->setup && fl->nb)
        memcpy(l->setup, fl->setup, fl->nb * sizeof *l->setup);
    return 0;
}

/* the lane's bins at width w, busy made alive - overhead - idle per bin,
 * and summed into its states, in bin order (the bins outside the span add
 * 0); its span's bins left for util */
static void states(lane *l, double w)
{
    cover(l, 0, w);
    for (size_t k = 0; k < l->nb; k++) {
        double *x = &l->bins[k * VW_NSTATES];
        double u = x[VW_BUSY] - x[VW_OVERHEAD] - x[VW_IDLE];
        if (l->setup)       /* (none: 0, which subtracts to the same) */
            u -= l->setup[k];
        x[VW_BUSY] = u > 0 ? u : 0;
        for (int s = 0; s < VW_NSTATES; s++)
            l->pub.state[s] += x[s];
    }
}

double vw_lanes_width(const vw_run *r)
{
    double width = 1e-6;
    for (size_t i = 0; i < r->nlanes; i++)
        if (r->lanes[i].width > width)
            width = r->lanes[i].width;
    return width;
}

void vw_lanes_settle(vw_run *r, double width)
{
    if (want_full)
        return;
    for (size_t i = 0; i < r->nlanes; i++) {
        lane *l = &r->lanes[i];
        if (l->settled)
            continue;
        states(l, width);
        free(l->bins);
        free(l->setup);
        l->bins = l->setup = NULL;
        l->lo = l->nb = l->bcap = 0;
        l->settled = 1;
    }
}

static int merge(vw_run *r, const vw_run *from, const vw_maps *m)
{
    for (size_t i = 0; i < from->nlanes; i++) {
        const lane *fl = &from->lanes[i];
        lane *l = &r->lanes[m->lane[i]];
        l->pub.first = fl->pub.first;
        l->width = fl->width;
        if (copy_bins(l, fl))
            return -1;
        l->settled = fl->settled;
        memcpy(l->pub.state, fl->pub.state, sizeof l->pub.state);
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
 * the time each rank waited; each lane's NBINS bins in the facts if wanted */
static int finish(vw_run *r)
{
    double width = r->width = vw_lanes_width(r);
    for (size_t i = 0; i < r->nlanes; i++) {
        lane *l = &r->lanes[i];
        l->pub.last = l->last;
        if (!l->settled)
            states(l, width);
        for (size_t k = 0; k < l->nb; k++)   /* (the bins outside the span add 0) */
            for (int s = 0; s < VW_NSTATES; s++)
                r->util[(l->lo + k) * VW_NSTATES + s] += l->bins[k * VW_NSTATES + s];
        l->pub.bins = NULL;
        if (want_full) {
            if ((l->full = calloc(NBINS * VW_NSTATES, sizeof *l->full)) == NULL)
                return -1;
            if (l->nb)
                memcpy(l->full + (size_t)l->lo * VW_NSTATES, l->bins,
                       (size_t)l->nb * VW_NSTATES * sizeof *l->bins);
            l->pub.bins = l->full;
            free(l->bins);   /* (the span, now in full: not held twice) */
            free(l->setup);
            l->bins = l->setup = NULL;
            l->lo = l->nb = l->bcap = 0;
        }
    }
    r->rwait = calloc(r->f.nranks ? r->f.nranks : 1, sizeof *r->rwait);
    if (r->rwait == NULL)
        return -1;
    for (size_t i = 0; i < r->nlanes; i++)
        r->rwait[r->lanes[i].pub.rank_index] += r->lanes[i].pub.state[VW_IDLE];
    r->f.nbins = NBINS;
    r->f.bin_width = r->width;
    r->f.util = want_full ? r->util : NULL;
    r->f.rank_wait = r->rwait;
    return 0;
}

static void release(vw_run *r)
{
    for (size_t i = 0; i < r->nlanes; i++) {
        free(r->lanes[i].bins);
        free(r->lanes[i].setup);
        free(r->lanes[i].full);
    }
    free(r->util);
    free(r->rwait);
}

/* per lane its times and its span of bins (mostly 0: sent as runs) */
static int pack(const vw_run *r, vw_pack *b)
{
    for (size_t i = 0; i < r->nlanes; i++) {
        const lane *l = &r->lanes[i];
        vw_put_f64(b, l->pub.first);
        vw_put_f64(b, l->width);
        vw_put_f64(b, l->last);
        vw_put_u64(b, (uint64_t)l->started);
        vw_put_u64(b, (uint64_t)l->settled);
        if (l->settled)
            for (int s = 0; s < VW_NSTATES; s++)
                vw_put_f64(b, l->pub.state[s]);
        vw_put_u64(b, l->lo);
        vw_put_u64(b, l->nb);
        vw_put_f64s(b, l->bins, (size_t)l->nb * VW_NSTATES);
        vw_put_u64(b, l->setup != NULL);
        if (l->setup)
            vw_put_f64s(b, l->setup, l->nb);
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
        l->settled = (int)vw_get_index(u, 2);
        for (int s = 0; l->settled && s < VW_NSTATES; s++)
            l->pub.state[s] = vw_get_f64(u);
        size_t lo = vw_get_index(u, NBINS), nb = vw_get_index(u, NBINS + 1 - lo);
        if (u->bad || (nb == 0 && lo != 0) || (l->settled && nb))   /* (a lane without bins
                                                                     * holds them from 0) */
            return -1;
        if (nb && (touch(l, lo) || touch(l, lo + nb - 1)))
            return -1;
        vw_get_f64s(u, l->bins, nb * VW_NSTATES);
        if (vw_get_u64(u) != 0) {
            if (setup_bins(l) != 0)
                return -1;
            vw_get_f64s(u, l->setup, nb);
        }
    }
    return u->bad ? -1 : 0;
}

const vw_analysis vw_an_utilization = {"utilization", begin, record, event, NULL, merge, NULL,
                                       finish, release, pack, unpack, NULL};
