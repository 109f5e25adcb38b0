/* fdx_io_file: the public file helpers: files written whole or not at all
   and whole-file reads with a size cap (both src/core/fdx_file.c), output
   directories. */
#include "core/fdx_file.h"
#include "fdx/io.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

fdx_status fdx_file_write_atomic(const char *path, const void *data, size_t size)
{
    FDX_CHECK(data || size == 0, FDX_ERR_INVALID, "fdx_file_write_atomic: NULL data");
    return fdx_write_atomic(path, data, size);
}

fdx_status fdx_file_read(const char *path, size_t max_bytes, char **data, size_t *size)
{
    FDX_CHECK(data && size, FDX_ERR_INVALID, "fdx_file_read: NULL argument");
    *data = NULL;
    *size = 0;
    FDX_CHECK(path && path[0], FDX_ERR_INVALID, "fdx_file_read: empty file name");
    /* Regular files only, refused before any blocking open (FIFOs, devices).
       The file is the user's input (config, model, checkpoint): one that is
       missing, unreadable or fails to read is bad input, not a run-time
       failure (exit 2, not 3). */
    fdx_status st = fdx_read_file_at(AT_FDCWD, path, 0, max_bytes, (void **)data, size);
    if (st == FDX_ERR_IO) return fdx_fail(FDX_ERR_INVALID, "%s", fdx_last_error());
    return st;
}

fdx_status fdx_dir_prepare(const char *path)
{
    FDX_CHECK(path && path[0] && strlen(path) < 4000, FDX_ERR_INVALID, "output directory name is empty or too long");
    FDX_TRY(fdx_mkdir_p(path)); /* checks that it is a directory */
    FDX_CHECK(access(path, W_OK | X_OK) == 0, FDX_ERR_IO, "output directory '%s' is not writable: %s", path,
              strerror(errno));
    return FDX_OK;
}
