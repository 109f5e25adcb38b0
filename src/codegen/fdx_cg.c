/* fdx_cg: building the tree.  Nodes and strings come from an arena freed
   with the tree; a failed allocation marks the tree failed and the
   builders then hand out an empty node or "" so the generator runs on. */
#include "codegen/fdx_cg_impl.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct cg_block {
    struct cg_block *next;
    size_t used, cap;
    _Alignas(16) unsigned char data[];
} cg_block;

static void *cg_alloc(fdx_cg *cg, size_t n)
{
    n = (n + 15) & ~(size_t)15;
    cg_block *b = cg->blocks;
    if (!b || b->used + n > b->cap) {
        size_t cap = n > 65536 ? n : 65536;
        b = malloc(sizeof *b + cap);
        if (!b) {
            cg->failed = 1;
            return NULL;
        }
        b->next = cg->blocks, b->used = 0, b->cap = cap;
        cg->blocks = b;
    }
    void *p = b->data + b->used;
    b->used += n;
    return p;
}

fdx_cg *fdx_cg_create(fdx_cg_target target)
{
    fdx_cg *cg = calloc(1, sizeof *cg);
    if (!cg) return NULL;
    cg->target = target;
    cg->root.kind = CG_ROOT;
    cg->root.cg = cg;
    return cg;
}

void fdx_cg_destroy(fdx_cg *cg)
{
    if (!cg) return;
    for (cg_block *b = cg->blocks, *n; b; b = n) n = b->next, free(b);
    free(cg);
}

fdx_cg_target fdx_cg_target_of(const fdx_cg *cg) { return cg->target; }
fdx_cg_node *fdx_cg_root(fdx_cg *cg) { return &cg->root; }

static const char *vfmt(fdx_cg *cg, const char *fmt, va_list ap)
{
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    char *s = n >= 0 ? cg_alloc(cg, (size_t)n + 1) : NULL;
    if (s) vsnprintf(s, (size_t)n + 1, fmt, again);
    va_end(again);
    if (n < 0) cg->failed = 1;
    return s ? s : "";
}

const char *fdx_cg_fmt(fdx_cg *cg, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    const char *s = vfmt(cg, fmt, ap);
    va_end(ap);
    return s;
}

const char *fdx_cg_text(fdx_cg *cg, fdx_sb *text)
{
    if (text->failed) cg->failed = 1;
    const char *s = fdx_cg_fmt(cg, "%s", fdx_sb_str(text));
    fdx_sb_free(text);
    return s;
}

const char *fdx_cg_ld(fdx_cg *cg, fdx_cg_hint hint, const char *addr)
{
    if (cg->target == FDX_CG_C) return fdx_cg_fmt(cg, "*(%s)", addr);
    return fdx_cg_fmt(cg, "%s(%s)", hint == FDX_CG_STREAM ? "__ldcs" : hint == FDX_CG_LDG ? "__ldg" : "*", addr);
}

/* A new child of `at` (a spare node when out of memory, so callers never
   see NULL). */
static fdx_cg_node *add(fdx_cg_node *at, cg_kind kind)
{
    fdx_cg *cg = at->cg;
    fdx_cg_node *n = cg_alloc(cg, sizeof *n);
    if (!n) {
        static _Thread_local fdx_cg_node spare;
        memset(&spare, 0, sizeof spare);
        spare.cg = cg;
        return &spare;
    }
    memset(n, 0, sizeof *n);
    n->kind = kind;
    n->cg = cg;
    if (at->last) at->last->next = n;
    else at->first = n;
    at->last = n;
    return n;
}

#define TEXT_OF(node, fmt)                      \
    do {                                        \
        va_list ap;                             \
        va_start(ap, fmt);                      \
        (node)->text = vfmt((node)->cg, fmt, ap); \
        va_end(ap);                             \
    } while (0)

void fdx_cg_stmt(fdx_cg_node *at, const char *fmt, ...)
{
    fdx_cg_node *n = add(at, CG_STMT);
    TEXT_OF(n, fmt);
}

void fdx_cg_line(fdx_cg_node *at, const char *fmt, ...)
{
    fdx_cg_node *n = add(at, CG_LINE);
    TEXT_OF(n, fmt);
}

void fdx_cg_raw(fdx_cg_node *at, const char *text) { add(at, CG_RAW)->text = fdx_cg_fmt(at->cg, "%s", text); }

void fdx_cg_comment(fdx_cg_node *at, const char *fmt, ...)
{
    fdx_cg_node *n = add(at, CG_COMMENT);
    TEXT_OF(n, fmt);
}

fdx_cg_node *fdx_cg_scope(fdx_cg_node *at) { return add(at, CG_SCOPE); }

fdx_cg_node *fdx_cg_if(fdx_cg_node *at, const char *fmt, ...)
{
    fdx_cg_node *n = add(at, CG_IF);
    TEXT_OF(n, fmt);
    return n;
}

fdx_cg_node *fdx_cg_else(fdx_cg_node *body_of_if)
{
    if (!body_of_if->els) {
        fdx_cg_node *e = cg_alloc(body_of_if->cg, sizeof *e);
        if (!e) return add(body_of_if, CG_SCOPE); /* the spare */
        memset(e, 0, sizeof *e);
        e->kind = CG_ELSE;
        e->cg = body_of_if->cg;
        body_of_if->els = e;
    }
    return body_of_if->els;
}

