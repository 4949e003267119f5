/* reader.c -- PAL Reader: opens traces -- an ECL container file, several of
 * them (run.c), or a raw or ascii file described by a given dictionary --
 * and hands out decoded records in time order, in memory bounded by the
 * number of streams (reader-internal.h says how).
 *
 * Everything about the container's bytes is the container codec's
 * (container/container.h): this file asks it for headers, chunks, payloads
 * and damage, and knows no record layout; records are decoded as the
 * dictionary says (decode.h). Damage is reported, counted and skipped
 * exactly as doc/trace-format.md says.
 *
 * A records chunk is read in one pass once its payload CRC has been checked:
 * its records are decoded a batch at a time as they are handed out, with
 * bounds-checked decoding -- by per-shape kernels (chosen from the
 * dictionary, pal_recdesc.shape) for the usual key-first LEB layouts, by the
 * checked op interpreter otherwise. A record that does not decode ends the
 * chunk there (reported after the records before it). */
#ifndef _FILE_OFFSET_BITS
#define _FILE_OFFSET_BITS 64   /* traces beyond 2 GiB on 32-bit hosts */
#endif
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "pal/decode.h"
#include "pal/reader-internal.h"

#define PAL_READAHEAD ((size_t)256 << 10)    /* read window of raw streams */
#define PAL_MAX_RAW ((uint64_t)1 << 30)      /* decompressed chunk payload */
#define PAL_MAX_RAW_RECORD ((size_t)256 << 20) /* one record of a raw stream */
/* Records decoded per refill: pal_reader_next is then a pointer bump, and the
 * decode loop keeps its state in registers across records. */
#define PAL_BATCH 256
#define PAL_RUN_BATCH 32                     /* per stream, when there are many */
/* Payload bytes a stream keeps: a whole chunk of the default capture buffer
 * for a file read alone, a window for the many streams of a run. */
#define PAL_WINDOW_FILE (((size_t)1 << 20) + 4096)
/* ...which many streams share: each gets the budget over their number, at
 * least the minimum (a run of 4,096 ranks: 16 KiB a stream, reads of that). */
#define PAL_WINDOW_BUDGET ((size_t)64 << 20)
#define PAL_WINDOW_MIN ((size_t)16 << 10)
#define PAL_ZIN ((size_t)32 << 10)           /* compressed bytes read at a time */
#define PAL_SCAN_WINDOW ((size_t)256 << 10)  /* file bytes read at a time at open */
/* The LEB kernels decode a record without bounds tests while this many bytes
 * are left: a one-byte key and 15 LEBs of 10 bytes at most. */
#define PAL_FAST_MARGIN ((size_t)160)
#define PAL_MAX_MSGS 200                     /* messages kept from open */
#define PAL_MAX_OPEN 32768                   /* descriptors one reader keeps open */

static void default_diag(void *ctx, const char *message)
{
    (void)ctx;
    fprintf(stderr, "%s\n", message);
}

/* ---------------------------------------------------------------- messages */

static void emit(pal_reader *r, const char *text)
{
    snprintf(r->err, sizeof r->err, "%s", text);
    if (r->diag)
        r->diag(r->diag_ctx, r->err);
}

void pal_reader_note(pal_reader *r, const char *fmt, ...)
{
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    if (r->started) {
        emit(r, text);
        return;
    }
    /* found while opening: said at the first read, once the caller had the
     * chance to set a callback */
    size_t n = 0;
    for (pal_msg *m = r->msgs; m; m = m->next)
        n++;
    if (n >= PAL_MAX_MSGS)
        return;
    if (n == PAL_MAX_MSGS - 1)
        snprintf(text, sizeof text, "(further messages of this kind left out)");
    size_t len = strlen(text) + 1;
    pal_msg *m = malloc(sizeof *m + len);
    if (!m)
        return;
    m->next = NULL;
    memcpy(m->text, text, len);
    *r->msgs_tail = m;
    r->msgs_tail = &m->next;
    snprintf(r->err, sizeof r->err, "%s", text);
}

/* "path: byte N: message" */
static void PAL_PRINTF(4, 5) report(pal_reader *r, const pal_src *s, uint64_t off,
                                    const char *fmt, ...)
{
    if (r->mute)
        return;
    char text[900];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    pal_reader_note(r, "%s: byte %" PRIu64 ": %s", s->path, off, text);
}

/* Damage bookkeeping after report(): strict mode stops here. */
static pal_status damaged(pal_reader *r, uint64_t skipped)
{
    if (r->mute)
        return PAL_OK;
    r->st.damaged++;
    r->st.bytes_skipped += skipped;
    if (r->strict && r->started) {
        r->state = ST_FAILED;
        r->failed = PAL_EFORMAT;
        return PAL_EFORMAT;
    }
    return PAL_OK;
}

static void fail_io(pal_reader *r, const pal_src *s, uint64_t off, const char *what)
{
    r->mute = 0;   /* said by every share: each stops */
    report(r, s, off, "%s: %s", what, errno ? strerror(errno) : "read error");
    r->state = ST_FAILED;
    r->failed = PAL_EIO;
}

/* ---------------------------------------------------------------- open files */

static void lru_unlink(pal_reader *r, pal_src *s)
{
    if (!s->in_lru)
        return;
    if (s->lru_prev)
        s->lru_prev->lru_next = s->lru_next;
    else
        r->lru_head = s->lru_next;
    if (s->lru_next)
        s->lru_next->lru_prev = s->lru_prev;
    else
        r->lru_tail = s->lru_prev;
    s->lru_prev = s->lru_next = NULL;
    s->in_lru = 0;
}

static void lru_front(pal_reader *r, pal_src *s)
{
    s->lru_prev = NULL;
    s->lru_next = r->lru_head;
    if (r->lru_head)
        r->lru_head->lru_prev = s;
    else
        r->lru_tail = s;
    r->lru_head = s;
    s->in_lru = 1;
}

/* s's descriptor was just opened: in the list, the oldest let go beyond
 * r->max_open (only ECL sources are ever let go: the others are read alone). */
static void lru_add(pal_reader *r, pal_src *s)
{
    if (r->max_open == 0) {
        /* half the descriptors the process may have (after a run raised its
         * limit): the rest stay for the caller, its outputs, other readers */
        struct rlimit rl;
        rlim_t cur = getrlimit(RLIMIT_NOFILE, &rl) == 0 ? rl.rlim_cur : 256;
        if (cur == RLIM_INFINITY || cur > PAL_MAX_OPEN * 2)
            cur = PAL_MAX_OPEN * 2;
        r->max_open = cur > 48 ? (size_t)(cur - 32) / 2 : 8;
    }
    while (r->nopen >= r->max_open && r->lru_tail && r->lru_tail != s) {
        pal_src *old = r->lru_tail;
        lru_unlink(r, old);
        close(old->fd);
        old->fd = -1;
        r->nopen--;
    }
    lru_front(r, s);
    r->nopen++;
}

int pal_src_fd(pal_reader *r, pal_src *s)
{
    if (PAL_LIKELY(s->fd >= 0)) {
        if (s != r->lru_head && s->in_lru) {
            lru_unlink(r, s);
            lru_front(r, s);
        }
        return s->fd;
    }
    if (s->gone)
        return -1;
    int fd = open(s->path, O_RDONLY | O_CLOEXEC);
    struct stat sb;
    const char *why = NULL;
    if (fd < 0 || fstat(fd, &sb) != 0)
        why = strerror(errno);
    else if ((uint64_t)sb.st_dev != s->dev || (uint64_t)sb.st_ino != s->ino)
        why = "it is another file than the one opened first";
    else if ((uint64_t)sb.st_size < s->size)
        why = "it is shorter than when it was opened";
    if (why) {
        if (fd >= 0)
            close(fd);
        s->gone = 1;
        report(r, s, 0, "cannot open the trace again to read on (%s): the rest of its "
               "records is missing", why);
        damaged(r, 0);
        return -1;
    }
    s->fd = fd;
    lru_add(r, s);
    return fd;
}

/* ---------------------------------------------------------------- values */

/* Room for the raw/line framings' one record. */
static pal_status ensure_vals(pal_reader *r, const pal_dict *d)
{
    size_t need = d->max_fields ? d->max_fields : 1;
    if (need <= r->nvals)
        return PAL_OK;
    pal_value *v = calloc(need, sizeof *v);
    uint32_t *l = calloc(need, sizeof *l);
    pal_arr *ar = calloc(need, sizeof *ar);
    if (!v || !l || !ar) {
        free(v);
        free(l);
        free(ar);
        return PAL_ENOMEM;
    }
    free(r->vals);
    free(r->lens);
    free(r->arrs);
    r->vals = v;
    r->lens = l;
    r->arrs = ar;
    r->nvals = need;
    r->rec.vals = v;
    r->rec.lens = l;
    r->rec.arrs = ar;
    return PAL_OK;
}

/* The batch of stream s, for records of at most nvals fields. */
static pal_status stream_batch(pal_stream *s, size_t nbatch, size_t nvals)
{
    if (nvals == 0)
        nvals = 1;
    if (s->batch && nvals <= s->nvals)
        return PAL_OK;
    pal_record *b = calloc(nbatch, sizeof *b);
    pal_value *bv = calloc(nbatch * nvals, sizeof *bv);
    uint32_t *bl = calloc(nbatch * nvals, sizeof *bl);
    if (!b || !bv || !bl) {
        free(b);
        free(bv);
        free(bl);
        return PAL_ENOMEM;
    }
    free(s->batch);
    free(s->bvals);
    free(s->blens);
    s->batch = b;
    s->bvals = bv;
    s->blens = bl;
    s->nbatch = nbatch;
    s->nvals = nvals;
    /* rows for the widest record; decode_batch packs them (see there) */
    for (size_t i = 0; i < nbatch; i++) {
        b[i].vals = bv + i * nvals;
        b[i].lens = bl + i * nvals;
    }
    s->bnext = s->bend = b;
    return PAL_OK;
}

static pal_status handle_fill(pal_reader *r, pal_handle *h)
{
    size_t n = r->dict->nrecs;
    if (n <= h->nslots)
        return PAL_OK;
    struct pal_slot *sl = realloc(h->slots, n * sizeof *sl);
    if (!sl)
        return PAL_ENOMEM;
    h->slots = sl;
    int32_t *u = realloc(h->uslots, n * sizeof *u);
    if (!u)
        return PAL_ENOMEM;
    h->uslots = u;
    for (size_t i = h->nslots; i < n; i++) {
        const pal_fielddesc *f = pal_recdesc_find_field(r->dict->recs[i], h->name);
        sl[i].field = f ? (int32_t)f->index : -1;
        sl[i].tclass = f ? f->tclass : 0;
        /* (ascii fields may be absent: those take the general path) */
        u[i] = f && f->tclass == PAL_TC_UNSIGNED && r->dict->binary ? (int32_t)f->index : -1;
    }
    h->nslots = n;
    return PAL_OK;
}

/* ---------------------------------------------------------------- dictionary chunks */

/* Decodes a dictionary chunk's payload and adds what it defines. NULL or why. */
static const char *merge_dict_chunk(pal_dict *d, const unsigned char *p, size_t n, char *why,
                                    size_t whylen)
{
    edl_dict *src = NULL;
    char err[256] = "";
    edl_status es = edl_dict_decode(p, n, &src, err, sizeof err);
    if (es != EDL_OK) {
        snprintf(why, whylen, "dictionary chunk does not decode: %s",
                 *err ? err : edl_status_string(es));
        return why;
    }
    es = edl_dict_merge(d->ed, src);
    edl_dict_destroy(src);
    /* Merge may have added part before failing: bring everything up to date. */
    if (pal_dict_sync(d, NULL, 0) != PAL_OK) {
        snprintf(why, whylen, "out of memory while adding a dictionary chunk");
        return why;
    }
    if (es != EDL_OK) {
        snprintf(why, whylen, "dictionary chunk conflicts with earlier definitions (%s)",
                 edl_status_string(es));
        return why;
    }
    return NULL;
}

/* ecc_read_payload, from the scan's window when it holds the payload. */
static const char *payload_from_scan(int fd, const ecc_scan *sc, const ecc_event *ev,
                                     uint8_t *buf)
{
    const uint8_t *p = sc ? ecc_scan_bytes(sc, ev->offset + ECC_CHUNK_HEADER,
                                           ev->chunk.stored_length) : NULL;
    if (!p)
        return ecc_read_payload(fd, ev, buf);
    memcpy(buf, p, ev->chunk.stored_length);
    if (ecc_crc32(0, buf, ev->chunk.stored_length) != ev->chunk.payload_crc)
        return "chunk payload CRC mismatch";
    return NULL;
}

/* Whether a chunk's stored payload is intact (its CRC): where the scan's
 * window holds it, checked there (no copy); else read. NULL or why. */
static const char *payload_check(int fd, const ecc_scan *sc, const ecc_event *ev)
{
    const uint8_t *p = sc ? ecc_scan_bytes(sc, ev->offset + ECC_CHUNK_HEADER,
                                           ev->chunk.stored_length) : NULL;
    if (p)
        return ecc_crc32(0, p, ev->chunk.stored_length) != ev->chunk.payload_crc
                   ? "chunk payload CRC mismatch" : NULL;
    uint8_t *b = malloc(ev->chunk.stored_length ? ev->chunk.stored_length : 1);
    const char *why = b ? ecc_read_payload(fd, ev, b) : "out of memory";
    free(b);
    return why;
}

/* Reads, checks and decompresses a (small) chunk's payload into a malloc'd
 * buffer (*out, raw_length bytes); with sc, from the scan's window when it
 * holds the payload. NULL or why. */
static const char *load_small(int fd, const ecc_scan *sc, const ecc_event *ev, uint8_t **out)
{
    const ecc_chunk *c = &ev->chunk;
    *out = NULL;
    if (c->raw_length > PAL_MAX_RAW)
        return "raw_length over 1 GiB";
    uint8_t *st = malloc(c->stored_length ? c->stored_length : 1);
    uint8_t *raw = c->compression ? malloc(c->raw_length ? c->raw_length : 1) : st;
    const char *why = NULL;
    if (!st || !raw)
        why = "out of memory";
    else if ((why = payload_from_scan(fd, sc, ev, st)) == NULL && c->compression)
        why = ecc_decompress(c->compression, st, c->stored_length, raw, c->raw_length);
    if (raw != st)
        free(st);
    if (why) {
        free(raw);
        return why;
    }
    *out = raw;
    return NULL;
}

/* ---------------------------------------------------------------- payload windows */

/* Why the stream's current chunk is damaged, kept until it is reported
 * (allocated then: a reason in each of a run's 8,192 streams was 2.6 MB). */
static void PAL_PRINTF(2, 3) set_bad_why(pal_stream *s, const char *fmt, ...)
{
    free(s->bad_why);
    va_list ap;
    va_start(ap, fmt);
    if (vasprintf(&s->bad_why, fmt, ap) < 0)
        s->bad_why = NULL;           /* (said without its reason) */
    va_end(ap);
}

static const char *bad_why(const pal_stream *s)
{
    return s->bad_why ? s->bad_why : "(no memory for the reason)";
}

/* Fills the window of s from where its records are (cp) on, from the file or
 * the decompressor. 0, or -1 when the payload is damaged (s->bad set) or
 * cannot be read (reader failed). */
