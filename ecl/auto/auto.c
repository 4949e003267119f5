/* auto.c -- ECL automatic instrumentation: the record types it writes (with
 * their meaning, doc/instrumentation.md), set-up at ecl_init and the last
 * records at ecl_finalize. */
#include <config.h>

#include "ecl/auto/auto.h"
#include "ecl/ecl.h"

#include <stdio.h>

unsigned ecl_auto_groups;
int ecl_auto_finalize_later;

/* The last chance to finalize when ECL's exit handler left it to a runtime
 * shutdown that did not come. */
__attribute__((destructor)) static void finalize_late(void)
{
    if (__atomic_load_n(&ecl_auto_finalize_later, __ATOMIC_ACQUIRE))
        ecl_finalize();
}

#define U32 EDL_UINT32, EDL_ENC_ULEB
#define U64 EDL_UINT64, EDL_ENC_ULEB
#define S32 EDL_INT32, EDL_ENC_SLEB
#define S64 EDL_INT64, EDL_ENC_SLEB
#define STR EDL_STRING, EDL_ENC_LSTRING
#define REGION_REF { "region_def", "region", 0 }
#define NO_REF { NULL, NULL, 0 }

static const ecl_trace_type_spec types[] = {
    { ECL_REC_REGION_SOURCE, "region_source", "where the function of a region is",
      { { "region", U32, NULL, NULL }, { "file", STR, NULL, "source file; empty if unknown" },
        { "line", U32, NULL, "0 unknown" },
        { "module", STR, NULL, "executable or shared library" },
        { "address", U64, NULL, "first address of the function" } }, 5,
      { { EDL_ROLE_METADATA, NULL, NULL } }, 1,
      { { "region", EDL_FROLE_NONE, REGION_REF } }, 1 },
    { ECL_REC_SUPPRESSED, "suppressed", "calls of a function left out by a limit",
      { { "region", U32, NULL, NULL },
        { "reason", EDL_UINT8, EDL_ENC_ULEB, NULL, "1 ECL_FUNC_DEPTH, 2 ECL_FUNC_MAX_CALLS" },
        { "count", U64, NULL, "calls (enter/leave pairs) not recorded" } }, 3,
      { { EDL_ROLE_METADATA, NULL, NULL } }, 1,
      { { "region", EDL_FROLE_NONE, REGION_REF }, { "count", EDL_FROLE_COUNT, NO_REF } }, 2 },
    { ECL_REC_THREAD_BEGIN, "thread_begin", "a thread starts (pthread_create, OpenMP)",
      { { "parent", U32, NULL, "stream of the creating thread, 0 unknown" } }, 1,
      { { EDL_ROLE_THREAD_BEGIN, NULL, NULL } }, 1,
      { { "parent", EDL_FROLE_NONE, { "thread_def", "stream", 0 } } }, 1 },
    { ECL_REC_THREAD_END, "thread_end", "a thread ends", { { NULL, 0, 0, NULL, NULL } }, 0,
      { { EDL_ROLE_THREAD_END, NULL, NULL } }, 1, { { NULL, 0, NO_REF } }, 0 },
    { ECL_REC_WAIT_ENTER, "wait_enter", "a waiting region is entered (join, lock, barrier)",
      { { "region", U32, NULL, NULL } }, 1,
      { { EDL_ROLE_ENTER, NULL, NULL }, { EDL_ROLE_IDLE, NULL, NULL } }, 2,
      { { "region", EDL_FROLE_REGION, REGION_REF } }, 1 },
    { ECL_REC_WAIT_LEAVE, "wait_leave", "a waiting region is left",
      { { "region", U32, NULL, NULL } }, 1,
      { { EDL_ROLE_LEAVE, NULL, NULL }, { EDL_ROLE_IDLE, NULL, NULL } }, 2,
      { { "region", EDL_FROLE_REGION, REGION_REF } }, 1 },
    { ECL_REC_IO_FILE, "io_file", "a file id for the path an I/O call used",
      { { "file", U32, NULL, NULL }, { "path", STR, NULL, NULL } }, 2,
      { { EDL_ROLE_DEFINITION, NULL, NULL } }, 1,
      { { "path", EDL_FROLE_NAME, NO_REF } }, 1 },
    { ECL_REC_IO_CALL, "io_call", "a POSIX I/O call, recorded when it returns",
      { { "region", U32, NULL, "the function: open, read, write, ..." },
        { "duration", U64, "ticks", NULL },
        { "fd", S32, NULL, "file descriptor (-1 for a failed open)" },
        { "file", U32, NULL, "0 if the descriptor's file is unknown" },
        { "bytes", U64, "bytes", "bytes read or written" },
        { "result", S64, NULL, "the return value; -errno on failure" } }, 6,
      { { EDL_ROLE_CALL, NULL, NULL }, { EDL_ROLE_IO, NULL, NULL } }, 2,
      { { "region", EDL_FROLE_REGION, REGION_REF },
        { "duration", EDL_FROLE_DURATION, NO_REF },
        { "file", EDL_FROLE_FILE, { "io_file", "file", 0 } },
        { "bytes", EDL_FROLE_BYTES, NO_REF } }, 4 },
    { ECL_REC_WAIT_CALL, "wait_call", "a whole waiting region, recorded when it ends "
      "(OpenMP barriers, taskwait, taskgroup)",
      { { "region", U32, NULL, NULL }, { "duration", U64, "ticks", NULL } }, 2,
      { { EDL_ROLE_CALL, NULL, NULL }, { EDL_ROLE_IDLE, NULL, NULL } }, 2,
      { { "region", EDL_FROLE_REGION, REGION_REF },
        { "duration", EDL_FROLE_DURATION, NO_REF } }, 2 },
};

/* Defined when the library is loaded, before any trace is open, so the
 * types are in the dictionary of the file header. */
__attribute__((constructor)) static void define_types(void)
{
    ecl_trace_types_define(types, sizeof types / sizeof types[0], "");
}

int ecl_auto_init(const ecl_api_auto_config *cfg, char *err, size_t errlen)
{
    if (ecl_auto_func_init(cfg, err, errlen) != 0)
        return -1;
    if (ecl_auto_counters_init(cfg, err, errlen) != 0)
        return -1;
    __atomic_store_n(&ecl_auto_groups, cfg->groups, __ATOMIC_RELEASE);
    return 0;
}

void ecl_auto_fini(void)
{
    ecl_auto_func_fini();
    ecl_auto_counters_fini();
}

void *ecl_auto_next(const char *name, void **cache)
{
    void *f = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
    if (f == NULL) {
        f = ecl_sys_next_symbol(name);
        __atomic_store_n(cache, f, __ATOMIC_RELEASE);
    }
    return f;
}
