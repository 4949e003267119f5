/* emit.c -- the emit pass of the EDL compiler: builds the dictionary from the
 * checked, laid out syntax tree through the model's API (edl.h). Any refusal
 * by the model here is a compiler bug (check.c let something through), and is
 * reported as an internal error rather than producing a wrong dictionary. */
#include "config.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "edl/compiler.h"

static int failed(edl_cc *cc, edl_status st, edl_loc loc, const char *what)
{
    if (st == EDL_OK)
        return 0;
    if (st == EDL_ENOMEM)
        longjmp(cc->oom, 1);
    edl_error(cc, loc, "internal error: the dictionary model refused %s (%s)", what,
              edl_status_string(st));
#ifdef EDL_FUZZING
    abort();   /* check.c let something through: that is what fuzzing looks for */
#endif
    return 1;
}

static edl_component *components(edl_cc *cc, const ast_comp *list, size_t *n)
{
    *n = 0;
    for (const ast_comp *c = list; c; c = c->next)
        (*n)++;
    edl_component *v = edl_alloc(cc, (*n ? *n : 1) * sizeof *v);
    size_t i = 0;
    for (const ast_comp *c = list; c; c = c->next, i++) {
        v[i].name = c->name.text ? c->name.text : "";
        v[i].type = c->type.type;
        v[i].enc = c->type.enc;
    }
    return v;
}

static int emit_array(edl_cc *cc, edl_record *r, const ast_field *f)
{
    const char *unit = f->unit.text, *desc = f->desc.text;
    size_t n;
    if (!f->shape_ref.text) {
        edl_component *items = components(cc, f->comps, &n);
        return failed(cc, edl_record_add_array(r, f->name.text, f->count.text, items, n, unit, desc),
                      f->name.loc, "an array");
    }
    unsigned flags = 0;
    for (const ast_shape_entry *e = f->shape->entries; e; e = e->next)
        if (!e->token.text)
            flags |= EDL_SHAPE_FORMAT;
    if (failed(cc, edl_record_add_shaped_array(r, f->name.text, f->count.text, f->shape_by.text,
                                               f->shape->name.text, flags, unit, desc),
               f->name.loc, "an array"))
        return 1;
    for (const ast_shape_entry *e = f->shape->entries; e; e = e->next) {
        if (!e->token.text)
            continue;
        edl_component *items = components(cc, e->comps, &n);
        if (failed(cc, edl_record_add_shape(r, e->token.text, items, n), e->loc, "a shape entry"))
            return 1;
    }
    return 0;
}

static int emit_records(edl_cc *cc, edl_dict *d)
{
    for (const ast_record *ar = cc->ast.records; ar; ar = ar->next) {
        edl_record *r;
        if (failed(cc, edl_dict_add_record(d, ar->name.text, ar->desc.text, &r), ar->name.loc,
                   "a record"))
            return 1;
        for (const ast_field *f = ar->fields; f; f = f->next) {
            if (f->is_array) {
                if (emit_array(cc, r, f))
                    return 1;
                continue;
            }
            edl_status st = edl_record_add_field_ex(r, f->name.text, f->type.type, f->type.enc,
                                                    f->optional ? EDL_FIELD_OPTIONAL : 0,
                                                    f->unit.text, f->desc.text);
            if (failed(cc, st, f->name.loc, "a field"))
                return 1;
        }
    }
    return 0;
}

static edl_ref ref_of(const ast_ref *a)
{
    edl_ref r = {a->record.text, a->field.text, a->global ? EDL_REF_GLOBAL : 0};
    return r;
}

/* The meaning of every record, once all records exist. A role the header
 * designates is not repeated on its field: the dictionary says it once. */
