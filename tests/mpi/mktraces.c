/* mktraces.c -- made-up per-rank traces with known clocks for the ecl-merge
 * tests (tests/mpi/merge.sh), written with the test trace builder of
 * tests/pal, and the check of the merged result read back through PAL.
 *
 *   mktraces drift DIR     rank 0 on host a (1 tick = 1 ns); rank 1 on host b
 *                          with a clock 2x as fast, 100 ppm drift and an
 *                          offset, measured at init and finalize; rank 1
 *                          registered the user types in the other order
 *   mktraces nosync DIR    rank 1 has no clock measurement and its clock is
 *                          1 ms behind the wall clock of the headers
 *   mktraces verify MERGED checks times, durations and user types of the
 *                          merged "drift" traces (exact to 2 ns)
 *   mktraces chunky DIR    ranks 0 and 1 as in drift, each with 2,000 records
 *                          chunks of one record (a run file's index too
 *                          large for the room the merge keeps before the
 *                          members: tests/pal/merge-damage.sh)
 *   mktraces freed DIR     receives freed with MPI_Request_free while active
 *                          (mpi_complete flag 16): rank 0 sends to rank 1
 *                          on communicators 0 and 5; rank 1 receives three
 *                          of them, frees three receives (one from rank 0
 *                          with tag 7, one from any source with any tag, one
 *                          that nothing was sent to) and a send (tests/mpi/
 *                          merge-freed.sh says what becomes of each)
 *   mktraces events DIR    checks the event layer's events of the "freed"
 *                          run in DIR: its untimed receives (UNTIMED_RECV)
 *                          and, with PAL_EVENTS_SETTLE, the sends they took
 *                          (MESSAGE flagged PAL_EVF_UNTIMED), also with
 *                          PAL_EVENTS_MESSAGES (the same, without regions) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "edl/edl.h"
#include "pal/pal.h"
#include "tests/pal/tracebuild.h"

static _Noreturn void die(const char *what)
{
    fprintf(stderr, "mktraces: %s\n", what);
    exit(1);
}

static edl_record *rec(edl_dict *d, const char *name, unsigned id, const char *const *f,
                       const edl_type *t, const edl_encoding *e, const char *const *unit, int n)
{
    edl_record *r;
    char key[16];
    if (edl_dict_add_record(d, name, NULL, &r) != EDL_OK ||
        edl_record_add_field(r, "type", EDL_UINT16, EDL_ENC_ULEB, NULL, NULL) != EDL_OK ||
        edl_record_add_field(r, "time", EDL_UINT64, EDL_ENC_TDELTA, "ticks", NULL) != EDL_OK)
        die("dictionary");
    for (int i = 0; i < n; i++)
        if (edl_record_add_field(r, f[i], t[i], e[i], unit ? unit[i] : NULL, NULL) != EDL_OK)
            die("dictionary field");
    snprintf(key, sizeof key, "%u", id);
    if (edl_dict_add_bind(d, key, NULL, name) != EDL_OK)
        die("bind");
    return r;
}

/* What the MPI layer's sends and receives mean (the merge's check finds them
 * by these roles only). */
static void message_meaning(edl_record *r, edl_record_role dir, const char *region)
{
    edl_role roles[] = { { EDL_ROLE_CALL, NULL, NULL }, { dir, NULL, NULL } };
    edl_field_meaning fm[] = {
        { "duration", EDL_FROLE_DURATION, { NULL, NULL, 0 } },
        { "comm", EDL_FROLE_COMMUNICATOR, { NULL, NULL, 0 } },
        { "peer", EDL_FROLE_PEER, { NULL, NULL, 0 } },
        { "tag", EDL_FROLE_TAG, { NULL, NULL, 0 } },
        { "bytes", dir == EDL_ROLE_SEND ? EDL_FROLE_BYTES_SENT : EDL_FROLE_BYTES_RECEIVED,
          { NULL, NULL, 0 } },
    };
    edl_meaning m = { roles, 2, region, fm, 5, NULL};
    if (edl_record_set_meaning(r, &m) != EDL_OK)
        die("meaning");
}

/* ECL's mpi_complete (doc/mpi.md): a request completed; a receive's
 * (kind 1) receives then, unless freed while active (flags 16: untimed). */
