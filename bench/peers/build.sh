#!/usr/bin/env bash
# Builds the peer benchmarks (HYPRE PFMG-CG, PETSc DMDA + PCMG) into
# bench/peers/build/.  Bench use only: needs Debian's libhypre-dev and
# libpetsc-real-dev (apt-get install libhypre-dev libpetsc-real-dev); never
# part of libfdx, make or ctest.
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p build
mpicc -O3 -I/usr/include/hypre hypre_pfmg_cg.c -o build/hypre_pfmg_cg -lHYPRE -lm
mpicc -O3 $(pkg-config --cflags PETSc) petsc_dmda_mg.c -o build/petsc_dmda_mg $(pkg-config --libs PETSc) -lm
echo "built: $(ls build | tr '\n' ' ')"
