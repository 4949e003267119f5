/* ecl_cuda.h -- ECL timestamps from inside CUDA kernels (doc/gpu.md,
 * "In-kernel regions"). Include it in the .cu file of the kernels (nvcc).
 *
 *   __global__ void k(..., ecl_gpu_log log)
 *   {
 *       ECL_GPU_BEGIN(log);              // the block's stamps (thread 0's registers)
 *       ECL_GPU_ENTER(1);
 *       ... work ...
 *       ECL_GPU_LEAVE(1);
 *       ECL_GPU_END();                   // written out once, at the block's end
 *   }
 *
 *   ecl_cuda_stamps st;
 *   ecl_cuda_stamps_open(&st, blocks, 0);       // device buffer for `blocks` blocks
 *   k<<<blocks, threads>>>(..., st.log);        // the buffer, as a kernel argument
 *   ecl_cuda_stamps_record(&st, 0);             // waits for the kernel, copies, records
 *   ecl_cuda_stamps_close(&st);
 *
 * Ids are ECL region ids (ecl_region_define("name")) or small numbers
 * given names with ecl_cuda_stamps_name. Thread 0 of each block stamps
 * (globaltimer, in ns, and the SM it runs on) into registers, up to
 * ECL_GPU_MAX_STAMPS regions; ECL_GPU_END writes them to global memory
 * once, so a stamp costs a special-register read. A null log (an
 * ecl_gpu_log of zeros) stamps nothing. The buffer travels as a kernel
 * argument, not through a __device__ variable: each launch may have its
 * own, and the kernel reads nothing from memory to stamp (doc/gpu.md says
 * what each alternative cost).
 * ecl_cuda_stamps_record then converts the stamps to ECL's clock (a pair of
 * clocks measured by ecl_cuda_stamps_open) and records them as regions on
 * locations "GPU d SM s lane l" (doc/gpu.md); regions it cannot record
 * (left open, blocks beyond the buffer) are counted and said on stderr.
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
    unsigned int region;              /* ECL_GPU_ENTER's id; 0: unused */
    unsigned int smid;                /* SM the block ran on; with ECL_GPU_BEYOND: see
                                         ecl_gpu_log */
    unsigned int block;               /* linear block index */
    unsigned int closed;              /* 1: closed by ECL_GPU_LEAVE; 0: left open */
} ecl_gpu_stamp;

#define ECL_GPU_BEYOND 0x80000000u

/* A kernel's stamp buffer, passed by value as a kernel argument: room for
 * `blocks` blocks of ECL_GPU_MAX_STAMPS regions each, then one block's more
 * that the blocks beyond them write over one another: their entries carry
 * ECL_GPU_BEYOND in smid and, as block, how many blocks of the grid were
 * beyond the buffer (the host counts and says them). A log of zeros stamps
 * nothing. */
typedef struct ecl_gpu_log {
    ecl_gpu_stamp *stamps;
    unsigned int blocks;
} ecl_gpu_log;

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

/* Keeps v alive: the compiler must compute it, though nothing reads it. */
#define ECL_GPU_KEEP(v) asm volatile("" ::"r"((unsigned int)(v)))

#define ECL_GPU_IS_STAMPER_ (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0)
#define ECL_GPU_BLOCK_ (blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z))
/* One record, as two 16-byte global stores (o is 32-byte aligned). */
__device__ __forceinline__ void ecl_gpu_put_(ecl_gpu_stamp *o, unsigned long long enter,
                                             unsigned long long leave, unsigned int region,
                                             unsigned int smid, unsigned int block,
                                             unsigned int closed)
{
    size_t g = __cvta_generic_to_global(o);
    asm volatile("st.global.v2.u64 [%0], {%1, %2};" ::"l"(g), "l"(enter), "l"(leave)
                 : "memory");
    asm volatile("st.global.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(g + 16), "r"(region),
                 "r"(smid), "r"(block), "r"(closed)
                 : "memory");
}

