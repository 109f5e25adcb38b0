#!/usr/bin/env bash
# User stencils from the command line: the examples of examples/stencil
# (built next to fdx) run and check themselves on the CPU backend (and on
# the default backend, the GPU where there is one); `fdx bench ustencil
# --quick` verifies its cases and writes records with the fields the
# benchmark section reads; bad flags exit 2.
source "$(dirname "$0")/lib_cli.sh"
n=0
check() { n=$((n + 1)); if ! eval "$1"; then echo "FAIL: $2"; fails=$((fails + 1)); fi; }
dir=$(dirname "$fdx")
for ex in box_smoother varcoef_poisson; do
  if [ -x "$dir/$ex" ]; then
    out=$(FDX_BACKEND=cpu "$dir/$ex" 2>&1); rc=$?
    check '[ $rc -eq 0 ]' "$ex on the CPU exits $rc: $out"
    out=$("$dir/$ex" 2>&1); rc=$?
    check '[ $rc -eq 0 ]' "$ex on the default backend exits $rc: $out"
  else
    check 'false' "examples/stencil/$ex was not built next to fdx"
  fi
done
check 'grep -q "second order" <<<"$(FDX_BACKEND=cpu "$dir/varcoef_poisson" 2>&1)"' "varcoef_poisson reports second order"
json=$("$fdx" bench ustencil --backend cpu --quick --json 2>&1); rc=$?
check '[ $rc -eq 0 ]' "bench ustencil --quick exits $rc: $json"
for field in '"op": "box27"' '"op": "div_k_grad"' '"ratio_to_copy"' '"shape"' '"precision"' '"verified": true'; do
  check 'grep -q "$field" <<<"$json"' "bench ustencil record has $field: $json"
done
check '[ "$(grep -c "^{" <<<"$json")" -eq 2 ]' "bench ustencil --quick writes 2 records: $json"
list=$("$fdx" bench ustencil --backend cpu --list); rc=$?
check '[ $rc -eq 0 ] && grep -q "^box27_f64_256$" <<<"$list"' "bench ustencil --list: $list"
expect_usage "names no case" bench ustencil --backend cpu --quick --cases nothing
expect_usage "reps" bench ustencil --reps 0
echo "cli_ustencil: $((n + checks - fails)) passed, $fails failed"
[ $fails -eq 0 ]
