#!/usr/bin/env bash
# The host-only kgate (built without CUDA): each device command exits 3 with
# one line that says why; the CUDA-free commands work on committed results, and
# list describes a team's module.
# Usage: host_only.sh KGATE SOURCE_DIR [TEST_MODULES_DIR]
set -u
kgate=$1 src=$2
mods=${3:-}
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for cmd in check run selftest worker; do
  "$kgate" "$cmd" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  lines=$(wc -l <"$tmp/err")
  if [ "$rc" != 3 ] || [ "$lines" != 1 ] || ! grep -q "^kgate: $cmd needs a GPU build: this kgate is host-only" "$tmp/err"; then
    echo "FAIL kgate $cmd: exit $rc (want 3), stderr $lines line(s) (want 1):"; cat "$tmp/err"
    fail=1
  fi
done

# bisect's paired runs are this kgate's unless --kgate names another: refused
# here before any build, driven when another kgate runs them (then its
# bad input, a commit git does not know, exits 2).
"$kgate" bisect --good a1 --bad b2 --variant two_pass --build true --module m.so >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" != 3 ] || [ "$(wc -l <"$tmp/err")" != 1 ] || ! grep -q "^kgate: bisect needs a GPU build: this kgate is host-only" "$tmp/err"; then
  echo "FAIL kgate bisect without --kgate: exit $rc (want 3):"; cat "$tmp/err"; fail=1
fi
if command -v git >/dev/null; then
  git init -q "$tmp/repo"
  "$kgate" bisect --repo "$tmp/repo" --work "$tmp/work" --kgate /bin/false --good a1 --bad b2 --variant two_pass \
    --build true --module m.so >"$tmp/out" 2>"$tmp/err"
  rc=$?
  if [ "$rc" != 2 ] || ! grep -q "no commit 'a1'" "$tmp/err"; then
    echo "FAIL kgate bisect --kgate: exit $rc (want 2, no commit 'a1'):"; cat "$tmp/err"; fail=1
  fi
fi
"$kgate" bisect --help >"$tmp/out" 2>"$tmp/err" && grep -q '^usage: kgate bisect' "$tmp/out" ||
  { echo "FAIL kgate bisect --help"; cat "$tmp/err"; fail=1; }

# --plan needs no GPU, so the host-only kgate prints it: the counts, the
# globbed variants, the sizes and an estimate, exit 0.
"$kgate" run --plan --variant 'reduce*' --dtype i32 --sizes 1,33 >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" != 0 ] || ! grep -q '^plan: 64 cases (16 timed' "$tmp/out" || ! grep -q '^variants (8): reduce0_divergent' "$tmp/out" ||
  ! grep -q '^sizes (4): 1 33 4194304 33554432$' "$tmp/out" || ! grep -q '^estimated time on one GPU: about' "$tmp/out"; then
  echo "FAIL kgate run --plan: exit $rc"; cat "$tmp/out" "$tmp/err"; fail=1
fi

"$kgate" --version >"$tmp/out" || { echo "FAIL kgate --version"; fail=1; }
grep -q '^kgate [0-9]' "$tmp/out" || { echo "FAIL kgate --version printed:"; cat "$tmp/out"; fail=1; }
"$kgate" list >"$tmp/out" || { echo "FAIL kgate list"; fail=1; }
grep -q '^kgate_single_pass ' "$tmp/out" || { echo "FAIL kgate list lacks kgate_single_pass"; fail=1; }
# A team's module described without a GPU (worker --describe): its variants
# listed beside kgate's, a module of another ABI refused in one line, exit 2.
if [ -n "$mods" ]; then
  "$kgate" list --kernels "$mods/libkg_testmod_good.so" >"$tmp/out" 2>"$tmp/err" &&
    grep -q '^first  ' "$tmp/out" && grep -q '^second  .* in-place' "$tmp/out" ||
    { echo "FAIL kgate list --kernels on the host-only build:"; cat "$tmp/out" "$tmp/err"; fail=1; }
  "$kgate" list --kernels "$mods/libkg_testmod_abi.so" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  if [ "$rc" != 2 ] || [ "$(wc -l <"$tmp/err")" != 1 ] || ! grep -q 'built for kernel ABI 99' "$tmp/err"; then
    echo "FAIL kgate list --kernels of another ABI: exit $rc (want 2)"; cat "$tmp/err"; fail=1
  fi
fi

# Two runs of the same card: a comparison, its verdict table, no device.
"$kgate" compare "$src/tests/data/h200-run1.json" "$src/tests/data/h200-run2.json" >"$tmp/out" 2>"$tmp/err"
rc=$?
if [ "$rc" != 0 ] && [ "$rc" != 4 ]; then
  echo "FAIL kgate compare: exit $rc"; cat "$tmp/err"; fail=1
fi
grep -q 'kgate_single_pass' "$tmp/out" || { echo "FAIL kgate compare printed no kgate_single_pass row"; fail=1; }

if command -v gnuplot >/dev/null; then
  KGATE_PLOTS=$src/plots "$kgate" plot "$src/tests/data/h200-run2.json" -o "$tmp/plots" >/dev/null 2>"$tmp/err" ||
    { echo "FAIL kgate plot"; cat "$tmp/err"; fail=1; }
  ls "$tmp/plots"/*.png >/dev/null 2>&1 || { echo "FAIL kgate plot drew no PNG"; fail=1; }
fi
[ "$fail" = 0 ] && echo "host-only kgate: device commands exit 3, --plan/list/list --kernels/compare/plot work, bisect with --kgate"
exit "$fail"
