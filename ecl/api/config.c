/* config.c -- ECL interface layer: the ECL_* environment variables. A bad
 * value is never a silent fallback: it is said once, with the variable, the
 * value and what is accepted, and the default is used instead, so that a typo
 * costs a setting, not the whole run's trace (doc/configuration.md). */
#include <config.h>

#include "ecl/api/config.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

extern char **environ;

static int is_one_of(const char *v, const char *const *names)
{
    for (int i = 0; names[i] != NULL; i++)
        if (strcasecmp(v, names[i]) == 0)
            return i;
    return -1;
}

static int parse_bool(const char *v, int *out)
{
    static const char *const no[] = { "0", "no", "false", "off", NULL };
    static const char *const yes[] = { "1", "yes", "true", "on", NULL };
    if (is_one_of(v, no) >= 0)
        *out = 0;
    else if (is_one_of(v, yes) >= 0)
        *out = 1;
    else
        return -1;
    return 0;
}

/* Decimal integer with an optional K, M or G suffix (powers of 1024,
 * optionally followed by "iB" or "B"). */
static int parse_size(const char *v, unsigned long long *out)
{
    char *end;
    if (!isdigit((unsigned char)v[0]))
        return -1;
    errno = 0;
    unsigned long long n = strtoull(v, &end, 10);
    if (errno != 0)
        return -1;
    unsigned long long mul = 1;
    switch (*end) {
    case 'k': case 'K': mul = 1ull << 10; end++; break;
    case 'm': case 'M': mul = 1ull << 20; end++; break;
    case 'g': case 'G': mul = 1ull << 30; end++; break;
    default: break;
    }
    if (mul > 1 && (strcmp(end, "iB") == 0 || strcmp(end, "B") == 0))
        end += strlen(end);
    if (*end != '\0' || n > (1ull << 40) / mul)
        return -1;
    *out = n * mul;
    return 0;
}

static int parse_uint(const char *v, unsigned long lo, unsigned long hi, unsigned long *out)
{
    char *end;
    if (!isdigit((unsigned char)v[0]))
        return -1;
    errno = 0;
    unsigned long n = strtoul(v, &end, 10);
    if (errno != 0 || *end != '\0' || n < lo || n > hi)
        return -1;
    *out = n;
    return 0;
}

/* A time: a decimal number with a unit ns, us, ms or s; "0" alone is 0. */
static int parse_duration(const char *v, uint64_t *out)
{
    char *end;
    if (!isdigit((unsigned char)v[0]))
        return -1;
    errno = 0;
    double x = strtod(v, &end);
    if (errno != 0 || x < 0 || x > 3600e9)
        return -1;
    double mul;
    if (strcmp(end, "ns") == 0)
        mul = 1;
    else if (strcmp(end, "us") == 0)
        mul = 1e3;
    else if (strcmp(end, "ms") == 0)
        mul = 1e6;
    else if (strcmp(end, "s") == 0)
        mul = 1e9;
    else if (*end == '\0' && x == 0)
        mul = 0;
    else
        return -1;
    *out = (uint64_t)(x * mul + 0.5);
    return 0;
}

#define BAD(...)                                                                   \
    do {                                                                           \
        snprintf(err, errlen, "%s='%s' is not valid: " __VA_ARGS__);               \
        return -1;                                                                 \
    } while (0)

