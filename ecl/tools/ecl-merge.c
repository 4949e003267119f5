/* ecl-merge.c -- merge the per-rank traces of a run into one time-sorted,
 * clock-corrected trace. PAL does the work (pal_merge: the run read as one
 * stream, written back); this is its command line. */
#include <config.h>

#include "pal/pal.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *prog = "ecl-merge";

#ifdef HAVE_ZSTD
#define HAVE_ZSTD_OR_ZLIB 2          /* --compress without a method */
#else
#define HAVE_ZSTD_OR_ZLIB 1
#endif

static void usage(FILE *f)
{
    fprintf(f,
"Usage: %s [OPTION]... TRACE...\n"
"Merge the per-process traces of a run (trace.0.ecl trace.1.ecl ..., or the\n"
"directory holding them) into one trace that reads as one time-sorted stream:\n"
"clocks corrected to rank 0's (offset and drift, from the measurements ECL\n"
"takes at MPI_Init and MPI_Finalize), record types merged by name, every record\n"
"tagged with its process and thread.\n"
"\n"
"      --format=N        3 (default): one file that keeps the per-rank traces\n"
"                        byte for byte, with an index and each rank's clock\n"
"                        model (corrected when read; as fast as copying);\n"
"                        2: every record decoded, corrected and written again\n"
"                        into one time-sorted stream (the older form)\n"
"  -q, --quiet           no warnings, no progress and no summary (errors only)\n"
"      --progress        show progress even when standard error is not a\n"
"                        terminal (shown on a terminal by default)\n"
"  -o, --output=FILE     the merged trace (default: PREFIX.ecl for inputs named\n"
"                        PREFIX.<rank>.ecl, DIR/trace.ecl for a directory DIR)\n"
"  -n, --ranks=N         the run had N ranks: report those without a trace\n"
"                        (default: the size in the traces' headers)\n"
"  -z, --compress[=METHOD] none, zlib or zstd (without METHOD: zstd if built\n"
"                        with it, else zlib). Format 3: the records chunks the\n"
"                        ranks wrote raw are compressed on the way, without\n"
"                        decoding a record (default none: kept as written,\n"
"                        the fastest merge); format 2: the output's chunks\n"
"                        (default zstd if built with it, else zlib)\n"
"      --check           decode the merged run and pair every send with its\n"
"                        receive (the event layer's matcher): sends or\n"
"                        receives without a partner, receives before their\n"
"                        send are reported (exit status 2). Format 3: off by\n"
"                        default (it reads every record); format 2: on\n"
"      --no-check        do not check the messages\n"
"With --format=2 only:\n"
"      --chunk-size=SIZE raw bytes per output chunk (default 64K; what one\n"
"                        damaged byte can cost)\n"
"\n"
"  -f, --force           merge traces of different runs (their run ids differ)\n"
"      --through         write into OUTPUT even when it is a device, FIFO or\n"
"                        symbolic link (otherwise refused)\n"
"  -v, --verbose         the clock correction of every rank, and a summary\n"
"  -h, --help            show this help and exit\n"
"  -V, --version         show the version and exit\n"
"\n"
"Problems are reported and the merge goes on: a missing rank, a trace whose\n"
"process died (kept up to its last complete chunk), damaged chunks (skipped),\n"
"clocks that could not be corrected (--format=2: by how much receives precede\n"
"sends).\n"
"\n"
"Exit status: 0 merged cleanly; 1 bad usage or nothing written (an input\n"
"cannot be read, traces of different runs, the output cannot be written);\n"
"2 merged, but something was reported (damage, missing ranks or records).\n",
            prog);
}

/* "dir/trace.3.ecl" -> "dir/trace.ecl", "dir" -> "dir/trace.ecl"; NULL if
 * the name does not fit. */
