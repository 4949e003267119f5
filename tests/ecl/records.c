/* records.c -- user records and regions read back exactly: a type of only
 * numbers (ECL's shortest recording path with the cycle counter), a type
 * with a string (the general path), and enter/leave, recorded in small
 * buffers by two threads, then read back through PAL by this program after
 * ecl_finalize. Every value, including the extremes of each field type and
 * the special floats, must come back as recorded, in order, and each
 * thread's times must never go back.
 *
 *   records N      (N records of each type per thread)
 * Exit 0 if everything came back, 1 otherwise (each difference printed). */
#include <ecl.h>
#include <pal.h>

#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 2

static long n;
static ecl_type numbers, labelled;
static ecl_region region;
static int failures;

#define FAIL(...)                                                                  \
    do {                                                                           \
        if (failures++ < 20) {                                                     \
            fprintf(stderr, "records: ");                                          \
            fprintf(stderr, __VA_ARGS__);                                          \
            fputc('\n', stderr);                                                   \
        }                                                                          \
    } while (0)

/* The values of record k of thread th: every 8th one an extreme. */
static void values(int th, long k, ecl_value v[5])
{
    switch (k % 8) {
    case 0:
        v[0].i = INT32_MIN; v[1].i = INT64_MIN; v[2].u = UINT32_MAX; v[3].u = UINT64_MAX;
        v[4].f = -0.0;
        break;
    case 1:
        v[0].i = INT32_MAX; v[1].i = INT64_MAX; v[2].u = 0; v[3].u = 0; v[4].f = INFINITY;
        break;
    default:
        v[0].i = -k; v[1].i = (int64_t)k * 1000003 * (th ? -1 : 1); v[2].u = (uint64_t)k * 7;
        v[3].u = (uint64_t)k << 33; v[4].f = (double)k / 3.0;
        break;
    }
}

static void *work(void *arg)
{
    int th = (int)(intptr_t)arg;
    for (long k = 0; k < n; k++) {
        ecl_value v[5], w[2];
        values(th, k, v);
        ecl_enter(region);
        ecl_record(numbers, v);
        w[0].s = k % 2 ? "odd" : "even";
        w[1].u = (uint64_t)k;
        ecl_record(labelled, w);
        ecl_leave(region);
    }
    return NULL;
}

