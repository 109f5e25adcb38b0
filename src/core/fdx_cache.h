/* fdx_cache: the on-disk cache of compiled kernels and tuning results.  Keys
   are 128-bit hashes printed as 32 hex digits; files are written atomically
   (temporary file, fsync, rename) so concurrent processes never read half a
   file. */
#ifndef FDX_CACHE_H
#define FDX_CACHE_H

#include "fdx_error.h"

#include <stddef.h>
#include <stdint.h>

typedef struct fdx_hash {
    uint64_t a, b;
} fdx_hash;

FDX_HIDDEN void fdx_hash_init(fdx_hash *h);
FDX_HIDDEN void fdx_hash_add(fdx_hash *h, const void *data, size_t n);
FDX_HIDDEN void fdx_hash_add_str(fdx_hash *h, const char *s);  /* includes a terminator */
FDX_HIDDEN void fdx_hash_hex(const fdx_hash *h, char out[33]);

/* Sets the cache directory ("~/" expands to $HOME); created on first use. */
FDX_HIDDEN fdx_status fdx_cache_set_dir(const char *dir);
/* Path of the cache file "<dir>/<key><ext>", creating the directory. */
FDX_HIDDEN fdx_status fdx_cache_path(const char *key, const char *ext, char *buf, size_t n);

FDX_HIDDEN fdx_status fdx_mkdir_p(const char *path);
FDX_HIDDEN fdx_status fdx_write_atomic(const char *path, const void *data, size_t n);
/* Reads a whole file; *data is malloc'ed and NUL-terminated.  Returns
   FDX_ERR_IO with errno ENOENT in the message when the file is missing. */
FDX_HIDDEN fdx_status fdx_read_file(const char *path, void **data, size_t *n);
FDX_HIDDEN int fdx_file_exists(const char *path);

#endif
