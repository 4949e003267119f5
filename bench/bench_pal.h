/* bench_pal.h -- the PAL read loops of the bench/ programs: one pass over a
 * trace in each access mode, and counting records by type. Sits on pal/pal.h
 * only, so that a program may read traces without linking ECL's API. */
#ifndef BENCH_PAL_H
#define BENCH_PAL_H

#include <stddef.h>
#include <stdint.h>

typedef enum bench_read_mode {
    BENCH_READ_ITERATE = 0,    /* pal_reader_next only */
    BENCH_READ_NAME,           /* + pal_record_get_u64(rec, "region") */
    BENCH_READ_HANDLE          /* + pal_record_u64(rec, handle of "region") */
} bench_read_mode;

/* Counts the records of the trace whose record type is one of names[0..n)
 * into counts[] (records of other types are passed over). Returns 0, or -1
 * with a message in err. */
int bench_pal_count(const char *path, const char *const *names, size_t n, uint64_t *counts,
                    char *err, size_t errlen);
/* The same, also counting into *waits the times ECL's recording threads
 * waited for a free buffer: the `flush` records whose `wait` is nonzero. */
int bench_pal_count_waits(const char *path, const char *const *names, size_t n,
                          uint64_t *counts, uint64_t *waits, char *err, size_t errlen);

/* Reads the whole trace once. *records counts every record returned, *hits the
 * records that had a "region" field, *sum adds their values (kept so the reads
 * cannot be dropped). Returns 0, or -1 with a message in err. */
int bench_pal_read(const char *path, bench_read_mode mode, uint64_t *records, uint64_t *hits,
                   uint64_t *sum, char *err, size_t errlen);

#endif /* BENCH_PAL_H */
