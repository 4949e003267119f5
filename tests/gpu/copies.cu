/* copies.cu -- copies in both directions: H host-to-device copies of B
 * bytes (default 5 x 8 MiB) from pinned memory, then D device-to-host
 * (default 3), one memset; linked with ECL. */
#include "common.cuh"
#include "ecl.h"

int main(int argc, char **argv)
{
    ecl_init();
    need_gpu("copies");
    int h = argc > 1 ? atoi(argv[1]) : 5;
    int d = argc > 2 ? atoi(argv[2]) : 3;
    size_t b = argc > 3 ? (size_t)atoll(argv[3]) : (size_t)8 << 20;
    char *host, *dev;
    CK(cudaMallocHost(&host, b));
    CK(cudaMalloc(&dev, b));
    memset(host, 1, b);
    for (int i = 0; i < h; i++)
        CK(cudaMemcpy(dev, host, b, cudaMemcpyHostToDevice));
    CK(cudaMemset(dev, 0, b));
    for (int i = 0; i < d; i++)
        CK(cudaMemcpy(host, dev, b, cudaMemcpyDeviceToHost));
    printf("htod=%d dtoh=%d bytes=%zu memsets=1 first=%d\n", h, d, b, host[0]);
    CK(cudaFree(dev));
    CK(cudaFreeHost(host));
    return host == NULL;
}
