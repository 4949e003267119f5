/* defs.c -- ECL basic layer: definitions. Region and counter names get ids,
 * record types get layouts and join the dictionary; each definition is written
 * to stream 0 before the call returns, so it precedes every use in file order.
 * Everything here runs under ecl_T.def_lock; definitions are rare. */
#include <config.h>

#include "ecl/core/internal.h"

#include <stdio.h>
#include <stdlib.h>

/* ---------------- the native dictionary (doc/trace-format.md) ---------------- */

typedef struct native_field {
    const char *name;
    edl_type type;
    edl_encoding enc;
    const char *unit;
} native_field;

typedef struct native_record {
    const char *name;
    native_field f[4];
} native_record;

/* Index i describes record type id i + 1. */
static const native_record natives[] = {
    { "region_def", { { "region", EDL_UINT32, EDL_ENC_ULEB, NULL },
                      { "name", EDL_STRING, EDL_ENC_LSTRING, NULL } } },
    { "enter", { { "region", EDL_UINT32, EDL_ENC_ULEB, NULL } } },
    { "leave", { { "region", EDL_UINT32, EDL_ENC_ULEB, NULL } } },
    { "marker", { { "text", EDL_STRING, EDL_ENC_LSTRING, NULL },
                  { "length", EDL_UINT64, EDL_ENC_ULEB, NULL } } },
    { "counter_def", { { "counter", EDL_UINT32, EDL_ENC_ULEB, NULL },
                       { "name", EDL_STRING, EDL_ENC_LSTRING, NULL },
                       { "unit", EDL_STRING, EDL_ENC_LSTRING, NULL },
                       { "kind", EDL_UINT8, EDL_ENC_ULEB, NULL } } },
    { "counter_int", { { "counter", EDL_UINT32, EDL_ENC_ULEB, NULL },
                       { "value", EDL_INT64, EDL_ENC_SLEB, NULL } } },
    { "counter_float", { { "counter", EDL_UINT32, EDL_ENC_ULEB, NULL },
                         { "value", EDL_FLOAT64, EDL_ENC_FIXED, NULL } } },
    { "thread_def", { { "stream", EDL_UINT32, EDL_ENC_ULEB, NULL },
                      { "tid", EDL_UINT64, EDL_ENC_ULEB, NULL },
                      { "name", EDL_STRING, EDL_ENC_LSTRING, NULL } } },
    { "flush", { { "duration", EDL_UINT64, EDL_ENC_ULEB, "ticks" },
                 { "bytes", EDL_UINT64, EDL_ENC_ULEB, NULL } } },
    { "lost", { { "count", EDL_UINT64, EDL_ENC_ULEB, NULL } } },
    { "pause", { { NULL, 0, 0, NULL } } },
    { "resume", { { NULL, 0, 0, NULL } } },
    { "clock_sync", { { "mono_ns", EDL_UINT64, EDL_ENC_ULEB, "ns" },
                      { "real_ns", EDL_UINT64, EDL_ENC_ULEB, "ns" } } },
};
#define NNATIVE (sizeof natives / sizeof natives[0])

/* Layouts of every known type id (see ecl_trace_layout); natives are fixed. */
static const char *layouts[ECL_REC_TYPE_LIMIT] = {
    [ECL_REC_REGION_DEF] = "ul", [ECL_REC_ENTER] = "u",     [ECL_REC_LEAVE] = "u",
    [ECL_REC_MARKER] = "lu",     [ECL_REC_COUNTER_DEF] = "ullu",
    [ECL_REC_COUNTER_INT] = "us", [ECL_REC_COUNTER_FLOAT] = "u8",
    [ECL_REC_THREAD_DEF] = "uul", [ECL_REC_FLUSH] = "uu",  [ECL_REC_LOST] = "u",
    [ECL_REC_PAUSE] = "",        [ECL_REC_RESUME] = "",     [ECL_REC_CLOCK_SYNC] = "uu",
};

const char *ecl_trace_layout(uint32_t type)
{
    if (type >= ECL_REC_TYPE_LIMIT)
        return NULL;
    return __atomic_load_n(&layouts[type], __ATOMIC_ACQUIRE);
}

/* Types defined at run time, kept to compare re-definitions and to rebuild
 * the dictionary of a trace opened after they were defined. */
typedef struct type_def {
    uint32_t id;
    char *name, *description;
    size_t n;
    ecl_trace_field *f;          /* strings owned */
    char layout[33];              /* one letter per field, NUL-terminated */
} type_def;

