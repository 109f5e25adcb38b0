/* fdx transform: one layout transform (a permutation of the axes, optionally
   into or out of a diagonal arrangement), verified and timed against the
   device copy bandwidth; also the case runner that `fdx bench transform` uses. */
#include "fdx/internal/json.h"
#include "transform_case.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *CMD = "transform";

fdx_status transform_case_make(transform_case *c, const char *name, size_t elem, int rank, const int64_t *shape,
                               const int *perm, fdx_diag diag, int undiag)
{
    memset(c, 0, sizeof *c);
    snprintf(c->name, sizeof c->name, "%s", name);
    FDX_CHECK(elem == 1 || elem == 2 || elem == 4 || elem == 8 || elem == 16, FDX_ERR_INVALID,
              "--elem %zu is not 1, 2, 4, 8 or 16", elem);
    FDX_TRY(fdx_shape_check(rank, shape, 1, elem));
    c->elem = elem;
    c->rank = rank;
    memcpy(c->shape, shape, sizeof(int64_t) * (size_t)rank);
    fdx_layout l, id;
    FDX_TRY(fdx_layout_make(rank, perm, diag, &l));
    FDX_TRY(fdx_layout_identity(rank, &id));
    c->from = undiag ? l : id;
    c->to = undiag ? id : l;
    return FDX_OK;
}

size_t transform_case_bytes(const transform_case *c)
{
    size_t n = c->elem;
    for (int a = 0; a < c->rank; a++) n *= (size_t)c->shape[a];
    return n;
}

fdx_status transform_cpu_ctx(fdx_ctx **out)
{
    fdx_options *o = NULL;
    FDX_TRY(fdx_options_create(&o));
    fdx_status st = fdx_options_set(o, "backend", "cpu");
    if (st == FDX_OK) st = fdx_ctx_create(o, out);
    fdx_options_destroy(&o);
    return st;
}

typedef struct timed {
    fdx_ctx *ctx;
    void *dst;
    const void *src;
    const transform_case *c;
} timed;

static fdx_status convert_once(void *arg, void *stream)
{
    timed *t = arg;
    return fdx_layout_convert(t->ctx, t->dst, &t->c->to, t->src, &t->c->from, t->c->elem, t->c->rank, t->c->shape,
                              stream);
}

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    return x ^ (x >> 33);
}

/* Random bytes, in parallel, reproducible: word i is mix(seed + i). */
static void fill_random(unsigned char *p, size_t bytes, uint64_t seed)
{
    int64_t words = (int64_t)(bytes / 8);
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < words; i++) {
        uint64_t v = mix(seed + (uint64_t)i);
        memcpy(p + (size_t)i * 8, &v, 8);
    }
    for (size_t i = (size_t)words * 8; i < bytes; i++) p[i] = (unsigned char)mix(seed ^ i);
}

/* Fills a host buffer with 0xA5, in parallel (up to 1 GiB per variant). */
static void poison(unsigned char *p, size_t bytes)
{
    const int64_t chunk = 1 << 20, n = (int64_t)((bytes + (size_t)chunk - 1) / (size_t)chunk);
#pragma omp parallel for schedule(static)
    for (int64_t i = 0; i < n; i++) {
        size_t lo = (size_t)(i * chunk), len = bytes - lo < (size_t)chunk ? bytes - lo : (size_t)chunk;
        memset(p + lo, 0xA5, len);
    }
}

static int64_t count_diff(const unsigned char *a, const unsigned char *b, size_t bytes, size_t elem)
{
    int64_t bad = 0, n = (int64_t)(bytes / elem);
#pragma omp parallel for reduction(+ : bad)
    for (int64_t i = 0; i < n; i++) bad += memcmp(a + (size_t)i * elem, b + (size_t)i * elem, elem) != 0;
    return bad;
}

/* Independent of every kernel: sampled points through the index function. */
static int64_t sample_check(const unsigned char *out, const unsigned char *plain, const transform_case *c)
{
    int64_t count = (int64_t)(transform_case_bytes(c) / c->elem), bad = 0;
    for (int s = 0; s < 100000; s++) {
        int64_t q = (int64_t)(mix(0x5eed + (uint64_t)s) % (uint64_t)count), r = q, idx[FDX_MAX_RANK];
        for (int a = 0; a < c->rank; a++) idx[a] = r % c->shape[a], r /= c->shape[a];
        int64_t o = fdx_layout_offset(&c->to, c->shape, idx);
        bad += memcmp(out + (size_t)o * c->elem, plain + (size_t)q * c->elem, c->elem) != 0;
    }
    return bad;
}

