/* vw.h -- pal-view internals: the mapping layer (record names to semantic
 * events, per dictionary), the filter manager that feeds PAL records to the
 * filters, the view registry, view-group configuration and plugins. */
#ifndef VW_H
#define VW_H

#include "views/view.h"
#include "pal/pal.h"

/* ---------------- mapping layer (views/map.c) ---------------- */
typedef enum vw_ev {
    VW_EV_NONE = 0,     /* activity of the lane, nothing else */
    VW_EV_DEF,          /* ignored definition (no lane) */
    VW_EV_REGION_DEF,   /* region id field + name field */
    VW_EV_THREAD_DEF,   /* stream field + name field */
    VW_EV_ENTER,        /* region id field, or the record name's stem */
    VW_EV_LEAVE,
    VW_EV_CALL,         /* a timed call: duration field, time at its end */
    VW_EV_OVERHEAD,     /* tool overhead: duration field, time at its start */
    VW_EV_MARKER,
    VW_EV_COUNTER,
    VW_EV_LOST,
    VW_EV_COMPLETE,     /* a request completed (role RECV, kind 1) or started (SEND, kind 0) */
    VW_EV_COMM_DEF      /* a communicator: comm, size, ranks (world ranks, ranges) */
} vw_ev;

enum { VW_ROLE_NONE = 0, VW_ROLE_SEND, VW_ROLE_RECV, VW_ROLE_SENDRECV };

/* flags */
#define VW_F_IDLE 1u        /* time inside is idle (blocked) */
#define VW_F_MPI 2u         /* a communication call (MPI kind region) */
#define VW_F_STEM 4u        /* region named by the record name minus _begin/_end */
#define VW_F_COLL 8u        /* a collective: instances grouped across ranks */

typedef struct vw_sem {
    vw_ev ev;
    int role;
    unsigned flags;
    char stem[48];      /* region name for VW_EV_CALL and VW_F_STEM */
} vw_sem;

/* Field names the filters read (one set per dictionary profile). */
typedef struct vw_fields {
    const char *region, *name, *duration, *peer, *dest, *source, *bytes,
        *recvbytes, *tag, *comm, *stream, *text, *kind, *size, *ranks;
    const char *region_prefix;  /* name of a region known only by its id: prefix + id */
} vw_fields;

typedef struct vw_map vw_map;
vw_map *vw_map_new(const pal_dict *d);
void vw_map_free(vw_map *m);
const vw_sem *vw_map_classify(vw_map *m, const pal_recdesc *r);
const vw_fields *vw_map_fields(const vw_map *m);
const char *vw_map_profile(const vw_map *m);

/* ---------------- filter manager (views/filter.c) ---------------- */
/* A call frame as the filter opens it (end < 0) and closes it; per lane in
 * trace order, so a view can follow each thread's stack (the timeline). */
typedef struct vw_frame_ev {
    uint32_t process, stream;
    long region;            /* index of the region in the facts (stable while reading) */
    const char *name;       /* the region's name, valid for the run */
    int kind;               /* VW_REGION_USER or VW_REGION_MPI */
    int idle;               /* time inside is blocked (waits, receives, collectives) */
    unsigned depth;         /* 0: outermost */
    double start, end;      /* seconds; end < 0 when the frame opens */
    uint64_t bytes;         /* at close: bytes moved */
    int64_t peer, tag;      /* at close: -1 / 0 when none */
} vw_frame_ev;

/* Optional per-event sink (the exports): called while reading. */
typedef struct vw_sink {
    void *ctx;
    void (*slice)(void *ctx, size_t lane, uint32_t process, uint32_t stream,
                  const char *name, int kind, double start, double end);
    void (*flow)(void *ctx, const vw_msg *m, uint64_t id, uint32_t src_process,
                 uint32_t src_stream, uint32_t dst_process, uint32_t dst_stream);
    void (*marker)(void *ctx, uint32_t process, uint32_t stream, const char *text,
                   size_t len, double t);
    /* every record as it is read, t in seconds from the trace start (the
     * exports find counters and markers in it through roles) */
    void (*record)(void *ctx, const pal_record *rec, double t);
    /* every frame opened and closed (vw_frame_ev) */
    void (*frame)(void *ctx, const vw_frame_ev *e);
} vw_sink;

typedef struct vw_run vw_run;
/* Reads the trace, or the per-rank traces of a run as one stream (dict_path
 * may be NULL), and derives the facts. 0: read whole; 1: read, but damage
 * was reported or the result is partial (a trace not closed, chunks or
 * ranks missing); -1: nothing could be read (message on stderr). */
int vw_run_traces(const char *const *paths, size_t n, const char *dict_path,
                  const vw_sink *sink, vw_run **out);
const vw_facts *vw_run_facts(const vw_run *r);
void vw_run_free(vw_run *r);

/* ---------------- registry (views/registry.c) ---------------- */
void vw_registry_init(void);
int vw_registry_add(const vw_view *v);
const vw_view *vw_registry_find(const char *name);
size_t vw_registry_count(void);
const vw_view *vw_registry_get(size_t i);
/* Loads a shared object exporting vw_plugin_views; 0 on success. */
int vw_plugin_load(const char *path, char *err, size_t errlen);

typedef struct vw_group_entry {
    char group[64], abstract[64], concrete[64];
} vw_group_entry;
typedef struct vw_config {
    size_t n;
    vw_group_entry *e;
} vw_config;
/* Parses "group: abstract_view: concrete_view" lines; '#' comments. */
int vw_config_parse(const char *text, vw_config *c, char *err, size_t errlen);
int vw_config_load(const char *path, vw_config *c, char *err, size_t errlen);
void vw_config_free(vw_config *c);
extern const char vw_default_config[];

/* ---------------- built-in views ---------------- */
extern const vw_view vw_view_profile, vw_view_utilization, vw_view_util_total,
    vw_view_timeline, vw_view_calltree, vw_view_comm, vw_view_clock;
/* helpers shared by views */
void vw_xml_escape(FILE *out, const char *s);
double vw_rank_imbalance(const vw_facts *f, size_t region, double *mean_out);

/* ---------------- exports ---------------- */
typedef struct vw_chrome vw_chrome;
/* Chrome trace-event JSON of the window [from, to] seconds (to < 0: to the
 * end); NULL when out of memory. */
vw_chrome *vw_chrome_begin(FILE *out, double from, double to);
void vw_chrome_sink(vw_chrome *c, vw_sink *s);
int vw_chrome_end(vw_chrome *c, const vw_facts *f);
/* A stream that gzip-compresses into fd (taken: closed by fclose). */
FILE *vw_gzip_fdopen(int fd);
int vw_export_csv(const vw_facts *f, FILE *out);
int vw_html_report(const vw_facts *f, FILE *out);

#endif /* VW_H */
