/* fdx_sim_init: initial fields (raised letters, Gaussian, sine mode, random,
   HDF5 file), the Poisson manufactured problem, and wave velocity models
   (constant, layered, gradient, HDF5 or raw float32 file). */
#include "core/fdx_error.h"
#include "fdx/internal/io.h"
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
                        fdx_sim_config_get(s->cfg, "size")); /* the user's words */
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
    return !s->p.text_is_default || s->n[0] > 65535 || s->n[1] > 65535 || letters_scale(s->p.text, s->n[0], s->n[1]) >= 1;
}

/* The generator's grid: the whole of the run's. */
void fdx_sim_gen_base(const fdx_sim *s, fdx_gen_kind kind, fdx_gen *g)
{
    memset(g, 0, sizeof *g);
    g->kind = kind;
    g->rank = s->rank;
    for (int d = 0; d < 3; d++) g->N[d] = s->n[d];
    g->h = s->h;
    g->r = s->r;
}

/* A host field read from a file: converted, checked and copied into a (and b). */
static fdx_status upload_file(fdx_sim *s, const char *key, const char *path, const char *raw_shape, fdx_array *a,
                              fdx_array *b, const char *what)
{
    double *v = malloc((size_t)s->count * sizeof(double));
    FDX_CHECK(v, FDX_ERR_NOMEM, "no memory for a host copy of '%s'", path);
    fdx_status st = read_matching(s, key, path, raw_shape, v);
    if (st == FDX_OK) st = fdx_sim_upload(s, a, v, what);
    if (st == FDX_OK && b) st = fdx_sim_upload(s, b, v, what);
    free(v);
    return st;
}

fdx_status fdx_sim_init_heat(fdx_sim *s, fdx_array *u)
{
    fdx_sim_init init = s->p.init;
    int64_t nx = s->n[0], ny = s->n[1];
    if (init == FDX_SIM_INIT_FILE) {
        FDX_CHECK(s->p.input[0], FDX_ERR_INVALID, "init = file needs input = FILE (an HDF5 field)");
        return upload_file(s, "input", s->p.input, NULL, u, NULL, "initial field");
    }
    if (init == FDX_SIM_INIT_LETTERS && !default_letters_fit(s)) init = FDX_SIM_INIT_GAUSSIAN;
    static const fdx_gen_kind kinds[] = {[FDX_SIM_INIT_LETTERS] = FDX_GEN_LETTERS,
                                         [FDX_SIM_INIT_GAUSSIAN] = FDX_GEN_GAUSSIAN,
                                         [FDX_SIM_INIT_SINE] = FDX_GEN_SINE,
                                         [FDX_SIM_INIT_RANDOM] = FDX_GEN_RANDOM};
    fdx_gen g;
    fdx_sim_gen_base(s, kinds[init], &g);
    s->init_gen = g;
    s->init_generated = 1;
    if (g.kind != FDX_GEN_LETTERS) return fdx_fieldgen_fill(u, &g, s->stream);
    /* The letters: a mask of NX x NY bytes drawn on the host (the font), the
       field made from it where it lives. */
    const char *text = s->p.text;
    FDX_CHECK(text[0], FDX_ERR_INVALID, "text: the text of init = letters is empty");
    FDX_CHECK(nx <= 65535 && ny <= 65535, FDX_ERR_INVALID, "init = letters needs at most 65535 points per axis");
    int tw = fdx_font_text_width(text, 1), scale = letters_scale(text, nx, ny);
    FDX_CHECK(scale >= 1, FDX_ERR_INVALID, "text: '%s' does not fit a %lldx%lld grid (needs %dx%d points)", text,
              (long long)nx, (long long)ny, tw, fdx_font_height(1));
    s->init_mask = malloc((size_t)nx * ny);
    FDX_CHECK(s->init_mask, FDX_ERR_NOMEM, "no memory for the letters");
    FDX_TRY(fdx_font_render(text, scale, s->init_mask, (int)nx, (int)ny));
    return fdx_sim_fill_letters(s->be, u, &g, s->init_mask, s->stream);
}