static int refill(pal_reader *r, pal_stream *s)
{
    s->ahead_len = 0;
    size_t keep = (size_t)(s->cend - s->cp);
    s->cbase += (uint64_t)(s->cp - s->win);
    if (keep && s->cp != s->win)
        memmove(s->win, s->cp, keep);
    s->cp = s->win;
    s->cend = s->win + keep;
    size_t room = s->wcap - keep;
    int fd = s->raw_left > 0 ? pal_src_fd(r, s->src) : -1;
    if (s->raw_left > 0 && fd < 0) {
        if (r->state == ST_FAILED)
            return -1;
        set_bad_why(s, "the file cannot be opened again");
        s->bad = 1;
        s->bad_done = s->ccount - s->cleft;
        s->cleft = 0;
        s->raw_left = 0;
        return -1;
    }
    if (s->ch.compression == ECC_COMP_NONE) {
        size_t n = room < s->raw_left ? room : (size_t)s->raw_left;
        if (n && ecc_read_at(fd, s->win + keep, n, s->file_next) != 0) {
            fail_io(r, s->src, s->coff, "cannot read chunk payload");
            return -1;
        }
        s->file_next += n;
        s->raw_left -= n;
        s->cend += n;
    } else {
        uint8_t *out = s->win + keep;
        while (out < s->win + s->wcap && s->raw_left > 0) {
            if (s->zp == s->zend && s->stored_left > 0) {
                size_t k = s->stored_left < s->zcap ? (size_t)s->stored_left : s->zcap;
                if (ecc_read_at(fd, s->zin, k, s->stored_next) != 0) {
                    fail_io(r, s->src, s->coff, "cannot read chunk payload");
                    return -1;
                }
                s->stored_next += k;
                s->stored_left -= k;
                s->zp = s->zin;
                s->zend = s->zin + k;
            }
            const uint8_t *zp0 = s->zp;
            uint8_t *out0 = out;
            int done = 0;
            const char *why = ecc_inflate(s->cinf, &s->zp, s->zend, &out, s->win + s->wcap,
                                          &done);
            s->raw_left -= (uint64_t)(out - out0);
            if (!why && !done && s->zp == zp0 && out == out0 && s->zp == s->zend &&
                s->stored_left == 0)
                why = "compressed payload does not decompress to raw_length bytes";
            if (!why && done && s->raw_left != 0)
                why = "compressed payload ends before raw_length bytes";
            if (why) {
                set_bad_why(s, "%s", why);
                s->bad = 1;
                s->bad_done = s->ccount - s->cleft;
                s->cleft = 0;
                s->raw_left = 0;
                break;
            }
            if (done)
                break;
        }
        s->cend = out;
    }
    const pal_dict *d = s->src->dict;
    size_t have = (size_t)(s->cend - s->win);
    s->csafe = have > PAL_FAST_MARGIN && d->prefix_uleb ? s->cend - PAL_FAST_MARGIN : s->win;
    return s->bad ? -1 : 0;
}

static int grow_window(pal_stream *s, uint64_t want)
{
    if (want > PAL_MAX_RAW)
        want = PAL_MAX_RAW;
    if (want <= s->wcap)
        return 0;
    /* the records not decoded yet move to the start of the new window */
    size_t keep = (size_t)(s->cend - s->cp);
    uint8_t *nw = malloc((size_t)want);
    if (!nw)
        return -1;
    memcpy(nw, s->cp, keep);
    s->cbase += (uint64_t)(s->cp - s->win);
    s->ahead_len = 0;
    free(s->win);
    s->win = nw;
    s->wcap = (size_t)want;
    s->cp = nw;
    s->cend = nw + keep;
    s->csafe = nw;
    return 0;
}

/* Chunk header hb at off, and in the same read up to cap bytes after it into
 * buf (*got: how many came). 0, or -1 with errno. */
static int read_header_ahead(int fd, uint8_t *hb, uint8_t *buf, size_t cap, uint64_t off,
                             size_t *got)
{
    *got = 0;
    if (cap == 0 || !buf)
        return ecc_read_at(fd, hb, ECC_CHUNK_HEADER, off);
    struct iovec iov[2] = { { hb, ECC_CHUNK_HEADER }, { buf, cap } };
    ssize_t n;
    do
        n = preadv(fd, iov, 2, (off_t)off);
    while (n < 0 && errno == EINTR);
    if (n < (ssize_t)ECC_CHUNK_HEADER)      /* short or failed: the header alone */
        return ecc_read_at(fd, hb, ECC_CHUNK_HEADER, off);
    *got = (size_t)n - ECC_CHUNK_HEADER;
    return 0;
}

/* A copy whose original was read: is its payload intact (its CRC)? (Copies
 * are small: definitions.) */
static int copy_intact(int fd, const ecc_scan *sc, const ecc_event *ev)
{
    return payload_check(fd, sc, ev) == NULL;
}

/* Makes the next records chunk of s current: checks what its header says,
 * its CRC (before any record is decoded: damage never hands out a wrong
 * record), and fills the window. PAL_OK with a chunk ready, PAL_END when
 * the stream has no more, or a failure status. */
static pal_status load_chunk(pal_reader *r, pal_stream *s)
{
    pal_src *src = s->src;
    for (;;) {
        if (r->state == ST_FAILED)
            return r->failed;
        if (s->next >= s->nchunks)
            return PAL_END;
        int fd = pal_src_fd(r, src);
        if (fd < 0)
            return r->state == ST_FAILED ? r->failed : PAL_END;    /* reported */
        if (!s->win) {
            /* the first chunk: buffers now, not for every stream at open */
            s->wcap = 4096;
            s->ahead_len = 0;
            if (!(s->win = malloc(s->wcap))) {
                r->state = ST_FAILED;
                r->failed = PAL_ENOMEM;
                return PAL_ENOMEM;
            }
            s->cp = s->cend = s->csafe = s->win;
        }
        uint64_t off = s->chunks[s->next++];
        uint8_t hb[ECC_CHUNK_HEADER];
        ecc_event ev;
        memset(&ev, 0, sizeof ev);
        /* the header and, guessing from the stream's previous chunk where
         * and how long, the payload after it: one read for both */
        int guess_z = s->ch.compression != ECC_COMP_NONE && s->zin;
        uint8_t *pre_buf = guess_z ? s->zin : s->win;
        size_t pre_cap = guess_z ? s->zcap : s->wcap;
        size_t pre_want = (size_t)s->ch.stored_length + 4096;
        if (pre_want < pre_cap)
            pre_cap = pre_want;
        if (off + ECC_CHUNK_HEADER >= src->size)
            pre_cap = 0;
        else if (pre_cap > src->size - off - ECC_CHUNK_HEADER)
            pre_cap = (size_t)(src->size - off - ECC_CHUNK_HEADER);
        size_t pre = 0;             /* payload bytes in pre_buf */
        if (s->ahead_len && off >= s->ahead_off &&
            off - s->ahead_off + ECC_CHUNK_HEADER <= s->ahead_len) {
            /* read ahead with an earlier header of the stream (chunks of a
             * stream often follow each other: definitions and their copies):
             * from the window, what it holds after the header moved to its
             * start as a read would have put it */
            size_t at = (size_t)(off - s->ahead_off), d = at + ECC_CHUNK_HEADER;
            memcpy(hb, s->win + at, ECC_CHUNK_HEADER);
            memmove(s->win, s->win + d, s->ahead_len - d);
            s->ahead_off += d;
            s->ahead_len -= d;
            pre_buf = s->win;
            pre = s->ahead_len;
        } else {
            if (read_header_ahead(fd, hb, pre_buf, pre_cap, off, &pre) != 0) {
                fail_io(r, src, off, "cannot read chunk header");
                return PAL_EIO;
            }
            if (pre_buf == s->win) {
                s->ahead_off = off + ECC_CHUNK_HEADER;
                s->ahead_len = pre;
            }
        }
        const char *why = ecc_chunk_decode(hb, &ev.chunk);
        if (why) {
            /* it decoded at open: the file changed under the reader */
            report(r, src, off, "chunk header no longer readable (%s); chunk skipped", why);
            if (damaged(r, ECC_CHUNK_HEADER) != PAL_OK)
                return PAL_EFORMAT;
            continue;
        }
        const ecc_chunk *c = &ev.chunk;
        ev.offset = off;
        uint64_t whole = ECC_CHUNK_HEADER + (uint64_t)c->stored_length;
        if ((c->flags & ECC_CFLAG_COPY) && s->have_seq && s->last_seq == c->sequence) {
            /* the original was read; the copy is only checked (from what
             * was read with its header, when that holds its payload) */
            int intact = pre >= c->stored_length
                             ? ecc_crc32(0, pre_buf, c->stored_length) == c->payload_crc
                             : copy_intact(fd, NULL, &ev);
            if (!intact) {
                report(r, src, off, "copy of a definitions chunk damaged (payload CRC "
                       "mismatch); its original was read");
                if (damaged(r, whole) != PAL_OK)
                    return PAL_EFORMAT;
            }
            continue;
        }
        if (c->record_count == 0)
            continue;
        if (c->compression && !s->zin) {
            s->zcap = PAL_ZIN < r->window ? PAL_ZIN : r->window;
            if (!(s->zin = malloc(s->zcap))) {
                r->state = ST_FAILED;
                r->failed = PAL_ENOMEM;
                return PAL_ENOMEM;
            }
        }
        /* the CRC of the stored bytes, read a window at a time */
        size_t piece = c->compression ? s->zcap : s->wcap;
        if (!c->compression && c->stored_length > r->window && s->wcap < r->window) {
            /* a raw chunk larger than the budget is read through a window
             * of the whole budget: a few large reads, not many small ones */
            if (grow_window(s, r->window) != 0) {
                report(r, src, off, "out of memory for a window of %zu bytes", r->window);
                r->state = ST_FAILED;
                r->failed = PAL_ENOMEM;
                return PAL_ENOMEM;
            }
            piece = s->wcap;
        } else if (c->stored_length <= r->window && c->stored_length > piece) {
            /* a chunk that fits the stream's budget is held whole */
            if (c->compression) {
                uint8_t *nz = realloc(s->zin, c->stored_length);
                if (nz) {
                    s->zin = nz;
                    s->zcap = c->stored_length;
                }
            } else if (grow_window(s, c->stored_length) != 0) {
                report(r, src, off, "out of memory for a chunk of %" PRIu32 " bytes",
                       c->stored_length);
                r->state = ST_FAILED;
                r->failed = PAL_ENOMEM;
                return PAL_ENOMEM;
            }
            piece = c->compression ? s->zcap : s->wcap;
        }
        uint8_t *buf = c->compression ? s->zin : s->win;
        uint32_t crc = 0;
        uint64_t poff = off + ECC_CHUNK_HEADER;
        if (buf != pre_buf)
            pre = 0;                /* the guess was wrong, or the buffer moved */
        if (buf == s->win && c->stored_length > pre)
            s->ahead_len = 0;       /* the payload is read into the window */
        for (uint64_t done = 0; done < c->stored_length;) {
            size_t k = c->stored_length - done < piece ? (size_t)(c->stored_length - done) : piece;
            if (done == 0 && k <= pre) {
                /* read with the header */
            } else if (ecc_read_at(fd, buf, k, poff + done) != 0) {
                fail_io(r, src, off, "cannot read chunk payload");
                return PAL_EIO;
            }
            crc = ecc_crc32(crc, buf, k);
            done += k;
        }
        if (crc != c->payload_crc) {
            report(r, src, off, "chunk payload CRC mismatch, chunk skipped");
            if (damaged(r, whole) != PAL_OK)
                return PAL_EFORMAT;
            continue;
        }
        s->ch = *c;
        s->coff = off;
        s->cwhole = whole;
        s->cbase = 0;
        s->cp = s->cend = s->win;
        s->bad = 0;
        s->ccount = s->cleft = c->record_count;
        s->tsum = c->first_time;
        s->clast_time = c->last_time;
        s->chave_time = 0;
        s->ctime = 0;
        s->chunk_no++;
        int whole_in = c->stored_length <= piece;
        if (c->compression == ECC_COMP_NONE) {
            s->raw_left = c->raw_length;
            s->file_next = poff;
            if (whole_in) {
                /* the payload is in the window already */
                s->raw_left = 0;
                s->cend = s->win + c->raw_length;
            }
        } else {
            s->raw_left = c->raw_length;
            if (whole_in) {
                s->zp = s->zin;
                s->zend = s->zin + c->stored_length;
                s->stored_left = 0;
            } else {
                s->zp = s->zend = s->zin;
                s->stored_left = c->stored_length;
                s->stored_next = poff;
            }
            /* a payload that comes out whole here (stored bytes all read, the
             * raw ones fitting the window) uses the reader's one inflater; a
             * larger one, inflated as its records are read, the stream's own */
            int one_go = whole_in && c->raw_length <= r->window;
            ecc_inflater **pinf = one_go ? &r->inf : &s->inf;
            if (!*pinf && !(*pinf = ecc_inflater_create())) {
                r->state = ST_FAILED;
                r->failed = PAL_ENOMEM;
                return PAL_ENOMEM;
            }
            s->cinf = *pinf;
            if ((why = ecc_inflater_reset(s->cinf, c->compression, c->raw_length)) != NULL) {
                report(r, src, off, "records chunk damaged: %s; chunk skipped", why);
                if (damaged(r, whole) != PAL_OK)
                    return PAL_EFORMAT;
                continue;
            }
            /* a small payload comes out whole */
            if (c->raw_length <= r->window && grow_window(s, c->raw_length) != 0) {
                r->state = ST_FAILED;
                r->failed = PAL_ENOMEM;
                return PAL_ENOMEM;
            }
        }
        if (s->raw_left > 0 && refill(r, s) != 0) {
            if (r->state == ST_FAILED)
                return r->failed;
            /* damaged on the way (s->bad): reported by the caller */
            return PAL_OK;
        }
        if (s->raw_left == 0) {
            const pal_dict *d = src->dict;
            size_t have = (size_t)(s->cend - s->win);
            s->csafe = have > PAL_FAST_MARGIN && d->prefix_uleb ? s->cend - PAL_FAST_MARGIN : s->win;
        }
        s->have_seq = 1;
        s->last_seq = c->sequence;
        return PAL_OK;
    }
}

/* ---------------------------------------------------------------- records */

/* Formats the decoded primary key (in vals) for a report. */
static void key_text(const pal_dict *d, const pal_value *vals, const uint32_t *lens, char *buf,
                     size_t size)
{
    if (!d->key_count || !d->prefix_done) {
        snprintf(buf, size, "?");
        return;
    }
    pal_value v = vals[d->key_index[0]];
    switch (d->key_class) {
    case PAL_TC_SIGNED: snprintf(buf, size, "%" PRId64, v.i); break;
    case PAL_TC_UNSIGNED: snprintf(buf, size, "%" PRIu64, v.u); break;
    case PAL_TC_FLOAT: snprintf(buf, size, "%g", v.f); break;
    default: {
        uint32_t n = lens[d->key_index[0]];
        snprintf(buf, size, "\"%.*s\"", (int)(n > 40 ? 40 : n), (const char *)v.s);
    }
    }
}

/* Explains a failed checked decode: "record 3 (at payload byte 17): ..."; vals
 * and lens hold what was decoded of the record. */
static void decode_why(const pal_dict *d, const pal_decerr *e, const pal_value *vals,
                       const uint32_t *lens, uint64_t index, uint64_t at, char *why,
                       size_t whylen)
{
    char key[64];
    if (e->rec == NULL && e->field < 0) {
        key_text(d, vals, lens, key, sizeof key);
        snprintf(why, whylen, "record %" PRIu64 " (at payload byte %" PRIu64 "): %s %s", index,
                 at, e->why, key);
    } else if (e->field >= 0) {
        const pal_recdesc *rd = e->rec ? e->rec : d->prefix_rec;
        const char *fname = rd && (size_t)e->field < rd->nfields ? rd->fields[e->field].name : "?";
        snprintf(why, whylen, "record %" PRIu64 " (at payload byte %" PRIu64 ")%s%s, field '%s': %s",
                 index, at, e->rec ? " " : "", e->rec ? e->rec->name : "", fname, e->why);
    } else {
        snprintf(why, whylen, "record %" PRIu64 " (at payload byte %" PRIu64 ") %s: %s", index, at,
                 e->rec->name, e->why);
    }
}

/* rec->time: the record's time, or for a record without one the running
 * time of its stream (what it is ordered by; pal_record_time says 0). */
