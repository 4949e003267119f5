/* perf.c -- ECL system-dependent layer: performance counters of the calling
 * thread through Linux's perf_event_open(2): software events (the kernel
 * counts them everywhere) and hardware events (the CPU's PMU; absent in
 * most virtual machines and containers). Events are opened as groups, so a
 * group is read with one read(2). */
#include <config.h>

#include "ecl/sys/sys.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#if defined(__linux__)
#include <linux/perf_event.h>
#include <sys/syscall.h>
#define HAVE_PERF 1
#else
#define HAVE_PERF 0
#endif

typedef struct known_event {
    const char *name;
    const char *unit;
    int hardware;
    uint32_t type;
    uint64_t config;
} known_event;

#if HAVE_PERF
static const known_event known[] = {
    { "task-clock", "ns", 0, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK },
    { "page-faults", "", 0, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS },
    { "context-switches", "", 0, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES },
    { "cpu-migrations", "", 0, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS },
    { "minor-faults", "", 0, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN },
    { "major-faults", "", 0, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ },
    { "cycles", "", 1, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES },
    { "instructions", "", 1, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS },
    { "cache-references", "", 1, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES },
    { "cache-misses", "", 1, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES },
    { "branches", "", 1, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS },
    { "branch-misses", "", 1, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES },
};
#define NKNOWN (sizeof known / sizeof known[0])
#endif

int ecl_sys_perf_lookup(const char *name, ecl_sys_perf_event *out)
{
#if HAVE_PERF
    for (size_t i = 0; i < NKNOWN; i++)
        if (strcmp(known[i].name, name) == 0) {
            out->name = known[i].name;
            out->unit = known[i].unit;
            out->hardware = known[i].hardware;
            out->index = (unsigned)i;
            return 0;
        }
#else
    (void)name;
    (void)out;
#endif
    return -1;
}

const char *ecl_sys_perf_names(void)
{
    return "task-clock, page-faults, context-switches, cpu-migrations, minor-faults, "
           "major-faults (software); cycles, instructions, cache-references, cache-misses, "
           "branches, branch-misses (hardware)";
}

int ecl_sys_perf_open(const ecl_sys_perf_event *ev, int group_fd)
{
#if HAVE_PERF
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = known[ev->index].type;
    a.config = known[ev->index].config;
    a.read_format = PERF_FORMAT_GROUP;
    a.exclude_kernel = ev->hardware;   /* allowed with perf_event_paranoid 2 */
    a.exclude_hv = 1;
    long fd = syscall(SYS_perf_event_open, &a, 0 /* this thread */, -1, group_fd,
                      PERF_FLAG_FD_CLOEXEC);
    return fd >= 0 ? (int)fd : -errno;
#else
    (void)ev;
    (void)group_fd;
    return -ENOSYS;
#endif
}

int ecl_sys_perf_read(int leader, uint64_t *values, size_t n)
{
    uint64_t buf[1 + 16];
    if (n > 16)
        return EINVAL;
    ssize_t r;
    do
        r = read(leader, buf, (1 + n) * sizeof buf[0]);
    while (r < 0 && errno == EINTR);
    if (r < 0)
        return errno;
    if ((size_t)r < (1 + n) * sizeof buf[0] || buf[0] != n)
        return EIO;
    memcpy(values, buf + 1, n * sizeof buf[0]);
    return 0;
}

void ecl_sys_perf_close(int fd)
{
    if (fd >= 0)
        close(fd);
}
