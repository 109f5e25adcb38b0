/* fdx_file: the one atomic-file writer (temporary name in the same directory,
   O_EXCL|O_NOFOLLOW, write, fsync, rename, fsync of the directory) and the one
   safe way to open an input file (regular files only, never blocks on a FIFO
   or device).  Used by the kernel cache, the CPU JIT and io. */
#ifndef FDX_FILE_H
#define FDX_FILE_H

#include "fdx_error.h"

#include <stdio.h>
#include <sys/types.h>

/* ---- writing ---------------------------------------------------------------
   A file written under "<path>.tmp.<pid>.<seq>" and published by rename only
   when complete, so readers never see half a file. */
typedef struct fdx_atomic {
    FILE *f;
    int dirfd;        /* names are relative to this directory (AT_FDCWD: the process's) */
    int no_replace;   /* commit fails with err EEXIST instead of replacing an existing file */
    int no_sync;      /* no fsync of the file or directory: for artifacts a signature checks and
                         a rebuild replaces (the kernel cache), where a crash may lose or tear
                         the file but never passes a torn one off as whole */
    int failed, err;  /* first write error, reported by commit */
    char path[4096], tmp[4200];
} fdx_atomic;

/* Creates the temporary with mode (before umask) and O_EXCL|O_NOFOLLOW. */
FDX_HIDDEN fdx_status fdx_atomic_open(fdx_atomic *a, int dirfd, const char *path, mode_t mode);
/* Errors are remembered and reported by commit. */
FDX_HIDDEN void fdx_atomic_write(fdx_atomic *a, const void *data, size_t size);
/* fflush, fsync, rename (or link when no_replace), fsync of the directory;
   removes the temporary on failure. */
FDX_HIDDEN fdx_status fdx_atomic_commit(fdx_atomic *a);
FDX_HIDDEN void fdx_atomic_abort(fdx_atomic *a);
/* A fresh temporary name for path (for writers that want a name: HDF5, a
   compiler's -o), and publishing it: fsync, rename, fsync of the directory. */
FDX_HIDDEN void fdx_atomic_tmpname(const char *path, char *tmp, size_t cap);
FDX_HIDDEN fdx_status fdx_atomic_publish(int dirfd, const char *tmp, const char *path);
/* 1 when name (a directory entry) is one of our temporaries; *pid is its writer. */
FDX_HIDDEN int fdx_atomic_is_tmpname(const char *name, long *pid);
/* Whole buffer to path (mode 0666 before umask). */
FDX_HIDDEN fdx_status fdx_write_atomic(const char *path, const void *data, size_t n);

/* ---- reading --------------------------------------------------------------- */
#define FDX_OPEN_NOFOLLOW 1 /* refuse a symbolic link as the last component */

/* Opens an existing regular file for reading: a FIFO, device, socket or
   directory is refused (by stat before the open, and fstat after it, which
   never blocks: O_NONBLOCK).  *fd is O_CLOEXEC. */
FDX_HIDDEN fdx_status fdx_open_input(int dirfd, const char *path, int flags, int *fd);
/* Reads fd to its end; *data is malloc'ed and NUL-terminated.  A file larger
   than max fails with FDX_ERR_INVALID. */
FDX_HIDDEN fdx_status fdx_read_fd(int fd, const char *what, size_t max, void **data, size_t *n);
FDX_HIDDEN fdx_status fdx_read_file_at(int dirfd, const char *path, int flags, size_t max, void **data, size_t *n);
/* fdx_read_file_at(AT_FDCWD, path, 0, no practical limit).  A missing file is
   FDX_ERR_IO with the path and strerror(ENOENT) in the message. */
FDX_HIDDEN fdx_status fdx_read_file(const char *path, void **data, size_t *n);
FDX_HIDDEN int fdx_file_exists(const char *path);

/* ---- directories ------------------------------------------------------------ */
/* mkdir -p; directories it creates get mode (before umask). */
FDX_HIDDEN fdx_status fdx_mkdir_mode(const char *path, mode_t mode);
FDX_HIDDEN fdx_status fdx_mkdir_p(const char *path); /* mode 0755 */

#endif
