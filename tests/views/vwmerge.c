/* vwmerge.c -- the analyses' merge on split inputs equals the unsplit
 * result: reads a trace or run once with one thread and once split into
 * JOBS shares of its files or threads (pal_reader_set_share), whose partial results
 * are merged (views/filter.c), and compares the facts of every analysis
 * field by field, doubles exactly: the profile and call tree (regions,
 * lanes' shares, nodes), the messages and matrix (counts, latency, the
 * sample), utilization (states, bins), counters per region, collective
 * instances, and the counts and damage.
 *   vwmerge [--packed] [--waits|--waits-only] JOBS [-d DICT] TRACE...
 * --packed: each share's partial result goes through bytes as pal-view
 * --mpi sends it (vw_run_pack, vw_run_unpack; packing the unpacked run
 * must give the same bytes) and the shares are merged in the engine's
 * order, a binomial tree (views/mpi.c), each merged pair packed again;
 * the first part's bytes cut at 64 places never unpack, and with a byte
 * flipped at 64 places unpack without a fault (the sanitizer builds).
 * --settled (with --packed): as pal-view --mpi reads when no output draws
 * the time bins, each part's lanes are brought to the run's bin width (the
 * widest of every part's) and summed into their states, their bins dropped
 * (vw_lanes_settle), before they go through bytes; the split run's facts
 * then have no lane bins and no util, and every lane's states equal the
 * unsplit run's exactly.
 * --waits: the wait states are kept too (vw_run_need), go through the
 * bytes with the rest, and their outputs -- the CSV table, the JSON and
 * the what-if replays under the measured network and the ideal one -- are
 * byte-identical to the unsplit run's. --waits-only: as --waits, with only
 * the analyses --waits needs run (vw_run_need), in both reads (the facts
 * of the others, empty, are not compared), and the outputs also
 * byte-identical to those of a run of every analysis.
 * Prints "same: ..." (with the shares the split read used) and exits 0, or
 * names the first fields that differ and exits 1; 2 when the trace cannot
 * be read. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "views/an.h"
#include "views/waits.h"

static int diffs;
static int settled;   /* --settled: the split run's lanes have states and no bins */

#define SAME(what, a, b, ...)                                                                  \
    do {                                                                                       \
        if (!((a) == (b))) {                                                                   \
            if (diffs++ < 20) {                                                                \
                fprintf(stderr, "vwmerge: %s differs: ", what);                                \
                fprintf(stderr, __VA_ARGS__);                                                  \
                fputc('\n', stderr);                                                           \
            }                                                                                  \
        }                                                                                      \
    } while (0)

static void stat_same(const char *what, size_t i, const vw_stat *a, const vw_stat *b)
{
    SAME(what, a->calls, b->calls, "%zu: calls", i);
    SAME(what, a->total, b->total, "%zu: total %.17g %.17g", i, a->total, b->total);
    SAME(what, a->excl, b->excl, "%zu: excl %.17g %.17g", i, a->excl, b->excl);
    SAME(what, a->max, b->max, "%zu: max", i);
    SAME(what, a->bytes, b->bytes, "%zu: bytes", i);
}

static void cstat_same(const char *what, size_t i, const vw_cstat *a, const vw_cstat *b)
{
    SAME(what, a->calls, b->calls, "%zu: calls", i);
    SAME(what, a->incl, b->incl, "%zu: incl", i);
    SAME(what, a->excl, b->excl, "%zu: excl", i);
}

