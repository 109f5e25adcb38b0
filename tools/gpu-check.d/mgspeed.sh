# Multigrid speed A/B (issue 21 targets: 257^3 to 1e-10 in <= 20 ms, 513^3 in
# <= 120 ms, H100, 3D 7-point double), well under a minute: fdx mg --backend
# cuda at 257^3 and 513^3, each record the median of 3 warm solves
# (--repeat 3; time_s.solve_first is the cold one), tagged "variant":
#   default       FMG then V(2,2) cycles (--cycle fmg, the default since the
#                 FMG boundary fix), z-marching one-pass red-black (FDX_MG_GS2
#                 unset = z), prolongation in its own pass, one-pass
#                 residual+restriction, a CUDA graph a cycle
#   colour-fmg    FDX_MG_GS2=0: the two colour kernels in place, FMG
#   psmooth-fmg   FDX_MG_PSMOOTH=1: the prolongation folded into the first
#                 post-smoothing sweep (V: slower on the H100 before), FMG
#   v             --cycle v: V(2,2) cycles alone (the issue's <= 10 cycles)
# Then a table (mg_run.inc's mg_table: solve ms, ms a cycle, cycles, speedup) per size.  Records to
# $OUT/<date>_<gpu>_mgspeed.jsonl.
set -u
rec=$OUT/${GPU_CHECK_DATE}_${GPU_NAME}_mgspeed.jsonl
source "$(dirname "${BASH_SOURCE[0]}")/mg_run.inc"
run() { mg_run "$rec" "$@" --repeat 3; } # variant size env... -- flags...
for n in 257 513; do
  run default $n --
  run colour-fmg $n FDX_MG_GS2=0 --
  run psmooth-fmg $n FDX_MG_PSMOOTH=1 --
  run v $n -- --cycle v
done
mg_table "$rec" default
