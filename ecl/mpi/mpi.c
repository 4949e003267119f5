/* mpi.c -- ECL MPI profiling layer: start and end of tracing (MPI_Init,
 * MPI_Init_thread, MPI_Finalize, MPI_Abort), clock offsets to rank 0, the
 * automatic merge, and the tables that turn communicators, windows and files
 * into ids and ranks into world ranks. The generated wrappers
 * (gen-wrappers.c) and requests.c use them on their hot paths: lookups are
 * lock-free; registering takes a lock and allocates.
 *
 * Memory of communicator, window and file entries is never freed while
 * tracing: a request, a window or a concurrent reader may still use it, and
 * programs create few of them. */
#include <config.h>

#include "ecl/mpi/mpi-internal.h"
#include "ecl/api/config.h"
#include "pal/pal.h"
#include "ecl/ecl.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <unistd.h>

ecl_mpi_comm ecl_mpi_world = { .id = 0, .size = INT32_MAX, .rank = 0 };
int32_t ecl_mpi_world_rank;
static int32_t self_world[1];
static ecl_mpi_comm self_info = { .id = 1, .size = 1, .rank = 0, .world = self_world };
/* For MPI_COMM_NULL and handles that cannot be looked at: every peer unknown. */
static const ecl_mpi_comm unknown_comm = { .id = UINT32_MAX, .size = 0 };
static int32_t world_size = 1;
static MPI_Group world_group = MPI_GROUP_NULL;
/* The tool's own communicator (a duplicate of world) for clock
 * measurements and the end barrier: user receives with MPI_ANY_SOURCE and
 * MPI_ANY_TAG on world can never take the tool's messages. */
static MPI_Comm tool_comm = MPI_COMM_NULL;
static int mpi_ready;            /* MPI_Init(_thread) went through the wrapper */
unsigned ecl_mpi_groups = ECL_API_MPI_GROUPS_ALL;
static double ref_tps;           /* rank 0's clock rate */

/* ---------------- record types ---------------- */

/* The types are defined when the library is loaded, before any trace is
 * open, so they are part of the dictionary in the file header (one
 * definition chunk per type otherwise). Fixed ids from ecl/mpi/mpi.ids, in
 * the range the format reserves for ECL. */
__attribute__((constructor)) static void define_types(void)
{
    for (size_t i = 0; i < ecl_mpi_nrectypes; i++) {
        const ecl_mpi_rectype *rt = &ecl_mpi_rectypes[i];
        uint32_t id;
        ecl_core_status st = ecl_trace_type_define_meaning(rt->id, rt->name, rt->description,
                                                           rt->fields, rt->nfields, rt->meaning,
                                                           &id);
        if (st != ECL_CORE_OK)
            fprintf(stderr, "ecl: cannot define the MPI record type %s (id %u)\n", rt->name,
                    (unsigned)rt->id);
    }
}

/* ---------------- handle tables ---------------- */

/* Open addressing keyed by the handle's bits. Readers load the table pointer
 * and probe without a lock; writers hold the lock, and a full table is
 * replaced by a bigger copy (old tables stay allocated: a reader may still be
 * in one; it then misses a brand-new entry and takes the locked path). An
 * entry whose handle was freed keeps its key with a NULL value. */
typedef struct hent {
    uintptr_t key;
    void *val;
} hent;

typedef struct htab {
    size_t mask, used;
    struct htab *older;
    hent e[];
} htab;

typedef struct handles {
    htab *cur;
    pthread_mutex_t lock;
} handles;

static handles comms = { NULL, PTHREAD_MUTEX_INITIALIZER };
static handles wins = { NULL, PTHREAD_MUTEX_INITIALIZER };
static handles files = { NULL, PTHREAD_MUTEX_INITIALIZER };

static size_t hash_key(uintptr_t k)
{
    return (size_t)(((uint64_t)k >> 3) * 0x9E3779B97F4A7C15ull >> 32);
}

static void *ht_get(handles *h, uintptr_t key)
{
    htab *t = __atomic_load_n(&h->cur, __ATOMIC_ACQUIRE);
    if (t == NULL)
        return NULL;
    for (size_t i = hash_key(key) & t->mask;; i = (i + 1) & t->mask) {
        uintptr_t k = __atomic_load_n(&t->e[i].key, __ATOMIC_ACQUIRE);
        if (k == key)
            return __atomic_load_n(&t->e[i].val, __ATOMIC_ACQUIRE);
        if (k == 0)
            return NULL;
    }
}

