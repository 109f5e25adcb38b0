/* fdx_sim_field_view: the current field itself, no copy.  On the CPU
   backend, for heat (float, Dirichlet faces: the frame is filled as
   fdx_sim_get_field sees it), wave (double) and 3-D wave (float): the view
   holds the simulation's precision and shape, equals fdx_sim_get_field's
   copy at several steps, and is the simulation's memory (a value written
   through it is what the next copy reads).  NULL arguments fail. */
#include "fdx_test.h"
#include "sim_make.h"

#include <string.h>

static void check_case(fdx_ctx *ctx, fdx_sim_kind kind, const char *const *kv, fdx_dtype want)
{
    fdx_sim *s = sim_make(ctx, kind, kv);
    if (!s) return;
    int rank = fdx_sim_rank(s);
    const int64_t *n = fdx_sim_shape(s);
    size_t cells = 1;
    for (int d = 0; d < rank; d++) cells *= (size_t)n[d];
    double *copy = malloc(cells * sizeof *copy);
    CHECK(copy != NULL, "out of memory");
    for (int round = 0; round < 3 && copy; round++) {
        for (int k = 0; k < 4; k++) CHECK_OK(fdx_sim_step(s));
        fdx_array *v = NULL;
        CHECK_OK(fdx_sim_field_view(s, &v));
        CHECK(v != NULL, "no view");
        if (!v) break;
        CHECK(fdx_array_dtype(v) == want, "view type %s, want %s", fdx_dtype_name(fdx_array_dtype(v)),
              fdx_dtype_name(want));
        CHECK(fdx_array_rank(v) == rank, "view rank %d", fdx_array_rank(v));
        for (int d = 0; d < rank; d++) CHECK(fdx_array_extent(v, d) == n[d], "extent %d", d);
        CHECK_OK(fdx_sim_get_field(s, copy));
        const void *p = fdx_array_host(v);
        size_t bad = 0;
        for (size_t i = 0; i < cells; i++) {
            double x = want == FDX_FLOAT32 ? (double)((const float *)p)[i] : ((const double *)p)[i];
            bad += x != copy[i];
        }
        CHECK(bad == 0, "%zu of %zu points of the view differ from fdx_sim_get_field's copy", bad, cells);
    }
    /* Written through the view, read by the copy: the same memory (a point
       off the frame, which boundary conditions may fill). */
    fdx_array *v = NULL;
    CHECK_OK(fdx_sim_field_view(s, &v));
    if (v && copy) {
        size_t mid = 0, stride = 1; /* the centre point */
        for (int d = 0; d < rank; d++) mid += (size_t)(n[d] / 2) * stride, stride *= (size_t)n[d];
        if (want == FDX_FLOAT32) ((float *)fdx_array_host(v))[mid] = 0.375f;
        else ((double *)fdx_array_host(v))[mid] = 0.375;
        CHECK_OK(fdx_sim_get_field(s, copy));
        CHECK(copy[mid] == 0.375, "a value written through the view reads back as %g", copy[mid]);
    }
    CHECK_FAILS(fdx_sim_field_view(s, NULL), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_sim_field_view(NULL, &v), FDX_ERR_INVALID);
    CHECK(v == NULL, "a failed call leaves *field NULL");
    free(copy);
    fdx_sim_destroy(&s);
}

int main(void)
{
    fdx_options *o = NULL;
    fdx_ctx *ctx = NULL;
    CHECK_OK(fdx_options_create(&o));
    CHECK_OK(fdx_options_set(o, "backend", "cpu"));
    CHECK_OK(fdx_ctx_create(o, &ctx));
    fdx_options_destroy(&o);
    if (!ctx) return fdx_test_finish("test_sim_field_view");
    static const char *const heat[] = {"size", "40x36", "steps", "12", "precision", "float", "boundary",
                                       "all=dirichlet:0.5", NULL};
    static const char *const wave[] = {"size", "64x48", "steps", "12", "precision", "double", NULL};
    static const char *const wave3[] = {"size", "24x22x20", "steps", "12", "precision", "float", "order", "4", NULL};
    check_case(ctx, FDX_SIM_HEAT, heat, FDX_FLOAT32);
    check_case(ctx, FDX_SIM_WAVE, wave, FDX_FLOAT64);
    check_case(ctx, FDX_SIM_WAVE, wave3, FDX_FLOAT32);
    fdx_ctx_destroy(&ctx);
    return fdx_test_finish("test_sim_field_view");
}
