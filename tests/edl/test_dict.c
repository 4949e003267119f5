/* test_dict.c -- unit tests of the EDL dictionary model and its binary form. */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "edl/edl.h"

static edl_dict *sample(void)
{
    edl_dict *d;
    edl_record *r;
    ck_assert_int_eq(edl_dict_create("demo", "1.0", EDL_REPR_BINARY, &d), EDL_OK);
    ck_assert_int_eq(edl_dict_set_binary(d, 'L', EDL_FRAMING_ECL), EDL_OK);
    ck_assert_int_eq(edl_dict_set_roles(d, "time", "ticks", "", ""), EDL_OK);
    ck_assert_int_eq(edl_dict_set_key(d, 1, 0, EDL_NO_KEY), EDL_OK);
    ck_assert_int_eq(edl_dict_add_record(d, "enter", "region entry", &r), EDL_OK);
    ck_assert_int_eq(edl_record_add_field(r, "type", EDL_UINT16, EDL_ENC_ULEB, NULL, NULL), EDL_OK);
    ck_assert_int_eq(edl_record_add_field(r, "time", EDL_UINT64, EDL_ENC_TDELTA, "ticks", NULL),
                     EDL_OK);
    ck_assert_int_eq(edl_record_add_field(r, "region", EDL_UINT32, EDL_ENC_ULEB, NULL, "id"),
                     EDL_OK);
    ck_assert_int_eq(edl_dict_add_record(d, "sample", NULL, &r), EDL_OK);
    ck_assert_int_eq(edl_record_add_field(r, "type", EDL_UINT16, EDL_ENC_ULEB, NULL, NULL), EDL_OK);
    ck_assert_int_eq(edl_record_add_field(r, "time", EDL_UINT64, EDL_ENC_TDELTA, NULL, NULL), EDL_OK);
    ck_assert_int_eq(edl_record_add_field(r, "v", EDL_FLOAT64, EDL_ENC_FIXED, "W", NULL), EDL_OK);
    ck_assert_int_eq(edl_record_add_field(r, "d", EDL_INT64, EDL_ENC_SLEB, NULL, NULL), EDL_OK);
    ck_assert_int_eq(edl_record_add_field(r, "s", EDL_STRING, EDL_ENC_LSTRING, NULL, NULL), EDL_OK);
    ck_assert_int_eq(edl_dict_add_bind(d, "2", NULL, "enter"), EDL_OK);
    ck_assert_int_eq(edl_dict_add_bind(d, "7", NULL, "sample"), EDL_OK);
    return d;
}

START_TEST(build_and_read)
{
    edl_dict *d = sample();
    ck_assert_str_eq(edl_dict_name(d), "demo");
    ck_assert_uint_eq(edl_dict_record_count(d), 2);
    const edl_record *r = edl_dict_find_record(d, "sample");
    ck_assert_ptr_nonnull(r);
    ck_assert_uint_eq(edl_record_index(r), 1);
    ck_assert_int_eq(edl_record_find_field(r, "v"), 2);
    ck_assert_int_eq(edl_record_find_field(r, "nope"), -1);
    const edl_field *f = edl_record_field(r, 2);
    ck_assert_int_eq(edl_field_type(f), EDL_FLOAT64);
    ck_assert_str_eq(edl_field_unit(f), "W");
    ck_assert_str_eq(edl_field_description(f), "");
    ck_assert_str_eq(edl_type_name(EDL_UINT32), "uint32");
    ck_assert_str_eq(edl_encoding_name(EDL_ENC_TDELTA), "TDELTA");
    edl_bind b = edl_dict_bind(d, 1);
    ck_assert_str_eq(b.key1, "7");
    ck_assert_ptr_null(b.key2);
    ck_assert_uint_eq(b.record, 1);
    edl_dict_destroy(d);
    edl_dict_destroy(NULL);
}
END_TEST

