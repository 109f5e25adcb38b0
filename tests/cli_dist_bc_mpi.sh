#!/bin/bash
# cli_dist_bc_mpi: test_dist_bc under mpirun -np 2 (CPU backend): boundary
# conditions on distributed stencils with the units spread over two ranks,
# so periodic end faces and Dirichlet/Neumann faces cross processes; every
# run must equal the whole grid bit for bit on every rank.  Skipped (77)
# without mpirun or in a build without MPI.
set -u
FDX=$1
bin=$(dirname "$FDX")/test_dist_bc
command -v mpirun >/dev/null || { echo "cli_dist_bc_mpi: skipped: no mpirun"; exit 77; }
"$FDX" info 2>/dev/null | grep -qi "mpi.*no" && { echo "cli_dist_bc_mpi: skipped: built without MPI"; exit 77; }
[ -x "$bin" ] || { echo "FAIL: $bin not built"; exit 1; }
export OMP_NUM_THREADS=1
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
out=$(mpirun --allow-run-as-root --oversubscribe -x ASAN_OPTIONS -np 2 "$bin" 2>&1)
rc=$?
echo "$out" | tail -5
[ $rc = 0 ] || { echo "FAIL: mpirun -np 2 test_dist_bc exited $rc"; exit 1; }
[ "$(grep -c "test_dist_bc: [0-9]* checks, 0 failed" <<<"$out")" = 2 ] || { echo "FAIL: not both ranks passed"; exit 1; }
exit 0
