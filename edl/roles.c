/* roles.c -- the role vocabulary of EDL (doc/edl.md, "Roles") and its rules:
 * names, which roles go together, what each needs of its record and which
 * field types each field role fits. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "edl/roles.h"
#include "pal/pal.h"   /* the vocabulary: PAL_COLLECTIVE_OPS, PAL_RMA_KINDS */

/* Record roles, by code; NULL for a code with no role (edl-roles.h). */
#define BY_CODE(name, code, text) [EDL_ROLE_##name] = text,
static const char *const record_roles[EDL_ROLE_LIMIT] = {
    EDL_RECORD_ROLE_LIST(BY_CODE)
};
#undef BY_CODE

#define TEXT(name, code, text) text,
const char *const edl_record_role_names[] = {
    EDL_RECORD_ROLE_LIST(TEXT) NULL};

#undef TEXT

/* the name of field role code c is at c - 1; a code reserved for a role
 * another branch adds (edl-roles.h) has none until then; then NULL */
#define BY_FCODE(name, code, text) [code - 1] = text,
const char *const edl_field_role_names[EDL_FROLE_LIMIT] = {
    EDL_FIELD_ROLE_LIST(BY_FCODE)};
#undef BY_FCODE

/* The operations of OPERATION IS: OTF2's collective operations, by the names
 * MPI gives them (the one table, pal.h). */
static const char *const operations[] = {
#define X(id, name, otf2_op, otf2_role) name,
    PAL_COLLECTIVE_OPS(X)
#undef X
    NULL};

const char *edl_collective_operation(size_t i)
{
    return i < sizeof operations / sizeof operations[0] ? operations[i] : NULL;
}

int edl_operation_known(const char *name)
{
    for (size_t i = 0; name && operations[i]; i++)
        if (strcmp(operations[i], name) == 0)
            return 1;
    return 0;
}

int edl_role_is_1_3(edl_record_role r)
{
    return r >= EDL_ROLE_RMA_PUT && r <= EDL_ROLE_RMA_UNLOCK;
}

int edl_field_role_is_1_3(edl_field_role r)
{
    return r == EDL_FROLE_WINDOW;
}

int edl_role_is_1_4(edl_record_role r)
{
    return r == EDL_ROLE_DEVICE || r == EDL_ROLE_IO;
}

int edl_field_role_is_1_4(edl_field_role r)
{
    return r == EDL_FROLE_CORRELATION || r == EDL_FROLE_FILE || r == EDL_FROLE_LOCK_TYPE;
}

int edl_role_is_1_5(edl_record_role r)
{
    (void)r;
    return 0;
}

int edl_field_role_is_1_5(edl_field_role r)
{
    return r == EDL_FROLE_DEVICE_ID;
}

const char *edl_record_role_name(edl_record_role role)
{
    if ((unsigned)role >= EDL_ROLE_LIMIT || !record_roles[role])
        return NULL;
    return record_roles[role];
}

const char *edl_field_role_name(edl_field_role role)
{
    if (role <= EDL_FROLE_NONE || role >= EDL_FROLE_LIMIT)
        return NULL;
    return edl_field_role_names[role - 1];
}

edl_record_role edl_record_role_by_name(const char *name)
{
    for (unsigned i = 1; name && i < EDL_ROLE_LIMIT; i++)
        if (record_roles[i] && strcmp(record_roles[i], name) == 0)
            return (edl_record_role)i;
    return EDL_ROLE_NONE;
}

edl_field_role edl_field_role_by_name(const char *name)
{
    for (unsigned i = 0; name && i + 1 < EDL_FROLE_LIMIT; i++)
        if (edl_field_role_names[i] && strcmp(edl_field_role_names[i], name) == 0)
            return (edl_field_role)(i + 1);
    return EDL_FROLE_NONE;
}

int edl_role_is_primary(edl_record_role r)
{
    return r >= EDL_ROLE_ENTER && r <= EDL_ROLE_MESSAGE;
}

int edl_role_is_qualifier(edl_record_role r)
{
    return (r >= EDL_ROLE_SEND && r <= EDL_ROLE_UNTIMED) || edl_role_is_1_3(r) ||
           edl_role_is_1_4(r);
}

int edl_role_has_region(edl_record_role r)
{
    return r == EDL_ROLE_ENTER || r == EDL_ROLE_LEAVE || r == EDL_ROLE_CALL;
}

/* Messages are sent and received by calls and by requests; collectives,
 * communication, waiting, device time and I/O are time spent inside a region. */
