/* fdx_comm (friends' API): what the layers above comm (solvers) may use
   beyond include/fdx/dist.h, without the comm modules' shared internals
   (fdx_comm_impl.h). */
#ifndef FDX_COMM_H
#define FDX_COMM_H

#include "core/fdx_error.h"
#include "fdx/dist.h"

#include <stddef.h>

/* Makes the device of local unit i current. */
FDX_HIDDEN fdx_status fdx_dist_use(const fdx_dist *d, int i);

/* XORs bytes across the distribution's ranks (each rank holds its own
   receivers' traces, zeros elsewhere): every rank ends with the whole. */
FDX_HIDDEN fdx_status fdx_dist_xor_bytes(const fdx_dist *d, void *buf, size_t bytes);

/* Sums n doubles across the distribution's ranks (MPI_Allreduce; nothing
   with one process): every rank ends with the same sums. */
FDX_HIDDEN fdx_status fdx_dist_sum_doubles(const fdx_dist *d, double *v, int n);

/* fdx_dist_create whose parts on each axis split the shape less a frame of
   frame[a] points at each end by fdx_dist's rule, the frames added to the
   end parts (a solver whose stored grid has ghost points around the
   caller's: its parts are the caller's parts with the ghosts).  The
   distribution's checks of part sizes use the whole shape: the caller
   checks its parts against its shadows.  grid[a] must be given. */
FDX_HIDDEN fdx_status fdx_dist_create_framed(const fdx_options *opts, const fdx_dist_desc *desc, const int64_t *frame,
                                             fdx_dist **out);

#endif
