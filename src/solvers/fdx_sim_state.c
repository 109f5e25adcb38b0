/* fdx_sim_state: the physics' own state beyond the fields in checkpoints:
   the wave's PML memory (psi and zeta of every axis) as fields "pml0",
   "pml1", ... of the grid's element count each (a checkpoint's fields all
   have that size), the last one padded with zeros. */
#include "core/fdx_error.h"
#include "fdx/io.h"
#include "solvers/fdx_sim_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const NAMES[FDX_SIM_MAX_STATE] = {"pml0", "pml1", "pml2", "pml3", "pml4", "pml5"};

static int chunks(const fdx_sim *s) { return (int)((fdx_pml_state_count(s->pml) + s->count - 1) / s->count); }

fdx_status fdx_sim_state_save(fdx_sim *s, fdx_ckpt_field *f, int *nf, void **buf)
{
    *buf = NULL;
    if (!s->pml) return FDX_OK;
    int k = chunks(s);
    FDX_CHECK(k <= FDX_SIM_MAX_STATE, FDX_ERR_INVALID, "checkpoint: the PML's memory needs %d fields (at most %d)", k,
              FDX_SIM_MAX_STATE);
    size_t es = fdx_dtype_size(s->type), per = (size_t)s->count * es;
    char *b = calloc((size_t)k, per);
    FDX_CHECK(b, FDX_ERR_NOMEM, "no memory for the PML's memory in a checkpoint");
    fdx_status st = fdx_pml_state_get(s->pml, b, s->stream);
    if (st != FDX_OK) {
        free(b);
        return st;
    }
    for (int i = 0; i < k; i++) f[(*nf)++] = (fdx_ckpt_field){NAMES[i], b + (size_t)i * per};
    *buf = b;
    return FDX_OK;
}

fdx_status fdx_sim_state_load(fdx_sim *s, const fdx_ckpt *c, const char *path)
{
    if (!s->pml) return FDX_OK;
    int k = chunks(s);
    FDX_CHECK(k <= FDX_SIM_MAX_STATE, FDX_ERR_INVALID, "restart: the PML's memory needs %d fields (at most %d)", k,
              FDX_SIM_MAX_STATE);
    size_t es = fdx_dtype_size(s->type), per = (size_t)s->count * es;
    char *b = malloc((size_t)k * per);
    FDX_CHECK(b, FDX_ERR_NOMEM, "no memory for the PML's memory of a checkpoint");
    for (int i = 0; i < k; i++) {
        const void *p = fdx_ckpt_get_field(c, NAMES[i]);
        if (!p) {
            free(b);
            return fdx_fail(FDX_ERR_INVALID, "restart: '%s' lacks field %s, the PML's memory of an absorb = pml run",
                            path, NAMES[i]);
        }
        memcpy(b + (size_t)i * per, p, per);
    }
    fdx_status st = fdx_pml_state_put(s->pml, b, s->stream);
    free(b);
    return st;
}
