/* fdx_test: a minimal test harness: CHECK records failures and carries on,
   the test's main returns fdx_test_finish() (0 pass, 1 fail, 77 skipped). */
#ifndef FDX_TEST_H
#define FDX_TEST_H

#include "fdx.h"
#include "fdx/internal/test_hooks.h" /* the tests' switches: forced configurations, faults */

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fdx_test_failures, fdx_test_checks;

#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        fdx_test_checks++;                                                     \
        if (!(cond)) {                                                         \
            fdx_test_failures++;                                               \
            fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                      \
            fprintf(stderr, "\n");                                             \
        }                                                                      \
    } while (0)

/* An fdx call that must succeed; prints the library's message otherwise. */
#define CHECK_OK(call)                                                         \
    do {                                                                       \
        fdx_status st_ = (call);                                               \
        CHECK(st_ == FDX_OK, "%s -> %s: %s", #call, fdx_strerror(st_), fdx_last_error()); \
    } while (0)

/* A call that must fail with `status` and leave a non-empty message. */
#define CHECK_FAILS(call, status)                                              \
    do {                                                                       \
        fdx_clear_error();                                                     \
        fdx_status st_ = (call);                                               \
        CHECK(st_ == (status), "%s returned %s, expected %s", #call, fdx_strerror(st_), fdx_strerror(status)); \
        CHECK(fdx_last_error()[0] != '\0', "%s left no message", #call);       \
    } while (0)

static inline int fdx_test_finish(const char *name)
{
    printf("%s: %d checks, %d failed\n", name, fdx_test_checks, fdx_test_failures);
    return fdx_test_failures ? 1 : 0;
}

static inline int fdx_test_skip(const char *name, const char *why)
{
    printf("%s: skipped: %s\n", name, why);
    return 77;
}

/* Case sampling for the big case matrices: every `every`-th case by a
   running counter (pick `every` coprime to the inner loops' lengths so the
   kept cases rotate over every axis), all of them under FDX_TEST_FULL=1.
   Keeps CI's cold-cache runs short; the full matrix runs on request. */
static inline int fdx_test_sampled(unsigned *counter, unsigned every)
{
    const char *full = getenv("FDX_TEST_FULL");
    return (full && strcmp(full, "1") == 0) || (*counter)++ % every == 0;
}

/* Deterministic random numbers in [-1, 1) (xorshift64*), seeded per test. */
static inline double fdx_test_rand(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return (double)((*s * 0x2545F4914F6CDD1DULL) >> 11) * (2.0 / 9007199254740992.0) - 1.0;
}

/* A context on the given backend, or NULL (caller skips) when unavailable. */
static inline fdx_ctx *fdx_test_ctx(const char *backend)
{
    fdx_options *o = NULL;
    fdx_ctx *c = NULL;
    if (fdx_options_create(&o) != FDX_OK) return NULL;
    if (fdx_options_set(o, "backend", backend) == FDX_OK) fdx_ctx_create(o, &c);
    fdx_options_destroy(&o);
    return c;
}

#endif
