/* test_pal_events.c -- the event layer (pal_events) on a trace of a format
 * no code knows (toymp, described by edl/formats/toymp.edl alone): every
 * event, in order, with its kind, rank, time, name, flags, peer, tag, bytes
 * and depth; regions named through definitions, calls split into enter and
 * leave around their send and receive, the message matched (both ends), a
 * collective's members and its instance (completed at the end: toymp has no
 * communicator sizes), a counter named through its definition, a marker,
 * an unmatched leave, and the instants; with PAL_EVENTS_EVERY_RECORD, each
 * record once as the first of its events, and no others; with
 * PAL_EVENTS_MESSAGES, the same less every region's and collective's. Usage: test_pal_events [TOYMP.EDL]
 * (default: $top_srcdir/edl/formats/toymp.edl).
 *
 * test_pal_events --count [-d DICT] TRACE... prints what the events of a
 * trace or run count, in the words of pal-view's profile, for
 * tests/pal/events.sh to hold against pal-view.
 *
 * test_pal_events --messages [-d DICT] TRACE... reads a trace or run with
 * PAL_EVENTS_SETTLE, then with PAL_EVENTS_MESSAGES too: the sends,
 * receives, untimed receives and messages must be the same, in the same
 * order (exit 1 otherwise, or when the second read gave an ENTER), for
 * tests/pal/events-messages.sh. */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pal/pal.h"

static int failures;

#define CHECK(cond, ...)                                                     \
    do {                                                                     \
        if (!(cond)) {                                                       \
            failures++;                                                      \
            fprintf(stderr, "%s:%d: FAIL: ", __FILE__, __LINE__);            \
            fprintf(stderr, __VA_ARGS__);                                    \
            fputc('\n', stderr);                                             \
        }                                                                    \
    } while (0)

static const char log_text[] =
    "0 0 start 2 ring\n"
    "0 1 start 2 ring\n"
    "1 0 def 1 main\n"
    "1 1 def 1 main\n"
    "2 0 cdef 4 flops n\n"
    "2 0 enter 1\n"
    "2 1 enter 1\n"
    "10 0 send 3 1 7 64\n"
    "12 1 recv 5 0 7 64\n"
    "13 0 sample 4 42.5\n"
    "14 0 note hello\n"
    "20 0 barrier 2\n"
    "21 1 barrier 4\n"
    "30 0 leave 1\n"
    "31 1 leave 1\n"
    "32 1 leave 1\n"
    "33 1 enter 9\n"
    "40 0 stop\n"
    "40 1 stop\n";

/* what is expected, one line per event: kind rank time(us) name flags
 * peer tag bytes depth */
typedef struct want {
    pal_event_kind kind;
    uint32_t rank;
    int64_t us;
    const char *name;
    unsigned flags;
    int64_t peer, tag;
    uint64_t bytes;
    unsigned depth;
} want;

