/* ecl_cuda.h -- ECL timestamps from inside CUDA kernels (doc/gpu.md,
 * "In-kernel regions"). Include it in the .cu file of the kernels (nvcc).
 *
 *   __global__ void k(...)
 *   {
 *       ECL_GPU_BEGIN();                 // the block's stamps (thread 0's registers)
 *       ECL_GPU_ENTER(1);
 *       ... work ...
 *       ECL_GPU_LEAVE(1);
 *       ECL_GPU_END();                   // written out once, at the block's end
 *   }
 *
 *   ecl_cuda_stamps st;
 *   ecl_cuda_stamps_open(&st, blocks, 0);       // device buffer for `blocks` blocks
 *   k<<<blocks, threads>>>(...);
 *   ecl_cuda_stamps_record(&st, 0);             // waits for the kernel, copies, records
 *   ecl_cuda_stamps_close(&st);
 *
 * Ids are ECL region ids (ecl_region_define("name")) or small numbers
 * given names with ecl_cuda_stamps_name. Thread 0 of each block stamps
 * (globaltimer, in ns, and the SM it runs on) into registers, up to
 * ECL_GPU_MAX_STAMPS regions; ECL_GPU_END writes them to global memory
 * once, so a stamp costs a special-register read.
 * ecl_cuda_stamps_record then converts the stamps to ECL's clock (a pair of
 * clocks measured by ecl_cuda_stamps_open) and records them as regions on
 * locations "GPU d SM s lane l" (doc/gpu.md).
 *
 * Keep the compiler from removing the work you time: what a region computes
 * must reach memory (or ECL_GPU_KEEP(value)); a result never stored is dead
 * code that the compiler deletes, and the region then times nothing. */
#ifndef ECL_CUDA_H
#define ECL_CUDA_H

#include <stddef.h>
#include <stdint.h>

#include "ecl.h"

#ifndef ECL_GPU_MAX_STAMPS
#define ECL_GPU_MAX_STAMPS 8          /* regions per block and kernel */
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* One region of one block, as the device writes it (32 bytes). */
typedef struct ecl_gpu_stamp {
    unsigned long long enter, leave;  /* globaltimer, ns; 0: unused */
    unsigned int region;              /* ECL region id; 0: unused */
    unsigned int smid;                /* SM the block ran on */
    unsigned int block;               /* linear block index */
    unsigned int pad;
} ecl_gpu_stamp;

/* libecl: the ECL clock now (ticks); a clock pair of device (globaltimer
 * ns read between the two ECL clock readings); the stamps of a kernel
 * recorded (returns how many). */
uint64_t ecl_gpu_host_ticks(void);
void ecl_gpu_stamps_clock(int device, uint64_t globaltimer_ns, uint64_t ticks_before,
                          uint64_t ticks_after);
size_t ecl_gpu_stamps_record(int device, const void *stamps, size_t n);
/* Bracket ECL's own CUDA calls below: their GPU work is left out of the
 * trace (counted in ECL_GPU_STATS' tool=). */
void ecl_gpu_tool_enter(void);
void ecl_gpu_tool_leave(void);

#ifdef __cplusplus
}
#endif

#ifdef __CUDACC__

__device__ __forceinline__ unsigned long long ecl_gpu_globaltimer(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)::"memory");
    return t;
}

__device__ __forceinline__ unsigned int ecl_gpu_smid(void)
{
    unsigned int s;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
    return s;
}

/* The kernel's stamp buffer in global memory (one per translation unit,
 * set by ecl_cuda_stamps_open). */
static __device__ ecl_gpu_stamp *ecl_gpu_log_;

/* Keeps v alive: the compiler must compute it, though nothing reads it. */
#define ECL_GPU_KEEP(v) asm volatile("" ::"r"((unsigned int)(v)))

#define ECL_GPU_IS_STAMPER_ (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0)
#define ECL_GPU_BLOCK_ (blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z))

/* One record, as two 16-byte stores (o is 32-byte aligned). */
__device__ __forceinline__ void ecl_gpu_put_(ecl_gpu_stamp *o, unsigned long long enter,
                                             unsigned long long leave, unsigned int region,
                                             unsigned int smid, unsigned int block)
{
    ((ulonglong2 *)o)[0] = make_ulonglong2(enter, leave);
    ((uint4 *)o)[1] = make_uint4(region, smid, block, 0);
}

