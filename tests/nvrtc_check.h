/* nvrtc_check: the compile step of the *_nvrtc tests (test_stencil_nvrtc,
   test_ustencil_nvrtc, test_temporal_nvrtc, test_bc_nvrtc): a generated
   CUDA kernel compiled by NVRTC for sm_90, no GPU needed.  Only with CUDA
   (the tests skip without it). */
#ifndef FDX_TEST_NVRTC_CHECK_H
#define FDX_TEST_NVRTC_CHECK_H

#include "fdx_test.h"

#ifdef FDX_HAVE_CUDA
#include "backends/cuda/fdx_cuda.h"
#include "core/fdx_cache.h"

#include <stdlib.h>

/* Sources compiled before in this process: configurations that generate
   the same text (a knob the kernel does not read) compile once.  The table
   is the 128-bit hashes of the sources that compiled. */
static fdx_hash *nvrtc_seen;
static size_t nvrtc_nseen, nvrtc_cap, nvrtc_repeats;

static int nvrtc_seen_before(const char *src, fdx_hash *h)
{
    fdx_hash_init(h);
    fdx_hash_add_str(h, src);
    for (size_t i = 0; i < nvrtc_nseen; i++)
        if (nvrtc_seen[i].a == h->a && nvrtc_seen[i].b == h->b) return 1;
    return 0;
}

static void nvrtc_remember(const fdx_hash *h)
{
    if (nvrtc_nseen == nvrtc_cap) {
        size_t cap = nvrtc_cap ? 2 * nvrtc_cap : 256;
        fdx_hash *t = realloc(nvrtc_seen, cap * sizeof *t);
        if (!t) return;
        nvrtc_seen = t, nvrtc_cap = cap;
    }
    nvrtc_seen[nvrtc_nseen++] = *h;
}

/* Compiles src (malloc'ed, freed here; NULL, as a failed generate leaves
   it: nothing to compile) as the kernel named `what`.  A failure is a check
   failure with NVRTC's message, and the source goes to stderr.  1 when it
   compiled (now or, the same text, before). */
static void nvrtc_report(void)
{
    printf("nvrtc_check: %zu distinct sources compiled, %zu repeats not compiled again\n", nvrtc_nseen, nvrtc_repeats);
}

static inline int nvrtc_check(char *src, const char *what)
{
    if (!src) return 0;
    static int reporting;
    if (!reporting++) atexit(nvrtc_report);
    fdx_hash h;
    if (nvrtc_seen_before(src, &h)) {
        nvrtc_repeats++;
        free(src);
        return 1;
    }
    void *cubin = NULL;
    size_t size = 0;
    fdx_status st = fdx_nvrtc_compile(src, 90, what, &cubin, &size);
    CHECK(st == FDX_OK && size > 0, "%s: %s", what, fdx_last_error());
    if (st != FDX_OK) fprintf(stderr, "source of %s:\n%s\n", what, src);
    free(cubin);
    free(src);
    if (st == FDX_OK && size > 0) nvrtc_remember(&h);
    return st == FDX_OK && size > 0;
}
#endif

#endif
