/* bench_peers.c -- table (e): ECL next to LTTng-UST in the same run. The same
 * enter/leave loop is recorded by ECL (bench_work.c) and by two LTTng-UST
 * tracepoints (bench_lttng, inside an lttng session written to a temporary
 * directory); then each trace is read back by its own tools: PAL in process
 * and pal-dump as text, babeltrace2 with its counter sink and as text.
 *
 * The tracers run round-robin, BENCH_REPS times (default 7); the table shows
 * min and median over the runs. Nothing is installed: missing LTTng pieces
 * show as "n/a" with the command that gets them. Tool paths come from the environment (set by run.sh from
 * configure): LTTNG, BABELTRACE2, PAL_DUMP, BENCH_LTTNG; else PATH/siblings.
 * Prints tables; never fails on time. */
#include <config.h>

#include "bench/bench_common.h"
#include "bench/bench_pal.h"
#include "bench/bench_work.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <dirent.h>
#include <string.h>
#include <unistd.h>

#define INSTALL_HINT "apt-get install lttng-tools liblttng-ust-dev babeltrace2"

#define MAX_REPS 64

typedef struct peer {
    char name[64];
    const char *compress;          /* ECL: the method; NULL for LTTng */
    int is_default;                /* ECL run with ECL_COMPRESS unset */
    int off;                       /* cannot run (why says it): no more runs */
    double ns[MAX_REPS];           /* recording, ns per event */
    double bytes[MAX_REPS];        /* on disk per event read back */
    double events[MAX_REPS];       /* events the reader found */
    double read_evs[MAX_REPS], text_evs[MAX_REPS];   /* events per second */
    const char *reader, *text_tool;
    char why[256];                 /* reason for n/a or a problem seen */
} peer;

/* ---------------- children ---------------- */

static int child_read(const char *path)
{
    uint64_t records, hits, sum;
    char err[512];
    double t0 = bench_now_ns();
    if (bench_pal_read(path, BENCH_READ_HANDLE, &records, &hits, &sum, err, sizeof err) != 0) {
        fprintf(stderr, "bench_peers: %s: %s\n", path, err);
        return 1;
    }
    printf("sec=%.6f\nrecords=%llu\nsum=%llu\n", (bench_now_ns() - t0) / 1e9,
           (unsigned long long)records, (unsigned long long)sum);
    return 0;
}

/* ---------------- ECL ---------------- */

/* One run of ECL: record (open -> close, events read back), then PAL by
 * handle in a fresh process and pal-dump as text. */
static void run_ecl(peer *p, uint64_t n, int rep, const char *tmp, const char *pal_dump,
                    char *clock_note, size_t note_len)
{
    char dir[4200], trace[4096];
    p->reader = "PAL by handle";
    p->text_tool = "pal-dump";
    if (p->off)
        return;
    snprintf(dir, sizeof dir, "%s/ecl-%s-%d", tmp, p->compress, rep);
    bench_child c;
    if (bench_ecl_spawn("enter_leave", 1, n, 1, p->is_default ? NULL : p->compress, dir, &c) != 0 ||
        bench_kv_str(c.out, "trace", trace, sizeof trace) != 0) {
        snprintf(p->why, sizeof p->why, "ECL run failed (status %d)", c.status);
        p->off = 1;
        bench_rmtree(dir);
        return;
    }
    double read_back = bench_kv(c.out, "read_back");
    p->ns[rep] = bench_kv(c.out, "ns");
    p->bytes[rep] = (double)bench_path_bytes(dir) / read_back;
    if (!clock_note[0]) {
        char clock[32] = "unknown";
        bench_kv_str(c.out, "clock", clock, sizeof clock);
        snprintf(clock_note, note_len, "ECL clock: %s", clock);
    }

    char *rargv[] = { (char *)bench_self(), "--read", trace, NULL };
    if (bench_spawn(rargv, NULL, BENCH_OUT_CAPTURE, &c) == 0) {
        p->events[rep] = bench_kv(c.out, "records");
        p->read_evs[rep] = p->events[rep] / bench_kv(c.out, "sec");
    }
    if (pal_dump) {
        char *dargv[] = { (char *)pal_dump, trace, NULL };
        if (bench_spawn(dargv, NULL, BENCH_OUT_NULL, &c) == 0)
            p->text_evs[rep] = p->events[rep] / (c.wall_ns / 1e9);
    } else {
        snprintf(p->why, sizeof p->why, "pal-dump not found (set PAL_DUMP)");
    }
    bench_rmtree(dir);
}

