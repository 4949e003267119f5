/* parse.h -- what the generated scanner and parser call in parse.c: token
 * helpers (positions, numbers, strings) and syntax tree constructors. Kept
 * out of the generated files so that the logic builds with strict warnings. */
#ifndef EDL_PARSE_H
#define EDL_PARSE_H

#include "edl/compiler.h"

/* ---- scanner helpers ---- */
/* Sets *loc to the token text[0..len) that starts at the current position and
 * moves the position past it. */
void edl_lex_advance(edl_cc *cc, edl_loc *loc, const char *text, size_t len);
/* Value of a decimal literal; reports one that does not fit. */
unsigned long edl_lex_number(edl_cc *cc, edl_loc loc, const char *text);
/* The contents of a string literal (text has its quotes, the closing one may
 * be missing) with escapes decoded; reports bad escapes. */
char *edl_lex_string(edl_cc *cc, edl_loc loc, const char *text, size_t len);
/* Reports a byte that starts no token. */
void edl_lex_stray(edl_cc *cc, edl_loc loc, unsigned char c);

/* ---- syntax tree constructors ---- */
void edl_ast_header(edl_cc *cc, edl_loc loc, ast_hdr *items);
ast_hdr *edl_ast_hdr(edl_cc *cc, hdr_kind kind, edl_loc loc);
ast_hdr *edl_ast_hdr_word(edl_cc *cc, hdr_kind kind, edl_loc loc, hdr_word w, edl_loc wloc);
void edl_ast_record(edl_cc *cc, ast_name name, ast_name desc, const ast_body *body);
ast_role_name *edl_ast_role_name(edl_cc *cc, ast_name name);
ast_role_stmt *edl_ast_role_stmt(edl_cc *cc, edl_loc loc, ast_role_name *names,
                                 const ast_name *when_field, const ast_name *when_value);
ast_region *edl_ast_region(edl_cc *cc, edl_loc loc, ast_name value);
ast_attr *edl_ast_attr_ref(edl_cc *cc, ast_ref ref);
ast_field *edl_ast_field(edl_cc *cc, ast_name name, ast_attr *attrs);
ast_field *edl_ast_items(edl_cc *cc, ast_comp *comps, const ast_name *shape,
                         const ast_name *by);
ast_field *edl_ast_array(edl_cc *cc, ast_field *items, ast_name name, ast_name count,
                         edl_loc count_loc, ast_attr *attrs);
ast_type edl_ast_type(ast_name name, edl_encoding enc, edl_loc enc_loc);
ast_attr *edl_ast_attr(edl_cc *cc, attr_kind kind, ast_name value);
ast_comp *edl_ast_comp(edl_cc *cc, const ast_name *name, ast_type type);
void edl_ast_shape(edl_cc *cc, ast_name name, ast_shape_entry *entries);
ast_shape_entry *edl_ast_shape_entry(edl_cc *cc, const ast_name *token, edl_loc loc,
                                     ast_comp *comps);
ast_bind *edl_ast_key_spec(edl_cc *cc, edl_loc loc, int nkeys, unsigned long i0, edl_loc l0,
                           unsigned long i1, edl_loc l1);
void edl_ast_bind(edl_cc *cc, ast_bind *b);
ast_bind_entry *edl_ast_bind_entry(edl_cc *cc, edl_loc loc, int nkeys, const ast_name *k1,
                                   const ast_name *k2);

#endif /* EDL_PARSE_H */
