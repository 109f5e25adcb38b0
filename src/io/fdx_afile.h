/* fdx_afile: a file written under a temporary name and published by rename
   only when complete, so readers never see half a file. */
#ifndef FDX_AFILE_H
#define FDX_AFILE_H

#include "core/fdx_error.h"

#include <stdio.h>

typedef struct fdx_afile {
    FILE *f;
    char path[4096], tmp[4200];
    int failed, err;
} fdx_afile;

FDX_HIDDEN fdx_status fdx_afile_open(fdx_afile *a, const char *path);
/* Errors are remembered and reported by commit. */
FDX_HIDDEN void fdx_afile_write(fdx_afile *a, const void *data, size_t size);
/* fflush, fsync, rename, fsync of the directory; removes the temporary on failure. */
FDX_HIDDEN fdx_status fdx_afile_commit(fdx_afile *a);
FDX_HIDDEN void fdx_afile_abort(fdx_afile *a);
/* For files written by a library that wants a name (HDF5): the temporary
   name for path, and publishing it (fsync, rename, fsync of the directory). */
FDX_HIDDEN void fdx_afile_tmpname(const char *path, char *tmp, size_t cap);
FDX_HIDDEN fdx_status fdx_afile_publish(const char *tmp, const char *path);

#endif
