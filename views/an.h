/* an.h -- the analyses of pal-view (views/an-*.c) and their manager
 * (views/filter.c): the state of one run, or of one share of a run, that
 * the analyses derive from the event layer's events, and the operations
 * table each analysis implements. Private to pal-view.
 *
 * The manager reads the events (pal_events) and keeps what every analysis
 * shares: the lanes (threads), the regions, the call paths and the
 * counters by name, each numbered where first seen, and each thread's
 * stack of open frames. It calls every analysis's operations in the order
 * of vw_analyses: begin before the first event, record for a thread's
 * record (before its events), event for each event, end at the end of a
 * share, merge to take another share's partial result (with the maps of
 * its lanes, regions, call paths and counters into this one's), renumber
 * when the things first seen are put in that order, finish to make the
 * public facts (vw_facts), release to free. */
#ifndef VW_AN_H
#define VW_AN_H

#include "views/vw.h"

#define NBINS 1024
#define MSG_SAMPLE 4096

/* ---------------- a small uint64 -> long hash map ---------------- */
typedef struct hmap {
    uint64_t *keys;
    long *vals;
    size_t cap, n;
} hmap;

#define GROW(arr, n, cap)                                                               \
    ((n) < (cap) ? 0                                                                   \
                 : ((cap) = (cap) ? (cap) * 2 : 16,                                      \
                    ((arr) = vw_realloc_or_free((arr), (cap) * sizeof *(arr))) ? 0 : -1))

/* ---------------- run state ---------------- */
/* Where a thing was first seen: the record's time, thread and place in the
 * thread. Regions, call paths and counters are numbered in this order at
 * the end, so that the partial results of shares merge into the numbering
 * one reader gives (the reader's order, ties by process and thread). */
typedef struct okey {
    int64_t t;
    uint32_t process, stream;
    uint64_t seq;
} okey;

/* An open frame as the statistics keep it; what its enter and leave said
 * comes with the leave event (pal_event). Flags are the event's
 * (PAL_EVF_COMMUNICATION, _IDLE, _COLLECTIVE, _SETUP). */
typedef struct frame {
    long region, node;
    double start, child;
    int64_t start_ns, child_ns;
    unsigned flags;
    int outer;          /* no other instance of its region is open on the lane */
} frame;

/* Counters per region. ECL samples a thread's counters just after the enter
 * or leave that is the boundary, so a boundary's values are those of the
 * first samples that follow it on the lane: enters and leaves wait in a
 * queue (cev) until the next samples arrive, then replay on a stack of their
 * own (cfr) with the values now current. Boundaries with no sample of their
 * own (ECL_COUNTER_PERIOD) take the next samples' values. A lane's stack
 * starts with its first sample. */
typedef struct cev {
    long region, node;  /* region < 0: a leave */
    int outer;
} cev;

typedef struct cfr {
    long region, node;
    int outer;
} cfr;

typedef struct clane {
    int started;        /* the lane had a sample */
    double *val;        /* current value per counter */
    unsigned char *seen;
    size_t nval;
    int fresh;          /* samples arrived since the last queued boundary */
    cev *q;
    size_t nq, qcap;
    cfr *stk;
    size_t depth, scap;
    double *sv;         /* per cfr: start[stride], child[stride] */
    size_t svcap, stride;
} clane;

/* A lane: everything in it depends on its own events only (its bins have
 * their own width), so that a lane read by any share comes out the same. */
typedef struct lane {
    vw_lane pub;
    frame *stack;
    size_t depth, cap;
    double width;       /* of its bins, seconds */
    double *bins;
    double *setup;      /* NBINS seconds of the process's start and end */
    vw_stat *rstat;
    size_t nrstat;
    uint32_t *active;   /* open instances per region */
    size_t nactive;
    clane c;
    double last;
    int started;
    uint64_t nrec;      /* records of the lane so far */
    unsigned name_gen;  /* definitions seen when its name was last looked up */
} lane;