/* Thread 0 of the block stamps into registers (the arrays are indexed by
 * counts the compiler folds to constants, so nothing goes to memory). What
 * costs is what the stamping thread does after the block's work, and what
 * makes its warp wait before the work: BEGIN computes, without a branch,
 * everything the record needs but the LEAVE time (the record's address,
 * SM, block, region ids), so that END is a timer read and two stores.
 * ecl_gpu_z_ is 0 (SM ids are below 2^31) but the compiler cannot know it:
 * adding it to those values keeps the compiler from recomputing them from
 * the kernel's arguments at the block's end, which costs a constant-bank
 * load there. A block beyond the buffer writes into its last block's room
 * (see ecl_gpu_log). Measured against the alternatives (a shared-memory
 * buffer, the buffer in a __device__ or __constant__ variable, the last
 * warp stamping LEAVE, a store at each LEAVE, a check of LEAVE's id, BEGIN's
 * work done by every thread, 16-byte records): doc/gpu.md, "In-kernel
 * regions". */
#define ECL_GPU_BEGIN(log)                                                                 \
    unsigned long long ecl_gpu_enter_[ECL_GPU_MAX_STAMPS], ecl_gpu_leave_[ECL_GPU_MAX_STAMPS]; \
    unsigned int ecl_gpu_region_[ECL_GPU_MAX_STAMPS], ecl_gpu_closed_[ECL_GPU_MAX_STAMPS]; \
    unsigned int ecl_gpu_n_ = 0;                                                           \
    unsigned int ecl_gpu_open_[ECL_GPU_MAX_STAMPS];                                        \
    unsigned int ecl_gpu_depth_ = 0;                                                       \
    ecl_gpu_stamp *ecl_gpu_out_ = 0;                                                       \
    unsigned int ecl_gpu_sm_ = 0, ecl_gpu_z_ = 0, ecl_gpu_b_ = 0;                          \
    if (ECL_GPU_IS_STAMPER_) {                                                             \
        const ecl_gpu_log ecl_gpu_l_ = (log);                                              \
        unsigned int s_ = ecl_gpu_smid();                                                  \
        ecl_gpu_z_ = s_ >> 31;                                                             \
        unsigned int b_ = ECL_GPU_BLOCK_ + ecl_gpu_z_;                                     \
        int over_ = b_ >= ecl_gpu_l_.blocks;                                               \
        ecl_gpu_out_ = ecl_gpu_l_.stamps + ecl_gpu_z_                                      \
                       + (size_t)(over_ ? ecl_gpu_l_.blocks : b_) * ECL_GPU_MAX_STAMPS;    \
        ecl_gpu_b_ = over_ ? gridDim.x * gridDim.y * gridDim.z - ecl_gpu_l_.blocks : b_;   \
        ecl_gpu_sm_ = over_ ? s_ | ECL_GPU_BEYOND : s_;                                    \
    }                                                                                      \
    do {                                                                                   \
    } while (0)

/* Regions nest: LEAVE closes the innermost ENTER. Its id says which; it is
 * not checked on the device (that costs a constant-bank load at the block's
 * end: doc/gpu.md). */
#define ECL_GPU_ENTER(id)                                                                  \
    do {                                                                                   \
        if (ecl_gpu_n_ < ECL_GPU_MAX_STAMPS) {                                             \
            if (ECL_GPU_IS_STAMPER_) {                                                     \
                ecl_gpu_region_[ecl_gpu_n_] = (unsigned int)(id) + ecl_gpu_z_;             \
                ecl_gpu_closed_[ecl_gpu_n_] = 0;                                           \
                ecl_gpu_leave_[ecl_gpu_n_] = 0;                                            \
                ecl_gpu_enter_[ecl_gpu_n_] = ecl_gpu_globaltimer();                        \
            }                                                                              \
            ecl_gpu_open_[ecl_gpu_depth_++] = ecl_gpu_n_++;                                \
        }                                                                                  \
    } while (0)

#define ECL_GPU_LEAVE(id)                                                                  \
    do {                                                                                   \
        (void)sizeof(id);                                                                  \
        if (ecl_gpu_depth_ > 0) {                                                          \
            unsigned int k_ = ecl_gpu_open_[--ecl_gpu_depth_];                             \
            if (ECL_GPU_IS_STAMPER_) {                                                     \
                ecl_gpu_leave_[k_] = ecl_gpu_globaltimer();                                \
                ecl_gpu_closed_[k_] = 1;                                                   \
            }                                                                              \
        }                                                                                  \
    } while (0)

