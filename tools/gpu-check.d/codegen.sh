# Code generator port (issue 16, docs/notes/codegen.md): a confirmation run.
# The ported generator's CUDA kernels were shown machine-code identical to
# the old generator's without a GPU (tools/codegen-digest: 984 of 984), so
# this only confirms on the device: the stencil and layout GPU tests, the
# IR test and the NVRTC corpus, and the stencil benchmark records (tuned as
# usual; compare with the last *_stencil.jsonl: the same kernels, so the
# same times within noise).  Run: tools/gpu-check codegen
set -u
log=$OUT/codegen.log
bin=$(dirname "$FDX_BIN")
for t in test_stencil_gpu test_layout_gpu test_codegen test_stencil_cfg test_stencil_nvrtc; do
  echo "== $t"
  if [ -x "$bin/$t" ]; then timeout 600 "$bin/$t" 2>&1 | tail -5; else echo "$t: not built"; fi
done >>"$log" 2>&1
tail -12 "$log"
echo "== bench stencil (cuda)" | tee -a "$log"
# --tune-budget all: the whole search in one run, as *_stencil.jsonl's (the
# default budget of 8 a run would leave a first run's search partial).
"$FDX_BIN" bench stencil --backend cuda --tune-budget all --json 2>>"$log" | tee "$OUT/${GPU_CHECK_DATE}_${GPU_NAME}_stencil-codegen.jsonl" |
  grep -oE '"case": "[^"]*"|"config": "[^"]*"|"median": [0-9.]+|"verified": [a-z]+' | tr '\n' ' ' | sed 's/"case"/\n"case"/g'
echo
