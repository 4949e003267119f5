/* check.c -- the check pass of the EDL compiler: every rule a trace
 * descriptor must obey once its names are resolved (representation-specific
 * header items, encodings against types, variable parts, designations, the
 * bind descriptor and its keys). It reports every violation it finds. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "edl/compiler.h"
#include "edl/roles.h"

static const char *const time_units[] = {"ticks", "ns", "us", "ms", "s", NULL};

static int have_header(const edl_cc *cc)
{
    return cc->ast.headers != NULL && cc->hv.item[HDR_REPRESENTATION] != NULL;
}

static int valid_ident(const char *s)
{
    if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_'))
        return 0;
    for (s++; *s; s++)
        if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') ||
              (*s >= '0' && *s <= '9') || *s == '_'))
            return 0;
    return 1;
}

static void check_time_unit(edl_cc *cc, const ast_name *u)
{
    for (size_t i = 0; time_units[i]; i++)
        if (strcmp(u->text, time_units[i]) == 0)
            return;
    const char *s = edl_suggest(u->text, time_units, 5);
    if (s)
        edl_error(cc, u->loc, "unknown time unit '%s'; did you mean '%s'?", u->text, s);
    else
        edl_error(cc, u->loc, "unknown time unit '%s' (one of ticks, ns, us, ms, s)", u->text);
}

/* ---- header ---- */

static void only_for(edl_cc *cc, hdr_kind k, int ascii_only)
{
    const ast_hdr *h = cc->hv.item[k];
    if (!h || cc->hv.ascii == ascii_only)
        return;
    edl_error(cc, h->loc, "%s applies to %s representations only", edl_hdr_keyword(k),
              ascii_only ? "ascii" : "binary");
}

static void check_header(edl_cc *cc)
{
    const ast_header *hb = cc->ast.headers;
    if (!hb)
        return;
    const ast_hdr *name = cc->hv.item[HDR_NAME];
    if (!name)
        edl_error(cc, hb->loc, "the header needs NAME IS <name>;");
    else if (!valid_ident(name->value.text))
        edl_error(cc, name->value.loc, "trace name '%s' is not an identifier", name->value.text);
    if (!cc->hv.item[HDR_REPRESENTATION]) {
        edl_error(cc, hb->loc, "the header needs REPRESENTATION IS BINARY; or ASCII;");
        return;
    }
    only_for(cc, HDR_BYTEORDER, 0);
    only_for(cc, HDR_SEPARATORS, 1);
    only_for(cc, HDR_COMMENT, 1);
    only_for(cc, HDR_QUOTE, 1);
    only_for(cc, HDR_BLANKLINES, 1);
    only_for(cc, HDR_SKIPLINES, 1);
    const ast_hdr *fr = cc->hv.item[HDR_FRAMING];
    if (fr && cc->hv.ascii && fr->word != W_LINES)
        edl_error(cc, fr->word_loc, "FRAMING IS %s is for binary representations; ascii is LINES",
                  edl_word_name(fr->word));
    if (fr && !cc->hv.ascii && fr->word == W_LINES)
        edl_error(cc, fr->word_loc, "FRAMING IS LINES is for ascii representations");

    const ast_hdr *sep = cc->hv.item[HDR_SEPARATORS];
    const char *seps = sep && cc->hv.ascii ? sep->value.text : " \t";
    if (sep && cc->hv.ascii) {
        if (!*seps)
            edl_error(cc, sep->value.loc, "SEPARATORS must not be empty");
        else if (strchr(seps, '\n'))
            edl_error(cc, sep->value.loc, "SEPARATORS cannot contain a newline (a line is a record)");
    }
    const ast_hdr *q = cc->hv.item[HDR_QUOTE];
    if (q && cc->hv.ascii && q->word != W_NONE) {
        const char *t = q->value.text;
        if (strlen(t) != 1 || (unsigned char)t[0] < 0x21 || (unsigned char)t[0] > 0x7e)
            edl_error(cc, q->value.loc, "QUOTE must be one printable character");
        else if (strchr(seps, t[0]))
            edl_error(cc, q->value.loc, "the quote character (%c) is also a separator", t[0]);
    }
    const ast_hdr *c = cc->hv.item[HDR_COMMENT];
    if (c && cc->hv.ascii && c->word != W_NONE) {
        if (!*c->value.text)
            edl_error(cc, c->value.loc, "empty comment prefix; write COMMENT IS NONE; for none");
        else if (strchr(c->value.text, '\n'))
            edl_error(cc, c->value.loc, "a comment prefix cannot contain a newline");
        else if (strchr(seps, c->value.text[0]))
            edl_error(cc, c->value.loc, "the comment prefix starts with a separator");
    }
    const ast_hdr *sk = cc->hv.item[HDR_SKIPLINES];
    if (sk && cc->hv.ascii && sk->num > 65535)
        edl_error(cc, sk->num_loc, "SKIPLINES %lu is too large (at most 65535)", sk->num);

    const ast_hdr *ts = cc->hv.item[HDR_TIMESTAMP];
    if (!ts) {
        edl_error(cc, hb->loc, "missing timestamp: the header needs TIMESTAMP IS <field> "
                               "UNIT \"<unit>\";");
    } else {
        check_time_unit(cc, &ts->unit);
        if (ts->frac.text) {
            check_time_unit(cc, &ts->frac_unit);
            if (strcmp(ts->frac.text, ts->value.text) == 0)
                edl_error(cc, ts->frac.loc, "the two timestamp fields must differ");
        }
    }
    for (hdr_kind k = HDR_PROCESS; k <= HDR_THREAD; k++) {
        const ast_hdr *h = cc->hv.item[k];
        if (h && h->word == W_CONTAINER &&
            (cc->hv.ascii || edl_hdr_word(cc, HDR_FRAMING, W_ECL) != W_ECL))
            edl_error(cc, h->word_loc, "%s IS CONTAINER needs FRAMING IS ECL (chunk headers "
                                       "carry it)", edl_hdr_keyword(k));
    }
}

