/* stampcheck.cu -- the candidate stamp macros of tests/gpu/stampvariants.cuh
 * (and ecl_cuda.h's, "shipped", as the reference) checked on a GPU: each
 * must write what ecl_cuda.h writes, so that libecl records it unchanged.
 * For each, with the same kernels:
 *   saxpy_small  saxpy on 1 M elements (4,096 blocks of 256), 2 launches,
 *                a buffer for 1,000 blocks: blocks 0..999 one closed region
 *                each, the room after the buffer marked ECL_GPU_BEYOND with
 *                3,096 blocks beyond; libecl records 1,000 a launch;
 *   saxpy_full   the same, 1 launch, a buffer for all 4,096 blocks: 4,096
 *                recorded, the room after it untouched;
 *   nest_3d      a 3-D grid (5 x 3 x 2 blocks of 4 x 2 x 2 threads), a
 *                buffer for 20 of its 30 blocks, regions r1 > r2 nested,
 *                then r3, then r4 left open: per block 3 closed in order
 *                (r1 enter <= r2 enter <= r2 leave <= r1 leave <= r3 enter
 *                <= r3 leave <= r4 enter), r4 open (closed 0 or leave 0:
 *                libecl drops both), block = the linear block index, SM
 *                below the device's count; 10 blocks beyond; libecl
 *                records 60; the kernel's output checked;
 *   zero_log     saxpy with a log of zeros: runs, stamps nothing.
 * (stampcheck --selftest checks the checker, without a GPU: buffers laid
 * out as ecl_cuda.h writes them accepted, each kind of damage refused.)
 * The saxpy result (4 launches of y = 2 x + y from 0, x = 1: 8) is checked.
 * Prints "ok: CAND: ..." or "FAIL: CAND: ..." per check, then what libecl
 * must say at exit over all ("expect_stderr=...") and how many regions the
 * trace must hold ("expect_stamps=N"); exit 0 when every check passed, 77
 * (saying why) without a GPU. Linked with ECL (run with ECL_DIR set). */
#include "common.cuh"
#include "ecl_cuda.h"
#include "saxpy.cuh"
#include "matmul.cuh"
#include "stampvariants.cuh"

/* ecl_cuda.h's macros under the candidates' names: the reference */
#define SV_shipped_BEGIN(log) ECL_GPU_BEGIN(log)
#define SV_shipped_ENTER(id) ECL_GPU_ENTER(id)
#define SV_shipped_LEAVE(id) ECL_GPU_LEAVE(id)
#define SV_shipped_END() ECL_GPU_END()
#define SV_ALL(X) X(shipped) SV_CANDIDATES(X)

SV_ALL(SV_KERNELS)

#define NEST_KERNEL(C)                                                                     \
    __global__ void nest_##C(float *out, unsigned r1, unsigned r2, unsigned r3, unsigned r4, \
                             ecl_gpu_log log)                                              \
    {                                                                                      \
        SV_##C##_BEGIN(log);                                                               \
        unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);  \
        unsigned b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);       \
        float v = (float)(b * 1000 + t);                                                   \
        SV_##C##_ENTER(r1);                                                                \
        SV_##C##_ENTER(r2);                                                                \
        v *= 2.0f;                                                                         \
        SV_##C##_LEAVE(r2);                                                                \
        SV_##C##_LEAVE(r1);                                                                \
        SV_##C##_ENTER(r3);                                                                \
        v += 1.0f;                                                                         \
        SV_##C##_LEAVE(r3);                                                                \
        SV_##C##_ENTER(r4);                                                                \
        out[b * blockDim.x * blockDim.y * blockDim.z + t] = v;                             \
        SV_##C##_END();                                                                    \
    }
SV_ALL(NEST_KERNEL)

typedef void (*saxpy_kernel)(int, float, const float *, float *, unsigned, ecl_gpu_log);
typedef void (*nest_kernel)(float *, unsigned, unsigned, unsigned, unsigned, ecl_gpu_log);
typedef struct variant {
    const char *name;
    saxpy_kernel saxpy;
    nest_kernel nest;
} variant;
#define SV_ROW_(C) { #C, saxpy_##C, nest_##C },
static const variant variants[] = { SV_ALL(SV_ROW_) };
#define NVARIANTS (int)(sizeof variants / sizeof variants[0])

static int fails;
static int nsm;

static void say(int ok, const char *cand, const char *what)
{
    printf("%s: %s: %s\n", ok ? "ok" : "FAIL", cand, what);
    fails += !ok;
}

typedef struct expect {
    size_t room, grid;        /* the buffer's blocks, the grid's */
    int nreg;                 /* regions a block enters */
    const unsigned *ids;      /* their ids */
    const int *open;          /* 1: left open */
    int nested;               /* check nest_3d's time order */
} expect;

