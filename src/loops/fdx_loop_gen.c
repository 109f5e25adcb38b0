/* fdx_loop_gen: whole kernels around a loop body, built as kernel IR
   (src/codegen) and printed as C with OpenMP for the CPU backend and CUDA C
   for NVRTC.  Both walk the same geometry (steps T; sweeps in flight; plane
   t = T - dist*s; the solved axis from t) and index arrays through the
   layout engine's index expressions, so one body runs unchanged under every
   layout.  Reductions are statements over the accumulator slots, folded as
   fdx_loop_red_fold does (wrapping integers, first location on _LOC ties),
   in a fixed order, so results do not depend on thread timing; an OpenMP
   reduction clause or atomics would lose that, so the IR's generic pieces
   (loops, conditions, shared memory, barriers) carry them. */
#include "loops/fdx_loop_impl.h"
#include "codegen/fdx_cg.h"
#include "layout/fdx_layout_emit.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BLOCK 256

static const char *ctype(fdx_dtype t)
{
    switch (t) {
    case FDX_FLOAT32: return "float";
    case FDX_FLOAT64: return "double";
    case FDX_INT32: return "int";
    case FDX_INT64: return "long long";
    default: return "unsigned char";
    }
}

static const char *red_ctype(fdx_dtype t)
{
    return t == FDX_INT32 ? "int" : t == FDX_INT64 ? "long long" : t == FDX_FLOAT32 ? "float" : "double";
}

static const char *int_literal(fdx_cg *cg, int64_t v)
{
    if (v == INT64_MIN) return "(-9223372036854775807LL - 1)";
    return fdx_cg_fmt(cg, "(%lldLL)", (long long)v);
}

/* The reduction variable's starting value in the body, in its own type. */
static const char *body_identity(fdx_cg *cg, const loop_red *r)
{
    int is_int = r->type == FDX_INT32 || r->type == FDX_INT64;
    int max = r->op == FDX_REDUCE_MAX || r->op == FDX_REDUCE_MAXLOC, min = r->op == FDX_REDUCE_MIN || r->op == FDX_REDUCE_MINLOC;
    if (is_int && (max || min)) {
        if (r->type == FDX_INT32) return max ? "(-2147483647 - 1)" : "2147483647";
        return max ? "(-9223372036854775807LL - 1)" : "9223372036854775807LL";
    }
    if (is_int) return int_literal(cg, r->op == FDX_REDUCE_PROD ? 1 : r->op == FDX_REDUCE_AND ? -1 : 0);
    return fdx_cg_fmt(cg, "(%s)(%.17g)", red_ctype(r->type), fdx_loop_red_identity(r->op));
}

/* Initial values of the double and 64-bit accumulator slots. */
static const char *slot_identity_v(fdx_cg *cg, const loop_red *r)
{
    return fdx_cg_fmt(cg, "(%.17g)", fdx_loop_red_identity(r->op));
}

static const char *slot_identity_l(fdx_cg *cg, const loop_red *r) { return int_literal(cg, fdx_loop_red_identity_int(r)); }

/* Folds source (sv, sl) into destination (dv, dl), as fdx_loop_red_fold:
   integer reductions other than _LOC in the 64-bit slot (wrapping
   arithmetic, no undefined overflow), _LOC variants keep the first
   location in sequential order on ties, the others compare values alone. */
