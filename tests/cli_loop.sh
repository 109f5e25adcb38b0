#!/usr/bin/env bash
# fdx sor and fdx aos end to end on the CPU: SOR converges to the known
# solution, both variants agree, records carry both times; bad input exits 2.
fdx=$(realpath "$1")
fails=0 n=0
check() { n=$((n + 1)); if ! eval "$1"; then echo "FAIL: $2"; fails=$((fails + 1)); fi; }

json=$("$fdx" sor --backend cpu --size 20 --sweeps 120 --reps 1 --json); rc=$?
check '[ $rc -eq 0 ]' "sor exit $rc: $json"
for field in '"case": "sor"' '"time_autotfm_ms"' '"time_no_autotfm_ms"' '"speedup_autotfm"' '"verified": true' '"copy_gbps"'; do
  check 'grep -q "$field" <<<"$json"' "sor record has $field: $json"
done
check 'python3 -c "import json,sys; r=json.loads(sys.argv[1]); assert r[\"max_error_vs_exact\"] < 1e-10, r" "$json"' "sor converges to u*: $json"

json=$("$fdx" aos --backend cpu --size 12x10x8 --iters 3 --reps 1 --json); rc=$?
check '[ $rc -eq 0 ]' "aos exit $rc: $json"
for field in '"case": "aos"' '"shape": \[5, 12, 10, 8\]' '"speedup_autotfm"' '"verified": true'; do
  check 'grep -q "$field" <<<"$json"' "aos record has $field: $json"
done
out=$("$fdx" aos --backend cpu --size 12x10x8 --iters 2 --reps 1); check '[ $? -eq 0 ]' "aos table"
check 'grep -q "autotfm off" <<<"$out"' "table has both times: $out"

for bad in "sor --size 3" "sor --omega 2.5" "sor --sweeps 0" "aos --size 0x4x4" "aos --iters x"; do
  err=$("$fdx" $bad 2>&1 >/dev/null); rc=$?
  check '[ $rc -eq 2 ]' "'fdx $bad' exits 2, not $rc"
  check 'grep -q "^fdx ${bad%% *}: error: " <<<"$err"' "'fdx $bad' error line: $err"
done
echo "cli_loop: $((n - fails)) passed, $fails failed"
[ $fails -eq 0 ]
