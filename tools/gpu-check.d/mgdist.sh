# Multigrid distributed over units (issue 21 item 5; target: 2 H200s solve
# 513^3 at >= 1.6x one GPU), well under a minute: fdx mg --backend cuda
# 257^3 and 513^3 (FMG then V(2,2) to 1e-10, median of 2 warm solves), tagged
# "variant":
#   one        the one-unit solver (z-marching sweeps, fused
#              residual+restriction, a CUDA graph a cycle)
#   one-plain  FDX_MG_GRAPH=0 FDX_MG_FUSE=0: the kernels the units run
#              (the z-marching sweep, residual and restriction apart, no
#              graph): the distribution's kernel baseline
#   gpus1      --gpus 1: the distributed path on one unit (its overhead
#              over one-plain: events, renewals of shadows with no
#              neighbour are none, host calls a unit)
#   gpus2-1dev --gpus 2 with one device: both units on it (the exchanges'
#              and the second unit's launches' cost; no speedup possible)
#   gpus2      --gpus 2 on two devices (only when two are visible)
#   *-g256k    513^3 only: FDX_MG_GATHER=262144, the levels below 262144
#              unknowns a unit gathered (level 3 of 513^3 on one unit)
# Each record has cycles, verified, gpus/units/levels_distributed; the table
# adds the speedup over "one".  Records to $OUT/<date>_<gpu>_mgdist.jsonl.
set -u
rec=$OUT/${GPU_CHECK_DATE}_${GPU_NAME}_mgdist.jsonl
ndev=$(nvidia-smi -L 2>/dev/null | wc -l)
source "$(dirname "${BASH_SOURCE[0]}")/mg_run.inc"
run() { mg_run "$rec" "$@" --repeat 2; } # variant size env... -- flags...
for n in 257 513; do
  run one $n --
  run one-plain $n FDX_MG_GRAPH=0 FDX_MG_FUSE=0 --
  run gpus1 $n -- --gpus 1
  two=gpus2; [ "$ndev" -ge 2 ] || two=gpus2-1dev
  run $two $n -- --gpus 2
  [ $n = 513 ] && run $two-g256k $n FDX_MG_GATHER=262144 -- --gpus 2
done
mg_table "$rec" one
