# Boundary conditions in the same pass, box / div(k grad u) paths, wrapped
# arrays (issue 17 targets; docs/notes/stencil.md "2026-11-24 session 7" and
# "session 8 (helper bc)", docs/notes/userapi.md "session 9, helper bc").
# Session 9: FDX_BC_FOLD=4 (register fix-ups, the plain point code at the
# pin's 40 registers) is the default on CUDA with the x faces only
# (FDX_BC_FIX=3; the pass does y and z); compare the lines "fold=4" (the
# default) and the at3 / xz-at3 variants with "fold=0" (the whole pass) in
# bcfuse.log (target <= 1.03).
# About a minute.  Run: tools/gpu-check bcfuse
# (after `ustencil` in the same call it reuses that section's tuning).
#  1. test_bc_gpu plain, then with FDX_BC_FOLD=2 and 3 (every strategy the
#     tuner tries, forced: every face in the unrolled column, the pass
#     elsewhere, against pass + plain kernel bit for bit; u untouched where
#     nothing is stored; session 8: the point code's explicit roundings make
#     fold 2 bit for bit on the GPU too), FDX_BC_FOLD=3 also under
#     compute-sanitizer memcheck; test_ustencil_wrap_gpu.
#  2. The 7-point Laplacian, one pinned configuration (the H100 512^3
#     winner unroll 32x8 vec2 chunk 2 pd2, BCFUSE_CFG): interior-only,
#     Dirichlet and periodic on every face with every face in the kernel
#     (FDX_BC_FOLD=2, one launch: 46 / 60 registers against 40), in a split
#     grid (FDX_BC_FOLD=3: the 28% of blocks that touch a face in one
#     launch, the others in the plain 40-register kernel) and with the whole
#     pass (FDX_BC_FOLD=0).  512^3 double (target: <= 1.03x interior-only;
#     all three folds), 256^3 double and 512^3 float (folds 3 and 0).
#     Records in *_bcfuse.jsonl ("bc_case", "fold", "pin"), ratios in
#     bcfuse.log.
#  3. bench ustencil (only with BCFUSE_USTENCIL=1): box27 and div_k_grad,
#     target ratio_to_copy >= 0.90 at 512^3 double; records appended, the
#     tuner's times in bcfuse-tuning.txt.
set -u
log=$OUT/bcfuse.log
rec=$OUT/${GPU_CHECK_DATE}_${GPU_NAME}_bcfuse.jsonl
bin=$(dirname "$FDX_BIN")
{
  for t in test_bc_gpu test_ustencil_wrap_gpu; do
    echo "== $t"
    if [ -x "$bin/$t" ]; then timeout 120 "$bin/$t" 2>&1 | tail -8; else echo "$t: not built"; fi
  done
  for f in 0 4; do
    echo "== FDX_BC_FOLD=$f test_bc_gpu"
    FDX_BC_FOLD=$f timeout 120 "$bin/test_bc_gpu" 2>&1 | tail -8
  done
  echo "== FDX_BC_FOLD=4 FDX_BC_FIX=51 FDX_BC_FIXAT=3 test_bc_gpu"
  FDX_BC_FOLD=4 FDX_BC_FIX=51 FDX_BC_FIXAT=3 timeout 120 "$bin/test_bc_gpu" 2>&1 | tail -4
  echo "== FDX_BC_FOLD=4 compute-sanitizer memcheck test_bc_gpu"
  FDX_BC_FOLD=4 FDX_TEST_SANITIZER=1 timeout 240 compute-sanitizer --tool memcheck --error-exitcode 99 \
    "$bin/test_bc_gpu" 2>&1 | tail -6
  echo "sanitizer exit ${PIPESTATUS[0]}"
} >>"$log" 2>&1
grep -h '^{' "$log" | grep '"wrap"' >>"$rec"
tail -24 "$log"
# unroll 32x8 vec2 chunk 2 pd2 (fdx_stencil_cfg_format order: variant tx ty
# vec chunk by pd zfast pipe win minb ...)
pin=${BCFUSE_CFG:-"2 32 8 2 2 1 2 0 0 0 0 0 0 0 0"}
one() { # name fold size precision spec [pin-name pin]
  FDX_STENCIL_CFG="${7:-$pin}" FDX_BC_FOLD=$2 timeout 60 "$FDX_BIN" stencil --backend cuda --size "$3" --order 2 \
    --precision "$4" --reps 30 --json ${5:+--boundary $5} 2>>"$log" |
    sed -e "s/^{/{\"bc_case\": \"$1\", \"fold\": $2, \"pin\": \"${6:-default}\", /" | tee -a "$rec" |
    grep -oE '"bc_case": "[^"]*"|"pin": "[^"]*"|"shape": \[[0-9, ]*\]|"precision": "[a-z]*"|"config": "[^"]*"|"median": [0-9.]+|"verified": [a-z]+' |
    tr '\n' ' ' >>"$log"
  echo >>"$log"
}
med() { # bc_case fold size-pattern precision pin-name
  grep "\"bc_case\": \"$1\", \"fold\": $2, \"pin\": \"$5\"," "$rec" | grep "\"shape\": \[$3\]" |
    grep "\"precision\": \"$4\"" | grep -oE '"median": [0-9.]+' | cut -d' ' -f2 | head -1
}
ratio() { # size precision pin-name base-case-fold case fold
  local pat b m
  pat=$(echo "$1" | sed 's/x/, /g')
  b=$(med interior 0 "$pat" "$2" "$3")
  m=$(med "$4" "$5" "$pat" "$2" "$3")
  [ -n "$m" ] && [ -n "$b" ] && awk -v c="$4" -v f="$5" -v s="$1 $2 pin $3" -v m="$m" -v b="$b" \
    'BEGIN { printf "bc %s %s fold=%s: %.4f ms, %.4f x interior-only %.4f ms (target <= 1.03)\n", s, c, f, m, m / b, b }' |
    tee -a "$log"
}
for shape in "512x512x512 double" "256x256x256 double" "512x512x512 float"; do
  set -- $shape
  size=$1 prec=$2
  folds="${BCFUSE_FOLDS_SMALL:-4 0}"
  [ "$size $prec" = "512x512x512 double" ] && folds="${BCFUSE_FOLDS:-4 0}"
  one interior 0 "$size" "$prec" ""
  for fold in $folds; do
    one dirichlet $fold "$size" "$prec" all=dirichlet:0.5
    one periodic $fold "$size" "$prec" all=periodic
  done
  # a second interior-only run: the spread between two identical runs
  [ "$size $prec" = "512x512x512 double" ] && one interior 0 "$size" "$prec" "" again "$pin"
  for fold in $folds; do for c in dirichlet periodic; do ratio "$size" "$prec" default $c $fold; done; done
