/* test_pal_unit.c -- PAL unit tests: fixed-width decoding at its boundaries
 * (LEB128 and the CRC are the container codec's: tests/container), typed
 * getters (PAL_ENOFIELD vs PAL_ETYPE vs PAL_ERANGE) by name
 * and by handle, formatting, dictionary and field iteration, bind info,
 * dictionary files and their print-out. */
#include <config.h>

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pal/decode.h"
#include "pal/pal.h"
#include "tests/pal/labdict.h"
#include "tests/pal/tracebuild.h"


static int run1(pal_op op, const unsigned char *b, size_t n, pal_value *v, uint32_t *len)
{
    const unsigned char *p = b;
    uint64_t t = 0;
    pal_decerr e;
    op.slot = 0;
    int rc = pal_run_ops(&op, &op + 1, &p, b + n, &t, v, len, &e);
    if (rc == PAL_DEC_OK)
        ck_assert_uint_eq((size_t)(p - b), n);
    return rc;
}

START_TEST(op_ranges)
{
    pal_value v[1];
    uint32_t len[1];
    pal_op op = {0};
    /* uint8 ULEB: 255 fits, 256 does not */
    op.code = PAL_OP_ULEB;
    op.limit = 255;
    ck_assert_int_eq(run1(op, (const unsigned char *)"\xff\x01", 2, v, len), PAL_DEC_OK);
    ck_assert_uint_eq(v[0].u, 255);
    ck_assert_int_eq(run1(op, (const unsigned char *)"\x80\x02", 2, v, len), PAL_DEC_BAD);
    /* int8 SLEB: -128 and 127 fit, 128 and -129 do not */
    op.code = PAL_OP_SLEB;
    op.limit = 127;
    ck_assert_int_eq(run1(op, (const unsigned char *)"\xff\x01", 2, v, len), PAL_DEC_OK);
    ck_assert_int_eq(v[0].i, -128);
    ck_assert_int_eq(run1(op, (const unsigned char *)"\xfe\x01", 2, v, len), PAL_DEC_OK);
    ck_assert_int_eq(v[0].i, 127);
    ck_assert_int_eq(run1(op, (const unsigned char *)"\x80\x02", 2, v, len), PAL_DEC_BAD);
    ck_assert_int_eq(run1(op, (const unsigned char *)"\x81\x02", 2, v, len), PAL_DEC_BAD);
    /* int64 SLEB extremes */
    op.limit = INT64_MAX;
    ck_assert_int_eq(run1(op, (const unsigned char *)"\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01",
                          10, v, len), PAL_DEC_OK);
    ck_assert(v[0].i == INT64_MIN);
    /* fixed widths, both byte orders, sign extension */
    op.code = PAL_OP_I16B;
    ck_assert_int_eq(run1(op, (const unsigned char *)"\xfe\xd4", 2, v, len), PAL_DEC_OK);
    ck_assert_int_eq(v[0].i, -300);
    op.code = PAL_OP_I16L;
    ck_assert_int_eq(run1(op, (const unsigned char *)"\xd4\xfe", 2, v, len), PAL_DEC_OK);
    ck_assert_int_eq(v[0].i, -300);
    op.code = PAL_OP_U32B;
    ck_assert_int_eq(run1(op, (const unsigned char *)"\xee\x6b\x28\x00", 4, v, len), PAL_DEC_OK);
    ck_assert_uint_eq(v[0].u, 4000000000u);
    ck_assert_int_eq(run1(op, (const unsigned char *)"\xee\x6b\x28", 3, v, len), PAL_DEC_SHORT);
    op.code = PAL_OP_F64L;
    ck_assert_int_eq(run1(op, (const unsigned char *)"\x00\x00\x00\x00\x00\x00\xf8\x3f", 8, v,
                          len), PAL_DEC_OK);
    ck_assert(v[0].f == 1.5);
    op.code = PAL_OP_F32B;
    ck_assert_int_eq(run1(op, (const unsigned char *)"\x3f\xc0\x00\x00", 4, v, len), PAL_DEC_OK);
    ck_assert(v[0].f == 1.5);
    /* strings: length within the bytes, and past them */
    op.code = PAL_OP_LSTRING;
    ck_assert_int_eq(run1(op, (const unsigned char *)"\x03" "abc", 4, v, len), PAL_DEC_OK);
    ck_assert_uint_eq(len[0], 3);
    ck_assert(memcmp(v[0].s, "abc", 3) == 0);
    ck_assert_int_eq(run1(op, (const unsigned char *)"\x04" "abc", 4, v, len), PAL_DEC_SHORT);
    ck_assert_int_eq(run1(op, (const unsigned char *)"\x00", 1, v, len), PAL_DEC_OK);
    ck_assert_uint_eq(len[0], 0);
    /* TDELTA: running sum, overflow refused */
    {
        pal_op two[2] = {{PAL_OP_TDELTA, {0}, 0, 0}, {PAL_OP_TDELTA, {0}, 1, 0}};
        pal_value vv[2];
        uint32_t ll[2];
        const unsigned char b[] = {0x05, 0x80, 0x01};
        const unsigned char *p = b;
        uint64_t t = 1000;
        ck_assert_int_eq(pal_run_ops(two, two + 2, &p, b + 3, &t, vv, ll, NULL), PAL_DEC_OK);
        ck_assert_uint_eq(vv[0].u, 1005);
        ck_assert_uint_eq(vv[1].u, 1133);
        ck_assert_uint_eq(t, 1133);
        const unsigned char big[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01};
        p = big;
        ck_assert_int_eq(pal_run_ops(two, two + 1, &p, big + 10, &t, vv, ll, NULL),
                         PAL_DEC_BAD);
    }
}
END_TEST

