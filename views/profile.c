/* profile.c -- the text views: the profile (per region and MPI function:
 * calls, total/mean/max time, share of the run, per-rank imbalance; top
 * communication pairs; ranks that wait most) and the CSV export. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "views/escape.h"
#include "views/vw.h"

/* max over ranks / mean over ranks of a region's inclusive time */
size_t vw_damage_note(const vw_facts *f, char *buf, size_t size)
{
    size_t n = 0;
    const char *sep = "";
    buf[0] = '\0';
#define NOTE(cond, ...)                                                                 \
    do {                                                                                \
        if ((cond) && n < size) {                                                       \
            int k = snprintf(buf + n, size - n, "%s", sep);                             \
            n += k > 0 ? (size_t)k : 0;                                                 \
            if (n < size) {                                                             \
                k = snprintf(buf + n, size - n, __VA_ARGS__);                           \
                n += k > 0 ? (size_t)k : 0;                                             \
            }                                                                           \
            sep = ", ";                                                                 \
        }                                                                               \
    } while (0)
    NOTE(f->damaged, "%llu damaged chunk%s or bad line%s skipped", (unsigned long long)f->damaged,
         f->damaged == 1 ? "" : "s", f->damaged == 1 ? "" : "s");
    NOTE(f->bytes_skipped, "%llu bytes passed over", (unsigned long long)f->bytes_skipped);
    NOTE(f->truncated, "a file ends inside a chunk");
    NOTE(f->not_closed, "%u file%s not closed by the writer (killed, or still running: its "
         "last buffers are missing)", f->not_closed, f->not_closed == 1 ? "" : "s");
    NOTE(f->signaled, "%u file%s flushed on a fatal signal", f->signaled,
         f->signaled == 1 ? "" : "s");
    NOTE(f->chunks_missing, "%llu chunk%s missing", (unsigned long long)f->chunks_missing,
         f->chunks_missing == 1 ? "" : "s");
    NOTE(f->ranks_missing, "%u rank%s of the run without a trace", f->ranks_missing,
         f->ranks_missing == 1 ? "" : "s");
    NOTE(f->lost, "%llu record%s lost while tracing (dropped and counted)",
         (unsigned long long)f->lost, f->lost == 1 ? "" : "s");
#undef NOTE
    if (n == 0)
        return 0;
    char body[1024];
    snprintf(body, sizeof body, "%s", buf);
    int k = snprintf(buf, size, "damaged trace: %s; the views show what could be read", body);
    n = k < 0 ? 0 : (size_t)k < size ? (size_t)k : size - 1;
    return n;
}

double vw_rank_imbalance(const vw_facts *f, size_t region, double *mean_out)
{
    size_t R = f->nranks ? f->nranks : 1;
    double *per = calloc(R, sizeof *per);
    double mx = 0, sum = 0;
    if (per == NULL)
        return 0;
    for (size_t i = 0; i < f->nlanes; i++)
        per[f->lanes[i].rank_index] += f->lanes[i].rstat[region].total;
    for (size_t i = 0; i < R; i++) {
        sum += per[i];
        if (per[i] > mx)
            mx = per[i];
    }
    free(per);
    double mean = sum / (double)R;
    if (mean_out)
        *mean_out = mean;
    return mean > 0 ? mx / mean : 0;
}

static const vw_facts *sort_facts;
static int by_total(const void *a, const void *b)
{
    const vw_region *x = &sort_facts->regions[*(const size_t *)a];
    const vw_region *y = &sort_facts->regions[*(const size_t *)b];
    if (x->all.total != y->all.total)
        return x->all.total < y->all.total ? 1 : -1;
    return strcmp(x->name, y->name);
}

