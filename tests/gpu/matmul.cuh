/* matmul.cuh -- the tiled matrix multiply of tests/gpu (C = A B, N x N,
 * N a multiple of MM_T, one MM_T x MM_T block per tile of C), as written
 * and with an in-kernel region around the whole body (include after
 * ecl_cuda.h for the stamped one): tests/gpu/overhead measures R on it,
 * tests/gpu/stamped_mm traces it. */
#ifndef TESTS_GPU_MATMUL_CUH
#define TESTS_GPU_MATMUL_CUH

#define MM_T 16

__device__ __forceinline__ void mm_body(int n, const float *a, const float *b, float *c)
{
    __shared__ float as[MM_T][MM_T], bs[MM_T][MM_T];
    int row = blockIdx.y * MM_T + threadIdx.y, col = blockIdx.x * MM_T + threadIdx.x;
    float acc = 0;
    for (int k0 = 0; k0 < n; k0 += MM_T) {
        as[threadIdx.y][threadIdx.x] = a[row * n + k0 + threadIdx.x];
        bs[threadIdx.y][threadIdx.x] = b[(k0 + threadIdx.y) * n + col];
        __syncthreads();
        for (int k = 0; k < MM_T; k++)
            acc += as[threadIdx.y][k] * bs[k][threadIdx.x];
        __syncthreads();
    }
    c[row * n + col] = acc;
}

__global__ void mm_plain(int n, const float *a, const float *b, float *c)
{
    mm_body(n, a, b, c);
}

#ifdef ECL_CUDA_H
__global__ void mm_stamped(int n, const float *a, const float *b, float *c, unsigned region,
                           ecl_gpu_log log)
{
    ECL_GPU_BEGIN(log);
    ECL_GPU_ENTER(region);
    mm_body(n, a, b, c);
    ECL_GPU_LEAVE(region);
    ECL_GPU_END();
}
#endif
#endif
