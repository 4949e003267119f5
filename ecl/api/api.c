/* api.c -- ECL interface layer: the functions of ecl.h on top of the basic
 * layer. Tracing starts at ecl_init or at the first call of anything else and
 * ends at ecl_finalize or at exit. The recording functions are one unlikely
 * branch plus the inline buffer code of ecl/core/core.h. */
#include <config.h>

#include "ecl/ecl.h"
#include "ecl/api/config.h"
#include "ecl/auto/auto.h"
#include "ecl/core/core.h"
#include "ecl/gpu/gpu.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

enum { API_UNINIT = 0, API_ON, API_OFF, API_FINALIZED };

static int api_state;
static ecl_status api_init_status = ECL_OK;
static pthread_mutex_t api_lock = PTHREAD_MUTEX_INITIALIZER;
static int atexit_done;

/* Each registered user type, by type id: its field kinds (published last,
 * once), their number, and the most bytes one of its records takes when it
 * has no string field (every record then fits a fixed size; 0 when it has
 * one). One entry per type, so that ecl_record's shortest path reads one
 * cache line of this table. */
typedef struct type_info {
    const uint8_t *kinds;
    uint16_t fixed_need;         /* 2-byte type id + time delta + 10 per field */
    uint8_t nfields;
} type_info;
static type_info types[ECL_REC_TYPE_LIMIT];

static ecl_status from_core(ecl_core_status s)
{
    switch (s) {
    case ECL_CORE_OK: return ECL_OK;
    case ECL_CORE_ENOMEM: return ECL_ENOMEM;
    case ECL_CORE_EINVAL: return ECL_EINVAL;
    case ECL_CORE_EIO: return ECL_EIO;
    case ECL_CORE_ECONFIG: return ECL_ECONFIG;
    case ECL_CORE_EEXIST: return ECL_EEXIST;
    case ECL_CORE_ESTATE: return ECL_ESTATE;
    }
    return ECL_EINVAL;
}

static void at_exit(void)
{
    if (!__atomic_load_n(&ecl_auto_finalize_later, __ATOMIC_ACQUIRE))
        ecl_finalize();
}

static ecl_status init_locked(void);

ECL_API ecl_status ecl_init(void)
{
    /* Inside ECL while starting: the writer thread's pthread_create, the
     * trace file's open and write pass the wrappers (ecl/auto) straight. */
    ecl_buf_in_tool++;
    ecl_status st = init_locked();
    ecl_buf_in_tool--;
    return st;
}

static ecl_status init_locked(void)
{
    char err[8500];
    ecl_api_config cfg;
    pthread_mutex_lock(&api_lock);
    ecl_status st;
    switch (api_state) {
    case API_ON:
        st = ECL_OK;
        goto out;
    case API_OFF:
        st = api_init_status;
        goto out;
    case API_FINALIZED:
        st = ECL_ESTATE;
        goto out;
    default:
        break;
    }
    api_state = API_OFF;
    if (ecl_api_config_from_env(&cfg, err, sizeof err) != 0) {
        fprintf(stderr, "ecl: %s; tracing disabled\n", err);
        st = api_init_status = ECL_ECONFIG;
        goto out;
    }
    if (!cfg.enabled) {
        st = api_init_status = ECL_OK;
        goto out;
    }
    ecl_core_status cs = ecl_trace_open(&cfg.trace, err, sizeof err);
    if (cs != ECL_CORE_OK) {
        fprintf(stderr, "ecl: %s; tracing disabled\n", err);
        st = api_init_status = from_core(cs);
        goto out;
    }
    /* The trace must end with its index even when the program just returns
     * from main or calls exit without ecl_finalize. */
    if (!atexit_done && atexit(at_exit) == 0)
        atexit_done = 1;
    api_state = API_ON;
    /* Automatic instrumentation: a bad filter file or counter list stops
     * tracing like any bad setting. */
    if (ecl_auto_init(&cfg.autocfg, err, sizeof err) != 0) {
        fprintf(stderr, "ecl: %s; tracing disabled\n", err);
        ecl_trace_close();
        ecl_sys_remove(ecl_trace_file_path(), NULL, 0);
        api_state = API_OFF;
        st = api_init_status = ECL_ECONFIG;
        goto out;
    }
    /* GPUs (ecl/gpu): never fails, at most a note */
    ecl_gpu_init();
    st = ECL_OK;
out:
    pthread_mutex_unlock(&api_lock);
    return st;
}

