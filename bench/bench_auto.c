/* bench_auto.c -- table (l): what compiler instrumentation costs per call
 * (-finstrument-functions: an enter and an exit hook), with ECL preloaded
 * (no relink, as ecl-run does), next to two records through ecl.h (the
 * target: at most twice that), a function the filter leaves out (target: at
 * most 5 ns), libc's empty hooks and an uninstrumented call, and LTTng-UST's
 * liblttng-ust-cyg-profile on the same binary inside an lttng session.
 *
 * Every configuration is a fresh run of bench_auto_prog; the configurations
 * run round-robin BENCH_REPS times (default 7), and the table shows min and
 * median. ECL's traces are read back with PAL: the enter records must be the
 * calls made.
 *
 * Then the overhead R of a real program: edlc (bench_auto_edlc, the repo's
 * EDL compiler built with -finstrument-functions) compiling a generated EDL
 * of 4000 records, untraced and traced with ECL preloaded -- with a filter
 * file that leaves out its tiny hot helpers, and with every function -- R =
 * traced wall time / untraced of the same round. Prints tables; never fails
 * on time. */
#include <config.h>

#include "bench/bench_common.h"
#include "bench/bench_pal.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { C_PLAIN, C_NULL, C_API, C_ECL, C_FILTERED, C_LTTNG, C_LTTNG_FAST, NCONF };
static const char *const conf_names[NCONF] = {
    "uninstrumented call (no hooks)",
    "instrumented, libc's empty hooks",
    "ecl_enter + ecl_leave (2 records, ecl.h)",
    "instrumented, ECL preloaded (enter+leave)",
    "instrumented, ECL, function filtered out",
    "instrumented, LTTng cyg-profile",
    "instrumented, LTTng cyg-profile-fast",
};

#define MAX_REPS 64

typedef struct conf {
    double ns[MAX_REPS];
    double per_api[MAX_REPS];    /* ECL only: ns / (the api row's ns of the same round) */
    int off;
    char why[300];
    uint64_t events;             /* enter records read back (ECL rows, last run) */
} conf;

static conf confs[NCONF];
static char lib_ecl[4300], lib_lttng[2][300], lttng_prog[4200], prog[4200];

static const char *first_existing(const char *const *paths)
{
    for (int i = 0; paths[i]; i++)
        if (access(paths[i], R_OK) == 0)
            return paths[i];
    return NULL;
}

static double run_prog(const char *mode, uint64_t n, char *const env[], char *why, size_t wl)
{
    char nbuf[32];
    snprintf(nbuf, sizeof nbuf, "%llu", (unsigned long long)n);
    char *argv[] = { prog, (char *)mode, nbuf, NULL };
    bench_child c;
    if (bench_spawn(argv, env, BENCH_OUT_CAPTURE_ALL, &c) != 0) {
        snprintf(why, wl, "bench_auto_prog %s failed (status %d): %.200s", mode, c.status, c.out);
        return NAN;
    }
    return bench_kv(c.out, "ns");
}

/* One ECL run: the trace in a fresh directory, read back. */
static double run_ecl(conf *cf, const char *mode, uint64_t n, const char *filter, uint64_t want)
{
    char dir[4200], envdir[4300], envpre[4400], envfilter[4400];
    bench_mkdtemp("auto", dir, sizeof dir);
    snprintf(envdir, sizeof envdir, "ECL_DIR=%s", dir);
    snprintf(envpre, sizeof envpre, "LD_PRELOAD=%s", lib_ecl);
    snprintf(envfilter, sizeof envfilter, "ECL_FILTER=%s", filter ? filter : "");
    char *env[] = { envdir, envpre, filter ? envfilter : "ECL_FILTER", NULL };
    double ns = run_prog(mode, n, env, cf->why, sizeof cf->why);
    char trace[4300];
    if (!isnan(ns)) {
        if (bench_find_file(dir, ".ecl", trace, sizeof trace) != 0) {
            snprintf(cf->why, sizeof cf->why, "no trace written");
            ns = NAN;
        } else {
            const char *names[] = { "enter" };
            uint64_t count = 0;
            char err[200];
            if (bench_pal_count(trace, names, 1, &count, err, sizeof err) != 0) {
                snprintf(cf->why, sizeof cf->why, "trace unreadable: %s", err);
                ns = NAN;
            } else if (count != want) {
                snprintf(cf->why, sizeof cf->why, "%llu enter records read back, %llu expected",
                         (unsigned long long)count, (unsigned long long)want);
                ns = NAN;
            }
            cf->events = count;
        }
    }
    bench_rmtree(dir);
    return ns;
}