/* ---- fields ---- */

static const char *type_text(edl_type t)
{
    return edl_type_name(t);
}

static int is_timestamp(const edl_cc *cc, const ast_field *f);

/* Checks the written encoding of a scalar or component against its type. */
static void check_encoding(edl_cc *cc, const ast_type *t, int timestamp)
{
    if (!t->type || !t->enc)
        return;
    const char *e = edl_encoding_name(t->enc);
    if (cc->hv.ascii && t->enc != EDL_ENC_TEXT) {
        edl_error(cc, t->enc_loc, "encoding %s is for binary representations; ascii fields are "
                                  "TEXT", e);
        return;
    }
    if (!cc->hv.ascii && t->enc == EDL_ENC_TEXT) {
        edl_error(cc, t->enc_loc, "encoding TEXT is for ascii representations");
        return;
    }
    const char *need = NULL;
    switch (t->enc) {
    case EDL_ENC_FIXED:
        if (t->type == EDL_STRING)
            need = "a number (strings are LSTRING)";
        break;
    case EDL_ENC_ULEB:
        if (!edl_type_is_integer(t->type) || edl_type_is_signed(t->type))
            need = "an unsigned integer type";
        break;
    case EDL_ENC_SLEB:
        if (!edl_type_is_signed(t->type))
            need = "a signed integer type";
        break;
    case EDL_ENC_TDELTA:
        if (t->type != EDL_UINT64)
            need = "type uint64";
        break;
    case EDL_ENC_LSTRING:
        if (t->type != EDL_STRING)
            need = "type string";
        break;
    default:
        break;
    }
    if (need) {
        edl_error(cc, t->enc_loc, "encoding %s cannot carry %s; it needs %s", e,
                  type_text(t->type), need);
        return;
    }
    if (t->enc == EDL_ENC_TDELTA && !timestamp)
        edl_error(cc, t->enc_loc, "TDELTA encodes the timestamp field only");
}

static void check_comps(edl_cc *cc, const ast_comp *comps)
{
    for (const ast_comp *c = comps; c; c = c->next) {
        check_encoding(cc, &c->type, 0);
        if (!c->name.text)
            continue;
        for (const ast_comp *d = comps; d != c; d = d->next)
            if (d->name.text && strcmp(d->name.text, c->name.text) == 0) {
                edl_error(cc, c->name.loc, "duplicate component '%s'", c->name.text);
                break;
            }
    }
}

