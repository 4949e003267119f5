/* print.c -- pal_dict_print: a dictionary as EDL source (edl_dict_print), for
 * pal-dump --dict and for people checking a trace; the text compiles back to
 * the same dictionary. pal_text_escape: the one escaping rule for text that
 * a trace supplies, in every text output. */
#include <config.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pal/pal-internal.h"

void pal_dict_print(const pal_dict *d, void *file)
{
    PAL_REQUIRE(d && file, );
    FILE *f = file;
    char *text = NULL;
    size_t len = 0;
    if (edl_dict_print(d->ed, &text, &len) != EDL_OK) {
        fputs("-- (out of memory printing the dictionary)\n", f);
        return;
    }
    fwrite(text, 1, len, f);
    free(text);
}

/* The length of the valid UTF-8 sequence at s[0..n) (n > 0; 1..4 bytes,
 * its code point in *cpp), or 0. */
static size_t utf8_seq(const unsigned char *s, size_t n, uint32_t *cpp)
{
    size_t len;
    uint32_t cp;
    if (s[0] < 0x80) {
        *cpp = s[0];
        return 1;
    }
    if (s[0] >= 0xc2 && s[0] <= 0xdf) {
        len = 2;
        cp = s[0] & 0x1f;
    } else if (s[0] >= 0xe0 && s[0] <= 0xef) {
        len = 3;
        cp = s[0] & 0x0f;
    } else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
        len = 4;
        cp = s[0] & 0x07;
    } else {
        return 0;
    }
    if (len > n)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
        (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
        return 0;
    *cpp = cp;
    return len;
}

size_t pal_utf8_length(const char *s, size_t n)
{
    uint32_t cp;
    return s && n > 0 ? utf8_seq((const unsigned char *)s, n, &cp) : 0;
}

size_t pal_text_escape(char *buf, size_t size, const char *s, size_t n, unsigned flags)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t out = 0;
    int cut = 0;
    char tmp[16];
    if (size > 0)
        buf[0] = '\0';
    PAL_REQUIRE(s || n == 0, 0);
    for (size_t i = 0; i < n;) {
        unsigned char c = p[i];
        const char *piece = tmp;
        size_t len = 1, plen;
        uint32_t cp = 0;
        if (c == '\\' || (c == '"' && (flags & PAL_TEXT_QUOTE))) {
            tmp[0] = '\\';
            tmp[1] = (char)c;
            plen = 2;
        } else if (c == '\n' || c == '\t' || c == '\r') {
            tmp[0] = '\\';
            tmp[1] = c == '\n' ? 'n' : c == '\t' ? 't' : 'r';
            plen = 2;
        } else if (c >= 0x20 && c < 0x7f) {
            tmp[0] = (char)c;
            plen = 1;
        } else if (c >= 0x80 && (len = utf8_seq(p + i, n - i, &cp)) > 0 &&
                   !(cp >= 0x80 && cp <= 0x9f)) {
            piece = s + i;
            plen = len;
        } else {
            /* a control character, or a byte not part of valid UTF-8; a C1
             * control's bytes each */
            len = len > 0 ? len : 1;
            plen = 0;
            for (size_t k = 0; k < len; k++)
                plen += (size_t)snprintf(tmp + plen, sizeof tmp - plen, "\\x%02x", p[i + k]);
        }
        if (!cut && out + plen < size) {
            memcpy(buf + out, piece, plen);
            buf[out + plen] = '\0';
        } else {
            cut = 1;               /* cut before this piece: nothing more is written */
        }
        out += plen;
        i += len;
    }
    return out;
}

void pal_text_print(void *file, const char *s, size_t n, unsigned flags, int width)
{
    PAL_REQUIRE(file, );
    char small[256], *buf = small;
    size_t need = pal_text_escape(small, sizeof small, s, n, flags);
    if (need >= sizeof small && (buf = malloc(need + 1)) != NULL)
        pal_text_escape(buf, need + 1, s, n, flags);
    fprintf(file, "%-*s", width, buf ? buf : small);   /* out of memory: cut */
    if (buf != small)
        free(buf);
}
