/* fdx_cache: hashing, the checked cache directory, and signed artifacts. */
#include "fdx_cache.h"
#include "fdx_log.h"
#include "fdx_sha256.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Two independent 64-bit FNV-1a style streams with different offsets and a
   final avalanche: plenty for a cache key, and no dependency. */
void fdx_hash_init(fdx_hash *h)
{
    h->a = 0xcbf29ce484222325ULL;
    h->b = 0x84222325cbf29ce4ULL ^ 0x9e3779b97f4a7c15ULL;
}

void fdx_hash_add(fdx_hash *h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h->a = (h->a ^ p[i]) * 0x100000001b3ULL;
        h->b = (h->b ^ p[i]) * 0x00000100000001b3ULL + 0x9e3779b97f4a7c15ULL;
    }
}

void fdx_hash_add_str(fdx_hash *h, const char *s)
{
    fdx_hash_add(h, s ? s : "", strlen(s ? s : "") + 1);
}

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

void fdx_hash_hex(const fdx_hash *h, char out[33])
{
    snprintf(out, 33, "%016llx%016llx", (unsigned long long)mix(h->a),
             (unsigned long long)mix(h->b ^ h->a));
}

/* ---- the directory ----------------------------------------------------------- */

#define SIG_MAGIC "FDXSIG01"
#define SIG_BYTES (8 + FDX_SHA256_BYTES)
#define KEY_FILE "key"
#define KEY_BYTES 32
#define ARTIFACT_MAX ((size_t)1 << 30)

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char wanted[4096];     /* the directory asked for, "~/" expanded */
static char dir_in_use[4096]; /* the checked directory: wanted or a fallback */
static int dir_fd = -1;       /* open on dir_in_use; every artifact is opened relative to it */
static unsigned char mac_key[KEY_BYTES];
static char run_dir[4096];    /* a per-run private directory, removed at exit */
static int run_dir_fd = -1;

/* The private per-user directory used when HOME is unset:
   $XDG_CACHE_HOME/fdx, else /tmp/fdx-cache-<uid>. */
static void private_dir(char *out, size_t cap)
{
    const char *xdg = getenv("XDG_CACHE_HOME");
    if (xdg && xdg[0] == '/') snprintf(out, cap, "%s/fdx", xdg);
    else snprintf(out, cap, "/tmp/fdx-cache-%ld", (long)geteuid());
}

static int expand(const char *dir, char *out, size_t cap)
{
    int len;
    if (strncmp(dir, "~/", 2) == 0) {
        const char *home = getenv("HOME");
        if (!home || !*home) {
            private_dir(out, cap);
            return 1;
        }
        len = snprintf(out, cap, "%s/%s", home, dir + 2);
    } else {
        len = snprintf(out, cap, "%s", dir);
    }
    return len > 0 && (size_t)len < cap;
}

fdx_status fdx_cache_set_dir(const char *dir)
{
    FDX_CHECK(dir && *dir, FDX_ERR_INVALID, "empty cache directory");
    char path[sizeof wanted];
    FDX_CHECK(expand(dir, path, sizeof path), FDX_ERR_INVALID, "cache directory name '%.100s...' is too long", dir);
    pthread_mutex_lock(&lock);
    if (strcmp(path, wanted) != 0) {
        snprintf(wanted, sizeof wanted, "%s", path);
        /* The old descriptor is left open, not closed: another thread may be
           reading an artifact through it (a handful per process at most). */
        dir_fd = -1;
        dir_in_use[0] = '\0';
    }
    pthread_mutex_unlock(&lock);
    return FDX_OK;
}

/* Creates path (0700) and checks it: a real directory (not a symbolic link),
   owned by us, not writable by group or others.  On success *fd is open on
   it; else why says what is wrong. */
