/* nvml.c -- ECL GPU metrics (doc/gpu.md, "Metrics"; seed 000): a background
 * thread samples every GPU through NVML -- power, temperature, SM and memory
 * clocks, utilisation, memory used -- and records them as ECL counters with
 * units on its own stream ("ecl-gpu-metrics"). libnvidia-ml is loaded with
 * dlopen; its few entry points are declared here from NVML's documented
 * API (nvml.h is not needed to build).
 *
 * The thread wakes once a second (every 1/ECL_GPU_METRICS_HZ s below 1 Hz):
 * on the lent VMs each wake-up alone cost 19-45 us of CPU, so 100 a second
 * were 0.2-0.45 % of a core, above the 0.1 % aimed at. Power comes from the
 * driver's own sample buffer (nvmlDeviceGetSamples: every sample the driver
 * took, 50 a second on H100/H200, with its time), at most HZ a second; the
 * other metrics, which NVML updates slowly or which rarely change, are read
 * at each wake-up. Samples are recorded at their own times, in order: those
 * of the last HOLD_NS are kept for the next round, since the driver adds a
 * sample some milliseconds after its time. */
#include <config.h>

#include "ecl/gpu/gpu.h"
#include "ecl/ecl.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- NVML's API, as documented (nvml.h) ---- */
typedef int nvmlReturn_t;               /* NVML_SUCCESS = 0 */
typedef struct nvmlDevice_st *nvmlDevice_t;
typedef struct {
    unsigned int gpu;                   /* percent of time a kernel ran, last sample period */
    unsigned int memory;                /* percent of time device memory was read or written */
} nvmlUtilization_t;
typedef struct {
    unsigned long long total, free, used;   /* bytes */
} nvmlMemory_t;
typedef union {
    double dVal;
    unsigned int uiVal;
    unsigned long ulVal;
    unsigned long long ullVal;
    signed long long sllVal;
    signed int siVal;
    unsigned short usVal;
} nvmlValue_t;
typedef struct {
    unsigned long long timeStamp;       /* CPU time of the sample, us since the epoch */
    nvmlValue_t sampleValue;
} nvmlSample_t;
enum { NVML_SUCCESS = 0, NVML_ERROR_NOT_FOUND = 6 };
enum { NVML_TOTAL_POWER_SAMPLES = 0 };
enum { NVML_VALUE_TYPE_DOUBLE = 0, NVML_VALUE_TYPE_UNSIGNED_INT = 1,
       NVML_VALUE_TYPE_UNSIGNED_LONG = 2, NVML_VALUE_TYPE_UNSIGNED_LONG_LONG = 3,
       NVML_VALUE_TYPE_SIGNED_LONG_LONG = 4, NVML_VALUE_TYPE_SIGNED_INT = 5,
       NVML_VALUE_TYPE_UNSIGNED_SHORT = 6 };
enum { NVML_TEMPERATURE_GPU = 0 };
enum { NVML_CLOCK_GRAPHICS = 0, NVML_CLOCK_SM = 1, NVML_CLOCK_MEM = 2 };

static struct {
    nvmlReturn_t (*init)(void);
    nvmlReturn_t (*shutdown)(void);
    const char *(*error_string)(nvmlReturn_t);
    nvmlReturn_t (*count)(unsigned int *);
    nvmlReturn_t (*handle)(unsigned int, nvmlDevice_t *);
    nvmlReturn_t (*power)(nvmlDevice_t, unsigned int *);          /* mW */
    nvmlReturn_t (*temperature)(nvmlDevice_t, int, unsigned int *); /* C */
    nvmlReturn_t (*clock)(nvmlDevice_t, int, unsigned int *);     /* MHz */
    nvmlReturn_t (*utilization)(nvmlDevice_t, nvmlUtilization_t *);
    nvmlReturn_t (*memory)(nvmlDevice_t, nvmlMemory_t *);
    nvmlReturn_t (*samples)(nvmlDevice_t, int, unsigned long long, int *, unsigned int *,
                            nvmlSample_t *);   /* NULL: an NVML without it */
} nv;

#define MAX_DEV 16
enum { C_POWER, C_TEMP, C_SMCLK, C_MEMCLK, C_UTIL, C_MEMUTIL, C_MEMUSED, NC };

typedef struct dev {
    nvmlDevice_t h;
    uint32_t counter[NC];               /* 0: not readable on this device */
    int power_buffered;                 /* power from the driver's sample buffer */
    unsigned long long power_seen;      /* its newest sample read (us) */
    uint64_t power_last;                /* the newest recorded (us) */
} dev;

/* A sample waiting to be recorded: at its time (CLOCK_REALTIME, us). */
typedef struct pending {
    uint64_t us;
    uint32_t counter;
    int is_float;
    double f;
    int64_t i;
} pending;

