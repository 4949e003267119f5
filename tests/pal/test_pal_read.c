/* test_pal_read.c -- PAL readers on traces written by the test builder with
 * made-up formats: round trips (uncompressed, zlib, zstd; both byte orders),
 * a dictionary chunk adding a type mid-file, index and footer, two-key binds,
 * raw record streams, chunks and records larger than the read window, the
 * file header checks and the dictionary errors of pal_reader_open. */
#include <config.h>

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pal/pal.h"
#include "tests/pal/labdict.h"
#include "tests/pal/tracebuild.h"

static char path[] = "pal-read-XXXXXX";
static char dpath[] = "pal-read-dict-XXXXXX";

static void setup(void)
{
    strcpy(path, "pal-read-XXXXXX");
    strcpy(dpath, "pal-read-dict-XXXXXX");
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    fd = mkstemp(dpath);
    ck_assert_int_ge(fd, 0);
    close(fd);
}

static void teardown(void)
{
    unlink(path);
    unlink(dpath);
}

static void write_dict(const edl_dict *d, const char *p)
{
    unsigned char *b;
    size_t n;
    ck_assert_int_eq(edl_dict_encode(d, &b, &n), EDL_OK);
    ck_assert_int_eq(tb_write_bytes(p, b, n), 0);
    free(b);
}

static pal_reader *open_ok(const char *dict)
{
    pal_reader *r;
    pal_status st = pal_reader_open(path, dict, &r);
    ck_assert_msg(st == PAL_OK, "open: %s: %s", pal_status_string(st), pal_last_error());
    return r;
}

static void no_damage(pal_reader *r)
{
    pal_reader_stats s;
    pal_reader_get_stats(r, &s);
    ck_assert_msg(s.damaged == 0 && !s.truncated && s.bytes_skipped == 0, "damage: %s",
                  pal_reader_error(r));
}

/* ---------------------------------------------------------------- round trip */

/* Writes n pings/notes/samples per chunk with the given compression and reads
 * every field back by name and by handle. */
static void round_trip(int compression, char order)
{
    edl_dict *d = lab_dict(order, EDL_FRAMING_ECL);
    tb *t = tb_create(d);
    char text[64];
    uint64_t time = 77;
    int nrec = 0;
    for (int c = 0; c < 5; c++) {
        tb_chunk_opts o = {0};
        o.compression = compression;
        tb_chunk_begin(t, (uint32_t)c % 2, (uint32_t)c, time);
        for (int i = 0; i < 300; i++, nrec++) {
            time += 1 + (uint64_t)(i * 131 % 1000);   /* records come in time order */
            if (i % 3 == 0) {
                tb_val v[] = {TB_U(time), TB_U(10), TB_U(nrec), TB_F(nrec * 0.25)};
                tb_record(t, "ping", v);
            } else if (i % 3 == 1) {
                snprintf(text, sizeof text, "note %d", nrec);
                tb_val v[] = {TB_U(time), TB_U(20), TB_I(nrec % 256 - 128), TB_S(text)};
                tb_record(t, "note", v);
            } else {
                tb_val v[] = {TB_U(time), TB_U(30), TB_U(nrec % 256), TB_I(-nrec),
                              TB_I(nrec * -1000), TB_U((uint64_t)nrec << 33), TB_I(-nrec),
                              TB_F(0.5), TB_U(nrec), TB_I(nrec % 100), TB_U(nrec),
                              TB_I(-nrec), TB_U(nrec), TB_I((int64_t)nrec << 40)};
                tb_record(t, "sample", v);
            }
        }
        tb_chunk_end(t, &o);
    }
    ck_assert_int_eq(tb_write(t, path), 0);
    size_t nr;
    const tb_rec_info *ri = tb_records(t, &nr);

    pal_reader *r = open_ok(NULL);
    const pal_handle *hseq, *htext, *hbig, *hi64;
    ck_assert_int_eq(pal_reader_handle(r, "seq", &hseq), PAL_OK);
    ck_assert_int_eq(pal_reader_handle(r, "text", &htext), PAL_OK);
    ck_assert_int_eq(pal_reader_handle(r, "big", &hbig), PAL_OK);
    ck_assert_int_eq(pal_reader_handle(r, "i64", &hi64), PAL_OK);
    const pal_record *rec;
    int n = 0;
    while (pal_reader_next(r, &rec) == PAL_OK) {
        ck_assert_uint_eq(pal_recdesc_index(pal_record_desc(rec)), ri[n].record);
        ck_assert_uint_eq(pal_record_time(rec), ri[n].time);
        ck_assert_uint_eq(pal_record_stream(rec), (uint32_t)(n / 300));
        ck_assert_uint_eq(pal_record_process(rec), (uint32_t)(n / 300 % 2));
        uint64_t u;
        int64_t i;
        double f;
        const char *s;
        size_t len;
        if (n % 3 == 0) {
            ck_assert_int_eq(pal_record_get_u64(rec, "seq", &u), PAL_OK);
            ck_assert_uint_eq(u, (uint64_t)n);
            ck_assert_int_eq(pal_record_u64(rec, hseq, &u), PAL_OK);
            ck_assert_uint_eq(u, (uint64_t)n);
            ck_assert_int_eq(pal_record_get_f64(rec, "rtt", &f), PAL_OK);
            ck_assert(f == n * 0.25);
        } else if (n % 3 == 1) {
            snprintf(text, sizeof text, "note %d", n);
            ck_assert_int_eq(pal_record_str(rec, htext, &s, &len), PAL_OK);
            ck_assert_uint_eq(len, strlen(text));
            ck_assert(memcmp(s, text, len) == 0);
            ck_assert_int_eq(pal_record_get_i64(rec, "level", &i), PAL_OK);
            ck_assert_int_eq(i, n % 256 - 128);
        } else {
            ck_assert_int_eq(pal_record_u64(rec, hbig, &u), PAL_OK);
            ck_assert_uint_eq(u, (uint64_t)n << 33);
            ck_assert_int_eq(pal_record_i64(rec, hi64, &i), PAL_OK);
            ck_assert_int_eq(i, (int64_t)n << 40);
            ck_assert_int_eq(pal_record_get_i64(rec, "wide", &i), PAL_OK);
            ck_assert_int_eq(i, -n);
            ck_assert_int_eq(pal_record_get_i64(rec, "delta", &i), PAL_OK);
            ck_assert_int_eq(i, n * -1000);
            ck_assert_int_eq(pal_record_get_u64(rec, "hits", &u), PAL_OK);
            ck_assert_uint_eq(u, (uint64_t)n);
            ck_assert_int_eq(pal_record_get_f64(rec, "load", &f), PAL_OK);
            ck_assert(f == 0.5);
        }
        n++;
    }
    ck_assert_int_eq(n, nrec);
    no_damage(r);
    pal_reader_stats s;
    pal_reader_get_stats(r, &s);
    ck_assert_uint_eq(s.records, (uint64_t)nrec);
    ck_assert_uint_eq(s.chunks, 5);
    pal_reader_close(r);
    tb_destroy(t);
    edl_dict_destroy(d);
}

