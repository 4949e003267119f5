/* cupti.c -- ECL GPU capture through CUPTI (doc/gpu.md): the activity API
 * gives kernels, memcpys, memsets and synchronisations with GPU times; the
 * callback API gives each CUDA runtime call on its CPU thread with the
 * correlation id its GPU work carries. libcupti is loaded with dlopen, so
 * this builds against the CUDA headers but runs where there is no CUDA: any
 * failure prints one note and leaves GPU capture off.
 *
 * Threads: CUPTI calls the buffer callbacks on its own thread (or on a
 * thread that flushes); every record is written under ecl_gpu_lock onto its
 * GPU location (ecl_buf_location_enter). Runtime calls are recorded on the
 * calling thread's own stream, without a lock. */
#include <config.h>

#include "ecl/gpu/gpu.h"
#include "ecl/ecl.h"

#include <cupti.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef ECL_CUDA_DIR
#define ECL_CUDA_DIR "/usr/local/cuda"
#endif

/* ---- the CUPTI functions used, from dlopen ---- */
static struct {
    CUptiResult (*get_result_string)(CUptiResult, const char **);
    CUptiResult (*register_callbacks)(CUpti_BuffersCallbackRequestFunc,
                                      CUpti_BuffersCallbackCompleteFunc);
    CUptiResult (*enable)(CUpti_ActivityKind);
    CUptiResult (*flush_all)(uint32_t);
    CUptiResult (*next_record)(uint8_t *, size_t, CUpti_Activity **);
    CUptiResult (*dropped)(CUcontext, uint32_t, size_t *);
    CUptiResult (*timestamp)(uint64_t *);
    CUptiResult (*subscribe)(CUpti_SubscriberHandle *, CUpti_CallbackFunc, void *);
    CUptiResult (*enable_domain)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain);
    CUptiResult (*unsubscribe)(CUpti_SubscriberHandle);
    CUptiResult (*enable_callback)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain,
                                   CUpti_CallbackId);
} cu;

static void *cupti_lib;
static CUpti_SubscriberHandle subscriber;
static int subscribed;
static size_t buffer_size = 4u << 20;
ecl_gpu_clock ecl_gpu_cupti_clock;
static uint64_t last_pair_ticks;

static const char *why(CUptiResult r)
{
    const char *s = NULL;
    if (cu.get_result_string == NULL || cu.get_result_string(r, &s) != CUPTI_SUCCESS || s == NULL)
        return "unknown CUPTI error";
    return s;
}

static void *load_cupti(char *tried, size_t len)
{
    const char *env = getenv("ECL_CUPTI_LIB");
    const char *names[] = { env, "libcupti.so.13", "libcupti.so",
                            ECL_CUDA_DIR "/lib64/libcupti.so",
                            ECL_CUDA_DIR "/extras/CUPTI/lib64/libcupti.so", NULL };
    size_t used = 0;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (names[i] == NULL || names[i][0] == '\0')
            continue;
        void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (h != NULL)
            return h;
        if (used < len)
            used += (size_t)snprintf(tried + used, len - used, "%s%s", used ? ", " : "", names[i]);
    }
    return NULL;
}

static uint64_t cupti_now(void)
{
    uint64_t t = 0;
    cu.timestamp(&t);
    return t;
}

/* A new clock pair (at most one a second; each also in the trace). */
static void clock_pair(int force)
{
    uint64_t now = ecl_sys_clock_now();
    double tps = ecl_sys_clock_ticks_per_second();
    if (!force && ecl_gpu_cupti_clock.valid && (double)(now - last_pair_ticks) < tps)
        return;
    last_pair_ticks = now;
    uint64_t src, ticks;
    uint64_t bracket = ecl_gpu_clock_pair(cupti_now, 9, &src, &ticks);
    if (bracket == UINT64_MAX)
        return;
    ecl_gpu_clock_add(&ecl_gpu_cupti_clock, src, ticks, bracket);
    uint8_t rec[64], *p = rec;
    p = ecl_buf_put_uleb(p, 1);
    p = ecl_buf_put_uleb(p, 0);
    p = ecl_buf_put_uleb(p, src);
    p = ecl_buf_put_uleb(p, ticks);
    p = ecl_buf_put_uleb(p, bracket / 2);
    ecl_trace_write_definition(ECL_REC_GPU_CLOCK, rec, (size_t)(p - rec));
}

