/* fdx_stencil_gen_plane: the plane tile (FDX_SV_PLANE) as fdx_cg IR.

   The classic high-order scheme (a 2D block over x-y marching in z): the
   block keeps one plane's tile in shared memory, with r-wide x and y halos
   (no corners: a star never reads them), and each thread its column of
   2r + 1 values in registers.  Unlike the asynchronous march, whose ring
   holds planes k .. k + r (r + 1 + pd stages, so a high order's big tile
   leaves room for one block a multiprocessor), here only plane k is
   resident: each thread stores its own centre value (plane k, which came
   into its column r planes ago) into the tile, so every value is read from
   global memory once; only the halo is copied, by cp.async, pd planes
   ahead into pd more stages; and the column's newest planes (k + r + 1 ..
   k + r + pd) are loads in flight in registers.  pd + 1 stages of a small
   footprint: large tiles (fewer halo values a point through L2) with
   several blocks a multiprocessor and few registers a thread (vec 1 or 2).
   Rank 2 is the same kernel with one row a block marching in y (no y halo:
   the shared pieces take it from g->ry, 0 there).

   One barrier a plane: before it, each thread has stored plane k's centre
   and waited for plane k's halo copies; after it every thread has left plane
   k - 1, whose stage ((k + pd) mod (pd + 1)) the copies of plane k + pd
   overwrite.  A stage is next written by a centre store pd + 1 planes
   later, after the barrier that follows every thread's reads of it.

   Names as in fdx_stencil_gen_async.c; q<lane>_<t>, t > 2r, the column's
   planes in flight. */
#include "stencil/fdx_stencil_gen.h"

void fdx_stencil_emit_plane(fdx_cg_node *at, gen *g)
{
    const fdx_stencil_cfg *c = g->cfg;
    const int r = g->r, V = g->vec, nr = g->nr, P = c->pd;
    fdx_stencil_async_geom a;
    fdx_stencil_async_geom_of(g->ks, c, &a);
    const int S = a.stages;
    fdx_cg_node *k = fdx_stencil_async_head(at, g, &a);
    fdx_stencil_async_columns(k, g, &a);
    /* The halo of planes k0 .. k0 + pd - 1, one commit group each (empty
       past the last plane, so that the count of groups stays uniform); plane
       k0 + j goes to stage j. */
    fdx_cg_node *pro = fdx_cg_for(k, FDX_CG_LOOP, "int i = 0; i < %d; i++", P);
    fdx_stencil_async_issue(fdx_cg_if(pro, "k0 + i < k1"), g, &a, "u + (k0 + i) * sm", "i", 0);
    fdx_cg_async_commit(pro);
    fdx_cg_stmt(k, "const int tc = (ty * %d + %d) * %d + %d + tx * %d", nr, g->ry, a.width, a.rx, V);
    fdx_cg_node *m = fdx_cg_for(k, FDX_CG_LOOP, "long long k = k0; k < k1; k++");
    fdx_cg_stmt(m, "const int t = (int)(k - k0)");
    fdx_cg_line(m, "real *T_ = tile + (t %% %d) * %zu + tc; /* plane k's stage */", S, a.stage_elems);
    /* Each row: the column's newest plane from the loads in flight, the
       next load, plane k's centre into the tile. */
    for (int i = 0; i < nr; i++) {
        fdx_cg_node *rs = fdx_stencil_async_row_open(m, g, &a, i, 0);
        for (int v = 0; v < V; v++) {
            fdx_sb s = FDX_SB_INIT;
            for (int t = 2 * r; t < 2 * r + P; t++) fdx_sb_printf(&s, "%sq%d_%d = q%d_%d;", t > 2 * r ? " " : "", v, t, v, t + 1);
            fdx_cg_line(rs, "%s", fdx_cg_text(g->cg, &s));
        }
        fdx_stencil_vload(fdx_cg_if(rs, "col && k + %d < k1", P), g, "q", fdx_cg_fmt(g->cg, "_%d", 2 * r + P), "u",
                          fdx_cg_fmt(g->cg, "base + (k + %d) * sm", r + P), FDX_CG_LDG);
        fdx_cg_store(fdx_cg_if(rs, "col"), (fdx_cg_lanes){"q", fdx_cg_fmt(g->cg, "_%d", r), V, 0},
                     V > 1 ? "realv" : NULL, fdx_cg_fmt(g->cg, "T_ + %d", i * a.width), FDX_CG_PLAIN);
    }
    fdx_cg_async_wait(m, P - 1, "plane k's halo has landed");
    fdx_cg_barrier(m, "... and every centre is stored; plane k - 1's stage is free");
    fdx_stencil_async_issue(fdx_cg_if(m, "k + %d < k1", P), g, &a, fdx_cg_fmt(g->cg, "u + (k + %d) * sm", P),
                            fdx_cg_fmt(g->cg, "(t + %d) %% %d", P, S), 0);
    fdx_cg_async_commit(m);
    for (int i = 0; i < nr; i++) fdx_stencil_async_row_plane(fdx_stencil_async_row_open(m, g, &a, i, 1), g, &a);
    fdx_cg_async_wait(k, -1, NULL);
}
