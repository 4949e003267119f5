/* stamped.cu -- a kernel with in-kernel regions (ecl_cuda.h): saxpy on N
 * elements (default 1 M) in blocks of 256, each block stamping the region
 * "saxpy body" around its work; K launches (default 3), each recorded
 * after it ran, into a buffer for B blocks (default: the grid's). Prints
 * the regions recorded (stamps=); exit 0 when they are K x min(B, blocks).
 * Linked with ECL. */
#include "common.cuh"
#include "ecl_cuda.h"
#include "saxpy.cuh"

int main(int argc, char **argv)
{
    ecl_init();
    need_gpu("stamped");
    int n = argc > 1 ? atoi(argv[1]) : 1 << 20;
    int k = argc > 2 ? atoi(argv[2]) : 3;
    int blocks = (n + 255) / 256;
    int room = argc > 3 ? atoi(argv[3]) : blocks;
    float *dx, *dy;
    CK(cudaMalloc(&dx, n * sizeof(float)));
    CK(cudaMalloc(&dy, n * sizeof(float)));
    CK(cudaMemset(dx, 0, n * sizeof(float)));
    CK(cudaMemset(dy, 0, n * sizeof(float)));
    unsigned region = ecl_region_define("saxpy body");
    ecl_cuda_stamps st;
    CK(ecl_cuda_stamps_open(&st, room, 0));
    size_t total = 0;
    for (int j = 0; j < k; j++) {
        saxpy_stamped<<<blocks, 256>>>(n, 2.0f, dx, dy, region, st.log);
        size_t got = 0;
        CK(ecl_cuda_stamps_record(&st, &got));
        total += got;
    }
    ecl_cuda_stamps_close(&st);
    printf("blocks=%d buffer=%d launches=%d stamps=%zu\n", blocks, room, k, total);
    CK(cudaFree(dx));
    CK(cudaFree(dy));
    return total == (size_t)(room < blocks ? room : blocks) * k ? 0 : 1;
}
