/* gpucheck.c -- reads an ECL trace with PAL and prints what its GPU records
 * say, one `key=value` per line, for tests/gpu (no Check needed):
 *   kernels=N copies=N memsets=N syncs=N api_calls=N stamps=N
 *   kernel NAME=N                per demangled kernel name
 *   copy_bytes REGION=BYTES      per copy kind ("memcpy HtoD", ...), and count
 *   gpu_locations=N sm_locations=N
 *   kernels_linked=N             kernels whose correlation names a CUDA call
 *   window_violations=N          kernels starting before that call began or
 *                                ending before it began (tolerance: the clock
 *                                pair's error + 1 us)
 *   worst_early_ns=X
 *   counter NAME samples=N min=X max=X unit=U
 *   kernel_streams=N             trace streams (GPU locations) with kernels
 *   overlap_ns=X                 time kernels of two streams ran together
 * Usage: gpucheck TRACE. Exit 0, or 1 when the trace cannot be read. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pal/pal.h"

#define MAXN 512

typedef struct named {
    char name[160];
    uint64_t n;
    uint64_t bytes;
    double min, max;
    char unit[16];
} named;

static named *find(named *t, size_t *n, const char *name)
{
    for (size_t i = 0; i < *n; i++)
        if (strcmp(t[i].name, name) == 0)
            return &t[i];
    if (*n == MAXN)
        return &t[MAXN - 1];
    named *x = &t[(*n)++];
    memset(x, 0, sizeof *x);
    snprintf(x->name, sizeof x->name, "%s", name);
    x->min = 1e300;
    x->max = -1e300;
    return x;
}

typedef struct kern {
    uint32_t corr, stream;
    int64_t start, end;
} kern;

typedef struct api {
    int64_t start, end;
    int set;
} api;

static const char *field_name(pal_names *nm, const pal_record *r, const char *field)
{
    const pal_fielddesc *f = pal_recdesc_find_field(pal_record_desc(r), field);
    const char *s = NULL;
    size_t len;
    if (f == NULL || pal_names_field(nm, r, pal_field_index(f), &s, &len) != PAL_OK)
        return "?";
    return s;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: gpucheck TRACE\n");
        return 2;
    }
    pal_reader *rd;
    if (pal_reader_open(argv[1], NULL, &rd) != PAL_OK) {
        fprintf(stderr, "gpucheck: %s: %s\n", argv[1], pal_last_error());
        return 1;
    }
    pal_names *nm;
    pal_names_create(&nm);
    static named kernels[MAXN], copies[MAXN], counters[MAXN], locs[MAXN];
    size_t nk = 0, nc = 0, nctr = 0, nl = 0;
    uint64_t n_kernel = 0, n_copy = 0, n_memset = 0, n_sync = 0, n_api = 0, n_stamp = 0;
    uint64_t bad_direction = 0;
    uint64_t sm_locs = 0, gpu_locs = 0;
    size_t kcap = 1024, kn = 0;
    kern *ks = malloc(kcap * sizeof *ks);
    size_t acap = 1u << 20;
    api *apis = calloc(acap, sizeof *apis);
    uint64_t max_err_ticks = 0;
    double tps = 0;
    pal_trace_info info;
    if (pal_reader_info(rd, &info) == PAL_OK)
        tps = info.ticks_per_second;
    const pal_record *r;
    pal_status st;
    while ((st = pal_reader_next(rd, &r)) == PAL_OK) {
        pal_names_add(nm, r);
        const char *type = pal_recdesc_name(pal_record_desc(r));
        if (strncmp(type, "gpu_", 4) != 0 && strcmp(type, "counter_int") != 0 &&
            strcmp(type, "counter_float") != 0)
            continue;
        int64_t t = pal_record_time_ns(r), d = 0;
        pal_record_duration_ns(r, &d);
        uint64_t u = 0;
        if (strcmp(type, "gpu_kernel") == 0) {
            n_kernel++;
            find(kernels, &nk, field_name(nm, r, "region"))->n++;
            pal_record_get_u64(r, "correlation", &u);
            if (kn == kcap) {
                kcap *= 2;
                ks = realloc(ks, kcap * sizeof *ks);
            }
            ks[kn++] = (kern){ (uint32_t)u, pal_record_stream(r), t - d, t };
        } else if (strcmp(type, "gpu_copy") == 0) {
            n_copy++;
            named *c = find(copies, &nc, field_name(nm, r, "region"));
            c->n++;
            /* the size is in the field of its direction (seen from the
             * device), the other two are 0 */
            uint64_t to = 0, from = 0;
            pal_record_get_u64(r, "to_device", &to);
            pal_record_get_u64(r, "from_device", &from);
            pal_record_get_u64(r, "bytes", &u);
            const char *cn = field_name(nm, r, "region");
            if ((strcmp(cn, "memcpy HtoD") == 0 && (from || u)) ||
                (strcmp(cn, "memcpy DtoH") == 0 && (to || u))) {
                printf("FAIL: %s with bytes to the device %" PRIu64 ", from it %" PRIu64
                       ", other %" PRIu64 "\n", cn, to, from, u);
                bad_direction++;
            }
            c->bytes += to + from + u;
        } else if (strcmp(type, "gpu_memset") == 0) {
            n_memset++;
        } else if (strcmp(type, "gpu_sync") == 0) {
            n_sync++;
        } else if (strcmp(type, "gpu_api") == 0) {
            n_api++;
            pal_record_get_u64(r, "correlation", &u);
            if (u < acap)
                apis[u] = (api){ t - d, t, 1 };
        } else if (strcmp(type, "gpu_stamp") == 0) {
            n_stamp++;
        } else if (strcmp(type, "gpu_location") == 0) {
            pal_record_get_u64(r, "kind", &u);
            if (u == 2)
                sm_locs++;
            else
                gpu_locs++;
        } else if (strcmp(type, "gpu_clock") == 0) {
            pal_record_get_u64(r, "error", &u);
            if (u > max_err_ticks)
                max_err_ticks = u;
        } else if (strncmp(type, "counter_", 8) == 0) {
            const char *name = field_name(nm, r, "counter");
            if (strncmp(name, "gpu", 3) != 0)
                continue;
            named *c = find(counters, &nctr, name);
            double v = 0;
            pal_record_get_f64(r, "value", &v);
            c->n++;
            if (v < c->min)
                c->min = v;
            if (v > c->max)
                c->max = v;
        }
        (void)locs;
        (void)nl;
    }
    if (st != PAL_END)
        fprintf(stderr, "gpucheck: %s: %s\n", argv[1], pal_reader_error(rd));
    /* launch windows */
    int64_t tol = (int64_t)(tps > 0 ? (double)max_err_ticks / tps * 1e9 : 0) + 1000;
    uint64_t linked = 0, bad = 0;
    int64_t worst = 0;
    int said = 0;
    for (size_t i = 0; i < kn; i++) {
        if (ks[i].corr >= acap || !apis[ks[i].corr].set) {
            if (!said++)   /* what a kernel that names no CUDA call looks like */
                printf("unlinked_example=kernel correlation %u at %" PRId64 " ns\n", ks[i].corr,
                       ks[i].start);
            continue;
        }
        linked++;
        int64_t early = apis[ks[i].corr].start - ks[i].start;
        if (early > worst)
            worst = early;
        if (early > tol || ks[i].end < apis[ks[i].corr].start)
            bad++;
    }
    /* streams with kernels, and how long kernels of two streams overlapped */
    uint32_t streams[64];
    size_t nstreams = 0;
    int64_t overlap = 0;
    for (size_t i = 0; i < kn; i++) {
        size_t j = 0;
        while (j < nstreams && streams[j] != ks[i].stream)
            j++;
        if (j == nstreams && nstreams < 64)
            streams[nstreams++] = ks[i].stream;
        for (size_t k = i + 1; k < kn && kn <= 4000; k++) {
            if (ks[k].stream == ks[i].stream)
                continue;
            int64_t a = ks[i].start > ks[k].start ? ks[i].start : ks[k].start;
            int64_t b = ks[i].end < ks[k].end ? ks[i].end : ks[k].end;
            if (b > a)
                overlap += b - a;
        }
    }
    printf("kernel_streams=%zu\noverlap_ns=%" PRId64 "\n", nstreams, overlap);
    printf("kernels=%" PRIu64 "\ncopies=%" PRIu64 "\nmemsets=%" PRIu64 "\nsyncs=%" PRIu64
           "\napi_calls=%" PRIu64 "\nstamps=%" PRIu64 "\n",
           n_kernel, n_copy, n_memset, n_sync, n_api, n_stamp);
    for (size_t i = 0; i < nk; i++)
        printf("kernel %s=%" PRIu64 "\n", kernels[i].name, kernels[i].n);
    for (size_t i = 0; i < nc; i++)
        printf("copy %s=%" PRIu64 " bytes=%" PRIu64 "\n", copies[i].name, copies[i].n,
               copies[i].bytes);
    printf("gpu_locations=%" PRIu64 "\nsm_locations=%" PRIu64 "\n", gpu_locs, sm_locs);
    printf("kernels_linked=%" PRIu64 "\nwindow_violations=%" PRIu64 "\nworst_early_ns=%" PRId64
           "\nclock_error_ns=%" PRId64 "\n", linked, bad, worst, tol - 1000);
    for (size_t i = 0; i < nctr; i++)
        printf("counter %s samples=%" PRIu64 " min=%g max=%g\n", counters[i].name, counters[i].n,
               counters[i].min, counters[i].max);
    pal_names_destroy(nm);
    pal_reader_close(rd);
    free(ks);
    free(apis);
    return st == PAL_END && bad_direction == 0 ? 0 : 1;
}
