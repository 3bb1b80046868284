#!/usr/bin/env bash
# kgate_add_kernels and kgate_add_tests refuse each bad call at configure time
# with one message that names the function, the target and the problem (tests/add_kernels/CMakeLists.txt).
# Usage: add_kernels_errors.sh SOURCE_DIR
set -u
src=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
while IFS='|' read -r case want; do
  if cmake -S "$src/tests/add_kernels" -B "$tmp/$case" -DKG_SOURCE_DIR="$src" -DCASE="$case" >"$tmp/$case.log" 2>&1; then
    echo "FAIL $case: configured"; fail=1
  elif ! tr -s ' \n' ' ' <"$tmp/$case.log" >"$tmp/$case.flat" || ! grep -qE "kgate_add_(kernels|tests)\(t\): " "$tmp/$case.flat" ||
       ! grep -qF "$want" "$tmp/$case.flat"; then
    echo "FAIL $case: no '$want' in:"; cat "$tmp/$case.log"; fail=1
  fi
done <<'CASES'
no_registry|SOURCES and REGISTRY are required
no_sources|SOURCES and REGISTRY are required
missing_registry|tests/add_kernels/no_such.def does not exist
bad_name|NAME 'My-Team' must be [a-z0-9_], 1..63 characters
long_name|NAME 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa' must be [a-z0-9_]
unknown_argument|unknown arguments: SHARED
no_cuda|enable CUDA first
tests_no_target|kgate_add_tests(t): no such target
tests_not_module|kgate_add_tests(t): not a module of kgate_add_kernels
tests_unknown_argument|kgate_add_tests(t): unknown arguments: --sizes;1
CASES
[ "$fail" = 0 ] && echo "kgate_add_kernels, kgate_add_tests: 10 bad calls refused"
exit "$fail"
