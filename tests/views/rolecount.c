/* rolecount.c -- what an OTF2 export of a trace must hold, counted from
 * PAL's roles (the oracle of tests/views/otf2.sh and tests/pal/otf2.sh):
 * one line per OTF2 event kind, "kind N", in a fixed order.
 *   enter   records with role enter, call or overhead (a call or an overhead
 *           record is a region entered and left), or process_begin/_end
 *           with a duration
 *   leave   leave, call or overhead
 *   send    records with role send        recv   role recv
 *   coll_begin  collective and (enter or call)
 *   coll_end    collective and (leave or call)
 *   metric  counter       marker  marker
 *   rma_put, rma_get, rma_atomic, rma_win_create, rma_win_free, rma_sync,
 *           rma_lock, rma_unlock   records with that role
 *   op NAME N   collective ends (as coll_end) by their description's
 *           OPERATION, in name order; "barrier" when it gives none (the
 *           export writes OTF2's BARRIER then)
 * With -m also "matched N": sends paired with receives by (sender,
 * receiver, tag), peers read through the roles dest/source/peer.
 * Usage: rolecount [-m] [-d DICT] TRACE... */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pal/pal.h"

/* messages by (sender, receiver, tag): sends minus receives so far */
typedef struct pair { int64_t src, dst, tag; uint64_t sends, recvs; } pair;
static pair *pairs;
static size_t npairs;

static void message(int64_t src, int64_t dst, int64_t tag, int send)
{
    size_t i = 0;
    while (i < npairs && !(pairs[i].src == src && pairs[i].dst == dst && pairs[i].tag == tag))
        i++;
    if (i == npairs) {
        pair *np = realloc(pairs, (npairs + 1) * sizeof *np);
        if (!np)
            exit(1);
        pairs = np;
        pairs[npairs++] = (pair){ src, dst, tag, 0, 0 };
    }
    if (send)
        pairs[i].sends++;
    else
        pairs[i].recvs++;
}

/* collective ends by operation */
static struct { char *name; uint64_t n; } ops[64];
static size_t nops;

static void count_op(const char *name)
{
    size_t i = 0;
    while (i < nops && strcmp(ops[i].name, name) != 0)
        i++;
    if (i == nops) {
        if (nops == sizeof ops / sizeof ops[0])
            return;
        if (!(ops[nops].name = strdup(name)))   /* the description may go */
            exit(1);
        nops++;
    }
    ops[i].n++;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const __typeof__(ops[0]) *)a)->name, ((const __typeof__(ops[0]) *)b)->name);
}

static const pal_record_role rma[] = {
    PAL_ROLE_RMA_PUT, PAL_ROLE_RMA_GET, PAL_ROLE_RMA_ATOMIC, PAL_ROLE_RMA_WIN_CREATE,
    PAL_ROLE_RMA_WIN_FREE, PAL_ROLE_RMA_SYNC, PAL_ROLE_RMA_LOCK, PAL_ROLE_RMA_UNLOCK};
static const char *const rma_names[] = {
    "rma_put", "rma_get", "rma_atomic", "rma_win_create", "rma_win_free", "rma_sync",
    "rma_lock", "rma_unlock"};

static const pal_handle *handle(pal_reader *r, pal_field_role role)
{
    const pal_handle *h;
    return pal_reader_role_handle(r, role, &h) == PAL_OK ? h : NULL;
}

static int get(const pal_record *rec, const pal_handle *a, const pal_handle *b, int64_t *v)
{
    return (a && pal_record_i64(rec, a, v) == PAL_OK) || (b && pal_record_i64(rec, b, v) == PAL_OK);
}

