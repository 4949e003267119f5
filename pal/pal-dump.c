/* pal-dump.c -- print the records of any EDL-described trace as text, CSV or
 * JSON lines, with filters and per-type counts: times in seconds from the
 * run's start, ids by the names their definitions give. Uses the public PAL
 * API only, so it is also the reference for how a tool reads traces. */
#include <config.h>

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pal/pal.h"

enum fmt { FMT_TEXT, FMT_CSV, FMT_JSON };

/* Per record descriptor, computed on first use (the dictionary may grow). */
typedef struct typeinfo {
    int known;
    int selected;
    int has_time;
    unsigned char *skip;      /* fields shown in the prefix (key, time) */
    unsigned char *ref;       /* fields whose ids refer to a definition (names shown) */
    uint64_t count;
} typeinfo;

typedef struct opts {
    const char *dict_path;
    enum fmt fmt;
    const char **types;
    size_t ntypes;
    int has_stream, has_process, has_from, has_to;
    uint32_t stream, process;
    const char *from_text, *to_text;   /* --from/--to, parsed once the trace is open */
    int64_t from, to;                  /* ns from the start, or raw time units */
    int count, count_all, print_dict, info, strict, force, raw_time, raw_ids;
    uint64_t head;
    int has_head;
} opts;

static const char *prog = "pal-dump";

static void usage(FILE *f)
{
    fprintf(f,
"Usage: %s [OPTION]... TRACE...\n"
"Print the records of a trace described by an EDL dictionary: the dictionary\n"
"embedded in ECL traces, or one given with -d for other formats (binary or\n"
"ascii, e.g. PICL: pal-dump -d picl.edl run.trf). Several per-rank traces of\n"
"one run (trace.*.ecl), or their directory, are read as one stream: in time\n"
"order, on rank 0's clock.\n"
"\n"
"  -d, --dict-file=DICT  read TRACE with this dictionary: binary (edlc output)\n"
"                        or EDL source (compiled in memory)\n"
"  -f, --format=FMT      output format: text (default), csv or json\n"
"  -t, --type=NAME       only records of this type; repeatable\n"
"  -p, --process=RANK    only records of this process\n"
"  -s, --stream=ID       only records of this stream (thread)\n"
"      --from=T          only records with time >= T, in seconds from the\n"
"                        start (in raw time units with --raw-time)\n"
"      --to=T            only records with time <= T\n"
"  -n, --head=N          stop after N records (after filtering)\n"
"      --raw-time        print times as the trace stores them (ticks; ns for\n"
"                        ascii traces) instead of seconds from the start\n"
"      --raw-ids         print ids as they are instead of the names their\n"
"                        definitions give\n"
"  -c, --count           print per-type record counts of the types present\n"
"                        (sorted by type name) and the total instead of the\n"
"                        records\n"
"      --count-all       the same, with every type of the dictionary (zeros)\n"
"      --dict            print the trace's dictionary and exit\n"
"      --info            print the trace information and reading statistics\n"
"      --strict          stop at the first damage instead of skipping it\n"
"      --force           read traces of different runs together\n"
"  -h, --help            show this help and exit\n"
"  -V, --version         show the version and exit\n"
"\n"
"Times are seconds from the start of the run (the trace header's start\n"
"time; the trace's own zero when it has none), with 9 decimals. A field\n"
"whose id refers to a definition (REFERS TO in the description) shows the\n"
"name that definition gives, as a string, once the definition was read.\n"
"\n"
"Output formats (fields shown are all fields but the key and time fields):\n"
"  text  one line per record: TIME pPROCESS sSTREAM TYPE name=value ...,\n"
"        strings in double quotes with C escapes; '-' when there is no time,\n"
"        e.g.  0.000123456 p0 s1 enter region=\"compute\"\n"
"  csv   long (tidy) form, RFC 4180 (bytes as they are, fields with commas,\n"
"        quotes or control bytes quoted): one header line\n"
"          record,time,process,stream,type,field,value\n"
"        then one row per field; 'record' numbers the records from 0 so rows\n"
"        regroup; a record with no fields gives one row with empty field/value\n"
"  json  one object per line (JSON Lines):\n"
"          {\"time\":T,\"process\":P,\"stream\":S,\"type\":\"NAME\",\"fields\":{...}}\n"
"        time is null without a time field; non-finite floats are null;\n"
"        bytes that are not UTF-8 are written as \\u00XX\n"
"\n"
"Damage (bad chunks, a cut file) is reported on stderr, one line each, and\n"
"reading goes on with the next intact chunk; so is a trace that was not\n"
"closed (its process was killed) and how much of it may be missing.\n"
"\n"
"Exit status: 0 if the trace was read whole and without damage; 1 on a usage\n"
"error or when a trace cannot be opened or read; 2 if damage was found and\n"
"reported (with --strict: at the first damage), or the result is partial (a\n"
"trace not closed or ended by a signal, chunks or ranks missing).\n", prog);
}

