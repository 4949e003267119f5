/* fortran.c -- ECL MPI profiling layer: the Fortran wrappers the generator
 * does not write (arrays of requests and statuses, 1-based indices,
 * MPI_Init) and the helpers of the generated ones (gen-fortran.c).
 *
 * Open MPI's Fortran bindings call PMPI_* directly, so C wrappers alone never
 * see a Fortran program's calls; ECL exports the Fortran names itself, as
 * mpiP does. Each wrapper converts the handles and calls the C wrapper, which
 * records. Calls on more than SMALL requests allocate their conversion
 * arrays. */
#include <config.h>

#include "ecl/mpi/mpi-internal.h"

#include <stdlib.h>

/* Fortran's INTEGER is C int for every compiler Open MPI supports here. */
_Static_assert(sizeof(MPI_Fint) == sizeof(int), "MPI_Fint must be int");

#define F_STATUS_SIZE ((int)(sizeof(MPI_Status) / sizeof(MPI_Fint)))
#define SMALL 32

/* The addresses of the Fortran sentinels (common blocks of the MPI library,
 * in each name mangling); weak, so a library without them still loads. */
#define SENTINEL(x) \
    extern int x __attribute__((weak)); extern int x##_ __attribute__((weak)); \
    extern int x##__ __attribute__((weak));
SENTINEL(mpi_fortran_bottom)
SENTINEL(mpi_fortran_in_place)
SENTINEL(mpi_fortran_status_ignore)
SENTINEL(mpi_fortran_statuses_ignore)

static int is_sentinel(const void *p, const void *a, const void *b, const void *c)
{
    return p != NULL && (p == a || p == b || p == c);
}

void *ecl_mpi_f_buf(void *p)
{
    if (is_sentinel(p, &mpi_fortran_bottom, &mpi_fortran_bottom_, &mpi_fortran_bottom__))
        return MPI_BOTTOM;
    if (is_sentinel(p, &mpi_fortran_in_place, &mpi_fortran_in_place_, &mpi_fortran_in_place__))
        return MPI_IN_PLACE;
    return p;
}

int ecl_mpi_f_status_ignore(const MPI_Fint *s)
{
    return (s != NULL && s == MPI_F_STATUS_IGNORE) ||
           is_sentinel(s, &mpi_fortran_status_ignore, &mpi_fortran_status_ignore_,
                       &mpi_fortran_status_ignore__);
}

int ecl_mpi_f_statuses_ignore(const MPI_Fint *s)
{
    return (s != NULL && s == MPI_F_STATUSES_IGNORE) ||
           is_sentinel(s, &mpi_fortran_statuses_ignore, &mpi_fortran_statuses_ignore_,
                       &mpi_fortran_statuses_ignore__);
}

/* ---------------- MPI_Init, MPI_Init_thread ---------------- */

static void f_init(MPI_Fint *ierr)
{
    int argc = 0;
    char **argv = NULL;
    int rc = MPI_Init(&argc, &argv);
    if (ierr != NULL)
        *ierr = rc;
}
ECL_MPI_F_ALIASES(init, INIT, (MPI_Fint *ierr))

static void f_init_thread(MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr)
{
    int argc = 0, prov = 0;
    char **argv = NULL;
    int rc = MPI_Init_thread(&argc, &argv, *required, &prov);
    *provided = prov;
    if (ierr != NULL)
        *ierr = rc;
}
ECL_MPI_F_ALIASES(init_thread, INIT_THREAD, (MPI_Fint *required, MPI_Fint *provided, MPI_Fint *ierr))

/* ---------------- arrays of requests ---------------- */

typedef struct conv {
    MPI_Request req_small[SMALL];
    MPI_Status st_small[SMALL];
    int idx_small[SMALL];
    MPI_Request *req;
    MPI_Status *st;              /* NULL: statuses ignored */
    int *idx;
} conv;