PAL_INLINE void fill_record(const pal_src *src, const pal_stream *s, pal_record *rec,
                            const pal_recdesc *rd, const pal_value *vals, uint64_t running)
{
    rec->desc = rd;
    rec->time = rd->time_fi >= 0 ? pal_record_time_of(rd, vals) : running;
    rec->offset = s->coff;
    if (PAL_LIKELY(!src->dict->role_fields)) {
        rec->process = s->process;
        rec->stream = s->stream;
        return;
    }
    rec->process = rd->process_fi < 0 ? s->process
        : (uint32_t)pal_value_as_u64(vals[rd->process_fi], rd->fields[rd->process_fi].tclass);
    rec->stream = rd->thread_fi < 0 ? s->stream
        : (uint32_t)pal_value_as_u64(vals[rd->thread_fi], rd->fields[rd->thread_fi].tclass);
}

/* One LEB128 value at q for the kernels of fill_batch: up to three bytes
 * inline (at least PAL_FAST_MARGIN bytes are left, so no bounds test), longer
 * ones by the codec's bounds-checked decoder. A value above `lim` -- tested
 * from two bytes on if `check2`, else from three bytes on (the record's
 * limits are at least 16383 then) -- or a LEB that does not decode sends the
 * record to the checked decoder. A value of one byte, below 128, fits every
 * type. */
#define PAL_KERNEL_LEB(x, check2, lim)                                          \
    do {                                                                        \
        (x) = q[0];                                                             \
        if (PAL_LIKELY((x) < 0x80)) {                                           \
            q++;                                                                \
        } else {                                                                \
            uint64_t b_ = q[1];                                                 \
            if (PAL_LIKELY(b_ < 0x80)) {                                        \
                (x) = ((x) & 0x7f) | (b_ << 7);                                 \
                q += 2;                                                         \
                if ((check2) && PAL_UNLIKELY((x) > (lim)))                      \
                    goto checked;                                               \
            } else if (q[2] < 0x80) {                                           \
                (x) = ((x) & 0x7f) | ((b_ & 0x7f) << 7) | ((uint64_t)q[2] << 14); \
                q += 3;                                                         \
                if (PAL_UNLIKELY((x) > (lim)))                                  \
                    goto checked;                                               \
            } else {                                                            \
                const unsigned char *q_ = q;                                    \
                uint64_t y_;                                                    \
                if (ecc_get_uleb_slow(&q_, s->cend, &y_) != ECC_LEB_OK ||       \
                    PAL_UNLIKELY(y_ > (lim)))                                   \
                    goto checked;                                               \
                q = q_;                                                         \
                (x) = y_;                                                       \
            }                                                                   \
        }                                                                       \
    } while (0)

/* Results of decode_checked. */
enum { DC_OK = 1, DC_BAD = 0, DC_MORE = -1 };

/* A record with every check, from *pp, into rec. DC_BAD if it does not
 * decode (the chunk is then damaged from it on: s->bad), DC_MORE if it runs
 * past the window while more of the payload is to come. Out of line, so that
 * the kernels' loop keeps its state in registers. */
static PAL_NOINLINE int decode_checked(pal_stream *s, const unsigned char **pp, uint64_t *tp,
                                       pal_record *rec, uint32_t i)
{
    pal_value *vals = (pal_value *)rec->vals;       /* the batch's own rows */
    uint32_t *lens = (uint32_t *)rec->lens;
    const unsigned char *p0 = *pp;
    const pal_recdesc *rd;
    pal_decerr e;
    const pal_dict *d = s->src->dict;
    int rc = pal_decode_record(d, pp, s->cend, tp, vals, lens, &rd, &e);
    if (rc != PAL_DEC_OK) {
        if (rc == PAL_DEC_SHORT && s->raw_left > 0)
            return DC_MORE;
        s->bad_done = s->ccount - s->cleft + i;
        char why[320];
        decode_why(d, &e, vals, lens, s->bad_done, s->cbase + (uint64_t)(p0 - s->win), why,
                   sizeof why);
        set_bad_why(s, "%s", why);
        s->bad = 1;
        return DC_BAD;
    }
    fill_record(s->src, s, rec, rd, vals, *tp);
    return DC_OK;
}

/* The op list of rd with bounds checks (no reasons: a failure is decoded
 * again by decode_checked). */
static PAL_NOINLINE int decode_ops(const pal_recdesc *rd, const unsigned char **pp,
                                   const unsigned char *end, uint64_t *tp, pal_record *rec)
{
    pal_value *vals = (pal_value *)rec->vals;
    if (pal_run_ops(rd->ops, rd->ops + rd->nops, pp, end, tp, vals, (uint32_t *)rec->lens,
                    NULL) != PAL_DEC_OK)
        return 0;
    rec->time = rd->time_fi >= 0 ? pal_record_time_of(rd, vals) : *tp;
    return 1;
}

/* The batch loop of fill_batch, for records from rec to rend: kernels while
 * they apply, decode_checked otherwise. Returns where it stopped (rend, the
 * record that does not decode, or the one that needs more of the payload:
 * *more). Inlined three times -- with role fields, keeping the records'
 * bytes (runs), neither -- so that none pays for the others. */
PAL_INLINE pal_record *decode_batch(pal_stream *s, pal_record *rec, pal_record *const rend,
                                    const int roles, const int raw, int *more)
{
    const unsigned char *p = s->cp;
    const unsigned char *const safe = s->csafe;
    const pal_dict *const dict = s->src->dict;
    const pal_recdesc *const *const byte_key = dict->byte_key;
    uint64_t t = s->tsum;
    /* Each record's values follow the previous record's, packed by its field
     * count: the batch's working set stays in L1 however wide the widest
     * record of the dictionary is. Room for a widest record is always left
     * (the rows hold nbatch of them). */
    const size_t gap = s->gap;
    pal_value *vc = s->bvals + (size_t)(rec - s->batch) * s->nvals + gap;
    uint32_t *lc = s->blens + (size_t)(rec - s->batch) * s->nvals + gap;
    for (; rec < rend; rec++) {
        rec->vals = vc;
        rec->lens = lc;
        /* p and t stay at the record's start until it has decoded */
        if (PAL_LIKELY(p < safe)) {
            unsigned k = *p;
            const pal_recdesc *rd = byte_key[k];
            const unsigned char *q = p + 1;
            if (PAL_UNLIKELY(k >= 0x80)) {
                /* a key of two bytes (user types): the direct table */
                unsigned k2 = p[1];
                k = (k & 0x7f) | k2 << 7;
                if (k2 >= 0x80 || k >= dict->ndirect || !dict->direct[k])
                    goto checked;
                rd = dict->direct[k];
                q = p + 2;
            }
            pal_value *const vals = vc;
            uint64_t x, tt = t;
            unsigned shape = rd->shape;
            if (PAL_LIKELY(shape == PAL_SH_TU)) {
                PAL_KERNEL_LEB(x, 0, UINT64_MAX);
                if (PAL_UNLIKELY(PAL_ADD_OVERFLOW(tt, x)))
                    goto checked;
                vals[1].u = tt;
                PAL_KERNEL_LEB(x, 0, rd->leb_lim);
                vals[2].u = x;
                rec->time = tt;
            } else {
                switch (shape) {
                case PAL_SH_TUU:
                    PAL_KERNEL_LEB(x, 0, UINT64_MAX);
                    if (PAL_UNLIKELY(PAL_ADD_OVERFLOW(tt, x)))
                        goto checked;
                    vals[1].u = tt;
                    PAL_KERNEL_LEB(x, 0, rd->leb_lim);
                    vals[2].u = x;
                    PAL_KERNEL_LEB(x, 0, rd->leb_lim);
                    vals[3].u = x;
                    rec->time = tt;
                    break;
                case PAL_SH_T:
                case PAL_SH_TUN: {
                    PAL_KERNEL_LEB(x, 0, UINT64_MAX);
                    if (PAL_UNLIKELY(PAL_ADD_OVERFLOW(tt, x)))
                        goto checked;
                    vals[1].u = tt;
                    rec->time = tt;
                    const uint64_t lim = rd->leb_lim;
                    pal_value *v = vals + 2;
                    for (unsigned j = rd->nuleb; j; j--, v++) {
                        PAL_KERNEL_LEB(x, 0, lim);
                        v->u = x;
                    }
                    break;
                }
                case PAL_SH_LEB: {
                    const uint64_t lim = rd->leb_lim;
                    pal_value *v = vals + 1;
                    for (uint64_t kinds = rd->leb_kinds; kinds; kinds >>= 4, v++) {
                        unsigned kind = kinds & 15;
                        if (kind == PAL_LK_TDELTA) {
                            PAL_KERNEL_LEB(x, 0, UINT64_MAX);
                            if (PAL_UNLIKELY(PAL_ADD_OVERFLOW(tt, x)))
                                goto checked;
                            x = tt;
                        } else {
                            PAL_KERNEL_LEB(x, 1, lim);
                            if (kind == PAL_LK_SLEB)
                                x = (uint64_t)ecc_unzigzag(x);
                        }
                        v->u = x;
                    }
                    rec->time = tt;   /* the one TDELTA, or the running time */
                    break;
                }
                case PAL_SH_OPS: {
                    const unsigned char *q2 = q;
                    uint64_t t2 = tt;
                    vals[0].u = k;      /* the op list may look at it for the time */
                    if (!decode_ops(rd, &q2, s->cend, &t2, rec))
                        goto checked;
                    q = q2;
                    tt = t2;
                    break;
                }
                default:
                    goto checked;
                }
            }
            vals[0].u = k;
            if (raw) {
                rec->raw = p;
                rec->rawlen = (uint32_t)(q - p);
            }
            p = q;
            t = tt;
            rec->desc = rd;
            vc += rd->nfields + gap;
            lc += rd->nfields + gap;
            if (roles)
                fill_record(s->src, s, rec, rd, vals, tt);
            continue;
        }
    checked:
        /* with every check and its reason */
        {
            const unsigned char *q = p;
            uint64_t tq = t;
            int rc = decode_checked(s, &q, &tq, rec, (uint32_t)(rec - s->batch));
            if (rc != DC_OK) {
                *more = rc == DC_MORE;
                break;
            }
            if (raw) {
                rec->raw = p;
                rec->rawlen = (uint32_t)(q - p);
            }
            p = q;
            t = tq;
            vc += rec->desc->nfields + gap;
            lc += rec->desc->nfields + gap;
        }
    }
    s->cp = p;
    s->tsum = t;
    return rec;
}

/* The records of a run: times in ns of the run, durations in ns, and the
 * run's record descriptors. */
static void map_batch(const pal_reader *r, pal_stream *s, pal_record *rec, pal_record *rend)
{
    const pal_src *src = s->src;
    pal_record *first = rec;
    for (; rec < rend; rec++) {
        const pal_recdesc *rd = rec->desc;
        pal_value *vals = (pal_value *)rec->vals;
        double ns = src->g0 + src->b * (double)(int64_t)(rec->time - src->t0);
        uint64_t t = ns > 0 ? (uint64_t)(ns + 0.5) : 0;
        rec->time = t;
        if (rd->time_fi >= 0)
            vals[rd->time_fi].u = t;
        const pal_recdesc *to = src->map[rd->index];
        for (uint64_t m = to->ticks_mask; m; m &= m - 1) {
            unsigned k = (unsigned)__builtin_ctzll(m);
            vals[k].u = (uint64_t)((double)vals[k].u * src->b + 0.5);
        }
        for (size_t k = 64; to->ticks_more && k < to->nfields; k++)
            if (to->fields[k].from_ticks)
                vals[k].u = (uint64_t)((double)vals[k].u * src->b + 0.5);
        rec->desc = to;
        rec->process = src->process;
    }
    if (!s->gap)
        return;
    /* a run file read as its merge: `process` and `thread` after the time.
     * decode_batch left two values free before each record's (s->gap): the
     * first two move down into them, and the fields after the time are
     * where the merged record has them already. */
    for (rec = first; rec < rend; rec++) {
        pal_value *ov = (pal_value *)rec->vals, *nv = ov - 2;
        uint32_t *ol = (uint32_t *)rec->lens, *nl = ol - 2;
        pal_value v0 = ov[0], v1 = ov[1];
        uint32_t l0 = ol[0], l1 = ol[1];
        nv[0] = v0;
        nv[1] = v1;
        nv[2].u = rec->process;
        nv[3].u = rec->stream;
        nl[0] = l0;
        nl[1] = l1;
        nl[2] = nl[3] = 0;
        rec->vals = nv;
        rec->lens = nl;
        rec->desc = r->dict->recs[rec->desc->index];
        rec->raw = NULL;
    }
}

/* Decodes the next batch of the stream's current chunk (see the top of the
 * file), refilling the window first when it runs low. A record that does not
 * decode ends the batch before it and leaves the rest of the chunk damaged
 * (s->bad), reported once the records before it have been handed out; so are
 * a chunk that does not end where its last record does and a last time that
 * differs from the header's. */
static void fill_batch(pal_reader *r, pal_stream *s)
{
    const pal_dict *d = s->src->dict;
    pal_record *rec = s->batch;
    s->bnext = s->bend = s->batch;
    if (!d->role_fields && s->batch_chunk != s->chunk_no) {
        /* container roles: the same for every record of the chunk */
        for (size_t i = 0; i < s->nbatch; i++) {
            s->batch[i].offset = s->coff;
            s->batch[i].process = s->process;
            s->batch[i].stream = s->stream;
        }
        s->batch_chunk = s->chunk_no;
    }
    for (;;) {
        if (s->raw_left > 0 && (size_t)(s->cend - s->cp) < s->wcap / 2 && refill(r, s) != 0)
            return;
        uint32_t n = s->cleft < s->nbatch ? s->cleft : (uint32_t)s->nbatch;
        int more = 0;
        /* instantiated for: fields naming process and thread; a run's
         * records keeping where their bytes are (for the merge) */
        if (d->role_fields)
            rec = decode_batch(s, s->batch, s->batch + n, 1, 0, &more);
        else if (s->src->map)
            rec = decode_batch(s, s->batch, s->batch + n, 0, 1, &more);
        else
            rec = decode_batch(s, s->batch, s->batch + n, 0, 0, &more);
        if (rec == s->batch && more) {
            /* a record longer than the window */
            uint64_t want = (uint64_t)s->wcap * 2;
            if (want > s->ch.raw_length)
                want = s->ch.raw_length;
            if (grow_window(s, want) != 0) {
                set_bad_why(s, "out of memory for a record longer "
                         "than %zu bytes", s->wcap);
                s->bad = 1;
                s->bad_done = s->ccount - s->cleft;
                s->cleft = 0;
                return;
            }
            if (refill(r, s) != 0)
                return;
            continue;
        }
        break;
    }
    uint32_t i = (uint32_t)(rec - s->batch);
    s->cleft -= i;
    s->bend = s->batch + i;
    /* the last record with a time so far, for the chunk's last_time */
    for (uint32_t j = i; j-- > 0;)
        if (s->batch[j].desc->time_fi >= 0) {
            s->ctime = s->batch[j].time;
            s->chave_time = 1;
            break;
        }
    if (s->bad) {
        s->cleft = 0;
    } else if (s->cleft == 0) {
        s->bad_done = s->ccount;
        uint64_t at = s->cbase + (uint64_t)(s->cp - s->win);
        if (s->cp != s->cend || s->raw_left != 0) {
            set_bad_why(s, "%" PRIu32 " records end at payload byte %"
                     PRIu64 " of %" PRIu32, s->ccount, at, s->ch.raw_length);
            s->bad = 1;
        } else if (s->chave_time && s->ctime != s->clast_time) {
            set_bad_why(s, "last record time %" PRIu64 " differs from "
                     "the chunk's last_time %" PRIu64, s->ctime, s->clast_time);
            s->bad = 1;
        } else {
            r->st.chunks++;
        }
    }
    if (s->src->map && i > 0)
        map_batch(r, s, s->batch, s->bend);
}

/* Makes the next batch of s ready: PAL_OK with records, PAL_END when the
 * stream is done, or a failure. */
