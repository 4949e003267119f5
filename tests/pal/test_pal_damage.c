/* test_pal_damage.c -- PAL on damaged traces: a file cut at every byte, every
 * byte flipped (three ways), and chunks written with oddities the reader must
 * refuse (wrong count, length, last time, unknown key, out-of-range values,
 * flags). In every case the reader must not crash, must report, and must
 * return exactly the records of the intact chunks, in order -- and of a chunk
 * whose CRC holds but whose records do not decode (a faulty writer), the
 * records before the first one that does not, as doc/trace-format.md says.
 * Payload bytes flipped with the CRC recomputed (a faulty writer again) must
 * not crash the reader nor cost any other chunk a record.
 * Plain C on purpose: it runs without Check and under ASan/UBSan. */
#include <config.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "pal/pal.h"
#include "tests/pal/labdict.h"
#include "tests/pal/tracebuild.h"

static char path[] = "pal-damage-XXXXXX";
static unsigned long failures, cases;
static unsigned long reports;

#define FAIL(...)                                                               \
    do {                                                                        \
        fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                    \
        fprintf(stderr, __VA_ARGS__);                                           \
        fputc('\n', stderr);                                                    \
        failures++;                                                             \
    } while (0)

static unsigned long not_closed_notes;

/* Damage reports are counted; the note that a trace was not closed (no
 * footer: the writer did not finish it) is not damage, and counted apart. */
static void count_diag(void *ctx, const char *msg)
{
    (void)ctx;
    if (strstr(msg, ": the trace was not closed"))
        not_closed_notes++;
    else
        reports++;
}

typedef struct got {
    size_t record;
    uint64_t time;
} got;

/* Expected outcome of reading one damaged file. */
typedef struct expect {
    int open_fails;
    const unsigned char *keep;   /* per record of the builder: 1 if it must come back */
    int damage;                  /* a report is expected */
} expect;

/* Whether the file last written ends with the footer's magic. */
static int written_closed;

static void put_file(const unsigned char *p, size_t n)
{
    if (tb_write_bytes(path, p, n) != 0) {
        perror(path);
        exit(99);
    }
    written_closed = n >= 16 && memcmp(p + n - 16, "ECLINDEX", 8) == 0;
}

/* The order a reader hands records out in (doc/pal.md, "Order"): each
 * stream -- the chunks of one (process, thread), in file order -- in its own
 * order, and of the streams' next records the earliest first (by time; at
 * the same time by process, then by the offset of its chunk). Written here
 * as a plain merge, independently of the reader's heap. */
static int before(const tb_rec_info *x, const tb_rec_info *y, const tb_chunk_info *c)
{
    if (x->order_time != y->order_time)
        return x->order_time < y->order_time;
    if (c[x->chunk].process != c[y->chunk].process)
        return c[x->chunk].process < c[y->chunk].process;
    return c[x->chunk].offset < c[y->chunk].offset;
}

static size_t *expected_order(tb *t, const unsigned char *keep, size_t *n)
{
    size_t nr, nc, k = 0, ns = 0;
    const tb_rec_info *recs = tb_records(t, &nr);
    const tb_chunk_info *c = tb_chunks(t, &nc);
    size_t *v = malloc((nr + 1) * sizeof *v);
    /* the streams: per stream, its kept records in file order (a linked list) */
    size_t *next = malloc((nr + 1) * sizeof *next), *head = malloc((nr + 1) * sizeof *head);
    size_t *tail = malloc((nr + 1) * sizeof *tail), *sid = malloc((nr + 1) * sizeof *sid);
    for (size_t i = 0; i < nr; i++) {
        next[i] = nr;
        if (!keep[i])
            continue;
        size_t s;
        for (s = 0; s < ns; s++) {
            const tb_chunk_info *x = &c[recs[sid[s]].chunk], *y = &c[recs[i].chunk];
            if (x->process == y->process && x->stream == y->stream)
                break;
        }
        if (s == ns) {
            sid[ns] = i;
            head[ns] = tail[ns] = i;
            ns++;
        } else {
            next[tail[s]] = i;
            tail[s] = i;
        }
    }
    for (;;) {
        size_t best = ns;
        for (size_t s = 0; s < ns; s++)
            if (head[s] < nr && (best == ns || before(&recs[head[s]], &recs[head[best]], c)))
                best = s;
        if (best == ns)
            break;
        v[k++] = head[best];
        head[best] = next[head[best]];
    }
    free(next);
    free(head);
    free(tail);
    free(sid);
    *n = k;
    return v;
}

