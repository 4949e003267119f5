/* an.h -- the analyses of pal-view (views/an-*.c) and their manager
 * (views/filter.c): the state of one run, or of one share of a run, that
 * the analyses derive from the event layer's events, and the operations
 * table each analysis implements. Private to pal-view.
 *
 * The manager reads the events (pal_events) and keeps what every analysis
 * shares: the lanes (threads), the regions, the call paths and the
 * counters by name, each numbered where first seen, and each thread's
 * stack of open frames. It calls the operations of every analysis (of
 * those the outputs need: vw_run_need) in the order of vw_analyses:
 * begin before the first event, record for a thread's record (before its
 * events), event for each event, end at the end of a share, merge to
 * take another share's partial result (with the maps of its lanes,
 * regions, call paths and counters into this one's), renumber when the
 * things first seen are put in that order, finish to make the public
 * facts (vw_facts), release to free; pack and unpack carry a share's
 * partial result between processes (pal-view --mpi, views/mpi.c); paired
 * takes a message whose two ends different shares read, as the manager
 * pairs it while merging them (vw_run_paired).
 *
 * The contract of pack and unpack: pack writes what the analysis keeps of
 * a share after end (or of shares merged: the same state) and unpack reads
 * it into a run that is new (begin done) and holds the manager's shared
 * state -- lanes, regions, call paths and counters, with the indexes they
 * had in the packed run -- so that merge takes the unpacked run exactly as
 * it takes a share read in this process. Neither depends on the machine
 * (views/pack.h); unpack checks every index and count it reads. An
 * analysis without pack or unpack makes --mpi refuse to run it, with a
 * message naming it (vw_run_unpackable). */
#ifndef VW_AN_H
#define VW_AN_H

#include "views/pack.h"
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
    /* Its time bins (views/an-utilization.c): of the NBINS, only the span
     * of those it touched is held, bins lo to lo + nb - 1 (VW_NSTATES values
     * each); every other bin is 0. A rank of a large run is often busy in a
     * few bins of the run's 1,024: 4,096 of them in full would be 96 MiB. */
    double width;       /* of its bins, seconds */
    double *bins;       /* nb * VW_NSTATES held (bcap bins of room) */
    double *setup;      /* nb seconds of the process's start and end; NULL until it
                         * has any (most lanes: threads that do not set up MPI) */
    uint32_t lo, nb, bcap;
    double *full;       /* all NBINS bins, the public ones (vw_lane_bins_want) */
    int settled;        /* its states summed at the run's width, its bins dropped
                         * (vw_lanes_settle) */
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
    unsigned on;              /* the analyses run (bit a: the manager's a-th; vw_run_need) */
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
/* a first-seen key through the bytes of pal-view --mpi (views/pack.h) */
void vw_put_okey(vw_pack *b, const okey *k);
okey vw_get_okey(vw_unpack *u);

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
    int (*pack)(const vw_run *r, vw_pack *b);
    int (*unpack)(vw_run *r, vw_unpack *u);   /* -1: out of memory or bad bytes */
    int (*paired)(vw_run *r, const pal_msg_end *send, const pal_msg_end *recv);
} vw_analysis;

/* collective instances, the profile and call tree, utilization (states over
 * time bins), counters per region, messages and the matrix */
extern const vw_analysis vw_an_collectives, vw_an_profile, vw_an_utilization, vw_an_counters,
    vw_an_messages;
/* wait states, causes, critical path (views/waits.c; only when an output
 * asks for them: vw_run_need) */
extern const vw_analysis vw_an_waits;

/* The runs made from now on run the analyses of need[0 .. n - 1], the one
 * for messages, whose ends the manager numbers the ranks from and pairs
 * between shares, and with defaults every analysis that runs by default:
 * all but the wait states, which keep every call (pal-view --html, --waits
 * with -o add them; --waits alone needs them only, and does not pay for the
 * others). vw_run_need(NULL, 0, 1) is the default, as at start. The
 * analyses not run have their operations not called (release is: it frees
 * nothing then), their facts stay empty, and their parts are not packed;
 * runs merged or unpacked into one another must run the same analyses.
 * Process-wide: set it before the runs are read. */
void vw_run_need(const vw_analysis *const *need, size_t n, int defaults);
/* A message the merge of shares paired (an analysis's merge, an-messages.c)
 * handed to the paired operation of the analyses r runs (the wait states'
 * messages across shares); 0, or -1 out of memory. */
int vw_run_paired(vw_run *r, const pal_msg_end *send, const pal_msg_end *recv);

