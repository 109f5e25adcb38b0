/* fieldstats_check: the solvers' reductions (fdx_fieldstats) and field
   generator (fdx_fieldgen) on a context, against references written here
   from their definitions: sums in the documented lane/row/plane order must
   match bit for bit (and a plain sum to rounding), extremes exactly;
   generated fields point by point (exactly where no exp/sin is involved).
   Results are poisoned first.  Used by test_fieldstats (CPU) and
   test_fieldstats_gpu (CUDA, also bit-compared with the CPU). */
#ifndef FIELDSTATS_CHECK_H
#define FIELDSTATS_CHECK_H

#include "fdx_test.h"
#include "solvers/fdx_fieldgen.h"
#include "solvers/fdx_fieldstats.h"

#include <string.h>

static double fc_get(const void *p, fdx_dtype t, int64_t q)
{
    return t == FDX_FLOAT64 ? ((const double *)p)[q] : (double)((const float *)p)[q];
}

/* The documented order, written out plainly: a[q] and b[q] are the point terms. */
static void fc_reference(const double *a, const double *b, const double *v, const int64_t *n, const int64_t *lo,
                         const int64_t *hi, double out[4])
{
    double A = 0, B = 0, mn = INFINITY, mx = -INFINITY;
    for (int64_t k = lo[2]; k < hi[2]; k++) {
        double pa = 0, pb = 0;
        for (int64_t j = lo[1]; j < hi[1]; j++) {
            double la[32] = {0}, lb[32] = {0};
            for (int64_t i = lo[0]; i < hi[0]; i++) {
                int64_t q = i + n[0] * (j + n[1] * k);
                la[(i - lo[0]) % 32] += a[q];
                lb[(i - lo[0]) % 32] += b[q];
                if (v[q] < mn) mn = v[q];
                if (v[q] > mx) mx = v[q];
            }
            for (int off = 16; off; off /= 2)
                for (int l = 0; l < off; l++) la[l] += la[l + off], lb[l] += lb[l + off];
            pa += la[0];
            pb += lb[0];
        }
        A += pa;
        B += pb;
    }
    out[0] = A, out[1] = B, out[2] = mn, out[3] = mx;
}

static fdx_array *fc_array(fdx_ctx *ctx, fdx_dtype t, int rank, const int64_t *n, uint64_t *seed, double lo,
                           double hi)
{
    fdx_array *a = NULL;
    CHECK_OK(fdx_array_create(ctx, t, rank, n, FDX_ON_HOST | FDX_ON_DEVICE, &a));
    if (!a) return NULL;
    void *h = fdx_array_host(a);
    for (int64_t q = 0; q < fdx_array_count(a); q++) {
        double x = lo + (hi - lo) * 0.5 * (fdx_test_rand(seed) + 1);
        if (t == FDX_FLOAT64) ((double *)h)[q] = x;
        else ((float *)h)[q] = (float)x;
    }
    CHECK_OK(fdx_array_to_device(a));
    return a;
}

/* Statistics and energy of random fields; the results (4 doubles per
   case, in order) are appended to got[] for a comparison across backends. */
