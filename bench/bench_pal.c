/* bench_pal.c -- PAL read loops of the bench/ programs (see bench_pal.h). */
#include <config.h>

#include "bench/bench_pal.h"
#include "bench/bench_common.h"
#include "pal/pal.h"

#include <stdio.h>
#include <string.h>

int bench_pal_count(const char *path, const char *const *names, size_t n, uint64_t *counts,
                    char *err, size_t errlen)
{
    return bench_pal_count_waits(path, names, n, counts, NULL, err, errlen);
}

int bench_pal_count_waits(const char *path, const char *const *names, size_t n,
                          uint64_t *counts, uint64_t *waits, char *err, size_t errlen)
{
    pal_reader *r = NULL;
    const pal_record *rec;
    /* Types met so far and their index in names (n: not counted). By name,
     * since types defined at run time join the dictionary while it is read. */
    enum { SEEN_MAX = 64 };
    const pal_recdesc *seen[SEEN_MAX];
    size_t seen_i[SEEN_MAX], nseen = 0;
    pal_status st = pal_reader_open(path, NULL, &r);
    if (st != PAL_OK) {
        snprintf(err, errlen, "%s", r ? pal_reader_error(r) : pal_last_error());
        pal_reader_close(r);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        counts[i] = 0;
    if (waits)
        *waits = 0;
    while ((st = pal_reader_next(r, &rec)) == PAL_OK) {
        const pal_recdesc *d = pal_record_desc(rec);
        uint64_t w;
        if (waits && strcmp(pal_recdesc_name(d), "flush") == 0 &&
            pal_record_get_u64(rec, "wait", &w) == PAL_OK && w > 0)
            ++*waits;
        size_t k = 0, i;
        while (k < nseen && seen[k] != d)
            k++;
        if (k < nseen) {
            i = seen_i[k];
        } else {
            for (i = 0; i < n && strcmp(pal_recdesc_name(d), names[i]) != 0; i++)
                ;
            if (nseen < SEEN_MAX) {
                seen[nseen] = d;
                seen_i[nseen++] = i;
            }
        }
        if (i < n)
            counts[i]++;
    }
    if (st != PAL_END) {
        snprintf(err, errlen, "%s",
                 pal_reader_error(r)[0] ? pal_reader_error(r) : pal_status_string(st));
        pal_reader_close(r);
        return -1;
    }
    pal_reader_close(r);
    return 0;
}

int bench_pal_read(const char *path, bench_read_mode mode, uint64_t *records, uint64_t *hits,
                   uint64_t *sum, char *err, size_t errlen)
{
    pal_reader *r = NULL;
    const pal_record *rec;
    const pal_handle *h = NULL;
    uint64_t nrec = 0, nhit = 0, acc = 0, v;
    pal_status st = pal_reader_open(path, NULL, &r);
    if (st != PAL_OK) {
        snprintf(err, errlen, "%s", r ? pal_reader_error(r) : pal_last_error());
        pal_reader_close(r);
        return -1;
    }
    if (mode == BENCH_READ_HANDLE && (st = pal_reader_handle(r, "region", &h)) != PAL_OK) {
        snprintf(err, errlen, "pal_reader_handle(region): %s", pal_status_string(st));
        pal_reader_close(r);
        return -1;
    }
    switch (mode) {
    case BENCH_READ_ITERATE:
        while ((st = pal_reader_next(r, &rec)) == PAL_OK) {
            BENCH_KEEP(rec);
            nrec++;
        }
        break;
    case BENCH_READ_NAME:
        while ((st = pal_reader_next(r, &rec)) == PAL_OK) {
            nrec++;
            if (pal_record_get_u64(rec, "region", &v) == PAL_OK) {
                nhit++;
                acc += v;
            }
        }
        break;
    case BENCH_READ_HANDLE:
        while ((st = pal_reader_next(r, &rec)) == PAL_OK) {
            nrec++;
            if (pal_record_u64(rec, h, &v) == PAL_OK) {
                nhit++;
                acc += v;
            }
        }
        break;
    }
    if (st != PAL_END) {
        snprintf(err, errlen, "after %llu records: %s", (unsigned long long)nrec,
                 pal_reader_error(r)[0] ? pal_reader_error(r) : pal_status_string(st));
        pal_reader_close(r);
        return -1;
    }
    pal_reader_close(r);
    *records = nrec;
    *hits = nhit;
    *sum = acc;
    return 0;
}
