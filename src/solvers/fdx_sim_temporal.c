/* fdx_sim_temporal: the wave's steps between two looks at the field in
   temporally blocked passes (fdx_stencil_wave_steps), bit for bit what one
   step at a time makes.  A pass adds no source term, so a step whose source
   value is not zero runs alone.  (A Ricker source underflows to exactly
   zero some ten periods after its peak, near step 400 at the default f0;
   amplitude = 0 has none.  Its last non-zero values are far below what the
   field can resolve, but exactness asks for the single steps.)  A pass keeps every array's
   frame, where single steps rotate three arrays' frames: so the frames of
   cur, prev and next must be equal.  They are zero in a fresh run (the
   fields start at rest, nothing writes a fixed frame without an absorbing
   layer); after fields were set or restored they are compared once. */
#include "core/fdx_error.h"
#include "core/fdx_log.h"
#include "solvers/fdx_sim_impl.h"

#include <stdlib.h>
#include <string.h>

/* 1 when a and b (raw elements of the grid) hold the same bytes on every
   frame point (within r of a face). */
static int same_frame(const fdx_sim *s, const char *a, const char *b, size_t es)
{
    const int64_t nx = s->n[0], ny = s->n[1], nz = s->rank == 3 ? s->n[2] : 1, r = s->r;
    for (int64_t z = 0; z < nz; z++)
        for (int64_t y = 0; y < ny; y++) {
            int whole = (s->rank == 3 && (z < r || z >= nz - r)) || y < r || y >= ny - r;
            for (int64_t x = 0; x < nx; x++) {
                if (!whole && x == r) x = nx - r;
                size_t q = (size_t)(x + nx * (y + ny * z)) * es;
                if (memcmp(a + q, b + q, es) != 0) return 0;
            }
        }
    return 1;
}

/* Sets s->frames_same, and the spare array (a copy of cur: its frame is the
   frames') where they are equal. */
static fdx_status compare_frames(fdx_sim *s)
{
    int same = 1;
    if (!s->fresh) {
        size_t es = fdx_dtype_size(s->type), bytes = (size_t)s->count * es;
        char *a = malloc(bytes), *b = malloc(bytes);
        fdx_status st = a && b ? FDX_OK : fdx_fail(FDX_ERR_NOMEM, "no host memory to compare the wave's frames");
        fdx_array *other[2] = {s->prev, s->next};
        if (st == FDX_OK) st = fdx_sim_download_raw(s, s->cur, a);
        for (int i = 0; i < 2 && st == FDX_OK && same; i++) {
            st = fdx_sim_download_raw(s, other[i], b);
            if (st == FDX_OK) same = same_frame(s, a, b, es);
        }
        free(a);
        free(b);
        FDX_TRY(st);
    }
    if (same && !s->spare) {
        /* A fourth array beyond the run's memory estimate: where it does not
           fit, the run takes one step a pass. */
        if (fdx_sim_make_array(s, &s->spare) != FDX_OK) {
            FDX_INFO("temporal: one step a pass: no memory for a fourth array (%s)", fdx_last_error());
            fdx_clear_error();
            same = -2;
        }
    }
    if (same == 1)
        FDX_TRY(s->be->copy(fdx_array_device(s->spare), fdx_array_device(s->cur), fdx_array_bytes(s->cur),
                            FDX_COPY_D2D, s->stream));
    if (same == 0) FDX_INFO("temporal: one step a pass: the fields' frames differ (a pass keeps one frame)");
    s->frames_same = same == 1 ? 1 : -1;
    return FDX_OK;
}

fdx_status fdx_sim_wave_steps(fdx_sim *s, int64_t n)
{
    /* fdx_sim_params_check_boundary turned temporal off where a layer,
       receivers, conditions or units act every step. */
    if (s->p.temporal && n >= 2 && s->frames_same == 0 && s->nrec == 0 && s->sponge == 0 && !s->pml)
        FDX_TRY(compare_frames(s));
    int blocked = s->p.temporal && s->frames_same > 0 && s->nrec == 0 && s->sponge == 0 && !s->pml;
    while (n > 0) {
        /* The steps from here whose source is zero. */
        int64_t k = 0;
        while (blocked && k < n && fdx_sim_source_value(s, s->step + k) == 0) k++;
        if (k < 2) {
            FDX_TRY(fdx_sim_step(s));
            n--;
            continue;
        }
        FDX_TRY(fdx_stencil_wave_steps(s->stencil, s->cur, s->prev, s->coef, s->next, s->spare, k, s->p.temporal,
                                       s->stream));
        int depth = fdx_stencil_steps_depth(s->stencil, s->n, NULL, 0);
        if (depth != s->depth_used)
            FDX_INFO("temporal: steps %lld..%lld in passes of %d", (long long)s->step, (long long)(s->step + k - 1),
                     depth);
        s->depth_used = depth;
        s->step += k;
        n -= k;
    }
    return FDX_OK;
}
