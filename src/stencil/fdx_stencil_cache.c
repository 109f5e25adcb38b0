/* fdx_stencil_cache: a process-wide table of loaded stencil kernels and tuned
   configurations, so repeated applies (and fdx_laplacian_apply, which builds
   a stencil per call) neither regenerate, reload nor re-tune anything. */
#include "stencil/fdx_stencil_cache.h"
#include "core/fdx_cache.h"
#include "core/fdx_log.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct kentry {
    char key[256];
    fdx_kernel *k;
} kentry;

typedef struct tentry {
    char key[33];
    fdx_stencil_cfg cfg;
} tentry;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static kentry *kernels;
static size_t nkernels, capkernels;
static tentry *tuned;
static size_t ntuned, captuned;

/* Grows a table by doubling; 0 on failure (the caller just does not cache). */
static int grow(void **tab, size_t *cap, size_t n, size_t elem)
{
    if (n < *cap) return 1;
    size_t c = *cap ? 2 * *cap : 16;
    void *t = realloc(*tab, c * elem);
    if (!t) return 0;
    *tab = t;
    *cap = c;
    return 1;
}

fdx_status fdx_stencil_kernel_get(const fdx_backend *be, const fdx_device_info *dev, const fdx_stencil_kspec *ks,
                                  const fdx_stencil_cfg *cfg, fdx_kernel **out)
{
    int cuda = be->kind == FDX_BACKEND_CUDA;
    char spec[32], ckey[128], key[sizeof kernels->key];
    fdx_stencil_kspec_text(ks, spec, sizeof spec);
    fdx_stencil_cfg_key(cfg, cuda, ckey, sizeof ckey);
    snprintf(key, sizeof key, "%s/%d/%.60s/%s/%s", be->name, dev->ordinal, dev->name, spec, ckey);
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < nkernels; i++)
        if (strcmp(kernels[i].key, key) == 0) {
            *out = kernels[i].k;
            pthread_mutex_unlock(&lock);
            return FDX_OK;
        }
    /* Compile under the lock: two threads asking for one kernel compile once. */
    char *src = NULL;
    fdx_status st = fdx_stencil_generate(ks, cfg, cuda, &src);
    fdx_kernel *k = NULL;
    if (st == FDX_OK) st = be->jit_load(dev, src, FDX_STENCIL_ENTRY, "stencil kernel", &k);
    free(src);
    if (st == FDX_OK) {
        if (grow((void **)&kernels, &capkernels, nkernels, sizeof *kernels)) {
            snprintf(kernels[nkernels].key, sizeof kernels[nkernels].key, "%s", key);
            kernels[nkernels++].k = k;
        }
        /* Else the kernel stays loaded unlisted: a later call loads another. */
        *out = k;
    }
    pthread_mutex_unlock(&lock);
    return st;
}

static void remember(const char *key, const fdx_stencil_cfg *cfg)
{
    for (size_t i = 0; i < ntuned; i++)
        if (strcmp(tuned[i].key, key) == 0) {
            tuned[i].cfg = *cfg;
            return;
        }
    if (!grow((void **)&tuned, &captuned, ntuned, sizeof *tuned)) return;
    snprintf(tuned[ntuned].key, sizeof tuned[ntuned].key, "%s", key);
    tuned[ntuned++].cfg = *cfg;
}

int fdx_stencil_tuned_find(const char *key, int memory_only, fdx_stencil_cfg *cfg)
{
    int found = 0;
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < ntuned && !found; i++)
        if (strcmp(tuned[i].key, key) == 0) *cfg = tuned[i].cfg, found = 1;
    pthread_mutex_unlock(&lock);
    if (found || memory_only) return found;
    void *data = NULL;
    size_t n = 0;
    if (fdx_cache_load(key, ".tune", &data, &n) != FDX_OK) { /* verified: fdx_cache.h */
        fdx_clear_error();
        return 0;
    }
    fdx_stencil_cfg c;
    /* One line: "fdx-tune 5 " and the configuration; anything else is
       ignored, so a damaged or older file only costs a re-tune. */
    const char *text = (const char *)data;
    if (n > 11 && strncmp(text, "fdx-tune 5 ", 11) == 0 && fdx_stencil_cfg_parse(text + 11, &c)) {
        *cfg = c;
        found = 1;
        pthread_mutex_lock(&lock);
        remember(key, &c);
        pthread_mutex_unlock(&lock);
        FDX_DEBUG("stencil tuning cache hit %s", key);
    } else {
        FDX_WARN("ignoring malformed tuning file %s.tune", key);
    }
    free(data);
    return found;
}

void fdx_stencil_tuned_store(const char *key, const fdx_stencil_cfg *cfg)
{
    pthread_mutex_lock(&lock);
    remember(key, cfg);
    pthread_mutex_unlock(&lock);
    char fields[160], text[192];
    fdx_stencil_cfg_format(cfg, fields, sizeof fields);
    int n = snprintf(text, sizeof text, "fdx-tune 5 %s\n", fields);
    if (fdx_cache_store(key, ".tune", text, (size_t)n) != FDX_OK) {
        FDX_WARN("not saving stencil tuning: %s", fdx_last_error());
        fdx_clear_error();
    }
}
