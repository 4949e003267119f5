/* nameidx.c -- names to indices (nameidx.h). */
#include "config.h"

#include "edl/nameidx.h"

#include <stdlib.h>
#include <string.h>

long edl_nameidx_get(const edl_nameidx *x, const char *name)
{
    if (x->cap == 0)
        return -1;
    for (size_t i = edl_name_hash(name) & (x->cap - 1);; i = (i + 1) & (x->cap - 1)) {
        if (x->slot[i].name == NULL)
            return -1;
        if (strcmp(x->slot[i].name, name) == 0)
            return (long)x->slot[i].index;
    }
}

static void place(edl_nameidx *x, const char *name, size_t index)
{
    size_t i = edl_name_hash(name) & (x->cap - 1);
    while (x->slot[i].name != NULL && strcmp(x->slot[i].name, name) != 0)
        i = (i + 1) & (x->cap - 1);
    if (x->slot[i].name == NULL)
        x->n++;
    x->slot[i].name = name;
    x->slot[i].index = index;
}

int edl_nameidx_put(edl_nameidx *x, const char *name, size_t index)
{
    if (2 * (x->n + 1) > x->cap) {
        size_t cap = x->cap ? 2 * x->cap : 16;
        struct edl_nameidx_slot *s = calloc(cap, sizeof *s);
        if (s == NULL)
            return -1;
        edl_nameidx old = *x;
        x->slot = s;
        x->cap = cap;
        x->n = 0;
        for (size_t i = 0; i < old.cap; i++)
            if (old.slot[i].name != NULL)
                place(x, old.slot[i].name, old.slot[i].index);
        free(old.slot);
    }
    place(x, name, index);
    return 0;
}

void edl_nameidx_clear(edl_nameidx *x)
{
    if (x->cap)
        memset(x->slot, 0, x->cap * sizeof *x->slot);
    x->n = 0;
}

void edl_nameidx_free(edl_nameidx *x)
{
    free(x->slot);
    memset(x, 0, sizeof *x);
}
