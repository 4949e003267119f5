/* exec.c -- ECL interface layer: the exec family. exec replaces the process
 * image without running exit handlers, so the records still in buffers would
 * be lost: each function here first writes every thread's buffered records to
 * the trace (ecl_trace_before_exec), then calls the C library's function of
 * the same name. A program linked with -lecl, or run under ecl-run (which
 * preloads libecl), calls these instead of the C library's. If exec fails,
 * tracing goes on as before. These functions never start tracing. */
#include <config.h>

#include "ecl/ecl.h"
#include "ecl/core/core.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <unistd.h>

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execv_fn)(const char *, char *const[]);
typedef int (*fexecve_fn)(int, char *const[], char *const[]);

/* The C library's function name, looked up once (*cache). NULL with errno
 * ENOSYS if there is none. */
static void *next_fn(const char *name, void **cache)
{
    void *f = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
    if (f == NULL) {
        f = ecl_sys_next_symbol(name);
        __atomic_store_n(cache, f, __ATOMIC_RELEASE);
    }
    if (f == NULL)
        errno = ENOSYS;
    return f;
}

/* The C library's execve, execvpe, execv or execvp, looked up once. */
#define NEXT(type, name)                                                           \
    static void *cache_;                                                           \
    type f_ = (type)next_fn(name, &cache_);                                        \
    if (f_ == NULL)                                                                \
        return -1

/* Here only when the exec failed: errno is the exec's. */
static void exec_failed(void)
{
    int e = errno;
    ecl_trace_exec_failed();
    errno = e;
}

ECL_API int execve(const char *path, char *const argv[], char *const envp[])
{
    NEXT(execve_fn, "execve");
    ecl_trace_before_exec();
    int rc_ = f_(path, argv, envp);
    exec_failed();
    return rc_;
}

ECL_API int execvpe(const char *file, char *const argv[], char *const envp[])
{
    NEXT(execve_fn, "execvpe");
    ecl_trace_before_exec();
    int rc_ = f_(file, argv, envp);
    exec_failed();
    return rc_;
}

ECL_API int execv(const char *path, char *const argv[])
{
    NEXT(execv_fn, "execv");
    ecl_trace_before_exec();
    int rc_ = f_(path, argv);
    exec_failed();
    return rc_;
}

ECL_API int execvp(const char *file, char *const argv[])
{
    NEXT(execv_fn, "execvp");
    ecl_trace_before_exec();
    int rc_ = f_(file, argv);
    exec_failed();
    return rc_;
}

ECL_API int fexecve(int fd, char *const argv[], char *const envp[])
{
    NEXT(fexecve_fn, "fexecve");
    ecl_trace_before_exec();
    int rc_ = f_(fd, argv, envp);
    exec_failed();
    return rc_;
}

/* execl, execlp, execle: the variadic list (arg, ..., NULL) as an argv array
 * on the stack, then the v variant. Counts the entries (NULL included). */
static size_t count_args(const char *arg, va_list ap)
{
    size_t n = 1;
    for (const char *a = arg; a != NULL; a = va_arg(ap, const char *))
        n++;
    return n;
}

/* Fills argv with arg and the variadic arguments up to the NULL; ap is left
 * after the NULL (where execle's envp is). */
static void fill_args(char **argv, const char *arg, va_list *ap)
{
    size_t i = 0;
    for (const char *a = arg; a != NULL; a = va_arg(*ap, const char *))
        argv[i++] = (char *)a;
    argv[i] = NULL;
}

#define WITH_ARGV(arg, argv, body)                                                 \
    do {                                                                           \
        va_list ap_, count_;                                                       \
        va_start(ap_, arg);                                                        \
        va_copy(count_, ap_);                                                      \
        size_t n_ = count_args(arg, count_);                                       \
        va_end(count_);                                                            \
        char *argv[n_];                                                            \
        fill_args(argv, arg, &ap_);                                                \
        body;                                                                      \
        va_end(ap_);                                                               \
    } while (0)

ECL_API int execl(const char *path, const char *arg, ...)
{
    int r;
    WITH_ARGV(arg, argv, r = execv(path, argv));
    return r;
}

ECL_API int execlp(const char *file, const char *arg, ...)
{
    int r;
    WITH_ARGV(arg, argv, r = execvp(file, argv));
    return r;
}

ECL_API int execle(const char *path, const char *arg, ...)
{
    int r;
    WITH_ARGV(arg, argv, r = execve(path, argv, va_arg(ap_, char *const *)));
    return r;
}
