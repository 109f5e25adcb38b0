/* fdx_temporal (internal): temporally blocked heat / Jacobi steps.  One pass
   through memory advances u by k steps of out = u + alpha L u, bit for bit
   as k single steps of fdx_stencil_apply would (the same expression per
   point, built by fdx_stencil_emit_point).  The r-wide frame is the
   boundary: it is neither computed nor written, and inside a pass every
   time level keeps the input's frame values there (what k single steps
   between two arrays with one frame do).

   Both targets march the slowest axis with k time levels pipelined: level
   t of plane j is computed when level t-1 has planes j - r .. j + r, so
   level t runs t r planes behind the input.  Tiles of the other axes carry
   a halo of k r points and recompute it (overlapped tiles).
     CUDA: a block of tx x ty threads holds one tile column (halo included),
       level t's centre plane in shared memory (in-plane neighbours; two
       sets alternating by plane, so one barrier a plane) and its 2r + 1
       planes in registers (marching-axis neighbours); the inner
       (tx - 2kr) x (ty - 2kr) points are written.
     CPU: an OpenMP task is a tile (bx x by interior points and chunk planes)
       whose k levels live in per-thread rings of 2r + 1 planes of the tile
       plus halo, sized to stay in cache. */
#ifndef FDX_TEMPORAL_H
#define FDX_TEMPORAL_H

#include "stencil/fdx_stencil_impl.h"

#define FDX_TEMPORAL_MAX_K 8
/* Dynamic shared memory a CUDA block may hold (two sets of all levels'
   planes): the H100's opt-in limit (227 KB a block, 228 KB a
   multiprocessor, 1 KB reserved a block); tiles up to 112 KB run two
   blocks a multiprocessor, larger ones one (large tiles at low occupancy:
   less redundant halo).  The candidates also meet the device's own limit. */
#define FDX_TEMPORAL_MAX_SMEM (227 * 1024)

/* A temporally blocked kernel's configuration.  k, tx and ty are built into
   the CUDA source (k alone into the CPU's); chunk, bx and by are run-time. */
