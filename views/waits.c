/* waits.c -- wait states (pal-view --waits): the trace is replayed through
 * the event layer (pal_events, one matcher), the communication calls of each
 * rank and thread are kept with their call paths, and at the end every
 * matched message and every complete collective instance is examined for
 * the patterns below (doc/views.md, "Wait states"). Times are ns inside,
 * seconds out.
 *
 *   Late Sender     a blocking receive (or a wait that completes a receive)
 *                   entered before its message's send: send start - receive
 *                   start (at most the receive's duration), the longest
 *                   message per call (a Waitall or Sendrecv counts once)
 *   Late Receiver   a blocking send that ends only after the receive was
 *                   entered: receive start - send start
 *   Wait at Barrier, Wait at NxN   last member's start - own start
 *   Late Broadcast  (one to N: bcast, scatter) root's start - own start,
 *                   for the members other than the root
 *   Early Reduce    (N to one: reduce, gather) first non-root member's
 *                   start - the root's start, on the root
 * Every wait is bounded by the call's own duration. */
#include <config.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "views/escape.h"
#include "views/vw.h"
#include "views/waits.h"

enum { P_LATE_SENDER, P_LATE_RECEIVER, P_WAIT_BARRIER, P_WAIT_NXN, P_LATE_BCAST,
       P_EARLY_REDUCE, P_COUNT };
static const char *const pattern_id[P_COUNT] = {"late_sender",    "late_receiver",
                                                "wait_barrier",   "wait_nxn",
                                                "late_broadcast", "early_reduce"};
static const char *const pattern_title[P_COUNT] = {"Late Sender",    "Late Receiver",
                                                   "Wait at Barrier", "Wait at NxN",
                                                   "Late Broadcast", "Early Reduce"};

#define NO_PATH UINT32_MAX

/* a call path: its innermost region's name under its parent */
typedef struct {
    uint32_t parent;
    char *name;
    size_t len;
} path;

/* a communication call of one rank and thread */
typedef struct {
    int64_t start, end;
    uint32_t path;
    unsigned flags;
    int64_t ls, lr;      /* its Late Sender and Late Receiver wait (the longest) */
} call;

typedef struct {
    uint32_t process, stream;
    uint32_t *stack;     /* call path of each open frame */
    size_t depth, scap;
    call *c;
    size_t n, cap;
} lane;

typedef struct {
    uint32_t sp, ss, rp, rs;
    int64_t st, rt;
} msg;

/* one member's part of a collective */
typedef struct {
    uint64_t ctx, seq;
    uint32_t process, stream, size, path;
    int64_t start, end, root;
    pal_coll_op op;
} part;

/* one (pattern, call path, rank, thread) wait */
typedef struct {
    int pattern;
    uint32_t path, process, stream;
    double seconds;
    uint64_t n;
} wait;

/* (process, context) -> collectives seen so far */
typedef struct {
    uint64_t key_ctx;
    uint32_t process;
    int used;
    uint64_t count;
} seqslot;

typedef struct {
    path *p;
    size_t np, pcap;
    uint32_t *phash;     /* path index + 1, 0 empty */
    size_t phcap;
    lane *l;
    size_t nl, lcap, last_lane;
    msg *m;
    size_t nm, mcap;
    part *c;
    size_t nc, ccap;
    seqslot *seq;
    size_t nseq, seqcap;
    wait *w;
    size_t nw, wcap;
} state;

static int grow(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return 0;
    size_t nc = *cap ? *cap * 2 : 64;
    while (nc < need)
        nc *= 2;
    void *q = realloc(*p, nc * size);
    if (q == NULL)
        return -1;
    *p = q;
    *cap = nc;
    return 0;
}

