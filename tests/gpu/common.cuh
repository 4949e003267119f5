/* common.cuh -- what the tests/gpu programs share: the GPU check (exit 77,
 * saying why, when there is none), error checks, timing. */
#ifndef TESTS_GPU_COMMON_CUH
#define TESTS_GPU_COMMON_CUH

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define CK(call)                                                                           \
    do {                                                                                   \
        cudaError_t e_ = (call);                                                           \
        if (e_ != cudaSuccess) {                                                           \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,                  \
                    cudaGetErrorString(e_));                                               \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

/* Exit 77 (automake's SKIP) when no GPU can run kernels here. */
static void need_gpu(const char *prog)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess || n == 0) {
        printf("SKIP: %s: no CUDA GPU here (%s)\n", prog,
               e != cudaSuccess ? cudaGetErrorString(e) : "0 devices");
        exit(77);
    }
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

#endif