static void ht_store(htab *t, uintptr_t key, void *val)
{
    size_t i = hash_key(key) & t->mask;
    while (t->e[i].key != 0 && t->e[i].key != key)
        i = (i + 1) & t->mask;
    __atomic_store_n(&t->e[i].val, val, __ATOMIC_RELEASE);
    if (t->e[i].key == 0) {
        t->used++;
        __atomic_store_n(&t->e[i].key, key, __ATOMIC_RELEASE);
    }
}

/* Caller holds h->lock. Returns 0, or -1 when out of memory. */
static int ht_put(handles *h, uintptr_t key, void *val)
{
    htab *t = h->cur;
    if (t == NULL || 2 * (t->used + 1) > t->mask + 1) {
        size_t cap = t == NULL ? 64 : 2 * (t->mask + 1);
        htab *n = calloc(1, sizeof *n + cap * sizeof n->e[0]);
        if (n == NULL)
            return -1;
        n->mask = cap - 1;
        n->older = t;
        for (size_t i = 0; t != NULL && i <= t->mask; i++)
            if (t->e[i].key != 0 && t->e[i].val != NULL)
                ht_store(n, t->e[i].key, t->e[i].val);
        __atomic_store_n(&h->cur, n, __ATOMIC_RELEASE);
        t = n;
    }
    ht_store(t, key, val);
    return 0;
}

/* ---------------- communicators ---------------- */

static uint32_t agreed_count;    /* ids this process handed out as a leader */
static uint32_t local_count;     /* ids of communicators seen without creation */

/* An id unique in the job: the leader's world rank plus a multiple of the
 * world size; ids of 2^31 and more are local ones (local_id). */
static uint32_t new_agreed_id(void)
{
    uint64_t k = __atomic_fetch_add(&agreed_count, 1, __ATOMIC_RELAXED);
    uint64_t id = 2 + k * (uint64_t)world_size + (uint64_t)ecl_mpi_world_rank;
    return id < 0x80000000u ? (uint32_t)id : 0;
}

static uint32_t local_id(void)
{
    return 0x80000000u | (__atomic_fetch_add(&local_count, 1, __ATOMIC_RELAXED) & 0x7fffffffu);
}

/* Collective over c: its members agree on a new id. On an intercommunicator
 * two reductions (each group receives the other's) make both groups see both
 * leaders' candidates. */
static uint32_t agree_id(MPI_Comm c, int inter)
{
    int rank = 0;
    PMPI_Comm_rank(c, &rank);
    uint32_t cand = rank == 0 ? new_agreed_id() : 0;
    if (!inter) {
        PMPI_Bcast(&cand, 1, MPI_UINT32_T, 0, c);
        return cand != 0 ? cand : local_id();
    }
    uint32_t theirs = 0, ours = 0;
    PMPI_Allreduce(&cand, &theirs, 1, MPI_UINT32_T, MPI_MAX, c);
    PMPI_Allreduce(&theirs, &ours, 1, MPI_UINT32_T, MPI_MAX, c);
    uint32_t id = theirs > ours ? theirs : ours;
    return id != 0 ? id : local_id();
}

/* World ranks of the members of g (-3 for a process outside world). */
static int32_t *group_to_world(MPI_Group g, int n)
{
    int32_t *w = malloc((size_t)(n > 0 ? n : 1) * sizeof *w);
    int *in = malloc((size_t)(n > 0 ? n : 1) * sizeof *in);
    int *out = malloc((size_t)(n > 0 ? n : 1) * sizeof *out);
    if (w == NULL || in == NULL || out == NULL) {
        free(w);
        w = NULL;
        goto out;
    }
    for (int i = 0; i < n; i++)
        in[i] = i;
    if (n > 0 && PMPI_Group_translate_ranks(g, n, in, world_group, out) != MPI_SUCCESS)
        for (int i = 0; i < n; i++)
            out[i] = MPI_UNDEFINED;
    for (int i = 0; i < n; i++)
        w[i] = out[i] == MPI_UNDEFINED ? ECL_MPI_PEER_UNKNOWN : out[i];
out:
    free(in);
    free(out);
    return w;
}

static ecl_mpi_comm *info_from_group(MPI_Group local, MPI_Group remote, uint32_t id)
{
    ecl_mpi_comm *ci = calloc(1, sizeof *ci);
    if (ci == NULL)
        return NULL;
    ci->id = id;
    PMPI_Group_size(local, &ci->size);
    PMPI_Group_rank(local, &ci->rank);
    if (ci->rank == MPI_UNDEFINED)
        ci->rank = -1;
    int32_t *w = group_to_world(local, ci->size);
    if (w == NULL) {
        free(ci);
        return NULL;
    }
    int identity = ci->size == world_size;
    for (int i = 0; identity && i < ci->size; i++)
        identity = w[i] == i;
    if (identity)
        free(w);
    else
        ci->world = w;
    if (remote != MPI_GROUP_NULL) {
        PMPI_Group_size(remote, &ci->rsize);
        ci->rworld = group_to_world(remote, ci->rsize);
        if (ci->rworld == NULL)
            ci->rsize = 0;
    }
    return ci;
}