static uint64_t hash_bytes(uint64_t h, const void *s, size_t n)
{
    const unsigned char *b = s;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

static uint64_t path_hash(uint32_t parent, const char *name, size_t len)
{
    return hash_bytes(hash_bytes(14695981039346656037ull, &parent, sizeof parent), name, len);
}

/* the call path of name under parent, added when new; NO_PATH without memory */
static uint32_t path_get(state *s, uint32_t parent, const char *name, size_t len)
{
    if (s->np * 2 >= s->phcap) {
        size_t nc = s->phcap ? s->phcap * 2 : 256;
        uint32_t *h = calloc(nc, sizeof *h);
        if (h == NULL)
            return NO_PATH;
        for (size_t i = 0; i < s->np; i++) {
            size_t k = path_hash(s->p[i].parent, s->p[i].name, s->p[i].len) & (nc - 1);
            while (h[k])
                k = (k + 1) & (nc - 1);
            h[k] = (uint32_t)i + 1;
        }
        free(s->phash);
        s->phash = h;
        s->phcap = nc;
    }
    size_t k = path_hash(parent, name, len) & (s->phcap - 1);
    for (; s->phash[k]; k = (k + 1) & (s->phcap - 1)) {
        path *p = &s->p[s->phash[k] - 1];
        if (p->parent == parent && p->len == len && memcmp(p->name, name, len) == 0)
            return s->phash[k] - 1;
    }
    if (grow((void **)&s->p, &s->pcap, s->np + 1, sizeof *s->p))
        return NO_PATH;
    char *copy = malloc(len + 1);
    if (copy == NULL)
        return NO_PATH;
    memcpy(copy, name, len);
    copy[len] = 0;
    s->p[s->np] = (path){parent, copy, len};
    s->phash[k] = (uint32_t)s->np + 1;
    return (uint32_t)s->np++;
}

/* the lane of (process, stream); lanes are few (ranks x threads) */
static lane *lane_get(state *s, uint32_t process, uint32_t stream)
{
    size_t last = s->last_lane;
    if (last < s->nl && s->l[last].process == process && s->l[last].stream == stream)
        return &s->l[last];
    for (size_t i = 0; i < s->nl; i++)
        if (s->l[i].process == process && s->l[i].stream == stream)
            return &s->l[s->last_lane = i];
    if (grow((void **)&s->l, &s->lcap, s->nl + 1, sizeof *s->l))
        return NULL;
    memset(&s->l[s->nl], 0, sizeof *s->l);
    s->l[s->nl].process = process;
    s->l[s->nl].stream = stream;
    return &s->l[s->last_lane = s->nl++];
}

static lane *lane_find(state *s, uint32_t process, uint32_t stream)
{
    for (size_t i = 0; i < s->nl; i++)
        if (s->l[i].process == process && s->l[i].stream == stream)
            return &s->l[i];
    return NULL;
}

static size_t seq_hash(uint64_t ctx, uint32_t process)
{
    return (size_t)hash_bytes(hash_bytes(14695981039346656037ull, &ctx, sizeof ctx), &process,
                              sizeof process);
}

/* the sequence number of process's next collective on context ctx */
static int next_seq(state *s, uint32_t process, uint64_t ctx, uint64_t *out)
{
    if (s->nseq * 2 >= s->seqcap) {
        size_t nc = s->seqcap ? s->seqcap * 2 : 64;
        seqslot *t = calloc(nc, sizeof *t);
        if (t == NULL)
            return -1;
        for (size_t i = 0; i < s->seqcap; i++)
            if (s->seq[i].used) {
                size_t k = seq_hash(s->seq[i].key_ctx, s->seq[i].process) & (nc - 1);
                while (t[k].used)
                    k = (k + 1) & (nc - 1);
                t[k] = s->seq[i];
            }
        free(s->seq);
        s->seq = t;
        s->seqcap = nc;
    }
    size_t k = seq_hash(ctx, process) & (s->seqcap - 1);
    for (; s->seq[k].used; k = (k + 1) & (s->seqcap - 1))
        if (s->seq[k].key_ctx == ctx && s->seq[k].process == process) {
            *out = s->seq[k].count++;
            return 0;
        }
    s->seq[k] = (seqslot){ctx, process, 1, 1};
    s->nseq++;
    *out = 0;
    return 0;
}

static int on_event(state *s, pal_events *ev, const pal_event *e)
{
    lane *l;
    switch (e->kind) {
    case PAL_EV_ENTER:
        if ((l = lane_get(s, e->process, e->stream)) == NULL)
            return -1;
        if (l->depth > e->depth)
            l->depth = e->depth;
        {
            uint32_t parent = l->depth ? l->stack[l->depth - 1] : NO_PATH;
            uint32_t p = path_get(s, parent, e->name ? e->name : "?", e->name ? e->name_len : 1);
            if (p == NO_PATH || grow((void **)&l->stack, &l->scap, l->depth + 1, sizeof *l->stack))
                return -1;
            l->stack[l->depth++] = p;
        }
        return 0;
    case PAL_EV_LEAVE:
        if ((l = lane_get(s, e->process, e->stream)) == NULL)
            return -1;
        if (e->flags & (PAL_EVF_COMMUNICATION | PAL_EVF_IDLE | PAL_EVF_COLLECTIVE)) {
            uint32_t p = e->depth < l->depth ? l->stack[e->depth] : NO_PATH;
            if (p == NO_PATH) {
                uint32_t parent = l->depth ? l->stack[l->depth - 1] : NO_PATH;
                p = path_get(s, parent, e->name ? e->name : "?", e->name ? e->name_len : 1);
                if (p == NO_PATH)
                    return -1;
            }
            if (grow((void **)&l->c, &l->cap, l->n + 1, sizeof *l->c))
                return -1;
            l->c[l->n++] = (call){e->start, e->time, p, e->flags, 0, 0};
        }
        if (l->depth > e->depth)
            l->depth = e->depth;
        return 0;
    case PAL_EV_MESSAGE:
        if (grow((void **)&s->m, &s->mcap, s->nm + 1, sizeof *s->m))
            return -1;
        s->m[s->nm++] = (msg){e->send.process, e->send.stream, e->recv.process, e->recv.stream,
                              (int64_t)e->send.time, (int64_t)e->recv.time};
        return 0;
    case PAL_EV_COLLECTIVE: {
        if ((l = lane_get(s, e->process, e->stream)) == NULL)
            return -1;
        uint64_t ctx = (uint64_t)e->comm;
        uint32_t size = 0;
        if (pal_matcher_context(pal_events_matcher(ev), e->process, e->comm, e->comm_flags, &ctx,
                                &size) != PAL_OK)
            ctx = (uint64_t)e->comm, size = 0;
        uint64_t seq;
        if (next_seq(s, e->process, ctx, &seq) ||
            grow((void **)&s->c, &s->ccap, s->nc + 1, sizeof *s->c))
            return -1;
        uint32_t p = l->depth ? l->stack[l->depth - 1] : NO_PATH;
        if (p == NO_PATH && (p = path_get(s, NO_PATH, e->name ? e->name : "?",
                                          e->name ? e->name_len : 1)) == NO_PATH)
            return -1;
        s->c[s->nc++] = (part){ctx, seq, e->process, e->stream, size, p,
                               e->start, e->time, e->root, e->op};
        return 0;
    }
    default:
        return 0;
    }
}

static int by_start(const void *a, const void *b)
{
    const call *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start ? 1 : (x->end > y->end) - (x->end < y->end);
}

/* the call of l that t falls in or, for a completion recorded right after
 * its call, the last one that started at or before t */
static call *call_at(lane *l, int64_t t)
{
    if (l == NULL || l->n == 0 || l->c[0].start > t)
        return NULL;
    size_t lo = 0, hi = l->n;   /* the last start <= t is in [lo, hi) */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (l->c[mid].start <= t)
            lo = mid;
        else
            hi = mid;
    }
    return &l->c[lo];
}

