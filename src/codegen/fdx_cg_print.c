/* fdx_cg_print: the two printers.  One walk prints the structure (scopes,
   conditions, loops, statements) with indentation; the constructs whose
   spelling depends on the target go through that target's functions:
   cuda_* for CUDA C (NVRTC, no headers) and c_* for C with OpenMP. */
#include "codegen/fdx_cg_impl.h"

#include <string.h>

typedef struct printer {
    fdx_sb *out;
    fdx_cg_target target;
    const char *unsupported; /* the first construct the target lacks */
} printer;

static const char comp[4] = {'x', 'y', 'z', 'w'};

static void lane(fdx_sb *o, const fdx_cg_lanes *l, int v) { fdx_sb_printf(o, "%s%d%s", l->pre, l->first + v, l->suf); }

/* ---- CUDA C -------------------------------------------------------------------- */

/* The load or store function of a hint ("*" for a plain load). */
static const char *cuda_hint(int hint, int store)
{
    if (hint == FDX_CG_STREAM) return store ? "__stcs" : "__ldcs";
    return hint == FDX_CG_LDG && !store ? "__ldg" : store ? NULL : "*";
}

static void cuda_load(printer *p, const fdx_cg_node *n)
{
    fdx_sb *o = p->out;
    const char *how = cuda_hint(n->hint, 0);
    if (n->lanes.lanes == 1) {
        for (int i = 0; i < o->indent; i++) fdx_sb_puts(o, "    ");
        lane(o, &n->lanes, 0);
        fdx_sb_printf(o, " = %s(%s + %s);\n", how, n->a, n->b);
        return;
    }
    fdx_sb_line(o, "{");
    o->indent++;
    if (n->window) fdx_sb_line(o, "const %s t_ = fdx_win%s(%s + %s);", n->c, how + 1, n->a, n->b);
    else fdx_sb_line(o, "const %s t_ = %s((const %s *)(%s + %s));", n->c, how, n->c, n->a, n->b);
    for (int v = 0; v < n->lanes.lanes; v++) {
        for (int i = 0; i < o->indent; i++) fdx_sb_puts(o, "    ");
        lane(o, &n->lanes, v);
        fdx_sb_printf(o, " = t_.%c;\n", comp[v]);
    }
    o->indent--;
    fdx_sb_line(o, "}");
}

static void cuda_store(printer *p, const fdx_cg_node *n)
{
    fdx_sb *o = p->out;
    const char *how = cuda_hint(n->hint, 1);
    for (int i = 0; n->lanes.lanes == 1 && i < o->indent; i++) fdx_sb_puts(o, "    ");
    if (n->lanes.lanes == 1 && how) {
        fdx_sb_printf(o, "%s(%s, ", how, n->a);
        lane(o, &n->lanes, 0);
        fdx_sb_puts(o, ");\n");
        return;
    }
    if (n->lanes.lanes == 1) {
        fdx_sb_printf(o, "*(%s) = ", n->a);
        lane(o, &n->lanes, 0);
        fdx_sb_puts(o, ";\n");
        return;
    }
    fdx_sb_line(o, "{");
    o->indent++;
    fdx_sb_line(o, "%s o_;", n->c);
    for (int v = 0; v < n->lanes.lanes; v++) {
        for (int i = 0; i < o->indent; i++) fdx_sb_puts(o, "    ");
        fdx_sb_printf(o, "o_.%c = ", comp[v]);
        lane(o, &n->lanes, v);
        fdx_sb_puts(o, ";\n");
    }
    if (how) fdx_sb_line(o, "%s((%s *)(%s), o_);", how, n->c, n->a);
    else fdx_sb_line(o, "*(%s *)(%s) = o_;", n->c, n->a);
    o->indent--;
    fdx_sb_line(o, "}");
}

static void cuda_kernel_head(printer *p, const fdx_cg_node *n)
{
    fdx_sb *o = p->out;
    fdx_sb_printf(o, "extern \"C\" __global__ void ");
    if (n->n > 0 && n->hint > 0) fdx_sb_printf(o, "__launch_bounds__(%d, %d) ", n->n, n->hint);
    else if (n->n > 0) fdx_sb_printf(o, "__launch_bounds__(%d) ", n->n);
    fdx_sb_printf(o, "%s(", n->text);
    for (int i = 0; i < n->m; i++) {
        const fdx_cg_param *q = &n->params[i];
        fdx_sb_printf(o, "%s%s %s%s", i ? ",\n    " : "", q->type, q->pointer ? "*__restrict__ " : "", q->name);
    }
    fdx_sb_puts(o, ")\n{\n");
}

/* ---- C with OpenMP ----------------------------------------------------------------- */

static void c_load(printer *p, const fdx_cg_node *n)
{
    for (int v = 0; v < n->lanes.lanes; v++)
        fdx_sb_line(p->out, "%s%d%s = (%s)[%s + %d];", n->lanes.pre, n->lanes.first + v, n->lanes.suf, n->a, n->b, v);
}

