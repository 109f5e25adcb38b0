/* fdx_sim_params: the typed configuration, parsed once from the key table. */
#include "solvers/fdx_sim_params.h"
#include "core/fdx_log.h"

#include "solvers/fdx_sim_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The position of v in "a|b|c" (the table has checked it is one of them). */
static int choice(const char *v, const char *choices)
{
    int i = 0;
    for (const char *p = choices; *p; i++) {
        size_t len = strcspn(p, "|");
        if (strlen(v) == len && strncmp(v, p, len) == 0) return i;
        p += len + (p[len] == '|');
    }
    return 0;
}

static void copy_str(char *dst, size_t cap, const char *v) { snprintf(dst, cap, "%s", v ? v : ""); }

/* The boundary key: "insulated" (heat), "fixed", or conditions in the
   syntax of fdx_bc_parse for the grid's rank. */
static fdx_status parse_boundary(const char *v, fdx_sim_params *p)
{
    if (strcmp(v, "fixed") == 0) return FDX_OK;
    if (strcmp(v, "insulated") == 0) {
        FDX_CHECK(p->kind == FDX_SIM_HEAT, FDX_ERR_INVALID,
                  "boundary: 'insulated' is heat's mirror; the wave takes fixed or conditions (e.g. all=neumann)");
        p->insulated = 1;
        return FDX_OK;
    }
    if (fdx_bc_parse(v, p->rank, &p->bc) != FDX_OK) {
        char why[600];
        snprintf(why, sizeof why, "%s", fdx_last_error());
        return fdx_fail(FDX_ERR_INVALID, "boundary: %s", why);
    }
    p->has_bc = 1;
    for (int a = 0; a < p->rank; a++) p->periodic |= (p->bc.face[a][0].kind == FDX_FACE_PERIODIC) << a;
    return FDX_OK;
}

fdx_status fdx_sim_params_parse(const fdx_sim_config *c, fdx_sim_params *p)
{
    memset(p, 0, sizeof *p);
    fdx_sim_kind k = fdx_sim_config_kind(c);
#define GET(key) fdx_sim_config_get(c, key)
    p->kind = k;
    FDX_TRY(fdx_sim_parse_shape("size", GET("size"), &p->rank, p->n));
    if (p->rank == 2) p->n[2] = 1;
    p->order = atoi(GET("order"));
    p->type = strcmp(GET("precision"), "double") == 0 ? FDX_FLOAT64 : FDX_FLOAT32;
    p->length = atof(GET("length"));
    p->cfl = atof(GET("cfl"));
    p->steps = atoll(GET("steps"));
    copy_str(p->output, sizeof p->output, GET("output"));
    copy_str(p->restart, sizeof p->restart, GET("restart"));
    p->snapshot_every = atoll(GET("snapshot-every"));
    p->field_every = atoll(GET("field-every"));
    p->checkpoint_every = atoll(GET("checkpoint-every"));
    p->overwrite = strcmp(GET("overwrite"), "yes") == 0;
    p->scale = atoi(GET("scale"));
    p->progress = (fdx_sim_progress)choice(GET("progress"), "auto|bar|lines|off");
    if (k == FDX_SIM_HEAT) {
        p->kappa = atof(GET("kappa"));
        p->init = (fdx_sim_init)choice(GET("init"), "letters|gaussian|sine|random|file");
        copy_str(p->text, sizeof p->text, GET("text"));
        copy_str(p->input, sizeof p->input, GET("input"));
        p->text_is_default = fdx_sim_config_is_default(c, "text");
    }
    if (k == FDX_SIM_WAVE) {
        p->velocity = atof(GET("velocity"));
        p->f0 = atof(GET("f0"));
        p->amplitude = atof(GET("amplitude"));
        p->model = (fdx_sim_model)choice(GET("model"), "constant|layered|gradient|file");
        copy_str(p->model_file, sizeof p->model_file, GET("model-file"));
        copy_str(p->model_shape, sizeof p->model_shape, GET("model-shape"));
        int64_t src[1][3];
        p->source_dims = p->rank;
        FDX_TRY(fdx_sim_parse_points("source", GET("source"), 1, &p->nsource, src, &p->source_dims));
        memcpy(p->source, src[0], sizeof p->source);
        p->rec_dims = p->rank;
        p->no_receivers = strcmp(GET("receivers"), "none") == 0;
        if (!p->no_receivers)
            FDX_TRY(fdx_sim_parse_points("receivers", GET("receivers"), FDX_SIM_MAX_REC, &p->nrec, p->rec, &p->rec_dims));
        p->sponge = atoi(GET("sponge"));
        p->sponge_is_default = fdx_sim_config_is_default(c, "sponge");
        p->absorb = choice(GET("absorb"), "sponge|pml|none");
    }
    if (k != FDX_SIM_POISSON) {
        const char *tb = GET("temporal");
        p->temporal = strcmp(tb, "off") == 0 ? 0 : strcmp(tb, "auto") == 0 ? -1 : atoi(tb);
    }
    if (k != FDX_SIM_POISSON) FDX_TRY(parse_boundary(GET("boundary"), p));
    if (k != FDX_SIM_POISSON) {
        p->gpus = atoi(GET("gpus"));
        p->overlap = strcmp(GET("overlap"), "on") == 0;
    }
    if (k == FDX_SIM_POISSON) p->tol = atof(GET("tol"));
#undef GET
    return FDX_OK;
}

fdx_status fdx_sim_params_check_boundary(fdx_sim_params *p)
{
    /* (Conditions need 3r points on their axes: the grid's own minimum,
       checked in fdx_sim_create, is larger.  Distributed runs take them:
       fdx_sim_dist.c.) */
    if (p->kind == FDX_SIM_POISSON) return FDX_OK;
    int wave = p->kind == FDX_SIM_WAVE;
    /* The wave's absorbing layer acts every step: Cerjan's sponge unless
       absorb = none or sponge = 0 (the default sponge is 0 with conditions,
       which refuse already), the PML always. */
    int layer = wave && (p->absorb == FDX_SIM_ABSORB_PML ||
                         (p->absorb == FDX_SIM_ABSORB_SPONGE && (p->sponge > 0 || p->sponge_is_default)));
    const char *why = p->gpus > 0 ? "gpus > 0" : p->insulated ? "boundary = insulated (the mirror runs every step)"
                      : p->has_bc ? "boundary conditions (every step is one pass)"
                      : layer ? "an absorbing layer (it acts every step; use --absorb none)"
                      : wave && !p->no_receivers ? "receivers (they record every step; use --receivers none)"
                                                 : NULL;
    /* auto is off where blocking cannot apply; an explicit depth is refused. */
    FDX_CHECK(!why || p->temporal <= 1, FDX_ERR_INVALID, "temporal: depth %d cannot apply with %s; use --temporal off%s",
              p->temporal, why, p->insulated || p->has_bc ? " or --boundary fixed" : "");
    if (why && p->temporal) FDX_INFO("temporal: one step a pass: %s", why);
    if (why) p->temporal = 0;
    return FDX_OK;
}