static void compare(const vw_facts *a, const vw_facts *b)
{
    /* counts and damage */
    SAME("records", a->records, b->records, "%llu %llu", (unsigned long long)a->records,
         (unsigned long long)b->records);
    SAME("duration", a->duration, b->duration, "%.17g %.17g", a->duration, b->duration);
    SAME("markers", a->markers, b->markers, "%s", "");
    SAME("counter samples", a->counters, b->counters, "%s", "");
    SAME("lost", a->lost, b->lost, "%s", "");
    SAME("unmatched leaves", a->unmatched_leaves, b->unmatched_leaves, "%s", "");
    SAME("open at end", a->open_at_end, b->open_at_end, "%s", "");
    SAME("damage", a->damaged + a->bytes_skipped + a->chunks_missing + a->truncated +
                       a->not_closed + a->signaled + a->ranks_missing,
         b->damaged + b->bytes_skipped + b->chunks_missing + b->truncated + b->not_closed +
             b->signaled + b->ranks_missing,
         "%s", "");
    /* profile: regions, lanes and their shares */
    SAME("regions", a->nregions, b->nregions, "%zu %zu", a->nregions, b->nregions);
    for (size_t i = 0; i < a->nregions && i < b->nregions; i++) {
        SAME("region name", strcmp(a->regions[i].name, b->regions[i].name), 0, "%zu: %s %s", i,
             a->regions[i].name, b->regions[i].name);
        SAME("region kind", a->regions[i].kind, b->regions[i].kind, "%zu", i);
        stat_same("region", i, &a->regions[i].all, &b->regions[i].all);
        /* collective instances */
        SAME("collective instances", a->regions[i].instances, b->regions[i].instances, "%s",
             a->regions[i].name);
        SAME("collective spread", a->regions[i].spread_sum, b->regions[i].spread_sum, "%s",
             a->regions[i].name);
        SAME("collective spread max", a->regions[i].spread_max, b->regions[i].spread_max, "%s",
             a->regions[i].name);
    }
    SAME("lanes", a->nlanes, b->nlanes, "%zu %zu", a->nlanes, b->nlanes);
    SAME("ranks", a->nranks, b->nranks, "%zu %zu", a->nranks, b->nranks);
    for (size_t i = 0; i < a->nranks && i < b->nranks; i++)
        SAME("rank", a->ranks[i], b->ranks[i], "%zu", i);
    int regions_same = a->nregions == b->nregions;
    for (size_t i = 0; i < a->nlanes && i < b->nlanes; i++) {
        const vw_lane *x = &a->lanes[i], *y = &b->lanes[i];
        SAME("lane", x->process == y->process && x->stream == y->stream, 1, "%zu", i);
        SAME("lane name", strcmp(x->name, y->name), 0, "%zu", i);
        SAME("lane first", x->first, y->first, "%zu", i);
        SAME("lane last", x->last, y->last, "%zu", i);
        for (int s = 0; s < VW_NSTATES; s++)
            SAME("utilization: lane state", x->state[s], y->state[s], "%zu %d: %.17g %.17g", i, s,
                 x->state[s], y->state[s]);
        if (settled)   /* none wanted */
            SAME("utilization: no lane bins", y->bins == NULL, 1, "%zu", i);
        for (size_t k = 0; !settled && k < a->nbins * VW_NSTATES && a->nbins == b->nbins; k++)
            SAME("utilization: lane bins", x->bins[k], y->bins[k], "%zu bin %zu", i, k);
        for (size_t g = 0; regions_same && g < a->nregions; g++)
            stat_same("profile: lane's region", g, &x->rstat[g], &y->rstat[g]);
    }
    /* utilization over time */
    SAME("bins", a->nbins, b->nbins, "%s", "");
    SAME("bin width", a->bin_width, b->bin_width, "%.17g %.17g", a->bin_width, b->bin_width);
    if (settled)
        SAME("utilization: none", b->util == NULL, 1, "%s", "");
    for (size_t k = 0; !settled && k < a->nbins * VW_NSTATES && a->nbins == b->nbins; k++)
        SAME("utilization", a->util[k], b->util[k], "bin %zu", k);
    /* call tree */
    SAME("call tree nodes", a->nnodes, b->nnodes, "%zu %zu", a->nnodes, b->nnodes);
    for (size_t i = 0; i < a->nnodes && i < b->nnodes; i++) {
        const vw_node *x = &a->nodes[i], *y = &b->nodes[i];
        SAME("call tree node", x->region == y->region && x->parent == y->parent &&
                                   x->first_child == y->first_child &&
                                   x->next_sibling == y->next_sibling,
             1, "%zu", i);
        SAME("call tree calls", x->calls, y->calls, "%zu", i);
        SAME("call tree incl", x->incl, y->incl, "%zu", i);
        SAME("call tree excl", x->excl, y->excl, "%zu", i);
    }
    /* messages and matrix */
    SAME("has messages", a->has_messages, b->has_messages, "%s", "");
    SAME("sends", a->sends, b->sends, "%s", "");
    SAME("receives", a->recvs, b->recvs, "%s", "");
    SAME("matched", a->matched, b->matched, "%llu %llu", (unsigned long long)a->matched,
         (unsigned long long)b->matched);
    SAME("latency", a->latency_sum, b->latency_sum, "%s", "");
    SAME("latency max", a->latency_max, b->latency_max, "%s", "");
    size_t R = a->nranks == b->nranks ? a->nranks : 0;
    for (size_t k = 0; k < R * R; k++) {
        SAME("matrix count", a->comm_count[k], b->comm_count[k], "%zu", k);
        SAME("matrix bytes", a->comm_bytes[k], b->comm_bytes[k], "%zu", k);
    }
    for (size_t k = 0; k < R; k++)
        SAME("rank wait", a->rank_wait[k], b->rank_wait[k], "%zu", k);
    SAME("message sample", a->nmsgs, b->nmsgs, "%zu %zu", a->nmsgs, b->nmsgs);
    for (size_t i = 0; i < a->nmsgs && i < b->nmsgs; i++) {
        const vw_msg *x = &a->msgs[i], *y = &b->msgs[i];
        SAME("message", x->src == y->src && x->dst == y->dst && x->src_lane == y->src_lane &&
                            x->dst_lane == y->dst_lane && x->t_send == y->t_send &&
                            x->t_recv == y->t_recv && x->bytes == y->bytes,
             1, "%zu", i);
    }
    /* counters per region */
    SAME("counters", a->ncounters, b->ncounters, "%zu %zu", a->ncounters, b->ncounters);
    if (a->ncounters == b->ncounters && regions_same) {
        for (size_t c = 0; c < a->ncounters; c++)
            SAME("counter name", strcmp(a->counter_names[c], b->counter_names[c]), 0, "%zu", c);
        for (size_t k = 0; k < a->nregions * a->ncounters; k++)
            cstat_same("counters per region", k, &a->region_counters[k], &b->region_counters[k]);
        for (size_t k = 0; a->nnodes == b->nnodes && k < a->nnodes * a->ncounters; k++)
            cstat_same("counters per node", k, &a->node_counters[k], &b->node_counters[k]);
        SAME("lanes' counters", a->nlane_counters, b->nlane_counters, "%s", "");
        for (size_t i = 0; i < a->nlane_counters && i < b->nlane_counters; i++) {
            const vw_lane_cstat *x = &a->lane_counters[i], *y = &b->lane_counters[i];
            SAME("lane's counter", x->lane == y->lane && x->region == y->region &&
                                       x->counter == y->counter,
                 1, "%zu", i);
            cstat_same("lane's counter", i, &x->s, &y->s);
        }
    }
}

