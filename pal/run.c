/* run.c -- PAL: the per-rank traces of one run read as one stream (as OTF2's
 * global reader does): the files of a directory or a list, checked to belong
 * together, each with a linear map from its clock to nanoseconds of rank 0's
 * clock (the one clock model: offset and drift from the MPI layer's clock
 * measurements), and one dictionary for the run in which every record type
 * has one descriptor. The merge (merge.c) is this stream written back. */
#include <config.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pal/decode.h"
#include "pal/reader-internal.h"

/* ---------------------------------------------------------------- inputs */

/* The files to open, and where each came from: dir[i] is the input (the
 * index in the caller's paths) that is a directory holding it, IN_GIVEN a
 * file given by its path, IN_UNCHECKED a path given among many, not
 * stat'ed (one system call per file less): if its open finds a directory,
 * the inputs are listed again with every path stat'ed. */
enum { IN_GIVEN = -1, IN_UNCHECKED = -2 };

typedef struct namelist {
    char **v;
    long *dir;
    size_t n, cap;
} namelist;

static int names_add(namelist *l, const char *a, const char *b, long dir)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        char **nv = realloc(l->v, cap * sizeof *nv);
        if (!nv)
            return -1;
        l->v = nv;
        long *nd = realloc(l->dir, cap * sizeof *nd);
        if (!nd)
            return -1;
        l->dir = nd;
        l->cap = cap;
    }
    l->dir[l->n] = dir;
    size_t la = strlen(a), lb = b ? strlen(b) : 0;
    char *s = malloc(la + lb + 2);
    if (!s)
        return -1;
    memcpy(s, a, la);
    if (b) {
        s[la] = '/';
        memcpy(s + la + 1, b, lb + 1);
    } else {
        s[la] = '\0';
    }
    l->v[l->n++] = s;
    return 0;
}

/* The list owns its strings and its array; freeing leaves it empty, so
 * that freeing it again (on a later failure path) is harmless. */
static void names_free(namelist *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    free(l->dir);
    l->v = NULL;
    l->dir = NULL;
    l->n = l->cap = 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The *.ecl files of directory dir (the caller's input `in`), by name
 * (partial outputs, *.tmp.*, left out). Nothing opens them here: a merged
 * trace among them is found by its header when the run opens it (one open
 * per file). */
static pal_status list_dir(const char *dir, long in, namelist *l)
{
    DIR *d = opendir(dir);
    if (!d) {
        pal_set_last_error("cannot open run directory '%s': %s", dir, strerror(errno));
        return PAL_EIO;
    }
    size_t first = l->n;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name);
        if (n < 5 || strcmp(e->d_name + n - 4, ".ecl") != 0 || strstr(e->d_name, ".tmp."))
            continue;
        if (names_add(l, dir, e->d_name, in) != 0) {
            closedir(d);
            pal_set_last_error("cannot open run directory '%s': out of memory", dir);
            return PAL_ENOMEM;
        }
    }
    closedir(d);
    if (l->n == first) {
        pal_set_last_error("cannot open run directory '%s': no trace (*.ecl) in it", dir);
        return PAL_EIO;
    }
    qsort(l->v + first, l->n - first, sizeof *l->v, by_name);
    return PAL_OK;
}

/* A merged trace (doc/trace-format.md, "Merged traces"), from its header:
 * version 3 is one; version 2 says so in its flags; version 1 merges have
 * pid 0 and rank -1 (intact: reader-internal.h). */
int pal_run_is_merged_header(const uint8_t *b, size_t n, int intact)
{
    if (ecc_run_is(b, n))
        return 1;
    ecc_file_header h;
    uint64_t at;
    if (ecc_file_header_decode_fixed(b, n, &h, &at) != NULL)
        return 0;
    if (intact && (h.header_length > n || ecc_file_header_check_crc(b, &h) != NULL))
        return 0;                    /* a damaged flag makes no merged trace */
    if (h.version_major >= 2)
        return (h.flags & ECC_HFLAG_MERGED) != 0;
    return h.pid == 0 && h.rank == -1;
}

/* The same of the file at path. */
int pal_run_is_merged(const char *path)
{
    /* (one open and one read: no stdio buffer, no fstat) */
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    uint8_t b[ECC_HEADER_FIXED];
    ssize_t got = fd >= 0 ? pread(fd, b, sizeof b, 0) : -1;
    size_t n = got > 0 ? (size_t)got : 0;
    if (fd >= 0)
        close(fd);
    return pal_run_is_merged_header(b, n, 0);
}

/* The directory of the file path, where path is the first of several
 * files there (next the path of the one after it, or NULL): open as r's
 * at_fd, its files are opened relative to it (the directory's path walked
 * once, not once per file). The one before is closed. */
static void at_dir(pal_reader *r, const char *path, const char *next)
{
    if (r->at_len > 0 && strncmp(path, r->at_dir, r->at_len) == 0 && path[r->at_len] == '/' &&
        !strchr(path + r->at_len + 1, '/'))
        return;                      /* the same directory */
    const char *slash = strrchr(path, '/');
    size_t n = slash ? (size_t)(slash - path) : 0;
    if (r->at_len > 0)
        close(r->at_fd);
    r->at_len = 0;
    const char *ns = next ? strrchr(next, '/') : NULL;
    if (n == 0 || !ns || (size_t)(ns - next) != n || strncmp(path, next, n) != 0)
        return;                      /* alone in its directory: opened by its path */
    char *d = strndup(path, n);
#ifdef O_PATH
    int fd = d ? open(d, O_PATH | O_DIRECTORY | O_CLOEXEC) : -1;
#else
    int fd = d ? open(d, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1;
#endif
    free(d);
    if (fd < 0)
        return;
    r->at_fd = fd;
    r->at_len = n;
    r->at_dir = path;
}

/* Enough file descriptors for n files kept open and as many more: a
 * reader keeps open at most half of what the process may have (reader.c,
 * lru_add), and a run read in time order turns to every file in turn, so
 * fewer than n would have each reopened at each of its chunks. */
static void raise_fd_limit(size_t n)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return;
    rlim_t want = 2 * (rlim_t)n + 64;
    if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < want) {
        rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > want ? want : rl.rlim_max;
        (void)setrlimit(RLIMIT_NOFILE, &rl);
    }
}

/* ---------------------------------------------------------------- clocks */

