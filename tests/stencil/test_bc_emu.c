/* The x faces folded into the generated CUDA stencil kernels (the kernel
   applies Dirichlet, Neumann or periodic conditions on x- / x+ as it reads a
   row, so the boundary pass skips them), run on the CPU through
   tests/cuda_emu.h.  Each program holds two kernels of one configuration:
   the folded one reads an input whose x ghosts are NaN (it must never read
   them), the plain one reads the same input with the ghosts the pass's
   formulas give (written here in the element type, as the pass does).  The
   outputs must agree bit for bit everywhere (the frame untouched in both),
   every interior output must be finite, the folded kernel must have written
   u's x ghosts over unknown rows as the pass does (and nothing else of u),
   and a reference with one ghost value
   off by one must make them differ (the comparison can fail).  Strategies:
   the unrolled column (x neighbours as vectors, unaligned rows, several rows
   a thread), the direct march and the shared-memory tile (barriers); radii
   1-4, float and double, heat / wave / coefficient updates, odd widths.
   Skipped without a C++ compiler. */
#include "bc_check.h"
#include "core/fdx_sb.h"
#include "cuda_emu.h"
#include "stencil/fdx_bc.h"
#include "stencil/fdx_stencil_impl.h"

#include <math.h>

/* The macros come first (see run_case): NX NY NM R RANK UPD COEF CHUNK, the
   grid GX GY GZ TX TY, BARRIERS, XB0 XB1 (codes), XV0 XV1 (values), SEED. */
