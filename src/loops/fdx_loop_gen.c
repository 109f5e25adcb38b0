/* fdx_loop_gen: whole kernels around a loop body, as source text: C with
   OpenMP for the CPU backend, CUDA C for NVRTC.  Both walk the same
   geometry (steps T; sweeps in flight; plane t = T - dist*s; the solved axis
   from t) and index arrays through the layout engine's index expressions,
   so one body runs unchanged under every layout. */
#include "loops/fdx_loop_impl.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define T fdx_loop_text
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

static void int_literal(char *buf, size_t cap, int64_t v)
{
    if (v == INT64_MIN) snprintf(buf, cap, "(-9223372036854775807LL - 1)");
    else snprintf(buf, cap, "(%lldLL)", (long long)v);
}

/* The reduction variable's starting value in the body, in its own type. */
static void body_identity(const loop_red *r, char *buf, size_t cap)
{
    int is_int = r->type == FDX_INT32 || r->type == FDX_INT64;
    int max = r->op == FDX_REDUCE_MAX || r->op == FDX_REDUCE_MAXLOC, min = r->op == FDX_REDUCE_MIN || r->op == FDX_REDUCE_MINLOC;
    if (is_int && (max || min)) {
        if (r->type == FDX_INT32) snprintf(buf, cap, "%s", max ? "(-2147483647 - 1)" : "2147483647");
        else snprintf(buf, cap, "%s", max ? "(-9223372036854775807LL - 1)" : "9223372036854775807LL");
    } else if (is_int) {
        int_literal(buf, cap, r->op == FDX_REDUCE_PROD ? 1 : r->op == FDX_REDUCE_AND ? -1 : 0);
    } else {
        snprintf(buf, cap, "(%s)(%.17g)", red_ctype(r->type), fdx_loop_red_identity(r->op));
    }
}

/* Initial values of the double and 64-bit accumulator slots. */
static void slot_identities(const loop_red *r, char *v, char *l, size_t cap)
{
    snprintf(v, cap, "(%.17g)", fdx_loop_red_identity(r->op));
    int_literal(l, cap, fdx_loop_red_identity_int(r));
}

/* Folds source (sv, sl) into destination (dv, dl), as fdx_loop_red_fold:
   integer reductions other than _LOC in the 64-bit slot (wrapping
   arithmetic, no undefined overflow), _LOC variants keep the first
   location in sequential order on ties, the others compare values alone. */