static void complete_meaning(edl_record *r)
{
    edl_role roles[] = { { EDL_ROLE_REQUEST_COMPLETE, NULL, NULL },
                         { EDL_ROLE_RECV, "kind", "1" }, { EDL_ROLE_UNTIMED, "flags", "16" } };
    edl_field_meaning fm[] = {
        { "request", EDL_FROLE_REQUEST, { NULL, NULL, 0 } },
        { "peer", EDL_FROLE_PEER, { NULL, NULL, 0 } },
        { "tag", EDL_FROLE_TAG, { NULL, NULL, 0 } },
        { "comm", EDL_FROLE_COMMUNICATOR, { NULL, NULL, 0 } },
        { "bytes", EDL_FROLE_BYTES_RECEIVED, { NULL, NULL, 0 } },
    };
    edl_meaning m = { roles, 3, NULL, fm, 5, NULL };
    if (edl_record_set_meaning(r, &m) != EDL_OK)
        die("meaning");
}

/* The native dictionary's shape with the records these tests use; ids as
 * ECL gives them (user types in the order given). */
static edl_dict *dict(int swap_user)
{
    edl_dict *d;
    if (edl_dict_create("ecl", "1.0", EDL_REPR_BINARY, &d) != EDL_OK ||
        edl_dict_set_binary(d, 'L', EDL_FRAMING_ECL) != EDL_OK ||
        edl_dict_set_roles(d, "time", "ticks", "", "") != EDL_OK ||
        edl_dict_set_key(d, 1, 0, EDL_NO_KEY) != EDL_OK)
        die("dictionary");
    const char *mk[] = { "text" };
    edl_type mkt[] = { EDL_STRING };
    edl_encoding mke[] = { EDL_ENC_LSTRING };
    rec(d, "marker", 4, mk, mkt, mke, NULL, 1);
    const char *ck[] = { "phase", "local", "ref", "ref_tps", "rtt" };
    edl_type ckt[] = { EDL_UINT64, EDL_UINT64, EDL_UINT64, EDL_FLOAT64, EDL_UINT64 };
    edl_encoding cke[] = { EDL_ENC_ULEB, EDL_ENC_ULEB, EDL_ENC_ULEB, EDL_ENC_FIXED, EDL_ENC_ULEB };
    rec(d, "mpi_clock", 14, ck, ckt, cke, NULL, 5);
    const char *sf[] = { "duration", "comm", "peer", "tag", "bytes" };
    edl_type st[] = { EDL_UINT64, EDL_UINT32, EDL_INT32, EDL_INT32, EDL_UINT64 };
    edl_encoding se[] = { EDL_ENC_ULEB, EDL_ENC_ULEB, EDL_ENC_SLEB, EDL_ENC_SLEB, EDL_ENC_ULEB };
    const char *su[] = { "ticks", NULL, NULL, NULL, "bytes" };
    message_meaning(rec(d, "mpi_send", 22, sf, st, se, su, 5), EDL_ROLE_SEND, "MPI_Send");
    message_meaning(rec(d, "mpi_recv", 26, sf, st, se, su, 5), EDL_ROLE_RECV, "MPI_Recv");
    const char *cf[] = { "request", "kind", "peer", "tag", "comm", "bytes", "flags" };
    edl_type ct[] = { EDL_UINT64, EDL_UINT8, EDL_INT32, EDL_INT32, EDL_UINT32, EDL_UINT64,
                      EDL_UINT32 };
    edl_encoding ce[] = { EDL_ENC_ULEB, EDL_ENC_ULEB, EDL_ENC_SLEB, EDL_ENC_SLEB, EDL_ENC_ULEB,
                          EDL_ENC_ULEB, EDL_ENC_ULEB };
    complete_meaning(rec(d, "mpi_complete", 27, cf, ct, ce, NULL, 7));
    const char *af[] = { "a" };
    edl_type at[] = { EDL_INT64 };
    edl_encoding ae[] = { EDL_ENC_SLEB };
    const char *bf[] = { "b" };
    edl_type bt[] = { EDL_STRING };
    edl_encoding be[] = { EDL_ENC_LSTRING };
    rec(d, swap_user ? "beta" : "alpha", 1024, swap_user ? bf : af, swap_user ? bt : at,
        swap_user ? be : ae, NULL, 1);
    rec(d, swap_user ? "alpha" : "beta", 1025, swap_user ? af : bf, swap_user ? at : bt,
        swap_user ? ae : be, NULL, 1);
    return d;
}

