/* mpi-internal.h -- ECL MPI profiling layer: what the generated wrappers
 * (gen-wrappers.c, gen-fortran.c) and the hand-written parts (mpi.c:
 * start, end, communicators, clocks; requests.c: request completion;
 * fortran.c) share. Sits on the basic layer (ecl/core) and the API (ecl.h).
 *
 * A wrapper's hot path: ECL_MPI_PASS() (recursion guard + enabled check),
 * the clock, the PMPI call, table lookups without locks, one record written
 * into the thread's buffer. Only creating a communicator, window or file and
 * the first sight of an unknown one take a lock or allocate. */
#ifndef ECL_MPI_INTERNAL_H
#define ECL_MPI_INTERNAL_H

#include <mpi.h>
#include <stdint.h>
#include <string.h>

#include "ecl/api/config.h"
#include "ecl/core/core.h"
#include "ecl/mpi/gen-records.h"

#define ECL_MPI_API __attribute__((visibility("default")))

/* Event groups (mpi.spec's %group; ECL_MPI_GROUPS, doc/configuration.md,
 * parsed by ecl/api/config.c): bits of ecl_mpi_groups, set at MPI_Init. ENV
 * (MPI_Init, MPI_Finalize, MPI_Abort) is always on. */
enum { ECL_MPI_G_ENV = 1, ECL_MPI_G_P2P = ECL_API_MPI_G_P2P, ECL_MPI_G_COLL = ECL_API_MPI_G_COLL,
       ECL_MPI_G_RMA = ECL_API_MPI_G_RMA, ECL_MPI_G_IO = ECL_API_MPI_G_IO,
       ECL_MPI_G_COMM = ECL_API_MPI_G_COMM };
extern unsigned ecl_mpi_groups;

static inline int ecl_mpi_on(unsigned group)
{
    return (ecl_mpi_groups & group) != 0;
}

/* The wrapper passes the call straight through: ECL itself is calling (the
 * thread is inside the tool or inside a traced MPI call), not recording, or
 * the call's event group is switched off. */
#define ECL_MPI_PASS(group) \
    ECL_UNLIKELY(ecl_buf_in_tool || !ecl_buf_is_active() || !(ecl_mpi_groups & (group)))

/* Around the PMPI call: MPI calls made from inside it (an MPI library calling
 * itself, user callbacks) pass through untraced. */
static inline uint64_t ecl_mpi_begin(void)
{
    ecl_buf_in_tool = 1;
    return ecl_sys_clock_now();
}

static inline void ecl_mpi_end(void)
{
    ecl_buf_in_tool = 0;
}

/* ---------------- record types ---------------- */
typedef struct ecl_mpi_rectype {
    uint32_t id;
    const char *name;            /* "mpi_send" */
    const char *description;     /* "MPI_Send" */
    const ecl_trace_field *fields;
    size_t nfields;
    const edl_meaning *meaning;  /* its roles (from mpi.spec's) */
} ecl_mpi_rectype;

/* Every record type of the layer (the gated families' only when configure
 * found them). */
extern const ecl_mpi_rectype ecl_mpi_rectypes[];
extern const size_t ecl_mpi_nrectypes;

/* ---------------- communicators ---------------- */
/* Immutable once published; never freed while tracing (a request or window
 * may still point at it after MPI_Comm_free). */
typedef struct ecl_mpi_comm {
    uint32_t id;                 /* 0 world, 1 self, agreed ids (doc/mpi.md) */
    int32_t size;                /* local group */
    int32_t rank;                /* the caller's rank in it */
    int32_t rsize;               /* remote group (intercommunicator), else 0 */
    const int32_t *world;        /* local rank -> world rank; NULL: identity */
    const int32_t *rworld;       /* remote rank -> world rank */
    uint32_t nderived;           /* MPI_Comm_idup calls on it so far (atomic) */
} ecl_mpi_comm;

extern ecl_mpi_comm ecl_mpi_world;
extern int32_t ecl_mpi_world_rank;

