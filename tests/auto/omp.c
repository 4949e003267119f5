/* omp.c -- tests/auto: an OpenMP program (clang -fopenmp, LLVM libomp):
 * ROUNDS parallel regions of THREADS threads, each with a worksharing loop,
 * an explicit barrier, a single construct that creates one task. */
#include <omp.h>
#include <stdio.h>

#define ROUNDS 6
#define THREADS 3

int main(void)
{
    double s = 0;
    omp_set_dynamic(0);
    for (int r = 0; r < ROUNDS; r++) {
#pragma omp parallel num_threads(THREADS) reduction(+ : s)
        {
#pragma omp for
            for (int i = 0; i < 3000; i++)
                s += i;
#pragma omp barrier
#pragma omp single
            {
#pragma omp task
                s += 1;
            }
        }
    }
    printf("%g\n", s);
    return 0;
}