/* The last chunk ended: the trace of rank in DIR/trace.RANK.ecl, t and d
 * destroyed. */
static void write_file(tb *t, edl_dict *d, const char *dir, int rank)
{
    tb_finish_index(t);
    char path[4096];
    snprintf(path, sizeof path, "%s/trace.%d.ecl", dir, rank);
    if (tb_write(t, path) != 0)
        die("cannot write a trace");
    tb_destroy(t);
    edl_dict_destroy(d);
}

/* True time (ns) -> rank 1's ticks. */
static double k1 = 2.0 * (1 + 1e-4), off1 = 2000;

static uint64_t c1(double t)
{
    return (uint64_t)llround(k1 * t + off1);
}

/* Stream 0 of rank: clock measurements at 1 ms and 1 s (true time). */
static void put_clocks(tb *t, int rank)
{
    for (int ph = 0; ph < 2; ph++) {
        double tt = ph == 0 ? 1e6 : 1e9;
        uint64_t local = rank == 0 ? (uint64_t)tt : c1(tt);
        tb_chunk_begin(t, (uint32_t)rank, 0, local);
        tb_val v[] = { TB_U(14), TB_U(local), TB_U(ph), TB_U(local), TB_U((uint64_t)tt),
                       TB_F(1e9), TB_U(rank == 0 ? 0 : 2000) };
        tb_record(t, "mpi_clock", v);
        tb_chunk_end(t, NULL);
    }
}

/* Rank's trace of CHUNKY chunks of one `alpha` record each (a = the
 * chunk's number), 1 us apart from 0.5 s on. */
#define CHUNKY 2000
static void write_chunky(const char *dir, int rank)
{
    edl_dict *d = dict(0);
    tb *t = tb_create(d);
    tb_track_records(t, 0);
    tb_set_header(t, rank, 2, rank == 0 ? "host-a" : "host-b", rank == 0 ? 1e9 : 2e9);
    put_clocks(t, rank);
    for (int i = 0; i < CHUNKY; i++) {
        double tt = 0.5e9 + 1000.0 * i;
        uint64_t local = rank == 0 ? (uint64_t)tt : c1(tt);
        tb_chunk_begin(t, (uint32_t)rank, 1, local);
        tb_val a[] = { TB_U(1024), TB_U(local), TB_I(i) };
        tb_record(t, "alpha", a);
        tb_chunk_end(t, NULL);
    }
    write_file(t, d, dir, rank);
}

static void write_rank(const char *dir, int rank, int sync)
{
    edl_dict *d = dict(rank == 1);
    tb *t = tb_create(d);
    tb_track_records(t, 0);
    tb_set_header(t, rank, 2, rank == 0 ? "host-a" : "host-b", rank == 0 ? 1e9 : 2e9);
    uint64_t (*clk)(double) = c1;
    double s = 1e9;
    if (sync)
        put_clocks(t, rank);
    /* stream 1: a message 0 -> 1 at 0.5 s (send 100 ns, received 2 us after
     * the send began), markers at 0.9 s, the user types */
    double tsend = 0.5 * s;
    uint64_t first = rank == 0 ? (uint64_t)(0.4 * s) : clk(0.4 * s);
    tb_chunk_begin(t, (uint32_t)rank, 1, first);
    if (rank == 0) {
        tb_val v[] = { TB_U(22), TB_U((uint64_t)(tsend + 100)), TB_U(100), TB_U(0), TB_I(1),
                       TB_I(7), TB_U(64) };
        tb_record(t, "mpi_send", v);
        tb_val a[] = { TB_U(1024), TB_U((uint64_t)(0.6 * s)), TB_I(1) };
        tb_record(t, "alpha", a);
        tb_val b[] = { TB_U(1025), TB_U((uint64_t)(0.61 * s)), TB_S("from 0") };
        tb_record(t, "beta", b);
        tb_val m[] = { TB_U(4), TB_U((uint64_t)(0.9 * s)), TB_S("mark") };
        tb_record(t, "marker", m);
    } else {
        uint64_t end = sync ? clk(tsend + 2000) : (uint64_t)llround(2 * (tsend + 2000)) - 2000000;
        tb_val v[] = { TB_U(26), TB_U(end), TB_U(3000), TB_U(0), TB_I(0), TB_I(7), TB_U(64) };
        tb_record(t, "mpi_recv", v);
        tb_val b[] = { TB_U(1024), TB_U(clk(0.65 * s)), TB_S("from 1") };
        tb_record(t, "beta", b);
        tb_val a[] = { TB_U(1025), TB_U(clk(0.7 * s)), TB_I(2) };
        tb_record(t, "alpha", a);
        tb_val m[] = { TB_U(4), TB_U(clk(0.9 * s)), TB_S("mark") };
        tb_record(t, "marker", m);
    }
    tb_chunk_end(t, NULL);
    write_file(t, d, dir, rank);
}

