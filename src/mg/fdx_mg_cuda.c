/* fdx_mg_cuda: the multigrid solver's kernels table on CUDA: the launchers
   of fdx_mg_gpu.cu, each launch checked (the first error is kept and
   reported by status()), reductions through one device double per level
   whose value is the only thing copied back. */
#include "backends/cuda/fdx_cuda.h"
#include "core/fdx_knob.h"
#include "core/fdx_log.h"
#include "mg/fdx_mg_gpu.h"
#include "mg/fdx_mg_impl.h"

#include <cuda_runtime_api.h>
#include <stdlib.h>
#include <string.h>

static __thread cudaError_t first_error = cudaSuccess;
static __thread const char *first_call = NULL;

static void note(int err, const char *call)
{
    if (err != cudaSuccess && first_error == cudaSuccess) {
        first_error = (cudaError_t)err;
        first_call = call;
    }
}

#define LAUNCH(call) note((call), #call)

/* Waits for the launch stream (so a solve's time includes its kernels,
   and a fault in one surfaces here), then reports the first error. */
static fdx_status status(void)
{
    note(cudaStreamSynchronize((cudaStream_t)mg_gpu_stream()), "cudaStreamSynchronize");
    if (first_error == cudaSuccess) return FDX_OK;
    cudaError_t e = first_error;
    first_error = cudaSuccess;
    return fdx_fail(FDX_ERR_CUDA, "multigrid: %s: %s", first_call, cudaGetErrorString(e));
}

static mg_geom geom(const mg_level *L)
{
    mg_geom g;
    for (int a = 0; a < 3; a++) {
        g.lo[a] = L->lo[a];
        g.hi[a] = L->hi[a];
        g.m[a] = L->m[a];
        g.c[a] = L->c[a];
    }
    g.sy = L->sy;
    g.sz = L->sz;
    g.count = L->count;
    g.diag = L->diag;
    g.k = L->dk;
    return g;
}

static mg_gpu_tr tr(const mg_transfer *t)
{
    mg_gpu_tr d = {t->i0, t->i1, t->ptr, t->idx, t->b0, t->w0, t->w1, t->w, t->bw};
    return d;
}

/* The level's reduction scalar, zeroed; read back after the kernel. */
static double *sum_begin(const mg_level *L)
{
    note(cudaMemsetAsync(L->dsum, 0, sizeof(double), (cudaStream_t)mg_gpu_stream()), "cudaMemsetAsync(sum)");
    return L->dsum;
}

static double sum_end(const mg_level *L)
{
    double v = 0;
    note(cudaMemcpy(&v, L->dsum, sizeof(double), cudaMemcpyDeviceToHost), "cudaMemcpy(sum)");
    return v;
}

static void ghost_planes(const mg_level *L, double *a, int axis, int64_t src_lo, int64_t src_hi)
{
    LAUNCH(mg_gpu_ghost_planes(geom(L), a, axis, (long long)src_lo, (long long)src_hi));
}

static void ghosts(const fdx_solver *s, const mg_level *L, double *a) { mg_ghosts_by(s, L, a, ghost_planes); }

static void residual(const mg_level *L, const double *u, const double *f, double *r)
{
    LAUNCH(mg_gpu_residual(geom(L), u, f, r, NULL));
}

void mg_cuda_resnorm2_launch(const mg_level *L, const double *u, const double *f)
{
    LAUNCH(mg_gpu_residual(geom(L), u, f, NULL, sum_begin(L)));
}

double mg_cuda_sum_read(const mg_level *L) { return sum_end(L); }

static double resnorm2(const mg_level *L, const double *u, const double *f)
{
    mg_cuda_resnorm2_launch(L, u, f);
    return sum_end(L);
}

static double residual4(const mg_level *L, const double *u, const double *f, double *r)
{
    LAUNCH(mg_gpu_residual4(geom(L), u, f, r, sum_begin(L)));
    return sum_end(L);
}

static double apply(const mg_level *L, const double *p, double *q)
{
    LAUNCH(mg_gpu_apply(geom(L), p, q, sum_begin(L)));
    return sum_end(L);
}

static void jacobi(const mg_level *L, const double *u, const double *f, double *out, double omega)
{
    LAUNCH(mg_gpu_jacobi(geom(L), u, f, out, omega));
}