static pal_status stream_fill_own(pal_reader *r, pal_stream *s);
static pal_status stream_fill(pal_reader *r, pal_stream *s)
{
    if (PAL_LIKELY(!s->borrowed))
        return stream_fill_own(r, s);
    r->mute = 1;   /* its owner says its damage */
    pal_status st = stream_fill_own(r, s);
    r->mute = 0;
    return st;
}

static pal_status stream_fill_own(pal_reader *r, pal_stream *s)
{
    for (;;) {
        if (s->bad) {
            /* the records before the damage have been handed out */
            s->bad = 0;
            if (s->bad_done)
                report(r, s->src, s->coff, "records chunk damaged: %s; its first %" PRIu32
                       " records were read, the rest of the chunk is skipped", bad_why(s),
                       s->bad_done);
            else
                report(r, s->src, s->coff, "records chunk damaged: %s; chunk skipped",
                       bad_why(s));
            if (damaged(r, s->cwhole) != PAL_OK)
                return PAL_EFORMAT;
        }
        if (s->cleft == 0) {
            pal_status st = load_chunk(r, s);
            if (st != PAL_OK)
                return st;
            if (s->bad)
                continue;
        }
        fill_batch(r, s);
        if (r->state == ST_FAILED)
            return r->failed;
        if (s->bnext < s->bend)
            return PAL_OK;
    }
}

/* ---------------------------------------------------------------- raw and ascii */

/* A raw-stream record whose descriptor has arrays, field by field from b
 * (count field, then count items of the fixed shape, component by component). */
static int decode_arrays(pal_reader *r, const pal_recdesc *rd, const unsigned char *b,
                         const unsigned char *end, const unsigned char **qout, uint64_t *tsum,
                         pal_decerr *e)
{
    const pal_dict *d = r->dict;
    size_t first = d->key_count ? d->key_last + 1 : 0;
    const unsigned char *p = b;
    size_t nitems = 0;
    for (size_t i = 0; i < rd->nfields; i++) {
        if (rd->fields[i].type != PAL_ARRAY) {
            const pal_op *op = i < first ? &d->prefix[i] : &rd->ops[i - first];
            int rc = pal_run_ops(op, op + 1, &p, end, tsum, r->vals, r->lens, e);
            if (rc)
                return rc;
            continue;
        }
        const struct pal_barr *ba = &rd->barrs[i];
        e->field = (long)i;
        e->rec = rd;
        if (ba->count_fi < 0) {
            e->code = PAL_DEC_BAD;
            e->why = "array not readable from a binary record";
            return PAL_DEC_BAD;
        }
        const pal_fielddesc *cf = &rd->fields[ba->count_fi];
        uint64_t count = r->vals[ba->count_fi].u;
        if (cf->tclass == PAL_TC_SIGNED && r->vals[ba->count_fi].i < 0) {
            e->code = PAL_DEC_BAD;
            e->why = "negative array count";
            return PAL_DEC_BAD;
        }
        /* every component takes at least one byte */
        if (ba->ncomp == 0 || count > (uint64_t)(end - p) / ba->ncomp) {
            e->code = PAL_DEC_SHORT;
            e->why = "record runs past the end of the data";
            return PAL_DEC_SHORT;
        }
        size_t m = (size_t)count * ba->ncomp;
        if (nitems + m > r->icap) {
            size_t cap = r->icap ? r->icap : 64;
            while (cap < nitems + m)
                cap *= 2;
            pal_value *iv = realloc(r->ivals, cap * sizeof *iv);
            if (iv)
                r->ivals = iv;
            uint32_t *il = iv ? realloc(r->ilens, cap * sizeof *il) : NULL;
            if (!iv || !il) {
                e->code = PAL_DEC_BAD;
                e->why = "out of memory";
                return PAL_DEC_BAD;
            }
            r->ilens = il;
            r->icap = cap;
        }
        for (size_t it = 0; it < m; it++) {
            const pal_op *op = &ba->ops[it % ba->ncomp];
            int rc = pal_run_ops(op, op + 1, &p, end, tsum, &r->ivals[nitems + it],
                                 &r->ilens[nitems + it], e);
            if (rc)
                return rc;
            if (ba->tclass[it % ba->ncomp] != PAL_TC_STRING)
                r->ilens[nitems + it] = 0;
        }
        pal_arr *a = &r->arrs[i];
        a->count = (uint32_t)count;
        a->ncomp = ba->ncomp;
        a->first = (uint32_t)nitems;
        a->tclass = ba->tclass;
        a->types = ba->types;
        r->vals[i].u = count;
        r->lens[i] = 0;
        nitems += m;
    }
    for (size_t i = 0; i < rd->nfields; i++)
        if (rd->fields[i].type == PAL_ARRAY) {
            r->arrs[i].v = r->ivals + r->arrs[i].first;
            r->arrs[i].len = r->ilens + r->arrs[i].first;
        }
    *qout = p;
    return PAL_DEC_OK;
}


/* Makes file bytes [off, off + n) of a raw source available in the read
 * window, reading `ahead` bytes (at least n, at most to the end of file) when
 * it must. NULL if the file does not hold them or cannot be read. */
static const unsigned char *fetch(pal_reader *r, const pal_src *s, uint64_t off, size_t n,
                                  size_t ahead)
{
    if (off >= r->roff && n <= r->rlen && off - r->roff <= r->rlen - n)
        return r->rbuf + (off - r->roff);
    if (off > s->size || n > s->size - off)
        return NULL;
    size_t want = ahead > n ? ahead : n;
    if (want > s->size - off)
        want = (size_t)(s->size - off);
    if (want > r->rcap) {
        unsigned char *nb = realloc(r->rbuf, want);
        if (!nb)
            return NULL;
        r->rbuf = nb;
        r->rcap = want;
    }
    r->rlen = 0;
    if (ecc_read_at(s->fd, r->rbuf, want, off) != 0)
        return NULL;
    r->roff = off;
    r->rlen = want;
    return r->rbuf;
}

PAL_INLINE void fill_single(pal_reader *r, const pal_src *s, const pal_recdesc *rd)
{
    pal_record *rec = &r->rec;
    rec->desc = rd;
    rec->time = pal_record_time_of(rd, r->vals);
    rec->offset = s->pos;
    rec->process = rd->process_fi < 0 ? s->header_process
        : (uint32_t)pal_value_as_u64(r->vals[rd->process_fi], rd->fields[rd->process_fi].tclass);
    rec->stream = rd->thread_fi < 0 ? 0
        : (uint32_t)pal_value_as_u64(r->vals[rd->thread_fi], rd->fields[rd->thread_fi].tclass);
}

/* A raw stream: records back to back, decoded with full checks one at a time
 * (there are no chunk CRCs to lean on). */
static pal_status raw_next(pal_reader *r, const pal_record **out)
{
    pal_src *s = &r->srcs[0];
    if (r->state != ST_READING)
        return r->state == ST_ENDED ? PAL_END : r->failed;
    uint64_t left = s->size - s->pos;
    if (left == 0) {
        r->state = ST_ENDED;
        return PAL_END;
    }
    size_t ahead = PAL_READAHEAD;
    for (;;) {
        size_t n = left < ahead ? (size_t)left : ahead;
        const unsigned char *b = fetch(r, s, s->pos, n, ahead);
        if (!b) {
            fail_io(r, s, s->pos, "read error");
            return PAL_EIO;
        }
        const unsigned char *q = b;
        const pal_recdesc *rd = NULL;
        pal_decerr e;
        uint64_t tsave = s->tsum;
        int rc = pal_decode_record(r->dict, &q, b + n, &s->tsum, r->vals, r->lens, &rd, &e);
        if (rc == PAL_DEC_BAD && e.rec && e.rec->barrs && e.field < 0) {
            /* a known record with arrays: field by field */
            uint64_t t = tsave;
            q = b;
            rc = decode_arrays(r, e.rec, b, b + n, &q, &t, &e);
            s->tsum = rc == PAL_DEC_OK ? t : tsave;
            rd = e.rec;
        }
        if (rc == PAL_DEC_SHORT && n < left && ahead < PAL_MAX_RAW_RECORD) {
            ahead *= 2;             /* a long record: widen the window */
            continue;
        }
        if (rc == PAL_DEC_SHORT && n == left) {
            report(r, s, s->pos, "file ends inside a record (%" PRIu64 " bytes left): truncated",
                   left);
            r->st.truncated = 1;
            r->st.bytes_skipped += left;
            r->state = r->strict ? ST_FAILED : ST_ENDED;
            r->failed = PAL_EFORMAT;
            return r->strict ? PAL_EFORMAT : PAL_END;
        }
        if (rc != PAL_DEC_OK) {
            char why[512];
            decode_why(r->dict, &e, r->vals, r->lens, r->st.records, 0, why, sizeof why);
            report(r, s, s->pos, "cannot decode %s; a raw stream has no framing to resume at, "
                   "the remaining %" PRIu64 " bytes are skipped",
                   rc == PAL_DEC_SHORT ? "a record longer than 256 MiB" : why, left);
            r->state = ST_ENDED;
            if (damaged(r, left) != PAL_OK)
                return PAL_EFORMAT;
            return PAL_END;
        }
        fill_single(r, s, rd);
        s->pos += (uint64_t)(q - b);
        r->st.records++;
        *out = &r->rec;
        return PAL_OK;
    }
}

/* An ascii file: line by line; bad lines are reported as
 * "path:line:col: message", counted and skipped (strict mode: the end). */
static pal_status lines_next(pal_reader *r, const pal_record **out)
{
    pal_src *s = &r->srcs[0];
    if (r->state != ST_READING)
        return r->state == ST_ENDED ? PAL_END : r->failed;
    for (;;) {
        char msg[768];
        uint64_t line = 0;
        uint32_t col = 0;
        msg[0] = '\0';
        int rc = pal_ascii_next(s->ascii, &r->rec, msg, sizeof msg, &line, &col);
        if (PAL_LIKELY(rc == 1)) {
            r->st.records++;
            *out = &r->rec;
            return PAL_OK;
        }
        if (rc == 0) {
            r->state = ST_ENDED;
            return PAL_END;
        }
        if (rc == -2) {
            pal_reader_note(r, "%s: %s", s->path, msg);
            r->state = ST_FAILED;
            r->failed = PAL_EIO;
            return PAL_EIO;
        }
        if (col)
            pal_reader_note(r, "%s:%" PRIu64 ":%" PRIu32 ": %s", s->path, line, col, msg);
        else
            pal_reader_note(r, "%s:%" PRIu64 ": %s", s->path, line, msg);
        if (damaged(r, 0) != PAL_OK)
            return PAL_EFORMAT;
    }
}

/* ---------------------------------------------------------------- the merge of streams */

/* Stream a's next record comes before b's: by time; at the same time, by
 * process, then in file order (the offsets of their chunks). */
static inline int tie_before(const pal_stream *a, const pal_stream *b)
{
    if (a->process != b->process)
        return a->process < b->process;
    if (a->coff != b->coff)
        return a->coff < b->coff;
    return a->stream < b->stream;
}

/* Heap entries: by the cached time of each stream's next record, ties by
 * tie_before. The heap's top is the stream being read (r->cur) while it is:
 * when its records reach the limit it is sifted down from the top in place
 * (one pass) instead of being popped and pushed again. */
typedef struct pal_heapent heapent;

static inline int ent_before(const heapent *a, const heapent *b)
{
    return a->time < b->time || (a->time == b->time && tie_before(a->s, b->s));
}

static void heap_down(heapent *h, size_t n, size_t i)
{
    heapent x = h[i];
    for (;;) {
        size_t l = 2 * i + 1;
        if (l >= n)
            break;
        if (l + 1 < n && ent_before(&h[l + 1], &h[l]))
            l++;
        if (!ent_before(&h[l], &x))
            break;
        h[i] = h[l];
        i = l;
    }
    h[i] = x;
}

static void heap_push(pal_reader *r, pal_stream *s)
{
    heapent e = { s->bnext->time, s };
    size_t i = r->nheap++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (!ent_before(&e, &r->heap[p]))
            break;
        r->heap[i] = r->heap[p];
        i = p;
    }
    r->heap[i] = e;
}

/* The top's next record changed (its time is new): sift it down. */
static void heap_top_moved(pal_reader *r)
{
    r->heap[0].time = r->heap[0].s->bnext->time;
    heap_down(r->heap, r->nheap, 0);
}

/* The top is done: it leaves the heap. */
static void heap_drop_top(pal_reader *r)
{
    if (--r->nheap > 0) {
        r->heap[0] = r->heap[r->nheap];
        heap_down(r->heap, r->nheap, 0);
    }
}

/* A definitions stream: stream 0 of an ECL trace, its process-wide
 * definitions (doc/trace-format.md, "Chunks"); read by every share that
 * reads the file's threads (pal_reader_lend_definitions). */
static int defs_stream(const pal_stream *s)
{
    return s->stream == 0 && s->src->framing == FRAMING_ECL;
}

/* pal_reader_set_share: which streams are the reader's. By file when the
 * reader has at least n files, in blocks (file i of m is share i * n / m:
 * neighbouring ranks, which exchange most messages, in one share); else by the rank of
 * each thread's stream in the order of (process, stream), definitions
 * streams left out (rank i is share i % n), a file's definitions stream
 * being the share's of its first thread (of file i % n when it has none),
 * and borrowed by the other shares that read its threads when asked.
 * Sets s->borrowed; 1 for a stream of the share (or borrowed), else 0; -1
 * on no memory. */
static int share_streams(pal_reader *r, unsigned char *mine)
{
    unsigned n = r->share_n, k = r->share_k;
    size_t *owner = calloc(r->nsrcs ? r->nsrcs : 1, sizeof *owner);
    unsigned char *reads = calloc(r->nsrcs ? r->nsrcs : 1, 1);
    if (!owner || !reads) {
        free(owner);
        free(reads);
        return -1;
    }
    for (size_t f = 0; f < r->nsrcs; f++)
        owner[f] = SIZE_MAX;
    size_t rank = 0;
    for (size_t i = 0; i < r->nstreams; i++) {
        const pal_stream *s = r->streams[i];
        size_t f = (size_t)(s->src - r->srcs);
        if (r->nsrcs >= n) {
            mine[i] = f * n / r->nsrcs == k;
            continue;
        }
        if (defs_stream(s))
            continue;
        size_t share = rank++ % n;
        mine[i] = share == k;
        reads[f] |= mine[i];
        if (owner[f] == SIZE_MAX)
            owner[f] = share;
    }
    for (size_t i = 0; r->nsrcs < n && i < r->nstreams; i++) {
        pal_stream *s = r->streams[i];
        size_t f = (size_t)(s->src - r->srcs);
        if (!defs_stream(s))
            continue;
        mine[i] = (owner[f] != SIZE_MAX ? owner[f] : f % n) == k;
        if (!mine[i] && reads[f] && r->lend_defs) {
            s->borrowed = 1;
            r->nborrowed++;
            mine[i] = 1;
        }
    }
    free(owner);
    free(reads);
    return 0;
}

void pal_reader_lend_definitions(pal_reader *r)
{
    if (r && !r->started)
        r->lend_defs = 1;
}

pal_status pal_reader_set_share(pal_reader *r, unsigned k, unsigned n)
{
    PAL_REQUIRE(r, PAL_EINVAL);
    if (n == 0 || k >= n || r->started)
        return PAL_EINVAL;
    r->share_k = k;
    r->share_n = n;
    return PAL_OK;
}

/* A stream's chunk offsets given back (they may be in its own chunk0). */
static void chunks_free(pal_stream *s)
{
    if (s->chunks != s->chunk0)
        free(s->chunks);
    s->chunks = NULL;
}

/* A stream that has ended gives its buffers back (a run's streams end at
 * different times: the memory goes with them). */
static void stream_release(pal_stream *s)
{
    s->ended = 1;
    free(s->win);
    free(s->zin);
    ecc_inflater_destroy(s->inf);
    free(s->batch);
    free(s->bvals);
    free(s->blens);
    s->win = s->zin = NULL;
    s->inf = s->cinf = NULL;
    s->batch = s->bnext = s->bend = NULL;
    s->bvals = NULL;
    s->blens = NULL;
    s->wcap = s->zcap = 0;
    chunks_free(s);
    s->nchunks = s->capchunks = s->next = 0;
}

