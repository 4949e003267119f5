/* check_trace.c -- reads a trace of an MPI run back through PAL and checks
 * what the MPI tests state about it; exits 1 with the reason on the first
 * failed check. Traces of the tests are small: the records are kept.
 *
 *   check_trace [CHECK]... TRACE
 *     --ranks N          the header says N processes; every process field and
 *                        every peer, root and source is a world rank (< N)
 *                        or a documented special value (< 0)
 *     --count TYPE=N     exactly N records of TYPE in all
 *     --each TYPE=N      exactly N records of TYPE from every process
 *     --has 'TYPE F=V..' some record of TYPE has these integer field values
 *                        (process and thread included)
 *     --has-n N 'TYPE F=V..'  exactly N such records
 *     --match            every send matched by exactly one receive with the
 *                        same sender, receiver, communicator, tag and bytes,
 *                        and no receive completes before its send begins; a
 *                        receive freed while active (mpi_complete flag 16)
 *                        takes one send left over that it could match
 *     --unknown N        with --match: exactly N sends went to such receives
 *     --order            record times never decrease
 *     --streams N        every process has records in at least N threads
 *     --same TYPE.FIELD  every record of TYPE (there is one) has the same FIELD
 *     --canon FILE       write the MPI calls of each process and thread,
 *                        without times, durations, request ids and clock
 *                        values, for comparing two runs
 *     --readable         only check that the trace reads (damage allowed) */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pal/pal.h"

#define MAXF 24

typedef struct rec {
    const char *type;            /* interned */
    uint64_t time;
    uint32_t process, thread;
    int nf;
    const char *fname[MAXF];     /* interned */
    int64_t fval[MAXF];
} rec;

static rec *recs;
static size_t nrecs, caprecs;
static const char *trace_path;

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "check_trace: %s: FAIL: ", trace_path);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(1);
}

/* ---- interned strings ---- */
static char **names;
static size_t nnames;

static const char *intern(const char *s, size_t len)
{
    for (size_t i = 0; i < nnames; i++)
        if (strlen(names[i]) == len && memcmp(names[i], s, len) == 0)
            return names[i];
    names = realloc(names, (nnames + 1) * sizeof *names);
    char *c = malloc(len + 1);
    if (names == NULL || c == NULL)
        fail("out of memory");
    memcpy(c, s, len);
    c[len] = '\0';
    names[nnames++] = c;
    return c;
}

static int field(const rec *r, const char *name, int64_t *v)
{
    if (strcmp(name, "process") == 0) {
        *v = r->process;
        return 1;
    }
    if (strcmp(name, "thread") == 0) {
        *v = r->thread;
        return 1;
    }
    for (int i = 0; i < r->nf; i++)
        if (strcmp(r->fname[i], name) == 0) {
            *v = r->fval[i];
            return 1;
        }
    return 0;
}

static int64_t need(const rec *r, const char *name)
{
    int64_t v;
    if (!field(r, name, &v))
        fail("a %s record has no field '%s'", r->type, name);
    return v;
}

static int32_t header_size = -1;