/* Reads path and checks the outcome; label names the case in failures. */
static void check(tb *t, const expect *e, int strict, const char *label, ...)
{
    char what[200];
    va_list ap;
    va_start(ap, label);
    vsnprintf(what, sizeof what, label, ap);
    va_end(ap);
    cases++;
    pal_reader *r;
    pal_status st = pal_reader_open(path, NULL, &r);
    if (e->open_fails) {
        if (st == PAL_OK) {
            FAIL("%s: open succeeded, expected a failure", what);
            pal_reader_close(r);
        } else if (!*pal_last_error()) {
            FAIL("%s: open failed without a message", what);
        }
        return;
    }
    if (st != PAL_OK) {
        FAIL("%s: open failed: %s", what, pal_last_error());
        return;
    }
    reports = not_closed_notes = 0;
    pal_reader_set_diag(r, count_diag, NULL);
    pal_reader_set_strict(r, strict);
    size_t nrec, nwant;
    const tb_rec_info *recs = tb_records(t, &nrec);
    size_t *order = expected_order(t, e->keep, &nwant);
    size_t want = 0;        /* next expected record, in order[] */
    const pal_record *rec;
    uint64_t n = 0;
    while ((st = pal_reader_next(r, &rec)) == PAL_OK) {
        if (want >= nwant) {
            FAIL("%s: record %llu beyond the expected ones", what, (unsigned long long)n);
            break;
        }
        const tb_rec_info *x = &recs[order[want]];
        if (pal_recdesc_index(pal_record_desc(rec)) != x->record ||
            pal_record_time(rec) != x->time) {
            FAIL("%s: record %llu is %s@%llu, expected record %zu type %zu@%llu", what,
                 (unsigned long long)n, pal_recdesc_name(pal_record_desc(rec)),
                 (unsigned long long)pal_record_time(rec), order[want], x->record,
                 (unsigned long long)x->time);
            break;
        }
        want++;
        n++;
    }
    pal_reader_stats s;
    pal_reader_get_stats(r, &s);
    if (strict) {
        /* strict: a prefix of the expected records, then EFORMAT iff damaged */
        if (e->damage && st != PAL_EFORMAT)
            FAIL("%s: strict read ended with %s, expected PAL_EFORMAT", what,
                 pal_status_string(st));
        if (!e->damage && st != PAL_END)
            FAIL("%s: strict read ended with %s", what, pal_status_string(st));
        if (st == PAL_EFORMAT && !*pal_reader_error(r))
            FAIL("%s: strict failure without a message", what);
    } else {
        if (st != PAL_END)
            FAIL("%s: read ended with %s", what, pal_status_string(st));
        else if (want != nwant)
            FAIL("%s: only %llu records, record %zu (type %zu@%llu) missing", what,
                 (unsigned long long)n, order[want], recs[order[want]].record,
                 (unsigned long long)recs[order[want]].time);
        if (s.records != n)
            FAIL("%s: stats say %llu records, %llu read", what,
                 (unsigned long long)s.records, (unsigned long long)n);
        int damaged = s.damaged > 0 || s.truncated;
        if (e->damage && (!damaged || reports == 0))
            FAIL("%s: damage not reported (damaged %llu, truncated %d, reports %lu)", what,
                 (unsigned long long)s.damaged, s.truncated, reports);
        if (!e->damage && (damaged || reports))
            FAIL("%s: damage reported for an intact file: %s", what, pal_reader_error(r));
        /* a file without its footer was not closed: said once, and counted */
        if (s.not_closed != (uint32_t)!written_closed || not_closed_notes != !written_closed)
            FAIL("%s: not closed %u (%lu notes), expected %d", what, s.not_closed,
                 not_closed_notes, !written_closed);
    }
    free(order);
    pal_reader_close(r);
}

/* Records of kind-1 chunks ending at or before `cut`. */
static void keep_before(tb *t, size_t cut, unsigned char *keep)
{
    size_t nc, nr;
    const tb_chunk_info *c = tb_chunks(t, &nc);
    const tb_rec_info *r = tb_records(t, &nr);
    for (size_t i = 0; i < nr; i++)
        keep[i] = c[r[i].chunk].offset + c[r[i].chunk].length <= cut;
}

/* Every record but those of chunk `bad` and, when it is a dictionary chunk,
 * those of the chunks depending on it from their first record of a type it
 * defines on: such a chunk's CRC holds, it is read up to the record it cannot
 * decode (an unknown key), then skipped. */
static void keep_but(tb *t, long bad, unsigned char *keep)
{
    size_t nc, nr;
    const tb_chunk_info *c = tb_chunks(t, &nc);
    const tb_rec_info *r = tb_records(t, &nr);
    size_t lost_chunk = (size_t)-1;     /* a dependent chunk from which on records are lost */
    for (size_t i = 0; i < nr; i++) {
        size_t ch = r[i].chunk;
        keep[i] = 1;
        if (bad < 0)
            continue;
        if ((long)ch == bad || ch == lost_chunk) {
            keep[i] = 0;
        } else if (c[ch].depends_on == bad && r[i].record >= c[bad].dict_before) {
            keep[i] = 0;
            lost_chunk = ch;
        }
    }
}

/* ...and then the first n records of chunk `ch` after all. */
static void keep_first(tb *t, size_t ch, size_t n, unsigned char *keep)
{
    size_t nr;
    const tb_rec_info *r = tb_records(t, &nr);
    for (size_t i = 0; i < nr && n; i++)
        if (r[i].chunk == ch) {
            keep[i] = 1;
            n--;
        }
}

static int at_boundary(tb *t, size_t pos)
{
    size_t nc;
    const tb_chunk_info *c = tb_chunks(t, &nc);
    if (pos == tb_header_length(t))
        return 1;
    for (size_t i = 0; i < nc; i++)
        if (c[i].offset + c[i].length == pos)
            return 1;
    return 0;
}

static long chunk_at(tb *t, size_t pos)
{
    size_t nc;
    const tb_chunk_info *c = tb_chunks(t, &nc);
    for (size_t i = 0; i < nc; i++)
        if (pos >= c[i].offset && pos < c[i].offset + c[i].length)
            return (long)i;
    return -1;
}

