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


/* An ascii dictionary using every 1.1 addition. */
static edl_dict *sample11(void)
{
    edl_dict *d;
    edl_record *r;
    ck_assert_int_eq(edl_dict_create("picl", "2.0", EDL_REPR_ASCII, &d), EDL_OK);
    ck_assert_int_eq(edl_dict_set_ascii(d, " \t", "#"), EDL_OK);
    ck_assert_int_eq(edl_dict_set_ascii_syntax(d, EDL_ASCII_MERGE | EDL_ASCII_TRAILING_COMMENT,
                                               '"', 1), EDL_OK);
    ck_assert_int_eq(edl_dict_set_roles(d, "time", "s", "proc", ""), EDL_OK);
    ck_assert_int_eq(edl_dict_set_key(d, 2, 0, 1), EDL_OK);
    ck_assert_int_eq(edl_dict_add_record(d, "ev", NULL, &r), EDL_OK);
    ck_assert_int_eq(edl_record_add_field(r, "rectype", EDL_INT32, EDL_ENC_TEXT, NULL, NULL), EDL_OK);
    ck_assert_int_eq(edl_record_add_field(r, "event", EDL_INT32, EDL_ENC_TEXT, NULL, NULL), EDL_OK);
    ck_assert_int_eq(edl_record_add_field(r, "time", EDL_FLOAT64, EDL_ENC_TEXT, "s", NULL), EDL_OK);
    ck_assert_int_eq(edl_record_add_field(r, "proc", EDL_INT32, EDL_ENC_TEXT, NULL, NULL), EDL_OK);
    ck_assert_int_eq(edl_record_add_field(r, "ndata", EDL_INT32, EDL_ENC_TEXT, NULL, NULL), EDL_OK);
    ck_assert_int_eq(edl_record_add_field_ex(r, "descriptor", EDL_STRING, EDL_ENC_TEXT,
                                             EDL_FIELD_OPTIONAL, NULL, NULL), EDL_OK);
    ck_assert_int_eq(edl_record_add_shaped_array(r, "data", "ndata", "descriptor", "items",
                                                 EDL_SHAPE_FORMAT, NULL, "the items"), EDL_OK);
    edl_component one = {"", EDL_INT64, EDL_ENC_TEXT};
    edl_component two[2] = {{"event", EDL_INT32, EDL_ENC_TEXT}, {"value", EDL_FLOAT64, EDL_ENC_TEXT}};
    ck_assert_int_eq(edl_record_add_shape(r, "2", &one, 1), EDL_OK);
    ck_assert_int_eq(edl_record_add_shape(r, "pair", two, 2), EDL_OK);
    ck_assert_int_eq(edl_dict_add_record(d, "rest", "anything", &r), EDL_OK);
    ck_assert_int_eq(edl_record_add_field(r, "rectype", EDL_INT32, EDL_ENC_TEXT, NULL, NULL), EDL_OK);
    ck_assert_int_eq(edl_record_add_field(r, "event", EDL_INT32, EDL_ENC_TEXT, NULL, NULL), EDL_OK);
    ck_assert_int_eq(edl_record_add_field(r, "n", EDL_UINT8, EDL_ENC_TEXT, NULL, NULL), EDL_OK);
    ck_assert_int_eq(edl_record_add_array(r, "fixed", "n", two, 2, "W", NULL), EDL_OK);
    ck_assert_int_eq(edl_record_add_array(r, "words", NULL, &one, 1, NULL, NULL), EDL_OK);
    ck_assert_int_eq(edl_dict_add_bind(d, "-3", "-21", "ev"), EDL_OK);
    ck_assert_int_eq(edl_dict_add_bind(d, "-3", NULL, "rest"), EDL_OK);
    ck_assert_int_eq(edl_dict_set_default_record(d, "rest"), EDL_OK);
    ck_assert_int_eq(edl_dict_set_time_fraction(d, "us", "us"), EDL_OK);
    return d;
}