/* The MPI layer's clock measurements (its `mpi_clock` records, on the
 * definitions stream): phase 0 at MPI_Init, 1 at MPI_Finalize, each the
 * local clock, rank 0's clock read at the same moment, rank 0's ticks per
 * second and the round trip of the measurement. */
void pal_run_read_clock(pal_reader *r, pal_src *src)
{
    const pal_recdesc *clk = pal_dict_find_record(src->dict, "mpi_clock");
    if (!clk)
        return;
    long f_phase = pal_field_lookup(clk, "phase"), f_local = pal_field_lookup(clk, "local"),
         f_ref = pal_field_lookup(clk, "ref"), f_tps = pal_field_lookup(clk, "ref_tps"),
         f_rtt = pal_field_lookup(clk, "rtt");
    if (f_phase < 0 || f_local < 0 || f_ref < 0 || f_tps < 0 || f_rtt < 0 ||
        clk->fields[f_tps].tclass != PAL_TC_FLOAT)
        return;
    size_t nv = src->dict->max_fields ? src->dict->max_fields : 1;
    pal_value *vals = calloc(nv, sizeof *vals);
    uint32_t *lens = calloc(nv, sizeof *lens);
    int fd = pal_src_fd(r, src);
    for (pal_stream *s = src->streams; fd >= 0 && vals && lens && s; s = s->src_next) {
        if (s->stream != 0)
            continue;
        for (size_t c = 0; c < s->nchunks; c++) {
            uint8_t hb[ECC_CHUNK_HEADER];
            ecc_event ev;
            memset(&ev, 0, sizeof ev);
            ev.offset = s->chunks[c];
            if (pal_src_read_at(r, src, hb, sizeof hb, ev.offset) != 0 ||
                ecc_chunk_decode(hb, &ev.chunk) != NULL ||
                ecc_chunk_check(&ev.chunk, src->hdr.version_major) != NULL ||
                ev.chunk.raw_length > ((uint32_t)1 << 24))
                continue;            /* damage: reported when the stream is read */
            uint8_t *st = malloc(ev.chunk.stored_length + 1);
            uint8_t *raw = malloc(ev.chunk.raw_length + 1);
            if (st && raw && pal_src_payload(r, src, &ev, st) == NULL &&
                ecc_decompress(ev.chunk.compression, st, ev.chunk.stored_length, raw,
                               ev.chunk.raw_length) == NULL) {
                const unsigned char *p = raw, *end = raw + ev.chunk.raw_length;
                uint64_t t = ev.chunk.first_time;
                for (uint32_t k = 0; k < ev.chunk.record_count && p < end; k++) {
                    const pal_recdesc *rd;
                    if (pal_decode_record(src->dict, &p, end, &t, vals, lens, &rd, NULL) !=
                        PAL_DEC_OK)
                        break;
                    if (rd != clk)
                        continue;
                    int ph = vals[f_phase].u ? 1 : 0;
                    src->have_sync[ph] = 1;
                    src->sync_local[ph] = vals[f_local].u;
                    src->sync_ref[ph] = vals[f_ref].u;
                    src->sync_ref_tps = vals[f_tps].f;
                    src->sync_rtt[ph] = vals[f_rtt].u;
                }
            }
            free(st);
            free(raw);
        }
    }
    free(vals);
    free(lens);
}

/* How a source's clock was mapped, by ECC_CLOCK_* code (the run file keeps the code). */
static const char *const clock_names[] = {
    "reference",
    "same clock as rank 0",
    "offset and drift corrected",
    "offset corrected at MPI_Init, drift not corrected",
    "offset corrected at MPI_Finalize, drift not corrected",
    "no clock measurement: aligned by the wall clock only",
    "wall clock (rank 0 missing)",
};

static void set_how(pal_src *f, unsigned code)
{
    f->clock_code = (uint8_t)code;
    f->clock_how = code < sizeof clock_names / sizeof *clock_names ? clock_names[code]
                                                                    : "unknown clock model";
}

/* ns of rank 0's clock for source f. Chooses, in order: the same counter as
 * rank 0 (same host and clock, measurements agreeing to within the round
 * trip), two measurements (offset and drift), one (offset), none (the wall
 * clock of the headers). Returns 1 when the choice is a fallback. */
static int clock_map(pal_reader *r, pal_src *f, const pal_src *r0)
{
    double ftps = f->hdr.ticks_per_second;
    double tps0 = r0 != NULL ? r0->hdr.ticks_per_second : f->sync_ref_tps;
    f->t0 = f->hdr.start_time;
    f->mapped = 1;
    if (r0 == NULL || !(tps0 > 0)) {
        f->b = 1e9 / ftps;
        f->g0 = (double)f->hdr.realtime_offset_ns + f->b * (double)f->t0;
        set_how(f, ECC_CLOCK_NO_RANK0);
        return 1;
    }
    double k = 1e9 / tps0;
    if (f == r0) {
        f->b = k;
        f->g0 = k * (double)f->t0;
        set_how(f, ECC_CLOCK_REFERENCE);
        return 0;
    }
    int same = strcmp(f->hdr.host, r0->hdr.host) == 0 &&
               f->hdr.clock_source == r0->hdr.clock_source && f->hdr.clock_source >= 1 &&
               f->hdr.clock_source <= 3;
    for (int ph = 0; ph < 2 && same; ph++) {
        if (!f->have_sync[ph])
            continue;
        double d = fabs((double)(int64_t)(f->sync_local[ph] - f->sync_ref[ph]));
        same = d <= (double)f->sync_rtt[ph] / 2 + tps0 * 1e-6;
    }
    if (same) {
        f->b = k;
        f->g0 = k * (double)f->t0;
        set_how(f, ECC_CLOCK_SAME);
        return 0;
    }
    if (f->have_sync[0] && f->have_sync[1] && f->sync_local[1] > f->sync_local[0]) {
        double s = (double)(int64_t)(f->sync_ref[1] - f->sync_ref[0]) /
                   (double)(f->sync_local[1] - f->sync_local[0]);
        double nominal = tps0 / ftps;
        if (s > 0.5 * nominal && s < 2 * nominal) {
            f->b = s * k;
            f->g0 = k * ((double)f->sync_ref[0] +
                         s * (double)(int64_t)(f->t0 - f->sync_local[0]));
            set_how(f, ECC_CLOCK_DRIFT);
            return 0;
        }
        pal_reader_note(r, "%s (rank %d): the two clock measurements disagree (drift %.3g); "
                        "using the first only", f->path, (int)f->hdr.rank, s / nominal - 1);
    }
    for (int ph = 0; ph < 2; ph++) {
        if (!f->have_sync[ph])
            continue;
        double s = tps0 / ftps;
        f->b = s * k;
        f->g0 = k * ((double)f->sync_ref[ph] + s * (double)(int64_t)(f->t0 - f->sync_local[ph]));
        set_how(f, ph == 0 ? ECC_CLOCK_INIT : ECC_CLOCK_FINALIZE);
        return 1;
    }
    f->b = 1e9 / ftps;
    f->g0 = (double)(f->hdr.realtime_offset_ns - r0->hdr.realtime_offset_ns) + f->b * (double)f->t0;
    set_how(f, ECC_CLOCK_WALL);
    return 1;
}