static int lttng_cmd(char *const args[], char *why, size_t wl)
{
    char *argv[16];
    int k = 0;
    argv[k++] = lttng_prog;
    for (int i = 0; args[i] && k < 15; i++)
        argv[k++] = args[i];
    argv[k] = NULL;
    bench_child c;
    if (bench_spawn(argv, NULL, BENCH_OUT_CAPTURE_ALL, &c) != 0) {
        snprintf(why, wl, "'lttng %s' failed (status %d): %.200s", args[0], c.status, c.out);
        return -1;
    }
    return 0;
}

/* One LTTng run: a session of its own with the cyg-profile events on. */
static double run_lttng(conf *cf, int which, uint64_t n, int rep)
{
    char dir[4200], out_opt[4300], name[64], envpre[400];
    bench_mkdtemp("lttng-auto", dir, sizeof dir);
    snprintf(out_opt, sizeof out_opt, "--output=%s", dir);
    snprintf(name, sizeof name, "ecl-bench-auto-%ld-%d-%d", (long)getpid(), which, rep);
    snprintf(envpre, sizeof envpre, "LD_PRELOAD=%s", lib_lttng[which]);
    char *create[] = { "create", name, out_opt, NULL };
    char *channel[] = { "enable-channel", "-u", "-s", name, "ch", "--subbuf-size=4M",
                        "--num-subbuf=4", "--blocking-timeout=inf", NULL };
    char *event[] = { "enable-event", "-u", "-s", name, "-c", "ch", "lttng_ust_cyg_profile*", NULL };
    char *start[] = { "start", name, NULL };
    char *stop[] = { "stop", name, NULL };
    char *destroy[] = { "destroy", name, NULL };
    double ns = NAN;
    if (lttng_cmd(create, cf->why, sizeof cf->why) != 0) {
        cf->off = 1;
        bench_rmtree(dir);
        return NAN;
    }
    if (lttng_cmd(channel, cf->why, sizeof cf->why) == 0 &&
        lttng_cmd(event, cf->why, sizeof cf->why) == 0 &&
        lttng_cmd(start, cf->why, sizeof cf->why) == 0) {
        char *env[] = { envpre, "LTTNG_UST_ALLOW_BLOCKING=1", NULL };
        ns = run_prog("call", n, env, cf->why, sizeof cf->why);
        lttng_cmd(stop, cf->why, sizeof cf->why);
    } else {
        cf->off = 1;
    }
    lttng_cmd(destroy, cf->why, sizeof cf->why);
    bench_rmtree(dir);
    return ns;
}

/* ---- a real program: edlc compiling a big generated description ---- */
enum { E_PLAIN, E_FILTER, E_ALL, NEDLC };
static const char *const edlc_names[NEDLC] = {
    "untraced",
    "ECL, filter: tiny hot helpers out",
    "ECL, every function",
};

/* The tiny helpers edlc calls 80,000 times and more (a profile of an
 * unfiltered run, pal-view: lexer steps, allocation, hashing, lookups,
 * output of single values); what stays is edlc's passes and its per-record
 * and per-field work. */
static const char edlc_filter[] =
    "# edlc's tiny hot helpers: lexer, allocation, hashing, lookups, output of values\n"
    "exclude function edl_lex_* edl_yylex edl_alloc edl_strndup dup_or_empty\n"
    "exclude function edl_name_hash edl_hdr_text edl_list_append edl_map_* edl_nameidx_*\n"
    "exclude function out_* ref_clear place failed may_append role_of designated_role\n"
    "exclude function encoding_fits edl_type_by_name edl_record_find_field edl_ast_*\n";