int ecl_api_config_set(ecl_api_config *cfg, const char *name, const char *value, char *err,
                       size_t errlen)
{
    ecl_trace_config *t = &cfg->trace;
    unsigned long long sz;
    unsigned long n;
    int k;

    if (strcmp(name, "ECL_ENABLE") == 0) {
        if (parse_bool(value, &cfg->enabled) != 0)
            BAD("expected 1 or 0 (yes/no, true/false, on/off)", name, value);
    } else if (strcmp(name, "ECL_VERBOSE") == 0) {
        if (parse_bool(value, &t->verbose) != 0)
            BAD("expected 1 or 0 (yes/no, true/false, on/off)", name, value);
    } else if (strcmp(name, "ECL_DIR") == 0) {
        if (value[0] == '\0' || strlen(value) >= sizeof t->dir - 64)
            BAD("expected a directory name (at most %zu bytes)", name, value,
                sizeof t->dir - 64);
        snprintf(t->dir, sizeof t->dir, "%s", value);
    } else if (strcmp(name, "ECL_PREFIX") == 0) {
        if (value[0] == '\0' || strchr(value, '/') != NULL || strlen(value) >= sizeof t->prefix)
            BAD("expected a file name prefix without '/' (at most %zu bytes)", name, value,
                sizeof t->prefix - 1);
        snprintf(t->prefix, sizeof t->prefix, "%s", value);
    } else if (strcmp(name, "ECL_BUFFER_SIZE") == 0) {
        if (parse_size(value, &sz) != 0 || sz < 4096 || sz > (1ull << 30))
            BAD("expected a size between 4K and 1G, with an optional K, M or G suffix "
                "(e.g. 1M)", name, value);
        t->buffer_size = (size_t)sz;
    } else if (strcmp(name, "ECL_BUFFER_COUNT") == 0) {
        if (parse_uint(value, 1, ECL_BUF_COUNT_MAX, &n) != 0)
            BAD("expected a number of buffers per thread from 1 to %d", name, value,
                ECL_BUF_COUNT_MAX);
        t->buffer_count = (unsigned)n;
    } else if (strcmp(name, "ECL_COMPRESS") == 0) {
        static const char *const m[] = { "none", "zlib", "zstd", NULL };
        if ((k = is_one_of(value, m)) < 0)
            BAD("expected none, zlib or zstd", name, value);
        if (!ecl_trace_have_compress(k))
            BAD("this ECL was built without zstd (use zlib or none)", name, value);
        t->compress = k;
    } else if (strcmp(name, "ECL_COMPRESS_LEVEL") == 0) {
        if (parse_uint(value, 1, 19, &n) != 0)
            BAD("expected a level from 1 (fast) to 9 for zlib or 19 for zstd", name, value);
        t->compress_level = (int)n;
    } else if (strcmp(name, "ECL_COMPRESS_THREADS") == 0) {
        if (parse_uint(value, 1, ECL_COMPRESSORS_MAX, &n) != 0)
            BAD("expected a number of compressor threads from 1 to %d", name, value,
                ECL_COMPRESSORS_MAX);
        t->compress_threads = (unsigned)n;
    } else if (strcmp(name, "ECL_COMPRESS_PRIORITY") == 0) {
        static const char *const pr[] = { "idle", "normal", NULL };
        if ((k = is_one_of(value, pr)) < 0)
            BAD("expected idle (compress on idle cores only) or normal", name, value);
        t->compress_normal = k;
    } else if (strcmp(name, "ECL_CLOCK") == 0) {
        static const char *const c[] = { "auto", "monotonic", "tsc", "realtime", NULL };
        if ((k = is_one_of(value, c)) < 0)
            BAD("expected auto, tsc, monotonic or realtime", name, value);
        t->clock = (ecl_sys_clock_source)k;   /* same order as ecl_sys_clock_source */
    } else if (strcmp(name, "ECL_ON_FULL") == 0) {
        static const char *const f[] = { "block", "drop", NULL };
        if ((k = is_one_of(value, f)) < 0)
            BAD("expected block (lossless) or drop", name, value);
        t->drop_when_full = k;
    } else if (strcmp(name, "ECL_MPI_GROUPS") == 0) {
        /* read by the MPI layer at MPI_Init (ecl/mpi/mpi.c) */
        unsigned mask;
        if (ecl_api_parse_mpi_groups(value, &mask) != 0)
            BAD("expected a comma-separated list of p2p, coll, rma, io, comm (or all, none)",
                name, value);
    } else if (strcmp(name, "ECL_GROUPS") == 0) {
        if (ecl_api_parse_groups(value, &cfg->autocfg.groups) != 0)
            BAD("expected a comma-separated list of functions, threads, sync, io, omp "
                "(or all, none, default)", name, value);
    } else if (strcmp(name, "ECL_FILTER") == 0) {
        if (strlen(value) >= sizeof cfg->autocfg.filter)
            BAD("expected a file name (at most %zu bytes)", name, value,
                sizeof cfg->autocfg.filter - 1);
        snprintf(cfg->autocfg.filter, sizeof cfg->autocfg.filter, "%s", value);
    } else if (strcmp(name, "ECL_FUNC_DEPTH") == 0) {
        if (parse_uint(value, 0, 4096, &n) != 0)
            BAD("expected a call depth from 1 to 4096, or 0 for no limit", name, value);
        cfg->autocfg.depth = (unsigned)n;
    } else if (strcmp(name, "ECL_FUNC_MAX_CALLS") == 0) {
        if (parse_uint(value, 0, 1000000000000ul, &n) != 0)
            BAD("expected a number of calls, or 0 for no limit", name, value);
        cfg->autocfg.max_calls = n;
    } else if (strcmp(name, "ECL_FUNC_NOTE") == 0) {
        if (parse_uint(value, 0, 1000000000000000ul, &n) != 0)
            BAD("expected a number of records, or 0 for no note", name, value);
        cfg->autocfg.note_records = n;
    } else if (strcmp(name, "ECL_COUNTERS") == 0) {
        if (strlen(value) >= sizeof cfg->autocfg.counters || strpbrk(value, " \t") != NULL)
            BAD("expected a comma-separated list of counter names, default or none", name,
                value);
        snprintf(cfg->autocfg.counters, sizeof cfg->autocfg.counters, "%s",
                 strcmp(value, "none") == 0 ? "" : value);
    } else if (strcmp(name, "ECL_COUNTER_PERIOD") == 0) {
        if (parse_duration(value, &cfg->autocfg.counter_period_ns) != 0)
            BAD("expected a time with a unit: ns, us, ms or s (e.g. 1ms), or 0", name, value);
    } else if (strcmp(name, "ECL_GPU") == 0) {
        /* ECL_GPU*: read by ecl/gpu when it starts; checked here so that a bad
         * value is said once, like any other */
        static const char *const g[] = { "auto", "on", "off", "1", "0", "yes", "no", NULL };
        if (value[0] != '\0' && is_one_of(value, g) < 0)
            BAD("expected auto, on or off", name, value);
    } else if (strcmp(name, "ECL_GPU_METRICS_HZ") == 0) {
        char *end;
        double hz = strtod(value, &end);
        if (value[0] != '\0' && (*end != '\0' || !(hz >= 0 && hz <= 10000)))
            BAD("expected a rate from 0 to 10000 samples per second", name, value);
    } else if (strcmp(name, "ECL_GPU_BUFFER_SIZE") == 0) {
        if (value[0] != '\0' && (parse_uint(value, 65536, 1ul << 30, &n) != 0))
            BAD("expected a size from 65536 to 1073741824 bytes", name, value);
    } else if (strcmp(name, "ECL_GPU_STATS") == 0) {
        if (strcmp(value, "1") != 0 && strcmp(value, "0") != 0)
            BAD("expected 1 (or 0)", name, value);
    } else if (strcmp(name, "ECL_MERGE") == 0 || strcmp(name, "ECL_PROGRESS") == 0) {
        /* read by the MPI layer at MPI_Finalize (ecl/mpi/mpi.c); checked here
         * so that a bad value is said like any other */
        if (parse_bool(value, &k) != 0)
            BAD("expected 1 or 0 (yes/no, true/false, on/off)", name, value);
    } else {
        snprintf(err, errlen, "unknown variable %s", name);
        return 1;
    }
    return 0;
}

