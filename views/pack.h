/* pack.h -- a byte buffer for the partial results that pal-view --mpi
 * sends between processes (views/mpi.c): put and get of integers, doubles
 * (their bits, exactly), byte strings and arrays of doubles, little-endian
 * whatever the machine, every get bounds-checked. Private to pal-view.
 *
 * A writer (vw_pack) grows as it is written; when memory runs out it
 * remembers that (oom) and later puts do nothing. A reader (vw_unpack)
 * reads from bytes it does not own; a get past the end, or a count larger
 * than the bytes left could hold, sets bad and returns 0: the caller checks
 * bad once at the end. */
#ifndef VW_PACK_H
#define VW_PACK_H

#include <stddef.h>
#include <stdint.h>

typedef struct vw_pack {
    unsigned char *p;   /* owned: vw_pack_free */
    size_t n, cap;
    int oom;
} vw_pack;

typedef struct vw_unpack {
    const unsigned char *p;
    size_t n, at;
    int bad;
} vw_unpack;

void vw_put_u64(vw_pack *b, uint64_t v);
void vw_put_i64(vw_pack *b, int64_t v);
void vw_put_f64(vw_pack *b, double v);
/* n bytes, after their count; s NULL is "" */
void vw_put_bytes(vw_pack *b, const void *s, size_t n);
void vw_put_str(vw_pack *b, const char *s);
/* n doubles, runs of +0.0 as their length (the time bins are mostly 0) */
void vw_put_f64s(vw_pack *b, const double *a, size_t n);
void vw_pack_free(vw_pack *b);

uint64_t vw_get_u64(vw_unpack *u);
int64_t vw_get_i64(vw_unpack *u);
double vw_get_f64(vw_unpack *u);
/* a count of things of at least min_bytes each in what is left: larger
 * is bad (0) */
size_t vw_get_count(vw_unpack *u, size_t min_bytes);
/* an index below n; bad (0) otherwise */
size_t vw_get_index(vw_unpack *u, size_t n);
/* bytes put by vw_put_bytes or vw_put_str, pointing into the buffer (not
 * NUL-terminated); *len their number */
const char *vw_get_bytes(vw_unpack *u, size_t *len);
/* n doubles put by vw_put_f64s with the same n, into a */
void vw_get_f64s(vw_unpack *u, double *a, size_t n);

#endif /* VW_PACK_H */
