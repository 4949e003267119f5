/* mpi-exec.c -- pal-view --mpi in the serial pal-view, which does not link
 * MPI: runs pal-view-mpi (views/mpi.c), built when configure found MPI and
 * installed in $(pkglibexecdir), or the program PAL_VIEW_MPI names, with
 * the same arguments in the same process (mpirun's environment kept). */
#include <config.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "views/mpi.h"

int vw_mpi_begin(int argc, char **argv)
{
    (void)argc;
    const char *prog = getenv("PAL_VIEW_MPI");
#ifdef VW_MPI_PROGRAM
    if (prog == NULL || prog[0] == '\0')
        prog = VW_MPI_PROGRAM;
#endif
    if (prog == NULL || prog[0] == '\0') {
        fprintf(stderr, "pal-view: --mpi: this pal-view was built without MPI (configure found "
                        "no working mpicc; Debian: libopenmpi-dev), or set PAL_VIEW_MPI to a "
                        "pal-view-mpi\n");
        return -1;
    }
    execv(prog, argv);
    fprintf(stderr, "pal-view: --mpi: cannot run %s: %s\n", prog, strerror(errno));
    return -1;
}

int vw_mpi_root(void) { return 1; }

int vw_mpi_worker(const char *const *paths, size_t n, const char *dict_path, int ordered,
                  unsigned jobs)
{
    (void)paths, (void)n, (void)dict_path, (void)ordered, (void)jobs;
    return 0;
}

int vw_mpi_run_traces(const char *const *paths, size_t n, const char *dict_path,
                      const vw_sink *sink, unsigned jobs, vw_run **out)
{
    return vw_run_traces_jobs(paths, n, dict_path, sink, jobs, out);
}

int vw_mpi_end(int status) { return status; }
