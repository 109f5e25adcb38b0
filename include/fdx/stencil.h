/* fdx stencil engine: linear star stencils of any even accuracy order in 1-3D,
   described declaratively, generated as C (OpenMP) or CUDA C, compiled at run
   time, cached on disk, and tuned per device and shape class. */
#ifndef FDX_STENCIL_H
#define FDX_STENCIL_H

#include "array.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FDX_STENCIL_MAX_ORDER 12
#define FDX_STENCIL_MAX_SPONGE 64 /* widest fused sponge, in cells */

/* What is written at each interior point (L is the stencil operator):
     APPLY: out = alpha [c] L u
     WAVE:  out = 2 u - u_prev + alpha [c] L u     (second order in time)
     HEAT:  out = u + alpha [c] L u                (heat step, Jacobi sweep)
   [c] is the optional pointwise coefficient array (e.g. velocity squared). */
typedef enum fdx_stencil_update {
    FDX_UPDATE_APPLY = 0,
    FDX_UPDATE_WAVE,
    FDX_UPDATE_HEAT
} fdx_stencil_update;

/* L u = d0 u + sum over axes a of ( d1[a] du/dx_a + d2[a] d2u/dx_a^2 ),
   each derivative a centred finite difference of accuracy `order` (radius
   order/2) with weights from Fornberg's algorithm, divided by h[a]^m. */
typedef struct fdx_stencil_desc {
    int rank;       /* 1, 2 or 3 */
    int order;      /* 2, 4, 6, 8, 10 or 12 */
    double h[3];    /* grid spacing per axis (> 0) */
    double d2[3];   /* weight of the second derivative per axis */
    double d1[3];   /* weight of the first derivative per axis */
    double d0;      /* weight of u itself */
    fdx_stencil_update update;
    double alpha;   /* scale of L u in the update */
    int coef;       /* 1: a pointwise coefficient array multiplies L u */
    /* Optional absorbing layer fused into the WAVE update (rank 2 or 3):
       at a point whose distance d (in cells) to the nearest face is below
       `sponge`, with g = exp(-(sponge_strength (sponge - d) / sponge)^2)
       rounded to the element type,
         out = g (2 u - g u_prev + alpha [c] L u).
       This is Cerjan's sponge damping both time levels (the next one and,
       as it is read, the current one), with no extra memory traffic.  0: off;
       at most FDX_STENCIL_MAX_SPONGE. */
    int sponge;
    double sponge_strength;
} fdx_stencil_desc;

typedef struct fdx_stencil fdx_stencil;

/* Fills d with the Laplacian of the given rank and order: d2 = 1 on every
   axis, APPLY, alpha 1, no coefficient.  h may be NULL (spacing 1). */
FDX_API void fdx_stencil_desc_laplacian(fdx_stencil_desc *d, int rank, int order, const double *h);

/* Weights of the m-th derivative (m = 0..npts-1) at x0 from values at the
   npts points x[0..npts-1] (Fornberg 1988).  w has npts entries. */
FDX_API fdx_status fdx_fornberg_weights(int m, double x0, int npts, const double *x, double *w);

/* Centred weights of derivative m (1 or 2) of the given accuracy order on unit
   spacing: w[0..order] for offsets -order/2 .. +order/2. */
FDX_API fdx_status fdx_fd_weights(int m, int order, double *w);

/* Validates the description and builds the stencil for an element type
   (float or double) on the context's backend.  Nothing is compiled yet: the
   kernel for a shape class is generated, compiled (or taken from the cache)
   and tuned on the first apply. */
FDX_API fdx_status fdx_stencil_create(fdx_ctx *ctx, const fdx_stencil_desc *d, fdx_dtype type,
                                      fdx_stencil **out);
FDX_API void fdx_stencil_destroy(fdx_stencil **s);
FDX_API int fdx_stencil_radius(const fdx_stencil *s);

