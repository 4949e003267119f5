/* gpu.c -- ECL GPU capture: the GPU record types and their meaning, GPU
 * locations (a trace stream each), the clock correlation of GPU times to
 * ECL's clock, the records of in-kernel timestamps (ecl_cuda.h), start and
 * stop (doc/gpu.md). Builds without CUDA; CUPTI (cupti.c) and NVML
 * (nvml.c) are started from here only when configure found CUDA. */
#include <config.h>

#include "ecl/gpu/gpu.h"
#include "ecl/ecl.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

pthread_mutex_t ecl_gpu_lock = PTHREAD_MUTEX_INITIALIZER;
uint64_t ecl_gpu_t0;
ecl_gpu_stats ecl_gpu_st;
__thread int ecl_gpu_in_tool;

/* ecl_cuda.h brackets its own CUDA calls with these (cupti.c leaves their
 * work out of the trace). */
ECL_API void ecl_gpu_tool_enter(void)
{
    ecl_gpu_in_tool++;
}

ECL_API void ecl_gpu_tool_leave(void)
{
    if (ecl_gpu_in_tool > 0)
        ecl_gpu_in_tool--;
}

#define U8 EDL_UINT8, EDL_ENC_ULEB
#define U32 EDL_UINT32, EDL_ENC_ULEB
#define U64 EDL_UINT64, EDL_ENC_ULEB
#define STR EDL_STRING, EDL_ENC_LSTRING
#define REGION_REF { "region_def", "region", 0 }
#define NO_REF { NULL, NULL, 0 }

/* The GPU record types (doc/gpu.md, "Records"). Activity records are calls
 * (time = end, duration) on GPU locations, so every view shows them as
 * regions without knowing GPUs; role device says their time is the GPU's,
 * role correlation links a CUDA call to the work it started. */