/* bytes cut short are refused; flipped ones may unpack, but never fault */
static void damaged(const vw_pack *a)
{
    unsigned char *c = malloc(a->n + 1);
    if (c == NULL)
        return;
    for (size_t i = 0; i < 64; i++) {
        size_t at = a->n * i / 64;
        vw_run *o = NULL;
        SAME("cut part", vw_run_unpack(a->p, at, &o), -1, "unpacked %zu of %zu bytes", at, a->n);
        vw_run_free(o);
        memcpy(c, a->p, a->n);
        c[(at * 7919 + i) % a->n] ^= (unsigned char)(1u << (i % 8));
        o = NULL;
        vw_run_unpack(c, a->n, &o);
        vw_run_free(o);
    }
    free(c);
}

/* r through bytes: *out the unpacked run, the same bytes packed again */
static int roundtrip(const vw_run *r, vw_run **out)
{
    vw_pack a = {0}, b = {0};
    *out = NULL;
    int rc = vw_run_pack(r, &a) || vw_run_unpack(a.p, a.n, out) || vw_run_pack(*out, &b) ? -1 : 0;
    static int cut;
    if (rc == 0 && !cut++)
        damaged(&a);
    if (rc == 0)
        SAME("packed bytes", a.n == b.n && memcmp(a.p, b.p, a.n) == 0, 1, "%zu %zu bytes", a.n,
             b.n);
    else
        fprintf(stderr, "vwmerge: cannot pack or unpack a partial result\n");
    vw_pack_free(&a);
    vw_pack_free(&b);
    return rc;
}

