/* embed.c -- a tool on PAL that knows no trace format: it lists the record
 * types and what they mean, then finds everything it needs through roles --
 * regions entered and left, calls with their duration, names of ids -- and
 * prints per region how often it ran and the time inside. The same program
 * reads ECL traces, PICL, toymp or any other described format.
 * Build: cc embed.c $(pkg-config --cflags --libs pal)   Run: ./embed TRACE [DICT] */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pal.h>

typedef struct rstat { char name[64]; uint64_t count; int64_t ns; } rstat;
typedef struct frame { uint32_t process, stream; int64_t start; size_t region; } frame;

static rstat regions[256];
static size_t nregions;
static frame stack[4096];
static size_t depth;

/* The region a record names: its REGION text, or the name its region id
 * refers to, or the id (or text) itself. */
static size_t region_of(const pal_names *names, const pal_record *rec, const pal_handle *h)
{
    char name[64], idtext[32] = "";
    const char *s = pal_recdesc_region(pal_record_desc(rec));
    size_t len = strlen(s);
    int64_t id;
    if (!*s && h && pal_names_handle(names, rec, h, &s, &len) != PAL_OK &&
        pal_record_str(rec, h, &s, &len) != PAL_OK) {
        if (pal_record_i64(rec, h, &id) == PAL_OK)
            snprintf(idtext, sizeof idtext, "#%" PRId64, id);
        s = idtext;
        len = strlen(idtext);
    }
    snprintf(name, sizeof name, "%.*s", (int)len, s);
    for (size_t i = 0; i < nregions; i++)
        if (strcmp(regions[i].name, name) == 0)
            return i;
    if (nregions == sizeof regions / sizeof regions[0])
        return nregions - 1;   /* (a demo: the last slot takes the rest) */
    snprintf(regions[nregions].name, sizeof regions[nregions].name, "%s", name);
    return nregions++;
}

int main(int argc, char **argv)
{
    pal_reader *r;
    if (argc < 2 || pal_reader_open(argv[1], argc > 2 ? argv[2] : NULL, &r) != PAL_OK) {
        fprintf(stderr, "usage: embed TRACE [DICT]\n%s\n", pal_last_error());
        return 1;
    }
    /* The record types, their fields and what they mean (no name is used below). */
    const pal_dict *d = pal_reader_dict(r);
    pal_recdesc_iter ri;
    const pal_recdesc *rd;
    printf("%s %s\n", pal_dict_name(d), pal_dict_version(d));
    for (pal_dict_records(d, &ri); (rd = pal_recdesc_next(&ri)) != NULL;) {
        pal_field_iter fi;
        const pal_fielddesc *f;
        printf("  %s [", pal_recdesc_name(rd));
        for (int role = 1; role < PAL_ROLE_LIMIT; role++)
            if (pal_recdesc_has_role(rd, (pal_record_role)role))
                printf(" %s", pal_record_role_name((pal_record_role)role));
        printf(" ]:");
        for (pal_recdesc_fields(rd, &fi); (f = pal_field_next(&fi)) != NULL;) {
            printf(" %s %s", pal_field_type_name(f), pal_field_name(f));
            if (pal_field_role_of(f))
                printf("(%s)", pal_field_role_name(pal_field_role_of(f)));
        }
        printf("\n");
    }

    /* Regions by role; a description without region fields still has
     * REGION texts (the handle is then NULL). */
    const pal_handle *region = NULL;
    if (pal_reader_role_handle(r, PAL_FROLE_REGION, &region) != PAL_OK)
        region = NULL;
    pal_names *names;
    if (pal_names_create(&names) != PAL_OK)
        return 1;
    const pal_record *rec;
    uint64_t n = 0;
    while (pal_reader_next(r, &rec) == PAL_OK) {
        n++;
        pal_names_add(names, rec);
        int64_t t = pal_record_time_ns(rec), dur;
        uint32_t p = pal_record_process(rec), s = pal_record_stream(rec);
        if (pal_record_has_role(rec, PAL_ROLE_CALL) && pal_record_duration_ns(rec, &dur) == PAL_OK) {
            size_t g = region_of(names, rec, region);
            regions[g].count++;
            regions[g].ns += dur;
        } else if (pal_record_has_role(rec, PAL_ROLE_ENTER) && depth < 4096) {
            stack[depth++] = (frame){p, s, t, region_of(names, rec, region)};
        } else if (pal_record_has_role(rec, PAL_ROLE_LEAVE)) {
            /* the innermost open region of this thread */
            for (size_t i = depth; i-- > 0;)
                if (stack[i].process == p && stack[i].stream == s) {
                    regions[stack[i].region].count++;
                    regions[stack[i].region].ns += t - stack[i].start;
                    memmove(&stack[i], &stack[i + 1], (depth - i - 1) * sizeof *stack);
                    depth--;
                    break;
                }
        }
    }
    printf("%" PRIu64 " records\n%-24s %8s %14s\n", n, "region", "count", "seconds");
    for (size_t i = 0; i < nregions; i++)
        printf("%-24s %8" PRIu64 " %14.6f\n", regions[i].name, regions[i].count,
               (double)regions[i].ns / 1e9);
    pal_names_destroy(names);
    pal_reader_close(r);
    return 0;
}
