/* check_core.c -- unit tests of the ECL basic layer (ecl/core): field
 * encoders, the crash-time record scan, the time-delta clamp, type
 * definitions, the header rewritten with the rank, buffers resident from a
 * thread's first record. (The container's own
 * encodings are tested in tests/container.) */
#include <config.h>

#include "ecl/core/internal.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>
#include <zlib.h>

START_TEST(lstring_and_f64)
{
    uint8_t buf[64], *p = buf;
    p = ecl_buf_put_str(p, "hello", 5);
    p = ecl_buf_put_f64(p, 2.5);
    ck_assert_uint_eq((size_t)(p - buf), 1 + 5 + 8);
    ck_assert_uint_eq(buf[0], 5);
    ck_assert(memcmp(buf + 1, "hello", 5) == 0);
    double d;
    memcpy(&d, buf + 6, 8);
    ck_assert(d == 2.5);
}
END_TEST

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}


START_TEST(scan_stops_at_partial_record)
{
    uint8_t buf[256], *p = buf;
    /* enter(5) +10, marker "abc" (length 3) +3, counter_float(2, 1.5) +0, leave(5) +200 */
    *p++ = ECL_REC_ENTER; p = ecl_buf_put_uleb(p, 10); p = ecl_buf_put_uleb(p, 5);
    *p++ = ECL_REC_MARKER; p = ecl_buf_put_uleb(p, 3); p = ecl_buf_put_str(p, "abc", 3);
    *p++ = 3;
    *p++ = ECL_REC_COUNTER_FLOAT; *p++ = 0; *p++ = 2; p = ecl_buf_put_f64(p, 1.5);
    *p++ = ECL_REC_LEAVE; p = ecl_buf_put_uleb(p, 200); p = ecl_buf_put_uleb(p, 5);
    size_t full = (size_t)(p - buf);
    uint32_t count;
    uint64_t last;
    ck_assert_uint_eq(ecl_chunk_scan(buf, full, 1000, &count, &last), full);
    ck_assert_uint_eq(count, 4);
    ck_assert_uint_eq(last, 1213);
    /* every cut inside the last record drops just that record */
    for (size_t cut = full - 1; cut > full - 4; cut--) {
        size_t good = ecl_chunk_scan(buf, cut, 1000, &count, &last);
        ck_assert_uint_eq(count, 3);
        ck_assert_uint_eq(last, 1013);
        ck_assert_uint_eq(good, full - 4);
    }
    /* an unknown type ends the scan */
    buf[0] = 100;
    ck_assert_uint_eq(ecl_chunk_scan(buf, full, 0, &count, &last), 0);
    ck_assert_uint_eq(count, 0);
}
END_TEST

START_TEST(time_delta_clamps_at_zero)
{
    /* A thread whose last time lies in the future (a clock that stepped
     * back): the delta is 0 and the record keeps the last time. */
    char e[256];
    ck_assert_int_eq(ecl_sys_clock_init(ECL_SYS_CLOCK_MONOTONIC, e, sizeof e), 0);
    uint8_t buf[64];
    ecl_buf_hot fake = { buf, buf + sizeof buf, ecl_sys_clock_now() + 1000000000000ull, 0 };
    ecl_buf_hot *saved = ecl_buf_self;
    ecl_buf_self = &fake;
    uint64_t before = fake.last;
    ecl_buf_record_u(ECL_REC_ENTER, 300);
    ecl_buf_self = saved;
    ck_assert_uint_eq(fake.count, 1);
    ck_assert_uint_eq(fake.last, before);
    ck_assert_uint_eq((size_t)(fake.pos - buf), 4);
    ck_assert_uint_eq(buf[0], ECL_REC_ENTER);
    ck_assert_uint_eq(buf[1], 0);
    ck_assert_uint_eq(buf[2], 0xAC);   /* 300 = 0b10_0101100 */
    ck_assert_uint_eq(buf[3], 0x02);

    /* and a normal record: small positive delta, 3 bytes for a small region */
    fake.last = ecl_sys_clock_now();
    ecl_buf_self = &fake;
    ecl_buf_record_u(ECL_REC_LEAVE, 7);
    ecl_buf_self = saved;
    ck_assert_uint_eq(fake.count, 2);
    ck_assert(fake.pos - buf <= 4 + 6);
}
END_TEST

