#!/bin/bash
# The layer rule (docs/architecture.md). The harness's folders, bottom first:
#   lib/basics < lib/code < lib/model < lib/stats < lib/run < lib/report < device < lib/gate < app
# (device and lib/gate use none of each other: the line puts the session, which
# starts the workers the device layer runs in, above it).
# A file includes headers of its own folder and the folders below, never
# above; headers of kernels/ and include/kgate/ are below every folder. And
# no circle: among modules (a .c and its .h are one), the include graph has
# no loop, inside a folder or across. A failure names the file, the line and
# the header, or the modules of the loop.
# usage: layers.sh SOURCE_DIR | layers.sh --self-test (a planted up-include and a planted loop must fail)
set -u
folders=(lib/basics lib/code lib/model lib/stats lib/run lib/report device lib/gate app)
if [ "${1:-}" = --self-test ]; then
  t=$(mktemp -d) && trap 'rm -rf "$t"' EXIT
  for d in "${folders[@]}"; do mkdir -p "$t/harness/$d"; done
  printf '#include "cli.h"\n' > "$t/harness/lib/model/model.c"
  : > "$t/harness/app/cli.h"
  out=$(bash "$0" "$t") && { echo "layers: self-test: an up-include passed"; exit 1; }
  grep -q 'harness/lib/model/model.c:1 includes "cli.h" from harness/app, a folder above' <<< "$out" ||
    { echo "layers: self-test: wrong message: $out"; exit 1; }
  rm "$t/harness/lib/model/model.c"
  printf '#include "b.h"\n' > "$t/harness/lib/run/a.h"
  printf '#include "c.h"\n' > "$t/harness/lib/run/b.c"
  printf '#include "a.h"\n' > "$t/harness/lib/run/c.c"
  : > "$t/harness/lib/run/b.h"
  : > "$t/harness/lib/run/c.h"
  out=$(bash "$0" "$t") && { echo "layers: self-test: a loop passed"; exit 1; }
  grep -q 'layers: the includes go round a loop: a b c' <<< "$out" ||
    { echo "layers: self-test: wrong message: $out"; exit 1; }
  echo "layers: self-test: the planted up-include and the planted loop were caught"
  exit 0
fi
src=${1:-.}
declare -A home rank
for i in "${!folders[@]}"; do
  d=${folders[$i]}
  rank[$d]=$i
  [ -d "$src/harness/$d" ] || { echo "layers: no harness/$d folder"; exit 1; }
  for h in "$src/harness/$d"/*.h; do
    [ -e "$h" ] || continue
    b=$(basename "$h")
    [ -z "${home[$b]:-}" ] || { echo "layers: $b is in both harness/${home[$b]} and harness/$d"; exit 1; }
    home[$b]=$d
  done
done
while IFS= read -r f; do
  d=${f#"$src/harness/"}
  d=${d%/*}
  [ -n "${rank[$d]:-}" ] || { echo "layers: $f is in no layer folder"; exit 1; }
done < <(find "$src/harness" -type f \( -name '*.c' -o -name '*.h' \))
bad=0 files=0 edges=0 pairs=
for d in "${folders[@]}"; do
  for f in "$src/harness/$d"/*.[ch]; do
    [ -e "$f" ] || continue
    files=$((files + 1))
    m=$(basename "${f%.*}")
    pairs+="$m $m"$'\n'
    while IFS=: read -r line inc; do
      h=$(sed -E 's/.*#include "([^"]+)".*/\1/' <<< "$inc")
      # kernels/ and include/kgate/ (kgate/module.h), below every folder; harness headers go by bare name
      [ "$h" = "$(basename "$h")" ] || continue
      to=${home[$h]:-}
      [ -n "$to" ] || continue
      edges=$((edges + 1))
      if [ "${rank[$to]}" -gt "${rank[$d]}" ]; then
        echo "layers: harness/$d/$(basename "$f"):$line includes \"$h\" from harness/$to, a folder above"
        bad=$((bad + 1))
      fi
      dep=$(basename "${h%.h}")
      [ "$dep" = "$m" ] || pairs+="$m $dep"$'\n'
    done < <(grep -n '^#include "' "$f")
  done
done
[ "$bad" = 0 ] || exit 1
# tsort names the modules of each loop it meets, one per line after its first.
loop=$(tsort <<< "$pairs" 2>&1 >/dev/null | sed -n 's/^tsort: //p' | grep -v 'input contains a loop' | sort | tr '\n' ' ')
[ -z "$loop" ] || { echo "layers: the includes go round a loop: ${loop% }"; exit 1; }
echo "layers: $files files in ${#folders[@]} folders, $edges includes between their headers, none up a folder, no loop"