static void check_record(edl_cc *cc, const ast_record *r)
{
    if (!r->fields) {
        edl_error(cc, r->name.loc, "record '%s' has no fields", r->name.text);
        return;
    }
    int binary = !cc->hv.ascii;
    const ast_field *optional = NULL, *rest = NULL;
    for (const ast_field *f = r->fields; f; f = f->next) {
        if (rest) {
            edl_error(cc, f->name.loc, "field '%s' follows array '%s' of REST items, which must "
                                       "be the last field", f->name.text, rest->name.text);
            rest = NULL;   /* once */
        }
        if (!f->is_array) {
            check_encoding(cc, &f->type, is_timestamp(cc, f));
            if (f->optional && binary)
                edl_error(cc, f->optional_loc, "OPTIONAL fields are for ascii representations "
                                               "(a binary record has no end marker)");
            else if (!f->optional && optional)
                edl_error(cc, f->name.loc, "field '%s' follows OPTIONAL field '%s' and must be "
                                           "OPTIONAL too", f->name.text, optional->name.text);
            if (f->optional && !optional)
                optional = f;
            continue;
        }
        if (f->optional)
            edl_error(cc, f->optional_loc, "an array cannot be OPTIONAL (it may have no items)");
        if (!f->count.text) {
            if (binary)
                edl_error(cc, f->count_loc, "ARRAY [REST] is for ascii representations (a "
                                            "binary record has no end marker)");
            rest = f;
        }
        const ast_field *cf = f->count_field;
        if (cf && cf->is_array)
            edl_error(cc, f->count.loc, "count field '%s' is an array", cf->name.text);
        else if (cf && cf->type.type && !edl_type_is_integer(cf->type.type))
            edl_error(cc, f->count.loc, "count field '%s' must be an integer, not %s",
                      cf->name.text, type_text(cf->type.type));
        if (f->shape_ref.text) {
            if (binary)
                edl_error(cc, f->shape_ref.loc, "an item shape chosen BY a field is for ascii "
                                                "representations");
            const ast_field *sf = f->shape_field;
            if (sf && sf->is_array)
                edl_error(cc, f->shape_by.loc, "shape field '%s' is an array", sf->name.text);
            else if (sf && sf->type.type && !edl_type_is_integer(sf->type.type) &&
                     sf->type.type != EDL_STRING)
                edl_error(cc, f->shape_by.loc, "shape field '%s' must be a string or an "
                                               "integer, not %s", sf->name.text,
                          type_text(sf->type.type));
        }
        check_comps(cc, f->comps);
    }
}

static void check_shape(edl_cc *cc, const ast_shape *s)
{
    if (!s->entries)
        edl_error(cc, s->name.loc, "shape '%s' has no entries", s->name.text);
    const ast_shape_entry *format = NULL;
    for (const ast_shape_entry *e = s->entries; e; e = e->next) {
        if (!e->token.text) {
            if (format) {
                edl_error(cc, e->loc, "DEFAULT IS FORMAT given twice in shape '%s'", s->name.text);
                edl_note(cc, format->loc, "first given here");
            }
            format = e;
            continue;
        }
        for (const ast_shape_entry *d = s->entries; d != e; d = d->next)
            if (d->token.text && strcmp(d->token.text, e->token.text) == 0) {
                edl_error(cc, e->token.loc, "duplicate entry \"%s\" in shape '%s'", e->token.text,
                          s->name.text);
                edl_note(cc, d->token.loc, "first given here");
                break;
            }
        check_comps(cc, e->comps);
    }
    if (!s->used && s->entries)
        edl_warning(cc, s->name.loc, "shape '%s' is never used", s->name.text);
}

/* ---- designations ---- */

/* Checks the header's field designation k (TIMESTAMP, PROCESS, THREAD) or the
 * timestamp fraction against the records. */
static void check_designation(edl_cc *cc, const ast_name *ref, const char *what, int integer)
{
    size_t found = 0;
    for (const ast_record *r = cc->ast.records; r; r = r->next) {
        if (r->dup)
            continue;
        const ast_field *f = edl_map_get(&r->by_name, ref->text);
        if (!f)
            continue;
        found++;
        if (f->is_array)
            edl_error(cc, f->name.loc, "%s field '%s' of record '%s' is an array", what,
                      ref->text, r->name.text);
        else if (f->type.type &&
                 (integer ? !edl_type_is_integer(f->type.type) : !edl_type_is_numeric(f->type.type)))
            edl_error(cc, f->type.name.loc, "%s field '%s' of record '%s' is %s; it must be %s",
                      what, ref->text, r->name.text, type_text(f->type.type),
                      integer ? "an integer" : "a number");
        else if (f->optional)
            edl_error(cc, f->optional_loc, "%s field '%s' of record '%s' must not be OPTIONAL",
                      what, ref->text, r->name.text);
    }
    if (!found && cc->ast.records)
        edl_error(cc, ref->loc, "%s field '%s' is not a field of any record", what, ref->text);
}

