/* codec.c -- the ECL container codec: LEB128, CRC-32, the file header, chunk
 * headers and their checks, index entries, the footer and the end summary
 * (doc/trace-format.md). Pure byte work; the encoders are async-signal-safe. */
#include <config.h>

#include "container/container.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* ---------------- LEB128 ---------------- */

int ecc_get_uleb_slow(const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
    const uint8_t *p = *pp;
    uint64_t v = 0;
    for (unsigned shift = 0; shift < 70; shift += 7) {
        if (p >= end)
            return ECC_LEB_SHORT;
        uint8_t b = *p++;
        if (shift == 63 && b > 1)
            return ECC_LEB_BAD;          /* more than 64 bits, or an 11th byte */
        v |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *pp = p;
            *out = v;
            return ECC_LEB_OK;
        }
    }
    return ECC_LEB_BAD;
}

/* ---------------- CRC-32 ---------------- */
/* Where the CPU has PCLMULQDQ, 16-byte blocks are folded with carry-less
 * multiplies, 64 bytes per step (Gopal, Ozturk et al., "Fast CRC
 * Computation for Generic Polynomials Using PCLMULQDQ Instruction", Intel,
 * 2009; the constants are the paper's bit-reflected ones for this
 * polynomial), from 16 bytes on, a last partial block included: the 56
 * bytes under a chunk header's CRC too, which are most of the CRCs a scan
 * of small per-rank files computes. Under 16 bytes, tables; without
 * PCLMULQDQ, zlib. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(ECC_NO_CLMUL)
#define ECC_HAVE_CLMUL 1
#include <immintrin.h>

/* Byte shifts by a count known at run time (pshufb): 16 bytes from
 * shift_tbl + 16 + t move a register's bytes t places down (zeros in);
 * from shift_tbl + t, 16 - t places up. */
static const uint8_t shift_tbl[48] = {
    0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15,
    0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
};

/* Folds len bytes (len >= 16) into the CRC register crc (inverted form,
 * as zlib keeps it internally); returns the register. The last 1-15
 * bytes after the whole blocks are folded too: the register's first t
 * bytes make a block with 16 - t zero bytes before them (zeros before a
 * message leave its CRC as it is), folded over the block of its other
 * bytes followed by the t (Intel's paper, "partial blocks"). */
