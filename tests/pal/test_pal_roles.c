/* test_pal_roles.c -- PAL's meaning API: record descriptors found by role,
 * fields by role (descriptors and role handles), roles that depend on a
 * field's value, references resolved to names (per process and global, the
 * thread designation's), a timestamp given by role, and the statuses each
 * call returns. The traces are written by the test-only builder from an EDL
 * source with roles, so no record name appears in what is checked. */
#include <config.h>

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pal/pal.h"
#include "tests/pal/tracebuild.h"

static const char meet_edl[] =
    "HEADER IS BEGIN\n"
    "    NAME IS meet; REPRESENTATION IS BINARY; TIMESTAMP IS t UNIT \"ns\";\n"
    "    PROCESS IS CONTAINER; THREAD IS CONTAINER REFERS TO lane.id;\n"
    "END;\n"
    "RECORD place IS BEGIN ROLE IS definition;\n"
    "    FIELD k IS uint8 ULEB; FIELD t IS uint64 TDELTA;\n"
    "    FIELD id IS uint32 ULEB; FIELD label IS string ROLE name; END;\n"
    "RECORD lane IS BEGIN ROLE IS definition;\n"
    "    FIELD k IS uint8 ULEB; FIELD t IS uint64 TDELTA;\n"
    "    FIELD id IS uint32 ULEB; FIELD label IS string ROLE name; END;\n"
    "RECORD group IS BEGIN ROLE IS definition;\n"
    "    FIELD k IS uint8 ULEB; FIELD t IS uint64 TDELTA;\n"
    "    FIELD gid IS uint32 ULEB; FIELD members IS string ROLE members;\n"
    "    FIELD title IS string ROLE name; END;\n"
    "RECORD in IS BEGIN ROLE IS enter;\n"
    "    FIELD k IS uint8 ULEB; FIELD t IS uint64 TDELTA;\n"
    "    FIELD where IS uint32 ULEB ROLE region REFERS TO place.id; END;\n"
    "RECORD out IS BEGIN ROLE IS leave;\n"
    "    FIELD k IS uint8 ULEB; FIELD t IS uint64 TDELTA;\n"
    "    FIELD where IS uint32 ULEB ROLE region REFERS TO place.id; END;\n"
    "RECORD done IS BEGIN ROLE IS request_complete; ROLE IS recv WHEN how IS \"1\";\n"
    "    ROLE IS send WHEN how IS \"0\";\n"
    "    FIELD k IS uint8 ULEB; FIELD t IS uint64 TDELTA;\n"
    "    FIELD req IS uint64 ULEB ROLE request; FIELD how IS uint8 ULEB;\n"
    "    FIELD other IS int64 SLEB ROLE peer;\n"
    "    FIELD grp IS uint32 ULEB ROLE communicator REFERS TO group.gid GLOBAL; END;\n"
    "RECORD put IS BEGIN ROLE IS call, send, communication; REGION IS \"put\";\n"
    "    FIELD k IS uint8 ULEB; FIELD t IS uint64 TDELTA;\n"
    "    FIELD d IS uint64 ULEB ROLE duration; FIELD to IS int64 SLEB ROLE dest;\n"
    "    FIELD n IS uint64 ULEB ROLE bytes_sent; END;\n"
    "BIND IS KEYFIELD INDEX IS 0; BEGIN\n"
    "    \"1\" IS \"place\"; \"2\" IS \"lane\"; \"3\" IS \"group\"; \"4\" IS \"in\";\n"
    "    \"5\" IS \"out\"; \"6\" IS \"done\"; \"7\" IS \"put\";\n"
    "END;\n";

static char dict_path[64], trace_path[64];
static pal_dict *dict;
static pal_reader *rd;

static void write_file(char *path, const char *text)
{
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
}

/* Process 0 and 1 both define place 1, with their own names; process 1
 * uses place 2 before defining it; lanes are named on process 0 only;
 * group 9 is defined once (global ids). */
