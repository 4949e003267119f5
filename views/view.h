/* view.h -- the view interface of pal-view: the facts that the filters derive
 * once from a trace (read through PAL only), and the small operations table
 * every view implements. Built-in views and views loaded from shared objects
 * (pal-view --plugin ./x.so) use the same table.
 *
 * A plugin is one C file that includes this header and defines
 *
 *     VW_PLUGIN_EXPORT const vw_view *const *vw_plugin_views(void);
 *
 * returning a NULL-terminated array of views. Plugins call no function of
 * pal-view: everything a view needs is in the vw_facts it is given, which stays
 * valid (read-only) for the duration of the call. Times are in seconds from the
 * start of the trace. */
#ifndef VW_VIEW_H
#define VW_VIEW_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define VW_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define VW_PLUGIN_EXPORT
#endif

#define VW_ABI_VERSION 1

/* Process states (the utilization filter). */
enum { VW_BUSY = 0, VW_OVERHEAD = 1, VW_IDLE = 2, VW_NSTATES = 3 };

/* Region kinds: user regions, communication (MPI functions: records with
 * role communication), the process's start and end (MPI_Init,
 * MPI_Finalize: process_begin/process_end records with a duration), whose
 * time is in none of the states, and time on a device (records with role
 * device: GPU kernels, copies, memsets). */
enum { VW_REGION_USER = 0, VW_REGION_MPI = 1, VW_REGION_SETUP = 2, VW_REGION_DEVICE = 3 };

/* Per region (user region or MPI function), per lane or summed. */
typedef struct vw_stat {
    uint64_t calls;     /* every instance, recursive ones included */
    double total;       /* inclusive seconds: outermost active instances only */
    double excl;        /* exclusive seconds */
    double max;         /* longest single call, seconds */
    double bytes;       /* bytes moved (MPI functions with a bytes field) */
} vw_stat;

typedef struct vw_region {
    const char *name;
    int kind;           /* VW_REGION_USER, _MPI, _SETUP or _DEVICE */
    vw_stat all;        /* summed over lanes */
    /* collectives: instances grouped across the ranks of a communicator */
    uint64_t instances;
    double spread_sum, spread_max;  /* last entry - first entry, seconds */
} vw_region;

/* A lane is one thread (stream) of one process (rank). */
typedef struct vw_lane {
    uint32_t process, stream;
    size_t rank_index;  /* index into vw_facts.ranks */
    const char *name;   /* thread name, "" if none */
    double first, last; /* first and last record time */
    double state[VW_NSTATES];       /* seconds in each state */
    const double *bins; /* nbins * VW_NSTATES seconds: bins[b*VW_NSTATES+s] */
    const vw_stat *rstat;   /* nregions entries, this lane's share */
} vw_lane;

/* Call tree, merged over lanes: node 0 is the root (region -1). */
typedef struct vw_node {
    long region;        /* index into regions, -1 for the root */
    long parent, first_child, next_sibling;    /* -1 if none */
    uint64_t calls;
    double incl, excl;
} vw_node;

/* Counter deltas over the calls of a region or call-tree node, in the
 * counter's unit: incl = value at the leave - value at the enter (summed
 * over the outermost active instances of a region, so recursion counts once;
 * over every instance of a node), excl = incl - the children's incl; calls:
 * the calls whose deltas are known (the counter was sampled on the thread). */
typedef struct vw_cstat {
    uint64_t calls;
    double incl, excl;
} vw_cstat;

/* One (lane, region, counter) share of region_counters. */
typedef struct vw_lane_cstat {
    size_t lane, region, counter;
    vw_cstat s;
} vw_lane_cstat;

/* A matched point-to-point message. */
typedef struct vw_msg {
    size_t src, dst;    /* rank indexes */
    size_t src_lane, dst_lane;
    double t_send, t_recv;
    uint64_t bytes;
} vw_msg;

typedef struct vw_facts {
    const char *trace;  /* first trace file name */
    const char *dict;   /* dictionary name */
    uint64_t records;
    double duration;    /* seconds covered by the records */
    /* time bins: nbins of bin_width seconds starting at 0 */
    size_t nbins;
    double bin_width;
    const double *util; /* nbins * VW_NSTATES seconds summed over lanes */
    size_t nlanes;
    const vw_lane *lanes;
    size_t nranks;
    const uint32_t *ranks;          /* process ids, ascending */
    size_t nregions;
    const vw_region *regions;
    size_t nnodes;
    const vw_node *nodes;
    /* messages (only when the trace has send/receive records) */
    int has_messages;
    uint64_t sends, recvs, matched;
    const uint64_t *comm_count;     /* nranks*nranks, [src*nranks+dst] */
    const double *comm_bytes;
    const double *rank_wait;        /* seconds blocked (idle) per rank */
    double latency_sum, latency_max;    /* over matched messages: receive end - send start */
    size_t nmsgs;                   /* a bounded sample of matched messages */
    const vw_msg *msgs;
    uint64_t markers, counters, lost, unmatched_leaves, open_at_end;
    /* counters per region (records of role counter, by the name their
     * `counter` field refers to); 0 counters when the trace has none */
    size_t ncounters;
    const char *const *counter_names;
    const vw_cstat *region_counters;    /* nregions * ncounters: [region * ncounters + c] */
    const vw_cstat *node_counters;      /* nnodes * ncounters: [node * ncounters + c] */
    size_t nlane_counters;              /* the per-lane shares with calls */
    const vw_lane_cstat *lane_counters;
    /* damage the reader reported (every view says so; vw_damage_note):
     * damaged chunks or bad lines skipped, the bytes passed over, chunks
     * the writers' summaries count but not found, a file cut inside a
     * chunk, files not closed by their writer, files flushed on a fatal
     * signal, ranks of a run without a file. Records the writers dropped
     * and counted are in `lost`. All 0: the trace was read whole. */
    uint64_t damaged, bytes_skipped, chunks_missing;
    uint32_t truncated, not_closed, signaled, ranks_missing;
    unsigned shares;    /* the threads that read it (vw_run_traces_jobs: jobs, or fewer) */
} vw_facts;

/* The operations table of one view. text and svg may be NULL. */
typedef struct vw_view {
    int abi;                        /* VW_ABI_VERSION */
    const char *name;               /* found by this name in the registry */
    const char *description;        /* one line */
    int (*text)(const vw_facts *f, FILE *out);  /* 0 on success */
    int (*svg)(const vw_facts *f, FILE *out);   /* a complete SVG document */
} vw_view;

typedef const vw_view *const *(*vw_plugin_fn)(void);

#ifdef __cplusplus
}
#endif
#endif /* VW_VIEW_H */
