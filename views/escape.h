/* escape.h -- the one escaping module of the views (issue 11): every string
 * that an SVG, HTML or JSON writer of pal-view puts into its output goes
 * through these functions, so every output is valid UTF-8 and well-formed
 * whatever bytes a trace's names hold.
 *
 * One rule for all outputs: the input is read as UTF-8; a byte that does not
 * start a well-formed UTF-8 sequence (bad lead byte, overlong form, surrogate,
 * beyond U+10FFFF, truncated) becomes U+FFFD, one per byte. Control
 * characters: JSON escapes them (\n, \t, \u0001); XML keeps tab, newline and
 * carriage return and turns the others, which XML 1.0 cannot carry at all,
 * into U+FFFD. */
#ifndef VW_ESCAPE_H
#define VW_ESCAPE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define VW_REPLACEMENT 0xFFFDu

/* Decodes one code point of s[0..n) (n > 0) into *cp and returns the bytes it
 * took (1..4); an ill-formed sequence gives U+FFFD and takes 1 byte. */
size_t vw_utf8_next(const unsigned char *s, size_t n, uint32_t *cp);

/* XML (SVG, HTML) character data and attribute values: & < > " ' as
 * entities, everything else as valid UTF-8. */
void vw_xml_text(FILE *out, const char *s, size_t n);
void vw_xml_escape(FILE *out, const char *s);     /* NUL-terminated s */

/* A JSON string with its quotes. '<', '>' and '&' are written as \u003c,
 * \u003e, \u0026, so the same JSON may sit inside an HTML or XML page. */
void vw_json_text(FILE *out, const char *s, size_t n);
void vw_json_string(FILE *out, const char *s);    /* NUL-terminated s */

/* A CSV field: quoted ("" for a quote) when it holds , " or a newline. */
void vw_csv_name(FILE *out, const char *nm);

/* Copies s into buf (size > 0) as valid UTF-8 of at most size-1 bytes,
 * cut at a character boundary; when it had to cut, the last character is
 * "…" (U+2026). Returns buf. For labels that must fit a box. */
char *vw_utf8_clip(char *buf, size_t size, const char *s, size_t max_chars);

/* Text for a terminal (the text views): s escaped by PAL's one rule for
 * text (pal_text_escape), left-aligned in width bytes (0: no padding). */
void vw_term_text(FILE *out, const char *s, int width);

/* A reader's message (pal_reader_set_diag; ctx unused), said on standard
 * error as pal-view's: the message names its file. */
void vw_reader_diag(void *ctx, const char *msg);

#endif /* VW_ESCAPE_H */
