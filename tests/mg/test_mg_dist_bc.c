/* test_mg_dist_bc: distributed multigrid (CPU units) with Neumann and
   periodic axes (every axis, and mixed with each other and with Dirichlet)
   and with the fourth-order operator, against the one-unit solver on the
   same random problem (mg_dist_case.h): 1x2, 2x1, 2x2, 1x1x2, 1x1x3 and
   2x2x2 unit grids, odd and even extents, split and unsplit periodic axes,
   V/W/F/FMG, the three smoothers, CG-MG, coarse sweeps, the coefficient;
   the coarse levels gathered at once and as late as possible
   (FDX_MG_GATHER=1), the fused residual+restriction on blocks
   (FDX_MG_FUSE=1), the one-pass sweeps with order 4 (FDX_MG_GS2=z).
   Problems with a Dirichlet axis: the solution bit for bit; without one
   (the constants are the nullspace: the right-hand side's mean and the
   solution's are sums over units) within 1e-11 of the scale.  Without the
   exchange the solutions differ (the ghosts of split axes come from other
   units).  Errors: order 4 on parts thinner than its two-point shadows,
   a distribution with periodic frames.  Built again as
   test_mg_dist_bc_gpu (CUDA units; skipped without a device). */
#ifndef MG_DIST_NAME
#define MG_DIST_NAME "test_mg_dist_bc"
#endif
#include "mg_dist_case.h"

#define D FDX_BC_DIRICHLET
#define N FDX_BC_NEUMANN
#define P FDX_BC_PERIODIC

/* run_case on configuration c with boundary kinds b0 b1 b2 and an order. */
static double run_bc(int rank, const int64_t *n, const int *grid, setup c, fdx_solver_bc b0, fdx_solver_bc b1,
                     fdx_solver_bc b2, int order, uint64_t seed, int quiet)
{
    c.bc[0] = b0, c.bc[1] = b1, c.bc[2] = b2, c.order = order;
    return run_case(rank, n, grid, &c, seed, quiet);
}

/* A distribution with a periodic frame: refused by the solver (its grid is
   the unknowns; periodic axes come from fdx_solver_set_bc). */
static void framed_refused(void)
{
    fdx_options *opts = NULL;
    fdx_dist *d = NULL;
    fdx_solver *s = NULL;
    fdx_dist_desc desc = {0};
    desc.rank = 2, desc.shape[0] = 33, desc.shape[1] = 33, desc.grid[0] = 1, desc.grid[1] = 2;
    desc.shadow[1] = 1, desc.periodic[1] = 1, desc.units_per_proc = 2;
    CHECK_OK(fdx_options_create(&opts));
    CHECK_OK(fdx_options_set(opts, "backend", MG_DIST_BACKEND));
    CHECK_OK(fdx_dist_create(opts, &desc, &d));
    if (d) CHECK_FAILS(fdx_solver_create_dist(opts, d, &s), FDX_ERR_UNSUPPORTED);
    fdx_solver_destroy(&s);
    fdx_dist_destroy(&d);
    fdx_options_destroy(&opts);
}

