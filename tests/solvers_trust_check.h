/* solvers_trust_check: the finiteness reduction's check, shared by
   test_solvers_trust (CPU) and test_solvers_trust_gpu (CUDA). */
#ifndef SOLVERS_TRUST_CHECK_H
#define SOLVERS_TRUST_CHECK_H

#include "backends/fdx_backend.h"
#include "fdx_test.h"
#include "solvers/fdx_fieldops.h"

/* The finiteness reduction finds the first NaN/Inf of random fields with
   0..3 poisoned points, float and double (the reference is a plain loop). */
static inline void first_nonfinite(fdx_ctx *on, const char *name)
{
    uint64_t seed = 0x5eed;
    const double poison[3] = {NAN, INFINITY, -INFINITY};
    for (int t = 0; t < 24; t++) {
        fdx_dtype type = t % 2 ? FDX_FLOAT64 : FDX_FLOAT32;
        int64_t shape[3] = {37 + t, 11 + t % 5, 1 + t % 3};
        int rank = t % 3 == 0 ? 2 : 3;
        fdx_array *a = NULL;
        CHECK_OK(fdx_array_create(on, type, rank, shape, FDX_ON_HOST | FDX_ON_DEVICE, &a));
        if (!a) return;
        int64_t n = fdx_array_count(a), want = INT64_MAX;
        void *h = fdx_array_host(a);
        for (int64_t i = 0; i < n; i++) {
            double v = 1e3 * fdx_test_rand(&seed);
            if (type == FDX_FLOAT64) ((double *)h)[i] = v;
            else ((float *)h)[i] = (float)v;
        }
        for (int k = 0; k < t % 4; k++) {
            int64_t i = (int64_t)((fdx_test_rand(&seed) + 1) * 0.5 * (double)n) % n;
            if (type == FDX_FLOAT64) ((double *)h)[i] = poison[k % 3];
            else ((float *)h)[i] = (float)poison[k % 3];
            if (i < want) want = i;
        }
        CHECK_OK(fdx_array_to_device(a));
        void *scratch = NULL;
        const fdx_backend *be = fdx_ctx_ops(on);
        CHECK_OK(be->alloc(8, &scratch));
        int64_t got = -7;
        CHECK_OK(fdx_fieldops_first_nonfinite(a, scratch, &got, NULL));
        CHECK(got == want, "%s: first non-finite %lld, expected %lld (case %d)", name, (long long)got,
              (long long)want, t);
        be->free(scratch);
        fdx_array_destroy(&a);
    }
}

#endif
