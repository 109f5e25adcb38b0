/* The generated CUDA kernels of temporal blocking, run on the CPU
   (tests/cuda_emu.h: each block's threads as fibers run phase by phase
   between __syncthreads, shared memory per block): one pass of depth k of
   the blocked kernel against k launches of the single-step kernel (the
   direct march) alternating between two arrays, compared bit for bit,
   output frames poisoned with NaN except the boundary frame.  Both are
   compiled into one program with contraction on (-ffp-contract=fast,
   -march=native: FMA where the CPU has it), as NVRTC contracts; orders
   2-8, ranks 2 and 3, float and double, first-derivative terms in half the
   specs, wave (orders 2 float and 8 double, coefficients in half),
   depths 1-4 (rank 3: while k r <= 6, the tiles a CPU can emulate
   in reasonable time; test_temporal_nvrtc compiles the rest), an odd
   shape in several blocks along the marching axis and the smallest in one.
   Skipped without a C++ compiler. */
#include "fdx/internal/sb.h"
#include "cuda_emu.h"
#include "stencil/fdx_stencil_impl.h"
#include "stencil/fdx_temporal.h"

static const char driver[] =
    "static double rnd(unsigned long long *s)\n"
    "{ *s ^= *s >> 12; *s ^= *s << 25; *s ^= *s >> 27;\n"
    "  return (double)((*s * 0x2545F4914F6CDD1DULL) >> 11) * (2.0 / 9007199254740992.0) - 1.0; }\n"
    "template <class PS, class PB, class TB, class KS, class KB>\n"
    "static int run(const char *what, KS ks, KB kb, long long nx, long long ny, long long nm, int k, int r, int rank,\n"
    "               const unsigned gs[3], unsigned tsx, unsigned tsy, const unsigned char *ps, size_t psn,\n"
    "               const unsigned gb[3], unsigned tbx, unsigned tby, size_t shb, const unsigned char *pb, size_t pbn,\n"
    "               unsigned long long seed)\n"
    "{\n"
    "    if (sizeof(PS) > psn || sizeof(PB) > pbn) { printf(\"%s: parameter block sizes\\n\", what); return 1; }\n"
    "    PS p1; memcpy(&p1, ps, sizeof p1);\n"
    "    PB p2; memcpy(&p2, pb, sizeof p2);\n"
    "    TB tp; memset(&tp, 0, sizeof tp);\n"
    "    const long long n = nx * ny * nm, ext[3] = {nx, ny, nm};\n"
    "    std::vector<real_t> u(n), a(n), b(n), o(n);\n"
    "    for (long long q = 0; q < n; q++) u[q] = (real_t)rnd(&seed);\n"
    "    a = u, b = u, o = u;\n"
    "    for (long long q = 0; q < n; q++) {\n"
    "        const long long c[3] = {q % nx, (q / nx) % ny, q / (nx * ny)};\n"
    "        bool in = true;\n"
    "        for (int d = 0; d < 3; d++) if (d != 1 || rank == 3) in = in && c[d] >= r && c[d] < ext[d] - r;\n"
    "        if (in) o[q] = NAN, b[q] = NAN;\n"
    "    }\n"
    "    /* WAVE: u_prev random inside with u's frame, a coefficient array;\n"
    "       the single steps rotate three arrays, the pass writes (op, o). */\n"
    "    std::vector<real_t> up(n), cf(n), c(n), op(n);\n"
    "    for (long long q = 0; q < n; q++) cf[q] = (real_t)(0.5 + 0.25 * rnd(&seed));\n"
    "    for (long long q = 0; q < n; q++) up[q] = std::isnan(b[q]) ? (real_t)rnd(&seed) : u[q];\n"
    "    c = up, op = o;\n"
    "    real_t *src = a.data(), *dst = b.data(), *prv = c.data();\n"
    "    for (int s = 0; s < k; s++) {\n"
    "        cuda_emu_grid(gs, tsx, tsy, 0, false, [&] { ks(dst, src, WAVE ? prv : nullptr, COEF ? cf.data() : nullptr, p1); });\n"
    "        if (WAVE) { real_t *t = prv; prv = src; src = dst; dst = t; } else std::swap(src, dst);\n"
    "    }\n"
    "    cuda_emu_grid(gb, tbx, tby, shb, true, [&] { kb(o.data(), u.data(), nullptr, p2, tp, op.data(), up.data(), COEF ? cf.data() : nullptr); });\n"
    "    if (WAVE && memcmp(op.data(), prv, n * sizeof(real_t))) { printf(\"%s: u_prev differs\\n\", what); return 1; }\n"
    "    long long differ = 0, first = -1, moved = 0, finite = 0;\n"
    "    for (long long q = 0; q < n; q++) {\n"
    "        if (memcmp(&o[q], &src[q], sizeof(real_t))) { if (first < 0) first = q; differ++; }\n"
    "        moved += memcmp(&u[q], &src[q], sizeof(real_t)) != 0;\n"
    "        finite += std::isfinite(src[q]);\n"
    "    }\n"
    "    if (differ || !moved || finite != n)\n"
    "        printf(\"%s: %lld of %lld values differ from %d single steps (the first at %lld), %lld moved, %lld finite\\n\",\n"
    "               what, differ, n, k, first, moved, finite);\n"
    "    return differ || !moved || finite != n;\n"
    "}\n";

