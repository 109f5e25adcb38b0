/* libfdx: finite-difference stencil computations on structured grids, on CPUs
   and GPUs.  Include this one header. */
#ifndef FDX_H
#define FDX_H

#include "fdx/core.h"
#include "fdx/array.h"
#include "fdx/metrics.h"
#include "fdx/laplacian.h"
#include "fdx/layout.h"
#include "fdx/stencil.h"
#include "fdx/ustencil.h"
#include "fdx/boundary.h"
#include "fdx/loop.h"
#include "fdx/dist.h"
#include "fdx/io.h"
#include "fdx/solvers.h"
#include "fdx/mg.h"

#endif
