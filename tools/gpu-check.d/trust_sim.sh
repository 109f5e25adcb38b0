# Trust (issue 13, simulations): on CUDA, a run too big for the device is
# refused up front (exit 2, need and limit from cudaMemGetInfo), the kill -9
# / restart-continuity CLI suite runs against the CUDA backend, and the cost
# of the device-side finiteness checks (one reduction at every tenth of the
# run, at most 1000 steps apart, and before every output) on the 512^3 wave:
# per_step with 10 checks over 1000 steps vs the apps records.
# test_solvers_trust_gpu (the reduction kernel vs a loop, a CUDA blow-up)
# runs in ctest and under compute-sanitizer with the other *_gpu tests.
set -u
log=$OUT/trust_sim.txt
rec=$OUT/${GPU_CHECK_DATE}_${GPU_NAME}_trust_sim.jsonl
w=/tmp/fdx-trust-sim
rm -rf $w
mkdir -p $w
say() { echo "$*" | tee -a "$log"; }

say "== device memory refusal: wave 2048^3 double"
timeout 60 "$FDX_BIN" wave --backend cuda --size 2048x2048x2048 --precision double --progress off > /dev/null 2> $w/e
say "exit $? (expected 2): $(cat $w/e)"

say "== wave 512^3 float, 1000 steps, sponge 20: per-step time with the finiteness checks"
timeout 200 "$FDX_BIN" wave --backend cuda --size 512x512x512 --steps 1000 --order 8 --precision float --json \
  --progress off > $w/run.json 2> $w/run.err
say "exit $? $(tail -n 2 $w/run.err)"
tee -a "$rec" "$log" < $w/run.json

say "== cli_sim_trust on the CUDA backend"
FDX_BACKEND=cuda timeout 300 bash tests/cli_sim_trust.sh "$FDX_BIN" >> "$log" 2>&1
say "exit $?"