static void combine(loop_text *t, const loop_red *r, const char *sv, const char *sl, const char *dv, const char *dl)
{
    fdx_reduce op = r->op;
    if (fdx_loop_red_is_int(r)) {
        switch (op) {
        case FDX_REDUCE_SUM: T(t, "%s = (long long)((unsigned long long)%s + (unsigned long long)(%s));\n", dl, dl, sl); break;
        case FDX_REDUCE_PROD: T(t, "%s = (long long)((unsigned long long)%s * (unsigned long long)(%s));\n", dl, dl, sl); break;
        case FDX_REDUCE_MAX: T(t, "if ((%s) > %s) %s = (%s);\n", sl, dl, dl, sl); break;
        case FDX_REDUCE_MIN: T(t, "if ((%s) < %s) %s = (%s);\n", sl, dl, dl, sl); break;
        case FDX_REDUCE_AND: T(t, "%s &= (%s);\n", dl, sl); break;
        default: T(t, "%s |= (%s);\n", dl, sl); break;
        }
        return;
    }
    switch (op) {
    case FDX_REDUCE_SUM: T(t, "%s += %s;\n", dv, sv); return;
    case FDX_REDUCE_PROD: T(t, "%s *= %s;\n", dv, sv); return;
    case FDX_REDUCE_MAX: T(t, "if (%s > %s) %s = %s;\n", sv, dv, dv, sv); return;
    case FDX_REDUCE_MIN: T(t, "if (%s < %s) %s = %s;\n", sv, dv, dv, sv); return;
    default: break;
    }
    const char *cmp = op == FDX_REDUCE_MAXLOC ? ">" : "<";
    T(t, "if (%s %s %s || (%s == %s && %s < %s)) { %s = %s; %s = %s; }\n", sv, cmp, dv, sv, dv, sl, dl, dv, sv, dl, sl);
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

static void diag_table(loop_text *t, const fdx_array *arr, const char *name, int cuda)
{
    const fdx_layout *lay = &arr->layout;
    int ax = lay->perm[0], ay = lay->perm[1];
    int64_t rx = arr->shape[ax], ry = arr->shape[ay], idx[FDX_MAX_RANK] = {0};
    T(t, "%sconst %s fdx_dg_%s[%lld] = {", cuda ? "static __device__ " : "static ", diag_type(arr), name,
      (long long)(rx + ry - 1));
    for (int64_t d = 0; d < rx + ry - 1; d++) {
        int64_t x = d > ry - 1 ? d - (ry - 1) : 0, y = d - x;
        idx[ax] = x;
        idx[ay] = lay->diag == FDX_DIAG_MAIN ? ry - 1 - y : y;
        T(t, "%s%lld", d ? "," : "", (long long)(fdx_layout_offset(lay, arr->shape, idx) - x));
    }
    T(t, "};\n");
}

static void diag_index(loop_text *t, const fdx_array *arr, const char *name, const char *const *nm)
{
    const fdx_layout *lay = &arr->layout;
    int ax = lay->perm[0], ay = lay->perm[1];
    int64_t ry = arr->shape[ay], idx[FDX_MAX_RANK] = {0};
    const char *it = diag_type(arr);
    int64_t o0 = fdx_layout_offset(lay, arr->shape, idx);
    T(t, "(fdx_dg_%s[(%s)%s + ", name, it, nm[ax]);
    if (lay->diag == FDX_DIAG_MAIN) T(t, "%lld - (%s)%s] + (%s)%s", (long long)(ry - 1), it, nm[ay], it, nm[ax]);
    else T(t, "(%s)%s] + (%s)%s", it, nm[ay], it, nm[ax]);
    for (int x = 0; x < arr->rank; x++) {
        if (x == ax || x == ay || arr->shape[x] == 1) continue;
        idx[x] = 1;
        T(t, " + (%s)%s * %lld", it, nm[x], (long long)(fdx_layout_offset(lay, arr->shape, idx) - o0));
        idx[x] = 0;
    }
    T(t, ")");
}

static fdx_status prelude(loop_text *t, const fdx_loop *l, int cuda)
{
    T(t, "/* generated by fdx for loop '%s' */\n", l->name);
    if (!cuda) T(t, "#include <math.h>\n#include <stdlib.h>\n#include <limits.h>\n");
    T(t, "%s", fdx_layout_emit_helpers());
    for (int a = 0; a < l->nargs; a++) {
        const fdx_array *arr = l->arg[a].array;
        char names[FDX_MAX_RANK][LOOP_NAME_MAX + 32], expr[2048];
        const char *np[FDX_MAX_RANK];
        if (arr->layout.diag != FDX_DIAG_NONE) diag_table(t, arr, l->arg[a].name, cuda);
        T(t, "#define %s(", l->arg[a].name);
        for (int x = 0; x < arr->rank; x++) {
            /* ALIGN shift: the body's index minus the array's origin */
            if (l->arg[a].shifted) snprintf(names[x], sizeof names[x], "((fdx_x%d) - fdx_o_%s_%d)", x, l->arg[a].name, x);
            else snprintf(names[x], sizeof names[x], "(fdx_x%d)", x);
            np[x] = names[x];
            T(t, "%sfdx_x%d", x ? ", " : "", x);
        }
        if (arr->layout.diag != FDX_DIAG_NONE) {
            T(t, ") (fdx_p_%s[", l->arg[a].name);
            diag_index(t, arr, l->arg[a].name, np);
            T(t, "])\n");
            continue;
        }
        FDX_TRY(fdx_layout_emit_index(&arr->layout, arr->shape, np, expr, sizeof expr));
        T(t, ") (fdx_p_%s[%s])\n", l->arg[a].name, expr);
    }
    return FDX_OK;
}

static void params(loop_text *t, const fdx_loop *l, int cuda)
{
    for (int a = 0; a < l->nargs; a++)
        T(t, "%s%s *%s fdx_p_%s, ", l->arg[a].access == FDX_READ ? "const " : "", ctype(l->arg[a].array->dtype),
          cuda ? "__restrict__" : "restrict", l->arg[a].name);
}

/* One iteration at offsets fdx_x<d>: the indices, the reduction variables,
   the body under its own line numbers, the fold into the accumulators
   (acc/accl: printf formats of their names, given the reduction number). */
static void point(loop_text *t, const fdx_loop *l, const loop_geom *g, const char *acc, const char *accl)
{
    T(t, "{\n");
    for (int d = 0; d < l->rank; d++) {
        if (l->dir[d] > 0) T(t, "const long long %s = fdx_lo%d + fdx_x%d; (void)%s;\n", l->index[d], d, d, l->index[d]);
        else T(t, "const long long %s = fdx_lo%d + (%lldLL - fdx_x%d); (void)%s;\n", l->index[d], d,
                 (long long)g->n[d] - 1, d, l->index[d]);
    }
    int loc = 0;
    for (int r = 0; r < l->nreds; r++) loc |= fdx_loop_red_is_loc(l->red[r].op);
    if (loc) {
        T(t, "const long long fdx_lin = ");
        int64_t stride = 1;
        for (int d = 0; d < l->rank; d++) {
            T(t, "%sfdx_x%d * %lldLL", d ? " + " : "", d, (long long)stride);
            stride *= g->n[d];
        }
        T(t, ";\n");
    }
    for (int r = 0; r < l->nreds; r++) {
        char id[64];
        body_identity(&l->red[r], id, sizeof id);
        T(t, "%s %s = %s;\n", red_ctype(l->red[r].type), l->red[r].name, id);
    }
    T(t, "{\n#line 1 \"%s body\"\n%s\n", l->name, l->body);
    T(t, "#line 1 \"%s generated\"\n}\n", l->name);
    for (int r = 0; r < l->nreds; r++) {
        char a[96], al[96], sv[64], sl[64];
        snprintf(a, sizeof a, acc, r);
        snprintf(al, sizeof al, accl, r);
        snprintf(sv, sizeof sv, "(double)%s", l->red[r].name);
        snprintf(sl, sizeof sl, "%s", fdx_loop_red_is_loc(l->red[r].op) ? "fdx_lin" : l->red[r].name);
        combine(t, &l->red[r], sv, sl, a, al);
    }
    T(t, "}\n");
}

/* The solved axis from t, skipping points off the index box. */
static void solve(loop_text *t, const loop_geom *g)
{
    if (g->solved < 0) return;
    T(t, "const long long fdx_x%d = fdx_t", g->solved);
    for (int d = 0; d < g->rank; d++)
        if (g->plane[d] && d != g->solved) T(t, " - fdx_x%d", d);
    T(t, ";\nif (fdx_x%d < 0 || fdx_x%d >= %lldLL) continue;\n", g->solved, g->solved, (long long)g->n[g->solved]);
}

static int enumerated(const loop_geom *g, int d) { return d != g->solved && d != g->seq; }

/* The range's lower bounds and the shifted arrays' origins from the
   run-time integers `ri` (an array or a struct's member). */
static void runtime_ints(loop_text *t, const fdx_loop *l, const char *ri)
{
    for (int d = 0; d < l->rank; d++) T(t, "const long long fdx_lo%d = %s[%d];\n", d, ri, d);
    for (int a = 0; a < l->nargs; a++)
        if (l->arg[a].shifted)
            for (int x = 0; x < l->arg[a].array->rank; x++)
                T(t, "const long long fdx_o_%s_%d = %s[%d];\n", l->arg[a].name, x, ri, LOOP_RI_ORIGIN + a * FDX_MAX_RANK + x);
}

/* Thread-private accumulators per sweep live in one block allocated before
   the parallel region and are folded in thread order afterwards, so the
   result does not depend on which thread finished first. */
fdx_status fdx_loop_gen_cpu(const fdx_loop *l, const loop_geom *g, char **out)
{
    loop_text t = {0};
    fdx_status st = prelude(&t, l, 0);
    if (st != FDX_OK) {
        free(t.p);
        return st;
    }
    int nr = l->nreds;
    T(&t, "#include <omp.h>\nvoid fdx_loop_entry(void **fdx_args) {\n");
    int k = 0;
    for (int a = 0; a < l->nargs; a++, k++)
        T(&t, "%s%s *restrict fdx_p_%s = *(%s%s **)fdx_args[%d];\n", l->arg[a].access == FDX_READ ? "const " : "",
          ctype(l->arg[a].array->dtype), l->arg[a].name, l->arg[a].access == FDX_READ ? "const " : "",
          ctype(l->arg[a].array->dtype), k);
    T(&t, "const double *fdx_sc = *(const double **)fdx_args[%d];\n", k++);
    T(&t, "const int fdx_sweeps = *(const int *)fdx_args[%d];\n", k++);
    T(&t, "double *fdx_rv = *(double **)fdx_args[%d];\n", k++);
    T(&t, "long long *fdx_rl = *(long long **)fdx_args[%d];\n", k++);
    T(&t, "const long long *fdx_ri = *(const long long **)fdx_args[%d];\n", k++);
    T(&t, "(void)fdx_sc; (void)fdx_rv; (void)fdx_rl; (void)fdx_ri;\n");
    runtime_ints(&t, l, "fdx_ri");
    for (int s = 0; s < l->nscalars; s++) T(&t, "const double %s = fdx_sc[%d];\n", l->scalar_name[s], s);
    T(&t, "const long long fdx_steps = %lldLL + %lldLL * (fdx_sweeps - 1);\n", (long long)g->tmax, (long long)g->dist);
    T(&t, "const int fdx_nth = omp_get_max_threads();\n");
    T(&t, "const size_t fdx_per = (size_t)fdx_sweeps * %d;\n", nr);
    T(&t, "double *fdx_av = malloc(sizeof(double) * (fdx_per * fdx_nth + 1));\n");
    T(&t, "long long *fdx_al = malloc(sizeof(long long) * (fdx_per * fdx_nth + 1));\n");
    T(&t, "if (!fdx_av || !fdx_al) { free(fdx_av); free(fdx_al); fdx_rl[fdx_per] = -2; return; }\n");
    T(&t, "for (size_t q = 0; q < fdx_per * fdx_nth; q++) { fdx_al[q] = LLONG_MAX; switch (q %% %d) {\n", nr ? nr : 1);
    for (int r = 0; r < nr; r++) {
        char iv[64], il[64];
        slot_identities(&l->red[r], iv, il, sizeof iv);
        T(&t, "case %d: fdx_av[q] = %s; fdx_al[q] = %s; break;\n", r, iv, il);
    }
    T(&t, "default: fdx_av[q] = 0; } }\n");
    T(&t, "#pragma omp parallel num_threads(fdx_nth)\n{\n");
    T(&t, "double *fdx_mv = fdx_av + fdx_per * omp_get_thread_num(); (void)fdx_mv;\n");
    T(&t, "long long *fdx_ml = fdx_al + fdx_per * omp_get_thread_num(); (void)fdx_ml;\n");
    T(&t, "for (long long fdx_T = 0; fdx_T <= fdx_steps; fdx_T++) {\n");
    T(&t, "long long fdx_slo = fdx_T > %lldLL ? (fdx_T - %lldLL + %lldLL - 1) / %lldLL : 0;\n", (long long)g->tmax,
      (long long)g->tmax, (long long)g->dist, (long long)g->dist);
    T(&t, "long long fdx_shi = fdx_T / %lldLL; if (fdx_shi > fdx_sweeps - 1) fdx_shi = fdx_sweeps - 1;\n",
      (long long)g->dist);
    /* Threads share the sweeps in flight and the enumerated axes other than
       the fast one; the fast one is the inner loop (sequential for ACROSS),
       shared itself only when nothing else is. */
    int nouter = 0;
    for (int d = 0; d < g->rank; d++) nouter += enumerated(g, d) && d != g->fast;
    int share_fast = !nouter && g->seq != g->fast;
    if (!share_fast) T(&t, "#pragma omp for collapse(%d) schedule(static) nowait\n", nouter + 1);
    T(&t, "for (long long fdx_s = fdx_slo; fdx_s <= fdx_shi; fdx_s++)\n");
    for (int d = g->rank - 1; d >= 0; d--)
        if (enumerated(g, d) && d != g->fast)
            T(&t, "for (long long fdx_x%d = 0; fdx_x%d < %lldLL; fdx_x%d++)\n", d, d, (long long)g->n[d], d);
    T(&t, "{\nconst long long fdx_t = fdx_T - %lldLL * fdx_s; (void)fdx_t;\n", (long long)g->dist);
    solve(&t, g);
    if (share_fast) T(&t, "#pragma omp for schedule(static) nowait\n");
    T(&t, "for (long long fdx_x%d = 0; fdx_x%d < %lldLL; fdx_x%d++)\n", g->fast, g->fast, (long long)g->n[g->fast],
      g->fast);
    char acc[64], accl[64];
    snprintf(acc, sizeof acc, "fdx_mv[fdx_s * %d + %%d]", nr);
    snprintf(accl, sizeof accl, "fdx_ml[fdx_s * %d + %%d]", nr);
    point(&t, l, g, acc, accl);
    T(&t, "}\n#pragma omp barrier\n}\n}\n");
    T(&t, "for (int fdx_h = 0; fdx_h < fdx_nth; fdx_h++)\nfor (int fdx_s = 0; fdx_s < fdx_sweeps; fdx_s++) {\n");
    for (int r = 0; r < nr; r++) {
        char bv[96], bl[96], v[96], lv[96];
        snprintf(bv, sizeof bv, "fdx_rv[fdx_s * %d + %d]", nr, r);
        snprintf(bl, sizeof bl, "fdx_rl[fdx_s * %d + %d]", nr, r);
        snprintf(v, sizeof v, "fdx_av[fdx_per * fdx_h + fdx_s * %d + %d]", nr, r);
        snprintf(lv, sizeof lv, "fdx_al[fdx_per * fdx_h + fdx_s * %d + %d]", nr, r);
        combine(&t, &l->red[r], v, lv, bv, bl);
    }
    T(&t, "}\nfree(fdx_av); free(fdx_al);\n}\n");
    if (t.failed) {
        free(t.p);
        return fdx_fail(FDX_ERR_NOMEM, "out of memory generating loop '%s'", l->name);
    }
    *out = t.p;
    return FDX_OK;
}

/* Every enumerated point on its own thread (grid-stride), the fast axis
   first so a warp walks it. */
static void flat_cuda(loop_text *t, const fdx_loop *l, const loop_geom *g)
{
    /* 32-bit arithmetic for the decomposition when the count allows (64-bit
       division costs tens of instructions on the GPU). */
    int64_t e = 1;
    for (int d = 0; d < g->rank; d++)
        if (enumerated(g, d)) e *= g->n[d];
    const char *it = e < ((int64_t)1 << 31) - (int64_t)BLOCK * 65536 ? "unsigned" : "unsigned long long";
    T(t, "for (%s fdx_g = blockIdx.x * (%s)blockDim.x + threadIdx.x; fdx_g < %lldu;"
          " fdx_g += (%s)gridDim.x * blockDim.x) {\n", it, it, (long long)e, it);
    T(t, "%s fdx_q = fdx_g;\n", it);
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
        if (q == no - 1) T(t, "const long long %s%d = (long long)fdx_q;\n", name, d);
        else T(t, "const long long %s%d = (long long)(fdx_q %% %lldu); fdx_q /= %lldu;\n", name, d, (long long)g->n[d], (long long)g->n[d]);
    }
    if (!no) T(t, "(void)fdx_q;\n");
    if (shift) {
        T(t, "long long fdx_x%d = fdx_t - %lldLL", g->fast, (long long)(g->n[g->solved] - 1));
        for (int d = 0; d < g->rank; d++)
            if (g->plane[d] && d != g->solved && d != g->fast) T(t, " - fdx_x%d", d);
        T(t, ";\nfdx_x%d = (fdx_x%d > 0 ? fdx_x%d : 0) + fdx_r%d;\n", g->fast, g->fast, g->fast, g->fast);
        T(t, "if (fdx_x%d >= %lldLL) continue;\n", g->fast, (long long)g->n[g->fast]);
    }
    solve(t, g);
    point(t, l, g, "fdx_acc%d", "fdx_accl%d");
    T(t, "}\n");
}