static void combine(fdx_cg_node *at, const loop_red *r, const char *sv, const char *sl, const char *dv, const char *dl)
{
    fdx_reduce op = r->op;
    if (fdx_loop_red_is_int(r)) {
        switch (op) {
        case FDX_REDUCE_SUM: fdx_cg_stmt(at, "%s = (long long)((unsigned long long)%s + (unsigned long long)(%s))", dl, dl, sl); break;
        case FDX_REDUCE_PROD: fdx_cg_stmt(at, "%s = (long long)((unsigned long long)%s * (unsigned long long)(%s))", dl, dl, sl); break;
        case FDX_REDUCE_MAX: fdx_cg_stmt(fdx_cg_if(at, "(%s) > %s", sl, dl), "%s = (%s)", dl, sl); break;
        case FDX_REDUCE_MIN: fdx_cg_stmt(fdx_cg_if(at, "(%s) < %s", sl, dl), "%s = (%s)", dl, sl); break;
        case FDX_REDUCE_AND: fdx_cg_stmt(at, "%s &= (%s)", dl, sl); break;
        default: fdx_cg_stmt(at, "%s |= (%s)", dl, sl); break;
        }
        return;
    }
    switch (op) {
    case FDX_REDUCE_SUM: fdx_cg_stmt(at, "%s += %s", dv, sv); return;
    case FDX_REDUCE_PROD: fdx_cg_stmt(at, "%s *= %s", dv, sv); return;
    case FDX_REDUCE_MAX: fdx_cg_stmt(fdx_cg_if(at, "%s > %s", sv, dv), "%s = %s", dv, sv); return;
    case FDX_REDUCE_MIN: fdx_cg_stmt(fdx_cg_if(at, "%s < %s", sv, dv), "%s = %s", dv, sv); return;
    default: break;
    }
    const char *cmp = op == FDX_REDUCE_MAXLOC ? ">" : "<";
    fdx_cg_node *then = fdx_cg_if(at, "%s %s %s || (%s == %s && %s < %s)", sv, cmp, dv, sv, dv, sl, dl);
    fdx_cg_stmt(then, "%s = %s", dv, sv);
    fdx_cg_stmt(then, "%s = %s", dl, sl);
}

/* The index of an array on a diagonal layout, as a table lookup: entry d is
   the offset of diagonal d's first point minus that point's x (from the
   layout engine's fdx_layout_offset; inside a diagonal x ascends), so an
   access is table[x + y] + x + the other axes' strides.  Branch-free, and
   when x + y is the same for a whole line (hyperplanes) the compiler loads
   the entry once per line.  32-bit arithmetic when the array allows. */
static const char *diag_type(const fdx_array *arr)
{
    return fdx_array_count(arr) < ((int64_t)1 << 31) ? "int" : "long long";
}

static void diag_table(fdx_cg *cg, const fdx_array *arr, const char *name, int cuda)
{
    const fdx_layout *lay = &arr->layout;
    int ax = lay->perm[0], ay = lay->perm[1];
    int64_t rx = arr->shape[ax], ry = arr->shape[ay], idx[FDX_MAX_RANK] = {0};
    fdx_sb t = FDX_SB_INIT;
    fdx_sb_printf(&t, "%sconst %s fdx_dg_%s[%lld] = {", cuda ? "static __device__ " : "static ", diag_type(arr), name,
                  (long long)(rx + ry - 1));
    for (int64_t d = 0; d < rx + ry - 1; d++) {
        int64_t x = d > ry - 1 ? d - (ry - 1) : 0, y = d - x;
        idx[ax] = x;
        idx[ay] = lay->diag == FDX_DIAG_MAIN ? ry - 1 - y : y;
        fdx_sb_printf(&t, "%s%lld", d ? "," : "", (long long)(fdx_layout_offset(lay, arr->shape, idx) - x));
    }
    fdx_sb_puts(&t, "};");
    fdx_cg_line(fdx_cg_root(cg), "%s", fdx_cg_text(cg, &t));
}

static void diag_index(fdx_sb *t, const fdx_array *arr, const char *name, const char *const *nm)
{
    const fdx_layout *lay = &arr->layout;
    int ax = lay->perm[0], ay = lay->perm[1];
    int64_t ry = arr->shape[ay], idx[FDX_MAX_RANK] = {0};
    const char *it = diag_type(arr);
    int64_t o0 = fdx_layout_offset(lay, arr->shape, idx);
    fdx_sb_printf(t, "(fdx_dg_%s[(%s)%s + ", name, it, nm[ax]);
    if (lay->diag == FDX_DIAG_MAIN) fdx_sb_printf(t, "%lld - (%s)%s] + (%s)%s", (long long)(ry - 1), it, nm[ay], it, nm[ax]);
    else fdx_sb_printf(t, "(%s)%s] + (%s)%s", it, nm[ay], it, nm[ax]);
    for (int x = 0; x < arr->rank; x++) {
        if (x == ax || x == ay || arr->shape[x] == 1) continue;
        idx[x] = 1;
        fdx_sb_printf(t, " + (%s)%s * %lld", it, nm[x], (long long)(fdx_layout_offset(lay, arr->shape, idx) - o0));
        idx[x] = 0;
    }
    fdx_sb_puts(t, ")");
}