/* ---------------- LTTng-UST ---------------- */

/* Pid of a running lttng-sessiond, or 0: `lttng create` spawns one when none
 * runs, and the table says so, since it outlives the benchmark. */
static long sessiond_pid(void)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    long found = 0;
    while (d && !found && (e = readdir(d)) != NULL) {
        char path[300], comm[64] = "";
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        snprintf(path, sizeof path, "/proc/%s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        if (fgets(comm, sizeof comm, f) && strcmp(comm, "lttng-sessiond\n") == 0)
            found = atol(e->d_name);
        fclose(f);
    }
    if (d)
        closedir(d);
    return found;
}

/* Runs one lttng command quietly; on failure shows its output. */
static int lttng_cmd(const char *lttng, char *const args[], char *why, size_t whylen)
{
    char *argv[16];
    int k = 0;
    argv[k++] = (char *)lttng;
    for (int i = 0; args[i] && k < 15; i++)
        argv[k++] = args[i];
    argv[k] = NULL;
    bench_child c;
    if (bench_spawn(argv, NULL, BENCH_OUT_CAPTURE, &c) != 0) {
        snprintf(why, whylen, "'lttng %s' failed (status %d)", args[0], c.status);
        fprintf(stderr, "bench_peers: %s:\n%s", why, c.out);
        return -1;
    }
    return 0;
}

/* "   1234 Event messages" -> 1234 (sink.utils.counter prints count, then label). */
static double counter_value(const char *out, const char *label)
{
    for (const char *line = out; line && *line;) {
        const char *eol = strchr(line, '\n');
        const char *hit = strstr(line, label);
        if (hit && (!eol || hit < eol))
            return strtod(line, NULL);
        line = eol ? eol + 1 : NULL;
    }
    return NAN;
}

static long spawned_sessiond;

/* One run of LTTng-UST: a session of its own (create ... destroy) around one
 * run of bench_lttng, then babeltrace2's counter sink and text output. A
 * failure that will not go away (a missing piece, a command that fails)
 * turns the peer off for the remaining runs. */