static double map_ns(const pal_src *f, uint64_t t)
{
    return f->g0 + f->b * (double)(int64_t)(t - f->t0);
}

/* ---------------------------------------------------------------- the run's dictionary */

static int same_fields(const edl_record *a, const edl_record *b)
{
    size_t n = edl_record_field_count(a);
    if (n != edl_record_field_count(b))
        return 0;
    for (size_t i = 0; i < n; i++) {
        const edl_field *x = edl_record_field(a, i), *y = edl_record_field(b, i);
        if (strcmp(edl_field_name(x), edl_field_name(y)) != 0 ||
            edl_field_type(x) != edl_field_type(y) ||
            edl_field_encoding(x) != edl_field_encoding(y) ||
            strcmp(edl_field_unit(x), edl_field_unit(y)) != 0)
            return 0;
    }
    return 1;
}

typedef struct rtype {
    char *name;
    const edl_record *src;           /* first definition seen */
    uint64_t id;                     /* bind key, or UINT64_MAX before one is chosen */
} rtype;

typedef struct rtypes {
    rtype *t;
    size_t n, cap;
} rtypes;

static long rtypes_find(const rtypes *m, const char *name)
{
    for (size_t i = 0; i < m->n; i++)
        if (strcmp(m->t[i].name, name) == 0)
            return (long)i;
    return -1;
}

/* The bind key of record r in dictionary d (one numeric key), or UINT64_MAX. */
static uint64_t key_of(const edl_dict *d, const edl_record *r)
{
    for (size_t b = 0; b < edl_dict_bind_count(d); b++) {
        edl_bind bd = edl_dict_bind(d, b);
        if (bd.key2 == NULL && edl_dict_record(d, bd.record) == r) {
            char *end;
            unsigned long long id = strtoull(bd.key1, &end, 10);
            if (*end == '\0')
                return id;
        }
    }
    return UINT64_MAX;
}

static int id_taken(const rtypes *m, uint64_t id)
{
    for (size_t i = 0; i < m->n; i++)
        if (m->t[i].id == id)
            return 1;
    return 0;
}

/* The run's type for record r of source f: by name; a name whose fields
 * differ between files becomes "<name>_p<process>". -1 on no memory. */
static long run_type(pal_reader *r, rtypes *m, const pal_src *f, const edl_record *er,
                     int *renamed)
{
    char name[300];
    snprintf(name, sizeof name, "%s", edl_record_name(er));
    long i = rtypes_find(m, name);
    if (i >= 0 && !same_fields(m->t[i].src, er)) {
        *renamed = 1;
        snprintf(name, sizeof name, "%s_p%u", edl_record_name(er), (unsigned)f->process);
        if ((i = rtypes_find(m, name)) < 0)
            pal_reader_note(r, "%s (process %u): record type '%s' has other fields than in "
                            "other files; it is called '%s' here", f->path,
                            (unsigned)f->process, edl_record_name(er), name);
    }
    if (i >= 0)
        return i;
    if (m->n == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 64;
        rtype *nt = realloc(m->t, cap * sizeof *nt);
        if (!nt)
            return -1;
        m->t = nt;
        m->cap = cap;
    }
    /* ids stay when free: the native and MPI records keep theirs */
    uint64_t id = key_of(f->dict->ed, er);
    if (id == UINT64_MAX || id_taken(m, id)) {
        for (id = ECC_TYPE_USER_FIRST; id_taken(m, id); id++)
            ;
    }
    rtype *t = &m->t[m->n];
    t->name = strdup(name);
    t->src = er;
    t->id = id;
    if (!t->name)
        return -1;
    return (long)m->n++;
}

/* A field of the run's record: ticks become ns. */
static int is_ticks(const edl_field *fd)
{
    return strcmp(edl_field_unit(fd), "ticks") == 0;
}

static edl_dict *build_dict(const rtypes *m, const char *time_field, const edl_dict *like)
{
    edl_ref process_ref = edl_dict_designation_ref(like, EDL_FROLE_PROCESS);
    edl_ref thread_ref = edl_dict_designation_ref(like, EDL_FROLE_THREAD);
    edl_dict *d = NULL;
    char bo = 'L';
    uint16_t probe = 1;
    if (*(const uint8_t *)&probe == 0)
        bo = 'B';
    if (edl_dict_create("ecl_run", "1.0", EDL_REPR_BINARY, &d) != EDL_OK ||
        edl_dict_set_binary(d, bo, EDL_FRAMING_ECL) != EDL_OK ||
        edl_dict_set_roles(d, time_field, "ns", "", "") != EDL_OK ||
        edl_dict_set_key(d, 1, 0, EDL_NO_KEY) != EDL_OK ||
        edl_dict_set_designation_ref(d, EDL_FROLE_PROCESS, &process_ref) != EDL_OK ||
        edl_dict_set_designation_ref(d, EDL_FROLE_THREAD, &thread_ref) != EDL_OK)
        goto fail;
    for (size_t i = 0; i < m->n; i++) {
        const edl_record *s = m->t[i].src;
        edl_record *r;
        if (edl_dict_add_record(d, m->t[i].name, edl_record_description(s), &r) != EDL_OK)
            goto fail;
        for (size_t k = 0; k < edl_record_field_count(s); k++) {
            const edl_field *fd = edl_record_field(s, k);
            const char *unit = is_ticks(fd) ? "ns" : edl_field_unit(fd);
            if (edl_record_add_field(r, edl_field_name(fd), edl_field_type(fd),
                                     edl_field_encoding(fd), unit,
                                     edl_field_description(fd)) != EDL_OK)
                goto fail;
        }
        /* what the record means, as its files say (doc/edl.md, "Roles") */
        if (edl_record_copy_meaning(r, s) != EDL_OK)
            goto fail;
    }
    for (size_t i = 0; i < m->n; i++) {
        char key[24];
        snprintf(key, sizeof key, "%" PRIu64, m->t[i].id);
        if (edl_dict_add_bind(d, key, NULL, m->t[i].name) != EDL_OK)
            goto fail;
    }
    return d;
fail:
    edl_dict_destroy(d);
    return NULL;
}