/* The top of the source: the layout helpers and, per array, its diagonal
   table and the accessor macro NAME(i, j, ...) the body uses. */
static fdx_status prelude(fdx_cg *cg, const fdx_loop *l, int cuda)
{
    fdx_cg_node *root = fdx_cg_root(cg);
    fdx_cg_comment(root, "generated by fdx for loop '%s'", l->name);
    if (!cuda) {
        fdx_cg_line(root, "#include <math.h>");
        fdx_cg_line(root, "#include <stdlib.h>");
        fdx_cg_line(root, "#include <limits.h>");
    }
    fdx_cg_raw(root, fdx_layout_emit_helpers());
    for (int a = 0; a < l->nargs; a++) {
        const fdx_array *arr = l->arg[a].array;
        const char *np[FDX_MAX_RANK];
        fdx_sb t = FDX_SB_INIT;
        if (arr->layout.diag != FDX_DIAG_NONE) diag_table(cg, arr, l->arg[a].name, cuda);
        fdx_sb_printf(&t, "#define %s(", l->arg[a].name);
        for (int x = 0; x < arr->rank; x++) {
            /* ALIGN shift: the body's index minus the array's origin */
            if (l->arg[a].shifted) np[x] = fdx_cg_fmt(cg, "((fdx_x%d) - fdx_o_%s_%d)", x, l->arg[a].name, x);
            else np[x] = fdx_cg_fmt(cg, "(fdx_x%d)", x);
            fdx_sb_printf(&t, "%sfdx_x%d", x ? ", " : "", x);
        }
        fdx_sb_printf(&t, ") (fdx_p_%s[", l->arg[a].name);
        if (arr->layout.diag != FDX_DIAG_NONE) {
            diag_index(&t, arr, l->arg[a].name, np);
        } else {
            fdx_status st = fdx_layout_emit_index_sb(&arr->layout, arr->shape, np, &t);
            if (st != FDX_OK) {
                fdx_sb_free(&t);
                return st;
            }
        }
        fdx_sb_puts(&t, "])");
        fdx_cg_line(root, "%s", fdx_cg_text(cg, &t));
    }
    return FDX_OK;
}

/* The CPU kernel's arguments after the arrays, as run_cpu (fdx_loop_run.c)
   passes them: scalars, sweeps, the results, the run-time integers. */
static const fdx_cg_param cpu_params[] = {
    {"const double *", "fdx_sc", 0}, {"const int", "fdx_sweeps", 0}, {"double *", "fdx_rv", 0},
    {"long long *", "fdx_rl", 0},    {"const long long *", "fdx_ri", 0},
};
/* The CUDA kernel's (run_cuda's launch): scalars and integers by
   value, the step, the first sweep, the partial results. */
static const fdx_cg_param cuda_params[] = {
    {"fdx_scalars", "fdx_sc", 0}, {"fdx_ints", "fdx_ri", 0}, {"long long", "fdx_T", 0},
    {"long long", "fdx_s0", 0},   {"double *", "fdx_pv", 0}, {"long long *", "fdx_pl", 0},
};
#define NPARAMS(t) ((int)(sizeof t / sizeof *t))

/* The kernel's parameters: the arrays (fdx_p_<name>, restrict pointers),
   then `more`; returns their count (p has room for FDX_LOOP_MAX_ARGS + nmore). */