static const char *kind_of(const transform_case *c)
{
    if (c->from.diag != FDX_DIAG_NONE) return c->to.diag != FDX_DIAG_NONE ? "diag-diag" : "undiag";
    if (c->to.diag != FDX_DIAG_NONE) return "diag";
    return "permute";
}

static void fmt_shape(char *buf, size_t cap, const transform_case *c)
{
    int o = 0;
    for (int a = 0; a < c->rank; a++) o += snprintf(buf + o, cap - (size_t)o, "%s%lld", a ? "x" : "", (long long)c->shape[a]);
}

static void fmt_perm(char *buf, size_t cap, const fdx_layout *l)
{
    int o = 0;
    for (int a = 0; a < l->rank; a++) o += snprintf(buf + o, cap - (size_t)o, "%s%d", a ? "," : "", l->perm[a]);
}

static const char *precision_of(size_t elem)
{
    switch (elem) {
    case 1: return "uint8";
    case 2: return "uint16";
    case 4: return "float";
    case 8: return "double";
    default: return "bytes16";
    }
}

void transform_table_header(void)
{
    printf("%-22s %-20s %-12s %-5s %-4s %10s %9s %7s %7s %s\n", "case", "shape", "perm", "diag", "elem", "time ms",
           "GB/s", "ratio", "same", "verified");
}

static void report(const transform_case *c, const char *variant, fdx_ctx *ctx, const fdx_time_stats *t,
                   double copy_gbps, double same_gbps, int verified, int64_t bad, int json, fdx_status *st)
{
    double bytes = (double)transform_case_bytes(c), eff = fdx_effective_gbps(bytes, bytes, t->median_ms);
    const fdx_layout *l = c->to.diag != FDX_DIAG_NONE || c->from.diag == FDX_DIAG_NONE ? &c->to : &c->from;
    char shape[96], perm[32];
    fmt_shape(shape, sizeof shape, c);
    fmt_perm(perm, sizeof perm, l);
    if (!json) {
        printf("%-22s %-20s %-12s %-5s %-4zu %10.4f %9.1f %7.3f %7.3f %s%s%s\n", c->name, shape, perm,
               fdx_diag_name(l->diag), c->elem, t->median_ms, eff, eff / copy_gbps, eff / same_gbps,
               verified ? "yes" : "NO", variant ? "  " : "", variant ? variant : "");
        return;
    }
    fdx_json j;
    fdx_json_init(&j);
    fdx_json_record_head(&j, c->name, fdx_backend_kind_name(fdx_ctx_backend(ctx)),
                         fdx_ctx_device_name(ctx), precision_of(c->elem), c->rank, c->shape);
    fdx_json_int(&j, "elem_bytes", (int64_t)c->elem);
    fdx_json_begin_array(&j, "perm");
    for (int a = 0; a < c->rank; a++) fdx_json_int(&j, NULL, l->perm[a]);
    fdx_json_end_array(&j);
    fdx_json_str(&j, "diag", fdx_diag_name(l->diag));
    fdx_json_str(&j, "transform", kind_of(c));
    fdx_json_time_ms(&j, t);
    fdx_json_traffic(&j, "bytes", bytes, bytes, eff, copy_gbps);
    fdx_json_num(&j, "copy_same_size_gbps", same_gbps);
    fdx_json_num(&j, "ratio_same_size", eff / same_gbps);
    if (c->suite) {
        fdx_json_str(&j, "suite", c->suite);
        fdx_json_int(&j, "seed", c->seed);
    }
    if (variant) fdx_json_str(&j, "variant", variant);
    fdx_json_bool(&j, "verified", verified);
    fdx_json_num(&j, "max_abs_error", verified ? 0.0 : (double)NAN);
    fdx_json_int(&j, "mismatches", bad);
    *st = fdx_json_finish(&j, stdout);
}

/* One variant of a --variants list: its settings applied (save: the values
   they replace, restored by variant_restore), its length in *len. */
