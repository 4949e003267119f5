/* merge.c -- PAL: merging the per-rank traces of a run into one file: the
 * run read as one time-ordered, clock-corrected stream (run.c) written back
 * through the trace writer (writer.c), each record with its process and
 * thread (doc/trace-format.md, "Merged traces"). On the way, sends are
 * paired with receives by the event layer's one matcher (pal_events, read
 * instead of the records): a receive that completes before its send began
 * means the clocks could not be corrected well enough. Problems go to the
 * diagnostics callback; nothing is printed from here. */
#include <config.h>

#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pal/reader-internal.h"
#include "pal/writer.h"

#if defined(__linux__) && defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 27)
#define PAL_HAVE_COPY_FILE_RANGE 1   /* glibc 2.27 */
#endif
#define PAL_COPY_BUFFER ((size_t)1 << 20)  /* a copy that cannot be made in the kernel */

/* ---------------------------------------------------------------- messages */

typedef struct mctx {
    const pal_merge_options *o;
    pal_merge_result *res;
} mctx;

static void PAL_PRINTF(2, 3) say(mctx *c, const char *fmt, ...)
{
    char line[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    c->res->problems++;
    if (c->o->diag)
        c->o->diag(c->o->diag_ctx, line);
}

static void say_line(void *ctx, const char *line)
{
    say(ctx, "%s", line);
}

/* ---------------------------------------------------------------- the merge */

void pal_merge_options_default(pal_merge_options *o)
{
    memset(o, 0, sizeof *o);
    o->size = sizeof *o;
    o->compress = -1;                /* the format's own: merge_method */
    o->chunk_size = (size_t)64 << 10;
    o->check = -1;                   /* the format's own: on for 2, off for 3 */
    o->format = 3;
}

/* What output chunks are compressed with: the format's default for -1
 * (format 2: zstd when built with it, else zlib; format 3: none, the chunks
 * kept as written). -1 when the method is unknown to this build. */
static int merge_method(const pal_merge_options *o)
{
    if (o->compress < 0)
        return o->format == 3 ? ECC_COMP_NONE
                              : ecc_have_compression(ECC_COMP_ZSTD) ? ECC_COMP_ZSTD : ECC_COMP_ZLIB;
    return o->compress <= ECC_COMP_ZSTD && ecc_have_compression(o->compress) ? o->compress : -1;
}

static double secs(double ns)
{
    return ns / 1e9;
}

/* The reader's messages go to the merge's callback, counted as problems. */
static void reader_diag(void *ctx, const char *message)
{
    mctx *c = ctx;
    c->res->problems++;
    if (c->o->diag)
        c->o->diag(c->o->diag_ctx, message);
}

/* ---------------------------------------------------------------- both forms */

/* After the run opened: ranks the caller says it had without a file, and
 * with verbose the clock model of each. */
static void opened(mctx *c, pal_reader *r)
{
    const pal_merge_options *o = c->o;
    for (int k = r->info.size; k < o->ranks; k++) {
        c->res->missing++;
        say(c, "rank %d: no trace among the inputs: its records are missing", k);
    }
    if (o->verbose && o->diag)
        for (size_t i = 0; i < r->nsrcs; i++) {
            char line[1200];
            snprintf(line, sizeof line, "%s (rank %d): clock: %s", r->srcs[i].path,
                     (int)r->srcs[i].hdr.rank, r->srcs[i].clock_how);
            o->diag(o->diag_ctx, line);
        }
}

/* What the reader found, into the result. */
static void read_stats(mctx *c, pal_reader *r)
{
    pal_merge_result *res = c->res;
    pal_reader_stats rs;
    pal_reader_get_stats(r, &rs);
    res->files = rs.files;
    res->damaged = rs.damaged;
    res->incomplete = rs.not_closed;
    res->missing += rs.ranks_missing;
    res->clock_fallback = rs.clock_fallbacks;
    if (rs.lost)          /* kept in the merged trace, and a problem all the same */
        say(c, "%" PRIu64 " records were dropped while tracing (counted in `lost` records); "
            "the merged trace lacks them", rs.lost);
    for (size_t i = 0; i < r->nsrcs; i++)
        res->ranks += r->srcs[i].hdr.rank >= 0;
}

/* ---------------------------------------------------------------- the run file (format 3) */

static uint64_t align_up(uint64_t v, uint64_t a)
{
    return (v + a - 1) / a * a;
}

/* Copies length bytes of in (from byte 0) to out at off: in the kernel
 * (copy_file_range: a reflink where the file system shares blocks), else
 * through a buffer. 0, or -1 with why in err. */
static int copy_member(int in, ecc_out *out, uint64_t length, uint64_t off, uint8_t **buf,
                       char *err, size_t errlen)
{
    uint64_t pos = 0;
    int kernel = 1;
    while (pos < length) {
        size_t want = length - pos > ((size_t)64 << 20) ? (size_t)64 << 20 : (size_t)(length - pos);
        ssize_t got = -1;
#ifdef PAL_HAVE_COPY_FILE_RANGE
        if (kernel) {
            off_t ip = (off_t)pos, op = (off_t)(off + pos);
            got = copy_file_range(in, &ip, ecc_out_fd(out), &op, want, 0);
            if (got < 0 && errno == EINTR)
                continue;
            if (got <= 0) {
                if (got < 0 && errno != EXDEV && errno != ENOSYS && errno != EINVAL &&
                    errno != EOPNOTSUPP && errno != EBADF && errno != EPERM) {
                    snprintf(err, errlen, "%s", strerror(errno));
                    return -1;
                }
                kernel = 0;
                continue;
            }
        }
#else
        kernel = 0;
#endif
        if (!kernel) {
            if (!*buf && !(*buf = malloc(PAL_COPY_BUFFER))) {
                snprintf(err, errlen, "out of memory");
                return -1;
            }
            if (want > PAL_COPY_BUFFER)
                want = PAL_COPY_BUFFER;
            if (ecc_read_at(in, *buf, want, pos) != 0) {
                snprintf(err, errlen, "%s", errno ? strerror(errno)
                                                  : "the trace is shorter than when it was read");
                return -1;
            }
            if (ecc_out_write_at(out, *buf, want, off + pos, err, errlen) != 0)
                return -1;
            got = (ssize_t)want;
        }
        pos += (uint64_t)got;
    }
    return 0;
}

/* ---------------------------------------------------------------- recompression (format 3) */

/* With a compression method, each member is copied chunk by chunk, and
 * the records chunks its writer stored raw are compressed on the way
 * (their payload as it is: no record is decoded). Everything else -- the
 * header, definitions' dictionary chunks, chunks already compressed,
 * damaged bytes, a cut end -- is copied byte for byte, so a reader finds
 * the same damage. Chunks move, so the member's own index chunk and footer
 * are written with the new offsets, and so are the run's stream tables.
 * Members start at multiples of 8, not 4096: their bytes differ from the
 * per-rank files', so no file system can share their blocks, and 4,096
 * small members would carry 8 MB of padding.
 * Work goes in batches: the input of up to ZBATCH bytes is read, its
 * chunks compressed by up to ZTHREADS threads, then written in order
 * through a staging buffer in large writes. Memory does not depend on the
 * records: the batch, the staging buffer and, per member, one offset pair
 * per chunk while it is written. */
#define ZBATCH ((size_t)8 << 20)
#define ZSTAGE ((size_t)4 << 20)
#define ZTHREADS 8

enum {
    Z_COPY,                          /* bytes as they are (header, damage, a cut end) */
    Z_CHUNK,                         /* a raw records chunk's payload, to compress */
    Z_INDEX,                         /* the member's index chunk's payload: offsets change */
    Z_KEEP,                          /* a chunk as it is, header and payload: it moves */
    Z_FOOTER,                        /* the member's footer: the index moves */
    Z_END                            /* the member is complete */
};

typedef struct zitem {
    int what;                        /* Z_* */
    uint32_t member;
    uint64_t src;                    /* source offset (Z_END: -) */
    uint64_t len;                    /* Z_COPY: bytes; Z_CHUNK, Z_INDEX: payload bytes */
    size_t in;                       /* the bytes in the batch's input */
    size_t zlen;                     /* Z_CHUNK: compressed payload bytes, 0 stored raw */
    size_t zout;                     /* ... in the batch's output */
    ecc_chunk c;                     /* Z_CHUNK, Z_INDEX: its header; Z_FOOTER: c.sequence
                                      * holds the index offset it names */
} zitem;

typedef struct zmap {
    uint64_t from, to;               /* a chunk's offset in the member, before and after */
} zmap;

typedef struct zcopy {
    int method;
    ecc_zctx *z[ZTHREADS];
    int nz;
    /* the batch */
    zitem *items;
    size_t nitems, capitems;
    uint8_t *in, *out;
    size_t inlen, incap, outcap;
    size_t next;                     /* the next item a compressor takes */
    pthread_mutex_t lock;
    /* the output: bytes [stage_off, stage_off + stagelen) wait in stage */
    int fd;
    uint8_t *stage;
    size_t stagelen;
    uint64_t stage_off, pos;         /* pos: where the next byte goes */
    /* the member being written */
    zmap *map;
    size_t nmap, capmap;
    uint64_t member_start;
    /* progress */
    uint64_t done, total;
    char err[512];
} zcopy;

static int zput(zcopy *zc, const void *p, size_t n)
{
    const uint8_t *b = p;
    while (n > 0) {
        size_t k = ZSTAGE - zc->stagelen < n ? ZSTAGE - zc->stagelen : n;
        memcpy(zc->stage + zc->stagelen, b, k);
        zc->stagelen += k;
        zc->pos += k;
        b += k;
        n -= k;
        if (zc->stagelen == ZSTAGE) {
            for (size_t w = 0; w < zc->stagelen;) {
                ssize_t got = pwrite(zc->fd, zc->stage + w, zc->stagelen - w,
                                     (off_t)(zc->stage_off + w));
                if (got < 0 && errno == EINTR)
                    continue;
                if (got <= 0) {
                    snprintf(zc->err, sizeof zc->err, "%s", got < 0 ? strerror(errno)
                                                                   : "nothing written");
                    return -1;
                }
                w += (size_t)got;
            }
            zc->stage_off += zc->stagelen;
            zc->stagelen = 0;
        }
    }
    return 0;
}

static int zpad(zcopy *zc, uint64_t to)
{
    static const uint8_t zero[512];
    while (zc->pos < to) {
        size_t k = to - zc->pos < sizeof zero ? (size_t)(to - zc->pos) : sizeof zero;
        if (zput(zc, zero, k) != 0)
            return -1;
    }
    return 0;
}

/* The new offset of the member's chunk at from (in the member), or from when
 * it is not a chunk the copy has written. */
static uint64_t zmap_find(const zcopy *zc, uint64_t from)
{
    size_t lo = 0, hi = zc->nmap;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (zc->map[mid].from < from)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < zc->nmap && zc->map[lo].from == from ? zc->map[lo].to : from;
}

static void *zworker(void *arg)
{
    zcopy *zc = ((void **)arg)[0];
    ecc_zctx *z = ((void **)arg)[1];
    for (;;) {
        pthread_mutex_lock(&zc->lock);
        size_t i = zc->next;
        while (i < zc->nitems && zc->items[i].what != Z_CHUNK)
            i++;
        zc->next = i < zc->nitems ? i + 1 : i;
        pthread_mutex_unlock(&zc->lock);
        if (i >= zc->nitems)
            return NULL;
        zitem *it = &zc->items[i];
        /* stored compressed only when it is smaller */
        it->zlen = ecc_compress_into(z, zc->in + it->in, (size_t)it->len, zc->out + it->zout,
                                     (size_t)it->len - 1);
    }
}

/* Compresses the batch's chunks, then writes its items in order. A member
 * ends with its Z_END item: its entry and stream table are filled then. */
typedef struct zmember {
    ecc_run_member *mem;
    pal_src *srcs;
    uint8_t *index;                  /* the run's index, stream tables at mem[i].streams_offset */
} zmember;

static void zmember_end(zcopy *zc, zmember *zm, uint32_t i)
{
    ecc_run_member *m = &zm->mem[i];
    const pal_src *f = &zm->srcs[i];
    m->length = zc->pos - m->offset;
    uint8_t *t = zm->index + m->streams_offset, *p = t + 8;
    ecc_run_streams_begin(t, m->nstreams);
    for (const pal_stream *x = f->streams; x; x = x->src_next) {
        ecc_run_stream rs = { x->stream, (uint32_t)x->nchunks, x->records, x->first_time,
                              x->last_time };
        uint8_t *q = p;
        p = ecc_run_stream_encode(p, &rs, NULL);
        for (size_t k = 0; k < x->nchunks; k++)
            ecc_put64(q + ECC_RUN_STREAM + 8 * k, zmap_find(zc, x->chunks[k]) + m->offset);
    }
    ecc_run_streams_seal(t, m->streams_length);
    zc->nmap = 0;
}

static int zflush(zcopy *zc, zmember *zm)
{
    /* compress: the workers and this thread */
    size_t nchunks = 0;
    for (size_t i = 0; i < zc->nitems; i++)
        nchunks += zc->items[i].what == Z_CHUNK;
    zc->next = 0;
    pthread_t th[ZTHREADS];
    void *args[ZTHREADS][2];
    int started = 0;
    for (int k = 1; k < zc->nz && (size_t)k < nchunks; k++) {
        args[k][0] = zc;
        args[k][1] = zc->z[k];
        if (pthread_create(&th[k], NULL, zworker, args[k]) != 0)
            break;
        started = k;
    }
    args[0][0] = zc;
    args[0][1] = zc->z[0];
    zworker(args[0]);
    for (int k = 1; k <= started; k++)
        pthread_join(th[k], NULL);
    /* write, in order */
    for (size_t i = 0; i < zc->nitems; i++) {
        zitem *it = &zc->items[i];
        ecc_run_member *m = &zm->mem[it->member];
        if (it->what == Z_END) {
            zmember_end(zc, zm, it->member);
            continue;
        }
        if (it->src == 0) {             /* a member's first bytes */
            if (zpad(zc, align_up(zc->pos, 8)) != 0)
                return -1;
            m->offset = zc->pos;
        }
        uint64_t here = zc->pos - m->offset;
        if (it->what == Z_COPY) {
            if (zput(zc, zc->in + it->in, (size_t)it->len) != 0)
                return -1;
            continue;
        }
        if (it->what == Z_FOOTER) {
            uint8_t fb[ECC_FOOTER];
            ecc_footer_encode(fb, zmap_find(zc, it->c.sequence));
            if (zput(zc, fb, sizeof fb) != 0)
                return -1;
        } else {
            if (zc->nmap == zc->capmap) {
                size_t cap = zc->capmap ? 2 * zc->capmap : 256;
                zmap *nm = realloc(zc->map, cap * sizeof *nm);
                if (!nm) {
                    snprintf(zc->err, sizeof zc->err, "out of memory");
                    return -1;
                }
                zc->map = nm;
                zc->capmap = cap;
            }
            zc->map[zc->nmap++] = (zmap){ it->src, here };
            if (it->what == Z_KEEP) {
                if (zput(zc, zc->in + it->in, (size_t)it->len) != 0)
                    return -1;
                continue;
            }
            ecc_chunk c = it->c;
            const uint8_t *pay = zc->in + it->in;
            if (it->what == Z_CHUNK && it->zlen > 0) {
                c.compression = (uint8_t)zc->method;
                c.stored_length = (uint32_t)it->zlen;
                pay = zc->out + it->zout;
                c.payload_crc = ecc_crc32(0, pay, it->zlen);
            } else if (it->what == Z_INDEX) {
                /* its entries name chunks before it: where they are now */
                uint8_t *e = zc->in + it->in;
                for (uint64_t k = 0; k + ECC_INDEX_ENTRY <= it->len; k += ECC_INDEX_ENTRY) {
                    ecc_index_entry x;
                    ecc_index_entry_decode(e + k, &x);
                    x.offset = zmap_find(zc, x.offset);
                    ecc_index_entry_encode(e + k, &x);
                }
                c.payload_crc = ecc_crc32(0, e, (size_t)it->len);
            }
            uint8_t hb[ECC_CHUNK_HEADER];
            ecc_chunk_encode(hb, &c);
            if (zput(zc, hb, sizeof hb) != 0 || zput(zc, pay, c.stored_length) != 0)
                return -1;
        }
    }
    zc->nitems = 0;
    zc->inlen = 0;
    return 0;
}

/* Room in the batch for one more item with n input bytes (flushing it
 * first when full); NULL on no memory or a failed write. */
static zitem *zadd(zcopy *zc, zmember *zm, int what, uint32_t member, uint64_t n)
{
    if (zc->nitems > 0 && (zc->inlen + n > zc->incap || zc->nitems == zc->capitems) &&
        zflush(zc, zm) != 0)
        return NULL;
    if (n > zc->incap) {             /* one chunk larger than a batch: a batch of its own */
        uint8_t *ni = realloc(zc->in, (size_t)n), *no = realloc(zc->out, (size_t)n);
        if (ni)
            zc->in = ni;
        if (no)
            zc->out = no;
        if (!ni || !no) {
            snprintf(zc->err, sizeof zc->err, "out of memory");
            return NULL;
        }
        zc->incap = zc->outcap = (size_t)n;
    }
    zitem *it = &zc->items[zc->nitems++];
    memset(it, 0, sizeof *it);
    it->what = what;
    it->member = member;
    it->in = zc->inlen;
    it->zout = zc->inlen;            /* compressed output never exceeds its input */
    it->len = n;
    zc->inlen += (size_t)n;
    return it;
}

/* Source bytes [off, off + n) of f into the batch as a verbatim copy, in
 * pieces of at most a batch. */
static int zcopy_range(zcopy *zc, zmember *zm, uint32_t member, int fd, uint64_t off, uint64_t n)
{
    while (n > 0) {
        uint64_t k = n < ZBATCH ? n : ZBATCH;
        zitem *it = zadd(zc, zm, Z_COPY, member, k);
        if (!it)
            return -1;
        it->src = off;
        if (ecc_read_at(fd, zc->in + it->in, (size_t)k, off) != 0) {
            snprintf(zc->err, sizeof zc->err, "%s", errno ? strerror(errno) : "read error");
            return -1;
        }
        off += k;
        n -= k;
    }
    return 0;
}

/* Member i into the batch, chunk by chunk. */
static int zcopy_member(zcopy *zc, zmember *zm, uint32_t i, int fd, uint8_t *window)
{
    const pal_src *f = &zm->srcs[i];
    if (zcopy_range(zc, zm, i, fd, 0, f->data_start) != 0)
        return -1;
    ecc_scan sc;
    ecc_scan_init(&sc, fd, f->size, f->data_start);
    ecc_scan_buffer(&sc, window, PAL_COPY_BUFFER);
    for (;;) {
        ecc_event ev;
        ecc_scan_next(&sc, &ev);
        const ecc_chunk *c = &ev.chunk;
        switch (ev.type) {
        case ECC_EV_END:
            return zadd(zc, zm, Z_END, i, 0) ? 0 : -1;
        case ECC_EV_IOERR:
            snprintf(zc->err, sizeof zc->err, "%s", strerror(sc.ioerr));
            return -1;
        case ECC_EV_FOOTER: {
            zitem *it = zadd(zc, zm, Z_FOOTER, i, 0);
            if (!it)
                return -1;
            it->src = ev.offset;
            it->c.sequence = ev.index_offset;
            continue;
        }
        case ECC_EV_DAMAGE:
        case ECC_EV_CUT:
            if (zcopy_range(zc, zm, i, fd, ev.offset, ev.length) != 0)
                return -1;
            continue;
        default:
            break;
        }
        /* a chunk: compressed when raw records, the index with new offsets,
         * else as it is (Z_KEEP: it still moves, and the index and stream
         * tables name it); a payload's CRC first, so that damage stays damage */
        int what = Z_KEEP;
        if (ecc_chunk_check(c, f->hdr.version_major) == NULL && c->compression == ECC_COMP_NONE &&
            c->stored_length > 1 && (c->kind == ECC_KIND_RECORDS ||
                                     (c->kind == ECC_KIND_INDEX &&
                                      c->stored_length % ECC_INDEX_ENTRY == 0)))
            what = c->kind == ECC_KIND_RECORDS ? Z_CHUNK : Z_INDEX;
        for (;;) {
            uint64_t from = what == Z_KEEP ? ev.offset : ev.offset + ECC_CHUNK_HEADER;
            zitem *it = zadd(zc, zm, what, i, what == Z_KEEP ? ev.length : c->stored_length);
            if (!it)
                return -1;
            it->src = ev.offset;
            it->c = *c;
            const uint8_t *b = ecc_scan_bytes(&sc, from, it->len);
            if (b)
                memcpy(zc->in + it->in, b, (size_t)it->len);
            else if (ecc_read_at(fd, zc->in + it->in, (size_t)it->len, from) != 0) {
                snprintf(zc->err, sizeof zc->err, "%s", errno ? strerror(errno) : "read error");
                return -1;
            }
            if (what == Z_KEEP ||
                ecc_crc32(0, zc->in + it->in, (size_t)it->len) == c->payload_crc)
                break;
            zc->inlen = it->in;          /* damaged: taken back, and kept as it is */
            zc->nitems--;
            what = Z_KEEP;
        }
        zc->done += ev.length;
    }
}

/* ---------------------------------------------------------------- the message check */

static void no_diag(void *ctx, const char *message)
{
    (void)ctx, (void)message;
}

/* The check of both forms reads the run's events: its messages are paired
 * by the event layer's one matcher (doc/pal.md, "Messages: the matcher"),
 * a receive that completed unseen (role untimed) taking a send left over at
 * the end (PAL_EVENTS_SETTLE). What it found so far: */
typedef struct mcheck {
    uint64_t bytes_differ;
    double worst;                /* the largest violation (ns) and its message */
    pal_msg_end ws, wr;
    int64_t wtag;
} mcheck;

/* The events of the run, for the check (every record too, for format 2's
 * merge, which writes them as they come) into *out: PAL_OK, or why not
 * (pal_last_error; *out NULL). */
static pal_status check_events(pal_reader *r, unsigned options, pal_events **out)
{
    pal_events *e = NULL;
    pal_status st = pal_events_create(r, &e);
    if (st == PAL_OK)
        st = pal_events_set_options(e, options | PAL_EVENTS_SETTLE | PAL_EVENTS_MESSAGES);
    if (st != PAL_OK) {
        pal_events_destroy(e);
        e = NULL;
        pal_set_last_error("cannot check the messages: %s", pal_status_string(st));
    }
    *out = e;
    return st;
}

static void check_event(mctx *c, mcheck *k, const pal_event *v)
{
    pal_merge_result *res = c->res;
    if (v->kind != PAL_EV_MESSAGE)
        return;
    if (v->flags & PAL_EVF_UNTIMED) {   /* no time to check */
        res->completion_unknown++;
        return;
    }
    res->messages++;
    k->bytes_differ += v->send.bytes != v->recv.bytes;
    if (v->recv.time < v->send.time) {
        res->violations++;
        if (v->send.time - v->recv.time > k->worst) {
            k->worst = v->send.time - v->recv.time;
            k->ws = v->send;
            k->wr = v->recv;
            k->wtag = v->tag;
        }
    }
}

/* After the last event: the ends left unmatched, and what was found said. */
static void check_said(mctx *c, const mcheck *k, const pal_events *e)
{
    const pal_merge_options *o = c->o;
    pal_merge_result *res = c->res;
    pal_matcher_waiting(pal_events_matcher(e), &res->unmatched_sends, &res->unmatched_recvs);
    res->max_violation_ns = k->worst;
    if (res->violations > 0)
        say(c, "the clocks could not be fully corrected: %" PRIu64 " of %" PRIu64
            " receives complete before their send begins, by up to %.3f us (rank %u -> "
            "rank %u, tag %lld, at %.6f s)", res->violations, res->messages, k->worst / 1e3,
            k->ws.process, k->wr.process, (long long)k->wtag, secs(k->wr.time));
    if (k->bytes_differ > 0)
        say(c, "%" PRIu64 " sends were paired with receives of another size", k->bytes_differ);
    if (res->completion_unknown && o->diag &&
        (o->verbose || res->problems || res->unmatched_sends || res->unmatched_recvs)) {
        char line[256];
        snprintf(line, sizeof line, "%" PRIu64 " sends went to receives freed with "
                 "MPI_Request_free: their completion is unknown", res->completion_unknown);
        o->diag(o->diag_ctx, line);
    }
    if (res->unmatched_sends || res->unmatched_recvs)
        say(c, "%" PRIu64 " sends without a receive and %" PRIu64 " receives without a "
            "send in the merged trace%s", res->unmatched_sends, res->unmatched_recvs,
            res->incomplete || res->missing ? " (ranks are missing or incomplete)" : "");
}

/* --check on the run file: the run read as its readers will (the inputs as
 * one clock-corrected stream: what the run file holds, record for record)
 * and its messages checked as format 2's merge checks them while writing.
 * The reader's own notes (damage, missing ranks) were said by the merge. */
static pal_status check_run(mctx *c, const char *const *inputs, size_t n)
{
    const pal_merge_options *o = c->o;
    pal_reader *r = NULL;
    pal_status st = pal_reader_open_run(inputs, n, NULL, o->open_flags | PAL_OPEN_AS_RUN, &r);
    if (st != PAL_OK)
        return st;
    pal_reader_set_diag(r, no_diag, NULL);
    pal_events *e;
    if ((st = check_events(r, 0, &e)) != PAL_OK) {
        pal_reader_close(r);
        return st;
    }
    mcheck k = { 0 };
    const pal_event *v;
    while ((st = pal_events_next(e, &v)) == PAL_OK)
        check_event(c, &k, v);
    if (st == PAL_END) {
        check_said(c, &k, e);
        st = PAL_OK;
    } else {
        pal_set_last_error("cannot check the messages of the merged trace: %s",
                           pal_reader_error(r));
    }
    pal_events_destroy(e);
    pal_reader_close(r);
    return st;
}

/* Format 2's next record: with the check, through the events of the run
 * (PAL_EVENTS_EVERY_RECORD: a record's first event carries it), each event
 * checked on the way. */
static pal_status next_record(mctx *c, pal_reader *r, pal_events *e, mcheck *k,
                              const pal_record **rec)
{
    if (e == NULL)
        return pal_reader_next(r, rec);
    const pal_event *v;
    pal_status st;
    while ((st = pal_events_next(e, &v)) == PAL_OK) {
        check_event(c, k, v);
        if ((v->flags & PAL_EVF_RECORD) && v->record) {
            *rec = v->record;
            return PAL_OK;
        }
    }
    return st;
}

/* Every member through the batches of zcopy (method: what raw records
 * chunks become), from offset start of the output on; fills their entries'
 * offsets and lengths and their stream tables in index. NULL, or why not. */
static const char *recompress(pal_reader *r, ecc_run_member *mem, uint8_t *index, int fd,
                              uint64_t start, int method, const pal_merge_options *o,
                              uint64_t total, uint64_t *end, char *why_buf, size_t why_len)
{
    zcopy zc;
    memset(&zc, 0, sizeof zc);
    zc.method = method;
    zc.fd = fd;
    zc.pos = zc.stage_off = start;
    zc.total = total;
    zmember zm = { mem, r->srcs, index };
    /* the cores this process may run on (under mpirun, rank 0 is often
     * bound to one: then one compressor) */
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    cpu_set_t cs;
    if (sched_getaffinity(0, sizeof cs, &cs) == 0)
        cores = CPU_COUNT(&cs);
    zc.nz = cores < 1 ? 1 : cores > ZTHREADS ? ZTHREADS : (int)cores;
    const char *why = NULL;
    uint8_t *window = malloc(PAL_COPY_BUFFER);
    zc.capitems = 16384;
    zc.items = malloc(zc.capitems * sizeof *zc.items);
    zc.in = malloc(ZBATCH);
    zc.out = malloc(ZBATCH);
    zc.stage = malloc(ZSTAGE);
    zc.incap = zc.outcap = ZBATCH;
    int locked = pthread_mutex_init(&zc.lock, NULL) == 0;
    for (int k = 0; k < zc.nz; k++)
        if (!(zc.z[k] = ecc_zctx_create(method, o->level, 0)))
            zc.nz = k;
    if (!window || !zc.items || !zc.in || !zc.out || !zc.stage || !locked || zc.nz == 0) {
        why = "out of memory";
        goto out;
    }
    for (size_t i = 0; i < r->nsrcs; i++) {
        pal_src *f = &r->srcs[i];
        int in = pal_src_fd(r, f);
        if (in < 0) {
            why = "it cannot be opened again";
            goto out;
        }
        if (zcopy_member(&zc, &zm, (uint32_t)i, in, window) != 0) {
            why = zc.err;
            goto out;
        }
        if (o->progress)
            o->progress(o->progress_ctx, 1, zc.done, total);
    }
    if (zflush(&zc, &zm) != 0) {
        why = zc.err;
        goto out;
    }
    /* the rest of the staging buffer: zput writes whole buffers */
    for (size_t w = 0; w < zc.stagelen;) {
        ssize_t got = pwrite(fd, zc.stage + w, zc.stagelen - w, (off_t)(zc.stage_off + w));
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            snprintf(zc.err, sizeof zc.err, "%s", got < 0 ? strerror(errno) : "nothing written");
            why = zc.err;
            goto out;
        }
        w += (size_t)got;
    }
    *end = zc.pos;
    if (o->progress)
        o->progress(o->progress_ctx, 1, total, total);
out:
    for (int k = 0; k < ZTHREADS; k++)
        ecc_zctx_destroy(zc.z[k]);
    if (locked)
        pthread_mutex_destroy(&zc.lock);
    free(window);
    free(zc.items);
    free(zc.in);
    free(zc.out);
    free(zc.stage);
    free(zc.map);
    if (why == zc.err) {             /* zc goes: the caller's buffer keeps it */
        snprintf(why_buf, why_len, "%s", zc.err);
        why = why_buf;
    }
    return why;
}

