/* parser.y -- the EDL grammar (libedl, parse pass). A trace descriptor is a
 * HEADER block, then record descriptors, shape tables and one bind descriptor
 * (seed paper, Fig. 4-7; doc/edl.md). Actions only build the syntax tree
 * through parse.c; every rule about meaning is checked by later passes. */

%code top {
#include "config.h"
}

%code requires {
#include "edl/compiler.h"
}

%code provides {
int edl_yylex(EDL_YYSTYPE *yylval, EDL_YYLTYPE *yylloc, void *scanner);
}

%code {
#include <stdio.h>
#include <string.h>

#include "edl/parse.h"

static void edl_yyerror(EDL_YYLTYPE *loc, void *scanner, edl_cc *cc, const char *msg)
{
    (void)scanner;
    edl_syntax_error(cc, *loc, msg);
}

}

/* A pure parser: no globals, so compiles can run in parallel threads. */
%define api.pure full
/* Prefixed, so the parser links next to other bison parsers. */
%define api.prefix {edl_yy}
/* Our location type: the passes share it (compiler.h). */
%define api.location.type {edl_loc}
/* Syntax errors say what was found and what was expected (up to six
 * tokens, so that a missing ';' after a field's attributes is named). */
%define parse.error custom
/* Every diagnostic has a line and a column. */
%locations
/* The grammar is LALR(1) without conflicts; keep it that way. */
%expect 0

%param {void *scanner}
%parse-param {edl_cc *cc}

%union {
    ast_name name;
    struct { unsigned long value; edl_loc loc; } number;
    ast_list list;
    ast_hdr *hdr;
    ast_type type;
    ast_field *field;
    ast_attr *attr;
    ast_comp *comp;
    ast_shape_entry *sentry;
    ast_bind_entry *bentry;
    ast_bind *bind;
    struct { hdr_word word; edl_loc loc; } word;
    edl_encoding enc;
    ast_body body;
    ast_ref ref;
    ast_role_name *rname;
    ast_role_stmt *rstmt;
}

/* Every semantic value points into the compile's arena (STYLE 9), which is
 * freed in one call whatever happens; a value bison discards during error
 * recovery therefore owns nothing. Said once, for every type: */
%destructor { (void)$$; } <*>

%token <name> IDENT "identifier"
%token <name> STRING "string"
%token <number> NUMBER "number"
%token KW_HEADER "HEADER" KW_RECORD "RECORD" KW_FIELD "FIELD" KW_SHAPE "SHAPE"
%token KW_BIND "BIND" KW_KEYFIELD "KEYFIELD" KW_INDEX "INDEX" KW_IS "IS"
%token KW_BEGIN "BEGIN" KW_END "END" KW_NONE "NONE" KW_DEFAULT "DEFAULT"
%token KW_NAME "NAME" KW_VERSION "VERSION" KW_REPRESENTATION "REPRESENTATION"
%token KW_BINARY "BINARY" KW_ASCII "ASCII" KW_BYTEORDER "BYTEORDER"
%token KW_LITTLE "LITTLE" KW_BIG "BIG" KW_NATIVE "NATIVE" KW_FRAMING "FRAMING"
%token KW_ECL "ECL" KW_RAW "RAW" KW_LINES "LINES" KW_SEPARATORS "SEPARATORS"
%token KW_MERGED "MERGED" KW_SINGLE "SINGLE" KW_COMMENT "COMMENT"
%token KW_ANYWHERE "ANYWHERE" KW_QUOTE "QUOTE" KW_BACKSLASH "BACKSLASH"
%token KW_DOUBLED "DOUBLED" KW_BLANKLINES "BLANKLINES" KW_SKIP "SKIP"
%token KW_ERROR "ERROR" KW_SKIPLINES "SKIPLINES" KW_TIMESTAMP "TIMESTAMP"
%token KW_UNIT "UNIT" KW_PROCESS "PROCESS" KW_THREAD "THREAD"
%token KW_CONTAINER "CONTAINER" KW_DESCRIPTION "DESCRIPTION"
%token KW_OPTIONAL "OPTIONAL" KW_ARRAY "ARRAY" KW_OF "OF" KW_REST "REST"
%token KW_BY "BY" KW_FORMAT "FORMAT" KW_FIXED "FIXED" KW_ULEB "ULEB"
%token KW_SLEB "SLEB" KW_TDELTA "TDELTA" KW_LSTRING "LSTRING" KW_TEXT "TEXT"
%token KW_ROLE "ROLE" KW_REFERS "REFERS" KW_TO "TO" KW_PER "PER" KW_GLOBAL "GLOBAL"
%token KW_WHEN "WHEN" KW_REGION "REGION" KW_OPERATION "OPERATION"