START_TEST(variable_parts)
{
    edl_dict *d = sample11();
    const edl_record *r = edl_dict_find_record(d, "ev");
    const edl_field *f = edl_record_field(r, 6);
    ck_assert_int_eq(edl_field_type(f), EDL_ARRAY);
    ck_assert_int_eq(edl_field_encoding(f), EDL_ENC_NONE);
    ck_assert_uint_eq(edl_field_flags(f), EDL_FIELD_ARRAY);
    ck_assert_uint_eq(edl_field_flags(edl_record_field(r, 5)), EDL_FIELD_OPTIONAL);
    ck_assert_uint_eq(edl_field_count_field(f), 4);
    ck_assert_uint_eq(edl_field_shape_field(f), 5);
    ck_assert_str_eq(edl_field_shape_name(f), "items");
    ck_assert_uint_eq(edl_field_shape_flags(f), EDL_SHAPE_FORMAT);
    ck_assert_uint_eq(edl_field_shape_count(f), 2);
    ck_assert_str_eq(edl_field_shape_token(f, 1), "pair");
    ck_assert_uint_eq(edl_field_component_count(f, 1), 2);
    ck_assert_str_eq(edl_field_component(f, 1, 1).name, "value");
    ck_assert_int_eq(edl_field_component(f, 1, 1).type, EDL_FLOAT64);
    ck_assert_int_eq(edl_field_find_shape(f, "pair"), 1);
    ck_assert_int_eq(edl_field_find_shape(f, "%d"), -1);
    ck_assert_str_eq(edl_type_name(EDL_ARRAY), "array");
    const edl_field *rest = edl_record_field(edl_dict_find_record(d, "rest"), 4);
    ck_assert_uint_eq(edl_field_count_field(rest), EDL_NO_FIELD);
    ck_assert_uint_eq(edl_field_shape_field(rest), EDL_NO_FIELD);
    ck_assert_str_eq(edl_field_shape_token(rest, 0), "");
    /* scalar fields answer "not an array" */
    ck_assert_uint_eq(edl_field_count_field(edl_record_field(r, 0)), EDL_NO_FIELD);
    ck_assert_uint_eq(edl_field_shape_count(edl_record_field(r, 0)), 0);
    ck_assert_str_eq(edl_dict_time_fraction_field(d), "us");
    ck_assert_uint_eq(edl_dict_skip_lines(d), 1);
    ck_assert_int_eq(edl_dict_quote(d), '"');
    edl_dict_destroy(d);
}
END_TEST

START_TEST(variable_part_rules)
{
    edl_dict *a, *b;
    edl_record *r, *q;
    edl_component one = {"", EDL_INT64, EDL_ENC_TEXT};
    edl_component bad = {"1x", EDL_INT64, EDL_ENC_TEXT};
    edl_component dup[2] = {{"a", EDL_INT64, EDL_ENC_TEXT}, {"a", EDL_INT8, EDL_ENC_TEXT}};
    ck_assert_int_eq(edl_dict_create("a", "", EDL_REPR_ASCII, &a), EDL_OK);
    ck_assert_int_eq(edl_dict_add_record(a, "r", NULL, &r), EDL_OK);
    ck_assert_int_eq(edl_record_add_field(r, "n", EDL_UINT8, EDL_ENC_TEXT, NULL, NULL), EDL_OK);
    ck_assert_int_eq(edl_record_add_field(r, "f", EDL_FLOAT64, EDL_ENC_TEXT, NULL, NULL), EDL_OK);
    ck_assert_int_eq(edl_record_add_array(r, "x", "f", &one, 1, NULL, NULL), EDL_EINVAL);
    ck_assert_int_eq(edl_record_add_array(r, "x", "nope", &one, 1, NULL, NULL), EDL_EINVAL);
    ck_assert_int_eq(edl_record_add_array(r, "x", "n", &bad, 1, NULL, NULL), EDL_EINVAL);
    ck_assert_int_eq(edl_record_add_array(r, "x", "n", dup, 2, NULL, NULL), EDL_EINVAL);
    ck_assert_int_eq(edl_record_add_array(r, "x", "n", NULL, 0, NULL, NULL), EDL_EINVAL);
    ck_assert_int_eq(edl_record_add_shaped_array(r, "x", "n", "f", "s", 0, NULL, NULL), EDL_EINVAL);
    ck_assert_int_eq(edl_record_add_shape(r, "2", &one, 1), EDL_EINVAL);    /* not shaped */
    ck_assert_int_eq(edl_record_add_shaped_array(r, "x", "n", "n", "s", 0, NULL, NULL), EDL_OK);
    ck_assert_int_eq(edl_record_add_shape(r, "2", &one, 1), EDL_OK);
    ck_assert_int_eq(edl_record_add_shape(r, "2", &one, 1), EDL_EEXIST);
    ck_assert_int_eq(edl_record_add_field_ex(r, "o", EDL_INT8, EDL_ENC_TEXT, EDL_FIELD_OPTIONAL,
                                             NULL, NULL), EDL_OK);
    ck_assert_int_eq(edl_record_add_field(r, "req", EDL_INT8, EDL_ENC_TEXT, NULL, NULL), EDL_EINVAL);
    ck_assert_int_eq(edl_record_add_field_ex(r, "z", EDL_INT8, EDL_ENC_TEXT, 0x80, NULL, NULL),
                     EDL_EINVAL);
    ck_assert_int_eq(edl_record_add_array(r, "rest", NULL, &one, 1, NULL, NULL), EDL_OK);
    ck_assert_int_eq(edl_record_add_field_ex(r, "after", EDL_INT8, EDL_ENC_TEXT, EDL_FIELD_OPTIONAL,
                                             NULL, NULL), EDL_EINVAL);
    ck_assert_int_eq(edl_dict_set_ascii_syntax(a, 0x10, 0, 0), EDL_EINVAL);
    ck_assert_int_eq(edl_dict_set_ascii_syntax(a, 0, ' ', 0), EDL_EINVAL);  /* a separator */
    ck_assert_int_eq(edl_dict_set_ascii_syntax(a, EDL_ASCII_QUOTE_DOUBLED, 0, 0), EDL_EINVAL);
    ck_assert_int_eq(edl_dict_set_ascii_syntax(a, 0, '"', 70000), EDL_EINVAL);
    ck_assert_int_eq(edl_dict_set_ascii_syntax(a, 0, '\'', 3), EDL_OK);
    ck_assert_int_eq(edl_dict_set_ascii(a, " '", ""), EDL_EINVAL);          /* the quote */
    ck_assert_int_eq(edl_dict_set_default_record(a, "none"), EDL_ENOENT);
    ck_assert_int_eq(edl_dict_set_time_fraction(a, "us", "weeks"), EDL_EINVAL);
    ck_assert_int_eq(edl_dict_set_time_fraction(a, "us", NULL), EDL_EINVAL);
    /* Binary: no optional fields, no rest of record, no shapes chosen by a field. */
    ck_assert_int_eq(edl_dict_create("b", "", EDL_REPR_BINARY, &b), EDL_OK);
    ck_assert_int_eq(edl_dict_set_ascii_syntax(b, 0, 0, 0), EDL_EINVAL);
    ck_assert_int_eq(edl_dict_add_record(b, "q", NULL, &q), EDL_OK);
    ck_assert_int_eq(edl_record_add_field(q, "n", EDL_UINT8, EDL_ENC_FIXED, NULL, NULL), EDL_OK);
    ck_assert_int_eq(edl_record_add_field_ex(q, "o", EDL_INT8, EDL_ENC_FIXED, EDL_FIELD_OPTIONAL,
                                             NULL, NULL), EDL_EINVAL);
    edl_component fx = {"v", EDL_UINT32, EDL_ENC_ULEB};
    ck_assert_int_eq(edl_record_add_array(q, "v", NULL, &fx, 1, NULL, NULL), EDL_EINVAL);
    ck_assert_int_eq(edl_record_add_shaped_array(q, "v", "n", "n", "", 0, NULL, NULL), EDL_EINVAL);
    ck_assert_int_eq(edl_record_add_array(q, "v", "n", &fx, 1, NULL, NULL), EDL_OK);
    edl_dict_destroy(a);
    edl_dict_destroy(b);
}
END_TEST

