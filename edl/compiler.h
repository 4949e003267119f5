/* compiler.h -- internals of the EDL compiler (libedl), shared by its passes:
 * parse (lexer.l, parser.y, parse.c), resolve.c, check.c, layout.c, emit.c.
 * The syntax tree lives in one arena, freed in one call with the compile. */
#ifndef EDL_COMPILER_H
#define EDL_COMPILER_H

#include <setjmp.h>
#include <stddef.h>

#include "edl/edl.h"

/* ---- source locations (also bison's location type) ---- */
typedef struct edl_loc {
    int first_line, first_column;   /* 1-based */
    int last_line, last_column;     /* inclusive */
} edl_loc;

/* ---- the arena: every tree node and string of a compile ---- */
typedef struct edl_arena edl_arena;
typedef struct edl_cc edl_cc;

/* Zeroed memory; on exhaustion the compile unwinds (edl_cc.oom). */
void *edl_alloc(edl_cc *cc, size_t n);
char *edl_strndup(edl_cc *cc, const char *s, size_t n);
char *edl_strdup(edl_cc *cc, const char *s);
char *edl_sprintf(edl_cc *cc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void edl_arena_destroy(edl_arena *a);
#define EDL_NEW(cc, T) ((T *)edl_alloc((cc), sizeof(T)))

/* ---- a string -> pointer map in the arena (symbol tables) ---- */
typedef struct edl_map {
    const char **keys;
    void **vals;
    size_t cap, n;
} edl_map;
void *edl_map_get(const edl_map *m, const char *key);
void edl_map_put(edl_cc *cc, edl_map *m, const char *key, void *val);

/* ---- the syntax tree ---- */

/* An identifier or a string with where it was written; text NULL = absent. */
typedef struct ast_name {
    const char *text;
    edl_loc loc;
} ast_name;

/* Every list node starts with its link, so one append serves all lists. */
typedef struct ast_list {
    void *head, *tail;
} ast_list;
ast_list edl_list_append(ast_list l, void *node);

typedef enum hdr_kind {
    HDR_NAME, HDR_VERSION, HDR_REPRESENTATION, HDR_BYTEORDER, HDR_FRAMING,
    HDR_SEPARATORS, HDR_COMMENT, HDR_QUOTE, HDR_BLANKLINES, HDR_SKIPLINES,
    HDR_TIMESTAMP, HDR_PROCESS, HDR_THREAD, HDR_COUNT
} hdr_kind;

/* Keyword values of header items. */
typedef enum hdr_word {
    W_UNSET = 0, W_BINARY, W_ASCII, W_LITTLE, W_BIG, W_NATIVE, W_ECL, W_RAW, W_LINES,
    W_MERGED, W_SINGLE, W_ANYWHERE, W_BACKSLASH, W_DOUBLED, W_SKIP, W_ERROR,
    W_CONTAINER, W_NONE
} hdr_word;

/* REFERS TO record.field [PER PROCESS | GLOBAL]; record.text NULL = none. */
typedef struct ast_ref {
    ast_name record, field;
    int global;
    edl_loc loc;              /* the REFERS keyword */
} ast_ref;

typedef struct ast_hdr {
    struct ast_hdr *next;
    hdr_kind kind;
    edl_loc loc;              /* the item's keyword */
    hdr_word word, mode;      /* value keyword; SEPARATORS/COMMENT/QUOTE modifier */
    edl_loc word_loc, mode_loc;
    ast_name value;           /* string or identifier value */
    ast_name unit;            /* TIMESTAMP ... UNIT */
    ast_name frac, frac_unit; /* TIMESTAMP ... + field UNIT */
    unsigned long num;        /* SKIPLINES */
    edl_loc num_loc;
    ast_ref ref;              /* PROCESS / THREAD ... REFERS TO */
    struct ast_field *ref_field;   /* resolved target field */
} ast_hdr;

/* A scalar type as written: a type name and an optional encoding keyword. */
typedef struct ast_type {
    ast_name name;
    edl_encoding enc;         /* EDL_ENC_NONE when not written */
    edl_loc enc_loc;
    edl_type type;            /* resolved; 0 when unknown */
} ast_type;

/* One component of an array item: "name IS type" or just "type". */
typedef struct ast_comp {
    struct ast_comp *next;
    ast_name name;
    ast_type type;
} ast_comp;

typedef struct ast_shape_entry {
    struct ast_shape_entry *next;
    edl_loc loc;
    ast_name token;           /* text NULL for DEFAULT IS FORMAT */
    ast_comp *comps;
} ast_shape_entry;

typedef struct ast_shape {
    struct ast_shape *next;
    ast_name name;
    ast_shape_entry *entries;
    int used;
} ast_shape;

typedef enum attr_kind {
    ATTR_UNIT, ATTR_DESCRIPTION, ATTR_OPTIONAL, ATTR_ROLE, ATTR_REFERS, ATTR_COUNT
} attr_kind;
typedef struct ast_attr {
    struct ast_attr *next;
    attr_kind kind;
    ast_name value;           /* loc is the keyword's for OPTIONAL; ROLE: the role name */
    ast_ref ref;              /* REFERS TO */
} ast_attr;

/* A role name in ROLE IS a, b ...; */
typedef struct ast_role_name {
    struct ast_role_name *next;
    ast_name name;
    edl_record_role role;     /* resolved; EDL_ROLE_NONE when unknown */
} ast_role_name;

/* ROLE IS names [WHEN field IS "value"]; */
typedef struct ast_role_stmt {
    struct ast_role_stmt *next;
    edl_loc loc;
    ast_role_name *names;
    ast_name when_field, when_value;   /* text NULL: unconditional */
    struct ast_field *when;   /* resolved */
    const char *canon;        /* check: the value as the dictionary stores it */
} ast_role_stmt;

/* REGION IS "name"; (and OPERATION IS "bcast";) */
typedef struct ast_region {
    struct ast_region *next;
    edl_loc loc;
    ast_name value;
} ast_region;

/* The body of a record descriptor, as the parser collects it. */
typedef struct ast_body {
    ast_list fields, roles, regions, operations;
} ast_body;

typedef struct ast_record ast_record;

typedef struct ast_field {
    struct ast_field *next;
    ast_name name;
    int is_array;
    ast_type type;            /* scalar fields */
    /* arrays: ARRAY [count] OF items */
    ast_name count;           /* text NULL with REST */
    edl_loc count_loc;
    ast_comp *comps;          /* fixed item shape */
    ast_name shape_ref, shape_by;   /* OF shape BY field */
    ast_attr *attrs;
    /* filled by resolve */
    ast_name unit, desc;
    int optional;
    edl_loc optional_loc;
    ast_name role_name;       /* ROLE name; text NULL = none */
    edl_field_role role;      /* resolved (EDL_FROLE_NONE when none or unknown) */
    ast_ref ref;              /* REFERS TO; record.text NULL = none */
    struct ast_field *ref_field;   /* resolved target field */
    size_t index;
    struct ast_field *count_field, *shape_field;
    ast_shape *shape;
    ast_record *record;
} ast_field;

struct ast_record {
    ast_record *next;
    ast_name name;
    ast_name desc;
    ast_field *fields;
    size_t nfields;
    ast_role_stmt *roles;
    ast_region *regions;      /* REGION statements (one allowed) */
    ast_region *operations;   /* OPERATION statements (one allowed) */
    edl_map by_name;          /* fields */
    int bound;                /* named by a bind entry */
    int dup;                  /* a duplicate name: reported, then ignored */
    int key_state;            /* check: 0 unchecked, 1 key fields good, 2 reported bad */
    int is_default;           /* named by DEFAULT IS */
    int not_definition_reported;   /* check: referred to but no definition, said once */
};

typedef struct ast_bind_entry {
    struct ast_bind_entry *next;
    edl_loc loc;
    int nkeys;                /* 1, 2; 0 for DEFAULT IS "record" */
    ast_name key[2];
    ast_name record;
    ast_record *rec;          /* resolved */
    const char *canon[2];     /* canonical key text (check) */
} ast_bind_entry;

typedef struct ast_bind {
    struct ast_bind *next;
    edl_loc loc;
    int nkeys;                /* 0 = DEFAULT, 1, 2 */
    int none;                 /* (n, NONE) written */
    unsigned long index[2];
    edl_loc index_loc[2];
    edl_loc spec_loc;
    ast_bind_entry *entries;
} ast_bind;

typedef struct ast_header {
    struct ast_header *next;
    edl_loc loc;
    ast_hdr *items;
} ast_header;

typedef struct ast_file {
    ast_header *headers;
    ast_record *records;
    ast_shape *shapes;
    ast_bind *binds;
} ast_file;

/* ---- the compile: context shared by every pass ---- */

/* The header, resolved: one item per kind (NULL = not given). */
typedef struct edl_header_view {
    const ast_hdr *item[HDR_COUNT];
    int ascii;                /* REPRESENTATION IS ASCII */
} edl_header_view;

struct edl_cc {
    const char *file;
    const char *src;
    size_t len;
    size_t *line_start;       /* lazily built line index */
    size_t nlines;
    edl_diag_fn fn;
    void *fn_ctx;
    unsigned errors, warnings;
    int too_many;
    struct edl_pending *pending;  /* diagnostics, emitted sorted by place */
    size_t npending, pending_cap;
    int lex_error_line;       /* line of the last lexical error, 0 = none */
    edl_arena *arena;
    jmp_buf oom;              /* longjmp target when memory runs out */
    void *scanner;            /* live flex scanner, freed on unwinding */
    edl_dict *dict;           /* dictionary being emitted, freed on unwinding */
    ast_file ast;
    edl_header_view hv;
    edl_map records, shapes;
    ast_bind *bind;           /* the one bind descriptor */
    /* layout: the physical choices the dictionary records */
    char byte_order;          /* 'L' or 'B' */
    edl_framing framing;
    const char *separators, *comment;
    unsigned ascii_flags;
    char quote;
    unsigned skip_lines;
    /* parse state */
    int line, column;
    edl_loc comment_loc;
    ast_list l_headers, l_records, l_shapes, l_binds;
};

/* ---- diagnostics (compile.c) ---- */
void edl_error(edl_cc *cc, edl_loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void edl_warning(edl_cc *cc, edl_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void edl_note(edl_cc *cc, edl_loc loc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A syntax error from the parser: dropped when it merely follows a lexical
 * error on the same or the previous line (that error explains it). */
void edl_syntax_error(edl_cc *cc, edl_loc loc, const char *msg);
/* A lexical error (remembered for edl_syntax_error). */
void edl_lex_error(edl_cc *cc, edl_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Hands the diagnostics to the sink, sorted by place (whole-file ones last). */
void edl_flush_diagnostics(edl_cc *cc);
/* A location that means "the whole file" (no source line). */
edl_loc edl_noloc(void);
/* The closest of candidates[0..n) to word (for "did you mean"), or NULL. */
const char *edl_suggest(const char *word, const char *const *candidates, size_t n);

/* ---- passes ---- */
/* parse.c: lexes and parses cc->src into cc->ast; 0 when no syntax error. */
int edl_parse(edl_cc *cc);
/* Frees the scanner of a parse interrupted by running out of memory. */
void edl_parse_abort(edl_cc *cc);
/* resolve.c: names to declarations, types, duplicates. */
void edl_resolve(edl_cc *cc);
/* check.c: every rule a dictionary must obey that resolve does not see. */
void edl_check(edl_cc *cc);
/* layout.c: defaults and physical choices (encodings, byte order, syntax flags). */
void edl_layout(edl_cc *cc);
/* emit.c: builds cc->dict from the checked, laid out tree. */
void edl_emit(edl_cc *cc);

/* ---- helpers shared by passes ---- */
/* Type code of a type name, 0 when unknown. */
edl_type edl_type_by_name(const char *name);
extern const char *const edl_type_names[];   /* NULL-terminated */
int edl_type_is_integer(edl_type t);
int edl_type_is_signed(edl_type t);
int edl_type_is_numeric(edl_type t);
/* The encoding a field of type t gets when none is written. */
edl_encoding edl_default_encoding(const edl_cc *cc, edl_type t);
/* The header's string value of kind k, or dflt. */
const char *edl_hdr_text(const edl_cc *cc, hdr_kind k, const char *dflt);
hdr_word edl_hdr_word(const edl_cc *cc, hdr_kind k, hdr_word dflt);
const char *edl_hdr_keyword(hdr_kind k);
/* Keyword text of a header value word. */
const char *edl_word_name(hdr_word w);

#endif /* EDL_COMPILER_H */
