/* mpi.c -- the distributed engine of pal-view --mpi (pal-view-mpi, linked
 * with MPI; views/mpi.h). Process k of P reads share k of the run (the
 * shares of -j: pal_reader_set_share; a run of fewer files than P is read
 * by as many processes as it has files, the others bring nothing; with
 * -j J, P x J shares, each process reading a block of J consecutive ones
 * in J threads), packs
 * its partial result (views/an.h, views/pack.h), and the parts are merged
 * up a binomial tree in process order: k takes k + 1, then k + 2, k + 4,
 * ..., each merge adding the shares after those it holds, as -j merges in
 * share order. Process 0 ends with what one reader gives and writes every
 * output. What another process writes on stderr (its reader's fatal
 * errors) goes with its part to process 0 and is said there once; the
 * reader's messages about damage travel in the part and are said once,
 * in share order, as -j says them. */
#include <config.h>

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "views/an.h"
#include "views/mpi.h"

#define TAG_PART 1701
#define CHUNK (1 << 30)   /* bytes per MPI_Send: its count is an int */

static int inited, rank, nproc;
static FILE *kept;      /* a process other than 0: its stderr, sent with its part */
static char **seen;     /* process 0: the lines of other processes said already */
static size_t nseen;

int vw_mpi_begin(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    if (MPI_Init(NULL, NULL) != MPI_SUCCESS) {
        fprintf(stderr, "pal-view: --mpi: MPI_Init failed\n");
        return -1;
    }
    inited = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nproc);
    if (rank != 0 && (kept = tmpfile()) != NULL) {
        fflush(stderr);
        dup2(fileno(kept), STDERR_FILENO);
    }
    return 0;
}

int vw_mpi_root(void) { return rank == 0; }

static void send_bytes(const void *p, uint64_t n, int to)
{
    MPI_Send(&n, 1, MPI_UINT64_T, to, TAG_PART, MPI_COMM_WORLD);
    for (uint64_t at = 0; at < n;) {
        int c = n - at > CHUNK ? CHUNK : (int)(n - at);
        MPI_Send((const char *)p + at, c, MPI_BYTE, to, TAG_PART, MPI_COMM_WORLD);
        at += (uint64_t)c;
    }
}

/* bytes sent by send_bytes (NUL-terminated); out of memory for them ends
 * the job: they cannot be left unread */
