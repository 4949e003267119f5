/* map.c -- ECL basic layer: a map from 64-bit keys to pointers that threads
 * read without a lock while others add to it (the interface layer's function
 * table, keyed by address, and its region-by-name cache, keyed by a hash of
 * the name). Open addressing; writers hold the map's lock; a full table is
 * replaced by a copy twice its size, and the old tables stay allocated until
 * ecl_map_destroy, because a reader may still be probing one (it then misses
 * an entry added meanwhile and takes its caller's locked path). Key 0 is
 * never stored. */
#include <config.h>

#include "ecl/core/core.h"

#include <stdlib.h>

static void store(ecl_map_table *t, uint64_t key, void *value)
{
    size_t i = ecl_map_slot(key) & t->mask;
    while (t->e[i].key != 0 && t->e[i].key != key)
        i = (i + 1) & t->mask;
    /* value first: a reader that sees the key sees its value */
    __atomic_store_n(&t->e[i].value, value, __ATOMIC_RELEASE);
    if (t->e[i].key == 0) {
        t->used++;
        __atomic_store_n(&t->e[i].key, key, __ATOMIC_RELEASE);
    }
}

int ecl_map_put(ecl_map *m, uint64_t key, void *value)
{
    if (key == 0)
        return -1;
    ecl_map_table *t = m->table;
    if (t == NULL || 2 * (t->used + 1) > t->mask + 1) {
        size_t cap = t == NULL ? 256 : 2 * (t->mask + 1);
        ecl_map_table *n = calloc(1, sizeof *n + cap * sizeof n->e[0]);
        if (n == NULL)
            return -1;
        n->mask = cap - 1;
        n->older = t;
        for (size_t i = 0; t != NULL && i <= t->mask; i++)
            if (t->e[i].key != 0)
                store(n, t->e[i].key, t->e[i].value);
        __atomic_store_n(&m->table, n, __ATOMIC_RELEASE);
        t = n;
    }
    store(t, key, value);
    return 0;
}

void ecl_map_destroy(ecl_map *m)
{
    ecl_map_table *t = m->table;
    while (t != NULL) {
        ecl_map_table *o = t->older;
        free(t);
        t = o;
    }
    m->table = NULL;
}

uint64_t ecl_map_key_str(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h != 0 ? h : 1;
}