pal_status pal_run_prepare(pal_reader *r)
{
    rtypes m = { NULL, 0, 0 };
    pal_status st = PAL_ENOMEM;
    const char *time_field = edl_dict_time_field(r->srcs[0].dict->ed);
    /* the files of a run mostly share one dictionary (r->dcache): the first
     * file of each maps its types by name, and the others whose dictionary
     * is the same object map them alike -- the same records looked up in
     * the same table -- unless a type of that first file was renamed (the
     * new name is per process). like[i]: that first file, or -1. */
    long *like = malloc((r->nsrcs ? r->nsrcs : 1) * sizeof *like);
    long *firsts = malloc((r->nsrcs ? r->nsrcs : 1) * sizeof *firsts);
    size_t nfirst = 0;
    if (!like || !firsts)
        goto out;
    for (size_t i = 0; i < r->nsrcs; i++) {
        pal_src *f = &r->srcs[i];
        const edl_dict *d = f->dict->ed;
        if (!(f->map = calloc(f->dict->nrecs ? f->dict->nrecs : 1, sizeof *f->map)))
            goto out;
        f->nmap = f->dict->nrecs;
        like[i] = -1;
        for (size_t j = nfirst; j-- > 0 && like[i] < 0;)
            if (r->srcs[firsts[j]].dict == f->dict)
                like[i] = firsts[j];
        if (like[i] >= 0)
            continue;
        int renamed = 0;
        for (size_t k = 0; k < edl_dict_record_count(d); k++)
            if (run_type(r, &m, f, edl_dict_record(d, k), &renamed) < 0)
                goto out;
        if (!renamed)
            firsts[nfirst++] = (long)i;
    }
    edl_dict *ed = build_dict(&m, time_field, r->srcs[0].dict->ed);
    if (!ed)
        goto out;
    char err[256];
    if ((st = pal_dict_wrap(ed, &r->dict, err, sizeof err)) != PAL_OK)
        goto out;
    r->dict->ns_per_tick = 1;
    for (size_t i = 0; i < r->nsrcs; i++) {
        pal_src *f = &r->srcs[i];
        const edl_dict *d = f->dict->ed;
        if (like[i] >= 0) {
            memcpy(f->map, r->srcs[like[i]].map, f->nmap * sizeof *f->map);
            continue;
        }
        int renamed = 0;
        for (size_t k = 0; k < f->nmap; k++) {
            long t = run_type(r, &m, f, edl_dict_record(d, k), &renamed);
            pal_recdesc *to = r->dict->recs[t];
            f->map[k] = to;
            const edl_record *er = edl_dict_record(d, k);
            for (size_t j = 0; j < to->nfields && j < edl_record_field_count(er); j++)
                if (is_ticks(edl_record_field(er, j)) && (long)j != to->time_fi) {
                    to->fields[j].from_ticks = 1;
                    if (j < 64)
                        to->ticks_mask |= (uint64_t)1 << j;
                    else
                        to->ticks_more = 1;
                }
        }
    }
    st = PAL_OK;
out:
    for (size_t i = 0; i < m.n; i++)
        free(m.t[i].name);
    free(m.t);
    free(like);
    free(firsts);
    return st;
}

/* ---------------------------------------------------------------- open */

static int same_run_id(const uint8_t *a, const uint8_t *b)
{
    return memcmp(a, b, ECC_RUN_ID) == 0;
}

static int run_id_known(const uint8_t *a)
{
    for (int i = 0; i < ECC_RUN_ID; i++)
        if (a[i])
            return 1;
    return 0;
}

static void run_id_text(const uint8_t *id, char *out)
{
    for (int i = 0; i < 6; i++)
        snprintf(out + 2 * i, 3, "%02x", id[i]);
}

/* Ranks below size without a source are said. */
static void note_missing(pal_reader *r, int32_t size, const char *where)
{
    uint8_t *have = calloc(size > 0 ? (size_t)size : 1, 1);
    for (size_t i = 0; have && i < r->nsrcs; i++)
        if (r->srcs[i].hdr.rank >= 0 && r->srcs[i].hdr.rank < size)
            have[r->srcs[i].hdr.rank] = 1;
    for (int32_t k = 0; have && k < size; k++) {
        if (have[k])
            continue;
        r->st.ranks_missing++;
        pal_reader_note(r, "rank %d: no trace %s: its records are missing", (int)k, where);
    }
    free(have);
}

/* Streams carry the process of their file. */
static void streams_take_process(pal_reader *r)
{
    for (size_t i = 0; i < r->nstreams; i++) {
        pal_stream *s = r->streams[i];
        s->process = s->src->process;
        s->key = (uint64_t)s->process << 32 | s->stream;
    }
}

/* Two files of one rank: the first file (in input order) whose rank an
 * earlier file has, named with the earliest of those. By sorting (rank,
 * file), not comparing every pair: 4,096 files cost 8 M comparisons. */
typedef struct {
    int32_t rank;
    uint32_t file;
} rank_file;

static int by_rank_file(const void *a, const void *b)
{
    const rank_file *x = a, *y = b;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    return x->file < y->file ? -1 : x->file > y->file;
}

static pal_status ranks_unique(pal_reader *r)
{
    rank_file *v = malloc((r->nsrcs ? r->nsrcs : 1) * sizeof *v);
    if (!v) {
        pal_set_last_error("cannot open traces: out of memory");
        return PAL_ENOMEM;
    }
    size_t n = 0;
    for (size_t i = 0; i < r->nsrcs; i++)
        if (r->srcs[i].hdr.rank >= 0)
            v[n++] = (rank_file){ r->srcs[i].hdr.rank, (uint32_t)i };
    qsort(v, n, sizeof *v, by_rank_file);
    size_t first = SIZE_MAX, dup = SIZE_MAX;   /* of the earliest second file */
    for (size_t k = 1, g = 0; k < n; k++) {
        if (v[k].rank != v[g].rank) {
            g = k;
        } else if (k == g + 1 && (dup == SIZE_MAX || v[k].file < dup)) {
            dup = v[k].file;
            first = v[g].file;
        }
    }
    free(v);
    if (dup == SIZE_MAX)
        return PAL_OK;
    pal_set_last_error("cannot read '%s' with '%s': both are rank %d", r->srcs[dup].path,
                       r->srcs[first].path, (int)r->srcs[dup].hdr.rank);
    return PAL_EFORMAT;
}

