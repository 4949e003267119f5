/* ompt.c -- ECL automatic instrumentation: OpenMP through OMPT, the OpenMP
 * tools interface. An OpenMP runtime that supports it (LLVM's libomp) calls
 * ompt_start_tool when it starts; libecl (linked in, or preloaded by
 * ecl-run) answers with callbacks, so no relink is needed. Group `omp` of
 * ECL_GROUPS (on by default). OpenMP threads are ECL streams (each records
 * into its own buffer). Recorded:
 *   - every thread's implicit task of a parallel region: enter/leave of the
 *     region "omp parallel @FILE:LINE" (so each thread of a team has one
 *     enter/leave per parallel region it took part in);
 *   - worksharing constructs (loops, sections, single, workshare,
 *     distribute, taskloop): enter/leave of "omp for @FILE:LINE", ...;
 *   - barriers (implicit and explicit), taskwait, taskgroup, reductions:
 *     one wait_call record each when it ends ("omp barrier @...", "omp
 *     implicit barrier @...": waiting time, role idle);
 *   - explicit tasks: enter/leave of "omp task @FILE:LINE" each time a
 *     thread starts or resumes it and stops running it;
 *   - thread_begin/thread_end of OpenMP threads.
 * FILE:LINE is the construct's place in the source (the runtime's return
 * address, named by symbols.c); the function's name when there is no line
 * information. */
#include <config.h>

#include "ecl/auto/auto.h"
#include "ecl/ecl.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#ifdef ECL_OMP_TOOLS_H
#include ECL_OMP_TOOLS_H

/* ompt_data_t.value of tasks: a region id and what task it is. */
#define TAG_IMPLICIT (1ull << 40)
#define TAG_EXPLICIT (2ull << 40)
#define TAG_ENTERED (4ull << 40)   /* an explicit task this thread entered */
#define REGION_OF(v) ((uint32_t)((v) & 0xffffffffu))

enum { K_PARALLEL, K_LOOP, K_SECTIONS, K_SINGLE, K_WORKSHARE, K_DISTRIBUTE, K_TASKLOOP,
       K_SCOPE, K_BARRIER, K_IBARRIER, K_TASKWAIT, K_TASKGROUP, K_REDUCTION, K_TASK, K_COUNT };
static const char *const kind_names[K_COUNT] = {
    "omp parallel", "omp for", "omp sections", "omp single", "omp workshare",
    "omp distribute", "omp taskloop", "omp scope", "omp barrier", "omp implicit barrier",
    "omp taskwait", "omp taskgroup", "omp reduction", "omp task",
};

static ecl_map constructs;       /* (code address, kind) -> region id */
static pthread_mutex_t construct_lock = PTHREAD_MUTEX_INITIALIZER;

/* The region of a construct of kind at codeptr, defined at its first use. */
static uint32_t construct_region(int kind, const void *codeptr)
{
    uint64_t key = ((uint64_t)(uintptr_t)codeptr << 4 | (uint64_t)kind) + 1;
    void *v = ecl_map_get(&constructs, key);
    if (ECL_LIKELY(v != NULL))
        return (uint32_t)(uintptr_t)v;
    ecl_buf_in_tool++;
    pthread_mutex_lock(&construct_lock);
    uint32_t id = (uint32_t)(uintptr_t)ecl_map_get(&constructs, key);
    if (id == 0) {
        char name[700];
        if (codeptr != NULL) {
            static ecl_auto_symbol s;     /* under construct_lock */
            ecl_auto_symbol_of((uintptr_t)codeptr, &s);
            const char *file = strrchr(s.file, '/');
            file = file != NULL ? file + 1 : s.file;
            if (file[0] != '\0')
                snprintf(name, sizeof name, "%s @%s:%u", kind_names[kind], file, s.line);
            else
                snprintf(name, sizeof name, "%s @%s", kind_names[kind], s.name);
        } else {
            snprintf(name, sizeof name, "%s", kind_names[kind]);
        }
        id = ecl_auto_region(name);
        if (id != 0)
            ecl_map_put(&constructs, key, (void *)(uintptr_t)id);
    }
    pthread_mutex_unlock(&construct_lock);
    ecl_buf_in_tool--;
    return id;
}