%type <list> hdr_items attrs comps shape_entries bind_entries role_names
%type <body> body
%type <ref> ref opt_ref
%type <rname> role_name
%type <rstmt> role_stmt
%type <hdr> hdr_item
%type <name> name_value opt_description
%type <word> representation byteorder framing sep_mode comment_mode quote_mode
%type <word> blanklines designation
%type <type> type
%type <enc> encoding
%type <field> field item_shape
%type <attr> attr
%type <comp> comp
%type <sentry> shape_entry
%type <bentry> bind_entry bind_info
%type <bind> key_spec

%%

descriptor:
    %empty
  | descriptor item
  ;

item:
    header
  | record
  | shape
  | bind
  | error ';'                   { yyerrok; }
  ;

/* ---- header ---- */

/* An "error END ;" alternative closes a block at its END after a bad item,
 * so that one mistake does not cascade into the rest of the file. */
header:
    KW_HEADER KW_IS KW_BEGIN hdr_items KW_END ';'
                                { edl_ast_header(cc, @1, $4.head); }
  | KW_HEADER KW_IS KW_BEGIN hdr_items error KW_END ';'
                                { edl_ast_header(cc, @1, $4.head); }
  ;

hdr_items:
    %empty                      { $$ = (ast_list){0, 0}; }
  | hdr_items hdr_item          { $$ = edl_list_append($1, $2); }
  | hdr_items error ';'         { $$ = $1; yyerrok; }
  ;

hdr_item:
    KW_NAME KW_IS name_value ';'
                                { $$ = edl_ast_hdr(cc, HDR_NAME, @1); $$->value = $3; }
  | KW_VERSION KW_IS STRING ';'
                                { $$ = edl_ast_hdr(cc, HDR_VERSION, @1); $$->value = $3; }
  | KW_REPRESENTATION KW_IS representation ';'
                                { $$ = edl_ast_hdr_word(cc, HDR_REPRESENTATION, @1, $3.word, $3.loc); }
  | KW_BYTEORDER KW_IS byteorder ';'
                                { $$ = edl_ast_hdr_word(cc, HDR_BYTEORDER, @1, $3.word, $3.loc); }
  | KW_FRAMING KW_IS framing ';'
                                { $$ = edl_ast_hdr_word(cc, HDR_FRAMING, @1, $3.word, $3.loc); }
  | KW_SEPARATORS KW_IS STRING sep_mode ';'
                                { $$ = edl_ast_hdr(cc, HDR_SEPARATORS, @1); $$->value = $3;
                                  $$->mode = $4.word; $$->mode_loc = $4.loc; }
  | KW_COMMENT KW_IS STRING comment_mode ';'
                                { $$ = edl_ast_hdr(cc, HDR_COMMENT, @1); $$->value = $3;
                                  $$->mode = $4.word; $$->mode_loc = $4.loc; }
  | KW_COMMENT KW_IS KW_NONE ';'
                                { $$ = edl_ast_hdr_word(cc, HDR_COMMENT, @1, W_NONE, @3); }
  | KW_QUOTE KW_IS STRING quote_mode ';'
                                { $$ = edl_ast_hdr(cc, HDR_QUOTE, @1); $$->value = $3;
                                  $$->mode = $4.word; $$->mode_loc = $4.loc; }
  | KW_QUOTE KW_IS KW_NONE ';'
                                { $$ = edl_ast_hdr_word(cc, HDR_QUOTE, @1, W_NONE, @3); }
  | KW_BLANKLINES KW_IS blanklines ';'
                                { $$ = edl_ast_hdr_word(cc, HDR_BLANKLINES, @1, $3.word, $3.loc); }
  | KW_SKIPLINES KW_IS NUMBER ';'
                                { $$ = edl_ast_hdr(cc, HDR_SKIPLINES, @1);
                                  $$->num = $3.value; $$->num_loc = $3.loc; }
  | KW_TIMESTAMP KW_IS IDENT KW_UNIT STRING ';'
                                { $$ = edl_ast_hdr(cc, HDR_TIMESTAMP, @1);
                                  $$->value = $3; $$->unit = $5; }
  | KW_TIMESTAMP KW_IS IDENT KW_UNIT STRING '+' IDENT KW_UNIT STRING ';'
                                { $$ = edl_ast_hdr(cc, HDR_TIMESTAMP, @1); $$->value = $3;
                                  $$->unit = $5; $$->frac = $7; $$->frac_unit = $9; }
  | KW_PROCESS KW_IS designation opt_ref ';'
                                { $$ = edl_ast_hdr_word(cc, HDR_PROCESS, @1, $3.word, $3.loc);
                                  $$->ref = $4; }
  | KW_PROCESS KW_IS IDENT opt_ref ';'
                                { $$ = edl_ast_hdr(cc, HDR_PROCESS, @1); $$->value = $3;
                                  $$->ref = $4; }
  | KW_THREAD KW_IS designation opt_ref ';'
                                { $$ = edl_ast_hdr_word(cc, HDR_THREAD, @1, $3.word, $3.loc);
                                  $$->ref = $4; }
  | KW_THREAD KW_IS IDENT opt_ref ';'
                                { $$ = edl_ast_hdr(cc, HDR_THREAD, @1); $$->value = $3;
                                  $$->ref = $4; }
  ;

