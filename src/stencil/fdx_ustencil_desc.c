/* fdx_ustencil_desc: building a user stencil's description term by term, the
   helpers that expand common operators into terms (box, mixed derivative,
   div(k grad u)), and its canonical form for the generator. */
#include "stencil/fdx_ustencil_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Terms before merging: generous, since helpers add many that merge. */
#define MAX_RAW_TERMS 4096

struct fdx_ustencil_desc {
    int rank, ncomp, ninputs, ncoefs;
    fdx_stencil_update update;
    double alpha;
    int nterms, cap;
    fdx_ustencil_term *terms;
};

fdx_status fdx_ustencil_desc_create(int rank, int ncomp, int ninputs, int ncoefs, fdx_ustencil_desc **out)
{
    FDX_CHECK(out, FDX_ERR_INVALID, "fdx_ustencil_desc_create: NULL result pointer");
    *out = NULL;
    FDX_CHECK(rank >= 1 && rank <= 3, FDX_ERR_INVALID, "user stencil rank %d must be 1, 2 or 3", rank);
    FDX_CHECK(ncomp >= 1 && ncomp <= FDX_USTENCIL_MAX_COMPONENTS, FDX_ERR_INVALID,
              "user stencil components %d must be 1..%d", ncomp, FDX_USTENCIL_MAX_COMPONENTS);
    FDX_CHECK(ninputs >= 1 && ninputs <= FDX_USTENCIL_MAX_INPUTS, FDX_ERR_INVALID,
              "user stencil input arrays %d must be 1..%d", ninputs, FDX_USTENCIL_MAX_INPUTS);
    FDX_CHECK(ncoefs >= 0 && ncoefs <= FDX_USTENCIL_MAX_COEFS, FDX_ERR_INVALID,
              "user stencil coefficient arrays %d must be 0..%d", ncoefs, FDX_USTENCIL_MAX_COEFS);
    fdx_ustencil_desc *d = calloc(1, sizeof *d);
    FDX_CHECK(d, FDX_ERR_NOMEM, "out of memory creating a stencil description");
    d->rank = rank, d->ncomp = ncomp, d->ninputs = ninputs, d->ncoefs = ncoefs;
    d->update = FDX_UPDATE_APPLY;
    d->alpha = 1.0;
    *out = d;
    return FDX_OK;
}

void fdx_ustencil_desc_destroy(fdx_ustencil_desc **d)
{
    if (!d || !*d) return;
    free((*d)->terms);
    free(*d);
    *d = NULL;
}

int fdx_ustencil_desc_nterms(const fdx_ustencil_desc *d) { return d ? d->nterms : 0; }

static fdx_status check_offset(const fdx_ustencil_desc *d, const int *off, const char *what)
{
    for (int a = 0; a < 3; a++) {
        if (a >= d->rank) {
            FDX_CHECK(off[a] == 0, FDX_ERR_INVALID, "%s offset on axis %d is %d, but the stencil has rank %d", what, a,
                      off[a], d->rank);
            continue;
        }
        FDX_CHECK(off[a] >= -FDX_USTENCIL_MAX_RADIUS && off[a] <= FDX_USTENCIL_MAX_RADIUS, FDX_ERR_INVALID,
                  "%s offset %d on axis %d is beyond the largest radius %d", what, off[a], a, FDX_USTENCIL_MAX_RADIUS);
    }
    return FDX_OK;
}

fdx_status fdx_ustencil_desc_add_term(fdx_ustencil_desc *d, const fdx_ustencil_term *t)
{
    FDX_CHECK(d && t, FDX_ERR_INVALID, "fdx_ustencil_desc_add_term: NULL argument");
    FDX_CHECK(isfinite(t->weight), FDX_ERR_INVALID, "term weight %g must be finite", t->weight);
    FDX_CHECK(t->input >= 0 && t->input < d->ninputs, FDX_ERR_INVALID, "term input %d must be 0..%d", t->input,
              d->ninputs - 1);
    FDX_CHECK(t->input_comp >= 0 && t->input_comp < d->ncomp, FDX_ERR_INVALID,
              "term input component %d must be 0..%d", t->input_comp, d->ncomp - 1);
    FDX_CHECK(t->output_comp >= 0 && t->output_comp < d->ncomp, FDX_ERR_INVALID,
              "term output component %d must be 0..%d", t->output_comp, d->ncomp - 1);
    FDX_CHECK(t->coef == FDX_USTENCIL_NO_COEF || (t->coef >= 0 && t->coef < d->ncoefs), FDX_ERR_INVALID,
              "term coefficient array %d must be FDX_USTENCIL_NO_COEF or 0..%d", t->coef, d->ncoefs - 1);
    FDX_TRY(check_offset(d, t->offset, "term input"));
    if (t->coef != FDX_USTENCIL_NO_COEF) FDX_TRY(check_offset(d, t->coef_offset, "term coefficient"));
    FDX_CHECK(d->nterms < MAX_RAW_TERMS, FDX_ERR_INVALID, "a description holds at most %d terms", MAX_RAW_TERMS);
    if (d->nterms == d->cap) {
        int cap = d->cap ? 2 * d->cap : 32;
        fdx_ustencil_term *n = realloc(d->terms, (size_t)cap * sizeof *n);
        FDX_CHECK(n, FDX_ERR_NOMEM, "out of memory adding a stencil term");
        d->terms = n, d->cap = cap;
    }
    fdx_ustencil_term c = *t;
    if (c.coef == FDX_USTENCIL_NO_COEF) memset(c.coef_offset, 0, sizeof c.coef_offset);
    d->terms[d->nterms++] = c;
    return FDX_OK;
}

