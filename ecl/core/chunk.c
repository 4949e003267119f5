/* chunk.c -- ECL basic layer: chunk headers, compression and chunk writes
 * (doc/trace-format.md, "Chunks"). A chunk reserves its file range with one
 * atomic fetch-add and is written with pwritev, so writers need no lock. */
#include <config.h>

#include "ecl/core/internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <zlib.h>
#ifdef HAVE_ZSTD
#include <zstd.h>
#endif

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
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

size_t ecl_buf_get_uleb(const uint8_t *p, const uint8_t *end, uint64_t *v)
{
    uint64_t r = 0;
    for (unsigned i = 0; i < 10; i++) {
        if (p + i >= end)
            return 0;
        uint8_t b = p[i];
        if (i == 9 && b > 1)
            return 0;                /* more than 64 bits */
        r |= (uint64_t)(b & 0x7F) << (7 * i);
        if (!(b & 0x80)) {
            *v = r;
            return i + 1;
        }
    }
    return 0;
}

void ecl_chunk_header_encode(uint8_t hdr[ECL_CHUNK_HEADER], const ecl_chunk_info *ci,
                             uint32_t payload_crc)
{
    memset(hdr, 0, ECL_CHUNK_HEADER);
    put32(hdr + 0, ECL_CHUNK_MAGIC);
    hdr[8] = ci->kind;
    hdr[9] = ci->compression;
    put16(hdr + 10, 0);
    put32(hdr + 12, ci->stored_length);
    put32(hdr + 16, ci->raw_length);
    put32(hdr + 20, ci->process);
    put32(hdr + 24, ci->stream);
    put32(hdr + 28, ci->record_count);
    put64(hdr + 32, ci->sequence);
    put64(hdr + 40, ci->first_time);
    put64(hdr + 48, ci->last_time);
    put32(hdr + 56, payload_crc);
    put32(hdr + 4, (uint32_t)crc32(0L, hdr + 8, ECL_CHUNK_HEADER - 8));
}

ecl_core_status ecl_chunk_write(const ecl_chunk_info *ci, const void *payload, int in_signal)
{
    uint8_t hdr[ECL_CHUNK_HEADER];
    uint32_t pcrc = (uint32_t)crc32(0L, (const Bytef *)payload, ci->stored_length);
    ecl_chunk_header_encode(hdr, ci, pcrc);

    uint64_t size = ECL_CHUNK_HEADER + (uint64_t)ci->stored_length;
    uint64_t off = __atomic_fetch_add(&ecl_T.file_end, size, __ATOMIC_RELAXED);
    struct iovec iov[2] = {
        { hdr, ECL_CHUNK_HEADER },
        { (void *)(uintptr_t)payload, ci->stored_length },
    };
    char msg[4400];
    int e = ecl_sys_write_at(ecl_T.fd, ecl_T.path_cur, iov, 2, off, in_signal ? NULL : msg,
                             sizeof msg);
    if (e != 0) {
        ecl_trace_fail(in_signal ? NULL : msg);
        return ECL_CORE_EIO;
    }
    __atomic_fetch_add(&ecl_T.st_chunks, 1, __ATOMIC_RELAXED);
    if (ci->kind == 1) {
        __atomic_fetch_add(&ecl_T.st_records, ci->record_count, __ATOMIC_RELAXED);
        __atomic_fetch_add(&ecl_T.st_raw, ci->raw_length, __ATOMIC_RELAXED);
    }
    if (!in_signal) {
        ecl_index_entry ie = { off, ci->first_time, ci->last_time, ci->process, ci->stream,
                               ci->record_count, ci->kind };
        ecl_trace_index_add(&ie);
    }
    return ECL_CORE_OK;
}

