/* waits.c -- wait states (pal-view --waits): an analysis of pal-view's
 * manager (views/an.h, vw_an_waits), fed the event layer's events (one
 * matcher) in the one pass every analysis shares. The communication calls
 * of each rank and thread are kept with their call paths (with -j, per
 * share, then merged), and at the end every matched message and every
 * complete collective instance is examined for the patterns below
 * (doc/views.md, "Wait states"; doc/diagnosis.md). Times are ns inside,
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
 * A nonblocking collective's member arrives at its call (MPI_Iallreduce)
 * and waits in the call that completes its request (MPI_Wait, Waitall,
 * Test...), for the same patterns. From the RMA events (doc/diagnosis.md):
 *   Wait at Fence   MPI_Win_fence as a barrier over the window's group
 *   Late Post       an origin's MPI_Win_start/complete: target's post - own
 *   Early Wait      a target's MPI_Win_wait: last origin's complete - own
 *                   (polling MPI_Win_test: from its first test)
 *   Lock Contention MPI_Win_lock or MPI_Win_unlock (as the library blocks)
 *                   of a passive target epoch: until another epoch that
 *                   held a conflicting lock of the target released it
 *   Wait at Thread Barrier   the threads of a rank in one barrier region
 *                   (OpenMP's, through OMPT): last thread's start - own
 * Every wait is bounded by the call's own duration. From the same replay:
 * the direct causes of each wait (the late side's extra time per call path
 * since its last synchronisation), the load imbalance per call path, the
 * critical path (backwards from the end through each wait to its late
 * side), and the what-if replay (forwards: each call's own time, each wait
 * re-resolved against its late side under a model: scaled regions, an
 * ideal or a LogGP-style network measured from the trace). */
#include <config.h>

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "views/an.h"
#include "views/escape.h"
#include "views/waits.h"

enum { P_LATE_SENDER, P_LATE_RECEIVER, P_WAIT_BARRIER, P_WAIT_NXN, P_LATE_BCAST,
       P_EARLY_REDUCE, P_WAIT_FENCE, P_LATE_POST, P_EARLY_WAIT, P_THREAD_BARRIER,
       P_LOCK_CONTENTION, P_IO, P_COUNT };
static const char *const pattern_id[P_COUNT] = {
    "late_sender",  "late_receiver", "wait_barrier", "wait_nxn",  "late_broadcast",
    "early_reduce", "wait_fence",    "late_post",    "early_wait", "thread_barrier",
    "lock_contention", "io"};
static const char *const pattern_title[P_COUNT] = {
    "Late Sender",  "Late Receiver", "Wait at Barrier", "Wait at NxN", "Late Broadcast",
    "Early Reduce", "Wait at Fence", "Late Post",       "Early Wait",
    "Wait at Thread Barrier (OpenMP)", "Lock Contention", "Time in I/O"};

#define NO_PATH UINT32_MAX
#define PATH_CACHE 1024
#define NO_CAUSE (UINT32_MAX - 1)   /* a wait with no direct delay found */
#define FR_COMM 0x80000000u         /* a frame of the stack is a call of MPI (or set-up) */
#define FR_PATH(x) ((x) == NO_PATH ? NO_PATH : (x) & ~FR_COMM)
#define CALL_FLAGS (PAL_EVF_COMMUNICATION | PAL_EVF_IDLE | PAL_EVF_COLLECTIVE | PAL_EVF_SETUP)

/* a call path: its innermost region's name under its parent */
typedef struct {
    uint32_t parent;
    char *name;
    size_t len;
    okey first;          /* where first seen: paths are numbered in this order */
} path;

/* a communication call of one rank and thread (64 bytes: a run's calls
 * are most of what the analysis keeps) */
typedef struct {
    int64_t start, end;
    uint32_t path;
    unsigned flags;      /* PAL_EVF_*, CALL_RECEIVED */
    int64_t cw;          /* its longest wait of any pattern, and that wait's late side */
    int64_t ct;
    uint64_t rbytes;     /* its largest message received, or its collective's bytes */
    uint32_t clane;
    uint32_t grp;        /* a barrier or N x N instance's: its index in groups + 1 */
    uint32_t late;       /* its Late Sender / Receiver waits: index in the state's + 1 */
} call;

/* a call's Late Sender and Late Receiver wait (the longest message of
 * each), the late side's start and lane; apart from the calls, as few of
 * them wait for a message */
typedef struct {
    int64_t ls, lr;
    int64_t ls_late, lr_late;
    uint32_t ls_lane, lr_lane;
} lwait;
#define CALL_RECEIVED 0x40000000u   /* it received a message */

/* a member of a barrier or N x N instance: lane and call index */
typedef struct {
    size_t lane, call;
} member;

/* time of one lane outside calls of MPI, by innermost region (NO_PATH:
 * outside every region) */
typedef struct {
    int64_t t0, t1;
    uint32_t path;
} seg;

typedef struct {
    uint32_t process, stream;
    uint32_t *stack;     /* call path of each open frame (| FR_COMM) */
    size_t depth, scap;
    call *c;
    size_t n, cap;
    seg *sg;
    size_t nsg, sgcap;
    size_t hint;         /* call_at's last answer */
    size_t sghint;       /* seg_from's */
    int64_t t;           /* the last enter or leave */
    int have_t;
    int unsorted;        /* a call began before the one recorded before it */
    okey first;          /* where first seen: lanes are put in this order */
} wlane;

typedef struct {
    uint32_t sp, ss, rp, rs;
    int64_t st, rt;
    uint64_t bytes;
    uint64_t su, ru;     /* each end's record's place in its thread */
} msg;

/* one member's part of a collective: it arrives at start (its call); it
 * waits from ws to we, in its call or, for a nonblocking collective (nb),
 * in the call that completes its request (found once the calls are known;
 * path is that call's) */
typedef struct {
    uint64_t ctx, seq;
    uint32_t process, stream, size, path;
    int64_t start, end, root, ws, we;
    pal_coll_op op;
    int nb;
    int pattern;         /* a fence's (P_WAIT_FENCE); -1: the operation's */
    uint64_t bytes;
    uint64_t k;          /* when it was kept: a lane's parts in their order */
} part;

/* a one-sided operation or synchronisation (the event layer's RMA event) */
typedef struct {
    uint32_t process, stream;
    int64_t t, window, peer;
    pal_rma_kind kind;
    int lock;            /* PAL_RMA_LOCK: 1 exclusive, 2 shared, 0 not known */
    uint64_t k;          /* when it was kept: a lane's operations in their order */
} rmaop;

/* an epoch of general active target synchronisation: an access epoch
 * (origin: MPI_Win_start .. MPI_Win_complete, its targets those of its
 * operations) or an exposure epoch (target: MPI_Win_post .. MPI_Win_wait) */
typedef struct {
    size_t lane, open, close;   /* lane, and the calls that open and close it */
    int64_t window;
    int access;
} epoch;

/* one (pattern, call path, rank, thread) wait (table 0) or cause of
 * waits: call path of the late side's extra time, late rank and thread
 * (table 1) */
typedef struct {
    int table;
    int pattern;
    uint32_t path, process, stream;
    double seconds;
    uint64_t n;
    double worst;        /* the longest wait (table 0), and its call's start */
    int64_t worst_at;
} wait;

typedef struct vw_waits {
    path *p;
    size_t np, pcap;
    uint32_t *phash;     /* path index + 1, 0 empty */
    size_t phcap;
    wlane *l;
    size_t nl, lcap, last_lane;
    size_t *lhash;       /* lane index + 1, 0 empty */
    size_t lhcap;
    msg *m;
    size_t nm, mcap;
    part *c;
    size_t nc, ccap;
    wait *w;
    size_t nw, wcap;
    uint32_t *whash;     /* wait index + 1, 0 empty */
    size_t whcap, wlast; /* ... and the row wait_add added to last */
    double *acc;         /* per path + 1: a delay being summed */
    unsigned char *mark; /* per path + 1: in touched */
    uint32_t *touched;
    size_t ntouched;
    struct path_cache {
        const char *name;
        size_t len;
        uint32_t parent, path;
    } pcache[PATH_CACHE];
    rmaop *rma;
    size_t nrma, rmacap;
    struct win {         /* windows: id -> the size of their group */
        int64_t id;
        uint32_t size;
        okey first;
    } *win;
    size_t nwin, wincap;
    member *gm;          /* the members of each group, group after group */
    size_t ngm, gmcap;
    size_t *gfirst;      /* group g: members gm[gfirst[g] .. gfirst[g + 1]) */
    size_t ng, gcap;
    double cp_len;       /* the critical path: seconds, per path + 1, per wlane */
    double *cp_path, *cp_lane;
    int64_t cp_from, cp_to;
    struct imbalance {
        uint32_t path, max_rank;
        double mean, max;
    } *imb;
    size_t nimb;
    double net_L, net_G;   /* the network measured: ns, ns per byte; from net_n messages */
    size_t net_n;
    int64_t origin;        /* the run's start (ns), as the manager's: times out are from it */
    int thread_waits;      /* a waiting call that is no MPI call was seen */
    lwait *lt;             /* the calls' Late Sender and Receiver waits */
    size_t nlt, ltcap;
    okey cur;              /* the record being read (vw_run's) */
    size_t *lmap;          /* while reading: the manager's lane index -> lane + 1 */
    size_t nlmap;
    uint32_t *npath;       /* ... its call-tree node -> path + 1 (path_at) */
    size_t nnpath;
    const pal_recdesc *io_desc;   /* is_io's last record type, and its answer */
    int io_how;
    uint64_t nkept;        /* parts and operations kept so far */
    int failed;            /* out of memory in finish: the tables are not made */
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
static uint32_t path_find(state *s, uint32_t parent, const char *name, size_t len)
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
    s->p[s->np] = (path){parent, copy, len, s->cur};
    s->phash[k] = (uint32_t)s->np + 1;
    return (uint32_t)s->np++;
}

/* the lane of (process, stream); lanes are few (ranks x threads) */
static size_t lane_hash(uint32_t process, uint32_t stream)
{
    return (size_t)(((uint64_t)process * 2654435761u) ^ ((uint64_t)stream * 40503u));
}

/* the index + 1 of the lane of (process, stream) in the hash, or the slot
 * where it would go */
static size_t *lane_slot(const state *s, uint32_t process, uint32_t stream)
{
    size_t k = lane_hash(process, stream) & (s->lhcap - 1);
    for (; s->lhash[k]; k = (k + 1) & (s->lhcap - 1)) {
        const wlane *l = &s->l[s->lhash[k] - 1];
        if (l->process == process && l->stream == stream)
            break;
    }
    return &s->lhash[k];
}

/* the lane of (process, stream), made when new */
static wlane *lane_get(state *s, uint32_t process, uint32_t stream)
{
    size_t last = s->last_lane;
    if (last < s->nl && s->l[last].process == process && s->l[last].stream == stream)
        return &s->l[last];
    if (s->nl * 2 >= s->lhcap) {
        size_t nc = s->lhcap ? s->lhcap * 2 : 64;
        size_t *h = calloc(nc, sizeof *h);
        if (h == NULL)
            return NULL;
        free(s->lhash);
        s->lhash = h;
        s->lhcap = nc;
        for (size_t i = 0; i < s->nl; i++)
            *lane_slot(s, s->l[i].process, s->l[i].stream) = i + 1;
    }
    size_t *slot = lane_slot(s, process, stream);
    if (*slot)
        return &s->l[s->last_lane = *slot - 1];
    if (grow((void **)&s->l, &s->lcap, s->nl + 1, sizeof *s->l))
        return NULL;
    memset(&s->l[s->nl], 0, sizeof *s->l);
    s->l[s->nl].process = process;
    s->l[s->nl].stream = stream;
    s->l[s->nl].first = s->cur;
    *slot = s->nl + 1;
    return &s->l[s->last_lane = s->nl++];
}

static wlane *lane_find(state *s, uint32_t process, uint32_t stream)
{
    if (s->lhcap == 0)
        return NULL;
    size_t *slot = lane_slot(s, process, stream);
    return *slot ? &s->l[*slot - 1] : NULL;
}

/* the time since l's last enter or leave belongs to its innermost frame */
/* path_find through a cache by the name's address: the event layer keeps
 * one string per region until the next definition, so an address seen
 * again is most often the same region (the text is still compared) */
static uint32_t path_get(state *s, uint32_t parent, const char *name, size_t len)
{
    uintptr_t a = (uintptr_t)name;
    size_t k = (size_t)((a >> 3) ^ (a >> 13) ^ parent * 2654435761u) & (PATH_CACHE - 1);
    struct path_cache *c = &s->pcache[k];
    if (c->name == name && c->len == len && c->parent == parent && c->path < s->np &&
        s->p[c->path].parent == parent && memcmp(s->p[c->path].name, name, len) == 0)
        return c->path;
    uint32_t p = path_find(s, parent, name, len);
    if (p != NO_PATH)
        *c = (struct path_cache){name, len, parent, p};
    return p;
}

static int seg_close(wlane *l, int64_t t)
{
    if (l->have_t && t > l->t) {
        uint32_t top = l->depth ? l->stack[l->depth - 1] : NO_PATH;
        if (top == NO_PATH || !(top & FR_COMM)) {
            uint32_t p = FR_PATH(top);
            /* one stretch goes on, unless a call (of no duration) came between */
            if (l->nsg && l->sg[l->nsg - 1].path == p && l->sg[l->nsg - 1].t1 == l->t &&
                !(l->n && l->c[l->n - 1].end == l->t)) {
                l->sg[l->nsg - 1].t1 = t;
            } else {
                if (grow((void **)&l->sg, &l->sgcap, l->nsg + 1, sizeof *l->sg))
                    return -1;
                l->sg[l->nsg++] = (seg){l->t, t, p};
            }
        }
    }
    if (!l->have_t || t > l->t)
        l->t = t;
    l->have_t = 1;
    return 0;
}

/* A collective whose description gives no OPERATION IS: its operation
 * from its region's name ("MPI_Allreduce", "allreduce") */
static pal_coll_op op_of_name(const pal_event *e)
{
    char buf[64];
    const char *n = e->name;
    size_t len = e->name ? e->name_len : 0;
    if (len > 4 && (strncmp(n, "MPI_", 4) == 0 || strncmp(n, "mpi_", 4) == 0))
        n += 4, len -= 4;
    if (len == 0 || len >= sizeof buf)
        return PAL_COLL_OP_NONE;
    for (size_t i = 0; i < len; i++)
        buf[i] = (char)(n[i] >= 'A' && n[i] <= 'Z' ? n[i] - 'A' + 'a' : n[i]);
    buf[len] = 0;
    return pal_coll_op_by_name(buf);
}

static int by_start(const void *a, const void *b);
static int add_wait(state *s, int pattern, uint32_t pth, uint32_t process, uint32_t stream,
                    int64_t ns, int64_t at);