typedef struct group_name {
    const char *name;
    unsigned bits;
} group_name;

/* A comma-separated list of names of g[0..n) into the union of their bits;
 * -1 for a name not there. */
static int parse_group_list(const char *value, const group_name *g, size_t ng, unsigned *mask)
{
    unsigned m = 0;
    const char *p = value;
    for (;;) {
        size_t n = strcspn(p, ",");
        size_t k = 0;
        while (k < ng && !(strlen(g[k].name) == n && strncmp(g[k].name, p, n) == 0))
            k++;
        if (k == ng)
            return -1;
        m |= g[k].bits;
        if (p[n] == '\0')
            break;
        p += n + 1;
    }
    *mask = m;
    return 0;
}

int ecl_api_parse_mpi_groups(const char *value, unsigned *mask)
{
    static const group_name g[] = {
        { "p2p", ECL_API_MPI_G_P2P }, { "coll", ECL_API_MPI_G_COLL },
        { "rma", ECL_API_MPI_G_RMA }, { "io", ECL_API_MPI_G_IO },
        { "comm", ECL_API_MPI_G_COMM }, { "all", ECL_API_MPI_GROUPS_ALL }, { "none", 0 },
    };
    return parse_group_list(value, g, sizeof g / sizeof g[0], mask);
}

