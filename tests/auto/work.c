/* work.c -- tests/auto: known work in two instrumented regions, nested:
 * main calls work_a (which also calls work_b once) and work_b; the counters
 * per region (pal-view) attribute each loop to its function. */
#include <stdio.h>

static volatile unsigned long sink;

void work_b(unsigned long n)
{
    unsigned long s = 0;
    for (unsigned long i = 0; i < n; i++)
        s += i * i;
    sink += s;
}

void work_a(unsigned long n)
{
    unsigned long s = 0;
    for (unsigned long i = 0; i < 2 * n; i++)
        s += i ^ (i >> 3);
    sink += s;
    work_b(n / 4);
}

int main(void)
{
    for (int k = 0; k < 4; k++) {
        work_a(4000000);
        work_b(4000000);
    }
    printf("%lu\n", sink);
    return 0;
}
