# Issue 22: the random-stencil suite (fdx bench stencil --suite random, COUNT
# cases, default 100: 2D/3D, orders 2-12, laplacian/heat/wave, float/double,
# 32^3-1024^3 points, odd extents), tuned as a user's first run would be.
# Record: $OUT/<date>_<gpu>_stencil-space.jsonl; the distribution of
# ratio_same_size and the five worst cases in the section log.
# STENCIL_SPACE_BUDGET=all: the exhaustive tuner instead (what later runs of
# the same case converge to), records named stencil-space-tuned.
set -u
budget=${STENCIL_SPACE_BUDGET:-}
rec=$OUT/${GPU_CHECK_DATE}_${GPU_NAME}_stencil-space${budget:+-tuned}.jsonl
timeout "${STENCIL_SPACE_TIMEOUT:-450}" "$FDX_BIN" bench stencil --backend cuda --suite random --count "${COUNT:-100}" \
  ${budget:+--tune-budget "$budget"} --json > "$rec"
echo "fdx bench stencil --suite random: exit $?, $(grep -c '^{' "$rec") records"
python3 - "$rec" <<'PY'
import json, sys
r = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
if r:
    x = sorted(q["ratio_same_size"] for q in r)
    n = len(x)
    print(f"random-stencil: {n} cases, ratio_same_size median {x[n // 2]:.3f}, p10 {x[n // 10]:.3f}, min {x[0]:.3f}; "
          f"ratio_to_copy median {sorted(q['ratio_to_copy'] for q in r)[n // 2]:.3f}; verified {sum(q['verified'] for q in r)}/{n}")
    for q in sorted(r, key=lambda q: q["ratio_same_size"])[:5]:
        print(f"  worst: {q['case']} {'x'.join(map(str, q['shape']))} {q['precision']} order {q['order']} {q['op']}"
              f"{'+coef' if q['coef'] else ''}: {q['ratio_same_size']:.3f} ({q['config']})")
PY
