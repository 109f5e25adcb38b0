#!/usr/bin/env bash
# fdx lu end to end on the CPU: class S verifies against NPB's reference
# values (exit 0, VERIFICATION SUCCESSFUL, the record's fields), also on 3
# CPU units and under mpirun -np 2 (distributed loops); a run of the wrong
# length fails verification (exit 1), bad input exits 2.
source "$(dirname "$0")/lib_cli.sh"
export OMP_WAIT_POLICY=passive  # busy-waiting threads on a loaded machine cost seconds
check() { checks=$((checks + 1)); if ! eval "$1"; then echo "FAIL: $2"; fails=$((fails + 1)); fi; }

out=$("$fdx" lu --class S --backend cpu); rc=$?
check '[ $rc -eq 0 ]' "class S exit $rc: $out"
check 'grep -q "Verification    = *SUCCESSFUL" <<<"$out"' "class S report says SUCCESSFUL: $out"
check 'grep -q "Mop/s total" <<<"$out"' "report has Mop/s: $out"

json=$("$fdx" lu --class S --backend cpu --json --compare-autotfm); rc=$?
check '[ $rc -eq 0 ]' "class S --json exit $rc: $json"
for field in '"case": "lu"' '"class": "S"' '"backend": "cpu"' '"gpus": 0' '"time_s"' '"mops"' '"speedup_autotfm"' '"layouts"' '"layout_moves"' '"layout_moves_timed"' '"verified": true'; do
  check 'grep -q "$field" <<<"$json"' "record has $field: $json"
done
check 'python3 -c "import json,sys; r=json.loads(sys.argv[1]); assert r[\"time_s\"] > 0 and r[\"mops\"] > 0, r" "$json"' "record parses, positive time: $json"

out=$("$fdx" lu --class S --backend cpu --steps 3 2>err.txt); rc=$?
check '[ $rc -eq 1 ]' "3 iterations of class S must fail verification, exit $rc"
check 'grep -q "UNSUCCESSFUL" <<<"$out"' "report says UNSUCCESSFUL: $out"
check 'grep -q "^fdx lu: error: VERIFICATION UNSUCCESSFUL" err.txt' "one error line: $(cat err.txt)"

# distributed: the grid split along z over CPU units, and over MPI ranks
json=$("$fdx" lu --class S --backend cpu --gpus 3 --json); rc=$?
check '[ $rc -eq 0 ]' "class S on 3 CPU units: exit $rc: $json"
check 'grep -q "\"units\": 3" <<<"$json" && grep -q "\"verified\": true" <<<"$json"' "3 units verified: $json"
if command -v mpirun >/dev/null && ! "$fdx" info 2>/dev/null | grep -qi "mpi.*no"; then
  # libmpi's own allocations show up as leaks in sanitizer builds: not ours
  export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
  json=$(timeout 300 mpirun --allow-run-as-root --oversubscribe -np 2 -x OMP_WAIT_POLICY -x ASAN_OPTIONS \
         "$fdx" lu --class S --backend cpu --json); rc=$?
  check '[ $rc -eq 0 ] && grep -q "\"verified\": true" <<<"$json"' "class S under mpirun -np 2: exit $rc: $json"
fi

expect_usage "class" lu --class D
expect_usage "class" lu --class SS
expect_usage "gpus" lu --class S --gpus 11
expect_usage "autotfm-scope" lu --class S --gpus 2 --autotfm-scope sweeps
expect_usage "timers" lu --class S --timers maybe
expect_usage "timers" lu --class S --gpus 2 --timers off
json=$("$fdx" lu --class S --backend cpu --timers off --json); rc=$?
check '[ $rc -eq 0 ] && grep -q "\"timers\": false" <<<"$json" && ! grep -q "sections_s" <<<"$json" && grep -q "\"verified\": true" <<<"$json"' "--timers off: exit $rc: $json"
json=$("$fdx" lu --class S --backend cpu --gpus 2 --compare-autotfm --json); rc=$?
check '[ $rc -eq 0 ] && grep -q "\"speedup_autotfm\"" <<<"$json" && grep -q "\"layout_moves\"" <<<"$json" && grep -q "\"verified\": true" <<<"$json"' "2 units with --compare-autotfm: exit $rc: $json"
expect_usage "steps" lu --steps 0
expect_usage "unknown" lu --bogus
echo "cli_lu: $((checks - fails)) passed, $fails failed"
[ $fails -eq 0 ]