static void fc_stats(fdx_ctx *ctx, const char *name, double *got, int *ngot)
{
    static const int64_t shapes[][4] = {{2, 37, 5, 1}, {2, 70, 13, 1}, {3, 45, 17, 11}, {3, 129, 3, 4}, {3, 9, 9, 33}};
    uint64_t seed = 0x51A7u;
    for (size_t sh = 0; sh < sizeof shapes / sizeof shapes[0]; sh++)
        for (int ti = 0; ti < 2; ti++) {
            fdx_dtype t = ti ? FDX_FLOAT64 : FDX_FLOAT32;
            int rank = (int)shapes[sh][0];
            int64_t n[3] = {shapes[sh][1], shapes[sh][2], shapes[sh][3]}, count = n[0] * n[1] * n[2];
            fdx_array *u = fc_array(ctx, t, rank, n, &seed, -1, 1), *p = fc_array(ctx, t, rank, n, &seed, -1, 1);
            fdx_array *c2 = fc_array(ctx, t, rank, n, &seed, 0.5, 4);
            if (!u || !p || !c2) break;
            double *va = malloc(sizeof(double) * (size_t)count), *vb = malloc(sizeof(double) * (size_t)count);
            double *vv = malloc(sizeof(double) * (size_t)count);
            const void *hu = fdx_array_host(u), *hp = fdx_array_host(p), *hc = fdx_array_host(c2);
            /* A random box and the whole grid. */
            int64_t lo[3], hi[3];
            for (int d = 0; d < 3; d++) {
                lo[d] = (int64_t)((fdx_test_rand(&seed) + 1) * 0.25 * (double)n[d]);
                hi[d] = n[d] - (int64_t)((fdx_test_rand(&seed) + 1) * 0.25 * (double)(n[d] - lo[d] - 1));
                if (hi[d] <= lo[d]) hi[d] = lo[d] + 1;
            }
            for (int box = 0; box < 2; box++) {
                int64_t L[3] = {0, 0, 0}, H[3] = {n[0], n[1], n[2]};
                if (box == 0) memcpy(L, lo, sizeof L), memcpy(H, hi, sizeof H);
                for (int64_t q = 0; q < count; q++) {
                    double x = fc_get(hu, t, q);
                    va[q] = x, vb[q] = x * x, vv[q] = x;
                }
                double want[4], plain = 0;
                fc_reference(va, vb, vv, n, L, H, want);
                for (int64_t k = L[2]; k < H[2]; k++)
                    for (int64_t j = L[1]; j < H[1]; j++)
                        for (int64_t i = L[0]; i < H[0]; i++) plain += va[i + n[0] * (j + n[1] * k)];
                fdx_stats s = {NAN, NAN, NAN, NAN};
                CHECK_OK(fdx_fieldstats_box(u, L, H, &s, NULL));
                CHECK(s.a == want[0] && s.b == want[1] && s.min == want[2] && s.max == want[3],
                      "%s: stats %lldx%lldx%lld %s box %d: got %.17g %.17g %.17g %.17g, want %.17g %.17g %.17g %.17g",
                      name, (long long)n[0], (long long)n[1], (long long)n[2], fdx_dtype_name(t), box, s.a, s.b, s.min,
                      s.max, want[0], want[1], want[2], want[3]);
                CHECK(fabs(s.a - plain) <= 1e-12 * (double)count, "%s: sum %.17g vs plain %.17g", name, s.a, plain);
                memcpy(got + 4 * (*ngot)++, &s, sizeof s);
            }
            /* Energy: kinetic over every point, the Laplacian term inside. */
            fdx_energy_args e;
            memset(&e, 0, sizeof e);
            e.idt2 = 3.5, e.ih2 = 0.75, e.r = 2;
            CHECK_OK(fdx_fd_weights(2, 4, e.w));
            int64_t st[3] = {1, n[0], n[0] * n[1]};
            for (int64_t k = 0; k < n[2]; k++)
                for (int64_t j = 0; j < n[1]; j++)
                    for (int64_t i = 0; i < n[0]; i++) {
                        int64_t q = i + n[0] * (j + n[1] * k), idx[3] = {i, j, k};
                        double x = fc_get(hu, t, q), y = fc_get(hp, t, q), d = x - y;
                        va[q] = d * d * e.idt2 / fc_get(hc, t, q);
                        vv[q] = x;
                        vb[q] = 0;
                        int inner = 1;
                        for (int ax = 0; ax < rank; ax++) inner &= idx[ax] >= 2 && idx[ax] < n[ax] - 2;
                        if (!inner) continue;
                        double lap = 0;
                        for (int ax = 0; ax < rank; ax++)
                            for (int m = -2; m <= 2; m++) lap += e.w[m + 2] * fc_get(hp, t, q + m * st[ax]);
                        vb[q] = -(x * lap * e.ih2);
                    }
            int64_t L[3] = {0, 0, 0};
            double want[4];
            fc_reference(va, vb, vv, n, L, n, want);
            fdx_stats s = {NAN, NAN, NAN, NAN};
            CHECK_OK(fdx_fieldstats_energy(u, p, c2, &e, &s, NULL));
            CHECK(s.a == want[0] && s.b == want[1] && s.min == want[2] && s.max == want[3],
                  "%s: energy %lldx%lldx%lld %s: got %.17g %.17g, want %.17g %.17g", name, (long long)n[0],
                  (long long)n[1], (long long)n[2], fdx_dtype_name(t), s.a, s.b, want[0], want[1]);
            memcpy(got + 4 * (*ngot)++, &s, sizeof s);
            free(va);
            free(vb);
            free(vv);
            fdx_array_destroy(&u);
            fdx_array_destroy(&p);
            fdx_array_destroy(&c2);
        }
}

/* The generator on a block (origin, extents) of a global grid, against the
   definitions; ulps: the tolerance for values through exp and sin
   (0 on the CPU, whose code is the reference's). */
