/* Every shape of CUDA boundary kernel compiles with NVRTC for sm_90 (no GPU
   needed): ranks 1-3, radii 1-6, float and double, and for each a set of
   face combinations in which every axis takes each of its 17 forms
   (periodic, or none / Dirichlet / Dirichlet values / Neumann on each face)
   at least once, with 32-bit and 64-bit face offsets.  Skipped without CUDA or NVRTC. */
#include "fdx_test.h"

#include <string.h>

#ifdef FDX_HAVE_CUDA
#include "backends/cuda/fdx_cuda.h"
#include "stencil/fdx_bc.h"

/* Form i (0..16) of one axis: 16 = periodic, else low i % 4, high i / 4. */
static void axis_form(int i, int *lo, int *hi)
{
    static const int face[4] = {FDX_BCC_NONE, FDX_BCC_DIRICHLET, FDX_BCC_DIRICHLET_ARRAY, FDX_BCC_NEUMANN};
    if (i == 16) *lo = *hi = FDX_BCC_PERIODIC;
    else *lo = face[i % 4], *hi = face[i / 4];
}
#endif

int main(void)
{
#ifndef FDX_HAVE_CUDA
    return fdx_test_skip("test_bc_nvrtc", "built without CUDA");
#else
    int major = 0, minor = 0, compiled = 0;
    if (fdx_nvrtc_version(&major, &minor) != FDX_OK) return fdx_test_skip("test_bc_nvrtc", fdx_last_error());
    for (int dbl = 0; dbl < 2; dbl++)
        for (int rank = 1; rank <= 3; rank++)
            for (int r = 1; r <= 6; r++)
                for (int i = 0; i < 17; i++) {
                    fdx_bc_kspec ks = {dbl, rank, r, {0}, i % 2}; /* 32- and 64-bit offsets */
                    for (int a = 0; a < rank; a++) axis_form((i + 5 * a) % 17, &ks.code[2 * a], &ks.code[2 * a + 1]);
                    char *src = NULL, what[64];
                    snprintf(what, sizeof what, "bc_d%dr%dR%d_%d.cu", dbl, rank, r, i);
                    CHECK_OK(fdx_bc_generate(&ks, 1, &src));
                    if (!src) continue;
                    void *cubin = NULL;
                    size_t size = 0;
                    fdx_status st = fdx_nvrtc_compile(src, 90, what, &cubin, &size);
                    CHECK(st == FDX_OK && size > 0, "%s: %s", what, fdx_last_error());
                    if (st != FDX_OK) fprintf(stderr, "source of %s:\n%s\n", what, src);
                    compiled += st == FDX_OK;
                    free(cubin);
                    free(src);
                }
    printf("compiled %d generated boundary kernels with NVRTC %d.%d\n", compiled, major, minor);
    return fdx_test_finish("test_bc_nvrtc");
#endif
}