static ecl_mpi_comm *info_of(MPI_Comm c, uint32_t id)
{
    MPI_Group g = MPI_GROUP_NULL, rg = MPI_GROUP_NULL;
    int inter = 0;
    PMPI_Comm_test_inter(c, &inter);
    PMPI_Comm_group(c, &g);
    if (inter)
        PMPI_Comm_remote_group(c, &rg);
    ecl_mpi_comm *ci = info_from_group(g, rg, id);
    PMPI_Group_free(&g);
    if (rg != MPI_GROUP_NULL)
        PMPI_Group_free(&rg);
    return ci;
}

/* "0-3 8 10-11": world ranks, runs of consecutive ranks as ranges. */
static char *rank_list(const int32_t *w, int n)
{
    size_t cap = 64, len = 0;
    char *s = malloc(cap);
    if (s == NULL)
        return NULL;
    s[0] = '\0';
    for (int i = 0; i < n;) {
        int32_t a = w != NULL ? w[i] : i;
        int j = i + 1;
        while (j < n && (w != NULL ? w[j] : j) == a + (j - i))
            j++;
        if (cap - len < 32) {
            char *ns = realloc(s, cap *= 2);
            if (ns == NULL) {
                free(s);
                return NULL;
            }
            s = ns;
        }
        if (j - i > 1)
            len += (size_t)snprintf(s + len, cap - len, "%s%d-%d", len ? " " : "", (int)a,
                                    (int)(a + (j - i - 1)));
        else
            len += (size_t)snprintf(s + len, cap - len, "%s%d", len ? " " : "", (int)a);
        i = j;
    }
    return s;
}

/* The mpi_comm definition: comm parent size inter ranks remote. */
static void write_comm_def(const ecl_mpi_comm *ci, uint32_t parent)
{
    char *ranks = rank_list(ci->world, ci->size);
    char *remote = ci->rsize > 0 ? rank_list(ci->rworld, ci->rsize) : NULL;
    size_t nl = ranks != NULL ? strlen(ranks) : 0, nr = remote != NULL ? strlen(remote) : 0;
    uint8_t *buf = malloc(60 + nl + nr), *p = buf;
    if (buf != NULL) {
        p = ecl_buf_put_uleb(p, ci->id);
        p = ecl_buf_put_uleb(p, parent);
        p = ecl_buf_put_uleb(p, (uint64_t)ci->size);
        p = ecl_buf_put_uleb(p, ci->rsize > 0);
        p = ecl_buf_put_str(p, ranks != NULL ? ranks : "", nl);
        p = ecl_buf_put_str(p, remote != NULL ? remote : "", nr);
        ecl_trace_write_definition(ECL_MPI_REC_COMM, buf, (size_t)(p - buf));
    }
    free(buf);
    free(ranks);
    free(remote);
}

const ecl_mpi_comm *ecl_mpi_comm_lookup(MPI_Comm c)
{
    if (c == MPI_COMM_SELF)
        return &self_info;
    const ecl_mpi_comm *ci = ht_get(&comms, (uintptr_t)c);
    if (ECL_LIKELY(ci != NULL))
        return ci;
    if (c == MPI_COMM_NULL || !mpi_ready)
        return &unknown_comm;
    /* Not created through a wrapper (MPI_Comm_idup, MPI_Comm_spawn, a
     * communicator from before tracing started): a local id. */
    pthread_mutex_lock(&comms.lock);
    ci = ht_get(&comms, (uintptr_t)c);
    if (ci == NULL) {
        ecl_mpi_comm *n = info_of(c, local_id());
        if (n != NULL && ht_put(&comms, (uintptr_t)c, n) == 0) {
            write_comm_def(n, UINT32_MAX);
            ci = n;
        } else {
            free(n);
        }
    }
    pthread_mutex_unlock(&comms.lock);
    return ci != NULL ? ci : &unknown_comm;
}

/* Publishes ci as c's entry and writes its definition. */
static void comm_register(MPI_Comm c, ecl_mpi_comm *ci, const ecl_mpi_comm *parent)
{
    pthread_mutex_lock(&comms.lock);
    int ok = ht_put(&comms, (uintptr_t)c, ci) == 0;
    pthread_mutex_unlock(&comms.lock);
    write_comm_def(ci, parent != NULL ? parent->id : UINT32_MAX);
    if (!ok)
        free(ci);
}

