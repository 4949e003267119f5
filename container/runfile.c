/* runfile.c -- the ECL container codec, version 3: the run file, a merged
 * run that keeps its per-rank traces byte for byte (doc/trace-format.md,
 * "Merged traces (version 3)"). Pure byte work: the run header, the member
 * entries with their clock models, the stream tables and the footer. */
#include <config.h>

#include "container/container.h"

static void put_f64(uint8_t *p, double v)
{
    uint64_t u;
    memcpy(&u, &v, 8);
    ecc_put64(p, u);
}

static double get_f64(const uint8_t *p)
{
    uint64_t u = ecc_get64(p);
    double v;
    memcpy(&v, &u, 8);
    return v;
}

int ecc_run_is(const uint8_t *b, size_t n)
{
    return n >= 10 && memcmp(b, ECC_FILE_MAGIC, 8) == 0 &&
           ecc_get16(b + 8) == ECC_RUN_VERSION_MAJOR;
}

/* ---------------- the run header ---------------- */

void ecc_run_header_encode(uint8_t out[ECC_RUN_HEADER], const ecc_run_header *h)
{
    memset(out, 0, ECC_RUN_HEADER);
    memcpy(out, ECC_FILE_MAGIC, 8);
    ecc_put16(out + 8, ECC_RUN_VERSION_MAJOR);
    ecc_put16(out + 10, ECC_RUN_VERSION_MINOR);
    ecc_put32(out + 12, ECC_RUN_HEADER);
    ecc_put32(out + 20, h->flags);
    ecc_put32(out + 24, h->members);
    ecc_put32(out + 28, (uint32_t)h->size);
    memcpy(out + 32, h->run_id, ECC_RUN_ID);
    ecc_put64(out + 48, (uint64_t)h->realtime_offset_ns);
    out[56] = h->clock_source;
    ecc_put64(out + 64, h->index_offset);
    ecc_put64(out + 72, h->index_length);
    ecc_put64(out + 80, h->index_copy);
    put_f64(out + 88, h->origin_ns);
    size_t hl = strnlen(h->host, 64);
    memcpy(out + 96, h->host, hl);
    ecc_put32(out + 16, ecc_crc32(0, out, ECC_RUN_HEADER));
}

const char *ecc_run_header_decode(const uint8_t b[ECC_RUN_HEADER], ecc_run_header *h)
{
    memset(h, 0, sizeof *h);
    if (memcmp(b, ECC_FILE_MAGIC, 8) != 0)
        return "bad magic";
    h->version_major = ecc_get16(b + 8);
    h->version_minor = ecc_get16(b + 10);
    if (h->version_major != ECC_RUN_VERSION_MAJOR)
        return "not a version-3 run header";
    if (ecc_get32(b + 12) != ECC_RUN_HEADER)
        return "bad header_length";
    uint8_t c[ECC_RUN_HEADER];
    memcpy(c, b, ECC_RUN_HEADER);
    memset(c + 16, 0, 4);
    if (ecc_crc32(0, c, ECC_RUN_HEADER) != ecc_get32(b + 16))
        return "run header CRC mismatch";
    h->flags = ecc_get32(b + 20);
    h->members = ecc_get32(b + 24);
    h->size = (int32_t)ecc_get32(b + 28);
    memcpy(h->run_id, b + 32, ECC_RUN_ID);
    h->realtime_offset_ns = (int64_t)ecc_get64(b + 48);
    h->clock_source = b[56];
    h->index_offset = ecc_get64(b + 64);
    h->index_length = ecc_get64(b + 72);
    h->index_copy = ecc_get64(b + 80);
    h->origin_ns = get_f64(b + 88);
    memcpy(h->host, b + 96, 64);
    h->host[64] = '\0';
    if ((uint64_t)h->members * ECC_RUN_MEMBER > h->index_length)
        return "index shorter than its member entries";
    return NULL;
}

void ecc_run_footer_encode(uint8_t out[ECC_FOOTER], uint64_t header_copy)
{
    memcpy(out, ECC_RUN_FOOTER_MAGIC, 8);
    ecc_put64(out + 8, header_copy);
}

int ecc_run_footer_decode(const uint8_t b[ECC_FOOTER], uint64_t *header_copy)
{
    if (memcmp(b, ECC_RUN_FOOTER_MAGIC, 8) != 0)
        return 0;
    *header_copy = ecc_get64(b + 8);
    return 1;
}

/* ---------------- member entries ---------------- */
/* Bytes [8, 48) and [96, 128) are the location (CRC at 0), [48, 96) the
 * clock model (CRC at 4). */

