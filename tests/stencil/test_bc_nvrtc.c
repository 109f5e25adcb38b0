/* Every shape of CUDA boundary kernel compiles with NVRTC for sm_90 (no GPU
   needed): ranks 1-3, radii 1-6, float and double, and for each a set of
   face combinations in which every axis takes each of its 17 forms
   (periodic, or none / Dirichlet / Dirichlet values / Neumann on each face)
   at least once, with 32-bit and 64-bit face offsets.  Then the stencil
   kernels that apply the x faces themselves (fdx_stencil_set_boundary on
   CUDA): every configuration the tuner tries for the 7-point operator at
   512^3 and the order-8 one at 509x257x255, with
   Dirichlet / Neumann and periodic x faces (order 2 double, order 8 float
   Dirichlet / Neumann and double periodic); each must fold the faces its
   strategy takes and compile; every 8th folding one also as the two
   kernels of a split grid (FDX_BC_FOLD=3).  Skipped without CUDA or NVRTC. */
#include "fdx_test.h"
#include "nvrtc_check.h"

#include <string.h>

#ifdef FDX_HAVE_CUDA
#include "backends/cuda/fdx_cuda.h"
#include "stencil/fdx_bc.h"
#include "stencil/fdx_stencil_tune.h"

/* Form i (0..16) of one axis: 16 = periodic, else low i % 4, high i / 4. */
static void axis_form(int i, int *lo, int *hi)
{
    static const int face[4] = {FDX_BCC_NONE, FDX_BCC_DIRICHLET, FDX_BCC_DIRICHLET_ARRAY, FDX_BCC_NEUMANN};
    if (i == 16) *lo = *hi = FDX_BCC_PERIODIC;
    else *lo = face[i % 4], *hi = face[i / 4];
}

typedef struct fold_arg {
    fdx_stencil_kspec ks;
    int compiled, folded, seen, split;
    char keys[512][128]; /* the sources compiled for this spec (run-time fields differ only in the key's absence) */
} fold_arg;