__attribute__((target("pclmul,sse4.1"))) static uint32_t crc_fold(const uint8_t *buf, size_t len,
                                                                   uint32_t crc)
{
    const __m128i k1k2 = _mm_set_epi64x(0x01c6e41596LL, 0x0154442bd4LL);  /* 4*128+32, 4*128-32 */
    const __m128i k3k4 = _mm_set_epi64x(0x00ccaa009eLL, 0x01751997d0LL);  /* 128+32, 128-32 */
    const __m128i k5 = _mm_set_epi64x(0, 0x0163cd6124LL);                 /* 64 */
    const __m128i poly = _mm_set_epi64x(0x01f7011641LL, 0x01db710641LL);  /* mu, P */
    const __m128i low32 = _mm_setr_epi32(-1, 0, -1, 0);
    __m128i x, l, h;
    if (len < 64) {
        x = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)buf),
                          _mm_cvtsi32_si128((int)crc));
        buf += 16;
        len -= 16;
    } else {
        __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(buf + 0));
        __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(buf + 16));
        __m128i c = _mm_loadu_si128((const __m128i *)(const void *)(buf + 32));
        __m128i d = _mm_loadu_si128((const __m128i *)(const void *)(buf + 48));
        a = _mm_xor_si128(a, _mm_cvtsi32_si128((int)crc));
        buf += 64;
        len -= 64;
        /* four lanes, each folded 512 bits forward */
        for (; len >= 64; buf += 64, len -= 64) {
            __m128i la = _mm_clmulepi64_si128(a, k1k2, 0x00), ha = _mm_clmulepi64_si128(a, k1k2, 0x11);
            __m128i lb = _mm_clmulepi64_si128(b, k1k2, 0x00), hb = _mm_clmulepi64_si128(b, k1k2, 0x11);
            __m128i lc = _mm_clmulepi64_si128(c, k1k2, 0x00), hc = _mm_clmulepi64_si128(c, k1k2, 0x11);
            __m128i ld = _mm_clmulepi64_si128(d, k1k2, 0x00), hd = _mm_clmulepi64_si128(d, k1k2, 0x11);
            a = _mm_xor_si128(_mm_xor_si128(la, ha),
                              _mm_loadu_si128((const __m128i *)(const void *)(buf + 0)));
            b = _mm_xor_si128(_mm_xor_si128(lb, hb),
                              _mm_loadu_si128((const __m128i *)(const void *)(buf + 16)));
            c = _mm_xor_si128(_mm_xor_si128(lc, hc),
                              _mm_loadu_si128((const __m128i *)(const void *)(buf + 32)));
            d = _mm_xor_si128(_mm_xor_si128(ld, hd),
                              _mm_loadu_si128((const __m128i *)(const void *)(buf + 48)));
        }
        /* the lanes into one, 128 bits forward at a time */
        x = a;
        const __m128i next[3] = {b, c, d};
        for (int i = 0; i < 3; i++) {
            l = _mm_clmulepi64_si128(x, k3k4, 0x00);
            h = _mm_clmulepi64_si128(x, k3k4, 0x11);
            x = _mm_xor_si128(_mm_xor_si128(l, h), next[i]);
        }
    }
    /* the other blocks */
    for (; len >= 16; buf += 16, len -= 16) {
        l = _mm_clmulepi64_si128(x, k3k4, 0x00);
        h = _mm_clmulepi64_si128(x, k3k4, 0x11);
        x = _mm_xor_si128(_mm_xor_si128(l, h),
                          _mm_loadu_si128((const __m128i *)(const void *)buf));
    }
    /* the last t = len bytes: the 16 ending there hold them at the top */
    if (len > 0) {
        __m128i last = _mm_loadu_si128((const __m128i *)(const void *)(buf + len - 16));
        __m128i down = _mm_loadu_si128((const __m128i *)(const void *)(shift_tbl + 16 + len));
        __m128i up = _mm_loadu_si128((const __m128i *)(const void *)(shift_tbl + len));
        __m128i first = _mm_shuffle_epi8(x, up);
        __m128i rest = _mm_blendv_epi8(_mm_shuffle_epi8(x, down), last, down);
        l = _mm_clmulepi64_si128(first, k3k4, 0x00);
        h = _mm_clmulepi64_si128(first, k3k4, 0x11);
        x = _mm_xor_si128(_mm_xor_si128(l, h), rest);
    }
    /* 128 bits to 64 */
    l = _mm_clmulepi64_si128(x, k3k4, 0x10);
    x = _mm_xor_si128(_mm_srli_si128(x, 8), l);
    h = _mm_srli_si128(x, 4);
    x = _mm_clmulepi64_si128(_mm_and_si128(x, low32), k5, 0x00);
    x = _mm_xor_si128(x, h);
    /* Barrett reduction to 32 bits */
    l = _mm_clmulepi64_si128(_mm_and_si128(x, low32), poly, 0x10);
    l = _mm_clmulepi64_si128(_mm_and_si128(l, low32), poly, 0x00);
    x = _mm_xor_si128(x, l);
    return (uint32_t)_mm_extract_epi32(x, 1);
}

/* Set once by the constructor (before any thread or signal handler can ask),
 * so that reading it is async-signal-safe. */
static int clmul_ok;
/* CRCs of under 16 bytes: 8 bytes at a time through 8 tables
 * (slicing-by-8: eight independent look-ups where a byte at a time chains
 * eight), then byte by byte; a zlib call each cost 4 % of a 4,096-file
 * merge. Reflected polynomial 0xEDB88320, as zlib's; x86-64 is
 * little-endian. */
static uint32_t crc_tab[8][256];

__attribute__((constructor)) static void crc_init(void)
{
    __builtin_cpu_init();
    clmul_ok = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++)
            c = c & 1 ? (c >> 1) ^ 0xEDB88320u : c >> 1;
        crc_tab[0][i] = c;
    }
    for (int t = 1; t < 8; t++)
        for (uint32_t i = 0; i < 256; i++)
            crc_tab[t][i] = (crc_tab[t - 1][i] >> 8) ^ crc_tab[0][crc_tab[t - 1][i] & 0xFF];
}