static void check_designations(edl_cc *cc)
{
    const ast_hdr *ts = cc->hv.item[HDR_TIMESTAMP];
    if (ts) {
        check_designation(cc, &ts->value, "timestamp", 0);
        if (ts->frac.text)
            check_designation(cc, &ts->frac, "timestamp fraction", 0);
        for (const ast_record *r = cc->ast.records; r; r = r->next) {
            if (r->dup || !r->fields)
                continue;
            int has = edl_map_get(&r->by_name, ts->value.text) != NULL;
            for (const ast_field *f = r->fields; f && !has; f = f->next)
                has = f->role == EDL_FROLE_TIMESTAMP;
            if (!has)
                edl_warning(cc, r->name.loc, "record '%s' has no timestamp field '%s'",
                            r->name.text, ts->value.text);
            else if (ts->frac.text && !edl_map_get(&r->by_name, ts->frac.text))
                edl_error(cc, r->name.loc, "record '%s' has timestamp field '%s' but not '%s'",
                          r->name.text, ts->value.text, ts->frac.text);
        }
    }
    for (hdr_kind k = HDR_PROCESS; k <= HDR_THREAD; k++) {
        const ast_hdr *h = cc->hv.item[k];
        if (h && h->value.text)
            check_designation(cc, &h->value, k == HDR_PROCESS ? "process" : "thread", 1);
    }
}

/* ---- roles and references ---- */

/* The role the header's designations give field f (by its name), if any. */
static edl_field_role designated_role(const edl_cc *cc, const ast_field *f)
{
    static const struct { hdr_kind k; edl_field_role role; } d[] = {
        {HDR_TIMESTAMP, EDL_FROLE_TIMESTAMP}, {HDR_PROCESS, EDL_FROLE_PROCESS},
        {HDR_THREAD, EDL_FROLE_THREAD}};
    for (size_t i = 0; i < sizeof d / sizeof d[0]; i++) {
        const char *name = edl_hdr_text(cc, d[i].k, NULL);
        if (name && strcmp(name, f->name.text) == 0)
            return d[i].role;
    }
    return EDL_FROLE_NONE;
}

/* The role field f has: as written, else by designation. */
static edl_field_role role_of(const edl_cc *cc, const ast_field *f)
{
    return f->role ? f->role : designated_role(cc, f);
}

static int is_timestamp(const edl_cc *cc, const ast_field *f)
{
    return role_of(cc, f) == EDL_FROLE_TIMESTAMP;
}

static void check_field_role(edl_cc *cc, const ast_field *f)
{
    const char *rn = f->role_name.text;
    if (!f->role)
        return;
    edl_field_role d = designated_role(cc, f);
    if (d && d != f->role)
        edl_error(cc, f->role_name.loc, "field '%s' has role %s by the header's %s, so it cannot "
                                        "have role %s", f->name.text, edl_field_role_name(d),
                  d == EDL_FROLE_TIMESTAMP ? "TIMESTAMP" : d == EDL_FROLE_PROCESS ? "PROCESS"
                                                                                 : "THREAD",
                  rn);
    if (f->is_array) {
        edl_error(cc, f->role_name.loc, "role %s is for a scalar field; '%s' is an array", rn,
                  f->name.text);
        return;
    }
    const char *need = f->type.type ? edl_field_role_type_need(f->role, f->type.type) : NULL;
    if (need)
        edl_error(cc, f->role_name.loc, "role %s needs %s; field '%s' is %s", rn, need,
                  f->name.text, type_text(f->type.type));
    if (edl_field_role_is_designation(f->role) && f->optional)
        edl_error(cc, f->optional_loc, "field '%s' has role %s and must not be OPTIONAL",
                  f->name.text, rn);
    const ast_hdr *ts = cc->hv.item[HDR_TIMESTAMP];
    if (f->role != EDL_FROLE_TIMESTAMP || !ts)
        return;
    if (ts->frac.text && strcmp(ts->value.text, f->name.text) != 0)
        edl_error(cc, f->role_name.loc, "the header splits the timestamp over two fields, so "
                                        "it alone designates them; '%s' cannot have role "
                                        "timestamp", f->name.text);
    if (f->unit.text && strcmp(f->unit.text, ts->unit.text) != 0)
        edl_error(cc, f->unit.loc, "timestamp field '%s' has unit \"%s\", the header's "
                                   "TIMESTAMP unit is \"%s\"", f->name.text, f->unit.text,
                  ts->unit.text);
}

/* At most one field of r has each role (a role the header designates
 * included). */
static void check_role_once(edl_cc *cc, const ast_record *r)
{
    const ast_field *first[EDL_FROLE_LIMIT] = {NULL};
    for (const ast_field *f = r->fields; f; f = f->next) {
        edl_field_role fr = role_of(cc, f);
        if (!fr)
            continue;
        const ast_field *g = first[fr];
        if (!g) {
            first[fr] = f;
            continue;
        }
        const ast_field *expl = f->role ? f : g, *other = f->role ? g : f;
        edl_error(cc, expl->role_name.loc, "record '%s' has two %s fields, '%s' and '%s'",
                  r->name.text, edl_field_role_name(fr), g->name.text, f->name.text);
        if (other->role)
            edl_note(cc, other->role_name.loc, "'%s' has role %s here", other->name.text,
                     edl_field_role_name(fr));
        else
            edl_note(cc, cc->hv.item[fr == EDL_FROLE_TIMESTAMP ? HDR_TIMESTAMP
                                     : fr == EDL_FROLE_PROCESS ? HDR_PROCESS : HDR_THREAD]->loc,
                     "the header gives '%s' role %s", other->name.text, edl_field_role_name(fr));
    }
}

