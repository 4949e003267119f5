/* stamped_mm.cu -- a matrix multiply with an in-kernel region (ecl_cuda.h):
 * C = A B on N x N floats (default 1024) in 16 x 16 blocks, each block
 * stamping the region "matmul body" around its whole work; K launches
 * (default 3), each recorded after it ran. A is all 1 and B all 2, so that
 * every element of C must be 2 N: the work is checked, and so cannot have
 * been removed by the compiler. Prints the regions recorded (stamps=) and
 * the check. Linked with ECL; tests/gpu/overhead measures R on the same
 * kernel (matmul.cuh). */
#include "common.cuh"
#include "ecl_cuda.h"
#include "matmul.cuh"

__global__ void fill(int n, float *p, float v)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        p[i] = v;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1024;
    int k = argc > 2 ? atoi(argv[2]) : 3;
    if (n < MM_T || n % MM_T != 0 || n > 8192 || k < 1) {
        fprintf(stderr, "usage: stamped_mm [N (a multiple of %d, <= 8192) [LAUNCHES]]\n", MM_T);
        return 2;
    }
    ecl_init();
    need_gpu("stamped_mm");
    size_t elems = (size_t)n * n, bytes = elems * sizeof(float);
    float *a, *b, *c;
    CK(cudaMalloc(&a, bytes));
    CK(cudaMalloc(&b, bytes));
    CK(cudaMalloc(&c, bytes));
    fill<<<(unsigned)((elems + 255) / 256), 256>>>((int)elems, a, 1.0f);
    fill<<<(unsigned)((elems + 255) / 256), 256>>>((int)elems, b, 2.0f);
    CK(cudaGetLastError());
    dim3 grid(n / MM_T, n / MM_T), block(MM_T, MM_T);
    size_t blocks = (size_t)grid.x * grid.y;
    unsigned region = ecl_region_define("matmul body");
    ecl_cuda_stamps st;
    CK(ecl_cuda_stamps_open(&st, blocks, 0));
    size_t total = 0;
    for (int j = 0; j < k; j++) {
        CK(cudaMemset(c, 0, bytes));
        mm_stamped<<<grid, block>>>(n, a, b, c, region, st.log);
        CK(cudaGetLastError());
        size_t got = 0;
        CK(ecl_cuda_stamps_record(&st, &got));
        total += got;
    }
    ecl_cuda_stamps_close(&st);
    float *h = (float *)malloc(bytes);
    if (!h) {
        fprintf(stderr, "stamped_mm: out of memory\n");
        return 1;
    }
    CK(cudaMemcpy(h, c, bytes, cudaMemcpyDeviceToHost));
    size_t wrong = 0;
    for (size_t i = 0; i < elems; i++)
        wrong += h[i] != 2.0f * n;
    free(h);
    printf("n=%d blocks=%zu launches=%d stamps=%zu wrong=%zu\n", n, blocks, k, total, wrong);
    CK(cudaFree(a));
    CK(cudaFree(b));
    CK(cudaFree(c));
    return total == blocks * (size_t)k && wrong == 0 ? 0 : 1;
}