static const ecl_trace_type_spec types[] = {
    { ECL_REC_GPU_KERNEL_DEF, "gpu_kernel_def", "a kernel launch configuration gets an id",
      { { "config", U32, NULL, NULL }, { "name", STR, NULL, "the kernel, demangled" },
        { "grid_x", U32, NULL, NULL }, { "grid_y", U32, NULL, NULL },
        { "grid_z", U32, NULL, NULL }, { "block_x", U32, NULL, NULL },
        { "block_y", U32, NULL, NULL }, { "block_z", U32, NULL, NULL },
        { "shared", U32, "bytes", "shared memory per block, static + dynamic" },
        { "registers", U32, NULL, "registers per thread" } }, 10,
      { { EDL_ROLE_DEFINITION, NULL, NULL } }, 1,
      { { "name", EDL_FROLE_NAME, NO_REF } }, 1 },
    { ECL_REC_GPU_KERNEL, "gpu_kernel", "a kernel ran on a GPU stream (recorded at its end)",
      { { "region", U32, NULL, "the kernel" }, { "duration", U64, "ticks", NULL },
        { "config", U32, NULL, NULL },
        { "correlation", U32, NULL, "the CUDA call that launched it (gpu_api.correlation)" },
        { "device", U32, NULL, "the CUDA device it ran on" } }, 5,
      { { EDL_ROLE_CALL, NULL, NULL }, { EDL_ROLE_DEVICE, NULL, NULL } }, 2,
      { { "region", EDL_FROLE_REGION, REGION_REF }, { "duration", EDL_FROLE_DURATION, NO_REF },
        { "config", EDL_FROLE_NONE, { "gpu_kernel_def", "config", 0 } },
        { "correlation", EDL_FROLE_CORRELATION, NO_REF },
        { "device", EDL_FROLE_DEVICE_ID, NO_REF } }, 5 },
    { ECL_REC_GPU_COPY, "gpu_copy", "a memory copy ran on a GPU stream (recorded at its end)",
      { { "region", U32, NULL, "memcpy HtoD, memcpy DtoH, ..." },
        { "duration", U64, "ticks", NULL },
        { "kind", U8, NULL, "CUPTI's copy kind: 1 HtoD, 2 DtoH, 8 DtoD, 10 PtoP, ..." },
        { "to_device", U64, "bytes", "bytes copied from the host to the device (HtoD, HtoA)" },
        { "from_device", U64, "bytes", "bytes copied from the device to the host (DtoH, AtoH)" },
        { "bytes", U64, "bytes", "bytes of the other kinds (DtoD, PtoP, HtoH, ...)" },
        { "correlation", U32, NULL, "the CUDA call that started it" },
        { "device", U32, NULL, "the CUDA device whose stream ran it" } }, 8,
      /* a call that moves bytes, not `communication`: that role means
       * message passing between processes (the views' MPI functions, the
       * OTF2 export's MPI paradigm); a copy stays within the process. Its
       * direction, seen from the device (the record's location): bytes it
       * receives from the host, bytes it sends there, other bytes; one of
       * the three is the copy's size, the others 0 */
      { { EDL_ROLE_CALL, NULL, NULL }, { EDL_ROLE_DEVICE, NULL, NULL } }, 2,
      { { "region", EDL_FROLE_REGION, REGION_REF }, { "duration", EDL_FROLE_DURATION, NO_REF },
        { "to_device", EDL_FROLE_BYTES_RECEIVED, NO_REF },
        { "from_device", EDL_FROLE_BYTES_SENT, NO_REF }, { "bytes", EDL_FROLE_BYTES, NO_REF },
        { "correlation", EDL_FROLE_CORRELATION, NO_REF },
        { "device", EDL_FROLE_DEVICE_ID, NO_REF } }, 7 },
    { ECL_REC_GPU_MEMSET, "gpu_memset", "a memset ran on a GPU stream (recorded at its end)",
      { { "region", U32, NULL, NULL }, { "duration", U64, "ticks", NULL },
        { "bytes", U64, "bytes", NULL }, { "value", U32, NULL, NULL },
        { "correlation", U32, NULL, "the CUDA call that started it" },
        { "device", U32, NULL, "the CUDA device whose stream ran it" } }, 6,
      { { EDL_ROLE_CALL, NULL, NULL }, { EDL_ROLE_DEVICE, NULL, NULL } }, 2,
      { { "region", EDL_FROLE_REGION, REGION_REF }, { "duration", EDL_FROLE_DURATION, NO_REF },
        { "bytes", EDL_FROLE_BYTES, NO_REF }, { "correlation", EDL_FROLE_CORRELATION, NO_REF },
        { "device", EDL_FROLE_DEVICE_ID, NO_REF } }, 5 },
    { ECL_REC_GPU_SYNC, "gpu_sync", "the host waited for GPU work (recorded at its end)",
      { { "region", U32, NULL, "cudaStreamSynchronize, cudaEventSynchronize, ..." },
        { "duration", U64, "ticks", NULL },
        { "stream", U32, NULL, "the CUDA stream waited for; 0 none" },
        { "correlation", U32, NULL, "the CUDA call that waited" } }, 4,
      { { EDL_ROLE_CALL, NULL, NULL }, { EDL_ROLE_IDLE, NULL, NULL } }, 2,
      { { "region", EDL_FROLE_REGION, REGION_REF }, { "duration", EDL_FROLE_DURATION, NO_REF },
        { "correlation", EDL_FROLE_CORRELATION, NO_REF } }, 3 },
    { ECL_REC_GPU_API, "gpu_api", "a CUDA runtime call of a CPU thread (recorded when it returns)",
      { { "region", U32, NULL, "the function: cudaLaunchKernel, cudaMemcpy, ..." },
        { "duration", U64, "ticks", NULL },
        { "correlation", U32, NULL, "the GPU work it started has the same correlation" } }, 3,
      { { EDL_ROLE_CALL, NULL, NULL } }, 1,
      { { "region", EDL_FROLE_REGION, REGION_REF }, { "duration", EDL_FROLE_DURATION, NO_REF },
        { "correlation", EDL_FROLE_CORRELATION, NO_REF } }, 3 },
    { ECL_REC_GPU_LOCATION, "gpu_location", "what a GPU location (a trace stream) is",
      { { "stream", U32, NULL, "the trace stream (thread_def.stream)" },
        { "kind", U8, NULL, "0 CUDA stream, 1 host waits of a context, 2 SM lane" },
        { "device", U32, NULL, NULL }, { "context", U32, NULL, NULL },
        { "cuda_stream", U32, NULL, "CUDA stream id; SM id for kind 2" },
        { "lane", U32, NULL, "kind 2: lane of the SM (blocks resident together)" } }, 6,
      { { EDL_ROLE_METADATA, NULL, NULL } }, 1,
      { { "stream", EDL_FROLE_NONE, { "thread_def", "stream", 0 } } }, 1 },
    { ECL_REC_GPU_CLOCK, "gpu_clock", "a pair of the clock correlation: GPU clock and ECL clock",
      { { "source", U8, NULL, "1 CUPTI timestamps, 2 globaltimer of device" },
        { "device", U32, NULL, NULL }, { "gpu_ns", U64, "ns", NULL },
        { "ticks", U64, "ticks", "ECL clock at gpu_ns" },
        { "error", U64, "ticks", "half the bracket of the pair" } }, 5,
      { { EDL_ROLE_METADATA, NULL, NULL } }, 1, { { NULL, 0, NO_REF } }, 0 },
    { ECL_REC_GPU_STAMP, "gpu_stamp", "an in-kernel region of a block (ecl_cuda.h), at its end",
      { { "region", U32, NULL, NULL }, { "duration", U64, "ticks", NULL },
        { "block", U32, NULL, "linear block index" },
        { "device", U32, NULL, "the CUDA device it ran on" } }, 4,
      { { EDL_ROLE_CALL, NULL, NULL }, { EDL_ROLE_DEVICE, NULL, NULL } }, 2,
      { { "region", EDL_FROLE_REGION, REGION_REF }, { "duration", EDL_FROLE_DURATION, NO_REF },
        { "device", EDL_FROLE_DEVICE_ID, NO_REF } }, 3 },
};

