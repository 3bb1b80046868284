#!/usr/bin/env bash
# A GPU test that cannot start a worker skips (77) with one line naming why:
# ref_cache_gpu.sh run with a kgate that cannot check (the host-only build,
# exit 3) prints "ref_cache_gpu: skipped: REASON", REASON kgate's first line.
# Usage: skip_reason.sh KGATE SOURCE_DIR
set -u
kgate=$1 src=$2
out=$(bash "$src/tests/ref_cache_gpu.sh" "$kgate")
rc=$?
want="ref_cache_gpu: skipped: check needs a GPU build: this kgate is host-only (built without CUDA)"
if [ "$rc" != 77 ] || [ "$out" != "$want" ]; then
  echo "skip_reason: FAIL: exit $rc (want 77), output (want the one line '$want'):"
  printf '%s\n' "$out"
  exit 1
fi
echo "skip_reason: ok"
