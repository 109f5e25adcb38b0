# Multigrid speed A/B (issue 21 targets: 257^3 to 1e-10 in <= 20 ms, 513^3 in
# <= 120 ms, H100, 3D 7-point double), well under a minute: fdx mg --backend
# cuda at 257^3 and 513^3, each record the median of 3 warm solves
# (--repeat 3; time_s.solve_first is the cold one), tagged "variant":
#   default       z-marching one-pass red-black (FDX_MG_GS2 unset = z), the
#                 prolongation folded into the first post-smoothing sweep,
#                 one-pass residual+restriction marching fine planes (each
#                 residual once), a CUDA graph a cycle
#   rr-percoarse  FDX_MG_RR=0: the one-pass residual+restriction a thread per
#                 coarse point (last session's fused kernel, L1-bound)
#   no-psmooth    FDX_MG_PSMOOTH=0: prolongation in its own pass
#   colour        FDX_MG_GS2=0: the two colour kernels in place (the default
#                 until this session)
#   colour-2pass  FDX_MG_GS2=0 FDX_MG_FUSE=0: as two sessions ago
#   two-pass      FDX_MG_FUSE=0: residual array, then restriction
#   ring          FDX_MG_GS2=1: the shared-ring one-pass sweep
#   zchunk8/64    FDX_MG_ZCHUNK: planes a block of the z-marching sweep
#   normfuse      FDX_MG_NORMFUSE=1: each cycle's residual norm inside the
#                 next cycle's first pre-smoothing sweep (no residual pass)
#   no-graph      FDX_MG_GRAPH=0: plain launches
#   fmg, colour-fmg  --cycle fmg (FMG, then V-cycles) with either sweep
# Then a table (solve ms, ms a cycle, cycles, verified) per size.  Records to
# $OUT/<date>_<gpu>_mgspeed.jsonl.
set -u
rec=$OUT/${GPU_CHECK_DATE}_${GPU_NAME}_mgspeed.jsonl
run() { # variant size env... -- flags...
  local variant=$1 n=$2; shift 2
  local envs=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  env ${envs[@]+"${envs[@]}"} "$FDX_BIN" mg --backend cuda --size ${n}x${n}x${n} --tol 1e-10 --repeat 3 --json "$@" |
    sed "s/^{/{\"variant\": \"$variant\", /" >>"$rec"
  echo "mgspeed $variant $n^3 exit ${PIPESTATUS[0]}"
}
for n in 257 513; do
  run default $n --
  run no-psmooth $n FDX_MG_PSMOOTH=0 --
  run colour $n FDX_MG_GS2=0 --
  run colour-2pass $n FDX_MG_GS2=0 FDX_MG_FUSE=0 --
  run two-pass $n FDX_MG_FUSE=0 --
  run rr-percoarse $n FDX_MG_RR=0 --
  run ring $n FDX_MG_GS2=1 --
  run no-graph $n FDX_MG_GRAPH=0 --
  run normfuse $n FDX_MG_NORMFUSE=1 --
  run fmg $n -- --cycle fmg
  run normfuse-fmg $n FDX_MG_NORMFUSE=1 -- --cycle fmg
  run colour-fmg $n FDX_MG_GS2=0 -- --cycle fmg
done
run zchunk8 513 FDX_MG_ZCHUNK=8 --
run zchunk64 513 FDX_MG_ZCHUNK=64 --
python3 - "$rec" <<'PY' || true
import json, sys
rows = []
for line in open(sys.argv[1]):
    try:
        r = json.loads(line)
    except ValueError:
        continue
    t = r["time_s"]
    rows.append((r["shape"][0], r["variant"], 1e3 * t["solve"], 1e3 * t.get("solve_first", t["solve"]),
                 1e3 * t["solve"] / max(r["cycles"], 1), r["cycles"], r["verified"]))
print("%5s %-13s %9s %9s %8s %6s %s" % ("n", "variant", "solve_ms", "first_ms", "ms/cyc", "cycles", "verified"))
for row in sorted(rows, key=lambda x: (x[0], x[2])):
    print("%5d %-13s %9.2f %9.2f %8.3f %6d %s" % row)
PY
