/* test_mg_emu: the multigrid's one-pass red-black CUDA kernels (gs2_kernel
   and the z-marching gsz_kernel, with and without the prolongation folded
   in, against prolong_kernel then the colour kernels; in
   src/mg/fdx_mg_gpu.cu, their text taken from the source) run on the CPU
   through tests/cuda_emu.h (blocks of fibers between __syncthreads, shared
   arrays per block) against the two colour kernels (gs_kernel) of the same
   file: bit for bit on odd, even and tile-ragged shapes, constant and
   variable coefficients, both colour orders, with the output's unknowns
   poisoned; the z-marching sweep also over output boxes (an interior and
   the slabs around it, as the distributed overlapped sweep launches it).
   No GPU needed. */
#include "cuda_emu.h"
#include "fdx_test.h"

#include <stdlib.h>
#include <string.h>

/* The text of `file` from the line holding `from` up to (not including)
   the one holding `to`; NULL (a failed check) when either is missing. */
static char *region(const char *text, const char *from, const char *to)
{
    const char *a = strstr(text, from), *b = a ? strstr(a, to) : NULL;
    CHECK(a && b, "fdx_mg_gpu.cu: no region from '%s' to '%s'", from, to);
    if (!a || !b) return NULL;
    char *r = malloc((size_t)(b - a) + 1);
    memcpy(r, a, (size_t)(b - a));
    r[b - a] = 0;
    return r;
}