static int kernel_params(const fdx_loop *l, fdx_cg *cg, const fdx_cg_param *more, int nmore, fdx_cg_param *p)
{
    for (int a = 0; a < l->nargs; a++)
        p[a] = (fdx_cg_param){fdx_cg_fmt(cg, "%s%s", l->arg[a].access == FDX_READ ? "const " : "", ctype(l->arg[a].array->dtype)),
                              fdx_cg_fmt(cg, "fdx_p_%s", l->arg[a].name), 1};
    for (int i = 0; i < nmore; i++) p[l->nargs + i] = more[i];
    return l->nargs + nmore;
}

/* The accumulator slots of reduction r: the double slot's name is
   <v_pre>r<v_suf>, the 64-bit slot's <l_pre>r<l_suf>. */
typedef struct acc_names {
    const char *v_pre, *v_suf, *l_pre, *l_suf;
} acc_names;

/* One iteration at offsets fdx_x<d>, into `at` (a loop's body): the
   indices, the reduction variables, the body under its own line numbers,
   the fold into the accumulators. */
static void point(fdx_cg *cg, fdx_cg_node *at, const fdx_loop *l, const loop_geom *g, acc_names acc)
{
    for (int d = 0; d < l->rank; d++) {
        if (l->dir[d] > 0) fdx_cg_stmt(at, "const long long %s = fdx_lo%d + fdx_x%d", l->index[d], d, d);
        else fdx_cg_stmt(at, "const long long %s = fdx_lo%d + (%lldLL - fdx_x%d)", l->index[d], d, (long long)g->n[d] - 1, d);
        fdx_cg_stmt(at, "(void)%s", l->index[d]);
    }
    int loc = 0;
    for (int r = 0; r < l->nreds; r++) loc |= fdx_loop_red_is_loc(l->red[r].op);
    if (loc) {
        fdx_sb t = FDX_SB_INIT;
        int64_t stride = 1;
        for (int d = 0; d < l->rank; d++) {
            fdx_sb_printf(&t, "%sfdx_x%d * %lldLL", d ? " + " : "", d, (long long)stride);
            stride *= g->n[d];
        }
        fdx_cg_stmt(at, "const long long fdx_lin = %s", fdx_cg_text(cg, &t));
    }
    for (int r = 0; r < l->nreds; r++)
        fdx_cg_stmt(at, "%s %s = %s", red_ctype(l->red[r].type), l->red[r].name, body_identity(cg, &l->red[r]));
    fdx_cg_node *body = fdx_cg_scope(at);
    fdx_cg_line(body, "#line 1 \"%s body\"", l->name);
    fdx_cg_raw(body, fdx_cg_fmt(cg, "%s\n", l->body));
    fdx_cg_line(body, "#line 1 \"%s generated\"", l->name);
    for (int r = 0; r < l->nreds; r++) {
        const char *sl = fdx_loop_red_is_loc(l->red[r].op) ? "fdx_lin" : l->red[r].name;
        combine(at, &l->red[r], fdx_cg_fmt(cg, "(double)%s", l->red[r].name), sl,
                fdx_cg_fmt(cg, "%s%d%s", acc.v_pre, r, acc.v_suf), fdx_cg_fmt(cg, "%s%d%s", acc.l_pre, r, acc.l_suf));
    }
}

/* The solved axis from t, skipping points off the index box. */
static void solve(fdx_cg *cg, fdx_cg_node *at, const loop_geom *g)
{
    if (g->solved < 0) return;
    fdx_sb t = FDX_SB_INIT;
    fdx_sb_printf(&t, "const long long fdx_x%d = fdx_t", g->solved);
    for (int d = 0; d < g->rank; d++)
        if (g->plane[d] && d != g->solved) fdx_sb_printf(&t, " - fdx_x%d", d);
    fdx_cg_stmt(at, "%s", fdx_cg_text(cg, &t));
    fdx_cg_stmt(fdx_cg_if(at, "fdx_x%d < 0 || fdx_x%d >= %lldLL", g->solved, g->solved, (long long)g->n[g->solved]),
                "continue");
}

