/* fdx mg --gpus K: the distribution of the grid over K units a process (and
   every rank under mpirun), and the caller's distributed arrays, filled from
   and gathered into the driver's global host arrays. */
#include "cmd_mg.h"

#include <string.h>

typedef struct global {
    int64_t n[3];
    const double *v;
} global;

static double from_global(const int64_t *g, void *arg)
{
    const global *G = arg;
    return G->v[g[0] + G->n[0] * (g[1] + G->n[1] * g[2])];
}

fdx_status cmd_mg_dist_create(const fdx_options *opts, int rank, const int64_t *n, const int *grid, int units,
                              cmd_mg_dist *out)
{
    memset(out, 0, sizeof *out);
    fdx_dist_desc dd = {0};
    dd.rank = rank;
    for (int a = 0; a < rank; a++) {
        dd.shape[a] = n[a];
        dd.grid[a] = grid ? grid[a] : 0;
        dd.shadow[a] = 1;
    }
    dd.units_per_proc = units;
    FDX_TRY(fdx_dist_create(opts, &dd, &out->d));
    FDX_TRY(fdx_darray_create(out->d, FDX_FLOAT64, &out->f));
    return fdx_darray_create(out->d, FDX_FLOAT64, &out->u);
}

fdx_status cmd_mg_dist_load(cmd_mg_dist *m, const int64_t *n, const double *f, const double *u)
{
    global g = {{n[0], n[1], n[2]}, f};
    if (f) FDX_TRY(fdx_darray_fill(m->f, from_global, &g));
    g.v = u;
    return fdx_darray_fill(m->u, from_global, &g);
}

fdx_status cmd_mg_dist_result(cmd_mg_dist *m, double *u) { return fdx_darray_gather(m->u, u, 1); }

void cmd_mg_dist_free(cmd_mg_dist *m)
{
    fdx_darray_destroy(&m->f);
    fdx_darray_destroy(&m->u);
    if (m->d) {
        fdx_dist_destroy(&m->d);
        fdx_dist_finalize();
    }
}
