/* test_compile.c -- unit tests of the EDL compiler through its library API
 * (edl_compile_*, diagnostics, edl_dict_print). The golden files under
 * tests/edl/accept and tests/edl/reject pin the exact output of edlc. */
#include "config.h"

#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "edl/edl.h"

typedef struct collected {
    unsigned n, errors, warnings, notes;
    edl_diagnostic first;
    char first_msg[256], first_line[256], text[4096];
} collected;

static void collect(void *ctx, const edl_diagnostic *d)
{
    collected *c = ctx;
    if (c->n == 0) {
        c->first = *d;
        snprintf(c->first_msg, sizeof c->first_msg, "%s", d->message);
        snprintf(c->first_line, sizeof c->first_line, "%s", d->source_line ? d->source_line : "");
    }
    c->n++;
    c->errors += d->severity == EDL_SEV_ERROR;
    c->warnings += d->severity == EDL_SEV_WARNING;
    c->notes += d->severity == EDL_SEV_NOTE;
    char *s = edl_diagnostic_format(d);
    ck_assert_ptr_nonnull(s);
    strncat(c->text, s, sizeof c->text - strlen(c->text) - 1);
    free(s);
}

static const char *GOOD =
    "HEADER IS BEGIN NAME IS t; REPRESENTATION IS ASCII; TIMESTAMP IS time UNIT \"s\"; END;\n"
    "RECORD r IS BEGIN FIELD k IS int32; FIELD time IS float64; END;\n"
    "BIND IS KEYFIELD INDEX IS 0; BEGIN \"1\" IS \"r\"; END;\n";

static edl_status compile(const char *src, collected *c, edl_dict **d)
{
    memset(c, 0, sizeof *c);
    return edl_compile_string("t.edl", src, strlen(src), collect, c, d);
}

START_TEST(compiles)
{
    collected c;
    edl_dict *d;
    ck_assert_int_eq(compile(GOOD, &c, &d), EDL_OK);
    ck_assert_uint_eq(c.n, 0);
    ck_assert_ptr_nonnull(d);
    ck_assert_str_eq(edl_dict_name(d), "t");
    ck_assert_int_eq(edl_dict_repr(d), EDL_REPR_ASCII);
    ck_assert_uint_eq(edl_dict_record_count(d), 1);
    ck_assert_str_eq(edl_dict_time_field(d), "time");
    ck_assert_int_eq(edl_dict_lookup(d, "1", NULL), 0);
    edl_dict_destroy(d);
    /* with a UTF-8 byte order mark in front */
    char bom[1024] = "\xEF\xBB\xBF";
    strcat(bom, GOOD);
    ck_assert_int_eq(compile(bom, &c, &d), EDL_OK);
    edl_dict_destroy(d);
}
END_TEST

START_TEST(diagnostics_in_order)
{
    collected c;
    edl_dict *d = (edl_dict *)1;
    const char *src =
        "HEADER IS BEGIN NAME IS t; REPRESENTATION IS ASCII; TIMESTAMP IS time UNIT \"s\"; END;\n"
        "BIND IS KEYFIELD INDEX IS 0; BEGIN \"1\" IS \"q\"; END;\n"
        "RECORD r IS BEGIN\n"
        "\tFIELD k IS int33; FIELD time IS float64; END;\n";
    ck_assert_int_eq(compile(src, &c, &d), EDL_ECOMPILE);
    ck_assert_ptr_null(d);
    ck_assert_uint_eq(c.errors, 2);
    /* sorted by place: the bind (line 2) before the type (line 4) */
    ck_assert_uint_eq(c.first.line, 2);
    ck_assert_uint_eq(c.first.column, 43);
    ck_assert_uint_eq(c.first.length, 3);
    ck_assert_str_eq(c.first_msg, "unknown record 'q' in the bind descriptor; did you mean 'r'?");
    ck_assert_str_eq(c.first_line, "BIND IS KEYFIELD INDEX IS 0; BEGIN \"1\" IS \"q\"; END;");
    /* the caret line keeps tabs */
    ck_assert(strstr(c.text, "t.edl:4:13: error: unknown type 'int33'; did you mean 'int32'?\n"
                             "\tFIELD k IS int33; FIELD time IS float64; END;\n"
                             "\t           ^~~~~\n") != NULL);
}
END_TEST

