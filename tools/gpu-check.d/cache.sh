# Cache trust on the GPU (issue 13): NVRTC cubins are signed, verified in
# memory before cudaLibraryLoadData, and a tampered or truncated cubin is
# deleted and rebuilt, never loaded.  Also runs on the CPU for a dry run:
# CACHE_CHECK_BACKEND=cpu FDX_BIN=build/bin/fdx OUT=/tmp/x bash tools/gpu-check.d/cache.sh
set -u
backend=${CACHE_CHECK_BACKEND:-cuda}
ext=$([ "$backend" = cuda ] && echo cubin || echo so)
dir=$(mktemp -d /tmp/fdx-cache-check-XXXXXX)
log=$OUT/cache_check_$backend.log
fail=0
say() { echo "cache check ($backend): $*" | tee -a "$log"; }
run() { FDX_LOG=info "$FDX_BIN" stencil --backend "$backend" --size 64x64x64 --order 4 --tune off --reps 3 \
          --cache-dir "$dir" >"$dir/out.txt" 2>"$dir/err.txt"; }
count() { grep -c "$1" "$dir/err.txt"; }

run || { say "FAIL first run (exit $?): $(tail -3 "$dir/err.txt")"; fail=1; }
n=$(ls "$dir"/*.$ext 2>/dev/null | wc -l)
say "first run: $(count compiling) compiled, $n .$ext artifacts"
run || { say "FAIL warm run"; fail=1; }
c=$(count compiling)
[ "$c" = 0 ] && say "warm run: all cache hits" || { say "FAIL warm run compiled $c kernels"; fail=1; }

# Flip one byte in the middle of every artifact: each must be refused.
for f in "$dir"/*.$ext; do
  size=$(stat -c %s "$f")
  printf '\x5a' | dd of="$f" bs=1 seek=$((size / 2)) conv=notrunc status=none
done
run || { say "FAIL run after tampering (exit $?)"; fail=1; }
r=$(count "signature does not match"); c=$(count compiling)
[ "$r" = "$n" ] && [ "$c" = "$n" ] && say "tampered: $r refused, $c rebuilt, verified $(grep -c ' yes' "$dir/out.txt")" ||
  { say "FAIL tampered: $r refused, $c rebuilt of $n"; fail=1; }

# Truncate them: refused (info line), rebuilt, no crash.
for f in "$dir"/*.$ext; do truncate -s $(( $(stat -c %s "$f") / 3 )) "$f"; done
run || { say "FAIL run after truncation (exit $?)"; fail=1; }
c=$(count compiling)
[ "$c" = "$n" ] && say "truncated: $c rebuilt" || { say "FAIL truncated: $c rebuilt of $n"; fail=1; }
grep -q " yes" "$dir/out.txt" || { say "FAIL result not verified"; fail=1; }
cp "$dir/err.txt" "$OUT/cache_check_${backend}_last_stderr.txt" 2>/dev/null
rm -rf "$dir"
[ $fail = 0 ] && say "PASS" || say "FAILED"
