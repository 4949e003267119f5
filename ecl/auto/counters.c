/* counters.c -- ECL automatic instrumentation: perf_event counters
 * (ECL_COUNTERS) of every thread, recorded as counter_int samples of the
 * thread's stream: the thread's count so far, so each counter is monotonic
 * per stream. A thread samples at region boundaries (ecl_enter/ecl_leave,
 * instrumented functions, OpenMP constructs) once ECL_COUNTER_PERIOD has
 * passed since its last sample (0: at every boundary), and at its end and at
 * finalize. The counters are opened in the thread itself at its first
 * sample: software events as one group, hardware events as another (one
 * read each), PAPI events (papi:NAME, papi.c) as a third. An event the
 * machine cannot count is said once at init and left out; the others are
 * recorded anyway. */
#include <config.h>

#include "ecl/auto/auto.h"
#include "ecl/ecl.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_EVENTS 16

int ecl_auto_counters_on;

typedef struct group {
    ecl_sys_perf_event ev[MAX_EVENTS];
    uint32_t counter[MAX_EVENTS];       /* counter ids (counter_def) */
    size_t n;
} group;

static group groups[2];                 /* 0 software, 1 hardware */
static uint64_t period_ticks;
/* PAPI events: their names (without "papi:") and counter ids */
static char papi_buf[512];
static const char *papi_names[ECL_AUTO_PAPI_MAX];
static uint32_t papi_counter[ECL_AUTO_PAPI_MAX];
static size_t papi_n;

typedef struct thread_counters {
    int fd[2];                          /* group leaders, -1 none */
    int papi;                           /* PAPI event set, -1 none */
    int opened;
    uint64_t next;                      /* clock ticks of the next sample */
} thread_counters;

static __thread thread_counters *tc_self __attribute__((tls_model("initial-exec")));
static pthread_key_t tc_key;

static void tc_free(void *p)
{
    thread_counters *tc = p;
    for (int g = 0; g < 2; g++)
        ecl_sys_perf_close(tc->fd[g]);
    ecl_auto_papi_close(tc->papi);
    free(tc);
    tc_self = NULL;
}

/* Opens group g of the calling thread: the leader, then the others. The
 * leader's fd, or -errno of the first failure (every fd closed). */
static int open_group(const group *gr, int *fds)
{
    int leader = -1;
    for (size_t i = 0; i < gr->n; i++) {
        int fd = ecl_sys_perf_open(&gr->ev[i], leader);
        if (fd < 0) {
            for (size_t j = 0; j < i; j++)
                ecl_sys_perf_close(fds[j]);
            return fd;
        }
        fds[i] = fd;
        if (leader < 0)
            leader = fd;
    }
    return leader;
}