/* Values of one to five LEB bytes, with the types' limits among them. */
static uint64_t shape_u32(int i)
{
    static const uint64_t v[] = {0, 1, 127, 128, 300, 16383, 16384, 65535, 65536,
                                 2097151, 2097152, 268435455, 268435456, UINT32_MAX};
    return v[i % (int)(sizeof v / sizeof v[0])];
}

static uint64_t shape_u16(int i)
{
    static const uint64_t v[] = {0, 5, 127, 128, 255, 256, 16383, 16384, 40000, 65535};
    return v[i % (int)(sizeof v / sizeof v[0])];
}

/* The key-first format takes the readers' fast paths: every value back, LEBs of
 * one to ten bytes, type limits, records of the key alone, two TDELTAs, and
 * the kernels for the time followed by ULEBs. */
START_TEST(round_trip_fast_paths)
{
    edl_dict *d = tick_dict();
    tb *t = tb_create(d);
    uint64_t time = 3;
    for (int c = 0; c < 4; c++) {
        tb_chunk_opts o = {0};
        o.compression = c == 1 ? TB_ZLIB : TB_NONE;
        tb_chunk_begin(t, 0, 1, time);
        for (int i = 0; i < 5000; i++) {
            time += i % 7 == 0 ? 1000000 : i % 11 == 0 ? 20000 : (uint64_t)(i % 300);
            int k = i % 9;
            if (k == 0) {
                tb_val v[] = {TB_U(1), TB_U(time), TB_U(i % 256), TB_I(i % 256 - 128)};
                tb_record(t, "beat", v);
            } else if (k == 1) {
                tb_val v[] = {TB_U(2), TB_U(time), TB_U(i % 3 ? (uint64_t)i << (i % 57) : UINT64_MAX),
                              TB_I(i % 3 ? -((int64_t)i << (i % 50)) : INT64_MIN)};
                tb_record(t, "pulse", v);
            } else if (k == 2) {
                tb_val v[] = {TB_U(3), TB_U(time), TB_S(i % 2 ? "odd" : ""), TB_F(i)};
                tb_record(t, "label", v);
            } else if (k == 3) {
                tb_val v[] = {TB_U(4)};
                tb_record(t, "bare", v);
            } else if (k == 4) {
                tb_val v[] = {TB_U(5), TB_U(time), TB_U(time + 9)};
                tb_record(t, "clock", v);
                time += 9;
            } else if (k == 5) {
                tb_val v[] = {TB_U(6), TB_U(time)};
                tb_record(t, "mark", v);
            } else if (k == 6) {
                tb_val v[] = {TB_U(7), TB_U(time), TB_U(shape_u32(i))};
                tb_record(t, "enter", v);
            } else if (k == 7) {
                tb_val v[] = {TB_U(8), TB_U(time), TB_U(shape_u32(i + 1)), TB_U(shape_u16(i))};
                tb_record(t, "span", v);
            } else {
                tb_val v[] = {TB_U(9), TB_U(time), TB_U(i % 4 ? (uint64_t)i << (i % 60) : UINT64_MAX),
                              TB_U(shape_u32(i + 2)), TB_U(shape_u16(i + 1))};
                tb_record(t, "wide", v);
            }
        }
        tb_chunk_end(t, &o);
    }
    ck_assert_int_eq(tb_write(t, path), 0);
    size_t nr;
    const tb_rec_info *ri = tb_records(t, &nr);
    pal_reader *r = open_ok(NULL);
    const pal_handle *hn, *hd, *hv, *hs, *habs, *htext, *hw;
    ck_assert_int_eq(pal_reader_handle(r, "n", &hn), PAL_OK);
    ck_assert_int_eq(pal_reader_handle(r, "d", &hd), PAL_OK);
    ck_assert_int_eq(pal_reader_handle(r, "v", &hv), PAL_OK);
    ck_assert_int_eq(pal_reader_handle(r, "s", &hs), PAL_OK);
    ck_assert_int_eq(pal_reader_handle(r, "abs", &habs), PAL_OK);
    ck_assert_int_eq(pal_reader_handle(r, "text", &htext), PAL_OK);
    ck_assert_int_eq(pal_reader_handle(r, "w", &hw), PAL_OK);
    const pal_handle *hregion, *ha, *hb, *hc;
    ck_assert_int_eq(pal_reader_handle(r, "region", &hregion), PAL_OK);
    ck_assert_int_eq(pal_reader_handle(r, "a", &ha), PAL_OK);
    ck_assert_int_eq(pal_reader_handle(r, "b", &hb), PAL_OK);
    ck_assert_int_eq(pal_reader_handle(r, "c", &hc), PAL_OK);
    const pal_record *rec;
    size_t n = 0;
    while (pal_reader_next(r, &rec) == PAL_OK) {
        int i = (int)(n % 5000), k = i % 9;
        uint64_t u;
        int64_t v;
        double f;
        const char *str;
        size_t len;
        ck_assert_uint_lt(n, nr);
        ck_assert_uint_eq(pal_recdesc_index(pal_record_desc(rec)), ri[n].record);
        ck_assert_uint_eq(pal_record_time(rec), ri[n].time);
        ck_assert_int_eq(pal_record_get_u64(rec, "kind", &u), PAL_OK);
        ck_assert_uint_eq(u, (uint64_t)k + 1);
        if (k == 0) {
            ck_assert_int_eq(pal_record_u64(rec, hn, &u), PAL_OK);
            ck_assert_uint_eq(u, (uint64_t)(i % 256));
            ck_assert_int_eq(pal_record_i64(rec, hd, &v), PAL_OK);
            ck_assert_int_eq(v, i % 256 - 128);
        } else if (k == 1) {
            ck_assert_int_eq(pal_record_u64(rec, hv, &u), PAL_OK);
            ck_assert(u == (i % 3 ? (uint64_t)i << (i % 57) : UINT64_MAX));
            ck_assert_int_eq(pal_record_i64(rec, hs, &v), PAL_OK);
            ck_assert(v == (i % 3 ? -((int64_t)i << (i % 50)) : INT64_MIN));
        } else if (k == 2) {
            ck_assert_int_eq(pal_record_str(rec, htext, &str, &len), PAL_OK);
            ck_assert_uint_eq(len, i % 2 ? 3 : 0);
            ck_assert_int_eq(pal_record_f64(rec, hw, &f), PAL_OK);
            ck_assert(f == i);
        } else if (k == 3) {
            ck_assert_uint_eq(pal_recdesc_field_count(pal_record_desc(rec)), 1);
            ck_assert_uint_eq(pal_record_time(rec), 0);     /* no time field */
        } else if (k == 4) {
            ck_assert_int_eq(pal_record_u64(rec, habs, &u), PAL_OK);
            ck_assert_uint_eq(u, ri[n].time + 9);
        } else if (k == 5) {
            ck_assert_uint_eq(pal_recdesc_field_count(pal_record_desc(rec)), 2);
            ck_assert_int_eq(pal_record_u64(rec, hregion, &u), PAL_ENOFIELD);
        } else if (k == 6) {
            ck_assert_int_eq(pal_record_u64(rec, hregion, &u), PAL_OK);
            ck_assert_uint_eq(u, shape_u32(i));
            ck_assert_int_eq(pal_record_get_u64(rec, "region", &u), PAL_OK);
            ck_assert_uint_eq(u, shape_u32(i));
        } else if (k == 7) {
            ck_assert_int_eq(pal_record_u64(rec, ha, &u), PAL_OK);
            ck_assert_uint_eq(u, shape_u32(i + 1));
            ck_assert_int_eq(pal_record_u64(rec, hb, &u), PAL_OK);
            ck_assert_uint_eq(u, shape_u16(i));
        } else {
            ck_assert_int_eq(pal_record_u64(rec, ha, &u), PAL_OK);
            ck_assert(u == (i % 4 ? (uint64_t)i << (i % 60) : UINT64_MAX));
            ck_assert_int_eq(pal_record_u64(rec, hb, &u), PAL_OK);
            ck_assert_uint_eq(u, shape_u32(i + 2));
            ck_assert_int_eq(pal_record_u64(rec, hc, &u), PAL_OK);
            ck_assert_uint_eq(u, shape_u16(i + 1));
        }
        n++;
    }
    ck_assert_uint_eq(n, nr);
    no_damage(r);
    pal_reader_close(r);
    tb_destroy(t);
    edl_dict_destroy(d);
}
END_TEST

