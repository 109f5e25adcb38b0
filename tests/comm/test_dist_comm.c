/* test_dist_comm: fdx inside a program's own MPI (run by cli_dist_mpi.sh as
   mpirun -np 4; skipped when not started by mpirun).  The program
   initializes MPI, splits the world in two halves and runs a distributed
   ACROSS loop (SOR) on each half's communicator at the same time, each half
   its own problem: the gathered field is bit for bit the one-unit loop's,
   the reduction (maxloc) is the same on every rank of the half, and fdx
   leaves MPI initialized (the program finalizes it).  Then the whole world
   (no communicator given) on a 1x2x4 (or 1x2x2) grid of 2 units a rank:
   SOR descending with a remote point, against a nest.  Last, the checks
   depend on the exchange between ranks: with it skipped (the test hook
   fdx_dist_test_skip_exchange) distributed Laplacian steps over the world
   give another field. */
#include "fdx.h"
#include "fdx_test.h"

#include <stdlib.h>
#include <string.h>

#ifndef FDX_HAVE_MPI
int main(void) { return fdx_test_skip("test_dist_comm", "built without MPI"); }
#else
#include <mpi.h>

enum { N = 14 };

static double init(const int64_t *g, void *arg)
{
    int color = *(const int *)arg;
    uint64_t s = (uint64_t)(g[0] + 31 * g[1] + 977 * g[2] + 7 * color + 1);
    return fdx_test_rand(&s);
}

/* Three distributed applies of the 2D Laplacian (37x41, split over the
   world's ranks, one unit each); the gathered field into f. */
static void laplacian_steps(fdx_options *o, double *f)
{
    fdx_dist_desc dd = {0};
    dd.rank = 2, dd.shape[0] = 37, dd.shape[1] = 41, dd.units_per_proc = 1;
    dd.shadow[0] = dd.shadow[1] = 1;
    fdx_dist *d = NULL;
    fdx_darray *a = NULL, *b = NULL;
    fdx_dstencil *s = NULL;
    fdx_stencil_desc sd;
    fdx_stencil_desc_laplacian(&sd, 2, 2, NULL);
    int c0 = 0;
    CHECK_OK(fdx_dist_create(o, &dd, &d));
    if (d) CHECK_OK(fdx_darray_create(d, FDX_FLOAT64, &a));
    if (d) CHECK_OK(fdx_darray_create(d, FDX_FLOAT64, &b));
    if (a) CHECK_OK(fdx_darray_fill(a, init, &c0));
    if (b) CHECK_OK(fdx_darray_fill(b, init, &c0)); /* its frame is never written */
    if (d) CHECK_OK(fdx_dstencil_create(d, &sd, FDX_FLOAT64, &s));
    if (s && a && b) {
        for (int step = 0; step < 3; step++) {
            CHECK_OK(fdx_dstencil_step(s, b, a, NULL, NULL, 0));
            fdx_darray *t = a;
            a = b, b = t;
        }
        CHECK_OK(fdx_darray_gather(a, f, 1));
    }
    fdx_dstencil_destroy(&s);
    fdx_darray_destroy(&b);
    fdx_darray_destroy(&a);
    fdx_dist_destroy(&d);
}

/* With the exchange skipped (the test hook) the steps give another field. */
static void skipped_exchange_differs(fdx_options *o, int rank, int size)
{
    static double exact[37 * 41], skipped[37 * 41];
    laplacian_steps(o, exact);
    fdx_dist_test_skip_exchange(1);
    laplacian_steps(o, skipped);
    fdx_dist_test_skip_exchange(0);
    CHECK(memcmp(exact, skipped, sizeof exact) != 0,
          "rank %d: skipping the exchange between %d ranks left the field unchanged", rank, size);
}

static const char *body = "double gs = (U(i-1,j,k) + U(i+1,j,k) + U(i,j-1,k) + U(i,j+1,k) + U(i,j,k-1) + U(i,j,k+1)) / 6.0;\n"
                          "double d = w * (gs - U(i,j,k));\nU(i,j,k) += d;\nch = fabs(d);\n";

