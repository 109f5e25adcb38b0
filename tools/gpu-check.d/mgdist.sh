# Multigrid distributed over units (issue 21 item 5; target: 2 H200s solve
# 513^3 at >= 1.6x one GPU): the distributed path's own cost on one GPU,
# ~1 minute (12 runs): fdx mg --backend cuda 257^3 and 513^3 (FMG then V(2,2) to
# 1e-10, median of 2 warm solves), tagged "variant":
#   one          the one-unit solver (z-marching sweeps, fused
#                residual+restriction, a CUDA graph a cycle)
#   gpus1        --gpus 1: the distributed path on one unit (session 8: a
#                CUDA graph of the whole distributed cycle, the fused
#                residual+restriction on the blocks, no renewal calls on a
#                unit without neighbours, the gathered level by device box
#                copies instead of the host): should be within a few % of one
#   gpus1-nograph   the same with FDX_MG_GRAPH=0 (what the graph saves)
#   gpus1-twopass   FDX_MG_FUSE=0 (what the fused restriction saves)
#   gpus2-1dev   --gpus 2 with one device: both units on it (the renewals'
#                peer copies and the second unit's kernels; no speedup
#                possible); gpus2 on two devices (only when two are visible)
#   gpus2-1dev-nograph   257^3 only: the same with FDX_MG_GRAPH=0
#   *-g256k      513^3 only: FDX_MG_GATHER=262144 (levels below 262144
#                unknowns a unit gathered: level 3 of 513^3 on one unit)
# Each record has cycles, verified, gpus/units/levels_distributed; the table
# adds the speedup over "one".  A line "the cycle's CUDA graph: ..." on
# stderr means the capture failed (plain launches, results still right).
# Records to $OUT/<date>_<gpu>_mgdist.jsonl.
set -u
rec=$OUT/${GPU_CHECK_DATE}_${GPU_NAME}_mgdist.jsonl
ndev=$(nvidia-smi -L 2>/dev/null | wc -l)
source "$(dirname "${BASH_SOURCE[0]}")/mg_run.inc"
run() { mg_run "$rec" "$@" --repeat 2; } # variant size env... -- flags...
for n in 257 513; do
  two=gpus2; [ "$ndev" -ge 2 ] || two=gpus2-1dev
  run one $n --
  run gpus1 $n -- --gpus 1
  run gpus1-nograph $n FDX_MG_GRAPH=0 -- --gpus 1
  run gpus1-twopass $n FDX_MG_FUSE=0 -- --gpus 1
  run $two $n -- --gpus 2
  if [ $n = 513 ]; then run $two-g256k $n FDX_MG_GATHER=262144 -- --gpus 2
  else run $two-nograph $n FDX_MG_GRAPH=0 -- --gpus 2; fi
done
mg_table "$rec" one
