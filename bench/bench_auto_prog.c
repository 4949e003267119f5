/* bench_auto_prog.c -- the instrumented program of table (l) (bench_auto):
 * compiled with -finstrument-functions and linked with libc only, so that
 * whatever defines __cyg_profile_func_enter/exit first -- libc's empty hooks,
 * a preloaded libecl-core, LTTng's liblttng-ust-cyg-profile -- is what the
 * calls cost. Modes (argv[1]), each N calls (argv[2]) after N/10 unmeasured:
 *   call   the instrumented function leaf(): an enter and an exit hook each
 *   plain  the same function built without instrumentation (the call alone)
 *   api    ecl_enter + ecl_leave of one region through ecl.h (looked up with
 *          dlsym in the preloaded libecl-core): two records, the reference
 * Prints "ns=NS_PER_ITERATION". */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NOI __attribute__((no_instrument_function))

static volatile uint64_t sink;

__attribute__((noinline)) uint64_t leaf(uint64_t x);
__attribute__((noinline)) uint64_t leaf(uint64_t x)
{
    return x * 3 + 1;
}

__attribute__((noinline)) NOI uint64_t leaf_plain(uint64_t x);
__attribute__((noinline)) NOI uint64_t leaf_plain(uint64_t x)
{
    return x * 3 + 1;
}

NOI static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

typedef uint32_t (*define_fn)(const char *);
typedef void (*region_fn)(uint32_t);

NOI static double run(const char *mode, uint64_t n)
{
    uint64_t acc = 0;
    double t0 = 0;
    if (strcmp(mode, "api") == 0) {
        define_fn def = (define_fn)dlsym(RTLD_DEFAULT, "ecl_region_define");
        region_fn enter = (region_fn)dlsym(RTLD_DEFAULT, "ecl_enter");
        region_fn leave = (region_fn)dlsym(RTLD_DEFAULT, "ecl_leave");
        if (def == NULL || enter == NULL || leave == NULL) {
            fprintf(stderr, "bench_auto_prog: api: ECL is not preloaded\n");
            exit(2);
        }
        uint32_t r = def("leaf");
        for (int round = 0; round < 2; round++) {
            uint64_t m = round == 0 ? n / 10 : n;
            t0 = now_ns();
            for (uint64_t i = 0; i < m; i++) {
                enter(r);
                acc += i;
                leave(r);
            }
        }
    } else {
        int plain = strcmp(mode, "plain") == 0;
        for (int round = 0; round < 2; round++) {
            uint64_t m = round == 0 ? n / 10 : n;
            t0 = now_ns();
            if (plain)
                for (uint64_t i = 0; i < m; i++)
                    acc += leaf_plain(i);
            else
                for (uint64_t i = 0; i < m; i++)
                    acc += leaf(i);
        }
    }
    double ns = (now_ns() - t0) / (double)n;
    sink = acc;
    return ns;
}

NOI int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: bench_auto_prog call|plain|api N\n");
        return 2;
    }
    uint64_t n = strtoull(argv[2], NULL, 10);
    printf("ns=%.3f\n", run(argv[1], n));
    return 0;
}
