/* fdx mg: -lap u = f by geometric multigrid (or CG preconditioned by it) on
   a manufactured solution: cycles, residual history (table, JSON, PNG), the
   error against the exact discrete solution, time per cycle.  Exit 1 when
   the tolerance is not reached or the error is not at the discretization
   level. */
#include "cmd_mg.h"
#include "fdx/internal/json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The median of v[0..n) (sorts v). */
static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* The manufactured solution on a grid of one spacing h for every axis (the
   box is span_a * h long): u* = prod phi_a(x_a / L_a) (+ x y z when every
   axis is Dirichlet), phi = sin(pi s) (Dirichlet), cos(pi s) (Neumann),
   sin(2 pi s) + cos(2 pi s) (periodic).  Each phi is an eigenvector of the
   discrete operator too, so the discrete solution is known exactly and its
   error against u* is disc_error. */
typedef struct manufactured {
    int rank, order;
    int64_t n[3];
    fdx_solver_bc bc;
    double h, len[3], k[3];
    double disc_error, amplitude;
} manufactured;

void cmd_mg_grid_init(cmd_mg_grid *g)
{
    int64_t span = 0;
    for (int a = 0; a < g->rank; a++) {
        int64_t sp = g->bc == FDX_BC_DIRICHLET ? g->n[a] - 1 : g->n[a];
        if (sp > span) span = sp;
    }
    g->h = 1.0 / (double)span;
    for (int a = 0; a < 3; a++)
        g->len[a] = a < g->rank ? (double)(g->bc == FDX_BC_DIRICHLET ? g->n[a] - 1 : g->n[a]) * g->h : 1;
}

double cmd_mg_pos(const cmd_mg_grid *g, int64_t i)
{
    return g->bc == FDX_BC_NEUMANN ? ((double)i + 0.5) * g->h : (double)i * g->h;
}

double cmd_mg_phi(fdx_solver_bc bc, double s)
{
    return bc == FDX_BC_DIRICHLET ? sin(M_PI * s) : bc == FDX_BC_NEUMANN ? cos(M_PI * s)
                                                                          : sin(2 * M_PI * s) + cos(2 * M_PI * s);
}

static cmd_mg_grid grid_of(const manufactured *m)
{
    cmd_mg_grid g = {m->rank, {m->n[0], m->n[1], m->n[2]}, m->bc, m->h, {m->len[0], m->len[1], m->len[2]}};
    return g;
}

