/* damage_real.c -- one damaged spot costs at most one chunk's records, on
 * real traces written by the capture library (format 2.0): for positions all
 * over a file -- header, its copy, dictionary chunks, definitions and their
 * copies, records, end summary, index, footer -- a byte flipped and 16 bytes
 * overwritten, the trace (or the run it belongs to) is read again through
 * PAL, and optionally merged, and must give back every record but at most
 * those of one records chunk, and say that it found damage.
 *
 *   damage_real [--merge] [--step N] TRACE...
 *
 * With one TRACE it is read alone; with several (the per-rank traces of a
 * run) the first one is damaged and all are read as a run. --merge also
 * merges every damaged run and reads the merged trace back (the merge as a
 * consumer). Exit 0 when every case held, 1 otherwise, 77 when the input has
 * fewer than two records chunks (nothing to test). */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pal/pal.h"

static unsigned long reports, failures, cases;

static void count_diag(void *ctx, const char *msg)
{
    (void)ctx;
    (void)msg;
    reports++;
}

static void quiet(void *ctx, const char *msg)
{
    (void)ctx;
    (void)msg;
}

static unsigned char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *b = malloc(n > 0 ? (size_t)n : 1);
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return b;
}

static int spill(const char *path, const unsigned char *b, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(b, 1, n, f) != n) {
        if (f)
            fclose(f);
        return -1;
    }
    return fclose(f);
}

/* Reads paths (a run when n > 1): records read; *reported: damage said. */
static uint64_t read_all(const char *const *paths, size_t n, int *reported, uint64_t *maxchunk)
{
    pal_reader *r;
    if (pal_reader_open_run(paths, n, NULL, 0, &r) != PAL_OK) {
        *reported = 1;
        return 0;
    }
    reports = 0;
    pal_reader_set_diag(r, count_diag, NULL);
    const pal_record *rec;
    uint64_t got = 0, cur = UINT64_MAX, run = 0, proc = 0;
    /* records per chunk: a chunk's records come together only when one
     * stream is read; the maximum is taken over runs of one (process, chunk) */
    while (pal_reader_next(r, &rec) == PAL_OK) {
        got++;
        if (maxchunk) {
            if (pal_record_offset(rec) == cur && pal_record_process(rec) == proc) {
                run++;
            } else {
                cur = pal_record_offset(rec);
                proc = pal_record_process(rec);
                run = 1;
            }
            if (run > *maxchunk)
                *maxchunk = run;
        }
    }
    pal_reader_stats st;
    pal_reader_get_stats(r, &st);
    *reported = reports > 0 || st.damaged || st.truncated;
    pal_reader_close(r);
    return got;
}

/* The records per chunk of an intact file, by walking it alone chunk by
 * chunk (records of one chunk share its offset and process). */
static uint64_t max_chunk_records(const char *path)
{
    pal_reader *r;
    if (pal_reader_open(path, NULL, &r) != PAL_OK)
        return 0;
    pal_reader_set_diag(r, quiet, NULL);
    /* count per offset: offsets are few; a small open-addressing table */
    size_t cap = 1 << 16;
    uint64_t *key = calloc(cap, sizeof *key), *cnt = calloc(cap, sizeof *cnt);
    const pal_record *rec;
    uint64_t best = 0;
    while (key && cnt && pal_reader_next(r, &rec) == PAL_OK) {
        uint64_t k = pal_record_offset(rec) + 1;
        size_t i = (size_t)(k * 0x9E3779B97F4A7C15ull >> 48) & (cap - 1);
        while (key[i] && key[i] != k)
            i = (i + 1) & (cap - 1);
        key[i] = k;
        if (++cnt[i] > best)
            best = cnt[i];
    }
    free(key);
    free(cnt);
    pal_reader_close(r);
    return best;
}

static uint64_t merged_records(const char *const *paths, size_t n, const char *out)
{
    pal_merge_options o;
    pal_merge_options_default(&o);
    o.diag = quiet;
    pal_merge_result res;
    if (pal_merge(paths, n, out, &o, &res) != PAL_OK)
        return 0;
    int rep;
    uint64_t got = read_all(&out, 1, &rep, NULL);
    unlink(out);
    return got == res.records ? got : 0;
}

