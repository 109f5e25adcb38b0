/* loop_test.h: what the loop tests (test_loop.c, test_loop_order.c and
   their GPU twins) share: the context, arrays made from host data, the
   relative difference, and the NVRTC compile check of generated CUDA. */
#ifndef FDX_LOOP_TEST_H
#define FDX_LOOP_TEST_H

#include "fdx_test.h"
#include "loops/fdx_loop_impl.h"
#ifdef FDX_HAVE_CUDA
#include "backends/cuda/fdx_cuda.h"
#endif

#include <stdlib.h>
#include <string.h>

static fdx_ctx *ctx;

static fdx_array *make(int rank, const int64_t *shape, const double *init)
{
    fdx_array *a = NULL;
    CHECK_OK(fdx_array_create(ctx, FDX_FLOAT64, rank, shape, FDX_ON_HOST | FDX_ON_DEVICE, &a));
    if (a && init) CHECK_OK(fdx_array_put(a, init));
    return a;
}

/* Largest |x - y| / max(|y|, 1); NaN counts as a difference. */
static double max_rel(const double *x, const double *y, size_t n)
{
    double e = 0;
    for (size_t q = 0; q < n; q++) {
        double d = fabs(x[q] - y[q]) / (fabs(y[q]) > 1 ? fabs(y[q]) : 1);
        if (!(d <= e)) e = d;
    }
    return e;
}

/* got equals ref within 1e-12 relative where ref is a number and is NaN
   (a poisoned point the loop must not write) where ref is NaN. */
static inline int same_or_poisoned(const double *got, const double *ref, size_t n)
{
    int same = 1;
    for (size_t q = 0; q < n; q++) same &= isnan(ref[q]) ? isnan(got[q]) : fabs(got[q] - ref[q]) <= 1e-12 * fabs(ref[q]) + 1e-300;
    return same;
}

/* The CUDA text of a loop compiles with NVRTC (no GPU needed); an ACROSS
   loop's cooperative kernels too (FDX_LOOP_COOP=1 and 2: every step of a
   launch range in one launch, a grid barrier between steps), which must
   then be the cooperative ones. */
static void nvrtc_check(fdx_loop *l)
{
#ifdef FDX_HAVE_CUDA
    for (int coop = 0; coop <= 2; coop++) {
        const char *was = getenv("FDX_LOOP_COOP");
        char *keep = was ? strdup(was) : NULL;
        setenv("FDX_LOOP_COOP", coop == 2 ? "2" : coop ? "1" : "0", 1);
        loop_geom g;
        char *src = NULL;
        CHECK_OK(fdx_loop_geometry(l, FDX_BACKEND_CUDA, &g));
        CHECK_OK(fdx_loop_source(l, FDX_BACKEND_CUDA, &src));
        if (keep) setenv("FDX_LOOP_COOP", keep, 1);
        else unsetenv("FDX_LOOP_COOP");
        free(keep);
        int want = coop && g.across && !g.grid;
        CHECK(!src || (strstr(src, "fdx_grid_sync(fdx_bar)") != NULL) == want, "loop '%s': cooperative kernel %s",
              l->name, want ? "missing with FDX_LOOP_COOP=1" : "where none was asked for");
        if (coop && !want) {
            free(src);
            break;
        }
        void *cubin = NULL;
        size_t size = 0;
        if (src) CHECK_OK(fdx_nvrtc_compile(src, 90, coop ? "loop test (cooperative)" : "loop test", &cubin, &size));
        free(cubin);
        free(src);
    }
#else
    (void)l;
#endif
}

#endif