/* per region, besides its public statistics */
typedef struct rinfo {
    okey first;
    int64_t spread_sum, spread_max;   /* collectives, ns */
} rinfo;

/* per call-tree node: times summed over lanes in exact ns */
typedef struct ninfo {
    okey first;
    int64_t incl, excl;
} ninfo;

/* a matched message: in the sample while at most MSG_SAMPLE, else a
 * bottom-k sample by hash (the same messages whatever order they match in) */
typedef struct ment {
    okey k;             /* the later end: when the one matcher paired them */
    uint64_t h;
    uint32_t sp, ss, dp, ds;    /* process and stream of each end */
    int64_t ts, tr;
    uint64_t bytes;
} ment;

/* an end the share's matcher left waiting: its partner may be in another share */
typedef struct wend {
    pal_msg_key key;
    int side;
    pal_msg_end end;
} wend;

/* a collective instance not complete in the share (or of unknown size) */
typedef struct cpend {
    uint64_t context, seq;
    long region;
    pal_coll_instance c;
} cpend;

struct vw_run {
    vw_facts f;
    const vw_sink *sink;
    pal_events *ev;         /* the event layer (names) while reading */
    double base_ticks, tps;
    int have_base;
    /* the record being read: its time in ns and in seconds, where it is */
    const pal_record *rec;
    int64_t rec_ns;
    double rec_sec;
    okey cur;
    unsigned gen;           /* definitions seen: lanes without a name look again */
    int partial;            /* the reader said damage or a partial trace */
    int share;              /* a share of several: keep what other shares complete */
    int oom;                /* keep_end ran out of memory */
    /* a share of several: the reader's messages, said once after the
     * threads end; the damage its reader saw at open (every share's
     * reader sees the whole run's files) */
    char **diag;
    size_t ndiag, diagcap;
    pal_reader_stats at_open;
    double width;
    double *util;
    lane *lanes;
    size_t nlanes, lanecap;
    hmap lane_of;
    vw_region *regions;
    rinfo *rinf;
    size_t nregions, regcap, rinfcap;
    hmap region_by_name;
    char **names;     /* owned strings */
    size_t nnames, namecap;
    vw_node *nodes;
    ninfo *ninf;
    size_t nnodes, nodecap, ninfcap;
    hmap node_by_key;
    hmap comm_of;         /* (src<<32|dst) -> index */
    uint64_t *c_count;
    double *c_bytes;
    uint32_t *c_src, *c_dst;
    size_t nc, ccap;
    ment *ms;             /* the message sample */
    size_t nms;
    int64_t lat_sum, lat_max;   /* ns */
    vw_msg *msgs;
    size_t nmsgs;
    wend *w;
    size_t nw, wcap;
    cpend *cp;
    size_t ncp, cpcap;
    uint32_t *ranks;
    uint64_t *mcount;
    double *mbytes, *rwait;
    char first_trace[4096];
    char dict_name[128];
    /* counters per region */
    size_t ncnt, cntcap;
    const char **cnames;
    okey *cfirst;
    size_t cfirstcap;
    unsigned char *cgauge;  /* per counter: decreased on a lane, a level, no deltas */
    size_t ngauge;
    hmap cnt_by_name;
    hmap cacc_of;           /* (lane, region, counter) -> cacc index */
    vw_lane_cstat *cacc;
    size_t ncacc, cacccap;
    hmap cnode_of;          /* (node, counter) -> cnode index */
    struct cnode { long node; size_t c; vw_cstat s; } *cnode;
    size_t ncnode, cnodecap;
    vw_cstat *region_cs, *node_cs;
    struct vw_waits *waits;   /* the wait states (views/waits.c); NULL: not asked for */
};