ECL_API ecl_status ecl_finalize(void)
{
    pthread_mutex_lock(&api_lock);
    ecl_status st = ECL_OK;
    if (api_state == API_ON) {
        ecl_gpu_fini();
        ecl_auto_fini();
        st = from_core(ecl_trace_close());
        ecl_trace_stats ts;
        ecl_trace_get_stats(&ts);
        ecl_auto_flood_note(ts.records);
    }
    api_state = API_FINALIZED;
    pthread_mutex_unlock(&api_lock);
    return st;
}

/* Slow branch of every recording call: starts tracing on first use. Returns
 * nonzero if the record should be taken now. */
static int __attribute__((noinline)) wake(void)
{
    if (__atomic_load_n(&api_state, __ATOMIC_ACQUIRE) == API_UNINIT)
        ecl_init();
    return ecl_buf_is_active();
}

#define ECL_RECORDING() (ECL_LIKELY(__atomic_load_n(&ecl_buf_active, __ATOMIC_RELAXED)) || wake())

static void ensure_init(void)
{
    if (__atomic_load_n(&api_state, __ATOMIC_ACQUIRE) == API_UNINIT)
        ecl_init();
}

ECL_API ecl_status ecl_flush(void)
{
    ensure_init();
    switch (__atomic_load_n(&api_state, __ATOMIC_ACQUIRE)) {
    case API_ON:
        return from_core(ecl_buf_flush());
    case API_OFF:
        return ECL_OK;
    default:
        return ECL_ESTATE;
    }
}

ECL_API const char *ecl_trace_path(void)
{
    return ecl_trace_file_path();
}

/* ---------------- regions ---------------- */

ECL_API ecl_region ecl_region_define(const char *name)
{
    if (name == NULL || name[0] == '\0')
        return 0;
    ensure_init();
    return ecl_trace_region(name);
}

/* enter/leave: the inline shortest path, else the general one out of line
 * (first use, another clock, a full buffer, counters sampled at boundaries),
 * so that the common case has no call and no stack frame. */
static void __attribute__((noinline)) record_boundary(uint32_t type, ecl_region region)
{
    if (ECL_RECORDING()) {
        ecl_buf_record_u(type, region);
        ecl_auto_boundary();
    }
}

ECL_API void ecl_enter(ecl_region region)
{
    if (!ecl_buf_fast_u(ECL_REC_ENTER, region))
        record_boundary(ECL_REC_ENTER, region);
}

ECL_API void ecl_leave(ecl_region region)
{
    if (!ecl_buf_fast_u(ECL_REC_LEAVE, region))
        record_boundary(ECL_REC_LEAVE, region);
}

/* Regions by name: FNV-1a of the name -> the names with that hash. */
typedef struct named_region {
    struct named_region *next;   /* same hash (never in practice) */
    ecl_region id;
    char name[];
} named_region;

static ecl_map names_map;
static pthread_mutex_t names_lock = PTHREAD_MUTEX_INITIALIZER;

static ecl_region __attribute__((noinline)) name_define(const char *name, uint64_t h)
{
    ecl_region id = ecl_region_define(name);
    if (id == 0)
        return 0;
    pthread_mutex_lock(&names_lock);
    named_region *head = ecl_map_get(&names_map, h), *n;
    for (n = head; n != NULL; n = n->next)
        if (strcmp(n->name, name) == 0)
            break;
    if (n == NULL) {
        size_t len = strlen(name);
        n = malloc(sizeof *n + len + 1);
        if (n != NULL) {
            memcpy(n->name, name, len + 1);
            n->id = id;
            n->next = head;
            if (ecl_map_put(&names_map, h, n) != 0)
                free(n);
        }
    }
    pthread_mutex_unlock(&names_lock);
    return id;
}