/* The CRC register c (inverted form) over n bytes at p, without CLMUL. */
static uint32_t crc_tail(uint32_t c, const uint8_t *p, size_t n)
{
    for (; n >= 8; p += 8, n -= 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        v ^= c;
        c = crc_tab[7][v & 0xFF] ^ crc_tab[6][(v >> 8) & 0xFF] ^ crc_tab[5][(v >> 16) & 0xFF] ^
            crc_tab[4][(v >> 24) & 0xFF] ^ crc_tab[3][(v >> 32) & 0xFF] ^
            crc_tab[2][(v >> 40) & 0xFF] ^ crc_tab[1][(v >> 48) & 0xFF] ^ crc_tab[0][v >> 56];
    }
    for (; n > 0; n--)
        c = crc_tab[0][(c ^ *p++) & 0xFF] ^ (c >> 8);
    return c;
}
#endif

uint32_t ecc_crc32(uint32_t crc, const void *data, size_t n)
{
    const uint8_t *p = data;
#ifdef ECC_HAVE_CLMUL
    if (clmul_ok) {
        uint32_t c = ~crc;
        if (n >= 16)
            return ~crc_fold(p, n, c);
        return ~crc_tail(c, p, n);
    }
#endif
    while (n) {
        /* zlib takes at most 4 GiB at once */
        uInt k = n > 0x40000000u ? 0x40000000u : (uInt)n;
        crc = (uint32_t)crc32(crc, p, k);
        p += k;
        n -= k;
    }
    return crc;
}

/* ---------------- file header ---------------- */

size_t ecc_file_header_size(size_t dict_length)
{
    return (ECC_HEADER_FIXED + dict_length + 7) & ~(size_t)7;
}

/* The header CRC covers the whole header with its own field (bytes 16-19)
 * taken as zero. */
static uint32_t header_crc(const uint8_t *b, size_t len)
{
    static const uint8_t zero[4];
    uint32_t c = ecc_crc32(0, b, 16);
    c = ecc_crc32(c, zero, 4);
    return ecc_crc32(c, b + 20, len - 20);
}

/* ticks_per_second (f64 bits) and realtime_offset_ns, at 24 and 32 */
static void put_clock(uint8_t *out, double ticks_per_second, int64_t realtime_offset_ns)
{
    uint64_t bits;
    memcpy(&bits, &ticks_per_second, 8);
    ecc_put64(out + 24, bits);
    ecc_put64(out + 32, (uint64_t)realtime_offset_ns);
}

void ecc_file_header_encode(uint8_t *out, ecc_file_header *h, const void *dict, size_t dict_length)
{
    size_t len = ecc_file_header_size(dict_length);
    memset(out, 0, len);
    h->version_major = ECC_VERSION_MAJOR;
    h->version_minor = ECC_VERSION_MINOR;
    h->header_length = (uint32_t)len;
    h->dict_offset = ECC_HEADER_FIXED;
    h->dict_length = (uint32_t)dict_length;
    memcpy(out, ECC_FILE_MAGIC, 8);
    ecc_put16(out + 8, h->version_major);
    ecc_put16(out + 10, h->version_minor);
    ecc_put32(out + 12, h->header_length);
    out[20] = h->byte_order;
    out[21] = h->clock_source;
    put_clock(out, h->ticks_per_second, h->realtime_offset_ns);
    ecc_put32(out + 40, h->pid);
    ecc_put32(out + 44, (uint32_t)h->rank);
    ecc_put32(out + 48, (uint32_t)h->size);
    ecc_put64(out + 56, h->start_time);
    memcpy(out + 64, h->host, strnlen(h->host, 64));
    ecc_put32(out + 128, h->dict_offset);
    ecc_put32(out + 132, h->dict_length);
    memcpy(out + ECC_RUN_ID_OFFSET, h->run_id, ECC_RUN_ID);
    ecc_put32(out + 152, h->buffer_size);
    ecc_put32(out + 156, h->buffer_count);
    ecc_put32(out + 160, h->flags);
    ecc_put32(out + 164, h->dict_raw_length);
    if (dict_length)
        memcpy(out + ECC_HEADER_FIXED, dict, dict_length);
    ecc_put32(out + 16, header_crc(out, len));
}

void ecc_file_header_set_flag(uint8_t *hdr, size_t length, uint32_t mask, int on)
{
    uint32_t f = ecc_get32(hdr + 160);
    ecc_put32(hdr + 160, on ? f | mask : f & ~mask);
    ecc_put32(hdr + 16, header_crc(hdr, length));
}

void ecc_file_header_set_clock(uint8_t *hdr, size_t length, double ticks_per_second,
                               int64_t realtime_offset_ns)
{
    put_clock(hdr, ticks_per_second, realtime_offset_ns);
    ecc_put32(hdr + 16, header_crc(hdr, length));
}