START_TEST(format_without_line)
{
    edl_diagnostic d;
    memset(&d, 0, sizeof d);
    d.severity = EDL_SEV_WARNING;
    d.file = "x.edl";
    d.message = "hello";
    char *s = edl_diagnostic_format(&d);
    ck_assert_str_eq(s, "x.edl: warning: hello\n");
    free(s);
    ck_assert_ptr_null(edl_diagnostic_format(NULL));
}
END_TEST

START_TEST(bad_calls_and_files)
{
    collected c;
    edl_dict *d;
    memset(&c, 0, sizeof c);
    ck_assert_int_eq(edl_compile_string("x", GOOD, strlen(GOOD), NULL, NULL, NULL), EDL_EINVAL);
    ck_assert_int_eq(edl_compile_string("x", NULL, 3, NULL, NULL, &d), EDL_EINVAL);
    ck_assert_int_eq(edl_compile_file(NULL, NULL, NULL, &d), EDL_EINVAL);
    ck_assert_int_eq(edl_compile_file("/nonexistent/x.edl", collect, &c, &d), EDL_EIO);
    ck_assert_ptr_null(d);
    ck_assert_uint_eq(c.errors, 1);
    ck_assert_uint_eq(c.first.line, 0);
    ck_assert_ptr_null(c.first.source_line);
    ck_assert_str_eq(c.first.file, "/nonexistent/x.edl");
    ck_assert_int_eq(edl_dict_print(NULL, NULL, NULL), EDL_EINVAL);
}
END_TEST

START_TEST(empty_and_binary_input)
{
    collected c;
    edl_dict *d;
    ck_assert_int_eq(compile("", &c, &d), EDL_ECOMPILE);
    ck_assert_uint_eq(c.errors, 2);   /* no HEADER, no bind descriptor */
    static const char nul[] = "HEADER\0IS";
    memset(&c, 0, sizeof c);
    ck_assert_int_eq(edl_compile_string("n.edl", nul, sizeof nul - 1, collect, &c, &d),
                     EDL_ECOMPILE);
    ck_assert_str_eq(c.first_msg, "unexpected byte 0x00");
}
END_TEST

START_TEST(error_limit)
{
    /* 200 unknown types: the compile stops reporting after 50 errors. */
    size_t cap = 200 * 40 + 512;
    char *src = malloc(cap);
    strcpy(src, "HEADER IS BEGIN NAME IS t; REPRESENTATION IS ASCII; "
                "TIMESTAMP IS time UNIT \"s\"; END;\nRECORD r IS BEGIN\n");
    for (int i = 0; i < 200; i++)
        snprintf(src + strlen(src), cap - strlen(src), "FIELD f%d IS bogus;\n", i);
    strcat(src, "FIELD time IS float64; END;\nBIND IS KEYFIELD INDEX IS 0; BEGIN \"1\" IS \"r\"; END;\n");
    collected c;
    edl_dict *d;
    ck_assert_int_eq(compile(src, &c, &d), EDL_ECOMPILE);
    ck_assert_uint_eq(c.errors, 51);
    ck_assert(strstr(c.text, "t.edl: error: too many errors; stopping\n") != NULL);
    free(src);
}
END_TEST

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    char *buf = malloc(1 << 20);
    *len = fread(buf, 1, (1 << 20) - 1, f);
    buf[*len] = 0;
    fclose(f);
    return buf;
}

static const char *const formats[] = {"ecl", "picl", "picl1"};

