/* mktrace.c -- writes the test traces used by the shell tests and by hand:
 *   mktrace small FILE            the lab sample (tests/pal/golden)
 *   mktrace damaged FILE          the lab sample with one payload byte flipped
 *   mktrace cut FILE              the lab sample cut inside its last record chunk
 *   mktrace lab-dict FILE         the lab dictionary alone (binary, with alarm)
 *   mktrace flat FILE DICT        a raw stream of the flat format + its dictionary
 *   mktrace synth N FILE [none|zlib|zstd] [tiny]
 *                                 N small records (key ULEB, time TDELTA, one
 *                                 ULEB: 3-5 bytes, deltas up to ~2000 ticks; with
 *                                 "tiny" 3 bytes, every LEB one byte) in chunks of
 *                                 20000 records, for measuring speed */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/pal/labdict.h"
#include "tests/pal/tracebuild.h"

static int small(const char *path, int how)
{
    edl_dict *d = lab_dict('B', EDL_FRAMING_ECL);
    tb *t = tb_create(d);
    lab_build_small(t, d);
    size_t n, nc;
    const unsigned char *p = tb_data(t, &n);
    const tb_chunk_info *c = tb_chunks(t, &nc);
    unsigned char *copy = malloc(n);
    memcpy(copy, p, n);
    if (how == 1)
        copy[c[0].offset + 64 + 3] ^= 0x40;        /* first chunk's payload */
    else if (how == 2)
        n = c[nc - 2].offset + c[nc - 2].length - 5;  /* inside the last record chunk */
    int rc = tb_write_bytes(path, copy, n);
    free(copy);
    tb_destroy(t);
    edl_dict_destroy(d);
    return rc;
}

static int write_dict(const edl_dict *d, const char *path)
{
    unsigned char *b;
    size_t n;
    if (edl_dict_encode(d, &b, &n) != EDL_OK)
        return -1;
    int rc = tb_write_bytes(path, b, n);
    free(b);
    return rc;
}

static int flat(const char *path, const char *dpath)
{
    edl_dict *d = flat_dict();
    tb *t = tb_create_raw(d);
    static const char *const labels[] = {"alpha", "", "gamma delta", "\xce\xbb"};
    for (unsigned i = 0; i < 8; i++) {
        tb_val v[] = {TB_U(i * 7), TB_F(i * 0.5 - 1), TB_S(labels[i % 4]), TB_U(100 + i * 10)};
        tb_record(t, "row", v);
    }
    int rc = tb_write(t, path) || write_dict(d, dpath);
    tb_destroy(t);
    edl_dict_destroy(d);
    return rc;
}

static int synth(unsigned long long n, const char *path, const char *comp, int tiny)
{
    edl_dict *d;
    edl_record *r;
    int c = !comp || !strcmp(comp, "none") ? TB_NONE : !strcmp(comp, "zlib") ? TB_ZLIB : TB_ZSTD;
    if (edl_dict_create("synth", "1.0", EDL_REPR_BINARY, &d) != EDL_OK ||
        edl_dict_set_roles(d, "time", "ns", "", "") != EDL_OK ||
        edl_dict_set_key(d, 1, 0, EDL_NO_KEY) != EDL_OK)
        return 1;
    static const char *const names[] = {"open", "close"};
    for (int i = 0; i < 2; i++) {
        edl_dict_add_record(d, names[i], NULL, &r);
        edl_record_add_field(r, "kind", EDL_UINT16, EDL_ENC_ULEB, NULL, NULL);
        edl_record_add_field(r, "time", EDL_UINT64, EDL_ENC_TDELTA, "ns", NULL);
        edl_record_add_field(r, "id", EDL_UINT32, EDL_ENC_ULEB, NULL, NULL);
    }
    edl_dict_add_bind(d, "1", NULL, "open");
    edl_dict_add_bind(d, "2", NULL, "close");
    tb *t = tb_create(d);
    tb_track_records(t, 0);
    tb_chunk_opts o = {0};
    o.compression = c;
    uint64_t time = 1000000;
    unsigned long long i = 0;
    while (i < n) {
        tb_chunk_begin(t, 0, 1, time);
        for (int k = 0; k < 20000 && i < n; k++, i++) {
            time += tiny ? 3 + (i % 50) : 50 + (i * 2654435761u) % 2000;
            tb_val v[] = {TB_U(1 + (i & 1)), TB_U(time), TB_U((i >> 1) % (tiny ? 100 : 300))};
            tb_record(t, names[i & 1], v);
        }
        tb_chunk_end(t, &o);
    }
    tb_finish_index(t);
    int rc = tb_write(t, path);
    tb_destroy(t);
    edl_dict_destroy(d);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && !strcmp(argv[1], "small"))
        return small(argv[2], 0) ? 1 : 0;
    if (argc >= 3 && !strcmp(argv[1], "damaged"))
        return small(argv[2], 1) ? 1 : 0;
    if (argc >= 3 && !strcmp(argv[1], "cut"))
        return small(argv[2], 2) ? 1 : 0;
    if (argc >= 3 && !strcmp(argv[1], "lab-dict")) {
        edl_dict *d = lab_dict('B', EDL_FRAMING_ECL);
        lab_add_alarm(d);
        int rc = write_dict(d, argv[2]);
        edl_dict_destroy(d);
        return rc ? 1 : 0;
    }
    if (argc >= 4 && !strcmp(argv[1], "flat"))
        return flat(argv[2], argv[3]) ? 1 : 0;
    if (argc >= 4 && !strcmp(argv[1], "synth"))
        return synth(strtoull(argv[2], NULL, 10), argv[3], argc > 4 ? argv[4] : NULL,
                     argc > 5 && !strcmp(argv[5], "tiny")) ? 1 : 0;
    fprintf(stderr, "usage: mktrace small|damaged|cut|lab-dict FILE | flat FILE DICT | "
                    "synth N FILE [none|zlib|zstd] [tiny]\n");
    return 2;
}
