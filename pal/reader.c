/* reader.c -- PAL Reader: opens a trace (ECL chunked container, or a raw
 * record stream described by a given dictionary), streams it in constant
 * memory and hands out decoded records.
 *
 * Memory: one read window (a few hundred KiB, or one chunk if larger) and one
 * decompression buffer, both reused, and the values of a batch of 256
 * records. Chunk damage is reported, counted and skipped exactly as
 * doc/trace-format.md says; nothing in here knows any record layout.
 *
 * A records chunk is read in one pass: its payload CRC establishes its
 * integrity, then its records are decoded a batch at a time as they are
 * handed out, with bounds-checked decoding -- by per-shape kernels (chosen
 * from the dictionary, pal_recdesc.shape) for the usual key-first LEB
 * layouts, by the checked op interpreter otherwise. A record that does not
 * decode ends the chunk there (reported after the records before it). */
#ifndef _FILE_OFFSET_BITS
#define _FILE_OFFSET_BITS 64   /* traces beyond 2 GiB on 32-bit hosts */
#endif
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
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

#include "pal/crc.h"
#include "pal/decode.h"
#include "pal/pal-internal.h"

#define ECL_FILE_MAGIC "ECLTRACE"
#define ECL_FOOTER_MAGIC "ECLINDEX"
#define ECL_CHUNK_MAGIC 0x4B484345u          /* "ECHK" */
#define ECL_HEADER_FIXED 136
#define ECL_CHUNK_HEADER 64
#define ECL_FOOTER 16

#define PAL_READAHEAD ((size_t)256 << 10)    /* read window for sequential reading */
#define PAL_SCAN_WINDOW ((size_t)1 << 20)    /* resync scan window */
#define PAL_MAX_HEADER ((uint64_t)64 << 20)  /* file header incl. dictionary */
#define PAL_MAX_RAW ((uint64_t)1 << 30)      /* decompressed chunk payload */
#define PAL_MAX_RAW_RECORD ((size_t)256 << 20) /* one record of a raw stream */
/* Records decoded per refill: pal_reader_next is then a pointer bump, and the
 * decode loop keeps its state in registers across records. */
#define PAL_BATCH 256
/* The LEB kernels decode a record without bounds tests while this many bytes
 * are left: a one-byte key and 15 LEBs of 10 bytes at most. */
#define PAL_FAST_MARGIN ((size_t)160)

enum { FRAMING_ECL = 1, FRAMING_RAW = 2, FRAMING_LINES = 3 };
enum { ST_READING = 0, ST_ENDED, ST_FAILED };

typedef struct chunk_hdr {
    uint8_t kind, compression;
    uint16_t flags;
    uint32_t stored, raw, process, stream, count, payload_crc;
    uint64_t sequence, first_time, last_time;
} chunk_hdr;

struct pal_reader {
    char *path;
    int fd;
    uint64_t size;
    pal_dict *dict;
    int framing;
    pal_trace_info info;
    uint32_t header_rank;           /* for chunks with process 0xFFFFFFFF */
    pal_diag_fn diag;
    void *diag_ctx;
    int strict;
    int state;
    pal_status failed;              /* what reading returns again once ST_FAILED */
    char err[1024];
    pal_reader_stats st;
    /* read window: file bytes [roff, roff + rlen) */
    unsigned char *rbuf;
    size_t rcap, rlen;
    uint64_t roff;
    /* decompression buffer */
    unsigned char *dbuf;
    size_t dcap;
    /* position: next chunk header (ECL) or next record (raw) */
    uint64_t data_start, pos;
    uint64_t index_off;             /* last index chunk read, for the footer check */
    /* the current records chunk: payload [cstart, cend), records from cp on
     * not decoded yet (cleft of ccount) */
    const unsigned char *cstart, *cp, *cend, *csafe;
    uint32_t ccount, cleft;
    uint64_t tsum;
    uint32_t cprocess, cstream;
    uint64_t coff, cwhole;           /* its offset and size in the file */
    uint64_t clast_time, ctime;      /* header's last_time; last record time so far */
    int chave_time;                  /* a record of the chunk had a time */
    /* the chunk turned out damaged: reported when the records decoded before
     * the damage have been handed out */
    int bad;
    uint32_t bad_done;               /* its records decoded before the damage */
    char bad_why[512];
    /* the values and the record of a raw stream */
    pal_value *vals;
    uint32_t *lens;
    size_t nvals;
    pal_record rec;
    /* a batch of decoded records of the current chunk, handed out in turn */
    pal_record batch[PAL_BATCH];
    pal_value *bvals;               /* PAL_BATCH rows of nvals values */
    uint32_t *blens;
    const pal_record *bnext, *bend;   /* the batch's records not handed out yet */
    uint64_t chunk_no, batch_chunk; /* records chunks loaded; whose roles the batch holds */
    pal_handle *handles;
    pal_ascii *ascii;               /* FRAMING_LINES */
    /* arrays of a raw-stream record, and their items */
    pal_arr *arrs;
    pal_value *ivals;
    uint32_t *ilens;
    size_t icap;
};

/* ---------------------------------------------------------------- helpers */

static uint16_t le16(const unsigned char *p) { return (uint16_t)pal_load_le(p, 2); }
static uint32_t le32(const unsigned char *p) { return (uint32_t)pal_load_le(p, 4); }
static uint64_t le64(const unsigned char *p) { return pal_load_le(p, 8); }

static void default_diag(void *ctx, const char *message)
{
    (void)ctx;
    fprintf(stderr, "%s\n", message);
}

/* Formats "path: byte N: message" into r->err and sends it to the callback. */
static void PAL_PRINTF(3, 4) report(pal_reader *r, uint64_t off, const char *fmt, ...)
{
    va_list ap;
    int n = snprintf(r->err, sizeof r->err, "%s: byte %" PRIu64 ": ", r->path, off);
    if (n < 0 || (size_t)n >= sizeof r->err)
        n = 0;
    va_start(ap, fmt);
    vsnprintf(r->err + n, sizeof r->err - (size_t)n, fmt, ap);
    va_end(ap);
    if (r->diag)
        r->diag(r->diag_ctx, r->err);
}