pal_status pal_reader_open_run(const char *const *paths, size_t n, const char *dict_path,
                               unsigned flags, pal_reader **out)
{
    return pal_run_open(paths, n, dict_path, flags, NULL, out);
}

pal_status pal_run_open(const char *const *paths, size_t n, const char *dict_path,
                        unsigned flags, const pal_run_hooks *hooks, pal_reader **out)
{
    static const pal_run_hooks none = { NULL, NULL, NULL };
    const pal_run_hooks *h = hooks ? hooks : &none;
    PAL_REQUIRE(out, PAL_EINVAL);
    *out = NULL;
    PAL_REQUIRE(paths && n > 0, PAL_EINVAL);
    namelist l = { NULL, NULL, 0, 0 };
    pal_status st = PAL_OK;
    pal_reader *r = NULL;
    char name[4200];
    char why[2048] = "";             /* the files that cannot be read, the first few */
    size_t *left = NULL;
    /* one path: a directory, or a file; many: files (a stat each would be
     * a system call per file more), a directory among them found by its
     * open, and then the inputs listed again */
    int check = n == 1;
again:
    for (size_t i = 0; i < n; i++) {
        struct stat sb;
        if (check && stat(paths[i], &sb) == 0 && S_ISDIR(sb.st_mode)) {
            size_t first = l.n;
            if ((st = list_dir(paths[i], (long)i, &l)) != PAL_OK)
                goto fail_list;
            /* a directory of a merged trace alone reads that */
            if (l.n == first + 1 && n == 1 && !(flags & PAL_OPEN_AS_RUN) &&
                pal_run_is_merged(l.v[first])) {
                snprintf(name, sizeof name, "%s", l.v[first]);
                names_free(&l);
                return pal_reader_open(name, dict_path, out);
            }
        } else if (names_add(&l, paths[i], NULL, check ? IN_GIVEN : IN_UNCHECKED) != 0) {
            st = PAL_ENOMEM;
            pal_set_last_error("cannot open traces: out of memory");
            goto fail_list;
        }
    }
    if (l.n == 1 && n == 1 && strcmp(l.v[0], paths[0]) == 0 && !(flags & PAL_OPEN_AS_RUN)) {
        /* one file: read as it is */
        snprintf(name, sizeof name, "%s", l.v[0]);
        names_free(&l);
        return pal_reader_open(name, dict_path, out);
    }
    snprintf(name, sizeof name, n == 1 ? "%s" : "%s (+%zu more)", paths[0], n - 1);
    if ((st = pal_reader_alloc(name, &r)) != PAL_OK)
        goto fail_list;
    r->run = 1;
    r->flags = flags;
    raise_fd_limit(l.n);
    if (!(r->srcs = calloc(l.n, sizeof *r->srcs))) {
        st = PAL_ENOMEM;
        pal_set_last_error("cannot open traces: out of memory");
        goto fail;
    }
    pal_prefault(r->srcs, l.n * sizeof *r->srcs);   /* every one is written */
    /* per input directory, its traces that are not merged ones (yet) */
    if (!(left = calloc(n, sizeof *left))) {
        st = PAL_ENOMEM;
        pal_set_last_error("cannot open traces: out of memory");
        goto fail;
    }
    for (size_t i = 0; i < l.n; i++)
        if (l.dir[i] >= 0)
            left[l.dir[i]]++;
    for (size_t i = 0; i < l.n; i++) {
        pal_src *s = &r->srcs[r->nsrcs++];
        s->fd = -1;
        if (h->progress)
            h->progress(h->ctx, i, l.n);
        at_dir(r, l.v[i], i + 1 < l.n ? l.v[i + 1] : NULL);
        if ((st = pal_src_open_path(r, s, l.v[i], dict_path)) != PAL_OK) {
            struct stat sb;
            if (s->run_file && l.dir[i] >= 0) {
                /* a directory's per-rank traces and their merge: the
                 * per-rank ones (its header said so: nothing more read) */
                left[l.dir[i]]--;
                pal_src_discard(r, s);
                r->nsrcs--;
                continue;
            }
            if (l.dir[i] == IN_UNCHECKED && st == PAL_EIO && stat(l.v[i], &sb) == 0 &&
                S_ISDIR(sb.st_mode)) {
                /* a directory among many paths: the inputs listed again */
                pal_reader_close(r);
                r = NULL;
                names_free(&l);
                free(left);
                left = NULL;
                why[0] = '\0';
                check = 1;
                goto again;
            }
            if ((st != PAL_EIO && st != PAL_EFORMAT) || s->run_file)
                goto fail;
            /* a file that cannot be read (missing, unreadable, its header
             * damaged beyond its copy) is named; the others are read */
            pal_reader_note(r, "%s; its records are missing, the other traces are read",
                            pal_last_error());
            /* the first few, for the message when none can be read */
            if (r->st.files_unreadable < 4) {
                size_t at = strlen(why);
                snprintf(why + at, sizeof why - at, "%s%s", at ? "; " : "", pal_last_error());
            }
            pal_src_discard(r, s);
            r->nsrcs--;
            r->st.files_unreadable++;
            continue;
        }
        if (s->framing != FRAMING_ECL) {
            st = PAL_EFORMAT;
            pal_set_last_error("cannot read '%s' with other traces: only ECL traces make a run",
                               s->path);
            goto fail;
        }
        /* (a merged trace was refused by its header, s->run_file; this one's
         * header was damaged, and its copy says so) */
        if (s->hdr.flags & ECC_HFLAG_MERGED || (s->hdr.version_major == 1 && s->hdr.pid == 0 &&
                                                 s->hdr.rank == -1)) {
            st = PAL_EFORMAT;
            pal_set_last_error("cannot read '%s' as a run: it is a merged trace already; give "
                               "the per-rank traces of the run, or read the merged trace alone",
                               s->path);
            goto fail;
        }
        /* its clock measurements while its descriptor is open */
        pal_run_read_clock(r, s);
        if (h->opened && h->opened(h->ctx, r, r->nsrcs - 1) != 0) {
            st = PAL_EIO;
            goto fail;
        }
    }
    if (r->at_len > 0)
        close(r->at_fd);
    r->at_len = 0;                   /* (r->at_dir was the list's) */
    if (h->progress)
        h->progress(h->ctx, l.n, l.n);
    /* a directory of merged traces only: no per-rank trace to read */
    for (size_t i = 0; i < l.n; i++) {
        if (l.dir[i] < 0 || left[l.dir[i]] > 0)
            continue;
        st = PAL_EFORMAT;
        pal_set_last_error("cannot read '%s' as a run: it is a merged trace already; give "
                           "the per-rank traces of the run, or read the merged trace alone",
                           l.v[i]);
        goto fail;
    }
    free(left);
    left = NULL;
    if (r->nsrcs == 0) {
        if (l.n == 1)
            pal_set_last_error("%s", why);
        else
            pal_set_last_error("cannot open traces: none of the %zu files can be read: %s%s",
                               l.n, why, l.n > 4 ? "; ..." : "");
        st = PAL_EIO;
        goto fail;
    }
    names_free(&l);        /* the sources keep their own copies of the paths */

    /* one run: the same run id among the MPI ranks (when the writers knew
     * one); processes without a rank are independent programs, read side
     * by side on the wall clock */
    const pal_src *ref = NULL;
    for (size_t i = 0; i < r->nsrcs; i++) {
        const pal_src *s = &r->srcs[i];
        if (!run_id_known(s->hdr.run_id) || s->hdr.rank < 0)
            continue;
        if (!ref) {
            ref = s;
        } else if (!same_run_id(ref->hdr.run_id, s->hdr.run_id)) {
            char a[16], b[16];
            run_id_text(ref->hdr.run_id, a);
            run_id_text(s->hdr.run_id, b);
            if (!(flags & PAL_OPEN_FORCE)) {
                st = PAL_EFORMAT;
                pal_set_last_error("cannot read '%s' (run %s) with '%s' (run %s): they are "
                                   "traces of different runs (force to read them together)",
                                   s->path, b, ref->path, a);
                goto fail;
            }
            pal_reader_note(r, "'%s' (run %s) and '%s' (run %s) are traces of different runs; "
                            "read together as asked", s->path, b, ref->path, a);
        }
    }
    /* processes: world ranks; a file without one (it died before MPI_Init,
     * or is not an MPI program) gets a number after them */
    int32_t size = 0;
    for (size_t i = 0; i < r->nsrcs; i++)
        if (r->srcs[i].hdr.size > size)
            size = r->srcs[i].hdr.size;
    uint32_t extra = (uint32_t)size;
    if ((st = ranks_unique(r)) != PAL_OK)
        goto fail;
    for (size_t i = 0; i < r->nsrcs; i++) {
        pal_src *s = &r->srcs[i];
        if (s->hdr.rank < 0) {
            s->process = extra++;
            if (size > 0)        /* among MPI ranks: it died before MPI_Init */
                pal_reader_note(r, "%s: no MPI rank in its header (the process died before "
                                "MPI_Init, or is not an MPI program): read as process %u",
                                s->path, (unsigned)s->process);
        } else {
            s->process = (uint32_t)s->hdr.rank;
        }
    }
    note_missing(r, size, "among the inputs");
    streams_take_process(r);
    /* clocks: ns of rank 0's clock, time 0 at the earliest start */
    const pal_src *r0 = NULL;
    for (size_t i = 0; i < r->nsrcs; i++)
        if (r->srcs[i].hdr.rank == 0)
            r0 = &r->srcs[i];
    double origin = HUGE_VAL;
    for (size_t i = 0; i < r->nsrcs; i++) {
        pal_src *s = &r->srcs[i];
        if (clock_map(r, s, r0) && s->hdr.rank >= 0) {
            r->st.clock_fallbacks++;
            pal_reader_note(r, "%s (rank %d): clock: %s", s->path, (int)s->hdr.rank,
                            s->clock_how);
        }
        double o = map_ns(s, s->hdr.start_time);
        if (o < origin)
            origin = o;
    }
    for (size_t i = 0; i < r->nsrcs; i++)
        r->srcs[i].g0 -= origin;
    r->origin_ns = origin;
    if (!(flags & PAL_OPEN_COPY_) && (st = pal_run_prepare(r)) != PAL_OK) {
        pal_set_last_error("cannot open traces: out of memory");
        goto fail;
    }
    const pal_src *hs = r0 ? r0 : &r->srcs[0];
    r->info.ticks_per_second = 1e9;
    r->info.clock_source = hs->hdr.clock_source;
    r->info.realtime_offset_ns = (r0 ? r0->hdr.realtime_offset_ns : 0) + (int64_t)llround(origin);
    r->info.pid = 0;
    r->info.rank = -1;
    r->info.size = size > 0 ? size : (int32_t)extra;
    r->info.start_time = 0;
    memcpy(r->info.host, hs->hdr.host, sizeof r->info.host);
    r->st.files = (uint32_t)r->nsrcs;
    if (!(flags & PAL_OPEN_COPY_) && (st = pal_reader_finish_open(r)) != PAL_OK) {
        pal_set_last_error("cannot open traces: out of memory");
        goto fail;
    }
    pal_clear_last_error();
    *out = r;
    return PAL_OK;
fail:
    pal_reader_close(r);
fail_list:
    free(left);
    names_free(&l);
    return st;
}