typedef struct fdx_temporal_cfg {
    int k;      /* steps per pass, 1..FDX_TEMPORAL_MAX_K */
    int tx, ty; /* CUDA: threads a block, the tile with its halo (ty 1 below rank 3) */
    int chunk;  /* planes of the marching axis a block (CUDA) or task (CPU) computes */
    int bx, by; /* CPU: interior points of a task's tile along x and (rank 3) y */
    int nq;     /* CUDA: points a thread (0 or 1: one); rank 3: consecutive rows
                   (the tile is tx x ty nq), rank 2: tx apart along x (tx nq) */
    int pd;     /* CUDA: input planes in flight a thread (0 or 1: the next one) */
    int un;     /* CUDA: 0 or 1 the plain plane loop (columns shifted a plane);
                   2r + 1 the rotated one: the body written out 2r + 1 times,
                   the column slots renamed instead of moved (FDX_TEMPORAL_CFG
                   "u3" at radius 1; auto times it only with FDX_TEMPORAL_ROTATE=1) */
    int fp;     /* CUDA: blocks whose tile lies inside the frame take, on planes
                   where every level is inside too, a body without the frame's
                   selects ("fp"; auto times it only with FDX_TEMPORAL_INNER=1) */
    int ax;     /* CUDA rank 2: a thread's nq points are adjacent along x (their
                   x neighbours inside the thread from registers; "ax"), else
                   tx apart */
    int direct; /* CPU: level 1 reads the input's planes in place, no ring copy of
                   level 0 (k - 1 rings; "direct" in the configuration text) */
    int skew;   /* CPU rank 3 heat: skewed slabs (fdx_temporal_gen_skew.c): full rows,
                   by rows a slab, level t of slab j on rows Y_j - t r ..
                   Y_{j+1} - t r (no halo recomputed); a thread marches its slabs
                   through every plane, a plane behind the slab below it
                   ("skew" in the configuration text) */
    int nt;     /* CPU skew: the last level's rows go to out through streaming
                   (non-temporal) stores from a row buffer: no read of out's
                   lines before they are written ("nt") */
    int v512;   /* CPU skew: compiled preferring 512-bit vectors (GCC's tuning for
                   Sapphire Rapids prefers 256; "v512"; the same expression, so
                   the same rounding: the benchmark verifies it bit for bit) */
    int nb;     /* CUDA: neighbour barriers instead of the block's barrier a plane
                   ("nb"; session 11): each warp arrives on its own mbarrier
                   after storing its centres and waits only for the warps whose
                   cells it reads (x: the warps beside it, y: the warp rows
                   within r rows), so warps drift apart instead of the whole
                   block stalling at every plane (one 1024-thread block a
                   multiprocessor: large tiles, less halo).  Needs tx a
                   multiple of 32. */
    int nr;     /* CUDA rank 3: named barriers a group of thread rows instead of
                   the block's barrier a plane ("nr"; session 11): a group
                   (ceil(ty / 8) rows: at most 8 groups) arrives (bar.arrive)
                   on the barriers of the groups within d of it (the groups
                   holding the rows within ceil(r / nq) rows; round the
                   block) and waits (bar.sync) on its own, two a group
                   alternating by plane (16 barriers): ty a multiple of the
                   group, 2d + 1 groups at least, tx a multiple of 32.  The
                   same decoupling as nb without its wait loop (which costs
                   ~10 registers). */
    int i32;    /* CUDA: 32-bit element offsets (b + plane x sm as int; one wide
                   multiply-add an address instead of 64-bit arithmetic) where
                   the array has fewer than 2^31 points ("i32"; session 11:
                   the ncu profile of the 2.148 kernel has the integer pipe
                   busiest, 19.4 instructions a point-level for 8 FP) */
    int lc;     /* CUDA: the input's next plane loaded by every thread on every
                   plane, the plane index clamped to the last one ("lc";
                   session 12): no per-point test a load (points outside the
                   array read the nearest point inside, planes past the last
                   the last one: values only frame points read, which keep
                   their input); 16.2 -> 15.4 SASS a point-level on the fast
                   body.  Measured only as a pair with pd3 (s12m: pd3 lc fw
                   2.548 against pd1 fw 2.465; pd1 lc fw 2.413) */
    int ll;     /* CUDA heat, rotated loop, one plane in flight: the next input
                   plane loaded straight into level 0's column slot that level
                   1 has just finished with ("ll"; session 12), not into a
                   prefetch register copied over at the next plane: one
                   register and one move a point fewer; lost (s12f: the load
                   has 3/4 of a plane to arrive, not a whole one) */
    int fw;     /* CUDA rank 3 with fp, tx a multiple of 32: the fast body on
                   every block, chosen a warp at a time ("fw"; session 12): a
                   warp none of whose points lies on the frame inside the
                   array takes the body without selects, the others a body
                   that selects on the frame alone; the frame planes take the
                   full one.  Why: 130 tiles at 512^3 run as one wave, so the
                   pass lasts as long as its slowest block, an edge block,
                   which fp alone leaves on the full body (~14% more SASS a
                   plane) */
} fdx_temporal_cfg;

/* nr: thread rows a barrier group, and the groups a group's points read
   on each side (fdx_temporal_cfg.nr). */
static inline int fdx_temporal_nr_group(const fdx_temporal_cfg *c) { return (c->ty + 7) / 8; }
static inline int fdx_temporal_nr_reach(const fdx_temporal_cfg *c, int radius)
{
    int nq = c->nq > 1 ? c->nq : 1, g = fdx_temporal_nr_group(c), rows = (radius + nq - 1) / nq;
    return (rows + g - 1) / g;
}

/* A CUDA configuration's points a thread and the tile's extent with its
   halo along x and (rank 3) y. */
static inline int fdx_temporal_points(const fdx_temporal_cfg *c) { return c->nq > 1 ? c->nq : 1; }
static inline int fdx_temporal_tile_x(const fdx_temporal_cfg *c, int rank)
{
    return rank == 3 ? c->tx : c->tx * fdx_temporal_points(c);
}
static inline int fdx_temporal_tile_y(const fdx_temporal_cfg *c, int rank)
{
    return rank == 3 ? c->ty * fdx_temporal_points(c) : 1;
}
#define FDX_TEMPORAL_MAX_POINTS 8
#define FDX_TEMPORAL_MAX_PD 4
#define FDX_TEMPORAL_MAX_UNROLL (2 * FDX_STENCIL_MAX_RADIUS + 1) /* the rotated loop: 2r + 1 */

/* The run-time block of the kernel besides struct fdx_p: mirrors struct
   fdx_tp of the generated code. */
typedef struct fdx_temporal_tp {
    long long bx, per, nthr; /* CPU: tile width, scratch values a thread, threads */
    long long pin;           /* CPU skew: pin each thread to a CPU of the process's
                                mask for the pass (FDX_TEMPORAL_CPU_PIN, default 1) */
} fdx_temporal_tp;

