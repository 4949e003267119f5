/* vwnames.c -- an ECL program whose names hold what output writers must
 * escape: byte 0xFF and other invalid UTF-8, control bytes, quotes, '<&>',
 * a long name; with counters and markers in fixed numbers:
 *   main thread and 1 worker; regions entered and left 3 times each per thread;
 *   counter "heat <&> \"C\"" (int) 40 samples and "load\xff\x01" (float) 25
 *   samples, both on the main thread; markers: 4 per thread (8). */
#include <ecl.h>

#include <pthread.h>

static const char *const names[] = {
    "bad\xff" "byte", "ctl\x01\x02\x1f" "x", "quote\"'<&>", "tab\there\nnewline",
    "overlong\xc0\xaf" "surrogate\xed\xa0\x80" "cut\xe2\x82",
    "a-very-long-region-name-that-does-not-fit-in-any-box-of-the-call-tree-picture-at-all",
    "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x9a\x80"};
#define NREG (sizeof names / sizeof names[0])
#define LONG 5      /* names[LONG] is the long one */
static ecl_region reg[NREG];
static volatile double sink;

static void spin(int n)
{
    double x = 0;
    for (int i = 0; i < n; i++)
        x += i * 0.5;
    sink = x;
}

static void body(void)
{
    for (int k = 0; k < 3; k++)
        for (size_t i = 0; i < NREG; i++) {
            ecl_enter(reg[i]);
            /* milliseconds: a preemption cannot squeeze the other boxes; the
             * long name 3 times longer, so that its call-tree box is wide
             * enough to show part of it whatever a loaded machine stretches */
            spin(i == LONG ? 3000000 : 1000000);
            ecl_leave(reg[i]);
        }
    ecl_marker("mark \xff<&>\"");
    ecl_marker("mark\x01two");
    ecl_marker("three");
    ecl_marker("four");
}

static void *worker(void *arg)
{
    (void)arg;
    body();
    return NULL;
}

int main(void)
{
    if (ecl_init() != ECL_OK)
        return 1;
    for (size_t i = 0; i < NREG; i++)
        reg[i] = ecl_region_define(names[i]);
    ecl_counter heat = ecl_counter_define("heat <&> \"C\"", "C", ECL_COUNTER_INT);
    ecl_counter load = ecl_counter_define("load\xff\x01", "", ECL_COUNTER_FLOAT);
    pthread_t t;
    if (pthread_create(&t, NULL, worker, NULL))
        return 1;
    body();
    for (int i = 0; i < 40; i++) {
        ecl_counter_int(heat, i * 3);
        if (i < 25)
            ecl_counter_float(load, i * 0.25);
        spin(500);
    }
    pthread_join(t, NULL);
    ecl_finalize();
    return 0;
}