enum { VARIANT_SETTINGS = 8, VARIANT_CHARS = 160 };
typedef struct variant_env {
    int n;
    char name[VARIANT_SETTINGS][64];
    char *old[VARIANT_SETTINGS]; /* NULL: was unset */
} variant_env;

/* Parses the variant starting at v (up to ',' or the end) into settings;
   apply = 1 sets them.  Returns its length. */
static fdx_status variant_parse(const char *v, int apply, variant_env *e, size_t *len)
{
    size_t n = strcspn(v, ",");
    char buf[VARIANT_CHARS];
    FDX_CHECK(n > 0 && n < sizeof buf, FDX_ERR_INVALID, "--variants: an entry is empty or longer than %d characters",
              VARIANT_CHARS - 1);
    memcpy(buf, v, n);
    buf[n] = 0;
    *len = n;
    e->n = 0;
    if (strcmp(buf, "default") == 0) return FDX_OK;
    for (char *save = NULL, *kv = strtok_r(buf, "+", &save); kv; kv = strtok_r(NULL, "+", &save)) {
        char *eq = strchr(kv, '=');
        size_t kl = eq ? (size_t)(eq - kv) : 0;
        FDX_CHECK(eq && strncmp(kv, "FDX_", 4) == 0 && kl > 4 && kl < sizeof e->name[0] && e->n < VARIANT_SETTINGS,
                  FDX_ERR_INVALID, "--variants: '%s' is not 'default' or FDX_NAME=VALUE settings joined by '+'", kv);
        memcpy(e->name[e->n], kv, kl);
        e->name[e->n][kl] = 0;
        if (apply) {
            const char *old = getenv(e->name[e->n]);
            e->old[e->n] = old ? strdup(old) : NULL;
            setenv(e->name[e->n], eq + 1, 1);
        }
        e->n++;
    }
    return FDX_OK;
}

static void variant_restore(variant_env *e)
{
    for (int i = 0; i < e->n; i++) {
        if (e->old[i]) setenv(e->name[i], e->old[i], 1);
        else unsetenv(e->name[i]);
        free(e->old[i]);
        e->old[i] = NULL;
    }
    e->n = 0;
}

fdx_status transform_variants_check(const char *list)
{
    variant_env e;
    size_t len;
    int count = 0;
    for (const char *v = list;; v += len + 1) {
        FDX_TRY(variant_parse(v, 0, &e, &len));
        count++;
        if (!v[len]) break;
    }
    FDX_CHECK(count <= VARIANT_SETTINGS, FDX_ERR_INVALID, "--variants: %d entries, at most %d", count, VARIANT_SETTINGS);
    return FDX_OK;
}

/* Timed repetitions for an array of `bytes`: at least `reps`, and enough
   that about TIMED_SPAN_MS is timed at copy speed.  Why: a 1 MiB transform
   takes ~10 us, so 10 repetitions span 0.1 ms, and one slow stretch of the
   host or device covers all of them (H100, session 10 suite: rt1-106, 1.4
   MiB, measured 0.16 in one call and 0.45-1.24 in six others; the slow
   call's fastest repetition was 3x the others' median).  The same-size
   copy uses the same count.  GPU only: the CPU's transforms are slower
   than the estimate, and their timings are not this short. */
enum { TIMED_SPAN_MS = 2, TIMED_REPS_MAX = 1000 };
static int timed_reps(size_t bytes, int reps)
{
    const double est_ms = 2.0 * (double)bytes / 2.5e9 + 0.005; /* at 2.5 TB/s, plus a launch */
    const double want = TIMED_SPAN_MS / est_ms;
    return want > TIMED_REPS_MAX ? (reps > TIMED_REPS_MAX ? reps : TIMED_REPS_MAX) : want > reps ? (int)want + 1 : reps;
}

