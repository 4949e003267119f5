/* pal-view -- profiles, pictures, exports and an animated report from any
 * trace PAL can read (ECL traces; other formats with -d DICT).
 *
 *   pal-view [options] TRACE...
 *     -d DICT          dictionary for traces that do not embed one (passed to PAL)
 *     -c FILE          view groups ("group: abstract_view: concrete_view" lines)
 *     --plugin SO      load views from a shared object (repeatable)
 *     --list           list the views and the configured groups
 *     --view NAME      select a view (repeatable; default: profile, or for
 *                      --svg every view of the configuration)
 *     --svg DIR        write each selected view as DIR/NAME.svg
 *     --export chrome|csv   write the Chrome trace-event JSON or CSV (stdout or -o)
 *     -o FILE          the export's output (gzip-compressed when FILE ends in .gz)
 *     --gzip           compress the export (also on stdout)
 *     --from T, --to T a window, seconds from the start: the Chrome export's,
 *                      the text profile's and the HTML report's (others refuse it)
 *     --export otf2 -o DIR  write an OTF2 archive DIR/traces.otf2 (views/otf2.c)
 *     --waits [text|csv|json]  the wait states (views/waits.c) instead of the profile
 *     --what-if SPEC   the run re-timed under a model (views/waits.c)
 *     --predict NP     per region models over runs at several process counts (views/predict.c)
 *     --html FILE      write one self-contained HTML report with an animator
 *     --mpi            under mpirun: each process reads a share (views/mpi.c)
 */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <unistd.h>

#include "container/container.h"
#include "views/an.h"
#include "views/mpi.h"
#include "views/progress.h"
#include "views/timeline.h"
#include "views/vw.h"
#include "views/synth.h"
#include "views/waits.h"
#ifdef HAVE_OTF2
#include "views/otf2.h"
#endif

static void usage(FILE *out)
{
    fputs("usage: pal-view [-d DICT] [-c VIEWS.CONF] [--plugin SO]... [--list]\n"
          "                [--view NAME]... [--svg DIR] [--export chrome|csv]\n"
          "                [--export otf2 -o DIR] [--html FILE] [-o FILE] [--gzip] [--from T] [--to T]\n"
          "                [--through] [--suggest-filter] [-j N] TRACE...\n"
          "       mpirun -np P pal-view --mpi [options] TRACE...\n"
          "       pal-view [-d DICT] --waits[=text|csv|json] [-j N] TRACE...\n"
          "       pal-view [-d DICT] --what-if ideal|net[:L=V,G=V]|scale:REGION=F[,...] [-j N]\n"
          "                [-o PRED.ECL] TRACE...  (-o: the predicted run as a trace)\n"
          "       pal-view [-d DICT] --predict NP [--waits=csv|json] [-o SYNTH.ECL] RUN RUN...\n"
          "-j N: read a run of several files in N threads (default 1), with the output\n"
          "of -j 1 (the Chrome export, --html, --svg and a window read with one).\n"
          "--mpi: under mpirun (srun, mpiexec), P processes each read a share of the\n"
          "run and process 0 writes the outputs of one, --waits and --what-if included\n"
          "(--export otf2, --what-if -o and --predict are read by process 0 alone).\n"
          "--suggest-filter: an ECL_FILTER file that leaves out the functions that\n"
          "flood the trace, with the records it saves (the view suggest-filter).\n"
          "-o FILE: the export's output (gzip when FILE ends in .gz or with --gzip);\n"
          "--from/--to: a window, in seconds from the start: the Chrome export's, the\n"
          "text profile's (calls and time inside it) and the --html report's (opens on it).\n"
          "TRACE: a trace, or the per-rank traces of a run (files or their directory),\n"
          "read as one stream. --through: write into an output (--html, SVG, -o, the\n"
          "OTF2 archive's files and directory) that is a device, FIFO or symbolic link\n"
          "(otherwise refused).\n"
          "exit status: 0 success; 1 usage error, unreadable trace, a description\n"
          "without the roles the views need, or output not written; 2 drawn, but\n"
          "damage was found or the traces are partial\n",
          out);
}