static void load(const char *path, int readable_only)
{
    pal_reader *rd;
    if (pal_reader_open(path, NULL, &rd) != PAL_OK)
        fail("cannot open: %s", pal_last_error());
    pal_trace_info info;
    if (pal_reader_info(rd, &info) == PAL_OK)
        header_size = info.size;
    const pal_record *r;
    pal_status st;
    while ((st = pal_reader_next(rd, &r)) == PAL_OK) {
        const pal_recdesc *d = pal_record_desc(r);
        if (nrecs == caprecs) {
            caprecs = caprecs ? 2 * caprecs : 4096;
            recs = realloc(recs, caprecs * sizeof *recs);
            if (recs == NULL)
                fail("out of memory");
        }
        rec *x = &recs[nrecs++];
        memset(x, 0, sizeof *x);
        const char *tn = pal_recdesc_name(d);
        x->type = intern(tn, strlen(tn));
        x->time = pal_record_time(r);
        x->process = pal_record_process(r);
        x->thread = pal_record_stream(r);
        for (size_t i = 0; i < pal_recdesc_field_count(d) && x->nf < MAXF; i++) {
            const pal_fielddesc *f = pal_recdesc_field(d, i);
            const char *fn = pal_field_name(f);
            pal_type t = pal_field_type(f);
            if (t == PAL_STRING || t == PAL_FLOAT32 || t == PAL_FLOAT64 ||
                strcmp(fn, "type") == 0 || strcmp(fn, "time") == 0)
                continue;
            int64_t v;
            uint64_t u;
            if (pal_record_get_i64(r, fn, &v) != PAL_OK) {
                if (pal_record_get_u64(r, fn, &u) != PAL_OK)
                    continue;
                v = (int64_t)u;
            }
            x->fname[x->nf] = intern(fn, strlen(fn));
            x->fval[x->nf++] = v;
        }
    }
    pal_reader_stats rs;
    pal_reader_get_stats(rd, &rs);
    if (st != PAL_END && !readable_only)
        fail("reading stopped: %s", pal_reader_error(rd));
    if ((rs.damaged || rs.truncated) && !readable_only)
        fail("%" PRIu64 " damaged chunks%s", rs.damaged, rs.truncated ? ", cut off" : "");
    pal_reader_close(rd);
}

static size_t count_type(const char *type, int process)
{
    size_t n = 0;
    for (size_t i = 0; i < nrecs; i++)
        if (strcmp(recs[i].type, type) == 0 && (process < 0 || (int)recs[i].process == process))
            n++;
    return n;
}

static void split_eq(const char *arg, char *name, size_t len, long *n)
{
    const char *eq = strrchr(arg, '=');
    if (eq == NULL || (size_t)(eq - arg) >= len)
        fail("bad argument '%s' (TYPE=N)", arg);
    memcpy(name, arg, (size_t)(eq - arg));
    name[eq - arg] = '\0';
    *n = strtol(eq + 1, NULL, 10);
}

/* "TYPE f=v f=v": number of matching records */
static size_t count_has(const char *spec)
{
    char buf[512], *save = NULL;
    snprintf(buf, sizeof buf, "%s", spec);
    char *type = strtok_r(buf, " ", &save);
    const char *fn[16];
    int64_t fv[16];
    int k = 0;
    for (char *t; k < 16 && (t = strtok_r(NULL, " ", &save)) != NULL; k++) {
        char *eq = strchr(t, '=');
        if (eq == NULL)
            fail("bad --has spec '%s'", spec);
        *eq = '\0';
        fn[k] = t;
        fv[k] = strtoll(eq + 1, NULL, 10);
    }
    size_t n = 0;
    for (size_t i = 0; i < nrecs; i++) {
        if (type == NULL || strcmp(recs[i].type, type) != 0)
            continue;
        int ok = 1;
        for (int j = 0; j < k && ok; j++) {
            int64_t v;
            ok = field(&recs[i], fn[j], &v) && v == fv[j];
        }
        n += ok;
    }
    return n;
}

/* ---- messages ---- */
typedef struct msg {
    int64_t src, dst, comm, tag, bytes;
    uint64_t t;                  /* send: begin; receive: end */
} msg;

static int msg_cmp(const void *a, const void *b)
{
    const msg *x = a, *y = b;
    const int64_t kx[5] = { x->src, x->dst, x->comm, x->tag, x->bytes };
    const int64_t ky[5] = { y->src, y->dst, y->comm, y->tag, y->bytes };
    for (int i = 0; i < 5; i++)
        if (kx[i] != ky[i])
            return kx[i] < ky[i] ? -1 : 1;
    return x->t < y->t ? -1 : x->t > y->t;
}