static const char DRIVER[] =
    /* the two colour kernels in place: the reference */
    "static void colours(const mg_geom &g, double *u, const double *f, int first)\n"
    "{\n"
    "  for (int c = 0; c < 2; c++) {\n"
    "    const int color = c ? 1 - first : first;\n"
    "    blockDim = fdx_idx{128, 1, 1};\n"
    "    const unsigned gr[3] = {(unsigned)(((g.hi[0] - g.lo[0] + 1) / 2 + 127) / 128), (unsigned)(g.hi[1] - g.lo[1]),\n"
    "                            (unsigned)(g.hi[2] - g.lo[2])};\n"
    "    cuda_emu_grid(gr, 128, 1, 0, false, [&] { gs_kernel(g, u, f, color); });\n"
    "  }\n"
    "}\n"
    /* gsz_kernel over its grid (mg_gpu_gs_zsweep's shape) */
    /* norm != nullptr: the NORM instantiation; *norm = its slots summed */
    "static void zsweep(const mg_geom &g, const double *u, const double *f, double *out, int first, long long zc,\n"
    "                   const mg_geom &C, const mg_gpu_tr *t, const double *uc, double *norm, const mg_box *box = nullptr)\n"
    "{\n"
    "  blockDim = fdx_idx{GSZ_X, GSZ_Y, 1};\n"
    "  const mg_gpu_tr none{};\n"
    "  const mg_box ob = box ? *box : mg_box{{g.lo[0], g.lo[1], g.lo[2]}, {g.hi[0], g.hi[1], g.hi[2]}};\n"
    "  const unsigned gz[3] = {(unsigned)((ob.hi[0] - ob.lo[0] + GSZ_X - 5) / (GSZ_X - 4)),\n"
    "                          (unsigned)((ob.hi[1] - ob.lo[1] + GSZ_Y - 5) / (GSZ_Y - 4)),\n"
    "                          (unsigned)((ob.hi[2] - ob.lo[2] + zc - 1) / zc)};\n"
    "  std::vector<double> slots(1 + (size_t)gz[0] * gz[1] * gz[2], NAN);\n"
    "  auto k = norm ? (g.k ? gsz_kernel<false, true, true> : gsz_kernel<false, false, true>)\n"
    "       : uc ? (g.k ? gsz_kernel<true, true, false> : gsz_kernel<true, false, false>)\n"
    "            : (g.k ? gsz_kernel<false, true, false> : gsz_kernel<false, false, false>);\n"
    "  cuda_emu_grid(gz, GSZ_X, GSZ_Y, 0, true, [&] { k(g, ob, u, f, out, first, zc, C, t ? t[0] : none,\n"
    "                t ? t[1] : none, t ? t[2] : none, uc, slots.data()); });\n"
    "  if (norm) { *norm = 0; for (size_t q = 1; q < slots.size(); q++) *norm += slots[q]; }\n"
    "}\n"
    "static int differ(const std::vector<double> &out, const std::vector<double> &ref, const char *what, long long nx,\n"
    "                  long long ny, long long nz, int var, int first, long long zc)\n"
    "{\n"
    "  if (memcmp(out.data(), ref.data(), out.size() * sizeof(double)) == 0) return 0;\n"
    "  long long bad = 0; for (size_t q = 0; q < out.size(); q++) bad += memcmp(&out[q], &ref[q], 8) != 0;\n"
    "  printf(\"%s %lldx%lldx%lld var %d first %d zc %lld: %lld points differ\\n\", what, nx, ny, nz, var, first, zc, bad);\n"
    "  return 1;\n"
    "}\n"
    "static int run(long long nx, long long ny, long long nz, int var, int first)\n"
    "{\n"
    "  mg_geom g; long long n[3] = {nx, ny, nz};\n"
    "  for (int a = 0; a < 3; a++) { g.m[a] = n[a]; g.lo[a] = 1; g.hi[a] = n[a] - 1; g.c[a] = 1.0 + 0.5 * a; }\n"
    "  g.sy = nx; g.sz = nx * ny; g.count = nx * ny * nz; g.diag = 2 * (g.c[0] + g.c[1] + g.c[2]);\n"
    "  std::vector<double> u(g.count), f(g.count), k(g.count), ref, out(g.count);\n"
    "  unsigned s = 12345u + (unsigned)(nx * 7 + var * 3 + first);\n"
    "  auto rnd = [&] { s = s * 1664525u + 1013904223u; return (double)(s >> 8) / 16777216.0; };\n"
    "  for (long long q = 0; q < g.count; q++) u[q] = rnd(), f[q] = rnd(), k[q] = 0.05 + 20 * rnd() * rnd();\n"
    "  g.k = var ? k.data() : nullptr;\n"
    "  ref = u;\n"
    "  colours(g, ref.data(), f.data(), first);\n"
    "  out = u;\n"
    "  for (long long z = 1; z < nz - 1; z++) for (long long y = 1; y < ny - 1; y++) for (long long x = 1; x < nx - 1; x++)\n"
    "    out[x + y * g.sy + z * g.sz] = NAN;\n"
    "  blockDim = fdx_idx{GS2_X, GS2_Y, 1};\n"
    "  const unsigned g2[3] = {(unsigned)((g.hi[0] - g.lo[0] + GS2_X - 1) / GS2_X),\n"
    "                          (unsigned)((g.hi[1] - g.lo[1] + GS2_Y - 1) / GS2_Y), 1};\n"
    "  cuda_emu_grid(g2, GS2_X, GS2_Y, 0, true, [&] { gs2_kernel(g, u.data(), f.data(), out.data(), first); });\n"
    "  int bad = differ(out, ref, \"gs2\", nx, ny, nz, var, first, 0);\n"
    /* the z-marching sweep, whole columns and chunks of 1, 2, 3 planes */
    "  for (long long zc : {nz, 1LL, 2LL, 3LL}) {\n"
    "    out = u;\n"
    "    for (long long z = 1; z < nz - 1; z++) for (long long y = 1; y < ny - 1; y++) for (long long x = 1; x < nx - 1; x++)\n"
    "      out[x + y * g.sy + z * g.sz] = NAN;\n"
    "    zsweep(g, u.data(), f.data(), out.data(), first, zc, g, nullptr, nullptr, nullptr);\n"
    "    bad += differ(out, ref, \"gsz\", nx, ny, nz, var, first, zc);\n"
    /* with the residual norm of u: the same sweep, the norm of f - A u */
    "    double norm = -1, want = 0;\n"
    "    for (long long z = 1; z < nz - 1; z++) for (long long y = 1; y < ny - 1; y++) for (long long x = 1; x < nx - 1; x++) {\n"
    "      const long long p = x + y * g.sy + z * g.sz; const double r = f[p] - au(g, u.data(), p); want += r * r;\n"
    "    }\n"
    "    for (long long z = 1; z < nz - 1; z++) for (long long y = 1; y < ny - 1; y++) for (long long x = 1; x < nx - 1; x++)\n"
    "      out[x + y * g.sy + z * g.sz] = NAN;\n"
    "    zsweep(g, u.data(), f.data(), out.data(), first, zc, g, nullptr, nullptr, &norm);\n"
    "    bad += differ(out, ref, \"gsz+norm\", nx, ny, nz, var, first, zc);\n"
    "    if (!(fabs(norm - want) <= 1e-12 * want)) {\n"
    "      printf(\"gsz+norm %lldx%lldx%lld var %d zc %lld: norm %.17g, want %.17g\\n\", nx, ny, nz, var, zc, norm, want); bad++;\n"
    "    }\n"
    "  }\n"
    /* output boxes (a distributed block's overlapped sweep): the interior
       two points in from every side, then the slabs around it (below and
       above on axis a, within the interior on the axes before a): one
       sweep's values */
    "  if (!var) {\n"
    "    out = u;\n"
    "    for (long long z = 1; z < nz - 1; z++) for (long long y = 1; y < ny - 1; y++) for (long long x = 1; x < nx - 1; x++)\n"
    "      out[x + y * g.sy + z * g.sz] = NAN;\n"
    "    mg_box in{{g.lo[0] + 2, g.lo[1] + 2, g.lo[2] + 2}, {g.hi[0] - 2, g.hi[1] - 2, g.hi[2] - 2}};\n"
    "    const bool empty = in.hi[0] <= in.lo[0] || in.hi[1] <= in.lo[1] || in.hi[2] <= in.lo[2];\n"
    "    if (empty) zsweep(g, u.data(), f.data(), out.data(), first, 2, g, nullptr, nullptr, nullptr);\n"
    "    else {\n"
    "      zsweep(g, u.data(), f.data(), out.data(), first, 2, g, nullptr, nullptr, nullptr, &in);\n"
    "      for (int a = 0; a < 3; a++) for (int side = 0; side < 2; side++) {\n"
    "        mg_box b;\n"
    "        for (int c = 0; c < 3; c++) { b.lo[c] = c < a ? in.lo[c] : g.lo[c]; b.hi[c] = c < a ? in.hi[c] : g.hi[c]; }\n"
    "        if (side) b.lo[a] = in.hi[a]; else b.hi[a] = in.lo[a];\n"
    "        if (b.hi[0] > b.lo[0] && b.hi[1] > b.lo[1] && b.hi[2] > b.lo[2])\n"
    "          zsweep(g, u.data(), f.data(), out.data(), first, 2, g, nullptr, nullptr, nullptr, &b);\n"
    "      }\n"
    "    }\n"
    "    bad += differ(out, ref, \"gsz boxes\", nx, ny, nz, var, first, 2);\n"
    "  }\n"
    /* prolongation + correction folded in: against prolong_kernel (add)
       then the two colour kernels; a coarse grid of (n+1)/2 points with
       linear interpolation (even fine points on coarse ones) */
    "  mg_geom C = g; long long M[3];\n"
    "  for (int a = 0; a < 3; a++) { M[a] = (n[a] + 1) / 2; C.m[a] = M[a]; C.lo[a] = 1; C.hi[a] = M[a] - 1; }\n"
    "  C.sy = M[0]; C.sz = M[0] * M[1]; C.count = M[0] * M[1] * M[2];\n"
    "  std::vector<double> uc(C.count);\n"
    "  for (auto &v : uc) v = rnd() - 0.5;\n"
    "  std::vector<int32_t> i0[3], i1[3]; std::vector<double> w0[3], w1[3]; mg_gpu_tr t[3];\n"
    "  for (int a = 0; a < 3; a++) {\n"
    "    for (long long q = 0; q < n[a]; q++) {\n"
    "      i0[a].push_back((int32_t)(q / 2)); i1[a].push_back((int32_t)((q + 1) / 2 < M[a] ? (q + 1) / 2 : q / 2));\n"
    "      w0[a].push_back(q % 2 ? 0.5 : 1.0); w1[a].push_back(q % 2 ? 0.5 : 0.0);\n"
    "    }\n"
    "    t[a] = mg_gpu_tr{i0[a].data(), i1[a].data(), nullptr, nullptr, nullptr, w0[a].data(), w1[a].data(), nullptr, nullptr};\n"
    "  }\n"
    "  ref = u;\n"
    "  blockDim = fdx_idx{128, 1, 1};\n"
    "  const unsigned gp[3] = {(unsigned)((g.hi[0] - g.lo[0] + 127) / 128), (unsigned)(g.hi[1] - g.lo[1]), (unsigned)(g.hi[2] - g.lo[2])};\n"
    "  cuda_emu_grid(gp, 128, 1, 0, false, [&] { prolong_kernel(g, C, t[0], t[1], t[2], uc.data(), ref.data(), 1); });\n"
    "  colours(g, ref.data(), f.data(), first);\n"
    "  for (long long zc : {nz, 2LL}) {\n"
    "    out = u;\n"
    "    for (long long z = 1; z < nz - 1; z++) for (long long y = 1; y < ny - 1; y++) for (long long x = 1; x < nx - 1; x++)\n"
    "      out[x + y * g.sy + z * g.sz] = NAN;\n"
    "    zsweep(g, u.data(), f.data(), out.data(), first, zc, C, t, uc.data(), nullptr);\n"
    "    bad += differ(out, ref, \"gsz+prolong\", nx, ny, nz, var, first, zc);\n"
    "  }\n"
    "  return bad;\n"
    "}\n"
    /* Dirichlet transfer tables of one axis as fdx_mg_setup.c's
       transfer_init builds them (n fine, N coarse points) */
    "struct axis_tr { std::vector<int32_t> i0, i1, ptr, idx; std::vector<double> w0, w1, w; mg_gpu_tr t; };\n"
    "static void build_tr(axis_tr &a, long long n, long long N)\n"
    "{\n"
    "  a.i0.assign(n, 0); a.i1.assign(n, 0); a.w0.assign(n, 0); a.w1.assign(n, 0); a.ptr.assign(N + 1, 0);\n"
    "  for (long long i = 1; i < n - 1; i++) {\n"
    "    double x = (double)i * (double)(N - 1) / (double)(n - 1); long long S = (long long)floor(x);\n"
    "    if (S > N - 2) S = N - 2; if (S < 0) S = 0; double fr = x - (double)S;\n"
    "    a.i0[i] = (int32_t)S; a.i1[i] = (int32_t)(fr > 0 ? S + 1 : S); a.w0[i] = 1 - fr; a.w1[i] = fr;\n"
    "  }\n"
    "  const double scale = (double)(N - 1) / (double)(n - 1);\n"
    "  for (long long S = 0; S < N; S++) {\n"
    "    a.ptr[S] = (int32_t)a.idx.size();\n"
    "    if (S >= 1 && S < N - 1) for (long long i = 1; i < n - 1; i++) {\n"
    "      double w = 0;\n"
    "      if (a.i0[i] == S) w += a.w0[i];\n"
    "      if (a.i1[i] != a.i0[i] && a.i1[i] == S) w += a.w1[i];\n"
    "      if (w == 0) continue;\n"
    "      a.idx.push_back((int32_t)i); a.w.push_back(w * scale);\n"
    "    }\n"
    "  }\n"
    "  a.ptr[N] = (int32_t)a.idx.size();\n"
    "  a.t = mg_gpu_tr{a.i0.data(), a.i1.data(), a.ptr.data(), a.idx.data(), nullptr, a.w0.data(), a.w1.data(), a.w.data(), nullptr};\n"
    "}\n"
    /* rr_kernel against the residual then restrict_kernel (rf): bit for bit */
    "static int run_rr(long long nx, long long ny, long long nz, int var)\n"
    "{\n"
    "  mg_geom F, C; long long n[3] = {nx, ny, nz}, N[3];\n"
    "  for (int a = 0; a < 3; a++) {\n"
    "    N[a] = (n[a] + 1) / 2;\n"
    "    F.m[a] = n[a]; F.lo[a] = 1; F.hi[a] = n[a] - 1; F.c[a] = 1.0 + 0.25 * a;\n"
    "    C.m[a] = N[a]; C.lo[a] = 1; C.hi[a] = N[a] - 1; C.c[a] = F.c[a] / 4;\n"
    "  }\n"
    "  F.sy = nx; F.sz = nx * ny; F.count = nx * ny * nz; F.diag = 2 * (F.c[0] + F.c[1] + F.c[2]);\n"
    "  C.sy = N[0]; C.sz = N[0] * N[1]; C.count = N[0] * N[1] * N[2]; C.diag = F.diag / 4; C.k = nullptr;\n"
    "  std::vector<double> u(F.count), f(F.count), k(F.count), r(F.count, 0.0), ref(C.count, 0.0), out(C.count, 0.0);\n"
    "  unsigned s = 777u + (unsigned)(nx * 5 + ny + var);\n"
    "  auto rnd = [&] { s = s * 1664525u + 1013904223u; return (double)(s >> 8) / 16777216.0; };\n"
    "  for (long long q = 0; q < F.count; q++) u[q] = rnd(), f[q] = rnd() - 0.5, k[q] = 0.05 + 20 * rnd() * rnd();\n"
    "  F.k = var ? k.data() : nullptr;\n"
    "  for (long long z = 1; z < nz - 1; z++) for (long long y = 1; y < ny - 1; y++) for (long long x = 1; x < nx - 1; x++) {\n"
    "    const long long p = x + y * F.sy + z * F.sz; r[p] = f[p] - au(F, u.data(), p);\n"
    "  }\n"
    "  axis_tr t[3];\n"
    "  for (int a = 0; a < 3; a++) build_tr(t[a], n[a], N[a]);\n"
    "  blockDim = fdx_idx{128, 1, 1};\n"
    "  const unsigned gr[3] = {(unsigned)((C.hi[0] - C.lo[0] + 127) / 128), (unsigned)(C.hi[1] - C.lo[1]), (unsigned)(C.hi[2] - C.lo[2])};\n"
    "  cuda_emu_grid(gr, 128, 1, 0, false, [&] { restrict_kernel(F, C, t[0].t, t[1].t, t[2].t, r.data(), nullptr, nullptr, ref.data()); });\n"
    "  int bad = 0;\n"
    "  for (long long kc : {1LL, 2LL, 3LL, N[2]}) {\n"
    "    for (long long q = 0; q < C.count; q++) out[q] = 0.0;\n"
    "    for (long long z = 1; z < N[2] - 1; z++) for (long long y = 1; y < N[1] - 1; y++) for (long long x = 1; x < N[0] - 1; x++)\n"
    "      out[x + y * C.sy + z * C.sz] = NAN;\n"
    "    blockDim = fdx_idx{RR_X, RR_Y, 1};\n"
    "    const unsigned g2[3] = {(unsigned)((C.hi[0] - C.lo[0] + RR_X - 1) / RR_X), (unsigned)((C.hi[1] - C.lo[1] + RR_Y - 1) / RR_Y),\n"
    "                            (unsigned)((C.hi[2] - C.lo[2] + kc - 1) / kc)};\n"
    "    cuda_emu_grid(g2, RR_X, RR_Y, 0, true, [&] { rr_kernel(F, C, t[0].t, t[1].t, t[2].t, u.data(), f.data(), out.data(), kc); });\n"
    "    if (memcmp(out.data(), ref.data(), C.count * sizeof(double)) != 0) {\n"
    "      long long nb = 0; for (long long q = 0; q < C.count; q++) nb += memcmp(&out[q], &ref[q], 8) != 0;\n"
    "      printf(\"rr %lldx%lldx%lld var %d kc %lld: %lld coarse points differ\\n\", nx, ny, nz, var, kc, nb); bad++;\n"
    "    }\n"
    "  }\n"
    "  return bad;\n"
    "}\n"
    "int main()\n"
    "{\n"
    "  const long long shapes[][3] = {{33, 33, 9}, {70, 19, 7}, {5, 5, 5}, {40, 11, 6}, {36, 10, 4}, {61, 30, 8}};\n"
    "  int bad = 0;\n"
    "  for (auto &sh : shapes) for (int var = 0; var < 2; var++) for (int first = 0; first < 2; first++)\n"
    "    bad += run(sh[0], sh[1], sh[2], var, first);\n"
    /* 2:1 levels (odd), non-nested ones (even: hats of 3-4 fine points,
       2.02:1 for 100), ragged tiles, several tiles across */
    "  const long long rshapes[][3] = {{33, 17, 9}, {70, 40, 12}, {9, 9, 9}, {130, 21, 7}, {100, 10, 8}};\n"
    "  for (auto &sh : rshapes) for (int var = 0; var < 2; var++) bad += run_rr(sh[0], sh[1], sh[2], var);\n"
    "  return bad ? 1 : 0;\n"
    "}\n";