/* Writes one output file through the container codec's atomic output
 * (nothing partial is left under its name). 0, or 1 with a message. */
static int write_output(const char *path, unsigned flags, int (*fn)(const void *, FILE *),
                        const void *arg)
{
    char err[4400];
    ecc_out *o;
    if (ecc_out_open(path, flags, &o, err, sizeof err) != 0) {
        fprintf(stderr, "pal-view: %s\n", err);
        return 1;
    }
    FILE *f = fdopen(dup(ecc_out_fd(o)), "w");
    int rc = f == NULL || fn(arg, f) != 0;
    if (f && fclose(f) != 0)
        rc = 1;
    if (rc) {
        fprintf(stderr, "pal-view: cannot write '%s': %s\n", path, strerror(errno));
        ecc_out_abort(o);
        return 1;
    }
    if (ecc_out_commit(o, err, sizeof err) != 0) {
        fprintf(stderr, "pal-view: %s\n", err);
        return 1;
    }
    return 0;
}

typedef struct svg_job {
    const vw_view *v;
    const vw_facts *f;
} svg_job;

static int svg_fn(const void *arg, FILE *o)
{
    const svg_job *j = arg;
    return j->v->svg(j->f, o);
}

static int html_fn(const void *arg, FILE *o)
{
    return vw_html_report(arg, o);
}

/* The export's output: standard output or FILE (written atomically),
 * gzip-compressed when asked. NULL with a message. */
typedef struct export_out {
    ecc_out *o;
    FILE *f;
} export_out;

static FILE *export_open(export_out *x, const char *path, unsigned flags, int gzip)
{
    char err[4400];
    x->o = NULL;
    if (path) {
        size_t n = strlen(path);
        gzip |= n > 3 && strcmp(path + n - 3, ".gz") == 0;
        if (ecc_out_open(path, flags, &x->o, err, sizeof err) != 0) {
            fprintf(stderr, "pal-view: %s\n", err);
            return NULL;
        }
    }
    int fd = dup(x->o ? ecc_out_fd(x->o) : 1);
    x->f = fd < 0 ? NULL : gzip ? vw_gzip_fdopen(fd) : fdopen(fd, "w");
    if (x->f == NULL) {
        fprintf(stderr, "pal-view: cannot write '%s': %s\n", path ? path : "stdout",
                strerror(errno));
        if (fd >= 0)
            close(fd);
        if (x->o)
            ecc_out_abort(x->o);
    }
    return x->f;
}

/* rc 0: commit; otherwise drop the output. 0, or 1 with a message. */
static int export_close(export_out *x, const char *path, int rc)
{
    char err[4400];
    if (x->f && fclose(x->f) != 0 && rc == 0) {
        fprintf(stderr, "pal-view: cannot write '%s': %s\n", path ? path : "stdout",
                strerror(errno));
        rc = 1;
    }
    x->f = NULL;
    if (x->o == NULL)
        return rc != 0;
    if (rc) {
        ecc_out_abort(x->o);
        return 1;
    }
    if (ecc_out_commit(x->o, err, sizeof err) != 0) {
        fprintf(stderr, "pal-view: %s\n", err);
        return 1;
    }
    return 0;
}

static int seconds(const char *opt, const char *s, double *out)
{
    char *end;
    *out = strtod(s, &end);
    if (end == s || *end || !(*out >= 0)) {
        fprintf(stderr, "pal-view: %s: expected seconds from the start, got '%s'\n", opt, s);
        return -1;
    }
    return 0;
}

