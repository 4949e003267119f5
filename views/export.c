/* export.c -- Chrome/Perfetto trace-event JSON, written while the filters
 * read the trace: one track per rank (pid) and thread (tid), regions and MPI
 * calls as complete ("X") slices, markers as instants, matched messages as
 * flow arrows ("s"/"f"). */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "views/escape.h"
#include "views/vw.h"

struct vw_chrome {
    FILE *out;
    int first;
};

static void sep(vw_chrome *c)
{
    fputs(c->first ? "\n" : ",\n", c->out);
    c->first = 0;
}

static void on_slice(void *ctx, size_t lane, uint32_t process, uint32_t stream, const char *name,
                     int kind, double start, double end)
{
    vw_chrome *c = ctx;
    sep(c);
    fputs("{\"name\":", c->out);
    vw_json_text(c->out, name, strlen(name));
    fprintf(c->out, ",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":%u,\"tid\":%u,\"ts\":%.3f,\"dur\":%.3f}",
            kind == VW_REGION_MPI ? "mpi" : "region", process, stream, start * 1e6,
            (end - start) * 1e6);
    (void)lane;
}

static void on_flow(void *ctx, const vw_msg *m, uint64_t id, uint32_t sp, uint32_t ss,
                    uint32_t dp, uint32_t ds)
{
    vw_chrome *c = ctx;
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

static void on_marker(void *ctx, uint32_t process, uint32_t stream, const char *text, size_t len,
                      double t)
{
    vw_chrome *c = ctx;
    sep(c);
    fputs("{\"name\":", c->out);
    vw_json_text(c->out, text, len);
    fprintf(c->out, ",\"cat\":\"marker\",\"ph\":\"i\",\"s\":\"t\",\"pid\":%u,\"tid\":%u,"
                    "\"ts\":%.3f}",
            process, stream, t * 1e6);
}

vw_chrome *vw_chrome_begin(FILE *out, double tps_unused)
{
    (void)tps_unused;
    vw_chrome *c = calloc(1, sizeof *c);
    if (c == NULL)
        return NULL;
    c->out = out;
    c->first = 1;
    fputs("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[", out);
    return c;
}

void vw_chrome_sink(vw_chrome *c, vw_sink *s)
{
    memset(s, 0, sizeof *s);
    s->ctx = c;
    s->slice = on_slice;
    s->flow = on_flow;
    s->marker = on_marker;
}

int vw_chrome_end(vw_chrome *c, const vw_facts *f)
{
    if (f)
        for (size_t i = 0; i < f->nlanes; i++) {
            const vw_lane *l = &f->lanes[i];
            char name[128];
            if (l->name[0])
                snprintf(name, sizeof name, "%s", l->name);
            else
                snprintf(name, sizeof name, "thread %u", l->stream);
            sep(c);
            fprintf(c->out, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%u,\"tid\":%u,"
                            "\"args\":{\"name\":",
                    l->process, l->stream);
            vw_json_text(c->out, name, strlen(name));
            fputs("}}", c->out);
            if (i == 0 || f->lanes[i - 1].process != l->process) {
                sep(c);
                fprintf(c->out, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%u,"
                                "\"args\":{\"name\":\"rank %u\"}}",
                        l->process, l->process);
            }
        }
    fputs("\n]}\n", c->out);
    int rc = ferror(c->out) ? -1 : 0;
    free(c);
    return rc;
}