static int check_dir(const char *path, int *fd, char *why, size_t cap)
{
    *fd = -1;
    if (fdx_mkdir_mode(path, 0700) != FDX_OK) {
        snprintf(why, cap, "%s", fdx_last_error());
        fdx_clear_error();
        return 0;
    }
    struct stat ls, st;
    if (lstat(path, &ls) != 0) {
        snprintf(why, cap, "%s", strerror(errno));
        return 0;
    }
    if (S_ISLNK(ls.st_mode)) {
        snprintf(why, cap, "it is a symbolic link");
        return 0;
    }
    int f = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (f < 0 || fstat(f, &st) != 0) {
        snprintf(why, cap, "%s", strerror(errno));
        if (f >= 0) close(f);
        return 0;
    }
    const char *bad = NULL;
    char owner[64];
    if (st.st_dev != ls.st_dev || st.st_ino != ls.st_ino) {
        bad = "it was replaced while being checked";
    } else if (st.st_uid != geteuid()) {
        snprintf(owner, sizeof owner, "it belongs to uid %ld, not %ld", (long)st.st_uid, (long)geteuid());
        bad = owner;
    } else if (st.st_mode & 022) {
        snprintf(owner, sizeof owner, "it is writable by %s (mode %03o)",
                 (st.st_mode & 020) && (st.st_mode & 002) ? "group and others"
                 : (st.st_mode & 020)                     ? "its group"
                                                          : "others",
                 (unsigned)(st.st_mode & 0777));
        bad = owner;
    }
    if (bad) {
        snprintf(why, cap, "%s", bad);
        close(f);
        return 0;
    }
    *fd = f;
    return 1;
}

static fdx_status random_bytes(unsigned char *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = getrandom(buf + got, n - got, 0);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) break;
        got += (size_t)r;
    }
    if (got == n) return FDX_OK;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    FDX_CHECK(fd >= 0, FDX_ERR_IO, "no random numbers for the cache key: %s", strerror(errno));
    for (got = 0; got < n;) {
        ssize_t r = read(fd, buf + got, n - got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got += (size_t)r;
    }
    close(fd);
    FDX_CHECK(got == n, FDX_ERR_IO, "short read of /dev/urandom for the cache key");
    return FDX_OK;
}

/* 1: mac_key read; 0: no key file; -1: a key file that must not be trusted. */
static int read_key(char *why, size_t cap)
{
    int fd = openat(dir_fd, KEY_FILE, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT) return 0;
        snprintf(why, cap, "%s", errno == ELOOP ? "it is a symbolic link" : strerror(errno));
        return -1;
    }
    struct stat st;
    unsigned char k[KEY_BYTES + 1];
    ssize_t r = -1;
    if (fstat(fd, &st) != 0) snprintf(why, cap, "%s", strerror(errno));
    else if (!S_ISREG(st.st_mode)) snprintf(why, cap, "not a regular file");
    else if (st.st_uid != geteuid()) snprintf(why, cap, "owned by uid %ld", (long)st.st_uid);
    else if (st.st_mode & 077) snprintf(why, cap, "readable or writable by others (mode %03o)", (unsigned)(st.st_mode & 0777));
    else if ((r = read(fd, k, sizeof k)) != KEY_BYTES) snprintf(why, cap, "%zd bytes, not %d", r, KEY_BYTES);
    close(fd);
    if (r != KEY_BYTES) return -1;
    memcpy(mac_key, k, KEY_BYTES);
    return 1;
}

/* The per-cache key: read, or made from 32 random bytes and created with
   link() so that of two processes starting together one key wins. */
static fdx_status load_key(void)
{
    for (int attempt = 0; attempt < 4; attempt++) {
        char why[128];
        int r = read_key(why, sizeof why);
        if (r == 1) return FDX_OK;
        if (r < 0) {
            FDX_WARN("cache key '%s/" KEY_FILE "' is not valid (%s): replacing it, so cached kernels will be rebuilt",
                     dir_in_use, why);
            unlinkat(dir_fd, KEY_FILE, 0);
        }
        unsigned char k[KEY_BYTES];
        FDX_TRY(random_bytes(k, sizeof k));
        fdx_atomic a;
        FDX_TRY(fdx_atomic_open(&a, dir_fd, KEY_FILE, 0600));
        a.no_replace = 1;
        fdx_atomic_write(&a, k, sizeof k);
        fdx_status st = fdx_atomic_commit(&a);
        if (st == FDX_OK) {
            memcpy(mac_key, k, sizeof k);
            return FDX_OK;
        }
        if (a.err != EEXIST) return fdx_fail(st, "cache directory '%s': %s", dir_in_use, fdx_last_error());
        fdx_clear_error(); /* another process made it first: read theirs */
    }
    return fdx_fail(FDX_ERR_IO, "cannot set up the key of cache directory '%s'", dir_in_use);
}

