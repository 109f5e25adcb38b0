/* fdx_cache: the on-disk cache of compiled kernels and tuning results.

   Keys are 128-bit hashes printed as 32 hex digits (lookup only).  Trust
   comes from elsewhere: the directory must be the caller's and not writable by
   group or others (else a private per-user directory is used, with one
   warning), nothing in it is opened through a symbolic link, and every
   artifact ends with an HMAC-SHA256 of its name and contents under a random
   per-cache key (<dir>/key, mode 0600).  An artifact that fails any check is
   deleted and rebuilt, never used.  docs/notes/cache.md has the threat model. */
#ifndef FDX_CACHE_H
#define FDX_CACHE_H

#include "fdx_error.h"
#include "fdx_file.h"

#include <stddef.h>
#include <stdint.h>

typedef struct fdx_hash {
    uint64_t a, b;
} fdx_hash;

FDX_HIDDEN void fdx_hash_init(fdx_hash *h);
FDX_HIDDEN void fdx_hash_add(fdx_hash *h, const void *data, size_t n);
FDX_HIDDEN void fdx_hash_add_str(fdx_hash *h, const char *s);  /* includes a terminator */
FDX_HIDDEN void fdx_hash_hex(const fdx_hash *h, char out[33]);

/* Sets the cache directory ("~/" expands to $HOME; with HOME unset,
   $XDG_CACHE_HOME/fdx, then /tmp/fdx-cache-<uid>).  Checked and created on
   first use. */
FDX_HIDDEN fdx_status fdx_cache_set_dir(const char *dir);
/* The directory in use after the checks (opens the cache). */
FDX_HIDDEN fdx_status fdx_cache_dir(char *buf, size_t n);

/* The verified payload of the artifact "<key><ext>" (malloc'ed, with a NUL
   after it).  Missing: FDX_ERR_IO, quietly.  Present but not a regular file
   of ours, symlinked, truncated, unsigned or signed with another key: deleted,
   one log line, FDX_ERR_VERIFY. */
FDX_HIDDEN fdx_status fdx_cache_load(const char *key, const char *ext, void **data, size_t *n);
/* Signs and writes the artifact atomically (0600). */
FDX_HIDDEN fdx_status fdx_cache_store(const char *key, const char *ext, const void *data, size_t n);

/* For a compiler that works on names: the path "<dir>/<key><ext>" of an
   unsigned work file (source, log), and a fresh temporary name for its
   output; fdx_cache_take reads such an output (no symlink) and removes it. */
FDX_HIDDEN fdx_status fdx_cache_path(const char *key, const char *ext, char *buf, size_t n);
FDX_HIDDEN fdx_status fdx_cache_tmp_path(const char *key, const char *ext, char *buf, size_t n);
FDX_HIDDEN fdx_status fdx_cache_take(const char *path, void **data, size_t *n);

/* Tests and the orphan sweep: temporaries older than this, or whose writer
   is dead (and older than a minute), are removed when the cache is opened,
   at most FDX_CACHE_SWEEP_MAX per open. */
#define FDX_CACHE_TMP_MAX_AGE_S 3600
#define FDX_CACHE_SWEEP_MAX 64

#endif
