/* synth_writer.c -- libpal's public trace writer (pal/pal.h, "Writing";
 * doc/pal.md, "Writing a trace"), used by tests/diag/synth.sh:
 *     synth_writer DICT.edl OUT.ecl
 * writes records of DICT's types (tests/diag/scaling.edl: an ASCII
 * dictionary) out of order, by field name and by field descriptor, checks
 * the errors the setters give, closes, and reads OUT.ecl back: the records
 * in time order (ties in the order put), with their process, thread and
 * values. Exit 0, or 1 with a message. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pal/pal.h"

#define CHECK(c)                                                                         \
    do {                                                                                 \
        if (!(c)) {                                                                      \
            fprintf(stderr, "synth_writer: line %d: %s failed\n", __LINE__, #c);          \
            return 1;                                                                    \
        }                                                                                \
    } while (0)

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: synth_writer DICT OUT\n");
        return 2;
    }
    pal_dict *d = NULL;
    CHECK(pal_dict_load(argv[1], &d) == PAL_OK);
    const pal_recdesc *work = pal_dict_find_record(d, "work");
    const pal_recdesc *ar = pal_dict_find_record(d, "allreduce");
    const pal_recdesc *comm = pal_dict_find_record(d, "comm");
    CHECK(work && ar && comm);
    pal_trace_writer *w = NULL;
    CHECK(pal_trace_writer_create(argv[2], d, 0, &w) == PAL_OK);
    /* out of order: 3000 ns, then 1000, then two at 2000 */
    CHECK(pal_trace_writer_begin(w, ar, 3000, 1, 0) == PAL_OK);
    CHECK(pal_trace_writer_set_i64(w, "duration", 500) == PAL_OK);
    CHECK(pal_trace_writer_set_i64(w, "comm", 0) == PAL_OK);
    CHECK(pal_trace_writer_field_i64(w, pal_recdesc_find_field(ar, "sent"), 64) == PAL_OK);
    CHECK(pal_trace_writer_set_u64(w, "recvd", 32) == PAL_OK);
    /* errors: no such field, a string for a number, a field of another type */
    CHECK(pal_trace_writer_set_i64(w, "nosuch", 1) == PAL_ENOFIELD);
    CHECK(pal_trace_writer_set_str(w, "comm", "x", 1) == PAL_ETYPE);
    CHECK(pal_trace_writer_set_f64(w, "comm", 1.5) == PAL_ETYPE);
    CHECK(pal_trace_writer_field_i64(w, pal_recdesc_find_field(work, "duration"), 1) ==
          PAL_ENOFIELD);
    CHECK(pal_trace_writer_put(w) == PAL_OK);
    CHECK(pal_trace_writer_put(w) == PAL_EINVAL);   /* nothing begun */
    CHECK(pal_trace_writer_begin(w, comm, 1000, 0, 0) == PAL_OK);
    CHECK(pal_trace_writer_set_i64(w, "id", 0) == PAL_OK);
    CHECK(pal_trace_writer_set_i64(w, "size", 2) == PAL_OK);
    CHECK(pal_trace_writer_set_str(w, "members", "0-1", 3) == PAL_OK);
    CHECK(pal_trace_writer_put(w) == PAL_OK);
    CHECK(pal_trace_writer_begin(w, work, 2000, 0, 0) == PAL_OK);
    CHECK(pal_trace_writer_set_i64(w, "duration", 1000) == PAL_OK);
    CHECK(pal_trace_writer_put(w) == PAL_OK);
    CHECK(pal_trace_writer_begin(w, work, 2000, 1, 0) == PAL_OK);
    CHECK(pal_trace_writer_set_i64(w, "duration", 1500) == PAL_OK);
    CHECK(pal_trace_writer_put(w) == PAL_OK);
    CHECK(pal_trace_writer_begin(w, work, -1, 0, 0) == PAL_ERANGE);
    CHECK(pal_trace_writer_records(w) == 4);
    char err[1024];
    CHECK(pal_trace_writer_close(w, err, sizeof err) == PAL_OK);
    pal_dict_destroy(d);

    pal_reader *r = NULL;
    CHECK(pal_reader_open(argv[2], NULL, &r) == PAL_OK);
    static const struct {
        const char *type;
        int64_t t;
        uint32_t process;
        int64_t duration;
    } want[] = { { "comm", 1000, 0, -1 }, { "work", 2000, 0, 1000 }, { "work", 2000, 1, 1500 },
                 { "allreduce", 3000, 1, 500 } };
    const pal_record *rec;
    size_t n = 0;
    pal_status st;
    while ((st = pal_reader_next(r, &rec)) == PAL_OK) {
        CHECK(n < sizeof want / sizeof *want);
        CHECK(strcmp(pal_recdesc_name(pal_record_desc(rec)), want[n].type) == 0);
        CHECK(pal_record_time_ns(rec) == want[n].t);
        CHECK(pal_record_process(rec) == want[n].process);
        int64_t v;
        if (want[n].duration >= 0) {
            CHECK(pal_record_duration_ns(rec, &v) == PAL_OK && v == want[n].duration);
        } else {
            const char *s;
            size_t len;
            CHECK(pal_record_get_str(rec, "members", &s, &len) == PAL_OK && len == 3 &&
                  memcmp(s, "0-1", 3) == 0);
            CHECK(pal_record_get_i64(rec, "size", &v) == PAL_OK && v == 2);
        }
        if (strcmp(want[n].type, "allreduce") == 0) {
            CHECK(pal_record_get_i64(rec, "sent", &v) == PAL_OK && v == 64);
            CHECK(pal_record_get_i64(rec, "recvd", &v) == PAL_OK && v == 32);
            CHECK(pal_record_has_role(rec, PAL_ROLE_COLLECTIVE) == 1);
        }
        n++;
    }
    CHECK(st == PAL_END && n == 4);
    pal_reader_close(r);
    puts("synth_writer: 4 records written out of order, read back in order");
    return 0;
}