int ecl_gpu_define_types(void)
{
    static int done;                 /* 1 defined, -1 failed */
    int d = __atomic_load_n(&done, __ATOMIC_ACQUIRE);
    if (d != 0)
        return d > 0 ? 0 : -1;
    int rc = ecl_trace_types_define(types, sizeof types / sizeof types[0], "; GPU capture off")
                 ? -1 : 0;
    __atomic_store_n(&done, rc == 0 ? 1 : -1, __ATOMIC_RELEASE);
    return rc;
}

/* ---------------- clock correlation ---------------- */

uint64_t ecl_gpu_clock_pair(uint64_t (*src)(void), int tries, uint64_t *src_ns, uint64_t *ticks)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < tries; i++) {
        uint64_t a = ecl_sys_clock_now();
        uint64_t s = src();
        uint64_t b = ecl_sys_clock_now();
        if (b < a)
            continue;
        if (b - a < best) {
            best = b - a;
            *src_ns = s;
            *ticks = a + (b - a) / 2;
        }
    }
    return best;
}

void ecl_gpu_clock_add(ecl_gpu_clock *c, uint64_t src_ns, uint64_t ticks, uint64_t bracket)
{
    double nominal = ecl_sys_clock_ticks_per_second() / 1e9;
    if (!c->valid) {
        c->src0 = c->src1 = src_ns;
        c->ticks0 = c->ticks1 = ticks;
        c->slope = nominal > 0 ? nominal : 1.0;
        c->err_ticks = bracket / 2;
        c->valid = 1;
        return;
    }
    if (src_ns <= c->src0 || ticks <= c->ticks0)
        return;
    c->src1 = src_ns;
    c->ticks1 = ticks;
    /* 100 ms apart at least: two pairs' errors (a few hundred ns) then
     * move the slope by a few ppm only. */
    if (src_ns - c->src0 >= 100000000ull) {
        double s = (double)(ticks - c->ticks0) / (double)(src_ns - c->src0);
        /* a slope far from the nominal rate is a clock jump: keep the old */
        if (s > 0.9 * nominal && s < 1.1 * nominal)
            c->slope = s;
    }
}