/* A reference from an id to the definition record that names it. */
ref:
    KW_REFERS KW_TO IDENT '.' IDENT
                                { $$.record = $3; $$.field = $5; $$.global = 0; $$.loc = @1; }
  | KW_REFERS KW_TO IDENT '.' IDENT KW_PER KW_PROCESS
                                { $$.record = $3; $$.field = $5; $$.global = 0; $$.loc = @1; }
  | KW_REFERS KW_TO IDENT '.' IDENT KW_GLOBAL
                                { $$.record = $3; $$.field = $5; $$.global = 1; $$.loc = @1; }
  ;

opt_ref:
    %empty                      { memset(&$$, 0, sizeof $$); $$.loc = @$; }
  | ref
  ;

name_value:
    IDENT
  | STRING
  ;

representation:
    KW_BINARY                   { $$.word = W_BINARY; $$.loc = @1; }
  | KW_ASCII                    { $$.word = W_ASCII; $$.loc = @1; }
  ;

byteorder:
    KW_LITTLE                   { $$.word = W_LITTLE; $$.loc = @1; }
  | KW_BIG                      { $$.word = W_BIG; $$.loc = @1; }
  | KW_NATIVE                   { $$.word = W_NATIVE; $$.loc = @1; }
  ;

framing:
    KW_ECL                      { $$.word = W_ECL; $$.loc = @1; }
  | KW_RAW                      { $$.word = W_RAW; $$.loc = @1; }
  | KW_LINES                    { $$.word = W_LINES; $$.loc = @1; }
  ;

sep_mode:
    %empty                      { $$.word = W_UNSET; $$.loc = @$; }
  | KW_MERGED                   { $$.word = W_MERGED; $$.loc = @1; }
  | KW_SINGLE                   { $$.word = W_SINGLE; $$.loc = @1; }
  ;

comment_mode:
    %empty                      { $$.word = W_UNSET; $$.loc = @$; }
  | KW_ANYWHERE                 { $$.word = W_ANYWHERE; $$.loc = @1; }
  ;

quote_mode:
    %empty                      { $$.word = W_UNSET; $$.loc = @$; }
  | KW_BACKSLASH                { $$.word = W_BACKSLASH; $$.loc = @1; }
  | KW_DOUBLED                  { $$.word = W_DOUBLED; $$.loc = @1; }
  ;

blanklines:
    KW_SKIP                     { $$.word = W_SKIP; $$.loc = @1; }
  | KW_ERROR                    { $$.word = W_ERROR; $$.loc = @1; }
  ;

designation:
    KW_CONTAINER                { $$.word = W_CONTAINER; $$.loc = @1; }
  | KW_NONE                     { $$.word = W_NONE; $$.loc = @1; }
  ;

/* ---- record descriptors ---- */

record:
    KW_RECORD IDENT opt_description KW_IS KW_BEGIN body KW_END ';'
                                { edl_ast_record(cc, $2, $3, &$6); }
  | KW_RECORD IDENT opt_description KW_IS KW_BEGIN body error KW_END ';'
                                { edl_ast_record(cc, $2, $3, &$6); }
  ;

opt_description:
    %empty                      { $$.text = NULL; $$.loc = @$; }
  | KW_DESCRIPTION STRING       { $$ = $2; }
  ;

/* Fields, and the record's roles, region and operation, in any order. */
body:
    %empty                      { memset(&$$, 0, sizeof $$); }
  | body field                  { $$ = $1; $$.fields = edl_list_append($1.fields, $2); }
  | body role_stmt              { $$ = $1; $$.roles = edl_list_append($1.roles, $2); }
  | body KW_REGION KW_IS STRING ';'
                                { $$ = $1; $$.regions = edl_list_append($1.regions,
                                                                  edl_ast_region(cc, @2, $4)); }
  | body KW_OPERATION KW_IS STRING ';'
                                { $$ = $1; $$.operations = edl_list_append($1.operations,
                                                                     edl_ast_region(cc, @2, $4)); }
  | body error ';'              { $$ = $1; yyerrok; }
  ;

