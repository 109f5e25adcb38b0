/* fdx_layout_plan: what a transform does, decided once on the host and
   carried out by the CPU loops (fdx_layout_cpu.c) or the CUDA kernels
   (fdx_layout_cuda.cu): merged axes, the kernel kind, tile shapes. */
#ifndef FDX_LAYOUT_PLAN_H
#define FDX_LAYOUT_PLAN_H

#include "core/fdx_error.h"
#include "fdx/layout.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Division by a run-time constant d >= 1 of numerators n < 2^31 with one
   multiply-high, an add and a shift (Granlund-Montgomery): q = (mulhi(n, mul)
   + n) >> shift.  Kernels decompose block and thread indices with these. */
typedef struct fdx_fastdiv {
    uint32_t d, mul, shift;
} fdx_fastdiv;
FDX_HIDDEN fdx_fastdiv fdx_fastdiv_make(uint32_t d);

typedef enum fdx_plan_kind {
    FDX_PLAN_COPY,   /* nothing moves relative to anything else: one flat copy */
    FDX_PLAN_ROWS,   /* the fastest axis stays: copy contiguous rows of nA words */
    FDX_PLAN_TILED,  /* the fastest axis moves: tiles through a padded buffer */
    FDX_PLAN_SQUARE  /* in place: swap the two fastest axes of square slices */
} fdx_plan_kind;

/* A permutation after merging axes that stay together and dropping axes of
   extent 1, in words of `word` bytes (whole kept rows widen the word up to 16
   bytes).  The kernels see a 2D tile problem: a unit of R contiguous words
   (R > 1 only when the fastest axis stays but its rows are short), axis A
   (the src axis after the unit, contiguous in src) and axis K (the src axis
   that becomes contiguous in dst), tiles of TA x TB along A and K, and up to
   FDX_MAX_RANK batch axes.  All strides are in words. */
typedef struct fdx_perm_plan {
    fdx_plan_kind kind;
    int word;                          /* bytes moved per word: 1, 2, 4, 8, 16 */
    int64_t count;                     /* words in the array */
    int rank;                          /* merged rank */
    int64_t n[FDX_MAX_RANK];           /* merged src extents */
    int s[FDX_MAX_RANK];               /* dst axis p is src axis s[p] */
    int64_t R, nA, nK, sA, sK, dA, dK; /* unit, extents and strides of A and K */
    int TA, TB;                        /* tile extents along A and K */
    int nb;                            /* batch axes: extent, src and dst stride */
    int64_t bn[FDX_MAX_RANK], bs[FDX_MAX_RANK], bd[FDX_MAX_RANK];
    /* The tile the CUDA tile kernel moves (TILED and ROWS plans): te[a] indices of
       every merged src axis a (1 off the tile), at most two axes cut
       (1 < te < n), one per side.  Either the 2D tile above written this way
       (te = R, TA, TB on axes 0, A, K) or, packed = 1, a tile grown from the
       fastest src axes and the fastest dst axes until both contiguous runs
       are long (choose_packed: a short fastest axis extended by the next
       axes of its side). */
    int packed;
    int64_t te[FDX_MAX_RANK];
    int64_t ss[FDX_MAX_RANK], ds[FDX_MAX_RANK]; /* strides of the merged src axes in src and dst */
    int cut[2];                                 /* the cut axes, -1 where none */
    /* CUDA tile kernel: sector-skewed 2D tile rows (see choose_skew), the
       sector in words (32 bytes / word), 0: none. */
    int skew;
    /* CUDA tile kernel (see choose_word_path): walked tiles (each thread's
       slots stepped by adds instead of divided; Walk in fdx_layout_cuda.cu),
       1 on 2D tiles; regs = 1: the register path instead
       of cp.async (chosen here so that launches read no knob). */
    int walk, regs;
    /* CUDA sub-word tile (elements narrower than the access word, the
       fastest axis moved with R = 1, or kept rows): the 2D tile (TA x TB on
       A and K) read and written as aligned words of `subword` bytes (4, 8,
       16), the elements exchanged through a buffer (see subword_read /
       subword_write in fdx_layout_cuda.cu); 0: the word kernel. */
    int subword;
    /* With subword = 16: the gather path (see gather_read in
       fdx_layout_cuda.cu): src runs copied into the buffer as 16-byte
       slots, dst run ends stored as aligned pieces; 2: also the write
       side's element positions through an offset table (gather_tab_fill);
       3: the table with buffer rows of an odd number of words, unswizzled
       (FDX_LAYOUT_GATHER=4, the default: 1, 2 or 3 by
       fdx_layout_cuda_gather_layout). */
    int gather;
    /* CUDA vector tile (1-, 2- and 4-byte words, the fastest axis moved;
       see choose_vec and fdx_layout_cuda_vec.cuh): vec = 1, the tile's A
       side is the first vga merged src axes (one flat index, contiguous in
       src), its K side the first vgk dst axes (one flat index, contiguous
       in dst); 16-byte accesses on both sides, the bytes rearranged in
       registers.  0: the sub-word or word kernel above. */
    int vec, vga, vgk;
    int vkfast; /* vector tile blocks in order of K tiles first (see choose_vec) */
    int vskew;  /* vector tile rows skewed so that each dst row segment starts on 16 bytes */
    /* CUDA direct transpose (see choose_direct and fdx_layout_cuda_direct.cuh):
       no tile, each thread's dst words found in src by index math, stored
       `direct` words (1, 2, 4) at a time; 0: the tile kernels above.  Set
       last: it overrides the kernel fields above, which stay as planned. */
    int direct;
    /* With direct: 0 the flat kernel (each thread's groups THREADS apart in
       dst order), q >= 1 the stepped one: each thread DIRECT_UNROLL
       consecutive indices of dst axis q, the dst position of src axis 0. */
    int dstep;
    /* With dstep: 0, or LB lanes of each warp along dst axis dstep (warp
       tiles of 32 / LB x LB threads; see StepSpec). */
    int dlanes;
    /* Vector tile: A groups M (1 or 2): tiles of 128 / M bytes along A by
       128 M elements along K, for A sides of at most 64 bytes (see VecTile
       in fdx_layout_cuda_vec.cuh and choose_vec); 0 or 1: one. */
    int vgroups;
    /* Vector row copy (vec with a ROWS plan): W = 1, 2, 4, 8 dst words a
       thread over the rows' words numbered flat (vec_rows_flat); 0 or the
       session 8 layout (a power of two of threads a row, one word each). */
    int vrows;
    /* Interleave (vec = 1, a TILED plan; fdx_layout_cuda_ilv.cuh): the
       dst-fastest axis s[0] of K = vilv elements (K bytes <= 8) followed
       by src's contiguous axis 0: dst[k + K i] = src_k[i], line by line,
       16-byte accesses on both sides, no buffer; 0: none. */
    int vilv;
    /* Narrow-K register transpose (vec = 1, a TILED plan;
       fdx_layout_cuda_nk.cuh): dst's fastest axis s[0] of K = vnk elements
       making one 4- or 8-byte word, dst's next axis s[1] not src's axis 0: each
       thread transposes 16 bytes of A from K src rows in registers and
       stores 4-byte words; 0: none. */
    int vnk;
    /* Vector row copy: rows taken in dst order (consecutive blocks write
       neighbouring dst rows, so the partial sectors where rows meet are
       completed while in L2) instead of src order; 0: src order. */
    int vrdst;
    /* Unit gather (vec = 1, a TILED plan with R > 1; fdx_layout_cuda_ug.cuh):
       units of R = vug elements (R word <= 8 bytes), A = axis 1, K = s[1]:
       each thread reads 16 units of one src row and stores them at their
       dst places, no buffer; 0: none. */
    int vug;
} fdx_perm_plan;

