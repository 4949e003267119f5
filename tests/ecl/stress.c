/* stress.c -- ECL stress program: THREADS threads each record a "thread k"
 * marker, then PAIRS enter/leave pairs (region 1 + (k + j) % 16) and a
 * `sample` user record after every 1000th pair. check_roundtrip --stress
 * knows the pattern and verifies every record of every thread.
 *
 *   stress [THREADS [PAIRS]]     (defaults 8 and 500000: 1,000,000 events each)
 *
 * Configure with the ECL_* environment (a small ECL_BUFFER_SIZE forces many
 * flushes). Exit status 0 unless the ECL calls report an error other than a
 * write error (which ECL reports itself and survives). */
#include <ecl.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define REGIONS 16
#define SAMPLE_EVERY 1000

static ecl_region regions[REGIONS];
static ecl_type sample;
static long pairs = 500000;

static void *run(void *arg)
{
    unsigned k = (unsigned)(uintptr_t)arg;
    char text[32];
    snprintf(text, sizeof text, "thread %u", k);
    ecl_marker(text);
    for (long j = 0; j < pairs; j++) {
        ecl_region r = regions[(k + (unsigned long)j) % REGIONS];
        ecl_enter(r);
        ecl_leave(r);
        if (j % SAMPLE_EVERY == SAMPLE_EVERY - 1) {
            char label[32];
            ecl_value v[4];
            snprintf(label, sizeof label, "j%ld", j);
            v[0].u = k;
            v[1].i = j;
            v[2].f = (double)j * 0.25;
            v[3].s = label;
            ecl_record(sample, v);
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    /* The checks expect each stream's exact pattern: without the records of
     * ECL's threads group (thread_begin/end, joins; tests/auto/threads.sh),
     * unless the caller asks for them. */
    setenv("ECL_GROUPS", "none", 0);
    unsigned nthreads = argc > 1 ? (unsigned)atoi(argv[1]) : 8;
    if (argc > 2)
        pairs = atol(argv[2]);
    if (nthreads < 1 || nthreads > 256 || pairs < 0) {
        fprintf(stderr, "usage: stress [THREADS [PAIRS]]\n");
        return 2;
    }
    ecl_status st = ecl_init();
    if (st != ECL_OK) {
        fprintf(stderr, "stress: ecl_init: %s\n", ecl_status_string(st));
        return 1;
    }
    for (int i = 0; i < REGIONS; i++) {
        char name[16];
        snprintf(name, sizeof name, "r%d", i);
        regions[i] = ecl_region_define(name);
        if (regions[i] != (ecl_region)(i + 1)) {
            fprintf(stderr, "stress: region r%d got id %u\n", i, regions[i]);
            return 1;
        }
    }
    static const ecl_field f[4] = {
        { "thread", ECL_FIELD_UINT32, NULL, NULL },
        { "j", ECL_FIELD_INT64, NULL, "pair index" },
        { "value", ECL_FIELD_FLOAT64, NULL, NULL },
        { "label", ECL_FIELD_STRING, NULL, NULL },
    };
    if ((st = ecl_type_register("sample", f, 4, &sample)) != ECL_OK) {
        fprintf(stderr, "stress: ecl_type_register: %s\n", ecl_status_string(st));
        return 1;
    }
    pthread_t *th = calloc(nthreads, sizeof *th);
    if (th == NULL)
        return 1;
    for (unsigned k = 0; k < nthreads; k++)
        if (pthread_create(&th[k], NULL, run, (void *)(uintptr_t)k) != 0) {
            fprintf(stderr, "stress: cannot create thread %u\n", k);
            return 1;
        }
    for (unsigned k = 0; k < nthreads; k++)
        pthread_join(th[k], NULL);
    free(th);
    printf("stress: %u threads x %ld pairs, trace in %s\n", nthreads, pairs,
           ecl_trace_path() ? ecl_trace_path() : "(none)");
    st = ecl_finalize();
    if (st != ECL_OK && st != ECL_EIO) {
        fprintf(stderr, "stress: ecl_finalize: %s\n", ecl_status_string(st));
        return 1;
    }
    return 0;
}
