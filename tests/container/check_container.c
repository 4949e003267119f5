/* check_container.c -- unit tests of the container codec (container/): LEB128
 * and zig-zag at their boundaries, CRC-32 against zlib's, the file header
 * (version 2 written, 1 and 2 read) and chunk headers byte by byte with every
 * check, compression one-shot and streamed through tiny buffers, the end
 * summary, the scanner over damaged and cut files, and output files that
 * refuse what is not a regular file and never leave a partial one. The
 * expected bytes are written out here from doc/trace-format.md, not
 * produced by the codec itself. */
#include <config.h>

#include "container/container.h"

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t rd64(const uint8_t *p)
{
    return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

/* ---------------------------------------------------------------- LEB128 */

START_TEST(uleb_boundaries)
{
    static const struct { uint64_t v; size_t n; } cases[] = {
        { 0, 1 }, { 1, 1 }, { 127, 1 }, { 128, 2 }, { 16383, 2 }, { 16384, 3 },
        { 2097151, 3 }, { 2097152, 4 }, { UINT32_MAX, 5 }, { 1ull << 35, 6 },
        { (1ull << 63) - 1, 9 }, { 1ull << 63, 10 }, { UINT64_MAX, 10 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t buf[16];
        uint8_t *end = ecc_put_uleb(buf, cases[i].v);
        ck_assert_uint_eq((size_t)(end - buf), cases[i].n);
        ck_assert_uint_eq(ecc_uleb_size(cases[i].v), cases[i].n);
        for (size_t k = 0; k + 1 < cases[i].n; k++)
            ck_assert(buf[k] & 0x80);
        ck_assert(!(buf[cases[i].n - 1] & 0x80));
        const uint8_t *p = buf;
        uint64_t back = 0;
        ck_assert_int_eq(ecc_get_uleb(&p, end, &back), ECC_LEB_OK);
        ck_assert(p == end && back == cases[i].v);
        /* cut short: not decodable, position untouched */
        p = buf;
        ck_assert_int_eq(ecc_get_uleb(&p, end - 1, &back), ECC_LEB_SHORT);
        ck_assert(p == buf);
    }
    static const struct { uint8_t b[12]; size_t n; int rc; uint64_t v; } c[] = {
        {{0x80, 0x00}, 2, ECC_LEB_OK, 0},                       /* overlong zero */
        {{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, 10, ECC_LEB_OK,
         UINT64_MAX},
        {{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02}, 10, ECC_LEB_BAD, 0},
        {{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00}, 11, ECC_LEB_BAD, 0},
        {{0}, 0, ECC_LEB_SHORT, 0},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        const uint8_t *p = c[i].b;
        uint64_t v = 7;
        ck_assert_int_eq(ecc_get_uleb(&p, c[i].b + c[i].n, &v), c[i].rc);
        if (c[i].rc == ECC_LEB_OK)
            ck_assert(v == c[i].v);
        else
            ck_assert(p == c[i].b);
    }
}
END_TEST

START_TEST(sleb_zigzag)
{
    static const struct { int64_t v; uint64_t z; } cases[] = {
        { 0, 0 }, { -1, 1 }, { 1, 2 }, { -2, 3 }, { 63, 126 }, { -64, 127 }, { 64, 128 },
        { INT64_MAX, UINT64_MAX - 1 }, { INT64_MIN, UINT64_MAX },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint8_t a[16], b[16];
        uint8_t *ea = ecc_put_sleb(a, cases[i].v);
        uint8_t *eb = ecc_put_uleb(b, cases[i].z);
        ck_assert_uint_eq((size_t)(ea - a), (size_t)(eb - b));
        ck_assert(memcmp(a, b, (size_t)(ea - a)) == 0);
        ck_assert(ecc_zigzag(cases[i].v) == cases[i].z);
        ck_assert(ecc_unzigzag(cases[i].z) == cases[i].v);
    }
}
END_TEST

/* ---------------------------------------------------------------- CRC */

START_TEST(crc_matches_zlib)
{
    /* every length to 300, then some long ones, at every alignment mod 16,
     * whole and in two pieces */
    enum { N = 70000 };
    uint8_t *b = malloc(N + 16);
    ck_assert_ptr_nonnull(b);
    uint32_t x = 12345;
    for (size_t i = 0; i < N + 16; i++) {
        x = x * 1103515245u + 12345u;
        b[i] = (uint8_t)(x >> 16);
    }
    static const size_t longer[] = {511, 512, 513, 1023, 1024, 4096 + 7, 65536, N};
    for (size_t a = 0; a < 16; a++) {
        for (size_t n = 0; n <= 300 + sizeof longer / sizeof longer[0]; n++) {
            size_t len = n <= 300 ? n : longer[n - 301];
            uint32_t want = (uint32_t)crc32(0L, b + a, (uInt)len);
            ck_assert_msg(ecc_crc32(0, b + a, len) == want, "length %zu at offset %zu", len, a);
            size_t half = len / 3;
            ck_assert(ecc_crc32(ecc_crc32(0, b + a, half), b + a + half, len - half) == want);
        }
    }
    free(b);
}
END_TEST

/* ---------------------------------------------------------------- headers */

START_TEST(file_header_layout)
{
    ecc_file_header h;
    memset(&h, 0, sizeof h);
    h.byte_order = 'L';
    h.clock_source = 2;
    h.ticks_per_second = 2.5e9;
    h.realtime_offset_ns = -5;
    h.pid = 4242;
    h.rank = 3;
    h.size = 8;
    h.start_time = 123456789;
    snprintf(h.host, sizeof h.host, "node17");
    for (int i = 0; i < ECC_RUN_ID; i++)
        h.run_id[i] = (uint8_t)(i + 1);
    h.buffer_size = 1 << 20;
    h.buffer_count = 2;
    h.flags = ECC_HFLAG_MERGED;
    const char dict[] = "DICTIONARY BYTES";
    size_t len = ecc_file_header_size(sizeof dict);
    ck_assert_uint_eq(len, (ECC_HEADER_FIXED + sizeof dict + 7) & ~(size_t)7);
    uint8_t *b = malloc(len);
    ecc_file_header_encode(b, &h, dict, sizeof dict);
    ck_assert(memcmp(b, "ECLTRACE", 8) == 0);
    ck_assert_uint_eq(b[8] | b[9] << 8, 2);
    ck_assert_uint_eq(rd32(b + 12), len);
    ck_assert_uint_eq(b[20], 'L');
    ck_assert_uint_eq(b[21], 2);
    double tps;
    uint64_t bits = rd64(b + 24);
    memcpy(&tps, &bits, 8);
    ck_assert(tps == 2.5e9);
    ck_assert((int64_t)rd64(b + 32) == -5);
    ck_assert_uint_eq(rd32(b + 40), 4242);
    ck_assert_uint_eq(rd32(b + 44), 3);
    ck_assert_uint_eq(rd32(b + 48), 8);
    ck_assert_uint_eq(rd64(b + 56), 123456789);
    ck_assert_str_eq((const char *)b + 64, "node17");
    ck_assert_uint_eq(rd32(b + 128), ECC_HEADER_FIXED);
    ck_assert_uint_eq(rd32(b + 132), sizeof dict);
    ck_assert_uint_eq(b[136], 1);
    ck_assert_uint_eq(b[151], 16);
    ck_assert_uint_eq(rd32(b + 152), 1 << 20);
    ck_assert_uint_eq(rd32(b + 156), 2);
    ck_assert_uint_eq(rd32(b + 160), ECC_HFLAG_MERGED);
    ck_assert(memcmp(b + ECC_HEADER_FIXED, dict, sizeof dict) == 0);
    /* the CRC: over the header with its own field zero */
    uint32_t crc = rd32(b + 16);
    memset(b + 16, 0, 4);
    ck_assert_uint_eq(crc, (uint32_t)crc32(0, b, (uInt)len));
    ecc_put32(b + 16, crc);

    ecc_file_header d;
    uint64_t at;
    ck_assert_ptr_null(ecc_file_header_decode_fixed(b, len, &d, &at));
    ck_assert_ptr_null(ecc_file_header_check_crc(b, &d));
    ck_assert(d.rank == 3 && d.size == 8 && d.pid == 4242 && d.buffer_count == 2);
    ck_assert(memcmp(d.run_id, h.run_id, ECC_RUN_ID) == 0 && d.flags == ECC_HFLAG_MERGED);

    /* identity rewritten in place keeps the CRC right */
    uint8_t id[ECC_RUN_ID] = { 9 };
    ecc_file_header_set_identity(b, len, 5, 6, id);
    ck_assert_ptr_null(ecc_file_header_decode_fixed(b, len, &d, &at));
    ck_assert_ptr_null(ecc_file_header_check_crc(b, &d));
    ck_assert(d.rank == 5 && d.size == 6 && d.run_id[0] == 9);

    /* damage */
    b[100] ^= 1;
    ck_assert_ptr_nonnull(ecc_file_header_check_crc(b, &d));
    b[100] ^= 1;
    b[0] = 'X';
    ck_assert_ptr_nonnull(ecc_file_header_decode_fixed(b, len, &d, &at));
    ck_assert_uint_eq(at, 0);
    b[0] = 'E';
    b[8] = 3;                                   /* version 3: unknown */
    ck_assert_ptr_nonnull(ecc_file_header_decode_fixed(b, len, &d, &at));
    b[8] = 2;
    ecc_put32(b + 132, (uint32_t)len);          /* dictionary out of bounds */
    ck_assert_ptr_nonnull(ecc_file_header_decode_fixed(b, len, &d, &at));
    ck_assert_uint_eq(at, 128);
    free(b);

    /* a version-1 header (136-byte fixed part) still decodes */
    uint8_t v1[144];
    memset(v1, 0, sizeof v1);
    memcpy(v1, "ECLTRACE", 8);
    v1[8] = 1;
    ecc_put32(v1 + 12, 144);
    ecc_put32(v1 + 44, 0xFFFFFFFFu);
    ecc_put32(v1 + 128, 136);
    ecc_put32(v1 + 132, 8);
    ecc_put32(v1 + 16, (uint32_t)crc32(0, v1, 144));
    ck_assert_ptr_null(ecc_file_header_decode_fixed(v1, sizeof v1, &d, &at));
    ck_assert_ptr_null(ecc_file_header_check_crc(v1, &d));
    ck_assert(d.version_major == 1 && d.rank == -1 && d.dict_offset == 136 && d.flags == 0);
}
END_TEST

START_TEST(dictionary_packed)
{
    /* a dictionary worth compressing is stored as a zlib stream and comes
     * back whole; a small one is stored as it is */
    size_t n = 5000;
    uint8_t *dict = malloc(n);
    for (size_t i = 0; i < n; i++)
        dict[i] = (uint8_t)("EDLDICT record field uint32 ULEB "[i % 33]);
    for (int big = 0; big < 2; big++) {
        size_t len = big ? n : 100;
        ecc_file_header h;
        memset(&h, 0, sizeof h);
        uint8_t *packed;
        size_t plen;
        ck_assert_ptr_null(ecc_dict_pack(&h, dict, len, &packed, &plen));
        ck_assert_int_eq(!!(h.flags & ECC_HFLAG_DICT_ZLIB), big);
        ck_assert(big ? plen < len / 4 && h.dict_raw_length == len : plen == len);
        size_t hl = ecc_file_header_size(plen);
        uint8_t *b = malloc(hl);
        ecc_file_header_encode(b, &h, packed, plen);
        ecc_file_header d;
        uint64_t at;
        ck_assert_ptr_null(ecc_file_header_decode_fixed(b, hl, &d, &at));
        uint8_t *back;
        size_t blen;
        ck_assert_ptr_null(ecc_file_header_dict(b, &d, &back, &blen));
        ck_assert_uint_eq(blen, len);
        ck_assert(memcmp(back, dict, len) == 0);
        free(back);
        if (big) {
            /* a damaged stream is said to be, not returned */
            b[d.dict_offset + plen / 2] ^= 0x40;
            ck_assert_ptr_nonnull(ecc_file_header_dict(b, &d, &back, &blen));
        }
        free(b);
        free(packed);
    }
    free(dict);
}
END_TEST

START_TEST(chunk_header_layout)
{
    ecc_chunk c = { 1, 1, ECC_CFLAG_COPY, 1000, 4000, 0xFFFFFFFFu, 3, 77, 9, 123456789,
                    987654321, 0xDEADBEEF };
    uint8_t h[64];
    ecc_chunk_encode(h, &c);
    ck_assert(memcmp(h, "ECHK", 4) == 0);
    ck_assert_uint_eq(rd32(h + 4), (uint32_t)crc32(0, h + 8, 56));
    ck_assert_uint_eq(h[8], 1);
    ck_assert_uint_eq(h[9], 1);
    ck_assert_uint_eq(h[10] | h[11] << 8, ECC_CFLAG_COPY);
    ck_assert_uint_eq(rd32(h + 12), 1000);
    ck_assert_uint_eq(rd32(h + 16), 4000);
    ck_assert_uint_eq(rd32(h + 20), 0xFFFFFFFFu);
    ck_assert_uint_eq(rd32(h + 24), 3);
    ck_assert_uint_eq(rd32(h + 28), 77);
    ck_assert_uint_eq(rd64(h + 32), 9);
    ck_assert_uint_eq(rd64(h + 40), 123456789);
    ck_assert_uint_eq(rd64(h + 48), 987654321);
    ck_assert_uint_eq(rd32(h + 56), 0xDEADBEEF);
    ck_assert_uint_eq(rd32(h + 60), 0);
    ecc_chunk d;
    ck_assert_ptr_null(ecc_chunk_decode(h, &d));
    /* field by field: the struct has tail padding memcmp would read */
    ck_assert(d.kind == c.kind && d.compression == c.compression && d.flags == c.flags);
    ck_assert(d.stored_length == c.stored_length && d.raw_length == c.raw_length);
    ck_assert(d.process == c.process && d.stream == c.stream &&
              d.record_count == c.record_count);
    ck_assert(d.sequence == c.sequence && d.first_time == c.first_time &&
              d.last_time == c.last_time && d.payload_crc == c.payload_crc);
    ck_assert_ptr_null(ecc_chunk_check(&d, 2));
    /* what the header alone shows */
    ck_assert_ptr_nonnull(ecc_chunk_check(&d, 1));          /* copy flag unknown in 1.x */
    d.flags = 0x100;
    ck_assert_ptr_nonnull(ecc_chunk_check(&d, 2));
    d.flags = 0;
    d.compression = 0;
    ck_assert_ptr_nonnull(ecc_chunk_check(&d, 2));          /* raw != stored uncompressed */
    d.raw_length = 1000;
    ck_assert_ptr_null(ecc_chunk_check(&d, 2));
    d.record_count = 1001;
    ck_assert_ptr_nonnull(ecc_chunk_check(&d, 2));          /* more records than bytes */
    d.record_count = 0;
    ck_assert_ptr_nonnull(ecc_chunk_check(&d, 2));          /* 0 records, bytes */
    d.record_count = 5;
    d.compression = 9;
    ck_assert_ptr_nonnull(ecc_chunk_check(&d, 2));
    /* damaged headers */
    for (int i = 0; i < 64; i++) {
        h[i] ^= 0x10;
        ck_assert_ptr_nonnull(ecc_chunk_decode(h, &d));
        h[i] ^= 0x10;
    }
    ecc_put32(h + 12, 0x80000000u);
    ecc_put32(h + 4, (uint32_t)crc32(0, h + 8, 56));
    ck_assert_str_eq(ecc_chunk_decode(h, &d), "stored_length over 2^31");
}
END_TEST

/* ---------------------------------------------------------------- compression */

START_TEST(compression_roundtrip)
{
    size_t n = 65536;
    uint8_t *src = malloc(n), *back = malloc(n);
    for (size_t i = 0; i < n; i++)
        src[i] = (uint8_t)(i % 7 == 0 ? 2 : i % 13);
    for (int method = ECC_COMP_ZLIB; method <= ECC_COMP_ZSTD; method++) {
        if (!ecc_have_compression(method))
            continue;
        ecc_zctx *z = ecc_zctx_create(method, 1, n);
        ck_assert(z != NULL);
        ecc_inflater *inf = ecc_inflater_create();
        for (int rep = 0; rep < 3; rep++) {        /* the contexts are reused */
            const uint8_t *out;
            uint8_t used;
            size_t m = ecc_compress(z, src, n, &out, &used);
            ck_assert_int_eq(used, method);
            ck_assert(m < n / 4);
            if (method == ECC_COMP_ZLIB) {
                uLongf bl = (uLongf)n;
                ck_assert_int_eq(uncompress(back, &bl, out, (uLong)m), Z_OK);
                ck_assert_uint_eq(bl, n);
            }
            memset(back, 0, n);
            ck_assert_ptr_null(ecc_decompress(method, out, m, back, n));
            ck_assert(memcmp(src, back, n) == 0);
            /* streamed: input and output a few bytes at a time */
            memset(back, 0, n);
            ck_assert_ptr_null(ecc_inflater_reset(inf, method, n));
            const uint8_t *ip = out, *ie = out;
            uint8_t *op = back;
            int done = 0;
            for (int steps = 0; !done && steps < 10000000; steps++) {
                if (ie == ip && ie < out + m)
                    ie = ip + (out + m - ip < 7 ? (size_t)(out + m - ip) : 7);
                uint8_t *oe = op + ((size_t)(back + n - op) < 13 ? (size_t)(back + n - op) : 13);
                ck_assert_ptr_null(ecc_inflate(inf, &ip, ie, &op, oe, &done));
            }
            ck_assert(done);
            ck_assert(op == back + n && ip == out + m);
            ck_assert(memcmp(src, back, n) == 0);
            /* a damaged payload never decompresses to raw_length */
            uint8_t *bad = malloc(m);
            memcpy(bad, out, m);
            bad[m / 2] ^= 0x55;
            const char *why = ecc_decompress(method, bad, m, back, n);
            if (why == NULL)                       /* (a flip may keep it valid) */
                ck_assert(memcmp(src, back, n) != 0);
            ck_assert_ptr_nonnull(ecc_decompress(method, out, m - 1, back, n));
            ck_assert_ptr_nonnull(ecc_decompress(method, out, m, back, n - 1));
            free(bad);
        }
        /* incompressible input is stored raw */
        uint8_t rnd[256];
        for (size_t i = 0; i < sizeof rnd; i++)
            rnd[i] = (uint8_t)(i * 2654435761u >> 13);
        const uint8_t *out;
        uint8_t used;
        ck_assert_uint_eq(ecc_compress(z, rnd, 8, &out, &used), 8);
        ck_assert_int_eq(used, ECC_COMP_NONE);
        ck_assert(out == rnd);
        ecc_inflater_destroy(inf);
        ecc_zctx_destroy(z);
    }
    free(src);
    free(back);
}
END_TEST

/* ---------------------------------------------------------------- end summary */

static void collect(void *ctx, const ecc_end_stream *s)
{
    ecc_end_stream *v = ctx;
    v[s->stream] = *s;
}

START_TEST(end_summary_roundtrip)
{
    ecc_end_stream ss[3] = { { 0, 4, 9 }, { 1, 100, 123456 }, { 2, 0, 0 } };
    ecc_end e = { 11, 5, 7, 3, ss };
    uint8_t buf[256];
    ck_assert(ecc_end_size(3) <= sizeof buf);
    size_t n = ecc_end_encode(buf, &e);
    ecc_end d;
    ecc_end_stream got[3];
    memset(got, 0, sizeof got);
    ck_assert_ptr_null(ecc_end_decode(buf, n, &d, collect, got));
    ck_assert(d.signal == 11 && d.lost == 5 && d.lost_unbuffered == 7 && d.nstreams == 3);
    ck_assert(got[1].chunks == 100 && got[1].records == 123456 && got[0].records == 9);
    for (size_t cut = 0; cut < n; cut++)
        ck_assert_ptr_nonnull(ecc_end_decode(buf, cut, &d, NULL, NULL));
    buf[n] = 0;
    ck_assert_ptr_nonnull(ecc_end_decode(buf, n + 1, &d, NULL, NULL));
}
END_TEST

/* ---------------------------------------------------------------- scanner */

/* A file of: 8 junk bytes, chunk A (kind 1, 10 bytes), chunk B (kind 2,
 * 5 bytes), footer. */
static size_t build_file(uint8_t *f, size_t *a_off, size_t *b_off)
{
    size_t n = 0;
    memset(f, 0x11, 8);
    n = 8;
    uint8_t pay[10] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
    ecc_chunk c = { 1, 0, 0, 10, 10, 0, 1, 10, 0, 5, 50, 0 };
    c.payload_crc = ecc_crc32(0, pay, 10);
    *a_off = n;
    ecc_chunk_encode(f + n, &c);
    memcpy(f + n + 64, pay, 10);
    n += 74;
    ecc_chunk c2 = { 2, 0, 0, 5, 5, 0, 0, 0, 1, 0, 0, 0 };
    c2.payload_crc = ecc_crc32(0, pay, 5);
    *b_off = n;
    ecc_chunk_encode(f + n, &c2);
    memcpy(f + n + 64, pay, 5);
    n += 69;
    ecc_footer_encode(f + n, *a_off);
    return n + 16;
}

static int write_tmp(const uint8_t *b, size_t n, char *path)
{
    strcpy(path, "/tmp/ecc-scan-XXXXXX");
    int fd = mkstemp(path);
    ck_assert(fd >= 0);
    ck_assert(write(fd, b, n) == (ssize_t)n);
    return fd;
}

START_TEST(scanner_events)
{
    uint8_t f[512];
    size_t a, b;
    size_t n = build_file(f, &a, &b);
    char path[64];
    int fd = write_tmp(f, n, path);
    ecc_scan s;
    ecc_event ev;
    /* from 0: damage (8 junk bytes), A, B, footer, end */
    ecc_scan_init(&s, fd, n, 0);
    ecc_scan_next(&s, &ev);
    ck_assert_int_eq(ev.type, ECC_EV_DAMAGE);
    ck_assert(ev.offset == 0 && ev.length == 8);
    ecc_scan_next(&s, &ev);
    ck_assert_int_eq(ev.type, ECC_EV_CHUNK);
    ck_assert(ev.offset == a && ev.chunk.kind == 1 && ev.length == 74);
    uint8_t pay[16];
    ck_assert_ptr_null(ecc_read_payload(fd, &ev, pay));
    ck_assert_uint_eq(pay[9], 10);
    ecc_scan_next(&s, &ev);
    ck_assert(ev.type == ECC_EV_CHUNK && ev.offset == b && ev.chunk.kind == 2);
    ecc_scan_next(&s, &ev);
    ck_assert(ev.type == ECC_EV_FOOTER && ev.index_offset == a);
    ecc_scan_next(&s, &ev);
    ck_assert_int_eq(ev.type, ECC_EV_END);
    /* every cut: whole chunks before it, then a cut (or the end) */
    for (size_t cut = a; cut < n; cut++) {
        ecc_scan_init(&s, fd, cut, a);
        int chunks = 0, cuts = 0;
        for (;;) {
            ecc_scan_next(&s, &ev);
            if (ev.type == ECC_EV_END)
                break;
            chunks += ev.type == ECC_EV_CHUNK;
            cuts += ev.type == ECC_EV_CUT;
            ck_assert(ev.type != ECC_EV_DAMAGE && ev.type != ECC_EV_FOOTER);
        }
        int want = cut >= b + 69 ? 2 : cut >= b ? 1 : 0;
        ck_assert_int_eq(chunks, want);
        int want_cut = cut == a || cut == a + 74 || cut == b + 69 ? 0 : 1;
        ck_assert_msg(cuts == want_cut, "cut %zu: %d cuts", cut, cuts);
    }
    /* a flipped byte in A's header: damage, then B found by resync */
    f[a + 30] ^= 1;
    ck_assert(pwrite(fd, f, n, 0) == (ssize_t)n);
    ecc_scan_init(&s, fd, n, a);
    ecc_scan_next(&s, &ev);
    ck_assert(ev.type == ECC_EV_DAMAGE && ev.offset == a && ev.length == b - a);
    ecc_scan_next(&s, &ev);
    ck_assert(ev.type == ECC_EV_CHUNK && ev.offset == b);
    /* a flipped payload byte: the chunk is found, its CRC fails */
    f[a + 30] ^= 1;
    f[a + 64 + 3] ^= 1;
    ck_assert(pwrite(fd, f, n, 0) == (ssize_t)n);
    ecc_scan_init(&s, fd, n, a);
    ecc_scan_next(&s, &ev);
    ck_assert(ev.type == ECC_EV_CHUNK && ev.offset == a);
    ck_assert_ptr_nonnull(ecc_read_payload(fd, &ev, pay));
    ck_assert_int_eq((int)ecc_resync(fd, n, a + 1), (int)b);
    ck_assert_int_eq((int)ecc_resync(fd, n, b + 1), (int)(n - 16));   /* the footer */
    close(fd);
    unlink(path);
}
END_TEST

/* Through a window (ecc_scan_buffer): the same events as pread by pread, at
 * every cut and window size, and payloads found in the window. */
START_TEST(scanner_window)
{
    uint8_t f[512];
    size_t a, b;
    size_t n = build_file(f, &a, &b);
    char path[64];
    int fd = write_tmp(f, n, path);
    static const size_t caps[] = { 64, 65, 100, 137, 200, 4096 };
    for (size_t ci = 0; ci < sizeof caps / sizeof *caps; ci++) {
        for (size_t cut = 0; cut <= n; cut++) {
            uint8_t win[4096];
            ecc_scan s1, s2;
            ecc_scan_init(&s1, fd, cut, 0);
            ecc_scan_init(&s2, fd, cut, 0);
            ecc_scan_buffer(&s2, win, caps[ci]);
            for (;;) {
                ecc_event e1, e2;
                ecc_scan_next(&s1, &e1);
                ecc_scan_next(&s2, &e2);
                ck_assert_msg(e1.type == e2.type && e1.offset == e2.offset &&
                              e1.length == e2.length && e1.index_offset == e2.index_offset,
                              "window %zu, cut %zu: event at %llu differs", caps[ci], cut,
                              (unsigned long long)e1.offset);
                if (e1.type == ECC_EV_CHUNK) {
                    const uint8_t *p = ecc_scan_bytes(&s2, e2.offset + 64,
                                                      e2.chunk.stored_length);
                    if (p)
                        ck_assert(memcmp(p, f + e2.offset + 64, e2.chunk.stored_length) == 0);
                    else
                        ck_assert(caps[ci] < 64 + e2.chunk.stored_length);
                }
                if (e1.type == ECC_EV_END || e1.type == ECC_EV_IOERR)
                    break;
            }
        }
    }
    close(fd);
    unlink(path);
}
END_TEST

/* ---------------------------------------------------------------- output files */

START_TEST(output_files)
{
    char dir[] = "/tmp/ecc-out-XXXXXX", p[256], q[256], err[512];
    ck_assert(mkdtemp(dir) != NULL);
    ecc_out *o;
    /* a new file appears only at commit, whole */
    snprintf(p, sizeof p, "%s/new", dir);
    ck_assert_int_eq(ecc_out_open(p, 0, &o, err, sizeof err), 0);
    ck_assert_int_eq(access(p, F_OK), -1);
    ck_assert_int_eq(ecc_out_write(o, "abc", 3, err, sizeof err), 0);
    ck_assert_int_eq(ecc_out_commit(o, err, sizeof err), 0);
    struct stat sb;
    ck_assert(stat(p, &sb) == 0 && sb.st_size == 3);
    /* an aborted rewrite leaves the old file and no temporary */
    ck_assert_int_eq(ecc_out_open(p, 0, &o, err, sizeof err), 0);
    ck_assert_int_eq(ecc_out_write(o, "abcdef", 6, err, sizeof err), 0);
    ecc_out_abort(o);
    ck_assert(stat(p, &sb) == 0 && sb.st_size == 3);
    int entries = 0;
    FILE *ls;
    char cmd[300];
    snprintf(cmd, sizeof cmd, "ls -A %s | wc -l", dir);
    ls = popen(cmd, "r");
    ck_assert(fscanf(ls, "%d", &entries) == 1);
    pclose(ls);
    ck_assert_int_eq(entries, 1);
    /* a FIFO and a symbolic link are refused, unless written through */
    snprintf(q, sizeof q, "%s/fifo", dir);
    ck_assert_int_eq(mkfifo(q, 0600), 0);
    ck_assert_int_eq(ecc_out_open(q, 0, &o, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "a FIFO"));
    snprintf(q, sizeof q, "%s/link", dir);
    ck_assert_int_eq(symlink(p, q), 0);
    ck_assert_int_eq(ecc_out_open(q, 0, &o, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "a symbolic link"));
    ck_assert(lstat(q, &sb) == 0 && S_ISLNK(sb.st_mode));
    ck_assert_int_eq(ecc_out_open(q, ECC_OUT_THROUGH, &o, err, sizeof err), 0);
    ck_assert_int_eq(ecc_out_write(o, "xy", 2, err, sizeof err), 0);
    ck_assert_int_eq(ecc_out_commit(o, err, sizeof err), 0);
    ck_assert(lstat(q, &sb) == 0 && S_ISLNK(sb.st_mode));     /* still a link */
    ck_assert(stat(p, &sb) == 0 && sb.st_size == 2);          /* its target written */
    /* a directory, never */
    ck_assert_int_eq(ecc_out_open(dir, ECC_OUT_THROUGH, &o, err, sizeof err), -1);
    /* names another library creates (libotf2's): the same check, nothing made */
    ck_assert_int_eq(ecc_out_check(q, 0, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "a symbolic link"));
    ck_assert_int_eq(ecc_out_check(q, ECC_OUT_THROUGH, err, sizeof err), 0);
    ck_assert_int_eq(ecc_out_check(p, 0, err, sizeof err), 0);
    snprintf(q, sizeof q, "%s/absent", dir);
    ck_assert_int_eq(ecc_out_check(q, 0, err, sizeof err), 0);
    ck_assert_int_eq(access(q, F_OK), -1);
    /* output directories: made when missing, kept when there; a link to one
     * only written through, a FIFO or a file never */
    int created;
    snprintf(q, sizeof q, "%s/d", dir);
    ck_assert_int_eq(ecc_out_dir(q, 0, &created, err, sizeof err), 0);
    ck_assert_int_eq(created, 1);
    ck_assert_int_eq(ecc_out_dir(q, 0, &created, err, sizeof err), 0);
    ck_assert_int_eq(created, 0);
    char l[300];
    snprintf(l, sizeof l, "%s/dlink", dir);
    ck_assert_int_eq(symlink(q, l), 0);
    ck_assert_int_eq(ecc_out_dir(l, 0, &created, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "a symbolic link"));
    ck_assert_int_eq(ecc_out_dir(l, ECC_OUT_THROUGH, &created, err, sizeof err), 0);
    snprintf(l, sizeof l, "%s/fifo", dir);
    ck_assert_int_eq(ecc_out_dir(l, ECC_OUT_THROUGH, &created, err, sizeof err), -1);
    ck_assert_ptr_nonnull(strstr(err, "a FIFO"));
    ck_assert_int_eq(ecc_out_dir(p, ECC_OUT_THROUGH, &created, err, sizeof err), -1);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ck_assert_int_eq(system(cmd), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("container");
    TCase *tc = tcase_create("codec");
    tcase_add_test(tc, uleb_boundaries);
    tcase_add_test(tc, sleb_zigzag);
    tcase_add_test(tc, crc_matches_zlib);
    tcase_add_test(tc, file_header_layout);
    tcase_add_test(tc, dictionary_packed);
    tcase_add_test(tc, chunk_header_layout);
    tcase_add_test(tc, compression_roundtrip);
    tcase_add_test(tc, end_summary_roundtrip);
    tcase_add_test(tc, scanner_events);
    tcase_add_test(tc, scanner_window);
    tcase_add_test(tc, output_files);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? 1 : 0;
}
