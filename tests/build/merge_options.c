/* merge_options.c -- pal_merge_options carries its size: a program built
 * with an older, shorter struct passes that size and the fields it lacks
 * take their defaults; a size that does not cover the first field is
 * refused (PAL_EINVAL, with a message). Reads the per-rank traces in DIR
 * (made by tests/mpi/mktraces drift): the merge with options through
 * `compress` only pairs as many messages as the full default merge, since
 * `check` defaults to on. pal_reader_stats carries its size the same way:
 * a shorter struct gets the fields it has, nothing past them.
 * Usage: merge_options DIR */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "pal/pal.h"

static void quiet(void *ctx, const char *message)
{
    (void)ctx, (void)message;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: merge_options DIR\n");
        return 99;
    }
    char out[4096];
    snprintf(out, sizeof out, "%s/merged.ecl", argv[1]);
    const char *in[] = {argv[1]};
    int fail = 0;

    pal_merge_options full;
    pal_merge_options_default(&full);
    full.diag = quiet;
    if (full.size != sizeof full) {
        printf("FAIL: pal_merge_options_default sets size %zu, not %zu\n", full.size, sizeof full);
        fail = 1;
    }
    pal_merge_result all, re;
    if (pal_merge(in, 1, out, &full, &all) != PAL_OK || all.records == 0) {
        printf("FAIL: the default merge: %s (%llu records)\n", pal_last_error(),
               (unsigned long long)all.records);
        return 1;
    }
    /* the re-encoding merge (format 2) pairs messages; the same records */
    full.format = 2;
    if (pal_merge(in, 1, out, &full, &re) != PAL_OK || re.messages == 0 ||
        re.records != all.records) {
        printf("FAIL: the format-2 merge: %s (%llu records, %llu messages)\n", pal_last_error(),
               (unsigned long long)re.records, (unsigned long long)re.messages);
        return 1;
    }

    /* an "older" struct: size, compress; check and the rest default */
    pal_merge_options older;
    memset(&older, 0xff, sizeof older);          /* what lies past its size is not read */
    older.size = offsetof(pal_merge_options, compress) + sizeof older.compress;
    older.compress = 0;
    pal_merge_result res;
    if (pal_merge(in, 1, out, &older, &res) != PAL_OK) {
        printf("FAIL: a merge with options of size %zu: %s\n", older.size, pal_last_error());
        fail = 1;
    } else if (res.messages != all.messages || res.records != all.records) {
        printf("FAIL: size %zu: %llu records, %llu messages paired; the default merge %llu, %llu\n",
               older.size, (unsigned long long)res.records, (unsigned long long)res.messages,
               (unsigned long long)all.records, (unsigned long long)all.messages);
        fail = 1;
    } else {
        printf("options of size %zu: %llu records, %llu messages paired, as the defaults\n",
               older.size, (unsigned long long)res.records, (unsigned long long)res.messages);
    }

    /* an "older" pal_reader_stats: size and records only */
    pal_reader *r;
    if (pal_reader_open(out, NULL, &r) != PAL_OK) {
        printf("FAIL: cannot read the merged trace: %s\n", pal_last_error());
        return 1;
    }
    const pal_record *rec;
    while (pal_reader_next(r, &rec) == PAL_OK)
        ;
    pal_reader_stats rs;
    memset(&rs, 0xff, sizeof rs);
    size_t shorter = offsetof(pal_reader_stats, records) + sizeof rs.records;
    pal_reader_get_stats_sized(r, &rs, shorter);
    pal_reader_stats rfull;
    pal_reader_get_stats(r, &rfull);
    pal_reader_close(r);
    if (rs.size != shorter || rs.records != all.records || rs.chunks != UINT64_MAX ||
        rfull.size != sizeof rfull || rfull.records != all.records) {
        printf("FAIL: stats of size %zu: size %zu, records %llu, chunks %llx; full: size %zu, "
               "records %llu (want %llu)\n", shorter, rs.size, (unsigned long long)rs.records,
               (unsigned long long)rs.chunks, rfull.size, (unsigned long long)rfull.records,
               (unsigned long long)all.records);
        fail = 1;
    } else {
        printf("pal_reader_stats of size %zu: %llu records, nothing past them written\n",
               shorter, (unsigned long long)rs.records);
    }

    pal_merge_options none;
    pal_merge_options_default(&none);
    none.size = 0;
    pal_status st = pal_merge(in, 1, out, &none, &res);
    if (st != PAL_EINVAL || !strstr(pal_last_error(), "pal_merge_options_default")) {
        printf("FAIL: size 0 gives %s ('%s'), not PAL_EINVAL naming pal_merge_options_default\n",
               pal_status_string(st), pal_last_error());
        fail = 1;
    } else {
        printf("size 0: PAL_EINVAL: %s\n", pal_last_error());
    }
    unlink(out);
    return fail;
}
