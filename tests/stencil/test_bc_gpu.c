/* Boundary conditions on CUDA (bc_check.h): the generated CUDA pass against
   the reference formulas, which test_bc holds the CPU pass to bit for bit,
   so the CUDA and CPU passes agree bit for bit; every kind on every face,
   orders 2-8, ranks 1-3, odd shapes, float and double, and the pass
   attached to a stencil.  Then one 512x256x128 case compared directly with
   the CPU pass.  Then the x faces folded into the stencil kernel (the
   kernel applies them as it reads a row; the pass keeps y and z): one
   configuration of each strategy the tuner tries (shared-memory tile,
   direct, unrolled column with and without x vectors, unaligned rows, rows
   a thread, the asynchronous march), forced, with Dirichlet / Neumann and
   periodic x faces, radius 1 and 2, on odd shapes, against the same
   configuration without conditions on the ghosts the pass wrote, bit for
   bit, the input's whole frame NaN; u's frame afterwards equal to the
   pass's (the kernel writes the x ghosts it computes).  Those cases run
   under FDX_BC_FOLD=1, 2, 3 or 4 (2: every face in the unrolled column, no
   pass, u untouched; 3: the same in a split grid, two launches; 4: the
   column's registers fixed up for the marching and x faces, the pass on
   the rest).  Small otherwise, so it runs under
   compute-sanitizer.  Skipped without a device. */
#include "bc_check.h"
#include "stencil/fdx_bc.h"
#include "stencil/fdx_stencil_impl.h"
#include "stencil/fdx_stencil_tune.h"

/* The first configuration the tuner tries of each kind (variant, x vectors,
   windows, rows a thread). */
typedef struct firsts {
    fdx_stencil_cfg cfg[8];
    int n;
} firsts;

static int kind_of(const fdx_stencil_cfg *c)
{
    if (c->variant != FDX_SV_UNROLL) return c->variant == FDX_SV_ASYNC ? 7 : c->variant; /* 0 smem, 1 direct */
    return c->win ? 3 : c->ry > 1 ? 4 : c->xv ? 5 : 2;
}

static fdx_status first_of_kind(void *arg, const fdx_stencil_cfg *cfg, double *ms)
{
    firsts *f = arg;
    int k = kind_of(cfg), have = 0;
    for (int i = 0; i < f->n; i++) have |= kind_of(&f->cfg[i]) == k;
    if (!have && f->n < 8) f->cfg[f->n++] = *cfg;
    *ms = 1.0 + (double)(cfg->tx + cfg->ty + cfg->pd) / 1024.0;
    return FDX_OK;
}

/* On a mismatch, say where and by how much (a rounding difference or a wrong
   ghost): the first points that differ, with their distance to each face, and
   the largest relative difference. */
static void bc_report_first(const char *what, const int64_t n[3], int dbl, const void *want, const void *got, int r)
{
    int shown = 0;
    double worst = 0;
    for (int64_t i = 0; i < n[0] * n[1] * n[2]; i++) {
        double a = bc_get(want, dbl, i), b = bc_get(got, dbl, i);
        if (a == b) continue;
        double rel = fabs(a - b) / (fabs(a) > 1e-300 ? fabs(a) : 1);
        if (rel > worst) worst = rel;
        if (shown++ < 6)
            printf("  %s: (%lld,%lld,%lld) of %lldx%lldx%lld (r %d): want %.17g got %.17g\n", what,
                   (long long)(i % n[0]), (long long)(i / n[0] % n[1]), (long long)(i / (n[0] * n[1])),
                   (long long)n[0], (long long)n[1], (long long)n[2], r, a, b);
    }
    printf("  %s: largest relative difference %.3g\n", what, worst);
}

/* The stencil with conditions (x faces folded) against the plain one on the
   pass's ghosts, both forced to cfg. */