role_stmt:
    KW_ROLE KW_IS role_names ';'
                                { $$ = edl_ast_role_stmt(cc, @1, $3.head, NULL, NULL); }
  | KW_ROLE KW_IS role_names KW_WHEN IDENT KW_IS STRING ';'
                                { $$ = edl_ast_role_stmt(cc, @1, $3.head, &$5, &$7); }
  ;

role_names:
    role_name                   { $$ = edl_list_append((ast_list){0, 0}, $1); }
  | role_names ',' role_name    { $$ = edl_list_append($1, $3); }
  ;

role_name:
    IDENT                       { $$ = edl_ast_role_name(cc, $1); }
  ;

field:
    KW_FIELD IDENT KW_IS type attrs ';'
                                { $$ = edl_ast_field(cc, $2, $5.head); $$->type = $4; }
  | KW_FIELD IDENT KW_IS KW_ARRAY '[' IDENT ']' KW_OF item_shape attrs ';'
                                { $$ = edl_ast_array(cc, $9, $2, $6, @6, $10.head); }
  | KW_FIELD IDENT KW_IS KW_ARRAY '[' KW_REST ']' KW_OF item_shape attrs ';'
                                { ast_name rest = {0, @6};
                                  $$ = edl_ast_array(cc, $9, $2, rest, @6, $10.head); }
  ;

/* An array field in the making: its item shape. */
item_shape:
    type                        { $$ = edl_ast_items(cc, edl_ast_comp(cc, NULL, $1), NULL, NULL); }
  | '(' comps ')'               { $$ = edl_ast_items(cc, $2.head, NULL, NULL); }
  | IDENT KW_BY IDENT           { $$ = edl_ast_items(cc, NULL, &$1, &$3); }
  ;

type:
    IDENT                       { $$ = edl_ast_type($1, EDL_ENC_NONE, @1); }
  | IDENT encoding              { $$ = edl_ast_type($1, $2, @2); }
  ;

encoding:
    KW_FIXED                    { $$ = EDL_ENC_FIXED; }
  | KW_ULEB                     { $$ = EDL_ENC_ULEB; }
  | KW_SLEB                     { $$ = EDL_ENC_SLEB; }
  | KW_TDELTA                   { $$ = EDL_ENC_TDELTA; }
  | KW_LSTRING                  { $$ = EDL_ENC_LSTRING; }
  | KW_TEXT                     { $$ = EDL_ENC_TEXT; }
  ;

attrs:
    %empty                      { $$ = (ast_list){0, 0}; }
  | attrs attr                  { $$ = edl_list_append($1, $2); }
  ;

attr:
    KW_UNIT STRING              { $$ = edl_ast_attr(cc, ATTR_UNIT, $2); }
  | KW_DESCRIPTION STRING       { $$ = edl_ast_attr(cc, ATTR_DESCRIPTION, $2); }
  | KW_OPTIONAL                 { ast_name n = {"OPTIONAL", @1};
                                  $$ = edl_ast_attr(cc, ATTR_OPTIONAL, n); }
  | KW_ROLE IDENT               { $$ = edl_ast_attr(cc, ATTR_ROLE, $2); }
  | ref                         { $$ = edl_ast_attr_ref(cc, $1); }
  ;

comps:
    comp                        { $$ = edl_list_append((ast_list){0, 0}, $1); }
  | comps ',' comp              { $$ = edl_list_append($1, $3); }
  ;

comp:
    type                        { $$ = edl_ast_comp(cc, NULL, $1); }
  | IDENT KW_IS type            { $$ = edl_ast_comp(cc, &$1, $3); }
  ;

/* ---- shape tables ---- */

shape:
    KW_SHAPE IDENT KW_IS KW_BEGIN shape_entries KW_END ';'
                                { edl_ast_shape(cc, $2, $5.head); }
  | KW_SHAPE IDENT KW_IS KW_BEGIN shape_entries error KW_END ';'
                                { edl_ast_shape(cc, $2, $5.head); }
  ;

shape_entries:
    %empty                      { $$ = (ast_list){0, 0}; }
  | shape_entries shape_entry   { $$ = edl_list_append($1, $2); }
  | shape_entries error ';'     { $$ = $1; yyerrok; }
  ;

