/* Core units: status messages, names, options, JSON records, hashing. */
#include "core/fdx_cache.h"
#include "fdx/internal/json.h"
#include "fdx_test.h"

#include <string.h>

static void test_names(void)
{
    fdx_dtype t;
    CHECK_OK(fdx_dtype_parse("double", &t));
    CHECK(t == FDX_FLOAT64 && fdx_dtype_size(t) == 8, "double -> %d", (int)t);
    CHECK_OK(fdx_dtype_parse("f32", &t));
    CHECK(t == FDX_FLOAT32 && fdx_dtype_size(t) == 4, "f32 -> %d", (int)t);
    CHECK_FAILS(fdx_dtype_parse("quad", &t), FDX_ERR_INVALID);
    CHECK(strstr(fdx_last_error(), "quad") != NULL, "message names the value: %s", fdx_last_error());
    fdx_backend_kind k;
    CHECK_OK(fdx_backend_kind_parse("CUDA", &k));
    CHECK(k == FDX_BACKEND_CUDA, "cuda -> %d", (int)k);
    CHECK_FAILS(fdx_backend_kind_parse("opencl", &k), FDX_ERR_INVALID);
    fdx_log_level l;
    CHECK_OK(fdx_log_level_parse("info", &l));
    CHECK(l == FDX_LOG_INFO, "info -> %d", (int)l);
    CHECK_FAILS(fdx_log_level_parse("loud", &l), FDX_ERR_INVALID);
    for (int s = FDX_OK; s <= FDX_ERR_INTERNAL; s++)
        CHECK(strcmp(fdx_strerror((fdx_status)s), "unknown status") != 0, "status %d has a name", s);
}

static void test_options(void)
{
    unsetenv("FDX_BACKEND");
    setenv("FDX_THREADS", "3", 1);
    fdx_options *o = NULL;
    CHECK_OK(fdx_options_create(&o));
    CHECK(strcmp(fdx_options_get(o, "backend"), "auto") == 0, "default backend %s", fdx_options_get(o, "backend"));
    CHECK(strcmp(fdx_options_get(o, "threads"), "3") == 0, "environment read: %s", fdx_options_get(o, "threads"));
    CHECK_OK(fdx_options_set(o, "backend", "cpu"));
    CHECK(strcmp(fdx_options_get(o, "backend"), "cpu") == 0, "set backend");
    CHECK_FAILS(fdx_options_set(o, "backend", "gpu"), FDX_ERR_INVALID);
    CHECK(strcmp(fdx_options_get(o, "backend"), "cpu") == 0, "a rejected value leaves the old one");
    CHECK_FAILS(fdx_options_set(o, "colour", "red"), FDX_ERR_INVALID);
    CHECK_FAILS(fdx_options_set(o, "threads", "-1"), FDX_ERR_INVALID);
    CHECK(fdx_options_get(o, "nope") == NULL, "unknown option reads NULL");
    fdx_options_destroy(&o);
    CHECK(o == NULL, "destroy clears the pointer");
    fdx_options_destroy(&o); /* NULL is fine */

    setenv("FDX_BACKEND", "tpu", 1);
    CHECK_FAILS(fdx_options_create(&o), FDX_ERR_INVALID);
    CHECK(strstr(fdx_last_error(), "FDX_BACKEND") != NULL, "env error names the variable: %s", fdx_last_error());
    CHECK(o == NULL, "no options on failure");
    unsetenv("FDX_BACKEND");
    unsetenv("FDX_THREADS");
}

static void test_ctx(void)
{
    fdx_ctx *c = fdx_test_ctx("cpu");
    CHECK(c != NULL, "cpu context: %s", fdx_last_error());
    if (c) {
        CHECK(fdx_ctx_backend(c) == FDX_BACKEND_CPU, "backend is cpu");
        CHECK(fdx_ctx_memory(c) > 0, "host memory known");
    }
    fdx_ctx_destroy(&c);
    fdx_ctx_destroy(&c);
    if (fdx_cuda_device_count() == 0) {
        fdx_options *o = NULL;
        CHECK_OK(fdx_options_create(&o));
        CHECK_OK(fdx_options_set(o, "backend", "cuda"));
        CHECK_FAILS(fdx_ctx_create(o, &c), FDX_ERR_NO_DEVICE);
        CHECK(c == NULL, "no context on failure");
        CHECK_OK(fdx_options_set(o, "backend", "auto"));
        CHECK_OK(fdx_ctx_create(o, &c));
        CHECK(c && fdx_ctx_backend(c) == FDX_BACKEND_CPU, "auto falls back to cpu without a device");
        fdx_ctx_destroy(&c);
        fdx_options_destroy(&o);
    }
}

static void test_json(void)
{
    fdx_json j;
    fdx_json_init(&j);
    fdx_json_begin(&j, NULL);
    fdx_json_str(&j, "name", "a\"b\\c\n");
    fdx_json_int(&j, "n", 1074266112);
    fdx_json_num(&j, "x", 0.5);
    fdx_json_num(&j, "bad", 0.0 / 0.0);
    fdx_json_begin_array(&j, "shape");
    fdx_json_int(&j, NULL, 3);
    fdx_json_int(&j, NULL, 4);
    fdx_json_end_array(&j);
    fdx_json_bool(&j, "ok", 1);
    fdx_json_end(&j);
    const char *want = "{\"name\": \"a\\\"b\\\\c\\u000a\", \"n\": 1074266112, \"x\": 0.5, \"bad\": null, "
                       "\"shape\": [3, 4], \"ok\": true}";
    CHECK(strcmp(fdx_json_text(&j), want) == 0, "json text: %s", fdx_json_text(&j));
    fdx_json_free(&j);
}

static void test_hash_and_files(void)
{
    fdx_hash a, b;
    char ha[33], hb[33];
    fdx_hash_init(&a);
    fdx_hash_add_str(&a, "kernel source");
    fdx_hash_init(&b);
    fdx_hash_add_str(&b, "kernel sourcf");
    fdx_hash_hex(&a, ha);
    fdx_hash_hex(&b, hb);
    CHECK(strlen(ha) == 32 && strcmp(ha, hb) != 0, "distinct keys %s %s", ha, hb);

    char dir[] = "/tmp/fdx-test-core-XXXXXX";
    CHECK(mkdtemp(dir) != NULL, "mkdtemp");
    char path[512];
    snprintf(path, sizeof path, "%s/sub/dir", dir);
    CHECK_OK(fdx_mkdir_p(path));
    snprintf(path, sizeof path, "%s/sub/dir/file.bin", dir);
    CHECK_OK(fdx_write_atomic(path, "hello", 5));
    void *data = NULL;
    size_t n = 0;
    CHECK_OK(fdx_read_file(path, &data, &n));
    CHECK(n == 5 && data && memcmp(data, "hello", 5) == 0, "read back %zu bytes", n);
    free(data);
    snprintf(path, sizeof path, "%s/missing", dir);
    CHECK_FAILS(fdx_read_file(path, &data, &n), FDX_ERR_IO);
    CHECK(strstr(fdx_last_error(), "missing") != NULL, "message names the file: %s", fdx_last_error());
    snprintf(path, sizeof path, "%s/sub/dir/file.bin/x", dir);
    CHECK_FAILS(fdx_mkdir_p(path), FDX_ERR_IO);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    CHECK(system(cmd) == 0, "clean up %s", dir);
}

int main(void)
{
    test_names();
    test_options();
    test_ctx();
    test_json();
    test_hash_and_files();
    return fdx_test_finish("test_core");
}
