/* mpi.h -- pal-view --mpi: P processes started by mpirun (or srun, mpiexec)
 * each read a share of the run and the partial results are reduced to
 * process 0, which writes every output (doc/views.md, "--mpi"). The serial
 * pal-view does not link MPI: views/mpi-exec.c runs pal-view-mpi (the same
 * pal-view built with views/mpi.c and linked with MPI) in its place. */
#ifndef VW_MPI_H
#define VW_MPI_H

#include "views/vw.h"

/* With --mpi, once the options are checked. pal-view: runs pal-view-mpi
 * with the same arguments (argv as main got it), returning only when that
 * fails (message on stderr, -1). pal-view-mpi: starts MPI; -1 with a
 * message when that fails. */
int vw_mpi_begin(int argc, char **argv);
/* This process writes the outputs: no --mpi, or process 0. */
int vw_mpi_root(void);
/* A process other than 0: reads its shares (in jobs threads) and sends
 * them towards process 0 (ordered: the outputs need the records in time
 * order, which process 0 reads alone, as -j does). Its status for
 * vw_mpi_end. */
int vw_mpi_worker(const char *const *paths, size_t n, const char *dict_path, int ordered,
                  unsigned jobs);
/* Process 0: the run read by all (each process in jobs threads), as
 * vw_run_traces_jobs returns it. */
int vw_mpi_run_traces(const char *const *paths, size_t n, const char *dict_path,
                      const vw_sink *sink, unsigned jobs, vw_run **out);
/* The exit status of every process: process 0's status (the others wait
 * for it); MPI ended. Without --mpi: status. */
int vw_mpi_end(int status);

#endif /* VW_MPI_H */
