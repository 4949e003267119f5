/* streams.cu -- two streams whose kernels overlap: K spinning kernels
 * (default 4, each ~2 ms) on each of two non-blocking streams, then one
 * synchronisation; linked with ECL. */
#include "common.cuh"
#include "ecl.h"

__global__ void spin(long long cycles, int *out)
{
    long long t0 = clock64();
    while (clock64() - t0 < cycles)
        ;
    if (threadIdx.x == 0)
        out[blockIdx.x] = 1;
}

int main(int argc, char **argv)
{
    ecl_init();
    need_gpu("streams");
    int k = argc > 1 ? atoi(argv[1]) : 4;
    cudaStream_t s[2];
    int *out;
    CK(cudaMalloc(&out, 64 * sizeof(int)));
    for (int i = 0; i < 2; i++)
        CK(cudaStreamCreateWithFlags(&s[i], cudaStreamNonBlocking));
    int clk = 0;
    CK(cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, 0));   /* kHz */
    long long cycles = (long long)clk * 2;                        /* ~2 ms */
    for (int j = 0; j < k; j++)
        for (int i = 0; i < 2; i++)
            spin<<<1, 32, 0, s[i]>>>(cycles, out + i);
    CK(cudaDeviceSynchronize());
    printf("streams=2 kernels=%d\n", 2 * k);
    for (int i = 0; i < 2; i++)
        CK(cudaStreamDestroy(s[i]));
    CK(cudaFree(out));
    return 0;
}
