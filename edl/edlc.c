/* edlc.c -- the EDL compiler's command line (a thin driver over libedl):
 * compile a trace descriptor to its binary dictionary, check it, or print a
 * dictionary back as EDL. See edlc(1). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "container/container.h"
#include "edl/edl.h"

static const char *prog = "edlc";

static void usage(FILE *f)
{
    fprintf(f,
            "usage: %s [-o OUT] FILE.edl      compile to a binary dictionary (default OUT:\n"
            "                                  FILE.bin; '-' writes to standard output)\n"
            "       %s --check FILE.edl       report problems only, write nothing\n"
            "       %s --print FILE           print a dictionary (.bin), the dictionary of\n"
            "                                  an ECL trace, or a compiled .edl as EDL\n"
            "options: --werror (warnings are errors), --through (write into an -o that is\n"
            "         a device, FIFO or symbolic link), -h/--help, -V/--version\n"
            "exit status: 0 success; 1 errors (bad usage, bad EDL, an unreadable input,\n"
            "         an output that cannot be written)\n",
            prog, prog, prog);
}

typedef struct sink {
    unsigned warnings;
} sink;

static void on_diag(void *ctx, const edl_diagnostic *d)
{
    sink *s = ctx;
    if (d->severity == EDL_SEV_WARNING)
        s->warnings++;
    char *text = edl_diagnostic_format(d);
    if (text)
        fputs(text, stderr);
    free(text);
}

/* Reads path ("-": standard input) whole, up to EDL_SOURCE_MAX bytes: a
 * larger input is refused -- unless it is an ECL trace, of which only the
 * header (with its dictionary) at the start is needed. */
static int read_all(const char *path, unsigned char **buf, size_t *len)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "%s: cannot open '%s': %s\n", prog, path, strerror(errno));
        return -1;
    }
    size_t cap = 65536, n = 0;
    unsigned char *p = malloc(cap);
    int oom = !p;
    while (p && n <= EDL_SOURCE_MAX) {
        size_t got = fread(p + n, 1, cap - n, f);
        n += got;
        if (got == 0)
            break;
        if (n == cap) {
            unsigned char *np = realloc(p, cap *= 2);
            if (!np) {
                free(p);
                oom = 1;
            }
            p = np;
        }
    }
    int err = !p || ferror(f);
    if (f != stdin)
        fclose(f);
    if (err) {
        fprintf(stderr, "%s: cannot read '%s': %s\n", prog, path,
                oom ? "out of memory" : strerror(errno));
        free(p);
        return -1;
    }
    if (n > EDL_SOURCE_MAX && !(n >= 8 && memcmp(p, ECC_FILE_MAGIC, 8) == 0)) {
        fprintf(stderr, "%s: '%s': larger than %zu MiB, so neither an EDL source nor a "
                "dictionary (edlc's limit, doc/edl.md)\n", prog, path, EDL_SOURCE_MAX >> 20);
        free(p);
        return -1;
    }
    *buf = p;
    *len = n;
    return 0;
}

/* The dictionary in path: a binary dictionary, the one embedded in an ECL
 * trace, or an EDL source compiled in memory. */
static int load(const char *path, sink *s, edl_dict **out)
{
    unsigned char *buf;
    size_t len;
    if (read_all(path, &buf, &len))
        return -1;
    char err[256];
    edl_status st;
    if (len >= 8 && memcmp(buf, EDL_DICT_MAGIC, 8) == 0) {
        st = edl_dict_decode(buf, len, out, err, sizeof err);
    } else if (len >= 8 && memcmp(buf, ECC_FILE_MAGIC, 8) == 0) {
        /* an ECL trace: the dictionary its header embeds (the container
         * codec checks the header) */
        ecc_file_header h;
        uint64_t at;
        const char *why = ecc_file_header_decode_fixed(buf, len, &h, &at);
        if (!why && h.header_length > len) {
            why = "file header truncated";
            at = len;
        }
        if (!why && (why = ecc_file_header_check_crc(buf, &h)) != NULL)
            at = 16;
        if (why) {
            snprintf(err, sizeof err, "%s at byte %llu", why, (unsigned long long)at);
            st = EDL_EFORMAT;
        } else {
            uint8_t *dict;
            size_t dlen;
            if ((why = ecc_file_header_dict(buf, &h, &dict, &dlen)) != NULL) {
                snprintf(err, sizeof err, "%s at byte %u", why, (unsigned)h.dict_offset);
                st = EDL_EFORMAT;
            } else {
                st = edl_dict_decode(dict, dlen, out, err, sizeof err);
                free(dict);
            }
        }
    } else {
        st = edl_compile_string(path, (const char *)buf, len, on_diag, s, out);
        free(buf);
        return st == EDL_OK ? 0 : -1;
    }
    free(buf);
    if (st != EDL_OK) {
        fprintf(stderr, "%s: %s: %s\n", prog, path, *err ? err : edl_status_string(st));
        return -1;
    }
    return 0;
}

