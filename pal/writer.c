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