uint64_t ecl_gpu_clock_ticks(const ecl_gpu_clock *c, uint64_t src_ns)
{
    if (!c->valid)
        return 0;
    double d = ((double)src_ns - (double)c->src0) * c->slope;
    double t = (double)c->ticks0 + d;
    return t > 0 ? (uint64_t)t : 0;
}

/* ---------------- locations ---------------- */

typedef struct gpu_loc {
    ecl_buf_location *loc;
} gpu_loc;

static ecl_map locs;

static uint64_t loc_key(int kind, uint32_t device, uint32_t context, uint32_t stream, uint32_t sub)
{
    /* FNV-1a over the five numbers (never 0: ecl_map's rule) */
    uint64_t h = 0xcbf29ce484222325ull;
    uint32_t v[5] = { (uint32_t)kind, device, context, stream, sub };
    for (int i = 0; i < 5; i++)
        for (int b = 0; b < 4; b++) {
            h ^= (v[i] >> (8 * b)) & 0xff;
            h *= 0x100000001b3ull;
        }
    return h ? h : 1;
}

ecl_buf_location *ecl_gpu_location(int kind, uint32_t device, uint32_t context, uint32_t stream,
                                   uint32_t sub)
{
    uint64_t key = loc_key(kind, device, context, stream, sub);
    gpu_loc *g = ecl_map_get(&locs, key);
    if (g != NULL)
        return g->loc;
    char name[96];
    switch (kind) {
    case ECL_GPU_LOC_STREAM:
        snprintf(name, sizeof name, "CUDA[%u:%u] device %u stream %u", device, stream, device,
                 stream);
        break;
    case ECL_GPU_LOC_SYNC:
        snprintf(name, sizeof name, "CUDA context %u host waits", context);
        break;
    default:
        snprintf(name, sizeof name, "GPU %u SM %u lane %u", device, stream, sub);
        break;
    }
    /* the system thread id of a GPU location: 0xC0DA, kind, device, stream */
    uint64_t tid = 0xC0DA000000000000ull | ((uint64_t)(kind & 0xf) << 44) |
                   ((uint64_t)(device & 0xff) << 36) | ((uint64_t)(stream & 0xfffff) << 16) |
                   (sub & 0xffff);
    ecl_buf_location *loc = ecl_buf_location_open(name, tid, ecl_gpu_t0);
    if (loc == NULL)
        return NULL;
    g = malloc(sizeof *g);
    if (g == NULL || ecl_map_put(&locs, key, g) != 0) {
        free(g);
        return loc;                  /* used once, not found again: a new one next time */
    }
    g->loc = loc;
    uint8_t rec[64], *p = rec;
    p = ecl_buf_put_uleb(p, ecl_buf_location_stream(loc));
    p = ecl_buf_put_uleb(p, (uint64_t)kind);
    p = ecl_buf_put_uleb(p, device);
    p = ecl_buf_put_uleb(p, context);
    p = ecl_buf_put_uleb(p, stream);
    p = ecl_buf_put_uleb(p, sub);
    ecl_trace_write_definition(ECL_REC_GPU_LOCATION, rec, (size_t)(p - rec));
    return loc;
}

/* ---------------- in-kernel timestamps (ecl_cuda.h) ---------------- */

#define GPU_DEVICES 64
static ecl_gpu_clock stamp_clock[GPU_DEVICES];

