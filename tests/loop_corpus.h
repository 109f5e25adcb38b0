/* loop_corpus.h: the loop generator's identity corpus: loops over every
   strategy fdx_loop_gen.c has (plain parallel loops, ACROSS hyperplanes
   flat and as lines, reductions of each operation and type including _LOC,
   plain / permuted / diagonal layouts, shifted arrays as the distributed
   loops use them, descending order), each generated for CUDA and for the
   CPU through fdx_loop_source, with a CPU context (no GPU needed).  Each
   source goes to `each` with a label naming the case.  Then the NPB LU
   loops as `fdx lu` builds them (test_codegen_corpus links tools/fdx/lu_*.c). */
#ifndef FDX_LOOP_CORPUS_H
#define FDX_LOOP_CORPUS_H

#include "fdx_test.h"
#include "loops/fdx_loop_impl.h"
#include "lu.h" /* tools/fdx: the NPB LU loops */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void (*loop_corpus_each)(char *src, int cuda, const char *entry, const char *label);

/* Reduction sets: operation and type per reduction. */
static const struct {
    int n;
    fdx_reduce op[3];
    fdx_dtype type[3];
} loop_corpus_reds[] = {
    {0, {0}, {0}},
    {1, {FDX_REDUCE_SUM}, {FDX_FLOAT64}},
    {2, {FDX_REDUCE_MAX, FDX_REDUCE_MINLOC}, {FDX_INT32, FDX_FLOAT32}},
    {3, {FDX_REDUCE_PROD, FDX_REDUCE_OR, FDX_REDUCE_MAXLOC}, {FDX_INT64, FDX_INT32, FDX_FLOAT64}},
    {3, {FDX_REDUCE_AND, FDX_REDUCE_SUM, FDX_REDUCE_MIN}, {FDX_INT64, FDX_INT32, FDX_FLOAT32}},
    {2, {FDX_REDUCE_MINLOC, FDX_REDUCE_MAX}, {FDX_INT64, FDX_FLOAT64}},
};
#define LOOP_CORPUS_NREDS ((int)(sizeof loop_corpus_reds / sizeof *loop_corpus_reds))

/* An access of `name` at the loop's point plus offset `off` on axis `ax`
   (ax < 0: none). */
static void loop_corpus_at(char *buf, size_t cap, const char *name, int rank, int ax, int off)
{
    static const char *ix[3] = {"i", "j", "k"};
    size_t n = (size_t)snprintf(buf, cap, "%s(", name);
    for (int d = 0; d < rank && n < cap; d++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%s%s", d ? "," : "", ix[d],
                              d == ax ? (off > 0 ? "+1" : "-1") : "");
    if (n < cap) snprintf(buf + n, cap - n, ")");
}

/* across: 0 none, 1 width 1 on every axis, 2 on the first two axes (rank
   3) or the first (rank 2), 3 width 2 on the last axis only. */
