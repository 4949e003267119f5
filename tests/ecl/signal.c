/* signal.c -- ECL crash and life-cycle test program. Two threads record N
 * enter/leave pairs each (no flush: everything is still in the buffers), the
 * second thread stays alive, then the program ends the way MODE says:
 *
 *   segv   a real invalid memory access      abort  abort()
 *   term   kill(getpid(), SIGTERM)           exit   exit(0) without ecl_finalize
 *   pause  N pairs, pause, N ignored pairs, resume, N pairs; then exit(0)
 *
 *   signal MODE [N]
 *
 * The trace must hold exactly the records made before the end (tests/ecl/
 * signal.sh checks it with check_roundtrip). Exit 77 when SIGSEGV already
 * has a handler (a sanitizer's): ECL leaves such handlers alone by design. */
#include <ecl.h>

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static long n = 1000;
static ecl_region region;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int recorded;

static void pairs(long count)
{
    for (long i = 0; i < count; i++) {
        ecl_enter(region);
        ecl_leave(region);
    }
}

static void *second(void *arg)
{
    (void)arg;
    pairs(n);
    pthread_mutex_lock(&lock);
    recorded = 1;
    pthread_cond_broadcast(&cond);
    pthread_mutex_unlock(&lock);
    for (;;)
        pause();                     /* alive, buffer unflushed, until the end */
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: signal segv|term|abort|exit|pause [N]\n");
        return 2;
    }
    const char *mode = argv[1];
    if (argc > 2)
        n = atol(argv[2]);

    struct sigaction sa;
    sigaction(SIGSEGV, NULL, &sa);
    if (strcmp(mode, "segv") == 0 && (sa.sa_flags & SA_SIGINFO || sa.sa_handler != SIG_DFL)) {
        printf("signal: SIGSEGV is already handled (sanitizer?): not applicable\n");
        return 77;
    }

    region = ecl_region_define("work");
    if (strcmp(mode, "pause") == 0) {
        pairs(n);
        ecl_pause();
        pairs(n);
        ecl_resume();
        pairs(n);
        exit(0);
    }

    pthread_t th;
    pthread_create(&th, NULL, second, NULL);
    pthread_mutex_lock(&lock);
    while (!recorded)
        pthread_cond_wait(&cond, &lock);
    pthread_mutex_unlock(&lock);
    pairs(n);
    ecl_marker("before the end");
    printf("signal: trace in %s\n", ecl_trace_path());
    fflush(stdout);

    if (strcmp(mode, "segv") == 0) {
        volatile int *volatile bad = NULL;
        *bad = 1;
    } else if (strcmp(mode, "term") == 0) {
        kill(getpid(), SIGTERM);
        sleep(10);
    } else if (strcmp(mode, "abort") == 0) {
        abort();
    } else if (strcmp(mode, "exit") == 0) {
        exit(0);
    }
    fprintf(stderr, "signal: still alive after '%s'\n", mode);
    return 3;
}
