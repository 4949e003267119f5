/* bench_tp.h -- LTTng-UST tracepoint provider for the peer comparison in
 * bench_peers: two events shaped like ECL's enter/leave (one uint32 region id).
 * The include-twice layout is the one lttng-ust requires for providers. */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER ecl_bench

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "bench/bench_tp.h"

#if !defined(BENCH_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define BENCH_TP_H

#include <stdint.h>
#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT(ecl_bench, enter,
    LTTNG_UST_TP_ARGS(uint32_t, region),
    LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(uint32_t, region, region)))

LTTNG_UST_TRACEPOINT_EVENT(ecl_bench, leave,
    LTTNG_UST_TP_ARGS(uint32_t, region),
    LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(uint32_t, region, region)))

#endif /* BENCH_TP_H */

#include <lttng/tracepoint-event.h>
