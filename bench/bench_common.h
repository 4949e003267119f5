/* bench_common.h -- shared helpers of the bench/ programs: the machine line
 * that heads every table, timing, medians, thread runs with repetitions, child
 * processes (for fresh ECL configurations and per-process peak RSS), and
 * temporary directories. Depends on libc only, never on ECL or PAL.
 *
 * Benchmarks print tables; nothing here passes or fails on time. */
#ifndef BENCH_COMMON_H
#define BENCH_COMMON_H

#include <stddef.h>
#include <stdint.h>

/* Keeps a value (and everything it depends on) alive without costing a store. */
#define BENCH_KEEP(v) __asm__ volatile("" : : "g"(v) : "memory")
/* Forbids the compiler to move, merge or drop memory accesses across it. */
#define BENCH_BARRIER() __asm__ volatile("" : : : "memory")

/* ---- machine, clock, date ---- */
/* Prints "== title ==" and the line "machine: MODEL, N cores | clocksource: ... |
 * date: ..."; clock_note (may be NULL) is appended to say which clock the
 * measured code used. */
void bench_table_header(const char *title, const char *clock_note);
/* Monotonic wall time in ns (clock_gettime, CLOCK_MONOTONIC). */
double bench_now_ns(void);
double bench_median(const double *v, int n);
/* Minimum and median of the values of v[0..n) that are not NAN (runs that
 * failed); both NAN when none is. Returns how many values counted. */
int bench_min_median(const double *v, int n, double *min, double *med);

/* ---- run scale ----
 * BENCH_SCALE (default 1.0) multiplies every event count, BENCH_REPS sets the
 * number of interleaved runs per configuration (default BENCH_RUNS_DEFAULT);
 * both from the environment. */
#define BENCH_RUNS_DEFAULT 7
uint64_t bench_scaled(uint64_t n);
int bench_reps(void);

/* ---- threads with repetitions ----
 * Runs loop(n, tid, arg) in nthreads threads at once: one unmeasured warm-up
 * round of n/10 events, then reps timed rounds of n events, each started by a
 * barrier. Each thread times its own round; per round the mean over threads of
 * ns per event is taken, and the median over rounds is returned. loop returns a
 * value that is kept alive so the compiler cannot drop the work. */
typedef uint64_t (*bench_loop_fn)(uint64_t n, int tid, void *arg);
double bench_run_threads(int nthreads, int reps, uint64_t n, bench_loop_fn loop, void *arg);

/* ---- child processes ---- */
typedef struct bench_child {
    int status;          /* exit status, or 128+signal, or -1 if it did not start */
    double wall_ns;      /* fork to reap */
    long maxrss_kib;     /* peak resident set of the child (wait4 ru_maxrss) */
    char out[4096];      /* captured stdout (truncated), "" when discarded */
} bench_child;

enum {
    BENCH_OUT_CAPTURE = 0,     /* stdout into c->out, stderr inherited */
    BENCH_OUT_NULL = 1,        /* stdout to /dev/null, stderr inherited */
    BENCH_OUT_CAPTURE_ALL = 2, /* stdout and stderr into c->out */
    BENCH_OUT_FILE = 3         /* stdout to opts->out_path (truncated), stderr into c->out */
};

/* How a child runs. Zero-initialised: BENCH_OUT_CAPTURE and no limit changed. */
typedef struct bench_spawn_opts {
    int out_mode;              /* BENCH_OUT_* */
    const char *out_path;      /* for BENCH_OUT_FILE */
    int raise_nofile;          /* soft RLIMIT_NOFILE raised to the hard limit */
    uint64_t as_limit;         /* RLIMIT_AS in bytes; 0: inherited */
    unsigned cpu_limit_s;      /* RLIMIT_CPU in seconds (SIGXCPU beyond); 0: inherited */
} bench_spawn_opts;

/* Runs argv[0] (searched in PATH when it has no '/') with the extra environment
 * entries env (NULL-terminated, may be NULL: "NAME=value" sets, "NAME" alone
 * unsets) and its output handled as out_mode says. Returns c->status. */
int bench_spawn(char *const argv[], char *const env[], int out_mode, bench_child *c);
/* The same with every option of bench_spawn_opts. */
int bench_spawn_with(char *const argv[], char *const env[], const bench_spawn_opts *o,
                     bench_child *c);
/* Value of "key=value" on its own line of a child's output, or NAN. */
double bench_kv(const char *out, const char *key);
/* Copies the string value of "key=value" into buf; returns 0 or -1 if absent. */
int bench_kv_str(const char *out, const char *key, char *buf, size_t len);
/* Path of the running executable (for re-running it in a child mode). */
const char *bench_self(void);
/* argv[0]'s directory joined with name, if that file is executable; else NULL. */
const char *bench_sibling(const char *name, char *buf, size_t len);
/* Full path of a program found in PATH, or NULL. */
const char *bench_which(const char *prog, char *buf, size_t len);

/* ---- what ECL says ----
 * With ECL_VERBOSE=1, ecl_init prints "ecl: tracing to 'PATH' (clock ..., N
 * buffers of B bytes per thread; compression X; ...)" on stderr. These read
 * that line from a child's captured output (plain text: no ECL code here). */
/* The parenthesis of the line into buf; "" when absent. */
void bench_ecl_settings(const char *out, char *buf, size_t len);
/* X of "compression X" into buf; "unknown" when absent. */
void bench_ecl_compression(const char *out, char *buf, size_t len);

/* ---- files ---- */
/* Bytes of a regular file or of every regular file under a directory. */
uint64_t bench_path_bytes(const char *path);
/* First regular file under dir whose name ends with suffix; 0 or -1. */
int bench_find_file(const char *dir, const char *suffix, char *buf, size_t len);
/* Where traces go: $BENCH_TMPDIR if set; else /dev/shm when it is a writable
 * tmpfs with at least 4 GiB free (so that recording costs are not the disk's
 * write speed); else $TMPDIR or /tmp. */
const char *bench_tmp_base(void);
/* Makes a fresh directory under bench_tmp_base(); exits on failure. */
void bench_mkdtemp(const char *tag, char *buf, size_t len);
void bench_rmtree(const char *path);

/* ---- formatting ---- */
/* Prints one table cell: a space, then v with fixed decimals right-aligned in
 * width, or "n/a" for NAN. */
void bench_cell(double v, int width, int decimals);
/* Two cells: the minimum and the median of v[0..n) (NAN values left out, as
 * failed runs), each multiplied by scale. */
void bench_cells_min_median(const double *v, int n, int width, int decimals, double scale);
/* "12.3" MiB from KiB. */
double bench_mib(long kib);

#endif /* BENCH_COMMON_H */
