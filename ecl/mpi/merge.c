/* merge.c -- ECL: merge per-rank traces into one time-sorted trace.
 *
 * 1. A first pass over each file reads the header, every chunk header, the
 *    dictionary chunks and the definition stream (stream 0, small chunks):
 *    the file's complete dictionary, its streams, its clock measurements and
 *    its damage. Nothing of the thread streams is decompressed.
 * 2. From the clock measurements each file gets a linear map from its ticks
 *    to nanoseconds of rank 0's clock (offset and drift), and the merged
 *    dictionary is built: record types by name (ids remapped when ranks
 *    registered types in different orders), each with `process` and `thread`
 *    fields after `time`, designated by the dictionary roles.
 * 3. A cursor per (file, stream) walks that stream's chunks; a binary heap
 *    over the cursors yields records in time order, which are copied field by
 *    field (durations in ticks become ns) into output chunks.
 * 4. On the way, sends and receives are paired per (sender, receiver,
 *    communicator, tag) in order: a receive completing before its send began
 *    means the clocks were not corrected well enough.
 * The format is doc/trace-format.md ("Merged traces"). */
#include <config.h>

#include "ecl/core/core.h"
#include "ecl/mpi/merge.h"
#include "edl/edl.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#ifdef HAVE_ZSTD
#include <zstd.h>
#endif

#define FIXED_HEADER 136
#define CHUNK_HEADER 64
#define CHUNK_MAGIC 0x4B484345u
#define MAX_TYPES 65536          /* `type` is a uint16 */
#define MAX_OPS 64
#define ECL_MERGE_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* ---------------- small helpers ---------------- */

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
    return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint8_t *put_uleb(uint8_t *p, uint64_t v)
{
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

/* Reads a ULEB from [*pp, end); 0 on a cut or overlong value. */
static inline int get_uleb(const uint8_t **pp, const uint8_t *end, uint64_t *v)
{
    const uint8_t *p = *pp;
    if (p < end && *p < 0x80) {
        *v = *p;
        *pp = p + 1;
        return 1;
    }
    uint64_t x = 0;
    for (unsigned shift = 0; p < end && shift < 64; shift += 7) {
        uint8_t b = *p++;
        x |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *v = x;
            *pp = p;
            return 1;
        }
    }
    return 0;
}

typedef struct ctx {
    const ecl_merge_options *o;
    int problems;                /* something reported: exit status 2 */
} ctx;

