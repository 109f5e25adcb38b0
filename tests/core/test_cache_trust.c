/* The kernel cache never runs code it did not write (issue 13): planted,
   truncated, symlinked, foreign and re-keyed artifacts are deleted and
   rebuilt, never loaded; unsafe directories fall back to a private one with
   one warning; orphaned temporaries are swept.  Also: SHA-256 / HMAC-SHA256
   vectors (FIPS 180-2, RFC 4231), input files that are FIFOs or directories
   refused without blocking, INI quote errors, fdx_fail quoting the last
   error, the --threads bound, and the API NULL table of core and io. */
#include "backends/fdx_backend.h"
#include "core/fdx_cache.h"
#include "core/fdx_sha256.h"
#include "fdx/internal/io.h"
#include "fdx_test.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char base[64] = "/tmp/fdx-test-trust-XXXXXX";
static char marker[400];
static char run_tag[64];
static const fdx_backend *be;
static fdx_device_info dev;

/* ---- helpers ------------------------------------------------------------------ */

static void hex(const unsigned char *d, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++) sprintf(out + 2 * i, "%02x", d[i]);
}

static void path_in(char *out, size_t cap, const char *dir, const char *name)
{
    snprintf(out, cap, "%s/%s", dir, name);
}

static void fresh_dir(char *out, size_t cap, const char *name)
{
    snprintf(out, cap, "%s/%s", base, name);
    mkdir(out, 0700);
}

/* Points the cache at dir and opens it now (so the sweep and key load run). */
static void use_cache(const char *dir)
{
    CHECK_OK(fdx_cache_set_dir(dir));
    char in_use[4096];
    CHECK_OK(fdx_cache_dir(in_use, sizeof in_use));
}

/* Forces the next use of dir to reopen it (key reread, orphan sweep). */
static void reopen_cache(const char *dir)
{
    char other[400];
    snprintf(other, sizeof other, "%s/elsewhere", base);
    fdx_cache_set_dir(other);
    use_cache(dir);
}

/* Captures what the library logs on stderr between begin and end. */
static int saved_stderr = -1;
static char capture_path[400];
static void capture_begin(void)
{
    snprintf(capture_path, sizeof capture_path, "%s/stderr.txt", base);
    fflush(stderr);
    saved_stderr = dup(2);
    int fd = open(capture_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(fd, 2);
    close(fd);
}
/* Returns the number of lines and copies the text into buf. */
static int capture_end(char *buf, size_t cap)
{
    fflush(stderr);
    dup2(saved_stderr, 2);
    close(saved_stderr);
    buf[0] = '\0';
    FILE *f = fopen(capture_path, "r");
    size_t n = f ? fread(buf, 1, cap - 1, f) : 0;
    if (f) fclose(f);
    buf[n] = '\0';
    int lines = 0;
    for (size_t i = 0; i < n; i++) lines += buf[i] == '\n';
    return lines;
}

static const char *kernel_body =
    "void scale(void **args) {\n"
    "  double *x = *(double **)args[0]; long n = *(long *)args[1]; double a = *(double *)args[2];\n"
    "  for (long i = 0; i < n; i++) x[i] *= a;\n"
    "}\n";

/* Loads the run's kernel through the CPU backend and runs it: 1 if it
   computed x * 3 (the real kernel), 0 otherwise. */
static int load_and_run(void)
{
    char src[1024];
    snprintf(src, sizeof src, "/* %s */\n%s", run_tag, kernel_body);
    fdx_kernel *k = NULL;
    fdx_status st = be->jit_load(&dev, src, "scale", "trust test kernel", &k);
    CHECK(st == FDX_OK, "jit_load: %s", fdx_last_error());
    if (st != FDX_OK) return 0;
    double x[4] = {1, 2, 3, 4}, *xp = x, a = 3;
    long n = 4;
    void *args[] = {&xp, &n, &a};
    fdx_launch_dims dims = {{1, 1, 1}, {1, 1, 1}, 0};
    CHECK_OK(be->launch(k, &dims, args, NULL));
    be->kernel_release(k);
    return x[0] == 3 && x[1] == 6 && x[2] == 9 && x[3] == 12;
}

/* The single "<key>.so" in dir (name only). */
static int find_so(const char *dir, char *name, size_t cap)
{
    DIR *d = opendir(dir);
    int found = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
        size_t l = strlen(e->d_name);
        if (l > 3 && strcmp(e->d_name + l - 3, ".so") == 0) {
            snprintf(name, cap, "%s", e->d_name);
            found++;
        }
    }
    if (d) closedir(d);
    return found == 1;
}

static int count_tmp(const char *dir)
{
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));) n += strstr(e->d_name, ".tmp.") != NULL;
    if (d) closedir(d);
    return n;
}

static int copy_file(const char *from, const char *to, mode_t mode)
{
    void *data;
    size_t n;
    if (fdx_read_file(from, &data, &n) != FDX_OK) return 0;
    unlink(to);
    int fd = open(to, O_WRONLY | O_CREAT | O_EXCL, mode);
    int ok = fd >= 0 && write(fd, data, n) == (ssize_t)n;
    if (fd >= 0) close(fd);
    free(data);
    return ok;
}

