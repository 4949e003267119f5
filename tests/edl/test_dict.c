/* test_dict.c -- unit tests of the EDL dictionary model and its binary form. */
#include "config.h"

#include <check.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

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

/* Rewrites the header of a dictionary cut to len bytes: minor, length, CRC. */
static void reseal(unsigned char *buf, size_t len, unsigned minor)
{
    buf[10] = (unsigned char)minor;
    buf[11] = 0;
    for (int i = 0; i < 4; i++)
        buf[12 + i] = (unsigned char)(len >> (8 * i));
    memset(buf + 16, 0, 4);
    uLong crc = crc32(0L, buf, (uInt)len);
    for (int i = 0; i < 4; i++)
        buf[16 + i] = (unsigned char)(crc >> (8 * i));
}

/* Every truncation of buf and every flipped byte fails cleanly. */
static void decode_fails_on_damage(unsigned char *buf, size_t len)
{
    char err[256];
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
    /* A corrupt body with a recomputed CRC is still rejected by the structure
     * checks: the type code of the first field ("type", uint16) made 99. */
    ck_assert_int_eq(edl_dict_decode(buf, len, &e, err, sizeof err), EDL_OK);
    edl_dict_destroy(e);
    unsigned char *bad = malloc(len);
    memcpy(bad, buf, len);
    unsigned char *type = memmem(bad, len, "\4\0\0\0type", 8);
    ck_assert_ptr_nonnull(type);
    ck_assert_uint_eq(type[8], EDL_UINT16);
    type[8] = 99;
    reseal(bad, len, bad[10]);
    ck_assert_int_eq(edl_dict_decode(bad, len, &e, err, sizeof err), EDL_EFORMAT);
    ck_assert(strstr(err, "bad field 'type' (type 99") != NULL);
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
    decode_fails_on_damage(buf, len);
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

/* ---- meaning (1.2) ---- */

static void add_common(edl_record *r)
{
    ck_assert_int_eq(edl_record_add_field(r, "type", EDL_UINT16, EDL_ENC_ULEB, NULL, NULL), EDL_OK);
    ck_assert_int_eq(edl_record_add_field(r, "time", EDL_UINT64, EDL_ENC_TDELTA, NULL, NULL),
                     EDL_OK);
}

/* A binary dictionary using every part of the meaning: a definition, a
 * reference, a conditional role, a region, a designation reference. */
static edl_dict *sample12(void)
{
    edl_dict *d;
    edl_record *r;
    ck_assert_int_eq(edl_dict_create("m", "1", EDL_REPR_BINARY, &d), EDL_OK);
    ck_assert_int_eq(edl_dict_set_roles(d, "time", "ticks", "", ""), EDL_OK);
    ck_assert_int_eq(edl_dict_set_key(d, 1, 0, EDL_NO_KEY), EDL_OK);
    /* the user before the definition it refers to: order does not matter */
    ck_assert_int_eq(edl_dict_add_record(d, "enter", NULL, &r), EDL_OK);
    add_common(r);
    ck_assert_int_eq(edl_record_add_field(r, "region", EDL_UINT32, EDL_ENC_ULEB, NULL, NULL),
                     EDL_OK);
    edl_role enter = {EDL_ROLE_ENTER, NULL, NULL};
    edl_field_meaning region = {"region", EDL_FROLE_REGION, {"region_def", "region", 0}};
    edl_meaning m = {&enter, 1, NULL, &region, 1, NULL};
    ck_assert_int_eq(edl_record_set_meaning(r, &m), EDL_OK);

    ck_assert_int_eq(edl_dict_add_record(d, "region_def", NULL, &r), EDL_OK);
    add_common(r);
    ck_assert_int_eq(edl_record_add_field(r, "region", EDL_UINT32, EDL_ENC_ULEB, NULL, NULL),
                     EDL_OK);
    ck_assert_int_eq(edl_record_add_field(r, "name", EDL_STRING, EDL_ENC_LSTRING, NULL, NULL),
                     EDL_OK);
    edl_role def = {EDL_ROLE_DEFINITION, NULL, NULL};
    edl_field_meaning name = {"name", EDL_FROLE_NAME, {NULL, NULL, 0}};
    edl_meaning md = {&def, 1, NULL, &name, 1, NULL};
    ck_assert_int_eq(edl_record_set_meaning(r, &md), EDL_OK);

    ck_assert_int_eq(edl_dict_add_record(d, "complete", NULL, &r), EDL_OK);
    add_common(r);
    ck_assert_int_eq(edl_record_add_field(r, "request", EDL_UINT64, EDL_ENC_ULEB, NULL, NULL),
                     EDL_OK);
    ck_assert_int_eq(edl_record_add_field(r, "kind", EDL_UINT8, EDL_ENC_ULEB, NULL, NULL), EDL_OK);
    ck_assert_int_eq(edl_record_add_field(r, "peer", EDL_INT64, EDL_ENC_SLEB, NULL, NULL), EDL_OK);
    /* given qualifier first: stored sorted by code */
    edl_role croles[2] = {{EDL_ROLE_RECV, "kind", "1"}, {EDL_ROLE_REQUEST_COMPLETE, NULL, NULL}};
    edl_field_meaning cf[2] = {{"request", EDL_FROLE_REQUEST, {NULL, NULL, 0}},
                               {"peer", EDL_FROLE_PEER, {NULL, NULL, 0}}};
    edl_meaning mc = {croles, 2, NULL, cf, 2, NULL};
    ck_assert_int_eq(edl_record_set_meaning(r, &mc), EDL_OK);

    ck_assert_int_eq(edl_dict_add_record(d, "send_begin", NULL, &r), EDL_OK);
    add_common(r);
    ck_assert_int_eq(edl_record_add_field(r, "dest", EDL_INT32, EDL_ENC_SLEB, NULL, NULL), EDL_OK);
    edl_role sroles[3] = {{EDL_ROLE_ENTER, NULL, NULL}, {EDL_ROLE_SEND, NULL, NULL},
                          {EDL_ROLE_COMMUNICATION, NULL, NULL}};
    edl_field_meaning sf = {"dest", EDL_FROLE_DEST, {NULL, NULL, 0}};
    edl_meaning ms = {sroles, 3, "send", &sf, 1, NULL};
    ck_assert_int_eq(edl_record_set_meaning(r, &ms), EDL_OK);

    edl_ref tref = {"region_def", "region", EDL_REF_GLOBAL};
    ck_assert_int_eq(edl_dict_set_designation_ref(d, EDL_FROLE_THREAD, &tref), EDL_OK);
    ck_assert_int_eq(edl_dict_add_bind(d, "1", NULL, "enter"), EDL_OK);
    ck_assert_int_eq(edl_dict_add_bind(d, "2", NULL, "region_def"), EDL_OK);
    ck_assert_int_eq(edl_dict_add_bind(d, "3", NULL, "complete"), EDL_OK);
    ck_assert_int_eq(edl_dict_add_bind(d, "4", NULL, "send_begin"), EDL_OK);
    return d;
}

START_TEST(meaning_read_back)
{
    edl_dict *d = sample12(), *e = NULL;
    unsigned char *buf, *buf2;
    size_t len, len2;
    char err[256];
    ck_assert_int_eq(edl_dict_encode(d, &buf, &len), EDL_OK);
    ck_assert_uint_eq(buf[10], 2);   /* version 1.2 */
    ck_assert_int_eq(edl_dict_decode(buf, len, &e, err, sizeof err), EDL_OK);
    ck_assert(edl_dict_equal(d, e));
    ck_assert_int_eq(edl_dict_encode(e, &buf2, &len2), EDL_OK);
    ck_assert_uint_eq(len, len2);
    ck_assert_mem_eq(buf, buf2, len);
    free(buf2);

    const edl_record *c = edl_dict_find_record(e, "complete");
    ck_assert_uint_eq(edl_record_role_count(c), 2);
    edl_role r0 = edl_record_role_at(c, 0), r1 = edl_record_role_at(c, 1);
    ck_assert_int_eq(r0.role, EDL_ROLE_REQUEST_COMPLETE);
    ck_assert_ptr_null(r0.when_field);
    ck_assert_int_eq(r1.role, EDL_ROLE_RECV);
    ck_assert_str_eq(r1.when_field, "kind");
    ck_assert_str_eq(r1.when_value, "1");
    ck_assert_int_eq(edl_record_has_role(c, EDL_ROLE_REQUEST_COMPLETE), 1);
    ck_assert_int_eq(edl_record_has_role(c, EDL_ROLE_RECV), 2);
    ck_assert_int_eq(edl_record_has_role(c, EDL_ROLE_SEND), 0);
    ck_assert_int_eq(edl_field_role_of(edl_record_field(c, 4)), EDL_FROLE_PEER);
    ck_assert_int_eq(edl_field_role_of(edl_record_field(c, 3)), EDL_FROLE_NONE);

    const edl_record *en = edl_dict_find_record(e, "enter");
    edl_ref ref = edl_field_ref_of(edl_record_field(en, 2));
    ck_assert_str_eq(ref.record, "region_def");
    ck_assert_str_eq(ref.field, "region");
    ck_assert_uint_eq(ref.flags, 0);
    ck_assert_ptr_null(edl_field_ref_of(edl_record_field(en, 1)).record);
    ck_assert_str_eq(edl_record_region(edl_dict_find_record(e, "send_begin")), "send");
    ck_assert_str_eq(edl_record_region(en), "");
    edl_ref tref = edl_dict_designation_ref(e, EDL_FROLE_THREAD);
    ck_assert_str_eq(tref.record, "region_def");
    ck_assert_uint_eq(tref.flags, EDL_REF_GLOBAL);
    ck_assert_ptr_null(edl_dict_designation_ref(e, EDL_FROLE_PROCESS).record);

    /* names both ways */
    ck_assert_str_eq(edl_record_role_name(EDL_ROLE_REQUEST_COMPLETE), "request_complete");
    ck_assert_int_eq(edl_record_role_by_name("idle"), EDL_ROLE_IDLE);
    ck_assert_int_eq(edl_record_role_by_name("peer"), EDL_ROLE_NONE);
    ck_assert_ptr_null(edl_record_role_name((edl_record_role)31));
    ck_assert_str_eq(edl_field_role_name(EDL_FROLE_BYTES_RECEIVED), "bytes_received");
    ck_assert_int_eq(edl_field_role_by_name("members"), EDL_FROLE_MEMBERS);
    ck_assert_ptr_null(edl_field_role_name(EDL_FROLE_LIMIT));
    /* the roles of the 1.4 tail, by name too (past any code not yet given) */
    ck_assert_str_eq(edl_field_role_name(EDL_FROLE_LOCK_TYPE), "lock_type");
    ck_assert_int_eq(edl_field_role_by_name("lock_type"), EDL_FROLE_LOCK_TYPE);
    ck_assert_int_eq(edl_field_role_by_name("correlation"), EDL_FROLE_CORRELATION);

    /* Every truncation and every flipped byte fails cleanly. */
    decode_fails_on_damage(buf, len);
    free(buf);
    edl_dict_destroy(d);
    edl_dict_destroy(e);
}
END_TEST

START_TEST(meaning_is_a_tail)
{
    /* 1.2 only appends: the same bytes without the meaning tail, sealed as
     * 1.1, are the dictionary without roles -- which is what a 1.1 reader,
     * skipping the tail, sees. */
    edl_dict *d = sample12(), *plain, *e = NULL;
    unsigned char *buf, *pbuf;
    size_t len, plen;
    char err[256];
    ck_assert_int_eq(edl_dict_encode(d, &buf, &len), EDL_OK);
    ck_assert_int_eq(edl_dict_create("m", "1", EDL_REPR_BINARY, &plain), EDL_OK);
    ck_assert_int_eq(edl_dict_set_roles(plain, "time", "ticks", "", ""), EDL_OK);
    ck_assert_int_eq(edl_dict_set_key(plain, 1, 0, EDL_NO_KEY), EDL_OK);
    for (size_t i = 0; i < edl_dict_record_count(d); i++) {
        const edl_record *s = edl_dict_record(d, i);
        edl_record *r;
        ck_assert_int_eq(edl_dict_add_record(plain, edl_record_name(s), NULL, &r), EDL_OK);
        for (size_t j = 0; j < edl_record_field_count(s); j++) {
            const edl_field *f = edl_record_field(s, j);
            ck_assert_int_eq(edl_record_add_field(r, edl_field_name(f), edl_field_type(f),
                                                  edl_field_encoding(f), NULL, NULL), EDL_OK);
        }
    }
    for (size_t i = 0; i < edl_dict_bind_count(d); i++) {
        edl_bind b = edl_dict_bind(d, i);
        ck_assert_int_eq(edl_dict_add_bind(plain, b.key1, NULL,
                                           edl_record_name(edl_dict_record(d, b.record))),
                         EDL_OK);
    }
    ck_assert_int_eq(edl_dict_encode(plain, &pbuf, &plen), EDL_OK);
    ck_assert_uint_eq(pbuf[10], 0);
    /* the 1.1 tail of a binary dictionary without 1.1 features: 16 bytes */
    size_t cut = plen + 16;
    ck_assert_uint_lt(cut, len);
    ck_assert_mem_eq(buf + 24, pbuf + 24, plen - 24);
    reseal(buf, cut, 1);
    ck_assert_int_eq(edl_dict_decode(buf, cut, &e, err, sizeof err), EDL_OK);
    ck_assert(edl_dict_equal(e, plain));
    ck_assert_uint_eq(edl_record_role_count(edl_dict_find_record(e, "enter")), 0);
    edl_dict_destroy(e);
    /* a 1.2 dictionary whose tail is missing is refused, never misread */
    reseal(buf, cut, 2);
    ck_assert_int_eq(edl_dict_decode(buf, cut, &e, err, sizeof err), EDL_EFORMAT);
    ck_assert(strstr(err, "truncated") != NULL);
    free(buf);
    free(pbuf);
    edl_dict_destroy(e);
    edl_dict_destroy(plain);
    edl_dict_destroy(d);
}
END_TEST

/* sample12 and two records more: a one-sided put and a broadcast, with the
 * roles of 1.3 when v13, else without them (what a 1.2 reader sees). */
static edl_dict *sample13(int v13)
{
    edl_dict *d = sample12();
    edl_record *r;
    ck_assert_int_eq(edl_dict_add_record(d, "put", NULL, &r), EDL_OK);
    add_common(r);
    ck_assert_int_eq(edl_record_add_field(r, "duration", EDL_UINT64, EDL_ENC_ULEB, NULL, NULL),
                     EDL_OK);
    ck_assert_int_eq(edl_record_add_field(r, "win", EDL_UINT32, EDL_ENC_ULEB, NULL, NULL), EDL_OK);
    ck_assert_int_eq(edl_record_add_field(r, "peer", EDL_INT32, EDL_ENC_SLEB, NULL, NULL), EDL_OK);
    edl_role proles[3] = {{EDL_ROLE_CALL, NULL, NULL}, {EDL_ROLE_RMA_PUT, NULL, NULL},
                          {EDL_ROLE_COMMUNICATION, NULL, NULL}};
    if (!v13)
        proles[1] = proles[2];
    edl_field_meaning pf[3] = {{"duration", EDL_FROLE_DURATION, {NULL, NULL, 0}},
                               {"peer", EDL_FROLE_PEER, {NULL, NULL, 0}},
                               {"win", EDL_FROLE_WINDOW, {NULL, NULL, 0}}};
    edl_meaning mp = {proles, v13 ? 3 : 2, "MPI_Put", pf, v13 ? 3 : 2, NULL};
    ck_assert_int_eq(edl_record_set_meaning(r, &mp), EDL_OK);
    ck_assert_int_eq(edl_dict_add_record(d, "bcast", NULL, &r), EDL_OK);
    add_common(r);
    ck_assert_int_eq(edl_record_add_field(r, "duration", EDL_UINT64, EDL_ENC_ULEB, NULL, NULL),
                     EDL_OK);
    edl_role broles[2] = {{EDL_ROLE_CALL, NULL, NULL}, {EDL_ROLE_COLLECTIVE, NULL, NULL}};
    edl_meaning mb = {broles, 2, "MPI_Bcast", pf, 1, v13 ? "bcast" : NULL};
    ck_assert_int_eq(edl_record_set_meaning(r, &mb), EDL_OK);
    ck_assert_int_eq(edl_dict_add_bind(d, "5", NULL, "put"), EDL_OK);
    ck_assert_int_eq(edl_dict_add_bind(d, "6", NULL, "bcast"), EDL_OK);
    return d;
}

START_TEST(tail_1_3)
{
    /* 1.3 appends too: cut before its tail and sealed as 1.2, a 1.3
     * dictionary is the one without the roles of 1.3 */
    edl_dict *d = sample13(1), *old = sample13(0), *e = NULL;
    unsigned char *buf, *obuf;
    size_t len, olen;
    char err[256];
    ck_assert_int_eq(edl_dict_encode(d, &buf, &len), EDL_OK);
    ck_assert_int_eq(edl_dict_encode(old, &obuf, &olen), EDL_OK);
    ck_assert_uint_eq(buf[10], 3);
    ck_assert_uint_eq(obuf[10], 2);
    ck_assert_int_eq(edl_dict_decode(buf, len, &e, err, sizeof err), EDL_OK);
    ck_assert(edl_dict_equal(e, d));
    const edl_record *b = edl_dict_find_record(e, "bcast"), *p = edl_dict_find_record(e, "put");
    ck_assert_str_eq(edl_record_operation(b), "bcast");
    ck_assert_int_eq(edl_record_has_role(p, EDL_ROLE_RMA_PUT), 1);
    ck_assert_int_eq(edl_field_role_of(edl_record_field(p, (size_t)edl_record_find_field(p, "win"))),
                     EDL_FROLE_WINDOW);
    edl_dict_destroy(e);
    e = NULL;
    ck_assert_uint_lt(olen, len);
    ck_assert_mem_eq(buf + 24, obuf + 24, olen - 24);
    reseal(buf, olen, 2);
    ck_assert_int_eq(edl_dict_decode(buf, olen, &e, err, sizeof err), EDL_OK);
    ck_assert(edl_dict_equal(e, old));
    ck_assert_int_eq(edl_record_has_role(edl_dict_find_record(e, "put"), EDL_ROLE_RMA_PUT), 0);
    edl_dict_destroy(e);
    free(buf);
    ck_assert_int_eq(edl_dict_encode(d, &buf, &len), EDL_OK);
    decode_fails_on_damage(buf, len);
    edl_dict_destroy(d);
    free(buf);
    free(obuf);
    edl_dict_destroy(old);
}
END_TEST

/* sample13, a GPU kernel and a POSIX read: calls with roles device and io,
 * fields with roles correlation and file when v14, else without them (what
 * a 1.3 reader sees). */
static edl_dict *sample14(int v14)
{
    edl_dict *d = sample13(1);
    edl_record *r;
    ck_assert_int_eq(edl_dict_add_record(d, "kernel", NULL, &r), EDL_OK);
    add_common(r);
    ck_assert_int_eq(edl_record_add_field(r, "duration", EDL_UINT64, EDL_ENC_ULEB, NULL, NULL),
                     EDL_OK);
    ck_assert_int_eq(edl_record_add_field(r, "corr", EDL_UINT32, EDL_ENC_ULEB, NULL, NULL),
                     EDL_OK);
    edl_role kroles[2] = {{EDL_ROLE_CALL, NULL, NULL}, {EDL_ROLE_DEVICE, NULL, NULL}};
    edl_field_meaning kf[2] = {{"duration", EDL_FROLE_DURATION, {NULL, NULL, 0}},
                               {"corr", EDL_FROLE_CORRELATION, {NULL, NULL, 0}}};
    edl_meaning mk = {kroles, v14 ? 2 : 1, "saxpy", kf, v14 ? 2 : 1, NULL};
    ck_assert_int_eq(edl_record_set_meaning(r, &mk), EDL_OK);
    ck_assert_int_eq(edl_dict_add_bind(d, "9", NULL, "kernel"), EDL_OK);
    /* and a POSIX read: a call with role io, its file named by a field with role file */
    ck_assert_int_eq(edl_dict_add_record(d, "read", NULL, &r), EDL_OK);
    add_common(r);
    ck_assert_int_eq(edl_record_add_field(r, "duration", EDL_UINT64, EDL_ENC_ULEB, NULL, NULL),
                     EDL_OK);
    ck_assert_int_eq(edl_record_add_field(r, "path", EDL_STRING, EDL_ENC_LSTRING, NULL, NULL),
                     EDL_OK);
    edl_role iroles[2] = {{EDL_ROLE_CALL, NULL, NULL}, {EDL_ROLE_IO, NULL, NULL}};
    edl_field_meaning fi[2] = {{"duration", EDL_FROLE_DURATION, {NULL, NULL, 0}},
                               {"path", EDL_FROLE_FILE, {NULL, NULL, 0}}};
    edl_meaning mi = {iroles, v14 ? 2 : 1, "read", fi, v14 ? 2 : 1, NULL};
    ck_assert_int_eq(edl_record_set_meaning(r, &mi), EDL_OK);
    ck_assert_int_eq(edl_dict_add_bind(d, "10", NULL, "read"), EDL_OK);
    return d;
}

START_TEST(tail_1_4)
{
    /* 1.4 appends after the 1.3 tail: cut there and sealed as 1.3, a 1.4
     * dictionary is the one without device and correlation, and keeps the
     * roles and operation of 1.3 */
    edl_dict *d = sample14(1), *old = sample14(0), *e = NULL;
    unsigned char *buf, *obuf;
    size_t len, olen;
    char err[256];
    ck_assert_int_eq(edl_dict_encode(d, &buf, &len), EDL_OK);
    ck_assert_int_eq(edl_dict_encode(old, &obuf, &olen), EDL_OK);
    ck_assert_uint_eq(buf[10], 4);
    ck_assert_uint_eq(obuf[10], 3);
    ck_assert_int_eq(edl_dict_decode(buf, len, &e, err, sizeof err), EDL_OK);
    ck_assert(edl_dict_equal(e, d));
    const edl_record *k = edl_dict_find_record(e, "kernel");
    ck_assert_int_eq(edl_record_has_role(k, EDL_ROLE_DEVICE), 1);
    ck_assert_int_eq(edl_record_has_role(k, EDL_ROLE_CALL), 1);
    ck_assert_int_eq(edl_field_role_of(edl_record_field(k, (size_t)edl_record_find_field(k, "corr"))),
                     EDL_FROLE_CORRELATION);
    const edl_record *io = edl_dict_find_record(e, "read");
    ck_assert_int_eq(edl_record_has_role(io, EDL_ROLE_IO), 1);
    long path = edl_record_find_field(io, "path");
    ck_assert_int_eq(edl_field_role_of(edl_record_field(io, (size_t)path)), EDL_FROLE_FILE);
    ck_assert_str_eq(edl_record_operation(edl_dict_find_record(e, "bcast")), "bcast");
    edl_dict_destroy(e);
    e = NULL;
    ck_assert_uint_lt(olen, len);
    ck_assert_mem_eq(buf + 24, obuf + 24, olen - 24);
    reseal(buf, olen, 3);
    ck_assert_int_eq(edl_dict_decode(buf, olen, &e, err, sizeof err), EDL_OK);
    ck_assert(edl_dict_equal(e, old));
    ck_assert_int_eq(edl_record_has_role(edl_dict_find_record(e, "kernel"), EDL_ROLE_DEVICE), 0);
    ck_assert_int_eq(edl_record_has_role(edl_dict_find_record(e, "read"), EDL_ROLE_IO), 0);
    ck_assert_int_eq(edl_record_has_role(edl_dict_find_record(e, "read"), EDL_ROLE_CALL), 1);
    edl_dict_destroy(e);
    free(buf);
    ck_assert_int_eq(edl_dict_encode(d, &buf, &len), EDL_OK);
    decode_fails_on_damage(buf, len);
    edl_dict_destroy(d);
    free(buf);
    free(obuf);
    edl_dict_destroy(old);
}
END_TEST

/* sample14 with a copy on a GPU stream whose device field has the role of
 * 1.5, device_id, when v15 (else no role). */
static edl_dict *sample15(int v15)
{
    edl_dict *d = sample14(1);
    edl_record *r;
    ck_assert_int_eq(edl_dict_add_record(d, "copy", NULL, &r), EDL_OK);
    add_common(r);
    ck_assert_int_eq(edl_record_add_field(r, "duration", EDL_UINT64, EDL_ENC_ULEB, NULL, NULL),
                     EDL_OK);
    ck_assert_int_eq(edl_record_add_field(r, "in", EDL_UINT64, EDL_ENC_ULEB, NULL, NULL), EDL_OK);
    ck_assert_int_eq(edl_record_add_field(r, "corr", EDL_UINT32, EDL_ENC_ULEB, NULL, NULL),
                     EDL_OK);
    ck_assert_int_eq(edl_record_add_field(r, "dev", EDL_UINT32, EDL_ENC_ULEB, NULL, NULL), EDL_OK);
    edl_role roles[2] = {{EDL_ROLE_CALL, NULL, NULL}, {EDL_ROLE_DEVICE, NULL, NULL}};
    edl_field_meaning f[4] = {{"duration", EDL_FROLE_DURATION, {NULL, NULL, 0}},
                              {"in", EDL_FROLE_BYTES_RECEIVED, {NULL, NULL, 0}},
                              {"corr", EDL_FROLE_CORRELATION, {NULL, NULL, 0}},
                              {"dev", EDL_FROLE_DEVICE_ID, {NULL, NULL, 0}}};
    edl_meaning m = {roles, 2, "memcpy HtoD", f, v15 ? 4 : 3, NULL};
    ck_assert_int_eq(edl_record_set_meaning(r, &m), EDL_OK);
    ck_assert_int_eq(edl_dict_add_bind(d, "11", NULL, "copy"), EDL_OK);
    return d;
}

START_TEST(tail_1_5)
{
    /* 1.5 appends after the 1.4 tail: cut there and sealed as 1.4, a 1.5
     * dictionary is the one whose device field has no role, with every role
     * of 1.2 to 1.4 -- what a 1.4 reader sees */
    edl_dict *d = sample15(1), *old = sample15(0), *e = NULL;
    unsigned char *buf, *obuf;
    size_t len, olen;
    char err[256];
    ck_assert_str_eq(edl_field_role_name(EDL_FROLE_DEVICE_ID), "device_id");
    ck_assert_int_eq(edl_field_role_by_name("device_id"), EDL_FROLE_DEVICE_ID);
    ck_assert_int_eq(edl_dict_encode(d, &buf, &len), EDL_OK);
    ck_assert_int_eq(edl_dict_encode(old, &obuf, &olen), EDL_OK);
    ck_assert_uint_eq(buf[10], 5);
    ck_assert_uint_eq(obuf[10], 4);
    ck_assert_int_eq(edl_dict_decode(buf, len, &e, err, sizeof err), EDL_OK);
    ck_assert(edl_dict_equal(e, d));
    const edl_record *c = edl_dict_find_record(e, "copy");
    ck_assert_int_eq(edl_field_role_of(edl_record_field(c, (size_t)edl_record_find_field(c, "dev"))),
                     EDL_FROLE_DEVICE_ID);
    ck_assert_int_eq(edl_field_role_of(edl_record_field(c, (size_t)edl_record_find_field(c, "in"))),
                     EDL_FROLE_BYTES_RECEIVED);
    edl_dict_destroy(e);
    e = NULL;
    ck_assert_uint_lt(olen, len);
    ck_assert_mem_eq(buf + 24, obuf + 24, olen - 24);
    reseal(buf, olen, 4);
    ck_assert_int_eq(edl_dict_decode(buf, olen, &e, err, sizeof err), EDL_OK);
    ck_assert(edl_dict_equal(e, old));
    c = edl_dict_find_record(e, "copy");
    ck_assert_int_eq(edl_field_role_of(edl_record_field(c, (size_t)edl_record_find_field(c, "dev"))),
                     EDL_FROLE_NONE);
    ck_assert_int_eq(edl_record_has_role(c, EDL_ROLE_DEVICE), 1);
    ck_assert_int_eq(edl_field_role_of(edl_record_field(c, (size_t)edl_record_find_field(c, "corr"))),
                     EDL_FROLE_CORRELATION);
    edl_dict_destroy(e);
    e = NULL;
    free(buf);
    /* bytes a later minor appends after the 1.5 tail: sealed as 1.6, the
     * dictionary reads as the 1.5 one (a reader skips what follows the
     * tails it knows) */
    ck_assert_int_eq(edl_dict_encode(d, &buf, &len), EDL_OK);
    unsigned char *more = malloc(len + 3);
    ck_assert_ptr_nonnull(more);
    memcpy(more, buf, len);
    memset(more + len, 0xAB, 3);
    reseal(more, len + 3, 6);
    ck_assert_int_eq(edl_dict_decode(more, len + 3, &e, err, sizeof err), EDL_OK);
    ck_assert(edl_dict_equal(e, d));
    edl_dict_destroy(e);
    free(more);
    decode_fails_on_damage(buf, len);
    free(buf);
    free(obuf);
    edl_dict_destroy(d);
    edl_dict_destroy(old);
}
END_TEST

/* set_meaning on a copy of record `name` of sample12 with m; returns the status. */
static edl_status try_meaning(const char *name, const edl_meaning *m)
{
    edl_dict *d = sample12();
    edl_record *r = (edl_record *)edl_dict_find_record(d, name);
    size_t before = edl_record_role_count(r);
    edl_status st = edl_record_set_meaning(r, m);
    if (st != EDL_OK)   /* a refused meaning leaves the record as it was */
        ck_assert_uint_eq(edl_record_role_count(r), before);
    edl_dict_destroy(d);
    return st;
}

START_TEST(meaning_rules)
{
    edl_role enter = {EDL_ROLE_ENTER, NULL, NULL}, leave = {EDL_ROLE_LEAVE, NULL, NULL};
    edl_role marker = {EDL_ROLE_MARKER, NULL, NULL}, send = {EDL_ROLE_SEND, NULL, NULL};
    edl_field_meaning region = {"region", EDL_FROLE_REGION, {NULL, NULL, 0}};
    edl_role two[2] = {enter, leave};
    edl_meaning m = {two, 2, NULL, &region, 1, NULL};
    ck_assert_int_eq(try_meaning("enter", &m), EDL_EINVAL);          /* two primaries */
    edl_role dup[2] = {enter, enter};
    m.roles = dup;
    ck_assert_int_eq(try_meaning("enter", &m), EDL_EINVAL);          /* a role twice */
    m.roles = &send;
    m.nroles = 1;
    ck_assert_int_eq(try_meaning("enter", &m), EDL_EINVAL);          /* no primary */
    edl_role bogus = {(edl_record_role)31, NULL, NULL};
    m.roles = &bogus;
    ck_assert_int_eq(try_meaning("enter", &m), EDL_EINVAL);          /* unknown code */
    edl_role cond_primary = {EDL_ROLE_ENTER, "region", "1"};
    m.roles = &cond_primary;
    ck_assert_int_eq(try_meaning("enter", &m), EDL_EINVAL);          /* conditional primary */
    edl_role ms[2] = {marker, send};
    m.roles = ms;
    m.nroles = 2;
    m.nfields = 0;
    ck_assert_int_eq(try_meaning("enter", &m), EDL_EINVAL);          /* send with a marker */
    m.roles = &enter;
    m.nroles = 1;
    ck_assert_int_eq(try_meaning("enter", &m), EDL_EINVAL);          /* enter without region */
    m.region = "main";
    ck_assert_int_eq(try_meaning("enter", &m), EDL_OK);              /* ...with REGION */
    m.nfields = 1;
    ck_assert_int_eq(try_meaning("enter", &m), EDL_EINVAL);          /* ...not both */
    m.region = NULL;
    edl_field_meaning bad_type = {"region", EDL_FROLE_NAME, {NULL, NULL, 0}};
    m.fields = &bad_type;
    m.nroles = 0;
    ck_assert_int_eq(try_meaning("enter", &m), EDL_EINVAL);          /* name on an integer */
    edl_field_meaning twice[2] = {{"region", EDL_FROLE_VALUE, {NULL, NULL, 0}},
                                  {"time", EDL_FROLE_VALUE, {NULL, NULL, 0}}};
    m.fields = twice;
    m.nfields = 2;
    ck_assert_int_eq(try_meaning("enter", &m), EDL_EINVAL);          /* one field per role */
    edl_field_meaning nofield = {"nope", EDL_FROLE_VALUE, {NULL, NULL, 0}};
    m.fields = &nofield;
    m.nfields = 1;
    ck_assert_int_eq(try_meaning("enter", &m), EDL_EINVAL);          /* unknown field */
    edl_field_meaning badref = {"region", EDL_FROLE_NONE, {"region_def", "9x", 0}};
    m.fields = &badref;
    ck_assert_int_eq(try_meaning("enter", &m), EDL_EINVAL);          /* not a name */
    /* a call needs its duration; send its peer or dest */
    edl_role call[2] = {{EDL_ROLE_CALL, NULL, NULL}, send};
    edl_meaning mcall = {call, 2, "x", NULL, 0, NULL};
    ck_assert_int_eq(try_meaning("complete", &mcall), EDL_EINVAL);
    /* conditions: an existing integer field and a canonical value */
    edl_role rc[2] = {{EDL_ROLE_REQUEST_COMPLETE, NULL, NULL}, {EDL_ROLE_RECV, "kind", "01"}};
    edl_field_meaning cf[2] = {{"request", EDL_FROLE_REQUEST, {NULL, NULL, 0}},
                               {"peer", EDL_FROLE_PEER, {NULL, NULL, 0}}};
    edl_meaning mc = {rc, 2, NULL, cf, 2, NULL};
    ck_assert_int_eq(try_meaning("complete", &mc), EDL_EINVAL);
    rc[1].when_value = "256";                                        /* kind is uint8 */
    ck_assert_int_eq(try_meaning("complete", &mc), EDL_EINVAL);
    rc[1].when_value = "2";
    rc[1].when_field = "nope";
    ck_assert_int_eq(try_meaning("complete", &mc), EDL_EINVAL);
    rc[1].when_field = "kind";
    ck_assert_int_eq(try_meaning("complete", &mc), EDL_OK);
    /* clearing */
    ck_assert_int_eq(try_meaning("complete", NULL), EDL_OK);
    ck_assert_int_eq(edl_record_set_meaning(NULL, NULL), EDL_EINVAL);
    /* designation references: process or thread only */
    edl_dict *d = sample12();
    edl_ref r = {"region_def", "region", 0};
    ck_assert_int_eq(edl_dict_set_designation_ref(d, EDL_FROLE_REGION, &r), EDL_EINVAL);
    ck_assert_int_eq(edl_dict_set_designation_ref(d, EDL_FROLE_THREAD, NULL), EDL_OK);
    ck_assert_ptr_null(edl_dict_designation_ref(d, EDL_FROLE_THREAD).record);
    edl_dict_destroy(d);
}
END_TEST

START_TEST(references_checked_on_encode)
{
    edl_dict *d = sample12();
    unsigned char *buf = NULL;
    size_t len;
    edl_record *r = (edl_record *)edl_dict_find_record(d, "enter");
    edl_role enter = {EDL_ROLE_ENTER, NULL, NULL};
    edl_field_meaning f = {"region", EDL_FROLE_REGION, {"region_def", "nope", 0}};
    edl_meaning m = {&enter, 1, NULL, &f, 1, NULL};
    ck_assert_int_eq(edl_record_set_meaning(r, &m), EDL_OK);
    ck_assert_int_eq(edl_dict_encode(d, &buf, &len), EDL_ENOENT);     /* no such field */
    f.ref.field = "region";
    f.ref.record = "complete";
    ck_assert_int_eq(edl_record_set_meaning(r, &m), EDL_OK);
    ck_assert_int_eq(edl_dict_encode(d, &buf, &len), EDL_ENOENT);     /* no such field there */
    f.ref.record = "send_begin";
    f.ref.field = "dest";
    ck_assert_int_eq(edl_record_set_meaning(r, &m), EDL_OK);
    ck_assert_int_eq(edl_dict_encode(d, &buf, &len), EDL_ENOENT);     /* not a definition */
    ck_assert_ptr_null(buf);
    /* a record the dictionary does not hold: another piece may (a dictionary
     * chunk of one type refers to a definition of the file's dictionary) */
    f.ref.record = "gone";
    ck_assert_int_eq(edl_record_set_meaning(r, &m), EDL_OK);
    ck_assert_int_eq(edl_dict_encode(d, &buf, &len), EDL_OK);
    edl_dict *x;
    ck_assert_int_eq(edl_dict_decode(buf, len, &x, NULL, 0), EDL_OK);
    edl_dict_destroy(x);
    free(buf);
    buf = NULL;
    f.ref.record = "region_def";
    f.ref.field = "region";
    ck_assert_int_eq(edl_record_set_meaning(r, &m), EDL_OK);
    ck_assert_int_eq(edl_dict_encode(d, &buf, &len), EDL_OK);
    free(buf);
    edl_dict_destroy(d);
}
END_TEST

START_TEST(copy_keeps_meaning)
{
    edl_dict *d = sample12(), *c;
    ck_assert_int_eq(edl_dict_create("m", "1", EDL_REPR_BINARY, &c), EDL_OK);
    for (size_t i = 0; i < edl_dict_record_count(d); i++) {
        edl_record *r;
        ck_assert_int_eq(edl_dict_copy_record(c, edl_dict_record(d, i), &r), EDL_OK);
        ck_assert_str_eq(edl_record_name(r), edl_record_name(edl_dict_record(d, i)));
    }
    ck_assert_int_eq(edl_dict_copy_record(c, edl_dict_record(d, 0), NULL), EDL_EEXIST);
    ck_assert_uint_eq(edl_dict_record_count(c), edl_dict_record_count(d));
    const edl_record *x = edl_dict_find_record(c, "complete");
    ck_assert_int_eq(edl_record_has_role(x, EDL_ROLE_RECV), 2);
    ck_assert_str_eq(edl_record_role_at(x, 1).when_value, "1");
    ck_assert_str_eq(edl_field_ref_of(edl_record_field(edl_dict_find_record(c, "enter"), 2)).record,
                     "region_def");
    ck_assert_str_eq(edl_record_region(edl_dict_find_record(c, "send_begin")), "send");
    edl_dict_destroy(c);

    /* merge: meaning copied, differences refused */
    edl_dict *e;
    ck_assert_int_eq(edl_dict_create("m", "1", EDL_REPR_BINARY, &e), EDL_OK);
    ck_assert_int_eq(edl_dict_set_roles(e, "time", "ticks", "", ""), EDL_OK);
    ck_assert_int_eq(edl_dict_set_key(e, 1, 0, EDL_NO_KEY), EDL_OK);
    ck_assert_int_eq(edl_dict_merge(e, d), EDL_OK);
    ck_assert(edl_dict_equal(e, d));
    edl_dict *f = sample12();
    edl_record *r = (edl_record *)edl_dict_find_record(f, "send_begin");
    edl_role enter = {EDL_ROLE_ENTER, NULL, NULL};
    edl_meaning other = {&enter, 1, "other", NULL, 0, NULL};
    ck_assert_int_eq(edl_record_set_meaning(r, &other), EDL_OK);
    ck_assert_int_eq(edl_dict_merge(e, f), EDL_EEXIST);
    ck_assert(edl_dict_equal(e, d));
    edl_dict_destroy(f);
    f = sample12();
    edl_ref tref = {"region_def", "region", 0};
    ck_assert_int_eq(edl_dict_set_designation_ref(f, EDL_FROLE_THREAD, &tref), EDL_OK);
    ck_assert_int_eq(edl_dict_merge(e, f), EDL_EEXIST);     /* designation reference differs */
    edl_dict_destroy(f);
    edl_dict_destroy(e);
    edl_dict_destroy(d);
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
    tcase_add_test(tc, meaning_read_back);
    tcase_add_test(tc, meaning_is_a_tail);
    tcase_add_test(tc, tail_1_3);
    tcase_add_test(tc, tail_1_4);
    tcase_add_test(tc, tail_1_5);
    tcase_add_test(tc, meaning_rules);
    tcase_add_test(tc, references_checked_on_encode);
    tcase_add_test(tc, copy_keeps_meaning);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
