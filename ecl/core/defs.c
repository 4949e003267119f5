/* defs.c -- ECL basic layer: definitions. Region and counter names get ids,
 * record types get layouts and join the dictionary; each definition is written
 * to stream 0 before the call returns, so it precedes every use in file order.
 * Everything here runs under ecl_T.def_lock; definitions are rare. */
#include <config.h>

#include "ecl/core/internal.h"

#include <stdio.h>
#include <stdlib.h>

/* ---------------- the native dictionary (doc/trace-format.md) ---------------- */

/* What each native record means (doc/edl.md, "Roles"): its role, and per
 * field a role and, for ids, the definition record that names them (by its
 * field of the same name, per process). edl/formats/ecl.edl says the same. */
typedef struct native_field {
    const char *name;
    edl_type type;
    edl_encoding enc;
    const char *unit;
    edl_field_role role;
    const char *ref;             /* definition record naming the id, or NULL */
} native_field;

typedef struct native_record {
    const char *name;
    edl_record_role role;
    native_field f[4];
} native_record;

#define U32 EDL_UINT32, EDL_ENC_ULEB
#define U64 EDL_UINT64, EDL_ENC_ULEB
#define STR EDL_STRING, EDL_ENC_LSTRING
#define NO_FIELD { NULL, 0, 0, NULL, EDL_FROLE_NONE, NULL }

/* Index i describes record type id i + 1. */
static const native_record natives[] = {
    { "region_def", EDL_ROLE_DEFINITION,
      { { "region", U32, NULL, EDL_FROLE_NONE, NULL },
        { "name", STR, NULL, EDL_FROLE_NAME, NULL }, NO_FIELD, NO_FIELD } },
    { "enter", EDL_ROLE_ENTER,
      { { "region", U32, NULL, EDL_FROLE_REGION, "region_def" }, NO_FIELD, NO_FIELD,
        NO_FIELD } },
    { "leave", EDL_ROLE_LEAVE,
      { { "region", U32, NULL, EDL_FROLE_REGION, "region_def" }, NO_FIELD, NO_FIELD,
        NO_FIELD } },
    { "marker", EDL_ROLE_MARKER,
      { { "text", STR, NULL, EDL_FROLE_TEXT, NULL },
        { "length", U64, NULL, EDL_FROLE_NONE, NULL }, NO_FIELD, NO_FIELD } },
    { "counter_def", EDL_ROLE_DEFINITION,
      { { "counter", U32, NULL, EDL_FROLE_NONE, NULL },
        { "name", STR, NULL, EDL_FROLE_NAME, NULL },
        { "unit", STR, NULL, EDL_FROLE_UNIT, NULL },
        { "kind", EDL_UINT8, EDL_ENC_ULEB, NULL, EDL_FROLE_NONE, NULL } } },
    { "counter_int", EDL_ROLE_COUNTER,
      { { "counter", U32, NULL, EDL_FROLE_COUNTER, "counter_def" },
        { "value", EDL_INT64, EDL_ENC_SLEB, NULL, EDL_FROLE_VALUE, NULL }, NO_FIELD,
        NO_FIELD } },
    { "counter_float", EDL_ROLE_COUNTER,
      { { "counter", U32, NULL, EDL_FROLE_COUNTER, "counter_def" },
        { "value", EDL_FLOAT64, EDL_ENC_FIXED, NULL, EDL_FROLE_VALUE, NULL }, NO_FIELD,
        NO_FIELD } },
    { "thread_def", EDL_ROLE_DEFINITION,
      { { "stream", U32, NULL, EDL_FROLE_NONE, NULL },
        { "tid", U64, NULL, EDL_FROLE_NONE, NULL },
        { "name", STR, NULL, EDL_FROLE_NAME, NULL }, NO_FIELD } },
    { "flush", EDL_ROLE_OVERHEAD,
      { { "duration", U64, "ticks", EDL_FROLE_DURATION, NULL },
        { "bytes", U64, NULL, EDL_FROLE_NONE, NULL },
        { "wait", U64, "ticks", EDL_FROLE_NONE, NULL }, NO_FIELD } },
    { "lost", EDL_ROLE_LOST,
      { { "count", U64, NULL, EDL_FROLE_COUNT, NULL }, NO_FIELD, NO_FIELD, NO_FIELD } },
    { "pause", EDL_ROLE_PAUSE, { NO_FIELD, NO_FIELD, NO_FIELD, NO_FIELD } },
    { "resume", EDL_ROLE_RESUME, { NO_FIELD, NO_FIELD, NO_FIELD, NO_FIELD } },
    { "clock_sync", EDL_ROLE_METADATA,
      { { "mono_ns", U64, "ns", EDL_FROLE_NONE, NULL },
        { "real_ns", U64, "ns", EDL_FROLE_NONE, NULL }, NO_FIELD, NO_FIELD } },
};
#undef U32
#undef U64
#undef STR
#undef NO_FIELD
#define NNATIVE (sizeof natives / sizeof natives[0])

