/* fdx_loop_gen: whole kernels around a loop body, built as kernel IR
   (src/codegen) and printed as C with OpenMP for the CPU backend and CUDA C
   for NVRTC.  Both walk the same geometry (steps T; sweeps in flight; plane
   t = T - dist*s; the solved axis from t) and index arrays through the
   layout engine's index expressions, so one body runs unchanged under every
   layout.  Reductions are statements over the accumulator slots, folded as
   fdx_loop_red_fold does (wrapping integers, first location on _LOC ties),
   in a fixed order, so results do not depend on thread timing; an OpenMP
   reduction clause or atomics would lose that, so the IR's generic pieces
   (loops, conditions, shared memory, barriers) carry them.  This file: the
   shared pieces (fdx_loop_gen.h), the prelude and the CPU kernel; the CUDA
   kernel is in fdx_loop_gen_gpu.c. */
#include "loops/fdx_loop_gen.h"
#include "layout/fdx_layout_emit.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
const char *fdx_loop_gen_slot_v(fdx_cg *cg, const loop_red *r)
{
    return fdx_cg_fmt(cg, "(%.17g)", fdx_loop_red_identity(r->op));
}

const char *fdx_loop_gen_slot_l(fdx_cg *cg, const loop_red *r) { return int_literal(cg, fdx_loop_red_identity_int(r)); }

/* Folds source (sv, sl) into destination (dv, dl), as fdx_loop_red_fold:
   integer reductions other than _LOC in the 64-bit slot (wrapping
   arithmetic, no undefined overflow), _LOC variants keep the first
   location in sequential order on ties, the others compare values alone. */
void fdx_loop_gen_combine(fdx_cg_node *at, const loop_red *r, const char *sv, const char *sl, const char *dv, const char *dl)
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

/* Arrays whose tables hold the same numbers share one (LU's five arrays
   on the sweeps' diagonal: one table load per diagonal, not five): the
   later ones' names are macros for the first's.  `seen` keeps the tables
   emitted so far (entry type, the text after the name, the name). */
typedef struct diag_seen {
    const char *values[FDX_LOOP_MAX_ARGS], *type[FDX_LOOP_MAX_ARGS], *name[FDX_LOOP_MAX_ARGS];
    int n;
} diag_seen;

