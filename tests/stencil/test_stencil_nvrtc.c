/* Every CUDA kernel the stencil engine can generate compiles with NVRTC for
   sm_90 (no GPU needed): all ranks, orders and precisions, each update with
   and without a coefficient and first-derivative terms, all strategies and
   every vector width and block shape the tuner may pick, the unrolled
   column's pipelined marches, windows, x vectors, register caps and bands.
   Skipped without CUDA or NVRTC. */
#include "fdx_test.h"
#include "nvrtc_check.h"
#include "stencil_corpus.h"

#include <string.h>

#ifdef FDX_HAVE_CUDA
#include "backends/cuda/fdx_cuda.h"

static int compiled;

static void compile_one(const fdx_stencil_kspec *ks, const fdx_stencil_cfg *cfg, void *arg)
{
    (void)arg;
    char *src = NULL, spec[32], what[128];
    fdx_stencil_kspec_text(ks, spec, sizeof spec);
    static const char *name[] = {"smem", "direct", "unroll", "async", "plane"};
    snprintf(what, sizeof what, "stencil_%s_%s_%dx%d_v%d_pd%d_p%dw%dx%dlb%d.cu", spec, name[cfg->variant], cfg->tx,
             cfg->ty, cfg->vec, cfg->pd, cfg->pipe, cfg->win, cfg->xv, cfg->minb);
    CHECK_OK(fdx_stencil_generate(ks, cfg, 1, &src));
    compiled += nvrtc_check(src, what);
}
#endif

int main(void)
{
#ifndef FDX_HAVE_CUDA
    return fdx_test_skip("test_stencil_nvrtc", "built without CUDA");
#else
    int major = 0, minor = 0;
    if (fdx_nvrtc_version(&major, &minor) != FDX_OK) return fdx_test_skip("test_stencil_nvrtc", fdx_last_error());
    stencil_corpus_nvrtc(compile_one, NULL);
    CHECK(stencil_corpus_tuner(compile_one, NULL) > 0, "the tuner's walk of the high orders failed");
    printf("compiled %d generated kernels with NVRTC %d.%d\n", compiled, major, minor);
    return fdx_test_finish("test_stencil_nvrtc");
#endif
}