/* Thread 0 of the block stamps into registers (the arrays are indexed by
 * counts the compiler folds to constants, so nothing goes to memory).
 * BEGIN reads the buffer pointer and the SM id at the block's start, where
 * their latency hides behind the block's own loads; END stores each region
 * as 2 x 16 bytes. Measured against the alternatives (a shared-memory
 * buffer, the last warp stamping LEAVE, a store at each LEAVE): doc/gpu.md,
 * "In-kernel regions". */
#define ECL_GPU_BEGIN()                                                                    \
    unsigned long long ecl_gpu_enter_[ECL_GPU_MAX_STAMPS], ecl_gpu_leave_[ECL_GPU_MAX_STAMPS]; \
    unsigned int ecl_gpu_region_[ECL_GPU_MAX_STAMPS];                                      \
    unsigned int ecl_gpu_n_ = 0;                                                           \
    unsigned int ecl_gpu_open_[ECL_GPU_MAX_STAMPS];                                        \
    unsigned int ecl_gpu_depth_ = 0;                                                       \
    ecl_gpu_stamp *ecl_gpu_out_ = 0;                                                       \
    unsigned int ecl_gpu_sm_ = 0;                                                          \
    if (ECL_GPU_IS_STAMPER_) {                                                             \
        ecl_gpu_out_ = ecl_gpu_log_;                                                       \
        ecl_gpu_sm_ = ecl_gpu_smid();                                                      \
    }                                                                                      \
    do {                                                                                   \
    } while (0)

/* Regions nest: LEAVE closes the innermost ENTER (its id is the check). */
#define ECL_GPU_ENTER(id)                                                                  \
    do {                                                                                   \
        if (ecl_gpu_n_ < ECL_GPU_MAX_STAMPS) {                                             \
            if (ECL_GPU_IS_STAMPER_) {                                                     \
                ecl_gpu_enter_[ecl_gpu_n_] = ecl_gpu_globaltimer();                        \
                ecl_gpu_region_[ecl_gpu_n_] = (id);                                        \
            }                                                                              \
            ecl_gpu_open_[ecl_gpu_depth_++] = ecl_gpu_n_++;                                \
        }                                                                                  \
    } while (0)

#define ECL_GPU_LEAVE(id)                                                                  \
    do {                                                                                   \
        if (ecl_gpu_depth_ > 0) {                                                          \
            unsigned int k_ = ecl_gpu_open_[--ecl_gpu_depth_];                             \
            if (ECL_GPU_IS_STAMPER_) {                                                     \
                ecl_gpu_leave_[k_] = ecl_gpu_globaltimer();                                \
                if (ecl_gpu_region_[k_] != (unsigned int)(id))                             \
                    ecl_gpu_region_[k_] = 0;                                               \
            }                                                                              \
        }                                                                                  \
    } while (0)

/* The regions of the block, once, with the SM and block: at its end. Only
 * the entries used are written (the host clears the buffer between
 * kernels), so a block with one region writes 32 bytes; a region still
 * open is written without its id (dropped by the host). */
#define ECL_GPU_END()                                                                      \
    do {                                                                                   \
        if (ECL_GPU_IS_STAMPER_ && ecl_gpu_out_ != 0) {                                    \
            unsigned int b_ = ECL_GPU_BLOCK_;                                              \
            ecl_gpu_stamp *o_ = ecl_gpu_out_ + (size_t)b_ * ECL_GPU_MAX_STAMPS;            \
            for (unsigned int i_ = 0; i_ < ecl_gpu_n_; i_++)                               \
                ecl_gpu_put_(o_ + i_, ecl_gpu_enter_[i_], ecl_gpu_leave_[i_],              \
                             ecl_gpu_depth_ != 0 ? 0 : ecl_gpu_region_[i_], ecl_gpu_sm_, b_); \
        }                                                                                  \
    } while (0)

static __global__ void ecl_gpu_read_timer_(unsigned long long *out)
{
    *out = ecl_gpu_globaltimer();
}

/* Host side. */
typedef struct ecl_cuda_stamps {
    ecl_gpu_stamp *dev;               /* blocks * ECL_GPU_MAX_STAMPS entries */
    ecl_gpu_stamp *host;
    size_t blocks;
    int device;
    cudaStream_t stream;
} ecl_cuda_stamps;