START_TEST(round_trip_none) { round_trip(TB_NONE, 'L'); round_trip(TB_NONE, 'B'); }
END_TEST
START_TEST(round_trip_zlib) { round_trip(TB_ZLIB, 'B'); }
END_TEST
START_TEST(round_trip_zstd)
{
#ifdef HAVE_ZSTD
    round_trip(TB_ZSTD, 'L');
#endif
}
END_TEST

/* ---------------------------------------------------------------- structure */

START_TEST(dict_chunk_and_index)
{
    edl_dict *d = lab_dict('B', EDL_FRAMING_ECL);
    tb *t = tb_create(d);
    lab_build_small(t, d);
    ck_assert_int_eq(tb_write(t, path), 0);
    pal_reader *r = open_ok(NULL);
    const pal_dict *pd = pal_reader_dict(r);
    /* collected ahead: the type added mid-file is known before any record */
    ck_assert_uint_eq(pal_dict_record_count(pd), 5);
    const pal_recdesc *alarm = pal_dict_find_record(pd, "alarm");
    ck_assert_ptr_nonnull(alarm);
    const pal_handle *msg;
    ck_assert_int_eq(pal_reader_handle(r, "msg", &msg), PAL_OK);
    const pal_record *rec;
    int n = 0, alarms = 0;
    while (pal_reader_next(r, &rec) == PAL_OK) {
        const char *s;
        size_t len;
        if (pal_record_desc(rec) == alarm) {
            ck_assert_int_eq(pal_record_str(rec, msg, &s, &len), PAL_OK);
            ck_assert(len == 9 && memcmp(s, "disk full", 9) == 0);
            alarms++;
        }
        n++;
    }
    ck_assert_int_eq(n, 9);
    ck_assert_int_eq(alarms, 1);
    no_damage(r);
    pal_reader_stats s;
    pal_reader_get_stats(r, &s);
    ck_assert_uint_eq(s.chunks, 4);         /* 3 record chunks + 1 dictionary chunk */
    /* descriptors handed out stay put */
    ck_assert_ptr_eq(pal_dict_find_record(pd, "alarm"), alarm);

    pal_trace_info in;
    ck_assert_int_eq(pal_reader_info(r, &in), PAL_OK);
    ck_assert_int_eq(in.rank, 3);
    ck_assert_int_eq(in.size, 4);
    ck_assert_str_eq(in.host, "lab-host");
    ck_assert(in.ticks_per_second == 1e6);
    ck_assert_uint_eq(in.pid, 4242);
    ck_assert_uint_eq(in.start_time, 1000);
    ck_assert_int_eq(in.clock_source, 1);
    ck_assert(in.realtime_offset_ns == 1700000000000000000LL);
    ck_assert_str_eq(pal_reader_error(r), "");
    /* the end stays the end */
    ck_assert_int_eq(pal_reader_next(r, &rec), PAL_END);
    pal_reader_close(r);
    tb_destroy(t);
    edl_dict_destroy(d);
}
END_TEST