START_TEST(type_definitions)
{
    /* Without an open trace, definitions still get ids (nothing is written). */
    ecl_trace_field f[2] = {
        { "a", EDL_INT64, EDL_ENC_SLEB, NULL, NULL },
        { "b", EDL_STRING, EDL_ENC_LSTRING, "u", "d" },
    };
    uint32_t id, id2;
    ck_assert_int_eq(ecl_trace_type_define(0, "t1", NULL, f, 2, &id), ECL_CORE_OK);
    ck_assert_uint_eq(id, ECL_REC_USER_FIRST);
    ck_assert_str_eq(ecl_trace_layout(id), "sl");
    ck_assert_int_eq(ecl_trace_type_define(0, "t1", NULL, f, 2, &id2), ECL_CORE_OK);
    ck_assert_uint_eq(id2, id);
    ck_assert_int_eq(ecl_trace_type_define(0, "t1", NULL, f, 1, &id2), ECL_CORE_EEXIST);
    ck_assert_int_eq(ecl_trace_type_define(0, "enter", NULL, f, 1, &id2), ECL_CORE_EEXIST);
    ck_assert_int_eq(ecl_trace_type_define(0, "1bad", NULL, f, 1, &id2), ECL_CORE_EINVAL);
    ck_assert_int_eq(ecl_trace_type_define(ECL_REC_RESERVED_LAST + 1, "t2", NULL, f, 1, &id2), ECL_CORE_EINVAL);
    ck_assert_int_eq(ecl_trace_type_define(20, "mpi_send", NULL, f, 1, &id2), ECL_CORE_OK);
    ck_assert_uint_eq(id2, 20);
    ck_assert_int_eq(ecl_trace_type_define(20, "other", NULL, f, 1, &id2), ECL_CORE_EEXIST);
    ecl_trace_field bad = { "time", EDL_UINT32, EDL_ENC_ULEB, NULL, NULL };
    ck_assert_int_eq(ecl_trace_type_define(0, "t3", NULL, &bad, 1, &id2), ECL_CORE_EINVAL);
    ecl_trace_field mismatch = { "x", EDL_INT32, EDL_ENC_ULEB, NULL, NULL };
    ck_assert_int_eq(ecl_trace_type_define(0, "t4", NULL, &mismatch, 1, &id2), ECL_CORE_EINVAL);
    ck_assert(ecl_trace_layout(ECL_REC_ENTER) != NULL);
    ck_assert(ecl_trace_layout(127) == NULL);
    ck_assert(ecl_trace_layout(ECL_REC_TYPE_LIMIT) == NULL);
    ck_assert_uint_eq(ecl_trace_region("x"), 1);
    ck_assert_uint_eq(ecl_trace_region("y"), 2);
    ck_assert_uint_eq(ecl_trace_region("x"), 1);
    ck_assert_uint_eq(ecl_trace_region(""), 0);
}
END_TEST

/* Opens a trace with this clock in a new directory made from the template dir. */
static void open_trace_clock(char *dir, ecl_sys_clock_source clock)
{
    char err[512];
    ck_assert(mkdtemp(dir) != NULL);
    ecl_trace_config cfg;
    ecl_trace_config_default(&cfg);
    snprintf(cfg.dir, sizeof cfg.dir, "%s", dir);
    cfg.clock = clock;
    ck_assert_int_eq(ecl_trace_open(&cfg, err, sizeof err), ECL_CORE_OK);
}

static void open_trace_in(char *dir)
{
    open_trace_clock(dir, ECL_SYS_CLOCK_MONOTONIC);
}