static void run_lttng(peer *p, uint64_t n, int rep, const char *tmp, const char *bench_lttng,
                      const char *lttng, const char *bt2, char *version, size_t vlen)
{
    char nbuf[32], dir[4200], out_opt[4300], name[64];
    p->reader = "bt2 counter sink";
    p->text_tool = "babeltrace2";
    if (p->off)
        return;
    if (!bench_lttng) {
        snprintf(p->why, sizeof p->why,
                 "not built: configure found no lttng-ust (liblttng-ust-dev)");
        p->off = 1;
        return;
    }
    if (!lttng) {
        snprintf(p->why, sizeof p->why, "the lttng command (lttng-tools) is not installed");
        p->off = 1;
        return;
    }
    snprintf(nbuf, sizeof nbuf, "%llu", (unsigned long long)n);
    snprintf(dir, sizeof dir, "%s/lttng-%d", tmp, rep);
    snprintf(out_opt, sizeof out_opt, "--output=%s", dir);
    snprintf(name, sizeof name, "ecl-bench-%ld-%d", (long)getpid(), rep);

    char *create[] = { "create", name, out_opt, NULL };
    /* Blocking channel with large sub-buffers: the application waits instead of
     * discarding events when the consumer falls behind, i.e. lossless like ECL. */
    char *channel[] = { "enable-channel", "-u", "-s", name, "benchch", "--subbuf-size=4M",
                        "--num-subbuf=4", "--blocking-timeout=inf", NULL };
    char *event[] = { "enable-event", "-u", "-s", name, "-c", "benchch", "ecl_bench:*", NULL };
    char *start[] = { "start", name, NULL };
    char *stop[] = { "stop", name, NULL };
    char *destroy[] = { "destroy", name, NULL };
    long daemon_before = sessiond_pid();
    if (lttng_cmd(lttng, create, p->why, sizeof p->why) != 0) {
        p->off = 1;
        return;
    }
    if (!daemon_before)
        spawned_sessiond = sessiond_pid();
    bench_child c;
    double ns = NAN;
    int ok = lttng_cmd(lttng, channel, p->why, sizeof p->why) == 0 &&
             lttng_cmd(lttng, event, p->why, sizeof p->why) == 0 &&
             lttng_cmd(lttng, start, p->why, sizeof p->why) == 0;
    if (ok) {
        /* one timed round (after bench_lttng's own warm-up round of n/10) */
        char *argv[] = { (char *)bench_lttng, nbuf, "1", NULL };
        char *env[] = { "LTTNG_UST_ALLOW_BLOCKING=1", NULL };
        if (bench_spawn(argv, env, BENCH_OUT_CAPTURE, &c) != 0) {
            snprintf(p->why, sizeof p->why, "bench_lttng failed (status %d)", c.status);
            ok = 0;
        } else if (bench_kv(c.out, "enabled") != 1) {
            snprintf(p->why, sizeof p->why,
                     "the tracepoints were not enabled (no session daemon reached?)");
            ok = 0;
        } else {
            ns = bench_kv(c.out, "ns");
            bench_kv_str(c.out, "version", version, vlen);
        }
        ok &= lttng_cmd(lttng, stop, p->why, sizeof p->why) == 0;
    }
    lttng_cmd(lttng, destroy, p->why, sizeof p->why);
    if (!ok) {
        p->off = 1;
        bench_rmtree(dir);
        return;
    }
    p->ns[rep] = ns;
    if (!bt2) {
        snprintf(p->why, sizeof p->why,
                 "babeltrace2 is not installed: nothing read back (no events, sizes or rates)");
    } else {
        char *cargv[] = { (char *)bt2, dir, "-c", "sink.utils.counter", "-p", "step=+0", NULL };
        if (bench_spawn(cargv, NULL, BENCH_OUT_CAPTURE, &c) == 0) {
            p->events[rep] = counter_value(c.out, "Event messages");
            p->read_evs[rep] = p->events[rep] / (c.wall_ns / 1e9);
            p->bytes[rep] = (double)bench_path_bytes(dir) / p->events[rep];
            double lost = counter_value(c.out, "Discarded event messages");
            if (lost > 0)
                snprintf(p->why, sizeof p->why,
                         "LTTng discarded events (%.0f discarded-events messages)", lost);
        }
        char *targv[] = { (char *)bt2, dir, NULL };
        if (bench_spawn(targv, NULL, BENCH_OUT_NULL, &c) == 0)
            p->text_evs[rep] = p->events[rep] / (c.wall_ns / 1e9);
    }
    bench_rmtree(dir);
}

/* ---------------- table ---------------- */

static void print_row(const peer *p, int reps)
{
    double mn, md;
    printf("%-22s", p->name);
    bench_cells_min_median(p->ns, reps, 7, 2, 1);
    bench_min_median(p->bytes, reps, &mn, &md);
    bench_cell(md, 7, 2);
    bench_min_median(p->events, reps, &mn, &md);
    bench_cell(md, 9, 0);
    printf("  %-16s", p->reader);
    bench_cells_min_median(p->read_evs, reps, 6, 1, 1e-6);
    printf("  %-11s", p->text_tool);
    bench_cells_min_median(p->text_evs, reps, 6, 2, 1e-6);
    printf("\n");
}

static const char *env_or(const char *var, const char *(*find)(const char *, char *, size_t),
                          const char *dflt, char *buf, size_t len)
{
    const char *v = getenv(var);
    if (v && v[0])
        return bench_which(v, buf, len);
    return find(dflt, buf, len);
}

