/* status.c -- PAL status texts and the thread-local message of the last failed
 * open (pal_last_error), for callers that have no reader to ask. */
#include <config.h>

#include <stdarg.h>
#include <stdio.h>

#include "pal/pal-internal.h"

#if defined(__GNUC__)
#define PAL_THREAD_LOCAL __thread
#else
#define PAL_THREAD_LOCAL _Thread_local
#endif

static PAL_THREAD_LOCAL char last_error[1024];

const char *pal_status_string(pal_status s)
{
    switch (s) {
    case PAL_OK: return "success";
    case PAL_END: return "end of trace";
    case PAL_ENOFIELD: return "no such field";
    case PAL_ETYPE: return "field has another type";
    case PAL_ERANGE: return "value out of range";
    case PAL_EIO: return "input/output error";
    case PAL_EFORMAT: return "bad or damaged format";
    case PAL_ENODICT: return "a dictionary is needed";
    case PAL_ENOMEM: return "out of memory";
    case PAL_EINVAL: return "invalid argument";
    case PAL_EUNDEF: return "no definition of that id";
    }
    return "unknown status";
}

void pal_set_last_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
}

void pal_clear_last_error(void)
{
    last_error[0] = '\0';
}

const char *pal_last_error(void)
{
    return last_error;
}

int pal_stats_partial(const pal_reader_stats *st)
{
    return st && (st->damaged || st->truncated || st->not_closed || st->signaled ||
                  st->chunks_missing || st->ranks_missing || st->lost);
}
