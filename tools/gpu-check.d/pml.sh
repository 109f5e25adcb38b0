# The wave's perfectly matched layer (issue 17 item 2, helper pml): the GPU
# test (test_pml_gpu: the CUDA passes against the plain-loop reference with
# poisoned outputs, and CUDA vs CPU, kernels and whole runs), a restart on
# CUDA against the straight run (checksums equal), then 512^3 float order-8
# wave runs of PML_STEPS steps (default 300) with absorb = none, sponge and
# pml (20 cells): the time per step of each, records in *_pml.jsonl
# ("absorb" in each), the ratios in pml.log.  Under 30 s.
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

say "== restart on CUDA, absorb = pml: 200 steps straight vs 100 + 100"
common="--backend cuda --size 160x144 --absorb pml --progress off --json"
"$FDX_BIN" wave $common --steps 200 > $w/a.json 2>> "$log"
"$FDX_BIN" wave $common --steps 100 --output $w/r --checkpoint-every 100 > /dev/null 2>> "$log"
"$FDX_BIN" wave --backend cuda --restart $w/r --steps 200 --progress off --json > $w/b.json 2>> "$log"
ca=$(grep -oE '"checksum": \{[^}]*\}' $w/a.json) cb=$(grep -oE '"checksum": \{[^}]*\}' $w/b.json)
if [ -n "$ca" ] && [ "$ca" = "$cb" ]; then say "restart: identical checksums $ca"; else say "restart: DIFFER: '$ca' vs '$cb'"; fi

for absorb in none sponge pml; do
  timeout 60 "$FDX_BIN" wave --backend cuda --size 512x512x512 --order 8 --precision float --steps "${PML_STEPS:-300}" \
    --absorb $absorb --progress off --json 2>> "$log" | tee -a "$rec" > $w/$absorb.json
  say "$absorb: $(grep -oE '"per_step": [0-9.e-]+' $w/$absorb.json)"
done
ms() { grep -oE '"per_step": [0-9.e-]+' $w/$1.json | cut -d' ' -f2; }
n=$(ms none) s=$(ms sponge) p=$(ms pml)
[ -n "$n" ] && [ -n "$s" ] && [ -n "$p" ] && awk -v n="$n" -v s="$s" -v p="$p" 'BEGIN {
  printf "512^3 float order 8, s a step: none %.6f, sponge %.6f (%.3f x none), pml %.6f (%.3f x none, %.3f x sponge)\n",
         n, s, s / n, p, p / n, p / s }' | tee -a "$log"
rm -rf $w
