/* parse.c -- the parse pass of the EDL compiler: drives the generated scanner
 * and parser over a source held in memory, decodes tokens and builds the
 * syntax tree in the compile's arena. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "edl/parse.h"
#include "edl/parser.h"

#define YYSTYPE EDL_YYSTYPE
#define YYLTYPE EDL_YYLTYPE
#include "edl/lexer.h"

/* ---- scanner helpers ---- */

void edl_lex_error(edl_cc *cc, edl_loc loc, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    cc->lex_error_line = loc.last_line;
    edl_error(cc, loc, "%s", msg);
}

void edl_syntax_error(edl_cc *cc, edl_loc loc, const char *msg)
{
    if (cc->lex_error_line && loc.first_line - cc->lex_error_line <= 1 &&
        loc.first_line >= cc->lex_error_line) {
        cc->lex_error_line = 0;   /* only the first one after it */
        return;
    }
    edl_error(cc, loc, "%s", msg);
}

void edl_lex_advance(edl_cc *cc, edl_loc *loc, const char *text, size_t len)
{
    loc->first_line = loc->last_line = cc->line;
    loc->first_column = loc->last_column = cc->column;
    for (size_t i = 0; i < len; i++) {
        loc->last_line = cc->line;
        loc->last_column = cc->column;
        if (text[i] == '\n') {
            cc->line++;
            cc->column = 1;
        } else {
            cc->column++;
        }
    }
}

