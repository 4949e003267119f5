/* test_pal_manyfiles.c -- a run of 4,096 per-rank files read with at most
 * 256 file descriptors (RLIMIT_NOFILE lowered, soft and hard): every record
 * comes back, with its rank, in time order; a file missing from the list is
 * named and the others are read; a file removed after the open is named when
 * the reader must open it again, and the others are read. Plain C. */
#include <config.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "pal/pal.h"
#include "tests/pal/labdict.h"
#include "tests/pal/tracebuild.h"

#ifdef HAVE_ZSTD
#define HAVE_ZSTD_CODEC 1
#else
#define HAVE_ZSTD_CODEC 0
#endif
#define NFILES 4096
#define FD_LIMIT 256

static int failures;

#define CHECK(cond, ...)                                                      \
    do {                                                                      \
        if (!(cond)) {                                                        \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);              \
            fprintf(stderr, __VA_ARGS__);                                     \
            fputc('\n', stderr);                                              \
            failures++;                                                       \
        }                                                                     \
    } while (0)

static char dir[4096];
static char *paths[NFILES];

/* Records of rank k: 1 to 7, one chunk (two for every third rank, the
 * second zstd-compressed where zstd is built in, else zlib); every fifth
 * rank adds a record type in a dictionary chunk (its header's dictionary
 * is the same as the others': the reader shares it until then) and writes
 * one record of it. */
static unsigned nrec(unsigned k)
{
    return 1 + k % 7 + (k % 5 == 4);
}

static int write_rank(unsigned k)
{
    edl_dict *d = tick_dict();
    tb *t = tb_create(d);
    tb_set_header(t, (int32_t)k, NFILES, "node", 1e9);
    unsigned n = nrec(k) - (k % 5 == 4), first = k % 3 == 0 ? (n + 1) / 2 : n;
    uint64_t time = 1000 + k;
    tb_chunk_begin(t, 0, 1, time);
    for (unsigned i = 0; i < n; i++) {
        if (i == first) {
            tb_chunk_end(t, NULL);
            tb_chunk_opts o = {0};
            o.compression = HAVE_ZSTD_CODEC ? TB_ZSTD : TB_ZLIB;
            tb_chunk_begin(t, 0, 1, time);
            tb_val v[] = {TB_U(7), TB_U(time), TB_U(k)};
            tb_record(t, "enter", v);
            time += 100;
            for (i++; i < n; i++, time += 100) {
                tb_val w[] = {TB_U(7), TB_U(time), TB_U(k)};
                tb_record(t, "enter", w);
            }
            tb_chunk_end(t, &o);
            break;
        }
        tb_val v[] = {TB_U(7), TB_U(time), TB_U(k)};
        tb_record(t, "enter", v);
        time += 100;
    }
    if (k % 3 != 0 || n < 2)
        tb_chunk_end(t, NULL);
    if (k % 5 == 4) {
        edl_record *x;
        if (edl_dict_add_record(d, "extra", "added while tracing", &x) != EDL_OK ||
            edl_record_add_field(x, "kind", EDL_UINT16, EDL_ENC_ULEB, NULL, NULL) != EDL_OK ||
            edl_record_add_field(x, "stamp", EDL_UINT64, EDL_ENC_TDELTA, "ns", NULL) != EDL_OK ||
            edl_record_add_field(x, "region", EDL_UINT32, EDL_ENC_ULEB, NULL, NULL) != EDL_OK ||
            edl_dict_add_bind(d, "50", NULL, "extra") != EDL_OK)
            return -1;
        tb_dict_chunk(t, 0);
        tb_chunk_begin(t, 0, 1, time);
        tb_val v[] = {TB_U(50), TB_U(time), TB_U(k)};
        tb_record(t, "extra", v);
        tb_chunk_end(t, NULL);
    }
    tb_finish_index(t);
    int rc = tb_write(t, paths[k]);
    tb_destroy(t);
    edl_dict_destroy(d);
    return rc;
}

/* Messages of the reader, kept for the checks. */
static char said[1 << 16];
static size_t nsaid;

static void keep(void *ctx, const char *m)
{
    (void)ctx;
    size_t n = strlen(m);
    if (nsaid + n + 2 < sizeof said) {
        memcpy(said + nsaid, m, n);
        said[nsaid + n] = '\n';
        nsaid += n + 1;
        said[nsaid] = '\0';
    }
}

/* Reads the run; per rank, the records seen (-1 for a record of another
 * rank's region, or out of time order). */