START_TEST(v11_round_trip)
{
    edl_dict *d = sample11(), *e = NULL, *m = NULL;
    unsigned char *buf, *buf2;
    size_t len, len2;
    char err[256];
    ck_assert_int_eq(edl_dict_encode(d, &buf, &len), EDL_OK);
    ck_assert_uint_eq(buf[10], 1);   /* version 1.1 */
    ck_assert_int_eq(edl_dict_decode(buf, len, &e, err, sizeof err), EDL_OK);
    ck_assert(edl_dict_equal(d, e));
    ck_assert_int_eq(edl_dict_encode(e, &buf2, &len2), EDL_OK);
    ck_assert_uint_eq(len, len2);
    ck_assert_mem_eq(buf, buf2, len);
    ck_assert_int_eq(edl_dict_default_record(e), 1);
    ck_assert_uint_eq(edl_dict_ascii_flags(e), EDL_ASCII_MERGE | EDL_ASCII_TRAILING_COMMENT);
    free(buf2);
    /* Merging copies arrays with their shapes. */
    ck_assert_int_eq(edl_dict_create("picl", "2.0", EDL_REPR_ASCII, &m), EDL_OK);
    ck_assert_int_eq(edl_dict_merge(m, d), EDL_OK);
    ck_assert_uint_eq(edl_dict_record_count(m), 2);
    const edl_field *f = edl_record_field(edl_dict_find_record(m, "ev"), 6);
    ck_assert_uint_eq(edl_field_shape_count(f), 2);
    ck_assert_str_eq(edl_field_shape_token(f, 0), "2");
    ck_assert_int_eq(edl_dict_merge(m, d), EDL_OK);   /* identical: fine */
    /* Every truncation and every flipped byte of a 1.1 dictionary fails cleanly. */
    for (size_t n = 0; n < len; n++) {
        edl_dict *x = (edl_dict *)1;
        ck_assert_int_ne(edl_dict_decode(buf, n, &x, err, sizeof err), EDL_OK);
        ck_assert_ptr_null(x);
    }
    for (size_t i = 0; i < len; i++) {
        edl_dict *x = NULL;
        buf[i] ^= 0x21;
        ck_assert_int_ne(edl_dict_decode(buf, len, &x, err, sizeof err), EDL_OK);
        buf[i] ^= 0x21;
    }
    free(buf);
    edl_dict_destroy(d);
    edl_dict_destroy(e);
    edl_dict_destroy(m);
}
END_TEST