static const char driver[] =
    "static double rnd(unsigned long long *s)\n"
    "{ *s ^= *s >> 12; *s ^= *s << 25; *s ^= *s >> 27;\n"
    "  return (double)((*s * 0x2545F4914F6CDD1DULL) >> 11) * (2.0 / 9007199254740992.0) - 1.0; }\n"
    "typedef plain::real real;\n"
    /* codes and values by generator axis (x, y, marching) and side */
    "static const int fb[3][2] = {{FB0, FB1}, {FB2, FB3}, {FB4, FB5}};\n"
    /* which of them the folded kernel applies (FDX_BC_FOLD=4 leaves some to the pass) */
    "static const int ff[3][2] = {{FF0, FF1}, {FF2, FF3}, {FF4, FF5}};\n"
    "static const double fv[3][2][R] = {{{FV0}, {FV1}}, {{FV2}, {FV3}}, {{FV4}, {FV5}}};\n"
    "static const long long ext[3] = {NX, NY, NM}, str[3] = {1, NX, NX * NY};\n"
    /* The pass's ghosts (fdx_bc_gen.c) of every face with a code, over the
       other axes' unknowns, `bump` added to layer 0 of x- at one point;
       with `pass` only the faces the folded kernel leaves to the pass. */
    "static void ghosts(real *w, real bump, bool pass)\n"
    "{ for (int a = 0; a < 3; a++) for (int s = 0; s < 2; s++) { if (!fb[a][s] || (pass && ff[a][s])) continue;\n"
    "    const int b = a ? 0 : 1, c = a == 2 ? 1 : 2;\n"
    "    const bool hb = b != 1 || RANK == 3, hc = c != 1 || RANK == 3;\n"
    "    for (long long i = hb ? R : 0; i < (hb ? ext[b] - R : 1); i++)\n"
    "    for (long long j = hc ? R : 0; j < (hc ? ext[c] - R : 1); j++)\n"
    "    for (int k = 0; k < R; k++) {\n"
    "      const long long o = i * str[b] + j * str[c];\n"
    "      const long long g = s ? ext[a] - R + k : R - 1 - k, m = s ? ext[a] - R - 1 - k : R + k;\n"
    "      const long long im = s ? g - (ext[a] - 2 * R) : g + (ext[a] - 2 * R);\n"
    "      real v = w[o + m * str[a]];\n"
    "      if (fb[a][s] == 1) v = (real)fv[a][s][0] - w[o + m * str[a]];\n"
    "      if (fb[a][s] == 3) v = w[o + m * str[a]] + (real)fv[a][s][k];\n"
    "      if (fb[a][s] == 4) v = w[o + im * str[a]];\n"
    "      w[o + g * str[a]] = v + (a == 0 && s == 0 && k == 0 && i == (hb ? R : 0) && j == (hc ? R : 0) ? bump : (real)0);\n"
    "  } } }\n"
    "template <class P> static void params(P &p, unsigned long long seed)\n"
    "{ memset(&p, 0, sizeof p);\n"
    "  p.n[0] = NX, p.n[1] = NY, p.n[2] = NM, p.chunk = CHUNK, p.by = 1;\n"
    "  p.c0 = rnd(&seed);\n"
    "  for (int i = 0; i < 3 * R; i++) p.ws[i] = rnd(&seed), p.wa[i] = rnd(&seed); }\n"
    "int main()\n{\n"
    "    const long long n = (long long)NX * NY * NM;\n"
    "    unsigned long long seed = SEED;\n"
    "    std::vector<real> u(n), ur(n), up(n), cf(n), o1(n), o2(n);\n"
    "    for (long long q = 0; q < n; q++) u[q] = rnd(&seed), up[q] = rnd(&seed), cf[q] = rnd(&seed);\n"
    /* NaN in the frame of every face with a code: the folded kernel must never read it */
    "    for (long long q = 0; q < n; q++) { const long long c[3] = {q % NX, (q / NX) % NY, q / (NX * NY)};\n"
    "      for (int a = 0; a < 3; a++) if ((ff[a][0] && c[a] < R) || (ff[a][1] && c[a] >= ext[a] - R)) u[q] = NAN; }\n"
    /* the faces left to the pass: their ghosts written before the folded kernel runs */
    "    ghosts(u.data(), (real)0, true);\n"
    "    plain::fdx_p pp; fold::fdx_p pf;\n"
    "    params(pp, SEED ^ 77), params(pf, SEED ^ 77);\n"
    "    const unsigned g[3] = {GX, GY, GZ};\n"
    /* a split grid: the shell blocks by the folded kernel (SG of them, one
       dimension), the inner box by the plain code (IG) */
    "#if SPLIT\n"
    "    inner::fdx_p pi; params(pi, SEED ^ 77);\n"
    "    const int bb[9] = {BB};\n"
    "    for (int i = 0; i < 9; i++) pf.bb[i] = pi.bb[i] = bb[i];\n"
    "    const unsigned sg[3] = {SG, 1, 1}, ig[3] = {IG};\n"
    "#endif\n"
    "    long long bad = 0, interior = 0, finite = 0, caught = 0, ghosts_bad = 0;\n"
    "    const std::vector<real> u0 = u;\n"
    "    for (int bump = 0; bump < 2; bump++) {\n"
    "        ur = u = u0;\n"
    "        ghosts(ur.data(), (real)bump, false);\n"
    "        std::fill(o1.begin(), o1.end(), (real)NAN), std::fill(o2.begin(), o2.end(), (real)NAN);\n"
    "        cuda_emu_grid(g, TX, TY, 0, BARRIERS, [&] { fdx_plain_kernel(o1.data(), ur.data(), UPD == 1 ? up.data() :"
    " nullptr, COEF ? cf.data() : nullptr, pp); });\n"
    /* The folded kernel's stores into u undone after each thread (block,
       with barriers) and replayed at the end: a read of a ghost another
       thread or block stores (a race on the GPU) sees the NaN. */
    "        std::vector<real> wr = u0; std::vector<char> wrote(n, 0);\n"
    "        cuda_emu_after = [&] { for (long long q = 0; q < n; q++) if (memcmp(&u[q], &u0[q], sizeof(real)))\n"
    "                                   wr[q] = u[q], wrote[q] = 1, u[q] = u0[q]; };\n"
    "#if SPLIT\n"
    "        if (sg[0]) cuda_emu_grid(sg, TX, TY, 0, BARRIERS, [&] { fdx_fold_kernel(o2.data(), u.data(), UPD == 1 ?"
    " up.data() : nullptr, COEF ? cf.data() : nullptr, pf); });\n"
    "        if (ig[0]) cuda_emu_grid(ig, TX, TY, 0, BARRIERS, [&] { fdx_inner_kernel(o2.data(), u.data(), UPD == 1 ?"
    " up.data() : nullptr, COEF ? cf.data() : nullptr, pi); });\n"
    "#else\n"
    "        cuda_emu_grid(g, TX, TY, 0, BARRIERS, [&] { fdx_fold_kernel(o2.data(), u.data(), UPD == 1 ? up.data() :"
    " nullptr, COEF ? cf.data() : nullptr, pf); });\n"
    "#endif\n"
    "        cuda_emu_after = nullptr;\n"
    "        for (long long q = 0; q < n; q++) if (wrote[q]) u[q] = wr[q];\n"
    "        long long differ = 0;\n"
    "        for (long long q = 0; q < n; q++) differ += memcmp(&o1[q], &o2[q], sizeof(real)) != 0;\n"
    "        if (!bump) {\n"
    "            bad = differ;\n"
    "            for (long long q = 0; q < n; q++) {\n"
    "                const long long c[3] = {q % NX, (q / NX) % NY, q / (NX * NY)}, e[3] = {NX, NY, NM};\n"
    "                bool in = true;\n"
    "                for (int a = 0; a < 3; a++) if (a != 1 || RANK == 3) in = in && c[a] >= R && c[a] < e[a] - R;\n"
    "                interior += in, finite += in && std::isfinite(o2[q]);\n"
    /* u after the folded kernel: its x ghosts over unknown rows as the pass writes them, all else as it was */
    "                bool row = true;\n"
    "                for (int a = 1; a < 3; a++) if (a != 1 || RANK == 3) row = row && c[a] >= R && c[a] < e[a] - R;\n"
    "                const bool xg = c[0] < R || c[0] >= NX - R;\n"
    "                ghosts_bad += memcmp(&u[q], STORE && row && xg ? &ur[q] : &u0[q], sizeof(real)) != 0;\n"
    "            }\n"
    "        } else caught = differ;\n"
    "    }\n"
    "    printf(\"%lld differ from the plain kernel, %lld of %lld interior finite, %lld of u wrong, mutation %s\\n\",\n"
    "           bad, finite, interior, ghosts_bad, caught ? \"caught\" : \"NOT caught\");\n"
    "    return bad || finite != interior || !interior || !caught || ghosts_bad;\n"
    "}\n";