/* The regions of the block, once, with the SM and block: at its end. Only
 * the entries used are written (the host clears the buffer between
 * kernels), so a block with one region writes 32 bytes; a region still
 * open is written with closed 0 (counted and dropped by the host). */
#define ECL_GPU_END()                                                                      \
    do {                                                                                   \
        if (ECL_GPU_IS_STAMPER_ && ecl_gpu_out_ != 0) {                                    \
            for (unsigned int i_ = 0; i_ < ecl_gpu_n_; i_++)                               \
                ecl_gpu_put_(ecl_gpu_out_ + i_, ecl_gpu_enter_[i_], ecl_gpu_leave_[i_],    \
                             ecl_gpu_region_[i_], ecl_gpu_sm_, ecl_gpu_b_,                 \
                             ecl_gpu_closed_[i_]);                                         \
        }                                                                                  \
    } while (0)

static __global__ void ecl_gpu_read_timer_(unsigned long long *out)
{
    *out = ecl_gpu_globaltimer();
}

/* Host side. */
typedef struct ecl_cuda_stamps {
    ecl_gpu_log log;                  /* the kernel's argument: log.stamps holds
                                         (blocks + 1) * ECL_GPU_MAX_STAMPS entries */
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

/* Allocates the buffer of a kernel of `blocks` blocks on stream (st->log,
 * the kernel's argument; blocks beyond them are counted, not written over
 * memory) and measures the clock pair (once per device). */
static inline cudaError_t ecl_cuda_stamps_open(ecl_cuda_stamps *st, size_t blocks,
                                               cudaStream_t stream)
{
    static int calibrated[64];
    st->blocks = blocks;
    st->stream = stream;
    st->device = 0;
    st->log.stamps = 0;
    st->log.blocks = 0;
    st->host = 0;
    if (blocks == 0 || blocks >= ECL_GPU_BEYOND)
        return cudaErrorInvalidValue;
    cudaGetDevice(&st->device);
    size_t bytes = (blocks + 1) * ECL_GPU_MAX_STAMPS * sizeof(ecl_gpu_stamp);
    st->host = (ecl_gpu_stamp *)malloc(bytes);
    if (st->host == 0)
        return cudaErrorMemoryAllocation;
    ecl_gpu_tool_enter();
    cudaError_t e = cudaMalloc((void **)&st->log.stamps, bytes);
    if (e == cudaSuccess)
        e = cudaMemset(st->log.stamps, 0, bytes);
    ecl_gpu_tool_leave();
    if (e == cudaSuccess)
        st->log.blocks = (unsigned int)blocks;
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
    size_t n = 0, entries = (st->blocks + 1) * ECL_GPU_MAX_STAMPS;
    size_t bytes = entries * sizeof(ecl_gpu_stamp);
    cudaError_t e = cudaErrorInvalidValue;
    if (st->log.stamps != 0) {
        ecl_gpu_tool_enter();
        e = cudaStreamSynchronize(st->stream);
        if (e == cudaSuccess)
            e = cudaMemcpy(st->host, st->log.stamps, bytes, cudaMemcpyDeviceToHost);
        if (e == cudaSuccess) {
            n = ecl_gpu_stamps_record(st->device, st->host, entries);
            e = cudaMemset(st->log.stamps, 0, bytes);
        }
        ecl_gpu_tool_leave();
    }
    if (recorded != 0)
        *recorded = n;
    return e;
}

static inline void ecl_cuda_stamps_close(ecl_cuda_stamps *st)
{
    ecl_gpu_tool_enter();
    cudaFree(st->log.stamps);
    ecl_gpu_tool_leave();
    free(st->host);
    st->log.stamps = 0;
    st->log.blocks = 0;
    st->host = 0;
}

#endif /* __CUDACC__ */
#endif /* ECL_CUDA_H */