static int add_wait(state *s, int pattern, uint32_t pth, uint32_t process, uint32_t stream,
                    int64_t ns)
{
    if (ns <= 0)
        return 0;
    if (grow((void **)&s->w, &s->wcap, s->nw + 1, sizeof *s->w))
        return -1;
    s->w[s->nw++] = (wait){pattern, pth, process, stream, (double)ns * 1e-9, 1};
    return 0;
}

static int by_instance(const void *a, const void *b)
{
    const part *x = a, *y = b;
    if (x->ctx != y->ctx)
        return x->ctx < y->ctx ? -1 : 1;
    if (x->seq != y->seq)
        return x->seq < y->seq ? -1 : 1;
    return (x->process > y->process) - (x->process < y->process);
}

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

static int collective_waits(state *s, const part *g, size_t n)
{
    if (g[0].size && n != g[0].size)
        return 0;   /* an instance not complete (a run cut short) */
    int pattern = -1;
    switch (g[0].op) {
    case PAL_COLL_BARRIER: pattern = P_WAIT_BARRIER; break;
    case PAL_COLL_ALLGATHER: case PAL_COLL_ALLGATHERV: case PAL_COLL_ALLTOALL:
    case PAL_COLL_ALLTOALLV: case PAL_COLL_ALLTOALLW: case PAL_COLL_ALLREDUCE:
    case PAL_COLL_REDUCE_SCATTER: case PAL_COLL_REDUCE_SCATTER_BLOCK:
        pattern = P_WAIT_NXN;
        break;
    case PAL_COLL_BCAST: case PAL_COLL_SCATTER: case PAL_COLL_SCATTERV:
        pattern = P_LATE_BCAST;
        break;
    case PAL_COLL_REDUCE: case PAL_COLL_GATHER: case PAL_COLL_GATHERV:
        pattern = P_EARLY_REDUCE;
        break;
    default: return 0;   /* scan, exscan: no pattern (each waits for its lower ranks) */
    }
    if (pattern == P_WAIT_BARRIER || pattern == P_WAIT_NXN) {
        int64_t last = g[0].start;
        for (size_t i = 1; i < n; i++)
            if (g[i].start > last)
                last = g[i].start;
        for (size_t i = 0; i < n; i++)
            if (add_wait(s, pattern, g[i].path, g[i].process, g[i].stream,
                         min64(last, g[i].end) - g[i].start))
                return -1;
        return 0;
    }
    const part *root = NULL;
    for (size_t i = 0; i < n; i++)
        if (g[i].root >= 0 && g[i].process == (uint32_t)g[i].root)
            root = &g[i];
    if (root == NULL || n < 2)
        return 0;
    if (pattern == P_LATE_BCAST) {
        for (size_t i = 0; i < n; i++)
            if (&g[i] != root &&
                add_wait(s, pattern, g[i].path, g[i].process, g[i].stream,
                         min64(root->start, g[i].end) - g[i].start))
                return -1;
        return 0;
    }
    int64_t first = INT64_MAX;
    for (size_t i = 0; i < n; i++)
        if (&g[i] != root && g[i].start < first)
            first = g[i].start;
    return add_wait(s, pattern, root->path, root->process, root->stream,
                    min64(first, root->end) - root->start);
}

