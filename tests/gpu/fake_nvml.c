/* fake_nvml.c -- a stand-in for libnvidia-ml for tests/gpu/unit.sh (no GPU
 * needed): one device whose driver takes a power sample every 20 ms
 * (100000 + (t / 20 ms) % 7 mW, kept 2.4 s, as nvmlDeviceGetSamples gives
 * them), SM clock 1980 MHz, memory clock 2619 MHz, 40 C, utilisation 50 % /
 * 20 %, 4 GiB used. Loaded by ECL through ECL_NVML_LIB. */
#include <stddef.h>
#include <time.h>

typedef union {
    double d;
    unsigned int ui;
    unsigned long long ull;
} value;
typedef struct {
    unsigned long long ts;
    value v;
} sample;

/* NVML's entry points as ECL calls them (ecl/gpu/nvml.c), exported (the
 * build hides symbols by default) */
#define API __attribute__((visibility("default")))
API int nvmlInit_v2(void);
API int nvmlShutdown(void);
API const char *nvmlErrorString(int r);
API int nvmlDeviceGetCount_v2(unsigned int *n);
API int nvmlDeviceGetHandleByIndex_v2(unsigned int i, void **d);
API int nvmlDeviceGetPowerUsage(void *d, unsigned int *mw);
API int nvmlDeviceGetTemperature(void *d, int k, unsigned int *c);
API int nvmlDeviceGetClockInfo(void *d, int k, unsigned int *mhz);
API int nvmlDeviceGetUtilizationRates(void *d, unsigned int *u);
API int nvmlDeviceGetMemoryInfo(void *d, unsigned long long *m);
API int nvmlDeviceGetSamples(void *d, int type, unsigned long long last, int *vtype, unsigned int *n,
                         sample *s);

#define PERIOD_US 20000ull
#define KEPT 120u

static unsigned long long now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (unsigned long long)t.tv_sec * 1000000ull + (unsigned long long)t.tv_nsec / 1000;
}

API int nvmlInit_v2(void) { return 0; }
API int nvmlShutdown(void) { return 0; }
API const char *nvmlErrorString(int r) { return r ? "fake error" : "success"; }
API int nvmlDeviceGetCount_v2(unsigned int *n) { *n = 1; return 0; }
API int nvmlDeviceGetHandleByIndex_v2(unsigned int i, void **d) { *d = (void *)(size_t)(i + 1); return 0; }
API int nvmlDeviceGetPowerUsage(void *d, unsigned int *mw)
{
    (void)d;
    *mw = 100000 + (unsigned int)(now_us() / PERIOD_US % 7);
    return 0;
}
API int nvmlDeviceGetTemperature(void *d, int k, unsigned int *c) { (void)d; (void)k; *c = 40; return 0; }
API int nvmlDeviceGetClockInfo(void *d, int k, unsigned int *mhz)
{
    (void)d;
    *mhz = k == 1 ? 1980 : 2619;
    return 0;
}
API int nvmlDeviceGetUtilizationRates(void *d, unsigned int *u) { (void)d; u[0] = 50; u[1] = 20; return 0; }
API int nvmlDeviceGetMemoryInfo(void *d, unsigned long long *m)
{
    (void)d;
    m[0] = 8ull << 30;
    m[1] = 4ull << 30;
    m[2] = 4ull << 30;
    return 0;
}
/* power samples only (type 0); the newest KEPT, after `last` */
API int nvmlDeviceGetSamples(void *d, int type, unsigned long long last, int *vtype, unsigned int *n,
                         sample *s)
{
    (void)d;
    if (type != 0)
        return 3;                                   /* NOT_SUPPORTED */
    *vtype = 1;                                     /* unsigned int */
    if (s == NULL) {
        *n = KEPT;
        return 0;
    }
    unsigned long long newest = now_us() / PERIOD_US * PERIOD_US;
    unsigned long long t = newest - (KEPT - 1) * PERIOD_US;
    unsigned int k = 0;
    for (; t <= newest && k < *n; t += PERIOD_US)
        if (t > last) {
            s[k].ts = t;
            s[k].v.ui = 100000 + (unsigned int)(t / PERIOD_US % 7);
            k++;
        }
    *n = k;
    return k ? 0 : 6;                               /* NOT_FOUND: none newer */
}