static void manufacture(manufactured *m, double *f, double *u, double *exact)
{
    cmd_mg_grid g = {m->rank, {m->n[0], m->n[1], m->n[2]}, m->bc, 0, {0, 0, 0}};
    cmd_mg_grid_init(&g);
    m->h = g.h;
    double lam = 0, lam_h = 0;
    for (int a = 0; a < 3; a++) {
        m->len[a] = g.len[a];
        m->k[a] = a < m->rank ? (m->bc == FDX_BC_PERIODIC ? 2 * M_PI : M_PI) / m->len[a] : 0;
        const double th = m->k[a] * m->h, sn = sin(0.5 * th);
        lam += m->k[a] * m->k[a];
        /* the operator's symbol at this wave number: 2nd order, or the
           interior 4th-order star (its boundary rows are 2nd order, so for
           order 4 this is an estimate) */
        lam_h += m->order == 4 ? (30 - 32 * cos(th) + 2 * cos(2 * th)) / (12 * m->h * m->h)
                               : 4.0 / (m->h * m->h) * sn * sn;
    }
    m->amplitude = m->bc == FDX_BC_PERIODIC ? pow(sqrt(2.0), m->rank) : 1.0;
    m->disc_error = m->amplitude * fabs(lam / lam_h - 1);
    const int64_t *n = m->n;
    const int harmonic = m->bc == FDX_BC_DIRICHLET;
    /* phi of each axis once (513^3 points would otherwise take seconds of
       sin() calls); the products are the same values */
    double *phi[3] = {NULL, NULL, NULL};
    for (int a = 0; a < m->rank; a++)
        if ((phi[a] = malloc((size_t)n[a] * sizeof(double))))
            for (int64_t i = 0; i < n[a]; i++) phi[a][i] = cmd_mg_phi(m->bc, cmd_mg_pos(&g, i) / m->len[a]);
#define MG_PHI(a, i, s) (phi[a] ? phi[a][i] : cmd_mg_phi(m->bc, (s) / m->len[a]))
    for (int64_t k = 0; k < n[2]; k++)
        for (int64_t j = 0; j < n[1]; j++)
            for (int64_t i = 0; i < n[0]; i++) {
                const int64_t q = i + n[0] * (j + n[1] * k);
                const double x = cmd_mg_pos(&g, i), y = cmd_mg_pos(&g, j), z = m->rank == 3 ? cmd_mg_pos(&g, k) : 0;
                const double p = MG_PHI(0, i, x) * MG_PHI(1, j, y) * (m->rank == 3 ? MG_PHI(2, k, z) : 1.0);
                const double e = p + (harmonic ? x * y * (m->rank == 3 ? z : 1.0) : 0.0);
                exact[q] = e;
                f[q] = lam * p;
                const int boundary = harmonic && (i == 0 || j == 0 || i == n[0] - 1 || j == n[1] - 1 ||
                                                  (m->rank == 3 && (k == 0 || k == n[2] - 1)));
                u[q] = boundary ? e : 0.0;
            }
#undef MG_PHI
    for (int a = 0; a < 3; a++) free(phi[a]);
}

/* One run of fdx mg: the flags as given and parsed, what is built from
   them, and the results; each step below fills its part. */
typedef struct mg_cli {
    const char *cmd;
    /* the flags' text */
    const char *size_s, *tol_s, *cycle_s, *sm_s, *pre_s, *post_s, *maxc_s, *solver_s, *bc_s, *coarse_s, *order_s,
        *coef_s, *repeat_s, *plot, *json, *gpus_s, *grid_s;
    /* parsed */
    manufactured m;
    long pre, post, maxc, order, csweeps, repeat, gpus;
    int grank;
    int64_t grid64[3];
    fdx_solver_cycle cycle;
    fdx_solver_smoother sm;
    fdx_solver_method method;
    cmd_mg_coef coef;
    double tol;
    /* built */
    fdx_options *opts;
    fdx_ctx *ctx, *uctx; /* uctx: the context of the arrays (unit 0's with --gpus) */
    fdx_solver *s;
    fdx_array *f, *u, *karr;
    cmd_mg_dist dist;
    cmd_mg_grid grid;
    int64_t count;
    double *exact, *u0, *times; /* --repeat: the initial guess, the solve times */
    /* results */
    double setup_s, solve_first, solve_s;
    const double *hist;
    int nh;
    double err, err_coarse, h_coarse, observed, umax;
    int err_ok, verified;
} mg_cli;

