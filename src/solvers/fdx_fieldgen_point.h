/* fdx_fieldgen_point: the value of one generated point, one definition
   compiled for the host (fdx_fieldgen.c) and the device
   (fdx_fieldgen_cuda.cu).  Products and sums are rounded one by one on both
   (GEN_MUL/GEN_ADD: no fused multiply-add on the device, none on the
   host, whose baseline has none), so they agree bit for bit except
   where exp and sin do (CUDA's are within 1-2 ulp of glibc's). */
#ifndef FDX_FIELDGEN_POINT_H
#define FDX_FIELDGEN_POINT_H

#include "solvers/fdx_fieldgen.h"

#include <math.h>

#ifdef __CUDACC__
#define GEN_HD __device__
#define GEN_MUL(a, b) __dmul_rn(a, b)
#define GEN_ADD(a, b) __dadd_rn(a, b)
#else
#define GEN_HD
#define GEN_MUL(a, b) ((a) * (b))
#define GEN_ADD(a, b) ((a) + (b))
#endif

#define GEN_PI 3.14159265358979323846

/* A counter-based generator (splitmix64's finaliser): the value of a point
   depends on its global index only, so any split of the grid, and either
   backend, draws the same field. */
GEN_HD static inline double gen_random(uint64_t q)
{
    uint64_t x = q + 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    x ^= x >> 31;
    return (double)(x >> 11) / 9007199254740992.0;
}

GEN_HD static inline double gen_velocity(const fdx_gen *g, int64_t d)
{
    int64_t nd = g->N[g->rank - 1];
    double x = (double)d / (double)(nd - 1);
    if (g->model == FDX_GEN_LAYERED) return GEN_MUL(g->v, x < 1.0 / 3 ? 1.0 : x < 2.0 / 3 ? 1.5 : 2.0);
    if (g->model == FDX_GEN_GRADIENT) return GEN_MUL(g->v, GEN_ADD(1.0, x));
    return g->v;
}

/* The value at global point (i, j, k). */
GEN_HD static inline double gen_value(const fdx_gen *g, int64_t i, int64_t j, int64_t k)
{
    int64_t nx = g->N[0], ny = g->N[1], nz = g->rank == 3 ? g->N[2] : 1;
    switch (g->kind) {
    case FDX_GEN_GAUSSIAN: {
        double x = (double)i / (double)(nx - 1), y = (double)j / (double)(ny - 1);
        double z = nz > 1 ? (double)k / (double)(nz - 1) : 0.5;
        double r2 = GEN_ADD(GEN_ADD(GEN_MUL(x - 0.5, x - 0.5), GEN_MUL(y - 0.5, y - 0.5)), GEN_MUL(z - 0.5, z - 0.5));
        return exp(-r2 / (2 * 0.1 * 0.1));
    }
    case FDX_GEN_SINE: {
        double x = (double)i / (double)(nx - 1), y = (double)j / (double)(ny - 1);
        double z = nz > 1 ? (double)k / (double)(nz - 1) : 0.5;
        double v = GEN_MUL(sin(GEN_MUL(GEN_PI, x)), sin(GEN_MUL(GEN_PI, y)));
        return nz > 1 ? GEN_MUL(v, sin(GEN_MUL(GEN_PI, z))) : v;
    }
    case FDX_GEN_RANDOM:
        return gen_random((uint64_t)(i + nx * (j + ny * k)));
    case FDX_GEN_LETTERS: {
        int in_slab = g->rank < 3 || (k >= nz / 3 && k < nz - nz / 3);
        return in_slab && g->mask[i + nx * j] ? 1.0 : 0.0;
    }
    case FDX_GEN_DEPTH: {
        double c = gen_velocity(g, g->rank == 3 ? k : j);
        return GEN_MUL(c, c);
    }
    case FDX_GEN_POISSON_U:
    case FDX_GEN_POISSON_F: {
        double e = GEN_MUL(sin(GEN_MUL(GEN_MUL(GEN_PI, (double)i), g->h)), sin(GEN_MUL(GEN_MUL(GEN_PI, (double)j), g->h)));
        if (g->rank == 3) e = GEN_MUL(e, sin(GEN_MUL(GEN_MUL(GEN_PI, (double)k), g->h)));
        int r = g->r;
        int inner = i >= r && i < nx - r && j >= r && j < ny - r && (g->rank < 3 || (k >= r && k < nz - r));
        if (g->kind == FDX_GEN_POISSON_U) return inner ? 0.0 : e;
        return inner ? GEN_MUL(GEN_MUL(GEN_MUL((double)g->rank, GEN_PI), GEN_PI), e) : 0.0;
    }
    }
    return 0.0;
}

#endif
