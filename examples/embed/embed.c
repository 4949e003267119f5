/* embed.c -- reading a trace with PAL: list its record types and fields, then
 * read records by field name and through a handle resolved once.
 * Build: cc embed.c $(pkg-config --cflags --libs pal)   Run: ./embed TRACE [DICT] */
#include <inttypes.h>
#include <stdio.h>

#include <pal.h>

int main(int argc, char **argv)
{
    pal_reader *r;
    if (argc < 2 || pal_reader_open(argv[1], argc > 2 ? argv[2] : NULL, &r) != PAL_OK) {
        fprintf(stderr, "usage: embed TRACE [DICT]\n%s\n", pal_last_error());
        return 1;
    }
    const pal_dict *d = pal_reader_dict(r);
    pal_recdesc_iter ri;
    const pal_recdesc *rd;
    printf("%s %s\n", pal_dict_name(d), pal_dict_version(d));
    for (pal_dict_records(d, &ri); (rd = pal_recdesc_next(&ri)) != NULL;) {
        pal_field_iter fi;
        const pal_fielddesc *f;
        printf("  %s:", pal_recdesc_name(rd));
        for (pal_recdesc_fields(rd, &fi); (f = pal_field_next(&fi)) != NULL;)
            printf(" %s %s", pal_field_type_name(f), pal_field_name(f));
        printf("\n");
    }
    /* The time field by its designated name; any "region" field by a handle. */
    const char *tname = pal_dict_time_field(d);
    const pal_handle *region = NULL;
    pal_reader_handle(r, "region", &region);      /* PAL_ENOFIELD: no type has one */
    const pal_record *rec;
    uint64_t n = 0, with_region = 0, region_sum = 0, first = UINT64_MAX, last = 0, v;
    while (pal_reader_next(r, &rec) == PAL_OK) {
        if (*tname && pal_record_get_u64(rec, tname, &v) == PAL_OK) {
            first = v < first ? v : first;      /* streams interleave: min and max */
            last = v > last ? v : last;
        }
        if (region && pal_record_u64(rec, region, &v) == PAL_OK) {
            region_sum += v;
            with_region++;
        }
        n++;
    }
    printf("%" PRIu64 " records, time %" PRIu64 "..%" PRIu64 ", %" PRIu64
           " with a region (sum of ids %" PRIu64 ")\n", n, first, last, with_region, region_sum);
    pal_reader_close(r);
    return 0;
}