/* Layouts of every known type id (see ecl_trace_layout); natives are fixed. */
static const char *layouts[ECL_REC_TYPE_LIMIT] = {
    [ECL_REC_REGION_DEF] = "ul", [ECL_REC_ENTER] = "u",     [ECL_REC_LEAVE] = "u",
    [ECL_REC_MARKER] = "lu",     [ECL_REC_COUNTER_DEF] = "ullu",
    [ECL_REC_COUNTER_INT] = "us", [ECL_REC_COUNTER_FLOAT] = "u8",
    [ECL_REC_THREAD_DEF] = "uul", [ECL_REC_FLUSH] = "uuu",  [ECL_REC_LOST] = "u",
    [ECL_REC_PAUSE] = "",        [ECL_REC_RESUME] = "",     [ECL_REC_CLOCK_SYNC] = "uu",
};

const char *ecl_trace_layout(uint32_t type)
{
    if (type >= ECL_REC_TYPE_LIMIT)
        return NULL;
    return __atomic_load_n(&layouts[type], __ATOMIC_ACQUIRE);
}

/* Types defined at run time, kept to compare re-definitions and to rebuild
 * the dictionary of a trace opened after they were defined. Each is kept as
 * a one-record dictionary: the descriptor with its meaning, copied as it is
 * into every trace dictionary (edl_dict_copy_record). */