static int analyse(state *s)
{
    for (size_t i = 0; i < s->nl; i++)
        qsort(s->l[i].c, s->l[i].n, sizeof *s->l[i].c, by_start);
    for (size_t i = 0; i < s->nm; i++) {
        const msg *m = &s->m[i];
        call *r = call_at(lane_find(s, m->rp, m->rs), m->rt);
        call *snd = call_at(lane_find(s, m->sp, m->ss), m->st);
        /* Late Sender: the receive waited for the send to start */
        if (r && (r->flags & PAL_EVF_IDLE) && r->start < m->st) {
            int64_t w = min64(m->st, r->end) - r->start;
            if (w > r->ls)
                r->ls = w;
        }
        /* Late Receiver: a blocking send (its call starts the message) that
         * ends only after the blocking receive (which the message ends)
         * was entered */
        if (snd && r && snd->start == m->st && m->rt <= r->end && r->start > m->st &&
            snd->end > r->start) {
            int64_t w = r->start - m->st;
            if (w > snd->lr)
                snd->lr = w;
        }
    }
    for (size_t i = 0; i < s->nl; i++) {
        lane *l = &s->l[i];
        for (size_t k = 0; k < l->n; k++)
            if (add_wait(s, P_LATE_SENDER, l->c[k].path, l->process, l->stream, l->c[k].ls) ||
                add_wait(s, P_LATE_RECEIVER, l->c[k].path, l->process, l->stream, l->c[k].lr))
                return -1;
    }
    qsort(s->c, s->nc, sizeof *s->c, by_instance);
    for (size_t i = 0, j; i < s->nc; i = j) {
        for (j = i + 1; j < s->nc && s->c[j].ctx == s->c[i].ctx && s->c[j].seq == s->c[i].seq; j++)
            ;
        if (collective_waits(s, &s->c[i], j - i))
            return -1;
    }
    return 0;
}

