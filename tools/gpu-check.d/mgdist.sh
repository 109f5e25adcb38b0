# Multigrid distributed over units (issue 21 item 5; target: 2 H200s solve
# 513^3 at >= 1.6x one GPU), ~1 minute: fdx mg --backend cuda 257^3 and
# 513^3 (FMG then V(2,2) to 1e-10, median of 2 warm solves), tagged
# "variant".  The default of a distributed CUDA solve (session 8): the whole
# V-cycle and (warm solves) the FMG as CUDA graphs over the units, the fused
# residual+restriction on the blocks, the gathered level by device box
# copies, the units' norms concurrent, levels below 262144 unknowns a unit
# gathered.
#   one             the one-unit solver (the baseline of the speedup column)
# With two or more devices (nvidia-h200-x2):
#   gpus2           --gpus 2, the default
#   gpus2-g32k      FDX_MG_GATHER=32768 (session 8a's gather size)
#   gpus2-g1m       513^3: FDX_MG_GATHER=1048576 (level 2 of 513^3 gathered)
#   gpus2-nograph   FDX_MG_GRAPH=0 (plain launches: the V-cycle and FMG graphs' worth)
#   gpus2-twopass   513^3: FDX_MG_FUSE=0 (the fused restriction's worth)
#   gpus2-overlap   FDX_MG_OVERLAP=1 (session 9: the sweep's renewal overlapped
#                   with each block's interior; default off until this is faster)
# With one device:
#   gpus1           --gpus 1 (the distributed path's own cost over one)
#   gpus1-nograph, gpus1-twopass   FDX_MG_GRAPH=0, FDX_MG_FUSE=0
#   gpus2-1dev      --gpus 2 on the one device; gpus2-1dev-g32k FDX_MG_GATHER=32768;
#   gpus2-1dev-overlap FDX_MG_OVERLAP=1 (correct results and the cost of the extra launches)
# Each record has cycles, verified, gpus/units/levels_distributed; the table
# adds the speedup over "one".  A line "the cycle's CUDA graph: ..." on
# stderr means a capture failed (plain launches, results still right).
# Records to $OUT/<date>_<gpu>_mgdist.jsonl.
set -u
rec=$OUT/${GPU_CHECK_DATE}_${GPU_NAME}_mgdist.jsonl
ndev=$(nvidia-smi -L 2>/dev/null | wc -l)
source "$(dirname "${BASH_SOURCE[0]}")/mg_run.inc"
run() { mg_run "$rec" "$@" --repeat 2; } # variant size env... -- flags...
for n in 257 513; do
  run one $n --
  if [ "$ndev" -ge 2 ]; then
    run gpus2 $n -- --gpus 2
    run gpus2-g32k $n FDX_MG_GATHER=32768 -- --gpus 2
    run gpus2-nograph $n FDX_MG_GRAPH=0 -- --gpus 2
    run gpus2-overlap $n FDX_MG_OVERLAP=1 -- --gpus 2
    if [ $n = 513 ]; then
      run gpus2-g1m $n FDX_MG_GATHER=1048576 -- --gpus 2
      run gpus2-twopass $n FDX_MG_FUSE=0 -- --gpus 2
    fi
  else
    run gpus1 $n -- --gpus 1
    run gpus1-nograph $n FDX_MG_GRAPH=0 -- --gpus 1
    run gpus1-twopass $n FDX_MG_FUSE=0 -- --gpus 1
    run gpus2-1dev $n -- --gpus 2
    run gpus2-1dev-g32k $n FDX_MG_GATHER=32768 -- --gpus 2
    run gpus2-1dev-overlap $n FDX_MG_OVERLAP=1 -- --gpus 2
  fi
done
mg_table "$rec" one

# Neumann and periodic axes and order 4 on distributed levels (session 9,
# ~15 s): 129^3 FMG, one unit against --gpus 2 (two units on the one
# device, or two devices) and against --gpus 2 with every level that can
# be split kept distributed (FDX_MG_GATHER=1: ghosts renewed across units
# on every level, the periodic wrap between the end units).  Records to
# $OUT/<date>_<gpu>_mgdist-bc.jsonl; one line a case, "bc-check PASS" when
# the cycles are one unit's, every record verified and the error within
# 1e-9 (relative) of one unit's.
bcrec=$OUT/${GPU_CHECK_DATE}_${GPU_NAME}_mgdist-bc.jsonl
for v in "neumann --bc neumann" "periodic --bc periodic" "order4 --order 4"; do
  read -r tag flags <<<"$v"
  mg_run "$bcrec" one-$tag 129 -- $flags
  mg_run "$bcrec" gpus2-$tag 129 -- --gpus 2 $flags
  mg_run "$bcrec" gpus2deep-$tag 129 FDX_MG_GATHER=1 -- --gpus 2 $flags
done
# The distributed Neumann/periodic cost (session 9: 129^3 deep was 293 ms
# with the cycle's graph, 73.6 without; since then these solvers launch
# plainly, so gpus2deep-neumann should now read ~74 ms like the nograph
# variant) and the graph captures of one solve (FDX_LOG=debug: Dirichlet
# one a cycle kind; Neumann/periodic none).
mg_run "$bcrec" gpus2deep-nograph-neumann 129 FDX_MG_GRAPH=0 FDX_MG_GATHER=1 -- --gpus 2 --bc neumann
for bc in neumann periodic dirichlet; do
  FDX_LOG=debug FDX_MG_GATHER=1 timeout 120 "$FDX_BIN" mg --backend cuda --size 129x129x129 --tol 1e-10 --gpus 2 \
    --bc $bc --repeat 2 2>&1 >/dev/null | grep -i "graph\|multigrid on" | sort | uniq -c | sed "s/^/graph-debug $bc: /" | head -8
done
python3 - "$bcrec" <<'PY' || true
import json, sys
recs = {}
for line in open(sys.argv[1]):
    try:
        r = json.loads(line)
    except ValueError:
        continue
    recs[r["variant"]] = r
for tag in ("neumann", "periodic", "order4"):
    one = recs.get("one-" + tag)
    for v in ("gpus2-", "gpus2deep-") + (("gpus2deep-nograph-",) if tag == "neumann" else ()):
        d = recs.get(v + tag)
        if not one or not d:
            print("bc-check FAIL %s%s: no record" % (v, tag))
            continue
        ok = (d["cycles"] == one["cycles"] and d["verified"] and one["verified"]
              and abs(d["error_max"] - one["error_max"]) <= 1e-9 * one["error_max"])
        print("bc-check %s %s%s: cycles %d (one %d), error %.6e (one %.6e), %d units, %d levels split, %.2f ms (one %.2f)"
              % ("PASS" if ok else "FAIL", v, tag, d["cycles"], one["cycles"], d["error_max"], one["error_max"],
                 d.get("units", 1), d.get("levels_distributed", 0), 1e3 * d["time_s"]["solve"],
                 1e3 * one["time_s"]["solve"]))
PY
