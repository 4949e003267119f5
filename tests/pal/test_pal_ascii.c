/* test_pal_ascii.c -- PAL's ascii reader through the API: arrays (count field,
 * REST, shapes chosen by a token and printf-like formats) by name and by
 * handle with the ENOFIELD/ETYPE/ERANGE discipline, OPTIONAL fields, times in
 * ns (float seconds, negative; split seconds + fraction), line numbers and
 * offsets, bad lines (skip and count, strict mode), .edl and binary
 * dictionaries, and the same file cut at every byte (no crash; run under ASan).
 * Plain C (no Check) so that it runs everywhere. */
#include <config.h>

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "edl/edl.h"
#include "pal/pal.h"

static int failures;

#define CHECK(cond)                                                             \
    do {                                                                        \
        if (!(cond)) {                                                          \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            failures++;                                                         \
        }                                                                       \
    } while (0)

static char dir[] = "/tmp/pal-ascii-XXXXXX";
static char path[256], epath[256], bpath[256];

static void write_file(const char *p, const char *data, size_t n)
{
    FILE *f = fopen(p, "wb");
    if (!f || fwrite(data, 1, n, f) != n) {
        perror(p);
        exit(99);
    }
    fclose(f);
}

static const char *edl_text =
    "HEADER IS\nBEGIN\n"
    "    NAME IS t;\n    VERSION IS \"1\";\n    REPRESENTATION IS ASCII;\n"
    "    SEPARATORS IS \" \\t\";\n    COMMENT IS \"#\";\n"
    "    TIMESTAMP IS time UNIT \"s\";\n    PROCESS IS proc;\n"
    "END;\n"
    "SHAPE items IS BEGIN \"2\" IS int32; DEFAULT IS FORMAT; END;\n"
    "RECORD ev IS\nBEGIN\n"
    "    FIELD kind IS int32;\n    FIELD time IS float64 UNIT \"s\";\n"
    "    FIELD proc IS int32;\n    FIELD n IS int32;\n"
    "    FIELD desc IS string OPTIONAL;\n"
    "    FIELD data IS ARRAY [n] OF items BY desc;\n"
    "END;\n"
    "RECORD words IS\nBEGIN\n"
    "    FIELD kind IS int32;\n    FIELD time IS float64 UNIT \"s\";\n"
    "    FIELD proc IS int32;\n    FIELD w IS ARRAY [REST] OF string;\n"
    "END;\n"
    "BIND IS\nKEYFIELD INDEX IS 0;\nBEGIN\n    \"1\" IS \"ev\";\n    \"2\" IS \"words\";\nEND;\n";

static const char *trace =
    "# a comment\n"
    "1 -0.000001 3 0\n"
    "1 1.5 4 2 \"%d%lf\" -22 0.000072 7 2.5\n"
    "\n"
    "1 2 5 3 2 400 100 7\r\n"
    "2 3e-3 6 \"a b\" c\n"
    "1 x 0 0\n"
    "1 4 0 2 2 400\n"
    "9 4 0 0\n"
    "1 5 7 2 2 1 2";     /* no final newline */

static void collect(void *ctx, const char *msg)
{
    char *buf = ctx;
    size_t n = strlen(buf);
    snprintf(buf + n, 4096 - n, "%s\n", msg);
}

