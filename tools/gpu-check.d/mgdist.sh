# Multigrid distributed over units (issue 21 item 5; target: 2 H200s solve
# 513^3 at >= 1.6x one GPU), well under a minute: fdx mg --backend cuda
# 257^3 and 513^3 (FMG then V(2,2) to 1e-10, median of 2 warm solves), tagged
# "variant":
#   one        the one-unit solver (z-marching sweeps, fused
#              residual+restriction, a CUDA graph a cycle)
#   one-colour FDX_MG_GS2=0 FDX_MG_GRAPH=0: the kernels the units run
#              (colour kernels in place, no graph): the distribution's
#              kernel baseline
#   gpus1      --gpus 1: the distributed path on one unit (its overhead:
#              handles, events, no graph, no one-pass kernels)
#   gpus2-1dev --gpus 2 with one device: both units on it (the exchanges'
#              and the second unit's launches' cost; no speedup possible)
#   gpus2      --gpus 2 on two devices (only when two are visible)
# Each record has cycles, verified, gpus/units/levels_distributed; the table
# adds the speedup over "one".  Records to $OUT/<date>_<gpu>_mgdist.jsonl.
set -u
rec=$OUT/${GPU_CHECK_DATE}_${GPU_NAME}_mgdist.jsonl
ndev=$(nvidia-smi -L 2>/dev/null | wc -l)
run() { # variant size env... -- flags...
  local variant=$1 n=$2; shift 2
  local envs=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  env ${envs[@]+"${envs[@]}"} timeout 60 "$FDX_BIN" mg --backend cuda --size ${n}x${n}x${n} --tol 1e-10 --repeat 2 \
    --json "$@" | sed "s/^{/{\"variant\": \"$variant\", /" >>"$rec"
  echo "mgdist $variant $n^3 exit ${PIPESTATUS[0]}"
}
for n in 257 513; do
  run one $n --
  run one-colour $n FDX_MG_GS2=0 FDX_MG_GRAPH=0 --
  run gpus1 $n -- --gpus 1
  if [ "$ndev" -ge 2 ]; then run gpus2 $n -- --gpus 2; else run gpus2-1dev $n -- --gpus 2; fi
done
python3 - "$rec" <<'PY' || true
import json, sys
rows, one = [], {}
for line in open(sys.argv[1]):
    try:
        r = json.loads(line)
    except ValueError:
        continue
    t = r["time_s"]
    rows.append((r["shape"][0], r["variant"], 1e3 * t["solve"], 1e3 * t["solve"] / max(r["cycles"], 1), r["cycles"],
                 r.get("units", 1), r.get("levels_distributed", 0), r["verified"]))
    if r["variant"] == "one":
        one[r["shape"][0]] = 1e3 * t["solve"]
print("%5s %-11s %9s %8s %6s %5s %5s %8s %s" % ("n", "variant", "solve_ms", "ms/cyc", "cycles", "units", "dlev",
                                                 "speedup", "verified"))
for row in sorted(rows, key=lambda x: (x[0], x[2])):
    sp = one.get(row[0], 0) / row[2] if row[2] else 0
    print("%5d %-11s %9.2f %8.3f %6d %5d %5d %8.2f %s" % (row[:7] + (sp, row[7])))
PY
