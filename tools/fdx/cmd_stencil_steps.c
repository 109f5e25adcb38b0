/* fdx stencil --steps N [--temporal off|auto|K]: N heat steps through
   fdx_stencil_steps, or wave steps through fdx_stencil_wave_steps
   (temporal blocking), verified bit for bit against N single applies
   alternating between two arrays (wave: rotating three; u and u_prev), timed per step and
   reported against the copy bandwidth: the effective bandwidth of a step
   is the one-step theoretical traffic over the time per step, so a run
   that does several steps per pass through memory can exceed copy. */
#include "cmd_stencil.h"
#include "fdx/internal/json.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct steps_run {
    fdx_stencil *s;
    fdx_array *u, *tmp;
    int64_t nsteps;
    int temporal;
    fdx_array *up, *cf, *tmp2; /* wave: u_prev, the coefficients (or NULL), a second scratch array */
} steps_run;

static fdx_status steps_once(void *arg, void *stream)
{
    steps_run *r = arg;
    if (r->up) return fdx_stencil_wave_steps(r->s, r->u, r->up, r->cf, r->tmp, r->tmp2, r->nsteps, r->temporal, stream);
    return fdx_stencil_steps(r->s, r->u, r->tmp, r->nsteps, r->temporal, stream);
}

/* dst <- src on the device (the arrays share a shape). */
static fdx_status copy_array(fdx_array *dst, fdx_array *src)
{
    memcpy(fdx_array_host(dst), fdx_array_host(src), fdx_array_bytes(src));
    return fdx_array_to_device(dst);
}

static const char *request_text(int temporal, char *buf, size_t n)
{
    if (temporal == 0) return "off";
    if (temporal < 0) return "auto";
    snprintf(buf, n, "%d", temporal);
    return buf;
}

