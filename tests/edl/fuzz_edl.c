/* fuzz_edl.c -- libFuzzer target for the EDL compiler (built with
 * ./configure --enable-fuzz CC=clang; run by tests/edl/fuzz.sh).
 *
 * Any input must compile or fail with diagnostics, never crash, leak or
 * hang. When it compiles, the dictionary must survive encode/decode and print
 * back as EDL that compiles, without a diagnostic, to an identical dictionary.
 * Inputs that start with the dictionary magic go to the decoder instead, and
 * what it accepts must print and re-encode. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "edl/edl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void sink(void *ctx, const edl_diagnostic *d)
{
    unsigned *n = ctx;
    (*n)++;
    free(edl_diagnostic_format(d));   /* exercise the formatter too */
}

/* Decodes data as it is, then again with its length and checksum made right,
 * so that mutations reach the body's checks instead of stopping at the CRC. */
static void check_binary(const uint8_t *data, size_t size)
{
    edl_dict *d = NULL;
    char err[256];
    if (edl_dict_decode(data, size, &d, err, sizeof err) == EDL_OK)
        edl_dict_destroy(d);
    d = NULL;
    if (size < 24 || size > UINT32_MAX)
        return;
    uint8_t *fixed = malloc(size);
    if (!fixed)
        return;
    memcpy(fixed, data, size);
    for (int i = 0; i < 4; i++) {
        fixed[12 + i] = (uint8_t)(size >> (8 * i));
        fixed[16 + i] = 0;
    }
    uint32_t crc = (uint32_t)crc32(0L, fixed, (uInt)size);
    for (int i = 0; i < 4; i++)
        fixed[16 + i] = (uint8_t)(crc >> (8 * i));
    edl_status st = edl_dict_decode(fixed, size, &d, err, sizeof err);
    free(fixed);
    if (st != EDL_OK)
        return;
    /* What the decoder accepts, the encoder writes back and reads again. */
    unsigned char *buf;
    size_t len;
    char *text;
    edl_dict *e = NULL, *f = NULL;
    if (edl_dict_encode(d, &buf, &len) != EDL_OK ||
        edl_dict_decode(buf, len, &e, err, sizeof err) != EDL_OK || !edl_dict_equal(d, e))
        abort();
    free(buf);
    /* It prints; the text need not compile (the API allows what EDL forbids). */
    if (edl_dict_print(d, &text, &len) != EDL_OK)
        abort();
    unsigned n = 0;
    if (edl_compile_string("print.edl", text, len, sink, &n, &f) == EDL_OK)
        edl_dict_destroy(f);
    free(text);
    edl_dict_destroy(d);
    edl_dict_destroy(e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size >= 8 && memcmp(data, EDL_DICT_MAGIC, 8) == 0) {
        check_binary(data, size);
        return 0;
    }
    unsigned n = 0;
    edl_dict *d = NULL, *e = NULL, *f = NULL;
    if (edl_compile_string("fuzz.edl", (const char *)data, size, sink, &n, &d) != EDL_OK)
        return 0;
    unsigned char *buf;
    size_t len;
    char err[256];
    if (edl_dict_encode(d, &buf, &len) != EDL_OK ||
        edl_dict_decode(buf, len, &e, err, sizeof err) != EDL_OK || !edl_dict_equal(d, e))
        abort();
    free(buf);
    char *text;
    if (edl_dict_print(d, &text, &len) != EDL_OK)
        abort();
    n = 0;
    edl_status st = edl_compile_string("print.edl", text, len, sink, &n, &f);
    /* Warnings (an unbound record, an unused shape) may come back; errors not. */
    if (st != EDL_OK || !edl_dict_equal(d, f))
        abort();
    free(text);
    edl_dict_destroy(d);
    edl_dict_destroy(e);
    edl_dict_destroy(f);
    return 0;
}
