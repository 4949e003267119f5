/* vwescape.c -- unit test of views/escape.c: UTF-8 decoding (ill-formed
 * sequences become U+FFFD, one per byte), XML and JSON escaping, clipping.
 * Exit 0 pass, 1 with the failing case printed. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "views/escape.h"

static int fails;

static void expect(const char *what, const char *got, const char *want)
{
    if (strcmp(got, want) != 0) {
        printf("FAIL %s: got '%s' want '%s'\n", what, got, want);
        fails++;
    }
}

static const char *run(void (*fn)(FILE *, const char *, size_t), const char *s, size_t n)
{
    static char *buf;
    size_t len;
    free(buf);
    buf = NULL;
    FILE *m = open_memstream(&buf, &len);
    fn(m, s, n);
    fclose(m);
    return buf;
}

#define R "\xEF\xBF\xBD"
#define X(s, want) expect("xml " #s, run(vw_xml_text, s, sizeof s - 1), want)
#define J(s, want) expect("json " #s, run(vw_json_text, s, sizeof s - 1), want)

int main(void)
{
    X("plain", "plain");
    X("<a&b>\"c'", "&lt;a&amp;b&gt;&quot;c&#39;");
    X("x\xffy", "x" R "y");
    X("a\x01\x1f" "b", "a" R R "b");
    X("t\tn\nr\r", "t\tn\nr\r");
    X("\xc0\xaf", R R);                      /* overlong '/' */
    X("\xed\xa0\x80", R R R);                /* surrogate D800 */
    X("\xf4\x90\x80\x80", R R R R);          /* beyond U+10FFFF */
    X("\xe2\x82", R R);                      /* truncated */
    X("\xef\xbf\xbf", R);                    /* U+FFFF: not an XML Char */
    X("caf\xc3\xa9 \xf0\x9f\x9a\x80", "caf\xc3\xa9 \xf0\x9f\x9a\x80");
    X("nul\0x", "nul" R "x");
    J("plain", "\"plain\"");
    J("q\"b\\s/", "\"q\\\"b\\\\s/\"");
    J("n\nt\tc\x01", "\"n\\nt\\tc\\u0001\"");
    J("</script>&", "\"\\u003c/script\\u003e\\u0026\"");
    J("x\xffy", "\"x" R "y\"");
    J("\xef\xbf\xbf", "\"\xef\xbf\xbf\"");   /* valid in JSON */
    char b[64];
    expect("clip fits", vw_utf8_clip(b, sizeof b, "solve", 10), "solve");
    expect("clip chars", vw_utf8_clip(b, sizeof b, "abcdefghij", 5), "abcd\xE2\x80\xA6");
    expect("clip utf8", vw_utf8_clip(b, sizeof b, "\xc3\xa9\xc3\xa9\xc3\xa9", 2), "\xc3\xa9\xE2\x80\xA6");
    expect("clip bad", vw_utf8_clip(b, sizeof b, "a\xff", 5), "a" R);
    expect("clip bytes", vw_utf8_clip(b, 8, "abcdefghij", 50), "abcd\xE2\x80\xA6");
    expect("clip one", vw_utf8_clip(b, sizeof b, "abc", 1), "\xE2\x80\xA6");
    uint32_t cp;
    size_t k = vw_utf8_next((const unsigned char *)"\xf0\x9f\x9a\x80", 4, &cp);
    if (k != 4 || cp != 0x1F680) {
        printf("FAIL next: %zu %x\n", k, (unsigned)cp);
        fails++;
    }
    printf("%s\n", fails ? "escape: FAIL" : "escape: ok");
    return fails != 0;
}
