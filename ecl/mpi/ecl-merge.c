/* ecl-merge.c -- merge the per-rank traces of a run into one time-sorted,
 * clock-corrected trace (ecl/mpi/merge.c does the work). */
#include <config.h>

#include "ecl/mpi/merge.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *prog = "ecl-merge";

static void usage(FILE *f)
{
    fprintf(f,
"Usage: %s [OPTION]... TRACE...\n"
"Merge the per-process traces of a run (trace.0.ecl trace.1.ecl ...) into one\n"
"time-sorted trace: clocks corrected to rank 0's (offset and drift, from the\n"
"measurements ECL takes at MPI_Init and MPI_Finalize), record types merged by\n"
"name, every record tagged with its process and thread.\n"
"\n"
"  -o, --output=FILE     the merged trace (default: PREFIX.ecl for inputs named\n"
"                        PREFIX.<rank>.ecl)\n"
"  -n, --ranks=N         the run had N ranks: report those without a trace\n"
"                        (default: the size in the traces' headers)\n"
"  -z, --compress=METHOD none, zlib or zstd (default: zstd if built with it)\n"
"      --no-check        do not check message order after merging\n"
"  -q, --quiet           no warnings and no summary (errors only)\n"
"  -v, --verbose         clock correction of every rank, and a summary\n"
"  -h, --help            show this help and exit\n"
"  -V, --version         show the version and exit\n"
"\n"
"Problems are reported and the merge goes on: a missing rank, a trace whose\n"
"process died (kept up to its last complete chunk), damaged chunks (skipped),\n"
"clocks that could not be corrected (by how much receives precede sends).\n"
"\n"
"Exit status: 0 merged cleanly, 2 merged but something was reported, 1 nothing\n"
"written (no readable input, output not writable, bad usage).\n", prog);
}

/* "dir/trace.3.ecl" -> "dir/trace.ecl"; NULL if the name does not fit. */
static char *default_output(const char *in)
{
    size_t n = strlen(in);
    if (n < 6 || strcmp(in + n - 4, ".ecl") != 0)
        return NULL;
    size_t d = n - 4;
    while (d > 0 && in[d - 1] >= '0' && in[d - 1] <= '9')
        d--;
    if (d == n - 4 || d == 0 || in[d - 1] != '.')
        return NULL;
    char *out = malloc(d + 4);
    if (out == NULL)
        return NULL;
    memcpy(out, in, d - 1);
    strcpy(out + d - 1, ".ecl");
    return out;
}

int main(int argc, char **argv)
{
    static const struct option longs[] = {
        { "output", required_argument, NULL, 'o' },
        { "ranks", required_argument, NULL, 'n' },
        { "compress", required_argument, NULL, 'z' },
        { "no-check", no_argument, NULL, 'C' },
        { "quiet", no_argument, NULL, 'q' },
        { "verbose", no_argument, NULL, 'v' },
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, 'V' },
        { NULL, 0, NULL, 0 },
    };
    ecl_merge_options o;
    ecl_merge_options_default(&o);
    o.tool = prog;
    const char *output = NULL;
    int c;
    while ((c = getopt_long(argc, argv, "o:n:z:qvhV", longs, NULL)) != -1) {
        switch (c) {
        case 'o':
            output = optarg;
            break;
        case 'n': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*end != '\0' || v < 1 || v > 0x7fffffff) {
                fprintf(stderr, "%s: --ranks '%s': expected a positive number\n", prog, optarg);
                return 1;
            }
            o.expect_size = (int)v;
            break;
        }
        case 'z':
            if (strcmp(optarg, "none") == 0)
                o.compress = 0;
            else if (strcmp(optarg, "zlib") == 0)
                o.compress = 1;
#ifdef HAVE_ZSTD
            else if (strcmp(optarg, "zstd") == 0)
                o.compress = 2;
#endif
            else {
                fprintf(stderr, "%s: --compress '%s': expected none, zlib%s\n", prog, optarg,
#ifdef HAVE_ZSTD
                        " or zstd"
#else
                        " (this build has no zstd)"
#endif
                );
                return 1;
            }
            break;
        case 'C':
            o.check = 0;
            break;
        case 'q':
            o.quiet = 1;
            break;
        case 'v':
            o.verbose = 1;
            break;
        case 'h':
            usage(stdout);
            return 0;
        case 'V':
            printf("%s (%s) %s\n", prog, PACKAGE_NAME, PACKAGE_VERSION);
            return 0;
        default:
            fprintf(stderr, "Try '%s --help'.\n", prog);
            return 1;
        }
    }
    if (optind >= argc) {
        fprintf(stderr, "%s: no trace given\nTry '%s --help'.\n", prog, prog);
        return 1;
    }
    char *dflt = NULL;
    if (output == NULL) {
        output = dflt = default_output(argv[optind]);
        if (output == NULL) {
            fprintf(stderr, "%s: cannot derive the output name from '%s': give -o FILE\n", prog,
                    argv[optind]);
            return 1;
        }
    }
    for (int i = optind; i < argc; i++)
        if (strcmp(argv[i], output) == 0) {
            fprintf(stderr, "%s: the output '%s' is also an input\n", prog, output);
            free(dflt);
            return 1;
        }
    ecl_merge_result res;
    int st = ecl_merge_run((const char *const *)argv + optind, (size_t)(argc - optind), output,
                           &o, &res);
    if (st == 0 && !o.quiet && !o.verbose)
        fprintf(stderr, "%s: merged %u ranks into '%s': %llu records, %llu messages matched\n",
                prog, res.ranks, output, (unsigned long long)res.records,
                (unsigned long long)res.messages);
    free(dflt);
    return st;
}
