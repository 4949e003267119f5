/* an-messages.c -- the analysis of point-to-point messages: sends and
 * receives counted, the communication matrix (messages and bytes per pair
 * of ranks), latency over the matched messages and a sample of them for
 * the pictures. The one matcher (pal_matcher) pairs them in the event
 * layer; a share of a run leaves the ends whose partner is in another share
 * waiting, and merging pairs them per key, first in first out. */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "views/an.h"

static void comm_add(vw_run *r, uint32_t src, uint32_t dst, uint64_t count, double bytes)
{
    uint64_t key = (uint64_t)src << 32 | dst;
    long i = vw_hget(&r->comm_of, key);
    if (i < 0) {
        if (GROW(r->c_count, r->nc, r->ccap) < 0)
            return;
        size_t cap = r->ccap;
        double *b = realloc(r->c_bytes, cap * sizeof *b);
        uint32_t *s = b ? realloc(r->c_src, cap * sizeof *s) : NULL;
        if (b)
            r->c_bytes = b;
        if (s)
            r->c_src = s;
        uint32_t *d = s ? realloc(r->c_dst, cap * sizeof *d) : NULL;
        if (d == NULL)
            return;
        r->c_dst = d;
        i = (long)r->nc++;
        r->c_count[i] = 0;
        r->c_bytes[i] = 0;
        r->c_src[i] = src;
        r->c_dst[i] = dst;
        vw_hput(&r->comm_of, key, i);
    }
    r->c_count[i] += count;
    r->c_bytes[i] += bytes;
}

/* the sample's heap (once full): the largest hash on top */
static void ms_sift(ment *a, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, m = i;
        if (l < n && a[l].h > a[m].h)
            m = l;
        if (l + 1 < n && a[l + 1].h > a[m].h)
            m = l + 1;
        if (m == i)
            return;
        ment t = a[i];
        a[i] = a[m];
        a[m] = t;
        i = m;
    }
}

static void ms_add(vw_run *r, const ment *m)
{
    if (r->nms < MSG_SAMPLE) {
        r->ms[r->nms++] = *m;
        if (r->nms == MSG_SAMPLE)
            for (size_t i = MSG_SAMPLE / 2; i-- > 0;)
                ms_sift(r->ms, MSG_SAMPLE, i);
    } else if (m->h < r->ms[0].h) {
        r->ms[0] = *m;
        ms_sift(r->ms, MSG_SAMPLE, 0);
    }
}

/* the key of an end: its time, thread and the record's place in the thread */
static okey end_key(const pal_msg_end *e)
{
    return (okey){(int64_t)e->time, e->process, e->stream, e->user};
}

/* a matched message: ends with times in ns */
static void matched(vw_run *r, const pal_msg_end *s, const pal_msg_end *d, uint64_t bytes)
{
    int64_t ts = (int64_t)s->time, tr = (int64_t)d->time;
    r->f.matched++;
    int64_t lat = tr - ts;
    r->lat_sum += lat;
    if (lat > r->lat_max)
        r->lat_max = lat;
    okey ks = end_key(s), kd = end_key(d);
    ment m = {vw_okey_cmp(&ks, &kd) > 0 ? ks : kd, 0, s->process, s->stream, d->process,
              d->stream, ts, tr, bytes};
    m.h = vw_mix(vw_mix((uint64_t)s->process << 32 ^ s->stream ^ vw_mix((uint64_t)ts)) ^
              ((uint64_t)d->process << 32 ^ d->stream) ^ vw_mix((uint64_t)tr ^ s->user));
    ms_add(r, &m);
    if (r->sink && r->sink->flow) {
        long sl = vw_lane_get(r, s->process, s->stream), dl = vw_lane_get(r, d->process, d->stream);
        vw_msg v = {0, 0, (size_t)sl, (size_t)dl, vw_ns_sec(r, ts), vw_ns_sec(r, tr), bytes};
        r->sink->flow(r->sink->ctx, &v, r->f.matched, s->process, s->stream, d->process,
                      d->stream);
    }
}

/* A send or a receive (the event layer gives only those with a peer), and
 * a message the one matcher paired (doc/pal.md, "Messages: the matcher"). */
static int event(vw_run *r, const pal_event *e, const vw_at *at)
{
    (void)at;
    if (e->kind != PAL_EV_SEND && e->kind != PAL_EV_RECV && e->kind != PAL_EV_MESSAGE)
        return 0;
    r->f.has_messages = 1;
    if (e->kind == PAL_EV_SEND) {
        r->f.sends++;
        comm_add(r, e->process, (uint32_t)e->peer, 1, (double)e->bytes);
    } else if (e->kind == PAL_EV_RECV) {
        r->f.recvs++;
    } else {
        matched(r, &e->send, &e->recv, e->bytes);
    }
    return 0;
}