START_TEST(empty_trace)
{
    edl_dict *d = lab_dict('L', EDL_FRAMING_ECL);
    tb *t = tb_create(d);
    ck_assert_int_eq(tb_write(t, path), 0);
    pal_reader *r = open_ok(NULL);
    const pal_record *rec;
    ck_assert_int_eq(pal_reader_next(r, &rec), PAL_END);
    no_damage(r);
    pal_reader_close(r);
    tb_destroy(t);
    edl_dict_destroy(d);
}
END_TEST

START_TEST(process_from_header)
{
    edl_dict *d = lab_dict('L', EDL_FRAMING_ECL);
    tb *t = tb_create(d);
    tb_set_header(t, 9, 16, "h", 1e6);
    tb_chunk_opts o = {0};
    o.set_process = 1;
    o.process = 0xFFFFFFFFu;
    tb_chunk_begin(t, 0, 2, 5);
    tb_val v[] = {TB_U(5), TB_U(10), TB_U(1), TB_F(1)};
    tb_record(t, "ping", v);
    tb_chunk_end(t, &o);
    ck_assert_int_eq(tb_write(t, path), 0);
    pal_reader *r = open_ok(NULL);
    const pal_record *rec;
    ck_assert_int_eq(pal_reader_next(r, &rec), PAL_OK);
    ck_assert_uint_eq(pal_record_process(rec), 9);
    ck_assert_uint_eq(pal_record_stream(rec), 2);
    pal_reader_close(r);
    tb_destroy(t);
    edl_dict_destroy(d);
}
END_TEST

