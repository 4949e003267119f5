/* otf2.c -- the OTF2 export of pal-view: any trace PAL reads, understood
 * through its description's roles only (no record name is looked at), written
 * as an OTF2 archive with libotf2 (doc/views.md, "OTF2 export").
 *
 * One OTF2 location per (process, thread), one location group per process;
 * enter/leave/call records become Enter/Leave of regions named by the
 * description (REGION IS, or the name a region id refers to); send and recv
 * roles become MpiSend/MpiRecv, or MpiIsend/MpiIsendComplete and
 * MpiIrecvRequest/MpiIrecv when a request is involved; collective records
 * MpiCollectiveBegin/End (the operation: the description's OPERATION);
 * the one-sided roles (rma_put, ...) Rma* events on RmaWin definitions;
 * counters Metric events; markers ParameterString
 * events of the parameter "marker"; POSIX I/O calls IoOperationBegin/
 * Complete, IoCreateHandle/IoDestroyHandle on IoHandle definitions of
 * paradigm "POSIX", as Score-P writes them; records of role device (time
 * on a GPU) put their location as an ACCELERATOR_STREAM in an ACCELERATOR
 * location group per (process, device: field role device_id) under the
 * device's system tree node, their regions of paradigm CUDA, their copies
 * between host and device RmaGet/RmaPut on Score-P's CUDA window
 * (doc/otf2.md). A call record spans [time - duration,
 * time], so events are kept per location in a small time-sorted buffer and
 * written when it fills: each location's events reach libotf2 in time order. */
#include <config.h>

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <otf2/otf2.h>

#include "container/container.h"
#include "pal/pal.h"
#include "views/otf2.h"

/* Events kept per location before the oldest half is written. */
#define BUF_EVENTS 65536
/* Ranks of the world communicator at most (its group lists rank 0..max). */
#define MAX_RANK (1u << 20)

enum {
    E_ENTER = 1, E_LEAVE, E_SEND, E_ISEND, E_ISEND_DONE, E_IRECV_REQ, E_RECV, E_IRECV,
    E_CBEGIN, E_CEND, E_METRIC, E_PARAM, E_OFF, E_ON,
    E_RMA_PUT, E_RMA_GET, E_RMA_ATOMIC, E_RMA_DONE, E_RMA_WCREATE, E_RMA_WDESTROY, E_RMA_SYNC,
    E_RMA_GSYNC, E_RMA_LOCK, E_RMA_UNLOCK,
    E_IO_BEGIN, E_IO_DONE, E_IO_CREATE, E_IO_DESTROY,
    E_LIMIT
};

/* What OTF2 has no place for, carried so that PAL's import gives it back
 * (doc/views.md, "OTF2 export"): the bytes a call says it moves, as
 * attributes of its Leave (A_*: the attribute ids). */
enum { A_BYTES_SENT, A_BYTES_RECEIVED, A_BYTES, A_COUNT };
static const char *const attr_names[A_COUNT] = {"ecl:bytes_sent", "ecl:bytes_received",
                                                "ecl:bytes"};
static const pal_field_role attr_roles[A_COUNT] = {PAL_FROLE_BYTES_SENT,
                                                   PAL_FROLE_BYTES_RECEIVED, PAL_FROLE_BYTES};

typedef struct ev {
    uint64_t t;
    uint64_t bytes, bytes2, req;
    union { int64_t i; double f; } v;
    uint64_t attr[A_COUNT];   /* E_LEAVE: the attributes of amask */
    uint32_t a, comm, tag, root;
    uint8_t kind, isfloat, amask;
} ev;

/* ---------------- a map of (uint64, uint64) keys to indices ---------------- */
typedef struct pmap {
    struct pslot { uint64_t a, b; uint32_t v; uint32_t used; } *s;
    size_t cap, n;
} pmap;

static size_t phash(uint64_t a, uint64_t b)
{
    uint64_t h = a * 0x9E3779B97F4A7C15ull ^ (b + 0x632BE59BD9B4E019ull) * 0xC2B2AE3D27D4EB4Full;
    return (size_t)(h ^ h >> 29);
}

/* index stored for (a, b), or -1 */
static long pmap_get(const pmap *m, uint64_t a, uint64_t b)
{
    if (m->cap == 0)
        return -1;
    for (size_t i = phash(a, b) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
        if (!m->s[i].used)
            return -1;
        if (m->s[i].a == a && m->s[i].b == b)
            return m->s[i].v;
    }
}

static int pmap_put(pmap *m, uint64_t a, uint64_t b, uint32_t v)
{
    if (2 * (m->n + 1) > m->cap) {
        size_t nc = m->cap ? m->cap * 2 : 64;
        struct pslot *ns = calloc(nc, sizeof *ns);
        if (!ns)
            return -1;
        for (size_t i = 0; i < m->cap; i++)
            if (m->s[i].used) {
                size_t j = phash(m->s[i].a, m->s[i].b) & (nc - 1);
                while (ns[j].used)
                    j = (j + 1) & (nc - 1);
                ns[j] = m->s[i];
            }
        free(m->s);
        m->s = ns;
        m->cap = nc;
    }
    size_t i = phash(a, b) & (m->cap - 1);
    while (m->s[i].used && !(m->s[i].a == a && m->s[i].b == b))
        i = (i + 1) & (m->cap - 1);
    if (!m->s[i].used)
        m->n++;
    m->s[i] = (struct pslot){ a, b, v, 1 };
    return 0;
}

/* ---------------- the exporter ---------------- */
enum { RQ_NONE = 0, RQ_CREATED, RQ_SEND };

typedef struct loc {
    uint32_t process, stream;
    OTF2_EvtWriter *w;
    ev *buf;
    size_t n, cap;
    uint64_t written_t;        /* time of the last event written */
    int any_written;
    uint32_t name;             /* string id, UINT32_MAX: none yet */
    int64_t coll_root;         /* the root an enter of a collective named (PICL), -1: none */
    uint64_t rma_ops;          /* one-sided operations so far (their matching ids) */
    int gpu;                   /* it has records of role device: a GPU stream */
    int64_t device;            /* its device (field role device_id), -1: not said */
    int copies;                /* it has copies to or from the host (RmaGet/RmaPut) */
} loc;

typedef struct req {
    uint64_t t;                /* created or started (an MpiIrecvRequest goes there) */
    int state;
} req;

typedef struct region {
    uint32_t name;
    uint32_t desc;             /* string id of "ecl:idle", ...; UINT32_MAX: none */
    OTF2_RegionRole role;
    OTF2_Paradigm paradigm;
    int io;                    /* the POSIX I/O function it is (IO_*), IO_NONE */
} region;

typedef struct metric {
    uint32_t name;
    int isfloat;
} metric;

typedef struct comm {
    uint64_t id;               /* the trace's communicator id */
    uint32_t name;
    uint32_t *members;         /* world ranks */
    size_t nmembers;
} comm;

/* POSIX I/O (doc/otf2.md, "POSIX I/O"): a call record with role io whose
 * field with role file names the file it works on (an id referring to a
 * definition that names it, or the name: ECL's io_call.file); the region's
 * name says which operation (read, write, open, ...). One IoHandle per
 * (process, file name), one IoRegularFile per file name. */
enum { IO_NONE, IO_READ, IO_WRITE, IO_FLUSH, IO_OPEN, IO_CLOSE };
typedef struct iohandle {
    uint32_t name;             /* the file's name (string id) */
    uint32_t file;             /* its IoRegularFile */
    uint32_t active;           /* opens not closed yet */
    int seen, pre_created;     /* pre_created: used before any open */
    uint64_t ops;              /* matching ids given so far */
} iohandle;

/* CUDA_COMM: the communicator of the CUDA window (copies between host and
 * device, doc/otf2.md "GPU work") in rwin.comm */
#define CUDA_COMM UINT32_MAX
typedef struct rwin {
    uint64_t id;               /* the trace's window id */
    uint32_t comm;             /* its communicator (0: the world; CUDA_COMM) */
    uint32_t name;
} rwin;

typedef struct xp {
    pal_reader *r;
    pal_names *names;
    OTF2_Archive *ar;
    OTF2_ErrorCode err;
    /* role handles (NULL: no record type has the field) */
    const pal_handle *h[PAL_FROLE_LIMIT];
    /* strings */
    char **str;
    size_t nstr, capstr;
    pmap strmap;               /* (hash, length) -> first string of that hash: chained below */
    uint32_t *strnext;
    /* locations */
    loc *locs;
    size_t nlocs, caplocs;
    pmap locmap;
    /* requests, by (location, request id) */
    req *reqs;
    size_t nreqs, capreqs;
    pmap reqmap;
    region *regions;
    size_t nregions, capregions;
    uint32_t *region_of_str;   /* string id -> region + 1 */
    size_t nros;
    metric *metrics;
    size_t nmetrics;
    comm *comms;               /* comms[0] is the world (every rank) */
    size_t ncomms;
    pmap commmap;
    rwin *wins;                /* one-sided communication windows */
    size_t nwins;
    pmap winmap;
    iohandle *ioh;             /* POSIX I/O handles, by (process, name) */
    size_t nioh;
    pmap iohmap;
    uint32_t *iofiles;         /* IoRegularFile -> its name (string id) */
    size_t niofiles;
    pmap iofmap;
    uint32_t marker_str;
    int have_base;
    int have_first;            /* first_ns: the earliest time of any record */
    int64_t first_ns;
    int64_t base;
    uint64_t tmin, tmax;
    int any_time;
    uint32_t max_rank;
    int any_rank;
    int attrs_used;            /* a Leave carries attributes: define them */
    uint32_t cuda_win;         /* the CUDA window + 1 (wins[]); 0: no copy to or from a host */
    /* what was written */
    uint64_t count[E_LIMIT];
    uint64_t clamped, lost;
} xp;

/* Grows *arr (elements of size sz, *n of them, the new ones zero) so that
 * index i exists. 0, or -1 out of memory. */
static int grow(void **arr, size_t *n, size_t i, size_t sz)
{
    if (i < *n)
        return 0;
    size_t nn = *n ? *n : 64;
    while (nn <= i)
        nn *= 2;
    void *p = realloc(*arr, nn * sz);
    if (!p)
        return -1;
    memset((char *)p + *n * sz, 0, (nn - *n) * sz);
    *arr = p;
    *n = nn;
    return 0;
}

static int oom(void)
{
    fprintf(stderr, "pal-view: otf2: out of memory\n");
    return -1;
}

