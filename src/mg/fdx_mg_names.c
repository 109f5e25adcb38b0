/* fdx_mg_names: the names of the solver's choices, for flags and records. */
#include "mg/fdx_mg_impl.h"

#include <string.h>

static const char *const METHODS[] = {"mg", "cg"};
static const char *const CYCLES[] = {"v", "w", "f", "fmg"};
static const char *const SMOOTHERS[] = {"jacobi", "cheby", "rbgs"};
static const char *const BCS[] = {"dirichlet", "neumann", "periodic"};

#define COUNT(a) ((int)(sizeof(a) / sizeof(a[0])))

static const char *name_of(const char *const *names, int n, int v) { return v >= 0 && v < n ? names[v] : "?"; }

static fdx_status parse(const char *const *names, int n, const char *what, const char *s, int *out)
{
    FDX_CHECK(s && out, FDX_ERR_INVALID, "%s: no value", what);
    for (int i = 0; i < n; i++)
        if (strcmp(s, names[i]) == 0) {
            *out = i;
            return FDX_OK;
        }
    char list[128] = "";
    for (int i = 0; i < n; i++) {
        strncat(list, names[i], sizeof list - strlen(list) - 1);
        if (i + 1 < n) strncat(list, "|", sizeof list - strlen(list) - 1);
    }
    return fdx_fail(FDX_ERR_INVALID, "%s '%s' is unknown (%s)", what, s, list);
}

const char *fdx_solver_method_name(fdx_solver_method m) { return name_of(METHODS, COUNT(METHODS), (int)m); }
const char *fdx_solver_cycle_name(fdx_solver_cycle c) { return name_of(CYCLES, COUNT(CYCLES), (int)c); }
const char *fdx_solver_smoother_name(fdx_solver_smoother sm) { return name_of(SMOOTHERS, COUNT(SMOOTHERS), (int)sm); }
const char *fdx_solver_bc_name(fdx_solver_bc bc) { return name_of(BCS, COUNT(BCS), (int)bc); }

fdx_status fdx_solver_method_parse(const char *s, fdx_solver_method *out)
{
    int v = 0;
    FDX_TRY(parse(METHODS, COUNT(METHODS), "solver", s, &v));
    *out = (fdx_solver_method)v;
    return FDX_OK;
}

fdx_status fdx_solver_cycle_parse(const char *s, fdx_solver_cycle *out)
{
    int v = 0;
    FDX_TRY(parse(CYCLES, COUNT(CYCLES), "cycle", s, &v));
    *out = (fdx_solver_cycle)v;
    return FDX_OK;
}

fdx_status fdx_solver_smoother_parse(const char *s, fdx_solver_smoother *out)
{
    int v = 0;
    FDX_TRY(parse(SMOOTHERS, COUNT(SMOOTHERS), "smoother", s, &v));
    *out = (fdx_solver_smoother)v;
    return FDX_OK;
}

fdx_status fdx_solver_bc_parse(const char *s, fdx_solver_bc *out)
{
    int v = 0;
    FDX_TRY(parse(BCS, COUNT(BCS), "boundary", s, &v));
    *out = (fdx_solver_bc)v;
    return FDX_OK;
}