static int programs, cases;

static void bytes_of(fdx_sb *f, const char *name, const fdx_stencil_params *p)
{
    fdx_sb_printf(f, "static const unsigned char %s[] = {", name);
    for (size_t i = 0; i < p->size; i++) fdx_sb_printf(f, "%s%u", i ? "," : "", p->bytes[i]);
    fdx_sb_puts(f, "};\n");
}

/* A source inside namespace ns, its entry renamed. */
static void wrapped(fdx_sb *f, const char *ns, const char *entry, const char *src)
{
    fdx_sb_printf(f, "namespace %s {\n#define fdx_stencil_kernel %s\n%s\n#undef fdx_stencil_kernel\n}\n", ns, entry, src);
}

/* One program: the single-step kernel and the blocked kernels of every
   depth the rank allows, each blocked one on two shapes and two chunks. */
/* FDX_TEST_TEMPORAL_NEW=1: only the neighbour / named barrier kernels
   (session 11; mutation checks without the rest). */
static int only_new;

static void run_spec(const fdx_stencil_kspec *ks, uint64_t *seed)
{
    const int wave = ks->update == FDX_UPDATE_WAVE;
    const int r = ks->radius, rank3 = ks->rank == 3;
    char spec[32], what[160];
    fdx_stencil_kspec_text(ks, spec, sizeof spec);
    fdx_sb f = FDX_SB_INIT, body = FDX_SB_INIT;
    char *src = NULL;
    /* The single step: the direct march (no barriers: its threads run one
       after another), vec 1, 8 x 4 threads. */
    fdx_stencil_cfg sc;
    memset(&sc, 0, sizeof sc);
    sc.variant = FDX_SV_DIRECT, sc.tx = 8, sc.ty = rank3 ? 4 : 1, sc.vec = 1, sc.pd = 1, sc.chunk = 3, sc.by = 1;
    CHECK_OK(fdx_stencil_generate(ks, &sc, 1, &src));
    if (!src) return;
    wrapped(&f, "s1", "fdx_single", src);
    free(src);
    /* Random weights, bounded so that values stay finite over 4 steps. */
    double ws[3 * FDX_STENCIL_MAX_RADIUS], wa[3 * FDX_STENCIL_MAX_RADIUS];
    for (int i = 0; i < 3 * r; i++) ws[i] = 0.1 * fdx_test_rand(seed), wa[i] = ks->d1 ? 0.05 * fdx_test_rand(seed) : 0;
    double c0 = -0.3 + 0.1 * fdx_test_rand(seed);
    /* (threads in a shuffled order each pass: the neighbour barriers' waits
       are then tested against threads that run ahead) */
    fdx_sb_puts(&body, "int main()\n{\n    int bad = 0;\n    cuda_emu_shuffle = true;\n");
    for (int k = 1; k <= 4; k++)
        for (int v = 0; v < 5; v++) {
        if (rank3 && k * r > 6) continue;
        if (only_new && v != 4) continue;
        /* CI time: the variants of sessions 7-11 (v 0-3) every second
           depth and spec in turn (FDX_TEST_FULL=1 runs all of them) */
        static unsigned old_variants;
        if (v < 4 && !fdx_test_sampled(&old_variants, 2)) continue;
        /* One point a thread, or three (rank 3: rows, some y neighbours from
           registers; rank 2: three points tx apart) with planes in flight;
           v 2: the rotated plane loop (un = 2r + 1, session 8) at depths 2
           (three points) and 3 (one point, with fp). */
        if (v == 2 && k != 2 && k != 3) continue;
        const int pts = v == 1 || (v == 2 && k == 2) ? 3 : 1;
        fdx_temporal_cfg tc = {k, 2 * k * r + (rank3 ? 3 : 5), rank3 ? 2 * k * r + 2 : 1, 1, 0, 0, 0, 0};
        if (v == 2) tc.un = 2 * r + 1;
        /* the inner blocks' fast body (fp): three points at even depths,
           and with the rotated loop at depth 3 */
        tc.fp = (v == 1 && k % 2 == 0) || (v == 2 && k == 3);
        /* rank 2: three adjacent points (ax) at odd depths */
        tc.ax = !rank3 && v == 1 && k % 2 == 1;
        if (pts > 1) {
            tc.nq = pts, tc.pd = 2 + (k + r) % 2;
            if (rank3) tc.ty = (2 * k * r + 2 + pts - 1) / pts;
            else tc.tx = (2 * k * r + 5 + pts - 1) / pts;
        }
        /* v 3 (session 11): neighbour barriers (nb: mbarriers a warp) at
           depths 1 and 4 in rank 3, 1, 2 and 4 in rank 2, and named barriers
           a group of thread rows (nr) at depths 2 and 3 in rank 3: two warps
           a row of threads at even depths (x neighbours across warps), one
           at odd; rank 3 two rows a thread at depths 1 and 2 (radius 3-4:
           rows two apart), one at 3 and 4 (nr at radius 2: 14 rows of
           threads in 7 groups of 2, reaching one group); rank 2 one point a
           thread, or two adjacent (ax) at depth 1. */
        if (v == 3) {
            if (k == 3 && !rank3) continue;
            const int q = k < 3 ? 2 : 1;
            tc.tx = k % 2 ? 32 : 64, tc.pd = 1 + k % 2;
            tc.nr = rank3 && (k == 2 || k == 3), tc.nb = !tc.nr;
            if (rank3) tc.nq = q, tc.ty = (2 * k * r + 2 + q - 1) / q;
            else if (k == 1) tc.nq = 2, tc.ax = 1;
            if (rank3 && tc.ty < 2) tc.ty = 2;
            while (tc.nr && (tc.ty % fdx_temporal_nr_group(&tc) || tc.ty / fdx_temporal_nr_group(&tc) < 2 * fdx_temporal_nr_reach(&tc, r) + 1))
                tc.ty++;
            /* nr at depth 3 with the rotated loop and the inner fast body */
            if (tc.nr && k == 3) tc.un = 2 * r + 1, tc.fp = 1;
            /* 32-bit element offsets (i32) from depth 2 */
            tc.i32 = k >= 2;
        }
        /* v 4 (session 12): clamped loads (lc) at depths 1 (two planes in
           flight), 2 (three) and 4, late loads into the freed column slot
           (ll, heat) at 3 and 4 and, in rank 3, the fast body chosen a warp at a time (fw)
           from depth 2 (the rotated loop, fp), two warps a row of threads
           on a shape 70 wide (warps inside the frame, on it and outside
           the array; chunks of 2 planes: the frame planes' full body in
           every block): rank 3 one point a thread at depths 1 and 3, two
           rows at 2, three at 4 (float 64x16 q3's kernel in small). */
        if (v == 4) {
            if (k > 2 && !rank3) continue;
            tc.tx = 64, tc.i32 = k % 2 == 0, tc.lc = k != 3, tc.ll = k >= 3 && !wave;
            if (k == 1) tc.pd = 2;
            else tc.un = 2 * r + 1;
            if (k == 2) tc.pd = 3; /* (float's candidate: three planes in flight, lc fw) */
            if (rank3) {
                tc.nq = k == 4 ? 3 : k == 2 ? 2 : 1;
                tc.ty = (2 * k * r + 2 + tc.nq - 1) / tc.nq;
                tc.fp = tc.fw = k >= 2;
            }
        }
        CHECK_OK(fdx_temporal_generate(ks, &tc, 1, &src));
        if (!src) continue;
        char ns[16], entry[32];
        snprintf(ns, sizeof ns, "b%d_%d", k, v);
        snprintf(entry, sizeof entry, "fdx_blocked%d_%d", k, v);
        fdx_sb dyn = FDX_SB_INIT;
        cuda_emu_dynamic_shared(&dyn, src);
        free(src);
        wrapped(&f, ns, entry, fdx_sb_str(&dyn));
        f.failed |= dyn.failed;
        fdx_sb_free(&dyn);
        /* An odd shape in chunks of 2 planes (several blocks along the
           marching axis), the smallest in one chunk. */
        for (int shape = 0; shape < 2; shape++) {
                const int chunk = shape;
                int64_t n3[3] = {shape ? 2 * r + 3 : v == 4 && rank3 ? 70 : 13 + r, rank3 ? (shape ? 2 * r + 2 : 11 + r) : 1,
                                 shape ? 2 * r + 4 : 9 + 2 * r};
                tc.chunk = chunk ? 1000 : 2;
                CHECK(fdx_temporal_fits(ks, &tc, 1, n3), "%s k%d: the tile does not fit", spec, k);
                fdx_launch_dims ds, db;
                CHECK_OK(fdx_stencil_launch_dims(ks, &sc, n3, &ds));
                CHECK_OK(fdx_temporal_launch_dims(ks, &tc, n3, &db));
                fdx_stencil_params ps, pb;
                fdx_stencil_cfg bc = sc;
                bc.chunk = tc.chunk;
                fdx_stencil_params_build(ks, &sc, n3, c0, ws, wa, 0, NULL, &ps);
                fdx_stencil_params_build(ks, &bc, n3, c0, ws, wa, 0, NULL, &pb);
                char pn[32], bn[32];
                snprintf(pn, sizeof pn, "ps%d", cases);
                snprintf(bn, sizeof bn, "pb%d", cases);
                bytes_of(&f, pn, &ps);
                bytes_of(&f, bn, &pb);
                snprintf(what, sizeof what, "%s k%d %dx%d q%d pd%d u%d fp%d ax%d nb%d nr%d lc%d ll%d fw%d chunk %d on %lldx%lldx%lld",
                         spec, k, tc.tx, tc.ty, tc.nq, tc.pd, tc.un, tc.fp, tc.ax, tc.nb, tc.nr, tc.lc, tc.ll, tc.fw, tc.chunk,
                         (long long)n3[0], (long long)n3[1], (long long)n3[2]);
                fdx_sb_printf(&body, "    { const unsigned gs[3] = {%u, %u, %u}, gb[3] = {%u, %u, %u};\n", ds.grid[0],
                              ds.grid[1], ds.grid[2], db.grid[0], db.grid[1], db.grid[2]);
                fdx_sb_printf(&body,
                              "      bad += run<s1::fdx_p, %s::fdx_p, %s::fdx_tp>(\"%s\", s1::fdx_single, %s::%s, %lldLL, "
                              "%lldLL, %lldLL, %d, %d, %d, gs, %u, %u, %s, sizeof %s, gb, %u, %u, %zu, %s, sizeof %s, "
                              "%lluULL); }\n",
                              ns, ns, what, ns, entry, (long long)n3[0], (long long)n3[1], (long long)n3[2], k, r,
                              ks->rank, ds.block[0], ds.block[1], pn, pn, db.block[0], db.block[1], db.shmem, bn, bn,
                              (unsigned long long)(*seed += 77));
                cases++;
            }
    }
    fdx_sb_puts(&body, "    return bad != 0;\n}\n");
    fdx_sb_printf(&f, "typedef %s real_t;\nstatic const bool WAVE = %s, COEF = %s;\n%s%s", ks->is_double ? "double" : "float",
                  wave ? "true" : "false", ks->coef ? "true" : "false", driver, fdx_sb_str(&body));
    snprintf(what, sizeof what, "temporal program for %s", spec);
    CHECK(!f.failed && !body.failed, "%s: out of memory", what);
    if (!f.failed && !body.failed) cuda_emu_run(fdx_sb_str(&f), "-ffp-contract=fast", "-march=native", what);
    fdx_sb_free(&f);
    fdx_sb_free(&body);
    programs++;
}

