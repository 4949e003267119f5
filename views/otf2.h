/* otf2.h -- pal-view's OTF2 export (views/otf2.c): any described trace, read
 * through PAL's roles, written as an OTF2 archive with libotf2. Built only
 * when configure found OTF2 (HAVE_OTF2). */
#ifndef VW_OTF2_H
#define VW_OTF2_H

#include <stddef.h>

/* Reads the trace, or the per-rank traces of a run (dict_path may be NULL),
 * and writes the OTF2 archive DIR/traces.otf2 (with DIR/traces.def and
 * DIR/traces/). A summary line goes to stderr when verbose. 0: written, the
 * trace read whole; 2: written, but damage was found or the trace is partial;
 * 1: nothing usable was written (message on stderr). DIR is created, or
 * must be a directory holding no archive; a symbolic link, FIFO or device
 * in the place of DIR or of a file of the archive is refused unless
 * out_flags has ECC_OUT_THROUGH (container/container.h). */
int vw_otf2_export(const char *const *paths, size_t n, const char *dict_path, const char *dir,
                   unsigned out_flags, int verbose);

#endif