uint64_t ecl_mpi_comm_created(const ecl_mpi_comm *parent, MPI_Comm c)
{
    if (c == MPI_COMM_NULL)
        return 0;
    /* MPI_Comm_dup, _split and _create of an intercommunicator make
     * intercommunicators: the agreement must take both groups. */
    int inter = 0;
    PMPI_Comm_test_inter(c, &inter);
    uint32_t id = agree_id(c, inter);
    ecl_mpi_comm *ci = info_of(c, id);
    if (ci != NULL)
        comm_register(c, ci, parent);
    return id;
}

/* Derived ids live in [2^30, 2^31): agreed ids stay far below (they grow by
 * the world size per communicator a leader creates), local ones above. */
uint32_t ecl_mpi_comm_derived_id(const ecl_mpi_comm *parent)
{
    if (parent == &unknown_comm)
        return local_id();
    uint32_t k = __atomic_fetch_add((uint32_t *)&parent->nderived, 1, __ATOMIC_RELAXED);
    uint64_t h = ((uint64_t)parent->id << 32 | k) * 0x9E3779B97F4A7C15ull;
    return 0x40000000u | (uint32_t)(h >> 34);
}

void ecl_mpi_comm_dup_done(const ecl_mpi_comm *parent, MPI_Comm c, uint32_t id)
{
    if (c == MPI_COMM_NULL)
        return;
    ecl_mpi_comm *ci = info_of(c, id);
    if (ci != NULL)
        comm_register(c, ci, parent);
}

void ecl_mpi_comm_forget(MPI_Comm c)
{
    pthread_mutex_lock(&comms.lock);
    if (comms.cur != NULL && ht_get(&comms, (uintptr_t)c) != NULL)
        ht_put(&comms, (uintptr_t)c, NULL);
    pthread_mutex_unlock(&comms.lock);
}

/* ---------------- windows and files ---------------- */

static const ecl_mpi_win unknown_win = { UINT32_MAX, &unknown_comm };

const ecl_mpi_win *ecl_mpi_win_of(MPI_Win w)
{
    const ecl_mpi_win *wi = ht_get(&wins, (uintptr_t)w);
    if (ECL_LIKELY(wi != NULL))
        return wi;
    if (w == MPI_WIN_NULL || !mpi_ready)
        return &unknown_win;
    pthread_mutex_lock(&wins.lock);
    wi = ht_get(&wins, (uintptr_t)w);
    if (wi == NULL) {
        ecl_mpi_win *n = calloc(1, sizeof *n);
        MPI_Group g = MPI_GROUP_NULL;
        if (n != NULL && PMPI_Win_get_group(w, &g) == MPI_SUCCESS) {
            n->id = local_id();
            n->ci = info_from_group(g, MPI_GROUP_NULL, n->id);
            PMPI_Group_free(&g);
        }
        if (n != NULL && n->ci != NULL && ht_put(&wins, (uintptr_t)w, n) == 0) {
            wi = n;
        } else {
            free(n);
        }
    }
    pthread_mutex_unlock(&wins.lock);
    return wi != NULL ? wi : &unknown_win;
}

uint64_t ecl_mpi_win_created(MPI_Win w, MPI_Comm c, const ecl_mpi_comm *ci)
{
    if (w == MPI_WIN_NULL)
        return 0;
    ecl_mpi_win *wi = calloc(1, sizeof *wi);
    uint32_t id = agree_id(c, ci->rsize > 0);
    if (wi == NULL)
        return id;
    wi->id = id;
    wi->ci = ci;
    pthread_mutex_lock(&wins.lock);
    if (ht_put(&wins, (uintptr_t)w, wi) != 0)
        free(wi);
    pthread_mutex_unlock(&wins.lock);
    return id;
}

void ecl_mpi_win_forget(MPI_Win w)
{
    pthread_mutex_lock(&wins.lock);
    if (ht_get(&wins, (uintptr_t)w) != NULL)
        ht_put(&wins, (uintptr_t)w, NULL);
    pthread_mutex_unlock(&wins.lock);
}

/* File ids are stored in the table's value (as id + 1: NULL means freed). */
uint64_t ecl_mpi_file_id(MPI_File f)
{
    uintptr_t v = (uintptr_t)ht_get(&files, (uintptr_t)f);
    if (ECL_LIKELY(v != 0))
        return v - 1;
    if (f == MPI_FILE_NULL || !mpi_ready)
        return UINT32_MAX;
    pthread_mutex_lock(&files.lock);
    v = (uintptr_t)ht_get(&files, (uintptr_t)f);
    if (v == 0) {
        v = (uintptr_t)local_id() + 1;
        if (ht_put(&files, (uintptr_t)f, (void *)v) != 0)
            v = (uintptr_t)UINT32_MAX + 1;
    }
    pthread_mutex_unlock(&files.lock);
    return v - 1;
}