static char *default_output(const char *in)
{
    size_t n = strlen(in);
    if (n > 4 && strcmp(in + n - 4, ".edl") == 0)
        n -= 4;
    char *out = malloc(n + 5);
    if (out) {
        memcpy(out, in, n);
        memcpy(out + n, ".bin", 5);
    }
    return out;
}

/* Writes atomically (container/container.h, "output files"): nothing
 * partial is ever left under path; a device, FIFO or symbolic link is
 * refused unless `through`. */
static int write_file(const char *path, const unsigned char *buf, size_t len, int through)
{
    if (strcmp(path, "-") == 0) {
        if (fwrite(buf, 1, len, stdout) != len || fflush(stdout)) {
            fprintf(stderr, "%s: cannot write to standard output\n", prog);
            return -1;
        }
        return 0;
    }
    char err[4400];
    ecc_out *o;
    if (ecc_out_open(path, through ? ECC_OUT_THROUGH : 0, &o, err, sizeof err) != 0)
        goto fail;
    if (ecc_out_write(o, buf, len, err, sizeof err) != 0) {
        ecc_out_abort(o);
        goto fail;
    }
    if (ecc_out_commit(o, err, sizeof err) != 0)
        goto fail;
    return 0;
fail:
    fprintf(stderr, "%s: %s\n", prog, err);
    return -1;
}

int main(int argc, char **argv)
{
    enum { COMPILE, CHECK, PRINT } mode = COMPILE;
    const char *in = NULL, *out = NULL;
    int werror = 0, through = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--check") == 0) {
            mode = CHECK;
        } else if (strcmp(a, "--print") == 0) {
            mode = PRINT;
        } else if (strcmp(a, "--werror") == 0) {
            werror = 1;
        } else if (strcmp(a, "--through") == 0) {
            through = 1;
        } else if (strcmp(a, "-o") == 0 && i + 1 < argc) {
            out = argv[++i];
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--version") == 0 || strcmp(a, "-V") == 0) {
            /* as every tool says it (doc/tools.md), and the dictionary format */
            printf("edlc (%s) %s, dictionary format %d.%d\n", PACKAGE_NAME, PACKAGE_VERSION,
                   EDL_DICT_VERSION_MAJOR, EDL_DICT_VERSION_MINOR);
            return 0;
        } else if (a[0] == '-' && a[1] != 0) {
            fprintf(stderr, "%s: unknown option '%s'\n", prog, a);
            usage(stderr);
            return 1;
        } else if (!in) {
            in = a;
        } else {
            fprintf(stderr, "%s: more than one input ('%s' and '%s')\n", prog, in, a);
            return 1;
        }
    }
    if (!in || (out && mode != COMPILE)) {
        usage(stderr);
        return 1;
    }

    sink s = {0};
    edl_dict *d = NULL;
    int rc = 1;
    char *def = NULL;
    unsigned char *bin = NULL;
    char *text = NULL;
    if (mode == PRINT) {
        if (load(in, &s, &d) == 0 && !(werror && s.warnings)) {
            size_t len;
            if (edl_dict_print(d, &text, &len) == EDL_OK && fwrite(text, 1, len, stdout) == len)
                rc = 0;
        }
        goto done;
    }
    /* read here, as --print does: a file that cannot be read is the tool's
     * message ("edlc: cannot open ..."), not a diagnostic of the source */
    unsigned char *src;
    size_t srclen;
    if (read_all(in, &src, &srclen) != 0)
        goto done;
    edl_status st = edl_compile_string(in, (const char *)src, srclen, on_diag, &s, &d);
    free(src);
    if (st != EDL_OK || (werror && s.warnings))
        goto done;
    if (mode == CHECK) {
        rc = 0;
        goto done;
    }
    size_t len;
    if (!out)
        out = def = default_output(in);
    if (out && edl_dict_encode(d, &bin, &len) == EDL_OK && write_file(out, bin, len, through) == 0)
        rc = 0;
done:
    if (rc == 0 && fflush(stdout) != 0)
        rc = 1;
    free(text);
    free(bin);
    free(def);
    edl_dict_destroy(d);
    return rc;
}