static int write_big_edl(const char *path, unsigned nrec)
{
    FILE *f = fopen(path, "w");
    if (f == NULL)
        return -1;
    fputs("HEADER IS\nBEGIN\n    NAME IS big;\n    VERSION IS \"1\";\n"
          "    REPRESENTATION IS ASCII;\n    SEPARATORS IS \" \\t\";\n"
          "    TIMESTAMP IS t UNIT \"us\";\n    PROCESS IS rank;\nEND;\n\n", f);
    for (unsigned i = 0; i < nrec; i++) {
        fprintf(f, "RECORD rec_%u DESCRIPTION \"generated record %u\" IS\nBEGIN\n"
                   "    FIELD t IS int64 UNIT \"us\";\n    FIELD rank IS int32;\n"
                   "    FIELD event IS string;\n", i, i);
        for (unsigned j = 0; j < 8; j++)
            fprintf(f, "    FIELD f%u_%u IS %s UNIT \"u%u\" DESCRIPTION \"field %u of record %u\";\n",
                    j, i, j % 2 ? "int64" : "float64", j, j, i);
        fputs("END;\n\n", f);
    }
    fputs("BIND IS\nKEYFIELD INDEX IS 2;\nBEGIN\n", f);
    for (unsigned i = 0; i < nrec; i++)
        fprintf(f, "    \"e%u\" IS \"rec_%u\";\n", i, i);
    fputs("END;\n", f);
    return fclose(f);
}

static void edlc_table(int reps)
{
    char b[4200], edlc[4200];
    const char *p = bench_sibling("bench_auto_edlc", b, sizeof b);
    bench_table_header("(l) compiler instrumentation: overhead R of a real program (edlc)",
                       "ECL's default clock");
    if (p == NULL) {
        printf("n/a: bench_auto_edlc not found beside bench_auto (make bench builds it)\n");
        return;
    }
    snprintf(edlc, sizeof edlc, "%s", p);
    char dir[4200], edl[4300], bin[4300], filter[4300];
    bench_mkdtemp("auto-edlc", dir, sizeof dir);
    snprintf(edl, sizeof edl, "%s/big.edl", dir);
    snprintf(bin, sizeof bin, "%s/big.bin", dir);
    snprintf(filter, sizeof filter, "%s/edlc.filter", dir);
    unsigned nrec = (unsigned)bench_scaled(4000);
    FILE *f = fopen(filter, "w");
    if (f == NULL || fputs(edlc_filter, f) < 0 || fclose(f) != 0 || write_big_edl(edl, nrec)) {
        printf("n/a: cannot write the input in %s\n", dir);
        bench_rmtree(dir);
        return;
    }
    static double s[NEDLC][MAX_REPS];
    uint64_t records[NEDLC] = {0};
    char why[NEDLC][300] = {{0}};
    for (int rep = 0; rep < reps; rep++) {
        for (int k = 0; k < NEDLC; k++) {
            char tdir[4200], envdir[4300], envpre[4400], envfilter[4400];
            bench_mkdtemp("auto-edlc-trace", tdir, sizeof tdir);
            snprintf(envdir, sizeof envdir, "ECL_DIR=%s", tdir);
            snprintf(envpre, sizeof envpre, "LD_PRELOAD=%s", lib_ecl);
            snprintf(envfilter, sizeof envfilter, "ECL_FILTER=%s", filter);
            char *env_plain[] = { "LD_PRELOAD", "ECL_FILTER", NULL };
            char *env_ecl[] = { envdir, envpre, k == E_FILTER ? envfilter : "ECL_FILTER", NULL };
            char *argv[] = { edlc, "-o", bin, edl, NULL };
            bench_child c;
            s[k][rep] = NAN;
            if (bench_spawn(argv, k == E_PLAIN ? env_plain : env_ecl, BENCH_OUT_CAPTURE_ALL,
                            &c) != 0) {
                snprintf(why[k], sizeof why[k], "edlc failed (status %d): %.200s", c.status,
                         c.out);
            } else if (k == E_PLAIN) {
                s[k][rep] = c.wall_ns / 1e9;
            } else {
                char trace[4300], err[200];
                const char *names[] = { "enter" };
                uint64_t count = 0;
                if (bench_find_file(tdir, ".ecl", trace, sizeof trace) != 0)
                    snprintf(why[k], sizeof why[k], "no trace written");
                else if (bench_pal_count(trace, names, 1, &count, err, sizeof err) != 0)
                    snprintf(why[k], sizeof why[k], "trace unreadable: %s", err);
                else if (count == 0 || (records[k] && count != records[k]))
                    snprintf(why[k], sizeof why[k], "%llu enter records, %llu in another run",
                             (unsigned long long)count, (unsigned long long)records[k]);
                else
                    s[k][rep] = c.wall_ns / 1e9;
                records[k] = count;
            }
            bench_rmtree(tdir);
        }
    }
    bench_rmtree(dir);
    printf("edlc (built with -finstrument-functions -O2 -g) compiling a generated EDL of %u\n"
           "records (%u fields each, %u bind entries); %d interleaved runs; wall time of the\n"
           "process (fork to exit, ECL's start and close included); R min: traced min /\n"
           "untraced min, R med: traced median / untraced median\n", nrec, 11, nrec, reps);
    printf("%-36s %9s %9s %7s %7s %14s\n", "configuration", "s min", "s med", "R min", "R med",
           "enter records");
    double pmn = NAN, pmd = NAN;
    bench_min_median(s[E_PLAIN], reps, &pmn, &pmd);
    for (int k = 0; k < NEDLC; k++) {
        double mn, md;
        printf("%-36s", edlc_names[k]);
        if (bench_min_median(s[k], reps, &mn, &md) == 0) {
            printf(" %s\n", why[k][0] ? why[k] : "n/a");
            continue;
        }
        double rmn = mn / pmn, rmd = md / pmd;
        bench_cell(mn, 9, 3);
        bench_cell(md, 9, 3);
        bench_cell(rmn, 7, 2);
        bench_cell(rmd, 7, 2);
        if (k != E_PLAIN)
            printf(" %14llu", (unsigned long long)records[k]);
        printf("\n");
    }
    printf("ECL rows: every run's trace read back with PAL; its enter records must be the same\n"
           "in every run (edlc is deterministic). The filter file:\n%s", edlc_filter);
}

