/* fdx_stencil_steps on the CUDA backend: the temporally blocked kernels
   against single applies on the device, bit for bit (orders 2-8, ranks 2
   and 3, float and double, odd shapes, depths 2-4 with a shallower last
   pass), for each strategy: small forced tiles of one point a thread and of
   several points a thread with planes in flight (many blocks, halos across
   blocks and frames), the latter with the rotated plane loop (un = 2r + 1),
   float's large 64x16 q4 tile in rank 3, neighbour barriers (nb: small
   tiles of two warps a row, float's 64x16 q3; wave too), and the
   candidates' tile; wave (fdx_stencil_wave_steps,
   orders 2 and 8, with and without coefficients) likewise; then a depth no
   tile takes.
   Auto on large shapes is verified by tools/gpu-check.d/temporal.sh.
   FDX_TEST_SANITIZER=1 (tools/gpu-check under compute-sanitizer): orders 2
   and 8 only, one precision each, depths 2 and 3, smaller shapes, every
   strategy still run (racecheck in well under a minute).
   FDX_TEST_TEMPORAL_NEW=1: only session 12's cases (lc, ll, fw: clamped
   and late loads, the fast body a warp at a time) and the candidates'
   first tile, orders 2 and 8: a short device check.  Skipped without a GPU. */
#include "stencil/fdx_temporal.h"
#include "temporal_check.h"

#include <stdlib.h>

static fdx_ctx *ctx;

