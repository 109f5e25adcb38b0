/* fdx_bc (internal): the boundary pass's kernel spec, its generator, and the
   partial application the distributed stencil uses (only the faces on the
   global boundary, over a unit's block). */
#ifndef FDX_BC_H
#define FDX_BC_H

#include "backends/fdx_backend.h"
#include "fdx/boundary.h"

/* What a face's code is, in the kernel (compile time). */
typedef enum fdx_bc_code {
    FDX_BCC_NONE = 0,
    FDX_BCC_DIRICHLET,       /* ghost = 2g - mirror, g a parameter */
    FDX_BCC_DIRICHLET_ARRAY, /* g from the face's array */
    FDX_BCC_NEUMANN,         /* ghost = mirror + d[k], d[k] = (2k+1) h q a parameter */
    FDX_BCC_PERIODIC         /* ghost = the point a period away */
} fdx_bc_code;

/* Everything the boundary kernel's source depends on; the shape, the ranges
   and the values are run-time parameters. */
typedef struct fdx_bc_kspec {
    int is_double, rank, radius;
    int code[6]; /* per face, axis * 2 + side */
    int wide;    /* a face holds 2^31 ghosts or more: 64-bit offsets in the face (else 32-bit, fewer
                    instructions for the divisions that find a ghost's coordinates) */
} fdx_bc_kspec;

/* Generated source (malloc'ed) of the boundary kernel: C with OpenMP (entry
   void fdx_bc_kernel(void **args), the pointers themselves in args[0..6],
   the parameter block's address in args[7]) or CUDA C (extern "C"
   __global__ fdx_bc_kernel(u, g0..g5, p), FDX_BC_THREADS threads a block,
   one thread per ghost). */
FDX_HIDDEN fdx_status fdx_bc_generate(const fdx_bc_kspec *ks, int cuda, char **source);
#define FDX_BC_ENTRY "fdx_bc_kernel"
#define FDX_BC_THREADS 256

/* The parameter block (host side; the generated struct fdx_bp matches it):
   n[3] the array's extents, lo/hi[3] the range of unknowns each face covers
   on the other axes, end[6] the cumulative ghost count through face f
   (threads of face f: [end[f-1], end[f])), then in the element type v[6]
   (2g per Dirichlet face) and d[6][radius] (Neumann offsets). */
typedef struct fdx_bc_params {
    unsigned char bytes[15 * 8 + 8 * (6 + 6 * FDX_STENCIL_MAX_ORDER / 2)];
    size_t size;
} fdx_bc_params;

/* Which faces a pass fills and over what: `faces` bit axis * 2 + side set
   for every face to fill; lo/hi the unknowns' range per axis (the extent
   of the other axes' faces).  The whole-array pass: every face with a
   condition, lo = r, hi = n - r. */
typedef struct fdx_bc_region {
    unsigned faces;
    int64_t lo[3], hi[3];
} fdx_bc_region;

/* The pass over a region (the distributed stencil: a unit's block, faces on
   the global boundary only). */
FDX_HIDDEN fdx_status fdx_bc_apply_region(fdx_bc *bc, fdx_array *u, const fdx_bc_region *reg, void *stream);
/* The whole-array pass over the faces in `faces` only (bit axis * 2 +
   side): a stencil whose kernel applies some faces itself skips those. */
FDX_HIDDEN fdx_status fdx_bc_apply_faces(fdx_bc *bc, fdx_array *u, unsigned faces, void *stream);
/* Face f's code (fdx_bc_code) and the values its ghosts use, in the element
   type, radius of them: Dirichlet 2g at [0], Neumann (2k+1) h q at [k]. */
FDX_HIDDEN int fdx_bc_face_code(const fdx_bc *bc, int face);
FDX_HIDDEN void fdx_bc_face_values(const fdx_bc *bc, int face, double *v);
/* The description the pass was made from. */
FDX_HIDDEN const fdx_bc_desc *fdx_bc_desc_of(const fdx_bc *bc);
/* Axes (bit mask) whose faces are periodic. */
FDX_HIDDEN unsigned fdx_bc_periodic_axes(const fdx_bc_desc *bc, int rank);
/* Validates a description for `rank` (kinds, periodic on both faces, values
   arrays on Dirichlet faces only).  Any rank-dependent array check is done
   at apply. */
FDX_HIDDEN fdx_status fdx_bc_check_desc(const fdx_bc_desc *bc, int rank);
/* The pass a stencil runs before each apply (fdx_stencil_set_boundary),
   NULL when none: paths that step without fdx_stencil_apply (temporal
   blocking) must not skip it. */
FDX_HIDDEN const fdx_bc *fdx_stencil_boundary_of(const fdx_stencil *s);
/* 1 when some face of the first `rank` axes has a condition. */
FDX_HIDDEN int fdx_bc_any(const fdx_bc_desc *bc, int rank);

#endif