/* Where the copying merge places each member, as the run opens (the
 * run's files read one by one, each copied while it is open): members from
 * `first` on, after room kept for the index (ROOM_FIXED + ROOM_PER per
 * file, zeros that a file system with holes does not store); one copied in
 * the kernel at a multiple of ECC_RUN_ALIGN (blocks a file system may
 * share), one written from the bytes the open read at a multiple of 8. An
 * index that does not fit the room goes after the members
 * (doc/trace-format.md). */
#define ROOM_FIXED ((uint64_t)16 << 10)
#define ROOM_PER 512

typedef struct mplace {
    const pal_merge_options *o;
    ecc_out *out;
    const char *output;
    uint64_t first, pos, total;      /* first member; the next one; bytes copied */
    uint64_t *at;                    /* per source: its offset (0: not copied) */
    size_t cap;
    uint8_t *buf;                    /* copy_member's, when the kernel cannot copy */
} mplace;

static void place_progress(void *ctx, uint64_t done, uint64_t total)
{
    mplace *p = ctx;
    if (done == 0) {                 /* the files (again): members from the start */
        p->first = p->pos = align_up(ECC_RUN_HEADER + ROOM_FIXED + ROOM_PER * total,
                                     ECC_RUN_ALIGN);
        p->total = 0;
        if (p->cap)
            memset(p->at, 0, p->cap * sizeof *p->at);
    }
    if (p->o->progress)
        p->o->progress(p->o->progress_ctx, 0, done, total);
}