/* Cuts at `step`-spaced positions (1 = every byte) and near every boundary. */
static void cuts(tb *t, const char *name, size_t step)
{
    size_t len, nr;
    const unsigned char *data = tb_data(t, &len);
    tb_records(t, &nr);
    unsigned char *keep = malloc(nr + 1);
    unsigned char *want = calloc(len + 1, 1);
    size_t nc;
    const tb_chunk_info *c = tb_chunks(t, &nc);
    for (size_t p = 0; p <= len; p += step)
        want[p] = 1;
    for (size_t i = 0; i < nc; i++)
        for (size_t d = 0; d < 3; d++) {
            if (c[i].offset + d <= len)
                want[c[i].offset + d] = 1;
            if (c[i].offset >= d)
                want[c[i].offset - d] = 1;
            if (c[i].offset + 64 + d <= len)
                want[c[i].offset + 64 + d] = 1;
        }
    want[len] = want[len - 1] = want[len - 8] = want[len - 16] = 1;
    for (size_t p = 0; p <= len; p++) {
        if (!want[p])
            continue;
        expect e = {0};
        e.open_fails = p < tb_header_length(t);
        keep_before(t, p, keep);
        e.keep = keep;
        e.damage = p != len && !at_boundary(t, p);
        put_file(data, p);
        check(t, &e, 0, "%s cut at byte %zu of %zu", name, p, len);
        if (p % (step * 7) == 0 || e.damage == 0)
            check(t, &e, 1, "%s cut at byte %zu (strict)", name, p);
    }
    free(keep);
    free(want);
}

static void flips(tb *t, const char *name, size_t step)
{
    size_t len, nr;
    const unsigned char *data = tb_data(t, &len);
    tb_records(t, &nr);
    unsigned char *keep = malloc(nr + 1);
    unsigned char *copy = malloc(len);
    static const unsigned char masks[] = {0x01, 0x80, 0xff};
    size_t hdr = tb_header_length(t);
    for (size_t p = 0; p < len; p += (p < hdr ? 7 : p + 16 >= len ? 1 : step)) {
        for (size_t m = 0; m < sizeof masks; m++) {
            memcpy(copy, data, len);
            copy[p] ^= masks[m];
            expect e = {0};
            long c = chunk_at(t, p);
            e.open_fails = p < hdr;
            keep_but(t, c, keep);
            e.keep = keep;
            e.damage = 1;
            put_file(copy, len);
            check(t, &e, 0, "%s byte %zu ^ 0x%02x (chunk %ld)", name, p, masks[m], c);
            if (m == 2 && p % 5 == 0)
                check(t, &e, 1, "%s byte %zu ^ 0x%02x (strict)", name, p, masks[m]);
        }
    }
    free(keep);
    free(copy);
}

static void set_le32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

typedef struct seen {
    size_t record;
    uint64_t time, offset;
} seen;

/* Insertion sort by chunk offset, keeping the order within a chunk (the
 * arrays are short and almost sorted). */
static void qsort_stable_by_offset(seen *v, size_t n)
{
    for (size_t i = 1; i < n; i++) {
        seen x = v[i];
        size_t j = i;
        while (j > 0 && v[j - 1].offset > x.offset) {
            v[j] = v[j - 1];
            j--;
        }
        v[j] = x;
    }
}

/* Payload bytes of uncompressed records chunks flipped, with the payload and
 * header CRCs recomputed (a faulty writer): the chunk is decoded as it
 * comes. The reader must not crash (ASan/UBSan watch), must return every
 * record of every other chunk, and of the flipped chunk at most its
 * record_count records, the first of which -- those that end before the
 * flipped byte -- unchanged; fewer than record_count only with the damage
 * reported. */
