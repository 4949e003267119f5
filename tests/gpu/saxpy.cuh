/* saxpy.cuh -- the saxpy kernels of tests/gpu, as written and with an
 * in-kernel region (include after ecl_cuda.h for the stamped one). */
#ifndef TESTS_GPU_SAXPY_CUH
#define TESTS_GPU_SAXPY_CUH

__global__ void saxpy(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

#ifdef ECL_CUDA_H
__global__ void saxpy_stamped(int n, float a, const float *x, float *y, unsigned region,
                              ecl_gpu_log log)
{
    ECL_GPU_BEGIN(log);
    ECL_GPU_ENTER(region);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
    ECL_GPU_LEAVE(region);
    ECL_GPU_END();
}
#endif
#endif
