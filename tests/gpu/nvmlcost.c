/* nvmlcost.c -- why ECL's NVML sampler wakes once a second (doc/gpu.md,
 * "Metrics"; issue 23's target: <= 0.1 % of one core): what NVML's queries
 * cost, how often the values they return change, and what waking 100 times
 * a second costs by itself. Without ECL: it loads libnvidia-ml itself and
 * runs each way in a thread of its own for SECONDS (default 1), ROUNDS
 * times (default 7, at least 7), the ways interleaved, their order rotating.
 *
 *   nvmlcost [ROUNDS [SECONDS]]
 *
 * Ways ("modes"):
 *   cond-100: a wake-up every 10 ms (pthread_cond_timedwait, absolute);
 *     power and SM clock read at every wake-up, temperature, memory clock,
 *     utilisation and memory used at every tenth (ECL's sampler before);
 *   cond-wait / sleep-wait / timerfd-wait: the same wake-ups through
 *     pthread_cond_timedwait, clock_nanosleep (TIMER_ABSTIME) or a periodic
 *     timerfd, no query (the cost of waking alone).
 * Per run it prints the thread's CPU time in % of one core (after a first
 * round that pays NVML's one-time costs), the wake-ups, the samples per
 * second of each metric and how often the power and SM clock values read
 * changed; then per mode min and median over the rounds. First: the cost
 * of each query (min / median of 200 calls, us; nvmlDeviceGetSamples with
 * the driver buffer's value type and capacity) and how often each directly
 * read value changes (read every ms for 2 s): a value read faster than the
 * driver updates it repeats. Exit 77 without NVML or GPU. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

/* NVML's documented API (nvml.h), as ecl/gpu/nvml.c declares it */
typedef int nvret;
typedef struct nvmlDevice_st *nvdev;
typedef struct {
    unsigned int gpu, memory;
} nvutil;
typedef struct {
    unsigned long long total, free, used;
} nvmem;
typedef union {
    double d;
    unsigned int ui;
    unsigned long ul;
    unsigned long long ull;
    signed long long sll;
    signed int si;
    unsigned short us;
} nvvalue;
typedef struct {
    unsigned long long ts;              /* CPU time of the sample, us since the epoch */
    nvvalue v;
} nvsample;
typedef struct {
    unsigned int field, scope;
    long long ts, latency_us;
    int type;
    nvret ret;
    nvvalue v;
} nvfield;
enum { NV_NOT_FOUND = 6 };
enum { FI_POWER_AVERAGE = 185, FI_POWER_INSTANT = 186 };
enum { S_POWER = 0, S_GPU_UTIL = 1, S_MEM_UTIL = 2, S_SM_CLK = 5, S_MEM_CLK = 6 };

static struct {
    nvret (*init)(void);
    nvret (*count)(unsigned int *);
    nvret (*handle)(unsigned int, nvdev *);
    nvret (*power)(nvdev, unsigned int *);
    nvret (*temperature)(nvdev, int, unsigned int *);
    nvret (*clock)(nvdev, int, unsigned int *);
    nvret (*utilization)(nvdev, nvutil *);
    nvret (*memory)(nvdev, nvmem *);
    nvret (*samples)(nvdev, int, unsigned long long, int *, unsigned int *, nvsample *);
    nvret (*fields)(nvdev, int, nvfield *);     /* may be NULL (older NVML) */
} nv;

#define MAXDEV 16
static nvdev dev[MAXDEV];
static unsigned ndev;

