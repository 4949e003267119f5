/* bench_work.h -- the ECL workloads and PAL read loops that bench_record,
 * bench_read and bench_peers share, so that every table measures the same code.
 * Sits on the public APIs only (ecl/ecl.h, pal/pal.h). */
#ifndef BENCH_WORK_H
#define BENCH_WORK_H

#include <stddef.h>
#include <stdint.h>

#include "ecl/ecl.h"
#include "pal/pal.h"

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

/* Child mode shared by the programs: records n events per round of the given
 * kind ("enter_leave" or "record") in nthreads threads, then finalizes and
 * prints key=value lines: ns (median ns/event per thread), events, trace,
 * clock (tsc|monotonic|realtime|unknown), tps (ticks per second).
 * Returns the exit status for the child. */
int bench_ecl_child(const char *kind, int nthreads, int reps, uint64_t n);

typedef enum bench_read_mode {
    BENCH_READ_ITERATE = 0,    /* pal_reader_next only */
    BENCH_READ_NAME,           /* + pal_record_get_u64(rec, "region") */
    BENCH_READ_HANDLE          /* + pal_record_u64(rec, handle of "region") */
} bench_read_mode;

/* Reads the whole trace once. *records counts every record returned, *hits the
 * records that had a "region" field, *sum adds their values (kept so the reads
 * cannot be dropped). Returns 0, or -1 with a message in err. */
int bench_pal_read(const char *path, bench_read_mode mode, uint64_t *records, uint64_t *hits,
                   uint64_t *sum, char *err, size_t errlen);

#endif /* BENCH_WORK_H */