/* Removes orphaned temporaries ("<name>.tmp.<pid>[.<n>]") left by killed
   processes: older than FDX_CACHE_TMP_MAX_AGE_S, or older than a minute with
   their writer gone.  Bounded, so a process never spends long here. */
static void sweep(void)
{
    int fd = openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0) close(fd);
        return;
    }
    time_t now = time(NULL);
    int removed = 0;
    struct dirent *e;
    while (removed < FDX_CACHE_SWEEP_MAX && (e = readdir(d))) {
        long pid;
        struct stat st;
        if (!fdx_atomic_is_tmpname(e->d_name, &pid) ||
            fstatat(dir_fd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || S_ISDIR(st.st_mode))
            continue;
        double age = difftime(now, st.st_mtime);
        int dead = pid != (long)getpid() && kill((pid_t)pid, 0) != 0 && errno == ESRCH;
        if ((age > FDX_CACHE_TMP_MAX_AGE_S || (dead && age > 60)) && unlinkat(dir_fd, e->d_name, 0) == 0) removed++;
    }
    closedir(d);
    if (removed) FDX_DEBUG("cache: removed %d orphaned temporary files from '%s'", removed, dir_in_use);
}

static void remove_run_dir(void) __attribute__((destructor));
static void remove_run_dir(void)
{
    if (run_dir_fd < 0) return;
    int fd = openat(run_dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    for (struct dirent *e; d && (e = readdir(d));)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) unlinkat(run_dir_fd, e->d_name, 0);
    if (d) closedir(d);
    rmdir(run_dir);
}

/* Opens the cache (lock held): the directory asked for if it passes the
   checks, else /tmp/fdx-cache-<uid>, else a directory for this run only. */
static fdx_status open_cache(void)
{
    if (dir_fd >= 0) return FDX_OK;
    if (!wanted[0]) expand("~/.cache/fdx", wanted, sizeof wanted);
    char why[600], why2[600] = "";
    int fd;
    if (check_dir(wanted, &fd, why, sizeof why)) {
        snprintf(dir_in_use, sizeof dir_in_use, "%s", wanted);
    } else {
        char fb[4096];
        snprintf(fb, sizeof fb, "/tmp/fdx-cache-%ld", (long)geteuid());
        if (strcmp(fb, wanted) != 0 && check_dir(fb, &fd, why2, sizeof why2)) {
            snprintf(dir_in_use, sizeof dir_in_use, "%s", fb);
        } else {
            if (run_dir_fd < 0) {
                snprintf(run_dir, sizeof run_dir, "/tmp/fdx-cache-%ld-XXXXXX", (long)geteuid());
                if (!mkdtemp(run_dir) || !check_dir(run_dir, &run_dir_fd, why2, sizeof why2))
                    return fdx_fail(FDX_ERR_IO, "no safe cache directory: '%s': %s; '%s': %s", wanted, why, run_dir,
                                    why2[0] ? why2 : strerror(errno));
            }
            fd = run_dir_fd;
            snprintf(dir_in_use, sizeof dir_in_use, "%s", run_dir);
        }
        /* Say what to do when the fix is the user's (a directory of theirs
           made group-writable by a umask of 002, for instance). */
        FDX_WARN("cache directory '%s' is not safe to load code from (%s): using '%s'%s%s%s%s", wanted, why,
                 dir_in_use, fd == run_dir_fd ? " for this run" : "",
                 strstr(why, "writable by") ? " (run chmod go-w '" : "", strstr(why, "writable by") ? wanted : "",
                 strstr(why, "writable by") ? "' to use it)" : "");
    }
    dir_fd = fd;
    fdx_status st = load_key();
    if (st != FDX_OK) {
        if (fd != run_dir_fd) close(fd);
        dir_fd = -1;
        return st;
    }
    sweep();
    FDX_DEBUG("cache directory '%s'", dir_in_use);
    return FDX_OK;
}