/* -1: go on; else the exit status (a usage error printed). */
static int mg_parse(mg_cli *c, int argc, char **argv)
{
    const char *CMD = c->cmd;
    const cli_flag flags[] = {
        {"size", "NXxNY[xNZ]", "grid points per axis (Dirichlet: boundary included) [129x129x129]", &c->size_s},
        {"tol", "R", "relative residual to reach [1e-10]", &c->tol_s},
        {"cycle", "v|w|f|fmg", "multigrid cycle (fmg: full multigrid, then V-cycles) [fmg]", &c->cycle_s},
        {"smoother", "jacobi|cheby|rbgs", "smoother [rbgs]", &c->sm_s},
        {"pre", "N", "smoothing sweeps before the coarse correction [2]", &c->pre_s},
        {"post", "N", "smoothing sweeps after it [2]", &c->post_s},
        {"steps", "N", "cycles (or CG iterations) at most [50]", &c->maxc_s},
        {"solver", "mg|cg", "multigrid cycles, or CG preconditioned by one cycle [mg]", &c->solver_s},
        {"bc", "dirichlet|neumann|periodic", "boundary kind of every axis [dirichlet]", &c->bc_s},
        {"coarse", "direct|N", "coarsest level: Cholesky, or N smoothing sweeps [direct]", &c->coarse_s},
        {"order", "2|4", "order of the operator (4: Dirichlet, defect correction) [2]", &c->order_s},
        {"coef", "none|smooth|jump[:R]|FILE.h5",
         "-div(k grad u) = f: k = 1 + 0.5 prod sin(2 pi x_a + c_a), a jump 1|R (R 1e3) across a face near x = 1/2 "
         "(Dirichlet), or k from an HDF5 file of the grid's shape; verified by the error's order on half the grid "
         "(a file: against the exact discrete solution) [none]",
         &c->coef_s},
        {"repeat", "N",
         "solve N more times from the same start after the first and report the median of their solve times (warm: "
         "kernels loaded, the cycle's graph made); time_s.solve_first keeps the first's [0]",
         &c->repeat_s},
        {"gpus", "K",
         "distribute the levels over K units a process (GPUs, or CPU units with --backend cpu) and every rank under "
         "mpirun; the coarse levels are gathered onto one unit (every --bc, --order and --coef of one unit)",
         &c->gpus_s},
        {"grid", "GXxGY[xGZ]", "with --gpus: units per axis (their product: K x ranks) [the slowest axis split]",
         &c->grid_s},
        {"plot", "FILE.png", "write the residual history as a PNG plot", &c->plot},
        {"json", NULL, "print one JSON record instead of the table", &c->json},
        {NULL, NULL, NULL, NULL},
    };
    if (fdx_options_create(&c->opts) != FDX_OK) return cli_usage_error(CMD, "%s", fdx_last_error());
    int rc = cli_parse(argc, argv, CMD,
                       "[--size NXxNY[xNZ]] [--tol R] [--cycle v|w|f|fmg] [--smoother jacobi|cheby|rbgs] "
                       "[--solver mg|cg] [--bc KIND] [--coef KIND] [--gpus K [--grid GXxGY[xGZ]]] [--plot FILE.png] [--json]",
                       flags, c->opts);
    if (rc >= 0) return rc;
    manufactured *m = &c->m;
    fdx_status st;
    if ((st = cli_parse_shape(c->size_s, 2, 3, 3, &m->rank, m->n)) != FDX_OK ||
        (st = cli_parse_real("--tol", c->tol_s, 0, 1, &c->tol)) != FDX_OK ||
        (st = cli_parse_int("--pre", c->pre_s, 0, 16, &c->pre)) != FDX_OK ||
        (st = cli_parse_int("--post", c->post_s, 0, 16, &c->post)) != FDX_OK ||
        (st = cli_parse_int("--steps", c->maxc_s, 1, 100000, &c->maxc)) != FDX_OK ||
        (st = cli_parse_int("--order", c->order_s, 2, 4, &c->order)) != FDX_OK ||
        (st = cli_parse_int("--repeat", c->repeat_s, 0, 1000, &c->repeat)) != FDX_OK ||
        (c->gpus_s && (st = cli_parse_int("--gpus", c->gpus_s, 1, 16, &c->gpus)) != FDX_OK) ||
        (c->grid_s && (st = cli_parse_shape_flag("--grid", c->grid_s, 2, 3, 1, &c->grank, c->grid64)) != FDX_OK) ||
        (st = fdx_solver_cycle_parse(c->cycle_s, &c->cycle)) != FDX_OK ||
        (st = fdx_solver_smoother_parse(c->sm_s, &c->sm)) != FDX_OK ||
        (st = fdx_solver_method_parse(c->solver_s, &c->method)) != FDX_OK ||
        (st = fdx_solver_bc_parse(c->bc_s, &m->bc)) != FDX_OK || (st = cmd_mg_coef_parse(c->coef_s, &c->coef)) != FDX_OK ||
        (strcmp(c->coarse_s, "direct") != 0 &&
         (st = cli_parse_int("--coarse", c->coarse_s, 1, 100000, &c->csweeps)) != FDX_OK))
        return cli_usage_error(CMD, "%s", fdx_last_error());
    if (c->order == 3) return cli_usage_error(CMD, "--order 3: the order is 2 or 4");
    if (c->order == 4 && (m->bc != FDX_BC_DIRICHLET || c->method != FDX_SOLVER_MG))
        return cli_usage_error(CMD, "--order 4 needs --bc dirichlet and --solver mg");
    if (c->coef.kind != MG_COEF_NONE && c->order == 4)
        return cli_usage_error(CMD, "--coef %s: variable coefficients are order 2 only", c->coef_s);
    if (c->coef.kind == MG_COEF_JUMP && m->bc != FDX_BC_DIRICHLET)
        return cli_usage_error(CMD, "--coef jump needs --bc dirichlet");
    if (c->pre + c->post == 0) return cli_usage_error(CMD, "--pre and --post are both 0: the cycle would not smooth");
    if (!c->gpus && cli_under_mpirun())
        return cli_usage_error(CMD, "started by mpirun with several processes: give --gpus K to distribute the solve");
    if (c->grid_s && !c->gpus) return cli_usage_error(CMD, "--grid needs --gpus K");
    if (c->grid_s && c->grank != m->rank)
        return cli_usage_error(CMD, "--grid %s has %d axes, the grid %d", c->grid_s, c->grank, m->rank);
    if (m->rank == 2) m->n[2] = 1;
    m->order = (int)c->order;
    return -1;
}