uint64_t ecl_mpi_file_opened(MPI_File f, MPI_Comm c, const ecl_mpi_comm *ci)
{
    if (f == MPI_FILE_NULL)
        return 0;
    uint32_t id = agree_id(c, ci->rsize > 0);
    pthread_mutex_lock(&files.lock);
    ht_put(&files, (uintptr_t)f, (void *)((uintptr_t)id + 1));
    pthread_mutex_unlock(&files.lock);
    return id;
}

void ecl_mpi_file_forget(MPI_File f)
{
    pthread_mutex_lock(&files.lock);
    if (ht_get(&files, (uintptr_t)f) != NULL)
        ht_put(&files, (uintptr_t)f, NULL);
    pthread_mutex_unlock(&files.lock);
}

/* ---------------- groups ---------------- */

static handles groups = { NULL, PTHREAD_MUTEX_INITIALIZER };
static uint32_t group_count;

/* The mpi_group definition: group size ranks. */
static void write_group_def(uint32_t id, const int32_t *w, int n)
{
    char *ranks = rank_list(w, n);
    size_t nl = ranks != NULL ? strlen(ranks) : 0;
    uint8_t *buf = malloc(40 + nl), *p = buf;
    if (buf != NULL) {
        p = ecl_buf_put_uleb(p, id);
        p = ecl_buf_put_uleb(p, (uint64_t)n);
        p = ecl_buf_put_str(p, ranks != NULL ? ranks : "", nl);
        ecl_trace_write_definition(ECL_MPI_REC_GROUP, buf, (size_t)(p - buf));
    }
    free(buf);
    free(ranks);
}

/* Group ids are stored in the table's value (as id, never 0). */
uint64_t ecl_mpi_group_id(MPI_Group g)
{
    uintptr_t v = (uintptr_t)ht_get(&groups, (uintptr_t)g);
    if (ECL_LIKELY(v != 0))
        return v;
    if (g == MPI_GROUP_NULL || !mpi_ready)
        return 0;
    pthread_mutex_lock(&groups.lock);
    v = (uintptr_t)ht_get(&groups, (uintptr_t)g);
    if (v == 0) {
        int n = 0;
        PMPI_Group_size(g, &n);
        int32_t *w = group_to_world(g, n);
        v = ++group_count;
        if (ht_put(&groups, (uintptr_t)g, (void *)v) == 0)
            write_group_def((uint32_t)v, w, w != NULL ? n : 0);
        free(w);
    }
    pthread_mutex_unlock(&groups.lock);
    return v;
}

void ecl_mpi_group_forget(MPI_Group g)
{
    pthread_mutex_lock(&groups.lock);
    if (ht_get(&groups, (uintptr_t)g) != NULL)
        ht_put(&groups, (uintptr_t)g, NULL);
    pthread_mutex_unlock(&groups.lock);
}

/* ---------------- sizes ---------------- */

/* Element i of an array of counts: int or, for the large-count (_c)
 * functions, MPI_Count. */
static int64_t count_at(const void *counts, int big, uint64_t i)
{
    return big ? (int64_t)((const MPI_Count *)counts)[i] : ((const int *)counts)[i];
}

/* Bytes of n counts of t (negative counts ignored). */
static uint64_t sum_bytes(const void *counts, int big, uint64_t n, MPI_Datatype t)
{
    uint64_t sum = 0;
    if (counts == NULL || n > (uint64_t)INT32_MAX)
        return 0;
    for (uint64_t i = 0; i < n; i++)
        if (count_at(counts, big, i) > 0)
            sum += (uint64_t)count_at(counts, big, i);
    if (sum == 0 || sum > (uint64_t)INT64_MAX)
        return 0;
    return sum * ecl_mpi_tbytes(1, t);
}

/* Bytes of n counts, each of its own datatype. */
static uint64_t sum_w(const void *counts, int big, uint64_t n, const MPI_Datatype *types)
{
    uint64_t sum = 0;
    if (counts == NULL || types == NULL || n > (uint64_t)INT32_MAX)
        return 0;
    for (uint64_t i = 0; i < n; i++)
        sum += ecl_mpi_tbytes(count_at(counts, big, i), types[i]);
    return sum;
}

uint64_t ecl_mpi_sumbytes(const int *counts, uint64_t n, MPI_Datatype t)
{
    return sum_bytes(counts, 0, n, t);
}

uint64_t ecl_mpi_sumbytes_c(const MPI_Count *counts, uint64_t n, MPI_Datatype t)
{
    return sum_bytes(counts, 1, n, t);
}

