/* fdx_loop_gen_gpu: the loop kernel as CUDA C for NVRTC: sweeps in flight
   on blockIdx.y, the points of a plane on threads (grid-stride, or one warp
   per hyperplane line), reductions folded per block in shared memory into
   the block's own partial slot.  Built without CUDA too (fdx_loop_source
   and the NVRTC tests use it), so not named *_cuda.c, which CMake builds
   only with CUDA. */
#include "loops/fdx_loop_gen.h"
#include "loops/fdx_loop_diag.h"

/* The kernel's arguments after the arrays, as run_cuda (fdx_loop_run.c)
   passes them: scalars and integers by value, the step, the first sweep,
   the partial results. */
static const fdx_cg_param cuda_params[] = {
    {"fdx_scalars", "fdx_sc", 0}, {"fdx_ints", "fdx_ri", 0}, {"long long", "fdx_T", 0},
    {"long long", "fdx_s0", 0},   {"double *", "fdx_pv", 0}, {"long long *", "fdx_pl", 0},
};
/* The cooperative kernel's (geometry coop): the steps [T0, T1), the last
   sweep, the launch shape's blocks a sweep, the grid barrier's counter
   (fdx_bar[0]; the blocks' work counter in fdx_bar[2..3], zero between
   launches). */
static const fdx_cg_param coop_params[] = {
    {"fdx_scalars", "fdx_sc", 0}, {"fdx_ints", "fdx_ri", 0},   {"long long", "fdx_T0", 0},
    {"long long", "fdx_T1", 0},   {"long long", "fdx_smax", 0}, {"unsigned", "fdx_vgx", 0},
    {"unsigned *", "fdx_bar", 0}, {"double *", "fdx_pv", 0},    {"long long *", "fdx_pl", 0},
};

/* The grid-wide barrier of a cooperative launch (every block resident),
   cooperative_groups' algorithm on one counter that persists between
   launches: block 0 adds 2^31 - (blocks - 1), the others 1, so the top bit
   flips once all have arrived, whatever the counter held before. */
static const char grid_sync_cuda[] =
    "__device__ __forceinline__ void fdx_grid_sync(unsigned *fdx_bar)\n"
    "{\n"
    "    __syncthreads();\n"
    "    if (threadIdx.x == 0 && threadIdx.y == 0) {\n"
    "        const unsigned nb = gridDim.x * gridDim.y * gridDim.z;\n"
    "        const unsigned inc = blockIdx.x + blockIdx.y + blockIdx.z == 0 ? 0x80000000u - (nb - 1u) : 1u;\n"
    "        __threadfence();\n"
    "        const unsigned old = atomicAdd(fdx_bar, inc);\n"
    "        while (((old ^ *(volatile unsigned *)fdx_bar) & 0x80000000u) == 0) {\n"
    "        }\n"
    "        __threadfence();\n"
    "    }\n"
    "    __syncthreads();\n"
    "}";

/* The plane of a diagonal walk fits the 32-bit helper. */
static int narrow(const loop_geom *g) { return g->n[g->fast] * g->n[g->diag2] < ((int64_t)1 << 31); }

/* The enumerated axes other than skip0 and skip1 from fdx_q, axis order
   (the last one takes the rest). */
static void split_others(fdx_cg_node *b, const loop_geom *g, int skip0, int skip1)
{
    int others = 0, seen = 0;
    for (int d = 0; d < g->rank; d++) others += d != skip0 && d != skip1;
    for (int d = 0; d < g->rank; d++) {
        if (d == skip0 || d == skip1) continue;
        if (++seen == others) {
            fdx_cg_stmt(b, "const long long fdx_x%d = (long long)fdx_q", d);
        } else {
            fdx_cg_stmt(b, "const long long fdx_x%d = (long long)(fdx_q %% %lldu)", d, (long long)g->n[d]);
            fdx_cg_stmt(b, "fdx_q /= %lldu", (long long)g->n[d]);
        }
    }
    if (!others) fdx_cg_stmt(b, "(void)fdx_q");
}