START_TEST(two_keys)
{
    edl_dict *d = pair_dict();
    tb *t = tb_create(d);
    tb_chunk_begin(t, 0, 1, 0);
    tb_val open1[] = {TB_U(1), TB_U(1), TB_U(100), TB_I(-3)};
    tb_val close1[] = {TB_U(1), TB_U(2), TB_U(200), TB_I(7)};
    tb_val other[] = {TB_U(1), TB_U(9), TB_U(300)};
    tb_val two[] = {TB_U(2), TB_U(5), TB_U(400)};
    tb_record(t, "open", open1);
    tb_record(t, "close", close1);
    tb_record(t, "other", other);
    tb_record(t, "two", two);
    tb_chunk_end(t, NULL);
    ck_assert_int_eq(tb_write(t, path), 0);
    pal_reader *r = open_ok(NULL);
    static const char *const names[] = {"open", "close", "other", "two"};
    const pal_record *rec;
    int n = 0;
    while (pal_reader_next(r, &rec) == PAL_OK) {
        ck_assert_str_eq(pal_recdesc_name(pal_record_desc(rec)), names[n]);
        ck_assert_uint_eq(pal_record_time(rec), (uint64_t)(n + 1) * 100);
        n++;
    }
    ck_assert_int_eq(n, 4);
    no_damage(r);
    pal_trace_info in;
    pal_reader_info(r, &in);
    ck_assert(in.ticks_per_second == 1e9);   /* unit "ns" */
    pal_reader_close(r);
    tb_destroy(t);
    edl_dict_destroy(d);
}
END_TEST

START_TEST(big_chunk_and_strings)
{
    /* a chunk and a string larger than the read window */
    edl_dict *d = lab_dict('L', EDL_FRAMING_ECL);
    tb *t = tb_create(d);
    size_t big = 700000;
    char *text = malloc(big + 1);
    memset(text, 'z', big);
    text[big] = '\0';
    tb_chunk_opts o = {0};
    for (int c = 0; c < 3; c++) {
        o.compression = c == 1 ? TB_ZLIB : TB_NONE;
        tb_chunk_begin(t, 0, 1, 10);
        tb_val v[] = {TB_U(10), TB_U(20), TB_I(1), TB_S(text)};
        tb_record(t, "note", v);
        for (int i = 0; i < 50000; i++) {
            tb_val p[] = {TB_U(11 + i), TB_U(10), TB_U(i), TB_F(i)};
            tb_record(t, "ping", p);
        }
        tb_chunk_end(t, &o);
    }
    ck_assert_int_eq(tb_write(t, path), 0);
    pal_reader *r = open_ok(NULL);
    const pal_record *rec;
    int n = 0;
    while (pal_reader_next(r, &rec) == PAL_OK) {
        if (n % 50001 == 0) {
            const char *s;
            size_t len;
            ck_assert_int_eq(pal_record_get_str(rec, "text", &s, &len), PAL_OK);
            ck_assert_uint_eq(len, big);
            ck_assert(s[0] == 'z' && s[big - 1] == 'z');
        }
        n++;
    }
    ck_assert_int_eq(n, 3 * 50001);
    no_damage(r);
    pal_reader_close(r);
    tb_destroy(t);
    edl_dict_destroy(d);

    /* the same in a raw stream */
    d = flat_dict();
    t = tb_create_raw(d);
    for (int i = 0; i < 5; i++) {
        tb_val v[] = {TB_U(i), TB_F(0), TB_S(i == 2 ? text : "small"), TB_U(i)};
        tb_record(t, "row", v);
    }
    ck_assert_int_eq(tb_write(t, path), 0);
    write_dict(d, dpath);
    r = open_ok(dpath);
    n = 0;
    while (pal_reader_next(r, &rec) == PAL_OK) {
        const char *s;
        size_t len;
        ck_assert_int_eq(pal_record_get_str(rec, "label", &s, &len), PAL_OK);
        ck_assert_uint_eq(len, n == 2 ? big : 5);
        n++;
    }
    ck_assert_int_eq(n, 5);
    no_damage(r);
    pal_reader_close(r);
    tb_destroy(t);
    edl_dict_destroy(d);
    free(text);
}
END_TEST