/* ---------------- shared helpers (views/filter.c) ---------------- */
uint64_t vw_mix(uint64_t k);
long vw_hget(const hmap *h, uint64_t key);
int vw_hput(hmap *h, uint64_t key, long val);
void vw_hfree(hmap *h);
uint64_t vw_strhash(const char *s, size_t n);
void *vw_realloc_or_free(void *p, size_t n);
/* arr (of *n elements of elem bytes) grown to hold index i, the new elements
 * zeroed; NULL (arr untouched) when memory runs out. */
void *vw_grow_index(void *arr, size_t *n, size_t i, size_t elem, size_t first);
int vw_okey_cmp(const okey *a, const okey *b);
char *vw_own(vw_run *r, const char *s, size_t n);
/* the lane of (process, stream), made when first seen; -1: out of memory */
long vw_lane_get(vw_run *r, uint32_t process, uint32_t stream);
/* the region (name, kind), made when first seen at k (vw_region_named: at
 * the record being read) */
long vw_region_get(vw_run *r, const char *name, size_t len, int kind, const okey *k);
long vw_region_named(vw_run *r, const char *name, size_t len, int kind);
/* the call path (parent node, region), made when first seen at k */
long vw_node_at(vw_run *r, long parent, long region, const okey *k);
/* the counter by name, made when first seen at k */
long vw_counter_get(vw_run *r, const char *name, size_t len, const okey *k);
/* seconds from the start: of ns on the run's clock; of an event's ns at
 * the record being read (its ticks' exact value) */
double vw_ns_sec(const vw_run *r, int64_t ns);
double vw_tsec(const vw_run *r, int64_t ns);
/* VW_REGION_* of a frame's flags (PAL_EVF_*) */
int vw_region_kind(unsigned flags);
/* a communicator id as the views show it (COMM_GLOBAL: the same everywhere) */
#define COMM_GLOBAL (UINT64_C(1) << 62)
int64_t vw_comm_shown(int64_t comm, unsigned flags);
/* the rank index of process p, once the ranks are known (finish) */
size_t vw_rank_index(const vw_run *r, uint32_t p);
/* the lane of (process, stream) once lanes are sorted (finish) */
size_t vw_lane_index(const vw_run *r, uint32_t process, uint32_t stream);

/* ---------------- analyses ---------------- */
/* Where an event happens, as the manager resolved it. */
typedef struct vw_at {
    long lane;          /* the lane's index, -1: none */
    frame *fr;          /* ENTER: the frame pushed; LEAVE: the frame closing (popped) */
    double t;           /* ENTER: the frame's start; LEAVE: its end (seconds) */
    int64_t t_ns;       /* the same in ns */
} vw_at;

/* New indexes: of from's things in this run (merge), or of this run's
 * things in their final order (renumber); NULL: unchanged. */
typedef struct vw_maps {
    const long *region, *node, *counter, *lane;
} vw_maps;

/* The operations table of one analysis; any may be NULL. 0 or -1 (out of
 * memory). */
typedef struct vw_analysis {
    const char *name;
    int (*begin)(vw_run *r);
    int (*record)(vw_run *r, lane *l, double t);
    int (*event)(vw_run *r, const pal_event *e, const vw_at *at);
    int (*end)(vw_run *r);
    int (*merge)(vw_run *r, const vw_run *from, const vw_maps *m);
    int (*renumber)(vw_run *r, const vw_maps *m);
    int (*finish)(vw_run *r);
    void (*release)(vw_run *r);
} vw_analysis;

/* collective instances, the profile and call tree, utilization (states over
 * time bins), counters per region, messages and the matrix */
extern const vw_analysis vw_an_collectives, vw_an_profile, vw_an_utilization, vw_an_counters,
    vw_an_messages;
/* wait states, causes, critical path (views/waits.c; only when asked for:
 * vw_waits_want), and each message the merge of shares pairs, given to it */
extern const vw_analysis vw_an_waits;
int vw_waits_paired(vw_run *r, const pal_msg_end *send, const pal_msg_end *recv);

#endif /* VW_AN_H */
