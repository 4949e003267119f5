/* layout.c -- the layout pass of the EDL compiler: the physical choices a
 * dictionary records that the source may leave to defaults (byte order, with
 * NATIVE resolved for this host; framing; ascii syntax flags; the encoding of
 * every field and item component). Runs on a checked tree only. */
#include "config.h"

#include <stdint.h>

#include "edl/compiler.h"

static char host_byte_order(void)
{
    const uint16_t probe = 1;
    return *(const unsigned char *)&probe ? 'L' : 'B';
}

static void lay_type(const edl_cc *cc, ast_type *t)
{
    if (!t->enc)
        t->enc = edl_default_encoding(cc, t->type);
}

static void lay_comps(const edl_cc *cc, ast_comp *c)
{
    for (; c; c = c->next)
        lay_type(cc, &c->type);
}

static void lay_ascii(edl_cc *cc)
{
    cc->framing = EDL_FRAMING_LINES;
    cc->separators = edl_hdr_text(cc, HDR_SEPARATORS, " \t");
    cc->comment = edl_hdr_word(cc, HDR_COMMENT, W_UNSET) == W_NONE
                      ? ""
                      : edl_hdr_text(cc, HDR_COMMENT, "");
    const ast_hdr *sep = cc->hv.item[HDR_SEPARATORS];
    const ast_hdr *com = cc->hv.item[HDR_COMMENT];
    const ast_hdr *q = cc->hv.item[HDR_QUOTE];
    cc->ascii_flags = 0;
    if (!sep || sep->mode != W_SINGLE)
        cc->ascii_flags |= EDL_ASCII_MERGE;
    if (com && com->mode == W_ANYWHERE)
        cc->ascii_flags |= EDL_ASCII_TRAILING_COMMENT;
    if (edl_hdr_word(cc, HDR_BLANKLINES, W_SKIP) == W_ERROR)
        cc->ascii_flags |= EDL_ASCII_BLANK_ERROR;
    if (q && q->word == W_NONE) {
        cc->quote = 0;
    } else {
        cc->quote = q ? q->value.text[0] : '"';
        if (q && q->mode == W_DOUBLED)
            cc->ascii_flags |= EDL_ASCII_QUOTE_DOUBLED;
    }
    const ast_hdr *sk = cc->hv.item[HDR_SKIPLINES];
    cc->skip_lines = sk ? (unsigned)sk->num : 0;
}

static void lay_binary(edl_cc *cc)
{
    switch (edl_hdr_word(cc, HDR_BYTEORDER, W_LITTLE)) {
    case W_BIG: cc->byte_order = 'B'; break;
    case W_NATIVE: cc->byte_order = host_byte_order(); break;
    default: cc->byte_order = 'L'; break;
    }
    cc->framing = edl_hdr_word(cc, HDR_FRAMING, W_ECL) == W_RAW ? EDL_FRAMING_RAW
                                                                : EDL_FRAMING_ECL;
}

void edl_layout(edl_cc *cc)
{
    if (cc->hv.ascii)
        lay_ascii(cc);
    else
        lay_binary(cc);
    for (ast_record *r = cc->ast.records; r; r = r->next)
        for (ast_field *f = r->fields; f; f = f->next) {
            if (f->is_array)
                lay_comps(cc, f->comps);
            else
                lay_type(cc, &f->type);
        }
    for (ast_shape *s = cc->ast.shapes; s; s = s->next)
        for (ast_shape_entry *e = s->entries; e; e = e->next)
            lay_comps(cc, e->comps);
}
