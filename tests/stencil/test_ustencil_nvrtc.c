/* Every CUDA kernel the user stencil generator makes for the cases of
   ustencil_ref.h compiles with NVRTC for sm_90 (no GPU needed): the point
   kernel and the march with every lane count, unroll and vector loads, in
   both precisions, plus every candidate the tuner times for the 512^3 box
   and div(k grad u) benchmarks.  Skipped without CUDA or NVRTC. */
#include "fdx_test.h"
#include "nvrtc_check.h"
#include "stencil/fdx_ustencil_impl.h"
#include "ustencil_ref.h"

#include <stddef.h>

#ifdef FDX_HAVE_CUDA
#include "backends/cuda/fdx_cuda.h"
#include "stencil/fdx_stencil_impl.h"

static int compiled;

static void compile_one(const us_case *c, const fdx_us_spec *ks, const fdx_us_cfg *cfg)
{
    char *src = NULL, text[96], what[256];
    fdx_us_cfg_text(cfg, 1, text, sizeof text);
    snprintf(what, sizeof what, "ustencil %s %s %s", c->name, ks->is_double ? "double" : "float", text);
    CHECK_OK(fdx_us_generate(ks, cfg, 1, &src));
    compiled += nvrtc_check(src, what);
}

/* all_candidates: the tuner's list; else the default, the point kernel and
   a third of the march variants (`pick` rotates which). */
static void compile_case(const us_case *c, int is_double, int all_candidates, int pick)
{
    static fdx_us_spec ks;
    static double w[FDX_USTENCIL_MAX_TERMS];
    fdx_ustencil_desc *d = us_desc(c);
    if (!d) return;
    CHECK_OK(fdx_us_spec_build(d, is_double, &ks, w));
    fdx_ustencil_desc_destroy(&d);
    int64_t n3[3];
    fdx_stencil_shape3(c->rank, c->grid, n3);
    fdx_us_cfg cfgs[256];
    int n = 0;
    if (all_candidates) {
        fdx_us_cfg base;
        fdx_us_default_cfg(&ks, 1, n3, &base);
        n = fdx_us_candidates(&ks, n3, 0, &base, cfgs, 128);
        n += fdx_us_candidates(&ks, n3, 1, &base, cfgs + n, 256 - n);
        /* stage 2 (register caps) around the shapes the box and div won */
        fdx_us_cfg won = {FDX_US_MARCH, 64, 4, ks.is_double ? 2 : 4, 1, 8, 0, 0, 2, 1};
        n += fdx_us_candidates(&ks, n3, 2, &won, cfgs + n, 256 - n);
        n += fdx_us_candidates(&ks, n3, 2, &base, cfgs + n, 256 - n);
        /* Candidates differing only in the chunk share a kernel. */
        for (int i = 0; i < n; i++)
            for (int j = 0; j < i; j++)
                if (memcmp(&cfgs[j], &cfgs[i], offsetof(fdx_us_cfg, chunk)) == 0 && cfgs[j].vload == cfgs[i].vload &&
                    cfgs[j].pf == cfgs[i].pf && cfgs[j].rows == cfgs[i].rows && cfgs[j].pipe == cfgs[i].pipe &&
                    cfgs[j].minb == cfgs[i].minb) {
                    cfgs[i--] = cfgs[--n];
                    break;
                }
    } else {
        fdx_us_default_cfg(&ks, 1, n3, &cfgs[n++]);
        cfgs[n++] = (fdx_us_cfg){FDX_US_POINT, c->rank == 3 ? 32 : 128, c->rank == 3 ? 8 : 1, 1, 1, 1, 0, 0, 1};
        int k = 0;
        for (int vec = 1; vec <= 4; vec *= 2)
            for (int u = 1; u <= 4; u *= 2)
                for (int vl = 0; vl <= 1; vl++, k++)
                    if ((k + pick) % 3 == 0)
                        cfgs[n++] = (fdx_us_cfg){FDX_US_MARCH, c->rank == 3 ? 32 : 128, c->rank == 3 ? 4 : 1, vec, u, 8, vl, k % 3,
                                                 c->rank == 3 ? 1 + k % 2 : 1, k % 2};
    }
    for (int i = 0; i < n; i++) {
        /* Fit on a grid where every knob can apply: even width. */
        int64_t g[3] = {n3[0] + n3[0] % 4 + 8, n3[1], n3[2]};
        if (fdx_us_cfg_fits(&ks, &cfgs[i], g)) compile_one(c, &ks, &cfgs[i]);
    }
}
#endif

int main(void)
{
#ifndef FDX_HAVE_CUDA
    return fdx_test_skip("test_ustencil_nvrtc", "built without CUDA");
#else
    int major = 0, minor = 0;
    if (fdx_nvrtc_version(&major, &minor) != FDX_OK) return fdx_test_skip("test_ustencil_nvrtc", fdx_last_error());
    static us_case cases[32];
    int n = us_cases(cases, 32, 1);
    for (int i = 0; i < n; i++) compile_case(&cases[i], i % 2, 0, i), compile_case(&cases[i], 1 - i % 2, 0, i + 1);
    /* The benchmark cases: every candidate the tuner may time. */
    uint64_t s = 3;
    static us_case bench;
    us_init(&bench, "box 512^3", 3, 1, 1, 0, 512, 512, 512);
    us_box(&bench, 1, &s);
    compile_case(&bench, 1, 1, 0);
    us_init(&bench, "div 512^3", 3, 1, 1, 1, 512, 512, 512);
    bench.build = US_DIV;
    compile_case(&bench, 1, 1, 0);
    compile_case(&bench, 0, 1, 0);
    printf("compiled %d generated user stencil kernels with NVRTC %d.%d\n", compiled, major, minor);
    return fdx_test_finish("test_ustencil_nvrtc");
#endif
}