static int same_file(const char *a, const char *b)
{
    void *x, *y;
    size_t nx, ny;
    if (fdx_read_file(a, &x, &nx) != FDX_OK) return 0;
    if (fdx_read_file(b, &y, &ny) != FDX_OK) {
        free(x);
        return 0;
    }
    int same = nx == ny && memcmp(x, y, nx) == 0;
    free(x);
    free(y);
    return same;
}

/* Builds the hostile library: its constructor writes the marker file, and
   its "scale" multiplies by 1000 instead of 3. */
static char evil_so[400];
static int build_evil(void)
{
    char src[400], cmd[1200];
    snprintf(src, sizeof src, "%s/evil.c", base);
    snprintf(evil_so, sizeof evil_so, "%s/evil.so", base);
    FILE *f = fopen(src, "w");
    if (!f) return 0;
    fprintf(f,
            "#include <stdio.h>\n"
            "__attribute__((constructor)) static void pwn(void) { FILE *f = fopen(\"%s\", \"w\"); if (f) fclose(f); }\n"
            "void scale(void **args) { double *x = *(double **)args[0]; long n = *(long *)args[1];\n"
            "  for (long i = 0; i < n; i++) x[i] *= 1000; }\n",
            marker);
    fclose(f);
    const char *cc = getenv("CC");
    snprintf(cmd, sizeof cmd, "%s -shared -fPIC -o '%s' '%s'", cc && *cc ? cc : "cc", evil_so, src);
    return system(cmd) == 0;
}

/* dlopen matches names before files: a library already loaded as
   "/proc/self/fd/N" (here a decoy whose scale multiplies by 1000) must not be
   returned for the next kernel loaded through a memfd that gets number N. */
static void test_name_reuse(void)
{
    char dir[400], src[400], so[400], cmd[1200];
    fresh_dir(dir, sizeof dir, "reuse");
    use_cache(dir);
    CHECK(load_and_run(), "kernel cached");
    snprintf(src, sizeof src, "%s/decoy.c", base);
    snprintf(so, sizeof so, "%s/decoy.so", base);
    FILE *f = fopen(src, "w");
    if (!f) return;
    fprintf(f, "void scale(void **args) { double *x = *(double **)args[0]; long n = *(long *)args[1];\n"
               "  for (long i = 0; i < n; i++) x[i] *= 1000; }\n");
    fclose(f);
    const char *cc = getenv("CC");
    snprintf(cmd, sizeof cmd, "%s -shared -fPIC -o '%s' '%s'", cc && *cc ? cc : "cc", so, src);
    if (system(cmd) != 0) {
        CHECK(0, "could not build the decoy library");
        return;
    }
    int fd = open(so, O_RDONLY | O_CLOEXEC);
    char name[64];
    snprintf(name, sizeof name, "/proc/self/fd/%d", fd);
    void *decoy = fd >= 0 ? dlopen(name, RTLD_NOW | RTLD_LOCAL) : NULL;
    CHECK(decoy, "decoy loaded as %s: %s", name, dlerror());
    close(fd); /* the next memfd gets this number, and the name is taken */
    CHECK(load_and_run(), "the cached kernel, not the decoy loaded under the same name");
    if (decoy) dlclose(decoy);
    CHECK(count_tmp(dir) == 0, "temporary removed after loading");
}

/* ---- SHA-256 and HMAC ---------------------------------------------------------- */

static void check_sha(const void *msg, size_t n, const char *want)
{
    unsigned char d[32];
    char h[65];
    fdx_sha256 s;
    fdx_sha256_init(&s);
    fdx_sha256_add(&s, msg, n);
    fdx_sha256_final(&s, d);
    hex(d, 32, h);
    CHECK(strcmp(h, want) == 0, "SHA-256 of %zu bytes: %s, expected %s", n, h, want);
    /* The same message in uneven pieces. */
    fdx_sha256_init(&s);
    const unsigned char *p = msg;
    for (size_t at = 0, step = 1; at < n; at += step, step = step * 3 % 97 + 1)
        fdx_sha256_add(&s, p + at, at + step <= n ? step : n - at);
    fdx_sha256_final(&s, d);
    hex(d, 32, h);
    CHECK(strcmp(h, want) == 0, "SHA-256 in pieces of %zu bytes: %s", n, h);
}

static void check_hmac(const void *key, size_t kn, const void *msg, size_t n, const char *want)
{
    unsigned char d[32];
    char h[65];
    fdx_hmac m;
    fdx_hmac_init(&m, key, kn);
    fdx_hmac_add(&m, msg, n);
    fdx_hmac_final(&m, d);
    hex(d, 32, h);
    CHECK(strcmp(h, want) == 0, "HMAC-SHA256 (key %zu, msg %zu bytes): %s, expected %s", kn, n, h, want);
}