/* Damage bookkeeping after report(): strict mode stops here. */
static pal_status damaged(pal_reader *r, uint64_t skipped)
{
    r->st.damaged++;
    r->st.bytes_skipped += skipped;
    if (r->strict) {
        r->state = ST_FAILED;
        r->failed = PAL_EFORMAT;
        return PAL_EFORMAT;
    }
    return PAL_OK;
}

static pal_status truncated(pal_reader *r, uint64_t skipped)
{
    r->st.truncated = 1;
    r->st.bytes_skipped += skipped;
    r->state = r->strict ? ST_FAILED : ST_ENDED;
    r->failed = PAL_EFORMAT;
    return r->strict ? PAL_EFORMAT : PAL_END;
}

static int read_at(pal_reader *r, uint64_t off, unsigned char *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t k = pread(r->fd, buf + got, n - got, (off_t)(off + got));
        if (k < 0 && errno == EINTR)
            continue;
        if (k == 0)
            errno = EIO;            /* the file shrank while being read */
        if (k <= 0)
            return -1;
        got += (size_t)k;
    }
    return 0;
}

/* Makes file bytes [off, off + n) available in the read window, reading
 * `ahead` bytes (at least n, at most to the end of file) when it must.
 * NULL if the file does not hold them or cannot be read. Pointers from an
 * earlier call stay valid only while the window is not refilled. */
static const unsigned char *fetch(pal_reader *r, uint64_t off, size_t n, size_t ahead)
{
    if (off >= r->roff && n <= r->rlen && off - r->roff <= r->rlen - n)
        return r->rbuf + (off - r->roff);
    if (off > r->size || n > r->size - off)
        return NULL;
    size_t want = ahead > n ? ahead : n;
    if (want > r->size - off)
        want = (size_t)(r->size - off);
    if (want > r->rcap) {
        unsigned char *nb = realloc(r->rbuf, want);
        if (!nb)
            return NULL;
        r->rbuf = nb;
        r->rcap = want;
    }
    r->rlen = 0;
    if (read_at(r, off, r->rbuf, want) != 0)
        return NULL;
    r->roff = off;
    r->rlen = want;
    return r->rbuf;
}

static pal_status ensure_vals(pal_reader *r)
{
    size_t need = r->dict->max_fields ? r->dict->max_fields : 1;
    if (need <= r->nvals)
        return PAL_OK;
    /* Only between batches (the dictionary grows while a chunk is loaded), so
     * no record handed out since the last pal_reader_next is invalidated. */
    pal_value *v = calloc(need, sizeof *v), *bv = calloc(need * PAL_BATCH, sizeof *bv);
    uint32_t *l = calloc(need, sizeof *l), *bl = calloc(need * PAL_BATCH, sizeof *bl);
    if (!v || !bv || !l || !bl) {
        free(v);
        free(bv);
        free(l);
        free(bl);
        return PAL_ENOMEM;
    }
    pal_arr *ar = calloc(need, sizeof *ar);
    if (!ar) {
        free(v);
        free(bv);
        free(l);
        free(bl);
        return PAL_ENOMEM;
    }
    free(r->arrs);
    r->arrs = ar;
    r->rec.arrs = ar;
    free(r->vals);
    free(r->lens);
    free(r->bvals);
    free(r->blens);
    r->vals = v;
    r->lens = l;
    r->bvals = bv;
    r->blens = bl;
    r->nvals = need;
    r->rec.vals = r->vals;
    r->rec.lens = r->lens;
    for (size_t i = 0; i < PAL_BATCH; i++) {
        r->batch[i].vals = bv + i * need;
        r->batch[i].lens = bl + i * need;
    }
    return PAL_OK;
}

static pal_status handle_fill(pal_reader *r, pal_handle *h)
{
    size_t n = r->dict->nrecs;
    if (n <= h->nslots)
        return PAL_OK;
    struct pal_slot *s = realloc(h->slots, n * sizeof *s);
    if (!s)
        return PAL_ENOMEM;
    h->slots = s;
    int32_t *u = realloc(h->uslots, n * sizeof *u);
    if (!u)
        return PAL_ENOMEM;
    h->uslots = u;
    for (size_t i = h->nslots; i < n; i++) {
        const pal_fielddesc *f = pal_recdesc_find_field(r->dict->recs[i], h->name);
        s[i].field = f ? (int32_t)f->index : -1;
        s[i].tclass = f ? f->tclass : 0;
        /* (ascii fields may be absent: those take the general path) */
        u[i] = f && f->tclass == PAL_TC_UNSIGNED && r->dict->binary ? (int32_t)f->index : -1;
    }
    h->nslots = n;
    return PAL_OK;
}

/* After the dictionary grew: new record descriptors reach the values array
 * and every handle's slot table. */
static pal_status dict_grown(pal_reader *r)
{
    pal_status st = ensure_vals(r);
    for (pal_handle *h = r->handles; h && st == PAL_OK; h = h->next)
        st = handle_fill(r, h);
    return st;
}

/* ---------------------------------------------------------------- chunks */

/* 0 ok, else the reason the 64 bytes at b are not a chunk header. */
static const char *parse_chunk(const unsigned char *b, chunk_hdr *h)
{
    if (le32(b) != ECL_CHUNK_MAGIC)
        return "bad magic";
    if (le32(b + 4) != (uint32_t)crc32(0L, b + 8, ECL_CHUNK_HEADER - 8))
        return "header CRC mismatch";
    h->kind = b[8];
    h->compression = b[9];
    h->flags = le16(b + 10);
    h->stored = le32(b + 12);
    h->raw = le32(b + 16);
    h->process = le32(b + 20);
    h->stream = le32(b + 24);
    h->count = le32(b + 28);
    h->sequence = le64(b + 32);
    h->first_time = le64(b + 40);
    h->last_time = le64(b + 48);
    h->payload_crc = le32(b + 56);
    if (h->stored >= 0x80000000u)
        return "stored_length over 2^31";
    return NULL;
}