/* Source i is open and checked: copied to the next place, from the bytes
 * the open read when it read them all, else in the kernel. */
static int place_copy(void *ctx, pal_reader *r, size_t i)
{
    mplace *p = ctx;
    if (i >= p->cap) {
        size_t cap = p->cap ? 2 * p->cap : 1024;
        while (cap <= i)
            cap *= 2;
        uint64_t *at = realloc(p->at, cap * sizeof *at);
        if (!at) {
            pal_set_last_error("cannot merge: out of memory");
            return -1;
        }
        memset(at + p->cap, 0, (cap - p->cap) * sizeof *at);
        p->at = at;
        p->cap = cap;
    }
    pal_src *f = &r->srcs[i];
    const uint8_t *whole = f->base == 0 ? pal_src_whole(r, f) : NULL;
    uint64_t off = whole ? p->pos : align_up(p->pos, ECC_RUN_ALIGN);
    int fd = whole ? -1 : pal_src_fd(r, f);
    char err[512] = "it cannot be read again";
    if (whole ? ecc_out_write_at(p->out, whole, f->size, off, err, sizeof err) != 0
              : fd < 0 || copy_member(fd, p->out, f->size, off, &p->buf, err, sizeof err) != 0) {
        pal_set_last_error("cannot copy '%s' into '%s': %s", f->path, p->output, err);
        return -1;
    }
    p->at[i] = off;
    p->total += f->size;
    p->pos = align_up(off + f->size, whole ? 8 : ECC_RUN_ALIGN);
    return 0;
}

