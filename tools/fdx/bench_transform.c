/* fdx bench transform: the layout engine's suite: five named permutations of
   float64 arrays >= 1 GiB, diagonalization both ways for Rx = Ry, Rx < Ry and
   Rx > Ry, and a seeded random suite of ranks 2..5 (extents with 1s and
   primes, arrays of about --mib MiB); every record carries the copy bandwidth
   measured right before its case (the host's probe moves by 30% between
   processes and within one), and --rounds repeats the whole selection so the
   ratios can be taken as a median in one process. */
#include "transform_case.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *CMD = "bench transform";

static uint64_t next(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1DULL;
}

/* A random rank-2..5 case of about `bytes`: all extents but one from a list
   with 1s and primes, the remaining one (random position) sized to fit, then
   a random permutation that is not the identity. */
static fdx_status random_case(transform_case *c, int i, size_t elem, size_t bytes, uint64_t *s)
{
    static const int64_t pick[] = {1, 2, 3, 5, 7, 11, 13, 17, 31, 37, 64, 97, 101, 127, 128, 251, 256, 509, 512};
    int rank = 2 + (int)(next(s) % 4), big = (int)(next(s) % (uint64_t)rank), perm[FDX_MAX_RANK];
    int64_t shape[FDX_MAX_RANK], rest = 1;
    for (int a = 0; a < rank; a++) {
        shape[a] = a == big ? 1 : pick[next(s) % (sizeof pick / sizeof pick[0])];
        rest *= shape[a];
    }
    int64_t want = (int64_t)(bytes / elem) / rest;
    shape[big] = want < 1 ? 1 : want | 1; /* odd: never a power of two */
    int id;
    do {
        id = 1;
        for (int a = 0; a < rank; a++) perm[a] = a;
        for (int a = rank - 1; a > 0; a--) {
            int b = (int)(next(s) % (uint64_t)(a + 1)), t = perm[a];
            perm[a] = perm[b], perm[b] = t;
        }
        for (int a = 0; a < rank; a++) id &= perm[a] == a;
    } while (id);
    char name[32];
    snprintf(name, sizeof name, "random-%02d", i);
    return transform_case_make(c, name, elem, rank, shape, perm, FDX_DIAG_NONE, 0);
}

/* The random-transform suite (issue 22): the space, not the named points.
   Rank 2..6, element 1..16 bytes, total size log-uniform in 1 MiB..1 GiB,
   extents log-uniform from 3 up, each then made a prime, a power of two or
   left as drawn, and the permutation classes in turn: fastest axis kept,
   fastest axis moved, full reversal, uniformly random. */
static int64_t next_prime(int64_t n)
{
    if (n <= 2) return 2;
    for (n |= 1;; n += 2) {
        int prime = 1;
        for (int64_t d = 3; d * d <= n && prime; d += 2) prime = n % d != 0;
        if (prime) return n;
    }
}

static double uniform(uint64_t *s) { return (double)(next(s) >> 11) * (1.0 / 9007199254740992.0); }

