/* stampvariants.cuh -- candidate in-kernel stamp macros (issue 23), for
 * tests only: nothing here ships until a GPU run has measured it
 * (tests/gpu/overhead) and checked it (tests/gpu/stampcheck).
 *
 * Each candidate CAND has the four macros of ecl_cuda.h, SV_CAND_BEGIN(log),
 * SV_CAND_ENTER(id), SV_CAND_LEAVE(id), SV_CAND_END(), with ecl_cuda.h's
 * semantics: the same ecl_gpu_log argument, the same 32-byte ecl_gpu_stamp
 * records at the same places (block b's regions from entry
 * b * ECL_GPU_MAX_STAMPS, blocks beyond the buffer over one another in the
 * room after it, ECL_GPU_BEYOND in smid and the count of blocks beyond as
 * block), thread (0,0,0) stamping, 3-D grids and blocks, nested regions up
 * to ECL_GPU_MAX_STAMPS, a log of zeros stamping nothing. So libecl
 * (ecl_gpu_stamps_record) reads their buffers unchanged. What differs is
 * how BEGIN and END are compiled:
 *
 *   pred     BEGIN's block-wide values (linear block, its slot clamped with
 *            min(), the count of blocks beyond) computed by every thread,
 *            from what is the same in the whole block; only the
 *            special-register reads (%smid, %globaltimer) and END's stores
 *            are thread 0's, as predicated instructions (inline PTX "@p"),
 *            so that there is no branch at all.
 *   asm      all of BEGIN for thread 0 as one block of predicated PTX (its
 *            %smid read, the bound, the count of blocks beyond; %ctaid.y/z
 *            read only where gridDim.y or .z is not 1): no branch, and only
 *            thread 0 does the work; warp 0's other threads and the other
 *            warps issue it predicated off. The stamping thread is found
 *            from %tid.x | %tid.y | %tid.z, read by every thread.
 *   asm1d    asm, and %tid.y/z read only where blockDim.y or .z is not 1
 *            (predicated on values the same for the whole grid): a 1-D
 *            launch reads only %tid.x and %ctaid.x, which the kernel reads
 *            anyway.
 *   split    asm, and ENTER writes the record's second half (region, SM,
 *            block, closed = 1) at once, so that END is the LEAVE timer
 *            read and ONE 16-byte store (enter, leave) per region. A region
 *            left open is then written with closed 1 and leave 0 where
 *            ecl_cuda.h writes closed 0 and leave 0: libecl counts both as
 *            open (it drops an entry with closed == 0 or leave == 0).
 *   split1d  split with asm1d's BEGIN.
 *
 * All keep the record's address, SM and block in registers from BEGIN
 * on, as opaque values (the output of an asm statement) that the compiler
 * cannot recompute from the kernel's arguments at the block's end. */
#ifndef TESTS_GPU_STAMPVARIANTS_CUH
#define TESTS_GPU_STAMPVARIANTS_CUH

#include "ecl_cuda.h"

static_assert(ECL_GPU_BEYOND == 0x80000000u, "sv_begin_asm_ writes ECL_GPU_BEYOND as 0x80000000");

/* thread 0's registers, as in ecl_cuda.h; sv_on_ is 1 in the stamping
 * thread of a block with a log, 0 elsewhere: the predicate of every stamp;
 * sv_out_ is the record's global address where sv_on_ is 1 */
#define SV_STATE_                                                                          \
    unsigned long long sv_enter_[ECL_GPU_MAX_STAMPS], sv_leave_[ECL_GPU_MAX_STAMPS];       \
    unsigned int sv_region_[ECL_GPU_MAX_STAMPS], sv_closed_[ECL_GPU_MAX_STAMPS];           \
    unsigned int sv_open_[ECL_GPU_MAX_STAMPS];                                             \
    unsigned int sv_n_ = 0, sv_depth_ = 0;                                                 \
    unsigned long long sv_out_ = 0;                                                        \
    unsigned int sv_on_ = 0, sv_sm_ = 0, sv_b_ = 0

/* v, as a value the compiler must keep (it cannot recompute it later) */
#define SV_OPAQUE64_(v) asm("" : "+l"(v))
#define SV_OPAQUE32_(v) asm("" : "+r"(v))

/* %globaltimer where p != 0: a predicated read, no branch */
__device__ __forceinline__ unsigned long long sv_timer_if_(unsigned int p)
{
    unsigned long long t = 0;
    asm volatile("{\n\t.reg .pred q;\n\tsetp.ne.u32 q, %1, 0;\n\t"
                 "@q mov.u64 %0, %%globaltimer;\n\t}"
                 : "+l"(t)
                 : "r"(p)
                 : "memory");
    return t;
}