static void enter(uint32_t region)
{
    if (region != 0 && ecl_buf_is_active()) {
        ecl_buf_record_u(ECL_REC_ENTER, region);
        ecl_auto_boundary();
    }
}

static void leave(uint32_t region)
{
    if (region != 0 && ecl_buf_is_active()) {
        ecl_buf_record_u(ECL_REC_LEAVE, region);
        ecl_auto_boundary();
    }
}

/* Sync regions of a thread: begin times, to record each as one call. */
#define SYNC_DEPTH 16
static __thread uint64_t sync_t0[SYNC_DEPTH];
static __thread unsigned sync_depth;
/* Worksharing constructs a thread is in: their regions. */
#define WORK_DEPTH 16
static __thread uint32_t work_region[WORK_DEPTH];
static __thread unsigned work_depth;
/* The explicit task the thread runs (its ompt_data_t), NULL none. */
static __thread ompt_data_t *current_task;

static void on_thread_begin(ompt_thread_t type, ompt_data_t *data)
{
    (void)type;
    (void)data;
    ecl_auto_thread_begin(0);
}

static void on_thread_end(ompt_data_t *data)
{
    (void)data;
    ecl_auto_thread_end();
}

static void on_parallel_begin(ompt_data_t *task, const ompt_frame_t *frame, ompt_data_t *parallel,
                              unsigned int requested, int flags, const void *codeptr)
{
    (void)task;
    (void)frame;
    (void)requested;
    (void)flags;
    parallel->value = construct_region(K_PARALLEL, codeptr);
}

static void on_implicit_task(ompt_scope_endpoint_t endpoint, ompt_data_t *parallel,
                             ompt_data_t *task, unsigned int actual, unsigned int index,
                             int flags)
{
    (void)actual;
    (void)index;
    if (flags & ompt_task_initial)
        return;
    if (endpoint == ompt_scope_begin) {
        uint32_t region = parallel != NULL ? (uint32_t)parallel->value : 0;
        if (region == 0)
            region = construct_region(K_PARALLEL, NULL);
        task->value = TAG_IMPLICIT | region;
        enter(region);
    } else if (endpoint == ompt_scope_end && (task->value & TAG_IMPLICIT)) {
        leave(REGION_OF(task->value));
        task->value = 0;
    }
}

static void on_work(ompt_work_t wstype, ompt_scope_endpoint_t endpoint, ompt_data_t *parallel,
                    ompt_data_t *task, uint64_t count, const void *codeptr)
{
    (void)parallel;
    (void)task;
    (void)count;
    int kind;
    switch (wstype) {
    case ompt_work_loop: kind = K_LOOP; break;
    case ompt_work_sections: kind = K_SECTIONS; break;
    case ompt_work_single_executor: case ompt_work_single_other: kind = K_SINGLE; break;
    case ompt_work_workshare: kind = K_WORKSHARE; break;
    case ompt_work_distribute: kind = K_DISTRIBUTE; break;
    case ompt_work_taskloop: kind = K_TASKLOOP; break;
    default: kind = K_SCOPE; break;
    }
    /* The end's return address is another line than the begin's: the
     * region entered is the one left. */
    if (endpoint == ompt_scope_begin) {
        uint32_t region = construct_region(kind, codeptr);
        if (work_depth < WORK_DEPTH)
            work_region[work_depth] = region;
        work_depth++;
        enter(region);
    } else if (endpoint == ompt_scope_end && work_depth > 0) {
        work_depth--;
        if (work_depth < WORK_DEPTH)
            leave(work_region[work_depth]);
    }
}