static int conv_init(conv *c, int n, const MPI_Fint *freqs, const MPI_Fint *fst, int want_idx)
{
    c->req = c->req_small;
    c->st = c->st_small;
    c->idx = c->idx_small;
    if (n > SMALL) {
        c->req = malloc((size_t)n * sizeof *c->req);
        c->st = malloc((size_t)n * sizeof *c->st);
        c->idx = want_idx ? malloc((size_t)n * sizeof *c->idx) : c->idx_small;
        if (c->req == NULL || c->st == NULL || c->idx == NULL) {
            free(c->req);
            free(c->st);
            if (want_idx)
                free(c->idx);
            return -1;
        }
    }
    for (int i = 0; i < n; i++)
        c->req[i] = PMPI_Request_f2c(freqs[i]);
    if (fst != NULL && ecl_mpi_f_statuses_ignore(fst)) {
        if (c->st != c->st_small)
            free(c->st);
        c->st = NULL;
    }
    return 0;
}

/* Back to Fortran: the requests (completed ones are now null), and the
 * statuses of positions [0, nst). */
static void conv_fini(conv *c, int n, MPI_Fint *freqs, MPI_Fint *fst, int nst)
{
    for (int i = 0; i < n; i++)
        freqs[i] = PMPI_Request_c2f(c->req[i]);
    for (int i = 0; c->st != NULL && fst != NULL && i < nst; i++)
        PMPI_Status_c2f(&c->st[i], fst + (size_t)i * F_STATUS_SIZE);
    if (c->req != c->req_small)
        free(c->req);
    if (c->st != NULL && c->st != c->st_small)
        free(c->st);
    if (c->idx != c->idx_small)
        free(c->idx);
}

#define F_OOM(ierr)                     \
    do {                                \
        if ((ierr) != NULL)             \
            *(ierr) = MPI_ERR_NO_MEM;   \
        return;                         \
    } while (0)

static void f_waitall(MPI_Fint *count, MPI_Fint *reqs, MPI_Fint *statuses, MPI_Fint *ierr)
{
    conv c;
    int n = *count;
    if (conv_init(&c, n, reqs, statuses, 0) != 0)
        F_OOM(ierr);
    int rc = MPI_Waitall(n, c.req, c.st != NULL ? c.st : MPI_STATUSES_IGNORE);
    conv_fini(&c, n, reqs, statuses, n);
    if (ierr != NULL)
        *ierr = rc;
}
ECL_MPI_F_ALIASES(waitall, WAITALL, (MPI_Fint *count, MPI_Fint *reqs, MPI_Fint *statuses, MPI_Fint *ierr))

static void f_testall(MPI_Fint *count, MPI_Fint *reqs, MPI_Fint *flag, MPI_Fint *statuses,
                      MPI_Fint *ierr)
{
    conv c;
    int n = *count, fl = 0;
    if (conv_init(&c, n, reqs, statuses, 0) != 0)
        F_OOM(ierr);
    int rc = MPI_Testall(n, c.req, &fl, c.st != NULL ? c.st : MPI_STATUSES_IGNORE);
    conv_fini(&c, n, reqs, statuses, fl ? n : 0);
    *flag = fl;
    if (ierr != NULL)
        *ierr = rc;
}
ECL_MPI_F_ALIASES(testall, TESTALL, (MPI_Fint *count, MPI_Fint *reqs, MPI_Fint *flag, MPI_Fint *statuses, MPI_Fint *ierr))

/* Fortran indices are 1-based. */
static void f_waitany(MPI_Fint *count, MPI_Fint *reqs, MPI_Fint *index, MPI_Fint *status,
                      MPI_Fint *ierr)
{
    conv c;
    int n = *count, k = MPI_UNDEFINED;
    if (conv_init(&c, n, reqs, NULL, 0) != 0)
        F_OOM(ierr);
    int ign = ecl_mpi_f_status_ignore(status);
    MPI_Status st;
    int rc = MPI_Waitany(n, c.req, &k, ign ? MPI_STATUS_IGNORE : &st);
    conv_fini(&c, n, reqs, NULL, 0);
    *index = k == MPI_UNDEFINED ? MPI_UNDEFINED : k + 1;
    if (!ign && rc == MPI_SUCCESS)
        PMPI_Status_c2f(&st, status);
    if (ierr != NULL)
        *ierr = rc;
}
ECL_MPI_F_ALIASES(waitany, WAITANY, (MPI_Fint *count, MPI_Fint *reqs, MPI_Fint *index, MPI_Fint *status, MPI_Fint *ierr))