static void gs_color(const mg_level *L, double *u, const double *f, int color)
{
    LAUNCH(mg_gpu_gs_color(geom(L), u, f, color));
}

static void gs_sweep(const mg_level *L, double *u, const double *f, int first)
{
    gs_color(L, u, f, first);
    gs_color(L, u, f, 1 - first);
}

/* Planes a block of the z-marching sweep owns: FDX_MG_ZCHUNK, else 0
   (the launcher chooses). */
static long long zchunk(void)
{
    const char *v = fdx_knob(FDX_KNOB_MG_ZCHUNK);
    const long long zc = v ? atoll(v) : 0;
    return zc > 0 ? zc : 0;
}

static void gs_sweep2(const mg_level *L, const double *u, const double *f, double *out, int first)
{
    if (L->gs2 == MG_GS2_Z) {
        const mg_gpu_tr none = {0};
        LAUNCH(mg_gpu_gs_zsweep(geom(L), NULL, u, f, out, first, zchunk(), geom(L), none, none, none, NULL, NULL));
        return;
    }
    LAUNCH(mg_gpu_gs_sweep2(geom(L), u, f, out, first));
}

static void gs_sweep2_box(const mg_level *L, const double *u, const double *f, double *out, int first,
                          const int64_t *lo, const int64_t *hi)
{
    mg_box ob;
    for (int a = 0; a < 3; a++) {
        ob.lo[a] = lo[a], ob.hi[a] = hi[a];
        if (hi[a] <= lo[a]) return; /* an empty box: no launch */
    }
    const mg_gpu_tr none = {0};
    LAUNCH(mg_gpu_gs_zsweep(geom(L), &ob, u, f, out, first, zchunk(), geom(L), none, none, none, NULL, NULL));
}

static void gs_sweep2p(const mg_level *F, const mg_level *C, const double *uc, const double *u, const double *f,
                       double *out, int first)
{
    LAUNCH(mg_gpu_gs_zsweep(geom(F), NULL, u, f, out, first, zchunk(), geom(C), tr(&F->dtr[0]), tr(&F->dtr[1]),
                            tr(&F->dtr[2]), uc, NULL));
}

static double gs_sweep2_norm(const mg_level *L, const double *u, const double *f, double *out, int first)
{
    const mg_gpu_tr none = {0};
    LAUNCH(mg_gpu_gs_zsweep(geom(L), NULL, u, f, out, first, zchunk(), geom(L), none, none, none, NULL, sum_begin(L)));
    return sum_end(L);
}

static void cheby(const mg_level *L, const double *u, const double *f, double *d, double *out, double alpha,
                  double beta)
{
    LAUNCH(mg_gpu_cheby(geom(L), u, f, d, out, alpha, beta));
}

static void restrict_(const fdx_solver *s, const mg_level *F, const mg_level *C, const double *rf, double *fc)
{
    (void)s;
    LAUNCH(mg_gpu_restrict(geom(F), geom(C), tr(&F->dtr[0]), tr(&F->dtr[1]), tr(&F->dtr[2]), rf, fc));
}

/* Every tile of r coarse unknowns of an axis (from lo) gathers a window of
   at most w fine points (the plane-marching kernel's shared window). */
static int rr_fits(const mg_transfer *t, int64_t lo, int64_t hi, int64_t r, int64_t w)
{
    for (int64_t a = lo; a < hi; a += r) {
        const int64_t b = a + r < hi ? a + r : hi;
        if (t->idx[t->ptr[b] - 1] + 1 - t->idx[t->ptr[a]] > w) return 0;
    }
    return 1;
}

static void resrestrict(const fdx_solver *s, const mg_level *F, const mg_level *C, const double *u, const double *f,
                        double *fc)
{
    /* fine planes marched under tiles of coarse points (each residual
       computed once) where rows ascend without folding: every axis
       Dirichlet */
    int planes = !fdx_knob_is(FDX_KNOB_MG_RR, "0") && rr_fits(&F->tr[0], C->lo[0], C->hi[0], MG_RR_X, MG_RR_WX) &&
                 rr_fits(&F->tr[1], C->lo[1], C->hi[1], MG_RR_Y, MG_RR_WY);
    for (int a = 0; a < s->rank; a++)
        if (s->bc[a] != FDX_BC_DIRICHLET) planes = 0;
    if (planes) {
        LAUNCH(mg_gpu_resrestrict_planes(geom(F), geom(C), tr(&F->dtr[0]), tr(&F->dtr[1]), tr(&F->dtr[2]), u, f, fc, 0));
        return;
    }
    LAUNCH(mg_gpu_resrestrict(geom(F), geom(C), tr(&F->dtr[0]), tr(&F->dtr[1]), tr(&F->dtr[2]), u, f, fc));
}

