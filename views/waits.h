/* waits.h -- wait states found by replaying a trace's matched events
 * (pal-view --waits; doc/views.md, "Wait states"). */
#ifndef VIEWS_WAITS_H
#define VIEWS_WAITS_H

#include <stddef.h>
#include <stdio.h>

/* The output's form */
enum { VW_WAITS_TEXT, VW_WAITS_CSV, VW_WAITS_JSON };

/* Reads the trace or the per-rank traces of one run (as pal-view reads
 * them), finds the wait states and writes them to out in the given form.
 * 0 on success; 1 when written but the traces are damaged or partial (the
 * reader's messages on stderr); -1 after a message on stderr (an
 * unreadable trace, no memory). */
int vw_waits_run(const char *const *paths, size_t n, const char *dict_path, int form, FILE *out);

#endif