void ecc_file_header_set_identity(uint8_t *hdr, size_t length, int32_t rank, int32_t size,
                                  const uint8_t run_id[ECC_RUN_ID])
{
    ecc_put32(hdr + 44, (uint32_t)rank);
    ecc_put32(hdr + 48, (uint32_t)size);
    if (run_id != NULL)
        memcpy(hdr + ECC_RUN_ID_OFFSET, run_id, ECC_RUN_ID);
    ecc_put32(hdr + 16, header_crc(hdr, length));
}

const char *ecc_file_header_decode_fixed(const uint8_t *b, size_t n, ecc_file_header *h,
                                         uint64_t *at)
{
    memset(h, 0, sizeof *h);
    *at = 0;
    if (n < 8 || memcmp(b, ECC_FILE_MAGIC, 8) != 0)
        return "bad magic (not an ECL trace)";
    *at = 8;
    if (n < ECC_HEADER_FIXED_V1)
        return "file header truncated";
    h->version_major = ecc_get16(b + 8);
    h->version_minor = ecc_get16(b + 10);
    if (h->version_major != 1 && h->version_major != 2)
        return "unsupported format version (this reader knows 1.x and 2.x)";
    uint32_t fixed = h->version_major == 1 ? ECC_HEADER_FIXED_V1 : ECC_HEADER_FIXED;
    h->header_length = ecc_get32(b + 12);
    *at = 12;
    if (h->header_length < fixed || h->header_length > ECC_HEADER_MAX)
        return "bad header_length";
    h->byte_order = b[20];
    h->clock_source = b[21];
    uint64_t bits = ecc_get64(b + 24);
    memcpy(&h->ticks_per_second, &bits, 8);
    h->realtime_offset_ns = (int64_t)ecc_get64(b + 32);
    h->pid = ecc_get32(b + 40);
    h->rank = (int32_t)ecc_get32(b + 44);
    h->size = (int32_t)ecc_get32(b + 48);
    h->start_time = ecc_get64(b + 56);
    memcpy(h->host, b + 64, 64);
    h->host[64] = '\0';
    h->dict_offset = ecc_get32(b + 128);
    h->dict_length = ecc_get32(b + 132);
    *at = 128;
    if (h->dict_offset < fixed || h->dict_length > h->header_length ||
        h->dict_offset > h->header_length - h->dict_length)
        return "embedded dictionary lies outside the header";
    if (h->version_major >= 2) {
        if (n < ECC_HEADER_FIXED) {
            *at = n;
            return "file header truncated";
        }
        memcpy(h->run_id, b + ECC_RUN_ID_OFFSET, ECC_RUN_ID);
        h->buffer_size = ecc_get32(b + 152);
        h->buffer_count = ecc_get32(b + 156);
        h->flags = ecc_get32(b + 160);
        h->dict_raw_length = ecc_get32(b + 164);
    }
    *at = 0;
    return NULL;
}

const char *ecc_dict_pack(ecc_file_header *h, const void *dict, size_t len, uint8_t **out,
                          size_t *out_len)
{
    uLongf zl = compressBound((uLong)len);
    uint8_t *z = malloc(zl > len ? zl : len ? len : 1);
    if (!z)
        return "out of memory";
    h->flags &= ~(uint32_t)ECC_HFLAG_DICT_ZLIB;
    h->dict_raw_length = 0;
    if (len > 256 && compress2(z, &zl, dict, (uLong)len, 6) == Z_OK && zl < len) {
        h->flags |= ECC_HFLAG_DICT_ZLIB;
        h->dict_raw_length = (uint32_t)len;
        *out_len = zl;
    } else {
        memcpy(z, dict, len);
        *out_len = len;
    }
    *out = z;
    return NULL;
}

const char *ecc_file_header_dict(const uint8_t *hdr, const ecc_file_header *h, uint8_t **dict,
                                 size_t *len)
{
    const uint8_t *src = hdr + h->dict_offset;
    if (!(h->flags & ECC_HFLAG_DICT_ZLIB)) {
        *dict = malloc(h->dict_length ? h->dict_length : 1);
        if (!*dict)
            return "out of memory";
        memcpy(*dict, src, h->dict_length);
        *len = h->dict_length;
        return NULL;
    }
    if (h->dict_raw_length > ECC_HEADER_MAX * 16)
        return "embedded dictionary too large";
    *dict = malloc(h->dict_raw_length ? h->dict_raw_length : 1);
    if (!*dict)
        return "out of memory";
    uLongf dl = h->dict_raw_length;
    uLong sl = h->dict_length;
    if (uncompress2(*dict, &dl, src, &sl) != Z_OK || dl != h->dict_raw_length ||
        sl != h->dict_length) {
        free(*dict);
        *dict = NULL;
        return "embedded dictionary does not decompress";
    }
    *len = dl;
    return NULL;
}