static int enumerated(const loop_geom *g, int d) { return d != g->solved && d != g->seq; }

/* The range's lower bounds and the shifted arrays' origins from the
   run-time integers `ri` (an array or a struct's member). */
static void runtime_ints(fdx_cg_node *at, const fdx_loop *l, const char *ri)
{
    for (int d = 0; d < l->rank; d++) fdx_cg_stmt(at, "const long long fdx_lo%d = %s[%d]", d, ri, d);
    for (int a = 0; a < l->nargs; a++)
        if (l->arg[a].shifted)
            for (int x = 0; x < l->arg[a].array->rank; x++)
                fdx_cg_stmt(at, "const long long fdx_o_%s_%d = %s[%d]", l->arg[a].name, x, ri,
                            LOOP_RI_ORIGIN + a * FDX_MAX_RANK + x);
}

/* Prints the tree into *out (the caller's source text). */
static fdx_status finish(fdx_cg *cg, const fdx_loop *l, char **out)
{
    fdx_sb src = FDX_SB_INIT;
    fdx_status st = fdx_cg_print(cg, &src);
    fdx_cg_destroy(cg);
    if (st == FDX_OK) return fdx_sb_take(&src, "generated loop", out);
    fdx_sb_free(&src);
    return fdx_fail(st, "generating loop '%s': %s", l->name, fdx_last_error());
}

/* Thread-private accumulators per sweep live in one block allocated before
   the parallel region and are folded in thread order afterwards, so the
   result does not depend on which thread finished first. */
