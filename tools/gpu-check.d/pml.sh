# The wave's perfectly matched layer (issue 17 item 2, helper pml): the GPU
# test (test_pml_gpu: the CUDA passes against the plain-loop reference with
# poisoned outputs, the fused pass equal to the two passes bit for bit, and
# CUDA vs CPU, kernels and whole runs), a restart on
# CUDA against the straight run (checksums equal), then float order-8 wave
# runs on 256^3, 512^3 (PML_STEPS steps, default 200) and 1024x1024x512 with
# absorb = none, sponge and pml (20 cells; the PML fused and in its former
# two passes): the time per step of each, records in *_pml.jsonl ("absorb"
# and "variant" in each), the ratios in pml.log.  About 40 s.
set -u
log=$OUT/pml.log
rec=$OUT/${GPU_CHECK_DATE}_${GPU_NAME}_pml.jsonl
bin=$(dirname "$FDX_BIN")
w=/tmp/fdx-pml
rm -rf $w
mkdir -p $w
say() { echo "$*" | tee -a "$log"; }

say "== test_pml_gpu"
if [ -x "$bin/test_pml_gpu" ]; then timeout 60 "$bin/test_pml_gpu" 2>&1 | tail -6 | tee -a "$log"; else say "test_pml_gpu: not built"; fi

say "== restart on CUDA, absorb = pml: 200 steps straight vs 99 + 101 (the fused pass's psi in its second buffer at 99)"
common="--backend cuda --size 160x144 --absorb pml --progress off --json"
"$FDX_BIN" wave $common --steps 200 > $w/a.json 2>> "$log"
"$FDX_BIN" wave $common --steps 99 --output $w/r --checkpoint-every 99 > /dev/null 2>> "$log"
"$FDX_BIN" wave --backend cuda --restart $w/r --steps 200 --progress off --json > $w/b.json 2>> "$log"
ca=$(grep -oE '"checksum": \{[^}]*\}' $w/a.json) cb=$(grep -oE '"checksum": \{[^}]*\}' $w/b.json)
if [ -n "$ca" ] && [ "$ca" = "$cb" ]; then say "restart: identical checksums $ca"; else say "restart: DIFFER: '$ca' vs '$cb'"; fi

# Float order-8 waves, a 20-cell layer: the plain step (absorb = none), the
# sponge, the PML's fused pass and its former two passes (FDX_PML_TWOPASS=1)
# on 256^3, 512^3 and 1024x1024x512.  Each record gets "variant".
ms() { grep -oE '"per_step": [0-9.e-]+' $w/$1.json | cut -d' ' -f2; }
for shape in 256x256x256:300 512x512x512:${PML_STEPS:-200} 1024x1024x512:100; do
  size=${shape%:*} steps=${shape#*:}
  for v in none sponge pml pml2; do
    absorb=${v%2}
    env $([ $v = pml2 ] && echo FDX_PML_TWOPASS=1) timeout 60 "$FDX_BIN" wave --backend cuda --size $size --order 8 \
      --precision float --steps $steps --absorb $absorb $([ $v != none ] && echo --sponge 20) --progress off --json \
      2>> "$log" > $w/$v.json
    sed "s/^{/{\"variant\": \"$v\", /" $w/$v.json >> "$rec"
  done
  n=$(ms none) s=$(ms sponge) p=$(ms pml) t=$(ms pml2)
  [ -n "$n" ] && [ -n "$s" ] && [ -n "$p" ] && [ -n "$t" ] && awk -v z="$size" -v n="$n" -v s="$s" -v p="$p" -v t="$t" 'BEGIN {
    printf "%s float order 8, s a step: none %.6f, sponge %.6f (%.3fx), pml fused %.6f (%.3fx), pml two passes %.6f (%.3fx)\n",
           z, n, s, s / n, p, p / n, t, t / n }' | tee -a "$log" || say "$size: a run failed (see above)"
done
rm -rf $w