#define HOLD_US 250000u                 /* samples younger than this wait a round */

static void *lib;
static dev devs[MAX_DEV];
static unsigned ndev;
static pthread_t thread;
static int running;
static int stop_flag;
static pthread_mutex_t stop_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t stop_cond;
static double period_ns;               /* between wake-ups */
static double gap_us;                  /* between two recorded samples of a metric: 1/HZ */
static ecl_gpu_clock wall_clock;       /* CLOCK_REALTIME ns -> ECL ticks */
static pending *pend;
static size_t npend, cappend;
static nvmlSample_t *sbuf;
static unsigned scap;

static const char *nv_why(nvmlReturn_t r)
{
    const char *s = nv.error_string != NULL ? nv.error_string(r) : NULL;
    return s != NULL ? s : "unknown NVML error";
}

static uint64_t mono_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t realtime_ns(void)
{
    return mono_ns(CLOCK_REALTIME);
}

static void add(uint64_t us, uint32_t counter, int is_float, double f, int64_t i)
{
    if (npend == cappend) {
        size_t n = cappend ? 2 * cappend : 256;
        pending *p = realloc(pend, n * sizeof *p);
        if (p == NULL)
            return;                     /* out of memory: the sample is not recorded */
        pend = p;
        cappend = n;
    }
    pend[npend++] = (pending){ us, counter, is_float, f, i };
}

static int by_time(const void *a, const void *b)
{
    const pending *x = a, *y = b;
    return x->us < y->us ? -1 : x->us > y->us;
}

/* Records the pending samples up to time `upto` (us), in time order, on the
 * thread's stream; keeps the younger ones. */
static void record_upto(uint64_t upto)
{
    qsort(pend, npend, sizeof *pend, by_time);
    size_t k = 0;
    for (; k < npend && pend[k].us <= upto; k++) {
        const pending *p = &pend[k];
        if (!ecl_buf_is_active())       /* recording paused or ended */
            continue;
        ecl_buf_hot *t;
        uint64_t now;
        uint64_t at = ecl_gpu_clock_ticks(&wall_clock, p->us * 1000);
        uint8_t *q = ecl_buf_begin_at(p->is_float ? ECL_REC_COUNTER_FLOAT : ECL_REC_COUNTER_INT,
                                      ECL_BUF_SMALL, at, &t, &now);
        if (q == NULL)
            continue;
        q = ecl_buf_put_uleb(q, p->counter);
        q = p->is_float ? ecl_buf_put_f64(q, p->f) : ecl_buf_put_sleb(q, p->i);
        ecl_buf_commit(t, q, now);
        ecl_gpu_st.samples_recorded++;
    }
    memmove(pend, pend + k, (npend - k) * sizeof *pend);
    npend -= k;
}

static double value_of(int type, nvmlValue_t v)
{
    switch (type) {
    case NVML_VALUE_TYPE_DOUBLE: return v.dVal;
    case NVML_VALUE_TYPE_UNSIGNED_LONG: return (double)v.ulVal;
    case NVML_VALUE_TYPE_UNSIGNED_LONG_LONG: return (double)v.ullVal;
    case NVML_VALUE_TYPE_SIGNED_LONG_LONG: return (double)v.sllVal;
    case NVML_VALUE_TYPE_SIGNED_INT: return v.siVal;
    case NVML_VALUE_TYPE_UNSIGNED_SHORT: return v.usVal;
    default: return v.uiVal;
    }
}

/* The driver's power samples since the last read, at most one per gap_us. */
static void read_power_buffer(dev *v)
{
    int type = NVML_VALUE_TYPE_UNSIGNED_INT;
    unsigned n = scap;
    nvmlReturn_t r = nv.samples(v->h, NVML_TOTAL_POWER_SAMPLES, v->power_seen, &type, &n, sbuf);
    if (r != NVML_SUCCESS)
        return;                         /* NOT_FOUND: none new */
    for (unsigned k = 0; k < n && k < scap; k++) {
        unsigned long long ts = sbuf[k].timeStamp;
        if (ts <= v->power_seen)
            continue;
        v->power_seen = ts;
        if (v->power_last != 0 && ts < v->power_last + gap_us)
            continue;
        v->power_last = ts;
        add(ts, v->counter[C_POWER], 1, value_of(type, sbuf[k].sampleValue) / 1000.0, 0);
    }
}

/* One round: every metric of every device, the samples older than
 * HOLD_US recorded (all of them when last). */