static void region_table(const vw_facts *f, FILE *out, int kind, double lane_time)
{
    size_t *idx = malloc((f->nregions + 1) * sizeof *idx), n = 0;
    if (idx == NULL)
        return;
    for (size_t i = 0; i < f->nregions; i++)
        if (f->regions[i].kind == kind && f->regions[i].all.calls)
            idx[n++] = i;
    if (n == 0) {
        free(idx);
        return;
    }
    sort_facts = f;
    qsort(idx, n, sizeof *idx, by_total);
    fprintf(out, "\n%s\n", kind == VW_REGION_MPI      ? "MPI functions"
                           : kind == VW_REGION_SETUP  ? "Process start and end (in no state)"
                           : kind == VW_REGION_DEVICE ? "GPU (time on devices: kernels, copies)"
                                                      : "Regions");
    /* Bytes: always for MPI functions; for other regions when one of them
     * moved bytes (a call with a bytes role: a GPU copy, a memset), with the
     * bandwidth they achieved, bytes / total time (MPI functions' time is
     * mostly waiting, so theirs would be no bandwidth) */
    int bytes = kind == VW_REGION_MPI, bw = 0;
    for (size_t k = 0; k < n && !bytes; k++)
        bytes = bw = f->regions[idx[k]].all.bytes > 0;
    fprintf(out, "  %-28s %10s %12s %12s %12s %12s %7s %9s%s%s\n", "name", "calls", "total_s",
            "excl_s", "mean_s", "max_s", "share%", "imbalance", bytes ? "        bytes" : "",
            bw ? "       GB/s" : "");
    for (size_t k = 0; k < n; k++) {
        const vw_region *g = &f->regions[idx[k]];
        double imb = vw_rank_imbalance(f, idx[k], NULL);
        fputs("  ", out);
        vw_term_text(out, g->name, 28);
        fprintf(out, " %10llu %12.6f %12.6f %12.9f %12.9f %7.2f %9.2f",
                (unsigned long long)g->all.calls, g->all.total, g->all.excl,
                g->all.total / (double)g->all.calls, g->all.max,
                lane_time > 0 ? 100.0 * g->all.total / lane_time : 0.0, imb);
        if (bytes)
            fprintf(out, " %12.0f", g->all.bytes);
        if (bw && g->all.bytes > 0 && g->all.total > 0)
            fprintf(out, " %10.3f", g->all.bytes / g->all.total / 1e9);
        fputc('\n', out);
    }
    free(idx);
}

/* Counters per region: the deltas between enter and leave, in regions'
 * order of inclusive time. */
static void counter_table(const vw_facts *f, FILE *out)
{
    size_t C = f->ncounters, *idx = malloc((f->nregions + 1) * sizeof *idx), n = 0;
    if (C == 0 || idx == NULL) {
        free(idx);
        return;
    }
    for (size_t i = 0; i < f->nregions; i++)
        for (size_t c = 0; c < C; c++)
            if (f->region_counters[i * C + c].calls) {
                idx[n++] = i;
                break;
            }
    sort_facts = f;
    qsort(idx, n, sizeof *idx, by_total);
    if (n)
        fprintf(out, "\nCounters per region (leave - enter; exclusive = minus the children)\n"
                     "  %-28s %-16s %10s %16s %16s %14s\n",
                "region", "counter", "calls", "inclusive", "exclusive", "per_call");
    for (size_t k = 0; k < n; k++)
        for (size_t c = 0; c < C; c++) {
            const vw_cstat *s = &f->region_counters[idx[k] * C + c];
            if (s->calls == 0)
                continue;
            fputs("  ", out);
            vw_term_text(out, f->regions[idx[k]].name, 28);
            fputc(' ', out);
            vw_term_text(out, f->counter_names[c], 16);
            fprintf(out, " %10llu %16.0f %16.0f %14.1f\n", (unsigned long long)s->calls, s->incl,
                    s->excl,
                    s->incl / (double)s->calls);
        }
    free(idx);
}