static int parse_u64(const char *s, uint64_t *out)
{
    char *end;
    if (!s || !*s || *s == '-')
        return -1;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

/* ---- output helpers ---- */

static void put_text_string(FILE *f, const char *s, size_t n)
{
    fputc('"', f);
    pal_text_print(f, s, n, PAL_TEXT_QUOTE, 0);
    fputc('"', f);
}

static void put_json_string(FILE *f, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    fputc('"', f);
    for (size_t i = 0; i < n;) {
        unsigned char c = p[i];
        if (c == '"' || c == '\\') {
            fputc('\\', f);
            fputc(c, f);
            i++;
        } else if (c < 0x20 || c == 0x7f) {
            switch (c) {
            case '\n': fputs("\\n", f); break;
            case '\t': fputs("\\t", f); break;
            case '\r': fputs("\\r", f); break;
            default: fprintf(f, "\\u%04x", c);
            }
            i++;
        } else {
            size_t len = pal_utf8_length((const char *)p + i, n - i);
            if (len == 0) {
                fprintf(f, "\\u%04x", c);       /* the byte as a Latin-1 code point */
                i++;
            } else {
                fwrite(p + i, 1, len, f);
                i += len;
            }
        }
    }
    fputc('"', f);
}

static void put_csv_string(FILE *f, const char *s, size_t n)
{
    int quote = n == 0 || s[0] == ' ' || s[n - 1] == ' ';
    /* control bytes are not CSV text: quoting at least keeps them inside the field */
    for (size_t i = 0; i < n && !quote; i++)
        if (s[i] == ',' || s[i] == '"' || (unsigned char)s[i] < 0x20 || s[i] == 0x7f)
            quote = 1;
    if (!quote) {
        fwrite(s, 1, n, f);
        return;
    }
    fputc('"', f);
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"')
            fputc('"', f);
        fputc(s[i], f);
    }
    fputc('"', f);
}

/* ---- per-type bookkeeping ---- */

typedef struct state {
    const opts *o;
    pal_reader *r;
    const pal_dict *d;
    typeinfo *types;
    size_t ntypes;
    char *buf;
    size_t bufsize;
    uint64_t printed;
    int ascii;              /* the trace is ascii: raw times are in ns, signed */
    int64_t start_ns;       /* the run's start, in the times of pal_record_time_ns */
    pal_names *names;       /* what definitions defined so far */
} state;