static char *default_output(const char *in)
{
    struct stat sb;
    size_t n = strlen(in);
    if (stat(in, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        char *out = malloc(n + 12);
        if (out)
            snprintf(out, n + 12, "%s/trace.ecl", in);
        return out;
    }
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

/* Progress on standard error: one line per phase rewritten in place, at
 * most every 1 % (format 3: the traces opened, checked and copied; with
 * --compress, then compressed). */
static int progress_shown;
static unsigned progress_last = 101;
static int progress_phase = -1;

static void progress(void *ctx, int phase, uint64_t done, uint64_t total)
{
    (void)ctx;
    unsigned pc = total ? (unsigned)(done * 100 / total) : 100;
    if (phase == progress_phase && pc == progress_last)
        return;
    progress_phase = phase;
    progress_last = pc;
    progress_shown = 1;
    if (phase == 0)
        fprintf(stderr, "\r%s: reading the traces: %3u %% (%llu of %llu files)", prog, pc,
                (unsigned long long)done, (unsigned long long)total);
    else
        fprintf(stderr, "\r%s: copying the traces: %3u %% (%.1f of %.1f MiB)", prog, pc,
                (double)done / 1048576.0, (double)total / 1048576.0);
    if (done >= total)
        fputc('\n', stderr);
}

/* A message after progress: on a line of its own. */
static void progress_break(void)
{
    if (progress_shown && progress_last < 100)
        fputc('\n', stderr);
    progress_shown = 0;
}

static int quiet;

static void diag(void *ctx, const char *message)
{
    (void)ctx;
    progress_break();
    if (!quiet)
        fprintf(stderr, "%s: %s\n", prog, message);
}

static size_t parse_size(const char *s)
{
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (end == s)
        return 0;
    if (*end == 'K' || *end == 'k')
        v <<= 10, end++;
    else if (*end == 'M' || *end == 'm')
        v <<= 20, end++;
    if (*end != '\0' || v < 4096 || v > (64u << 20))
        return 0;
    return (size_t)v;
}

int main(int argc, char **argv)
{
    enum { OPT_NOCHECK = 256, OPT_THROUGH, OPT_CHUNK, OPT_FORMAT, OPT_PROGRESS, OPT_COMPRESS,
           OPT_CHECK };
    static const struct option longs[] = {
        { "output", required_argument, NULL, 'o' },
        { "ranks", required_argument, NULL, 'n' },
        { "compress", optional_argument, NULL, OPT_COMPRESS },
        { "chunk-size", required_argument, NULL, OPT_CHUNK },
        { "no-check", no_argument, NULL, OPT_NOCHECK },
        { "check", no_argument, NULL, OPT_CHECK },
        { "format", required_argument, NULL, OPT_FORMAT },
        { "progress", no_argument, NULL, OPT_PROGRESS },
        { "force", no_argument, NULL, 'f' },
        { "through", no_argument, NULL, OPT_THROUGH },
        { "quiet", no_argument, NULL, 'q' },
        { "verbose", no_argument, NULL, 'v' },
        { "help", no_argument, NULL, 'h' },
        { "version", no_argument, NULL, 'V' },
        { NULL, 0, NULL, 0 },
    };
    pal_merge_options o;
    pal_merge_options_default(&o);
    o.diag = diag;
    const char *output = NULL;
    int verbose = 0, c, want_progress = isatty(STDERR_FILENO);
    /* getopt's messages name the tool, not the path it was run by */
    argv[0] = (char *)prog;
    while ((c = getopt_long(argc, argv, "o:n:z:fqvhV", longs, NULL)) != -1) {
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
            o.ranks = (int)v;
            break;
        }
        case OPT_COMPRESS:
        case 'z':
            if (!optarg)
                o.compress = HAVE_ZSTD_OR_ZLIB;
            else if (strcmp(optarg, "none") == 0)
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
        case OPT_CHUNK:
            if ((o.chunk_size = parse_size(optarg)) == 0) {
                fprintf(stderr, "%s: --chunk-size '%s': expected 4K to 64M\n", prog, optarg);
                return 1;
            }
            break;
        case OPT_NOCHECK:
            o.check = 0;
            break;
        case OPT_CHECK:
            o.check = 1;
            break;
        case OPT_FORMAT:
            if (strcmp(optarg, "2") == 0) {
                o.format = 2;
            } else if (strcmp(optarg, "3") == 0) {
                o.format = 3;
            } else {
                fprintf(stderr, "%s: --format '%s': expected 2 or 3\n", prog, optarg);
                return 1;
            }
            break;
        case OPT_PROGRESS:
            want_progress = 1;
            break;
        case 'f':
            o.open_flags |= PAL_OPEN_FORCE;
            break;
        case OPT_THROUGH:
            o.out_flags |= PAL_OUT_THROUGH;
            break;
        case 'q':
            quiet = 1;
            break;
        case 'v':
            verbose = o.verbose = 1;
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
    if (want_progress && !quiet)
        o.progress = progress;
    pal_merge_result res;
    pal_status st = pal_merge((const char *const *)argv + optind, (size_t)(argc - optind), output,
                              &o, &res);
    int status = 0;
    progress_break();
    if (st != PAL_OK) {
        fprintf(stderr, "%s: %s\n", prog, pal_last_error());
        status = 1;
    } else {
        status = res.problems ? 2 : 0;
        if (!quiet && (verbose || status == 0) && o.format == 3)
        {
            char checked[64] = "";
            if (o.check > 0)
                snprintf(checked, sizeof checked, ", %llu messages matched",
                         (unsigned long long)res.messages);
            fprintf(stderr, "%s: merged %u ranks into '%s': %llu records in %llu chunks, %s%s%s\n",
                    prog, res.ranks, output, (unsigned long long)res.records,
                    (unsigned long long)res.chunks,
                    o.compress <= 0 ? "kept as written"
                    : o.compress == 1 ? "raw ones compressed with zlib"
                                      : "raw ones compressed with zstd",
                    checked, status ? "; see the messages above" : "");
        }
        else if (!quiet && (verbose || status == 0))
            fprintf(stderr, "%s: merged %u ranks into '%s': %llu records, %llu messages "
                    "matched%s\n", prog, res.ranks, output, (unsigned long long)res.records,
                    (unsigned long long)res.messages,
                    status ? "; see the messages above" : "");
        else if (quiet && status == 2)
            fprintf(stderr, "%s: merged into '%s' with %llu problems (run without -q to see "
                    "them)\n", prog, output, (unsigned long long)res.problems);
    }
    free(dflt);
    return status;
}
