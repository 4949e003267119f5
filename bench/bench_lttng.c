/* bench_lttng.c -- the peer side of table (e): the enter/leave loop of
 * bench_work.c, recorded through two LTTng-UST tracepoints instead of ECL.
 * bench_peers runs it inside an active lttng session; on its own (no session)
 * it measures disabled tracepoints. Usage: bench_lttng EVENTS REPS.
 * Prints key=value lines: ns, events, enabled, version. */
#include <config.h>

#include "bench/bench_common.h"
#include "bench/bench_tp.h"

#include <lttng/ust-version.h>
#include <stdio.h>
#include <stdlib.h>

static uint64_t events_recorded;

static uint64_t loop_tracepoints(uint64_t n, int tid, void *arg)
{
    uint64_t pairs = n / 2;
    (void)tid;
    (void)arg;
    for (uint64_t i = 0; i < pairs; i++) {
        uint32_t region = 1 + (uint32_t)(i & 3);
        lttng_ust_tracepoint(ecl_bench, enter, region);
        lttng_ust_tracepoint(ecl_bench, leave, region);
    }
    __atomic_add_fetch(&events_recorded, 2 * pairs, __ATOMIC_RELAXED);
    return pairs;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: bench_lttng EVENTS REPS\n");
        return 2;
    }
    uint64_t n = strtoull(argv[1], NULL, 10) & ~(uint64_t)1;
    int reps = atoi(argv[2]);
    double ns = bench_run_threads(1, reps >= 1 ? reps : 1, n, loop_tracepoints, NULL);
    printf("ns=%.4f\nevents=%llu\nenabled=%d\nversion=%s\n", ns,
           (unsigned long long)events_recorded,
           lttng_ust_tracepoint_enabled(ecl_bench, enter) ? 1 : 0, LTTNG_UST_VERSION);
    return 0;
}