static fdx_status space_case(transform_case *c, int i, long seed, uint64_t *s)
{
    static const size_t elems[] = {1, 2, 4, 8, 16};
    const int rank = 2 + (int)(next(s) % 5);
    const size_t elem = elems[next(s) % 5];
    const double bytes = pow(2.0, 20 + 10 * uniform(s));
    double drawn[FDX_MAX_RANK], prod = 1;
    for (int a = 0; a < rank; a++) prod *= drawn[a] = 3 * pow(1000.0, uniform(s));
    const double scale = pow(bytes / (double)elem / prod, 1.0 / rank);
    int64_t shape[FDX_MAX_RANK];
    for (int a = 0; a < rank; a++) {
        int64_t e = (int64_t)(drawn[a] * scale + 0.5);
        if (e < 3) e = 3;
        switch (next(s) % 3) {
        case 0: e = next_prime(e); break;
        case 1: e = (int64_t)1 << (int)(log2((double)e) + 0.5); break;
        default: break;
        }
        shape[a] = e < 3 ? 4 : e;
    }
    /* rounding to primes and powers of two may leave 1 MiB..1 GiB: halve the
       largest or double the smallest extent until it fits */
    for (;;) {
        double total = (double)elem;
        int big = 0, small = 0;
        for (int a = 0; a < rank; a++) {
            total *= (double)shape[a];
            if (shape[a] > shape[big]) big = a;
            if (shape[a] < shape[small]) small = a;
        }
        if (total > (double)(1 << 30) && shape[big] >= 6) shape[big] /= 2;
        else if (total < (double)(1 << 20)) shape[small] *= 2;
        else break;
    }
    int perm[FDX_MAX_RANK], cls = i % 4, id;
    do {
        for (int a = 0; a < rank; a++) perm[a] = a;
        if (cls == 2) {
            for (int a = 0; a < rank; a++) perm[a] = rank - 1 - a;
        } else {
            for (int a = rank - 1; a > 0; a--) {
                int b = (int)(next(s) % (uint64_t)(a + 1)), t = perm[a];
                perm[a] = perm[b], perm[b] = t;
            }
            if (cls == 0 && rank > 2) { /* keep the fastest axis in place */
                for (int a = 0; a < rank; a++)
                    if (perm[a] == 0) perm[a] = perm[0];
                perm[0] = 0;
            }
        }
        id = 1;
        for (int a = 0; a < rank; a++) id &= perm[a] == a;
        if (cls == 1 && perm[0] == 0) id = 1; /* the fastest axis must move */
    } while (id);
    char name[32];
    snprintf(name, sizeof name, "rt%ld-%03d", seed, i);
    FDX_TRY(transform_case_make(c, name, elem, rank, shape, perm, FDX_DIAG_NONE, 0));
    c->suite = "random-transform";
    c->seed = seed;
    return FDX_OK;
}

/* --only: prefixes joined by ',' ("random" selects the suite; "rt1-120,rt1-171"
   two cases of it); an empty prefix selects nothing. */
static int wanted(const char *only, const char *name)
{
    if (!only) return 1;
    for (const char *p = only;; p++) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n && strncmp(p, name, n) == 0) return 1;
        if (!end) return 0;
        p = end;
    }
}