/* A parallel loop on diagonal arrays: the plane of (fast, diag2) first,
   point by point in the order the arrays store it (diagonal after
   diagonal, fdx_diag_point), then the other axes, so consecutive threads
   touch consecutive elements and no thread is off the range. */
static void diag_cuda(fdx_cg_node *b, const loop_geom *g)
{
    int f = g->fast, s = g->diag2;
    long long nf = (long long)g->n[f], ns = (long long)g->n[s];
    int others = 0;
    for (int d = 0; d < g->rank; d++) others += d != f && d != s;
    if (others) {
        fdx_cg_stmt(b, "const long long fdx_r = (long long)(fdx_q %% %lldu)", nf * ns);
        fdx_cg_stmt(b, "fdx_q /= %lldu", nf * ns);
    } else {
        fdx_cg_stmt(b, "const long long fdx_r = (long long)fdx_q");
    }
    if (narrow(g)) {
        fdx_cg_stmt(b, "unsigned fdx_d0, fdx_d1");
        fdx_cg_stmt(b, "fdx_diag_point32((unsigned)fdx_r, %lldu, %lldu, &fdx_d0, &fdx_d1)", nf, ns);
    } else {
        fdx_cg_stmt(b, "long long fdx_d0, fdx_d1");
        fdx_cg_stmt(b, "fdx_diag_point(fdx_r, %lldLL, %lldLL, &fdx_d0, &fdx_d1)", nf, ns);
    }
    fdx_cg_stmt(b, "const long long fdx_x%d = (long long)fdx_d0, fdx_x%d = (long long)fdx_d1", f, s);
    split_others(b, g, f, s);
}

/* Every enumerated point on its own thread (grid-stride), the fast axis
   first so a warp walks it. */
static void flat_cuda(fdx_cg *cg, fdx_cg_node *at, const fdx_loop *l, const loop_geom *g)
{
    /* 32-bit arithmetic for the decomposition when the count allows (64-bit
       division costs tens of instructions on the GPU). */
    int64_t e = 1;
    for (int d = 0; d < g->rank; d++)
        if (fdx_loop_gen_enumerated(g, d)) e *= g->n[d];
    const char *it = e < ((int64_t)1 << 31) - (int64_t)g->block * 65536 ? "unsigned" : "unsigned long long";
    fdx_cg_node *b = fdx_cg_for(at, FDX_CG_LOOP,
                                "%s fdx_g = fdx_bx * (%s)blockDim.x + threadIdx.x; fdx_g < %lldu; fdx_g += (%s)fdx_gx * blockDim.x",
                                it, it, (long long)e, it);
    fdx_cg_stmt(b, "%s fdx_q = fdx_g", it);
    if (g->diag2 >= 0) {
        diag_cuda(b, g);
        fdx_loop_gen_point(cg, fdx_cg_scope(b), l, g, (acc_names){"fdx_acc", "", "fdx_accl", ""});
        return;
    }
    /* On a hyperplane the fast index starts where the line of the plane
       enters the box, so the valid points of a line are contiguous threads. */
    int shift = g->solved >= 0 && g->plane[g->fast] && g->solved != g->fast;
    int order[FDX_LOOP_MAX_RANK], no = 0;
    if (fdx_loop_gen_enumerated(g, g->fast)) order[no++] = g->fast;
    for (int d = 0; d < g->rank; d++)
        if (fdx_loop_gen_enumerated(g, d) && d != g->fast) order[no++] = d;
    for (int q = 0; q < no; q++) {
        int d = order[q];
        const char *name = shift && d == g->fast ? "fdx_r" : "fdx_x";
        if (q == no - 1) {
            fdx_cg_stmt(b, "const long long %s%d = (long long)fdx_q", name, d);
        } else {
            fdx_cg_stmt(b, "const long long %s%d = (long long)(fdx_q %% %lldu)", name, d, (long long)g->n[d]);
            fdx_cg_stmt(b, "fdx_q /= %lldu", (long long)g->n[d]);
        }
    }
    if (!no) fdx_cg_stmt(b, "(void)fdx_q");
    if (shift) {
        fdx_sb t = FDX_SB_INIT;
        fdx_sb_printf(&t, "long long fdx_x%d = fdx_t - %lldLL", g->fast, (long long)(g->n[g->solved] - 1));
        for (int d = 0; d < g->rank; d++)
            if (g->plane[d] && d != g->solved && d != g->fast) fdx_sb_printf(&t, " - fdx_x%d", d);
        fdx_cg_stmt(b, "%s", fdx_cg_text(cg, &t));
        fdx_cg_stmt(b, "fdx_x%d = (fdx_x%d > 0 ? fdx_x%d : 0) + fdx_r%d", g->fast, g->fast, g->fast, g->fast);
        fdx_cg_stmt(fdx_cg_if(b, "fdx_x%d >= %lldLL", g->fast, (long long)g->n[g->fast]), "continue");
    }
    fdx_loop_gen_solve(cg, b, g);
    fdx_loop_gen_point(cg, fdx_cg_scope(b), l, g, (acc_names){"fdx_acc", "", "fdx_accl", ""});
}

