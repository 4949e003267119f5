/* tracebuild.c -- test-only ECL container / raw stream writer (see tracebuild.h).
 * Written from doc/trace-format.md alone, like an independent writer would be. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>
#ifdef HAVE_ZSTD
#include <zstd.h>
#endif

#include "tests/pal/tracebuild.h"

typedef struct buf {
    unsigned char *p;
    size_t n, cap;
} buf;

typedef struct chunk_extra {
    uint32_t process, stream;
    uint64_t first, last;
} chunk_extra;

struct tb {
    edl_dict *d;
    int raw;
    buf file;
    int header_written;
    size_t hdr_len, hdr_nrecs;
    int32_t rank, size;
    char host[64];
    double ticks;
    /* chunk in progress */
    int open;
    buf payload;
    uint32_t count, process, stream;
    uint64_t first, tsum, last_time;
    long maxrec;
    size_t chunk_first_rec;
    /* what was written */
    tb_chunk_info *chunks;
    chunk_extra *cx;
    size_t nchunks;
    tb_rec_info *recs;
    size_t nrecs, caprecs;
    int notrack;
    size_t *dict_nrecs;        /* per chunk: records in the dictionary (kind 2) */
    uint64_t seq;
};

static void die(const char *what)
{
    fprintf(stderr, "tracebuild: %s\n", what);
    abort();
}

static void put(buf *b, const void *p, size_t n)
{
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->n + n)
            cap *= 2;
        unsigned char *q = realloc(b->p, cap);
        if (!q)
            die("out of memory");
        b->p = q;
        b->cap = cap;
    }
    if (n)
        memcpy(b->p + b->n, p, n);
    b->n += n;
}

static void put_le(buf *b, uint64_t v, unsigned w)
{
    unsigned char x[8];
    for (unsigned i = 0; i < w; i++)
        x[i] = (unsigned char)(v >> (8 * i));
    put(b, x, w);
}

static void put_be(buf *b, uint64_t v, unsigned w)
{
    unsigned char x[8];
    for (unsigned i = 0; i < w; i++)
        x[w - 1 - i] = (unsigned char)(v >> (8 * i));
    put(b, x, w);
}

static void put_uleb(buf *b, uint64_t v)
{
    do {
        unsigned char c = v & 0x7f;
        v >>= 7;
        if (v)
            c |= 0x80;
        put(b, &c, 1);
    } while (v);
}

