/* overhead.cu -- the cost of in-kernel stamps, R = 100 (T2 - T1) / T1
 * (seed 004): T1 a kernel as written, T2 the same with ECL_GPU_ENTER /
 * ECL_GPU_LEAVE / ECL_GPU_END, for saxpy on 1 M elements and a tiled
 * matrix multiply (N x N, default 1024).
 *
 *   overhead [RUNS [N [BLOCK]]]      RUNS rounds (default 9, 7..64), saxpy
 *                                    in blocks of BLOCK threads (default 256)
 *
 * Each round times, with CUDA events, a batch of launches of each kernel
 * (200 saxpy, 10 matrix multiplies), the order rotating from round to
 * round; T2 of a round is compared with the plain kernel's T1 of the same
 * round (R_pair_*) and the minimums and medians with one another (R_of_*).
 * Prints min and median T1, T2 and R per kernel:
 *   saxpy_1M, matmul            ecl_cuda.h's macros as shipped
 *   cand_saxpy_1M_C, cand_matmul_C   the candidates C of
 *                               tests/gpu/stampvariants.cuh (same records)
 *   diag_saxpy_timer            thread 0 reads %globaltimer at start and end,
 *                               stores nothing
 *   diag_saxpy_store            thread 0 stores 32 bytes at the end, reads no
 *                               timer
 *   diag_saxpy_copy             a copy of the plain kernel: R of the method
 *                               itself, its noise (should be about 0)
 *   diag_saxpy_floor            the 1-D shape that reached 1.6-1.7 % on an
 *                               H100 (no bound, no 3-D, a 16-byte record):
 *                               not a candidate, the floor to compare with
 * and a last line "stamps_recorded=N expected=M" (the shipped macros'
 * regions of one multiply, recorded by libecl). */
#include "common.cuh"
#include "ecl_cuda.h"
#include "saxpy.cuh"
#include "matmul.cuh"
#include "stampvariants.cuh"

SV_CANDIDATES(SV_KERNELS)

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

/* the plain kernel again, under another name: what R the method gives
 * for no change */
__global__ void saxpy_copy(int n, float a, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
}

/* the floor: thread 0 of a 1-D block, the address from the argument, all
 * but the LEAVE time at the start, one 16-byte record (enter, smid and the
 * enter time's high bits, leave's low bits, region), no bound: what the
 * shipped macros cannot be (doc/gpu.md, "In-kernel regions") */