static void prolong(const mg_level *F, const mg_level *C, const double *uc, double *uf, int add)
{
    LAUNCH(mg_gpu_prolong(geom(F), geom(C), tr(&F->dtr[0]), tr(&F->dtr[1]), tr(&F->dtr[2]), uc, uf, add));
}

static void inject(const fdx_solver *s, const mg_level *F, const mg_level *C, const double *uf, double *uc)
{
    unsigned dirichlet = 0;
    for (int a = 0; a < s->rank; a++)
        if (s->bc[a] == FDX_BC_DIRICHLET) dirichlet |= 1u << a;
    LAUNCH(mg_gpu_inject(geom(F), geom(C), tr(&F->dtr[0]), tr(&F->dtr[1]), tr(&F->dtr[2]), dirichlet, uf, uc));
}

static void zero(const mg_level *L, double *a) { LAUNCH(mg_gpu_fill(L->count, a, 0.0)); }

static void copy(const mg_level *L, double *dst, const double *src)
{
    note(cudaMemcpyAsync(dst, src, (size_t)L->count * sizeof(double), cudaMemcpyDeviceToDevice,
                         (cudaStream_t)mg_gpu_stream()),
         "cudaMemcpyAsync(level)");
}

static double dot(const mg_level *L, const double *a, const double *b)
{
    LAUNCH(mg_gpu_dot(geom(L), a, b, sum_begin(L)));
    return sum_end(L);
}

static void shift(const mg_level *L, double *a, double v) { LAUNCH(mg_gpu_shift(geom(L), a, v)); }

static double cg_update(const mg_level *L, double *x, const double *p, double *r, const double *q, double alpha)
{
    LAUNCH(mg_gpu_cg_update(geom(L), x, p, r, q, alpha, sum_begin(L)));
    return sum_end(L);
}

static void cg_direction(const mg_level *L, double *p, const double *z, double beta)
{
    LAUNCH(mg_gpu_cg_direction(geom(L), p, z, beta));
}

static void coarse(fdx_solver *s, mg_level *L)
{
    LAUNCH(mg_gpu_coarse((int)s->chol_n, s->d_chol, s->d_chol_map, L->t, L->u));
}

static void copy_box(const mg_level *L, const int64_t *off, const int64_t *lo, const int64_t *hi, int64_t nx,
                     int64_t ny, const double *src, double *dst, int to_user)
{
    long long o[3], l[3], h[3];
    for (int a = 0; a < 3; a++) {
        o[a] = off[a], l[a] = lo[a], h[a] = hi[a];
        if (h[a] <= l[a]) return; /* an empty box: no launch (a grid of 0 blocks is an error) */
    }
    LAUNCH(mg_gpu_copy_user(geom(L), o, l, h, nx, ny, src, dst, to_user));
}

static void copy_user(const fdx_solver *s, const double *src, double *dst, int to_user, int whole)
{
    int64_t off[3], lo[3], hi[3];
    mg_user_box(&s->lev[0], whole, off, lo, hi);
    copy_box(&s->lev[0], off, lo, hi, s->shape[0], s->shape[1], src, dst, to_user);
}

void mg_cuda_graph_free(fdx_solver *s)
{
    for (int k = 0; k < 3; k++) {
        if (s->graph[k]) cudaGraphExecDestroy((cudaGraphExec_t)s->graph[k]);
        s->graph[k] = NULL;
    }
}

static uint64_t state_of(const fdx_solver *s, const mg_graph_hooks *h, int l) { return h->state ? h->state(s, l) : 0; }

/* Whether every level's u and t (and the hooks' state) are where they
   were when graph k was captured (the graph reads and writes those
   buffers). */
static int graph_buffers_match(const fdx_solver *s, const mg_graph_hooks *h, int k)
{
    for (int l = 0; l < s->nlev; l++)
        if (s->lev[l].u != s->graph_in[k][l][0] || s->lev[l].t != s->graph_in[k][l][1] ||
            state_of(s, h, l) != s->graph_state_in[k][l])
            return 0;
    return 1;
}