int main(void)
{
    void *text = NULL, *hdr = NULL;
    size_t n = 0, nh = 0;
    CHECK_OK(fdx_read_file(FDX_MG_GPU_SOURCE, &text, &n));
    CHECK_OK(fdx_read_file(FDX_MG_GPU_HEADER, &hdr, &nh));
    if (!text || !hdr) return fdx_test_finish("test_mg_emu");
    if (!cuda_emu_start("test-mg-emu")) {
        free(text), free(hdr);
        return fdx_test_skip("test_mg_emu", "no C++ compiler for the emulation");
    }
    /* the operator's device functions and the two sweeps, verbatim */
    char *ops = region(text, "/* The face coefficient", "static dim3 grid_of");
    char *sweeps = region(text, "/* The Gauss-Seidel value at p", "__global__ void cheby_kernel");
    char *point = region(text, "/* The point of this thread", "__global__ void residual_kernel");
    char *prolong = region(text, "__global__ void restrict_kernel", "__global__ void inject_kernel");
    if (ops && sweeps && point && prolong) {
        const char *h = hdr;
        const size_t len = strlen(h) + strlen(ops) + strlen(point) + strlen(sweeps) + strlen(prolong) + sizeof DRIVER + 64;
        char *prog = malloc(len);
        snprintf(prog, len, "#define __noinline__\n%s\n%s\n%s\n%s\n%s\n%s", h, ops, point, sweeps, prolong, DRIVER);
        cuda_emu_run(prog, "-ffp-contract=fast", "-O1", "gs2_kernel and gsz_kernel against gs_kernel");
        free(prog);
    }
    free(ops), free(sweeps), free(point), free(prolong), free(text), free(hdr);
    rmdir(cuda_emu_dir);
    return fdx_test_finish("test_mg_emu");
}