static int is_send_type(const char *t)
{
    static const char *const s[] = { "mpi_send", "mpi_bsend", "mpi_ssend", "mpi_rsend",
                                     "mpi_isend", "mpi_ibsend", "mpi_issend", "mpi_irsend",
                                     "mpi_isendrecv", "mpi_isendrecv_replace", NULL };
    for (int i = 0; s[i]; i++)
        if (strcmp(t, s[i]) == 0)
            return 1;
    return 0;
}

static void push(msg **v, size_t *n, size_t *cap, msg m)
{
    if (*n == *cap) {
        *cap = *cap ? 2 * *cap : 256;
        *v = realloc(*v, *cap * sizeof **v);
        if (*v == NULL)
            fail("out of memory");
    }
    (*v)[(*n)++] = m;
}

/* A receive of unknown completion u could take send m. */
static int could_take(const msg *u, const msg *m)
{
    return u->dst == m->dst && u->comm == m->comm && (u->src == -2 || u->src == m->src) &&
           (u->tag == -1 || u->tag == m->tag);
}

static void check_match(long want_unknown)
{
    msg *s = NULL, *r = NULL, *u = NULL;
    size_t ns = 0, nr = 0, cs = 0, cr = 0, nu = 0, cu = 0, taken = 0;
    for (size_t i = 0; i < nrecs; i++) {
        const rec *x = &recs[i];
        const char *t = x->type;
        int64_t me = x->process;
        if (is_send_type(t) || strcmp(t, "mpi_sendrecv") == 0 ||
            strcmp(t, "mpi_sendrecv_replace") == 0) {
            msg m = { me, need(x, "peer"), need(x, "comm"), need(x, "tag"), need(x, "bytes"),
                      x->time - (uint64_t)need(x, "duration") };
            if (m.dst >= 0)
                push(&s, &ns, &cs, m);
        }
        if (strcmp(t, "mpi_sendrecv") == 0 || strcmp(t, "mpi_sendrecv_replace") == 0) {
            msg m = { need(x, "source"), me, need(x, "comm"), need(x, "recvtag"),
                      need(x, "recvbytes"), x->time };
            if (m.src >= 0)
                push(&r, &nr, &cr, m);
        }
        if (strcmp(t, "mpi_started") == 0 && need(x, "kind") == 0) {
            msg m = { me, need(x, "peer"), need(x, "comm"), need(x, "tag"), need(x, "bytes"),
                      x->time };
            if (m.dst >= 0)
                push(&s, &ns, &cs, m);
        }
        if (strcmp(t, "mpi_complete") == 0 && need(x, "kind") == 1 && (need(x, "flags") & 16)) {
            msg m = { need(x, "peer"), me, need(x, "comm"), need(x, "tag"), 0, 0 };
            push(&u, &nu, &cu, m);
            continue;
        }
        if (strcmp(t, "mpi_recv") == 0 || strcmp(t, "mpi_mrecv") == 0 ||
            (strcmp(t, "mpi_complete") == 0 && need(x, "kind") == 1 && !(need(x, "flags") & 1))) {
            msg m = { need(x, "peer"), me, need(x, "comm"), need(x, "tag"), need(x, "bytes"),
                      x->time };
            if (m.src >= 0)
                push(&r, &nr, &cr, m);
        }
    }
    if (ns > 0)
        qsort(s, ns, sizeof *s, msg_cmp);
    if (nr > 0)
        qsort(r, nr, sizeof *r, msg_cmp);
    size_t i = 0, j = 0;
    while (i < ns || j < nr) {
        int c = i == ns ? 1 : j == nr ? -1 : 0;
        if (c == 0) {
            msg a = s[i], b = r[j];
            a.t = b.t = 0;
            c = msg_cmp(&a, &b);
        }
        if (c < 0) {
            /* no receive of its key left: one of unknown completion? */
            size_t k = 0;
            while (k < nu && !could_take(&u[k], &s[i]))
                k++;
            if (k < nu) {
                u[k] = u[--nu];
                taken++;
                i++;
                continue;
            }
        }
        if (c < 0)
            fail("send without a receive: %lld -> %lld comm %lld tag %lld, %lld bytes",
                 (long long)s[i].src, (long long)s[i].dst, (long long)s[i].comm,
                 (long long)s[i].tag, (long long)s[i].bytes);
        if (c > 0)
            fail("receive without a send: %lld -> %lld comm %lld tag %lld, %lld bytes",
                 (long long)r[j].src, (long long)r[j].dst, (long long)r[j].comm,
                 (long long)r[j].tag, (long long)r[j].bytes);
        /* the same key on both sides: k-th earliest send begins no later
         * than the k-th earliest receive completes */
        if (s[i].t > r[j].t)
            fail("a receive completes before its send begins: %lld -> %lld tag %lld, by %" PRIu64
                 " ns", (long long)s[i].src, (long long)s[i].dst, (long long)s[i].tag,
                 s[i].t - r[j].t);
        i++;
        j++;
    }
    if (want_unknown >= 0 && taken != (size_t)want_unknown)
        fail("%zu sends went to receives of unknown completion, expected %ld", taken, want_unknown);
    printf("check_trace: %zu messages matched, %zu of them by receives of unknown completion\n",
           ns, taken);
    free(s);
    free(r);
    free(u);
}

