/* auto.h -- ECL automatic instrumentation (interface layer, ecl/auto): what
 * a program records with no source change -- compiler-instrumented
 * functions (func.c, symbols in symbols.c, filters in filter.c), threads and
 * their waits (threads.c), POSIX I/O (io.c), OpenMP through OMPT (ompt.c)
 * and perf_event counters (counters.c). doc/instrumentation.md describes
 * what is recorded; internal to ECL's libraries. */
#ifndef ECL_AUTO_H
#define ECL_AUTO_H

#include <stddef.h>
#include <stdint.h>

#include "ecl/api/config.h"
#include "ecl/core/core.h"

/* Record type ids of the automatic instrumentation: fixed, at the top of
 * the range the format reserves for ECL (the MPI layer counts up from 14). */
enum {
    ECL_REC_REGION_SOURCE = 1000,  /* where a function region is: file, line, module */
    ECL_REC_SUPPRESSED = 1001,     /* calls of a function left out by a limit */
    ECL_REC_THREAD_BEGIN = 1002,
    ECL_REC_THREAD_END = 1003,
    ECL_REC_WAIT_ENTER = 1004,     /* enter/leave of a waiting region (join, lock, barrier) */
    ECL_REC_WAIT_LEAVE = 1005,
    ECL_REC_IO_FILE = 1006,        /* file id -> path */
    ECL_REC_IO_CALL = 1007,        /* one POSIX I/O call */
    ECL_REC_WAIT_CALL = 1008       /* a whole waiting region (OpenMP barriers) */
};

/* Set once by ecl_auto_init (ECL_API_G_* bits), read by every wrapper. */
extern unsigned ecl_auto_groups;
/* Nonzero when something finalizes the trace after the exit handlers (the
 * OpenMP runtime's shutdown, ompt.c): ECL's exit handler then leaves it to
 * that, and a library destructor (auto.c) finalizes if nothing did. */
extern int ecl_auto_finalize_later;
/* Nonzero when counters are read at region boundaries. */
extern int ecl_auto_counters_on;

/* Called by ecl_init after the trace is open: reads the filter file, opens
 * the counters. 0, or -1 with a message in err (tracing is then stopped). */
int ecl_auto_init(const ecl_api_auto_config *cfg, char *err, size_t errlen);
/* Called by ecl_finalize before the trace is closed: writes the suppressed
 * counts and the last counter samples. */
void ecl_auto_fini(void);
/* Called by ecl_finalize after the trace is closed, with the records it
 * holds: when functions were instrumented and the trace holds at least
 * ECL_FUNC_NOTE records, one note on standard error on how to size a filter
 * (pal-view --suggest-filter), once per process. */
void ecl_auto_flood_note(uint64_t records);

/* Defines a region whose name is only known at run time, once per name
 * (the interface layer's table). 0 on error. */
uint32_t ecl_auto_region(const char *name);

/* ---- func.c ---- */
int ecl_auto_func_init(const ecl_api_auto_config *cfg, char *err, size_t errlen);
void ecl_auto_func_fini(void);

/* ---- symbols.c: names of code addresses ---- */
typedef struct ecl_auto_symbol {
    char name[512];              /* function name, demangled; "" if unknown */
    char file[512];              /* source file, "" if no debug information */
    unsigned line;               /* 0 if unknown */
    char module[256];            /* the executable or shared library */
    uintptr_t start;             /* the function's first address, 0 if unknown */
} ecl_auto_symbol;
/* Fills out for addr (never fails: unknown parts are ""/0; a function without
 * a symbol is named "MODULE+0xOFFSET"). Thread-safe. */
void ecl_auto_symbol_of(uintptr_t addr, ecl_auto_symbol *out);
/* Which resolver this build has: "libdw" or "dladdr". */
const char *ecl_auto_symbol_backend(void);

/* ---- filter.c: include/exclude rules ---- */
typedef struct ecl_auto_filter ecl_auto_filter;
/* Reads a filter file (doc/instrumentation.md, "Filter files"). 0, or -1
 * with "FILE:LINE:COL: MESSAGE" in err. */
int ecl_auto_filter_load(const char *path, ecl_auto_filter **out, char *err, size_t errlen);
/* The same from text in memory (tests); name is used in messages. */
int ecl_auto_filter_parse(const char *name, const char *text, ecl_auto_filter **out, char *err,
                          size_t errlen);
void ecl_auto_filter_destroy(ecl_auto_filter *f);
/* 1 if a function of that name, in that source file ("" unknown), is
 * recorded: the last rule that matches decides, no match includes. */
int ecl_auto_filter_includes(const ecl_auto_filter *f, const char *name, const char *file);

/* ---- counters.c ---- */
int ecl_auto_counters_init(const ecl_api_auto_config *cfg, char *err, size_t errlen);
/* At a region boundary: samples the calling thread's counters if the period
 * has passed since its last sample. */
void ecl_auto_counters_tick(void);
/* Samples the calling thread's counters now (thread end, finalize). */
void ecl_auto_counters_sample(void);
void ecl_auto_counters_fini(void);

/* ---- papi.c: PAPI events (HAVE_PAPI; without it, every event fails) ---- */
#define ECL_AUTO_PAPI_MAX 16
/* Can the calling thread count these events together? 0, or -1 with the
 * reason in why. Initializes PAPI the first time. */
int ecl_auto_papi_check(const char *const *events, size_t n, char *why, size_t whylen);
/* The calling thread's started event set, or -1. */
int ecl_auto_papi_open(const char *const *events, size_t n);
/* Reads the set's n counts; 0, or -1. */
int ecl_auto_papi_read(int set, int64_t *values, size_t n);
void ecl_auto_papi_close(int set);

static inline void ecl_auto_boundary(void)
{
    if (ECL_UNLIKELY(ecl_auto_counters_on))
        ecl_auto_counters_tick();
}

/* ---- threads.c ---- */
void ecl_auto_thread_types(void);
/* Waiting regions, for threads.c and ompt.c: records wait_enter/wait_leave. */
void ecl_auto_wait_enter(uint32_t region);
void ecl_auto_wait_leave(uint32_t region);
/* The thread_begin record of the calling thread, unless it has one already;
 * parent: the creating thread's stream (0 unknown). */
void ecl_auto_thread_begin(uint32_t parent);
void ecl_auto_thread_end(void);

/* ---- io.c ---- */
void ecl_auto_io_types(void);

/* ---- the C library's function of a name (ecl_sys_next_symbol, cached) ---- */
void *ecl_auto_next(const char *name, void **cache);

#endif /* ECL_AUTO_H */