size_t ecl_chunk_scan(const uint8_t *p, size_t len, uint64_t base, uint32_t *count,
                      uint64_t *last)
{
    const uint8_t *q = p, *end = p + len;
    uint32_t n = 0;
    uint64_t t = base;
    size_t good = 0;
    for (;;) {
        uint64_t type, delta, v;
        size_t k = ecl_buf_get_uleb(q, end, &type);
        if (k == 0)
            break;
        q += k;
        if ((k = ecl_buf_get_uleb(q, end, &delta)) == 0)
            break;
        q += k;
        const char *lay = ecl_trace_layout((uint32_t)type);
        if (lay == NULL)
            break;
        int ok = 1;
        for (; *lay && ok; lay++) {
            switch (*lay) {
            case 'u':
            case 's':
                if ((k = ecl_buf_get_uleb(q, end, &v)) == 0)
                    ok = 0;
                q += k;
                break;
            case 'l':
                if ((k = ecl_buf_get_uleb(q, end, &v)) == 0 || v > (uint64_t)(end - q - k))
                    ok = 0;
                else
                    q += k + v;
                break;
            default: {
                size_t w = (size_t)(*lay - '0');
                if ((size_t)(end - q) < w)
                    ok = 0;
                else
                    q += w;
            }
            }
        }
        if (!ok)
            break;
        n++;
        t += delta;
        good = (size_t)(q - p);
    }
    *count = n;
    *last = t;
    return good;
}

/* ---------------- compression ---------------- */
struct ecl_chunk_zctx {
    int method, level;
    uint8_t *out;
    size_t out_cap;
    z_stream zs;
    int zs_ok;
#ifdef HAVE_ZSTD
    ZSTD_CCtx *zstd;
#endif
};

int ecl_trace_have_compress(int method)
{
    if (method == ECL_COMPRESS_NONE || method == ECL_COMPRESS_ZLIB)
        return 1;
#ifdef HAVE_ZSTD
    if (method == ECL_COMPRESS_ZSTD)
        return 1;
#endif
    return 0;
}

ecl_chunk_zctx *ecl_chunk_zctx_create(int method, int level, size_t max_input)
{
    ecl_chunk_zctx *z = calloc(1, sizeof *z);
    if (z == NULL)
        return NULL;
    z->method = method;
    z->level = level;
    if (method == ECL_COMPRESS_ZLIB) {
        z->out_cap = compressBound((uLong)max_input);
        if (deflateInit(&z->zs, level > 0 ? level : 1) != Z_OK)
            goto fail;
        z->zs_ok = 1;
    }
#ifdef HAVE_ZSTD
    else if (method == ECL_COMPRESS_ZSTD) {
        z->out_cap = ZSTD_compressBound(max_input);
        z->zstd = ZSTD_createCCtx();
        if (z->zstd == NULL)
            goto fail;
    }
#endif
    if (z->out_cap > 0 && (z->out = malloc(z->out_cap)) == NULL)
        goto fail;
    return z;
fail:
    ecl_chunk_zctx_destroy(z);
    return NULL;
}

void ecl_chunk_zctx_destroy(ecl_chunk_zctx *z)
{
    if (z == NULL)
        return;
    if (z->zs_ok)
        deflateEnd(&z->zs);
#ifdef HAVE_ZSTD
    ZSTD_freeCCtx(z->zstd);
#endif
    free(z->out);
    free(z);
}

size_t ecl_chunk_compress(ecl_chunk_zctx *z, const uint8_t *src, size_t len,
                          const uint8_t **out, uint8_t *method_used)
{
    size_t n = 0;
    *out = src;
    *method_used = ECL_COMPRESS_NONE;
    if (z == NULL || z->method == ECL_COMPRESS_NONE || len == 0)
        return len;
    if (z->method == ECL_COMPRESS_ZLIB) {
        /* deflateReset keeps the allocated state: no malloc per chunk. */
        if (deflateReset(&z->zs) != Z_OK)
            return len;
        z->zs.next_in = (Bytef *)(uintptr_t)src;
        z->zs.avail_in = (uInt)len;
        z->zs.next_out = z->out;
        z->zs.avail_out = (uInt)z->out_cap;
        if (deflate(&z->zs, Z_FINISH) != Z_STREAM_END)
            return len;
        n = z->out_cap - z->zs.avail_out;
    }
#ifdef HAVE_ZSTD
    else if (z->method == ECL_COMPRESS_ZSTD) {
        size_t r = ZSTD_compressCCtx(z->zstd, z->out, z->out_cap, src, len,
                                     z->level > 0 ? z->level : 1);
        if (ZSTD_isError(r))
            return len;
        n = r;
    }
#endif
    if (n == 0 || n >= len)
        return len;                  /* stored raw: smaller and faster to read */
    *out = z->out;
    *method_used = (uint8_t)z->method;
    return n;
}
