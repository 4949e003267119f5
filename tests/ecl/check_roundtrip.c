/* check_roundtrip.c -- reads an ECL trace back through PAL (no ECL code) and
 * checks what the writer promised: exact counts per record type, per-stream
 * time order, chunk sequence order per stream, definitions before use,
 * proper enter/leave nesting, and for traces of tests/ecl/stress the exact
 * record pattern of every thread (nothing lost, duplicated or reordered).
 *
 *   check_roundtrip [--expect TYPE=N]... [--stress THREADS PAIRS] [--partial]
 *                   [--allow-lost] [--expect-lost N] [--expect-waits N] [--raw] TRACE
 *
 * --partial: the trace was cut (full disk): a truncated last chunk is fine and
 *            each stream only needs to be a prefix of its pattern.
 * --allow-lost: ECL_ON_FULL=drop: gaps are fine when a `lost` record counts
 *            them exactly.
 * --expect-lost N: the `lost` records (of any stream) count N records in all.
 * --expect-waits N: N `flush` records have a nonzero `wait` (the times a
 *            thread waited for a free buffer), and no wait exceeds its
 *            flush's duration.
 * --raw:     every chunk holding records is stored uncompressed.
 * Exit 0 if every check holds, 1 otherwise (each failure printed). */
#include <pal.h>

#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_STREAMS 1024
#define MAX_TYPES 64
#define MAX_DEPTH 256
#define STRESS_REGIONS 16
#define STRESS_SAMPLE_EVERY 1000

static int failures;

#define FAIL(...)                                                                  \
    do {                                                                           \
        if (failures++ < 20) {                                                     \
            fprintf(stderr, "check_roundtrip: ");                                  \
            fprintf(stderr, __VA_ARGS__);                                          \
            fputc('\n', stderr);                                                   \
        }                                                                          \
    } while (0)

typedef struct stream_state {
    int seen;
    uint64_t last_time;
    uint64_t chunk_offset;       /* offset of the current chunk */
    int64_t chunk_seq;           /* its sequence number */
    uint32_t stack[MAX_DEPTH];
    int depth;
    /* stress pattern */
    int thread;                  /* k from the "thread k" marker, -1 before */
    uint64_t pos;                /* index of the next expected pattern record */
    uint64_t lost;
    int defined;                 /* a thread_def for it came first */
} stream_state;

static stream_state streams[MAX_STREAMS];
static struct { char name[64]; uint64_t count, expect; int has_expect; } types[MAX_TYPES];
static int ntypes;
static int stress_threads = -1;
static uint64_t stress_pairs;
static int partial, allow_lost, raw_only;
static int64_t expect_lost = -1;
static int64_t expect_waits = -1;
static int trace_fd = -1;
static char regions_defined[1 << 16];
static int threads_seen[1024];

static int type_slot(const char *name)
{
    for (int i = 0; i < ntypes; i++)
        if (strcmp(types[i].name, name) == 0)
            return i;
    if (ntypes == MAX_TYPES) {
        fprintf(stderr, "check_roundtrip: too many record types\n");
        exit(1);
    }
    snprintf(types[ntypes].name, sizeof types[ntypes].name, "%s", name);
    return ntypes++;
}

static uint64_t get_u(const pal_record *r, const char *f)
{
    uint64_t v = 0;
    pal_status s = pal_record_get_u64(r, f, &v);
    if (s != PAL_OK)
        FAIL("record %s at chunk %" PRIu64 ": field %s: %s",
             pal_recdesc_name(pal_record_desc(r)), pal_record_offset(r), f, pal_status_string(s));
    return v;
}

static void read_chunk_header(uint64_t off, uint32_t *stream, uint64_t *seq, int *compression)
{
    unsigned char h[64];
    if (pread(trace_fd, h, 64, (off_t)off) != 64) {
        FAIL("cannot read chunk header at byte %" PRIu64, off);
        return;
    }
    uint32_t st = 0;
    uint64_t sq = 0;
    for (int i = 3; i >= 0; i--)
        st = st << 8 | h[24 + i];
    for (int i = 7; i >= 0; i--)
        sq = sq << 8 | h[32 + i];
    *stream = st;
    *seq = sq;
    *compression = h[9];
}

/* Pattern record p of thread k in the stress program: enter, leave pairs, a
 * `sample` after every 1000th pair. Returns the type and fills the values. */