static void keep_end(void *ctx, const pal_msg_key *key, int side, const pal_msg_end *end)
{
    vw_run *r = ctx;
    if (GROW(r->w, r->nw, r->wcap)) {
        r->oom = 1;
        return;
    }
    r->w[r->nw++] = (wend){*key, side, *end};
}

/* room for n more waiting ends, in one step */
static int w_reserve(vw_run *r, size_t n)
{
    if (r->nw + n <= r->wcap)
        return 0;
    wend *w = realloc(r->w, (r->nw + n) * sizeof *w);
    if (w == NULL)
        return -1;
    r->w = w;
    r->wcap = r->nw + n;
    return 0;
}

/* after the last event of one share of several: the ends still waiting */
static int share_end(vw_run *r)
{
    if (!r->share)
        return 0;
    const pal_matcher *m = pal_events_matcher(r->ev);
    uint64_t s = 0, v = 0;
    pal_matcher_waiting(m, &s, &v);
    if (w_reserve(r, (size_t)(s + v)))
        return -1;
    pal_matcher_foreach_waiting(m, keep_end, r);
    return r->oom ? -1 : 0;
}

static int same_key(const pal_msg_key *a, const pal_msg_key *b)
{
    return a->src == b->src && a->dst == b->dst && a->tag == b->tag && a->context == b->context;
}

static uint64_t key_hash(const pal_msg_key *k)
{
    return vw_mix((uint64_t)k->src << 32 ^ k->dst) ^ vw_mix((uint64_t)k->tag ^ vw_mix(k->context));
}

/* The waiting ends of another share (fw, fn) against r's. A share's
 * matcher gives each key's ends together, in the order they were posted,
 * all of one side (its queue waits on one side), and r keeps them so; in
 * each key the i-th send pairs with the i-th receive (the matcher's first
 * in, first out: doc/pal.md). No sort: one pass over each. */
static int pair_ends(vw_run *r, const wend *fw, size_t fn)
{
    hmap at;
    memset(&at, 0, sizeof at);
    size_t *rs = malloc((r->nw + 1) * sizeof *rs), *rn = malloc((r->nw + 1) * sizeof *rn);
    pal_msg_key *rk = malloc((r->nw + 1) * sizeof *rk);   /* each run's key and side */
    int *rside = malloc((r->nw + 1) * sizeof *rside);
    wend *out = malloc((r->nw + fn + 1) * sizeof *out);
    wend *left = malloc((fn + 1) * sizeof *left);   /* from's ends left waiting */
    size_t nruns = 0, nout = 0, cap = r->nw + fn + 1;
    int rc = -1;
    if (!rs || !rn || !rk || !rside || !out || !left)
        goto done;
    for (size_t i = 0; i < r->nw;) {   /* r's runs of one key */
        size_t j = i + 1;
        while (j < r->nw && same_key(&r->w[j].key, &r->w[i].key))
            j++;
        uint64_t h = key_hash(&r->w[i].key);
        while (vw_hget(&at, h) >= 0)
            h++;
        if (vw_hput(&at, h, (long)nruns))
            goto done;
        rs[nruns] = i;
        rk[nruns] = r->w[i].key;
        rside[nruns] = r->w[i].side;
        rn[nruns++] = j - i;
        i = j;
    }
    size_t nleft = 0;
    for (size_t i = 0; i < fn;) {
        size_t j = i + 1;
        while (j < fn && same_key(&fw[j].key, &fw[i].key))
            j++;
        long k = -1;
        for (uint64_t h = key_hash(&fw[i].key);; h++) {
            k = vw_hget(&at, h);
            if (k < 0 || same_key(&rk[k], &fw[i].key))
                break;
        }
        size_t np = 0;
        if (k >= 0 && rside[k] != fw[i].side) {
            np = rn[k] < j - i ? rn[k] : j - i;
            for (size_t e = 0; e < np; e++) {
                const wend *a = &r->w[rs[k] + e], *b = &fw[i + e];
                const wend *snd = a->side == PAL_MATCH_SEND ? a : b;
                const wend *rcv = a->side == PAL_MATCH_SEND ? b : a;
                matched(r, &snd->end, &rcv->end, snd->end.bytes);
                if (vw_run_paired(r, &snd->end, &rcv->end))
                    goto done;
            }
            rs[k] += np;
            rn[k] -= np;
        }
        for (size_t e = i + np; e < j; e++)
            left[nleft++] = fw[e];
        i = j;
    }
    for (size_t k = 0; k < nruns; k++)
        for (size_t e = 0; e < rn[k]; e++)
            out[nout++] = r->w[rs[k] + e];
    for (size_t e = 0; e < nleft; e++)   /* after r's */
        out[nout++] = left[e];
    free(r->w);
    r->w = out;
    r->nw = nout;
    r->wcap = cap;
    out = NULL;
    rc = 0;
done:
    vw_hfree(&at);
    free(rs);
    free(rn);
    free(rk);
    free(rside);
    free(out);
    free(left);
    return rc;
}

