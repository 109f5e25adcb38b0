# Issue 22 item 2: the sub-word tiles (1- and 2-byte transposes of the
# fastest axis, planner choose_subword).  test_layout_gpu under
# compute-sanitizer memcheck (its subword() cases: shifted buffers, guards),
# then the A/B on the random suite's 1- and 2-byte cases: each case with the
# default plan and with FDX_LAYOUT_SUBWORD=0 (the word kernel, as before),
# the worst 1-byte cases first.  Records (tagged "variant"):
# $OUT/<date>_<gpu>_transform-subword.jsonl; the per-case table and the
# medians by element size in the section log.  SUBWORD_BUDGET_S (default 300)
# bounds the A/B; SUBWORD_SANITIZE=0 skips the sanitizer run.
set -u
bin=$(dirname "$FDX_BIN")
rec=$OUT/${GPU_CHECK_DATE}_${GPU_NAME}_transform-subword.jsonl
budget=${SUBWORD_BUDGET_S:-300}
start=$SECONDS
if [ "${SUBWORD_SANITIZE:-1}" = 1 ] && command -v compute-sanitizer >/dev/null; then
  FDX_TEST_SANITIZER=1 FDX_TEST_QUICK=1 timeout 300 compute-sanitizer --tool memcheck --error-exitcode 99 \
    "$bin/test_layout_gpu" >"$OUT/subword_sanitizer.log" 2>&1
  echo "compute-sanitizer memcheck test_layout_gpu: exit $? (log subword_sanitizer.log)"; tail -3 "$OUT/subword_sanitizer.log"
fi
first="rt1-171 rt1-147 rt1-065 rt1-131"
rest=$("$FDX_BIN" bench transform --suite random --list | awk '$6 == 1 || $6 == 2 {print $1}')
: >"$rec"
for c in $(printf '%s\n' $first $rest | awk '!seen[$0]++'); do
  if [ $((SECONDS - start)) -ge "$budget" ]; then echo "budget: stopped before $c"; break; fi
  for v in default FDX_LAYOUT_SUBWORD=0; do
    env $( [ $v = default ] || echo $v ) timeout 120 "$FDX_BIN" bench transform --backend cuda --suite random \
      --only "$c" --reps 10 --json | python3 -c "
import json, sys
for l in sys.stdin:
    if l.strip(): r = json.loads(l); r['variant'] = sys.argv[1]; print(json.dumps(r))" "$v" >>"$rec"
  done
done
python3 - "$rec" <<'PY'
import json, sys, statistics
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
by = {}
for r in rows: by.setdefault(r['case'], {})[r['variant']] = r
print(f"{'case':8s} {'elem':>4s} {'shape':24s} {'perm':14s} {'subword':>8s} {'word':>8s}  verified")
meds = {}
for c, v in by.items():
    d, o = v.get('default'), v.get('FDX_LAYOUT_SUBWORD=0')
    if not d or not o: continue
    print(f"{c:8s} {d['elem_bytes']:4d} {'x'.join(map(str, d['shape'])):24s} {','.join(map(str, d['perm'])):14s} "
          f"{d['ratio_same_size']:8.3f} {o['ratio_same_size']:8.3f}  {d['verified'] and o['verified']}")
    meds.setdefault(d['elem_bytes'], []).append((d['ratio_same_size'], o['ratio_same_size']))
for e, xs in sorted(meds.items()):
    print(f"{e}-byte: {len(xs)} cases, ratio_same_size median {statistics.median(x[0] for x in xs):.3f} "
          f"(word kernel {statistics.median(x[1] for x in xs):.3f}), min {min(x[0] for x in xs):.3f}")
PY
