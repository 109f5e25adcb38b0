#!/usr/bin/env bash
# ctest entry for the Python package's tests: Debian's python3 (the one its
# python3-numpy and python3-pytest belong to), the CPU backend, the library
# of this build.  Skipped (77) without numpy or pytest, or in a sanitized
# build (its libfdx.so cannot be loaded into an unsanitized interpreter).
# Usage: run_pytest.sh LIBDIR FDX_BINARY
libdir=$1 cli=$2
src=$(cd "$(dirname "$0")/../.." && pwd)
py=${FDX_PYTHON:-/usr/bin/python3}
build=$(dirname "$libdir")
grep -q '^FDX_SANITIZE:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null && { echo "python tests: skipped (sanitizer build)"; exit 77; }
[ -x "$py" ] || { echo "python tests: skipped ($py missing)"; exit 77; }
"$py" -c "import numpy, pytest" 2>/dev/null || { echo "python tests: skipped (install python3-numpy python3-pytest)"; exit 77; }
export FDX_LIBRARY_DIR=$libdir FDX_CLI=$cli FDX_BACKEND=cpu PYTHONPATH=$src/python${PYTHONPATH:+:$PYTHONPATH}
export MPLBACKEND=Agg PYTHONDONTWRITEBYTECODE=1
exec "$py" -m pytest -q -p no:cacheprovider "$src/tests/python"