/* The "freed" run: both clocks exact (1 tick = 1 ns, measured at 1 ms and
 * 1 s); times in us. */
static void write_freed(const char *dir, int rank)
{
    edl_dict *d = dict(0);
    tb *t = tb_create(d);
    tb_track_records(t, 0);
    tb_set_header(t, rank, 2, "host-a", 1e9);
    for (int ph = 0; ph < 2; ph++) {
        uint64_t tt = ph == 0 ? 1000000 : 1000000000;
        tb_chunk_begin(t, (uint32_t)rank, 0, tt);
        tb_val v[] = { TB_U(14), TB_U(tt), TB_U(ph), TB_U(tt), TB_U(tt), TB_F(1e9), TB_U(0) };
        tb_record(t, "mpi_clock", v);
        tb_chunk_end(t, NULL);
    }
    const uint64_t us = 1000, t0 = 500000000;
    tb_chunk_begin(t, (uint32_t)rank, 1, t0);
    if (rank == 0) {
        /* sends (end time, comm, tag): S6 on comm 5 first (128 bytes, the
         * others 64), then S1..S5 */
        static const int64_t sends[][3] = { { 5, 5, 7 },  { 10, 0, 7 }, { 20, 0, 7 },
                                            { 30, 0, 7 }, { 40, 0, 9 }, { 50, 0, 11 } };
        for (size_t i = 0; i < sizeof sends / sizeof sends[0]; i++) {
            tb_val v[] = { TB_U(22), TB_U(t0 + (uint64_t)sends[i][0] * us), TB_U(100),
                           TB_U(sends[i][1]), TB_I(1), TB_I(sends[i][2]),
                           TB_U(sends[i][1] == 5 ? 128 : 64) };
            tb_record(t, "mpi_send", v);
        }
        /* an Isend's request freed while active: no receive of its own */
        tb_val f[] = { TB_U(27), TB_U(t0 + 55 * us), TB_U(9), TB_U(0), TB_I(1), TB_I(13),
                       TB_U(0), TB_U(64), TB_U(16) };
        tb_record(t, "mpi_complete", f);
    } else {
        /* receives (end time, comm, tag), 1 us each */
        static const int64_t recvs[][3] = { { 25, 0, 7 }, { 35, 0, 7 }, { 60, 5, 7 } };
        for (size_t i = 0; i < sizeof recvs / sizeof recvs[0]; i++) {
            if (i == 1) {
                /* freed while active (time: the free's): from 0 with tag 7;
                 * from any source (-2) with any tag (-1); from 0 with a tag
                 * nothing was sent with */
                static const int64_t freed[][2] = { { 0, 7 }, { -2, -1 }, { 0, 99 } };
                for (size_t j = 0; j < 3; j++) {
                    tb_val f[] = { TB_U(27), TB_U(t0 + (26 + j) * us), TB_U(j + 1), TB_U(1),
                                   TB_I(freed[j][0]), TB_I(freed[j][1]), TB_U(0), TB_U(0),
                                   TB_U(16) };
                    tb_record(t, "mpi_complete", f);
                }
            }
            tb_val v[] = { TB_U(26), TB_U(t0 + (uint64_t)recvs[i][0] * us), TB_U(1000),
                           TB_U(recvs[i][1]), TB_I(0), TB_I(recvs[i][2]),
                           TB_U(recvs[i][1] == 5 ? 128 : 64) };
            tb_record(t, "mpi_recv", v);
        }
    }
    tb_chunk_end(t, NULL);
    write_file(t, d, dir, rank);
}

