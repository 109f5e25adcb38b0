#!/usr/bin/env bash
# fdx stencil --steps N --temporal off|auto|K on the CPU backend: JSON records
# with the temporal fields, verified bit for bit against single steps, the
# depth asked used, a table, and usage errors (exit 2, one line on stderr,
# nothing on stdout).
set -u
. "$(dirname "$0")/lib_cli.sh" "$1"
FDX=$fdx tmp=$work fail=0
err() { echo "FAIL: $*"; fail=1; }

rec=$("$FDX" stencil --backend cpu --op heat --order 4 --size 40x31x23 --steps 7 --temporal 3 --reps 2 --json) ||
  err "--steps 7 --temporal 3 exited $?"
for f in '"verified": true' '"temporal": 3' '"temporal_request": "3"' '"steps": 7' '"order": 4' '"ratio_to_copy"' \
         '"precision": "double"' '"shape": [40, 31, 23]' '"ms_per_step"' '"config": "temporal k3'; do
  grep -qF "$f" <<<"$rec" || err "record lacks $f: $rec"
done
rec=$("$FDX" stencil --backend cpu --op heat --size 301x200 --precision float --steps 5 --temporal off --reps 2 --json) ||
  err "--temporal off exited $?"
grep -qF '"temporal": 1' <<<"$rec" && grep -qF '"verified": true' <<<"$rec" || err "temporal off: $rec"
"$FDX" stencil --backend cpu --op heat --order 8 --size 64x65 --steps 4 --reps 2 >"$tmp/table" || err "auto table exited $?"
grep -q "bit-identical to single steps: yes" "$tmp/table" || err "auto table: $(cat "$tmp/table")"

# Wave (two time levels, with a coefficient array): u and u_prev bit for bit.
rec=$("$FDX" stencil --backend cpu --op wave --order 8 --size 61x47 --precision float --coef --steps 7 --temporal 3 --reps 2 --json) ||
  err "wave --steps 7 --temporal 3 exited $?"
for f in '"verified": true' '"temporal": 3' '"op": "wave"' '"order": 8' '"ratio_to_copy"'; do
  grep -qF "$f" <<<"$rec" || err "wave record lacks $f: $rec"
done
# Deep halos: a 2D wave on 2 and 3 CPU units, k steps a pass and exchange,
# bit for bit against one unit and one step a pass.
for g in 2 3; do
  rec=$("$FDX" bench dhalo --backend cpu --size 120x97 --order 4 --gpus $g --steps 8 --temporal 3 --json) ||
    err "bench dhalo --gpus $g exited $?"
  for f in '"verified": true' '"temporal": 3' "\"units\": $g" '"efficiency"'; do
    grep -qF "$f" <<<"$rec" || err "bench dhalo record lacks $f: $rec"
  done
done

expect_usage "^fdx .*: error: " stencil --steps 4
expect_usage "^fdx .*: error: " stencil --op laplacian --steps 4
expect_usage "^fdx .*: error: " stencil --op heat --coef --steps 4
expect_usage "^fdx .*: error: " stencil --op heat --steps 0
expect_usage "^fdx .*: error: " stencil --op heat --steps 4 --temporal 9
expect_usage "^fdx .*: error: " stencil --op heat --steps 4 --temporal sometimes
expect_usage "^fdx .*: error: " bench dhalo --temporal 1
expect_usage "^fdx .*: error: " bench dhalo --order 5
[ $fail = 0 ] && [ $fails = 0 ]