/* ---- kernel names and launch configurations ---- */

typedef struct kname {
    struct kname *next;          /* same pointer, other text (a module reloaded) */
    const char *ptr;             /* the pointer it was found under */
    uint32_t region;
    char *shown;                 /* demangled (or as CUPTI gave it) */
    char mangled[];
} kname;

static ecl_map knames;

typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);

/* The region of a kernel name, and the name shown (*shown, kept). */
static uint32_t kernel_region(const char *name, const char **shown)
{
    if (name == NULL)
        name = "<unknown kernel>";
    uint64_t key = (uint64_t)(uintptr_t)name;
    kname *head = ecl_map_get(&knames, key);
    for (kname *k = head; k != NULL; k = k->next)
        if (strcmp(k->mangled, name) == 0) {
            *shown = k->shown;
            return k->region;
        }
    static demangle_fn demangle;
    static int looked;
    if (!looked) {
        /* C++'s demangler: there in CUDA programs (nvcc links libstdc++);
         * in a C program, from libstdc++ loaded for it */
        demangle = (demangle_fn)dlsym(RTLD_DEFAULT, "__cxa_demangle");
        if (demangle == NULL) {
            void *cxx = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
            if (cxx != NULL)
                demangle = (demangle_fn)dlsym(cxx, "__cxa_demangle");
        }
        looked = 1;
    }
    char *d = NULL;
    if (demangle != NULL && name[0] == '_' && name[1] == 'Z') {
        int status = -1;
        d = demangle(name, NULL, NULL, &status);
        if (status != 0) {
            free(d);
            d = NULL;
        }
    }
    uint32_t region = ecl_auto_region(d != NULL ? d : name);
    size_t n = strlen(name);
    kname *k = malloc(sizeof *k + n + 1);
    if (k == NULL) {
        free(d);
        *shown = "<kernel>";
        return region;
    }
    k->region = region;
    k->ptr = name;
    memcpy(k->mangled, name, n + 1);
    k->shown = d != NULL ? d : k->mangled;
    k->next = head;
    *shown = k->shown;
    if (ecl_map_put(&knames, key, k) != 0) {
        *shown = "<kernel>";
        free(d);
        free(k);
    }
    return region;
}

/* The same from a CUDA call's thread: lock-free when the name is known
 * (the common case: every launch of a known kernel). */
uint32_t ecl_gpu_cupti_kernel(const char *name)
{
    kname *head = ecl_map_get(&knames, (uint64_t)(uintptr_t)name);
    for (kname *k = head; k != NULL; k = k->next)
        if (k->ptr == name)
            return k->region;
    const char *shown;
    pthread_mutex_lock(&ecl_gpu_lock);
    uint32_t r = kernel_region(name, &shown);
    pthread_mutex_unlock(&ecl_gpu_lock);
    return r;
}

typedef struct kconfig {
    struct kconfig *next;
    uint32_t v[9];               /* region, grid xyz, block xyz, shared, registers */
    uint32_t id;
} kconfig;

static ecl_map kconfigs;
static uint32_t next_config;

static uint32_t kernel_config(const uint32_t v[9], const char *name)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (int i = 0; i < 9; i++) {
        h ^= v[i];
        h *= 0x100000001b3ull;
    }
    if (h == 0)
        h = 1;
    kconfig *head = ecl_map_get(&kconfigs, h);
    for (kconfig *c = head; c != NULL; c = c->next)
        if (memcmp(c->v, v, sizeof c->v) == 0)
            return c->id;
    kconfig *c = malloc(sizeof *c);
    if (c == NULL)
        return 0;
    memcpy(c->v, v, sizeof c->v);
    c->id = ++next_config;
    c->next = head;
    if (ecl_map_put(&kconfigs, h, c) != 0) {
        free(c);
        return 0;
    }
    /* gpu_kernel_def: config, name, grid, block, shared, registers */
    size_t n = strlen(name);
    uint8_t *rec = malloc(n + 128), *p = rec;
    if (rec == NULL)
        return c->id;
    p = ecl_buf_put_uleb(p, c->id);
    p = ecl_buf_put_str(p, name, n);
    for (int i = 1; i < 9; i++)
        p = ecl_buf_put_uleb(p, v[i]);
    ecl_trace_write_definition(ECL_REC_GPU_KERNEL_DEF, rec, (size_t)(p - rec));
    free(rec);
    return c->id;
}