static typeinfo *type_of(state *s, const pal_recdesc *rd)
{
    size_t i = pal_recdesc_index(rd);
    if (i >= s->ntypes) {
        size_t n = i + 16;
        typeinfo *t = realloc(s->types, n * sizeof *t);
        if (!t) {
            fprintf(stderr, "%s: out of memory\n", prog);
            exit(1);
        }
        memset(t + s->ntypes, 0, (n - s->ntypes) * sizeof *t);
        s->types = t;
        s->ntypes = n;
    }
    typeinfo *t = &s->types[i];
    if (!t->known) {
        t->known = 1;
        t->selected = s->o->ntypes == 0;
        for (size_t k = 0; k < s->o->ntypes; k++)
            if (strcmp(s->o->types[k], pal_recdesc_name(rd)) == 0)
                t->selected = 1;
        size_t nf = pal_recdesc_field_count(rd);
        t->skip = calloc(nf ? nf : 1, 1);
        if (!t->skip) {
            fprintf(stderr, "%s: out of memory\n", prog);
            exit(1);
        }
        const pal_bindinfo *b = pal_dict_bindinfo(s->d);
        for (unsigned k = 0; k < pal_bindinfo_key_count(b); k++)
            if (pal_bindinfo_key_index(b, k) < nf)
                t->skip[pal_bindinfo_key_index(b, k)] = 1;
        const pal_fielddesc *tf = pal_recdesc_role_field(rd, PAL_FROLE_TIMESTAMP);
        if (tf)
            t->skip[pal_field_index(tf)] = 1;
        t->has_time = tf != NULL;
        t->ref = calloc(nf ? nf : 1, 1);
        if (!t->ref) {
            fprintf(stderr, "%s: out of memory\n", prog);
            exit(1);
        }
        for (size_t j = 0; j < nf && !s->o->raw_ids; j++)
            t->ref[j] = pal_field_reference(pal_recdesc_field(rd, j), NULL, NULL, NULL) == PAL_OK;
    }
    return t;
}

/* Field i as text in s->buf; returns its length. */
static size_t field_text(state *s, const pal_record *rec, size_t i)
{
    size_t n = pal_record_format(rec, i, s->buf, s->bufsize);
    if (n >= s->bufsize) {
        size_t size = n + 1;
        char *b = realloc(s->buf, size);
        if (!b) {
            fprintf(stderr, "%s: out of memory\n", prog);
            exit(1);
        }
        s->buf = b;
        s->bufsize = size;
        n = pal_record_format(rec, i, s->buf, s->bufsize);
    }
    return n;
}

static int is_finite_text(const char *t)
{
    /* pal_record_format writes non-finite values as printf does */
    return !strstr(t, "nan") && !strstr(t, "inf");
}

/* Shortest text that reads back as v; null when not finite. */
static void put_json_double(FILE *f, double v)
{
    char tmp[40];
    if (!(v == v && v - v == 0)) {
        fputs("null", f);
        return;
    }
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*g", prec, v);
        if (strtod(tmp, NULL) == v)
            break;
    }
    fputs(tmp, f);
}

/* An array as JSON: [1,2] or, with items of several components, [[1,0.5],[2,1.5]]. */
static void put_json_array(state *s, const pal_record *rec, size_t i, FILE *f)
{
    const char *name = pal_field_name(pal_recdesc_field(pal_record_desc(rec), i));
    size_t count = 0, nc = 0;
    (void)s;
    pal_record_get_count(rec, name, &count);
    pal_record_get_components(rec, name, &nc);
    fputc('[', f);
    for (size_t it = 0; it < count; it++) {
        if (it)
            fputc(',', f);
        if (nc > 1)
            fputc('[', f);
        for (size_t c = 0; c < nc; c++) {
            if (c)
                fputc(',', f);
            pal_type ty = pal_record_item_type(rec, i, c);
            int64_t iv;
            uint64_t uv;
            double dv;
            const char *sv;
            size_t sn;
            if (ty == PAL_STRING && pal_record_get_item_str(rec, name, it, c, &sv, &sn) == PAL_OK)
                put_json_string(f, sv, sn);
            else if ((ty == PAL_FLOAT32 || ty == PAL_FLOAT64) &&
                     pal_record_get_item_f64(rec, name, it, c, &dv) == PAL_OK)
                put_json_double(f, dv);
            else if (pal_record_get_item_i64(rec, name, it, c, &iv) == PAL_OK)
                fprintf(f, "%" PRId64, iv);
            else if (pal_record_get_item_u64(rec, name, it, c, &uv) == PAL_OK)
                fprintf(f, "%" PRIu64, uv);
            else
                fputs("null", f);
        }
        if (nc > 1)
            fputc(']', f);
    }
    fputc(']', f);
}