static void sample(int last)
{
    uint64_t src, ticks;
    uint64_t bracket = ecl_gpu_clock_pair(realtime_ns, 3, &src, &ticks);
    ecl_gpu_clock_add(&wall_clock, src, ticks, bracket);
    uint64_t us = src / 1000;
    for (unsigned d = 0; d < ndev; d++) {
        dev *v = &devs[d];
        unsigned int x;
        if (v->counter[C_POWER] && v->power_buffered)
            read_power_buffer(v);
        else if (v->counter[C_POWER] && nv.power(v->h, &x) == NVML_SUCCESS)
            add(us, v->counter[C_POWER], 1, x / 1000.0, 0);
        if (v->counter[C_SMCLK] && nv.clock(v->h, NVML_CLOCK_SM, &x) == NVML_SUCCESS)
            add(us, v->counter[C_SMCLK], 0, 0, x);
        if (v->counter[C_TEMP] && nv.temperature(v->h, NVML_TEMPERATURE_GPU, &x) == NVML_SUCCESS)
            add(us, v->counter[C_TEMP], 0, 0, x);
        if (v->counter[C_MEMCLK] && nv.clock(v->h, NVML_CLOCK_MEM, &x) == NVML_SUCCESS)
            add(us, v->counter[C_MEMCLK], 0, 0, x);
        nvmlUtilization_t u;
        if (v->counter[C_UTIL] && nv.utilization(v->h, &u) == NVML_SUCCESS) {
            add(us, v->counter[C_UTIL], 0, 0, u.gpu);
            add(us, v->counter[C_MEMUTIL], 0, 0, u.memory);
        }
        nvmlMemory_t m;
        if (v->counter[C_MEMUSED] && nv.memory(v->h, &m) == NVML_SUCCESS)
            add(us, v->counter[C_MEMUSED], 0, 0, (int64_t)m.used);
    }
    record_upto(last ? UINT64_MAX : us - HOLD_US);
}

static void *sampler(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "ecl-gpu-metrics");
    /* the stream starts now: samples are recorded later, at their own
     * times, which must not precede its start */
    ecl_buf_stream_self();
    for (unsigned d = 0; d < ndev; d++)
        devs[d].power_seen = realtime_ns() / 1000;   /* the driver's samples from here on */
    /* The first round pays NVML's one-time costs (each query's first call
     * took 0.4-3.5 ms on an H100); the sampler's cost is counted from its
     * end to the end of the last periodic round (the final round at stop,
     * like the first, is paid once per run). */
    uint64_t cpu0 = mono_ns(CLOCK_THREAD_CPUTIME_ID), wall0;
    sample(0);
    uint64_t c = mono_ns(CLOCK_THREAD_CPUTIME_ID);
    ecl_gpu_st.sampler_first_ns = c - cpu0;
    cpu0 = c;
    wall0 = mono_ns(CLOCK_MONOTONIC);
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    pthread_mutex_lock(&stop_lock);
    for (;;) {
        uint64_t ns = (uint64_t)next.tv_nsec + (uint64_t)period_ns;
        next.tv_sec += (time_t)(ns / 1000000000ull);
        next.tv_nsec = (long)(ns % 1000000000ull);
        while (!stop_flag && pthread_cond_timedwait(&stop_cond, &stop_lock, &next) != ETIMEDOUT)
            ;
        if (stop_flag)
            break;
        pthread_mutex_unlock(&stop_lock);
        sample(0);
        ecl_gpu_st.samples++;
        ecl_gpu_st.sampler_cpu_ns = mono_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0;
        ecl_gpu_st.sampler_wall_ns = mono_ns(CLOCK_MONOTONIC) - wall0;
        pthread_mutex_lock(&stop_lock);
    }
    pthread_mutex_unlock(&stop_lock);
    /* a last round of every metric, and what was held back */
    sample(1);
    return NULL;
}

#define NLOAD(field, sym)                                                                    \
    do {                                                                                     \
        *(void **)&nv.field = dlsym(lib, sym);                                               \
        if (nv.field == NULL) {                                                              \
            fprintf(stderr, "ecl: libnvidia-ml has no %s; GPU metrics not recorded\n", sym); \
            goto fail;                                                                       \
        }                                                                                    \
    } while (0)