static char *recv_bytes(int from, uint64_t *n)
{
    MPI_Recv(n, 1, MPI_UINT64_T, from, TAG_PART, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    char *p = *n < SIZE_MAX ? malloc((size_t)*n + 1) : NULL;
    if (p == NULL) {
        fprintf(stderr, "pal-view: --mpi: out of memory for the %llu bytes of process %d's part\n",
                (unsigned long long)*n, from);
        fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    for (uint64_t at = 0; at < *n;) {
        int c = *n - at > CHUNK ? CHUNK : (int)(*n - at);
        MPI_Recv(p + at, c, MPI_BYTE, from, TAG_PART, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        at += (uint64_t)c;
    }
    p[*n] = '\0';
    return p;
}

/* what this process wrote on stderr so far (malloc'd), its length in *n */
static char *kept_text(uint64_t *n)
{
    *n = 0;
    if (kept == NULL)
        return NULL;
    fflush(stderr);
    off_t end = lseek(STDERR_FILENO, 0, SEEK_END);
    char *t = end > 0 ? malloc((size_t)end) : NULL;
    if (t && pread(STDERR_FILENO, t, (size_t)end, 0) == (ssize_t)end)
        *n = (uint64_t)end;
    return t;
}

/* another process's lines: process 0 says each once, others keep them */
static void say(const char *t, size_t n)
{
    if (rank != 0) {
        fwrite(t, 1, n, stderr);
        return;
    }
    for (size_t i = 0; i < n;) {
        const char *nl = memchr(t + i, '\n', n - i);
        size_t len = nl ? (size_t)(nl - (t + i)) + 1 : n - i;
        int dup = 0;
        for (size_t k = 0; k < nseen && !dup; k++)
            dup = strlen(seen[k]) == len && memcmp(seen[k], t + i, len) == 0;
        if (!dup) {
            fwrite(t + i, 1, len, stderr);
            char **s = realloc(seen, (nseen + 1) * sizeof *s);
            if (s && (s[nseen] = strndup(t + i, len)) != NULL)
                nseen++;
            if (s)
                seen = s;
        }
        i += len;
    }
}

/* this process's part to process `to`: failed or not, its stderr, the bytes */
static void send_part(const vw_run *r, int failed, int to)
{
    vw_pack b = {0};
    if (!failed && vw_run_pack(r, &b)) {
        fprintf(stderr, "pal-view: --mpi: out of memory packing the part of process %d\n", rank);
        failed = 1;
    }
    uint64_t n, f = (uint64_t)failed;
    char *t = kept_text(&n);
    MPI_Send(&f, 1, MPI_UINT64_T, to, TAG_PART, MPI_COMM_WORLD);
    send_bytes(t, n, to);
    send_bytes(b.p, failed ? 0 : b.n, to);
    free(t);
    vw_pack_free(&b);
}

/* The binomial tree: *r (this process's part) takes the parts of the
 * processes after it; a process other than 0 then sends it on. 1: this
 * part or one it took failed (said on stderr), 0. */
static int reduce(vw_run *r, int failed)
{
    for (int step = 1; step < nproc; step *= 2) {
        if (rank % (2 * step)) {
            send_part(r, failed, rank - step);
            return failed;
        }
        int from = rank + step;
        if (from >= nproc)
            continue;
        uint64_t f, nt, np;
        MPI_Recv(&f, 1, MPI_UINT64_T, from, TAG_PART, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        char *t = recv_bytes(from, &nt);
        char *p = recv_bytes(from, &np);
        if (t)
            say(t, (size_t)nt);
        if (f)
            failed = 1;
        else if (!failed) {
            vw_run *o = NULL;
            int bad = vw_run_unpack(p, (size_t)np, &o);
            free(p);   /* the unpacked run owns its copies: not held while merging */
            p = NULL;
            if (bad || vw_run_absorb(r, o)) {
                fprintf(stderr, "pal-view: --mpi: out of memory merging the part of processes "
                                "%d to %d\n",
                        from, from + step - 1 < nproc ? from + step - 1 : nproc - 1);
                failed = 1;
            }
            vw_run_free(o);
        }
        free(t);
        free(p);
    }
    return failed;
}

/* the run's start and files, as process 0 opened it, and the threads per
 * process (*jobs) as process 0 fits them: every process splits the run
 * alike. -1: process 0 could not open it (said there) */
static int share_base(const char *const *paths, size_t n, const char *dict_path, vw_base *b,
                      unsigned *jobs)
{
    uint64_t v[6] = {0, 0, 0, 0, 0, 0};
    if (rank == 0 && vw_run_base(paths, n, dict_path, 0, b) == 0) {
        v[0] = 1;
        v[1] = (uint64_t)b->have;
        v[2] = b->files;
        memcpy(&v[3], &b->ticks, sizeof b->ticks);
        v[4] = vw_readers_fit(*jobs ? *jobs : 1, b->files);
        v[5] = b->streams;
    }
    MPI_Bcast(v, 6, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    if (!v[0])
        return -1;
    b->have = v[1] != 0;
    b->files = (unsigned)v[2];
    memcpy(&b->ticks, &v[3], sizeof b->ticks);
    b->streams = (unsigned)v[5];
    *jobs = (unsigned)v[4];
    if (rank != 0 && *jobs > 1)
        vw_readers_fit(*jobs, b->files);   /* its own limit raised likewise */
    return 0;
}

/* A run without a start time starts at its first record: the earliest of
 * the first records of this process's shares (first to first + count - 1
 * of ns) and of the others'. Each process starts only its own shares'
 * streams for it, where one reader of the whole run would start them all
 * (their first chunks: 90 MiB at 4,096 ranks). */
static void share_start(const char *const *paths, size_t n, const char *dict_path, vw_base *b,
                        unsigned first, unsigned count, unsigned ns)
{
    if (b->have)
        return;
    uint64_t t = UINT64_MAX, tk, min;
    for (unsigned k = first; k < first + count; k++)
        if (vw_share_first(paths, n, dict_path, k, ns, &tk) == 0 && tk < t)
            t = tk;
    MPI_Allreduce(&t, &min, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
    if (min != UINT64_MAX)
        vw_base_first(b, min);
}

/* this process's shares read (in jobs threads) and merged with those of
 * the processes after it; *out: the part (NULL when out of memory). 1
 * failed, 0. */
static int read_and_reduce(const char *const *paths, size_t n, const char *dict_path,
                           unsigned jobs, vw_run **out)
{
    vw_base b;
    *out = NULL;
    if (share_base(paths, n, dict_path, &b, &jobs))
        return 1;
    /* P x jobs shares at most; process k reads a block of consecutive
     * ones, so that the tree merges them in share order */
    unsigned ns = vw_share_count(&b, (unsigned)nproc * jobs);
    unsigned per = (ns + (unsigned)nproc - 1) / (unsigned)nproc;
    unsigned first = (unsigned)rank * per;
    unsigned count = first < ns ? (ns - first < per ? ns - first : per) : 0;
    share_start(paths, n, dict_path, &b, first, count, ns);
    vw_run *r = *out = vw_share_new(&b, ns);
    int failed = r == NULL;
    if (failed)
        fprintf(stderr, "pal-view: --mpi: out of memory (process %d)\n", rank);
    else
        failed = vw_shares_read(r, &b, paths, n, dict_path, first, count, ns) != 0;
    /* the run's bin width, that of its widest lane: with it, each process
     * sums its own lanes' states and drops their bins, unless an output
     * needs them (vw_lanes_settle) */
    double w = r && !failed ? vw_lanes_width(r) : 0, width;
    MPI_Allreduce(&w, &width, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (r && !failed)
        vw_lanes_settle(r, width);
    return reduce(r, failed);
}

int vw_mpi_worker(const char *const *paths, size_t n, const char *dict_path, int ordered,
                  unsigned jobs)
{
    if (ordered)   /* process 0 reads alone */
        return 0;
    vw_run *r;
    int failed = read_and_reduce(paths, n, dict_path, jobs, &r);
    vw_run_free(r);
    return failed;
}

int vw_mpi_run_traces(const char *const *paths, size_t n, const char *dict_path,
                      const vw_sink *sink, unsigned jobs, vw_run **out)
{
    *out = NULL;
    if (sink || !inited)
        return vw_run_traces_jobs(paths, n, dict_path, sink, 1, out);
    if (read_and_reduce(paths, n, dict_path, jobs, out))
        return -1;
    return vw_run_close(*out);
}

int vw_mpi_end(int status)
{
    if (!inited)
        return status;
    int s = status;
    fflush(stdout);
    MPI_Bcast(&s, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    for (size_t i = 0; i < nseen; i++)
        free(seen[i]);
    free(seen);
    return s;
}
