/* fdx_stencil_cache: a process-wide table of loaded stencil kernels and tuned
   configurations, so repeated applies (and fdx_laplacian_apply, which builds
   a stencil per call) neither regenerate, reload nor re-tune anything. */
#include "stencil/fdx_stencil_cache.h"
#include "backends/fdx_jit_batch.h"
#include "core/fdx_cache.h"
#include "core/fdx_file.h"
#include "fdx/internal/clock.h"
#include "core/fdx_log.h"
#include "fdx/internal/sb.h"

#include <math.h>
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
    char spec[48], ckey[128], key[sizeof kernels->key];
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

void fdx_stencil_kernels_prepare(const fdx_backend *be, const fdx_device_info *dev, const fdx_stencil_kspec *ks,
                                 const fdx_stencil_cfg *cfgs, int n)
{
    int cuda = be->kind == FDX_BACKEND_CUDA, m = 0;
    char **src = calloc((size_t)(n > 0 ? n : 1), sizeof *src);
    char (*keys)[128] = calloc((size_t)(n > 0 ? n : 1), sizeof *keys);
    if (!src || !keys) {
        free(src);
        free(keys);
        return; /* the trials compile one by one */
    }
    char spec[48], key[sizeof kernels->key];
    fdx_stencil_kspec_text(ks, spec, sizeof spec);
    for (int i = 0; i < n; i++) {
        fdx_stencil_cfg_key(&cfgs[i], cuda, keys[m], sizeof keys[m]);
        snprintf(key, sizeof key, "%s/%d/%.60s/%s/%s", be->name, dev->ordinal, dev->name, spec, keys[m]);
        int have = 0;
        for (int k = 0; k < m && !have; k++) have = strcmp(keys[k], keys[m]) == 0;
        pthread_mutex_lock(&lock);
        for (size_t k = 0; k < nkernels && !have; k++) have = strcmp(kernels[k].key, key) == 0;
        pthread_mutex_unlock(&lock);
        if (have) continue;
        if (fdx_stencil_generate(ks, &cfgs[i], cuda, &src[m]) != FDX_OK) {
            fdx_clear_error(); /* its trial reports it */
            continue;
        }
        m++;
    }
    if (m > 1) {
        double t0 = fdx_now_s();
        int failed = fdx_jit_compile_batch(be, dev, (const char *const *)src, m, "stencil kernel");
        FDX_DEBUG("compiled %d stencil kernels ahead in %d threads: %.3f s (%d failed)", m, fdx_jit_batch_threads(m),
                  fdx_now_s() - t0, failed);
    }
    for (int i = 0; i < m; i++) free(src[i]);
    free(src);
    free(keys);
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

/* The tuning file: "fdx-tune 6 complete|partial <the chosen configuration>",
   then one line per measured configuration, "<ms> <configuration>" ("inf":
   it could not run), so a search spread over several runs resumes where
   it stopped (fdx_stencil_tune_step).  Version 5 files (one line: "fdx-tune
   5 <configuration>") are complete searches. */
static int parse_tune(const char *text, size_t n, fdx_stencil_journal *j)
{
    memset(j, 0, sizeof *j);
    if (n > 11 && strncmp(text, "fdx-tune 5 ", 11) == 0) {
        j->complete = 1;
        return fdx_stencil_cfg_parse(text + 11, &j->best);
    }
    const char *p = text;
    if (n > 20 && strncmp(p, "fdx-tune 6 complete ", 20) == 0) j->complete = 1, p += 20;
    else if (n > 19 && strncmp(p, "fdx-tune 6 partial ", 19) == 0) p += 19;
    else return 0;
    if (!fdx_stencil_cfg_parse(p, &j->best)) return 0;
    while ((p = strchr(p, '\n')) && *++p && j->n < FDX_STENCIL_JOURNAL_MAX) {
        char *end;
        double ms = strtod(p, &end);
        if (end == p || !(ms >= 0) || !fdx_stencil_cfg_parse(end, &j->cfg[j->n])) return 0;
        j->ms[j->n++] = ms;
    }
    return 1;
}

int fdx_stencil_tuned_find(const char *key, int memory_only, fdx_stencil_cfg *cfg, fdx_stencil_journal *partial)
{
    int found = 0;
    if (partial) memset(partial, 0, sizeof *partial);
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
    /* Anything unreadable is ignored, so a damaged or older file only costs
       a re-tune. */
    fdx_stencil_journal *j = malloc(sizeof *j);
    char *text = malloc(n + 1);
    if (j && text) {
        memcpy(text, data, n);
        text[n] = '\0';
        if (!parse_tune(text, n, j)) {
            FDX_WARN("ignoring malformed tuning file %s.tune", key);
        } else if (j->complete) {
            *cfg = j->best;
            found = 1;
            pthread_mutex_lock(&lock);
            remember(key, cfg);
            pthread_mutex_unlock(&lock);
            FDX_DEBUG("stencil tuning cache hit %s", key);
        } else {
            FDX_DEBUG("stencil tuning %s: %d configurations measured so far, resuming", key, j->n);
            if (partial) *partial = *j;
        }
    }
    free(text);
    free(j);
    free(data);
    return found;
}

void fdx_stencil_tuned_store(const char *key, const fdx_stencil_cfg *cfg, const fdx_stencil_journal *j)
{
    pthread_mutex_lock(&lock);
    remember(key, cfg);
    pthread_mutex_unlock(&lock);
    char fields[160];
    fdx_sb b = FDX_SB_INIT;
    fdx_stencil_cfg_format(cfg, fields, sizeof fields);
    fdx_sb_printf(&b, "fdx-tune 6 %s %s\n", !j || j->complete ? "complete" : "partial", fields);
    for (int i = 0; j && i < j->n; i++) {
        fdx_stencil_cfg_format(&j->cfg[i], fields, sizeof fields);
        if (isfinite(j->ms[i])) fdx_sb_printf(&b, "%.17g %s\n", j->ms[i], fields);
        else fdx_sb_printf(&b, "inf %s\n", fields);
    }
    fdx_status st = fdx_sb_status(&b, "the tuning file");
    if (st == FDX_OK) st = fdx_cache_store(key, ".tune", fdx_sb_str(&b), b.len);
    if (st != FDX_OK) {
        FDX_WARN("not saving stencil tuning: %s", fdx_last_error());
        fdx_clear_error();
    }
    fdx_sb_free(&b);
}
