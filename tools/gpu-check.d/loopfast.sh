# The loop generator's kernel shapes (issues 14 and 15, session 6 "loopfast"),
# one JSON record per variant to $OUT, each with "variant" naming the knobs:
#   - fdx bench dloop, 2D heat 16384^2 double, 1 unit (issue 14's 3%: dloop_ms
#     and plain_loop_ms against dstencil_ms): the grid kernel with 4 points a
#     thread (default) and 1 point (the flat kernel of before measured
#     3.20 ms a step, dloop-r3; FDX_LOOP_KERNEL=flat reproduces it);
#   - fdx lu class B with --compare-autotfm (issue 15: time_s and
#     time_no_autotfm_s against NPB-GPU's 1.00 s): default (hyperplanes one
#     thread a point in blocks of 64, repeated sweeps replayed as CUDA
#     graphs), both off (FDX_LOOP_BLOCK=256 FDX_LOOP_GRAPH=0, as before), and
#     the parallel loops on the sweeps' diagonals a warp per diagonal
#     (FDX_LOOP_DIAG=lines: only the autotfm half of the record changes).
# Most of a bench dloop run is filling and gathering 4 x 2 GiB on the host
# (~20 s); about 70 s in all.  LOOPFAST_MORE=1 adds PPT 8 and 16, the
# flat kernel, each sweep change alone, and class C.
set -u
rec=$OUT/${GPU_CHECK_DATE}_${GPU_NAME}_loopfast.jsonl
tag() { sed "s/^{/{\"variant\": \"$1\", /"; }
dloop_variants=("" "FDX_LOOP_PPT=1")
lu_variants=("" "FDX_LOOP_BLOCK=256 FDX_LOOP_GRAPH=0" "FDX_LOOP_DIAG=lines")
lu_classes="B"
if [ "${LOOPFAST_MORE:-0}" = 1 ]; then
  dloop_variants+=("FDX_LOOP_PPT=8" "FDX_LOOP_PPT=16" "FDX_LOOP_KERNEL=flat")
  lu_variants+=("FDX_LOOP_BLOCK=256" "FDX_LOOP_GRAPH=0" "FDX_LOOP_BLOCK=128")
  lu_classes="B C"
fi
for v in "${dloop_variants[@]}"; do
  env $v timeout 120 "$FDX_BIN" bench dloop --backend cuda --size 16384x16384 --steps 100 --gpus 1 --json |
    tag "${v:-default}" | tee -a "$rec"
done
for c in $lu_classes; do
  for v in "${lu_variants[@]}"; do
    env $v timeout 120 "$FDX_BIN" lu --class $c --backend cuda --compare-autotfm --json | tag "${v:-default}" | tee -a "$rec"
  done
done
python3 - "$rec" <<'PY' || true
import json, sys
for line in open(sys.argv[1]):
    try: r = json.loads(line)
    except ValueError: continue
    if r.get("case") == "dloop_overhead":
        print("bench dloop %-22s dstencil %.3f ms, dloop %.3f ms (%+.1f%%), plain loop %s ms, verified %s"
              % (r["variant"], r["dstencil_ms"], r["dloop_ms"], 100 * r["overhead"], r["plain_loop_ms"], r["verified"]))
    elif r.get("case") == "lu":
        print("lu class %s %-22s autotfm %.3f s, off %.3f s, speedup_autotfm %.2f, sections %s, verified %s"
              % (r["class"], r["variant"], r["time_s"], r.get("time_no_autotfm_s", 0), r.get("speedup_autotfm", 0),
                 r.get("sections_s"), r["verified"]))
PY