/* Peer codes recorded for the special ranks (doc/mpi.md). */
enum { ECL_MPI_PEER_NULL = -1, ECL_MPI_PEER_ANY = -2, ECL_MPI_PEER_UNKNOWN = -3,
       ECL_MPI_PEER_ROOT = -4 };

const ecl_mpi_comm *ecl_mpi_comm_lookup(MPI_Comm c);   /* slow path, never NULL */

static inline const ecl_mpi_comm *ecl_mpi_comm_of(MPI_Comm c)
{
    if (ECL_LIKELY(c == MPI_COMM_WORLD))
        return &ecl_mpi_world;
    return ecl_mpi_comm_lookup(c);
}

/* World rank of rank r of ci (negative codes for the special ranks). */
static inline int64_t ecl_mpi_peer(const ecl_mpi_comm *ci, int r)
{
    if (ECL_UNLIKELY(r < 0)) {
        if (r == MPI_PROC_NULL)
            return ECL_MPI_PEER_NULL;
        if (r == MPI_ANY_SOURCE)
            return ECL_MPI_PEER_ANY;
        return r == MPI_ROOT ? ECL_MPI_PEER_ROOT : ECL_MPI_PEER_UNKNOWN;
    }
    if (ci->rsize > 0)
        return r < ci->rsize ? ci->rworld[r] : ECL_MPI_PEER_UNKNOWN;
    if (r >= ci->size)
        return ECL_MPI_PEER_UNKNOWN;
    return ci->world != NULL ? ci->world[r] : r;
}

static inline int64_t ecl_mpi_tag(int tag)
{
    return tag == MPI_ANY_TAG ? -1 : tag;
}

/* Root of a rooted collective as a world rank; on an intercommunicator
 * MPI_ROOT is the caller and MPI_PROC_NULL is -1. */
static inline int64_t ecl_mpi_root(const ecl_mpi_comm *ci, int root)
{
    if (ci->rsize > 0 && root == MPI_ROOT)
        return ecl_mpi_world_rank;
    return ecl_mpi_peer(ci, root);
}

static inline int ecl_mpi_at_root(const ecl_mpi_comm *ci, int root)
{
    return ci->rsize > 0 ? root == MPI_ROOT : root == ci->rank;
}

static inline int ecl_mpi_from_root(const ecl_mpi_comm *ci, int root)
{
    return ci->rsize > 0 ? root >= 0 : root != ci->rank;
}

static inline uint64_t ecl_mpi_nsize(const ecl_mpi_comm *ci)
{
    return (uint64_t)(ci->rsize > 0 ? ci->rsize : ci->size);
}

/* Registers a communicator a call created (collective over it: members agree
 * on its id; an intercommunicator is recognised by MPI_Comm_test_inter) and
 * writes its mpi_comm definition. Returns the id, 0 for MPI_COMM_NULL. */
uint64_t ecl_mpi_comm_created(const ecl_mpi_comm *parent, MPI_Comm c);
void ecl_mpi_comm_forget(MPI_Comm c);
/* The id of the next communicator MPI_Comm_idup makes from parent: derived
 * from the parent's id and how many it made before, so every member computes
 * the same one without communicating (doc/mpi.md, "Communicator ids"). */
uint32_t ecl_mpi_comm_derived_id(const ecl_mpi_comm *parent);
/* Registers c, a duplicate of parent made by MPI_Comm_idup, under id. */
void ecl_mpi_comm_dup_done(const ecl_mpi_comm *parent, MPI_Comm c, uint32_t id);

/* ---------------- groups ---------------- */
/* Per-process id of a group (1, 2, ...; 0 MPI_GROUP_NULL); a group seen for
 * the first time gets the next id and an mpi_group definition. */
uint64_t ecl_mpi_group_id(MPI_Group g);
void ecl_mpi_group_forget(MPI_Group g);