START_TEST(raw_stream)
{
    edl_dict *d = flat_dict();
    tb *t = tb_create_raw(d);
    for (unsigned i = 0; i < 1000; i++) {
        char label[32];
        snprintf(label, sizeof label, "row-%u", i);
        tb_val v[] = {TB_U(i * 3), TB_F(i / 8.0), TB_S(label), TB_U(50 + i * 2)};
        tb_record(t, "row", v);
    }
    ck_assert_int_eq(tb_write(t, path), 0);
    write_dict(d, dpath);
    /* no dictionary: a clear ENODICT */
    pal_reader *r = (pal_reader *)1;
    ck_assert_int_eq(pal_reader_open(path, NULL, &r), PAL_ENODICT);
    ck_assert_ptr_null(r);
    ck_assert_msg(strstr(pal_last_error(), "bad magic at byte 0"), "%s", pal_last_error());
    ck_assert(strstr(pal_last_error(), "-d"));
    r = open_ok(dpath);
    ck_assert_str_eq(pal_dict_name(pal_reader_dict(r)), "flat");
    const pal_handle *id;
    ck_assert_int_eq(pal_reader_handle(r, "id", &id), PAL_OK);
    const pal_record *rec;
    unsigned n = 0;
    while (pal_reader_next(r, &rec) == PAL_OK) {
        uint64_t u;
        double f;
        const char *s;
        size_t len;
        char label[32];
        ck_assert_int_eq(pal_record_u64(rec, id, &u), PAL_OK);
        ck_assert_uint_eq(u, n * 3);
        ck_assert_int_eq(pal_record_get_f64(rec, "value", &f), PAL_OK);
        ck_assert(f == n / 8.0);
        snprintf(label, sizeof label, "row-%u", n);
        ck_assert_int_eq(pal_record_get_str(rec, "label", &s, &len), PAL_OK);
        ck_assert(len == strlen(label) && memcmp(s, label, len) == 0);
        ck_assert_uint_eq(pal_record_time(rec), 50 + n * 2);
        n++;
    }
    ck_assert_uint_eq(n, 1000);
    no_damage(r);
    pal_trace_info in;
    pal_reader_info(r, &in);
    ck_assert(in.ticks_per_second == 1e3);   /* unit "ms" */
    ck_assert_int_eq(in.rank, -1);
    pal_reader_close(r);
    tb_destroy(t);
    edl_dict_destroy(d);
}
END_TEST

START_TEST(given_dict_for_ecl)
{
    /* a dictionary given for an ECL trace replaces the embedded one */
    edl_dict *d = lab_dict('B', EDL_FRAMING_ECL);
    tb *t = tb_create(d);
    lab_build_small(t, d);
    ck_assert_int_eq(tb_write(t, path), 0);
    write_dict(d, dpath);      /* with alarm */
    pal_reader *r = open_ok(dpath);
    const pal_record *rec;
    int n = 0;
    while (pal_reader_next(r, &rec) == PAL_OK)
        n++;
    ck_assert_int_eq(n, 9);
    no_damage(r);
    pal_reader_close(r);
    tb_destroy(t);
    edl_dict_destroy(d);
}
END_TEST

