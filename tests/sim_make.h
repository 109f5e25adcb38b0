/* sim_make: simulations from "key", "value", ..., NULL lists for the solver
   tests; every set and the create are checks, so a refused key shows up as a
   failure with the library's message. */
#ifndef FDX_TEST_SIM_MAKE_H
#define FDX_TEST_SIM_MAKE_H

#include "fdx_test.h"

#include <string.h>

/* The configuration (NULL after a failure); kv may be NULL. */
static inline fdx_sim_config *sim_config(fdx_sim_kind kind, const char *const *kv)
{
    fdx_sim_config *c = NULL;
    CHECK_OK(fdx_sim_config_create(kind, &c));
    for (int i = 0; c && kv && kv[i]; i += 2) CHECK_OK(fdx_sim_config_set(c, kv[i], kv[i + 1]));
    return c;
}

/* The simulation on ctx (NULL after a failure). */
static inline fdx_sim *sim_make(fdx_ctx *ctx, fdx_sim_kind kind, const char *const *kv)
{
    fdx_sim_config *c = sim_config(kind, kv);
    fdx_sim *s = NULL;
    if (c) CHECK_OK(fdx_sim_create(ctx, c, &s));
    fdx_sim_config_destroy(&c);
    return s;
}

/* fdx_sim_create must refuse the config with FDX_ERR_INVALID (a set may
   refuse it already), with a message holding `word` (NULL: any). */
static inline void sim_refused(fdx_ctx *ctx, fdx_sim_kind kind, const char *const *kv, const char *why, const char *word)
{
    fdx_sim_config *c = NULL;
    fdx_sim *s = NULL;
    CHECK_OK(fdx_sim_config_create(kind, &c));
    fdx_status st = FDX_OK;
    for (int i = 0; c && kv[i] && st == FDX_OK; i += 2) st = fdx_sim_config_set(c, kv[i], kv[i + 1]);
    if (st == FDX_OK) st = fdx_sim_create(ctx, c, &s);
    CHECK(st == FDX_ERR_INVALID, "%s: status %s", why, fdx_strerror(st));
    if (word) CHECK(strstr(fdx_last_error(), word), "%s: message '%s' lacks '%s'", why, fdx_last_error(), word);
    fdx_sim_destroy(&s);
    fdx_sim_config_destroy(&c);
}

#endif