int main(int argc, char **argv)
{
    int rc = bench_ecl_child_main(argc, argv);
    if (rc >= 0)
        return rc;
    if (argc == 3 && strcmp(argv[1], "--read") == 0)
        return child_read(argv[2]);
    if (argc != 1) {
        fprintf(stderr, "usage: bench_peers   (environment: BENCH_SCALE, BENCH_REPS, LTTNG, "
                        "BABELTRACE2, PAL_DUMP, BENCH_LTTNG)\n");
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    char b1[4096], b2[4096], b3[4096], b4[4096];
    const char *pal_dump = env_or("PAL_DUMP", bench_sibling, "../pal/pal-dump", b1, sizeof b1);
    const char *bench_lttng = env_or("BENCH_LTTNG", bench_sibling, "bench_lttng", b2, sizeof b2);
    const char *lttng = env_or("LTTNG", bench_which, "lttng", b3, sizeof b3);
    const char *bt2 = env_or("BABELTRACE2", bench_which, "babeltrace2", b4, sizeof b4);

    uint64_t n = bench_scaled(2000000) & ~(uint64_t)1;
    int reps = bench_reps();
    if (reps > MAX_REPS)
        reps = MAX_REPS;
    char tmp[4096], clock_note[512] = "", version[64] = "?", dflt[32];
    bench_mkdtemp("peers", tmp, sizeof tmp);
    bench_ecl_default_compression(tmp, dflt, sizeof dflt);
    fprintf(stderr, "bench_peers: %d runs of ECL and LTTng-UST, %llu events each...\n", reps,
            (unsigned long long)n);

    /* ECL's default (ECL_COMPRESS unset), the other of none/zlib, LTTng-UST */
    peer peers[3];
    int npeers = 0;
    const char *other = strcmp(dflt, "none") == 0 ? "zlib" : "none";
    const char *ecl_methods[2] = { dflt, other };
    for (int i = 0; i < 3; i++) {
        peer *p = &peers[npeers++];
        *p = (peer){ .compress = i < 2 ? ecl_methods[i] : NULL, .is_default = i == 0 };
        for (int r = 0; r < MAX_REPS; r++)
            p->ns[r] = p->bytes[r] = p->events[r] = p->read_evs[r] = p->text_evs[r] = NAN;
        if (i < 2)
            snprintf(p->name, sizeof p->name, "ECL, %s%s", p->compress,
                     i == 0 ? " (default)" : "");
        else
            snprintf(p->name, sizeof p->name, "LTTng-UST");
    }
    for (int rep = 0; rep < reps; rep++) {
        run_ecl(&peers[0], n, rep, tmp, pal_dump, clock_note, sizeof clock_note);
        run_ecl(&peers[1], n, rep, tmp, pal_dump, clock_note, sizeof clock_note);
        run_lttng(&peers[2], n, rep, tmp, bench_lttng, lttng, bt2, version, sizeof version);
    }
    if (strcmp(version, "?") != 0)
        snprintf(peers[2].name, sizeof peers[2].name, "LTTng-UST %s", version);

    char note[1024];
    snprintf(note, sizeof note,
             "%s; ECL's default compression (ECL_COMPRESS unset): %s\nLTTng: per-CPU channel, "
             "4 x 4 MiB sub-buffers, blocking (lossless like ECL), clock of\nlttng-ust "
             "(CLOCK_MONOTONIC); its consumer daemon writes on the other core(s)",
             clock_note[0] ? clock_note : "ECL clock: unknown", dflt);
    bench_table_header("(e) peers: one enter/leave loop, recorded and read back", note);
    printf("1 thread, %llu events per run; %d runs, the tracers interleaved; min and median "
           "over\nthe runs (B/event and events: median). ECL's ns/event is open -> close "
           "(ecl_init to\necl_finalize) per event read back; LTTng's is its tracepoint loop "
           "alone (after a\nwarm-up of n/10), since its session set-up and the consumer daemon "
           "run outside\nthe program. Readers read the whole trace; text tools write to "
           "/dev/null (wall time).\n\n",
           (unsigned long long)n, reps);
    printf("%-22s %15s %7s %9s  %-16s %13s  %-11s %13s\n", "", "ns/event", "", "", "reader",
           "Mev/s", "text tool", "Mev/s");
    printf("%-22s %7s %7s %7s %9s  %-16s %6s %6s  %-11s %6s %6s\n", "tracer", "min", "median",
           "B/event", "events", "", "min", "median", "", "min", "median");
    for (int i = 0; i < npeers; i++)
        print_row(&peers[i], reps);
    double ratio[MAX_REPS];
    for (int r = 0; r < reps; r++)
        ratio[r] = peers[2].ns[r] / peers[0].ns[r];
    double mn, md;
    if (bench_min_median(ratio, reps, &mn, &md) > 0)
        printf("\nLTTng-UST / ECL (default), recording time per run: min %.2fx, median %.2fx\n",
               mn, md);
    for (int i = 0; i < npeers; i++)
        if (peers[i].why[0])
            printf("note: %s: %s\n", peers[i].name, peers[i].why);
    if (spawned_sessiond)
        printf("note: lttng started a session daemon for this run (pid %ld); it keeps "
               "running\n", spawned_sessiond);
    if (!bench_lttng || !lttng || !bt2)
        printf("note: to measure LTTng-UST and babeltrace2 here: %s\n"
               "      then re-run configure and make bench (make bench installs nothing)\n",
               INSTALL_HINT);
    bench_rmtree(tmp);
    return 0;
}
