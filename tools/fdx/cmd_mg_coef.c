/* fdx mg --coef: manufactured variable-coefficient problems -div(k grad u)
   = f and their order check (the error on the grid of half the points, so
   the observed order of the error is reported and verified). */
#include "cmd_mg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

fdx_status cmd_mg_coef_parse(const char *s, cmd_mg_coef *out)
{
    memset(out, 0, sizeof *out);
    out->ratio = 1e3;
    if (!strcmp(s, "none")) return FDX_OK;
    if (!strcmp(s, "smooth")) {
        out->kind = MG_COEF_SMOOTH;
        return FDX_OK;
    }
    if (!strncmp(s, "jump", 4) && (s[4] == 0 || s[4] == ':')) {
        out->kind = MG_COEF_JUMP;
        if (s[4] == ':') {
            char *end = NULL;
            out->ratio = strtod(s + 5, &end);
            FDX_CHECK(end != s + 5 && !*end && isfinite(out->ratio) && out->ratio > 0, FDX_ERR_INVALID,
                      "--coef %s: the jump ratio must be a positive number", s);
        }
        return FDX_OK;
    }
    FDX_CHECK(*s && strlen(s) > 3 && !strcmp(s + strlen(s) - 3, ".h5"), FDX_ERR_INVALID,
              "--coef %s: expected none, smooth, jump[:R] or a FILE.h5", s);
    out->kind = MG_COEF_FILE;
    out->path = s;
    return FDX_OK;
}

const char *cmd_mg_coef_name(const cmd_mg_coef *c)
{
    static const char *names[] = {"none", "smooth", "jump", "file"};
    return names[c->kind];
}

static const double PHASE[3] = {0.3, 0.7, 1.1};

/* The interface of the jump: the face between two points nearest x = 1/2. */
static double jump_face(const cmd_mg_grid *g)
{
    return ((double)((g->n[0] - 1) / 2) + 0.5) / (double)(g->n[0] - 1);
}

/* -div(k grad u) at point q, the solver's discretization written point by
   point (harmonic face means; Neumann neighbours mirror, periodic wrap). */
static double apply_at(const cmd_mg_grid *g, const double *k, const double *u, int64_t q)
{
    const int64_t *n = g->n;
    const int64_t idx[3] = {q % n[0], q / n[0] % n[1], q / (n[0] * n[1])}, st[3] = {1, n[0], n[0] * n[1]};
    double a = 0;
    for (int ax = 0; ax < g->rank; ax++)
        for (int side = -1; side <= 1; side += 2) {
            int64_t j = idx[ax] + side;
            if (j < 0 || j >= n[ax]) j = g->bc == FDX_BC_PERIODIC ? (j + n[ax]) % n[ax] : idx[ax];
            const int64_t r = q + (j - idx[ax]) * st[ax];
            a += 2 * k[q] * k[r] / (k[q] + k[r]) * (u[q] - u[r]) / (g->h * g->h);
        }
    return a;
}

