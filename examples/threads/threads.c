/* threads.c -- a multithreaded program instrumented with ECL: 4 threads
 * relax a 1-D heat equation each on its own slab, with nested regions,
 * markers, an integer and a float counter and a user-defined record type.
 *
 *   threads [THREADS [ITERATIONS]]     (defaults 4 and 1000)
 *
 * The event counts are fixed by the arguments; the program prints them as
 * "expect TYPE=N" lines so tests can compare the trace against them exactly. */
#include <ecl.h>

#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CELLS 256
#define PROGRESS_EVERY 10    /* a `progress` record every 10 iterations */
#define MARKER_EVERY 100     /* a marker every 100 iterations */

static ecl_region r_worker, r_iteration, r_compute, r_reduce;
static ecl_counter c_iterations, c_residual;
static ecl_type t_progress;
static long iterations = 1000;

typedef struct worker {
    pthread_t thread;
    unsigned index;
    double result;
} worker;

static void *work(void *arg)
{
    worker *w = arg;
    double u[CELLS], v[CELLS];
    for (int i = 0; i < CELLS; i++)
        u[i] = (i == CELLS / 2) ? 1000.0 * (w->index + 1) : 0.0;

    ecl_enter(r_worker);
    for (long it = 0; it < iterations; it++) {
        ecl_enter(r_iteration);

        ecl_enter(r_compute);
        for (int i = 1; i < CELLS - 1; i++)
            v[i] = u[i] + 0.25 * (u[i - 1] - 2.0 * u[i] + u[i + 1]);
        v[0] = v[CELLS - 1] = 0.0;
        ecl_leave(r_compute);

        ecl_enter(r_reduce);
        double residual = 0.0;
        for (int i = 0; i < CELLS; i++) {
            residual += fabs(v[i] - u[i]);
            u[i] = v[i];
        }
        ecl_leave(r_reduce);

        ecl_counter_int(c_iterations, it + 1);
        ecl_counter_float(c_residual, residual);
        if ((it + 1) % PROGRESS_EVERY == 0) {
            char label[32];
            snprintf(label, sizeof label, "w%u-it%ld", w->index, it + 1);
            ecl_value vals[4];
            vals[0].i = it + 1;
            vals[1].f = residual;
            vals[2].u = w->index;
            vals[3].s = label;
            ecl_record(t_progress, vals);
        }
        if ((it + 1) % MARKER_EVERY == 0)
            ecl_marker("checkpoint");
        ecl_leave(r_iteration);
        w->result = residual;
    }
    ecl_leave(r_worker);
    return NULL;
}

int main(int argc, char **argv)
{
    unsigned nthreads = 4;
    if (argc > 1)
        nthreads = (unsigned)strtoul(argv[1], NULL, 10);
    if (argc > 2)
        iterations = strtol(argv[2], NULL, 10);
    if (nthreads < 1 || nthreads > 64 || iterations < 0) {
        fprintf(stderr, "usage: threads [THREADS (1-64) [ITERATIONS]]\n");
        return 2;
    }

    ecl_status st = ecl_init();
    if (st != ECL_OK) {
        fprintf(stderr, "threads: ecl_init: %s\n", ecl_status_string(st));
        return 1;
    }
    ecl_region r_main = ecl_region_define("main");
    r_worker = ecl_region_define("worker");
    r_iteration = ecl_region_define("iteration");
    r_compute = ecl_region_define("compute");
    r_reduce = ecl_region_define("reduce");
    c_iterations = ecl_counter_define("iterations", "", ECL_COUNTER_INT);
    c_residual = ecl_counter_define("residual", "K", ECL_COUNTER_FLOAT);
    static const ecl_field fields[4] = {
        { "iteration", ECL_FIELD_INT64, NULL, "iterations done" },
        { "residual", ECL_FIELD_FLOAT64, "K", "sum of |change| in this iteration" },
        { "rank", ECL_FIELD_UINT32, NULL, "worker index" },
        { "label", ECL_FIELD_STRING, NULL, NULL },
    };
    st = ecl_type_register("progress", fields, 4, &t_progress);
    if (st != ECL_OK) {
        fprintf(stderr, "threads: ecl_type_register: %s\n", ecl_status_string(st));
        return 1;
    }

    ecl_enter(r_main);
    ecl_marker("start");
    worker *w = calloc(nthreads, sizeof *w);
    if (w == NULL)
        return 1;
    for (unsigned i = 0; i < nthreads; i++) {
        w[i].index = i;
        if (pthread_create(&w[i].thread, NULL, work, &w[i]) != 0) {
            fprintf(stderr, "threads: cannot create thread %u\n", i);
            return 1;
        }
    }
    double total = 0.0;
    for (unsigned i = 0; i < nthreads; i++) {
        pthread_join(w[i].thread, NULL);
        total += w[i].result;
    }
    ecl_marker("end");
    ecl_leave(r_main);
    free(w);

    const char *path = ecl_trace_path();
    printf("threads: %u threads x %ld iterations, final residual %.6g\n", nthreads, iterations,
           total);
    printf("threads: trace in %s\n", path != NULL ? path : "(tracing disabled)");
    /* Exact record counts (regions: main 1, per thread worker 1 + 3 per iteration). */
    unsigned long long n = nthreads, it = (unsigned long long)iterations;
    printf("expect enter=%llu\n", 1 + n * (1 + 3 * it));
    printf("expect leave=%llu\n", 1 + n * (1 + 3 * it));
    printf("expect marker=%llu\n", 2 + n * (it / MARKER_EVERY));
    printf("expect counter_int=%llu\n", n * it);
    printf("expect counter_float=%llu\n", n * it);
    printf("expect progress=%llu\n", n * (it / PROGRESS_EVERY));
    /* ECL's threads group (on unless ECL_GROUPS leaves it out) records a
     * thread_begin/thread_end per thread and each join as the region
     * "pthread_join" (doc/instrumentation.md). */
    const char *g = getenv("ECL_GROUPS");
    int tg = g == NULL || strstr(g, "threads") != NULL || strstr(g, "all") != NULL ||
             strstr(g, "default") != NULL;
    printf("expect region_def=%d\n", 5 + tg);
    printf("expect thread_begin=%llu\n", tg ? n : 0);
    printf("expect thread_end=%llu\n", tg ? n : 0);
    printf("expect wait_enter=%llu\n", tg ? n : 0);
    printf("expect counter_def=2\n");
    printf("expect thread_def=%llu\n", n + 1);
    printf("expect lost=0\n");
    fflush(stdout);
    return ecl_finalize() == ECL_OK ? 0 : 1;
}
