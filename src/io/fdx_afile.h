/* fdx_afile: io's name for the one atomic-file writer (src/core/fdx_file.h):
   a file written under a temporary name and published by rename only when
   complete, so readers never see half a file. */
#ifndef FDX_AFILE_H
#define FDX_AFILE_H

#include "core/fdx_file.h"

#include <fcntl.h>

typedef fdx_atomic fdx_afile;

/* User files: mode 0666 before the umask, like fopen. */
static inline fdx_status fdx_afile_open(fdx_afile *a, const char *path)
{
    return fdx_atomic_open(a, AT_FDCWD, path, 0666);
}
/* Errors are remembered and reported by commit. */
static inline void fdx_afile_write(fdx_afile *a, const void *data, size_t size) { fdx_atomic_write(a, data, size); }
/* fflush, fsync, rename, fsync of the directory; removes the temporary on failure. */
static inline fdx_status fdx_afile_commit(fdx_afile *a) { return fdx_atomic_commit(a); }
static inline void fdx_afile_abort(fdx_afile *a) { fdx_atomic_abort(a); }

#endif
