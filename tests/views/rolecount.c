/* rolecount.c -- what an OTF2 export of a trace must hold, counted from
 * PAL's roles (the oracle of tests/views/otf2.sh and tests/pal/otf2.sh):
 * one line per OTF2 event kind, "kind N", in a fixed order.
 *   enter   records with role enter, call or overhead (a call or an overhead
 *           record is a region entered and left)
 *   leave   leave, call or overhead
 *   send    records with role send        recv   role recv
 *   coll_begin  collective and (enter or call)
 *   coll_end    collective and (leave or call)
 *   metric  counter       marker  marker
 * Usage: rolecount [-d DICT] TRACE... */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "pal/pal.h"

int main(int argc, char **argv)
{
    const char *dict = NULL;
    int i = 1;
    if (argc > 2 && strcmp(argv[1], "-d") == 0) {
        dict = argv[2];
        i = 3;
    }
    if (i >= argc) {
        fprintf(stderr, "usage: rolecount [-d DICT] TRACE...\n");
        return 1;
    }
    pal_reader *r;
    if (pal_reader_open_run((const char *const *)argv + i, (size_t)(argc - i), dict, 0, &r) !=
        PAL_OK) {
        fprintf(stderr, "rolecount: %s\n", pal_last_error());
        return 1;
    }
    uint64_t enter = 0, leave = 0, send = 0, recv = 0, cb = 0, ce = 0, metric = 0, marker = 0;
    const pal_record *rec;
    pal_status st;
    while ((st = pal_reader_next(r, &rec)) == PAL_OK) {
        int en = pal_record_has_role(rec, PAL_ROLE_ENTER), le = pal_record_has_role(rec, PAL_ROLE_LEAVE),
            ca = pal_record_has_role(rec, PAL_ROLE_CALL),
            ov = pal_record_has_role(rec, PAL_ROLE_OVERHEAD),
            co = pal_record_has_role(rec, PAL_ROLE_COLLECTIVE);
        enter += en || ca || ov;
        leave += le || ca || ov;
        send += (uint64_t)pal_record_has_role(rec, PAL_ROLE_SEND);
        recv += (uint64_t)pal_record_has_role(rec, PAL_ROLE_RECV);
        cb += co && (en || ca);
        ce += co && (le || ca);
        metric += (uint64_t)pal_record_has_role(rec, PAL_ROLE_COUNTER);
        marker += (uint64_t)pal_record_has_role(rec, PAL_ROLE_MARKER);
    }
    int rc = st == PAL_END ? 0 : 1;
    if (rc)
        fprintf(stderr, "rolecount: %s\n", pal_reader_error(r));
    pal_reader_close(r);
    printf("enter %" PRIu64 "\nleave %" PRIu64 "\nsend %" PRIu64 "\nrecv %" PRIu64
           "\ncoll_begin %" PRIu64 "\ncoll_end %" PRIu64 "\nmetric %" PRIu64 "\nmarker %" PRIu64
           "\n", enter, leave, send, recv, cb, ce, metric, marker);
    return rc;
}