static int gpu_recording(void)
{
    return ecl_trace_is_open() && ecl_buf_is_active();
}

ECL_API uint64_t ecl_gpu_host_ticks(void)
{
    return ecl_sys_clock_now();
}

ECL_API void ecl_gpu_stamps_clock(int device, uint64_t globaltimer_ns, uint64_t ticks_before,
                                  uint64_t ticks_after)
{
    if (device < 0 || device >= GPU_DEVICES || ticks_after < ticks_before)
        return;
    ecl_init();
    pthread_mutex_lock(&ecl_gpu_lock);
    uint64_t mid = ticks_before + (ticks_after - ticks_before) / 2;
    ecl_gpu_clock_add(&stamp_clock[device], globaltimer_ns, mid, ticks_after - ticks_before);
    if (gpu_recording()) {
        uint8_t rec[64], *p = rec;
        p = ecl_buf_put_uleb(p, 2);
        p = ecl_buf_put_uleb(p, (uint64_t)device);
        p = ecl_buf_put_uleb(p, globaltimer_ns);
        p = ecl_buf_put_uleb(p, mid);
        p = ecl_buf_put_uleb(p, (ticks_after - ticks_before) / 2);
        if (ecl_gpu_define_types() == 0)
            ecl_trace_write_definition(ECL_REC_GPU_CLOCK, rec, (size_t)(p - rec));
    }
    pthread_mutex_unlock(&ecl_gpu_lock);
}

typedef ecl_gpu_stamp stamp;

typedef struct stamp_ref {
    const stamp *s;
    uint32_t lane;
} stamp_ref;

static int by_block(const void *a, const void *b)
{
    const stamp_ref *x = a, *y = b;
    if (x->s->smid != y->s->smid)
        return x->s->smid < y->s->smid ? -1 : 1;
    if (x->s->block != y->s->block)
        return x->s->block < y->s->block ? -1 : 1;
    return x->s->enter < y->s->enter ? -1 : x->s->enter > y->s->enter;
}

static int by_lane_leave(const void *a, const void *b)
{
    const stamp_ref *x = a, *y = b;
    if (x->s->smid != y->s->smid)
        return x->s->smid < y->s->smid ? -1 : 1;
    if (x->lane != y->lane)
        return x->lane < y->lane ? -1 : 1;
    return x->s->leave < y->s->leave ? -1 : x->s->leave > y->s->leave;
}

typedef struct block_span {
    uint32_t smid, first, count;     /* refs [first, first + count) */
    uint64_t enter, leave;
} block_span;

static int span_by_start(const void *a, const void *b)
{
    const block_span *x = a, *y = b;
    if (x->smid != y->smid)
        return x->smid < y->smid ? -1 : 1;
    return x->enter < y->enter ? -1 : x->enter > y->enter;
}

#define LANES 64

/* Counts the in-kernel regions a call could not record, and the blocks
 * beyond its buffer, and says so once per kind and process (the totals
 * come again at finalize). */
static void stamps_dropped(int device, uint64_t open, uint64_t backwards, uint64_t beyond)
{
    static int said[3];
    const uint64_t k[3] = { open, backwards, beyond };
    pthread_mutex_lock(&ecl_gpu_lock);
    ecl_gpu_st.stamps_open += open;
    ecl_gpu_st.stamps_backwards += backwards;
    ecl_gpu_st.stamps_beyond += beyond;
    for (int i = 0; i < 3; i++)
        if (k[i] != 0 && !said[i]) {
            said[i] = 1;
            if (i == 0)
                fprintf(stderr, "ecl: %llu in-kernel region(s) of device %d not recorded: left "
                        "open at ECL_GPU_END (an ECL_GPU_ENTER without its ECL_GPU_LEAVE)\n",
                        (unsigned long long)k[i], device);
            else if (i == 1)
                fprintf(stderr, "ecl: %llu in-kernel region(s) of device %d not recorded: their "
                        "leave time is before their enter time\n", (unsigned long long)k[i],
                        device);
            else
                fprintf(stderr, "ecl: %llu block(s) of a kernel on device %d ran beyond the "
                        "blocks its stamp buffer holds: their regions were not recorded (give "
                        "ecl_cuda_stamps_open the grid's block count)\n",
                        (unsigned long long)k[i], device);
        }
    pthread_mutex_unlock(&ecl_gpu_lock);
}