static void read_all(const char *dict)
{
    pal_reader *r;
    const pal_record *rec;
    char msgs[4096] = "";
    CHECK(pal_reader_open(path, dict, &r) == PAL_OK);
    if (!r)
        return;
    pal_reader_set_diag(r, collect, msgs);
    pal_trace_info info;
    CHECK(pal_reader_info(r, &info) == PAL_OK && info.ticks_per_second == 1e9);
    const pal_handle *hd, *ht, *hw;
    CHECK(pal_reader_handle(r, "data", &hd) == PAL_OK);
    CHECK(pal_reader_handle(r, "time", &ht) == PAL_OK);
    CHECK(pal_reader_handle(r, "w", &hw) == PAL_OK);
    CHECK(pal_reader_handle(r, "nosuch", &hw) == PAL_ENOFIELD);
    CHECK(pal_reader_handle(r, "w", &hw) == PAL_OK);

    /* line 2: negative time, empty array, absent optional field */
    CHECK(pal_reader_next(r, &rec) == PAL_OK);
    CHECK(pal_record_time_ns(rec) == -1000);
    CHECK(pal_record_time(rec) == 0);
    CHECK(pal_record_line(rec) == 2);
    CHECK(pal_record_offset(rec) == 12);
    CHECK(pal_record_process(rec) == 3);
    size_t n = 99, nc = 99;
    CHECK(pal_record_get_count(rec, "data", &n) == PAL_OK && n == 0);
    CHECK(pal_record_count(rec, hd, &n) == PAL_OK && n == 0);
    const char *s;
    size_t sl;
    CHECK(pal_record_get_str(rec, "desc", &s, &sl) == PAL_ENOFIELD);
    CHECK(!pal_record_present(rec, 4));
    CHECK(pal_record_present(rec, 3));
    int64_t iv;
    double dv;
    CHECK(pal_record_get_item_i64(rec, "data", 0, 0, &iv) == PAL_ERANGE);
    char buf[128];
    CHECK(pal_record_format(rec, 5, buf, sizeof buf) == 2 && strcmp(buf, "[]") == 0);

    /* line 3: a printf-like format, pairs of int and double */
    CHECK(pal_reader_next(r, &rec) == PAL_OK);
    CHECK(pal_record_time_ns(rec) == 1500000000);
    CHECK(pal_record_line(rec) == 3);
    CHECK(pal_record_get_count(rec, "data", &n) == PAL_OK && n == 2);
    CHECK(pal_record_get_components(rec, "data", &nc) == PAL_OK && nc == 2);
    CHECK(pal_record_get_item_i64(rec, "data", 0, 0, &iv) == PAL_OK && iv == -22);
    CHECK(pal_record_get_item_f64(rec, "data", 0, 1, &dv) == PAL_OK && dv == 0.000072);
    CHECK(pal_record_item_i64(rec, hd, 1, 0, &iv) == PAL_OK && iv == 7);
    CHECK(pal_record_item_f64(rec, hd, 1, 1, &dv) == PAL_OK && dv == 2.5);
    CHECK(pal_record_item_i64(rec, hd, 1, 1, &iv) == PAL_ETYPE);
    CHECK(pal_record_item_i64(rec, hd, 2, 0, &iv) == PAL_ERANGE);
    CHECK(pal_record_item_i64(rec, hd, 0, 2, &iv) == PAL_ERANGE);
    CHECK(pal_record_get_item_i64(rec, "time", 0, 0, &iv) == PAL_ETYPE);
    CHECK(pal_record_get_item_i64(rec, "nosuch", 0, 0, &iv) == PAL_ENOFIELD);
    CHECK(pal_record_get_i64(rec, "data", &iv) == PAL_ETYPE);
    CHECK(pal_record_get_count(rec, "time", &n) == PAL_ETYPE);
    CHECK(pal_record_item_type(rec, 5, 0) == PAL_INT64);
    CHECK(pal_record_item_type(rec, 5, 1) == PAL_FLOAT64);
    CHECK(pal_record_item_type(rec, 5, 2) == 0);
    CHECK(pal_record_f64(rec, ht, &dv) == PAL_OK && dv == 1.5);
    CHECK(pal_record_get_str(rec, "desc", &s, &sl) == PAL_OK && sl == 5 &&
          memcmp(s, "%d%lf", 5) == 0);
    pal_record_format(rec, 5, buf, sizeof buf);
    CHECK(strcmp(buf, "[(-22,7.2e-05),(7,2.5)]") == 0);
    /* truncated formatting still says how much it needed */
    CHECK(pal_record_format(rec, 5, buf, 5) == 23 && strlen(buf) == 4);

    /* line 5 (after a blank line): a shape table entry, \r\n */
    CHECK(pal_reader_next(r, &rec) == PAL_OK);
    CHECK(pal_record_line(rec) == 5);
    CHECK(pal_record_time_ns(rec) == 2000000000);
    CHECK(pal_record_item_i64(rec, hd, 1, 0, &iv) == PAL_OK && iv == 100);
    CHECK(pal_record_item_i64(rec, hd, 0, 1, &iv) == PAL_ERANGE);
    CHECK(pal_record_item_type(rec, 5, 0) == PAL_INT32);
    pal_record_format(rec, 5, buf, sizeof buf);
    CHECK(strcmp(buf, "[400,100,7]") == 0);

    /* line 6: REST of strings, one quoted */
    CHECK(pal_reader_next(r, &rec) == PAL_OK);
    CHECK(pal_record_line(rec) == 6);
    CHECK(pal_record_time_ns(rec) == 3000000);
    CHECK(pal_record_count(rec, hw, &n) == PAL_OK && n == 2);
    CHECK(pal_record_item_str(rec, hw, 0, 0, &s, &sl) == PAL_OK && sl == 3 &&
          memcmp(s, "a b", 3) == 0);
    CHECK(pal_record_item_str(rec, hw, 1, 0, &s, &sl) == PAL_OK && sl == 1);
    CHECK(pal_record_count(rec, hd, &n) == PAL_ENOFIELD);
    pal_record_format(rec, 3, buf, sizeof buf);
    CHECK(strcmp(buf, "[\"a b\",\"c\"]") == 0);
    CHECK(pal_reader_next(r, &rec) == PAL_OK);

    /* lines 7-9 are bad; line 10 has no final newline */
    CHECK(pal_record_line(rec) == 10);
    CHECK(pal_record_item_i64(rec, hd, 1, 0, &iv) == PAL_OK && iv == 2);
    CHECK(pal_reader_next(r, &rec) == PAL_END);
    pal_reader_stats st;
    pal_reader_get_stats(r, &st);
    CHECK(st.records == 5);
    CHECK(st.damaged == 3);
    const char *want[] = {
        ":7:3: record 'ev': field 'time': expected float64, got 'x'",
        ":8:14: record 'ev': array 'data': 2 items of 1 tokens, but 1 tokens left",
        ":9:1: unknown record: key '9' matches no bind entry"};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        if (!strstr(msgs, want[i])) {
            fprintf(stderr, "missing message '%s' in:\n%s", want[i], msgs);
            failures++;
        }
    pal_reader_close(r);
}