/* The solver (set up at once with --gpus: a grid the units cannot split is
   the user's --gpus, exit 2), its arrays on the manufactured problem, the
   coefficient, the settings, the data where the solve reads it. */
static int mg_build(mg_cli *c)
{
    const char *CMD = c->cmd;
    manufactured *m = &c->m;
    fdx_status st;
    /* --gpus: the solver and its arrays on the distribution (its unit 0's
       context for everything else); f and u stay the global host copies */
    if (c->gpus) {
        const double ts = fdx_now_s();
        const int grid[3] = {(int)c->grid64[0], (int)c->grid64[1], (int)c->grid64[2]};
        st = cmd_mg_dist_create(c->opts, m->rank, m->n, c->grid_s ? grid : NULL, (int)c->gpus, &c->dist);
        if (st == FDX_OK) st = fdx_solver_create_dist(c->opts, c->dist.d, &c->s);
        if (st == FDX_OK) st = fdx_solver_setup(c->s); /* a grid the units cannot split: the user's --gpus */
        if (st == FDX_ERR_INVALID) return cli_usage_error(CMD, "--gpus %ld: %s", c->gpus, fdx_last_error());
        if (st != FDX_OK) goto fail;
        c->setup_s = fdx_now_s() - ts;
        c->uctx = fdx_dist_ctx(c->dist.d, 0);
    } else {
        if ((st = fdx_ctx_create(c->opts, &c->ctx)) != FDX_OK) goto fail;
        c->uctx = c->ctx;
        FDX_TRY_GOTO(st, fdx_solver_create(c->ctx, m->rank, m->n, &c->s), fail);
    }
    const int where = c->gpus ? FDX_ON_HOST : FDX_ON_HOST | FDX_ON_DEVICE;
    FDX_TRY_GOTO(st, fdx_array_create(c->uctx, FDX_FLOAT64, m->rank, m->n, where, &c->f), fail);
    FDX_TRY_GOTO(st, fdx_array_create(c->uctx, FDX_FLOAT64, m->rank, m->n, where, &c->u), fail);
    c->count = fdx_array_count(c->u);
    if (!(c->exact = malloc((size_t)c->count * sizeof(double)))) {
        st = fdx_fail(FDX_ERR_NOMEM, "out of host memory for the exact solution (%lld points)", (long long)c->count);
        goto fail;
    }
    manufacture(m, fdx_array_host(c->f), fdx_array_host(c->u), c->exact);
    c->grid = grid_of(m);
    if (c->coef.kind != MG_COEF_NONE) {
        FDX_TRY_GOTO(st, fdx_array_create(c->uctx, FDX_FLOAT64, m->rank, m->n, FDX_ON_HOST, &c->karr), fail);
        FDX_TRY_GOTO(st, cmd_mg_coef_manufacture(&c->grid, &c->coef, fdx_array_host(c->karr), fdx_array_host(c->f),
                                                 fdx_array_host(c->u), c->exact),
                     fail);
        FDX_TRY_GOTO(st, fdx_solver_set_coefficient(c->s, c->karr), fail);
    }
    fdx_solver *s = c->s;
    const double hh[3] = {m->h, m->h, m->h};
    FDX_TRY_GOTO(st, fdx_solver_set_bc(s, -1, m->bc), fail);
    FDX_TRY_GOTO(st, fdx_solver_set_spacing(s, hh), fail);
    FDX_TRY_GOTO(st, fdx_solver_set_method(s, c->method), fail);
    FDX_TRY_GOTO(st, fdx_solver_set_order(s, (int)c->order), fail);
    FDX_TRY_GOTO(st, fdx_solver_set_cycle(s, c->cycle), fail);
    FDX_TRY_GOTO(st, fdx_solver_set_smoother(s, c->sm, (int)c->pre, (int)c->post), fail);
    FDX_TRY_GOTO(st,
                 fdx_solver_set_coarse(s, c->csweeps ? FDX_COARSE_SWEEPS : FDX_COARSE_DIRECT, (int)c->csweeps), fail);
    FDX_TRY_GOTO(st, fdx_solver_set_tolerance(s, c->tol), fail);
    FDX_TRY_GOTO(st, fdx_solver_set_max_cycles(s, (int)c->maxc), fail);
    if (c->gpus) {
        FDX_TRY_GOTO(st, cmd_mg_dist_load(&c->dist, m->n, fdx_array_host(c->f), fdx_array_host(c->u)), fail);
    } else {
        FDX_TRY_GOTO(st, fdx_array_to_device(c->f), fail);
        FDX_TRY_GOTO(st, fdx_array_to_device(c->u), fail);
    }
    return -1;
fail:
    return cli_fail(CMD, st);
}