static void fold_case(fdx_ctx *ctx, fdx_dtype dt, int order, const char *spec, const fdx_stencil_cfg *cfg, uint64_t seed,
                      int mode)
{
    const int r = order / 2, dbl = dt == FDX_FLOAT64;
    int64_t n[3] = {cfg->win ? 61 : 64 + 8 * r, 19 + r, 17};
    /* FDX_BC_FOLD=2 / 3: wide enough that some blocks touch no x face (both
       sides of the kernel's branch run; 3: both launches of the split grid,
       the last axis's 17 planes in chunks of 5 leaving inner chunks) */
    if (mode >= 2) n[0] = 3 * cfg->tx * cfg->vec + (cfg->win ? 5 : 8 * r);
    const int64_t count = n[0] * n[1] * n[2];
    const size_t e = dbl ? 8 : 4;
    double h[3] = {0.5, 0.25, 0.125};
    char text[96], what[200];
    fdx_stencil_cfg_text(cfg, 1, text, sizeof text);
    snprintf(what, sizeof what, "folded %s order %d %s, %s", fdx_dtype_name(dt), order, spec, text);
    fdx_bc_desc bc;
    CHECK_OK(fdx_bc_parse(spec, 3, &bc));
    fdx_stencil_desc d;
    fdx_stencil_desc_laplacian(&d, 3, order, h);
    d.update = FDX_UPDATE_HEAT, d.alpha = 0.01;
    fdx_stencil *with = NULL, *plain = NULL;
    fdx_bc *pass = NULL;
    fdx_array *u = NULL, *out = NULL;
    CHECK_OK(fdx_stencil_create(ctx, &d, dt, &with));
    CHECK_OK(fdx_stencil_create(ctx, &d, dt, &plain));
    CHECK_OK(fdx_bc_create(ctx, &bc, 3, r, h, dt, &pass));
    CHECK_OK(fdx_array_create(ctx, dt, 3, n, FDX_ON_HOST | FDX_ON_DEVICE, &u));
    CHECK_OK(fdx_array_create(ctx, dt, 3, n, FDX_ON_HOST | FDX_ON_DEVICE, &out));
    void *in = malloc((size_t)count * e), *got = malloc((size_t)count * e);
    if (with && plain && pass && u && out && in && got) {
        CHECK_OK(fdx_stencil_set_boundary(with, &bc));
        fdx_stencil_force_cfg(with, cfg);
        fdx_stencil_force_cfg(plain, cfg);
        for (int64_t i = 0; i < count; i++) {
            int64_t x[3] = {i % n[0], i / n[0] % n[1], i / (n[0] * n[1])};
            int frame = 0;
            for (int a = 0; a < 3; a++) frame |= x[a] < r || x[a] >= n[a] - r;
            bc_set(in, dbl, i, frame ? BC_POISON : fdx_test_rand(&seed));
        }
        bc_stencil_once(ctx, with, out, u, in, got);
        void *uw = malloc((size_t)count * e); /* u after it: the ghosts as the pass writes them */
        CHECK_OK(fdx_array_to_host(u));
        if (uw) memcpy(uw, fdx_array_host(u), (size_t)count * e);
        /* the plain kernel on the ghosts the (whole) pass writes */
        memcpy(fdx_array_host(u), in, (size_t)count * e);
        CHECK_OK(fdx_array_to_device(u));
        CHECK_OK(fdx_bc_apply(pass, u, NULL));
        CHECK_OK(fdx_ctx_sync(ctx));
        CHECK_OK(fdx_array_to_host(u));
        void *ref = malloc((size_t)count * e);
        if (ref) {
            memcpy(ref, fdx_array_host(u), (size_t)count * e);
            bc_stencil_once(ctx, plain, out, u, ref, NULL);
            int64_t bad = 0, finite = 0, interior = 0;
            for (int64_t i = 0; i < count; i++) {
                bad += memcmp((char *)fdx_array_host(out) + i * e, (char *)got + i * e, e) != 0;
                int64_t x[3] = {i % n[0], i / n[0] % n[1], i / (n[0] * n[1])};
                int frame = 0;
                for (int a = 0; a < 3; a++) frame |= x[a] < r || x[a] >= n[a] - r;
                interior += !frame, finite += !frame && fabs(bc_get(got, dbl, i)) < 1e20;
            }
            if (bad) bc_report_first(what, n, dbl, fdx_array_host(out), got, r);
            CHECK(bad == 0 && finite == interior, "%s: %lld points differ, %lld of %lld interior finite", what,
                  (long long)bad, (long long)finite, (long long)interior);
            /* FDX_BC_FOLD=2 / 3 in the unrolled column: no pass, u untouched;
               4: the kernel takes the faces of FDX_BC_FIX (default 3: x)
               among the marching ones and the x ones where the lanes hold
               the ghosts (aligned rows, vec >= 2r), the pass the others */
            int none = mode >= 2 && cfg->variant == FDX_SV_UNROLL;
            if (none && mode == 4 && uw) {
                const char *fx = getenv("FDX_BC_FIX");
                const unsigned mask = fx && atoi(fx) >= 1 && atoi(fx) <= 63 ? (unsigned)atoi(fx) : 3u;
                const unsigned pf = 0x3fu & ~(mask & (0x30u | (cfg->win || cfg->vec < 2 * r ? 0u : 3u)));
                memcpy(fdx_array_host(u), in, (size_t)count * e);
                CHECK_OK(fdx_array_to_device(u));
                CHECK_OK(fdx_bc_apply_faces(pass, u, pf, NULL));
                CHECK_OK(fdx_ctx_sync(ctx));
                CHECK_OK(fdx_array_to_host(u));
                memcpy(in, fdx_array_host(u), (size_t)count * e);
            }
            CHECK(uw && memcmp(uw, none ? in : ref, (size_t)count * e) == 0, "%s: u after the apply is not %s", what,
                  none ? "the input with the ghosts of the faces left to the pass (FDX_BC_FOLD=2 / 3 / 4)"
                       : "the pass's");
            free(ref);
        }
        free(uw);
    }
    free(in), free(got);
    fdx_bc_destroy(&pass);
    fdx_stencil_destroy(&with);
    fdx_stencil_destroy(&plain);
    fdx_array_destroy(&u);
    fdx_array_destroy(&out);
}

