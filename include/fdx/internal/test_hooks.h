/* fdx test hooks (internal, for the tests only): the switches a test sets to
   force one kernel configuration or to inject a fault that verification must
   catch.  Every one is here, and none is an environment variable: nothing
   outside a test program can turn them on.  The CLI and the library's own
   paths never call a setter (tests/cli_docs.sh fails when a file under
   tools/ includes this header); the library's files that keep the state
   include it for the prototypes.  Hidden like the rest of fdx/internal/
   (see error.h): only a static link reaches them. */
#ifndef FDX_INTERNAL_TEST_HOOKS_H
#define FDX_INTERNAL_TEST_HOOKS_H

#include "fdx/internal/error.h"
#include "fdx/stencil.h"
#include "fdx/ustencil.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The configurations are the stencil module's own types
   (src/stencil/fdx_stencil_impl.h, fdx_ustencil_impl.h, fdx_temporal.h). */
struct fdx_stencil_cfg;
struct fdx_us_cfg;
struct fdx_temporal_cfg;

/* Every later plan of `s` uses `cfg` where it fits the shape (NULL: back to
   tuning); existing plans are dropped.  (src/stencil/fdx_stencil.c) */
FDX_HIDDEN void fdx_stencil_force_cfg(fdx_stencil *s, const struct fdx_stencil_cfg *cfg);
/* Every later plan of `s` uses `cfg` where it fits the grid (NULL: back to
   the default or tuning); existing plans are dropped.  (fdx_ustencil.c) */
FDX_HIDDEN void fdx_ustencil_force_cfg(fdx_ustencil *s, const struct fdx_us_cfg *cfg);
/* Every later fdx_stencil_steps with an explicit depth uses this tile and
   chunk (at the asked depth) where it fits; NULL: back to the candidates.
   Process-wide.  (fdx_temporal.c) */
FDX_HIDDEN void fdx_temporal_force_tile(const struct fdx_temporal_cfg *cfg);

/* Fault injection: on (1) turns fdx_darray_exchange_begin/_end into no-ops
   (and CUDA graphs of distributed steps off), so a test can prove that its
   check depends on the shadow exchange; 0 turns it back off.  Process-wide;
   set it while no distributed work is in flight.  (src/comm/fdx_exchange.c) */
FDX_HIDDEN void fdx_dist_test_skip_exchange(int on);
/* 1 while the exchange is skipped (read by the exchange and fdx_dgraph.c). */
FDX_HIDDEN int fdx_dist_test_exchange_skipped(void);
/* Fault injection: distributed ACROSS runs (src/comm/fdx_dacross.c) with
   their sweeps dist_less closer and their units' lag lag_less shorter than
   the exactness bound allows (0, 0: the bound), so a test can show the
   bound is tight.  Process-wide. */
FDX_HIDDEN void fdx_dacross_test_tighten(int dist_less, int lag_less);

#ifdef __cplusplus
}
#endif

#endif