static void f_testany(MPI_Fint *count, MPI_Fint *reqs, MPI_Fint *index, MPI_Fint *flag,
                      MPI_Fint *status, MPI_Fint *ierr)
{
    conv c;
    int n = *count, k = MPI_UNDEFINED, fl = 0;
    if (conv_init(&c, n, reqs, NULL, 0) != 0)
        F_OOM(ierr);
    int ign = ecl_mpi_f_status_ignore(status);
    MPI_Status st;
    int rc = MPI_Testany(n, c.req, &k, &fl, ign ? MPI_STATUS_IGNORE : &st);
    conv_fini(&c, n, reqs, NULL, 0);
    *index = k == MPI_UNDEFINED ? MPI_UNDEFINED : k + 1;
    *flag = fl;
    if (!ign && fl && rc == MPI_SUCCESS)
        PMPI_Status_c2f(&st, status);
    if (ierr != NULL)
        *ierr = rc;
}
ECL_MPI_F_ALIASES(testany, TESTANY, (MPI_Fint *count, MPI_Fint *reqs, MPI_Fint *index, MPI_Fint *flag, MPI_Fint *status, MPI_Fint *ierr))

static void fsome(int test, MPI_Fint *incount, MPI_Fint *reqs, MPI_Fint *outcount,
                  MPI_Fint *indices, MPI_Fint *statuses, MPI_Fint *ierr)
{
    conv c;
    int n = *incount, out = 0;
    if (conv_init(&c, n, reqs, statuses, 1) != 0)
        F_OOM(ierr);
    MPI_Status *st = c.st != NULL ? c.st : MPI_STATUSES_IGNORE;
    int rc = test ? MPI_Testsome(n, c.req, &out, c.idx, st) : MPI_Waitsome(n, c.req, &out, c.idx, st);
    for (int j = 0; out != MPI_UNDEFINED && j < out; j++)
        indices[j] = c.idx[j] + 1;
    conv_fini(&c, n, reqs, statuses, out == MPI_UNDEFINED ? 0 : out);
    *outcount = out;
    if (ierr != NULL)
        *ierr = rc;
}

static void f_waitsome(MPI_Fint *incount, MPI_Fint *reqs, MPI_Fint *outcount, MPI_Fint *indices,
                       MPI_Fint *statuses, MPI_Fint *ierr)
{
    fsome(0, incount, reqs, outcount, indices, statuses, ierr);
}
ECL_MPI_F_ALIASES(waitsome, WAITSOME, (MPI_Fint *incount, MPI_Fint *reqs, MPI_Fint *outcount, MPI_Fint *indices, MPI_Fint *statuses, MPI_Fint *ierr))

static void f_testsome(MPI_Fint *incount, MPI_Fint *reqs, MPI_Fint *outcount, MPI_Fint *indices,
                       MPI_Fint *statuses, MPI_Fint *ierr)
{
    fsome(1, incount, reqs, outcount, indices, statuses, ierr);
}
ECL_MPI_F_ALIASES(testsome, TESTSOME, (MPI_Fint *incount, MPI_Fint *reqs, MPI_Fint *outcount, MPI_Fint *indices, MPI_Fint *statuses, MPI_Fint *ierr))

static void f_startall(MPI_Fint *count, MPI_Fint *reqs, MPI_Fint *ierr)
{
    conv c;
    int n = *count;
    if (conv_init(&c, n, reqs, NULL, 0) != 0)
        F_OOM(ierr);
    int rc = MPI_Startall(n, c.req);
    conv_fini(&c, n, reqs, NULL, 0);
    if (ierr != NULL)
        *ierr = rc;
}
ECL_MPI_F_ALIASES(startall, STARTALL, (MPI_Fint *count, MPI_Fint *reqs, MPI_Fint *ierr))