START_TEST(open_errors)
{
    pal_reader *r = (pal_reader *)1;
    ck_assert_int_eq(pal_reader_open("no/such/trace.ecl", NULL, &r), PAL_EIO);
    ck_assert_ptr_null(r);
    ck_assert(strstr(pal_last_error(), "cannot open trace 'no/such/trace.ecl'"));
    ck_assert_int_eq(pal_reader_open(".", NULL, &r), PAL_EIO);

    edl_dict *d = lab_dict('L', EDL_FRAMING_ECL);
    tb *t = tb_create(d);
    tb_chunk_begin(t, 0, 1, 5);
    tb_val v[] = {TB_U(5), TB_U(10), TB_U(1), TB_F(1)};
    tb_record(t, "ping", v);
    tb_chunk_end(t, NULL);
    size_t len;
    const unsigned char *data = tb_data(t, &len);
    unsigned char *copy = malloc(len);

    /* bad magic: not ECL, so a dictionary is asked for */
    memcpy(copy, data, len);
    copy[7] = 'X';
    tb_write_bytes(path, copy, len);
    ck_assert_int_eq(pal_reader_open(path, NULL, &r), PAL_ENODICT);
    ck_assert_msg(strstr(pal_last_error(), "': bad magic at byte 0"), "%s", pal_last_error());
    /* ... and with an ECL-framed dictionary it is a format error */
    write_dict(d, dpath);
    ck_assert_int_eq(pal_reader_open(path, dpath, &r), PAL_EFORMAT);
    ck_assert_msg(strstr(pal_last_error(), "bad magic at byte 0"), "%s", pal_last_error());
    /* version */
    memcpy(copy, data, len);
    copy[8] = 4;                     /* (3 is a run file: tests/pal/merge-damage.sh) */
    tb_write_bytes(path, copy, len);
    ck_assert_int_eq(pal_reader_open(path, NULL, &r), PAL_EFORMAT);
    ck_assert_msg(strstr(pal_last_error(), "unsupported format version 4.0 at byte 8"), "%s",
                  pal_last_error());
    /* header CRC */
    memcpy(copy, data, len);
    copy[70] ^= 1;
    tb_write_bytes(path, copy, len);
    ck_assert_int_eq(pal_reader_open(path, NULL, &r), PAL_EFORMAT);
    ck_assert_msg(strstr(pal_last_error(), "header CRC mismatch"), "%s", pal_last_error());
    /* cut inside the header */
    tb_write_bytes(path, data, 100);
    ck_assert_int_eq(pal_reader_open(path, NULL, &r), PAL_EFORMAT);
    ck_assert_msg(strstr(pal_last_error(), "file header truncated"), "%s", pal_last_error());
    /* a missing dictionary file */
    tb_write_bytes(path, data, len);
    ck_assert_int_eq(pal_reader_open(path, "no/such.dict", &r), PAL_EIO);
    ck_assert(strstr(pal_last_error(), "no/such.dict"));
    free(copy);
    tb_destroy(t);
    edl_dict_destroy(d);

    /* ascii dictionaries: read line by line; a line with a token too many is
     * reported with its line and column, counted and skipped */
    edl_dict *ad;
    edl_record *rr;
    ck_assert_int_eq(edl_dict_create("text", "1", EDL_REPR_ASCII, &ad), EDL_OK);
    ck_assert_int_eq(edl_dict_add_record(ad, "line", NULL, &rr), EDL_OK);
    ck_assert_int_eq(edl_record_add_field(rr, "w", EDL_STRING, EDL_ENC_TEXT, NULL, NULL),
                     EDL_OK);
    write_dict(ad, dpath);
    tb_write_bytes(path, "hello\nhello world\n", 18);
    ck_assert_int_eq(pal_reader_open(path, dpath, &r), PAL_OK);
    pal_reader_set_diag(r, NULL, NULL);
    const pal_record *rec;
    const char *w;
    size_t wn;
    ck_assert_int_eq(pal_reader_next(r, &rec), PAL_OK);
    ck_assert_int_eq(pal_record_get_str(rec, "w", &w, &wn), PAL_OK);
    ck_assert_uint_eq(wn, 5);
    ck_assert(memcmp(w, "hello", 5) == 0);
    ck_assert_uint_eq(pal_record_line(rec), 1);
    ck_assert_int_eq(pal_reader_next(r, &rec), PAL_END);
    ck_assert_msg(strstr(pal_reader_error(r), ":2:7: record 'line': 1 tokens left over"),
                  "%s", pal_reader_error(r));
    pal_reader_stats st;
    pal_reader_get_stats(r, &st);
    ck_assert_uint_eq(st.damaged, 1);
    ck_assert_uint_eq(st.records, 1);
    pal_reader_close(r);
    edl_dict_destroy(ad);
}
END_TEST

START_TEST(inconsistent_key)
{
    /* a record whose key field differs from the others' cannot be bound; its
     * chunks are reported, the rest reads */
    edl_dict *d = lab_dict('L', EDL_FRAMING_ECL);
    edl_record *rr;
    ck_assert_int_eq(edl_dict_add_record(d, "odd", NULL, &rr), EDL_OK);
    ck_assert_int_eq(edl_record_add_field(rr, "ts", EDL_UINT64, EDL_ENC_TDELTA, NULL, NULL),
                     EDL_OK);
    ck_assert_int_eq(edl_record_add_field(rr, "code", EDL_UINT16, EDL_ENC_FIXED, NULL, NULL),
                     EDL_OK);
    ck_assert_int_eq(edl_dict_add_bind(d, "50", NULL, "odd"), EDL_OK);
    tb *t = tb_create(d);
    tb_chunk_begin(t, 0, 1, 5);
    tb_val v[] = {TB_U(5), TB_U(10), TB_U(1), TB_F(1)};
    tb_record(t, "ping", v);
    tb_chunk_end(t, NULL);
    tb_chunk_begin(t, 0, 1, 6);
    tb_bytes_raw(t, "\x01\x32", 2);     /* ts +1, code 50 read as ULEB */
    tb_chunk_opts one = {0};
    one.set_count = 1;
    one.count = 1;
    tb_chunk_end(t, &one);
    tb_chunk_begin(t, 0, 1, 7);
    tb_val w[] = {TB_U(7), TB_U(10), TB_U(2), TB_F(1)};
    tb_record(t, "ping", w);
    tb_chunk_end(t, NULL);
    ck_assert_int_eq(tb_write(t, path), 0);
    pal_reader *r = open_ok(NULL);
    pal_reader_set_diag(r, NULL, NULL);
    const pal_record *rec;
    int n = 0;
    while (pal_reader_next(r, &rec) == PAL_OK)
        n++;
    ck_assert_int_eq(n, 2);
    pal_reader_stats s;
    pal_reader_get_stats(r, &s);
    ck_assert_uint_eq(s.damaged, 1);
    ck_assert_msg(strstr(pal_reader_error(r), "key fields differ"), "%s", pal_reader_error(r));
    pal_reader_close(r);
    tb_destroy(t);
    edl_dict_destroy(d);
}
END_TEST