START_TEST(rejects_misuse)
{
    edl_dict *d = sample();
    edl_record *r;
    ck_assert_int_eq(edl_dict_add_record(d, "enter", NULL, &r), EDL_EEXIST);
    ck_assert_int_eq(edl_dict_add_record(d, "9bad", NULL, &r), EDL_EINVAL);
    ck_assert_int_eq(edl_dict_add_record(d, "x", NULL, &r), EDL_OK);
    ck_assert_int_eq(edl_record_add_field(r, "a", EDL_STRING, EDL_ENC_ULEB, NULL, NULL), EDL_EINVAL);
    ck_assert_int_eq(edl_record_add_field(r, "a", EDL_INT32, EDL_ENC_ULEB, NULL, NULL), EDL_EINVAL);
    ck_assert_int_eq(edl_record_add_field(r, "a", EDL_UINT32, EDL_ENC_TDELTA, NULL, NULL), EDL_EINVAL);
    ck_assert_int_eq(edl_record_add_field(r, "a", (edl_type)99, EDL_ENC_FIXED, NULL, NULL), EDL_EINVAL);
    ck_assert_int_eq(edl_record_add_field(r, "a", EDL_INT32, EDL_ENC_SLEB, NULL, NULL), EDL_OK);
    ck_assert_int_eq(edl_record_add_field(r, "a", EDL_INT32, EDL_ENC_SLEB, NULL, NULL), EDL_EEXIST);
    ck_assert_int_eq(edl_dict_add_bind(d, "2", NULL, "x"), EDL_EEXIST);
    ck_assert_int_eq(edl_dict_add_bind(d, "3", NULL, "missing"), EDL_ENOENT);
    ck_assert_int_eq(edl_dict_add_bind(d, "2", "1", "x"), EDL_OK);   /* two keys differ from one */
    ck_assert_int_eq(edl_dict_set_key(d, 2, 0, 0), EDL_EINVAL);
    ck_assert_int_eq(edl_dict_set_key(d, 3, 0, 1), EDL_EINVAL);
    ck_assert_int_eq(edl_dict_set_roles(d, "time", "fortnights", "", ""), EDL_EINVAL);
    ck_assert_int_eq(edl_dict_set_ascii(d, " ", "#"), EDL_EINVAL);   /* binary dictionary */
    edl_dict_destroy(d);
}
END_TEST

START_TEST(round_trip_is_identical)
{
    edl_dict *d = sample(), *e = NULL;
    unsigned char *buf, *buf2;
    size_t len, len2;
    char err[256];
    ck_assert_int_eq(edl_dict_encode(d, &buf, &len), EDL_OK);
    ck_assert_int_eq(edl_dict_decode(buf, len, &e, err, sizeof err), EDL_OK);
    ck_assert_int_eq(edl_dict_encode(e, &buf2, &len2), EDL_OK);
    ck_assert_uint_eq(len, len2);
    ck_assert_mem_eq(buf, buf2, len);
    ck_assert(edl_dict_equal(d, e));
    ck_assert_str_eq(edl_record_name(edl_dict_record(e, 1)), "sample");
    free(buf);
    free(buf2);
    edl_dict_destroy(d);
    edl_dict_destroy(e);
}
END_TEST

START_TEST(ascii_round_trip)
{
    edl_dict *d, *e;
    edl_record *r;
    unsigned char *buf;
    size_t len;
    ck_assert_int_eq(edl_dict_create("log", "2", EDL_REPR_ASCII, &d), EDL_OK);
    ck_assert_int_eq(edl_dict_set_ascii(d, ",", "#"), EDL_OK);
    ck_assert_int_eq(edl_dict_set_key(d, 2, 0, 1), EDL_OK);
    ck_assert_int_eq(edl_dict_add_record(d, "line", NULL, &r), EDL_OK);
    ck_assert_int_eq(edl_record_add_field(r, "k", EDL_INT32, EDL_ENC_TEXT, NULL, NULL), EDL_OK);
    ck_assert_int_eq(edl_dict_add_bind(d, "-3", "-21", "line"), EDL_OK);
    ck_assert_int_eq(edl_dict_encode(d, &buf, &len), EDL_OK);
    ck_assert_int_eq(edl_dict_decode(buf, len, &e, NULL, 0), EDL_OK);
    ck_assert(edl_dict_equal(d, e));
    ck_assert_str_eq(edl_dict_bind(e, 0).key2, "-21");
    ck_assert_str_eq(edl_dict_separators(e), ",");
    free(buf);
    edl_dict_destroy(d);
    edl_dict_destroy(e);
}
END_TEST

