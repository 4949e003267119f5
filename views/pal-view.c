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
 *     --export chrome|csv   write the Chrome trace-event JSON or CSV to stdout
 *     --export otf2 -o DIR  write an OTF2 archive DIR/traces.otf2 (views/otf2.c)
 *     --html FILE      write one self-contained HTML report with an animator
 */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <unistd.h>

#include "container/container.h"
#include "views/vw.h"
#ifdef HAVE_OTF2
#include "views/otf2.h"
#endif

static void usage(FILE *out)
{
    fputs("usage: pal-view [-d DICT] [-c VIEWS.CONF] [--plugin SO]... [--list]\n"
          "                [--view NAME]... [--svg DIR] [--export chrome|csv]\n"
          "                [--export otf2 -o DIR]\n"
          "                [--html FILE] [--through] TRACE...\n"
          "TRACE: a trace, or the per-rank traces of a run (files or their directory),\n"
          "read as one stream. --through: write into an --html FILE (or SVG files) that\n"
          "is a device, FIFO or symbolic link (otherwise refused).\n"
          "exit status: 0 success; 1 usage error, unreadable trace or output not\n"
          "written; 2 drawn, but damage was found or the traces are partial\n",
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

static int selected(const char *const *sel, size_t nsel, const char *name)
{
    for (size_t i = 0; i < nsel; i++)
        if (strcmp(sel[i], name) == 0)
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    const char *dict = NULL, *conf = NULL, *svgdir = NULL, *export = NULL, *html = NULL,
               *outdir = NULL;
    const char *sel[64];
    size_t nsel = 0;
    int list = 0;
    char err[512];
    unsigned out_flags = 0;
    enum { O_PLUGIN = 256, O_LIST, O_VIEW, O_SVG, O_EXPORT, O_HTML, O_THROUGH };
    static const struct option longopts[] = {
        {"plugin", required_argument, NULL, O_PLUGIN}, {"list", no_argument, NULL, O_LIST},
        {"view", required_argument, NULL, O_VIEW},     {"svg", required_argument, NULL, O_SVG},
        {"export", required_argument, NULL, O_EXPORT}, {"html", required_argument, NULL, O_HTML},
        {"through", no_argument, NULL, O_THROUGH},     {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},           {NULL, 0, NULL, 0}};
    vw_registry_init();
    int c;
    while ((c = getopt_long(argc, argv, "d:c:o:hV", longopts, NULL)) != -1) {
        switch (c) {
        case 'd': dict = optarg; break;
        case 'c': conf = optarg; break;
        case 'o': outdir = optarg; break;
        case O_PLUGIN:
            if (vw_plugin_load(optarg, err, sizeof err)) {
                fprintf(stderr, "pal-view: plugin: %s\n", err);
                return 1;
            }
            break;
        case O_LIST: list = 1; break;
        case O_VIEW:
            if (nsel < sizeof sel / sizeof sel[0])
                sel[nsel++] = optarg;
            break;
        case O_SVG: svgdir = optarg; break;
        case O_EXPORT:
            if (strcmp(optarg, "chrome") && strcmp(optarg, "csv") && strcmp(optarg, "otf2")) {
                fprintf(stderr, "pal-view: --export: expected chrome, csv or otf2\n");
                return 1;
            }
            export = optarg;
            break;
        case O_HTML: html = optarg; break;
        case O_THROUGH: out_flags |= ECC_OUT_THROUGH; break;
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
    if (export && strcmp(export, "otf2") == 0) {
        vw_config_free(&cfg);
        if (!outdir) {
            fprintf(stderr, "pal-view: --export otf2 needs -o DIR (the archive's directory)\n");
            return 1;
        }
#ifdef HAVE_OTF2
        return vw_otf2_export((const char *const *)argv + optind, (size_t)(argc - optind), dict,
                              outdir, 0);
#else
        fprintf(stderr, "pal-view: --export otf2: this pal-view was built without OTF2 "
                "(configure found no libotf2; Debian: libotf2-trace-dev)\n");
        return 1;
#endif
    }
    int rc = 0;
    vw_sink sink, *sinkp = NULL;
    vw_chrome *chrome = NULL;
    if (export && strcmp(export, "chrome") == 0) {
        chrome = vw_chrome_begin(stdout, 0);
        if (chrome == NULL)
            return 1;
        vw_chrome_sink(chrome, &sink);
        sinkp = &sink;
    }
    vw_run *run = NULL;
    int partial = vw_run_traces((const char *const *)argv + optind, (size_t)(argc - optind), dict,
                                sinkp, &run);
    if (partial < 0) {
        vw_run_free(run);
        vw_config_free(&cfg);
        if (chrome)
            vw_chrome_end(chrome, NULL);
        return 1;
    }
    const vw_facts *f = vw_run_facts(run);
    int quiet_text = 0;
    if (chrome) {
        rc |= vw_chrome_end(chrome, f);
        quiet_text = 1;
    } else if (export) {
        rc |= vw_export_csv(f, stdout);
        quiet_text = 1;
    }
    if (svgdir) {
        quiet_text = 1;
        if (mkdir(svgdir, 0777) && errno != EEXIST) {
            fprintf(stderr, "pal-view: %s: %s\n", svgdir, strerror(errno));
            rc = 1;
        }
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
            rc |= write_output(path, out_flags, svg_fn, &j);
        }
    }
    if (html) {
        quiet_text = 1;
        rc |= write_output(html, out_flags, html_fn, f);
    }
    if (!quiet_text || (nsel && !svgdir && !html && !export)) {
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
    vw_run_free(run);
    vw_config_free(&cfg);
    if (fflush(stdout))
        rc = 1;
    return rc ? 1 : partial ? 2 : 0;
}