/* The record's time as printed: seconds from the start with 9 decimals
 * (exact: from integer ns), or raw. */
static void time_text(const state *s, const pal_record *rec, char *buf, size_t size)
{
    if (s->o->raw_time) {
        if (s->ascii)   /* ascii traces: the time in ns, which may be negative */
            snprintf(buf, size, "%" PRId64, pal_record_time_ns(rec));
        else
            snprintf(buf, size, "%" PRIu64, pal_record_time(rec));
        return;
    }
    int64_t d = pal_record_time_ns(rec) - s->start_ns;
    uint64_t a = d < 0 ? (uint64_t)0 - (uint64_t)d : (uint64_t)d;
    snprintf(buf, size, "%s%" PRIu64 ".%09" PRIu64, d < 0 ? "-" : "", a / 1000000000u,
             a % 1000000000u);
}

/* The name the id in field i refers to, when it is a reference whose
 * definition was read (else the id is printed). */
static int name_of(const state *s, const pal_record *rec, const typeinfo *t, size_t i,
                   const char **name, size_t *len)
{
    return t->ref[i] && pal_names_field(s->names, rec, i, name, len) == PAL_OK;
}

static void print_record(state *s, const pal_record *rec, const typeinfo *t, FILE *f)
{
    const pal_recdesc *rd = pal_record_desc(rec);
    size_t nf = pal_recdesc_field_count(rd);
    const char *name = pal_recdesc_name(rd);
    int has_time = t->has_time;
    char tbuf[32];
    time_text(s, rec, tbuf, sizeof tbuf);
    uint32_t proc = pal_record_process(rec), stream = pal_record_stream(rec);

    switch (s->o->fmt) {
    case FMT_TEXT:
        if (has_time)
            fputs(tbuf, f);
        else
            fputc('-', f);
        fprintf(f, " p%" PRIu32 " s%" PRIu32 " ", proc, stream);
        pal_text_print(f, name, strlen(name), 0, 0);
        for (size_t i = 0; i < nf; i++) {
            if (t->skip[i] || !pal_record_present(rec, i))
                continue;
            const pal_fielddesc *fd = pal_recdesc_field(rd, i);
            const char *nm;
            size_t n;
            fputc(' ', f);
            pal_text_print(f, pal_field_name(fd), strlen(pal_field_name(fd)), 0, 0);
            fputc('=', f);
            if (name_of(s, rec, t, i, &nm, &n)) {
                put_text_string(f, nm, n);
                continue;
            }
            n = field_text(s, rec, i);
            if (pal_field_type(fd) == PAL_STRING)
                put_text_string(f, s->buf, n);
            else
                fwrite(s->buf, 1, n, f);
        }
        fputc('\n', f);
        break;
    case FMT_CSV: {
        int any = 0;
        for (size_t i = 0; i <= nf; i++) {
            if (i < nf && (t->skip[i] || !pal_record_present(rec, i)))
                continue;
            if (i == nf && any)
                break;
            fprintf(f, "%" PRIu64 ",", s->printed);
            if (has_time)
                fputs(tbuf, f);
            fprintf(f, ",%" PRIu32 ",%" PRIu32 ",%s,", proc, stream, name);
            if (i < nf) {
                const pal_fielddesc *fd = pal_recdesc_field(rd, i);
                const char *nm;
                size_t n;
                fprintf(f, "%s,", pal_field_name(fd));
                if (name_of(s, rec, t, i, &nm, &n)) {
                    put_csv_string(f, nm, n);
                } else {
                    n = field_text(s, rec, i);
                    if (pal_field_type(fd) == PAL_STRING || pal_field_type(fd) == PAL_ARRAY)
                        put_csv_string(f, s->buf, n);
                    else
                        fwrite(s->buf, 1, n, f);
                }
            } else {
                fputc(',', f);
            }
            fputc('\n', f);
            any = 1;
        }
        break;
    }
    case FMT_JSON: {
        fputs("{\"time\":", f);
        if (has_time)
            fputs(tbuf, f);
        else
            fputs("null", f);
        fprintf(f, ",\"process\":%" PRIu32 ",\"stream\":%" PRIu32 ",\"type\":", proc, stream);
        put_json_string(f, name, strlen(name));
        fputs(",\"fields\":{", f);
        int first = 1;
        for (size_t i = 0; i < nf; i++) {
            if (t->skip[i] || !pal_record_present(rec, i))
                continue;
            const pal_fielddesc *fd = pal_recdesc_field(rd, i);
            if (pal_field_type(fd) == PAL_ARRAY) {
                if (!first)
                    fputc(',', f);
                first = 0;
                put_json_string(f, pal_field_name(fd), strlen(pal_field_name(fd)));
                fputc(':', f);
                put_json_array(s, rec, i, f);
                continue;
            }
            if (!first)
                fputc(',', f);
            first = 0;
            put_json_string(f, pal_field_name(fd), strlen(pal_field_name(fd)));
            fputc(':', f);
            const char *nm;
            size_t n;
            if (name_of(s, rec, t, i, &nm, &n)) {
                put_json_string(f, nm, n);
                continue;
            }
            n = field_text(s, rec, i);
            pal_type ty = pal_field_type(fd);
            if (ty == PAL_STRING)
                put_json_string(f, s->buf, n);
            else if ((ty == PAL_FLOAT32 || ty == PAL_FLOAT64) && !is_finite_text(s->buf))
                fputs("null", f);
            else
                fwrite(s->buf, 1, n, f);
        }
        fputs("}}\n", f);
        break;
    }
    }
}

