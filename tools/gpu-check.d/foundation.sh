# Foundation: fdx info and the Laplacian records (issue 2).
set -u
out=$OUT/${GPU_CHECK_DATE}_${GPU_NAME}_laplacian.jsonl
"$FDX_BIN" info --bandwidth | tee "$OUT/info.txt"
for p in double float; do
  "$FDX_BIN" laplacian --backend cuda --size 512x512x512 --precision $p --json | tee -a "$out"
done
"$FDX_BIN" laplacian --backend cuda --size 512x512x512 --precision double
"$FDX_BIN" laplacian --backend cpu --size 512x512x512 --precision double --json | tee -a "$out"
