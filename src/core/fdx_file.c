/* fdx_file: atomic writes, safe input opens, mkdir -p. */
#include "fdx_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- writing ---------------------------------------------------------------- */

void fdx_atomic_tmpname(const char *path, char *tmp, size_t cap)
{
    /* pid for the orphan sweep (src/core/fdx_cache.c), a per-process counter so
       two threads writing the same file never share a temporary. */
    static unsigned seq;
    unsigned n = __atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED);
    snprintf(tmp, cap, "%s.tmp.%ld.%u", path, (long)getpid(), n);
}

int fdx_atomic_is_tmpname(const char *name, long *pid)
{
    const char *t = NULL;
    for (const char *p = strstr(name, ".tmp."); p; p = strstr(p + 1, ".tmp.")) t = p;
    if (!t) return 0;
    char *end;
    errno = 0;
    long v = strtol(t + 5, &end, 10);
    if (end == t + 5 || v <= 0 || errno) return 0;
    if (*end == '.') {
        const char *s = end + 1;
        if (!*s) return 0;
        while (*s >= '0' && *s <= '9') s++;
        if (*s) return 0;
    } else if (*end) {
        return 0;
    }
    if (pid) *pid = v;
    return 1;
}

/* After a rename the directory entry is durable only once the directory
   itself is synced; failure to open it (some file systems) is harmless. */