static int cmp_type_name(const void *a, const void *b)
{
    const pal_recdesc *const *x = a, *const *y = b;
    return strcmp(pal_recdesc_name(*x), pal_recdesc_name(*y));
}

static void print_counts(state *s, FILE *f)
{
    size_t n = pal_dict_record_count(s->d), m = 0, width = 5;
    const pal_recdesc **list = calloc(n ? n : 1, sizeof *list);
    uint64_t total = 0;
    if (!list) {
        fprintf(stderr, "%s: out of memory\n", prog);
        exit(1);
    }
    for (size_t i = 0; i < n; i++) {
        const pal_recdesc *rd = pal_dict_record(s->d, i);
        typeinfo *t = type_of(s, rd);
        if (!t->selected || (t->count == 0 && !s->o->count_all))
            continue;
        list[m++] = rd;
        const char *nm = pal_recdesc_name(rd);
        size_t w = pal_text_escape(NULL, 0, nm, strlen(nm), 0);
        if (w > width)
            width = w;
    }
    qsort(list, m, sizeof *list, cmp_type_name);
    for (size_t i = 0; i < m; i++) {
        uint64_t c = s->types[pal_recdesc_index(list[i])].count;
        const char *nm = pal_recdesc_name(list[i]);
        pal_text_print(f, nm, strlen(nm), 0, (int)width);
        fprintf(f, " %12" PRIu64 "\n", c);
        total += c;
    }
    fprintf(f, "%-*s %12" PRIu64 "\n", (int)width, "total", total);
    free(list);
}

