/* io.c -- ECL automatic instrumentation: POSIX I/O, group `io` of
 * ECL_GROUPS (off by default). open, open64, openat, creat, close, read,
 * write, pread, pread64, pwrite, pwrite64, fsync and fdatasync are
 * interposed (libecl linked in, or preloaded by ecl-run); each call is one
 * io_call record when it returns, with its duration, descriptor, file id,
 * bytes moved and result. A file id is defined by an io_file record with
 * the path (one id per path), so the path is written once, not per call;
 * a descriptor not opened under tracing (stdin, ...) gets the file "<fd N>".
 * Inside ECL (ecl_buf_in_tool) the wrappers pass straight through. */
#include <config.h>
/* The wrappers define read, open, ...: not the C library's inline checking
 * versions of them. */
#undef _FORTIFY_SOURCE

#include "ecl/auto/auto.h"
#include "ecl/ecl.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* File ids of descriptors below FD_MAX (0: unknown). */
#define FD_MAX 65536
static uint32_t fd_file[FD_MAX];

/* Paths seen: FNV-1a of the path -> entries with that hash. */
typedef struct path_ent {
    struct path_ent *next;
    uint32_t id;
    char path[];
} path_ent;

static ecl_map paths;
static uint32_t next_file;
static pthread_mutex_t path_lock = PTHREAD_MUTEX_INITIALIZER;

/* The id of path, defined (io_file) at its first use. */
static uint32_t file_id(const char *path)
{
    uint64_t h = ecl_map_key_str(path);
    for (const path_ent *e = ecl_map_get(&paths, h); e != NULL; e = e->next)
        if (strcmp(e->path, path) == 0)
            return e->id;
    uint32_t id = 0;
    ecl_buf_in_tool++;
    pthread_mutex_lock(&path_lock);
    path_ent *head = ecl_map_get(&paths, h), *e;
    for (e = head; e != NULL; e = e->next)
        if (strcmp(e->path, path) == 0)
            break;
    if (e != NULL) {
        id = e->id;
    } else {
        size_t len = strlen(path);
        e = malloc(sizeof *e + len + 1);
        if (e != NULL) {
            memcpy(e->path, path, len + 1);
            e->id = ++next_file;
            e->next = head;
            if (ecl_map_put(&paths, h, e) == 0) {
                id = e->id;
                uint8_t *buf = malloc(len + 16), *p = buf;
                if (buf != NULL) {
                    p = ecl_buf_put_uleb(p, id);
                    p = ecl_buf_put_str(p, path, len);
                    ecl_trace_write_definition(ECL_REC_IO_FILE, buf, (size_t)(p - buf));
                    free(buf);
                }
            } else {
                free(e);
            }
        }
    }
    pthread_mutex_unlock(&path_lock);
    ecl_buf_in_tool--;
    return id;
}

static uint32_t file_of_fd(int fd)
{
    if (fd < 0)
        return 0;
    uint32_t id = fd < FD_MAX ? __atomic_load_n(&fd_file[fd], __ATOMIC_RELAXED) : 0;
    if (id == 0) {
        char name[32];
        snprintf(name, sizeof name, "<fd %d>", fd);
        id = file_id(name);
        if (fd < FD_MAX)
            __atomic_store_n(&fd_file[fd], id, __ATOMIC_RELAXED);
    }
    return id;
}

static int io_on(void)
{
    return (__atomic_load_n(&ecl_auto_groups, __ATOMIC_RELAXED) & ECL_API_G_IO) != 0 &&
           !ecl_buf_in_tool && ecl_buf_is_active();
}

/* Records one call that started at t0 (ticks) and returned result; bytes
 * moved when it is a transfer. errno is kept. */
static void record(uint32_t *region, const char *name, uint64_t t0, int fd, uint32_t file,
                   int64_t result, int transfer)
{
    int saved = errno;
    if (__atomic_load_n(region, __ATOMIC_RELAXED) == 0) {
        ecl_buf_in_tool++;
        __atomic_store_n(region, ecl_auto_region(name), __ATOMIC_RELAXED);
        ecl_buf_in_tool--;
    }
    int64_t res = result < 0 ? -(int64_t)saved : result;
    uint64_t bytes = transfer && result > 0 ? (uint64_t)result : 0;
    ecl_buf_hot *t;
    uint64_t now;
    uint8_t *p = ecl_buf_begin(ECL_REC_IO_CALL, ECL_BUF_HEADER_MAX + 6 * 10, &t, &now);
    if (p != NULL) {
        p = ecl_buf_put_uleb(p, *region);
        p = ecl_buf_put_uleb(p, now > t0 ? now - t0 : 0);
        p = ecl_buf_put_sleb(p, fd);
        p = ecl_buf_put_uleb(p, file);
        p = ecl_buf_put_uleb(p, bytes);
        p = ecl_buf_put_sleb(p, res);
        ecl_buf_commit(t, p, now);
    }
    errno = saved;
}

#define NEXT(type, name)                                                           \
    static void *cache_;                                                           \
    type real = (type)ecl_auto_next(name, &cache_);                                \
    if (real == NULL) {                                                            \
        errno = ENOSYS;                                                            \
        return -1;                                                                 \
    }

typedef int (*open_fn)(const char *, int, ...);
typedef int (*openat_fn)(int, const char *, int, ...);
typedef int (*creat_fn)(const char *, mode_t);
typedef int (*close_fn)(int);
typedef ssize_t (*rw_fn)(int, void *, size_t);
typedef ssize_t (*prw_fn)(int, void *, size_t, off_t);