START_TEST(v10_stays_v10)
{
    /* A dictionary using nothing of 1.1 keeps its 1.0 bytes (ECL's does). */
    edl_dict *d = sample(), *a, *e;
    unsigned char *buf;
    size_t len;
    ck_assert_int_eq(edl_dict_encode(d, &buf, &len), EDL_OK);
    ck_assert_uint_eq(buf[10], 0);
    free(buf);
    /* An ascii dictionary with none of the 1.1 syntax also stays 1.0 and reads back. */
    ck_assert_int_eq(edl_dict_create("old", "1", EDL_REPR_ASCII, &a), EDL_OK);
    ck_assert_int_eq(edl_dict_set_ascii_syntax(a, 0, 0, 0), EDL_OK);
    ck_assert_int_eq(edl_dict_encode(a, &buf, &len), EDL_OK);
    ck_assert_uint_eq(buf[10], 0);
    ck_assert_int_eq(edl_dict_decode(buf, len, &e, NULL, 0), EDL_OK);
    ck_assert(edl_dict_equal(a, e));
    ck_assert_int_eq(edl_dict_quote(e), 0);
    free(buf);
    edl_dict_destroy(a);
    edl_dict_destroy(e);
    edl_dict_destroy(d);
}
END_TEST

START_TEST(lookup)
{
    edl_dict *d = sample11();
    ck_assert_int_eq(edl_dict_lookup(d, "-3", "-21"), 0);
    ck_assert_int_eq(edl_dict_lookup(d, "-3", "5"), 1);       /* any secondary */
    ck_assert_int_eq(edl_dict_lookup(d, "-3", NULL), 1);
    ck_assert_int_eq(edl_dict_lookup(d, "-9", "1"), 1);       /* the default */
    ck_assert_int_eq(edl_dict_set_default_record(d, NULL), EDL_OK);
    ck_assert_int_eq(edl_dict_lookup(d, "-9", "1"), -1);
    edl_dict_destroy(d);
    edl_dict *e = sample();
    ck_assert_int_eq(edl_dict_lookup(e, "7", NULL), 1);
    ck_assert_int_eq(edl_dict_lookup(e, "8", NULL), -1);
    ck_assert_int_eq(edl_dict_set_key(e, 0, EDL_NO_KEY, EDL_NO_KEY), EDL_OK);
    ck_assert_int_eq(edl_dict_lookup(e, NULL, NULL), 0);      /* no key: the first record */
    ck_assert_int_eq(edl_dict_set_default_record(e, "sample"), EDL_OK);
    ck_assert_int_eq(edl_dict_lookup(e, NULL, NULL), 1);
    edl_dict_destroy(e);
}
END_TEST

START_TEST(formats)
{
    edl_component c[4];
    ck_assert_int_eq(edl_format_components("%d%lf", c, 4), 2);
    ck_assert_int_eq(c[0].type, EDL_INT64);
    ck_assert_int_eq(c[1].type, EDL_FLOAT64);
    ck_assert_int_eq(edl_format_components("%-5.2e %% %u %s %c %x", c, 4), 5);
    ck_assert_int_eq(c[1].type, EDL_UINT64);
    ck_assert_int_eq(c[2].type, EDL_STRING);
    ck_assert_int_eq(edl_format_components("%lld", NULL, 0), 1);
    ck_assert_int_eq(edl_format_components("2", c, 4), -1);
    ck_assert_int_eq(edl_format_components("%q", c, 4), -1);
    ck_assert_int_eq(edl_format_components("%", c, 4), -1);
    ck_assert_int_eq(edl_format_components("%%", c, 4), -1);
    ck_assert_int_eq(edl_format_components(NULL, c, 4), -1);
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
    tcase_add_test(tc, variable_parts);
    tcase_add_test(tc, variable_part_rules);
    tcase_add_test(tc, v11_round_trip);
    tcase_add_test(tc, v10_stays_v10);
    tcase_add_test(tc, lookup);
    tcase_add_test(tc, formats);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