static fdx_status solve_once(mg_cli *c)
{
    return c->gpus ? fdx_solver_solve_dist(c->s, c->dist.f, c->dist.u) : fdx_solver_solve(c->s, c->f, c->u);
}

/* The setup (one unit), the first solve and --repeat more from the same
   start, the solution back on the host, the history. */
static int mg_solve(mg_cli *c)
{
    fdx_status st;
    const double t0 = fdx_now_s();
    if (!c->gpus) FDX_TRY_GOTO(st, fdx_solver_setup(c->s), fail); /* distributed: done by mg_build */
    const double t1 = fdx_now_s();
    if (!c->gpus) c->setup_s = t1 - t0;
    if (c->repeat > 0 && (!(c->u0 = malloc((size_t)c->count * sizeof(double))) ||
                          !(c->times = malloc((size_t)c->repeat * sizeof(double))))) {
        st = fdx_fail(FDX_ERR_NOMEM, "out of host memory for --repeat's copy of the initial guess (%lld points)",
                      (long long)c->count);
        goto fail;
    }
    if (c->u0) memcpy(c->u0, fdx_array_host(c->u), (size_t)c->count * sizeof(double));
    FDX_TRY_GOTO(st, solve_once(c), fail);
    c->solve_first = fdx_now_s() - t1;
    for (long r = 0; r < c->repeat; r++) {
        /* the same start: the solve overwrote u (it returns only when its
           kernels have finished, so each time is the solve's alone) */
        if (c->gpus) {
            FDX_TRY_GOTO(st, cmd_mg_dist_load(&c->dist, c->m.n, NULL, c->u0), fail);
        } else {
            memcpy(fdx_array_host(c->u), c->u0, (size_t)c->count * sizeof(double));
            FDX_TRY_GOTO(st, fdx_array_to_device(c->u), fail);
        }
        const double a = fdx_now_s();
        FDX_TRY_GOTO(st, solve_once(c), fail);
        c->times[r] = fdx_now_s() - a;
    }
    FDX_TRY_GOTO(st, c->gpus ? cmd_mg_dist_result(&c->dist, fdx_array_host(c->u)) : fdx_array_to_host(c->u), fail);
    c->solve_s = c->repeat > 0 ? median(c->times, (int)c->repeat) : c->solve_first;
    FDX_TRY_GOTO(st, fdx_solver_residual_history(c->s, &c->hist, &c->nh), fail);
    return -1;
fail:
    return cli_fail(c->cmd, st);
}