static int runs;

/* The kernel's source with its entry renamed, inside a namespace (two
   kernels, each with its own parameter struct, in one program). */
static void put_kernel(fdx_sb *f, const char *src, const char *ns, const char *entry)
{
    fdx_sb_printf(f, "namespace %s {\n", ns);
    for (const char *p = src;;) {
        const char *at = strstr(p, FDX_STENCIL_ENTRY);
        if (!at) {
            fdx_sb_puts(f, p);
            break;
        }
        fdx_sb_printf(f, "%.*s%s", (int)(at - p), p, entry);
        p = at + strlen(FDX_STENCIL_ENTRY);
    }
    fdx_sb_printf(f, "\n}\nusing %s::%s;\n", ns, entry);
}

static void run_case(const fdx_stencil_kspec *fold, const fdx_stencil_cfg *cfg, const int64_t n3[3], uint64_t seed)
{
    fdx_stencil_kspec plain = *fold, inner = *fold;
    memset(plain.fbc, 0, sizeof plain.fbc);
    memset(plain.fval, 0, sizeof plain.fval);
    plain.fstore = 0;
    plain.fpart = 0;
    plain.ffix = 0;
    plain.fixmask = 0;
    plain.fixat = 0;
    inner.fpart = 2;
    char what[256], text[96], spec[48];
    fdx_stencil_cfg_text(cfg, 1, text, sizeof text);
    fdx_stencil_kspec_text(fold, spec, sizeof spec);
    snprintf(what, sizeof what, "%s %s on %lldx%lldx%lld", spec, text, (long long)n3[0], (long long)n3[1],
             (long long)n3[2]);
    CHECK(fdx_stencil_cfg_fits(fold, cfg, n3), "%s: the configuration does not fit", what);
    /* every face with a code; FDX_BC_FOLD=4: the marching faces, and the x
       faces where the lanes hold every ghost (aligned rows, vec >= 2r) */
    unsigned want = 0;
    const int xfix = !cfg->win && cfg->vec >= 2 * fold->radius;
    for (int f = 0; f < 6; f++)
        want |= (unsigned)(fold->fbc[f] != 0 && (!fold->ffix || f / 2 == fold->rank - 1 || (f < 2 && xfix)) &&
                           (!fold->ffix || !fold->fixmask || fold->fixmask >> f & 1))
                << f;
    const unsigned folded = fdx_stencil_fold_faces(fold, cfg, 1);
    CHECK(folded == want, "%s: folds %#x, not %#x", what, folded, want);
    fdx_launch_dims dims;
    char *kf = NULL, *kp = NULL;
    CHECK_OK(fdx_stencil_launch_dims(&plain, cfg, n3, &dims));
    CHECK_OK(fdx_stencil_generate(fold, cfg, 1, &kf));
    CHECK_OK(fdx_stencil_generate(&plain, cfg, 1, &kp));
    CHECK(kf && kp && strcmp(kf, kp) != 0, "%s: folding changed nothing in the source", what);
    /* FDX_BC_FOLD=3: the shell blocks by the folded kernel, the inner box by
       the plain code; both parts must be there (the shape is chosen so) */
    const int split = fold->fpart != 0;
    char *ki = NULL;
    int bb[9] = {0};
    fdx_launch_dims ds = {{0}}, di = {{0}};
    if (split) {
        CHECK(fdx_stencil_split(fold, cfg), "%s: not split", what);
        int64_t shell = fdx_stencil_split_box(fold, cfg, n3, bb);
        CHECK_OK(fdx_stencil_launch_dims(fold, cfg, n3, &ds));
        CHECK_OK(fdx_stencil_launch_dims(&inner, cfg, n3, &di));
        int64_t in = (int64_t)di.grid[0] * di.grid[1] * di.grid[2];
        CHECK(shell > 0 && in > 0 && ds.grid[0] == shell && shell + in == (int64_t)dims.grid[0] * dims.grid[1] * dims.grid[2],
              "%s: split into %lld shell and %lld inner blocks of %ux%ux%u", what, (long long)shell, (long long)in,
              dims.grid[0], dims.grid[1], dims.grid[2]);
        CHECK_OK(fdx_stencil_generate(&inner, cfg, 1, &ki));
    }
    if (!kf || !kp || (split && !ki)) {
        free(kf), free(kp), free(ki);
        return;
    }
    fdx_sb f = FDX_SB_INIT;
    put_kernel(&f, kp, "plain", "fdx_plain_kernel");
    put_kernel(&f, kf, "fold", "fdx_fold_kernel");
    if (split) put_kernel(&f, ki, "inner", "fdx_inner_kernel");
    free(kf), free(kp), free(ki);
    fdx_sb_printf(&f, "#define SPLIT %d\n#define SG %uu\n#define IG %uu, %uu, %uu\n#define BB ", split, ds.grid[0],
                  di.grid[0], di.grid[1], di.grid[2]);
    for (int i = 0; i < 9; i++) fdx_sb_printf(&f, "%s%d", i ? ", " : "", bb[i]);
    fdx_sb_puts(&f, "\n");
    fdx_sb_printf(&f, "#define NX %lldLL\n#define NY %lldLL\n#define NM %lldLL\n#define R %d\n#define RANK %d\n",
                  (long long)n3[0], (long long)n3[1], (long long)n3[2], fold->radius, fold->rank);
    fdx_sb_printf(&f, "#define UPD %d\n#define COEF %d\n#define CHUNK %d\n#define BARRIERS %s\n", fold->update,
                  fold->coef, cfg->chunk, cfg->variant == FDX_SV_SMEM ? "true" : "false");
    fdx_sb_printf(&f, "#define GX %uu\n#define GY %uu\n#define GZ %uu\n#define TX %du\n#define TY %du\n", dims.grid[0],
                  dims.grid[1], dims.grid[2], cfg->tx, cfg->ty);
    /* generator axis a's faces: the array's axis a, the marching one its last */
    for (int ga = 0; ga < 3; ga++)
        for (int s = 0; s < 2; s++) {
            int af = ga == 2 ? 2 * (fold->rank - 1) + s : ga == 1 && fold->rank < 3 ? -1 : 2 * ga + s;
            fdx_sb_printf(&f, "#define FB%d %d\n#define FF%d %d\n#define FV%d ", 2 * ga + s, af < 0 ? 0 : fold->fbc[af],
                          2 * ga + s, af < 0 ? 0 : (int)(folded >> af & 1), 2 * ga + s);
            for (int k = 0; k < fold->radius; k++)
                fdx_sb_printf(&f, "%s%.17g", k ? ", " : "", af < 0 ? 0.0 : fold->fval[af][k]);
            fdx_sb_puts(&f, "\n");
        }
    fdx_sb_printf(&f, "#define STORE %d\n", fold->fstore);
    fdx_sb_printf(&f, "#define SEED %lluULL\n%s", (unsigned long long)seed, driver);
    CHECK(!f.failed, "%s: out of memory", what);
    if (!f.failed) cuda_emu_run(fdx_sb_str(&f), "-ffp-contract=off", "-O1", what);
    fdx_sb_free(&f);
    printf("test_bc_emu: %s\n", what); /* which folds ran */
    runs++;
}

