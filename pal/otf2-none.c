/* otf2-none.c -- PAL without libotf2 (configure found none, and libecl,
 * which carries PAL's reader for the merge): an OTF2 archive is recognised
 * and refused with a message that says why. */
#include <config.h>

#include "pal/reader-internal.h"

pal_status pal_otf2_open(pal_reader *r, pal_src *s)
{
    (void)r;
    pal_set_last_error("cannot open trace '%s': an OTF2 archive, but this PAL was built without "
                       "OTF2 support (configure found no libotf2; Debian: libotf2-trace-dev)",
                       s->path);
    return PAL_EFORMAT;
}

pal_status pal_otf2_next(pal_reader *r, const pal_record **out)
{
    (void)r, (void)out;
    return PAL_EFORMAT;
}

void pal_otf2_close(pal_otf2 *o)
{
    (void)o;
}