static int same_f64(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* Checks one record of type `numbers` against the k-th values of thread th. */
static void check_numbers(const pal_record *r, int th, long k)
{
    ecl_value v[5];
    int64_t i32, i64;
    uint64_t u32, u64;
    double f;
    values(th, k, v);
    if (pal_record_get_i64(r, "i32", &i32) != PAL_OK || pal_record_get_i64(r, "i64", &i64) != PAL_OK ||
        pal_record_get_u64(r, "u32", &u32) != PAL_OK || pal_record_get_u64(r, "u64", &u64) != PAL_OK ||
        pal_record_get_f64(r, "f64", &f) != PAL_OK) {
        FAIL("thread %d record %ld: a field cannot be read", th, k);
        return;
    }
    if (i32 != v[0].i || i64 != v[1].i || u32 != v[2].u || u64 != v[3].u || !same_f64(f, v[4].f))
        FAIL("thread %d record %ld: read %" PRId64 " %" PRId64 " %" PRIu64 " %" PRIu64
             " %g, recorded %" PRId64 " %" PRId64 " %" PRIu64 " %" PRIu64 " %g",
             th, k, i32, i64, u32, u64, f, v[0].i, v[1].i, v[2].u, v[3].u, v[4].f);
}

int main(int argc, char **argv)
{
    n = argc == 2 ? atol(argv[1]) : 0;
    if (n <= 0) {
        fprintf(stderr, "usage: records N\n");
        return 2;
    }
    const ecl_field fn[5] = {
        { "i32", ECL_FIELD_INT32, NULL, NULL }, { "i64", ECL_FIELD_INT64, NULL, NULL },
        { "u32", ECL_FIELD_UINT32, NULL, NULL }, { "u64", ECL_FIELD_UINT64, NULL, NULL },
        { "f64", ECL_FIELD_FLOAT64, NULL, NULL },
    };
    const ecl_field fl[2] = { { "label", ECL_FIELD_STRING, NULL, NULL },
                              { "k", ECL_FIELD_UINT64, NULL, NULL } };
    if (ecl_init() != ECL_OK || ecl_type_register("numbers", fn, 5, &numbers) != ECL_OK ||
        ecl_type_register("labelled", fl, 2, &labelled) != ECL_OK ||
        (region = ecl_region_define("work")) == 0) {
        fprintf(stderr, "records: cannot set up tracing\n");
        return 1;
    }
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++)
        pthread_create(&t[i], NULL, work, (void *)(intptr_t)i);
    for (int i = 0; i < THREADS; i++)
        pthread_join(t[i], NULL);
    char path[4096];
    snprintf(path, sizeof path, "%s", ecl_trace_path());
    if (ecl_finalize() != ECL_OK) {
        fprintf(stderr, "records: ecl_finalize failed\n");
        return 1;
    }

    pal_reader *rd = NULL;
    if (pal_reader_open(path, NULL, &rd) != PAL_OK) {
        fprintf(stderr, "records: cannot open '%s': %s\n", path, pal_last_error());
        return 1;
    }
    /* Streams are numbered in the order of their threads' first records;
     * each stream's first `numbers` record (k = 0, an extreme) says which
     * thread it is by its i64 sign pattern: read per stream in order. */
    enum { MAXS = 16 };
    long next_num[MAXS] = { 0 }, next_lab[MAXS] = { 0 }, enters[MAXS] = { 0 },
         leaves[MAXS] = { 0 };
    int thread_of[MAXS];
    uint64_t last[MAXS] = { 0 };
    for (int i = 0; i < MAXS; i++)
        thread_of[i] = -1;
    const pal_record *r;
    pal_status st;
    while ((st = pal_reader_next(rd, &r)) == PAL_OK) {
        uint32_t s = pal_record_stream(r);
        if (s == 0)
            continue;
        if (s >= MAXS) {
            FAIL("stream %u", s);
            continue;
        }
        uint64_t tm = pal_record_time(r);
        if (tm < last[s])
            FAIL("stream %u: time goes back", s);
        last[s] = tm;
        const char *name = pal_recdesc_name(pal_record_desc(r));
        if (strcmp(name, "numbers") == 0) {
            if (thread_of[s] < 0 && next_num[s] == 2) {
                /* record 2 is the first not extreme: its i64 sign names the thread */
                int64_t i64 = 0;
                pal_record_get_i64(r, "i64", &i64);
                thread_of[s] = i64 < 0;
            }
            if (next_num[s] >= 2)
                check_numbers(r, thread_of[s], next_num[s]);
            else
                check_numbers(r, 0, next_num[s]);   /* extremes: the same in both threads */
            next_num[s]++;
        } else if (strcmp(name, "labelled") == 0) {
            const char *label;
            size_t len;
            uint64_t k;
            const char *want = next_lab[s] % 2 ? "odd" : "even";
            if (pal_record_get_str(r, "label", &label, &len) != PAL_OK ||
                pal_record_get_u64(r, "k", &k) != PAL_OK || len != strlen(want) ||
                memcmp(label, want, len) != 0 || k != (uint64_t)next_lab[s])
                FAIL("stream %u: labelled record %ld differs", s, next_lab[s]);
            next_lab[s]++;
        } else if (strcmp(name, "enter") == 0) {
            enters[s]++;
        } else if (strcmp(name, "leave") == 0) {
            leaves[s]++;
        }
    }
    if (st != PAL_END)
        FAIL("reading stopped: %s", pal_reader_error(rd));
    pal_reader_close(rd);
    int streams = 0;
    for (int s = 1; s < MAXS; s++) {
        if (next_num[s] == 0 && enters[s] == 0)
            continue;
        streams++;
        if (next_num[s] != n || next_lab[s] != n || enters[s] != n || leaves[s] != n)
            FAIL("stream %d: %ld numbers, %ld labelled, %ld enter, %ld leave; expected %ld each",
                 s, next_num[s], next_lab[s], enters[s], leaves[s], n);
    }
    if (streams != THREADS)
        FAIL("%d thread streams, expected %d", streams, THREADS);
    if (failures)
        return 1;
    printf("records: %d threads x %ld records of each type read back exactly\n", THREADS, n);
    return 0;
}