/* Checks the raw buffer (room + 1 blocks' entries) against ecl_cuda.h's
 * layout; returns the first problem, or NULL. */
static const char *check_buffer(const ecl_gpu_stamp *s, const expect *x, char *why, size_t len)
{
    size_t used = x->room < x->grid ? x->room : x->grid;
    for (size_t b = 0; b <= x->room; b++)
        for (int k = 0; k < ECL_GPU_MAX_STAMPS; k++) {
            const ecl_gpu_stamp *e = &s[b * ECL_GPU_MAX_STAMPS + k];
            int zero = e->enter == 0 && e->leave == 0 && e->region == 0 && e->smid == 0 &&
                       e->block == 0 && e->closed == 0;
            int want = k < x->nreg && (b < used || (b == x->room && x->grid > x->room));
            if (!want) {
                if (!zero) {
                    snprintf(why, len, "entry %d of block %zu written (region %u smid %#x "
                             "block %u), want untouched", k, b, e->region, e->smid, e->block);
                    return why;
                }
                continue;
            }
            if (e->region != x->ids[k]) {
                snprintf(why, len, "entry %d of block %zu: region %u, want %u", k, b,
                         e->region, x->ids[k]);
                return why;
            }
            if (b == x->room) {   /* the room of the blocks beyond */
                if (!(e->smid & ECL_GPU_BEYOND) || e->block != x->grid - x->room) {
                    snprintf(why, len, "entry %d after the buffer: smid %#x block %u, want "
                             "ECL_GPU_BEYOND and %zu", k, e->smid, e->block,
                             x->grid - x->room);
                    return why;
                }
                continue;
            }
            if ((e->smid & ECL_GPU_BEYOND) || (int)e->smid >= nsm || e->block != b ||
                e->enter == 0) {
                snprintf(why, len, "entry %d of block %zu: smid %#x block %u enter %llu, want "
                         "smid < %d, block %zu, enter != 0", k, b, e->smid, e->block,
                         e->enter, nsm, b);
                return why;
            }
            int open = e->closed == 0 || e->leave == 0;   /* as libecl reads it */
            if (open != x->open[k] || (!open && e->leave < e->enter)) {
                snprintf(why, len, "entry %d of block %zu: closed %u enter %llu leave %llu, "
                         "want %s", k, b, e->closed, e->enter, e->leave,
                         x->open[k] ? "open" : "closed, leave >= enter");
                return why;
            }
        }
    if (x->nested)
        for (size_t b = 0; b < used; b++) {
            const ecl_gpu_stamp *e = &s[b * ECL_GPU_MAX_STAMPS];
            if (!(e[0].enter <= e[1].enter && e[1].leave <= e[0].leave &&
                  e[0].leave <= e[2].enter && e[2].leave <= e[3].enter)) {
                snprintf(why, len, "block %zu: regions out of order (r1 %llu-%llu, r2 "
                         "%llu-%llu, r3 %llu-%llu, r4 from %llu)", b, e[0].enter, e[0].leave,
                         e[1].enter, e[1].leave, e[2].enter, e[2].leave, e[3].enter);
                return why;
            }
        }
    return NULL;
}

/* --selftest: check_buffer on buffers written as ecl_cuda.h writes them
 * (it must accept them, and a split-style open region) and on each kind
 * of damage (it must refuse them); no GPU needed. */
static void model(ecl_gpu_stamp *s, const expect *x)
{
    size_t used = x->room < x->grid ? x->room : x->grid;
    memset(s, 0, (x->room + 1) * ECL_GPU_MAX_STAMPS * sizeof *s);
    for (size_t b = 0; b <= x->room; b++) {
        if (b >= used && !(b == x->room && x->grid > x->room))
            continue;
        unsigned long long t = 1000 + 100 * b;
        /* r1 [t, t+30], r2 [t+10, t+20], r3 [t+40, t+50], r4 from t+60 */
        const unsigned long long en[4] = { t, t + 10, t + 40, t + 60 },
                                 le[4] = { t + 30, t + 20, t + 50, 0 };
        for (int k = 0; k < x->nreg; k++) {
            ecl_gpu_stamp *e = &s[b * ECL_GPU_MAX_STAMPS + k];
            e->enter = en[k];
            e->leave = x->open[k] ? 0 : le[k];
            e->region = x->ids[k];
            e->smid = b == x->room ? ECL_GPU_BEYOND | 1u : (unsigned)(b % nsm);
            e->block = b == x->room ? (unsigned)(x->grid - x->room) : (unsigned)b;
            e->closed = !x->open[k];
        }
    }
}

