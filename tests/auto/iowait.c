/* iowait.c -- tests/auto: time in I/O. The main thread reads a pipe READS
 * times; a second thread writes each message after a known delay, so each
 * read blocks for about that long. The program measures each read itself
 * and prints the total ("read waited NS ns in N reads"), which pal-view
 * --waits must find as time in I/O (tests/auto/iowait.sh). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define READS 3

static int fds[2];

static void *feed(void *arg)
{
    (void)arg;
    for (int i = 0; i < READS; i++) {
        struct timespec d = {0, (i + 1) * 40 * 1000000L};   /* 40, 80, 120 ms */
        nanosleep(&d, NULL);
        if (write(fds[1], "x", 1) != 1)
            exit(2);
    }
    return NULL;
}

static long long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

int main(void)
{
    pthread_t t;
    if (pipe(fds) != 0 || pthread_create(&t, NULL, feed, NULL) != 0)
        return 1;
    long long waited = 0;
    int n = 0;
    for (int i = 0; i < READS; i++) {
        char c;
        long long t0 = now_ns();
        if (read(fds[0], &c, 1) != 1)
            return 1;
        waited += now_ns() - t0;
        n++;
    }
    pthread_join(t, NULL);
    printf("read waited %lld ns in %d reads\n", waited, n);
    return 0;
}