void fdx_loop_grid_chunks(const loop_geom *g, int64_t c[3])
{
    c[0] = (g->n[g->fast] + g->bx - 1) / g->bx;
    c[1] = g->march >= 0 ? (g->n[g->march] + (int64_t)g->by * g->ppt - 1) / ((int64_t)g->by * g->ppt) : 1;
    c[2] = 1;
    for (int d = 0; d < g->rank; d++)
        if (d != g->fast && d != g->march) c[2] *= g->n[d];
}

/* The grid kernel of a parallel loop (kernel_shape in fdx_loop_plan.c):
   block (x, y, z) and thread (tx, ty) take fast index x * bx + tx and the
   ppt consecutive points of the march axis from (y * by + ty) * ppt; z
   decomposes into the other axes once per chunk, not per point.  A chunk
   inside the range runs the points unrolled and unguarded, so loads the
   body repeats at neighbouring points (U(i,j+1) at j is U(i,j) at j+1) are
   loaded once; the last chunk of the march axis runs them guarded.  Every
   dimension strides over what the launch did not cover (y and z launch at
   most 65535 blocks; loops with reductions launch fewer). */
static void grid_cuda(fdx_cg *cg, fdx_cg_node *at, const fdx_loop *l, const loop_geom *g)
{
    int64_t c[3];
    fdx_loop_grid_chunks(g, c);
    int f = g->fast, m = g->march;
    const char *zt = c[2] < ((int64_t)1 << 32) - 65536 ? "unsigned" : "unsigned long long";
    fdx_cg_node *z = fdx_cg_for(at, FDX_CG_LOOP, "%s fdx_cz = blockIdx.z; fdx_cz < %lldu; fdx_cz += gridDim.z", zt,
                                (long long)c[2]);
    fdx_cg_stmt(z, "%s fdx_q = fdx_cz", zt);
    split_others(z, g, f, m);
    fdx_cg_node *y = fdx_cg_for(z, FDX_CG_LOOP, "unsigned fdx_cy = blockIdx.y; fdx_cy < %lldu; fdx_cy += gridDim.y",
                                (long long)c[1]);
    if (m >= 0) fdx_cg_stmt(y, "const long long fdx_m0 = (long long)(fdx_cy * %du + threadIdx.y) * %d", g->by, g->ppt);
    fdx_cg_node *x = fdx_cg_for(y, FDX_CG_LOOP, "unsigned fdx_cx = blockIdx.x; fdx_cx < %lldu; fdx_cx += gridDim.x",
                                (long long)c[0]);
    fdx_cg_stmt(x, "const long long fdx_x%d = (long long)fdx_cx * %d + threadIdx.x", f, g->bx);
    fdx_cg_node *in = fdx_cg_if(x, "fdx_x%d < %lldLL", f, (long long)g->n[f]);
    acc_names acc = {"fdx_acc", "", "fdx_accl", ""};
    if (m < 0) {
        fdx_loop_gen_point(cg, fdx_cg_scope(in), l, g, acc);
        return;
    }
    long long nm = (long long)g->n[m];
    fdx_cg_node *full = in, *tail = NULL;
    if (g->ppt > 1) {
        full = fdx_cg_if(in, "fdx_m0 + %d <= %lldLL", g->ppt, nm);
        tail = fdx_cg_else(full);
        fdx_cg_line(full, "#pragma unroll");
        full = fdx_cg_for(full, FDX_CG_LOOP, "int fdx_p = 0; fdx_p < %d; fdx_p++", g->ppt);
        tail = fdx_cg_for(tail, FDX_CG_LOOP_NOUNROLL, "int fdx_p = 0; fdx_p < %d && fdx_m0 + fdx_p < %lldLL; fdx_p++",
                          g->ppt, nm);
    } else {
        full = fdx_cg_if(in, "fdx_m0 < %lldLL", nm);
        fdx_cg_stmt(full, "const int fdx_p = 0");
    }
    fdx_cg_node *parts[2] = {full, tail};
    for (int q = 0; q < 2 && parts[q]; q++) {
        fdx_cg_node *b = fdx_cg_scope(parts[q]);
        fdx_cg_stmt(b, "const long long fdx_x%d = fdx_m0 + fdx_p", m);
        fdx_loop_gen_point(cg, fdx_cg_scope(b), l, g, acc);
    }
}

