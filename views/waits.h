/* waits.h -- wait states found by replaying a trace's matched events
 * (pal-view --waits; doc/views.md, "Wait states"). */
#ifndef VIEWS_WAITS_H
#define VIEWS_WAITS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "views/vw.h"

/* The output's form */
enum { VW_WAITS_TEXT, VW_WAITS_CSV, VW_WAITS_JSON };

/* A what-if model (pal-view --what-if SPEC): "ideal" (MPI calls take no
 * time of their own: zero latency, infinite bandwidth), a LogGP-style
 * network ("net:L=5us,G=0.1ns": latency, time per byte; measured from the
 * trace unless set), and regions whose
 * time outside MPI is scaled ("scale:REGION=F", every call path through
 * REGION). */
#define VW_WHAT_IF_MAX 16
typedef struct vw_what_if {
    const char *spec;
    int ideal;
    int net;             /* a network model ("net", "net:L=V,G=V"): the trace's own
                          * latency and time per byte, or the ones set */
    int set_L, set_G;
    double L, G;         /* seconds, seconds per byte */
    size_t nscale;
    struct {
        char region[256];
        double factor;
    } scale[VW_WHAT_IF_MAX];
    /* the replay's output hook (NULL: none; views/synth.c): called for
     * each lane (rank, thread) with the points of its time map, recorded
     * ns -> predicted ns, in the order of the lane's time: its start, each
     * stretch outside MPI calls (start and end), each MPI call (start and
     * end) */
    void (*retime)(void *ctx, uint32_t process, uint32_t stream, int64_t recorded,
                   double predicted);
    void *retime_ctx;
} vw_what_if;

/* Parses SPEC (items separated by commas); 0, or -1 after a message. */
int vw_what_if_parse(const char *spec, vw_what_if *m);

/* The wait states are an analysis of the one pass every analysis shares
 * (views/an.h, vw_an_waits), run only when asked for: vw_an_waits in the
 * list of vw_run_need before vw_run_traces_jobs makes the runs read from
 * then on keep what they need (nothing is kept otherwise); with -j, each
 * share keeps its lanes' calls, and the merge of shares joins them
 * (messages paired across shares by the manager, vw_run_paired). */

/* Writes the wait states of a run that ran vw_an_waits to out in the
 * given form (with what_if: the replay's prediction instead). 0, or -1
 * after a message (no wait states kept, no memory). */
int vw_waits_write(const vw_run *r, int form, const vw_what_if *what_if, FILE *out);

/* Reads the trace or the per-rank traces of one run (as pal-view reads
 * them, in jobs threads, running the wait states alone: vw_run_need is the
 * default again after), finds the wait states and writes them to out
 * (vw_waits_write). 0 on success; 1 when written but the traces are damaged
 * or partial (the reader's messages on stderr); -1 after a message on
 * stderr (an unreadable trace, no memory). vw_waits_run: one thread. */
int vw_waits_run_jobs(const char *const *paths, size_t n, const char *dict_path, int form,
                      const vw_what_if *what_if, unsigned jobs, FILE *out);
int vw_waits_run(const char *const *paths, size_t n, const char *dict_path, int form,
                 const vw_what_if *what_if, FILE *out);

/* The HTML report's wait-state section (views/html.c): vw_waits_source
 * names the run (one that ran vw_an_waits; it stays the caller's until
 * the report is written); vw_waits_html writes its sortable table, one row
 * per (pattern, rank, thread, call path) with its longest instance's time
 * (data-at, data-len: seconds from the trace's start) for views/report.js
 * to show on the timeline. 0 (nothing when no run with wait states was
 * named). */
void vw_waits_source(const vw_run *r);
int vw_waits_html(FILE *out);

/* pal-view --predict NP RUN...: the runs (one trace or run directory each,
 * of one program at different process counts) -> per region calls per rank
 * and mean exclusive time per call modelled in p and predicted at np, as
 * text, CSV or JSON (form: VW_WAITS_*); 0, or -1 after a message.
 * (views/predict.c) */
int vw_predict_run(double np, const char *const *runs, size_t n, const char *dict, int form,
                   FILE *out);

#endif
