/* test_pal_share.c -- pal_reader_set_share on a trace or run given on the
 * command line: for n = 1, 2, 3, 5 and 8, the shares 0..n-1 together hold
 * every record of the whole read exactly once (as (process, stream, time,
 * type, chunk) tuples), each share's records come in time order, no
 * (process, stream) is in two shares, and share 0 of 1 reads exactly the
 * whole sequence; the event layer over the shares gives as many region
 * enters and leaves (and of each flag) as over the whole, the lanes'
 * regions being their own. Prints how many shares held records (a merged
 * trace is one stream: one share). Also the
 * refusals (k >= n, n 0, after the first read). Usage: test_pal_share
 * TRACE... */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pal/pal.h"

typedef struct tup {
    uint32_t process, stream;
    int64_t time;
    size_t type;
    uint64_t offset;
    unsigned share;     /* not compared */
} tup;

static int failures;

#define CHECK(cond, ...)                                                     \
    do {                                                                     \
        if (!(cond)) {                                                       \
            failures++;                                                      \
            fprintf(stderr, "FAIL: ");                                       \
            fprintf(stderr, __VA_ARGS__);                                    \
            fputc('\n', stderr);                                             \
        }                                                                    \
    } while (0)

static int cmp(const void *a, const void *b)
{
    const tup *x = a, *y = b;
#define C(f) if (x->f != y->f) return x->f < y->f ? -1 : 1;
    C(process) C(stream) C(time) C(type) C(offset)
#undef C
    return 0;
}

/* Reads share k of n (n 0: no share set) into *out; returns the count, or
 * (size_t)-1 when it cannot. */
static size_t read_share(char **paths, size_t np, unsigned k, unsigned n, tup **out, int *ordered)
{
    pal_reader *r = NULL;
    if (pal_reader_open_run((const char *const *)paths, np, NULL, 0, &r) != PAL_OK) {
        fprintf(stderr, "test_pal_share: %s\n", pal_last_error());
        return (size_t)-1;
    }
    if (n && pal_reader_set_share(r, k, n) != PAL_OK) {
        pal_reader_close(r);
        return (size_t)-1;
    }
    size_t cnt = 0, cap = 1024;
    tup *t = malloc(cap * sizeof *t);
    const pal_record *rec;
    pal_status st;
    int64_t last = INT64_MIN;
    *ordered = 1;
    while (t && (st = pal_reader_next(r, &rec)) == PAL_OK) {
        if (cnt == cap) {
            tup *nt = realloc(t, (cap *= 2) * sizeof *t);
            if (!nt) {
                free(t);
                t = NULL;
                break;
            }
            t = nt;
        }
        tup *u = &t[cnt++];
        u->process = pal_record_process(rec);
        u->stream = pal_record_stream(rec);
        u->time = pal_record_time_ns(rec);
        u->type = pal_recdesc_index(pal_record_desc(rec));
        u->offset = pal_record_offset(rec);
        if (u->time < last)
            *ordered = 0;
        last = u->time;
    }
    pal_reader_close(r);
    *out = t;
    return t ? cnt : (size_t)-1;
}

/* Enters and leaves of the event layer over share k of n (n 0: the whole),
 * with the unmatched ones apart; -1 when it cannot be read. */
