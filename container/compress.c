/* compress.c -- the ECL container codec: compression of chunk payloads (zlib,
 * and zstd when built with it), one-shot and streaming decompression. */
#include <config.h>

#include "container/container.h"

#include <stdlib.h>
#include <zlib.h>
#ifdef HAVE_ZSTD
#include <zstd.h>
#endif

int ecc_have_compression(int method)
{
    if (method == ECC_COMP_NONE || method == ECC_COMP_ZLIB)
        return 1;
#ifdef HAVE_ZSTD
    if (method == ECC_COMP_ZSTD)
        return 1;
#endif
    return 0;
}

const char *ecc_compression_name(int method)
{
    switch (method) {
    case ECC_COMP_NONE: return "none";
    case ECC_COMP_ZLIB: return "zlib";
    case ECC_COMP_ZSTD: return "zstd";
    default: return "unknown";
    }
}

/* ---------------- compression ---------------- */

struct ecc_zctx {
    int method, level;
    uint8_t *out;
    size_t out_cap;
    z_stream zs;
    int zs_ok;
#ifdef HAVE_ZSTD
    ZSTD_CCtx *zstd;
#endif
};

ecc_zctx *ecc_zctx_create(int method, int level, size_t max_input)
{
    ecc_zctx *z = calloc(1, sizeof *z);
    if (z == NULL)
        return NULL;
    z->method = method;
    z->level = level > 0 ? level : 1;
    if (method == ECC_COMP_ZLIB) {
        z->out_cap = compressBound((uLong)max_input);
        if (deflateInit(&z->zs, z->level) != Z_OK)
            goto fail;
        z->zs_ok = 1;
    }
#ifdef HAVE_ZSTD
    else if (method == ECC_COMP_ZSTD) {
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
    ecc_zctx_destroy(z);
    return NULL;
}

void ecc_zctx_destroy(ecc_zctx *z)
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

size_t ecc_compress_into(ecc_zctx *z, const uint8_t *src, size_t len, uint8_t *dst, size_t cap)
{
    if (z == NULL || z->method == ECC_COMP_NONE || len == 0 || cap == 0)
        return 0;
    if (z->method == ECC_COMP_ZLIB) {
        /* deflateReset keeps the allocated state: no malloc per chunk */
        if (len > 0xFFFFFFFFu || cap > 0xFFFFFFFFu || deflateReset(&z->zs) != Z_OK)
            return 0;
        z->zs.next_in = (Bytef *)(uintptr_t)src;
        z->zs.avail_in = (uInt)len;
        z->zs.next_out = dst;
        z->zs.avail_out = (uInt)cap;
        if (deflate(&z->zs, Z_FINISH) != Z_STREAM_END)
            return 0;                    /* failed, or it does not fit in cap */
        return cap - z->zs.avail_out;
    }
#ifdef HAVE_ZSTD
    if (z->method == ECC_COMP_ZSTD) {
        size_t r = ZSTD_compressCCtx(z->zstd, dst, cap, src, len, z->level);
        return ZSTD_isError(r) ? 0 : r;
    }
#endif
    return 0;
}

size_t ecc_compress(ecc_zctx *z, const uint8_t *src, size_t len, const uint8_t **out,
                    uint8_t *method_used)
{
    *out = src;
    *method_used = ECC_COMP_NONE;
    if (z == NULL || z->method == ECC_COMP_NONE || len == 0 || len > z->out_cap)
        return len;
    size_t n = ecc_compress_into(z, src, len, z->out, z->out_cap);
    if (n == 0 || n >= len)
        return len;                      /* stored raw: smaller and faster to read */
    *out = z->out;
    *method_used = (uint8_t)z->method;
    return n;
}

const char *ecc_decompress(int method, const uint8_t *src, size_t stored, uint8_t *dst,
                           size_t raw)
{
    switch (method) {
    case ECC_COMP_NONE:
        if (stored != raw)
            return "raw_length differs from stored_length in an uncompressed chunk";
        memcpy(dst, src, raw);
        return NULL;
    case ECC_COMP_ZLIB: {
        uLongf dl = (uLongf)raw;
        uLong sl = (uLong)stored;
        int rc = uncompress2(dst, &dl, src, &sl);
        if (rc != Z_OK || dl != raw || sl != stored)
            return "zlib payload does not decompress to raw_length bytes";
        return NULL;
    }
    case ECC_COMP_ZSTD:
#ifdef HAVE_ZSTD
    {
        size_t n = ZSTD_decompress(dst, raw, src, stored);
        if (ZSTD_isError(n) || n != raw)
            return "zstd payload does not decompress to raw_length bytes";
        return NULL;
    }
#else
        return "zstd compression, not supported by this build";
#endif
    default:
        return "unknown compression";
    }
}

/* ---------------- streaming decompression ---------------- */

struct ecc_inflater {
    int method;
    uint64_t raw, produced;
    z_stream zs;
    int zs_ok;
#ifdef HAVE_ZSTD
    ZSTD_DStream *zd;
#endif
};

ecc_inflater *ecc_inflater_create(void)
{
    return calloc(1, sizeof(ecc_inflater));
}

void ecc_inflater_destroy(ecc_inflater *z)
{
    if (z == NULL)
        return;
    if (z->zs_ok)
        inflateEnd(&z->zs);
#ifdef HAVE_ZSTD
    ZSTD_freeDStream(z->zd);
#endif
    free(z);
}

const char *ecc_inflater_reset(ecc_inflater *z, int method, uint64_t raw)
{
    z->method = method;
    z->raw = raw;
    z->produced = 0;
    switch (method) {
    case ECC_COMP_NONE:
        return NULL;
    case ECC_COMP_ZLIB:
        if (!z->zs_ok) {
            memset(&z->zs, 0, sizeof z->zs);
            if (inflateInit(&z->zs) != Z_OK)
                return "out of memory for zlib";
            z->zs_ok = 1;
        } else if (inflateReset(&z->zs) != Z_OK) {
            return "zlib state cannot be reset";
        }
        return NULL;
    case ECC_COMP_ZSTD:
#ifdef HAVE_ZSTD
        if (z->zd == NULL && (z->zd = ZSTD_createDStream()) == NULL)
            return "out of memory for zstd";
        if (ZSTD_isError(ZSTD_initDStream(z->zd)))
            return "zstd state cannot be reset";
        return NULL;
#else
        return "zstd compression, not supported by this build";
#endif
    default:
        return "unknown compression";
    }
}

const char *ecc_inflate(ecc_inflater *z, const uint8_t **in, const uint8_t *in_end,
                        uint8_t **out, uint8_t *out_end, int *done)
{
    *done = 0;
    /* never produce more than raw bytes: a payload that would is damaged */
    uint64_t room = z->raw - z->produced;
    uint8_t *oe = (uint64_t)(out_end - *out) > room ? *out + room : out_end;
    switch (z->method) {
    case ECC_COMP_NONE: {
        size_t n = (size_t)(in_end - *in);
        if (n > (size_t)(oe - *out))
            n = (size_t)(oe - *out);
        memcpy(*out, *in, n);
        *in += n;
        *out += n;
        z->produced += n;
        if (z->produced == z->raw) {
            if (*in != in_end)
                return "raw_length differs from stored_length in an uncompressed chunk";
            *done = 1;
        }
        return NULL;
    }
    case ECC_COMP_ZLIB: {
        for (;;) {
            z->zs.next_in = (Bytef *)(uintptr_t)*in;
            z->zs.avail_in = (uInt)(in_end - *in);
            z->zs.next_out = *out;
            z->zs.avail_out = (uInt)(oe - *out);
            int rc = inflate(&z->zs, Z_NO_FLUSH);
            size_t used = (size_t)((const uint8_t *)z->zs.next_in - *in);
            size_t made = (size_t)(z->zs.next_out - *out);
            *in += used;
            *out += made;
            z->produced += made;
            if (rc == Z_STREAM_END) {
                if (z->produced != z->raw || *in != in_end)
                    return "zlib payload does not decompress to raw_length bytes";
                *done = 1;
                return NULL;
            }
            if (rc != Z_OK && rc != Z_BUF_ERROR)
                return "zlib payload damaged";
            /* no progress: it needs more input or more room (the caller
             * knows whether there is any); else go on while both last */
            if ((used == 0 && made == 0) || *in == in_end || *out == oe)
                return NULL;
        }
    }
#ifdef HAVE_ZSTD
    case ECC_COMP_ZSTD: {
        ZSTD_inBuffer ib = { *in, (size_t)(in_end - *in), 0 };
        ZSTD_outBuffer ob = { *out, (size_t)(oe - *out), 0 };
        size_t rc = ZSTD_decompressStream(z->zd, &ob, &ib);
        if (ZSTD_isError(rc))
            return "zstd payload damaged";
        *in += ib.pos;
        *out += ob.pos;
        z->produced += ob.pos;
        if (rc == 0) {
            if (z->produced != z->raw || *in != in_end)
                return "zstd payload does not decompress to raw_length bytes";
            *done = 1;
        }
        return NULL;
    }
#endif
    default:
        return "unknown compression";
    }
}
