/* progress.h -- progress of long work (reading a trace, writing views and
 * exports) on standard error, only when standard error is a terminal: one
 * line redrawn in place at most 5 times a second, erased at the end. Silent
 * (every call a no-op) otherwise, so logs and pipes never see it. */
#ifndef VW_PROGRESS_H
#define VW_PROGRESS_H

#include <stdint.h>

#include "views/vw.h"

typedef struct vw_progress vw_progress;

/* NULL (and every call below a no-op) when stderr is no terminal.
 * total_bytes: the input's size for a percentage, 0 if unknown. */
vw_progress *vw_progress_start(const char *what, uint64_t total_bytes);
/* done records so far and the byte position reached (0 if unknown). */
void vw_progress_update(vw_progress *p, uint64_t records, uint64_t bytes);
/* A new phase ("writing report.html"), shown at once. */
void vw_progress_phase(vw_progress *p, const char *what);
void vw_progress_end(vw_progress *p);
/* A sink that updates p for every record read (p may be NULL: no sink). */
void vw_progress_sink(vw_progress *p, vw_sink *s);

#endif /* VW_PROGRESS_H */
