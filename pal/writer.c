/* writer.c -- PAL's trace writer (writer.h): records encoded as the
 * dictionary says, framed by the container codec. The main thread fills a
 * chunk while a second thread compresses and writes the previous one. */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pal/writer.h"

/* ---------------------------------------------------------------- chunks */

static void set_failed(pal_writer *w, const char *msg)
{
    pthread_mutex_lock(&w->lock);
    if (!w->failed)
        snprintf(w->err, sizeof w->err, "%s", msg);
    __atomic_store_n(&w->failed, 1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&w->lock);
}

/* Frames and writes one chunk at w->off (writer thread, or main thread). */
static void write_chunk(pal_writer *w, uint8_t kind, const uint8_t *raw, size_t len,
                        uint32_t count, uint64_t first, uint64_t last)
{
    if (__atomic_load_n(&w->failed, __ATOMIC_ACQUIRE))
        return;
    ecc_chunk c;
    memset(&c, 0, sizeof c);
    const uint8_t *stored = raw;
    c.kind = kind;
    c.raw_length = (uint32_t)len;
    c.stored_length = (uint32_t)len;
    if (kind == ECC_KIND_RECORDS && w->z)
        c.stored_length = (uint32_t)ecc_compress(w->z, raw, len, &stored, &c.compression);
    c.process = ECC_PROCESS_FROM_HEADER;
    c.stream = kind == ECC_KIND_RECORDS ? 1 : 0;
    c.record_count = count;
    c.sequence = kind == ECC_KIND_RECORDS ? w->seq++ : 0;
    c.first_time = first;
    c.last_time = last;
    c.payload_crc = ecc_crc32(0, stored, c.stored_length);
    uint8_t hdr[ECC_CHUNK_HEADER];
    ecc_chunk_encode(hdr, &c);
    char err[512];
    if (ecc_out_write_at(w->out, hdr, sizeof hdr, w->off, err, sizeof err) != 0 ||
        ecc_out_write_at(w->out, stored, c.stored_length, w->off + ECC_CHUNK_HEADER, err,
                         sizeof err) != 0 ||
        (kind == ECC_KIND_RECORDS &&
         ecc_out_write_at(w->out, w->pad, ECC_CHUNK_HEADER,
                          w->off + ECC_CHUNK_HEADER + c.stored_length, err, sizeof err) != 0)) {
        set_failed(w, err);
        return;
    }
    if (kind == ECC_KIND_RECORDS) {
        if (w->nindex == w->capindex) {
            size_t cap = w->capindex ? 2 * w->capindex : 256;
            uint8_t *ni = realloc(w->index, cap * ECC_INDEX_ENTRY);
            if (ni) {
                w->index = ni;
                w->capindex = cap;
            }
        }
        if (w->nindex < w->capindex) {
            ecc_index_entry e = { w->off, first, last, c.process, c.stream, count, kind };
            ecc_index_entry_encode(w->index + ECC_INDEX_ENTRY * w->nindex++, &e);
        }
        w->chunks++;
    }
    /* a records chunk is followed by a pad chunk (see ecl/core/chunk.c) */
    w->off += ECC_CHUNK_HEADER + (uint64_t)c.stored_length +
              (kind == ECC_KIND_RECORDS ? ECC_CHUNK_HEADER : 0);
}

