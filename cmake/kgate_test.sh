#!/bin/sh
# The two tests kgate_add_tests adds for a team's module (kgateAddKernels.cmake):
#   kgate_test.sh load  KGATE MODULE NAME...  kgate loads the module (its ABI,
#       registry and every function) and lists each NAME of the .def file;
#   kgate_test.sh check KGATE MODULE NAME... [-- ARGS]  kgate check on the NAMEs
#       (the correctness matrix); exit 77, which ctest reports as skipped,
#       when kgate finds no GPU or no driver here, or is a host-only kgate
#       (a module-only build's kgate on a hosted runner: it checks nothing).
set -u
mode=$1 kgate=$2 module=$3
shift 3
names='' args=''
while [ $# -gt 0 ]; do
  [ "$1" = -- ] && { shift; args="$*"; break; }
  names="${names:+$names,}$1"
  shift
done
case $mode in
load)
  out=$("$kgate" list --kernels "$module") || { echo "kgate_test: kgate refused $module" >&2; exit 1; }
  printf '%s\n' "$out"
  for n in $(printf '%s' "$names" | tr , ' '); do
    printf '%s\n' "$out" | grep -q "^$n " || { echo "kgate_test: $module has no variant $n (the .def line)" >&2; exit 1; }
  done
  ;;
check)
  # word splitting of $args is wanted: they are separate kgate options
  # shellcheck disable=SC2086
  out=$("$kgate" check --kernels "$module" --variant "$names" $args 2>&1)
  rc=$?
  printf '%s\n' "$out"
  if [ "$rc" = 3 ] && printf '%s\n' "$out" | grep -qE 'no CUDA device|no NVIDIA driver'; then exit 77; fi
  if [ "$rc" = 3 ] && printf '%s\n' "$out" | grep -q 'needs a GPU build: this kgate is host-only'; then
    echo "kgate_test: skipped: $kgate is host-only (built without CUDA): it checks on a GPU build only"
    exit 77
  fi
  exit "$rc"
  ;;
*)
  echo "usage: kgate_test.sh load|check KGATE MODULE NAME... [-- ARGS]" >&2
  exit 2
  ;;
esac