static void cpu_kernel(fdx_cg *cg, const fdx_loop *l, const loop_geom *g)
{
    int nr = l->nreds;
    fdx_cg_param p[FDX_LOOP_MAX_ARGS + NPARAMS(cpu_params)];
    int k = kernel_params(l, cg, cpu_params, NPARAMS(cpu_params), p);
    fdx_cg_line(fdx_cg_root(cg), "#include <omp.h>");
    fdx_cg_node *f = fdx_cg_kernel_by_address(fdx_cg_root(cg), "fdx_loop_entry", "fdx_args", p, k, 0);
    runtime_ints(f, l, "fdx_ri");
    for (int s = 0; s < l->nscalars; s++) fdx_cg_stmt(f, "const double %s = fdx_sc[%d]", l->scalar_name[s], s);
    fdx_cg_stmt(f, "const long long fdx_steps = %lldLL + %lldLL * (fdx_sweeps - 1)", (long long)g->tmax, (long long)g->dist);
    fdx_cg_stmt(f, "const int fdx_nth = omp_get_max_threads()");
    fdx_cg_stmt(f, "const size_t fdx_per = (size_t)fdx_sweeps * %d", nr);
    fdx_cg_stmt(f, "double *fdx_av = malloc(sizeof(double) * (fdx_per * fdx_nth + 1))");
    fdx_cg_stmt(f, "long long *fdx_al = malloc(sizeof(long long) * (fdx_per * fdx_nth + 1))");
    fdx_cg_node *oom = fdx_cg_if(f, "!fdx_av || !fdx_al");
    fdx_cg_stmt(oom, "free(fdx_av)");
    fdx_cg_stmt(oom, "free(fdx_al)");
    fdx_cg_stmt(oom, "fdx_rl[fdx_per] = -2");
    fdx_cg_stmt(oom, "return");
    fdx_cg_node *q = fdx_cg_for(f, FDX_CG_LOOP, "size_t q = 0; q < fdx_per * fdx_nth; q++");
    fdx_cg_stmt(q, "fdx_al[q] = LLONG_MAX");
    fdx_cg_line(q, "switch (q %% %d) {", nr ? nr : 1);
    for (int r = 0; r < nr; r++)
        fdx_cg_line(q, "case %d: fdx_av[q] = %s; fdx_al[q] = %s; break;", r, slot_identity_v(cg, &l->red[r]),
                    slot_identity_l(cg, &l->red[r]));
    fdx_cg_line(q, "default: fdx_av[q] = 0;");
    fdx_cg_line(q, "}");
    fdx_cg_line(f, "#pragma omp parallel num_threads(fdx_nth)");
    fdx_cg_node *par = fdx_cg_scope(f);
    fdx_cg_stmt(par, "double *fdx_mv = fdx_av + fdx_per * omp_get_thread_num()");
    fdx_cg_stmt(par, "(void)fdx_mv");
    fdx_cg_stmt(par, "long long *fdx_ml = fdx_al + fdx_per * omp_get_thread_num()");
    fdx_cg_stmt(par, "(void)fdx_ml");
    fdx_cg_node *step = fdx_cg_for(par, FDX_CG_LOOP, "long long fdx_T = 0; fdx_T <= fdx_steps; fdx_T++");
    fdx_cg_stmt(step, "long long fdx_slo = fdx_T > %lldLL ? (fdx_T - %lldLL + %lldLL - 1) / %lldLL : 0", (long long)g->tmax,
                (long long)g->tmax, (long long)g->dist, (long long)g->dist);
    fdx_cg_stmt(step, "long long fdx_shi = fdx_T / %lldLL", (long long)g->dist);
    fdx_cg_stmt(fdx_cg_if(step, "fdx_shi > fdx_sweeps - 1"), "fdx_shi = fdx_sweeps - 1");
    /* Threads share the sweeps in flight and the enumerated axes other than
       the fast one; the fast one is the inner loop (sequential for ACROSS),
       shared itself only when nothing else is. */
    int nouter = 0;
    for (int d = 0; d < g->rank; d++) nouter += enumerated(g, d) && d != g->fast;
    int share_fast = !nouter && g->seq != g->fast;
    fdx_cg_node *at = fdx_cg_for(step, share_fast ? FDX_CG_LOOP : FDX_CG_LOOP_WORKSHARE,
                                 "long long fdx_s = fdx_slo; fdx_s <= fdx_shi; fdx_s++");
    for (int d = g->rank - 1; d >= 0; d--)
        if (enumerated(g, d) && d != g->fast)
            at = fdx_cg_for(at, FDX_CG_LOOP, "long long fdx_x%d = 0; fdx_x%d < %lldLL; fdx_x%d++", d, d, (long long)g->n[d], d);
    fdx_cg_stmt(at, "const long long fdx_t = fdx_T - %lldLL * fdx_s", (long long)g->dist);
    fdx_cg_stmt(at, "(void)fdx_t");
    solve(cg, at, g);
    fdx_cg_node *inner = fdx_cg_for(at, share_fast ? FDX_CG_LOOP_WORKSHARE : FDX_CG_LOOP,
                                    "long long fdx_x%d = 0; fdx_x%d < %lldLL; fdx_x%d++", g->fast, g->fast,
                                    (long long)g->n[g->fast], g->fast);
    acc_names acc = {fdx_cg_fmt(cg, "fdx_mv[fdx_s * %d + ", nr), "]", fdx_cg_fmt(cg, "fdx_ml[fdx_s * %d + ", nr), "]"};
    point(cg, inner, l, g, acc);
    fdx_cg_barrier(step, NULL);
    fdx_cg_node *h = fdx_cg_for(f, FDX_CG_LOOP, "int fdx_h = 0; fdx_h < fdx_nth; fdx_h++");
    fdx_cg_node *hs = fdx_cg_for(h, FDX_CG_LOOP, "int fdx_s = 0; fdx_s < fdx_sweeps; fdx_s++");
    for (int r = 0; r < nr; r++)
        combine(hs, &l->red[r], fdx_cg_fmt(cg, "fdx_av[fdx_per * fdx_h + fdx_s * %d + %d]", nr, r),
                fdx_cg_fmt(cg, "fdx_al[fdx_per * fdx_h + fdx_s * %d + %d]", nr, r),
                fdx_cg_fmt(cg, "fdx_rv[fdx_s * %d + %d]", nr, r), fdx_cg_fmt(cg, "fdx_rl[fdx_s * %d + %d]", nr, r));
    fdx_cg_stmt(f, "free(fdx_av)");
    fdx_cg_stmt(f, "free(fdx_al)");
}