static type_def *types;
static size_t ntypes, types_cap;
static uint32_t next_user_id = ECL_REC_USER_FIRST;

/* ---------------- name tables ---------------- */

typedef struct name_table {
    char **names;                /* names[id - 1] */
    uint8_t *kinds;              /* counters only */
    size_t n, cap;
} name_table;

static name_table regions, counters;

static uint32_t table_find(const name_table *nt, const char *name)
{
    /* Linear: definitions are once per name, and programs have tens to a few
     * thousand names. */
    for (size_t i = 0; i < nt->n; i++)
        if (strcmp(nt->names[i], name) == 0)
            return (uint32_t)i + 1;
    return 0;
}

static uint32_t table_add(name_table *nt, const char *name, int kind)
{
    if (nt->n == nt->cap) {
        size_t cap = nt->cap ? 2 * nt->cap : 64;
        char **nn = realloc(nt->names, cap * sizeof *nn);
        if (nn == NULL)
            return 0;
        nt->names = nn;
        uint8_t *nk = realloc(nt->kinds, cap);
        if (nk == NULL)
            return 0;
        nt->kinds = nk;
        nt->cap = cap;
    }
    char *copy = strdup(name);
    if (copy == NULL)
        return 0;
    nt->names[nt->n] = copy;
    nt->kinds[nt->n] = (uint8_t)kind;
    return (uint32_t)++nt->n;
}

static pthread_mutex_t defs_lock = PTHREAD_MUTEX_INITIALIZER;

static int trace_writable(void)
{
    int s = __atomic_load_n(&ecl_T.state, __ATOMIC_ACQUIRE);
    return s == ECL_T_OPEN || s == ECL_T_CLOSING;
}

/* Encodes a definition record into a heap buffer and writes it. */
static ecl_core_status write_record(uint32_t type, const uint64_t *u, size_t nu,
                                    const char *const *s, size_t ns, const uint64_t *u2,
                                    size_t nu2)
{
    if (!trace_writable())
        return ECL_CORE_OK;
    size_t cap = 32 + 10 * (nu + nu2);
    for (size_t i = 0; i < ns; i++)
        cap += 10 + strlen(s[i]);
    uint8_t *rec = malloc(cap), *p = rec;
    if (rec == NULL)
        return ECL_CORE_ENOMEM;
    uint64_t now = ecl_sys_clock_now();
    p = ecl_buf_put_uleb(p, type);
    *p++ = 0;
    for (size_t i = 0; i < nu; i++)
        p = ecl_buf_put_uleb(p, u[i]);
    for (size_t i = 0; i < ns; i++)
        p = ecl_buf_put_str(p, s[i], strlen(s[i]));
    for (size_t i = 0; i < nu2; i++)
        p = ecl_buf_put_uleb(p, u2[i]);
    pthread_mutex_lock(&ecl_T.def_lock);
    ecl_core_status st = ecl_trace_write_def(rec, (size_t)(p - rec), now);
    pthread_mutex_unlock(&ecl_T.def_lock);
    free(rec);
    return st;
}

uint32_t ecl_trace_region(const char *name)
{
    if (name == NULL || name[0] == '\0')
        return 0;
    pthread_mutex_lock(&defs_lock);
    uint32_t id = table_find(&regions, name);
    if (id == 0 && (id = table_add(&regions, name, 0)) != 0) {
        uint64_t u = id;
        write_record(ECL_REC_REGION_DEF, &u, 1, &name, 1, NULL, 0);
    }
    pthread_mutex_unlock(&defs_lock);
    return id;
}

uint32_t ecl_trace_counter(const char *name, const char *unit, int kind)
{
    if (name == NULL || name[0] == '\0' || (kind != 0 && kind != 1))
        return 0;
    if (unit == NULL)
        unit = "";
    pthread_mutex_lock(&defs_lock);
    uint32_t id = table_find(&counters, name);
    if (id == 0 && (id = table_add(&counters, name, kind)) != 0) {
        uint64_t u = id, k = (uint64_t)kind;
        const char *s[2] = { name, unit };
        write_record(ECL_REC_COUNTER_DEF, &u, 1, s, 2, &k, 1);
    }
    pthread_mutex_unlock(&defs_lock);
    return id;
}