uint64_t ecl_mpi_sumw(const int *counts, uint64_t n, const MPI_Datatype *types)
{
    return sum_w(counts, 0, n, types);
}

uint64_t ecl_mpi_sumw_c(const MPI_Count *counts, uint64_t n, const MPI_Datatype *types)
{
    return sum_w(counts, 1, n, types);
}

uint64_t ecl_mpi_degree(MPI_Comm c, int out)
{
    int topo = MPI_UNDEFINED, n = 0, in = 0, outd = 0, weighted = 0, rank = 0;
    if (PMPI_Topo_test(c, &topo) != MPI_SUCCESS)
        return 0;
    if (topo == MPI_CART && PMPI_Cartdim_get(c, &n) == MPI_SUCCESS)
        return 2 * (uint64_t)(n > 0 ? n : 0);
    if (topo == MPI_GRAPH && PMPI_Comm_rank(c, &rank) == MPI_SUCCESS &&
        PMPI_Graph_neighbors_count(c, rank, &n) == MPI_SUCCESS)
        return (uint64_t)(n > 0 ? n : 0);
    if (topo == MPI_DIST_GRAPH &&
        PMPI_Dist_graph_neighbors_count(c, &in, &outd, &weighted) == MPI_SUCCESS)
        return (uint64_t)(out ? (outd > 0 ? outd : 0) : (in > 0 ? in : 0));
    return 0;
}

uint64_t ecl_mpi_status_bytes(const MPI_Status *st)
{
    int n = 0;
    if (PMPI_Get_count(st, MPI_BYTE, &n) != MPI_SUCCESS || n == MPI_UNDEFINED || n < 0)
        return 0;
    return (uint64_t)n;
}

/* ---------------- clocks ---------------- */

enum { SYNC_ROUNDS = 10, SYNC_TAG = 1 };

/* Ping-pongs with rank 0 over the tool's communicator; keeps the round with
 * the shortest round trip: its midpoint (local ticks) and rank 0's clock
 * when it answered. Collective over world. */
void ecl_mpi_clock_sync(int phase)
{
    uint64_t best_rtt = UINT64_MAX, best_mid = 0, best_ref = 0;
    int was = ecl_buf_in_tool;
    ecl_buf_in_tool = 1;
    if (ecl_mpi_world_rank == 0) {
        for (int r = 1; r < world_size; r++) {
            for (int k = 0; k < SYNC_ROUNDS; k++) {
                uint64_t x;
                PMPI_Recv(&x, 1, MPI_UINT64_T, r, SYNC_TAG, tool_comm, MPI_STATUS_IGNORE);
                x = ecl_sys_clock_now();
                PMPI_Send(&x, 1, MPI_UINT64_T, r, SYNC_TAG, tool_comm);
            }
        }
        best_mid = best_ref = ecl_sys_clock_now();
        best_rtt = 0;
    } else {
        for (int k = 0; k < SYNC_ROUNDS; k++) {
            uint64_t t0 = ecl_sys_clock_now(), ref;
            PMPI_Send(&t0, 1, MPI_UINT64_T, 0, SYNC_TAG, tool_comm);
            PMPI_Recv(&ref, 1, MPI_UINT64_T, 0, SYNC_TAG, tool_comm, MPI_STATUS_IGNORE);
            uint64_t t1 = ecl_sys_clock_now();
            if (t1 - t0 < best_rtt) {
                best_rtt = t1 - t0;
                best_mid = t0 + (t1 - t0) / 2;
                best_ref = ref;
            }
        }
    }
    ecl_buf_in_tool = was;
    uint8_t buf[64], *p = buf;
    p = ecl_buf_put_uleb(p, (uint64_t)phase);
    p = ecl_buf_put_uleb(p, best_mid);
    p = ecl_buf_put_uleb(p, best_ref);
    p = ecl_buf_put_f64(p, ref_tps);
    p = ecl_buf_put_uleb(p, best_rtt);
    ecl_trace_write_definition(ECL_MPI_REC_CLOCK, buf, (size_t)(p - buf));
}

/* ---------------- start ---------------- */

static void record_call(uint32_t type, uint64_t t0, const int64_t *f, const char *kinds)
{
    ecl_buf_hot *t;
    uint64_t now;
    uint8_t *p = ecl_buf_begin(type, ECL_BUF_HEADER_MAX + 10 + 10 * strlen(kinds), &t, &now);
    if (p == NULL)
        return;
    p = ecl_buf_put_uleb(p, now - t0);
    for (size_t i = 0; kinds[i]; i++)
        p = kinds[i] == 'u' ? ecl_buf_put_uleb(p, (uint64_t)f[i]) : ecl_buf_put_sleb(p, f[i]);
    ecl_buf_commit(t, p, now);
}