fdx_status fdx_ustencil_desc_add_point(fdx_ustencil_desc *d, double weight, int input, int comp, const int *offset)
{
    FDX_CHECK(d && offset, FDX_ERR_INVALID, "fdx_ustencil_desc_add_point: NULL argument");
    fdx_ustencil_term t = {weight, input, comp, comp, {0, 0, 0}, FDX_USTENCIL_NO_COEF, {0, 0, 0}};
    for (int a = 0; a < d->rank; a++) t.offset[a] = offset[a];
    return fdx_ustencil_desc_add_term(d, &t);
}

fdx_status fdx_ustencil_desc_add_box(fdx_ustencil_desc *d, int input, int comp, int r, const double *weights)
{
    FDX_CHECK(d && weights, FDX_ERR_INVALID, "fdx_ustencil_desc_add_box: NULL argument");
    FDX_CHECK(r >= 1 && r <= FDX_USTENCIL_MAX_RADIUS, FDX_ERR_INVALID, "box radius %d must be 1..%d", r,
              FDX_USTENCIL_MAX_RADIUS);
    int w = 2 * r + 1, n = d->rank == 1 ? w : d->rank == 2 ? w * w : w * w * w;
    for (int i = 0; i < n; i++) {
        int off[3] = {i % w - r, d->rank > 1 ? (i / w) % w - r : 0, d->rank > 2 ? i / (w * w) - r : 0};
        FDX_TRY(fdx_ustencil_desc_add_point(d, weights[i], input, comp, off));
    }
    return FDX_OK;
}

fdx_status fdx_ustencil_desc_add_mixed(fdx_ustencil_desc *d, int input, int comp, int axis_a, int axis_b,
                                       double h_a, double h_b, double scale)
{
    FDX_CHECK(d, FDX_ERR_INVALID, "fdx_ustencil_desc_add_mixed: NULL description");
    FDX_CHECK(axis_a >= 0 && axis_a < d->rank && axis_b >= 0 && axis_b < d->rank && axis_a != axis_b,
              FDX_ERR_INVALID, "mixed derivative axes %d and %d must differ and lie below the rank %d", axis_a, axis_b,
              d->rank);
    FDX_CHECK(h_a > 0 && h_b > 0 && isfinite(h_a) && isfinite(h_b), FDX_ERR_INVALID,
              "mixed derivative spacings %g, %g must be positive", h_a, h_b);
    for (int sa = -1; sa <= 1; sa += 2)
        for (int sb = -1; sb <= 1; sb += 2) {
            int off[3] = {0, 0, 0};
            off[axis_a] = sa, off[axis_b] = sb;
            FDX_TRY(fdx_ustencil_desc_add_point(d, scale * sa * sb / (4 * h_a * h_b), input, comp, off));
        }
    return FDX_OK;
}

/* One face product of the expansion: w * k(p + kc e_a) * u(p + uc e_a). */
static fdx_status add_face(fdx_ustencil_desc *d, int input, int comp, int coef, int a, double w, int kc, int uc)
{
    fdx_ustencil_term t = {w, input, comp, comp, {0, 0, 0}, coef, {0, 0, 0}};
    t.offset[a] = uc, t.coef_offset[a] = kc;
    return fdx_ustencil_desc_add_term(d, &t);
}

fdx_status fdx_ustencil_desc_add_div_k_grad(fdx_ustencil_desc *d, int input, int comp, int coef, const double *h,
                                            double scale)
{
    FDX_CHECK(d, FDX_ERR_INVALID, "fdx_ustencil_desc_add_div_k_grad: NULL description");
    FDX_CHECK(coef >= 0 && coef < d->ncoefs, FDX_ERR_INVALID, "div(k grad u) needs a coefficient array, got %d of %d",
              coef, d->ncoefs);
    for (int a = 0; a < d->rank; a++) {
        double ha = h ? h[a] : 1.0;
        FDX_CHECK(ha > 0 && isfinite(ha), FDX_ERR_INVALID, "grid spacing h[%d] = %g must be positive", a, ha);
        /* ((k0 + k+)(u+ - u0) - (k- + k0)(u0 - u-)) / (2 h^2) */
        double c = scale / (2 * ha * ha);
        FDX_TRY(add_face(d, input, comp, coef, a, c, 0, 1));
        FDX_TRY(add_face(d, input, comp, coef, a, c, 1, 1));
        FDX_TRY(add_face(d, input, comp, coef, a, -c, 0, 0));
        FDX_TRY(add_face(d, input, comp, coef, a, -c, 1, 0));
        FDX_TRY(add_face(d, input, comp, coef, a, -c, -1, 0));
        FDX_TRY(add_face(d, input, comp, coef, a, -c, 0, 0));
        FDX_TRY(add_face(d, input, comp, coef, a, c, -1, -1));
        FDX_TRY(add_face(d, input, comp, coef, a, c, 0, -1));
    }
    return FDX_OK;
}

