#!/bin/bash
# cli_fuzz: first the HDF5 reader through the fdx binary for
# FDX_FUZZ_H5_SECONDS (60): fuzz/h5_cli_fuzz.sh feeds mutated fields (byte
# flips, truncations, inserted garbage) to heat --input and wave --model-file;
# every case must end 0, 2 or 3 with one error line, never a signal or a hang
# (libhdf5 runs in a child process, so its own crashes become exit 3).
# Then it builds the libFuzzer harnesses of fuzz/ with clang (the parsers
# under test compiled in with coverage, the rest from libfdx.so) and runs each
# for FDX_FUZZ_SECONDS (20) from seeds that fdx writes itself; fuzz_h5 runs
# against the child-process reader (FDX_FUZZ_HDF5=0 leaves it out).  The
# libFuzzer part is skipped without clang or libFuzzer.
# The times above are FDX_TEST_FULL=1's; by default (ctest, CI) the budgets
# are 20 s and 8 s: the same harnesses and checks on fewer random cases
# (a fuzzing session's worth of depth is a long run's job, not every CI's).
# $1 = the fdx binary.
set -u
fdx=$1
root=$(cd "$(dirname "$0")/.." && pwd)
lib=$(cd "$(dirname "$fdx")/../lib" && pwd)
if [ "${FDX_TEST_FULL:-0}" = 1 ]; then h5secs_default=60 secs_default=20; else h5secs_default=20 secs_default=8; fi
secs=${FDX_FUZZ_SECONDS:-$secs_default}
h5secs=${FDX_FUZZ_H5_SECONDS:-$h5secs_default}
if [ "$h5secs" -gt 0 ]; then
  bash "$root/fuzz/h5_cli_fuzz.sh" "$fdx" "$h5secs" || exit 1
fi
command -v clang > /dev/null || { echo "clang not found: libFuzzer harnesses skipped"; exit 0; }
# A gcc-sanitized libfdx.so and clang's own sanitizer runtime do not mix.
grep -q '^FDX_SANITIZE:BOOL=ON' "$lib/../CMakeCache.txt" 2> /dev/null && { echo "cli_fuzz: libFuzzer part skipped (sanitizer build)"; exit 0; }
[ -e "$lib/libfdx.so" ] || { echo "no $lib/libfdx.so: libFuzzer part skipped"; exit 0; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }' > "$tmp/probe.c"
clang -fsanitize=fuzzer "$tmp/probe.c" -o "$tmp/probe" 2> /dev/null || { echo "clang has no libFuzzer: libFuzzer part skipped"; exit 0; }

h5inc=$(ls -d /usr/include/hdf5/serial 2> /dev/null)
h5lib=$(ls -d /usr/lib/*/hdf5/serial 2> /dev/null | head -1)
cflags="-g -O1 -fsanitize=fuzzer,address,undefined -I$root/include -I$root/src -D_GNU_SOURCE -DFDX_HAVE_HDF5=1"
build() { # name sources...
  name=$1; shift
  extra=""
  [ "$name" = h5 ] && extra="-I$h5inc -L$h5lib -lhdf5"
  clang $cflags "$root/fuzz/fuzz_$name.c" "$@" "$root/src/core/fdx_error.c" "$root/src/core/fdx_file.c" "$root/src/core/fdx_clock.c" -o "$tmp/fuzz_$name" \
    "$lib/libfdx.so" -Wl,-rpath,"$lib" $extra -lm 2> "$tmp/build_$name.log"
}
fail=0
build ini "$root/src/io/fdx_io_ini.c" "$root/src/solvers/fdx_sim_config.c" || { cat "$tmp/build_ini.log"; fail=1; }
build ckpt "$root/src/io/fdx_io_ckpt.c" "$root/src/io/fdx_io_file.c" || { cat "$tmp/build_ckpt.log"; fail=1; }
build gif "$root/src/io/fdx_io_gifdec.c" || { cat "$tmp/build_gif.log"; fail=1; }
if [ "${FDX_FUZZ_HDF5:-1}" = 1 ] && [ -n "$h5inc" ] && [ -n "$h5lib" ]; then
  build h5 "$root/src/io/fdx_io_hdf5.c" "$root/src/io/fdx_io_h5child_hdf5.c" "$root/src/io/fdx_io_file.c" || { cat "$tmp/build_h5.log"; fail=1; }
fi
[ $fail -eq 0 ] || exit 1

# Seeds: files fdx writes.
mkdir -p "$tmp/seed_ini" "$tmp/seed_ckpt" "$tmp/seed_gif" "$tmp/seed_h5"
printf '\001[wave]\nsize = 64x64\nreceivers = 1,2;3,4\nsponge = 8 # comment\nmodel = "layered"\n' > "$tmp/seed_ini/a"
printf '\000steps = 10\ntext = "fdx"\nboundary = fixed\n' > "$tmp/seed_ini/b"
FDX_THREADS=1 "$fdx" heat --size 12x10 --init gaussian --steps 3 --checkpoint-every 3 --output "$tmp/run" --progress off > /dev/null || fail=1
cp "$tmp/run/checkpoint.fdx" "$tmp/seed_ckpt/" 2> /dev/null
cp "$tmp/run/fields/u_00000003.h5" "$tmp/seed_h5/" 2> /dev/null
cp "$root/tests/hostile/hdf5_crash.h5" "$tmp/seed_h5/" 2> /dev/null # crashes libhdf5 1.10.8
FDX_THREADS=1 "$fdx" heat --size 24x20 --init gaussian --steps 2 --snapshot-every 1 --scale 1 --output "$tmp/small" \
  --progress off > /dev/null || fail=1
cp "$tmp/small/animation.gif" "$tmp/seed_gif/" 2> /dev/null

for name in ini ckpt gif h5; do
  [ -x "$tmp/fuzz_$name" ] || continue
  mkdir -p "$tmp/corpus_$name"
  echo "fuzz_$name: $secs s"
  # HDF5 keeps allocations of its own until exit: leaks are checked elsewhere.
  leaks=1
  [ "$name" = h5 ] && leaks=0
  (cd "$tmp" && ASAN_OPTIONS=detect_leaks=$leaks:allocator_may_return_null=1 "$tmp/fuzz_$name" -max_total_time="$secs" -max_len=65536 -rss_limit_mb=2048 \
      -artifact_prefix="$tmp/crash_$name-" "$tmp/corpus_$name" "$tmp/seed_$name" > "$tmp/log_$name" 2>&1)
  rc=$?
  tail -n 2 "$tmp/log_$name"
  grep '^fuzz_h5:' "$tmp/log_$name" | tail -n 1
  if [ $rc -ne 0 ]; then
    echo "fuzz_$name failed (exit $rc):"; tail -n 40 "$tmp/log_$name"
    fail=1
  fi
done
exit $fail
