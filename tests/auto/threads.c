/* threads.c -- tests/auto: THREADS threads created and joined (twice over,
 * so a stream is reused by no one), each contending for one mutex; and,
 * with an argument FILE, BYTES bytes written to FILE with write and pwrite
 * and read back with read and pread (the I/O group's byte counts). */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define THREADS 4

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long shared;

static void *work(void *arg)
{
    (void)arg;
    for (int i = 0; i < 20000; i++) {
        pthread_mutex_lock(&lock);
        shared++;
        pthread_mutex_unlock(&lock);
    }
    return NULL;
}

static void io(const char *path)
{
    char buf[1000];
    memset(buf, 'x', sizeof buf);
    int fd = open(path, O_CREAT | O_TRUNC | O_RDWR, 0644);
    if (fd < 0) {
        perror(path);
        exit(1);
    }
    /* written: 7 * 1000 + 1000 + 123 = 8123 bytes; read: 8123 */
    for (int i = 0; i < 7; i++)
        if (write(fd, buf, sizeof buf) != (ssize_t)sizeof buf)
            exit(1);
    if (pwrite(fd, buf, sizeof buf, 7000) != (ssize_t)sizeof buf)
        exit(1);
    if (pwrite(fd, buf, 123, 8000) != 123)
        exit(1);
    fsync(fd);
    close(fd);
    fd = open(path, O_RDONLY);
    ssize_t n, total = 0;
    while ((n = read(fd, buf, sizeof buf)) > 0)
        total += n;
    if (pread(fd, buf, sizeof buf, 0) != (ssize_t)sizeof buf)
        exit(1);
    close(fd);
    printf("read %zd bytes\n", total);
}

int main(int argc, char **argv)
{
    for (int round = 0; round < 2; round++) {
        pthread_t t[THREADS];
        for (int i = 0; i < THREADS; i++)
            pthread_create(&t[i], NULL, work, NULL);
        for (int i = 0; i < THREADS; i++)
            pthread_join(t[i], NULL);
    }
    if (argc > 1)
        io(argv[1]);
    printf("%ld\n", shared);
    return 0;
}