/* One line x_f + x_s = sum (an expression) of the (f, s) box on a warp:
   lanes step the fast index through the line's part inside the box, the
   other index follows (fdx_lane: the thread's lane). */
static void walk_line(fdx_cg *cg, fdx_cg_node *w, const fdx_loop *l, const loop_geom *g, int s, const char *sum)
{
    int f = g->fast;
    long long nf = (long long)g->n[f], ns = (long long)g->n[s];
    fdx_cg_stmt(w, "const long long fdx_f0 = %s > %lldLL ? %s - %lldLL : 0", sum, ns - 1, sum, ns - 1);
    fdx_cg_stmt(w, "const long long fdx_f1 = %s < %lldLL ? %s : %lldLL", sum, nf - 1, sum, nf - 1);
    fdx_cg_node *line = fdx_cg_for(w, FDX_CG_LOOP, "long long fdx_x%d = fdx_f0 + fdx_lane; fdx_x%d <= fdx_f1; fdx_x%d += 32", f, f, f);
    fdx_cg_stmt(line, "const long long fdx_x%d = %s - fdx_x%d", s, sum, f);
    fdx_loop_gen_point(cg, fdx_cg_scope(line), l, g, (acc_names){"fdx_acc", "", "fdx_accl", ""});
}

/* Hyperplane lines: warp w of the grid takes line w of the plane (the fast
   index runs along it, the solved index follows), lanes step along the line.
   The solved index is t minus the others, so an accessor's diagonal
   (fast + solved +- a constant) is the same for the whole line and the
   compiler computes each diagonal's start once per line, not per point. */
