/* fuzz_binary.c -- libFuzzer target for PAL's binary (ECL container) reader
 * and, through the first input byte, its run reader and the merge:
 *   byte 0 & 3 == 0: the input (from byte 3 on) is one trace, read alone;
 *               1: it is split in two traces (at the position in bytes 1-2,
 *                  little-endian, modulo its length), read as a run;
 *               2: the same two, merged, and the merged trace read back;
 *               3: read in strict mode.
 *   for 1 and 2, byte 0 >> 2 & 3 picks the refusal paths a run can take:
 *               0: runs forced together (PAL_OPEN_FORCE), as before;
 *               1: not forced: two different runs are refused;
 *               2: the first trace twice (the same rank twice: refused);
 *               3: the first trace and a file of another format (the
 *                  second part behind bytes that are no ECL magic).
 *   for 2, byte 0 >> 4 & 1 merges with --compress (the raw records chunks
 *   compressed while copying, damage kept as it is), byte 0 >> 5 & 1 with
 *   --check (the run read again and its messages matched).
 * Every record is read and each of its fields fetched and formatted. The
 * seed corpus (tests/pal/fuzz-corpus-binary) holds real format 2.0 traces
 * and a format 1.0 one. Built with ./configure --enable-fuzz CC=clang (with
 * ASan and UBSan in ./run test's fuzz build); tests/pal/fuzz.sh runs it for a
 * bounded time. */
#include <config.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pal/pal.h"

static char p1[64], p2[64], pm[64];

static void quiet(void *ctx, const char *msg)
{
    (void)ctx;
    (void)msg;
}

static void put(const char *path, const uint8_t *d, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        abort();
    if (n && fwrite(d, 1, n, f) != n)
        abort();
    fclose(f);
}

static void read_all(const char *const *paths, size_t n, int strict, unsigned flags)
{
    pal_reader *r;
    if (pal_reader_open_run(paths, n, NULL, flags, &r) != PAL_OK)
        return;
    pal_reader_set_diag(r, quiet, NULL);
    pal_reader_set_strict(r, strict);
    const pal_dict *d = pal_reader_dict(r);
    const pal_handle *h = NULL;
    if (pal_dict_record_count(d) > 0)
        (void)pal_reader_handle(r, "time", &h);
    const pal_record *rec;
    char buf[128];
    uint64_t u;
    int64_t i;
    double f;
    const char *s;
    size_t len;
    while (pal_reader_next(r, &rec) == PAL_OK) {
        const pal_recdesc *rd = pal_record_desc(rec);
        for (size_t k = 0; k < pal_recdesc_field_count(rd); k++) {
            const char *name = pal_field_name(pal_recdesc_field(rd, k));
            pal_record_format(rec, k, buf, sizeof buf);
            (void)pal_record_get_u64(rec, name, &u);
            (void)pal_record_get_i64(rec, name, &i);
            (void)pal_record_get_f64(rec, name, &f);
            (void)pal_record_get_str(rec, name, &s, &len);
        }
        (void)pal_record_time_ns(rec);
        if (h)
            (void)pal_record_u64(rec, h, &u);
    }
    pal_reader_stats st;
    pal_reader_get_stats(r, &st);
    pal_reader_close(r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!p1[0]) {
        snprintf(p1, sizeof p1, "/tmp/pal-fuzz-bin-%ld-a.ecl", (long)getpid());
        snprintf(p2, sizeof p2, "/tmp/pal-fuzz-bin-%ld-b.ecl", (long)getpid());
        snprintf(pm, sizeof pm, "/tmp/pal-fuzz-bin-%ld-m.ecl", (long)getpid());
    }
    if (size < 3)
        return 0;
    int mode = data[0] & 3, refusal = data[0] >> 2 & 3;
    const uint8_t *d = data + 3;
    size_t n = size - 3, cut = ((size_t)data[1] | (size_t)data[2] << 8) % (n + 1);
    const char *paths[2] = { p1, refusal == 2 ? p1 : p2 };
    unsigned flags = refusal == 0 ? PAL_OPEN_FORCE : 0;
    if (mode == 0 || mode == 3) {
        put(p1, d, n);
        read_all(paths, 1, mode == 3, PAL_OPEN_FORCE);
    } else {
        put(p1, d, cut);
        if (refusal == 3) {             /* another format: no ECL magic */
            uint8_t *o = malloc(n - cut + 4);
            if (!o)
                abort();
            memcpy(o, "PICL", 4);
            memcpy(o + 4, d + cut, n - cut);
            put(p2, o, n - cut + 4);
            free(o);
        } else {
            put(p2, d + cut, n - cut);
        }
        if (mode == 1) {
            read_all(paths, 2, 0, flags);
        } else {
            pal_merge_options o;
            pal_merge_options_default(&o);
            o.open_flags = flags;
#ifdef HAVE_ZSTD
            o.compress = data[0] >> 4 & 1 ? 2 : -1;
#else
            o.compress = data[0] >> 4 & 1 ? 1 : -1;
#endif
            o.check = data[0] >> 5 & 1;
            pal_merge_result res;
            if (pal_merge(paths, 2, pm, &o, &res) == PAL_OK) {
                const char *m[1] = { pm };
                read_all(m, 1, 0, PAL_OPEN_FORCE);
            }
            unlink(pm);
        }
    }
    unlink(p1);
    unlink(p2);
    return 0;
}