unsigned long edl_lex_number(edl_cc *cc, edl_loc loc, const char *text)
{
    errno = 0;
    unsigned long v = strtoul(text, NULL, 10);
    if (errno == ERANGE || v > UINT32_MAX) {
        edl_lex_error(cc, loc, "number '%s' is too large", text);
        return UINT32_MAX;
    }
    return v;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

char *edl_lex_string(edl_cc *cc, edl_loc loc, const char *text, size_t len)
{
    /* The closing quote is there when it is not itself escaped. */
    size_t end = len;
    if (len >= 2 && text[len - 1] == '"') {
        size_t bs = 0;
        while (len - 2 - bs >= 1 && text[len - 2 - bs] == '\\')
            bs++;
        if (bs % 2 == 0)
            end = len - 1;
    }
    char *out = edl_alloc(cc, end + 1), *o = out;
    for (size_t i = 1; i < end; i++) {
        if (text[i] != '\\') {
            *o++ = text[i];
            continue;
        }
        edl_loc at = loc;
        at.first_column = loc.first_column + (int)i;
        at.last_line = at.first_line;
        at.last_column = at.first_column + 1;
        if (i + 1 >= end) {
            /* a lone backslash at the end of an unterminated string */
            break;
        }
        char c = text[++i];
        switch (c) {
        case '\\': *o++ = '\\'; break;
        case '"': *o++ = '"'; break;
        case 'n': *o++ = '\n'; break;
        case 't': *o++ = '\t'; break;
        case 'r': *o++ = '\r'; break;
        case 'x': {
            int h = i + 1 < end ? hexval(text[i + 1]) : -1;
            int l = i + 2 < end ? hexval(text[i + 2]) : -1;
            if (h < 0 || l < 0) {
                edl_lex_error(cc, at, "escape '\\x' needs two hexadecimal digits");
                break;
            }
            i += 2;
            if (h == 0 && l == 0) {
                at.last_column += 2;
                edl_lex_error(cc, at, "strings cannot contain a NUL character");
                break;
            }
            *o++ = (char)(h * 16 + l);
            break;
        }
        default:
            if ((unsigned char)c >= 0x20 && (unsigned char)c < 0x7f)
                edl_lex_error(cc, at, "unknown escape sequence '\\%c'", c);
            else
                edl_lex_error(cc, at, "unknown escape sequence '\\' followed by byte 0x%02x",
                          (unsigned char)c);
            break;
        }
    }
    *o = 0;
    return out;
}

void edl_lex_stray(edl_cc *cc, edl_loc loc, unsigned char c)
{
    if (c >= 0x21 && c < 0x7f)
        edl_lex_error(cc, loc, "unexpected character '%c'", c);
    else
        edl_lex_error(cc, loc, "unexpected byte 0x%02x", c);
}

/* ---- syntax tree constructors ---- */

void edl_ast_header(edl_cc *cc, edl_loc loc, ast_hdr *items)
{
    ast_header *h = EDL_NEW(cc, ast_header);
    h->loc = loc;
    h->items = items;
    cc->l_headers = edl_list_append(cc->l_headers, h);
}

ast_hdr *edl_ast_hdr(edl_cc *cc, hdr_kind kind, edl_loc loc)
{
    ast_hdr *h = EDL_NEW(cc, ast_hdr);
    h->kind = kind;
    h->loc = loc;
    return h;
}

ast_hdr *edl_ast_hdr_word(edl_cc *cc, hdr_kind kind, edl_loc loc, hdr_word w, edl_loc wloc)
{
    ast_hdr *h = edl_ast_hdr(cc, kind, loc);
    h->word = w;
    h->word_loc = wloc;
    return h;
}

void edl_ast_record(edl_cc *cc, ast_name name, ast_name desc, const ast_body *body)
{
    ast_record *r = EDL_NEW(cc, ast_record);
    r->name = name;
    r->desc = desc;
    r->fields = body->fields.head;
    r->roles = body->roles.head;
    r->regions = body->regions.head;
    r->operations = body->operations.head;
    cc->l_records = edl_list_append(cc->l_records, r);
}

ast_role_name *edl_ast_role_name(edl_cc *cc, ast_name name)
{
    ast_role_name *n = EDL_NEW(cc, ast_role_name);
    n->name = name;
    return n;
}

ast_role_stmt *edl_ast_role_stmt(edl_cc *cc, edl_loc loc, ast_role_name *names,
                                 const ast_name *when_field, const ast_name *when_value)
{
    ast_role_stmt *s = EDL_NEW(cc, ast_role_stmt);
    s->loc = loc;
    s->names = names;
    if (when_field)
        s->when_field = *when_field;
    if (when_value)
        s->when_value = *when_value;
    return s;
}

ast_region *edl_ast_region(edl_cc *cc, edl_loc loc, ast_name value)
{
    ast_region *g = EDL_NEW(cc, ast_region);
    g->loc = loc;
    g->value = value;
    return g;
}

ast_attr *edl_ast_attr_ref(edl_cc *cc, ast_ref ref)
{
    ast_attr *a = EDL_NEW(cc, ast_attr);
    a->kind = ATTR_REFERS;
    a->value.loc = ref.loc;
    a->ref = ref;
    return a;
}

ast_field *edl_ast_field(edl_cc *cc, ast_name name, ast_attr *attrs)
{
    ast_field *f = EDL_NEW(cc, ast_field);
    f->name = name;
    f->attrs = attrs;
    return f;
}

ast_field *edl_ast_items(edl_cc *cc, ast_comp *comps, const ast_name *shape, const ast_name *by)
{
    ast_field *f = EDL_NEW(cc, ast_field);
    f->is_array = 1;
    f->comps = comps;
    if (shape)
        f->shape_ref = *shape;
    if (by)
        f->shape_by = *by;
    return f;
}

ast_field *edl_ast_array(edl_cc *cc, ast_field *items, ast_name name, ast_name count,
                         edl_loc count_loc, ast_attr *attrs)
{
    (void)cc;
    items->name = name;
    items->count = count;
    items->count_loc = count_loc;
    items->attrs = attrs;
    return items;
}

ast_type edl_ast_type(ast_name name, edl_encoding enc, edl_loc enc_loc)
{
    ast_type t;
    memset(&t, 0, sizeof t);
    t.name = name;
    t.enc = enc;
    t.enc_loc = enc_loc;
    return t;
}

ast_attr *edl_ast_attr(edl_cc *cc, attr_kind kind, ast_name value)
{
    ast_attr *a = EDL_NEW(cc, ast_attr);
    a->kind = kind;
    a->value = value;
    return a;
}

ast_comp *edl_ast_comp(edl_cc *cc, const ast_name *name, ast_type type)
{
    ast_comp *c = EDL_NEW(cc, ast_comp);
    if (name)
        c->name = *name;
    else
        c->name.loc = type.name.loc;
    c->type = type;
    return c;
}

void edl_ast_shape(edl_cc *cc, ast_name name, ast_shape_entry *entries)
{
    ast_shape *s = EDL_NEW(cc, ast_shape);
    s->name = name;
    s->entries = entries;
    cc->l_shapes = edl_list_append(cc->l_shapes, s);
}

ast_shape_entry *edl_ast_shape_entry(edl_cc *cc, const ast_name *token, edl_loc loc,
                                     ast_comp *comps)
{
    ast_shape_entry *e = EDL_NEW(cc, ast_shape_entry);
    e->loc = loc;
    if (token)
        e->token = *token;
    e->comps = comps;
    return e;
}

ast_bind *edl_ast_key_spec(edl_cc *cc, edl_loc loc, int nkeys, unsigned long i0, edl_loc l0,
                           unsigned long i1, edl_loc l1)
{
    ast_bind *b = EDL_NEW(cc, ast_bind);
    b->spec_loc = loc;
    b->nkeys = nkeys;
    b->index[0] = i0;
    b->index[1] = i1;
    b->index_loc[0] = l0;
    b->index_loc[1] = l1;
    return b;
}

void edl_ast_bind(edl_cc *cc, ast_bind *b)
{
    cc->l_binds = edl_list_append(cc->l_binds, b);
}

ast_bind_entry *edl_ast_bind_entry(edl_cc *cc, edl_loc loc, int nkeys, const ast_name *k1,
                                   const ast_name *k2)
{
    ast_bind_entry *e = EDL_NEW(cc, ast_bind_entry);
    e->loc = loc;
    e->nkeys = nkeys;
    if (k1)
        e->key[0] = *k1;
    if (k2)
        e->key[1] = *k2;
    return e;
}

/* ---- the pass ---- */

void edl_parse_abort(edl_cc *cc)
{
    if (cc->scanner) {
        edl_yylex_destroy(cc->scanner);
        cc->scanner = NULL;
    }
}

int edl_parse(edl_cc *cc)
{
    yyscan_t scanner;
    unsigned before = cc->errors;
    if (cc->len > INT_MAX / 2) {
        edl_error(cc, edl_noloc(), "source is too large (%zu bytes)", cc->len);
        return 0;
    }
    if (edl_yylex_init_extra(cc, &scanner) != 0)
        longjmp(cc->oom, 1);
    cc->scanner = scanner;
    cc->line = cc->column = 1;
    /* A UTF-8 byte order mark, as some editors write, is not part of the source. */
    size_t skip = cc->len >= 3 && memcmp(cc->src, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
    edl_yy_scan_bytes(cc->src + skip, (int)(cc->len - skip), scanner);
    int rc = edl_yyparse(scanner, cc);
    cc->scanner = NULL;
    edl_yylex_destroy(scanner);
    cc->ast.headers = cc->l_headers.head;
    cc->ast.records = cc->l_records.head;
    cc->ast.shapes = cc->l_shapes.head;
    cc->ast.binds = cc->l_binds.head;
    return rc == 0 && cc->errors == before;
}