START_TEST(decode_never_trusts_input)
{
    edl_dict *d = sample(), *e;
    unsigned char *buf;
    size_t len;
    char err[256];
    ck_assert_int_eq(edl_dict_encode(d, &buf, &len), EDL_OK);
    /* Every truncation fails cleanly, with a message. */
    for (size_t n = 0; n < len; n++) {
        e = (edl_dict *)1;
        err[0] = 0;
        ck_assert_int_ne(edl_dict_decode(buf, n, &e, err, sizeof err), EDL_OK);
        ck_assert_ptr_null(e);
        ck_assert(strstr(err, "at byte") != NULL);
    }
    /* Every flipped byte is caught (by the CRC, or by the checks that precede it). */
    for (size_t i = 0; i < len; i++) {
        buf[i] ^= 0x5A;
        ck_assert_int_ne(edl_dict_decode(buf, len, &e, err, sizeof err), EDL_OK);
        buf[i] ^= 0x5A;
    }
    /* A corrupt body with a recomputed CRC is still rejected by the structure checks. */
    ck_assert_int_eq(edl_dict_decode(buf, len, &e, err, sizeof err), EDL_OK);
    edl_dict_destroy(e);
    unsigned char *bad = malloc(len);
    memcpy(bad, buf, len);
    bad[8] = 2;
    ck_assert_int_eq(edl_dict_decode(bad, len, &e, err, sizeof err), EDL_EFORMAT);
    ck_assert_str_eq(err, "unsupported dictionary version 2 at byte 8");
    memcpy(bad, "EDLDICX", 8);
    ck_assert_int_eq(edl_dict_decode(bad, len, &e, err, sizeof err), EDL_EFORMAT);
    ck_assert_str_eq(err, "bad magic at byte 0");
    free(bad);
    free(buf);
    edl_dict_destroy(d);
}
END_TEST

START_TEST(merge_adds_and_checks)
{
    edl_dict *d = sample(), *ext = sample(), *clash = sample();
    edl_record *r, *old = (edl_record *)edl_dict_find_record(d, "enter");
    ck_assert_int_eq(edl_dict_add_record(ext, "user", NULL, &r), EDL_OK);
    ck_assert_int_eq(edl_record_add_field(r, "type", EDL_UINT16, EDL_ENC_ULEB, NULL, NULL), EDL_OK);
    ck_assert_int_eq(edl_dict_add_bind(ext, "128", NULL, "user"), EDL_OK);
    ck_assert_int_eq(edl_dict_merge(d, ext), EDL_OK);
    ck_assert_uint_eq(edl_dict_record_count(d), 3);
    ck_assert_ptr_eq(edl_dict_find_record(d, "enter"), old);   /* descriptors never move */
    ck_assert_int_eq(edl_dict_merge(d, ext), EDL_OK);           /* idempotent */
    ck_assert_uint_eq(edl_dict_bind_count(d), 3);
    ck_assert(edl_dict_equal(d, ext));
    /* Same name, other fields: refused, and d is unchanged. */
    ck_assert_int_eq(edl_dict_add_record(clash, "user", NULL, &r), EDL_OK);
    ck_assert_int_eq(edl_record_add_field(r, "other", EDL_UINT8, EDL_ENC_FIXED, NULL, NULL), EDL_OK);
    ck_assert_int_eq(edl_dict_merge(d, clash), EDL_EEXIST);
    ck_assert(edl_dict_equal(d, ext));
    edl_dict_destroy(d);
    edl_dict_destroy(ext);
    edl_dict_destroy(clash);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("edl-dict");
    TCase *tc = tcase_create("dict");
    tcase_add_test(tc, build_and_read);
    tcase_add_test(tc, rejects_misuse);
    tcase_add_test(tc, round_trip_is_identical);
    tcase_add_test(tc, ascii_round_trip);
    tcase_add_test(tc, decode_never_trusts_input);
    tcase_add_test(tc, merge_adds_and_checks);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
