/* fdx boundary conditions for the stencil engine: Dirichlet, Neumann and
   periodic conditions per face, applied by one generated kernel (C/OpenMP or
   CUDA) that fills the ghost frame of an array before the stencil reads it.

   Where the boundary lies (cell-centred, every order): an array of extent n
   on an axis, used by a stencil of radius r, has r ghost points at each end
   (indices 0..r-1 and n-r..n-1) and n - 2r unknowns (r..n-r-1), the points
   fdx_stencil_apply writes.  The boundary lies halfway between the last
   ghost and the first unknown: at index r - 1/2 on the low face and
   n - r - 1/2 on the high face.  The ghost at distance k + 1/2 outside the
   boundary (k = 0..r-1: index r-1-k, or n-r+k) mirrors the unknown at
   distance k + 1/2 inside it (index r+k, or n-r-1-k):

     Dirichlet u = g:        ghost = 2 g - mirror    (odd reflection about g)
     Neumann du/dn = q:      ghost = mirror + (2k+1) h q   (even reflection;
                             n the outward normal, h the grid spacing)
     periodic:               ghost = the unknown one period (n - 2r) away:
                             index i < r reads i + n - 2r, i >= n - r reads
                             i - (n - 2r); the period is the n - 2r unknowns.

   The mirrored ghosts are exact for solutions odd (Dirichlet) or even
   (Neumann) about the boundary, and second-order accurate in general,
   whatever the stencil's order: a stencil of order 4..12 keeps its order in
   the interior and is second order next to a Dirichlet or Neumann face.  The
   one-sided alternative (ghosts extrapolated by a polynomial of the stencil's
   order through g and the unknowns, or one-sided stencils at the first r
   unknowns) keeps the order everywhere but is less stable for the wave and
   heat updates; fdx does not implement it (docs/notes/stencil.md).

   Only the ghosts a star stencil reads are written: on each face the r
   layers over the unknowns of the other axes.  Corner and edge points of
   the frame, and the frame of faces with FDX_FACE_NONE, are not written. */
#ifndef FDX_BOUNDARY_H
#define FDX_BOUNDARY_H

#include "stencil.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum fdx_bc_kind {
    FDX_FACE_NONE = 0,  /* the face's ghosts are left alone (the caller's values) */
    FDX_FACE_DIRICHLET, /* u = value (or values[]) on the boundary */
    FDX_FACE_NEUMANN,   /* du/dn = value, n the outward normal */
    FDX_FACE_PERIODIC   /* both faces of the axis: the ghosts wrap around */
} fdx_bc_kind;

typedef struct fdx_bc_face {
    fdx_bc_kind kind;
    double value; /* Dirichlet: the boundary value g; Neumann: the outward derivative q */
    /* Dirichlet only, optional (NULL: `value` everywhere): one boundary value
       per point of the face, an array of the solution's rank, element type
       and shape except extent 1 on the face's axis, in the same memory the
       stencil reads (device copy on CUDA).  The value for the ghosts over
       unknown (i, j, k) is at that index with the face's axis set to 0.  It
       must stay alive and unchanged while the condition is in use (fdx keeps
       the pointer, not a copy). */
    fdx_array *values;
} fdx_bc_face;

/* A condition on every face: face[axis][side], side 0 the low face (index
   0), side 1 the high face.  Axes beyond the rank are ignored.  Zeroed: no
   conditions. */
typedef struct fdx_bc_desc {
    fdx_bc_face face[3][2];
} fdx_bc_desc;

typedef struct fdx_bc fdx_bc;

/* A boundary pass for arrays of `rank`, a stencil of radius `radius` (the
   ghost frame's width: fdx_stencil_radius) and grid spacing h (per axis;
   NULL: 1; used by Neumann).  Nothing is compiled until the first apply. */
FDX_API fdx_status fdx_bc_create(fdx_ctx *ctx, const fdx_bc_desc *bc, int rank, int radius, const double *h,
                                 fdx_dtype type, fdx_bc **out);
FDX_API void fdx_bc_destroy(fdx_bc **bc);

/* Fills the ghost frame of u (the array of unknowns and ghosts described
   above) in one kernel launch, asynchronously on `stream` on CUDA (device
   copy), now on the CPU (host copy).  Every axis with a condition needs at
   least 3 radius points (as many unknowns as the frame is wide). */
FDX_API fdx_status fdx_bc_apply(fdx_bc *bc, fdx_array *u, void *stream);

/* Makes every later fdx_stencil_apply of s run the boundary pass on u (its
   ghost frame is overwritten) before the interior kernel, on the same
   stream; NULL or a description without conditions: back to interior only.
   The grid spacing is the stencil's.  On CUDA the interior kernel may
   apply some faces itself without writing them into u's frame (those
   ghosts of u keep what they held; the outputs are the same): by default
   (environment FDX_BC_FOLD unset or 4, FDX_BC_FIX 3) the unrolled-column
   kernel computes the x faces' ghosts in its registers where its lanes hold
   them and the pass writes the other faces; FDX_BC_FOLD=0 runs the whole
   pass.  The other modes (experimental): 1, the interior kernel applies the x faces
   itself (Dirichlet values, Neumann, periodic: computed from the row it
   reads, and written into u's frame as the pass would write them) and the
   pass the y and z faces; 2, the unrolled-column kernel applies every face
   with a Dirichlet value, Neumann or periodic condition itself and nothing
   is written into u (its frame keeps what it held; other kernels and faces
   with values arrays still take the pass); 3, as 2 with the blocks that
   touch a face in a launch of their own and the others in a launch of the
   plain kernel; 4 with FDX_BC_FIX=51, the unrolled-column kernel computes
   the ghosts of the marching-axis faces and of the x faces (where its
   lanes hold them) into its registers and the pass writes the y faces into
   u.  The outputs are the same bit for bit in every mode. */
FDX_API fdx_status fdx_stencil_set_boundary(fdx_stencil *s, const fdx_bc_desc *bc);

/* Parses the command-line syntax of conditions for `rank` axes into bc:
   comma-separated items FACE=KIND, FACE one of x, y, z (both faces of the
   axis), x- / x+ (the low / high face; likewise y, z) or all; KIND one of
   periodic, dirichlet[:VALUE], neumann[:FLUX], none (VALUE and FLUX default
   to 0).  Later items override earlier ones, e.g.
   "all=dirichlet:0,x=periodic,z+=neumann:1.5".  Periodic needs both faces
   of its axis.  FDX_ERR_INVALID naming the bad item. */
FDX_API fdx_status fdx_bc_parse(const char *text, int rank, fdx_bc_desc *bc);

/* The description as text in that syntax (one item per face), for logs. */
FDX_API void fdx_bc_text(const fdx_bc_desc *bc, int rank, char *buf, size_t n);

#ifdef __cplusplus
}
#endif
#endif
