/* bench_cg.c -- an MPI conjugate gradient with the communication shape of
 * NPB CG (written from the algorithm, not from NPB's code): the inverse
 * power method on a sparse symmetric positive definite matrix, each outer
 * iteration a CG solve of A z = x in 25 iterations, zeta = 1 / (x . z) the
 * estimate of A's smallest eigenvalue, x = z / |z|.
 *
 *   mpirun -np P bench/bench_cg [-c S|W|A] [-i ITERATIONS]
 *
 * P a power of two. The ranks form a grid of pr rows and pc = pr or 2 pr
 * columns (rank = row * pc + column); rank (i, j) holds the block of A of
 * row block i and column block j (rows and columns cut into pr and pc
 * equal parts). Vectors are held by column block, the same on every rank
 * of a grid column. q = A p is, per rank, the block's sparse product
 * (region spmv), its sum over the grid row by recursive doubling (row_sum:
 * log2(pc) exchanges with rank j ^ d, MPI_Irecv + MPI_Send + MPI_Wait) and
 * the transpose exchange (transpose) with the one rank that holds the
 * part of the row block that this rank's column block needs (rank
 * (j / k, k i + j % k) for pc = k pr; none on the diagonal). Dot products
 * are the sum of each rank's share (a pr-th of its column block) by
 * MPI_Allreduce (dot); the vector updates are region axpy.
 *
 * The matrix, the same for every P: row g's slots s < NZ give an entry
 * (g, k) and (k, g) of value v, k and v from a hash of (g, s), v in
 * (-1, 1); the diagonal is 1.25 times the row's sum of |v| plus 1
 * (diagonally dominant, so positive definite and well conditioned).
 * Classes: S n = 1400, NZ 28; W n = 7000, NZ 40; A n = 14000, NZ 66 (NPB's
 * sizes; about as many nonzeros per row as NPB's matrices); 15 outer
 * iterations unless -i.
 *
 * Verification, as NPB's: every solve's residual |x - A z| must be below
 * 1e-10 (x is a unit vector, all components equal at the first solve), and
 * zeta must not grow (1 / (x . A^-1 x) of a unit x decreases under the
 * inverse power method); zeta is printed to 15 digits (the same for every
 * P up to rounding; BENCH_CG_VERBOSE set: per iteration too). Exit status
 * 0 when verified, 1 when not, 2 on a usage error. The regions are
 * recorded through the ECL API (ECL_ENTER/ECL_LEAVE), the MPI calls by
 * ECL's MPI layer. */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ecl.h"

#define CG_ITERATIONS 25

struct block {
    int n;              /* order of A */
    int r0, nr;         /* this rank's rows */
    int c0, nc;         /* this rank's columns (its vectors' part) */
    int d0, nd;         /* its share of the columns in dot products */
    int *start, *col;   /* CSR of the block: row r's entries start[r] .. start[r + 1] */
    double *val;
    long long nnz;
};

static int rank, size, prow, pcol, npr, npc;

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "bench_cg: rank %d: out of memory (%zu bytes)\n", rank, n);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    return p;
}

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* the entry of row g's slot s: its column and value */
static int slot(int n, int nz, int g, int s, double *v)
{
    uint64_t h = mix((uint64_t)g * (uint64_t)nz + (uint64_t)s);
    *v = (double)(h >> 11) * (2.0 / 9007199254740992.0) - 1.0;
    return (int)(mix(h) % (uint64_t)n);
}

struct entry {
    int c;
    double v;
};

static int cmp_entry(const void *a, const void *b)
{
    const struct entry *x = a, *y = b;
    return (x->c > y->c) - (x->c < y->c);
}

/* part b of nb equal parts of n */
static int part(int n, int nb, int b) { return (int)((long long)n * b / nb); }

/* the block of rank (prow, pcol): every rank scans every slot and keeps the
 * entries in its block, so that A does not depend on P */