static const state *sort_state;

/* a path's text, outermost first, "/" between the regions */
static size_t path_text(const state *s, uint32_t p, char *buf, size_t size)
{
    if (p == NO_PATH) {
        if (size)
            buf[0] = 0;
        return 0;
    }
    size_t n = path_text(s, s->p[p].parent, buf, size);
    if (s->p[p].parent != NO_PATH && n + 1 < size)
        buf[n++] = '/';
    for (size_t i = 0; i < s->p[p].len && n + 1 < size; i++)
        buf[n++] = s->p[p].name[i];
    if (size)
        buf[n < size ? n : size - 1] = 0;
    return n;
}

static int by_key(const void *a, const void *b)
{
    const wait *x = a, *y = b;
    if (x->pattern != y->pattern)
        return x->pattern - y->pattern;
    if (x->path != y->path) {
        char px[1024], py[1024];
        path_text(sort_state, x->path, px, sizeof px);
        path_text(sort_state, y->path, py, sizeof py);
        int c = strcmp(px, py);
        if (c)
            return c;
        return x->path < y->path ? -1 : 1;
    }
    if (x->process != y->process)
        return x->process < y->process ? -1 : 1;
    return (x->stream > y->stream) - (x->stream < y->stream);
}

/* sorts the waits and merges those of one (pattern, path, rank, thread) */
static void merge_waits(state *s)
{
    sort_state = s;
    qsort(s->w, s->nw, sizeof *s->w, by_key);
    size_t o = 0;
    for (size_t i = 0; i < s->nw; i++) {
        if (o && s->w[o - 1].pattern == s->w[i].pattern && s->w[o - 1].path == s->w[i].path &&
            s->w[o - 1].process == s->w[i].process && s->w[o - 1].stream == s->w[i].stream) {
            s->w[o - 1].seconds += s->w[i].seconds;
            s->w[o - 1].n += s->w[i].n;
        } else {
            s->w[o++] = s->w[i];
        }
    }
    s->nw = o;
}

static void write_text(const state *s, FILE *out)
{
    double tot[P_COUNT] = {0};
    uint64_t cnt[P_COUNT] = {0};
    for (size_t i = 0; i < s->nw; i++) {
        tot[s->w[i].pattern] += s->w[i].seconds;
        cnt[s->w[i].pattern] += s->w[i].n;
    }
    fputs("Wait states (seconds of waiting, by pattern)\n", out);
    fprintf(out, "  %-16s %14s %10s\n", "pattern", "seconds", "instances");
    for (int p = 0; p < P_COUNT; p++)
        fprintf(out, "  %-16s %14.6f %10llu\n", pattern_id[p], tot[p], (unsigned long long)cnt[p]);
    fputs("\nWait states per call path, rank and thread\n", out);
    fprintf(out, "  %-16s %6s %6s %14s %10s  %s\n", "pattern", "rank", "thread", "seconds",
            "instances", "call path");
    for (size_t i = 0; i < s->nw; i++) {
        char buf[1024];
        path_text(s, s->w[i].path, buf, sizeof buf);
        fprintf(out, "  %-16s %6u %6u %14.6f %10llu  ", pattern_id[s->w[i].pattern],
                s->w[i].process, s->w[i].stream, s->w[i].seconds,
                (unsigned long long)s->w[i].n);
        fputs(buf, out);
        fputc('\n', out);
    }
    fputs("\npatterns: ", out);
    for (int p = 0; p < P_COUNT; p++)
        fprintf(out, "%s%s = %s", p ? ", " : "", pattern_id[p], pattern_title[p]);
    fputs(" (doc/views.md, \"Wait states\")\n", out);
}