int main(int argc, char **argv)
{
    if (!getenv("OMPI_COMM_WORLD_SIZE") && !getenv("PMI_SIZE"))
        return fdx_test_skip("test_dist_comm", "not started by mpirun");
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    int color = size > 1 ? rank % 2 : 0;
    MPI_Comm half;
    MPI_Comm_split(MPI_COMM_WORLD, color, rank, &half);
    int hsize;
    MPI_Comm_size(half, &hsize);
    double w = color ? 1.5 : 1.2;

    fdx_options *o = NULL;
    CHECK_OK(fdx_options_create(&o));
    fdx_options_set(o, "backend", "cpu");
    fdx_dist_desc dd = {0};
    dd.rank = 3, dd.shape[0] = dd.shape[1] = dd.shape[2] = N, dd.units_per_proc = 1;
    dd.shadow[0] = dd.shadow[1] = dd.shadow[2] = 1;
    dd.mpi_comm = &half;
    fdx_dist *d = NULL;
    CHECK_OK(fdx_dist_create(o, &dd, &d));
    if (d) CHECK(fdx_dist_procs(d) == hsize, "the distribution has %d ranks, the half %d", fdx_dist_procs(d), hsize);
    fdx_darray *U = NULL;
    fdx_dloop *l = NULL;
    static double got[N * N * N], want[N * N * N];
    int64_t lo[3] = {1, 1, 1}, hi[3] = {N - 1, N - 1, N - 1};
    int one[3] = {1, 1, 1};
    double ch = 0;
    int64_t loc[3] = {0, 0, 0};
    if (d) {
        CHECK_OK(fdx_darray_create(d, FDX_FLOAT64, &U));
        CHECK_OK(fdx_darray_fill(U, init, &color));
        CHECK_OK(fdx_dloop_create(d, "i,j,k", &l));
        CHECK_OK(fdx_dloop_range(l, lo, hi));
        CHECK_OK(fdx_dloop_array(l, "U", U, FDX_READ_WRITE));
        CHECK_OK(fdx_dloop_across(l, one, one));
        CHECK_OK(fdx_dloop_scalar(l, "w", w));
        CHECK_OK(fdx_dloop_reduction(l, "ch", FDX_REDUCE_MAXLOC));
        CHECK_OK(fdx_dloop_body(l, body));
        CHECK_OK(fdx_dloop_run_repeated(l, 2));
        CHECK_OK(fdx_dloop_result_loc(l, "ch", &ch, loc));
        CHECK_OK(fdx_darray_gather(U, got, 1));
    }
    /* one unit, the plain loop, same problem */
    fdx_ctx *ctx = NULL;
    CHECK_OK(fdx_ctx_create(o, &ctx));
    fdx_array *A = NULL;
    int64_t shape[3] = {N, N, N};
    CHECK_OK(fdx_array_create(ctx, FDX_FLOAT64, 3, shape, FDX_ON_HOST | FDX_ON_DEVICE, &A));
    for (int k = 0; k < N; k++)
        for (int j = 0; j < N; j++)
            for (int i = 0; i < N; i++) {
                int64_t g[3] = {i, j, k};
                want[i + N * (j + N * k)] = init(g, &color);
            }
    CHECK_OK(fdx_array_put(A, want));
    fdx_loop *pl = NULL;
    CHECK_OK(fdx_loop_create(ctx, "i,j,k", &pl));
    CHECK_OK(fdx_loop_range(pl, lo, hi));
    CHECK_OK(fdx_loop_array(pl, "U", A, FDX_READ_WRITE));
    CHECK_OK(fdx_loop_across(pl, one));
    CHECK_OK(fdx_loop_scalar(pl, "w", w));
    CHECK_OK(fdx_loop_reduction(pl, "ch", FDX_REDUCE_MAXLOC));
    CHECK_OK(fdx_loop_body(pl, body));
    CHECK_OK(fdx_loop_run_repeated(pl, 2, NULL));
    double ch1;
    int64_t loc1[3];
    CHECK_OK(fdx_loop_result(pl, "ch", &ch1, loc1));
    CHECK_OK(fdx_array_get(A, want));
    CHECK(memcmp(got, want, sizeof want) == 0, "rank %d (half %d of %d ranks): the distributed field differs from one unit's",
          rank, color, hsize);
    CHECK(ch == ch1 && loc[0] == loc1[0] && loc[1] == loc1[1] && loc[2] == loc1[2],
          "rank %d: maxloc %.17g at %lld,%lld,%lld, one unit %.17g at %lld,%lld,%lld", rank, ch, (long long)loc[0],
          (long long)loc[1], (long long)loc[2], ch1, (long long)loc1[0], (long long)loc1[1], (long long)loc1[2]);
    /* the same on every rank of the half */
    double mn = ch, mx = ch;
    MPI_Allreduce(MPI_IN_PLACE, &mn, 1, MPI_DOUBLE, MPI_MIN, half);
    MPI_Allreduce(MPI_IN_PLACE, &mx, 1, MPI_DOUBLE, MPI_MAX, half);
    CHECK(mn == mx, "rank %d: reduction differs between ranks of its half (%.17g..%.17g)", rank, mn, mx);
    fdx_dloop_destroy(&l);
    fdx_darray_destroy(&U);
    fdx_dist_destroy(&d);

    /* The whole world (no communicator given: MPI already initialized by
       the program) split in two axes, 2 units a rank: the same SOR
       descending, with a remote point, against the one-unit loop. */
    if (size == 2 || size == 4) {
        dd.mpi_comm = NULL;
        dd.units_per_proc = 2;
        dd.grid[0] = 1, dd.grid[1] = size == 4 ? 2 : 1, dd.grid[2] = size == 4 ? 4 : 4;
        if (size == 2) dd.grid[1] = 2, dd.grid[2] = 2;
        CHECK_OK(fdx_dist_create(o, &dd, &d));
        int down[3] = {-1, -1, -1};
        int64_t pt_lo[3] = {N - 2, 1, N - 2}, pt_hi[3] = {N - 1, 2, N - 1};
        static const char *body2 = "double gs = (U(i-1,j,k) + U(i+1,j,k) + U(i,j-1,k) + U(i,j+1,k) + U(i,j,k-1) + U(i,j,k+1)) / 6.0;\n"
                                   "double d = w * (gs - U(i,j,k)) + 1e-3 * P(12,1,12);\nU(i,j,k) += d;\nch = fabs(d);\n";
        if (d) {
            int c0 = 0;
            CHECK_OK(fdx_darray_create(d, FDX_FLOAT64, &U));
            CHECK_OK(fdx_darray_fill(U, init, &c0));
            CHECK_OK(fdx_dloop_create(d, "i,j,k", &l));
            CHECK_OK(fdx_dloop_range(l, lo, hi));
            CHECK_OK(fdx_dloop_array(l, "U", U, FDX_READ_WRITE));
            CHECK_OK(fdx_dloop_remote_box(l, "P", U, pt_lo, pt_hi));
            CHECK_OK(fdx_dloop_across(l, one, one));
            CHECK_OK(fdx_dloop_order(l, down));
            CHECK_OK(fdx_dloop_scalar(l, "w", 1.4));
            CHECK_OK(fdx_dloop_reduction(l, "ch", FDX_REDUCE_MAXLOC));
            CHECK_OK(fdx_dloop_body(l, body2));
            CHECK_OK(fdx_dloop_run_repeated(l, 2));
            CHECK_OK(fdx_dloop_result_loc(l, "ch", &ch, loc));
            CHECK_OK(fdx_darray_gather(U, got, 1));
        }
        /* one unit: two single sweeps (the remote point is read as it was
           before each sweep, as the distributed loop fetches it) */
        int c0 = 0;
        for (int k = 0; k < N; k++)
            for (int j = 0; j < N; j++)
                for (int i = 0; i < N; i++) {
                    int64_t g[3] = {i, j, k};
                    want[i + N * (j + N * k)] = init(g, &c0);
                }
        for (int s = 0; s < 2; s++) {
            double p = want[12 + N * (1 + N * 12)];
            ch1 = -1;
            for (int k = N - 2; k >= 1; k--)
                for (int j = N - 2; j >= 1; j--)
                    for (int i = N - 2; i >= 1; i--) {
                        double *u = want;
#define W(a, b, c) u[(a) + N * ((b) + N * (c))]
                        double gs = (W(i - 1, j, k) + W(i + 1, j, k) + W(i, j - 1, k) + W(i, j + 1, k) + W(i, j, k - 1) +
                                     W(i, j, k + 1)) / 6.0;
                        double dd2 = 1.4 * (gs - W(i, j, k)) + 1e-3 * p;
                        W(i, j, k) += dd2;
                        if (fabs(dd2) > ch1) ch1 = fabs(dd2), loc1[0] = i, loc1[1] = j, loc1[2] = k;
#undef W
                    }
        }
        double e = 0;
        for (int q = 0; q < N * N * N; q++) e = fmax(e, fabs(got[q] - want[q]));
        CHECK(e <= 1e-12, "rank %d, world on a 1x%dx%d grid: max diff %.3g from the nest", rank, dd.grid[1], dd.grid[2], e);
        CHECK(fabs(ch - ch1) <= 1e-12 && loc[0] == loc1[0] && loc[1] == loc1[1] && loc[2] == loc1[2],
              "rank %d, world: maxloc %.17g at %lld,%lld,%lld, nest %.17g at %lld,%lld,%lld", rank, ch, (long long)loc[0],
              (long long)loc[1], (long long)loc[2], ch1, (long long)loc1[0], (long long)loc1[1], (long long)loc1[2]);
        fdx_dloop_destroy(&l);
        fdx_darray_destroy(&U);
        fdx_dist_destroy(&d);
    }
    if (size > 1) skipped_exchange_differs(o, rank, size);
    fdx_loop_destroy(&pl);
    fdx_array_destroy(&A);
    fdx_ctx_destroy(&ctx);
    fdx_options_destroy(&o);
    fdx_dist_finalize(); /* must not finalize the program's MPI */
    int fin = 1;
    MPI_Finalized(&fin);
    CHECK(!fin, "fdx finalized MPI that the program initialized");
    int bad = fdx_test_finish("test_dist_comm");
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Comm_free(&half);
    MPI_Finalize();
    return bad;
}
#endif
