#!/bin/bash
# The layer rule (docs/architecture.md): harness/lib (CUDA-free) includes only
# lib; harness/device (the C that calls CUDA) includes lib and device;
# harness/app (main, the CLI and the commands) may include all three. Headers
# of kernels/ and include/kgate/ are the bottom, below lib. Any include that
# runs up a layer fails this test, naming the file, the line and the header.
# usage: layers.sh SOURCE_DIR | layers.sh --self-test (a planted up-include must fail)
set -u
if [ "${1:-}" = --self-test ]; then
  t=$(mktemp -d) && trap 'rm -rf "$t"' EXIT
  mkdir -p "$t/harness/lib" "$t/harness/device" "$t/harness/app"
  printf '#include "cli.h"\n' > "$t/harness/lib/model.c"
  : > "$t/harness/app/cli.h"
  out=$(bash "$0" "$t") && { echo "layers: self-test: an up-include passed"; exit 1; }
  grep -q 'harness/lib/model.c:1 includes "cli.h" from harness/app, a layer above' <<< "$out" ||
    { echo "layers: self-test: wrong message: $out"; exit 1; }
  echo "layers: self-test: the planted up-include was caught"
  exit 0
fi
src=${1:-.}
rank() { case $1 in lib) echo 0 ;; device) echo 1 ;; app) echo 2 ;; *) echo -1 ;; esac; }
declare -A home
for d in lib device app; do
  [ -d "$src/harness/$d" ] || { echo "layers: no harness/$d folder"; exit 1; }
  for h in "$src/harness/$d"/*.h; do
    [ -e "$h" ] || continue
    b=$(basename "$h")
    [ -z "${home[$b]:-}" ] || { echo "layers: $b is in both harness/${home[$b]} and harness/$d"; exit 1; }
    home[$b]=$d
  done
done
stray=$(find "$src/harness" -maxdepth 1 -type f \( -name '*.c' -o -name '*.h' \) | head -1)
[ -z "$stray" ] || { echo "layers: $stray is in no layer folder"; exit 1; }
bad=0 files=0 edges=0
for d in lib device app; do
  for f in "$src/harness/$d"/*.[ch]; do
    [ -e "$f" ] || continue
    files=$((files + 1))
    while IFS=: read -r line inc; do
      h=$(sed -E 's/.*#include "([^"]+)".*/\1/' <<< "$inc")
      to=${home[$(basename "$h")]:-}
      [ -n "$to" ] || continue # kernels/, include/kgate/: below every layer
      edges=$((edges + 1))
      if [ "$(rank "$to")" -gt "$(rank "$d")" ]; then
        echo "layers: harness/$d/$(basename "$f"):$line includes \"$h\" from harness/$to, a layer above"
        bad=$((bad + 1))
      fi
    done < <(grep -n '^#include "' "$f")
  done
done
[ "$bad" = 0 ] || exit 1
echo "layers: $files files, $edges includes between layers' headers, none up a layer"