static void write_csv(const state *s, FILE *out)
{
    fputs("pattern,rank,thread,call_path,seconds,instances\n", out);
    for (size_t i = 0; i < s->nw; i++) {
        char buf[1024];
        path_text(s, s->w[i].path, buf, sizeof buf);
        fprintf(out, "%s,%u,%u,", pattern_id[s->w[i].pattern], s->w[i].process, s->w[i].stream);
        vw_csv_name(out, buf);
        fprintf(out, ",%.9f,%llu\n", s->w[i].seconds, (unsigned long long)s->w[i].n);
    }
}

static void write_json(const state *s, FILE *out)
{
    fputs("{\"waits\":[", out);
    for (size_t i = 0; i < s->nw; i++) {
        char buf[1024];
        path_text(s, s->w[i].path, buf, sizeof buf);
        fprintf(out, "%s\n{\"pattern\":\"%s\",\"rank\":%u,\"thread\":%u,\"call_path\":",
                i ? "," : "", pattern_id[s->w[i].pattern], s->w[i].process, s->w[i].stream);
        vw_json_string(out, buf);
        fprintf(out, ",\"seconds\":%.9f,\"instances\":%llu}", s->w[i].seconds,
                (unsigned long long)s->w[i].n);
    }
    fputs("]}\n", out);
}

static void state_free(state *s)
{
    for (size_t i = 0; i < s->np; i++)
        free(s->p[i].name);
    for (size_t i = 0; i < s->nl; i++) {
        free(s->l[i].stack);
        free(s->l[i].c);
    }
    free(s->p);
    free(s->phash);
    free(s->l);
    free(s->m);
    free(s->c);
    free(s->seq);
    free(s->w);
}

int vw_waits_run(const char *const *paths, size_t n, const char *dict_path, int form, FILE *out)
{
    pal_reader *rd = NULL;
    if (pal_reader_open_run(paths, n, dict_path, 0, &rd) != PAL_OK) {
        fprintf(stderr, "pal-view: %s\n", pal_last_error());
        return -1;
    }
    pal_events *ev = NULL;
    if (pal_events_create(rd, &ev) != PAL_OK) {
        fprintf(stderr, "pal-view: --waits: out of memory\n");
        pal_reader_close(rd);
        return -1;
    }
    state s;
    memset(&s, 0, sizeof s);
    const pal_event *e;
    pal_status st;
    int rc = 0;
    while ((st = pal_events_next(ev, &e)) == PAL_OK)
        if ((rc = on_event(&s, ev, e)) != 0)
            break;
    if (rc == 0 && st != PAL_END) {
        fprintf(stderr, "pal-view: %s: %s\n", paths[0], pal_reader_error(rd));
        rc = -1;
    }
    if (rc == 0 && (rc = analyse(&s)) == 0) {
        merge_waits(&s);
        if (form == VW_WAITS_CSV)
            write_csv(&s, out);
        else if (form == VW_WAITS_JSON)
            write_json(&s, out);
        else
            write_text(&s, out);
    } else if (rc) {
        if (st == PAL_OK || st == PAL_END)
            fprintf(stderr, "pal-view: --waits: out of memory\n");
    }
    pal_events_destroy(ev);
    pal_reader_close(rd);
    state_free(&s);
    return rc;
}
