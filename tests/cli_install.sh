#!/usr/bin/env bash
# `cmake --install` puts the library, headers, pkg-config file and CMake
# package where a consumer finds them: the example builds both ways and runs.
fdx=$(realpath "$1")
build=$(dirname "$(dirname "$fdx")")
src=$(cd "$(dirname "$0")/.." && pwd)
# A sanitized build installs objects only sanitized programs can link.
grep -q '^FDX_SANITIZE:BOOL=ON' "$build/CMakeCache.txt" && { echo "cli_install: skipped (sanitizer build)"; exit 77; }
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
fails=0
cmake --install "$build" --prefix "$work/prefix" >"$work/install.log" 2>&1 || { cat "$work/install.log"; echo "FAIL: install"; exit 1; }
for f in include/fdx.h include/fdx/core.h lib/libfdx.a lib/pkgconfig/fdx.pc lib/cmake/fdx/fdxConfig.cmake bin/fdx; do
  [ -e "$work/prefix/$f" ] || { echo "FAIL: $f not installed"; fails=$((fails + 1)); }
done
# pkg-config, linking the shared library
if command -v pkg-config >/dev/null; then
  export PKG_CONFIG_PATH=$work/prefix/lib/pkgconfig
  if cc -o "$work/app_pc" "$src/examples/laplacian_app.c" $(pkg-config --cflags --libs fdx) -Wl,-rpath,"$work/prefix/lib" 2>"$work/cc.log"; then
    FDX_BACKEND=cpu "$work/app_pc" | grep -q "= 6 " || { echo "FAIL: pkg-config build gave a wrong answer"; fails=$((fails + 1)); }
  else
    cat "$work/cc.log"; echo "FAIL: pkg-config build"; fails=$((fails + 1))
  fi
fi
# CMake find_package, linking the static library
if cmake -S "$src/examples" -B "$work/ex" -DCMAKE_PREFIX_PATH="$work/prefix" >"$work/cm.log" 2>&1 &&
   cmake --build "$work/ex" >>"$work/cm.log" 2>&1; then
  FDX_BACKEND=cpu "$work/ex/laplacian_app" | grep -q "= 6 " || { echo "FAIL: CMake build gave a wrong answer"; fails=$((fails + 1)); }
else
  tail -20 "$work/cm.log"; echo "FAIL: CMake consumer build"; fails=$((fails + 1))
fi
echo "cli_install: $((3 - fails)) passed, $fails failed"
[ $fails -eq 0 ]