/* the lane of an enter or leave: through the manager's lane index */
static wlane *lane_at(state *s, const pal_event *e, const vw_at *at)
{
    if (at->lane < 0)
        return lane_get(s, e->process, e->stream);
    size_t i = (size_t)at->lane;
    if (i < s->nlmap && s->lmap[i])
        return &s->l[s->lmap[i] - 1];
    wlane *l = lane_get(s, e->process, e->stream);
    size_t *m = l ? vw_grow_index(s->lmap, &s->nlmap, i, sizeof *m, 16) : NULL;
    if (m == NULL)
        return NULL;
    s->lmap = m;
    m[i] = (size_t)(l - s->l) + 1;
    return l;
}

/* the path of name under parent for the manager's call-tree node: the
 * path last found for the node when its parent is the same (then so is
 * the name: a node is a region under its parent) */
static uint32_t path_at(state *s, uint32_t parent, const pal_event *e, const vw_at *at)
{
    long nd = at->fr ? at->fr->node : -1;
    if (nd >= 0 && (size_t)nd < s->nnpath && s->npath[nd] &&
        s->p[s->npath[nd] - 1].parent == parent)
        return s->npath[nd] - 1;
    uint32_t p = path_get(s, parent, e->name ? e->name : "?", e->name ? e->name_len : 1);
    if (p != NO_PATH && nd >= 0) {
        uint32_t *m = vw_grow_index(s->npath, &s->nnpath, (size_t)nd, sizeof *m, 64);
        if (m == NULL)
            return NO_PATH;
        s->npath = m;
        m[nd] = p + 1;
    }
    return p;
}

/* whether rec has the role io: its type's answer kept for the next record
 * of the same type (most have none) */
static int is_io(state *s, const pal_record *rec)
{
    const pal_recdesc *d = pal_record_desc(rec);
    if (d != s->io_desc) {
        s->io_desc = d;
        s->io_how = pal_recdesc_has_role(d, PAL_ROLE_IO);
    }
    return s->io_how == 1 || (s->io_how == 2 && pal_record_has_role(rec, PAL_ROLE_IO) == 1);
}