int ecl_auto_counters_init(const ecl_api_auto_config *cfg, char *err, size_t errlen)
{
    if (cfg->counters[0] == '\0')
        return 0;
    const char *list = cfg->counters;
    if (strcmp(list, "default") == 0 || strcmp(list, "all") == 0)
        list = "task-clock,page-faults,context-switches,cycles,instructions,cache-misses";
    char names[512];
    /* The names first, before anything is defined in the trace: a name ECL
     * does not know is said once and the default, no counters, is used. */
    snprintf(names, sizeof names, "%s", list);
    for (char *save = NULL, *name = strtok_r(names, ",", &save); name != NULL;
         name = strtok_r(NULL, ",", &save)) {
        ecl_sys_perf_event ev;
        if (strncmp(name, "papi:", 5) == 0 && name[5] == '\0')
            snprintf(err, errlen, "ECL_COUNTERS='%s' is not valid: 'papi:' names no event",
                     cfg->counters);
        else if (strncmp(name, "papi:", 5) != 0 && strncmp(name, "PAPI_", 5) != 0 &&
                 ecl_sys_perf_lookup(name, &ev) != 0)
            snprintf(err, errlen, "ECL_COUNTERS='%s' is not valid: unknown counter '%s' "
                     "(known: %s; and papi:EVENT for PAPI events)", cfg->counters, name,
                     ecl_sys_perf_names());
        else
            continue;
        if (ecl_api_says_once())
            fprintf(stderr, "ecl: %s; ignored, the default (none) is used\n", err);
        err[0] = '\0';
        return 0;
    }
    snprintf(names, sizeof names, "%s", list);
    char missing[512] = "";
    size_t papi_used = 0;
    for (char *save = NULL, *name = strtok_r(names, ",", &save); name != NULL;
         name = strtok_r(NULL, ",", &save)) {
        /* PAPI: papi:EVENT (preset or native), or a preset PAPI_... alone */
        if (strncmp(name, "papi:", 5) == 0 || strncmp(name, "PAPI_", 5) == 0) {
            const char *ev = name[4] == ':' ? name + 5 : name;
            size_t len = strlen(ev);
            if (papi_n == ECL_AUTO_PAPI_MAX || papi_used + len + 1 > sizeof papi_buf)
                continue;
            char *copy = papi_buf + papi_used;
            memcpy(copy, ev, len + 1);
            const char *one[1] = {copy};
            char why[400];
            if (ecl_auto_papi_check(one, 1, why, sizeof why) != 0) {
                fprintf(stderr, "ecl: PAPI event '%s' cannot be counted on this machine (%s); "
                        "left out\n", copy, why);
                continue;
            }
            papi_names[papi_n] = copy;
            papi_used += len + 1;
            papi_n++;
            continue;
        }
        ecl_sys_perf_event ev;
        if (ecl_sys_perf_lookup(name, &ev) != 0)
            continue;   /* not reached: checked above */
        group *g = &groups[ev.hardware];
        if (g->n == MAX_EVENTS)
            continue;
        /* Can this machine count it? Try it alone in this thread. */
        int fd = ecl_sys_perf_open(&ev, -1);
        if (fd < 0) {
            fprintf(stderr, "ecl: %s counter '%s' is not available on this machine "
                    "(perf_event_open: %s)%s\n", ev.hardware ? "hardware" : "software", name,
                    strerror(-fd),
                    ev.hardware ? "; recording the software counters only" : "; left out");
            size_t k = strlen(missing);
            snprintf(missing + k, sizeof missing - k, "%s%s", k ? "," : "", name);
            continue;
        }
        ecl_sys_perf_close(fd);
        g->ev[g->n] = ev;
        g->counter[g->n] = ecl_trace_counter(name, ev.unit, 0);
        g->n++;
    }
    if (papi_n > 0) {   /* each alone works: together too? */
        char why[400];
        if (ecl_auto_papi_check(papi_names, papi_n, why, sizeof why) != 0) {
            fprintf(stderr, "ecl: the PAPI events of ECL_COUNTERS cannot be counted together "
                    "on this machine (%s); left out\n", why);
            papi_n = 0;
        }
        for (size_t i = 0; i < papi_n; i++)
            papi_counter[i] = ecl_trace_counter(papi_names[i], "", 0);
    }
    if (groups[0].n + groups[1].n + papi_n == 0)
        return 0;
    double tps = ecl_sys_clock_ticks_per_second();
    period_ticks = (uint64_t)((double)cfg->counter_period_ns * tps / 1e9);
    if (pthread_key_create(&tc_key, tc_free) != 0)
        return 0;
    __atomic_store_n(&ecl_auto_counters_on, 1, __ATOMIC_RELEASE);
    ecl_buf_boundaries_on();     /* enter/leave must reach ecl_auto_boundary */
    return 0;
}

static thread_counters *thread_open(void)
{
    thread_counters *tc = calloc(1, sizeof *tc);
    if (tc == NULL)
        return NULL;
    for (int g = 0; g < 2; g++) {
        int fds[MAX_EVENTS];
        tc->fd[g] = -1;
        if (groups[g].n > 0) {
            int leader = open_group(&groups[g], fds);
            tc->fd[g] = leader >= 0 ? leader : -1;
        }
    }
    tc->papi = ecl_auto_papi_open(papi_names, papi_n);
    tc->opened = 1;
    pthread_setspecific(tc_key, tc);
    tc_self = tc;
    return tc;
}

void ecl_auto_counters_sample(void)
{
    if (!__atomic_load_n(&ecl_auto_counters_on, __ATOMIC_ACQUIRE) || ecl_buf_in_tool ||
        !ecl_buf_is_active())
        return;
    ecl_buf_in_tool++;
    thread_counters *tc = tc_self;
    if (tc == NULL)
        tc = thread_open();
    if (tc != NULL) {
        for (int g = 0; g < 2; g++) {
            uint64_t v[MAX_EVENTS];
            if (tc->fd[g] < 0 || ecl_sys_perf_read(tc->fd[g], v, groups[g].n) != 0)
                continue;
            for (size_t i = 0; i < groups[g].n; i++)
                ecl_counter_int(groups[g].counter[i], (int64_t)v[i]);
        }
        int64_t pv[ECL_AUTO_PAPI_MAX];
        if (tc->papi >= 0 && ecl_auto_papi_read(tc->papi, pv, papi_n) == 0)
            for (size_t i = 0; i < papi_n; i++)
                ecl_counter_int(papi_counter[i], pv[i]);
        tc->next = ecl_sys_clock_now() + period_ticks;
    }
    ecl_buf_in_tool--;
}

void ecl_auto_counters_tick(void)
{
    thread_counters *tc = tc_self;
    if (tc == NULL || ecl_sys_clock_now() >= tc->next)
        ecl_auto_counters_sample();
}

void ecl_auto_counters_fini(void)
{
    ecl_auto_counters_sample();
}
