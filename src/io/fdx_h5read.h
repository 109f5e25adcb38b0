/* fdx_h5read: reading an HDF5 field, split in two: fdx_h5_read_local runs
   libhdf5 (in a child process, fdx_io_h5child_hdf5.c) and checks the
   dataset's extents against what the caller accepts before reading data. */
#ifndef FDX_H5READ_H
#define FDX_H5READ_H

#include "core/fdx_error.h"

#include <stdint.h>

typedef struct fdx_h5_want {
    int rank;           /* 0: any rank 1..3 */
    int64_t shape[3];   /* with rank: the extents required (fdx order, x first) */
    uint64_t max_bytes; /* the most bytes of doubles the field may need */
} fdx_h5_want;

/* Opens path with libhdf5 in this process, finds dataset `name` (NULL: the
   first), refuses a non-numeric type, a rank or extents other than `want`
   asks and a size above want->max_bytes before allocating, then reads. */
FDX_HIDDEN fdx_status fdx_h5_read_local(const char *path, const char *name, const fdx_h5_want *want, double **data,
                                        int *rank, int64_t *shape);

#endif