static void say(ctx *c, int warning, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(ctx *c, int warning, const char *fmt, ...)
{
    if (warning)
        c->problems = 1;
    if (warning && c->o->quiet)
        return;
    va_list ap;
    char line[2048];
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s: %s%s\n", c->o->tool, warning ? "warning: " : "", line);
}

static int read_at(int fd, void *buf, size_t len, uint64_t off)
{
    uint8_t *p = buf;
    while (len > 0) {
        ssize_t n = pread(fd, p, len, (off_t)off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
        off += (uint64_t)n;
    }
    return 0;
}

/* ---------------- input files ---------------- */

typedef struct chunk_hdr {
    uint8_t kind, compression;
    uint16_t flags;
    uint32_t stored, raw, process, stream, count, payload_crc;
    uint64_t sequence, first_time, last_time;
} chunk_hdr;

/* How the fields after `type` and `time` of one record type are copied. */
enum { OP_ULEB, OP_SLEB, OP_STR, OP_FIX1, OP_FIX2, OP_FIX4, OP_FIX8, OP_TICKS };

/* Records whose fields the message check reads. */
enum { ROLE_NONE, ROLE_SEND, ROLE_RECV, ROLE_SENDRECV, ROLE_COMPLETE, ROLE_STARTED };

typedef struct tprog {
    uint8_t valid, nops, has_ticks, role;
    uint8_t ticks_first;         /* the only ticks field is the first (MPI call records) */
    uint8_t all_leb;             /* every field is a LEB: skipping counts end bytes */
    uint16_t out_id;
    uint8_t op[MAX_OPS];
    /* field indices (after type and time) for the roles, -1 if absent */
    int8_t f_peer, f_tag, f_comm, f_bytes, f_dur, f_kind, f_flags, f_src, f_rtag, f_rbytes;
} tprog;

typedef struct in_file {
    const char *path;
    int fd;
    uint64_t size;
    uint32_t header_len;
    int clock_source;
    double tps;
    int64_t rt_off;
    uint32_t pid;
    int32_t rank, wsize;
    uint64_t start_time, end_time;
    char host[65];
    edl_dict *dict;
    int closed;                  /* has the index footer: finalized normally */
    int truncated;
    uint64_t damaged;
    uint32_t *streams;           /* stream ids with records */
    unsigned nstreams, streams_cap;
    /* clock measurements (mpi_clock): phase 0 at init, 1 at finalize */
    int have_sync[2];
    uint64_t sync_local[2], sync_ref[2], sync_rtt[2];
    double sync_ref_tps;
    /* the time map: ns = g0 + b * (t - t0) */
    uint64_t t0;
    double g0, b;
    const char *clock_how;
    uint32_t process;            /* in the merged trace */
    int skip;
    tprog *prog;                 /* by local type id */
    size_t nprog;
} in_file;

static int chunk_header_ok(const uint8_t *b, chunk_hdr *h)
{
    if (le32(b) != CHUNK_MAGIC || (uint32_t)crc32(0L, b + 8, 56) != le32(b + 4))
        return 0;
    h->kind = b[8];
    h->compression = b[9];
    h->flags = (uint16_t)(b[10] | b[11] << 8);
    h->stored = le32(b + 12);
    h->raw = le32(b + 16);
    h->process = le32(b + 20);
    h->stream = le32(b + 24);
    h->count = le32(b + 28);
    h->sequence = le64(b + 32);
    h->first_time = le64(b + 40);
    h->last_time = le64(b + 48);
    h->payload_crc = le32(b + 56);
    return 1;
}

/* Finds the next good chunk header at or after *off. Returns 1 with *off at
 * it, 0 at the end of the file. Damage (a bad header: resynchronizes on the
 * next valid one; a cut chunk) is reported when report is set. */
static int next_chunk(ctx *c, in_file *f, uint64_t *off, chunk_hdr *h, int report)
{
    uint8_t b[CHUNK_HEADER];
    uint64_t o = *off;
    while (o + 16 <= f->size) {
        if (o + 16 == f->size) {
            uint8_t foot[16];
            if (read_at(f->fd, foot, 16, o) == 0 && memcmp(foot, "ECLINDEX", 8) == 0) {
                if (report)
                    f->closed = 1;
                return 0;
            }
        }
        if (o + CHUNK_HEADER > f->size)
            break;
        if (read_at(f->fd, b, CHUNK_HEADER, o) != 0)
            break;
        if (chunk_header_ok(b, h)) {
            if (o + CHUNK_HEADER + h->stored > f->size) {
                if (report) {
                    f->truncated = 1;
                    say(c, 1, "%s: byte %" PRIu64 ": the file ends inside a chunk (cut off)",
                        f->path, o);
                }
                return 0;
            }
            *off = o;
            return 1;
        }
        /* bad header: look for the next offset holding a valid one */
        uint64_t start = o;
        int found = 0;
        uint8_t win[65536 + CHUNK_HEADER];
        for (uint64_t s = o + 1; s + CHUNK_HEADER <= f->size && !found;) {
            size_t len = (size_t)(f->size - s < sizeof win ? f->size - s : sizeof win);
            if (read_at(f->fd, win, len, s) != 0)
                break;
            for (size_t i = 0; i + CHUNK_HEADER <= len; i++)
                if (win[i] == 0x45 && win[i + 1] == 0x43 && win[i + 2] == 0x48 &&
                    win[i + 3] == 0x4B && chunk_header_ok(win + i, h)) {
                    o = s + i;
                    found = 1;
                    break;
                }
            if (len < sizeof win)
                break;
            s += len - CHUNK_HEADER + 1;
        }
        if (report) {
            f->damaged++;
            say(c, 1, "%s: byte %" PRIu64 ": bad chunk header; %s", f->path, start,
                found ? "skipped to the next chunk" : "nothing readable after it");
        }
        if (!found)
            return 0;
    }
    if (report && o < f->size) {
        f->truncated = 1;
        say(c, 1, "%s: byte %" PRIu64 ": the file ends inside a chunk header (cut off)", f->path, o);
    }
    return 0;
}

/* Reads and decompresses a chunk's payload into *buf (grown as needed).
 * Returns NULL (and reports) on damage. */
static const uint8_t *load_payload(ctx *c, in_file *f, uint64_t off, const chunk_hdr *h,
                                   uint8_t **zbuf, size_t *zcap, uint8_t **buf, size_t *cap)
{
    const char *why = NULL;
    if (*zcap < h->stored) {
        uint8_t *n = realloc(*zbuf, h->stored);
        if (n == NULL)
            return NULL;
        *zbuf = n;
        *zcap = h->stored;
    }
    if (read_at(f->fd, *zbuf, h->stored, off + CHUNK_HEADER) != 0) {
        why = "cannot read the payload";
        goto bad;
    }
    if ((uint32_t)crc32(0L, *zbuf, h->stored) != h->payload_crc) {
        why = "payload CRC mismatch";
        goto bad;
    }
    if (h->compression == 0) {
        if (h->raw != h->stored) {
            why = "raw and stored lengths differ";
            goto bad;
        }
        return *zbuf;
    }
    if (*cap < h->raw) {
        uint8_t *n = realloc(*buf, h->raw);
        if (n == NULL)
            return NULL;
        *buf = n;
        *cap = h->raw;
    }
    if (h->compression == 1) {
        uLongf len = h->raw;
        if (uncompress(*buf, &len, *zbuf, h->stored) != Z_OK || len != h->raw) {
            why = "zlib data damaged";
            goto bad;
        }
        return *buf;
    }
#ifdef HAVE_ZSTD
    if (h->compression == 2) {
        size_t len = ZSTD_decompress(*buf, h->raw, *zbuf, h->stored);
        if (ZSTD_isError(len) || len != h->raw) {
            why = "zstd data damaged";
            goto bad;
        }
        return *buf;
    }
#endif
    why = "unknown compression";
bad:
    f->damaged++;
    say(c, 1, "%s: byte %" PRIu64 ": %s, chunk skipped", f->path, off, why);
    return NULL;
}

/* ---------------- per-type copy programs ---------------- */

static int op_of(const edl_field *fd, uint8_t *op)
{
    edl_type t = edl_field_type(fd);
    switch (edl_field_encoding(fd)) {
    case EDL_ENC_ULEB:
        *op = strcmp(edl_field_unit(fd), "ticks") == 0 ? OP_TICKS : OP_ULEB;
        return 1;
    case EDL_ENC_SLEB: *op = OP_SLEB; return 1;
    case EDL_ENC_LSTRING: *op = OP_STR; return 1;
    case EDL_ENC_FIXED:
        switch (t) {
        case EDL_INT8: case EDL_UINT8: *op = OP_FIX1; return 1;
        case EDL_INT16: case EDL_UINT16: *op = OP_FIX2; return 1;
        case EDL_INT32: case EDL_UINT32: case EDL_FLOAT32: *op = OP_FIX4; return 1;
        case EDL_INT64: case EDL_UINT64: case EDL_FLOAT64: *op = OP_FIX8; return 1;
        default: return 0;
        }
    default:
        return 0;
    }
}

/* Skips the fields of prog from its field `from` on, starting at p; NULL if
 * they do not fit before end. */
static inline const uint8_t *skip_fields(const tprog *tp, unsigned from, const uint8_t *p,
                                         const uint8_t *end)
{
    if (tp->all_leb) {
        /* a LEB ends with the first byte below 0x80 */
        for (unsigned k = tp->nops - from; k > 0; p++) {
            if (ECL_MERGE_UNLIKELY(p >= end))
                return NULL;
            k -= *p < 0x80;
        }
        return p;
    }
    for (unsigned i = from; i < tp->nops; i++) {
        switch (tp->op[i]) {
        case OP_ULEB: case OP_SLEB: case OP_TICKS:
            for (;;) {
                if (p >= end)
                    return NULL;
                if (!(*p++ & 0x80))
                    break;
            }
            break;
        case OP_STR: {
            uint64_t n;
            if (!get_uleb(&p, end, &n) || n > (uint64_t)(end - p))
                return NULL;
            p += n;
            break;
        }
        case OP_FIX1: p += 1; break;
        case OP_FIX2: p += 2; break;
        case OP_FIX4: p += 4; break;
        default: p += 8; break;
        }
        if (p > end)
            return NULL;
    }
    return p;
}

/* Values of fields (ULEB, SLEB as int64 bits; others 0) into v[]. */
static int read_fields(const tprog *tp, const uint8_t *p, const uint8_t *end, uint64_t *v)
{
    for (unsigned i = 0; i < tp->nops; i++) {
        uint64_t x = 0;
        switch (tp->op[i]) {
        case OP_ULEB: case OP_TICKS:
            if (!get_uleb(&p, end, &x))
                return 0;
            break;
        case OP_SLEB:
            if (!get_uleb(&p, end, &x))
                return 0;
            x = (x >> 1) ^ (uint64_t)-(int64_t)(x & 1);
            break;
        case OP_STR:
            if (!get_uleb(&p, end, &x) || x > (uint64_t)(end - p))
                return 0;
            p += x;
            x = 0;
            break;
        case OP_FIX1: if (end - p < 1) return 0; x = p[0]; p += 1; break;
        case OP_FIX2: if (end - p < 2) return 0; p += 2; break;
        case OP_FIX4: if (end - p < 4) return 0; p += 4; break;
        default:
            if (end - p < 8)
                return 0;
            memcpy(&x, p, 8);    /* host order: what ECL writes */
            p += 8;
            break;
        }
        v[i] = x;
    }
    return 1;
}

static int8_t field_at(const edl_record *r, const char *name)
{
    long i = edl_record_find_field(r, name);
    return i >= 2 && i - 2 < MAX_OPS ? (int8_t)(i - 2) : -1;
}

/* Builds the copy program of every bound type of f (ids from the binds). */
static int build_progs(ctx *c, in_file *f)
{
    const edl_dict *d = f->dict;
    size_t nb = edl_dict_bind_count(d), maxid = 0;
    for (size_t i = 0; i < nb; i++) {
        unsigned long id = strtoul(edl_dict_bind(d, i).key1, NULL, 10);
        if (id < MAX_TYPES && id + 1 > maxid)
            maxid = id + 1;
    }
    f->prog = calloc(maxid ? maxid : 1, sizeof *f->prog);
    if (f->prog == NULL)
        return -1;
    f->nprog = maxid;
    for (size_t i = 0; i < nb; i++) {
        edl_bind bd = edl_dict_bind(d, i);
        char *end;
        unsigned long id = strtoul(bd.key1, &end, 10);
        if (*end != '\0' || id >= maxid || bd.key2 != NULL)
            continue;
        const edl_record *r = edl_dict_record(d, bd.record);
        size_t nf = edl_record_field_count(r);
        tprog *tp = &f->prog[id];
        if (nf < 2 || nf - 2 > MAX_OPS)
            continue;
        int ok = 1;
        for (size_t k = 2; k < nf && ok; k++)
            ok = op_of(edl_record_field(r, k), &tp->op[k - 2]);
        if (!ok) {
            say(c, 1, "%s: record type '%s' has a field ECL does not write; its records are skipped",
                f->path, edl_record_name(r));
            continue;
        }
        tp->nops = (uint8_t)(nf - 2);
        unsigned nticks = 0;
        for (unsigned k = 0; k < tp->nops; k++)
            nticks += tp->op[k] == OP_TICKS;
        tp->has_ticks = nticks > 0;
        tp->ticks_first = nticks == 1 && tp->op[0] == OP_TICKS;
        tp->all_leb = 1;
        for (unsigned k = 0; k < tp->nops; k++)
            if (tp->op[k] != OP_ULEB && tp->op[k] != OP_SLEB && tp->op[k] != OP_TICKS)
                tp->all_leb = 0;
        tp->valid = 1;
        const char *nm = edl_record_name(r);
        tp->f_peer = field_at(r, "peer");
        tp->f_tag = field_at(r, "tag");
        tp->f_comm = field_at(r, "comm");
        tp->f_bytes = field_at(r, "bytes");
        tp->f_dur = field_at(r, "duration");
        tp->f_kind = field_at(r, "kind");
        tp->f_flags = field_at(r, "flags");
        tp->f_src = field_at(r, "source");
        tp->f_rtag = field_at(r, "recvtag");
        tp->f_rbytes = field_at(r, "recvbytes");
        static const char *const sends[] = { "mpi_send", "mpi_bsend", "mpi_ssend", "mpi_rsend",
                                             "mpi_isend", "mpi_ibsend", "mpi_issend",
                                             "mpi_irsend", "mpi_isendrecv",
                                             "mpi_isendrecv_replace", NULL };
        for (int s = 0; sends[s]; s++)
            if (strcmp(nm, sends[s]) == 0)
                tp->role = ROLE_SEND;
        if (strcmp(nm, "mpi_recv") == 0 || strcmp(nm, "mpi_mrecv") == 0)
            tp->role = ROLE_RECV;
        else if (strcmp(nm, "mpi_sendrecv") == 0 || strcmp(nm, "mpi_sendrecv_replace") == 0)
            tp->role = ROLE_SENDRECV;
        else if (strcmp(nm, "mpi_complete") == 0)
            tp->role = ROLE_COMPLETE;
        else if (strcmp(nm, "mpi_started") == 0)
            tp->role = ROLE_STARTED;
        int need_dur = tp->role == ROLE_SEND || tp->role == ROLE_SENDRECV;
        int need_kind = tp->role == ROLE_COMPLETE || tp->role == ROLE_STARTED;
        if (tp->role != ROLE_NONE &&
            (tp->f_peer < 0 || tp->f_tag < 0 || tp->f_comm < 0 || tp->f_bytes < 0 ||
             (need_dur && tp->f_dur < 0) || (need_kind && tp->f_kind < 0) ||
             (tp->role == ROLE_SENDRECV && (tp->f_src < 0 || tp->f_rtag < 0 || tp->f_rbytes < 0))))
            tp->role = ROLE_NONE;
    }
    return 0;
}

/* ---------------- pass 1: headers, dictionaries, definitions ---------------- */

static void add_stream(in_file *f, uint32_t s)
{
    for (unsigned i = 0; i < f->nstreams; i++)
        if (f->streams[i] == s)
            return;
    if (f->nstreams == f->streams_cap) {
        unsigned cap = f->streams_cap ? 2 * f->streams_cap : 8;
        uint32_t *ns = realloc(f->streams, cap * sizeof *ns);
        if (ns == NULL)
            return;
        f->streams = ns;
        f->streams_cap = cap;
    }
    f->streams[f->nstreams++] = s;
}

/* Decodes the records of a stream-0 payload looking for mpi_clock. */
static void scan_defs(in_file *f, const uint8_t *p, const uint8_t *end, uint32_t count,
                      uint64_t clock_id)
{
    uint64_t v[MAX_OPS];
    for (uint32_t i = 0; i < count && p < end; i++) {
        uint64_t type, dt;
        if (!get_uleb(&p, end, &type) || !get_uleb(&p, end, &dt) || type >= f->nprog ||
            !f->prog[type].valid)
            return;
        const tprog *tp = &f->prog[type];
        const uint8_t *q = skip_fields(tp, 0, p, end);
        if (q == NULL)
            return;
        if (type == clock_id && tp->nops >= 5 && read_fields(tp, p, q, v)) {
            /* mpi_clock: phase local ref ref_tps rtt */
            {
                unsigned ph = v[0] ? 1 : 0;
                f->have_sync[ph] = 1;
                f->sync_local[ph] = v[1];
                f->sync_ref[ph] = v[2];
                memcpy(&f->sync_ref_tps, &v[3], sizeof f->sync_ref_tps);
                f->sync_rtt[ph] = v[4];
            }
        }
        p = q;
    }
}

static int open_input(ctx *c, in_file *f)
{
    uint8_t h[FIXED_HEADER];
    char err[256];
    struct stat sb;
    f->fd = open(f->path, O_RDONLY);
    if (f->fd < 0) {
        say(c, 1, "cannot open trace '%s': %s", f->path, strerror(errno));
        return -1;
    }
    if (fstat(f->fd, &sb) != 0) {
        say(c, 1, "cannot read trace '%s': %s", f->path, strerror(errno));
        return -1;
    }
    f->size = (uint64_t)sb.st_size;
    memset(h, 0, sizeof h);
    if (read_at(f->fd, h, f->size < 8 ? (size_t)f->size : 8, 0) != 0 ||
        memcmp(h, "ECLTRACE", 8) != 0) {
        say(c, 1, "cannot read trace '%s': bad magic at byte 0 (not an ECL trace)", f->path);
        return -1;
    }
    if (f->size < FIXED_HEADER || read_at(f->fd, h, FIXED_HEADER, 0) != 0) {
        say(c, 1, "cannot read trace '%s': cut off in its header (%" PRIu64 " bytes)", f->path,
            f->size);
        return -1;
    }
    if ((h[8] | h[9] << 8) != 1) {
        say(c, 1, "cannot read trace '%s': format version %u is not supported", f->path,
            (unsigned)(h[8] | h[9] << 8));
        return -1;
    }
    f->header_len = le32(h + 12);
    uint32_t dict_off = le32(h + 128), dict_len = le32(h + 132);
    if (f->header_len < FIXED_HEADER || f->header_len > f->size ||
        (uint64_t)dict_off + dict_len > f->header_len) {
        say(c, 1, "cannot read trace '%s': bad header length", f->path);
        return -1;
    }
    uint8_t *hdr = malloc(f->header_len);
    if (hdr == NULL || read_at(f->fd, hdr, f->header_len, 0) != 0) {
        free(hdr);
        say(c, 1, "cannot read trace '%s': short header", f->path);
        return -1;
    }
    uint32_t want = le32(hdr + 16);
    memset(hdr + 16, 0, 4);
    if ((uint32_t)crc32(0L, hdr, f->header_len) != want) {
        free(hdr);
        say(c, 1, "cannot read trace '%s': header CRC mismatch at byte 16", f->path);
        return -1;
    }
    f->clock_source = h[21];
    uint64_t tb = le64(h + 24);
    memcpy(&f->tps, &tb, sizeof f->tps);
    f->rt_off = (int64_t)le64(h + 32);
    f->pid = le32(h + 40);
    f->rank = (int32_t)le32(h + 44);
    f->wsize = (int32_t)le32(h + 48);
    f->start_time = le64(h + 56);
    memcpy(f->host, h + 64, 64);
    f->host[64] = '\0';
    edl_status es = edl_dict_decode(hdr + dict_off, dict_len, &f->dict, err, sizeof err);
    free(hdr);
    if (es != EDL_OK) {
        say(c, 1, "cannot read trace '%s': embedded dictionary: %s", f->path, err);
        return -1;
    }
    if (!(f->tps > 0) || edl_dict_key_count(f->dict) != 1 ||
        edl_dict_key_index(f->dict, 0) != 0 || edl_dict_framing(f->dict) != EDL_FRAMING_ECL) {
        say(c, 1, "cannot merge '%s': not a native ECL trace (already merged?)", f->path);
        return -1;
    }
    if (strcmp(edl_dict_process_field(f->dict), "") != 0) {
        say(c, 1, "cannot merge '%s': it is a merged trace already", f->path);
        return -1;
    }

    /* every chunk: dictionaries first (they precede their records in file
     * order), then the definition stream */
    uint8_t *zb = NULL, *rb = NULL;
    size_t zc = 0, rc = 0;
    uint64_t off = f->header_len;
    chunk_hdr ch;
    f->end_time = f->start_time;
    while (next_chunk(c, f, &off, &ch, 1)) {
        uint64_t next = off + CHUNK_HEADER + ch.stored;
        if (ch.kind == 2) {
            const uint8_t *p = load_payload(c, f, off, &ch, &zb, &zc, &rb, &rc);
            edl_dict *nd = NULL;
            if (p != NULL && edl_dict_decode(p, ch.raw, &nd, err, sizeof err) == EDL_OK) {
                if (edl_dict_merge(f->dict, nd) != EDL_OK) {
                    f->damaged++;
                    say(c, 1, "%s: byte %" PRIu64 ": dictionary chunk contradicts the header's",
                        f->path, off);
                }
            } else if (p != NULL) {
                f->damaged++;
                say(c, 1, "%s: byte %" PRIu64 ": dictionary chunk damaged: %s", f->path, off, err);
            }
            edl_dict_destroy(nd);
        } else if (ch.kind == 1 && ch.count > 0) {
            add_stream(f, ch.stream);
            if (ch.last_time > f->end_time)
                f->end_time = ch.last_time;
        }
        off = next;
    }
    if (build_progs(c, f) != 0) {
        free(zb);
        free(rb);
        return -1;
    }
    uint64_t clock_id = UINT64_MAX;
    for (size_t b = 0; b < edl_dict_bind_count(f->dict); b++) {
        edl_bind bd = edl_dict_bind(f->dict, b);
        if (strcmp(edl_record_name(edl_dict_record(f->dict, bd.record)), "mpi_clock") == 0)
            clock_id = strtoull(bd.key1, NULL, 10);
    }
    off = f->header_len;
    while (next_chunk(c, f, &off, &ch, 0)) {
        if (ch.kind == 1 && ch.stream == 0 && ch.count > 0) {
            const uint8_t *p = load_payload(c, f, off, &ch, &zb, &zc, &rb, &rc);
            if (p != NULL)
                scan_defs(f, p, p + ch.raw, ch.count, clock_id);
        }
        off += CHUNK_HEADER + ch.stored;
    }
    free(zb);
    free(rb);
    return 0;
}

/* ---------------- pass 2: clocks ---------------- */

static const in_file *find_rank(in_file *fs, size_t n, int32_t rank)
{
    for (size_t i = 0; i < n; i++)
        if (!fs[i].skip && fs[i].rank == rank)
            return &fs[i];
    return NULL;
}

/* ns of rank 0's clock (g ticks at tps0). Chooses, in order: the same
 * counter as rank 0 (same host and clock, measurements agreeing to within the
 * round trip), two measurements (offset and drift), one (offset), none
 * (wall clock of the headers). */
static void clock_map(ctx *c, in_file *f, const in_file *r0, ecl_merge_result *res)
{
    double tps0 = r0 != NULL ? r0->tps : f->sync_ref_tps;
    f->t0 = f->start_time;
    if (r0 == NULL || !(tps0 > 0)) {
        /* no reference: wall-clock ns */
        f->b = 1e9 / f->tps;
        f->g0 = (double)f->rt_off + f->b * (double)f->t0;
        f->clock_how = "wall clock (rank 0 missing)";
        res->clock_fallback++;
        return;
    }
    double k = 1e9 / tps0;
    if (f == r0) {
        f->b = k;
        f->g0 = k * (double)f->t0;
        f->clock_how = "reference";
        return;
    }
    int same = strcmp(f->host, r0->host) == 0 && f->clock_source == r0->clock_source &&
               f->clock_source >= 1 && f->clock_source <= 3;
    for (int ph = 0; ph < 2 && same; ph++) {
        if (!f->have_sync[ph])
            continue;
        double d = fabs((double)(int64_t)(f->sync_local[ph] - f->sync_ref[ph]));
        same = d <= (double)f->sync_rtt[ph] / 2 + tps0 * 1e-6;
    }
    if (same) {
        f->b = k;
        f->g0 = k * (double)f->t0;
        f->clock_how = "same clock as rank 0";
        return;
    }
    if (f->have_sync[0] && f->have_sync[1] && f->sync_local[1] > f->sync_local[0]) {
        double s = (double)(int64_t)(f->sync_ref[1] - f->sync_ref[0]) /
                   (double)(f->sync_local[1] - f->sync_local[0]);
        double nominal = tps0 / f->tps;
        if (s > 0.5 * nominal && s < 2 * nominal) {
            f->b = s * k;
            f->g0 = k * ((double)f->sync_ref[0] +
                         s * (double)(int64_t)(f->t0 - f->sync_local[0]));
            f->clock_how = "offset and drift corrected";
            return;
        }
        say(c, 1, "%s (rank %d): the two clock measurements disagree (drift %.3g); "
            "using the first only", f->path, (int)f->rank, s / nominal - 1);
    }
    for (int ph = 0; ph < 2; ph++) {
        if (!f->have_sync[ph])
            continue;
        double s = tps0 / f->tps;
        f->b = s * k;
        f->g0 = k * ((double)f->sync_ref[ph] + s * (double)(int64_t)(f->t0 - f->sync_local[ph]));
        f->clock_how = ph == 0 ? "offset corrected at MPI_Init, drift not corrected"
                               : "offset corrected at MPI_Finalize, drift not corrected";
        res->clock_fallback++;
        return;
    }
    f->b = 1e9 / f->tps;
    f->g0 = (double)(f->rt_off - r0->rt_off) + f->b * (double)f->t0;
    f->clock_how = "no clock measurement: aligned by the wall clock only";
    res->clock_fallback++;
}

static inline double map_ns(const in_file *f, uint64_t t)
{
    return f->g0 + f->b * (double)(int64_t)(t - f->t0);
}

/* ---------------- the merged dictionary ---------------- */

typedef struct mtype {
    char *name;
    const edl_record *src;       /* first definition seen */
    uint32_t id;
} mtype;

static int same_record(const edl_record *a, const edl_record *b)
{
    size_t n = edl_record_field_count(a);
    if (n != edl_record_field_count(b))
        return 0;
    for (size_t i = 0; i < n; i++) {
        const edl_field *x = edl_record_field(a, i), *y = edl_record_field(b, i);
        if (strcmp(edl_field_name(x), edl_field_name(y)) != 0 ||
            edl_field_type(x) != edl_field_type(y) ||
            edl_field_encoding(x) != edl_field_encoding(y) ||
            strcmp(edl_field_unit(x), edl_field_unit(y)) != 0)
            return 0;
    }
    return 1;
}

typedef struct mdict {
    mtype *t;
    size_t n, cap;
    uint8_t *used;               /* ids taken */
} mdict;

static long mdict_find(const mdict *m, const char *name)
{
    for (size_t i = 0; i < m->n; i++)
        if (strcmp(m->t[i].name, name) == 0)
            return (long)i;
    return -1;
}

/* The merged id of a file's type: by name; a name whose fields differ
 * between files gets a new name "<name>_p<process>". */
static int map_type(ctx *c, mdict *m, in_file *f, uint32_t local, const edl_record *r)
{
    char name[300];
    snprintf(name, sizeof name, "%s", edl_record_name(r));
    long i = mdict_find(m, name);
    if (i >= 0 && !same_record(m->t[i].src, r)) {
        say(c, 1, "%s (rank %d): record type '%s' has other fields than in other ranks; "
            "it is renamed '%s_p%u' in the merged trace", f->path, (int)f->rank, name, name,
            (unsigned)f->process);
        snprintf(name, sizeof name, "%s_p%u", edl_record_name(r), (unsigned)f->process);
        i = mdict_find(m, name);
    }
    if (i < 0) {
        if (m->n == m->cap) {
            size_t cap = m->cap ? 2 * m->cap : 256;
            mtype *nt = realloc(m->t, cap * sizeof *nt);
            if (nt == NULL)
                return -1;
            m->t = nt;
            m->cap = cap;
        }
        uint32_t id = local;
        if (id >= MAX_TYPES || m->used[id]) {
            for (id = ECL_REC_USER_FIRST; id < MAX_TYPES && m->used[id]; id++)
                ;
            if (id >= MAX_TYPES)
                return -1;
        }
        m->used[id] = 1;
        m->t[m->n].name = strdup(name);
        m->t[m->n].src = r;
        m->t[m->n].id = id;
        if (m->t[m->n].name == NULL)
            return -1;
        i = (long)m->n++;
    }
    f->prog[local].out_id = (uint16_t)m->t[i].id;
    return 0;
}

/* A field name not taken yet in the merged record r (which starts with
 * type, time, process, thread). */
static void unique_name(const edl_record *r, const char *want, char *out, size_t len)
{
    snprintf(out, len, "%s", want);
    while (edl_record_find_field(r, out) >= 0) {
        size_t l = strlen(out);
        if (l + 2 > len)
            break;
        out[l] = '_';
        out[l + 1] = '\0';
    }
}

static edl_dict *build_dict(ctx *c, mdict *m)
{
    edl_dict *d = NULL;
    size_t i = 0;
    char bo = 'L';
    uint16_t probe = 1;
    if (*(const uint8_t *)&probe == 0)
        bo = 'B';
    if (edl_dict_create("ecl_merged", "1.0", EDL_REPR_BINARY, &d) != EDL_OK ||
        edl_dict_set_binary(d, bo, EDL_FRAMING_ECL) != EDL_OK ||
        edl_dict_set_roles(d, "time", "ns", "process", "thread") != EDL_OK ||
        edl_dict_set_key(d, 1, 0, EDL_NO_KEY) != EDL_OK)
        goto fail;
    for (i = 0; i < m->n; i++) {
        const edl_record *s = m->t[i].src;
        edl_record *r;
        if (edl_dict_add_record(d, m->t[i].name, edl_record_description(s), &r) != EDL_OK ||
            edl_record_add_field(r, "type", EDL_UINT16, EDL_ENC_ULEB, NULL, NULL) != EDL_OK ||
            edl_record_add_field(r, "time", EDL_UINT64, EDL_ENC_TDELTA, "ns", NULL) != EDL_OK ||
            edl_record_add_field(r, "process", EDL_UINT32, EDL_ENC_ULEB, NULL,
                                 "MPI world rank of the process that wrote the record") != EDL_OK ||
            edl_record_add_field(r, "thread", EDL_UINT32, EDL_ENC_ULEB, NULL,
                                 "stream (thread) within that process; 0: definitions") != EDL_OK)
            goto fail;
        for (size_t k = 2; k < edl_record_field_count(s); k++) {
            const edl_field *fd = edl_record_field(s, k);
            char nm[256];
            const char *unit = edl_field_unit(fd);
            unique_name(r, edl_field_name(fd), nm, sizeof nm);
            if (strcmp(nm, edl_field_name(fd)) != 0)
                say(c, 1, "record type '%s': field '%s' is renamed '%s' in the merged trace",
                    m->t[i].name, edl_field_name(fd), nm);
            if (edl_record_add_field(r, nm, edl_field_type(fd), edl_field_encoding(fd),
                                     strcmp(unit, "ticks") == 0 ? "ns" : unit,
                                     edl_field_description(fd)) != EDL_OK)
                goto fail;
        }
    }
    for (i = 0; i < m->n; i++) {
        char key[16];
        snprintf(key, sizeof key, "%u", (unsigned)m->t[i].id);
        if (edl_dict_add_bind(d, key, NULL, m->t[i].name) != EDL_OK)
            goto fail;
    }
    return d;
fail:
    say(c, 0, "error: cannot build the merged dictionary (record %zu of %zu)", i, m->n);
    edl_dict_destroy(d);
    return NULL;
}

/* ---------------- cursors and the heap ---------------- */

/* A chunk of one stream, loaded and decompressed (by the prefetch thread). */
enum { SLOT_EMPTY, SLOT_WANTED, SLOT_READY, SLOT_END };

typedef struct slot {
    uint8_t *zbuf, *buf;
    size_t zcap, cap;
    const uint8_t *data;
    uint32_t raw, count;
    uint64_t first, off;
    int state;                   /* under the prefetcher's lock */
} slot;

typedef struct cursor {
    in_file *f;
    uint32_t stream;
    uint64_t scan;               /* next chunk header to look at (the loader's) */
    slot s[2];                   /* the current chunk and the next one */
    int cs;                      /* index of the current one */
    const uint8_t *p, *end;      /* records of the current chunk */
    uint32_t left;               /* records left in it */
    uint64_t t;                  /* TDELTA sum */
    uint8_t pt[20];              /* process and thread, ULEB-encoded */
    unsigned npt;
    /* the current record */
    uint64_t time;               /* merged ns */
    const tprog *tp;
    const uint8_t *fields, *fields_end;
    uint64_t dur;                /* first field, ticks (tp->ticks_first) */
    const uint8_t *rest;         /* the fields after it */
    uint64_t off;                /* chunk offset, for messages */
} cursor;

/* The prefetch thread: loads, checks and decompresses the next chunk of a
 * stream while the merge works on the current one. */
typedef struct prefetcher {
    ctx *c;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    pthread_t th;
    int on, stop;
    cursor **q;                  /* requests, a ring of ncur */
    size_t ncur, head, n;
} prefetcher;

/* Loads the next chunk of the cursor's stream into s. 0 at the end. */
static int load_next(ctx *c, cursor *cu, slot *s)
{
    chunk_hdr h;
    in_file *f = cu->f;
    while (next_chunk(c, f, &cu->scan, &h, 0)) {
        uint64_t off = cu->scan;
        cu->scan = off + CHUNK_HEADER + h.stored;
        if (h.kind != 1 || h.stream != cu->stream || h.count == 0)
            continue;
        const uint8_t *p = load_payload(c, f, off, &h, &s->zbuf, &s->zcap, &s->buf, &s->cap);
        if (p == NULL)
            continue;
        s->data = p;
        s->raw = h.raw;
        s->count = h.count;
        s->first = h.first_time;
        s->off = off;
        return 1;
    }
    return 0;
}

static void *prefetch_main(void *arg)
{
    prefetcher *pf = arg;
    pthread_mutex_lock(&pf->lock);
    for (;;) {
        while (pf->n == 0 && !pf->stop)
            pthread_cond_wait(&pf->cond, &pf->lock);
        if (pf->n == 0)
            break;
        cursor *cu = pf->q[pf->head];
        pf->head = (pf->head + 1) % pf->ncur;
        pf->n--;
        pthread_mutex_unlock(&pf->lock);
        slot *s = &cu->s[cu->cs ^ 1];
        int st = load_next(pf->c, cu, s) ? SLOT_READY : SLOT_END;
        pthread_mutex_lock(&pf->lock);
        s->state = st;
        pthread_cond_broadcast(&pf->cond);
    }
    pthread_mutex_unlock(&pf->lock);
    return NULL;
}

/* Asks for the chunk after the current one (into the other slot). */
static void want_next(prefetcher *pf, cursor *cu)
{
    slot *s = &cu->s[cu->cs ^ 1];
    if (!pf->on) {
        s->state = load_next(pf->c, cu, s) ? SLOT_READY : SLOT_END;
        return;
    }
    pthread_mutex_lock(&pf->lock);
    s->state = SLOT_WANTED;
    pf->q[(pf->head + pf->n) % pf->ncur] = cu;
    pf->n++;
    pthread_cond_broadcast(&pf->cond);
    pthread_mutex_unlock(&pf->lock);
}

/* Moves to the next chunk of the cursor's stream. 0 at the end. */
static int cursor_chunk(prefetcher *pf, cursor *cu)
{
    slot *s = &cu->s[cu->cs ^ 1];
    int st;
    if (pf->on) {
        pthread_mutex_lock(&pf->lock);
        while (s->state == SLOT_WANTED)
            pthread_cond_wait(&pf->cond, &pf->lock);
        st = s->state;
        pthread_mutex_unlock(&pf->lock);
    } else {
        st = s->state;
    }
    if (st != SLOT_READY)
        return 0;
    cu->cs ^= 1;
    cu->p = s->data;
    cu->end = s->data + s->raw;
    cu->left = s->count;
    cu->t = s->first;
    cu->off = s->off;
    want_next(pf, cu);
    return 1;
}

static void prefetch_stop(prefetcher *pf)
{
    if (!pf->on)
        return;
    pthread_mutex_lock(&pf->lock);
    pf->stop = 1;
    pthread_cond_broadcast(&pf->cond);
    pthread_mutex_unlock(&pf->lock);
    pthread_join(pf->th, NULL);
    pf->on = 0;
}


typedef struct merger {
    ctx *c;
    const ecl_merge_options *o;
    int fd;
    const char *tmp;
    /* the chunk being filled (main thread) */
    uint8_t *chunk;
    size_t chunk_cap, len;
    uint32_t count;
    uint64_t first, last;
    uint64_t records, tmax;
    /* the hand-over to the writer thread, which compresses and writes one
     * chunk while the next is filled (under lock) */
    pthread_mutex_t lock;
    pthread_cond_t cond;
    pthread_t writer;
    int writer_on, queued, stop;
    uint8_t *spare;              /* the buffer the writer gave back */
    size_t spare_cap;
    uint8_t *q_data;             /* the queued chunk */
    size_t q_cap, q_len;
    uint32_t q_count;
    uint64_t q_first, q_last;
    /* the file (writer thread while it runs, else main thread) */
    uint64_t file_off, seq;
    uint8_t *zout;
    size_t zcap;
#ifdef HAVE_ZSTD
    ZSTD_CCtx *zctx;
#endif
    uint8_t *index;
    size_t nindex, index_cap;
    int failed;                  /* atomic: a write failed */
} merger;


/* Decodes the cursor's next record header. 0 when the stream is done. */
static int cursor_next(prefetcher *pf, cursor *cu)
{
    ctx *c = pf->c;
    for (;;) {
        if (cu->left == 0 || cu->p >= cu->end) {
            if (!cursor_chunk(pf, cu))
                return 0;
        }
        uint64_t type, dt;
        const uint8_t *p = cu->p;
        in_file *f = cu->f;
        if (get_uleb(&p, cu->end, &type) && get_uleb(&p, cu->end, &dt) && type < f->nprog &&
            f->prog[type].valid) {
            const tprog *tp = &f->prog[type];
            const uint8_t *q, *rest = p;
            uint64_t d = 0;
            if (tp->ticks_first)
                q = get_uleb(&rest, cu->end, &d) ? skip_fields(tp, 1, rest, cu->end) : NULL;
            else
                q = skip_fields(tp, 0, p, cu->end);
            if (q != NULL) {
                cu->t += dt;
                double ns = map_ns(f, cu->t);
                cu->time = ns > 0 ? (uint64_t)(ns + 0.5) : 0;
                cu->tp = tp;
                cu->dur = d;
                cu->rest = rest;
                cu->fields = p;
                cu->fields_end = q;
                cu->p = q;
                cu->left--;
                return 1;
            }
        }
        f->damaged++;
        say(c, 1, "%s: chunk at byte %" PRIu64 ": a record does not decode; the rest of the "
            "chunk is skipped", f->path, cu->off);
        cu->left = 0;
    }
}

static inline int cur_less(const cursor *a, const cursor *b)
{
    if (a->time != b->time)
        return a->time < b->time;
    if (a->f->process != b->f->process)
        return a->f->process < b->f->process;
    return a->stream < b->stream;
}

static void heap_down(cursor **h, size_t n, size_t i)
{
    cursor *x = h[i];
    for (;;) {
        size_t l = 2 * i + 1;
        if (l >= n)
            break;
        if (l + 1 < n && cur_less(h[l + 1], h[l]))
            l++;
        if (!cur_less(h[l], x))
            break;
        h[i] = h[l];
        i = l;
    }
    h[i] = x;
}

/* ---------------- output ---------------- */

static int write_all(merger *m, const void *p, size_t len, uint64_t off)
{
    const uint8_t *b = p;
    while (len > 0) {
        ssize_t n = pwrite(m->fd, b, len, (off_t)off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            say(m->c, 0, "error: cannot write '%s': %s", m->tmp,
                n < 0 ? strerror(errno) : "short write");
            __atomic_store_n(&m->failed, 1, __ATOMIC_RELEASE);
            return -1;
        }
        b += n;
        len -= (size_t)n;
        off += (uint64_t)n;
    }
    return 0;
}

static void emit_chunk_raw(merger *m, uint8_t kind, const uint8_t *pay, uint32_t stored,
                           uint32_t raw, uint8_t comp, uint32_t count, uint64_t first,
                           uint64_t last, uint64_t seq)
{
    uint8_t h[CHUNK_HEADER];
    memset(h, 0, sizeof h);
    put32(h, CHUNK_MAGIC);
    h[8] = kind;
    h[9] = comp;
    put32(h + 12, stored);
    put32(h + 16, raw);
    put32(h + 20, 0xFFFFFFFFu);
    put32(h + 24, kind == 3 ? 0 : 1);
    put32(h + 28, count);
    put64(h + 32, seq);
    put64(h + 40, first);
    put64(h + 48, last);
    put32(h + 56, (uint32_t)crc32(0L, pay, stored));
    put32(h + 4, (uint32_t)crc32(0L, h + 8, 56));
    if (kind == 1) {
        if (m->nindex == m->index_cap) {
            size_t cap = m->index_cap ? 2 * m->index_cap : 256;
            uint8_t *ni = realloc(m->index, cap * 40);
            if (ni != NULL) {
                m->index = ni;
                m->index_cap = cap;
            }
        }
        if (m->nindex < m->index_cap) {
            uint8_t *e = m->index + 40 * m->nindex++;
            memset(e, 0, 40);
            put64(e, m->file_off);
            put32(e + 8, 0xFFFFFFFFu);
            put32(e + 12, 1);
            put64(e + 16, first);
            put64(e + 24, last);
            put32(e + 32, count);
            e[36] = 1;
        }
    }
    if (write_all(m, h, sizeof h, m->file_off) == 0 &&
        write_all(m, pay, stored, m->file_off + CHUNK_HEADER) == 0)
        m->file_off += CHUNK_HEADER + stored;
}

/* Compresses and writes one chunk (the writer thread, or the main thread
 * when there is none). */
static void write_chunk(merger *m, const uint8_t *raw, size_t len, uint32_t count,
                        uint64_t first, uint64_t last)
{
    const ecl_merge_options *o = m->o;
    const uint8_t *pay = raw;
    uint32_t stored = (uint32_t)len;
    uint8_t comp = 0;
    size_t bound = compressBound((uLong)len) + 64;
#ifdef HAVE_ZSTD
    if (ZSTD_compressBound(len) > bound)
        bound = ZSTD_compressBound(len);
#endif
    if (o->compress != 0 && m->zcap < bound) {
        uint8_t *nz = realloc(m->zout, bound);
        if (nz != NULL) {
            m->zout = nz;
            m->zcap = bound;
        }
    }
    if (o->compress == 1 && m->zcap >= bound) {
        uLongf zl = (uLongf)m->zcap;
        if (compress2(m->zout, &zl, raw, (uLong)len, o->level > 0 ? o->level : 1) == Z_OK &&
            zl < len) {
            pay = m->zout;
            stored = (uint32_t)zl;
            comp = 1;
        }
    }
#ifdef HAVE_ZSTD
    if (o->compress == 2 && m->zctx != NULL && m->zcap >= bound) {
        size_t zl = ZSTD_compressCCtx(m->zctx, m->zout, m->zcap, raw, len,
                                      o->level > 0 ? o->level : 1);
        if (!ZSTD_isError(zl) && zl < len) {
            pay = m->zout;
            stored = (uint32_t)zl;
            comp = 2;
        }
    }
#endif
    emit_chunk_raw(m, 1, pay, stored, (uint32_t)len, comp, count, first, last, m->seq++);
}

static void *writer_main(void *arg)
{
    merger *m = arg;
    pthread_mutex_lock(&m->lock);
    for (;;) {
        while (!m->queued && !m->stop)
            pthread_cond_wait(&m->cond, &m->lock);
        if (!m->queued)
            break;
        pthread_mutex_unlock(&m->lock);
        if (!__atomic_load_n(&m->failed, __ATOMIC_ACQUIRE))
            write_chunk(m, m->q_data, m->q_len, m->q_count, m->q_first, m->q_last);
        pthread_mutex_lock(&m->lock);
        m->spare = m->q_data;
        m->spare_cap = m->q_cap;
        m->q_data = NULL;
        m->queued = 0;
        pthread_cond_broadcast(&m->cond);
    }
    pthread_mutex_unlock(&m->lock);
    return NULL;
}

/* Hands the filled chunk to the writer (waiting while it still writes the
 * previous one) and continues in the spare buffer. */
static void flush_chunk(merger *m)
{
    if (m->count == 0)
        return;
    if (!m->writer_on) {
        write_chunk(m, m->chunk, m->len, m->count, m->first, m->last);
    } else {
        pthread_mutex_lock(&m->lock);
        while (m->queued)
            pthread_cond_wait(&m->cond, &m->lock);
        m->q_data = m->chunk;
        m->q_cap = m->chunk_cap;
        m->q_len = m->len;
        m->q_count = m->count;
        m->q_first = m->first;
        m->q_last = m->last;
        m->chunk = m->spare;
        m->chunk_cap = m->spare_cap;
        m->spare = NULL;
        m->queued = 1;
        pthread_cond_broadcast(&m->cond);
        pthread_mutex_unlock(&m->lock);
    }
    m->len = 0;
    m->count = 0;
}

/* Waits until every chunk is written and ends the writer thread. */
static void writer_stop(merger *m)
{
    if (!m->writer_on)
        return;
    pthread_mutex_lock(&m->lock);
    m->stop = 1;
    pthread_cond_broadcast(&m->cond);
    pthread_mutex_unlock(&m->lock);
    pthread_join(m->writer, NULL);
    m->writer_on = 0;
}

/* ---------------- the message check ---------------- */

typedef struct mq {              /* a FIFO of times */
    uint64_t *v;
    uint64_t *bytes;
    size_t head, n, cap;
} mq;

typedef struct mclass {
    int64_t src, dst, comm, tag;
    int used;
    mq sends, recvs;
} mclass;

typedef struct checker {
    mclass *t;
    size_t cap, n;
    uint64_t matched, violations, bytes_differ;
    double worst;
    int64_t worst_src, worst_dst, worst_tag;
    uint64_t worst_time;
    /* receives freed with MPI_Request_free while active (mpi_complete flag
     * 16): each takes one send left over at the end, whose receive
     * completed unseen; 4 values each: src (-2 any), dst, comm, tag (-1 any) */
    int64_t *unk;
    size_t nunk, capunk;
} checker;

static size_t class_hash(int64_t a, int64_t b, int64_t c, int64_t d)
{
    uint64_t h = (uint64_t)a * 0x9E3779B97F4A7C15ull ^ (uint64_t)b * 0xC2B2AE3D27D4EB4Full ^
                 (uint64_t)c * 0x165667B19E3779F9ull ^ (uint64_t)d * 0x27D4EB2F165667C5ull;
    return (size_t)(h ^ (h >> 29));
}

static mclass *class_get(checker *k, int64_t src, int64_t dst, int64_t comm, int64_t tag)
{
    if (2 * (k->n + 1) > k->cap) {
        size_t cap = k->cap ? 2 * k->cap : 1024;
        mclass *nt = calloc(cap, sizeof *nt);
        if (nt == NULL)
            return NULL;
        for (size_t i = 0; i < k->cap; i++) {
            if (!k->t[i].used)
                continue;
            size_t j = class_hash(k->t[i].src, k->t[i].dst, k->t[i].comm, k->t[i].tag) & (cap - 1);
            while (nt[j].used)
                j = (j + 1) & (cap - 1);
            nt[j] = k->t[i];
        }
        free(k->t);
        k->t = nt;
        k->cap = cap;
    }
    size_t j = class_hash(src, dst, comm, tag) & (k->cap - 1);
    while (k->t[j].used) {
        mclass *m = &k->t[j];
        if (m->src == src && m->dst == dst && m->comm == comm && m->tag == tag)
            return m;
        j = (j + 1) & (k->cap - 1);
    }
    mclass *m = &k->t[j];
    m->used = 1;
    m->src = src;
    m->dst = dst;
    m->comm = comm;
    m->tag = tag;
    k->n++;
    return m;
}

static int mq_push(mq *q, uint64_t v, uint64_t bytes)
{
    if (q->n == q->cap) {
        size_t cap = q->cap ? 2 * q->cap : 8;
        uint64_t *nv = malloc(cap * sizeof *nv), *nb = malloc(cap * sizeof *nb);
        if (nv == NULL || nb == NULL) {
            free(nv);
            free(nb);
            return -1;
        }
        for (size_t i = 0; i < q->n; i++) {
            nv[i] = q->v[(q->head + i) % q->cap];
            nb[i] = q->bytes[(q->head + i) % q->cap];
        }
        free(q->v);
        free(q->bytes);
        q->v = nv;
        q->bytes = nb;
        q->head = 0;
        q->cap = cap;
    }
    q->v[(q->head + q->n) % q->cap] = v;
    q->bytes[(q->head + q->n) % q->cap] = bytes;
    q->n++;
    return 0;
}

static uint64_t mq_pop(mq *q, uint64_t *bytes)
{
    uint64_t v = q->v[q->head];
    *bytes = q->bytes[q->head];
    q->head = (q->head + 1) % q->cap;
    q->n--;
    return v;
}

static void pair(checker *k, const mclass *m, uint64_t send_begin, uint64_t recv_end,
                 uint64_t sbytes, uint64_t rbytes)
{
    k->matched++;
    if (sbytes != rbytes)
        k->bytes_differ++;
    if (recv_end < send_begin) {
        double by = (double)(send_begin - recv_end);
        k->violations++;
        if (by > k->worst) {
            k->worst = by;
            k->worst_src = m->src;
            k->worst_dst = m->dst;
            k->worst_tag = m->tag;
            k->worst_time = recv_end;
        }
    }
}

static void check_send(checker *k, int64_t src, int64_t dst, int64_t comm, int64_t tag,
                       uint64_t begin, uint64_t bytes)
{
    if (dst < 0 || k == NULL)
        return;
    mclass *m = class_get(k, src, dst, comm, tag);
    if (m == NULL)
        return;
    if (m->recvs.n > 0) {
        uint64_t rb, r = mq_pop(&m->recvs, &rb);
        pair(k, m, begin, r, bytes, rb);
    } else {
        mq_push(&m->sends, begin, bytes);
    }
}

static void check_recv(checker *k, int64_t src, int64_t dst, int64_t comm, int64_t tag,
                       uint64_t end, uint64_t bytes)
{
    if (src < 0 || k == NULL)
        return;
    mclass *m = class_get(k, src, dst, comm, tag);
    if (m == NULL)
        return;
    if (m->sends.n > 0) {
        uint64_t sb, s = mq_pop(&m->sends, &sb);
        pair(k, m, s, end, sb, bytes);
    } else {
        mq_push(&m->recvs, end, bytes);
    }
}

static void unknown_recv(checker *k, int64_t src, int64_t dst, int64_t comm, int64_t tag)
{
    if (k->nunk == k->capunk) {
        size_t cap = k->capunk ? 2 * k->capunk : 16;
        int64_t *n = realloc(k->unk, cap * 4 * sizeof *n);
        if (n == NULL)
            return;
        k->unk = n;
        k->capunk = cap;
    }
    int64_t *u = k->unk + 4 * k->nunk++;
    u[0] = src;
    u[1] = dst;
    u[2] = comm;
    u[3] = tag;
}

/* Pairs the sends left over with the receives of unknown completion that
 * could have taken them; returns how many. */
static uint64_t pair_unknown(checker *k)
{
    uint64_t n = 0;
    for (size_t j = 0; j < k->nunk; j++) {
        const int64_t *u = k->unk + 4 * j;
        for (size_t i = 0; i < k->cap; i++) {
            mclass *m = &k->t[i];
            if (m->used && m->sends.n > 0 && m->dst == u[1] && m->comm == u[2] &&
                (u[0] == -2 || m->src == u[0]) && (u[3] == -1 || m->tag == u[3])) {
                uint64_t b;
                mq_pop(&m->sends, &b);
                n++;
                break;
            }
        }
    }
    free(k->unk);
    k->unk = NULL;
    k->nunk = 0;
    return n;
}

/* The check's view of one record (time and durations already in ns). */
static void check_record(checker *k, const cursor *cu, uint64_t time)
{
    const tprog *tp = cu->tp;
    uint64_t v[MAX_OPS];
    if (tp->role == ROLE_NONE || !read_fields(tp, cu->fields, cu->fields_end, v))
        return;
    int64_t me = cu->f->process;
    uint64_t dur = tp->f_dur >= 0 ? (uint64_t)llround((double)v[tp->f_dur] * cu->f->b) : 0;
    uint64_t begin = time > dur ? time - dur : 0;
    int64_t peer = (int64_t)v[tp->f_peer], tag = (int64_t)v[tp->f_tag];
    int64_t comm = (int64_t)v[tp->f_comm];
    uint64_t bytes = v[tp->f_bytes];
    switch (tp->role) {
    case ROLE_SEND:
        check_send(k, me, peer, comm, tag, begin, bytes);
        break;
    case ROLE_RECV:
        check_recv(k, peer, me, comm, tag, time, bytes);
        break;
    case ROLE_SENDRECV:
        check_send(k, me, peer, comm, tag, begin, bytes);
        check_recv(k, (int64_t)v[tp->f_src], me, comm, (int64_t)v[tp->f_rtag], time,
                   v[tp->f_rbytes]);
        break;
    case ROLE_COMPLETE:
        if (v[tp->f_kind] == 1 && tp->f_flags >= 0 && (v[tp->f_flags] & 16))
            unknown_recv(k, peer, me, comm, tag);
        else if (v[tp->f_kind] == 1 && !(tp->f_flags >= 0 && (v[tp->f_flags] & 1)))
            check_recv(k, peer, me, comm, tag, time, bytes);
        break;
    case ROLE_STARTED:
        if (v[tp->f_kind] == 0)
            check_send(k, me, peer, comm, tag, time, bytes);
        break;
    default:
        break;
    }
}

static void checker_free(checker *k, uint64_t *us, uint64_t *ur, uint64_t *unknown)
{
    *unknown = pair_unknown(k);
    *us = *ur = 0;
    for (size_t i = 0; i < k->cap; i++) {
        if (!k->t[i].used)
            continue;
        *us += k->t[i].sends.n;
        *ur += k->t[i].recvs.n;
        free(k->t[i].sends.v);
        free(k->t[i].sends.bytes);
        free(k->t[i].recvs.v);
        free(k->t[i].recvs.bytes);
    }
    free(k->t);
}

/* ---------------- the merge ---------------- */

static void emit(merger *m, cursor *cu, uint64_t time)
{
    const tprog *tp = cu->tp;
    size_t flen = (size_t)(cu->fields_end - cu->fields);
    size_t need = 40 + flen + (tp->has_ticks ? 10u * tp->nops : 0);
    if (ECL_MERGE_UNLIKELY(m->len + need > m->chunk_cap)) {
        flush_chunk(m);
        if (need > m->chunk_cap) {
            uint8_t *nc = realloc(m->chunk, need);
            if (nc == NULL) {
                __atomic_store_n(&m->failed, 1, __ATOMIC_RELEASE);
                return;
            }
            m->chunk = nc;
            m->chunk_cap = need;
        }
    }
    if (m->count == 0)
        m->first = m->last = time;
    uint8_t *p = m->chunk + m->len;
    *p = (uint8_t)tp->out_id;
    p = tp->out_id < 0x80 ? p + 1 : put_uleb(p, tp->out_id);
    p = put_uleb(p, time - m->last);
    memcpy(p, cu->pt, cu->npt);
    p += cu->npt;
    if (tp->ticks_first) {
        /* MPI call records: the duration, then the rest as it is */
        p = put_uleb(p, (uint64_t)((double)cu->dur * cu->f->b + 0.5));
        size_t rl = (size_t)(cu->fields_end - cu->rest);
        memcpy(p, cu->rest, rl);
        p += rl;
    } else if (!tp->has_ticks) {
        memcpy(p, cu->fields, flen);
        p += flen;
    } else {
        const uint8_t *q = cu->fields, *end = cu->fields_end;
        for (unsigned i = 0; i < tp->nops; i++) {
            const uint8_t *s = q;
            uint64_t x = 0;
            switch (tp->op[i]) {
            case OP_TICKS:
                get_uleb(&q, end, &x);
                p = put_uleb(p, (uint64_t)((double)x * cu->f->b + 0.5));
                continue;
            case OP_ULEB: case OP_SLEB:
                get_uleb(&q, end, &x);
                break;
            case OP_STR:
                get_uleb(&q, end, &x);
                q += x;
                break;
            case OP_FIX1: q += 1; break;
            case OP_FIX2: q += 2; break;
            case OP_FIX4: q += 4; break;
            default: q += 8; break;
            }
            memcpy(p, s, (size_t)(q - s));
            p += q - s;
        }
    }
    m->len = (size_t)(p - m->chunk);
    m->last = time;
    m->count++;
    m->records++;
}

static int header_write(merger *m, const edl_dict *d, const in_file *ref, double origin,
                        int32_t size)
{
    unsigned char *dict;
    size_t dlen;
    if (edl_dict_encode(d, &dict, &dlen) != EDL_OK)
        return -1;
    size_t hlen = (FIXED_HEADER + dlen + 7) & ~(size_t)7;
    uint8_t *h = calloc(1, hlen);
    if (h == NULL) {
        free(dict);
        return -1;
    }
    memcpy(h, "ECLTRACE", 8);
    h[8] = 1;
    put32(h + 12, (uint32_t)hlen);
    h[20] = (uint8_t)edl_dict_byte_order(d);
    h[21] = ref != NULL ? (uint8_t)ref->clock_source : 0;
    double tps = 1e9;
    uint64_t tb;
    memcpy(&tb, &tps, 8);
    put64(h + 24, tb);
    /* time 0 of the merged trace is `origin` ns of rank 0's clock */
    int64_t rt = ref != NULL ? ref->rt_off + (int64_t)llround(origin) : (int64_t)llround(origin);
    put64(h + 32, (uint64_t)rt);
    put32(h + 40, 0);
    put32(h + 44, 0xFFFFFFFFu);
    put32(h + 48, (uint32_t)size);
    put64(h + 56, 0);
    if (ref != NULL)
        memcpy(h + 64, ref->host, strnlen(ref->host, 64));
    put32(h + 128, FIXED_HEADER);
    put32(h + 132, (uint32_t)dlen);
    memcpy(h + FIXED_HEADER, dict, dlen);
    free(dict);
    put32(h + 16, (uint32_t)crc32(0L, h, (uInt)hlen));
    int rc = write_all(m, h, hlen, 0);
    free(h);
    m->file_off = hlen;
    return rc;
}

static void write_index(merger *m)
{
    if (m->nindex == 0 || m->failed)
        return;
    uint64_t first = UINT64_MAX, last = 0;
    for (size_t i = 0; i < m->nindex; i++) {
        uint64_t a = le64(m->index + 40 * i + 16), b = le64(m->index + 40 * i + 24);
        if (a < first)
            first = a;
        if (b > last)
            last = b;
    }
    uint64_t at = m->file_off;
    emit_chunk_raw(m, 3, m->index, (uint32_t)(40 * m->nindex), (uint32_t)(40 * m->nindex), 0,
                   (uint32_t)m->nindex, first, last, m->seq++);
    uint8_t foot[16];
    memcpy(foot, "ECLINDEX", 8);
    put64(foot + 8, at);
    if (write_all(m, foot, 16, m->file_off) == 0)
        m->file_off += 16;
}

void ecl_merge_options_default(ecl_merge_options *o)
{
    memset(o, 0, sizeof *o);
    o->tool = "ecl-merge";
#ifdef HAVE_ZSTD
    o->compress = 2;
#else
    o->compress = 1;
#endif
    o->check = 1;
    o->chunk_size = 1u << 20;
}

static double secs(double ns)
{
    return ns / 1e9;
}

int ecl_merge_run(const char *const *inputs, size_t n, const char *output,
                  const ecl_merge_options *opt, ecl_merge_result *res_out)
{
    ecl_merge_options o = *opt;
    ctx c = { &o, 0 };
    ecl_merge_result res;
    memset(&res, 0, sizeof res);
    if (o.chunk_size < 4096)
        o.chunk_size = 4096;
    int status = 1;
    in_file *fs = calloc(n ? n : 1, sizeof *fs);
    mdict md = { NULL, 0, 0, calloc(MAX_TYPES, 1) };
    cursor *cus = NULL;
    cursor **heap = NULL;
    size_t ncur = 0;
    edl_dict *dict = NULL;
    merger m;
    memset(&m, 0, sizeof m);
    m.c = &c;
    m.o = &o;
    m.fd = -1;
    pthread_mutex_init(&m.lock, NULL);
    pthread_cond_init(&m.cond, NULL);
    char *tmp = NULL;
    checker chk;
    memset(&chk, 0, sizeof chk);
    prefetcher pf;
    memset(&pf, 0, sizeof pf);
    pf.c = &c;
    pthread_mutex_init(&pf.lock, NULL);
    pthread_cond_init(&pf.cond, NULL);
    if (fs == NULL || md.used == NULL)
        goto oom;

    /* pass 1 */
    int32_t wsize = o.expect_size;
    for (size_t i = 0; i < n; i++) {
        fs[i].path = inputs[i];
        fs[i].fd = -1;
        if (open_input(&c, &fs[i]) != 0) {
            fs[i].skip = 1;
            continue;
        }
        res.files++;
        if (fs[i].wsize > wsize)
            wsize = fs[i].wsize;
    }
    /* processes: world ranks; a file without a rank (it died before
     * MPI_Init, or a non-MPI trace) gets a number after them */
    uint32_t extra = wsize > 0 ? (uint32_t)wsize : 0;
    for (size_t i = 0; i < n; i++) {
        if (fs[i].skip)
            continue;
        if (fs[i].rank < 0) {
            fs[i].process = extra++;
            say(&c, 1, "%s: no MPI rank in the header (the process died before MPI_Init or is "
                "not an MPI program); merged as process %u", fs[i].path, (unsigned)fs[i].process);
            continue;
        }
        fs[i].process = (uint32_t)fs[i].rank;
        for (size_t j = 0; j < i; j++)
            if (!fs[j].skip && fs[j].rank == fs[i].rank) {
                say(&c, 1, "%s: rank %d again (already in '%s'); file ignored", fs[i].path,
                    (int)fs[i].rank, fs[j].path);
                fs[i].skip = 1;
                res.files--;
                break;
            }
    }
    if (res.files == 0) {
        say(&c, 0, "error: no readable trace to merge");
        goto out;
    }
    for (int32_t r = 0; r < wsize; r++)
        if (find_rank(fs, n, r) == NULL) {
            res.missing++;
            say(&c, 1, "rank %d: no trace among the inputs: its records are missing from the "
                "merged trace", (int)r);
        }
    const in_file *r0 = find_rank(fs, n, 0);
    double end_ns = 0;
    for (size_t i = 0; i < n; i++) {
        if (fs[i].skip)
            continue;
        res.ranks += fs[i].rank >= 0;
        clock_map(&c, &fs[i], r0, &res);
        double e = map_ns(&fs[i], fs[i].end_time);
        if (e > end_ns)
            end_ns = e;
    }
    double origin = HUGE_VAL;
    for (size_t i = 0; i < n; i++)
        if (!fs[i].skip && map_ns(&fs[i], fs[i].start_time) < origin)
            origin = map_ns(&fs[i], fs[i].start_time);
    for (size_t i = 0; i < n; i++) {
        in_file *f = &fs[i];
        if (f->skip)
            continue;
        f->g0 -= origin;
        if (!f->closed) {
            res.incomplete++;
            double fe = map_ns(f, f->end_time);
            say(&c, 1, "%s (rank %d): the trace was not closed (the process died or was "
                "killed): it ends at %.6f s, %.6f s before the last record of the run; "
                "whatever it recorded after its last complete chunk is missing",
                f->path, (int)f->rank, secs(fe), secs(end_ns - origin - fe));
        }
        if (o.verbose || (f->rank >= 0 && strncmp(f->clock_how, "same", 4) != 0 &&
                          strcmp(f->clock_how, "reference") != 0 &&
                          strcmp(f->clock_how, "offset and drift corrected") != 0))
            say(&c, strcmp(f->clock_how, "reference") != 0 &&
                        strncmp(f->clock_how, "same", 4) != 0 &&
                        strcmp(f->clock_how, "offset and drift corrected") != 0,
                "%s (rank %d): clock: %s", f->path, (int)f->rank, f->clock_how);
    }

    /* the merged dictionary */
    for (size_t i = 0; i < n; i++) {
        in_file *f = &fs[i];
        if (f->skip)
            continue;
        for (size_t b = 0; b < edl_dict_bind_count(f->dict); b++) {
            edl_bind bd = edl_dict_bind(f->dict, b);
            unsigned long id = strtoul(bd.key1, NULL, 10);
            if (id < f->nprog && f->prog[id].valid &&
                map_type(&c, &md, f, (uint32_t)id, edl_dict_record(f->dict, bd.record)) != 0)
                goto oom;
        }
    }
    dict = build_dict(&c, &md);
    if (dict == NULL)
        goto out;

    /* output */
    size_t tl = strlen(output) + 32;
    tmp = malloc(tl);
    if (tmp == NULL)
        goto oom;
    snprintf(tmp, tl, "%s.tmp.%ld", output, (long)getpid());
    m.tmp = tmp;
    m.fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (m.fd < 0) {
        say(&c, 0, "error: cannot create '%s': %s", tmp, strerror(errno));
        goto out;
    }
    m.chunk_cap = o.chunk_size;
    m.chunk = malloc(m.chunk_cap);
    m.zcap = compressBound((uLong)m.chunk_cap) + m.chunk_cap;
#ifdef HAVE_ZSTD
    if (ZSTD_compressBound(m.chunk_cap) > m.zcap)
        m.zcap = ZSTD_compressBound(m.chunk_cap);
    if (o.compress == 2)
        m.zctx = ZSTD_createCCtx();
#endif
    m.zout = malloc(m.zcap);
    m.spare = malloc(m.chunk_cap);
    m.spare_cap = m.chunk_cap;
    if (m.chunk == NULL || m.zout == NULL || m.spare == NULL)
        goto oom;
    if (header_write(&m, dict, r0, origin, wsize > 0 ? wsize : (int32_t)extra) != 0)
        goto out;
    /* compressing and writing run beside the merge (without the thread,
     * in line) */
    m.writer_on = pthread_create(&m.writer, NULL, writer_main, &m) == 0;

    /* cursors */
    for (size_t i = 0; i < n; i++)
        if (!fs[i].skip)
            ncur += fs[i].nstreams;
    cus = calloc(ncur ? ncur : 1, sizeof *cus);
    heap = calloc(ncur ? ncur : 1, sizeof *heap);
    pf.q = calloc(ncur ? ncur : 1, sizeof *pf.q);
    pf.ncur = ncur ? ncur : 1;
    if (cus == NULL || heap == NULL || pf.q == NULL)
        goto oom;
    pf.on = pthread_create(&pf.th, NULL, prefetch_main, &pf) == 0;
    size_t nh = 0, k = 0;
    for (size_t i = 0; i < n; i++) {
        if (fs[i].skip)
            continue;
        for (unsigned s = 0; s < fs[i].nstreams; s++, k++) {
            cus[k].f = &fs[i];
            cus[k].stream = fs[i].streams[s];
            cus[k].scan = fs[i].header_len;
            uint8_t *e = put_uleb(cus[k].pt, fs[i].process);
            e = put_uleb(e, cus[k].stream);
            cus[k].npt = (unsigned)(e - cus[k].pt);
            cus[k].cs = 1;
            want_next(&pf, &cus[k]);
            if (cursor_next(&pf, &cus[k]))
                heap[nh++] = &cus[k];
        }
    }
    for (size_t i = nh; i-- > 0;)
        heap_down(heap, nh, i);
    checker *kp = o.check ? &chk : NULL;
    while (nh > 0 && !__atomic_load_n(&m.failed, __ATOMIC_ACQUIRE)) {
        cursor *cu = heap[0];
        uint64_t t = cu->time;
        if (t < m.tmax)
            t = m.tmax;                  /* rounding never puts a record before the last */
        m.tmax = t;
        emit(&m, cu, t);
        if (kp != NULL && cu->tp->role != ROLE_NONE)
            check_record(kp, cu, t);
        if (cursor_next(&pf, cu)) {
            heap_down(heap, nh, 0);
        } else {
            heap[0] = heap[--nh];
            if (nh > 0)
                heap_down(heap, nh, 0);
        }
    }
    flush_chunk(&m);
    writer_stop(&m);
    write_index(&m);
    if (m.failed)
        goto out;
    if (fsync(m.fd) != 0 && errno != EINVAL) {
        say(&c, 0, "error: cannot write '%s': %s", tmp, strerror(errno));
        goto out;
    }
    close(m.fd);
    m.fd = -1;
    if (rename(tmp, output) != 0) {
        say(&c, 0, "error: cannot rename '%s' to '%s': %s", tmp, output, strerror(errno));
        goto out;
    }
    res.records = m.records;
    res.chunks = m.seq;
    uint64_t dmg = 0;
    for (size_t i = 0; i < n; i++)
        dmg += fs[i].damaged;
    res.damaged = dmg;
    if (o.check) {
        res.messages = chk.matched;
        res.violations = chk.violations;
        res.max_violation_ns = chk.worst;
        if (chk.violations > 0)
            say(&c, 1, "the clocks could not be fully corrected: %" PRIu64 " of %" PRIu64
                " receives complete before their send begins, by up to %.3f us (rank %lld -> "
                "rank %lld, tag %lld, at %.6f s)", chk.violations, chk.matched, chk.worst / 1e3,
                (long long)chk.worst_src, (long long)chk.worst_dst, (long long)chk.worst_tag,
                secs((double)chk.worst_time));
        if (chk.bytes_differ > 0)
            say(&c, 1, "%" PRIu64 " sends were paired with receives of another size", chk.bytes_differ);
    }
    status = c.problems ? 2 : 0;
    goto out;
oom:
    say(&c, 0, "error: out of memory");
out:
    prefetch_stop(&pf);
    writer_stop(&m);
    if (o.check) {
        checker_free(&chk, &res.unmatched_sends, &res.unmatched_recvs, &res.completion_unknown);
        if (status != 1 && res.completion_unknown && (o.verbose || c.problems ||
                                                      res.unmatched_sends || res.unmatched_recvs))
            say(&c, 0, "%" PRIu64 " sends went to receives freed with MPI_Request_free: their "
                "completion is unknown", res.completion_unknown);
        if (status != 1 && (res.unmatched_sends || res.unmatched_recvs))
            say(&c, 1, "%" PRIu64 " sends without a receive and %" PRIu64 " receives without a "
                "send in the merged trace%s", res.unmatched_sends, res.unmatched_recvs,
                res.incomplete || res.missing ? " (ranks are missing or incomplete)" : "");
        if (status == 0 && c.problems)
            status = 2;
    }
    if (status != 1 && (o.verbose || status == 2))
        say(&c, 0, "merged %u files (%u ranks, %zu streams) into '%s': %" PRIu64 " records; "
            "%" PRIu64 " messages matched%s", res.files, res.ranks, ncur, output, res.records,
            res.messages, status == 2 ? "; see the warnings above" : "");
    if (m.fd >= 0) {
        close(m.fd);
        if (tmp != NULL)
            unlink(tmp);
    }
#ifdef HAVE_ZSTD
    ZSTD_freeCCtx(m.zctx);
#endif
    free(m.chunk);
    free(m.spare);
    free(m.q_data);
    free(m.zout);
    pthread_mutex_destroy(&m.lock);
    pthread_cond_destroy(&m.cond);
    free(m.index);
    free(tmp);
    for (size_t i = 0; cus != NULL && i < ncur; i++)
        for (int j = 0; j < 2; j++) {
            free(cus[i].s[j].zbuf);
            free(cus[i].s[j].buf);
        }
    free(pf.q);
    pthread_mutex_destroy(&pf.lock);
    pthread_cond_destroy(&pf.cond);
    free(cus);
    free(heap);
    edl_dict_destroy(dict);
    for (size_t i = 0; md.t != NULL && i < md.n; i++)
        free(md.t[i].name);
    free(md.t);
    free(md.used);
    for (size_t i = 0; fs != NULL && i < n; i++) {
        if (fs[i].fd >= 0)
            close(fs[i].fd);
        edl_dict_destroy(fs[i].dict);
        free(fs[i].prog);
        free(fs[i].streams);
    }
    free(fs);
    if (res_out != NULL)
        *res_out = res;
    return status;
}