static int is_footer_at(pal_reader *r, uint64_t off)
{
    unsigned char b[8];
    return off + ECL_FOOTER == r->size && read_at(r, off, b, 8) == 0 &&
           memcmp(b, ECL_FOOTER_MAGIC, 8) == 0;
}

/* Scans forward from `from` for the next offset holding a valid chunk header
 * or the footer; returns the file size if there is none. */
static uint64_t resync(pal_reader *r, uint64_t from)
{
    uint64_t off = from;
    while (off < r->size) {
        size_t n = (size_t)(r->size - off < PAL_SCAN_WINDOW ? r->size - off : PAL_SCAN_WINDOW);
        const unsigned char *b = fetch(r, off, n, n);
        if (!b)
            return r->size;
        for (size_t i = 0; i < n;) {
            const unsigned char *q = memchr(b + i, 'E', n - i);
            if (!q)
                break;
            size_t j = (size_t)(q - b);
            uint64_t cand = off + j;
            unsigned char hb[ECL_CHUNK_HEADER];
            chunk_hdr h;
            if (r->size - cand >= ECL_CHUNK_HEADER) {
                /* The magic first, from the window when it is there; the
                 * header is read separately as it may straddle the window. */
                if (j + 4 <= n && le32(b + j) != ECL_CHUNK_MAGIC) {
                    i = j + 1;
                    continue;
                }
                if (read_at(r, cand, hb, sizeof hb) == 0 && !parse_chunk(hb, &h))
                    return cand;
            } else if (is_footer_at(r, cand)) {
                return cand;
            }
            i = j + 1;
        }
        off += n;
    }
    return r->size;
}

/* Points *out at the raw payload of chunk h (stored bytes at src). NULL on
 * success, else the reason. */
static const char *inflate_payload(pal_reader *r, const chunk_hdr *h, const unsigned char *src,
                                   const unsigned char **out)
{
    if (h->compression == 0) {
        if (h->raw != h->stored)
            return "raw_length differs from stored_length in an uncompressed chunk";
        *out = src;
        return NULL;
    }
    if (h->raw > PAL_MAX_RAW)
        return "raw_length over 1 GiB";
    if (h->raw + (size_t)1 > r->dcap) {
        unsigned char *nb = realloc(r->dbuf, h->raw + (size_t)1);
        if (!nb)
            return "out of memory for the decompressed payload";
        r->dbuf = nb;
        r->dcap = h->raw + (size_t)1;
    }
    switch (h->compression) {
    case 1: {
        uLongf dl = h->raw;
        uLong sl = h->stored;
        int rc = uncompress2(r->dbuf, &dl, src, &sl);
        if (rc != Z_OK || dl != h->raw || sl != h->stored)
            return "zlib payload does not decompress to raw_length bytes";
        break;
    }
    case 2:
#ifdef HAVE_ZSTD
    {
        size_t n = ZSTD_decompress(r->dbuf, h->raw, src, h->stored);
        if (ZSTD_isError(n) || n != h->raw)
            return "zstd payload does not decompress to raw_length bytes";
        break;
    }
#else
        return "zstd compression, not supported by this build of PAL";
#endif
    default:
        return "unknown compression";
    }
    *out = r->dbuf;
    return NULL;
}

