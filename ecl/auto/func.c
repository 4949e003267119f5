/* func.c -- ECL automatic instrumentation: functions compiled with
 * -finstrument-functions (gcc, clang) call __cyg_profile_func_enter and
 * __cyg_profile_func_exit; these record enter/leave of the function's region.
 *
 * Each function is looked at once, on its first call: its name, source file
 * and line are resolved (symbols.c), the filter decides (filter.c), and an
 * included function gets a region (region_def) and a region_source
 * definition. The result goes into a map from the function's address, read
 * without a lock, so a later call costs a probe of that map: a filtered-out
 * function stops there; an included one is pushed on the thread's call
 * stack and records `enter`. The exit hook compares the function with the
 * top of the thread's stack, so a filtered-out function costs one compare
 * there, and records `leave` when the enter was recorded.
 *
 * Limits (ECL_FUNC_DEPTH, ECL_FUNC_MAX_CALLS) leave calls out; each function's
 * left-out calls are counted and written as `suppressed` records at
 * finalize, so nothing disappears silently. */
#include <config.h>

#include "ecl/auto/auto.h"
#include "ecl/ecl.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Deepest stack a thread keeps (ECL_FUNC_DEPTH is at most this). */
#define STACK_MAX 4096

enum { SUPP_DEPTH = 1, SUPP_CALLS = 2 };

typedef struct fn_info {
    uint32_t region;             /* 0: not recorded (filtered out, or no name) */
    uint64_t calls;              /* recorded calls, counted only with a call limit */
    uint64_t supp_depth;         /* calls left out by the depth limit */
    uint64_t supp_calls;         /* calls left out by the call limit */
    struct fn_info *next;        /* every function, for the counts at finalize */
} fn_info;

typedef struct frame {
    uintptr_t fn;
    uint32_t region;             /* 0: its enter was not recorded */
} frame;

typedef struct fn_thread {
    uint32_t depth;              /* frames in use */
    uint32_t limit;              /* frames allowed: min(ECL_FUNC_DEPTH, STACK_MAX) */
    uint32_t over;               /* calls in progress beyond the limit */
    frame frames[];
} fn_thread;

static ecl_map fns;
static fn_info *all_fns;
static pthread_mutex_t fn_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t fn_key;
static int fn_key_ok;
static unsigned depth_limit = STACK_MAX;
static uint64_t max_calls;
static uint64_t note_records;     /* ECL_FUNC_NOTE */
static int func_on;              /* the functions group, set at init */
static ecl_auto_filter *filter;

static __thread fn_thread *fn_self __attribute__((tls_model("initial-exec")));

/* The marker of a function that is not recorded: shared, never freed. */
static fn_info not_recorded;

static void fn_thread_free(void *p)
{
    free(p);
    fn_self = NULL;
}

int ecl_auto_func_init(const ecl_api_auto_config *cfg, char *err, size_t errlen)
{
    if (cfg->filter[0] != '\0' && ecl_auto_filter_load(cfg->filter, &filter, err, errlen) != 0)
        return -1;
    depth_limit = cfg->depth != 0 && cfg->depth < STACK_MAX ? cfg->depth : STACK_MAX;
    max_calls = cfg->max_calls;
    note_records = cfg->note_records;
    if (pthread_key_create(&fn_key, fn_thread_free) == 0)
        fn_key_ok = 1;
    __atomic_store_n(&func_on, (cfg->groups & ECL_API_G_FUNCTIONS) != 0, __ATOMIC_RELEASE);
    return 0;
}

/* The region_source definition: where the function of region is. */
static void write_source(uint32_t region, const ecl_auto_symbol *s)
{
    size_t nf = strlen(s->file), nm = strlen(s->module);
    uint8_t *buf = malloc(64 + nf + nm), *p = buf;
    if (buf == NULL)
        return;
    p = ecl_buf_put_uleb(p, region);
    p = ecl_buf_put_str(p, s->file, nf);
    p = ecl_buf_put_uleb(p, s->line);
    p = ecl_buf_put_str(p, s->module, nm);
    p = ecl_buf_put_uleb(p, s->start);
    ecl_trace_write_definition(ECL_REC_REGION_SOURCE, buf, (size_t)(p - buf));
    free(buf);
}

/* First call of fn: decide once, publish in the map. NULL: not now (inside
 * ECL, or tracing not started), the call is not recorded. */
static fn_info *__attribute__((noinline)) fn_first(uintptr_t fn)
{
    if (ecl_buf_in_tool)
        return NULL;
    ecl_buf_in_tool++;
    ecl_init();                  /* the first instrumented call starts tracing */
    fn_info *f = NULL;
    pthread_mutex_lock(&fn_lock);
    f = ecl_map_get(&fns, fn);
    if (f != NULL)
        goto out;
    f = &not_recorded;
    if (__atomic_load_n(&func_on, __ATOMIC_ACQUIRE)) {
        static ecl_auto_symbol sym;       /* under fn_lock */
        ecl_auto_symbol_of(fn, &sym);
        if (filter == NULL || ecl_auto_filter_includes(filter, sym.name, sym.file)) {
            fn_info *n = calloc(1, sizeof *n);
            if (n != NULL && (n->region = ecl_trace_region(sym.name)) != 0) {
                write_source(n->region, &sym);
                n->next = all_fns;
                all_fns = n;
                f = n;
            } else {
                free(n);
            }
        }
    }
    /* Without the functions group (or with tracing off) every function is
     * "not recorded", decided once like a filtered-out one. */
    if (ecl_map_put(&fns, fn, f) != 0 && f != &not_recorded)
        f = &not_recorded;       /* not in the map: asked again next time */
out:
    pthread_mutex_unlock(&fn_lock);
    ecl_buf_in_tool--;
    return f;
}