/* Applies the update to every point at least `radius` away from each face;
   other points of out are not written.  u_prev is required for WAVE and coef
   when the description asks for it (NULL otherwise).  All arrays have the
   stencil's rank, element type and one shape (every extent > 2 radius on
   the stencil's axes); out is distinct from the inputs.  On CUDA the device
   copies are used, asynchronously on `stream`; on the CPU the host copies. */
FDX_API fdx_status fdx_stencil_apply(fdx_stencil *s, fdx_array *out, fdx_array *u, fdx_array *u_prev,
                                     fdx_array *coef, void *stream);

/* The seed's theoretical DRAM traffic of one apply on `shape`: every input
   point some output needs read once (u through the star, u_prev and coef at
   interior points), every interior output point written once.  In bytes. */
FDX_API void fdx_stencil_traffic(const fdx_stencil *s, const int64_t *shape, double *fetch_bytes,
                                 double *write_bytes);

/* The kernel configuration used for `shape` (after tuning), as text such as
   "smem 32x8 vec2 chunk 64", or "cpu by 16" on the CPU.  "" before the first
   apply for that shape class. */
FDX_API const char *fdx_stencil_config(const fdx_stencil *s, const int64_t *shape);

/* Advances a heat / Jacobi stencil (HEAT update, no coefficient array, no
   sponge) nsteps steps: u <- u + alpha L u, nsteps times; u holds the
   result.  tmp is scratch of u's shape and type whose r-wide frame holds
   u's (a copy of u will do): the frame is the boundary, never computed or
   written.  The result is bit-identical to nsteps applies alternating
   between u and tmp.  temporal: 0 one step a pass (fdx_stencil_apply), K in
   2..8 K steps a pass through memory (temporal blocking, rank 2 and 3),
   1 as 0, -1 auto: times the candidates on these arrays once per device,
   spec and shape (tmp's interior is overwritten, u is not) and keeps the
   fastest per step, temporal or not (small problems and nsteps < 2: one
   step a pass).  An odd number of passes ends with a copy of tmp into u.
   On CUDA asynchronous on `stream`, like fdx_stencil_apply.  With boundary
   conditions (fdx_stencil_set_boundary) every step is one apply, whose
   pass fills the frame of the step's input: auto takes one step a pass and
   K > 1 is refused (FDX_ERR_UNSUPPORTED). */
FDX_API fdx_status fdx_stencil_steps(fdx_stencil *s, fdx_array *u, fdx_array *tmp, int64_t nsteps, int temporal,
                                     void *stream);

/* The steps a pass the last fdx_stencil_steps on `shape` took (1: one step
   a pass; 0: none yet), and its configuration as text in config[n] (NULL:
   not wanted), e.g. "temporal k4 32x32 chunk 64". */
FDX_API int fdx_stencil_steps_depth(const fdx_stencil *s, const int64_t *shape, char *config, size_t n);

/* The wave equation's time stepper: advances the pair (u_prev, u) of a WAVE
   stencil (no sponge) by nsteps steps, u_prev holding the level before u's
   afterwards, bit-identical to nsteps applies fdx_stencil_apply(s, next, u,
   u_prev, coef) rotating u_prev <- u <- next.  coef: the stencil's
   coefficient array (NULL when it has none).  tmp and tmp2 are scratch of
   u's shape whose frame (the r-wide boundary, never computed or written)
   must hold u's, as u_prev's must.  temporal as for fdx_stencil_steps (a
   pass of K steps reads u_prev and u and writes the levels K - 1 and K); the
   depth taken is fdx_stencil_steps_depth's. */
FDX_API fdx_status fdx_stencil_wave_steps(fdx_stencil *s, fdx_array *u, fdx_array *u_prev, fdx_array *coef,
                                          fdx_array *tmp, fdx_array *tmp2, int64_t nsteps, int temporal, void *stream);

#ifdef __cplusplus
}
#endif
#endif