static int selftest(void)
{
    nsm = 132;
    static ecl_gpu_stamp s[(20 + 1) * ECL_GPU_MAX_STAMPS];
    const unsigned ids[4] = { 5, 6, 7, 8 }, one[1] = { 9 };
    const int nopen[4] = { 0, 0, 0, 1 }, closed1[1] = { 0 };
    const expect xn = { 20, 30, 4, ids, nopen, 1 }, xs = { 20, 50, 1, one, closed1, 0 },
                 xf = { 20, 20, 1, one, closed1, 0 };
    char why[256];
    const expect *good[3] = { &xn, &xs, &xf };
    for (int i = 0; i < 3; i++) {
        model(s, good[i]);
        const char *bad = check_buffer(s, good[i], why, sizeof why);
        say(bad == NULL, "selftest", bad ? bad : "a buffer as ecl_cuda.h writes it accepted");
    }
    model(s, &xn);
    for (size_t b = 0; b < 20; b++)
        s[b * ECL_GPU_MAX_STAMPS + 3].closed = 1;   /* split: closed 1, leave 0 */
    say(check_buffer(s, &xn, why, sizeof why) == NULL, "selftest",
        "an open region written closed 1, leave 0 accepted (libecl drops it as open)");
    /* damage: each must be refused */
    static const char *what[] = { "a block's unused entry written", "a wrong block index",
                                  "an open region closed", "a wrong count of blocks beyond",
                                  "nested regions out of order", "an SM beyond the device's",
                                  "a wrong region id", "the room after the buffer unmarked",
                                  "a block beyond the grid written" };
    for (int d = 0; d < (int)(sizeof what / sizeof what[0]); d++) {
        const expect *x = d == 3 || d == 7 ? &xs : d == 8 ? &xf : &xn;
        model(s, x);
        ecl_gpu_stamp *e = &s[7 * ECL_GPU_MAX_STAMPS];
        switch (d) {
        case 0: e[5].region = 1; break;
        case 1: e[1].block = 8; break;
        case 2: e[3].leave = e[3].enter + 5; e[3].closed = 1; break;
        case 3: s[20 * ECL_GPU_MAX_STAMPS].block = 31; break;
        case 4: e[1].leave = e[0].leave + 1; break;
        case 5: e[0].smid = 132; break;
        case 6: e[2].region = 5; break;
        case 7: s[20 * ECL_GPU_MAX_STAMPS].smid &= ~ECL_GPU_BEYOND; break;
        default: s[20 * ECL_GPU_MAX_STAMPS].region = 9; break;
        }
        const char *bad = check_buffer(s, x, why, sizeof why);
        char line[400];
        snprintf(line, sizeof line, "%s refused%s%s", what[d], bad ? ": " : "", bad ? bad : "");
        say(bad != NULL, "selftest", line);
    }
    printf("stampcheck: selftest, %d failed checks\n", fails);
    return fails != 0;
}

/* After one launch into st: the raw buffer checked, then recorded by
 * libecl (which clears it); want_recorded regions recorded. */
