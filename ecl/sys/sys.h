/* sys.h -- ECL system-dependent layer: clocks, thread/process identity, file
 * writes and signal hooks. The only place in ECL with OS- or CPU-specific code;
 * the basic layer (ecl/core) includes this header and nothing else from the OS.
 *
 * Every function returns 0 on success or an errno value; messages go into a
 * caller-provided buffer so the caller decides where (and whether) to print. */
#ifndef ECL_SYS_H
#define ECL_SYS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define ECL_SYS_HAVE_TSC 1
#else
#define ECL_SYS_HAVE_TSC 0
#endif

/* Values are the clock_source codes of the trace header (doc/trace-format.md). */
typedef enum ecl_sys_clock_source {
    ECL_SYS_CLOCK_AUTO = 0,       /* request only: TSC if invariant, else monotonic */
    ECL_SYS_CLOCK_MONOTONIC = 1,  /* CLOCK_MONOTONIC, ns */
    ECL_SYS_CLOCK_TSC = 2,        /* calibrated invariant cycle counter */
    ECL_SYS_CLOCK_REALTIME = 3    /* CLOCK_REALTIME, ns */
} ecl_sys_clock_source;

/* The active source; written once by ecl_sys_clock_init, read on every record. */
extern int ecl_sys_clock_kind;

uint64_t ecl_sys_clock_gettime(void);

/* Reads the active clock, in ticks. The hot path: an inline rdtsc when the
 * cycle counter was chosen, otherwise a (vDSO) clock_gettime call. */
static inline uint64_t ecl_sys_clock_now(void)
{
#if ECL_SYS_HAVE_TSC
    if (__builtin_expect(ecl_sys_clock_kind == ECL_SYS_CLOCK_TSC, 1))
        return __rdtsc();
#endif
    return ecl_sys_clock_gettime();
}

/* Chooses the clock and starts measuring the cycle counter's rate against
 * CLOCK_MONOTONIC. Returns 0, or EINVAL with a message when the requested
 * source does not exist on this machine. Calling it again re-selects. */
int ecl_sys_clock_init(ecl_sys_clock_source want, char *err, size_t errlen);
ecl_sys_clock_source ecl_sys_clock_source_get(void);
const char *ecl_sys_clock_name(ecl_sys_clock_source s);
/* Ticks per second. The first call after init fixes the cycle counter's rate,
 * measured since init over at least 1 ms (waiting for what remains of it), so
 * work done between init and that call costs no calibration time. */
double ecl_sys_clock_ticks_per_second(void);
/* UNIX-epoch ns at tick 0 (from a triple read at init, with the current rate). */
int64_t ecl_sys_clock_realtime_offset_ns(void);
/* Measures the cycle counter's rate again, from init to now. 1 if the rate
 * (and the realtime offset) changed: at least twice as long a span as the last
 * measure; 0 for the ns clocks. Not thread-safe against the other clock calls
 * that change state (init, the first rate). */
int ecl_sys_clock_recalibrate(void);
/* A (CLOCK_MONOTONIC ns, CLOCK_REALTIME ns, ticks) triple read back to back. */
void ecl_sys_clock_pair(uint64_t *ticks, uint64_t *mono_ns, uint64_t *real_ns);
/* 1 if the CPU has an invariant cycle counter ECL can use. */
int ecl_sys_clock_has_invariant_tsc(void);

/* ---- identity ---- */
uint64_t ecl_sys_thread_id(void);           /* kernel thread id */
uint32_t ecl_sys_pid(void);
/* Host name, NUL-terminated, truncated to len-1. */
void ecl_sys_host_name(char *buf, size_t len);
/* n random bytes from the kernel: 0, or -1 when none can be had. */
int ecl_sys_random(void *buf, size_t n);
/* Name of the calling thread ("" if unknown). */
void ecl_sys_thread_name(char *buf, size_t len);
/* Cores the calling thread may run on (its affinity mask: what taskset, a
 * cpuset or an MPI launcher's binding left it), else the online CPUs; >= 1. */
unsigned ecl_sys_cpu_count(void);
/* Lowers the calling thread to the lowest scheduling priority (Linux
 * SCHED_IDLE: it runs only on a core no other thread wants; elsewhere nice
 * 19). 0, or -1 when the system refused. */
int ecl_sys_thread_idle_priority(void);

