/* test_mg_emu: the multigrid's one-pass red-black CUDA kernel (gs2_kernel
   in src/mg/fdx_mg_gpu.cu, its text taken from the source) run on the CPU
   through tests/cuda_emu.h (blocks of fibers between __syncthreads, shared
   arrays per block) against the two colour kernels (gs_kernel) of the same
   file: bit for bit on odd, even and tile-ragged shapes, constant and
   variable coefficients, both colour orders, with the output's unknowns
   poisoned.  No GPU needed. */
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
    "  for (int c = 0; c < 2; c++) {\n"
    "    const int color = c ? 1 - first : first;\n"
    "    blockDim = fdx_idx{128, 1, 1};\n"
    "    const unsigned gr[3] = {(unsigned)(((g.hi[0] - g.lo[0] + 1) / 2 + 127) / 128), (unsigned)(g.hi[1] - g.lo[1]),\n"
    "                            (unsigned)(g.hi[2] - g.lo[2])};\n"
    "    cuda_emu_grid(gr, 128, 1, 0, false, [&] { gs_kernel(g, ref.data(), f.data(), color); });\n"
    "  }\n"
    "  out = u;\n"
    "  for (long long z = 1; z < nz - 1; z++) for (long long y = 1; y < ny - 1; y++) for (long long x = 1; x < nx - 1; x++)\n"
    "    out[x + y * g.sy + z * g.sz] = NAN;\n"
    "  blockDim = fdx_idx{GS2_X, GS2_Y, 1};\n"
    "  const unsigned g2[3] = {(unsigned)((g.hi[0] - g.lo[0] + GS2_X - 1) / GS2_X),\n"
    "                          (unsigned)((g.hi[1] - g.lo[1] + GS2_Y - 1) / GS2_Y), 1};\n"
    "  cuda_emu_grid(g2, GS2_X, GS2_Y, 0, true, [&] { gs2_kernel(g, u.data(), f.data(), out.data(), first); });\n"
    "  if (memcmp(out.data(), ref.data(), g.count * sizeof(double)) != 0) {\n"
    "    long long bad = 0; for (long long q = 0; q < g.count; q++) bad += memcmp(&out[q], &ref[q], 8) != 0;\n"
    "    printf(\"%lldx%lldx%lld var %d first %d: %lld points differ\\n\", nx, ny, nz, var, first, bad); return 1;\n"
    "  }\n"
    "  return 0;\n"
    "}\n"
    "int main()\n"
    "{\n"
    "  const long long shapes[][3] = {{33, 33, 9}, {70, 19, 7}, {5, 5, 5}, {40, 11, 6}, {36, 10, 4}};\n"
    "  int bad = 0;\n"
    "  for (auto &sh : shapes) for (int var = 0; var < 2; var++) for (int first = 0; first < 2; first++)\n"
    "    bad += run(sh[0], sh[1], sh[2], var, first);\n"
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
    if (ops && sweeps) {
        const char *h = hdr;
        const size_t len = strlen(h) + strlen(ops) + strlen(sweeps) + sizeof DRIVER + 64;
        char *prog = malloc(len);
        snprintf(prog, len, "static fdx_idx blockDim;\n%s\n%s\n%s\n%s", h, ops, sweeps, DRIVER);
        cuda_emu_run(prog, "-ffp-contract=fast", "-O1", "gs2_kernel against gs_kernel");
        free(prog);
    }
    free(ops), free(sweeps), free(text), free(hdr);
    rmdir(cuda_emu_dir);
    return fdx_test_finish("test_mg_emu");
}