static void makea(struct block *a, int n, int nz)
{
    ECL_ENTER("makea");
    a->n = n;
    a->r0 = part(n, npr, prow), a->nr = part(n, npr, prow + 1) - a->r0;
    a->c0 = part(n, npc, pcol), a->nc = part(n, npc, pcol + 1) - a->c0;
    a->d0 = part(a->nc, npr, prow), a->nd = part(a->nc, npr, prow + 1) - a->d0;
    int *count = xmalloc(((size_t)a->nr + 1) * sizeof *count);
    double *rowsum = xmalloc((size_t)a->nr * sizeof *rowsum);
    memset(count, 0, ((size_t)a->nr + 1) * sizeof *count);
    memset(rowsum, 0, (size_t)a->nr * sizeof *rowsum);
    int r1 = a->r0 + a->nr, c1 = a->c0 + a->nc;
    /* the block's entries (row, entry) in any order, and each row's sum of
     * |v| over every column */
    size_t total = 0, cap = 1024;
    int *row = xmalloc(cap * sizeof *row);
    struct entry *t = xmalloc(cap * sizeof *t);
    for (int g = 0; g < n; g++)
        for (int s = 0; s < nz; s++) {
            double v;
            int k = slot(n, nz, g, s, &v);
            int ends[2][2] = {{g, k}, {k, g}};
            for (int i = 0; k != g && i < 2; i++) {
                int r = ends[i][0], c = ends[i][1];
                if (r < a->r0 || r >= r1)
                    continue;
                rowsum[r - a->r0] += fabs(v);
                if (c < a->c0 || c >= c1)
                    continue;
                if (total == cap) {
                    cap *= 2;
                    row = realloc(row, cap * sizeof *row);
                    t = realloc(t, cap * sizeof *t);
                    if (!row || !t) {
                        fprintf(stderr, "bench_cg: rank %d: out of memory\n", rank);
                        MPI_Abort(MPI_COMM_WORLD, 1);
                    }
                }
                row[total] = r - a->r0;
                t[total++] = (struct entry){c, v};
                count[r - a->r0]++;
            }
        }
    for (int r = 0; r < a->nr; r++)
        count[r] += a->r0 + r >= a->c0 && a->r0 + r < c1; /* the diagonal */
    /* by row */
    a->start = xmalloc(((size_t)a->nr + 1) * sizeof *a->start);
    a->start[0] = 0;
    for (int r = 0; r < a->nr; r++)
        a->start[r + 1] = a->start[r] + count[r];
    struct entry *e = xmalloc((size_t)a->start[a->nr] * sizeof *e);
    for (int r = 0; r < a->nr; r++)
        count[r] = a->start[r];
    for (size_t i = 0; i < total; i++)
        e[count[row[i]]++] = t[i];
    for (int r = 0; r < a->nr; r++)
        if (a->r0 + r >= a->c0 && a->r0 + r < c1)
            e[count[r]++] = (struct entry){a->r0 + r, 1.25 * rowsum[r] + 1.0};
    total = (size_t)a->start[a->nr];
    free(row);
    free(t);
    /* each row by column, equal columns summed (a pair drawn twice) */
    a->col = xmalloc(total * sizeof *a->col);
    a->val = xmalloc(total * sizeof *a->val);
    size_t m = 0;
    for (int r = 0; r < a->nr; r++) {
        size_t b = (size_t)a->start[r], end = (size_t)a->start[r + 1];
        qsort(e + b, end - b, sizeof *e, cmp_entry);
        a->start[r] = (int)m;
        for (size_t i = b; i < end; i++) {
            if (i > b && e[i].c == e[i - 1].c) {
                a->val[m - 1] += e[i].v;
                continue;
            }
            a->col[m] = e[i].c - a->c0;
            a->val[m++] = e[i].v;
        }
    }
    a->start[a->nr] = (int)m;
    a->nnz = (long long)m;
    free(e);
    free(count);
    free(rowsum);
    ECL_LEAVE("makea");
}

