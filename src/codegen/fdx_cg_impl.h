/* fdx_cg (internal to src/codegen): the nodes the builders make and the
   printers walk. */
#ifndef FDX_CG_IMPL_H
#define FDX_CG_IMPL_H

#include "codegen/fdx_cg.h"

typedef enum cg_kind {
    CG_ROOT,
    CG_STMT,    /* text; */
    CG_LINE,    /* text */
    CG_RAW,     /* text, verbatim */
    CG_COMMENT, /* / * text * / */
    CG_SCOPE,   /* { children } */
    CG_IF,      /* if (text) { children } [else { els }] */
    CG_ELSE,    /* the else body of an if (a scope) */
    CG_FOR,     /* pragma; for (text) { children } */
    CG_KERNEL,  /* name (text), params, threads, min_blocks */
    CG_HELPER,  /* ret (a), name (text), params (b) */
    CG_LOAD,    /* lanes <- ptr (a) + idx (b), vtype (c), hint, window */
    CG_STORE,   /* lanes -> ptr (a), vtype (c), hint */
    CG_SHARED,  /* type (a) name (text) dims (b) */
    CG_BARRIER, /* why (text) */
    CG_ACOPY,   /* cond (text), dst (a), src (b), bytes (n) */
    CG_ACOMMIT,
    CG_AWAIT,   /* pending (n), why (text) */
    CG_PREFETCH /* addr (text) */
} cg_kind;

struct fdx_cg_node {
    cg_kind kind;
    fdx_cg *cg;
    const char *text, *a, *b, *c;
    int n, m, hint, window;
    fdx_cg_lanes lanes;
    const fdx_cg_param *params;
    fdx_cg_node *first, *last, *next, *els;
};

struct fdx_cg {
    fdx_cg_target target;
    int failed;
    fdx_cg_node root;
    /* The arena: blocks of memory freed together. */
    struct cg_block *blocks;
};

#endif