static void print_info(state *s, FILE *f)
{
    pal_trace_info in;
    pal_reader_stats st;
    pal_reader_info(s->r, &in);
    pal_reader_get_stats(s->r, &st);
    static const char *const clocks[] = {"unknown", "monotonic", "cycle counter", "realtime"};
    const char *dn = pal_dict_name(s->d), *dv = pal_dict_version(s->d);
    fputs("format:           ", f);
    pal_text_print(f, dn, strlen(dn), 0, 0);
    fputc(' ', f);
    pal_text_print(f, dv, strlen(dv), 0, 0);
    fprintf(f, " (%s)\n", pal_dict_representation(s->d));
    fprintf(f, "record types:     %zu\n", pal_dict_record_count(s->d));
    fprintf(f, "time field:       %s (%s)\n", *pal_dict_time_field(s->d) ?
            pal_dict_time_field(s->d) : "none", pal_dict_time_unit(s->d));
    fprintf(f, "ticks per second: %.17g\n", in.ticks_per_second);
    fprintf(f, "clock:            %s\n",
            in.clock_source >= 0 && in.clock_source <= 3 ? clocks[in.clock_source] : "?");
    fprintf(f, "realtime offset:  %" PRId64 " ns\n", in.realtime_offset_ns);
    fputs("host:             ", f);
    pal_text_print(f, in.host, strnlen(in.host, sizeof in.host), 0, 0);
    fputc('\n', f);
    fprintf(f, "pid:              %" PRIu32 "\n", in.pid);
    fprintf(f, "rank / size:      %" PRId32 " / %" PRId32 "\n", in.rank, in.size);
    fprintf(f, "start time:       %" PRIu64 "\n", in.start_time);
    fprintf(f, "records:          %" PRIu64 "\n", st.records);
    fprintf(f, "chunks:           %" PRIu64 "\n", st.chunks);
    fprintf(f, "damaged:          %" PRIu64 "\n", st.damaged);
    fprintf(f, "bytes skipped:    %" PRIu64 "\n", st.bytes_skipped);
    fprintf(f, "truncated:        %s\n", st.truncated ? "yes" : "no");
    fprintf(f, "files:            %" PRIu32 "\n", st.files);
    fprintf(f, "not closed:       %" PRIu32 "%s\n", st.not_closed,
            st.not_closed ? " (killed, or still written: their last buffers are missing)" : "");
    fprintf(f, "ended by signal:  %" PRIu32 "\n", st.signaled);
    fprintf(f, "chunks missing:   %" PRIu64 "\n", st.chunks_missing);
    fprintf(f, "records lost:     %" PRIu64 " (dropped while tracing, counted)\n", st.lost);
    if (st.files > 1)
        fprintf(f, "ranks missing:    %" PRIu32 "\n", st.ranks_missing);
    if (st.streams > 0) {   /* ECL: threads, and files opened through their index */
        fprintf(f, "threads:          %" PRIu32 "\n", st.streams);
        fprintf(f, "files indexed:    %" PRIu32 " (found their chunks through their index)\n",
                st.files_indexed);
    }
}

/* --from/--to: seconds (ns kept), or raw time units. */
static int parse_time(const char *text, int raw, int64_t *out)
{
    if (raw) {
        uint64_t v;
        if (parse_u64(text, &v) != 0 || v > (uint64_t)INT64_MAX)
            return -1;
        *out = (int64_t)v;
        return 0;
    }
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (!*text || *end || errno || !(v > -9.2e9 && v < 9.2e9))
        return -1;
    *out = (int64_t)(v * 1e9 + (v < 0 ? -0.5 : 0.5));
    return 0;
}

/* The raw time --from/--to compare with --raw-time: what is printed. */
static int64_t raw_time(const state *s, const pal_record *rec)
{
    if (s->ascii)
        return pal_record_time_ns(rec);
    uint64_t t = pal_record_time(rec);
    return t > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)t;
}