/* ---- the mapping ---- */

static const char *copy_name(unsigned kind)
{
    switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return "memcpy HtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return "memcpy DtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA: return "memcpy HtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH: return "memcpy AtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA: return "memcpy AtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD: return "memcpy AtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA: return "memcpy DtoA";
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return "memcpy DtoD";
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return "memcpy HtoH";
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return "memcpy PtoP";
    default: return "memcpy";
    }
}

/* A copy's direction seen from the device: 1 host to device, -1 device to
 * host, 0 neither (within a device, between devices, host to host). */
static int copy_direction(unsigned kind)
{
    switch (kind) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA: return 1;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH: return -1;
    default: return 0;
    }
}

static const char *sync_name(unsigned type)
{
    switch (type) {
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE: return "cudaEventSynchronize";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT: return "cudaStreamWaitEvent";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE: return "cudaStreamSynchronize";
    case CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE: return "cudaDeviceSynchronize";
    default: return "synchronize";
    }
}

/* Region ids of the fixed names, defined before any activity (a definition
 * must come before the records that use it, in time too). */
static uint32_t copy_regions[11], memset_region, sync_regions[5];

static uint32_t named_region(uint32_t *cache, const char *name)
{
    if (*cache == 0)
        *cache = ecl_auto_region(name);
    return *cache;
}

void ecl_gpu_cupti_define_names(void)
{
    for (unsigned i = 0; i < 11; i++)
        named_region(&copy_regions[i], copy_name(i));
    named_region(&memset_region, "memset");
    for (unsigned i = 0; i < 5; i++)
        named_region(&sync_regions[i], sync_name(i));
}

/* Starts a record at the end time of an activity on loc; writes the
 * region and duration fields. */
#define BEGIN_ACTIVITY(loc, type, start, end, region)                                         \
    ecl_buf_hot *prev_ = ecl_buf_location_enter(loc);                                       \
    uint64_t t1_ = ecl_gpu_clock_ticks(clock, (end)), t0_ = ecl_gpu_clock_ticks(clock, (start)); \
    ecl_buf_hot *t_;                                                                        \
    uint64_t now_;                                                                          \
    uint8_t *p = ecl_buf_begin_at((type), ECL_BUF_HEADER_MAX + 8 * 10, t1_, &t_, &now_);    \
    if (p != NULL) {                                                                        \
        p = ecl_buf_put_uleb(p, (region));                                                  \
        p = ecl_buf_put_uleb(p, t1_ > t0_ ? t1_ - t0_ : 0);

#define END_ACTIVITY()                                                                      \
        ecl_buf_commit(t_, p, now_);                                                        \
    }                                                                                       \
    ecl_buf_location_leave(prev_);

/* ECL's own CUDA work (ecl_cuda.h's calibration and stamp copies, between
 * ecl_gpu_tool_enter and _leave) is not the program's: the correlation ids
 * of its runtime calls go into a small direct-mapped table, and activity
 * records that carry one are counted (ECL_GPU_STATS "tool=") and left out.
 * A slot is overwritten only by an id 4096 calls later, long after CUPTI
 * has delivered the record it marks. */
#define TOOL_SLOTS 4096u
static uint32_t tool_ids[TOOL_SLOTS];
static int tool_any;

static void tool_mark(uint32_t corr)
{
    if (corr == 0)
        return;
    __atomic_store_n(&tool_ids[corr % TOOL_SLOTS], corr, __ATOMIC_RELAXED);
    __atomic_store_n(&tool_any, 1, __ATOMIC_RELEASE);
}

