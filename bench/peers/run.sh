#!/usr/bin/env bash
# fdx mg against HYPRE PFMG-CG and PETSc DMDA + PCMG-CG on the same
# problem (Dirichlet, u* = sin sin sin + xyz on n^3 points, relative
# residual 1e-10), in one run on this machine: every solver at each size,
# one after the other, REPS times (records appended, the best solve time
# is the figure; the machine is shared).  fdx uses OpenMP threads
# (OMP_NUM_THREADS, default all cores); the peers as many MPI ranks.
# Waiting threads and ranks sleep instead of spinning (OMP_WAIT_POLICY=
# passive, mpi_yield_when_idle): on a machine shared with other jobs a
# spinning waiter holds a core another thread needs (measured: 33^3 took
# 4.3 s spinning, 0.04 s passive, at a load average of 18 on 2 cores).
# usage: bench/peers/run.sh FDX_BIN OUT.jsonl [SIZES] [REPS]
set -uo pipefail
fdx=$(realpath "$1"); out=$2; sizes=${3:-"129 257"}; reps=${4:-2}
here=$(cd "$(dirname "$0")" && pwd)
[ -x "$here/build/hypre_pfmg_cg" ] || bash "$here/build.sh"
np=${NP:-$(nproc)}
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
mpi="mpirun --allow-run-as-root --oversubscribe --bind-to none --mca mpi_yield_when_idle 1 -np $np"
for r in $(seq "$reps"); do
  for n in $sizes; do
    "$fdx" mg --backend cpu --size ${n}x${n}x${n} --tol 1e-10 --json | tee -a "$out"
    "$fdx" mg --backend cpu --size ${n}x${n}x${n} --tol 1e-10 --solver cg --json | tee -a "$out"
    $mpi "$here/build/hypre_pfmg_cg" "$n" 1e-10 | tee -a "$out"
    $mpi "$here/build/petsc_dmda_mg" -n "$n" -tol 1e-10 -pc_mg_galerkin pmat -mg_levels_ksp_type richardson \
      -mg_levels_pc_type sor -mg_levels_ksp_max_it 2 | tee -a "$out"
  done
done