ECL_API size_t ecl_gpu_stamps_record(int device, const void *stamps, size_t n)
{
    const stamp *s = stamps;
    if (device < 0 || device >= GPU_DEVICES || s == NULL || n == 0)
        return 0;
    ecl_init();
    if (!gpu_recording())
        return 0;
    stamp_ref *r = malloc(n * sizeof *r);
    block_span *sp = malloc(n * sizeof *sp);
    size_t m = 0, nsp = 0, written = 0;
    if (r == NULL || sp == NULL)
        goto out;
    uint64_t open = 0, backwards = 0, beyond = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i].region == 0 && s[i].enter == 0)
            continue;                             /* an entry no block used */
        if (s[i].smid & ECL_GPU_BEYOND) {
            if (s[i].block > beyond)              /* blocks beyond wrote over one another */
                beyond = s[i].block;
        } else if (s[i].closed == 0 || s[i].leave == 0) {
            open++;
        } else if (s[i].leave < s[i].enter || s[i].enter == 0) {
            backwards++;
        } else {
            r[m++] = (stamp_ref){ &s[i], 0 };
        }
    }
    stamps_dropped(device, open, backwards, beyond);
    qsort(r, m, sizeof *r, by_block);
    /* blocks: their span on their SM */
    for (size_t i = 0; i < m; i++) {
        if (nsp == 0 || sp[nsp - 1].smid != r[i].s->smid ||
            r[sp[nsp - 1].first].s->block != r[i].s->block) {
            sp[nsp++] = (block_span){ r[i].s->smid, (uint32_t)i, 0, r[i].s->enter, 0 };
        }
        block_span *b = &sp[nsp - 1];
        b->count++;
        if (r[i].s->enter < b->enter)
            b->enter = r[i].s->enter;
        if (r[i].s->leave > b->leave)
            b->leave = r[i].s->leave;
    }
    /* lanes: blocks resident together on one SM get lanes of their own
     * (first lane free at the block's start), so each lane's regions nest */
    qsort(sp, nsp, sizeof *sp, span_by_start);
    uint64_t lane_end[LANES];
    uint32_t cur_sm = UINT32_MAX;
    for (size_t i = 0; i < nsp; i++) {
        if (sp[i].smid != cur_sm) {
            cur_sm = sp[i].smid;
            memset(lane_end, 0, sizeof lane_end);
        }
        uint32_t lane = 0;
        while (lane < LANES - 1 && lane_end[lane] > sp[i].enter)
            lane++;
        if (sp[i].leave > lane_end[lane])
            lane_end[lane] = sp[i].leave;
        for (uint32_t k = 0; k < sp[i].count; k++)
            r[sp[i].first + k].lane = lane;
    }
    qsort(r, m, sizeof *r, by_lane_leave);
    pthread_mutex_lock(&ecl_gpu_lock);
    const ecl_gpu_clock *c = &stamp_clock[device];
    if (c->valid && ecl_gpu_define_types() == 0) {
        for (size_t i = 0; i < m; i++) {
            ecl_buf_location *loc =
                ecl_gpu_location(ECL_GPU_LOC_SM, (uint32_t)device, 0, r[i].s->smid, r[i].lane);
            if (loc == NULL)
                break;
            uint64_t t1 = ecl_gpu_clock_ticks(c, r[i].s->leave);
            uint64_t t0 = ecl_gpu_clock_ticks(c, r[i].s->enter);
            ecl_buf_hot *prev = ecl_buf_location_enter(loc);
            ecl_buf_hot *t;
            uint64_t now;
            uint8_t *p = ecl_buf_begin_at(ECL_REC_GPU_STAMP, ECL_BUF_HEADER_MAX + 4 * 10, t1, &t,
                                          &now);
            if (p != NULL) {
                p = ecl_buf_put_uleb(p, r[i].s->region);
                p = ecl_buf_put_uleb(p, t1 > t0 ? t1 - t0 : 0);
                p = ecl_buf_put_uleb(p, r[i].s->block);
                p = ecl_buf_put_uleb(p, (uint32_t)device);
                ecl_buf_commit(t, p, now);
                written++;
            }
            ecl_buf_location_leave(prev);
        }
        ecl_gpu_st.stamps += written;
    } else if (!c->valid) {
        fprintf(stderr, "ecl: in-kernel stamps of device %d not recorded: no clock pair "
                "(call ecl_cuda_stamps_calibrate first, see doc/gpu.md)\n", device);
    }
    pthread_mutex_unlock(&ecl_gpu_lock);