/* The levels' buffers and state as graph k left them (out) or found them. */
static void graph_put_back(fdx_solver *s, const mg_graph_hooks *h, int k, int out)
{
    for (int l = 0; l < s->nlev; l++) {
        s->lev[l].u = out ? s->graph_out[k][l][0] : s->graph_in[k][l][0];
        s->lev[l].t = out ? s->graph_out[k][l][1] : s->graph_in[k][l][1];
        if (h->set_state) h->set_state(s, l, out ? s->graph_state_out[k][l] : s->graph_state_in[k][l]);
    }
}

/* One cycle on level 0 as a CUDA graph: captured on first use (per cycle
   kind, and with or without the first sweep of level 0, which the
   convergence check may have run) and replayed, so the coarse levels'
   dozens of small launches cost one launch.  Red-black GS only (Jacobi and
   Chebyshev swap buffers every sweep).  Out-of-place red-black sweeps swap
   u and t: a graph keeps the buffers it was captured with, so it replays
   only when they are in the same places again (else it is captured anew)
   and leaves them as the capture did.  Each level must swap an even number
   of times a solver iteration (pre + post even; with the first sweep in
   the convergence check, level 0 swaps an odd number of times in the graph
   and once more in the check).  The hooks extend this to work forked over
   several streams (a distributed solver's units) and to host state beside
   the buffers.  FDX_MG_GRAPH=0 turns it off; any capture error falls back
   to plain launches for this solver. */
/* The graph slot of cycle c: 0, 1 (skip_pre0), 2 (full multigrid). */
static int graph_slot(const fdx_solver *s, fdx_solver_cycle c) { return c == FDX_CYCLE_FMG ? 2 : s->skip_pre0 ? 1 : 0; }

static int graph_wanted(const fdx_solver *s, int k)
{
    return s->smoother == FDX_SMOOTH_RBGS && !fdx_knob_is(FDX_KNOB_MG_GRAPH, "0") &&
           s->graph_kind[k] != (fdx_solver_cycle)-1 && !(s->gs2 && (s->pre + s->post) % 2);
}

int mg_cuda_graph_cycle(fdx_solver *s, fdx_solver_cycle c, const mg_graph_hooks *h)
{
    const int k = graph_slot(s, c);
    if (!graph_wanted(s, k)) return 0;
    /* a graph replays what its capture did from the state it was captured
       in: the first cycles of a solve (after FMG, or after CG's update)
       would otherwise differ from the later ones and be captured anew */
    if (h->settle) h->settle(s);
    cudaStream_t st = (cudaStream_t)h->origin;
    if (s->graph[k] && s->graph_kind[k] == c && graph_buffers_match(s, h, k)) {
        graph_put_back(s, h, k, 1);
    } else {
        /* FDX_LOG=debug: each capture (a solve should capture a graph once:
           more is a state that differs from cycle to cycle) */
        FDX_DEBUG("multigrid: capturing the CUDA graph of a %s cycle (slot %d%s)", fdx_solver_cycle_name(c), k,
                  s->graph[k] ? ", replacing one whose buffers or state differ" : "");
        if (s->graph[k]) cudaGraphExecDestroy((cudaGraphExec_t)s->graph[k]);
        s->graph[k] = NULL;
        for (int l = 0; l < s->nlev; l++) {
            s->graph_in[k][l][0] = s->lev[l].u, s->graph_in[k][l][1] = s->lev[l].t;
            s->graph_state_in[k][l] = state_of(s, h, l);
        }
        note(cudaStreamSynchronize(st), "cudaStreamSynchronize");
        const cudaError_t before = first_error;
        const char *before_call = first_call;
        cudaGraph_t g = NULL;
        cudaGraphExec_t exec = NULL;
        const double work0 = s->work;
        if (cudaStreamBeginCapture(st, h->relaxed ? cudaStreamCaptureModeRelaxed : cudaStreamCaptureModeThreadLocal) !=
            cudaSuccess) {
            (void)cudaGetLastError();
            return 0;
        }
        if (h->fork) h->fork(s);
        if (c == FDX_CYCLE_FMG)
            mg_fmg(s);
        else
            mg_cycle(s, 0, c);
        if (h->join) h->join(s);
        cudaError_t e = cudaStreamEndCapture(st, &g);
        const int failed = h->failed && h->failed(s); /* asked (and cleared) whatever e is */
        if (e == cudaSuccess && failed) e = cudaErrorStreamCaptureInvalidated;
        if (e == cudaSuccess && first_error != before) e = first_error;
        if (e == cudaSuccess) e = cudaGraphInstantiate(&exec, g, 0);
        if (g) cudaGraphDestroy(g);
        s->graph_work[k] = s->work - work0; /* the capture ran nothing */
        s->work = work0;
        if (e != cudaSuccess) {
            (void)cudaGetLastError();
            FDX_WARN("multigrid: the cycle's CUDA graph: %s; plain launches from now on", cudaGetErrorString(e));
            first_error = before; /* the capture's launch errors ran nothing */
            first_call = before_call;
            /* nothing ran: the buffers are where they were */
            graph_put_back(s, h, k, 0);
            s->graph_kind[k] = (fdx_solver_cycle)-1; /* plain launches from now on */
            return 0;
        }
        s->graph[k] = exec;
        s->graph_kind[k] = c;
        /* the capture swapped the host's pointers as the cycle does */
        for (int l = 0; l < s->nlev; l++) {
            s->graph_out[k][l][0] = s->lev[l].u, s->graph_out[k][l][1] = s->lev[l].t;
            s->graph_state_out[k][l] = state_of(s, h, l);
        }
    }
    if (h->join) h->join(s);
    note(cudaGraphLaunch((cudaGraphExec_t)s->graph[k], st), "cudaGraphLaunch(cycle)");
    if (h->fork) h->fork(s);
    s->work += s->graph_work[k];
    return 1;
}