static int selected(const char *const *sel, size_t nsel, const char *name)
{
    for (size_t i = 0; i < nsel; i++)
        if (strcmp(sel[i], name) == 0)
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    const char *dict = NULL, *conf = NULL, *svgdir = NULL, *export = NULL, *html = NULL;
    const char *sel[64];
    size_t nsel = 0;
    int list = 0;
    char err[512];
    unsigned out_flags = 0;
    const char *output = NULL;
    int gzip = 0;
    double from = 0, to = -1;
    int waits = -1, have_what_if = 0;
    double predict = 0;
    unsigned jobs = 1;
    int mpi = 0, plugins = 0;
    vw_what_if what_if;
    enum { O_PLUGIN = 256, O_LIST, O_VIEW, O_SVG, O_EXPORT, O_HTML, O_THROUGH, O_GZIP, O_FROM,
           O_SUGGEST, O_TO, O_WAITS, O_WHAT_IF, O_PREDICT, O_MPI };
    static const struct option longopts[] = {
        {"plugin", required_argument, NULL, O_PLUGIN}, {"list", no_argument, NULL, O_LIST},
        {"view", required_argument, NULL, O_VIEW},     {"svg", required_argument, NULL, O_SVG},
        {"export", required_argument, NULL, O_EXPORT}, {"html", required_argument, NULL, O_HTML},
        {"through", no_argument, NULL, O_THROUGH},     {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},           {"gzip", no_argument, NULL, O_GZIP},
        {"from", required_argument, NULL, O_FROM},     {"to", required_argument, NULL, O_TO},
        {"waits", optional_argument, NULL, O_WAITS},
        {"what-if", required_argument, NULL, O_WHAT_IF},
        {"predict", required_argument, NULL, O_PREDICT},
        {"suggest-filter", no_argument, NULL, O_SUGGEST},
        {"jobs", required_argument, NULL, 'j'},
        {"mpi", no_argument, NULL, O_MPI},
        {NULL, 0, NULL, 0}};
    vw_registry_init();
    /* --mpi runs pal-view-mpi with the arguments as given (getopt permutes
     * argv); kept for the program's life */
    static char **args;
    args = malloc(((size_t)argc + 1) * sizeof *args);
    if (args == NULL) {
        fprintf(stderr, "pal-view: out of memory\n");
        return 1;
    }
    memcpy(args, argv, ((size_t)argc + 1) * sizeof *args);
    int c;
    /* getopt's messages name the tool, not the path it was run by */
    argv[0] = (char *)"pal-view";
    while ((c = getopt_long(argc, argv, "d:c:o:j:hV", longopts, NULL)) != -1) {
        switch (c) {
        case 'd': dict = optarg; break;
        case 'c': conf = optarg; break;
        case O_PLUGIN:
            if (vw_plugin_load(optarg, err, sizeof err)) {
                fprintf(stderr, "pal-view: plugin: %s\n", err);
                return 1;
            }
            plugins = 1;
            break;
        case O_LIST: list = 1; break;
        case O_VIEW:
            if (nsel < sizeof sel / sizeof sel[0])
                sel[nsel++] = optarg;
            break;
        case O_SUGGEST:
            if (nsel < sizeof sel / sizeof sel[0])
                sel[nsel++] = "suggest-filter";
            break;
        case O_EXPORT:
            if (strcmp(optarg, "chrome") && strcmp(optarg, "csv") && strcmp(optarg, "otf2")) {
                fprintf(stderr, "pal-view: --export: expected chrome, csv or otf2\n");
                return 1;
            }
            export = optarg;
            break;
        case O_HTML:
        case O_SVG:
            /* `--html -o r.html` would write a file named "-o" */
            if (optarg[0] == '-' && optarg[1] != '\0') {
                fprintf(stderr, "pal-view: --%s takes its %s: --%s %s (got '%s')\n",
                        c == O_HTML ? "html" : "svg", c == O_HTML ? "file name" : "directory",
                        c == O_HTML ? "html" : "svg", c == O_HTML ? "FILE" : "DIR", optarg);
                return 1;
            }
            if (c == O_HTML)
                html = optarg;
            else
                svgdir = optarg;
            break;
        case O_THROUGH: out_flags |= ECC_OUT_THROUGH; break;
        case O_MPI: mpi = 1; break;
        case 'o': output = optarg; break;
        case 'j': {
            char *end;
            unsigned long n = strtoul(optarg, &end, 10);
            if (end == optarg || *end || optarg[0] == '-' || n < 1 || n > 1024) {
                fprintf(stderr, "pal-view: -j: expected a number of threads from 1 to 1024, "
                                "got '%s'\n",
                        optarg);
                return 1;
            }
            jobs = (unsigned)n;
            break;
        }
        case O_WHAT_IF:
            if (vw_what_if_parse(optarg, &what_if))
                return 1;
            have_what_if = 1;
            if (waits < 0)
                waits = VW_WAITS_TEXT;
            break;
        case O_PREDICT: {
            char *end;
            predict = strtod(optarg, &end);
            if (end == optarg || *end || !(predict >= 1)) {
                fprintf(stderr, "pal-view: --predict: expected a process count, got '%s'\n",
                        optarg);
                return 1;
            }
            break;
        }
        case O_WAITS:
            if (optarg == NULL || strcmp(optarg, "text") == 0)
                waits = VW_WAITS_TEXT;
            else if (strcmp(optarg, "csv") == 0)
                waits = VW_WAITS_CSV;
            else if (strcmp(optarg, "json") == 0)
                waits = VW_WAITS_JSON;
            else {
                fprintf(stderr, "pal-view: --waits: expected text, csv or json, got '%s'\n",
                        optarg);
                return 1;
            }
            break;
        case O_GZIP: gzip = 1; break;
        case O_FROM:
            if (seconds("--from", optarg, &from))
                return 1;
            break;
        case O_TO:
            if (seconds("--to", optarg, &to))
                return 1;
            break;
        case 'h': usage(stdout); return 0;
        case 'V': printf("pal-view (%s) %s\n", PACKAGE_NAME, PACKAGE_VERSION); return 0;
        default: usage(stderr); return 1;
        }
    }
    vw_config cfg;
    if (conf ? vw_config_load(conf, &cfg, err, sizeof err)
             : vw_config_parse(vw_default_config, &cfg, err, sizeof err)) {
        fprintf(stderr, "pal-view: %s: %s\n", conf ? conf : "default config", err);
        return 1;
    }
    for (size_t i = 0; i < cfg.n; i++)
        if (vw_registry_find(cfg.e[i].concrete) == NULL)
            fprintf(stderr, "pal-view: %s: unknown view '%s' (group %s)\n",
                    conf ? conf : "default config", cfg.e[i].concrete, cfg.e[i].group);
    for (size_t i = 0; i < nsel; i++)
        if (vw_registry_find(sel[i]) == NULL) {
            fprintf(stderr, "pal-view: unknown view '%s' (see --list)\n", sel[i]);
            vw_config_free(&cfg);
            return 1;
        }
    if (list) {
        for (size_t i = 0; i < vw_registry_count(); i++) {
            const vw_view *v = vw_registry_get(i);
            printf("%-20s %s%s%s\n", v->name, v->description,
                   v->text ? " [text]" : "", v->svg ? " [svg]" : "");
        }
        printf("\ngroups (%s):\n", conf ? conf : "default");
        for (size_t i = 0; i < cfg.n; i++)
            printf("  %s: %s: %s\n", cfg.e[i].group, cfg.e[i].abstract, cfg.e[i].concrete);
        if (optind == argc) {
            vw_config_free(&cfg);
            return 0;
        }
    }
    if (optind == argc) {
        usage(stderr);
        vw_config_free(&cfg);
        return 1;
    }
    const char *no_pack = mpi ? vw_run_unpackable() : NULL;
    if (no_pack) {
        fprintf(stderr, "pal-view: --mpi: the analysis '%s' cannot send its partial results "
                        "between processes (no pack operation); leave out --mpi\n",
                no_pack);
        vw_config_free(&cfg);
        return 1;
    }
    if (predict > 0) {
        vw_config_free(&cfg);
        if (have_what_if || export || html || svgdir || nsel || gzip) {
            fprintf(stderr, "pal-view: --predict goes with no other output option than -o\n");
            return 1;
        }
        /* --waits=csv|json: the prediction in that form; -o FILE: a run of
         * NP ranks synthesized too (views/synth.c). --mpi: process 0 reads
         * the small runs alone and writes it; the others wait for its status */
        if (mpi && vw_mpi_begin(argc, args))
            return 1;
        if (!vw_mpi_root())
            return vw_mpi_end(0);
        int form = waits >= 0 ? waits : VW_WAITS_TEXT;
        int prc = output ? vw_synth_predict(predict, (const char *const *)argv + optind,
                                            (size_t)(argc - optind), dict, form, output,
                                            out_flags & ECC_OUT_THROUGH ? PAL_OUT_THROUGH : 0,
                                            stdout)
                         : vw_predict_run(predict, (const char *const *)argv + optind,
                                          (size_t)(argc - optind), dict, form, stdout);
        if (fflush(stdout))
            prc = -1;
        return vw_mpi_end(prc ? 1 : 0);
    }
    if (waits >= 0) {
        vw_config_free(&cfg);
        if (export || html || svgdir || nsel || gzip || (output && !have_what_if)) {
            fprintf(stderr, "pal-view: --waits goes with no --export, --html, --svg, --view, "
                            "--gzip or -o (-o FILE goes with --what-if)\n");
            return 1;
        }
        /* --mpi: every process keeps the wait states of its shares, and
         * process 0 writes them from the merged run; --what-if -o retimes
         * the records in their order, which process 0 reads alone */
        if (mpi && vw_mpi_begin(argc, args))
            return 1;
        /* the tables and replays print nothing of the other analyses (every
         * process runs the same ones); -o reads the run with them */
        static const vw_analysis *const need[] = {&vw_an_waits};
        vw_run_need(need, 1, output != NULL);
        if (!vw_mpi_root())
            return vw_mpi_end(vw_mpi_worker((const char *const *)argv + optind,
                                            (size_t)(argc - optind), dict, output != NULL, jobs)
                                  ? 1
                                  : 0);
        int wrc;
        if (output) {   /* --what-if SPEC -o FILE: the predicted run written as a trace too */
            wrc = vw_synth_what_if((const char *const *)argv + optind, (size_t)(argc - optind),
                                   dict, waits, &what_if, output,
                                   out_flags & ECC_OUT_THROUGH ? PAL_OUT_THROUGH : 0, stdout);
        } else {
            vw_run *run = NULL;
            wrc = vw_mpi_run_traces((const char *const *)argv + optind, (size_t)(argc - optind),
                                    dict, NULL, jobs, &run);
            if (wrc >= 0 && vw_waits_write(run, waits, have_what_if ? &what_if : NULL, stdout))
                wrc = -1;
            vw_run_free(run);
        }
        if (fflush(stdout))
            wrc = -1;
        return vw_mpi_end(wrc < 0 ? 1 : wrc ? 2 : 0);
    }
    if (export && strcmp(export, "otf2") == 0) {
        vw_config_free(&cfg);
        if (!output) {
            fprintf(stderr, "pal-view: --export otf2 needs -o DIR (the archive's directory)\n");
            return 1;
        }
        if (gzip || from != 0 || to >= 0) {
            fprintf(stderr, "pal-view: --export otf2 takes no --gzip, --from or --to\n");
            return 1;
        }
#ifdef HAVE_OTF2
        /* --mpi: process 0 reads the run alone and writes the archive, as
         * for the other outputs in time order (its definitions are numbered
         * in the order one reader meets them); the others wait for its
         * status */
        if (mpi && vw_mpi_begin(argc, args))
            return 1;
        if (!vw_mpi_root())
            return vw_mpi_end(0);
        return vw_mpi_end(vw_otf2_export((const char *const *)argv + optind,
                                         (size_t)(argc - optind), dict, output, out_flags, 0));
#else
        fprintf(stderr, "pal-view: --export otf2: this pal-view was built without OTF2 "
                "(configure found no libotf2; Debian: libotf2-trace-dev)\n");
        return 1;
#endif
    }
    /* --from/--to: the Chrome export's window, the text profile's and the
     * report's (views/timeline.c); refused where a view would ignore it */
    int windowed = from != 0 || to >= 0;
    if (windowed && (to >= 0 && !(to > from))) {
        fprintf(stderr, "pal-view: --to %g must be after --from %g\n", to, from);
        vw_config_free(&cfg);
        return 1;
    }
    if (windowed && (svgdir || (export && strcmp(export, "csv") == 0) ||
                     (nsel && !(nsel == 1 && strcmp(sel[0], "profile") == 0)))) {
        fprintf(stderr, "pal-view: --from/--to select a window for --export chrome, --html and "
                        "the text profile; %s the whole run (leave out --from/--to)\n",
                svgdir ? "the SVG pictures show" : nsel ? "the other views show" : "the CSV holds");
        vw_config_free(&cfg);
        return 1;
    }
    int rc = 0;
    vw_sink sink, *sinkp = NULL;
    vw_chrome *chrome = NULL;
    export_out xo = {NULL, NULL};
    FILE *xf = NULL;
    if ((output || gzip) && !export) {
        fprintf(stderr, "pal-view: -o and --gzip go with --export\n");
        vw_config_free(&cfg);
        return 1;
    }
    /* each lane's time bins: drawn by the pictures and the report, and
     * perhaps by a plugin's view; the text views and the CSV need none
     * (every process of --mpi says the same) */
    vw_lane_bins_want(html || svgdir || plugins);
    /* --mpi: process 0 goes on and writes the outputs; the others read
     * their shares and send them (or, for the outputs in time order that
     * one process reads, nothing) */
    if (mpi) {
        int ordered = (export && strcmp(export, "chrome") == 0) || html || svgdir || windowed;
        if (vw_mpi_begin(argc, args)) {
            vw_config_free(&cfg);
            return 1;
        }
        if (!vw_mpi_root()) {
            int wrc = vw_mpi_worker((const char *const *)argv + optind, (size_t)(argc - optind),
                                    dict, ordered, jobs);
            vw_config_free(&cfg);
            return vw_mpi_end(wrc ? 1 : 0);
        }
    }
    if (export && (xf = export_open(&xo, output, out_flags, gzip)) == NULL) {
        vw_config_free(&cfg);
        return 1;
    }
    if (export && strcmp(export, "chrome") == 0) {
        chrome = vw_chrome_begin(xf, from, to);
        if (chrome == NULL) {
            export_close(&xo, output, 1);
            vw_config_free(&cfg);
            return 1;
        }
        vw_chrome_sink(chrome, &sink);
        sinkp = &sink;
    }
    vw_timeline *tl = NULL;   /* the pictures' and the report's timeline summary */
    vw_sink tsink, both;
    vw_sink_pair both_pair, all_pair;
    if ((html || svgdir || windowed) && (tl = vw_timeline_create()) != NULL) {
        if (windowed)
            vw_timeline_window(tl, from, to);
        vw_timeline_sink(tl, &tsink);
        vw_sink_tee(&both, &both_pair, &tsink, sinkp);
        sinkp = &both;
        vw_timeline_set_current(tl);
    }
    /* progress on a terminal: the percentage for one input file */
    struct stat st;
    uint64_t size = argc - optind == 1 && stat(argv[optind], &st) == 0 && S_ISREG(st.st_mode)
                        ? (uint64_t)st.st_size
                        : 0;
    char what[256];
    snprintf(what, sizeof what, "reading %s%s", argv[optind], argc - optind > 1 ? " ..." : "");
    /* -j: the shares of the streams in threads; the outputs that follow the
     * records in time order (Chrome, the timeline of --html, --svg and a
     * window) are made by one */
    if (sinkp)
        jobs = 1;
    vw_progress *prog = jobs > 1 || mpi ? NULL : vw_progress_start(what, size);
    vw_sink psink, all;
    if (prog) {
        vw_progress_sink(prog, &psink);
        vw_sink_tee(&all, &all_pair, &psink, sinkp);
        sinkp = &all;
    }
    vw_run *run = NULL;
    static const vw_analysis *const report[] = {&vw_an_waits};
    vw_run_need(report, html != NULL, 1);   /* the report's wait states, from the same pass */
    int partial = mpi ? vw_mpi_run_traces((const char *const *)argv + optind,
                                          (size_t)(argc - optind), dict, sinkp, jobs, &run)
                      : vw_run_traces_jobs((const char *const *)argv + optind,
                                           (size_t)(argc - optind), dict, sinkp, jobs, &run);
    if (partial < 0) {
        vw_progress_end(prog);
        vw_timeline_destroy(tl);
        vw_run_free(run);
        vw_config_free(&cfg);
        if (chrome)
            vw_chrome_end(chrome, NULL);
        if (export)
            export_close(&xo, output, 1);
        return vw_mpi_end(1);
    }
    const vw_facts *f = vw_run_facts(run);
    int quiet_text = 0;
    if (export)
        vw_progress_phase(prog, "writing the export");
    if (chrome) {
        rc |= vw_chrome_end(chrome, f) != 0;
        quiet_text = 1;
    } else if (export) {
        rc |= vw_export_csv(f, xf) != 0;
        quiet_text = 1;
    }
    if (export)
        rc |= export_close(&xo, output, rc);
    if (svgdir) {
        char derr[4400];
        int created;
        if (ecc_out_dir(svgdir, out_flags, &created, derr, sizeof derr) != 0) {
            fprintf(stderr, "pal-view: %s\n", derr);
            rc = 1;
        }
        quiet_text = 1;
        for (size_t i = 0; i < vw_registry_count() && rc == 0; i++) {
            const vw_view *v = vw_registry_get(i);
            int want = nsel ? selected(sel, nsel, v->name) : 0;
            for (size_t k = 0; !nsel && k < cfg.n; k++)
                if (strcmp(cfg.e[k].concrete, v->name) == 0)
                    want = 1;
            if (!want || v->svg == NULL)
                continue;
            char path[4096];
            snprintf(path, sizeof path, "%s/%s.svg", svgdir, v->name);
            svg_job j = { v, f };
            vw_progress_phase(prog, path);
            rc |= write_output(path, out_flags, svg_fn, &j);
        }
    }
    if (html) {
        quiet_text = 1;
        vw_waits_source(run);
        snprintf(what, sizeof what, "writing %s", html);
        vw_progress_phase(prog, what);
        rc |= write_output(html, out_flags, html_fn, f);
    }
    vw_progress_end(prog);
    if (windowed && (!quiet_text || (nsel && !html && !export))) {
        if (tl == NULL) {
            fprintf(stderr, "pal-view: out of memory for the window profile\n");
            rc = 1;
        } else {
            rc |= vw_timeline_window_text(tl, f, stdout) != 0;
        }
    } else if (!quiet_text || (nsel && !svgdir && !html && !export)) {
        if (nsel == 0) {
            rc |= vw_view_profile.text(f, stdout);
        } else {
            for (size_t i = 0; i < nsel; i++) {
                const vw_view *v = vw_registry_find(sel[i]);
                if (v->text == NULL) {
                    fprintf(stderr, "pal-view: view '%s' has no text form (use --svg)\n",
                            v->name);
                    rc = 1;
                    continue;
                }
                if (i)
                    fputc('\n', stdout);
                rc |= v->text(f, stdout);
            }
        }
    }
    vw_timeline_destroy(tl);
    vw_run_free(run);
    vw_config_free(&cfg);
    if (fflush(stdout))
        rc = 1;
    return vw_mpi_end(rc ? 1 : partial ? 2 : 0);
}
