/* bench_work.h -- the ECL workloads that bench_record, bench_read and
 * bench_peers share, so that every table measures the same code. Sits on the
 * public API (ecl/ecl.h); reads back through bench_pal.h. */
#ifndef BENCH_WORK_H
#define BENCH_WORK_H

#include <stddef.h>
#include <stdint.h>

#include "bench/bench_common.h"
#include "ecl/ecl.h"

/* Exit status of a child whose configuration this build does not support
 * (e.g. ECL_COMPRESS=zstd without zstd): the table shows "n/a". */
#define BENCH_EXIT_UNSUPPORTED 3

typedef struct bench_ecl_work {
    ecl_region regions[4];
    ecl_type record_type;      /* 4 fields: int64, float64, uint32, uint64 */
} bench_ecl_work;

/* ecl_init (reading the ECL_* environment), four regions and the user record
 * type. Returns 0, BENCH_EXIT_UNSUPPORTED for a configuration error, or 1. */
int bench_ecl_setup(bench_ecl_work *w);

/* bench_loop_fn bodies (arg is a bench_ecl_work). n events each: n/2
 * enter+leave pairs cycling over the four regions, or n user records whose
 * values change with the loop index. Both add to bench_ecl_events(). */
uint64_t bench_loop_enter_leave(uint64_t n, int tid, void *arg);
uint64_t bench_loop_record(uint64_t n, int tid, void *arg);
uint64_t bench_ecl_events(void);

/* One ECL run as the user pays it: the time from before ecl_init to after
 * ecl_finalize, in which nthreads threads (created beforehand and released
 * together after init) record n events each of the given kind
 * ("enter_leave" or "record"). With read_back, PAL then reads the trace and
 * counts the records of that kind (enter + leave, or bench_record). */
typedef struct bench_ecl_result {
    double ns;                 /* open -> close ns per event per thread: wall time / events
                                  per thread (read back when read_back, else n) */
    double loop_ns;            /* the recording loops alone, ns per event per thread */
    double init_ms, fini_ms;   /* ecl_init (+ definitions), ecl_finalize */
    uint64_t written;          /* events the loops recorded */
    uint64_t read_back;        /* events of the kind found in the trace (read_back only) */
    uint64_t bytes;            /* trace file size after close */
    uint64_t waits;            /* times a thread waited for a free buffer (read_back only:
                                  the trace's flush records with a nonzero wait) */
    char trace[4096];
    const char *clock;         /* tsc|monotonic|realtime|unknown (read_back only) */
    double tps;                /* ticks per second (read_back only) */
} bench_ecl_result;

/* 0, BENCH_EXIT_UNSUPPORTED (a configuration this build refuses) or 1. */
int bench_ecl_run(const char *kind, int nthreads, uint64_t n, int read_back,
                  bench_ecl_result *res);
/* key=value lines: ns, loop_ns, init_ms, fini_ms, events, read_back, bytes,
 * waits, trace, clock, tps. */
void bench_ecl_print(const bench_ecl_result *res);

/* The child mode every ECL-running program accepts (parents start it with
 * bench_ecl_spawn): "--ecl-run KIND THREADS N READBACK" runs bench_ecl_run and
 * prints its result. Returns the exit status, or -1 when argv is not that mode. */
int bench_ecl_child_main(int argc, char **argv);
/* Runs that child mode of this program in a fresh process with ECL_DIR=dir,
 * ECL_PREFIX=bench, ECL_VERBOSE=1 and ECL_COMPRESS=compress (NULL: unset, i.e.
 * ECL's default); stdout and stderr into c->out. Returns c->status. */
int bench_ecl_spawn(const char *kind, int nthreads, uint64_t n, int read_back,
                    const char *compress, const char *dir, bench_child *c);
/* ECL's default compression (ECL_COMPRESS unset), from a tiny run of the
 * child mode in a temporary directory under tmp; "unknown" if it did not say. */
void bench_ecl_default_compression(const char *tmp, char *buf, size_t len);

#endif /* BENCH_WORK_H */