typedef struct pat { const char *type; uint32_t region; int64_t j; } pat;

static uint64_t pattern_length(void)
{
    return 2 * stress_pairs + stress_pairs / STRESS_SAMPLE_EVERY;
}

static pat pattern_at(int k, uint64_t p)
{
    /* groups of 1000 pairs + 1 sample = 2001 records */
    uint64_t group = p / (2 * STRESS_SAMPLE_EVERY + 1), in = p % (2 * STRESS_SAMPLE_EVERY + 1);
    pat r;
    if (in == 2 * STRESS_SAMPLE_EVERY && (group + 1) * STRESS_SAMPLE_EVERY <= stress_pairs) {
        r.type = "sample";
        r.j = (int64_t)((group + 1) * STRESS_SAMPLE_EVERY - 1);
        r.region = 0;
        return r;
    }
    uint64_t j = group * STRESS_SAMPLE_EVERY + in / 2;
    r.type = (in % 2 == 0) ? "enter" : "leave";
    r.j = (int64_t)j;
    r.region = 1 + (uint32_t)((k + j) % STRESS_REGIONS);
    return r;
}

static void check_stress(stream_state *s, uint32_t sid, const pal_record *r, const char *tname)
{
    if (strcmp(tname, "flush") == 0 || strcmp(tname, "pause") == 0 ||
        strcmp(tname, "resume") == 0)
        return;
    if (strcmp(tname, "lost") == 0) {
        uint64_t c = get_u(r, "count");
        if (!allow_lost)
            FAIL("stream %u: %" PRIu64 " records lost in lossless mode", sid, c);
        s->pos += c;
        s->lost += c;
        return;
    }
    if (s->thread < 0) {
        const char *txt;
        size_t len;
        int k;
        char buf[64];
        if (strcmp(tname, "marker") != 0 || pal_record_get_str(r, "text", &txt, &len) != PAL_OK ||
            len >= sizeof buf) {
            FAIL("stream %u: first record is %s, not the 'thread k' marker", sid, tname);
            s->thread = 1 << 30;
            return;
        }
        memcpy(buf, txt, len);
        buf[len] = '\0';
        if (sscanf(buf, "thread %d", &k) != 1 || k < 0 || k >= stress_threads || k >= 1024) {
            FAIL("stream %u: bad marker '%s'", sid, buf);
            s->thread = 1 << 30;
            return;
        }
        if (threads_seen[k]++)
            FAIL("thread %d appears in two streams", k);
        s->thread = k;
        return;
    }
    if (s->thread >= (1 << 30))
        return;
    if (s->pos >= pattern_length()) {
        FAIL("stream %u (thread %d): extra %s record after the pattern ended", sid, s->thread,
             tname);
        return;
    }
    pat want = pattern_at(s->thread, s->pos);
    if (strcmp(want.type, tname) != 0) {
        FAIL("stream %u (thread %d): record %" PRIu64 " is %s, expected %s (j=%" PRId64 ")", sid,
             s->thread, s->pos, tname, want.type, want.j);
        s->thread = 1 << 30;         /* one report per stream */
        return;
    }
    if (want.region != 0) {
        uint64_t reg = get_u(r, "region");
        if (reg != want.region)
            FAIL("stream %u (thread %d): record %" PRIu64 " region %" PRIu64 ", expected %u",
                 sid, s->thread, s->pos, reg, want.region);
    } else {
        int64_t j = 0;
        double v = 0;
        const char *lab;
        size_t len;
        char expect_label[32];
        pal_record_get_i64(r, "j", &j);
        pal_record_get_f64(r, "value", &v);
        uint64_t th = get_u(r, "thread");
        snprintf(expect_label, sizeof expect_label, "j%" PRId64, want.j);
        if (j != want.j || v != (double)want.j * 0.25 || th != (uint64_t)s->thread ||
            pal_record_get_str(r, "label", &lab, &len) != PAL_OK ||
            len != strlen(expect_label) || memcmp(lab, expect_label, len) != 0)
            FAIL("stream %u (thread %d): sample %" PRIu64 " has wrong values (j=%" PRId64 ")",
                 sid, s->thread, s->pos, j);
    }
    s->pos++;
}