/* The error against the manufactured solution and whether it is at the
   discretization level. */
static int mg_verify(mg_cli *c)
{
    c->err = cmd_mg_max_error(&c->grid, fdx_array_host(c->u), c->exact, c->count);
    /* At the discretization level: order 2: the exact discrete solution's
       error, plus a quarter for what the tolerance leaves; order 4: within
       4x of the interior estimate (the second-order rows next to the
       boundary add up to ~2x).  --coef smooth|jump: the error falls at
       least as h^1.5 against the grid of half the points (second order
       expected; 1.5 leaves room for pre-asymptotic ratios); a file: u* is
       the exact discrete solution, so only the solver's error remains. */
    if (c->coef.kind == MG_COEF_SMOOTH || c->coef.kind == MG_COEF_JUMP) {
        const fdx_status st = cmd_mg_coef_coarse_error(c->uctx, &c->grid, &c->coef, &c->err_coarse, &c->h_coarse);
        if (st != FDX_OK) return cli_fail(c->cmd, st);
        c->observed = c->err > 0 ? log(c->err_coarse / c->err) / log(c->h_coarse / c->m.h) : 99;
        c->err_ok = c->observed >= 1.5;
    } else if (c->coef.kind == MG_COEF_FILE) {
        for (int64_t q = 0; q < c->count; q++) c->umax = fmax(c->umax, fabs(c->exact[q]));
        c->err_ok = c->err <= 1e-6 * c->umax;
    } else {
        c->err_ok = c->err <= (c->order == 4 ? 4.0 : 1.25) * c->m.disc_error + 1e-12;
    }
    c->verified = fdx_solver_converged(c->s) && c->err_ok;
    return -1;
}

