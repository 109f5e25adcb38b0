"""fdx from Python: finite-difference stencils, loops, transforms and
simulations of libfdx on NumPy arrays (CPU) and CuPy / PyTorch arrays (CUDA),
without copies.  See docs/PYTHON.md.

The shared library is found through FDX_LIBRARY_DIR, next to this package,
in the repository's build/lib, or on the loader's path."""
from ._lib import FdxError, path as library_path
from ._core import (Context, context, set_context, version, version_string, options, info, cuda_device_count,
                    built_with_cuda, log_level, knobs, host_memory_available)
from ._array import Array, asarray, empty, like
from ._ops import (Stencil, laplacian, permute, diagonalize, undiagonalize, fd_weights, fornberg_weights,
                   star_traffic, effective_gbps)
from ._bc import Boundary, BoundaryPass, fill_boundary
from ._ustencil import UStencil
from ._mg import Solver, poisson_solve, names as solver_names
from ._loop import Loop
from ._sim import Simulation, config_keys, interrupt, check_output
from ._dist import Dist, DistArray, DistStencil, finalize as dist_finalize
from ._io import write_field, read_field
from ._dloop import DistLoop

__version__ = version_string()
__all__ = ["FdxError", "library_path", "Context", "context", "set_context", "version", "version_string", "options",
           "info", "cuda_device_count", "built_with_cuda", "Array", "asarray", "empty", "like", "Stencil",
           "laplacian", "permute", "diagonalize", "undiagonalize", "fd_weights", "Loop", "Simulation", "config_keys", "Dist", "DistArray", "DistStencil",
           "DistLoop", "fornberg_weights", "Boundary", "BoundaryPass", "fill_boundary", "UStencil", "Solver",
           "poisson_solve", "solver_names", "log_level", "knobs", "host_memory_available", "interrupt",
           "check_output", "dist_finalize", "write_field", "read_field", "star_traffic", "effective_gbps"]