static ecl_region name_id(const char *name)
{
    if (name == NULL || name[0] == '\0')
        return 0;
    uint64_t h = ecl_map_key_str(name);
    for (const named_region *n = ecl_map_get(&names_map, h); n != NULL; n = n->next)
        if (strcmp(n->name, name) == 0)
            return n->id;
    return name_define(name, h);
}

ECL_API void ecl_enter_name(const char *name)
{
    if (ECL_RECORDING()) {
        ecl_region id = name_id(name);
        if (id != 0)
            ecl_buf_record_u(ECL_REC_ENTER, id);
    }
}

ECL_API void ecl_leave_name(const char *name)
{
    if (ECL_RECORDING()) {
        ecl_region id = name_id(name);
        if (id != 0)
            ecl_buf_record_u(ECL_REC_LEAVE, id);
    }
}

uint32_t ecl_auto_region(const char *name)
{
    ecl_buf_in_tool++;
    uint32_t id = name_id(name);
    ecl_buf_in_tool--;
    return id;
}

ECL_API ecl_region ecl_region_cached(ecl_region *site, const char *name)
{
    if (site == NULL)
        return ecl_region_define(name);
    ecl_region id = __atomic_load_n(site, __ATOMIC_ACQUIRE);
    if (id == 0) {
        id = ecl_region_define(name);
        __atomic_store_n(site, id, __ATOMIC_RELEASE);
    }
    return id;
}

/* ---------------- markers ---------------- */

ECL_API void ecl_marker(const char *text)
{
    if (!ECL_RECORDING())
        return;
    if (text == NULL)
        text = "";
    size_t len = strlen(text), n = len;
    /* A record must fit one buffer: the text is cut to what fits, and the
     * length field keeps its full length, so a reader sees the cut. */
    size_t room = ecl_buf_record_max - ECL_BUF_HEADER_MAX - 2 * 10;
    if (n > room)
        n = room;
    ecl_buf_hot *t;
    uint64_t now;
    uint8_t *p = ecl_buf_begin(ECL_REC_MARKER, ECL_BUF_HEADER_MAX + 2 * 10 + n, &t, &now);
    if (p == NULL)
        return;
    p = ecl_buf_put_str(p, text, n);
    p = ecl_buf_put_uleb(p, len);
    ecl_buf_commit(t, p, now);
}

/* ---------------- counters ---------------- */

ECL_API ecl_counter ecl_counter_define(const char *name, const char *unit, ecl_counter_kind kind)
{
    if (name == NULL || name[0] == '\0' || (kind != ECL_COUNTER_INT && kind != ECL_COUNTER_FLOAT))
        return 0;
    ensure_init();
    return ecl_trace_counter(name, unit, (int)kind);
}

ECL_API void ecl_counter_int(ecl_counter counter, int64_t value)
{
    if (!ECL_RECORDING())
        return;
    ecl_buf_hot *t;
    uint64_t now;
    uint8_t *p = ecl_buf_begin(ECL_REC_COUNTER_INT, ECL_BUF_SMALL, &t, &now);
    if (p == NULL)
        return;
    p = ecl_buf_put_uleb(p, counter);
    p = ecl_buf_put_sleb(p, value);
    ecl_buf_commit(t, p, now);
}

ECL_API void ecl_counter_float(ecl_counter counter, double value)
{
    if (!ECL_RECORDING())
        return;
    ecl_buf_hot *t;
    uint64_t now;
    uint8_t *p = ecl_buf_begin(ECL_REC_COUNTER_FLOAT, ECL_BUF_SMALL, &t, &now);
    if (p == NULL)
        return;
    p = ecl_buf_put_uleb(p, counter);
    p = ecl_buf_put_f64(p, value);
    ecl_buf_commit(t, p, now);
}

/* ---------------- user-defined record types ---------------- */

