/* fdx_sim_init: initial fields (raised letters, Gaussian, sine mode, random,
   HDF5 file), the Poisson manufactured problem, and wave velocity models
   (constant, layered, gradient, HDF5 or raw float32 file). */
#include "core/fdx_error.h"
#include "fdx/io.h"
#include "solvers/fdx_sim_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

double fdx_sim_ricker(double t, double f0, double t0)
{
    double a = M_PI * f0 * (t - t0);
    return (1 - 2 * a * a) * exp(-a * a);
}

/* Reads a field file for `key` and checks it has the grid's shape. */
static fdx_status read_matching(const fdx_sim *s, const char *key, const char *path, const char *raw_shape,
                                double *out)
{
    int rank;
    int64_t shape[3];
    double *v = NULL;
    if (raw_shape && raw_shape[0]) {
        /* Raw little-endian float32, x fastest, with the shape given. */
        FDX_TRY(fdx_sim_parse_shape("model-shape", raw_shape, &rank, shape));
        char *bytes;
        size_t size, want = 4;
        for (int d = 0; d < rank; d++) want *= (size_t)shape[d];
        FDX_TRY(fdx_file_read(path, want, &bytes, &size));
        if (size != want) {
            free(bytes);
            return fdx_fail(FDX_ERR_INVALID, "%s: '%s' has %zu bytes, a raw float32 %s grid has %zu", key, path, size,
                            raw_shape, want);
        }
        v = malloc(want / 4 * sizeof(double));
        if (!v) {
            free(bytes);
            return fdx_fail(FDX_ERR_NOMEM, "no memory for '%s'", path);
        }
        for (size_t i = 0; i < want / 4; i++) {
            float f;
            memcpy(&f, bytes + 4 * i, 4);
            v[i] = f;
        }
        free(bytes);
    } else {
        fdx_status st = fdx_h5_read_field(path, NULL, &v, &rank, shape);
        if (st != FDX_OK) {
            char why[600];
            snprintf(why, sizeof why, "%s", fdx_last_error());
            return fdx_fail(st, "%s: %s", key, why);
        }
    }
    /* A 2D run also takes a 1-point-thick 3D field (fdx writes 2D fields so). */
    if (rank == 3 && s->rank == 2 && shape[2] == 1) rank = 2;
    int same = rank == s->rank;
    for (int d = 0; same && d < rank; d++) same = shape[d] == s->n[d];
    if (!same) {
        free(v);
        char got[64];
        int k = snprintf(got, sizeof got, "%lld", (long long)shape[0]);
        for (int d = 1; d < rank; d++) k += snprintf(got + k, sizeof got - (size_t)k, "x%lld", (long long)shape[d]);
        return fdx_fail(FDX_ERR_INVALID, "%s: '%s' holds a %s grid, the run's size is %s", key, path, got,
                        fdx_sim_config_get(s->cfg, "size"));
    }
    for (int64_t i = 0; i < s->count; i++)
        if (!isfinite(v[i])) {
            free(v);
            return fdx_fail(FDX_ERR_INVALID, "%s: '%s' has a non-finite value at element %lld", key, path, (long long)i);
        }
    memcpy(out, v, (size_t)s->count * sizeof(double));
    free(v);
    return FDX_OK;
}

static uint64_t next_rand(uint64_t *x)
{
    *x ^= *x >> 12;
    *x ^= *x << 25;
    *x ^= *x >> 27;
    return *x * 0x2545F4914F6CDD1DULL;
}

/* The letters' scale on this grid: the text takes at most 85% of x and 60% of y. */
static int letters_scale(const char *text, int64_t nx, int64_t ny)
{
    int tw = fdx_font_text_width(text, 1), scale = (int)(0.85 * (double)nx / tw);
    int sy = (int)(0.6 * (double)ny / fdx_font_height(1));
    return sy < scale ? sy : scale;
}

/* The default initial condition fits every allowed size (issue 18): the
   default text on a grid too small for it (below 20x12 for "fdx") becomes a
   Gaussian bump.  A text the user chose that does not fit stays an error. */
static int default_letters_fit(const fdx_sim *s)
{
    return !fdx_sim_config_is_default(s->cfg, "text") || s->n[0] > 65535 || s->n[1] > 65535 ||
           letters_scale(fdx_sim_config_get(s->cfg, "text"), s->n[0], s->n[1]) >= 1;
}