fdx_status fdx_sim_fill_letters(const fdx_backend *be, fdx_array *u, const fdx_gen *g, const unsigned char *mask,
                                void *stream)
{
    size_t bytes = (size_t)g->N[0] * (size_t)g->N[1];
    void *dev = NULL;
    fdx_gen with = *g;
    fdx_status st = be->alloc(bytes, &dev);
    if (st == FDX_OK) st = be->copy(dev, mask, bytes, FDX_COPY_H2D, stream);
    with.mask = dev;
    if (st == FDX_OK) st = fdx_fieldgen_fill(u, &with, stream);
    if (st == FDX_OK) st = be->stream_sync(stream);
    if (dev) be->free(dev);
    return st;
}

/* -lap u = f with u = prod sin(pi x_a) on the unit square/cube: f = d pi^2 u;
   the Dirichlet data (the r outer layers) are the exact values. */
fdx_status fdx_sim_init_poisson(fdx_sim *s, fdx_array *u, fdx_array *f)
{
    fdx_gen g;
    fdx_sim_gen_base(s, FDX_GEN_POISSON_U, &g);
    FDX_TRY(fdx_fieldgen_fill(u, &g, s->stream));
    g.kind = FDX_GEN_POISSON_F;
    return fdx_fieldgen_fill(f, &g, s->stream);
}

fdx_status fdx_sim_velocity_range(fdx_sim *s)
{
    s->cmin = INFINITY;
    s->cmax = 0;
    if (s->p.model == FDX_SIM_MODEL_FILE) {
        const char *path = s->p.model_file;
        FDX_CHECK(path[0], FDX_ERR_INVALID, "model = file needs model-file = FILE");
        double *c = malloc((size_t)s->count * sizeof(double));
        FDX_CHECK(c, FDX_ERR_NOMEM, "no memory for a host copy of '%s'", path);
        fdx_status st = read_matching(s, "model-file", path, s->p.model_shape, c);
        for (int64_t i = 0; st == FDX_OK && i < s->count; i++) {
            if (!(c[i] > 0))
                st = fdx_fail(FDX_ERR_INVALID, "model-file: velocity %g at element %lld is not positive", c[i],
                              (long long)i);
            if (c[i] < s->cmin) s->cmin = c[i];
            if (c[i] > s->cmax) s->cmax = c[i];
            c[i] *= c[i];
        }
        if (st != FDX_OK) {
            free(c);
            return st;
        }
        s->model_c2 = c;
        s->model_c2_file = 1;
        return FDX_OK;
    }
    /* A generated model depends on depth only: its range from one column. */
    fdx_gen g;
    fdx_sim_gen_base(s, FDX_GEN_DEPTH, &g);
    g.model = s->p.model == FDX_SIM_MODEL_LAYERED    ? FDX_GEN_LAYERED
              : s->p.model == FDX_SIM_MODEL_GRADIENT ? FDX_GEN_GRADIENT
                                                     : FDX_GEN_CONSTANT;
    g.v = s->p.velocity;
    for (int64_t d = 0; d < s->n[s->rank - 1]; d++) {
        double c = fdx_fieldgen_velocity(&g, d);
        if (c < s->cmin) s->cmin = c;
        if (c > s->cmax) s->cmax = c;
    }
    s->model_gen = g;
    return FDX_OK;
}

fdx_status fdx_sim_velocity_fill(fdx_sim *s, fdx_array *coef)
{
    if (!s->model_c2) return fdx_fieldgen_fill(coef, &s->model_gen, s->stream);
    fdx_status st = fdx_sim_upload(s, coef, s->model_c2, "velocity model (c^2)");
    free(s->model_c2);
    s->model_c2 = NULL;
    return st;
}