const char *ecc_file_header_check_crc(const uint8_t *b, const ecc_file_header *h)
{
    return header_crc(b, h->header_length) == ecc_get32(b + 16) ? NULL : "file header CRC mismatch";
}

/* ---------------- chunks ---------------- */

void ecc_chunk_encode(uint8_t out[ECC_CHUNK_HEADER], const ecc_chunk *c)
{
    memset(out, 0, ECC_CHUNK_HEADER);
    ecc_put32(out + 0, ECC_CHUNK_MAGIC);
    out[8] = c->kind;
    out[9] = c->compression;
    ecc_put16(out + 10, c->flags);
    ecc_put32(out + 12, c->stored_length);
    ecc_put32(out + 16, c->raw_length);
    ecc_put32(out + 20, c->process);
    ecc_put32(out + 24, c->stream);
    ecc_put32(out + 28, c->record_count);
    ecc_put64(out + 32, c->sequence);
    ecc_put64(out + 40, c->first_time);
    ecc_put64(out + 48, c->last_time);
    ecc_put32(out + 56, c->payload_crc);
    ecc_put32(out + 4, ecc_crc32(0, out + 8, ECC_CHUNK_HEADER - 8));
}

void ecc_pad_encode(uint8_t out[ECC_CHUNK_HEADER])
{
    ecc_chunk c;
    memset(&c, 0, sizeof c);
    c.kind = ECC_KIND_PAD;
    c.process = ECC_PROCESS_FROM_HEADER;
    c.payload_crc = 0;                   /* the CRC of no bytes */
    ecc_chunk_encode(out, &c);
}

const char *ecc_chunk_decode(const uint8_t b[ECC_CHUNK_HEADER], ecc_chunk *c)
{
    if (ecc_get32(b) != ECC_CHUNK_MAGIC)
        return "bad magic";
    if (ecc_get32(b + 4) != ecc_crc32(0, b + 8, ECC_CHUNK_HEADER - 8))
        return "header CRC mismatch";
    c->kind = b[8];
    c->compression = b[9];
    c->flags = ecc_get16(b + 10);
    c->stored_length = ecc_get32(b + 12);
    c->raw_length = ecc_get32(b + 16);
    c->process = ecc_get32(b + 20);
    c->stream = ecc_get32(b + 24);
    c->record_count = ecc_get32(b + 28);
    c->sequence = ecc_get64(b + 32);
    c->first_time = ecc_get64(b + 40);
    c->last_time = ecc_get64(b + 48);
    c->payload_crc = ecc_get32(b + 56);
    if (c->stored_length >= ECC_STORED_MAX)
        return "stored_length over 2^31";
    return NULL;
}

const char *ecc_chunk_check(const ecc_chunk *c, uint16_t version_major)
{
    uint16_t known = version_major >= 2 ? ECC_CFLAGS_KNOWN : 0;
    if (c->flags & ~known)
        return "unknown chunk flags";
    if (c->compression > ECC_COMP_ZSTD)
        return "unknown compression";
    if (!ecc_have_compression(c->compression))
        return "zstd compression, not supported by this build";
    if (c->compression == ECC_COMP_NONE && c->raw_length != c->stored_length)
        return "raw_length differs from stored_length in an uncompressed chunk";
    if (c->kind == ECC_KIND_RECORDS) {
        /* every record takes at least one byte */
        if (c->record_count > c->raw_length)
            return "record_count exceeds the payload bytes";
        if (c->record_count == 0 && c->raw_length != 0)
            return "0 records in a non-empty payload";
    }
    if (c->kind == ECC_KIND_INDEX && c->raw_length % ECC_INDEX_ENTRY != 0)
        return "index length is not a multiple of 40";
    return NULL;
}

size_t ecc_header_copy_size(size_t length)
{
    return 2 * ECC_CHUNK_HEADER + length;
}