/* The run file (doc/trace-format.md, "Merged traces (version 3)"): the
 * run opened as a reader would (its files checked to belong together, each
 * scanned, the clock model of each chosen), each per-rank trace copied as it
 * is while the open has it (mplace), or after the open with its raw records
 * chunks compressed (method); then the index. No record is decoded. */
static pal_status merge_runfile(const char *const *inputs, size_t n, const char *output,
                                const pal_merge_options *o, int method,
                                pal_merge_result *res_out)
{
    pal_merge_result res;
    memset(&res, 0, sizeof res);
    mctx c = { o, &res };
    pal_reader *r = NULL;
    uint8_t *index = NULL;
    ecc_run_member *mem = NULL;
    ecc_out *out = NULL;
    char err[1024] = "";
    mplace place = { .o = o, .output = output };
    pal_status st;
    if (ecc_out_open(output, o->out_flags & PAL_OUT_THROUGH ? ECC_OUT_THROUGH : 0, &out, err,
                     sizeof err) != 0) {
        pal_set_last_error("%s", err);
        st = PAL_EIO;
        goto done;
    }
    place.out = out;
    /* copying, each file as it is read; compressing, after (below) */
    pal_run_hooks hooks = { place_progress, method == ECC_COMP_NONE ? place_copy : NULL, &place };
    st = pal_run_open(inputs, n, NULL, o->open_flags | PAL_OPEN_AS_RUN | PAL_OPEN_COPY_, &hooks,
                      &r);
    if (st != PAL_OK)
        goto done;                   /* pal_last_error says why */
    pal_reader_set_diag(r, reader_diag, &c);
    pal_reader_flush_notes(r);       /* what the scans found: nothing reads after */
    opened(&c, r);
    /* the layout: header, index (or room for it), members, index copy,
     * header copy, footer */
    size_t nm = r->nsrcs;
    if (!(mem = calloc(nm, sizeof *mem)))
        goto oom;
    pal_prefault(mem, nm * sizeof *mem);   /* (written in full, as the index below) */
    uint64_t ilen = (uint64_t)nm * ECC_RUN_MEMBER, total = 0;
    for (size_t i = 0; i < nm; i++) {
        const pal_src *f = &r->srcs[i];
        /* (the sums the scan kept: its streams are read in the next pass) */
        uint32_t ns = (uint32_t)f->nstreams;
        uint64_t nc = f->scan_chunks;
        res.records += f->scan_records;
        res.chunks += f->scan_listed;
        mem[i].streams_offset = ilen;
        mem[i].streams_length = (uint32_t)ecc_run_streams_size(ns, nc);
        mem[i].nstreams = ns;
        ilen += align_up(mem[i].streams_length, 8);
        total += f->size;
    }
    if (!(index = calloc(ilen ? ilen : 1, 1)))
        goto oom;
    pal_prefault(index, ilen);
    uint64_t end = 0;
    for (size_t i = 0; i < nm; i++) {
        const pal_src *f = &r->srcs[i];
        ecc_run_member *m = &mem[i];
        const char *base = strrchr(f->path, '/');
        base = base ? base + 1 : f->path;
        size_t bl = strlen(base);    /* (cut to the field, as snprintf would) */
        if (bl >= sizeof m->name)
            bl = sizeof m->name - 1;
        memcpy(m->name, base, bl);
        m->name[bl] = '\0';
        m->length = f->size;
        m->rank = f->hdr.rank;
        m->process = f->process;
        m->how = f->clock_code;
        m->t0 = f->t0;
        m->g0 = f->g0;
        m->b = f->b;
        if (method != ECC_COMP_NONE)
            continue;                /* (recompress places them and writes the tables) */
        if (i >= place.cap || place.at[i] == 0) {
            /* (not copied as it opened: the hook saw every source, so never) */
            pal_set_last_error("cannot merge into '%s': '%s' was not copied", output, f->path);
            st = PAL_EIO;
            goto done;
        }
        m->offset = place.at[i];
        end = m->offset + f->size;
        /* its stream table: the chunks at their offsets in the run file */
        uint8_t *t = index + m->streams_offset, *p = t + 8;
        ecc_run_streams_begin(t, m->nstreams);
        for (const pal_stream *x = f->streams; x; x = x->src_next) {
            ecc_run_stream rs = { x->stream, (uint32_t)x->nchunks, x->records, x->first_time,
                                  x->last_time };
            uint8_t *q = p + ECC_RUN_STREAM;
            p = ecc_run_stream_encode(p, &rs, NULL);
            for (size_t k = 0; k < x->nchunks; k++)
                ecc_put64(q + 8 * k, x->chunks[k] + m->offset);
        }
        ecc_run_streams_seal(t, m->streams_length);
    }
    /* the index in the room before the members when it fits, else after them */
    uint64_t at = ECC_RUN_HEADER;
    if (method != ECC_COMP_NONE) {
        char zerr[512];
        const char *why = recompress(r, mem, index, ecc_out_fd(out),
                                     align_up(ECC_RUN_HEADER + ilen, 8), method, o, total, &end,
                                     zerr, sizeof zerr);
        if (why) {
            snprintf(err, sizeof err, "cannot merge into '%s': %s", output, why);
            goto io;
        }
    } else {
        if (o->progress)
            o->progress(o->progress_ctx, 1, place.total, place.total);
        if (ECC_RUN_HEADER + ilen > place.first)
            at = align_up(end, 8);
    }
    for (size_t i = 0; i < nm; i++)
        ecc_run_member_encode(index + i * ECC_RUN_MEMBER, &mem[i]);
    ecc_run_header h;
    memset(&h, 0, sizeof h);
    const pal_src *r0 = NULL;
    for (size_t i = 0; i < nm; i++)
        if (r->srcs[i].hdr.rank == 0)
            r0 = &r->srcs[i];
    h.flags = ECC_HFLAG_MERGED;
    h.members = (uint32_t)nm;
    h.size = r->info.size > o->ranks ? r->info.size : o->ranks;
    memcpy(h.run_id, (r0 ? r0 : &r->srcs[0])->hdr.run_id, ECC_RUN_ID);
    h.realtime_offset_ns = r->info.realtime_offset_ns;
    h.clock_source = (uint8_t)r->info.clock_source;
    h.index_offset = at;
    h.index_length = ilen;
    /* the copy after the last member (and after the index when it is there) */
    h.index_copy = at == ECC_RUN_HEADER ? align_up(end, 8) : at + align_up(ilen, 8);
    h.origin_ns = r->origin_ns;
    memcpy(h.host, r->info.host, sizeof h.host);
    uint8_t hb[ECC_RUN_HEADER], foot[ECC_FOOTER];
    ecc_run_header_encode(hb, &h);
    uint64_t hcopy = h.index_copy + align_up(ilen, 8);
    ecc_run_footer_encode(foot, hcopy);
    if (ecc_out_write_at(out, index, ilen, h.index_offset, err, sizeof err) != 0 ||
        ecc_out_write_at(out, index, ilen, h.index_copy, err, sizeof err) != 0 ||
        ecc_out_write_at(out, hb, sizeof hb, hcopy, err, sizeof err) != 0 ||
        ecc_out_write_at(out, foot, sizeof foot, hcopy + sizeof hb, err, sizeof err) != 0 ||
        ecc_out_write_at(out, hb, sizeof hb, 0, err, sizeof err) != 0)
        goto io;
    /* (files started over left bytes beyond the footer: not kept) */
    if (ftruncate(ecc_out_fd(out), (off_t)(hcopy + sizeof hb + sizeof foot)) != 0 &&
        errno != EINVAL) {
        snprintf(err, sizeof err, "cannot write '%s': %s", output, strerror(errno));
        goto io;
    }
    if (ecc_out_commit(out, err, sizeof err) != 0) {
        out = NULL;                  /* commit removed it */
        goto io;
    }
    out = NULL;
    read_stats(&c, r);
    pal_reader_close(r);
    r = NULL;
    /* the run file is written: a check that cannot run is a problem said */
    if (o->check > 0 && check_run(&c, inputs, n) != PAL_OK)
        say(&c, "the messages were not checked: %s", pal_last_error());
    st = PAL_OK;
    goto done;
oom:
    pal_set_last_error("cannot merge: out of memory");
    st = PAL_ENOMEM;
    goto done;
io:
    pal_set_last_error("%s", err);
    st = PAL_EIO;
done:
    if (out)
        ecc_out_abort(out);
    free(place.at);
    free(place.buf);
    free(index);
    free(mem);
    pal_reader_close(r);
    if (res_out)
        *res_out = res;
    return st;
}

