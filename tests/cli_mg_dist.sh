#!/usr/bin/env bash
# fdx mg / fdx poisson --gpus K on CPU units (and under mpirun -np 2 when
# the build has MPI): the same cycles, residual history within 1e-12 and
# error as one unit, for 1x2, 2x2, 1x1x2 and 2x2x2 unit grids, odd and even
# sizes, V/W/F/FMG, Jacobi/Chebyshev, CG, the coefficient, Neumann and
# periodic boundaries (the periodic wrap between ranks too), order 4; the
# record's gpus/units/ranks; only rank 0 reports; usage errors exit 2 with
# one line.
source "$(dirname "$0")/lib_cli.sh"
check() { checks=$((checks + 1)); if ! eval "$1"; then echo "FAIL: $2"; fails=$((fails + 1)); fi; }
export OMP_NUM_THREADS=1 FDX_TUNE=off
command -v python3 >/dev/null || { echo "cli_mg_dist: skipped: no python3"; exit 77; }

# same ONE_UNIT_JSON DIST_JSON: cycles, history (1e-12 relative), error (1e-12)
same() {
  python3 -c "
import json, sys
a, b = json.loads(sys.argv[1]), json.loads(sys.argv[2])
assert a['cycles'] == b['cycles'], (a['cycles'], b['cycles'])
assert a['verified'] and b['verified'], 'not verified'
assert len(a['residual_history']) == len(b['residual_history'])
# Neumann or periodic axes only: f made compatible by its mean, a sum over
# units (u differs in its last bits, and with it each residual's rounding,
# eps x diag x |u| a point): entries below 0.1 compared to 1e-13 of r0
floor = 0.1 if a['bc'] != 'dirichlet' else 0.0
for x, y in zip(a['residual_history'], b['residual_history']):
    assert abs(x - y) <= 1e-12 * max(x, floor), (x, y)
assert abs(a['error_max'] - b['error_max']) <= 1e-12 * a['error_max'], (a['error_max'], b['error_max'])
assert b['units'] == int(sys.argv[3]) and b['gpus'] == 0 and b['ranks'] == int(sys.argv[4]), b
assert b['levels_distributed'] >= 1
" "$1" "$2" "$3" "$4"
}

run() { # units ranks dist-args... -- args...
  local units=$1 ranks=$2; shift 2
  local dargs=() args=()
  while [ "$1" != "--" ]; do dargs+=("$1"); shift; done; shift; args=("$@")
  local one dist
  one=$("$fdx" mg --backend cpu --json "${args[@]}" 2>&1)
  dist=$("$fdx" mg --backend cpu --json "${args[@]}" "${dargs[@]}" 2>&1); local rc=$?
  check '[ $rc -eq 0 ] && same "$one" "$dist" $units $ranks' "fdx mg ${args[*]} ${dargs[*]}: exit $rc: $dist"
}

run 2 1 --gpus 2 -- --size 37x29
run 4 1 --gpus 4 --grid 2x2 -- --size 48x33 --cycle w --smoother jacobi
run 2 1 --gpus 2 --grid 1x1x2 -- --size 21x18x20 --cycle v
run 8 1 --gpus 8 --grid 2x2x2 -- --size 33x31x35
run 8 1 --gpus 8 --grid 2x2x2 -- --size 18x17x20 --solver cg --smoother cheby
run 4 1 --gpus 4 --grid 2x2 -- --size 65x63 --cycle f --coef smooth
FDX_MG_GATHER=1 run 4 1 --gpus 4 --grid 1x2x2 -- --size 41x37x45
# Neumann and periodic axes (ghosts across units: mirror on the end units,
# wrap between them), order 4 (shadows two wide on level 0)
run 2 1 --gpus 2 --grid 2x1 -- --size 37x29 --bc neumann
run 4 1 --gpus 4 --grid 2x2 -- --size 48x33 --bc periodic --cycle w --smoother jacobi
FDX_MG_GATHER=1 run 8 1 --gpus 8 --grid 2x2x2 -- --size 21x18x20 --bc periodic --cycle v
FDX_MG_GATHER=1 run 8 1 --gpus 8 --grid 2x2x2 -- --size 19x22x17 --bc neumann --solver cg
run 2 1 --gpus 2 --grid 2x1 -- --size 37x29 --order 4
FDX_MG_GATHER=1 run 8 1 --gpus 8 --grid 2x2x2 -- --size 33x31x35 --order 4 --cycle v

# the table names the distribution; fdx poisson takes --gpus too
out=$("$fdx" poisson --backend cpu --size 33x33x33 --gpus 2 2>&1); rc=$?
check '[ $rc -eq 0 ] && grep -q "distributed over 2 units" <<<"$out"' "fdx poisson --gpus 2: exit $rc: $out"
out=$("$fdx" poisson --backend cpu --size 33x33x33 --gpus 2 --bc periodic 2>&1); rc=$?
check '[ $rc -eq 0 ] && grep -q "periodic boundaries" <<<"$out"' "fdx poisson --gpus 2 --bc periodic: exit $rc: $out"

expect_usage "too small" mg --backend cpu --size 9x9x9 --gpus 8
expect_usage "--grid needs --gpus" mg --backend cpu --size 33x33 --grid 1x2
expect_usage "thinner than the 2-point shadows" mg --backend cpu --size 17x7 --gpus 4 --grid 1x4 --order 4
expect_usage "axes" mg --backend cpu --size 33x33 --gpus 2 --grid 1x1x2
expect_usage "units" mg --backend cpu --size 33x33 --gpus 2 --grid 2x2
expect_usage "--gpus" mg --backend cpu --size 33x33 --gpus 0
expect_usage "method mg" poisson --backend cpu --size 33x33 --method jacobi --gpus 2

# mpirun -np 2: one record (rank 0), the same results as one unit
if command -v mpirun >/dev/null && ! "$fdx" info 2>/dev/null | grep -qi "mpi.*no"; then
  export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
  MPIRUN=(mpirun --allow-run-as-root --oversubscribe -x ASAN_OPTIONS -x OMP_NUM_THREADS)
  for combo in "1 --size 29x33x31" "2 --grid 1x2x2 --size 29x33x31 --cycle v" \
               "1 --size 29x33x31 --bc periodic" "2 --grid 2x1x2 --size 29x33x31 --bc neumann --order 2"; do
    set -- $combo; k=$1; shift
    one=$("$fdx" mg --backend cpu --json $(sed 's/--grid [0-9x]*//' <<<"$*") 2>&1)
    dist=$("${MPIRUN[@]}" -np 2 "$fdx" mg --backend cpu --json --gpus $k "$@" 2>&1); rc=$?
    check '[ $rc -eq 0 ] && [ $(wc -l <<<"$dist") -eq 1 ] && same "$one" "$dist" $((2 * k)) 2' \
          "mpirun -np 2 fdx mg --gpus $k $*: exit $rc: $dist"
  done
  out=$("${MPIRUN[@]}" -np 2 "$fdx" mg --backend cpu --size 33x33 2>&1); rc=$?
  check '[ $rc -eq 2 ] && grep -q "give --gpus" <<<"$out"' "mpirun without --gpus: exit $rc: $out"
else
  echo "cli_mg_dist: mpirun parts skipped (no mpirun or no MPI in the build)"
fi

echo "cli_mg_dist: $checks checks, $fails failed"
[ $fails -eq 0 ]
