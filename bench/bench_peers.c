/* bench_peers.c -- table (e): ECL next to LTTng-UST in the same run. The same
 * enter/leave loop is recorded by ECL (bench_work.c) and by two LTTng-UST
 * tracepoints (bench_lttng, inside an lttng session written to a temporary
 * directory); then each trace is read back by its own tools: PAL in process
 * and pal-dump as text, babeltrace2 with its counter sink and as text.
 *
 * Nothing is installed: missing LTTng pieces show as "n/a" with the command
 * that gets them. Tool paths come from the environment (set by run.sh from
 * configure): LTTNG, BABELTRACE2, PAL_DUMP, BENCH_LTTNG; else PATH/siblings.
 * Prints tables; never fails on time. */
#include <config.h>

#include "bench/bench_common.h"
#include "bench/bench_work.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <dirent.h>
#include <string.h>
#include <unistd.h>

#define INSTALL_HINT "apt-get install lttng-tools liblttng-ust-dev babeltrace2"

typedef struct peer {
    char name[64];
    double ns, events, bytes;      /* recording */
    double disk_events;            /* events the reader found */
    double read_evs, text_evs;     /* events per second */
    const char *reader, *text_tool;
    char why[256];                 /* reason for n/a */
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

static void run_ecl(peer *p, const char *compress, uint64_t n, int reps, const char *tmp,
                    const char *pal_dump, char *clock_note, size_t note_len)
{
    char nbuf[32], rbuf[16], dir[4200], env_dir[4300], env_comp[64], trace[4096];
    char *env[] = { env_dir, "ECL_PREFIX=bench", env_comp, NULL };
    char *argv[] = { (char *)bench_self(), "--ecl", nbuf, rbuf, NULL };
    snprintf(p->name, sizeof p->name, "ECL, COMPRESS=%s", compress);
    p->reader = "PAL, handle";
    p->text_tool = "pal-dump";
    snprintf(nbuf, sizeof nbuf, "%llu", (unsigned long long)n);
    snprintf(rbuf, sizeof rbuf, "%d", reps);
    snprintf(dir, sizeof dir, "%s/ecl-%s", tmp, compress);
    snprintf(env_dir, sizeof env_dir, "ECL_DIR=%s", dir);
    snprintf(env_comp, sizeof env_comp, "ECL_COMPRESS=%s", compress);

    bench_child c;
    if (bench_spawn(argv, env, BENCH_OUT_CAPTURE, &c) != 0 ||
        bench_kv_str(c.out, "trace", trace, sizeof trace) != 0) {
        snprintf(p->why, sizeof p->why, "ECL run failed (status %d)", c.status);
        return;
    }
    p->ns = bench_kv(c.out, "ns");
    p->events = bench_kv(c.out, "events");
    p->bytes = (double)bench_path_bytes(dir) / p->events;
    if (!clock_note[0]) {
        char clock[32] = "unknown";
        bench_kv_str(c.out, "clock", clock, sizeof clock);
        snprintf(clock_note, note_len, "ECL clock: %s", clock);
    }

    char *rargv[] = { (char *)bench_self(), "--read", trace, NULL };
    if (bench_spawn(rargv, NULL, BENCH_OUT_CAPTURE, &c) == 0) {
        p->disk_events = bench_kv(c.out, "records");
        p->read_evs = p->disk_events / bench_kv(c.out, "sec");
    }
    if (pal_dump) {
        char *dargv[] = { (char *)pal_dump, trace, NULL };
        if (bench_spawn(dargv, NULL, BENCH_OUT_NULL, &c) == 0)
            p->text_evs = p->disk_events / (c.wall_ns / 1e9);
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

static void run_lttng(peer *p, uint64_t n, int reps, const char *tmp, const char *bench_lttng,
                      const char *lttng, const char *bt2, char *version, size_t vlen)
{
    char nbuf[32], rbuf[16], dir[4200], out_opt[4300], name[64];
    snprintf(p->name, sizeof p->name, "LTTng-UST");
    p->reader = "bt2 counter sink";
    p->text_tool = "babeltrace2";
    if (!bench_lttng) {
        snprintf(p->why, sizeof p->why,
                 "not built: configure found no lttng-ust (liblttng-ust-dev)");
        return;
    }
    if (!lttng) {
        snprintf(p->why, sizeof p->why, "the lttng command (lttng-tools) is not installed");
        return;
    }
    snprintf(nbuf, sizeof nbuf, "%llu", (unsigned long long)n);
    snprintf(rbuf, sizeof rbuf, "%d", reps);
    snprintf(dir, sizeof dir, "%s/lttng", tmp);
    snprintf(out_opt, sizeof out_opt, "--output=%s", dir);
    snprintf(name, sizeof name, "ecl-bench-%ld", (long)getpid());

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
    if (lttng_cmd(lttng, create, p->why, sizeof p->why) != 0)
        return;
    if (!daemon_before)
        spawned_sessiond = sessiond_pid();
    bench_child c;
    int ok = lttng_cmd(lttng, channel, p->why, sizeof p->why) == 0 &&
             lttng_cmd(lttng, event, p->why, sizeof p->why) == 0 &&
             lttng_cmd(lttng, start, p->why, sizeof p->why) == 0;
    if (ok) {
        char *argv[] = { (char *)bench_lttng, nbuf, rbuf, NULL };
        char *env[] = { "LTTNG_UST_ALLOW_BLOCKING=1", NULL };
        if (bench_spawn(argv, env, BENCH_OUT_CAPTURE, &c) != 0) {
            snprintf(p->why, sizeof p->why, "bench_lttng failed (status %d)", c.status);
            ok = 0;
        } else if (bench_kv(c.out, "enabled") != 1) {
            snprintf(p->why, sizeof p->why,
                     "the tracepoints were not enabled (no session daemon reached?)");
            ok = 0;
        } else {
            p->ns = bench_kv(c.out, "ns");
            p->events = bench_kv(c.out, "events");
            bench_kv_str(c.out, "version", version, vlen);
        }
        ok &= lttng_cmd(lttng, stop, p->why, sizeof p->why) == 0;
    }
    lttng_cmd(lttng, destroy, p->why, sizeof p->why);
    if (!ok) {
        p->ns = p->events = NAN;
        bench_rmtree(dir);
        return;
    }
    p->bytes = (double)bench_path_bytes(dir) / p->events;

    if (!bt2) {
        snprintf(p->why, sizeof p->why, "babeltrace2 is not installed: readers not measured");
    } else {
        char *cargv[] = { (char *)bt2, dir, "-c", "sink.utils.counter", "-p", "step=+0", NULL };
        if (bench_spawn(cargv, NULL, BENCH_OUT_CAPTURE, &c) == 0) {
            p->disk_events = counter_value(c.out, "Event messages");
            p->read_evs = p->disk_events / (c.wall_ns / 1e9);
            double lost = counter_value(c.out, "Discarded event messages");
            if (lost > 0)
                snprintf(p->why, sizeof p->why,
                         "LTTng discarded events (%.0f discarded-events messages)", lost);
        }
        char *targv[] = { (char *)bt2, dir, NULL };
        if (bench_spawn(targv, NULL, BENCH_OUT_NULL, &c) == 0)
            p->text_evs = p->disk_events / (c.wall_ns / 1e9);
    }
    bench_rmtree(dir);
}

/* ---------------- table ---------------- */

static void print_row(const peer *p)
{
    printf("%-20s", p->name);
    bench_cell(p->ns, 9, 2);
    bench_cell(p->bytes, 8, 2);
    bench_cell(p->disk_events, 10, 0);
    printf("  %-17s", p->reader);
    bench_cell(p->read_evs / 1e6, 7, 2);
    printf("  %-12s", p->text_tool);
    bench_cell(p->text_evs / 1e6, 7, 2);
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
    if (argc == 4 && strcmp(argv[1], "--ecl") == 0)
        return bench_ecl_child("enter_leave", 1, atoi(argv[3]), strtoull(argv[2], NULL, 10));
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
    int reps = bench_reps(3);
    char tmp[4096], clock_note[512] = "", version[64] = "?";
    bench_mkdtemp("peers", tmp, sizeof tmp);
    fprintf(stderr, "bench_peers: ECL and LTTng-UST, %llu events per round...\n",
            (unsigned long long)n);

    peer peers[3];
    for (int i = 0; i < 3; i++)
        peers[i] = (peer){ .ns = NAN, .events = NAN, .bytes = NAN, .disk_events = NAN,
                           .read_evs = NAN, .text_evs = NAN };
    run_ecl(&peers[0], "none", n, reps, tmp, pal_dump, clock_note, sizeof clock_note);
    run_ecl(&peers[1], "zlib", n, reps, tmp, pal_dump, clock_note, sizeof clock_note);
    run_lttng(&peers[2], n, reps, tmp, bench_lttng, lttng, bt2, version, sizeof version);
    if (strcmp(version, "?") != 0)
        snprintf(peers[2].name, sizeof peers[2].name, "LTTng-UST %s", version);

    char note[1024];
    snprintf(note, sizeof note,
             "%s; LTTng: per-CPU channel, 4 x 4 MiB sub-buffers, blocking (lossless like ECL),"
             "\nclock of lttng-ust (CLOCK_MONOTONIC); its consumer daemon writes on the other "
             "core(s)", clock_note[0] ? clock_note : "ECL clock: unknown");
    bench_table_header("(e) peers: one enter/leave loop, recorded and read back", note);
    printf("1 thread, %llu events per round, recording cost = median of %d rounds after a "
           "warm-up;\nreaders read the whole trace (all rounds); text tools write to /dev/null "
           "(wall time).\n\n",
           (unsigned long long)n, reps);
    printf("%-20s %9s %8s %10s  %-17s %7s  %-12s %7s\n", "tracer", "ns/event", "B/event",
           "events", "reader (events)", "Mev/s", "text tool", "Mev/s");
    for (int i = 0; i < 3; i++)
        print_row(&peers[i]);
    if (!isnan(peers[0].ns) && !isnan(peers[2].ns))
        printf("\nLTTng-UST / ECL (none): %.1fx the recording time, %.1fx the bytes per event\n",
               peers[2].ns / peers[0].ns, peers[2].bytes / peers[0].bytes);
    for (int i = 0; i < 3; i++)
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
