#!/usr/bin/env bash
# fdx mg end to end on the CPU: every boundary kind, solver and cycle
# verifies (exit 0) with a JSON record of the schema's fields; a plot is a
# PNG; unreachable tolerances exit 1; bad flags exit 2 with one line.
source "$(dirname "$0")/lib_cli.sh"
check() { checks=$((checks + 1)); if ! eval "$1"; then echo "FAIL: $2"; fails=$((fails + 1)); fi; }

json=$("$fdx" mg --backend cpu --size 33x33x33 --json); rc=$?
check '[ $rc -eq 0 ]' "json run exit $rc: $json"
check '[ $(wc -l <<<"$json") -eq 1 ]' "one record"
for field in '"case": "poisson"' '"backend": "cpu"' '"device"' '"shape": \[33, 33, 33\]' '"cycles"' '"tol": 1e-10' \
             '"final_residual"' '"solve"' '"residual_history"' '"verified": true' '"error_max"'; do
  check 'grep -q "$field" <<<"$json"' "record has $field: $json"
done
if command -v python3 >/dev/null; then
  check 'python3 -c "
import json,sys
r = json.loads(sys.argv[1])
assert r[\"final_residual\"] <= 1e-10, r
assert len(r[\"residual_history\"]) == r[\"cycles\"] + 1
assert r[\"cycles\"] <= 10
" "$json"' "record parses, residual below tol, <= 10 cycles: $json"
fi

for args in "--size 40x41 --bc neumann" "--size 24x30x20 --bc periodic" "--size 65x33 --solver cg --smoother cheby" \
            "--size 31x31x31 --cycle w --smoother jacobi" "--size 31x31x31 --cycle f" "--size 129x129 --cycle fmg --coarse 40" \
            "--size 20x20x20 --solver cg --bc neumann --cycle v" "--size 33x33x33 --order 4" "--size 100x64 --order 4 --smoother cheby"; do
  out=$("$fdx" mg --backend cpu $args 2>&1); rc=$?
  check '[ $rc -eq 0 ]' "fdx mg $args: exit $rc: $out"
  check 'grep -q "at the discretization level" <<<"$out"' "fdx mg $args: error not at the discretization level"
done

# variable coefficients: the error falls at second order against half the grid
for args in "--size 33x33x33 --coef smooth" "--size 48x40 --coef smooth --bc neumann" "--size 24x24x24 --coef smooth --bc periodic --solver cg" \
            "--size 33x33x33 --coef jump --solver cg" "--size 65x65 --coef jump:1e4" "--size 31x31x31 --coef smooth --smoother cheby --cycle fmg"; do
  out=$("$fdx" mg --backend cpu $args --json 2>&1); rc=$?
  check '[ $rc -eq 0 ]' "fdx mg $args: exit $rc: $out"
  check 'grep -q "\"verified\": true" <<<"$out" && grep -q "\"order_observed\": [12]\.[0-9]" <<<"$out"' "fdx mg $args: not second order: $out"
done
# k from a file (fdx heat's field: positive, one plane): u* is the exact discrete solution
"$fdx" heat --size 12x10 --init gaussian --steps 2 --field-every 2 --output kfield --progress off >/dev/null 2>&1
kh5=$(ls kfield/fields/*.h5 2>/dev/null | tail -1)
if [ -n "$kh5" ]; then
  out=$("$fdx" mg --backend cpu --size 12x10 --coef "$kh5" 2>&1); rc=$?
  check '[ $rc -eq 0 ] && grep -q "within 1e-6 of it" <<<"$out"' "fdx mg --coef FILE: exit $rc: $out"
  out=$("$fdx" mg --backend cpu --size 12x11 --coef "$kh5" 2>&1); rc=$?
  check '[ $rc -ne 0 ] && [ $(wc -l <<<"$out") -eq 1 ] && grep -q "the grid 12x11" <<<"$out"' "wrong-shape coefficient file: exit $rc: $out"
fi

"$fdx" mg --backend cpu --size 65x65 --plot res.png >/dev/null; rc=$?
check '[ $rc -eq 0 ] && [ "$(head -c 8 res.png | od -An -tx1 | tr -d " ")" = "89504e470d0a1a0a" ]' "plot is a PNG (exit $rc)"

"$fdx" mg --backend cpu --size 33x33x33 --steps 2 >out.txt 2>err.txt; rc=$?
check '[ $rc -eq 1 ]' "2 cycles cannot reach 1e-10: exit $rc"
check 'grep -q "not reached" err.txt' "says the tolerance was not reached: $(cat err.txt)"

# --repeat N: the median of N warm solves, the first kept apart; the same answer
json=$("$fdx" mg --backend cpu --size 17x17x17 --repeat 3 --json); rc=$?
check '[ $rc -eq 0 ] && grep -q "\"repeat\": 3" <<<"$json" && grep -q "\"solve_first\"" <<<"$json" && grep -q "\"verified\": true" <<<"$json"' \
  "fdx mg --repeat 3: exit $rc: $json"
out=$("$fdx" mg --backend cpu --size 17x17x17 --repeat 2); rc=$?
check '[ $rc -eq 0 ] && grep -q "median of 2 repeats" <<<"$out"' "fdx mg --repeat 2 table: exit $rc: $out"
expect_usage "repeat" mg --repeat -1
expect_usage "cycle" mg --cycle x
expect_usage "smoother" mg --smoother sor
expect_usage "size" mg --size 2x9
expect_usage "tol" mg --tol 2
expect_usage "steps" mg --steps 0
expect_usage "now called '--steps'" mg --max-cycles 3
expect_usage "boundary" mg --bc robin
expect_usage "both 0" mg --pre 0 --post 0
expect_usage "order" mg --order 3
expect_usage "order 4" mg --order 4 --bc periodic
expect_usage "coef" mg --coef wavy
expect_usage "jump ratio" mg --coef jump:-3
expect_usage "order 2 only" mg --coef smooth --order 4
expect_usage "needs --bc dirichlet" mg --coef jump --bc neumann
"$fdx" --help | grep -q " mg "; check '[ $? -eq 0 ]' "--help lists mg"
echo "cli_mg: $((checks - fails)) of $checks passed"
[ $fails -eq 0 ]