/* The pass's side of a folded apply (fdx_stencil_apply runs the pass on
   fdx_stencil_pass_faces, then the folded kernel): on the CPU pass, u's
   frame NaN, it must write every ghost the whole pass writes except the x
   ghosts the kernel writes (on the H100 the pass was skipped when both x
   faces were folded, leaving the y/z ghosts unwritten). */
static void pass_case(fdx_ctx *ctx, const fdx_stencil_kspec *ks, const fdx_stencil_cfg *cfg)
{
    const int rank = ks->rank, r = ks->radius, dbl = ks->is_double;
    const size_t e = dbl ? 8 : 4;
    int64_t n[3] = {3 * r + 5, 3 * r + 3, 3 * r + 2}, count = n[0] * n[1] * (rank > 2 ? n[2] : 1);
    double h[3] = {0.5, 0.25, 0.125};
    const char *spec = rank > 2 ? "x-=dirichlet:0.75,x+=neumann:-2,y=neumann:1,z=dirichlet:-0.5"
                                : "x=periodic,y-=dirichlet:1,y+=neumann:0.25";
    unsigned faces = fdx_stencil_pass_faces(ks, cfg, 1);
    CHECK(faces == (0x3fu & ~fdx_stencil_fold_faces(ks, cfg, 1)), "pass faces %#x: not every unfolded face", faces);
    fdx_bc_desc bc;
    fdx_bc *b = NULL;
    fdx_array *u = NULL;
    CHECK_OK(fdx_bc_parse(spec, rank, &bc));
    CHECK_OK(fdx_bc_create(ctx, &bc, rank, r, h, dbl ? FDX_FLOAT64 : FDX_FLOAT32, &b));
    CHECK_OK(fdx_array_create(ctx, dbl ? FDX_FLOAT64 : FDX_FLOAT32, rank, n, FDX_ON_HOST, &u));
    void *in = malloc((size_t)count * e), *whole = malloc((size_t)count * e);
    if (b && u && in && whole) {
        uint64_t seed = 0x9a55 + (uint64_t)r;
        for (int64_t i = 0; i < count; i++) {
            int64_t x[3] = {i % n[0], i / n[0] % n[1], i / (n[0] * n[1])};
            int frame = 0;
            for (int a = 0; a < rank; a++) frame |= x[a] < r || x[a] >= n[a] - r;
            bc_set(in, dbl, i, frame ? NAN : fdx_test_rand(&seed));
        }
        memcpy(fdx_array_host(u), in, (size_t)count * e);
        CHECK_OK(fdx_bc_apply(b, u, NULL));
        memcpy(whole, fdx_array_host(u), (size_t)count * e);
        memcpy(fdx_array_host(u), in, (size_t)count * e);
        if (faces) CHECK_OK(fdx_bc_apply_faces(b, u, faces, NULL));
        int64_t missing = 0;
        for (int64_t i = 0; i < count; i++) {
            int64_t x0 = i % n[0];
            int xghost = (x0 < r && (~faces & 1)) || (x0 >= n[0] - r && (~faces & 2));
            missing += !xghost && memcmp((char *)fdx_array_host(u) + i * e, (char *)whole + i * e, e) != 0;
        }
        CHECK(missing == 0, "rank %d r %d folded x%d%d: %lld ghosts the kernel does not write are not the pass's", rank, r,
              ks->fbc[0], ks->fbc[1], (long long)missing);
    }
    free(in), free(whole);
    fdx_array_destroy(&u);
    fdx_bc_destroy(&b);
}

