/* vw.h -- pal-view internals: the filter manager that feeds PAL records to
 * the filters (what records mean comes from the dictionary's roles), the
 * view registry, view-group configuration and plugins. */
#ifndef VW_H
#define VW_H

#include "views/view.h"
#include "pal/pal.h"

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
    int64_t comm;           /* at close: the communicator (0 when none), as in the record */
    int64_t root, request;  /* at close: a collective's root, a request id; -1 when none */
} vw_frame_ev;

/* A collective instance, once all its members called it (or at the end of
 * the trace, with the members seen): the k-th call of a collective by each
 * member of a communicator's group. */
typedef struct vw_coll_ev {
    long region;            /* index of the collective's region in the facts */
    const char *name;
    uint32_t members;       /* members seen */
    uint32_t size;          /* the communicator's size, 0 when unknown */
    uint32_t lo, hi;        /* lowest and highest member process */
    uint32_t late;          /* the member that entered last */
    int64_t comm;           /* the communicator id of the first member seen */
    int64_t root;           /* world rank of the root, -1: none */
    uint64_t bytes;         /* summed over the members */
    double first, last, end;  /* first entry, last entry, last exit (seconds) */
} vw_coll_ev;

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
    /* every collective instance (vw_coll_ev), once complete */
    void (*collective)(void *ctx, const vw_coll_ev *e);
} vw_sink;

typedef struct vw_run vw_run;
/* Reads the trace, or the per-rank traces of a run as one stream (dict_path
 * may be NULL), and derives the facts. 0: read whole; 1: read, but damage
 * was reported or the result is partial (a trace not closed, chunks or
 * ranks missing); -1: nothing could be read (message on stderr). */
int vw_run_traces(const char *const *paths, size_t n, const char *dict_path,
                  const vw_sink *sink, vw_run **out);
/* The same read by jobs threads, each a share of the run's streams
 * (pal_reader_set_share: by file when the run has as many, else by thread),
 * their partial results merged into what one thread gives. A sink needs
 * the records in time order: give none with jobs > 1. */
int vw_run_traces_jobs(const char *const *paths, size_t n, const char *dict_path,
                       const vw_sink *sink, unsigned jobs, vw_run **out);
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
    vw_view_timeline, vw_view_calltree, vw_view_comm, vw_view_clock, vw_view_suggest_filter;
/* helpers shared by views */
void vw_xml_escape(FILE *out, const char *s);
double vw_rank_imbalance(const vw_facts *f, size_t region, double *mean_out);
/* One line (plain text, no newline) saying what damage and loss the trace
 * had -- "damaged trace: 1 damaged chunk or bad line skipped, ...; the
 * views show what could be read" -- into buf; returns its length, 0 (and
 * "") when the trace was read whole and nothing was lost. */
size_t vw_damage_note(const vw_facts *f, char *buf, size_t size);

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
/* A CSV field: quoted ("" for a quote) when it holds , " or a newline. */
void vw_csv_name(FILE *out, const char *nm);
int vw_html_report(const vw_facts *f, FILE *out);

#endif /* VW_H */
