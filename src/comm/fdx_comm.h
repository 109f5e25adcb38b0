/* fdx_comm: what the comm layer offers the layers above it (the solvers)
   beyond include/fdx/dist.h.  The comm modules' own shared structures are
   fdx_comm_impl.h, which no other layer includes. */
#ifndef FDX_COMM_H
#define FDX_COMM_H

#include "core/fdx_error.h"
#include "fdx/dist.h"

#include <stddef.h>

/* Makes the device of local unit i current. */
FDX_HIDDEN fdx_status fdx_dist_use(const fdx_dist *d, int i);
/* In-place bitwise xor of a byte buffer over all processes of the
   distribution created last (each writes its own part of a zeroed buffer,
   all receive the whole); nothing to do in a job of one process. */
FDX_HIDDEN fdx_status fdx_mpi_xor_bytes(void *buf, size_t bytes);

#endif
