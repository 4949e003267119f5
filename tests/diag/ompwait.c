/* ompwait.c -- an OpenMP loop with one slow thread, for pal-view --waits
 * (tests/diag/omp.sh; built with clang -fopenmp, traced through OMPT).
 * THREADS threads (argv[2], default 4) run ROUNDS rounds of a loop
 * (schedule(static), one iteration per thread); in round k thread k %
 * THREADS sleeps D ms (argv[1], default 20) in its iteration, so every
 * other thread waits about D at the loop's implicit barrier, and then each
 * thread sleeps its own number times D/4 before an explicit barrier. Each
 * thread appends to ompwait.times, just before each barrier, "PATTERN
 * CALL#INSTANCE member THREAD SECONDS" (CLOCK_REALTIME), the arrivals from
 * which tests/diag/expect-waits.awk computes the waits really injected. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define ROUNDS 4

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void sleep_ms(double ms)
{
    struct timespec ts = {(time_t)(ms / 1e3), (long)((ms - (double)(time_t)(ms / 1e3) * 1e3) * 1e6)};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

int main(int argc, char **argv)
{
    double d = argc > 1 ? atof(argv[1]) : 20;
    int threads = argc > 2 ? atoi(argv[2]) : 4;
    FILE *times = fopen("ompwait.times", "w");
    if (times == NULL || d <= 0 || threads < 2)
        return 2;
    omp_set_dynamic(0);
    for (int k = 0; k < ROUNDS; k++) {
#pragma omp parallel num_threads(threads)
        {
            int t = omp_get_thread_num();
#pragma omp for schedule(static, 1)
            for (int i = 0; i < threads; i++) {
                if (i == k % threads)
                    sleep_ms(d);
#pragma omp critical
                fprintf(times, "omp_loop implicit#%d member %d %.9f\n", k, t, now());
            }
            sleep_ms(d / 4 * t);
#pragma omp critical
            fprintf(times, "omp_explicit explicit#%d member %d %.9f\n", k, t, now());
#pragma omp barrier
        }
    }
    return fclose(times) ? 2 : 0;
}