static void after_launch(const char *cand, const char *what, ecl_cuda_stamps *st,
                         const expect *x, size_t want_recorded)
{
    char why[256], line[400];
    CK(cudaDeviceSynchronize());
    size_t n = (st->blocks + 1) * ECL_GPU_MAX_STAMPS;
    ecl_gpu_stamp *h = (ecl_gpu_stamp *)calloc(n, sizeof *h);
    if (h == NULL) {
        fprintf(stderr, "stampcheck: out of memory\n");
        exit(1);
    }
    CK(cudaMemcpy(h, st->log.stamps, n * sizeof *h, cudaMemcpyDeviceToHost));
    const char *bad = check_buffer(h, x, why, sizeof why);
    snprintf(line, sizeof line, "%s: buffer as ecl_cuda.h writes it%s%s", what,
             bad ? ": " : "", bad ? bad : "");
    say(bad == NULL, cand, line);
    free(h);
    size_t got = 0;
    CK(ecl_cuda_stamps_record(st, &got));
    snprintf(line, sizeof line, "%s: libecl recorded %zu regions, want %zu", what, got,
             want_recorded);
    say(got == want_recorded, cand, line);
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--selftest") == 0)
        return selftest();
    ecl_init();
    need_gpu("stampcheck");
    int dev = 0;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&nsm, cudaDevAttrMultiProcessorCount, dev));
    const int n = 1 << 20, bs = 256, blocks = n / bs, small = 1000;
    const dim3 ngrid(5, 3, 2), nblock(4, 2, 2);
    const size_t ngrid_n = 5 * 3 * 2, nthreads = 4 * 2 * 2, nroom = 20;
    float *x, *y, *out;
    CK(cudaMalloc(&x, n * sizeof(float)));
    CK(cudaMalloc(&y, n * sizeof(float)));
    CK(cudaMalloc(&out, ngrid_n * nthreads * sizeof(float)));
    float *hy = (float *)malloc(n * sizeof(float)), hout[ngrid_n * nthreads];
    if (hy == NULL) {
        fprintf(stderr, "stampcheck: out of memory\n");
        return 1;
    }
    for (int i = 0; i < n; i++)
        hy[i] = 1.0f;
    CK(cudaMemcpy(x, hy, n * sizeof(float), cudaMemcpyHostToDevice));
    unsigned rs = ecl_region_define("saxpy body");
    const unsigned nid[4] = { ecl_region_define("r1"), ecl_region_define("r2"),
                              ecl_region_define("r3"), ecl_region_define("r4 (left open)") };
    const int closed1[1] = { 0 }, nopen[4] = { 0, 0, 0, 1 };
    const expect xsmall = { (size_t)small, (size_t)blocks, 1, &rs, closed1, 0 };
    const expect xfull = { (size_t)blocks, (size_t)blocks, 1, &rs, closed1, 0 };
    const expect xnest = { nroom, ngrid_n, 4, nid, nopen, 1 };
    size_t total = 0;
    unsigned long long open = 0, beyond = 0;
    for (int v = 0; v < NVARIANTS; v++) {
        const char *c = variants[v].name;
        ecl_cuda_stamps st;
        CK(cudaMemset(y, 0, n * sizeof(float)));
        /* saxpy_small */
        CK(ecl_cuda_stamps_open(&st, small, 0));
        for (int k = 0; k < 2; k++) {
            variants[v].saxpy<<<blocks, bs>>>(n, 2.0f, x, y, rs, st.log);
            CK(cudaGetLastError());
            after_launch(c, k ? "saxpy_small launch 2" : "saxpy_small launch 1", &st, &xsmall,
                         small);
            total += small;
            beyond += blocks - small;
        }
        ecl_cuda_stamps_close(&st);
        /* saxpy_full */
        CK(ecl_cuda_stamps_open(&st, blocks, 0));
        variants[v].saxpy<<<blocks, bs>>>(n, 2.0f, x, y, rs, st.log);
        CK(cudaGetLastError());
        after_launch(c, "saxpy_full", &st, &xfull, blocks);
        total += blocks;
        ecl_cuda_stamps_close(&st);
        /* zero_log */
        ecl_gpu_log zero = { 0, 0 };
        variants[v].saxpy<<<blocks, bs>>>(n, 2.0f, x, y, rs, zero);
        cudaError_t e = cudaDeviceSynchronize();
        char line[200];
        snprintf(line, sizeof line, "zero_log: the kernel ran (%s)", cudaGetErrorString(e));
        say(e == cudaSuccess, c, line);
        if (e != cudaSuccess)
            return 1;   /* the context is lost */
        CK(cudaMemcpy(hy, y, n * sizeof(float), cudaMemcpyDeviceToHost));
        int wrong = 0;
        for (int i = 0; i < n; i++)
            wrong += hy[i] != 8.0f;
        snprintf(line, sizeof line, "saxpy result after 4 launches: %d of %d elements wrong",
                 wrong, n);
        say(wrong == 0, c, line);
        /* nest_3d */
        CK(cudaMemset(out, 0, sizeof hout));
        CK(ecl_cuda_stamps_open(&st, nroom, 0));
        variants[v].nest<<<ngrid, nblock>>>(out, nid[0], nid[1], nid[2], nid[3], st.log);
        CK(cudaGetLastError());
        after_launch(c, "nest_3d", &st, &xnest, nroom * 3);
        total += nroom * 3;
        open += nroom;
        beyond += ngrid_n - nroom;
        ecl_cuda_stamps_close(&st);
        CK(cudaMemcpy(hout, out, sizeof hout, cudaMemcpyDeviceToHost));
        wrong = 0;
        for (size_t i = 0; i < ngrid_n * nthreads; i++)
            wrong += hout[i] != (float)((i / nthreads * 1000 + i % nthreads) * 2 + 1);
        snprintf(line, sizeof line, "nest_3d: kernel output %d of %zu wrong", wrong,
                 ngrid_n * nthreads);
        say(wrong == 0, c, line);
    }
    free(hy);
    CK(cudaFree(x));
    CK(cudaFree(y));
    CK(cudaFree(out));
    printf("expect_stderr=ecl: in-kernel regions not recorded in all: %llu left open, 0 "
           "backwards; %llu block(s) beyond their stamp buffer\n", open, beyond);
    printf("expect_stamps=%zu\n", total);
    printf("stampcheck: %d variants, %d failed checks\n", NVARIANTS, fails);
    return fails != 0;
}
