#!/usr/bin/env bash
# fdx sor and fdx aos end to end on the CPU: SOR converges to the known
# solution, both variants agree, records carry both times; bad input exits 2.
fdx=$(realpath "$1")
fails=0 n=0
check() { n=$((n + 1)); if ! eval "$1"; then echo "FAIL: $2"; fails=$((fails + 1)); fi; }
# fdx CMD ... --gpus K --json for K = 1, 2, 3: each run exits 0, its record
# has every field ("$K" in a field stands for K), and all have one digest.
same_digest_over_units() { # "command args" "field" ...
  local cmd=$1 k json d first= field; shift
  for k in 1 2 3; do
    json=$("$fdx" $cmd --gpus $k --json); rc=$?
    check '[ $rc -eq 0 ]' "$cmd --gpus $k exit $rc: $json"
    for field in "$@"; do
      field=${field//\$K/$k}
      check 'grep -q "$field" <<<"$json"' "$cmd --gpus $k record has $field: $json"
    done
    d=$(grep -o '"digest": "[0-9a-f]*"' <<<"$json")
    [ -z "$first" ] && first=$d
    check '[ "$d" = "$first" ]' "$cmd --gpus $k digest $d, one unit $first"
  done
}

json=$("$fdx" sor --backend cpu --size 20x20x20 --steps 120 --reps 1 --json); rc=$?
check '[ $rc -eq 0 ]' "sor exit $rc: $json"
for field in '"case": "sor"' '"time_autotfm_ms"' '"time_no_autotfm_ms"' '"speedup_autotfm"' '"verified": true' '"copy_gbps"'; do
  check 'grep -q "$field" <<<"$json"' "sor record has $field: $json"
done
check 'python3 -c "import json,sys; r=json.loads(sys.argv[1]); assert r[\"max_error_vs_exact\"] < 1e-10, r" "$json"' "sor converges to u*: $json"

json=$("$fdx" aos --backend cpu --size 12x10x8 --steps 3 --reps 1 --json); rc=$?
check '[ $rc -eq 0 ]' "aos exit $rc: $json"
for field in '"case": "aos"' '"shape": \[5, 12, 10, 8\]' '"speedup_autotfm"' '"verified": true'; do
  check 'grep -q "$field" <<<"$json"' "aos record has $field: $json"
done
out=$("$fdx" aos --backend cpu --size 12x10x8 --steps 2 --reps 1); check '[ $? -eq 0 ]' "aos table"
check 'grep -q "autotfm off" <<<"$out"' "table has both times: $out"

# fdx sor --gpus K: the distributed ACROSS loop on K CPU units is bit for bit
# the one-unit loop (max_diff 0), with the same digest for every K.
same_digest_over_units "sor --backend cpu --size 18x18x18 --steps 4 --reps 1" '"case": "sor_dist"' '"gpus": 0' \
  '"units": $K' '"ranks": 1' '"shape": \[18, 18, 18\]' '"time_ms"' '"checksum"' '"digest"' '"max_diff_one_unit": 0' \
  '"verified": true'
out=$("$fdx" sor --backend cpu --size 18x18x18 --steps 3 --reps 1 --gpus 2); check '[ $? -eq 0 ]' "sor --gpus table"
check 'grep -q "max diff vs one unit 0" <<<"$out"' "sor --gpus table: $out"
# under mpirun (as the launcher's variables say) without --gpus: refused
err=$(OMPI_COMM_WORLD_SIZE=2 "$fdx" sor --backend cpu --size 18x18x18 2>&1 >/dev/null); rc=$?
check '[ $rc -eq 2 ] && grep -q -- "--gpus" <<<"$err"' "sor under mpirun without --gpus exits 2: $rc $err"

# fdx aos --gpus K: the AOS loop on a distributed (5,X,Y,Z) array, verified
# point by point, the same digest for every K.
same_digest_over_units "aos --backend cpu --size 12x10x8 --steps 3 --reps 1" '"case": "aos_dist"' \
  '"shape": \[5, 12, 10, 8\]' '"units": $K' '"ranks": 1' '"checksum"' '"verified": true'

# The example of docs/LOOPS.md (examples/loops/dvmh_sor.c): the same numbers
# and digest on 1 and 3 units.
ex=$(dirname "$fdx")/dvmh_sor
if [ -x "$ex" ]; then
  a=$(FDX_BACKEND=cpu "$ex" 1); rc1=$?
  b=$(FDX_BACKEND=cpu "$ex" 3); rc3=$?
  check '[ $rc1 -eq 0 ] && [ $rc3 -eq 0 ] && grep -q "digest" <<<"$a"' "dvmh_sor runs: $a / $b"
  check '[ "${a#*units}" = "${b#*units}" ]' "dvmh_sor on 1 and 3 units: '$a' vs '$b'"
else
  check 'false' "examples/loops/dvmh_sor was not built next to fdx"
fi

# fdx bench dloop: the distributed loops and the distributed stencil path
# give the same heat steps on 1 and 3 CPU units (the timing is not checked)
for u in 1 3; do
  out=$(FDX_BACKEND=cpu "$fdx" bench dloop --size 67x41 --steps 6 --gpus $u --json); rc=$?
  check '[ $rc -eq 0 ] && grep -q "\"verified\": true" <<<"$out" && grep -q "\"units\": $u" <<<"$out"' "bench dloop on $u units: exit $rc: $out"
done
for bad in "bench dloop --steps 3" "bench dloop --size 2x9" "bench dloop --gpus 0"; do
  err=$("$fdx" $bad 2>&1 >/dev/null); rc=$?
  check '[ $rc -eq 2 ]' "'fdx $bad' exits 2, not $rc"
done

for bad in "sor --gpus 0" "sor --gpus 2 --compare-cpu" "sor --size 3x3x3" "sor --omega 2.5" "sor --steps 0" "aos --size 0x4x4" "aos --steps x"; do
  err=$("$fdx" $bad 2>&1 >/dev/null); rc=$?
  check '[ $rc -eq 2 ]' "'fdx $bad' exits 2, not $rc"
  check 'grep -q "^fdx ${bad%% *}: error: " <<<"$err"' "'fdx $bad' error line: $err"
done
echo "cli_loop: $((n - fails)) passed, $fails failed"
[ $fails -eq 0 ]
