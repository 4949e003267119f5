/* exectest.c -- exec must not cost the buffered records. Two threads record
 * N enter/leave pairs each without a flush (the second stays alive, its
 * buffer unflushed), main records a "before exec" marker, then:
 *
 *   exectest FUNC N    FUNC (execve, execv, execvp, execvpe, execl, execlp,
 *                      execle, fexecve) runs /bin/true (`true` from PATH for
 *                      the p variants)
 *   exectest self N    execv's this program as `exectest child N`: a traced
 *                      image in the same pid, with a trace of its own
 *   exectest child N   records N pairs and a "child" marker, ends normally
 *   exectest fail N    execv's a file that does not exist; then both threads
 *                      record N pairs more and the program ends normally
 *
 * Prints "exectest: trace in PATH" before exec. Built twice: linked with
 * libecl-core, and as exectest-preload, which is not linked with ECL and
 * finds it only when it is preloaded (LD_PRELOAD, as ecl-run does). */
#define _GNU_SOURCE                  /* execvpe */
#include <ecl.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#ifdef EXECTEST_PRELOAD
#include <dlfcn.h>
#endif

extern char **environ;

static struct {
    ecl_region (*region_define)(const char *);
    void (*enter)(ecl_region);
    void (*leave)(ecl_region);
    void (*marker)(const char *);
    ecl_status (*finalize)(void);
    const char *(*trace_path)(void);
} E;

static int find_ecl(void)
{
#ifdef EXECTEST_PRELOAD
#define FIND(field, name) (*(void **)&E.field = dlsym(RTLD_DEFAULT, name)) != NULL
    return FIND(region_define, "ecl_region_define") && FIND(enter, "ecl_enter") &&
           FIND(leave, "ecl_leave") && FIND(marker, "ecl_marker") &&
           FIND(finalize, "ecl_finalize") && FIND(trace_path, "ecl_trace_path");
#else
    E.region_define = ecl_region_define;
    E.enter = ecl_enter;
    E.leave = ecl_leave;
    E.marker = ecl_marker;
    E.finalize = ecl_finalize;
    E.trace_path = ecl_trace_path;
    return 1;
#endif
}

static long n;
static ecl_region region;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int recorded, go_on;

static void pairs(void)
{
    for (long i = 0; i < n; i++) {
        E.enter(region);
        E.leave(region);
    }
}

static void *second(void *arg)
{
    (void)arg;
    pairs();
    pthread_mutex_lock(&lock);
    recorded = 1;
    pthread_cond_broadcast(&cond);
    while (!go_on)                   /* alive, buffer unflushed, until exec */
        pthread_cond_wait(&cond, &lock);
    pthread_mutex_unlock(&lock);
    pairs();
    return NULL;
}

static int run_exec(const char *func, const char *self)
{
    char *argv[] = { (char *)"true", NULL };
    if (strcmp(func, "execve") == 0)
        return execve("/bin/true", argv, environ);
    if (strcmp(func, "execv") == 0)
        return execv("/bin/true", argv);
    if (strcmp(func, "execvp") == 0)
        return execvp("true", argv);
    if (strcmp(func, "execvpe") == 0)
        return execvpe("true", argv, environ);
    if (strcmp(func, "execl") == 0)
        return execl("/bin/true", "true", (char *)NULL);
    if (strcmp(func, "execlp") == 0)
        return execlp("true", "true", (char *)NULL);
    if (strcmp(func, "execle") == 0)
        return execle("/bin/true", "true", (char *)NULL, environ);
    if (strcmp(func, "fexecve") == 0) {
        int fd = open("/bin/true", O_RDONLY);
        return fd < 0 ? -1 : fexecve(fd, argv, environ);
    }
    if (strcmp(func, "self") == 0) {
        char count[32];
        snprintf(count, sizeof count, "%ld", n);
        char *child[] = { (char *)self, (char *)"child", count, NULL };
        return execv(self, child);
    }
    if (strcmp(func, "fail") == 0)
        return execv("/nonexistent/exectest-no-such-program", argv);
    fprintf(stderr, "exectest: unknown function '%s'\n", func);
    exit(2);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: exectest FUNC|self|child|fail N\n");
        return 2;
    }
    n = atol(argv[2]);
    if (!find_ecl()) {
        fprintf(stderr, "exectest: ECL is not loaded (preload it)\n");
        return 2;
    }
    region = E.region_define("work");
    if (strcmp(argv[1], "child") == 0) {
        pairs();
        E.marker("child");
        printf("exectest: trace in %s\n", E.trace_path());
        return E.finalize() == ECL_OK ? 0 : 1;
    }

    pthread_t th;
    if (pthread_create(&th, NULL, second, NULL) != 0)
        return 1;
    pthread_mutex_lock(&lock);
    while (!recorded)
        pthread_cond_wait(&cond, &lock);
    pthread_mutex_unlock(&lock);
    pairs();
    E.marker("before exec");
    printf("exectest: trace in %s\n", E.trace_path());
    fflush(stdout);

    int r = run_exec(argv[1], argv[0]);
    int e = errno;
    if (strcmp(argv[1], "fail") != 0) {
        fprintf(stderr, "exectest: %s returned %d: %s\n", argv[1], r, strerror(e));
        return 1;
    }
    /* exec failed: tracing goes on, nothing recorded twice or lost */
    pthread_mutex_lock(&lock);
    go_on = 1;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
    pairs();
    pthread_join(th, NULL);
    return E.finalize() == ECL_OK ? 0 : 1;
}