/* Plans dst[axis p] = src[axis perm[p]] for src extents shape.  align is the
   common alignment in bytes of both buffers (limits word widening); in_place
   asks for FDX_PLAN_SQUARE and fails with a message when it is not possible. */
FDX_HIDDEN fdx_status fdx_perm_plan_make(size_t elem, int rank, const int64_t *shape, const int *perm,
                                         size_t align, int in_place, fdx_perm_plan *p);

/* Turns a plan into FDX_PLAN_SQUARE (returns 1) when it is a batch of square
   2D transposes that can run in place; returns 0 and leaves it otherwise. */
FDX_HIDDEN int fdx_perm_plan_square(fdx_perm_plan *p);

/* Batches of Rx x Ry planes moved to (undiag = 0) or from (undiag = 1) the
   diagonal arrangement `diag` (main or anti). */
typedef struct fdx_diag_plan {
    int word;
    int64_t rx, ry, planes;
    fdx_diag diag;
    int undiag;
} fdx_diag_plan;

/* The index function in the form kernels evaluate: offset = sum over logical
   axes a of idx[a] * stride[a], plus, with a diagonal state, the diagonal
   offset of (idx[ax], idx[ay]) in the Rx x Ry plane (ay reflected for main). */
typedef struct fdx_index_map {
    int rank;
    int64_t stride[FDX_MAX_RANK]; /* 0 for the two diagonal axes */
    fdx_diag diag;
    int ax, ay;
    int64_t rx, ry;
} fdx_index_map;
FDX_HIDDEN void fdx_index_map_make(const fdx_layout *l, const int64_t *shape, fdx_index_map *m);

/* A box of the logical array copied to or from a dense buffer. */
typedef struct fdx_box_plan {
    int word;
    int64_t count;               /* elements in the box */
    fdx_index_map map;
    int64_t lo[FDX_MAX_RANK], box[FDX_MAX_RANK];
    int put;                     /* 1: plain -> array, 0: array -> plain */
} fdx_box_plan;

/* Backends: CPU loops and CUDA kernels, same plans, identical results. */
FDX_HIDDEN fdx_status fdx_layout_cpu_perm(void *dst, const void *src, const fdx_perm_plan *p);
FDX_HIDDEN fdx_status fdx_layout_cpu_diag(void *dst, const void *src, const fdx_diag_plan *p);
FDX_HIDDEN fdx_status fdx_layout_cpu_box(void *array, void *plain, const fdx_box_plan *p);
FDX_HIDDEN fdx_status fdx_layout_cuda_perm(void *dst, const void *src, const fdx_perm_plan *p, void *stream);
FDX_HIDDEN fdx_status fdx_layout_cuda_diag(void *dst, const void *src, const fdx_diag_plan *p, void *stream);
FDX_HIDDEN fdx_status fdx_layout_cuda_box(void *array, void *plain, const fdx_box_plan *p, void *stream);
/* The CUDA tile kernel's index math run on the host (TILED and ROWS plans,
   host buffers): tests check it without a GPU. */
FDX_HIDDEN fdx_status fdx_layout_cuda_emulate(void *dst, const void *src, const fdx_perm_plan *p);
/* The gather variant of a sub-word gather plan (FDX_LAYOUT_GATHER=4, the
   default): 1 where the write table does not fit, else 3 (odd rows) unless
   their write side has more than twice the swizzled rows' shared-memory
   bank conflicts (counted on the host over the first warps), then 2
   (without CUDA: 1). */
FDX_HIDDEN int fdx_layout_cuda_gather_layout(const fdx_perm_plan *p);

#ifdef __cplusplus
}
#endif
#endif
