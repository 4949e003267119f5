/* print.c -- pal_dict_print: a dictionary as EDL source (edl_dict_print), for
 * pal-dump --dict and for people checking a trace; the text compiles back to
 * the same dictionary. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>

#include "pal/pal-internal.h"

void pal_dict_print(const pal_dict *d, void *file)
{
    PAL_REQUIRE(d && file, );
    FILE *f = file;
    char *text = NULL;
    size_t len = 0;
    if (edl_dict_print(d->ed, &text, &len) != EDL_OK) {
        fputs("-- (out of memory printing the dictionary)\n", f);
        return;
    }
    fwrite(text, 1, len, f);
    free(text);
}
