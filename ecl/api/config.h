/* config.h -- ECL interface layer: reading the ECL_* environment
 * (doc/configuration.md has the table). Internal to ecl/api. */
#ifndef ECL_API_CONFIG_H
#define ECL_API_CONFIG_H

#include <stddef.h>

#include "ecl/core/core.h"

/* Groups of automatic instrumentation (ECL_GROUPS, doc/instrumentation.md). */
enum { ECL_API_G_FUNCTIONS = 1, ECL_API_G_THREADS = 2, ECL_API_G_SYNC = 4, ECL_API_G_IO = 8,
       ECL_API_G_OMP = 16, ECL_API_GROUPS_ALL = 31,
       ECL_API_GROUPS_DEFAULT = ECL_API_G_FUNCTIONS | ECL_API_G_THREADS | ECL_API_G_OMP };

/* Automatic instrumentation settings (ecl/auto). */
typedef struct ecl_api_auto_config {
    unsigned groups;             /* ECL_GROUPS: ECL_API_G_* */
    char filter[1024];           /* ECL_FILTER: filter file, "" none */
    unsigned depth;              /* ECL_FUNC_DEPTH: deepest call recorded, 0 = no limit */
    uint64_t max_calls;          /* ECL_FUNC_MAX_CALLS: per function, 0 = no limit */
    uint64_t note_records;       /* ECL_FUNC_NOTE: the flood note's threshold, 0 = never */
    char counters[512];          /* ECL_COUNTERS: event names, "" none */
    uint64_t counter_period_ns;  /* ECL_COUNTER_PERIOD */
} ecl_api_auto_config;

typedef struct ecl_api_config {
    int enabled;                 /* ECL_ENABLE */
    ecl_trace_config trace;      /* ECL_DIR ... ECL_ON_FULL */
    ecl_api_auto_config autocfg; /* ECL_GROUPS, ECL_FILTER, ECL_FUNC_*, ECL_COUNTER* */
} ecl_api_config;

/* Parses one variable value at a time so tests can feed values directly.
 * Returns 0, or -1 with a message ("ECL_COMPRESS='lz4' is not valid: ...")
 * in err. */
int ecl_api_config_set(ecl_api_config *cfg, const char *name, const char *value, char *err,
                       size_t errlen);
/* ECL_MPI_GROUPS: a comma-separated list of event groups of the MPI layer
 * (p2p, coll, rma, io, comm; all; none) into a mask of ECL_API_MPI_G_* bits
 * (the same values as ecl/mpi's ECL_MPI_G_*). Returns 0, or -1 for an
 * unknown name. */
enum { ECL_API_MPI_G_ENV = 1, ECL_API_MPI_G_P2P = 2, ECL_API_MPI_G_COLL = 4, ECL_API_MPI_G_RMA = 8,
       ECL_API_MPI_G_IO = 16, ECL_API_MPI_G_COMM = 32, ECL_API_MPI_GROUPS_ALL = 63 };
int ecl_api_parse_mpi_groups(const char *value, unsigned *mask);

/* ECL_GROUPS: a comma-separated list of functions, threads, sync, io, omp
 * (or all, none; "default" for the default set) into ECL_API_G_* bits.
 * Returns 0, or -1 for an unknown name. */
int ecl_api_parse_groups(const char *value, unsigned *mask);

/* Defaults, then every ECL_* variable present in the environment. A bad value
 * is said on stderr ("ecl: ECL_X='v' is not valid: ...; ignored, the default
 * is used") and the variable keeps its default; an unknown ECL_* variable is
 * a warning with ECL_VERBOSE=1 (a typo would otherwise be silent). Returns 0
 * (err is scratch space). */
int ecl_api_config_from_env(ecl_api_config *cfg, char *err, size_t errlen);

/* Whether this process says the messages about ECL_* settings: 1, but 0 in
 * the ranks other than 0 of a parallel launch (OMPI_COMM_WORLD_RANK,
 * PMIX_RANK, PMI_RANK, SLURM_PROCID), so that a run gets each message once,
 * not once per rank; every rank still uses the default. */
int ecl_api_says_once(void);

#endif /* ECL_API_CONFIG_H */
