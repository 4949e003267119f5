/* overhead.cu -- the cost of in-kernel stamps, R = 100 (T2 - T1) / T1
 * (seed 004): T1 a kernel as written, T2 the same with ECL_GPU_ENTER /
 * ECL_GPU_LEAVE / ECL_GPU_END, for saxpy on 1 M elements and a tiled
 * matrix multiply (N x N, default 1024). Each run times a batch of launches
 * with CUDA events; plain and stamped runs alternate, the order rotating
 * (RUNS each, default 9, at least 7). Prints min and median T1, T2 and R
 * per kernel. Two saxpy kernels show where the cost goes: "saxpy_timer"
 * (thread 0 reads %globaltimer at start and end, stores nothing) and
 * "saxpy_store" (thread 0 stores 32 bytes at the end, reads no timer). */
#include "common.cuh"
#include "ecl_cuda.h"
#include "saxpy.cuh"
#include "matmul.cuh"

/* where the cost goes: the timer reads alone, the record store alone */
__global__ void saxpy_timer(int n, float a, const float *x, float *y)
{
    unsigned long long t0 = 0;
    if (threadIdx.x == 0)
        t0 = ecl_gpu_globaltimer();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
    if (threadIdx.x == 0)
        ECL_GPU_KEEP(ecl_gpu_globaltimer() - t0);
}

__global__ void saxpy_store(int n, float a, const float *x, float *y, ecl_gpu_stamp *log)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
    if (threadIdx.x == 0)
        ecl_gpu_put_(log + blockIdx.x * ECL_GPU_MAX_STAMPS, 1, 2, 3, 4, blockIdx.x, 3);
}

typedef struct result {
    double t1[64], t2[64];
} result;

static void report(const char *name, result *r, int runs)
{
    double r_pairs[64];
    for (int i = 0; i < runs; i++)
        r_pairs[i] = 100.0 * (r->t2[i] - r->t1[i]) / r->t1[i];
    qsort(r->t1, runs, sizeof(double), cmp_double);
    qsort(r->t2, runs, sizeof(double), cmp_double);
    qsort(r_pairs, runs, sizeof(double), cmp_double);
    double m1 = r->t1[runs / 2], m2 = r->t2[runs / 2];
    printf("%s runs=%d T1_min_us=%.3f T1_median_us=%.3f T2_min_us=%.3f T2_median_us=%.3f "
           "R_of_mins=%.2f R_of_medians=%.2f R_pair_min=%.2f R_pair_median=%.2f\n",
           name, runs, r->t1[0], m1, r->t2[0], m2, 100.0 * (r->t2[0] - r->t1[0]) / r->t1[0],
           100.0 * (m2 - m1) / m1, r_pairs[0], r_pairs[runs / 2]);
}

int main(int argc, char **argv)
{
    need_gpu("overhead");
    int runs = argc > 1 ? atoi(argv[1]) : 9;
    int mn = argc > 2 ? atoi(argv[2]) : 1024;
    if (runs < 7)
        runs = 7;
    if (runs > 64)
        runs = 64;
    const int n = 1 << 20, batch = 200, mbatch = 10;
    float *x, *y, *a, *b, *c;
    CK(cudaMalloc(&x, n * sizeof(float)));
    CK(cudaMalloc(&y, n * sizeof(float)));
    CK(cudaMemset(x, 0, n * sizeof(float)));
    CK(cudaMemset(y, 0, n * sizeof(float)));
    size_t mb = (size_t)mn * mn * sizeof(float);
    CK(cudaMalloc(&a, mb));
    CK(cudaMalloc(&b, mb));
    CK(cudaMalloc(&c, mb));
    CK(cudaMemset(a, 0, mb));
    CK(cudaMemset(b, 0, mb));
    unsigned rs = ecl_region_define("saxpy body"), rm = ecl_region_define("matmul body");
    int sblocks = (n + 255) / 256;
    dim3 mgrid(mn / MM_T, mn / MM_T), mblock(MM_T, MM_T);
    ecl_cuda_stamps st;
    CK(ecl_cuda_stamps_open(&st, (size_t)mgrid.x * mgrid.y > (size_t)sblocks
                                     ? (size_t)mgrid.x * mgrid.y : (size_t)sblocks, 0));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    result rsx, rmm, rtm, rst;
    ecl_gpu_stamp *dlog;
    CK(cudaMalloc(&dlog, (size_t)sblocks * ECL_GPU_MAX_STAMPS * sizeof(ecl_gpu_stamp)));
    /* warm-up: each kernel once */
    saxpy<<<sblocks, 256>>>(n, 2.0f, x, y);
    saxpy_stamped<<<sblocks, 256>>>(n, 2.0f, x, y, rs, st.log);
    mm_plain<<<mgrid, mblock>>>(mn, a, b, c);
    mm_stamped<<<mgrid, mblock>>>(mn, a, b, c, rm, st.log);
    saxpy_timer<<<sblocks, 256>>>(n, 2.0f, x, y);
    saxpy_store<<<sblocks, 256>>>(n, 2.0f, x, y, dlog);
    CK(cudaDeviceSynchronize());
    for (int r = 0; r < runs; r++) {
        /* saxpy: plain, stamped, timer only, store only, order rotating */
        for (int v0 = 0; v0 < 4; v0++) {
            int v = (v0 + r) % 4;
            float ms;
            CK(cudaEventRecord(e0));
            for (int i = 0; i < batch; i++)
                switch (v) {
                case 0: saxpy<<<sblocks, 256>>>(n, 2.0f, x, y); break;
                case 1: saxpy_stamped<<<sblocks, 256>>>(n, 2.0f, x, y, rs, st.log); break;
                case 2: saxpy_timer<<<sblocks, 256>>>(n, 2.0f, x, y); break;
                default: saxpy_store<<<sblocks, 256>>>(n, 2.0f, x, y, dlog); break;
                }
            CK(cudaEventRecord(e1));
            CK(cudaEventSynchronize(e1));
            CK(cudaEventElapsedTime(&ms, e0, e1));
            double us = ms * 1000.0 / batch;
            if (v == 0)
                rsx.t1[r] = rtm.t1[r] = rst.t1[r] = us;
            else
                (v == 1 ? rsx : v == 2 ? rtm : rst).t2[r] = us;
        }
        for (int v0 = 0; v0 < 2; v0++) {
            int stamped = (v0 + r) % 2;
            float ms;
            CK(cudaEventRecord(e0));
            for (int i = 0; i < mbatch; i++)
                if (stamped)
                    mm_stamped<<<mgrid, mblock>>>(mn, a, b, c, rm, st.log);
                else
                    mm_plain<<<mgrid, mblock>>>(mn, a, b, c);
            CK(cudaEventRecord(e1));
            CK(cudaEventSynchronize(e1));
            CK(cudaEventElapsedTime(&ms, e0, e1));
            (stamped ? rmm.t2 : rmm.t1)[r] = ms * 1000.0 / mbatch;
        }
    }
    CK(cudaGetLastError());
    size_t got = 0;
    CK(ecl_cuda_stamps_record(&st, &got));   /* the last matmul's regions */
    ecl_cuda_stamps_close(&st);
    report("saxpy_1M", &rsx, runs);
    report("matmul", &rmm, runs);
    report("diag_saxpy_timer", &rtm, runs);
    report("diag_saxpy_store", &rst, runs);
    CK(cudaFree(dlog));
    printf("stamps_recorded=%zu expected=%u\n", got, mgrid.x * mgrid.y);
    return 0;
}