static fdx_status mg_record(const mg_cli *c, const char *backend, const char *device, int units, int ranks)
{
    const fdx_solver *s = c->s;
    const double *hist = c->hist;
    const int nh = c->nh, cycles = fdx_solver_iterations(s);
    fdx_json j;
    fdx_json_init(&j);
    fdx_json_record_head(&j, "poisson", backend, device, "double", c->m.rank, c->m.n);
    fdx_json_str(&j, "solver", fdx_solver_method_name(c->method));
    fdx_json_str(&j, "cycle", fdx_solver_cycle_name(c->cycle));
    fdx_json_str(&j, "smoother", fdx_solver_smoother_name(c->sm));
    fdx_json_int(&j, "pre", c->pre);
    fdx_json_int(&j, "post", c->post);
    fdx_json_str(&j, "bc", fdx_solver_bc_name(c->m.bc));
    fdx_json_int(&j, "order", c->order);
    fdx_json_str(&j, "coef", cmd_mg_coef_name(&c->coef));
    fdx_json_int(&j, "levels", fdx_solver_levels(s));
    fdx_json_int(&j, "cycles", cycles);
    fdx_json_num(&j, "tol", c->tol);
    fdx_json_num(&j, "final_residual", hist[nh - 1]);
    fdx_json_begin_array(&j, "residual_history");
    for (int i = 0; i < nh; i++) fdx_json_num(&j, NULL, hist[i]);
    fdx_json_end_array(&j);
    fdx_json_begin(&j, "time_s");
    fdx_json_num(&j, "setup", c->setup_s);
    fdx_json_num(&j, "solve", c->solve_s);
    fdx_json_num(&j, "per_cycle", cycles ? c->solve_s / cycles : 0);
    if (c->repeat > 0) fdx_json_num(&j, "solve_first", c->solve_first);
    fdx_json_end(&j);
    if (c->repeat > 0) fdx_json_int(&j, "repeat", c->repeat);
    fdx_json_num(&j, "work_units", fdx_solver_work_units(s));
    fdx_json_int(&j, "gpus", fdx_ctx_backend(c->uctx) == FDX_BACKEND_CUDA ? units : 0);
    fdx_json_int(&j, "units", units);
    fdx_json_int(&j, "ranks", ranks);
    if (c->gpus) fdx_json_int(&j, "levels_distributed", fdx_solver_distributed_levels(s));
    fdx_json_num(&j, "error_max", c->err);
    if (c->coef.kind == MG_COEF_NONE) fdx_json_num(&j, "discretization_error", c->m.disc_error);
    if (c->coef.kind == MG_COEF_SMOOTH || c->coef.kind == MG_COEF_JUMP) {
        fdx_json_num(&j, "error_half_grid", c->err_coarse);
        fdx_json_num(&j, "order_observed", c->observed);
    }
    fdx_json_bool(&j, "converged", fdx_solver_converged(s));
    fdx_json_bool(&j, "verified", c->verified);
    fdx_json_end(&j);
    const fdx_status st = fdx_json_print(&j, stdout);
    fdx_json_free(&j);
    return st;
}

static void mg_table(const mg_cli *c, const char *backend, const char *device, int units, int ranks)
{
    const fdx_solver *s = c->s;
    const double *hist = c->hist;
    const int cycles = fdx_solver_iterations(s), converged = fdx_solver_converged(s);
    printf("fdx %s: %s, %s-cycle, %s (%ld,%ld), order %ld, %s boundaries, %d levels, %s on %s\n", c->cmd,
           fdx_solver_method_name(c->method), fdx_solver_cycle_name(c->cycle), fdx_solver_smoother_name(c->sm), c->pre,
           c->post, c->order, fdx_solver_bc_name(c->m.bc), fdx_solver_levels(s), backend, device);
    if (c->gpus)
        printf("distributed over %d units (%d ranks x %ld): levels 0..%d split, the coarser gathered onto one unit\n",
               units, ranks, c->gpus, fdx_solver_distributed_levels(s) - 1);
    printf("%6s  %-12s %s\n", "cycle", "residual", "reduction");
    for (int i = 0; i < c->nh; i++) printf("%6d  %-12.3e %.4f\n", i, hist[i], i ? hist[i] / hist[i - 1] : 1.0);
    printf("cycles %d (%s tol %.1e), work %.1f units\n", cycles, converged ? "reached" : "did NOT reach", c->tol,
           fdx_solver_work_units(s));
    printf("time: setup %.4f s, solve %.4f s, %.4f s a cycle", c->setup_s, c->solve_s, cycles ? c->solve_s / cycles : 0);
    if (c->repeat > 0) printf(" (median of %ld repeats; the first solve %.4f s)", c->repeat, c->solve_first);
    printf("\n");
    if (c->coef.kind == MG_COEF_NONE)
        printf("error max |u - u*| %.3e, discretization error %.3e: %s\n", c->err, c->m.disc_error,
               c->err_ok ? "at the discretization level" : "ABOVE the discretization level");
    else if (c->coef.kind == MG_COEF_FILE)
        printf("coefficient %s: error max |u - u*| %.3e against the exact discrete solution (max |u*| %.3e): %s\n",
               c->coef.path, c->err, c->umax, c->err_ok ? "within 1e-6 of it" : "NOT within 1e-6 of it");
    else
        printf("coefficient %s: error max |u - u*| %.3e, %.3e on half the grid (h %.4g): order %.2f, %s\n",
               cmd_mg_coef_name(&c->coef), c->err, c->err_coarse, c->h_coarse, c->observed,
               c->err_ok ? "at the discretization level" : "ABOVE the discretization level (order < 1.5)");
    if (c->plot) printf("plot: %s\n", c->plot);
}

