# Apps (issue 7): the 3D wave run of 512^3 for 1000 steps with snapshots every
# 100 steps against the stencil engine's kernel alone, then the apps tests on
# the GPU (solvers on CUDA vs CPU, CLI runs with restart) and compute-sanitizer
# over test_solvers_gpu.
set -u
rec=$OUT/${GPU_CHECK_DATE}_${GPU_NAME}_wave3d_apps.jsonl
log=$OUT/apps.txt
bin=$(dirname "$FDX_BIN")
w=/tmp/fdx-apps
rm -rf $w
mkdir -p $w
say() { echo "$*" | tee -a "$log"; }

# The kernel alone: the wave update of order 8 with c^2, float, 512^3.
say "== kernel: fdx stencil --op wave --order 8 --coef 512^3 float"
timeout 120 "$FDX_BIN" stencil --backend cuda --op wave --order 8 --coef --size 512x512x512 --precision float --json \
  | tee -a "$rec" "$log"

# Whole runs: 1000 steps (the first, which tunes, is not timed).
run() { # label, extra flags
  label=$1; shift
  say "== run: $label"
  timeout 150 "$FDX_BIN" wave --backend cuda --size 512x512x512 --steps 1000 --order 8 --precision float --json \
    --progress off "$@" > $w/run.json 2> $w/run.err
  say "exit $? $(tail -n 2 $w/run.err)"
  sed -e "s/^{/{\"label\": \"$label\", /" $w/run.json | tee -a "$rec" "$log"
}
run "no output, sponge 0" --sponge 0
run "snapshots every 100, sponge 0" --sponge 0 --output $w/snap0 --snapshot-every 100
run "no output, sponge 20"
run "snapshots every 100" --output $w/snap --snapshot-every 100
run "snapshots every 100 + HDF5 every 500" --output $w/field --snapshot-every 100 --field-every 500
ls -la $w/snap $w/field $w/field/fields | tee -a "$log"
cp $w/snap/frames/frame_00000500.png "$OUT/wave512_frame500.png" 2> /dev/null
cp $w/snap/seismogram.png "$OUT/wave512_seismogram.png" 2> /dev/null
rm -rf $w
[ "${APPS_BENCH_ONLY:-0}" = 1 ] && exit 0

say "== apps tests on the GPU machine"
(cd "$bin/.." && timeout 200 ctest -R 'test_io|test_solvers|cli_demo|cli_sim' --output-on-failure) 2>&1 | tail -n 30 | tee -a "$log"

say "== compute-sanitizer test_solvers_gpu"
for tool in memcheck racecheck; do
  FDX_TUNE=off timeout 150 compute-sanitizer --tool $tool --error-exitcode 99 "$bin/test_solvers_gpu" > $w.san 2>&1
  say "sanitizer $tool test_solvers_gpu: exit $? $(tail -n 3 $w.san | tr '\n' ' ')"
done
rm -f $w.san
