# lib_cli.sh: sourced by tests/cli_*.sh.  Sets fdx (absolute path of $1),
# moves into a scratch directory removed at exit, and defines expect_usage:
# a bad command line must exit 2 with exactly one stderr line containing the
# given words and nothing on stdout.  Counts go to $checks and $fails.
fdx=$(realpath "$1")
fails=0; checks=0
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1

expect_usage() {  # expect_usage WORD-IN-MESSAGE ARGS...
  local want=$1; shift
  checks=$((checks + 1))
  "$fdx" "$@" >out.txt 2>err.txt; local rc=$?
  local lines; lines=$(wc -l <err.txt)
  if [ $rc -ne 2 ] || [ "$lines" -ne 1 ] || [ -s out.txt ] || ! grep -qi -- "$want" err.txt; then
    echo "FAIL: fdx $* -> exit $rc, $lines stderr lines, stdout $(wc -c <out.txt) bytes:"; cat err.txt
    fails=$((fails + 1))
  fi
  rm -f out.txt err.txt
}