ECL_API ecl_status ecl_type_register(const char *name, const ecl_field *fields, size_t nfields,
                                     ecl_type *out)
{
    ecl_trace_field tf[ECL_MAX_FIELDS];
    uint8_t kinds[ECL_MAX_FIELDS];
    if (name == NULL || out == NULL || nfields > ECL_MAX_FIELDS || (nfields > 0 && fields == NULL))
        return ECL_EINVAL;
    for (size_t i = 0; i < nfields; i++) {
        tf[i].name = fields[i].name;
        tf[i].unit = fields[i].unit;
        tf[i].description = fields[i].description;
        switch (fields[i].type) {
        case ECL_FIELD_INT32: tf[i].type = EDL_INT32; tf[i].encoding = EDL_ENC_SLEB; break;
        case ECL_FIELD_INT64: tf[i].type = EDL_INT64; tf[i].encoding = EDL_ENC_SLEB; break;
        case ECL_FIELD_UINT32: tf[i].type = EDL_UINT32; tf[i].encoding = EDL_ENC_ULEB; break;
        case ECL_FIELD_UINT64: tf[i].type = EDL_UINT64; tf[i].encoding = EDL_ENC_ULEB; break;
        case ECL_FIELD_FLOAT64: tf[i].type = EDL_FLOAT64; tf[i].encoding = EDL_ENC_FIXED; break;
        case ECL_FIELD_STRING: tf[i].type = EDL_STRING; tf[i].encoding = EDL_ENC_LSTRING; break;
        default: return ECL_EINVAL;
        }
        kinds[i] = (uint8_t)fields[i].type;
    }
    ensure_init();
    if (__atomic_load_n(&api_state, __ATOMIC_ACQUIRE) == API_FINALIZED)
        return ECL_ESTATE;
    uint32_t id;
    ecl_core_status cs = ecl_trace_type_define(0, name, NULL, tf, nfields, &id);
    if (cs != ECL_CORE_OK)
        return from_core(cs);
    pthread_mutex_lock(&api_lock);
    if (types[id].kinds == NULL) {
        uint8_t *k = malloc(nfields ? nfields : 1);
        if (k == NULL) {
            pthread_mutex_unlock(&api_lock);
            return ECL_ENOMEM;
        }
        memcpy(k, kinds, nfields);
        types[id].nfields = (uint8_t)nfields;
        /* user ids are 1024..4095: 2 ULEB bytes */
        types[id].fixed_need = memchr(kinds, ECL_FIELD_STRING, nfields) == NULL && id >= 0x80
                                   ? (uint16_t)(2 + 10 + 10 * nfields)
                                   : 0;
        __atomic_store_n(&types[id].kinds, k, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&api_lock);
    *out = id;
    return ECL_OK;
}

/* Encodes the fields of a record of a type without strings at p. */
static inline __attribute__((always_inline)) uint8_t *put_numbers(uint8_t *p,
                                                                 const uint8_t *kinds, size_t nf,
                                                                 const ecl_value *values)
{
    for (size_t i = 0; i < nf; i++) {
        switch (kinds[i]) {
        case ECL_FIELD_INT32: p = ecl_buf_put_sleb(p, (int32_t)values[i].i); break;
        case ECL_FIELD_INT64: p = ecl_buf_put_sleb(p, values[i].i); break;
        case ECL_FIELD_UINT32: p = ecl_buf_put_uleb(p, (uint32_t)values[i].u); break;
        case ECL_FIELD_UINT64: p = ecl_buf_put_uleb(p, values[i].u); break;
        default: p = ecl_buf_put_f64(p, values[i].f); break;   /* FLOAT64 */
        }
    }
    return p;
}

/* Encodes the fields of a record of the given kinds at p, the strings cut
 * to slen. */
static uint8_t *put_fields(uint8_t *p, const uint8_t *kinds, size_t nf, const ecl_value *values,
                           const size_t *slen)
{
    for (size_t i = 0; i < nf; i++) {
        if (kinds[i] == ECL_FIELD_STRING)
            p = ecl_buf_put_str(p, values[i].s != NULL ? values[i].s : "", slen[i]);
        else
            p = put_numbers(p, kinds + i, 1, values + i);
    }
    return p;
}

/* The general path of ecl_record: first use, strings to measure and maybe
 * cut, another clock, a full buffer. */
static void __attribute__((noinline)) record_general(ecl_type type, const ecl_value *values)
{
    if (!ECL_RECORDING())
        return;
    const uint8_t *kinds = __atomic_load_n(&types[type].kinds, __ATOMIC_ACQUIRE);
    size_t nf = types[type].nfields;

    /* Size first: strings are measured once, and cut if the record would not
     * fit one buffer. */
    size_t need = ECL_BUF_HEADER_MAX, nstr = 0, slen[ECL_MAX_FIELDS];
    for (size_t i = 0; i < nf; i++) {
        if (kinds[i] == ECL_FIELD_STRING) {
            slen[i] = values[i].s != NULL ? strlen(values[i].s) : 0;
            need += 10 + slen[i];
            nstr++;
        } else {
            need += 10;
        }
    }
    if (need > ecl_buf_record_max) {
        size_t fixed = need;
        for (size_t i = 0; i < nf; i++)
            if (kinds[i] == ECL_FIELD_STRING)
                fixed -= slen[i];
        size_t each = fixed < ecl_buf_record_max ? (ecl_buf_record_max - fixed) / nstr : 0;
        need = fixed;
        for (size_t i = 0; i < nf; i++)
            if (kinds[i] == ECL_FIELD_STRING) {
                if (slen[i] > each)
                    slen[i] = each;
                need += slen[i];
            }
    }

    ecl_buf_hot *t;
    uint64_t now;
    uint8_t *p = ecl_buf_begin(type, need, &t, &now);
    if (p == NULL)
        return;
    ecl_buf_commit(t, put_fields(p, kinds, nf, values, slen), now);
}

ECL_API void ecl_record(ecl_type type, const ecl_value *values)
{
    if (ECL_UNLIKELY(type >= ECL_REC_TYPE_LIMIT))
        return;
    const type_info *ti = &types[type];
    const uint8_t *kinds = __atomic_load_n(&ti->kinds, __ATOMIC_ACQUIRE);
    size_t nf = ti->nfields;
    if (ECL_UNLIKELY(kinds == NULL || (values == NULL && nf > 0)))
        return;
#if ECL_SYS_HAVE_TSC
    /* The shortest path: a type without strings (fixed_need > 0: its
     * largest record is known), the cycle counter, room in the buffer. */
    ecl_buf_hot *t = ecl_buf_self;
    uint8_t *p = t->pos;
    if (ECL_LIKELY(__atomic_load_n(&ecl_buf_fast, __ATOMIC_RELAXED) &&
                   (size_t)(t->end - p) >= ti->fixed_need && ti->fixed_need != 0)) {
        uint64_t now = __rdtsc(), delta = now - t->last;
        if (ECL_LIKELY((int64_t)delta >= 0)) {
            p[0] = (uint8_t)(type | 0x80);
            p[1] = (uint8_t)(type >> 7);
            p = ecl_buf_put_uleb(p + 2, delta);
            ecl_buf_commit(t, put_numbers(p, kinds, nf, values), now);
            return;
        }
    }
#endif
    record_general(type, values);
}

/* ---------------- pause / resume ---------------- */

ECL_API void ecl_pause(void)
{
    ensure_init();
    ecl_trace_pause();
}

ECL_API void ecl_resume(void)
{
    ensure_init();
    ecl_trace_resume();
}

ECL_API const char *ecl_status_string(ecl_status s)
{
    switch (s) {
    case ECL_OK: return "success";
    case ECL_ENOMEM: return "out of memory";
    case ECL_EINVAL: return "invalid argument";
    case ECL_EIO: return "cannot write the trace file";
    case ECL_ECONFIG: return "bad ECL_* configuration value";
    case ECL_EEXIST: return "a record type of that name exists with other fields";
    case ECL_ESTATE: return "not possible in this state";
    }
    return "unknown status";
}