static void write_meet(void)
{
    edl_dict *ed;
    ck_assert_int_eq(edl_compile_string("meet.edl", meet_edl, strlen(meet_edl), NULL, NULL, &ed),
                     EDL_OK);
    tb *t = tb_create(ed);
    tb_set_header(t, 0, 2, "h", 1e9);
    tb_chunk_begin(t, 0, 0, 100);
    tb_record(t, "place", (tb_val[]){TB_U(1), TB_U(100), TB_U(1), TB_S("compute")});
    tb_record(t, "lane", (tb_val[]){TB_U(2), TB_U(100), TB_U(3), TB_S("worker")});
    tb_record(t, "group", (tb_val[]){TB_U(3), TB_U(100), TB_U(9), TB_S("0-1"), TB_S("world")});
    tb_chunk_end(t, NULL);
    tb_chunk_begin(t, 0, 3, 110);
    tb_record(t, "in", (tb_val[]){TB_U(4), TB_U(110), TB_U(1)});
    tb_record(t, "done", (tb_val[]){TB_U(6), TB_U(115), TB_U(77), TB_U(1), TB_I(1), TB_U(9)});
    tb_record(t, "put", (tb_val[]){TB_U(7), TB_U(118), TB_U(5), TB_I(1), TB_U(64)});
    tb_record(t, "out", (tb_val[]){TB_U(5), TB_U(120), TB_U(1)});
    tb_chunk_end(t, NULL);
    tb_chunk_begin(t, 1, 0, 130);
    tb_record(t, "place", (tb_val[]){TB_U(1), TB_U(130), TB_U(1), TB_S("solve")});
    tb_chunk_end(t, NULL);
    tb_chunk_begin(t, 1, 3, 140);
    tb_record(t, "in", (tb_val[]){TB_U(4), TB_U(140), TB_U(1)});
    tb_record(t, "in", (tb_val[]){TB_U(4), TB_U(141), TB_U(2)});
    tb_record(t, "done", (tb_val[]){TB_U(6), TB_U(145), TB_U(78), TB_U(0), TB_I(0), TB_U(9)});
    tb_chunk_end(t, NULL);
    tb_chunk_begin(t, 1, 0, 150);
    tb_record(t, "place", (tb_val[]){TB_U(1), TB_U(150), TB_U(2), TB_S("late")});
    tb_chunk_end(t, NULL);
    tb_chunk_begin(t, 1, 3, 160);
    tb_record(t, "out", (tb_val[]){TB_U(5), TB_U(160), TB_U(2)});
    tb_record(t, "out", (tb_val[]){TB_U(5), TB_U(161), TB_U(1)});
    tb_chunk_end(t, NULL);
    tb_finish_index(t);
    strcpy(trace_path, "pal-roles-XXXXXX");
    int fd = mkstemp(trace_path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    ck_assert_int_eq(tb_write(t, trace_path), 0);
    tb_destroy(t);
    edl_dict_destroy(ed);
}

static void setup(void)
{
    strcpy(dict_path, "pal-roles-edl-XXXXXX");
    write_file(dict_path, meet_edl);
    ck_assert_msg(pal_dict_load(dict_path, &dict) == PAL_OK, "%s", pal_last_error());
    write_meet();
    ck_assert_msg(pal_reader_open(trace_path, NULL, &rd) == PAL_OK, "%s", pal_last_error());
}

static void teardown(void)
{
    pal_reader_close(rd);
    pal_dict_destroy(dict);
    unlink(trace_path);
    unlink(dict_path);
}

START_TEST(records_by_role)
{
    /* every definition, in dictionary order, and nothing after the last */
    const pal_recdesc *r = pal_dict_find_role(dict, PAL_ROLE_DEFINITION, NULL);
    size_t n = 0;
    for (; r; r = pal_dict_find_role(dict, PAL_ROLE_DEFINITION, r), n++)
        ck_assert_int_eq(pal_recdesc_has_role(r, PAL_ROLE_DEFINITION), 1);
    ck_assert_uint_eq(n, 3);
    /* conditional roles are found too, and say so */
    const pal_recdesc *recv = pal_dict_find_role(dict, PAL_ROLE_RECV, NULL);
    ck_assert_ptr_nonnull(recv);
    ck_assert_int_eq(pal_recdesc_has_role(recv, PAL_ROLE_RECV), 2);
    ck_assert_int_eq(pal_recdesc_has_role(recv, PAL_ROLE_REQUEST_COMPLETE), 1);
    ck_assert_ptr_null(pal_dict_find_role(dict, PAL_ROLE_RECV, recv));
    const pal_recdesc *call = pal_dict_find_role(dict, PAL_ROLE_CALL, NULL);
    ck_assert_str_eq(pal_recdesc_region(call), "put");
    ck_assert_int_eq(pal_recdesc_has_role(call, PAL_ROLE_SEND), 1);
    ck_assert_str_eq(pal_recdesc_region(pal_dict_find_role(dict, PAL_ROLE_ENTER, NULL)), "");
    ck_assert_ptr_null(pal_dict_find_role(dict, PAL_ROLE_MARKER, NULL));
    ck_assert_ptr_null(pal_dict_find_role(dict, (pal_record_role)99, NULL));
    ck_assert_int_eq(pal_recdesc_has_role(call, (pal_record_role)0), 0);
    ck_assert_int_eq(pal_recdesc_has_role(call, (pal_record_role)64), 0);
    /* names of roles both ways */
    ck_assert_str_eq(pal_record_role_name(PAL_ROLE_REQUEST_COMPLETE), "request_complete");
    ck_assert_int_eq(pal_record_role_by_name("collective"), PAL_ROLE_COLLECTIVE);
    ck_assert_int_eq(pal_record_role_by_name("nope"), PAL_ROLE_NONE);
    ck_assert_ptr_null(pal_record_role_name((pal_record_role)50));
    ck_assert_str_eq(pal_record_role_name(PAL_ROLE_RMA_PUT), "rma_put");
    ck_assert_str_eq(pal_field_role_name(PAL_FROLE_WINDOW), "window");
    ck_assert_str_eq(pal_field_role_name(PAL_FROLE_BYTES_SENT), "bytes_sent");
    ck_assert_int_eq(pal_field_role_by_name("members"), PAL_FROLE_MEMBERS);
    ck_assert_str_eq(pal_field_role_name(PAL_FROLE_REMOTE_MEMBERS), "remote_members");
    ck_assert_ptr_null(pal_field_role_name(PAL_FROLE_LIMIT));
}
END_TEST

START_TEST(fields_by_role)
{
    const pal_recdesc *enter = pal_dict_find_role(dict, PAL_ROLE_ENTER, NULL);
    const pal_fielddesc *f = pal_recdesc_role_field(enter, PAL_FROLE_REGION);
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(pal_field_role_of(f), PAL_FROLE_REGION);
    /* the header's designation is a role too */
    const pal_fielddesc *t = pal_recdesc_role_field(enter, PAL_FROLE_TIMESTAMP);
    ck_assert_ptr_nonnull(t);
    ck_assert_int_eq(pal_field_role_of(t), PAL_FROLE_TIMESTAMP);
    ck_assert_ptr_null(pal_recdesc_role_field(enter, PAL_FROLE_PEER));
    ck_assert_ptr_null(pal_recdesc_role_field(enter, PAL_FROLE_LIMIT));
    ck_assert_int_eq(pal_field_role_of(pal_recdesc_field(enter, 0)), PAL_FROLE_NONE);
    /* references */
    const char *rec = NULL, *field = NULL;
    int global = -1;
    ck_assert_int_eq(pal_field_reference(f, &rec, &field, &global), PAL_OK);
    const pal_recdesc *target = pal_dict_find_record(dict, rec);
    ck_assert_ptr_nonnull(target);
    ck_assert_int_eq(pal_recdesc_has_role(target, PAL_ROLE_DEFINITION), 1);
    ck_assert_ptr_nonnull(pal_recdesc_find_field(target, field));
    ck_assert_int_eq(global, 0);
    const pal_recdesc *done = pal_dict_find_role(dict, PAL_ROLE_REQUEST_COMPLETE, NULL);
    ck_assert_int_eq(pal_field_reference(pal_recdesc_role_field(done, PAL_FROLE_COMMUNICATOR),
                                         NULL, NULL, &global), PAL_OK);
    ck_assert_int_eq(global, 1);
    ck_assert_int_eq(pal_field_reference(t, &rec, NULL, NULL), PAL_ENOFIELD);
}
END_TEST

START_TEST(role_handles)
{
    const pal_handle *region, *dur, *h = (const pal_handle *)1;
    ck_assert_int_eq(pal_reader_role_handle(rd, PAL_FROLE_REGION, &region), PAL_OK);
    ck_assert_int_eq(pal_reader_role_handle(rd, PAL_FROLE_DURATION, &dur), PAL_OK);
    ck_assert_int_eq(pal_reader_role_handle(rd, PAL_FROLE_STATE, &h), PAL_ENOFIELD);
    ck_assert_ptr_null(h);
    ck_assert_int_eq(pal_reader_role_handle(rd, PAL_FROLE_NONE, &h), PAL_EINVAL);
    ck_assert_int_eq(pal_reader_role_handle(rd, (pal_field_role)200, &h), PAL_EINVAL);
    const pal_handle *by_name;
    ck_assert_int_eq(pal_reader_handle(rd, "where", &by_name), PAL_OK);
    const pal_record *r;
    size_t regions = 0, calls = 0;
    while (pal_reader_next(rd, &r) == PAL_OK) {
        uint64_t a, b;
        int64_t i;
        pal_status st = pal_record_u64(r, region, &a);
        ck_assert_int_eq(st, pal_record_u64(r, by_name, &b));
        if (st == PAL_OK) {
            ck_assert_uint_eq(a, b);
            ck_assert_int_eq(pal_record_i64(r, region, &i), PAL_OK);
            ck_assert_int_eq(i, (int64_t)a);
            regions++;
        } else {
            ck_assert_int_eq(st, PAL_ENOFIELD);
        }
        int64_t ns = -1;
        if (pal_record_u64(r, dur, &a) == PAL_OK) {
            ck_assert_uint_eq(a, 5);
            ck_assert_int_eq(pal_record_duration_ns(r, &ns), PAL_OK);
            ck_assert_int_eq(ns, 5);          /* the time unit is ns */
            calls++;
        } else {
            ck_assert_int_eq(pal_record_duration_ns(r, &ns), PAL_ENOFIELD);
            ck_assert_int_eq(ns, -1);
        }
    }
    ck_assert_uint_eq(regions, 6);
    ck_assert_uint_eq(calls, 1);
}
END_TEST

START_TEST(record_roles_by_value)
{
    const pal_record *r;
    size_t recv = 0, send = 0, complete = 0;
    while (pal_reader_next(rd, &r) == PAL_OK) {
        if (!pal_record_has_role(r, PAL_ROLE_REQUEST_COMPLETE))
            continue;
        complete++;
        uint64_t req;
        ck_assert_int_eq(pal_record_get_u64(r, "req", &req), PAL_OK);
        ck_assert_int_eq(pal_record_has_role(r, PAL_ROLE_RECV), req == 77);
        ck_assert_int_eq(pal_record_has_role(r, PAL_ROLE_SEND), req == 78);
        recv += pal_record_has_role(r, PAL_ROLE_RECV);
        send += pal_record_has_role(r, PAL_ROLE_SEND);
        ck_assert_int_eq(pal_record_has_role(r, PAL_ROLE_IDLE), 0);
        ck_assert_int_eq(pal_record_has_role(r, (pal_record_role)-1), 0);
    }
    ck_assert_uint_eq(complete, 2);
    ck_assert_uint_eq(recv, 1);
    ck_assert_uint_eq(send, 1);
}
END_TEST

START_TEST(names)
{
    pal_names *n;
    ck_assert_int_eq(pal_names_create(&n), PAL_OK);
    const pal_handle *region;
    ck_assert_int_eq(pal_reader_role_handle(rd, PAL_FROLE_REGION, &region), PAL_OK);
    const pal_record *r;
    char got[256] = "";
    while (pal_reader_next(rd, &r) == PAL_OK) {
        ck_assert_int_eq(pal_names_add(n, r), PAL_OK);
        const char *s;
        size_t len;
        pal_status st = pal_names_handle(n, r, region, &s, &len);
        if (st == PAL_OK) {
            snprintf(got + strlen(got), sizeof got - strlen(got), "p%u:%.*s ",
                     (unsigned)pal_record_process(r), (int)len, s);
            ck_assert_uint_eq(len, strlen(s));
        } else if (pal_record_has_role(r, PAL_ROLE_ENTER) || pal_record_has_role(r, PAL_ROLE_LEAVE)) {
            ck_assert_int_eq(st, PAL_EUNDEF);      /* place 2 of process 1, before its definition */
            strcat(got, "undef ");
        } else {
            ck_assert_int_eq(st, PAL_ENOFIELD);
        }
        if (pal_record_has_role(r, PAL_ROLE_REQUEST_COMPLETE)) {
            /* a global id: defined on process 0, known on process 1 */
            const pal_fielddesc *g = pal_recdesc_role_field(pal_record_desc(r),
                                                            PAL_FROLE_COMMUNICATOR);
            ck_assert_int_eq(pal_names_field(n, r, pal_field_index(g), &s, &len), PAL_OK);
            ck_assert_str_eq(s, "world");
            /* a field that is no reference */
            ck_assert_int_eq(pal_names_field(n, r, 2, &s, &len), PAL_ENOFIELD);
            ck_assert_int_eq(pal_names_field(n, r, 99, &s, &len), PAL_ENOFIELD);
        }
        /* thread names: lane 3 is named on process 0 only */
        if (pal_record_stream(r) == 3) {
            st = pal_names_thread(n, r, &s, &len);
            if (pal_record_process(r) == 0) {
                ck_assert_int_eq(st, PAL_OK);
                ck_assert_str_eq(s, "worker");
            } else {
                ck_assert_int_eq(st, PAL_EUNDEF);
            }
            ck_assert_int_eq(pal_names_process(n, r, &s, &len), PAL_ENOFIELD);
        }
    }
    /* per process: place 1 is compute on 0 and solve on 1; place 2 of 1 only
     * after its definition */
    ck_assert_str_eq(got, "p0:compute p0:compute p1:solve undef p1:late p1:solve ");
    pal_names_destroy(n);
    pal_names_destroy(NULL);
}
END_TEST

/* An ascii log whose counter samples carry their time in another field
 * (ROLE timestamp), whose messages are sends or receives by a string, and
 * whose call has a duration in the timestamp's unit. */
START_TEST(timestamp_by_role)
{
    static const char edl[] =
        "HEADER IS BEGIN NAME IS a; REPRESENTATION IS ASCII; TIMESTAMP IS t UNIT \"us\";\n"
        "    PROCESS IS rank; END;\n"
        "RECORD m IS BEGIN ROLE IS message; ROLE IS send WHEN dir IS \"out\";\n"
        "    ROLE IS recv WHEN dir IS \"in\";\n"
        "    FIELD what IS string; FIELD t IS int64; FIELD rank IS int32;\n"
        "    FIELD dir IS string; FIELD other IS int32 ROLE peer; END;\n"
        "RECORD s IS BEGIN ROLE IS counter;\n"
        "    FIELD what IS string; FIELD stamp IS float64 ROLE timestamp;\n"
        "    FIELD rank IS int32; FIELD v IS float64 ROLE value; END;\n"
        "RECORD c IS BEGIN ROLE IS call; REGION IS \"c\";\n"
        "    FIELD what IS string; FIELD t IS int64; FIELD rank IS int32;\n"
        "    FIELD d IS float64 ROLE duration; END;\n"
        "BIND IS KEYFIELD INDEX IS 0; BEGIN \"m\" IS \"m\"; \"s\" IS \"s\"; \"c\" IS \"c\";\n"
        "END;\n";
    static const char log[] = "m 5 0 out 1\nm 7 1 in 0\ns 2.5 1 0.75\nc 9 0 1.5\n";
    char ep[64] = "pal-roles-a-XXXXXX", lp[64] = "pal-roles-l-XXXXXX";
    write_file(ep, edl);
    write_file(lp, log);
    pal_reader *a;
    ck_assert_msg(pal_reader_open(lp, ep, &a) == PAL_OK, "%s", pal_last_error());
    const pal_record *r;
    int64_t want_ns[] = {5000, 7000, 2500, 9000};
    int want_send[] = {1, 0, 0, 0}, want_recv[] = {0, 1, 0, 0};
    size_t k = 0;
    while (pal_reader_next(a, &r) == PAL_OK) {
        ck_assert_uint_lt(k, 4);
        ck_assert_int_eq(pal_record_time_ns(r), want_ns[k]);
        ck_assert_int_eq(pal_record_has_role(r, PAL_ROLE_SEND), want_send[k]);
        ck_assert_int_eq(pal_record_has_role(r, PAL_ROLE_RECV), want_recv[k]);
        int64_t ns = 0;
        pal_status st = pal_record_duration_ns(r, &ns);
        ck_assert_int_eq(st, k == 3 ? PAL_OK : PAL_ENOFIELD);
        if (k == 3)   /* in the timestamp's unit, us; ascii times are in ns */
            ck_assert_int_eq(ns, 1500);
        k++;
    }
    ck_assert_uint_eq(k, 4);
    pal_reader_close(a);
    unlink(ep);
    unlink(lp);
}
END_TEST

/* (NULL arguments are API misuse: assertions in debug builds.) */
START_TEST(status_text)
{
    ck_assert_str_eq(pal_status_string(PAL_EUNDEF), "no definition of that id");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("pal-roles");
    TCase *tc = tcase_create("roles");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, records_by_role);
    tcase_add_test(tc, fields_by_role);
    tcase_add_test(tc, role_handles);
    tcase_add_test(tc, record_roles_by_value);
    tcase_add_test(tc, names);
    tcase_add_test(tc, timestamp_by_role);
    suite_add_tcase(s, tc);
    tc = tcase_create("status");
    tcase_add_test(tc, status_text);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
