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
  run colour-fmg $n FDX_MG_GS2=0 --
  run psmooth-fmg $n FDX_MG_PSMOOTH=1 --
  run v $n -- --cycle v
done
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
