/* test_mg_dist: multigrid distributed over CPU units (fdx_solver_create_dist)
   against the one-unit solver on the same problem: 1x2, 2x1, 2x2, 1x1x2,
   2x2x2 and 1x1x3 unit grids, odd and even (non-nested) extents, every
   cycle and smoother, CG-MG, the coefficient, the coarse levels gathered at
   once (default) and as late as the parts allow (FDX_MG_GATHER=1), the
   red-black sweep in place by colours (2D), in one pass (3D), and out of
   place (FDX_MG_GS2=z|1: CUDA's kernels, the CPU's stand-in).  The
   same cycle count and convergence, the residual history within 1e-12 of
   one unit's (the norms add per unit then across units: the last bits
   differ), the solution bit for bit (every field value is the same
   operations on the same values; CG's step lengths are norms, so CG's
   solution agrees to rounding), and the Dirichlet boundary values kept
   exactly.  With the shadow exchange switched off the solution differs
   (the test depends on it).  The error: a grid too small for the units.
   Neumann and periodic axes and order 4: test_mg_dist_bc.c.  The case
   itself: mg_dist_case.h. */
#ifndef MG_DIST_NAME
#define MG_DIST_NAME "test_mg_dist"
#endif
#include "mg_dist_case.h"

int main(void)
{
    if (mg_dist_no_device()) return fdx_test_skip(MG_DIST_NAME, "no CUDA device");
    /* under compute-sanitizer: a 2D and a 3D FMG case, the one-pass sweep,
       the fused restriction, the graph off, the overlapped renewal (gsz's
       output boxes) and the no-exchange check */
    static const uint64_t sanitize_keep[] = {12, 21, 41, 59, 71, 76, 80, 31, 0};
    mg_dist_sanitize_keep = sanitize_keep;
    const setup V = {FDX_CYCLE_V, FDX_SMOOTH_RBGS, FDX_SOLVER_MG, 0, 0};
    const setup FMG = {FDX_CYCLE_FMG, FDX_SMOOTH_RBGS, FDX_SOLVER_MG, 0, 0};
    const setup W = {FDX_CYCLE_W, FDX_SMOOTH_JACOBI, FDX_SOLVER_MG, 0, 0};
    const setup F = {FDX_CYCLE_F, FDX_SMOOTH_CHEBY, FDX_SOLVER_MG, 0, 0};
    const setup CG = {FDX_CYCLE_V, FDX_SMOOTH_RBGS, FDX_SOLVER_CG_MG, 0, 0};
    const setup SWEEPS = {FDX_CYCLE_V, FDX_SMOOTH_RBGS, FDX_SOLVER_MG, 40, 0};
    const setup COEF = {FDX_CYCLE_FMG, FDX_SMOOTH_RBGS, FDX_SOLVER_MG, 0, 1};
    const setup FMGJ = {FDX_CYCLE_FMG, FDX_SMOOTH_JACOBI, FDX_SOLVER_MG, 0, 0};
    for (int deep = 0; deep < 2; deep++) {
        /* deep: every level that can be split stays distributed */
        if (deep)
            setenv("FDX_MG_GATHER", "1", 1);
        else
            unsetenv("FDX_MG_GATHER");
        const int64_t n2a[2] = {37, 29}, n2b[2] = {33, 48}, n3a[3] = {21, 19, 23}, n3b[3] = {18, 17, 20};
        const int g12[2] = {1, 2}, g21[2] = {2, 1}, g22[2] = {2, 2}, g112[3] = {1, 1, 2}, g222[3] = {2, 2, 2},
                  g113[3] = {1, 1, 3};
        run_case(2, n2a, g12, &V, 11, 0);
        run_case(2, n2a, g22, &FMG, 12, 0);
        run_case(2, n2b, g21, &W, 13, 0);
        run_case(2, n2b, g22, &F, 14, 0);
        run_case(2, n2a, g22, &CG, 15, 0);
        run_case(2, n2b, g12, &COEF, 16, 0);
        run_case(2, n2a, g22, &FMGJ, 17, 0);
        run_case(3, n3a, g222, &FMG, 21, 0);
        run_case(3, n3a, g222, &V, 22, 0);
        run_case(3, n3b, g112, &FMG, 23, 0);
        run_case(3, n3b, g222, &CG, 24, 0);
        run_case(3, n3a, g113, &SWEEPS, 25, 0);
        run_case(3, n3b, g222, &COEF, 26, 0);
        run_case(3, n3a, g222, &F, 27, 0);
        const int64_t n2c[2] = {129, 97}, n3c[3] = {41, 37, 45};
        run_case(2, n2c, g12, &FMG, 28, 0);
        run_case(3, n3c, g222, &V, 29, 0);
    }
    /* The out-of-place one-pass sweeps (CUDA's default; the CPU's stand-in
       here) on the distributed levels: z-marching and ring variants. */
    for (int v = 0; v < 2; v++) {
        setenv("FDX_MG_GS2", v ? "1" : "z", 1);
        setenv("FDX_MG_GATHER", "1", 1);
        const int64_t n3a[3] = {21, 19, 23}, n3b[3] = {18, 17, 20};
        const int g222[3] = {2, 2, 2}, g112[3] = {1, 1, 2};
        run_case(3, n3a, g222, &FMG, 41 + v, 0);
        run_case(3, n3b, g112, &V, 43 + v, 0);
        run_case(3, n3b, g222, &COEF, 45 + v, 0);
    }
    unsetenv("FDX_MG_GS2");
    /* The residual restricted in one pass on each block (CUDA's default;
       FDX_MG_FUSE=1 here): the residual computed in the shadows where the
       restriction reads (shadows one wider), not renewed.  Odd and even
       (non-nested: the restriction reads two points across a cut) extents,
       odd parts (1x1x3), levels gathered at once and late, the one-pass
       sweeps too; and one unit (fdx mg --gpus 1: no shadows, nothing to
       renew). */
    setenv("FDX_MG_FUSE", "1", 1);
    for (int deep = 0; deep < 2; deep++) {
        if (deep)
            setenv("FDX_MG_GATHER", "1", 1);
        else
            unsetenv("FDX_MG_GATHER");
        const int64_t n2a[2] = {37, 29}, n2b[2] = {33, 48}, n3a[3] = {21, 19, 23}, n3b[3] = {18, 17, 20},
                      n3c[3] = {41, 37, 45};
        const int g11[2] = {1, 1}, g22[2] = {2, 2}, g111[3] = {1, 1, 1}, g112[3] = {1, 1, 2}, g222[3] = {2, 2, 2},
                  g113[3] = {1, 1, 3};
        run_case(3, n3a, g222, &V, 51, 0);
        run_case(3, n3b, g112, &FMG, 52, 0);
        run_case(3, n3b, g222, &CG, 53, 0);
        run_case(3, n3c, g113, &V, 54, 0);
        run_case(2, n2b, g22, &W, 55, 0);
        run_case(2, n2a, g22, &COEF, 56, 0);
        run_case(3, n3a, g111, &FMG, 57, 0);
        run_case(2, n2a, g11, &V, 58, 0);
        setenv("FDX_MG_GS2", "z", 1);
        run_case(3, n3b, g222, &COEF, 59, 0);
        run_case(3, n3c, g113, &FMG, 60, 0);
        run_case(3, n3a, g111, &V, 61, 0);
        unsetenv("FDX_MG_GS2");
    }
    unsetenv("FDX_MG_FUSE");
    {
        /* one unit without the fused restriction */
        const int64_t n3a[3] = {21, 19, 23}, n2b[2] = {33, 48};
        const int g111[3] = {1, 1, 1}, g11[2] = {1, 1};
        run_case(3, n3a, g111, &COEF, 62, 0);
        run_case(2, n2b, g11, &F, 63, 0);
    }
    if (on_gpu) {
        /* CUDA: the default runs each cycle after the first as one graph
           over the units (the fused restriction too); here the graph off
           (plain launches) and the two-pass restriction, the same values */
        const int64_t n3a[3] = {21, 19, 23}, n3b[3] = {18, 17, 20}, n3c[3] = {41, 37, 45};
        const int g111[3] = {1, 1, 1}, g112[3] = {1, 1, 2}, g222[3] = {2, 2, 2}, g113[3] = {1, 1, 3};
        setenv("FDX_MG_GRAPH", "0", 1);
        run_case(3, n3c, g112, &V, 71, 0);
        run_case(3, n3b, g222, &FMG, 72, 0);
        run_case(3, n3a, g111, &CG, 73, 0);
        unsetenv("FDX_MG_GRAPH");
        setenv("FDX_MG_FUSE", "0", 1);
        run_case(3, n3c, g113, &V, 74, 0);
        run_case(3, n3a, g111, &FMG, 75, 0);
        unsetenv("FDX_MG_FUSE");
        /* the sweep's renewal overlapped with the blocks' interiors (an
           A/B knob: interior boxes during the exchange, then the edge
           slabs), with and without the graph, levels kept distributed:
           the same values */
        setenv("FDX_MG_OVERLAP", "1", 1);
        setenv("FDX_MG_GATHER", "1", 1);
        setenv("FDX_MG_GS2_EVERY", "1", 1); /* the one-pass sweep on the small levels too */
        const int64_t n3d[3] = {65, 33, 57};
        run_case(3, n3c, g222, &V, 76, 0);
        run_case(3, n3d, g112, &FMG, 77, 0);
        run_case(3, n3c, g113, &CG, 78, 0);
        run_case(3, n3b, g222, &COEF, 79, 0);
        setenv("FDX_MG_GRAPH", "0", 1);
        run_case(3, n3d, g222, &V, 80, 0);
        run_case(3, n3c, g112, &FMG, 81, 0);
        unsetenv("FDX_MG_GRAPH");
        unsetenv("FDX_MG_GATHER");
        unsetenv("FDX_MG_GS2_EVERY");
        unsetenv("FDX_MG_OVERLAP");
    }
    /* Without the exchange the blocks miss their neighbours' values: the
       solution must differ (so the checks above depend on the exchange). */
    setenv("FDX_MG_GATHER", "1", 1);
    fdx_dist_test_skip_exchange(1);
    {
        const int64_t n[3] = {21, 19, 23};
        const int g[3] = {2, 2, 2};
        const double d = run_case(3, n, g, &V, 31, 1); /* quiet: only the solution's difference counts */
        CHECK(d != 0, "the solution did not change without the shadow exchange");
        setenv("FDX_MG_FUSE", "1", 1); /* the one-pass restriction reads u's and f's shadows */
        const int64_t nb[3] = {18, 17, 20};
        const double e = run_case(3, nb, g, &V, 32, 1);
        CHECK(e != 0, "the solution did not change without the shadow exchange (one-pass restriction)");
        unsetenv("FDX_MG_FUSE");
    }
    fdx_dist_test_skip_exchange(0);
    unsetenv("FDX_MG_GATHER");
    {
        const int64_t tiny[3] = {9, 9, 9};
        const int g8[3] = {1, 1, 8};
        expect_failure(3, tiny, g8, FDX_BC_DIRICHLET, 2, FDX_ERR_INVALID);
    }
    return fdx_test_finish(MG_DIST_NAME);
}