START_TEST(formats_print_back)
{
    const char *top = getenv("top_srcdir");
    char path[4096];
    snprintf(path, sizeof path, "%s/edl/formats/%s.edl", top ? top : "..", formats[_i]);
    edl_dict *d, *e;
    ck_assert_int_eq(edl_compile_file(path, NULL, NULL, &d), EDL_OK);
    char *text;
    size_t len;
    ck_assert_int_eq(edl_dict_print(d, &text, &len), EDL_OK);
    ck_assert_uint_eq(strlen(text), len);
    collected c;
    ck_assert_int_eq(compile(text, &c, &e), EDL_OK);
    ck_assert_uint_eq(c.n, 0);
    ck_assert(edl_dict_equal(d, e));
    free(text);
    edl_dict_destroy(d);
    edl_dict_destroy(e);
}
END_TEST

START_TEST(print_api_built)
{
    /* A dictionary made through the model API, with 1.0 ascii defaults and an
     * unnamed shape table, prints as EDL that compiles back to it. */
    edl_dict *d, *e;
    edl_record *r;
    ck_assert_int_eq(edl_dict_create("api", "1", EDL_REPR_ASCII, &d), EDL_OK);
    ck_assert_int_eq(edl_dict_set_ascii_syntax(d, 0, 0, 0), EDL_OK);
    ck_assert_int_eq(edl_dict_set_roles(d, "t", "s", "", ""), EDL_OK);
    ck_assert_int_eq(edl_dict_set_key(d, 1, 0, EDL_NO_KEY), EDL_OK);
    ck_assert_int_eq(edl_dict_add_record(d, "r", NULL, &r), EDL_OK);
    ck_assert_int_eq(edl_record_add_field(r, "k", EDL_STRING, EDL_ENC_TEXT, NULL, NULL), EDL_OK);
    ck_assert_int_eq(edl_record_add_field(r, "t", EDL_FLOAT64, EDL_ENC_TEXT, NULL, NULL), EDL_OK);
    ck_assert_int_eq(edl_record_add_shaped_array(r, "v", NULL, "k", "items", 0, NULL, NULL), EDL_OK);
    edl_component one = {"", EDL_INT64, EDL_ENC_TEXT};
    ck_assert_int_eq(edl_record_add_shape(r, "a b", &one, 1), EDL_OK);
    ck_assert_int_eq(edl_dict_add_bind(d, "a b", NULL, "r"), EDL_OK);
    char *text;
    ck_assert_int_eq(edl_dict_print(d, &text, NULL), EDL_OK);
    ck_assert(strstr(text, "SEPARATORS IS \" \\t\" SINGLE;\n") != NULL);
    ck_assert(strstr(text, "QUOTE IS NONE;\n") != NULL);
    collected c;
    ck_assert_int_eq(compile(text, &c, &e), EDL_OK);
    ck_assert(edl_dict_equal(d, e));
    free(text);
    edl_dict_destroy(d);
    edl_dict_destroy(e);
}
END_TEST

/* The parser is pure and reentrant: compiles may run in parallel. */
static void *compile_many(void *arg)
{
    const char *src = arg;
    for (int i = 0; i < 50; i++) {
        edl_dict *d;
        if (edl_compile_string("p.edl", src, strlen(src), NULL, NULL, &d) != EDL_OK)
            return (void *)1;
        edl_dict_destroy(d);
    }
    return NULL;
}

START_TEST(threads)
{
    const char *top = getenv("top_srcdir");
    char path[4096];
    snprintf(path, sizeof path, "%s/edl/formats/picl.edl", top ? top : "..");
    size_t len;
    char *src = slurp(path, &len);
    pthread_t t[4];
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(pthread_create(&t[i], NULL, compile_many, src), 0);
    for (int i = 0; i < 4; i++) {
        void *rv;
        pthread_join(t[i], &rv);
        ck_assert_ptr_null(rv);
    }
    free(src);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("edl-compile");
    TCase *tc = tcase_create("compile");
    tcase_add_test(tc, compiles);
    tcase_add_test(tc, diagnostics_in_order);
    tcase_add_test(tc, format_without_line);
    tcase_add_test(tc, bad_calls_and_files);
    tcase_add_test(tc, empty_and_binary_input);
    tcase_add_test(tc, error_limit);
    tcase_add_loop_test(tc, formats_print_back, 0, (int)(sizeof formats / sizeof formats[0]));
    tcase_add_test(tc, print_api_built);
    tcase_add_test(tc, threads);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