static void lines_cuda(fdx_cg *cg, fdx_cg_node *at, const fdx_loop *l, const loop_geom *g)
{
    int f = g->fast, s = g->solved, c = g->clip;
    long long nf = (long long)g->n[f], ns = (long long)g->n[s];
    int order[FDX_LOOP_MAX_RANK], no = 0;
    if (c >= 0) order[no++] = c; /* neighbouring warps on neighbouring lines */
    for (int d = 0; d < g->rank; d++)
        if (d != f && d != s && d != c) order[no++] = d;
    long long others = 1;
    for (int q = c >= 0 ? 1 : 0; q < no; q++) others *= (long long)g->n[order[q]];
    if (c >= 0) {
        fdx_cg_stmt(at, "const long long fdx_c0 = fdx_t - %lldLL > 0 ? fdx_t - %lldLL : 0", nf + ns - 2, nf + ns - 2);
        fdx_cg_stmt(at, "const long long fdx_c1 = fdx_t < %lldLL ? fdx_t : %lldLL", (long long)g->n[c] - 1,
                    (long long)g->n[c] - 1);
        fdx_cg_stmt(at, "const unsigned fdx_nc = fdx_c1 >= fdx_c0 ? (unsigned)(fdx_c1 - fdx_c0 + 1) : 0u");
    } else {
        fdx_cg_stmt(at, "const unsigned fdx_nc = 1u");
        fdx_cg_stmt(at, "const long long fdx_c0 = 0");
        fdx_cg_stmt(at, "(void)fdx_c0");
    }
    fdx_cg_stmt(at, "const unsigned fdx_lane = threadIdx.x & 31u");
    fdx_cg_node *w = fdx_cg_for(at, FDX_CG_LOOP,
                                "unsigned fdx_w = (fdx_bx * blockDim.x + threadIdx.x) >> 5; fdx_w < fdx_nc * %lluu; fdx_w += (fdx_gx * blockDim.x) >> 5",
                                (unsigned long long)others);
    fdx_cg_stmt(w, "unsigned fdx_q = fdx_w");
    for (int q = 0; q < no; q++) {
        int d = order[q];
        if (d == c) {
            fdx_cg_stmt(w, "const long long fdx_x%d = fdx_c0 + (long long)(fdx_q %% fdx_nc)", d);
            fdx_cg_stmt(w, "fdx_q /= fdx_nc");
        } else if (q == no - 1) {
            fdx_cg_stmt(w, "const long long fdx_x%d = (long long)fdx_q", d);
        } else {
            fdx_cg_stmt(w, "const long long fdx_x%d = (long long)(fdx_q %% %lldu)", d, (long long)g->n[d]);
            fdx_cg_stmt(w, "fdx_q /= %lldu", (long long)g->n[d]);
        }
    }
    fdx_cg_stmt(w, "(void)fdx_q");
    fdx_sb t = FDX_SB_INIT;
    fdx_sb_puts(&t, "const long long fdx_tk = fdx_t");
    for (int d = 0; d < g->rank; d++)
        if (g->plane[d] && d != f && d != s) fdx_sb_printf(&t, " - fdx_x%d", d);
    fdx_cg_stmt(w, "%s", fdx_cg_text(cg, &t));
    walk_line(cg, w, l, g, s, "fdx_tk");
}

/* The diagonal walk a warp per diagonal (FDX_LOOP_DIAG=lines): warp w
   takes diagonal w % (nf + ns - 1) of the (fast, diag2) plane at the
   other axes' point w / (nf + ns - 1), lanes step along it with the fast
   index ascending, as the arrays store it; the diagonal's table entries
   are the same for the whole line. */
static void diag_lines_cuda(fdx_cg *cg, fdx_cg_node *at, const fdx_loop *l, const loop_geom *g)
{
    int f = g->fast, s = g->diag2;
    long long nf = (long long)g->n[f], ns = (long long)g->n[s], nd = nf + ns - 1, others = 1;
    for (int d = 0; d < g->rank; d++)
        if (d != f && d != s) others *= (long long)g->n[d];
    fdx_cg_stmt(at, "const unsigned fdx_lane = threadIdx.x & 31u");
    fdx_cg_node *w = fdx_cg_for(at, FDX_CG_LOOP,
                                "unsigned long long fdx_w = (fdx_bx * (unsigned long long)blockDim.x + threadIdx.x) >> 5; fdx_w < %lluull; fdx_w += (fdx_gx * (unsigned long long)blockDim.x) >> 5",
                                (unsigned long long)(nd * others));
    fdx_cg_stmt(w, "const long long fdx_dd = (long long)(fdx_w %% %lluull)", (unsigned long long)nd);
    fdx_cg_stmt(w, "unsigned long long fdx_q = fdx_w / %lluull", (unsigned long long)nd);
    split_others(w, g, f, s);
    walk_line(cg, w, l, g, s, "fdx_dd");
}

