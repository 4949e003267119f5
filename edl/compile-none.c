/* compile-none.c -- the EDL compiler's two entry points that PAL calls
 * (edl_compile_string, edl_dict_print), for a library that holds the
 * dictionary model but not the compiler: libecl, whose merge at
 * MPI_Finalize reads the binary dictionaries ECL traces embed. Capture never
 * links the compiler (DESIGN.md, "Libraries with clean edges"); an EDL
 * source given there is refused with a diagnostic that says why. */
#include <config.h>

#include <stdio.h>

#include "edl/edl.h"

edl_status edl_compile_string(const char *name, const char *text, size_t len, edl_diag_fn fn,
                              void *ctx, edl_dict **out)
{
    (void)text, (void)len;
    edl_diagnostic d = {
        .severity = EDL_SEV_ERROR,
        .file = name,
        .message = "an EDL source, but the capture library (libecl) reads binary dictionaries "
                   "only: compile it with edlc, or read it with libpal",
    };
    if (out)
        *out = NULL;
    if (fn)
        fn(ctx, &d);
    else
        fprintf(stderr, "%s: error: %s\n", name, d.message);
    return EDL_ECOMPILE;
}

edl_status edl_dict_print(const edl_dict *d, char **text, size_t *len)
{
    (void)d;
    if (text)
        *text = NULL;
    if (len)
        *len = 0;
    return EDL_EINVAL;
}
