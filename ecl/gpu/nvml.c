/* nvml.c -- ECL GPU metrics (doc/gpu.md, "Metrics"; seed 000): a background
 * thread samples every GPU through NVML -- power, temperature, SM and memory
 * clocks, utilisation, memory used -- and records them as ECL counters with
 * units on its own stream ("ecl-gpu-metrics"). libnvidia-ml is loaded with
 * dlopen; its few entry points are declared here from NVML's documented
 * API (nvml.h is not needed to build). Power and SM clock are read at every
 * tick of ECL_GPU_METRICS_HZ; temperature, memory clock, utilisation and
 * memory used, which NVML itself updates more slowly, at every tenth. */
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
enum { NVML_SUCCESS = 0 };
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
} nv;

#define MAX_DEV 16
enum { C_POWER, C_TEMP, C_SMCLK, C_MEMCLK, C_UTIL, C_MEMUTIL, C_MEMUSED, NC };

typedef struct dev {
    nvmlDevice_t h;
    uint32_t counter[NC];               /* 0: not readable on this device */
} dev;

static void *lib;
static dev devs[MAX_DEV];
static unsigned ndev;
static pthread_t thread;
static int running;
static int stop_flag;
static pthread_mutex_t stop_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t stop_cond;
static double period_ns;

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

static void sample(unsigned tick)
{
    for (unsigned d = 0; d < ndev; d++) {
        dev *v = &devs[d];
        unsigned int x;
        if (v->counter[C_POWER] && nv.power(v->h, &x) == NVML_SUCCESS)
            ecl_counter_float(v->counter[C_POWER], x / 1000.0);
        if (v->counter[C_SMCLK] && nv.clock(v->h, NVML_CLOCK_SM, &x) == NVML_SUCCESS)
            ecl_counter_int(v->counter[C_SMCLK], x);
        if (tick % 10 != 0)
            continue;
        if (v->counter[C_TEMP] && nv.temperature(v->h, NVML_TEMPERATURE_GPU, &x) == NVML_SUCCESS)
            ecl_counter_int(v->counter[C_TEMP], x);
        if (v->counter[C_MEMCLK] && nv.clock(v->h, NVML_CLOCK_MEM, &x) == NVML_SUCCESS)
            ecl_counter_int(v->counter[C_MEMCLK], x);
        nvmlUtilization_t u;
        if (v->counter[C_UTIL] && nv.utilization(v->h, &u) == NVML_SUCCESS) {
            ecl_counter_int(v->counter[C_UTIL], u.gpu);
            ecl_counter_int(v->counter[C_MEMUTIL], u.memory);
        }
        nvmlMemory_t m;
        if (v->counter[C_MEMUSED] && nv.memory(v->h, &m) == NVML_SUCCESS)
            ecl_counter_int(v->counter[C_MEMUSED], (int64_t)m.used);
    }
    ecl_gpu_st.samples++;
}

static void *sampler(void *arg)
{
    (void)arg;
    pthread_setname_np(pthread_self(), "ecl-gpu-metrics");
    /* The first round pays NVML's one-time costs (each query's first call
     * took 0.4-3.5 ms on an H100); the sampler's cost is counted from the
     * end of it, and the first round's CPU time apart. */
    uint64_t cpu0 = mono_ns(CLOCK_THREAD_CPUTIME_ID), wall0 = mono_ns(CLOCK_MONOTONIC);
    struct timespec next;
    clock_gettime(CLOCK_MONOTONIC, &next);
    pthread_mutex_lock(&stop_lock);
    for (unsigned tick = 0; !stop_flag; tick++) {
        pthread_mutex_unlock(&stop_lock);
        sample(tick);
        if (tick == 0) {
            uint64_t c = mono_ns(CLOCK_THREAD_CPUTIME_ID);
            ecl_gpu_st.sampler_first_ns = c - cpu0;
            cpu0 = c;
            wall0 = mono_ns(CLOCK_MONOTONIC);
        }
        uint64_t ns = (uint64_t)next.tv_nsec + (uint64_t)period_ns;
        next.tv_sec += (time_t)(ns / 1000000000ull);
        next.tv_nsec = (long)(ns % 1000000000ull);
        pthread_mutex_lock(&stop_lock);
        while (!stop_flag && pthread_cond_timedwait(&stop_cond, &stop_lock, &next) != ETIMEDOUT)
            ;
    }
    pthread_mutex_unlock(&stop_lock);
    /* one last sample of every metric at the end */
    sample(0);
    ecl_gpu_st.sampler_cpu_ns = mono_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0;
    ecl_gpu_st.sampler_wall_ns = mono_ns(CLOCK_MONOTONIC) - wall0;
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
        ndev++;
    }
    period_ns = 1e9 / hz;
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
}
