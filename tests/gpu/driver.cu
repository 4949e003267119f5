/* driver.cu -- kernels launched through the CUDA driver API (cuLaunchKernel,
 * reached through cudaGetDriverEntryPointByVersion, so no -lcuda): K
 * launches (default 20) of add_one on N elements (default 4096), linked
 * with ECL; checks the result. Each kernel must be linked to its
 * cuLaunchKernel call by correlation id (doc/gpu.md, "Records"). */
#include <cuda.h>

#include "common.cuh"
#include "ecl.h"

__global__ void add_one(int n, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] += 1.0f;
}

typedef CUresult (*launch_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned,
                              unsigned, unsigned, CUstream, void **, void **);

int main(int argc, char **argv)
{
    ecl_init();
    need_gpu("driver");
    int n = argc > 1 ? atoi(argv[1]) : 4096;
    int k = argc > 2 ? atoi(argv[2]) : 20;
    float *dy;
    CK(cudaMalloc(&dy, n * sizeof(float)));
    CK(cudaMemset(dy, 0, n * sizeof(float)));
    cudaFunction_t f;
    CK(cudaGetFuncBySymbol(&f, (const void *)add_one));
    void *fp = NULL;
    cudaDriverEntryPointQueryResult q;
    CK(cudaGetDriverEntryPointByVersion("cuLaunchKernel", &fp, 12000, cudaEnableDefault, &q));
    if (fp == NULL || q != cudaDriverEntryPointSuccess) {
        fprintf(stderr, "driver: no cuLaunchKernel entry point\n");
        return 1;
    }
    launch_fn launch = (launch_fn)fp;
    for (int j = 0; j < k; j++) {
        void *args[] = { &n, &dy };
        CUresult r = launch((CUfunction)f, (n + 255) / 256, 1, 1, 256, 1, 1, 0, 0, args, NULL);
        if (r != CUDA_SUCCESS) {
            fprintf(stderr, "driver: cuLaunchKernel: error %d\n", (int)r);
            return 1;
        }
    }
    CK(cudaDeviceSynchronize());
    float *y = (float *)malloc(n * sizeof(float));
    CK(cudaMemcpy(y, dy, n * sizeof(float), cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < n; i++)
        bad += y[i] != (float)k;
    printf("kernels=%d wrong=%d\n", k, bad);
    free(y);
    CK(cudaFree(dy));
    return bad ? 1 : 0;
}