fdx_status cmd_mg_coef_manufacture(const cmd_mg_grid *g, const cmd_mg_coef *c, double *k, double *f, double *u,
                                   double *exact)
{
    const int64_t *n = g->n, count = n[0] * n[1] * n[2];
    const int dirichlet = g->bc == FDX_BC_DIRICHLET;
    const double wave = g->bc == FDX_BC_PERIODIC ? 2 * M_PI : M_PI;
    if (c->kind == MG_COEF_FILE) {
        /* The grid's shape; a 2D grid also takes a field of one plane
           (nx x ny x 1, as fdx heat writes them). */
        double *kf = NULL;
        int rank = 0;
        int64_t shape[3] = {1, 1, 1};
        FDX_TRY(fdx_h5_read_field(c->path, NULL, &kf, &rank, shape));
        int same = rank >= g->rank;
        for (int a = 0; a < rank && same; a++) same = shape[a] == (a < g->rank ? n[a] : 1);
        if (!same) {
            free(kf);
            return fdx_fail(FDX_ERR_INVALID, "--coef %s: the field is %lldx%lldx%lld (rank %d), the grid %lldx%lldx%lld",
                            c->path, (long long)shape[0], (long long)shape[1], (long long)shape[2], rank,
                            (long long)n[0], (long long)n[1], (long long)n[2]);
        }
        for (int64_t q = 0; q < count; q++)
            if (!(kf[q] > 0 && isfinite(kf[q]))) {
                const double bad = kf[q];
                free(kf);
                return fdx_fail(FDX_ERR_INVALID, "--coef %s: the coefficient is %g at point %lld (must be > 0)",
                                c->path, bad, (long long)q);
            }
        memcpy(k, kf, (size_t)count * sizeof(double));
        free(kf);
    }
    const double s0 = c->kind == MG_COEF_JUMP ? jump_face(g) : 0;
    for (int64_t q = 0; q < count; q++) {
        const int64_t idx[3] = {q % n[0], q / n[0] % n[1], q / (n[0] * n[1])};
        double s[3], ph[3], dph[3], sn[3], cs[3], x[3];
        for (int a = 0; a < 3; a++) {
            const int on = a < g->rank;
            x[a] = on ? cmd_mg_pos(g, idx[a]) : 0;
            s[a] = on ? x[a] / g->len[a] : 0;
            ph[a] = on ? cmd_mg_phi(g->bc, s[a]) : 1;
            /* d phi / dx */
            dph[a] = !on ? 0
                     : g->bc == FDX_BC_DIRICHLET ? M_PI * cos(M_PI * s[a]) / g->len[a]
                     : g->bc == FDX_BC_NEUMANN   ? -M_PI * sin(M_PI * s[a]) / g->len[a]
                                                 : 2 * M_PI * (cos(2 * M_PI * s[a]) - sin(2 * M_PI * s[a])) / g->len[a];
            sn[a] = on ? sin(2 * M_PI * s[a] + PHASE[a]) : 1;
            cs[a] = on ? cos(2 * M_PI * s[a] + PHASE[a]) : 0;
        }
        int boundary = 0;
        for (int a = 0; a < g->rank; a++)
            if (dirichlet && (idx[a] == 0 || idx[a] == n[a] - 1)) boundary = 1;
        double e;
        if (c->kind == MG_COEF_JUMP) {
            /* u* = sin(pi (s - s0)) / k prod_{a>0} sin(pi s_a): u and the
               flux k du/dx continuous; f = pi^2 sum 1/len^2 times k u*. */
            const double kv = s[0] < s0 ? 1.0 : c->ratio;
            double prod = sin(M_PI * (s[0] - s0)), l2 = 0;
            for (int a = 0; a < g->rank; a++) l2 += 1.0 / (g->len[a] * g->len[a]);
            for (int a = 1; a < g->rank; a++) prod *= sin(M_PI * s[a]);
            k[q] = kv;
            e = prod / kv;
            f[q] = M_PI * M_PI * l2 * prod;
        } else {
            /* u* = prod phi (+ x y z), f = -k lap u* - grad k . grad u*. */
            const double prod = ph[0] * ph[1] * ph[2];
            e = prod + (dirichlet ? x[0] * x[1] * (g->rank == 3 ? x[2] : 1.0) : 0.0);
            if (c->kind == MG_COEF_SMOOTH) {
                const double kv = 1 + 0.5 * sn[0] * sn[1] * sn[2];
                double lap = 0, gdot = 0;
                for (int a = 0; a < g->rank; a++) {
                    const int b = (a + 1) % 3, d = (a + 2) % 3;
                    const double w = wave / g->len[a];
                    lap -= w * w * prod;
                    double gu = dph[a] * ph[b] * ph[d];
                    if (dirichlet) gu += g->rank == 3 ? x[b] * x[d] : x[1 - a];
                    gdot += 0.5 * 2 * M_PI / g->len[a] * cs[a] * sn[b] * sn[d] * gu;
                }
                k[q] = kv;
                f[q] = -kv * lap - gdot;
            }
        }
        exact[q] = e;
        u[q] = boundary ? e : 0.0;
    }
    if (c->kind == MG_COEF_FILE)
        for (int64_t q = 0; q < count; q++) f[q] = apply_at(g, k, exact, q);
    if (!dirichlet) {
        /* No Dirichlet axis: f's midpoint sum is O(h^2) from the integral's
           zero (exactly 0 for a file's discrete f up to rounding); the
           solver needs it 0. */
        double mean = 0;
        for (int64_t q = 0; q < count; q++) mean += f[q];
        mean /= (double)count;
        for (int64_t q = 0; q < count; q++) f[q] -= mean;
    }
    return FDX_OK;
}