void ecl_mpi_started(void)
{
    int rank = 0, size = 1;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    PMPI_Comm_size(MPI_COMM_WORLD, &size);
    ecl_mpi_world_rank = rank;
    world_size = size;
    /* ecl_init() has checked the value (a bad one is said, all groups used) */
    const char *g = getenv("ECL_MPI_GROUPS");
    unsigned mask = ECL_API_MPI_GROUPS_ALL;
    if (g != NULL && ecl_api_parse_mpi_groups(g, &mask) == 0)
        ecl_mpi_groups = mask | ECL_MPI_G_ENV;
    ecl_mpi_world.size = size;
    ecl_mpi_world.rank = rank;
    self_world[0] = rank;
    PMPI_Comm_group(MPI_COMM_WORLD, &world_group);
    PMPI_Comm_dup(MPI_COMM_WORLD, &tool_comm);
    __atomic_store_n(&mpi_ready, 1, __ATOMIC_RELEASE);
    if (!ecl_buf_is_active())
        return;
    /* every rank takes rank 0's run id: the merge refuses traces of other runs */
    uint8_t run_id[ECC_RUN_ID];
    ecl_trace_run_id(run_id);
    PMPI_Bcast(run_id, ECC_RUN_ID, MPI_BYTE, 0, tool_comm);
    ecl_trace_set_identity(rank, size, run_id);
    write_comm_def(&ecl_mpi_world, UINT32_MAX);
    write_comm_def(&self_info, UINT32_MAX);
    ref_tps = ecl_sys_clock_ticks_per_second();
    PMPI_Bcast(&ref_tps, 1, MPI_DOUBLE, 0, tool_comm);
    ecl_mpi_clock_sync(0);
}

ECL_MPI_API int MPI_Init(int *argc, char ***argv)
{
    if (ecl_buf_in_tool)
        return PMPI_Init(argc, argv);
    /* Tracing starts first, so that MPI_Init itself is timed with the trace
     * clock; the file is renamed to its rank once the rank is known. */
    ecl_init();
    uint64_t t0 = ecl_mpi_begin();
    int rc = PMPI_Init(argc, argv);
    ecl_mpi_end();
    if (rc == MPI_SUCCESS) {
        ecl_mpi_started();
        record_call(ECL_MPI_REC_INIT, t0, NULL, "");
    }
    return rc;
}

ECL_MPI_API int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    if (ecl_buf_in_tool)
        return PMPI_Init_thread(argc, argv, required, provided);
    ecl_init();
    uint64_t t0 = ecl_mpi_begin();
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    ecl_mpi_end();
    if (rc == MPI_SUCCESS) {
        ecl_mpi_started();
        int64_t f[2] = { required, *provided };
        record_call(ECL_MPI_REC_INIT_THREAD, t0, f, "ss");
    }
    return rc;
}

/* ---------------- end ---------------- */

static int merge_wanted(void)
{
    const char *v = getenv("ECL_MERGE");
    if (v == NULL || *v == '\0')
        return 1;
    return !(strcmp(v, "0") == 0 || strcasecmp(v, "no") == 0 || strcasecmp(v, "false") == 0 ||
             strcasecmp(v, "off") == 0);
}

/* The merge's progress: ECL_PROGRESS=1 (ecl-run sets it when its standard
 * error is a terminal, which a launcher passes the ranks' standard error
 * to through a pipe), =0 never; unset, when standard error is a terminal. */
static int progress_wanted(void)
{
    const char *v = getenv("ECL_PROGRESS");
    if (v == NULL || *v == '\0')
        return isatty(STDERR_FILENO);
    return strcmp(v, "1") == 0 || strcasecmp(v, "yes") == 0 || strcasecmp(v, "true") == 0 ||
           strcasecmp(v, "on") == 0;
}

static int verbose_wanted(void)
{
    const char *v = getenv("ECL_VERBOSE");
    return v != NULL && (strcmp(v, "1") == 0 || strcasecmp(v, "yes") == 0 ||
                         strcasecmp(v, "true") == 0 || strcasecmp(v, "on") == 0);
}

/* "<dir>/<prefix>" from this rank's trace path "<dir>/<prefix>.<rank>.ecl". */
static int trace_base(char *out, size_t len)
{
    const char *path = ecl_trace_path();
    char suffix[32];
    if (path == NULL)
        return -1;
    snprintf(suffix, sizeof suffix, ".%d.ecl", (int)ecl_mpi_world_rank);
    size_t n = strlen(path), s = strlen(suffix);
    if (n <= s || strcmp(path + n - s, suffix) != 0 || n - s >= len)
        return -1;
    memcpy(out, path, n - s);
    out[n - s] = '\0';
    return 0;
}