int ecl_api_parse_groups(const char *value, unsigned *mask)
{
    static const group_name g[] = {
        { "functions", ECL_API_G_FUNCTIONS }, { "threads", ECL_API_G_THREADS },
        { "sync", ECL_API_G_SYNC }, { "io", ECL_API_G_IO }, { "omp", ECL_API_G_OMP },
        { "all", ECL_API_GROUPS_ALL }, { "default", ECL_API_GROUPS_DEFAULT }, { "none", 0 },
    };
    return parse_group_list(value, g, sizeof g / sizeof g[0], mask);
}

int ecl_api_says_once(void)
{
    /* the rank under the launcher, before MPI_Init: Open MPI, PMIx, PMI
     * (MPICH/Hydra, Intel MPI), Slurm */
    static const char *const rank_vars[] = { "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK",
                                             "SLURM_PROCID", NULL };
    for (int i = 0; rank_vars[i] != NULL; i++) {
        const char *r = getenv(rank_vars[i]);
        if (r != NULL && *r != '\0')
            return strcmp(r, "0") == 0;
    }
    return 1;
}

int ecl_api_config_from_env(ecl_api_config *cfg, char *err, size_t errlen)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->enabled = 1;
    ecl_trace_config_default(&cfg->trace);
    cfg->autocfg.groups = ECL_API_GROUPS_DEFAULT;
    cfg->autocfg.counter_period_ns = 1000000;
    cfg->autocfg.note_records = 10000000;
    const ecl_api_config def = *cfg;
    int say = ecl_api_says_once();
    for (char **e = environ; e != NULL && *e != NULL; e++) {
        const char *eq = strchr(*e, '=');
        char name[64];
        if (strncmp(*e, "ECL_", 4) != 0 || eq == NULL || (size_t)(eq - *e) >= sizeof name)
            continue;
        memcpy(name, *e, (size_t)(eq - *e));
        name[eq - *e] = '\0';
        int r = ecl_api_config_set(cfg, name, eq + 1, err, errlen);
        if (r < 0 && say)
            fprintf(stderr, "ecl: %s; ignored, the default is used\n", err);
        else if (r > 0 && cfg->trace.verbose && say)
            fprintf(stderr, "ecl: warning: %s (ignored)\n", err);
    }
    if (cfg->trace.compress == ECL_COMPRESS_ZLIB && cfg->trace.compress_level > 9) {
        if (say)
            fprintf(stderr, "ecl: ECL_COMPRESS_LEVEL='%d' is not valid: zlib levels are 1 to 9; "
                    "ignored, the default is used\n", cfg->trace.compress_level);
        cfg->trace.compress_level = def.trace.compress_level;
    }
    err[0] = '\0';
    return 0;
}