/* Whether the runs finished from now on give each lane all its NBINS time
 * bins in the facts (vw_lane.bins): 1 at start. The outputs that draw
 * lanes over time (--svg, --html) and views from plugins need them; a
 * profile, the text views and the CSV do not, and a run of 4,096 ranks
 * saves 96 MiB without them (vw_lane.bins and vw_facts.util are then
 * NULL). */
void vw_lane_bins_want(int on);
/* The widest lane's bin width (at least 1 us): the run's, once every lane
 * is in. */
double vw_lanes_width(const vw_run *r);
/* When no output needs the bins (vw_lane_bins_want(0)): each lane of r
 * brought to the run's bin width (all processes' vw_lanes_width, reduced
 * to their maximum), its busy, overhead and idle summed as the end
 * would, and its bins dropped, so that parts and the run they merge into
 * carry the lanes' states and no bins (pal-view --mpi: a run of 4,096
 * ranks busy from start to end would hold 96 MiB of bins in process 0).
 * The facts' util is NULL then. */
void vw_lanes_settle(vw_run *r, double width);

/* ---------------- shares read by processes (views/filter.c, for views/mpi.c) ----------------
 * One process of several reads one share of the run (the share function
 * of -j: pal_reader_set_share), packs its partial result, and the partial
 * results are unpacked and merged where they meet; the last run is closed
 * where the outputs are written. */
typedef struct vw_base {
    double ticks;       /* the time the run starts, as one reader of it says */
    int have;
    unsigned files;     /* the run's files */
    unsigned streams;   /* and their threads */
} vw_base;
/* Opens the run once: its start and files. 0, or -1 (said on stderr).
 * A run without a start time in its header (every run of several files)
 * starts at its first record: read when first is 1, which starts every
 * stream of the run at once (their first chunks: 22 KiB each, 90 MiB for
 * 4,096 ranks); with first 0, b->have is 0 and the start is the earliest
 * of the shares' first records (vw_share_first, vw_base_first), which is
 * the same record. */
int vw_run_base(const char *const *paths, size_t n, const char *dict_path, int first,
                vw_base *b);
/* The time (ticks) of the first record of share k of nshares, which starts
 * only that share's streams: 0, 1 (the share has no record), -1 (it cannot
 * be opened: its reading will say why). */
int vw_share_first(const char *const *paths, size_t n, const char *dict_path, unsigned k,
                   unsigned nshares, uint64_t *ticks);
/* b starts at ticks (the earliest first record of its shares) if it had
 * no start. */
void vw_base_first(vw_base *b, uint64_t ticks);
/* The shares a run of b->files files (b->streams threads) is read in by up
 * to want readers: by file, else by thread, as -j splits. */
unsigned vw_share_count(const vw_base *b, unsigned want);
/* How many readers of a run of files open at once the descriptor limit
 * holds (each opens every file, up to half the limit), up to want: the
 * soft limit raised towards the hard one when that is needed. */
unsigned vw_readers_fit(unsigned want, unsigned files);
/* A new partial result at base b, empty; NULL when out of memory. */
vw_run *vw_share_new(const vw_base *b, unsigned nshares);
/* Share k of nshares read into r (from vw_share_new): 0, or -1 (said on
 * stderr). The reader's messages are kept in r (nshares > 1). */
int vw_share_read(vw_run *r, const char *const *paths, size_t n, const char *dict_path,
                  unsigned k, unsigned nshares);
/* Shares first to first + count - 1 of nshares read into r (from
 * vw_share_new at b) in count threads, merged in share order: 0, or -1
 * (said on stderr). */
int vw_shares_read(vw_run *r, const vw_base *b, const char *const *paths, size_t n,
                   const char *dict_path, unsigned first, unsigned count, unsigned nshares);
/* The name of the first analysis without pack or unpack; NULL: none. */
const char *vw_run_unpackable(void);
/* r's partial result and its reader's messages into b: 0, -1 (memory). */
int vw_run_pack(const vw_run *r, vw_pack *b);
/* A partial result from bytes of vw_run_pack: 0, -1 (memory or bad bytes). */
int vw_run_unpack(const void *p, size_t n, vw_run **out);
/* from's partial result merged into r (from the shares after r's), its
 * messages after r's: 0, -1 (memory). */
int vw_run_absorb(vw_run *r, const vw_run *from);
/* The merged result closed: the messages said once, the facts made. As
 * vw_run_traces: 0, 1 (partial), -1. */
int vw_run_close(vw_run *r);

#endif /* VW_AN_H */
