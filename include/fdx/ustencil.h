/* fdx user stencils: arbitrary linear stencils described term by term,
   generated as C (OpenMP) or CUDA C, compiled at run time and cached.

   A user stencil computes, at every point p at least `radius` away from each
   face (the same frame as fdx_stencil_apply; the points of the frame are not
   written),

       out[oc](p) = alpha * sum over terms t with output component oc of
                    weight_t * [ coef_t(p + coef_offset_t) ] * in_t[ic_t](p + offset_t)
                    (+ the update's own terms, below)

   where in_t is one of the input arrays, ic_t and oc the input's and the
   output's components (fields with a vector per point), and coef_t an
   optional coefficient array (scalar, one value per point) read at its own
   offset.  Offsets are any integers with |offset| <= FDX_USTENCIL_MAX_RADIUS:
   box stencils, stars, mixed derivatives (d2/dxdy), one-sided differences.
   The radius of the stencil is the largest |offset| of any term on any axis.

   Storage: arrays are fdx arrays in the plain layout (first index fastest).
   A field of ncomp > 1 components is an array of rank + 1 whose first
   (fastest) axis holds the ncomp components of a point ("a vector per
   point", interleaved); with ncomp == 1 arrays have the stencil's rank.
   Coefficient arrays always have the stencil's rank.  Every array has the
   same grid extents.

   Typical use (a 3x3x3 box smoother, see examples/stencil/box_smoother.c):

       fdx_ustencil_desc *d;
       fdx_ustencil_desc_create(3, 1, 1, 0, &d);     // rank 3, scalar, 1 input
       fdx_ustencil_desc_add_box(d, 0, 0, 1, w);     // 27 weights, x fastest
       fdx_ustencil *s;
       fdx_ustencil_create(ctx, d, FDX_FLOAT64, &s);
       fdx_ustencil_apply(s, out, &u, NULL, NULL);

   The weights and alpha are run-time parameters of the generated kernel;
   everything else (rank, precision, components, arrays, each term's arrays,
   components and offsets, the update) is compiled into it, and the kernel
   cache's key is the whole generated source (so it covers every field of
   the description). */
#ifndef FDX_USTENCIL_H
#define FDX_USTENCIL_H

#include "stencil.h"