/* Faces of kind pair `kinds` (0: Dirichlet / Neumann, 1: Neumann /
   Dirichlet, 2: periodic) with random values in the element type: the x
   faces with stores (fstore, FDX_BC_FOLD=1), or every face of the rank
   without (FDX_BC_FOLD=2: the pair rotates along the axes). */
static void set_faces(fdx_stencil_kspec *ks, int kinds, int store, uint64_t *seed)
{
    static const int pairs[3][2] = {{FDX_BCC_DIRICHLET, FDX_BCC_NEUMANN},
                                    {FDX_BCC_NEUMANN, FDX_BCC_DIRICHLET},
                                    {FDX_BCC_PERIODIC, FDX_BCC_PERIODIC}};
    memset(ks->fbc, 0, sizeof ks->fbc);
    memset(ks->fval, 0, sizeof ks->fval);
    ks->fstore = store;
    for (int f = 0; f < (store ? 2 : 2 * ks->rank); f++) {
        int kind = (kinds + f / 2) % 3;
        ks->fbc[f] = pairs[kind][f % 2];
        for (int k = 0; k < ks->radius; k++) {
            double v = ks->fbc[f] == FDX_BCC_PERIODIC || (ks->fbc[f] == FDX_BCC_DIRICHLET && k) ? 0
                                                                                              : fdx_test_rand(seed);
            ks->fval[f][k] = ks->is_double ? v : (double)(float)v;
        }
    }
}