static void fold_cases(fdx_ctx *ctx)
{
    /* The fold is experimental and off by default; its cases run when asked
       for (FDX_BC_FOLD=1), where the H100 showed one wrong strategy. */
    const char *fold = getenv("FDX_BC_FOLD");
    int mode = fold ? atoi(fold) : 0;
    if (mode < 1 || mode > 4) {
        printf("test_bc_gpu: folded cases skipped (FDX_BC_FOLD=1, 2, 3 or 4 runs them)\n");
        return;
    }
    static const char *specs[] = {"x-=dirichlet:0.75,x+=neumann:-2,y=neumann:1,z=dirichlet:-0.5",
                                  "x=periodic,y=periodic,z-=neumann:0.25,z+=dirichlet:1"};
    uint64_t seed = 0xf01d;
    int cases = 0;
    for (int dbl = 0; dbl < 2; dbl++) {
        fdx_stencil_kspec ks = {dbl, 3, 1, FDX_UPDATE_HEAT, 0, 0, 0};
        const fdx_device_info *dev = fdx_ctx_device(ctx);
        firsts f = {.n = 0};
        int64_t n3[3] = {512, 512, 512};
        fdx_stencil_cfg best;
        CHECK_OK(fdx_stencil_tune(&ks, dev, 1, n3, first_of_kind, &f, &best));
        /* each kind twice a precision: both specs, orders 2 and 4 alternating */
        for (int i = 0; i < f.n; i++)
            for (int sp = 0; sp < 2; sp++) {
                fdx_stencil_cfg c = f.cfg[i];
                c.chunk = 5; /* partial last chunks on the odd shapes */
                fold_case(ctx, dbl ? FDX_FLOAT64 : FDX_FLOAT32, (i + sp + dbl) % 2 ? 4 : 2, specs[sp], &c, seed++, mode);
                cases++;
            }
    }
    printf("test_bc_gpu: %d folded cases (FDX_BC_FOLD=%d)\n", cases, mode);
}

/* One larger case: the CUDA pass and the CPU pass on the same input. */
static void cuda_vs_cpu(fdx_ctx *gpu, fdx_ctx *cpu, fdx_dtype dt)
{
    int64_t n[3] = {515, 257, 131};
    int64_t count = n[0] * n[1] * n[2];
    size_t e = dt == FDX_FLOAT64 ? 8 : 4;
    fdx_bc_desc bc;
    CHECK_OK(fdx_bc_parse("x=periodic,y-=dirichlet:0.25,y+=neumann:-1,z-=neumann:0.5,z+=dirichlet:-3", 3, &bc));
    fdx_array *a = NULL, *b = NULL;
    fdx_bc *pa = NULL, *pb = NULL;
    double h[3] = {0.1, 0.2, 0.3};
    CHECK_OK(fdx_array_create(gpu, dt, 3, n, FDX_ON_HOST | FDX_ON_DEVICE, &a));
    CHECK_OK(fdx_array_create(cpu, dt, 3, n, FDX_ON_HOST, &b));
    CHECK_OK(fdx_bc_create(gpu, &bc, 3, 2, h, dt, &pa));
    CHECK_OK(fdx_bc_create(cpu, &bc, 3, 2, h, dt, &pb));
    if (!a || !b || !pa || !pb) return;
    uint64_t seed = 99;
    void *ha = fdx_array_host(a), *hb = fdx_array_host(b);
    for (int64_t i = 0; i < count; i++) bc_set(ha, dt == FDX_FLOAT64, i, fdx_test_rand(&seed));
    memcpy(hb, ha, (size_t)count * e);
    CHECK_OK(fdx_array_to_device(a));
    CHECK_OK(fdx_bc_apply(pa, a, NULL));
    CHECK_OK(fdx_ctx_sync(gpu));
    CHECK_OK(fdx_array_to_host(a));
    CHECK_OK(fdx_bc_apply(pb, b, NULL));
    CHECK(memcmp(ha, hb, (size_t)count * e) == 0, "515x257x131 %s: the CUDA and CPU passes differ",
          fdx_dtype_name(dt));
    fdx_bc_destroy(&pa);
    fdx_bc_destroy(&pb);
    fdx_array_destroy(&a);
    fdx_array_destroy(&b);
}

int main(void)
{
    if (fdx_cuda_device_count() == 0) return fdx_test_skip("test_bc_gpu", "no CUDA device");
    fdx_ctx *ctx = bc_ctx("cuda"), *cpu = bc_ctx("cpu");
    if (!ctx || !cpu) return fdx_test_finish("test_bc_gpu");
    uint64_t seed = 0xbc17;
    for (int dbl = 0; dbl < 2; dbl++)
        for (int rank = 1; rank <= 3; rank++)
            for (int order = 2; order <= 8; order += 2)
                for (int c = 0; c < 4; c++) bc_case(ctx, dbl ? FDX_FLOAT64 : FDX_FLOAT32, rank, order, c, seed++, 1);
    cuda_vs_cpu(ctx, cpu, FDX_FLOAT32);
    cuda_vs_cpu(ctx, cpu, FDX_FLOAT64);
    fold_cases(ctx);
    fdx_ctx_destroy(&ctx);
    fdx_ctx_destroy(&cpu);
    return fdx_test_finish("test_bc_gpu");
}
