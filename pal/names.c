/* names.c -- pal_names: references resolved. Records of definition types
 * (ROLE IS definition) that references point to are remembered as they go by
 * -- (reference, process, id) -> name -- so that an id in a later record
 * resolves to the name its definition gave. Keyed by the reference's slot
 * (a hash of record.field), not by descriptor, so that the records of
 * several readers of one run share a table. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "pal/pal-internal.h"

/* The process of an id that is unique in the trace. */
#define ANY_PROCESS UINT32_MAX

typedef struct entry {
    uint64_t slot, id;
    uint32_t process;
    uint32_t len;
    char *name;               /* NULL: a free cell */
} entry;

struct pal_names {
    entry *tab;
    size_t cap, n;
};

static uint64_t mix(uint64_t slot, uint32_t process, uint64_t id)
{
    uint64_t k = slot ^ (id * 0x9e3779b97f4a7c15ULL) ^ ((uint64_t)process << 32 | process);
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    return k;
}

static entry *find(const pal_names *n, uint64_t slot, uint32_t process, uint64_t id)
{
    if (!n->cap)
        return NULL;
    for (size_t i = mix(slot, process, id) & (n->cap - 1);; i = (i + 1) & (n->cap - 1)) {
        entry *e = &n->tab[i];
        if (!e->name || (e->slot == slot && e->process == process && e->id == id))
            return e;
    }
}

static pal_status grow(pal_names *n)
{
    size_t cap = n->cap ? n->cap * 2 : 64;
    entry *tab = calloc(cap, sizeof *tab);
    if (!tab)
        return PAL_ENOMEM;
    pal_names old = *n;
    n->tab = tab;
    n->cap = cap;
    for (size_t i = 0; i < old.cap; i++)
        if (old.tab[i].name)
            *find(n, old.tab[i].slot, old.tab[i].process, old.tab[i].id) = old.tab[i];
    free(old.tab);
    return PAL_OK;
}

/* Sets (slot, process, id) -> s[0..len); a later definition replaces an
 * earlier one. */
static pal_status put(pal_names *n, uint64_t slot, uint32_t process, uint64_t id, const char *s,
                      size_t len)
{
    if (2 * (n->n + 1) > n->cap && grow(n) != PAL_OK)
        return PAL_ENOMEM;
    entry *e = find(n, slot, process, id);
    if (e->name && e->len == len && memcmp(e->name, s, len) == 0)
        return PAL_OK;
    char *copy = malloc(len + 1);
    if (!copy)
        return PAL_ENOMEM;
    memcpy(copy, s, len);
    copy[len] = '\0';
    if (!e->name)
        n->n++;
    free(e->name);
    *e = (entry){slot, id, process, (uint32_t)len, copy};
    return PAL_OK;
}

pal_status pal_names_create(pal_names **out)
{
    PAL_REQUIRE(out, PAL_EINVAL);
    *out = calloc(1, sizeof **out);
    return *out ? PAL_OK : PAL_ENOMEM;
}

void pal_names_destroy(pal_names *n)
{
    if (!n)
        return;
    for (size_t i = 0; i < n->cap; i++)
        free(n->tab[i].name);
    free(n->tab);
    free(n);
}

/* The id in field fi of rec, as the table keys it (the value's bits). */
static pal_status id_of(const pal_record *rec, int32_t fi, uint64_t *id)
{
    if (fi < 0 || rec->lens[fi] == PAL_ABSENT)
        return PAL_ENOFIELD;
    uint8_t tc = rec->desc->fields[fi].tclass;
    if (tc != PAL_TC_SIGNED && tc != PAL_TC_UNSIGNED)
        return PAL_ETYPE;
    *id = rec->vals[fi].u;
    return PAL_OK;
}

pal_status pal_names_add(pal_names *n, const pal_record *rec)
{
    PAL_REQUIRE(n && rec, PAL_EINVAL);
    const pal_recdesc *d = rec->desc;
    if (PAL_LIKELY(d->ntargets == 0))
        return PAL_OK;
    for (size_t i = 0; i < d->ntargets; i++) {
        const struct pal_target *t = &d->targets[i];
        uint64_t id;
        if (t->name < 0 || rec->lens[t->name] == PAL_ABSENT || id_of(rec, t->key, &id) != PAL_OK)
            continue;
        const char *s = (const char *)rec->vals[t->name].s;
        size_t len = rec->lens[t->name];
        pal_status st = PAL_OK;
        if (t->scopes & 1)
            st = put(n, t->slot, rec->process, id, s, len);
        if (st == PAL_OK && (t->scopes & 2))
            st = put(n, t->slot, ANY_PROCESS, id, s, len);
        if (st != PAL_OK)
            return st;
    }
    return PAL_OK;
}

static pal_status lookup(const pal_names *n, const struct pal_ref *ref, uint32_t process,
                         uint64_t id, const char **s, size_t *len)
{
    if (!ref->record)
        return PAL_ENOFIELD;
    const entry *e = find(n, ref->slot, ref->global ? ANY_PROCESS : process, id);
    if (!e || !e->name)
        return PAL_EUNDEF;
    *s = e->name;
    if (len)
        *len = e->len;
    return PAL_OK;
}

pal_status pal_names_field(const pal_names *n, const pal_record *rec, size_t i, const char **s,
                           size_t *len)
{
    PAL_REQUIRE(n && rec && s, PAL_EINVAL);
    if (i >= rec->desc->nfields)
        return PAL_ENOFIELD;
    const struct pal_ref *ref = &rec->desc->fields[i].ref;
    uint64_t id;
    pal_status st = ref->record ? id_of(rec, (int32_t)i, &id) : PAL_ENOFIELD;
    return st == PAL_OK ? lookup(n, ref, rec->process, id, s, len) : st;
}

pal_status pal_names_handle(const pal_names *n, const pal_record *rec, const pal_handle *h,
                            const char **s, size_t *len)
{
    PAL_REQUIRE(n && rec && h && s, PAL_EINVAL);
    int32_t fi = h->role != PAL_FROLE_NONE ? rec->desc->role_fi[h->role]
               : rec->desc->index < h->nslots ? h->slots[rec->desc->index].field : -1;
    return fi < 0 ? PAL_ENOFIELD : pal_names_field(n, rec, (size_t)fi, s, len);
}

pal_status pal_names_thread(const pal_names *n, const pal_record *rec, const char **s,
                            size_t *len)
{
    PAL_REQUIRE(n && rec && s, PAL_EINVAL);
    return lookup(n, &rec->desc->dict->thread_ref, rec->process, rec->stream, s, len);
}

pal_status pal_names_process(const pal_names *n, const pal_record *rec, const char **s,
                             size_t *len)
{
    PAL_REQUIRE(n && rec && s, PAL_EINVAL);
    return lookup(n, &rec->desc->dict->process_ref, rec->process, rec->process, s, len);
}