static uint64_t now_ns(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* ---- the ways of sampling ---- */
enum { W_COND, W_SLEEP, W_TIMERFD };
typedef struct mode {
    const char *name;
    int wait;                           /* W_* */
    double hz;
    int query;                          /* 0 none, 1 direct, 2 buffers */
} mode;
static const mode modes[] = {
    { "cond-100", W_COND, 100, 1 }, { "cond-wait", W_COND, 100, 0 },
    { "sleep-wait", W_SLEEP, 100, 0 }, { "timerfd-wait", W_TIMERFD, 100, 0 },
};
#define NMODES (int)(sizeof modes / sizeof modes[0])
enum { M_POWER, M_SMCLK, M_MEMCLK, M_UTIL, M_MEMUTIL, M_TEMP, M_MEMUSED, NM };
static const char *mnames[NM] = { "power", "smclk", "memclk", "util", "memutil", "temp",
                                  "memused" };

typedef struct run {
    const mode *m;
    double seconds;
    /* results */
    double cpu_percent, wall_s;
    unsigned long wakes, got[NM];
    unsigned long changes[2];           /* direct: power, SM clock values that changed */
    unsigned int prev[MAXDEV][2];
    /* state */
    int stop;
    pthread_mutex_t lock;
    pthread_cond_t cond;
} run;

static void query_direct(run *r, unsigned tick)
{
    for (unsigned d = 0; d < ndev; d++) {
        unsigned int x;
        if (nv.power(dev[d], &x) == 0) {
            r->got[M_POWER]++;
            r->changes[0] += tick > 0 && x != r->prev[d][0];
            r->prev[d][0] = x;
        }
        if (nv.clock(dev[d], 1, &x) == 0) {
            r->got[M_SMCLK]++;
            r->changes[1] += tick > 0 && x != r->prev[d][1];
            r->prev[d][1] = x;
        }
        if (tick % 10 != 0)
            continue;
        r->got[M_TEMP] += nv.temperature(dev[d], 0, &x) == 0;
        r->got[M_MEMCLK] += nv.clock(dev[d], 2, &x) == 0;
        nvutil u;
        if (nv.utilization(dev[d], &u) == 0) {
            r->got[M_UTIL]++;
            r->got[M_MEMUTIL]++;
        }
        nvmem m;
        r->got[M_MEMUSED] += nv.memory(dev[d], &m) == 0;
    }
}

static void *sampler(void *arg)
{
    run *r = arg;
    const mode *m = r->m;
    uint64_t period = (uint64_t)(1e9 / m->hz);
    int tfd = -1;
    if (m->wait == W_TIMERFD) {
        tfd = timerfd_create(CLOCK_MONOTONIC, 0);
        struct itimerspec it = { { 0, (long)period }, { 0, (long)period } };
        timerfd_settime(tfd, 0, &it, NULL);
    }
    /* first round: NVML's one-time costs, not counted */
    if (m->query == 1)
        query_direct(r, 0);
    memset(r->got, 0, sizeof r->got);
    memset(r->changes, 0, sizeof r->changes);
    uint64_t cpu0 = now_ns(CLOCK_THREAD_CPUTIME_ID), wall0 = now_ns(CLOCK_MONOTONIC);
    uint64_t end = wall0 + (uint64_t)(r->seconds * 1e9);
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    for (unsigned tick = 1;; tick++) {
        uint64_t ns = (uint64_t)next.tv_nsec + period;
        next.tv_sec += (time_t)(ns / 1000000000ull);
        next.tv_nsec = (long)(ns % 1000000000ull);
        if (m->wait == W_COND) {
            pthread_mutex_lock(&r->lock);
            while (!r->stop && pthread_cond_timedwait(&r->cond, &r->lock, &next) != ETIMEDOUT)
                ;
            pthread_mutex_unlock(&r->lock);
        } else if (m->wait == W_SLEEP) {
            while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
                ;
        } else {
            uint64_t expirations;
            if (read(tfd, &expirations, sizeof expirations) < 0)
                break;
        }
        r->wakes++;
        if (m->query == 1)
            query_direct(r, tick);
        if (now_ns(CLOCK_MONOTONIC) >= end)
            break;
    }
    uint64_t cpu = now_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0, wall = now_ns(CLOCK_MONOTONIC) - wall0;
    r->cpu_percent = 100.0 * (double)cpu / (double)wall;
    r->wall_s = wall / 1e9;
    if (tfd >= 0)
        close(tfd);
    return NULL;
}

static void one_run(run *r)
{
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&r->cond, &ca);
    pthread_condattr_destroy(&ca);
    pthread_mutex_init(&r->lock, NULL);
    pthread_t t;
    if (pthread_create(&t, NULL, sampler, r) != 0) {
        perror("nvmlcost: pthread_create");
        exit(1);
    }
    pthread_join(t, NULL);
    pthread_cond_destroy(&r->cond);
    pthread_mutex_destroy(&r->lock);
}