static int merge(vw_run *r, const vw_run *from, const vw_maps *m)
{
    (void)m;
    for (size_t i = 0; i < from->nc; i++)
        comm_add(r, from->c_src[i], from->c_dst[i], from->c_count[i], from->c_bytes[i]);
    r->f.has_messages |= from->f.has_messages;
    r->f.sends += from->f.sends;
    r->f.recvs += from->f.recvs;
    r->f.matched += from->f.matched;
    r->lat_sum += from->lat_sum;
    if (from->lat_max > r->lat_max)
        r->lat_max = from->lat_max;
    for (size_t i = 0; i < from->nms; i++)
        ms_add(r, &from->ms[i]);
    if (pair_ends(r, from->w, from->nw))
        return -1;
    return 0;
}

static int cmp_ment(const void *a, const void *b)
{
    return vw_okey_cmp(&((const ment *)a)->k, &((const ment *)b)->k);
}

static int begin(vw_run *r)
{
    r->msgs = malloc(MSG_SAMPLE * sizeof *r->msgs);
    r->ms = malloc(MSG_SAMPLE * sizeof *r->ms);
    return r->msgs && r->ms ? 0 : -1;
}

/* the matrix by rank, latency, and the sample in the order its messages matched */
static int finish(vw_run *r)
{
    size_t R = r->f.nranks ? r->f.nranks : 1;
    r->mcount = calloc(R * R, sizeof *r->mcount);
    r->mbytes = calloc(R * R, sizeof *r->mbytes);
    if (!r->mcount || !r->mbytes)
        return -1;
    for (size_t i = 0; i < r->nc; i++) {
        size_t a = vw_rank_index(r, r->c_src[i]), b = vw_rank_index(r, r->c_dst[i]);
        r->mcount[a * R + b] += r->c_count[i];
        r->mbytes[a * R + b] += r->c_bytes[i];
    }
    r->f.latency_sum = (double)r->lat_sum / 1e9;
    r->f.latency_max = (double)r->lat_max / 1e9;
    if (r->nms > 1)
        qsort(r->ms, r->nms, sizeof *r->ms, cmp_ment);
    for (size_t i = 0; i < r->nms; i++) {
        const ment *m = &r->ms[i];
        size_t sl = vw_lane_index(r, m->sp, m->ss), dl = vw_lane_index(r, m->dp, m->ds);
        r->msgs[i] = (vw_msg){r->lanes[sl].pub.rank_index, r->lanes[dl].pub.rank_index, sl, dl,
                              vw_ns_sec(r, m->ts), vw_ns_sec(r, m->tr), m->bytes};
    }
    r->nmsgs = r->nms;
    r->f.comm_count = r->mcount;
    r->f.comm_bytes = r->mbytes;
    r->f.msgs = r->msgs;
    r->f.nmsgs = r->nmsgs;
    return 0;
}

static void release(vw_run *r)
{
    vw_hfree(&r->comm_of);
    free(r->c_count);
    free(r->c_bytes);
    free(r->c_src);
    free(r->c_dst);
    free(r->msgs);
    free(r->ms);
    free(r->w);
    free(r->mcount);
    free(r->mbytes);
}

static void put_end(vw_pack *b, const pal_msg_end *e)
{
    vw_put_u64(b, e->process);
    vw_put_u64(b, e->stream);
    vw_put_f64(b, e->time);
    vw_put_u64(b, e->bytes);
    vw_put_u64(b, e->user);
}

static void get_end(vw_unpack *u, pal_msg_end *e)
{
    e->process = (uint32_t)vw_get_index(u, (size_t)UINT32_MAX + 1);
    e->stream = (uint32_t)vw_get_index(u, (size_t)UINT32_MAX + 1);
    e->time = vw_get_f64(u);
    e->bytes = vw_get_u64(u);
    e->user = vw_get_u64(u);
}