static void test_sha256(void)
{
    /* FIPS 180-2 appendix B. */
    check_sha("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    check_sha("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    check_sha(two, strlen(two), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    char *million = malloc(1000000);
    if (million) {
        memset(million, 'a', 1000000);
        check_sha(million, 1000000, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
        free(million);
    }
    /* RFC 4231 test cases 1, 2, 3, 4, 6, 7. */
    unsigned char k[131], msg[50];
    memset(k, 0x0b, 20);
    check_hmac(k, 20, "Hi There", 8, "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
    check_hmac("Jefe", 4, "what do ya want for nothing?", 28,
               "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
    memset(k, 0xaa, 20);
    memset(msg, 0xdd, 50);
    check_hmac(k, 20, msg, 50, "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe");
    for (int i = 0; i < 25; i++) k[i] = (unsigned char)(i + 1);
    memset(msg, 0xcd, 50);
    check_hmac(k, 25, msg, 50, "82558a389a443c0ea4cc819899f2083a85f0faa3e578f8077a2e3ff46729665b");
    memset(k, 0xaa, 131);
    const char *m6 = "Test Using Larger Than Block-Size Key - Hash Key First";
    check_hmac(k, 131, m6, strlen(m6), "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
    const char *m7 = "This is a test using a larger than block-size key and a larger than block-size data. The key needs "
                     "to be hashed before being used by the HMAC algorithm.";
    check_hmac(k, 131, m7, strlen(m7), "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2");
    unsigned char a[32], b[32];
    memset(a, 1, 32);
    memcpy(b, a, 32);
    CHECK(fdx_digest_equal(a, b, 32), "equal digests");
    b[31] ^= 0x80;
    CHECK(!fdx_digest_equal(a, b, 32), "digests differing in the last bit");
}

/* ---- artifacts -------------------------------------------------------------------- */

static void test_planted_and_truncated(void)
{
    char dir[400], so_name[128], so[600], good[600];
    fresh_dir(dir, sizeof dir, "planted");
    use_cache(dir);
    CHECK(load_and_run(), "first load compiles and runs");
    if (!find_so(dir, so_name, sizeof so_name)) {
        CHECK(0, "no single .so in %s", dir);
        return;
    }
    path_in(so, sizeof so, dir, so_name);
    snprintf(good, sizeof good, "%s/good.so", base);
    CHECK(copy_file(so, good, 0600), "keep a copy of the signed artifact");
    CHECK(load_and_run(), "cache hit runs");

    /* A planted library (what an attacker or an older fdx left) is never
       loaded: its constructor must not run, and the result is the real one. */
    if (build_evil()) {
        CHECK(copy_file(evil_so, so, 0600), "plant %s", so);
        unlink(marker);
        CHECK(load_and_run(), "planted .so replaced by a recompiled kernel");
        CHECK(access(marker, F_OK) != 0, "the planted constructor ran (%s exists)", marker);
        CHECK(!same_file(so, evil_so), "the planted file is gone");
        /* The same with a forged trailer: magic right, digest wrong. */
        CHECK(copy_file(evil_so, so, 0600), "plant again");
        FILE *f = fopen(so, "ab");
        if (f) {
            unsigned char junk[32];
            memset(junk, 0x5a, sizeof junk);
            fwrite("FDXSIG01", 1, 8, f);
            fwrite(junk, 1, sizeof junk, f);
            fclose(f);
        }
        char log[4096];
        capture_begin();
        int ok = load_and_run();
        int lines = capture_end(log, sizeof log);
        CHECK(ok, "forged signature: recompiled");
        CHECK(access(marker, F_OK) != 0, "forged-signature constructor ran");
        CHECK(lines == 1 && strstr(log, "signature does not match"), "one warning line, got %d: %s", lines, log);
        /* A valid artifact of another key does not stand in for this one. */
        char other[600];
        path_in(other, sizeof other, dir, "0123456789abcdef0123456789abcdef.so");
        CHECK(copy_file(so, other, 0600), "copy under another key");
        void *d = NULL;
        size_t n = 0;
        CHECK_FAILS(fdx_cache_load("0123456789abcdef0123456789abcdef", ".so", &d, &n), FDX_ERR_VERIFY);
        CHECK(access(other, F_OK) != 0, "renamed artifact deleted");
    } else {
        CHECK(0, "could not build the hostile library");
    }

    /* Truncated (half, and shorter than the signature): deleted, recompiled, no SIGBUS. */
    struct stat st;
    for (int pass = 0; pass < 2; pass++) {
        CHECK(stat(so, &st) == 0, "artifact exists");
        CHECK(truncate(so, pass == 0 ? st.st_size / 2 : 10) == 0, "truncate");
        CHECK(load_and_run(), "truncated .so (pass %d) recompiled", pass);
        CHECK(stat(so, &st) == 0 && st.st_size > 1000, "rebuilt artifact has %lld bytes", (long long)st.st_size);
    }
    /* An empty file, a directory in its place. */
    CHECK(truncate(so, 0) == 0, "truncate to 0");
    CHECK(load_and_run(), "empty .so recompiled");

    /* A symlinked artifact is refused even when it points at a good one, and
       the target is left alone. */
    unlink(so);
    CHECK(symlink(good, so) == 0, "symlink %s", so);
    CHECK(load_and_run(), "symlinked .so: recompiled");
    CHECK(lstat(so, &st) == 0 && S_ISREG(st.st_mode), "artifact is a regular file again");
    CHECK(access(good, F_OK) == 0, "symlink target untouched");
    if (access(evil_so, F_OK) == 0) {
        unlink(so);
        CHECK(symlink(evil_so, so) == 0, "symlink to the hostile library");
        unlink(marker);
        CHECK(load_and_run(), "symlink to a hostile .so: recompiled");
        CHECK(access(marker, F_OK) != 0, "hostile constructor ran through a symlink");
    }
    /* Owned by someone else (root can make one). */
    if (geteuid() == 0) {
        CHECK(chown(so, 65534, 65534) == 0, "chown artifact");
        CHECK(load_and_run(), "foreign-owned .so: recompiled");
        CHECK(stat(so, &st) == 0 && st.st_uid == 0, "artifact is ours again");
    } else {
        printf("test_cache_trust: foreign-owned artifact case skipped (needs root to chown)\n");
    }
    CHECK(stat(so, &st) == 0 && (st.st_mode & 0777) == 0600, "artifact mode %03o", (unsigned)(st.st_mode & 0777));
    /* A planted symlink at the compiler log's name is replaced, not written
       through (the victim keeps its contents). */
    char log_path[600], victim[600];
    snprintf(log_path, sizeof log_path, "%.*s.log", (int)(strlen(so) - 3), so);
    snprintf(victim, sizeof victim, "%s/victim.txt", base);
    CHECK_OK(fdx_file_write_atomic(victim, "precious\n", 9));
    unlink(log_path);
    CHECK(symlink(victim, log_path) == 0, "plant log symlink");
    unlink(so);
    CHECK(load_and_run(), "recompiled with a planted log symlink");
    CHECK(lstat(log_path, &st) == 0 && S_ISREG(st.st_mode), "log is a regular file");
    void *vd = NULL;
    size_t vn = 0;
    CHECK_OK(fdx_read_file(victim, &vd, &vn));
    CHECK(vd && vn == 9 && memcmp(vd, "precious\n", 9) == 0, "victim file changed through the log symlink");
    free(vd);
    CHECK(count_tmp(dir) == 0, "no temporaries left in %s", dir);
}

static void test_other_artifacts(void)
{
    char dir[400], file[600];
    fresh_dir(dir, sizeof dir, "tune");
    use_cache(dir);
    const char *text = "fdx-tune 5 1 2 3\n";
    CHECK_OK(fdx_cache_store("abc123", ".tune", text, strlen(text)));
    void *d = NULL;
    size_t n = 0;
    CHECK_OK(fdx_cache_load("abc123", ".tune", &d, &n));
    CHECK(d && n == strlen(text) && memcmp(d, text, n) == 0 && ((char *)d)[n] == '\0', "tune round trip (%zu)", n);
    free(d);
    /* One changed byte is caught. */
    path_in(file, sizeof file, dir, "abc123.tune");
    FILE *f = fopen(file, "r+b");
    if (f) {
        fseek(f, 9, SEEK_SET);
        fputc('9', f);
        fclose(f);
    }
    CHECK_FAILS(fdx_cache_load("abc123", ".tune", &d, &n), FDX_ERR_VERIFY);
    CHECK(access(file, F_OK) != 0, "tampered .tune deleted");
    /* Missing: FDX_ERR_IO, nothing logged. */
    CHECK_FAILS(fdx_cache_load("abc123", ".tune", &d, &n), FDX_ERR_IO);
    /* A cubin-like binary payload with NUL bytes. */
    unsigned char bin[3000];
    for (int i = 0; i < 3000; i++) bin[i] = (unsigned char)(i * 31);
    CHECK_OK(fdx_cache_store("k0", ".cubin", bin, sizeof bin));
    CHECK_OK(fdx_cache_load("k0", ".cubin", &d, &n));
    CHECK(d && n == sizeof bin && memcmp(d, bin, n) == 0, "cubin round trip");
    free(d);
    /* Keys cannot leave the directory. */
    CHECK_FAILS(fdx_cache_load("../x", ".so", &d, &n), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_cache_store("a/b", ".tune", "x", 1), FDX_ERR_INVALID);
    struct stat st;
    CHECK(stat(dir, &st) == 0, "dir");
    path_in(file, sizeof file, dir, "key");
    CHECK(lstat(file, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0600 && st.st_size == 32,
          "key file 0600, 32 bytes");
}

static void test_key_tampered(void)
{
    char dir[400], key[600];
    fresh_dir(dir, sizeof dir, "rekey");
    use_cache(dir);
    CHECK(load_and_run(), "compile under the first key");
    const char *text = "payload";
    CHECK_OK(fdx_cache_store("t1", ".tune", text, 7));
    path_in(key, sizeof key, dir, "key");
    /* Same size and mode, other bytes: every artifact fails its check. */
    FILE *f = fopen(key, "r+b");
    if (f) {
        unsigned char k[32];
        for (int i = 0; i < 32; i++) k[i] = (unsigned char)(i * 7 + 1);
        fwrite(k, 1, 32, f);
        fclose(f);
    }
    reopen_cache(dir);
    void *d = NULL;
    size_t n = 0;
    CHECK_FAILS(fdx_cache_load("t1", ".tune", &d, &n), FDX_ERR_VERIFY);
    char log[4096];
    capture_begin();
    int ok = load_and_run();
    int lines = capture_end(log, sizeof log);
    CHECK(ok, "re-keyed cache: kernel recompiled");
    CHECK(lines == 1 && strstr(log, "signature"), "one line for the refused .so (%d): %s", lines, log);
    CHECK(load_and_run(), "and then a cache hit");
    /* A key file that is not private is replaced (one warning), and what it
       signed is rebuilt. */
    CHECK(chmod(key, 0644) == 0, "chmod key");
    capture_begin();
    reopen_cache(dir);
    lines = capture_end(log, sizeof log);
    CHECK(lines == 1 && strstr(log, "not valid"), "one warning for a readable key (%d): %s", lines, log);
    struct stat st;
    CHECK(stat(key, &st) == 0 && (st.st_mode & 0777) == 0600, "new key is 0600");
    CHECK(load_and_run(), "rebuilt under the new key");
    /* A symlinked key is replaced too. */
    char elsewhere[600];
    snprintf(elsewhere, sizeof elsewhere, "%s/stolen-key", base);
    CHECK(copy_file(key, elsewhere, 0600), "copy key");
    unlink(key);
    CHECK(symlink(elsewhere, key) == 0, "symlink key");
    capture_begin();
    reopen_cache(dir);
    capture_end(log, sizeof log);
    CHECK(lstat(key, &st) == 0 && S_ISREG(st.st_mode), "symlinked key replaced by a file");
    CHECK(load_and_run(), "rebuilt after a symlinked key");
}

/* ---- directories ------------------------------------------------------------------ */

/* Sets an unsafe directory; the cache must fall back (one warning naming
   the reason) and never write into it. */
static void expect_fallback(const char *dir, const char *why)
{
    char log[4096], in_use[4096] = "";
    capture_begin();
    fdx_status st = fdx_cache_set_dir(dir);
    if (st == FDX_OK) st = fdx_cache_dir(in_use, sizeof in_use);
    int ok = st == FDX_OK && load_and_run();
    int lines = capture_end(log, sizeof log);
    CHECK(ok, "%s: kernel runs from the fallback: %s", dir, fdx_last_error());
    CHECK(strcmp(in_use, dir) != 0, "%s: unsafe directory used", dir);
    CHECK(lines == 1 && strstr(log, "not safe") && strstr(log, why), "%s: one warning with '%s', got %d: %s", dir,
          why, lines, log);
    struct stat s;
    CHECK(stat(in_use, &s) == 0 && s.st_uid == geteuid() && (s.st_mode & 022) == 0, "fallback %s is private", in_use);
}

static void test_directories(void)
{
    char dir[400], real[400], link_dir[400];
    fresh_dir(dir, sizeof dir, "groupw");
    chmod(dir, 0775);
    expect_fallback(dir, "writable by its group");
    CHECK(count_tmp(dir) == 0, "nothing written into the group-writable directory");
    fresh_dir(dir, sizeof dir, "otherw");
    chmod(dir, 0757);
    expect_fallback(dir, "writable by others");

    fresh_dir(real, sizeof real, "real");
    snprintf(link_dir, sizeof link_dir, "%s/linked", base);
    CHECK(symlink(real, link_dir) == 0, "symlink cache dir");
    expect_fallback(link_dir, "symbolic link");
    DIR *d = opendir(real);
    int entries = 0;
    for (struct dirent *e; d && (e = readdir(d));) entries += e->d_name[0] != '.';
    if (d) closedir(d);
    CHECK(entries == 0, "%d files written through the symlinked cache directory", entries);

    if (geteuid() == 0) {
        fresh_dir(dir, sizeof dir, "foreign");
        CHECK(chown(dir, 65534, 65534) == 0, "chown dir");
        expect_fallback(dir, "belongs to uid 65534");
    } else {
        printf("test_cache_trust: foreign-owned directory case skipped (needs root to chown)\n");
    }

    /* HOME unset: XDG_CACHE_HOME/fdx, then /tmp/fdx-cache-<uid>. */
    char *home = getenv("HOME") ? strdup(getenv("HOME")) : NULL;
    char *xdg = getenv("XDG_CACHE_HOME") ? strdup(getenv("XDG_CACHE_HOME")) : NULL;
    unsetenv("HOME");
    char xdg_dir[400], want[500], in_use[4096] = "";
    snprintf(xdg_dir, sizeof xdg_dir, "%s/xdg", base);
    setenv("XDG_CACHE_HOME", xdg_dir, 1);
    CHECK_OK(fdx_cache_set_dir("~/.cache/fdx"));
    CHECK_OK(fdx_cache_dir(in_use, sizeof in_use));
    snprintf(want, sizeof want, "%s/fdx", xdg_dir);
    CHECK(strcmp(in_use, want) == 0, "HOME unset, XDG set: %s, expected %s", in_use, want);
    unsetenv("XDG_CACHE_HOME");
    CHECK_OK(fdx_cache_set_dir("~/.cache/fdx"));
    CHECK_OK(fdx_cache_dir(in_use, sizeof in_use));
    snprintf(want, sizeof want, "/tmp/fdx-cache-%ld", (long)geteuid());
    CHECK(strcmp(in_use, want) == 0, "HOME unset: %s, expected %s", in_use, want);
    struct stat s;
    CHECK(lstat(in_use, &s) == 0 && S_ISDIR(s.st_mode) && s.st_uid == geteuid() && (s.st_mode & 077) == 0,
          "%s is ours and private (mode %03o)", in_use, (unsigned)(s.st_mode & 0777));
    CHECK(load_and_run(), "kernel runs from %s", in_use);
    if (home) setenv("HOME", home, 1);
    if (xdg) setenv("XDG_CACHE_HOME", xdg, 1);
    free(home);
    free(xdg);
}

static void touch_aged(const char *dir, const char *name, long age_s)
{
    char p[600];
    path_in(p, sizeof p, dir, name);
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd >= 0) close(fd);
    struct timespec t[2];
    clock_gettime(CLOCK_REALTIME, &t[0]);
    t[0].tv_sec -= age_s;
    t[1] = t[0];
    utimensat(AT_FDCWD, p, t, 0);
}

static int exists_in(const char *dir, const char *name)
{
    char p[600];
    path_in(p, sizeof p, dir, name);
    return access(p, F_OK) == 0;
}

static void test_orphans(void)
{
    char dir[400], name[128];
    fresh_dir(dir, sizeof dir, "orphans");
    pid_t child = fork();
    if (child == 0) _exit(0);
    waitpid(child, NULL, 0);
    long dead = (long)child, live = (long)getppid();
    snprintf(name, sizeof name, "a.so.tmp.%ld.0", dead);
    touch_aged(dir, name, 120); /* writer dead, older than a minute: removed */
    char b[128], c[128], e[128];
    snprintf(b, sizeof b, "b.so.tmp.%ld", dead);
    touch_aged(dir, b, 0); /* writer dead but just written: kept (grace) */
    snprintf(c, sizeof c, "c.cubin.tmp.%ld.3", live);
    touch_aged(dir, c, 600); /* writer alive, 10 minutes: kept */
    snprintf(e, sizeof e, "d.tune.tmp.%ld", live);
    touch_aged(dir, e, 7200); /* 2 hours: removed whoever wrote it */
    touch_aged(dir, "e.so.tmp.x", 7200);
    touch_aged(dir, "f.so", 7200);
    use_cache(dir);
    CHECK(!exists_in(dir, name), "dead writer's temporary removed");
    CHECK(exists_in(dir, b), "fresh temporary kept");
    CHECK(exists_in(dir, c), "live writer's temporary kept");
    CHECK(!exists_in(dir, e), "2-hour-old temporary removed");
    CHECK(exists_in(dir, "e.so.tmp.x") && exists_in(dir, "f.so"), "other files kept");
    /* Bounded per open: 100 orphans take two opens. */
    for (int i = 0; i < 100; i++) {
        snprintf(name, sizeof name, "o%d.so.tmp.%ld.%d", i, dead, i);
        touch_aged(dir, name, 7200);
    }
    reopen_cache(dir);
    int left = count_tmp(dir) - 3; /* b, c and e.so.tmp.x stay */
    CHECK(left == 100 - FDX_CACHE_SWEEP_MAX, "%d orphans left after one open, expected %d", left,
          100 - FDX_CACHE_SWEEP_MAX);
    reopen_cache(dir);
    CHECK(count_tmp(dir) == 3, "%d temporaries after two opens", count_tmp(dir));
    long pid = 0;
    CHECK(fdx_atomic_is_tmpname("x.so.tmp.123", &pid) && pid == 123, "tmpname with pid");
    CHECK(fdx_atomic_is_tmpname("x.so.tmp.123.7", &pid) && pid == 123, "tmpname with pid and counter");
    CHECK(!fdx_atomic_is_tmpname("x.so.tmp.", &pid) && !fdx_atomic_is_tmpname("x.so.tmp.12a", &pid) &&
              !fdx_atomic_is_tmpname("x.so.tmp.1.", &pid) && !fdx_atomic_is_tmpname("x.so", &pid),
          "not tmpnames");
}

/* ---- input files, INI, messages, options, NULL table -------------------------------- */

static void on_alarm(int sig) { (void)sig; }

static void test_inputs(void)
{
    char fifo[400], sub[400];
    snprintf(fifo, sizeof fifo, "%s/config.fifo", base);
    CHECK(mkfifo(fifo, 0600) == 0, "mkfifo");
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigaction(SIGALRM, &sa, NULL);
    alarm(10); /* a blocking open would be interrupted here and fail the checks below */
    char *data = NULL;
    size_t n = 0;
    CHECK_FAILS(fdx_file_read(fifo, 1 << 20, &data, &n), FDX_ERR_INVALID);
    CHECK(strstr(fdx_last_error(), "FIFO") && strstr(fdx_last_error(), "config.fifo"), "message: %s",
          fdx_last_error());
    fdx_ckpt *c = NULL;
    CHECK_FAILS(fdx_ckpt_read(fifo, &c), FDX_ERR_INVALID);
    snprintf(sub, sizeof sub, "%s/adir", base);
    mkdir(sub, 0700);
    CHECK_FAILS(fdx_file_read(sub, 1 << 20, &data, &n), FDX_ERR_INVALID);
    CHECK(strstr(fdx_last_error(), "directory"), "message: %s", fdx_last_error());
    CHECK_FAILS(fdx_file_read("/dev/zero", 1 << 20, &data, &n), FDX_ERR_INVALID);
    CHECK(strstr(fdx_last_error(), "device"), "message: %s", fdx_last_error());
    alarm(0);
    /* A symlink to a regular input file is fine. */
    char real[400], link[400];
    snprintf(real, sizeof real, "%s/in.ini", base);
    snprintf(link, sizeof link, "%s/in-link.ini", base);
    CHECK_OK(fdx_file_write_atomic(real, "a = 1\n", 6));
    CHECK(symlink(real, link) == 0, "symlink input");
    CHECK_OK(fdx_file_read(link, 1 << 20, &data, &n));
    CHECK(data && n == 6, "read through symlink");
    free(data);
    CHECK_FAILS(fdx_file_read(real, 3, &data, &n), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_file_read("/nonexistent/x.ini", 10, &data, &n), FDX_ERR_INVALID);
    CHECK(strstr(fdx_last_error(), "/nonexistent/x.ini") && strstr(fdx_last_error(), "No such file"), "%s",
          fdx_last_error());
    CHECK_FAILS(fdx_file_read("/proc/self/mem", 10, &data, &n), FDX_ERR_INVALID); /* regular, but reads fail */
    CHECK(count_tmp(base) == 0, "no temporaries left in %s", base);
}

static fdx_status ini_count(void *user, const char *section, const char *key, const char *value, int line)
{
    (void)section;
    (void)key;
    (void)line;
    (void)value;
    ++*(int *)user;
    return FDX_OK;
}

static void test_ini_quotes(void)
{
    int n = 0;
    const char *bad[] = {"a = \"abc\n", "a = 'abc\n", "a = 1\nb = 2\nc = \"x'\n", "a = \"abc # not a comment\n",
                         "a = \"x\" \"y\n"};
    const int line[] = {1, 1, 3, 1, 1};
    for (int i = 0; i < 5; i++) {
        CHECK_FAILS(fdx_ini_parse(bad[i], strlen(bad[i]), "cfg.ini", ini_count, &n), FDX_ERR_INVALID);
        char want[32];
        snprintf(want, sizeof want, "cfg.ini:%d:", line[i]);
        CHECK(strstr(fdx_last_error(), want) && strstr(fdx_last_error(), "quote"), "case %d: %s", i, fdx_last_error());
    }
    const char *good = "a = \"1;2\"\nb = 'x \"y\" z'\nc = 3 # it's a comment\n; don't\nt = Bob's run\n"
                       "u = \"\xe9\"fd'\"\"\n";
    n = 0;
    CHECK_OK(fdx_ini_parse(good, strlen(good), "good.ini", ini_count, &n));
    CHECK(n == 5, "%d pairs", n);
    /* A very long value is an error with the line, not an overflow. */
    size_t big = 100000;
    char *huge = malloc(big + 8);
    if (huge) {
        memcpy(huge, "a = ", 4);
        memset(huge + 4, 'x', big);
        huge[big + 4] = '\n';
        CHECK_FAILS(fdx_ini_parse(huge, big + 5, "long.ini", ini_count, &n), FDX_ERR_INVALID);
        CHECK(strstr(fdx_last_error(), "long.ini:1:"), "%s", fdx_last_error());
        free(huge);
    }
}

static void test_messages_and_options(void)
{
    /* fdx_fail may quote the last message: it is printed once, intact. */
    fdx_fail(FDX_ERR_IO, "the real reason");
    fdx_fail(FDX_ERR_IO, "outer (%s)", fdx_last_error());
    CHECK(strcmp(fdx_last_error(), "outer (the real reason)") == 0, "quoted message: '%s'", fdx_last_error());
    fdx_options *o = NULL;
    CHECK_OK(fdx_options_create(&o));
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    char v[32];
    snprintf(v, sizeof v, "%ld", 4 * cores < 4096 ? 4 * cores : 4096);
    CHECK_OK(fdx_options_set(o, "threads", v));
    snprintf(v, sizeof v, "%ld", 4 * cores + 1);
    CHECK_FAILS(fdx_options_set(o, "threads", v), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_options_set(o, "threads", "5000"), FDX_ERR_INVALID);
    CHECK(strstr(fdx_last_error(), "threads") && strstr(fdx_last_error(), "5000"), "%s", fdx_last_error());
    CHECK_OK(fdx_options_set(o, "threads", "0"));
    fdx_options_destroy(&o);
}

static void test_null_table(void)
{
    fdx_ckpt *c = NULL;
    double u[4] = {0};
    char path[400];
    snprintf(path, sizeof path, "%s/null.ckpt", base);
    fdx_ckpt_info info = {0, 0.0, FDX_FLOAT64, 1, {4, 1, 1}, "x = 1"};
    fdx_ckpt_field f[2] = {{"u", u}, {NULL, u}};
    CHECK_FAILS(fdx_ckpt_read(NULL, &c), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_ckpt_read(path, NULL), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_ckpt_read("", &c), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_ckpt_parse(NULL, 100, &c), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_ckpt_parse(u, sizeof u, NULL), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_ckpt_write(NULL, &info, f, 1), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_ckpt_write(path, NULL, f, 1), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_ckpt_write(path, &info, NULL, 1), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_ckpt_write(path, &info, f, 2), FDX_ERR_INVALID); /* NULL field name */
    CHECK(strstr(fdx_last_error(), "no name"), "%s", fdx_last_error());
    fdx_ckpt_field nodata = {"u", NULL};
    CHECK_FAILS(fdx_ckpt_write(path, &info, &nodata, 1), FDX_ERR_INVALID);
    fdx_ckpt_field longname = {"a_field_name_longer_than_thirty_one", u};
    CHECK_FAILS(fdx_ckpt_write(path, &info, &longname, 1), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_ckpt_write(path, &info, f, 0), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_ckpt_write(path, &info, f, 17), FDX_ERR_INVALID);
    info.rank = 4;
    CHECK_FAILS(fdx_ckpt_write(path, &info, f, 1), FDX_ERR_INVALID);
    info.rank = 1;
    info.shape[0] = -3;
    CHECK_FAILS(fdx_ckpt_write(path, &info, f, 1), FDX_ERR_INVALID);
    info.shape[0] = 4;
    CHECK(access(path, F_OK) != 0, "no checkpoint written by a refused call");
    CHECK_OK(fdx_ckpt_write(path, &info, f, 1));
    CHECK_OK(fdx_ckpt_read(path, &c));
    CHECK(fdx_ckpt_get_field(c, NULL) == NULL, "field NULL name");
    CHECK(fdx_ckpt_get_field(c, "u") != NULL, "field u");
    fdx_ckpt_free(&c);
    CHECK(fdx_ckpt_get_info(NULL) == NULL && fdx_ckpt_get_field(NULL, "u") == NULL, "NULL checkpoint getters");
    fdx_ckpt_free(NULL);
    fdx_ckpt_free(&c);

    char *data;
    size_t n;
    CHECK_FAILS(fdx_file_read(NULL, 10, &data, &n), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_file_read(path, 10, NULL, &n), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_file_write_atomic(NULL, "x", 1), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_file_write_atomic(path, NULL, 1), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_dir_prepare(NULL), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_ini_parse("a = 1\n", 6, "x", NULL, NULL), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_ini_parse(NULL, 6, "x", ini_count, NULL), FDX_ERR_INVALID);

    CHECK_FAILS(fdx_log_level_parse("warn", NULL), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_dtype_parse("float", NULL), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_backend_kind_parse("cpu", NULL), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_options_create(NULL), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_options_set(NULL, "log", "warn"), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_ctx_create(NULL, NULL), FDX_ERR_INVALID);
    CHECK(fdx_options_get(NULL, NULL) == NULL, "options_get NULL name");
    const char *name = "x";
    fdx_options_describe(0, &name, NULL, NULL, NULL);
    CHECK(name && strcmp(name, "backend") == 0, "describe with NULL outputs: %s", name ? name : "(null)");
    fdx_options_describe(-1, &name, NULL, NULL, NULL);
    CHECK(name == NULL, "describe out of range");
    fdx_options_destroy(NULL);
    fdx_ctx_destroy(NULL);
    CHECK(fdx_ctx_backend(NULL) == FDX_BACKEND_AUTO && fdx_ctx_device_name(NULL)[0] == '\0' &&
              fdx_ctx_options(NULL) == NULL && fdx_ctx_memory(NULL) == 0,
          "NULL context getters");
    fdx_log_level before = fdx_log_get_level();
    fdx_log_set_level((fdx_log_level)99);
    CHECK(fdx_log_get_level() == before, "out-of-range log level ignored");
    CHECK(strcmp(fdx_strerror((fdx_status)999), "unknown status") == 0, "strerror out of range");
}

int main(void)
{
    CHECK(mkdtemp(base) != NULL, "mkdtemp");
    snprintf(marker, sizeof marker, "%s/PWNED", base);
    snprintf(run_tag, sizeof run_tag, "trust %ld %ld", (long)getpid(), (long)time(NULL));
    fdx_log_set_level(FDX_LOG_WARN);
    be = fdx_backend_cpu();
    CHECK_OK(be->device_info(0, &dev));

    test_sha256();
    test_planted_and_truncated();
    test_name_reuse();
    test_other_artifacts();
    test_key_tampered();
    test_directories();
    test_orphans();
    test_inputs();
    test_ini_quotes();
    test_messages_and_options();
    test_null_table();

    char cmd[200];
    snprintf(cmd, sizeof cmd, "chmod -R u+rwx '%s' 2>/dev/null; rm -rf '%s'", base, base);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", base);
    return fdx_test_finish("test_cache_trust");
}