__global__ void saxpy_floor(int n, float a, const float *x, float *y, unsigned region,
                            uint4 *log)
{
    unsigned long long e = 0, o = 0;
    unsigned int w1 = 0, w3 = 0;
    if (threadIdx.x == 0) {
        unsigned int s = ecl_gpu_smid(), z = s >> 31;
        o = (unsigned long long)__cvta_generic_to_global(log + blockIdx.x) + z;
        w3 = region + z;
        e = ecl_gpu_globaltimer();
        w1 = (unsigned int)(e >> 32 & 0xffff) | s << 16;
    }
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = a * x[i] + y[i];
    if (threadIdx.x == 0) {
        unsigned long long l = ecl_gpu_globaltimer();
        asm volatile("st.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(o), "r"((unsigned int)e),
                     "r"(w1), "r"((unsigned int)l), "r"(w3)
                     : "memory");
    }
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

/* the kernels timed, in the order of the rotation; saxpy's first is the
 * plain one (T1), then the shipped macros, the diagnostics, the candidates */
#define SV_NAME_(C) #C,
static const char *cand[] = { SV_CANDIDATES(SV_NAME_) };
#define NCAND (int)(sizeof cand / sizeof cand[0])
typedef void (*saxpy_kernel)(int, float, const float *, float *, unsigned, ecl_gpu_log);
typedef void (*mm_kernel)(int, const float *, const float *, float *, unsigned, ecl_gpu_log);
#define SV_SAXPY_(C) saxpy_##C,
#define SV_MM_(C) mm_##C,
static const saxpy_kernel saxpy_cand[] = { SV_CANDIDATES(SV_SAXPY_) };
static const mm_kernel mm_cand[] = { SV_CANDIDATES(SV_MM_) };
enum { S_PLAIN, S_SHIPPED, S_TIMER, S_STORE, S_COPY, S_FLOOR, S_CAND };
#define NSAXPY (S_CAND + NCAND)
#define NMM (2 + NCAND)

int main(int argc, char **argv)
{
    need_gpu("overhead");
    int runs = argc > 1 ? atoi(argv[1]) : 9;
    int mn = argc > 2 ? atoi(argv[2]) : 1024;
    int bs = argc > 3 ? atoi(argv[3]) : 256;
    if (runs < 7)
        runs = 7;
    if (runs > 64)
        runs = 64;
    if (mn < MM_T || mn % MM_T != 0 || bs < 32 || bs > 1024 || bs % 32 != 0) {
        fprintf(stderr, "usage: overhead [RUNS [N (a multiple of %d) [BLOCK (32..1024, a "
                "multiple of 32)]]]\n", MM_T);
        return 2;
    }
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
    int sblocks = (n + bs - 1) / bs;
    dim3 mgrid(mn / MM_T, mn / MM_T), mblock(MM_T, MM_T);
    ecl_cuda_stamps st;
    CK(ecl_cuda_stamps_open(&st, (size_t)mgrid.x * mgrid.y > (size_t)sblocks
                                     ? (size_t)mgrid.x * mgrid.y : (size_t)sblocks, 0));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    static result rsx[NSAXPY], rmm[NMM];
    ecl_gpu_stamp *dlog;
    CK(cudaMalloc(&dlog, (size_t)sblocks * ECL_GPU_MAX_STAMPS * sizeof(ecl_gpu_stamp)));
    for (int r = -1; r < runs; r++) {   /* round -1: each kernel once, not timed */
        int rot = r < 0 ? 0 : r;
        for (int v0 = 0; v0 < NSAXPY; v0++) {
            int v = (v0 + rot) % NSAXPY;
            float ms;
            CK(cudaEventRecord(e0));
            for (int i = 0; i < (r < 0 ? 1 : batch); i++)
                switch (v) {
                case S_PLAIN: saxpy<<<sblocks, bs>>>(n, 2.0f, x, y); break;
                case S_SHIPPED: saxpy_stamped<<<sblocks, bs>>>(n, 2.0f, x, y, rs, st.log); break;
                case S_TIMER: saxpy_timer<<<sblocks, bs>>>(n, 2.0f, x, y); break;
                case S_STORE: saxpy_store<<<sblocks, bs>>>(n, 2.0f, x, y, dlog); break;
                case S_COPY: saxpy_copy<<<sblocks, bs>>>(n, 2.0f, x, y); break;
                case S_FLOOR:
                    saxpy_floor<<<sblocks, bs>>>(n, 2.0f, x, y, rs, (uint4 *)dlog);
                    break;
                default:
                    saxpy_cand[v - S_CAND]<<<sblocks, bs>>>(n, 2.0f, x, y, rs, st.log);
                    break;
                }
            CK(cudaEventRecord(e1));
            CK(cudaEventSynchronize(e1));
            CK(cudaEventElapsedTime(&ms, e0, e1));
            if (r < 0)
                continue;
            double us = ms * 1000.0 / batch;
            if (v == S_PLAIN)
                for (int k = 0; k < NSAXPY; k++)
                    rsx[k].t1[r] = us;
            else
                rsx[v].t2[r] = us;
        }
        for (int v0 = 0; v0 < NMM; v0++) {
            int v = (v0 + rot) % NMM;
            float ms;
            CK(cudaEventRecord(e0));
            for (int i = 0; i < (r < 0 ? 1 : mbatch); i++)
                switch (v) {
                case 0: mm_plain<<<mgrid, mblock>>>(mn, a, b, c); break;
                case 1: mm_stamped<<<mgrid, mblock>>>(mn, a, b, c, rm, st.log); break;
                default: mm_cand[v - 2]<<<mgrid, mblock>>>(mn, a, b, c, rm, st.log); break;
                }
            CK(cudaEventRecord(e1));
            CK(cudaEventSynchronize(e1));
            CK(cudaEventElapsedTime(&ms, e0, e1));
            if (r < 0)
                continue;
            double us = ms * 1000.0 / mbatch;
            if (v == 0)
                for (int k = 0; k < NMM; k++)
                    rmm[k].t1[r] = us;
            else
                rmm[v].t2[r] = us;
        }
    }
    CK(cudaGetLastError());
    /* the shipped macros' regions of one multiply, recorded */
    size_t got = 0;
    CK(ecl_cuda_stamps_record(&st, &got));   /* clears the buffer */
    mm_stamped<<<mgrid, mblock>>>(mn, a, b, c, rm, st.log);
    CK(ecl_cuda_stamps_record(&st, &got));
    ecl_cuda_stamps_close(&st);
    report("saxpy_1M", &rsx[S_SHIPPED], runs);
    report("matmul", &rmm[1], runs);
    report("diag_saxpy_timer", &rsx[S_TIMER], runs);
    report("diag_saxpy_store", &rsx[S_STORE], runs);
    report("diag_saxpy_copy", &rsx[S_COPY], runs);
    report("diag_saxpy_floor", &rsx[S_FLOOR], runs);
    for (int k = 0; k < NCAND; k++) {
        char name[64];
        snprintf(name, sizeof name, "cand_saxpy_1M_%s", cand[k]);
        report(name, &rsx[S_CAND + k], runs);
        snprintf(name, sizeof name, "cand_matmul_%s", cand[k]);
        report(name, &rmm[2 + k], runs);
    }
    CK(cudaFree(dlog));
    printf("saxpy_block=%d stamps_recorded=%zu expected=%u\n", bs, got, mgrid.x * mgrid.y);
    return got == (size_t)mgrid.x * mgrid.y ? 0 : 1;
}