/* Block reduction in shared memory; block (bid, sweep) owns its partial
   slot, so launches of later steps fold into it without atomics.  bid and
   the block count run over the whole launch grid (the grid kernel's are
   3D, the others' 1D with sweeps on y: fdx_bx of fdx_gx, the launch's
   block or the cooperative kernel's block of the step's shape). */
static void block_reduce(fdx_cg *cg, fdx_cg_node *k, const fdx_loop *l, const loop_geom *g)
{
    fdx_cg_shared(k, "double", "fdx_sv", fdx_cg_fmt(cg, "[%d]", g->block));
    fdx_cg_shared(k, "long long", "fdx_sl", fdx_cg_fmt(cg, "[%d]", g->block));
    if (g->grid) {
        fdx_cg_stmt(k, "const unsigned fdx_tid = threadIdx.y * blockDim.x + threadIdx.x");
        fdx_cg_stmt(k, "const size_t fdx_slot = ((size_t)fdx_s * (gridDim.x * gridDim.y * gridDim.z) + blockIdx.x + "
                       "(size_t)gridDim.x * (blockIdx.y + (size_t)gridDim.y * blockIdx.z)) * %d", l->nreds);
    } else {
        fdx_cg_stmt(k, "const unsigned fdx_tid = threadIdx.x");
        fdx_cg_stmt(k, "const size_t fdx_slot = ((size_t)fdx_s * fdx_gx + fdx_bx) * %d", l->nreds);
    }
    for (int r = 0; r < l->nreds; r++) {
        fdx_cg_stmt(k, "fdx_sv[fdx_tid] = fdx_acc%d", r);
        fdx_cg_stmt(k, "fdx_sl[fdx_tid] = fdx_accl%d", r);
        fdx_cg_barrier(k, NULL);
        fdx_cg_node *tree = fdx_cg_for(k, FDX_CG_LOOP, "unsigned fdx_h = %d; fdx_h > 0; fdx_h >>= 1", g->block / 2);
        fdx_cg_node *half = fdx_cg_if(tree, "fdx_tid < fdx_h");
        fdx_cg_stmt(half, "double fdx_v = fdx_sv[fdx_tid + fdx_h]");
        fdx_cg_stmt(half, "long long fdx_l = fdx_sl[fdx_tid + fdx_h]");
        fdx_loop_gen_combine(half, &l->red[r], "fdx_v", "fdx_l", "fdx_sv[fdx_tid]", "fdx_sl[fdx_tid]");
        fdx_cg_barrier(tree, NULL);
        fdx_loop_gen_combine(fdx_cg_if(k, "fdx_tid == 0"), &l->red[r], "fdx_sv[0]", "fdx_sl[0]",
                fdx_cg_fmt(cg, "fdx_pv[fdx_slot + %d]", r), fdx_cg_fmt(cg, "fdx_pl[fdx_slot + %d]", r));
        fdx_cg_barrier(k, NULL);
    }
}

/* The run-time integers the kernel reads: the lower bounds, then the
   origins up to the last shifted array's (the struct passed by value is
   only as large as that: launch parameters are copied on every launch). */
static int ints_used(const fdx_loop *l)
{
    int n = l->rank;
    for (int a = 0; a < l->nargs; a++)
        if (l->arg[a].shifted) n = LOOP_RI_ORIGIN + a * FDX_MAX_RANK + l->arg[a].array->rank;
    return n;
}