/* Decodes a dictionary chunk and merges what it adds. NULL or the reason. */
static const char *merge_dict_chunk(pal_reader *r, const unsigned char *p, size_t n, char *why,
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
    es = edl_dict_merge(r->dict->ed, src);
    edl_dict_destroy(src);
    /* Merge may have added part before failing: bring everything up to date. */
    if (pal_dict_sync(r->dict, NULL, 0) != PAL_OK || dict_grown(r) != PAL_OK) {
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

/* Formats the decoded primary key (in vals) for a report. */
static void key_text(const pal_reader *r, const pal_value *vals, const uint32_t *lens, char *buf,
                     size_t size)
{
    const pal_dict *d = r->dict;
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
static void decode_why(const pal_reader *r, const pal_decerr *e, const pal_value *vals,
                       const uint32_t *lens, uint64_t index, size_t at, char *why, size_t whylen)
{
    char key[64];
    if (e->rec == NULL && e->field < 0) {
        key_text(r, vals, lens, key, sizeof key);
        snprintf(why, whylen, "record %" PRIu64 " (at payload byte %zu): %s %s", index, at,
                 e->why, key);
    } else if (e->field >= 0) {
        const pal_recdesc *rd = e->rec ? e->rec : r->dict->prefix_rec;
        const char *fname = rd && (size_t)e->field < rd->nfields ? rd->fields[e->field].name : "?";
        snprintf(why, whylen, "record %" PRIu64 " (at payload byte %zu)%s%s, field '%s': %s",
                 index, at, e->rec ? " " : "", e->rec ? e->rec->name : "", fname, e->why);
    } else {
        snprintf(why, whylen, "record %" PRIu64 " (at payload byte %zu) %s: %s", index, at,
                 e->rec->name, e->why);
    }
}

/* Reads chunks until one with records is ready (PAL_OK), the end (PAL_END),
 * or strict damage (PAL_EFORMAT). A records chunk is only checked here for
 * what its header alone can tell; its records are checked as they are
 * decoded (fill_batch). */
static pal_status load_chunk(pal_reader *r)
{
    char why[512];
    for (;;) {
        if (r->state != ST_READING)
            return r->state == ST_ENDED ? PAL_END : r->failed;
        uint64_t off = r->pos;
        uint64_t left = r->size - off;
        if (left == 0) {
            r->state = ST_ENDED;
            return PAL_END;
        }
        if (left == ECL_FOOTER && is_footer_at(r, off)) {
            unsigned char fb[ECL_FOOTER];
            r->state = ST_ENDED;
            if (read_at(r, off, fb, sizeof fb) == 0 && le64(fb + 8) != r->index_off) {
                report(r, off, "footer names byte %" PRIu64 " as the index, which is not the "
                       "index chunk just read", le64(fb + 8));
                if (damaged(r, ECL_FOOTER) != PAL_OK)
                    return PAL_EFORMAT;
            }
            return PAL_END;
        }
        if (left < ECL_CHUNK_HEADER) {
            report(r, off, "file ends inside a chunk header (%" PRIu64 " bytes left): truncated",
                   left);
            return truncated(r, left);
        }
        const unsigned char *b = fetch(r, off, ECL_CHUNK_HEADER, PAL_READAHEAD);
        if (!b) {
            report(r, off, "read error: %s", errno ? strerror(errno) : "error");
            r->state = ST_FAILED;
            r->failed = PAL_EIO;
            return PAL_EIO;
        }
        chunk_hdr h;
        const char *bad = parse_chunk(b, &h);
        if (bad) {
            uint64_t next = resync(r, off + 1);
            if (next < r->size)
                report(r, off, "bad chunk header (%s); resuming at byte %" PRIu64
                       " (%" PRIu64 " bytes skipped)", bad, next, next - off);
            else
                report(r, off, "bad chunk header (%s); no further chunk (%" PRIu64
                       " bytes skipped)", bad, next - off);
            r->pos = next;
            if (damaged(r, next - off) != PAL_OK)
                return PAL_EFORMAT;
            continue;
        }
        uint64_t poff = off + ECL_CHUNK_HEADER;
        if (h.stored > left - ECL_CHUNK_HEADER) {
            report(r, off, "file truncated inside a chunk: its payload needs %" PRIu32
                   " bytes, %" PRIu64 " are left", h.stored, left - ECL_CHUNK_HEADER);
            return truncated(r, left);
        }
        r->pos = poff + h.stored;
        const unsigned char *p = fetch(r, poff, h.stored, PAL_READAHEAD);
        if (!p) {
            report(r, off, "cannot read chunk payload: %s", errno ? strerror(errno) : "error");
            r->state = ST_FAILED;
            r->failed = PAL_EIO;
            return PAL_EIO;
        }
        uint64_t whole = ECL_CHUNK_HEADER + (uint64_t)h.stored;
        if (pal_crc32(p, h.stored) != h.payload_crc) {
            report(r, off, "chunk payload CRC mismatch, chunk skipped");
            if (damaged(r, whole) != PAL_OK)
                return PAL_EFORMAT;
            continue;
        }
        if (h.flags != 0) {
            report(r, off, "unknown chunk flags 0x%04x, chunk skipped", (unsigned)h.flags);
            if (damaged(r, whole) != PAL_OK)
                return PAL_EFORMAT;
            continue;
        }
        if (h.kind == 3) {
            r->index_off = off;         /* nothing depends on the index */
            continue;
        }
        if (h.kind != 1 && h.kind != 2) {
            report(r, off, "unknown chunk kind %u, chunk skipped", (unsigned)h.kind);
            continue;                   /* a newer writer's addition, not damage */
        }
        const unsigned char *data;
        bad = inflate_payload(r, &h, p, &data);
        if (!bad && h.kind == 2) {
            bad = merge_dict_chunk(r, data, h.raw, why, sizeof why);
        } else if (!bad && h.count > h.raw) {
            /* every record takes at least one byte */
            snprintf(why, sizeof why, "record_count %" PRIu32 " exceeds the %" PRIu32
                     " payload bytes", h.count, h.raw);
            bad = why;
        } else if (!bad && h.count == 0 && h.raw != 0) {
            snprintf(why, sizeof why, "0 records end at payload byte 0 of %" PRIu32, h.raw);
            bad = why;
        }
        if (bad) {
            report(r, off, "%s chunk damaged: %s; chunk skipped",
                   h.kind == 1 ? "records" : "dictionary", bad);
            if (damaged(r, whole) != PAL_OK)
                return PAL_EFORMAT;
            continue;
        }
        if (h.kind == 2 || h.count == 0) {
            r->st.chunks++;
            continue;
        }
        r->cstart = r->cp = data;
        r->cend = data + h.raw;
        /* the kernels run while this many bytes are left (see fill_batch) */
        r->csafe = h.raw > PAL_FAST_MARGIN && r->dict->prefix_uleb ? r->cend - PAL_FAST_MARGIN
                                                                  : data;
        r->ccount = r->cleft = h.count;
        r->tsum = h.first_time;
        r->clast_time = h.last_time;
        r->chave_time = 0;
        r->ctime = 0;
        r->cwhole = whole;
        r->coff = off;
        r->cprocess = h.process != 0xFFFFFFFFu ? h.process : r->header_rank;
        r->cstream = h.stream;
        r->chunk_no++;
        return PAL_OK;
    }
}

/* ---------------------------------------------------------------- records */

PAL_INLINE void fill_record(pal_reader *r, pal_record *rec, const pal_recdesc *rd,
                            const pal_value *vals)
{
    rec->desc = rd;
    rec->time = pal_record_time_of(rd, vals);
    rec->offset = r->coff;
    if (PAL_LIKELY(!r->dict->role_fields)) {
        rec->process = r->cprocess;
        rec->stream = r->cstream;
        return;
    }
    rec->process = rd->process_fi < 0 ? r->cprocess
        : (uint32_t)pal_value_as_u64(vals[rd->process_fi], rd->fields[rd->process_fi].tclass);
    rec->stream = rd->thread_fi < 0 ? r->cstream
        : (uint32_t)pal_value_as_u64(vals[rd->thread_fi], rd->fields[rd->thread_fi].tclass);
}

/* One LEB128 value at q for the kernels of fill_batch: up to three bytes
 * inline (at least PAL_FAST_MARGIN bytes are left, so no bounds test), longer
 * ones by the bounds-checked decoder. A value above `lim` -- tested from two
 * bytes on if `check2`, else from three bytes on (the record's limits are at
 * least 16383 then) -- or a LEB that does not decode sends the record to the
 * checked decoder. A value of one byte, below 128, fits every type. */
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
                if (pal_uleb_slow(&q_, r->cend, &y_) != PAL_DEC_OK ||           \
                    PAL_UNLIKELY(y_ > (lim)))                                   \
                    goto checked;                                               \
                q = q_;                                                         \
                (x) = y_;                                                       \
            }                                                                   \
        }                                                                       \
    } while (0)

