# Issue 22: the random-transform suite (fdx bench transform --suite random,
# COUNT cases, default 200), each case under TRANSFORM_VARIANTS on the same
# data in one process (each variant verified against the CPU; default:
# the committed plans against FDX_LAYOUT_GATHER=1, session 9's gather
# path without session 10's write table (the sub-word cases' A/B);
# FDX_LAYOUT_GATHER=0 for the element-by-element sub-word tiles of
# sessions 5-8, FDX_LAYOUT_VEC_SKEW=0 for the vector tiles unskewed where
# dst rows are off 16 bytes (session 8's tiles);
# add FDX_LAYOUT_VEC=0 for session 7's plans,
# FDX_LAYOUT_VEC=4:32:1024:a for the vector tiles with A tiles first
# everywhere, FDX_LAYOUT_SUBWORD=0 for the word kernel everywhere), with
# its peers in the same call: LibreTT built from the public source in
# peers/librett (fetched for measuring; never part of fdx) and PyTorch
# when importable.  Records: $OUT/<date>_<gpu>_transform-space.jsonl (fdx
# records with "variant", peer_librett_ratio / peer_torch_ratio), the
# peers' raw records beside it, the distribution by variant and element
# size and the worst cases in the section log.  TRANSFORM_PEERS=0 skips
# the peers (the fdx part alone: about 40 s a variant).  With TRANSFORM_AB=1
# (session 9's A/Bs, read in the s9c records) then the kept-row
# copy on short rows (rt1-016, -039, -056, -064) against
# FDX_LAYOUT_VEC=4:32:128, in $rec.rows.jsonl (~30 s); then the small
# word-kernel cases (8/16-byte elements under 64 MiB) against
# FDX_LAYOUT_TILE_WORDS=1024 and =512 and FDX_LAYOUT_SUBWORD=16 (8-byte
# elements in 16-byte sub-word gather tiles), in $rec.small.jsonl (~20 s).
#
# TRANSFORM_CASES=worst (or a comma list of case names / prefixes, e.g.
# rt1-120,rt1-171; worst,rt1-021,.. adds cases to the worst list; "small"
# in the list stands for every case under 16 MiB): only those cases,
# TRANSFORM_ROUNDS times over (default 1; TRANSFORM_TAG=T names the records
# ...-transform-cases-T.*, so that two calls keep both), under TRANSFORM_VARIANTS (default
# default,FDX_LAYOUT_GATHER=1), --reps 10, no peers
# unless TRANSFORM_PEERS=1, no short-row or small-tile A/B: a table case
# by case (ratio to the same-size copy per variant) in the log, records in
# $OUT/<date>_<gpu>_transform-cases.jsonl; "worst" is the session-8 (s8b)
# worst cases by cause: the sub-word tiles (now the gather path: narrow
# fastest sides rt1-171/-049/-149/-147, short kept rows rt1-004/-088/-092/
# -120/-175/-100/-168/-128, kept rows rt1-064/-056, rt1-007), the vector
# tiles with dst rows off 16 bytes (rt1-122, -177, -141, -052, -008) and
# the 8-byte word-kernel cases behind LibreTT (rt1-069, -187, -058, -050).
# About 30 s for the worst list with three variants.
set -u
worst=rt1-044,rt1-120,rt1-171,rt1-004,rt1-049,rt1-149,rt1-147,rt1-088,rt1-092,rt1-175,rt1-100,rt1-168,rt1-128,rt1-064,rt1-056,rt1-007,rt1-084,rt1-122,rt1-177,rt1-141,rt1-052,rt1-008,rt1-069,rt1-187,rt1-058,rt1-050
start=$SECONDS
if [ -n "${TRANSFORM_CASES:-}" ]; then
  cases=$TRANSFORM_CASES
  [ "$cases" = worst ] && cases=$worst
  case $cases in worst,*) cases=$worst,${cases#worst,} ;; esac
  case ,$cases, in *,small,*) # every case under 16 MiB (session 11: host time per call matters there)
    small=$("$FDX_BIN" bench transform --suite random --count "${COUNT:-200}" --list |
      awk '$(NF) == "MiB" && $(NF-1) < 16 {printf "%s%s", sep, $1; sep = ","}')
    cases=$(echo ",$cases," | sed "s/,small,/,$small,/; s/^,//; s/,$//") ;;
  esac
  variants=${TRANSFORM_VARIANTS:-default,FDX_LAYOUT_GATHER=1}
  rec=$OUT/${GPU_CHECK_DATE}_${GPU_NAME}_transform-cases${TRANSFORM_TAG:+-$TRANSFORM_TAG}
  "$FDX_BIN" bench transform --suite random --count "${COUNT:-200}" --only "$cases" --list > "$rec.cases.txt"
  timeout 300 "$FDX_BIN" bench transform --suite random --count "${COUNT:-200}" --only "$cases" --reps 10 \
    --rounds "${TRANSFORM_ROUNDS:-1}" --variants "$variants" --json > "$rec.fdx.jsonl"
  echo "fdx bench transform --only $cases --variants $variants: exit $?, $(grep -c '^{' "$rec.fdx.jsonl") records, $((SECONDS - start)) s"
  python3 - "$rec.fdx.jsonl" "$variants" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
