/* real.c -- ECL's own calls of the functions it interposes go to the C
 * library directly (system-dependent layer). libecl-core and libecl export
 * wrappers of pthread_create, pthread_mutex_lock, open, read, write, ...
 * (ecl/auto), so a call of write() inside the library would otherwise bind,
 * through the PLT, to the library's own exported wrapper -- correct only
 * because every wrapper checks its group's flag, and a cost on every lock
 * of the recording path's slow side. The libraries are linked with
 * `-Wl,--wrap=NAME` for each (ECL_REAL_LDFLAGS, ecl/Makefile.inc.am): the
 * linker sends every call of NAME from ECL's objects to __wrap_NAME below,
 * which calls the next definition after ECL's (the C library's) through a
 * pointer resolved once; the exported NAME stays the wrapper applications
 * and preloading see. tests/build/boundaries.sh checks that no relocation
 * of the libraries names a wrapped function. */
#include <config.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "ecl/sys/sys.h"

/* REAL(name, pointer type): fn, the C library's name (resolved once, no lock: a
 * race resolves it twice to the same address); ENOSYS when absent. */
#define REAL(name, type)                                                      \
    static void *name##_cache;                                                \
    type fn = (type)__atomic_load_n(&name##_cache, __ATOMIC_ACQUIRE);         \
    if (fn == NULL) {                                                         \
        fn = (type)ecl_sys_next_symbol(#name);                                \
        __atomic_store_n(&name##_cache, (void *)fn, __ATOMIC_RELEASE);        \
    }

/* Prototypes for -Wmissing-prototypes: these are called only by the linker's
 * redirection. */
int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*f)(void *), void *arg);
int __wrap_pthread_join(pthread_t t, void **ret);
int __wrap_pthread_mutex_lock(pthread_mutex_t *m);
int __wrap_pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m);
int __wrap_pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *ts);
int __wrap_pthread_barrier_wait(pthread_barrier_t *b);
int __wrap_open(const char *path, int flags, ...);
int __wrap_open64(const char *path, int flags, ...);
int __wrap_openat(int dirfd, const char *path, int flags, ...);
int __wrap_openat64(int dirfd, const char *path, int flags, ...);
int __wrap_creat(const char *path, mode_t mode);
int __wrap_close(int fd);
ssize_t __wrap_read(int fd, void *buf, size_t n);
ssize_t __wrap_write(int fd, const void *buf, size_t n);
ssize_t __wrap_pread(int fd, void *buf, size_t n, off_t off);
ssize_t __wrap_pwrite(int fd, const void *buf, size_t n, off_t off);
int __wrap_fsync(int fd);
int __wrap_fdatasync(int fd);

/* the C library's signatures */
typedef int (*pthread_create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
typedef int (*pthread_join_fn)(pthread_t, void **);
typedef int (*pthread_mutex_lock_fn)(pthread_mutex_t *);
typedef int (*pthread_cond_wait_fn)(pthread_cond_t *, pthread_mutex_t *);
typedef int (*pthread_cond_timedwait_fn)(pthread_cond_t *, pthread_mutex_t *,
                                          const struct timespec *);
typedef int (*pthread_barrier_wait_fn)(pthread_barrier_t *);
typedef int (*open_fn)(const char *, int, ...);
typedef int (*open64_fn)(const char *, int, ...);
typedef int (*openat_fn)(int, const char *, int, ...);
typedef int (*openat64_fn)(int, const char *, int, ...);
typedef int (*creat_fn)(const char *, mode_t);
typedef int (*close_fn)(int);
typedef ssize_t (*read_fn)(int, void *, size_t);
typedef ssize_t (*write_fn)(int, const void *, size_t);
typedef ssize_t (*pread_fn)(int, void *, size_t, off_t);
typedef ssize_t (*pwrite_fn)(int, const void *, size_t, off_t);
typedef int (*fsync_fn)(int);
typedef int (*fdatasync_fn)(int);

#define FAIL_ENOSYS(ret) do { if (fn == NULL) { errno = ENOSYS; return ret; } } while (0)

int __wrap_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*f)(void *), void *arg)
{
    REAL(pthread_create, pthread_create_fn);
    return fn ? fn(t, a, f, arg) : ENOSYS;
}

