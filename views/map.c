/* map.c -- the one place where record names become semantic events.
 * A profile per dictionary name lists rules (first match wins); a record name
 * pattern may end in '*' (prefix) or start with '*' (suffix). Adding a trace
 * format to the views means adding a profile here, nothing else. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "views/vw.h"

typedef struct rule {
    const char *record;
    vw_ev ev;
    int role;
    unsigned flags;
} rule;

typedef struct profile {
    const char *dict;   /* dictionary name; trailing '*' = prefix */
    const rule *rules;
    vw_fields fields;
} profile;

#define I VW_F_IDLE
#define M VW_F_MPI
#define S VW_F_STEM
#define C VW_F_COLL

/* ECL (doc/trace-format.md, doc/mpi.md): MPI call records carry `duration`
 * and are written when the call returns. */
static const rule ecl_rules[] = {
    {"region_def", VW_EV_REGION_DEF, 0, 0},
    {"thread_def", VW_EV_THREAD_DEF, 0, 0},
    {"counter_def", VW_EV_DEF, 0, 0},
    {"clock_sync", VW_EV_DEF, 0, 0},
    {"enter", VW_EV_ENTER, 0, 0},
    {"leave", VW_EV_LEAVE, 0, 0},
    {"marker", VW_EV_MARKER, 0, 0},
    {"counter_int", VW_EV_COUNTER, 0, 0},
    {"counter_float", VW_EV_COUNTER, 0, 0},
    {"flush", VW_EV_OVERHEAD, 0, 0},
    {"lost", VW_EV_LOST, 0, 0},
    {"mpi_clock", VW_EV_DEF, 0, 0},
    {"mpi_comm", VW_EV_COMM_DEF, 0, 0},
    {"mpi_complete", VW_EV_COMPLETE, VW_ROLE_RECV, 0},
    {"mpi_started", VW_EV_COMPLETE, VW_ROLE_SEND, 0},
    {"mpi_send", VW_EV_CALL, VW_ROLE_SEND, M},
    {"mpi_bsend", VW_EV_CALL, VW_ROLE_SEND, M},
    {"mpi_ssend", VW_EV_CALL, VW_ROLE_SEND, M},
    {"mpi_rsend", VW_EV_CALL, VW_ROLE_SEND, M},
    {"mpi_isend", VW_EV_CALL, VW_ROLE_SEND, M},
    {"mpi_ibsend", VW_EV_CALL, VW_ROLE_SEND, M},
    {"mpi_issend", VW_EV_CALL, VW_ROLE_SEND, M},
    {"mpi_irsend", VW_EV_CALL, VW_ROLE_SEND, M},
    {"mpi_isendrecv*", VW_EV_CALL, VW_ROLE_SEND, M},
    {"mpi_recv", VW_EV_CALL, VW_ROLE_RECV, M | I},
    {"mpi_mrecv", VW_EV_CALL, VW_ROLE_RECV, M | I},
    {"mpi_sendrecv*", VW_EV_CALL, VW_ROLE_SENDRECV, M | I},
    {"mpi_wait*", VW_EV_CALL, 0, M | I},
    {"mpi_probe", VW_EV_CALL, 0, M | I},
    {"mpi_mprobe", VW_EV_CALL, 0, M | I},
    {"mpi_barrier", VW_EV_CALL, 0, M | I | C},
    {"mpi_bcast", VW_EV_CALL, 0, M | I | C},
    {"mpi_reduce*", VW_EV_CALL, 0, M | I | C},
    {"mpi_allreduce", VW_EV_CALL, 0, M | I | C},
    {"mpi_all*", VW_EV_CALL, 0, M | I | C},
    {"mpi_gather*", VW_EV_CALL, 0, M | I | C},
    {"mpi_scatter*", VW_EV_CALL, 0, M | I | C},
    {"mpi_scan", VW_EV_CALL, 0, M | I | C},
    {"mpi_exscan", VW_EV_CALL, 0, M | I | C},
    {"mpi_*", VW_EV_CALL, 0, M},
    {NULL, VW_EV_NONE, 0, 0}};

/* PICL (edl/formats/picl.edl): X_begin / X_end pairs; user regions are
 * begin/end with an event number. Sends carry dest, receives source. */
static const rule picl_rules[] = {
    {"trace_*", VW_EV_DEF, 0, 0},
    {"stat_*", VW_EV_DEF, 0, 0},
    {"close", VW_EV_DEF, 0, 0},
    {"begin", VW_EV_ENTER, 0, 0},
    {"end", VW_EV_LEAVE, 0, 0},
    {"mark", VW_EV_MARKER, 0, 0},
    {"send_begin", VW_EV_ENTER, VW_ROLE_SEND, M | S},
    {"bsend_begin", VW_EV_ENTER, VW_ROLE_SEND, M | S},
    {"isend_begin", VW_EV_ENTER, VW_ROLE_SEND, M | S},
    {"recv_blocked_begin", VW_EV_ENTER, VW_ROLE_RECV, M | S | I},
    {"recv_begin", VW_EV_ENTER, VW_ROLE_RECV, M | S},
    {"barrier_begin", VW_EV_ENTER, 0, M | S | I | C},
    {"bcast_begin", VW_EV_ENTER, 0, M | S | I | C},
    {"*_begin", VW_EV_ENTER, 0, M | S},
    {"*_end", VW_EV_LEAVE, 0, M | S},
    {NULL, VW_EV_NONE, 0, 0}};

