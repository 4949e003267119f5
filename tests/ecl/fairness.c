/* fairness.c -- the writer thread serves every thread, whatever the others do.
 * One thread records counter samples flat out (faster than the writer can
 * compress them) while three threads record batches at a modest rate; then
 * the trace is read back through PAL and checked:
 *
 *   - every record of every slow thread is in the file (exact counts);
 *   - no thread waited for a free buffer longer than BOUND_MS (the durations
 *     of its `flush` records);
 *   - no chunk reached the file later than BOUND_MS after its last record.
 *     Chunks reserve their file range in the order they are written, so a
 *     chunk written after others was written after all of their records were
 *     made: (latest record time of the chunks before it) - (its last record
 *     time) is a lower bound of how long its records waited.
 *
 * A writer that serves one thread while it has full buffers stalls the slow
 * threads until the fast one stops (FAST_MAX_S): the slow threads' chunks
 * waited 2.6 to 6 s, and the slow threads for free buffers up to 5.6 s, in 8
 * of 8 runs. With a fair writer waits are a few chunk writes: at most 54 ms
 * in the same runs on a 2-core machine at load 7, hence BOUND_MS.
 *
 *   fairness        (environment: ECL_* as set by tests/ecl/fairness.sh)
 *
 * Exit 0 if every check holds, 1 otherwise (each failure printed). */
#include <ecl.h>
#include <pal.h>

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define SLOW 3
#define BATCHES 400
#define BATCH_PAIRS 250
#define BATCH_SLEEP_NS 2000000L
#define FAST_MAX_S 6
#define BOUND_MS 500.0
#define MAX_STREAMS 64

static ecl_region region;
static ecl_counter counter;
static int stop;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Counter samples of random values: about 12 bytes each that compress
 * poorly, so this thread fills buffers far faster than zlib compresses them. */
static void *fast(void *arg)
{
    (void)arg;
    ecl_marker("fast");
    double deadline = now_s() + FAST_MAX_S;
    uint64_t x = 88172645463325252ull;
    while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
        for (int i = 0; i < 10000; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            ecl_counter_int(counter, (int64_t)x);
        }
        if (now_s() > deadline)
            break;                   /* a starved slow thread must not hang the test */
    }
    return NULL;
}

static void *slow(void *arg)
{
    char text[16];
    snprintf(text, sizeof text, "slow %u", (unsigned)(uintptr_t)arg);
    ecl_marker(text);
    for (int b = 0; b < BATCHES; b++) {
        for (int i = 0; i < BATCH_PAIRS; i++) {
            ecl_enter(region);
            ecl_leave(region);
        }
        struct timespec ts = { 0, BATCH_SLEEP_NS };
        nanosleep(&ts, NULL);
    }
    return NULL;
}

static int failures;
#define FAIL(...)                                                                  \
    do {                                                                           \
        failures++;                                                                \
        fprintf(stderr, "fairness: ");                                             \
        fprintf(stderr, __VA_ARGS__);                                              \
        fputc('\n', stderr);                                                       \
    } while (0)

typedef struct stream_info {
    int role;                    /* -1 unknown, 0 fast, 1..SLOW slow thread k+1 */
    uint64_t pairs_records;      /* enter + leave */
    uint64_t samples;            /* counter_int */
    uint64_t lost;
    double max_flush_ms;
    double max_delay_ms;
} stream_info;