/* ---- memory ---- */
/* Memory that records are written into at once: size bytes, aligned to
 * 2 MiB and asked to be backed by transparent huge pages when size is at
 * least 2 MiB, its first min(size, prefault) bytes faulted in with one
 * system call (Linux MADV_POPULATE_WRITE), so that they cost no page fault
 * per 4 KiB; the rest faults in as it is first written (as one fault per
 * huge page where the system gives them). prefault bounds what is made
 * resident before it is used (a large buffer a thread never fills must not
 * take the memory). Allocated with aligned_alloc (free with free). NULL
 * with errno set (ENOMEM) when none can be had; the hints are only hints:
 * a kernel without them gives plain memory. */
void *ecl_sys_alloc_prefaulted(size_t size, size_t prefault);

/* ---- files ---- */
/* Creates every missing directory of path (like mkdir -p). */
int ecl_sys_mkdirs(const char *path, char *err, size_t errlen);
/* Creates a new file for writing, never opening or truncating an existing
 * one (O_EXCL); returns the fd, or -errno with a message in err (-EEXIST: the
 * file exists). */
int ecl_sys_create(const char *path, char *err, size_t errlen);
/* Reads a configuration file whole (ECL_FILTER, ...), as the traced program
 * starts: opened without blocking and refused unless it is a regular file of
 * at most max bytes -- a FIFO with no writer, a device or a directory would
 * hang or flood the program. *text (malloc'd, NUL-terminated, *len bytes)
 * is the caller's. 0, or -1 with "cannot read WHAT 'PATH' (SETTING): why" in err. */
int ecl_sys_read_config(const char *path, const char *what, const char *setting, size_t max,
                        char **text, size_t *len, char *err, size_t errlen);
/* Removes a file. */
int ecl_sys_remove(const char *path, char *err, size_t errlen);
/* Writes all of iov at offset off with pwritev, retrying short writes and
 * EINTR. On failure returns the errno and describes it in err:
 * "cannot write trace 'PATH': REASON (wrote N of M bytes at offset O)".
 * Async-signal-safe when err is NULL. */
int ecl_sys_write_at(int fd, const char *path, const struct iovec *iov, int iovcnt, uint64_t off,
                     char *err, size_t errlen);
int ecl_sys_close(int fd);
int ecl_sys_rename(const char *from, const char *to, char *err, size_t errlen);
/* Writes a whole message to stderr with write(2) (async-signal-safe). */
void ecl_sys_stderr(const char *msg);

/* ---- signals ---- */
/* Called once, from the handler of the first fatal signal, before the signal is
 * re-raised with its previous disposition. Must be async-signal-safe. */
typedef void (*ecl_sys_crash_fn)(int sig);
/* Installs handlers for SIGTERM, SIGINT, SIGSEGV, SIGBUS and SIGABRT where
 * the disposition is the default (a program's own handlers and ignored signals
 * are left alone), and ignores SIGXFSZ if it has the default action so that
 * exceeding `ulimit -f` is a write error (EFBIG) instead of death. */
int ecl_sys_signals_install(ecl_sys_crash_fn fn);
/* Restores the dispositions replaced by ecl_sys_signals_install, where ECL's
 * handler is still installed. */
void ecl_sys_signals_uninstall(void);
/* Blocks every signal in the calling thread (for helper threads, so that
 * process-directed signals go to the application's threads). */
void ecl_sys_block_signals(void);

/* Sleeps ns nanoseconds (async-signal-safe). */
void ecl_sys_sleep_ns(uint64_t ns);

/* ---- performance counters (perf.c): the calling thread's, perf_event_open ---- */
typedef struct ecl_sys_perf_event {
    const char *name;            /* "task-clock", "cycles", ... */
    const char *unit;            /* "ns" or "" */
    int hardware;                /* 1: counted by the CPU (may be absent) */
    unsigned index;
} ecl_sys_perf_event;
/* 0 and *out for a known event name, -1 for an unknown one. */
int ecl_sys_perf_lookup(const char *name, ecl_sys_perf_event *out);
/* The known names, for messages. */
const char *ecl_sys_perf_names(void);
/* Opens ev for the calling thread, in the group of group_fd (-1: as a new
 * group's leader). The fd, or -errno (ENOENT, EOPNOTSUPP: the machine has no
 * such counter; EACCES, EPERM: perf_event_paranoid forbids it). */
int ecl_sys_perf_open(const ecl_sys_perf_event *ev, int group_fd);
/* Reads the n counters of the group led by leader, in the order opened. 0 or
 * an errno. */
int ecl_sys_perf_read(int leader, uint64_t *values, size_t n);
void ecl_sys_perf_close(int fd);

/* ---- interposition ---- */
/* The next definition of the function name after ECL's own in the lookup
 * order (the C library's, for a function ECL wraps), or NULL. */
void *ecl_sys_next_symbol(const char *name);

#endif /* ECL_SYS_H */
