#!/usr/bin/env bash
# fdx stencil and fdx bench stencil on the CPU backend: verified JSON records
# with the schema's fields, a table, and usage errors (exit 2, one line on
# stderr, nothing on stdout).
set -u
. "$(dirname "$0")/lib_cli.sh" "$1"
FDX=$fdx tmp=$work fail=0
err() { echo "FAIL: $*"; fail=1; }

rec=$("$FDX" stencil --backend cpu --dims 3 --order 4 --size 40x31x23 --precision float --reps 3 --json) || err "stencil --json exited $?"
for f in '"case": "stencil"' '"order": 4' '"op": "laplacian"' '"verified": true' '"ratio_to_copy"' '"copy_gbps"' \
         '"effective_gbps"' '"max_abs_error"' '"time_ms": {"median"' '"bytes": {"fetch"' '"shape": [40, 31, 23]'; do
  grep -qF "$f" <<<"$rec" || err "record lacks $f: $rec"
done
"$FDX" stencil --backend cpu --op wave --order 8 --size 300x50 --reps 2 >"$tmp/table" || err "wave table exited $?"
grep -q "wave" "$tmp/table" && grep -q " yes$" "$tmp/table" || err "wave table: $(cat "$tmp/table")"
"$FDX" stencil --backend cpu --op heat --coef --order 12 --size 2001 --reps 2 --json | grep -q '"verified": true' || err "1D heat"

n=$("$FDX" bench stencil --backend cpu --quick --json --reps 2 | grep -c '"verified": true')
[ "$n" = 4 ] || err "bench stencil --quick: $n verified records, expected 4"

expect_usage "^fdx .*: error: " stencil --order 3
expect_usage "^fdx .*: error: " stencil --order 14
expect_usage "^fdx .*: error: " stencil --op diffuse
expect_usage "^fdx .*: error: " stencil --dims 2 --size 10x10x10
expect_usage "^fdx .*: error: " stencil --size 8x8x8 --order 8
expect_usage "^fdx .*: error: " stencil --precision int32
expect_usage "^fdx .*: error: " stencil --size 0x4
expect_usage "^fdx .*: error: " bench stencil --cases nosuchcase --backend cpu
expect_usage "^fdx .*: error: " bench stencil --suite foo
expect_usage "^fdx .*: error: " bench stencil --seed 3
expect_usage "^fdx .*: error: " bench stencil --suite random --quick

# the random-stencil suite: 100 cases, 2D and 3D, orders 2..12, the three
# updates, both precisions, the same list for the same seed; a small case
# runs verified with its suite and seed
"$FDX" bench stencil --suite random --list > "$tmp/list.txt"
if [ "$(wc -l < "$tmp/list.txt")" -ne 100 ] || [ "$(awk '{print $4}' "$tmp/list.txt" | sort -nu | tr '\n' ' ')" != "2 4 6 8 10 12 " ] ||
   [ "$(awk '{print $5}' "$tmp/list.txt" | sed 's/+coef//' | sort -u | tr '\n' ' ')" != "heat laplacian wave " ] ||
   [ "$(awk '{print $2}' "$tmp/list.txt" | sort -u | tr '\n' ' ')" != "double float " ] ||
   [ "$(awk '{print split($NF, x, "x")}' "$tmp/list.txt" | sort -u | tr -d '\n')" != 23 ] ||
   ! "$FDX" bench stencil --suite random --list | cmp -s - "$tmp/list.txt" ||
   "$FDX" bench stencil --suite random --seed 2 --list | cmp -s - "$tmp/list.txt"; then
  echo "FAIL: bench stencil --suite random --list:"; head -3 "$tmp/list.txt"; fail=1
fi
small=$(awk '{n=split($NF, x, "x"); p=1; for (i = 1; i <= n; i++) p *= x[i]; if (p < 200000) {print $1; exit}}' "$tmp/list.txt")
rec=$("$FDX" bench stencil --backend cpu --suite random --cases "$small" --reps 2 --json 2>&1)
if [ -z "$small" ] || ! grep -q '"verified": true' <<<"$rec" || ! grep -q '"suite": "random-stencil", "seed": 1' <<<"$rec"; then
  echo "FAIL: random stencil case '$small': $rec"; fail=1
fi
[ $fail = 0 ] && [ $fails = 0 ]