typedef struct pair { size_t a, b; uint64_t n; double bytes; } pair;
static int by_bytes(const void *a, const void *b)
{
    const pair *x = a, *y = b;
    if (x->bytes != y->bytes)
        return x->bytes < y->bytes ? 1 : -1;
    if (x->n != y->n)
        return x->n < y->n ? 1 : -1;
    return x->a != y->a ? (x->a < y->a ? -1 : 1) : (x->b < y->b ? -1 : x->b > y->b);
}
typedef struct rw { size_t r; double w; } rw;
static int by_wait(const void *a, const void *b)
{
    const rw *x = a, *y = b;
    if (x->w != y->w)
        return x->w < y->w ? 1 : -1;
    return x->r < y->r ? -1 : x->r > y->r;
}

static int profile_text(const vw_facts *f, FILE *out)
{
    double lane_time = 0, st[VW_NSTATES] = {0};
    for (size_t i = 0; i < f->nlanes; i++) {
        lane_time += f->lanes[i].last - f->lanes[i].first;
        for (int s = 0; s < VW_NSTATES; s++)
            st[s] += f->lanes[i].state[s];
    }
    fputs("Profile of ", out);
    vw_term_text(out, f->trace, 0);
    fputs(" (dictionary ", out);
    vw_term_text(out, f->dict, 0);
    fputs(")\n", out);
    fprintf(out, "  records %llu, ranks %zu, threads %zu, run %.6f s, thread time %.6f s\n",
            (unsigned long long)f->records, f->nranks, f->nlanes, f->duration, lane_time);
    double tot = st[0] + st[1] + st[2], setup = 0;
    for (size_t i = 0; i < f->nregions; i++)
        if (f->regions[i].kind == VW_REGION_SETUP)
            setup += f->regions[i].all.total;
    if (tot > 0)
        fprintf(out, "  state: busy %.1f%%, overhead %.1f%%, idle %.1f%%\n",
                100 * st[VW_BUSY] / tot, 100 * st[VW_OVERHEAD] / tot, 100 * st[VW_IDLE] / tot);
    if (setup > 0)   /* MPI_Init and MPI_Finalize: neither work, waiting nor overhead */
        fprintf(out, "  process start and end %.6f s (%.1f%% of thread time), not in the states\n",
                setup, lane_time > 0 ? 100 * setup / lane_time : 0.0);
    fprintf(out, "  markers %llu, counter samples %llu, lost %llu, unmatched leaves %llu, "
                 "open at end %llu\n",
            (unsigned long long)f->markers, (unsigned long long)f->counters,
            (unsigned long long)f->lost, (unsigned long long)f->unmatched_leaves,
            (unsigned long long)f->open_at_end);
    char note[1024];
    if (vw_damage_note(f, note, sizeof note))
        fprintf(out, "  %s\n", note);
    region_table(f, out, VW_REGION_MPI, lane_time);
    region_table(f, out, VW_REGION_USER, lane_time);
    region_table(f, out, VW_REGION_DEVICE, lane_time);
    region_table(f, out, VW_REGION_SETUP, lane_time);
    counter_table(f, out);
    int coll = 0;
    for (size_t i = 0; i < f->nregions; i++) {
        const vw_region *g = &f->regions[i];
        if (g->instances == 0)
            continue;
        if (!coll++)
            fprintf(out, "\nCollectives (instances across ranks; spread = last entry - first)\n"
                         "  %-28s %10s %14s %14s\n",
                    "name", "instances", "mean_spread_s", "max_spread_s");
        fputs("  ", out);
        vw_term_text(out, g->name, 28);
        fprintf(out, " %10llu %14.9f %14.9f\n", (unsigned long long)g->instances, g->spread_sum / (double)g->instances,
                g->spread_max);
    }
    if (f->has_messages) {
        size_t R = f->nranks, n = 0;
        pair *p = malloc((R * R + 1) * sizeof *p);
        if (p == NULL)
            return -1;
        for (size_t a = 0; a < R; a++)
            for (size_t b = 0; b < R; b++)
                if (f->comm_count[a * R + b])
                    p[n++] = (pair){a, b, f->comm_count[a * R + b], f->comm_bytes[a * R + b]};
        qsort(p, n, sizeof *p, by_bytes);
        fprintf(out, "\nMessages: %llu sends, %llu receives, %llu matched\n",
                (unsigned long long)f->sends, (unsigned long long)f->recvs,
                (unsigned long long)f->matched);
        if (f->matched)
            fprintf(out, "  latency (send start to receive end): mean %.9f s, max %.9f s\n",
                    f->latency_sum / (double)f->matched, f->latency_max);
        fprintf(out, "  top communication pairs\n  %8s %8s %10s %14s\n", "src", "dst", "count",
                "bytes");
        for (size_t i = 0; i < n && i < 10; i++)
            fprintf(out, "  %8u %8u %10llu %14.0f\n", f->ranks[p[i].a], f->ranks[p[i].b],
                    (unsigned long long)p[i].n, p[i].bytes);
        free(p);
    }
    size_t R = f->nranks;
    rw *w = malloc((R + 1) * sizeof *w);
    if (w == NULL)
        return -1;
    size_t nw = 0;
    for (size_t i = 0; i < R; i++)
        if (f->rank_wait[i] > 0)
            w[nw++] = (rw){i, f->rank_wait[i]};
    if (nw) {
        qsort(w, nw, sizeof *w, by_wait);
        fprintf(out, "\nRanks that wait most (idle seconds)\n");
        for (size_t i = 0; i < nw && i < 10; i++)
            fprintf(out, "  rank %6u %12.6f\n", f->ranks[w[i].r], w[i].w);
    }
    free(w);
    return 0;
}