#define C PAL_EVF_COMMUNICATION
#define I PAL_EVF_IDLE
#define K PAL_EVF_COLLECTIVE
#define U PAL_EVF_UNMATCHED
#define O PAL_EVF_ORPHAN
static const want wants[] = {
    {PAL_EV_PROCESS_BEGIN, 0, 0, NULL, 0, -1, 0, 0, 0},
    {PAL_EV_PROCESS_BEGIN, 1, 0, NULL, 0, -1, 0, 0, 0},
    {PAL_EV_DEFINITION, 0, 1, NULL, 0, -1, 0, 0, 0},
    {PAL_EV_DEFINITION, 1, 1, NULL, 0, -1, 0, 0, 0},
    {PAL_EV_DEFINITION, 0, 2, NULL, 0, -1, 0, 0, 0},
    {PAL_EV_ENTER, 0, 2, "main", 0, -1, 0, 0, 0},
    {PAL_EV_ENTER, 1, 2, "main", 0, -1, 0, 0, 0},
    {PAL_EV_ENTER, 0, 7, "send", C, -1, 0, 0, 1},
    {PAL_EV_SEND, 0, 7, NULL, 0, 1, 7, 64, 0},
    {PAL_EV_LEAVE, 0, 10, "send", C, -1, 7, 64, 1},
    {PAL_EV_ENTER, 1, 7, "recv", C | I, -1, 0, 0, 1},
    {PAL_EV_RECV, 1, 12, NULL, 0, 0, 7, 64, 0},
    {PAL_EV_MESSAGE, 1, 12, NULL, 0, 0, 7, 64, 0},
    {PAL_EV_LEAVE, 1, 12, "recv", C | I, -1, 7, 64, 1},
    {PAL_EV_COUNTER, 0, 13, "flops", 0, -1, 0, 0, 0},
    {PAL_EV_MARKER, 0, 14, "hello", 0, -1, 0, 0, 0},
    {PAL_EV_ENTER, 0, 18, "barrier", C | I | K, -1, 0, 0, 1},
    {PAL_EV_COLLECTIVE, 0, 20, "barrier", C | I | K, -1, 0, 0, 0},
    {PAL_EV_LEAVE, 0, 20, "barrier", C | I | K, -1, 0, 0, 1},
    {PAL_EV_ENTER, 1, 17, "barrier", C | I | K, -1, 0, 0, 1},
    {PAL_EV_COLLECTIVE, 1, 21, "barrier", C | I | K, -1, 0, 0, 0},
    {PAL_EV_LEAVE, 1, 21, "barrier", C | I | K, -1, 0, 0, 1},
    {PAL_EV_LEAVE, 0, 30, "main", 0, -1, 0, 0, 0},
    {PAL_EV_LEAVE, 1, 31, "main", 0, -1, 0, 0, 0},
    {PAL_EV_LEAVE, 1, 32, "main", U | O, -1, 0, 0, 0},
    {PAL_EV_ENTER, 1, 33, "region#9", 0, -1, 0, 0, 0},
    {PAL_EV_PROCESS_END, 0, 40, NULL, 0, -1, 0, 0, 0},
    {PAL_EV_PROCESS_END, 1, 40, NULL, 0, -1, 0, 0, 0},
    /* the end: rank 1's open region closes at the last time of its thread
     * (the instants of the process say nothing of its threads); the
     * barrier's instance, its size unknown, with the members seen */
    {PAL_EV_LEAVE, 1, 33, "region#9", U, -1, 0, 0, 0},
    {PAL_EV_COLL_INSTANCE, 0, 21, "barrier", C | I | K, -1, 0, 0, 0},
};

/* [-d DICT] TRACE... of a mode's arguments: the index of the first trace,
 * -1 (usage said) when there is none */
static int mode_args(int argc, char **argv, const char *mode, const char **dict)
{
    int i = 0;
    *dict = NULL;
    if (argc >= 2 && strcmp(argv[0], "-d") == 0) {
        *dict = argv[1];
        i = 2;
    }
    if (i >= argc) {
        fprintf(stderr, "usage: test_pal_events %s [-d DICT] TRACE...\n", mode);
        return -1;
    }
    return i;
}

