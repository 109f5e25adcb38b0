#!/usr/bin/env bash
# fdx wave --absorb: the PML from the command line: the summary names it, the
# INI key equals the flag, the PML run differs from the sponge's (the layer
# acts), a restart continues it bit for bit (checksums) and refuses another
# absorb, distributed runs (--gpus 2 CPU units; under mpirun -np 2 with 1
# and 2 units a rank when there is one) give the one-array checksum, and the
# usage errors (exit 2, one line, nothing written).
source "$(dirname "$0")/lib_cli.sh"
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
run() { "$fdx" wave --backend cpu --progress off --json "$@"; }
sum() { grep -oE '"checksum": \{[^}]*\}' "$1"; }

checks=$((checks + 1))
run --size 96x80 --steps 160 --absorb pml --sponge 16 >pml.json 2>err.txt || fail "pml run: $(cat err.txt)"
grep -q '"absorb": "pml"' pml.json || fail "summary lacks absorb = pml"
run --size 96x80 --steps 160 --sponge 16 >sponge.json 2>err.txt || fail "sponge run: $(cat err.txt)"
grep -q '"absorb": "sponge"' sponge.json || fail "summary lacks absorb = sponge (the default)"
[ -n "$(sum pml.json)" ] && [ "$(sum pml.json)" != "$(sum sponge.json)" ] || fail "pml and sponge runs agree: the layer did nothing"

checks=$((checks + 1))
printf '[wave]\nsize = 96x80\nsteps = 160\nabsorb = pml\nsponge = 16\n' >run.ini
run --config run.ini >ini.json 2>err.txt || fail "INI run: $(cat err.txt)"
[ "$(sum ini.json)" = "$(sum pml.json)" ] || fail "INI absorb = pml differs from the flag: $(sum ini.json) vs $(sum pml.json)"

checks=$((checks + 1))
run --size 96x80 --steps 80 --absorb pml --sponge 16 --output half --checkpoint-every 80 >/dev/null 2>err.txt ||
  fail "half run: $(cat err.txt)"
run --restart half --steps 160 >restart.json 2>err.txt || fail "restart: $(cat err.txt)"
[ "$(sum restart.json)" = "$(sum pml.json)" ] || fail "restart differs: $(sum restart.json) vs $(sum pml.json)"
expect_usage absorb wave --backend cpu --progress off --restart half --steps 200 --absorb sponge

# The fused pass (CUDA's default; FDX_PML_TWOPASS=0 here): the same checksums as the
# two passes, and a restart from an odd step (its psi then in the second buffer).
checks=$((checks + 1))
FDX_PML_TWOPASS=0 run --size 96x80 --steps 160 --absorb pml --sponge 16 >fused.json 2>err.txt || fail "fused: $(cat err.txt)"
[ "$(sum fused.json)" = "$(sum pml.json)" ] || fail "fused differs from two passes: $(sum fused.json) vs $(sum pml.json)"
FDX_PML_TWOPASS=0 run --size 96x80 --steps 81 --absorb pml --sponge 16 --output odd --checkpoint-every 81 >/dev/null 2>err.txt ||
  fail "fused half run: $(cat err.txt)"
FDX_PML_TWOPASS=0 run --restart odd --steps 160 >odd.json 2>err.txt || fail "fused restart: $(cat err.txt)"
[ "$(sum odd.json)" = "$(sum pml.json)" ] || fail "fused restart from step 81 differs: $(sum odd.json) vs $(sum pml.json)"

expect_usage absorb wave --backend cpu --absorb perfect
expect_usage absorb wave --backend cpu --size 64x64 --absorb pml --boundary all=dirichlet:0
checks=$((checks + 1))
run --size 72x130 --steps 100 --absorb pml --sponge 12 >one.json 2>err.txt || fail "one-array run: $(cat err.txt)"
run --size 72x130 --steps 100 --absorb pml --sponge 12 --gpus 2 >units.json 2>err.txt || fail "2 units: $(cat err.txt)"
[ -n "$(sum one.json)" ] && [ "$(sum units.json)" = "$(sum one.json)" ] ||
  fail "2 units differ from one array: $(sum units.json) vs $(sum one.json)"
if command -v mpirun >/dev/null && ! "$fdx" info 2>/dev/null | grep -qi "mpi.*no"; then
  for gpus in 1 2; do
    checks=$((checks + 1))
    OMP_NUM_THREADS=1 mpirun --allow-run-as-root --oversubscribe -np 2 "$fdx" wave --backend cpu --progress off --json \
      --size 72x130 --steps 100 --absorb pml --sponge 12 --gpus $gpus >mpi.json 2>err.txt || fail "mpirun -np 2 --gpus $gpus: $(cat err.txt)"
    [ "$(sum mpi.json)" = "$(sum one.json)" ] || fail "mpirun -np 2 --gpus $gpus differs: $(sum mpi.json) vs $(sum one.json)"
  done
fi
expect_usage checkpoint wave --backend cpu --size 64x64 --absorb pml --gpus 2 --output ck --checkpoint-every 5
expect_usage pml wave --backend cpu --size 64x40 --absorb pml --sponge 16 --gpus 2
expect_usage absorb wave --backend cpu --size 64x64 --absorb pml --sponge 0
expect_usage pml wave --backend cpu --size 64x64 --absorb pml --sponge 5
expect_usage sponge wave --backend cpu --size 64x64 --absorb none --sponge 10
echo "cli_pml: $checks checks, $fails failed"
[ $fails = 0 ]