/* Hyperplane lines: warp w of the grid takes line w of the plane (the fast
   index runs along it, the solved index follows), lanes step along the line.
   The solved index is t minus the others, so an accessor's diagonal
   (fast + solved +- a constant) is the same for the whole line and the
   compiler computes each diagonal's start once per line, not per point. */
static void lines_cuda(loop_text *t, const fdx_loop *l, const loop_geom *g)
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
        T(t, "const long long fdx_c0 = fdx_t - %lldLL > 0 ? fdx_t - %lldLL : 0;\n", nf + ns - 2, nf + ns - 2);
        T(t, "const long long fdx_c1 = fdx_t < %lldLL ? fdx_t : %lldLL;\n", (long long)g->n[c] - 1,
          (long long)g->n[c] - 1);
        T(t, "const unsigned fdx_nc = fdx_c1 >= fdx_c0 ? (unsigned)(fdx_c1 - fdx_c0 + 1) : 0u;\n");
    } else {
        T(t, "const unsigned fdx_nc = 1u; const long long fdx_c0 = 0; (void)fdx_c0;\n");
    }
    T(t, "const unsigned fdx_lane = threadIdx.x & 31u;\n");
    T(t, "for (unsigned fdx_w = (blockIdx.x * blockDim.x + threadIdx.x) >> 5; fdx_w < fdx_nc * %lluu;"
         " fdx_w += (gridDim.x * blockDim.x) >> 5) {\n", (unsigned long long)others);
    T(t, "unsigned fdx_q = fdx_w;\n");
    for (int q = 0; q < no; q++) {
        int d = order[q];
        if (d == c) T(t, "const long long fdx_x%d = fdx_c0 + (long long)(fdx_q %% fdx_nc); fdx_q /= fdx_nc;\n", d);
        else if (q == no - 1) T(t, "const long long fdx_x%d = (long long)fdx_q;\n", d);
        else T(t, "const long long fdx_x%d = (long long)(fdx_q %% %lldu); fdx_q /= %lldu;\n", d, (long long)g->n[d],
                 (long long)g->n[d]);
    }
    T(t, "(void)fdx_q;\nconst long long fdx_tk = fdx_t");
    for (int d = 0; d < g->rank; d++)
        if (g->plane[d] && d != f && d != s) T(t, " - fdx_x%d", d);
    T(t, ";\nconst long long fdx_f0 = fdx_tk > %lldLL ? fdx_tk - %lldLL : 0;\n", ns - 1, ns - 1);
    T(t, "const long long fdx_f1 = fdx_tk < %lldLL ? fdx_tk : %lldLL;\n", nf - 1, nf - 1);
    T(t, "for (long long fdx_x%d = fdx_f0 + fdx_lane; fdx_x%d <= fdx_f1; fdx_x%d += 32) {\n", f, f, f);
    T(t, "const long long fdx_x%d = fdx_tk - fdx_x%d;\n", s, f);
    point(t, l, g, "fdx_acc%d", "fdx_accl%d");
    T(t, "}\n}\n");
}