/* The cooperative kernel's walk (geometry coop): the steps as
   launch_steps (fdx_loop_run.c) launches them, a grid barrier between
   two; in each, the blocks of the step's launch shape (fdx_vb: block
   fdx_bx of sweep fdx_s).  coop 1: each taken from a work counter by
   whichever block is free, as the hardware hands out a launch's blocks
   (the next one taken ahead, behind the current one's work; each block's
   one overshoot a step counted in the base; the counter zeroed at the
   end, after a last barrier).  coop 2 (A/B): a fixed round robin.
   Returns the scope the block's work goes in. */
static fdx_cg_node *coop_steps(fdx_cg_node *k, const loop_geom *g)
{
    int dynamic = g->coop != 2;
    if (dynamic) {
        fdx_cg_stmt(k, "unsigned long long *const fdx_work = (unsigned long long *)(fdx_bar + 2)");
        fdx_cg_shared(k, "unsigned long long", "fdx_next", "");
        fdx_cg_stmt(k, "unsigned long long fdx_base = 0");
    }
    fdx_cg_node *T = fdx_cg_for(k, FDX_CG_LOOP_NOUNROLL, "long long fdx_T = fdx_T0; fdx_T < fdx_T1; fdx_T++");
    fdx_cg_stmt(T, "const long long fdx_slo = fdx_T > %lldLL ? (fdx_T - %lldLL + %lldLL) / %lldLL : 0",
                (long long)g->tmax, (long long)g->tmax, (long long)g->dist - 1, (long long)g->dist);
    fdx_cg_stmt(T, "const long long fdx_shi = fdx_T / %lldLL < fdx_smax ? fdx_T / %lldLL : fdx_smax",
                (long long)g->dist, (long long)g->dist);
    fdx_cg_stmt(T, "const unsigned long long fdx_nv = fdx_slo <= fdx_shi ? (unsigned long long)(fdx_shi - fdx_slo + 1) * fdx_vgx : 0ull");
    fdx_cg_node *v;
    if (dynamic) {
        fdx_cg_stmt(fdx_cg_if(T, "threadIdx.x == 0 && threadIdx.y == 0"), "fdx_next = atomicAdd(fdx_work, 1ull) - fdx_base");
        fdx_cg_barrier(T, NULL);
        v = fdx_cg_for(T, FDX_CG_LOOP_NOUNROLL, ";;");
        fdx_cg_stmt(v, "const unsigned long long fdx_vb = fdx_next");
        fdx_cg_barrier(v, NULL);
        fdx_cg_stmt(fdx_cg_if(v, "fdx_vb >= fdx_nv"), "break");
        fdx_cg_stmt(v, "unsigned long long fdx_pre = 0");
        fdx_cg_stmt(fdx_cg_if(v, "threadIdx.x == 0 && threadIdx.y == 0"), "fdx_pre = atomicAdd(fdx_work, 1ull) - fdx_base");
        fdx_cg_stmt(T, "fdx_base += fdx_nv + gridDim.x");
    } else {
        v = fdx_cg_for(T, FDX_CG_LOOP_NOUNROLL, "unsigned long long fdx_vb = blockIdx.x; fdx_vb < fdx_nv; fdx_vb += gridDim.x");
    }
    fdx_cg_stmt(fdx_cg_if(T, "fdx_T + 1 < fdx_T1"), "fdx_grid_sync(fdx_bar)");
    if (dynamic) {
        fdx_cg_stmt(k, "fdx_grid_sync(fdx_bar)");
        fdx_cg_stmt(fdx_cg_if(k, "blockIdx.x == 0 && threadIdx.x == 0 && threadIdx.y == 0"), "*fdx_work = 0ull");
    }
    fdx_cg_stmt(v, "const unsigned fdx_bx = (unsigned)(fdx_vb %% fdx_vgx), fdx_gx = fdx_vgx");
    fdx_cg_stmt(v, "const long long fdx_s = fdx_slo + (long long)(fdx_vb / fdx_vgx)");
    fdx_cg_node *work = fdx_cg_scope(v);
    if (dynamic) {
        /* after the block's work */
        fdx_cg_stmt(fdx_cg_if(v, "threadIdx.x == 0 && threadIdx.y == 0"), "fdx_next = fdx_pre");
        fdx_cg_barrier(v, NULL);
    }
    return work;
}

