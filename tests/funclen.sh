#!/bin/bash
# The function-length rule (docs/architecture.md): no function of harness/
# over 60 lines, its signature to its closing brace. A definition starts at
# column 0 with a name and a '(' (not a declaration, a table's initializer or
# a preprocessor line) and ends at the first '}' in column 0. A failure
# names the file, the line and the function.
# usage: funclen.sh SOURCE_DIR | funclen.sh --self-test (a planted 61-line function must fail, a 60-line one pass)
set -u
max=60
if [ "${1:-}" = --self-test ]; then
  t=$(mktemp -d) && trap 'rm -rf "$t"' EXIT
  mkdir -p "$t/harness/lib/basics"
  { echo "static int ok(void) {"; for i in $(seq 58); do echo "  x++;"; done; echo "}"; } > "$t/harness/lib/basics/a.c"
  bash "$0" "$t" > /dev/null || { echo "funclen: self-test: a 60-line function failed"; exit 1; }
  { echo "int too_long(int a,"; echo "             int b) {"; for i in $(seq 58); do echo "  a += b;"; done; echo "}"; } \
    > "$t/harness/lib/basics/b.c"
  out=$(bash "$0" "$t") && { echo "funclen: self-test: a 61-line function passed"; exit 1; }
  grep -q 'harness/lib/basics/b.c:1: too_long is 61 lines' <<< "$out" || { echo "funclen: self-test: wrong message: $out"; exit 1; }
  echo "funclen: self-test: the planted 61-line function was caught, the 60-line one passed"
  exit 0
fi
src=${1:-.}
out=$(find "$src/harness" -name '*.c' | sort | while IFS= read -r f; do
  awk -v max=$max -v file="${f#"$src/"}" '
    start == 0 && /^[A-Za-z_][^=]*\(/ && !/;[[:space:]]*$/ {
      start = FNR; name = $0; sub(/[[:space:]]*\(.*/, "", name); sub(/.*[^A-Za-z0-9_]/, "", name); next
    }
    start && /^}/ { n = FNR - start + 1; if (n > max) printf "%s:%d: %s is %d lines\n", file, start, name, n; start = 0 }
  ' "$f"
done)
count=$(find "$src/harness" -name '*.c' | wc -l)
[ -z "$out" ] || { echo "$out"; echo "funclen: a function over $max lines (split it)"; exit 1; }
echo "funclen: $count files, no function over $max lines"