out:
    free(r);
    free(sp);
    return written;
}

/* ---------------- start and stop ---------------- */

static int gpu_mode = -1;            /* 0 off, 1 on, 2 auto */
static int env_set;                  /* this process set CUDA_INJECTION64_PATH */
int ecl_gpu_stats_on;
static double metrics_hz = 100;
static int cupti_state;           /* 0 not tried, 1 running, -1 failed: said once */

static int env_mode(void)
{
    const char *v = getenv("ECL_GPU");
    if (v == NULL || *v == '\0' || strcasecmp(v, "auto") == 0)
        return 2;
    if (strcmp(v, "0") == 0 || strcasecmp(v, "off") == 0 || strcasecmp(v, "no") == 0)
        return 0;
    if (strcmp(v, "1") == 0 || strcasecmp(v, "on") == 0 || strcasecmp(v, "yes") == 0)
        return 1;
    return 2;   /* ecl_init has said that the value is not valid (ecl/api/config.c) */
}

static void read_env(void)
{
    if (gpu_mode >= 0)
        return;
    gpu_mode = env_mode();
    const char *st = getenv("ECL_GPU_STATS");
    ecl_gpu_stats_on = st != NULL && strcmp(st, "1") == 0;
    const char *hz = getenv("ECL_GPU_METRICS_HZ");
    if (hz != NULL && *hz != '\0') {
        char *end;
        double v = strtod(hz, &end);
        if (*end == '\0' && v >= 0 && v <= 10000)   /* else said by ecl_init: 100 */
            metrics_hz = v;
    }
}

/* Starts CUPTI (and the NVML sampler) now. */
static void start_now(void)
{
#ifdef HAVE_CUDA
    pthread_mutex_lock(&ecl_gpu_lock);
    int tried = cupti_state;
    if (tried == 0)
        cupti_state = 1;
    pthread_mutex_unlock(&ecl_gpu_lock);
    if (tried != 0)
        return;
    if (ecl_gpu_define_types() != 0 || ecl_gpu_cupti_start() != 0) {
        cupti_state = -1;
        return;
    }
    if (metrics_hz > 0)
        ecl_gpu_nvml_start(metrics_hz);
#endif
}