/* A record with every check, from *pp, into rec; 0 if it does not decode
 * (the chunk is then damaged from it on: r->bad). Out of line, so that the
 * kernels' loop keeps its state in registers. */
static PAL_NOINLINE int decode_checked(pal_reader *r, const unsigned char **pp, uint64_t *tp,
                                       pal_record *rec, uint32_t i)
{
    pal_value *vals = (pal_value *)rec->vals;       /* the batch's own rows */
    uint32_t *lens = (uint32_t *)rec->lens;
    const unsigned char *p0 = *pp;
    const pal_recdesc *rd;
    pal_decerr e;
    if (pal_decode_record(r->dict, pp, r->cend, tp, vals, lens, &rd, &e) != PAL_DEC_OK) {
        r->bad_done = r->ccount - r->cleft + i;
        decode_why(r, &e, vals, lens, r->bad_done, (size_t)(p0 - r->cstart), r->bad_why,
                   sizeof r->bad_why);
        r->bad = 1;
        return 0;
    }
    fill_record(r, rec, rd, vals);
    return 1;
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
    rec->time = pal_record_time_of(rd, vals);
    return 1;
}

/* The batch loop of fill_batch, for records from rec to rend: kernels while
 * they apply, decode_checked otherwise. Returns where it stopped (rend, or
 * the record that does not decode). Inlined twice, with and without role
 * fields, so that neither pays for the other. */
PAL_INLINE pal_record *decode_batch(pal_reader *r, pal_record *rec, pal_record *const rend,
                                    const int roles)
{
    const unsigned char *p = r->cp;
    const unsigned char *const safe = r->csafe;
    const pal_recdesc *const *const byte_key = r->dict->byte_key;
    uint64_t t = r->tsum;
    for (; rec < rend; rec++) {
        /* p and t stay at the record's start until it has decoded */
        if (PAL_LIKELY(p < safe)) {
            const unsigned k = *p;
            const pal_recdesc *const rd = byte_key[k];
            const unsigned char *q = p + 1;
            pal_value *const vals = (pal_value *)rec->vals;
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
                                x = (uint64_t)pal_unzigzag(x);
                        }
                        v->u = x;
                    }
                    rec->time = rd->time_fi >= 0 ? tt : 0;    /* the one TDELTA */
                    break;
                }
                case PAL_SH_OPS: {
                    const unsigned char *q2 = q;
                    uint64_t t2 = tt;
                    vals[0].u = k;      /* the op list may look at it for the time */
                    if (!decode_ops(rd, &q2, r->cend, &t2, rec))
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
            p = q;
            t = tt;
            rec->desc = rd;
            if (roles)
                fill_record(r, rec, rd, vals);
            continue;
        }
    checked:
        /* with every check and its reason */
        {
            const unsigned char *q = p;
            uint64_t tq = t;
            if (!decode_checked(r, &q, &tq, rec, (uint32_t)(rec - r->batch)))
                break;
            p = q;
            t = tq;
        }
    }
    r->cp = p;
    r->tsum = t;
    return rec;
}

/* Decodes the next batch of the current chunk's records, in one pass with
 * every check: the chunk's CRC held, so its records are trusted to decode,
 * but a faulty writer must not make the reader read out of bounds or hand
 * out wrong values. Records whose key is one ULEB byte and whose layout has
 * a kernel (pal_recdesc.shape) are decoded by it while PAL_FAST_MARGIN bytes
 * are left (r->csafe); the others -- and any record a kernel finds odd -- by
 * the fully checked decoder. A record that does not decode ends the batch
 * before it and leaves the rest of the chunk damaged (r->bad), reported once
 * the records before it have been handed out; so are a chunk that does not
 * end where its last record does and a last time that differs from the
 * header's. */
static void fill_batch(pal_reader *r)
{
    const pal_dict *d = r->dict;
    uint32_t n = r->cleft < PAL_BATCH ? r->cleft : PAL_BATCH;
    pal_record *rec;
    if (!d->role_fields && r->batch_chunk != r->chunk_no) {
        /* container roles: the same for every record of the chunk */
        for (size_t i = 0; i < PAL_BATCH; i++) {
            r->batch[i].offset = r->coff;
            r->batch[i].process = r->cprocess;
            r->batch[i].stream = r->cstream;
        }
        r->batch_chunk = r->chunk_no;
    }
    if (d->role_fields)
        rec = decode_batch(r, r->batch, r->batch + n, 1);
    else
        rec = decode_batch(r, r->batch, r->batch + n, 0);
    const unsigned char *const p = r->cp, *const end = r->cend;
    uint32_t i = (uint32_t)(rec - r->batch);
    r->cleft -= i;
    r->bnext = r->batch;
    r->bend = r->batch + i;
    /* the last record with a time so far, for the chunk's last_time */
    for (uint32_t j = i; j-- > 0;)
        if (r->batch[j].desc->time_fi >= 0) {
            r->ctime = r->batch[j].time;
            r->chave_time = 1;
            break;
        }
    if (r->bad) {
        r->cleft = 0;
    } else if (r->cleft == 0) {
        r->bad_done = r->ccount;
        if (p != end) {
            snprintf(r->bad_why, sizeof r->bad_why, "%" PRIu32 " records end at payload byte %zu "
                     "of %zu", r->ccount, (size_t)(p - r->cstart), (size_t)(end - r->cstart));
            r->bad = 1;
        } else if (r->chave_time && r->ctime != r->clast_time) {
            snprintf(r->bad_why, sizeof r->bad_why, "last record time %" PRIu64 " differs from "
                     "the chunk's last_time %" PRIu64, r->ctime, r->clast_time);
            r->bad = 1;
        } else {
            r->st.chunks++;
        }
    }
}

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

