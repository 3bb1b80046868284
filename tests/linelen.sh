#!/bin/bash
# The line rule (docs/architecture.md): no line of harness/ over 120 columns
# (characters, not bytes), but a Markdown table's row, which cannot wrap. A
# failure names the file, the line and its width.
# usage: linelen.sh SOURCE_DIR | linelen.sh --self-test (a planted 121-column line must fail, a 120-column one pass)
set -u
max=120
if [ "${1:-}" = --self-test ]; then
  t=$(mktemp -d) && trap 'rm -rf "$t"' EXIT
  mkdir -p "$t/harness/lib/basics"
  { printf '/* %s */\n' "$(printf 'é%.0s' $(seq 114))"; printf '| %s |\n' "$(printf 't%.0s' $(seq 130))"; } \
    > "$t/harness/lib/basics/a.c"
  bash "$0" "$t" > /dev/null || { echo "linelen: self-test: a 120-column line failed"; exit 1; }
  printf '  int x = 1; /* %s */\n' "$(printf 'é%.0s' $(seq 102))" > "$t/harness/lib/basics/b.h"
  out=$(bash "$0" "$t") && { echo "linelen: self-test: a 121-column line passed"; exit 1; }
  grep -q 'harness/lib/basics/b.h:1: over 120 columns' <<< "$out" || { echo "linelen: self-test: wrong message: $out"; exit 1; }
  echo "linelen: self-test: the planted 121-column line was caught, the 120-column one passed"
  exit 0
fi
src=${1:-.}
out=$(cd "$src" && find harness -type f | sort | while IFS= read -r f; do
  LC_ALL=C.UTF-8 grep -nE "^.{$((max + 1)),}" "$f" | grep -vE '^[0-9]+:\|' | sed "s|^\([0-9]*\):.*|$f:\1: over $max columns|"
done)
count=$(find "$src/harness" -type f | wc -l)
[ -z "$out" ] || { echo "$out"; echo "linelen: a line over $max columns (fold it)"; exit 1; }
echo "linelen: $count files, no line over $max columns"