static const profile profiles[] = {
    {"ecl*", ecl_rules,
     {"region", "name", "duration", "peer", NULL, "source", "bytes", "recvbytes", "tag", "comm",
      "stream", "text", "kind", "size", "ranks", "region#"}},
    {"picl*", picl_rules,
     {"event", "name", "duration", "peer", "dest", "source", "bytes", "recvbytes", "tag", "comm",
      "process", "descriptor", NULL, NULL, NULL, "event#"}},
    /* any other dictionary: the ECL names, so formats that reuse them work */
    {"*", ecl_rules,
     {"region", "name", "duration", "peer", NULL, "source", "bytes", "recvbytes", "tag", "comm",
      "stream", "text", "kind", "size", "ranks", "region#"}},
};

struct vw_map {
    const profile *p;
    vw_sem *cache;
    unsigned char *known;
    size_t n;
};

static int match(const char *pat, const char *s)
{
    size_t lp = strlen(pat), ls = strlen(s);
    if (lp == 1 && pat[0] == '*')
        return 1;
    if (lp > 0 && pat[lp - 1] == '*')
        return strncmp(pat, s, lp - 1) == 0;
    if (lp > 0 && pat[0] == '*')
        return ls >= lp - 1 && strcmp(s + ls - (lp - 1), pat + 1) == 0;
    return strcmp(pat, s) == 0;
}

vw_map *vw_map_new(const pal_dict *d)
{
    vw_map *m = calloc(1, sizeof *m);
    if (m == NULL)
        return NULL;
    const char *name = d ? pal_dict_name(d) : "";
    for (size_t i = 0; i < sizeof profiles / sizeof profiles[0]; i++)
        if (match(profiles[i].dict, name ? name : "")) {
            m->p = &profiles[i];
            break;
        }
    return m;
}

void vw_map_free(vw_map *m)
{
    if (m == NULL)
        return;
    free(m->cache);
    free(m->known);
    free(m);
}

const vw_fields *vw_map_fields(const vw_map *m) { return &m->p->fields; }
const char *vw_map_profile(const vw_map *m) { return m->p->dict; }

static void classify(const vw_map *m, const pal_recdesc *r, vw_sem *s)
{
    const char *name = pal_recdesc_name(r);
    memset(s, 0, sizeof *s);
    for (const rule *u = m->p->rules; u->record; u++) {
        if (!match(u->record, name))
            continue;
        s->ev = u->ev;
        s->role = u->role;
        s->flags = u->flags;
        break;
    }
    const char *stem_end = name + strlen(name);
    if (s->flags & VW_F_STEM) {
        const char *us = strrchr(name, '_');
        if (us)
            stem_end = us;
    }
    size_t len = (size_t)(stem_end - name);
    if (len >= sizeof s->stem)
        len = sizeof s->stem - 1;
    memcpy(s->stem, name, len);
    s->stem[len] = '\0';
    /* present MPI names as the C functions: mpi_send -> MPI_Send */
    if (strncmp(s->stem, "mpi_", 4) == 0 && s->stem[4]) {
        s->stem[0] = 'M', s->stem[1] = 'P', s->stem[2] = 'I';
        if (s->stem[4] >= 'a' && s->stem[4] <= 'z')
            s->stem[4] = (char)(s->stem[4] - 'a' + 'A');
    }
    if ((s->ev == VW_EV_CALL || s->ev == VW_EV_OVERHEAD) &&
        pal_recdesc_find_field(r, m->p->fields.duration) == NULL)
        s->ev = VW_EV_NONE;
}

const vw_sem *vw_map_classify(vw_map *m, const pal_recdesc *r)
{
    size_t i = pal_recdesc_index(r);
    if (i >= m->n) {
        size_t n = m->n ? m->n : 64;
        while (n <= i)
            n *= 2;
        vw_sem *c = realloc(m->cache, n * sizeof *c);
        if (c == NULL)
            return NULL;
        m->cache = c;
        unsigned char *k = realloc(m->known, n);
        if (k == NULL)
            return NULL;
        memset(k + m->n, 0, n - m->n);
        m->known = k;
        m->n = n;
    }
    if (!m->known[i]) {
        classify(m, r, &m->cache[i]);
        m->known[i] = 1;
    }
    return &m->cache[i];
}