/* A raw stream: records back to back, decoded with full checks one at a time
 * (there are no chunk CRCs to lean on). */
static pal_status raw_next(pal_reader *r, const pal_record **out)
{
    if (r->state != ST_READING)
        return r->state == ST_ENDED ? PAL_END : r->failed;
    uint64_t left = r->size - r->pos;
    if (left == 0) {
        r->state = ST_ENDED;
        return PAL_END;
    }
    size_t ahead = PAL_READAHEAD;
    for (;;) {
        size_t n = left < ahead ? (size_t)left : ahead;
        const unsigned char *b = fetch(r, r->pos, n, ahead);
        if (!b) {
            report(r, r->pos, "read error: %s", errno ? strerror(errno) : "error");
            r->state = ST_FAILED;
            r->failed = PAL_EIO;
            return PAL_EIO;
        }
        const unsigned char *q = b;
        const pal_recdesc *rd = NULL;
        pal_decerr e;
        uint64_t tsave = r->tsum;
        int rc = pal_decode_record(r->dict, &q, b + n, &r->tsum, r->vals, r->lens, &rd, &e);
        if (rc == PAL_DEC_BAD && e.rec && e.rec->barrs && e.field < 0) {
            /* a known record with arrays: field by field */
            uint64_t t = tsave;
            q = b;
            rc = decode_arrays(r, e.rec, b, b + n, &q, &t, &e);
            r->tsum = rc == PAL_DEC_OK ? t : tsave;
            rd = e.rec;
        }
        if (rc == PAL_DEC_SHORT && n < left && ahead < PAL_MAX_RAW_RECORD) {
            ahead *= 2;             /* a long record: widen the window */
            continue;
        }
        if (rc == PAL_DEC_SHORT && n == left) {
            report(r, r->pos, "file ends inside a record (%" PRIu64 " bytes left): truncated",
                   left);
            return truncated(r, left);
        }
        if (rc != PAL_DEC_OK) {
            char why[512];
            decode_why(r, &e, r->vals, r->lens, r->st.records, 0, why, sizeof why);
            report(r, r->pos, "cannot decode %s; a raw stream has no framing to resume at, "
                   "the remaining %" PRIu64 " bytes are skipped",
                   rc == PAL_DEC_SHORT ? "a record longer than 256 MiB" : why, left);
            r->state = ST_ENDED;
            if (damaged(r, left) != PAL_OK)
                return PAL_EFORMAT;
            return PAL_END;
        }
        r->coff = r->pos;
        r->pos += (uint64_t)(q - b);
        fill_record(r, &r->rec, rd, r->vals);
        r->st.records++;
        *out = &r->rec;
        return PAL_OK;
    }
}

/* An ascii file: line by line; bad lines are reported as
 * "path:line:col: message", counted and skipped (strict mode: the end). */
static pal_status lines_next(pal_reader *r, const pal_record **out)
{
    if (r->state != ST_READING)
        return r->state == ST_ENDED ? PAL_END : r->failed;
    for (;;) {
        char msg[768];
        uint64_t line = 0;
        uint32_t col = 0;
        msg[0] = '\0';
        int rc = pal_ascii_next(r->ascii, &r->rec, msg, sizeof msg, &line, &col);
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
            snprintf(r->err, sizeof r->err, "%s: %s", r->path, msg);
            if (r->diag)
                r->diag(r->diag_ctx, r->err);
            r->state = ST_FAILED;
            r->failed = PAL_EIO;
            return PAL_EIO;
        }
        if (col)
            snprintf(r->err, sizeof r->err, "%s:%" PRIu64 ":%" PRIu32 ": %s", r->path, line, col,
                     msg);
        else
            snprintf(r->err, sizeof r->err, "%s:%" PRIu64 ": %s", r->path, line, msg);
        if (r->diag)
            r->diag(r->diag_ctx, r->err);
        if (damaged(r, 0) != PAL_OK)
            return PAL_EFORMAT;
    }
}

static PAL_NOINLINE pal_status next_slow(pal_reader *r, const pal_record **out)
{
    PAL_REQUIRE(r && out, PAL_EINVAL);
    if (r->framing == FRAMING_LINES)
        return lines_next(r, out);
    if (r->framing == FRAMING_RAW)
        return raw_next(r, out);
    /* records handed out from the batch are counted here, not one by one */
    r->st.records += (uint64_t)(r->bnext - r->batch);
    r->bnext = r->bend = r->batch;
    for (;;) {
        if (r->bad) {
            /* the records before the damage have been handed out */
            r->bad = 0;
            if (r->bad_done)
                report(r, r->coff, "records chunk damaged: %s; its first %" PRIu32 " records "
                       "were read, the rest of the chunk is skipped", r->bad_why, r->bad_done);
            else
                report(r, r->coff, "records chunk damaged: %s; chunk skipped", r->bad_why);
            if (damaged(r, r->cwhole) != PAL_OK)
                return PAL_EFORMAT;
        }
        if (r->cleft == 0) {
            pal_status st = load_chunk(r);
            if (st != PAL_OK)
                return st;
        }
        fill_batch(r);
        if (r->bnext < r->bend) {
            *out = r->bnext++;
            return PAL_OK;
        }
    }
}

