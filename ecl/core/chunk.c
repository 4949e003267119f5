/* chunk.c -- ECL basic layer: chunk headers, compression and chunk writes
 * (doc/trace-format.md, "Chunks"). A chunk reserves its file range with one
 * atomic fetch-add and is written with pwritev, so writers need no lock. */
#include <config.h>

#include "ecl/core/internal.h"

#include <stdio.h>
#include <stdlib.h>

/* The container header of ci, with its payload's CRC. */
static void chunk_of(ecc_chunk *c, const ecl_chunk_info *ci, const void *payload, uint16_t flags)
{
    memset(c, 0, sizeof *c);
    c->kind = ci->kind;
    c->compression = ci->compression;
    c->flags = flags;
    c->stored_length = ci->stored_length;
    c->raw_length = ci->raw_length;
    c->process = ci->process;
    c->stream = ci->stream;
    c->record_count = ci->record_count;
    c->sequence = ci->sequence;
    c->first_time = ci->first_time;
    c->last_time = ci->last_time;
    c->payload_crc = ecc_crc32(0, payload, ci->stored_length);
}

/* Writes iov (total size bytes) at a freshly reserved offset; returns it. */
static ecl_core_status write_reserved(struct iovec *iov, int n, uint64_t size, int in_signal,
                                      uint64_t *at)
{
    uint64_t off = __atomic_fetch_add(&ecl_T.file_end, size, __ATOMIC_RELAXED);
    char msg[4400];
    int e = ecl_sys_write_at(ecl_T.fd, ecl_T.path_cur, iov, n, off, in_signal ? NULL : msg,
                             sizeof msg);
    if (e != 0) {
        ecl_trace_fail(in_signal ? NULL : msg);
        return ECL_CORE_EIO;
    }
    *at = off;
    return ECL_CORE_OK;
}

static void account(const ecl_chunk_info *ci, uint64_t off, int in_signal)
{
    __atomic_fetch_add(&ecl_T.st_chunks, 1, __ATOMIC_RELAXED);
    if (ci->kind == ECC_KIND_RECORDS) {
        __atomic_fetch_add(&ecl_T.st_records, ci->record_count, __ATOMIC_RELAXED);
        __atomic_fetch_add(&ecl_T.st_raw, ci->raw_length, __ATOMIC_RELAXED);
        if (ci->stream != 0)
            __atomic_fetch_add(&ecl_T.st_rchunks, 1, __ATOMIC_RELAXED);
        if (ci->compression != ECC_COMP_NONE)
            __atomic_fetch_add(&ecl_T.st_zchunks, 1, __ATOMIC_RELAXED);
    }
    if (!in_signal) {
        ecl_index_entry ie = { off, ci->first_time, ci->last_time, ci->process, ci->stream,
                               ci->record_count, ci->kind };
        ecl_trace_index_add(&ie);
    }
}

ecl_core_status ecl_chunk_write(const ecl_chunk_info *ci, const void *payload, int in_signal)
{
    /* A records chunk is followed by a pad chunk: no damaged range of up to
     * 16 bytes can then touch two records chunks (doc/trace-format.md). */
    uint8_t hdr[ECC_CHUNK_HEADER], pad[ECC_CHUNK_HEADER];
    ecc_chunk c;
    chunk_of(&c, ci, payload, 0);
    ecc_chunk_encode(hdr, &c);
    ecc_pad_encode(pad);
    struct iovec iov[3] = {
        { hdr, ECC_CHUNK_HEADER },
        { (void *)(uintptr_t)payload, ci->stored_length },
        { pad, ECC_CHUNK_HEADER },
    };
    int padded = ci->kind == ECC_KIND_RECORDS;
    uint64_t size = ECC_CHUNK_HEADER + (uint64_t)ci->stored_length +
                    (padded ? ECC_CHUNK_HEADER : 0);
    uint64_t off;
    ecl_core_status st = write_reserved(iov, padded ? 3 : 2, size, in_signal, &off);
    if (st == ECL_CORE_OK)
        account(ci, off, in_signal);
    return st;
}

ecl_core_status ecl_chunk_write_twice(const ecl_chunk_info *ci, const void *payload)
{
    /* The chunk, a pad chunk, and the copy, in one range: a damaged byte (or
     * 16) can hit the chunk or its copy, never both. */
    uint8_t hdr[ECC_CHUNK_HEADER], pad[ECC_CHUNK_HEADER], hdr2[ECC_CHUNK_HEADER];
    ecc_chunk c;
    chunk_of(&c, ci, payload, 0);
    ecc_chunk_encode(hdr, &c);
    c.flags = ECC_CFLAG_COPY;
    ecc_chunk_encode(hdr2, &c);
    ecc_pad_encode(pad);
    struct iovec iov[5] = {
        { hdr, ECC_CHUNK_HEADER },
        { (void *)(uintptr_t)payload, ci->stored_length },
        { pad, ECC_CHUNK_HEADER },
        { hdr2, ECC_CHUNK_HEADER },
        { (void *)(uintptr_t)payload, ci->stored_length },
    };
    uint64_t off;
    ecl_core_status st = write_reserved(iov, 5, 3 * ECC_CHUNK_HEADER +
                                                2 * (uint64_t)ci->stored_length, 0, &off);
    if (st == ECL_CORE_OK)
        account(ci, off, 0);
    return st;
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
        if (ecc_get_uleb(&q, end, &type) != ECC_LEB_OK ||
            ecc_get_uleb(&q, end, &delta) != ECC_LEB_OK)
            break;
        const char *lay = ecl_trace_layout((uint32_t)type);
        if (lay == NULL)
            break;
        int ok = 1;
        for (; *lay && ok; lay++) {
            switch (*lay) {
            case 'u':
            case 's':
                ok = ecc_get_uleb(&q, end, &v) == ECC_LEB_OK;
                break;
            case 'l':
                ok = ecc_get_uleb(&q, end, &v) == ECC_LEB_OK && v <= (uint64_t)(end - q);
                if (ok)
                    q += v;
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

int ecl_trace_have_compress(int method)
{
    return ecc_have_compression(method);
}