static int on_event(state *s, const pal_matcher *mt, const pal_event *e, const vw_at *at)
{
    wlane *l;
    switch (e->kind) {
    case PAL_EV_ENTER:
        if ((l = lane_at(s, e, at)) == NULL || seg_close(l, e->time))
            return -1;
        if (l->depth > e->depth)
            l->depth = e->depth;
        {
            uint32_t parent = l->depth ? FR_PATH(l->stack[l->depth - 1]) : NO_PATH;
            uint32_t p = path_at(s, parent, e, at);
            if (p == NO_PATH || grow((void **)&l->stack, &l->scap, l->depth + 1, sizeof *l->stack))
                return -1;
            l->stack[l->depth++] = p | (e->flags & CALL_FLAGS ? FR_COMM : 0);
        }
        return 0;
    case PAL_EV_LEAVE: {
        if ((l = lane_at(s, e, at)) == NULL || seg_close(l, e->time))
            return -1;
        /* time in I/O: a region whose record has the role io (doc/edl.md) */
        int io = e->record && !(e->flags & PAL_EVF_UNMATCHED) && is_io(s, e->record);
        uint32_t p = NO_PATH;
        if ((e->flags & CALL_FLAGS) || io) {
            p = e->depth < l->depth ? FR_PATH(l->stack[e->depth]) : NO_PATH;
            if (p == NO_PATH) {
                uint32_t parent = l->depth ? FR_PATH(l->stack[l->depth - 1]) : NO_PATH;
                p = path_get(s, parent, e->name ? e->name : "?", e->name ? e->name_len : 1);
                if (p == NO_PATH)
                    return -1;
            }
        }
        if (io && add_wait(s, P_IO, p, e->process, e->stream, e->time - e->start, e->start))
            return -1;
        if (e->flags & CALL_FLAGS) {
            if (grow((void **)&l->c, &l->cap, l->n + 1, sizeof *l->c))
                return -1;
            memset(&l->c[l->n], 0, sizeof *l->c);
            l->c[l->n].start = e->start;
            l->c[l->n].end = e->time;
            l->c[l->n].path = p;
            l->c[l->n++].flags = e->flags;
            if (l->n > 1 && by_start(&l->c[l->n - 2], &l->c[l->n - 1]) > 0)
                l->unsorted = 1;   /* nested calls leave before their outer one */
            if ((e->flags & PAL_EVF_IDLE) && !(e->flags & PAL_EVF_COMMUNICATION))
                s->thread_waits = 1;
        }
        if (l->depth > e->depth)
            l->depth = e->depth;
        return 0;
    }
    case PAL_EV_MESSAGE:
        if (grow((void **)&s->m, &s->mcap, s->nm + 1, sizeof *s->m))
            return -1;
        s->m[s->nm++] = (msg){e->send.process, e->send.stream, e->recv.process, e->recv.stream,
                              (int64_t)e->send.time, (int64_t)e->recv.time,
                              e->send.bytes > e->recv.bytes ? e->send.bytes : e->recv.bytes,
                              e->send.user, e->recv.user};
        return 0;
    case PAL_EV_COLLECTIVE: {
        if ((l = lane_get(s, e->process, e->stream)) == NULL)
            return -1;
        uint64_t ctx = (uint64_t)e->comm;
        uint32_t size = 0;
        if (pal_matcher_context(mt, e->process, e->comm, e->comm_flags, &ctx, &size) != PAL_OK)
            ctx = (uint64_t)e->comm, size = 0;
        if (grow((void **)&s->c, &s->ccap, s->nc + 1, sizeof *s->c))
            return -1;
        int nb = (e->flags & PAL_EVF_NONBLOCKING) != 0;
        uint32_t p = NO_PATH;   /* a nonblocking one's: its completion's call, later */
        if (!nb && (p = l->depth ? FR_PATH(l->stack[l->depth - 1]) : NO_PATH) == NO_PATH &&
            (p = path_get(s, NO_PATH, e->name ? e->name : "?", e->name ? e->name_len : 1)) ==
                NO_PATH)
            return -1;
        s->c[s->nc++] = (part){ctx, 0, e->process, e->stream, size, p,
                               e->start, e->time, e->root, e->start, e->time,
                               e->op == PAL_COLL_OP_NONE ? op_of_name(e) : e->op, nb, -1,
                               e->bytes, s->nkept++};
        if (nb && (e->flags & PAL_EVF_UNMATCHED))
            s->c[s->nc - 1].ws = e->time;   /* its completion not seen: no wait */
        return 0;
    }
    case PAL_EV_RMA:
        if (e->rma == PAL_RMA_WIN_CREATE) {
            uint64_t ctx;
            uint32_t size = 0;
            if (pal_matcher_context(mt, e->process, e->comm, e->comm_flags, &ctx, &size) != PAL_OK)
                size = 0;
            if (grow((void **)&s->win, &s->wincap, s->nwin + 1, sizeof *s->win))
                return -1;
            s->win[s->nwin++] = (struct win){e->window, size, s->cur};
            return 0;
        }
        if (grow((void **)&s->rma, &s->rmacap, s->nrma + 1, sizeof *s->rma))
            return -1;
        s->rma[s->nrma++] = (rmaop){e->process, e->stream, e->time, e->window, e->peer, e->rma, 0,
                                    s->nkept++};
        if (e->rma == PAL_RMA_LOCK) {
            /* a lock of all targets (no lock type: MPI_Win_lock_all) is
             * shared; the lock type is the field with role lock_type */
            int64_t v = 0;
            const pal_fielddesc *f =
                e->record ? pal_recdesc_role_field(pal_record_desc(e->record), PAL_FROLE_LOCK_TYPE)
                          : NULL;
            if (f && pal_record_get_i64(e->record, pal_field_name(f), &v) == PAL_OK)
                s->rma[s->nrma - 1].lock = v == 1 || v == 2 ? (int)v : 0;
            else if (e->peer < 0)
                s->rma[s->nrma - 1].lock = 2;
        }
        return 0;
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
static call *call_at(wlane *l, int64_t t)
{
    if (l == NULL || l->n == 0 || l->c[0].start > t)
        return NULL;
    /* the lookups come mostly in time order: gallop from the last answer */
    size_t lo = 0, hi = l->n;   /* the last start <= t is in [lo, hi) */
    size_t h = l->hint < l->n ? l->hint : 0, step = 1;
    if (l->c[h].start <= t) {
        lo = h;
        while (lo + step < l->n && l->c[lo + step].start <= t) {
            lo += step;
            step *= 2;
        }
        if (lo + step < hi)
            hi = lo + step;
    } else {
        hi = h;
        while (hi >= step && l->c[hi - step].start > t) {
            hi -= step;
            step *= 2;
        }
        lo = hi >= step ? hi - step : 0;
    }
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (l->c[mid].start <= t)
            lo = mid;
        else
            hi = mid;
    }
    l->hint = lo;
    return &l->c[lo];
}

static size_t wait_hash(int table, int pattern, uint32_t pth, uint32_t process,
                        uint32_t stream)
{
    uint32_t k[5] = {(uint32_t)table, (uint32_t)pattern, pth, process, stream};
    return (size_t)hash_bytes(14695981039346656037ull, k, sizeof k);
}

/* adds seconds to the row (table, pattern, path, rank, thread), one more
 * waiting call */
static int wait_add(state *s, int table, int pattern, uint32_t pth, uint32_t process,
                    uint32_t stream, double seconds)
{
    if (s->nw * 2 >= s->whcap) {
        size_t nc = s->whcap ? s->whcap * 2 : 256;
        uint32_t *h = calloc(nc, sizeof *h);
        if (h == NULL)
            return -1;
        for (size_t i = 0; i < s->nw; i++) {
            const wait *x = &s->w[i];
            size_t k = wait_hash(x->table, x->pattern, x->path, x->process, x->stream) & (nc - 1);
            while (h[k])
                k = (k + 1) & (nc - 1);
            h[k] = (uint32_t)i + 1;
        }
        free(s->whash);
        s->whash = h;
        s->whcap = nc;
    }
    size_t k = wait_hash(table, pattern, pth, process, stream) & (s->whcap - 1);
    for (; s->whash[k]; k = (k + 1) & (s->whcap - 1)) {
        wait *x = &s->w[s->whash[k] - 1];
        if (x->table == table && x->pattern == pattern && x->path == pth &&
            x->process == process && x->stream == stream) {
            x->seconds += seconds;
            x->n++;
            s->wlast = (size_t)(x - s->w);
            return 0;
        }
    }
    if (grow((void **)&s->w, &s->wcap, s->nw + 1, sizeof *s->w))
        return -1;
    s->w[s->nw] = (wait){table, pattern, pth, process, stream, seconds, 1, 0, 0};
    s->wlast = s->nw;
    s->whash[k] = (uint32_t)++s->nw;
    return 0;
}

/* a wait of ns in the call that started at `at` */
static int add_wait(state *s, int pattern, uint32_t pth, uint32_t process, uint32_t stream,
                    int64_t ns, int64_t at)
{
    if (ns <= 0 || wait_add(s, 0, pattern, pth, process, stream, (double)ns * 1e-9))
        return ns <= 0 ? 0 : -1;
    wait *x = &s->w[s->wlast];
    if ((double)ns * 1e-9 > x->worst) {
        x->worst = (double)ns * 1e-9;
        x->worst_at = at;
    }
    return 0;
}

/* the end of l's last call that ended at or before t (the last
 * synchronisation), else l's first time */
static int64_t sync_walk(const wlane *l, const call *c, int64_t t)
{
    while (c && c->end > t)
        c = c > l->c ? c - 1 : NULL;
    if (c)
        return c->end;
    return l->nsg ? l->sg[0].t0 : t;
}

static int64_t sync_before(const wlane *l, int64_t t)
{
    return sync_walk(l, call_at((wlane *)l, t), t);
}

/* the first segment of l that ends after a; the lookups come mostly in
 * time order: gallop from the last answer */
static size_t seg_from(wlane *l, int64_t a)
{
    size_t n = l->nsg, h = l->sghint <= n ? l->sghint : 0, lo, hi, step = 1;
    if (h < n && l->sg[h].t1 <= a) {   /* after h */
        lo = hi = h + 1;
        while (hi < n && l->sg[hi].t1 <= a) {
            lo = hi + 1;
            hi = lo + step < n ? lo + step : n;
            step *= 2;
        }
    } else {   /* at or before h */
        lo = hi = h;
        while (lo > 0 && l->sg[lo - 1].t1 > a) {
            hi = lo - 1;
            lo = hi > step ? hi - step : 0;
            step *= 2;
        }
    }
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (l->sg[mid].t1 <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    l->sghint = lo;
    return lo;
}

/* adds sign x the time l spent per call path in [a, b) to s->acc */
static void tally(state *s, const wlane *l, int64_t a, int64_t b, double sign)
{
    size_t lo = seg_from((wlane *)l, a);
    for (size_t i = lo; i < l->nsg && l->sg[i].t0 < b; i++) {
        int64_t t0 = l->sg[i].t0 > a ? l->sg[i].t0 : a, t1 = l->sg[i].t1 < b ? l->sg[i].t1 : b;
        if (t1 <= t0)
            continue;
        size_t k = l->sg[i].path == NO_PATH ? 0 : (size_t)l->sg[i].path + 1;
        if (!s->mark[k]) {
            s->mark[k] = 1;
            s->touched[s->ntouched++] = (uint32_t)k;
        }
        s->acc[k] += sign * (double)(t1 - t0);
    }
}

/* The critical path goes from the waiting call (wl's call that starts at
 * ws: wc, or the one call_at finds) to the late side (ll at lt) after a
 * wait of w ns: its longest. */
static void set_jump_at(state *s, call *wc, int64_t ws, const wlane *ll, int64_t lt, int64_t w)
{
    if (wc && wc->start == ws && w > wc->cw) {
        wc->cw = w;
        wc->clane = (uint32_t)(ll - s->l);
        wc->ct = lt;
    }
}

static void set_jump(state *s, const wlane *wl, int64_t ws, const wlane *ll, int64_t lt, int64_t w)
{
    call *wc = call_at((wlane *)wl, ws);
    if (wc && wc->start == ws && w > wc->cw) {
        wc->cw = w;
        wc->clane = (uint32_t)(ll - s->l);
        wc->ct = lt;
    }
}

/* Direct causes of a wait of w ns that the waiting lane started at ws for
 * the late lane's start at lt: the call paths in which the late lane spent
 * more time since its last synchronisation than the waiting lane did since
 * its own, each given its share of w (Scalasca's delay costs, direct only). */
static int cause(state *s, int pattern, const wlane *wl, int64_t ws, const wlane *ll, int64_t lt,
                 int64_t w, int jump)
{
    if (w <= 0 || wl == NULL || ll == NULL)
        return 0;
    call *wc = call_at((wlane *)wl, ws);   /* once: the jump and the last synchronisation */
    if (jump)
        set_jump_at(s, wc, ws, ll, lt, w);
    s->ntouched = 0;
    tally(s, ll, sync_before(ll, lt), lt, 1);
    tally(s, wl, sync_walk(wl, wc, ws), ws, -1);
    double sum = 0;
    for (size_t i = 0; i < s->ntouched; i++)
        if (s->acc[s->touched[i]] > 0)
            sum += s->acc[s->touched[i]];
    int rc = 0;
    for (size_t i = 0; i < s->ntouched; i++) {
        uint32_t k = s->touched[i];
        double x = s->acc[k];
        s->acc[k] = 0;
        s->mark[k] = 0;
        if (x > 0 && rc == 0)
            rc = wait_add(s, 1, pattern, k ? k - 1 : NO_PATH, ll->process, ll->stream,
                          (double)w * 1e-9 * x / sum);
    }
    if (sum == 0 && rc == 0)
        rc = wait_add(s, 1, pattern, NO_CAUSE, ll->process, ll->stream, (double)w * 1e-9);
    return rc;
}

/* ... and the critical path and the replay go from the waiting call to
 * the late side */
static int add_cause(state *s, int pattern, const wlane *wl, int64_t ws, const wlane *ll,
                     int64_t lt, int64_t w)
{
    return cause(s, pattern, wl, ws, ll, lt, w, 1);
}

/* a process's parts on one context in the order of their calls (MPI
 * orders a communicator's collectives, blocking or not, by their start) */
static int by_member(const void *a, const void *b)
{
    const part *x = a, *y = b;
    if (x->ctx != y->ctx)
        return x->ctx < y->ctx ? -1 : 1;
    if (x->process != y->process)
        return x->process < y->process ? -1 : 1;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->stream != y->stream)   /* the same order whatever share read them */
        return x->stream < y->stream ? -1 : 1;
    return (x->k > y->k) - (x->k < y->k);
}

static int by_instance(const void *a, const void *b)
{
    const part *x = a, *y = b;
    if (x->ctx != y->ctx)
        return x->ctx < y->ctx ? -1 : 1;
    if (x->seq != y->seq)
        return x->seq < y->seq ? -1 : 1;
    if (x->process != y->process)
        return x->process < y->process ? -1 : 1;
    if (x->stream != y->stream)
        return x->stream < y->stream ? -1 : 1;
    return (x->k > y->k) - (x->k < y->k);
}

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

static int collective_waits(state *s, const part *g, size_t n)
{
    if (g[0].size && n != g[0].size)
        return 0;   /* an instance not complete (a run cut short) */
    int pattern = g[0].pattern;
    switch (pattern >= 0 ? PAL_COLL_OP_NONE : g[0].op) {
    case PAL_COLL_OP_NONE: break;
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
    if (pattern < 0)
        return 0;
    if (pattern == P_WAIT_BARRIER || pattern == P_WAIT_NXN || pattern == P_WAIT_FENCE) {
        size_t late = 0;
        for (size_t i = 1; i < n; i++)
            if (g[i].start > g[late].start)
                late = i;
        int64_t last = g[late].start;
        const wlane *ll = lane_find(s, g[late].process, g[late].stream);
        /* the instance's members, for the replay (all wait for the last) */
        if (grow((void **)&s->gfirst, &s->gcap, s->ng + 2, sizeof *s->gfirst) ||
            grow((void **)&s->gm, &s->gmcap, s->ngm + n, sizeof *s->gm))
            return -1;
        ll = lane_find(s, g[late].process, g[late].stream);
        size_t first = s->ngm;
        for (size_t i = 0; i < n; i++) {
            wlane *ml = lane_find(s, g[i].process, g[i].stream);
            call *mc = ml && !g[i].nb ? call_at(ml, g[i].start) : NULL;
            if (mc && mc->start == g[i].start && mc->grp == 0) {
                s->gm[s->ngm++] = (member){(size_t)(ml - s->l), (size_t)(mc - ml->c)};
                mc->rbytes = g[i].bytes;
            }
        }
        if (s->ngm - first == n) {
            s->gfirst[s->ng] = first;
            s->gfirst[s->ng + 1] = s->ngm;
            s->ng++;
            for (size_t i = first; i < s->ngm; i++)
                s->l[s->gm[i].lane].c[s->gm[i].call].grp = (uint32_t)s->ng;
        } else {
            s->ngm = first;   /* a member's call not found: no group */
        }
        for (size_t i = 0; i < n; i++) {
            int64_t w = min64(last, g[i].we) - g[i].ws;
            if (add_wait(s, pattern, g[i].path, g[i].process, g[i].stream, w, g[i].ws) ||
                add_cause(s, pattern, lane_find(s, g[i].process, g[i].stream), g[i].ws, ll,
                          last, w))
                return -1;
        }
        return 0;
    }
    const part *root = NULL;
    for (size_t i = 0; i < n; i++)
        if (g[i].root >= 0 && g[i].process == (uint32_t)g[i].root)
            root = &g[i];
    if (root == NULL || n < 2)
        return 0;
    const wlane *rl = lane_find(s, root->process, root->stream);
    if (pattern == P_LATE_BCAST) {
        for (size_t i = 0; i < n; i++) {
            if (&g[i] == root)
                continue;
            int64_t w = min64(root->start, g[i].we) - g[i].ws;
            if (add_wait(s, pattern, g[i].path, g[i].process, g[i].stream, w, g[i].ws) ||
                add_cause(s, pattern, lane_find(s, g[i].process, g[i].stream), g[i].ws, rl,
                          root->start, w))
                return -1;
        }
        return 0;
    }
    const part *first = NULL, *last = NULL;
    for (size_t i = 0; i < n; i++)
        if (&g[i] != root) {
            if (first == NULL || g[i].start < first->start)
                first = &g[i];
            if (last == NULL || g[i].start > last->start)
                last = &g[i];
        }
    int64_t w = min64(first->start, root->we) - root->ws;
    if (add_wait(s, pattern, root->path, root->process, root->stream, w, root->ws) ||
        add_cause(s, pattern, rl, root->ws, lane_find(s, first->process, first->stream),
                  first->start, w))
        return -1;
    /* the root's result depends on every member: the critical path goes
     * to the last one */
    const wlane *late = lane_find(s, last->process, last->stream);
    if (late)
        set_jump(s, rl, root->ws, late, last->start, min64(last->start, root->we) - root->ws);
    return 0;
}

/* Is call c the MPI call NAME ("win_fence")? The event layer says only
 * that a call synchronises a window (rma_sync); which synchronisation it
 * is, the MPI standard's name of its region says ("MPI_Win_fence"). */
static int call_named(const state *s, const call *c, const char *name)
{
    if (c->path == NO_PATH)
        return 0;
    const char *n = s->p[c->path].name;
    size_t len = s->p[c->path].len;
    if (len > 4 && strncasecmp(n, "mpi_", 4) == 0)
        n += 4, len -= 4;
    return strlen(name) == len && strncasecmp(n, name, len) == 0;
}

static int by_lane_time(const void *a, const void *b)
{
    const rmaop *x = a, *y = b;
    if (x->process != y->process)
        return x->process < y->process ? -1 : 1;
    if (x->stream != y->stream)
        return x->stream < y->stream ? -1 : 1;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return (x->k > y->k) - (x->k < y->k);
}

/* the context of a window's fences: apart from every communicator's */
#define WIN_CTX(w) ((uint64_t)(w) ^ 0xf3e1c0de5eed0001ull)

static const epoch *sort_ep;
static const state *sort_ep_state;
/* exposure epochs by window, target rank, post's start */
static int by_exposure(const void *a, const void *b)
{
    const epoch *x = &sort_ep[*(const size_t *)a], *y = &sort_ep[*(const size_t *)b];
    const wlane *lx = &sort_ep_state->l[x->lane], *ly = &sort_ep_state->l[y->lane];
    if (x->window != y->window)
        return x->window < y->window ? -1 : 1;
    if (lx->process != ly->process)
        return lx->process < ly->process ? -1 : 1;
    int64_t sx = lx->c[x->open].start, sy = ly->c[y->open].start;
    return (sx > sy) - (sx < sy);
}

/* a passive target epoch: MPI_Win_lock .. MPI_Win_unlock of one target
 * (-1: MPI_Win_lock_all .. MPI_Win_unlock_all, every target) */
typedef struct {
    size_t lane, lock, unlock;   /* lane, and its calls */
    int64_t window, target;
    int type;                    /* 1 exclusive, 2 shared */
} lock_epoch;

static const state *sort_lk_state;
static int by_lock_start(const void *a, const void *b)
{
    const lock_epoch *x = a, *y = b;
    if (x->window != y->window)
        return x->window < y->window ? -1 : 1;
    int64_t p = sort_lk_state->l[x->lane].c[x->lock].start,
            q = sort_lk_state->l[y->lane].c[y->lock].start;
    return p < q ? -1 : p > q;
}

struct holder {
    int64_t end, late;   /* its release (its unlock's end, or earlier: below) and unlock's start */
    int64_t got;         /* its lock call's end: when it held the lock */
    int excl;
    size_t lane;
};

static int by_release(const void *a, const void *b)
{
    const struct holder *x = a, *y = b;
    return x->end < y->end ? -1 : x->end > y->end;
}

/* Lock Contention (after Scalasca): an epoch's MPI_Win_lock or
 * MPI_Win_unlock (the MPI library acquires the lock in either) waits while
 * another lane's epoch on the same window and target holds a conflicting
 * lock (either of the two exclusive) that it had taken before (its lock
 * call ended before the epoch's own did) and released while the call went
 * on (its unlock began before the call ended): min(last such unlock's end,
 * call's end) - call's start. Its direct causes: each holder, for the time
 * from the release before its own to its own (what it did before its
 * unlock); a holder released the lock no later than a conflicting epoch
 * (the waiter's or another holder's) took it (its lock call's end) while the
 * holder's unlock went on, whenever that unlock returned. ep: the epochs rma_waits found (unlock SIZE_MAX: not closed),
 * reordered here. */
static int lock_waits(state *s, lock_epoch *ep, size_t nep)
{
    struct holder *h = NULL;   /* the holders one call waited for */
    size_t nh = 0, hcap = 0;
    int rc = -1;
    size_t n = 0;   /* the closed epochs */
    for (size_t k = 0; k < nep; k++)
        if (ep[k].unlock != SIZE_MAX)
            ep[n++] = ep[k];
    sort_lk_state = s;
    if (n > 1)
        qsort(ep, n, sizeof *ep, by_lock_start);
    for (size_t a = 0, lo = 0; a < n; a++) {
        if (ep[a].window != ep[lo].window)
            lo = a;   /* the window's first epoch */
        wlane *al = &s->l[ep[a].lane];
        for (int k = 0; k < 2; k++) {
            const call *c = &al->c[k ? ep[a].unlock : ep[a].lock];
            nh = 0;
            for (size_t b = lo; b < n && ep[b].window == ep[a].window &&
                                s->l[ep[b].lane].c[ep[b].lock].start < c->end;
                 b++) {
                if (ep[b].lane == ep[a].lane || (ep[a].type != 1 && ep[b].type != 1) ||
                    (ep[a].target != ep[b].target && ep[a].target >= 0 && ep[b].target >= 0))
                    continue;
                const wlane *bl = &s->l[ep[b].lane];
                const call *bu = &bl->c[ep[b].unlock];
                if (bl->c[ep[b].lock].end > al->c[ep[a].lock].end || bu->start >= c->end ||
                    bu->end <= c->start)
                    continue;   /* not held before, or not released during the call */
                if (grow((void **)&h, &hcap, nh + 1, sizeof *h))
                    goto out;
                h[nh++] = (struct holder){bu->end, bu->start, bl->c[ep[b].lock].end,
                                          ep[b].type == 1, ep[b].lane};
            }
            /* a holder released the lock, inside its unlock, before a
             * conflicting epoch took it while that unlock went on (the
             * waiter itself or another holder), though the unlock may return
             * later: a loaded machine holds the process back after the
             * release */
            int64_t got = al->c[ep[a].lock].end;
            for (size_t q = 0; q < nh; q++) {
                if (got >= h[q].late && got < h[q].end)
                    h[q].end = got;
                for (size_t r = 0; r < nh; r++)
                    if (r != q && (h[q].excl || h[r].excl) && h[r].got >= h[q].late &&
                        h[r].got < h[q].end)
                        h[q].end = h[r].got;
            }
            if (nh > 1)
                qsort(h, nh, sizeof *h, by_release);
            /* the wait ends with the last release; each holder's share is
             * from the release before it to its own */
            int64_t from = c->start;
            for (size_t q = 0; q < nh; q++) {
                int64_t to = min64(h[q].end, c->end);
                if (to > from &&
                    add_cause(s, P_LOCK_CONTENTION, al, c->start, &s->l[h[q].lane], h[q].late,
                              to - from))
                    goto out;
                if (to > from)
                    from = to;
            }
            if (from > c->start && add_wait(s, P_LOCK_CONTENTION, c->path, al->process,
                                            al->stream, from - c->start, c->start))
                goto out;
        }
    }
    rc = 0;
out:
    free(h);
    return rc;
}

/* One-sided synchronisation (after Scalasca's RMA patterns): each
 * MPI_Win_fence is a member of the window's k-th fence (Wait at Fence, as a
 * barrier over the window's group); an origin's access epoch (MPI_Win_start
 * .. MPI_Win_complete) waits in either call for each target's MPI_Win_post
 * (Late Post: the target's post that began last before the complete ended),
 * and a target's MPI_Win_wait waits for the last MPI_Win_complete of the
 * access epochs matched to its post (Early Wait). */
static int rma_waits(state *s)
{
    epoch *ep = NULL;
    size_t nep = 0, epcap = 0;
    struct tgt {
        size_t epoch, exposure;
        int64_t target;
    } *tg = NULL;
    size_t ntg = 0, tgcap = 0, *xs = NULL, nx = 0;
    int64_t *xlast = NULL;
    size_t *xlane = NULL;
    lock_epoch *lk = NULL;   /* passive target epochs (Lock Contention) */
    size_t nlk = 0, lkcap = 0;
    int rc = -1;
    if (s->nrma > 1)
        qsort(s->rma, s->nrma, sizeof *s->rma, by_lane_time);
    for (size_t i = 0, j; i < s->nrma; i = j) {
        wlane *l = lane_find(s, s->rma[i].process, s->rma[i].stream);
        size_t first = nep, lfirst = nlk;
        for (j = i; j < s->nrma && s->rma[j].process == s->rma[i].process &&
                    s->rma[j].stream == s->rma[i].stream;
             j++) {
            const rmaop *o = &s->rma[j];
            call *c = l ? call_at(l, o->t) : NULL;
            if (c == NULL)
                continue;
            size_t ci = (size_t)(c - l->c);
            if (o->kind == PAL_RMA_LOCK && o->lock) {
                if (grow((void **)&lk, &lkcap, nlk + 1, sizeof *lk))
                    goto out;
                lk[nlk++] = (lock_epoch){(size_t)(l - s->l), ci, SIZE_MAX, o->window,
                                         o->peer < 0 ? -1 : o->peer, o->lock};
            } else if (o->kind == PAL_RMA_UNLOCK) {
                int64_t t = o->peer < 0 ? -1 : o->peer;
                for (size_t k = nlk; k-- > lfirst;)
                    if (lk[k].unlock == SIZE_MAX && lk[k].window == o->window &&
                        lk[k].target == t) {
                        lk[k].unlock = ci;
                        break;
                    }
            } else if (o->kind == PAL_RMA_SYNC && call_named(s, c, "win_fence")) {
                uint32_t size = 0;
                for (size_t w = 0; w < s->nwin; w++)
                    if (s->win[w].id == o->window)
                        size = s->win[w].size;
                if (grow((void **)&s->c, &s->ccap, s->nc + 1, sizeof *s->c))
                    goto out;
                s->c[s->nc++] = (part){WIN_CTX(o->window), 0, l->process, l->stream, size,
                                       c->path, c->start, c->end, -1, c->start, c->end,
                                       PAL_COLL_OP_NONE, 0, P_WAIT_FENCE, 0, s->nkept++};
            } else if (o->kind == PAL_RMA_SYNC &&
                       (call_named(s, c, "win_start") || call_named(s, c, "win_post"))) {
                if (grow((void **)&ep, &epcap, nep + 1, sizeof *ep))
                    goto out;
                ep[nep++] = (epoch){(size_t)(l - s->l), ci, SIZE_MAX, o->window,
                                    call_named(s, c, "win_start")};
            } else if (o->kind == PAL_RMA_SYNC &&
                       (call_named(s, c, "win_complete") || call_named(s, c, "win_wait") ||
                        call_named(s, c, "win_test"))) {
                /* an MPI_Win_test synchronises only when it completes the
                 * epoch (mpi.spec: role rma_sync when flag is 1) */
                int acc = call_named(s, c, "win_complete");
                for (size_t k = nep; k-- > first;)
                    if (ep[k].close == SIZE_MAX && ep[k].window == o->window &&
                        ep[k].access == acc) {
                        ep[k].close = ci;
                        break;
                    }
            } else if ((o->kind == PAL_RMA_PUT || o->kind == PAL_RMA_GET ||
                        o->kind == PAL_RMA_ATOMIC) && o->peer >= 0) {
                for (size_t k = nep; k-- > first;)
                    if (ep[k].close == SIZE_MAX && ep[k].access && ep[k].window == o->window) {
                        size_t x = ntg;
                        while (x > 0 && tg[x - 1].epoch == k && tg[x - 1].target != o->peer)
                            x--;
                        if (x > 0 && tg[x - 1].epoch == k)
                            break;   /* this target already */
                        if (grow((void **)&tg, &tgcap, ntg + 1, sizeof *tg))
                            goto out;
                        tg[ntg++] = (struct tgt){k, SIZE_MAX, o->peer};
                        break;
                    }
            }
        }
    }
    /* each access epoch's target: its exposure epoch */
    if ((xs = malloc((nep + 1) * sizeof *xs)) == NULL ||
        (xlast = malloc((nep + 1) * sizeof *xlast)) == NULL ||
        (xlane = malloc((nep + 1) * sizeof *xlane)) == NULL)
        goto out;
    for (size_t k = 0; k < nep; k++)
        if (!ep[k].access && ep[k].close != SIZE_MAX)
            xs[nx++] = k;
    sort_ep = ep;
    sort_ep_state = s;
    if (nx > 1)
        qsort(xs, nx, sizeof *xs, by_exposure);
    for (size_t k = 0; k < nep; k++)
        xlast[k] = INT64_MIN;
    for (size_t t = 0; t < ntg; t++) {
        const epoch *a = &ep[tg[t].epoch];
        if (a->close == SIZE_MAX)
            continue;
        const wlane *ol = &s->l[a->lane];
        int64_t done = ol->c[a->close].end;
        size_t lo = 0, hi = nx;   /* the first exposure past (window, target, done) */
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            const epoch *x = &ep[xs[mid]];
            const wlane *xl = &s->l[x->lane];
            int before = x->window != a->window ? x->window < a->window
                         : xl->process != (uint32_t)tg[t].target
                             ? xl->process < (uint32_t)tg[t].target
                             : xl->c[x->open].start <= done;
            if (before)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo == 0)
            continue;
        const epoch *x = &ep[xs[lo - 1]];
        const wlane *xl = &s->l[x->lane];
        if (x->window != a->window || xl->process != (uint32_t)tg[t].target)
            continue;
        tg[t].exposure = xs[lo - 1];
        int64_t cs = ol->c[a->close].start;
        if (cs > xlast[tg[t].exposure]) {
            xlast[tg[t].exposure] = cs;
            xlane[tg[t].exposure] = a->lane;
        }
    }
    /* Late Post: per call of an access epoch, its longest wait for a post */
    for (size_t t = 0, u; t < ntg; t = u) {
        const epoch *a = &ep[tg[t].epoch];
        wlane *ol = &s->l[a->lane];
        int64_t best[2] = {0, 0}, late[2] = {0, 0};
        size_t blane[2] = {0, 0};
        for (u = t; u < ntg && tg[u].epoch == tg[t].epoch; u++) {
            if (tg[u].exposure == SIZE_MAX)
                continue;
            const epoch *x = &ep[tg[u].exposure];
            int64_t post = s->l[x->lane].c[x->open].start;
            for (int k = 0; k < 2; k++) {
                const call *c = &ol->c[k ? a->close : a->open];
                int64_t w = min64(post, c->end) - c->start;
                if (w > best[k]) {
                    best[k] = w;
                    late[k] = post;
                    blane[k] = x->lane;
                }
            }
        }
        for (int k = 0; k < 2 && a->close != SIZE_MAX; k++) {
            const call *c = &ol->c[k ? a->close : a->open];
            if (best[k] > 0 &&
                (add_wait(s, P_LATE_POST, c->path, ol->process, ol->stream, best[k], c->start) ||
                 add_cause(s, P_LATE_POST, ol, c->start, &s->l[blane[k]], late[k], best[k])))
                goto out;
        }
    }
    /* Early Wait: the target's MPI_Win_wait until the last complete began;
     * an epoch completed by polling MPI_Win_test waits from its first test
     * to the completing one, as one MPI_Win_wait would (the critical path
     * and the replay wait in the completing test) */
    for (size_t q = 0; q < nx; q++) {
        size_t k = xs[q];
        if (xlast[k] == INT64_MIN)
            continue;
        wlane *tl = &s->l[ep[k].lane];
        call *c = &tl->c[ep[k].close];
        int64_t from = c->start;
        if (call_named(s, c, "win_test"))
            for (size_t i = ep[k].open + 1; i < ep[k].close; i++)
                if (call_named(s, &tl->c[i], "win_test")) {
                    from = tl->c[i].start;
                    break;
                }
        int64_t w = min64(xlast[k], c->end) - from;
        if (w > 0 && (add_wait(s, P_EARLY_WAIT, c->path, tl->process, tl->stream, w, from) ||
                      cause(s, P_EARLY_WAIT, tl, from, &s->l[xlane[k]], xlast[k], w,
                            from == c->start)))
            goto out;
        if (from != c->start)
            set_jump_at(s, c, c->start, &s->l[xlane[k]], xlast[k],
                        min64(xlast[k], c->end) - c->start);
    }
    rc = lock_waits(s, lk, nlk);
out:
    free(lk);
    free(ep);
    free(tg);
    free(xs);
    free(xlast);
    free(xlane);
    return rc;
}

/* a barrier of the threads of one process: a waiting call (idle) that is
 * no MPI call, its region named "... barrier ..." (OpenMP's, through OMPT:
 * "omp barrier @file:line", "omp implicit barrier @..."); by rank, name,
 * start */
typedef struct {
    uint32_t process;
    const char *name;
    size_t len;
    size_t lane, call;
    int64_t start, end;
} tbar;

static int by_tbar(const void *a, const void *b)
{
    const tbar *x = a, *y = b;
    if (x->process != y->process)
        return x->process < y->process ? -1 : 1;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->name, y->name, n);
    if (c || x->len != y->len)
        return c ? c : x->len < y->len ? -1 : 1;
    return (x->start > y->start) - (x->start < y->start);
}

