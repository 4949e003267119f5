/* export.c -- Chrome/Perfetto trace-event JSON, written while the filters
 * read the trace: one track per rank (pid) and thread (tid); regions and MPI
 * calls as complete ("X") slices, matched messages as flow arrows ("s"/"f",
 * each id once as a pair), markers as instants ("i"), counter samples as
 * counter tracks ("C"). Counters and markers are found through the
 * dictionary's roles (counter: role counter, its value field role value, its
 * id resolved to a name; marker: role marker, its text field role text).
 * A window [from, to] keeps the slices that overlap it (clipped to it), the
 * flows whose both ends lie in it, and the counters and markers inside it.
 * Strings go through views/escape.c: the file is always valid UTF-8. */
#include <config.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "views/escape.h"
#include "views/records.h"
#include "views/vw.h"

/* Above this many MB of JSON pal-view warns (Perfetto's UI and
 * chrome://tracing load JSON of a few hundred MB slowly or not at all);
 * PAL_VIEW_WARN_MB sets another threshold. */
#define WARN_MB 256

struct vw_chrome {
    FILE *out;            /* counts into bytes, writes to dest */
    FILE *dest;
    int first;
    double from, to;
    vw_records *rec;
    uint64_t bytes, events;
};

static ssize_t count_write(void *cookie, const char *buf, size_t n)
{
    vw_chrome *c = cookie;
    size_t w = fwrite(buf, 1, n, c->dest);
    c->bytes += w;
    return w == n ? (ssize_t)n : w ? (ssize_t)w : -1;
}

static void sep(vw_chrome *c)
{
    fputs(c->first ? "\n" : ",\n", c->out);
    c->first = 0;
    c->events++;
}

static int inside(const vw_chrome *c, double t)
{
    return t >= c->from && (c->to < 0 || t <= c->to);
}

/* a frame closes: one "X" slice with the call's arguments */
static void on_frame(void *ctx, const vw_frame_ev *e)
{
    vw_chrome *c = ctx;
    double start = e->start, end = e->end;
    if (end < 0 || end < c->from || (c->to >= 0 && start > c->to))
        return;
    if (start < c->from)
        start = c->from;
    if (c->to >= 0 && end > c->to)
        end = c->to;
    sep(c);
    fputs("{\"name\":", c->out);
    vw_json_string(c->out, e->name);
    fprintf(c->out, ",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":%u,\"tid\":%u,\"ts\":%.3f,\"dur\":%.3f",
            e->kind == VW_REGION_MPI ? "mpi" : "region", e->process, e->stream, start * 1e6,
            (end - start) * 1e6);
    /* the arguments the call's records carried (MPI: peer, tag, ...) */
    if (e->kind == VW_REGION_MPI) {
        fprintf(c->out, ",\"args\":{\"communicator\":%lld", (long long)e->comm);
        if (e->peer >= 0)
            fprintf(c->out, ",\"peer\":%lld,\"tag\":%lld", (long long)e->peer,
                    (long long)e->tag);
        if (e->bytes)
            fprintf(c->out, ",\"bytes\":%llu", (unsigned long long)e->bytes);
        if (e->request >= 0)
            fprintf(c->out, ",\"request\":%lld", (long long)e->request);
        if (e->root >= 0)
            fprintf(c->out, ",\"root\":%lld", (long long)e->root);
        fputc('}', c->out);
    }
    fputc('}', c->out);
}

static void on_flow(void *ctx, const vw_msg *m, uint64_t id, uint32_t sp, uint32_t ss,
                    uint32_t dp, uint32_t ds)
{
    vw_chrome *c = ctx;
    if (!inside(c, m->t_send) || !inside(c, m->t_recv))
        return;
    sep(c);
    fprintf(c->out,
            "{\"name\":\"message\",\"cat\":\"message\",\"ph\":\"s\",\"id\":%llu,\"pid\":%u,"
            "\"tid\":%u,\"ts\":%.3f,\"args\":{\"bytes\":%llu}}",
            (unsigned long long)id, sp, ss, m->t_send * 1e6, (unsigned long long)m->bytes);
    sep(c);
    fprintf(c->out,
            "{\"name\":\"message\",\"cat\":\"message\",\"ph\":\"f\",\"bp\":\"e\",\"id\":%llu,"
            "\"pid\":%u,\"tid\":%u,\"ts\":%.3f}",
            (unsigned long long)id, dp, ds, m->t_recv * 1e6);
}