/* --count: the events of a trace or run, counted as pal-view counts */
static int count(int argc, char **argv)
{
    const char *dict;
    int i = mode_args(argc, argv, "--count", &dict);
    if (i < 0)
        return 2;
    pal_reader *r = NULL;
    pal_events *ev = NULL;
    if (pal_reader_open_run((const char *const *)argv + i, (size_t)(argc - i), dict, 0, &r) !=
            PAL_OK ||
        pal_events_create(r, &ev) != PAL_OK) {
        fprintf(stderr, "test_pal_events: %s\n", pal_last_error());
        pal_reader_close(r);
        return 2;
    }
    uint64_t n[PAL_EV_LIMIT] = {0}, unmatched = 0, open = 0, lost = 0, complete = 0;
    const pal_event *e;
    pal_status st;
    while ((st = pal_events_next(ev, &e)) == PAL_OK) {
        n[e->kind]++;
        if (e->kind == PAL_EV_LEAVE && (e->flags & PAL_EVF_UNMATCHED))
            *(e->record ? &unmatched : &open) += 1;
        if (e->kind == PAL_EV_LOST)
            lost += e->count;
        if (e->kind == PAL_EV_COLL_INSTANCE && e->coll.members == e->coll.size)
            complete++;
    }
    if (st != PAL_END)
        fprintf(stderr, "test_pal_events: %s\n", pal_reader_error(r));
    printf("markers %llu, counter samples %llu, lost %llu, unmatched leaves %llu, open at end "
           "%llu\n",
           (unsigned long long)n[PAL_EV_MARKER], (unsigned long long)n[PAL_EV_COUNTER],
           (unsigned long long)lost, (unsigned long long)unmatched, (unsigned long long)open);
    printf("Messages: %llu sends, %llu receives, %llu matched\n",
           (unsigned long long)n[PAL_EV_SEND], (unsigned long long)n[PAL_EV_RECV],
           (unsigned long long)n[PAL_EV_MESSAGE]);
    printf("instances %llu (%llu complete), enters %llu, leaves %llu\n",
           (unsigned long long)n[PAL_EV_COLL_INSTANCE], (unsigned long long)complete,
           (unsigned long long)n[PAL_EV_ENTER], (unsigned long long)n[PAL_EV_LEAVE]);
    pal_events_destroy(ev);
    pal_reader_close(r);
    return st == PAL_END ? 0 : 1;
}

/* --messages: the ends and messages of a trace or run read with no option
 * and with PAL_EVENTS_MESSAGES (and _SETTLE) are the same, in the same
 * order, to the last field; prints how many. */
typedef struct msgev {
    pal_event_kind kind;
    uint32_t process, stream;
    int64_t time, peer, tag, comm;
    uint64_t bytes;
    unsigned flags;
    pal_msg_end send, recv;
} msgev;

static int is_message(const pal_event *e)
{
    return e->kind == PAL_EV_SEND || e->kind == PAL_EV_RECV || e->kind == PAL_EV_MESSAGE ||
           e->kind == PAL_EV_UNTIMED_RECV;
}

/* The message events of a read with options; NULL when it cannot be read. */
static msgev *message_events(const char *dict, const char *const *paths, size_t npaths,
                             unsigned options, size_t *n, uint64_t *enters)
{
    pal_reader *r = NULL;
    pal_events *ev = NULL;
    size_t cap = 16;
    msgev *v = malloc(cap * sizeof *v);   /* (not NULL when there are none) */
    *n = 0;
    *enters = 0;
    if (v == NULL || pal_reader_open_run(paths, npaths, dict, 0, &r) != PAL_OK ||
        pal_events_create(r, &ev) != PAL_OK || pal_events_set_options(ev, options) != PAL_OK) {
        fprintf(stderr, "test_pal_events: %s\n", pal_last_error());
        pal_events_destroy(ev);
        pal_reader_close(r);
        free(v);
        return NULL;
    }
    const pal_event *e;
    pal_status st;
    while ((st = pal_events_next(ev, &e)) == PAL_OK) {
        *enters += e->kind == PAL_EV_ENTER;
        if (!is_message(e))
            continue;
        if (*n == cap) {
            msgev *t = realloc(v, (cap *= 2) * sizeof *v);
            if (t == NULL) {
                st = PAL_ENOMEM;
                break;
            }
            v = t;
        }
        v[(*n)++] = (msgev){e->kind, e->process, e->stream, e->time, e->peer, e->tag, e->comm,
                            e->bytes, e->flags, e->send, e->recv};
    }
    if (st != PAL_END) {
        fprintf(stderr, "test_pal_events: %s\n", pal_status_string(st));
        free(v);
        v = NULL;
    }
    pal_events_destroy(ev);
    pal_reader_close(r);
    return v;
}

