/* mtest.h -- what the MPI test-suite style examples (intercomm, windows,
 * matched, neighbors, fileptr) share: a check that counts what went wrong,
 * and the end every such program has, " No Errors" from rank 0 when no rank
 * found an error (the convention of the MPI test suites). Define MTEST_PROG
 * (the program's name, for messages) before including it. */
#ifndef ECL_EXAMPLES_MTEST_H
#define ECL_EXAMPLES_MTEST_H

#include <mpi.h>
#include <stdio.h>

static int mtest_errors;

/* Counts an error, saying what differed. */
static void expect(long got, long want, const char *what)
{
    if (got != want) {
        fprintf(stderr, "%s: %s: got %ld, expected %ld\n", MTEST_PROG, what, got, want);
        mtest_errors++;
    }
}

/* Collective over world: prints the result at rank 0, finalizes MPI and
 * returns the program's exit status. */
static int mtest_finish(void)
{
    int rank, all = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Allreduce(&mtest_errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        if (all == 0)
            printf(" No Errors\n");
        else
            printf(" Found %d errors\n", all);
    }
    MPI_Finalize();
    return all != 0;
}

#endif
