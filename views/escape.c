/* escape.c -- the one escaping module of the views: UTF-8 validation and
 * the escaping of XML (SVG, HTML) and JSON strings (escape.h says the rule). */
#include <config.h>

#include <string.h>

#include "views/escape.h"

#include "pal/pal.h"

size_t vw_utf8_next(const unsigned char *s, size_t n, uint32_t *cp)
{
    unsigned c = s[0];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    size_t len;
    uint32_t v, min;
    if (c >= 0xC2 && c <= 0xDF)
        len = 2, v = c & 0x1F, min = 0x80;
    else if (c >= 0xE0 && c <= 0xEF)
        len = 3, v = c & 0x0F, min = 0x800;
    else if (c >= 0xF0 && c <= 0xF4)
        len = 4, v = c & 0x07, min = 0x10000;
    else
        goto bad;
    if (len > n)
        goto bad;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            goto bad;
        v = v << 6 | (s[i] & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        goto bad;
    *cp = v;
    return len;
bad:
    *cp = VW_REPLACEMENT;
    return 1;
}

static void put_utf8(FILE *out, uint32_t cp)
{
    if (cp < 0x80) {
        fputc((int)cp, out);
    } else if (cp < 0x800) {
        fputc((int)(0xC0 | cp >> 6), out);
        fputc((int)(0x80 | (cp & 0x3F)), out);
    } else if (cp < 0x10000) {
        fputc((int)(0xE0 | cp >> 12), out);
        fputc((int)(0x80 | (cp >> 6 & 0x3F)), out);
        fputc((int)(0x80 | (cp & 0x3F)), out);
    } else {
        fputc((int)(0xF0 | cp >> 18), out);
        fputc((int)(0x80 | (cp >> 12 & 0x3F)), out);
        fputc((int)(0x80 | (cp >> 6 & 0x3F)), out);
        fputc((int)(0x80 | (cp & 0x3F)), out);
    }
}

void vw_xml_text(FILE *out, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < n) {
        uint32_t cp;
        size_t k = vw_utf8_next(p + i, n - i, &cp);
        switch (cp) {
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '&': fputs("&amp;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&#39;", out); break;
        case '\t': case '\n': case '\r': fputc((int)cp, out); break;
        default:
            /* XML 1.0 Char excludes C0 controls and U+FFFE, U+FFFF */
            if (cp < 0x20 || cp == 0xFFFE || cp == 0xFFFF)
                cp = VW_REPLACEMENT;
            if (k > 1 || cp >= 0x80)
                put_utf8(out, cp);
            else
                fputc((int)cp, out);
        }
        i += k;
    }
}

void vw_xml_escape(FILE *out, const char *s)
{
    vw_xml_text(out, s, strlen(s));
}

void vw_json_text(FILE *out, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    fputc('"', out);
    while (i < n) {
        uint32_t cp;
        size_t k = vw_utf8_next(p + i, n - i, &cp);
        switch (cp) {
        case '"': fputs("\\\"", out); break;
        case '\\': fputs("\\\\", out); break;
        case '\n': fputs("\\n", out); break;
        case '\t': fputs("\\t", out); break;
        case '\r': fputs("\\r", out); break;
        case '<': case '>': case '&': fprintf(out, "\\u%04x", (unsigned)cp); break;
        default:
            if (cp < 0x20)
                fprintf(out, "\\u%04x", (unsigned)cp);
            else
                put_utf8(out, cp);
        }
        i += k;
    }
    fputc('"', out);
}

void vw_json_string(FILE *out, const char *s)
{
    vw_json_text(out, s, strlen(s));
}

/* appends the character at s (k bytes, code point cp) to buf at *o */
static void clip_put(char *buf, size_t *o, const char *s, size_t k, uint32_t cp)
{
    if (cp == VW_REPLACEMENT && k == 1) {
        memcpy(buf + *o, "\xEF\xBF\xBD", 3);
        *o += 3;
    } else {
        memcpy(buf + *o, s, k);
        *o += k;
    }
}

char *vw_utf8_clip(char *buf, size_t size, const char *s, size_t max_chars)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t n = strlen(s), chars = 0, bytes = 0;
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        size_t k = vw_utf8_next(p + i, n - i, &cp);
        bytes += cp == VW_REPLACEMENT && k == 1 ? 3 : k;
        chars++;
        i += k;
    }
    size_t o = 0;
    int cut = chars > max_chars || bytes >= size;
    size_t room = cut ? (size > 4 ? size - 4 : 0) : size - 1;   /* bytes before the "…" */
    size_t keep = cut ? (max_chars > 0 ? max_chars - 1 : 0) : chars;
    for (size_t i = 0, c = 0; i < n && c < keep; c++) {
        uint32_t cp;
        size_t k = vw_utf8_next(p + i, n - i, &cp);
        size_t need = cp == VW_REPLACEMENT && k == 1 ? 3 : k;
        if (o + need > room)
            break;
        clip_put(buf, &o, s + i, k, cp);
        i += k;
    }
    if (cut && max_chars > 0 && o + 3 < size) {
        memcpy(buf + o, "\xE2\x80\xA6", 3);   /* … */
        o += 3;
    }
    buf[o] = '\0';
    return buf;
}

void vw_term_text(FILE *out, const char *s, int width)
{
    pal_text_print(out, s, strlen(s), 0, width);
}

/* (declared in vw.h and escape.h: the CSV writers' one quoting) */
void vw_csv_name(FILE *out, const char *nm)
{
    if (strpbrk(nm, ",\"\n")) {
        fputc('"', out);
        for (; *nm; nm++) {
            if (*nm == '"')
                fputc('"', out);
            fputc(*nm, out);
        }
        fputc('"', out);
    } else {
        fputs(nm, out);
    }
}

void vw_reader_diag(void *ctx, const char *msg)
{
    (void)ctx;
    fprintf(stderr, "pal-view: %s\n", msg);
}