static void flips_recrc(tb *t, const char *name, size_t step)
{
    size_t len, nr, nc;
    const unsigned char *data = tb_data(t, &len);
    const tb_rec_info *recs = tb_records(t, &nr);
    const tb_chunk_info *c = tb_chunks(t, &nc);
    unsigned char *copy = malloc(len);
    seen *sv = malloc((nr + 1) * sizeof *sv);
    static const unsigned char masks[] = {0x01, 0x80, 0xff};
    size_t tick = 0;
    for (size_t ch = 0; ch < nc; ch++) {
        const unsigned char *h = data + c[ch].offset;
        if (c[ch].kind != 1 || h[9] != 0)
            continue;                   /* records chunks stored uncompressed */
        size_t plen = (size_t)(c[ch].length - 64);
        for (size_t pos = 0; pos < plen; pos++) {
            if (pos % step != 0 && pos + 8 < plen)
                continue;
            for (size_t m = 0; m < sizeof masks; m++) {
                if (step > 1 && (tick++ % 3) != m)
                    continue;           /* sampled: one mask per position */
                memcpy(copy, data, len);
                unsigned char *hc = copy + c[ch].offset;
                hc[64 + pos] ^= masks[m];
                set_le32(hc + 56, (uint32_t)crc32(0L, hc + 64, (uInt)plen));
                set_le32(hc + 4, (uint32_t)crc32(0L, hc + 8, 56));
                put_file(copy, len);
                cases++;
                pal_reader *r;
                if (pal_reader_open(path, NULL, &r) != PAL_OK) {
                    FAIL("%s recrc chunk %zu byte %zu: open: %s", name, ch, pos, pal_last_error());
                    continue;
                }
                reports = 0;
                pal_reader_set_diag(r, count_diag, NULL);
                const pal_record *rec;
                size_t n = 0;
                pal_status st;
                while ((st = pal_reader_next(r, &rec)) == PAL_OK && n <= nr) {
                    sv[n].record = pal_recdesc_index(pal_record_desc(rec));
                    sv[n].time = pal_record_time(rec);
                    sv[n].offset = pal_record_offset(rec);
                    n++;
                }
                pal_reader_stats s;
                pal_reader_get_stats(r, &s);
                /* The flipped chunk's records may carry wrong times, which
                 * move them among the other streams' records: compare each
                 * chunk's records in file order (a stable sort by chunk). */
                qsort_stable_by_offset(sv, n);
                /* walk the expected records chunk by chunk */
                size_t g = 0, from_flipped = 0;
                int bad = st != PAL_END;
                if (bad)
                    FAIL("%s recrc chunk %zu byte %zu ^ 0x%02x: read ended with %s", name, ch,
                         pos, masks[m], pal_status_string(st));
                for (size_t i = 0; i < nr && !bad; i++) {
                    size_t rc = recs[i].chunk;
                    if (rc != ch) {
                        if (g >= n || sv[g].offset != c[rc].offset ||
                            sv[g].record != recs[i].record || sv[g].time != recs[i].time) {
                            FAIL("%s recrc chunk %zu byte %zu ^ 0x%02x: record %zu of chunk %zu "
                                 "missing or changed", name, ch, pos, masks[m], i, rc);
                            bad = 1;
                        }
                        g++;
                        continue;
                    }
                    /* the flipped chunk: all its records returned come now */
                    if (from_flipped == 0)
                        while (g + from_flipped < n && sv[g + from_flipped].offset == c[ch].offset)
                            from_flipped++;
                    size_t k = i - c[ch].first_rec;
                    if (k == 0 && from_flipped > c[ch].count) {
                        FAIL("%s recrc chunk %zu byte %zu ^ 0x%02x: %zu records from a chunk of "
                             "%u", name, ch, pos, masks[m], from_flipped, c[ch].count);
                        bad = 1;
                    }
                    if (recs[i].end <= pos && (k >= from_flipped || sv[g + k].record !=
                                               recs[i].record || sv[g + k].time != recs[i].time)) {
                        FAIL("%s recrc chunk %zu byte %zu ^ 0x%02x: record %zu, before the flipped "
                             "byte, missing or changed", name, ch, pos, masks[m], i);
                        bad = 1;
                    }
                    if (k + 1 == c[ch].count) {
                        g += from_flipped;
                        if (from_flipped < c[ch].count && (s.damaged != 1 || reports != 1)) {
                            FAIL("%s recrc chunk %zu byte %zu ^ 0x%02x: %zu of %u records, damage "
                                 "not reported", name, ch, pos, masks[m], from_flipped,
                                 c[ch].count);
                            bad = 1;
                        }
                    }
                }
                if (!bad && g != n)
                    FAIL("%s recrc chunk %zu byte %zu ^ 0x%02x: %zu records, expected %zu", name,
                         ch, pos, masks[m], n, g);
                if (s.damaged > 1 || s.truncated || s.records != n)
                    FAIL("%s recrc chunk %zu byte %zu ^ 0x%02x: damaged %llu, truncated %d, "
                         "records %llu of %zu", name, ch, pos, masks[m],
                         (unsigned long long)s.damaged, s.truncated,
                         (unsigned long long)s.records, n);
                pal_reader_close(r);
            }
        }
    }
    free(copy);
    free(sv);
}

/* A bigger trace: many chunks, three compressions, two streams, a dictionary
 * chunk in the middle, strings of many lengths, and an index. */
static tb *big_trace(edl_dict *d)
{
    tb *t = tb_create(d);
    uint64_t time = 5000;
    char text[300];
    for (int c = 0; c < 36; c++) {
        tb_chunk_opts o = {0};
        o.compression = c % 3 == 0 ? TB_NONE : c % 3 == 1 ? TB_ZLIB : TB_ZLIB + 1;
#ifndef HAVE_ZSTD
        if (o.compression == TB_ZSTD)
            o.compression = TB_ZLIB;
#endif
        if (c == 18) {
            lab_add_alarm(d);
            tb_dict_chunk(t, TB_ZLIB);
        }
        tb_chunk_begin(t, 0, 1 + c % 2, time);
        for (int i = 0; i < 40 + c; i++) {
            time += (uint64_t)(i % 5) * 100;
            int k = (i + c) % (c >= 18 ? 5 : 4);
            if (k == 0) {
                tb_val v[] = {TB_U(time), TB_U(10), TB_U(i), TB_F(i * 0.5)};
                tb_record(t, "ping", v);
            } else if (k == 1) {
                int n = (i * 37 + c) % 200;
                memset(text, 'a' + i % 26, (size_t)n);
                text[n] = '\0';
                tb_val v[] = {TB_U(time), TB_U(20), TB_I(i % 100 - 50), TB_S(text)};
                tb_record(t, "note", v);
            } else if (k == 2) {
                tb_val v[] = {TB_U(time), TB_U(30), TB_U(i), TB_I(-i), TB_I(i * 1000),
                              TB_U((uint64_t)i << 40), TB_I(-i), TB_F(1.5), TB_U(i), TB_I(i),
                              TB_U(i), TB_I(i), TB_U(i), TB_I(-i * 99999)};
                tb_record(t, "sample", v);
            } else if (k == 3) {
                tb_val v[] = {TB_U(time), TB_U(100000), TB_U(i)};
                tb_record(t, "far", v);
            } else {
                tb_val v[] = {TB_U(time), TB_U(40), TB_U(i), TB_S("alarm!")};
                tb_record(t, "alarm", v);
            }
        }
        tb_chunk_end(t, &o);
    }
    tb_finish_index(t);
    return t;
}

