/* fuzz_ascii.c -- libFuzzer target for PAL's ascii reader. The first input
 * byte picks one of the shipped ascii descriptors (PICL, old PICL, the
 * tutorial's CSV-like log: merged and single separators, quotes with escapes
 * and doubled quotes, optional fields, counted, REST and format-shaped arrays,
 * a default record; toymp and a golden roles case: references, roles that
 * depend on a string field, a timestamp by role); the rest is the trace text.
 * Every record is read, every field formatted and fetched, by name and by
 * role, and fed to a name table that resolves every reference. Built with ./configure --enable-fuzz CC=clang;
 * tests/pal/fuzz.sh runs it for a bounded time. */
#include <config.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "edl/edl.h"
#include "pal/pal.h"

#ifndef PAL_FUZZ_SRCDIR
#define PAL_FUZZ_SRCDIR "."
#endif

static const char *dicts[] = {
    PAL_FUZZ_SRCDIR "/edl/formats/picl.edl",
    PAL_FUZZ_SRCDIR "/edl/formats/picl1.edl",
    PAL_FUZZ_SRCDIR "/tests/edl/tutorial/applog.edl",
    PAL_FUZZ_SRCDIR "/edl/formats/toymp.edl",
    PAL_FUZZ_SRCDIR "/tests/edl/accept/roles_ascii.edl",
};
#define NDICTS (sizeof dicts / sizeof dicts[0])
static char path[64];
static char bins[NDICTS][64];  /* the descriptors compiled once, binary */

static void setup(void)
{
    snprintf(path, sizeof path, "/tmp/pal-fuzz-ascii-%ld.txt", (long)getpid());
    for (size_t i = 0; i < NDICTS; i++) {
        edl_dict *d;
        unsigned char *b;
        size_t n;
        if (edl_compile_file(dicts[i], NULL, NULL, &d) != EDL_OK ||
            edl_dict_encode(d, &b, &n) != EDL_OK)
            abort();
        snprintf(bins[i], sizeof bins[i], "/tmp/pal-fuzz-dict-%ld-%zu.bin", (long)getpid(), i);
        FILE *f = fopen(bins[i], "wb");
        if (!f || fwrite(b, 1, n, f) != n)
            abort();
        fclose(f);
        free(b);
        edl_dict_destroy(d);
    }
}

static void quiet(void *ctx, const char *msg)
{
    (void)ctx;
    (void)msg;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    if (!path[0])
        setup();
    FILE *f = fopen(path, "wb");
    if (!f)
        return 0;
    fwrite(data + 1, 1, size - 1, f);
    fclose(f);
    pal_reader *r;
    if (pal_reader_open(path, bins[(data[0] & 0x7f) % NDICTS], &r) != PAL_OK) {
        /* the dictionaries are good and any file opens, except an OTF2
         * anchor's magic at byte 2, refused with a dictionary by design */
        if (size >= 8 && memcmp(data + 3, "OTF2", 5) == 0)
            return 0;
        abort();
    }
    pal_reader_set_diag(r, quiet, NULL);
    pal_reader_set_strict(r, data[0] & 0x80);
    pal_names *names;
    if (pal_names_create(&names) != PAL_OK)
        abort();
    const pal_handle *roles[PAL_FROLE_LIMIT] = {NULL};
    for (int k = 1; k < PAL_FROLE_LIMIT; k++)
        if (pal_reader_role_handle(r, (pal_field_role)k, &roles[k]) != PAL_OK)
            roles[k] = NULL;
    const pal_record *rec;
    char buf[64];
    while (pal_reader_next(r, &rec) == PAL_OK) {
        const pal_recdesc *rd = pal_record_desc(rec);
        (void)pal_record_time_ns(rec);
        if (pal_names_add(names, rec) != PAL_OK)
            abort();
        int64_t ns;
        const char *nm;
        size_t nl;
        (void)pal_record_duration_ns(rec, &ns);
        (void)pal_names_thread(names, rec, &nm, &nl);
        (void)pal_names_process(names, rec, &nm, &nl);
        for (int k = 1; k < PAL_ROLE_LIMIT; k++)
            (void)pal_record_has_role(rec, (pal_record_role)k);
        for (int k = 1; k < PAL_FROLE_LIMIT; k++) {
            int64_t iv;
            if (roles[k]) {
                (void)pal_record_i64(rec, roles[k], &iv);
                (void)pal_names_handle(names, rec, roles[k], &nm, &nl);
            }
        }
        for (size_t i = 0; i < pal_recdesc_field_count(rd); i++) {
            const char *name = pal_field_name(pal_recdesc_field(rd, i));
            pal_record_format(rec, i, buf, sizeof buf);
            int64_t iv;
            double dv;
            const char *s;
            size_t n = 0, nc = 0;
            (void)pal_record_get_i64(rec, name, &iv);
            (void)pal_record_get_f64(rec, name, &dv);
            (void)pal_record_get_str(rec, name, &s, &n);
            (void)pal_names_field(names, rec, i, &s, &n);
            if (pal_record_get_count(rec, name, &n) == PAL_OK &&
                pal_record_get_components(rec, name, &nc) == PAL_OK)
                for (size_t it = 0; it < n; it++)
                    for (size_t c = 0; c <= nc; c++) {
                        (void)pal_record_get_item_i64(rec, name, it, c, &iv);
                        (void)pal_record_get_item_f64(rec, name, it, c, &dv);
                        (void)pal_record_get_item_str(rec, name, it, c, &s, &n);
                    }
        }
    }
    pal_names_destroy(names);
    pal_reader_close(r);
    return 0;
}