/* The tuner's trial: compile the folded kernel of each candidate. */
static fdx_status fold_trial(void *arg, const fdx_stencil_cfg *cfg, double *ms)
{
    fold_arg *f = arg;
    char *src = NULL, text[96], what[160], key[128];
    *ms = 1.0 + (double)(cfg->tx * 7 + cfg->ty * 3 + cfg->vec + cfg->variant * 5 + cfg->pd) / 64.0; /* any order */
    fdx_stencil_cfg_key(cfg, 1, key, sizeof key);
    for (int i = 0; i < f->seen; i++)
        if (strcmp(f->keys[i], key) == 0) return FDX_OK;
    if (f->seen < 512) snprintf(f->keys[f->seen++], sizeof f->keys[0], "%s", key);
    fdx_stencil_cfg_text(cfg, 1, text, sizeof text);
    snprintf(what, sizeof what, "folded %s%d%d%d%d%d%d r%d %s", f->ks.fstore ? "x" : f->ks.ffix ? "fix " : "all ", f->ks.fbc[0],
             f->ks.fbc[1], f->ks.fbc[2], f->ks.fbc[3], f->ks.fbc[4], f->ks.fbc[5], f->ks.radius, text);
    unsigned m = fdx_stencil_fold_faces(&f->ks, cfg, 1);
    /* with stores: the x faces but in the async march and the plane tile; without: every face, in the unrolled column
       only; fix-ups: the z faces and, with aligned lanes of vec >= 2r, the x faces, in the unrolled column only */
    const unsigned fix = 0x30u | (!cfg->win && cfg->vec >= 2 * f->ks.radius ? 3u : 0u);
    unsigned want = f->ks.fstore ? (cfg->variant == FDX_SV_ASYNC || cfg->variant == FDX_SV_PLANE ? 0u : 3u)
                    : cfg->variant == FDX_SV_UNROLL ? (f->ks.ffix ? fix : 0x3fu) : 0u;
    CHECK(m == want, "%s: folds %u", what, m);
    f->folded += m != 0;
    if (!m && !f->ks.fstore) return FDX_OK; /* the plain kernel's source: test_stencil_nvrtc compiles those */
    /* part 0 the kernel; parts 1 and 2 (FDX_BC_FOLD=3, split grid) the
       shell and inner kernels of every 8th folding candidate (only their
       block order differs) */
    const int parts = m && !f->ks.fstore && !f->ks.ffix && f->folded % 8 == 1 ? 3 : 1;
    for (int part = 0; part < parts; part++) {
        fdx_stencil_kspec ks = f->ks;
        ks.fpart = part;
        CHECK(!part || fdx_stencil_split(&ks, cfg), "%s: not split", what);
        CHECK_OK(fdx_stencil_generate(&ks, cfg, 1, &src));
        void *cubin = NULL;
        size_t size = 0;
        fdx_status st = src ? fdx_nvrtc_compile(src, 90, "fold.cu", &cubin, &size) : FDX_ERR_INTERNAL;
        CHECK(st == FDX_OK && size > 0, "%s part %d: %s", what, part, fdx_last_error());
        if (part) f->split += st == FDX_OK;
        else f->compiled += st == FDX_OK;
        free(cubin);
        free(src);
        src = NULL;
    }
    return FDX_OK;
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
                    compiled += nvrtc_check(src, what);
                }
    printf("compiled %d generated boundary kernels with NVRTC %d.%d\n", compiled, major, minor);
    fdx_device_info dev;
    memset(&dev, 0, sizeof dev);
    snprintf(dev.name, sizeof dev.name, "test H100");
    dev.sm_count = 132, dev.cc_major = 9, dev.cc_minor = 0;
    static fold_arg f;
    /* store 1: the x faces with u's ghosts stored (FDX_BC_FOLD=1); store 0:
       every face, nothing stored (FDX_BC_FOLD=2); -1: register fix-ups
       (FDX_BC_FOLD=4) */
    for (int store = 1; store >= -1; store--)
    for (int dbl = 0; dbl < 2; dbl++)
        for (int kinds = 0; kinds < 2; kinds++)
            for (int big = 0; big < 2; big++) {
                if (big ? dbl == kinds : !dbl) continue; /* order 2 in double, order 8 one precision a kind */
                if (store <= 0 && big) continue;         /* every face: the 512^3 7-point only (test time) */
                f.ks = (fdx_stencil_kspec){dbl, 3, big ? 4 : 1, FDX_UPDATE_APPLY, 0, 0, 0};
                f.seen = 0;
                f.ks.fstore = store > 0;
                f.ks.ffix = store < 0;
                f.ks.fixat = store < 0 ? 1 + 2 * kinds : 0; /* the fix-ups before each plane / kept branches */
                for (int a = 0; a < (store > 0 ? 1 : 3); a++) {
                    f.ks.fbc[2 * a] = kinds ? FDX_BCC_PERIODIC : FDX_BCC_DIRICHLET;
                    f.ks.fbc[2 * a + 1] = kinds ? FDX_BCC_PERIODIC : FDX_BCC_NEUMANN;
                    for (int k = 0; k < f.ks.radius && !kinds; k++) f.ks.fval[2 * a + 1][k] = 0.125 * (2 * k + 1);
                    f.ks.fval[2 * a][0] = kinds ? 0 : 1.5;
                }
                int64_t n3[3] = {big ? 509 : 512, big ? 257 : 512, big ? 255 : 512};
                fdx_stencil_cfg best;
                CHECK_OK(fdx_stencil_tune(&f.ks, &dev, 1, n3, fold_trial, &f, &best));
            }
    printf("compiled %d stencil kernels with folded faces (%d folding some), %d of split grids\n", f.compiled, f.folded,
           f.split);
    CHECK(f.split > 10, "only %d split-grid kernels compiled", f.split);
    CHECK(f.compiled > 50, "only %d folded stencil kernels compiled", f.compiled);
    return fdx_test_finish("test_bc_nvrtc");
#endif
}