typedef struct type_def {
    uint32_t id;
    edl_dict *proto;
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
    p = ecl_buf_put_uleb(p, type);
    *p++ = 0;
    for (size_t i = 0; i < nu; i++)
        p = ecl_buf_put_uleb(p, u[i]);
    for (size_t i = 0; i < ns; i++)
        p = ecl_buf_put_str(p, s[i], strlen(s[i]));
    for (size_t i = 0; i < nu2; i++)
        p = ecl_buf_put_uleb(p, u2[i]);
    /* the time is read under the lock, so stream 0's times never go back */
    pthread_mutex_lock(&ecl_T.def_lock);
    ecl_core_status st = ecl_trace_write_def(rec, (size_t)(p - rec), ecl_sys_clock_now());
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

static edl_status add_common_fields(edl_record *r)
{
    edl_status s = edl_record_add_field(r, "type", EDL_UINT16, EDL_ENC_ULEB, NULL, NULL);
    if (s == EDL_OK)
        s = edl_record_add_field(r, "time", EDL_UINT64, EDL_ENC_TDELTA, "ticks", NULL);
    return s;
}

/* The one-record dictionary of a type: `type`, `time`, the fields, the meaning. */
static edl_status make_proto(const char *name, const char *description,
                             const ecl_trace_field *fields, size_t n, const edl_meaning *meaning,
                             edl_dict **out)
{
    edl_dict *d;
    edl_record *r;
    edl_status s = edl_dict_create("ecl", "1.0", EDL_REPR_BINARY, &d);
    if (s != EDL_OK)
        return s;
    s = edl_dict_add_record(d, name, description, &r);
    if (s == EDL_OK)
        s = add_common_fields(r);
    for (size_t i = 0; i < n && s == EDL_OK; i++)
        s = edl_record_add_field(r, fields[i].name, fields[i].type, fields[i].encoding,
                                 fields[i].unit, fields[i].description);
    if (s == EDL_OK && meaning != NULL)
        s = edl_record_set_meaning(r, meaning);
    if (s != EDL_OK) {
        edl_dict_destroy(d);
        return s;
    }
    *out = d;
    return EDL_OK;
}

static edl_status dict_add_type(edl_dict *d, const type_def *td)
{
    const edl_record *proto = edl_dict_record(td->proto, 0);
    char key[16];
    edl_status s = edl_dict_copy_record(d, proto, NULL);
    snprintf(key, sizeof key, "%u", (unsigned)td->id);
    if (s == EDL_OK)
        s = edl_dict_add_bind(d, key, NULL, edl_record_name(proto));
    return s;
}

static void type_def_free(type_def *td)
{
    edl_dict_destroy(td->proto);
    td->proto = NULL;
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
    return ecl_trace_type_define_meaning(id, name, description, fields, nfields, NULL, out);
}

ecl_core_status ecl_trace_type_define_meaning(uint32_t id, const char *name,
                                              const char *description,
                                              const ecl_trace_field *fields, size_t nfields,
                                              const edl_meaning *meaning, uint32_t *out)
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
    /* The descriptor, meaning included, checked by the model now, before
     * any trace needs it. */
    edl_dict *proto;
    edl_status es = make_proto(name, description, fields, nfields, meaning, &proto);
    if (es != EDL_OK)
        return es == EDL_ENOMEM ? ECL_CORE_ENOMEM : ECL_CORE_EINVAL;

    ecl_core_status st = ECL_CORE_OK;
    pthread_mutex_lock(&defs_lock);
    for (size_t i = 0; i < ntypes; i++) {
        if (strcmp(edl_record_name(edl_dict_record(types[i].proto, 0)), name) == 0) {
            if (edl_dict_equal(types[i].proto, proto) && (id == 0 || id == types[i].id))
                *out = types[i].id;
            else
                st = ECL_CORE_EEXIST;
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
    td->proto = proto;
    proto = NULL;
    for (size_t i = 0; i < nfields; i++)
        td->layout[i] = layout_letter(fields[i].type, fields[i].encoding);
    td->id = id != 0 ? id : next_user_id;

    /* Into the dictionary and the file first: a type is usable only once its
     * descriptor precedes its records. */
    pthread_mutex_lock(&ecl_T.def_lock);
    if (trace_writable() && ecl_T.dict != NULL) {
        es = dict_add_type(ecl_T.dict, td);
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
    edl_dict_destroy(proto);
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
    /* the time is read under the lock, so stream 0's times never go back */
    pthread_mutex_lock(&ecl_T.def_lock);
    ecl_core_status st = ecl_trace_write_def(rec, (size_t)(p - rec), ecl_sys_clock_now());
    pthread_mutex_unlock(&ecl_T.def_lock);
    free(rec);
    return st;
}

/* A native record descriptor with its meaning. */
static edl_status add_native(edl_dict *d, const native_record *n)
{
    edl_record *r;
    edl_field_meaning fm[4];
    edl_meaning m = { NULL, 1, NULL, fm, 0, NULL};
    edl_role role = { n->role, NULL, NULL };
    edl_status s = edl_dict_add_record(d, n->name, NULL, &r);
    if (s == EDL_OK)
        s = add_common_fields(r);
    for (size_t j = 0; j < 4 && n->f[j].name != NULL && s == EDL_OK; j++) {
        const native_field *f = &n->f[j];
        s = edl_record_add_field(r, f->name, f->type, f->enc, f->unit, NULL);
        if (f->role == EDL_FROLE_NONE && f->ref == NULL)
            continue;
        edl_field_meaning *x = &fm[m.nfields++];
        memset(x, 0, sizeof *x);
        x->field = f->name;
        x->role = f->role;
        x->ref.record = f->ref;
        x->ref.field = f->name;
    }
    m.roles = &role;
    return s == EDL_OK ? edl_record_set_meaning(r, &m) : s;
}

/* An empty dictionary with the native header (name, representation, byte
 * order, designations -- the threads named by thread_def --, key). */
static edl_status new_dict(edl_dict **out)
{
    static const edl_ref thread_names = { "thread_def", "stream", 0 };
    edl_dict *d = NULL;
    edl_status s;
    char bo = 'L';
    uint16_t probe = 1;
    if (*(const uint8_t *)&probe == 0)
        bo = 'B';
    if ((s = edl_dict_create("ecl", "1.0", EDL_REPR_BINARY, &d)) == EDL_OK &&
        ((s = edl_dict_set_binary(d, bo, EDL_FRAMING_ECL)) != EDL_OK ||
         (s = edl_dict_set_roles(d, "time", "ticks", "", "")) != EDL_OK ||
         (s = edl_dict_set_designation_ref(d, EDL_FROLE_THREAD, &thread_names)) != EDL_OK ||
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
    for (size_t i = 0; i < NNATIVE; i++)
        if ((s = add_native(d, &natives[i])) != EDL_OK)
            goto fail;
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

size_t ecl_trace_types_define(const ecl_trace_type_spec *t, size_t n, const char *consequence)
{
    size_t failed = 0;
    for (size_t i = 0; i < n; i++) {
        edl_meaning m = { t[i].roles, t[i].nroles, NULL, t[i].meaning, t[i].nmeaning, NULL };
        uint32_t id;
        if (ecl_trace_type_define_meaning(t[i].id, t[i].name, t[i].description, t[i].fields,
                                          t[i].nfields, &m, &id) != ECL_CORE_OK) {
            fprintf(stderr, "ecl: cannot define the record type %s (id %u)%s\n", t[i].name,
                    (unsigned)t[i].id, consequence);
            failed++;
        }
    }
    return failed;
}