pal_status pal_reader_next(pal_reader *r, const pal_record **out)
{
    if (PAL_LIKELY(r != NULL) && PAL_LIKELY(out != NULL)) {
        const pal_record *rec = r->bnext;
        if (PAL_LIKELY(rec < r->bend)) {
            r->bnext = rec + 1;
            *out = rec;
            return PAL_OK;
        }
    }
    return next_slow(r, out);
}

/* ---------------------------------------------------------------- open */

/* Collects the dictionary chunks ahead of time so the dictionary is complete
 * before the first record: walks chunk headers only (64-byte reads, seeking
 * by stored_length), reading payloads of kind 2 alone. Damage is not reported
 * here; the sequential pass reports it in file order. */
static void prescan(pal_reader *r)
{
    uint64_t off = r->data_start;
    char why[256];
    while (r->size - off >= ECL_CHUNK_HEADER) {
        unsigned char hb[ECL_CHUNK_HEADER];
        chunk_hdr h;
        if (read_at(r, off, hb, sizeof hb) != 0)
            return;
        if (parse_chunk(hb, &h)) {
            off = resync(r, off + 1);
            continue;
        }
        uint64_t avail = r->size - off - ECL_CHUNK_HEADER;
        if (h.stored > avail)
            return;
        if (h.kind == 2 && h.flags == 0) {
            const unsigned char *p = fetch(r, off + ECL_CHUNK_HEADER, h.stored, h.stored);
            const unsigned char *data;
            if (p && pal_crc32(p, h.stored) == h.payload_crc &&
                !inflate_payload(r, &h, p, &data))
                (void)merge_dict_chunk(r, data, h.raw, why, sizeof why);
        }
        off += ECL_CHUNK_HEADER + (uint64_t)h.stored;
    }
}

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

#define OPEN_FAIL(status, ...)                                                  \
    do {                                                                        \
        pal_set_last_error(__VA_ARGS__);                                        \
        st = (status);                                                          \
        goto fail;                                                              \
    } while (0)

/* Validates the file header, takes its dictionary (unless one was given). */
static pal_status open_ecl(pal_reader *r, pal_dict **given)
{
    pal_status st = PAL_OK;
    const char *path = r->path;
    if (r->size < ECL_HEADER_FIXED)
        OPEN_FAIL(PAL_EFORMAT, "cannot open trace '%s': file header truncated at byte %" PRIu64
                  " (needs %d bytes)", path, r->size, ECL_HEADER_FIXED);
    const unsigned char *b = fetch(r, 0, ECL_HEADER_FIXED, ECL_HEADER_FIXED);
    if (!b)
        OPEN_FAIL(PAL_EIO, "cannot open trace '%s': read error", path);
    unsigned vmaj = le16(b + 8), vmin = le16(b + 10);
    uint32_t hlen = le32(b + 12), hcrc = le32(b + 16);
    uint32_t doff = le32(b + 128), dlen = le32(b + 132);
    if (vmaj != 1)
        OPEN_FAIL(PAL_EFORMAT, "cannot open trace '%s': unsupported format version %u.%u at "
                  "byte 8 (this reader knows 1.x)", path, vmaj, vmin);
    if (hlen < ECL_HEADER_FIXED || hlen > PAL_MAX_HEADER)
        OPEN_FAIL(PAL_EFORMAT, "cannot open trace '%s': bad header_length %" PRIu32
                  " at byte 12", path, hlen);
    if (hlen > r->size)
        OPEN_FAIL(PAL_EFORMAT, "cannot open trace '%s': file header truncated at byte %" PRIu64
                  " (header_length is %" PRIu32 ")", path, r->size, hlen);
    if (doff < ECL_HEADER_FIXED || dlen > hlen || doff > hlen - dlen)
        OPEN_FAIL(PAL_EFORMAT, "cannot open trace '%s': embedded dictionary (offset %" PRIu32
                  ", length %" PRIu32 ") outside the header at byte 128", path, doff, dlen);
    b = fetch(r, 0, hlen, hlen);
    if (!b)
        OPEN_FAIL(PAL_EIO, "cannot open trace '%s': read error", path);
    {
        static const unsigned char zero[4];
        uLong c = crc32(0L, b, 16);
        c = crc32(c, zero, 4);
        c = crc32(c, b + 20, hlen - 20);
        if ((uint32_t)c != hcrc)
            OPEN_FAIL(PAL_EFORMAT, "cannot open trace '%s': file header CRC mismatch at byte 16 "
                      "(header bytes 0-%" PRIu32 " damaged)", path, hlen);
    }
    r->info.clock_source = b[21];
    {
        uint64_t bits = le64(b + 24);
        memcpy(&r->info.ticks_per_second, &bits, sizeof bits);
    }
    r->info.realtime_offset_ns = (int64_t)le64(b + 32);
    r->info.pid = le32(b + 40);
    r->info.rank = (int32_t)le32(b + 44);
    r->info.size = (int32_t)le32(b + 48);
    r->info.start_time = le64(b + 56);
    memcpy(r->info.host, b + 64, 64);
    r->info.host[64] = '\0';
    r->header_rank = r->info.rank >= 0 ? (uint32_t)r->info.rank : 0;
    if (*given) {
        r->dict = *given;
        *given = NULL;
    } else {
        edl_dict *ed = NULL;
        char err[256] = "";
        edl_status es = edl_dict_decode(b + doff, dlen, &ed, err, sizeof err);
        if (es != EDL_OK)
            OPEN_FAIL(es == EDL_ENOMEM ? PAL_ENOMEM : PAL_EFORMAT,
                      "cannot open trace '%s': embedded dictionary at byte %" PRIu32 ": %s",
                      path, doff, *err ? err : edl_status_string(es));
        if ((st = pal_dict_wrap(ed, &r->dict, err, sizeof err)) != PAL_OK)
            OPEN_FAIL(st, "cannot open trace '%s': embedded dictionary at byte %" PRIu32 ": %s",
                      path, doff, err);
    }
    if (!r->dict->binary)
        OPEN_FAIL(PAL_EFORMAT, "cannot open trace '%s': the dictionary describes an ascii "
                  "format, not ECL chunks", path);
    const char *unit = edl_dict_time_unit(r->dict->ed);
    if (!unit || strcmp(unit, "ticks") != 0)
        r->info.ticks_per_second = unit_ticks(unit);
    r->framing = FRAMING_ECL;
    r->dict->ns_per_tick = r->info.ticks_per_second > 0 ? 1e9 / r->info.ticks_per_second : 0;
    r->data_start = r->pos = hlen;
    if ((st = ensure_vals(r)) != PAL_OK)
        OPEN_FAIL(st, "cannot open trace '%s': out of memory", path);
    prescan(r);
    if ((st = ensure_vals(r)) != PAL_OK)
        OPEN_FAIL(st, "cannot open trace '%s': out of memory", path);
    return PAL_OK;
fail:
    return st;
}

