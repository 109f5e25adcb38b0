# Nsight Compute baselines for the kernels being tuned (loops, LU, multigrid,
# temporal blocking, the boundary pass, box/div user stencils): Speed Of Light,
# launch statistics, occupancy and memory workload per kernel, one text file a
# case under $OUT/profile/.  Not part of the default run's figures (ncu slows
# kernels down); PROFILE_CASES="dloop lu" picks cases.  Needs ncu (Firecracker
# machines); --clock-control none as the device notes ask.
set -u
command -v ncu >/dev/null || { echo "profile: skipped: no ncu"; exit 0; }
nvidia-smi -L >/dev/null 2>&1 || { echo "profile: skipped: no GPU"; exit 0; }
mkdir -p "$OUT/profile"
sec="--section SpeedOfLight --section LaunchStats --section Occupancy --section MemoryWorkloadAnalysis --section ComputeWorkloadAnalysis"
prof() { # name, launches to skip, launches to profile, fdx arguments...
  local name=$1 skip=$2 count=$3; shift 3
  "$FDX_BIN" "$@" >/dev/null 2>&1   # tune and compile first: ncu then sees the tuned kernels
  timeout 120 ncu --clock-control none $sec --launch-skip "$skip" --launch-count "$count" \
    "$FDX_BIN" "$@" >"$OUT/profile/$name.txt" 2>&1
  echo "profile $name: exit $? ($(grep -c '^  [a-zA-Z_].*(.*)x(.*)' "$OUT/profile/$name.txt") kernels)"
}
for c in ${PROFILE_CASES:-dloop lu mg temporal bc ustencil}; do
  case $c in
    dloop) prof dloop 40 12 bench dloop --backend cuda --size 16384x16384 --steps 10 ;;
    lu) prof lu 300 60 lu --class A --backend cuda --steps 3 --autotfm off ;;
    mg) prof mg 60 80 mg --backend cuda --size 257x257x257 --steps 2 ;;
    temporal) prof temporal 20 12 stencil --backend cuda --op heat --size 512x512x512 --precision float --steps 8 --temporal 4 --reps 2 ;;
    bc) prof bc 10 10 stencil --backend cuda --size 512x512x512 --boundary all=dirichlet:0 --reps 3 ;;
    ustencil) prof ustencil 10 16 bench ustencil --backend cuda --reps 2 ;;
  esac
done