static int tool_work(uint32_t corr)
{
    return corr != 0 && __atomic_load_n(&tool_any, __ATOMIC_ACQUIRE) &&
           __atomic_load_n(&tool_ids[corr % TOOL_SLOTS], __ATOMIC_RELAXED) == corr;
}

/* The runtime correlation id of an activity record (0 if it has none). */
static uint32_t activity_correlation(const CUpti_Activity *a)
{
    switch (a->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
        return ((const CUpti_ActivityKernel10 *)a)->correlationId;
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const CUpti_ActivityMemcpy6 *m = (const CUpti_ActivityMemcpy6 *)a;
        return m->runtimeCorrelationId ? m->runtimeCorrelationId : m->correlationId;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET:
        return ((const CUpti_ActivityMemset4 *)a)->correlationId;
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
        return ((const CUpti_ActivitySynchronization2 *)a)->correlationId;
    default:
        return 0;
    }
}

void ecl_gpu_cupti_map(const void *record, const ecl_gpu_clock *clock)
{
    const CUpti_Activity *a = record;
    if (tool_work(activity_correlation(a))) {
        ecl_gpu_st.tool++;
        return;
    }
    switch (a->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        const CUpti_ActivityKernel10 *k = record;
        ecl_buf_location *loc =
            ecl_gpu_location(ECL_GPU_LOC_STREAM, k->deviceId, k->contextId, k->streamId, 0);
        if (loc == NULL)
            return;
        const char *shown;
        uint32_t region = kernel_region(k->name, &shown);
        uint32_t v[9] = { region, (uint32_t)k->gridX, (uint32_t)k->gridY, (uint32_t)k->gridZ,
                          (uint32_t)k->blockX, (uint32_t)k->blockY, (uint32_t)k->blockZ,
                          (uint32_t)(k->staticSharedMemory + k->dynamicSharedMemory),
                          k->registersPerThread };
        uint32_t config = kernel_config(v, shown);
        BEGIN_ACTIVITY(loc, ECL_REC_GPU_KERNEL, k->start, k->end, region)
        p = ecl_buf_put_uleb(p, config);
        p = ecl_buf_put_uleb(p, k->correlationId);
        p = ecl_buf_put_uleb(p, k->deviceId);
        END_ACTIVITY()
        ecl_gpu_st.kernels++;
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const CUpti_ActivityMemcpy6 *m = record;
        ecl_buf_location *loc =
            ecl_gpu_location(ECL_GPU_LOC_STREAM, m->deviceId, m->contextId, m->streamId, 0);
        if (loc == NULL)
            return;
        unsigned kind = m->copyKind <= 10 ? m->copyKind : 0;
        uint32_t region = named_region(&copy_regions[kind], copy_name(kind));
        BEGIN_ACTIVITY(loc, ECL_REC_GPU_COPY, m->start, m->end, region)
        int dir = copy_direction(m->copyKind);
        p = ecl_buf_put_uleb(p, m->copyKind);
        p = ecl_buf_put_uleb(p, dir > 0 ? m->bytes : 0);     /* to the device */
        p = ecl_buf_put_uleb(p, dir < 0 ? m->bytes : 0);     /* from the device */
        p = ecl_buf_put_uleb(p, dir == 0 ? m->bytes : 0);
        p = ecl_buf_put_uleb(p, m->runtimeCorrelationId ? m->runtimeCorrelationId
                                                        : m->correlationId);
        p = ecl_buf_put_uleb(p, m->deviceId);
        END_ACTIVITY()
        ecl_gpu_st.copies++;
        ecl_gpu_st.copy_bytes += m->bytes;
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
        const CUpti_ActivityMemset4 *m = record;
        ecl_buf_location *loc =
            ecl_gpu_location(ECL_GPU_LOC_STREAM, m->deviceId, m->contextId, m->streamId, 0);
        if (loc == NULL)
            return;
        uint32_t region = named_region(&memset_region, "memset");
        BEGIN_ACTIVITY(loc, ECL_REC_GPU_MEMSET, m->start, m->end, region)
        p = ecl_buf_put_uleb(p, m->bytes);
        p = ecl_buf_put_uleb(p, m->value);
        p = ecl_buf_put_uleb(p, m->correlationId);
        p = ecl_buf_put_uleb(p, m->deviceId);
        END_ACTIVITY()
        ecl_gpu_st.memsets++;
        break;
    }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
        const CUpti_ActivitySynchronization2 *s = record;
        ecl_buf_location *loc = ecl_gpu_location(ECL_GPU_LOC_SYNC, 0, s->contextId, 0, 0);
        if (loc == NULL)
            return;
        unsigned type = s->type <= 4 ? (unsigned)s->type : 0;
        uint32_t region = named_region(&sync_regions[type], sync_name(type));
        BEGIN_ACTIVITY(loc, ECL_REC_GPU_SYNC, s->start, s->end, region)
        p = ecl_buf_put_uleb(p, s->streamId == UINT32_MAX ? 0 : s->streamId);
        p = ecl_buf_put_uleb(p, s->correlationId);
        END_ACTIVITY()
        ecl_gpu_st.syncs++;
        break;
    }
    default:
        return;
    }
    ecl_gpu_st.records++;
}