/* The events of the freed run (options: 0, PAL_EVENTS_SETTLE, and with
 * PAL_EVENTS_MESSAGES, whose calls give no region): 0 when as expected. */
static int freed_events(const char *dir, unsigned options)
{
    int settle = (options & PAL_EVENTS_SETTLE) != 0;
    char p0[4096], p1[4096];
    snprintf(p0, sizeof p0, "%s/trace.0.ecl", dir);
    snprintf(p1, sizeof p1, "%s/trace.1.ecl", dir);
    const char *paths[] = { p0, p1 };
    pal_reader *rd;
    pal_events *ev;
    if (pal_reader_open_run(paths, 2, NULL, 0, &rd) != PAL_OK || pal_events_create(rd, &ev) != PAL_OK)
        die(pal_last_error());
    if (pal_events_set_options(ev, options) != PAL_OK)
        die("events options");
    /* the untimed receives: peer, tag, time (us after 0.5 s, as written) */
    static const int64_t untimed[][3] = { { 0, 7, 26 }, { -2, -1, 27 }, { 0, 99, 28 } };
    /* the sends they took (begin, us after 0.5 s, less 100 ns), by the receive's time */
    static const double took[][2] = { { 29.9, 26 }, { 39.9, 27 } };
    size_t nu = 0, nm = 0, nt = 0, nregion = 0;
    int bad = 0;
    const pal_event *e;
    pal_status st;
    /* times from the first untimed receive's, which is at 26 us: the run's
     * origin is its reader's */
    double base = NAN;
    while ((st = pal_events_next(ev, &e)) == PAL_OK) {
        if (e->kind == PAL_EV_UNTIMED_RECV && isnan(base))
            base = (double)e->time / 1e3 - 26;
        double us = (double)e->time / 1e3 - base;
        if (e->kind == PAL_EV_UNTIMED_RECV) {
            if (nu >= 3 || e->process != 1 || e->peer != untimed[nu][0] ||
                e->tag != untimed[nu][1] || e->comm != 0 || fabs(us - (double)untimed[nu][2]) > 0.01)
                bad = 1, fprintf(stderr, "mktraces: untimed receive %zu: rank %u peer %lld tag %lld "
                                 "at %.3f us\n", nu, (unsigned)e->process, (long long)e->peer,
                                 (long long)e->tag, us);
            nu++;
        } else if (e->kind == PAL_EV_MESSAGE && (e->flags & PAL_EVF_UNTIMED)) {
            double s = e->send.time / 1e3 - base, r = e->recv.time / 1e3 - base;
            if (nt >= 2 || e->record != NULL || e->process != 1 || e->send.process != 0 ||
                fabs(s - took[nt][0]) > 0.01 || fabs(r - took[nt][1]) > 0.01 || e->bytes != 64)
                bad = 1, fprintf(stderr, "mktraces: settled message %zu: send at %.3f us, "
                                 "receive at %.3f us, %llu bytes\n", nt, s, r,
                                 (unsigned long long)e->bytes);
            nt++;
        } else if (e->kind == PAL_EV_MESSAGE) {
            nm++;
        } else if (e->kind == PAL_EV_ENTER || e->kind == PAL_EV_LEAVE) {
            nregion++;
        }
    }
    uint64_t ws, wr;
    pal_matcher_waiting(pal_events_matcher(ev), &ws, &wr);
    size_t calls = options & PAL_EVENTS_MESSAGES ? 0 : 2 * 9;   /* the sends and receives */
    if (st != PAL_END || nu != 3 || nm != 3 || nt != (settle ? 2u : 0u) ||
        ws != (settle ? 1u : 3u) || wr != 0 || nregion != calls) {
        fprintf(stderr, "mktraces: events (options %u): %zu untimed receives (want 3), %zu "
                "messages (3), %zu settled (%d), %llu sends and %llu receives waiting (%d, 0), "
                "%zu enters and leaves (%zu)\n", options, nu, nm, nt, settle ? 2 : 0,
                (unsigned long long)ws, (unsigned long long)wr, settle ? 1 : 3, nregion, calls);
        bad = 1;
    }
    pal_events_destroy(ev);
    pal_reader_close(rd);
    return bad;
}