static uint64_t read_run(pal_reader *r, long *per, pal_reader_stats *st)
{
    nsaid = 0;
    said[0] = '\0';
    pal_reader_set_diag(r, keep, NULL);
    const pal_record *rec;
    uint64_t got = 0, last = 0;
    pal_status s;
    while ((s = pal_reader_next(r, &rec)) == PAL_OK) {
        uint32_t p = pal_record_process(rec);
        uint64_t region = 0;
        uint64_t t = pal_record_time(rec);
        if (p >= NFILES || pal_record_get_u64(rec, "region", &region) != PAL_OK || region != p ||
            t < last)
            per[p < NFILES ? p : 0] = -1000000;
        else
            per[p]++;
        last = t;
        got++;
    }
    CHECK(s == PAL_END, "reading ended with %s: %s", pal_status_string(s), pal_reader_error(r));
    pal_reader_get_stats(r, st);
    return got;
}

static void check_counts(const long *per, unsigned skip1, unsigned skip2, const char *what)
{
    for (unsigned k = 0; k < NFILES; k++) {
        long want = k == skip1 || k == skip2 ? 0 : (long)nrec(k);
        if (per[k] != want) {
            CHECK(0, "%s: rank %u: %ld records (want %ld)", what, k, per[k], want);
            return;
        }
    }
}

int main(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/pal-many-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    uint64_t total = 0;
    for (unsigned k = 0; k < NFILES; k++) {
        char p[4200];
        snprintf(p, sizeof p, "%s/trace.%u.ecl", dir, k);
        paths[k] = strdup(p);
        if (!paths[k] || write_rank(k) != 0) {
            fprintf(stderr, "cannot write %s\n", p);
            return 1;
        }
        total += nrec(k);
    }
    /* far fewer descriptors than files, and no way to raise the limit */
    struct rlimit rl = {FD_LIMIT, FD_LIMIT};
    if (setrlimit(RLIMIT_NOFILE, &rl) != 0) {
        perror("setrlimit");
        return 1;
    }
    static long per[NFILES];
    pal_reader_stats st;

    /* 1. the directory: every record of every rank */
    pal_reader *r = NULL;
    const char *dp = dir;
    pal_status s = pal_reader_open_run(&dp, 1, NULL, 0, &r);
    CHECK(s == PAL_OK, "open run: %s", pal_last_error());
    if (r) {
        memset(per, 0, sizeof per);
        uint64_t got = read_run(r, per, &st);
        CHECK(got == total, "directory: %" PRIu64 " records, want %" PRIu64, got, total);
        CHECK(st.files == NFILES, "files %" PRIu32, st.files);
        CHECK(st.damaged == 0 && st.ranks_missing == 0 && st.files_unreadable == 0,
              "damaged %" PRIu64 ", ranks missing %" PRIu32, st.damaged, st.ranks_missing);
        check_counts(per, NFILES, NFILES, "directory");
        pal_reader_close(r);
    }

    /* 2. the list, one file missing: named, the rest read */
    unlink(paths[17]);
    r = NULL;
    s = pal_reader_open_run((const char *const *)paths, NFILES, NULL, 0, &r);
    CHECK(s == PAL_OK, "open list without rank 17: %s", pal_last_error());
    if (r) {
        memset(per, 0, sizeof per);
        uint64_t got = read_run(r, per, &st);
        CHECK(got == total - nrec(17), "list: %" PRIu64 " records, want %" PRIu64, got,
              total - nrec(17));
        CHECK(st.files == NFILES - 1 && st.files_unreadable == 1 && st.ranks_missing == 1,
              "files %" PRIu32 ", unreadable %" PRIu32 ", ranks missing %" PRIu32, st.files,
              st.files_unreadable, st.ranks_missing);
        CHECK(strstr(said, "trace.17.ecl") && strstr(said, "records are missing"),
              "the missing file is not named:\n%s", said);
        check_counts(per, 17, NFILES, "list");
        pal_reader_close(r);
    }

    /* 3. a file removed between the open and the read: the reader let its
     * descriptor go (4,096 files, 256 descriptors) and cannot open it again */
    r = NULL;
    s = pal_reader_open_run(&dp, 1, NULL, 0, &r);
    CHECK(s == PAL_OK, "open run again: %s", pal_last_error());
    if (r) {
        unlink(paths[100]);
        memset(per, 0, sizeof per);
        uint64_t got = read_run(r, per, &st);
        uint64_t want = total - nrec(17) - nrec(100);
        CHECK(got == want, "removed: %" PRIu64 " records, want %" PRIu64, got, want);
        CHECK(strstr(said, "trace.100.ecl") && strstr(said, "cannot open the trace again"),
              "the removed file is not named:\n%s", said);
        check_counts(per, 17, 100, "removed");
        pal_reader_close(r);
    }

    for (unsigned k = 0; k < NFILES; k++) {
        unlink(paths[k]);
        free(paths[k]);
    }
    rmdir(dir);
    if (failures)
        return 1;
    printf("PASS: %d files read with %d descriptors\n", NFILES, FD_LIMIT);
    return 0;
}