/* What an artifact operation needs, copied under the lock. */
typedef struct cache_view {
    int fd;
    unsigned char key[KEY_BYTES];
    char dir[4096];
} cache_view;

static fdx_status view(cache_view *v)
{
    pthread_mutex_lock(&lock);
    fdx_status st = open_cache();
    if (st == FDX_OK) {
        v->fd = dir_fd;
        memcpy(v->key, mac_key, sizeof v->key);
        snprintf(v->dir, sizeof v->dir, "%s", dir_in_use);
    }
    pthread_mutex_unlock(&lock);
    return st;
}

fdx_status fdx_cache_dir(char *buf, size_t n)
{
    cache_view v;
    FDX_TRY(view(&v));
    FDX_CHECK(buf && (size_t)snprintf(buf, n, "%s", v.dir) < n, FDX_ERR_INVALID, "cache directory name is too long");
    return FDX_OK;
}

/* ---- artifacts ---------------------------------------------------------------- */

/* "<key><ext>": letters, digits, '_', '-' and '.', no '/', not hidden. */
static fdx_status artifact_name(const char *key, const char *ext, char *name, size_t cap)
{
    FDX_CHECK(key && ext && key[0] && key[0] != '.', FDX_ERR_INVALID, "bad cache key");
    int len = snprintf(name, cap, "%s%s", key, ext);
    FDX_CHECK(len > 0 && (size_t)len < cap, FDX_ERR_INVALID, "cache key '%.64s' is too long", key);
    for (const char *p = name; *p; p++)
        FDX_CHECK(isalnum((unsigned char)*p) || *p == '_' || *p == '-' || *p == '.', FDX_ERR_INVALID,
                  "cache key '%s' has a character that keys cannot have", name);
    return FDX_OK;
}

static void sign(const cache_view *v, const char *name, const void *data, size_t n, unsigned char mac[FDX_SHA256_BYTES])
{
    fdx_hmac m;
    fdx_hmac_init(&m, v->key, sizeof v->key);
    fdx_hmac_add(&m, SIG_MAGIC, 8);
    fdx_hmac_add(&m, name, strlen(name) + 1); /* so a valid artifact cannot stand in for another */
    fdx_hmac_add(&m, data, n);
    fdx_hmac_final(&m, mac);
}

/* Deletes a refused artifact, says so once, and fails. */
static fdx_status refuse(const cache_view *v, const char *name, fdx_log_level level, const char *why)
{
    unlinkat(v->fd, name, 0);
    fdx_log(level, "cache: removed '%s/%s' (%s); rebuilding it", v->dir, name, why);
    return fdx_fail(FDX_ERR_VERIFY, "cache artifact '%s/%s' refused: %s", v->dir, name, why);
}