/* A trace in the key-first "tick" format: LEB-only records (the readers' fast
 * paths) with LEBs of one to ten bytes and values at their types' limits,
 * mixed records, a record of the key alone, and one with two TDELTAs. */
static tb *tick_trace(edl_dict *d, int nchunks, int per)
{
    tb *t = tb_create(d);
    uint64_t time = 1;
    char text[64];
    for (int c = 0; c < nchunks; c++) {
        tb_chunk_opts o = {0};
        o.compression = c % 3 == 1 ? TB_ZLIB : TB_NONE;
#ifdef HAVE_ZSTD
        if (c % 3 == 2)
            o.compression = TB_ZSTD;
#endif
        tb_chunk_begin(t, (uint32_t)c % 2, 1 + (uint32_t)c % 3, time);
        for (int i = 0; i < per; i++) {
            int k = (i * 5 + c) % 13;
            uint64_t delta = i % 11 == 0 ? 70000 : (uint64_t)(i * 37 % 300);
            time += delta;
            if (k <= 3) {
                tb_val v[] = {TB_U(1), TB_U(time), TB_U(i % 256), TB_I(i % 256 - 128)};
                tb_record(t, "beat", v);
            } else if (k == 4) {
                tb_val v[] = {TB_U(2), TB_U(time), TB_U(i % 13 == 0 ? UINT64_MAX : (uint64_t)i << (i % 57)),
                              TB_I(i % 17 == 0 ? INT64_MIN : -((int64_t)i << (i % 50)))};
                tb_record(t, "pulse", v);
            } else if (k == 5) {
                snprintf(text, sizeof text, "%.*s", i % 40, "the quick brown fox jumps over the lazy dog");
                tb_val v[] = {TB_U(3), TB_U(time), TB_S(text), TB_F(i * 0.5)};
                tb_record(t, "label", v);
            } else if (k == 6) {
                tb_val v[] = {TB_U(4)};
                tb_record(t, "bare", v);
            } else if (k == 7) {
                tb_val v[] = {TB_U(5), TB_U(time), TB_U(time + 5)};
                tb_record(t, "clock", v);
                time += 5;      /* the running sum is at abs now */
            } else if (k == 8) {
                tb_val v[] = {TB_U(1), TB_U(time), TB_U(255), TB_I(-128)};
                tb_record(t, "beat", v);
            } else if (k == 9) {
                tb_val v[] = {TB_U(6), TB_U(time)};
                tb_record(t, "mark", v);
            } else if (k == 10) {
                tb_val v[] = {TB_U(7), TB_U(time), TB_U(i % 5 == 0 ? UINT32_MAX : ((uint64_t)i << (i % 24)) & UINT32_MAX)};
                tb_record(t, "enter", v);
            } else if (k == 11) {
                tb_val v[] = {TB_U(8), TB_U(time), TB_U((uint64_t)i * 977), TB_U(i % 3 ? 65535 : (uint64_t)i * 31)};
                tb_record(t, "span", v);
            } else {
                tb_val v[] = {TB_U(9), TB_U(time), TB_U(i % 6 ? (uint64_t)i << (i % 60) : UINT64_MAX),
                              TB_U(i), TB_U((uint64_t)i * 100 % 65536)};
                tb_record(t, "wide", v);
            }
        }
        tb_chunk_end(t, &o);
    }
    tb_finish_index(t);
    return t;
}

/* Odd records in the tick format, in the middle of a long chunk (far from its
 * end: the bounds-free loops) and as its last record (the careful tail). */