static uint64_t shash(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

/* The id of string s (len bytes), added when new; UINT32_MAX out of memory. */
static uint32_t str_id(xp *x, const char *s, size_t len)
{
    uint64_t h = shash(s, len);
    long i = pmap_get(&x->strmap, h, len);
    for (; i >= 0; i = x->strnext[i] == UINT32_MAX ? -1 : (long)x->strnext[i])
        if (memcmp(x->str[i], s, len) == 0 && x->str[i][len] == '\0')
            return (uint32_t)i;
    if (x->nstr == x->capstr) {
        size_t nc = x->capstr ? x->capstr * 2 : 256;
        char **ns = realloc(x->str, nc * sizeof *ns);
        uint32_t *nn = ns ? realloc(x->strnext, nc * sizeof *nn) : NULL;
        if (ns)
            x->str = ns;
        if (!nn)
            return UINT32_MAX;
        x->strnext = nn;
        x->capstr = nc;
    }
    char *c = malloc(len + 1);
    if (!c)
        return UINT32_MAX;
    memcpy(c, s, len);
    c[len] = '\0';
    uint32_t id = (uint32_t)x->nstr++;
    x->str[id] = c;
    long head = pmap_get(&x->strmap, h, len);
    x->strnext[id] = head < 0 ? UINT32_MAX : (uint32_t)head;
    if (pmap_put(&x->strmap, h, len, id) != 0)
        return UINT32_MAX;
    return id;
}

static loc *loc_get(xp *x, uint32_t process, uint32_t stream)
{
    long i = pmap_get(&x->locmap, process, stream);
    if (i >= 0)
        return &x->locs[i];
    if (x->nlocs == x->caplocs) {
        size_t nc = x->caplocs ? x->caplocs * 2 : 16;
        loc *nl = realloc(x->locs, nc * sizeof *nl);
        if (!nl)
            return NULL;
        x->locs = nl;
        x->caplocs = nc;
    }
    loc *l = &x->locs[x->nlocs];
    memset(l, 0, sizeof *l);
    l->process = process;
    l->stream = stream;
    l->name = UINT32_MAX;
    l->coll_root = -1;
    l->device = -1;
    if (pmap_put(&x->locmap, process, stream, (uint32_t)x->nlocs) != 0)
        return NULL;
    x->nlocs++;
    if (process < MAX_RANK && (!x->any_rank || process > x->max_rank)) {
        x->max_rank = process;
        x->any_rank = 1;
    }
    return l;
}

static uint64_t loc_ref(const loc *l)
{
    return (uint64_t)l->process << 32 | l->stream;
}

static void write_event(xp *x, loc *l, const ev *e)
{
    OTF2_ErrorCode rc = OTF2_SUCCESS;
    if (!l->w) {
        l->w = OTF2_Archive_GetEvtWriter(x->ar, loc_ref(l));
        if (!l->w) {
            if (x->err == OTF2_SUCCESS)
                x->err = OTF2_ERROR_MEM_ALLOC_FAILED;
            return;
        }
    }
    OTF2_EvtWriter *w = l->w;
    switch (e->kind) {
    case E_ENTER: rc = OTF2_EvtWriter_Enter(w, NULL, e->t, e->a); break;
    case E_LEAVE: {
        OTF2_AttributeList *al = e->amask ? OTF2_AttributeList_New() : NULL;
        for (int i = 0; al && i < A_COUNT; i++)
            if (e->amask & (1u << i))
                OTF2_AttributeList_AddUint64(al, (OTF2_AttributeRef)i, e->attr[i]);
        rc = OTF2_EvtWriter_Leave(w, al, e->t, e->a);
        if (al)
            OTF2_AttributeList_Delete(al);
        break;
    }
    case E_SEND: rc = OTF2_EvtWriter_MpiSend(w, NULL, e->t, e->a, e->comm, e->tag, e->bytes); break;
    case E_ISEND:
        rc = OTF2_EvtWriter_MpiIsend(w, NULL, e->t, e->a, e->comm, e->tag, e->bytes, e->req);
        break;
    case E_ISEND_DONE: rc = OTF2_EvtWriter_MpiIsendComplete(w, NULL, e->t, e->req); break;
    case E_IRECV_REQ: rc = OTF2_EvtWriter_MpiIrecvRequest(w, NULL, e->t, e->req); break;
    case E_RECV: rc = OTF2_EvtWriter_MpiRecv(w, NULL, e->t, e->a, e->comm, e->tag, e->bytes); break;
    case E_IRECV:
        rc = OTF2_EvtWriter_MpiIrecv(w, NULL, e->t, e->a, e->comm, e->tag, e->bytes, e->req);
        break;
    case E_CBEGIN: rc = OTF2_EvtWriter_MpiCollectiveBegin(w, NULL, e->t); break;
    case E_CEND:
        rc = OTF2_EvtWriter_MpiCollectiveEnd(w, NULL, e->t, (OTF2_CollectiveOp)e->a, e->comm,
                                             e->root, e->bytes, e->bytes2);
        break;
    case E_METRIC: {
        OTF2_Type type = e->isfloat ? OTF2_TYPE_DOUBLE : OTF2_TYPE_INT64;
        OTF2_MetricValue v;
        if (e->isfloat)
            v.floating_point = e->v.f;
        else
            v.signed_int = e->v.i;
        rc = OTF2_EvtWriter_Metric(w, NULL, e->t, e->a, 1, &type, &v);
        break;
    }
    case E_PARAM: rc = OTF2_EvtWriter_ParameterString(w, NULL, e->t, e->a, (uint32_t)e->v.i); break;
    case E_OFF: rc = OTF2_EvtWriter_MeasurementOnOff(w, NULL, e->t, OTF2_MEASUREMENT_OFF); break;
    case E_ON: rc = OTF2_EvtWriter_MeasurementOnOff(w, NULL, e->t, OTF2_MEASUREMENT_ON); break;
    case E_RMA_PUT: rc = OTF2_EvtWriter_RmaPut(w, NULL, e->t, e->a, e->root, e->bytes, e->req); break;
    case E_RMA_GET: rc = OTF2_EvtWriter_RmaGet(w, NULL, e->t, e->a, e->root, e->bytes, e->req); break;
    case E_RMA_ATOMIC:
        rc = OTF2_EvtWriter_RmaAtomic(w, NULL, e->t, e->a, e->root, OTF2_RMA_ATOMIC_TYPE_ACCUMULATE,
                                      e->bytes, e->bytes2, e->req);
        break;
    case E_RMA_DONE: rc = OTF2_EvtWriter_RmaOpCompleteBlocking(w, NULL, e->t, e->a, e->req); break;
    case E_RMA_WCREATE: rc = OTF2_EvtWriter_RmaWinCreate(w, NULL, e->t, e->a); break;
    case E_RMA_WDESTROY: rc = OTF2_EvtWriter_RmaWinDestroy(w, NULL, e->t, e->a); break;
    case E_RMA_SYNC:
        rc = OTF2_EvtWriter_RmaSync(w, NULL, e->t, e->a, e->root, OTF2_RMA_SYNC_TYPE_MEMORY);
        break;
    case E_RMA_GSYNC:
        rc = OTF2_EvtWriter_RmaGroupSync(w, NULL, e->t,
                                         OTF2_RMA_SYNC_LEVEL_PROCESS | OTF2_RMA_SYNC_LEVEL_MEMORY,
                                         e->a, e->comm);
        break;
    case E_RMA_LOCK:
        rc = OTF2_EvtWriter_RmaAcquireLock(w, NULL, e->t, e->a, e->root, e->req,
                                           (OTF2_LockType)e->tag);
        break;
    case E_RMA_UNLOCK: rc = OTF2_EvtWriter_RmaReleaseLock(w, NULL, e->t, e->a, e->root, e->req); break;
    case E_IO_BEGIN:
        rc = OTF2_EvtWriter_IoOperationBegin(w, NULL, e->t, e->a, (OTF2_IoOperationMode)e->tag,
                                             OTF2_IO_OPERATION_FLAG_NONE, e->bytes, e->req);
        break;
    case E_IO_DONE: rc = OTF2_EvtWriter_IoOperationComplete(w, NULL, e->t, e->a, e->bytes, e->req); break;
    case E_IO_CREATE:
        /* ECL does not record open's flags: the mode is READ_WRITE */
        rc = OTF2_EvtWriter_IoCreateHandle(w, NULL, e->t, e->a, OTF2_IO_ACCESS_MODE_READ_WRITE,
                                           OTF2_IO_CREATION_FLAG_NONE, OTF2_IO_STATUS_FLAG_NONE);
        break;
    case E_IO_DESTROY: rc = OTF2_EvtWriter_IoDestroyHandle(w, NULL, e->t, e->a); break;
    }
    if (rc != OTF2_SUCCESS && x->err == OTF2_SUCCESS)
        x->err = rc;
    x->count[e->kind]++;
    if (!x->any_time || e->t < x->tmin)
        x->tmin = e->t;
    if (!x->any_time || e->t > x->tmax)
        x->tmax = e->t;
    x->any_time = 1;
}

/* Writes the k oldest buffered events of l. */
static void flush_loc(xp *x, loc *l, size_t k)
{
    for (size_t i = 0; i < k; i++)
        write_event(x, l, &l->buf[i]);
    if (k) {
        l->written_t = l->buf[k - 1].t;
        l->any_written = 1;
    }
    memmove(l->buf, l->buf + k, (l->n - k) * sizeof *l->buf);
    l->n -= k;
}

/* Adds e to l's buffer after every event at its time or before. An event
 * before what was already written (a call longer than the buffer holds) is
 * moved to that time and counted. */
static int put(xp *x, loc *l, ev e)
{
    if (l->any_written && e.t < l->written_t) {
        e.t = l->written_t;
        x->clamped++;
    }
    if (l->n == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 64;
        ev *nb = realloc(l->buf, nc * sizeof *nb);
        if (!nb)
            return oom();
        l->buf = nb;
        l->cap = nc;
    }
    size_t i = l->n;
    while (i > 0 && l->buf[i - 1].t > e.t)
        i--;
    memmove(l->buf + i + 1, l->buf + i, (l->n - i) * sizeof *l->buf);
    l->buf[i] = e;
    l->n++;
    if (l->n >= BUF_EVENTS)
        flush_loc(x, l, l->n / 2);
    return 0;
}

/* What a POSIX I/O function does (its name is the region's): the paradigm
 * "POSIX" of OTF2 is these functions, as MPI's operations are MPI's. */
static int io_op_of(const char *fn)
{
    static const struct { const char *name; int op; } fns[] = {
        {"read", IO_READ}, {"pread", IO_READ}, {"pread64", IO_READ}, {"readv", IO_READ},
        {"preadv", IO_READ}, {"write", IO_WRITE}, {"pwrite", IO_WRITE},
        {"pwrite64", IO_WRITE}, {"writev", IO_WRITE}, {"pwritev", IO_WRITE},
        {"fsync", IO_FLUSH}, {"fdatasync", IO_FLUSH}, {"open", IO_OPEN}, {"open64", IO_OPEN},
        {"openat", IO_OPEN}, {"openat64", IO_OPEN}, {"creat", IO_OPEN}, {"creat64", IO_OPEN},
        {"close", IO_CLOSE},
    };
    for (size_t i = 0; i < sizeof fns / sizeof *fns; i++)
        if (strcmp(fn, fns[i].name) == 0)
            return fns[i].op;
    return IO_NONE;
}

/* ---------------- reading fields by role ---------------- */

static int get_i64(const xp *x, const pal_record *rec, pal_field_role role, int64_t *v)
{
    return x->h[role] && pal_record_i64(rec, x->h[role], v) == PAL_OK;
}

static int get_u64(const xp *x, const pal_record *rec, pal_field_role role, uint64_t *v)
{
    int64_t i;
    if (!x->h[role])
        return 0;
    if (pal_record_u64(rec, x->h[role], v) == PAL_OK)
        return 1;
    if (pal_record_i64(rec, x->h[role], &i) == PAL_OK) {
        *v = (uint64_t)i;
        return 1;
    }
    return 0;
}

/* The name the field with role gives: the name its id refers to, its text,
 * or "<what> <id>". UINT32_MAX when the record has no such field. */
static uint32_t named(xp *x, const pal_record *rec, pal_field_role role, const char *what)
{
    const char *s;
    size_t len;
    int64_t id;
    char buf[64];
    const pal_handle *h = x->h[role];
    if (!h)
        return UINT32_MAX;
    if (pal_names_handle(x->names, rec, h, &s, &len) == PAL_OK ||
        pal_record_str(rec, h, &s, &len) == PAL_OK)
        return str_id(x, s, len);
    if (pal_record_i64(rec, h, &id) != PAL_OK)
        return UINT32_MAX;
    snprintf(buf, sizeof buf, "%s %" PRId64, what, id);
    return str_id(x, buf, strlen(buf));
}

/* The OTF2 operation of a collective record: its description's OPERATION
 * (doc/edl.md, "Collective operations"). A collective whose description
 * gives none: BARRIER, in a region of role COLL_OTHER (OTF2 needs one). */
static OTF2_CollectiveOp coll_op(const pal_recdesc *rd, OTF2_RegionRole *role)
{
    static const struct { OTF2_CollectiveOp op; OTF2_RegionRole role; } ops[] = {
#define X(id, name, otf2_op, otf2_role) {OTF2_COLLECTIVE_OP_##otf2_op, OTF2_REGION_ROLE_##otf2_role},
        PAL_COLLECTIVE_OPS(X)
#undef X
    };
    pal_coll_op op = pal_coll_op_by_name(pal_recdesc_operation(rd));
    if (op != PAL_COLL_OP_NONE) {
        *role = ops[op].role;
        return ops[op].op;
    }
    *role = OTF2_REGION_ROLE_COLL_OTHER;
    return OTF2_COLLECTIVE_OP_BARRIER;
}

/* Whether rec has a role of one-sided communication. */
static int is_rma(const pal_record *rec)
{
    for (int k = 0; k < PAL_RMA_KIND_COUNT; k++)
        if (pal_record_has_role(rec, pal_rma_kind_role((pal_rma_kind)k)))
            return 1;
    return 0;
}

/* The region an enter, leave, call or overhead record names; UINT32_MAX out
 * of memory. Its role and paradigm follow the record's roles. */
static uint32_t region_id(xp *x, const pal_record *rec)
{
    const pal_recdesc *rd = pal_record_desc(rec);
    const char *text = pal_recdesc_region(rd);
    uint32_t s = UINT32_MAX;
    if ((pal_record_has_role(rec, PAL_ROLE_PROCESS_BEGIN) ||
         pal_record_has_role(rec, PAL_ROLE_PROCESS_END)) &&
        !pal_recdesc_role_field(rd, PAL_FROLE_REGION) && pal_recdesc_description(rd) &&
        pal_recdesc_description(rd)[0])
        text = pal_recdesc_description(rd);   /* named as pal-view names it (MPI_Init) */
    if (text[0])
        s = str_id(x, text, strlen(text));
    else if ((s = named(x, rec, PAL_FROLE_REGION, "region")) == UINT32_MAX)
        s = str_id(x, pal_recdesc_name(rd), strlen(pal_recdesc_name(rd)));
    if (s == UINT32_MAX)
        return UINT32_MAX;
    if (grow((void **)&x->region_of_str, &x->nros, s, sizeof *x->region_of_str) != 0)
        return UINT32_MAX;
    if (x->region_of_str[s]) {
        region *g = &x->regions[x->region_of_str[s] - 1];
        /* a leave may say more than its enter did (PICL's recv_end receives) */
        if (g->role == OTF2_REGION_ROLE_FUNCTION &&
            (pal_record_has_role(rec, PAL_ROLE_SEND) || pal_record_has_role(rec, PAL_ROLE_RECV))) {
            g->role = OTF2_REGION_ROLE_POINT2POINT;
            g->paradigm = OTF2_PARADIGM_MPI;
        }
        return x->region_of_str[s] - 1;
    }
    if (x->nregions == x->capregions) {
        size_t nc = x->capregions ? x->capregions * 2 : 64;
        region *nr = realloc(x->regions, nc * sizeof *nr);
        if (!nr)
            return UINT32_MAX;
        x->regions = nr;
        x->capregions = nc;
    }
    region *g = &x->regions[x->nregions];
    g->name = s;
    g->role = OTF2_REGION_ROLE_FUNCTION;
    g->paradigm = OTF2_PARADIGM_USER;
    g->io = io_op_of(x->str[s]);
    /* what OTF2's region roles cannot say, in the description: a region that
     * waits (role idle), the process's start or end (MPI_Init, MPI_Finalize) */
    const char *desc = pal_record_has_role(rec, PAL_ROLE_PROCESS_BEGIN) ? "ecl:process_begin"
                       : pal_record_has_role(rec, PAL_ROLE_PROCESS_END) ? "ecl:process_end"
                       : pal_record_has_role(rec, PAL_ROLE_IDLE)        ? "ecl:idle"
                                                                         : NULL;
    g->desc = UINT32_MAX;
    if (desc && (g->desc = str_id(x, desc, strlen(desc))) == UINT32_MAX)
        return UINT32_MAX;
    if (pal_record_has_role(rec, PAL_ROLE_PROCESS_BEGIN) ||
        pal_record_has_role(rec, PAL_ROLE_PROCESS_END)) {
        g->paradigm = x->h[PAL_FROLE_COMMUNICATOR] ? OTF2_PARADIGM_MPI : OTF2_PARADIGM_USER;
    } else if (pal_record_has_role(rec, PAL_ROLE_OVERHEAD)) {
        g->role = OTF2_REGION_ROLE_ARTIFICIAL;
        g->paradigm = OTF2_PARADIGM_MEASUREMENT_SYSTEM;
    } else if (pal_record_has_role(rec, PAL_ROLE_COLLECTIVE)) {
        g->paradigm = OTF2_PARADIGM_MPI;
        coll_op(rd, &g->role);
    } else if (pal_record_has_role(rec, PAL_ROLE_SEND) || pal_record_has_role(rec, PAL_ROLE_RECV)) {
        g->paradigm = OTF2_PARADIGM_MPI;
        g->role = OTF2_REGION_ROLE_POINT2POINT;
    } else if (is_rma(rec)) {
        g->paradigm = OTF2_PARADIGM_MPI;
        g->role = OTF2_REGION_ROLE_RMA;
    } else if (pal_record_has_role(rec, PAL_ROLE_COMMUNICATION)) {
        g->paradigm = OTF2_PARADIGM_MPI;
    }
    x->region_of_str[s] = (uint32_t)++x->nregions;
    return (uint32_t)(x->nregions - 1);
}

/* ---------------- communicators ---------------- */

/* Parses "0-3,8" into world ranks. 0, or -1 on a malformed list or no memory. */
static int parse_members(const char *s, size_t len, uint32_t **out, size_t *n)
{
    size_t cap = 0;
    *out = NULL;
    *n = 0;
    size_t i = 0;
    while (i < len) {
        unsigned long a = 0, b;
        if (!isdigit((unsigned char)s[i]))
            goto bad;
        while (i < len && isdigit((unsigned char)s[i]) && a < MAX_RANK)
            a = a * 10 + (unsigned long)(s[i++] - '0');
        b = a;
        if (i < len && s[i] == '-') {
            i++;
            b = 0;
            if (i >= len || !isdigit((unsigned char)s[i]))
                goto bad;
            while (i < len && isdigit((unsigned char)s[i]) && b < MAX_RANK)
                b = b * 10 + (unsigned long)(s[i++] - '0');
        }
        if (a >= MAX_RANK || b >= MAX_RANK || b < a)
            goto bad;
        for (unsigned long r = a; r <= b; r++) {
            if (*n == cap) {
                cap = cap ? cap * 2 : 16;
                uint32_t *nm = realloc(*out, cap * sizeof *nm);
                if (!nm)
                    goto bad;
                *out = nm;
            }
            (*out)[(*n)++] = (uint32_t)r;
        }
        if (i < len && s[i] == ',')
            i++;
        else if (i < len)
            goto bad;
    }
    return 0;
bad:
    free(*out);
    *out = NULL;
    *n = 0;
    return -1;
}

/* A definition record with a members field defines a communicator when the
 * field that holds its id is known: the one with role communicator, or the
 * one a communicator field of another record refers to. */
static const pal_fielddesc *comm_id_field(const pal_reader *r, const pal_recdesc *def)
{
    const pal_fielddesc *f = pal_recdesc_role_field(def, PAL_FROLE_COMMUNICATOR);
    if (f)
        return f;
    const pal_dict *d = pal_reader_dict(r);
    for (size_t i = 0; i < pal_dict_record_count(d); i++) {
        const pal_fielddesc *c = pal_recdesc_role_field(pal_dict_record(d, i),
                                                        PAL_FROLE_COMMUNICATOR);
        const char *rn, *fn;
        if (c && pal_field_reference(c, &rn, &fn, NULL) == PAL_OK &&
            strcmp(rn, pal_recdesc_name(def)) == 0)
            return pal_recdesc_find_field(def, fn);
    }
    return NULL;
}

static int add_comm(xp *x, const pal_record *rec)
{
    const pal_recdesc *rd = pal_record_desc(rec);
    const pal_fielddesc *idf = comm_id_field(x->r, rd);
    const pal_fielddesc *mf = pal_recdesc_role_field(rd, PAL_FROLE_MEMBERS);
    int64_t id;
    const char *s;
    size_t len;
    if (!idf || !mf ||
        pal_record_get_i64(rec, pal_field_name(idf), &id) != PAL_OK ||
        pal_record_get_str(rec, pal_field_name(mf), &s, &len) != PAL_OK ||
        pmap_get(&x->commmap, (uint64_t)id, 0) >= 0)
        return 0;
    comm c = { (uint64_t)id, UINT32_MAX, NULL, 0 };
    if (parse_members(s, len, &c.members, &c.nmembers) != 0)
        return 0;
    const pal_fielddesc *nf = pal_recdesc_role_field(rd, PAL_FROLE_NAME);
    char buf[48];
    if (nf && pal_record_get_str(rec, pal_field_name(nf), &s, &len) == PAL_OK) {
        c.name = str_id(x, s, len);
    } else {
        snprintf(buf, sizeof buf, "comm %" PRId64, id);
        c.name = str_id(x, buf, strlen(buf));
    }
    comm *nc = realloc(x->comms, (x->ncomms + 1) * sizeof *nc);
    if (!nc || c.name == UINT32_MAX || pmap_put(&x->commmap, (uint64_t)id, 0,
                                                (uint32_t)x->ncomms) != 0) {
        free(c.members);
        if (nc)
            x->comms = nc;
        return oom();
    }
    x->comms = nc;
    x->comms[x->ncomms++] = c;
    return 0;
}

/* The communicator of rec and the local rank of world rank *rank in it (the
 * world's when rec names no known communicator, or rank is not a member). */
static uint32_t comm_of(xp *x, const pal_record *rec, uint32_t *rank, uint32_t *root)
{
    uint64_t id;
    if (!get_u64(x, rec, PAL_FROLE_COMMUNICATOR, &id))
        return 0;
    long ci = pmap_get(&x->commmap, id, 0);
    if (ci <= 0)
        return 0;
    const comm *c = &x->comms[ci];
    uint32_t lr = OTF2_UNDEFINED_UINT32, lroot = OTF2_UNDEFINED_UINT32;
    for (size_t i = 0; i < c->nmembers; i++) {
        if (rank && c->members[i] == *rank)
            lr = (uint32_t)i;
        if (root && c->members[i] == *root)
            lroot = (uint32_t)i;
    }
    if ((rank && *rank != OTF2_UNDEFINED_UINT32 && lr == OTF2_UNDEFINED_UINT32) ||
        (root && *root != OTF2_UNDEFINED_UINT32 && lroot == OTF2_UNDEFINED_UINT32))
        return 0;
    if (rank)
        *rank = lr;
    if (root)
        *root = lroot;
    return (uint32_t)ci;
}

/* ---------------- records to events ---------------- */

static uint32_t rank_of(int64_t v)
{
    return v >= 0 && v < (int64_t)MAX_RANK ? (uint32_t)v : OTF2_UNDEFINED_UINT32;
}

static req *req_get(xp *x, const loc *l, uint64_t id, int create)
{
    long i = pmap_get(&x->reqmap, (uint64_t)(l - x->locs), id);
    if (i >= 0)
        return &x->reqs[i];
    if (!create)
        return NULL;
    if (x->nreqs == x->capreqs) {
        size_t nc = x->capreqs ? x->capreqs * 2 : 64;
        req *nr = realloc(x->reqs, nc * sizeof *nr);
        if (!nr)
            return NULL;
        x->reqs = nr;
        x->capreqs = nc;
    }
    if (pmap_put(&x->reqmap, (uint64_t)(l - x->locs), id, (uint32_t)x->nreqs) != 0)
        return NULL;
    req *q = &x->reqs[x->nreqs++];
    memset(q, 0, sizeof *q);
    return q;
}

/* A message event of rec at t: the other end (field role `end`, else peer)
 * in the communicator of rec, the tag (`tag`, else tag), the bytes
 * (`bytes`, else bytes). */
static void message(xp *x, const pal_record *rec, ev *e, uint64_t t, pal_field_role end,
                    pal_field_role tag, pal_field_role bytes)
{
    int64_t v;
    memset(e, 0, sizeof *e);
    e->t = t;
    e->a = OTF2_UNDEFINED_UINT32;
    if (get_i64(x, rec, end, &v) || get_i64(x, rec, PAL_FROLE_PEER, &v))
        e->a = rank_of(v);
    e->comm = comm_of(x, rec, &e->a, NULL);
    if (get_i64(x, rec, tag, &v) || get_i64(x, rec, PAL_FROLE_TAG, &v))
        e->tag = (uint32_t)v;
    if (!get_u64(x, rec, bytes, &e->bytes))
        get_u64(x, rec, PAL_FROLE_BYTES, &e->bytes);
}

/* The message rec sends, at t: MpiIsend when it creates or starts a request. */
static int emit_send(xp *x, loc *l, const pal_record *rec, uint64_t t)
{
    ev e;
    message(x, rec, &e, t, PAL_FROLE_DEST, PAL_FROLE_TAG, PAL_FROLE_BYTES_SENT);
    e.kind = E_SEND;
    if (get_u64(x, rec, PAL_FROLE_REQUEST, &e.req) && e.req != 0) {
        req *q = req_get(x, l, e.req, 1);
        if (!q)
            return oom();
        q->state = RQ_SEND;
        q->t = t;
        e.kind = E_ISEND;
    }
    return put(x, l, e);
}

/* The message rec receives, at t: MpiIrecv (after an MpiIrecvRequest where
 * the request was created or started) when it completes a request. */
static int emit_recv(xp *x, loc *l, const pal_record *rec, uint64_t t, int complete)
{
    ev e;
    message(x, rec, &e, t, PAL_FROLE_SOURCE, PAL_FROLE_RECV_TAG, PAL_FROLE_BYTES_RECEIVED);
    e.kind = E_RECV;
    if (complete && get_u64(x, rec, PAL_FROLE_REQUEST, &e.req) && e.req != 0) {
        req *q = req_get(x, l, e.req, 0);
        ev r;
        memset(&r, 0, sizeof r);
        r.kind = E_IRECV_REQ;
        r.req = e.req;
        r.t = q && q->state == RQ_CREATED ? q->t : t;
        if (q && q->state == RQ_SEND) {     /* a send-receive's request */
            ev d = r;
            d.kind = E_ISEND_DONE;
            d.t = t;
            if (put(x, l, d) != 0)
                return -1;
            r.t = q->t;
        }
        if (put(x, l, r) != 0)
            return -1;
        if (q)
            q->state = RQ_NONE;
        e.kind = E_IRECV;
    }
    return put(x, l, e);
}

static int emit_coll_end(xp *x, loc *l, const pal_record *rec, uint64_t t)
{
    int64_t v;
    OTF2_RegionRole role;
    ev e;
    memset(&e, 0, sizeof e);
    e.t = t;
    e.kind = E_CEND;
    e.a = coll_op(pal_record_desc(rec), &role);
    e.root = OTF2_UNDEFINED_UINT32;
    if (get_i64(x, rec, PAL_FROLE_ROOT, &v))
        e.root = rank_of(v);
    else if (l->coll_root >= 0)
        e.root = rank_of(l->coll_root);     /* named when it began */
    l->coll_root = -1;
    e.comm = comm_of(x, rec, NULL, &e.root);
    if (!get_u64(x, rec, PAL_FROLE_BYTES_SENT, &e.bytes))
        get_u64(x, rec, PAL_FROLE_BYTES, &e.bytes);
    if (!get_u64(x, rec, PAL_FROLE_BYTES_RECEIVED, &e.bytes2))
        get_u64(x, rec, PAL_FROLE_BYTES, &e.bytes2);
    return put(x, l, e);
}

/* ---------------- one-sided communication (the rma_ roles) ---------------- */

/* The OTF2 window of rec (its field of role window), defined at its first
 * sight; a record that creates it gives it its communicator. UINT32_MAX: no
 * window field, or out of memory (*oomp set). */
static uint32_t win_of(xp *x, const pal_record *rec, int *oomp)
{
    uint64_t id;
    if (!get_u64(x, rec, PAL_FROLE_WINDOW, &id))
        return UINT32_MAX;
    long i = pmap_get(&x->winmap, id, 0);
    if (i < 0) {
        char buf[64];
        snprintf(buf, sizeof buf, "window %" PRIu64, id);
        rwin w = { id, 0, str_id(x, buf, strlen(buf)) };
        rwin *nw = realloc(x->wins, (x->nwins + 1) * sizeof *nw);
        if (w.name == UINT32_MAX || !nw ||
            pmap_put(&x->winmap, id, 0, (uint32_t)x->nwins) != 0) {
            if (nw)
                x->wins = nw;
            *oomp = 1;
            return UINT32_MAX;
        }
        x->wins = nw;
        x->wins[x->nwins] = w;
        i = (long)x->nwins++;
    }
    if (pal_record_has_role(rec, PAL_ROLE_RMA_WIN_CREATE))
        x->wins[i].comm = comm_of(x, rec, NULL, NULL);
    return (uint32_t)i;
}

/* The target of rec (its peer, a world rank) as a rank of window w's
 * communicator; OTF2_UNDEFINED_UINT32 when it names none (all of them). */
static uint32_t rma_target(xp *x, const pal_record *rec, uint32_t w)
{
    int64_t v;
    if (!get_i64(x, rec, PAL_FROLE_PEER, &v) && !get_i64(x, rec, PAL_FROLE_DEST, &v))
        return OTF2_UNDEFINED_UINT32;
    uint32_t r = rank_of(v);
    const comm *c = &x->comms[x->wins[w].comm];
    if (x->wins[w].comm == 0 || r == OTF2_UNDEFINED_UINT32)
        return r;
    for (size_t i = 0; i < c->nmembers; i++)
        if (c->members[i] == r)
            return (uint32_t)i;
    return OTF2_UNDEFINED_UINT32;
}

/* The events of a one-sided call [t0, t1] (an enter or a leave record with
 * the role: t0 = t1, its time): at t0 the operation, a window's destruction
 * or a lock's release; at t1 the operation's completion, a window's
 * creation, a synchronisation or a lock acquired. */
static int emit_rma(xp *x, loc *l, const pal_record *rec, uint64_t t0, uint64_t t1)
{
    int bad = 0;
    uint32_t w = win_of(x, rec, &bad);
    if (bad)
        return oom();
    if (w == UINT32_MAX)
        return 0;
    ev e;
    memset(&e, 0, sizeof e);
    e.t = t0;
    e.a = w;
    e.root = rma_target(x, rec, w);
    int put_ = pal_record_has_role(rec, PAL_ROLE_RMA_PUT),
        get = pal_record_has_role(rec, PAL_ROLE_RMA_GET),
        atomic = pal_record_has_role(rec, PAL_ROLE_RMA_ATOMIC);
    if (put_ || get || atomic) {
        e.kind = put_ ? E_RMA_PUT : get ? E_RMA_GET : E_RMA_ATOMIC;
        e.req = l->rma_ops++;
        if (!get_u64(x, rec, put_ ? PAL_FROLE_BYTES_SENT : PAL_FROLE_BYTES_RECEIVED, &e.bytes))
            get_u64(x, rec, PAL_FROLE_BYTES, &e.bytes);
        if (atomic)
            get_u64(x, rec, PAL_FROLE_BYTES_RECEIVED, &e.bytes2);
        ev d = e;
        d.kind = E_RMA_DONE;
        d.t = t1;
        if (put(x, l, e) != 0 || put(x, l, d) != 0)
            return -1;
    }
    if (pal_record_has_role(rec, PAL_ROLE_RMA_WIN_FREE)) {
        e.kind = E_RMA_WDESTROY;
        if (put(x, l, e) != 0)
            return -1;
    }
    if (pal_record_has_role(rec, PAL_ROLE_RMA_UNLOCK)) {
        e.kind = E_RMA_UNLOCK;
        e.req = (uint64_t)e.root + 1;   /* the lock's id: its target + 1, 0 for all */
        if (put(x, l, e) != 0)
            return -1;
    }
    e.t = t1;
    if (pal_record_has_role(rec, PAL_ROLE_RMA_WIN_CREATE)) {
        e.kind = E_RMA_WCREATE;
        if (put(x, l, e) != 0)
            return -1;
    }
    if (pal_record_has_role(rec, PAL_ROLE_RMA_SYNC)) {
        e.kind = e.root == OTF2_UNDEFINED_UINT32 ? E_RMA_GSYNC : E_RMA_SYNC;
        e.comm = x->wins[w].comm + 1;       /* the group of its communicator */
        if (put(x, l, e) != 0)
            return -1;
    }
    if (pal_record_has_role(rec, PAL_ROLE_RMA_LOCK)) {
        e.kind = E_RMA_LOCK;
        e.req = (uint64_t)e.root + 1;
        /* the descriptions do not say which: a lock of all is shared (MPI's
         * lock_all), a lock of one target exclusive */
        e.tag = e.root == OTF2_UNDEFINED_UINT32 ? OTF2_LOCK_SHARED : OTF2_LOCK_EXCLUSIVE;
        if (put(x, l, e) != 0)
            return -1;
    }
    return 0;
}

/* ---------------- GPU copies (records of role device that move bytes) ---------------- */

/* The window of the copies between hosts and devices (Score-P's CUDA
 * window), defined at the first copy: its communicator's locations are
 * every rank's first CPU thread, by rank, then the GPU streams with copies
 * (write_defs), so that a copy's remote, its host, is its process's rank.
 * Its index in wins[]; UINT32_MAX out of memory. */
static uint32_t cuda_window(xp *x)
{
    if (x->cuda_win)
        return x->cuda_win - 1;
    rwin w = { 0, CUDA_COMM, str_id(x, "CUDA window", 11) };
    rwin *nw = realloc(x->wins, (x->nwins + 1) * sizeof *nw);
    if (nw)
        x->wins = nw;
    if (w.name == UINT32_MAX || !nw)
        return UINT32_MAX;
    x->wins[x->nwins] = w;
    x->cuda_win = (uint32_t)++x->nwins;
    return x->cuda_win - 1;
}

/* A copy between the host and the device as Score-P writes CUDA's: on the
 * GPU stream, RmaGet (the device reads from the host: bytes the record
 * receives, role bytes_received) or RmaPut (the device writes to the host:
 * role bytes_sent) at its start, RmaOpCompleteBlocking at its end, the
 * remote being the host (the process's rank in the CUDA window). 1 when
 * the record is such a copy, 0 when not, -1 out of memory. */
static int emit_copy(xp *x, loc *l, const pal_record *rec, uint64_t t0, uint64_t t1)
{
    uint64_t in = 0, out = 0;
    get_u64(x, rec, PAL_FROLE_BYTES_RECEIVED, &in);
    get_u64(x, rec, PAL_FROLE_BYTES_SENT, &out);
    if (in == 0 && out == 0)
        return 0;
    uint32_t w = cuda_window(x);
    if (w == UINT32_MAX)
        return oom();
    l->copies = 1;
    for (int k = 0; k < 2; k++) {
        uint64_t b = k == 0 ? in : out;
        if (b == 0)
            continue;
        ev e;
        memset(&e, 0, sizeof e);
        e.kind = k == 0 ? E_RMA_GET : E_RMA_PUT;
        e.t = t0;
        e.a = w;
        e.root = l->process < MAX_RANK ? l->process : OTF2_UNDEFINED_UINT32;
        e.bytes = b;
        e.req = l->rma_ops++;
        ev d = e;
        d.kind = E_RMA_DONE;
        d.t = t1;
        if (put(x, l, e) != 0 || put(x, l, d) != 0)
            return -1;
    }
    return 1;
}

/* ---------------- POSIX I/O ---------------- */

/* The I/O operation of call rec in region reg (IO_NONE: none) and its
 * handle in *h; -1 out of memory. */
static int io_call(xp *x, const pal_record *rec, uint32_t reg, uint32_t *h)
{
    if (!pal_record_has_role(rec, PAL_ROLE_IO) || !x->h[PAL_FROLE_FILE])
        return IO_NONE;
    /* a read or a write by its bytes' role (received: read into the
     * process, sent: written from it), else by the region's name */
    const pal_recdesc *rd = pal_record_desc(rec);
    int in = pal_recdesc_role_field(rd, PAL_FROLE_BYTES_RECEIVED) != NULL;
    int out = pal_recdesc_role_field(rd, PAL_FROLE_BYTES_SENT) != NULL;
    int op = in != out ? (in ? IO_READ : IO_WRITE) : x->regions[reg].io;
    if (op == IO_NONE)
        return IO_NONE;
    const char *s;
    size_t len;
    if (pal_names_handle(x->names, rec, x->h[PAL_FROLE_FILE], &s, &len) != PAL_OK &&
        pal_record_str(rec, x->h[PAL_FROLE_FILE], &s, &len) != PAL_OK)
        return IO_NONE;                  /* the file is not known: the region only */
    uint32_t name = str_id(x, s, len);
    if (name == UINT32_MAX)
        return -1;
    uint32_t process = pal_record_process(rec);
    long i = pmap_get(&x->iohmap, process, name);
    if (i < 0) {
        long f = pmap_get(&x->iofmap, name, 0);
        if (f < 0) {
            uint32_t *nf = realloc(x->iofiles, (x->niofiles + 1) * sizeof *nf);
            if (!nf)
                return -1;
            x->iofiles = nf;
            if (pmap_put(&x->iofmap, name, 0, (uint32_t)x->niofiles) != 0)
                return -1;
            f = (long)x->niofiles;
            x->iofiles[x->niofiles++] = name;
        }
        iohandle *nh = realloc(x->ioh, (x->nioh + 1) * sizeof *nh);
        if (!nh)
            return -1;
        x->ioh = nh;
        if (pmap_put(&x->iohmap, process, name, (uint32_t)x->nioh) != 0)
            return -1;
        i = (long)x->nioh++;
        memset(&x->ioh[i], 0, sizeof x->ioh[i]);
        x->ioh[i].name = name;
        x->ioh[i].file = (uint32_t)f;
    }
    region *g = &x->regions[reg];
    if (g->role == OTF2_REGION_ROLE_FUNCTION)
        g->role = op == IO_OPEN || op == IO_CLOSE ? OTF2_REGION_ROLE_FILE_IO_METADATA
                                                  : OTF2_REGION_ROLE_FILE_IO;
    *h = (uint32_t)i;
    return op;
}

/* Handle h is active for an operation at t: one used before any open was
 * there from the start (pre-created, like stdin); one used again after its
 * close was made again by something not traced: IoCreateHandle at t. */
static int io_activate(xp *x, loc *l, uint32_t h, uint64_t t)
{
    iohandle *ih = &x->ioh[h];
    if (ih->active)
        return 0;
    ih->active = 1;
    if (!ih->seen) {
        ih->seen = ih->pre_created = 1;
        return 0;
    }
    ev e;
    memset(&e, 0, sizeof e);
    e.kind = E_IO_CREATE;
    e.t = t;
    e.a = h;
    return put(x, l, e);
}

/* The I/O events of a call [t0, t1]: at t0 (after its Enter) an operation's
 * begin; at t1 (before its Leave) its completion, a handle's creation by an
 * open or destruction by the last close. */
static int emit_io(xp *x, loc *l, int op, uint32_t h, uint64_t bytes, uint64_t t, int end)
{
    ev e;
    memset(&e, 0, sizeof e);
    e.t = t;
    e.a = h;
    e.bytes = bytes;
    if (op == IO_READ || op == IO_WRITE || op == IO_FLUSH) {
        if (!end && io_activate(x, l, h, t) != 0)
            return -1;
        e.kind = end ? E_IO_DONE : E_IO_BEGIN;
        e.tag = op == IO_READ ? OTF2_IO_OPERATION_MODE_READ
                : op == IO_WRITE ? OTF2_IO_OPERATION_MODE_WRITE : OTF2_IO_OPERATION_MODE_FLUSH;
        e.req = end ? x->ioh[h].ops++ : x->ioh[h].ops;
        return put(x, l, e);
    }
    if (!end)
        return 0;
    iohandle *ih = &x->ioh[h];
    if (op == IO_OPEN) {
        ih->seen = 1;
        if (ih->active++ > 0)
            return 0;                   /* open twice: one handle stays active */
        e.kind = E_IO_CREATE;
        return put(x, l, e);
    }
    if (io_activate(x, l, h, t) != 0)
        return -1;
    if (--ih->active > 0)
        return 0;
    e.kind = E_IO_DESTROY;
    return put(x, l, e);
}

static int simple(xp *x, loc *l, int kind, uint64_t t, uint32_t a)
{
    ev e;
    memset(&e, 0, sizeof e);
    e.kind = (uint8_t)kind;
    e.t = t;
    e.a = a;
    return put(x, l, e);
}

static uint64_t stamp(xp *x, int64_t ns)
{
    if (ns < x->base) {
        x->clamped++;
        return 0;
    }
    return (uint64_t)(ns - x->base);
}

static int record(xp *x, const pal_record *rec)
{
    const pal_recdesc *rd = pal_record_desc(rec);
    if (pal_recdesc_role_field(rd, PAL_FROLE_TIMESTAMP)) {
        int64_t ns = pal_record_time_ns(rec);
        if (!x->have_first || ns < x->first_ns)
            x->first_ns = ns;
        x->have_first = 1;
    }
    if (pal_record_has_role(rec, PAL_ROLE_DEFINITION)) {
        if (pal_recdesc_role_field(rd, PAL_FROLE_MEMBERS))
            return add_comm(x, rec);
        return 0;
    }
    if (pal_record_has_role(rec, PAL_ROLE_LOST)) {
        uint64_t n = 1;
        get_u64(x, rec, PAL_FROLE_COUNT, &n);
        x->lost += n;
        return 0;
    }
    int enter = pal_record_has_role(rec, PAL_ROLE_ENTER),
        leave = pal_record_has_role(rec, PAL_ROLE_LEAVE),
        call = pal_record_has_role(rec, PAL_ROLE_CALL) ||
               /* a process's start or end that takes time, as pal-view shows it */
               ((pal_record_has_role(rec, PAL_ROLE_PROCESS_BEGIN) ||
                 pal_record_has_role(rec, PAL_ROLE_PROCESS_END)) &&
                pal_recdesc_role_field(rd, PAL_FROLE_DURATION)),
        over = pal_record_has_role(rec, PAL_ROLE_OVERHEAD),
        message = pal_record_has_role(rec, PAL_ROLE_MESSAGE),
        marker = pal_record_has_role(rec, PAL_ROLE_MARKER),
        counter = pal_record_has_role(rec, PAL_ROLE_COUNTER),
        rstart = pal_record_has_role(rec, PAL_ROLE_REQUEST_START),
        rdone = pal_record_has_role(rec, PAL_ROLE_REQUEST_COMPLETE),
        pause = pal_record_has_role(rec, PAL_ROLE_PAUSE),
        resume = pal_record_has_role(rec, PAL_ROLE_RESUME);
    if (!(enter || leave || call || over || message || marker || counter || rstart || rdone ||
          pause || resume))
        return 0;
    int send = pal_record_has_role(rec, PAL_ROLE_SEND),
        recv = pal_record_has_role(rec, PAL_ROLE_RECV),
        coll = pal_record_has_role(rec, PAL_ROLE_COLLECTIVE), rma = is_rma(rec);
    int64_t ns = pal_record_time_ns(rec);
    if (!x->have_base && pal_recdesc_role_field(rd, PAL_FROLE_TIMESTAMP)) {
        /* times from a zero near the trace's start (PICL, a run) move 1 s
         * later, so that calls begun before the first record stay >= 0 */
        x->base = ns < 1000000000 ? -1000000000 : 0;
        x->have_base = 1;
    }
    uint64_t t = stamp(x, ns);
    loc *l = loc_get(x, pal_record_process(rec), pal_record_stream(rec));
    if (!l)
        return oom();
    if (l->name == UINT32_MAX) {
        const char *s;
        size_t len;
        if (pal_names_thread(x->names, rec, &s, &len) == PAL_OK)
            l->name = str_id(x, s, len);
    }
    if (enter || leave || call || over) {
        uint32_t reg = region_id(x, rec);
        if (reg == UINT32_MAX)
            return oom();
        if (pal_record_has_role(rec, PAL_ROLE_DEVICE)) {
            /* GPU work: kernels, and copies and memsets (they move bytes),
             * as Score-P's CUDA regions */
            region *g = &x->regions[reg];
            int64_t dev;
            l->gpu = 1;
            if (l->device < 0 && get_i64(x, rec, PAL_FROLE_DEVICE_ID, &dev) && dev >= 0)
                l->device = dev;
            if (g->paradigm == OTF2_PARADIGM_USER && g->role == OTF2_REGION_ROLE_FUNCTION) {
                g->paradigm = OTF2_PARADIGM_CUDA;
                if (pal_recdesc_role_field(rd, PAL_FROLE_BYTES) ||
                    pal_recdesc_role_field(rd, PAL_FROLE_BYTES_SENT) ||
                    pal_recdesc_role_field(rd, PAL_FROLE_BYTES_RECEIVED))
                    g->role = OTF2_REGION_ROLE_DATA_TRANSFER;
            }
        }
        int64_t dur = 0;
        uint64_t t0 = t, t1 = t, io_bytes = 0;
        uint32_t ioh = 0;
        int io = IO_NONE;
        if (call && !send && !recv && !coll && !rma &&
            !pal_record_has_role(rec, PAL_ROLE_COMMUNICATION)) {
            if ((io = io_call(x, rec, reg, &ioh)) < 0)
                return oom();
            if (io != IO_NONE && !get_u64(x, rec, PAL_FROLE_BYTES, &io_bytes) &&
                !get_u64(x, rec, io == IO_READ ? PAL_FROLE_BYTES_RECEIVED : PAL_FROLE_BYTES_SENT,
                         &io_bytes))
                io_bytes = 0;
        }
        if ((call || over) && pal_record_duration_ns(rec, &dur) == PAL_OK && dur > 0) {
            if (call)
                t0 = dur > ns - x->base ? (x->clamped++, 0) : t - (uint64_t)dur;
            else
                t1 = t + (uint64_t)dur;
        }
        if (enter || call || over) {
            if (simple(x, l, E_ENTER, t0, reg) != 0)
                return -1;
            if (coll && simple(x, l, E_CBEGIN, t0, 0) != 0)
                return -1;
            if (coll && enter && !get_i64(x, rec, PAL_FROLE_ROOT, &l->coll_root))
                l->coll_root = -1;
            if (send && emit_send(x, l, rec, t0) != 0)
                return -1;
            if (rma && enter && emit_rma(x, l, rec, t0, t0) != 0)
                return -1;
            if (io != IO_NONE && emit_io(x, l, io, ioh, io_bytes, t0, 0) != 0)
                return -1;
            if (call && !send && !recv) {
                /* a request it creates (MPI_Irecv): completed later as a receive? */
                uint64_t id;
                if (get_u64(x, rec, PAL_FROLE_REQUEST, &id) && id != 0) {
                    req *q = req_get(x, l, id, 1);
                    if (!q)
                        return oom();
                    if (q->state != RQ_SEND) {     /* (not a call that names a send's) */
                        q->state = RQ_CREATED;
                        q->t = t0;
                    }
                }
            }
        }
        if (leave || call || over) {
            if (leave && send && emit_send(x, l, rec, t1) != 0)
                return -1;
            if (recv && emit_recv(x, l, rec, t1, 0) != 0)
                return -1;
            if (coll && emit_coll_end(x, l, rec, t1) != 0)
                return -1;
            if (rma && emit_rma(x, l, rec, leave ? t1 : t0, t1) != 0)
                return -1;
            if (io != IO_NONE && emit_io(x, l, io, ioh, io_bytes, t1, 1) != 0)
                return -1;
            int copy = 0;
            if (pal_record_has_role(rec, PAL_ROLE_DEVICE) && !coll && !rma && io == IO_NONE &&
                (copy = emit_copy(x, l, rec, call ? t0 : t1, t1)) < 0)
                return -1;
            ev e;
            memset(&e, 0, sizeof e);
            e.kind = E_LEAVE;
            e.t = t1;
            e.a = reg;
            /* the bytes the call says it moves (a collective's, a
             * one-sided operation's, an I/O operation's and a GPU copy's
             * go with their own events) */
            for (int i = 0; !coll && !rma && !copy && io == IO_NONE && (leave || call) &&
                            i < A_COUNT; i++)
                if (get_u64(x, rec, attr_roles[i], &e.attr[i])) {
                    e.amask |= (uint8_t)(1u << i);
                    x->attrs_used = 1;
                }
            if (put(x, l, e) != 0)
                return -1;
        }
        return 0;
    }
    if (message) {
        if (send && emit_send(x, l, rec, t) != 0)
            return -1;
        if (recv && emit_recv(x, l, rec, t, 0) != 0)
            return -1;
        return 0;
    }
    if (rstart) {
        uint64_t id;
        if (send)
            return emit_send(x, l, rec, t);
        if (recv)
            return emit_recv(x, l, rec, t, 0);
        if (get_u64(x, rec, PAL_FROLE_REQUEST, &id) && id != 0) {
            req *q = req_get(x, l, id, 1);
            if (!q)
                return oom();
            if (q->state != RQ_SEND) {
                q->state = RQ_CREATED;
                q->t = t;
            }
        }
        return 0;
    }
    if (rdone) {
        uint64_t id = 0;
        if (recv)
            return emit_recv(x, l, rec, t, 1);
        if (send)
            return emit_send(x, l, rec, t);
        req *q = get_u64(x, rec, PAL_FROLE_REQUEST, &id) ? req_get(x, l, id, 0) : NULL;
        if (q && q->state == RQ_SEND) {
            ev e;
            memset(&e, 0, sizeof e);
            e.kind = E_ISEND_DONE;
            e.t = t;
            e.req = id;
            q->state = RQ_NONE;
            return put(x, l, e);
        }
        return 0;
    }
    if (marker) {
        const char *s;
        size_t len;
        uint32_t text;
        if (x->h[PAL_FROLE_TEXT] && pal_record_str(rec, x->h[PAL_FROLE_TEXT], &s, &len) == PAL_OK)
            text = str_id(x, s, len);
        else
            text = str_id(x, pal_recdesc_name(rd), strlen(pal_recdesc_name(rd)));
        if (text == UINT32_MAX)
            return oom();
        ev e;
        memset(&e, 0, sizeof e);
        e.kind = E_PARAM;
        e.t = t;
        e.a = 0;
        e.v.i = text;
        return put(x, l, e);
    }
    if (counter) {
        const pal_fielddesc *vf = pal_recdesc_role_field(rd, PAL_FROLE_VALUE);
        uint32_t name = named(x, rec, PAL_FROLE_COUNTER, "counter");
        if (name == UINT32_MAX)
            name = str_id(x, pal_recdesc_name(rd), strlen(pal_recdesc_name(rd)));
        if (name == UINT32_MAX)
            return oom();
        ev e;
        memset(&e, 0, sizeof e);
        e.kind = E_METRIC;
        e.t = t;
        e.isfloat = vf && (pal_field_type(vf) == PAL_FLOAT32 || pal_field_type(vf) == PAL_FLOAT64);
        if (e.isfloat)
            pal_record_f64(rec, x->h[PAL_FROLE_VALUE], &e.v.f);
        else
            get_i64(x, rec, PAL_FROLE_VALUE, &e.v.i);
        size_t m = 0;
        while (m < x->nmetrics && !(x->metrics[m].name == name &&
                                    x->metrics[m].isfloat == e.isfloat))
            m++;
        if (m == x->nmetrics) {
            metric *nm = realloc(x->metrics, (m + 1) * sizeof *nm);
            if (!nm)
                return oom();
            x->metrics = nm;
            x->metrics[x->nmetrics++] = (metric){ name, e.isfloat };
        }
        e.a = (uint32_t)m;
        return put(x, l, e);
    }
    if (pause || resume)
        return simple(x, l, pause ? E_OFF : E_ON, t, 0);
    return 0;
}

/* ---------------- definitions ---------------- */

static OTF2_FlushType pre_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef l, void *cd, bool final)
{
    (void)ud, (void)ft, (void)l, (void)cd, (void)final;
    return OTF2_FLUSH;
}