static void *writer_main(void *arg)
{
    pal_writer *w = arg;
    pthread_mutex_lock(&w->lock);
    for (;;) {
        while (!w->queued && !w->stop)
            pthread_cond_wait(&w->cond, &w->lock);
        if (!w->queued)
            break;
        pthread_mutex_unlock(&w->lock);
        write_chunk(w, ECC_KIND_RECORDS, w->q.data, w->q.len, w->q.count, w->q.first, w->q.last);
        pthread_mutex_lock(&w->lock);
        w->spare = w->q.data;
        w->spare_cap = w->q.cap;
        w->q.data = NULL;
        w->queued = 0;
        pthread_cond_broadcast(&w->cond);
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

/* Hands the filled chunk over (waiting while the previous one is written)
 * and goes on in the spare buffer. */
static void flush_chunk(pal_writer *w)
{
    if (w->cur.count == 0)
        return;
    if (!w->th_on) {
        write_chunk(w, ECC_KIND_RECORDS, w->cur.data, w->cur.len, w->cur.count, w->cur.first,
                    w->cur.last);
    } else {
        pthread_mutex_lock(&w->lock);
        while (w->queued)
            pthread_cond_wait(&w->cond, &w->lock);
        w->q = w->cur;
        w->cur.data = w->spare;
        w->cur.cap = w->spare_cap;
        w->spare = NULL;
        w->queued = 1;
        pthread_cond_broadcast(&w->cond);
        pthread_mutex_unlock(&w->lock);
    }
    w->cur.len = 0;
    w->cur.count = 0;
}

static void writer_stop(pal_writer *w)
{
    if (!w->th_on)
        return;
    pthread_mutex_lock(&w->lock);
    w->stop = 1;
    pthread_cond_broadcast(&w->cond);
    pthread_mutex_unlock(&w->lock);
    pthread_join(w->th, NULL);
    w->th_on = 0;
}

/* ---------------------------------------------------------------- records */

/* Worst case bytes of a record's fields (strings by their lengths). */
static size_t record_bound(const pal_recdesc *rd, const uint32_t *lens)
{
    size_t n = 0;
    for (size_t i = 0; i < rd->nfields; i++)
        n += ECC_LEB_MAX + (rd->fields[i].tclass == PAL_TC_STRING ? lens[i] : 8);
    return n;
}

static uint8_t *put_fixed(uint8_t *p, uint64_t v, unsigned wdt, int be)
{
    for (unsigned i = 0; i < wdt; i++)
        p[i] = (uint8_t)(v >> (8 * (be ? wdt - 1 - i : i)));
    return p + wdt;
}

static uint8_t *put_op(uint8_t *p, const pal_op *op, pal_value v, uint32_t len, uint64_t *tbase)
{
    uint64_t bits;
    switch (op->code) {
    case PAL_OP_ULEB: return ecc_put_uleb(p, v.u);
    case PAL_OP_SLEB: return ecc_put_sleb(p, v.i);
    case PAL_OP_TDELTA: {
        uint64_t d = v.u - *tbase;
        *tbase = v.u;
        return ecc_put_uleb(p, d);
    }
    case PAL_OP_LSTRING:
        p = ecc_put_uleb(p, len);
        memcpy(p, v.s, len);
        return p + len;
    case PAL_OP_U8: case PAL_OP_I8: return put_fixed(p, v.u, 1, 0);
    case PAL_OP_U16L: case PAL_OP_I16L: return put_fixed(p, v.u, 2, 0);
    case PAL_OP_U16B: case PAL_OP_I16B: return put_fixed(p, v.u, 2, 1);
    case PAL_OP_U32L: case PAL_OP_I32L: return put_fixed(p, v.u, 4, 0);
    case PAL_OP_U32B: case PAL_OP_I32B: return put_fixed(p, v.u, 4, 1);
    case PAL_OP_U64L: return put_fixed(p, v.u, 8, 0);
    case PAL_OP_U64B: return put_fixed(p, v.u, 8, 1);
    case PAL_OP_F32L: case PAL_OP_F32B: {
        float f = (float)v.f;
        uint32_t b32;
        memcpy(&b32, &f, 4);
        return put_fixed(p, b32, 4, op->code == PAL_OP_F32B);
    }
    case PAL_OP_F64L: case PAL_OP_F64B:
        memcpy(&bits, &v.f, 8);
        return put_fixed(p, bits, 8, op->code == PAL_OP_F64B);
    default:
        return p;
    }
}

pal_status pal_writer_put(pal_writer *w, const pal_recdesc *rd, const pal_value *vals,
                          const uint32_t *lens)
{
    if (PAL_UNLIKELY(__atomic_load_n(&w->failed, __ATOMIC_ACQUIRE)))
        return PAL_EIO;
    const pal_wprog *wp = &w->progs[rd->index];
    if (PAL_UNLIKELY(!wp->ok))
        return PAL_EINVAL;
    uint64_t t = rd->time_fi >= 0 ? vals[rd->time_fi].u : w->last_time;
    if (t < w->last_time)
        t = w->last_time;
    size_t need = record_bound(rd, lens);
    if (w->cur.len + need > w->o.chunk_size && w->cur.count > 0)
        flush_chunk(w);
    if (w->cur.len + need > w->cur.cap) {
        size_t cap = w->cur.len + need > w->o.chunk_size ? w->cur.len + need : w->o.chunk_size;
        uint8_t *nd = realloc(w->cur.data, cap);
        if (!nd)
            return PAL_ENOMEM;
        w->cur.data = nd;
        w->cur.cap = cap;
    }
    if (w->cur.count == 0)
        w->cur.first = w->cur.last = t;
    uint64_t tb = w->cur.last;
    uint8_t *p = w->cur.data + w->cur.len;
    const pal_dict *d = w->dict;
    for (size_t i = 0; i < rd->nfields; i++) {
        pal_value v = vals[i];
        if ((int32_t)i == rd->time_fi)
            v.u = t;
        if (i <= d->key_last) {
            if (i == d->key_index[0])
                v.u = wp->key;
            p = put_op(p, &d->prefix[i], v, lens[i], &tb);
        } else {
            p = put_op(p, &rd->ops[i - (d->key_last + 1)], v, lens[i], &tb);
        }
    }
    w->cur.len = (size_t)(p - w->cur.data);
    w->cur.last = t;
    w->cur.count++;
    w->last_time = t;
    w->records++;
    return PAL_OK;
}

pal_status pal_writer_room(pal_writer *w, size_t need)
{
    if (__atomic_load_n(&w->failed, __ATOMIC_ACQUIRE))
        return PAL_EIO;
    if (w->cur.len + need > w->o.chunk_size && w->cur.count > 0)
        flush_chunk(w);
    if (w->cur.len + need > w->cur.cap) {
        size_t cap = w->cur.len + need;
        uint8_t *nd = realloc(w->cur.data, cap);
        if (!nd)
            return PAL_ENOMEM;
        w->cur.data = nd;
        w->cur.cap = cap;
    }
    return PAL_OK;
}

uint64_t pal_writer_records(const pal_writer *w)
{
    return w->records;
}

uint64_t pal_writer_chunks(const pal_writer *w)
{
    return w->chunks;
}

const pal_dict *pal_writer_dict(const pal_writer *w)
{
    return w->dict;
}

/* ---------------------------------------------------------------- open and close */

static void writer_free(pal_writer *w)
{
    writer_stop(w);
    if (w->lock_ok) {
        pthread_mutex_destroy(&w->lock);
        pthread_cond_destroy(&w->cond);
    }
    ecc_zctx_destroy(w->z);
    free(w->cur.data);
    free(w->q.data);
    free(w->spare);
    free(w->index);
    free(w->progs);
    pal_dict_destroy(w->dict);
    free(w);
}

pal_status pal_writer_create(const char *path, edl_dict *dict, const ecc_file_header *hdr,
                             const pal_writer_options *o, pal_writer **out, char *err,
                             size_t errlen)
{
    *out = NULL;
    pal_status st = PAL_ENOMEM;
    unsigned char *denc = NULL;
    uint8_t *hb = NULL;
    size_t dlen;
    pal_writer *w = calloc(1, sizeof *w);
    if (!w) {
        edl_dict_destroy(dict);
        snprintf(err, errlen, "out of memory");
        return PAL_ENOMEM;
    }
    w->o = *o;
    if (w->o.chunk_size < 4096)
        w->o.chunk_size = 4096;
    pthread_mutex_init(&w->lock, NULL);
    pthread_cond_init(&w->cond, NULL);
    w->lock_ok = 1;
    if (edl_dict_encode(dict, &denc, &dlen) != EDL_OK) {
        edl_dict_destroy(dict);
        snprintf(err, errlen, "cannot encode the dictionary");
        goto fail;
    }
    if ((st = pal_dict_wrap(dict, &w->dict, err, errlen)) != PAL_OK)
        goto fail;
    st = PAL_ENOMEM;
    const pal_dict *d = w->dict;
    if (!(w->progs = calloc(d->nrecs ? d->nrecs : 1, sizeof *w->progs)))
        goto fail;
    /* every record: one numeric key, fields a binary record can hold */
    for (size_t b = 0; b < edl_dict_bind_count(d->ed); b++) {
        edl_bind bd = edl_dict_bind(d->ed, b);
        char *e;
        unsigned long long k = strtoull(bd.key1, &e, 10);
        if (*e == '\0' && !bd.key2 && bd.record < d->nrecs) {
            w->progs[bd.record].key = k;
            w->progs[bd.record].ok = d->recs[bd.record]->usable && d->prefix_uleb &&
                                     d->recs[bd.record]->barrs == NULL;
        }
    }
    ecc_file_header fh = *hdr;
    uint8_t *packed = NULL;
    size_t plen;
    if (ecc_dict_pack(&fh, denc, dlen, &packed, &plen) != NULL)
        goto fail;
    size_t hlen = ecc_file_header_size(plen);
    size_t total = hlen + ecc_header_copy_size(hlen);
    if (!(hb = malloc(total))) {
        free(packed);
        goto fail;
    }
    ecc_file_header_encode(hb, &fh, packed, plen);
    free(packed);
    ecc_header_copy_encode(hb + hlen, hb, hlen);
    ecc_pad_encode(w->pad);
    if (ecc_out_open(path, o->out_flags, &w->out, err, errlen) != 0) {
        st = PAL_EIO;
        goto fail;
    }
    if (ecc_out_write_at(w->out, hb, total, 0, err, errlen) != 0) {
        st = PAL_EIO;
        goto fail;
    }
    w->off = total;
    if (o->compress != ECC_COMP_NONE && !(w->z = ecc_zctx_create(o->compress, o->level,
                                                                 w->o.chunk_size)))
        goto fail;
    if (!(w->cur.data = malloc(w->o.chunk_size)) || !(w->spare = malloc(w->o.chunk_size)))
        goto fail;
    w->cur.cap = w->spare_cap = w->o.chunk_size;
    w->th_on = pthread_create(&w->th, NULL, writer_main, w) == 0;
    free(denc);
    free(hb);
    *out = w;
    return PAL_OK;
fail:
    if (st == PAL_ENOMEM && !*err)
        snprintf(err, errlen, "out of memory");
    free(denc);
    free(hb);
    ecc_out_abort(w->out);
    w->out = NULL;
    writer_free(w);
    return st;
}

pal_status pal_writer_close(pal_writer *w, char *err, size_t errlen)
{
    flush_chunk(w);
    writer_stop(w);
    pal_status st = PAL_OK;
    if (!w->failed) {
        /* the end summary: one stream of every record */
        ecc_end_stream es = { 1, w->chunks, w->records };
        ecc_end e;
        memset(&e, 0, sizeof e);
        e.nstreams = 1;
        e.streams = &es;
        uint8_t pay[128];
        size_t n = ecc_end_encode(pay, &e);
        write_chunk(w, ECC_KIND_END, pay, n, 0, w->last_time, w->last_time);
    }
    if (!w->failed && w->nindex) {
        uint64_t at = w->off, first = UINT64_MAX, last = 0;
        for (size_t i = 0; i < w->nindex; i++) {
            ecc_index_entry x;
            ecc_index_entry_decode(w->index + ECC_INDEX_ENTRY * i, &x);
            if (x.first_time < first)
                first = x.first_time;
            if (x.last_time > last)
                last = x.last_time;
        }
        ecc_chunk c;
        memset(&c, 0, sizeof c);
        c.kind = ECC_KIND_INDEX;
        c.stored_length = c.raw_length = (uint32_t)(w->nindex * ECC_INDEX_ENTRY);
        c.process = ECC_PROCESS_FROM_HEADER;
        c.record_count = (uint32_t)w->nindex;
        c.first_time = first;
        c.last_time = last;
        c.payload_crc = ecc_crc32(0, w->index, c.stored_length);
        uint8_t hdr[ECC_CHUNK_HEADER], foot[ECC_FOOTER];
        ecc_chunk_encode(hdr, &c);
        ecc_footer_encode(foot, at);
        char e2[512];
        if (ecc_out_write_at(w->out, hdr, sizeof hdr, at, e2, sizeof e2) != 0 ||
            ecc_out_write_at(w->out, w->index, c.stored_length, at + ECC_CHUNK_HEADER, e2,
                             sizeof e2) != 0 ||
            ecc_out_write_at(w->out, foot, sizeof foot, at + ECC_CHUNK_HEADER + c.stored_length,
                             e2, sizeof e2) != 0)
            set_failed(w, e2);
    }
    if (w->failed) {
        snprintf(err, errlen, "%s", w->err);
        ecc_out_abort(w->out);
        st = PAL_EIO;
    } else if (ecc_out_commit(w->out, err, errlen) != 0) {
        st = PAL_EIO;
    }
    w->out = NULL;
    writer_free(w);
    return st;
}

void pal_writer_abort(pal_writer *w)
{
    if (!w)
        return;
    writer_stop(w);
    ecc_out_abort(w->out);
    w->out = NULL;
    writer_free(w);
}

/* ---------------------------------------------------------------- the public writer (pal.h) */

/* A record kept until close: its time, order of arrival, type (index in
 * like) and where its values are in the arena: the type's fields as
 * pal_value, then their lengths, then the strings' bytes. */
typedef struct tw_rec {
    uint64_t t, seq;
    size_t type, off;
    uint32_t process, stream;
} tw_rec;

struct pal_trace_writer {
    const pal_dict *like;
    unsigned flags;
    char *path;
    /* the record begun */
    const pal_recdesc *type;         /* of like; NULL: none */
    uint64_t time;
    uint32_t process, stream;
    pal_value *vals;
    uint32_t *lens;
    size_t nvals;
    int64_t max_process;
    /* the records kept */
    tw_rec *recs;
    size_t n, cap;
    uint8_t *arena;
    size_t alen, acap;
    int failed;                      /* out of memory: close says so */
};

static int tw_grow(void **p, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return 0;
    size_t nc = *cap ? *cap : 64;
    while (nc < need)
        nc *= 2;
    void *q = realloc(*p, nc * size);
    if (!q)
        return -1;
    *p = q;
    *cap = nc;
    return 0;
}

static int tw_key(const pal_dict *like, size_t f)
{
    for (unsigned k = 0; k < like->key_count && k < 2; k++)
        if (like->key_index[k] == f)
            return 1;
    return 0;
}

/* Whether field f of s is written as a field of its own (not the key, time,
 * process or thread, which every output record has first; not an array). */
static int tw_kept(const pal_dict *like, const pal_recdesc *s, size_t f)
{
    return !tw_key(like, f) && (int32_t)f != s->time_fi && (int32_t)f != s->process_fi &&
           (int32_t)f != s->thread_fi && s->fields[f].type != PAL_ARRAY;
}

/* The output dictionary: every record type of like, binary, its key a ULEB
 * type number (the record's index in like), then the time (TDELTA, ns),
 * process and thread (ULEB), then like's other fields by type (SLEB,
 * ULEB, FIXED floats, LSTRING; role duration in ns); roles copied. map[i]
 * gets, for each field of like's record i, its output field or -1. */
static edl_dict *tw_dict(const pal_dict *like, int32_t **map, char *err, size_t errlen)
{
    const edl_dict *le = like->ed;
    const char *tn = edl_dict_time_field(le), *pn = edl_dict_process_field(le),
               *hn = edl_dict_thread_field(le);
    tn = tn && *tn ? tn : "time";
    pn = pn && *pn ? pn : "process";
    hn = hn && *hn ? hn : "thread";
    edl_dict *d = pal_binary_dict_new(pal_dict_name(like), pal_dict_version(like), le, tn, pn, hn);
    if (d == NULL)
        goto oom;
    for (size_t i = 0; i < like->nrecs; i++) {
        const pal_recdesc *s = like->recs[i];
        edl_record *r;
        if (!(map[i] = malloc((s->nfields + 1) * sizeof **map)) ||
            edl_dict_add_record(d, s->name, s->description, &r) != EDL_OK)
            goto oom;
        const char *kn = s->nfields && tw_key(like, 0) ? s->fields[0].name : "type";
        if (edl_record_add_field(r, kn, EDL_UINT32, EDL_ENC_ULEB, NULL, "record type") != EDL_OK ||
            edl_record_add_field(r, tn, EDL_UINT64, EDL_ENC_TDELTA, "ns", "time") != EDL_OK ||
            edl_record_add_field(r, pn, EDL_UINT32, EDL_ENC_ULEB, NULL, "process (rank)") !=
                EDL_OK ||
            edl_record_add_field(r, hn, EDL_UINT32, EDL_ENC_ULEB, NULL, "stream (thread)") !=
                EDL_OK)
            goto oom;
        int32_t next = 4;
        for (size_t f = 0; f < s->nfields; f++) {
            const pal_fielddesc *fd = &s->fields[f];
            map[i][f] = -1;
            if (!tw_kept(like, s, f) || edl_record_find_field(r, fd->name) >= 0)
                continue;
            edl_encoding e = fd->tclass == PAL_TC_SIGNED     ? EDL_ENC_SLEB
                             : fd->tclass == PAL_TC_UNSIGNED ? EDL_ENC_ULEB
                             : fd->tclass == PAL_TC_STRING   ? EDL_ENC_LSTRING
                                                             : EDL_ENC_FIXED;
            const char *unit = fd->role == PAL_FROLE_DURATION || fd->from_ticks ? "ns"
                               : fd->unit && *fd->unit                       ? fd->unit
                                                                             : NULL;
            if (edl_record_add_field(r, fd->name, (edl_type)fd->type, e, unit,
                                     fd->description && *fd->description ? fd->description
                                                                         : NULL) != EDL_OK) {
                snprintf(err, errlen, "record type '%s': field '%s' cannot be written", s->name,
                         fd->name);
                goto fail;
            }
            map[i][f] = next++;
        }
        /* a meaning that names a field left out is left out with it */
        (void)edl_record_copy_meaning(r, s->er);
        char key[32];
        snprintf(key, sizeof key, "%zu", i);
        if (edl_dict_add_bind(d, key, NULL, s->name) != EDL_OK)
            goto oom;
    }
    return d;
oom:
    snprintf(err, errlen, "out of memory");
fail:
    edl_dict_destroy(d);
    return NULL;
}

pal_status pal_trace_writer_create(const char *path, const pal_dict *like, unsigned flags,
                                   pal_trace_writer **out)
{
    PAL_REQUIRE(path && like && out, PAL_EINVAL);
    *out = NULL;
    char err[1024] = "";
    if (ecc_out_check(path, flags & PAL_OUT_THROUGH ? ECC_OUT_THROUGH : 0, err, sizeof err) !=
        0) {
        pal_set_last_error("%s", err);
        return PAL_EIO;
    }
    pal_trace_writer *w = calloc(1, sizeof *w);
    if (!w || !(w->path = strdup(path))) {
        free(w);
        pal_set_last_error("cannot write '%s': out of memory", path);
        return PAL_ENOMEM;
    }
    w->like = like;
    w->flags = flags;
    w->max_process = -1;
    *out = w;
    return PAL_OK;
}

pal_status pal_trace_writer_begin(pal_trace_writer *w, const pal_recdesc *type, int64_t time_ns,
                                  uint32_t process, uint32_t stream)
{
    PAL_REQUIRE(w && type, PAL_EINVAL);
    w->type = NULL;
    if (type->dict != w->like)
        return PAL_EINVAL;
    if (time_ns < 0)
        return PAL_ERANGE;
    size_t nf = type->nfields ? type->nfields : 1;
    if (nf > w->nvals) {
        pal_value *v = realloc(w->vals, nf * sizeof *v);
        if (v)
            w->vals = v;
        uint32_t *l = v ? realloc(w->lens, nf * sizeof *l) : NULL;
        if (!l)
            return PAL_ENOMEM;
        w->lens = l;
        w->nvals = nf;
    }
    for (size_t i = 0; i < type->nfields; i++) {
        w->vals[i].u = 0;
        w->lens[i] = 0;
        if (type->fields[i].tclass == PAL_TC_STRING)
            w->vals[i].s = (const unsigned char *)"";
    }
    w->type = type;
    w->time = (uint64_t)time_ns;
    w->process = process;
    w->stream = stream;
    return PAL_OK;
}

static pal_status tw_set(pal_trace_writer *w, const pal_fielddesc *f, int cls, pal_value v,
                         uint32_t len)
{
    if (!w->type)
        return PAL_EINVAL;
    if (!f || f->rec != w->type)
        return PAL_ENOFIELD;
    int tc = f->tclass;
    if ((tc == PAL_TC_STRING) != (cls == PAL_TC_STRING))
        return PAL_ETYPE;
    if (tc == PAL_TC_FLOAT && cls != PAL_TC_FLOAT)
        v.f = cls == PAL_TC_SIGNED ? (double)v.i : (double)v.u;
    else if (tc != PAL_TC_FLOAT && cls == PAL_TC_FLOAT)
        return PAL_ETYPE;
    else if (tc == PAL_TC_UNSIGNED && cls == PAL_TC_SIGNED && v.i < 0)
        return PAL_ERANGE;
    else if (tc == PAL_TC_SIGNED && cls == PAL_TC_UNSIGNED && v.u > INT64_MAX)
        return PAL_ERANGE;
    w->vals[f->index] = v;
    w->lens[f->index] = len;
    return PAL_OK;
}

static const pal_fielddesc *tw_named(const pal_trace_writer *w, const char *field)
{
    if (!w->type || !field)
        return NULL;
    long i = pal_field_lookup(w->type, field);
    return i < 0 ? NULL : &w->type->fields[i];
}

pal_status pal_trace_writer_field_i64(pal_trace_writer *w, const pal_fielddesc *f, int64_t v)
{
    PAL_REQUIRE(w, PAL_EINVAL);
    return tw_set(w, f, PAL_TC_SIGNED, (pal_value){ .i = v }, 0);
}

pal_status pal_trace_writer_field_u64(pal_trace_writer *w, const pal_fielddesc *f, uint64_t v)
{
    PAL_REQUIRE(w, PAL_EINVAL);
    return tw_set(w, f, PAL_TC_UNSIGNED, (pal_value){ .u = v }, 0);
}

pal_status pal_trace_writer_field_f64(pal_trace_writer *w, const pal_fielddesc *f, double v)
{
    PAL_REQUIRE(w, PAL_EINVAL);
    return tw_set(w, f, PAL_TC_FLOAT, (pal_value){ .f = v }, 0);
}

pal_status pal_trace_writer_field_str(pal_trace_writer *w, const pal_fielddesc *f,
                                      const char *s, size_t len)
{
    PAL_REQUIRE(w && (s || !len), PAL_EINVAL);
    if (len > UINT32_MAX)
        return PAL_ERANGE;
    return tw_set(w, f, PAL_TC_STRING, (pal_value){ .s = (const unsigned char *)(s ? s : "") },
                  (uint32_t)len);
}

pal_status pal_trace_writer_set_i64(pal_trace_writer *w, const char *field, int64_t v)
{
    PAL_REQUIRE(w, PAL_EINVAL);
    const pal_fielddesc *f = tw_named(w, field);
    return f ? pal_trace_writer_field_i64(w, f, v) : w->type ? PAL_ENOFIELD : PAL_EINVAL;
}

pal_status pal_trace_writer_set_u64(pal_trace_writer *w, const char *field, uint64_t v)
{
    PAL_REQUIRE(w, PAL_EINVAL);
    const pal_fielddesc *f = tw_named(w, field);
    return f ? pal_trace_writer_field_u64(w, f, v) : w->type ? PAL_ENOFIELD : PAL_EINVAL;
}

pal_status pal_trace_writer_set_f64(pal_trace_writer *w, const char *field, double v)
{
    PAL_REQUIRE(w, PAL_EINVAL);
    const pal_fielddesc *f = tw_named(w, field);
    return f ? pal_trace_writer_field_f64(w, f, v) : w->type ? PAL_ENOFIELD : PAL_EINVAL;
}

pal_status pal_trace_writer_set_str(pal_trace_writer *w, const char *field, const char *s,
                                    size_t len)
{
    PAL_REQUIRE(w, PAL_EINVAL);
    const pal_fielddesc *f = tw_named(w, field);
    return f ? pal_trace_writer_field_str(w, f, s, len) : w->type ? PAL_ENOFIELD : PAL_EINVAL;
}

pal_status pal_trace_writer_copy(pal_trace_writer *w, const pal_record *rec)
{
    PAL_REQUIRE(w && rec, PAL_EINVAL);
    const pal_recdesc *s = rec->desc;
    /* a record of the type, read with like or with another reader's
     * dictionary of the same trace (same name and fields) */
    if (!w->type || (s != w->type && (s->nfields != w->type->nfields ||
                                      strcmp(s->name, w->type->name) != 0)))
        return PAL_EINVAL;
    for (size_t f = 0; f < s->nfields; f++) {
        if (!tw_kept(w->like, s, f) || !pal_record_present(rec, f))
            continue;
        if (s->fields[f].role == PAL_FROLE_DURATION) {
            int64_t ns;
            if (pal_record_duration_ns(rec, &ns) != PAL_OK)
                continue;
            if (s->fields[f].tclass == PAL_TC_FLOAT)
                w->vals[f].f = (double)ns;
            else
                w->vals[f].i = ns;
            continue;
        }
        w->vals[f] = rec->vals[f];
        w->lens[f] = rec->lens[f];
    }
    return PAL_OK;
}

pal_status pal_trace_writer_put(pal_trace_writer *w)
{
    PAL_REQUIRE(w, PAL_EINVAL);
    const pal_recdesc *s = w->type;
    if (!s)
        return PAL_EINVAL;
    size_t nf = s->nfields;
    size_t need = nf * (sizeof(pal_value) + sizeof(uint32_t)) + sizeof(pal_value);
    for (size_t i = 0; i < nf; i++)
        if (s->fields[i].tclass == PAL_TC_STRING)
            need += w->lens[i];
    if (tw_grow((void **)&w->recs, &w->cap, w->n + 1, sizeof *w->recs) ||
        tw_grow((void **)&w->arena, &w->acap, w->alen + need, 1)) {
        w->failed = 1;
        return PAL_ENOMEM;
    }
    size_t off = (w->alen + sizeof(pal_value) - 1) / sizeof(pal_value) * sizeof(pal_value);
    pal_value *v = (pal_value *)(void *)(w->arena + off);
    size_t lo = off + nf * sizeof(pal_value), so = lo + nf * sizeof(uint32_t);
    memcpy(w->arena + lo, w->lens, nf * sizeof(uint32_t));
    for (size_t i = 0; i < nf; i++) {
        v[i] = w->vals[i];
        if (s->fields[i].tclass == PAL_TC_STRING) {
            memcpy(w->arena + so, w->vals[i].s, w->lens[i]);
            v[i].u = so;             /* an offset until close */
            so += w->lens[i];
        }
    }
    w->alen = so;
    w->recs[w->n] = (tw_rec){ w->time, w->n, s->index, off, w->process, w->stream };
    w->n++;
    if ((int64_t)w->process > w->max_process)
        w->max_process = w->process;
    w->type = NULL;
    return PAL_OK;
}

uint64_t pal_trace_writer_records(const pal_trace_writer *w)
{
    return w ? w->n : 0;
}

static int tw_by_time(const void *a, const void *b)
{
    const tw_rec *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

pal_status pal_trace_writer_close(pal_trace_writer *w, char *err, size_t errlen)
{
    PAL_REQUIRE(w && (err || !errlen), PAL_EINVAL);
    char e[1024] = "";
    pal_status st = PAL_ENOMEM;
    pal_writer *pw = NULL;
    pal_value *ov = NULL;
    uint32_t *ol = NULL;
    const pal_dict *like = w->like;
    int32_t **map = calloc(like->nrecs + 1, sizeof *map);
    edl_dict *d = NULL;
    if (w->failed || !map)
        goto out;
    qsort(w->recs, w->n, sizeof *w->recs, tw_by_time);
    if (!(d = tw_dict(like, map, e, sizeof e))) {
        st = strcmp(e, "out of memory") == 0 ? PAL_ENOMEM : PAL_EINVAL;
        goto out;
    }
    ecc_file_header fh;
    memset(&fh, 0, sizeof fh);
    fh.byte_order = (uint8_t)edl_dict_byte_order(d);
    fh.clock_source = 1;
    fh.ticks_per_second = 1e9;
    fh.rank = -1;
    fh.size = (int32_t)(w->max_process + 1);
    fh.flags = ECC_HFLAG_MERGED;
    pal_writer_options wo = { ECC_COMP_NONE, 0, 64u << 10,
                              w->flags & PAL_OUT_THROUGH ? ECC_OUT_THROUGH : 0 };
    st = pal_writer_create(w->path, d, &fh, &wo, &pw, e, sizeof e);   /* takes d */
    d = NULL;
    if (st != PAL_OK)
        goto out;
    const pal_dict *wd = pal_writer_dict(pw);
    size_t mf = wd->max_fields ? wd->max_fields : 1;
    st = PAL_ENOMEM;
    if (!(ov = calloc(mf, sizeof *ov)) || !(ol = calloc(mf, sizeof *ol)))
        goto out;
    st = PAL_OK;
    for (size_t k = 0; k < w->n && st == PAL_OK; k++) {
        const tw_rec *r = &w->recs[k];
        const pal_recdesc *s = like->recs[r->type], *to = wd->recs[r->type];
        const pal_value *v = (const pal_value *)(const void *)(w->arena + r->off);
        const uint8_t *lp = w->arena + r->off + s->nfields * sizeof(pal_value);
        memset(ov, 0, to->nfields * sizeof *ov);
        memset(ol, 0, to->nfields * sizeof *ol);
        ov[0].u = r->type;
        ov[1].u = r->t;
        ov[2].u = r->process;
        ov[3].u = r->stream;
        for (size_t f = 0; f < s->nfields; f++) {
            int32_t o = map[r->type][f];
            if (o < 0)
                continue;
            ov[o] = v[f];
            if (s->fields[f].tclass == PAL_TC_STRING) {
                ov[o].s = w->arena + v[f].u;
                memcpy(&ol[o], lp + f * sizeof(uint32_t), sizeof(uint32_t));
            }
        }
        st = pal_writer_put(pw, to, ov, ol);
        if (st == PAL_EINVAL)
            snprintf(e, sizeof e, "records of type '%s' cannot be written in binary form",
                     s->name);
    }
    if (st == PAL_OK) {
        st = pal_writer_close(pw, e, sizeof e);
        pw = NULL;
    } else if (st == PAL_EIO) {
        pal_writer_close(pw, e, sizeof e);   /* says why, removes the file */
        pw = NULL;
    }
out:
    if (st == PAL_ENOMEM && !*e)
        snprintf(e, sizeof e, "out of memory");
    if (st != PAL_OK) {
        if (strstr(e, w->path))
            snprintf(err, errlen, "%s", e);
        else
            snprintf(err, errlen, "cannot write '%s': %s", w->path, e);
        pal_set_last_error("%s", err);
    } else if (errlen) {
        err[0] = '\0';
    }
    pal_writer_abort(pw);
    edl_dict_destroy(d);
    for (size_t i = 0; map && i < like->nrecs; i++)
        free(map[i]);
    free(map);
    free(ov);
    free(ol);
    pal_trace_writer_abort(w);
    return st;
}

void pal_trace_writer_abort(pal_trace_writer *w)
{
    if (!w)
        return;
    free(w->path);
    free(w->vals);
    free(w->lens);
    free(w->recs);
    free(w->arena);
    free(w);
}
