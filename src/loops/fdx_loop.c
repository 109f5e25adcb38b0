/* fdx_loop: the loop object: indices, ranges, arrays, scalars, reductions,
   ACROSS widths and the body, each checked as it is declared. */
#include "loops/fdx_loop_impl.h"
#include "loops/fdx_loop_graph.h"
#include "core/fdx_log.h"

#include <ctype.h>
#include <float.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int fdx_loop_is_ident(const char *s)
{
    if (!s || !(isalpha((unsigned char)*s) || *s == '_')) return 0;
    for (; *s; s++)
        if (!(isalnum((unsigned char)*s) || *s == '_')) return 0;
    return 1;
}

/* A new name must be an identifier, short, not reserved for the generated
   code (fdx_ prefix) and not already used by an index, array, scalar or
   reduction of this loop. */
static fdx_status check_name(const fdx_loop *l, const char *name, const char *what)
{
    FDX_CHECK(name && fdx_loop_is_ident(name), FDX_ERR_INVALID, "%s name '%s' is not a C identifier", what,
              name ? name : "(null)");
    FDX_CHECK(strlen(name) < LOOP_NAME_MAX, FDX_ERR_INVALID, "%s name '%s' is longer than %d characters", what,
              name, LOOP_NAME_MAX - 1);
    FDX_CHECK(strncmp(name, "fdx_", 4) != 0, FDX_ERR_INVALID, "%s name '%s': the prefix fdx_ is reserved", what,
              name);
    int dup = 0;
    for (int d = 0; d < l->rank; d++) dup |= strcmp(l->index[d], name) == 0;
    for (int a = 0; a < l->nargs; a++) dup |= strcmp(l->arg[a].name, name) == 0;
    for (int s = 0; s < l->nscalars; s++) dup |= strcmp(l->scalar_name[s], name) == 0;
    for (int r = 0; r < l->nreds; r++) dup |= strcmp(l->red[r].name, name) == 0;
    FDX_CHECK(!dup, FDX_ERR_INVALID, "%s name '%s' is already used in loop '%s'", what, name, l->name);
    return FDX_OK;
}

static int autotfm_mode(const char *v)
{
    if (!v) return 1;
    if (strcmp(v, "off") == 0 || strcmp(v, "0") == 0) return 0;
    if (strcmp(v, "force") == 0) return 2;
    return 1;
}

