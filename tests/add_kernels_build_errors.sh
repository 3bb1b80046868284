#!/usr/bin/env bash
# kgate_add_kernels catches a registry/function mismatch when the team's
# module builds, not when kgate loads it (tests/add_kernels_build): the good
# module builds; a .def name the functions do not have fails the link, and a
# run function of another signature fails the compile, each with a message
# that names the variant's function (nvcc: "more than one instance of
# overloaded function ... has \"C\" linkage"; g++: "conflicting declaration");
# KGATE_DEFINE_VARIANT of a name the .def lacks, and a .def line whose op is
# no op, fail the compile with a static_assert naming the macro and the .def.
# Usage: add_kernels_build_errors.sh SOURCE_DIR CUDA_ARCHITECTURES NVCC
set -u
src=$1 arch=$2 nvcc=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
while IFS='|' read -r case want; do
  log=$tmp/$case.log
  if ! cmake -S "$src/tests/add_kernels_build" -B "$tmp/$case" -DKG_SOURCE_DIR="$src" -DCASE="$case" \
       -DCMAKE_CUDA_ARCHITECTURES="$arch" -DCMAKE_CUDA_COMPILER="$nvcc" >"$log" 2>&1; then
    echo "FAIL $case: did not configure:"; cat "$log"; fail=1; continue
  fi
  cmake --build "$tmp/$case" >>"$log" 2>&1
  rc=$?
  if [ "$case" = good ]; then
    [ "$rc" = 0 ] || { echo "FAIL good: did not build:"; cat "$log"; fail=1; }
  elif [ "$rc" = 0 ]; then
    echo "FAIL $case: built"; fail=1
  elif ! grep -qE "$want" "$log"; then
    echo "FAIL $case: no /$want/ in:"; cat "$log"; fail=1
  fi
done <<'CASES'
good|
typo|undefined reference to .kg_run_my_gridsum
signature|error: .*"?kg_run_my_gridsum"? has "C" linkage|error: conflicting declaration of C function .int kg_run_my_gridsum
defname|static assertion failed with "KGATE_DEFINE_VARIANT\(my_grid_sum, \.\.\.\): the registry .*gridsum\.def has no line KGATE_VARIANT\(my_grid_sum
defop|defop\.def\([0-9]+\): error: static assertion failed with "KGATE_VARIANT\(my_gridsum, \.\.\.\) in .*defop\.def: op must be KG_OP_SUM, KG_OP_MIN or KG_OP_MAX
CASES
[ "$fail" = 0 ] && echo "kgate_add_kernels: the good module built; the .def typos and the wrong signature failed the build"
exit "$fail"