int main(int argc, char **argv)
{
    int merge = 0;
    size_t step = 0;
    int a = 1;
    for (; a < argc && argv[a][0] == '-'; a++) {
        if (strcmp(argv[a], "--merge") == 0)
            merge = 1;
        else if (strcmp(argv[a], "--step") == 0 && a + 1 < argc)
            step = (size_t)strtoul(argv[++a], NULL, 10);
        else
            break;
    }
    if (a >= argc) {
        fprintf(stderr, "usage: damage_real [--merge] [--step N] TRACE...\n");
        return 1;
    }
    size_t n = (size_t)(argc - a);
    char dir[] = "/tmp/ecl-damage-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    /* copies of the inputs; the first is the one damaged */
    char **paths = calloc(n, sizeof *paths);
    unsigned char *orig = NULL;
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        size_t l;
        unsigned char *b = slurp(argv[a + i], &l);
        paths[i] = malloc(strlen(dir) + 32);
        snprintf(paths[i], strlen(dir) + 32, "%s/trace.%zu.ecl", dir, i);
        if (!b || spill(paths[i], b, l) != 0) {
            fprintf(stderr, "damage_real: cannot copy '%s'\n", argv[a + i]);
            return 1;
        }
        if (i == 0) {
            orig = b;
            len = l;
        } else {
            free(b);
        }
    }
    char mout[64];
    snprintf(mout, sizeof mout, "%s/merged.ecl", dir);
    int rep;
    uint64_t maxc = 0;
    uint64_t base = read_all((const char *const *)paths, n, &rep, NULL);
    for (size_t i = 0; i < n; i++) {
        uint64_t m = max_chunk_records(paths[i]);
        if (m > maxc)
            maxc = m;
    }
    if (rep) {
        fprintf(stderr, "damage_real: the intact input reports damage\n");
        return 1;
    }
    uint64_t mbase = merge ? merged_records((const char *const *)paths, n, mout) : 0;
    if (merge && mbase != base) {
        fprintf(stderr, "damage_real: the intact run merges into %llu records, not %llu\n",
                (unsigned long long)mbase, (unsigned long long)base);
        return 1;
    }
    printf("damage_real: %llu records, at most %llu per chunk, %zu bytes damaged in '%s'\n",
           (unsigned long long)base, (unsigned long long)maxc, len, argv[a]);
    if (base < 2 * maxc) {
        printf("damage_real: fewer than two chunks of records: nothing to test\n");
        return 77;
    }
    if (step == 0)
        step = len / 1500 + 1;
    unsigned char *copy = malloc(len);
    for (size_t p = 0; p < len; p += (p < 4096 || p + 64 >= len ? 3 : step)) {
        for (int kind = 0; kind < 2; kind++) {
            memcpy(copy, orig, len);
            if (kind == 0) {
                copy[p] ^= 0xFF;
            } else {
                size_t k = len - p < 16 ? len - p : 16;
                memset(copy + p, 0xA5, k);
                if (memcmp(copy + p, orig + p, k) == 0)
                    continue;
            }
            spill(paths[0], copy, len);
            cases++;
            uint64_t got = read_all((const char *const *)paths, n, &rep, NULL);
            const char *what = kind ? "16 bytes overwritten" : "byte flipped";
            if (got + maxc < base || got > base) {
                fprintf(stderr, "FAIL: %s at byte %zu: %llu of %llu records read (at most %llu "
                        "may be lost)\n", what, p, (unsigned long long)got,
                        (unsigned long long)base, (unsigned long long)maxc);
                failures++;
            } else if (!rep) {
                fprintf(stderr, "FAIL: %s at byte %zu: no damage reported\n", what, p);
                failures++;
            }
            if (merge && p % (7 * step) < 3) {
                uint64_t mgot = merged_records((const char *const *)paths, n, mout);
                if (mgot + maxc < base || mgot > base) {
                    fprintf(stderr, "FAIL: %s at byte %zu: the merge keeps %llu of %llu "
                            "records\n", what, p, (unsigned long long)mgot,
                            (unsigned long long)base);
                    failures++;
                }
            }
        }
    }
    spill(paths[0], orig, len);
    for (size_t i = 0; i < n; i++) {
        unlink(paths[i]);
        free(paths[i]);
    }
    rmdir(dir);
    free(paths);
    free(orig);
    free(copy);
    printf("damage_real: %lu cases, %lu failures\n", cases, failures);
    return failures ? 1 : 0;
}
