/* fdx stencil: one star stencil of any order in 1-3D (Laplacian, wave or
   heat step) on random inputs: verified against a plain CPU loop, timed with
   events, reported against the device copy bandwidth.  Also the case runner
   of `fdx bench stencil`. */
#include "cmd_stencil.h"
#include "fdx/internal/json.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const op_names[] = {"laplacian", "wave", "heat"};

fdx_status stencil_parse_op(const char *s, fdx_stencil_update *out)
{
    for (int i = 0; i < 3; i++)
        if (strcmp(s, op_names[i]) == 0) {
            *out = (fdx_stencil_update)i;
            return FDX_OK;
        }
    return fdx_fail(FDX_ERR_INVALID, "--op '%s' is not laplacian, wave or heat", s);
}

const char *stencil_op_name(fdx_stencil_update u) { return op_names[u]; }

static int64_t count_of(const stencil_case *c)
{
    int64_t n = 1;
    for (int d = 0; d < c->rank; d++) n *= c->shape[d];
    return n;
}

double stencil_case_bytes(const stencil_case *c)
{
    int arrays = 2 + (c->update == FDX_UPDATE_WAVE) + c->coef;
    return (double)arrays * (double)count_of(c) * (double)fdx_dtype_size(c->dtype);
}

fdx_status stencil_copy_gbps(fdx_ctx *ctx, double bytes, double *gbps)
{
    double probe = bytes < 256.0 * (1 << 20) ? 256.0 * (1 << 20) : bytes > (double)(1u << 30) ? (double)(1u << 30) : bytes;
    return fdx_copy_bandwidth(ctx, (size_t)probe, 20, NULL, gbps);
}