/* The nb / nr words (session 11): read and printed back, and the tiles
   they need (whole warps a row of threads; nr: rank 3, at most 8 rows,
   enough rows for the reach round the block; CUDA only). */
static void sync_words(void)
{
    fdx_temporal_cfg c, back;
    char text[128];
    CHECK_OK(fdx_temporal_cfg_parse("k4 64x16 q3 pd1 nb chunk 510", &c));
    CHECK(c.nb == 1 && c.nr == 0 && c.tx == 64 && c.ty == 16 && c.nq == 3 && c.chunk == 510, "nb words read");
    fdx_temporal_cfg_text(&c, 1, text, sizeof text);
    CHECK_OK(fdx_temporal_cfg_parse(text, &back));
    CHECK(memcmp(&c, &back, sizeof c) == 0, "'%s' read back differs", text);
    CHECK_OK(fdx_temporal_cfg_parse("k4 64x16 q3 pd1 u3 fp i32 chunk 510", &c));
    CHECK(c.i32 == 1 && c.un == 3 && c.fp == 1, "i32 word read");
    fdx_temporal_cfg_text(&c, 1, text, sizeof text);
    CHECK_OK(fdx_temporal_cfg_parse(text, &back));
    CHECK(memcmp(&c, &back, sizeof c) == 0, "'%s' read back differs", text);
    /* session 12: lc, ll, fw */
    CHECK_OK(fdx_temporal_cfg_parse("k4 64x16 q3 pd1 u3 fp i32 lc ll fw chunk 510", &c));
    CHECK(c.lc == 1 && c.ll == 1 && c.fw == 1 && c.fp == 1 && c.i32 == 1, "lc ll fw words read");
    fdx_temporal_cfg_text(&c, 1, text, sizeof text);
    CHECK_OK(fdx_temporal_cfg_parse(text, &back));
    CHECK(memcmp(&c, &back, sizeof c) == 0, "'%s' read back differs", text);
    {
        const fdx_stencil_kspec h3 = {0, 3, 1, FDX_UPDATE_HEAT, 0, 0, 0}, wv = {0, 3, 1, FDX_UPDATE_WAVE, 0, 0, 0};
        const fdx_stencil_kspec h2 = {0, 2, 1, FDX_UPDATE_HEAT, 0, 0, 0};
        const int64_t m3[3] = {512, 512, 512}, m2[3] = {16384, 1, 16384};
        CHECK(fdx_temporal_fits(&h3, &c, 1, m3), "lc ll fw on 64x16 q3 u3 fp");
        CHECK(!fdx_temporal_fits(&wv, &c, 1, m3), "ll on the wave");
        fdx_temporal_cfg e = c;
        e.fp = 0;
        CHECK(!fdx_temporal_fits(&h3, &e, 1, m3), "fw without fp");
        e = c, e.un = 0;
        CHECK(!fdx_temporal_fits(&h3, &e, 1, m3), "ll without the rotated loop");
        e = c, e.tx = 48, e.ty = 16;
        CHECK(!fdx_temporal_fits(&h3, &e, 1, m3), "fw with 48 threads a row");
        e = c, e.fw = 0, e.tx = 256, e.ty = 1, e.nq = 1, e.fp = 0;
        CHECK(fdx_temporal_fits(&h2, &e, 1, m2), "lc ll in rank 2");
        e.fp = 1, e.fw = 1;
        CHECK(!fdx_temporal_fits(&h2, &e, 1, m2), "fw in rank 2");
        CHECK(!fdx_temporal_fits(&h3, &c, 0, m3), "lc ll fw on the CPU");
    }
    CHECK_OK(fdx_temporal_cfg_parse("k4 64x8 q4 nr", &c));
    CHECK(c.nr == 1 && c.nb == 0, "nr word read");
    fdx_temporal_cfg_text(&c, 1, text, sizeof text);
    CHECK(strstr(text, " nr") != NULL, "'%s' names nr", text);
    const fdx_stencil_kspec f1 = {0, 3, 1, FDX_UPDATE_HEAT, 0, 0, 0}, f4 = {0, 3, 4, FDX_UPDATE_HEAT, 0, 0, 0};
    const fdx_stencil_kspec w2 = {0, 2, 1, FDX_UPDATE_HEAT, 0, 0, 0};
    const int64_t n3[3] = {512, 512, 512}, n2[3] = {16384, 1, 16384};
    fdx_temporal_cfg a = {4, 64, 8, 85, 0, 0, 4, 1};
    a.nr = 1;
    CHECK(fdx_temporal_fits(&f1, &a, 1, n3), "64x8 q4 nr fits");
    CHECK(!fdx_temporal_fits(&f1, &a, 0, n3), "nr on the CPU");
    a.ty = 16, a.nq = 3;
    CHECK(fdx_temporal_fits(&f1, &a, 1, n3), "nr with 16 rows of threads (8 groups of 2)");
    a.ty = 15;
    CHECK(!fdx_temporal_fits(&f1, &a, 1, n3), "nr with 15 rows of threads (groups of 2)");
    a.ty = 8, a.nq = 1, a.k = 1;
    CHECK(!fdx_temporal_fits(&f4, &a, 1, n3), "nr reaching 4 rows of 8 round the block");
    a.nr = 0, a.nb = 1, a.k = 4, a.nq = 4, a.tx = 48;
    CHECK(!fdx_temporal_fits(&f1, &a, 1, n3), "nb with 48 threads a row (warps across rows)");
    a.tx = 64, a.ty = 16, a.nq = 3;
    CHECK(fdx_temporal_fits(&f1, &a, 1, n3), "64x16 q3 nb fits");
    fdx_temporal_cfg i = {4, 64, 16, 510, 0, 0, 3, 1};
    i.i32 = 1;
    CHECK(fdx_temporal_fits(&f1, &i, 1, n3), "i32 on 512^3");
    const int64_t big[3] = {2048, 1024, 1024};
    CHECK(!fdx_temporal_fits(&f1, &i, 1, big), "i32 on 2^31 points");
    fdx_temporal_cfg b = {4, 256, 1, 85, 0, 0, 2, 1};
    b.nb = 1;
    CHECK(!fdx_temporal_fits(&w2, &b, 1, n2), "nb in rank 2 with points 256 apart");
    b.ax = 1;
    CHECK(fdx_temporal_fits(&w2, &b, 1, n2), "nb in rank 2 with adjacent points");
}