/* The one-unit table's graph: the thread's kernel stream. */
static int graph_cycle(fdx_solver *s, fdx_solver_cycle c)
{
    if (c == FDX_CYCLE_FMG || !graph_wanted(s, graph_slot(s, c))) return 0; /* FMG: plain (no renewals to save) */
    if (!mg_gpu_stream()) {
        cudaStream_t st = NULL;
        if (cudaStreamCreate(&st) != cudaSuccess) return 0;
        mg_gpu_set_stream(st); /* kept for the thread's life: one per thread */
    }
    const mg_graph_hooks h = {.origin = mg_gpu_stream()};
    return mg_cuda_graph_cycle(s, c, &h);
}

static const mg_ops CUDA_OPS = {
    .ghosts = ghosts,
    .ghost_planes = ghost_planes,
    .residual = residual,
    .resnorm2 = resnorm2,
    .apply = apply,
    .jacobi = jacobi,
    .gs_color = gs_color,
    .gs_sweep = gs_sweep,
    .gs_sweep2 = gs_sweep2,
    .gs_sweep2_box = gs_sweep2_box,
    .gs_sweep2p = gs_sweep2p,
    .gs_sweep2_norm = gs_sweep2_norm,
    .cheby = cheby,
    .restrict_ = restrict_,
    .resrestrict = resrestrict,
    .prolong = prolong,
    .inject = inject,
    .zero = zero,
    .copy = copy,
    .dot = dot,
    .shift = shift,
    .cg_update = cg_update,
    .cg_direction = cg_direction,
    .coarse = coarse,
    .copy_user = copy_user,
    .copy_box = copy_box,
    .status = status,
    .residual4 = residual4,
    .graph_cycle = graph_cycle,
    .graph_free = mg_cuda_graph_free,
};

const mg_ops *mg_cuda_ops(void) { return &CUDA_OPS; }

fdx_status mg_cuda_alloc(size_t bytes, void **out)
{
    *out = NULL;
    cudaError_t e = cudaMalloc(out, bytes ? bytes : 8);
    if (e != cudaSuccess)
        return fdx_fail(e == cudaErrorMemoryAllocation ? FDX_ERR_NOMEM : FDX_ERR_CUDA,
                        "multigrid: cudaMalloc(%zu bytes): %s", bytes, cudaGetErrorString(e));
    FDX_CUDA_TRY(cudaMemset(*out, 0, bytes ? bytes : 8));
    return FDX_OK;
}

void mg_cuda_free(void *p)
{
    if (p) cudaFree(p);
}

fdx_status mg_cuda_upload(void *dst, const void *src, size_t bytes)
{
    FDX_CUDA_TRY(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice));
    return FDX_OK;
}