void pal_reader_flush_notes(pal_reader *r)
{
    while (r->msgs) {
        pal_msg *m = r->msgs;
        r->msgs = m->next;
        emit(r, m->text);
        free(m);
    }
    r->msgs_tail = &r->msgs;
}

/* The first read: what opening found is said, every stream's first batch
 * (of the reader's share) is decoded and the heap built. */
static pal_status start(pal_reader *r)
{
    r->started = 1;
    size_t nmsg = 0;
    while (r->msgs) {
        pal_msg *m = r->msgs;
        r->msgs = m->next;
        emit(r, m->text);
        free(m);
        nmsg++;
    }
    r->msgs_tail = &r->msgs;
    if (r->strict && (r->st.damaged > 0 || r->st.truncated)) {
        r->state = ST_FAILED;
        r->failed = PAL_EFORMAT;
        return PAL_EFORMAT;
    }
    if (r->srcs[0].framing != FRAMING_ECL)
        return PAL_OK;
    unsigned char *mine = NULL;
    if (r->share_n > 1 &&
        (!(mine = malloc(r->nstreams ? r->nstreams : 1)) || share_streams(r, mine) != 0)) {
        free(mine);
        r->state = ST_FAILED;
        r->failed = PAL_ENOMEM;
        return PAL_ENOMEM;
    }
    pal_status st = PAL_OK;
    for (size_t i = 0; i < r->nstreams && (st == PAL_OK || st == PAL_END); i++) {
        pal_stream *s = r->streams[i];
        if (mine && !mine[i]) {
            stream_release(s);   /* never decoded, its buffers never made */
            continue;
        }
        /* a run file's merged view: two more values per record (map_batch) */
        s->gap = r->merged ? 2 : 0;
        if (stream_batch(s, r->batch_size, s->src->dict->max_fields + s->gap) !=
            PAL_OK) {
            free(mine);
            r->state = ST_FAILED;
            r->failed = PAL_ENOMEM;
            pal_set_last_error("cannot read '%s': out of memory", r->path);
            return PAL_ENOMEM;
        }
        st = stream_fill(r, s);
        if (st == PAL_OK)
            heap_push(r, s);
        else if (st == PAL_END)
            stream_release(s);
    }
    free(mine);
    return st == PAL_END ? PAL_OK : st;
}

static PAL_NOINLINE pal_status next_slow(pal_reader *r, const pal_record **out)
{
    PAL_REQUIRE(r && out, PAL_EINVAL);
    if (PAL_UNLIKELY(!r->started)) {
        pal_status st = start(r);
        if (st != PAL_OK)
            return st;
    }
    if (r->share_k > 0 && r->srcs[0].framing != FRAMING_ECL)
        return PAL_END;   /* one stream: share 0's */
    if (r->srcs[0].framing == FRAMING_LINES)
        return lines_next(r, out);
    if (r->srcs[0].framing == FRAMING_OTF2)
        return pal_otf2_next(r, out);
    if (r->srcs[0].framing == FRAMING_RAW)
        return raw_next(r, out);
    if (r->state != ST_READING)
        return r->state == ST_ENDED ? PAL_END : r->failed;
    /* records handed out from the batch are counted here, not one by one */
    r->st.records += (uint64_t)(r->bnext - r->bmark);
    pal_stream *s = r->cur;
    if (s) {
        /* s is the heap's top */
        s->bnext = (pal_record *)r->bnext;
        r->cur = NULL;
        if (s->bnext < s->bend) {
            /* its next record is not before another stream's */
            if (r->limit_eq && s->bnext->time == r->limit) {
                *out = s->bnext++;
                r->bnext = r->bmark = s->bnext;
                r->cur = s;
                r->st.records++;
                return PAL_OK;
            }
            heap_top_moved(r);
        } else {
            pal_status st = stream_fill(r, s);
            if (st == PAL_OK) {
                heap_top_moved(r);
            } else {
                heap_drop_top(r);
                if (st != PAL_END)
                    return st;
                stream_release(s);
            }
        }
    }
    if (r->nheap == 0) {
        r->bnext = r->bend = r->bmark = NULL;
        r->state = ST_ENDED;
        return PAL_END;
    }
    s = r->heap[0].s;
    r->cur = s;
    if (r->nheap > 1) {
        /* the next stream: the earlier of the top's two children */
        const heapent *o = &r->heap[1];
        if (r->nheap > 2 && ent_before(&r->heap[2], o))
            o = &r->heap[2];
        r->limit = o->time;
        r->limit_eq = tie_before(s, o->s);
    } else {
        r->limit = UINT64_MAX;
        r->limit_eq = 1;
    }
    *out = s->bnext;
    r->bnext = s->bnext + 1;
    r->bend = s->bend;
    r->bmark = r->bnext;
    r->st.records++;
    return PAL_OK;
}

pal_status pal_reader_next(pal_reader *r, const pal_record **out)
{
    if (PAL_LIKELY(r != NULL) && PAL_LIKELY(out != NULL)) {
        const pal_record *rec = r->bnext;
        if (PAL_LIKELY(rec < r->bend) && PAL_LIKELY(rec->time < r->limit)) {
            r->bnext = rec + 1;
            *out = rec;
            return PAL_OK;
        }
    }
    return next_slow(r, out);
}

/* ---------------------------------------------------------------- open */

#define OPEN_FAIL(status, ...)                                                  \
    do {                                                                        \
        pal_set_last_error(__VA_ARGS__);                                        \
        st = (status);                                                          \
        goto fail;                                                              \
    } while (0)

static double unit_ticks(const char *unit)
{
    if (!unit)
        return 0;
    if (strcmp(unit, "ns") == 0)
        return 1e9;
    if (strcmp(unit, "us") == 0)
        return 1e6;
    if (strcmp(unit, "ms") == 0)
        return 1e3;
    if (strcmp(unit, "s") == 0)
        return 1;
    return 0;
}

static size_t stream_hash(const pal_reader *r, const pal_src *src, uint32_t process,
                          uint32_t stream)
{
    uint64_t h = ((uint64_t)(src - r->srcs) << 40) ^ ((uint64_t)process << 20) ^ stream;
    h *= 0x9E3779B97F4A7C15ull;
    return (size_t)(h >> 32) & (r->stab_cap - 1);
}

/* A file of more streams than this has them in the hash; one of fewer (a
 * per-rank trace) finds them in its own list. */
#define PAL_SRC_LIST 8

static int in_stab(const pal_stream *s)
{
    return s->src->nstreams > PAL_SRC_LIST;
}

/* Puts s in the hash of streams (there is room). */
static void stab_put(pal_reader *r, pal_stream *s)
{
    size_t i = stream_hash(r, s->src, s->process, s->stream);
    while (r->stab[i])
        i = (i + 1) & (r->stab_cap - 1);
    r->stab[i] = s;
    r->nstab++;
}