fdx_status fdx_sim_init_heat(const fdx_sim *s, double *u)
{
    const char *init = fdx_sim_config_get(s->cfg, "init");
    int64_t nx = s->n[0], ny = s->n[1], nz = s->rank == 3 ? s->n[2] : 1;
    if (strcmp(init, "file") == 0) {
        const char *in = fdx_sim_config_get(s->cfg, "input");
        FDX_CHECK(in[0], FDX_ERR_INVALID, "init = file needs input = FILE (an HDF5 field)");
        return read_matching(s, "input", in, NULL, u);
    }
    if (strcmp(init, "letters") == 0 && !default_letters_fit(s)) init = "gaussian";
    if (strcmp(init, "letters") == 0) {
        const char *text = fdx_sim_config_get(s->cfg, "text");
        FDX_CHECK(text[0], FDX_ERR_INVALID, "text: the text of init = letters is empty");
        FDX_CHECK(nx <= 65535 && ny <= 65535, FDX_ERR_INVALID, "init = letters needs at most 65535 points per axis");
        int tw = fdx_font_text_width(text, 1), scale = letters_scale(text, nx, ny);
        FDX_CHECK(scale >= 1, FDX_ERR_INVALID, "text: '%s' does not fit a %lldx%lld grid (needs %dx%d points)", text,
                  (long long)nx, (long long)ny, tw, fdx_font_height(1));
        unsigned char *mask = malloc((size_t)nx * ny);
        FDX_CHECK(mask, FDX_ERR_NOMEM, "no memory for the letters");
        fdx_status st = fdx_font_render(text, scale, mask, (int)nx, (int)ny);
        if (st == FDX_OK)
            for (int64_t k = 0; k < nz; k++)
                for (int64_t q = 0; q < nx * ny; q++) {
                    /* In 3D the letters fill the middle third in z. */
                    int in_slab = s->rank < 3 || (k >= nz / 3 && k < nz - nz / 3);
                    u[q + nx * ny * k] = in_slab && mask[q] ? 1.0 : 0.0;
                }
        free(mask);
        return st;
    }
    uint64_t seed = 0x9E3779B97F4A7C15ULL;
    for (int64_t k = 0; k < nz; k++)
        for (int64_t j = 0; j < ny; j++)
            for (int64_t i = 0; i < nx; i++) {
                double x = (double)i / (nx - 1), y = (double)j / (ny - 1), z = nz > 1 ? (double)k / (nz - 1) : 0.5;
                double v;
                if (strcmp(init, "gaussian") == 0) {
                    double r2 = (x - 0.5) * (x - 0.5) + (y - 0.5) * (y - 0.5) + (z - 0.5) * (z - 0.5);
                    v = exp(-r2 / (2 * 0.1 * 0.1));
                } else if (strcmp(init, "sine") == 0) {
                    v = sin(M_PI * x) * sin(M_PI * y) * (nz > 1 ? sin(M_PI * z) : 1.0);
                } else {
                    v = (double)(next_rand(&seed) >> 11) / 9007199254740992.0;
                }
                u[i + nx * (j + ny * k)] = v;
            }
    return FDX_OK;
}

/* -lap u = f with u = prod sin(pi x_a) on the unit square/cube: f = d pi^2 u;
   the Dirichlet data (the r outer layers) are the exact values. */
fdx_status fdx_sim_init_poisson(const fdx_sim *s, double *u, double *f)
{
    int64_t nx = s->n[0], ny = s->n[1], nz = s->rank == 3 ? s->n[2] : 1;
    int r = s->r;
    for (int64_t k = 0; k < nz; k++)
        for (int64_t j = 0; j < ny; j++)
            for (int64_t i = 0; i < nx; i++) {
                double e = sin(M_PI * i * s->h) * sin(M_PI * j * s->h) * (s->rank == 3 ? sin(M_PI * k * s->h) : 1.0);
                int inner = i >= r && i < nx - r && j >= r && j < ny - r && (s->rank < 3 || (k >= r && k < nz - r));
                int64_t q = i + nx * (j + ny * k);
                u[q] = inner ? 0.0 : e;
                f[q] = inner ? s->rank * M_PI * M_PI * e : 0.0;
            }
    return FDX_OK;
}

fdx_status fdx_sim_velocity(const fdx_sim *s, double *c)
{
    const char *model = fdx_sim_config_get(s->cfg, "model");
    double v = atof(fdx_sim_config_get(s->cfg, "velocity"));
    if (strcmp(model, "file") == 0) {
        const char *path = fdx_sim_config_get(s->cfg, "model-file");
        FDX_CHECK(path[0], FDX_ERR_INVALID, "model = file needs model-file = FILE");
        FDX_TRY(read_matching(s, "model-file", path, fdx_sim_config_get(s->cfg, "model-shape"), c));
        for (int64_t i = 0; i < s->count; i++)
            FDX_CHECK(c[i] > 0, FDX_ERR_INVALID, "model-file: velocity %g at element %lld is not positive", c[i],
                      (long long)i);
        return FDX_OK;
    }
    /* Depth runs along the last axis. */
    int64_t nd = s->n[s->rank - 1], plane = s->count / nd;
    for (int64_t d = 0; d < nd; d++) {
        double x = (double)d / (double)(nd - 1), val = v;
        if (strcmp(model, "layered") == 0) val = v * (x < 1.0 / 3 ? 1.0 : x < 2.0 / 3 ? 1.5 : 2.0);
        else if (strcmp(model, "gradient") == 0) val = v * (1.0 + x);
        for (int64_t q = 0; q < plane; q++) c[q + plane * d] = val;
    }
    return FDX_OK;
}