/* Deterministic random values in [-1, 1) from the index (parallel fill). */
static double hashed(uint64_t i, uint64_t salt)
{
    uint64_t z = i * 0x9E3779B97F4A7C15ULL + salt;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    return (double)(z >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

void stencil_fill_random(fdx_array *a, uint64_t salt)
{
    int64_t n = fdx_array_count(a);
    void *p = fdx_array_host(a);
    int dbl = fdx_array_dtype(a) == FDX_FLOAT64;
#pragma omp parallel for schedule(static)
    for (int64_t q = 0; q < n; q++) {
        double v = hashed((uint64_t)q, salt);
        if (dbl) ((double *)p)[q] = v;
        else ((float *)p)[q] = (float)v;
    }
}

static double at(const void *p, int dbl, int64_t q) { return dbl ? ((const double *)p)[q] : ((const float *)p)[q]; }

typedef struct check {
    double max_err, worst; /* worst: error / tolerance */
    int64_t bad, checked;
} check;

/* Compares every interior point of the planes checked (all of them up to
   2^27 points, else every 7th plane of the slowest axis plus the border
   planes) with a plain loop over the description; boundary points of those
   planes must still hold the NaN poison. */
static void verify(const stencil_case *c, const fdx_stencil_desc *d, fdx_array *out, fdx_array *u, fdx_array *up,
                   fdx_array *cf, check *res)
{
    int r = c->order / 2, rank = c->rank, dbl = c->dtype == FDX_FLOAT64;
    double w1[2 * FDX_STENCIL_MAX_ORDER + 1], w2[2 * FDX_STENCIL_MAX_ORDER + 1];
    fdx_fd_weights(1, c->order, w1);
    fdx_fd_weights(2, c->order, w2);
    int64_t n[3] = {c->shape[0], rank > 1 ? c->shape[1] : 1, rank > 2 ? c->shape[2] : 1};
    int64_t stride[3] = {1, n[0], n[0] * n[1]};
    double wt[3][2 * FDX_STENCIL_MAX_ORDER + 1];
    for (int a = 0; a < rank; a++)
        for (int o = -r; o <= r; o++) wt[a][r + o] = d->alpha * d->d2[a] * w2[r + o] / (d->h[a] * d->h[a]);
    const void *pu = fdx_array_host(u), *po = fdx_array_host(out);
    const void *pp = up ? fdx_array_host(up) : NULL, *pc = cf ? fdx_array_host(cf) : NULL;
    double eps = dbl ? DBL_EPSILON : FLT_EPSILON;
    int slow = rank - 1, sparse = count_of(c) > ((int64_t)1 << 27);
    int64_t planes = n[slow == 0 ? 0 : slow];
    double max_err = 0, worst = 0;
    int64_t bad = 0, checked = 0;
#pragma omp parallel for schedule(dynamic, 1) reduction(max : max_err, worst) reduction(+ : bad, checked)
    for (int64_t pl = 0; pl < (rank == 1 ? 1 : planes); pl++) {
        if (sparse && pl % 7 != 0 && pl > r && pl < planes - r - 1) continue;
        int64_t lo[3] = {0, 0, 0}, hi[3] = {n[0], n[1], n[2]};
        if (rank > 1) lo[slow] = pl, hi[slow] = pl + 1;
        for (int64_t k = lo[2]; k < hi[2]; k++)
            for (int64_t j = lo[1]; j < hi[1]; j++)
                for (int64_t i = lo[0]; i < hi[0]; i++) {
                    int64_t q = i + n[0] * (j + n[1] * k), idx[3] = {i, j, k};
                    int interior = 1;
                    for (int a = 0; a < rank; a++) interior &= idx[a] >= r && idx[a] < n[a] - r;
                    double v = at(po, dbl, q);
                    if (!interior) {
                        bad += !isnan(v);
                        continue;
                    }
                    double lu = 0, mag = 0;
                    for (int a = 0; a < rank; a++)
                        for (int o = -r; o <= r; o++) {
                            double t = wt[a][r + o] * at(pu, dbl, q + o * stride[a]);
                            lu += t, mag += fabs(t);
                        }
                    if (pc) lu *= at(pc, dbl, q), mag *= fabs(at(pc, dbl, q));
                    double centre = at(pu, dbl, q), ref = lu;
                    if (pp) ref += 2 * centre - at(pp, dbl, q), mag += 2 * fabs(centre) + fabs(at(pp, dbl, q));
                    else if (c->update == FDX_UPDATE_HEAT) ref += centre, mag += fabs(centre);
                    double err = fabs(v - ref), tol = 8 * (2 * r + 2) * eps * mag + 1e-300;
                    checked++;
                    if (!(err <= tol)) bad++;
                    else if (err > max_err) max_err = err;
                    if (err / tol > worst) worst = err / tol;
                }
    }
    res->max_err = max_err, res->worst = worst, res->bad = bad, res->checked = checked;
}

/* With boundary conditions: NaN in the frame of every face with a condition
   before the first apply, so a ghost the pass leaves unwritten poisons the
   interior next to it (and fails verify). */
static void poison_frame(const stencil_case *c, const fdx_bc_desc *bc, fdx_array *u)
{
    int r = c->order / 2, dbl = c->dtype == FDX_FLOAT64;
    int64_t n[3] = {c->shape[0], c->rank > 1 ? c->shape[1] : 1, c->rank > 2 ? c->shape[2] : 1};
    void *p = fdx_array_host(u);
#pragma omp parallel for schedule(static)
    for (int64_t q = 0; q < n[0] * n[1] * n[2]; q++) {
        int64_t x[3] = {q % n[0], q / n[0] % n[1], q / (n[0] * n[1])};
        int ghost = 0;
        for (int a = 0; a < c->rank; a++)
            ghost |= (x[a] < r && bc->face[a][0].kind) || (x[a] >= n[a] - r && bc->face[a][1].kind);
        if (!ghost) continue;
        if (dbl) ((double *)p)[q] = NAN;
        else ((float *)p)[q] = NAN;
    }
}

/* The ghosts the pass wrote into u, each against its condition's formula
   (include/fdx/boundary.h) from the unknown it mirrors or copies (unknowns
   are not written by the pass, so u after the pass holds both); values
   arrays are not used by the command.  Mismatches count as bad points. */
static void verify_ghosts(const stencil_case *c, const fdx_bc_desc *bc, const fdx_stencil_desc *d, fdx_array *u,
                          check *res)
{
    int r = c->order / 2, dbl = c->dtype == FDX_FLOAT64;
    int64_t n[3] = {c->shape[0], c->rank > 1 ? c->shape[1] : 1, c->rank > 2 ? c->shape[2] : 1};
    int64_t stride[3] = {1, n[0], n[0] * n[1]};
    const void *p = fdx_array_host(u);
    int64_t bad = 0, checked = 0;
    for (int f = 0; f < 2 * c->rank; f++) {
        int a = f / 2, side = f % 2;
        const fdx_bc_face *face = &bc->face[a][side];
        if (!face->kind) continue;
        int64_t lo[3] = {0, 0, 0}, hi[3] = {1, 1, 1};
        for (int b = 0; b < c->rank; b++) lo[b] = b == a ? 0 : r, hi[b] = b == a ? r : n[b] - r;
#pragma omp parallel for collapse(2) schedule(static) reduction(+ : bad, checked)
        for (int64_t z = lo[2]; z < hi[2]; z++)
            for (int64_t y = lo[1]; y < hi[1]; y++)
                for (int64_t x = lo[0]; x < hi[0]; x++) {
                    int64_t idx[3] = {x, y, z}, k = idx[a], period = n[a] - 2 * r;
                    int64_t ghost = side ? n[a] - r + k : r - 1 - k, from;
                    if (face->kind == FDX_FACE_PERIODIC) from = side ? ghost - period : ghost + period;
                    else from = side ? n[a] - r - 1 - k : r + k;
                    idx[a] = ghost;
                    int64_t q = idx[0] + n[0] * (idx[1] + n[1] * idx[2]), m = q + (from - ghost) * stride[a];
                    double want = at(p, dbl, m), g = dbl ? face->value : (float)face->value;
                    if (face->kind == FDX_FACE_DIRICHLET) want = 2 * g - want;
                    if (face->kind == FDX_FACE_NEUMANN) want += (2 * k + 1) * d->h[a] * face->value;
                    double got = at(p, dbl, q), tol = 4 * (dbl ? DBL_EPSILON : FLT_EPSILON) * (fabs(want) + fabs(g) + 1);
                    checked++;
                    bad += !(fabs(got - want) <= tol);
                }
    }
    res->bad += bad, res->checked += checked;
}

typedef struct run {
    fdx_stencil *s;
    fdx_array *out, *u, *up, *cf;
} run;

static fdx_status apply_once(void *arg, void *stream)
{
    run *r = arg;
    return fdx_stencil_apply(r->s, r->out, r->u, r->up, r->cf, stream);
}

void stencil_table_header(void)
{
    printf("%-22s %-4s %-6s %-17s %-5s %-9s %-30s %9s %9s %9s %6s %9s %6s %s\n", "case", "back", "prec", "shape", "order",
           "op", "config", "time_ms", "eff_GB/s", "copy_GB/s", "ratio", "same_GB/s", "r_same", "verified");
}

static void shape_text(const stencil_case *c, char *buf, size_t n)
{
    int len = 0;
    for (int d = 0; d < c->rank; d++)
        len += snprintf(buf + len, n - (size_t)len, "%s%lld", d ? "x" : "", (long long)c->shape[d]);
}

void stencil_json_rates(fdx_json *j, const fdx_time_stats *t, double fetch, double write, double copy_gbps,
                        double same_gbps)
{
    double eff = fdx_effective_gbps(fetch, write, t->median_ms);
    fdx_json_time_ms(j, t);
    fdx_json_traffic(j, "bytes", fetch, write, eff, copy_gbps);
    fdx_json_num(j, "copy_same_size_gbps", same_gbps);
    fdx_json_num(j, "ratio_same_size", eff / same_gbps);
}

static fdx_status print_record(fdx_ctx *ctx, const stencil_case *c, const fdx_bc_desc *bc, const fdx_stencil_desc *d,
                               const char *config,
                               const fdx_time_stats *t, double fetch, double write, double copy_gbps,
                               double same_gbps, const check *chk, int verified)
{
    fdx_json j;
    fdx_json_init(&j);
    fdx_json_record_head(&j, c->name, fdx_backend_kind_name(fdx_ctx_backend(ctx)),
                         fdx_ctx_device_name(ctx), fdx_dtype_name(c->dtype), c->rank, c->shape);
    fdx_json_int(&j, "order", c->order);
    fdx_json_int(&j, "points", 1 + 2 * c->rank * (c->order / 2));
    fdx_json_str(&j, "op", stencil_op_name(c->update));
    fdx_json_bool(&j, "coef", c->coef);
    fdx_json_str(&j, "config", config);
    if (bc) {
        char text[512];
        fdx_bc_text(bc, c->rank, text, sizeof text);
        fdx_json_str(&j, "boundary", text);
    }
    fdx_json_str(&j, "tune", fdx_options_get(fdx_ctx_options(ctx), "tune"));
    stencil_json_rates(&j, t, fetch, write, copy_gbps, same_gbps);
    fdx_json_num(&j, "gpoints_per_s", (double)count_of(c) / (t->median_ms * 1e-3) / 1e9);
    fdx_json_bool(&j, "verified", verified);
    fdx_json_num(&j, "max_abs_error", chk->max_err);
    fdx_json_num(&j, "worst_error_over_tolerance", chk->worst);
    fdx_json_int(&j, "points_checked", chk->checked);
    fdx_json_num(&j, "alpha", d->alpha);
    if (c->suite) {
        fdx_json_str(&j, "suite", c->suite);
        fdx_json_int(&j, "seed", c->seed);
    }
    fdx_status st = fdx_json_finish(&j, stdout);
    fflush(stdout);
    return st;
}

void stencil_case_desc(const stencil_case *c, fdx_stencil_desc *d)
{
    double h[3];
    for (int a = 0; a < c->rank; a++) h[a] = 1.0 / (double)(c->shape[a] - 1);
    fdx_stencil_desc_laplacian(d, c->rank, c->order, h);
    d->update = c->update;
    d->coef = c->coef;
    /* A stable explicit step for the time updates: alpha * sum |w| / h^2 < 1. */
    if (c->update != FDX_UPDATE_APPLY) {
        double s = 0;
        for (int a = 0; a < c->rank; a++) s += 4.0 / (h[a] * h[a]);
        d->alpha = 0.5 / s;
    }
}

int stencil_case_run(fdx_ctx *ctx, const char *cmd, const stencil_case *c, const fdx_bc_desc *bc, int json,
                     double copy_gbps)
{
    run r = {0};
    fdx_status st;
    int rc = CLI_OK;
    fdx_stencil_desc d;
    stencil_case_desc(c, &d);
    unsigned places = FDX_ON_HOST | FDX_ON_DEVICE;
    FDX_TRY_GOTO(st, fdx_stencil_create(ctx, &d, c->dtype, &r.s), fail);
    if (bc) FDX_TRY_GOTO(st, fdx_stencil_set_boundary(r.s, bc), fail);
    /* A second copy probe, of the case's own bytes (half its theoretical
       traffic a buffer, so the copy moves what the stencil must), timed the
       same way, one launch between events: for a small case the launch and
       event overhead (~8 us on the H100) weighs on both alike, where the
       1 GiB probe hides it.  Run before the case's arrays exist. */
    double fetch, write, same_gbps;
    fdx_stencil_traffic(r.s, c->shape, &fetch, &write);
    size_t same = ((size_t)((fetch + write) / 2) + 255) & ~(size_t)255;
    FDX_TRY_GOTO(st, fdx_copy_bandwidth(ctx, same, 20, NULL, &same_gbps), fail);
    FDX_TRY_GOTO(st, fdx_array_create(ctx, c->dtype, c->rank, c->shape, places, &r.u), fail);
    FDX_TRY_GOTO(st, fdx_array_create(ctx, c->dtype, c->rank, c->shape, places, &r.out), fail);
    if (c->update == FDX_UPDATE_WAVE) FDX_TRY_GOTO(st, fdx_array_create(ctx, c->dtype, c->rank, c->shape, places, &r.up), fail);
    if (c->coef) FDX_TRY_GOTO(st, fdx_array_create(ctx, c->dtype, c->rank, c->shape, places, &r.cf), fail);
    stencil_fill_random(r.u, 1);
    if (bc) poison_frame(c, bc, r.u);
    if (r.up) stencil_fill_random(r.up, 2);
    if (r.cf) stencil_fill_random(r.cf, 3);
    FDX_TRY_GOTO(st, fdx_array_to_device(r.u), fail);
    if (r.up) FDX_TRY_GOTO(st, fdx_array_to_device(r.up), fail);
    if (r.cf) FDX_TRY_GOTO(st, fdx_array_to_device(r.cf), fail);
    FDX_TRY_GOTO(st, fdx_array_fill_host(r.out, NAN), fail);
    FDX_TRY_GOTO(st, fdx_array_to_device(r.out), fail);
    if (fdx_ctx_backend(ctx) == FDX_BACKEND_CUDA) FDX_TRY_GOTO(st, fdx_array_fill_device_bytes(r.out, 0xFF), fail);

    /* The first apply tunes (when asked) and is verified on the poisoned output. */
    FDX_TRY_GOTO(st, apply_once(&r, NULL), fail);
    FDX_TRY_GOTO(st, fdx_array_to_host(r.out), fail);
    if (bc) {
        /* On CUDA the kernel may apply conditions without writing u's frame
           (FDX_BC_FOLD, default 4: the x faces); a pass fills it for the checks below
           (the outputs were computed before, from the kernel's own ghosts). */
        fdx_bc *b = NULL;
        st = fdx_bc_create(ctx, bc, d.rank, fdx_stencil_radius(r.s), d.h, c->dtype, &b);
        if (st == FDX_OK) st = fdx_bc_apply(b, r.u, NULL);
        fdx_bc_destroy(&b);
        if (st != FDX_OK) goto fail;
    }
    if (bc) FDX_TRY_GOTO(st, fdx_array_to_host(r.u), fail); /* the ghosts the pass wrote */
    check chk;
    verify(c, &d, r.out, r.u, r.up, r.cf, &chk);
    if (bc) verify_ghosts(c, bc, &d, r.u, &chk);
    int verified = chk.bad == 0 && chk.checked > 0;

    fdx_time_stats t;
    FDX_TRY_GOTO(st, fdx_time_run(ctx, apply_once, &r, 3, c->reps, &t), fail);
    const char *config = fdx_stencil_config(r.s, c->shape);
    if (json) {
        FDX_TRY_GOTO(st, print_record(ctx, c, bc, &d, config, &t, fetch, write, copy_gbps, same_gbps, &chk, verified),
                     fail);
    } else {
        char shape[64];
        shape_text(c, shape, sizeof shape);
        double eff = fdx_effective_gbps(fetch, write, t.median_ms);
        printf("%-22s %-4s %-6s %-17s %-5d %-9s %-30s %9.4f %9.1f %9.1f %6.3f %9.1f %6.3f %s\n", c->name,
               fdx_backend_kind_name(fdx_ctx_backend(ctx)), fdx_dtype_name(c->dtype), shape, c->order,
               stencil_op_name(c->update), config, t.median_ms, eff, copy_gbps, eff / copy_gbps, same_gbps,
               eff / same_gbps, verified ? "yes" : "NO");
        fflush(stdout);
    }
    if (!verified)
        rc = cli_verify_failed(cmd, "case %s failed verification: %lld of %lld points wrong (worst error %.3g x tolerance)",
                               c->name, (long long)chk.bad, (long long)chk.checked, chk.worst);
    goto done;
fail:
    rc = cli_fail(cmd, st);
done:
    fdx_array_destroy(&r.u);
    fdx_array_destroy(&r.up);
    fdx_array_destroy(&r.cf);
    fdx_array_destroy(&r.out);
    fdx_stencil_destroy(&r.s);
    return rc;
}

int cmd_stencil(int argc, char **argv)
{
    static const char *CMD = "stencil";
    const char *dims_s = NULL, *order_s = "2", *op_s = "laplacian", *size = NULL, *precision = "double";
    const char *reps_s = "20", *json = NULL, *coef = NULL, *boundary = NULL, *steps_s = NULL, *temporal_s = "auto";
    const cli_flag flags[] = {
        {"dims", "D", "1, 2 or 3 (default: the number of extents in --size, else 3)", &dims_s},
        {"order", "N", "accuracy order 2, 4, 6, 8, 10 or 12 (radius N/2) [2]", &order_s},
        {"op", "OP", "laplacian (f = L u), wave (2u - u_prev + a L u) or heat (u + a L u) [laplacian]", &op_s},
        {"size", "NX[xNY[xNZ]]", "grid points per axis; the extents give the rank [256x256x256, 4096x4096, 1048576]", &size},
        {"precision", "P", "float or double [double]", &precision},
        {"coef", NULL, "multiply L u by a pointwise coefficient array", &coef},
        {"reps", "N", "timed repetitions, median reported [20]", &reps_s},
        {"json", NULL, "print one JSON record instead of the table", &json},
        {"boundary", "SPEC", "boundary conditions filling the ghost frame before each apply, e.g. "
                             "x=periodic,y=dirichlet:0,z-=neumann:1 (FACE x, y, z, x-, x+, ..., all; KIND periodic, "
                             "dirichlet[:V], neumann[:Q], none) [none: interior only]", &boundary},
        {"steps", "N", "heat or wave: N steps through fdx_stencil_steps / fdx_stencil_wave_steps, verified bit "
                       "for bit against single steps, timed per step", &steps_s},
        {"temporal", "off|auto|K", "with --steps: one step a pass, chosen by timing, or K (2..8) steps a pass "
                                   "[auto]", &temporal_s},
        {NULL, NULL, NULL, NULL},
    };
    fdx_options *opts = NULL;
    int rc = cli_start(argc, argv, CMD,
                       "[--dims 1|2|3] [--order N] [--op laplacian|wave|heat] [--size NXxNY[xNZ]] "
                       "[--precision float|double] [--coef] [--reps N] [--json] [--boundary SPEC] "
                       "[--steps N [--temporal off|auto|K]]",
                       flags, &opts);
    fdx_ctx *ctx = NULL;
    if (rc >= 0) goto done;
    stencil_case c = {.name = "stencil", .rank = 3, .shape = {256, 256, 256}, .order = 2, .update = FDX_UPDATE_APPLY,
                      .coef = coef != NULL, .dtype = FDX_FLOAT64, .reps = 20};
    long dims = 0, order, reps;
    fdx_status st;
    if ((dims_s && (st = cli_parse_int("--dims", dims_s, 1, 3, &dims)) != FDX_OK) ||
        (st = cli_parse_int("--order", order_s, 2, FDX_STENCIL_MAX_ORDER, &order)) != FDX_OK ||
        (st = cli_parse_int("--reps", reps_s, 1, 100000, &reps)) != FDX_OK ||
        (st = stencil_parse_op(op_s, &c.update)) != FDX_OK || (st = fdx_dtype_parse(precision, &c.dtype)) != FDX_OK) {
        rc = cli_usage_error(CMD, "%s", fdx_last_error());
        goto done;
    }
    if (order % 2) {
        rc = cli_usage_error(CMD, "--order %ld must be even (2, 4, ..., %d)", order, FDX_STENCIL_MAX_ORDER);
        goto done;
    }
    if (c.dtype != FDX_FLOAT32 && c.dtype != FDX_FLOAT64) {
        rc = cli_usage_error(CMD, "--precision must be float or double, not '%s'", precision);
        goto done;
    }
    c.order = (int)order, c.reps = (int)reps;
    long nsteps = 0, temporal = -1;
    if (steps_s) {
        if ((st = cli_parse_int("--steps", steps_s, 1, 1000000, &nsteps)) != FDX_OK) {
            rc = cli_usage_error(CMD, "%s", fdx_last_error());
            goto done;
        }
        if (c.update == FDX_UPDATE_APPLY || (c.update == FDX_UPDATE_HEAT && c.coef)) {
            rc = cli_usage_error(CMD, "--steps needs --op heat (without --coef) or --op wave");
            goto done;
        }
        if (boundary) {
            rc = cli_usage_error(CMD, "--boundary with --steps: the time-stepping path takes no boundary conditions "
                                      "yet (apply them with single steps: drop --steps)");
            goto done;
        }
        if (strcmp(temporal_s, "off") == 0) temporal = 0;
        else if (strcmp(temporal_s, "auto") != 0 && (st = cli_parse_int("--temporal", temporal_s, 1, 8, &temporal)) != FDX_OK) {
            rc = cli_usage_error(CMD, "--temporal '%s' is not off, auto or 1..8", temporal_s);
            goto done;
        }
    }
    if (size) {
        int rank = 0;
        if ((st = cli_parse_shape(size, 1, 3, 1, &rank, c.shape)) != FDX_OK) {
            rc = cli_usage_error(CMD, "%s", fdx_last_error());
            goto done;
        }
        if (dims && dims != rank) {
            rc = cli_usage_error(CMD, "--dims %ld but --size '%s' has %d extents", dims, size, rank);
            goto done;
        }
        c.rank = rank;
    } else {
        c.rank = dims ? (int)dims : 3;
        static const int64_t defaults[4][3] = {{0}, {1 << 20}, {4096, 4096}, {256, 256, 256}};
        memcpy(c.shape, defaults[c.rank], sizeof c.shape);
    }
    for (int a = 0; a < c.rank; a++)
        if (c.shape[a] <= order) {
            rc = cli_usage_error(CMD, "order %ld needs at least %ld points per axis; axis %d has %lld", order,
                                 order + 1, a, (long long)c.shape[a]);
            goto done;
        }
    fdx_bc_desc bc;
    if (boundary) {
        if ((st = fdx_bc_parse(boundary, c.rank, &bc)) != FDX_OK) {
            rc = cli_usage_error(CMD, "--boundary: %s", fdx_last_error());
            goto done;
        }
        for (int a = 0; a < c.rank; a++)
            if ((bc.face[a][0].kind || bc.face[a][1].kind) && c.shape[a] < 3 * (order / 2)) {
                rc = cli_usage_error(CMD, "--boundary on axis %d needs at least %ld points there (3 x radius); it has %lld",
                                     a, 3 * (order / 2), (long long)c.shape[a]);
                goto done;
            }
    }
    if ((st = fdx_shape_check(c.rank, c.shape, 1, fdx_dtype_size(c.dtype))) != FDX_OK) {
        rc = cli_usage_error(CMD, "%s", fdx_last_error());
        goto done;
    }
    if ((st = fdx_ctx_create(opts, &ctx)) != FDX_OK) {
        rc = cli_fail(CMD, st);
        goto done;
    }
    double need = stencil_case_bytes(&c), have = (double)fdx_ctx_memory(ctx);
    if (need > 0.9 * have) {
        rc = cli_usage_error(CMD, "--size %s needs %.2f GiB for its arrays, more than the %.2f GiB of %s",
                             size ? size : "(default)", need / (1 << 30), have / (1 << 30), fdx_ctx_device_name(ctx));
        goto done;
    }
    double copy_gbps;
    if ((st = stencil_copy_gbps(ctx, need / (2 + (c.update == FDX_UPDATE_WAVE) + c.coef), &copy_gbps)) != FDX_OK) {
        rc = cli_fail(CMD, st);
        goto done;
    }
    if (steps_s) {
        rc = stencil_steps_run(ctx, CMD, &c, nsteps, (int)temporal, json != NULL, copy_gbps);
        goto done;
    }
    if (!json) stencil_table_header();
    rc = stencil_case_run(ctx, CMD, &c, boundary ? &bc : NULL, json != NULL, copy_gbps);
done:
    fdx_ctx_destroy(&ctx);
    fdx_options_destroy(&opts);
    return rc;
}