static int named_barrier(const char *n, size_t len)
{
    for (size_t i = 0; i + 7 <= len; i++)
        if (strncasecmp(n + i, "barrier", 7) == 0)
            return 1;
    return 0;
}

/* Wait at a thread barrier (OpenMP barriers, per thread): the calls of one
 * barrier region of one rank that all overlap one instant (every thread is
 * in it when the last arrives), one per thread, are an instance; each
 * thread waits from its arrival until the last thread's. */
static int thread_barriers(state *s)
{
    if (!s->thread_waits)
        return 0;
    tbar *b = NULL;
    size_t n = 0, cap = 0;
    for (size_t i = 0; i < s->nl; i++) {
        const wlane *l = &s->l[i];
        for (size_t k = 0; k < l->n; k++) {
            const call *c = &l->c[k];
            if (!(c->flags & PAL_EVF_IDLE) || (c->flags & PAL_EVF_COMMUNICATION) ||
                c->path == NO_PATH || !named_barrier(s->p[c->path].name, s->p[c->path].len))
                continue;
            if (grow((void **)&b, &cap, n + 1, sizeof *b)) {
                free(b);
                return -1;
            }
            b[n++] = (tbar){l->process, s->p[c->path].name, s->p[c->path].len, i, k,
                            c->start, c->end};
        }
    }
    if (n > 1)
        qsort(b, n, sizeof *b, by_tbar);
    int rc = 0;
    for (size_t i = 0, j; i < n && rc == 0; i = j) {
        int64_t until = b[i].end, last = b[i].start;
        size_t late = i;
        for (j = i + 1; j < n && b[j].process == b[i].process && b[j].len == b[i].len &&
                        memcmp(b[j].name, b[i].name, b[i].len) == 0 && b[j].start <= until;
             j++) {
            size_t q = i;
            while (q < j && s->l[b[q].lane].stream != s->l[b[j].lane].stream)
                q++;
            if (q < j)
                break;   /* a thread's next barrier: the next instance */
            if (b[j].end < until)
                until = b[j].end;
            if (b[j].start > last) {
                last = b[j].start;
                late = j;
            }
        }
        for (size_t q = i; q < j && j - i > 1 && rc == 0; q++) {
            wlane *l = &s->l[b[q].lane];
            int64_t w = min64(last, b[q].end) - b[q].start;
            rc = add_wait(s, P_THREAD_BARRIER, l->c[b[q].call].path, l->process, l->stream, w,
                          b[q].start) ||
                 add_cause(s, P_THREAD_BARRIER, l, b[q].start, &s->l[b[late].lane], last, w);
        }
    }
    free(b);
    return rc ? -1 : 0;
}

static int by_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Load imbalance per call path: the time each rank (its threads together)
 * spent in the path outside MPI, its mean over the ranks (a rank that never
 * entered it counts 0) and its maximum */
static int imbalance(state *s)
{
    uint32_t *ranks = malloc((s->nl + 1) * sizeof *ranks);
    size_t nr = 0;
    if (ranks == NULL)
        return -1;
    for (size_t i = 0; i < s->nl; i++)
        ranks[nr++] = s->l[i].process;
    qsort(ranks, nr, sizeof *ranks, by_u32);
    size_t u = 0;
    for (size_t i = 0; i < nr; i++)
        if (u == 0 || ranks[u - 1] != ranks[i])
            ranks[u++] = ranks[i];
    nr = u;
    double *per = calloc((s->np + 1) * (nr ? nr : 1), sizeof *per);
    s->imb = calloc(s->np + 1, sizeof *s->imb);
    if (per == NULL || s->imb == NULL) {
        free(ranks);
        free(per);
        return -1;
    }
    for (size_t i = 0; i < s->nl; i++) {
        const wlane *l = &s->l[i];
        uint32_t *r = bsearch(&l->process, ranks, nr, sizeof *ranks, by_u32);
        size_t ri = (size_t)(r - ranks);
        for (size_t k = 0; k < l->nsg; k++) {
            size_t pk = l->sg[k].path == NO_PATH ? 0 : (size_t)l->sg[k].path + 1;
            per[pk * nr + ri] += (double)(l->sg[k].t1 - l->sg[k].t0) * 1e-9;
        }
    }
    for (size_t pk = 0; pk <= s->np; pk++) {
        double sum = 0, mx = -1;
        uint32_t at = 0;
        for (size_t ri = 0; ri < nr; ri++) {
            sum += per[pk * nr + ri];
            if (per[pk * nr + ri] > mx) {
                mx = per[pk * nr + ri];
                at = ranks[ri];
            }
        }
        if (sum > 0)
            s->imb[s->nimb++] = (struct imbalance){pk ? (uint32_t)pk - 1 : NO_PATH, at,
                                                   sum / (double)nr, mx};
    }
    free(per);
    free(ranks);
    return 0;
}

/* adds l's time outside MPI in [a, b) per path to the critical path */
static void cp_segments(state *s, const wlane *l, int64_t a, int64_t b)
{
    if (b <= a)
        return;
    s->ntouched = 0;
    tally(s, l, a, b, 1);
    for (size_t i = 0; i < s->ntouched; i++) {
        uint32_t k = s->touched[i];
        s->cp_path[k] += s->acc[k] * 1e-9;
        s->cp_lane[l - s->l] += s->acc[k] * 1e-9;
        s->acc[k] = 0;
        s->mark[k] = 0;
    }
}

/* The critical path, replayed backwards from the end of the lane that ends
 * last (Scalasca's): time outside MPI and in MPI calls belongs to it until a
 * call that waited, whose part after the wait does too; from there it goes
 * on at the start of the late side's call on the late lane, to the start
 * of a lane with no call before it. */
static int critical_path(state *s)
{
    s->cp_path = calloc(s->np + 1, sizeof *s->cp_path);
    s->cp_lane = calloc(s->nl + 1, sizeof *s->cp_lane);
    if (s->cp_path == NULL || s->cp_lane == NULL)
        return -1;
    wlane *l = NULL;
    int64_t t = INT64_MIN;
    for (size_t i = 0; i < s->nl; i++) {
        const wlane *x = &s->l[i];
        int64_t end = x->n ? x->c[x->n - 1].end : INT64_MIN;
        if (x->nsg && x->sg[x->nsg - 1].t1 > end)
            end = x->sg[x->nsg - 1].t1;
        if (end > t) {
            t = end;
            l = &s->l[i];
        }
    }
    if (l == NULL)
        return 0;
    s->cp_to = t;
    size_t steps = 0, limit = 4;
    for (size_t i = 0; i < s->nl; i++)
        limit += 2 * (s->l[i].n + 1);
    while (steps++ < limit) {
        call *c = call_at(l, t - 1);
        while (c && c->start >= t)
            c = c > l->c ? c - 1 : NULL;
        if (c == NULL) {
            int64_t first = l->nsg && l->sg[0].t0 < t ? l->sg[0].t0 : t;
            cp_segments(s, l, first, t);
            t = first;
            break;
        }
        if (c->end < t) {
            cp_segments(s, l, c->end, t);
            t = c->end;
        }
        size_t pk = c->path == NO_PATH ? 0 : (size_t)c->path + 1;
        int64_t after = c->start + c->cw;   /* the wait ends here */
        if (c->cw > 0 && after <= t && c->ct <= t && c->ct > c->start) {
            s->cp_path[pk] += (double)(t - after) * 1e-9;
            s->cp_lane[l - s->l] += (double)(t - after) * 1e-9;
            l = &s->l[c->clane];
            t = c->ct < after ? c->ct : after;
        } else {
            s->cp_path[pk] += (double)(t - c->start) * 1e-9;
            s->cp_lane[l - s->l] += (double)(t - c->start) * 1e-9;
            t = c->start;
        }
    }
    s->cp_from = t;
    s->cp_len = (double)(s->cp_to - s->cp_from) * 1e-9;
    return 0;
}

