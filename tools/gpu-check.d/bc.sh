# Boundary conditions (issue 17 item 2): the GPU tests (test_bc_gpu: the
# CUDA pass against the reference and the CPU pass, bit for bit;
# test_bc_nvrtc), then the 7-point Laplacian 512^3 double interior-only,
# with Dirichlet and with periodic conditions on every face (the boundary
# pass and the interior kernel, each apply), BC_ROUNDS rounds alternating
# the three so drift hits all alike (default 3).  Target: the medians with
# conditions within 3% of interior-only.  Records (one per run, "bc_case"
# added) in *_bc.jsonl; the ratios in bc.log.
set -u
log=$OUT/bc.log
rec=$OUT/${GPU_CHECK_DATE}_${GPU_NAME}_bc.jsonl
bin=$(dirname "$FDX_BIN")
for t in test_bc_gpu test_bc_nvrtc; do
  echo "== $t"
  if [ -x "$bin/$t" ]; then "$bin/$t" 2>&1 | tail -8; else echo "$t: not built"; fi
done >>"$log" 2>&1
tail -4 "$log"
# Tune once (interior-only); the other runs read the tuned configuration.
timeout 200 "$FDX_BIN" stencil --backend cuda --size 512x512x512 --order 2 --tune force --reps 5 >>"$log" 2>&1
for round in $(seq 1 "${BC_ROUNDS:-3}"); do
  for c in "interior|" "dirichlet|all=dirichlet:0.5" "periodic|all=periodic"; do
    name=${c%%|*} spec=${c#*|}
    timeout 200 "$FDX_BIN" stencil --backend cuda --size 512x512x512 --order 2 --precision double --reps 50 --json \
      ${spec:+--boundary $spec} 2>>"$log" | sed -e "s/^{/{\"bc_case\": \"$name\", \"round\": $round, /" | tee -a "$rec" |
      grep -oE '"bc_case": "[^"]*"|"config": "[^"]*"|"median": [0-9.]+|"ratio_to_copy": [0-9.]+|"verified": [a-z]+' |
      tr '\n' ' ' | tee -a "$log"
    echo | tee -a "$log"
  done
done
# Median of each case's medians, and the ratio to interior-only.
med() { grep "\"bc_case\": \"$1\"" "$rec" | grep -oE '"median": [0-9.]+' | cut -d' ' -f2 | sort -g |
        awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'; }
base=$(med interior)
for c in interior dirichlet periodic; do
  m=$(med $c)
  [ -n "$m" ] && [ -n "$base" ] && awk -v c=$c -v m="$m" -v b="$base" \
    'BEGIN { printf "bc %s: median %.4f ms, %.4f x interior-only (target <= 1.03)\n", c, m, m / b }' | tee -a "$log"
done