/* %smid where p != 0 */
__device__ __forceinline__ unsigned int sv_smid_if_(unsigned int p)
{
    unsigned int s = 0;
    asm volatile("{\n\t.reg .pred q;\n\tsetp.ne.u32 q, %1, 0;\n\t@q mov.u32 %0, %%smid;\n\t}"
                 : "+r"(s)
                 : "r"(p));
    return s;
}

/* the whole record at global address o where p != 0: two 16-byte stores */
__device__ __forceinline__ void sv_put_if_(unsigned int p, unsigned long long o,
                                           unsigned long long enter, unsigned long long leave,
                                           unsigned int region, unsigned int smid,
                                           unsigned int block, unsigned int closed)
{
    asm volatile("{\n\t.reg .pred q;\n\tsetp.ne.u32 q, %0, 0;\n\t"
                 "@q st.global.v2.u64 [%1], {%2, %3};\n\t"
                 "@q st.global.v4.u32 [%1+16], {%4, %5, %6, %7};\n\t}" ::"r"(p),
                 "l"(o), "l"(enter), "l"(leave), "r"(region), "r"(smid), "r"(block),
                 "r"(closed)
                 : "memory");
}

/* the record's first half (enter, leave) where p != 0: one 16-byte store */
__device__ __forceinline__ void sv_put_times_if_(unsigned int p, unsigned long long o,
                                                 unsigned long long enter,
                                                 unsigned long long leave)
{
    asm volatile("{\n\t.reg .pred q;\n\tsetp.ne.u32 q, %0, 0;\n\t"
                 "@q st.global.v2.u64 [%1], {%2, %3};\n\t}" ::"r"(p),
                 "l"(o), "l"(enter), "l"(leave)
                 : "memory");
}

/* the record's second half (region, smid, block, closed) where p != 0 */
__device__ __forceinline__ void sv_put_ids_if_(unsigned int p, unsigned long long o,
                                               unsigned int region, unsigned int smid,
                                               unsigned int block, unsigned int closed)
{
    asm volatile("{\n\t.reg .pred q;\n\tsetp.ne.u32 q, %0, 0;\n\t"
                 "@q st.global.v4.u32 [%1+16], {%2, %3, %4, %5};\n\t}" ::"r"(p),
                 "l"(o), "r"(region), "r"(smid), "r"(block), "r"(closed)
                 : "memory");
}

/* ---- pred: block-wide values in every thread, thread 0's part predicated ---- */
#define SV_pred_BEGIN(log)                                                                 \
    SV_STATE_;                                                                             \
    {                                                                                      \
        const ecl_gpu_log l_ = (log);                                                      \
        unsigned int b_ = ECL_GPU_BLOCK_;                                                  \
        unsigned int over_ = b_ >= l_.blocks;                                              \
        unsigned int slot_ = over_ ? l_.blocks : b_;                                       \
        sv_b_ = over_ ? gridDim.x * gridDim.y * gridDim.z - l_.blocks : b_;                \
        unsigned long long o_ = (unsigned long long)__cvta_generic_to_global(              \
            l_.stamps + (size_t)slot_ * ECL_GPU_MAX_STAMPS);                               \
        sv_on_ = ECL_GPU_IS_STAMPER_ && l_.stamps != 0;                                    \
        SV_OPAQUE32_(sv_on_);                                                              \
        sv_out_ = o_;                                                                      \
        SV_OPAQUE64_(sv_out_);                                                             \
        sv_sm_ = sv_smid_if_(sv_on_) | (over_ ? ECL_GPU_BEYOND : 0u);                      \
        SV_OPAQUE32_(sv_sm_);                                                              \
        SV_OPAQUE32_(sv_b_);                                                               \
    }                                                                                      \
    do {                                                                                   \
    } while (0)

/* ENTER, LEAVE and END of pred, asm and asm1d: a predicated timer read per
 * stamp, the region id kept in a register, two predicated stores a region */
#define SV_ENTER_(id)                                                                      \
    do {                                                                                   \
        if (sv_n_ < ECL_GPU_MAX_STAMPS) {                                                  \
            unsigned int r_ = (unsigned int)(id);                                          \
            SV_OPAQUE32_(r_);                                                              \
            sv_region_[sv_n_] = r_;                                                        \
            sv_closed_[sv_n_] = 0;                                                         \
            sv_leave_[sv_n_] = 0;                                                          \
            sv_enter_[sv_n_] = sv_timer_if_(sv_on_);                                      \
            sv_open_[sv_depth_++] = sv_n_++;                                               \
        }                                                                                  \
    } while (0)