int bench_transform(int argc, char **argv)
{
    const char *json = NULL, *reps_s = "20", *seed_s = "1", *count_s = NULL, *mib_s = NULL, *only = NULL,
               *elem_s = NULL, *rounds_s = "1", *suite = "named", *list = NULL, *variants = NULL;
    const cli_flag flags[] = {
        {"suite", "S", "named: the named cases, diagonals and the fixed-size random cases; random: the space "
                       "(rank 2-6, elements 1-16 B, 1 MiB-1 GiB, primes) [named]", &suite},
        {"reps", "N", "timed repetitions per case, median reported; on a GPU more for small arrays (about 2 ms timed, at most 1000) [20]", &reps_s},
        {"seed", "N", "seed of the random cases [1]", &seed_s},
        {"count", "N", "random cases [20 named, 200 random]", &count_s},
        {"mib", "N", "size of each fixed-size random case in MiB (named suite) [512]", &mib_s},
        {"elem", "BYTES", "element size of the fixed-size random cases: 1, 2, 4, 8, 16 (named suite) [8]", &elem_s},
        {"only", "PREFIX[,PREFIX]", "run only the cases whose name starts with one of these prefixes", &only},
        {"rounds", "N", "run the selected cases N times over, one record each time [1]", &rounds_s},
        {"variants", "V,V", "time each case under these settings on the same data, each verified: 'default' or "
                            "FDX_NAME=VALUE joined by '+' (measurement A/B; records carry \"variant\")", &variants},
        {"json", NULL, "one JSON record per case (JSON Lines)", &json},
        {"list", NULL, "list the selected cases (name, shape, perm, element bytes, MiB) and exit", &list},
        {NULL, NULL, NULL, NULL},
    };
    fdx_options *opts = NULL;
    int rc = cli_start(argc, argv, CMD, "[--suite named|random] [--reps N] [--seed N] [--count N] [--mib N] [--elem B] [--only PREFIX[,PREFIX]] "
                       "[--rounds N] [--variants V,V] [--json] [--list]",
                       flags, &opts);
    fdx_ctx *ctx = NULL, *cpu = NULL;
    if (rc >= 0) goto done;
    long reps, seed, count, mib, elem, rounds;
    fdx_status st;
    static const char *const suites[] = {"named", "random"};
    int space; /* the random suite */
    if ((st = cli_parse_choice("--suite", suite, suites, 2, &space)) != FDX_OK) {
        rc = cli_usage_error(CMD, "%s", fdx_last_error());
        goto done;
    }
    if (space && (mib_s || elem_s)) {
        rc = cli_usage_error(CMD, "--%s sets the fixed-size random cases of the named suite: it has no effect with "
                                  "--suite random", mib_s ? "mib" : "elem");
        goto done;
    }
    if (variants && (st = transform_variants_check(variants)) != FDX_OK) {
        rc = cli_usage_error(CMD, "%s", fdx_last_error());
        goto done;
    }
    if (!count_s) count_s = space ? "200" : "20";
    if (!mib_s) mib_s = "512";
    if (!elem_s) elem_s = "8";
    if ((st = cli_parse_int("--reps", reps_s, 1, 100000, &reps)) != FDX_OK ||
        (st = cli_parse_int("--seed", seed_s, 0, 1L << 30, &seed)) != FDX_OK ||
        (st = cli_parse_int("--count", count_s, 0, 1000, &count)) != FDX_OK ||
        (st = cli_parse_int("--mib", mib_s, 1, 1 << 16, &mib)) != FDX_OK ||
        (st = cli_parse_int("--elem", elem_s, 1, 16, &elem)) != FDX_OK ||
        (st = cli_parse_int("--rounds", rounds_s, 1, 1000, &rounds)) != FDX_OK) {
        rc = cli_usage_error(CMD, "%s", fdx_last_error());
        goto done;
    }
    /* every case, named and random, built (and checked) before anything runs */
    enum { MAXC = 1040 };
    static transform_case cases[MAXC];
    int n = 0;
    const int64_t aos[4] = {5, 304, 304, 304}, cube[3] = {512, 512, 512}, mat[2] = {16384, 8192};
    const int p_aos[4] = {1, 2, 3, 0}, p_rev[3] = {2, 1, 0}, p_fast[3] = {1, 0, 2}, p_slow[3] = {0, 2, 1},
              p_t[2] = {1, 0};
    uint64_t s = 0x9E3779B97F4A7C15ULL ^ (uint64_t)seed;
    if (space) {
        for (int i = 0; i < count; i++)
            if ((st = space_case(&cases[n++], i, seed, &s)) != FDX_OK) {
                rc = cli_usage_error(CMD, "%s", fdx_last_error());
                goto done;
            }
        goto built;
    }
    transform_case_make(&cases[n++], "aos-to-soa", 8, 4, aos, p_aos, FDX_DIAG_NONE, 0);
    transform_case_make(&cases[n++], "3d-reverse", 8, 3, cube, p_rev, FDX_DIAG_NONE, 0);
    transform_case_make(&cases[n++], "swap-fastest", 8, 3, cube, p_fast, FDX_DIAG_NONE, 0);
    transform_case_make(&cases[n++], "swap-slowest", 8, 3, cube, p_slow, FDX_DIAG_NONE, 0);
    transform_case_make(&cases[n++], "2d-transpose", 8, 2, mat, p_t, FDX_DIAG_NONE, 0);
    static const int64_t planes[3][3] = {{512, 512, 512}, {256, 1024, 512}, {1024, 256, 512}};
    static const char *aspect[3] = {"eq", "lt", "gt"}; /* Rx = Ry, Rx < Ry, Rx > Ry */
    for (int undiag = 0; undiag < 2; undiag++)
        for (int d = FDX_DIAG_MAIN; d <= FDX_DIAG_ANTI; d++)
            for (int a = 0; a < 3; a++) {
                char name[40];
                snprintf(name, sizeof name, "%s-%s-%s", undiag ? "undiag" : "diag", fdx_diag_name((fdx_diag)d), aspect[a]);
                transform_case_make(&cases[n++], name, 8, 3, planes[a], NULL, (fdx_diag)d, undiag);
            }
    for (int i = 0; i < count; i++)
        if ((st = random_case(&cases[n++], i, (size_t)elem, (size_t)mib << 20, &s)) != FDX_OK) {
            rc = cli_usage_error(CMD, "%s", fdx_last_error());
            goto done;
        }
built:;
    for (int i = 0; i < n; i++) cases[i].variants = variants;
    int selected = 0;
    for (int i = 0; i < n; i++) selected += wanted(only, cases[i].name);
    if (only && (!only[0] || !selected)) {
        char clip[64];
        rc = cli_usage_error(CMD, "--only '%s' selects no case (names: aos-to-soa, 3d-reverse, swap-fastest, "
                                  "swap-slowest, 2d-transpose, diag-*, undiag-*, random-*; rtSEED-* with --suite random)",
                             cli_clip(only, clip, sizeof clip));
        goto done;
    }
    if (list) {
        for (int i = 0; i < n; i++) {
            if (!wanted(only, cases[i].name)) continue;
            const fdx_layout *l = cases[i].to.diag != FDX_DIAG_NONE || cases[i].from.diag == FDX_DIAG_NONE ? &cases[i].to
                                                                                                        : &cases[i].from;
            printf("%-16s ", cases[i].name);
            for (int a = 0; a < cases[i].rank; a++) printf("%s%lld", a ? "x" : "", (long long)cases[i].shape[a]);
            printf("  perm ");
            for (int a = 0; a < cases[i].rank; a++) printf("%s%d", a ? "," : "", l->perm[a]);
            printf("  elem %zu  %.1f MiB\n", cases[i].elem, (double)transform_case_bytes(&cases[i]) / (1 << 20));
        }
        rc = CLI_OK;
        goto done;
    }
    if ((st = fdx_ctx_create(opts, &ctx)) != FDX_OK || (st = transform_cpu_ctx(&cpu)) != FDX_OK) {
        rc = cli_fail(CMD, st);
        goto done;
    }
    if (!json) {
        printf("fdx bench transform on %s (%s): ratios to a 1 GiB copy measured before each case\n",
               fdx_ctx_device_name(ctx), fdx_backend_kind_name(fdx_ctx_backend(ctx)));
        transform_table_header();
    }
    rc = CLI_OK;
    for (int i = 0; i < n * (int)rounds; i++) {
        const transform_case *c = &cases[i % n];
        if (!wanted(only, c->name)) continue;
        int verified;
        if (transform_case_bytes(c) > fdx_ctx_memory(ctx) / 3) continue; /* the CPU: smaller machine */
        double copy_gbps;
        if ((st = fdx_copy_bandwidth(ctx, (size_t)1 << 30, 20, NULL, &copy_gbps)) != FDX_OK ||
            (st = transform_case_run(ctx, cpu, c, (int)reps, copy_gbps, json != NULL, &verified)) != FDX_OK) {
            rc = cli_fail(CMD, st);
            goto done;
        }
        fflush(stdout);
        if (!verified) rc = cli_verify_failed(CMD, "case %s failed verification", c->name);
    }
done:
    fdx_ctx_destroy(&ctx);
    fdx_ctx_destroy(&cpu);
    fdx_options_destroy(&opts);
    return rc;
}
