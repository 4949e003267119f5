/* vwprog.c -- a small deterministic ECL-instrumented program for the view
 * tests: the main thread and 2 workers with nested regions, markers and
 * deliberately unbalanced enter/leave pairs. Record counts are fixed:
 *   main thread: main 1 { setup 1, report 1 }, orphan entered and never left
 *   each worker: solve 1 { step 5 { kernel 5, halo 5 } }, a leave of `stray`
 *                without its enter; step 5 leaves `kernel` open once (closed by
 *                the step's leave). */
#include <ecl.h>

#include <pthread.h>
#include <stdio.h>

static ecl_region r_main, r_setup, r_report, r_orphan, r_solve, r_step, r_kernel, r_halo,
    r_stray;
static volatile double sink;

static void spin(int n)
{
    double x = 0;
    for (int i = 0; i < n; i++)
        x += i * 0.5;
    sink = x;
}

static void *worker(void *arg)
{
    (void)arg;
    ecl_enter(r_solve);
    for (int s = 0; s < 5; s++) {
        ecl_enter(r_step);
        ecl_enter(r_kernel);
        spin(20000);
        if (s != 4)
            ecl_leave(r_kernel);
        ecl_enter(r_halo);
        spin(5000);
        ecl_leave(r_halo);
        ecl_leave(r_step);
    }
    ecl_marker("solved");
    ecl_leave(r_stray);
    ecl_leave(r_solve);
    return NULL;
}

int main(void)
{
    if (ecl_init() != ECL_OK)
        return 1;
    r_main = ecl_region_define("main");
    r_setup = ecl_region_define("setup");
    r_report = ecl_region_define("report");
    r_orphan = ecl_region_define("orphan");
    r_solve = ecl_region_define("solve");
    r_step = ecl_region_define("step");
    r_kernel = ecl_region_define("kernel");
    r_halo = ecl_region_define("halo");
    r_stray = ecl_region_define("stray");
    ecl_enter(r_main);
    ecl_enter(r_setup);
    spin(10000);
    ecl_leave(r_setup);
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        if (pthread_create(&t[i], NULL, worker, NULL))
            return 1;
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    ecl_enter(r_report);
    ecl_marker("report");
    ecl_leave(r_report);
    ecl_leave(r_main);
    ecl_enter(r_orphan);
    ecl_finalize();
    return 0;
}