/* ---------------------------------------------------------------- fixtures */

static char trace_path[] = "pal-unit-XXXXXX";
static pal_reader *rd;

static void write_small(void)
{
    int fd = mkstemp(trace_path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    edl_dict *d = lab_dict('B', EDL_FRAMING_ECL);
    tb *t = tb_create(d);
    lab_build_small(t, d);
    ck_assert_int_eq(tb_write(t, trace_path), 0);
    tb_destroy(t);
    edl_dict_destroy(d);
}

static void setup(void)
{
    strcpy(trace_path, "pal-unit-XXXXXX");
    write_small();
    ck_assert_msg(pal_reader_open(trace_path, NULL, &rd) == PAL_OK, "%s", pal_last_error());
}

static void teardown(void)
{
    pal_reader_close(rd);
    rd = NULL;
    unlink(trace_path);
}

/* Reads the trace again from its first record. */
static void reopen(void)
{
    pal_reader_close(rd);
    ck_assert_msg(pal_reader_open(trace_path, NULL, &rd) == PAL_OK, "%s", pal_last_error());
}

/* Advances to the next record of type `name` (records come in time order). */
static const pal_record *next_of(const char *name)
{
    const pal_record *rec;
    while (pal_reader_next(rd, &rec) == PAL_OK)
        if (strcmp(pal_recdesc_name(pal_record_desc(rec)), name) == 0)
            return rec;
    ck_abort_msg("no record %s", name);
    return NULL;
}

/* ---------------------------------------------------------------- getters */

START_TEST(getters_by_name)
{
    const pal_record *rec = next_of("sample");
    int64_t i;
    uint64_t u;
    double f;
    const char *s;
    size_t n;
    /* the right type */
    ck_assert_int_eq(pal_record_get_u64(rec, "cpu", &u), PAL_OK);
    ck_assert_uint_eq(u, 255);
    ck_assert_int_eq(pal_record_get_i64(rec, "temp", &i), PAL_OK);
    ck_assert_int_eq(i, -300);
    ck_assert_int_eq(pal_record_get_i64(rec, "delta", &i), PAL_OK);
    ck_assert_int_eq(i, -70000);
    ck_assert_int_eq(pal_record_get_u64(rec, "big", &u), PAL_OK);
    ck_assert(u == UINT64_MAX);
    ck_assert_int_eq(pal_record_get_i64(rec, "neg", &i), PAL_OK);
    ck_assert(i == INT64_MIN);
    ck_assert_int_eq(pal_record_get_f64(rec, "load", &f), PAL_OK);
    ck_assert(f == (double)0.1f);
    ck_assert_int_eq(pal_record_get_u64(rec, "hits", &u), PAL_OK);
    ck_assert_uint_eq(u, 4000000000u);
    ck_assert_int_eq(pal_record_get_i64(rec, "tiny", &i), PAL_OK);
    ck_assert_int_eq(i, -128);
    ck_assert_int_eq(pal_record_get_u64(rec, "port", &u), PAL_OK);
    ck_assert_uint_eq(u, 65535);
    ck_assert_int_eq(pal_record_get_i64(rec, "wide", &i), PAL_OK);
    ck_assert(i == INT32_MIN);
    ck_assert_int_eq(pal_record_get_u64(rec, "huge", &u), PAL_OK);
    ck_assert(u == 1234567890123ULL);
    ck_assert_int_eq(pal_record_get_i64(rec, "i64", &i), PAL_OK);
    ck_assert_int_eq(i, -5);
    /* integers across signedness, and into double */
    ck_assert_int_eq(pal_record_get_i64(rec, "cpu", &i), PAL_OK);
    ck_assert_int_eq(i, 255);
    ck_assert_int_eq(pal_record_get_u64(rec, "i64", &u), PAL_ERANGE);
    ck_assert_int_eq(pal_record_get_i64(rec, "big", &i), PAL_ERANGE);
    ck_assert_int_eq(pal_record_get_u64(rec, "temp", &u), PAL_ERANGE);
    ck_assert_int_eq(pal_record_get_f64(rec, "temp", &f), PAL_OK);
    ck_assert(f == -300.0);
    ck_assert_int_eq(pal_record_get_f64(rec, "big", &f), PAL_OK);
    /* wrong type vs no such field */
    ck_assert_int_eq(pal_record_get_i64(rec, "load", &i), PAL_ETYPE);
    ck_assert_int_eq(pal_record_get_u64(rec, "load", &u), PAL_ETYPE);
    ck_assert_int_eq(pal_record_get_str(rec, "cpu", &s, &n), PAL_ETYPE);
    ck_assert_int_eq(pal_record_get_u64(rec, "text", &u), PAL_ENOFIELD);
    ck_assert_int_eq(pal_record_get_str(rec, "", &s, &n), PAL_ENOFIELD);
    ck_assert_int_eq(pal_record_get_f64(rec, "Cpu", &f), PAL_ENOFIELD);
    /* a failed get leaves the output alone */
    u = 77;
    ck_assert_int_eq(pal_record_get_u64(rec, "temp", &u), PAL_ERANGE);
    ck_assert_uint_eq(u, 77);
    /* strings: the first note in time (of thread 2) */
    reopen();
    rec = next_of("note");
    ck_assert_int_eq(pal_record_get_str(rec, "text", &s, &n), PAL_OK);
    ck_assert_uint_eq(n, strlen("caf\xc3\xa9 \x01 bad\xff"));
    ck_assert(memcmp(s, "caf\xc3\xa9 \x01 bad\xff", n) == 0);
    ck_assert_int_eq(pal_record_get_i64(rec, "text", &i), PAL_ETYPE);
    ck_assert_int_eq(pal_record_get_f64(rec, "text", &f), PAL_ETYPE);
    ck_assert_int_eq(pal_record_get_i64(rec, "level", &i), PAL_OK);
    ck_assert_int_eq(i, 3);
    /* roles */
    ck_assert_uint_eq(pal_record_time(rec), 1001);
    ck_assert_uint_eq(pal_record_process(rec), 3);
    ck_assert_uint_eq(pal_record_stream(rec), 2);
    ck_assert_uint_gt(pal_record_offset(rec), 0);
    ck_assert_int_eq(pal_record_get_u64(rec, "ts", &u), PAL_OK);
    ck_assert_uint_eq(u, 1001);
    ck_assert_int_eq(pal_record_get_u64(rec, "code", &u), PAL_OK);
    ck_assert_uint_eq(u, 20);
}
END_TEST

START_TEST(getters_by_handle)
{
    const pal_handle *seq, *seq2, *text, *temp, *none = (const pal_handle *)1;
    ck_assert_int_eq(pal_reader_handle(rd, "seq", &seq), PAL_OK);
    ck_assert_int_eq(pal_reader_handle(rd, "seq", &seq2), PAL_OK);
    ck_assert_ptr_eq(seq, seq2);
    ck_assert_int_eq(pal_reader_handle(rd, "text", &text), PAL_OK);
    ck_assert_int_eq(pal_reader_handle(rd, "temp", &temp), PAL_OK);
    ck_assert_int_eq(pal_reader_handle(rd, "nosuch", &none), PAL_ENOFIELD);
    ck_assert_ptr_null(none);
    const pal_record *rec;
    uint64_t u, seqsum = 0;
    int64_t i;
    double f;
    const char *s;
    size_t n, notes = 0, pings = 0;
    while (pal_reader_next(rd, &rec) == PAL_OK) {
        const char *name = pal_recdesc_name(pal_record_desc(rec));
        pal_status st = pal_record_u64(rec, seq, &u);
        if (strcmp(name, "ping") == 0) {
            ck_assert_int_eq(st, PAL_OK);
            seqsum += u;
            pings++;
            ck_assert_int_eq(pal_record_f64(rec, seq, &f), PAL_OK);
            ck_assert(f == (double)u);
            ck_assert_int_eq(pal_record_str(rec, seq, &s, &n), PAL_ETYPE);
        } else {
            ck_assert_int_eq(st, PAL_ENOFIELD);
        }
        st = pal_record_str(rec, text, &s, &n);
        if (strcmp(name, "note") == 0) {
            ck_assert_int_eq(st, PAL_OK);
            ck_assert_int_eq(pal_record_i64(rec, text, &i), PAL_ETYPE);
            notes++;
        } else {
            ck_assert_int_eq(st, PAL_ENOFIELD);
        }
        if (strcmp(name, "sample") == 0) {
            ck_assert_int_eq(pal_record_i64(rec, temp, &i), PAL_OK);
            ck_assert_int_eq(i, -300);
            ck_assert_int_eq(pal_record_u64(rec, temp, &u), PAL_ERANGE);
        }
    }
    ck_assert_uint_eq(pings, 4);
    ck_assert_uint_eq(seqsum, 1 + 2 + 3 + 4);
    ck_assert_uint_eq(notes, 2);
}
END_TEST

START_TEST(format)
{
    const pal_record *rec = next_of("sample");
    char buf[64];
    const pal_recdesc *d = pal_record_desc(rec);
    size_t load = pal_field_index(pal_recdesc_find_field(d, "load"));
    size_t neg = pal_field_index(pal_recdesc_find_field(d, "neg"));
    size_t big = pal_field_index(pal_recdesc_find_field(d, "big"));
    ck_assert_uint_eq(pal_record_format(rec, load, buf, sizeof buf), 3);
    ck_assert_str_eq(buf, "0.1");                 /* shortest float32 text */
    ck_assert_uint_eq(pal_record_format(rec, neg, buf, sizeof buf), 20);
    ck_assert_str_eq(buf, "-9223372036854775808");
    ck_assert_uint_eq(pal_record_format(rec, big, buf, 5), 20);
    ck_assert_str_eq(buf, "1844");                /* truncated, like snprintf */
    ck_assert_uint_eq(pal_record_format(rec, big, NULL, 0), 20);
    ck_assert_uint_eq(pal_record_format(rec, 99, buf, sizeof buf), 0);
    ck_assert_str_eq(buf, "");
    reopen();
    rec = next_of("note");
    size_t text = pal_field_index(pal_recdesc_find_field(pal_record_desc(rec), "text"));
    ck_assert_uint_eq(pal_record_format(rec, text, buf, sizeof buf), 12);
    ck_assert(memcmp(buf, "caf\xc3\xa9 \x01 bad\xff", 13) == 0);
    next_of("far");
    rec = next_of("ping");
    size_t rtt = pal_field_index(pal_recdesc_find_field(pal_record_desc(rec), "rtt"));
    pal_record_format(rec, rtt, buf, sizeof buf);
    ck_assert_str_eq(buf, "-2");
}
END_TEST

/* ---------------------------------------------------------------- dictionary */

START_TEST(dict_iteration)
{
    const pal_dict *d = pal_reader_dict(rd);
    static const char *const names[] = {"ping", "note", "sample", "far", "alarm"};
    ck_assert_str_eq(pal_dict_name(d), "lab");
    ck_assert_str_eq(pal_dict_version(d), "0.3");
    ck_assert_str_eq(pal_dict_representation(d), "binary");
    ck_assert_str_eq(pal_dict_time_field(d), "ts");
    ck_assert_str_eq(pal_dict_time_unit(d), "us");
    /* alarm comes from a dictionary chunk: present before the first record */
    ck_assert_uint_eq(pal_dict_record_count(d), 5);
    pal_recdesc_iter it;
    pal_dict_records(d, &it);
    const pal_recdesc *r;
    size_t n = 0;
    while ((r = pal_recdesc_next(&it)) != NULL) {
        ck_assert_str_eq(pal_recdesc_name(r), names[n]);
        ck_assert_uint_eq(pal_recdesc_index(r), n);
        ck_assert_ptr_eq(pal_dict_record(d, n), r);
        ck_assert_ptr_eq(pal_dict_find_record(d, names[n]), r);
        n++;
    }
    ck_assert_uint_eq(n, 5);
    ck_assert_ptr_null(pal_recdesc_next(&it));
    ck_assert_ptr_null(pal_dict_record(d, 5));
    ck_assert_ptr_null(pal_dict_find_record(d, "nosuch"));

    r = pal_dict_find_record(d, "ping");
    ck_assert_str_eq(pal_recdesc_description(r), "a probe and its round trip");
    ck_assert_uint_eq(pal_recdesc_field_count(r), 4);
    static const char *const fnames[] = {"ts", "code", "seq", "rtt"};
    static const char *const types[] = {"uint64", "uint32", "uint32", "float64"};
    static const char *const encs[] = {"TDELTA", "ULEB", "ULEB", "FIXED"};
    static const pal_type ptypes[] = {PAL_UINT64, PAL_UINT32, PAL_UINT32, PAL_FLOAT64};
    pal_field_iter fi;
    pal_recdesc_fields(r, &fi);
    const pal_fielddesc *f;
    n = 0;
    while ((f = pal_field_next(&fi)) != NULL) {
        ck_assert_str_eq(pal_field_name(f), fnames[n]);
        ck_assert_str_eq(pal_field_type_name(f), types[n]);
        ck_assert_str_eq(pal_field_encoding(f), encs[n]);
        ck_assert_int_eq(pal_field_type(f), ptypes[n]);
        ck_assert_uint_eq(pal_field_index(f), n);
        ck_assert_ptr_eq(pal_recdesc_field(r, n), f);
        n++;
    }
    ck_assert_uint_eq(n, 4);
    f = pal_recdesc_find_field(r, "rtt");
    ck_assert_str_eq(pal_field_unit(f), "ms");
    ck_assert_str_eq(pal_field_description(f), "round trip");
    ck_assert_str_eq(pal_field_unit(pal_recdesc_find_field(r, "seq")), "");
    ck_assert_str_eq(pal_field_description(pal_recdesc_find_field(r, "seq")), "");
    ck_assert_ptr_null(pal_recdesc_find_field(r, "text"));
    ck_assert_ptr_null(pal_recdesc_field(r, 4));
}
END_TEST

START_TEST(bind_info)
{
    const pal_bindinfo *b = pal_dict_bindinfo(pal_reader_dict(rd));
    ck_assert_uint_eq(pal_bindinfo_key_count(b), 1);
    ck_assert_uint_eq(pal_bindinfo_key_index(b, 0), 1);
    ck_assert_uint_eq(pal_bindinfo_key_index(b, 1), 0xFF);
    ck_assert_uint_eq(pal_bindinfo_count(b), 5);
    static const char *const keys[] = {"10", "20", "30", "100000", "40"};
    static const char *const recs[] = {"ping", "note", "sample", "far", "alarm"};
    for (size_t i = 0; i < 5; i++) {
        const char *k1, *k2 = "x";
        const pal_recdesc *r;
        ck_assert_int_eq(pal_bindinfo_entry(b, i, &k1, &k2, &r), PAL_OK);
        ck_assert_str_eq(k1, keys[i]);
        ck_assert_ptr_null(k2);
        ck_assert_str_eq(pal_recdesc_name(r), recs[i]);
    }
    const char *k1;
    ck_assert_int_eq(pal_bindinfo_entry(b, 5, &k1, NULL, NULL), PAL_EINVAL);
}
END_TEST

static char dict_path[] = "pal-unit-dict-XXXXXX";

static void write_dict_file(const edl_dict *d)
{
    unsigned char *b;
    size_t n;
    strcpy(dict_path, "pal-unit-dict-XXXXXX");
    int fd = mkstemp(dict_path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    ck_assert_int_eq(edl_dict_encode(d, &b, &n), EDL_OK);
    ck_assert_int_eq(tb_write_bytes(dict_path, b, n), 0);
    free(b);
}

START_TEST(bind_info_two_keys)
{
    edl_dict *ed = pair_dict();
    write_dict_file(ed);
    edl_dict_destroy(ed);
    pal_dict *d;
    ck_assert_int_eq(pal_dict_load(dict_path, &d), PAL_OK);
    const pal_bindinfo *b = pal_dict_bindinfo(d);
    ck_assert_uint_eq(pal_bindinfo_key_count(b), 2);
    ck_assert_uint_eq(pal_bindinfo_key_index(b, 0), 0);
    ck_assert_uint_eq(pal_bindinfo_key_index(b, 1), 1);
    ck_assert_uint_eq(pal_bindinfo_count(b), 4);
    const char *k1, *k2;
    const pal_recdesc *r;
    ck_assert_int_eq(pal_bindinfo_entry(b, 1, &k1, &k2, &r), PAL_OK);
    ck_assert_str_eq(k1, "1");
    ck_assert_str_eq(k2, "2");
    ck_assert_str_eq(pal_recdesc_name(r), "close");
    ck_assert_int_eq(pal_bindinfo_entry(b, 2, &k1, &k2, &r), PAL_OK);
    ck_assert_ptr_null(k2);
    ck_assert_str_eq(pal_recdesc_name(r), "other");
    pal_dict_destroy(d);
    unlink(dict_path);
}
END_TEST

START_TEST(dict_load_and_print)
{
    edl_dict *ed = lab_dict('L', EDL_FRAMING_RAW);
    lab_add_alarm(ed);
    write_dict_file(ed);
    edl_dict_destroy(ed);
    pal_dict *d;
    ck_assert_int_eq(pal_dict_load(dict_path, &d), PAL_OK);
    ck_assert_uint_eq(pal_dict_record_count(d), 5);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    pal_dict_print(d, f);
    fclose(f);
    /* EDL source (edl_dict_print) that compiles back to the same dictionary */
    ck_assert_msg(strstr(text, "RECORD ping") != NULL, "%s", text);
    edl_dict *back = NULL;
    ck_assert_int_eq(edl_compile_string("printed", text, len, NULL, NULL, &back), EDL_OK);
    ck_assert(edl_dict_equal(back, d->ed));
    edl_dict_destroy(back);
    free(text);
    pal_dict_destroy(d);
    unlink(dict_path);

    ed = pair_dict();
    write_dict_file(ed);
    edl_dict_destroy(ed);
    ck_assert_int_eq(pal_dict_load(dict_path, &d), PAL_OK);
    f = open_memstream(&text, &len);
    pal_dict_print(d, f);
    fclose(f);
    ck_assert_msg(strstr(text, "<\"1\":\"2\">") || strstr(text, "<\"1\" : \"2\">"), "%s",
                  text);
    back = NULL;
    ck_assert_int_eq(edl_compile_string("printed", text, len, NULL, NULL, &back), EDL_OK);
    ck_assert(edl_dict_equal(back, d->ed));
    edl_dict_destroy(back);
    free(text);
    pal_dict_destroy(d);
    unlink(dict_path);
}
END_TEST

START_TEST(dict_load_errors)
{
    pal_dict *d = (pal_dict *)1;
    ck_assert_int_eq(pal_dict_load("no/such/file.bin", &d), PAL_EIO);
    ck_assert_ptr_null(d);
    ck_assert(strstr(pal_last_error(), "cannot load dictionary 'no/such/file.bin'"));
    /* a trace is not a dictionary */
    ck_assert_int_eq(pal_dict_load(trace_path, &d), PAL_EFORMAT);
    /* (not the binary form, so it is compiled as EDL source: the first error) */
    ck_assert_msg(strstr(pal_last_error(), ": error: "), "%s", pal_last_error());
    /* a damaged dictionary: the EDL decoder names the problem */
    edl_dict *ed = pair_dict();
    unsigned char *b;
    size_t n;
    ck_assert_int_eq(edl_dict_encode(ed, &b, &n), EDL_OK);
    b[n / 2] ^= 0x10;
    strcpy(dict_path, "pal-unit-dict-XXXXXX");
    int fd = mkstemp(dict_path);
    close(fd);
    ck_assert_int_eq(tb_write_bytes(dict_path, b, n), 0);
    ck_assert_int_eq(pal_dict_load(dict_path, &d), PAL_EFORMAT);
    ck_assert_msg(strstr(pal_last_error(), "cannot load dictionary"), "%s", pal_last_error());
    free(b);
    edl_dict_destroy(ed);
    unlink(dict_path);
}
END_TEST

START_TEST(status_strings)
{
    for (int s = PAL_OK; s <= PAL_EINVAL; s++)
        ck_assert(strlen(pal_status_string((pal_status)s)) > 0);
    ck_assert_str_eq(pal_status_string((pal_status)99), "unknown status");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pal-unit");
    TCase *tc = tcase_create("decode");
    tcase_add_test(tc, op_ranges);
    tcase_add_test(tc, status_strings);
    suite_add_tcase(s, tc);
    tc = tcase_create("records");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, getters_by_name);
    tcase_add_test(tc, getters_by_handle);
    tcase_add_test(tc, format);
    tcase_add_test(tc, dict_iteration);
    tcase_add_test(tc, bind_info);
    tcase_add_test(tc, bind_info_two_keys);
    tcase_add_test(tc, dict_load_and_print);
    tcase_add_test(tc, dict_load_errors);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