/* A foreign file read through a given dictionary. */
static pal_status open_foreign(pal_reader *r, pal_dict **given)
{
    pal_status st = PAL_OK;
    const char *path = r->path;
    pal_dict *d = *given;
    if (!d->binary) {
        if (edl_dict_framing(d->ed) != EDL_FRAMING_LINES)
            OPEN_FAIL(PAL_EFORMAT, "cannot open trace '%s': the ascii dictionary '%s' has a "
                      "framing other than lines", path, pal_dict_name(d));
        r->dict = d;
        *given = NULL;
        r->framing = FRAMING_LINES;
        r->data_start = r->pos = 0;
        /* times are exposed in ns (pal_record_time_ns; pal_record_time clamps at 0) */
        r->info.ticks_per_second = 1e9;
        d->ns_per_tick = 1;
        if ((st = pal_ascii_open(&r->ascii, d, r->fd)) != PAL_OK)
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
    r->dict = d;
    *given = NULL;
    r->framing = FRAMING_RAW;
    r->data_start = r->pos = 0;
    r->info.ticks_per_second = unit_ticks(edl_dict_time_unit(d->ed));
    d->ns_per_tick = r->info.ticks_per_second > 0 ? 1e9 / r->info.ticks_per_second : 0;
    if ((st = ensure_vals(r)) != PAL_OK)
        OPEN_FAIL(st, "cannot open trace '%s': out of memory", path);
    return PAL_OK;
fail:
    return st;
}

pal_status pal_reader_open(const char *path, const char *dict_path, pal_reader **out)
{
    PAL_REQUIRE(out, PAL_EINVAL);
    *out = NULL;
    PAL_REQUIRE(path, PAL_EINVAL);
    pal_status st = PAL_OK;
    pal_dict *given = NULL;
    struct stat sb;
    pal_reader *r = calloc(1, sizeof *r);
    if (!r || !(r->path = strdup(path))) {
        free(r);
        pal_set_last_error("cannot open trace '%s': out of memory", path);
        return PAL_ENOMEM;
    }
    r->fd = -1;
    r->bnext = r->bend = r->batch;
    r->index_off = UINT64_MAX;
    r->diag = default_diag;
    r->info.rank = r->info.size = -1;
    if (dict_path && (st = pal_dict_load(dict_path, &given)) != PAL_OK)
        goto fail;              /* pal_dict_load set the message */
    r->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (r->fd < 0)
        OPEN_FAIL(PAL_EIO, "cannot open trace '%s': %s", path, strerror(errno));
    if (fstat(r->fd, &sb) != 0)
        OPEN_FAIL(PAL_EIO, "cannot open trace '%s': %s", path, strerror(errno));
    if (!S_ISREG(sb.st_mode))
        OPEN_FAIL(PAL_EIO, "cannot open trace '%s': not a regular file", path);
    r->size = (uint64_t)sb.st_size;
#ifdef POSIX_FADV_SEQUENTIAL
    (void)posix_fadvise(r->fd, 0, 0, POSIX_FADV_SEQUENTIAL);   /* a hint: more read-ahead */
#endif
    const unsigned char *b = r->size >= 8 ? fetch(r, 0, 8, PAL_READAHEAD) : NULL;
    if (r->size >= 8 && !b)
        OPEN_FAIL(PAL_EIO, "cannot open trace '%s': read error", path);
    /* (a text file that happens to start with the magic is still text) */
    if (b && memcmp(b, ECL_FILE_MAGIC, 8) == 0 && !(given && !given->binary))
        st = open_ecl(r, &given);
    else if (!given)
        OPEN_FAIL(PAL_ENODICT, "cannot open trace '%s': bad magic at byte 0 (not an ECL "
                  "trace); a trace without an embedded dictionary needs one (pal-dump -d DICT)",
                  path);
    else
        st = open_foreign(r, &given);
    if (st != PAL_OK)
        goto fail;
    pal_dict_destroy(given);
    pal_clear_last_error();
    *out = r;
    return PAL_OK;
fail:
    pal_dict_destroy(given);
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
    pal_ascii_close(r->ascii);
    if (r->fd >= 0)
        close(r->fd);
    pal_dict_destroy(r->dict);
    free(r->rbuf);
    free(r->dbuf);
    free(r->vals);
    free(r->lens);
    free(r->bvals);
    free(r->blens);
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

void pal_reader_get_stats(const pal_reader *r, pal_reader_stats *st)
{
    PAL_REQUIRE(r && st, );
    *st = r->st;
    st->records += (uint64_t)(r->bnext - r->batch);     /* see next_slow */
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
