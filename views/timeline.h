/* timeline.h -- the timeline summary behind the report's interactive
 * timeline and the space-time picture: fed by the filter's frame events while
 * the trace is read, it keeps per row (thread of a rank) and per time bucket
 * the region that holds the most exclusive time (the innermost open frame)
 * and how many frames began there; the longest slices in full (for hovering
 * and for detail when zooming); markers; and counter tracks as per-bucket
 * min / max / last. Memory: rows x 4096 buckets x 16 bytes, plus bounded
 * slice, marker and counter stores -- independent of the trace's length. */
#ifndef VW_TIMELINE_H
#define VW_TIMELINE_H

#include "views/vw.h"

typedef struct vw_timeline vw_timeline;

vw_timeline *vw_timeline_create(void);
void vw_timeline_destroy(vw_timeline *t);
/* The sink that feeds it (frame and record events). */
void vw_timeline_sink(vw_timeline *t, vw_sink *s);
/* out calls a and then b for each event (either may be NULL); pair holds
 * the copies of a and b and must live as long as out is used. */
typedef struct vw_sink_pair {
    vw_sink a, b;
} vw_sink_pair;
void vw_sink_tee(vw_sink *out, vw_sink_pair *pair, const vw_sink *a, const vw_sink *b);

/* The summary as one JSON object for the HTML report (doc/views.md,
 * "Interactive timeline"); rows in the facts' lane order, regions by the
 * facts' region index. 0, or -1 on a write error. */
int vw_timeline_json(const vw_timeline *t, const vw_facts *f, FILE *out);

/* Keeps the exact profile of the window [from, to) seconds (to < 0: to the
 * end) while the trace is read: per region, the instances that began in it
 * or were open at its start, their time inside it (outermost instances:
 * recursion counts once) and their exclusive time inside it. Call before
 * reading. */
void vw_timeline_window(vw_timeline *t, double from, double to);
/* That profile as text (pal-view --from/--to); 0, or -1 on a write error. */
int vw_timeline_window_text(const vw_timeline *t, const vw_facts *f, FILE *out);

/* The region that dominates lane's thread over [a, b) seconds, -1 for none;
 * *share gets its share of [a, b) when share is not NULL. */
long vw_timeline_dominant(const vw_timeline *t, uint32_t process, uint32_t stream, double a,
                          double b, double *share);
/* The call-stack levels kept for that thread: its deepest frame + 1, at most
 * the levels the summary keeps (the last one holds that depth and deeper);
 * 0 for a thread with no frames. The report's sub-rows are these. */
unsigned vw_timeline_levels(const vw_timeline *t, uint32_t process, uint32_t stream);
/* The region open at call-stack level `level` of that thread that holds the
 * most of [a, b) (inclusive time), -1 for none. */
long vw_timeline_level_region(const vw_timeline *t, uint32_t process, uint32_t stream,
                              unsigned level, double a, double b);
/* Whether region i was seen blocked (idle) inside. */
int vw_timeline_region_idle(const vw_timeline *t, size_t region);
/* Whether region i was opened or closed by a record with the role io. */
int vw_timeline_region_io(const vw_timeline *t, size_t region);
size_t vw_timeline_counter_tracks(const vw_timeline *t);
uint64_t vw_timeline_marker_count(const vw_timeline *t);

/* Colour families by role: blocking MPI calls (waits, receives), MPI
 * collectives, other MPI communication, other waits (regions seen blocked:
 * OpenMP barriers, thread joins, locks), I/O (regions of records with the
 * role io, and regions that are not MPI and move bytes), user code, set-up
 * (MPI_Init, MPI_Finalize). The same in every picture, the report's timeline, call
 * tree, heat map and legend. t may be NULL (no region is then known to
 * block or to be I/O). */
enum { VW_FAM_MPI_WAIT, VW_FAM_COLL, VW_FAM_MPI, VW_FAM_WAIT, VW_FAM_IO, VW_FAM_USER,
       VW_FAM_SETUP, VW_NFAM };
int vw_region_family(const vw_facts *f, const vw_timeline *t, size_t region);
/* Region i's colour, "#rrggbb": its family's, a shade picked by a hash of
 * its name (reds for blocking MPI, purples for collectives, oranges for
 * other MPI, browns and golds for other waits, blues for I/O, greens to
 * teals for user code, greys for set-up). */
void vw_region_color(const vw_facts *f, const vw_timeline *t, size_t region, char out[8]);

/* A uniform sample of at most max of the facts' messages, for a view that
 * draws fewer than the filter keeps: their indexes into f->msgs, in order of
 * send time, into idx (max entries); returns how many (every message when
 * there are no more than max). f->msgs is itself a uniform (reservoir)
 * sample of the matched messages, but its slots are not interchangeable: a
 * slot keeps the early message it was filled with unless a later one
 * replaced it, so a prefix of it over-represents the run's start and misses
 * the messages of the following stretch. Deterministic. */
size_t vw_msg_sample(const vw_facts *f, size_t max, size_t *idx);

/* The summary of the trace being drawn, for views that can use it (the
 * space-time picture); NULL when there is none (views then use the states). */
const vw_timeline *vw_timeline_current(void);
void vw_timeline_set_current(const vw_timeline *t);

#endif /* VW_TIMELINE_H */
