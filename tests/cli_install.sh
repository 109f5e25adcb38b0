#!/usr/bin/env bash
# `cmake --install` (what `make install PREFIX=...` runs) puts the library,
# headers, pkg-config file and CMake package where a consumer finds them:
# the examples build against the installed copy by pkg-config (shared and
# static libfdx) and by find_package after the whole prefix was moved, and run.
fdx=$(realpath "$1")
build=$(dirname "$(dirname "$fdx")")
src=$(cd "$(dirname "$0")/.." && pwd)
# A sanitized build installs objects only sanitized programs can link.
grep -q '^FDX_SANITIZE:BOOL=ON' "$build/CMakeCache.txt" && { echo "cli_install: skipped (sanitizer build)"; exit 77; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fails=0 passed=0
ok() { passed=$((passed + 1)); }
bad() { echo "FAIL: $*"; fails=$((fails + 1)); }

# make install PREFIX=... hands the prefix to cmake --install (dry run: the
# real install below is the same command without make's build step).
make -n -C "$src" install BUILD="$build" PREFIX="$work/prefix" 2>/dev/null | grep -q -- "--prefix \"$work/prefix\"" &&
  ok || bad "make install PREFIX=... does not pass the prefix to cmake --install"
cmake --install "$build" --prefix "$work/prefix" >"$work/install.log" 2>&1 || { cat "$work/install.log"; echo "FAIL: install"; exit 1; }
for f in include/fdx.h include/fdx/core.h lib/libfdx.a lib/pkgconfig/fdx.pc lib/cmake/fdx/fdxConfig.cmake bin/fdx; do
  [ -e "$work/prefix/$f" ] || bad "$f not installed"
done
# The friends' headers (include/fdx/internal/) stay in the tree.
[ ! -e "$work/prefix/include/fdx/internal" ] && ok || bad "include/fdx/internal/ was installed"
# The exported package names no system library by absolute path, and not
# the prefix it was installed to (so it can move).
if grep -n -E '"/(usr|lib|opt)[^"]*\.(so|a)|'"$work/prefix" "$work/prefix/lib/cmake/fdx/"*.cmake; then
  bad "the CMake package holds absolute paths (above)"
else ok; fi

run_app() { # name, binary: runs it on the CPU and checks its answer
  case $1 in
    laplacian_app) FDX_BACKEND=cpu "$2" | grep -q "= 6 " ;;
    wrap_app) FDX_BACKEND=cpu "$2" | grep -q "total 1.000000 " ;;
  esac
}

if command -v pkg-config >/dev/null; then
  export PKG_CONFIG_PATH=$work/prefix/lib/pkgconfig
  # shared libfdx
  if cc -o "$work/app_pc" "$src/examples/laplacian_app.c" $(pkg-config --cflags --libs fdx) -Wl,-rpath,"$work/prefix/lib" 2>"$work/cc.log"; then
    run_app laplacian_app "$work/app_pc" && ok || bad "pkg-config build gave a wrong answer"
  else
    cat "$work/cc.log"; bad "pkg-config build"
  fi
  # static libfdx: --static lists everything libfdx.a needs (CUDA runtime,
  # libpng, HDF5, MPI, OpenMP, m, dl); -l:libfdx.a picks the archive
  if cc -o "$work/app_static" "$src/examples/wrap_app.c" $(pkg-config --cflags fdx) \
       $(pkg-config --static --libs fdx | sed 's/-lfdx /-l:libfdx.a /') 2>"$work/cc.log"; then
    if ldd "$work/app_static" | grep -q libfdx; then bad "the static build still loads libfdx.so"
    elif run_app wrap_app "$work/app_static"; then ok
    else bad "static build gave a wrong answer"; fi
    FDX_BACKEND=cpu "$work/app_static" | grep -q "^fdx $(pkg-config --modversion fdx):" &&
      ok || bad "fdx_version_string() differs from pkg-config --modversion fdx"
  else
    cat "$work/cc.log"; bad "static pkg-config build"
  fi
  unset PKG_CONFIG_PATH
fi

# CMake find_package, linking the static library, from a moved prefix
mv "$work/prefix" "$work/moved"
if cmake -S "$src/examples" -B "$work/ex" -DCMAKE_PREFIX_PATH="$work/moved" >"$work/cm.log" 2>&1 &&
   cmake --build "$work/ex" >>"$work/cm.log" 2>&1; then
  for app in laplacian_app wrap_app; do
    run_app $app "$work/ex/$app" && ok || bad "CMake build of $app (moved prefix) gave a wrong answer"
  done
else
  tail -20 "$work/cm.log"; bad "CMake consumer build from a moved prefix"
fi
# and pkg-config from the moved prefix (${pcfiledir}-relative paths)
if command -v pkg-config >/dev/null; then
  PKG_CONFIG_PATH=$work/moved/lib/pkgconfig pkg-config --cflags fdx | grep -q -- "-I$work/moved/lib/pkgconfig/../../include" &&
    ok || bad "fdx.pc does not follow its moved prefix"
fi
echo "cli_install: $passed passed, $fails failed"
[ $fails -eq 0 ]
