# The Python package on the GPU (issue 19): CuPy / PyTorch interop checks and
# the benchmarks (7-point Laplacian 512^3 double vs torch.compile and CuPy
# ElementwiseKernel, 2D 8th-order wave 16384^2 float vs torch.compile,
# per-call overhead vs the C call: bound, fdx arrays, raw CuPy arrays, raw
# torch tensors, with the C loop in the same process), JSON records in $OUT;
# checks of the boundary, user-stencil, temporal and multigrid wrappers on
# CuPy/torch arrays (against NumPy references or the CPU backend, ~20 s) and
# of session 7's (wave_steps, deep halos, run_dist_timed vs fdx dist, the
# call cache).  Each record carries elapsed_s (seconds since the start).  Uses the machine's
# torch/cupy interpreter (PYTHON, default /opt/torch/.venv/bin/python3).
set -u
py=${PYTHON:-/opt/torch/.venv/bin/python3}
[ -x "$py" ] || py=python3
lib=$(dirname "$(dirname "$FDX_BIN")")/lib
rec=$OUT/${GPU_CHECK_DATE}_${GPU_NAME}_python.jsonl
# the C side of the per-call overhead
c_us=""
if cc -O2 -o /tmp/fdx-overhead python/bench/overhead.c -Iinclude -L"$lib" -lfdx -Wl,-rpath,"$lib" 2>"$OUT/python-overhead-cc.log"; then
  c_us=$(timeout 120 /tmp/fdx-overhead 32 20000 2>>"$OUT/python-overhead-cc.log")
fi
echo "C call: ${c_us:-failed} us per fdx_stencil_apply (32^3)"
FDX_LIBRARY_DIR=$lib FDX_CLI=$FDX_BIN PYTHONPATH=$PWD/python timeout 560 "$py" python/bench/gpu_check.py "$rec" "$c_us"
echo "python section: exit $? (records in $rec)"