/* ---- CUPTI's buffers ---- */

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    *buffer = aligned_alloc(8, buffer_size);
    *size = *buffer != NULL ? buffer_size : 0;
    *max_records = 0;
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
                                      size_t valid)
{
    (void)size;
    if (buffer == NULL)
        return;
    pthread_mutex_lock(&ecl_gpu_lock);
    if (ecl_trace_is_open() && ecl_buf_is_active()) {
        clock_pair(0);
        CUpti_Activity *rec = NULL;
        if (ecl_gpu_stats_on) {
            /* ECL's own cost on top of CUPTI's: the mapping alone */
            uint64_t t = 0;
            while (cu.next_record(buffer, valid, &rec) == CUPTI_SUCCESS) {
                uint64_t t0 = ecl_sys_clock_now();
                ecl_gpu_cupti_map(rec, &ecl_gpu_cupti_clock);
                t += ecl_sys_clock_now() - t0;
            }
            ecl_gpu_st.map_ticks += t;
        } else {
            while (cu.next_record(buffer, valid, &rec) == CUPTI_SUCCESS)
                ecl_gpu_cupti_map(rec, &ecl_gpu_cupti_clock);
        }
        size_t dropped = 0;
        if (cu.dropped(ctx, stream, &dropped) == CUPTI_SUCCESS && dropped > 0) {
            if (ecl_gpu_st.dropped == 0)
                fprintf(stderr, "ecl: CUPTI dropped %zu GPU activity records (a larger "
                        "ECL_GPU_BUFFER_SIZE keeps them)\n", dropped);
            ecl_gpu_st.dropped += dropped;
        }
    }
    pthread_mutex_unlock(&ecl_gpu_lock);
    free(buffer);
}

/* ---- CUDA runtime calls (and driver launches) on their threads ---- */

static ecl_map api_regions;          /* domain, cbid -> region id (as a pointer value) */
static pthread_mutex_t api_lock = PTHREAD_MUTEX_INITIALIZER;
/* runtime calls the thread is inside: driver calls made there are the
 * runtime's own, recorded as the runtime call */
static __thread int in_runtime;

static uint32_t api_region(CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const char *name)
{
    uint64_t key = ((uint64_t)domain << 32 | cbid) + 1;
    void *v = ecl_map_get(&api_regions, key);
    if (v != NULL)
        return (uint32_t)(uintptr_t)v;
    uint32_t r = ecl_auto_region(name != NULL ? name : "cuda call");
    pthread_mutex_lock(&api_lock);
    ecl_map_put(&api_regions, key, (void *)(uintptr_t)r);
    pthread_mutex_unlock(&api_lock);
    return r;
}

void ecl_gpu_cupti_api(uint32_t region, uint64_t t0, uint32_t correlation)
{
    ecl_buf_hot *t;
    uint64_t now;
    uint8_t *p = ecl_buf_begin(ECL_REC_GPU_API, ECL_BUF_HEADER_MAX + 3 * 10, &t, &now);
    if (p == NULL)
        return;
    p = ecl_buf_put_uleb(p, region);
    p = ecl_buf_put_uleb(p, now > t0 && t0 != 0 ? now - t0 : 0);
    p = ecl_buf_put_uleb(p, correlation);
    ecl_buf_commit(t, p, now);
    __atomic_fetch_add(&ecl_gpu_st.apis, 1, __ATOMIC_RELAXED);
}