/* Every enumerated point on its own thread (grid-stride), the fast axis
   first so a warp walks it. */
static void flat_cuda(fdx_cg *cg, fdx_cg_node *at, const fdx_loop *l, const loop_geom *g)
{
    /* 32-bit arithmetic for the decomposition when the count allows (64-bit
       division costs tens of instructions on the GPU). */
    int64_t e = 1;
    for (int d = 0; d < g->rank; d++)
        if (enumerated(g, d)) e *= g->n[d];
    const char *it = e < ((int64_t)1 << 31) - (int64_t)BLOCK * 65536 ? "unsigned" : "unsigned long long";
    fdx_cg_node *b = fdx_cg_for(at, FDX_CG_LOOP,
                                "%s fdx_g = blockIdx.x * (%s)blockDim.x + threadIdx.x; fdx_g < %lldu; fdx_g += (%s)gridDim.x * blockDim.x",
                                it, it, (long long)e, it);
    fdx_cg_stmt(b, "%s fdx_q = fdx_g", it);
    /* On a hyperplane the fast index starts where the line of the plane
       enters the box, so the valid points of a line are contiguous threads. */
    int shift = g->solved >= 0 && g->plane[g->fast] && g->solved != g->fast;
    int order[FDX_LOOP_MAX_RANK], no = 0;
    if (enumerated(g, g->fast)) order[no++] = g->fast;
    for (int d = 0; d < g->rank; d++)
        if (enumerated(g, d) && d != g->fast) order[no++] = d;
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
    solve(cg, b, g);
    point(cg, fdx_cg_scope(b), l, g, (acc_names){"fdx_acc", "", "fdx_accl", ""});
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
                                "unsigned fdx_w = (blockIdx.x * blockDim.x + threadIdx.x) >> 5; fdx_w < fdx_nc * %lluu; fdx_w += (gridDim.x * blockDim.x) >> 5",
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
    fdx_cg_stmt(w, "const long long fdx_f0 = fdx_tk > %lldLL ? fdx_tk - %lldLL : 0", ns - 1, ns - 1);
    fdx_cg_stmt(w, "const long long fdx_f1 = fdx_tk < %lldLL ? fdx_tk : %lldLL", nf - 1, nf - 1);
    fdx_cg_node *line = fdx_cg_for(w, FDX_CG_LOOP, "long long fdx_x%d = fdx_f0 + fdx_lane; fdx_x%d <= fdx_f1; fdx_x%d += 32", f, f, f);
    fdx_cg_stmt(line, "const long long fdx_x%d = fdx_tk - fdx_x%d", s, f);
    point(cg, fdx_cg_scope(line), l, g, (acc_names){"fdx_acc", "", "fdx_accl", ""});
}

/* Block reduction in shared memory; block (x, sweep) owns its partial slot,
   so launches of later steps fold into it without atomics. */