const vw_view vw_view_profile = {VW_ABI_VERSION, "profile",
                                 "text profile: regions and MPI functions, pairs, waiters",
                                 profile_text, NULL};

/* ---------------- suggest-filter: an ECL_FILTER file for floods ----------------
 * As scorep-score -g does for Score-P: the regions (instrumented functions)
 * that cost many records for little time each, as exclude rules, with the
 * records that leaving them out saves. A candidate is a user region with at
 * least SF_MIN_CALLS calls whose calls last less than SF_MAX_MEAN seconds on
 * average (inclusive). */
#define SF_MIN_CALLS 1000
#define SF_MAX_MEAN 10e-6

typedef struct sfc { size_t i; uint64_t calls; } sfc;

static int by_calls(const void *a, const void *b)
{
    const sfc *x = a, *y = b;
    return x->calls != y->calls ? (x->calls < y->calls ? 1 : -1) : (x->i > y->i) - (x->i < y->i);
}

/* a function name as a quoted pattern of the filter grammar that matches it
 * literally: glob characters escaped for fnmatch, quote and backslash for
 * the quotes */
static void filter_pattern(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputs(*s == '"' ? "\\\"" : "\\\\\\\\", out);
        else if (*s == '*' || *s == '?' || *s == '[')
            fprintf(out, "\\\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            fputc('?', out);
        else
            fputc(*s, out);
    }
    fputc('"', out);
}

static int suggest_filter_text(const vw_facts *f, FILE *out)
{
    sfc *c = calloc(f->nregions + 1, sizeof *c);
    if (!c)
        return -1;
    size_t n = 0;
    uint64_t saved = 0;
    for (size_t i = 0; i < f->nregions; i++) {
        const vw_region *g = &f->regions[i];
        if (g->kind != VW_REGION_USER || g->all.calls < SF_MIN_CALLS ||
            g->all.total / (double)g->all.calls >= SF_MAX_MEAN)
            continue;
        c[n++] = (sfc){i, g->all.calls};
        saved += 2 * g->all.calls;       /* an enter and a leave record per call */
    }
    qsort(c, n, sizeof *c, by_calls);
    double share = f->records ? 100.0 * (double)saved / (double)f->records : 0;
    fprintf(out, "# ECL_FILTER file suggested by pal-view --suggest-filter for %s\n", f->trace);
    fprintf(out, "# (doc/instrumentation.md, \"Filter files\"): functions called at least %d "
                 "times\n# for less than %.0f us on average\n", SF_MIN_CALLS, SF_MAX_MEAN * 1e6);
    if (n == 0) {
        fprintf(out, "# none: no function floods this trace of %llu records\n",
                (unsigned long long)f->records);
        free(c);
        return 0;
    }
    fprintf(out, "# leaving them out saves about %llu of %llu records (%.1f%%)\n",
            (unsigned long long)saved, (unsigned long long)f->records, share);
    for (size_t k = 0; k < n; k++) {
        const vw_region *g = &f->regions[c[k].i];
        fputs("exclude function ", out);
        filter_pattern(out, g->name);
        fprintf(out, "   # %llu calls, %.3f us each, %llu records\n",
                (unsigned long long)g->all.calls, g->all.total / (double)g->all.calls * 1e6,
                (unsigned long long)(2 * g->all.calls));
    }
    free(c);
    return 0;
}