static int messages(int argc, char **argv)
{
    const char *dict;
    int i = mode_args(argc, argv, "--messages", &dict);
    if (i < 0)
        return 2;
    const char *const *paths = (const char *const *)argv + i;
    size_t np = (size_t)(argc - i), na, nb;
    uint64_t ea, eb;
    msgev *a = message_events(dict, paths, np, PAL_EVENTS_SETTLE, &na, &ea);
    msgev *b = message_events(dict, paths, np, PAL_EVENTS_SETTLE | PAL_EVENTS_MESSAGES, &nb, &eb);
    if (a == NULL || b == NULL) {
        free(a);
        free(b);
        return 2;
    }
    size_t bad = na == nb ? 0 : 1;
    for (size_t j = 0; j < na && j < nb; j++) {
        const msgev *x = &a[j], *y = &b[j];
        int same = x->kind == y->kind && x->process == y->process && x->stream == y->stream &&
                   x->time == y->time && x->peer == y->peer && x->tag == y->tag &&
                   x->comm == y->comm && x->bytes == y->bytes && x->flags == y->flags &&
                   memcmp(&x->send, &y->send, sizeof x->send) == 0 &&
                   memcmp(&x->recv, &y->recv, sizeof x->recv) == 0;
        if (!same && bad++ < 5)
            fprintf(stderr, "event %zu: %s of %u at %lld, with MESSAGES %s of %u at %lld\n", j,
                    pal_event_kind_name(x->kind), x->process, (long long)x->time,
                    pal_event_kind_name(y->kind), y->process, (long long)y->time);
    }
    printf("%zu message events (%zu with PAL_EVENTS_MESSAGES), %llu enters (%llu)%s\n", na, nb,
           (unsigned long long)ea, (unsigned long long)eb, bad ? ": DIFFERENT" : "");
    free(a);
    free(b);
    return bad || eb != 0 ? 1 : 0;
}

/* The events of the log at path again (dictionary edl); nonzero, said and
 * the log removed, when it cannot be read. */