static void tick_odd(void)
{
    static const struct {
        const char *name;
        const char *bytes;
        size_t n;
        const char *why;        /* NULL: the record is fine */
    } odd[] = {
        {"uint8 ULEB 256", "\x01\x01\x80\x02\x00", 5, "field 'n': value does not fit"},
        {"uint8 ULEB 255 (fits)", "\x01\x01\xff\x01\x00", 5, NULL},
        {"int8 SLEB 200", "\x01\x01\x05\x90\x03", 5, "field 'd': value does not fit"},
        {"int8 SLEB -128 (fits)", "\x01\x01\x05\xff\x01", 5, NULL},
        {"uint16 key 70000", "\xf0\xa2\x04\x01\x05\x00", 6, "field 'kind': value does not fit"},
        {"unknown key 12", "\x0c\x01\x05\x00", 4, "unknown record key 12"},
        {"key 0", "\x00\x01\x05\x00", 4, "unknown record key 0"},
        {"11-byte LEB", "\x02\x01\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01\x00", 14,
         "field 'v': LEB128 value over 64 bits"},
        {"10-byte LEB over 64 bits", "\x02\x01\xff\xff\xff\xff\xff\xff\xff\xff\xff\x02\x00", 13,
         "field 'v': LEB128 value over 64 bits"},
        {"10-byte LEB 2^64-1 (fits)", "\x02\x01\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01\x00", 13,
         NULL},
        {"time overflow", "\x01\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01\x05\x00", 13,
         "field 'stamp': time overflows 64 bits"},
        {"string past the end", "\x03\x01\xff\xff\x03xyz", 8,
         "field 'text': record runs past the end"},
        {"overlong key 1 (fits)", "\x81\x00\x01\x05\x00", 5, NULL},
        /* the kernels for the time and ULEBs of 16 bits and more */
        {"uint32 ULEB 2^32", "\x07\x01\x80\x80\x80\x80\x10", 7, "field 'region': value does not fit"},
        {"uint32 ULEB 2^32-1 (fits)", "\x07\x01\xff\xff\xff\xff\x0f", 7, NULL},
        {"uint16 ULEB 65536 (3 bytes)", "\x08\x01\x05\x80\x80\x04", 6, "field 'b': value does not fit"},
        {"uint16 ULEB 65535 (fits)", "\x08\x01\x05\xff\xff\x03", 6, NULL},
        {"uint16 ULEB 16384 (fits)", "\x08\x01\x05\x80\x80\x01", 6, NULL},
        {"uint16 ULEB 70000, third", "\x09\x01\x01\x01\xf0\xa2\x04", 7, "field 'c': value does not fit"},
        {"uint64 ULEB 2^64-1 (fits)", "\x09\x01\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01\x01\x01",
         14, NULL},
        {"11-byte LEB after the time", "\x07\x01\x80\x80\x80\x80\x80\x80\x80\x80\x80\x80\x01", 13,
         "field 'region': LEB128 value over 64 bits"},
        {"time overflow, time alone", "\x06\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 11,
         "field 'stamp': time overflows 64 bits"},
        {"time of 3 bytes (fits)", "\x07\x81\x80\x00\x05", 5, NULL},
        {"overlong key 7 (fits)", "\x87\x00\x01\x05", 4, NULL},
    };
    for (size_t k = 0; k < sizeof odd / sizeof odd[0]; k++) {
        for (int last = 0; last < 2; last++) {
            edl_dict *d = tick_dict();
            tb *t = tb_create(d);
            uint64_t time = 10;
            int odd_chunk = 1;
            for (int c = 0; c < 3; c++) {
                tb_chunk_opts o = {0};
                tb_chunk_begin(t, 0, 1, time);
                for (int i = 0; i < 400; i++) {
                    if (c == odd_chunk && i == 200 && !last)
                        tb_bytes_raw(t, odd[k].bytes, odd[k].n);
                    tb_val v[] = {TB_U(1), TB_U(++time), TB_U(i % 100), TB_I(-3)};
                    tb_record(t, "beat", v);
                }
                if (c == odd_chunk && last)
                    tb_bytes_raw(t, odd[k].bytes, odd[k].n);
                if (c == odd_chunk) {
                    /* the builder does not see the odd record: one more record,
                     * and its time step of 1 (every odd record has one) moves
                     * the running sum, whether it comes last or in the middle */
                    o.set_count = 1;
                    o.count = 401;
                    o.set_last = 1;
                    o.last_time = time + 1;
                }
                tb_chunk_end(t, &o);
            }
            size_t len, nr;
            const unsigned char *data = tb_data(t, &len);
            tb_records(t, &nr);
            unsigned char *keep = malloc(nr);
            keep_but(t, odd[k].why ? odd_chunk : -1, keep);
            /* the chunk's CRC holds: its records before the odd one are read */
            keep_first(t, (size_t)odd_chunk, last ? 400 : 200, keep);
            expect e = {0, keep, odd[k].why != NULL};
            put_file(data, len);
            if (odd[k].why) {
                check(t, &e, 0, "tick odd record: %s%s", odd[k].name, last ? " (last)" : "");
                check(t, &e, 1, "tick odd record: %s%s (strict)", odd[k].name, last ? " (last)" : "");
                /* ...and for the right reason */
                pal_reader *r;
                if (pal_reader_open(path, NULL, &r) == PAL_OK) {
                    const pal_record *rec;
                    pal_reader_set_diag(r, NULL, NULL);
                    while (pal_reader_next(r, &rec) == PAL_OK)
                        ;
                    if (!strstr(pal_reader_error(r), odd[k].why))
                        FAIL("tick %s%s: reason '%s', expected '%s'", odd[k].name,
                             last ? " (last)" : "", pal_reader_error(r), odd[k].why);
                    pal_reader_close(r);
                }
            } else {
                /* the odd record reads: count all records, expect no damage */
                pal_reader *r;
                cases++;
                if (pal_reader_open(path, NULL, &r) != PAL_OK) {
                    FAIL("tick %s: open: %s", odd[k].name, pal_last_error());
                } else {
                    const pal_record *rec;
                    size_t n = 0;
                    reports = 0;
                    pal_reader_set_diag(r, count_diag, NULL);
                    while (pal_reader_next(r, &rec) == PAL_OK)
                        n++;
                    if (n != nr + 1 || reports)
                        FAIL("tick %s%s: %zu records (expected %zu), %lu reports: %s", odd[k].name,
                             last ? " (last)" : "", n, nr + 1, reports, pal_reader_error(r));
                    pal_reader_close(r);
                }
            }
            free(keep);
            tb_destroy(t);
            edl_dict_destroy(d);
        }
    }
}

/* A trace whose middle chunk is odd in the way `odd` says. */
typedef void (*oddity)(tb *t, tb_chunk_opts *o);