/* ---------------------------------------------------------------- merged traces */

/* A field name not taken yet in the merged record r. */
static void unique_name(const edl_record *r, const char *want, char *out, size_t len)
{
    snprintf(out, len, "%s", want);
    while (edl_record_find_field(r, out) >= 0) {
        size_t l = strlen(out);
        if (l + 2 > len)
            break;
        out[l] = '_';
        out[l + 1] = '\0';
    }
}

static void PAL_PRINTF(3, 4) say(void (*note)(void *, const char *), void *ctx,
                                 const char *fmt, ...)
{
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    if (note)
        note(ctx, line);
}

edl_dict *pal_run_merged_dict(const pal_dict *run, void (*note)(void *ctx, const char *line),
                              void *ctx)
{
    const edl_dict *rd = run->ed;
    /* what records mean (doc/edl.md, "Roles"), as the run says */
    edl_dict *d = pal_binary_dict_new("ecl_merged", "1.0", rd, edl_dict_time_field(rd),
                                      "process", "thread");
    if (d == NULL)
        goto fail;
    for (size_t i = 0; i < edl_dict_record_count(rd); i++) {
        const edl_record *s = edl_dict_record(rd, i);
        edl_record *r;
        if (edl_record_field_count(s) < 2 ||
            edl_dict_add_record(d, edl_record_name(s), edl_record_description(s), &r) != EDL_OK)
            goto fail;
        for (size_t k = 0; k < edl_record_field_count(s); k++) {
            const edl_field *fd = edl_record_field(s, k);
            char nm[256];
            unique_name(r, edl_field_name(fd), nm, sizeof nm);
            if (strcmp(nm, edl_field_name(fd)) != 0)
                say(note, ctx, "record type '%s': field '%s' is renamed '%s' in the merged trace",
                    edl_record_name(s), edl_field_name(fd), nm);
            if (edl_record_add_field(r, nm, edl_field_type(fd), edl_field_encoding(fd),
                                     edl_field_unit(fd), edl_field_description(fd)) != EDL_OK)
                goto fail;
            if (k == 1 &&
                (edl_record_add_field(r, "process", EDL_UINT32, EDL_ENC_ULEB, NULL,
                                      "MPI world rank of the process that wrote the record") !=
                     EDL_OK ||
                 edl_record_add_field(r, "thread", EDL_UINT32, EDL_ENC_ULEB, NULL,
                                      "stream (thread) within that process; 0: definitions") !=
                     EDL_OK))
                goto fail;
        }
        if (edl_record_copy_meaning(r, s) != EDL_OK)
            say(note, ctx, "record type '%s': its roles are left out of the merged trace (a "
                "field they name was renamed)", edl_record_name(s));
    }
    for (size_t b = 0; b < edl_dict_bind_count(rd); b++) {
        edl_bind bd = edl_dict_bind(rd, b);
        if (edl_dict_add_bind(d, bd.key1, bd.key2, edl_record_name(edl_dict_record(rd, bd.record))) !=
            EDL_OK)
            goto fail;
    }
    return d;
fail:
    edl_dict_destroy(d);
    return NULL;
}