/* How often directly read values change: read every ms for 2 s. */
static void change_rates(void)
{
    unsigned int prev[4] = { 0 };
    unsigned long changes[4] = { 0 }, ok[4] = { 0 };
    nvfield f[2];
    uint64_t t0 = now_ns(CLOCK_MONOTONIC);
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    for (int i = 0; now_ns(CLOCK_MONOTONIC) - t0 < 2000000000ull; i++) {
        unsigned int v[4];
        int got[4] = { 0 };
        got[0] = nv.power(dev[0], &v[0]) == 0;
        got[1] = nv.clock(dev[0], 1, &v[1]) == 0;
        if (nv.fields != NULL) {
            memset(f, 0, sizeof f);
            f[0].field = FI_POWER_INSTANT;
            f[1].field = FI_POWER_AVERAGE;
            if (nv.fields(dev[0], 2, f) == 0)
                for (int k = 0; k < 2; k++)
                    if (f[k].ret == 0) {
                        got[2 + k] = 1;
                        v[2 + k] = f[k].type == 1 ? f[k].v.ui : (unsigned int)f[k].v.ull;
                    }
        }
        for (int k = 0; k < 4; k++) {
            if (!got[k])
                continue;
            changes[k] += ok[k] > 0 && v[k] != prev[k];
            ok[k]++;
            prev[k] = v[k];
        }
        long ns = next.tv_nsec + 1000000;
        next.tv_sec += ns / 1000000000;
        next.tv_nsec = ns % 1000000000;
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
    }
    double s = (now_ns(CLOCK_MONOTONIC) - t0) / 1e9;
    printf("query changes_per_s: power_usage=%.1f sm_clock=%.1f field_power_instant=%.1f "
           "field_power_average=%.1f (reads %lu %lu %lu %lu in %.2f s)\n",
           changes[0] / s, changes[1] / s, changes[2] / s, changes[3] / s, ok[0], ok[1], ok[2],
           ok[3], s);
}

/* ---- cost of one query ---- */
static void cost(const char *name, int which)
{
    double us[200];
    nvsample *buf = NULL;
    unsigned cap = 0;
    int vt = -1;
    if (which >= 10) {
        nv.samples(dev[0], which - 10, 0, &vt, &cap, NULL);
        buf = calloc(cap ? cap : 1, sizeof *buf);
    }
    int fails = 0;
    for (int i = 0; i < 201; i++) {
        unsigned int x;
        nvutil u;
        nvmem m;
        uint64_t t0 = now_ns(CLOCK_MONOTONIC);
        nvret e = 0;
        switch (which) {
        case 0: e = nv.power(dev[0], &x); break;
        case 1: e = nv.clock(dev[0], 1, &x); break;
        case 2: e = nv.clock(dev[0], 2, &x); break;
        case 3: e = nv.temperature(dev[0], 0, &x); break;
        case 4: e = nv.utilization(dev[0], &u); break;
        case 5: e = nv.memory(dev[0], &m); break;
        case 7:
        case 8: {
            nvfield f;
            memset(&f, 0, sizeof f);
            f.field = which == 7 ? FI_POWER_INSTANT : FI_POWER_AVERAGE;
            e = nv.fields != NULL ? nv.fields(dev[0], 1, &f) : -1;
            if (e == 0)
                e = f.ret;
            break;
        }
        default: {
            unsigned n = cap;
            /* samples of the last 100 ms: what one wake-up at 10 Hz reads */
            e = nv.samples(dev[0], which - 10, now_ns(CLOCK_REALTIME) / 1000 - 100000, &vt, &n,
                           buf);
            if (e == NV_NOT_FOUND)
                e = 0;
        }
        }
        uint64_t t1 = now_ns(CLOCK_MONOTONIC);
        fails += e != 0;
        if (i > 0)                      /* the first call pays one-time costs */
            us[i - 1] = (t1 - t0) / 1e3;
    }
    qsort(us, 200, sizeof us[0], cmp_double);
    printf("query %s: min_us=%.2f median_us=%.2f n=200 errors=%d", name, us[0], us[100], fails);
    if (which >= 10)
        printf(" buffer_capacity=%u value_type=%d", cap, vt);
    printf("\n");
    free(buf);
}