int main(void)
{
    if (fdx_cuda_device_count() == 0) return fdx_test_skip("test_temporal_gpu", "no CUDA device");
    ctx = fdx_test_ctx("cuda");
    if (!ctx) return fdx_test_skip("test_temporal_gpu", "no CUDA context");
    const char *san_env = getenv("FDX_TEST_SANITIZER");
    const int san = san_env && san_env[0] == '1';
    const char *new_env = getenv("FDX_TEST_TEMPORAL_NEW");
    const int only_new = new_env && new_env[0] == '1';
    uint64_t seed = 0x6e7;
    for (int rank = 2; rank <= 3; rank++)
        for (int order = 2; order <= 8; order += san || only_new ? 6 : 2)
            for (int dbl = 0; dbl < 2; dbl++) {
                if (san && dbl != (order == 8)) continue;
                int r = order / 2;
                int64_t shape[3] = {rank == 3 ? 67 + r : 301 + r, rank == 3 ? 45 + r : 173, 39 + 2 * r};
                if (san) shape[0] = rank == 3 ? 37 + r : 131 + r, shape[1] = rank == 3 ? 29 + r : 1, shape[2] = 15 + 2 * r;
                fdx_dtype dt = dbl ? FDX_FLOAT64 : FDX_FLOAT32;
                for (int k = 2; k <= (san ? 3 : 4); k++) {
                    char what[128];
                    /* Small tiles: one point a thread, then three (rank 3:
                       rows; rank 2: along x) with planes in flight. */
                    for (int v = 0; v < (only_new ? 0 : order == 2 ? 3 : 2); v++) { /* rotated: order 2 only (run time) */
                        /* v 2: three points, the rotated plane loop (session 8) */
                        const int pts = v ? 3 : 1;
                        fdx_temporal_cfg tile = {k, 2 * k * r + (rank == 3 ? 6 : 30), rank == 3 ? 2 * k * r + 4 : 1, 5,
                                                 0, 0, 0, 0};
                        if (v == 2) tile.un = 2 * r + 1;
                        tile.fp = v == 2 && k == 3; /* inner blocks' fast body, rotated */
                        tile.ax = rank == 2 && v == 1 && k == 3; /* adjacent points along x */
                        if (pts > 1) {
                            tile.nq = pts, tile.pd = 2;
                            if (rank == 3) tile.ty = (2 * k * r + 4 + pts - 1) / pts;
                            else tile.tx = (2 * k * r + 30 + pts - 1) / pts;
                        }
                        fdx_stencil_kspec kt = {dbl, rank, r, FDX_UPDATE_HEAT, 0, rank == 3, 0};
                        int64_t t3[3];
                        fdx_stencil_shape3(rank, shape, t3);
                        /* (order 8 at depth 4: the tile's shared planes may not fit) */
                        if (!fdx_temporal_fits(&kt, &tile, 1, t3)) continue;
                        fdx_temporal_force_tile(&tile);
                        snprintf(what, sizeof what, "rank %d order %d %s k %d, small tiles q%d%s%s", rank, order,
                                 dbl ? "double" : "float", k, pts, v == 2 ? " rotated" : "", tile.ax ? " ax" : "");
                        tc_case(ctx, rank, order, dt, shape, 2 * k + 1, k, &seed, what);
                        fdx_temporal_force_tile(NULL);
                    }
                    /* Float's large tile (64x16 q4: 64x64 with its halo,
                       over 112 KB of shared planes, one block a
                       multiprocessor). */
                    fdx_temporal_cfg big = {k, 64, 16, 0, 0, 0, 4, 1, 0};
                    fdx_stencil_kspec kb = {dbl, rank, r, FDX_UPDATE_HEAT, 0, rank == 3, 0};
                    int64_t b3[3];
                    fdx_stencil_shape3(rank, shape, b3);
                    big.chunk = fdx_temporal_chunk(&kb, fdx_ctx_device(ctx), 1, b3, &big);
                    if (rank == 3 && !dbl && (!san || k == 2) && !only_new && fdx_temporal_fits(&kb, &big, 1, b3)) {
                        fdx_temporal_force_tile(&big);
                        snprintf(what, sizeof what, "rank 3 order %d float k %d, tile 64x16 q4", order, k);
                        tc_case(ctx, rank, order, dt, shape, 2 * k + 1, k, &seed, what);
                        fdx_temporal_force_tile(NULL);
                    }
                    /* Neighbour barriers (nb, session 11): two warps a row of
                       threads, two rows a thread in rank 3 (radius 3-4: warp
                       rows two apart), chunks of 5 planes (blocks starting at
                       odd and even planes); float's 64x16 q3 (a 64x48 tile,
                       one 1024-thread block a multiprocessor); v 2: named
                       barriers a row (nr, rank 3: at most 8 rows of threads,
                       enough points a thread for the halo). */
                    for (int v = 0; v < (rank == 3 ? 3 : 1); v++) {
                        fdx_temporal_cfg nt = {k, 64, rank == 3 ? (2 * k * r + 4 + 1) / 2 : 1, 5, 0, 0, rank == 3 ? 2 : 1, 1};
                        nt.nb = v < 2;
                        if (v == 1) nt.ty = 16, nt.nq = 3, nt.chunk = fdx_temporal_chunk(&kb, fdx_ctx_device(ctx), 1, b3, &nt);
                        if (v == 2) { /* two rows a thread: up to 16 rows of threads, in groups */
                            nt.nr = 1, nt.nq = (2 * k * r + 4 + 15) / 16;
                            if (nt.nq < 2) nt.nq = 2;
                            nt.ty = (2 * k * r + 4 + nt.nq - 1) / nt.nq;
                            while (nt.ty % fdx_temporal_nr_group(&nt) ||
                                   nt.ty / fdx_temporal_nr_group(&nt) < 2 * fdx_temporal_nr_reach(&nt, r) + 1)
                                nt.ty++;
                            /* with the rotated loop and the fast body at depth 3,
                               32-bit element offsets (i32) at 2 and 4 */
                            if (k == 3) nt.un = 2 * r + 1, nt.fp = 1;
                            else nt.i32 = 1;
                        }
                        if (only_new || (v == 1 && (dbl || (san && k != 2))) || !fdx_temporal_fits(&kb, &nt, 1, b3)) continue;
                        fdx_temporal_force_tile(&nt);
                        snprintf(what, sizeof what, "rank %d order %d %s k %d, %s %dx%d q%d%s%s", rank, order,
                                 dbl ? "double" : "float", k, nt.nr ? "nr" : "nb", nt.tx, nt.ty, nt.nq, nt.un ? " u fp" : "",
                                 nt.i32 ? " i32" : "");
                        tc_case(ctx, rank, order, dt, shape, 2 * k + 1, k, &seed, what);
                        fdx_temporal_force_tile(NULL);
                    }
                    /* Session 12: clamped loads (lc), late loads into the
                       freed column slot (ll; rotated loop) and in rank 3 the
                       fast body a warp at a time (fw): two warps a row of
                       threads, two rows a thread, chunks of 5 planes (rank
                       2: 64 threads, one point); v 1: float's 64x16 q3 u3
                       fp i32 lc ll fw at order 2 (auto's kernel), chunks
                       as the tuner sizes them. */
                    for (int v = 0; v < (rank == 3 && order == 2 && !dbl ? 2 : 1); v++) {
                        fdx_temporal_cfg lt = {k, 64, rank == 3 ? (2 * k * r + 4 + 1) / 2 : 1, 5, 0, 0, rank == 3 ? 2 : 1, 1};
                        lt.un = 2 * r + 1, lt.lc = 1, lt.ll = 1, lt.i32 = k % 2 == 0;
                        lt.fp = lt.fw = rank == 3;
                        if (v == 1) lt.ty = 16, lt.nq = 3, lt.i32 = 1, lt.chunk = fdx_temporal_chunk(&kb, fdx_ctx_device(ctx), 1, b3, &lt);
                        if (!fdx_temporal_fits(&kb, &lt, 1, b3)) continue;
                        fdx_temporal_force_tile(&lt);
                        snprintf(what, sizeof what, "rank %d order %d %s k %d, %dx%d q%d u fp%s lc ll%s", rank, order,
                                 dbl ? "double" : "float", k, lt.tx, lt.ty, lt.nq, lt.i32 ? " i32" : "", lt.fw ? " fw" : "");
                        tc_case(ctx, rank, order, dt, shape, 2 * k + 1, k, &seed, what);
                        fdx_temporal_force_tile(NULL);
                    }
                    snprintf(what, sizeof what, "rank %d order %d %s k %d", rank, order, dbl ? "double" : "float", k);
                    fdx_temporal_cfg c[1];
                    int64_t n3[3];
                    fdx_stencil_shape3(rank, shape, n3);
                    fdx_stencil_kspec ks = {dbl, rank, r, FDX_UPDATE_HEAT, 0, rank == 3, 0};
                    fdx_device_info dev = {0};
                    dev.sm_count = 132;
                    if (fdx_temporal_candidates(&ks, &dev, 1, n3, k, c, 1) == 1)
                        tc_case(ctx, rank, order, dt, shape, 7, k, &seed, what);
                    /* Wave (two time levels; a coefficient array at odd
                       depths): small tiles of three points, the candidates'. */
                    if (order == 4 || order == 6) continue;
                    fdx_temporal_cfg wt = {k, 2 * k * r + (rank == 3 ? 6 : 30), 1, 5, 0, 0, 3, 2};
                    if (rank == 3) wt.ty = (2 * k * r + 4 + 2) / 3;
                    else wt.tx = (2 * k * r + 30 + 2) / 3;
                    /* Only what fits (order 8 at depth 4 in rank 3 has no tile:
                       fdx_stencil_wave_steps refuses it before any work). */
                    fdx_stencil_kspec kw = {dbl, rank, r, FDX_UPDATE_WAVE, k % 2, 0, 0};
                    for (int rot = 0; rot < (order == 2 ? 3 : 2); rot++) {
                        /* rot 1: the rotated plane loop (session 8), at order
                           2 only; rot 2 (the last): neighbour barriers (nb),
                           64 threads a row of the block */
                        const int nbw = rot == (order == 2 ? 2 : 1);
                        wt.un = rot && !nbw ? 2 * r + 1 : 0;
                        wt.fp = rot && !nbw; /* with the inner blocks' fast body */
                        wt.ax = rot && !nbw && rank == 2; /* and adjacent points */
                        wt.nb = nbw;
                        if (nbw) wt.tx = 64, wt.nq = rank == 3 ? 3 : 1, wt.ty = rank == 3 ? (2 * k * r + 4 + 2) / 3 : 1;
                        wt.i32 = nbw; /* and 32-bit element offsets */
                        if (only_new || !fdx_temporal_fits(&kw, &wt, 1, n3)) continue;
                        fdx_temporal_force_tile(&wt);
                        snprintf(what, sizeof what, "wave rank %d order %d %s k %d, small tiles q%d%s", rank, order,
                                 dbl ? "double" : "float", k, wt.nq, nbw ? " nb" : rot ? " rotated" : "");
                        tc_wave_case(ctx, rank, order, dt, shape, 2 * k + 1, k, k % 2, &seed, what);
                        fdx_temporal_force_tile(NULL);
                    }
                    kw.coef = (k + 1) % 2;
                    snprintf(what, sizeof what, "wave rank %d order %d %s k %d", rank, order, dbl ? "double" : "float", k);
                    if (!only_new && fdx_temporal_candidates(&kw, &dev, 1, n3, k, c, 1) == 1)
                        tc_wave_case(ctx, rank, order, dt, shape, 7, k, (k + 1) % 2, &seed, what);
                }
            }
    /* Order 8 in rank 3 at depth 8: a halo of 32 leaves no tile. */
    {
        fdx_stencil_desc d;
        fdx_stencil_desc_laplacian(&d, 3, 8, NULL);
        d.update = FDX_UPDATE_HEAT, d.alpha = 0.01;
        fdx_stencil *s = NULL;
        fdx_array *u = NULL, *t = NULL;
        int64_t shape[3] = {64, 64, 64};
        CHECK_OK(fdx_stencil_create(ctx, &d, FDX_FLOAT64, &s));
        CHECK_OK(fdx_array_create(ctx, FDX_FLOAT64, 3, shape, FDX_ON_DEVICE, &u));
        CHECK_OK(fdx_array_create(ctx, FDX_FLOAT64, 3, shape, FDX_ON_DEVICE, &t));
        if (s && u && t) CHECK_FAILS(fdx_stencil_steps(s, u, t, 8, 8, NULL), FDX_ERR_UNSUPPORTED);
        fdx_array_destroy(&u);
        fdx_array_destroy(&t);
        fdx_stencil_destroy(&s);
    }
    fdx_ctx_destroy(&ctx);
    return fdx_test_finish("test_temporal_gpu");
}
