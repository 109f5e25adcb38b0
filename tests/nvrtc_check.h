/* nvrtc_check: the compile step of the *_nvrtc tests (test_stencil_nvrtc,
   test_ustencil_nvrtc, test_temporal_nvrtc, test_bc_nvrtc): a generated
   CUDA kernel compiled by NVRTC for sm_90, no GPU needed.  Only with CUDA
   (the tests skip without it). */
#ifndef FDX_TEST_NVRTC_CHECK_H
#define FDX_TEST_NVRTC_CHECK_H

#include "fdx_test.h"

#ifdef FDX_HAVE_CUDA
#include "backends/cuda/fdx_cuda.h"

/* Compiles src (malloc'ed, freed here; NULL, as a failed generate leaves
   it: nothing to compile) as the kernel named `what`.  A failure is a check
   failure with NVRTC's message, and the source goes to stderr.  1 when it
   compiled. */
static inline int nvrtc_check(char *src, const char *what)
{
    if (!src) return 0;
    void *cubin = NULL;
    size_t size = 0;
    fdx_status st = fdx_nvrtc_compile(src, 90, what, &cubin, &size);
    CHECK(st == FDX_OK && size > 0, "%s: %s", what, fdx_last_error());
    if (st != FDX_OK) fprintf(stderr, "source of %s:\n%s\n", what, src);
    free(cubin);
    free(src);
    return st == FDX_OK && size > 0;
}
#endif

#endif