pal_status pal_merge(const char *const *inputs, size_t n, const char *output,
                     const pal_merge_options *o, pal_merge_result *res_out)
{
    PAL_REQUIRE(inputs && n > 0 && output && o, PAL_EINVAL);
    /* options of a shorter (older) struct: the fields past its size default */
    if (o->size < offsetof(pal_merge_options, compress) + sizeof o->compress) {
        pal_set_last_error("cannot merge: pal_merge_options.size is %zu (call "
                           "pal_merge_options_default first)", o->size);
        return PAL_EINVAL;
    }
    pal_merge_options given;
    pal_merge_options_default(&given);
    memcpy(&given, o, o->size < sizeof given ? o->size : sizeof given);
    given.size = sizeof given;
    o = &given;
    if (o->format != 2 && o->format != 3) {
        pal_set_last_error("cannot merge: unknown merged format %d (2 or 3)", o->format);
        return PAL_EINVAL;
    }
    int method = merge_method(o);
    if (method < 0) {
        pal_set_last_error("cannot merge: compression %d is not known to this build (0 none, "
                           "1 zlib%s)", o->compress,
                           ecc_have_compression(ECC_COMP_ZSTD) ? ", 2 zstd" : "");
        return PAL_EINVAL;
    }
    if (o->format == 3)
        return merge_runfile(inputs, n, output, o, method, res_out);
    pal_merge_result res;
    memset(&res, 0, sizeof res);
    mctx c = { o, &res };
    pal_reader *r = NULL;
    pal_writer *w = NULL;
    pal_events *ev = NULL;
    mcheck chk = { 0 };
    pal_value *ov = NULL;
    uint32_t *ol = NULL;
    uint8_t *raw_ok = NULL;
    char err[1024] = "";
    pal_status st = pal_reader_open_run(inputs, n, NULL, o->open_flags | PAL_OPEN_AS_RUN, &r);
    if (st != PAL_OK)
        goto out;                    /* pal_last_error says why */
    if (!r->run) {
        pal_set_last_error("cannot merge '%s': it is a merged trace already", inputs[0]);
        st = PAL_EFORMAT;
        goto out;
    }
    opened(&c, r);
    const pal_dict *rd = r->dict;
    edl_dict *md = pal_run_merged_dict(rd, say_line, &c);
    if (!md) {
        pal_set_last_error("cannot merge: cannot build the merged dictionary");
        st = PAL_ENOMEM;
        goto out;
    }
    ecc_file_header fh;
    memset(&fh, 0, sizeof fh);
    fh.byte_order = (uint8_t)edl_dict_byte_order(md);
    fh.clock_source = (uint8_t)r->info.clock_source;
    fh.ticks_per_second = 1e9;
    fh.realtime_offset_ns = r->info.realtime_offset_ns;
    fh.rank = -1;
    fh.size = r->info.size > o->ranks ? r->info.size : o->ranks;
    memcpy(fh.host, r->info.host, sizeof fh.host);
    memcpy(fh.run_id, r->srcs[0].hdr.run_id, ECC_RUN_ID);
    fh.flags = ECC_HFLAG_MERGED;
    pal_writer_options wo = { method, o->level, o->chunk_size ? o->chunk_size : (64u << 10),
                              o->out_flags };
    if ((st = pal_writer_create(output, md, &fh, &wo, &w, err, sizeof err)) != PAL_OK) {
        pal_set_last_error("%s", err);
        goto out;
    }
    const pal_dict *wd = pal_writer_dict(w);
    size_t maxf = wd->max_fields ? wd->max_fields : 1;
    ov = calloc(maxf, sizeof *ov);
    ol = calloc(maxf, sizeof *ol);
    if (!ov || !ol) {
        pal_set_last_error("cannot merge: out of memory");
        st = PAL_ENOMEM;
        goto out;
    }
    /* the check reads the records as events while they are written */
    if (o->check != 0 && (st = check_events(r, PAL_EVENTS_EVERY_RECORD, &ev)) != PAL_OK)
        goto out;
    /* records whose fields after type and time need no conversion are
     * copied as bytes (fields in ticks become ns, and are encoded again) */
    raw_ok = calloc(rd->nrecs ? rd->nrecs : 1, 1);
    if (!raw_ok) {
        pal_set_last_error("cannot merge: out of memory");
        st = PAL_ENOMEM;
        goto out;
    }
    for (size_t k = 0; k < rd->nrecs; k++) {
        const pal_recdesc *x = rd->recs[k];
        int ok = x->nfields >= 2 && x->fields[0].encoding == EDL_ENC_ULEB &&
                 x->fields[1].encoding == EDL_ENC_TDELTA && x->time_fi == 1;
        for (size_t f = 2; ok && f < x->nfields; f++)
            ok = !x->fields[f].from_ticks;
        raw_ok[k] = (uint8_t)ok;   /* copied as bytes */
    }
    const pal_record *rec;
    while ((st = next_record(&c, r, ev, &chk, &rec)) == PAL_OK) {
        const pal_recdesc *in = rec->desc;
        const pal_recdesc *to = wd->recs[in->index];
        if (raw_ok[in->index] && rec->raw) {
            /* skip the record's own key and time delta (two LEBs of a record
             * that decoded: each ends at its first byte below 0x80) */
            const uint8_t *q = rec->raw, *e = rec->raw + rec->rawlen;
            while (q < e && (*q & 0x80))
                q++;
            q++;
            while (q < e && (*q & 0x80))
                q++;
            q++;
            if (q <= e) {
                uint64_t pre[2] = { rec->process, rec->stream };
                if ((st = pal_writer_put_raw(w, to, rec->time, pre, 2, q, (size_t)(e - q))) !=
                    PAL_OK)
                    break;
                continue;
            }
        }
        /* type, time, process, thread, then the record's other fields */
        size_t nf = in->nfields;
        ov[0] = rec->vals[0];
        ov[1] = rec->vals[1];
        ol[0] = ol[1] = 0;
        ov[2].u = rec->process;
        ov[3].u = rec->stream;
        ol[2] = ol[3] = 0;
        memcpy(ov + 4, rec->vals + 2, (nf - 2) * sizeof *ov);
        memcpy(ol + 4, rec->lens + 2, (nf - 2) * sizeof *ol);
        if ((st = pal_writer_put(w, to, ov, ol)) != PAL_OK)
            break;
    }
    if (st != PAL_END) {
        if (st == PAL_EIO && !r->err[0])
            pal_set_last_error("cannot merge into '%s': a write failed", output);
        else
            pal_set_last_error("cannot merge: %s", r->err[0] ? r->err : pal_status_string(st));
        goto out;
    }
    res.records = pal_writer_records(w);
    res.chunks = pal_writer_chunks(w);
    st = pal_writer_close(w, err, sizeof err);
    w = NULL;
    if (st != PAL_OK) {
        pal_set_last_error("%s", err);
        goto out;
    }
    read_stats(&c, r);
    if (ev)
        check_said(&c, &chk, ev);
    st = PAL_OK;
out:
    pal_events_destroy(ev);
    pal_writer_abort(w);
    free(raw_ok);
    free(ov);
    free(ol);
    pal_reader_close(r);
    if (res_out)
        *res_out = res;
    return st;
}
