/* synth.h -- predicted runs written as traces (views/synth.c;
 * doc/diagnosis.md, "The predicted run as a trace"). */
#ifndef VIEWS_SYNTH_H
#define VIEWS_SYNTH_H

#include <stddef.h>
#include <stdio.h>

#include "views/waits.h"

/* pal-view --what-if SPEC -o OUTPUT: the replay's report on out (as
 * vw_waits_run writes it, in form), then the run at paths written to
 * output (one merged ECL trace; out_flags PAL_OUT_THROUGH) with every
 * record at its predicted time. 0; 1 when written but the input is damaged
 * or partial; -1 after a message (nothing is left at output). */
int vw_synth_what_if(const char *const *paths, size_t n, const char *dict, int form,
                     const vw_what_if *what_if, const char *output, unsigned out_flags,
                     FILE *out);

/* A prediction kept for synthesis (views/predict.c): per region, calls per
 * rank and mean exclusive seconds per call predicted at np, and measured
 * in the template run (the run with the most processes, p of them); the
 * time per rank outside every region, predicted and in the template. */
typedef struct vw_pred_region {
    char *name;
    double calls, mean;
    double calls_at, mean_at;
} vw_pred_region;
typedef struct vw_prediction {
    double np, p;
    size_t template_run;
    vw_pred_region *r;
    size_t n;
    double rest, rest_at;
} vw_prediction;

/* vw_predict_run, keeping the prediction in *keep (NULL: not kept; free
 * it with vw_prediction_free) */
int vw_predict_keep(double np, const char *const *runs, size_t n, const char *dict, int form,
                    FILE *out, vw_prediction *keep);
void vw_prediction_free(vw_prediction *pr);

/* pal-view --predict NP RUN... -o OUTPUT: the prediction on out (as
 * vw_predict_run writes it), then a run of np ranks synthesized from the
 * run with the most processes and the models, written to output. 0, or -1
 * after a message (nothing is left at output). */
int vw_synth_predict(double np, const char *const *runs, size_t n, const char *dict, int form,
                     const char *output, unsigned out_flags, FILE *out);

#endif