START_TEST(type_meanings)
{
    /* A type's meaning is checked when it is defined, must match on
     * re-definition, and goes into the dictionary of a trace opened later. */
    ecl_trace_field f[3] = {
        { "peer", EDL_INT64, EDL_ENC_SLEB, NULL, NULL },
        { "duration", EDL_UINT64, EDL_ENC_ULEB, "ticks", NULL },
        { "region", EDL_UINT32, EDL_ENC_ULEB, NULL, NULL },
    };
    edl_role roles[2] = { { EDL_ROLE_CALL, NULL, NULL }, { EDL_ROLE_SEND, NULL, NULL } };
    edl_field_meaning fm[3] = {
        { "peer", EDL_FROLE_PEER, { NULL, NULL, 0 } },
        { "duration", EDL_FROLE_DURATION, { NULL, NULL, 0 } },
        { "region", EDL_FROLE_REGION, { "region_def", "region", 0 } },
    };
    edl_meaning m = { roles, 2, NULL, fm, 3, NULL};
    uint32_t id, id2;
    ck_assert_int_eq(ecl_trace_type_define_meaning(0, "call", NULL, f, 3, &m, &id), ECL_CORE_OK);
    ck_assert_int_eq(ecl_trace_type_define_meaning(0, "call", NULL, f, 3, &m, &id2), ECL_CORE_OK);
    ck_assert_uint_eq(id2, id);
    ck_assert_int_eq(ecl_trace_type_define(0, "call", NULL, f, 3, &id2), ECL_CORE_EEXIST);
    m.nfields = 2;      /* a call without its region: refused by the model */
    ck_assert_int_eq(ecl_trace_type_define_meaning(0, "call2", NULL, f, 3, &m, &id2),
                     ECL_CORE_EINVAL);
    m.nfields = 3;

    char dir[] = "/tmp/ecl-check-core-XXXXXX";
    open_trace_in(dir);
    const edl_record *r = edl_dict_find_record(ecl_T.dict, "call");
    ck_assert_ptr_nonnull(r);
    ck_assert_int_eq(edl_record_has_role(r, EDL_ROLE_SEND), 1);
    ck_assert_int_eq(edl_field_role_of(edl_record_field(r, 2)), EDL_FROLE_PEER);
    ck_assert_str_eq(edl_field_ref_of(edl_record_field(r, 4)).record, "region_def");
    ck_assert_str_eq(edl_dict_designation_ref(ecl_T.dict, EDL_FROLE_THREAD).record, "thread_def");
    ck_assert_int_eq(ecl_trace_close(), ECL_CORE_OK);
    char path[600];
    snprintf(path, sizeof path, "%s/trace.%u.ecl", dir, (unsigned)getpid());
    unlink(path);
    rmdir(dir);
}
END_TEST

START_TEST(set_rank_rewrites_header)
{
    char dir[] = "/tmp/ecl-check-core-XXXXXX", path[600];
    open_trace_in(dir);
    snprintf(path, sizeof path, "%s/trace.%u.ecl", dir, (unsigned)getpid());
    ck_assert_str_eq(ecl_trace_file_path(), path);
    uint32_t r = ecl_trace_region("r");
    ecl_buf_record_u(ECL_REC_ENTER, r);
    ck_assert_int_eq(ecl_trace_set_rank(-1, 4), ECL_CORE_EINVAL);
    ck_assert_int_eq(ecl_trace_set_rank(3, 8), ECL_CORE_OK);
    ecl_buf_record_u(ECL_REC_LEAVE, r);
    ck_assert_int_eq(ecl_trace_close(), ECL_CORE_OK);
    ck_assert_int_eq(ecl_trace_close(), ECL_CORE_OK);          /* idempotent */
    ck_assert_int_eq(ecl_trace_set_rank(3, 8), ECL_CORE_ESTATE);
    ck_assert_int_eq(access(path, F_OK), -1);                  /* renamed */
    snprintf(path, sizeof path, "%s/trace.3.ecl", dir);
    ck_assert_str_eq(ecl_trace_file_path(), path);

    FILE *f = fopen(path, "rb");
    ck_assert(f != NULL);
    static uint8_t buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    uint32_t hlen = rd32(buf + 12), crc = rd32(buf + 16);
    ck_assert(hlen <= n);
    ck_assert((int32_t)rd32(buf + 44) == 3 && (int32_t)rd32(buf + 48) == 8);
    /* the header's copy (after a pad chunk) was rewritten too */
    ck_assert_uint_eq(buf[hlen + 8], 6);
    ck_assert_uint_eq(buf[hlen + 64 + 8], 4);
    ck_assert_uint_eq(rd32(buf + hlen + 64 + 12), hlen);
    ck_assert(memcmp(buf, buf + hlen + 128, hlen) == 0);
    ck_assert_uint_eq(rd32(buf + hlen + 64 + 56), (uint32_t)crc32(0, buf, hlen));
    memset(buf + 16, 0, 4);
    ck_assert_uint_eq(crc, (uint32_t)crc32(0, buf, hlen));
    /* chunks after set_rank carry the rank; the footer ends the file */
    int with_rank = 0;
    for (size_t off = hlen; off + 64 <= n && memcmp(buf + off, "ECHK", 4) == 0;
         off += 64 + rd32(buf + off + 12))
        with_rank += rd32(buf + off + 20) == 3;
    ck_assert(with_rank >= 3);   /* leave's chunk, the final clock_sync, the end, the index */
    ck_assert(memcmp(buf + n - 16, "ECLINDEX", 8) == 0);
    unlink(path);
    rmdir(dir);
}
END_TEST