static fn_thread *__attribute__((noinline)) thread_first(void)
{
    if (ecl_buf_in_tool)
        return NULL;
    fn_thread *t = malloc(sizeof *t + STACK_MAX * sizeof t->frames[0]);
    if (t == NULL)
        return NULL;
    t->depth = 0;
    t->over = 0;
    t->limit = depth_limit;
    if (fn_key_ok)
        pthread_setspecific(fn_key, t);
    fn_self = t;
    return t;
}

/* A call beyond the depth limit (or with no stack): counted. */
static void __attribute__((noinline)) enter_deep(fn_thread *t, fn_info *f)
{
    if (t == NULL)
        return;
    t->over++;
    __atomic_fetch_add(&f->supp_depth, 1, __ATOMIC_RELAXED);
}

static void __attribute__((noinline)) exit_deep(fn_thread *t, uintptr_t fn)
{
    fn_info *f = ecl_map_get(&fns, fn);
    if (f == NULL || f->region == 0)
        return;                  /* a filtered-out function's exit */
    t->over--;
}

__attribute__((visibility("default"), no_instrument_function))
void __cyg_profile_func_enter(void *this_fn, void *call_site);
__attribute__((visibility("default"), no_instrument_function))
void __cyg_profile_func_exit(void *this_fn, void *call_site);

void __cyg_profile_func_enter(void *this_fn, void *call_site)
{
    (void)call_site;
    uintptr_t fn = (uintptr_t)this_fn;
    fn_info *f = ecl_map_get(&fns, fn);
    if (ECL_UNLIKELY(f == NULL) && (f = fn_first(fn)) == NULL)
        return;
    if (f->region == 0)
        return;                  /* filtered out */
    fn_thread *t = fn_self;
    if (ECL_UNLIKELY(t == NULL || t->depth >= t->limit || t->over != 0)) {
        if (t == NULL && (t = thread_first()) == NULL)
            return;
        if (t->depth >= t->limit || t->over != 0) {
            enter_deep(t, f);
            return;
        }
    }
    frame *fr = &t->frames[t->depth++];
    fr->fn = fn;
    fr->region = 0;
    if (ECL_UNLIKELY(max_calls != 0) &&
        __atomic_fetch_add(&f->calls, 1, __ATOMIC_RELAXED) >= max_calls) {
        __atomic_fetch_add(&f->supp_calls, 1, __ATOMIC_RELAXED);
        return;
    }
    if (ecl_buf_is_active()) {
        fr->region = f->region;
        ecl_buf_record_u(ECL_REC_ENTER, f->region);
        ecl_auto_boundary();
    }
}

void __cyg_profile_func_exit(void *this_fn, void *call_site)
{
    (void)call_site;
    fn_thread *t = fn_self;
    if (ECL_UNLIKELY(t == NULL))
        return;
    if (ECL_UNLIKELY(t->over != 0)) {
        exit_deep(t, (uintptr_t)this_fn);
        return;
    }
    uint32_t d = t->depth;
    if (d == 0 || t->frames[d - 1].fn != (uintptr_t)this_fn)
        return;                  /* filtered out, or entered before tracing */
    uint32_t region = t->frames[d - 1].region;
    t->depth = d - 1;
    if (region != 0 && ecl_buf_is_active()) {
        ecl_buf_record_u(ECL_REC_LEAVE, region);
        ecl_auto_boundary();
    }
}

/* One `suppressed` definition per function and reason with a count. */
static void write_suppressed(uint32_t region, unsigned reason, uint64_t count)
{
    uint8_t buf[32], *p = buf;
    p = ecl_buf_put_uleb(p, region);
    p = ecl_buf_put_uleb(p, reason);
    p = ecl_buf_put_uleb(p, count);
    ecl_trace_write_definition(ECL_REC_SUPPRESSED, buf, (size_t)(p - buf));
}

void ecl_auto_flood_note(uint64_t records)
{
    static int said;
    size_t nfn = 0;
    pthread_mutex_lock(&fn_lock);
    for (fn_info *f = all_fns; f != NULL; f = f->next)
        nfn++;
    pthread_mutex_unlock(&fn_lock);
    if (note_records == 0 || nfn == 0 || records < note_records ||
        __atomic_exchange_n(&said, 1, __ATOMIC_ACQ_REL))
        return;
    char line[512];
    snprintf(line, sizeof line,
             "ecl: note: %llu records with %zu instrumented functions; to size a filter, run "
             "`pal-view --suggest-filter TRACE > app.filter` and trace again with "
             "ECL_FILTER=app.filter (doc/instrumentation.md; ECL_FUNC_NOTE=0: no note)\n",
             (unsigned long long)records, nfn);
    ecl_sys_stderr(line);
}

void ecl_auto_func_fini(void)
{
    pthread_mutex_lock(&fn_lock);
    for (fn_info *f = all_fns; f != NULL; f = f->next) {
        uint64_t d = __atomic_load_n(&f->supp_depth, __ATOMIC_RELAXED);
        uint64_t c = __atomic_load_n(&f->supp_calls, __ATOMIC_RELAXED);
        if (d != 0)
            write_suppressed(f->region, SUPP_DEPTH, d);
        if (c != 0)
            write_suppressed(f->region, SUPP_CALLS, c);
    }
    pthread_mutex_unlock(&fn_lock);
}