static void fc_gen(fdx_ctx *ctx, const char *name, double ulps)
{
    const int64_t N[3] = {23, 17, 13}, origin[3] = {3, 2, 5}, n[3] = {14, 11, 6};
    unsigned char mask[23 * 17];
    for (int q = 0; q < 23 * 17; q++) mask[q] = (unsigned char)((q * 7) % 3 == 0);
    for (int kind = FDX_GEN_GAUSSIAN; kind <= FDX_GEN_POISSON_F; kind++)
        for (int ti = 0; ti < 2; ti++) {
            fdx_dtype t = ti ? FDX_FLOAT64 : FDX_FLOAT32;
            fdx_array *a = NULL;
            CHECK_OK(fdx_array_create(ctx, t, 3, n, FDX_ON_HOST | FDX_ON_DEVICE, &a));
            if (!a) return;
            CHECK_OK(fdx_array_fill_device_bytes(a, 0xff)); /* NaN everywhere */
            fdx_gen g;
            memset(&g, 0, sizeof g);
            g.kind = (fdx_gen_kind)kind;
            g.rank = 3;
            memcpy(g.N, N, sizeof g.N);
            memcpy(g.origin, origin, sizeof g.origin);
            g.h = 1.0 / 22, g.r = 2, g.model = FDX_GEN_LAYERED, g.v = 1500;
            void *dmask = NULL;
            if (kind == FDX_GEN_LETTERS) {
                /* The mask lives where the array does. */
                fdx_array *m = NULL;
                int64_t mn[1] = {(int64_t)sizeof mask};
                CHECK_OK(fdx_array_create(ctx, FDX_UINT8, 1, mn, FDX_ON_HOST | FDX_ON_DEVICE, &m));
                if (m) {
                    memcpy(fdx_array_host(m), mask, sizeof mask);
                    CHECK_OK(fdx_array_to_device(m));
                    dmask = m;
                    g.mask = fdx_array_device(m);
                }
            }
            CHECK_OK(fdx_fieldgen_fill(a, &g, NULL));
            CHECK_OK(fdx_ctx_sync(ctx));
            CHECK_OK(fdx_array_to_host(a));
            const void *h = fdx_array_host(a);
            double worst = 0;
            for (int64_t k = 0; k < n[2]; k++)
                for (int64_t j = 0; j < n[1]; j++)
                    for (int64_t i = 0; i < n[0]; i++) {
                        int64_t I = i + origin[0], J = j + origin[1], K = k + origin[2];
                        double x = (double)I / 22, y = (double)J / 16, z = (double)K / 12, want = 0;
                        int inner = I >= 2 && I < 21 && J >= 2 && J < 15 && K >= 2 && K < 11;
                        double e = sin(M_PI * I * g.h) * sin(M_PI * J * g.h) * sin(M_PI * K * g.h);
                        switch (kind) {
                        case FDX_GEN_GAUSSIAN:
                            want = exp(-((x - .5) * (x - .5) + (y - .5) * (y - .5) + (z - .5) * (z - .5)) / (2 * 0.1 * 0.1));
                            break;
                        case FDX_GEN_SINE: want = sin(M_PI * x) * sin(M_PI * y) * sin(M_PI * z); break;
                        case FDX_GEN_RANDOM: {
                            uint64_t r = (uint64_t)(I + 23 * (J + 17 * K)) + 0x9E3779B97F4A7C15ULL;
                            r = (r ^ (r >> 30)) * 0xBF58476D1CE4E5B9ULL;
                            r = (r ^ (r >> 27)) * 0x94D049BB133111EBULL;
                            r ^= r >> 31;
                            want = (double)(r >> 11) / 9007199254740992.0;
                            break;
                        }
                        case FDX_GEN_LETTERS: want = K >= 4 && K < 9 && mask[I + 23 * J] ? 1 : 0; break;
                        case FDX_GEN_DEPTH: {
                            double c = 1500 * (z < 1.0 / 3 ? 1 : z < 2.0 / 3 ? 1.5 : 2);
                            want = c * c;
                            break;
                        }
                        case FDX_GEN_POISSON_U: want = inner ? 0 : e; break;
                        case FDX_GEN_POISSON_F: want = inner ? 3 * M_PI * M_PI * e : 0; break;
                        }
                        if (t == FDX_FLOAT32) want = (float)want;
                        double got = fc_get(h, t, i + n[0] * (j + n[1] * k));
                        double eps = t == FDX_FLOAT32 ? 0x1p-23 : 0x1p-52;
                        double err = fabs(got - want) / (fabs(want) * eps + 1e-300);
                        if (!(err <= worst)) worst = isnan(err) ? INFINITY : err;
                    }
            int exact = kind == FDX_GEN_RANDOM || kind == FDX_GEN_LETTERS || kind == FDX_GEN_DEPTH;
            double allowed = exact || ulps == 0 ? 0 : t == FDX_FLOAT32 ? 1 : ulps;
            CHECK(worst <= allowed, "%s: generator kind %d %s: %.3g ulps from the definition (allowed %.3g)", name, kind,
                  fdx_dtype_name(t), worst, allowed);
            if (dmask) fdx_array_destroy((fdx_array **)&dmask);
            fdx_array_destroy(&a);
        }
}

#endif