static int grid_rank(int i, int j) { return i * npc + j; }

/* q (this rank's columns) = A p; w is scratch of nr doubles, t of nr */
static void matvec(const struct block *a, const double *p, double *q, double *w, double *t)
{
    ECL_ENTER("spmv");
    for (int r = 0; r < a->nr; r++) {
        double s = 0;
        for (int k = a->start[r]; k < a->start[r + 1]; k++)
            s += a->val[k] * p[a->col[k]];
        w[r] = s;
    }
    ECL_LEAVE("spmv");
    ECL_ENTER("row_sum");
    for (int d = 1; d < npc; d <<= 1) {
        MPI_Request rq;
        int partner = grid_rank(prow, pcol ^ d);
        MPI_Irecv(t, a->nr, MPI_DOUBLE, partner, d, MPI_COMM_WORLD, &rq);
        MPI_Send(w, a->nr, MPI_DOUBLE, partner, d, MPI_COMM_WORLD);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
        /* a + b == b + a: both partners hold the same sums */
        for (int r = 0; r < a->nr; r++)
            w[r] += t[r];
    }
    ECL_LEAVE("row_sum");
    /* w is A p on this row block; this rank needs it on its column block,
     * held by rank (j / k, k i + j % k) (the same rank when it is this one) */
    ECL_ENTER("transpose");
    int k = npc / npr, ti = pcol / k, tj = k * prow + pcol % k;
    int tc0 = part(a->n, npc, tj), tnc = part(a->n, npc, tj + 1) - tc0;
    if (ti == prow && tj == pcol) {
        memcpy(q, w + (a->c0 - a->r0), (size_t)a->nc * sizeof *q);
    } else {
        MPI_Request rq;
        int partner = grid_rank(ti, tj);
        MPI_Irecv(q, a->nc, MPI_DOUBLE, partner, 100, MPI_COMM_WORLD, &rq);
        MPI_Send(w + (tc0 - a->r0), tnc, MPI_DOUBLE, partner, 100, MPI_COMM_WORLD);
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
    }
    ECL_LEAVE("transpose");
}