static void c_store(printer *p, const fdx_cg_node *n)
{
    for (int v = 0; v < n->lanes.lanes; v++)
        fdx_sb_line(p->out, "(%s)[%d] = %s%d%s;", n->a, v, n->lanes.pre, n->lanes.first + v, n->lanes.suf);
}

/* The C kernel takes void **args, as cudaLaunchKernel does; the parameters
   are unpacked into the names the body uses.  A kernel made by
   fdx_cg_kernel_by_address (n->a: the array's name) finds every parameter,
   pointers included, at the address args[i]. */
static void c_kernel_head(printer *p, const fdx_cg_node *n)
{
    fdx_sb *o = p->out;
    fdx_sb_printf(o, "void %s(void **%s)\n{\n", n->text, n->a ? n->a : "args");
    o->indent++;
    for (int i = 0; i < n->m; i++) {
        const fdx_cg_param *q = &n->params[i];
        if (n->a && q->pointer)
            fdx_sb_line(o, "%s *restrict %s = *(%s **)%s[%d];", q->type, q->name, q->type, n->a, i);
        else if (n->a)
            fdx_sb_line(o, "%s %s = *(%s *)%s[%d];", q->type, q->name, q->type, n->a, i);
        else if (q->pointer)
            fdx_sb_line(o, "%s *restrict %s = (%s *)args[%d];", q->type, q->name, q->type, i);
        else
            fdx_sb_line(o, "%s %s = *(%s *)args[%d];", q->type, q->name, q->type, i);
        fdx_sb_line(o, "(void)%s;", q->name);
    }
    o->indent--;
}

static const char *c_pragma(int pragma, int nest)
{
    switch (pragma) {
    case FDX_CG_LOOP_SIMD: return "#pragma omp simd";
    case FDX_CG_LOOP_PARALLEL_SIMD: return "#pragma omp parallel for simd schedule(static)";
    case FDX_CG_LOOP_PARALLEL:
        return nest == 1 ? "#pragma omp parallel for schedule(static)"
               : nest == 2 ? "#pragma omp parallel for collapse(2) schedule(static)"
                           : "#pragma omp parallel for collapse(3) schedule(static)";
    default: return NULL;
    }
}

/* ---- the walk ------------------------------------------------------------------------ */

static void print_children(printer *p, const fdx_cg_node *n);

/* Text that may span lines (a long sum): its first line at the current
   indentation, the others one level deeper; `end` after the last. */
static void print_text(printer *p, const char *text, const char *end)
{
    fdx_sb *o = p->out;
    for (int i = 0; i < o->indent; i++) fdx_sb_puts(o, "    ");
    for (const char *s = text; *s; s++) {
        if (*s != '\n') {
            fdx_sb_printf(o, "%c", *s);
            continue;
        }
        fdx_sb_puts(o, "\n");
        for (int i = 0; i <= o->indent; i++) fdx_sb_puts(o, "    ");
    }
    fdx_sb_printf(o, "%s\n", end);
}

static void print_body(printer *p, const fdx_cg_node *n)
{
    p->out->indent++;
    print_children(p, n);
    p->out->indent--;
}

/* Loops nested without statements between them (one loop's body is only
   the next loop): their count, for collapse. */
static int nest_depth(const fdx_cg_node *n)
{
    int d = 1;
    while (n->first && n->first == n->last && n->first->kind == CG_FOR) d++, n = n->first;
    return d;
}

static void print_for(printer *p, const fdx_cg_node *n, int inner)
{
    fdx_sb *o = p->out;
    const char *pragma = NULL;
    if (!inner && p->target == FDX_CG_C) pragma = c_pragma(n->n, nest_depth(n));
    if (!inner && p->target == FDX_CG_CUDA && n->n == FDX_CG_LOOP_NOUNROLL) pragma = "#pragma unroll 1";
    if (pragma) fdx_sb_printf(o, "%s\n", pragma); /* pragmas start the line */
    if (!inner && p->target == FDX_CG_C && n->n == FDX_CG_LOOP_WORKSHARE) {
        int nest = nest_depth(n);
        if (nest > 1) fdx_sb_printf(o, "#pragma omp for collapse(%d) schedule(static) nowait\n", nest);
        else fdx_sb_printf(o, "#pragma omp for schedule(static) nowait\n");
    }
    int tight = n->first && n->first == n->last && n->first->kind == CG_FOR;
    if (tight) { /* a perfect nest: the inner loop on the next line, no braces */
        fdx_sb_line(o, "for (%s)", n->text);
        print_for(p, n->first, 1);
        return;
    }
    fdx_sb_line(o, "for (%s) {", n->text);
    print_body(p, n);
    fdx_sb_line(o, "}");
}

