/* bench_common.c -- shared helpers of the bench/ programs (see bench_common.h). */
#include <config.h>

#include "bench/bench_common.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/time.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* ---------------- machine, clock, date ---------------- */

static void read_line_file(const char *path, char *buf, size_t len)
{
    buf[0] = '\0';
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    if (fgets(buf, (int)len, f))
        buf[strcspn(buf, "\n")] = '\0';
    fclose(f);
}

static void cpu_model(char *buf, size_t len)
{
    char line[512];
    buf[0] = '\0';
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        while (fgets(line, sizeof line, f)) {
            /* x86: "model name"; some arm64 kernels: "Hardware" or "CPU part" only */
            if (strncmp(line, "model name", 10) == 0 || strncmp(line, "Hardware", 8) == 0) {
                const char *v = strchr(line, ':');
                if (v) {
                    v++;
                    while (*v == ' ' || *v == '\t')
                        v++;
                    snprintf(buf, len, "%.*s", (int)strcspn(v, "\n"), v);
                    break;
                }
            }
        }
        fclose(f);
    }
    if (!buf[0]) {
        struct utsname u;
        snprintf(buf, len, "%s", uname(&u) == 0 ? u.machine : "unknown CPU");
    }
}

void bench_table_header(const char *title, const char *clock_note)
{
    char model[256], cs[128], date[64];
    cpu_model(model, sizeof model);
    read_line_file("/sys/devices/system/clocksource/clocksource0/current_clocksource", cs,
                   sizeof cs);
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(date, sizeof date, "%Y-%m-%d %H:%M UTC", &tm);
    printf("\n== %s ==\n", title);
    /* Other work on the machine shows up in the 2-thread columns first. */
    char load[128];
    read_line_file("/proc/loadavg", load, sizeof load);
    load[strcspn(load, " ")] = '\0';
    printf("machine: %s, %ld cores | kernel clocksource: %s | load (1 min): %s | date: %s\n",
           model, sysconf(_SC_NPROCESSORS_ONLN), cs[0] ? cs : "unknown",
           load[0] ? load : "?", date);
    struct statfs fs;
    const char *base = bench_tmp_base();
    printf("traces written under %s (%s; BENCH_TMPDIR changes it)\n", base,
           statfs(base, &fs) == 0 && fs.f_type == 0x01021994 /* TMPFS_MAGIC */
               ? "tmpfs, in memory" : "disk");
    if (clock_note && clock_note[0])
        printf("%s\n", clock_note);
    printf("\n");
}

double bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double bench_median(const double *v, int n)
{
    if (n <= 0)
        return NAN;
    double *s = malloc((size_t)n * sizeof *s);
    if (!s)
        return v[0];
    memcpy(s, v, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    double m = (n % 2) ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
    free(s);
    return m;
}

int bench_min_median(const double *v, int n, double *min, double *med)
{
    double *ok = malloc((size_t)(n > 0 ? n : 1) * sizeof *ok);
    int k = 0;
    if (!ok) {
        fprintf(stderr, "bench: out of memory\n");
        exit(1);
    }
    for (int i = 0; i < n; i++)
        if (!isnan(v[i]))
            ok[k++] = v[i];
    *min = *med = NAN;
    if (k > 0) {
        qsort(ok, (size_t)k, sizeof *ok, cmp_double);
        *min = ok[0];
        *med = bench_median(ok, k);
    }
    free(ok);
    return k;
}

uint64_t bench_scaled(uint64_t n)
{
    const char *e = getenv("BENCH_SCALE");
    double s = e ? strtod(e, NULL) : 1.0;
    if (!(s > 0))
        s = 1.0;
    double v = (double)n * s;
    return v < 1000 ? 1000 : (uint64_t)v;
}

int bench_reps(void)
{
    const char *e = getenv("BENCH_REPS");
    int r = e ? atoi(e) : BENCH_RUNS_DEFAULT;
    return r >= 1 ? r : BENCH_RUNS_DEFAULT;
}

/* ---------------- threads with repetitions ---------------- */

typedef struct run_ctx {
    pthread_barrier_t start, done;
    int nthreads, rounds;
    uint64_t n;
    bench_loop_fn loop;
    void *arg;
    double *ns;              /* [round][thread] ns per event */
} run_ctx;

typedef struct run_arg {
    run_ctx *ctx;
    int tid;
} run_arg;

static void *run_thread(void *p)
{
    run_arg *a = p;
    run_ctx *c = a->ctx;
    for (int r = 0; r < c->rounds; r++) {
        uint64_t n = r == 0 ? (c->n / 10 ? c->n / 10 : 1) : c->n;   /* round 0: warm-up */
        pthread_barrier_wait(&c->start);
        double t0 = bench_now_ns();
        uint64_t keep = c->loop(n, a->tid, c->arg);
        double t1 = bench_now_ns();
        BENCH_KEEP(keep);
        c->ns[r * c->nthreads + a->tid] = (t1 - t0) / (double)n;
        pthread_barrier_wait(&c->done);
    }
    return NULL;
}

double bench_run_threads(int nthreads, int reps, uint64_t n, bench_loop_fn loop, void *arg)
{
    run_ctx c = { .nthreads = nthreads, .rounds = reps + 1, .n = n, .loop = loop, .arg = arg };
    c.ns = calloc((size_t)c.rounds * (size_t)nthreads, sizeof *c.ns);
    pthread_t *th = calloc((size_t)nthreads, sizeof *th);
    run_arg *args = calloc((size_t)nthreads, sizeof *args);
    double *per_round = calloc((size_t)reps, sizeof *per_round);
    if (!c.ns || !th || !args || !per_round) {
        fprintf(stderr, "bench: out of memory\n");
        exit(1);
    }
    pthread_barrier_init(&c.start, NULL, (unsigned)nthreads);
    pthread_barrier_init(&c.done, NULL, (unsigned)nthreads);
    for (int t = 0; t < nthreads; t++) {
        args[t] = (run_arg){ &c, t };
        if (pthread_create(&th[t], NULL, run_thread, &args[t]) != 0) {
            fprintf(stderr, "bench: cannot create thread\n");
            exit(1);
        }
    }
    for (int t = 0; t < nthreads; t++)
        pthread_join(th[t], NULL);
    for (int r = 1; r < c.rounds; r++) {
        double sum = 0;
        for (int t = 0; t < nthreads; t++)
            sum += c.ns[r * nthreads + t];
        per_round[r - 1] = sum / nthreads;
    }
    double m = bench_median(per_round, reps);
    pthread_barrier_destroy(&c.start);
    pthread_barrier_destroy(&c.done);
    free(per_round);
    free(args);
    free(th);
    free(c.ns);
    return m;
}

/* ---------------- child processes ---------------- */

/* In the child, before exec: the limits bench_spawn_opts asks for. A limit
 * that cannot be set is said on stderr (the table reports the failure). */
static void child_limits(const bench_spawn_opts *o)
{
    struct rlimit rl;
    if (o->raise_nofile && getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
            fprintf(stderr, "bench: cannot raise RLIMIT_NOFILE: %s\n", strerror(errno));
    }
    if (o->as_limit && getrlimit(RLIMIT_AS, &rl) == 0) {
        rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || o->as_limit < rl.rlim_max
                          ? (rlim_t)o->as_limit : rl.rlim_max;
        if (setrlimit(RLIMIT_AS, &rl) != 0)
            fprintf(stderr, "bench: cannot set RLIMIT_AS: %s\n", strerror(errno));
    }
    if (o->cpu_limit_s && getrlimit(RLIMIT_CPU, &rl) == 0) {
        rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || o->cpu_limit_s < rl.rlim_max
                          ? (rlim_t)o->cpu_limit_s : rl.rlim_max;
        if (setrlimit(RLIMIT_CPU, &rl) != 0)
            fprintf(stderr, "bench: cannot set RLIMIT_CPU: %s\n", strerror(errno));
    }
}

int bench_spawn(char *const argv[], char *const env[], int out_mode, bench_child *c)
{
    bench_spawn_opts o = { .out_mode = out_mode };
    return bench_spawn_with(argv, env, &o, c);
}

int bench_spawn_with(char *const argv[], char *const env[], const bench_spawn_opts *o,
                     bench_child *c)
{
    int fds[2] = { -1, -1 };
    int out_mode = o->out_mode;
    memset(c, 0, sizeof *c);
    c->status = -1;
    int capture = out_mode != BENCH_OUT_NULL;
    if (capture && pipe(fds) != 0)
        return -1;
    fflush(stdout);
    double t0 = bench_now_ns();
    pid_t pid = fork();
    if (pid < 0) {
        if (fds[0] >= 0) {
            close(fds[0]);
            close(fds[1]);
        }
        return -1;
    }
    if (pid == 0) {
        for (size_t i = 0; env && env[i]; i++) {
            if (strchr(env[i], '='))
                putenv(env[i]);
            else
                unsetenv(env[i]);
        }
        child_limits(o);
        int fd = fds[1];
        if (out_mode == BENCH_OUT_NULL)
            fd = open("/dev/null", O_WRONLY);
        else
            close(fds[0]);
        if (fd < 0)
            _exit(127);
        if (out_mode == BENCH_OUT_FILE) {
            int ofd = open(o->out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
            if (ofd < 0 || dup2(ofd, STDOUT_FILENO) < 0 || dup2(fd, STDERR_FILENO) < 0) {
                dprintf(fd, "bench: cannot write '%s': %s\n", o->out_path, strerror(errno));
                _exit(127);
            }
            close(ofd);
        } else if (dup2(fd, STDOUT_FILENO) < 0 ||
                   (out_mode == BENCH_OUT_CAPTURE_ALL && dup2(fd, STDERR_FILENO) < 0)) {
            _exit(127);
        }
        close(fd);
        if (strchr(argv[0], '/'))
            execv(argv[0], argv);
        else
            execvp(argv[0], argv);
        fprintf(stderr, "bench: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    if (capture) {
        close(fds[1]);
        size_t used = 0;
        char sink[4096];
        for (;;) {
            char *dst = used < sizeof c->out - 1 ? c->out + used : sink;
            size_t room = used < sizeof c->out - 1 ? sizeof c->out - 1 - used : sizeof sink;
            ssize_t k = read(fds[0], dst, room);
            if (k < 0 && errno == EINTR)
                continue;
            if (k <= 0)
                break;
            if (dst != sink)
                used += (size_t)k;
        }
        c->out[used] = '\0';
        close(fds[0]);
    }
    int st;
    struct rusage ru;
    while (wait4(pid, &st, 0, &ru) < 0) {
        if (errno != EINTR)
            return -1;
    }
    c->wall_ns = bench_now_ns() - t0;
    c->maxrss_kib = ru.ru_maxrss;
    c->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    return c->status;
}

static const char *kv_find(const char *out, const char *key)
{
    size_t kl = strlen(key);
    for (const char *p = out; p && *p;) {
        if (strncmp(p, key, kl) == 0 && p[kl] == '=')
            return p + kl + 1;
        p = strchr(p, '\n');
        if (p)
            p++;
    }
    return NULL;
}

double bench_kv(const char *out, const char *key)
{
    const char *v = kv_find(out, key);
    return v ? strtod(v, NULL) : NAN;
}

int bench_kv_str(const char *out, const char *key, char *buf, size_t len)
{
    const char *v = kv_find(out, key);
    if (!v)
        return -1;
    snprintf(buf, len, "%.*s", (int)strcspn(v, "\n"), v);
    return 0;
}

const char *bench_self(void)
{
    static char path[4096];
    if (!path[0]) {
        ssize_t k = readlink("/proc/self/exe", path, sizeof path - 1);
        if (k <= 0) {
            fprintf(stderr, "bench: cannot find own executable\n");
            exit(1);
        }
        path[k] = '\0';
    }
    return path;
}

const char *bench_sibling(const char *name, char *buf, size_t len)
{
    const char *self = bench_self();
    const char *slash = strrchr(self, '/');
    snprintf(buf, len, "%.*s/%s", (int)(slash - self), self, name);
    return access(buf, X_OK) == 0 ? buf : NULL;
}

const char *bench_which(const char *prog, char *buf, size_t len)
{
    if (!prog || !prog[0])
        return NULL;
    if (strchr(prog, '/')) {
        snprintf(buf, len, "%s", prog);
        return access(buf, X_OK) == 0 ? buf : NULL;
    }
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/local/bin:/usr/bin:/bin";
    while (*path) {
        size_t n = strcspn(path, ":");
        snprintf(buf, len, "%.*s/%s", (int)n, n ? path : ".", prog);
        if (access(buf, X_OK) == 0)
            return buf;
        path += n + (path[n] == ':');
    }
    return NULL;
}

/* ---------------- what ECL says ---------------- */

void bench_ecl_settings(const char *out, char *buf, size_t len)
{
    const char *p = strstr(out, "ecl: tracing to '");
    buf[0] = '\0';
    if (!p || !(p = strstr(p, "' (")))
        return;
    p += 3;
    size_t n = strcspn(p, "\n");
    if (n > 0 && p[n - 1] == ')')
        n--;
    snprintf(buf, len, "%.*s", (int)n, p);
}

void bench_ecl_compression(const char *out, char *buf, size_t len)
{
    char said[1024];
    bench_ecl_settings(out, said, sizeof said);
    const char *p = strstr(said, "compression ");
    if (!p) {
        snprintf(buf, len, "unknown");
        return;
    }
    p += strlen("compression ");
    snprintf(buf, len, "%.*s", (int)strcspn(p, ";) "), p);
}

/* ---------------- files ---------------- */

static uint64_t tree_bytes;
static const char *find_suffix;
static char *find_buf;
static size_t find_len;
static int find_found;

static int add_bytes(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)p;
    (void)ftw;
    if (flag == FTW_F && S_ISREG(st->st_mode))
        tree_bytes += (uint64_t)st->st_size;
    return 0;
}

uint64_t bench_path_bytes(const char *path)
{
    tree_bytes = 0;
    nftw(path, add_bytes, 16, FTW_PHYS);
    return tree_bytes;
}

static int match_file(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    size_t pl = strlen(p), sl = strlen(find_suffix);
    if (flag == FTW_F && pl >= sl && strcmp(p + pl - sl, find_suffix) == 0) {
        snprintf(find_buf, find_len, "%s", p);
        find_found = 1;
        return 1;
    }
    return 0;
}

int bench_find_file(const char *dir, const char *suffix, char *buf, size_t len)
{
    find_suffix = suffix;
    find_buf = buf;
    find_len = len;
    find_found = 0;
    nftw(dir, match_file, 16, FTW_PHYS);
    return find_found ? 0 : -1;
}

const char *bench_tmp_base(void)
{
    const char *e = getenv("BENCH_TMPDIR");
    if (e && e[0])
        return e;
    struct statfs fs;
    struct statvfs vfs;
    if (statfs("/dev/shm", &fs) == 0 && fs.f_type == 0x01021994 /* TMPFS_MAGIC */ &&
        statvfs("/dev/shm", &vfs) == 0 &&
        (double)vfs.f_bavail * (double)vfs.f_frsize >= 4.0 * (1u << 30) &&
        access("/dev/shm", W_OK) == 0)
        return "/dev/shm";
    e = getenv("TMPDIR");
    return e && e[0] ? e : "/tmp";
}

/* The temporary directory of this process, removed on SIGINT/SIGTERM/SIGPIPE
 * too. nftw is not async-signal-safe; the handler only runs when the program is
 * being killed anyway, and leaving a gigabyte of traces in /dev/shm is worse. */
static char tmp_dir[4096];
static pid_t tmp_owner;

static void tmp_cleanup_signal(int sig)
{
    if (tmp_dir[0] && getpid() == tmp_owner)
        bench_rmtree(tmp_dir);
    signal(sig, SIG_DFL);
    raise(sig);
}

void bench_mkdtemp(const char *tag, char *buf, size_t len)
{
    snprintf(buf, len, "%s/ecl-bench-%s-XXXXXX", bench_tmp_base(), tag);
    if (!mkdtemp(buf)) {
        fprintf(stderr, "bench: cannot create a temporary directory '%s': %s\n", buf,
                strerror(errno));
        exit(1);
    }
    snprintf(tmp_dir, sizeof tmp_dir, "%s", buf);
    tmp_owner = getpid();
    signal(SIGINT, tmp_cleanup_signal);
    signal(SIGTERM, tmp_cleanup_signal);
    signal(SIGPIPE, tmp_cleanup_signal);
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(p);
    return 0;
}

void bench_rmtree(const char *path)
{
    if (getenv("BENCH_KEEP_TRACES")) {
        printf("(kept %s)\n", path);
        return;
    }
    nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    if (strcmp(path, tmp_dir) == 0)
        tmp_dir[0] = '\0';
}

/* ---------------- formatting ---------------- */

void bench_cell(double v, int width, int decimals)
{
    if (isnan(v))
        printf(" %*s", width, "n/a");
    else
        printf(" %*.*f", width, decimals, v);
}

void bench_cells_min_median(const double *v, int n, int width, int decimals, double scale)
{
    double mn, md;
    bench_min_median(v, n, &mn, &md);
    bench_cell(mn * scale, width, decimals);
    bench_cell(md * scale, width, decimals);
}

double bench_mib(long kib)
{
    return (double)kib / 1024.0;
}
