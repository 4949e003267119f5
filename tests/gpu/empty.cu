/* empty.cu -- a stream of N empty kernels (default 1000) on the default
 * stream, then one synchronisation. Not linked with ECL: run under ecl-run,
 * where the CUDA driver starts ECL through CUDA_INJECTION64_PATH. Prints
 * the launch loop's time per kernel (launch_us=). */
#include "common.cuh"

__global__ void empty_kernel(void) {}

int main(int argc, char **argv)
{
    need_gpu("empty");
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    empty_kernel<<<1, 32>>>();             /* module load, context */
    CK(cudaDeviceSynchronize());
    double t0 = now_s();
    for (int i = 0; i < n; i++)
        empty_kernel<<<1, 32>>>();
    CK(cudaDeviceSynchronize());
    double t1 = now_s();
    CK(cudaGetLastError());
    printf("kernels=%d launch_us=%.3f\n", n + 1, (t1 - t0) / n * 1e6);
    return 0;
}
