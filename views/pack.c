/* pack.c -- the byte buffer of pal-view --mpi's partial results
 * (views/pack.h): fixed 8-byte little-endian words, bounds-checked gets. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "views/pack.h"

static unsigned char *room(vw_pack *b, size_t n)
{
    if (b->oom)
        return NULL;
    if (b->cap - b->n < n) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap - b->n < n)
            cap *= 2;
        unsigned char *p = realloc(b->p, cap);
        if (p == NULL) {
            b->oom = 1;
            return NULL;
        }
        b->p = p;
        b->cap = cap;
    }
    unsigned char *at = b->p + b->n;
    b->n += n;
    return at;
}

void vw_put_u64(vw_pack *b, uint64_t v)
{
    unsigned char *p = room(b, 8);
    for (int i = 0; p && i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

void vw_put_i64(vw_pack *b, int64_t v) { vw_put_u64(b, (uint64_t)v); }

void vw_put_f64(vw_pack *b, double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    vw_put_u64(b, u);
}

void vw_put_bytes(vw_pack *b, const void *s, size_t n)
{
    vw_put_u64(b, n);
    unsigned char *p = n ? room(b, n) : NULL;
    if (p)
        memcpy(p, s, n);
}

void vw_put_str(vw_pack *b, const char *s) { vw_put_bytes(b, s, s ? strlen(s) : 0); }

static int is_zero(double v)
{
    uint64_t u;
    memcpy(&u, &v, sizeof u);
    return u == 0;
}

/* segments: (zeros, others, the others' values) until n are covered */
void vw_put_f64s(vw_pack *b, const double *a, size_t n)
{
    for (size_t i = 0; i < n;) {
        size_t z = i;
        while (z < n && is_zero(a[z]))
            z++;
        size_t o = z;
        while (o < n && !is_zero(a[o]))
            o++;
        vw_put_u64(b, z - i);
        vw_put_u64(b, o - z);
        for (size_t k = z; k < o; k++)
            vw_put_f64(b, a[k]);
        i = o;
    }
}

void vw_pack_free(vw_pack *b)
{
    free(b->p);
    b->p = NULL;
    b->n = b->cap = 0;
}

uint64_t vw_get_u64(vw_unpack *u)
{
    if (u->bad || u->n - u->at < 8) {
        u->bad = 1;
        return 0;
    }
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)u->p[u->at + i] << (8 * i);
    u->at += 8;
    return v;
}

int64_t vw_get_i64(vw_unpack *u) { return (int64_t)vw_get_u64(u); }

double vw_get_f64(vw_unpack *u)
{
    uint64_t v = vw_get_u64(u);
    double d;
    memcpy(&d, &v, sizeof d);
    return d;
}

size_t vw_get_count(vw_unpack *u, size_t min_bytes)
{
    uint64_t c = vw_get_u64(u);
    if (u->bad || (min_bytes && c > (u->n - u->at) / min_bytes)) {
        u->bad = 1;
        return 0;
    }
    return (size_t)c;
}

size_t vw_get_index(vw_unpack *u, size_t n)
{
    uint64_t i = vw_get_u64(u);
    if (u->bad || i >= n) {
        u->bad = 1;
        return 0;
    }
    return (size_t)i;
}

const char *vw_get_bytes(vw_unpack *u, size_t *len)
{
    size_t n = vw_get_count(u, 1);
    *len = 0;
    if (u->bad)
        return "";
    const char *s = (const char *)u->p + u->at;
    u->at += n;
    *len = n;
    return s;
}

void vw_get_f64s(vw_unpack *u, double *a, size_t n)
{
    for (size_t i = 0; i < n && !u->bad;) {
        uint64_t z = vw_get_u64(u), o = vw_get_u64(u);
        if (u->bad || z > n - i || o > n - i - z || (z == 0 && o == 0)) {
            u->bad = 1;
            return;
        }
        memset(a + i, 0, (size_t)z * sizeof *a);
        i += (size_t)z;
        for (uint64_t k = 0; k < o; k++)
            a[i++] = vw_get_f64(u);
    }
}