static int region_events(char **paths, size_t np, unsigned k, unsigned n, uint64_t c[4])
{
    pal_reader *r = NULL;
    pal_events *ev = NULL;
    if (pal_reader_open_run((const char *const *)paths, np, NULL, 0, &r) != PAL_OK ||
        (n && pal_reader_set_share(r, k, n) != PAL_OK) || pal_events_create(r, &ev) != PAL_OK) {
        pal_reader_close(r);
        return -1;
    }
    const pal_event *e;
    pal_status st;
    while ((st = pal_events_next(ev, &e)) == PAL_OK)
        if (e->kind == PAL_EV_ENTER || e->kind == PAL_EV_LEAVE)
            c[(e->kind == PAL_EV_LEAVE) * 2 + ((e->flags & PAL_EVF_UNMATCHED) != 0)]++;
    pal_events_destroy(ev);
    pal_reader_close(r);
    return st == PAL_END ? 0 : -1;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: test_pal_share TRACE...\n");
        return 2;
    }
    char **paths = argv + 1;
    size_t np = (size_t)argc - 1;
    tup *all;
    int ordered;
    size_t nall = read_share(paths, np, 0, 0, &all, &ordered);
    if (nall == (size_t)-1 || nall == 0) {
        fprintf(stderr, "test_pal_share: nothing to read\n");
        return 2;
    }
    for (size_t i = 0; i < nall; i++)
        all[i].share = 0;
    tup *one;
    size_t n1 = read_share(paths, np, 0, 1, &one, &ordered);
    int whole = n1 == nall;
    for (size_t i = 0; whole && i < nall; i++)
        whole = cmp(&one[i], &all[i]) == 0;
    CHECK(whole,
          "share 0 of 1 reads the whole sequence (%zu of %zu records)", n1, nall);
    free(one);
    qsort(all, nall, sizeof *all, cmp);
    static const unsigned ns[] = {2, 3, 5, 8};
    for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++) {
        unsigned n = ns[a];
        tup *u = malloc(nall * sizeof *u);
        size_t got = 0, nonempty = 0;
        for (unsigned k = 0; k < n && u; k++) {
            tup *s;
            size_t c = read_share(paths, np, k, n, &s, &ordered);
            CHECK(c != (size_t)-1, "share %u of %u cannot be read", k, n);
            if (c == (size_t)-1)
                continue;
            CHECK(ordered, "share %u of %u: records out of time order", k, n);
            nonempty += c > 0;
            for (size_t i = 0; i < c && got + i < nall; i++) {
                u[got + i] = s[i];
                u[got + i].share = k;
            }
            got += c;
            free(s);
        }
        CHECK(got == nall, "the %u shares hold %zu records, the whole %zu", n, got, nall);
        if (u && got == nall) {
            qsort(u, got, sizeof *u, cmp);
            int same = 1;
            for (size_t i = 0; i < nall; i++) {
                same &= cmp(&u[i], &all[i]) == 0;
                /* sorted by (process, stream) first: a lane's records are
                 * together, and all of one share */
                if (i > 0 && u[i].process == u[i - 1].process &&
                    u[i].stream == u[i - 1].stream && u[i].share != u[i - 1].share) {
                    CHECK(0, "(%u, %u) in shares %u and %u of %u", u[i].process, u[i].stream,
                          u[i - 1].share, u[i].share, n);
                    break;
                }
            }
            CHECK(same, "the %u shares hold the whole's records", n);
        }
        printf("%u shares: %zu records, %zu shares not empty\n", n, got, nonempty);
        free(u);
    }
    /* the event layer over shares: regions are per lane */
    uint64_t wc[4] = {0}, parts[4] = {0};
    CHECK(region_events(paths, np, 0, 0, wc) == 0, "events of the whole");
    for (unsigned k = 0; k < 3; k++)
        CHECK(region_events(paths, np, k, 3, parts) == 0, "events of share %u of 3", k);
    CHECK(memcmp(wc, parts, sizeof wc) == 0,
          "enters %llu+%llu, leaves %llu+%llu over 3 shares; the whole: %llu+%llu, %llu+%llu",
          (unsigned long long)parts[0], (unsigned long long)parts[1],
          (unsigned long long)parts[2], (unsigned long long)parts[3],
          (unsigned long long)wc[0], (unsigned long long)wc[1],
          (unsigned long long)wc[2], (unsigned long long)wc[3]);
    CHECK(wc[0] > 0, "the trace enters regions");
    /* refusals */
    pal_reader *r = NULL;
    if (pal_reader_open_run((const char *const *)paths, np, NULL, 0, &r) == PAL_OK) {
        const pal_record *rec;
        CHECK(pal_reader_set_share(r, 2, 2) == PAL_EINVAL, "k >= n refused");
        CHECK(pal_reader_set_share(r, 0, 0) == PAL_EINVAL, "n 0 refused");
        CHECK(pal_reader_next(r, &rec) == PAL_OK, "read");
        CHECK(pal_reader_set_share(r, 0, 2) == PAL_EINVAL, "refused after the first read");
        pal_reader_close(r);
    }
    free(all);
    if (failures) {
        fprintf(stderr, "%d failures\n", failures);
        return 1;
    }
    printf("shares: all checks passed on %zu records\n", nall);
    return 0;
}