static void on_record(void *ctx, const pal_record *rec, double t)
{
    vw_chrome *c = ctx;
    vw_rec_meaning m;
    vw_records_feed(c->rec, rec, &m);
    if (m.what == VW_REC_OTHER || !inside(c, t))
        return;
    sep(c);
    fputs("{\"name\":", c->out);
    vw_json_text(c->out, m.name, m.len);
    if (m.what == VW_REC_COUNTER)
        fprintf(c->out, ",\"cat\":\"counter\",\"ph\":\"C\",\"pid\":%u,\"tid\":%u,\"ts\":%.3f,"
                        "\"args\":{\"value\":%.17g}}",
                pal_record_process(rec), pal_record_stream(rec), t * 1e6, m.value);
    else
        fprintf(c->out, ",\"cat\":\"marker\",\"ph\":\"i\",\"s\":\"t\",\"pid\":%u,\"tid\":%u,"
                        "\"ts\":%.3f}",
                pal_record_process(rec), pal_record_stream(rec), t * 1e6);
}

vw_chrome *vw_chrome_begin(FILE *out, double from, double to)
{
    vw_chrome *c = calloc(1, sizeof *c);
    if (c == NULL || (c->rec = vw_records_create()) == NULL) {
        free(c);
        return NULL;
    }
    cookie_io_functions_t io = {NULL, count_write, NULL, NULL};
    c->dest = out;
    c->out = fopencookie(c, "w", io);
    if (c->out == NULL) {
        vw_records_destroy(c->rec);
        free(c);
        return NULL;
    }
    setvbuf(c->out, NULL, _IOFBF, 1 << 16);
    c->first = 1;
    c->from = from > 0 ? from : 0;
    c->to = to;
    fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", out);
    return c;
}

void vw_chrome_sink(vw_chrome *c, vw_sink *s)
{
    memset(s, 0, sizeof *s);
    s->ctx = c;
    s->frame = on_frame;
    s->flow = on_flow;
    s->record = on_record;
}

int vw_chrome_end(vw_chrome *c, const vw_facts *f)
{
    if (f)
        for (size_t i = 0; i < f->nlanes; i++) {
            const vw_lane *l = &f->lanes[i];
            sep(c);
            fprintf(c->out, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%u,\"tid\":%u,"
                            "\"args\":{\"name\":",
                    l->process, l->stream);
            if (l->name[0]) {
                vw_json_string(c->out, l->name);
            } else {
                fprintf(c->out, "\"thread %u\"", l->stream);
            }
            fputs("}}", c->out);
            if (i == 0 || f->lanes[i - 1].process != l->process) {
                sep(c);
                fprintf(c->out, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%u,"
                                "\"args\":{\"name\":\"rank %u\"}}",
                        l->process, l->process);
            }
        }
    fputs("\n]", c->out);
    char note[1024];
    if (f && vw_damage_note(f, note, sizeof note)) {   /* the trace's damage travels with it */
        fputs(",\"otherData\":{\"damage\":", c->out);
        vw_json_string(c->out, note);
        fputc('}', c->out);
    }
    fputs("}\n", c->out);
    int rc = fclose(c->out) ? -1 : 0;   /* flushes into dest, which stays open */
    if (ferror(c->dest))
        rc = -1;
    const char *env = getenv("PAL_VIEW_WARN_MB");
    double mb = env && *env ? strtod(env, NULL) : WARN_MB;
    if ((double)c->bytes > mb * 1e6)
        fprintf(stderr, "pal-view: warning: the Chrome export is %.1f MB (%llu events); Perfetto "
                        "and chrome://tracing load JSON this large slowly or not at all: export "
                        "a window (--from/--to), trace fewer functions (a filter: ECL_FILTER), "
                        "or compress it (--gzip, -o FILE.json.gz)\n",
                (double)c->bytes / 1e6, (unsigned long long)c->events);
    vw_records_destroy(c->rec);
    free(c);
    return rc;
}

/* ---------------- gzip output ---------------- */
#include <zlib.h>

static ssize_t gz_write(void *cookie, const char *buf, size_t n)
{
    size_t done = 0;
    while (done < n) {   /* gzwrite takes unsigned sizes */
        unsigned k = n - done > (1u << 30) ? 1u << 30 : (unsigned)(n - done);
        int w = gzwrite((gzFile)cookie, buf + done, k);
        if (w <= 0)
            return done ? (ssize_t)done : -1;
        done += (size_t)w;
    }
    return (ssize_t)done;
}

static int gz_close(void *cookie)
{
    return gzclose((gzFile)cookie) == Z_OK ? 0 : -1;
}

FILE *vw_gzip_fdopen(int fd)
{
    gzFile z = gzdopen(fd, "wb6");
    if (z == NULL)
        return NULL;
    gzbuffer(z, 1 << 17);
    cookie_io_functions_t io = {NULL, gz_write, NULL, gz_close};
    FILE *f = fopencookie(z, "w", io);
    if (f == NULL)
        gzclose(z);
    return f;
}