int ecl_gpu_nvml_start(double hz)
{
    const char *env = getenv("ECL_NVML_LIB");
    lib = dlopen(env != NULL && *env ? env : "libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        fprintf(stderr, "ecl: NVML (libnvidia-ml.so.1) not found: GPU metrics not recorded\n");
        return -1;
    }
    NLOAD(init, "nvmlInit_v2");
    NLOAD(shutdown, "nvmlShutdown");
    NLOAD(error_string, "nvmlErrorString");
    NLOAD(count, "nvmlDeviceGetCount_v2");
    NLOAD(handle, "nvmlDeviceGetHandleByIndex_v2");
    NLOAD(power, "nvmlDeviceGetPowerUsage");
    NLOAD(temperature, "nvmlDeviceGetTemperature");
    NLOAD(clock, "nvmlDeviceGetClockInfo");
    NLOAD(utilization, "nvmlDeviceGetUtilizationRates");
    NLOAD(memory, "nvmlDeviceGetMemoryInfo");
    *(void **)&nv.samples = dlsym(lib, "nvmlDeviceGetSamples");
    nvmlReturn_t r = nv.init();
    if (r != NVML_SUCCESS) {
        fprintf(stderr, "ecl: NVML cannot start (%s): GPU metrics not recorded\n", nv_why(r));
        goto fail;
    }
    unsigned n = 0;
    r = nv.count(&n);
    if (r != NVML_SUCCESS || n == 0) {
        fprintf(stderr, "ecl: NVML finds no GPU (%s): GPU metrics not recorded\n",
                r != NVML_SUCCESS ? nv_why(r) : "0 devices");
        nv.shutdown();
        goto fail;
    }
    ndev = 0;
    for (unsigned i = 0; i < n && ndev < MAX_DEV; i++) {
        dev *v = &devs[ndev];
        if (nv.handle(i, &v->h) != NVML_SUCCESS)
            continue;
        /* a metric the device cannot give (NOT_SUPPORTED) is left out */
        static const struct {
            const char *name, *unit;
            int kind;
        } defs[NC] = {
            { "power", "W", 1 }, { "temperature", "C", 0 }, { "sm clock", "MHz", 0 },
            { "memory clock", "MHz", 0 }, { "utilization", "%", 0 },
            { "memory utilization", "%", 0 }, { "memory used", "bytes", 0 },
        };
        unsigned int x;
        nvmlUtilization_t u;
        nvmlMemory_t m;
        int ok[NC] = {
            nv.power(v->h, &x) == NVML_SUCCESS,
            nv.temperature(v->h, NVML_TEMPERATURE_GPU, &x) == NVML_SUCCESS,
            nv.clock(v->h, NVML_CLOCK_SM, &x) == NVML_SUCCESS,
            nv.clock(v->h, NVML_CLOCK_MEM, &x) == NVML_SUCCESS,
            nv.utilization(v->h, &u) == NVML_SUCCESS, 0,
            nv.memory(v->h, &m) == NVML_SUCCESS,
        };
        ok[C_MEMUTIL] = ok[C_UTIL];
        for (int c = 0; c < NC; c++) {
            char name[64];
            snprintf(name, sizeof name, "gpu%u %s", i, defs[c].name);
            v->counter[c] = ok[c] ? ecl_trace_counter(name, defs[c].unit, defs[c].kind) : 0;
        }
        /* the driver's power buffer, if it has one: its capacity, and its
         * samples from now on */
        unsigned cap = 0;
        int type;
        v->power_buffered = 0;
        if (nv.samples != NULL &&
            nv.samples(v->h, NVML_TOTAL_POWER_SAMPLES, 0, &type, &cap, NULL) == NVML_SUCCESS &&
            cap > 0) {
            v->power_buffered = 1;
            if (cap > scap)
                scap = cap;
        }
        v->power_last = 0;
        ndev++;
    }
    if (scap > 0) {
        sbuf = calloc(scap, sizeof *sbuf);
        if (sbuf == NULL) {             /* then power is read at each wake-up */
            scap = 0;
            for (unsigned d = 0; d < ndev; d++)
                devs[d].power_buffered = 0;
        }
    }
    period_ns = hz >= 1 ? 1e9 : 1e9 / hz;
    gap_us = 1e6 / hz;
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&stop_cond, &ca);
    pthread_condattr_destroy(&ca);
    stop_flag = 0;
    ecl_buf_in_tool++;               /* ECL's own thread: not traced as the program's */
    int e = pthread_create(&thread, NULL, sampler, NULL);
    ecl_buf_in_tool--;
    if (e != 0) {
        fprintf(stderr, "ecl: cannot start the GPU metrics thread (%s): GPU metrics not "
                "recorded\n", strerror(e));
        nv.shutdown();
        goto fail;
    }
    running = 1;
    return 0;
fail:
    free(sbuf);
    sbuf = NULL;
    scap = 0;
    dlclose(lib);
    lib = NULL;
    memset(&nv, 0, sizeof nv);
    return -1;
}

void ecl_gpu_nvml_stop(void)
{
    if (!running)
        return;
    pthread_mutex_lock(&stop_lock);
    stop_flag = 1;
    pthread_cond_signal(&stop_cond);
    pthread_mutex_unlock(&stop_lock);
    ecl_buf_in_tool++;
    pthread_join(thread, NULL);
    ecl_buf_in_tool--;
    running = 0;
    nv.shutdown();
    free(pend);
    pend = NULL;
    npend = cappend = 0;
    free(sbuf);
    sbuf = NULL;
    scap = 0;
}