/* ---------------- neighbourhood collectives ---------------- */
/* In-degree (out = 0) or out-degree (out = 1) of a topology communicator:
 * the number of blocks a neighbourhood collective receives or sends (a
 * Cartesian communicator has 2 per dimension, MPI_PROC_NULL included). */
uint64_t ecl_mpi_degree(MPI_Comm c, int out);

/* ---------------- windows and files ---------------- */
typedef struct ecl_mpi_win {
    uint32_t id;
    const ecl_mpi_comm *ci;      /* the window's group */
} ecl_mpi_win;

const ecl_mpi_win *ecl_mpi_win_of(MPI_Win w);            /* never NULL */
uint64_t ecl_mpi_win_created(MPI_Win w, MPI_Comm c, const ecl_mpi_comm *ci);
void ecl_mpi_win_forget(MPI_Win w);
uint64_t ecl_mpi_file_id(MPI_File f);
uint64_t ecl_mpi_file_opened(MPI_File f, MPI_Comm c, const ecl_mpi_comm *ci);
void ecl_mpi_file_forget(MPI_File f);

/* ---------------- sizes ---------------- */
static inline uint64_t ecl_mpi_tbytes(int64_t count, MPI_Datatype t)
{
    int sz = 0;
    if (count <= 0 || t == MPI_DATATYPE_NULL || PMPI_Type_size(t, &sz) != MPI_SUCCESS || sz < 0)
        return 0;
    return (uint64_t)count * (uint64_t)sz;
}

/* Sums over n counts (int or, for the large-count functions, MPI_Count). */
uint64_t ecl_mpi_sumbytes(const int *counts, uint64_t n, MPI_Datatype t);
uint64_t ecl_mpi_sumbytes_c(const MPI_Count *counts, uint64_t n, MPI_Datatype t);
uint64_t ecl_mpi_sumw(const int *counts, uint64_t n, const MPI_Datatype *types);
uint64_t ecl_mpi_sumw_c(const MPI_Count *counts, uint64_t n, const MPI_Datatype *types);
#define ECL_MPI_SUMB(cs, n, t)                                                        \
    _Generic((cs), const int *: ecl_mpi_sumbytes, int *: ecl_mpi_sumbytes,             \
             const MPI_Count *: ecl_mpi_sumbytes_c, MPI_Count *: ecl_mpi_sumbytes_c)(  \
        (cs), (n), (t))
#define ECL_MPI_SUMW(cs, n, ts)                                                       \
    _Generic((cs), const int *: ecl_mpi_sumw, int *: ecl_mpi_sumw,                     \
             const MPI_Count *: ecl_mpi_sumw_c, MPI_Count *: ecl_mpi_sumw_c)((cs), (n), (ts))
/* Bytes a status says were received, read or written. */
uint64_t ecl_mpi_status_bytes(const MPI_Status *st);

static inline size_t ecl_mpi_strlen(const char *s)
{
    return strnlen(s, 1024);     /* names longer than this are cut */
}

/* ---------------- requests ---------------- */
enum { ECL_MPI_KIND_SEND = 0, ECL_MPI_KIND_RECV = 1, ECL_MPI_KIND_COLL = 2,
       ECL_MPI_KIND_IO = 3, ECL_MPI_KIND_UNKNOWN = 4, ECL_MPI_KIND_RMA = 5,
       ECL_MPI_KIND_COMM = 6, ECL_MPI_KIND_GREQ = 7,
       ECL_MPI_KIND_MESSAGE = 255 /* a matched message (MPI_Message), never recorded */ };
/* mpi_complete flags */
enum { ECL_MPI_DONE_CANCELLED = 1, ECL_MPI_DONE_PERSISTENT = 2, ECL_MPI_DONE_ERROR = 4,
       ECL_MPI_DONE_IMMEDIATE = 8, ECL_MPI_DONE_UNKNOWN = 16 };

/* Remembers a request a call created; returns its id (0 for
 * MPI_REQUEST_NULL). *immediate is set when the handle is one the MPI library
 * shares among operations that completed within the call (Open MPI's
 * ompi_request_empty): the caller then writes ecl_mpi_req_immediate() after
 * its call record, and the Wait that frees it records no completion. */