START_TEST(default_record)
{
    /* records no bind entry matches are the default record, key and all */
    edl_dict *d = lab_dict('L', EDL_FRAMING_ECL);
    ck_assert_int_eq(edl_dict_set_default_record(d, "far"), EDL_OK);
    tb *t = tb_create(d);
    tb_chunk_begin(t, 0, 1, 5);
    tb_val a[] = {TB_U(5), TB_U(99), TB_U(7)};
    tb_val b[] = {TB_U(6), TB_U(100000), TB_U(8)};
    tb_val c[] = {TB_U(7), TB_U(70000), TB_U(9)};
    tb_record(t, "far", a);
    tb_record(t, "far", b);
    tb_record(t, "far", c);
    tb_chunk_end(t, NULL);
    ck_assert_int_eq(tb_write(t, path), 0);
    pal_reader *r = open_ok(NULL);
    const pal_record *rec;
    static const uint64_t codes[] = {99, 100000, 70000};
    int n = 0;
    while (pal_reader_next(r, &rec) == PAL_OK) {
        uint64_t u;
        ck_assert_str_eq(pal_recdesc_name(pal_record_desc(rec)), "far");
        ck_assert_int_eq(pal_record_get_u64(rec, "code", &u), PAL_OK);
        ck_assert_uint_eq(u, codes[n]);
        ck_assert_int_eq(pal_record_get_u64(rec, "x", &u), PAL_OK);
        ck_assert_uint_eq(u, (uint64_t)n + 7);
        n++;
    }
    ck_assert_int_eq(n, 3);
    no_damage(r);
    pal_reader_close(r);
    tb_destroy(t);
    edl_dict_destroy(d);
}
END_TEST

static char last_msg[1024];
static int nmsg;

static void keep_diag(void *ctx, const char *m)
{
    (void)ctx;
    snprintf(last_msg, sizeof last_msg, "%s", m);
    nmsg++;
}

START_TEST(damage_messages)
{
    edl_dict *d = lab_dict('B', EDL_FRAMING_ECL);
    tb *t = tb_create(d);
    lab_build_small(t, d);
    size_t len, nc;
    const unsigned char *data = tb_data(t, &len);
    const tb_chunk_info *c = tb_chunks(t, &nc);
    unsigned char *copy = malloc(len);
    char want[256];

    memcpy(copy, data, len);
    copy[c[1].offset + 70] ^= 1;            /* payload of the second chunk */
    tb_write_bytes(path, copy, len);
    pal_reader *r = open_ok(NULL);
    pal_reader_set_diag(r, keep_diag, NULL);
    nmsg = 0;
    const pal_record *rec;
    while (pal_reader_next(r, &rec) == PAL_OK)
        ;
    snprintf(want, sizeof want, "%s: byte %llu: chunk payload CRC mismatch, chunk skipped",
             path, (unsigned long long)c[1].offset);
    ck_assert_str_eq(last_msg, want);
    ck_assert_str_eq(pal_reader_error(r), want);
    ck_assert_int_eq(nmsg, 1);
    pal_reader_close(r);

    memcpy(copy, data, len);
    copy[c[1].offset + 1] ^= 1;             /* chunk magic */
    tb_write_bytes(path, copy, len);
    r = open_ok(NULL);
    pal_reader_set_diag(r, keep_diag, NULL);
    nmsg = 0;
    while (pal_reader_next(r, &rec) == PAL_OK)
        ;
    snprintf(want, sizeof want, "%s: byte %llu: bad chunk header (bad magic); resuming at byte "
             "%llu (%llu bytes skipped)", path, (unsigned long long)c[1].offset,
             (unsigned long long)c[2].offset, (unsigned long long)c[1].length);
    ck_assert_str_eq(last_msg, want);
    ck_assert_int_eq(nmsg, 1);
    pal_reader_stats s;
    pal_reader_get_stats(r, &s);
    ck_assert_uint_eq(s.bytes_skipped, c[1].length);
    pal_reader_close(r);
    free(copy);
    tb_destroy(t);
    edl_dict_destroy(d);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pal-read");
    TCase *tc = tcase_create("read");
    tcase_set_timeout(tc, 60);
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, round_trip_fast_paths);
    tcase_add_test(tc, round_trip_none);
    tcase_add_test(tc, round_trip_zlib);
    tcase_add_test(tc, round_trip_zstd);
    tcase_add_test(tc, dict_chunk_and_index);
    tcase_add_test(tc, empty_trace);
    tcase_add_test(tc, process_from_header);
    tcase_add_test(tc, two_keys);
    tcase_add_test(tc, big_chunk_and_strings);
    tcase_add_test(tc, raw_stream);
    tcase_add_test(tc, given_dict_for_ecl);
    tcase_add_test(tc, open_errors);
    tcase_add_test(tc, inconsistent_key);
    tcase_add_test(tc, damage_messages);
    tcase_add_test(tc, default_record);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
