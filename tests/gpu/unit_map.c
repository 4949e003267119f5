/* unit_map.c -- unit test of ECL's GPU record mapping and clock correlation
 * without a GPU: synthetic CUPTI activity records (the CUDA 13 structs of
 * cupti_activity.h) go through ecl_gpu_cupti_map, synthetic in-kernel
 * stamps through ecl_gpu_stamps_record, into a trace that
 * tests/gpu/unit.sh reads back with gpucheck. Also measures ECL's mapping
 * cost per record and the stored size of a kernel record (printed as
 * `map_ns_per_record=` and `kernel_record_bytes=`).
 * Usage: unit_map DIR (the trace is DIR/gpu.<pid>.ecl). Exit 0 or 1.
 * unit_map --start DIR: starts ECL with ECL_GPU=on and stops it (CUPTI
 * and NVML as far as this machine has them).
 * unit_map --nvml DIR LIB: runs ECL's NVML sampler for 2.5 s on LIB, a
 * stand-in for libnvidia-ml (tests/gpu/fake_nvml.c). */
#include <config.h>

#include "ecl/ecl.h"
#include "ecl/gpu/gpu.h"

#include <cupti.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int fails;
#define CHECK(c, ...)                                                                      \
    do {                                                                                   \
        if (!(c)) {                                                                        \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                           \
            fprintf(stderr, __VA_ARGS__);                                                  \
            fprintf(stderr, "\n");                                                         \
            fails++;                                                                       \
        }                                                                                  \
    } while (0)

/* A fake GPU clock: ns = offset + ticks / rate * scale. */
static double fake_scale = 1.0;
static uint64_t fake_offset = 5000000000ull;
static uint64_t fake_ns(void)
{
    double tps = ecl_sys_clock_ticks_per_second();
    return fake_offset + (uint64_t)((double)ecl_sys_clock_now() / tps * 1e9 * fake_scale);
}

static void test_clock(void)
{
    double tps = ecl_sys_clock_ticks_per_second();
    /* one pair: offset right, nominal slope */
    ecl_gpu_clock c;
    memset(&c, 0, sizeof c);
    uint64_t src, ticks;
    uint64_t br = ecl_gpu_clock_pair(fake_ns, 9, &src, &ticks);
    CHECK(br < (uint64_t)(tps * 1e-4), "a clock pair takes %llu ticks", (unsigned long long)br);
    ecl_gpu_clock_add(&c, src, ticks, br);
    uint64_t s2 = src + 1000000;     /* 1 ms later */
    double want = (double)ticks + 1e-3 * tps;
    double got = (double)ecl_gpu_clock_ticks(&c, s2);
    CHECK(fabs(got - want) < 1e-6 * tps + 2, "1 ms after the pair: %.0f ticks, want %.0f", got,
          want);
    /* a GPU clock 100 ppm fast: the second pair, 200 ms later, fixes the slope */
    ecl_gpu_clock d;
    memset(&d, 0, sizeof d);
    ecl_gpu_clock_add(&d, 1000000000ull, 1000000, 10);
    uint64_t t200 = 1000000 + (uint64_t)(0.2 * tps);
    ecl_gpu_clock_add(&d, 1000000000ull + (uint64_t)(200e6 * 1.0001), t200, 10);
    double at = (double)ecl_gpu_clock_ticks(&d, 1000000000ull + (uint64_t)(400e6 * 1.0001));
    double expect = 1000000 + 0.4 * tps;
    CHECK(fabs(at - expect) < 1e-6 * tps, "slope from two pairs: %.0f, want %.0f", at, expect);
    /* a jump (slope 2x) is refused */
    ecl_gpu_clock e = d;
    ecl_gpu_clock_add(&e, 1000000000ull + 400000000ull, 1000000 + (uint64_t)(0.8 * tps), 10);
    CHECK(fabs(e.slope - d.slope) < 1e-12, "a clock jump changed the slope");
}