uint64_t ecl_mpi_req_new(MPI_Request r, int kind, int persistent, const ecl_mpi_comm *ci,
                         int64_t peer, int64_t tag, uint64_t bytes, int *immediate);
void ecl_mpi_req_immediate(uint64_t id, int kind, const ecl_mpi_comm *ci, int64_t peer,
                           int64_t tag, uint64_t bytes);
/* Before MPI_Request_free / MPI_Cancel: the id (0 if unknown). A request
 * freed while active (not persistent, or persistent and started) gets its
 * mpi_complete with ECL_MPI_DONE_UNKNOWN: it completes later, unseen. */
uint64_t ecl_mpi_req_freed(MPI_Request r);
uint64_t ecl_mpi_req_cancelled(MPI_Request r);
/* The id of a request (0 if unknown), nothing else changes. */
uint64_t ecl_mpi_req_id(MPI_Request r);
/* MPI_Comm_idup: remembers the new communicator (the handle the call
 * returned: MPI libraries set it at once, it is only not usable before the
 * request completes) and its id, to register it when the request
 * completes. */
uint64_t ecl_mpi_req_idup(MPI_Request r, const ecl_mpi_comm *parent, MPI_Comm newcomm,
                          uint32_t newid);

/* ---------------- matched messages (MPI_Mprobe, MPI_Mrecv) ---------------- */
typedef struct ecl_mpi_msg {
    uint64_t id;                 /* 0: not known (taken through no wrapper) */
    const ecl_mpi_comm *ci;      /* its communicator (never NULL) */
    int64_t peer, tag;           /* sender as a world rank, tag */
    uint64_t bytes;
} ecl_mpi_msg;
/* A message a probe matched: remembered until a receive takes it. Returns its
 * id (0 for MPI_MESSAGE_NULL and MPI_MESSAGE_NO_PROC). */
uint64_t ecl_mpi_msg_new(MPI_Message m, const ecl_mpi_comm *ci, int64_t peer, int64_t tag,
                         uint64_t bytes);
/* Before MPI_Mrecv / MPI_Imrecv: what the probe saw (forgotten now). */
void ecl_mpi_msg_take(MPI_Message m, ecl_mpi_msg *out);

/* ---------------- Fortran ---------------- */
void *ecl_mpi_f_buf(void *p);                  /* MPI_BOTTOM, MPI_IN_PLACE */
int ecl_mpi_f_status_ignore(const MPI_Fint *s);
int ecl_mpi_f_statuses_ignore(const MPI_Fint *s);

/* Every Fortran name of one wrapper f_NAME: mpi_NAME, mpi_NAME_,
 * mpi_NAME__, MPI_UPPER, and Open MPI's ompi_NAME_f, which its mpi_f08
 * module calls. */
#define ECL_MPI_F_ALIAS(sym, lo, params) \
    ECL_MPI_API void sym params __attribute__((alias("f_" #lo)));
#define ECL_MPI_F_ALIASES(lo, UP, params)          \
    ECL_MPI_F_ALIAS(mpi_##lo, lo, params)          \
    ECL_MPI_F_ALIAS(mpi_##lo##_, lo, params)       \
    ECL_MPI_F_ALIAS(mpi_##lo##__, lo, params)      \
    ECL_MPI_F_ALIAS(MPI_##UP, lo, params)          \
    ECL_MPI_F_ALIAS(ompi_##lo##_f, lo, params)

/* ---------------- start and end (mpi.c) ---------------- */
/* After PMPI_Init(_thread): starts tracing, sets the rank, registers the
 * predefined communicators and measures the clock offset to rank 0. */
void ecl_mpi_started(void);
/* Records a clock-offset measurement to rank 0 (collective over world). */
void ecl_mpi_clock_sync(int phase);

#endif /* ECL_MPI_INTERNAL_H */