static int is_peer_field(const char *f)
{
    return strcmp(f, "peer") == 0 || strcmp(f, "root") == 0 || strcmp(f, "source") == 0;
}

static void check_ranks(int n)
{
    if (header_size != n)
        fail("the header says %d processes, expected %d", (int)header_size, n);
    for (size_t i = 0; i < nrecs; i++) {
        const rec *x = &recs[i];
        if ((int)x->process >= n)
            fail("process %u in a %s record", (unsigned)x->process, x->type);
        if (strncmp(x->type, "mpi_", 4) != 0)
            continue;
        for (int k = 0; k < x->nf; k++) {
            if (!is_peer_field(x->fname[k]))
                continue;
            int64_t v = x->fval[k];
            if (v >= n || v < -2 || (v == -2 && strcmp(x->type, "mpi_irecv") != 0 &&
                                     strcmp(x->type, "mpi_recv_init") != 0 &&
                                     strcmp(x->type, "mpi_iprobe") != 0 &&
                                     strcmp(x->type, "mpi_improbe") != 0 &&
                                     strcmp(x->type, "mpi_complete") != 0))
                fail("%s record of process %u: %s = %lld is not a world rank", x->type,
                     (unsigned)x->process, x->fname[k], (long long)v);
        }
    }
}

static void check_order(void)
{
    for (size_t i = 1; i < nrecs; i++)
        if (recs[i].time < recs[i - 1].time)
            fail("record %zu (%s, time %" PRIu64 ") is before the previous one (%" PRIu64 ")", i,
                 recs[i].type, recs[i].time, recs[i - 1].time);
}

static void check_streams(int want)
{
    for (int p = 0; p < header_size; p++) {
        uint32_t seen[256];
        int n = 0;
        for (size_t i = 0; i < nrecs; i++) {
            if ((int)recs[i].process != p)
                continue;
            int k;
            for (k = 0; k < n && seen[k] != recs[i].thread; k++)
                ;
            if (k == n && n < 256)
                seen[n++] = recs[i].thread;
        }
        if (n < want)
            fail("process %d has records in %d threads, expected at least %d", p, n, want);
    }
}

static void check_same(const char *spec)
{
    char type[256];
    const char *dot = strchr(spec, '.');
    if (dot == NULL || (size_t)(dot - spec) >= sizeof type)
        fail("bad --same '%s' (TYPE.FIELD)", spec);
    memcpy(type, spec, (size_t)(dot - spec));
    type[dot - spec] = '\0';
    size_t n = 0;
    int64_t first = 0;
    for (size_t i = 0; i < nrecs; i++) {
        if (strcmp(recs[i].type, type) != 0)
            continue;
        int64_t v = need(&recs[i], dot + 1);
        if (n++ == 0)
            first = v;
        else if (v != first)
            fail("%s: %s is %lld in process %u but %lld elsewhere", type, dot + 1, (long long)v,
                 (unsigned)recs[i].process, (long long)first);
    }
    if (n == 0)
        fail("no %s record", type);
}