fdx_status transform_case_run(fdx_ctx *ctx, fdx_ctx *cpu, const transform_case *c, int reps, double copy_gbps,
                              int json, int *verified)
{
    size_t bytes = transform_case_bytes(c);
    int64_t n = (int64_t)bytes;
    unsigned char *plain = NULL, *out = NULL, *ref = NULL, *hsrc = NULL;
    fdx_array *src = NULL, *dst = NULL; /* the host buffers wrapped, with device copies of their own */
    fdx_layout id;
    fdx_layout_identity(c->rank, &id);
    int from_id = fdx_layout_is_identity(&c->from);
    fdx_status st;
    *verified = 0;
    plain = malloc(bytes), out = malloc(bytes), ref = malloc(bytes);
    FDX_TRY_GOTO(st, plain && out && ref ? FDX_OK : fdx_fail(FDX_ERR_NOMEM, "no host memory for 3 x %zu bytes", bytes),
                 done);
    fill_random(plain, bytes, 0x1234 + bytes);
    /* the source: plain data in layout `from`, made on the CPU */
    if (!from_id) {
        hsrc = malloc(bytes);
        FDX_TRY_GOTO(st, hsrc ? FDX_OK : fdx_fail(FDX_ERR_NOMEM, "no host memory for %zu bytes", bytes), done);
        FDX_TRY_GOTO(st, fdx_layout_convert(cpu, hsrc, &c->from, plain, &id, c->elem, c->rank, c->shape, NULL), done);
    }
    FDX_TRY_GOTO(st, fdx_layout_convert(cpu, ref, &c->to, plain, &id, c->elem, c->rank, c->shape, NULL), done);
    FDX_TRY_GOTO(st, fdx_array_wrap(ctx, FDX_UINT8, 1, &n, NULL, from_id ? plain : hsrc, NULL, 0, &src), done);
    FDX_TRY_GOTO(st, fdx_array_wrap(ctx, FDX_UINT8, 1, &n, NULL, out, NULL, 0, &dst), done);
    FDX_TRY_GOTO(st, fdx_array_to_device(src), done);
    /* dst's device copy exists only once written (CUDA): make it before its pointer is taken */
    FDX_TRY_GOTO(st, fdx_array_fill_device_bytes(dst, 0xFF), done);
    timed t = {ctx, fdx_array_device(dst), fdx_array_device(src), c};
    double same_gbps;
    if (fdx_ctx_backend(ctx) == FDX_BACKEND_CUDA) reps = timed_reps(bytes, reps);
    FDX_TRY_GOTO(st, fdx_copy_bandwidth(ctx, bytes, reps, NULL, &same_gbps), done);
    *verified = 1;
    /* each variant: poisoned output, one verified run, then the timing */
    size_t len = 0;
    for (const char *v = c->variants; st == FDX_OK; v += len + 1) {
        variant_env e = {0};
        char name[VARIANT_CHARS];
        if (v) {
            if ((st = variant_parse(v, 1, &e, &len)) != FDX_OK) {
                variant_restore(&e);
                goto done;
            }
            snprintf(name, sizeof name, "%.*s", (int)len, v);
        }
        poison(out, bytes); /* a result that never came back fails the check */
        fdx_time_stats ts;
        int64_t bad = 0;
        if ((st = fdx_array_fill_device_bytes(dst, 0xFF)) == FDX_OK && (st = convert_once(&t, NULL)) == FDX_OK &&
            (st = fdx_array_to_host(dst)) == FDX_OK) { /* waits for the context's stream */
            bad = count_diff(out, ref, bytes, c->elem) + sample_check(out, plain, c);
            st = fdx_time_run(ctx, convert_once, &t, 3, reps, &ts);
        }
        variant_restore(&e);
        if (st != FDX_OK) goto done;
        *verified &= bad == 0;
        report(c, v ? name : NULL, ctx, &ts, copy_gbps, same_gbps, bad == 0, bad, json, &st);
        if (!v || !v[len]) break;
    }
done:
    fdx_array_destroy(&src);
    fdx_array_destroy(&dst);
    free(plain), free(out), free(ref), free(hsrc);
    return st;
}