int edl_role_qualifies(edl_record_role p, edl_record_role q)
{
    switch (q) {
    case EDL_ROLE_SEND:
    case EDL_ROLE_RECV:
    case EDL_ROLE_UNTIMED:
        return edl_role_has_region(p) || p == EDL_ROLE_REQUEST_COMPLETE ||
               p == EDL_ROLE_REQUEST_START || p == EDL_ROLE_MESSAGE;
    case EDL_ROLE_COLLECTIVE:
    case EDL_ROLE_COMMUNICATION:
    case EDL_ROLE_IDLE:
    case EDL_ROLE_DEVICE:
    case EDL_ROLE_IO:
        return edl_role_has_region(p);
    default:
        if (edl_role_is_1_3(q))     /* one-sided calls: time inside a region */
            return edl_role_has_region(p);
        return 0;
    }
}

edl_role_need edl_role_needs(edl_record_role r)
{
    edl_role_need n = {{EDL_FROLE_NONE, EDL_FROLE_NONE}};
    switch (r) {
    case EDL_ROLE_CALL:
    case EDL_ROLE_OVERHEAD: n.any[0] = EDL_FROLE_DURATION; break;
    case EDL_ROLE_COUNTER: n.any[0] = EDL_FROLE_VALUE; break;
    case EDL_ROLE_STATE: n.any[0] = EDL_FROLE_STATE; break;
    case EDL_ROLE_REQUEST_COMPLETE:
    case EDL_ROLE_REQUEST_START: n.any[0] = EDL_FROLE_REQUEST; break;
    case EDL_ROLE_SEND: n.any[0] = EDL_FROLE_PEER; n.any[1] = EDL_FROLE_DEST; break;
    case EDL_ROLE_RECV: n.any[0] = EDL_FROLE_PEER; n.any[1] = EDL_FROLE_SOURCE; break;
    default:
        if (edl_role_is_1_3(r))
            n.any[0] = EDL_FROLE_WINDOW;
        break;
    }
    return n;
}

const char *edl_role_need_text(edl_role_need n)
{
    if (n.any[0] == EDL_FROLE_PEER && n.any[1] == EDL_FROLE_DEST)
        return "peer or dest";
    if (n.any[0] == EDL_FROLE_PEER && n.any[1] == EDL_FROLE_SOURCE)
        return "peer or source";
    return n.any[0] ? edl_field_role_name(n.any[0]) : "";
}

static int is_int(edl_type t) { return t >= EDL_INT8 && t <= EDL_UINT64; }
static int is_num(edl_type t) { return t >= EDL_INT8 && t <= EDL_FLOAT64; }

const char *edl_field_role_type_need(edl_field_role fr, edl_type t)
{
    switch (fr) {
    case EDL_FROLE_TIMESTAMP:
    case EDL_FROLE_DURATION:
    case EDL_FROLE_VALUE:
        return is_num(t) ? NULL : "a number";
    case EDL_FROLE_REGION:
    case EDL_FROLE_COUNTER:
    case EDL_FROLE_STATE:
    case EDL_FROLE_FILE:
        return is_int(t) || t == EDL_STRING ? NULL : "an integer or a string";
    case EDL_FROLE_NAME:
    case EDL_FROLE_UNIT:
    case EDL_FROLE_TEXT:
    case EDL_FROLE_MEMBERS:
    case EDL_FROLE_REMOTE_MEMBERS:
        return t == EDL_STRING ? NULL : "a string";
    case EDL_FROLE_NONE:
    case EDL_FROLE_LIMIT:
        return "a role";
    default:
        return is_int(t) ? NULL : "an integer";
    }
}

int edl_field_role_is_designation(edl_field_role fr)
{
    return fr == EDL_FROLE_TIMESTAMP || fr == EDL_FROLE_PROCESS || fr == EDL_FROLE_THREAD;
}

int edl_canon_int(const char *text, edl_type t, char *buf, size_t size, int *range)
{
    static const unsigned long long umax[] = {0, 0x7f, 0x7fff, 0x7fffffff, 0x7fffffffffffffffULL,
                                              0xff, 0xffff, 0xffffffff, ~0ULL};
    *range = 0;
    if (!is_int(t) || !text)
        return 0;
    const char *p = text;
    int neg = *p == '-';
    if (neg)
        p++;
    if (*p < '0' || *p > '9')
        return 0;
    for (const char *q = p; *q; q++)
        if (*q < '0' || *q > '9')
            return 0;
    errno = 0;
    unsigned long long v = strtoull(p, NULL, 10);
    if (errno == ERANGE) {
        *range = 1;
        return 0;
    }
    unsigned long long max = umax[t];
    if (neg && v == 0)
        neg = 0;
    if ((neg && (t >= EDL_UINT8 || v > max + 1)) || (!neg && v > max)) {
        *range = 1;
        return 0;
    }
    snprintf(buf, size, "%s%llu", neg ? "-" : "", v);
    return 1;
}
