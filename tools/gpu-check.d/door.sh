# include/ as the only door (issue 16 items 4-6, docs/notes/codegen.md): the
# CLI paths that moved off the backend table, on the GPU.  fdx transform's
# case runner now holds its device buffers as wrapped fdx_arrays, and
# fdx lu --timers off creates its stream through fdx_ctx_stream_create;
# FDX_CHECK / FDX_CUDA_TRY are written through FDX_TRY.  Well under a
# minute (the ctest run of gpu-check covers cli_transform and cli_lu).
# Run: tools/gpu-check door
set -u
log=$OUT/door.log
{
  echo "== fdx transform (cuda): a transpose, a diagonal and an undiagonal, verified"
  "$FDX_BIN" transform --backend cuda --size 512x512x64 --perm 1,0,2 --reps 3 --json
  "$FDX_BIN" transform --backend cuda --size 1024x1024 --perm 0,1 --diag anti --reps 3 --json
  "$FDX_BIN" transform --backend cuda --size 1024x1024 --perm 0,1 --diag anti --undiag --reps 3 --json
  echo "== fdx lu --class S --timers off (cuda): a stream of the context's backend"
  "$FDX_BIN" lu --class S --backend cuda --timers off --json
} >>"$log" 2>&1
grep -oE '"case": "[^"]*"|"verified": [a-z]+|exit [0-9]+|error:.*' "$log" | tr '\n' ' '
echo
