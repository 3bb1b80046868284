#!/usr/bin/env bash
# On a host with no NVIDIA driver (no libcuda.so.1 to load), a device command
# says so in one line and exits 3, instead of passing on the CUDA runtime's
# "driver version is insufficient", which blames a driver that is not there.
# Skips with 77 where the driver's library is installed (a GPU host).
# Usage: no_driver.sh KGATE
set -u
kgate=$1
found=$(ldconfig -p 2>/dev/null | grep -c 'libcuda\.so\.1 ')
for dir in ${LD_LIBRARY_PATH:+${LD_LIBRARY_PATH//:/ }}; do [ -e "$dir/libcuda.so.1" ] && found=1; done
if [ "$found" != 0 ]; then
  echo "skip: libcuda.so.1 is installed here"
  exit 77
fi
err=$(mktemp)
trap 'rm -f "$err"' EXIT
"$kgate" check --variant cub_sum --dtype i32 --sizes 1 -q >/dev/null 2>"$err"
rc=$?
if [ "$rc" != 3 ] || [ "$(cat "$err")" != "kgate: no NVIDIA driver (libcuda.so.1 not found)" ]; then
  echo "FAIL: exit $rc (want 3), stderr (want the one line 'kgate: no NVIDIA driver (libcuda.so.1 not found)'):"
  cat "$err"
  exit 1
fi
echo "no driver: exit 3, one line naming libcuda.so.1"
# Without -q and with a lint that cannot run (no disassembler on PATH): still
# the one line on stderr (no "kgate: reports" phase after it), and the
# verdict names the driver alone, not the lint's --lint off hint.
out=$(mktemp)
trap 'rm -f "$err" "$out"' EXIT
env PATH=/usr/bin:/bin "$kgate" check --variant cub_sum --dtype i32 --sizes 1 >"$out" 2>"$err"
rc=$?
if [ "$rc" != 3 ] || [ "$(cat "$err")" != "kgate: no NVIDIA driver (libcuda.so.1 not found)" ]; then
  echo "FAIL (no -q): exit $rc (want 3), stderr (want the one line):"
  cat "$err"
  exit 1
fi
if ! grep -q '^verdict: ENVIRONMENT (exit 3): .*no NVIDIA driver' "$out" || grep -q -- '--lint off' "$out"; then
  echo "FAIL (no -q): the verdict should name the driver alone:"
  cat "$out"
  exit 1
fi
echo "no driver, no -q: the one line, and the verdict names the driver alone"