int main(int argc, char **argv)
{
    enum { O_FROM = 256, O_TO, O_DICT, O_INFO, O_STRICT, O_FORCE, O_RAW_TIME, O_RAW_IDS,
           O_COUNT_ALL };
    static const struct option longopts[] = {
        {"dict-file", required_argument, NULL, 'd'},
        {"format", required_argument, NULL, 'f'},
        {"type", required_argument, NULL, 't'},
        {"process", required_argument, NULL, 'p'},
        {"stream", required_argument, NULL, 's'},
        {"from", required_argument, NULL, O_FROM},
        {"to", required_argument, NULL, O_TO},
        {"head", required_argument, NULL, 'n'},
        {"count", no_argument, NULL, 'c'},
        {"count-all", no_argument, NULL, O_COUNT_ALL},
        {"raw-time", no_argument, NULL, O_RAW_TIME},
        {"raw-ids", no_argument, NULL, O_RAW_IDS},
        {"dict", no_argument, NULL, O_DICT},
        {"info", no_argument, NULL, O_INFO},
        {"strict", no_argument, NULL, O_STRICT},
        {"force", no_argument, NULL, O_FORCE},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {NULL, 0, NULL, 0}
    };
    opts o;
    state s;
    int c, rc = 0;
    uint64_t v;
    memset(&o, 0, sizeof o);
    memset(&s, 0, sizeof s);
    o.types = calloc((size_t)argc + 1, sizeof *o.types);
    if (!o.types)
        return 1;
    /* getopt's messages name the tool, not the path it was run by */
    argv[0] = (char *)prog;
    while ((c = getopt_long(argc, argv, "d:f:t:p:s:n:chV", longopts, NULL)) != -1) {
        switch (c) {
        case 'd':
            o.dict_path = optarg;
            break;
        case 'f':
            if (strcmp(optarg, "text") == 0)
                o.fmt = FMT_TEXT;
            else if (strcmp(optarg, "csv") == 0)
                o.fmt = FMT_CSV;
            else if (strcmp(optarg, "json") == 0)
                o.fmt = FMT_JSON;
            else {
                fprintf(stderr, "%s: unknown format '%s' (text, csv or json)\n", prog, optarg);
                rc = 1;
                goto early;
            }
            break;
        case 't':
            o.types[o.ntypes++] = optarg;
            break;
        case 'p':
        case 's':
            if (parse_u64(optarg, &v) != 0 || v > UINT32_MAX) {
                fprintf(stderr, "%s: bad %s '%s'\n", prog, c == 'p' ? "process" : "stream",
                        optarg);
                rc = 1;
                goto early;
            }
            if (c == 'p') {
                o.has_process = 1;
                o.process = (uint32_t)v;
            } else {
                o.has_stream = 1;
                o.stream = (uint32_t)v;
            }
            break;
        case O_FROM:
            o.has_from = 1;
            o.from_text = optarg;
            break;
        case O_TO:
            o.has_to = 1;
            o.to_text = optarg;
            break;
        case 'n':
            if (parse_u64(optarg, &o.head) != 0) {
                fprintf(stderr, "%s: bad count '%s'\n", prog, optarg);
                rc = 1;
                goto early;
            }
            o.has_head = 1;
            break;
        case 'c': o.count = 1; break;
        case O_COUNT_ALL: o.count = o.count_all = 1; break;
        case O_RAW_TIME: o.raw_time = 1; break;
        case O_RAW_IDS: o.raw_ids = 1; break;
        case O_DICT: o.print_dict = 1; break;
        case O_INFO: o.info = 1; break;
        case O_STRICT: o.strict = 1; break;
        case O_FORCE: o.force = 1; break;
        case 'h':
            usage(stdout);
            goto early;
        case 'V':
            printf("pal-dump (%s) %s\n", PACKAGE_NAME, PACKAGE_VERSION);
            goto early;
        default:
            fprintf(stderr, "Try '%s --help' for more information.\n", prog);
            rc = 1;
            goto early;
        }
    }
    if ((o.has_from && parse_time(o.from_text, o.raw_time, &o.from) != 0) ||
        (o.has_to && parse_time(o.to_text, o.raw_time, &o.to) != 0)) {
        fprintf(stderr, "%s: bad time '%s' (%s)\n", prog,
                o.has_from && parse_time(o.from_text, o.raw_time, &o.from) != 0 ? o.from_text
                                                                                : o.to_text,
                o.raw_time ? "raw time units: a non-negative integer" : "seconds, e.g. 0.25");
        rc = 1;
        goto early;
    }
    if (optind >= argc) {
        fprintf(stderr, "%s: no trace given\nTry '%s --help' for more information.\n", prog,
                prog);
        rc = 1;
        goto early;
    }
    /* one trace, or the per-rank traces of a run (files or a directory) */
    const char *path = argv[optind];
    pal_reader *r;
    pal_status st = pal_reader_open_run((const char *const *)argv + optind,
                                        (size_t)(argc - optind), o.dict_path,
                                        o.force ? PAL_OPEN_FORCE : 0, &r);
    if (st != PAL_OK) {
        fprintf(stderr, "%s: %s\n", prog, pal_last_error());
        rc = 1;
        goto early;
    }
    s.o = &o;
    s.r = r;
    s.d = pal_reader_dict(r);
    s.ascii = strcmp(pal_dict_representation(s.d), "ascii") == 0;
    s.start_ns = pal_reader_start_ns(r);
    if (pal_names_create(&s.names) != PAL_OK) {
        fprintf(stderr, "%s: out of memory\n", prog);
        exit(1);
    }
    pal_reader_set_strict(r, o.strict);
    static char obuf[1 << 16];
    setvbuf(stdout, obuf, _IOFBF, sizeof obuf);

    if (o.print_dict) {
        pal_dict_print(s.d, stdout);
        goto done;
    }
    for (size_t k = 0; k < o.ntypes; k++)
        if (!pal_dict_find_record(s.d, o.types[k]))
            fprintf(stderr, "%s: warning: '%s' has no record type '%s'\n", prog, path,
                    o.types[k]);
    if (o.fmt == FMT_CSV && !o.count && !o.info)
        fputs("record,time,process,stream,type,field,value\n", stdout);

    const pal_record *rec;
    while (!(o.has_head && s.printed >= o.head) && (st = pal_reader_next(r, &rec)) == PAL_OK) {
        /* every definition counts, whatever is printed */
        if (!o.raw_ids && pal_names_add(s.names, rec) != PAL_OK) {
            fprintf(stderr, "%s: out of memory\n", prog);
            exit(1);
        }
        typeinfo *t = type_of(&s, pal_record_desc(rec));
        if (!t->selected)
            continue;
        if (o.has_stream && pal_record_stream(rec) != o.stream)
            continue;
        if (o.has_process && pal_record_process(rec) != o.process)
            continue;
        if (o.has_from || o.has_to) {
            int64_t tm = o.raw_time ? raw_time(&s, rec) : pal_record_time_ns(rec) - s.start_ns;
            if ((o.has_from && tm < o.from) || (o.has_to && tm > o.to))
                continue;
        }
        t->count++;
        if (!o.count && !o.info)
            print_record(&s, rec, t, stdout);
        s.printed++;
    }
    if (st == PAL_EIO) {
        fprintf(stderr, "%s: %s\n", prog, pal_reader_error(r));
        rc = 1;
    }
    if (o.count)
        print_counts(&s, stdout);
    if (o.info)
        print_info(&s, stdout);
done:
    if (rc == 0) {
        pal_reader_stats rs;
        pal_reader_get_stats(r, &rs);
        /* damage, or a partial result: a trace not closed, lacking chunks,
         * ended by a signal; a run lacking ranks; records lost at capture */
        if (pal_stats_partial(&rs))
            rc = 2;
    }
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "%s: write error: %s\n", prog, strerror(errno));
        rc = 1;
    }
    for (size_t i = 0; i < s.ntypes; i++) {
        free(s.types[i].skip);
        free(s.types[i].ref);
    }
    pal_names_destroy(s.names);
    free(s.types);
    free(s.buf);
    free(o.types);
    pal_reader_close(r);
    return rc;
early:
    /* before a reader exists: usage errors, --help, --version, open failures */
    free(o.types);
    return rc;
}