#ifdef __cplusplus
extern "C" {
#endif

#define FDX_USTENCIL_MAX_RADIUS 4
#define FDX_USTENCIL_MAX_INPUTS 4
#define FDX_USTENCIL_MAX_COEFS 4
#define FDX_USTENCIL_MAX_COMPONENTS 8
#define FDX_USTENCIL_MAX_TERMS 256 /* after merging terms that differ only in weight */
#define FDX_USTENCIL_NO_COEF (-1)

/* One term: weight * [coef(p + coef_offset)] * input[input_comp](p + offset),
   added to component output_comp of the output.  Offsets are per axis of the
   array (axis 0 fastest); entries beyond the rank must be 0. */
typedef struct fdx_ustencil_term {
    double weight;
    int input;          /* input array, 0 .. ninputs - 1 */
    int input_comp;     /* its component, 0 .. ncomp - 1 */
    int output_comp;    /* the output component the term adds to */
    int offset[3];      /* where the input is read, relative to the output point */
    int coef;           /* coefficient array 0 .. ncoefs - 1, or FDX_USTENCIL_NO_COEF */
    int coef_offset[3]; /* where the coefficient is read (ignored without one) */
} fdx_ustencil_term;

/* A description under construction (terms are added one by one). */
typedef struct fdx_ustencil_desc fdx_ustencil_desc;
typedef struct fdx_ustencil fdx_ustencil;

/* A description of rank 1..3 for fields of ncomp components (1 ..
   FDX_USTENCIL_MAX_COMPONENTS; the output and every input have ncomp) with
   ninputs input arrays (1 .. FDX_USTENCIL_MAX_INPUTS) and ncoefs scalar
   coefficient arrays (0 .. FDX_USTENCIL_MAX_COEFS).  No terms, update APPLY,
   alpha 1. */
FDX_API fdx_status fdx_ustencil_desc_create(int rank, int ncomp, int ninputs, int ncoefs, fdx_ustencil_desc **out);
FDX_API void fdx_ustencil_desc_destroy(fdx_ustencil_desc **d);

/* Adds a term (checked: arrays, components and offsets in range, weight
   finite).  Terms that differ only in their weight are merged when the
   stencil is created. */
FDX_API fdx_status fdx_ustencil_desc_add_term(fdx_ustencil_desc *d, const fdx_ustencil_term *t);

/* weight * input[comp](p + offset) into output component comp: the common
   case of a term without coefficient.  offset has `rank` entries. */
FDX_API fdx_status fdx_ustencil_desc_add_point(fdx_ustencil_desc *d, double weight, int input, int comp,
                                               const int *offset);

/* A box of radius r: the (2r + 1)^rank terms weights[i] * input[comp](p + o)
   for every offset o in [-r, r]^rank, weights in x-fastest order (index
   (o0 + r) + (2r + 1) ((o1 + r) + (2r + 1) (o2 + r))).  Zero weights are
   kept (they are run-time parameters, so a later description with other
   weights shares the kernel). */
FDX_API fdx_status fdx_ustencil_desc_add_box(fdx_ustencil_desc *d, int input, int comp, int r, const double *weights);

/* scale * d2 u / (dx_a dx_b) for axes a != b with the centred 4-point
   formula (u(+,+) - u(+,-) - u(-,+) + u(-,-)) / (4 h_a h_b). */
FDX_API fdx_status fdx_ustencil_desc_add_mixed(fdx_ustencil_desc *d, int input, int comp, int axis_a, int axis_b,
                                               double h_a, double h_b, double scale);

/* scale * div(k grad u) in the conservative form with face-averaged k
   (second order): on each axis a with spacing h[a] (NULL: 1),
     ( (k(p) + k(p+e_a))/2 (u(p+e_a) - u(p)) - (k(p-e_a) + k(p))/2 (u(p) - u(p-e_a)) ) / h[a]^2,
   expanded into terms of u = input[comp] and k = coefficient array `coef`,
   into output component comp. */
FDX_API fdx_status fdx_ustencil_desc_add_div_k_grad(fdx_ustencil_desc *d, int input, int comp, int coef,
                                                    const double *h, double scale);

/* What is written (L the sum of the terms):
     FDX_UPDATE_APPLY: out = alpha L
     FDX_UPDATE_HEAT:  out[c] = in0[c] + alpha L[c]  (a heat step / Jacobi sweep; input 0 is u)
     FDX_UPDATE_WAVE:  out[c] = 2 in0[c] - in1[c] + alpha L[c]  (input 1 is u_prev; needs 2 inputs)
   The update's own terms are added as terms of their own, centred, with
   weights not scaled by alpha. */
FDX_API fdx_status fdx_ustencil_desc_set_update(fdx_ustencil_desc *d, fdx_stencil_update update, double alpha);

FDX_API int fdx_ustencil_desc_nterms(const fdx_ustencil_desc *d);

/* Builds the stencil for float or double on the context's backend (the
   description may be destroyed afterwards).  Nothing is compiled yet: the
   kernel is generated, compiled (or taken from the cache) and, for large
   problems on CUDA unless the context's "tune" option is off, chosen among
   a few configurations on the first apply to a shape. */
FDX_API fdx_status fdx_ustencil_create(fdx_ctx *ctx, const fdx_ustencil_desc *d, fdx_dtype type,
                                       fdx_ustencil **out);
FDX_API void fdx_ustencil_destroy(fdx_ustencil **s);
FDX_API int fdx_ustencil_radius(const fdx_ustencil *s);

/* Applies the stencil: inputs[0 .. ninputs-1], coefs[0 .. ncoefs-1] (NULL
   when there are none).  Every point at least `radius` away from each face
   is written; the frame is not.  Boundary conditions: fdx_bc_apply
   (boundary.h, a pass of the same radius) fills the frame of a scalar input
   or coefficient array before this apply; it writes the ghosts a star reads,
   which is all a star-like stencil or div(k grad u) reads, but not the frame's
   edges and corners, which a box also reads.  out is distinct
   from every input.  On CUDA the device copies are used, asynchronously on
   `stream` (NULL: the context's); on the CPU the host copies. */
FDX_API fdx_status fdx_ustencil_apply(fdx_ustencil *s, fdx_array *out, fdx_array *const *inputs,
                                      fdx_array *const *coefs, void *stream);

/* Theoretical DRAM traffic of one apply on the grid `shape` (rank extents,
   without the component axis): every input and coefficient array read once
   over the points some output needs, every interior output written once. */
FDX_API void fdx_ustencil_traffic(const fdx_ustencil *s, const int64_t *shape, double *fetch_bytes,
                                  double *write_bytes);

/* The configuration used for the grid `shape`, e.g. "march 32x8 vec2 chunk 64
   unroll 2 vload pf2 rows1", "point 32x8", "cpu"; "" before the first apply
   to it. */
FDX_API const char *fdx_ustencil_config(const fdx_ustencil *s, const int64_t *shape);

/* The generated source for the CPU (cuda 0) or CUDA with the default
   configuration for `shape` (malloc'ed; the caller frees it): to read what
   is run. */
FDX_API fdx_status fdx_ustencil_source(const fdx_ustencil *s, int cuda, const int64_t *shape, char **source);

#ifdef __cplusplus
}
#endif
#endif