void ecc_header_copy_encode(uint8_t *out, const uint8_t *hdr, size_t length)
{
    ecc_pad_encode(out);
    ecc_chunk c;
    memset(&c, 0, sizeof c);
    c.kind = ECC_KIND_HEADER_COPY;
    c.stored_length = c.raw_length = (uint32_t)length;
    c.process = ECC_PROCESS_FROM_HEADER;
    c.payload_crc = ecc_crc32(0, hdr, length);
    ecc_chunk_encode(out + ECC_CHUNK_HEADER, &c);
    memcpy(out + 2 * ECC_CHUNK_HEADER, hdr, length);
}

/* ---------------- index, footer ---------------- */

void ecc_index_entry_encode(uint8_t out[ECC_INDEX_ENTRY], const ecc_index_entry *e)
{
    memset(out, 0, ECC_INDEX_ENTRY);
    ecc_put64(out, e->offset);
    ecc_put32(out + 8, e->process);
    ecc_put32(out + 12, e->stream);
    ecc_put64(out + 16, e->first_time);
    ecc_put64(out + 24, e->last_time);
    ecc_put32(out + 32, e->record_count);
    out[36] = e->kind;
}

void ecc_index_entry_decode(const uint8_t b[ECC_INDEX_ENTRY], ecc_index_entry *e)
{
    e->offset = ecc_get64(b);
    e->process = ecc_get32(b + 8);
    e->stream = ecc_get32(b + 12);
    e->first_time = ecc_get64(b + 16);
    e->last_time = ecc_get64(b + 24);
    e->record_count = ecc_get32(b + 32);
    e->kind = b[36];
}

void ecc_footer_encode(uint8_t out[ECC_FOOTER], uint64_t index_offset)
{
    memcpy(out, ECC_FOOTER_MAGIC, 8);
    ecc_put64(out + 8, index_offset);
}

int ecc_footer_decode(const uint8_t b[ECC_FOOTER], uint64_t *index_offset)
{
    if (memcmp(b, ECC_FOOTER_MAGIC, 8) != 0)
        return 0;
    *index_offset = ecc_get64(b + 8);
    return 1;
}

/* ---------------- end summary ---------------- */
/* Payload: ULEB values -- format 1, signal, lost, lost_unbuffered,
 * nstreams, then per stream: stream, chunks, records. */

size_t ecc_end_size(uint32_t nstreams)
{
    return 5 * ECC_LEB_MAX + (size_t)nstreams * 3 * ECC_LEB_MAX;
}

size_t ecc_end_encode(uint8_t *out, const ecc_end *e)
{
    uint8_t *p = out;
    p = ecc_put_uleb(p, 1);
    p = ecc_put_uleb(p, e->signal);
    p = ecc_put_uleb(p, e->lost);
    p = ecc_put_uleb(p, e->lost_unbuffered);
    p = ecc_put_uleb(p, e->nstreams);
    for (uint32_t i = 0; i < e->nstreams; i++) {
        p = ecc_put_uleb(p, e->streams[i].stream);
        p = ecc_put_uleb(p, e->streams[i].chunks);
        p = ecc_put_uleb(p, e->streams[i].records);
    }
    return (size_t)(p - out);
}

const char *ecc_end_decode(const uint8_t *p, size_t n, ecc_end *e,
                           void (*stream_fn)(void *ctx, const ecc_end_stream *s), void *ctx)
{
    const uint8_t *end = p + n;
    uint64_t v[5];
    memset(e, 0, sizeof *e);
    for (int i = 0; i < 5; i++)
        if (ecc_get_uleb(&p, end, &v[i]) != ECC_LEB_OK)
            return "end summary cut short";
    if (v[0] != 1)
        return "end summary of an unknown format";
    if (v[1] > 255 || v[4] > UINT32_MAX)
        return "end summary values out of range";
    e->signal = (uint32_t)v[1];
    e->lost = v[2];
    e->lost_unbuffered = v[3];
    e->nstreams = (uint32_t)v[4];
    for (uint32_t i = 0; i < e->nstreams; i++) {
        for (int k = 0; k < 3; k++)
            if (ecc_get_uleb(&p, end, &v[k]) != ECC_LEB_OK)
                return "end summary cut short";
        if (v[0] > UINT32_MAX)
            return "end summary values out of range";
        ecc_end_stream s = { (uint32_t)v[0], v[1], v[2] };
        if (stream_fn)
            stream_fn(ctx, &s);
    }
    if (p != end)
        return "end summary longer than its streams";
    return NULL;
}
