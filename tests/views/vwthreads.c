/* vwthreads.c -- an ECL-instrumented program of many threads alive at once,
 * for tests/views/mpi-memory.sh: THREADS threads (default 2048) each enter
 * "work", wait until all have, spin a little, and leave; the main thread
 * is in "main" throughout. Each thread is busy from its start to the end
 * of the run, so its time bins span most of the run's 1,024.
 *
 *   vwthreads [THREADS]
 *
 * Run with a small ECL_BUFFER_SIZE (4K) and ECL_BUFFER_COUNT (1): each
 * thread's buffers are its own. */
#include <ecl.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static ecl_region r_main, r_work;
static pthread_barrier_t all_in;
static volatile double sink;

static void *work(void *arg)
{
    (void)arg;
    ecl_enter(r_work);
    pthread_barrier_wait(&all_in);
    double x = 0;
    for (int i = 0; i < 20000; i++)
        x += i * 0.5;
    sink = x;
    ecl_leave(r_work);
    return NULL;
}

int main(int argc, char **argv)
{
    unsigned n = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 2048;
    if (n < 1 || n > 8192) {
        fprintf(stderr, "usage: vwthreads [THREADS]  (1 to 8192)\n");
        return 1;
    }
    r_main = ecl_region_define("main");
    r_work = ecl_region_define("work");
    pthread_t *th = calloc(n, sizeof *th);
    pthread_attr_t attr;
    if (th == NULL || pthread_attr_init(&attr) || pthread_attr_setstacksize(&attr, 64 * 1024) ||
        pthread_barrier_init(&all_in, NULL, n)) {
        fprintf(stderr, "vwthreads: out of memory\n");
        return 1;
    }
    ecl_enter(r_main);
    unsigned started = 0;
    for (; started < n; started++)
        if (pthread_create(&th[started], &attr, work, NULL) != 0)
            break;
    if (started < n) {   /* the barrier waits for n: cannot go on */
        fprintf(stderr, "vwthreads: only %u of %u threads started\n", started, n);
        return 1;
    }
    for (unsigned i = 0; i < n; i++)
        pthread_join(th[i], NULL);
    ecl_leave(r_main);
    printf("threads %u\n", n);
    free(th);
    return 0;
}
