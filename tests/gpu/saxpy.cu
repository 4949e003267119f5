/* saxpy.cu -- y = a x + y on N elements (default 1 M), K times (default
 * 10), linked with ECL (ecl_init at the start); checks the result. */
#include "common.cuh"
#include "ecl.h"
#include "saxpy.cuh"

int main(int argc, char **argv)
{
    ecl_init();
    need_gpu("saxpy");
    int n = argc > 1 ? atoi(argv[1]) : 1 << 20;
    int k = argc > 2 ? atoi(argv[2]) : 10;
    size_t bytes = (size_t)n * sizeof(float);
    float *x = (float *)malloc(bytes), *y = (float *)malloc(bytes), *dx, *dy;
    for (int i = 0; i < n; i++) {
        x[i] = 1.0f;
        y[i] = 2.0f;
    }
    CK(cudaMalloc(&dx, bytes));
    CK(cudaMalloc(&dy, bytes));
    CK(cudaMemcpy(dx, x, bytes, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dy, y, bytes, cudaMemcpyHostToDevice));
    for (int j = 0; j < k; j++)
        saxpy<<<(n + 255) / 256, 256>>>(n, 2.0f, dx, dy);
    CK(cudaMemcpy(y, dy, bytes, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int i = 0; i < n; i++)
        bad += y[i] != 2.0f + 2.0f * k;
    printf("kernels=%d copies=3 htod_bytes=%zu dtoh_bytes=%zu wrong=%d\n", k, 2 * bytes, bytes,
           bad);
    CK(cudaFree(dx));
    CK(cudaFree(dy));
    free(x);
    free(y);
    return bad ? 1 : 0;
}