static void set_le(unsigned char *p, uint64_t v, unsigned w)
{
    for (unsigned i = 0; i < w; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static tb *create(edl_dict *d, int raw)
{
    tb *t = calloc(1, sizeof *t);
    if (!t)
        die("out of memory");
    t->d = d;
    t->raw = raw;
    t->rank = 0;
    t->size = 1;
    strcpy(t->host, "testhost");
    t->ticks = 1e6;
    return t;
}

tb *tb_create(edl_dict *d) { return create(d, 0); }
tb *tb_create_raw(edl_dict *d) { return create(d, 1); }

void tb_track_records(tb *t, int on)
{
    t->notrack = !on;
}

void tb_destroy(tb *t)
{
    if (!t)
        return;
    free(t->file.p);
    free(t->payload.p);
    free(t->chunks);
    free(t->cx);
    free(t->recs);
    free(t->dict_nrecs);
    free(t);
}

void tb_set_header(tb *t, int32_t rank, int32_t size, const char *host, double ticks)
{
    t->rank = rank;
    t->size = size;
    /* NUL-padded, not necessarily terminated when 64 long (as the format says) */
    size_t n = strlen(host);
    memset(t->host, 0, sizeof t->host);
    memcpy(t->host, host, n < sizeof t->host ? n : sizeof t->host);
    t->ticks = ticks;
}

static void write_header(tb *t)
{
    if (t->header_written || t->raw)
        return;
    unsigned char *dict;
    size_t dlen;
    if (edl_dict_encode(t->d, &dict, &dlen) != EDL_OK)
        die("edl_dict_encode");
    size_t hlen = (136 + dlen + 7) & ~(size_t)7;
    unsigned char *h = calloc(1, hlen);
    if (!h)
        die("out of memory");
    memcpy(h, "ECLTRACE", 8);
    set_le(h + 8, 1, 2);
    set_le(h + 10, 0, 2);
    set_le(h + 12, hlen, 4);
    h[20] = (unsigned char)edl_dict_byte_order(t->d);
    h[21] = 1;
    uint64_t bits;
    memcpy(&bits, &t->ticks, 8);
    set_le(h + 24, bits, 8);
    set_le(h + 32, (uint64_t)1700000000000000000LL, 8);
    set_le(h + 40, 4242, 4);
    set_le(h + 44, (uint32_t)t->rank, 4);
    set_le(h + 48, (uint32_t)t->size, 4);
    set_le(h + 56, 1000, 8);
    memcpy(h + 64, t->host, 64);
    set_le(h + 128, 136, 4);
    set_le(h + 132, dlen, 4);
    memcpy(h + 136, dict, dlen);
    set_le(h + 16, crc32(0L, h, (uInt)hlen), 4);
    put(&t->file, h, hlen);
    t->hdr_len = hlen;
    t->hdr_nrecs = edl_dict_record_count(t->d);
    t->header_written = 1;
    free(h);
    free(dict);
}

void tb_chunk_begin(tb *t, uint32_t process, uint32_t stream, uint64_t first_time)
{
    write_header(t);
    if (t->open)
        die("chunk already open");
    t->open = 1;
    t->payload.n = 0;
    t->count = 0;
    t->process = process;
    t->stream = stream;
    t->first = t->tsum = t->last_time = first_time;
    t->maxrec = -1;
    t->chunk_first_rec = t->nrecs;
}

void tb_bytes_raw(tb *t, const void *p, size_t n)
{
    put(t->raw ? &t->file : &t->payload, p, n);
}

void tb_record(tb *t, const char *name, const tb_val *vals)
{
    const edl_record *r = edl_dict_find_record(t->d, name);
    if (!r)
        die("unknown record");
    if (!t->raw && !t->open)
        die("no chunk open");
    buf *b = t->raw ? &t->file : &t->payload;
    int be = edl_dict_byte_order(t->d) == 'B';
    const char *tf = edl_dict_time_field(t->d);
    uint64_t time = 0;
    int timed = 0;
    for (size_t i = 0; i < edl_record_field_count(r); i++) {
        const edl_field *f = edl_record_field(r, i);
        tb_val v = vals[i];
        edl_type ty = edl_field_type(f);
        uint64_t bits = 0;
        unsigned w = 0;
        switch (ty) {
        case EDL_INT8: case EDL_UINT8: w = 1; break;
        case EDL_INT16: case EDL_UINT16: w = 2; break;
        case EDL_INT32: case EDL_UINT32: case EDL_FLOAT32: w = 4; break;
        default: w = 8; break;
        }
        if (ty >= EDL_INT8 && ty <= EDL_INT64)
            bits = (uint64_t)v.i;
        else if (ty >= EDL_UINT8 && ty <= EDL_UINT64)
            bits = v.u;
        else if (ty == EDL_FLOAT32) {
            float fl = (float)v.f;
            uint32_t b32;
            memcpy(&b32, &fl, 4);
            bits = b32;
        } else if (ty == EDL_FLOAT64)
            memcpy(&bits, &v.f, 8);
        switch (edl_field_encoding(f)) {
        case EDL_ENC_FIXED:
            if (w < 8)
                bits &= ((uint64_t)1 << (8 * w)) - 1;
            if (be)
                put_be(b, bits, w);
            else
                put_le(b, bits, w);
            break;
        case EDL_ENC_ULEB:
            put_uleb(b, bits);
            break;
        case EDL_ENC_SLEB:
            put_uleb(b, ((uint64_t)v.i << 1) ^ (uint64_t)(v.i >> 63));
            break;
        case EDL_ENC_TDELTA:
            put_uleb(b, v.u - t->tsum);
            t->tsum = v.u;
            break;
        case EDL_ENC_LSTRING: {
            size_t n = v.slen ? v.slen : (v.s ? strlen(v.s) : 0);
            put_uleb(b, n);
            put(b, v.s, n);
            break;
        }
        default:
            die("encoding not writable");
        }
        if (tf && strcmp(edl_field_name(f), tf) == 0) {
            time = ty == EDL_FLOAT32 || ty == EDL_FLOAT64 ? (uint64_t)v.f
                 : ty >= EDL_INT8 && ty <= EDL_INT64 ? (uint64_t)v.i : v.u;
            t->last_time = time;
            timed = 1;
        }
    }
    t->count++;
    if ((long)edl_record_index(r) > t->maxrec)
        t->maxrec = (long)edl_record_index(r);
    if (t->notrack)
        return;
    if (t->nrecs == t->caprecs) {
        t->caprecs = t->caprecs ? 2 * t->caprecs : 64;
        tb_rec_info *nr = realloc(t->recs, t->caprecs * sizeof *nr);
        if (!nr)
            die("out of memory");
        t->recs = nr;
    }
    tb_rec_info *ri = t->recs;
    ri[t->nrecs].record = edl_record_index(r);
    ri[t->nrecs].time = time;
    ri[t->nrecs].order_time = timed ? time : t->tsum;
    ri[t->nrecs].chunk = t->raw ? 0 : t->nchunks;
    ri[t->nrecs].end = b->n;
    t->nrecs++;
}

static void add_chunk(tb *t, uint64_t off, uint64_t len, int kind, uint32_t count, int odd,
                      const chunk_extra *x, size_t dict_nrecs)
{
    t->chunks = realloc(t->chunks, (t->nchunks + 1) * sizeof *t->chunks);
    t->cx = realloc(t->cx, (t->nchunks + 1) * sizeof *t->cx);
    t->dict_nrecs = realloc(t->dict_nrecs, (t->nchunks + 1) * sizeof *t->dict_nrecs);
    if (!t->chunks || !t->cx || !t->dict_nrecs)
        die("out of memory");
    tb_chunk_info *c = &t->chunks[t->nchunks];
    c->offset = off;
    c->length = len;
    c->kind = kind;
    c->process = kind == 1 ? t->process : 0;
    c->stream = kind == 1 ? t->stream : 0;
    c->count = kind == 1 ? count : 0;
    c->first_rec = kind == 1 ? t->chunk_first_rec : t->nrecs;
    c->odd = odd;
    c->depends_on = -1;
    /* record descriptors known before this chunk: the header's, or the last
     * dictionary chunk's */
    c->dict_before = t->hdr_nrecs;
    for (size_t i = 0; i < t->nchunks; i++)
        if (t->chunks[i].kind == 2)
            c->dict_before = t->dict_nrecs[i];
    if (kind == 1 && t->maxrec >= (long)t->hdr_nrecs)
        for (size_t i = 0; i < t->nchunks; i++)
            if (t->chunks[i].kind == 2 && t->dict_nrecs[i] > (size_t)t->maxrec) {
                c->depends_on = (int)i;
                break;
            }
    t->cx[t->nchunks] = *x;
    t->dict_nrecs[t->nchunks] = dict_nrecs;
    t->nchunks++;
}

static void emit_chunk(tb *t, int kind, const unsigned char *raw, size_t rawlen,
                       const tb_chunk_opts *o, uint32_t count, chunk_extra *x)
{
    unsigned char *stored = (unsigned char *)raw;
    size_t slen = rawlen;
    int comp = o ? o->compression : 0;
    if (comp == TB_ZLIB) {
        uLongf n = compressBound((uLong)rawlen);
        stored = malloc(n ? n : 1);
        if (!stored || compress2(stored, &n, raw, (uLong)rawlen, 6) != Z_OK)
            die("compress");
        slen = n;
    } else if (comp == TB_ZSTD) {
#ifdef HAVE_ZSTD
        size_t n = ZSTD_compressBound(rawlen);
        stored = malloc(n ? n : 1);
        if (!stored)
            die("out of memory");
        slen = ZSTD_compress(stored, n, raw, rawlen, 3);
        if (ZSTD_isError(slen))
            die("zstd");
#else
        die("zstd not available");
#endif
    }
    unsigned char h[64];
    memset(h, 0, sizeof h);
    set_le(h, 0x4B484345u, 4);
    h[8] = (unsigned char)(o && o->kind ? o->kind : kind);
    h[9] = (unsigned char)comp;
    set_le(h + 10, o ? o->flags : 0, 2);
    set_le(h + 12, slen, 4);
    set_le(h + 16, o && o->set_raw ? o->raw : rawlen, 4);
    set_le(h + 20, o && o->set_process ? o->process : x->process, 4);
    set_le(h + 24, x->stream, 4);
    set_le(h + 28, o && o->set_count ? o->count : count, 4);
    set_le(h + 32, t->seq++, 8);
    set_le(h + 40, x->first, 8);
    set_le(h + 48, o && o->set_last ? o->last_time : x->last, 8);
    uint32_t pc = (uint32_t)crc32(0L, stored, (uInt)slen);
    if (o && o->bad_payload_crc)
        pc ^= 1;
    set_le(h + 56, pc, 4);
    set_le(h + 4, crc32(0L, h + 8, 56), 4);
    uint64_t off = t->file.n;
    put(&t->file, h, 64);
    put(&t->file, stored, slen);
    int odd = o && (o->set_count || o->set_last || o->set_raw || o->flags || o->kind ||
                    o->nextra || o->bad_payload_crc);
    add_chunk(t, off, 64 + slen, o && o->kind ? o->kind : kind, count, odd, x,
              kind == 2 ? edl_dict_record_count(t->d) : 0);
    if (stored != raw)
        free(stored);
}

void tb_chunk_end(tb *t, const tb_chunk_opts *o)
{
    if (!t->open)
        die("no chunk open");
    t->open = 0;
    if (o && o->nextra)
        put(&t->payload, o->extra, o->nextra);
    chunk_extra x = {t->process, t->stream, t->first, t->last_time};
    emit_chunk(t, 1, t->payload.p, t->payload.n, o, t->count, &x);
}

void tb_dict_chunk(tb *t, int compression)
{
    write_header(t);
    unsigned char *dict;
    size_t dlen;
    if (edl_dict_encode(t->d, &dict, &dlen) != EDL_OK)
        die("edl_dict_encode");
    tb_chunk_opts o;
    memset(&o, 0, sizeof o);
    o.compression = compression;
    chunk_extra x = {0xFFFFFFFFu, 0, 0, 0};
    t->maxrec = -1;
    emit_chunk(t, 2, dict, dlen, &o, 0, &x);
    free(dict);
}

void tb_finish_index(tb *t)
{
    write_header(t);
    buf ix = {0};
    for (size_t i = 0; i < t->nchunks; i++) {
        put_le(&ix, t->chunks[i].offset, 8);
        put_le(&ix, t->cx[i].process, 4);
        put_le(&ix, t->cx[i].stream, 4);
        put_le(&ix, t->cx[i].first, 8);
        put_le(&ix, t->cx[i].last, 8);
        put_le(&ix, t->chunks[i].count, 4);
        put_le(&ix, (uint64_t)t->chunks[i].kind, 1);
        put_le(&ix, 0, 3);
    }
    tb_chunk_opts o;
    memset(&o, 0, sizeof o);
    chunk_extra x = {0xFFFFFFFFu, 0, 0, 0};
    t->maxrec = -1;
    uint64_t off = t->file.n;
    emit_chunk(t, 3, ix.p, ix.n, &o, 0, &x);
    free(ix.p);
    put(&t->file, "ECLINDEX", 8);
    put_le(&t->file, off, 8);
}

const unsigned char *tb_data(tb *t, size_t *len)
{
    write_header(t);
    *len = t->file.n;
    return t->file.p;
}

size_t tb_header_length(tb *t)
{
    write_header(t);
    return t->hdr_len;
}

const tb_chunk_info *tb_chunks(tb *t, size_t *n)
{
    *n = t->nchunks;
    return t->chunks;
}

const tb_rec_info *tb_records(tb *t, size_t *n)
{
    *n = t->nrecs;
    return t->recs;
}

int tb_write_bytes(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    int ok = fwrite(p, 1, n, f) == n;
    return fclose(f) == 0 && ok ? 0 : -1;
}

int tb_write(tb *t, const char *path)
{
    size_t n;
    const unsigned char *p = tb_data(t, &n);
    return tb_write_bytes(path, p, n);
}
