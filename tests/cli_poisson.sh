#!/usr/bin/env bash
# fdx poisson solves by multigrid by default (fdx mg's driver: the same
# record and residual history), reaches 1e-10 with the error at the
# discretization level (falling as h^2), exits 1 when --steps cycles are too
# few; --method jacobi is the old simulation with its outputs; a flag of the
# other method is exit 2 with one line.
source "$(dirname "$0")/lib_cli.sh"
export FDX_BACKEND=cpu
check() { checks=$((checks + 1)); if ! eval "$1"; then echo "FAIL: $2"; fails=$((fails + 1)); fi; }

json=$("$fdx" poisson --size 33x33x33 --json); rc=$?
check '[ $rc -eq 0 ]' "default run exit $rc: $json"
for field in '"case": "poisson"' '"solver": "mg"' '"cycle": "fmg"' '"smoother": "rbgs"' '"tol": 1e-10' \
             '"residual_history"' '"per_cycle"' '"error_max"' '"verified": true'; do
  check 'grep -q "$field" <<<"$json"' "record has $field: $json"
done
mgjson=$("$fdx" mg --size 33x33x33 --json)
hist() { python3 -c 'import json,sys; r=json.loads(sys.argv[1]); print(r["cycles"], r["residual_history"], r["error_max"])' "$1"; }
if command -v python3 >/dev/null; then
  check 'python3 -c "
import json,sys
r = json.loads(sys.argv[1])
assert r[\"final_residual\"] <= 1e-10, r
assert r[\"cycles\"] <= 10, r
assert r[\"error_max\"] <= 1.25 * r[\"discretization_error\"], r
" "$json"' "1e-10 in <= 10 cycles, error at the discretization level: $json"
  # the issue's bound: V(2,2) cycles alone (--cycle v) reach 1e-10 in <= 10
  vjson=$("$fdx" poisson --size 33x33x33 --cycle v --json)
  check 'python3 -c "
import json,sys
r = json.loads(sys.argv[1])
assert r[\"cycle\"] == \"v\" and r[\"pre\"] == 2 and r[\"post\"] == 2, r
assert r[\"final_residual\"] <= 1e-10 and r[\"cycles\"] <= 10, r
" "$vjson"' "--cycle v: V(2,2) reaches 1e-10 in <= 10 cycles: $vjson"
  check '[ "$(hist "$json")" = "$(hist "$mgjson")" ]' "poisson and mg: one solver, one history: $(hist "$json") vs $(hist "$mgjson")"
  # second order: the error falls by ~4 when h halves
  e1=$("$fdx" poisson --size 33x33 --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["error_max"])')
  e2=$("$fdx" poisson --size 65x65 --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["error_max"])')
  check 'python3 -c "import sys; q = float(sys.argv[1]) / float(sys.argv[2]); assert 3.6 < q < 4.4, q" "$e1" "$e2"' \
    "error ratio 33^2 / 65^2 is ~4: $e1 / $e2"
fi

out=$("$fdx" poisson --size 65x65 --plot res.png 2>&1); rc=$?
check '[ $rc -eq 0 ]' "table run exit $rc: $out"
check 'grep -q "^fdx poisson: mg, fmg-cycle, rbgs" <<<"$out"' "table names the command and solver: $out"
check 'grep -q "reached tol" <<<"$out" && grep -q "a cycle" <<<"$out" && grep -q "at the discretization level" <<<"$out"' \
  "table reports cycles, time per cycle and the error: $out"
check '[ "$(head -c 8 res.png | od -An -tx1 | tr -d " ")" = "89504e470d0a1a0a" ]' "--plot writes a PNG"
for args in "--size 40x41 --cycle w --smoother jacobi" "--size 31x31x31 --cycle fmg --smoother cheby" \
            "--size 24x30x20 --cycle f --bc periodic" "--size 33x33 --solver cg --method mg"; do
  out=$("$fdx" poisson $args 2>&1); rc=$?
  check '[ $rc -eq 0 ] && grep -q "at the discretization level" <<<"$out"' "fdx poisson $args: exit $rc: $out"
done

"$fdx" poisson --size 33x33x33 --steps 2 >out.txt 2>err.txt; rc=$?
check '[ $rc -eq 1 ]' "2 cycles cannot reach 1e-10: exit $rc"
check '[ $(wc -l <err.txt) -eq 1 ] && grep -q "not reached within --steps" err.txt' "says so in one line: $(cat err.txt)"

# --method jacobi: the simulation, its outputs
"$fdx" poisson --method jacobi --size 17x17 --tol 1e-8 --output jac --progress off --json >jac.json 2>err.txt; rc=$?
check '[ $rc -eq 0 ] && grep -q "\"case\": \"poisson\"" jac.json && [ -s jac/summary.json ]' \
  "jacobi run with --output: exit $rc: $(cat err.txt)"
"$fdx" poisson --method=jacobi --help | grep -q -- "--snapshot-every"; check '[ $? -eq 0 ]' "jacobi help lists its flags"
"$fdx" poisson --help >help.txt
check 'grep -q -- "--method mg|jacobi" help.txt && grep -q -- "--cycle" help.txt' "poisson help: mg flags and --method"
rm -f help.txt

expect_usage "method jacobi" poisson --size 9x9 --output out
expect_usage "method jacobi" poisson --config run.ini
expect_usage "method jacobi" poisson --checkpoint-every 3
expect_usage "method mg" poisson --method jacobi --cycle v
expect_usage "method mg" poisson --method jacobi --plot p.png
expect_usage "method mg" poisson --method=jacobi --bc=neumann
expect_usage "mg or jacobi" poisson --method sor
expect_usage "twice" poisson --method mg --method mg
expect_usage "needs a value" poisson --method
expect_usage "cycle" poisson --cycle x
expect_usage "steps" poisson --steps 0
expect_usage "order" poisson --order 6
expect_usage "unknown flag" poisson --frobnicate
check '[ ! -e out ]' "a refused --output made no directory"
echo "cli_poisson: $((checks - fails)) of $checks passed"
[ $fails -eq 0 ]
