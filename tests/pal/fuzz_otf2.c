/* fuzz_otf2.c -- libFuzzer target for PAL's OTF2 import (pal/otf2.c): the
 * input is an OTF2 archive, one file after the other, each as one byte
 * naming it (& 7: 1 traces.def, 2 traces/0.evt, 3 traces/0.def, 4
 * traces/1.evt, 5 traces/1.def; 0, 6, 7 skipped), a 16-bit little-endian
 * length and its bytes (cut at the input's end). The anchor file is always
 * tests/pal/fuzz-otf2-anchor (otf2-writer's): libotf2 trusts the sizes an
 * anchor file gives and allocates them (gigabytes) before PAL sees
 * anything. The archive is written into a fresh directory and read through
 * pal_reader_open, every record formatted. The seeds (tests/pal/fuzz-corpus-otf2) are the archives
 * of tests/pal/otf2-writer, whole and "broken". Built with ./configure
 * --enable-fuzz CC=clang when libotf2 is found; tests/pal/fuzz.sh runs it
 * for a bounded time. */
#include <config.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pal/pal.h"

static char dir[64];
static unsigned char anchor[4096];
static size_t anchor_len;
static const char *const names[] = { "traces.otf2", "traces.def", "traces/0.evt",
                                     "traces/0.def", "traces/1.evt", "traces/1.def" };
#define NNAMES (sizeof names / sizeof *names)

static void quiet(void *ctx, const char *msg)
{
    (void)ctx;
    (void)msg;
}

static void path_of(char *p, size_t n, size_t i)
{
    snprintf(p, n, "%s/%s", dir, names[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char p[128];
    if (!dir[0]) {
        snprintf(dir, sizeof dir, "/tmp/pal-fuzz-otf2-%ld", (long)getpid());
        mkdir(dir, 0777);
        snprintf(p, sizeof p, "%s/traces", dir);
        mkdir(p, 0777);
        FILE *a = fopen(PAL_FUZZ_SRCDIR "/tests/pal/fuzz-otf2-anchor", "rb");
        anchor_len = a ? fread(anchor, 1, sizeof anchor, a) : 0;
        if (!a || anchor_len == 0)
            abort();
        fclose(a);
    }
    for (size_t i = 1; i < NNAMES; i++) {
        path_of(p, sizeof p, i);
        unlink(p);
    }
    size_t at = 0;
    while (at + 3 <= size) {
        size_t which = data[at] & 7, len = (size_t)data[at + 1] | (size_t)data[at + 2] << 8;
        at += 3;
        if (len > size - at)
            len = size - at;
        if (which > 0 && which < NNAMES) {
            path_of(p, sizeof p, which);
            FILE *f = fopen(p, "wb");
            if (!f)
                abort();
            if (len && fwrite(data + at, 1, len, f) != len)
                abort();
            fclose(f);
        }
        at += len;
    }
    path_of(p, sizeof p, 0);
    FILE *f = fopen(p, "wb");
    if (!f || fwrite(anchor, 1, anchor_len, f) != anchor_len || fclose(f) != 0)
        abort();
    pal_reader *r;
    if (pal_reader_open(p, NULL, &r) != PAL_OK)
        return 0;
    pal_reader_set_diag(r, quiet, NULL);
    const pal_record *rec;
    char buf[128];
    while (pal_reader_next(r, &rec) == PAL_OK) {
        const pal_recdesc *rd = pal_record_desc(rec);
        for (size_t k = 0; k < pal_recdesc_field_count(rd); k++)
            pal_record_format(rec, k, buf, sizeof buf);
        (void)pal_record_time_ns(rec);
    }
    pal_reader_stats st;
    pal_reader_get_stats(r, &st);
    (void)pal_stats_partial(&st);
    pal_reader_close(r);
    return 0;
}