/* ---------------------------------------------------------------- run files (version 3) */

static void note_line(void *ctx, const char *line)
{
    pal_reader_note(ctx, "%s", line);
}

/* The run header of the file at fd (size bytes): the one at byte 0, else
 * its copy before the footer (reported). NULL, or why neither is good. */
static const char *run_header(pal_reader *r, const char *path, int fd, uint64_t size,
                              ecc_run_header *h)
{
    uint8_t b[ECC_RUN_HEADER], f[ECC_FOOTER];
    const char *why = size < ECC_RUN_HEADER ? "file too short"
                      : ecc_read_at(fd, b, sizeof b, 0) != 0 ? "read error"
                                                              : ecc_run_header_decode(b, h);
    if (!why)
        return NULL;
    uint64_t at;
    if (size < ECC_RUN_HEADER + ECC_FOOTER || ecc_read_at(fd, f, sizeof f, size - ECC_FOOTER) != 0 ||
        !ecc_run_footer_decode(f, &at) || at > size - ECC_FOOTER - ECC_RUN_HEADER ||
        ecc_read_at(fd, b, sizeof b, at) != 0 || ecc_run_header_decode(b, h) != NULL)
        return why;
    pal_reader_note(r, "%s: byte 0: run header damaged (%s); its copy at byte %" PRIu64
                    " was used", path, why, at);
    r->st.damaged++;
    return NULL;
}