static void strict_mode(void)
{
    pal_reader *r;
    const pal_record *rec;
    pal_status st;
    size_t n = 0;
    CHECK(pal_reader_open(path, epath, &r) == PAL_OK);
    pal_reader_set_diag(r, NULL, NULL);
    pal_reader_set_strict(r, 1);
    while ((st = pal_reader_next(r, &rec)) == PAL_OK)
        n++;
    CHECK(st == PAL_EFORMAT);
    CHECK(n == 4);
    CHECK(strstr(pal_reader_error(r), ":7:3: ") != NULL);
    CHECK(pal_reader_next(r, &rec) == PAL_EFORMAT);
    pal_reader_close(r);
}

static void cut_everywhere(void)
{
    size_t len = strlen(trace);
    for (size_t cut = 0; cut <= len; cut++) {
        write_file(path, trace, cut);
        pal_reader *r;
        const pal_record *rec;
        if (pal_reader_open(path, bpath, &r) != PAL_OK) {
            fprintf(stderr, "cut %zu: %s\n", cut, pal_last_error());
            failures++;
            continue;
        }
        pal_reader_set_diag(r, NULL, NULL);
        size_t k = 0;
        char buf[256];
        while (pal_reader_next(r, &rec) == PAL_OK) {
            for (size_t i = 0; i < pal_recdesc_field_count(pal_record_desc(rec)); i++)
                pal_record_format(rec, i, buf, sizeof buf);
            k++;
        }
        CHECK(k <= 6);
        pal_reader_close(r);
    }
}

static void edl_errors(void)
{
    pal_dict *d = (pal_dict *)1;
    write_file(epath, "HEADER IS BEGIN NAME IS ; END;", 30);
    CHECK(pal_dict_load(epath, &d) == PAL_EFORMAT);
    CHECK(d == NULL);
    CHECK(strstr(pal_last_error(), ":1:25: error: ") != NULL || strstr(pal_last_error(), "error"));
}

int main(void)
{
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 99;
    }
    snprintf(path, sizeof path, "%s/t.txt", dir);
    snprintf(epath, sizeof epath, "%s/t.edl", dir);
    snprintf(bpath, sizeof bpath, "%s/t.bin", dir);
    write_file(path, trace, strlen(trace));
    write_file(epath, edl_text, strlen(edl_text));
    edl_dict *ed = NULL;
    if (edl_compile_string("t.edl", edl_text, strlen(edl_text), NULL, NULL, &ed) != EDL_OK)
        return 99;
    unsigned char *b;
    size_t bl;
    if (edl_dict_encode(ed, &b, &bl) != EDL_OK)
        return 99;
    write_file(bpath, (const char *)b, bl);
    free(b);
    edl_dict_destroy(ed);

    read_all(epath);     /* the EDL source, compiled in memory */
    read_all(bpath);     /* the binary dictionary */
    strict_mode();
    cut_everywhere();
    edl_errors();
    unlink(path);
    unlink(epath);
    unlink(bpath);
    rmdir(dir);
    if (failures)
        fprintf(stderr, "%d checks failed\n", failures);
    return failures ? 1 : 0;
}