#define SV_LEAVE_(id)                                                                      \
    do {                                                                                   \
        (void)sizeof(id);                                                                  \
        if (sv_depth_ > 0) {                                                               \
            unsigned int k_ = sv_open_[--sv_depth_];                                       \
            sv_leave_[k_] = sv_timer_if_(sv_on_);                                         \
            sv_closed_[k_] = 1;                                                            \
        }                                                                                  \
    } while (0)

#define SV_END_()                                                                          \
    do {                                                                                   \
        for (unsigned int i_ = 0; i_ < sv_n_; i_++)                                        \
            sv_put_if_(sv_on_, sv_out_ + i_ * sizeof(ecl_gpu_stamp), sv_enter_[i_],       \
                       sv_leave_[i_], sv_region_[i_], sv_sm_, sv_b_, sv_closed_[i_]);      \
    } while (0)

#define SV_pred_ENTER(id) SV_ENTER_(id)
#define SV_pred_LEAVE(id) SV_LEAVE_(id)
#define SV_pred_END() SV_END_()

/* ---- asm: thread 0's BEGIN as one block of predicated PTX ----
 * In: the stamper test's operand (0 in the stamping thread), grid3d != 0
 * where gridDim.y or .z is not 1 (only then are %ctaid.y and .z read, else
 * taken as 0), %ctaid.x, %nctaid.x and .y, the grid's block count, the log.
 * Out: *on, 1 where the thread stamps and the log is not null, and there
 * the record's global address, the SM with ECL_GPU_BEYOND when the block is
 * beyond the buffer, the block index or the count of blocks beyond. */
__device__ __forceinline__ void sv_begin_asm_(unsigned int tid, unsigned int grid3d,
                                              unsigned int bx, unsigned int gx,
                                              unsigned int gy, unsigned int grid,
                                              const ecl_gpu_log l, unsigned int *on,
                                              unsigned long long *out, unsigned int *sm,
                                              unsigned int *b)
{
    unsigned long long o = 0;
    unsigned int s = 0, k = 0, f = 0;
    asm volatile("{\n\t"
                 ".reg .pred p, d, o;\n\t"
                 ".reg .u32 cy, cz, m;\n\t"
                 ".reg .u64 w;\n\t"
                 "setp.eq.u32 p, %4, 0;\n\t"
                 "setp.ne.and.u64 p, %10, 0, p;\n\t"
                 "selp.u32 %3, 1, 0, p;\n\t"
                 "@p mov.u32 %1, %%smid;\n\t"
                 "mov.u32 %2, %6;\n\t"
                 "setp.ne.and.u32 d, %5, 0, p;\n\t"
                 "@d mov.u32 cy, %%ctaid.y;\n\t"
                 "@d mov.u32 cz, %%ctaid.z;\n\t"
                 "@d mad.lo.u32 cy, cz, %8, cy;\n\t"
                 "@d mad.lo.u32 %2, cy, %7, %6;\n\t"
                 "setp.ge.and.u32 o, %2, %11, p;\n\t"
                 "@p min.u32 m, %2, %11;\n\t"
                 "@p mul.wide.u32 w, m, %12;\n\t"
                 "@p add.u64 w, %10, w;\n\t"
                 "@p cvta.to.global.u64 %0, w;\n\t"
                 "@o sub.u32 %2, %9, %11;\n\t"
                 "@o or.b32 %1, %1, 0x80000000;\n\t"
                 "}"
                 : "+l"(o), "+r"(s), "+r"(k), "+r"(f)
                 : "r"(tid), "r"(grid3d), "r"(bx), "r"(gx), "r"(gy), "r"(grid),
                   "l"(l.stamps), "r"(l.blocks),
                   "n"((unsigned int)(ECL_GPU_MAX_STAMPS * sizeof(ecl_gpu_stamp))));
    *on = f;
    *out = o;
    *sm = s;
    *b = k;
}

#define SV_asm_BEGIN(log)                                                                  \
    SV_STATE_;                                                                             \
    sv_begin_asm_(threadIdx.x | threadIdx.y | threadIdx.z, (gridDim.y | gridDim.z) != 1,  \
                  blockIdx.x, gridDim.x, gridDim.y, gridDim.x * gridDim.y * gridDim.z,     \
                  (log), &sv_on_, &sv_out_, &sv_sm_, &sv_b_)
#define SV_asm_ENTER(id) SV_ENTER_(id)
#define SV_asm_LEAVE(id) SV_LEAVE_(id)
#define SV_asm_END() SV_END_()

/* ---- asm1d: asm, %tid.y/z read only in a launch with 3-D blocks ---- */
/* threadIdx.x | threadIdx.y | threadIdx.z, reading .y and .z only where
 * blockDim.y or .z is not 1 (a predicated read: no branch) */