START_TEST(close_writes_whole_run_rate)
{
    /* The cycle counter's rate measured at open (~1 ms) is measured again over
     * the whole run at close, and the header and its copy say the latter. */
    if (!ecl_sys_clock_has_invariant_tsc())
        return;
    char dir[] = "/tmp/ecl-check-core-XXXXXX", path[600];
    open_trace_clock(dir, ECL_SYS_CLOCK_TSC);
    snprintf(path, sizeof path, "%s/trace.%u.ecl", dir, (unsigned)getpid());
    double at_open = ecl_sys_clock_ticks_per_second();
    usleep(20000);
    ck_assert_int_eq(ecl_trace_close(), ECL_CORE_OK);
    double at_close = ecl_sys_clock_ticks_per_second();
    ck_assert_msg(at_close > at_open * 0.999 && at_close < at_open * 1.001, "%g then %g",
                  at_open, at_close);
    FILE *f = fopen(path, "rb");
    ck_assert(f != NULL);
    static uint8_t buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    uint32_t hlen = rd32(buf + 12), crc = rd32(buf + 16);
    ck_assert(hlen + 128 + hlen <= n);
    double in_file;
    memcpy(&in_file, buf + 24, 8);
    ck_assert(in_file == at_close);                     /* bit for bit */
    ck_assert(memcmp(buf, buf + hlen + 128, hlen) == 0); /* the copy too */
    memset(buf + 16, 0, 4);
    ck_assert_uint_eq(crc, (uint32_t)crc32(0, buf, hlen));
    unlink(path);
    rmdir(dir);
}
END_TEST

/* Minor page faults of the calling thread so far. */
static long thread_faults(void)
{
    struct rusage ru;
    ck_assert_int_eq(getrusage(RUSAGE_THREAD, &ru), 0);
    return ru.ru_minflt;
}

START_TEST(buffers_resident_from_first_record)
{
    /* A thread's buffers are faulted in when its first record allocates
     * them (one call), not page by page as records fill them: filling
     * both buffers of the default 2 x 1 MiB takes no page fault per 4 KiB
     * (it took ~500 before). Needs MADV_POPULATE_WRITE (Linux 5.14). */
#ifdef __linux__
    long page = sysconf(_SC_PAGESIZE);
    void *probe = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                       -1, 0);
    ck_assert(probe != MAP_FAILED);
    int can = madvise(probe, (size_t)page, 23 /* MADV_POPULATE_WRITE */) == 0;
    munmap(probe, (size_t)page);
    if (!can) {
        printf("buffers_resident_from_first_record: skipped, no MADV_POPULATE_WRITE\n");
        return;
    }
    char dir[] = "/tmp/ecl-check-core-XXXXXX", path[600];
    open_trace_in(dir);
    snprintf(path, sizeof path, "%s/trace.%u.ecl", dir, (unsigned)getpid());
    uint32_t r = ecl_trace_region("r");
    ecl_buf_record_u(ECL_REC_ENTER, r);          /* registers the thread: buffers */
    size_t bytes = 0;
    long before = thread_faults();
    for (uint32_t i = 0; bytes < 2 * ((size_t)1 << 20) - 4096; i++) {
        uint8_t *p0 = ecl_buf_self->pos;
        ecl_buf_record_u(ECL_REC_LEAVE, r);
        if (ecl_buf_self->pos > p0)
            bytes += (size_t)(ecl_buf_self->pos - p0);
    }
    long faults = thread_faults() - before;
    /* 512 pages; under ASan the shadow of the buffers (1/8) faults in */
    ck_assert_msg(faults < 128, "%ld page faults while filling 2 MiB of buffers", faults);
    ck_assert_int_eq(ecl_trace_close(), ECL_CORE_OK);
    unlink(path);
    rmdir(dir);
#endif
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ecl_core");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, lstring_and_f64);
    tcase_add_test(tc, scan_stops_at_partial_record);
    tcase_add_test(tc, time_delta_clamps_at_zero);
    tcase_add_test(tc, type_definitions);
    tcase_add_test(tc, type_meanings);
    tcase_add_test(tc, set_rank_rewrites_header);
    tcase_add_test(tc, close_writes_whole_run_rate);
    tcase_add_test(tc, buffers_resident_from_first_record);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