int main(int argc, char **argv)
{
    const char *dict = NULL;
    int i = 1, match = 0;
    if (argc > 1 && strcmp(argv[1], "-m") == 0) {
        match = 1;
        argc--;
        argv++;
    }
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
    const pal_handle *dest = handle(r, PAL_FROLE_DEST), *source = handle(r, PAL_FROLE_SOURCE),
                     *peer = handle(r, PAL_FROLE_PEER), *tag = handle(r, PAL_FROLE_TAG),
                     *rtag = handle(r, PAL_FROLE_RECV_TAG);
    uint64_t enter = 0, leave = 0, send = 0, recv = 0, cb = 0, ce = 0, metric = 0, marker = 0;
    uint64_t nrma[sizeof rma / sizeof rma[0]] = {0};
    const pal_record *rec;
    pal_status st;
    while ((st = pal_reader_next(r, &rec)) == PAL_OK) {
        int en = pal_record_has_role(rec, PAL_ROLE_ENTER), le = pal_record_has_role(rec, PAL_ROLE_LEAVE),
            ca = pal_record_has_role(rec, PAL_ROLE_CALL) ||
                 /* a process's start or end that takes time (MPI_Init) */
                 ((pal_record_has_role(rec, PAL_ROLE_PROCESS_BEGIN) ||
                   pal_record_has_role(rec, PAL_ROLE_PROCESS_END)) &&
                  pal_recdesc_role_field(pal_record_desc(rec), PAL_FROLE_DURATION)),
            ov = pal_record_has_role(rec, PAL_ROLE_OVERHEAD),
            co = pal_record_has_role(rec, PAL_ROLE_COLLECTIVE);
        enter += en || ca || ov;
        leave += le || ca || ov;
        send += (uint64_t)pal_record_has_role(rec, PAL_ROLE_SEND);
        recv += (uint64_t)pal_record_has_role(rec, PAL_ROLE_RECV);
        cb += co && (en || ca);
        ce += co && (le || ca);
        if (co && (le || ca)) {
            const char *op = pal_recdesc_operation(pal_record_desc(rec));
            count_op(*op ? op : "barrier");
        }
        for (size_t k = 0; k < sizeof rma / sizeof rma[0]; k++)
            nrma[k] += (uint64_t)pal_record_has_role(rec, rma[k]);
        metric += (uint64_t)pal_record_has_role(rec, PAL_ROLE_COUNTER);
        int64_t p, t = 0, me = pal_record_process(rec);
        if (match && pal_record_has_role(rec, PAL_ROLE_SEND) && get(rec, dest, peer, &p)) {
            get(rec, tag, NULL, &t);
            message(me, p, t, 1);
        }
        if (match && pal_record_has_role(rec, PAL_ROLE_RECV) && get(rec, source, peer, &p)) {
            get(rec, rtag, tag, &t);
            message(p, me, t, 0);
        }
        marker += (uint64_t)pal_record_has_role(rec, PAL_ROLE_MARKER);
    }
    int rc = st == PAL_END ? 0 : 1;
    if (rc)
        fprintf(stderr, "rolecount: %s\n", pal_reader_error(r));
    pal_reader_close(r);
    printf("enter %" PRIu64 "\nleave %" PRIu64 "\nsend %" PRIu64 "\nrecv %" PRIu64
           "\ncoll_begin %" PRIu64 "\ncoll_end %" PRIu64 "\nmetric %" PRIu64 "\nmarker %" PRIu64
           "\n", enter, leave, send, recv, cb, ce, metric, marker);
    for (size_t k = 0; k < sizeof rma / sizeof rma[0]; k++)
        printf("%s %" PRIu64 "\n", rma_names[k], nrma[k]);
    qsort(ops, nops, sizeof ops[0], by_name);
    for (size_t k = 0; k < nops; k++)
        printf("op %s %" PRIu64 "\n", ops[k].name, ops[k].n);
    for (size_t k = 0; k < nops; k++)
        free(ops[k].name);
    if (match) {
        uint64_t matched = 0;
        for (size_t k = 0; k < npairs; k++)
            matched += pairs[k].sends < pairs[k].recvs ? pairs[k].sends : pairs[k].recvs;
        printf("matched %" PRIu64 "\n", matched);
    }
    free(pairs);
    return rc;
}
