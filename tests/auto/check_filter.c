/* check_filter.c -- unit tests of the filter files of ecl/auto/filter.c:
 * the grammar (comments, quotes, several patterns, uppercase keywords), the
 * last matching rule deciding, file rules never matching an unknown file,
 * and the exact messages of malformed files. */
#include <config.h>

#include "ecl/auto/auto.h"

#include <check.h>
#include <stdlib.h>

static ecl_auto_filter *parse_ok(const char *text)
{
    ecl_auto_filter *f = NULL;
    char err[256] = "";
    ck_assert_msg(ecl_auto_filter_parse("t.filter", text, &f, err, sizeof err) == 0, "%s", err);
    return f;
}

static void parse_bad(const char *text, const char *msg)
{
    ecl_auto_filter *f = NULL;
    char err[256] = "";
    ck_assert_int_eq(ecl_auto_filter_parse("t.filter", text, &f, err, sizeof err), -1);
    ck_assert_ptr_null(f);
    ck_assert_str_eq(err, msg);
}

START_TEST(empty_includes_all)
{
    ecl_auto_filter *f = parse_ok("# only a comment\n\n   \n");
    ck_assert_int_eq(ecl_auto_filter_includes(f, "anything", ""), 1);
    ck_assert_int_eq(ecl_auto_filter_includes(f, "x", "/src/x.c"), 1);
    ecl_auto_filter_destroy(f);
}
END_TEST

START_TEST(last_match_decides)
{
    ecl_auto_filter *f = parse_ok("exclude function *\n"
                                  "include function solve_* main # two patterns\n"
                                  "exclude function solve_tiny\n");
    ck_assert_int_eq(ecl_auto_filter_includes(f, "helper", ""), 0);
    ck_assert_int_eq(ecl_auto_filter_includes(f, "main", ""), 1);
    ck_assert_int_eq(ecl_auto_filter_includes(f, "solve_big", ""), 1);
    ck_assert_int_eq(ecl_auto_filter_includes(f, "solve_tiny", ""), 0);
    ecl_auto_filter_destroy(f);
}
END_TEST

START_TEST(files_and_quotes)
{
    ecl_auto_filter *f = parse_ok("EXCLUDE FILE */include/*\r\n"
                                  "include function \"std::vector<int>::size() const\"\n"
                                  "exclude function \"a \\\"q\\\" b\"\n");
    ck_assert_int_eq(ecl_auto_filter_includes(f, "f", "/usr/include/stdio.h"), 0);
    ck_assert_int_eq(ecl_auto_filter_includes(f, "f", "/src/main.c"), 1);
    /* a file rule never matches a function whose file is unknown */
    ck_assert_int_eq(ecl_auto_filter_includes(f, "f", ""), 1);
    ck_assert_int_eq(
        ecl_auto_filter_includes(f, "std::vector<int>::size() const", "/usr/include/c++/vector"), 1);
    ck_assert_int_eq(ecl_auto_filter_includes(f, "a \"q\" b", ""), 0);
    ecl_auto_filter_destroy(f);
}
END_TEST

START_TEST(errors)
{
    parse_bad("include function f\nincluded function g\n",
              "t.filter:2:1: expected 'include' or 'exclude', found 'included'");
    parse_bad("exclude\n", "t.filter:1:8: expected 'function' or 'file' after 'exclude'");
    parse_bad("exclude files x\n", "t.filter:1:9: expected 'function' or 'file', found 'files'");
    parse_bad("exclude function   # nothing\n",
              "t.filter:1:20: expected at least one pattern after 'exclude function'");
    parse_bad("include file \"open\n", "t.filter:1:14: unterminated quoted pattern");
    parse_bad("include file \"\"\n", "t.filter:1:15: empty pattern");
}
END_TEST

START_TEST(load_missing)
{
    ecl_auto_filter *f = NULL;
    char err[256];
    ck_assert_int_eq(ecl_auto_filter_load("/nonexistent/x.filter", &f, err, sizeof err), -1);
    ck_assert_str_eq(err, "cannot open filter file '/nonexistent/x.filter' (ECL_FILTER): "
                          "No such file or directory");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("filter");
    TCase *tc = tcase_create("filter");
    tcase_add_test(tc, empty_includes_all);
    tcase_add_test(tc, last_match_decides);
    tcase_add_test(tc, files_and_quotes);
    tcase_add_test(tc, errors);
    tcase_add_test(tc, load_missing);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