__device__ __forceinline__ unsigned int sv_tid_or_(void)
{
    unsigned int t = threadIdx.x, b3 = (blockDim.y | blockDim.z) != 1;
    asm volatile("{\n\t.reg .pred d;\n\t.reg .u32 y, z;\n\t"
                 "setp.ne.u32 d, %1, 0;\n\t"
                 "@d mov.u32 y, %%tid.y;\n\t"
                 "@d mov.u32 z, %%tid.z;\n\t"
                 "@d or.b32 %0, %0, y;\n\t"
                 "@d or.b32 %0, %0, z;\n\t}"
                 : "+r"(t)
                 : "r"(b3));
    return t;
}

#define SV_asm1d_BEGIN(log)                                                                \
    SV_STATE_;                                                                             \
    sv_begin_asm_(sv_tid_or_(), (gridDim.y | gridDim.z) != 1, blockIdx.x, gridDim.x,      \
                  gridDim.y, gridDim.x * gridDim.y * gridDim.z, (log), &sv_on_, &sv_out_,  \
                  &sv_sm_, &sv_b_)
#define SV_asm1d_ENTER(id) SV_ENTER_(id)
#define SV_asm1d_LEAVE(id) SV_LEAVE_(id)
#define SV_asm1d_END() SV_END_()

/* ---- split: asm's BEGIN; ENTER writes region, SM, block; END one store ---- */
#define SV_split_BEGIN(log) SV_asm_BEGIN(log)

#define SV_split_ENTER(id)                                                                 \
    do {                                                                                   \
        if (sv_n_ < ECL_GPU_MAX_STAMPS) {                                                  \
            sv_put_ids_if_(sv_on_, sv_out_ + sv_n_ * sizeof(ecl_gpu_stamp),               \
                           (unsigned int)(id), sv_sm_, sv_b_, 1);                          \
            sv_leave_[sv_n_] = 0;                                                          \
            sv_enter_[sv_n_] = sv_timer_if_(sv_on_);                                      \
            sv_open_[sv_depth_++] = sv_n_++;                                               \
        }                                                                                  \
    } while (0)

#define SV_split_LEAVE(id)                                                                 \
    do {                                                                                   \
        (void)sizeof(id);                                                                  \
        if (sv_depth_ > 0)                                                                 \
            sv_leave_[sv_open_[--sv_depth_]] = sv_timer_if_(sv_on_);                      \
    } while (0)

#define SV_split_END()                                                                     \
    do {                                                                                   \
        (void)sv_region_;                                                                  \
        (void)sv_closed_;                                                                  \
        for (unsigned int i_ = 0; i_ < sv_n_; i_++)                                        \
            sv_put_times_if_(sv_on_, sv_out_ + i_ * sizeof(ecl_gpu_stamp), sv_enter_[i_], \
                             sv_leave_[i_]);                                               \
    } while (0)

/* ---- split1d: split with asm1d's BEGIN ---- */
#define SV_split1d_BEGIN(log) SV_asm1d_BEGIN(log)
#define SV_split1d_ENTER(id) SV_split_ENTER(id)
#define SV_split1d_LEAVE(id) SV_split_LEAVE(id)
#define SV_split1d_END() SV_split_END()

/* The candidates, for the programs that run each of them (X(name)). */
#define SV_CANDIDATES(X) X(pred) X(asm) X(asm1d) X(split) X(split1d)

/* The kernels the programs measure and check, for each candidate CAND:
 * saxpy_CAND (saxpy.cuh's saxpy_stamped) and mm_CAND (matmul.cuh's
 * mm_stamped), each one region around the whole body. Include after
 * saxpy.cuh and matmul.cuh. */
#define SV_KERNELS(C)                                                                      \
    __global__ void saxpy_##C(int n, float a, const float *x, float *y, unsigned region,   \
                              ecl_gpu_log log)                                             \
    {                                                                                      \
        SV_##C##_BEGIN(log);                                                               \
        SV_##C##_ENTER(region);                                                            \
        int i = blockIdx.x * blockDim.x + threadIdx.x;                                     \
        if (i < n)                                                                         \
            y[i] = a * x[i] + y[i];                                                        \
        SV_##C##_LEAVE(region);                                                            \
        SV_##C##_END();                                                                    \
    }                                                                                      \
    __global__ void mm_##C(int n, const float *a, const float *b, float *c, unsigned region, \
                           ecl_gpu_log log)                                                \
    {                                                                                      \
        SV_##C##_BEGIN(log);                                                               \
        SV_##C##_ENTER(region);                                                            \
        mm_body(n, a, b, c);                                                               \
        SV_##C##_LEAVE(region);                                                            \
        SV_##C##_END();                                                                    \
    }

#endif
