# Boundary conditions in the same pass, box / div(k grad u) paths, wrapped
# arrays (issue 17 targets; docs/notes/stencil.md "2026-11-24: bcfuse").
# About a minute.  Run: tools/gpu-check bcfuse (after `ustencil` in the same
# call it reuses that section's tuning).
#  1. test_bc_gpu (the folded x faces of every strategy against pass +
#     plain kernel, bit for bit) and test_ustencil_wrap_gpu (wrapped and
#     fdx-allocated arrays: same results, and their times).
#  2. The 7-point Laplacian, one pinned configuration (the H100 512^3
#     winner, so every case runs the same kernel shape): interior-only,
#     Dirichlet and periodic on every face, every face in the unrolled
#     column without a pass (FDX_BC_FOLD=2) against the whole pass
#     (FDX_BC_FOLD=0), and at 512^3 double the x faces folded with stores
#     (FDX_BC_FOLD=1); 512^3 double (target: <= 1.03x interior-only),
#     256^3 double, 512^3 float.  Records
#     in *_bcfuse.jsonl ("bc_case", "fold" added), ratios in bcfuse.log.
#  3. bench ustencil: box27 and div_k_grad, float and double at 512^3,
#     double at 509x257x255 (BCFUSE_CASES), tuned (BCFUSE_TUNE, default on:
#     the cache, else a search whose stages compile in parallel; the
#     candidates include the pipelined march), target ratio_to_copy >= 0.90
#     at 512^3 double; records appended to the same file, the tuner's times
#     in bcfuse-tuning.txt.
set -u
log=$OUT/bcfuse.log
rec=$OUT/${GPU_CHECK_DATE}_${GPU_NAME}_bcfuse.jsonl
bin=$(dirname "$FDX_BIN")
for t in test_bc_gpu test_ustencil_wrap_gpu; do
  echo "== $t"
  if [ -x "$bin/$t" ]; then timeout 120 "$bin/$t" 2>&1 | tail -8; else echo "$t: not built"; fi
done >>"$log" 2>&1
grep -h '^{' "$log" | grep '"wrap"' >>"$rec"
tail -12 "$log"
# unroll 32x8 vec2 chunk 2 pd2 (fdx_stencil_cfg_format order)
pin=${BCFUSE_CFG:-"2 32 8 2 2 1 2 0 0 0 0 0 0 0 0"}
one() { # name fold size precision spec
  FDX_STENCIL_CFG="$pin" FDX_BC_FOLD=$2 timeout 60 "$FDX_BIN" stencil --backend cuda --size "$3" --order 2 \
    --precision "$4" --reps 30 --json ${5:+--boundary $5} 2>>"$log" |
    sed -e "s/^{/{\"bc_case\": \"$1\", \"fold\": $2, /" | tee -a "$rec" |
    grep -oE '"bc_case": "[^"]*"|"shape": \[[0-9, ]*\]|"precision": "[a-z]*"|"config": "[^"]*"|"median": [0-9.]+|"verified": [a-z]+' |
    tr '\n' ' ' >>"$log"
  echo >>"$log"
}
med() { # bc_case fold size-pattern precision
  grep "\"bc_case\": \"$1\", \"fold\": $2," "$rec" | grep "\"shape\": \[$3\]" | grep "\"precision\": \"$4\"" |
    grep -oE '"median": [0-9.]+' | cut -d' ' -f2 | head -1
}
# The whole pass (fold 0) only at 512^3 double: the A/B of the fold there.
# fold 2: every face in the unrolled column, no pass (FDX_BC_FOLD=2, session 7).
for shape in "512x512x512 double 2 1 0" "256x256x256 double 2 0" "512x512x512 float 2 0"; do
  set -- $shape
  size=$1 prec=$2
  shift 2
  folds="$*"
  one interior 1 "$size" "$prec" ""
  for fold in $folds; do
    one dirichlet $fold "$size" "$prec" all=dirichlet:0.5
    one periodic $fold "$size" "$prec" all=periodic
  done
  pat=$(echo "$size" | sed 's/x/, /g')
  base=$(med interior 1 "$pat" "$prec")
  for c in "dirichlet 2" "periodic 2" "dirichlet 1" "periodic 1" "dirichlet 0" "periodic 0"; do
    set -- $c
    m=$(med $1 $2 "$pat" "$prec")
    [ -n "$m" ] && [ -n "$base" ] && awk -v c="$1" -v f="$2" -v s="$size $prec" -v m="$m" -v b="$base" \
      'BEGIN { printf "bc %s %s fold=%s: %.4f ms, %.4f x interior-only %.4f ms (target <= 1.03)\n", s, c, f, m, m / b, b }' |
      tee -a "$log"
  done
done
echo "== bench ustencil box27/div_k_grad (tune ${BCFUSE_TUNE:-on})" | tee -a "$log"
cases=${BCFUSE_CASES:-box27_f64_512,div_f64_512,box27_f32_512,div_f32_512,box27_f64_509x257x255,div_f64_509x257x255}
FDX_LOG=info timeout 300 "$FDX_BIN" bench ustencil --backend cuda --tune "${BCFUSE_TUNE:-on}" --json --reps 20 \
  --cases "$cases" 2>>"$log" | tee -a "$rec" |
  grep -oE '"case": "[^"]*"|"config": "[^"]*"|"ratio_to_copy": [0-9.]+|"verified": [a-z]+' |
  tr '\n' ' ' | sed 's/"case"/\n"case"/g' | tee -a "$log"
echo
grep -E "user stencil (tuning|tuned)" "$log" | sed 's/^.*user stencil/user stencil/' >"$OUT/bcfuse-tuning.txt"
