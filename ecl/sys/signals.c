/* signals.c -- ECL system layer: crash hooks. On the first fatal signal the
 * registered callback flushes the trace, then the previous disposition is put
 * back and the signal raised again, so the program dies (or core-dumps) exactly
 * as it would have without ECL. */
#include <config.h>

#include "ecl/sys/sys.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>

static const int hooked[] = { SIGTERM, SIGINT, SIGSEGV, SIGBUS, SIGABRT };
#define NHOOKED (sizeof hooked / sizeof hooked[0])

static struct sigaction saved[NHOOKED];
static int installed[NHOOKED];
static ecl_sys_crash_fn crash_fn;
static int fired;

static int slot_of(int sig)
{
    for (size_t i = 0; i < NHOOKED; i++)
        if (hooked[i] == sig)
            return (int)i;
    return -1;
}

static void on_fatal(int sig)
{
    int saved_errno = errno;
    int slot = slot_of(sig);
    /* Only the first signal flushes: a fault inside the flush itself, or a
     * second signal on another thread, must go straight to the default action. */
    if (__atomic_exchange_n(&fired, 1, __ATOMIC_ACQ_REL) == 0 && crash_fn != NULL)
        crash_fn(sig);
    if (slot >= 0)
        sigaction(sig, &saved[slot], NULL);
    /* The signal is blocked while its handler runs, so this raise is delivered
     * on return, with the restored disposition. A hardware fault would also
     * recur by itself; raising covers kill() and abort() as well. */
    raise(sig);
    errno = saved_errno;
}

int ecl_sys_signals_install(ecl_sys_crash_fn fn)
{
    crash_fn = fn;
    __atomic_store_n(&fired, 0, __ATOMIC_RELEASE);

    struct sigaction ign, cur;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigemptyset(&ign.sa_mask);
    if (sigaction(SIGXFSZ, NULL, &cur) == 0 && cur.sa_handler == SIG_DFL &&
        !(cur.sa_flags & SA_SIGINFO))
        sigaction(SIGXFSZ, &ign, NULL);

    for (size_t i = 0; i < NHOOKED; i++) {
        if (installed[i])
            continue;
        if (sigaction(hooked[i], NULL, &cur) != 0)
            return errno;
        /* A program that handles or ignores the signal itself keeps it: ECL
         * only steps in where the signal would have killed the process. */
        if ((cur.sa_flags & SA_SIGINFO) || cur.sa_handler != SIG_DFL)
            continue;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_fatal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESTART;
        if (sigaction(hooked[i], &sa, &saved[i]) != 0)
            return errno;
        installed[i] = 1;
    }
    return 0;
}

void ecl_sys_signals_uninstall(void)
{
    for (size_t i = 0; i < NHOOKED; i++) {
        struct sigaction cur;
        if (!installed[i])
            continue;
        installed[i] = 0;
        if (sigaction(hooked[i], NULL, &cur) == 0 && !(cur.sa_flags & SA_SIGINFO) &&
            cur.sa_handler == on_fatal)
            sigaction(hooked[i], &saved[i], NULL);
    }
}

void ecl_sys_block_signals(void)
{
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, NULL);
}