static uint32_t member_crc(const uint8_t *b)
{
    return ecc_crc32(ecc_crc32(0, b + 8, 40), b + 96, 32);
}

void ecc_run_member_encode(uint8_t out[ECC_RUN_MEMBER], const ecc_run_member *m)
{
    memset(out, 0, ECC_RUN_MEMBER);
    ecc_put64(out + 8, m->offset);
    ecc_put64(out + 16, m->length);
    ecc_put32(out + 24, (uint32_t)m->rank);
    ecc_put32(out + 28, m->process);
    ecc_put64(out + 32, m->streams_offset);
    ecc_put32(out + 40, m->streams_length);
    ecc_put32(out + 44, m->nstreams);
    out[48] = m->how;
    ecc_put64(out + 56, m->t0);
    put_f64(out + 64, m->g0);
    put_f64(out + 72, m->b);
    memcpy(out + 96, m->name, strnlen(m->name, ECC_RUN_NAME));
    ecc_put32(out, member_crc(out));
    ecc_put32(out + 4, ecc_crc32(0, out + 48, 48));
}

int ecc_run_member_decode(const uint8_t b[ECC_RUN_MEMBER], ecc_run_member *m)
{
    int good = 0;
    if (member_crc(b) == ecc_get32(b)) {
        good |= 1;
        m->offset = ecc_get64(b + 8);
        m->length = ecc_get64(b + 16);
        m->rank = (int32_t)ecc_get32(b + 24);
        m->process = ecc_get32(b + 28);
        m->streams_offset = ecc_get64(b + 32);
        m->streams_length = ecc_get32(b + 40);
        m->nstreams = ecc_get32(b + 44);
        memcpy(m->name, b + 96, ECC_RUN_NAME);
        m->name[ECC_RUN_NAME] = '\0';
    }
    if (ecc_crc32(0, b + 48, 48) == ecc_get32(b + 4)) {
        good |= 2;
        m->how = b[48];
        m->t0 = ecc_get64(b + 56);
        m->g0 = get_f64(b + 64);
        m->b = get_f64(b + 72);
    }
    return good;
}

/* ---------------- stream tables ---------------- */

size_t ecc_run_streams_size(uint32_t nstreams, uint64_t nchunks)
{
    return 8 + (size_t)nstreams * ECC_RUN_STREAM + (size_t)nchunks * 8;
}

void ecc_run_streams_begin(uint8_t *out, uint32_t nstreams)
{
    ecc_put32(out, 0);
    ecc_put32(out + 4, nstreams);
}

uint8_t *ecc_run_stream_encode(uint8_t *p, const ecc_run_stream *s, const uint64_t *chunks)
{
    ecc_put32(p, s->stream);
    ecc_put32(p + 4, s->nchunks);
    ecc_put64(p + 8, s->records);
    ecc_put64(p + 16, s->first_time);
    ecc_put64(p + 24, s->last_time);
    p += ECC_RUN_STREAM;
    for (uint32_t i = 0; chunks && i < s->nchunks; i++)
        ecc_put64(p + 8 * (size_t)i, chunks[i]);
    return p + 8 * (size_t)s->nchunks;
}

void ecc_run_streams_seal(uint8_t *out, size_t length)
{
    ecc_put32(out, ecc_crc32(0, out + 4, length - 4));
}

const char *ecc_run_streams_check(const uint8_t *t, size_t length, uint32_t nstreams)
{
    if (length < 8)
        return "stream table too short";
    if (ecc_crc32(0, t + 4, length - 4) != ecc_get32(t))
        return "stream table CRC mismatch";
    if (ecc_get32(t + 4) != nstreams)
        return "stream table holds another number of streams than its entry";
    const uint8_t *p = t + 8, *end = t + length;
    for (uint32_t i = 0; i < nstreams; i++) {
        if ((size_t)(end - p) < ECC_RUN_STREAM)
            return "stream table too short";
        uint64_t n = ecc_get32(p + 4);
        p += ECC_RUN_STREAM;
        if ((uint64_t)(end - p) / 8 < n)
            return "stream table too short";
        p += n * 8;
    }
    return p == end ? NULL : "stream table longer than its streams";
}

const uint8_t *ecc_run_stream_decode(const uint8_t *p, ecc_run_stream *s)
{
    s->stream = ecc_get32(p);
    s->nchunks = ecc_get32(p + 4);
    s->records = ecc_get64(p + 8);
    s->first_time = ecc_get64(p + 16);
    s->last_time = ecc_get64(p + 24);
    return p + ECC_RUN_STREAM + (size_t)s->nchunks * 8;
}