static int reopen(const char *path, const char *edl, pal_reader **r, pal_events **ev)
{
    *r = NULL;
    *ev = NULL;
    if (pal_reader_open(path, edl, r) == PAL_OK && pal_events_create(*r, ev) == PAL_OK)
        return 0;
    fprintf(stderr, "test_pal_events: %s\n", pal_last_error());
    unlink(path);
    return -1;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "--count") == 0)
        return count(argc - 2, argv + 2);
    if (argc >= 2 && strcmp(argv[1], "--messages") == 0)
        return messages(argc - 2, argv + 2);
    char edl[4096];
    const char *top = getenv("top_srcdir");
    snprintf(edl, sizeof edl, "%s/edl/formats/toymp.edl", top ? top : ".");
    if (argc > 2) {
        fprintf(stderr, "usage: test_pal_events [TOYMP.EDL]\n");
        return 2;
    }
    char path[] = "/tmp/test_pal_events.XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0 || write(fd, log_text, sizeof log_text - 1) != (ssize_t)(sizeof log_text - 1)) {
        perror("test_pal_events: temporary file");
        return 2;
    }
    close(fd);
    pal_reader *r = NULL;
    pal_events *ev = NULL;
    if (pal_reader_open(path, argc == 2 ? argv[1] : edl, &r) != PAL_OK) {
        fprintf(stderr, "test_pal_events: %s\n", pal_last_error());
        unlink(path);
        return 2;
    }
    CHECK(pal_events_create(NULL, &ev) == PAL_EINVAL, "no reader");
    CHECK(pal_events_create(r, &ev) == PAL_OK, "create");
    const size_t nwant = sizeof wants / sizeof wants[0];
    size_t n = 0;
    const pal_event *e;
    pal_status st;
    while ((st = pal_events_next(ev, &e)) == PAL_OK) {
        if (n >= nwant) {
            CHECK(0, "an event more than expected: %s", pal_event_kind_name(e->kind));
            n++;
            continue;
        }
        const want *w = &wants[n];
        const char *kn = pal_event_kind_name(w->kind);
        CHECK(e->kind == w->kind, "event %zu: %s, want %s", n, pal_event_kind_name(e->kind), kn);
        CHECK(e->process == w->rank, "event %zu (%s): rank %u, want %u", n, kn, e->process,
              w->rank);
        CHECK(e->time == w->us * 1000, "event %zu (%s): time %lld ns, want %lld us", n, kn,
              (long long)e->time, (long long)w->us);
        if (w->name)
            CHECK(e->name && e->name_len == strlen(w->name) &&
                      memcmp(e->name, w->name, e->name_len) == 0,
                  "event %zu (%s): name '%.*s', want '%s'", n, kn, (int)e->name_len,
                  e->name ? e->name : "", w->name);
        CHECK(e->flags == w->flags, "event %zu (%s): flags %u, want %u", n, kn, e->flags,
              w->flags);
        if (w->kind == PAL_EV_SEND || w->kind == PAL_EV_RECV || w->kind == PAL_EV_MESSAGE)
            CHECK(e->peer == w->peer, "event %zu (%s): peer %lld, want %lld", n, kn,
                  (long long)e->peer, (long long)w->peer);
        if (w->kind == PAL_EV_SEND || w->kind == PAL_EV_RECV || w->kind == PAL_EV_MESSAGE ||
            (w->kind == PAL_EV_LEAVE && w->tag))
            CHECK(e->tag == w->tag && e->bytes == w->bytes,
                  "event %zu (%s): tag %lld bytes %llu, want %lld %llu", n, kn,
                  (long long)e->tag, (unsigned long long)e->bytes, (long long)w->tag,
                  (unsigned long long)w->bytes);
        if (w->kind == PAL_EV_ENTER || w->kind == PAL_EV_LEAVE)
            CHECK(e->depth == w->depth, "event %zu (%s): depth %u, want %u", n, kn, e->depth,
                  w->depth);
        switch (e->kind) {
        case PAL_EV_LEAVE:
            if (strcmp(w->name, "send") == 0)
                CHECK(e->start == 7000, "the send's leave knows its start");
            if (!(w->flags & U))
                CHECK(e->record != NULL, "a leave from a record points at it");
            break;
        case PAL_EV_MESSAGE:
            CHECK(e->send.process == 0 && e->send.time == 7000.0 && e->send.bytes == 64 &&
                      e->recv.process == 1 && e->recv.time == 12000.0,
                  "the message's ends: %u at %g -> %u at %g", e->send.process, e->send.time,
                  e->recv.process, e->recv.time);
            break;
        case PAL_EV_COUNTER:
            CHECK(e->value == 42.5, "counter value %g", e->value);
            break;
        case PAL_EV_COLLECTIVE:
            CHECK(e->op == PAL_COLL_BARRIER, "the barrier's operation");
            CHECK(e->start == (e->process == 0 ? 18000 : 17000), "its member's start");
            break;
        case PAL_EV_COLL_INSTANCE:
            CHECK(e->coll.members == 2 && e->coll.size == 0 && e->coll.lo == 0 &&
                      e->coll.hi == 1 && e->coll.late == 0 && e->coll.min_start == 17000 &&
                      e->coll.max_start == 18000 && e->coll.max_end == 21000 &&
                      e->coll.op == PAL_COLL_BARRIER && e->coll.root == -1,
                  "the instance: %u members of %u, ranks %u-%u, late %u, starts %lld-%lld, "
                  "end %lld",
                  e->coll.members, e->coll.size, e->coll.lo, e->coll.hi, e->coll.late,
                  (long long)e->coll.min_start, (long long)e->coll.max_start,
                  (long long)e->coll.max_end);
            break;
        default:
            break;
        }
        n++;
    }
    CHECK(st == PAL_END, "the events end with PAL_END, not %s", pal_status_string(st));
    CHECK(n == nwant, "%zu events, want %zu", n, nwant);
    CHECK(pal_events_next(ev, &e) == PAL_END, "and stay ended");
    uint64_t s = 1, rv = 1;
    pal_matcher_waiting(pal_events_matcher(ev), &s, &rv);
    CHECK(s == 0 && rv == 0, "nothing waits for its partner");
    CHECK(pal_events_names(ev) != NULL, "the names");
    CHECK(strcmp(pal_event_kind_name(PAL_EV_COLL_INSTANCE), "coll_instance") == 0 &&
              pal_event_kind_name(PAL_EV_LIMIT) == NULL,
          "kind names");
    CHECK(pal_events_set_options(ev, PAL_EVENTS_EVERY_RECORD) == PAL_EINVAL,
          "options only before the first event");
    pal_events_destroy(ev);
    pal_reader_close(r);

    /* every record once: the same events, each record's first flagged,
     * and NONE for none here (every toymp record means something) */
    if (reopen(path, argc == 2 ? argv[1] : edl, &r, &ev))
        return 2;
    CHECK(pal_events_set_options(ev, 8u) == PAL_EINVAL, "an unknown option");
    CHECK(pal_events_set_options(ev, PAL_EVENTS_EVERY_RECORD) == PAL_OK, "every record");
    size_t records = 0, events = 0;
    const pal_record *last = NULL;
    while ((st = pal_events_next(ev, &e)) == PAL_OK) {
        events++;
        if (e->flags & PAL_EVF_RECORD) {
            CHECK(e->record != NULL, "event %zu: a record's first", events);
            records++;
            last = e->record;
        } else {
            CHECK(e->record == NULL || e->record == last,
                  "event %zu: a record's later event, not flagged", events);
        }
        CHECK(e->kind != PAL_EV_NONE, "event %zu: none", events);
    }
    pal_reader_stats rs;
    pal_reader_get_stats(r, &rs);
    CHECK(st == PAL_END && records == rs.records && records == 19 && events == nwant,
          "%zu records flagged of %llu read (19), %zu events (%zu)", records,
          (unsigned long long)rs.records, events, nwant);
    pal_events_destroy(ev);
    pal_reader_close(r);

    /* messages only: the same events less every region's (the enter and
     * leave records' too) and the collectives', in the same order */
    if (reopen(path, argc == 2 ? argv[1] : edl, &r, &ev))
        return 2;
    CHECK(pal_events_set_options(ev, PAL_EVENTS_MESSAGES) == PAL_OK, "messages only");
    size_t w = 0, kept = 0;
    while ((st = pal_events_next(ev, &e)) == PAL_OK) {
        while (w < nwant && (wants[w].kind == PAL_EV_ENTER || wants[w].kind == PAL_EV_LEAVE ||
                             wants[w].kind == PAL_EV_COLLECTIVE ||
                             wants[w].kind == PAL_EV_COLL_INSTANCE))
            w++;
        if (w >= nwant) {
            CHECK(0, "messages only: an event more: %s", pal_event_kind_name(e->kind));
            continue;
        }
        const want *x = &wants[w++];
        kept++;
        CHECK(e->kind == x->kind && e->process == x->rank && e->time == x->us * 1000,
              "messages only, event %zu: %s of %u at %lld ns, want %s of %u at %lld us", kept,
              pal_event_kind_name(e->kind), e->process, (long long)e->time,
              pal_event_kind_name(x->kind), x->rank, (long long)x->us);
        if (x->kind == PAL_EV_SEND || x->kind == PAL_EV_RECV || x->kind == PAL_EV_MESSAGE)
            CHECK(e->peer == x->peer && e->tag == x->tag && e->bytes == x->bytes,
                  "messages only, event %zu: peer %lld tag %lld bytes %llu", kept,
                  (long long)e->peer, (long long)e->tag, (unsigned long long)e->bytes);
    }
    while (w < nwant && (wants[w].kind == PAL_EV_ENTER || wants[w].kind == PAL_EV_LEAVE ||
                         wants[w].kind == PAL_EV_COLLECTIVE ||
                         wants[w].kind == PAL_EV_COLL_INSTANCE))
        w++;
    CHECK(st == PAL_END && w == nwant && kept == 12,
          "messages only: %zu events (12), %zu of %zu expected seen", kept, w, nwant);
    pal_events_destroy(ev);
    pal_reader_close(r);
    unlink(path);
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    printf("events: %zu events as expected\n", n);
    return 0;
}