double cmd_mg_max_error(const cmd_mg_grid *g, const double *u, const double *exact, int64_t count)
{
    double mu = 0, me = 0;
    if (g->bc != FDX_BC_DIRICHLET) {
        for (int64_t q = 0; q < count; q++) mu += u[q], me += exact[q];
        mu /= (double)count;
        me /= (double)count;
    }
    double e = 0;
    for (int64_t q = 0; q < count; q++) e = fmax(e, fabs((u[q] - mu) - (exact[q] - me)));
    return e;
}

fdx_status cmd_mg_coef_coarse_error(fdx_ctx *ctx, const cmd_mg_grid *fine, const cmd_mg_coef *c, double *err, double *h)
{
    cmd_mg_grid g = *fine;
    for (int a = 0; a < g.rank; a++) g.n[a] = g.bc == FDX_BC_DIRICHLET ? (fine->n[a] + 1) / 2 : fine->n[a] / 2;
    cmd_mg_grid_init(&g);
    fdx_status st = FDX_OK;
    for (int a = 0; a < g.rank; a++)
        FDX_CHECK(g.n[a] >= 3, FDX_ERR_INVALID, "--coef: the order check's coarse grid has %lld points on axis %d "
                  "(use at least 5)", (long long)g.n[a], a);
    fdx_solver *s = NULL;
    fdx_array *f = NULL, *u = NULL, *k = NULL;
    double *exact = NULL;
    FDX_TRY_GOTO(st, fdx_solver_create(ctx, g.rank, g.n, &s), out);
    FDX_TRY_GOTO(st, fdx_array_create(ctx, FDX_FLOAT64, g.rank, g.n, FDX_ON_HOST | FDX_ON_DEVICE, &f), out);
    FDX_TRY_GOTO(st, fdx_array_create(ctx, FDX_FLOAT64, g.rank, g.n, FDX_ON_HOST | FDX_ON_DEVICE, &u), out);
    FDX_TRY_GOTO(st, fdx_array_create(ctx, FDX_FLOAT64, g.rank, g.n, FDX_ON_HOST, &k), out);
    const int64_t count = fdx_array_count(u);
    exact = malloc((size_t)count * sizeof(double));
    if (!exact) {
        st = fdx_fail(FDX_ERR_NOMEM, "out of host memory for the order check (%lld points)", (long long)count);
        goto out;
    }
    FDX_TRY_GOTO(st, cmd_mg_coef_manufacture(&g, c, fdx_array_host(k), fdx_array_host(f), fdx_array_host(u), exact),
                 out);
    const double hh[3] = {g.h, g.h, g.h};
    FDX_TRY_GOTO(st, fdx_solver_set_bc(s, -1, g.bc), out);
    FDX_TRY_GOTO(st, fdx_solver_set_spacing(s, hh), out);
    FDX_TRY_GOTO(st, fdx_solver_set_coefficient(s, k), out);
    FDX_TRY_GOTO(st, fdx_solver_set_tolerance(s, 1e-12), out);
    FDX_TRY_GOTO(st, fdx_solver_set_max_cycles(s, 200), out);
    FDX_TRY_GOTO(st, fdx_array_to_device(f), out);
    FDX_TRY_GOTO(st, fdx_array_to_device(u), out);
    FDX_TRY_GOTO(st, fdx_solver_solve(s, f, u), out);
    FDX_TRY_GOTO(st, fdx_array_to_host(u), out);
    if (!fdx_solver_converged(s)) {
        st = fdx_fail(FDX_ERR_VERIFY, "--coef: the order check's coarse solve did not reach 1e-12 in 200 cycles");
        goto out;
    }
    *err = cmd_mg_max_error(&g, fdx_array_host(u), exact, count);
    *h = g.h;
out:
    free(exact);
    fdx_array_destroy(&f);
    fdx_array_destroy(&u);
    fdx_array_destroy(&k);
    fdx_solver_destroy(&s);
    return st;
}
