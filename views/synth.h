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

#endif