int main(int argc, char **argv)
{
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--expect") == 0 && i + 1 < argc) {
            char name[64];
            unsigned long long n;
            if (sscanf(argv[++i], "%63[^=]=%llu", name, &n) != 2) {
                fprintf(stderr, "check_roundtrip: bad --expect '%s'\n", argv[i]);
                return 2;
            }
            int t = type_slot(name);
            types[t].expect = n;
            types[t].has_expect = 1;
        } else if (strcmp(argv[i], "--stress") == 0 && i + 2 < argc) {
            stress_threads = atoi(argv[++i]);
            stress_pairs = strtoull(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--partial") == 0) {
            partial = 1;
        } else if (strcmp(argv[i], "--allow-lost") == 0) {
            allow_lost = 1;
        } else if (strcmp(argv[i], "--expect-lost") == 0 && i + 1 < argc) {
            expect_lost = (int64_t)strtoull(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--expect-waits") == 0 && i + 1 < argc) {
            expect_waits = (int64_t)strtoull(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--raw") == 0) {
            raw_only = 1;
        } else if (argv[i][0] != '-' && path == NULL) {
            path = argv[i];
        } else {
            fprintf(stderr, "usage: check_roundtrip [--expect TYPE=N]... [--stress T PAIRS] "
                            "[--partial] [--allow-lost] [--expect-lost N] [--expect-waits N] [--raw] "
                            "TRACE\n");
            return 2;
        }
    }
    if (path == NULL) {
        fprintf(stderr, "check_roundtrip: no trace given\n");
        return 2;
    }

    pal_reader *rd;
    pal_status st = pal_reader_open(path, NULL, &rd);
    if (st != PAL_OK) {
        fprintf(stderr, "check_roundtrip: cannot open '%s': %s\n", path, pal_last_error());
        return 1;
    }
    trace_fd = open(path, O_RDONLY);
    for (int i = 0; i < MAX_STREAMS; i++) {
        streams[i].thread = -1;
        streams[i].chunk_seq = -1;
        streams[i].chunk_offset = UINT64_MAX;
    }

    const pal_record *r;
    uint64_t total = 0, flush_ticks = 0, lost_total = 0, waits = 0, wait_ticks = 0;
    while ((st = pal_reader_next(rd, &r)) == PAL_OK) {
        const char *tname = pal_recdesc_name(pal_record_desc(r));
        uint32_t sid = pal_record_stream(r);
        uint64_t t = pal_record_time(r), off = pal_record_offset(r);
        total++;
        types[type_slot(tname)].count++;
        if (sid >= MAX_STREAMS) {
            FAIL("stream id %u out of range", sid);
            continue;
        }
        stream_state *s = &streams[sid];

        /* chunk order: a new chunk of this stream must be the next sequence */
        if (off != s->chunk_offset) {
            uint32_t hs = sid;
            uint64_t seq = 0;
            int compression = 0;
            read_chunk_header(off, &hs, &seq, &compression);
            if (raw_only && compression != 0)
                FAIL("stream %u: chunk at %" PRIu64 " is compressed (method %d)", sid, off,
                     compression);
            if (hs != sid)
                FAIL("record at chunk %" PRIu64 " claims stream %u, header says %u", off, sid, hs);
            if (s->chunk_offset != UINT64_MAX && off < s->chunk_offset)
                FAIL("stream %u: chunk at %" PRIu64 " precedes the previous one", sid, off);
            if (sid == 0 ? (int64_t)seq <= s->chunk_seq : (int64_t)seq != s->chunk_seq + 1)
                FAIL("stream %u: chunk at %" PRIu64 " has sequence %" PRIu64 " after %" PRId64,
                     sid, off, seq, s->chunk_seq);
            s->chunk_offset = off;
            s->chunk_seq = (int64_t)seq;
        }
        if (s->seen && t < s->last_time)
            FAIL("stream %u: time goes back from %" PRIu64 " to %" PRIu64 " (%s)", sid,
                 s->last_time, t, tname);
        s->seen = 1;
        s->last_time = t;
        if (strcmp(tname, "lost") == 0)
            lost_total += get_u(r, "count");

        if (sid == 0) {
            if (strcmp(tname, "region_def") == 0) {
                uint64_t id = get_u(r, "region");
                if (id < sizeof regions_defined)
                    regions_defined[id] = 1;
            } else if (strcmp(tname, "thread_def") == 0) {
                uint64_t ts = get_u(r, "stream");
                if (ts < MAX_STREAMS)
                    streams[ts].defined = 1;
            }
            continue;
        }
        if (!s->defined)
            FAIL("stream %u: record %s before its thread_def", sid, tname);
        if (strcmp(tname, "enter") == 0 || strcmp(tname, "leave") == 0) {
            uint64_t reg = get_u(r, "region");
            if (reg == 0 || reg >= sizeof regions_defined || !regions_defined[reg])
                FAIL("stream %u: %s of region %" PRIu64 " before its region_def", sid, tname, reg);
            if (allow_lost) {
                /* dropped records break the nesting; the pattern check covers it */
            } else if (tname[0] == 'e') {
                if (s->depth < MAX_DEPTH)
                    s->stack[s->depth] = (uint32_t)reg;
                s->depth++;
            } else if (s->depth == 0) {
                FAIL("stream %u: leave of region %" PRIu64 " with no region entered", sid, reg);
            } else {
                s->depth--;
                if (s->depth < MAX_DEPTH && s->stack[s->depth] != reg)
                    FAIL("stream %u: leave of region %" PRIu64 " inside region %u", sid, reg,
                         s->stack[s->depth]);
            }
        } else if (strcmp(tname, "flush") == 0) {
            uint64_t d = get_u(r, "duration"), w = get_u(r, "wait");
            flush_ticks += d;
            if (w > 0) {
                waits++;
                wait_ticks += w;
            }
            if (w > d)
                FAIL("stream %u: flush waited %" PRIu64 " ticks, more than its duration %" PRIu64,
                     sid, w, d);
        }
        if (stress_threads >= 0)
            check_stress(s, sid, r, tname);
    }
    if (st != PAL_END)
        FAIL("reading stopped: %s: %s", pal_status_string(st), pal_reader_error(rd));

    pal_reader_stats rs;
    pal_reader_get_stats(rd, &rs);
    if (rs.damaged != 0)
        FAIL("%" PRIu64 " damaged chunks (%" PRIu64 " bytes skipped)", rs.damaged,
             rs.bytes_skipped);
    if (rs.truncated && !partial)
        FAIL("the trace ends inside a chunk");

    if (expect_lost >= 0 && lost_total != (uint64_t)expect_lost)
        FAIL("the lost records count %" PRIu64 " records, expected %" PRId64, lost_total,
             expect_lost);
    if (expect_waits >= 0 && waits != (uint64_t)expect_waits)
        FAIL("%" PRIu64 " flush records with a wait, expected %" PRId64, waits, expect_waits);
    for (int i = 0; i < ntypes; i++)
        if (types[i].has_expect && types[i].count != types[i].expect)
            FAIL("%s: %" PRIu64 " records, expected %" PRIu64, types[i].name, types[i].count,
                 types[i].expect);

    int nstreams = 0;
    for (int i = 1; i < MAX_STREAMS; i++) {
        stream_state *s = &streams[i];
        if (!s->seen)
            continue;
        nstreams++;
        if (s->depth != 0 && !partial && !allow_lost)
            FAIL("stream %d: %d regions still entered at the end", i, s->depth);
        if (stress_threads >= 0 && !partial && s->thread >= 0 && s->thread < (1 << 30) &&
            s->pos != pattern_length())
            FAIL("stream %d (thread %d): %" PRIu64 " of %" PRIu64 " pattern records", i,
                 s->thread, s->pos, pattern_length());
    }
    if (stress_threads >= 0 && !partial)
        for (int k = 0; k < stress_threads && k < 1024; k++)
            if (threads_seen[k] != 1)
                FAIL("thread %d: found in %d streams", k, threads_seen[k]);

    printf("check_roundtrip: %s: %" PRIu64 " records, %" PRIu64 " chunks, %d thread streams, "
           "%" PRIu64 " flush ticks%s\n",
           path, total, rs.chunks, nstreams, flush_ticks, rs.truncated ? ", truncated tail" : "");
    for (int i = 0; i < ntypes; i++)
        printf("  %-14s %" PRIu64 "\n", types[i].name, types[i].count);
    printf("  (%" PRIu64 " records counted as lost)\n", lost_total);
    printf("  (%" PRIu64 " waits for a free buffer, %" PRIu64 " ticks)\n", waits, wait_ticks);
    pal_reader_close(rd);
    close(trace_fd);
    if (failures) {
        fprintf(stderr, "check_roundtrip: %d failure(s)\n", failures);
        return 1;
    }
    return 0;
}