static void diag_table(fdx_cg *cg, const fdx_array *arr, const char *name, int cuda, diag_seen *seen)
{
    const fdx_layout *lay = &arr->layout;
    int ax = lay->perm[0], ay = lay->perm[1];
    int64_t rx = arr->shape[ax], ry = arr->shape[ay], idx[FDX_MAX_RANK] = {0};
    fdx_sb t = FDX_SB_INIT;
    fdx_sb_printf(&t, "[%lld] = {", (long long)(rx + ry - 1));
    for (int64_t d = 0; d < rx + ry - 1; d++) {
        int64_t x = d > ry - 1 ? d - (ry - 1) : 0, y = d - x;
        idx[ax] = x;
        idx[ay] = lay->diag == FDX_DIAG_MAIN ? ry - 1 - y : y;
        fdx_sb_printf(&t, "%s%lld", d ? "," : "", (long long)(fdx_layout_offset(lay, arr->shape, idx) - x));
    }
    fdx_sb_puts(&t, "};");
    const char *values = fdx_cg_text(cg, &t);
    for (int q = 0; q < seen->n; q++)
        if (strcmp(seen->values[q], values) == 0 && strcmp(seen->type[q], diag_type(arr)) == 0) {
            fdx_cg_line(fdx_cg_root(cg), "#define fdx_dg_%s fdx_dg_%s", name, seen->name[q]);
            return;
        }
    seen->values[seen->n] = values, seen->type[seen->n] = diag_type(arr), seen->name[seen->n++] = name;
    fdx_cg_line(fdx_cg_root(cg), "%sconst %s fdx_dg_%s%s", cuda ? "static __device__ " : "static ", diag_type(arr), name,
                values);
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

/* The index of an array on a permuted layout with fewer than 2^31
   elements, in 32-bit arithmetic: sum of index * stride, the strides from
   the layout engine's offset function.  Half the registers and
   instructions of 64-bit index arithmetic (the layout engine's expression,
   kept for larger arrays); the compiler widens once, at the pointer.
   The GPU printer only: on x86-64 the C compiler cannot fold a truncated
   (int) index into 64-bit addressing and sign-extends it at every use
   (LU's rhs 30% slower on the CPU backend). */
static void linear_index(fdx_sb *t, const fdx_array *arr, const char *const *nm)
{
    int64_t idx[FDX_MAX_RANK] = {0};
    int64_t o0 = fdx_layout_offset(&arr->layout, arr->shape, idx);
    fdx_sb_puts(t, "(");
    for (int x = 0; x < arr->rank; x++) {
        idx[x] = 1;
        int64_t stride = fdx_layout_offset(&arr->layout, arr->shape, idx) - o0;
        idx[x] = 0;
        if (stride == 1) fdx_sb_printf(t, "%s(int)%s", x ? " + " : "", nm[x]);
        else fdx_sb_printf(t, "%s(int)%s * %lld", x ? " + " : "", nm[x], (long long)stride);
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
        /* Planned as for a GPU on the CPU (tests of the GPU's layouts): no
           FP contraction, so runs under different layouts agree bit for
           bit (GCC fuses differently under different index expressions).
           CPU runs planned for the CPU keep it (LU class W: 30% less time). */
        if (l->plan_target == FDX_BACKEND_CUDA) fdx_cg_line(root, "#pragma GCC optimize (\"fp-contract=off\")");
    }
    fdx_cg_raw(root, fdx_layout_emit_helpers());
    diag_seen seen = {.n = 0};
    for (int a = 0; a < l->nargs; a++) {
        const fdx_array *arr = l->arg[a].array;
        const char *np[FDX_MAX_RANK];
        fdx_sb t = FDX_SB_INIT;
        if (arr->layout.diag != FDX_DIAG_NONE) diag_table(cg, arr, l->arg[a].name, cuda, &seen);
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
        } else if (cuda && fdx_array_count(arr) < ((int64_t)1 << 31)) {
            linear_index(&t, arr, np);
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
/* The kernel's parameters: the arrays (fdx_p_<name>, restrict pointers),
   then `more`; returns their count (p has room for FDX_LOOP_MAX_ARGS + nmore). */
int fdx_loop_gen_params(const fdx_loop *l, fdx_cg *cg, const fdx_cg_param *more, int nmore, fdx_cg_param *p)
{
    for (int a = 0; a < l->nargs; a++)
        p[a] = (fdx_cg_param){fdx_cg_fmt(cg, "%s%s", l->arg[a].access == FDX_READ ? "const " : "", ctype(l->arg[a].array->dtype)),
                              fdx_cg_fmt(cg, "fdx_p_%s", l->arg[a].name), 1};
    for (int i = 0; i < nmore; i++) p[l->nargs + i] = more[i];
    return l->nargs + nmore;
}

/* One iteration at offsets fdx_x<d>, into `at` (a loop's body): the
   indices, the reduction variables, the body under its own line numbers,
   the fold into the accumulators. */
void fdx_loop_gen_point(fdx_cg *cg, fdx_cg_node *at, const fdx_loop *l, const loop_geom *g, acc_names acc)
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
        fdx_loop_gen_combine(at, &l->red[r], fdx_cg_fmt(cg, "(double)%s", l->red[r].name), sl,
                fdx_cg_fmt(cg, "%s%d%s", acc.v_pre, r, acc.v_suf), fdx_cg_fmt(cg, "%s%d%s", acc.l_pre, r, acc.l_suf));
    }
}

/* The solved axis from t, skipping points off the index box. */
void fdx_loop_gen_solve(fdx_cg *cg, fdx_cg_node *at, const loop_geom *g)
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

int fdx_loop_gen_enumerated(const loop_geom *g, int d) { return d != g->solved && d != g->seq; }

/* The range's lower bounds and the shifted arrays' origins from the
   run-time integers `ri` (an array or a struct's member). */
void fdx_loop_gen_runtime_ints(fdx_cg_node *at, const fdx_loop *l, const char *ri)
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
    int k = fdx_loop_gen_params(l, cg, cpu_params, NPARAMS(cpu_params), p);
    fdx_cg_line(fdx_cg_root(cg), "#include <omp.h>");
    fdx_cg_node *f = fdx_cg_kernel_by_address(fdx_cg_root(cg), "fdx_loop_entry", "fdx_args", p, k, 0);
    fdx_loop_gen_runtime_ints(f, l, "fdx_ri");
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
        fdx_cg_line(q, "case %d: fdx_av[q] = %s; fdx_al[q] = %s; break;", r, fdx_loop_gen_slot_v(cg, &l->red[r]),
                    fdx_loop_gen_slot_l(cg, &l->red[r]));
    fdx_cg_line(q, "default: fdx_av[q] = 0;");
    fdx_cg_line(q, "}");
    fdx_cg_line(f, "#pragma omp parallel num_threads(fdx_nth)");
    fdx_cg_node *par = fdx_cg_scope(f);
    fdx_cg_stmt(par, "double *fdx_mv = fdx_av + fdx_per * omp_get_thread_num()");
    fdx_cg_stmt(par, "(void)fdx_mv");
    fdx_cg_stmt(par, "long long *fdx_ml = fdx_al + fdx_per * omp_get_thread_num()");
    fdx_cg_stmt(par, "(void)fdx_ml");
    /* the steps [T0, T1) of the run (all unless a run in parts) */
    fdx_cg_node *step = fdx_cg_for(par, FDX_CG_LOOP, "long long fdx_T = fdx_ri[%d]; fdx_T <= fdx_steps && fdx_T < fdx_ri[%d]; fdx_T++",
                                   LOOP_RI_STEPS, LOOP_RI_STEPS + 1);
    fdx_cg_stmt(step, "long long fdx_slo = fdx_T > %lldLL ? (fdx_T - %lldLL + %lldLL - 1) / %lldLL : 0", (long long)g->tmax,
                (long long)g->tmax, (long long)g->dist, (long long)g->dist);
    fdx_cg_stmt(step, "long long fdx_shi = fdx_T / %lldLL", (long long)g->dist);
    fdx_cg_stmt(fdx_cg_if(step, "fdx_shi > fdx_sweeps - 1"), "fdx_shi = fdx_sweeps - 1");
    /* Threads share the sweeps in flight and the enumerated axes other than
       the fast one; the fast one is the inner loop (sequential for ACROSS),
       shared itself only when nothing else is. */
    int nouter = 0;
    for (int d = 0; d < g->rank; d++) nouter += fdx_loop_gen_enumerated(g, d) && d != g->fast;
    int share_fast = !nouter && g->seq != g->fast;
    fdx_cg_node *at = fdx_cg_for(step, share_fast ? FDX_CG_LOOP : FDX_CG_LOOP_WORKSHARE,
                                 "long long fdx_s = fdx_slo; fdx_s <= fdx_shi; fdx_s++");
    for (int d = g->rank - 1; d >= 0; d--)
        if (fdx_loop_gen_enumerated(g, d) && d != g->fast)
            at = fdx_cg_for(at, FDX_CG_LOOP, "long long fdx_x%d = 0; fdx_x%d < %lldLL; fdx_x%d++", d, d, (long long)g->n[d], d);
    fdx_cg_stmt(at, "const long long fdx_t = fdx_T - %lldLL * fdx_s", (long long)g->dist);
    fdx_cg_stmt(at, "(void)fdx_t");
    /* the fast index in t (split over distributed units): solved inside
       the inner loop, from each fast index */
    int fast_in_t = g->plane[g->fast] && g->solved != g->fast;
    if (!fast_in_t) fdx_loop_gen_solve(cg, at, g);
    fdx_cg_node *inner = fdx_cg_for(at, share_fast ? FDX_CG_LOOP_WORKSHARE : FDX_CG_LOOP,
                                    "long long fdx_x%d = 0; fdx_x%d < %lldLL; fdx_x%d++", g->fast, g->fast,
                                    (long long)g->n[g->fast], g->fast);
    if (fast_in_t) fdx_loop_gen_solve(cg, inner, g);
    acc_names acc = {fdx_cg_fmt(cg, "fdx_mv[fdx_s * %d + ", nr), "]", fdx_cg_fmt(cg, "fdx_ml[fdx_s * %d + ", nr), "]"};
    fdx_loop_gen_point(cg, inner, l, g, acc);
    fdx_cg_barrier(step, NULL);
    fdx_cg_node *h = fdx_cg_for(f, FDX_CG_LOOP, "int fdx_h = 0; fdx_h < fdx_nth; fdx_h++");
    fdx_cg_node *hs = fdx_cg_for(h, FDX_CG_LOOP, "int fdx_s = 0; fdx_s < fdx_sweeps; fdx_s++");
    for (int r = 0; r < nr; r++)
        fdx_loop_gen_combine(hs, &l->red[r], fdx_cg_fmt(cg, "fdx_av[fdx_per * fdx_h + fdx_s * %d + %d]", nr, r),
                fdx_cg_fmt(cg, "fdx_al[fdx_per * fdx_h + fdx_s * %d + %d]", nr, r),
                fdx_cg_fmt(cg, "fdx_rv[fdx_s * %d + %d]", nr, r), fdx_cg_fmt(cg, "fdx_rl[fdx_s * %d + %d]", nr, r));
    fdx_cg_stmt(f, "free(fdx_av)");
    fdx_cg_stmt(f, "free(fdx_al)");
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
    if (cuda) fdx_loop_gen_cuda_kernel(cg, l, g);
    else cpu_kernel(cg, l, g);
    return finish(cg, l, out);
}

fdx_status fdx_loop_gen_cpu(const fdx_loop *l, const loop_geom *g, char **out) { return generate(l, g, 0, out); }
fdx_status fdx_loop_gen_cuda(const fdx_loop *l, const loop_geom *g, char **out) { return generate(l, g, 1, out); }
