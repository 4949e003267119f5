/* io.c -- ECL system layer: identity (pid, thread id, host), buffer memory,
 * file output and the lookup of wrapped functions. Writes go through pwritev at explicit
 * offsets so that any thread, and a signal handler, can write without
 * sharing a file position. */
#include <config.h>

#include "ecl/sys/sys.h"

#include <sched.h>

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

uint64_t ecl_sys_thread_id(void)
{
#ifdef SYS_gettid
    return (uint64_t)syscall(SYS_gettid);
#else
    return (uint64_t)(uintptr_t)pthread_self();
#endif
}

uint32_t ecl_sys_pid(void)
{
    return (uint32_t)getpid();
}

unsigned ecl_sys_cpu_count(void)
{
#ifdef CPU_COUNT
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0)
        return (unsigned)CPU_COUNT(&set);
#endif
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1;
}

int ecl_sys_thread_idle_priority(void)
{
#ifdef SCHED_IDLE
    struct sched_param sp = { .sched_priority = 0 };
    if (pthread_setschedparam(pthread_self(), SCHED_IDLE, &sp) == 0)
        return 0;
#endif
#ifdef SYS_gettid
    return setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 19);
#else
    return -1;
#endif
}

void ecl_sys_host_name(char *buf, size_t len)
{
    if (len == 0)
        return;
    if (gethostname(buf, len) != 0)
        snprintf(buf, len, "unknown");
    buf[len - 1] = '\0';
}

int ecl_sys_random(void *buf, size_t n)
{
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t got = 0;
    while (got < n) {
        ssize_t k = read(fd, (char *)buf + got, n - got);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        got += (size_t)k;
    }
    close(fd);
    return got == n ? 0 : -1;
}

void ecl_sys_thread_name(char *buf, size_t len)
{
    if (len == 0)
        return;
    buf[0] = '\0';
#if defined(__GLIBC__)
    if (len >= 16 && pthread_getname_np(pthread_self(), buf, len) != 0)
        buf[0] = '\0';
#endif
}

int ecl_sys_mkdirs(const char *path, char *err, size_t errlen)
{
    char tmp[4096];
    size_t n = strlen(path);
    if (n == 0)
        return 0;
    if (n >= sizeof tmp) {
        snprintf(err, errlen, "directory name too long: '%.64s...'", path);
        return ENAMETOOLONG;
    }
    memcpy(tmp, path, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (tmp[i] != '/' && tmp[i] != '\0')
            continue;
        char c = tmp[i];
        tmp[i] = '\0';
        if (mkdir(tmp, 0777) != 0 && errno != EEXIST) {
            int e = errno;
            snprintf(err, errlen, "cannot create directory '%s': %s", tmp, strerror(e));
            return e;
        }
        tmp[i] = c;
    }
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "'%s' is not a directory", path);
        return ENOTDIR;
    }
    return 0;
}

int ecl_sys_read_config(const char *path, const char *what, const char *setting, size_t max,
                        char **text, size_t *len, char *err, size_t errlen)
{
    struct stat st;
    char *buf = NULL;
    size_t n = 0;
    int fd, e = 0;
    do {
        fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0) {
        snprintf(err, errlen, "cannot open %s '%s' (%s): %s", what, path, setting,
                 strerror(errno));
        return -1;
    }
    if (fstat(fd, &st) != 0) {
        e = errno;
        goto fail;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "cannot read %s '%s' (%s): it is %s, not a regular file", what,
                 path, setting,
                 S_ISFIFO(st.st_mode) ? "a FIFO" : S_ISDIR(st.st_mode) ? "a directory"
                 : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
                 : S_ISSOCK(st.st_mode) ? "a socket" : "not a file");
        close(fd);
        return -1;
    }
    if ((uint64_t)st.st_size > max) {
        snprintf(err, errlen, "cannot read %s '%s' (%s): larger than %zu bytes", what, path,
                 setting, max);
        close(fd);
        return -1;
    }
    if (!(buf = malloc((size_t)st.st_size + 1))) {
        e = ENOMEM;
        goto fail;
    }
    while (n < (size_t)st.st_size) {      /* a file that grows: what it had at fstat */
        ssize_t got = read(fd, buf + n, (size_t)st.st_size - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            e = errno;
            goto fail;
        }
        if (got == 0)
            break;
        n += (size_t)got;
    }
    close(fd);
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return 0;
fail:
    snprintf(err, errlen, "cannot read %s '%s' (%s): %s", what, path, setting, strerror(e));
    free(buf);
    close(fd);
    return -1;
}

