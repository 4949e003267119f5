/* nameidx.h -- names to indices for the dictionary model and the compiler:
 * the one string hash of edl/ and an index over names that live elsewhere
 * (a record's or a field's own name), so that lookups and duplicate checks
 * cost O(1) and a description is compiled in time linear in its size. */
#ifndef EDL_NAMEIDX_H
#define EDL_NAMEIDX_H

#include <stddef.h>

/* FNV-1a over the bytes of a NUL-terminated name. */
static inline size_t edl_name_hash(const char *s)
{
    size_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* Open addressing over a power-of-two table; the names are borrowed and must
 * outlive the index (or be removed with edl_nameidx_clear and put again). */
typedef struct edl_nameidx {
    struct edl_nameidx_slot { const char *name; size_t index; } *slot;
    size_t cap, n;
} edl_nameidx;

/* index of name, or -1 */
long edl_nameidx_get(const edl_nameidx *x, const char *name);
/* Adds (or replaces) name -> index. 0, or -1 out of memory (x unchanged). */
int edl_nameidx_put(edl_nameidx *x, const char *name, size_t index);
/* Empties the index, keeping its memory. */
void edl_nameidx_clear(edl_nameidx *x);
void edl_nameidx_free(edl_nameidx *x);

#endif
