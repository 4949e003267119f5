/* gpu.h -- ECL GPU capture (interface layer, ecl/gpu, doc/gpu.md): CUDA
 * kernels, copies, memsets and synchronisation through CUPTI's activity API
 * (cupti.c), GPU metrics through NVML (nvml.c), timestamps from inside
 * kernels (ecl_cuda.h, recorded by gpu.c). CUPTI and NVML are loaded with
 * dlopen: a build with CUDA runs everywhere and records GPU work only where
 * there is a GPU. gpu.c (record types, locations, clock correlation) builds
 * without CUDA too; cupti.c and nvml.c only with it (HAVE_CUDA). Internal to
 * ECL's libraries. */
#ifndef ECL_GPU_H
#define ECL_GPU_H

#include <stddef.h>
#include <stdint.h>

#include <pthread.h>

#include "ecl/core/core.h"
#include "ecl/ecl_cuda.h"

/* Record type ids (the ECL layers' reserved range, after ecl/auto's). */
enum {
    ECL_REC_GPU_KERNEL_DEF = 1010, /* a kernel launch configuration gets an id */
    ECL_REC_GPU_KERNEL = 1011,     /* a kernel ran: call on a GPU stream location */
    ECL_REC_GPU_COPY = 1012,       /* a memcpy ran */
    ECL_REC_GPU_MEMSET = 1013,     /* a memset ran */
    ECL_REC_GPU_SYNC = 1014,       /* the host waited for the GPU (synchronisation) */
    ECL_REC_GPU_API = 1015,        /* a CUDA runtime call on a CPU thread */
    ECL_REC_GPU_LOCATION = 1016,   /* what a GPU location is (stream 0) */
    ECL_REC_GPU_CLOCK = 1017,      /* a clock pair of the correlation (stream 0) */
    ECL_REC_GPU_STAMP = 1018       /* an in-kernel region (ecl_cuda.h) */
};

/* Kinds of GPU locations (gpu_location's kind field). */
enum {
    ECL_GPU_LOC_STREAM = 0,        /* a CUDA stream of a device */
    ECL_GPU_LOC_SYNC = 1,          /* the host's waits of a CUDA context */
    ECL_GPU_LOC_SM = 2             /* one lane of a streaming multiprocessor */
};

/* Called by ecl_init after the trace is open, ecl_finalize before it is
 * closed (flushes CUPTI, stops the sampler). Never fail: a GPU part that
 * cannot start prints one note and stays off. */
void ecl_gpu_init(void);
void ecl_gpu_fini(void);
/* Defines the GPU record types (once per trace; a dictionary chunk). 0 or -1. */
int ecl_gpu_define_types(void);

/* ---- clock correlation: a source of nanoseconds (CUPTI's timestamps, a
 * GPU's globaltimer) mapped linearly onto ECL's clock ticks ---- */
typedef struct ecl_gpu_clock {
    uint64_t src0, ticks0;         /* the first pair */
    uint64_t src1, ticks1;         /* the latest pair */
    double slope;                  /* ticks per source ns */
    uint64_t err_ticks;            /* half the best pair's bracket: its error bound */
    int valid;
} ecl_gpu_clock;
/* One pair: the source read between two ECL clock reads, the narrowest of
 * tries; *src and *ticks at the middle of the bracket. Returns the bracket. */
uint64_t ecl_gpu_clock_pair(uint64_t (*src)(void), int tries, uint64_t *src_ns, uint64_t *ticks);
/* Adds a pair: the first sets the offset; later ones, once at least
 * 100 ms after the first, set the slope from the first to them (before,
 * the slope is the ECL clock's nominal rate). */
void ecl_gpu_clock_add(ecl_gpu_clock *c, uint64_t src_ns, uint64_t ticks, uint64_t bracket);
/* ECL ticks of a source time (0 when the clock has no pair yet). */
uint64_t ecl_gpu_clock_ticks(const ecl_gpu_clock *c, uint64_t src_ns);

