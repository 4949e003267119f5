/* bench_rss.c -- runs one program and reports its peak resident memory, for
 * bench_merge. A child's ru_maxrss (wait4) also counts the pages it had
 * before exec, i.e. those of the process that forked it; this program is
 * small (libc only), so that floor stays below any real program's own.
 *
 *   bench_rss REPORT PROG [ARG...]
 *
 * PROG inherits stdin, stdout, stderr and the resource limits. When it has
 * ended, the file REPORT gets three key=value lines: rss_status (its exit
 * status, or 128 + signal), rss_kib (ru_maxrss) and rss_wall_ns (fork to
 * reap). Exit status: the same as PROG's, or 127 when PROG cannot be run or
 * REPORT cannot be written. */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: bench_rss REPORT PROG [ARG...]\n");
        return 127;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "bench_rss: fork: %s\n", strerror(errno));
        return 127;
    }
    if (pid == 0) {
        execvp(argv[2], argv + 2);
        fprintf(stderr, "bench_rss: cannot run %s: %s\n", argv[2], strerror(errno));
        _exit(127);
    }
    int st;
    struct rusage ru;
    while (wait4(pid, &st, 0, &ru) < 0)
        if (errno != EINTR) {
            fprintf(stderr, "bench_rss: wait4: %s\n", strerror(errno));
            return 127;
        }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    int status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    FILE *f = fopen(argv[1], "w");
    if (!f || fprintf(f, "rss_status=%d\nrss_kib=%ld\nrss_wall_ns=%.0f\n", status, ru.ru_maxrss,
                      (double)(t1.tv_sec - t0.tv_sec) * 1e9 +
                          (double)(t1.tv_nsec - t0.tv_nsec)) < 0 ||
        fclose(f) != 0) {
        fprintf(stderr, "bench_rss: cannot write %s: %s\n", argv[1], strerror(errno));
        return 127;
    }
    return status;
}