static void print_node(printer *p, const fdx_cg_node *n)
{
    fdx_sb *o = p->out;
    int cuda = p->target == FDX_CG_CUDA;
    switch (n->kind) {
    case CG_ROOT: print_children(p, n); break;
    case CG_STMT: print_text(p, n->text, ";"); break;
    case CG_LINE:
        if (n->text[0] == '#') fdx_sb_printf(o, "%s\n", n->text); /* preprocessor lines start the line */
        else print_text(p, n->text, "");
        break;
    case CG_RAW: fdx_sb_puts(o, n->text); break;
    case CG_COMMENT: fdx_sb_line(o, "/* %s */", n->text); break;
    case CG_SCOPE:
    case CG_ELSE:
        fdx_sb_line(o, "{");
        print_body(p, n);
        fdx_sb_line(o, "}");
        break;
    case CG_IF:
        fdx_sb_line(o, "if (%s) {", n->text);
        print_body(p, n);
        if (n->els) {
            fdx_sb_line(o, "} else {");
            print_body(p, n->els);
        }
        fdx_sb_line(o, "}");
        break;
    case CG_FOR: print_for(p, n, 0); break;
    case CG_KERNEL:
        if (cuda) cuda_kernel_head(p, n);
        else c_kernel_head(p, n);
        print_body(p, n);
        fdx_sb_puts(o, "}\n");
        break;
    case CG_HELPER:
        fdx_sb_printf(o, "%s %s %s(%s)\n{\n", cuda ? "__device__ __forceinline__" : "static inline", n->a, n->text,
                      n->b);
        print_body(p, n);
        fdx_sb_puts(o, "}\n");
        break;
    case CG_LOAD:
        if (cuda) cuda_load(p, n);
        else c_load(p, n);
        break;
    case CG_STORE:
        if (cuda) cuda_store(p, n);
        else c_store(p, n);
        break;
    case CG_BARRIER:
        if (cuda && n->text) fdx_sb_line(o, "__syncthreads(); /* %s */", n->text);
        else if (cuda) fdx_sb_line(o, "__syncthreads();");
        else fdx_sb_printf(o, "#pragma omp barrier\n");
        break;
    case CG_SHARED:
        if (!cuda) p->unsupported = p->unsupported ? p->unsupported : "shared memory";
        else if (n->b) fdx_sb_line(o, "__shared__ %s %s%s;", n->a, n->text, n->b);
        else fdx_sb_line(o, "extern __shared__ __align__(16) %s %s[];", n->a, n->text);
        break;
    case CG_ACOPY:
        if (!cuda) {
            p->unsupported = p->unsupported ? p->unsupported : "asynchronous copies";
            break;
        }
        fdx_sb_line(o, "%s%s%sasm volatile(\"cp.async.%s.shared.global [%%0], [%%1], %d;\" :: \"r\"(%s), \"l\"(%s) : "
                       "\"memory\");",
                    n->text ? "if (" : "", n->text ? n->text : "", n->text ? ") " : "", n->n == 16 ? "cg" : "ca", n->n,
                    n->a, n->b);
        break;
    case CG_ACOMMIT:
        if (cuda) fdx_sb_line(o, "asm volatile(\"cp.async.commit_group;\" ::: \"memory\");");
        else p->unsupported = p->unsupported ? p->unsupported : "asynchronous copies";
        break;
    case CG_PREFETCH:
        if (cuda) fdx_sb_line(o, "asm volatile(\"prefetch.global.L2 [%%0];\" :: \"l\"(%s));", n->text);
        else fdx_sb_line(o, "__builtin_prefetch(%s);", n->text);
        break;
    case CG_AWAIT:
        if (!cuda) p->unsupported = p->unsupported ? p->unsupported : "asynchronous copies";
        else if (n->n < 0) fdx_sb_line(o, "asm volatile(\"cp.async.wait_all;\" ::: \"memory\");");
        else if (n->text) fdx_sb_line(o, "asm volatile(\"cp.async.wait_group %d;\" ::: \"memory\"); /* %s */", n->n, n->text);
        else fdx_sb_line(o, "asm volatile(\"cp.async.wait_group %d;\" ::: \"memory\");", n->n);
        break;
    }
}

static void print_children(printer *p, const fdx_cg_node *n)
{
    for (const fdx_cg_node *c = n->first; c; c = c->next) print_node(p, c);
}

fdx_status fdx_cg_print(fdx_cg *cg, fdx_sb *out)
{
    FDX_CHECK(!cg->failed, FDX_ERR_NOMEM, "out of memory building generated code");
    printer p = {out, cg->target, NULL};
    int indent = out->indent;
    out->indent = 0;
    print_node(&p, &cg->root);
    out->indent = indent;
    FDX_CHECK(!p.unsupported, FDX_ERR_UNSUPPORTED, "generated C has %s, which only CUDA has", p.unsupported);
    return fdx_sb_status(out, "generated code");
}