static void odd_count(tb *t, tb_chunk_opts *o) { (void)t; o->set_count = 1; o->count = 2; }
static void odd_count_hi(tb *t, tb_chunk_opts *o) { (void)t; o->set_count = 1; o->count = 4; }
static void odd_count_huge(tb *t, tb_chunk_opts *o) { (void)t; o->set_count = 1; o->count = 0xFFFFFFFFu; }
static void odd_last(tb *t, tb_chunk_opts *o) { (void)t; o->set_last = 1; o->last_time = 1; }
static void odd_extra(tb *t, tb_chunk_opts *o) { (void)t; o->extra = "\x00"; o->nextra = 1; }
static void odd_flags(tb *t, tb_chunk_opts *o) { (void)t; o->flags = 4; }
static void odd_crc(tb *t, tb_chunk_opts *o) { (void)t; o->bad_payload_crc = 1; }
static void odd_raw(tb *t, tb_chunk_opts *o) { (void)t; o->set_raw = 1; o->raw = 3; }
static void odd_zraw(tb *t, tb_chunk_opts *o) { (void)t; o->compression = TB_ZLIB; o->set_raw = 1; o->raw = 1000; }
static void odd_zraw_big(tb *t, tb_chunk_opts *o) { (void)t; o->compression = TB_ZLIB; o->set_raw = 1; o->raw = 0xFFFFFFF0u; }
static void odd_comp(tb *t, tb_chunk_opts *o) { (void)t; o->kind = 0; o->compression = 0; o->flags = 0; o->set_raw = 0; }
static void odd_key(tb *t, tb_chunk_opts *o)
{
    /* key 99 is bound to nothing */
    static const unsigned char rec[] = {0x01, 99, 0x00};
    (void)o;
    tb_bytes_raw(t, rec, sizeof rec);
}
static void odd_key_range(tb *t, tb_chunk_opts *o)
{
    /* code is uint32: 2^35 does not fit */
    static const unsigned char rec[] = {0x01, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01};
    (void)o;
    tb_bytes_raw(t, rec, sizeof rec);
}
static void odd_long_leb(tb *t, tb_chunk_opts *o)
{
    /* an 11-byte LEB */
    static const unsigned char rec[] = {0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80,
                                        0x80, 0x01, 10, 1, 0, 0, 0, 0, 0, 0, 0, 0};
    (void)o;
    tb_bytes_raw(t, rec, sizeof rec);
}
static void odd_int8(tb *t, tb_chunk_opts *o)
{
    /* note.level is int8 SLEB: zigzag(200) = 400 does not fit */
    static const unsigned char rec[] = {0x01, 20, 0x90, 0x03, 0x00};
    (void)o;
    tb_bytes_raw(t, rec, sizeof rec);
}
static void odd_tover(tb *t, tb_chunk_opts *o)
{
    /* a TDELTA that overflows 64 bits from first_time 100 */
    static const unsigned char rec[] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                                        0x01, 10, 1, 0, 0, 0, 0, 0, 0, 0, 0};
    (void)o;
    tb_bytes_raw(t, rec, sizeof rec);
}
static void odd_string(tb *t, tb_chunk_opts *o)
{
    /* a string claiming more bytes than the payload holds */
    static const unsigned char rec[] = {0x01, 20, 0x00, 0xff, 0x7f, 'x'};
    (void)o;
    tb_bytes_raw(t, rec, sizeof rec);
}

static void odd_chunks(void)
{
    /* kept: records of the odd chunk (3) still read. Oddities the header
     * shows (count beyond the payload, flags, CRC, lengths) cost the whole
     * chunk; records that do not decode as the header says cost the chunk
     * from there on (the odd bytes come after its 3 records, and the header
     * counts 3 records unless it says otherwise). */
    static const struct {
        const char *name;
        oddity fn;
        int damage;
        size_t kept;
    } odd[] = {
        {"record_count too low", odd_count, 1, 2},
        {"record_count too high", odd_count_hi, 1, 3},
        {"record_count 2^32-1", odd_count_huge, 1, 0},
        {"wrong last_time", odd_last, 1, 3},
        {"trailing payload byte", odd_extra, 1, 3},
        {"unknown flags", odd_flags, 1, 0},
        {"payload CRC", odd_crc, 1, 0},
        {"raw_length differs (uncompressed)", odd_raw, 1, 0},
        {"raw_length differs (zlib)", odd_zraw, 1, 0},
        {"raw_length 4 GiB (zlib)", odd_zraw_big, 1, 0},
        {"no oddity", odd_comp, 0, 3},
        {"unknown key", odd_key, 1, 3},
        {"key out of range", odd_key_range, 1, 3},
        {"11-byte LEB", odd_long_leb, 1, 3},
        {"int8 out of range", odd_int8, 1, 3},
        {"time overflow", odd_tover, 1, 3},
        {"string past the end", odd_string, 1, 3},
    };
    for (size_t k = 0; k < sizeof odd / sizeof odd[0]; k++) {
        edl_dict *d = lab_dict('L', EDL_FRAMING_ECL);
        tb *t = tb_create(d);
        for (int c = 0; c < 3; c++) {
            tb_chunk_opts o = {0};
            tb_chunk_begin(t, 0, 1, 100);
            for (int i = 0; i < 3; i++) {
                tb_val v[] = {TB_U(100 + i), TB_U(10), TB_U(i), TB_F(0.5)};
                tb_record(t, "ping", v);
            }
            if (c == 1)
                odd[k].fn(t, &o);
            tb_chunk_end(t, &o);
        }
        size_t len, nr;
        const unsigned char *data = tb_data(t, &len);
        tb_records(t, &nr);
        unsigned char keep[16];
        keep_but(t, odd[k].damage ? 1 : -1, keep);
        keep_first(t, 1, odd[k].kept, keep);
        expect e = {0, keep, odd[k].damage};
        put_file(data, len);
        check(t, &e, 0, "odd chunk: %s", odd[k].name);
        check(t, &e, 1, "odd chunk: %s (strict)", odd[k].name);
        tb_destroy(t);
        edl_dict_destroy(d);
    }
}

/* An unknown chunk kind is a newer writer's addition: warned about, skipped,
 * not counted as damage. */