/* One table: allocate and copy. */
static fdx_status up(void **dst, const void *src, size_t bytes)
{
    FDX_TRY(mg_cuda_alloc(bytes, dst));
    return mg_cuda_upload(*dst, src, bytes);
}

fdx_status mg_cuda_upload_transfer(const mg_transfer *h, mg_transfer *d, int64_t m, int64_t M)
{
    const size_t nnz = (size_t)h->ptr[M];
    FDX_TRY(up((void **)&d->i0, h->i0, (size_t)m * sizeof(int32_t)));
    FDX_TRY(up((void **)&d->i1, h->i1, (size_t)m * sizeof(int32_t)));
    FDX_TRY(up((void **)&d->w0, h->w0, (size_t)m * sizeof(double)));
    FDX_TRY(up((void **)&d->w1, h->w1, (size_t)m * sizeof(double)));
    FDX_TRY(up((void **)&d->ptr, h->ptr, (size_t)(M + 1) * sizeof(int32_t)));
    FDX_TRY(up((void **)&d->idx, h->idx, (nnz ? nnz : 1) * sizeof(int32_t)));
    FDX_TRY(up((void **)&d->w, h->w, (nnz ? nnz : 1) * sizeof(double)));
    FDX_TRY(up((void **)&d->b0, h->b0, (size_t)M * sizeof(int32_t)));
    FDX_TRY(up((void **)&d->bw, h->bw, (size_t)M * sizeof(double)));
    d->span = h->span;
    return FDX_OK;
}

void mg_cuda_free_transfer(mg_transfer *d)
{
    mg_cuda_free(d->i0);
    mg_cuda_free(d->i1);
    mg_cuda_free(d->w0);
    mg_cuda_free(d->w1);
    mg_cuda_free(d->ptr);
    mg_cuda_free(d->idx);
    mg_cuda_free(d->w);
    mg_cuda_free(d->b0);
    mg_cuda_free(d->bw);
    memset(d, 0, sizeof *d);
}

fdx_status mg_cuda_download(void *dst, const void *src, size_t bytes)
{
    FDX_CUDA_TRY(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost));
    return FDX_OK;
}

fdx_status mg_cuda_stream_create(void **out)
{
    cudaStream_t st = NULL;
    FDX_CUDA_TRY(cudaStreamCreate(&st)); /* blocking: the legacy stream's copies (sum_end) order with it */
    *out = st;
    return FDX_OK;
}

void mg_cuda_stream_destroy(void *stream)
{
    if (!stream) return;
    if (mg_gpu_stream() == stream) mg_gpu_set_stream(NULL);
    cudaStreamDestroy((cudaStream_t)stream);
}

void mg_cuda_use_stream(void *stream) { mg_gpu_set_stream(stream); }

fdx_status mg_cuda_order(void *waiter, void *signaller, void *event)
{
    if (waiter == signaller) return FDX_OK;
    FDX_CUDA_TRY(cudaEventRecord((cudaEvent_t)event, (cudaStream_t)signaller));
    FDX_CUDA_TRY(cudaStreamWaitEvent((cudaStream_t)waiter, (cudaEvent_t)event, 0));
    return FDX_OK;
}

fdx_status mg_cuda_event_create(void **out)
{
    *out = NULL;
    FDX_CUDA_TRY(cudaEventCreateWithFlags((cudaEvent_t *)out, cudaEventDisableTiming));
    return FDX_OK;
}

void mg_cuda_event_destroy(void *event)
{
    if (event) cudaEventDestroy((cudaEvent_t)event);
}

int mg_cuda_reaches(const void *from, const void *to)
{
    struct cudaPointerAttributes a, b;
    if (cudaPointerGetAttributes(&a, from) != cudaSuccess || cudaPointerGetAttributes(&b, to) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    if (a.type != cudaMemoryTypeDevice || b.type != cudaMemoryTypeDevice) return 0;
    if (a.device == b.device) return 1;
    int can = 0;
    if (cudaDeviceCanAccessPeer(&can, a.device, b.device) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return can; /* fdx_dist enables peer access wherever it can */
}

fdx_status mg_cuda_stream_sync(void *stream)
{
    FDX_CUDA_TRY(cudaStreamSynchronize((cudaStream_t)stream));
    return status();
}

void *mg_cuda_current_stream(void) { return mg_gpu_stream(); }