fdx_cg_node *fdx_cg_for(fdx_cg_node *at, fdx_cg_loop pragma, const char *fmt, ...)
{
    fdx_cg_node *n = add(at, CG_FOR);
    TEXT_OF(n, fmt);
    n->n = (int)pragma;
    return n;
}

fdx_cg_node *fdx_cg_kernel(fdx_cg_node *at, const char *name, const fdx_cg_param *params, int n, int threads,
                           int min_blocks)
{
    fdx_cg_node *k = add(at, CG_KERNEL);
    fdx_cg_param *p = cg_alloc(at->cg, sizeof *p * (size_t)(n > 0 ? n : 1));
    if (p)
        for (int i = 0; i < n; i++) {
            p[i] = params[i];
            p[i].type = fdx_cg_fmt(at->cg, "%s", params[i].type);
            p[i].name = fdx_cg_fmt(at->cg, "%s", params[i].name);
        }
    k->text = fdx_cg_fmt(at->cg, "%s", name);
    k->params = p;
    k->m = p ? n : 0;
    k->n = threads;
    k->hint = min_blocks;
    return k;
}

fdx_cg_node *fdx_cg_kernel_by_address(fdx_cg_node *at, const char *name, const char *args_name,
                                      const fdx_cg_param *params, int n, int threads)
{
    fdx_cg_node *k = fdx_cg_kernel(at, name, params, n, threads, 0);
    k->a = fdx_cg_fmt(at->cg, "%s", args_name);
    return k;
}

fdx_cg_node *fdx_cg_helper(fdx_cg_node *at, const char *ret, const char *name, const char *params)
{
    fdx_cg_node *h = add(at, CG_HELPER);
    h->a = fdx_cg_fmt(at->cg, "%s", ret);
    h->text = fdx_cg_fmt(at->cg, "%s", name);
    h->b = fdx_cg_fmt(at->cg, "%s", params);
    return h;
}

static fdx_cg_lanes copy_lanes(fdx_cg *cg, fdx_cg_lanes l)
{
    l.pre = fdx_cg_fmt(cg, "%s", l.pre ? l.pre : "");
    l.suf = fdx_cg_fmt(cg, "%s", l.suf ? l.suf : "");
    return l;
}

void fdx_cg_load(fdx_cg_node *at, fdx_cg_lanes dst, const char *vtype, const char *ptr, const char *idx,
                 fdx_cg_hint hint, int window)
{
    fdx_cg_node *n = add(at, CG_LOAD);
    n->lanes = copy_lanes(at->cg, dst);
    n->a = fdx_cg_fmt(at->cg, "%s", ptr);
    n->b = fdx_cg_fmt(at->cg, "%s", idx);
    n->c = fdx_cg_fmt(at->cg, "%s", vtype ? vtype : "");
    n->hint = (int)hint;
    n->window = window;
}

void fdx_cg_store(fdx_cg_node *at, fdx_cg_lanes src, const char *vtype, const char *ptr, fdx_cg_hint hint)
{
    fdx_cg_node *n = add(at, CG_STORE);
    n->lanes = copy_lanes(at->cg, src);
    n->a = fdx_cg_fmt(at->cg, "%s", ptr);
    n->c = fdx_cg_fmt(at->cg, "%s", vtype ? vtype : "");
    n->hint = (int)hint;
}

void fdx_cg_shared(fdx_cg_node *at, const char *type, const char *name, const char *dims)
{
    fdx_cg_node *n = add(at, CG_SHARED);
    n->a = fdx_cg_fmt(at->cg, "%s", type);
    n->text = fdx_cg_fmt(at->cg, "%s", name);
    n->b = dims ? fdx_cg_fmt(at->cg, "%s", dims) : NULL;
}

void fdx_cg_barrier(fdx_cg_node *at, const char *why)
{
    add(at, CG_BARRIER)->text = why ? fdx_cg_fmt(at->cg, "%s", why) : NULL;
}

void fdx_cg_async_copy(fdx_cg_node *at, const char *cond, const char *dst, const char *src, int bytes)
{
    fdx_cg_node *n = add(at, CG_ACOPY);
    n->text = cond ? fdx_cg_fmt(at->cg, "%s", cond) : NULL;
    n->a = fdx_cg_fmt(at->cg, "%s", dst);
    n->b = fdx_cg_fmt(at->cg, "%s", src);
    n->n = bytes;
}

void fdx_cg_async_commit(fdx_cg_node *at) { add(at, CG_ACOMMIT); }

void fdx_cg_async_wait(fdx_cg_node *at, int pending, const char *why)
{
    fdx_cg_node *n = add(at, CG_AWAIT);
    n->n = pending;
    n->text = why ? fdx_cg_fmt(at->cg, "%s", why) : NULL;
}

void fdx_cg_prefetch(fdx_cg_node *at, const char *addr) { add(at, CG_PREFETCH)->text = fdx_cg_fmt(at->cg, "%s", addr); }