int ecl_sys_create(const char *path, char *err, size_t errlen)
{
    int fd;
    do {
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    } while (fd < 0 && errno == EINTR);
    if (fd < 0) {
        int e = errno;
        snprintf(err, errlen, "cannot create trace '%s': %s", path, strerror(e));
        return -e;
    }
    return fd;
}

#define HUGE_PAGE (2u << 20)

void *ecl_sys_alloc_prefaulted(size_t size, size_t prefault)
{
    size_t align = size >= HUGE_PAGE ? HUGE_PAGE : 4096;
    if (size == 0 || size > SIZE_MAX - align) {
        errno = ENOMEM;
        return NULL;
    }
    size_t total = (size + align - 1) & ~(size_t)(align - 1);   /* C11 wants a multiple */
    void *p = aligned_alloc(align, total);
    if (p == NULL) {
        if (errno == 0)
            errno = ENOMEM;
        return NULL;
    }
#ifdef MADV_HUGEPAGE
    if (align == HUGE_PAGE)
        madvise(p, total, MADV_HUGEPAGE);
#endif
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23   /* Linux 5.14; older kernels say EINVAL */
#endif
#ifdef __linux__
    /* Without it (EINVAL) the pages fault in as they are first written. */
    size_t pre = prefault < total ? (prefault + 4095) & ~(size_t)4095 : total;
    if (pre > total)
        pre = total;
    if (pre > 0 && madvise(p, pre, MADV_POPULATE_WRITE) != 0 && errno == ENOMEM) {
        free(p);                 /* the memory is not there after all (overcommit) */
        errno = ENOMEM;
        return NULL;
    }
#endif
    return p;
}

int ecl_sys_write_at(int fd, const char *path, const struct iovec *iov, int iovcnt, uint64_t off,
                     char *err, size_t errlen)
{
    struct iovec v[8];
    uint64_t total = 0, done = 0;
    if (iovcnt > 8)
        return EINVAL;
    for (int i = 0; i < iovcnt; i++) {
        v[i] = iov[i];
        total += iov[i].iov_len;
    }
    struct iovec *cur = v;
    int left = iovcnt;
    while (left > 0) {
        if (cur->iov_len == 0) {
            cur++;
            left--;
            continue;
        }
        ssize_t w = pwritev(fd, cur, left, (off_t)(off + done));
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            /* A write that makes no progress without an error would loop
             * forever; treat it as a full device. */
            int e = w < 0 ? errno : ENOSPC;
            if (err != NULL)
                snprintf(err, errlen,
                         "cannot write trace '%s': %s (wrote %llu of %llu bytes at offset %llu)",
                         path, strerror(e), (unsigned long long)done,
                         (unsigned long long)total, (unsigned long long)off);
            return e;
        }
        done += (uint64_t)w;
        size_t k = (size_t)w;
        while (left > 0 && k >= cur->iov_len) {
            k -= cur->iov_len;
            cur++;
            left--;
        }
        if (left > 0) {
            cur->iov_base = (char *)cur->iov_base + k;
            cur->iov_len -= k;
        }
    }
    return 0;
}

int ecl_sys_close(int fd)
{
    return close(fd) == 0 ? 0 : errno;
}

int ecl_sys_remove(const char *path, char *err, size_t errlen)
{
    if (unlink(path) == 0)
        return 0;
    int e = errno;
    snprintf(err, errlen, "cannot remove '%s': %s", path, strerror(e));
    return e;
}

int ecl_sys_rename(const char *from, const char *to, char *err, size_t errlen)
{
    if (rename(from, to) == 0)
        return 0;
    int e = errno;
    snprintf(err, errlen, "cannot rename trace '%s' to '%s': %s", from, to, strerror(e));
    return e;
}

void ecl_sys_stderr(const char *msg)
{
    size_t n = strlen(msg);
    while (n > 0) {
        ssize_t w = write(2, msg, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return;
        msg += w;
        n -= (size_t)w;
    }
}

void ecl_sys_sleep_ns(uint64_t ns)
{
    struct timespec ts = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

void *ecl_sys_next_symbol(const char *name)
{
    return dlsym(RTLD_NEXT, name);
}