/* Measures a clock pair of the current device: globaltimer read by a
 * one-thread kernel between two ECL clock readings, the narrowest of
 * `tries` (its error is half that window; doc/gpu.md). */
static inline cudaError_t ecl_cuda_stamps_calibrate(int tries)
{
    int device = 0;
    cudaGetDevice(&device);
    unsigned long long *d = 0, h = 0;
    ecl_gpu_tool_enter();
    cudaError_t e = cudaMalloc((void **)&d, sizeof *d);
    if (e != cudaSuccess) {
        ecl_gpu_tool_leave();
        return e;
    }
    uint64_t best = UINT64_MAX, b0 = 0, b1 = 0, g = 0;
    for (int i = 0; i < tries + 1; i++) {
        uint64_t t0 = ecl_gpu_host_ticks();
        ecl_gpu_read_timer_<<<1, 1>>>(d);
        e = cudaDeviceSynchronize();
        uint64_t t1 = ecl_gpu_host_ticks();
        if (e != cudaSuccess)
            break;
        cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost);
        if (i > 0 && t1 - t0 < best) {   /* the first run loads the module */
            best = t1 - t0;
            b0 = t0;
            b1 = t1;
            g = h;
        }
    }
    cudaFree(d);
    ecl_gpu_tool_leave();
    if (e == cudaSuccess && best != UINT64_MAX)
        ecl_gpu_stamps_clock(device, g, b0, b1);
    return e;
}

/* Allocates the buffer of a kernel of `blocks` blocks on stream, points the
 * kernels of this file at it and measures the clock pair (once per device). */
static inline cudaError_t ecl_cuda_stamps_open(ecl_cuda_stamps *st, size_t blocks,
                                               cudaStream_t stream)
{
    static int calibrated[64];
    st->blocks = blocks;
    st->stream = stream;
    st->device = 0;
    st->dev = 0;
    st->host = 0;
    cudaGetDevice(&st->device);
    size_t bytes = blocks * ECL_GPU_MAX_STAMPS * sizeof(ecl_gpu_stamp);
    st->host = (ecl_gpu_stamp *)malloc(bytes);
    if (st->host == 0)
        return cudaErrorMemoryAllocation;
    ecl_gpu_tool_enter();
    cudaError_t e = cudaMalloc((void **)&st->dev, bytes);
    if (e == cudaSuccess)
        e = cudaMemset(st->dev, 0, bytes);
    if (e == cudaSuccess)
        e = cudaMemcpyToSymbol(ecl_gpu_log_, &st->dev, sizeof st->dev);
    ecl_gpu_tool_leave();
    if (e == cudaSuccess && st->device >= 0 && st->device < 64 && !calibrated[st->device]) {
        e = ecl_cuda_stamps_calibrate(9);
        calibrated[st->device] = e == cudaSuccess;
    }
    return e;
}

/* After the kernel(s): waits for the stream, copies the stamps back and
 * records them; clears the buffer for the next kernel. *recorded (may be
 * NULL): how many regions were recorded. */
static inline cudaError_t ecl_cuda_stamps_record(ecl_cuda_stamps *st, size_t *recorded)
{
    size_t bytes = st->blocks * ECL_GPU_MAX_STAMPS * sizeof(ecl_gpu_stamp);
    ecl_gpu_tool_enter();
    cudaError_t e = cudaStreamSynchronize(st->stream);
    if (e == cudaSuccess)
        e = cudaMemcpy(st->host, st->dev, bytes, cudaMemcpyDeviceToHost);
    size_t n = 0;
    if (e == cudaSuccess) {
        n = ecl_gpu_stamps_record(st->device, st->host, st->blocks * ECL_GPU_MAX_STAMPS);
        e = cudaMemset(st->dev, 0, bytes);
    }
    ecl_gpu_tool_leave();
    if (recorded != 0)
        *recorded = n;
    return e;
}

static inline void ecl_cuda_stamps_close(ecl_cuda_stamps *st)
{
    ecl_gpu_stamp *none = 0;
    ecl_gpu_tool_enter();
    cudaMemcpyToSymbol(ecl_gpu_log_, &none, sizeof none);
    cudaFree(st->dev);
    ecl_gpu_tool_leave();
    free(st->host);
    st->dev = 0;
    st->host = 0;
}

#endif /* __CUDACC__ */
#endif /* ECL_CUDA_H */