fdx_status fdx_cache_load(const char *key, const char *ext, void **data, size_t *n)
{
    FDX_CHECK(data && n, FDX_ERR_INVALID, "fdx_cache_load: NULL argument");
    *data = NULL;
    *n = 0;
    char name[256];
    FDX_TRY(artifact_name(key, ext, name, sizeof name));
    cache_view v;
    FDX_TRY(view(&v));
    int fd = openat(v.fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT) return fdx_fail(FDX_ERR_IO, "'%s/%s': %s", v.dir, name, strerror(errno));
        return refuse(&v, name, FDX_LOG_WARN, errno == ELOOP ? "a symbolic link" : strerror(errno));
    }
    /* Checked and read through the one descriptor, so what is verified is
       what is used. */
    struct stat st;
    char why[128] = "";
    if (fstat(fd, &st) != 0) snprintf(why, sizeof why, "%s", strerror(errno));
    else if (!S_ISREG(st.st_mode)) snprintf(why, sizeof why, "not a regular file");
    else if (st.st_uid != geteuid()) snprintf(why, sizeof why, "owned by uid %ld", (long)st.st_uid);
    else if ((size_t)st.st_size > ARTIFACT_MAX) snprintf(why, sizeof why, "%lld bytes is too large", (long long)st.st_size);
    char *buf = NULL;
    size_t len = 0;
    if (!why[0] && fdx_read_fd(fd, name, ARTIFACT_MAX, (void **)&buf, &len) != FDX_OK) {
        snprintf(why, sizeof why, "%s", fdx_last_error());
        buf = NULL;
    }
    close(fd);
    if (why[0]) return refuse(&v, name, FDX_LOG_WARN, why);
    if (len < SIG_BYTES || memcmp(buf + len - SIG_BYTES, SIG_MAGIC, 8) != 0) {
        free(buf);
        /* A crash cannot cut a file that was renamed into place, so this is
           an older fdx's file or someone else's: info, not a warning. */
        return refuse(&v, name, FDX_LOG_INFO, len < SIG_BYTES ? "truncated" : "not signed by fdx");
    }
    size_t plen = len - SIG_BYTES;
    unsigned char mac[FDX_SHA256_BYTES];
    sign(&v, name, buf, plen, mac);
    if (!fdx_digest_equal(mac, (unsigned char *)buf + plen + 8, sizeof mac)) {
        free(buf);
        return refuse(&v, name, FDX_LOG_WARN, "its signature does not match: changed after it was written, or "
                                              "written under another cache key");
    }
    buf[plen] = '\0';
    *data = buf;
    *n = plen;
    return FDX_OK;
}

fdx_status fdx_cache_store(const char *key, const char *ext, const void *data, size_t n)
{
    FDX_CHECK(data || n == 0, FDX_ERR_INVALID, "fdx_cache_store: NULL data");
    char name[256];
    FDX_TRY(artifact_name(key, ext, name, sizeof name));
    cache_view v;
    FDX_TRY(view(&v));
    unsigned char mac[FDX_SHA256_BYTES];
    sign(&v, name, data, n, mac);
    fdx_atomic a;
    fdx_status st = fdx_atomic_open(&a, v.fd, name, 0600);
    if (st == FDX_OK) {
        /* No fsync: a file a crash tore fails its signature and is rebuilt;
           two fsyncs an artifact cost up to 45 ms each on a slow disk,
           more than NVRTC's compile. */
        a.no_sync = 1;
        fdx_atomic_write(&a, data, n);
        fdx_atomic_write(&a, SIG_MAGIC, 8);
        fdx_atomic_write(&a, mac, sizeof mac);
        st = fdx_atomic_commit(&a);
    }
    if (st != FDX_OK) return fdx_fail(st, "cache directory '%s': %s", v.dir, fdx_last_error());
    return FDX_OK;
}

fdx_status fdx_cache_path(const char *key, const char *ext, char *buf, size_t n)
{
    char name[256];
    FDX_TRY(artifact_name(key, ext, name, sizeof name));
    cache_view v;
    FDX_TRY(view(&v));
    int len = snprintf(buf, n, "%s/%s", v.dir, name);
    FDX_CHECK(len > 0 && (size_t)len < n, FDX_ERR_IO, "cache path too long under '%s'", v.dir);
    return FDX_OK;
}

fdx_status fdx_cache_tmp_path(const char *key, const char *ext, char *buf, size_t n)
{
    char path[4096];
    FDX_TRY(fdx_cache_path(key, ext, path, sizeof path));
    fdx_atomic_tmpname(path, buf, n);
    FDX_CHECK(strlen(buf) + 1 < n, FDX_ERR_IO, "cache path too long: '%s'", path);
    return FDX_OK;
}

fdx_status fdx_cache_take(const char *path, void **data, size_t *n)
{
    cache_view v;
    FDX_TRY(view(&v));
    size_t dl = strlen(v.dir);
    FDX_CHECK(strncmp(path, v.dir, dl) == 0 && path[dl] == '/' && !strchr(path + dl + 1, '/'), FDX_ERR_INTERNAL,
              "'%s' is not in the cache directory '%s'", path, v.dir);
    fdx_status st = fdx_read_file_at(v.fd, path + dl + 1, FDX_OPEN_NOFOLLOW, ARTIFACT_MAX, data, n);
    unlinkat(v.fd, path + dl + 1, 0);
    return st;
}