static void unknown_kind(void)
{
    edl_dict *d = lab_dict('L', EDL_FRAMING_ECL);
    tb *t = tb_create(d);
    tb_chunk_opts o = {0};
    o.kind = 9;
    tb_chunk_begin(t, 0, 1, 100);
    tb_val v[] = {TB_U(100), TB_U(10), TB_U(1), TB_F(0.5)};
    tb_record(t, "ping", v);
    tb_chunk_end(t, &o);
    size_t len;
    const unsigned char *data = tb_data(t, &len);
    put_file(data, len);
    pal_reader *r;
    const pal_record *rec;
    cases++;
    if (pal_reader_open(path, NULL, &r) != PAL_OK) {
        FAIL("unknown kind: open: %s", pal_last_error());
    } else {
        reports = 0;
        pal_reader_set_diag(r, count_diag, NULL);
        pal_status st = pal_reader_next(r, &rec);
        pal_reader_stats s;
        pal_reader_get_stats(r, &s);
        if (st != PAL_END || s.damaged || reports != 1)
            FAIL("unknown kind: status %s, damaged %llu, reports %lu", pal_status_string(st),
                 (unsigned long long)s.damaged, reports);
        pal_reader_close(r);
    }
    tb_destroy(t);
    edl_dict_destroy(d);
}

/* Raw streams: a cut inside a record, and garbage (cannot resync: the rest is
 * skipped and reported). */
static void raw_damage(void)
{
    edl_dict *d = flat_dict();
    tb *t = tb_create_raw(d);
    for (unsigned i = 0; i < 20; i++) {
        tb_val v[] = {TB_U(i), TB_F(i), TB_S(i % 2 ? "odd" : "even one"), TB_U(10 * i)};
        tb_record(t, "row", v);
    }
    unsigned char *db;
    size_t dl, len, nr;
    if (edl_dict_encode(d, &db, &dl) != EDL_OK || tb_write_bytes("pal-damage-flat.dict", db, dl))
        exit(99);
    free(db);
    const unsigned char *data = tb_data(t, &len);
    tb_records(t, &nr);
    for (size_t cut = 0; cut <= len; cut++) {
        put_file(data, cut);
        cases++;
        pal_reader *r;
        if (pal_reader_open(path, "pal-damage-flat.dict", &r) != PAL_OK) {
            FAIL("raw cut %zu: open: %s", cut, pal_last_error());
            continue;
        }
        reports = 0;
        pal_reader_set_diag(r, count_diag, NULL);
        const pal_record *rec;
        size_t n = 0, whole = 0, off = 0;
        /* each row: 4 + 8 + 1 + len(label) + 1 (tdelta 10 < 128) */
        for (size_t i = 0; i < nr; i++) {
            size_t sz = 4 + 8 + 1 + (i % 2 ? 3 : 8) + 1;
            if (off + sz <= cut)
                whole++;
            off += sz;
        }
        while (pal_reader_next(r, &rec) == PAL_OK)
            n++;
        pal_reader_stats s;
        pal_reader_get_stats(r, &s);
        int boundary = 0;
        off = 0;
        for (size_t i = 0; i <= nr; i++) {
            if (off == cut)
                boundary = 1;
            if (i < nr)
                off += 4 + 8 + 1 + (i % 2 ? 3 : 8) + 1;
        }
        if (n != whole)
            FAIL("raw cut %zu: %zu records, expected %zu", cut, n, whole);
        if (boundary == (s.truncated || reports))
            FAIL("raw cut %zu: truncated %d reports %lu", cut, s.truncated, reports);
        pal_reader_close(r);
    }
    tb_destroy(t);
    edl_dict_destroy(d);
    unlink("pal-damage-flat.dict");
}

int main(int argc, char **argv)
{
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    const char *tmp = getenv("TMPDIR");
    (void)tmp;
    int fd = mkstemp(path);
    if (fd < 0) {
        perror("mkstemp");
        return 99;
    }
    close(fd);

    /* the small sample: every byte */
    edl_dict *d = lab_dict('B', EDL_FRAMING_ECL);
    tb *t = tb_create(d);
    lab_build_small(t, d);
    cuts(t, "small", 1);
    flips(t, "small", 1);
    flips_recrc(t, "small", 1);
    tb_destroy(t);
    edl_dict_destroy(d);

    /* a bigger trace: a sample of positions */
    d = lab_dict('L', EDL_FRAMING_ECL);
    t = big_trace(d);
    cuts(t, "big", quick ? 997 : 101);
    flips(t, "big", quick ? 997 : 257);
    flips_recrc(t, "big", quick ? 97 : 7);
    tb_destroy(t);
    edl_dict_destroy(d);

    /* key-first: the fast paths, every byte of a small one, a sample of a big one */
    d = tick_dict();
    t = tick_trace(d, 3, 30);
    cuts(t, "tick-small", 1);
    flips(t, "tick-small", 1);
    flips_recrc(t, "tick-small", 1);
    tb_destroy(t);
    edl_dict_destroy(d);
    d = tick_dict();
    t = tick_trace(d, 12, 700);
    cuts(t, "tick-big", quick ? 1999 : 211);
    flips(t, "tick-big", quick ? 1999 : 307);
    flips_recrc(t, "tick-big", quick ? 499 : 23);
    tb_destroy(t);
    edl_dict_destroy(d);
    tick_odd();

    odd_chunks();
    unknown_kind();
    raw_damage();

    unlink(path);
    printf("%lu cases, %lu failures\n", cases, failures);
    return failures ? 1 : 0;
}