/* Whether the temporal kernels take this spec: HEAT, no coefficient array,
   no sponge, rank 2 or 3.  Fills why (for messages) when not. */
FDX_HIDDEN int fdx_temporal_supports(const fdx_stencil_kspec *ks, const char **why);

/* Generated source: C (entry void fdx_stencil_kernel(void **args) taking out,
   u, scratch, p, tp) or CUDA (extern "C" __global__ with the same
   parameters; scratch unused). */
FDX_HIDDEN fdx_status fdx_temporal_generate(const fdx_stencil_kspec *ks, const fdx_temporal_cfg *cfg, int cuda,
                                            char **source);

/* Whether a configuration runs this shape (its tile keeps points of its own
   after the halo, its planes fit shared memory, the grid CUDA's limits). */
FDX_HIDDEN int fdx_temporal_fits(const fdx_stencil_kspec *ks, const fdx_temporal_cfg *cfg, int cuda,
                                 const int64_t n3[3]);

/* CUDA launch geometry. */
FDX_HIDDEN fdx_status fdx_temporal_launch_dims(const fdx_stencil_kspec *ks, const fdx_temporal_cfg *cfg,
                                               const int64_t n3[3], fdx_launch_dims *dims);

/* CPU: scratch values one thread needs (k rings of 2r + 1 tile planes; k - 1
   with `direct`). */
FDX_HIDDEN int64_t fdx_temporal_scratch_per_thread(const fdx_stencil_kspec *ks, const fdx_temporal_cfg *cfg,
                                                   const int64_t n3[3]);

/* CPU: every value of scratch a pass of this configuration needs with
   `threads` threads (skew: the slabs' rings and their progress counters). */
FDX_HIDDEN int64_t fdx_temporal_scratch_values(const fdx_stencil_kspec *ks, const fdx_temporal_cfg *cfg,
                                               const int64_t n3[3], int threads);

/* CPU skew: a ring row's length in values: an x block (bx interior
   columns, at most the interior) and k r columns each side, padded to 64
   bytes and one 64-byte line more, so rows and planes are not 4 KB apart.
   The generated kernel computes the same. */
FDX_HIDDEN int64_t fdx_temporal_skew_row(const fdx_stencil_kspec *ks, const fdx_temporal_cfg *c, const int64_t n3[3]);

/* CPU skew: the planes a slab's edge ring (its top 2r rows, which the slab
   above reads) holds beyond 2r + 1: how far (in planes) a slab may run
   ahead of the one above.  Only the edge rows carry the slack, so the
   rings a core keeps hot stay 2r + 1 planes a level.  The default;
   FDX_TEMPORAL_CPU_SLACK sets it (fdx_temporal_skew_slack). */
#define FDX_TEMPORAL_SKEW_SLACK 4
FDX_HIDDEN int fdx_temporal_skew_slack(void);

/* CPU skew: the body of the kernel (after its parameters) into `k`. */
struct gen;
struct fdx_cg_node;
FDX_HIDDEN void fdx_temporal_emit_skew(struct fdx_cg_node *k, const struct gen *g, const fdx_temporal_cfg *c);

/* CPU: the cache bytes one thread's rings may take: a core's L2 (1 MiB
   where the C library cannot say), shared by the threads that run on one
   core where there are more threads than L2s (hyperthreads);
   FDX_TEMPORAL_CPU_CACHE overrides it (measurements). */
FDX_HIDDEN int64_t fdx_temporal_cpu_budget(int threads);
/* The skewed slabs' code variants the knobs ask for (part of the kernel's
   key): FDX_TEMPORAL_CODE_ALIGN the rows on cache lines
   (FDX_TEMPORAL_CPU_ALIGN, default on; emit_row_points),
   FDX_TEMPORAL_CODE_PREFETCH level 1 prefetching the input plane the next
   iteration reads (FDX_TEMPORAL_CPU_PREFETCH, default off),
   FDX_TEMPORAL_CODE_ROWS2 two rows a loop (FDX_TEMPORAL_CPU_ROWS2, default
   off), FDX_TEMPORAL_CODE_SPREAD every level prefetching a piece of that
   plane (FDX_TEMPORAL_CPU_PREFETCH=2), FDX_TEMPORAL_CODE_OSPREAD the last
   level's plane streamed out in pieces over the next iteration
   (FDX_TEMPORAL_CPU_STREAM=1, nt tiles), FDX_TEMPORAL_CODE_STATS time
   stamps of the waits and levels (FDX_TEMPORAL_CPU_STATS=1),
   FDX_TEMPORAL_CODE_BALANCE slabs whose first rows the host sets from the
   threads' last time stamps (FDX_TEMPORAL_CPU_BALANCE, default on),
   FDX_TEMPORAL_CODE_DYN slabs claimed item by item (a slab's iteration)
   from moving home ranges (FDX_TEMPORAL_CPU_DYN; replaces BALANCE); the
   edge rings' slack (fdx_temporal_skew_slack) in bits 8-15, DYN's N from
   bit 16 (FDX_TEMPORAL_CODE_SLACKOF, FDX_TEMPORAL_CODE_DYNOF). */