shape_entry:
    STRING KW_IS type ';'       { $$ = edl_ast_shape_entry(cc, &$1, @1,
                                        edl_ast_comp(cc, NULL, $3)); }
  | STRING KW_IS '(' comps ')' ';'
                                { $$ = edl_ast_shape_entry(cc, &$1, @1, $4.head); }
  | KW_DEFAULT KW_IS KW_FORMAT ';'
                                { $$ = edl_ast_shape_entry(cc, NULL, @1, NULL); }
  ;

/* ---- the bind descriptor: the seed's grammar (Fig. 7), plus DEFAULT IS ---- */

bind:
    KW_BIND KW_IS KW_KEYFIELD KW_INDEX KW_IS key_spec ';' KW_BEGIN bind_entries KW_END ';'
                                { $6->loc = @1; $6->entries = $9.head; edl_ast_bind(cc, $6); }
  | KW_BIND KW_IS KW_KEYFIELD KW_INDEX KW_IS error KW_BEGIN bind_entries KW_END ';'
                                { ast_bind *b = edl_ast_key_spec(cc, @6, 0, 0, @6, 0, @6);
                                  b->loc = @1; b->entries = $8.head; edl_ast_bind(cc, b); }
  | KW_BIND KW_IS KW_KEYFIELD KW_INDEX KW_IS key_spec ';' KW_BEGIN bind_entries error KW_END ';'
                                { $6->loc = @1; $6->entries = $9.head; edl_ast_bind(cc, $6); }
  ;

key_spec:
    '(' NUMBER ',' NUMBER ')'   { $$ = edl_ast_key_spec(cc, @$, 2, $2.value, $2.loc,
                                                        $4.value, $4.loc); }
  | '(' NUMBER ',' KW_NONE ')'  { $$ = edl_ast_key_spec(cc, @$, 1, $2.value, $2.loc, 0, @4);
                                  $$->none = 1; }
  | '(' NUMBER ')'              { $$ = edl_ast_key_spec(cc, @$, 1, $2.value, $2.loc, 0, @2); }
  | NUMBER                      { $$ = edl_ast_key_spec(cc, @$, 1, $1.value, $1.loc, 0, @1); }
  | KW_DEFAULT                  { $$ = edl_ast_key_spec(cc, @$, 0, 0, @1, 0, @1); }
  ;

bind_entries:
    bind_entry                  { $$ = edl_list_append((ast_list){0, 0}, $1); }
  | error ';'                   { $$ = (ast_list){0, 0}; yyerrok; }
  | bind_entries bind_entry     { $$ = edl_list_append($1, $2); }
  | bind_entries error ';'      { $$ = $1; yyerrok; }
  ;

bind_entry:
    bind_info KW_IS STRING ';'  { $$ = $1; $$->record = $3; }
  | KW_DEFAULT KW_IS STRING ';' { $$ = edl_ast_bind_entry(cc, @1, 0, NULL, NULL);
                                  $$->record = $3; }
  ;

bind_info:
    '<' STRING ':' STRING '>'   { $$ = edl_ast_bind_entry(cc, @$, 2, &$2, &$4); }
  | '<' STRING '>'              { $$ = edl_ast_bind_entry(cc, @$, 1, &$2, NULL); }
  | STRING                      { $$ = edl_ast_bind_entry(cc, @$, 1, &$1, NULL); }
  ;

%%

/* "syntax error, unexpected X, expecting A or B": bison's verbose message,
 * listing up to six expected tokens instead of four. */
static int yyreport_syntax_error(const yypcontext_t *ctx, void *scanner, edl_cc *cc)
{
    (void)scanner;
    enum { MAX_EXPECTED = 6 };
    yysymbol_kind_t expected[MAX_EXPECTED];
    int n = yypcontext_expected_tokens(ctx, expected, MAX_EXPECTED);
    yysymbol_kind_t got = yypcontext_token(ctx);
    char msg[512];
    size_t len = (size_t)snprintf(msg, sizeof msg, "syntax error");
    if (got != YYSYMBOL_YYEMPTY && len < sizeof msg)
        len += (size_t)snprintf(msg + len, sizeof msg - len, ", unexpected %s",
                                yysymbol_name(got));
    for (int i = 0; i < n && len < sizeof msg; i++)
        len += (size_t)snprintf(msg + len, sizeof msg - len, "%s%s", i ? " or " : ", expecting ",
                                yysymbol_name(expected[i]));
    edl_syntax_error(cc, *yypcontext_location(ctx), msg);
    return 0;
}