/* The runtime calls that launch a kernel (their symbolName names it; in
 * other callbacks it is not valid). */
static int is_launch(CUpti_CallbackId cbid)
{
    switch (cbid) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunch_v3020:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunch_ptsz_v7000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000:
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000:
        return 1;
    default:
        return 0;
    }
}

/* The driver calls that launch a kernel: recorded (like runtime calls,
 * with their correlation id) when the program makes them itself, not
 * from inside a runtime call. */
static const CUpti_CallbackId driver_launches[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunch,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchGrid,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
};

static void CUPTIAPI api_callback(void *user, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                                  const void *data)
{
    (void)user;
    /* a context about to go (cudaDeviceReset, the runtime's exit): its
     * records now, while CUPTI still has them */
    if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
        if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING)
            cu.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
        return;
    }
    const CUpti_CallbackData *d = data;
    if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) {
        if (d->callbackSite == CUPTI_API_ENTER)
            in_runtime++;
        else if (in_runtime > 0)
            in_runtime--;
    } else if (domain != CUPTI_CB_DOMAIN_DRIVER_API || in_runtime > 0) {
        return;
    }
    if (!ecl_buf_is_active())
        return;
    if (ecl_gpu_in_tool) {
        if (d->callbackSite == CUPTI_API_ENTER)
            tool_mark(d->correlationId);
        return;
    }
    if (d->callbackSite == CUPTI_API_ENTER) {
        /* a launch names its kernel now, before it runs: the kernel's
         * region is defined before any record of it */
        if ((domain == CUPTI_CB_DOMAIN_DRIVER_API || is_launch(cbid)) && d->symbolName != NULL)
            ecl_gpu_cupti_kernel(d->symbolName);
        *d->correlationData = ecl_sys_clock_now();
        return;
    }
    ecl_gpu_cupti_api(api_region(domain, cbid, d->functionName), *d->correlationData,
                      d->correlationId);
}

/* ---- start, stop ---- */

#define LOAD(field, sym)                                                                    \
    do {                                                                                    \
        *(void **)&cu.field = dlsym(cupti_lib, sym);                                        \
        if (cu.field == NULL) {                                                             \
            fprintf(stderr, "ecl: %s has no %s; GPU activity not recorded\n", "libcupti", sym); \
            goto fail;                                                                      \
        }                                                                                   \
    } while (0)