/* Synthetic activity: CUPTI times in ns of a clock whose pair is (gpu0, t0). */
static ecl_gpu_clock clk;
static uint64_t gpu0;

static void kernel(CUpti_ActivityKernel10 *k, const char *name, uint32_t stream, uint64_t start,
                   uint64_t dur, uint32_t corr)
{
    memset(k, 0, sizeof *k);
    k->kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    k->name = name;
    /* stream 14 is on a second device (its own context), so that a trace
     * has GPU streams of two devices (tests/views/otf2-gpu.sh) */
    k->deviceId = stream == 14 ? 1 : 0;
    k->contextId = stream == 14 ? 2 : 1;
    k->streamId = stream;
    k->start = gpu0 + start;
    k->end = gpu0 + start + dur;
    k->gridX = 4096;
    k->gridY = k->gridZ = 1;
    k->blockX = 256;
    k->blockY = k->blockZ = 1;
    k->staticSharedMemory = 0;
    k->dynamicSharedMemory = 1024;
    k->registersPerThread = 16;
    k->correlationId = corr;
}

static void map(const void *rec)
{
    pthread_mutex_lock(&ecl_gpu_lock);
    ecl_gpu_cupti_map(rec, &clk);
    pthread_mutex_unlock(&ecl_gpu_lock);
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--start") == 0) {
        /* GPU capture asked for in a process that may have no GPU: at most
         * one note, never a failure */
        setenv("ECL_DIR", argv[2], 1);
        setenv("ECL_PREFIX", "start", 1);
        setenv("ECL_GPU", "on", 1);
        return ecl_init() == ECL_OK && ecl_finalize() == ECL_OK ? 0 : 1;
    }
    if (argc == 4 && strcmp(argv[1], "--nvml") == 0) {
        /* ECL's NVML sampler on a stand-in libnvidia-ml (argv[3]) for 2.5 s:
         * its counters in DIR/nvml.*.ecl, its statistics on stderr */
        setenv("ECL_DIR", argv[2], 1);
        setenv("ECL_PREFIX", "nvml", 1);
        setenv("ECL_GPU", "off", 1);
        setenv("ECL_NVML_LIB", argv[3], 1);
        CHECK(ecl_init() == ECL_OK, "ecl_init");
        CHECK(ecl_gpu_nvml_start(100) == 0, "NVML sampler start");
        struct timespec ts = { 2, 500000000 };
        nanosleep(&ts, NULL);
        ecl_gpu_nvml_stop();
        ecl_gpu_print_stats();
        CHECK(ecl_finalize() == ECL_OK, "ecl_finalize");
        return fails != 0;
    }
    if (argc != 2) {
        fprintf(stderr, "usage: unit_map DIR | unit_map --start DIR | unit_map --nvml DIR LIB\n");
        return 2;
    }
    setenv("ECL_DIR", argv[1], 1);
    setenv("ECL_PREFIX", "gpu", 1);
    setenv("ECL_GPU", "off", 1);     /* no CUPTI here: the records are synthetic */
    CHECK(ecl_init() == ECL_OK, "ecl_init");
    test_clock();
    CHECK(ecl_gpu_define_types() == 0, "GPU record types");

    /* what the start and the launches define before any activity runs */
    static const char saxpy[] = "_Z5saxpyifPKfPf";
    static const char empty[] = "_Z5emptyv";
    ecl_gpu_cupti_define_names();
    ecl_gpu_cupti_kernel(saxpy);
    ecl_gpu_cupti_kernel(empty);

    /* the CUDA calls that launch the 20 kernels below (correlations 100 ..
     * 119), on this thread, before the kernels run */
    uint32_t launch = ecl_region_define("cudaLaunchKernel");
    for (uint32_t c = 100; c < 120; c++)
        ecl_gpu_cupti_api(launch, ecl_sys_clock_now(), c);

    /* the clock: CUPTI ns 1e12 is ECL's now */
    gpu0 = 1000000000000ull;
    memset(&clk, 0, sizeof clk);
    ecl_gpu_clock_add(&clk, gpu0, ecl_sys_clock_now(), 0);
    ecl_gpu_t0 = clk.ticks0;

    /* two streams of 10 kernels each: saxpy on 13, an empty kernel on 14
     * (device 1) */
    CUpti_ActivityKernel10 k;
    uint32_t corr = 100;
    for (int i = 0; i < 10; i++) {
        kernel(&k, saxpy, 13, 1000 + (uint64_t)i * 5000, 3000, corr++);
        map(&k);
        kernel(&k, empty, 14, 2000 + (uint64_t)i * 5000, 1500, corr++);
        map(&k);
    }
    /* copies both ways: 4 MiB HtoD twice, 4 MiB DtoH once, on stream 13 */
    CUpti_ActivityMemcpy6 m;
    for (int i = 0; i < 3; i++) {
        memset(&m, 0, sizeof m);
        m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
        m.copyKind = i < 2 ? CUPTI_ACTIVITY_MEMCPY_KIND_HTOD : CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
        m.bytes = 4u << 20;
        m.start = gpu0 + 60000 + (uint64_t)i * 400000;
        m.end = m.start + 350000;
        m.deviceId = 0;
        m.contextId = 1;
        m.streamId = 13;
        m.correlationId = 7;
        m.runtimeCorrelationId = corr++;
        map(&m);
    }
    CUpti_ActivityMemset4 s;
    memset(&s, 0, sizeof s);
    s.kind = CUPTI_ACTIVITY_KIND_MEMSET;
    s.bytes = 1024;
    s.value = 0;
    s.start = gpu0 + 1300000;
    s.end = s.start + 2000;
    s.contextId = 1;
    s.streamId = 13;
    s.correlationId = corr++;
    map(&s);
    CUpti_ActivitySynchronization2 y;
    memset(&y, 0, sizeof y);
    y.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
    y.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE;
    y.start = gpu0 + 1302000;
    y.end = y.start + 100;
    y.contextId = 1;
    y.streamId = UINT32_MAX;
    y.correlationId = corr++;
    map(&y);
    /* a launch call that begins 20 us after its kernel began (on a stream
     * of its own, so that its time is not raised): out of its window */
    kernel(&k, saxpy, 15, 100, 1000, 900000);
    map(&k);
    uint64_t late = clk.ticks0 + (uint64_t)(20e-6 * ecl_sys_clock_ticks_per_second());
    while (ecl_sys_clock_now() < late)
        ;
    ecl_gpu_cupti_api(launch, ecl_sys_clock_now(), 900000);
    CHECK(ecl_gpu_st.kernels == 21 && ecl_gpu_st.copies == 3 && ecl_gpu_st.memsets == 1 &&
              ecl_gpu_st.syncs == 1,
          "mapped %llu kernels, %llu copies", (unsigned long long)ecl_gpu_st.kernels,
          (unsigned long long)ecl_gpu_st.copies);

    /* stored size of a kernel record, and ECL's cost per record: 100000
     * kernels 1 us apart on a stream of their own */
    pthread_mutex_lock(&ecl_gpu_lock);
    ecl_buf_location *loc = ecl_gpu_location(ECL_GPU_LOC_STREAM, 0, 1, 99, 0);
    pthread_mutex_unlock(&ecl_gpu_lock);
    CHECK(loc != NULL, "location");
    const int N = 1000;
    ecl_buf_hot *prev = ecl_buf_location_enter(loc);
    const uint8_t *p0 = ecl_buf_self->pos;
    ecl_buf_location_leave(prev);
    for (int i = 0; i < N; i++) {
        kernel(&k, saxpy, 99, 2000000 + (uint64_t)i * 1000, 700, corr++);
        map(&k);
    }
    prev = ecl_buf_location_enter(loc);
    const uint8_t *p1 = ecl_buf_self->pos;
    ecl_buf_location_leave(prev);
    double per = (double)(p1 - p0) / N;
    printf("kernel_record_bytes=%.1f\n", per);
    CHECK(per > 4 && per <= 24, "a kernel record takes %.1f bytes (target <= 24)", per);
    const int M = 100000;
    CUpti_ActivityKernel10 *many = calloc((size_t)M, sizeof *many);
    for (int i = 0; i < M; i++)
        kernel(&many[i], saxpy, 99, 4000000 + (uint64_t)i * 1000, 700, corr++);
    double best = 1e30;
    for (int rep = 0; rep < 7; rep++) {
        uint64_t a = ecl_sys_clock_now();
        pthread_mutex_lock(&ecl_gpu_lock);
        for (int i = 0; i < M / 7; i++)
            ecl_gpu_cupti_map(&many[rep * (M / 7) + i], &clk);
        pthread_mutex_unlock(&ecl_gpu_lock);
        uint64_t b = ecl_sys_clock_now();
        double ns = (double)(b - a) / ecl_sys_clock_ticks_per_second() * 1e9 / (M / 7);
        if (ns < best)
            best = ns;
    }
    free(many);
    printf("map_ns_per_record=%.1f\n", best);

    /* in-kernel stamps: device 0, globaltimer 1e9 ns at ECL's now; 6 blocks
     * on 2 SMs, blocks 0-2 on SM 5 overlapping (3 lanes), 3-5 on SM 7 one
     * after the other (1 lane); 2 regions per block, nested */
    uint32_t r1 = ecl_region_define("block work"), r2 = ecl_region_define("inner part");
    uint64_t t = ecl_gpu_host_ticks();
    ecl_gpu_stamps_clock(0, 1000000000ull, t, t);
    /* then what is not recorded, counted: a region left open, one
     * backwards, unused entries, and two entries of blocks beyond the buffer
     * (5 of the grid's blocks were) */
    ecl_gpu_stamp st[6 * 2 + 6];
    memset(st, 0, sizeof st);
    for (int b = 0; b < 6; b++) {
        uint64_t base = 1000000000ull + 10000 + (b < 3 ? (uint64_t)b * 100 : (uint64_t)b * 5000);
        st[2 * b] = (ecl_gpu_stamp){ base, base + 4000, r1, b < 3 ? 5u : 7u, (uint32_t)b, 1 };
        st[2 * b + 1] =
            (ecl_gpu_stamp){ base + 1000, base + 2000, r2, b < 3 ? 5u : 7u, (uint32_t)b, 1 };
    }
    uint64_t g = 1000000000ull + 90000;
    st[12] = (ecl_gpu_stamp){ g, 0, r1, 5u, 6u, 0 };                   /* left open */
    st[14] = (ecl_gpu_stamp){ g + 10, g, r1, 5u, 8u, 1 };              /* backwards */
    st[16] = (ecl_gpu_stamp){ g, g + 9, r1, 3u | ECL_GPU_BEYOND, 5u, 1 };
    st[17] = (ecl_gpu_stamp){ g, 0, r2, 4u | ECL_GPU_BEYOND, 5u, 0 };
    size_t rec = ecl_gpu_stamps_record(0, st, 18);
    CHECK(rec == 12, "recorded %zu stamps, want 12", rec);
    CHECK(ecl_gpu_st.stamps_open == 1 && ecl_gpu_st.stamps_backwards == 1 &&
              ecl_gpu_st.stamps_beyond == 5,
          "not recorded: %llu open, %llu backwards, %llu blocks beyond; want 1, 1, 5",
          (unsigned long long)ecl_gpu_st.stamps_open,
          (unsigned long long)ecl_gpu_st.stamps_backwards,
          (unsigned long long)ecl_gpu_st.stamps_beyond);
    CHECK(ecl_finalize() == ECL_OK, "ecl_finalize");
    return fails ? 1 : 0;
}