/* Room for n more streams in the hash (kept under half full). */
static int stab_room(pal_reader *r, size_t n)
{
    if (2 * (r->nstab + n) <= r->stab_cap)
        return 0;
    size_t cap = r->stab_cap ? 2 * r->stab_cap : 64;
    while (cap < 2 * (r->nstab + n))
        cap *= 2;
    pal_stream **nt = calloc(cap, sizeof *nt);
    if (!nt)
        return -1;
    free(r->stab);
    r->stab = nt;
    r->stab_cap = cap;
    r->nstab = 0;
    for (size_t i = 0; i < r->nstreams; i++)
        if (in_stab(r->streams[i]))
            stab_put(r, r->streams[i]);
    return 0;
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23       /* Linux 5.14; older kernels say EINVAL */
#endif

void pal_prefault(void *p, size_t n)
{
#ifdef __linux__
    static uintptr_t pg;
    if (!pg) {
        long v = sysconf(_SC_PAGESIZE);
        pg = v > 0 ? (uintptr_t)v : 4096;
    }
    uintptr_t a = ((uintptr_t)p + pg - 1) & ~(pg - 1), e = ((uintptr_t)p + n) & ~(pg - 1);
    if (e > a)
        (void)madvise((void *)a, e - a, MADV_POPULATE_WRITE);
#else
    (void)p;
    (void)n;
#endif
}

/* The streams' structures: in blocks of 16, 32, ... 4,096, freed with the
 * reader; a block's pages made present 64 KiB ahead of its use
 * (pal_prefault): 8,192 streams of a 4,096-file run are 6.4 MB. */
struct pal_sblock {
    struct pal_sblock *next;
    size_t used, cap;
    uintptr_t ready;                 /* pages below it are present */
    pal_stream v[];
};

#define PAL_PREFAULT_STEP ((uintptr_t)64 << 10)

static pal_stream *stream_new(pal_reader *r)
{
    struct pal_sblock *b = r->sblocks;
    if (!b || b->used == b->cap) {
        size_t cap = b ? (b->cap < 4096 ? 2 * b->cap : 4096) : 16;
        if (!(b = calloc(1, sizeof *b + cap * sizeof *b->v)))
            return NULL;
        b->cap = cap;
        b->ready = (uintptr_t)b->v;
        b->next = r->sblocks;
        r->sblocks = b;
    }
    pal_stream *s = &b->v[b->used++];
    uintptr_t end = (uintptr_t)(s + 1), last = (uintptr_t)(b->v + b->cap);
    if (end > b->ready && b->ready < last) {
        size_t n = last - b->ready < PAL_PREFAULT_STEP ? last - b->ready : PAL_PREFAULT_STEP;
        pal_prefault((void *)b->ready, n);
        b->ready += n;
    }
    return s;
}

/* The stream (src, process, stream), made when it is new: a hash look-up,
 * whatever the number of files and streams. NULL: no memory. */
static pal_stream *find_stream(pal_reader *r, pal_src *src, uint32_t process, uint32_t stream)
{
    if (src->nstreams <= PAL_SRC_LIST) {
        /* a per-rank file's few streams: its own list, whose structures
         * its scan has just used (the hash's probes each read another
         * stream's, seldom in cache among 8,192) */
        for (pal_stream *s = src->streams; s; s = s->src_next)
            if (s->process == process && s->stream == stream)
                return s;
    } else if (r->stab_cap) {
        for (size_t i = stream_hash(r, src, process, stream); r->stab[i];
             i = (i + 1) & (r->stab_cap - 1)) {
            pal_stream *s = r->stab[i];
            if (s->src == src && s->process == process && s->stream == stream)
                return s;
        }
    }
    /* the hash: this one, or all the file's when it passes PAL_SRC_LIST */
    size_t put = src->nstreams > PAL_SRC_LIST ? 1 : src->nstreams == PAL_SRC_LIST ? PAL_SRC_LIST + 1
                                                                                   : 0;
    if (put && stab_room(r, put) != 0)
        return NULL;
    if (r->nstreams == r->capstreams) {
        size_t cap = r->capstreams ? 2 * r->capstreams : 64;
        pal_stream **ns = realloc(r->streams, cap * sizeof *ns);
        if (!ns)
            return NULL;
        r->streams = ns;
        r->capstreams = cap;
    }
    pal_stream *s = stream_new(r);
    if (!s)
        return NULL;
    s->src = src;
    s->process = process;
    s->stream = stream;
    s->key = (uint64_t)process << 32 | stream;
    s->first_time = UINT64_MAX;
    r->streams[r->nstreams++] = s;
    /* the file's list keeps the order streams were found in */
    pal_stream **tail = src->streams_end ? src->streams_end : &src->streams;
    *tail = s;
    src->streams_end = &s->src_next;
    src->nstreams++;
    for (pal_stream *x = put > 1 ? src->streams : put ? s : NULL; x; x = x->src_next)
        stab_put(r, x);
    return s;
}

static int add_chunk(pal_stream *s, uint64_t off)
{
    if (s->nchunks == s->capchunks) {
        size_t cap = s->capchunks ? 2 * s->capchunks : 8;
        uint64_t *nc;
        if (!s->chunks) {            /* the first ones: no allocation */
            nc = s->chunk0;
            cap = sizeof s->chunk0 / sizeof *s->chunk0;
        } else if (s->chunks == s->chunk0) {
            if ((nc = malloc(cap * sizeof *nc)) != NULL)
                memcpy(nc, s->chunk0, sizeof s->chunk0);
        } else {
            nc = realloc(s->chunks, cap * sizeof *nc);
        }
        if (!nc)
            return -1;
        s->chunks = nc;
        s->capchunks = cap;
    }
    s->chunks[s->nchunks++] = off;
    return 0;
}

/* The end summary's streams, matched with the file's after the scan. */
typedef struct end_ctx {
    pal_reader *r;
    pal_src *src;
    int oom;
} end_ctx;

static void end_stream(void *ctx, const ecc_end_stream *e)
{
    end_ctx *c = ctx;
    uint32_t process = c->src->header_process;
    pal_stream *s = find_stream(c->r, c->src, process, e->stream);
    if (!s) {
        c->oom = 1;
        return;
    }
    s->have_end = 1;
    s->end_chunks = e->chunks;
    s->end_records = e->records;
}

/* A damaged file header: its copy (a kind 4 chunk after it, version 2). */
static const char *recover_header(pal_src *s, uint8_t **out, uint64_t *copy_end)
{
    ecc_scan sc;
    /* the copy follows the header (at most 64 MiB) and a pad chunk */
    uint64_t len = s->size - s->base;
    uint64_t lim = s->base + (len < ECC_HEADER_MAX + 4096 ? len : ECC_HEADER_MAX + 4096);
    int64_t first = ecc_resync(s->fd, lim, s->base + 8);
    if (first < 0)
        return "read error";
    if ((uint64_t)first >= lim)
        return "no copy of the header either";
    ecc_scan_init(&sc, s->fd, s->size, (uint64_t)first);
    for (int i = 0; i < 8; i++) {
        ecc_event ev;
        ecc_scan_next(&sc, &ev);
        if (ev.type != ECC_EV_CHUNK)
            break;
        if (ev.chunk.kind != ECC_KIND_HEADER_COPY || ev.chunk.compression != ECC_COMP_NONE ||
            ev.chunk.stored_length < ECC_HEADER_FIXED || ev.chunk.stored_length > ECC_HEADER_MAX)
            continue;
        uint8_t *b = malloc(ev.chunk.stored_length);
        if (!b)
            return "out of memory";
        ecc_file_header h;
        uint64_t at;
        if (ecc_read_payload(s->fd, &ev, b) == NULL &&
            ecc_file_header_decode_fixed(b, ev.chunk.stored_length, &h, &at) == NULL &&
            h.header_length == ev.chunk.stored_length && ecc_file_header_check_crc(b, &h) == NULL) {
            *out = b;
            *copy_end = ev.offset + ev.length;
            return NULL;
        }
        free(b);
    }
    return "no intact copy of the header either";
}

/* Appends n bytes to the key of s's dictionary. */
static int key_add(pal_reader *r, pal_src *s, const uint8_t *p, size_t n)
{
    if (!s->dkey && r->spare_key) {  /* the buffer an earlier file gave back */
        s->dkey = r->spare_key;
        s->dkey_cap = r->spare_cap;
        r->spare_key = NULL;
    }
    if (s->dkey_len + n > s->dkey_cap) {
        size_t cap = s->dkey_cap ? s->dkey_cap : 4096;
        while (cap < s->dkey_len + n)
            cap *= 2;
        uint8_t *k = realloc(s->dkey, cap);
        if (!k)
            return -1;
        s->dkey = k;
        s->dkey_cap = cap;
    }
    memcpy(s->dkey + s->dkey_len, p, n);
    s->dkey_len += n;
    return 0;
}

/* A run's file, scanned: its dictionary, the reader's for the same header
 * and dictionary chunk bytes (a file whose chunks would not merge keeps its
 * own). The key is the header's flags and stored dictionary, then per
 * dictionary chunk its length and raw payload; hb the header. */
static pal_status run_dict(pal_reader *r, pal_src *src, const uint8_t *hb)
{
    for (size_t i = 0; i < r->ndcache; i++)
        if (r->dcache[i].len == src->dkey_len &&
            memcmp(r->dcache[i].raw, src->dkey, src->dkey_len) == 0) {
            src->dict = r->dcache[i].dict;
            src->dict_borrowed = 1;
            r->st.chunks += src->npend;   /* its dictionary chunks, good as the first's */
            goto done;
        }
    edl_dict *ed = NULL;
    char err[256] = "";
    uint8_t *draw;
    size_t dlen;
    const char *dw = ecc_file_header_dict(hb, &src->hdr, &draw, &dlen);
    if (dw) {
        pal_set_last_error("cannot open trace '%s': %s at byte %" PRIu64, src->path, dw,
                           src->base + src->hdr.dict_offset);
        return PAL_EFORMAT;
    }
    edl_status es = edl_dict_decode(draw, dlen, &ed, err, sizeof err);
    free(draw);
    pal_status st = es == EDL_OK ? pal_dict_wrap(ed, &src->dict, err, sizeof err)
                                 : es == EDL_ENOMEM ? PAL_ENOMEM : PAL_EFORMAT;
    if (st != PAL_OK) {
        pal_set_last_error("cannot open trace '%s': embedded dictionary at byte %" PRIu64
                           ": %s", src->path, src->base + src->hdr.dict_offset,
                           *err ? err : edl_status_string(es));
        return st;
    }
    /* its dictionary chunks, in file order: compression, stored and raw
     * length, stored bytes */
    const uint8_t *p = src->dkey + 1 + src->hdr.dict_length, *end = src->dkey + src->dkey_len;
    int bad = 0;
    for (size_t k = 0; p + 9 <= end; k++) {
        uint8_t method = p[0];
        uint32_t stored = ecc_get32(p + 1), raw = ecc_get32(p + 5);
        char why[512];
        const char *w = raw > PAL_MAX_RAW ? "raw_length over 1 GiB" : NULL;
        uint8_t *b = method && !w ? malloc(raw ? raw : 1) : NULL;
        if (method && !w && !b)
            return PAL_ENOMEM;
        if (!w && method)
            w = ecc_decompress(method, p + 9, stored, b, raw);
        if (!w)
            w = merge_dict_chunk(src->dict, method ? b : p + 9, raw, why, sizeof why);
        free(b);
        if (w) {
            report(r, src, src->dpend[k], "dictionary chunk damaged: %s; chunk skipped", w);
            damaged(r, 0);
            bad = 1;
        } else {
            r->st.chunks++;
        }
        p += 9 + (size_t)stored;
    }
    if (!bad) {
        struct pal_dcache *nc = r->ndcache == r->capdcache
                                    ? realloc(r->dcache, (r->capdcache ? 2 * r->capdcache : 4) *
                                                             sizeof *nc)
                                    : r->dcache;
        if (nc) {                    /* (else not shared: more memory, the same records) */
            if (r->ndcache == r->capdcache)
                r->capdcache = r->capdcache ? 2 * r->capdcache : 4;
            r->dcache = nc;
            nc[r->ndcache].raw = src->dkey;
            nc[r->ndcache].len = src->dkey_len;
            nc[r->ndcache++].dict = src->dict;
            src->dkey = NULL;
            src->dict_borrowed = 1;  /* the reader's */
        }
    }
done:
    if (src->dkey && !r->spare_key) {   /* for the next file's key */
        r->spare_key = src->dkey;
        r->spare_cap = src->dkey_cap;
    } else {
        free(src->dkey);
    }
    free(src->dpend);
    src->dkey = NULL;
    src->dpend = NULL;
    src->dkey_len = src->dkey_cap = src->npend = 0;
    return PAL_OK;
}

/* The dictionary of src, in hand: ECL chunks it must describe, and its
 * clock's ns per tick. */
static pal_status dict_ready(pal_src *src)
{
    if (!src->dict->binary) {
        pal_set_last_error("cannot open trace '%s': the dictionary describes an ascii format, "
                           "not ECL chunks", src->path);
        return PAL_EFORMAT;
    }
    double tps = src->hdr.ticks_per_second;
    const char *unit = edl_dict_time_unit(src->dict->ed);
    if (!unit || strcmp(unit, "ticks") != 0)
        tps = unit_ticks(unit);
    src->dict->ns_per_tick = tps > 0 ? 1e9 / tps : 0;
    return PAL_OK;
}

/* The scan at open: every chunk header, in file order. Dictionary chunks are
 * merged, records chunks listed per stream, damage noted for the first read. */
static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The open's one read of a file's start into r->scanbuf: the whole of a
 * small trace (up to PAL_HEAD_WHOLE bytes from its base: a run's per-rank
 * file, its index and footer too), else its first PAL_HEAD bytes (the
 * header; what else the index names is read around its chunk headers
 * only). The magic and the header come from there, and the scan starts in
 * it: one pread per small file, not one per part. 0; -1 when there is no
 * memory for the window (each part is then read on its own); -2 on a read
 * error. */
#define PAL_HEAD_WHOLE ((uint64_t)64 << 10)
#define PAL_HEAD ((size_t)8 << 10)
static int open_head(pal_reader *r, pal_src *s)
{
    r->head_src = NULL;
    if (!r->scanbuf && !(r->scanbuf = malloc(PAL_SCAN_WINDOW)))
        return -1;
    uint64_t left = s->size - s->base;
    size_t n = left <= PAL_HEAD_WHOLE ? (size_t)left : PAL_HEAD;
    if (n > 0 && ecc_read_at(s->fd, r->scanbuf, n, s->base) != 0)
        return -2;
    r->head_src = s;
    r->head_len = n;
    return 0;
}

/* File bytes [off, off + n) of s from the open's first read, else NULL. */
static const uint8_t *head_bytes(const pal_reader *r, const pal_src *s, uint64_t off,
                                 uint64_t n)
{
    if (r->head_src != s || off < s->base || n > r->head_len ||
        off - s->base > r->head_len - n)
        return NULL;
    return r->scanbuf + (off - s->base);
}

/* ecc_read_at, from the open's first read when it holds the bytes. */
static int head_read(const pal_reader *r, const pal_src *s, void *b, size_t n, uint64_t off)
{
    const uint8_t *p = head_bytes(r, s, off, n);
    if (!p)
        return ecc_read_at(s->fd, b, n, off);
    memcpy(b, p, n);
    return 0;
}

/* The whole of s (from its base) is in the open's first read. */
static int head_whole(const pal_reader *r, const pal_src *s)
{
    return r->head_src == s && r->head_len == s->size - s->base;
}

const uint8_t *pal_src_whole(const pal_reader *r, const pal_src *s)
{
    return head_whole(r, s) ? r->scanbuf : NULL;
}

int pal_src_read_at(const pal_reader *r, const pal_src *s, void *b, size_t n, uint64_t off)
{
    return head_read(r, s, b, n, off);
}

const char *pal_src_payload(const pal_reader *r, const pal_src *s, const ecc_event *ev,
                            uint8_t *buf)
{
    const uint8_t *p = head_bytes(r, s, ev->offset + ECC_CHUNK_HEADER, ev->chunk.stored_length);
    if (!p)
        return ecc_read_payload(s->fd, ev, buf);
    memcpy(buf, p, ev->chunk.stored_length);
    if (ecc_crc32(0, buf, ev->chunk.stored_length) != ev->chunk.payload_crc)
        return "chunk payload CRC mismatch";
    return NULL;
}

/* The offsets of the chunks src's own index lists (kind 3, named by the
 * footer its writer wrote at close; a run file's member keeps its own),
 * sorted, *n of them: where the chunk headers are. NULL when the file has
 * no intact index (not closed, damaged: the scan reads all of it and says
 * what is wrong), or no memory. */
static uint64_t *index_offsets(const pal_reader *r, pal_src *src, const ecc_scan *sc, size_t *n)
{
    *n = 0;
    uint8_t b[ECC_CHUNK_HEADER];
    uint64_t io;
    ecc_event ev;
    memset(&ev, 0, sizeof ev);
    if (src->size - src->data_start < ECC_CHUNK_HEADER + ECC_FOOTER ||
        head_read(r, src, b, ECC_FOOTER, src->size - ECC_FOOTER) != 0 ||
        !ecc_footer_decode(b, &io) || io > src->size - src->base - ECC_FOOTER)
        return NULL;
    ev.offset = src->base + io;
    if (ev.offset < src->data_start || src->size - ECC_FOOTER - ev.offset < ECC_CHUNK_HEADER ||
        head_read(r, src, b, ECC_CHUNK_HEADER, ev.offset) != 0 ||
        ecc_chunk_decode(b, &ev.chunk) != NULL || ev.chunk.kind != ECC_KIND_INDEX ||
        ecc_chunk_check(&ev.chunk, src->hdr.version_major) != NULL ||
        ev.offset + ECC_CHUNK_HEADER + ev.chunk.stored_length != src->size - ECC_FOOTER ||
        ev.chunk.raw_length != (uint64_t)ev.chunk.record_count * ECC_INDEX_ENTRY)
        return NULL;
    uint8_t *p;
    if (load_small(src->fd, sc, &ev, &p) != NULL)
        return NULL;
    uint64_t *o = malloc((ev.chunk.record_count ? ev.chunk.record_count : 1) * sizeof *o);
    for (uint32_t i = 0; o && i < ev.chunk.record_count; i++) {
        ecc_index_entry e;
        ecc_index_entry_decode(p + (size_t)i * ECC_INDEX_ENTRY, &e);
        if (e.offset < ev.offset - src->base)
            o[(*n)++] = src->base + e.offset;
    }
    free(p);
    if (o && *n > 1)
        qsort(o, *n, sizeof *o, cmp_u64);
    return o;
}

/* Before the scan reads the chunk header at sc->pos: when its window does
 * not hold it, the next window spans the headers the index places each
 * within PAL_PLAN_GAP bytes of the one before (with what follows each: a
 * small payload, a pad, a copy), up to PAL_SCAN_WINDOW bytes: one read for
 * a run of small chunks (definitions), one for the end of a large chunk
 * and the next header, and the payloads of large chunks are not read at
 * open. *i: the first offset at or after the scan's position. */
#define PAL_PLAN_SLACK ((uint64_t)4 * ECC_CHUNK_HEADER)
#define PAL_PLAN_GAP ((uint64_t)16 << 10)
static void plan_window(ecc_scan *sc, uint8_t *buf, const uint64_t *o, size_t n, size_t *i)
{
    if (ecc_scan_bytes(sc, sc->pos, ECC_CHUNK_HEADER))
        return;
    while (*i < n && o[*i] < sc->pos)
        (*i)++;
    uint64_t end = sc->pos + PAL_PLAN_SLACK;
    for (size_t j = *i; j < n && o[j] <= end + PAL_PLAN_GAP &&
                        o[j] + PAL_PLAN_SLACK - sc->pos <= PAL_SCAN_WINDOW; j++)
        if (o[j] + PAL_PLAN_SLACK > end)
            end = o[j] + PAL_PLAN_SLACK;
    ecc_scan_buffer(sc, buf, (size_t)(end - sc->pos));
}

static pal_status scan_chunks(pal_reader *r, pal_src *src, ecc_scan *scp, const uint64_t *plan,
                              size_t nplan, size_t *pi);

static pal_status scan_file(pal_reader *r, pal_src *src)
{
    ecc_scan sc;
    ecc_scan_init(&sc, src->fd, src->size, src->data_start);
    /* the file in large windows, one read each (a small per-rank trace:
     * one read in all), shared by the files of a run; with the file's
     * index, windows only where it places chunk headers. A merge that
     * copies checks every payload: it reads all. */
    if (!r->scanbuf)
        r->scanbuf = malloc(PAL_SCAN_WINDOW);
    if (r->scanbuf) {
        ecc_scan_buffer(&sc, r->scanbuf, PAL_SCAN_WINDOW);
        if (r->head_src == src)              /* the open's first read: not again */
            ecc_scan_filled(&sc, src->base, r->head_len);
    }
    size_t nplan = 0, pi = 0;
    uint64_t *plan = r->scanbuf && !(r->flags & PAL_OPEN_COPY_)
                         ? index_offsets(r, src, &sc, &nplan) : NULL;
    /* a file the open read whole is read whole still after its scan (the
     * scan read nothing more into scanbuf): its clock measurements come
     * from there (pal_run_read_clock); else the scan reads its windows */
    const pal_src *whole = head_whole(r, src) ? src : NULL;
    r->head_src = NULL;
    if (plan)
        r->st.files_indexed++;
    pal_status st = scan_chunks(r, src, &sc, plan, nplan, &pi);
    free(plan);
    r->head_src = whole;
    return st;
}

static pal_status scan_chunks(pal_reader *r, pal_src *src, ecc_scan *scp, const uint64_t *plan,
                              size_t nplan, size_t *pi)
{
    ecc_scan sc = *scp;
    uint64_t dict_seq = 0;
    int dict_ok = 0;
    src->first_time = UINT64_MAX;
    src->index_off = UINT64_MAX;
    char why[512];
    for (;;) {
        ecc_event ev;
        if (plan)
            plan_window(&sc, r->scanbuf, plan, nplan, pi);
        ecc_scan_next(&sc, &ev);
        switch (ev.type) {
        case ECC_EV_END:
            return PAL_OK;
        case ECC_EV_IOERR:
            errno = sc.ioerr;
            pal_set_last_error("cannot read trace '%s': %s", src->path, strerror(sc.ioerr));
            return PAL_EIO;
        case ECC_EV_DAMAGE:
            if (ev.offset + ev.length < src->size)
                report(r, src, ev.offset, "bad chunk header (%s); resuming at byte %" PRIu64
                       " (%" PRIu64 " bytes skipped)", ev.reason, ev.offset + ev.length, ev.length);
            else
                report(r, src, ev.offset, "bad chunk header (%s); no further chunk (%" PRIu64
                       " bytes skipped)", ev.reason, ev.length);
            damaged(r, ev.length);
            continue;
        case ECC_EV_CUT:
            if (ev.length >= ECC_CHUNK_HEADER)
                report(r, src, ev.offset, "file truncated inside a chunk: its payload needs %"
                       PRIu32 " bytes, %" PRIu64 " are left", ev.chunk.stored_length,
                       ev.length - ECC_CHUNK_HEADER);
            else
                report(r, src, ev.offset, "file ends inside a chunk header (%" PRIu64
                       " bytes left): truncated", ev.length);
            src->truncated = 1;
            r->st.truncated = 1;
            r->st.bytes_skipped += ev.length;
            continue;
        case ECC_EV_FOOTER:
            src->closed = 1;
            if (ev.index_offset + src->base != src->index_off) {   /* from the member's start */
                report(r, src, ev.offset, "footer names byte %" PRIu64 " as the index, which is "
                       "not the index chunk read", ev.index_offset);
                damaged(r, ECC_FOOTER);
            }
            continue;
        default:
            break;
        }
        const ecc_chunk *c = &ev.chunk;
        const char *bad = ecc_chunk_check(c, src->hdr.version_major);
        if (bad) {
            report(r, src, ev.offset, "chunk cannot be read: %s; chunk skipped", bad);
            damaged(r, ev.length);
            continue;
        }
        switch (c->kind) {
        case ECC_KIND_RECORDS: {
            uint32_t process = c->process != ECC_PROCESS_FROM_HEADER ? c->process
                                                                     : src->header_process;
            pal_stream *s = find_stream(r, src, process, c->stream);
            if (!s || add_chunk(s, ev.offset) != 0)
                return PAL_ENOMEM;
            src->scan_chunks++;
            if (r->flags & PAL_OPEN_COPY_) {
                /* a merge that copies: the payload's CRC now, where the
                 * scan's window holds it (else read) */
                const uint8_t *pb = ecc_scan_bytes(&sc, ev.offset + ECC_CHUNK_HEADER,
                                                   c->stored_length);
                uint8_t *own = pb ? NULL : malloc(c->stored_length ? c->stored_length : 1);
                const char *w = !pb && !own ? "out of memory"
                                : pb ? (ecc_crc32(0, pb, c->stored_length) != c->payload_crc
                                            ? "chunk payload CRC mismatch" : NULL)
                                     : ecc_read_payload(src->fd, &ev, own);
                free(own);
                if (w) {
                    report(r, src, ev.offset, "records chunk damaged: %s; kept as it is, "
                           "readers skip it (%" PRIu32 " records)", w, c->record_count);
                    damaged(r, ev.length);
                }
            }
            if (!(c->flags & ECC_CFLAG_COPY)) {
                s->listed++;
                s->records += c->record_count;
                src->scan_listed++;
                src->scan_records += c->record_count;
                if (c->record_count > 0) {
                    if (c->first_time < s->first_time)
                        s->first_time = c->first_time;
                    if (c->last_time > s->last_time)
                        s->last_time = c->last_time;
                }
            }
            if (c->record_count == 0)
                r->st.chunks++;      /* nothing to decode: good as it is */
            if (c->record_count > 0) {
                if (c->first_time < src->first_time)
                    src->first_time = c->first_time;
                if (c->last_time > src->last_time)
                    src->last_time = c->last_time;
            }
            break;
        }
        case ECC_KIND_DICT: {
            if ((c->flags & ECC_CFLAG_COPY) && dict_ok && dict_seq == c->sequence) {
                /* the original was merged; the copy is only checked */
                if (!copy_intact(src->fd, &sc, &ev)) {
                    report(r, src, ev.offset, "copy of a dictionary chunk damaged; its "
                           "original was read");
                    damaged(r, ev.length);
                }
                break;
            }
            src->dict_chunks = 1;
            uint8_t *p = NULL;
            const char *w = NULL;
            if (!src->dict) {
                /* a run: its stored bytes (CRC checked) into the dictionary's
                 * key; decompressed and merged after the scan, once per key */
                uint8_t kh[9];
                uint64_t *np = realloc(src->dpend, (src->npend + 1) * sizeof *np);
                if (!np)
                    return PAL_ENOMEM;
                src->dpend = np;
                /* (from the scan's window when it holds them: no copy) */
                const uint8_t *b = ecc_scan_bytes(&sc, ev.offset + ECC_CHUNK_HEADER,
                                                  c->stored_length);
                if (b) {
                    w = payload_check(src->fd, &sc, &ev);
                } else {
                    if (!(p = malloc(c->stored_length ? c->stored_length : 1)))
                        return PAL_ENOMEM;
                    w = payload_from_scan(src->fd, &sc, &ev, p);
                    b = p;
                }
                kh[0] = c->compression;
                ecc_put32(kh + 1, c->stored_length);
                ecc_put32(kh + 5, c->raw_length);
                if (!w && (key_add(r, src, kh, 9) != 0 || key_add(r, src, b, c->stored_length) != 0)) {
                    free(p);
                    return PAL_ENOMEM;
                }
                if (!w)
                    np[src->npend++] = ev.offset;
                free(p);
            } else if (!(w = load_small(src->fd, &sc, &ev, &p))) {
                w = merge_dict_chunk(src->dict, p, c->raw_length, why, sizeof why);
                free(p);
            }
            dict_seq = c->sequence;
            dict_ok = w == NULL;
            r->st.chunks += dict_ok && src->dict;   /* a run's: when merged (run_dict) */
            if (w) {
                report(r, src, ev.offset, "dictionary chunk damaged: %s; chunk skipped%s", w,
                       src->hdr.version_major >= 2 && !(c->flags & ECC_CFLAG_COPY)
                           ? " (its copy follows)" : "");
                damaged(r, ev.length);
            }
            break;
        }
        case ECC_KIND_INDEX:
        case ECC_KIND_HEADER_COPY: {
            /* nothing depends on them, but their damage is said (stored
             * raw: checked in place) */
            uint8_t *p = NULL;
            const char *w = c->compression ? load_small(src->fd, &sc, &ev, &p)
                                           : payload_check(src->fd, &sc, &ev);
            free(p);
            if (w) {
                report(r, src, ev.offset, "%s chunk damaged: %s; skipped",
                       c->kind == ECC_KIND_INDEX ? "index" : "header copy", w);
                damaged(r, ev.length);
            } else if (c->kind == ECC_KIND_INDEX) {
                src->index_off = ev.offset;
            }
            break;
        }
        case ECC_KIND_END: {
            /* stored raw and in the scan's window: decoded there */
            uint8_t *p = NULL;
            const uint8_t *in = c->compression ? NULL
                                : ecc_scan_bytes(&sc, ev.offset + ECC_CHUNK_HEADER,
                                                 c->stored_length);
            const char *w = in ? payload_check(src->fd, &sc, &ev)
                               : load_small(src->fd, &sc, &ev, &p);
            end_ctx ec = { r, src, 0 };
            if (!w)
                w = ecc_end_decode(in ? in : p, c->raw_length, &src->end, end_stream, &ec);
            free(p);
            if (ec.oom)
                return PAL_ENOMEM;
            if (w) {
                report(r, src, ev.offset, "end summary damaged: %s; skipped", w);
                damaged(r, ev.length);
                break;
            }
            src->have_end = 1;
            src->closed = 1;
            break;
        }
        case ECC_KIND_PAD:
            break;
        default:
            report(r, src, ev.offset, "unknown chunk kind %u, chunk skipped (a newer "
                   "writer's addition)", (unsigned)c->kind);
            break;
        }
    }
}

/* What the scan tells about the file as a whole: not closed, ended by a
 * signal, chunks missing against its end summary. */
static void file_verdict(pal_reader *r, pal_src *src)
{
    char who[4200];
    if (src->hdr.rank >= 0)
        snprintf(who, sizeof who, "%s (rank %d)", src->path, (int)src->hdr.rank);
    else
        snprintf(who, sizeof who, "%s", src->path);
    if (!src->closed && (src->hdr.flags & ECC_HFLAG_EXEC)) {
        /* not closed on purpose: every buffer was written, then exec */
        pal_reader_note(r, "%s: the process replaced its program by exec; every buffer was "
                        "written first, so nothing is missing (the trace ends there, without "
                        "an end summary)", who);
    } else if (!src->closed) {
        r->st.not_closed++;
        if (src->hdr.buffer_size && src->hdr.buffer_count) {
            size_t threads = 0;
            for (const pal_stream *s = src->streams; s; s = s->src_next)
                threads += s->stream != 0;
            if (threads == 0)      /* no thread wrote a chunk: all it recorded is lost */
                pal_reader_note(r, "%s: the trace was not closed (its process was killed, or "
                                "is still running) and no thread wrote a chunk: every record "
                                "it made is lost, up to %" PRIu32 " buffers of %" PRIu32
                                " bytes per thread (how many records is not known: the count "
                                "is written at close)", who, src->hdr.buffer_count,
                                src->hdr.buffer_size);
            else
                pal_reader_note(r, "%s: the trace was not closed (its process was killed, or "
                                "is still running): what each thread had not yet written is "
                                "missing, at most %" PRIu32 " buffers of %" PRIu32 " bytes per "
                                "thread (%zu threads)%s", who, src->hdr.buffer_count,
                                src->hdr.buffer_size, threads,
                                src->first_time <= src->last_time ? "" : "; it holds no records");
        } else {
            pal_reader_note(r, "%s: the trace was not closed (its process was killed, or is "
                            "still running): what it had not yet written is missing", who);
        }
    }
    if (src->have_end && src->end.signal) {
        r->st.signaled++;
        pal_reader_note(r, "%s: the traced program ended with signal %" PRIu32 "; its buffers "
                        "were written then", who, src->end.signal);
    }
    r->st.lost += src->end.lost;
    if (src->end.lost_unbuffered)
        pal_reader_note(r, "%s: %" PRIu64 " records were dropped while tracing because no "
                        "buffer could be allocated", who, src->end.lost_unbuffered);
    for (pal_stream *s = src->streams; s; s = s->src_next) {
        if (!s->have_end || s->listed >= s->end_chunks)
            continue;
        uint64_t missing = s->end_chunks - s->listed;
        r->st.chunks_missing += missing;
        pal_reader_note(r, "%s: thread %" PRIu32 " of process %" PRIu32 ": %" PRIu64 " of its %"
                        PRIu64 " chunks (%" PRIu64 " records in all) are missing", who,
                        s->stream, s->process, missing, s->end_chunks, s->end_records);
    }
}

/* Room for the n bytes of a file header, kept from file to file of a run
 * (r->hbuf; 4,096 files made 4,096 allocations of a few KiB). NULL: no
 * memory. */
static uint8_t *header_buf(pal_reader *r, size_t n)
{
    if (n > r->hcap) {
        uint8_t *b = realloc(r->hbuf, n);
        if (!b)
            return NULL;
        r->hbuf = b;
        r->hcap = n;
    }
    return r->hbuf;
}

pal_status pal_src_open_ecl(pal_reader *r, pal_src *src, pal_dict **given)
{
    pal_status st = PAL_OK;
    const char *path = src->path;
    uint8_t *hb = NULL;
    uint64_t at = 0;
    uint64_t len = src->size - src->base;
    size_t n = len < ECC_HEADER_FIXED ? (size_t)len : ECC_HEADER_FIXED;
    uint8_t fixed[ECC_HEADER_FIXED];
    const char *why = NULL;
    if (head_read(r, src, fixed, n, src->base) != 0)
        OPEN_FAIL(PAL_EIO, "cannot open trace '%s': read error", path);
    why = ecc_file_header_decode_fixed(fixed, n, &src->hdr, &at);
    if (!why) {
        if (src->hdr.header_length > len) {
            why = "file header truncated";
            at = len;
        } else if (!(hb = header_buf(r, src->hdr.header_length))) {
            OPEN_FAIL(PAL_ENOMEM, "cannot open trace '%s': out of memory", path);
        } else if (head_read(r, src, hb, src->hdr.header_length, src->base) != 0) {
            OPEN_FAIL(PAL_EIO, "cannot open trace '%s': read error", path);
        } else if ((why = ecc_file_header_check_crc(hb, &src->hdr)) != NULL) {
            at = 16;
        }
    }
    at += src->base;
    src->data_start = src->base + src->hdr.header_length;
    if (why) {
        /* a damaged header: its copy, if the file has one */
        hb = NULL;                   /* (r->hbuf, kept) */
        uint64_t copy_end = 0;
        const char *w2 = len > 8 ? recover_header(src, &hb, &copy_end) : "file too short";
        if (w2) {
            if (strncmp(why, "unsupported format version", 26) == 0)
                OPEN_FAIL(PAL_EFORMAT, "cannot open trace '%s': unsupported format version "
                          "%u.%u at byte 8 (this reader knows 1.x, 2.x and 3.x)", path,
                          ecc_get16(fixed + 8), ecc_get16(fixed + 10));
            if (src->hdr.version_major == 1 && strcmp(why, "file header CRC mismatch") == 0)
                OPEN_FAIL(PAL_EFORMAT, "cannot open trace '%s': file header CRC mismatch at "
                          "byte 16 (header bytes 0-%" PRIu32 " damaged)", path,
                          src->hdr.header_length);
            OPEN_FAIL(PAL_EFORMAT, "cannot open trace '%s': %s at byte %" PRIu64 " (%s)", path,
                      why, at, w2);
        }
        uint64_t at2;
        ecc_file_header_decode_fixed(hb, ECC_HEADER_FIXED, &src->hdr, &at2);
        src->header_recovered = 1;
        src->data_start = copy_end;
        report(r, src, at, "file header damaged (%s); its copy was used", why);
        damaged(r, 0);
    }
    src->header_process = src->hdr.rank >= 0 ? (uint32_t)src->hdr.rank : 0;
    src->process = src->header_process;
    if (*given) {
        src->dict = *given;
        *given = NULL;
    } else if (r->run) {
        /* a run's files mostly hold the same dictionary, in their headers
         * and their dictionary chunks alike: found by those bytes after the
         * scan (run_dict), decoded once */
        uint8_t zlib = (src->hdr.flags & ECC_HFLAG_DICT_ZLIB) != 0;
        if (key_add(r, src, &zlib, 1) != 0 ||
            key_add(r, src, hb + src->hdr.dict_offset, src->hdr.dict_length) != 0)
            OPEN_FAIL(PAL_ENOMEM, "cannot open trace '%s': out of memory", path);
    } else {
        edl_dict *ed = NULL;
        char err[256] = "";
        uint8_t *draw;
        size_t dlen;
        const char *dw = ecc_file_header_dict(hb, &src->hdr, &draw, &dlen);
        if (dw)
            OPEN_FAIL(PAL_EFORMAT, "cannot open trace '%s': %s at byte %" PRIu32, path, dw,
                      src->hdr.dict_offset);
        edl_status es = edl_dict_decode(draw, dlen, &ed, err, sizeof err);
        free(draw);
        if (es != EDL_OK)
            OPEN_FAIL(es == EDL_ENOMEM ? PAL_ENOMEM : PAL_EFORMAT,
                      "cannot open trace '%s': embedded dictionary at byte %" PRIu32 ": %s",
                      path, src->hdr.dict_offset, *err ? err : edl_status_string(es));
        if ((st = pal_dict_wrap(ed, &src->dict, err, sizeof err)) != PAL_OK)
            OPEN_FAIL(st, "cannot open trace '%s': embedded dictionary at byte %" PRIu32
                      ": %s", path, src->hdr.dict_offset, err);
    }
    src->framing = FRAMING_ECL;
    if (src->dict && (st = dict_ready(src)) != PAL_OK)
        goto fail;
#ifdef POSIX_FADV_SEQUENTIAL
    if (!head_whole(r, src))   /* a hint: more read-ahead (none left to read: no hint) */
        (void)posix_fadvise(src->fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
    if ((st = scan_file(r, src)) != PAL_OK) {
        if (st == PAL_ENOMEM)
            pal_set_last_error("cannot open trace '%s': out of memory", path);
        goto fail;
    }
    if (!src->dict && ((st = run_dict(r, src, hb)) != PAL_OK || (st = dict_ready(src)) != PAL_OK))
        goto fail;
    if (hb != r->hbuf)
        free(hb);
    file_verdict(r, src);
    return PAL_OK;
fail:
    if (hb != r->hbuf)
        free(hb);
    return st;
}

/* A foreign file read through a given dictionary. */
static pal_status open_foreign(pal_reader *r, pal_src *src, pal_dict **given)
{
    pal_status st = PAL_OK;
    const char *path = src->path;
    pal_dict *d = *given;
    if (!d->binary) {
        if (edl_dict_framing(d->ed) != EDL_FRAMING_LINES)
            OPEN_FAIL(PAL_EFORMAT, "cannot open trace '%s': the ascii dictionary '%s' has a "
                      "framing other than lines", path, pal_dict_name(d));
        src->dict = d;
        *given = NULL;
        src->framing = FRAMING_LINES;
        /* times are exposed in ns (pal_record_time_ns; pal_record_time clamps at 0) */
        r->info.ticks_per_second = 1e9;
        d->ns_per_tick = 1;
        if ((st = pal_ascii_open(&src->ascii, d, src->fd)) != PAL_OK)
            OPEN_FAIL(st, "cannot open trace '%s': out of memory", path);
        return PAL_OK;
    }
    switch (edl_dict_framing(d->ed)) {
    case EDL_FRAMING_RAW:
        break;
    case EDL_FRAMING_ECL:
        OPEN_FAIL(PAL_EFORMAT, "cannot open trace '%s': bad magic at byte 0 (the dictionary "
                  "'%s' says ECL container, the file does not start with \"ECLTRACE\")",
                  path, pal_dict_name(d));
    default:
        OPEN_FAIL(PAL_EFORMAT, "cannot open trace '%s': the dictionary '%s' has a framing "
                  "binary files cannot use", path, pal_dict_name(d));
    }
    src->dict = d;
    *given = NULL;
    src->framing = FRAMING_RAW;
    r->info.ticks_per_second = unit_ticks(edl_dict_time_unit(d->ed));
    d->ns_per_tick = r->info.ticks_per_second > 0 ? 1e9 / r->info.ticks_per_second : 0;
    return PAL_OK;
fail:
    return st;
}

pal_status pal_reader_alloc(const char *name, pal_reader **out)
{
    pal_reader *r = calloc(1, sizeof *r);
    if (!r || !(r->path = strdup(name))) {
        free(r);
        pal_set_last_error("cannot open trace '%s': out of memory", name);
        return PAL_ENOMEM;
    }
    r->diag = default_diag;
    r->info.rank = r->info.size = -1;
    r->msgs_tail = &r->msgs;
    r->limit = UINT64_MAX;
    *out = r;
    return PAL_OK;
}

/* Opens path as source s: regular file, size. */
static pal_status src_open_fd(pal_reader *r, pal_src *s, const char *path)
{
    struct stat sb;
    s->fd = -1;
    if (!(s->path = strdup(path))) {
        pal_set_last_error("cannot open trace '%s': out of memory", path);
        return PAL_ENOMEM;
    }
    if (r->at_len > 0 && strncmp(path, r->at_dir, r->at_len) == 0 && path[r->at_len] == '/')
        s->fd = openat(r->at_fd, path + r->at_len + 1, O_RDONLY | O_CLOEXEC);
    else
        s->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (s->fd < 0) {
        pal_set_last_error("cannot open trace '%s': %s", path, strerror(errno));
        return PAL_EIO;
    }
    if (fstat(s->fd, &sb) != 0) {
        pal_set_last_error("cannot open trace '%s': %s", path, strerror(errno));
        return PAL_EIO;
    }
    if (!S_ISREG(sb.st_mode)) {
        pal_set_last_error("cannot open trace '%s': not a regular file", path);
        return PAL_EIO;
    }
    s->size = (uint64_t)sb.st_size;
    s->dev = (uint64_t)sb.st_dev;
    s->ino = (uint64_t)sb.st_ino;
    lru_add(r, s);
    return PAL_OK;
}

pal_status pal_src_open_member(pal_reader *r, pal_src *s, const char *path, uint64_t base,
                               uint64_t length)
{
    pal_dict *given = NULL;
    pal_status st = src_open_fd(r, s, path);
    if (st != PAL_OK)
        return st;
    if (base > s->size || length > s->size - base) {
        pal_set_last_error("cannot open trace '%s': its member at byte %" PRIu64 " (%" PRIu64
                           " bytes) lies past the end of the file (%" PRIu64 " bytes)", path,
                           base, length, s->size);
        return PAL_EFORMAT;
    }
    s->base = base;
    s->size = base + length;
    if (open_head(r, s) == -2) {
        pal_set_last_error("cannot open trace '%s': read error", path);
        return PAL_EIO;
    }
    st = pal_src_open_ecl(r, s, &given);
    s->own_dict = s->dict != NULL && !s->dict_borrowed;
    return st;
}

void pal_src_discard(pal_reader *r, pal_src *s)
{
    size_t w = 0;
    for (size_t i = 0; i < r->nstreams; i++) {
        pal_stream *x = r->streams[i];
        if (x->src != s) {
            r->streams[w++] = x;
            continue;
        }
        chunks_free(x);              /* (its structure stays in its block) */
    }
    r->nstreams = w;
    if (r->stab_cap) {
        memset(r->stab, 0, r->stab_cap * sizeof *r->stab);
        r->nstab = 0;
        for (size_t i = 0; i < r->nstreams; i++)
            if (in_stab(r->streams[i]))
                stab_put(r, r->streams[i]);
    }
    if (s->fd >= 0) {
        if (s->in_lru) {
            lru_unlink(r, s);
            r->nopen--;
        }
        close(s->fd);
    }
    pal_ascii_close(s->ascii);
    pal_otf2_close(s->otf2);
    if (s->own_dict)
        pal_dict_destroy(s->dict);
    free(s->map);
    free(s->path);
    free(s->dkey);
    free(s->dpend);
    memset(s, 0, sizeof *s);
    s->fd = -1;
}

static int stream_order(const void *a, const void *b)
{
    const pal_stream *x = *(pal_stream *const *)a, *y = *(pal_stream *const *)b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->src < y->src ? -1 : x->src > y->src;
}

pal_status pal_reader_finish_open(pal_reader *r)
{
    free(r->scanbuf);           /* the scans are done */
    r->scanbuf = NULL;
    r->head_src = NULL;
    if (r->nstreams > 1)        /* (a trace may have no records at all) */
        qsort(r->streams, r->nstreams, sizeof *r->streams, stream_order);
    r->heap = calloc(r->nstreams ? r->nstreams : 1, sizeof *r->heap);
    if (!r->heap)
        return PAL_ENOMEM;
    /* a file of a few streams keeps whole chunks; many streams share a
     * budget. Windows are allocated at a stream's first chunk, start small
     * (definitions are tiny) and grow to r->window (load_chunk). */
    size_t per = r->nstreams ? PAL_WINDOW_BUDGET / r->nstreams : PAL_WINDOW_FILE;
    r->window = per > PAL_WINDOW_FILE ? PAL_WINDOW_FILE : per < PAL_WINDOW_MIN ? PAL_WINDOW_MIN
                                                                               : per;
    /* each stream's batch is made at the first read, for the streams of
     * the reader's share only (start): a share of a 4,096-file run does not
     * hold batches for the 3,584 files it does not read */
    r->batch_size = r->nstreams > 16 ? PAL_RUN_BATCH : PAL_BATCH;
    return PAL_OK;
}

/* For streams whose window must grow to hold whole chunks up to the limit:
 * done lazily in load_chunk; the cap is r->window. */

pal_status pal_src_open_path(pal_reader *r, pal_src *s, const char *path, const char *dict_path)
{
    pal_status st;
    pal_dict *given = NULL;
    if (dict_path && (st = pal_dict_load(dict_path, &given)) != PAL_OK)
        return st;              /* pal_dict_load set the message */
    if ((st = src_open_fd(r, s, path)) != PAL_OK)
        goto fail;
    uint8_t magic[10];
    size_t nmagic = s->size >= 10 ? 10 : 8;
    if (s->size >= 8 && open_head(r, s) == -2)
        OPEN_FAIL(PAL_EIO, "cannot open trace '%s': read error", path);
    int have_magic = s->size >= 8 && head_read(r, s, magic, nmagic, 0) == 0;
    if (s->size >= 8 && !have_magic)
        OPEN_FAIL(PAL_EIO, "cannot open trace '%s': read error", path);
    /* a run's files: a merged trace is refused from its header, before a
     * scan (pal_run_open leaves out one found in a directory), when the
     * open's first read holds the header whole and its CRC holds: a
     * damaged one is opened with its copy, and run.c checks it after */
    if (have_magic && r->run && r->head_src == s && s->base == 0 &&
        pal_run_is_merged_header(r->scanbuf, r->head_len, 1)) {
        s->run_file = 1;
        OPEN_FAIL(PAL_EFORMAT, "cannot read '%s' as a run: it is a merged trace already; give "
                  "the per-rank traces of the run, or read the merged trace alone", path);
    }
    /* (a text file that happens to start with the magic is still text) */
    int ecl = have_magic && memcmp(magic, ECC_FILE_MAGIC, 8) == 0;
    if (!ecl && have_magic && memcmp(magic + 2, "OTF2", 5) == 0) {
        /* an OTF2 archive's anchor file ("OTF2" and a NUL from byte 2, which
         * no text trace holds): it describes itself */
        if (given)
            OPEN_FAIL(PAL_EINVAL, "cannot open trace '%s': an OTF2 archive brings its own "
                      "description; read it without a dictionary", path);
        st = pal_otf2_open(r, s);
        s->own_dict = s->dict != NULL;
        goto fail;
    }
    if (!ecl && !given && have_magic) {
        /* a damaged magic: an ECL trace still, if its header's copy says so */
        uint8_t *hb = NULL;
        uint64_t end;
        if (recover_header(s, &hb, &end) == NULL)
            ecl = 1;
        free(hb);
    }
    if (ecl && !(given && !given->binary))
        st = pal_src_open_ecl(r, s, &given);
    else if (!given)
        OPEN_FAIL(PAL_ENODICT, "cannot open trace '%s': bad magic at byte 0 (not an ECL "
                  "trace); a trace without an embedded dictionary needs one (pal-dump -d DICT)",
                  path);
    else
        st = open_foreign(r, s, &given);
    s->own_dict = s->dict != NULL && !s->dict_borrowed;
fail:
    pal_dict_destroy(given);
    return st;
}

pal_status pal_reader_open(const char *path, const char *dict_path, pal_reader **out)
{
    PAL_REQUIRE(out, PAL_EINVAL);
    *out = NULL;
    PAL_REQUIRE(path, PAL_EINVAL);
    struct stat sb;
    int known = stat(path, &sb) == 0;
    if (known && S_ISDIR(sb.st_mode))
        return pal_reader_open_run(&path, 1, dict_path, 0, out);
    if (known && !dict_path && S_ISREG(sb.st_mode)) {
        /* a run file (version 3): its members read as one run */
        uint8_t b[16];
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        int v3 = fd >= 0 && sb.st_size >= 16 && ecc_read_at(fd, b, sizeof b, 0) == 0 &&
                 ecc_run_is(b, sizeof b);
        if (fd >= 0)
            close(fd);
        if (v3)
            return pal_run_open_file(path, 0, out);
    }
    pal_status st = PAL_OK;
    pal_reader *r = NULL;
    if ((st = pal_reader_alloc(path, &r)) != PAL_OK)
        return st;
    if (!(r->srcs = calloc(1, sizeof *r->srcs))) {
        free(r->path);
        free(r);
        pal_set_last_error("cannot open trace '%s': out of memory", path);
        return PAL_ENOMEM;
    }
    r->nsrcs = 1;
    pal_src *s = &r->srcs[0];
    if ((st = pal_src_open_path(r, s, path, dict_path)) != PAL_OK)
        goto fail;
    r->dict = s->dict;           /* owned by the reader, borrowed by the source */
    s->own_dict = 0;
    if (s->framing == FRAMING_ECL) {
        r->info.clock_source = s->hdr.clock_source;
        r->info.ticks_per_second = r->dict->ns_per_tick > 0 ? 1e9 / r->dict->ns_per_tick : 0;
        r->info.realtime_offset_ns = s->hdr.realtime_offset_ns;
        r->info.pid = s->hdr.pid;
        r->info.rank = s->hdr.rank;
        r->info.size = s->hdr.size;
        r->info.start_time = s->hdr.start_time;
        memcpy(r->info.host, s->hdr.host, sizeof r->info.host);
        if ((st = pal_reader_finish_open(r)) != PAL_OK)
            OPEN_FAIL(st, "cannot open trace '%s': out of memory", path);
    } else if ((st = ensure_vals(r, r->dict)) != PAL_OK) {
        OPEN_FAIL(st, "cannot open trace '%s': out of memory", path);
    }
    r->st.files = 1;
    pal_clear_last_error();
    *out = r;
    return PAL_OK;
fail:
    pal_reader_close(r);
    return st;
}

void pal_reader_close(pal_reader *r)
{
    if (!r)
        return;
    while (r->handles) {
        pal_handle *h = r->handles;
        r->handles = h->next;
        free(h->name);
        free(h->slots);
        free(h->uslots);
        free(h);
    }
    while (r->msgs) {
        pal_msg *m = r->msgs;
        r->msgs = m->next;
        free(m);
    }
    for (size_t i = 0; i < r->nstreams; i++) {
        pal_stream *s = r->streams[i];
        chunks_free(s);
        free(s->bad_why);
        free(s->win);
        free(s->zin);
        ecc_inflater_destroy(s->inf);
        free(s->batch);
        free(s->bvals);
        free(s->blens);
    }
    while (r->sblocks) {
        struct pal_sblock *b = r->sblocks;
        r->sblocks = b->next;
        free(b);
    }
    free(r->streams);
    free(r->stab);
    free(r->hbuf);
    free(r->spare_key);
    if (r->at_len > 0)
        close(r->at_fd);
    free(r->scanbuf);
    for (size_t i = 0; i < r->ndcache; i++) {
        free(r->dcache[i].raw);
        pal_dict_destroy(r->dcache[i].dict);
    }
    free(r->dcache);
    ecc_inflater_destroy(r->inf);
    free(r->heap);
    for (size_t i = 0; i < r->nsrcs; i++) {
        pal_src *s = &r->srcs[i];
        pal_ascii_close(s->ascii);
        pal_otf2_close(s->otf2);
        if (s->fd >= 0)
            close(s->fd);
        if (s->own_dict)
            pal_dict_destroy(s->dict);
        free(s->map);
        free(s->path);
        free(s->dkey);
        free(s->dpend);
    }
    free(r->srcs);
    pal_dict_destroy(r->dict);
    pal_dict_destroy(r->run_dict);
    free(r->rbuf);
    free(r->vals);
    free(r->lens);
    free(r->arrs);
    free(r->ivals);
    free(r->ilens);
    free(r->path);
    free(r);
}

const pal_dict *pal_reader_dict(const pal_reader *r)
{
    PAL_REQUIRE(r, NULL);
    return r->dict;
}

pal_status pal_reader_info(const pal_reader *r, pal_trace_info *info)
{
    PAL_REQUIRE(r && info, PAL_EINVAL);
    *info = r->info;
    return PAL_OK;
}

int64_t pal_reader_start_ns(const pal_reader *r)
{
    pal_trace_info in;
    if (!r || pal_reader_info(r, &in) != PAL_OK || in.start_time == 0 ||
        !(in.ticks_per_second > 0))
        return 0;
    double ns = (double)in.start_time * (1e9 / in.ticks_per_second);
    return ns < 9.2e18 ? (int64_t)(ns + 0.5) : 0;
}

void pal_reader_set_diag(pal_reader *r, pal_diag_fn fn, void *ctx)
{
    PAL_REQUIRE(r, );
    r->diag = fn;
    r->diag_ctx = ctx;
}

void pal_reader_set_strict(pal_reader *r, int strict)
{
    PAL_REQUIRE(r, );
    r->strict = strict != 0;
}

const char *pal_reader_error(const pal_reader *r)
{
    PAL_REQUIRE(r, "");
    return r->err;
}

void pal_reader_get_stats_sized(const pal_reader *r, pal_reader_stats *st, size_t size)
{
    PAL_REQUIRE(r && st && size >= sizeof st->size, );
    pal_reader_stats all = r->st;
    all.records += (uint64_t)(r->bnext - r->bmark);     /* see next_slow */
    all.streams = 0;
    for (size_t i = 0; i < r->nstreams; i++)
        all.streams += !defs_stream(r->streams[i]);
    all.size = size < sizeof all ? size : sizeof all;   /* an older, shorter struct */
    memcpy(st, &all, all.size);
}

pal_status pal_reader_handle(pal_reader *r, const char *field_name, const pal_handle **out)
{
    PAL_REQUIRE(out, PAL_EINVAL);
    *out = NULL;
    PAL_REQUIRE(r && field_name, PAL_EINVAL);
    for (pal_handle *h = r->handles; h; h = h->next)
        if (strcmp(h->name, field_name) == 0) {
            *out = h;
            return PAL_OK;
        }
    /* A name no record has is most likely a typo: say so now rather than
     * hand out a handle that never finds anything. */
    size_t i;
    for (i = 0; i < r->dict->nrecs; i++)
        if (pal_recdesc_find_field(r->dict->recs[i], field_name))
            break;
    if (i == r->dict->nrecs)
        return PAL_ENOFIELD;
    pal_handle *h = calloc(1, sizeof *h);
    if (!h || !(h->name = strdup(field_name))) {
        free(h);
        return PAL_ENOMEM;
    }
    if (handle_fill(r, h) != PAL_OK) {
        free(h->name);
        free(h->slots);
        free(h->uslots);
        free(h);
        return PAL_ENOMEM;
    }
    h->next = r->handles;
    r->handles = h;
    *out = h;
    return PAL_OK;
}