/* c's Late Sender and Receiver waits, made when first needed; NULL
 * without memory (valid until the next call) */
static lwait *late_of(state *s, call *c)
{
    if (c->late)
        return &s->lt[c->late - 1];
    if (grow((void **)&s->lt, &s->ltcap, s->nlt + 1, sizeof *s->lt))
        return NULL;
    memset(&s->lt[s->nlt], 0, sizeof *s->lt);
    c->late = (uint32_t)++s->nlt;
    return &s->lt[s->nlt - 1];
}

/* keeps w when it is longer than *best (the first of equal ones), with
 * its late side's lane and start */
static void longest(int64_t *best, uint32_t *blane, int64_t *bat, int64_t w, uint32_t from,
                    int64_t at)
{
    if (w > *best) {
        *best = w;
        *blane = from;
        *bat = at;
    }
}

static int analyse(state *s)
{
    s->acc = calloc(s->np + 1, sizeof *s->acc);
    s->mark = calloc(s->np + 1, 1);
    s->touched = malloc((s->np + 1) * sizeof *s->touched);
    if (s->acc == NULL || s->mark == NULL || s->touched == NULL)
        return -1;
    for (size_t i = 0; i < s->nl; i++)
        if (s->l[i].unsorted)
            qsort(s->l[i].c, s->l[i].n, sizeof *s->l[i].c, by_start);
    double fn = 0, fb = 0, fy = 0, fbb = 0, fby = 0;
    for (size_t i = 0; i < s->nm; i++) {
        const msg *m = &s->m[i];
        wlane *rl = lane_find(s, m->rp, m->rs), *sl = lane_find(s, m->sp, m->ss);
        call *r = call_at(rl, m->rt);
        if (r) {
            r->flags |= CALL_RECEIVED;
            if (m->bytes > r->rbytes)
                r->rbytes = m->bytes;
        }
        /* a receive that waited sees the whole transfer: send start to
         * receive end is latency (with both overheads) + bytes x G */
        if (r && r->start < m->st && m->rt > m->st) {
            double b = (double)m->bytes, y = (double)(m->rt - m->st);
            fn++, fb += b, fy += y, fbb += b * b, fby += b * y;
        }
        /* Late Sender: the receive waited for the send to start */
        if (r && (r->flags & PAL_EVF_IDLE) && r->start < m->st) {
            lwait *x = late_of(s, r);
            if (x == NULL)
                return -1;
            longest(&x->ls, &x->ls_lane, &x->ls_late, min64(m->st, r->end) - r->start,
                    (uint32_t)(sl - s->l), m->st);
        }
        /* Late Receiver: a blocking send (its call starts the message) that
         * ends only after the blocking receive (which the message ends)
         * was entered */
        call *snd = r && m->rt <= r->end && r->start > m->st ? call_at(sl, m->st) : NULL;
        if (snd && snd->start == m->st && snd->end > r->start) {
            lwait *x = late_of(s, snd);
            if (x == NULL)
                return -1;
            longest(&x->lr, &x->lr_lane, &x->lr_late, r->start - m->st, (uint32_t)(rl - s->l),
                    r->start);
        }
    }
    /* the network by least squares: y = L + G b */
    s->net_n = (size_t)fn;
    if (fn > 0) {
        double var = fbb - fb * fb / fn, cov = fby - fb * fy / fn;
        s->net_G = fn > 1 && var > 0 && cov > 0 ? cov / var : 0;
        s->net_L = (fy - s->net_G * fb) / fn;
        if (s->net_L < 0) {   /* through the origin */
            s->net_L = 0;
            s->net_G = fbb > 0 ? fby / fbb : 0;
        }
    }
    for (size_t i = 0; i < s->nl; i++) {
        wlane *l = &s->l[i];
        for (size_t k = 0; k < l->n; k++) {
            const call *c = &l->c[k];
            if (c->late == 0)
                continue;
            const lwait *x = &s->lt[c->late - 1];
            if (add_wait(s, P_LATE_SENDER, c->path, l->process, l->stream, x->ls, c->start) ||
                add_wait(s, P_LATE_RECEIVER, c->path, l->process, l->stream, x->lr, c->start) ||
                (x->ls > 0 &&
                 add_cause(s, P_LATE_SENDER, l, c->start, &s->l[x->ls_lane], x->ls_late, x->ls)) ||
                (x->lr > 0 &&
                 add_cause(s, P_LATE_RECEIVER, l, c->start, &s->l[x->lr_lane], x->lr_late, x->lr)))
                return -1;
        }
    }
    if (rma_waits(s) || thread_barriers(s))
        return -1;
    /* the k-th collective of a process on a context is the k-th instance;
     * a nonblocking one waits in the call that completed it */
    if (s->nc > 1)
        qsort(s->c, s->nc, sizeof *s->c, by_member);
    for (size_t i = 0; i < s->nc; i++) {
        part *g = &s->c[i];
        g->seq = i && g[-1].ctx == g->ctx && g[-1].process == g->process ? g[-1].seq + 1 : 0;
        if (!g->nb)
            continue;
        /* the completion is recorded inside its call or right after it */
        const call *c = call_at(lane_find(s, g->process, g->stream), g->end);
        if (c && c->start > g->start && g->ws < g->end) {
            g->ws = c->start;
            g->we = c->end;
            g->path = c->path;
        } else {
            g->ws = g->we = g->end;   /* completed outside a call: no wait */
        }
    }
    if (s->nc > 1)
        qsort(s->c, s->nc, sizeof *s->c, by_instance);
    for (size_t i = 0, j; i < s->nc; i = j) {
        for (j = i + 1; j < s->nc && s->c[j].ctx == s->c[i].ctx && s->c[j].seq == s->c[i].seq; j++)
            ;
        if (collective_waits(s, &s->c[i], j - i))
            return -1;
    }
    return imbalance(s) || critical_path(s) ? -1 : 0;
}

static const state *sort_state;

/* a path's text, outermost first, "/" between the regions; "(outside
 * regions)" for none, "(no direct delay)" for NO_CAUSE */
static size_t path_text(const state *s, uint32_t p, char *buf, size_t size);
static void path_label(const state *s, uint32_t p, char *buf, size_t size)
{
    if (p == NO_PATH || p == NO_CAUSE)
        snprintf(buf, size, "%s", p == NO_PATH ? "(outside regions)" : "(no direct delay)");
    else
        path_text(s, p, buf, size);
}