int stencil_steps_run(fdx_ctx *ctx, const char *cmd, const stencil_case *c, int64_t nsteps, int temporal, int json,
                      double copy_gbps)
{
    fdx_status st = FDX_OK;
    int rc = CLI_OK;
    fdx_stencil_desc d;
    stencil_case_desc(c, &d);
    steps_run r = {NULL, NULL, NULL, nsteps, temporal, NULL, NULL, NULL};
    fdx_array *u0 = NULL, *ru = NULL, *rt = NULL, *rp = NULL;
    /* Wave: u_prev starts as u (at rest), so every array has u's frame, as
       the stepper asks; the coefficients are positive. */
    int wave = c->update == FDX_UPDATE_WAVE, n = wave ? 9 : 5;
    fdx_array **arrays[] = {&u0, &r.u, &r.tmp, &ru, &rt, &r.up, &r.tmp2, &rp, &r.cf};
    unsigned places = FDX_ON_HOST | FDX_ON_DEVICE;
    FDX_TRY_GOTO(st, fdx_stencil_create(ctx, &d, c->dtype, &r.s), fail);
    for (int i = 0; i < n; i++) {
        if (i == 8 && !c->coef) break;
        FDX_TRY_GOTO(st, fdx_array_create(ctx, c->dtype, c->rank, c->shape, places, arrays[i]), fail);
    }
    stencil_fill_random(u0, 1);
    FDX_TRY_GOTO(st, fdx_array_to_device(u0), fail);
    for (int i = 1; i < n && i < 8; i++) FDX_TRY_GOTO(st, copy_array(*arrays[i], u0), fail);
    if (r.cf) {
        stencil_fill_random(r.cf, 3);
        double *pd = fdx_array_host(r.cf);
        float *pf = fdx_array_host(r.cf);
        for (int64_t q = 0; q < fdx_array_count(r.cf); q++)
            if (c->dtype == FDX_FLOAT64) pd[q] = 0.75 + 0.25 * pd[q];
            else pf[q] = 0.75f + 0.25f * pf[q];
        FDX_TRY_GOTO(st, fdx_array_to_device(r.cf), fail);
    }
    /* The reference: single applies between ru and rt (wave: rotating
       rp <- ru <- rt). */
    fdx_array *src = ru, *dst = rt, *prv = rp;
    for (int64_t i = 0; i < nsteps; i++) {
        FDX_TRY_GOTO(st, fdx_stencil_apply(r.s, dst, src, prv, r.cf, NULL), fail);
        fdx_array *t = wave ? prv : src;
        if (wave) prv = src;
        src = dst, dst = t;
    }
    /* The first run tunes (auto) and is the one verified. */
    FDX_TRY_GOTO(st, steps_once(&r, NULL), fail);
    FDX_TRY_GOTO(st, fdx_array_to_host(r.u), fail);
    FDX_TRY_GOTO(st, fdx_array_to_host(src), fail);
    int verified = memcmp(fdx_array_host(r.u), fdx_array_host(src), fdx_array_bytes(r.u)) == 0 &&
                   memcmp(fdx_array_host(r.u), fdx_array_host(u0), fdx_array_bytes(r.u)) != 0;
    if (wave) {
        FDX_TRY_GOTO(st, fdx_array_to_host(r.up), fail);
        FDX_TRY_GOTO(st, fdx_array_to_host(prv), fail);
        verified = verified && memcmp(fdx_array_host(r.up), fdx_array_host(prv), fdx_array_bytes(r.up)) == 0;
    }
    char config[96], req[16];
    int depth = fdx_stencil_steps_depth(r.s, c->shape, config, sizeof config);
    fdx_time_stats t;
    FDX_TRY_GOTO(st, fdx_time_run(ctx, steps_once, &r, 1, c->reps, &t), fail);
    double fetch, write, per_step = t.median_ms / (double)nsteps;
    fdx_stencil_traffic(r.s, c->shape, &fetch, &write);
    double eff = fdx_effective_gbps(fetch, write, per_step);
    if (json) {
        fdx_json j;
        fdx_json_init(&j);
        fdx_json_record_head(&j, c->name, fdx_backend_kind_name(fdx_ctx_backend(ctx)), fdx_ctx_device_name(ctx),
                             fdx_dtype_name(c->dtype), c->rank, c->shape);
        fdx_json_int(&j, "order", c->order);
        fdx_json_int(&j, "points", 1 + 2 * c->rank * (c->order / 2));
        fdx_json_str(&j, "op", stencil_op_name(c->update));
        fdx_json_int(&j, "steps", nsteps);
        fdx_json_str(&j, "temporal_request", request_text(temporal, req, sizeof req));
        fdx_json_int(&j, "temporal", depth);
        fdx_json_str(&j, "config", config);
        fdx_json_time_ms(&j, &t);
        fdx_json_num(&j, "ms_per_step", per_step);
        fdx_json_traffic(&j, "bytes_per_step", fetch, write, eff, copy_gbps);
        fdx_json_bool(&j, "verified", verified);
        fdx_json_str(&j, "verified_against", "the same steps as single applies, bit for bit");
        st = fdx_json_finish(&j, stdout);
        fflush(stdout);
        if (st != FDX_OK) goto fail;
    } else {
        printf("%-10s %-4s %-6s order %d, %lld steps, temporal %s: %s\n", c->name,
               fdx_backend_kind_name(fdx_ctx_backend(ctx)), fdx_dtype_name(c->dtype), c->order, (long long)nsteps,
               request_text(temporal, req, sizeof req), config);
        printf("  %.4f ms a step, %.1f GB/s effective, copy %.1f GB/s, ratio %.3f, bit-identical to single steps: %s\n",
               per_step, eff, copy_gbps, eff / copy_gbps, verified ? "yes" : "NO");
        fflush(stdout);
    }
    if (!verified)
        rc = cli_verify_failed(cmd, "%lld steps (temporal %s) differ from single steps, or left u unchanged",
                               (long long)nsteps, request_text(temporal, req, sizeof req));
    goto done;
fail:
    rc = cli_fail(cmd, st);
done:
    for (int i = 0; i < 9; i++) fdx_array_destroy(arrays[i]);
    fdx_stencil_destroy(&r.s);
    return rc;
}