int cmd_transform(int argc, char **argv)
{
    const char *shape_s = NULL, *perm_s = NULL, *elem_s = "8", *diag_s = "none", *undiag = NULL, *reps_s = "20",
               *json = NULL;
    const cli_flag flags[] = {
        {"size", "N0xN1x...", "logical extents, first fastest, rank 1..6 (required)", &shape_s},
        {"perm", "P0,P1,...", "stored axis order of the result, fastest first [identity]", &perm_s},
        {"elem", "BYTES", "element size: 1, 2, 4, 8 or 16 [8]", &elem_s},
        {"diag", "D", "diagonal arrangement of the two fastest stored axes: none, main, anti [none]", &diag_s},
        {"undiag", NULL, "time the way back: from (perm, diag) to the plain layout", &undiag},
        {"reps", "N", "timed repetitions, median reported; on a GPU more for small arrays (about 2 ms timed, at most 1000) [20]", &reps_s},
        {"json", NULL, "print one JSON record instead of the table", &json},
        {NULL, NULL, NULL, NULL},
    };
    fdx_options *opts = NULL;
    int rc = cli_start(argc, argv, CMD,
                       "--size N0xN1x... [--perm P0,P1,...] [--elem 1|2|4|8|16] [--diag none|main|anti] [--undiag] "
                       "[--reps N] [--json]",
                       flags, &opts);
    fdx_ctx *ctx = NULL, *cpu = NULL;
    if (rc >= 0) goto done;
    int rank = 0, prank = 0, perm[FDX_MAX_RANK];
    int64_t shape[FDX_MAX_RANK];
    long elem, reps;
    fdx_diag diag;
    transform_case c;
    fdx_status st;
    if (!shape_s) {
        rc = cli_usage_error(CMD, "--size is required");
        goto done;
    }
    if ((st = cli_parse_shape(shape_s, 1, FDX_MAX_RANK, 1, &rank, shape)) != FDX_OK ||
        (perm_s && (st = fdx_perm_parse(perm_s, &prank, perm)) != FDX_OK) ||
        (perm_s && prank != rank &&
         (st = fdx_fail(FDX_ERR_INVALID, "--perm has %d axes but --size has rank %d", prank, rank)) != FDX_OK) ||
        (st = cli_parse_int("--elem", elem_s, 1, 16, &elem)) != FDX_OK ||
        (st = fdx_diag_parse(diag_s, &diag)) != FDX_OK || (st = cli_parse_int("--reps", reps_s, 1, 100000, &reps)) != FDX_OK ||
        (st = transform_case_make(&c, "transform", (size_t)elem, rank, shape, perm_s ? perm : NULL, diag, undiag != NULL)) !=
            FDX_OK) {
        rc = cli_usage_error(CMD, "%s", fdx_last_error());
        goto done;
    }
    if (undiag && diag == FDX_DIAG_NONE && !perm_s) {
        rc = cli_usage_error(CMD, "--undiag needs --diag main|anti or --perm");
        goto done;
    }
    if ((st = fdx_ctx_create(opts, &ctx)) != FDX_OK || (st = transform_cpu_ctx(&cpu)) != FDX_OK) {
        rc = cli_fail(CMD, st);
        goto done;
    }
    size_t bytes = transform_case_bytes(&c);
    if (bytes > fdx_ctx_memory(ctx) / 3 || bytes > fdx_ctx_memory(cpu) / 6) {
        char clip[64];
        rc = cli_usage_error(CMD, "--size %s needs %.2f GiB per buffer, too much for %s", cli_clip(shape_s, clip, sizeof clip),
                             (double)bytes / (1 << 30), fdx_ctx_device_name(ctx));
        goto done;
    }
    double copy_gbps;
    size_t probe = bytes < (256u << 20) ? (256u << 20) : bytes > (1u << 30) ? (1u << 30) : bytes;
    int verified = 0;
    if ((st = fdx_copy_bandwidth(ctx, probe, 20, NULL, &copy_gbps)) != FDX_OK) {
        rc = cli_fail(CMD, st);
        goto done;
    }
    if (!json) transform_table_header();
    if ((st = transform_case_run(ctx, cpu, &c, (int)reps, copy_gbps, json != NULL, &verified)) != FDX_OK) {
        rc = cli_fail(CMD, st);
        goto done;
    }
    if (!json) printf("copy bandwidth %.1f GB/s (%s)\n", copy_gbps, fdx_backend_kind_name(fdx_ctx_backend(ctx)));
    rc = verified ? CLI_OK : cli_verify_failed(CMD, "result failed verification");
done:
    fdx_ctx_destroy(&ctx);
    fdx_ctx_destroy(&cpu);
    fdx_options_destroy(&opts);
    return rc;
}