int main(void)
{
    char b[4200];
    const char *p = bench_sibling("bench_auto_prog", b, sizeof b);
    if (p == NULL) {
        fprintf(stderr, "bench_auto: bench_auto_prog not found beside bench_auto\n");
        return 1;
    }
    snprintf(prog, sizeof prog, "%s", p);
    /* ECL's library in the build tree (BENCH_LIBECL overrides) */
    const char *e = getenv("BENCH_LIBECL");
    if (e != NULL) {
        snprintf(lib_ecl, sizeof lib_ecl, "%s", e);
    } else {
        char self[4200];
        snprintf(self, sizeof self, "%s", prog);
        char *slash = strrchr(self, '/');
        if (slash)
            *slash = '\0';
        snprintf(lib_ecl, sizeof lib_ecl, "%s/../ecl/.libs/libecl-core.so", self);
    }
    static const char *const cyg[] = { "/usr/lib/x86_64-linux-gnu/liblttng-ust-cyg-profile.so.1",
                                       "/usr/lib/liblttng-ust-cyg-profile.so.1", NULL };
    static const char *const cygf[] = {
        "/usr/lib/x86_64-linux-gnu/liblttng-ust-cyg-profile-fast.so.1",
        "/usr/lib/liblttng-ust-cyg-profile-fast.so.1", NULL };
    const char *l0 = first_existing(cyg), *l1 = first_existing(cygf);
    const char *lt = getenv("LTTNG");
    if (lt == NULL || lt[0] == '\0')
        lt = bench_which("lttng", b, sizeof b);
    if (lt != NULL)
        snprintf(lttng_prog, sizeof lttng_prog, "%s", lt);
    if (l0 == NULL || l1 == NULL || lt == NULL) {
        for (int k = C_LTTNG; k <= C_LTTNG_FAST; k++) {
            confs[k].off = 1;
            snprintf(confs[k].why, sizeof confs[k].why,
                     "n/a: %s", lt == NULL ? "no lttng command (lttng-tools)"
                                           : "no liblttng-ust-cyg-profile (liblttng-ust-dev)");
        }
    } else {
        snprintf(lib_lttng[0], sizeof lib_lttng[0], "%s", l0);
        snprintf(lib_lttng[1], sizeof lib_lttng[1], "%s", l1);
    }
    /* a filter that leaves leaf out */
    char fdir[4200], filter[4300];
    bench_mkdtemp("auto-filter", fdir, sizeof fdir);
    snprintf(filter, sizeof filter, "%s/filter.txt", fdir);
    FILE *f = fopen(filter, "w");
    if (f == NULL || fputs("exclude function leaf\n", f) < 0 || fclose(f) != 0) {
        fprintf(stderr, "bench_auto: cannot write %s\n", filter);
        return 1;
    }

    uint64_t n = bench_scaled(2000000);
    int reps = bench_reps();
    if (reps > MAX_REPS)
        reps = MAX_REPS;
    /* enter records: main is not instrumented (no_instrument_function), the
     * warm-up round is n/10 */
    uint64_t want = n + n / 10;
    for (int rep = 0; rep < reps; rep++) {
        for (int k = 0; k < NCONF; k++) {
            conf *cf = &confs[k];
            double ns = NAN;
            if (cf->off) {
                cf->ns[rep] = NAN;
                continue;
            }
            switch (k) {
            case C_PLAIN: ns = run_prog("plain", n, NULL, cf->why, sizeof cf->why); break;
            case C_NULL: ns = run_prog("call", n, NULL, cf->why, sizeof cf->why); break;
            case C_API: ns = run_ecl(cf, "api", n, NULL, want); break;
            case C_ECL: ns = run_ecl(cf, "call", n, NULL, want); break;
            case C_FILTERED: ns = run_ecl(cf, "call", n, filter, 0); break;
            case C_LTTNG: ns = run_lttng(cf, 0, n, rep); break;
            case C_LTTNG_FAST: ns = run_lttng(cf, 1, n, rep); break;
            }
            cf->ns[rep] = ns;
        }
        for (int k = 0; k < NCONF; k++)
            confs[k].per_api[rep] = confs[k].ns[rep] / confs[C_API].ns[rep];
    }
    bench_rmtree(fdir);

    bench_table_header("(l) compiler instrumentation: one instrumented call (enter + exit hook)",
                       "ECL's default clock");
    printf("%llu calls per run, %d interleaved runs; ns per call (per enter+leave pair for the\n"
           "ecl.h row); ratio: to the ecl.h row of the same round\n",
           (unsigned long long)n, reps);
    printf("%-44s %9s %9s %8s %8s\n", "configuration", "ns min", "ns med", "x min", "x med");
    for (int k = 0; k < NCONF; k++) {
        conf *cf = &confs[k];
        double mn, md, rmn, rmd;
        printf("%-44s", conf_names[k]);
        if (bench_min_median(cf->ns, reps, &mn, &md) == 0) {
            printf(" %s\n", cf->why[0] ? cf->why : "n/a");
            continue;
        }
        bench_min_median(cf->per_api, reps, &rmn, &rmd);
        bench_cell(mn, 9, 2);
        bench_cell(md, 9, 2);
        bench_cell(rmn, 8, 2);
        bench_cell(rmd, 8, 2);
        if (k == C_ECL)
            printf("   target x <= 2");
        if (k == C_FILTERED)
            printf("   target <= 5 ns");
        printf("\n");
    }
    printf("ECL rows: every enter record read back with PAL (%llu per run; 0 filtered out).\n",
           (unsigned long long)want);
    printf("LTTng rows: liblttng-ust-cyg-profile(-fast) preloaded into the same binary, in an\n"
           "lttng session of their own with the lttng_ust_cyg_profile* events enabled\n"
           "(blocking channel, 4 x 4 MiB sub-buffers: lossless like ECL).\n");
    edlc_table(reps);
    return 0;
}