static double get_time(const pal_record *r)
{
    return (double)pal_record_time(r);
}

static int verify(const char *path)
{
    pal_reader *rd;
    if (pal_reader_open(path, NULL, &rd) != PAL_OK)
        die(pal_last_error());
    const pal_record *r;
    double t_send = -1, d_send = -1, t_recv = -1, mark[2] = { -1, -1 };
    int alpha = 0, beta = 0, bad = 0;
    while (pal_reader_next(rd, &r) == PAL_OK) {
        const char *n = pal_recdesc_name(pal_record_desc(r));
        uint32_t p = pal_record_process(r);
        uint64_t u;
        int64_t i;
        const char *s;
        size_t len;
        if (strcmp(n, "mpi_send") == 0) {
            t_send = get_time(r);
            pal_record_get_u64(r, "duration", &u);
            d_send = (double)u;
        } else if (strcmp(n, "mpi_recv") == 0) {
            t_recv = get_time(r);
        } else if (strcmp(n, "marker") == 0 && p < 2) {
            mark[p] = get_time(r);
        } else if (strcmp(n, "alpha") == 0) {
            if (pal_record_get_i64(r, "a", &i) != PAL_OK || i != (int64_t)p + 1)
                bad = 1, fprintf(stderr, "mktraces: alpha of process %u is wrong\n", (unsigned)p);
            alpha++;
        } else if (strcmp(n, "beta") == 0) {
            char want[16];
            snprintf(want, sizeof want, "from %u", (unsigned)p);
            if (pal_record_get_str(r, "b", &s, &len) != PAL_OK || len != strlen(want) ||
                memcmp(s, want, len) != 0)
                bad = 1, fprintf(stderr, "mktraces: beta of process %u is wrong\n", (unsigned)p);
            beta++;
        }
    }
    pal_reader_close(rd);
    double begin = t_send - d_send;
    printf("mktraces: send begins %.0f, lasts %.0f ns; receive ends %.0f ns later; markers %.0f ns "
           "apart; %d alpha, %d beta\n", begin, d_send, t_recv - begin, mark[1] - mark[0], alpha,
           beta);
    if (fabs(d_send - 100) > 1 || fabs(t_recv - begin - 2000) > 2 || fabs(mark[1] - mark[0]) > 2 ||
        alpha != 2 || beta != 2 || bad) {
        fprintf(stderr, "mktraces: %s: clocks or types not merged as expected (want 100 ns, "
                "2000 ns, 0 ns, 2 and 2)\n", path);
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "drift") == 0) {
        write_rank(argv[2], 0, 1);
        write_rank(argv[2], 1, 1);
        return 0;
    }
    if (argc == 3 && strcmp(argv[1], "nosync") == 0) {
        write_rank(argv[2], 0, 0);
        write_rank(argv[2], 1, 0);
        return 0;
    }
    if (argc == 3 && strcmp(argv[1], "chunky") == 0) {
        write_chunky(argv[2], 0);
        write_chunky(argv[2], 1);
        return 0;
    }
    if (argc == 3 && strcmp(argv[1], "freed") == 0) {
        write_freed(argv[2], 0);
        write_freed(argv[2], 1);
        return 0;
    }
    if (argc == 3 && strcmp(argv[1], "events") == 0) {
        int bad = freed_events(argv[2], 0) | freed_events(argv[2], PAL_EVENTS_SETTLE) |
                  freed_events(argv[2], PAL_EVENTS_SETTLE | PAL_EVENTS_MESSAGES);
        if (!bad)
            printf("mktraces: the freed run's events are as expected\n");
        return bad;
    }
    if (argc == 3 && strcmp(argv[1], "verify") == 0)
        return verify(argv[2]);
    fprintf(stderr, "usage: mktraces drift|nosync|chunky|freed|events DIR | mktraces verify "
            "MERGED\n");
    return 2;
}