static void on_sync_region(ompt_sync_region_t kind, ompt_scope_endpoint_t endpoint,
                           ompt_data_t *parallel, ompt_data_t *task, const void *codeptr)
{
    (void)parallel;
    (void)task;
    if (endpoint == ompt_scope_begin) {
        if (sync_depth < SYNC_DEPTH)
            sync_t0[sync_depth] = ecl_sys_clock_now();
        sync_depth++;
        return;
    }
    if (endpoint != ompt_scope_end || sync_depth == 0)
        return;
    sync_depth--;
    if (sync_depth >= SYNC_DEPTH || !ecl_buf_is_active())
        return;
    int k;
    switch ((int)kind) {
    case ompt_sync_region_barrier_explicit: k = K_BARRIER; break;
    case 1: /* ompt_sync_region_barrier (OpenMP 5.0) */
    case 2: /* ompt_sync_region_barrier_implicit (5.0) */
    case ompt_sync_region_barrier_implementation:
    case ompt_sync_region_barrier_implicit_workshare:
    case ompt_sync_region_barrier_implicit_parallel:
    case ompt_sync_region_barrier_teams: k = K_IBARRIER; break;
    case ompt_sync_region_taskwait: k = K_TASKWAIT; break;
    case ompt_sync_region_taskgroup: k = K_TASKGROUP; break;
    default: k = K_REDUCTION; break;
    }
    uint32_t region = construct_region(k, codeptr);
    ecl_buf_hot *t;
    uint64_t now;
    uint8_t *p = ecl_buf_begin(ECL_REC_WAIT_CALL, ECL_BUF_SMALL, &t, &now);
    if (p != NULL) {
        uint64_t t0 = sync_t0[sync_depth];
        p = ecl_buf_put_uleb(p, region);
        p = ecl_buf_put_uleb(p, now > t0 ? now - t0 : 0);
        ecl_buf_commit(t, p, now);
    }
}

static void on_task_create(ompt_data_t *encountering, const ompt_frame_t *frame,
                           ompt_data_t *new_task, int flags, int has_dependences,
                           const void *codeptr)
{
    (void)encountering;
    (void)frame;
    (void)has_dependences;
    if (flags & ompt_task_explicit)
        new_task->value = TAG_EXPLICIT | construct_region(K_TASK, codeptr);
}

static void on_task_schedule(ompt_data_t *prior, ompt_task_status_t status, ompt_data_t *next)
{
    (void)status;
    if (prior != NULL && prior == current_task && (prior->value & TAG_ENTERED)) {
        leave(REGION_OF(prior->value));
        prior->value &= ~TAG_ENTERED;
    }
    current_task = NULL;
    if (next != NULL && (next->value & TAG_EXPLICIT)) {
        next->value |= TAG_ENTERED;
        current_task = next;
        enter(REGION_OF(next->value));
    }
}

static int tool_initialize(ompt_function_lookup_t lookup, int device, ompt_data_t *data)
{
    (void)device;
    (void)data;
    ecl_buf_in_tool++;
    ecl_init();
    ecl_buf_in_tool--;
    if (!(__atomic_load_n(&ecl_auto_groups, __ATOMIC_ACQUIRE) & ECL_API_G_OMP))
        return 0;                /* the runtime then calls nothing more */
    ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
    if (set == NULL)
        return 0;
    set(ompt_callback_thread_begin, (ompt_callback_t)on_thread_begin);
    set(ompt_callback_thread_end, (ompt_callback_t)on_thread_end);
    set(ompt_callback_parallel_begin, (ompt_callback_t)on_parallel_begin);
    set(ompt_callback_implicit_task, (ompt_callback_t)on_implicit_task);
    set(ompt_callback_work, (ompt_callback_t)on_work);
    set(ompt_callback_sync_region, (ompt_callback_t)on_sync_region);
    set(ompt_callback_task_create, (ompt_callback_t)on_task_create);
    set(ompt_callback_task_schedule, (ompt_callback_t)on_task_schedule);
    __atomic_store_n(&ecl_auto_finalize_later, 1, __ATOMIC_RELEASE);
    return 1;
}

static void tool_finalize(ompt_data_t *data)
{
    (void)data;
    /* The runtime shuts down after the exit handlers ran, and only then
     * reports the end of the last parallel region on its worker threads:
     * the trace is finalized here, not in ECL's exit handler (api.c). */
    ecl_finalize();
}

ECL_API ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version,
                                                  const char *runtime_version);

ECL_API ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version,
                                                  const char *runtime_version)
{
    (void)omp_version;
    (void)runtime_version;
    static ompt_start_tool_result_t result = { tool_initialize, tool_finalize, { 0 } };
    return &result;
}

#else
/* No omp-tools.h at configure time: no OMPT tool in this build. */
typedef int ecl_auto_no_ompt;
#endif