int ecl_gpu_cupti_start(void)
{
    char tried[1024] = "";
    cupti_lib = load_cupti(tried, sizeof tried);
    if (cupti_lib == NULL) {
        fprintf(stderr, "ecl: CUPTI not found (tried %s; ECL_CUPTI_LIB names it): GPU activity "
                "not recorded\n", tried);
        return -1;
    }
    LOAD(get_result_string, "cuptiGetResultString");
    LOAD(register_callbacks, "cuptiActivityRegisterCallbacks");
    LOAD(enable, "cuptiActivityEnable");
    LOAD(flush_all, "cuptiActivityFlushAll");
    LOAD(next_record, "cuptiActivityGetNextRecord");
    LOAD(dropped, "cuptiActivityGetNumDroppedRecords");
    LOAD(timestamp, "cuptiGetTimestamp");
    LOAD(subscribe, "cuptiSubscribe");
    LOAD(enable_domain, "cuptiEnableDomain");
    LOAD(unsubscribe, "cuptiUnsubscribe");
    LOAD(enable_callback, "cuptiEnableCallback");
    const char *bs = getenv("ECL_GPU_BUFFER_SIZE");
    if (bs != NULL && *bs != '\0') {
        char *end;
        unsigned long long v = strtoull(bs, &end, 10);
        if (*end == '\0' && v >= 65536 && v <= (1ull << 30))   /* else said by ecl_init */
            buffer_size = (size_t)v;
    }
    uint64_t probe;
    CUptiResult r = cu.timestamp(&probe);
    if (r != CUPTI_SUCCESS) {
        fprintf(stderr, "ecl: CUPTI cannot start (%s): GPU activity not recorded\n", why(r));
        goto fail;
    }
    ecl_gpu_cupti_define_names();
    pthread_mutex_lock(&ecl_gpu_lock);
    clock_pair(1);
    pthread_mutex_unlock(&ecl_gpu_lock);
    r = cu.register_callbacks(buffer_requested, buffer_completed);
    if (r != CUPTI_SUCCESS) {
        fprintf(stderr, "ecl: CUPTI refuses activity buffers (%s): GPU activity not recorded\n",
                why(r));
        goto fail;
    }
    static const struct {
        CUpti_ActivityKind kind;
        const char *what;
    } kinds[] = {
        { CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "kernels" },
        { CUPTI_ACTIVITY_KIND_MEMCPY, "memory copies" },
        { CUPTI_ACTIVITY_KIND_MEMSET, "memsets" },
        { CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, "synchronisation" },
    };
    int on = 0;
    char off[256] = "";
    CUptiResult first = CUPTI_SUCCESS;
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        r = cu.enable(kinds[i].kind);
        if (r == CUPTI_SUCCESS) {
            on++;
            continue;
        }
        if (first == CUPTI_SUCCESS)
            first = r;
        size_t k = strlen(off);
        snprintf(off + k, sizeof off - k, "%s%s", k ? ", " : "", kinds[i].what);
    }
    if (on == 0) {             /* one note: no GPU, no driver, another profiler */
        fprintf(stderr, "ecl: CUPTI records no GPU activity here (%s): GPU activity not "
                "recorded\n", why(first));
        goto fail;
    }
    if (off[0] != '\0')
        fprintf(stderr, "ecl: CUPTI cannot record %s (%s); left out\n", off, why(first));
    r = cu.subscribe(&subscriber, api_callback, NULL);
    if (r == CUPTI_SUCCESS) {
        subscribed = 1;
        r = cu.enable_domain(1, subscriber, CUPTI_CB_DOMAIN_RUNTIME_API);
        if (cu.enable_callback(1, subscriber, CUPTI_CB_DOMAIN_RESOURCE,
                               CUPTI_CBID_RESOURCE_CONTEXT_DESTROY_STARTING) != CUPTI_SUCCESS)
            fprintf(stderr, "ecl: CUPTI gives no context-destroy callback: GPU records of a "
                    "context destroyed before ECL finalizes may be lost\n");
        /* driver launches only, not the whole driver domain: every runtime
         * call makes driver calls, which would each pay a callback */
        int dl = 0;
        for (size_t i = 0; i < sizeof driver_launches / sizeof driver_launches[0]; i++)
            dl += cu.enable_callback(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API,
                                     driver_launches[i]) == CUPTI_SUCCESS;
        if (dl == 0)
            fprintf(stderr, "ecl: CUPTI gives no driver launch callbacks: kernels launched "
                    "with cuLaunchKernel are not linked to their calls\n");
    }
    if (r != CUPTI_SUCCESS)
        fprintf(stderr, "ecl: CUPTI callbacks unavailable (%s): CUDA runtime calls not recorded "
                "(GPU activity is)\n", why(r));
    return 0;
fail:
    memset(&cu, 0, sizeof cu);
    return -1;
}

void ecl_gpu_cupti_stop(void)
{
    if (cu.flush_all == NULL)
        return;
    if (subscribed) {
        cu.unsubscribe(subscriber);
        subscribed = 0;
    }
    /* every record still in CUPTI's buffers, now (completed or not) */
    cu.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    /* No cuptiActivityDisable: at exit, after the CUDA runtime's own
     * teardown, it crashes inside CUPTI (seen on an H100, driver 580, CUDA
     * 13.0); records that CUPTI completes after this flush find the trace
     * closed and are not written (buffer_completed). */
    pthread_mutex_lock(&ecl_gpu_lock);
    clock_pair(1);
    pthread_mutex_unlock(&ecl_gpu_lock);
}
