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
#include <time.h>

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

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
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

int cmd_mg_main(const char *CMD, int argc, char **argv)
{
    const char *size_s = "129x129x129", *tol_s = "1e-10", *cycle_s = "fmg", *sm_s = "rbgs", *pre_s = "2",
               *post_s = "2", *maxc_s = "50", *solver_s = "mg", *bc_s = "dirichlet", *coarse_s = "direct",
               *order_s = "2", *coef_s = "none", *repeat_s = "0", *plot = NULL, *json = NULL, *gpus_s = NULL,
               *grid_s = NULL;
    const cli_flag flags[] = {
        {"size", "NXxNY[xNZ]", "grid points per axis (Dirichlet: boundary included) [129x129x129]", &size_s},
        {"tol", "R", "relative residual to reach [1e-10]", &tol_s},
        {"cycle", "v|w|f|fmg", "multigrid cycle (fmg: full multigrid, then V-cycles) [fmg]", &cycle_s},
        {"smoother", "jacobi|cheby|rbgs", "smoother [rbgs]", &sm_s},
        {"pre", "N", "smoothing sweeps before the coarse correction [2]", &pre_s},
        {"post", "N", "smoothing sweeps after it [2]", &post_s},
        {"steps", "N", "cycles (or CG iterations) at most [50]", &maxc_s},
        {"solver", "mg|cg", "multigrid cycles, or CG preconditioned by one cycle [mg]", &solver_s},
        {"bc", "dirichlet|neumann|periodic", "boundary kind of every axis [dirichlet]", &bc_s},
        {"coarse", "direct|N", "coarsest level: Cholesky, or N smoothing sweeps [direct]", &coarse_s},
        {"order", "2|4", "order of the operator (4: Dirichlet, defect correction) [2]", &order_s},
        {"coef", "none|smooth|jump[:R]|FILE.h5",
         "-div(k grad u) = f: k = 1 + 0.5 prod sin(2 pi x_a + c_a), a jump 1|R (R 1e3) across a face near x = 1/2 "
         "(Dirichlet), or k from an HDF5 file of the grid's shape; verified by the error's order on half the grid "
         "(a file: against the exact discrete solution) [none]",
         &coef_s},
        {"repeat", "N",
         "solve N more times from the same start after the first and report the median of their solve times (warm: "
         "kernels loaded, the cycle's graph made); time_s.solve_first keeps the first's [0]",
         &repeat_s},
        {"gpus", "K",
         "distribute the levels over K units a process (GPUs, or CPU units with --backend cpu) and every rank under "
         "mpirun; the coarse levels are gathered onto one unit (Dirichlet, order 2)",
         &gpus_s},
        {"grid", "GXxGY[xGZ]", "with --gpus: units per axis (their product: K x ranks) [the slowest axis split]",
         &grid_s},
        {"plot", "FILE.png", "write the residual history as a PNG plot", &plot},
        {"json", NULL, "print one JSON record instead of the table", &json},
        {NULL, NULL, NULL, NULL},
    };
    fdx_options *opts = NULL;
    if (fdx_options_create(&opts) != FDX_OK) return cli_usage_error(CMD, "%s", fdx_last_error());
    int rc = cli_parse(argc, argv, CMD,
                       "[--size NXxNY[xNZ]] [--tol R] [--cycle v|w|f|fmg] [--smoother jacobi|cheby|rbgs] "
                       "[--solver mg|cg] [--bc KIND] [--coef KIND] [--gpus K [--grid GXxGY[xGZ]]] [--plot FILE.png] [--json]",
                       flags, opts);
    fdx_ctx *ctx = NULL;
    fdx_solver *s = NULL;
    fdx_array *f = NULL, *u = NULL;
    double *exact = NULL, *u0 = NULL, *times = NULL; /* --repeat: the initial guess, the solve times */
    fdx_array *karr = NULL;
    cmd_mg_dist dist = {0};
    fdx_json j;
    fdx_json_init(&j);
    if (rc >= 0) goto done;

    manufactured m = {0};
    long pre, post, maxc, order, csweeps = 0, repeat = 0, gpus = 0;
    int grank = 0;
    int64_t grid64[3] = {1, 1, 1};
    fdx_solver_cycle cycle;
    fdx_solver_smoother sm;
    fdx_solver_method method;
    cmd_mg_coef coef;
    fdx_status st;
    double tol = 0;
    if ((st = cli_parse_shape(size_s, 2, 3, 3, &m.rank, m.n)) != FDX_OK ||
        (st = cli_parse_real("--tol", tol_s, 0, 1, &tol)) != FDX_OK ||
        (st = cli_parse_int("--pre", pre_s, 0, 16, &pre)) != FDX_OK ||
        (st = cli_parse_int("--post", post_s, 0, 16, &post)) != FDX_OK ||
        (st = cli_parse_int("--steps", maxc_s, 1, 100000, &maxc)) != FDX_OK ||
        (st = cli_parse_int("--order", order_s, 2, 4, &order)) != FDX_OK ||
        (st = cli_parse_int("--repeat", repeat_s, 0, 1000, &repeat)) != FDX_OK ||
        (gpus_s && (st = cli_parse_int("--gpus", gpus_s, 1, 16, &gpus)) != FDX_OK) ||
        (grid_s && (st = cli_parse_shape_flag("--grid", grid_s, 2, 3, 1, &grank, grid64)) != FDX_OK) ||
        (st = fdx_solver_cycle_parse(cycle_s, &cycle)) != FDX_OK ||
        (st = fdx_solver_smoother_parse(sm_s, &sm)) != FDX_OK ||
        (st = fdx_solver_method_parse(solver_s, &method)) != FDX_OK ||
        (st = fdx_solver_bc_parse(bc_s, &m.bc)) != FDX_OK || (st = cmd_mg_coef_parse(coef_s, &coef)) != FDX_OK ||
        (strcmp(coarse_s, "direct") != 0 && (st = cli_parse_int("--coarse", coarse_s, 1, 100000, &csweeps)) != FDX_OK)) {
        rc = cli_usage_error(CMD, "%s", fdx_last_error());
        goto done;
    }
    if (order == 3) {
        rc = cli_usage_error(CMD, "--order 3: the order is 2 or 4");
        goto done;
    }
    if (order == 4 && (m.bc != FDX_BC_DIRICHLET || method != FDX_SOLVER_MG)) {
        rc = cli_usage_error(CMD, "--order 4 needs --bc dirichlet and --solver mg");
        goto done;
    }
    if (coef.kind != MG_COEF_NONE && order == 4) {
        rc = cli_usage_error(CMD, "--coef %s: variable coefficients are order 2 only", coef_s);
        goto done;
    }
    if (coef.kind == MG_COEF_JUMP && m.bc != FDX_BC_DIRICHLET) {
        rc = cli_usage_error(CMD, "--coef jump needs --bc dirichlet");
        goto done;
    }
    if (pre + post == 0) {
        rc = cli_usage_error(CMD, "--pre and --post are both 0: the cycle would not smooth");
        goto done;
    }
    if (!gpus && cli_under_mpirun()) {
        rc = cli_usage_error(CMD, "started by mpirun with several processes: give --gpus K to distribute the solve");
        goto done;
    }
    if (grid_s && !gpus) {
        rc = cli_usage_error(CMD, "--grid needs --gpus K");
        goto done;
    }
    if (gpus && (m.bc != FDX_BC_DIRICHLET || order != 2)) {
        rc = cli_usage_error(CMD, "--gpus: distributed levels take --bc dirichlet and --order 2");
        goto done;
    }
    if (grid_s && grank != m.rank) {
        rc = cli_usage_error(CMD, "--grid %s has %d axes, the grid %d", grid_s, grank, m.rank);
        goto done;
    }
    if (m.rank == 2) m.n[2] = 1;
    m.order = (int)order;
    /* --gpus: the solver and its arrays on the distribution (its unit 0's
       context for everything else); f and u stay the global host copies */
    fdx_ctx *uctx = NULL;
    double dist_setup_s = 0;
    if (gpus) {
        const double ts = now_s();
        const int grid[3] = {(int)grid64[0], (int)grid64[1], (int)grid64[2]};
        st = cmd_mg_dist_create(opts, m.rank, m.n, grid_s ? grid : NULL, (int)gpus, &dist);
        if (st == FDX_OK) st = fdx_solver_create_dist(opts, dist.d, &s);
        if (st == FDX_OK) st = fdx_solver_setup(s); /* a grid the units cannot split: the user's --gpus */
        if (st == FDX_ERR_INVALID) {
            rc = cli_usage_error(CMD, "--gpus %ld: %s", gpus, fdx_last_error());
            goto done;
        }
        if (st != FDX_OK) goto fail;
        dist_setup_s = now_s() - ts;
        uctx = fdx_dist_ctx(dist.d, 0);
    } else {
        if ((st = fdx_ctx_create(opts, &ctx)) != FDX_OK) goto fail;
        uctx = ctx;
        FDX_TRY_GOTO(st, fdx_solver_create(ctx, m.rank, m.n, &s), fail);
    }
    const int where = gpus ? FDX_ON_HOST : FDX_ON_HOST | FDX_ON_DEVICE;
    FDX_TRY_GOTO(st, fdx_array_create(uctx, FDX_FLOAT64, m.rank, m.n, where, &f), fail);
    FDX_TRY_GOTO(st, fdx_array_create(uctx, FDX_FLOAT64, m.rank, m.n, where, &u), fail);
    const int64_t count = fdx_array_count(u);
    if (!(exact = malloc((size_t)count * sizeof(double)))) {
        st = fdx_fail(FDX_ERR_NOMEM, "out of host memory for the exact solution (%lld points)", (long long)count);
        goto fail;
    }
    manufacture(&m, fdx_array_host(f), fdx_array_host(u), exact);
    const cmd_mg_grid grid = grid_of(&m);
    if (coef.kind != MG_COEF_NONE) {
        FDX_TRY_GOTO(st, fdx_array_create(uctx, FDX_FLOAT64, m.rank, m.n, FDX_ON_HOST, &karr), fail);
        FDX_TRY_GOTO(st, cmd_mg_coef_manufacture(&grid, &coef, fdx_array_host(karr), fdx_array_host(f),
                                                 fdx_array_host(u), exact),
                     fail);
        FDX_TRY_GOTO(st, fdx_solver_set_coefficient(s, karr), fail);
    }
    const double hh[3] = {m.h, m.h, m.h};
    FDX_TRY_GOTO(st, fdx_solver_set_bc(s, -1, m.bc), fail);
    FDX_TRY_GOTO(st, fdx_solver_set_spacing(s, hh), fail);
    FDX_TRY_GOTO(st, fdx_solver_set_method(s, method), fail);
    FDX_TRY_GOTO(st, fdx_solver_set_order(s, (int)order), fail);
    FDX_TRY_GOTO(st, fdx_solver_set_cycle(s, cycle), fail);
    FDX_TRY_GOTO(st, fdx_solver_set_smoother(s, sm, (int)pre, (int)post), fail);
    FDX_TRY_GOTO(st, fdx_solver_set_coarse(s, csweeps ? FDX_COARSE_SWEEPS : FDX_COARSE_DIRECT, (int)csweeps), fail);
    FDX_TRY_GOTO(st, fdx_solver_set_tolerance(s, tol), fail);
    FDX_TRY_GOTO(st, fdx_solver_set_max_cycles(s, (int)maxc), fail);
    if (gpus) {
        FDX_TRY_GOTO(st, cmd_mg_dist_load(&dist, m.n, fdx_array_host(f), fdx_array_host(u)), fail);
    } else {
        FDX_TRY_GOTO(st, fdx_array_to_device(f), fail);
        FDX_TRY_GOTO(st, fdx_array_to_device(u), fail);
    }
    double t0 = now_s();
    if (!gpus) FDX_TRY_GOTO(st, fdx_solver_setup(s), fail); /* distributed: done above */
    double t1 = now_s();
    if (repeat > 0 && (!(u0 = malloc((size_t)count * sizeof(double))) || !(times = malloc((size_t)repeat * sizeof(double))))) {
        st = fdx_fail(FDX_ERR_NOMEM, "out of host memory for --repeat's copy of the initial guess (%lld points)",
                      (long long)count);
        goto fail;
    }
    if (u0) memcpy(u0, fdx_array_host(u), (size_t)count * sizeof(double));
    FDX_TRY_GOTO(st, gpus ? fdx_solver_solve_dist(s, dist.f, dist.u) : fdx_solver_solve(s, f, u), fail);
    double t2 = now_s();
    const double setup_s = gpus ? dist_setup_s : t1 - t0, solve_first = t2 - t1;
    for (long r = 0; r < repeat; r++) {
        /* the same start: the solve overwrote u (it returns only when its
           kernels have finished, so each time is the solve's alone) */
        if (gpus) {
            FDX_TRY_GOTO(st, cmd_mg_dist_load(&dist, m.n, NULL, u0), fail);
        } else {
            memcpy(fdx_array_host(u), u0, (size_t)count * sizeof(double));
            FDX_TRY_GOTO(st, fdx_array_to_device(u), fail);
        }
        const double a = now_s();
        FDX_TRY_GOTO(st, gpus ? fdx_solver_solve_dist(s, dist.f, dist.u) : fdx_solver_solve(s, f, u), fail);
        times[r] = now_s() - a;
    }
    FDX_TRY_GOTO(st, gpus ? cmd_mg_dist_result(&dist, fdx_array_host(u)) : fdx_array_to_host(u), fail);
    const double solve_s = repeat > 0 ? median(times, (int)repeat) : solve_first;
    const int cycles = fdx_solver_iterations(s), converged = fdx_solver_converged(s);
    const double *hist = NULL;
    int nh = 0;
    FDX_TRY_GOTO(st, fdx_solver_residual_history(s, &hist, &nh), fail);
    const double err = cmd_mg_max_error(&grid, fdx_array_host(u), exact, count);
    /* At the discretization level: order 2: the exact discrete solution's
       error, plus a quarter for what the tolerance leaves; order 4: within
       4x of the interior estimate (the second-order rows next to the
       boundary add up to ~2x).  --coef smooth|jump: the error falls at
       least as h^1.5 against the grid of half the points (second order
       expected; 1.5 leaves room for pre-asymptotic ratios); a file: u* is
       the exact discrete solution, so only the solver's error remains. */
    double err_coarse = 0, h_coarse = 0, observed = 0, umax = 0;
    int err_ok;
    if (coef.kind == MG_COEF_SMOOTH || coef.kind == MG_COEF_JUMP) {
        FDX_TRY_GOTO(st, cmd_mg_coef_coarse_error(uctx, &grid, &coef, &err_coarse, &h_coarse), fail);
        observed = err > 0 ? log(err_coarse / err) / log(h_coarse / m.h) : 99;
        err_ok = observed >= 1.5;
    } else if (coef.kind == MG_COEF_FILE) {
        for (int64_t q = 0; q < count; q++) umax = fmax(umax, fabs(exact[q]));
        err_ok = err <= 1e-6 * umax;
    } else {
        err_ok = err <= (order == 4 ? 4.0 : 1.25) * m.disc_error + 1e-12;
    }
    const int verified = converged && err_ok;
    /* under mpirun: rank 0 reports (every rank has the same results) */
    const int quiet = gpus && fdx_dist_proc(dist.d) != 0;
    if (plot && !quiet) {
        char title[64];
        snprintf(title, sizeof title, "RESIDUAL PER CYCLE");
        FDX_TRY_GOTO(st, cmd_mg_plot(plot, hist, nh, title), fail);
    }
    const char *backend = fdx_backend_kind_name(fdx_ctx_backend(uctx)), *device = fdx_ctx_device_name(uctx);
    const int units = gpus ? fdx_dist_units(dist.d) : 1, ranks = gpus ? fdx_dist_procs(dist.d) : 1;
    if (quiet) {
    } else if (json) {
        fdx_json_record_head(&j, "poisson", backend, device, "double", m.rank, m.n);
        fdx_json_str(&j, "solver", fdx_solver_method_name(method));
        fdx_json_str(&j, "cycle", fdx_solver_cycle_name(cycle));
        fdx_json_str(&j, "smoother", fdx_solver_smoother_name(sm));
        fdx_json_int(&j, "pre", pre);
        fdx_json_int(&j, "post", post);
        fdx_json_str(&j, "bc", fdx_solver_bc_name(m.bc));
        fdx_json_int(&j, "order", order);
        fdx_json_str(&j, "coef", cmd_mg_coef_name(&coef));
        fdx_json_int(&j, "levels", fdx_solver_levels(s));
        fdx_json_int(&j, "cycles", cycles);
        fdx_json_num(&j, "tol", tol);
        fdx_json_num(&j, "final_residual", hist[nh - 1]);
        fdx_json_begin_array(&j, "residual_history");
        for (int i = 0; i < nh; i++) fdx_json_num(&j, NULL, hist[i]);
        fdx_json_end_array(&j);
        fdx_json_begin(&j, "time_s");
        fdx_json_num(&j, "setup", setup_s);
        fdx_json_num(&j, "solve", solve_s);
        fdx_json_num(&j, "per_cycle", cycles ? solve_s / cycles : 0);
        if (repeat > 0) fdx_json_num(&j, "solve_first", solve_first);
        fdx_json_end(&j);
        if (repeat > 0) fdx_json_int(&j, "repeat", repeat);
        fdx_json_num(&j, "work_units", fdx_solver_work_units(s));
        fdx_json_int(&j, "gpus", fdx_ctx_backend(uctx) == FDX_BACKEND_CUDA ? units : 0);
        fdx_json_int(&j, "units", units);
        fdx_json_int(&j, "ranks", ranks);
        if (gpus) fdx_json_int(&j, "levels_distributed", fdx_solver_distributed_levels(s));
        fdx_json_num(&j, "error_max", err);
        if (coef.kind == MG_COEF_NONE) fdx_json_num(&j, "discretization_error", m.disc_error);
        if (coef.kind == MG_COEF_SMOOTH || coef.kind == MG_COEF_JUMP) {
            fdx_json_num(&j, "error_half_grid", err_coarse);
            fdx_json_num(&j, "order_observed", observed);
        }
        fdx_json_bool(&j, "converged", converged);
        fdx_json_bool(&j, "verified", verified);
        fdx_json_end(&j);
        FDX_TRY_GOTO(st, fdx_json_print(&j, stdout), fail);
    } else {
        printf("fdx %s: %s, %s-cycle, %s (%ld,%ld), order %ld, %s boundaries, %d levels, %s on %s\n", CMD,
               fdx_solver_method_name(method), fdx_solver_cycle_name(cycle), fdx_solver_smoother_name(sm), pre, post,
               order, fdx_solver_bc_name(m.bc), fdx_solver_levels(s), backend, device);
        if (gpus)
            printf("distributed over %d units (%d ranks x %ld): levels 0..%d split, the coarser gathered onto one unit\n",
                   units, ranks, gpus, fdx_solver_distributed_levels(s) - 1);
        printf("%6s  %-12s %s\n", "cycle", "residual", "reduction");
        for (int i = 0; i < nh; i++)
            printf("%6d  %-12.3e %.4f\n", i, hist[i], i ? hist[i] / hist[i - 1] : 1.0);
        printf("cycles %d (%s tol %.1e), work %.1f units\n", cycles, converged ? "reached" : "did NOT reach", tol,
               fdx_solver_work_units(s));
        printf("time: setup %.4f s, solve %.4f s, %.4f s a cycle", setup_s, solve_s, cycles ? solve_s / cycles : 0);
        if (repeat > 0) printf(" (median of %ld repeats; the first solve %.4f s)", repeat, solve_first);
        printf("\n");
        if (coef.kind == MG_COEF_NONE)
            printf("error max |u - u*| %.3e, discretization error %.3e: %s\n", err, m.disc_error,
                   err_ok ? "at the discretization level" : "ABOVE the discretization level");
        else if (coef.kind == MG_COEF_FILE)
            printf("coefficient %s: error max |u - u*| %.3e against the exact discrete solution (max |u*| %.3e): %s\n",
                   coef.path, err, umax, err_ok ? "within 1e-6 of it" : "NOT within 1e-6 of it");
        else
            printf("coefficient %s: error max |u - u*| %.3e, %.3e on half the grid (h %.4g): order %.2f, %s\n",
                   cmd_mg_coef_name(&coef), err, err_coarse, h_coarse, observed,
                   err_ok ? "at the discretization level" : "ABOVE the discretization level (order < 1.5)");
        if (plot) printf("plot: %s\n", plot);
    }
    rc = verified ? CLI_OK : CLI_VERIFY_FAILED;
    if (!verified && !quiet)
        fprintf(stderr, "fdx %s: %s\n", CMD,
                !converged ? "the tolerance was not reached within --steps"
                           : coef.kind == MG_COEF_NONE || coef.kind == MG_COEF_FILE
                               ? "the error is above the discretization level"
                               : "the error does not fall at the discretization order (order < 1.5)");
    goto done;
fail:
    rc = cli_fail(CMD, st);
done:
    fdx_json_free(&j);
    free(exact);
    free(u0);
    free(times);
    fdx_array_destroy(&karr);
    fdx_array_destroy(&f);
    fdx_array_destroy(&u);
    fdx_solver_destroy(&s);
    cmd_mg_dist_free(&dist);
    fdx_ctx_destroy(&ctx);
    fdx_options_destroy(&opts);
    return rc;
}

int cmd_mg(int argc, char **argv) { return cmd_mg_main("mg", argc, argv); }