/* The plot, the record or table (rank 0 only under mpirun: every rank has
   the same results), the exit status. */
static int mg_report(mg_cli *c)
{
    const int quiet = c->gpus && fdx_dist_proc(c->dist.d) != 0;
    fdx_status st = FDX_OK;
    if (c->plot && !quiet) {
        char title[64];
        snprintf(title, sizeof title, "RESIDUAL PER CYCLE");
        if ((st = cmd_mg_plot(c->plot, c->hist, c->nh, title)) != FDX_OK) return cli_fail(c->cmd, st);
    }
    const char *backend = fdx_backend_kind_name(fdx_ctx_backend(c->uctx)), *device = fdx_ctx_device_name(c->uctx);
    const int units = c->gpus ? fdx_dist_units(c->dist.d) : 1, ranks = c->gpus ? fdx_dist_procs(c->dist.d) : 1;
    if (quiet) {
    } else if (c->json) {
        if ((st = mg_record(c, backend, device, units, ranks)) != FDX_OK) return cli_fail(c->cmd, st);
    } else {
        mg_table(c, backend, device, units, ranks);
    }
    if (!c->verified && !quiet)
        fprintf(stderr, "fdx %s: %s\n", c->cmd,
                !fdx_solver_converged(c->s) ? "the tolerance was not reached within --steps"
                : c->coef.kind == MG_COEF_NONE || c->coef.kind == MG_COEF_FILE
                    ? "the error is above the discretization level"
                    : "the error does not fall at the discretization order (order < 1.5)");
    return c->verified ? CLI_OK : CLI_VERIFY_FAILED;
}

static void mg_release(mg_cli *c)
{
    free(c->exact);
    free(c->u0);
    free(c->times);
    fdx_array_destroy(&c->karr);
    fdx_array_destroy(&c->f);
    fdx_array_destroy(&c->u);
    fdx_solver_destroy(&c->s);
    cmd_mg_dist_free(&c->dist);
    fdx_ctx_destroy(&c->ctx);
    fdx_options_destroy(&c->opts);
}

int cmd_mg_main(const char *CMD, int argc, char **argv)
{
    /* the flags' defaults */
    mg_cli c = {.cmd = CMD, .size_s = "129x129x129", .tol_s = "1e-10", .cycle_s = "fmg", .sm_s = "rbgs", .pre_s = "2",
                .post_s = "2", .maxc_s = "50", .solver_s = "mg", .bc_s = "dirichlet", .coarse_s = "direct",
                .order_s = "2", .coef_s = "none", .repeat_s = "0", .grid64 = {1, 1, 1}};
    int rc = mg_parse(&c, argc, argv);
    if (rc < 0) rc = mg_build(&c);
    if (rc < 0) rc = mg_solve(&c);
    if (rc < 0) rc = mg_verify(&c);
    if (rc < 0) rc = mg_report(&c);
    mg_release(&c);
    return rc;
}

int cmd_mg(int argc, char **argv) { return cmd_mg_main("mg", argc, argv); }