int main(void)
{
    if (!cuda_emu_start("bc-emu")) return fdx_test_skip("test_bc_emu", "no working C++ compiler (c++)");
    printf("test_bc_emu: compiling with c++ %s\n", cuda_emu_sanitize[0] ? cuda_emu_sanitize : "(no sanitizer)");
    /* {double, rank, radius, update, coef, d1, sponge} */
    static const fdx_stencil_kspec specs[] = {
        {1, 3, 1, FDX_UPDATE_APPLY, 0, 0, 0}, {0, 3, 1, FDX_UPDATE_HEAT, 0, 0, 0}, {1, 3, 2, FDX_UPDATE_WAVE, 1, 1, 0},
        {0, 3, 4, FDX_UPDATE_APPLY, 0, 0, 0}, {1, 2, 3, FDX_UPDATE_HEAT, 0, 1, 0}, {0, 2, 1, FDX_UPDATE_APPLY, 0, 0, 0},
        {0, 3, 2, FDX_UPDATE_HEAT, 1, 0, 0}, /* r 2 in vec 4: x fix-ups of two ghost lanes (FDX_BC_FOLD=4) */
    };
    /* {variant, tx, ty, vec (0: widest), chunk, pd, xv, win, ry} */
    typedef struct {
        int variant, tx, ty, vec, chunk, pd, xv, win, ry;
    } bcfg;
    static const bcfg cfgs[] = {
        {FDX_SV_UNROLL, 8, 4, 0, 2, 2, 0, 0, 0},  /* the 512^3 7-point winner's shape */
        {FDX_SV_UNROLL, 8, 2, 0, 6, 3, 1, 0, 0},  /* x neighbours as vectors */
        {FDX_SV_UNROLL, 8, 2, 0, 4, 4, 0, 1, 0},  /* unaligned rows */
        {FDX_SV_UNROLL, 8, 2, 0, 4, 2, 1, 0, 2},  /* two rows a thread */
        {FDX_SV_DIRECT, 8, 4, 0, 5, 2, 0, 0, 0},  /* direct march, two planes in flight */
        {FDX_SV_DIRECT, 16, 2, 1, 3, 1, 0, 0, 0}, /* direct march, one lane */
        {FDX_SV_SMEM, 8, 4, 0, 4, 1, 0, 0, 0},    /* shared-memory tile */
    };
    const int nspecs = sizeof specs / sizeof *specs, ncfgs = sizeof cfgs / sizeof *cfgs;
    uint64_t seed = 0xbcf0;
    fdx_ctx *ctx = bc_ctx("cpu");
    int per_kind[3] = {0};
    for (int ci = 0; ci < ncfgs; ci++)
        for (int si = 0; si < nspecs; si++) {
            if ((si + ci) % 3) continue; /* each configuration with two of the specs, rotating */
            fdx_stencil_kspec ks = specs[si];
            const bcfg *b = &cfgs[ci];
            if (b->variant == FDX_SV_UNROLL && ks.rank < 2) continue;
            if ((b->win || b->ry) && ks.rank < 3) continue;
            int kinds = (ci + si / 3) % 3;
            /* the unrolled column also with every face folded, nothing
               stored (store 0), and so in a split grid (-1) or by register
               fix-ups (-2, FDX_BC_FOLD=4) */
            for (int store = 1; store >= (b->variant == FDX_SV_UNROLL ? -2 : 1); store--) {
            /* fix-ups (test time): the pin's shape, x vectors with r 2, two rows */
            if (store == -2 && !(ci == 0 || (ci == 1 && si == 2) || (ci == 3 && si == 0))) continue;
            set_faces(&ks, kinds, store > 0, &seed);
            ks.fpart = store == -1;
            ks.ffix = store == -2;
            /* FDX_BC_FIX: the z faces and x- only (x+ by the pass) */
            ks.fixmask = store == -2 && ci % 2 ? 0x31u : 0u;
            /* FDX_BC_FIXAT: every placement of the fix-ups in turn */
            static int placement;
            ks.fixat = store == -2 ? placement++ % 4 : 0;
            fdx_stencil_cfg c = {0};
            int widest = ks.is_double ? 2 : 4, r = ks.radius;
            c.variant = b->variant, c.tx = b->tx, c.ty = ks.rank == 3 ? b->ty : 1, c.by = 1;
            c.vec = b->vec ? b->vec : widest, c.chunk = b->chunk, c.pd = b->pd, c.xv = b->xv, c.win = b->win;
            c.ry = b->ry;
            if (c.vec > widest) c.vec = widest;
            /* odd widths for unaligned rows, a multiple of the vector otherwise */
            int64_t nx = c.win ? 4 * c.vec * 3 + 1 + si % 3 : 2 * c.vec * (3 + si % 2);
            if (nx < 3 * r + 1) nx += 2 * c.vec * ((3 * r + 1 - nx) / (2 * c.vec) + 1);
            int64_t n3[3] = {nx, ks.rank == 3 ? 2 * r + 3 + si % 3 : 1, 2 * r + 7 + ci % 3};
            if (store <= 0) {
                /* every axis at least 3r, and blocks / groups away from every
                   face, so both sides of the kernel's bnd branch run */
                int w = c.tx * c.vec, rows = c.ty * (c.ry > 1 ? c.ry : 1);
                n3[0] = 3 * w + (c.win ? 1 + si % 3 : 0) + 4 * r;
                if (ks.rank == 3) n3[1] = 3 * rows + 4 * r + 1 + si % 2;
                n3[2] = 3 * c.pd + 4 * r + 1 + ci % 3;
                if (n3[2] < 3 * r) n3[2] = 3 * r;
                c.chunk = 2 * c.pd + 1; /* a partial last group (the H100 failed those) */
                /* split: chunks away from both marching faces too */
                if (store == -1) n3[2] = 3 * c.chunk + 4 * r + 1 + ci % 3;
                /* fix-ups: chunks of one group (the pin's straight-line
                   code) in every other spec */
                if (store == -2 && si % 2) c.chunk = c.pd;
            }
            if (!fdx_stencil_cfg_fits(&ks, &c, n3)) {
                printf("test_bc_emu: %d/%d does not fit, skipped\n", ci, si);
                continue;
            }
            run_case(&ks, &c, n3, seed++);
            if (ctx && store > 0) pass_case(ctx, &ks, &c);
            per_kind[kinds]++;
            }
        }
    CHECK(per_kind[0] && per_kind[1] && per_kind[2], "face kinds run: %d %d %d", per_kind[0], per_kind[1], per_kind[2]);
    fdx_ctx_destroy(&ctx);
    rmdir(cuda_emu_dir);
    printf("test_bc_emu: %d kernel pairs run\n", runs);
    return fdx_test_finish("test_bc_emu");
}