static int is_definition(const ast_record *r)
{
    for (const ast_role_stmt *st = r->roles; st; st = st->next)
        for (const ast_role_name *n = st->names; n; n = n->next)
            if (n->role == EDL_ROLE_DEFINITION && !st->when_field.text)
                return 1;
    return 0;
}

/* A reference from field `from` (NULL: from a header designation). */
static void check_ref(edl_cc *cc, const ast_ref *ref, const ast_field *target,
                      const ast_field *from)
{
    if (from && (from->is_array || (from->type.type && !edl_type_is_integer(from->type.type))))
        edl_error(cc, ref->loc, "a reference is an integer id; field '%s' is %s", from->name.text,
                  from->is_array ? "an array" : type_text(from->type.type));
    if (!target)
        return;
    ast_record *t = target->record;
    if (!t->dup && !is_definition(t) && !t->not_definition_reported) {
        t->not_definition_reported = 1;
        edl_error(cc, ref->record.loc, "record '%s' is referred to, so it must be a definition "
                                       "(ROLE IS definition;)", t->name.text);
        edl_note(cc, t->name.loc, "record '%s' is declared here", t->name.text);
    }
    if (target->is_array || target->optional ||
        (target->type.type && !edl_type_is_integer(target->type.type)))
        edl_error(cc, ref->field.loc, "field '%s' of record '%s' is %s; a reference names a "
                                      "required integer field", target->name.text, t->name.text,
                  target->is_array ? "an array" : target->optional ? "OPTIONAL"
                                                                   : type_text(target->type.type));
}

/* The value of WHEN, as the dictionary stores it (integers canonical). */
static void check_when(edl_cc *cc, const ast_record *r, ast_role_stmt *st)
{
    const ast_field *f = st->when;
    if (!f)
        return;
    if (f->is_array || f->optional ||
        (f->type.type && !edl_type_is_integer(f->type.type) && f->type.type != EDL_STRING)) {
        edl_error(cc, st->when_field.loc, "WHEN needs a required integer or string field; '%s' "
                                          "of record '%s' is %s", f->name.text, r->name.text,
                  f->is_array ? "an array" : f->optional ? "OPTIONAL" : type_text(f->type.type));
        return;
    }
    if (!f->type.type || f->type.type == EDL_STRING) {
        st->canon = st->when_value.text;
        return;
    }
    char buf[32];
    int range;
    if (edl_canon_int(st->when_value.text, f->type.type, buf, sizeof buf, &range))
        st->canon = edl_strdup(cc, buf);
    else
        edl_error(cc, st->when_value.loc, "WHEN value \"%s\" is %s for field '%s' (%s)",
                  st->when_value.text, range ? "out of range" : "not an integer", f->name.text,
                  type_text(f->type.type));
}

/* Whether r has a field with one of the roles of need. */
static int has_need(const edl_cc *cc, const ast_record *r, edl_role_need need)
{
    for (const ast_field *f = r->fields; f; f = f->next) {
        edl_field_role fr = role_of(cc, f);
        if (fr && (fr == need.any[0] || fr == need.any[1]))
            return 1;
    }
    return 0;
}