/* the dot products x[i] . y[i] for i < m (m <= 2) over the whole vectors */
static void dot(const struct block *a, int m, const double *const *x, const double *const *y,
                double *out)
{
    ECL_ENTER("dot");
    double s[2] = {0, 0};
    for (int i = 0; i < m; i++)
        for (int c = a->d0; c < a->d0 + a->nd; c++)
            s[i] += x[i][c] * y[i][c];
    MPI_Allreduce(s, out, m, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    ECL_LEAVE("dot");
}

static double dot1(const struct block *a, const double *x, const double *y)
{
    double d;
    dot(a, 1, &x, &y, &d);
    return d;
}

struct vectors { double *x, *z, *p, *q, *r, *w, *t; };

/* solves A z = x by CG; returns |x - A z| */
static double conj_grad(const struct block *a, struct vectors *v)
{
    ECL_ENTER("conj_grad");
    int nc = a->nc;
    ECL_ENTER("axpy");
    for (int c = 0; c < nc; c++) {
        v->z[c] = 0;
        v->r[c] = v->p[c] = v->x[c];
    }
    ECL_LEAVE("axpy");
    double rho = dot1(a, v->r, v->r);
    for (int it = 0; it < CG_ITERATIONS; it++) {
        matvec(a, v->p, v->q, v->w, v->t);
        double alpha = rho / dot1(a, v->p, v->q);
        ECL_ENTER("axpy");
        for (int c = 0; c < nc; c++) {
            v->z[c] += alpha * v->p[c];
            v->r[c] -= alpha * v->q[c];
        }
        ECL_LEAVE("axpy");
        double rho0 = rho;
        rho = dot1(a, v->r, v->r);
        double beta = rho / rho0;
        ECL_ENTER("axpy");
        for (int c = 0; c < nc; c++)
            v->p[c] = v->r[c] + beta * v->p[c];
        ECL_LEAVE("axpy");
    }
    /* the residual of the solve, computed again from z */
    matvec(a, v->z, v->r, v->w, v->t);
    ECL_ENTER("axpy");
    for (int c = 0; c < nc; c++)
        v->r[c] = v->x[c] - v->r[c];
    ECL_LEAVE("axpy");
    double rnorm = sqrt(dot1(a, v->r, v->r));
    ECL_LEAVE("conj_grad");
    return rnorm;
}

static void usage(void)
{
    if (rank == 0)
        fprintf(stderr, "usage: bench_cg [-c S|W|A] [-i ITERATIONS] (under mpirun, a power of two "
                        "of processes)\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    char cls = 'S';
    int niter = 15, opt;
    while ((opt = getopt(argc, argv, "c:i:")) != -1) {
        if (opt == 'c' && optarg[0] && !optarg[1] && strchr("SWA", optarg[0]))
            cls = optarg[0];
        else if (opt == 'i' && atoi(optarg) > 0)
            niter = atoi(optarg);
        else
            usage();
    }
    if (optind != argc || (size & (size - 1))) {
        if (rank == 0 && optind == argc)
            fprintf(stderr, "bench_cg: %d processes: CG needs a power of two\n", size);
        usage();
    }
    int n = cls == 'S' ? 1400 : cls == 'W' ? 7000 : 14000;
    int nz = cls == 'S' ? 28 : cls == 'W' ? 40 : 66;
    int l = 0;
    while ((1 << l) < size)
        l++;
    npr = 1 << (l / 2), npc = size / npr; /* npc = npr or 2 npr */
    prow = rank / npc, pcol = rank % npc;

    struct block a;
    makea(&a, n, nz);
    long long nnz = 0;
    MPI_Reduce(&a.nnz, &nnz, 1, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    struct vectors v;
    double **all[] = {&v.x, &v.z, &v.p, &v.q, &v.r};
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        *all[i] = xmalloc((size_t)a.nc * sizeof(double));
    v.w = xmalloc((size_t)a.nr * sizeof(double));
    v.t = xmalloc((size_t)a.nr * sizeof(double));
    for (int c = 0; c < a.nc; c++) /* a unit vector, as x is at every solve */
        v.x[c] = 1.0 / sqrt((double)n);

    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime(), zeta = 0, worst = 0;
    int verified = 1;
    for (int it = 1; it <= niter; it++) {
        double rnorm = conj_grad(&a, &v);
        if (rnorm > worst)
            worst = rnorm;
        const double *xs[2] = {v.x, v.z}, *ys[2] = {v.z, v.z};
        double d[2];
        dot(&a, 2, xs, ys, d);
        double znew = 1.0 / d[0];
        if (it > 1 && znew > zeta * (1 + 1e-12))
            verified = 0;
        zeta = znew;
        ECL_ENTER("axpy");
        double inv = 1.0 / sqrt(d[1]);
        for (int c = 0; c < a.nc; c++)
            v.x[c] = v.z[c] * inv;
        ECL_LEAVE("axpy");
        if (rank == 0 && getenv("BENCH_CG_VERBOSE"))
            printf("  %5d  rnorm %.6e  zeta %.15e\n", it, rnorm, zeta);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double t1 = MPI_Wtime();
    if (!(worst < 1e-10))
        verified = 0;
    if (rank == 0) {
        printf("bench_cg: class %c, n %d, %lld nonzeros, %d processes (%dx%d), %d iterations\n", cls,
               n, nnz, size, npr, npc, niter);
        printf("bench_cg: zeta %.15e, largest residual %.3e, %.3f s, %s\n", zeta, worst,
               t1 - t0, verified ? "verified" : "VERIFICATION FAILED");
    }
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        free(*all[i]);
    free(v.w);
    free(v.t);
    free(a.start);
    free(a.col);
    free(a.val);
    MPI_Finalize();
    return verified ? 0 : 1;
}