pal_status pal_run_open_file(const char *path, unsigned flags, pal_reader **out)
{
    PAL_REQUIRE(out, PAL_EINVAL);
    *out = NULL;
    pal_reader *r = NULL;
    pal_status st;
    uint8_t *ix[2] = { NULL, NULL };
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat sb;
    if (fd < 0 || fstat(fd, &sb) != 0) {
        pal_set_last_error("cannot open trace '%s': %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return PAL_EIO;
    }
    if ((st = pal_reader_alloc(path, &r)) != PAL_OK) {
        close(fd);
        return st;
    }
    r->run = 1;
    r->merged = 1;
    r->flags = flags;
    uint64_t size = (uint64_t)sb.st_size;
    ecc_run_header h;
    const char *why = run_header(r, path, fd, size, &h);
    if (why) {
        st = PAL_EFORMAT;
        pal_set_last_error("cannot open trace '%s': %s at byte 0, and no intact copy of the "
                           "run header before its footer", path, why);
        goto fail;
    }
    /* the index, both copies: an entry damaged in one is taken from the other */
    uint64_t at[2] = { h.index_offset, h.index_copy };
    int have[2];
    for (int c = 0; c < 2; c++) {
        have[c] = at[c] <= size && h.index_length <= size - at[c] &&
                  (ix[c] = malloc(h.index_length ? h.index_length : 1)) != NULL &&
                  ecc_read_at(fd, ix[c], h.index_length, at[c]) == 0;
    }
    if (!have[0] && !have[1]) {
        st = PAL_EFORMAT;
        pal_set_last_error("cannot open trace '%s': its index (%" PRIu64 " bytes at byte %"
                           PRIu64 " and at byte %" PRIu64 ") cannot be read", path,
                           h.index_length, at[0], at[1]);
        goto fail;
    }
    raise_fd_limit(64);
    if (!(r->srcs = calloc(h.members ? h.members : 1, sizeof *r->srcs))) {
        st = PAL_ENOMEM;
        pal_set_last_error("cannot open trace '%s': out of memory", path);
        goto fail;
    }
    ecc_run_member *mem = calloc(h.members ? h.members : 1, sizeof *mem);
    uint8_t *clock_ok = calloc(h.members ? h.members : 1, 1);
    if (!mem || !clock_ok) {
        free(mem);
        free(clock_ok);
        st = PAL_ENOMEM;
        pal_set_last_error("cannot open trace '%s': out of memory", path);
        goto fail;
    }
    for (uint32_t k = 0; k < h.members; k++) {
        ecc_run_member *m = &mem[k], e[2];
        int g[2] = { 0, 0 };
        for (int c = 0; c < 2; c++) {
            memset(&e[c], 0, sizeof e[c]);
            if (have[c])
                g[c] = ecc_run_member_decode(ix[c] + (size_t)k * ECC_RUN_MEMBER, &e[c]);
        }
        /* each part from the first copy that has it intact */
        int lc = (g[0] & 1) ? 0 : 1, cc = (g[0] & 2) ? 0 : 1;
        *m = e[lc];
        m->how = e[cc].how;
        m->t0 = e[cc].t0;
        m->g0 = e[cc].g0;
        m->b = e[cc].b;
        int good = g[0] | g[1];
        for (int c = 0; c < 2; c++) {
            if (g[c] == 3 || (c == 1 && !have[1] && good == 3))
                continue;
            r->st.damaged++;
            pal_reader_note(r, "%s: byte %" PRIu64 ": %s of index entry %" PRIu32 " damaged%s",
                            path, at[c] + (uint64_t)k * ECC_RUN_MEMBER,
                            !have[c] ? "the copy" : (g[c] & 1) ? "the clock model"
                                                  : (g[c] & 2) ? "the location" : "all",
                            k, (good & ~g[c]) ? (c == 0 ? "; its copy was used"
                                                        : "; the original was used")
                                              : "");
        }
        clock_ok[k] = (good & 2) != 0;
        if (!(good & 1)) {
            r->st.files_unreadable++;
            r->st.damaged++;
            pal_reader_note(r, "%s: index entry %" PRIu32 " damaged in both copies: where its "
                            "trace lies is not known, its records are missing", path, k);
            continue;
        }
        pal_src *s = &r->srcs[r->nsrcs++];
        s->fd = -1;
        if ((st = pal_src_open_member(r, s, path, m->offset, m->length)) != PAL_OK) {
            if (st != PAL_EIO && st != PAL_EFORMAT)
                goto fail_mem;
            pal_reader_note(r, "%s (member %" PRIu32 ", '%s'); its records are missing, the "
                            "other traces are read", pal_last_error(), k, m->name);
            pal_src_discard(r, s);
            r->nsrcs--;
            r->st.files_unreadable++;
            continue;
        }
        s->process = m->process;
        s->member = k;
        set_how(s, m->how);
        s->t0 = m->t0;
        s->g0 = m->g0;
        s->b = m->b;
        s->mapped = clock_ok[k] ? 1 : 0;
        /* what the index says of its streams against what the scan found */
        const char *sw = m->streams_offset > h.index_length ||
                                 m->streams_length > h.index_length - m->streams_offset
                             ? "stream table outside the index" : NULL;
        const uint8_t *t = NULL;
        for (int c = 0; !sw && c < 2 && !t; c++)
            if (have[c] && ecc_run_streams_check(ix[c] + m->streams_offset, m->streams_length,
                                                 m->nstreams) == NULL)
                t = ix[c] + m->streams_offset;
        if (!sw && !t)
            sw = "stream table damaged in both copies";
        if (sw) {
            r->st.damaged++;
            pal_reader_note(r, "%s: member %" PRIu32 " ('%s'): %s: its chunks are read as the "
                            "scan finds them, without the check against the index", path, k,
                            m->name, sw);
            continue;
        }
        const uint8_t *p = t + 8;
        for (uint32_t j = 0; j < m->nstreams; j++) {
            ecc_run_stream rs;
            p = ecc_run_stream_decode(p, &rs);
            uint64_t found = 0, recs = 0;     /* chunk offsets, copies included */
            for (pal_stream *x = s->streams; x; x = x->src_next)
                if (x->stream == rs.stream) {
                    found = x->nchunks;
                    recs = x->records;
                }
            if (found < rs.nchunks)
                pal_reader_note(r, "%s: member %" PRIu32 " ('%s'), thread %" PRIu32 ": %" PRIu64
                                " of the %" PRIu32 " chunks (%" PRIu64 " records) the index "
                                "lists were not found (%" PRIu64 " records are)", path, k,
                                m->name, rs.stream, rs.nchunks - found, rs.nchunks, rs.records,
                                recs);
        }
    }
    /* clock models damaged in both copies: again from the member's measurements */
    const pal_src *r0 = NULL;
    for (size_t i = 0; i < r->nsrcs; i++)
        if (r->srcs[i].hdr.rank == 0 && r->srcs[i].mapped)
            r0 = &r->srcs[i];
    for (size_t i = 0; i < r->nsrcs; i++) {
        pal_src *s = &r->srcs[i];
        if (s->mapped)
            continue;
        pal_run_read_clock(r, s);
        clock_map(r, s, r0 && r0->hdr.ticks_per_second > 0 ? r0 : NULL);
        s->g0 -= h.origin_ns;
        r->st.damaged++;
        pal_reader_note(r, "%s: the clock model of member %" PRIu32 " ('%s', rank %d) is "
                        "damaged in both copies of the index; computed again from its clock "
                        "measurements: %s", path, s->member, mem[s->member].name,
                        (int)s->hdr.rank, s->clock_how);
    }
    free(mem);
    free(clock_ok);
    close(fd);
    fd = -1;
    free(ix[0]);
    free(ix[1]);
    ix[0] = ix[1] = NULL;
    if (r->nsrcs == 0) {
        st = PAL_EFORMAT;
        pal_set_last_error("cannot open trace '%s': none of its %" PRIu32 " members can be read "
                           "(%s)", path, h.members, r->err);
        goto fail;
    }
    note_missing(r, h.size, "in the merged trace");
    streams_take_process(r);
    if ((st = pal_run_prepare(r)) != PAL_OK) {
        pal_set_last_error("cannot open trace '%s': out of memory", path);
        goto fail;
    }
    /* what the reader hands out: the records as a version-2 merge wrote them */
    edl_dict *md = pal_run_merged_dict(r->dict, note_line, r);
    char err[256];
    r->run_dict = r->dict;
    r->dict = NULL;
    if (!md || (st = pal_dict_wrap(md, &r->dict, err, sizeof err)) != PAL_OK) {
        st = PAL_ENOMEM;
        pal_set_last_error("cannot open trace '%s': out of memory", path);
        goto fail;
    }
    r->dict->ns_per_tick = 1;
    r->info.ticks_per_second = 1e9;
    r->info.clock_source = h.clock_source;
    r->info.realtime_offset_ns = h.realtime_offset_ns;
    r->info.pid = 0;
    r->info.rank = -1;
    r->info.size = h.size;
    r->info.start_time = 0;
    memcpy(r->info.host, h.host, sizeof r->info.host);
    r->st.files = (uint32_t)r->nsrcs;
    if ((st = pal_reader_finish_open(r)) != PAL_OK) {
        pal_set_last_error("cannot open trace '%s': out of memory", path);
        goto fail;
    }
    pal_clear_last_error();
    *out = r;
    return PAL_OK;
fail_mem:
    free(mem);
    free(clock_ok);
fail:
    if (fd >= 0)
        close(fd);
    free(ix[0]);
    free(ix[1]);
    pal_reader_close(r);
    return st;
}