fdx_status fdx_loop_create(fdx_ctx *ctx, const char *indices, fdx_loop **out)
{
    FDX_CHECK(out, FDX_ERR_INVALID, "fdx_loop_create: out is NULL");
    *out = NULL;
    FDX_CHECK(ctx && indices, FDX_ERR_INVALID, "fdx_loop_create: NULL context or index list");
    fdx_loop *l = calloc(1, sizeof *l);
    FDX_CHECK(l, FDX_ERR_NOMEM, "out of memory creating a loop");
    l->ctx = ctx;
    snprintf(l->name, sizeof l->name, "loop");
    l->autotfm = autotfm_mode(fdx_options_get(fdx_ctx_options(ctx), "autotfm"));
    l->plan_target = FDX_BACKEND_AUTO;
    for (int d = 0; d < FDX_LOOP_MAX_RANK; d++) l->dir[d] = 1;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", indices);
    fdx_status st = FDX_OK;
    for (char *save = NULL, *tok = strtok_r(buf, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
        if (l->rank == FDX_LOOP_MAX_RANK) {
            st = fdx_fail(FDX_ERR_INVALID, "loop indices '%s': more than %d", indices, FDX_LOOP_MAX_RANK);
            break;
        }
        if ((st = check_name(l, tok, "loop index")) != FDX_OK) break;
        snprintf(l->index[l->rank++], LOOP_NAME_MAX, "%s", tok);
    }
    if (st == FDX_OK && l->rank == 0) st = fdx_fail(FDX_ERR_INVALID, "loop indices '%s': none given", indices);
    if (st != FDX_OK) {
        free(l);
        return st;
    }
    *out = l;
    return FDX_OK;
}

void fdx_loop_destroy(fdx_loop **pl)
{
    if (!pl || !*pl) return;
    fdx_loop *l = *pl;
    const fdx_backend *be = fdx_ctx_ops(l->ctx);
    for (int i = 0; i < LOOP_KCACHE; i++) {
        if (l->kcache[i].kernel) be->kernel_release(l->kcache[i].kernel);
        free(l->kcache[i].source);
    }
    fdx_loop_graph_drop(l);
    fdx_loop_graph_free(NULL, l->graph_stream);
    if (l->partials) be->free(l->partials);
    if (l->coop_bar) be->free(l->coop_bar);
    if (l->scratch) be->free(l->scratch);
    free(l->pend_v);
    free(l->pend_l);
    free(l->part.hv); /* a run in parts left unfinished (an error) */
    free(l->part.hl);
    free(l->body);
    free(l);
    *pl = NULL;
}

fdx_status fdx_loop_name(fdx_loop *l, const char *name)
{
    FDX_CHECK(l && name && *name, FDX_ERR_INVALID, "fdx_loop_name: NULL or empty name");
    snprintf(l->name, sizeof l->name, "%s", name);
    return FDX_OK;
}

fdx_status fdx_loop_range(fdx_loop *l, const int64_t *lo, const int64_t *hi)
{
    FDX_CHECK(l && lo && hi, FDX_ERR_INVALID, "fdx_loop_range: NULL argument");
    for (int d = 0; d < l->rank; d++)
        FDX_CHECK(lo[d] >= 0 && hi[d] > lo[d], FDX_ERR_INVALID,
                  "loop '%s': range of index %s is [%lld, %lld), empty or negative", l->name, l->index[d],
                  (long long)lo[d], (long long)hi[d]);
    for (int d = 0; d < l->rank; d++) {
        l->lo[d] = lo[d];
        l->hi[d] = hi[d];
    }
    l->have_range = 1;
    return FDX_OK;
}

fdx_status fdx_loop_on(fdx_loop *l, fdx_array *a, const int *axes)
{
    FDX_CHECK(l && a, FDX_ERR_INVALID, "fdx_loop_on: NULL argument");
    FDX_CHECK(a->ctx == l->ctx, FDX_ERR_INVALID, "loop '%s': the array belongs to another context", l->name);
    if (l->have_range) return FDX_OK;
    int64_t lo[FDX_LOOP_MAX_RANK] = {0}, hi[FDX_LOOP_MAX_RANK];
    for (int d = 0; d < l->rank; d++) {
        int ax = axes ? axes[d] : d;
        FDX_CHECK(ax >= 0 && ax < a->rank, FDX_ERR_INVALID, "loop '%s': index %s aligned with axis %d of a rank-%d array",
                  l->name, l->index[d], ax, a->rank);
        hi[d] = a->shape[ax];
    }
    return fdx_loop_range(l, lo, hi);
}

fdx_status fdx_loop_array(fdx_loop *l, const char *name, fdx_array *a, fdx_access access)
{
    FDX_CHECK(l && a, FDX_ERR_INVALID, "fdx_loop_array: NULL argument");
    FDX_TRY(check_name(l, name, "array"));
    FDX_CHECK(l->nargs < FDX_LOOP_MAX_ARGS, FDX_ERR_INVALID, "loop '%s': more than %d arrays", l->name,
              FDX_LOOP_MAX_ARGS);
    FDX_CHECK(access >= FDX_READ && access <= FDX_READ_WRITE, FDX_ERR_INVALID, "array %s: access mode %d is not read, write or read-write", name, (int)access);
    FDX_CHECK(a->ctx == l->ctx, FDX_ERR_INVALID, "loop '%s': array %s belongs to another context", l->name, name);
    for (int i = 0; i < l->nargs; i++)
        FDX_CHECK(l->arg[i].array != a, FDX_ERR_INVALID, "loop '%s': array %s is already named %s", l->name, name,
                  l->arg[i].name);
    loop_arg *g = &l->arg[l->nargs++];
    memset(g, 0, sizeof *g);
    snprintf(g->name, sizeof g->name, "%s", name);
    g->array = a;
    g->access = access;
    l->analyzed = 0;
    return FDX_OK;
}

fdx_status fdx_loop_scalar(fdx_loop *l, const char *name, double value)
{
    FDX_CHECK(l && name, FDX_ERR_INVALID, "fdx_loop_scalar: NULL argument");
    for (int s = 0; s < l->nscalars; s++)
        if (strcmp(l->scalar_name[s], name) == 0) {
            l->scalar[s] = value;
            return FDX_OK;
        }
    FDX_TRY(check_name(l, name, "scalar"));
    FDX_CHECK(l->nscalars < LOOP_MAX_SCALARS, FDX_ERR_INVALID, "loop '%s': more than %d scalars", l->name,
              LOOP_MAX_SCALARS);
    snprintf(l->scalar_name[l->nscalars], LOOP_NAME_MAX, "%s", name);
    l->scalar[l->nscalars++] = value;
    return FDX_OK;
}

fdx_status fdx_loop_reduction_typed(fdx_loop *l, const char *name, fdx_reduce op, fdx_dtype type)
{
    FDX_CHECK(l, FDX_ERR_INVALID, "fdx_loop_reduction: loop is NULL");
    FDX_TRY(check_name(l, name, "reduction"));
    FDX_CHECK(op >= FDX_REDUCE_SUM && op <= FDX_REDUCE_OR, FDX_ERR_INVALID, "reduction %s: unknown operation %d",
              name, (int)op);
    FDX_CHECK(type == FDX_FLOAT32 || type == FDX_FLOAT64 || type == FDX_INT32 || type == FDX_INT64, FDX_ERR_INVALID,
              "reduction %s: type %d is not float, double, int32 or int64", name, (int)type);
    FDX_CHECK(!(op == FDX_REDUCE_AND || op == FDX_REDUCE_OR) || type == FDX_INT32 || type == FDX_INT64,
              FDX_ERR_INVALID, "reduction %s: and/or are bitwise, on integer reductions only", name);
    FDX_CHECK(l->nreds < LOOP_MAX_REDS, FDX_ERR_INVALID, "loop '%s': more than %d reductions", l->name, LOOP_MAX_REDS);
    loop_red *r = &l->red[l->nreds++];
    memset(r, 0, sizeof *r);
    snprintf(r->name, sizeof r->name, "%s", name);
    r->op = op;
    r->type = type;
    r->value = fdx_loop_red_identity(op);
    r->ivalue = fdx_loop_red_identity_int(r);
    return FDX_OK;
}

fdx_status fdx_loop_reduction(fdx_loop *l, const char *name, fdx_reduce op)
{
    return fdx_loop_reduction_typed(l, name, op, FDX_FLOAT64);
}

int fdx_loop_red_is_loc(fdx_reduce op) { return op == FDX_REDUCE_MAXLOC || op == FDX_REDUCE_MINLOC; }
int fdx_loop_red_is_int(const loop_red *r)
{
    return (r->type == FDX_INT32 || r->type == FDX_INT64) && !fdx_loop_red_is_loc(r->op);
}

double fdx_loop_red_identity(fdx_reduce op)
{
    switch (op) {
    case FDX_REDUCE_MAX:
    case FDX_REDUCE_MAXLOC: return -DBL_MAX;
    case FDX_REDUCE_MIN:
    case FDX_REDUCE_MINLOC: return DBL_MAX;
    case FDX_REDUCE_PROD: return 1.0;
    default: return 0.0;
    }
}

int64_t fdx_loop_red_identity_int(const loop_red *r)
{
    if (!fdx_loop_red_is_int(r)) return INT64_MAX; /* the location slot: no iteration yet */
    switch (r->op) {
    case FDX_REDUCE_MAX: return INT64_MIN;
    case FDX_REDUCE_MIN: return INT64_MAX;
    case FDX_REDUCE_PROD: return 1;
    case FDX_REDUCE_AND: return -1;
    default: return 0;
    }
}

void fdx_loop_red_fold(const loop_red *r, double v, int64_t l, double *bv, int64_t *bl)
{
    if (fdx_loop_red_is_int(r)) {
        switch (r->op) {
        case FDX_REDUCE_SUM: *bl = (int64_t)((uint64_t)*bl + (uint64_t)l); break;
        case FDX_REDUCE_PROD: *bl = (int64_t)((uint64_t)*bl * (uint64_t)l); break;
        case FDX_REDUCE_MAX: *bl = l > *bl ? l : *bl; break;
        case FDX_REDUCE_MIN: *bl = l < *bl ? l : *bl; break;
        case FDX_REDUCE_AND: *bl &= l; break;
        default: *bl |= l; break;
        }
        return;
    }
    switch (r->op) {
    case FDX_REDUCE_SUM: *bv += v; return;
    case FDX_REDUCE_PROD: *bv *= v; return;
    case FDX_REDUCE_MAX: *bv = v > *bv ? v : *bv; return;
    case FDX_REDUCE_MIN: *bv = v < *bv ? v : *bv; return;
    default: break;
    }
    int max = r->op == FDX_REDUCE_MAXLOC;
    if ((max ? v > *bv : v < *bv) || (v == *bv && l < *bl)) {
        *bv = v;
        *bl = l;
    }
}

fdx_status fdx_loop_across_widths(fdx_loop *l, const int *low, const int *high)
{
    FDX_CHECK(l && low && high, FDX_ERR_INVALID, "fdx_loop_across: NULL argument");
    int any = 0;
    for (int d = 0; d < l->rank; d++) {
        FDX_CHECK(low[d] >= 0 && low[d] <= 16 && high[d] >= 0 && high[d] <= 16, FDX_ERR_INVALID,
                  "loop '%s': dependence widths %d:%d of index %s out of range 0..16", l->name, low[d], high[d],
                  l->index[d]);
        any |= low[d] > 0 || high[d] > 0;
    }
    for (int d = 0; d < l->rank; d++) {
        l->wlo[d] = low[d], l->whi[d] = high[d];
        l->width[d] = low[d] > high[d] ? low[d] : high[d];
    }
    l->across = any;
    l->analyzed = 0;
    return FDX_OK;
}

fdx_status fdx_loop_across(fdx_loop *l, const int *width) { return fdx_loop_across_widths(l, width, width); }

fdx_status fdx_loop_order(fdx_loop *l, const int *dir)
{
    FDX_CHECK(l && dir, FDX_ERR_INVALID, "fdx_loop_order: NULL argument");
    for (int d = 0; d < l->rank; d++)
        FDX_CHECK(dir[d] == 1 || dir[d] == -1, FDX_ERR_INVALID,
                  "loop '%s': order %d of index %s is not +1 (ascending) or -1 (descending)", l->name, dir[d],
                  l->index[d]);
    for (int d = 0; d < l->rank; d++) l->dir[d] = dir[d];
    return FDX_OK;
}

int64_t fdx_loop_index_at(const fdx_loop *l, int d, int64_t x) { return l->dir[d] > 0 ? l->lo[d] + x : l->hi[d] - 1 - x; }

fdx_status fdx_loop_array_origin(fdx_loop *l, const char *name, const int64_t *origin)
{
    FDX_CHECK(l && name && origin, FDX_ERR_INVALID, "fdx_loop_array_origin: NULL argument");
    for (int a = 0; a < l->nargs; a++) {
        if (strcmp(l->arg[a].name, name) != 0) continue;
        for (int x = 0; x < l->arg[a].array->rank; x++) l->arg[a].origin[x] = origin[x];
        l->arg[a].shifted = 1;
        return FDX_OK;
    }
    return fdx_fail(FDX_ERR_INVALID, "loop '%s' has no array named '%s'", l->name, name);
}

fdx_status fdx_loop_body(fdx_loop *l, const char *body)
{
    FDX_CHECK(l && body, FDX_ERR_INVALID, "fdx_loop_body: NULL argument");
    char *copy = strdup(body);
    FDX_CHECK(copy, FDX_ERR_NOMEM, "out of memory storing the body of loop '%s'", l->name);
    free(l->body);
    l->body = copy;
    l->analyzed = 0;
    return FDX_OK;
}

fdx_status fdx_loop_set_autotfm(fdx_loop *l, int mode)
{
    FDX_CHECK(l, FDX_ERR_INVALID, "fdx_loop_set_autotfm: loop is NULL");
    FDX_CHECK(mode >= 0 && mode <= 2, FDX_ERR_INVALID, "autotfm mode %d is not 0 (off), 1 (on) or 2 (force)", mode);
    l->autotfm = mode;
    return FDX_OK;
}

fdx_status fdx_loop_plan_for(fdx_loop *l, fdx_backend_kind target)
{
    FDX_CHECK(l, FDX_ERR_INVALID, "fdx_loop_plan_for: loop is NULL");
    FDX_CHECK(target >= FDX_BACKEND_AUTO && target <= FDX_BACKEND_CUDA, FDX_ERR_INVALID, "unknown plan target %d",
              (int)target);
    l->plan_target = target;
    return FDX_OK;
}

static fdx_status find_result(const fdx_loop *l, const char *name, int64_t *loc, const loop_red **out)
{
    for (int r = 0; r < l->nreds; r++) {
        if (strcmp(l->red[r].name, name) != 0) continue;
        FDX_CHECK(!loc || fdx_loop_red_is_loc(l->red[r].op), FDX_ERR_INVALID,
                  "loop '%s': reduction '%s' has no location (only maxloc and minloc keep one)", l->name, name);
        if (loc) {
            /* linear iteration (iteration order, index 0 fastest) -> indices */
            int64_t q = l->red[r].lin;
            for (int d = 0; d < l->rank; d++) {
                int64_t n = l->hi[d] - l->lo[d];
                loc[d] = fdx_loop_index_at(l, d, q % n);
                q /= n;
            }
        }
        *out = &l->red[r];
        return FDX_OK;
    }
    return fdx_fail(FDX_ERR_INVALID, "loop '%s' has no reduction named '%s'", l->name, name);
}

fdx_status fdx_loop_result(const fdx_loop *l, const char *name, double *value, int64_t *loc)
{
    FDX_CHECK(l && name && value, FDX_ERR_INVALID, "fdx_loop_result: NULL argument");
    const loop_red *r = NULL;
    FDX_TRY(find_result(l, name, loc, &r));
    *value = fdx_loop_red_is_int(r) ? (double)r->ivalue : r->value;
    return FDX_OK;
}

fdx_status fdx_loop_result_int(const fdx_loop *l, const char *name, int64_t *value, int64_t *loc)
{
    FDX_CHECK(l && name && value, FDX_ERR_INVALID, "fdx_loop_result_int: NULL argument");
    const loop_red *r = NULL;
    FDX_TRY(find_result(l, name, loc, &r));
    FDX_CHECK(r->type == FDX_INT32 || r->type == FDX_INT64, FDX_ERR_INVALID,
              "loop '%s': reduction '%s' is not an integer reduction", l->name, name);
    *value = fdx_loop_red_is_int(r) ? r->ivalue : (int64_t)r->value;
    return FDX_OK;
}