#define FDX_TEMPORAL_CODE_ALIGN 1
#define FDX_TEMPORAL_CODE_PREFETCH 2
#define FDX_TEMPORAL_CODE_ROWS2 4
#define FDX_TEMPORAL_CODE_SPREAD 8
#define FDX_TEMPORAL_CODE_OSPREAD 16
#define FDX_TEMPORAL_CODE_STATS 32
#define FDX_TEMPORAL_CODE_BALANCE 64
#define FDX_TEMPORAL_CODE_DYN 128
#define FDX_TEMPORAL_CODE_SLACKOF(code) (((code) >> 8) & 255)
#define FDX_TEMPORAL_CODE_DYNOF(code) ((code) >> 16)
FDX_HIDDEN int fdx_temporal_cpu_code(void);
FDX_HIDDEN int fdx_temporal_cpu_dyn(void);
/* Dynamic slabs: the candidates' slabs a thread (s12f: 64 slabs of 8 rows lost to 32 of 16). */
#define FDX_TEMPORAL_DYN_SLABS 2
/* Balanced slabs (tests): the first rows of the nslab slabs the next pass
   on ny rows starts from (slab 0 at r; each 2r .. 1.5 even shares). */
FDX_HIDDEN void fdx_temporal_balance_seed(int64_t ny, int64_t nslab, const long long *first_rows);
/* Dynamic slabs (tests): the team's home ranges (team + 1 bounds, 0 ..
   nslab) the next pass on ny rows starts from. */
FDX_HIDDEN void fdx_temporal_dyn_seed(int64_t ny, int64_t nslab, int team, const long long *bounds);

/* The candidates the tuner times for this spec and shape (at most `max`),
   deepest blocking first, the preferred tile first within a depth; with
   depth > 0 the tiles that fit at that depth only.  Returns their number. */
FDX_HIDDEN int fdx_temporal_candidates(const fdx_stencil_kspec *ks, const fdx_device_info *dev, int cuda,
                                       const int64_t n3[3], int depth, fdx_temporal_cfg *out, int max);

/* Planes per block (CUDA) or task (CPU) for a configuration on this shape. */
FDX_HIDDEN int fdx_temporal_chunk(const fdx_stencil_kspec *ks, const fdx_device_info *dev, int cuda,
                                  const int64_t n3[3], const fdx_temporal_cfg *c);

/* Reads "k4 32x8 q4 pd2 u3 chunk 64" (fdx_temporal_cfg_text's words, any
   subset with the threads; FDX_TEMPORAL_CFG), or for the CPU "k4 cpu
   510x34 chunk 170" (the tile's interior points). */
FDX_HIDDEN fdx_status fdx_temporal_cfg_parse(const char *text, fdx_temporal_cfg *c);

/* One pass of depth k (2..FDX_TEMPORAL_MAX_K) between arrays of one shape:
   out <- k steps from u (WAVE: outp <- level k - 1, from (up, u) and cf),
   the frame untouched, on `stream`: the forced tile or the candidates'
   first at depth k (FDX_ERR_UNSUPPORTED where none fits).  The deep-halo
   distributed steps (src/comm/fdx_dstencil.c) run it on each unit's block. */
FDX_HIDDEN fdx_status fdx_temporal_pass(fdx_stencil *s, fdx_array *out, fdx_array *u, fdx_array *outp, fdx_array *up,
                                        fdx_array *cf, int k, void *stream);

/* Text such as "temporal k4 32x32 chunk 64" or "temporal k4 cpu 256x32 chunk 64". */
FDX_HIDDEN void fdx_temporal_cfg_text(const fdx_temporal_cfg *cfg, int cuda, char *buf, size_t n);

#endif