static size_t path_text(const state *s, uint32_t p, char *buf, size_t size)
{
    if (p == NO_PATH || p == NO_CAUSE) {
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
    if (x->table != y->table)
        return x->table - y->table;
    if (x->pattern != y->pattern)
        return x->pattern - y->pattern;
    if (x->path != y->path) {
        char px[1024], py[1024];
        path_label(sort_state, x->path, px, sizeof px);
        path_label(sort_state, y->path, py, sizeof py);
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
    if (s->nw > 1)
        qsort(s->w, s->nw, sizeof *s->w, by_key);
    size_t o = 0;
    for (size_t i = 0; i < s->nw; i++) {
        if (o && s->w[o - 1].table == s->w[i].table && s->w[o - 1].pattern == s->w[i].pattern &&
            s->w[o - 1].path == s->w[i].path &&
            s->w[o - 1].process == s->w[i].process && s->w[o - 1].stream == s->w[i].stream) {
            s->w[o - 1].seconds += s->w[i].seconds;
            s->w[o - 1].n += s->w[i].n;
            if (s->w[i].worst > s->w[o - 1].worst) {
                s->w[o - 1].worst = s->w[i].worst;
                s->w[o - 1].worst_at = s->w[i].worst_at;
            }
        } else {
            s->w[o++] = s->w[i];
        }
    }
    s->nw = o;
}

static int by_imbalance(const void *a, const void *b)
{
    const struct imbalance *x = a, *y = b;
    double dx = x->max - x->mean, dy = y->max - y->mean;
    if (dx != dy)
        return dx < dy ? 1 : -1;
    return (x->path > y->path) - (x->path < y->path);
}

/* the critical path's call paths, longest first */
static const state *cp_state;
static int by_cp(const void *a, const void *b)
{
    double x = cp_state->cp_path[*(const uint32_t *)a], y = cp_state->cp_path[*(const uint32_t *)b];
    if (x != y)
        return x < y ? 1 : -1;
    return (*(const uint32_t *)a > *(const uint32_t *)b) - (*(const uint32_t *)a < *(const uint32_t *)b);
}

/* the indices (path + 1) with time on the critical path, longest first;
 * NULL without memory */
static uint32_t *cp_order(const state *s, size_t *n)
{
    uint32_t *o = malloc((s->np + 1) * sizeof *o);
    *n = 0;
    if (o == NULL || s->cp_path == NULL)
        return o;
    for (size_t k = 0; k <= s->np; k++)
        if (s->cp_path[k] > 0)
            o[(*n)++] = (uint32_t)k;
    cp_state = s;
    qsort(o, *n, sizeof *o, by_cp);
    return o;
}

static uint32_t cp_pathid(uint32_t k) { return k ? k - 1 : NO_PATH; }

static void write_text(const state *s, FILE *out)
{
    double tot[P_COUNT] = {0};
    uint64_t cnt[P_COUNT] = {0};
    char buf[1024];
    for (size_t i = 0; i < s->nw; i++)
        if (s->w[i].table == 0) {
            tot[s->w[i].pattern] += s->w[i].seconds;
            cnt[s->w[i].pattern] += s->w[i].n;
        }
    fputs("Wait states (seconds of waiting, by pattern)\n", out);
    fprintf(out, "  %-16s %14s %10s\n", "pattern", "seconds", "instances");
    for (int p = 0; p < P_COUNT; p++)
        fprintf(out, "  %-16s %14.6f %10llu\n", pattern_id[p], tot[p], (unsigned long long)cnt[p]);
    for (int t = 0; t < 2; t++) {
        fputs(t == 0 ? "\nWait states per call path, rank and thread\n"
                     : "\nCauses: the late side's extra time since its last synchronisation "
                       "(direct delays), per call path, late rank and thread\n",
              out);
        fprintf(out, "  %-16s %6s %6s %14s %10s  %s\n", "pattern", t ? "late" : "rank", "thread",
                "seconds", "instances", "call path");
        for (size_t i = 0; i < s->nw; i++) {
            if (s->w[i].table != t)
                continue;
            path_label(s, s->w[i].path, buf, sizeof buf);
            fprintf(out, "  %-16s %6u %6u %14.6f %10llu  ", pattern_id[s->w[i].pattern],
                    s->w[i].process, s->w[i].stream, s->w[i].seconds,
                    (unsigned long long)s->w[i].n);
            vw_term_text(out, buf, 0);   /* names come from the trace */
            fputc('\n', out);
        }
    }
    fputs("\nLoad imbalance per call path (seconds outside MPI per rank)\n", out);
    fprintf(out, "  %14s %14s %8s %14s  %s\n", "mean", "max", "max rank", "max - mean",
            "call path");
    for (size_t i = 0; i < s->nimb; i++) {
        path_label(s, s->imb[i].path, buf, sizeof buf);
        fprintf(out, "  %14.6f %14.6f %8u %14.6f  ", s->imb[i].mean, s->imb[i].max,
                s->imb[i].max_rank, s->imb[i].max - s->imb[i].mean);
        vw_term_text(out, buf, 0);
        fputc('\n', out);
    }
    size_t no = 0;
    uint32_t *o = cp_order(s, &no);
    double len = s->cp_len > 0 ? s->cp_len : 1;
    fprintf(out, "\nCritical path: %.6f s (%.6f to %.6f s of the run's clock)\n", s->cp_len,
            (double)s->cp_from * 1e-9, (double)s->cp_to * 1e-9);
    fprintf(out, "  %14s %8s  %s\n", "seconds", "share", "call path");
    for (size_t i = 0; o && i < no; i++) {
        path_label(s, cp_pathid(o[i]), buf, sizeof buf);
        fprintf(out, "  %14.6f %7.2f%%  ", s->cp_path[o[i]], 100 * s->cp_path[o[i]] / len);
        vw_term_text(out, buf, 0);
        fputc('\n', out);
    }
    free(o);
    fprintf(out, "  %14s %8s  %s\n", "seconds", "share", "rank, thread");
    for (size_t i = 0; s->cp_lane && i < s->nl; i++)
        if (s->cp_lane[i] > 0)
            fprintf(out, "  %14.6f %7.2f%%  %u, %u\n", s->cp_lane[i], 100 * s->cp_lane[i] / len,
                    s->l[i].process, s->l[i].stream);
    fputs("\npatterns: ", out);
    for (int p = 0; p < P_COUNT; p++)
        fprintf(out, "%s%s = %s", p ? ", " : "", pattern_id[p], pattern_title[p]);
    fputs(" (doc/views.md, \"Wait states\")\n", out);
}

static void write_csv(const state *s, FILE *out)
{
    char buf[1024];
    fputs("table,pattern,rank,thread,call_path,seconds,instances,mean_s,max_s\n", out);
    for (size_t i = 0; i < s->nw; i++) {
        path_label(s, s->w[i].path, buf, sizeof buf);
        fprintf(out, "%s,%s,%u,%u,", s->w[i].table ? "cause" : "wait",
                pattern_id[s->w[i].pattern], s->w[i].process, s->w[i].stream);
        vw_csv_name(out, buf);
        fprintf(out, ",%.9f,%llu,,\n", s->w[i].seconds, (unsigned long long)s->w[i].n);
    }
    for (size_t i = 0; i < s->nimb; i++) {
        path_label(s, s->imb[i].path, buf, sizeof buf);
        fprintf(out, "imbalance,,%u,,", s->imb[i].max_rank);
        vw_csv_name(out, buf);
        fprintf(out, ",%.9f,,%.9f,%.9f\n", s->imb[i].max - s->imb[i].mean, s->imb[i].mean,
                s->imb[i].max);
    }
    fprintf(out, "critical_length,,,,,%.9f,,,\n", s->cp_len);
    size_t no = 0;
    uint32_t *o = cp_order(s, &no);
    for (size_t i = 0; o && i < no; i++) {
        path_label(s, cp_pathid(o[i]), buf, sizeof buf);
        fputs("critical_path,,,,", out);
        vw_csv_name(out, buf);
        fprintf(out, ",%.9f,,,\n", s->cp_path[o[i]]);
    }
    free(o);
    for (size_t i = 0; s->cp_lane && i < s->nl; i++)
        if (s->cp_lane[i] > 0)
            fprintf(out, "critical_rank,,%u,%u,,%.9f,,,\n", s->l[i].process, s->l[i].stream,
                    s->cp_lane[i]);
}

static void write_json(const state *s, FILE *out)
{
    char buf[1024];
    for (int t = 0; t < 2; t++) {
        fputs(t ? "],\n\"causes\":[" : "{\"waits\":[", out);
        int first = 1;
        for (size_t i = 0; i < s->nw; i++) {
            if (s->w[i].table != t)
                continue;
            path_label(s, s->w[i].path, buf, sizeof buf);
            fprintf(out, "%s\n{\"pattern\":\"%s\",\"rank\":%u,\"thread\":%u,\"call_path\":",
                    first ? "" : ",", pattern_id[s->w[i].pattern], s->w[i].process,
                    s->w[i].stream);
            vw_json_string(out, buf);
            fprintf(out, ",\"seconds\":%.9f,\"instances\":%llu", s->w[i].seconds,
                    (unsigned long long)s->w[i].n);
            if (t == 0)   /* the longest, and when its call started */
                fprintf(out, ",\"longest\":%.9f,\"longest_at\":%.9f", s->w[i].worst,
                        (double)(s->w[i].worst_at - s->origin) * 1e-9);
            fputc('}', out);
            first = 0;
        }
    }
    fputs("],\n\"imbalance\":[", out);
    for (size_t i = 0; i < s->nimb; i++) {
        path_label(s, s->imb[i].path, buf, sizeof buf);
        fprintf(out, "%s\n{\"call_path\":", i ? "," : "");
        vw_json_string(out, buf);
        fprintf(out, ",\"mean\":%.9f,\"max\":%.9f,\"max_rank\":%u,\"imbalance\":%.9f}",
                s->imb[i].mean, s->imb[i].max, s->imb[i].max_rank,
                s->imb[i].max - s->imb[i].mean);
    }
    fprintf(out, "],\n\"critical_path\":{\"length\":%.9f,\"paths\":[", s->cp_len);
    size_t no = 0;
    uint32_t *o = cp_order(s, &no);
    for (size_t i = 0; o && i < no; i++) {
        path_label(s, cp_pathid(o[i]), buf, sizeof buf);
        fprintf(out, "%s\n{\"call_path\":", i ? "," : "");
        vw_json_string(out, buf);
        fprintf(out, ",\"seconds\":%.9f}", s->cp_path[o[i]]);
    }
    free(o);
    fputs("],\"ranks\":[", out);
    int first = 1;
    for (size_t i = 0; s->cp_lane && i < s->nl; i++)
        if (s->cp_lane[i] > 0) {
            fprintf(out, "%s\n{\"rank\":%u,\"thread\":%u,\"seconds\":%.9f}", first ? "" : ",",
                    s->l[i].process, s->l[i].stream, s->cp_lane[i]);
            first = 0;
        }
    fputs("]}}\n", out);
}

static void state_free(state *s)
{
    for (size_t i = 0; i < s->np; i++)
        free(s->p[i].name);
    for (size_t i = 0; i < s->nl; i++) {
        free(s->l[i].stack);
        free(s->l[i].c);
        free(s->l[i].sg);
    }
    free(s->whash);
    free(s->lhash);
    free(s->lmap);
    free(s->npath);
    free(s->lt);
    free(s->gm);
    free(s->gfirst);
    free(s->rma);
    free(s->win);
    free(s->acc);
    free(s->mark);
    free(s->touched);
    free(s->imb);
    free(s->cp_path);
    free(s->cp_lane);
    free(s->p);
    free(s->phash);
    free(s->l);
    free(s->m);
    free(s->c);
    free(s->w);
}

/* ---- what-if replay ---- */

int vw_what_if_parse(const char *spec, vw_what_if *m)
{
    memset(m, 0, sizeof *m);
    m->spec = spec;
    const char *p = spec;
    while (*p) {
        size_t len = strcspn(p, ",");
        if (len == 5 && strncmp(p, "ideal", 5) == 0) {
            m->ideal = 1;
        } else if (len == 3 && strncmp(p, "net", 3) == 0) {
            m->net = 1;
        } else if ((len > 6 && strncmp(p, "net:", 4) == 0 && (p[4] == 'L' || p[4] == 'G') &&
                    p[5] == '=') ||
                   (len > 2 && (p[0] == 'L' || p[0] == 'G') && p[1] == '=')) {
            /* net:L=V, then G=V (or the other way round) */
            const char *q = p[0] == 'n' ? p + 4 : p;
            char num[64], *end;
            size_t nl = len - (size_t)(q + 2 - p);
            double v = -1;
            if (nl > 0 && nl < sizeof num) {
                memcpy(num, q + 2, nl);
                num[nl] = 0;
                v = strtod(num, &end);
                double unit = strcmp(end, "") == 0 || strcmp(end, "s") == 0 ? 1
                              : strcmp(end, "ms") == 0                      ? 1e-3
                              : strcmp(end, "us") == 0                      ? 1e-6
                              : strcmp(end, "ns") == 0                      ? 1e-9
                                                                            : -1;
                v = end == num || unit < 0 ? -1 : v * unit;
            }
            if (!(v >= 0)) {
                fprintf(stderr,
                        "pal-view: --what-if: bad value in '%.*s' (net:L=SECONDS,G=SECONDS_PER_BYTE; "
                        "units s, ms, us, ns)\n",
                        (int)len, p);
                return -1;
            }
            m->net = 1;
            if (q[0] == 'L')
                m->set_L = 1, m->L = v;
            else
                m->set_G = 1, m->G = v;
        } else if (len > 6 && strncmp(p, "scale:", 6) == 0) {
            const char *eq = memchr(p + 6, '=', len - 6);
            char num[64], *end;
            size_t rl = eq ? (size_t)(eq - p - 6) : 0, nl = eq ? len - 7 - rl : 0;
            if (eq == NULL || rl == 0 || rl >= sizeof m->scale[0].region || nl == 0 ||
                nl >= sizeof num || m->nscale == VW_WHAT_IF_MAX) {
                fprintf(stderr, "pal-view: --what-if: bad item '%.*s' (scale:REGION=FACTOR)\n",
                        (int)len, p);
                return -1;
            }
            memcpy(num, eq + 1, nl);
            num[nl] = 0;
            double f = strtod(num, &end);
            if (*end || !(f >= 0)) {
                fprintf(stderr, "pal-view: --what-if: bad factor '%s' in '%.*s'\n", num, (int)len,
                        p);
                return -1;
            }
            memcpy(m->scale[m->nscale].region, p + 6, rl);
            m->scale[m->nscale].region[rl] = 0;
            m->scale[m->nscale++].factor = f;
        } else {
            fprintf(stderr,
                    "pal-view: --what-if: unknown item '%.*s' (ideal, net[:L=V,G=V], "
                    "scale:REGION=F)\n",
                    (int)len, p);
            return -1;
        }
        p += len;
        if (*p == ',')
            p++;
    }
    return 0;
}

/* does path p have a region named name (of len bytes) in it? */
static int path_has(const state *s, uint32_t p, const char *name, size_t len)
{
    for (; p != NO_PATH && p != NO_CAUSE; p = s->p[p].parent)
        if (s->p[p].len == len && memcmp(s->p[p].name, name, len) == 0)
            return 1;
    return 0;
}

/* Re-times the run under the model m: each lane's time outside MPI between
 * its calls (scaled per call path), each call's own time (its duration less
 * its longest wait; 0 for MPI calls with m->ideal) and each wait's
 * dependency (the late side's call: the call ends at max(its start, the
 * late call's start) + its own time), lane by lane as far as the
 * dependencies are known. end[i]: lane i's predicted end; 0, or -1 without
 * memory. */
static int replay(state *s, const vw_what_if *m, double *start, double *end)
{
    /* the output hook: a point (recorded, predicted) of lane i's time map */
#define KNOT(i, rec, pred)                                                                  \
    do {                                                                                    \
        if (m->retime)                                                                      \
            m->retime(m->retime_ctx, s->l[i].process, s->l[i].stream, (rec), (pred));       \
    } while (0)
    double *factor = malloc((s->np + 1) * sizeof *factor);
    double **ns = calloc(s->nl + 1, sizeof *ns);       /* predicted start of each call */
    unsigned char **arr = calloc(s->nl + 1, sizeof *arr);   /* ... is known */
    size_t *cur = calloc(s->nl + 1, sizeof *cur), *sgi = calloc(s->nl + 1, sizeof *sgi);
    double *clock = calloc(s->nl + 1, sizeof *clock);
    int rc = -1;
    if (!factor || !ns || !arr || !cur || !sgi || !clock)
        goto out;
    for (size_t k = 0; k <= s->np; k++) {
        factor[k] = 1;
        for (size_t j = 0; j < m->nscale; j++)
            if (k && path_has(s, (uint32_t)k - 1, m->scale[j].region, strlen(m->scale[j].region)))
                factor[k] = m->scale[j].factor;
    }
    for (size_t i = 0; i < s->nl; i++) {
        const wlane *l = &s->l[i];
        if ((ns[i] = malloc((l->n + 1) * sizeof **ns)) == NULL ||
            (arr[i] = calloc(l->n + 1, 1)) == NULL)
            goto out;
        int64_t t0 = l->n ? l->c[0].start : 0;
        if (l->nsg && (l->n == 0 || l->sg[0].t0 < t0))
            t0 = l->sg[0].t0;
        start[i] = clock[i] = (double)t0;
        KNOT(i, t0, clock[i]);
    }
    /* time outside MPI of lane l from segment *si up to t, scaled */
    for (int progress = 1; progress;) {
        progress = 0;
        for (size_t i = 0; i < s->nl; i++) {
            wlane *l = &s->l[i];
            while (cur[i] <= l->n) {
                int64_t upto = cur[i] < l->n ? l->c[cur[i]].start : INT64_MAX;
                const call *c = cur[i] < l->n ? &l->c[cur[i]] : NULL;
                /* the call's dependency must be known first */
                double dep = -1;
                int has_dep = 0;
                if (c && c->grp) {
                    /* a barrier or N x N: arrive, then wait for every member */
                    if (!arr[i][cur[i]]) {
                        double ta = clock[i];
                        while (sgi[i] < l->nsg && l->sg[sgi[i]].t0 < upto) {
                            const seg *g = &l->sg[sgi[i]++];
                            int64_t t1 = g->t1 < upto ? g->t1 : upto;
                            size_t k = g->path == NO_PATH ? 0 : (size_t)g->path + 1;
                            KNOT(i, g->t0, ta);
                            ta += (double)(t1 - g->t0) * factor[k];
                            KNOT(i, t1, ta);
                        }
                        clock[i] = ns[i][cur[i]] = ta;
                        arr[i][cur[i]] = 1;
                        progress = 1;
                    }
                    int all = 1;
                    for (size_t q = s->gfirst[c->grp - 1]; q < s->gfirst[c->grp]; q++) {
                        const member *mb = &s->gm[q];
                        if (!arr[mb->lane][mb->call]) {
                            all = 0;
                            break;
                        }
                        if (ns[mb->lane][mb->call] > dep)
                            dep = ns[mb->lane][mb->call];
                    }
                    if (!all)
                        break;
                    has_dep = 1;
                } else if (c && c->cw > 0) {
                    wlane *ll = &s->l[c->clane];
                    call *lc = call_at(ll, c->ct);
                    if (lc && lc->start == c->ct) {
                        size_t li = (size_t)(lc - ll->c);
                        if (c->clane != i && cur[c->clane] <= li)
                            break;   /* not yet replayed */
                        if (cur[c->clane] > li) {
                            dep = ns[c->clane][li];
                            has_dep = 1;
                        }
                    }
                }
                double t = clock[i];
                while (sgi[i] < l->nsg && l->sg[sgi[i]].t0 < upto) {
                    const seg *g = &l->sg[sgi[i]++];
                    int64_t t1 = g->t1 < upto ? g->t1 : upto;
                    size_t k = g->path == NO_PATH ? 0 : (size_t)g->path + 1;
                    KNOT(i, g->t0, t);
                    t += (double)(t1 - g->t0) * factor[k];
                    KNOT(i, t1, t);
                }
                if (c == NULL) {
                    clock[i] = t;
                    cur[i]++;
                    progress = 1;
                    break;
                }
                ns[i][cur[i]] = t;
                arr[i][cur[i]] = 1;
                KNOT(i, c->start, t);
                /* a wait whose late call is not known stays as recorded */
                double own = (double)(c->end - c->start - (has_dep ? c->cw : 0));
                if (m->net && ((c->flags & CALL_RECEIVED) || c->grp)) {
                    /* the network's part of the call under the model: a
                     * message's L + bytes x G; a collective's ceil(log2 n)
                     * latencies (a tree) + its bytes x G */
                    double dl = (m->set_L ? m->L * 1e9 : s->net_L) - s->net_L;
                    double dg = (m->set_G ? m->G * 1e9 : s->net_G) - s->net_G;
                    double hops = c->grp ? 0 : 1;
                    if (c->grp)
                        for (size_t k = s->gfirst[c->grp] - s->gfirst[c->grp - 1], h = 1; h < k;
                             h *= 2)
                            hops++;
                    own += hops * dl + (double)c->rbytes * dg;
                    if (own < 0)
                        own = 0;
                }
                if (m->ideal && (c->flags & (PAL_EVF_COMMUNICATION | PAL_EVF_COLLECTIVE)))
                    own = has_dep ? 0 : (double)c->cw;   /* no transfer, unknown waits kept */
                clock[i] = (dep > t ? dep : t) + own;
                KNOT(i, c->end, clock[i]);
                cur[i]++;
                progress = 1;
            }
        }
    }
    for (size_t i = 0; i < s->nl; i++) {
        if (cur[i] <= s->l[i].n)   /* a cycle of dependencies: the rest as recorded */
            clock[i] += (double)((s->l[i].n ? s->l[i].c[s->l[i].n - 1].end : 0) -
                                 (cur[i] < s->l[i].n ? s->l[i].c[cur[i]].start : 0));
        if (cur[i] <= s->l[i].n && s->l[i].n)
            KNOT(i, s->l[i].c[s->l[i].n - 1].end, clock[i]);
        end[i] = clock[i];
    }
    rc = 0;
out:
    for (size_t i = 0; ns && i < s->nl; i++)
        free(ns[i]);
    for (size_t i = 0; arr && i < s->nl; i++)
        free(arr[i]);
    free(ns);
    free(arr);
    free(factor);
    free(cur);
    free(sgi);
    free(clock);
    return rc;
#undef KNOT
}

static int write_what_if(state *s, const vw_what_if *m, int form, FILE *out)
{
    double *st = calloc(s->nl + 1, sizeof *st), *en = calloc(s->nl + 1, sizeof *en);
    double *ost = calloc(s->nl + 1, sizeof *ost), *oen = calloc(s->nl + 1, sizeof *oen);
    vw_what_if none;
    memset(&none, 0, sizeof none);
    int rc = -1;
    if (!st || !en || !ost || !oen || replay(s, m, st, en) || replay(s, &none, ost, oen))
        goto out;
    double t0 = 0, mend = 0, pend = 0;
    for (size_t i = 0; i < s->nl; i++) {
        if (i == 0 || st[i] < t0)
            t0 = st[i];
        if (i == 0 || oen[i] > mend)
            mend = oen[i];
        if (i == 0 || en[i] > pend)
            pend = en[i];
    }
    double rec = 0;   /* the run as measured: its lanes' last end */
    for (size_t i = 0; i < s->nl; i++) {
        const wlane *l = &s->l[i];
        double e = l->n ? (double)l->c[l->n - 1].end : 0;
        if (l->nsg && (double)l->sg[l->nsg - 1].t1 > e)
            e = (double)l->sg[l->nsg - 1].t1;
        if (e > rec)
            rec = e;
    }
    /* the network: measured, and as the model has it */
    double nl = s->net_L * 1e-9, ng = s->net_G * 1e-9;
    double ml = m->ideal ? 0 : m->set_L ? m->L : nl, mg = m->ideal ? 0 : m->set_G ? m->G : ng;
    if (form == VW_WAITS_CSV || form == VW_WAITS_JSON) {
        int csv = form == VW_WAITS_CSV;
        fputs(csv ? "table,rank,thread,recorded_s,predicted_s\n" : "{\"spec\":", out);
        if (csv)
            fprintf(out,
                    "run,,,%.9f,%.9f\nreplayed,,,%.9f,%.9f\nnet_latency,,,%.12f,%.12f\n"
                    "net_gap_per_byte,,,%.15f,%.15f\n",
                    (rec - t0) * 1e-9, (pend - t0) * 1e-9, (mend - t0) * 1e-9, (pend - t0) * 1e-9,
                    nl, ml, ng, mg);
        else {
            vw_json_string(out, m->spec);
            fprintf(out,
                    ",\"measured\":%.9f,\"replayed\":%.9f,\"predicted\":%.9f,"
                    "\"network\":{\"messages\":%zu,\"L\":%.12g,\"G\":%.12g,\"model_L\":%.12g,"
                    "\"model_G\":%.12g},\"lanes\":[",
                    (rec - t0) * 1e-9, (mend - t0) * 1e-9, (pend - t0) * 1e-9, s->net_n, nl, ng,
                    ml, mg);
        }
        for (size_t i = 0; i < s->nl; i++)
            fprintf(out,
                    csv ? "%slane,%u,%u,%.9f,%.9f\n"
                        : "%s\n{\"rank\":%u,\"thread\":%u,\"recorded\":%.9f,\"predicted\":%.9f}",
                    csv ? "" : i ? "," : "", s->l[i].process, s->l[i].stream,
                    (oen[i] - st[i]) * 1e-9, (en[i] - st[i]) * 1e-9);
        if (!csv)
            fputs("]}\n", out);
        rc = 0;
        goto out;
    }
    fprintf(out, "What-if replay (%s)\n", m->spec);
    fprintf(out, "  %-28s %14.6f s\n", "measured", (rec - t0) * 1e-9);
    fprintf(out, "  %-28s %14.6f s\n", "replayed as recorded", (mend - t0) * 1e-9);
    fprintf(out, "  %-28s %14.6f s\n", "predicted", (pend - t0) * 1e-9);
    fprintf(out, "  %-28s %14.6f s\n", "gain", (mend - pend) * 1e-9);
    fprintf(out, "  network measured from %zu messages: L = %.6g s, G = %.6g s/byte\n", s->net_n,
            nl, ng);
    if (m->net || m->ideal)
        fprintf(out, "  network model: L = %.6g s, G = %.6g s/byte\n", ml, mg);
    fprintf(out, "  %6s %6s %14s %14s\n", "rank", "thread", "recorded", "predicted");
    for (size_t i = 0; i < s->nl; i++)
        fprintf(out, "  %6u %6u %14.6f %14.6f\n", s->l[i].process, s->l[i].stream,
                (oen[i] - st[i]) * 1e-9, (en[i] - st[i]) * 1e-9);
    rc = 0;
out:
    free(st);
    free(en);
    free(ost);
    free(oen);
    return rc;
}

/* ---- the analysis (views/an.h): one pass shared with the others ---- */

/* called for the runs that run the wait states (vw_run_need) */
static int an_begin(vw_run *r)
{
    return (r->waits = calloc(1, sizeof *r->waits)) ? 0 : -1;
}

static int an_event(vw_run *r, const pal_event *e, const vw_at *at)
{
    state *s = r->waits;
    if (s == NULL)
        return 0;
    s->cur = r->cur;
    return on_event(s, pal_events_matcher(r->ev), e, at);
}

static int an_paired(vw_run *r, const pal_msg_end *snd, const pal_msg_end *rcv)
{
    state *s = r->waits;
    if (s == NULL)
        return 0;
    if (grow((void **)&s->m, &s->mcap, s->nm + 1, sizeof *s->m))
        return -1;
    s->m[s->nm++] = (msg){snd->process, snd->stream, rcv->process, rcv->stream,
                          (int64_t)snd->time, (int64_t)rcv->time,
                          snd->bytes > rcv->bytes ? snd->bytes : rcv->bytes, snd->user, rcv->user};
    return 0;
}

static void okey_min(okey *a, const okey *b)
{
    if (vw_okey_cmp(b, a) < 0)
        *a = *b;
}

/* Another share's state f into s: its call paths (found by name under
 * their parent), its lanes with their calls and times outside MPI (a lane
 * is read by one share: taken over), its messages, collective parts, RMA
 * operations, windows and waits found while reading (time in I/O). */
static int merge_state(state *s, state *f)
{
    uint32_t *pmap = malloc((f->np + 1) * sizeof *pmap);
    int rc = -1;
    if (pmap == NULL)
        return -1;
    for (size_t i = 0; i < f->np; i++) {   /* a path's parent comes before it */
        const path *q = &f->p[i];
        s->cur = q->first;
        pmap[i] = path_find(s, q->parent == NO_PATH ? NO_PATH : pmap[q->parent], q->name, q->len);
        if (pmap[i] == NO_PATH)
            goto out;
        okey_min(&s->p[pmap[i]].first, &q->first);
    }
#define PMAP(x) ((x) == NO_PATH ? NO_PATH : pmap[(x)])
    for (size_t i = 0; i < f->nl; i++) {
        wlane *fl = &f->l[i];
        if (lane_find(s, fl->process, fl->stream))
            goto out;   /* a thread read by two shares: cannot be */
        s->cur = fl->first;
        wlane *l = lane_get(s, fl->process, fl->stream);
        if (l == NULL)
            goto out;
        for (size_t k = 0; k < fl->n; k++)
            fl->c[k].path = PMAP(fl->c[k].path);
        for (size_t k = 0; k < fl->nsg; k++)
            fl->sg[k].path = PMAP(fl->sg[k].path);
        l->c = fl->c, l->n = fl->n, l->cap = fl->cap;
        l->sg = fl->sg, l->nsg = fl->nsg, l->sgcap = fl->sgcap;
        l->t = fl->t, l->have_t = fl->have_t, l->unsorted = fl->unsorted;
        fl->c = NULL, fl->sg = NULL, fl->n = fl->nsg = 0;
    }
    if (grow((void **)&s->m, &s->mcap, s->nm + f->nm, sizeof *s->m) ||
        grow((void **)&s->c, &s->ccap, s->nc + f->nc, sizeof *s->c) ||
        grow((void **)&s->rma, &s->rmacap, s->nrma + f->nrma, sizeof *s->rma) ||
        grow((void **)&s->win, &s->wincap, s->nwin + f->nwin, sizeof *s->win))
        goto out;
    if (f->nm)
        memcpy(s->m + s->nm, f->m, f->nm * sizeof *s->m);
    s->nm += f->nm;
    for (size_t i = 0; i < f->nc; i++) {
        part *g = &s->c[s->nc++];
        *g = f->c[i];
        g->path = PMAP(g->path);
        g->k += s->nkept;
    }
    for (size_t i = 0; i < f->nrma; i++) {
        s->rma[s->nrma] = f->rma[i];
        s->rma[s->nrma++].k += s->nkept;
    }
    s->nkept += f->nkept;
    if (f->nwin)
        memcpy(s->win + s->nwin, f->win, f->nwin * sizeof *s->win);
    s->nwin += f->nwin;
    for (size_t i = 0; i < f->nw; i++) {
        const wait *x = &f->w[i];
        if (wait_add(s, x->table, x->pattern, PMAP(x->path), x->process, x->stream, x->seconds))
            goto out;
        wait *y = &s->w[s->wlast];
        y->n += x->n - 1;
        if (x->worst > y->worst) {
            y->worst = x->worst;
            y->worst_at = x->worst_at;
        }
    }
#undef PMAP
    s->thread_waits |= f->thread_waits;
    rc = 0;
out:
    free(pmap);
    return rc;
}

static int an_merge(vw_run *r, const vw_run *from, const vw_maps *m)
{
    (void)m;
    if (r->waits == NULL || from->waits == NULL)
        return 0;
    return merge_state(r->waits, from->waits);
}

/* a permutation by first-seen keys (ties: the old order): newpos[old] */
static const char *perm_base;
static size_t perm_size, perm_off;
static int by_first(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    int c = vw_okey_cmp((const okey *)(perm_base + x * perm_size + perm_off),
                        (const okey *)(perm_base + y * perm_size + perm_off));
    return c ? c : (x > y) - (x < y);
}

static size_t *first_order(const void *base, size_t n, size_t size, size_t off)
{
    size_t *o = malloc((n + 1) * sizeof *o);
    if (o == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++)
        o[i] = i;
    perm_base = base;
    perm_size = size;
    perm_off = off;
    if (n > 1)
        qsort(o, n, sizeof *o, by_first);
    return o;
}

/* a message's key: its later end's (when the one matcher paired it, in
 * the reader's order), then its earlier end's */
static void msg_keys(const msg *m, okey *late, okey *early)
{
    okey a = {m->st, m->sp, m->ss, m->su}, b = {m->rt, m->rp, m->rs, m->ru};
    int c = vw_okey_cmp(&a, &b) > 0;
    *late = c ? a : b;
    *early = c ? b : a;
}

static int by_msg(const void *x, const void *y)
{
    okey la, ea, lb, eb;
    msg_keys(x, &la, &ea);
    msg_keys(y, &lb, &eb);
    int c = vw_okey_cmp(&la, &lb);
    return c ? c : vw_okey_cmp(&ea, &eb);
}

/* Puts what the shares read in the order one reader gives: call paths and
 * lanes in the order first seen, messages in the order they matched,
 * windows in the order created. Then the results do not depend on how the
 * run was shared. */
static int canon(state *s)
{
    size_t *o = first_order(s->p, s->np, sizeof *s->p, offsetof(path, first));
    uint32_t *pos = malloc((s->np + 1) * sizeof *pos);
    path *np = malloc((s->np + 1) * sizeof *np);
    size_t *lo = o ? first_order(s->l, s->nl, sizeof *s->l, offsetof(wlane, first)) : NULL;
    wlane *nl = malloc((s->nl + 1) * sizeof *nl);
    int rc = -1;
    if (!o || !pos || !np || !lo || !nl)
        goto out;
    for (size_t i = 0; i < s->np; i++)
        pos[o[i]] = (uint32_t)i;
#define PPOS(x) ((x) == NO_PATH ? NO_PATH : pos[(x)])
    for (size_t i = 0; i < s->np; i++) {
        np[i] = s->p[o[i]];
        np[i].parent = PPOS(np[i].parent);
    }
    if (s->np)
        memcpy(s->p, np, s->np * sizeof *np);
    for (size_t i = 0; i < s->nl; i++) {
        wlane *l = &s->l[i];
        for (size_t k = 0; k < l->n; k++)
            l->c[k].path = PPOS(l->c[k].path);
        for (size_t k = 0; k < l->nsg; k++)
            l->sg[k].path = PPOS(l->sg[k].path);
        free(l->stack);   /* read: the stacks are done with */
        l->stack = NULL;
        l->depth = l->scap = 0;
    }
    for (size_t i = 0; i < s->nc; i++)
        s->c[i].path = PPOS(s->c[i].path);
    for (size_t i = 0; i < s->nw; i++)
        s->w[i].path = PPOS(s->w[i].path);
#undef PPOS
    free(s->lmap);    /* read: the manager's indexes are done with */
    free(s->npath);
    s->lmap = NULL;
    s->npath = NULL;
    s->nlmap = s->nnpath = 0;
    free(s->phash);   /* rebuilt when next needed */
    s->phash = NULL;
    s->phcap = 0;
    memset(s->pcache, 0, sizeof s->pcache);
    free(s->whash);
    s->whash = NULL;
    s->whcap = 0;
    /* lanes */
    for (size_t i = 0; i < s->nl; i++)
        nl[i] = s->l[lo[i]];
    if (s->nl)
        memcpy(s->l, nl, s->nl * sizeof *nl);
    memset(s->lhash, 0, s->lhcap * sizeof *s->lhash);
    for (size_t i = 0; i < s->nl; i++)
        *lane_slot(s, s->l[i].process, s->l[i].stream) = i + 1;
    s->last_lane = 0;
    /* messages: one reader gives them in this order already */
    for (size_t i = 1; i < s->nm; i++)
        if (by_msg(&s->m[i - 1], &s->m[i]) > 0) {
            qsort(s->m, s->nm, sizeof *s->m, by_msg);
            break;
        }
    /* windows, by when created (few: insertion) */
    for (size_t i = 1; i < s->nwin; i++)
        for (size_t j = i; j > 0 && vw_okey_cmp(&s->win[j].first, &s->win[j - 1].first) < 0; j--) {
            struct win t = s->win[j];
            s->win[j] = s->win[j - 1];
            s->win[j - 1] = t;
        }
    rc = 0;
out:
    free(o);
    free(pos);
    free(np);
    free(lo);
    free(nl);
    return rc;
}

/* the tables, from the merged whole: the patterns, causes, imbalance and
 * the critical path */
static int an_finish(vw_run *r)
{
    state *s = r->waits;
    if (s == NULL)
        return 0;
    /* times in the outputs are from the trace's start, as the other views'
     * (its header's start time, else its first record) */
    s->origin = r->have_base ? (int64_t)(r->base_ticks * 1e9 / r->tps + 0.5) : 0;
    if (canon(s) || analyse(s)) {
        fprintf(stderr, "pal-view: --waits: out of memory\n");
        return -1;
    }
    merge_waits(s);
    if (s->nimb > 1)
        qsort(s->imb, s->nimb, sizeof *s->imb, by_imbalance);
    return 0;
}

static void an_release(vw_run *r)
{
    if (r->waits == NULL)
        return;
    state_free(r->waits);
    free(r->waits);
    r->waits = NULL;
}

/* pal-view --mpi sends a share's partial result between processes: what
 * merge_state takes of it, in the state's own order (call paths before the
 * paths under them, lanes, messages, collective parts, one-sided
 * operations, windows, the waits found while reading: time in I/O). A
 * call is its start, end, path and flags: the rest of it is made by
 * analyse, at the end. Unpacking makes the paths, lanes and waits again
 * through path_find, lane_get and wait_add (their hashes with them), so
 * that the unpacked state is one merge_state takes as a share read here. */
#define U32 ((size_t)UINT32_MAX + 1)

static void put_path(vw_pack *b, uint32_t p) { vw_put_u64(b, p == NO_PATH ? 0 : (uint64_t)p + 1); }

/* a path put by put_path: NO_PATH, or an index below np */
static uint32_t get_path(vw_unpack *u, size_t np)
{
    size_t i = vw_get_index(u, np + 1);
    return i ? (uint32_t)(i - 1) : NO_PATH;
}

/* an integer from lo to hi; bad otherwise */
static int64_t get_range(vw_unpack *u, int64_t lo, int64_t hi)
{
    int64_t v = vw_get_i64(u);
    if (v < lo || v > hi) {
        u->bad = 1;
        return lo;
    }
    return v;
}

static int an_pack(const vw_run *r, vw_pack *b)
{
    const state *s = r->waits;
    vw_put_u64(b, s != NULL);
    if (s == NULL)
        return 0;   /* not asked for */
    vw_put_u64(b, s->np);
    for (size_t i = 0; i < s->np; i++) {
        put_path(b, s->p[i].parent);
        vw_put_bytes(b, s->p[i].name, s->p[i].len);
        vw_put_okey(b, &s->p[i].first);
    }
    vw_put_u64(b, s->nl);
    for (size_t i = 0; i < s->nl; i++) {
        const wlane *l = &s->l[i];
        vw_put_u64(b, l->process);
        vw_put_u64(b, l->stream);
        vw_put_okey(b, &l->first);
        vw_put_i64(b, l->t);
        vw_put_u64(b, (uint64_t)l->have_t);
        vw_put_u64(b, (uint64_t)l->unsorted);
        vw_put_u64(b, l->n);
        for (size_t k = 0; k < l->n; k++) {
            vw_put_i64(b, l->c[k].start);
            vw_put_i64(b, l->c[k].end);
            put_path(b, l->c[k].path);
            vw_put_u64(b, l->c[k].flags);
        }
        vw_put_u64(b, l->nsg);
        for (size_t k = 0; k < l->nsg; k++) {
            vw_put_i64(b, l->sg[k].t0);
            vw_put_i64(b, l->sg[k].t1);
            put_path(b, l->sg[k].path);
        }
    }
    vw_put_u64(b, s->nm);
    for (size_t i = 0; i < s->nm; i++) {
        const msg *m = &s->m[i];
        vw_put_u64(b, m->sp);
        vw_put_u64(b, m->ss);
        vw_put_u64(b, m->rp);
        vw_put_u64(b, m->rs);
        vw_put_i64(b, m->st);
        vw_put_i64(b, m->rt);
        vw_put_u64(b, m->bytes);
        vw_put_u64(b, m->su);
        vw_put_u64(b, m->ru);
    }
    vw_put_u64(b, s->nc);
    for (size_t i = 0; i < s->nc; i++) {
        const part *g = &s->c[i];
        vw_put_u64(b, g->ctx);
        vw_put_u64(b, g->seq);
        vw_put_u64(b, g->process);
        vw_put_u64(b, g->stream);
        vw_put_u64(b, g->size);
        put_path(b, g->path);
        vw_put_i64(b, g->start);
        vw_put_i64(b, g->end);
        vw_put_i64(b, g->root);
        vw_put_i64(b, g->ws);
        vw_put_i64(b, g->we);
        vw_put_i64(b, g->op);
        vw_put_i64(b, g->nb);
        vw_put_i64(b, g->pattern);
        vw_put_u64(b, g->bytes);
        vw_put_u64(b, g->k);
    }
    vw_put_u64(b, s->nrma);
    for (size_t i = 0; i < s->nrma; i++) {
        const rmaop *o = &s->rma[i];
        vw_put_u64(b, o->process);
        vw_put_u64(b, o->stream);
        vw_put_i64(b, o->t);
        vw_put_i64(b, o->window);
        vw_put_i64(b, o->peer);
        vw_put_i64(b, o->kind);
        vw_put_i64(b, o->lock);
        vw_put_u64(b, o->k);
    }
    vw_put_u64(b, s->nwin);
    for (size_t i = 0; i < s->nwin; i++) {
        vw_put_i64(b, s->win[i].id);
        vw_put_u64(b, s->win[i].size);
        vw_put_okey(b, &s->win[i].first);
    }
    vw_put_u64(b, s->nw);
    for (size_t i = 0; i < s->nw; i++) {
        const wait *w = &s->w[i];
        vw_put_u64(b, (uint64_t)w->table);
        vw_put_u64(b, (uint64_t)w->pattern);
        put_path(b, w->path);
        vw_put_u64(b, w->process);
        vw_put_u64(b, w->stream);
        vw_put_f64(b, w->seconds);
        vw_put_u64(b, w->n);
        vw_put_f64(b, w->worst);
        vw_put_i64(b, w->worst_at);
    }
    vw_put_u64(b, s->nkept);
    vw_put_u64(b, (uint64_t)s->thread_waits);
    return 0;
}

/* the state of an_pack into s (new): -1 out of memory or bad bytes */
static int unpack_state(state *s, vw_unpack *u)
{
    size_t n = vw_get_count(u, 6 * 8);
    for (size_t i = 0; i < n && !u->bad; i++) {
        uint32_t parent = get_path(u, i);   /* a path's parent comes before it */
        size_t len;
        const char *name = vw_get_bytes(u, &len);
        okey first = vw_get_okey(u);
        if (u->bad)
            break;
        if (path_find(s, parent, name, len) != i)
            return -1;   /* out of memory, or a path twice */
        s->p[i].first = first;
    }
    n = vw_get_count(u, 10 * 8);
    for (size_t i = 0; i < n && !u->bad; i++) {
        uint32_t process = (uint32_t)vw_get_index(u, U32);
        uint32_t stream = (uint32_t)vw_get_index(u, U32);
        s->cur = vw_get_okey(u);
        if (u->bad)
            break;
        if (lane_find(s, process, stream))
            return -1;   /* a lane twice */
        wlane *l = lane_get(s, process, stream);
        if (l == NULL)
            return -1;
        l->t = vw_get_i64(u);
        l->have_t = vw_get_u64(u) != 0;
        l->unsorted = vw_get_u64(u) != 0;
        size_t nc = vw_get_count(u, 4 * 8);
        if (grow((void **)&l->c, &l->cap, nc, sizeof *l->c))
            return -1;
        for (size_t k = 0; k < nc && !u->bad; k++) {
            call *c = &l->c[l->n++];
            memset(c, 0, sizeof *c);
            c->start = vw_get_i64(u);
            c->end = vw_get_i64(u);
            c->path = get_path(u, s->np);
            c->flags = (unsigned)vw_get_index(u, U32);
        }
        size_t ns = vw_get_count(u, 3 * 8);
        if (grow((void **)&l->sg, &l->sgcap, ns, sizeof *l->sg))
            return -1;
        for (size_t k = 0; k < ns && !u->bad; k++) {
            seg *g = &l->sg[l->nsg++];
            g->t0 = vw_get_i64(u);
            g->t1 = vw_get_i64(u);
            g->path = get_path(u, s->np);
        }
    }
    n = vw_get_count(u, 9 * 8);
    if (grow((void **)&s->m, &s->mcap, n, sizeof *s->m))
        return -1;
    for (size_t i = 0; i < n && !u->bad; i++) {
        msg *m = &s->m[s->nm++];
        m->sp = (uint32_t)vw_get_index(u, U32);
        m->ss = (uint32_t)vw_get_index(u, U32);
        m->rp = (uint32_t)vw_get_index(u, U32);
        m->rs = (uint32_t)vw_get_index(u, U32);
        m->st = vw_get_i64(u);
        m->rt = vw_get_i64(u);
        m->bytes = vw_get_u64(u);
        m->su = vw_get_u64(u);
        m->ru = vw_get_u64(u);
    }
    n = vw_get_count(u, 16 * 8);
    if (grow((void **)&s->c, &s->ccap, n, sizeof *s->c))
        return -1;
    for (size_t i = 0; i < n && !u->bad; i++) {
        part *g = &s->c[s->nc++];
        memset(g, 0, sizeof *g);
        g->ctx = vw_get_u64(u);
        g->seq = vw_get_u64(u);
        g->process = (uint32_t)vw_get_index(u, U32);
        g->stream = (uint32_t)vw_get_index(u, U32);
        g->size = (uint32_t)vw_get_index(u, U32);
        g->path = get_path(u, s->np);
        g->start = vw_get_i64(u);
        g->end = vw_get_i64(u);
        g->root = vw_get_i64(u);
        g->ws = vw_get_i64(u);
        g->we = vw_get_i64(u);
        g->op = (pal_coll_op)get_range(u, PAL_COLL_OP_NONE, PAL_COLL_OP_COUNT - 1);
        g->nb = (int)get_range(u, 0, 1);
        g->pattern = (int)get_range(u, -1, P_COUNT - 1);
        g->bytes = vw_get_u64(u);
        g->k = vw_get_u64(u);
    }
    n = vw_get_count(u, 8 * 8);
    if (grow((void **)&s->rma, &s->rmacap, n, sizeof *s->rma))
        return -1;
    for (size_t i = 0; i < n && !u->bad; i++) {
        rmaop *o = &s->rma[s->nrma++];
        memset(o, 0, sizeof *o);
        o->process = (uint32_t)vw_get_index(u, U32);
        o->stream = (uint32_t)vw_get_index(u, U32);
        o->t = vw_get_i64(u);
        o->window = vw_get_i64(u);
        o->peer = vw_get_i64(u);
        o->kind = (pal_rma_kind)get_range(u, PAL_RMA_KIND_NONE, PAL_RMA_KIND_COUNT - 1);
        o->lock = (int)get_range(u, 0, 2);
        o->k = vw_get_u64(u);
    }
    n = vw_get_count(u, 6 * 8);
    if (grow((void **)&s->win, &s->wincap, n, sizeof *s->win))
        return -1;
    for (size_t i = 0; i < n && !u->bad; i++) {
        struct win *w = &s->win[s->nwin++];
        w->id = vw_get_i64(u);
        w->size = (uint32_t)vw_get_index(u, U32);
        w->first = vw_get_okey(u);
    }
    n = vw_get_count(u, 9 * 8);
    for (size_t i = 0; i < n && !u->bad; i++) {
        int table = (int)get_range(u, 0, 1);
        int pattern = (int)get_range(u, 0, P_COUNT - 1);
        uint32_t pth = get_path(u, s->np);
        uint32_t process = (uint32_t)vw_get_index(u, U32);
        uint32_t stream = (uint32_t)vw_get_index(u, U32);
        double seconds = vw_get_f64(u);
        uint64_t nw = vw_get_u64(u);
        double worst = vw_get_f64(u);
        int64_t worst_at = vw_get_i64(u);
        if (u->bad)
            break;
        if (wait_add(s, table, pattern, pth, process, stream, seconds) || s->nw != i + 1)
            return -1;   /* out of memory, or a row twice */
        wait *w = &s->w[i];
        w->n = nw;
        w->worst = worst;
        w->worst_at = worst_at;
    }
    s->nkept = vw_get_u64(u);
    s->thread_waits = (int)get_range(u, 0, 1);
    return u->bad ? -1 : 0;
}

static int an_unpack(vw_run *r, vw_unpack *u)
{
    an_release(r);   /* begin's empty state, when asked for */
    uint64_t have = vw_get_u64(u);
    if (u->bad || have > 1)
        return -1;
    if (have == 0)
        return 0;
    if ((r->waits = calloc(1, sizeof *r->waits)) == NULL)
        return -1;
    return unpack_state(r->waits, u);   /* a state left half made: freed with r */
}
#undef U32

const vw_analysis vw_an_waits = {"waits", an_begin, NULL, an_event, NULL, an_merge, NULL,
                                 an_finish, an_release, an_pack, an_unpack, an_paired};

int vw_waits_write(const vw_run *r, int form, const vw_what_if *what_if, FILE *out)
{
    state *s = r->waits;
    if (s == NULL) {
        fprintf(stderr, "pal-view: --waits: the run was read without the wait states\n");
        return -1;
    }
    if (what_if)
        return write_what_if(s, what_if, form, out);
    if (form == VW_WAITS_CSV)
        write_csv(s, out);
    else if (form == VW_WAITS_JSON)
        write_json(s, out);
    else
        write_text(s, out);
    return 0;
}

int vw_waits_run_jobs(const char *const *paths, size_t n, const char *dict_path, int form,
                      const vw_what_if *what_if, unsigned jobs, FILE *out)
{
    vw_run *run = NULL;
    static const vw_analysis *const need[] = {&vw_an_waits};
    vw_run_need(need, 1, 0);
    int rc = vw_run_traces_jobs(paths, n, dict_path, NULL, jobs, &run);
    vw_run_need(NULL, 0, 1);
    if (rc >= 0 && vw_waits_write(run, form, what_if, out))
        rc = -1;
    vw_run_free(run);
    return rc;
}

int vw_waits_run(const char *const *paths, size_t n, const char *dict_path, int form,
                 const vw_what_if *what_if, FILE *out)
{
    return vw_waits_run_jobs(paths, n, dict_path, form, what_if, 1, out);
}

/* ---- the HTML report's section ---- */

static const vw_run *html_run;

void vw_waits_source(const vw_run *r) { html_run = r; }

int vw_waits_html(FILE *out)
{
    if (html_run == NULL || html_run->waits == NULL)
        return 0;
    const state *s = html_run->waits;
    char buf[1024];
    fputs("<h2>Wait states</h2>\n", out);
    fputs("<p class=\"hint\">seconds each rank and thread waited, by pattern and call path "
          "(doc/views.md, &#8220;Wait states&#8221;; doc/diagnosis.md); click a row: the "
          "timeline shows its longest instance</p>\n<table class=\"sortable\" id=\"waits-table\">"
          "<thead><tr><th>pattern</th><th>rank</th><th>thread</th><th>call path</th>"
          "<th>seconds</th><th>instances</th><th>longest s</th><th>at s</th></tr></thead>"
          "<tbody>\n",
          out);
    for (size_t i = 0; i < s->nw; i++) {
        const wait *w = &s->w[i];
        if (w->table != 0)
            continue;
        double at = (double)(w->worst_at - s->origin) * 1e-9;
        path_label(s, w->path, buf, sizeof buf);
        fprintf(out, "<tr data-at=\"%.9f\" data-len=\"%.9f\" data-rank=\"%u\"><td>", at, w->worst,
                w->process);
        vw_xml_escape(out, pattern_title[w->pattern]);
        fprintf(out, "</td><td data-v=\"%u\">%u</td><td data-v=\"%u\">%u</td><td>", w->process,
                w->process, w->stream, w->stream);
        vw_xml_escape(out, buf);
        fprintf(out,
                "</td><td data-v=\"%.17g\">%.6f</td><td data-v=\"%llu\">%llu</td>"
                "<td data-v=\"%.17g\">%.6f</td><td data-v=\"%.17g\">%.6f</td></tr>\n",
                w->seconds, w->seconds, (unsigned long long)w->n, (unsigned long long)w->n,
                w->worst, w->worst, at, at);
    }
    fprintf(out, "</tbody></table>\n<p>critical path: %.6f s</p>\n", s->cp_len);
    return 0;
}
