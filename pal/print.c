/* print.c -- pal_dict_print: a dictionary as readable, EDL-like text (header,
 * representation, roles, records with their fields, and the bind descriptor in
 * the seed's form), for pal-dump --dict and for people checking a trace. */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "pal/pal-internal.h"

static void put_quoted(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        switch (*p) {
        case '"': fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\t': fputs("\\t", f); break;
        default:
            if (*p < 0x20 || *p == 0x7f)
                fprintf(f, "\\x%02x", *p);
            else
                fputc(*p, f);
        }
    }
    fputc('"', f);
}

static const char *framing_name(edl_framing fr)
{
    switch (fr) {
    case EDL_FRAMING_ECL: return "ECL";
    case EDL_FRAMING_RAW: return "RAW";
    case EDL_FRAMING_LINES: return "LINES";
    }
    return "?";
}

static void put_role(FILE *f, const char *what, const char *field)
{
    fprintf(f, "%s IS ", what);
    if (field && *field)
        put_quoted(f, field);
    else
        fputs("CONTAINER", f);
    fputs(";\n", f);
}

void pal_dict_print(const pal_dict *d, void *file)
{
    PAL_REQUIRE(d && file, );
    FILE *f = file;
    const edl_dict *ed = d->ed;
    fputs("TRACE ", f);
    put_quoted(f, edl_dict_name(ed));
    fputs(" VERSION ", f);
    put_quoted(f, edl_dict_version(ed));
    fputs(";\n", f);
    if (edl_dict_repr(ed) == EDL_REPR_BINARY) {
        fprintf(f, "REPRESENTATION IS BINARY BYTEORDER %s FRAMING %s;\n",
                edl_dict_byte_order(ed) == 'B' ? "BIG" : "LITTLE",
                framing_name(edl_dict_framing(ed)));
    } else {
        fputs("REPRESENTATION IS ASCII SEPARATORS ", f);
        put_quoted(f, edl_dict_separators(ed) ? edl_dict_separators(ed) : "");
        fputs(" COMMENT ", f);
        put_quoted(f, edl_dict_comment(ed) ? edl_dict_comment(ed) : "");
        fprintf(f, " FRAMING %s;\n", framing_name(edl_dict_framing(ed)));
    }
    const char *tf = edl_dict_time_field(ed);
    if (tf && *tf) {
        fputs("TIME IS ", f);
        put_quoted(f, tf);
        fputs(" UNIT ", f);
        put_quoted(f, edl_dict_time_unit(ed) ? edl_dict_time_unit(ed) : "");
        fputs(";\n", f);
    }
    put_role(f, "PROCESS", edl_dict_process_field(ed));
    put_role(f, "THREAD", edl_dict_thread_field(ed));

    for (size_t i = 0; i < d->nrecs; i++) {
        const pal_recdesc *r = d->recs[i];
        fprintf(f, "\nRECORD %s", r->name);
        if (*r->description) {
            fputs(" DESCRIPTION ", f);
            put_quoted(f, r->description);
        }
        fputs("\nBEGIN\n", f);
        for (size_t j = 0; j < r->nfields; j++) {
            const pal_fielddesc *fd = &r->fields[j];
            fprintf(f, "    %s %s %s", edl_type_name((edl_type)fd->type), fd->name,
                    edl_encoding_name(fd->encoding));
            if (*fd->unit) {
                fputs(" UNIT ", f);
                put_quoted(f, fd->unit);
            }
            if (*fd->description) {
                fputs(" DESCRIPTION ", f);
                put_quoted(f, fd->description);
            }
            fputs(";\n", f);
        }
        fputs("END;\n", f);
    }

    fputs("\nBIND IS KEYFIELD INDEX IS ", f);
    switch (d->key_count) {
    case 0: fputs("DEFAULT", f); break;
    case 1: fprintf(f, "%u", d->key_index[0]); break;
    default: fprintf(f, "(%u, %u)", d->key_index[0], d->key_index[1]); break;
    }
    fputs(";\nBEGIN\n", f);
    size_t nb = edl_dict_bind_count(ed);
    for (size_t i = 0; i < nb; i++) {
        edl_bind b = edl_dict_bind(ed, i);
        fputs("    ", f);
        if (b.key2) {
            fputc('<', f);
            put_quoted(f, b.key1);
            fputs(" : ", f);
            put_quoted(f, b.key2);
            fputc('>', f);
        } else {
            put_quoted(f, b.key1);
        }
        fputs(" IS ", f);
        put_quoted(f, b.record < d->nrecs ? d->recs[b.record]->name : "?");
        fputs(";\n", f);
    }
    if (d->default_rec) {
        fputs("    DEFAULT IS ", f);
        put_quoted(f, d->default_rec->name);
        fputs(";\n", f);
    }
    fputs("END;\n", f);
}