/* open's mode argument is there when flags create a file. */
static int wants_mode(int flags)
{
#ifdef O_TMPFILE
    if ((flags & O_TMPFILE) == O_TMPFILE)
        return 1;
#endif
    return (flags & O_CREAT) != 0;
}

static int opened(const char *name, uint32_t *region, uint64_t t0, const char *path, int fd)
{
    uint32_t file = path != NULL ? file_id(path) : 0;
    if (fd >= 0 && fd < FD_MAX)
        __atomic_store_n(&fd_file[fd], file, __ATOMIC_RELAXED);
    record(region, name, t0, fd, file, fd, 0);
    return fd;
}

/* mode_t var: open's optional third (openat's fourth) argument, after flags. */
#define MODE_ARG(var)                                                              \
    mode_t var = 0;                                                                \
    if (wants_mode(flags)) {                                                       \
        va_list ap_;                                                               \
        va_start(ap_, flags);                                                      \
        var = (mode_t)va_arg(ap_, int);                                            \
        va_end(ap_);                                                               \
    }

#define OPEN_WRAPPER(fname)                                                        \
    ECL_API int fname(const char *path, int flags, ...)                            \
    {                                                                              \
        NEXT(open_fn, #fname);                                                     \
        MODE_ARG(mode);                                                            \
        if (!io_on())                                                              \
            return real(path, flags, mode);                                        \
        static uint32_t region;                                                    \
        uint64_t t0 = ecl_sys_clock_now();                                         \
        int fd = real(path, flags, mode);                                          \
        return opened(#fname, &region, t0, path, fd);                              \
    }

OPEN_WRAPPER(open)
OPEN_WRAPPER(open64)

#define OPENAT_WRAPPER(fname)                                                      \
    ECL_API int fname(int dirfd, const char *path, int flags, ...)                 \
    {                                                                              \
        NEXT(openat_fn, #fname);                                                   \
        MODE_ARG(mode);                                                            \
        if (!io_on())                                                              \
            return real(dirfd, path, flags, mode);                                 \
        static uint32_t region;                                                    \
        uint64_t t0 = ecl_sys_clock_now();                                         \
        int fd = real(dirfd, path, flags, mode);                                   \
        return opened(#fname, &region, t0, path, fd);                              \
    }

OPENAT_WRAPPER(openat)
OPENAT_WRAPPER(openat64)

ECL_API int creat(const char *path, mode_t mode)
{
    NEXT(creat_fn, "creat");
    if (!io_on())
        return real(path, mode);
    static uint32_t region;
    uint64_t t0 = ecl_sys_clock_now();
    int fd = real(path, mode);
    return opened("creat", &region, t0, path, fd);
}

ECL_API int close(int fd)
{
    NEXT(close_fn, "close");
    if (!io_on())
        return real(fd);
    static uint32_t region;
    uint32_t file = file_of_fd(fd);
    uint64_t t0 = ecl_sys_clock_now();
    int r = real(fd);
    if (fd >= 0 && fd < FD_MAX)
        __atomic_store_n(&fd_file[fd], 0, __ATOMIC_RELAXED);
    record(&region, "close", t0, fd, file, r, 0);
    return r;
}

#define SYNC_WRAPPER(fname)                                                        \
    ECL_API int fname(int fd)                                                      \
    {                                                                              \
        NEXT(close_fn, #fname);                                                    \
        if (!io_on())                                                              \
            return real(fd);                                                       \
        static uint32_t region;                                                    \
        uint64_t t0 = ecl_sys_clock_now();                                         \
        int r = real(fd);                                                          \
        record(&region, #fname, t0, fd, file_of_fd(fd), r, 0);                     \
        return r;                                                                  \
    }

SYNC_WRAPPER(fsync)
SYNC_WRAPPER(fdatasync)

#define RW_WRAPPER(fname, cv)                                                      \
    ECL_API ssize_t fname(int fd, cv void *buf, size_t n)                          \
    {                                                                              \
        NEXT(rw_fn, #fname);                                                       \
        if (!io_on())                                                              \
            return real(fd, (void *)buf, n);                                       \
        static uint32_t region;                                                    \
        uint64_t t0 = ecl_sys_clock_now();                                         \
        ssize_t r = real(fd, (void *)buf, n);                                      \
        record(&region, #fname, t0, fd, file_of_fd(fd), r, 1);                     \
        return r;                                                                  \
    }

RW_WRAPPER(read, )
RW_WRAPPER(write, const)

#define PRW_WRAPPER(fname, cv, offt)                                               \
    ECL_API ssize_t fname(int fd, cv void *buf, size_t n, offt off)                \
    {                                                                              \
        NEXT(prw_fn, #fname);                                                      \
        if (!io_on())                                                              \
            return real(fd, (void *)buf, n, (off_t)off);                           \
        static uint32_t region;                                                    \
        uint64_t t0 = ecl_sys_clock_now();                                         \
        ssize_t r = real(fd, (void *)buf, n, (off_t)off);                          \
        record(&region, #fname, t0, fd, file_of_fd(fd), r, 1);                     \
        return r;                                                                  \
    }

PRW_WRAPPER(pread, , off_t)
PRW_WRAPPER(pwrite, const, off_t)
PRW_WRAPPER(pread64, , off_t)
PRW_WRAPPER(pwrite64, const, off_t)