variants = sys.argv[2].split(",")
by = {}
for r in rows:  # several rounds (TRANSFORM_ROUNDS): one figure each, joined by /
    by.setdefault(r["case"], {}).setdefault(r["variant"], []).append(r)
print("  columns: " + "; ".join(f"v{i} = {v}" for i, v in enumerate(variants)))
print(f"  {'case':8s} {'elem':>4s} {'shape':24s} " + " ".join(f"{'v%d' % i:>22s}" for i in range(len(variants))))
for c, vs in by.items():
    r0 = next(iter(vs.values()))[0]
    cells = []
    for v in variants:
        rs = vs.get(v, [])
        txt = "/".join("%.3f" % r["ratio_same_size"] for r in rs) or "-"
        cells.append(f"{txt + ('' if all(r['verified'] for r in rs) else ' BAD'):>22s}")
    print(f"  {c:8s} {r0['elem_bytes']:4d} {'x'.join(map(str, r0['shape']))[:24]:24s} " + " ".join(cells))
for v in variants[1:]:  # per variant against the first: the median of the per-case ratios of medians
    q = []
    for c, vs in by.items():
        a, b = vs.get(variants[0]), vs.get(v)
        if a and b:
            q.append(sorted(r["ratio_same_size"] for r in a)[len(a) // 2] / sorted(r["ratio_same_size"] for r in b)[len(b) // 2])
    if q:
        q.sort()
        print(f"  {variants[0]} / {v}: median {q[len(q) // 2]:.3f} over {len(q)} cases, "
              f"first faster by > 5% on {sum(x > 1.05 for x in q)}, slower by > 5% on {sum(x < 0.95 for x in q)}")
PY
  [ "${TRANSFORM_PEERS:-0}" = 1 ] || exit 0
fi
if [ -z "${TRANSFORM_CASES:-}" ]; then
  rec=$OUT/${GPU_CHECK_DATE}_${GPU_NAME}_transform-space${TRANSFORM_TAG:+-$TRANSFORM_TAG}
  variants=${TRANSFORM_VARIANTS:-default,FDX_LAYOUT_GATHER=1}
  "$FDX_BIN" bench transform --suite random --count "${COUNT:-200}" --list > "$rec.cases.txt"
  timeout 300 "$FDX_BIN" bench transform --suite random --count "${COUNT:-200}" --reps 10 --variants "$variants" \
    --json > "$rec.fdx.jsonl"
  echo "fdx bench transform --suite random --variants $variants: exit $?, $(grep -c '^{' "$rec.fdx.jsonl") records, $((SECONDS - start)) s"
  if [ "${TRANSFORM_AB:-0}" = 1 ]; then # session 9's two A/Bs (read in s9c; opt-in since session 10)
  for c in rt1-016 rt1-039 rt1-056 rt1-064; do
    timeout 60 "$FDX_BIN" bench transform --suite random --count "${COUNT:-200}" --only "$c" --reps 10 \
      --variants default,FDX_LAYOUT_VEC=4:32:128 --json 2>/dev/null
  done > "$rec.rows.jsonl"
  python3 - "$rec.rows.jsonl" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
for r in rows:
    print(f"  {r['case']} elem {r['elem_bytes']} {'x'.join(map(str, r['shape']))}: {r['variant']:28s} "
          f"ratio_same_size {r['ratio_same_size']:.3f} verified {r['verified']}")
PY
  echo "short-row A/B: $((SECONDS - start)) s"
  # small arrays on the word kernel (8- and 16-byte elements, < 64 MiB: 600-
  # 1500 tiles of 16 KB for 132 SMs; rt1-069/-187/-058/-050 0.61-0.76 where
  # LibreTT reaches 0.90-1.07): smaller tiles, more blocks; and 8-byte
  # elements through the sub-word gather tiles with 16-byte accesses
  # (FDX_LAYOUT_SUBWORD=16; the same as default for 16-byte ones) (~20 s)
  small=rt1-011,rt1-012,rt1-022,rt1-026,rt1-030,rt1-031,rt1-050,rt1-057,rt1-058,rt1-069,rt1-075,rt1-083,rt1-087,rt1-091,rt1-099,rt1-105,rt1-109,rt1-113,rt1-114,rt1-124,rt1-129,rt1-133,rt1-138,rt1-150,rt1-156,rt1-160,rt1-163,rt1-170,rt1-173,rt1-174,rt1-178,rt1-179,rt1-186,rt1-187,rt1-196
  timeout 120 "$FDX_BIN" bench transform --suite random --count "${COUNT:-200}" --only "$small" --reps 10 \
    --variants default,FDX_LAYOUT_TILE_WORDS=1024,FDX_LAYOUT_TILE_WORDS=512,FDX_LAYOUT_SUBWORD=16 --json \
    > "$rec.small.jsonl" 2>/dev/null
  python3 - "$rec.small.jsonl" <<'PY'
import json, sys, statistics as st
rows = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
by = {}
for r in rows:
    by.setdefault(r["variant"], []).append(r["ratio_same_size"])
for e in (8, 16):
    for v in by:
        x = [r["ratio_same_size"] for r in rows if r["variant"] == v and r["elem_bytes"] == e]
        if x:
            print(f"  small word-kernel cases, {e:2d}-byte, {v:30s}: {len(x)} records, median {st.median(x):.3f}, "
                  f"min {min(x):.3f}, all verified {all(r['verified'] for r in rows if r['variant'] == v)}")
PY
  echo "small-tile A/B: $((SECONDS - start)) s"
  fi
fi
lrt=
if [ "${TRANSFORM_PEERS:-1}" = 1 ] && [ -d peers/librett/src ]; then
  if cmake -S peers/librett -B /tmp/lrt-build -DENABLE_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 -DENABLE_TESTS=OFF \
       -DCMAKE_BUILD_TYPE=Release >"$OUT/librett_build.log" 2>&1 &&
     cmake --build /tmp/lrt-build -j "$(nproc)" >>"$OUT/librett_build.log" 2>&1 &&
     nvcc -O3 -std=c++14 -arch=sm_90 -DLIBRETT_USES_CUDA -I peers/librett/src bench/peers/librett_cases.cu \
       /tmp/lrt-build/src/librett.a -o /tmp/librett_cases >>"$OUT/librett_build.log" 2>&1; then
    echo "LibreTT built: $((SECONDS - start)) s"
    timeout 300 /tmp/librett_cases < "$rec.cases.txt" > "$rec.librett.jsonl"
    echo "LibreTT: exit $?, $(grep -c '"verified": true' "$rec.librett.jsonl") verified records, $((SECONDS - start)) s"
    lrt=$rec.librett.jsonl
  else
    echo "LibreTT did not build: tail of librett_build.log:"; tail -5 "$OUT/librett_build.log"
  fi
else
  echo "LibreTT not measured (peers/librett not carried, or TRANSFORM_PEERS=0)"
fi
timeout 300 python3 bench/peers/transform_peers.py "$rec.fdx.jsonl" "$rec.cases.txt" $lrt > "$rec.jsonl"
echo "transform_space: $((SECONDS - start)) s"