/* ---- locations (one trace stream each, named, see doc/gpu.md) ---- */
/* The location of kind (ECL_GPU_LOC_*) for device/context/stream (SM lanes:
 * stream = SM id, lane in sub), created at its first use with a thread_def
 * and a gpu_location record. NULL when the trace is not open. Caller holds
 * ecl_gpu_lock. */
ecl_buf_location *ecl_gpu_location(int kind, uint32_t device, uint32_t context, uint32_t stream,
                                   uint32_t sub);
extern pthread_mutex_t ecl_gpu_lock;
/* Trace time (ticks) at ecl_gpu_init: GPU locations start there. */
extern uint64_t ecl_gpu_t0;

/* Exported (ecl.sym): ecl_cuda.h's host side (declared there, with the
 * stamp record ecl_gpu_stamp and ECL_GPU_BEYOND, one definition for the
 * device and libecl) and the CUDA driver's injection entry
 * (CUDA_INJECTION64_PATH). */
int InitializeInjection(void);

/* The region id of a name (ECL's name table). */
uint32_t ecl_auto_region(const char *name);

/* ---- statistics (ECL_GPU_STATS=1 prints them at finalize) ---- */
typedef struct ecl_gpu_stats {
    uint64_t records;              /* activity records mapped */
    uint64_t map_ticks;            /* ticks spent mapping them (ECL's own cost) */
    uint64_t kernels, copies, memsets, syncs, apis, stamps;
    /* in-kernel regions not recorded: left open at ECL_GPU_END, leave before
     * enter; blocks beyond the buffer */
    uint64_t stamps_open, stamps_backwards, stamps_beyond;
    uint64_t copy_bytes;
    uint64_t dropped;              /* records CUPTI dropped */
    uint64_t tool;                 /* records of ECL's own CUDA work, left out */
    uint64_t sampler_first_ns;     /* CPU time of the first NVML sample round */
    uint64_t samples;              /* NVML rounds after the first (the steady state) */
    uint64_t samples_recorded;     /* counter samples recorded from NVML */
    uint64_t sampler_cpu_ns;       /* CPU time of the sampler thread */
    uint64_t sampler_wall_ns;      /* its life time */
} ecl_gpu_stats;
extern ecl_gpu_stats ecl_gpu_st;
/* ECL_GPU_STATS=1: also time ECL's mapping of each activity record apart
 * from CUPTI's iteration over its buffer (two clock reads per record). */
extern int ecl_gpu_stats_on;
/* Inside ecl_gpu_tool_enter/_leave: the CUDA calls are ECL's own. */
extern __thread int ecl_gpu_in_tool;
void ecl_gpu_print_stats(void);

#ifdef HAVE_CUDA
/* cupti.c: 0 when CUPTI runs; -1 with a note printed. */
int ecl_gpu_cupti_start(void);
void ecl_gpu_cupti_stop(void);
/* Maps one CUPTI activity record (a CUpti_Activity *) into the trace;
 * clock: CUPTI ns -> ticks. Caller holds ecl_gpu_lock. */
void ecl_gpu_cupti_map(const void *record, const ecl_gpu_clock *clock);
/* Defines the regions of copies, memsets and synchronisations (before any
 * activity, at start); the region of a kernel name (a launch calls it on
 * its thread, before the kernel runs). */
void ecl_gpu_cupti_define_names(void);
uint32_t ecl_gpu_cupti_kernel(const char *name);
/* Records a CUDA runtime call (gpu_api) on the calling thread: entered at
 * t0 (ticks), returning now. */
void ecl_gpu_cupti_api(uint32_t region, uint64_t t0, uint32_t correlation);
/* The CUPTI clock model (tests set pairs on it). */
extern ecl_gpu_clock ecl_gpu_cupti_clock;
/* nvml.c: the background sampler at hz samples per second. */
int ecl_gpu_nvml_start(double hz);
void ecl_gpu_nvml_stop(void);
#endif

#endif /* ECL_GPU_H */