static void block_reduce(fdx_cg *cg, fdx_cg_node *k, const fdx_loop *l)
{
    fdx_cg_shared(k, "double", "fdx_sv", fdx_cg_fmt(cg, "[%d]", BLOCK));
    fdx_cg_shared(k, "long long", "fdx_sl", fdx_cg_fmt(cg, "[%d]", BLOCK));
    fdx_cg_stmt(k, "const unsigned fdx_tid = threadIdx.x");
    fdx_cg_stmt(k, "const size_t fdx_slot = ((size_t)fdx_s * gridDim.x + blockIdx.x) * %d", l->nreds);
    for (int r = 0; r < l->nreds; r++) {
        fdx_cg_stmt(k, "fdx_sv[fdx_tid] = fdx_acc%d", r);
        fdx_cg_stmt(k, "fdx_sl[fdx_tid] = fdx_accl%d", r);
        fdx_cg_barrier(k, NULL);
        fdx_cg_node *tree = fdx_cg_for(k, FDX_CG_LOOP, "unsigned fdx_h = %d; fdx_h > 0; fdx_h >>= 1", BLOCK / 2);
        fdx_cg_node *half = fdx_cg_if(tree, "fdx_tid < fdx_h");
        fdx_cg_stmt(half, "double fdx_v = fdx_sv[fdx_tid + fdx_h]");
        fdx_cg_stmt(half, "long long fdx_l = fdx_sl[fdx_tid + fdx_h]");
        combine(half, &l->red[r], "fdx_v", "fdx_l", "fdx_sv[fdx_tid]", "fdx_sl[fdx_tid]");
        fdx_cg_barrier(tree, NULL);
        combine(fdx_cg_if(k, "fdx_tid == 0"), &l->red[r], "fdx_sv[0]", "fdx_sl[0]",
                fdx_cg_fmt(cg, "fdx_pv[fdx_slot + %d]", r), fdx_cg_fmt(cg, "fdx_pl[fdx_slot + %d]", r));
        fdx_cg_barrier(k, NULL);
    }
}

/* Scalars travel by value in one struct (no recompilation when they change). */
static void cuda_kernel(fdx_cg *cg, const fdx_loop *l, const loop_geom *g)
{
    fdx_cg_node *root = fdx_cg_root(cg);
    fdx_cg_line(root, "struct fdx_scalars { double v[%d]; };", LOOP_MAX_SCALARS);
    fdx_cg_line(root, "struct fdx_ints { long long v[%d]; };", LOOP_RI_COUNT);
    fdx_cg_param p[FDX_LOOP_MAX_ARGS + NPARAMS(cuda_params)];
    int n = kernel_params(l, cg, cuda_params, NPARAMS(cuda_params), p);
    fdx_cg_node *k = fdx_cg_kernel(root, "fdx_loop_kernel", p, n, BLOCK, 0);
    runtime_ints(k, l, "fdx_ri.v");
    for (int s = 0; s < l->nscalars; s++) fdx_cg_stmt(k, "const double %s = fdx_sc.v[%d]", l->scalar_name[s], s);
    fdx_cg_stmt(k, "const long long fdx_s = fdx_s0 + blockIdx.y");
    fdx_cg_stmt(k, "const long long fdx_t = fdx_T - %lldLL * fdx_s", (long long)g->dist);
    fdx_cg_stmt(k, "(void)fdx_t");
    for (int r = 0; r < l->nreds; r++) {
        fdx_cg_stmt(k, "double fdx_acc%d = %s", r, slot_identity_v(cg, &l->red[r]));
        fdx_cg_stmt(k, "long long fdx_accl%d = %s", r, slot_identity_l(cg, &l->red[r]));
    }
    if (g->lines) lines_cuda(cg, k, l, g);
    else flat_cuda(cg, k, l, g);
    if (l->nreds) {
        block_reduce(cg, k, l);
    } else {
        fdx_cg_stmt(k, "(void)fdx_pv");
        fdx_cg_stmt(k, "(void)fdx_pl");
    }
}

/* The whole source for one target: the prelude, then the kernel. */
static fdx_status generate(const fdx_loop *l, const loop_geom *g, int cuda, char **out)
{
    fdx_cg *cg = fdx_cg_create(cuda ? FDX_CG_CUDA : FDX_CG_C);
    FDX_CHECK(cg, FDX_ERR_NOMEM, "out of memory generating loop '%s'", l->name);
    fdx_status st = prelude(cg, l, cuda);
    if (st != FDX_OK) {
        fdx_cg_destroy(cg);
        return st;
    }
    if (cuda) cuda_kernel(cg, l, g);
    else cpu_kernel(cg, l, g);
    return finish(cg, l, out);
}

fdx_status fdx_loop_gen_cpu(const fdx_loop *l, const loop_geom *g, char **out) { return generate(l, g, 0, out); }
fdx_status fdx_loop_gen_cuda(const fdx_loop *l, const loop_geom *g, char **out) { return generate(l, g, 1, out); }