static void check_roles(edl_cc *cc, const ast_record *r)
{
    const ast_role_name *seen[EDL_ROLE_LIMIT] = {NULL}, *primary = NULL;
    for (ast_role_stmt *st = r->roles; st; st = st->next) {
        check_when(cc, r, st);
        for (const ast_role_name *n = st->names; n; n = n->next) {
            if (!n->role)
                continue;
            if (seen[n->role]) {
                edl_error(cc, n->name.loc, "role %s given twice in record '%s'", n->name.text,
                          r->name.text);
                edl_note(cc, seen[n->role]->name.loc, "first given here");
                continue;
            }
            seen[n->role] = n;
            if (!edl_role_is_primary(n->role))
                continue;
            if (st->when_field.text)
                edl_error(cc, n->name.loc, "role %s says what the record is, so it cannot "
                                           "depend on a field (WHEN is for send, recv, "
                                           "untimed, collective, communication, idle and "
                                           "the rma_ roles)", n->name.text);
            if (primary) {
                edl_error(cc, n->name.loc, "record '%s' has two roles that say what it is, %s "
                                           "and %s", r->name.text, primary->name.text,
                          n->name.text);
                edl_note(cc, primary->name.loc, "%s is given here", primary->name.text);
            } else {
                primary = n;
            }
        }
    }
    const ast_field *region_field = NULL;
    for (const ast_field *f = r->fields; f; f = f->next)
        if (f->role == EDL_FROLE_REGION)
            region_field = f;
    const ast_region *region = r->regions;
    if (r->roles && !primary) {
        int any = 0;
        for (const ast_role_stmt *st = r->roles; st; st = st->next)
            for (const ast_role_name *n = st->names; n; n = n->next)
                any |= n->role != EDL_ROLE_NONE;
        if (any)
            edl_error(cc, r->roles->loc, "the roles of record '%s' do not say what it is: give "
                                         "one of enter, leave, call, overhead, marker, counter, "
                                         "definition, metadata, lost, process_begin, "
                                         "process_end, thread_begin, thread_end, state, pause, "
                                         "resume, request_complete, request_start, message",
                      r->name.text);
    }
    for (unsigned k = 1; k < EDL_ROLE_LIMIT; k++) {
        const ast_role_name *n = seen[k];
        if (!n)
            continue;
        if (primary && !edl_role_is_primary(n->role) &&
            !edl_role_qualifies(primary->role, n->role))
            edl_error(cc, n->name.loc, "role %s does not go with %s (%s)", n->name.text,
                      primary->name.text,
                      n->role == EDL_ROLE_SEND || n->role == EDL_ROLE_RECV ||
                              n->role == EDL_ROLE_UNTIMED
                          ? "send, recv and untimed go with enter, leave, call, "
                            "request_complete, request_start and message"
                          : "collective, communication, idle, device and the rma_ roles go "
                            "with enter, leave and call");
        edl_role_need need = edl_role_needs(n->role);
        if (need.any[0] && !has_need(cc, r, need))
            edl_error(cc, n->name.loc, "role %s needs a field with role %s; record '%s' has "
                                       "none", n->name.text, edl_role_need_text(need),
                      r->name.text);
    }
    if (primary && primary->role == EDL_ROLE_MESSAGE && !seen[EDL_ROLE_SEND] &&
        !seen[EDL_ROLE_RECV])
        edl_error(cc, primary->name.loc, "role message needs role send or recv (what happens "
                                         "to the message)");
    int wants_region = primary && edl_role_has_region(primary->role);
    if (wants_region && !region_field && !region)
        edl_error(cc, primary->name.loc, "role %s needs the region: a field with role region, or "
                                         "REGION IS \"name\";", primary->name.text);
    else if (wants_region && region_field && region)
        edl_error(cc, region->loc, "REGION is given, but field '%s' has role region: give one "
                                   "of them", region_field->name.text);
    else if (!wants_region && region)
        edl_error(cc, region->loc, "REGION is for records with role enter, leave or call");
    const ast_region *op = r->operations;
    if (op && !seen[EDL_ROLE_COLLECTIVE])
        edl_error(cc, op->loc, "OPERATION is for records with role collective");
    else if (op && !edl_operation_known(op->value.text)) {
        char list[400] = "";
        const char *s;
        for (size_t n = 0; (s = edl_collective_operation(n)); n++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", n ? ", " : "", s);
        edl_error(cc, op->value.loc, "unknown collective operation \"%s\" (one of %s)",
                  op->value.text, list);
    }
}

static void check_meaning(edl_cc *cc, const ast_record *r)
{
    for (const ast_field *f = r->fields; f; f = f->next) {
        check_field_role(cc, f);
        if (f->ref.record.text)
            check_ref(cc, &f->ref, f->ref_field, f);
    }
    check_role_once(cc, r);
    check_roles(cc, r);
}

/* ---- the bind descriptor ---- */

/* Canonical decimal text of key text for an integer field of type t, or NULL
 * (with *range set when it is an integer that does not fit). */
static const char *canon_int(edl_cc *cc, const char *text, edl_type t, int *range)
{
    char buf[32];
    return edl_canon_int(text, t, buf, sizeof buf, range) ? edl_strdup(cc, buf) : NULL;
}

/* Checks that record r can hold the bind's key fields; once per record. */
static int check_key_fields(edl_cc *cc, const ast_bind *b, ast_record *r, const ast_bind_entry *e)
{
    if (r->key_state)
        return r->key_state == 1;
    r->key_state = 2;
    if (!r->fields)
        return 0;   /* reported by check_record */
    for (int k = 0; k < b->nkeys; k++) {
        unsigned long idx = b->index[k];
        if (idx >= r->nfields) {
            edl_error(cc, e->record.loc, "record '%s' has no field at key index %lu (it has %zu "
                                         "field%s)", r->name.text, idx, r->nfields,
                      r->nfields == 1 ? "" : "s");
            edl_note(cc, b->index_loc[k], "key index given here");
            return 0;
        }
        const ast_field *f = r->fields;
        for (unsigned long i = 0; i < idx; i++, f = f->next)
            if (f->is_array) {
                edl_error(cc, e->record.loc, "key field %lu of record '%s' comes after array "
                                             "'%s', so it has no fixed position", idx,
                          r->name.text, f->name.text);
                return 0;
            }
        if (f->is_array) {
            edl_error(cc, e->record.loc, "key field '%s' of record '%s' is an array",
                      f->name.text, r->name.text);
            return 0;
        }
        if (f->optional) {
            edl_error(cc, e->record.loc, "key field '%s' of record '%s' is OPTIONAL",
                      f->name.text, r->name.text);
            return 0;
        }
        if (f->type.type && !edl_type_is_integer(f->type.type) && f->type.type != EDL_STRING) {
            edl_error(cc, e->record.loc, "key field '%s' of record '%s' is %s; key fields are "
                                         "integers or strings", f->name.text, r->name.text,
                      type_text(f->type.type));
            return 0;
        }
    }
    r->key_state = 1;
    return 1;
}

static const ast_field *field_at(const ast_record *r, size_t i)
{
    const ast_field *f = r->fields;
    while (f && i--)
        f = f->next;
    return f;
}

static edl_encoding enc_of(const edl_cc *cc, const ast_type *t)
{
    return t->enc ? t->enc : edl_default_encoding(cc, t->type);
}

/* Key fields must read the same way in every bound record: in ascii the same
 * kind (integer or string) at each key index; in binary every field up to the
 * last key index has the same type and encoding, since a reader decodes them
 * before it knows the record. */
static void check_key_agreement(edl_cc *cc, const ast_bind *b, const ast_record *ref,
                                const ast_bind_entry *refe, const ast_record *r,
                                const ast_bind_entry *e)
{
    unsigned long last = b->index[0];
    if (b->nkeys == 2 && b->index[1] > last)
        last = b->index[1];
    for (unsigned long i = 0; i <= last; i++) {
        int is_key = i == b->index[0] || (b->nkeys == 2 && i == b->index[1]);
        if (cc->hv.ascii && !is_key)
            continue;
        const ast_field *x = field_at(ref, i), *y = field_at(r, i);
        if (!x || !y || !x->type.type || !y->type.type)
            continue;
        int differ = cc->hv.ascii
                         ? (x->type.type == EDL_STRING) != (y->type.type == EDL_STRING)
                         : x->type.type != y->type.type ||
                               enc_of(cc, &x->type) != enc_of(cc, &y->type);
        if (!differ)
            continue;
        if (cc->hv.ascii)
            edl_error(cc, e->record.loc, "key field '%s' of record '%s' is %s, but key field "
                                         "'%s' of record '%s' is %s", y->name.text, r->name.text,
                      type_text(y->type.type), x->name.text, ref->name.text,
                      type_text(x->type.type));
        else
            edl_error(cc, e->record.loc, "field %lu of record '%s' is %s %s, but %s %s in record "
                                         "'%s'; every field up to the last key field must read "
                                         "the same in every bound record", i, r->name.text,
                      type_text(y->type.type), edl_encoding_name(enc_of(cc, &y->type)),
                      type_text(x->type.type), edl_encoding_name(enc_of(cc, &x->type)),
                      ref->name.text);
        edl_note(cc, refe->record.loc, "record '%s' is bound here", ref->name.text);
        return;
    }
}

static void check_bind(edl_cc *cc)
{
    ast_bind *b = cc->bind;
    if (!b)
        return;
    int spec_ok = 1;
    for (int k = 0; k < b->nkeys; k++)
        if (b->index[k] >= EDL_NO_KEY) {
            edl_error(cc, b->index_loc[k], "key index %lu is too large (at most %d)", b->index[k],
                      EDL_NO_KEY - 1);
            spec_ok = 0;
        }
    if (b->nkeys == 2 && b->index[0] == b->index[1]) {
        edl_error(cc, b->index_loc[1], "the two key fields must differ");
        spec_ok = 0;
    }
    edl_map seen = {0};
    const ast_bind_entry *dflt = NULL;
    const ast_record *ref = NULL;
    const ast_bind_entry *refe = NULL;
    for (ast_bind_entry *e = b->entries; e; e = e->next) {
        if (e->nkeys == 0) {
            if (dflt) {
                edl_error(cc, e->loc, "a second DEFAULT entry");
                edl_note(cc, dflt->loc, "the first one is here");
            } else {
                dflt = e;
                if (e->rec)
                    e->rec->is_default = 1;
            }
            /* The default record is read like any other: it has the key fields. */
            if (e->rec && b->nkeys > 0 && spec_ok && check_key_fields(cc, b, e->rec, e)) {
                if (!ref) {
                    ref = e->rec;
                    refe = e;
                } else if (ref != e->rec) {
                    check_key_agreement(cc, b, ref, refe, e->rec, e);
                }
            }
            continue;
        }
        if (b->nkeys == 0) {
            edl_error(cc, e->loc, "with KEYFIELD INDEX IS DEFAULT records have no key; write "
                                  "DEFAULT IS \"record\";");
            continue;
        }
        if (e->nkeys == 2 && b->nkeys == 1) {
            edl_error(cc, e->key[1].loc, "this entry has two keys but KEYFIELD INDEX names "
                                         "one key field");
            continue;
        }
        if (!e->rec || !spec_ok || !check_key_fields(cc, b, e->rec, e))
            continue;
        int ok = 1;
        for (int k = 0; k < e->nkeys; k++) {
            const ast_field *f = field_at(e->rec, b->index[k]);
            if (!f->type.type) {
                ok = 0;   /* an unknown type, already reported */
                continue;
            }
            if (f->type.type == EDL_STRING) {
                e->canon[k] = e->key[k].text;
                continue;
            }
            int range;
            e->canon[k] = canon_int(cc, e->key[k].text, f->type.type, &range);
            if (!e->canon[k]) {
                if (range)
                    edl_error(cc, e->key[k].loc, "key \"%s\" is out of range for key field '%s' "
                                                 "of record '%s' (%s)", e->key[k].text,
                              f->name.text, e->rec->name.text, type_text(f->type.type));
                else
                    edl_error(cc, e->key[k].loc, "key \"%s\" is not an integer (key field '%s' "
                                                 "of record '%s' is %s)", e->key[k].text,
                              f->name.text, e->rec->name.text, type_text(f->type.type));
                ok = 0;
            }
        }
        if (!ok)
            continue;
        const char *id = e->nkeys == 2 ? edl_sprintf(cc, "2:%zu:%s%s", strlen(e->canon[0]),
                                                     e->canon[0], e->canon[1])
                                       : edl_sprintf(cc, "1:%s", e->canon[0]);
        const ast_bind_entry *prev = edl_map_get(&seen, id);
        if (prev) {
            if (e->nkeys == 2)
                edl_error(cc, e->loc, "key <\"%s\":\"%s\"> is already bound", e->canon[0],
                          e->canon[1]);
            else
                edl_error(cc, e->loc, "key \"%s\" is already bound", e->canon[0]);
            edl_note(cc, prev->loc, "bound here to '%s'", prev->record.text);
            continue;
        }
        edl_map_put(cc, &seen, id, e);
        if (!ref) {
            ref = e->rec;
            refe = e;
        } else if (ref != e->rec) {
            check_key_agreement(cc, b, ref, refe, e->rec, e);
        }
    }
    if (b->nkeys == 0 && !dflt)
        edl_error(cc, b->spec_loc, "KEYFIELD INDEX IS DEFAULT needs the entry DEFAULT IS "
                                   "\"record\";");
    for (const ast_record *r = cc->ast.records; r; r = r->next)
        if (!r->dup && !r->bound)
            edl_warning(cc, r->name.loc, "record '%s' is not named in the bind descriptor",
                        r->name.text);
}

void edl_check(edl_cc *cc)
{
    check_header(cc);
    if (!have_header(cc))
        return;   /* what follows depends on the representation */
    for (const ast_shape *s = cc->ast.shapes; s; s = s->next)
        check_shape(cc, s);
    if (!cc->ast.records)
        edl_error(cc, edl_noloc(), "no record descriptor (RECORD name IS BEGIN ... END;)");
    for (const ast_record *r = cc->ast.records; r; r = r->next)
        if (!r->dup)
            check_record(cc, r);
    check_designations(cc);
    for (const ast_record *r = cc->ast.records; r; r = r->next)
        if (!r->dup)
            check_meaning(cc, r);
    for (hdr_kind k = HDR_PROCESS; k <= HDR_THREAD; k++) {
        const ast_hdr *h = cc->hv.item[k];
        if (h && h->ref.record.text && h->word == W_NONE)
            edl_error(cc, h->ref.loc, "%s IS NONE has no ids to refer", edl_hdr_keyword(k));
        else if (h && h->ref.record.text)
            check_ref(cc, &h->ref, h->ref_field, NULL);
    }
    check_bind(cc);
}