int main(void)
{
    if (!cuda_emu_start("test-temporal-emu"))
        return fdx_test_skip("test_temporal_emu", "no working C++ compiler (c++)");
    printf("test_temporal_emu: compiling with c++ %s\n", cuda_emu_sanitize[0] ? cuda_emu_sanitize : "(no sanitizer)");
    sync_words();
    uint64_t seed = 0x7e4a;
    const char *new_env = getenv("FDX_TEST_TEMPORAL_NEW");
    only_new = new_env && new_env[0] == '1';
    for (int rank = 2; rank <= 3; rank++)
        for (int r = 1; r <= 4; r++)
            for (int dbl = 0; dbl < 2; dbl++) {
                fdx_stencil_kspec ks = {dbl, rank, r, FDX_UPDATE_HEAT, 0, (r + dbl) % 2, 0};
                run_spec(&ks, &seed);
                /* Wave, two time levels: order 2 in float, 8 in double,
                   coefficients in half (each program costs CI a compile). */
                if (r == 2 || r == 3 || dbl != (r == 4)) continue;
                fdx_stencil_kspec kw = {dbl, rank, r, FDX_UPDATE_WAVE, (r + rank) % 2, 0, 0};
                run_spec(&kw, &seed);
            }
    rmdir(cuda_emu_dir);
    printf("test_temporal_emu: %d programs, %d blocked runs\n", programs, cases);
    return fdx_test_finish("test_temporal_emu");
}