void ecl_gpu_init(void)
{
    read_env();
    ecl_gpu_t0 = ecl_sys_clock_now();
#ifdef HAVE_CUDA
    if (gpu_mode == 0)
        return;
    /* A program that already uses CUDA: CUPTI now. Otherwise the CUDA
     * driver calls InitializeInjection (below) at cuInit, because
     * CUDA_INJECTION64_PATH names this library: only processes that use
     * CUDA pay for CUPTI. ECL_GPU=on starts CUPTI in any case. */
    void *cuda = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);
    if (cuda != NULL || gpu_mode == 1) {
        if (cuda != NULL)
            dlclose(cuda);
        start_now();
        return;
    }
    Dl_info info;
    const char *have = getenv("CUDA_INJECTION64_PATH");
    if (dladdr((void *)ecl_gpu_init, &info) != 0 && info.dli_fname != NULL &&
        info.dli_fname[0] == '/') {
        if (have == NULL || *have == '\0')
            env_set = setenv("CUDA_INJECTION64_PATH", info.dli_fname, 1) == 0;
        else if (strcmp(have, info.dli_fname) != 0)
            fprintf(stderr, "ecl: CUDA_INJECTION64_PATH is set to '%s' (another tool): CUDA "
                    "activity is recorded only if the program uses CUDA before ECL starts, "
                    "or with ECL_GPU=on\n", have);
    }
#endif
}

/* The CUDA driver's injection entry (CUDA_INJECTION64_PATH): called once at
 * cuInit, before the program's first CUDA work. */
ECL_API int InitializeInjection(void)
{
    /* read once, at this cuInit: a child process started from here on is
     * not given ECL by it (ecl-run's own setting is the user's choice) */
    if (env_set) {
        unsetenv("CUDA_INJECTION64_PATH");
        env_set = 0;
    }
    read_env();
    if (gpu_mode == 0)
        return 1;
    if (ecl_init() != ECL_OK || !ecl_trace_is_open())
        return 1;
    start_now();
    return 1;
}

void ecl_gpu_fini(void)
{
    if (env_set) {
        unsetenv("CUDA_INJECTION64_PATH");
        env_set = 0;
    }
#ifdef HAVE_CUDA
    if (cupti_state == 1) {
        ecl_gpu_nvml_stop();
        ecl_gpu_cupti_stop();
        cupti_state = -1;
    }
#endif
    ecl_gpu_stats t = ecl_gpu_st;
    if (t.stamps_open + t.stamps_backwards + t.stamps_beyond != 0)
        fprintf(stderr, "ecl: in-kernel regions not recorded in all: %llu left open, %llu "
                "backwards; %llu block(s) beyond their stamp buffer\n",
                (unsigned long long)t.stamps_open, (unsigned long long)t.stamps_backwards,
                (unsigned long long)t.stamps_beyond);
    if (ecl_gpu_stats_on)
        ecl_gpu_print_stats();
}

void ecl_gpu_print_stats(void)
{
    double tps = ecl_sys_clock_ticks_per_second();
    ecl_gpu_stats s = ecl_gpu_st;
    double per = s.records ? (double)s.map_ticks / (double)s.records / tps * 1e9 : 0;
    double cpu = s.sampler_wall_ns ? 100.0 * (double)s.sampler_cpu_ns / (double)s.sampler_wall_ns
                                   : 0;
    fprintf(stderr,
            "ecl: gpu stats: records=%llu kernels=%llu copies=%llu memsets=%llu syncs=%llu "
            "api_calls=%llu stamps=%llu stamps_open=%llu stamps_backwards=%llu "
            "blocks_beyond=%llu copy_bytes=%llu dropped=%llu "
            "map_ns_per_record=%.1f "
            "nvml_samples=%llu nvml_cpu_percent=%.4f nvml_first_sample_us=%.1f nvml_records=%llu "
            "tool=%llu\n",
            (unsigned long long)s.records, (unsigned long long)s.kernels,
            (unsigned long long)s.copies, (unsigned long long)s.memsets,
            (unsigned long long)s.syncs, (unsigned long long)s.apis,
            (unsigned long long)s.stamps, (unsigned long long)s.stamps_open,
            (unsigned long long)s.stamps_backwards,
            (unsigned long long)s.stamps_beyond,
            (unsigned long long)s.copy_bytes,
            (unsigned long long)s.dropped, per, (unsigned long long)s.samples, cpu,
            (double)s.sampler_first_ns / 1e3, (unsigned long long)s.samples_recorded,
            (unsigned long long)s.tool);
}
