# Layout engine (issue 4): its tests (GPU ones under compute-sanitizer unless
# LAYOUT_SANITIZE=0), then `fdx bench transform` records on CUDA and the CPU;
# LAYOUT_TILES="32x64 64x64 ..." also times the named permutations with other
# tile shapes (FDX_LAYOUT_TILE) for tuning.
set -u
bin=$(dirname "$FDX_BIN")
base=$OUT/${GPU_CHECK_DATE}_${GPU_NAME}
"$bin/test_layout" | tail -1
"$bin/test_layout_gpu" | tail -3
bash tests/cli_transform.sh "$FDX_BIN" | tail -3
if [ "${LAYOUT_SANITIZE:-1}" = 1 ]; then
  for tool in memcheck racecheck; do
    if FDX_TEST_QUICK=1 compute-sanitizer --tool $tool --error-exitcode 99 "$bin/test_layout_gpu" >"$OUT/layout-sanitizer.log" 2>&1; then
      echo "layout sanitizer $tool: clean"
    else
      echo "layout sanitizer $tool: FAILED"; tail -30 "$OUT/layout-sanitizer.log"
    fi
  done
fi
"$FDX_BIN" bench transform --backend cuda --json ${LAYOUT_BENCH_ARGS:-} > "$base"_transform.jsonl
python3 - "$base"_transform.jsonl <<'PY'
import json, sys, statistics
rows = [json.loads(l) for l in open(sys.argv[1])]
for r in rows:
    print(f"{r['case']:18s} {'x'.join(map(str, r['shape'])):22s} {','.join(map(str, r['perm'])):10s} {r['diag']:5s} "
          f"{r['time_ms']['median']:8.3f} ms {r['effective_gbps']:7.0f} GB/s ratio {r['ratio_to_copy']:.3f} {'ok' if r['verified'] else 'BAD'}")
rnd = [r['ratio_to_copy'] for r in rows if r['case'].startswith('random')]
if rnd: print(f"random suite: median {statistics.median(rnd):.3f} min {min(rnd):.3f} over {len(rnd)}")
PY
for t in ${LAYOUT_TILES:-}; do
  for c in aos-to-soa 3d-reverse swap-fastest 2d-transpose; do
    FDX_LAYOUT_TILE=$t "$FDX_BIN" bench transform --backend cuda --only $c --count 0 --json |
      python3 -c "import json,sys; r=json.loads(sys.stdin.readline()); print('tile $t', r['case'], round(r['ratio_to_copy'],3))"
  done
done
# CPU: the named permutations, one diagonal each way, a short random suite
cpu=$base"_transform-cpu.jsonl"; : > "$cpu"
for c in aos-to-soa 3d-reverse swap-fastest swap-slowest 2d-transpose diag-main-eq undiag-anti-eq; do
  "$FDX_BIN" bench transform --backend cpu --json --count 0 --only $c >> "$cpu"
done
"$FDX_BIN" bench transform --backend cpu --json --count 5 --mib 256 --only random >> "$cpu"
python3 -c "
import json,sys
for l in open('$cpu'):
    r=json.loads(l); print('cpu', r['case'], round(r['ratio_to_copy'],3), 'ok' if r['verified'] else 'BAD')"