int __wrap_pthread_join(pthread_t t, void **ret)
{
    REAL(pthread_join, pthread_join_fn);
    return fn ? fn(t, ret) : ENOSYS;
}

int __wrap_pthread_mutex_lock(pthread_mutex_t *m)
{
    REAL(pthread_mutex_lock, pthread_mutex_lock_fn);
    return fn ? fn(m) : ENOSYS;
}

int __wrap_pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
    REAL(pthread_cond_wait, pthread_cond_wait_fn);
    return fn ? fn(c, m) : ENOSYS;
}

int __wrap_pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m, const struct timespec *ts)
{
    REAL(pthread_cond_timedwait, pthread_cond_timedwait_fn);
    return fn ? fn(c, m, ts) : ENOSYS;
}

int __wrap_pthread_barrier_wait(pthread_barrier_t *b)
{
    REAL(pthread_barrier_wait, pthread_barrier_wait_fn);
    return fn ? fn(b) : ENOSYS;
}

/* the mode argument exists when the flags create a file */
static mode_t mode_of(int flags, va_list ap)
{
#ifdef O_TMPFILE
    if ((flags & O_TMPFILE) == O_TMPFILE)
        return (mode_t)va_arg(ap, int);
#endif
    return (flags & O_CREAT) ? (mode_t)va_arg(ap, int) : 0;
}

int __wrap_open(const char *path, int flags, ...)
{
    REAL(open, open_fn);
    FAIL_ENOSYS(-1);
    va_list ap;
    va_start(ap, flags);
    mode_t mode = mode_of(flags, ap);
    va_end(ap);
    return fn(path, flags, mode);
}

int __wrap_open64(const char *path, int flags, ...)
{
    REAL(open64, open64_fn);
    FAIL_ENOSYS(-1);
    va_list ap;
    va_start(ap, flags);
    mode_t mode = mode_of(flags, ap);
    va_end(ap);
    return fn(path, flags, mode);
}

int __wrap_openat(int dirfd, const char *path, int flags, ...)
{
    REAL(openat, openat_fn);
    FAIL_ENOSYS(-1);
    va_list ap;
    va_start(ap, flags);
    mode_t mode = mode_of(flags, ap);
    va_end(ap);
    return fn(dirfd, path, flags, mode);
}

/* openat as a 64-bit-offset build names it (glibc's fcntl.h) */
int __wrap_openat64(int dirfd, const char *path, int flags, ...)
{
    REAL(openat64, openat64_fn);
    FAIL_ENOSYS(-1);
    va_list ap;
    va_start(ap, flags);
    mode_t mode = mode_of(flags, ap);
    va_end(ap);
    return fn(dirfd, path, flags, mode);
}

int __wrap_creat(const char *path, mode_t mode)
{
    REAL(creat, creat_fn);
    FAIL_ENOSYS(-1);
    return fn(path, mode);
}

int __wrap_close(int fd)
{
    REAL(close, close_fn);
    FAIL_ENOSYS(-1);
    return fn(fd);
}

ssize_t __wrap_read(int fd, void *buf, size_t n)
{
    REAL(read, read_fn);
    FAIL_ENOSYS(-1);
    return fn(fd, buf, n);
}

ssize_t __wrap_write(int fd, const void *buf, size_t n)
{
    REAL(write, write_fn);
    FAIL_ENOSYS(-1);
    return fn(fd, buf, n);
}

ssize_t __wrap_pread(int fd, void *buf, size_t n, off_t off)
{
    REAL(pread, pread_fn);
    FAIL_ENOSYS(-1);
    return fn(fd, buf, n, off);
}

ssize_t __wrap_pwrite(int fd, const void *buf, size_t n, off_t off)
{
    REAL(pwrite, pwrite_fn);
    FAIL_ENOSYS(-1);
    return fn(fd, buf, n, off);
}

int __wrap_fsync(int fd)
{
    REAL(fsync, fsync_fn);
    FAIL_ENOSYS(-1);
    return fn(fd);
}

int __wrap_fdatasync(int fd)
{
    REAL(fdatasync, fdatasync_fn);
    FAIL_ENOSYS(-1);
    return fn(fd);
}