fdx_status fdx_ustencil_desc_set_update(fdx_ustencil_desc *d, fdx_stencil_update update, double alpha)
{
    FDX_CHECK(d, FDX_ERR_INVALID, "fdx_ustencil_desc_set_update: NULL description");
    FDX_CHECK(update >= FDX_UPDATE_APPLY && update <= FDX_UPDATE_HEAT, FDX_ERR_INVALID,
              "update %d is not APPLY, WAVE or HEAT", (int)update);
    FDX_CHECK(isfinite(alpha), FDX_ERR_INVALID, "alpha %g must be finite", alpha);
    FDX_CHECK(update != FDX_UPDATE_WAVE || d->ninputs >= 2, FDX_ERR_INVALID,
              "the wave update reads u_prev as input 1: the description has %d input", d->ninputs);
    d->update = update;
    d->alpha = alpha;
    return FDX_OK;
}

/* ---- the canonical form ------------------------------------------------------ */

/* Description axis -> generated axis (x 0, y 1, m 2): rank 3 keeps them;
   rank 2 marches along its axis 1; rank 1 has x only. */
static void to_generated(int rank, const int *off, int *g)
{
    g[0] = off[0], g[1] = rank == 3 ? off[1] : 0, g[2] = rank == 3 ? off[2] : rank == 2 ? off[1] : 0;
}

static int same_term(const fdx_us_term *a, const fdx_us_term *b)
{
    if (a->out_comp != b->out_comp || a->nf != b->nf) return 0;
    for (int i = 0; i < a->nf; i++)
        if (a->f[i].field != b->f[i].field || a->f[i].comp != b->f[i].comp ||
            memcmp(a->f[i].off, b->f[i].off, sizeof a->f[i].off) != 0)
            return 0;
    return 1;
}

/* Adds (or merges into an equal term) weight w. */
static fdx_status put_term(fdx_us_spec *ks, double *wt, const fdx_us_term *t, double w)
{
    for (int i = 0; i < ks->nterms; i++)
        if (same_term(&ks->terms[i], t)) {
            wt[i] += w;
            return FDX_OK;
        }
    FDX_CHECK(ks->nterms < FDX_USTENCIL_MAX_TERMS, FDX_ERR_INVALID,
              "the stencil has more than %d distinct terms", FDX_USTENCIL_MAX_TERMS);
    ks->terms[ks->nterms] = *t;
    wt[ks->nterms++] = w;
    return FDX_OK;
}

fdx_status fdx_us_spec_build(const fdx_ustencil_desc *d, int is_double, fdx_us_spec *ks, double *w)
{
    memset(ks, 0, sizeof *ks);
    ks->is_double = is_double, ks->rank = d->rank, ks->ncomp = d->ncomp;
    ks->ninputs = d->ninputs, ks->ncoefs = d->ncoefs;
    for (int i = 0; i < d->nterms; i++) {
        const fdx_ustencil_term *s = &d->terms[i];
        fdx_us_term t = {s->output_comp, s->coef == FDX_USTENCIL_NO_COEF ? 1 : 2, {{0}}};
        t.f[0].field = s->input, t.f[0].comp = s->input_comp;
        to_generated(d->rank, s->offset, t.f[0].off);
        if (t.nf == 2) {
            t.f[1].field = d->ninputs + s->coef;
            to_generated(d->rank, s->coef_offset, t.f[1].off);
        }
        FDX_TRY(put_term(ks, w, &t, d->alpha * s->weight));
    }
    /* The update's own centred terms, not scaled by alpha. */
    for (int c = 0; c < d->ncomp && d->update != FDX_UPDATE_APPLY; c++) {
        fdx_us_term t = {c, 1, {{0, c, {0, 0, 0}}}};
        FDX_TRY(put_term(ks, w, &t, d->update == FDX_UPDATE_WAVE ? 2.0 : 1.0));
        if (d->update == FDX_UPDATE_WAVE) {
            t.f[0].field = 1;
            FDX_TRY(put_term(ks, w, &t, -1.0));
        }
    }
    FDX_CHECK(ks->nterms > 0, FDX_ERR_INVALID, "the stencil description has no terms");
    for (int i = 0; i < ks->nterms; i++)
        for (int f = 0; f < ks->terms[i].nf; f++)
            for (int a = 0; a < 3; a++) {
                int o = abs(ks->terms[i].f[f].off[a]);
                if (o > ks->radius) ks->radius = o;
            }
    ks->rx = ks->radius, ks->ry = d->rank == 3 ? ks->radius : 0, ks->rm = d->rank >= 2 ? ks->radius : 0;
    return FDX_OK;
}
