/* threads.c -- ECL automatic instrumentation: threads and their waits, by
 * interposing the pthread functions (libecl linked in, or preloaded by
 * ecl-run). Group `threads` (ECL_GROUPS, on by default): pthread_create
 * gives the new thread a thread_begin record naming its parent's stream and
 * a thread_end when it returns or calls pthread_exit; pthread_join is a
 * waiting region. Group `sync` (off by default): a pthread_mutex_lock that
 * has to wait (a pthread_mutex_trylock first fails), pthread_cond_wait,
 * pthread_cond_timedwait and pthread_barrier_wait are waiting regions.
 * Inside ECL (ecl_buf_in_tool) every wrapper passes straight through. */
#include <config.h>

#include "ecl/auto/auto.h"
#include "ecl/ecl.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

static __thread int thread_begun __attribute__((tls_model("initial-exec")));

void ecl_auto_wait_enter(uint32_t region)
{
    if (region != 0 && ecl_buf_is_active())
        ecl_buf_record_u(ECL_REC_WAIT_ENTER, region);
}

void ecl_auto_wait_leave(uint32_t region)
{
    if (region != 0 && ecl_buf_is_active())
        ecl_buf_record_u(ECL_REC_WAIT_LEAVE, region);
}

void ecl_auto_thread_begin(uint32_t parent)
{
    if (thread_begun || !ecl_buf_is_active())
        return;
    thread_begun = 1;
    ecl_buf_record_u(ECL_REC_THREAD_BEGIN, parent);
}

void ecl_auto_thread_end(void)
{
    if (!thread_begun || !ecl_buf_is_active())
        return;
    thread_begun = 0;
    if (ecl_auto_counters_on)
        ecl_auto_counters_sample();
    ecl_buf_hot *t;
    uint64_t now;
    uint8_t *p = ecl_buf_begin(ECL_REC_THREAD_END, ECL_BUF_SMALL, &t, &now);
    if (p != NULL)
        ecl_buf_commit(t, p, now);
}

/* A region id per wrapper, defined at its first use. */
#define REGION(var, name)                                                          \
    static uint32_t var;                                                           \
    if (__atomic_load_n(&var, __ATOMIC_RELAXED) == 0)                              \
        __atomic_store_n(&var, ecl_auto_region(name), __ATOMIC_RELAXED)

static int group_on(unsigned g)
{
    return (__atomic_load_n(&ecl_auto_groups, __ATOMIC_RELAXED) & g) != 0 && !ecl_buf_in_tool &&
           ecl_buf_is_active();
}

/* ---------------- threads ---------------- */

typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
typedef int (*join_fn)(pthread_t, void **);

typedef struct start_info {
    void *(*fn)(void *);
    void *arg;
    uint32_t parent;
} start_info;

static void end_thread(void *unused)
{
    (void)unused;
    ecl_auto_thread_end();
}

static void *start_thread(void *p)
{
    start_info s = *(start_info *)p;
    free(p);
    ecl_auto_thread_begin(s.parent);
    void *r;
    pthread_cleanup_push(end_thread, NULL);
    r = s.fn(s.arg);
    pthread_cleanup_pop(1);
    return r;
}

ECL_API int pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *),
                           void *arg)
{
    static void *cache;
    create_fn real = (create_fn)ecl_auto_next("pthread_create", &cache);
    if (real == NULL)
        return EAGAIN;
    if (ecl_buf_in_tool)
        return real(th, attr, fn, arg);
    /* A program's first thread starts tracing (ecl-run of a program that
     * makes no other ECL call first); ECL's own writer thread, created in
     * there, passes through. */
    ecl_buf_in_tool++;
    ecl_init();
    ecl_buf_in_tool--;
    if (!group_on(ECL_API_G_THREADS))
        return real(th, attr, fn, arg);
    start_info *s = malloc(sizeof *s);
    if (s == NULL)
        return real(th, attr, fn, arg);
    s->fn = fn;
    s->arg = arg;
    s->parent = ecl_buf_stream_self();
    int r = real(th, attr, start_thread, s);
    if (r != 0)
        free(s);
    return r;
}

ECL_API int pthread_join(pthread_t th, void **ret)
{
    static void *cache;
    join_fn real = (join_fn)ecl_auto_next("pthread_join", &cache);
    if (real == NULL)
        return ESRCH;
    if (!group_on(ECL_API_G_THREADS))
        return real(th, ret);
    REGION(region, "pthread_join");
    ecl_auto_wait_enter(region);
    int r = real(th, ret);
    ecl_auto_wait_leave(region);
    return r;
}

/* ---------------- sync ---------------- */

typedef int (*mutex_fn)(pthread_mutex_t *);
typedef int (*cond_wait_fn)(pthread_cond_t *, pthread_mutex_t *);
typedef int (*cond_timedwait_fn)(pthread_cond_t *, pthread_mutex_t *, const struct timespec *);
typedef int (*barrier_fn)(pthread_barrier_t *);

ECL_API int pthread_mutex_lock(pthread_mutex_t *m)
{
    static void *cache, *cache_try;
    mutex_fn real = (mutex_fn)ecl_auto_next("pthread_mutex_lock", &cache);
    if (real == NULL)
        return EINVAL;
    if (!group_on(ECL_API_G_SYNC))
        return real(m);
    /* Only a lock that has to wait is recorded: an uncontended one costs a
     * trylock. */
    mutex_fn try = (mutex_fn)ecl_auto_next("pthread_mutex_trylock", &cache_try);
    if (try != NULL) {
        int t = try(m);
        if (t != EBUSY)
            return t == 0 ? 0 : real(m);
    }
    REGION(region, "pthread_mutex_lock");
    ecl_auto_wait_enter(region);
    int r = real(m);
    ecl_auto_wait_leave(region);
    return r;
}

ECL_API int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
    static void *cache;
    cond_wait_fn real = (cond_wait_fn)ecl_auto_next("pthread_cond_wait", &cache);
    if (real == NULL)
        return EINVAL;
    if (!group_on(ECL_API_G_SYNC))
        return real(c, m);
    REGION(region, "pthread_cond_wait");
    ecl_auto_wait_enter(region);
    int r = real(c, m);
    ecl_auto_wait_leave(region);
    return r;
}

ECL_API int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
                                   const struct timespec *abstime)
{
    static void *cache;
    cond_timedwait_fn real = (cond_timedwait_fn)ecl_auto_next("pthread_cond_timedwait", &cache);
    if (real == NULL)
        return EINVAL;
    if (!group_on(ECL_API_G_SYNC))
        return real(c, m, abstime);
    REGION(region, "pthread_cond_timedwait");
    ecl_auto_wait_enter(region);
    int r = real(c, m, abstime);
    ecl_auto_wait_leave(region);
    return r;
}

ECL_API int pthread_barrier_wait(pthread_barrier_t *b)
{
    static void *cache;
    barrier_fn real = (barrier_fn)ecl_auto_next("pthread_barrier_wait", &cache);
    if (real == NULL)
        return EINVAL;
    if (!group_on(ECL_API_G_SYNC))
        return real(b);
    REGION(region, "pthread_barrier_wait");
    ecl_auto_wait_enter(region);
    int r = real(b);
    ecl_auto_wait_leave(region);
    return r;
}