#define LOAD(f, s)                                                                            \
    do {                                                                                      \
        *(void **)&nv.f = dlsym(lib, s);                                                      \
        if (nv.f == NULL) {                                                                   \
            printf("SKIP: nvmlcost: libnvidia-ml has no %s\n", s);                            \
            return 77;                                                                        \
        }                                                                                     \
    } while (0)

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 7;
    double seconds = argc > 2 ? atof(argv[2]) : 1.0;
    if (rounds < 7)
        rounds = 7;
    if (rounds > 64)
        rounds = 64;
    if (!(seconds > 0.1))
        seconds = 0.1;
    void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        printf("SKIP: nvmlcost: libnvidia-ml.so.1 not found (%s)\n", dlerror());
        return 77;
    }
    LOAD(init, "nvmlInit_v2");
    LOAD(count, "nvmlDeviceGetCount_v2");
    LOAD(handle, "nvmlDeviceGetHandleByIndex_v2");
    LOAD(power, "nvmlDeviceGetPowerUsage");
    LOAD(temperature, "nvmlDeviceGetTemperature");
    LOAD(clock, "nvmlDeviceGetClockInfo");
    LOAD(utilization, "nvmlDeviceGetUtilizationRates");
    LOAD(memory, "nvmlDeviceGetMemoryInfo");
    LOAD(samples, "nvmlDeviceGetSamples");
    *(void **)&nv.fields = dlsym(lib, "nvmlDeviceGetFieldValues");
    unsigned n = 0;
    if (nv.init() != 0 || nv.count(&n) != 0 || n == 0) {
        printf("SKIP: nvmlcost: NVML finds no GPU\n");
        return 77;
    }
    for (unsigned i = 0; i < n && ndev < MAXDEV; i++)
        if (nv.handle(i, &dev[ndev]) == 0)
            ndev++;
    printf("devices=%u rounds=%d seconds=%.2f\n", ndev, rounds, seconds);
    cost("power", 0);
    cost("sm_clock", 1);
    cost("mem_clock", 2);
    cost("temperature", 3);
    cost("utilization", 4);
    cost("memory_info", 5);
    cost("field_power_instant", 7);
    cost("field_power_average", 8);
    cost("samples_power", 10 + S_POWER);
    cost("samples_sm_clock", 10 + S_SM_CLK);
    cost("samples_mem_clock", 10 + S_MEM_CLK);
    cost("samples_gpu_util", 10 + S_GPU_UTIL);
    cost("samples_mem_util", 10 + S_MEM_UTIL);
    change_rates();

    double pct[NMODES][64];
    double rate[NMODES][NM][64];
    run *r = calloc(1, sizeof *r);
    for (int k = 0; k < rounds; k++) {
        for (int j = 0; j < NMODES; j++) {
            int mi = (j + k) % NMODES;
            memset(r, 0, sizeof *r);
            r->m = &modes[mi];
            r->seconds = seconds;
            one_run(r);
            pct[mi][k] = r->cpu_percent;
            printf("run mode=%s round=%d cpu_percent=%.4f wakes=%lu wall_s=%.3f "
                   "per_wake_us=%.2f",
                   r->m->name, k + 1, r->cpu_percent, r->wakes, r->wall_s,
                   r->wakes ? r->cpu_percent / 100.0 * r->wall_s * 1e6 / r->wakes : 0.0);
            for (int q = 0; q < NM; q++) {
                rate[mi][q][k] = r->got[q] / r->wall_s / ndev;
                printf(" %s_per_s=%.1f", mnames[q], rate[mi][q][k]);
            }
            if (r->m->query == 1)
                printf(" power_changes_per_s=%.1f smclk_changes_per_s=%.1f",
                       r->changes[0] / r->wall_s / ndev, r->changes[1] / r->wall_s / ndev);
            printf("\n");
            fflush(stdout);
        }
    }
    for (int mi = 0; mi < NMODES; mi++) {
        qsort(pct[mi], rounds, sizeof(double), cmp_double);
        printf("summary mode=%s cpu_percent_min=%.4f cpu_percent_median=%.4f n=%d", modes[mi].name,
               pct[mi][0], pct[mi][rounds / 2], rounds);
        for (int q = 0; q < NM; q++) {
            qsort(rate[mi][q], rounds, sizeof(double), cmp_double);
            printf(" %s_per_s=%.1f", mnames[q], rate[mi][q][rounds / 2]);
        }
        printf("\n");
    }
    free(r);
    return 0;
}