const vw_view vw_view_suggest_filter = {VW_ABI_VERSION, "suggest-filter",
                                        "an ECL_FILTER file excluding the functions that flood "
                                        "the trace, with the records it saves",
                                        suggest_filter_text, NULL};

/* CSV: one tidy table, one row per (rank, thread, region) plus message pairs
 * and counters per region (rank, thread, region, counter, calls, inclusive
 * and exclusive delta in the counter's unit). */
int vw_export_csv(const vw_facts *f, FILE *out)
{
    fprintf(out, "table,rank,thread,name,kind,calls,total_s,excl_s,max_s,bytes\n");
    for (size_t i = 0; i < f->nlanes; i++) {
        const vw_lane *l = &f->lanes[i];
        for (size_t g = 0; g < f->nregions; g++) {
            const vw_stat *s = &l->rstat[g];
            if (s->calls == 0)
                continue;
            fprintf(out, "region,%u,%u,", l->process, l->stream);
            vw_csv_name(out, f->regions[g].name);
            fprintf(out, ",%s,%llu,%.9f,%.9f,%.9f,%.0f\n",
                    f->regions[g].kind == VW_REGION_MPI      ? "mpi"
                    : f->regions[g].kind == VW_REGION_SETUP  ? "setup"
                    : f->regions[g].kind == VW_REGION_DEVICE ? "device"
                                                             : "user",
                    (unsigned long long)s->calls, s->total, s->excl, s->max, s->bytes);
        }
        static const char *const sn[] = {"busy", "overhead", "idle"};
        for (int s = 0; s < VW_NSTATES; s++)
            fprintf(out, "state,%u,%u,%s,state,,%.9f,,,\n", l->process, l->stream, sn[s],
                    l->state[s]);
    }
    for (size_t i = 0; i < f->nlane_counters; i++) {
        const vw_lane_cstat *c = &f->lane_counters[i];
        if (c->s.calls == 0)
            continue;
        fprintf(out, "counter,%u,%u,", f->lanes[c->lane].process, f->lanes[c->lane].stream);
        vw_csv_name(out, f->regions[c->region].name);
        fputc(',', out);
        vw_csv_name(out, f->counter_names[c->counter]);
        fprintf(out, ",%llu,%.15g,%.15g,,\n", (unsigned long long)c->s.calls, c->s.incl,
                c->s.excl);
    }
    size_t R = f->nranks;
    if (f->has_messages)
        for (size_t a = 0; a < R; a++)
            for (size_t b = 0; b < R; b++)
                if (f->comm_count[a * R + b])
                    fprintf(out, "message,%u,,%u,pair,%llu,,,,%.0f\n", f->ranks[a], f->ranks[b],
                            (unsigned long long)f->comm_count[a * R + b],
                            f->comm_bytes[a * R + b]);
    char note[1024];
    if (vw_damage_note(f, note, sizeof note)) {   /* the table holds what could be read */
        fputs("damage,,,", out);
        vw_csv_name(out, note);
        fputs(",,,,,,\n", out);
    }
    return ferror(out) ? -1 : 0;
}