static void sync_dir(int dirfd, const char *path)
{
    const char *slash = strrchr(path, '/');
    int fd;
    if (!slash) {
        if (dirfd != AT_FDCWD) {
            fsync(dirfd);
            return;
        }
        fd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    } else {
        char dir[4096];
        if (slash == path) snprintf(dir, sizeof dir, "/");
        else snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
        fd = openat(dirfd, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    }
    if (fd >= 0) {
        fsync(fd);
        close(fd);
    }
}

fdx_status fdx_atomic_open(fdx_atomic *a, int dirfd, const char *path, mode_t mode)
{
    memset(a, 0, sizeof *a);
    a->dirfd = dirfd;
    FDX_CHECK(path && path[0] && strlen(path) < sizeof a->path, FDX_ERR_INVALID, "file path is empty or too long");
    snprintf(a->path, sizeof a->path, "%s", path);
    int fd = -1;
    /* EEXIST only when an earlier process with our pid left a temporary with
       the same counter: take the next one. */
    for (int tries = 0; fd < 0 && tries < 8; tries++) {
        fdx_atomic_tmpname(path, a->tmp, sizeof a->tmp);
        fd = openat(dirfd, a->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
        if (fd < 0 && errno != EEXIST) break;
    }
    if (fd < 0) {
        fdx_status st = fdx_fail(FDX_ERR_IO, "cannot create '%s': %s", a->tmp, strerror(errno));
        a->tmp[0] = '\0';
        return st;
    }
    a->f = fdopen(fd, "wb");
    if (!a->f) {
        int e = errno;
        close(fd);
        unlinkat(dirfd, a->tmp, 0);
        a->tmp[0] = '\0';
        return fdx_fail(FDX_ERR_NOMEM, "cannot buffer '%s': %s", path, strerror(e));
    }
    return FDX_OK;
}

void fdx_atomic_write(fdx_atomic *a, const void *data, size_t size)
{
    if (a->failed || size == 0) return;
    if (!a->f || fwrite(data, 1, size, a->f) != size) {
        a->failed = 1;
        a->err = a->f ? errno : EBADF;
    }
}

void fdx_atomic_abort(fdx_atomic *a)
{
    if (a->f) fclose(a->f);
    a->f = NULL;
    if (a->tmp[0]) unlinkat(a->dirfd, a->tmp, 0);
    a->tmp[0] = '\0';
}

fdx_status fdx_atomic_commit(fdx_atomic *a)
{
    if (!a->f && !a->failed) {
        a->failed = 1;
        a->err = EBADF;
    }
    if (!a->failed && (fflush(a->f) != 0 || (!a->no_sync && fsync(fileno(a->f)) != 0))) {
        a->failed = 1;
        a->err = errno;
    }
    if (!a->failed) {
        FILE *f = a->f;
        a->f = NULL;
        if (fclose(f) != 0) {
            a->failed = 1;
            a->err = errno;
        }
    }
    if (a->failed) {
        fdx_status st = fdx_fail(FDX_ERR_IO, "cannot write '%s': %s", a->path, strerror(a->err));
        fdx_atomic_abort(a);
        return st;
    }
    if (a->no_replace) {
        /* link() never replaces: of two processes racing, one wins. */
        if (linkat(a->dirfd, a->tmp, a->dirfd, a->path, 0) != 0) {
            a->err = errno;
            fdx_status st = fdx_fail(FDX_ERR_IO, "cannot create '%s': %s", a->path, strerror(a->err));
            fdx_atomic_abort(a);
            return st;
        }
        unlinkat(a->dirfd, a->tmp, 0);
    } else if (renameat(a->dirfd, a->tmp, a->dirfd, a->path) != 0) {
        a->err = errno;
        fdx_status st = fdx_fail(FDX_ERR_IO, "cannot rename '%s' to '%s': %s", a->tmp, a->path, strerror(a->err));
        fdx_atomic_abort(a);
        return st;
    }
    a->tmp[0] = '\0';
    if (!a->no_sync) sync_dir(a->dirfd, a->path);
    return FDX_OK;
}

fdx_status fdx_atomic_publish(int dirfd, const char *tmp, const char *path)
{
    int fd = openat(dirfd, tmp, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 || fsync(fd) != 0) {
        fdx_status st = fdx_fail(FDX_ERR_IO, "cannot flush '%s': %s", tmp, strerror(errno));
        if (fd >= 0) close(fd);
        unlinkat(dirfd, tmp, 0);
        return st;
    }
    close(fd);
    if (renameat(dirfd, tmp, dirfd, path) != 0) {
        fdx_status st = fdx_fail(FDX_ERR_IO, "cannot rename '%s' to '%s': %s", tmp, path, strerror(errno));
        unlinkat(dirfd, tmp, 0);
        return st;
    }
    sync_dir(dirfd, path);
    return FDX_OK;
}

fdx_status fdx_write_atomic(const char *path, const void *data, size_t n)
{
    fdx_atomic a;
    FDX_TRY(fdx_atomic_open(&a, AT_FDCWD, path, 0666));
    fdx_atomic_write(&a, data, n);
    return fdx_atomic_commit(&a);
}

/* ---- reading ---------------------------------------------------------------- */

static const char *kind_of(mode_t m)
{
    return S_ISDIR(m)    ? "directory"
           : S_ISFIFO(m) ? "FIFO"
           : S_ISCHR(m)  ? "character device"
           : S_ISBLK(m)  ? "block device"
           : S_ISSOCK(m) ? "socket"
           : S_ISLNK(m)  ? "symbolic link"
                         : "special file";
}

fdx_status fdx_open_input(int dirfd, const char *path, int flags, int *fd)
{
    *fd = -1;
    FDX_CHECK(path && path[0], FDX_ERR_INVALID, "empty file name");
    int nofollow = (flags & FDX_OPEN_NOFOLLOW) != 0;
    struct stat st;
    /* Refused before the open: opening a device can have effects, and
       opening a FIFO for reading waits for a writer. */
    if (fstatat(dirfd, path, &st, nofollow ? AT_SYMLINK_NOFOLLOW : 0) != 0)
        return fdx_fail(FDX_ERR_IO, "cannot open '%s': %s", path, strerror(errno));
    FDX_CHECK(S_ISREG(st.st_mode), FDX_ERR_INVALID, "'%s' is a %s, not a regular file", path, kind_of(st.st_mode));
    int f = openat(dirfd, path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0));
    if (f < 0)
        return fdx_fail(FDX_ERR_IO, "cannot open '%s': %s", path,
                        nofollow && errno == ELOOP ? "it is a symbolic link" : strerror(errno));
    /* And after it, on what was opened: the name may have changed meanwhile. */
    if (fstat(f, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(f);
        return fdx_fail(FDX_ERR_INVALID, "'%s' is a %s, not a regular file", path, kind_of(st.st_mode));
    }
    int fl = fcntl(f, F_GETFL);
    if (fl >= 0) fcntl(f, F_SETFL, fl & ~O_NONBLOCK);
    *fd = f;
    return FDX_OK;
}

fdx_status fdx_read_fd(int fd, const char *what, size_t max, void **data, size_t *n)
{
    *data = NULL;
    *n = 0;
    struct stat st;
    size_t cap = 4096;
    if (fstat(fd, &st) == 0 && st.st_size > 0) {
        FDX_CHECK((unsigned long long)st.st_size <= max, FDX_ERR_INVALID, "'%s' is larger than %zu bytes", what, max);
        cap = (size_t)st.st_size + 1; /* + 1: end of file is seen without a realloc */
    }
    char *buf = malloc(cap + 1);
    FDX_CHECK(buf, FDX_ERR_NOMEM, "out of memory reading '%s' (%zu bytes)", what, cap);
    size_t len = 0;
    for (;;) {
        if (len == cap) {
            if (cap > max) {
                free(buf);
                return fdx_fail(FDX_ERR_INVALID, "'%s' is larger than %zu bytes", what, max);
            }
            char *nb = cap < ((size_t)-1) / 4 ? realloc(buf, 2 * cap + 1) : NULL;
            if (!nb) {
                free(buf);
                return fdx_fail(FDX_ERR_NOMEM, "out of memory reading '%s' (%zu bytes)", what, 2 * cap);
            }
            buf = nb;
            cap *= 2;
        }
        ssize_t r = read(fd, buf + len, cap - len);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) {
            int e = errno;
            free(buf);
            return fdx_fail(FDX_ERR_IO, "cannot read '%s': %s", what, strerror(e));
        }
        if (r == 0) break;
        len += (size_t)r;
    }
    if (len > max) {
        free(buf);
        return fdx_fail(FDX_ERR_INVALID, "'%s' is larger than %zu bytes", what, max);
    }
    buf[len] = '\0';
    *data = buf;
    *n = len;
    return FDX_OK;
}

fdx_status fdx_read_file_at(int dirfd, const char *path, int flags, size_t max, void **data, size_t *n)
{
    *data = NULL;
    *n = 0;
    int fd;
    FDX_TRY(fdx_open_input(dirfd, path, flags, &fd));
    fdx_status st = fdx_read_fd(fd, path, max, data, n);
    close(fd);
    return st;
}

fdx_status fdx_read_file(const char *path, void **data, size_t *n)
{
    return fdx_read_file_at(AT_FDCWD, path, 0, (size_t)1 << 46, data, n);
}

int fdx_file_exists(const char *path) { return access(path, R_OK) == 0; }

/* ---- directories -------------------------------------------------------------- */

fdx_status fdx_mkdir_mode(const char *path, mode_t mode)
{
    char buf[4096];
    size_t len = path ? strlen(path) : 0;
    FDX_CHECK(len > 0 && len < sizeof buf, FDX_ERR_IO, "bad directory path '%s'", path ? path : "(null)");
    memcpy(buf, path, len + 1);
    for (char *p = buf + 1;; p++) {
        if (*p == '/' || *p == '\0') {
            char c = *p;
            *p = '\0';
            if (mkdir(buf, mode) != 0 && errno != EEXIST)
                return fdx_fail(FDX_ERR_IO, "cannot create directory '%s': %s", buf, strerror(errno));
            *p = c;
            if (c == '\0') break;
        }
    }
    struct stat st;
    FDX_CHECK(stat(path, &st) == 0 && S_ISDIR(st.st_mode), FDX_ERR_IO, "'%s' exists but is not a directory", path);
    return FDX_OK;
}

fdx_status fdx_mkdir_p(const char *path) { return fdx_mkdir_mode(path, 0755); }