/* the shares read, packed and merged in a binomial tree, as pal-view --mpi
 * does with one process per share */
static int packed(const char *const *paths, size_t n, const char *dict, unsigned jobs,
                  vw_run **out)
{
    vw_base base;
    *out = NULL;
    if (vw_run_base(paths, n, dict, 0, &base))
        return -1;
    unsigned ns = vw_share_count(&base, jobs);
    /* the run's start, without a start time: the earliest first record of
     * the shares, as the processes of pal-view --mpi find it */
    uint64_t t, min = UINT64_MAX;
    for (unsigned k = 0; k < ns; k++)
        if (vw_share_first(paths, n, dict, k, ns, &t) == 0 && t < min)
            min = t;
    if (min != UINT64_MAX)
        vw_base_first(&base, min);
    vw_run **part = calloc(jobs, sizeof *part), **read = calloc(jobs, sizeof *read);
    int rc = part && read ? 0 : -1;
    double width = 0;
    for (unsigned k = 0; rc == 0 && k < jobs; k++) {   /* processes past ns read nothing */
        read[k] = vw_share_new(&base, ns);
        if (read[k] == NULL || (k < ns && vw_share_read(read[k], paths, n, dict, k, ns)))
            rc = -1;
        else if (vw_lanes_width(read[k]) > width)
            width = vw_lanes_width(read[k]);
    }
    for (unsigned k = 0; rc == 0 && k < jobs; k++) {
        if (settled)   /* at the run's width, as the processes agree on it */
            vw_lanes_settle(read[k], width);
        if (roundtrip(read[k], &part[k]))
            rc = -1;
    }
    for (unsigned k = 0; read && k < jobs; k++)
        vw_run_free(read[k]);
    free(read);
    for (unsigned step = 1; rc == 0 && step < jobs; step *= 2)
        for (unsigned k = 0; rc == 0 && k + step < jobs; k += 2 * step) {
            vw_run *m = NULL;
            if (vw_run_absorb(part[k], part[k + step]) || roundtrip(part[k], &m))
                rc = -1;
            vw_run_free(part[k]);
            vw_run_free(part[k + step]);
            part[k] = m;
            part[k + step] = NULL;
        }
    if (rc == 0) {
        *out = part[0];
        part[0] = NULL;
        rc = vw_run_close(*out);
    }
    for (unsigned k = 0; part && k < jobs; k++)
        vw_run_free(part[k]);
    free(part);
    return rc;
}

/* the wait states of a and b in every form, and their what-if replays
 * (the measured network, the ideal one), byte for byte */