/* the counts, the matrix by process, latency, the sample in its order and
 * the ends left waiting in theirs (pair_ends relies on it) */
static int pack(const vw_run *r, vw_pack *b)
{
    vw_put_u64(b, (uint64_t)r->f.has_messages);
    vw_put_u64(b, r->f.sends);
    vw_put_u64(b, r->f.recvs);
    vw_put_u64(b, r->f.matched);
    vw_put_i64(b, r->lat_sum);
    vw_put_i64(b, r->lat_max);
    vw_put_u64(b, r->nc);
    for (size_t i = 0; i < r->nc; i++) {
        vw_put_u64(b, r->c_src[i]);
        vw_put_u64(b, r->c_dst[i]);
        vw_put_u64(b, r->c_count[i]);
        vw_put_f64(b, r->c_bytes[i]);
    }
    vw_put_u64(b, r->nms);
    for (size_t i = 0; i < r->nms; i++) {
        const ment *m = &r->ms[i];
        vw_put_i64(b, m->k.t);
        vw_put_u64(b, m->k.process);
        vw_put_u64(b, m->k.stream);
        vw_put_u64(b, m->k.seq);
        vw_put_u64(b, m->h);
        vw_put_u64(b, m->sp);
        vw_put_u64(b, m->ss);
        vw_put_u64(b, m->dp);
        vw_put_u64(b, m->ds);
        vw_put_i64(b, m->ts);
        vw_put_i64(b, m->tr);
        vw_put_u64(b, m->bytes);
    }
    vw_put_u64(b, r->nw);
    for (size_t i = 0; i < r->nw; i++) {
        const wend *w = &r->w[i];
        vw_put_u64(b, w->key.src);
        vw_put_u64(b, w->key.dst);
        vw_put_i64(b, w->key.tag);
        vw_put_u64(b, w->key.context);
        vw_put_u64(b, (uint64_t)w->side);
        put_end(b, &w->end);
    }
    return 0;
}

static int unpack(vw_run *r, vw_unpack *u)
{
    const size_t u32 = (size_t)UINT32_MAX + 1;
    r->f.has_messages = vw_get_u64(u) != 0;
    r->f.sends = vw_get_u64(u);
    r->f.recvs = vw_get_u64(u);
    r->f.matched = vw_get_u64(u);
    r->lat_sum = vw_get_i64(u);
    r->lat_max = vw_get_i64(u);
    size_t n = vw_get_count(u, 4 * 8);
    for (size_t i = 0; i < n && !u->bad; i++) {
        uint32_t src = (uint32_t)vw_get_index(u, u32), dst = (uint32_t)vw_get_index(u, u32);
        uint64_t count = vw_get_u64(u);
        double bytes = vw_get_f64(u);
        size_t before = r->nc;
        comm_add(r, src, dst, count, bytes);
        if (r->nc != before + 1)   /* out of memory, or a pair twice */
            return -1;
    }
    n = vw_get_count(u, 12 * 8);
    if (n > MSG_SAMPLE)
        return -1;
    for (size_t i = 0; i < n && !u->bad; i++) {
        ment *m = &r->ms[i];
        m->k.t = vw_get_i64(u);
        m->k.process = (uint32_t)vw_get_index(u, u32);
        m->k.stream = (uint32_t)vw_get_index(u, u32);
        m->k.seq = vw_get_u64(u);
        m->h = vw_get_u64(u);
        m->sp = (uint32_t)vw_get_index(u, u32);
        m->ss = (uint32_t)vw_get_index(u, u32);
        m->dp = (uint32_t)vw_get_index(u, u32);
        m->ds = (uint32_t)vw_get_index(u, u32);
        m->ts = vw_get_i64(u);
        m->tr = vw_get_i64(u);
        m->bytes = vw_get_u64(u);
    }
    r->nms = n;
    n = vw_get_count(u, 10 * 8);
    if (w_reserve(r, n))
        return -1;
    for (size_t i = 0; i < n && !u->bad; i++) {
        wend *w = &r->w[r->nw++];
        w->key.src = (uint32_t)vw_get_index(u, u32);
        w->key.dst = (uint32_t)vw_get_index(u, u32);
        w->key.tag = vw_get_i64(u);
        w->key.context = vw_get_u64(u);
        w->side = (int)vw_get_u64(u);
        get_end(u, &w->end);
    }
    return u->bad ? -1 : 0;
}

const vw_analysis vw_an_messages = {"messages", begin, NULL, event, share_end, merge, NULL, finish,
                                    release, pack, unpack, NULL};