static int emit_meaning(edl_cc *cc, edl_dict *d)
{
    const ast_hdr *ts = cc->hv.item[HDR_TIMESTAMP];
    const ast_hdr *des[3] = {ts, cc->hv.item[HDR_PROCESS], cc->hv.item[HDR_THREAD]};
    const edl_field_role drole[3] = {EDL_FROLE_TIMESTAMP, EDL_FROLE_PROCESS, EDL_FROLE_THREAD};
    for (const ast_record *ar = cc->ast.records; ar; ar = ar->next) {
        size_t nroles = 0;
        for (const ast_role_stmt *st = ar->roles; st; st = st->next)
            for (const ast_role_name *n = st->names; n; n = n->next)
                nroles++;
        edl_role *roles = edl_alloc(cc, (nroles ? nroles : 1) * sizeof *roles);
        edl_field_meaning *fields = edl_alloc(cc, (ar->nfields ? ar->nfields : 1) * sizeof *fields);
        edl_meaning m = {roles, 0, ar->regions ? ar->regions->value.text : NULL, fields, 0,
                         ar->operations ? ar->operations->value.text : NULL};
        for (const ast_role_stmt *st = ar->roles; st; st = st->next)
            for (const ast_role_name *n = st->names; n; n = n->next) {
                edl_role *ro = &roles[m.nroles++];
                ro->role = n->role;
                ro->when_field = st->when_field.text;
                ro->when_value = st->canon;
            }
        for (const ast_field *f = ar->fields; f; f = f->next) {
            edl_field_role fr = f->role;
            for (int k = 0; k < 3; k++)
                if (fr == drole[k] && des[k] && des[k]->value.text &&
                    strcmp(des[k]->value.text, f->name.text) == 0)
                    fr = EDL_FROLE_NONE;
            if (!fr && !f->ref.record.text)
                continue;
            edl_field_meaning *fm = &fields[m.nfields++];
            fm->field = f->name.text;
            fm->role = fr;
            if (f->ref.record.text)
                fm->ref = ref_of(&f->ref);
        }
        if (failed(cc, edl_record_set_meaning((edl_record *)edl_dict_find_record(d, ar->name.text),
                                              &m),
                   ar->name.loc, "the roles of a record"))
            return 1;
    }
    for (int k = 1; k < 3; k++)
        if (des[k] && des[k]->ref.record.text) {
            edl_ref r = ref_of(&des[k]->ref);
            if (failed(cc, edl_dict_set_designation_ref(d, drole[k], &r), des[k]->loc,
                       "a reference"))
                return 1;
        }
    return 0;
}

static const char *role(const edl_cc *cc, hdr_kind k)
{
    const ast_hdr *h = cc->hv.item[k];
    return h && h->value.text ? h->value.text : "";
}

void edl_emit(edl_cc *cc)
{
    edl_dict *d;
    const ast_hdr *ts = cc->hv.item[HDR_TIMESTAMP];
    edl_loc at = cc->ast.headers->loc;
    if (failed(cc, edl_dict_create(edl_hdr_text(cc, HDR_NAME, ""), edl_hdr_text(cc, HDR_VERSION, ""),
                                   cc->hv.ascii ? EDL_REPR_ASCII : EDL_REPR_BINARY, &d),
               at, "the header"))
        return;
    cc->dict = d;
    edl_status st;
    if (cc->hv.ascii) {
        st = edl_dict_set_ascii(d, cc->separators, cc->comment);
        if (st == EDL_OK)
            st = edl_dict_set_ascii_syntax(d, cc->ascii_flags, cc->quote, cc->skip_lines);
    } else {
        st = edl_dict_set_binary(d, cc->byte_order, cc->framing);
    }
    if (failed(cc, st, at, "the representation"))
        return;
    if (failed(cc, edl_dict_set_roles(d, ts->value.text, ts->unit.text, role(cc, HDR_PROCESS),
                                      role(cc, HDR_THREAD)),
               ts->loc, "the designations"))
        return;
    if (ts->frac.text &&
        failed(cc, edl_dict_set_time_fraction(d, ts->frac.text, ts->frac_unit.text), ts->loc,
               "the timestamp fraction"))
        return;
    const ast_bind *b = cc->bind;
    if (failed(cc, edl_dict_set_key(d, (unsigned)b->nkeys,
                                    b->nkeys >= 1 ? (unsigned)b->index[0] : EDL_NO_KEY,
                                    b->nkeys == 2 ? (unsigned)b->index[1] : EDL_NO_KEY),
               b->spec_loc, "the key specification"))
        return;
    if (emit_records(cc, d))
        return;
    for (const ast_bind_entry *e = b->entries; e; e = e->next) {
        if (e->nkeys == 0)
            st = edl_dict_set_default_record(d, e->record.text);
        else
            st = edl_dict_add_bind(d, e->canon[0], e->nkeys == 2 ? e->canon[1] : NULL,
                                   e->record.text);
        if (failed(cc, st, e->loc, "a bind entry"))
            return;
    }
    emit_meaning(cc, d);
}
