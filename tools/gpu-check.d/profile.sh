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
# PROFILE_DEEP=1 adds stall reasons, scheduler statistics and the memory tables
# (shared-memory bank conflicts, L1/L2 sectors per request)
[ "${PROFILE_DEEP:-0}" = 1 ] && sec="$sec --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis_Tables --section SourceCounters"
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
    # session 8: the pinned 512^3 7-point winner, interior-only against every
    # face in the kernel (FDX_BC_FOLD=2); box27 / div at 512^3; the 3D float
    # temporal kernel; order 12 float; the worst 1-byte transposes
    bcpin) FDX_STENCIL_CFG="2 32 8 2 2 1 2 0 0 0 0 0 0 0 0" prof bcpin-interior 2 2 stencil --backend cuda --size 512x512x512 --reps 3
           FDX_STENCIL_CFG="2 32 8 2 2 1 2 0 0 0 0 0 0 0 0" FDX_BC_FOLD=2 prof bcpin-fold2 2 2 stencil --backend cuda --size 512x512x512 --reps 3 --boundary all=dirichlet:0 ;;
    # session 9: FDX_BC_FOLD=4 at the pin (two applies: the y faces' pass,
    # then the kernel with its register fix-ups), and the tile march of the
    # box and div (FDX_US_TILE, pinned)
    bcpin4) FDX_STENCIL_CFG="2 32 8 2 2 1 2 0 0 0 0 0 0 0 0" FDX_BC_FOLD=4 prof bcpin-fold4 4 4 stencil --backend cuda --size 512x512x512 --reps 3 --boundary all=dirichlet:0 ;;
    tile) FDX_USTENCIL_CFG="2 32 8 1 1 16 0 2 1 0 0" prof box27-tile 2 2 bench ustencil --backend cuda --cases box27_f64_512 --reps 2
          FDX_USTENCIL_CFG="2 32 8 1 1 16 0 2 1 0 0" prof div-tile 2 2 bench ustencil --backend cuda --cases div_f64_512 --reps 2 ;;
    box) prof box27 2 2 bench ustencil --backend cuda --cases box27_f64_512 --reps 2 ;;
    div) prof div 2 2 bench ustencil --backend cuda --cases div_f64_512 --reps 2 ;;
    t3f) prof t3f 20 6 stencil --backend cuda --op heat --size 512x512x512 --precision float --steps 8 --temporal auto --reps 2 ;;
    # session 11: the 1024-thread float tile (64x16 q3, 1.942) and with the
    # rotated loop and fast body (u3 fp), forced: the temporal pass is the
    # kernel with grid 10x13x1 and block 64x16 (PROFILE_DEEP=1: stalls; the
    # run launches ~14 kernels: 16 skipped left none)
    t3f11) FDX_TEMPORAL_CFG="k4 64x16 q3 pd1" prof t3f11 4 12 stencil --backend cuda --op heat --size 512x512x512 --precision float --steps 8 --temporal 4 --reps 2
           FDX_TEMPORAL_CFG="k4 64x16 q3 pd1 u3 fp" prof t3f11-ufp 4 12 stencil --backend cuda --op heat --size 512x512x512 --precision float --steps 8 --temporal 4 --reps 2 ;;
    o12) prof o12 2 2 stencil --backend cuda --order 12 --size 400x400x400 --precision float --reps 3 ;;
    tr1) for c in rt1-155 rt1-054 rt1-094; do
           prof "tr-$c" 4 4 bench transform --suite random --count 200 --only "$c" --reps 2
         done ;;
    # session 10: the gather path's narrow and short-unit floor (rt1-149 K = 3
    # bytes, rt1-004 5-byte units), carries against the offset table (=3)
    tr10) for c in rt1-149 rt1-004; do
            prof "tr-$c" 4 4 bench transform --suite random --count 200 --only "$c" --reps 2
            FDX_LAYOUT_GATHER=3 prof "tr-$c-g3" 4 4 bench transform --suite random --count 200 --only "$c" --reps 2
          done ;;
    # session 11: the gather cases that no variant moved (rt1-088 2-byte
    # units of 3 in a 916 MiB transpose, 0.40-0.44; rt1-147 1-byte, 4 x 4
    # src-fastest, no write table, 0.34-0.46); with PROFILE_DEEP=1
    tr11) for c in rt1-088 rt1-147; do
            prof "tr-$c" 4 2 bench transform --suite random --count 200 --only "$c" --reps 2
          done ;;
    # session 13 (tsub): large 1-/2-byte arrays DRAM-bound in principle but at
    # 0.43-0.57 of a copy: rt1-088 (2-byte units of 3, gather tiles), rt1-049
    # (1-byte, dst-fastest K = 3, gather tiles), rt1-122 (1-byte 3D reversal,
    # skewed vector tiles), rt1-131 (1-byte, 45-byte A side, vector tiles);
    # with PROFILE_DEEP=1
    tr13) for c in rt1-088 rt1-049 rt1-122 rt1-131; do
            prof "tr-$c" 4 2 bench transform --suite random --count 200 --only "$c" --reps 2
          done ;;
    # session 12: the small 8-byte 2D transposes LibreTT still wins (rt1-050
    # skewed tiles, 17.7 us against 14.3; rt1-187 plain, 12.1 against 10.8),
    # fdx's kernels and, when transform_space built it in this call, LibreTT's
    # (launches 3-6: rt1-050's, its cases run in order)
    # session 13: the stencil suite's worst odd-width cases (rs1-032 order 12
    # float 217x459x261, the async window; rs1-013 heat order 4 double
    # 455x1545x1250 at vec 1, 0.64 of a same-size copy)
    so13) for c in rs1-032 rs1-013; do
            prof "st-$c" 2 2 bench stencil --suite random --count 100 --cases "$c" --reps 2
          done ;;
    tr12) for c in rt1-050 rt1-187; do
            prof "tr-$c" 4 2 bench transform --suite random --count 200 --only "$c" --reps 2
          done
          if [ -x /tmp/librett_cases ]; then
            "$FDX_BIN" bench transform --suite random --count 200 --only rt1-050,rt1-187 --list >"$OUT/profile/tr12.cases.txt"
            timeout 120 ncu --clock-control none $sec -k regex:transpose --launch-skip 2 --launch-count 4 \
              /tmp/librett_cases <"$OUT/profile/tr12.cases.txt" >"$OUT/profile/tr-librett.txt" 2>&1
            echo "profile tr-librett: exit $?"
          fi ;;
  esac
done