int ecl_trace_counter_kind(uint32_t id)
{
    int k = -1;
    pthread_mutex_lock(&defs_lock);
    if (id >= 1 && id <= counters.n)
        k = counters.kinds[id - 1];
    pthread_mutex_unlock(&defs_lock);
    return k;
}

/* ---------------- record types ---------------- */

static int valid_name(const char *s)
{
    if (s == NULL || !((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_'))
        return 0;
    for (s++; *s; s++)
        if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_' ||
              (*s >= '0' && *s <= '9')))
            return 0;
    return 1;
}

static const char *nz(const char *s)
{
    return s != NULL ? s : "";
}

/* Layout letter of a field, 0 if the type/encoding pair is not allowed. */
static char layout_letter(edl_type t, edl_encoding e)
{
    int is_signed = t >= EDL_INT8 && t <= EDL_INT64;
    int is_unsigned = t >= EDL_UINT8 && t <= EDL_UINT64;
    switch (e) {
    case EDL_ENC_ULEB: return is_unsigned ? 'u' : 0;
    case EDL_ENC_SLEB: return is_signed ? 's' : 0;
    case EDL_ENC_LSTRING: return t == EDL_STRING ? 'l' : 0;
    case EDL_ENC_FIXED:
        switch (t) {
        case EDL_INT8: case EDL_UINT8: return '1';
        case EDL_INT16: case EDL_UINT16: return '2';
        case EDL_INT32: case EDL_UINT32: case EDL_FLOAT32: return '4';
        case EDL_INT64: case EDL_UINT64: case EDL_FLOAT64: return '8';
        default: return 0;
        }
    default: return 0;
    }
}

static int same_fields(const type_def *td, const char *description,
                       const ecl_trace_field *f, size_t n)
{
    if (td->n != n || strcmp(td->description, nz(description)) != 0)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (strcmp(td->f[i].name, f[i].name) != 0 || td->f[i].type != f[i].type ||
            td->f[i].encoding != f[i].encoding || strcmp(td->f[i].unit, nz(f[i].unit)) != 0 ||
            strcmp(td->f[i].description, nz(f[i].description)) != 0)
            return 0;
    return 1;
}

static edl_status add_common_fields(edl_record *r)
{
    edl_status s = edl_record_add_field(r, "type", EDL_UINT16, EDL_ENC_ULEB, NULL, NULL);
    if (s == EDL_OK)
        s = edl_record_add_field(r, "time", EDL_UINT64, EDL_ENC_TDELTA, "ticks", NULL);
    return s;
}

static edl_status dict_add_type(edl_dict *d, const type_def *td)
{
    edl_record *r;
    char key[16];
    edl_status s = edl_dict_add_record(d, td->name, td->description, &r);
    if (s == EDL_OK)
        s = add_common_fields(r);
    for (size_t i = 0; i < td->n && s == EDL_OK; i++)
        s = edl_record_add_field(r, td->f[i].name, td->f[i].type, td->f[i].encoding,
                                 td->f[i].unit, td->f[i].description);
    snprintf(key, sizeof key, "%u", (unsigned)td->id);
    if (s == EDL_OK)
        s = edl_dict_add_bind(d, key, NULL, td->name);
    return s;
}

static void type_def_free(type_def *td)
{
    for (size_t i = 0; i < td->n; i++) {
        free((char *)td->f[i].name);
        free((char *)td->f[i].unit);
        free((char *)td->f[i].description);
    }
    free(td->f);
    free(td->name);
    free(td->description);
}

static edl_status new_dict(edl_dict **out);

/* Writes a kind-2 chunk that adds td to the file's dictionary (caller holds
 * def_lock): a dictionary of that type alone, compressed (definitions are
 * made at set-up, never on the recording path) and written twice. */
static ecl_core_status write_dict_chunk(const type_def *td)
{
    edl_dict *d = NULL;
    unsigned char *buf = NULL;
    size_t len;
    ecl_core_status st = ECL_CORE_ENOMEM;
    if (new_dict(&d) != EDL_OK || dict_add_type(d, td) != EDL_OK ||
        edl_dict_encode(d, &buf, &len) != EDL_OK)
        goto out;
    ecc_zctx *z = ecc_zctx_create(ECC_COMP_ZLIB, 1, len);
    const uint8_t *stored;
    ecl_chunk_info ci;
    memset(&ci, 0, sizeof ci);
    ci.kind = ECC_KIND_DICT;
    ci.raw_length = (uint32_t)len;
    ci.stored_length = (uint32_t)ecc_compress(z, buf, len, &stored, &ci.compression);
    ci.process = __atomic_load_n(&ecl_T.process, __ATOMIC_RELAXED);
    ci.stream = 0;
    ci.sequence = ecl_T.seq0++;
    ci.first_time = ci.last_time = ecl_sys_clock_now();
    st = ecl_chunk_write_twice(&ci, stored);
    ecc_zctx_destroy(z);
out:
    free(buf);
    edl_dict_destroy(d);
    return st;
}

ecl_core_status ecl_trace_type_define(uint32_t id, const char *name, const char *description,
                                      const ecl_trace_field *fields, size_t nfields,
                                      uint32_t *out)
{
    if (!valid_name(name) || (nfields > 0 && fields == NULL) || nfields > 32 ||
        (id != 0 && (id < ECL_REC_RESERVED_FIRST || id > ECL_REC_RESERVED_LAST)))
        return ECL_CORE_EINVAL;
    for (size_t i = 0; i < nfields; i++) {
        if (!valid_name(fields[i].name) || strcmp(fields[i].name, "type") == 0 ||
            strcmp(fields[i].name, "time") == 0 ||
            layout_letter(fields[i].type, fields[i].encoding) == 0)
            return ECL_CORE_EINVAL;
        for (size_t j = 0; j < i; j++)
            if (strcmp(fields[i].name, fields[j].name) == 0)
                return ECL_CORE_EINVAL;
    }
    for (size_t i = 0; i < NNATIVE; i++)
        if (strcmp(natives[i].name, name) == 0)
            return ECL_CORE_EEXIST;

    ecl_core_status st = ECL_CORE_OK;
    pthread_mutex_lock(&defs_lock);
    for (size_t i = 0; i < ntypes; i++) {
        if (strcmp(types[i].name, name) == 0) {
            if (same_fields(&types[i], description, fields, nfields) &&
                (id == 0 || id == types[i].id)) {
                *out = types[i].id;
            } else {
                st = ECL_CORE_EEXIST;
            }
            goto out;
        }
        if (id != 0 && types[i].id == id) {
            st = ECL_CORE_EEXIST;
            goto out;
        }
    }
    if (id == 0 && next_user_id >= ECL_REC_TYPE_LIMIT) {
        st = ECL_CORE_ENOMEM;
        goto out;
    }
    if (ntypes == types_cap) {
        size_t cap = types_cap ? 2 * types_cap : 16;
        type_def *nt = realloc(types, cap * sizeof *nt);
        if (nt == NULL) {
            st = ECL_CORE_ENOMEM;
            goto out;
        }
        types = nt;
        types_cap = cap;
    }
    type_def *td = &types[ntypes];
    memset(td, 0, sizeof *td);
    td->name = strdup(name);
    td->description = strdup(nz(description));
    td->f = calloc(nfields ? nfields : 1, sizeof *td->f);
    int ok = td->name && td->description && td->f;
    for (size_t i = 0; ok && i < nfields; i++) {
        td->f[i] = fields[i];
        td->f[i].name = strdup(fields[i].name);
        td->f[i].unit = strdup(nz(fields[i].unit));
        td->f[i].description = strdup(nz(fields[i].description));
        td->n = i + 1;
        ok = td->f[i].name && td->f[i].unit && td->f[i].description;
        td->layout[i] = layout_letter(fields[i].type, fields[i].encoding);
    }
    if (!ok) {
        type_def_free(td);
        st = ECL_CORE_ENOMEM;
        goto out;
    }
    td->id = id != 0 ? id : next_user_id;

    /* Into the dictionary and the file first: a type is usable only once its
     * descriptor precedes its records. */
    pthread_mutex_lock(&ecl_T.def_lock);
    if (trace_writable() && ecl_T.dict != NULL) {
        edl_status es = dict_add_type(ecl_T.dict, td);
        if (es == EDL_OK)
            st = write_dict_chunk(td);
        else
            st = es == EDL_ENOMEM ? ECL_CORE_ENOMEM : ECL_CORE_EEXIST;
    }
    pthread_mutex_unlock(&ecl_T.def_lock);
    if (st != ECL_CORE_OK && st != ECL_CORE_EIO) {
        type_def_free(td);
        goto out;
    }
    /* layouts[] is read by crash-time flushes: it must point at memory that
     * never moves (td lives in `types`, which realloc moves), so publish a
     * copy of its own, kept for the life of the process. */
    char *lay = strdup(td->layout);
    if (lay == NULL) {
        type_def_free(td);
        st = ECL_CORE_ENOMEM;
        goto out;
    }
    if (id == 0)
        next_user_id++;
    ntypes++;
    __atomic_store_n(&layouts[td->id], lay, __ATOMIC_RELEASE);
    *out = td->id;
    st = ECL_CORE_OK;
out:
    pthread_mutex_unlock(&defs_lock);
    return st;
}

ecl_core_status ecl_trace_write_definition(uint32_t type, const uint8_t *fields, size_t len)
{
    if (type < ECL_REC_RESERVED_FIRST || ecl_trace_layout(type) == NULL ||
        (len > 0 && fields == NULL))
        return ECL_CORE_EINVAL;
    if (!trace_writable())
        return ECL_CORE_ESTATE;
    uint8_t *rec = malloc(len + 3), *p = rec;
    if (rec == NULL)
        return ECL_CORE_ENOMEM;
    p = ecl_buf_put_uleb(p, type);
    *p++ = 0;                        /* time delta: the record is the chunk's first */
    if (len > 0)
        memcpy(p, fields, len);
    p += len;
    uint64_t now = ecl_sys_clock_now();
    pthread_mutex_lock(&ecl_T.def_lock);
    ecl_core_status st = ecl_trace_write_def(rec, (size_t)(p - rec), now);
    pthread_mutex_unlock(&ecl_T.def_lock);
    free(rec);
    return st;
}

/* An empty dictionary with the native header (name, representation, byte
 * order, roles, key). */
static edl_status new_dict(edl_dict **out)
{
    edl_dict *d = NULL;
    edl_status s;
    char bo = 'L';
    uint16_t probe = 1;
    if (*(const uint8_t *)&probe == 0)
        bo = 'B';
    if ((s = edl_dict_create("ecl", "1.0", EDL_REPR_BINARY, &d)) == EDL_OK &&
        ((s = edl_dict_set_binary(d, bo, EDL_FRAMING_ECL)) != EDL_OK ||
         (s = edl_dict_set_roles(d, "time", "ticks", "", "")) != EDL_OK ||
         (s = edl_dict_set_key(d, 1, 0, EDL_NO_KEY)) != EDL_OK)) {
        edl_dict_destroy(d);
        d = NULL;
    }
    *out = d;
    return s;
}

/* Builds the dictionary embedded in the file header: the natives, then every
 * type defined so far. Deterministic: same definitions, same bytes. */
ecl_core_status ecl_defs_init(char *err, size_t errlen)
{
    edl_dict *d = NULL;
    edl_status s;
    if ((s = new_dict(&d)) != EDL_OK)
        goto fail;
    for (size_t i = 0; i < NNATIVE; i++) {
        edl_record *r;
        if ((s = edl_dict_add_record(d, natives[i].name, NULL, &r)) != EDL_OK ||
            (s = add_common_fields(r)) != EDL_OK)
            goto fail;
        for (size_t j = 0; j < 4 && natives[i].f[j].name != NULL; j++)
            if ((s = edl_record_add_field(r, natives[i].f[j].name, natives[i].f[j].type,
                                          natives[i].f[j].enc, natives[i].f[j].unit, NULL)) !=
                EDL_OK)
                goto fail;
    }
    for (size_t i = 0; i < NNATIVE; i++) {
        char key[8];
        snprintf(key, sizeof key, "%u", (unsigned)(i + 1));
        if ((s = edl_dict_add_bind(d, key, NULL, natives[i].name)) != EDL_OK)
            goto fail;
    }
    pthread_mutex_lock(&defs_lock);
    for (size_t i = 0; i < ntypes && s == EDL_OK; i++)
        s = dict_add_type(d, &types[i]);
    pthread_mutex_unlock(&defs_lock);
    if (s != EDL_OK)
        goto fail;
    ecl_T.dict = d;
    return ECL_CORE_OK;
fail:
    snprintf(err, errlen, "cannot build the trace dictionary: %s", edl_status_string(s));
    edl_dict_destroy(d);
    return s == EDL_ENOMEM ? ECL_CORE_ENOMEM : ECL_CORE_EINVAL;
}

void ecl_defs_fini(void)
{
    edl_dict_destroy(ecl_T.dict);
    ecl_T.dict = NULL;
}
