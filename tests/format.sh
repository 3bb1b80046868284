#!/bin/bash
# The committed .clang-format holds: clang-format-14 --dry-run -Werror on every
# harness file listed in tests/format.files (the files the style holds today;
# a file joins the list once `clang-format-14 -i` leaves it unchanged). Also
# fails on a listed file that is gone. Skips (77) with no clang-format 14:
# other majors format differently. .ci/run installs it and runs this directly.
# usage: format.sh SOURCE_DIR | format.sh --self-test (a misformatted copy of a listed file must fail)
set -u
cf=${CLANG_FORMAT:-}
if [ -z "$cf" ]; then
  for c in clang-format-14 clang-format; do
    command -v "$c" > /dev/null && "$c" --version | grep -q 'version 14\.' && { cf=$c; break; }
  done
fi
[ -n "$cf" ] || { echo "format: no clang-format 14 (apt-get install clang-format-14)"; exit 77; }
here=$(cd "$(dirname "$0")" && pwd)
if [ "${1:-}" = --self-test ]; then
  t=$(mktemp -d) && trap 'rm -rf "$t"' EXIT
  src=$(cd "$here/.." && pwd)
  mkdir -p "$t/tests" "$t/harness/lib/basics"
  cp "$src/.clang-format" "$t/"
  cp "$src/harness/lib/basics/label.c" "$t/harness/lib/basics/"
  echo harness/lib/basics/label.c > "$t/tests/format.files"
  CLANG_FORMAT=$cf bash "$0" "$t" > /dev/null || { echo "format: self-test: a formatted file failed"; exit 1; }
  sed -i '0,/^  /s/^  /    /' "$t/harness/lib/basics/label.c"
  out=$(CLANG_FORMAT=$cf bash "$0" "$t" 2>&1) && { echo "format: self-test: a misformatted file passed"; exit 1; }
  grep -q 'label.c' <<< "$out" || { echo "format: self-test: wrong message: $out"; exit 1; }
  echo "format: self-test: the misformatted copy was caught, the formatted one passed"
  exit 0
fi
src=${1:-.}
list="$src/tests/format.files"
mapfile -t files < <(grep -v '^#' "$list" | grep .)
cd "$src" || exit 2
for f in "${files[@]}"; do [ -f "$f" ] || { echo "format: $list names $f, which is gone"; exit 1; }; done
"$cf" --style=file --dry-run -Werror "${files[@]}" || { echo "format: clang-format-14 -i FILE (the style: .clang-format)"; exit 1; }
echo "format: ${#files[@]} files as .clang-format says"
