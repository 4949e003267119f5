/* papi.c -- ECL automatic instrumentation: PAPI events as counters
 * (ECL_COUNTERS=papi:EVENT, doc/instrumentation.md "Counters"). PAPI is
 * optional (configure: HAVE_PAPI); without it every PAPI event is reported
 * unavailable. Each thread counts its events in its own event set, read at
 * the same points as the perf_event counters (counters.c). PAPI's own file
 * and system calls are made with ecl_buf_in_tool raised, so the wrappers
 * never record them. */
#include <config.h>

#include "ecl/auto/auto.h"

#include <stdio.h>
#include <string.h>

#if HAVE_PAPI
#include <papi.h>
#include <pthread.h>

static int papi_state;      /* 0 not tried, 1 ready, -1 failed */
static char papi_why[160];

static unsigned long thread_id(void)
{
    return (unsigned long)pthread_self();
}

static int papi_init(void)
{
    if (papi_state != 0)
        return papi_state;
    int v = PAPI_library_init(PAPI_VER_CURRENT);
    if (v != PAPI_VER_CURRENT) {
        snprintf(papi_why, sizeof papi_why, "PAPI_library_init: %s",
                 v > 0 ? "version mismatch" : PAPI_strerror(v));
        return papi_state = -1;
    }
    int rc = PAPI_thread_init(thread_id);
    if (rc != PAPI_OK) {
        snprintf(papi_why, sizeof papi_why, "PAPI_thread_init: %s", PAPI_strerror(rc));
        return papi_state = -1;
    }
    return papi_state = 1;
}

/* an event set of the calling thread with these events, started; -1 and
 * the reason in why on failure */
static int open_set(const char *const *events, size_t n, char *why, size_t whylen)
{
    int set = PAPI_NULL, rc = PAPI_create_eventset(&set);
    const char *what = "PAPI_create_eventset";
    for (size_t i = 0; rc == PAPI_OK && i < n; i++) {
        rc = PAPI_add_named_event(set, events[i]);
        what = "PAPI_add_named_event";
    }
    if (rc == PAPI_OK) {
        rc = PAPI_start(set);
        what = "PAPI_start";
    }
    if (rc != PAPI_OK) {
        if (why) {
            /* a disabled component says why (no PMU, perf_event_paranoid) */
            int code, c;
            const PAPI_component_info_t *ci = NULL;
            if (n == 1 && PAPI_event_name_to_code(events[0], &code) == PAPI_OK &&
                (c = PAPI_get_event_component(code)) >= 0)
                ci = PAPI_get_component_info(c);
            if (ci && ci->disabled && ci->disabled_reason[0])
                snprintf(why, whylen, "%s: %s: component %s: %s", what, PAPI_strerror(rc),
                         ci->name, ci->disabled_reason);
            else
                snprintf(why, whylen, "%s: %s", what, PAPI_strerror(rc));
        }
        if (set != PAPI_NULL) {
            PAPI_cleanup_eventset(set);
            PAPI_destroy_eventset(&set);
        }
        return -1;
    }
    return set;
}
#endif

int ecl_auto_papi_check(const char *const *events, size_t n, char *why, size_t whylen)
{
#if HAVE_PAPI
    ecl_buf_in_tool++;
    int ok = papi_init() == 1;
    if (!ok) {
        snprintf(why, whylen, "%s", papi_why);
    } else {
        int set = open_set(events, n, why, whylen);
        if (set < 0) {
            ok = 0;
        } else {
            long long v[1];
            PAPI_stop(set, v);
            PAPI_cleanup_eventset(set);
            PAPI_destroy_eventset(&set);
        }
    }
    ecl_buf_in_tool--;
    return ok ? 0 : -1;
#else
    (void)events;
    (void)n;
    snprintf(why, whylen, "this libecl was built without PAPI (configure: PAPI no)");
    return -1;
#endif
}

int ecl_auto_papi_open(const char *const *events, size_t n)
{
#if HAVE_PAPI
    if (n == 0 || papi_state != 1)
        return -1;
    ecl_buf_in_tool++;
    PAPI_register_thread();
    int set = open_set(events, n, NULL, 0);
    ecl_buf_in_tool--;
    return set;
#else
    (void)events;
    (void)n;
    return -1;
#endif
}

int ecl_auto_papi_read(int set, int64_t *values, size_t n)
{
#if HAVE_PAPI
    long long v[ECL_AUTO_PAPI_MAX];
    if (set < 0 || n > ECL_AUTO_PAPI_MAX || PAPI_read(set, v) != PAPI_OK)
        return -1;
    for (size_t i = 0; i < n; i++)
        values[i] = (int64_t)v[i];
    return 0;
#else
    (void)set;
    (void)values;
    (void)n;
    return -1;
#endif
}

void ecl_auto_papi_close(int set)
{
#if HAVE_PAPI
    if (set < 0)
        return;
    ecl_buf_in_tool++;
    long long v[ECL_AUTO_PAPI_MAX];
    PAPI_stop(set, v);
    PAPI_cleanup_eventset(set);
    PAPI_destroy_eventset(&set);
    PAPI_unregister_thread();
    ecl_buf_in_tool--;
#else
    (void)set;
#endif
}
