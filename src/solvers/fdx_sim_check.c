/* fdx_sim_check: what fdx_sim_create refuses before it allocates anything
   big: numbers the run's precision cannot hold (so the run would be NaN, or
   frozen, from its first step), and runs whose buffers do not fit the host
   or the device (refused with the need and the limit, instead of being
   killed by the kernel's OOM killer a minute later). */
#include "core/fdx_error.h"
#include "solvers/fdx_fieldops.h"
#include "solvers/fdx_sim_impl.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The run's numbers stay this far inside the element type's normal range,
   so sums of a few dozen stencil terms neither overflow nor underflow. */
#define HEADROOM 1e6

static int fits(const fdx_sim *s, double x)
{
    double lo = s->type == FDX_FLOAT64 ? DBL_MIN : FLT_MIN, hi = s->type == FDX_FLOAT64 ? DBL_MAX : FLT_MAX;
    return isfinite(x) && x >= lo * HEADROOM && x <= hi / HEADROOM;
}

fdx_status fdx_sim_check_numbers(const fdx_sim *s)
{
    const char *prec = fdx_dtype_name(s->type);
    double ih2 = 1.0 / (s->h * s->h);
    FDX_CHECK(fits(s, ih2), FDX_ERR_INVALID,
              "length: a spacing of %g gives 1/h^2 = %g in the Laplacian, which %s cannot hold with room to spare; "
              "rescale the units or use precision double",
              s->h, ih2, prec);
    /* The time scale: far outside this range the times the run reports and
       stamps on its outputs, and the source's timing, stop meaning anything
       (kappa 1e30 gives dt ~ 1e-34 s). */
    FDX_CHECK(s->kind == FDX_SIM_POISSON || (s->dt >= 1e-30 && s->dt <= 1e30), FDX_ERR_INVALID,
              "%s: the stable time step dt = %g is outside 1e-30..1e30; rescale the units (kappa, velocity, length)",
              s->kind == FDX_SIM_HEAT ? "kappa" : "velocity", s->dt);
    if (s->kind == FDX_SIM_WAVE) {
        FDX_CHECK(fits(s, s->cmax * s->cmax) && fits(s, s->cmin * s->cmin), FDX_ERR_INVALID,
                  "velocity: c between %g and %g gives c^2 between %g and %g, which %s cannot hold with room to "
                  "spare (the leapfrog update multiplies c^2 dt^2 / h^2): the run would be %s from its first step; "
                  "rescale the units or use precision double",
                  s->cmin, s->cmax, s->cmin * s->cmin, s->cmax * s->cmax, prec,
                  s->cmax * s->cmax > 1 ? "Inf/NaN" : "frozen");
        FDX_CHECK(fits(s, s->alpha), FDX_ERR_INVALID,
                  "velocity: c up to %g makes the stable time step dt = %g (cfl %s), and dt^2 = %g is outside the "
                  "range of %s: the run would be %s from its first step; rescale the units or use precision double",
                  s->cmax, s->dt, fdx_sim_config_get(s->cfg, "cfl"), s->alpha, prec,
                  s->alpha < 1 ? "Inf/NaN" : "frozen");
        /* Stability: c_max^2 dt^2 lambda_max <= 4 is how dt was chosen;
           the source must also be resolved in time, or it is aliased. */
        FDX_CHECK(s->f0 * s->dt <= 0.5, FDX_ERR_INVALID,
                  "f0: %g Hz with the stable time step dt = %g gives %.3g cycles a step; above 0.5 the source is "
                  "aliased (lower f0 or cfl)",
                  s->f0, s->dt, s->f0 * s->dt);
        FDX_CHECK(s->amp == 0 || fits(s, fabs(s->amp)), FDX_ERR_INVALID,
                  "amplitude: %g is outside the range %s can hold with room to spare", s->amp, prec);
    }
    FDX_CHECK(isfinite(s->dt) && s->dt > 0 && fits(s, s->alpha), FDX_ERR_INVALID,
              "the stable time step dt = %g (update factor %g) is outside the range of %s; rescale the units", s->dt,
              s->alpha, prec);
    return FDX_OK;
}

static double gib(double b) { return b / (1024.0 * 1024.0 * 1024.0); }

fdx_status fdx_sim_check_memory(const fdx_sim *s, int nrec, int distributed)
{
    double n = (double)s->count, es = (double)fdx_dtype_size(s->type);
    int output = s->output[0] != 0;
    /* Device: cur, next; wave: prev and c^2; Poisson: f; the spare copy that
       fields leave through; the receiver traces of every step. */
    int fields = 2 + (s->kind == FDX_SIM_HEAT ? 0 : s->kind == FDX_SIM_WAVE ? 2 : 1);
    double traces = (double)nrec * (double)(s->steps + 1);
    double dev = (fields + output) * n * es + traces * es;
    if (s->kind == FDX_SIM_WAVE && s->p.absorb == FDX_SIM_ABSORB_PML) /* the PML's memory variables */
        dev += fdx_pml_elements(s->rank, s->n, s->r, s->p.sponge) * es;
    /* Host: the pinned copy for fields; the largest transient: the doubles
       of an input file (initial field or model), with one element-type copy (the conversion, a checkpoint's copy of a
       field); the receivers as raw values, doubles and CSV text.  Generated
       fields and the diagnostics need no host copy. */
    int files = (s->kind == FDX_SIM_HEAT && s->p.init == FDX_SIM_INIT_FILE) ||
                (s->kind == FDX_SIM_WAVE && s->p.model == FDX_SIM_MODEL_FILE);
    double host = 2.0 * output * n * es /* pinned copy, HDF5 image */ + (files * 8.0 + es) * n +
                  traces * (es + 8 + 16.0 * (output ? 2 : 0));
    int on_cpu = fdx_ctx_backend(s->ctx) != FDX_BACKEND_CUDA;
    if (on_cpu) host += dev; /* the CPU backend's device memory is the host's */
    if (distributed) host += fields * n * es; /* the units' blocks (CPU units share this host) */
    const char *what = "";
    double avail = fdx_host_memory_available(&what);
    FDX_CHECK(host <= avail, FDX_ERR_INVALID,
              "size: %s %s %s needs %.2f GiB of host memory (%d fields%s%s, host copies for diagnostics and "
              "output), more than the %.2f GiB available (%s)",
              fdx_sim_kind_name(s->kind), fdx_sim_config_get(s->cfg, "size"), fdx_dtype_name(s->type), gib(host),
              fields, output ? ", an output copy" : "", traces > 0 ? ", receiver traces" : "", gib(avail), what);
    if (!on_cpu) {
        size_t free_b = 0, total_b = 0;
        FDX_TRY(fdx_fieldops_device_memory(s->ctx, &free_b, &total_b));
        double total = total_b ? (double)total_b : (double)fdx_ctx_memory(s->ctx);
        double limit = 0.95 * total;
        if (free_b && (double)free_b < limit) limit = (double)free_b;
        FDX_CHECK(dev <= limit, FDX_ERR_INVALID,
                  "size: %s %s %s needs %.2f GiB of device memory (%d fields%s%s), more than the %.2f GiB free on %s",
                  fdx_sim_kind_name(s->kind), fdx_sim_config_get(s->cfg, "size"), fdx_dtype_name(s->type), gib(dev),
                  fields, output ? ", an output copy" : "", traces > 0 ? ", receiver traces" : "", gib(limit),
                  fdx_ctx_device_name(s->ctx));
    }
    return FDX_OK;
}