static OTF2_TimeStamp post_flush(void *ud, OTF2_FileType ft, OTF2_LocationRef l)
{
    (void)ud, (void)ft, (void)l;
    return 0;
}

static int loc_order(const void *a, const void *b)
{
    const loc *x = a, *y = b;
    if (x->process != y->process)
        return x->process < y->process ? -1 : 1;
    return x->stream < y->stream ? -1 : x->stream > y->stream;
}

/* The ACCELERATOR location groups and device nodes write_defs defines. */
typedef struct accel_group {
    uint32_t process;
    int64_t device;            /* -1: the streams do not say */
    size_t first;              /* its first location (locs[]) */
    uint32_t name;             /* string ids */
    OTF2_SystemTreeNodeRef node;
    OTF2_LocationGroupRef group;
} accel_group;

typedef struct accel_def {
    accel_group *groups;
    size_t ngroups;
    size_t *group_of;          /* location -> its group (GPU streams only) */
    int64_t *dev;              /* the devices, ascending: node k + 1 */
    uint32_t *dev_name;
    size_t ndev;
    uint32_t s_class, s_cuda;
} accel_def;

static void accel_free(accel_def *a)
{
    free(a->groups);
    free(a->group_of);
    free(a->dev);
    free(a->dev_name);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* Fills *a for the sorted locations (gname: their processes' group names).
 * 0, or -1 out of memory (*a freed). */
static int accel_prepare(xp *x, const uint32_t *gname, accel_def *a)
{
    char buf[160];
    memset(a, 0, sizeof *a);
    a->groups = calloc(x->nlocs + 1, sizeof *a->groups);
    a->group_of = calloc(x->nlocs + 1, sizeof *a->group_of);
    a->dev = calloc(x->nlocs + 1, sizeof *a->dev);
    a->dev_name = calloc(x->nlocs + 1, sizeof *a->dev_name);
    int any = 0;
    for (size_t i = 0; i < x->nlocs; i++)
        any |= x->locs[i].gpu;
    if (!a->groups || !a->group_of || !a->dev || !a->dev_name ||
        (any && ((a->s_class = str_id(x, "CUDA Device", 11)) == UINT32_MAX ||
                 (a->s_cuda = str_id(x, "CUDA", 4)) == UINT32_MAX)))
        goto fail;
    for (size_t i = 0; i < x->nlocs; i++) {
        const loc *l = &x->locs[i];
        if (!l->gpu || l->device < 0)
            continue;
        size_t k = 0;
        while (k < a->ndev && a->dev[k] != l->device)
            k++;
        if (k == a->ndev)
            a->dev[a->ndev++] = l->device;
    }
    qsort(a->dev, a->ndev, sizeof *a->dev, cmp_i64);
    for (size_t k = 0; k < a->ndev; k++) {
        snprintf(buf, sizeof buf, "%" PRId64, a->dev[k]);
        if ((a->dev_name[k] = str_id(x, buf, strlen(buf))) == UINT32_MAX)
            goto fail;
    }
    size_t pfirst = 0;         /* the first group of the current process */
    for (size_t i = 0; i < x->nlocs; i++) {
        const loc *l = &x->locs[i];
        if (!l->gpu)
            continue;
        if (a->ngroups && a->groups[pfirst].process != l->process)
            pfirst = a->ngroups;
        size_t k = pfirst;
        while (k < a->ngroups && a->groups[k].device != l->device)
            k++;
        if (k == a->ngroups) {
            accel_group *ag = &a->groups[a->ngroups++];
            ag->process = l->process;
            ag->device = l->device;
            ag->first = i;
            ag->node = 0;
            if (l->device >= 0) {
                snprintf(buf, sizeof buf, "%s GPU %" PRId64, x->str[gname[i]], l->device);
                for (size_t d = 0; d < a->ndev; d++)
                    if (a->dev[d] == l->device)
                        ag->node = (OTF2_SystemTreeNodeRef)(d + 1);
            } else {
                snprintf(buf, sizeof buf, "%s GPU", x->str[gname[i]]);
            }
            if ((ag->name = str_id(x, buf, strlen(buf))) == UINT32_MAX)
                goto fail;
        }
        a->group_of[i] = k;
    }
    return 0;
fail:
    accel_free(a);
    memset(a, 0, sizeof *a);
    return -1;
}

#define CK(call)                                                                \
    do {                                                                        \
        OTF2_ErrorCode rc_ = (call);                                            \
        if (rc_ != OTF2_SUCCESS && x->err == OTF2_SUCCESS)                      \
            x->err = rc_;                                                       \
    } while (0)

static int write_defs(xp *x, const pal_trace_info *info)
{
    char buf[128];
    /* every rank up to the largest has a location: the world's group lists
     * them by rank, since messages name peers by world rank */
    if (x->any_rank)
        for (uint32_t r = 0; r <= x->max_rank; r++) {
            long i = -1;
            for (size_t k = 0; k < x->nlocs && i < 0; k++)
                if (x->locs[k].process == r)
                    i = (long)k;
            if (i < 0 && !loc_get(x, r, 0))
                return oom();
        }
    qsort(x->locs, x->nlocs, sizeof *x->locs, loc_order);
    uint32_t s_machine = str_id(x, info->host[0] ? info->host : "machine",
                                strlen(info->host[0] ? info->host : "machine"));
    uint32_t s_node = str_id(x, "node", 4);
    uint32_t s_world = str_id(x, "world", 5);
    uint32_t s_marker = str_id(x, "marker", 6);
    uint32_t s_empty = str_id(x, "", 0);
    if (s_machine == UINT32_MAX || s_node == UINT32_MAX || s_world == UINT32_MAX ||
        s_marker == UINT32_MAX || s_empty == UINT32_MAX)
        return oom();
    uint32_t s_posix = 0, s_posix_name = 0;      /* the I/O paradigm's names, when used */
    if (x->nioh && ((s_posix = str_id(x, "POSIX", 5)) == UINT32_MAX ||
                    (s_posix_name = str_id(x, "POSIX I/O", 9)) == UINT32_MAX))
        return oom();
    uint32_t s_attr[A_COUNT];
    for (int i = 0; i < A_COUNT; i++)
        if (x->attrs_used &&
            (s_attr[i] = str_id(x, attr_names[i], strlen(attr_names[i]))) == UINT32_MAX)
            return oom();
    /* location and group names */
    uint32_t *gname = calloc(x->nlocs + 1, sizeof *gname), *lname = calloc(x->nlocs + 1,
                                                                             sizeof *lname);
    if (!gname || !lname) {
        free(gname);
        free(lname);
        return oom();
    }
    for (size_t i = 0; i < x->nlocs; i++) {
        const loc *l = &x->locs[i];
        if (l->process == UINT32_MAX)
            snprintf(buf, sizeof buf, "process -1");
        else
            snprintf(buf, sizeof buf, "rank %" PRIu32, l->process);
        gname[i] = str_id(x, buf, strlen(buf));
        if (gname[i] == UINT32_MAX) {
            free(gname);
            free(lname);
            return oom();
        }
        /* threads of a process often share a name (the program's): the
         * location's name says which one it is, and then that name */
        if (l->name != UINT32_MAX)
            snprintf(buf, sizeof buf, "%s thread %" PRIu32 " (%.60s)", x->str[gname[i]],
                     l->stream, x->str[l->name]);
        else
            snprintf(buf, sizeof buf, "%s thread %" PRIu32, x->str[gname[i]], l->stream);
        lname[i] = str_id(x, buf, strlen(buf));
        if (lname[i] == UINT32_MAX) {
            free(gname);
            free(lname);
            return oom();
        }
    }
    /* GPU streams: one ACCELERATOR location group per (process, device) and
     * one system tree node per device; their names before the strings are
     * written */
    accel_def ad;
    if (accel_prepare(x, gname, &ad) != 0) {
        free(gname);
        free(lname);
        return oom();
    }
    for (size_t i = 0; i < x->nstr; i++)
        if (x->str[i] == NULL) {
            accel_free(&ad);
            return oom();
        }
    OTF2_GlobalDefWriter *g = OTF2_Archive_GetGlobalDefWriter(x->ar);
    if (!g) {
        free(gname);
        free(lname);
        accel_free(&ad);
        fprintf(stderr, "pal-view: otf2: cannot get the global definition writer\n");
        return -1;
    }
    /* time 0 of the archive is the trace's first record, exported or not
     * (an ECL trace's clock records): times read back from the archive are
     * those pal-view shows for the trace, a run's length included */
    uint64_t offset = x->any_time ? x->tmin : 0;
    if (x->any_time && x->have_first && x->first_ns >= x->base &&
        (uint64_t)(x->first_ns - x->base) < offset)
        offset = (uint64_t)(x->first_ns - x->base);
    uint64_t length = x->any_time ? x->tmax - offset + 1 : 0;
    uint64_t realtime = info->realtime_offset_ns > 0
        ? (uint64_t)(info->realtime_offset_ns + x->base) + offset : OTF2_UNDEFINED_TIMESTAMP;
    CK(OTF2_GlobalDefWriter_WriteClockProperties(g, 1000000000, offset, length, realtime));
    for (size_t i = 0; i < x->nstr; i++)
        CK(OTF2_GlobalDefWriter_WriteString(g, (OTF2_StringRef)i, x->str[i]));
    CK(OTF2_GlobalDefWriter_WriteSystemTreeNode(g, 0, s_machine, s_node,
                                                OTF2_UNDEFINED_SYSTEM_TREE_NODE));
    /* each device a node of the machine (Score-P's "CUDA Device" nodes,
     * named by the device number, of domain ACCELERATOR_DEVICE) */
    for (size_t k = 0; k < ad.ndev; k++) {
        CK(OTF2_GlobalDefWriter_WriteSystemTreeNode(g, (OTF2_SystemTreeNodeRef)(k + 1),
                                                    ad.dev_name[k], ad.s_class, 0));
        CK(OTF2_GlobalDefWriter_WriteSystemTreeNodeDomain(
            g, (OTF2_SystemTreeNodeRef)(k + 1), OTF2_SYSTEM_TREE_DOMAIN_ACCELERATOR_DEVICE));
    }
    /* location groups: one per process, numbered in process order */
    uint32_t ngroups = 0;
    uint32_t *group_of = calloc(x->nlocs + 1, sizeof *group_of);
    uint64_t *world = calloc((size_t)x->max_rank + 2, sizeof *world);
    /* the CUDA window's hosts: the world's locations, by rank */
    uint64_t *cuda_host = calloc((size_t)x->max_rank + 2, sizeof *cuda_host);
    if (!group_of || !world || !cuda_host) {
        free(gname);
        free(lname);
        free(group_of);
        free(world);
        free(cuda_host);
        accel_free(&ad);
        return oom();
    }
    for (size_t i = 0; i < x->nlocs; i++) {
        const loc *l = &x->locs[i];
        if (i == 0 || x->locs[i - 1].process != l->process) {
            CK(OTF2_GlobalDefWriter_WriteLocationGroup(g, ngroups, gname[i],
                                                       OTF2_LOCATION_GROUP_TYPE_PROCESS, 0,
                                                       OTF2_UNDEFINED_LOCATION_GROUP));
            ngroups++;
        }
        group_of[i] = ngroups - 1;
        /* its first CPU thread stands for the rank */
        if (!l->gpu && x->any_rank && l->process <= x->max_rank && !world[l->process])
            world[l->process] = loc_ref(l) + 1;
    }
    for (uint32_t r = 0; x->any_rank && r <= x->max_rank; r++)
        world[r] = world[r] ? world[r] - 1 : (uint64_t)r << 32;
    memcpy(cuda_host, world, ((size_t)x->max_rank + 2) * sizeof *world);
    /* a process's GPU streams of one device: an ACCELERATOR group of their
     * own (OTF2 keeps them out of PROCESS groups), created by the process's,
     * in the device's system tree node; numbered after every process's
     * group, so that process groups keep their numbers */
    for (size_t k = 0; k < ad.ngroups; k++) {
        accel_group *a = &ad.groups[k];
        a->group = ngroups++;
        CK(OTF2_GlobalDefWriter_WriteLocationGroup(
            g, a->group, a->name, OTF2_LOCATION_GROUP_TYPE_ACCELERATOR,
            a->node, group_of[a->first]));
    }
    for (size_t i = 0; i < x->nlocs; i++)
        if (x->locs[i].gpu)
            group_of[i] = ad.groups[ad.group_of[i]].group;
    for (int i = 0; x->attrs_used && i < A_COUNT; i++)
        CK(OTF2_GlobalDefWriter_WriteAttribute(g, (OTF2_AttributeRef)i, s_attr[i], s_empty,
                                               OTF2_TYPE_UINT64));
    for (size_t i = 0; i < x->nlocs; i++) {
        loc *l = &x->locs[i];
        uint64_t nev = 0;
        if (l->w)
            OTF2_EvtWriter_GetNumberOfEvents(l->w, &nev);
        CK(OTF2_GlobalDefWriter_WriteLocation(g, loc_ref(l), lname[i],
                                              l->gpu ? OTF2_LOCATION_TYPE_ACCELERATOR_STREAM
                                                     : OTF2_LOCATION_TYPE_CPU_THREAD,
                                              nev, group_of[i]));
    }
    for (size_t i = 0; i < x->nregions; i++)
        CK(OTF2_GlobalDefWriter_WriteRegion(g, (OTF2_RegionRef)i, x->regions[i].name,
                                            x->regions[i].name,
                                            x->regions[i].desc == UINT32_MAX ? s_empty
                                                                             : x->regions[i].desc,
                                            x->regions[i].role,
                                            x->regions[i].paradigm, OTF2_REGION_FLAG_NONE,
                                            s_empty, 0, 0));
    /* groups: 0 the ranks' locations (world order), 1.. each communicator's
     * members; communicator 0 the world, then the trace's */
    uint32_t nworld = x->any_rank ? x->max_rank + 1 : 0;
    CK(OTF2_GlobalDefWriter_WriteGroup(g, 0, s_world, OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                       OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, nworld, world));
    for (uint32_t r = 0; r < nworld; r++)
        world[r] = r;
    CK(OTF2_GlobalDefWriter_WriteGroup(g, 1, s_world, OTF2_GROUP_TYPE_COMM_GROUP,
                                       OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, nworld, world));
    CK(OTF2_GlobalDefWriter_WriteComm(g, 0, s_world, 1, OTF2_UNDEFINED_COMM,
                                      OTF2_COMM_FLAG_NONE));
    for (size_t i = 1; i < x->ncomms; i++) {
        const comm *c = &x->comms[i];
        uint64_t *m = calloc(c->nmembers + 1, sizeof *m);
        if (!m)
            break;
        for (size_t k = 0; k < c->nmembers; k++)
            m[k] = c->members[k];
        CK(OTF2_GlobalDefWriter_WriteGroup(g, (OTF2_GroupRef)(i + 1), c->name,
                                           OTF2_GROUP_TYPE_COMM_GROUP, OTF2_PARADIGM_MPI,
                                           OTF2_GROUP_FLAG_NONE, (uint32_t)c->nmembers, m));
        CK(OTF2_GlobalDefWriter_WriteComm(g, (OTF2_CommRef)i, c->name, (OTF2_GroupRef)(i + 1),
                                          OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE));
        free(m);
    }
    for (size_t i = 0; i < x->nmetrics; i++) {
        OTF2_MetricMemberRef mm = (OTF2_MetricMemberRef)i;
        CK(OTF2_GlobalDefWriter_WriteMetricMember(
            g, mm, x->metrics[i].name, s_empty, OTF2_METRIC_TYPE_USER, OTF2_METRIC_ABSOLUTE_POINT,
            x->metrics[i].isfloat ? OTF2_TYPE_DOUBLE : OTF2_TYPE_INT64, OTF2_BASE_DECIMAL, 0,
            s_empty));
        CK(OTF2_GlobalDefWriter_WriteMetricClass(g, (OTF2_MetricRef)i, 1, &mm,
                                                 OTF2_METRIC_ASYNCHRONOUS,
                                                 OTF2_RECORDER_KIND_ABSTRACT));
    }
    /* the CUDA window's communicator (Score-P's): every rank's first CPU
     * thread, by rank, then the GPU streams with copies */
    if (x->cuda_win) {
        size_t n = 0;
        uint64_t *m = calloc(nworld + x->nlocs + 1, sizeof *m);
        if (m) {
            for (uint32_t r = 0; r < nworld; r++)
                m[n++] = cuda_host[r];
            for (size_t i = 0; i < x->nlocs; i++)
                if (x->locs[i].copies)
                    m[n++] = loc_ref(&x->locs[i]);
            OTF2_GroupRef gl = (OTF2_GroupRef)(x->ncomms + 1), gc = gl + 1;
            CK(OTF2_GlobalDefWriter_WriteGroup(g, gl, ad.s_cuda, OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                               OTF2_PARADIGM_CUDA, OTF2_GROUP_FLAG_NONE,
                                               (uint32_t)n, m));
            for (size_t k = 0; k < n; k++)
                m[k] = k;
            CK(OTF2_GlobalDefWriter_WriteGroup(g, gc, ad.s_cuda, OTF2_GROUP_TYPE_COMM_GROUP,
                                               OTF2_PARADIGM_CUDA, OTF2_GROUP_FLAG_NONE,
                                               (uint32_t)n, m));
            CK(OTF2_GlobalDefWriter_WriteComm(g, (OTF2_CommRef)x->ncomms, ad.s_cuda, gc,
                                              OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE));
            free(m);
        } else if (x->err == OTF2_SUCCESS) {
            x->err = OTF2_ERROR_MEM_ALLOC_FAILED;
        }
    }
    for (size_t i = 0; i < x->nwins; i++)
        CK(OTF2_GlobalDefWriter_WriteRmaWin(
            g, (OTF2_RmaWinRef)i, x->wins[i].name,
            x->wins[i].comm == CUDA_COMM ? (OTF2_CommRef)x->ncomms : (OTF2_CommRef)x->wins[i].comm,
            x->wins[i].comm == CUDA_COMM ? OTF2_RMA_WIN_FLAG_NONE
                                         : OTF2_RMA_WIN_FLAG_CREATE_DESTROY_EVENTS));
    CK(OTF2_GlobalDefWriter_WriteParameter(g, 0, s_marker, OTF2_PARAMETER_TYPE_STRING));
    /* POSIX I/O: the paradigm (as Score-P names it), files, handles */
    if (x->nioh)
        CK(OTF2_GlobalDefWriter_WriteIoParadigm(g, 0, s_posix, s_posix_name,
                                                OTF2_IO_PARADIGM_CLASS_SERIAL,
                                                OTF2_IO_PARADIGM_FLAG_OS, 0, NULL, NULL, NULL));
    for (size_t i = 0; i < x->niofiles; i++)
        CK(OTF2_GlobalDefWriter_WriteIoRegularFile(g, (OTF2_IoFileRef)i, x->iofiles[i], 0));
    for (size_t i = 0; i < x->nioh; i++) {
        const iohandle *h = &x->ioh[i];
        CK(OTF2_GlobalDefWriter_WriteIoHandle(g, (OTF2_IoHandleRef)i, h->name, h->file, 0,
                                              h->pre_created ? OTF2_IO_HANDLE_FLAG_PRE_CREATED
                                                             : OTF2_IO_HANDLE_FLAG_NONE,
                                              OTF2_UNDEFINED_COMM, OTF2_UNDEFINED_IO_HANDLE));
        if (h->pre_created)
            CK(OTF2_GlobalDefWriter_WriteIoPreCreatedHandleState(
                g, (OTF2_IoHandleRef)i, OTF2_IO_ACCESS_MODE_READ_WRITE, OTF2_IO_STATUS_FLAG_NONE));
    }
    free(gname);
    free(lname);
    free(group_of);
    free(world);
    free(cuda_host);
    accel_free(&ad);
    return 0;
}

static void xp_free(xp *x)
{
    for (size_t i = 0; i < x->nstr; i++)
        free(x->str[i]);
    free(x->str);
    free(x->strnext);
    free(x->strmap.s);
    for (size_t i = 0; i < x->nlocs; i++)
        free(x->locs[i].buf);
    free(x->locs);
    free(x->locmap.s);
    free(x->reqs);
    free(x->reqmap.s);
    free(x->regions);
    free(x->region_of_str);
    free(x->metrics);
    for (size_t i = 0; i < x->ncomms; i++)
        free(x->comms[i].members);
    free(x->comms);
    free(x->commmap.s);
    free(x->wins);
    free(x->winmap.s);
    free(x->ioh);
    free(x->iohmap.s);
    free(x->iofiles);
    free(x->iofmap.s);
    pal_names_destroy(x->names);
    pal_reader_close(x->r);
}

/* libotf2 reports some failures -- a write of buffered data that fails, on
 * a full disk -- only to its error callback, and the call that caused them
 * still succeeds: the export keeps the first such error and fails on it. */
typedef struct otf2_fault {
    OTF2_ErrorCode code;
    char msg[512];
} otf2_fault;

static OTF2_ErrorCode on_otf2_error(void *ud, const char *file, uint64_t line,
                                    const char *function, OTF2_ErrorCode code, const char *fmt,
                                    va_list va)
{
    (void)file;
    (void)line;
    (void)function;
    otf2_fault *f = ud;
    if (f->code == OTF2_SUCCESS && code != OTF2_SUCCESS) {
        f->code = code;
        if (fmt)
            vsnprintf(f->msg, sizeof f->msg, fmt, va);
    }
    return code;
}

/* libotf2 creates the archive's files itself, following links: the names
 * it will create get the check every other output gets (ecc_out_check),
 * and an archive, or part of one, already there is refused. 0, or 1 with a
 * message. */
static int archive_place(const char *dir, unsigned out_flags)
{
    static const char *const names[] = { "traces.otf2", "traces.def", "traces" };
    char err[4400], p[4200];
    int created;
    if (ecc_out_dir(dir, out_flags, &created, err, sizeof err) != 0) {
        fprintf(stderr, "pal-view: otf2: %s\n", err);
        return 1;
    }
    for (size_t i = 0; !created && i < sizeof names / sizeof *names; i++) {
        struct stat sb;
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        if (lstat(p, &sb) != 0)
            continue;
        if (S_ISREG(sb.st_mode) || S_ISDIR(sb.st_mode)) {
            fprintf(stderr, "pal-view: otf2: '%s' exists: an archive is already in '%s'; "
                    "remove it or choose another -o DIR\n", p, dir);
            return 1;
        }
        if (ecc_out_check(p, out_flags, err, sizeof err) != 0) {
            fprintf(stderr, "pal-view: otf2: %s\n", err);
            return 1;
        }
    }
    return 0;
}

int vw_otf2_export(const char *const *paths, size_t n, const char *dict_path, const char *dir,
                   unsigned out_flags, int verbose)
{
    xp x;
    memset(&x, 0, sizeof x);
    char anchor[4200];
    if (archive_place(dir, out_flags) != 0)
        return 1;
    snprintf(anchor, sizeof anchor, "%s/traces.otf2", dir);
    if (pal_reader_open_run(paths, n, dict_path, 0, &x.r) != PAL_OK) {
        fprintf(stderr, "pal-view: %s\n", pal_last_error());
        return 1;
    }
    if (pal_names_create(&x.names) != PAL_OK) {
        xp_free(&x);
        return oom(), 1;
    }
    for (int role = 1; role < PAL_FROLE_LIMIT; role++)
        if (pal_reader_role_handle(x.r, (pal_field_role)role, &x.h[role]) != PAL_OK)
            x.h[role] = NULL;
    /* communicator 0: the world */
    x.comms = calloc(1, sizeof *x.comms);
    if (!x.comms) {
        xp_free(&x);
        return oom(), 1;
    }
    x.ncomms = 1;
    otf2_fault fault = { OTF2_SUCCESS, "" };
    OTF2_ErrorCallback old_cb = OTF2_Error_RegisterCallback(on_otf2_error, &fault);
    x.ar = OTF2_Archive_Open(dir, "traces", OTF2_FILEMODE_WRITE, 1024 * 1024, 4 * 1024 * 1024,
                             OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!x.ar) {
        fprintf(stderr, "pal-view: otf2: cannot create the archive in '%s'%s%s\n", dir,
                fault.code != OTF2_SUCCESS ? ": " : "", fault.msg);
        OTF2_Error_RegisterCallback(old_cb, NULL);
        xp_free(&x);
        return 1;
    }
    static const OTF2_FlushCallbacks flush = { pre_flush, post_flush };
    OTF2_ErrorCode oc = OTF2_Archive_SetFlushCallbacks(x.ar, &flush, NULL);
    if (oc == OTF2_SUCCESS)
        oc = OTF2_Archive_SetSerialCollectiveCallbacks(x.ar);
    if (oc == OTF2_SUCCESS)
        oc = OTF2_Archive_OpenEvtFiles(x.ar);
    if (oc != OTF2_SUCCESS) {
        fprintf(stderr, "pal-view: otf2: cannot create the archive in '%s': %s\n", dir,
                OTF2_Error_GetDescription(oc));
        OTF2_Archive_Close(x.ar);
        OTF2_Error_RegisterCallback(old_cb, NULL);
        xp_free(&x);
        return 1;
    }
    const pal_record *rec;
    pal_status st;
    int rc = 0;
    while ((st = pal_reader_next(x.r, &rec)) == PAL_OK) {
        if (pal_names_add(x.names, rec) != PAL_OK || record(&x, rec) != 0) {
            rc = 1;
            break;
        }
    }
    if (rc == 0 && st != PAL_END) {
        fprintf(stderr, "pal-view: %s\n", pal_reader_error(x.r));
        rc = 1;
    }
    for (size_t i = 0; i < x.nlocs; i++)
        flush_loc(&x, &x.locs[i], x.locs[i].n);
    pal_trace_info info;
    memset(&info, 0, sizeof info);
    pal_reader_info(x.r, &info);
    if (rc == 0 && write_defs(&x, &info) != 0)
        rc = 1;
    for (size_t i = 0; i < x.nlocs; i++)
        if (x.locs[i].w) {
            OTF2_ErrorCode c = OTF2_Archive_CloseEvtWriter(x.ar, x.locs[i].w);
            if (c != OTF2_SUCCESS && x.err == OTF2_SUCCESS)
                x.err = c;
        }
    OTF2_ErrorCode c = OTF2_Archive_CloseEvtFiles(x.ar);
    if (c == OTF2_SUCCESS)
        c = OTF2_Archive_OpenDefFiles(x.ar);
    for (size_t i = 0; c == OTF2_SUCCESS && i < x.nlocs; i++) {
        OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(x.ar, loc_ref(&x.locs[i]));
        if (dw)
            c = OTF2_Archive_CloseDefWriter(x.ar, dw);
    }
    if (c == OTF2_SUCCESS)
        c = OTF2_Archive_CloseDefFiles(x.ar);
    if (c != OTF2_SUCCESS && x.err == OTF2_SUCCESS)
        x.err = c;
    c = OTF2_Archive_Close(x.ar);
    if (c != OTF2_SUCCESS && x.err == OTF2_SUCCESS)
        x.err = c;
    OTF2_Error_RegisterCallback(old_cb, NULL);
    if (x.err == OTF2_SUCCESS && fault.code != OTF2_SUCCESS)
        x.err = fault.code;
    if (x.err != OTF2_SUCCESS) {
        fprintf(stderr, "pal-view: otf2: writing the archive in '%s' failed: %s%s%s; what "
                "libotf2 wrote there is partial\n", dir, OTF2_Error_GetDescription(x.err),
                fault.code != OTF2_SUCCESS && fault.msg[0] ? ": " : "", fault.msg);
        rc = 1;
    }
    pal_reader_stats rs;
    pal_reader_get_stats(x.r, &rs);
    if (x.clamped)
        fprintf(stderr, "pal-view: otf2: %" PRIu64 " events moved to keep a location's times "
                "in order (a call began before events already written)\n", x.clamped);
    if (verbose || x.lost)
        fprintf(stderr,
                "pal-view: otf2: %s: %zu locations, %zu regions, enter %" PRIu64 ", leave %" PRIu64
                ", send %" PRIu64 ", receive %" PRIu64 ", collective %" PRIu64 "/%" PRIu64
                ", metric %" PRIu64 ", marker %" PRIu64 ", one-sided %" PRIu64
                ", I/O %" PRIu64 "; %" PRIu64 " records lost in the trace\n",
                anchor, x.nlocs, x.nregions, x.count[E_ENTER], x.count[E_LEAVE],
                x.count[E_SEND] + x.count[E_ISEND], x.count[E_RECV] + x.count[E_IRECV],
                x.count[E_CBEGIN], x.count[E_CEND], x.count[E_METRIC], x.count[E_PARAM],
                x.count[E_RMA_PUT] + x.count[E_RMA_GET] + x.count[E_RMA_ATOMIC],
                x.count[E_IO_BEGIN], x.lost);
    int partial = pal_stats_partial(&rs) || x.lost;
    xp_free(&x);
    return rc ? 1 : partial ? 2 : 0;
}