/* Scalars travel by value in one struct (no recompilation when they change). */
fdx_status fdx_loop_gen_cuda(const fdx_loop *l, const loop_geom *g, char **out)
{
    loop_text t = {0};
    fdx_status st = prelude(&t, l, 1);
    if (st != FDX_OK) {
        free(t.p);
        return st;
    }
    T(&t, "struct fdx_scalars { double v[%d]; };\n", LOOP_MAX_SCALARS);
    T(&t, "struct fdx_ints { long long v[%d]; };\n", LOOP_RI_COUNT);
    T(&t, "extern \"C\" __global__ void __launch_bounds__(%d) fdx_loop_kernel(", BLOCK);
    params(&t, l, 1);
    T(&t, "fdx_scalars fdx_sc, fdx_ints fdx_ri, long long fdx_T, long long fdx_s0, double *fdx_pv, long long *fdx_pl)\n{\n");
    runtime_ints(&t, l, "fdx_ri.v");
    for (int s = 0; s < l->nscalars; s++) T(&t, "const double %s = fdx_sc.v[%d];\n", l->scalar_name[s], s);
    T(&t, "const long long fdx_s = fdx_s0 + blockIdx.y;\n");
    T(&t, "const long long fdx_t = fdx_T - %lldLL * fdx_s; (void)fdx_t;\n", (long long)g->dist);
    for (int r = 0; r < l->nreds; r++) {
        char iv[64], il[64];
        slot_identities(&l->red[r], iv, il, sizeof iv);
        T(&t, "double fdx_acc%d = %s; long long fdx_accl%d = %s;\n", r, iv, r, il);
    }
    if (g->lines) lines_cuda(&t, l, g);
    else flat_cuda(&t, l, g);
    if (l->nreds) {
        /* Block reduction in shared memory; block (x, sweep) owns its partial
           slot, so launches of later steps fold into it without atomics. */
        T(&t, "__shared__ double fdx_sv[%d];\n__shared__ long long fdx_sl[%d];\n", BLOCK, BLOCK);
        T(&t, "const unsigned fdx_tid = threadIdx.x;\n");
        T(&t, "const size_t fdx_slot = ((size_t)fdx_s * gridDim.x + blockIdx.x) * %d;\n", l->nreds);
        for (int r = 0; r < l->nreds; r++) {
            T(&t, "fdx_sv[fdx_tid] = fdx_acc%d; fdx_sl[fdx_tid] = fdx_accl%d;\n__syncthreads();\n", r, r);
            T(&t, "for (unsigned fdx_h = %d; fdx_h > 0; fdx_h >>= 1) {\n", BLOCK / 2);
            T(&t, "if (fdx_tid < fdx_h) {\n");
            T(&t, "double fdx_v = fdx_sv[fdx_tid + fdx_h]; long long fdx_l = fdx_sl[fdx_tid + fdx_h];\n");
            combine(&t, &l->red[r], "fdx_v", "fdx_l", "fdx_sv[fdx_tid]", "fdx_sl[fdx_tid]");
            T(&t, "}\n__syncthreads();\n}\n");
            T(&t, "if (fdx_tid == 0) {\n");
            char bv[64], bl[64];
            snprintf(bv, sizeof bv, "fdx_pv[fdx_slot + %d]", r);
            snprintf(bl, sizeof bl, "fdx_pl[fdx_slot + %d]", r);
            combine(&t, &l->red[r], "fdx_sv[0]", "fdx_sl[0]", bv, bl);
            T(&t, "}\n__syncthreads();\n");
        }
    } else {
        T(&t, "(void)fdx_pv; (void)fdx_pl;\n");
    }
    T(&t, "}\n");
    if (t.failed) {
        free(t.p);
        return fdx_fail(FDX_ERR_NOMEM, "out of memory generating loop '%s'", l->name);
    }
    *out = t.p;
    return FDX_OK;
}