static void loop_corpus_one(fdx_ctx *ctx, int rank, int lay, int across, int red, int down, int shifted,
                            loop_corpus_each each)
{
    static const int64_t shape[3][3] = {{37, 1, 1}, {29, 23, 1}, {13, 11, 9}};
    const int64_t *n = shape[rank - 1];
    int perm[3] = {rank - 1, rank > 1 ? rank - 2 : 0, 0};
    fdx_layout L;
    if (lay == 0) CHECK_OK(fdx_layout_make(rank, NULL, FDX_DIAG_NONE, &L));
    else if (lay == 1) CHECK_OK(fdx_layout_make(rank, perm, FDX_DIAG_NONE, &L));
    else CHECK_OK(fdx_layout_make(rank, NULL, lay == 2 ? FDX_DIAG_ANTI : FDX_DIAG_MAIN, &L));
    fdx_array *A = NULL, *B = NULL;
    int64_t nb[3] = {n[0] - 2, n[1] > 1 ? n[1] - 2 : 1, n[2] > 1 ? n[2] - 2 : 1};
    CHECK_OK(fdx_array_create(ctx, FDX_FLOAT64, rank, n, FDX_ON_HOST, &A));
    CHECK_OK(fdx_array_create(ctx, lay == 1 ? FDX_FLOAT32 : FDX_FLOAT64, rank, shifted ? nb : n, FDX_ON_HOST, &B));
    if (!A || !B) goto out;
    CHECK_OK(fdx_array_set_layout(A, &L));
    fdx_loop *l = NULL;
    CHECK_OK(fdx_loop_create(ctx, rank == 1 ? "i" : rank == 2 ? "i,j" : "i,j,k", &l));
    if (!l) goto out;
    char label[256], body[2048], a[64], b[64];
    snprintf(label, sizeof label, "loop rank %d layout %d across %d reds %d down %d shifted %d\n", rank, lay,
             across, red, down, shifted);
    CHECK_OK(fdx_loop_name(l, label + 5));
    CHECK_OK(fdx_loop_set_autotfm(l, 0));
    int64_t lo[3] = {1, 1, 1}, hi[3] = {n[0] - 1, n[1] - 1, n[2] - 1};
    CHECK_OK(fdx_loop_range(l, lo, hi));
    CHECK_OK(fdx_loop_array(l, "A", A, across ? FDX_READ_WRITE : FDX_READ));
    CHECK_OK(fdx_loop_array(l, "B", B, FDX_WRITE));
    if (shifted) CHECK_OK(fdx_loop_array_origin(l, "B", (int64_t[]){1, 1, 1}));
    CHECK_OK(fdx_loop_scalar(l, "w", 0.25));
    int width[3] = {0, 0, 0};
    if (across == 1) width[0] = width[1] = width[2] = 1;
    if (across == 2) width[0] = 1, width[1] = rank == 3 ? 1 : 0;
    if (across == 3) width[rank - 1] = 2;
    if (across) CHECK_OK(fdx_loop_across(l, width));
    if (down) CHECK_OK(fdx_loop_order(l, (int[]){-1, 1, down > 1 ? -1 : 1}));
    /* the body: a weighted sum of the neighbours on the ACROSS axes (or on
       every axis of the read-only A), written to A (ACROSS) and B */
    size_t m = 0;
    loop_corpus_at(a, sizeof a, "A", rank, -1, 0);
    m += (size_t)snprintf(body + m, sizeof body - m, "double v = %s", a);
    for (int d = 0; d < rank; d++) {
        if (across && !width[d]) continue;
        loop_corpus_at(a, sizeof a, "A", rank, d, -1);
        loop_corpus_at(b, sizeof b, "A", rank, d, +1);
        m += (size_t)snprintf(body + m, sizeof body - m, " + w * (%s - %s)", a, b);
    }
    m += (size_t)snprintf(body + m, sizeof body - m, ";\n");
    loop_corpus_at(a, sizeof a, "A", rank, -1, 0);
    if (across) m += (size_t)snprintf(body + m, sizeof body - m, "%s = v;\n", a);
    loop_corpus_at(b, sizeof b, "B", rank, -1, 0);
    m += (size_t)snprintf(body + m, sizeof body - m, "%s = v * 0.5;\n", b);
    for (int r = 0; r < loop_corpus_reds[red].n; r++) {
        char name[16];
        snprintf(name, sizeof name, "r%d", r);
        CHECK_OK(fdx_loop_reduction_typed(l, name, loop_corpus_reds[red].op[r], loop_corpus_reds[red].type[r]));
        int is_int = loop_corpus_reds[red].type[r] == FDX_INT32 || loop_corpus_reds[red].type[r] == FDX_INT64;
        m += (size_t)snprintf(body + m, sizeof body - m, "%s = %s;\n", name, is_int ? "(long long)(v * 8) + i" : "v");
    }
    CHECK_OK(fdx_loop_body(l, body));
    for (int lines = 0; lines < (across ? 2 : 1); lines++) {
        if (lines) setenv("FDX_LOOP_LINES", "0", 1);
        for (int cuda = lines; cuda < 2; cuda++) {
            char *src = NULL, text[320];
            CHECK_OK(fdx_loop_source(l, cuda ? FDX_BACKEND_CUDA : FDX_BACKEND_CPU, &src));
            snprintf(text, sizeof text, "%s%s", lines ? "flat " : "", label);
            each(src, cuda, cuda ? "fdx_loop_kernel" : "fdx_loop_entry", text);
        }
        if (lines) unsetenv("FDX_LOOP_LINES");
    }
    fdx_loop_destroy(&l);
out:
    fdx_array_destroy(&A);
    fdx_array_destroy(&B);
}

/* The NPB LU loops of the fdx tool (tools/fdx/lu_loops.c), both targets:
   under plain layouts, and as `fdx lu` plans them for a GPU (the iteration
   over anti-diagonals, the sweeps moved to the GPU's layouts by one SSOR
   step run on the CPU, as test_lu does). */
static void loop_corpus_lu(fdx_ctx *ctx, loop_corpus_each each)
{
    for (int mode = 0; mode < 2; mode++) {
        lu *p = NULL;
        CHECK_OK(lu_create(ctx, 12, 11, 10, 0.5, 1.2, mode ? LU_AUTOTFM_DIAGONAL : 0, &p));
        if (!p) return;
        fdx_loop *loops[LU_NLOOPS];
        const char *names[LU_NLOOPS];
        int n = lu_loops(p, loops, names);
        if (mode) {
            for (int q = 0; q < n; q++) CHECK_OK(fdx_loop_plan_for(loops[q], FDX_BACKEND_CUDA));
            CHECK_OK(fdx_loop_set_autotfm(p->blts, 2));
            CHECK_OK(fdx_loop_set_autotfm(p->buts, 2));
            double rsdnm[5];
            CHECK_OK(lu_setiv(p));
            CHECK_OK(lu_ssor(p, 1, rsdnm, NULL));
        }
        for (int q = 0; q < n; q++)
            for (int cuda = 0; cuda < 2; cuda++) {
                char *src = NULL, label[128];
                CHECK_OK(fdx_loop_source(loops[q], cuda ? FDX_BACKEND_CUDA : FDX_BACKEND_CPU, &src));
                snprintf(label, sizeof label, "lu %s%s\n", names[q], mode ? " planned for the GPU" : "");
                each(src, cuda, cuda ? "fdx_loop_kernel" : "fdx_loop_entry", label);
            }
        lu_destroy(&p);
    }
}

/* The cases: every rank, layout and ACROSS form; the reduction set, the
   order and the shift rotate through them, so each appears with each rank. */
static void loop_corpus(loop_corpus_each each)
{
    fdx_ctx *ctx = fdx_test_ctx("cpu");
    CHECK(ctx != NULL, "no CPU context for the loop corpus");
    if (!ctx) return;
    int q = 0;
    for (int rank = 1; rank <= 3; rank++)
        for (int lay = 0; lay < 4; lay++) {
            if (lay >= 2 && rank < 2) continue;
            for (int across = 0; across < 4; across++)
                for (int v = 0; v < 3; v++, q++) {
                    int shifted = !across && (q % 2);
                    loop_corpus_one(ctx, rank, lay, across, (q + v) % LOOP_CORPUS_NREDS, (q / 2 + v) % 3, shifted,
                                    each);
                }
        }
    loop_corpus_lu(ctx, each);
    fdx_ctx_destroy(&ctx);
}

#endif