static void merge_diag(void *ctx, const char *message)
{
    (void)ctx;
    fprintf(stderr, "ecl: %s\n", message);
}

/* The merge's progress (progress_wanted): one line rewritten in place, at
 * most every 1 %. */
static void merge_progress(void *ctx, int phase, uint64_t done, uint64_t total)
{
    unsigned *last = ctx;   /* percent, plus 1000 in the copy phase */
    unsigned pc = (total ? (unsigned)(done * 100 / total) : 100) + (phase ? 1000 : 0);
    if (pc == *last)
        return;
    *last = pc;
    if (phase == 0)
        fprintf(stderr, "\recl: merging the traces: reading %3u %% (%llu of %llu files)%s",
                pc, (unsigned long long)done, (unsigned long long)total,
                done >= total ? "\n" : "");
    else
        fprintf(stderr, "\recl: merging the traces: copying %3u %% (%.1f of %.1f MiB)%s",
                pc - 1000, (double)done / 1048576.0, (double)total / 1048576.0,
                done >= total ? "\n" : "");
}

static void merge_traces(const char *base, int size)
{
    char **paths = calloc((size_t)size, sizeof *paths);
    size_t blen = strlen(base) + 32;
    char *out = malloc(blen);
    int ok = paths != NULL && out != NULL;
    for (int r = 0; ok && r < size; r++) {
        paths[r] = malloc(blen);
        ok = paths[r] != NULL;
        if (ok)
            snprintf(paths[r], blen, "%s.%d.ecl", base, r);
    }
    if (ok) {
        snprintf(out, blen, "%s.ecl", base);
        pal_merge_options o;
        pal_merge_options_default(&o);
        o.verbose = verbose_wanted();
        o.ranks = size;
        o.diag = merge_diag;
        unsigned last = 101;
        if (progress_wanted()) {
            o.progress = merge_progress;
            o.progress_ctx = &last;
        }
        pal_merge_result res;
        if (pal_merge((const char *const *)paths, (size_t)size, out, &o, &res) != PAL_OK)
            fprintf(stderr, "%secl: %s: the traces were not merged\n",
                    last != 101 && last != 100 && last != 1100 ? "\n" : "", pal_last_error());
        else if (o.verbose || res.problems)
            fprintf(stderr, "ecl: merged %u ranks into '%s': %llu records in %llu chunks, "
                    "kept as written%s\n", res.ranks, out, (unsigned long long)res.records,
                    (unsigned long long)res.chunks,
                    res.problems ? "; see the messages above" : "");
    } else {
        fprintf(stderr, "ecl: out of memory: the traces were not merged\n");
    }
    for (int r = 0; paths != NULL && r < size; r++)
        free(paths[r]);
    free(paths);
    free(out);
}

ECL_MPI_API int MPI_Finalize(void)
{
    if (!mpi_ready)
        return PMPI_Finalize();
    if (ECL_MPI_PASS(ECL_MPI_G_ENV)) {
        PMPI_Comm_free(&tool_comm);
        PMPI_Group_free(&world_group);
        return PMPI_Finalize();
    }
    uint64_t t0 = ecl_sys_clock_now();
    ecl_mpi_clock_sync(1);
    record_call(ECL_MPI_REC_FINALIZE, t0, NULL, "");
    char base[4096];
    int merge = merge_wanted() && trace_base(base, sizeof base) == 0;
    /* Recording ends here: every rank's file is complete before rank 0 merges. */
    ecl_finalize();
    ecl_buf_in_tool = 1;
    PMPI_Barrier(tool_comm);
    PMPI_Comm_free(&tool_comm);
    PMPI_Group_free(&world_group);
    int rc = PMPI_Finalize();
    if (merge && ecl_mpi_world_rank == 0)
        merge_traces(base, world_size);
    ecl_buf_in_tool = 0;
    return rc;
}

ECL_MPI_API int MPI_Abort(MPI_Comm comm, int errorcode)
{
    if (!ECL_MPI_PASS(ECL_MPI_G_ENV)) {
        /* Nothing returns from PMPI_Abort: the record and the whole trace
         * go to the file first. */
        int64_t f[2] = { (int64_t)ecl_mpi_comm_of(comm)->id, errorcode };
        record_call(ECL_MPI_REC_ABORT, ecl_sys_clock_now(), f, "us");
        ecl_finalize();
    }
    ecl_buf_in_tool = 1;
    return PMPI_Abort(comm, errorcode);
}