/* Scalars travel by value in one struct (no recompilation when they change).
   Block x of a launch is fdx_bx of fdx_gx for the enumerations and the
   reduction slots: the launch's own, or in the cooperative kernel the
   block of the step's launch shape it takes (coop_steps). */
void fdx_loop_gen_cuda_kernel(fdx_cg *cg, const fdx_loop *l, const loop_geom *g)
{
    fdx_cg_node *root = fdx_cg_root(cg);
    fdx_cg_line(root, "struct fdx_scalars { double v[%d]; };", l->nscalars > 0 ? l->nscalars : 1);
    fdx_cg_line(root, "struct fdx_ints { long long v[%d]; };", ints_used(l));
    if (g->diag2 >= 0 && !g->lines)
        fdx_cg_line(root, "%s", narrow(g) ? FDX_LOOP_DIAG_POINT_CUDA32 : FDX_LOOP_DIAG_POINT_CUDA);
    int coop = g->coop && !g->grid;
    if (coop) fdx_cg_line(root, "%s", grid_sync_cuda);
    fdx_cg_param p[FDX_LOOP_MAX_ARGS + NPARAMS(coop_params)];
    int n = coop ? fdx_loop_gen_params(l, cg, coop_params, NPARAMS(coop_params), p)
                 : fdx_loop_gen_params(l, cg, cuda_params, NPARAMS(cuda_params), p);
    fdx_cg_node *k = fdx_cg_kernel(root, "fdx_loop_kernel", p, n, g->block, 0);
    fdx_loop_gen_runtime_ints(k, l, "fdx_ri.v");
    for (int s = 0; s < l->nscalars; s++) fdx_cg_stmt(k, "const double %s = fdx_sc.v[%d]", l->scalar_name[s], s);
    if (coop) {
        k = coop_steps(k, g);
    } else {
        fdx_cg_stmt(k, "const unsigned fdx_bx = blockIdx.x, fdx_gx = gridDim.x");
        /* the grid kernel runs parallel loops: one sweep a launch, y is its own */
        fdx_cg_stmt(k, "const long long fdx_s = fdx_s0%s", g->grid ? "" : " + blockIdx.y");
    }
    fdx_cg_stmt(k, "(void)fdx_bx");
    fdx_cg_stmt(k, "(void)fdx_gx");
    fdx_cg_stmt(k, "const long long fdx_t = fdx_T - %lldLL * fdx_s", (long long)g->dist);
    fdx_cg_stmt(k, "(void)fdx_t");
    for (int r = 0; r < l->nreds; r++) {
        fdx_cg_stmt(k, "double fdx_acc%d = %s", r, fdx_loop_gen_slot_v(cg, &l->red[r]));
        fdx_cg_stmt(k, "long long fdx_accl%d = %s", r, fdx_loop_gen_slot_l(cg, &l->red[r]));
    }
    if (g->grid) grid_cuda(cg, k, l, g);
    else if (g->lines && g->diag2 >= 0) diag_lines_cuda(cg, k, l, g);
    else if (g->lines) lines_cuda(cg, k, l, g);
    else flat_cuda(cg, k, l, g);
    if (l->nreds) {
        block_reduce(cg, k, l, g);
    } else {
        fdx_cg_stmt(k, "(void)fdx_pv");
        fdx_cg_stmt(k, "(void)fdx_pl");
    }
}