static int check(const char *path)
{
    pal_reader *rd;
    if (pal_reader_open(path, NULL, &rd) != PAL_OK) {
        FAIL("cannot open '%s': %s", path, pal_last_error());
        return 1;
    }
    pal_trace_info info;
    pal_reader_info(rd, &info);
    double ms_per_tick = 1e3 / info.ticks_per_second;
    stream_info s[MAX_STREAMS];
    for (int i = 0; i < MAX_STREAMS; i++)
        s[i] = (stream_info){ -1, 0, 0, 0, 0, 0 };

    const pal_record *r;
    pal_status st;
    uint64_t chunk = UINT64_MAX, chunk_last = 0, before = 0, latest = 0;
    uint32_t chunk_stream = 0;
    int have_before = 0;
    while ((st = pal_reader_next(rd, &r)) == PAL_OK) {
        uint32_t sid = pal_record_stream(r);
        uint64_t t = pal_record_time(r), off = pal_record_offset(r);
        const char *name = pal_recdesc_name(pal_record_desc(r));
        if (sid >= MAX_STREAMS) {
            FAIL("stream %u out of range", sid);
            continue;
        }
        if (off != chunk) {
            /* the previous chunk is complete: how late did it reach the file? */
            if (chunk != UINT64_MAX && chunk_stream != 0 && have_before && before > chunk_last) {
                double d = (double)(before - chunk_last) * ms_per_tick;
                if (d > s[chunk_stream].max_delay_ms)
                    s[chunk_stream].max_delay_ms = d;
            }
            chunk = off;
            chunk_stream = sid;
            chunk_last = 0;
            before = latest;
            have_before = latest != 0;
        }
        if (t > chunk_last)
            chunk_last = t;
        if (t > latest)
            latest = t;
        if (sid == 0)
            continue;
        stream_info *si = &s[sid];
        if (strcmp(name, "marker") == 0) {
            const char *txt;
            size_t len;
            unsigned k;
            char buf[32];
            if (pal_record_get_str(r, "text", &txt, &len) == PAL_OK && len < sizeof buf) {
                memcpy(buf, txt, len);
                buf[len] = '\0';
                if (strcmp(buf, "fast") == 0)
                    si->role = 0;
                else if (sscanf(buf, "slow %u", &k) == 1 && k < SLOW)
                    si->role = 1 + (int)k;
            }
        } else if (strcmp(name, "counter_int") == 0) {
            si->samples++;
        } else if (strcmp(name, "enter") == 0 || strcmp(name, "leave") == 0) {
            si->pairs_records++;
        } else if (strcmp(name, "flush") == 0) {
            uint64_t d = 0;
            pal_record_get_u64(r, "duration", &d);
            if ((double)d * ms_per_tick > si->max_flush_ms)
                si->max_flush_ms = (double)d * ms_per_tick;
        } else if (strcmp(name, "lost") == 0) {
            uint64_t c = 0;
            pal_record_get_u64(r, "count", &c);
            si->lost += c;
        }
    }
    if (chunk != UINT64_MAX && chunk_stream != 0 && have_before && before > chunk_last) {
        double d = (double)(before - chunk_last) * ms_per_tick;
        if (d > s[chunk_stream].max_delay_ms)
            s[chunk_stream].max_delay_ms = d;
    }
    if (st != PAL_END)
        FAIL("reading stopped: %s", pal_reader_error(rd));
    pal_reader_stats rs;
    pal_reader_get_stats(rd, &rs);
    if (rs.damaged || rs.truncated)
        FAIL("%" PRIu64 " damaged chunks%s", rs.damaged, rs.truncated ? ", truncated" : "");
    pal_reader_close(rd);

    int found[SLOW + 1] = { 0 };
    for (int i = 1; i < MAX_STREAMS; i++) {
        stream_info *si = &s[i];
        if (si->role < 0)
            continue;
        found[si->role]++;
        const char *who = si->role == 0 ? "fast thread" : "slow thread";
        printf("fairness: stream %d (%s %d): %" PRIu64 " records, longest wait for a "
               "buffer %.3f ms, latest chunk %.3f ms after its last record\n",
               i, who, si->role ? si->role - 1 : 0, si->pairs_records + si->samples,
               si->max_flush_ms, si->max_delay_ms);
        if (si->role > 0 && si->pairs_records != 2ull * BATCHES * BATCH_PAIRS)
            FAIL("stream %d (slow thread %d): %" PRIu64 " enter/leave records, expected %d", i,
                 si->role - 1, si->pairs_records, 2 * BATCHES * BATCH_PAIRS);
        if (si->lost)
            FAIL("stream %d: %" PRIu64 " records lost in lossless mode", i, si->lost);
        if (si->max_flush_ms > BOUND_MS)
            FAIL("stream %d (%s): waited %.1f ms for a free buffer (bound %.0f ms)", i, who,
                 si->max_flush_ms, BOUND_MS);
        if (si->max_delay_ms > BOUND_MS)
            FAIL("stream %d (%s): a chunk reached the file %.1f ms after its last record "
                 "(bound %.0f ms)", i, who, si->max_delay_ms, BOUND_MS);
    }
    for (int k = 0; k <= SLOW; k++)
        if (found[k] != 1)
            FAIL("%s thread %d: found in %d streams", k ? "slow" : "fast", k ? k - 1 : 0,
                 found[k]);
    return failures != 0;
}

int main(void)
{
    if (ecl_init() != ECL_OK || ecl_trace_path() == NULL) {
        fprintf(stderr, "fairness: tracing did not start\n");
        return 1;
    }
    region = ecl_region_define("work");
    counter = ecl_counter_define("noise", NULL, ECL_COUNTER_INT);
    pthread_t f, sl[SLOW];
    double t0 = now_s();
    if (pthread_create(&f, NULL, fast, NULL) != 0)
        return 1;
    for (unsigned k = 0; k < SLOW; k++)
        if (pthread_create(&sl[k], NULL, slow, (void *)(uintptr_t)k) != 0)
            return 1;
    for (unsigned k = 0; k < SLOW; k++)
        pthread_join(sl[k], NULL);
    double t_slow = now_s() - t0;
    __atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
    pthread_join(f, NULL);
    char path[4096];
    snprintf(path, sizeof path, "%s", ecl_trace_path());
    if (ecl_finalize() != ECL_OK) {
        fprintf(stderr, "fairness: ecl_finalize failed\n");
        return 1;
    }
    printf("fairness: slow threads done after %.3f s\n", t_slow);
    if (check(path) != 0) {
        fprintf(stderr, "fairness: %d failure(s)\n", failures);
        return 1;
    }
    return 0;
}
