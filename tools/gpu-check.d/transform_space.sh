# Issue 22: the random-transform suite (fdx bench transform --suite random,
# COUNT cases, default 200), each case under TRANSFORM_VARIANTS on the same
# data in one process (each variant verified against the CPU; default:
# the committed plans (session 8: vector tiles for 1-, 2-, 4-byte
# elements, K tiles first where dst rows are off 16 bytes), FDX_LAYOUT_VEC=0
# = session 7's plans (16-byte sub-word tiles) and FDX_LAYOUT_VEC=4:32:1024:a
# = the vector tiles with A tiles first everywhere (the s8a order); add
# FDX_LAYOUT_VEC=2 to keep 4-byte elements off the vector tile,
# FDX_LAYOUT_SUBWORD=0 for the word kernel everywhere), with its peers
# in the same call: LibreTT built from the public source in peers/librett
# (fetched for measuring; never part of fdx) and PyTorch when importable.
# Records: $OUT/<date>_<gpu>_transform-space.jsonl (fdx records with
# "variant", peer_librett_ratio / peer_torch_ratio), the peers' raw records
# beside it, the distribution by variant and element size and the worst
# cases in the section log.  TRANSFORM_PEERS=0 skips the peers (the fdx
# part alone: about 40 s a variant).  Then the kept-row copy on short rows
# (168-524 bytes: rt1-016, -039, -056, -064; the default leaves rows under
# 1024 bytes to the older kernels) against FDX_LAYOUT_VEC=4:32:128, in
# $rec.rows.jsonl (~30 s).  Session 7's tiny-tile A/B (small2d) is decided
# and no longer run.
set -u
rec=$OUT/${GPU_CHECK_DATE}_${GPU_NAME}_transform-space
variants=${TRANSFORM_VARIANTS:-default,FDX_LAYOUT_VEC=0,FDX_LAYOUT_VEC=4:32:1024:a}
start=$SECONDS
"$FDX_BIN" bench transform --suite random --count "${COUNT:-200}" --list > "$rec.cases.txt"
timeout 300 "$FDX_BIN" bench transform --suite random --count "${COUNT:-200}" --reps 10 --variants "$variants" \
  --json > "$rec.fdx.jsonl"
echo "fdx bench transform --suite random --variants $variants: exit $?, $(grep -c '^{' "$rec.fdx.jsonl") records, $((SECONDS - start)) s"
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
