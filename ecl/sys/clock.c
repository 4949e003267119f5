/* clock.c -- ECL system layer: clock selection and cycle-counter calibration.
 * The read itself is inline in sys.h; this file decides what it reads. */
#include <config.h>

#include "ecl/sys/sys.h"

#include <errno.h>
#include <stdio.h>
#include <time.h>
#if defined(HAVE_CPUID_H) && ECL_SYS_HAVE_TSC
#include <cpuid.h>
#endif

int ecl_sys_clock_kind = ECL_SYS_CLOCK_MONOTONIC;
static clockid_t clock_id = CLOCK_MONOTONIC;
static double ticks_per_second = 1e9;
static int64_t realtime_offset_ns;
/* The cycle counter's rate is measured from the (tick, ns) pair taken at init
 * to a later one: first when the rate is first asked for (at least 1 ms after
 * init, so that the tracer's own set-up overlaps it), then again over the whole
 * run by ecl_sys_clock_recalibrate. cal_span_ns: 0 until measured. */
static uint64_t cal_tick0, cal_ns0, cal_span_ns;
static uint64_t real_tick0, real_ns0;   /* the init triple, for the realtime offset */

static uint64_t ts_ns(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t ecl_sys_clock_gettime(void)
{
    return ts_ns(clock_id);
}

int ecl_sys_clock_has_invariant_tsc(void)
{
#if defined(HAVE_CPUID_H) && ECL_SYS_HAVE_TSC
    unsigned a, b, c, d;
    if ((unsigned)__get_cpuid_max(0x80000000u, NULL) < 0x80000007u)
        return 0;
    __cpuid(0x80000007u, a, b, c, d);
    (void)a; (void)b; (void)c;
    return (d >> 8) & 1u;   /* "Invariant TSC": constant rate, runs in all C/P states */
#else
    return 0;
#endif
}

#if ECL_SYS_HAVE_TSC
/* One (tsc, ns) pair: the tsc read taken midway between two clock reads, keeping
 * the tightest of a few tries so that preemption does not skew the pair. */
static void tsc_pair(uint64_t *tsc, uint64_t *ns)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 5; i++) {
        uint64_t a = ts_ns(CLOCK_MONOTONIC);
        uint64_t t = __rdtsc();
        uint64_t b = ts_ns(CLOCK_MONOTONIC);
        if (b - a < best) {
            best = b - a;
            *tsc = t;
            *ns = a + (b - a) / 2;
        }
    }
}

/* The rate from the init pair to now, waiting until min_ns have passed. */
static void tsc_measure(uint64_t min_ns)
{
    uint64_t t1 = 0, n1 = 0;
    do {
        tsc_pair(&t1, &n1);
    } while (n1 - cal_ns0 < min_ns);
    ticks_per_second = (double)(t1 - cal_tick0) * 1e9 / (double)(n1 - cal_ns0);
    cal_span_ns = n1 - cal_ns0;
}
#endif

/* The realtime offset from the init triple and the current rate. */
static void set_realtime_offset(void)
{
    /* long double keeps ~1 ns of the product for cycle counts near 2^50. */
    realtime_offset_ns = (int64_t)real_ns0 - (int64_t)((long double)real_tick0 * 1e9L /
                                                       (long double)ticks_per_second);
}

int ecl_sys_clock_init(ecl_sys_clock_source want, char *err, size_t errlen)
{
    if (want == ECL_SYS_CLOCK_AUTO)
        want = ecl_sys_clock_has_invariant_tsc() ? ECL_SYS_CLOCK_TSC : ECL_SYS_CLOCK_MONOTONIC;
    switch (want) {
    case ECL_SYS_CLOCK_TSC:
#if ECL_SYS_HAVE_TSC
        if (!ecl_sys_clock_has_invariant_tsc()) {
            snprintf(err, errlen, "ECL_CLOCK=tsc: this CPU has no invariant cycle counter "
                                  "(use monotonic)");
            return EINVAL;
        }
        tsc_pair(&cal_tick0, &cal_ns0);
        cal_span_ns = 0;             /* measured when first asked for */
        break;
#else
        snprintf(err, errlen, "ECL_CLOCK=tsc: no cycle counter support on this architecture "
                              "(use monotonic)");
        return EINVAL;
#endif
    case ECL_SYS_CLOCK_MONOTONIC:
        clock_id = CLOCK_MONOTONIC;
        ticks_per_second = 1e9;
        break;
    case ECL_SYS_CLOCK_REALTIME:
        clock_id = CLOCK_REALTIME;
        ticks_per_second = 1e9;
        break;
    default:
        snprintf(err, errlen, "unknown clock source %d", (int)want);
        return EINVAL;
    }
    ecl_sys_clock_kind = (int)want;

    uint64_t mono;
    ecl_sys_clock_pair(&real_tick0, &mono, &real_ns0);
    set_realtime_offset();           /* the cycle counter's: again once its rate is known */
    return 0;
}

/* Fixes the cycle counter's rate if it is not yet: over at least 1 ms since
 * init (an error of ~3e-5 from the pairs' spread). */
static void rate_known(void)
{
#if ECL_SYS_HAVE_TSC
    if (ecl_sys_clock_kind == ECL_SYS_CLOCK_TSC && cal_span_ns == 0) {
        tsc_measure(1000000u);
        set_realtime_offset();
    }
#endif
}

int ecl_sys_clock_recalibrate(void)
{
#if ECL_SYS_HAVE_TSC
    if (ecl_sys_clock_kind != ECL_SYS_CLOCK_TSC || cal_span_ns == 0)
        return 0;
    if (ts_ns(CLOCK_MONOTONIC) - cal_ns0 < 2 * cal_span_ns)
        return 0;                    /* hardly better: not worth a header rewrite */
    tsc_measure(0);
    set_realtime_offset();
    return 1;
#else
    return 0;
#endif
}

ecl_sys_clock_source ecl_sys_clock_source_get(void)
{
    return (ecl_sys_clock_source)ecl_sys_clock_kind;
}

const char *ecl_sys_clock_name(ecl_sys_clock_source s)
{
    switch (s) {
    case ECL_SYS_CLOCK_AUTO: return "auto";
    case ECL_SYS_CLOCK_MONOTONIC: return "monotonic";
    case ECL_SYS_CLOCK_TSC: return "tsc";
    case ECL_SYS_CLOCK_REALTIME: return "realtime";
    }
    return "?";
}

double ecl_sys_clock_ticks_per_second(void)
{
    rate_known();
    return ticks_per_second;
}

int64_t ecl_sys_clock_realtime_offset_ns(void)
{
    rate_known();
    return realtime_offset_ns;
}

void ecl_sys_clock_pair(uint64_t *ticks, uint64_t *mono_ns, uint64_t *real_ns)
{
    *mono_ns = ts_ns(CLOCK_MONOTONIC);
    *ticks = ecl_sys_clock_now();
    *real_ns = ts_ns(CLOCK_REALTIME);
}