static void waits_same(const vw_run *a, const vw_run *b)
{
    static const char *const spec[] = {NULL, "net", "ideal"};
    static const char *const form_name[] = {"text", "CSV", "JSON"};
    for (size_t k = 0; k < sizeof spec / sizeof spec[0]; k++)
        for (int form = VW_WAITS_TEXT; form <= VW_WAITS_JSON; form++) {
            vw_what_if m;
            if (spec[k] && vw_what_if_parse(spec[k], &m)) {
                diffs++;
                return;
            }
            char *t[2] = {NULL, NULL};
            size_t n[2] = {0, 0};
            const vw_run *r[2] = {a, b};
            for (int i = 0; i < 2; i++) {
                FILE *f = open_memstream(&t[i], &n[i]);
                if (f == NULL || vw_waits_write(r[i], form, spec[k] ? &m : NULL, f))
                    diffs++;
                if (f)
                    fclose(f);
            }
            SAME("wait states", n[0] == n[1] && t[0] && t[1] && memcmp(t[0], t[1], n[0]) == 0, 1,
                 "%s%s%s: %zu and %zu bytes", form_name[form], spec[k] ? ", what-if " : "",
                 spec[k] ? spec[k] : "", n[0], n[1]);
            free(t[0]);
            free(t[1]);
        }
}

int main(int argc, char **argv)
{
    int use_pack = 0, use_waits = 0;
    for (; argc > 1 && strncmp(argv[1], "--", 2) == 0; argv++, argc--)
        if (strcmp(argv[1], "--packed") == 0)
            use_pack = 1;
        else if (strcmp(argv[1], "--waits") == 0)
            use_waits = 1;
        else if (strcmp(argv[1], "--waits-only") == 0)
            use_waits = 2;
        else if (strcmp(argv[1], "--settled") == 0)
            settled = 1;
        else
            break;
    static const vw_analysis *const need[] = {&vw_an_waits};
    vw_run_need(need, use_waits != 0, use_waits != 2);
    if (argc < 3) {
        fprintf(stderr, "usage: vwmerge [--packed [--settled]] [--waits|--waits-only] JOBS "
                        "[-d DICT] TRACE...\n");
        return 2;
    }
    unsigned jobs = (unsigned)atoi(argv[1]);
    const char *dict = NULL;
    int i = 2;
    if (argc > 3 && strcmp(argv[2], "-d") == 0) {
        dict = argv[3];
        i = 4;
    }
    const char *const *paths = (const char *const *)argv + i;
    size_t n = (size_t)(argc - i);
    vw_run *one = NULL, *split = NULL;
    int rc1 = vw_run_traces_jobs(paths, n, dict, NULL, 1, &one);
    settled = settled && use_pack;
    vw_lane_bins_want(!settled);   /* the split run's (the unsplit one has them) */
    int rc2 = use_pack && jobs > 0 ? packed(paths, n, dict, jobs, &split)
                                   : vw_run_traces_jobs(paths, n, dict, NULL, jobs, &split);
    if (rc1 < 0 || rc2 < 0) {
        vw_run_free(one);
        vw_run_free(split);
        return 2;
    }
    SAME("exit status", rc1, rc2, "%d %d", rc1, rc2);
    const vw_facts *a = vw_run_facts(one), *b = vw_run_facts(split);
    if (use_waits != 2)   /* the facts of the analyses not run are empty */
        compare(a, b);
    if (use_waits)
        waits_same(one, split);
    if (use_waits == 2) {   /* ... and those of a run of every analysis */
        vw_run *full = NULL;
        vw_run_need(need, 1, 1);
        if (vw_run_traces_jobs(paths, n, dict, NULL, 1, &full) < 0)
            diffs++;
        else
            waits_same(full, one);
        vw_run_free(full);
    }
    if (diffs == 0)
        printf("same: %llu records, %zu regions, %zu nodes, %zu lanes, %llu matched, %zu "
               "counters, %u shares%s\n",
               (unsigned long long)a->records, a->nregions, a->nnodes, a->nlanes,
               (unsigned long long)a->matched, a->ncounters, b->shares,
               use_waits == 2 ? ", the wait states (their analyses alone)"
               : use_waits ? ", the wait states" : "");
    vw_run_free(one);
    vw_run_free(split);
    return diffs ? 1 : 0;
}