int main(void)
{
    if (mg_dist_no_device()) return fdx_test_skip(MG_DIST_NAME, "no CUDA device");
    const setup V = {FDX_CYCLE_V, FDX_SMOOTH_RBGS, FDX_SOLVER_MG, 0, 0, {D, D, D}, 0};
    const setup FMG = {FDX_CYCLE_FMG, FDX_SMOOTH_RBGS, FDX_SOLVER_MG, 0, 0, {D, D, D}, 0};
    const setup W = {FDX_CYCLE_W, FDX_SMOOTH_JACOBI, FDX_SOLVER_MG, 0, 0, {D, D, D}, 0};
    const setup F = {FDX_CYCLE_F, FDX_SMOOTH_CHEBY, FDX_SOLVER_MG, 0, 0, {D, D, D}, 0};
    const setup CG = {FDX_CYCLE_V, FDX_SMOOTH_RBGS, FDX_SOLVER_CG_MG, 0, 0, {D, D, D}, 0};
    const setup SWEEPS = {FDX_CYCLE_V, FDX_SMOOTH_RBGS, FDX_SOLVER_MG, 40, 0, {D, D, D}, 0};
    const setup COEF = {FDX_CYCLE_FMG, FDX_SMOOTH_RBGS, FDX_SOLVER_MG, 0, 1, {D, D, D}, 0};
    const int64_t n2a[2] = {37, 29}, n2b[2] = {33, 48}, n3a[3] = {21, 19, 23}, n3b[3] = {18, 17, 20};
    const int g11[2] = {1, 1}, g12[2] = {1, 2}, g21[2] = {2, 1}, g22[2] = {2, 2}, g111[3] = {1, 1, 1},
              g112[3] = {1, 1, 2}, g222[3] = {2, 2, 2}, g113[3] = {1, 1, 3};
    /* deep: every level that can be split stays distributed; fuse: the
       residual restricted in one pass on the blocks (CUDA's default) */
    /* under compute-sanitizer (FDX_TEST_SANITIZER=1): the first pass only,
       no larger grids */
    const int quick = getenv("FDX_TEST_SANITIZER") != NULL;
    for (int pass = 0; pass < (quick ? 1 : 3); pass++) {
        const int deep = pass >= 1, fuse = pass == 2;
        if (deep)
            setenv("FDX_MG_GATHER", "1", 1);
        else
            unsetenv("FDX_MG_GATHER");
        if (fuse)
            setenv("FDX_MG_FUSE", "1", 1);
        else
            unsetenv("FDX_MG_FUSE");
        const uint64_t seed = 100 * (uint64_t)(pass + 1);
        /* every axis Neumann or periodic (singular), split and not */
        run_bc(2, n2a, g12, V, N, N, D, 2, seed + 1, 0);
        run_bc(2, n2b, g21, FMG, P, P, D, 2, seed + 2, 0);
        run_bc(2, n2b, g22, W, N, N, D, 2, seed + 3, 0);
        run_bc(2, n2a, g22, F, P, P, D, 2, seed + 4, 0);
        run_bc(2, n2a, g22, CG, P, N, D, 2, seed + 5, 0);
        run_bc(2, n2b, g22, COEF, N, P, D, 2, seed + 6, 0);
        run_bc(3, n3a, g222, V, N, N, N, 2, seed + 7, 0);
        run_bc(3, n3b, g222, FMG, P, P, P, 2, seed + 8, 0);
        run_bc(3, n3a, g113, SWEEPS, P, N, P, 2, seed + 9, 0);
        run_bc(3, n3b, g222, COEF, N, P, N, 2, seed + 10, 0);
        /* mixed with Dirichlet (not singular: bit for bit) */
        run_bc(2, n2b, g12, V, D, P, D, 2, seed + 11, 0);
        run_bc(2, n2a, g21, CG, N, D, D, 2, seed + 12, 0);
        run_bc(2, n2a, g22, FMG, P, D, D, 2, seed + 13, 0);
        run_bc(2, n2b, g22, W, D, N, D, 2, seed + 14, 0);
        run_bc(3, n3a, g222, FMG, P, N, D, 2, seed + 15, 0);
        run_bc(3, n3b, g112, V, D, D, P, 2, seed + 16, 0);
        run_bc(3, n3a, g222, F, N, D, P, 2, seed + 17, 0);
        run_bc(3, n3b, g222, COEF, D, N, D, 2, seed + 18, 0);
        /* one unit: the ghosts filled on the block, no exchange */
        run_bc(2, n2a, g11, FMG, P, N, D, 2, seed + 19, 0);
        run_bc(3, n3b, g111, V, N, P, D, 2, seed + 20, 0);
        /* order 4 (Dirichlet): level 0's shadows two wide */
        run_bc(2, n2a, g12, V, D, D, D, 4, seed + 21, 0);
        run_bc(2, n2b, g22, FMG, D, D, D, 4, seed + 22, 0);
        run_bc(2, n2a, g21, W, D, D, D, 4, seed + 23, 0);
        run_bc(3, n3a, g222, FMG, D, D, D, 4, seed + 24, 0);
        run_bc(3, n3b, g113, F, D, D, D, 4, seed + 25, 0);
        run_bc(3, n3b, g111, V, D, D, D, 4, seed + 26, 0);
        setenv("FDX_MG_GS2", "z", 1); /* the out-of-place one-pass sweeps */
        run_bc(3, n3a, g222, V, D, D, D, 4, seed + 27, 0);
        run_bc(3, n3b, g112, FMG, D, D, D, 4, seed + 28, 0);
        unsetenv("FDX_MG_GS2");
    }
    unsetenv("FDX_MG_FUSE");
    /* larger grids: more levels distributed */
    setenv("FDX_MG_GATHER", "1", 1);
    if (!quick) {
        const int64_t n2c[2] = {129, 97}, n3c[3] = {41, 37, 45};
        run_bc(2, n2c, g22, FMG, P, N, D, 2, 901, 0);
        run_bc(3, n3c, g222, V, N, P, D, 2, 902, 0);
        run_bc(3, n3c, g222, FMG, D, D, D, 4, 903, 0);
    }
    /* Without the exchange: the periodic wrap between the end units, the
       shadows of split Neumann axes and order 4's two-deep reads miss
       (the solution must differ). */
    fdx_dist_test_skip_exchange(1);
    {
        CHECK(run_bc(2, n2b, g12, V, D, P, D, 2, 911, 1) != 0,
              "periodic: the solution did not change without the exchange");
        CHECK(run_bc(3, n3a, g222, V, N, N, N, 2, 912, 1) != 0,
              "Neumann: the solution did not change without the exchange");
        CHECK(run_bc(2, n2a, g22, V, D, D, D, 4, 913, 1) != 0,
              "order 4: the solution did not change without the exchange");
    }
    fdx_dist_test_skip_exchange(0);
    unsetenv("FDX_MG_GATHER");
    {
        /* 7 points over 4 units: parts of 1 point, order 4 reads 2 deep */
        const int64_t thin[2] = {17, 7};
        const int g14[2] = {1, 4};
        expect_failure(2, thin, g14, FDX_BC_DIRICHLET, 4, FDX_ERR_INVALID);
        framed_refused();
    }
    return fdx_test_finish(MG_DIST_NAME);
}