static int skip_in_canon(const char *f)
{
    return strcmp(f, "duration") == 0 || strcmp(f, "request") == 0 || strcmp(f, "process") == 0 ||
           strcmp(f, "thread") == 0;
}

static void write_canon(const char *path)
{
    FILE *f = fopen(path, "w");
    if (f == NULL)
        fail("cannot write '%s'", path);
    for (int p = 0; p < header_size; p++) {
        for (uint32_t th = 0; th < 64; th++) {
            for (size_t i = 0; i < nrecs; i++) {
                const rec *x = &recs[i];
                if ((int)x->process != p || x->thread != th || strncmp(x->type, "mpi_", 4) != 0 ||
                    strcmp(x->type, "mpi_clock") == 0)
                    continue;
                fprintf(f, "p%d t%u %s", p, (unsigned)th, x->type);
                for (int k = 0; k < x->nf; k++)
                    if (!skip_in_canon(x->fname[k]))
                        fprintf(f, " %s=%lld", x->fname[k], (long long)x->fval[k]);
                fputc('\n', f);
            }
        }
    }
    fclose(f);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: check_trace [CHECK]... TRACE\n");
        return 2;
    }
    trace_path = argv[argc - 1];
    int readable = 0;
    long want_unknown = -1;
    for (int i = 1; i < argc - 1; i++) {
        if (strcmp(argv[i], "--readable") == 0)
            readable = 1;
        if (strcmp(argv[i], "--unknown") == 0 && i + 1 < argc - 1)
            want_unknown = atol(argv[i + 1]);
    }
    load(trace_path, readable);
    for (int i = 1; i < argc - 1; i++) {
        const char *a = argv[i], *v = i + 1 < argc - 1 ? argv[i + 1] : NULL;
        char name[256];
        long n;
        if (strcmp(a, "--readable") == 0 || strcmp(a, "--match") == 0 ||
            strcmp(a, "--order") == 0) {
            if (strcmp(a, "--match") == 0)
                check_match(want_unknown);
            else if (strcmp(a, "--order") == 0)
                check_order();
            continue;
        }
        if (v == NULL)
            fail("%s needs a value", a);
        i++;
        if (strcmp(a, "--unknown") == 0) {
            /* read above, checked by --match */
        } else if (strcmp(a, "--ranks") == 0) {
            check_ranks(atoi(v));
        } else if (strcmp(a, "--count") == 0) {
            split_eq(v, name, sizeof name, &n);
            size_t got = count_type(name, -1);
            if ((long)got != n)
                fail("%zu %s records, expected %ld", got, name, n);
        } else if (strcmp(a, "--each") == 0) {
            split_eq(v, name, sizeof name, &n);
            for (int p = 0; p < header_size; p++) {
                size_t got = count_type(name, p);
                if ((long)got != n)
                    fail("process %d: %zu %s records, expected %ld", p, got, name, n);
            }
        } else if (strcmp(a, "--has") == 0) {
            if (count_has(v) == 0)
                fail("no record '%s'", v);
        } else if (strcmp(a, "--has-n") == 0) {
            if (i + 1 >= argc - 1)
                fail("--has-n needs N and a spec");
            size_t got = count_has(argv[++i]);
            if ((long)got != atol(v))
                fail("%zu records '%s', expected %s", got, argv[i], v);
        } else if (strcmp(a, "--same") == 0) {
            check_same(v);
        } else if (strcmp(a, "--streams") == 0) {
            check_streams(atoi(v));
        } else if (strcmp(a, "--canon") == 0) {
            write_canon(v);
        } else {
            fail("unknown check '%s'", a);
        }
    }
    printf("check_trace: %s: %zu records, all checks passed\n", trace_path, nrecs);
    return 0;
}