done
# Session 9's variants at 512^3 double (the 10:17 run: fold 4 with the x
# fix-ups only, FDX_BC_FIX=3, 1.031 / 1.036, now the default; with the z
# faces' too 1.11): the x faces' fix-ups kept branches (FDX_BC_FIXAT=3), and
# the x and z faces' kept branches (FDX_BC_FIX=51 FDX_BC_FIXAT=3).
FDX_BC_FIXAT=3 one dirichlet-at3 4 512x512x512 double all=dirichlet:0.5
FDX_BC_FIXAT=3 one periodic-at3 4 512x512x512 double all=periodic
FDX_BC_FIX=51 FDX_BC_FIXAT=3 one dirichlet-xz-at3 4 512x512x512 double all=dirichlet:0.5
FDX_BC_FIX=51 FDX_BC_FIXAT=3 one periodic-xz-at3 4 512x512x512 double all=periodic
for c in dirichlet-at3 periodic-at3 dirichlet-xz-at3 periodic-xz-at3; do ratio 512x512x512 double default $c 4; done
# session 9: off by default (the tuned run re-tunes every case with the tile
# candidates, utune 7: minutes); `tools/gpu-check ustencil` pins them instead
[ "${BCFUSE_USTENCIL:-0}" = 0 ] && exit 0
echo "== bench ustencil box27/div_k_grad (tune ${BCFUSE_TUNE:-on})" | tee -a "$log"
cases=${BCFUSE_CASES:-box27_f64_512,div_f64_512,box27_f32_512,div_f32_512,box27_f64_509x257x255,div_f64_509x257x255}
FDX_LOG=info timeout 300 "$FDX_BIN" bench ustencil --backend cuda --tune "${BCFUSE_TUNE:-on}" --json --reps 20 \
  --cases "$cases" 2>>"$log" | tee -a "$rec" |
  grep -oE '"case": "[^"]*"|"config": "[^"]*"|"ratio_to_copy": [0-9.]+|"verified": [a-z]+' |
  tr '\n' ' ' | sed 's/"case"/\n"case"/g' | tee -a "$log"
echo
grep -E "user stencil (tuning|tuned)" "$log" | sed 's/^.*user stencil/user stencil/' >"$OUT/bcfuse-tuning.txt"
