#!/usr/bin/env bash
# kgate selftest without its planted bugs' module (libkgate_selftest.so, built
# with -DKGATE_SELFTEST=ON) beside it: exit 3 and one line that names the module
# and says how to build it, before any worker or GPU. No GPU needed.
# Usage: selftest_module.sh KGATE KERNELS.so
set -u
t=$(mktemp -d) && trap 'rm -rf "$t"' EXIT
cp "$1" "$t/kgate" && cp "$2" "$t/libkgate_kernels.so" || exit 1
"$t/kgate" selftest > "$t/out" 2> "$t/err"
rc=$?
[ "$rc" = 3 ] || { cat "$t/out" "$t/err"; echo "selftest_module: exit $rc, expected 3"; exit 1; }
[ "$(wc -l < "$t/err")" = 1 ] && grep -q "^kgate: selftest needs the planted bugs' module: .*libkgate_selftest.so .*-DKGATE_SELFTEST=ON" "$t/err" ||
  { cat "$t/err"; echo "selftest_module: not the one line naming the module"; exit 1; }
echo "selftest_module: no libkgate_selftest.so beside kgate: exit 3, one line"
