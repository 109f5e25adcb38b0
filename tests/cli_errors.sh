#!/usr/bin/env bash
# Bad command lines: exit status 2, exactly one line on stderr naming the
# problem, nothing on stdout, no files written.
. "$(dirname "$0")/lib_cli.sh" "$1"

expect_usage "minimum is 3"      laplacian --size 2x10x10
expect_usage "minimum is 3"      laplacian --size 0x10x10
expect_usage "positive integer"  laplacian --size -5x10x10
expect_usage "positive integer"  laplacian --size abcx10
expect_usage "unexpected"        laplacian --size 10x10y
expect_usage "at least 2"        laplacian --size 100
expect_usage "more than 3"       laplacian --size 3x3x3x3
expect_usage "too large"         laplacian --size 99999999999999999999x3x3
expect_usage "overflow"          laplacian --size 1000000000x1000000000x1000000
expect_usage "GiB"               laplacian --size 100000x100000x100 --backend cpu
expect_usage "precision"         laplacian --precision quad
expect_usage "precision"         laplacian --precision int32
expect_usage "backend"           laplacian --backend opencl
expect_usage "unknown flag"      laplacian --frobnicate
expect_usage "needs a value"     laplacian --size
expect_usage "reps"              laplacian --reps 0
expect_usage "reps"              laplacian --reps many
expect_usage "takes no value"    laplacian --json=yes
expect_usage "unknown command"   frobnicate
expect_usage "log level"         info --log shouty
expect_usage "unexpected argument" info extra
# One line whatever the user typed; duplicates and junk refused.
expect_usage "no command"        
expect_usage "no suite"          bench
expect_usage "given twice"       laplacian --size 8x8 --size 9x9
expect_usage "given twice"       info --quick --quick
expect_usage "not an integer"    laplacian --reps ' 5'
expect_usage "not an integer"    stencil --order +4
expect_usage "overflows"         transform --size 4294967296x4294967296
expect_usage "10001 characters"  transform --size "$(printf '3x%.0s' $(seq 5000))3"
expect_usage "unknown flag"      heat $'--a\nb'
expect_usage "unknown command"   $'heat\n'
expect_usage "selects no case"   bench transform --only ''
expect_usage "no effect"         info --backend cpu
expect_usage "no effect"         bench stencil --list --cases x
expect_usage "CUDA backend only" dist heat --graph on --backend cpu --size 16x16 --steps 1 --reps 1
expect_usage "GiB"               dist heat --size 100000x100000 --backend cpu

# Issue 18: one command line.  --size is NXxNY[xNZ] everywhere (a bare N is
# no cube), --steps is the one iteration flag (old names refused with the new
# one), a flag with no effect in the chosen mode is an error.
expect_usage "write NXxNYxNZ"    sor --size 8
expect_usage "cube"              sor --size 8x8x9
expect_usage "write NXxNY)"      demo --size 40x20x10
expect_usage "write NXxNYxNZ"    aos --size 8x8
expect_usage "write NXxNY)"      dist heat --dims 2 --size 16x16x16
expect_usage "now called '--steps'" sor --sweeps 3
expect_usage "now called '--steps'" aos --iters 3
expect_usage "now called '--steps'" lu --iterations 3
expect_usage "now called '--size'"  transform --shape 4x4
expect_usage "no effect"         sor --compare-cpu --backend cpu --size 8x8x8 --steps 1 --reps 1
expect_usage "no effect"         lu --autotfm off --autotfm-scope sweeps
expect_usage "no effect"         lu --autotfm off --compare-autotfm
expect_usage "no effect"         heat --scale 2 --size 24x16 --steps 1
expect_usage "no effect"         heat --overwrite --size 24x16 --steps 1
expect_usage "does not fit"      heat --size 16x16 --text abc --steps 1
# --backend cuda without a usable device (this machine, or a build without
# CUDA): exit 3, one line, the reason said once with what to do.  Where a GPU
# works the run succeeds and there is nothing to check.
for cmd in "laplacian --size 8x8 --reps 1" "heat --size 24x16 --steps 1 --progress off" "sor --size 8x8x8 --steps 1 --reps 1"; do
  "$fdx" $cmd --backend cuda >out.txt 2>err.txt; rc=$?
  if [ $rc -ne 0 ]; then
    checks=$((checks + 1))
    if [ $rc -ne 3 ] || [ "$(wc -l <err.txt)" -ne 1 ] || [ "$(grep -o 'backend cuda requested' err.txt | wc -l)" -ne 1 ] ||
       ! grep -q -- "--backend cpu\|driver\|device" err.txt; then
      echo "FAIL: fdx $cmd --backend cuda -> exit $rc:"; cat err.txt; fails=$((fails + 1))
    fi
  fi
  rm -f out.txt err.txt
done
left=$(ls -A | wc -l)
checks=$((checks + 1))
[ "$left" -eq 0 ] || { echo "FAIL: files left behind: $(ls -A)"; fails=$((fails + 1)); }
echo "cli_errors: $((checks - fails)) passed, $fails failed"
[ $fails -eq 0 ]
